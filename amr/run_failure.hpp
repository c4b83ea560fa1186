// The exception that stops a run that went wrong once it has started (exit code 3).
#pragma once

#include <stdexcept>

namespace pw {

/// A run whose state or hierarchy went wrong (a NaN or an infinity; levels that would not
/// fit in memory): stops it on every rank, the message naming where (exit code 3).
class RunFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pw
