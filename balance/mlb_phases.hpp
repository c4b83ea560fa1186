// The four phases of MLB (Quinlan & Berndt 1997, §3) on a 1D discrete load function, for
// all positions of the hypercube at once: the Gray-code geometry and phase 2 that every
// rank computes alike, and the reference that Mlb::plan's per-position run (on a
// RankComm) is tested against.
#pragma once

#include <vector>

namespace pw::mlb {

/// Gray code of r: rank 0 has code 0 and successive ranks change one bit (§3).
inline int gray(int r) {
  return r ^ (r >> 1);
}
/// The rank whose Gray code is g.
int gray_inverse(int g);
/// The neighbour of hypercube position `pos` along the k-edge: the position whose Gray
/// code differs in bit k (§3). In rank order it is pos mirrored in its block of 2^(k+1)
/// positions, so the k-edges join the two halves of every such block.
inline int edge_partner(int pos, int k) {
  return gray_inverse(gray(pos) ^ (1 << k));
}

/// A hypercube of 2^dims positions for p ranks. When p is not a power of two the
/// 2^dims - p virtual ranks sit at the last odd positions; they have no capacity, so they
/// are given no load, and each is played by its 0-edge sibling, which is real (p is more
/// than half of 2^dims). Real ranks keep their order along the positions.
struct Hypercube {
  int dims = 0;
  std::vector<int> rank_at;  // position -> real rank, -1 for a virtual one
  std::vector<int> pos_of;   // real rank -> position

  int size() const { return int(rank_at.size()); }
  /// The real rank that plays position pos.
  int host(int pos) const { return rank_at[pos] >= 0 ? rank_at[pos] : rank_at[pos ^ 1]; }
  /// Pre: nranks >= 1.
  static Hypercube make(int nranks);
};

/// A tree of loads over the hypercube: tree[l][node] for level l = 0 (the root, the
/// whole cube) to dims (the positions); node j of level l has children 2j and 2j + 1.
using LoadTree = std::vector<std::vector<double>>;

/// Phase 1 (§3.1): the load of every sub-hypercube, summed up from the positions' loads.
/// Pre: leaf.size() is a power of two.
LoadTree accumulate(const std::vector<double>& leaf);

/// Phase 2 (§3.2): desired loads, from the root's `total` down; each node's desired load
/// is split between its children in proportion to their capacity (`capacity`, a tree
/// from accumulate of the positions' speeds). Equal capacities halve it, as in the paper
/// (costs are real numbers here, so there is no remainder to place).
LoadTree desired(const LoadTree& capacity, double total);

/// Phase 3 (§3.3): the schedule that balances a divisible load. Position q initially
/// holds the stretch [start[q], start[q+1]) of the load function and should end with
/// [target[q], target[q+1]). Step s uses the edge k = dims-1-s (coarsest first): each
/// position sends its partner the load that belongs to the partner's half of their
/// block. send[s][q] is the amount q sends at step s, held[s][q] what q holds after it.
struct DivisibleSchedule {
  std::vector<std::vector<double>> send;
  std::vector<std::vector<double>> held;
};
DivisibleSchedule balance_divisible(const std::vector<double>& start,
                                    const std::vector<double>& target, int dims);

/// Phase 4 (§3.4): indivisible loads. items[i] costs cost[i] (in load-function order)
/// and starts at position holder[i] (nondecreasing). Each cut of the load function is
/// moved to the nearest item boundary; the difference is the loan that the finer edges
/// carry. The items then travel the edges coarsest first, as in phase 3.
struct Hop {
  int step;
  int from;  // positions
  int to;
  int item;
};
struct IndivisibleSchedule {
  std::vector<int> final_pos;             // per item
  std::vector<Hop> hops;                  // by step, then by item
  std::vector<std::vector<double>> loan;  // [step][position]: held - phase 3's held
};
IndivisibleSchedule balance_indivisible(const std::vector<double>& cost,
                                        const std::vector<int>& holder,
                                        const std::vector<double>& target,
                                        const DivisibleSchedule& divisible, int dims);

}  // namespace pw::mlb
