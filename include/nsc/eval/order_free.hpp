/// \file nsc/eval/order_free.hpp
/// NSC summed in a canonical order, so that mathematically equal scores are bitwise equal and
/// rank statistics count them as ties (the generic path of `nsc rank`, used by every family
/// adapter of nsc/eval/families.hpp and by table rows, nsc/io/rank_table.hpp).
///
/// Architectures that differ only in the order of their layers (or, more generally, have the
/// same multiset of scored blocks) have the same NSC mathematically, but summed in layer order
/// their doubles differ in the last bits, and a rank statistic would then order them by rounding
/// noise instead of counting a tie. `order_free_score` sums psi of each distinct block value
/// times its number of blocks in ascending order of the value: equal multisets of blocks give
/// bitwise-equal scores whatever the order of layers, heads or weights. (Rounding to ~12
/// significant digits was rejected: two values that straddle a rounding boundary still split,
/// and distinct scores closer than the rounding merge.) The result agrees with
/// `score(net, s).nsc` to about 1e-15 relative (n terms of one rounding each).
#ifndef NSC_EVAL_ORDER_FREE_HPP
#define NSC_EVAL_ORDER_FREE_HPP

#include <nsc/model/network.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace nsc::eval {

/// A sum of psi terms that does not depend on the order they are added in: add(value, count)
/// records `count` blocks of psi `value`; total() sorts the values, merges equal ones (their
/// counts are integers, added exactly) and returns sum count * value in ascending order of
/// value. Two equal multisets of (value, count) give bitwise-equal totals.
class term_sum {
public:
  void add(double value, double count = 1) {
    if (count != 0 && value != 0) terms_.emplace_back(value, count);
  }
  void clear() noexcept { terms_.clear(); }
  [[nodiscard]] double total() {
    std::sort(terms_.begin(), terms_.end());
    double s = 0;
    std::size_t i = 0;
    while (i < terms_.size()) {
      const double v = terms_[i].first;
      double count = 0;
      for (; i < terms_.size() && terms_[i].first == v; ++i) count += terms_[i].second;
      s += count * v;
    }
    return s;
  }

private:
  std::vector<std::pair<double, double>> terms_;
};

/// Adds every scored block of `l` to `sum`, repeat times (a run of identical layers: its
/// block counts times repeat, so a run and its expansion give bitwise-equal totals while the
/// counts stay below 2^53).
inline void add_terms(term_sum& sum, const layer& l, const scoring& s, psi_cache* cache = nullptr) {
  for (const weight& w : l.weights)
    if (is_scored(w, s)) sum.add(block_psi(w, s, cache), w.blocks() * double(l.repeat));
}

/// NSC of `net` under `s` summed in a canonical order (see the file comment): equal to
/// score(net, s).nsc up to rounding, and bitwise equal for any two networks with the same
/// multiset of scored blocks. Validates the network (std::invalid_argument).
inline double order_free_score(const network& net, const scoring& s, psi_cache* cache = nullptr) {
  validate(net);
  term_sum sum;
  for (const layer& l : net.layers) add_terms(sum, l, s, cache);
  return sum.total();
}

} // namespace nsc::eval

#endif // NSC_EVAL_ORDER_FREE_HPP
