// Work on the whole hierarchy at the moments every level is at one time: after the levels
// are built or restored, and after each coarse step. An elliptic solve over the levels
// (solver/) is one; amr/ declares the seam, app/ installs the hook.
#pragma once

namespace pw {

class Hierarchy;

class SyncHook {
 public:
  virtual ~SyncHook() = default;
  /// Every level of h is at h.time(). Collective over h.comm().
  virtual void at_sync(Hierarchy& h) = 0;
};

}  // namespace pw
