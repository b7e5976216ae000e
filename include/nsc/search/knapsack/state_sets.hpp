/// \file nsc/search/knapsack/state_sets.hpp
/// The state-set machinery shared by the sparse, dense and lattice paths: identical groups found
/// and ordered, the epsilon-front's trim and cover boxes, lexicographic cost order, the streaming
/// dominance filter and its K-D index for K >= 3.
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_STATE_SETS_HPP
#define NSC_SEARCH_KNAPSACK_STATE_SETS_HPP

#include <nsc/search/knapsack/result.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace nsc::search {

namespace detail {

/// True when two groups are equal option by option (value ==, same costs).
template <class Value>
bool mmck_same_group(const std::vector<mmck_option<Value>>& a,
                     const std::vector<mmck_option<Value>>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t j = 0; j < a.size(); ++j)
    if (!(a[j].value == b[j].value) || a[j].cost != b[j].cost) return false;
  return true;
}

/// The group indices sorted so that identical groups are adjacent (by size, then option by
/// option value and costs; ties by index).
template <class Value>
std::vector<std::size_t> mmck_group_order(const mmck_groups<Value>& g) {
  std::vector<std::size_t> order(g.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const auto &a = g[x], &b = g[y];
    if (a.size() != b.size()) return a.size() < b.size();
    for (std::size_t j = 0; j < a.size(); ++j) {
      if (a[j].value < b[j].value) return true;
      if (b[j].value < a[j].value) return false;
      if (a[j].cost != b[j].cost) return a[j].cost < b[j].cost;
    }
    return x < y;
  });
  return order;
}

/// The in-DP epsilon-front's trim box of a cost: floor(log c / width); cost 0 its own box (-1).
inline std::int64_t mmck_trim_box(std::int64_t c, double width) {
  return c <= 0 ? std::int64_t(-1) : std::int64_t(std::floor(std::log(double(c)) / width));
}

/// The cover box of a cost: `depth` consecutive trim boxes, floor(trim box / depth) (trim
/// boxes of costs >= 1 are >= 0); cost 0 its own box. Nested: costs of one trim box share their
/// cover box. Costs in one cover box are within exp(depth x width) <= 1 + epsilon of each other
/// when width is the solve's trim_width and depth its trim_depth (width is 1e-6 narrower than
/// log(1 + delta), (1 + delta)^depth = 1 + epsilon).
inline std::int64_t mmck_cover_box(std::int64_t c, double width, std::size_t depth) {
  if (c <= 0) return std::numeric_limits<std::int64_t>::min();
  return mmck_trim_box(c, width) / std::int64_t(depth);
}

/// A set of K-vectors of box indices (open addressing): insert() says whether it was new.
class mmck_box_set {
public:
  explicit mmck_box_set(std::size_t K) : K_(K), slots_(1024, std::uint32_t(-1)) {}
  bool insert(const std::int64_t* key) {
    for (std::size_t h = hash(key) & (slots_.size() - 1);; h = (h + 1) & (slots_.size() - 1)) {
      const std::uint32_t i = slots_[h];
      if (i == std::uint32_t(-1)) break;
      if (std::equal(key, key + K_, keys_.begin() + std::ptrdiff_t(std::size_t(i) * K_))) return false;
    }
    keys_.insert(keys_.end(), key, key + K_);
    place(std::uint32_t(size() - 1));
    if (2 * size() > slots_.size()) {
      slots_.assign(2 * slots_.size(), std::uint32_t(-1));
      for (std::uint32_t i = 0; i < size(); ++i) place(i);
    }
    return true;
  }
  std::size_t size() const { return keys_.size() / K_; }

private:
  std::size_t hash(const std::int64_t* key) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::size_t k = 0; k < K_; ++k) h = (h ^ std::uint64_t(key[k])) * 0xff51afd7ed558ccdull, h ^= h >> 32;
    return std::size_t(h);
  }
  void place(std::uint32_t i) {
    std::size_t h = hash(keys_.data() + std::size_t(i) * K_) & (slots_.size() - 1);
    while (slots_[h] != std::uint32_t(-1)) h = (h + 1) & (slots_.size() - 1);
    slots_[h] = i;
  }
  std::size_t K_;
  std::vector<std::int64_t> keys_;
  std::vector<std::uint32_t> slots_;
};

/// Lexicographic comparison of two K-cost rows.
inline int mmck_cmp(const std::int64_t* x, const std::int64_t* y, std::size_t K) {
  for (std::size_t k = 0; k < K; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

/// Sorts option indices by lexicographic cost, then largest value, then lowest index (the order
/// the dominance filter and same-cost pruning expect).
template <class Value, class Index>
void mmck_sort_options(const std::vector<mmck_option<Value>>& opts, std::size_t K, std::vector<Index>& order) {
  std::sort(order.begin(), order.end(), [&](Index x, Index y) {
    const int r = mmck_cmp(opts[x].cost.data(), opts[y].cost.data(), K);
    if (r != 0) return r < 0;
    if (opts[y].value < opts[x].value) return true;
    if (opts[x].value < opts[y].value) return false;
    return x < y;
  });
}

/// Dynamic dominance index over kept states for K >= 3 (dimensions 1..K-1; dimension 0 is the
/// stream order): dominated(c, v) is true when some inserted state i has value_i >= v and
/// cost_ik <= c_k for k = 1..K-1, the linear scan's rule. Bentley-Saxe levels of static K-D
/// trees (level j holds 0 or 2^j x 32 states; subtree bounding boxes and best values), plus a
/// buffer of up to 32 scanned linearly: insertion O(log^2 n) amortised, a query visits only
/// subtrees whose box meets {x <= c} and whose best value reaches v.
template <class Value>
class mmck_dominance_index {
public:
  mmck_dominance_index(std::size_t K, const std::vector<std::int64_t>& cost, const std::vector<Value>& value)
      : K_(K), cost_(cost), value_(value) {}

  void insert(std::uint32_t i) {
    buffer_.push_back(i);
    if (buffer_.size() < chunk) return;
    std::vector<std::uint32_t> carry;
    carry.swap(buffer_);
    std::size_t j = 0;
    for (; j < levels_.size() && !levels_[j].idx.empty(); ++j) {
      carry.insert(carry.end(), levels_[j].idx.begin(), levels_[j].idx.end());
      levels_[j] = {};
    }
    if (j == levels_.size()) levels_.emplace_back();
    levels_[j].idx = std::move(carry);
    build(levels_[j], 0, levels_[j].idx.size());
  }

  bool dominated(const std::int64_t* c, const Value& v) const {
    for (std::uint32_t i : buffer_)
      if (covers(i, c, v)) return true;
    for (const tree& t : levels_)
      if (!t.idx.empty() && query(t, c, v)) return true;
    return false;
  }

private:
  static constexpr std::size_t chunk = 32;
  struct node {
    mmck_cost mn{}, mx{};
    std::uint32_t best = 0;  // index of a state with the largest value in the subtree
    std::uint32_t lo = 0, hi = 0, left = 0, right = 0;
    bool inner = false;
  };
  struct tree {
    std::vector<std::uint32_t> idx;
    std::vector<node> nodes;
  };
  bool covers(std::uint32_t i, const std::int64_t* c, const Value& v) const {
    if (value_[i] < v) return false;
    const std::int64_t* q = cost_.data() + std::size_t(i) * K_;
    for (std::size_t k = 1; k < K_; ++k)
      if (q[k] > c[k]) return false;
    return true;
  }
  std::uint32_t build(tree& t, std::size_t lo, std::size_t hi) {
    const auto id = std::uint32_t(t.nodes.size());
    t.nodes.emplace_back();
    node nd;
    nd.lo = std::uint32_t(lo);
    nd.hi = std::uint32_t(hi);
    nd.best = t.idx[lo];
    for (std::size_t k = 1; k < K_; ++k) nd.mn[k] = nd.mx[k] = cost_[std::size_t(t.idx[lo]) * K_ + k];
    for (std::size_t u = lo; u < hi; ++u) {
      const std::uint32_t p = t.idx[u];
      if (value_[nd.best] < value_[p]) nd.best = p;
      for (std::size_t k = 1; k < K_; ++k) {
        nd.mn[k] = std::min(nd.mn[k], cost_[std::size_t(p) * K_ + k]);
        nd.mx[k] = std::max(nd.mx[k], cost_[std::size_t(p) * K_ + k]);
      }
    }
    if (hi - lo > 8) {
      std::size_t dim = 1;
      for (std::size_t k = 2; k < K_; ++k)
        if (nd.mx[k] - nd.mn[k] > nd.mx[dim] - nd.mn[dim]) dim = k;
      if (nd.mx[dim] > nd.mn[dim]) {
        const std::size_t mid = lo + (hi - lo) / 2;
        std::nth_element(t.idx.begin() + std::ptrdiff_t(lo), t.idx.begin() + std::ptrdiff_t(mid),
                         t.idx.begin() + std::ptrdiff_t(hi), [&](std::uint32_t x, std::uint32_t y) {
                           return cost_[std::size_t(x) * K_ + dim] < cost_[std::size_t(y) * K_ + dim];
                         });
        nd.inner = true;
        nd.left = build(t, lo, mid);
        nd.right = build(t, mid, hi);
      }
    }
    t.nodes[id] = nd;
    return id;
  }
  bool query(const tree& t, const std::int64_t* c, const Value& v) const {
    std::uint32_t stack[128];
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const node& nd = t.nodes[stack[--top]];
      if (value_[nd.best] < v) continue;
      bool meets = true, inside = true;
      for (std::size_t k = 1; k < K_; ++k) {
        meets = meets && nd.mn[k] <= c[k];
        inside = inside && nd.mx[k] <= c[k];
      }
      if (!meets) continue;
      if (inside) return true;  // every state here fits, and the best reaches v
      if (nd.inner) {
        stack[top++] = nd.left;
        stack[top++] = nd.right;
      } else {
        for (std::uint32_t u = nd.lo; u < nd.hi; ++u)
          if (covers(t.idx[u], c, v)) return true;
      }
    }
    return false;
  }

  std::size_t K_;
  const std::vector<std::int64_t>& cost_;
  const std::vector<Value>& value_;
  std::vector<std::uint32_t> buffer_;
  std::vector<tree> levels_;
};

/// Streaming dominance filter: candidates arrive in lexicographic cost order, same costs
/// adjacent with the preferred one (largest value, then smallest key) first. K = 1: the best
/// value so far; K = 2: a staircase (map c1 -> value); K >= 3: mmck_dominance_index.
template <class Value>
class mmck_filter {
public:
  mmck_filter(std::size_t K, mmck_node<Value>& out) : K_(K), out_(out) {}

  /// Offers a candidate; returns true if kept.
  bool offer(const std::int64_t* c, const Value& v, std::uint32_t a, std::uint32_t b) {
    const std::size_t n = out_.count();
    if (have_last_ && mmck_cmp(c, last_.data(), K_) == 0) return false;  // same cost: first wins
    std::copy(c, c + K_, last_.begin());
    have_last_ = true;
    if (dominated(c, v)) return false;
    out_.cost.insert(out_.cost.end(), c, c + K_);
    out_.value.push_back(v);
    out_.a.push_back(a);
    out_.b.push_back(b);
    insert(n);
    return true;
  }

private:
  bool dominated(const std::int64_t* c, const Value& v) {
    if (K_ == 1) return best_ && !(*best_ < v);
    if (K_ == 2) {
      // stair: c1 ascending -> value strictly ascending; max value with c1' <= c1
      auto it = stair_.upper_bound(c[1]);
      if (it == stair_.begin()) return false;
      --it;
      return !(out_.value[it->second] < v);
    }
    return index_.dominated(c, v);  // q[0] <= c[0] by the stream order
  }
  void insert(std::size_t i) {
    const Value& v = out_.value[i];
    if (K_ == 1) {
      best_ = v;
      return;
    }
    if (K_ == 2) {
      const std::int64_t c1 = out_.cost[i * 2 + 1];
      auto it = stair_.lower_bound(c1);
      while (it != stair_.end() && !(v < out_.value[it->second])) it = stair_.erase(it);
      stair_[c1] = i;
      return;
    }
    index_.insert(std::uint32_t(i));
  }

  std::size_t K_;
  mmck_node<Value>& out_;
  mmck_cost last_{};
  bool have_last_ = false;
  std::optional<Value> best_;
  std::map<std::int64_t, std::size_t> stair_;
  mmck_dominance_index<Value> index_{K_, out_.cost, out_.value};
};

} // namespace detail

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_STATE_SETS_HPP
