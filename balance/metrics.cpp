#include "balance/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pw {

double ideal_time(double total_work, const std::vector<double>& speed) {
  const double capacity = std::accumulate(speed.begin(), speed.end(), 0.0);
  return total_work > 0 && capacity > 0 ? total_work / capacity : 0.0;
}

LoadMetrics load_metrics(const std::vector<double>& work,
                         const std::vector<double>& speed) {
  LoadMetrics m;
  if (work.empty()) return m;
  const double p = double(work.size());
  const double ideal = ideal_time(std::accumulate(work.begin(), work.end(), 0.0), speed);
  if (ideal <= 0) return m;
  std::vector<double> time(work.size());
  for (size_t i = 0; i < work.size(); ++i)
    time[i] = work[i] / speed[i];
  const double max = *std::max_element(time.begin(), time.end());
  m.imbalance = max / ideal;
  double s = 0;
  for (double t : time)
    s += (t / ideal - 1) * (t / ideal - 1);
  m.std = work.size() > 1 ? std::sqrt(s / (p - 1)) : 0.0;
  m.idle = double(std::count(work.begin(), work.end(), 0.0)) / p;
  m.estimated_balance = ideal / max;
  m.uintah_i = std::abs(1 - ideal / max);
  return m;
}

LoadMetrics load_metrics(const std::vector<double>& loads) {
  return load_metrics(loads, std::vector<double>(loads.size(), 1.0));
}

std::string percent(double fraction) {
  return fmt::format("{:.4f}", 100 * fraction);
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
