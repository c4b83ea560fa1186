// Work on the whole hierarchy between level steps: an elliptic solve over the levels at
// the moments they are all at one time, or a level's own solve right after its step (as
// self-gravity needs, ENZO's way). amr/ declares the seam, solver/ implements it, app/
// installs it.
#pragma once

namespace pw {

class Hierarchy;

/// When every level is at one time: after initialize(), after restore() (the checkpoint
/// holds what the last coarse step left), after each coarse step.
enum class SyncPoint { built, restored, stepped };

class StepHook {
 public:
  virtual ~StepHook() = default;
  /// Every level of h is at h.time(). Collective over h.comm().
  virtual void at_sync(Hierarchy& h, SyncPoint when) = 0;
  /// Level l has just advanced by dt: its u_new holds the state at its t_new, u_old the
  /// state at t_old; its finer levels have not stepped yet (they will read u_old and
  /// u_new for their coarse-fine ghosts). The hook may change u_new's values. Collective.
  virtual void after_level_step(Hierarchy& /*h*/, int /*l*/, double /*dt*/) {}
  /// Whether at_sync(stepped) may change the state, after every level was averaged
  /// down (a level-by-level Poisson solve writes phi on every level): then level 0 no
  /// longer shows every finer cell (check_finite's `synced`).
  virtual bool writes_state_at_sync() const { return true; }
};

}  // namespace pw
