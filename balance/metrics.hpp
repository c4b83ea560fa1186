// Quality metrics of a load distribution, as the seed papers define them.
//
// Rank i does work L_i at speed s_i, so it takes t_i = L_i / s_i; a perfect balance takes
// T = sum L / sum s on every rank. Every ratio below is taken against T, the
// normalisation of the lower bound (balance/lab/lab_metrics.hpp) and of the balancers'
// own objective (RankLoads::avg_load). With equal speeds T is the mean of the t_i, the
// papers' AvgLoad.
#pragma once

#include <string>
#include <vector>

namespace pw {

struct LoadMetrics {
  // max t_i / T: one term of Lan et al.'s imbalance_ratio (eq. 1, MaxLoad / AvgLoad).
  double imbalance = 1;
  // sqrt(sum_i (t_i / T - 1)^2 / (P - 1)): one term of avg_std (eq. 2), the spread of the
  // ranks' times about the perfect-balance time.
  double std = 0;
  // Fraction of ranks with no work (one term of idle_procs, eq. 3); speeds do not enter:
  // the paper counts processors.
  double idle = 0;
  // T / max t_i: Morris's estimated load balance, ideal / max work.
  double estimated_balance = 1;
  // |1 - T / max t_i|: Luitjens et al.'s I (W_avg / W_max).
  double uintah_i = 0;
};

/// T = sum work / sum speed: the time every rank takes in a perfect balance. 0 when there
/// is no work or no speed.
double ideal_time(double total_work, const std::vector<double>& speed);

/// Metrics of one distribution: work[i] is the cost rank i holds (not divided by its
/// speed), speed[i] its relative speed (same length, all positive). Lan et al.'s eq. 2 is
/// garbled in the text we have; we take its stated meaning, the standard deviation over
/// processors of the load relative to the average. No work at all: the defaults (a
/// perfect balance).
LoadMetrics load_metrics(const std::vector<double>& work,
                         const std::vector<double>& speed);
/// The same on ranks of equal speed: loads per rank.
LoadMetrics load_metrics(const std::vector<double>& loads);

/// A fraction as a percentage with 4 decimals: enough to tell one rank in 65536 (0.0015%)
/// from none, and 65535 of them from all (99.9985%). Used by every printed idle and
/// estimated-balance figure (lab CSV, run log).
std::string percent(double fraction);

/// Averages over the balancing steps of a run (eqs. 1-3 are such averages).
struct MetricsSummary {
  int steps = 0;
  LoadMetrics mean;
  void add(const LoadMetrics& m);
};

}  // namespace pw
