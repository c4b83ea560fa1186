// Greedy bin packing of costs onto ranks (Morris §4, SAMRAI's binPack), and the estimated
// load balance by which Morris judges a distribution (Tables 1-2).
#pragma once

#include <vector>

namespace pw {

/// The owner of each item. Items go largest cost first (ties: lower index), each to the
/// rank whose load (sum of cost / speed) is least after taking it (ties: lower rank).
/// With equal speeds that is Morris's "least loaded rank"; with unequal ones it keeps a
/// slow idle rank from taking an item a fast busy rank would finish sooner.
/// Pre: speed is not empty and every speed > 0. Cost O(n log n + n log p) when the ranks
/// have few distinct speeds (one heap per speed).
std::vector<int> bin_pack(const std::vector<double>& cost,
                          const std::vector<double>& speed);

/// Item indices by cost, largest first, ties by lower index: the order of bin_pack (and
/// of std::stable_sort by decreasing cost), by a radix sort. Pre: no cost is NaN.
std::vector<int> largest_first(const std::vector<double>& cost);

/// Morris's estimated load balance: the ideal load (sum of cost / sum of speed) over the
/// largest rank load (sum of cost / speed of the rank); 1 is perfect, and it is 1 when
/// there is no cost at all. Pre: owners in [0, speed.size()).
double estimated_load_balance(const std::vector<double>& cost,
                              const std::vector<int>& owner,
                              const std::vector<double>& speed);

}  // namespace pw
