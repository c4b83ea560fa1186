// The exit codes of the patchwork executable (README, "Exit codes"): scripts and job
// chains tell a bad input from a run that went wrong from a bug by them.
#pragma once

namespace pw {

enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 2,       // deck, command line, restart file, a write that failed
  kExitRunFailed = 3,      // the state turned non-finite during the run
  kExitInternalError = 4,  // a bug or an exhausted machine: an unexpected exception
};

}  // namespace pw
