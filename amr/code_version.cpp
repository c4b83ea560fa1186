#include "amr/code_version.hpp"

namespace pw {

// Defined for this file alone (amr/CMakeLists.txt): when the revision changes with a
// commit, only this file is compiled again.
const char* code_version() {
  return PATCHWORK_CODE_VERSION;
}

}  // namespace pw
