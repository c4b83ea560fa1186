// Quality metrics of a load distribution, as the seed papers define them.
#pragma once

#include <vector>

namespace pw {

struct LoadMetrics {
  double imbalance =
      1;            // MaxLoad / AvgLoad: one term of Lan et al.'s imbalance_ratio (eq. 1)
  double std = 0;   // sqrt(sum_i (L_i/AvgLoad - 1)^2 / (P - 1)): one term of avg_std
  double idle = 0;  // fraction of ranks with no load: one term of idle_procs (eq. 3)
  double estimated_balance = 1;  // Morris's estimated load balance: ideal / max work
  double uintah_i = 0;           // Luitjens et al.: |1 - W_avg / W_max|
};

/// Metrics of one distribution (loads per rank, already divided by rank speed). Lan et
/// al.'s eq. 2 is garbled in the text we have; we take its stated meaning, the standard
/// deviation over processors of the load relative to the average.
LoadMetrics load_metrics(const std::vector<double>& loads);

/// Averages over the balancing steps of a run (eqs. 1-3 are such averages).
struct MetricsSummary {
  int steps = 0;
  LoadMetrics mean;
  void add(const LoadMetrics& m);
};

}  // namespace pw
