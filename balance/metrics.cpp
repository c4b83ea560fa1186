#include "balance/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pw {

LoadMetrics load_metrics(const std::vector<double>& loads) {
  LoadMetrics m;
  const double p = double(loads.size());
  if (loads.empty()) return m;
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  const double avg = total / p;
  const double max = *std::max_element(loads.begin(), loads.end());
  if (avg <= 0) return m;
  m.imbalance = max / avg;
  double s = 0;
  for (double l : loads)
    s += (l / avg - 1) * (l / avg - 1);
  m.std = loads.size() > 1 ? std::sqrt(s / (p - 1)) : 0.0;
  m.idle = double(std::count(loads.begin(), loads.end(), 0.0)) / p;
  m.estimated_balance = avg / max;
  m.uintah_i = std::abs(1 - avg / max);
  return m;
}

void MetricsSummary::add(const LoadMetrics& m) {
  const double w = 1.0 / double(++steps);
  // Running means, so that a long run needs no history.
  mean.imbalance += (m.imbalance - mean.imbalance) * w;
  mean.std += (m.std - mean.std) * w;
  mean.idle += (m.idle - mean.idle) * w;
  mean.estimated_balance += (m.estimated_balance - mean.estimated_balance) * w;
  mean.uintah_i += (m.uintah_i - mean.uintah_i) * w;
}

}  // namespace pw
