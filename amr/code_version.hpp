// The code version every output records (dumps, run summary, --version): "patchwork X.Y",
// with " (git REVISION)" when built from a git checkout of the sources.
#pragma once

namespace pw {

/// cmake/PatchworkGitRevision.cmake's PATCHWORK_CODE_VERSION, taken at configure time.
const char* code_version();

}  // namespace pw
