#include "balance/sim_comm.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace pw {

RankMin allreduce_minloc(const std::vector<double>& per_rank) {
  RankMin m{std::numeric_limits<double>::infinity(), -1};
  for (int r = 0; r < int(per_rank.size()); ++r)
    if (per_rank[r] < m.value || m.rank < 0) m = {per_rank[r], r};
  return m;
}

RankMin SimRankComm::allreduce_minloc(
    int nranks, const std::function<double(int, double)>& value_of) const {
  RankMin m{std::numeric_limits<double>::infinity(), -1};
  for (int r = 0; r < nranks; ++r) {
    const double v = value_of(r, m.value);
    if (v < m.value || m.rank < 0) m = {v, r};
  }
  return m;
}

std::vector<int> SimRankComm::broadcast(
    int, int, const std::function<std::vector<int>()>& data) const {
  return data();
}

std::vector<int> SimRankComm::all_gather(
    int nranks, const std::function<std::vector<int>(int)>& data_of) const {
  std::vector<int> all;
  for (int r = 0; r < nranks; ++r) {
    const std::vector<int> mine = data_of(r);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  return all;
}

std::vector<Letter> SimRankComm::exchange(int, const std::function<int(int)>&,
                                          std::vector<Letter> out) const {
  // Pairwise: every place gets at most one letter, so placing them by `to` sorts them
  // (in linear time: a round of the hypercube has one letter per position).
  int places = 0;
  for (const Letter& l : out)
    places = std::max(places, l.to + 1);
  std::vector<int> at(size_t(places), -1);
  for (size_t i = 0; i < out.size(); ++i) {
    if (at[size_t(out[i].to)] >= 0)
      throw std::logic_error("SimRankComm::exchange: two letters to one place");
    at[size_t(out[i].to)] = int(i);
  }
  std::vector<Letter> in;
  in.reserve(out.size());
  for (int i : at)
    if (i >= 0) in.push_back(std::move(out[size_t(i)]));
  return in;
}

}  // namespace pw
