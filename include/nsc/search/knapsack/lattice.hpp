/// \file nsc/search/knapsack/lattice.hpp
/// The lattice path: product groups split, classes of identical groups as multiset tables over
/// their cost lattice, Pareto merges (sorted pairs or a dense grid) and the K-D tree of the
/// single query.
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_LATTICE_HPP
#define NSC_SEARCH_KNAPSACK_LATTICE_HPP

#include <nsc/search/knapsack/state_sets.hpp>

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

/// Product detection: options = p x q (row-major) with cost(i q + j) = A_i + F_j and value(i q +
/// j) == a_i + f_j exactly in Value arithmetic (a_i = value(i q), f_j = value(j) - value(0)).
/// Appends the factors (options, stride factor), recursively; a group that is no product is
/// appended whole.
template <class Value>
void mmck_split_products(const std::vector<mmck_option<Value>>& opts, std::size_t stride,
                         std::size_t K,
                         std::vector<std::pair<std::vector<mmck_option<Value>>, std::size_t>>& out) {
  const std::size_t J = opts.size();
  for (std::size_t p = 2; p * 2 <= J; ++p) {
    if (J % p != 0) continue;
    const std::size_t q = J / p;
    std::vector<mmck_option<Value>> A(p), F(q);
    bool ok = true;
    for (std::size_t k = 0; k < K && ok; ++k) {
      std::int64_t fmin = 0;
      for (std::size_t j = 0; j < q; ++j) fmin = std::min(fmin, opts[j].cost[k] - opts[0].cost[k]);
      for (std::size_t j = 0; j < q; ++j) F[j].cost.push_back(opts[j].cost[k] - opts[0].cost[k] - fmin);
      for (std::size_t i = 0; i < p && ok; ++i) {
        const std::int64_t a = opts[i * q].cost[k] + fmin;  // >= 0 when the product holds
        if (a < 0) ok = false;
        A[i].cost.push_back(a);
        for (std::size_t j = 0; j < q && ok; ++j) {
          std::int64_t c;
          ok = mmck_add(a, F[j].cost[k], c) && c == opts[i * q + j].cost[k];
        }
      }
    }
    if (!ok) continue;
    for (std::size_t i = 0; i < p; ++i) A[i].value = opts[i * q].value;
    for (std::size_t j = 0; j < q && ok; ++j) {
      if constexpr (std::is_integral_v<Value>) {
        ok = !__builtin_sub_overflow(opts[j].value, opts[0].value, &F[j].value);
      } else {
        F[j].value = opts[j].value - opts[0].value;
      }
    }
    for (std::size_t i = 0; i < p && ok; ++i)
      for (std::size_t j = 0; j < q && ok; ++j) {
        if constexpr (std::is_integral_v<Value>) {
          Value t{};
          ok = !__builtin_add_overflow(A[i].value, F[j].value, &t) && t == opts[i * q + j].value;
        } else {
          ok = A[i].value + F[j].value == opts[i * q + j].value;
        }
      }
    if (!ok) continue;
    mmck_split_products(A, stride * q, K, out);
    mmck_split_products(F, stride, K, out);
    return;
  }
  out.push_back({opts, stride});
}

/// The classes of the lattice engine from (options, slots) pairs: products split when asked,
/// identical factors merged (their slots concatenated, ascending group).
template <class Value>
std::vector<mmck_lclass<Value>> mmck_make_classes(
    std::vector<std::pair<std::vector<mmck_option<Value>>, std::vector<std::pair<std::size_t, std::size_t>>>> in,
    std::size_t K, bool split, bool& products) {
  std::vector<mmck_lclass<Value>> out;
  products = false;
  for (auto& [opts, slots] : in) {
    std::vector<std::pair<std::vector<mmck_option<Value>>, std::size_t>> parts;
    if (split) mmck_split_products(opts, 1, K, parts);
    else parts.push_back({opts, 1});
    if (parts.size() > 1) products = true;
    for (auto& [po, ps] : parts) {
      mmck_lclass<Value>* into = nullptr;
      for (auto& c : out)
        if (mmck_same_group(c.options, po)) into = &c;
      if (!into) {
        out.emplace_back();
        into = &out.back();
        into->options = std::move(po);
      }
      for (const auto& [g, st] : slots) into->slots.push_back({g, st * ps});
    }
  }
  for (auto& c : out) std::sort(c.slots.begin(), c.slots.end());
  return out;
}

inline mmck_i128 mmck_abs(mmck_i128 x) { return x < 0 ? -x : x; }

/// Integer lattice basis (echelon, by Euclid's row reduction) of the option cost differences
/// and every kept option's coordinates in it, reduced by shears (y_i -= k y_l) that shrink the
/// coordinate box, then shifted to start at 0. false when an entry passes 2^62 (then the class
/// is not run on the lattice path).
template <class Value>
bool mmck_lattice_coordinates(mmck_lclass<Value>& c, std::size_t K) {
  const mmck_i128 lim = mmck_i128(1) << 62;
  const std::size_t n = c.kept.size();
  const auto& ref = c.options[c.kept[0]].cost;
  std::vector<std::vector<mmck_i128>> rows;
  for (std::size_t t = 1; t < n; ++t) {
    std::vector<mmck_i128> d(K);
    bool zero = true;
    for (std::size_t k = 0; k < K; ++k) {
      d[k] = mmck_i128(c.options[c.kept[t]].cost[k]) - ref[k];
      zero = zero && d[k] == 0;
    }
    if (!zero) rows.push_back(std::move(d));
  }
  std::vector<std::vector<mmck_i128>> basis;
  std::vector<std::size_t> pivot;
  for (std::size_t k = 0; k < K && !rows.empty(); ++k) {
    while (true) {
      std::size_t piv = SIZE_MAX;
      for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i][k] != 0 && (piv == SIZE_MAX || mmck_abs(rows[i][k]) < mmck_abs(rows[piv][k]))) piv = i;
      if (piv == SIZE_MAX) break;
      bool more = false;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i == piv || rows[i][k] == 0) continue;
        const mmck_i128 q = rows[i][k] / rows[piv][k];
        for (std::size_t t = k; t < K; ++t) {
          rows[i][t] -= q * rows[piv][t];
          if (mmck_abs(rows[i][t]) > lim) return false;
        }
        more = more || rows[i][k] != 0;
      }
      if (!more) {
        basis.push_back(rows[piv]);
        pivot.push_back(k);
        rows.erase(rows.begin() + std::ptrdiff_t(piv));
        break;
      }
    }
    std::erase_if(rows, [](const std::vector<mmck_i128>& r) {
      return std::all_of(r.begin(), r.end(), [](mmck_i128 x) { return x == 0; });
    });
  }
  const std::size_t r = basis.size();
  std::vector<std::vector<mmck_i128>> y(n, std::vector<mmck_i128>(r, 0));
  for (std::size_t t = 0; t < n; ++t) {
    std::vector<mmck_i128> d(K);
    for (std::size_t k = 0; k < K; ++k) d[k] = mmck_i128(c.options[c.kept[t]].cost[k]) - ref[k];
    for (std::size_t i = 0; i < r; ++i) {
      const mmck_i128 b = basis[i][pivot[i]];
      if (d[pivot[i]] % b != 0) return false;  // not in the lattice: cannot happen
      y[t][i] = d[pivot[i]] / b;
      for (std::size_t k = 0; k < K; ++k) d[k] -= y[t][i] * basis[i][k];
    }
    for (std::size_t k = 0; k < K; ++k)
      if (d[k] != 0) return false;
  }
  // shears: y_i -= s y_l (basis_l += s basis_i) while the coordinate box shrinks
  auto range = [&](std::size_t i, std::size_t l, mmck_i128 s) {
    mmck_i128 lo = 0, hi = 0;
    for (std::size_t t = 0; t < n; ++t) {
      const mmck_i128 v = y[t][i] - s * y[t][l];
      if (t == 0 || v < lo) lo = v;
      if (t == 0 || v > hi) hi = v;
    }
    return hi - lo;
  };
  for (int round = 0; round < 8 && r > 1; ++round) {
    bool improved = false;
    for (std::size_t i = 0; i < r; ++i) {
      for (std::size_t l = 0; l < r; ++l) {
        if (i == l) continue;
        mmck_i128 best_s = 0, best = range(i, l, 0);
        std::size_t tried = 0;
        for (std::size_t t = 0; t < n && tried < 64; ++t) {
          if (y[t][l] == 0) continue;
          ++tried;
          const mmck_i128 q = y[t][i] / y[t][l];
          for (mmck_i128 s : {q - 1, q, q + 1}) {
            if (s == 0 || mmck_abs(s) > lim) continue;
            const mmck_i128 w = range(i, l, s);
            if (w < best) best = w, best_s = s;
          }
        }
        if (best_s == 0) continue;
        for (std::size_t k = 0; k < K; ++k) {
          basis[l][k] += best_s * basis[i][k];
          if (mmck_abs(basis[l][k]) > lim) return false;
        }
        for (std::size_t t = 0; t < n; ++t) y[t][i] -= best_s * y[t][l];
        improved = true;
      }
    }
    if (!improved) break;
  }
  c.r = r;
  c.basis.assign(r * K, 0);
  c.c0.assign(K, 0);
  for (std::size_t k = 0; k < K; ++k) c.c0[k] = ref[k];
  c.y.assign(n * r, 0);
  for (std::size_t i = 0; i < r; ++i) {
    mmck_i128 lo = 0;
    for (std::size_t t = 0; t < n; ++t) lo = t == 0 ? y[t][i] : std::min(lo, y[t][i]);
    for (std::size_t k = 0; k < K; ++k) {
      c.basis[i * K + k] = std::int64_t(basis[i][k]);
      c.c0[k] += lo * basis[i][k];
    }
    for (std::size_t t = 0; t < n; ++t) {
      const mmck_i128 v = y[t][i] - lo;
      if (v > lim) return false;
      c.y[t * r + i] = std::int64_t(v);
    }
  }
  return true;
}

/// Same-cost pruning of a class (one option per cost vector: the largest value, lowest index),
/// its lattice and box for its multiplicity; the bytes its table needs (0: not representable).
template <class Value>
long double mmck_lattice_prepare(mmck_lclass<Value>& c, std::size_t K) {
  const auto& o = c.options;
  std::vector<std::uint32_t> order(o.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  mmck_sort_options(o, K, order);
  c.kept.clear();
  for (std::size_t t = 0; t < order.size(); ++t)
    if (t == 0 || mmck_cmp(o[order[t]].cost.data(), o[order[t - 1]].cost.data(), K) != 0)
      c.kept.push_back(order[t]);
  std::sort(c.kept.begin(), c.kept.end());  // ascending index: lowest index wins exact ties
  if (!mmck_lattice_coordinates(c, K)) return 0;
  const long double m = (long double)c.mult();
  long double cells = 1;
  c.extent.assign(c.r, 1);
  c.step.assign(c.r, 1);
  for (std::size_t i = 0; i < c.r; ++i) {
    std::int64_t hi = 0;
    for (std::size_t t = 0; t < c.kept.size(); ++t) hi = std::max(hi, c.y[t * c.r + i]);
    const long double e = m * (long double)hi + 1;
    cells *= e;
    if (cells > 1e15L) return 0;
    c.extent[i] = std::size_t(e);
  }
  for (std::size_t i = c.r; i-- > 0;) c.step[i] = i + 1 == c.r ? 1 : c.step[i + 1] * c.extent[i + 1];
  c.cells = std::size_t(cells);
  c.shift.assign(c.kept.size(), 0);
  for (std::size_t t = 0; t < c.kept.size(); ++t)
    for (std::size_t i = 0; i < c.r; ++i) c.shift[t] += std::size_t(c.y[t * c.r + i]) * c.step[i];
  if (cells > 4294967295.0L) return 0;
  return cells * (m * 4.0L + 2.0L * (long double)sizeof(Value) + 20.0L);
}

/// The multiset table of class c (one copy at a time, every option, reachable cells only) and
/// its points: the full-multiplicity cells whose cost is within `cap`. Work added to `work`.
/// Cells of the box of i copies (an upper bound of the reachable cells).
template <class Value>
long double mmck_box_cells(const mmck_lclass<Value>& c, std::size_t i) {
  long double b = 1;
  for (std::size_t d = 0; d < c.r; ++d) b *= (long double)((c.extent[d] - 1) / c.mult() * i + 1);
  return b;
}

/// The multiset table by max-plus doubling: powers P_1, P_2 = P_1 + P_1, ... and the powers
/// of the multiplicity's set bits combined; every op keeps its first operand's cell per cell.
template <class Value>
void mmck_lattice_doubling(mmck_lclass<Value>& c, std::vector<Value>& final_value,
                           std::vector<std::size_t>& final_reach, std::uint64_t& work) {
  const std::size_t m = c.mult(), n = c.kept.size();
  struct table {
    std::vector<Value> v;
    std::vector<std::size_t> reach;  // ascending
  };
  std::vector<table> tabs;  // tabs[t + 1] = output of op t, tabs[0] = one copy
  table one;
  one.v.resize(c.cells);
  c.leaf.clear();
  for (std::size_t t = 0; t < n; ++t) {
    one.v[c.shift[t]] = c.options[c.kept[t]].value;
    one.reach.push_back(c.shift[t]);
    c.leaf.push_back({c.shift[t], std::uint32_t(t)});
  }
  std::sort(one.reach.begin(), one.reach.end());
  std::sort(c.leaf.begin(), c.leaf.end());
  tabs.push_back(std::move(one));
  std::vector<unsigned char> seen(c.cells, 0);
  auto combine = [&](std::int32_t x, std::int32_t y) {
    const table& X = tabs[std::size_t(x + 1)];
    const table& Y = tabs[std::size_t(y + 1)];
    table out;
    out.v.resize(c.cells);
    std::vector<std::uint32_t> bp(c.cells, 0);
    const bool self = x == y;
    for (std::size_t ia = 0; ia < X.reach.size(); ++ia) {
      const std::size_t a = X.reach[ia];
      for (std::size_t ib = self ? ia : 0; ib < Y.reach.size(); ++ib) {
        const std::size_t b = Y.reach[ib];
        const std::size_t d = a + b;
        Value cand = X.v[a] + Y.v[b];
        if (!seen[d]) {
          seen[d] = 1;
          out.reach.push_back(d);
          out.v[d] = std::move(cand);
          bp[d] = std::uint32_t(a);
        } else if (out.v[d] < cand) {
          out.v[d] = std::move(cand);
          bp[d] = std::uint32_t(a);
        }
      }
      work += Y.reach.size() - (self ? ia : 0);
    }
    for (std::size_t d : out.reach) seen[d] = 0;
    std::sort(out.reach.begin(), out.reach.end());
    c.ops.push_back({x, y});
    c.op_bp.push_back(std::move(bp));
    tabs.push_back(std::move(out));
    return std::int32_t(c.ops.size()) - 1;
  };
  c.ops.clear();
  c.op_bp.clear();
  std::int32_t power = -1;
  std::optional<std::int32_t> acc;
  std::size_t rest = m;
  while (true) {
    if (rest & 1) acc = acc ? combine(*acc, power) : power;
    rest >>= 1;
    if (!rest) break;
    power = combine(power, power);
  }
  if (*acc < 0) {  // one copy: an identity op keeps the reconstruction uniform
    c.ops.push_back({-1, -1});
    c.op_bp.emplace_back();
  }
  table& last = tabs.back();
  if (*acc < 0) {
    final_value = tabs[0].v;
    final_reach = tabs[0].reach;
    c.ops.clear();
    c.op_bp.clear();
    c.doubled = false;  // a single copy: the per-copy layout below
    c.bp.assign(c.cells, 0);
    for (std::size_t t = 0; t < n; ++t) c.bp[c.shift[t]] = std::uint32_t(t);
    return;
  }
  final_value.swap(last.v);
  final_reach.swap(last.reach);
}

template <class Value>
void mmck_lattice_table(mmck_lclass<Value>& c, std::size_t K, const std::vector<std::int64_t>& cap,
                        std::uint64_t& work) {
  const std::size_t m = c.mult(), n = c.kept.size();
  // plan: one copy at a time (sum over copies of reach x options) or doubling (sum of reach
  // products of the powers), estimated on the boxes
  long double linear = 0, doubling = 0;
  for (std::size_t i = 0; i < m; ++i) linear += mmck_box_cells(c, i) * (long double)n;
  {
    std::size_t p = 1, acc = 0, rest = m;
    while (true) {
      if (rest & 1) {
        if (acc) doubling += mmck_box_cells(c, acc) * mmck_box_cells(c, p);
        acc += p;
      }
      rest >>= 1;
      if (!rest) break;
      doubling += mmck_box_cells(c, p) * mmck_box_cells(c, p) / 2;
      p *= 2;
    }
  }
  std::vector<Value> cur;
  std::vector<std::size_t> reach;
  c.doubled = m > 1 && doubling < linear;
  if (c.doubled) {
    mmck_lattice_doubling(c, cur, reach, work);
  } else {
  c.bp.assign(m * c.cells, 0);
  cur.assign(c.cells, Value{});
  std::vector<Value> next(c.cells);
  std::vector<unsigned char> cur_r(c.cells, 0), next_r(c.cells, 0);
  std::vector<std::size_t> reach_next;
  reach.assign(1, 0);
  cur_r[0] = 1;
  for (std::size_t copy = 0; copy < m; ++copy) {
    reach_next.clear();
    std::uint32_t* bp = c.bp.data() + copy * c.cells;
    for (std::size_t t = 0; t < n; ++t) {
      const Value& v = c.options[c.kept[t]].value;
      const std::size_t sh = c.shift[t];
      for (std::size_t src : reach) {
        const std::size_t dst = src + sh;
        Value cand = cur[src] + v;
        if (!next_r[dst]) {
          next_r[dst] = 1;
          reach_next.push_back(dst);
          next[dst] = std::move(cand);
          bp[dst] = std::uint32_t(t);
        } else if (next[dst] < cand) {
          next[dst] = std::move(cand);
          bp[dst] = std::uint32_t(t);
        }
      }
      work += reach.size();
    }
    for (std::size_t x : reach) cur_r[x] = 0;
    cur.swap(next);
    cur_r.swap(next_r);
    reach.swap(reach_next);
  }
  std::sort(reach.begin(), reach.end());
  }
  c.cell.clear();
  c.value.clear();
  c.cost.clear();
  std::vector<std::int64_t> coord(c.r);
  for (std::size_t x : reach) {
    std::size_t rest = x;
    for (std::size_t i = 0; i < c.r; ++i) coord[i] = std::int64_t(rest / c.step[i]), rest %= c.step[i];
    bool fits = true;
    const std::size_t at = c.cost.size();
    for (std::size_t k = 0; k < K && fits; ++k) {
      mmck_i128 v = c.c0[k] * mmck_i128(m);
      for (std::size_t i = 0; i < c.r; ++i) v += mmck_i128(coord[i]) * c.basis[i * K + k];
      fits = v >= 0 && v <= cap[k];
      c.cost.push_back(std::int64_t(fits ? v : 0));
    }
    if (!fits) {
      c.cost.resize(at);
      continue;
    }
    c.cell.push_back(std::uint32_t(x));
    c.value.push_back(cur[x]);
  }
}

/// Pareto filter of points (cost n x K, value): indices kept, in lexicographic cost order.
template <class Value>
std::vector<std::uint32_t> mmck_pareto_indices(const std::vector<std::int64_t>& cost,
                                               const std::vector<Value>& value, std::size_t K) {
  std::vector<std::uint32_t> order(value.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const int r = mmck_cmp(cost.data() + x * K, cost.data() + y * K, K);
    if (r != 0) return r < 0;
    if (value[y] < value[x]) return true;
    if (value[x] < value[y]) return false;
    return x < y;
  });
  mmck_node<Value> tmp;
  mmck_filter<Value> f(K, tmp);
  for (std::uint32_t i : order) f.offer(cost.data() + i * K, value[i], i, 0);
  return tmp.a;
}

/// K-D tree over points (cost, value) for the dominance range maximum: the best point (largest
/// value, then lexicographically smallest cost) with cost <= q, pruned against an incumbent.
template <class Value>
class mmck_kdtree {
public:
  mmck_kdtree(const std::vector<std::int64_t>& cost, const std::vector<Value>& value, std::size_t K)
      : cost_(cost), value_(value), K_(K), idx_(value.size()) {
    std::iota(idx_.begin(), idx_.end(), std::uint32_t{0});
    if (!idx_.empty()) build(0, idx_.size());
  }
  bool empty() const { return idx_.empty(); }
  std::uint32_t root_best() const { return nodes_[0].best; }

  /// Offers every point f with cost_f <= q: (va + v_f, ca + c_f) replaces (inc_v, inc_c) when
  /// better (larger value, then lexicographically smaller cost); returns the f taken or -1.
  std::int64_t query(const std::int64_t* ca, const Value& va, const std::int64_t* q, bool& has,
                     Value& inc_v, std::vector<std::int64_t>& inc_c, std::uint64_t& visits) {
    ca_ = ca, va_ = &va, q_ = q, has_ = &has, inc_v_ = &inc_v, inc_c_ = &inc_c, visits_ = &visits;
    taken_ = -1;
    if (!idx_.empty()) visit(0);
    return taken_;
  }

private:
  struct node {
    std::size_t lo = 0, hi = 0;
    std::size_t left = SIZE_MAX, right = SIZE_MAX;
    std::uint32_t best = 0;
    mmck_cost mn{}, mx{};
  };
  bool better(std::uint32_t x, std::uint32_t y) const {
    if (value_[y] < value_[x]) return true;
    if (value_[x] < value_[y]) return false;
    return mmck_cmp(cost_.data() + x * K_, cost_.data() + y * K_, K_) < 0;
  }
  std::size_t build(std::size_t lo, std::size_t hi) {
    const std::size_t id = nodes_.size();
    node nd;
    nd.lo = lo;
    nd.hi = hi;
    nd.best = idx_[lo];
    nodes_.push_back(nd);
    for (std::size_t k = 0; k < K_; ++k) nd.mn[k] = nd.mx[k] = cost_[idx_[lo] * K_ + k];
    for (std::size_t t = lo; t < hi; ++t) {
      const std::uint32_t p = idx_[t];
      if (better(p, nd.best)) nd.best = p;
      for (std::size_t k = 0; k < K_; ++k) {
        nd.mn[k] = std::min(nd.mn[k], cost_[p * K_ + k]);
        nd.mx[k] = std::max(nd.mx[k], cost_[p * K_ + k]);
      }
    }
    if (hi - lo > 8) {
      std::size_t dim = 0;
      for (std::size_t k = 1; k < K_; ++k)
        if (nd.mx[k] - nd.mn[k] > nd.mx[dim] - nd.mn[dim]) dim = k;
      if (nd.mx[dim] > nd.mn[dim]) {
        const std::size_t mid = lo + (hi - lo) / 2;
        std::nth_element(idx_.begin() + std::ptrdiff_t(lo), idx_.begin() + std::ptrdiff_t(mid),
                         idx_.begin() + std::ptrdiff_t(hi), [&](std::uint32_t x, std::uint32_t y) {
                           return cost_[x * K_ + dim] < cost_[y * K_ + dim];
                         });
        nd.left = build(lo, mid);
        nd.right = build(mid, hi);
      }
    }
    nodes_[id] = nd;
    return id;
  }
  bool fits(const mmck_cost& c) const {
    for (std::size_t k = 0; k < K_; ++k)
      if (c[k] > q_[k]) return false;
    return true;
  }
  /// Whether va + value (at total cost ca + c) beats the incumbent.
  bool beats(const Value& sum, const std::int64_t* c) const {
    if (!*has_) return true;
    if (*inc_v_ < sum) return true;
    if (sum < *inc_v_) return false;
    for (std::size_t k = 0; k < K_; ++k) {
      const std::int64_t t = ca_[k] + c[k];
      if (t != (*inc_c_)[k]) return t < (*inc_c_)[k];
    }
    return false;
  }
  void take(std::uint32_t p) {
    const Value sum = *va_ + value_[p];
    if (!beats(sum, cost_.data() + p * K_)) return;
    *has_ = true;
    *inc_v_ = sum;
    for (std::size_t k = 0; k < K_; ++k) (*inc_c_)[k] = ca_[k] + cost_[p * K_ + k];
    taken_ = std::int64_t(p);
  }
  void visit(std::size_t id) {
    ++*visits_;
    const node& nd = nodes_[id];
    for (std::size_t k = 0; k < K_; ++k)
      if (nd.mn[k] > q_[k]) return;
    if (!beats(*va_ + value_[nd.best], nd.mn.data())) return;  // no point here can win
    if (fits(nd.mx)) {
      take(nd.best);
      return;
    }
    if (nd.left == SIZE_MAX) {
      for (std::size_t t = nd.lo; t < nd.hi; ++t) {
        const std::uint32_t p = idx_[t];
        bool ok = true;
        for (std::size_t k = 0; k < K_ && ok; ++k) ok = cost_[p * K_ + k] <= q_[k];
        if (ok) take(p);
      }
      return;
    }
    const bool left_first = better(nodes_[nd.left].best, nodes_[nd.right].best);
    visit(left_first ? nd.left : nd.right);
    visit(left_first ? nd.right : nd.left);
  }

  const std::vector<std::int64_t>& cost_;
  const std::vector<Value>& value_;
  std::size_t K_;
  std::vector<std::uint32_t> idx_;
  std::vector<node> nodes_;
  const std::int64_t* ca_ = nullptr;
  const Value* va_ = nullptr;
  const std::int64_t* q_ = nullptr;
  bool* has_ = nullptr;
  Value* inc_v_ = nullptr;
  std::vector<std::int64_t>* inc_c_ = nullptr;
  std::uint64_t* visits_ = nullptr;
  std::int64_t taken_ = -1;
};

/// Pareto set of {a + b : a in (ac, av), b in (bc, bv), a + b <= cap} on a dense grid over the
/// reduced lattice of the sums (per dimension: minimum subtracted, gcd divided out), when it
/// needs fewer bytes than `limit` (else false, nothing allocated). The cell keeps the first
/// best pair in (a, b) order (the pair path's rule); the kept points come out in lexicographic
/// cost order with their a (fa) and b (fb) indices. Work (pairs) added to `work`.
template <class Value>
bool mmck_grid_merge(const std::vector<std::int64_t>& ac, const std::vector<Value>& av,
                     const std::vector<std::int64_t>& bc, const std::vector<Value>& bv,
                     const std::vector<std::int64_t>& cap, std::size_t K, long double limit,
                     std::vector<std::int64_t>& oc, std::vector<Value>& ov, std::vector<std::uint32_t>& fa,
                     std::vector<std::uint32_t>& fb, std::uint64_t& work, std::size_t& used) {
  const std::size_t na = av.size(), nb = bv.size();
  if (na == 0 || nb == 0) return false;
  std::vector<std::int64_t> amin(K), bmin(K), unit(K, 0), ext(K);
  std::vector<std::size_t> stride(K);
  long double cells = 1;
  for (std::size_t k = 0; k < K; ++k) {
    std::int64_t lo = ac[k], hi = ac[k], lo2 = bc[k], hi2 = bc[k];
    for (std::size_t a = 0; a < na; ++a) lo = std::min(lo, ac[a * K + k]), hi = std::max(hi, ac[a * K + k]);
    for (std::size_t b = 0; b < nb; ++b) lo2 = std::min(lo2, bc[b * K + k]), hi2 = std::max(hi2, bc[b * K + k]);
    for (std::size_t a = 0; a < na; ++a) unit[k] = std::gcd(unit[k], ac[a * K + k] - lo);
    for (std::size_t b = 0; b < nb; ++b) unit[k] = std::gcd(unit[k], bc[b * K + k] - lo2);
    if (unit[k] == 0) unit[k] = 1;
    amin[k] = lo, bmin[k] = lo2;
    const mmck_i128 top = std::min<mmck_i128>(mmck_i128(cap[k]), mmck_i128(hi) + hi2) - lo - lo2;
    if (top < 0) return false;
    ext[k] = std::int64_t(top / unit[k]) + 1;
    cells *= (long double)ext[k];
  }
  const long double need = cells * (2.0L * sizeof(Value) + 6.0L);
  if (need > limit || cells > 4294967295.0L) return false;
  used = std::size_t(need);
  for (std::size_t k = K; k-- > 0;) stride[k] = k + 1 == K ? 1 : stride[k + 1] * std::size_t(ext[k + 1]);
  const std::size_t n = std::size_t(cells);
  std::vector<std::int64_t> acoord(na * K), bcoord(nb * K);
  std::vector<std::size_t> alin(na, 0), blin(nb, 0);
  for (std::size_t a = 0; a < na; ++a)
    for (std::size_t k = 0; k < K; ++k) {
      acoord[a * K + k] = (ac[a * K + k] - amin[k]) / unit[k];
      alin[a] += std::size_t(acoord[a * K + k]) * stride[k];
    }
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t k = 0; k < K; ++k) {
      bcoord[b * K + k] = (bc[b * K + k] - bmin[k]) / unit[k];
      blin[b] += std::size_t(bcoord[b * K + k]) * stride[k];
    }
  std::vector<Value> val(n);
  std::vector<std::uint32_t> from(n);
  std::vector<unsigned char> reach(n, 0);
  for (std::size_t a = 0; a < na; ++a) {
    for (std::size_t b = 0; b < nb; ++b) {
      bool in = true;
      for (std::size_t k = 0; k < K && in; ++k) in = acoord[a * K + k] + bcoord[b * K + k] < ext[k];
      if (!in) continue;
      const std::size_t c = alin[a] + blin[b];
      Value v = av[a] + bv[b];
      if (!reach[c] || val[c] < v) {
        val[c] = std::move(v);
        from[c] = std::uint32_t(a);
        reach[c] = 1;
      }
    }
    work += nb;
  }
  // prefix maximum over every dimension; a reachable cell is Pareto when it beats the best
  // strictly below it
  std::vector<Value> pv = val;
  std::vector<unsigned char> ph = reach;
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t c = 0; c < n; ++c) {
      if ((c / stride[k]) % std::size_t(ext[k]) == 0) continue;
      const std::size_t p = c - stride[k];
      if (ph[p] && (!ph[c] || pv[c] < pv[p])) pv[c] = pv[p], ph[c] = 1;
    }
  std::vector<std::uint32_t> kept;
  for (std::size_t c = 0; c < n; ++c) {
    if (!reach[c]) continue;
    bool pareto = true;
    for (std::size_t k = 0; k < K && pareto; ++k)
      if ((c / stride[k]) % std::size_t(ext[k]) > 0 && ph[c - stride[k]] && !(pv[c - stride[k]] < val[c])) pareto = false;
    if (pareto) kept.push_back(std::uint32_t(c));
  }
  std::vector<Value>().swap(pv);
  std::vector<unsigned char>().swap(ph);
  // b of a kept cell: the b whose cost is the cell's minus a's (b costs are distinct)
  std::vector<std::uint32_t> border(nb);
  std::iota(border.begin(), border.end(), std::uint32_t{0});
  std::sort(border.begin(), border.end(),
            [&](std::uint32_t x, std::uint32_t y) { return mmck_cmp(bc.data() + x * K, bc.data() + y * K, K) < 0; });
  oc.clear(), ov.clear(), fa.clear(), fb.clear();
  oc.reserve(kept.size() * K), ov.reserve(kept.size()), fa.reserve(kept.size()), fb.reserve(kept.size());
  std::vector<std::int64_t> want(K);
  for (std::uint32_t c : kept) {
    const std::uint32_t a = from[c];
    for (std::size_t k = 0; k < K; ++k) {
      const std::int64_t q = std::int64_t((c / stride[k]) % std::size_t(ext[k]));
      want[k] = bmin[k] + (q - acoord[a * K + k]) * unit[k];
    }
    const auto it = std::lower_bound(border.begin(), border.end(), want, [&](std::uint32_t x, const std::vector<std::int64_t>& w) {
      return mmck_cmp(bc.data() + x * K, w.data(), K) < 0;
    });
    for (std::size_t k = 0; k < K; ++k) oc.push_back(ac[a * K + k] + want[k]);
    ov.push_back(val[c]);
    fa.push_back(a);
    fb.push_back(*it);
  }
  return true;
}

/// Input of the lattice engine: (options, slots) per class, slots = (group position, stride 1).
template <class Value>
using mmck_lattice_input =
    std::vector<std::pair<std::vector<mmck_option<Value>>, std::vector<std::pair<std::size_t, std::size_t>>>>;

/// The lattice path (see the file comment): nullopt when a class table does not fit
/// max_table_bytes (or its lattice is not representable) and !force; with force, a refusal is
/// an error naming the bytes.
template <class Value>
std::optional<mmck_result<Value>> mmck_solve_lattice(const mmck_lattice_input<Value>& in,
                                                     std::size_t G, const std::vector<std::int64_t>& B,
                                                     const mmck_settings& s, bool force,
                                                     long double* defer_work = nullptr,
                                                     long double* defer_bytes = nullptr) {
  const std::size_t K = B.size();
  mmck_result<Value> r;
  r.groups_ = G;
  r.budget_ = B;
  r.single_ = s.single_budget;
  r.info_.path = mmck_path::lattice;
  r.info_.dims = K;
  r.info_.single = s.single_budget;
  r.info_.identical = true;
  mmck_lattice<Value> L;
  L.K = K;
  bool products = false;
  L.classes = mmck_make_classes(in, K, s.split_products, products);
  if constexpr (std::is_integral_v<Value>) {
    // split factors may hold larger |values| than the groups: keep every sum in range
    if (products) {
      long double total = 0;
      for (const auto& c : L.classes) {
        long double big = 0;
        for (const auto& o : c.options) big = std::max(big, std::fabs((long double)o.value));
        total += big * (long double)c.mult();
      }
      if (total > (long double)std::numeric_limits<Value>::max() / 2)
        L.classes = mmck_make_classes(in, K, false, products);
    }
  }
  r.info_.products = products;
  const std::size_t C = L.classes.size();
  r.info_.classes = C;
  if (C == 0) {  // no groups: the empty selection
    r.front_.push_back({std::vector<std::int64_t>(K, 0), Value{}});
    r.handle_.push_back(0);
    r.lattice_ = std::move(L);
    return r;
  }
  long double bytes = 0;
  for (std::size_t c = 0; c < C; ++c) {
    const long double need = mmck_lattice_prepare(L.classes[c], K);
    r.info_.lattice_rank = std::max(r.info_.lattice_rank, L.classes[c].r);
    bytes += need;
    if (need == 0 || bytes > (long double)s.max_table_bytes) {
      if (!force) return std::nullopt;
      if (need == 0)
        mmck_fail("the lattice path cannot represent class ", c, " (", L.classes[c].options.size(),
                  " options): its coordinate box passes 2^32 cells or its lattice basis 2^62");
      mmck_fail("the lattice path needs ", (unsigned long long)bytes, " bytes (class ", c, ": ",
                L.classes[c].mult(), " groups of ", L.classes[c].options.size(), " options over ",
                L.classes[c].cells, " lattice cells), more than max_table_bytes (got ", s.max_table_bytes, ")");
    }
    r.info_.cells += L.classes[c].cells;
  }
  if (defer_work != nullptr && bytes > (long double)s.lattice_direct_bytes) {
    // the cost model: table updates ~ cells x copies x options per class
    long double w = 0;
    for (const auto& c : L.classes)
      w += (long double)c.cells * (long double)c.mult() * (long double)std::max<std::size_t>(1, c.kept.size());
    *defer_work = std::max(w, 1.0L);
    if (defer_bytes != nullptr) *defer_bytes = bytes;
    return std::nullopt;
  }
  // caps: B minus the other classes' cheapest totals (infeasible when negative)
  std::vector<std::vector<mmck_i128>> cmin(C, std::vector<mmck_i128>(K, 0));
  std::vector<mmck_i128> tmin(K, 0);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t k = 0; k < K; ++k) {
      std::int64_t m = std::numeric_limits<std::int64_t>::max();
      for (const auto& o : L.classes[c].options) m = std::min(m, o.cost[k]);
      cmin[c][k] = mmck_i128(m) * mmck_i128(L.classes[c].mult());
      tmin[k] += cmin[c][k];
    }
  for (std::size_t k = 0; k < K; ++k)
    if (tmin[k] > B[k]) {
      r.lattice_ = std::move(L);
      return r;
    }
  std::uint64_t work = 0;
  for (std::size_t c = 0; c < C; ++c) {
    std::vector<std::int64_t> cap(K);
    for (std::size_t k = 0; k < K; ++k) cap[k] = std::int64_t(B[k] - (tmin[k] - cmin[c][k]));
    mmck_lattice_table(L.classes[c], K, cap, work);
    r.info_.states += L.classes[c].count();
  }
  r.info_.peak_bytes = std::size_t(bytes);
  // fold order: ascending point count (the largest class is the query side of a single solve)
  L.order.resize(C);
  std::iota(L.order.begin(), L.order.end(), std::size_t{0});
  std::stable_sort(L.order.begin(), L.order.end(),
                   [&](std::size_t x, std::size_t y) { return L.classes[x].count() < L.classes[y].count(); });
  auto filter_class = [&](mmck_lclass<Value>& c) {
    const auto keep = mmck_pareto_indices(c.cost, c.value, K);
    std::vector<std::uint32_t> cell;
    std::vector<Value> value;
    std::vector<std::int64_t> cost;
    for (std::uint32_t i : keep) {
      cell.push_back(c.cell[i]);
      value.push_back(c.value[i]);
      cost.insert(cost.end(), c.cost.begin() + std::ptrdiff_t(i * K), c.cost.begin() + std::ptrdiff_t((i + 1) * K));
    }
    c.cell.swap(cell);
    c.value.swap(value);
    c.cost.swap(cost);
  };
  const bool single = s.single_budget;
  const std::size_t folds = single ? C - 1 : C;  // classes folded into the Pareto levels
  // Pareto-filter what is merged (every class of a front; a single solve's fold classes when
  // K <= 2 or there is more than one; the query class is searched by the K-D tree as it is)
  for (std::size_t t = 0; t < C; ++t)
    if (!single || (t + 1 < C && (K <= 2 || C >= 3))) filter_class(L.classes[L.order[t]]);
  L.fa.assign(1, {});
  L.fb.assign(1, {});
  // level arrays
  std::vector<std::int64_t> lc = L.classes[L.order[0]].cost;
  std::vector<Value> lv = L.classes[L.order[0]].value;
  std::size_t held = 0;
  for (std::size_t t = 1; t < folds; ++t) {
    const auto& P = L.classes[L.order[t]];
    std::vector<std::int64_t> cap(K);
    for (std::size_t k = 0; k < K; ++k) {
      mmck_i128 rest = 0;
      for (std::size_t u = t + 1; u < C; ++u) rest += cmin[L.order[u]][k];
      cap[k] = std::int64_t(B[k] - rest);
    }
    const std::size_t na = lv.size(), nb = P.count();
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    std::uint64_t count = 0;
    auto fits = [&](std::size_t a, std::size_t b) {
      for (std::size_t k = 0; k < K; ++k) {
        std::int64_t x;
        if (!mmck_add(lc[a * K + k], P.cost[b * K + k], x) || x > cap[k]) return false;
      }
      return true;
    };
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t b = 0; b < nb; ++b) count += fits(a, b);
    const long double per_pair = 8.0L + 8.0L * K + (long double)sizeof(Value) + 4.0L;
    if (nb <= 1 || na <= 1) {  // one point (e.g. a factor of zero costs): a shift keeps the order
      std::vector<std::int64_t> nc;
      std::vector<Value> nv;
      L.fa.emplace_back();
      L.fb.emplace_back();
      for (std::size_t u = 0; na > 0 && nb > 0 && u < std::max(na, nb); ++u) {
        const std::size_t a = na == 1 ? 0 : u, b = na == 1 ? u : 0;
        if (!fits(a, b)) continue;
        for (std::size_t k = 0; k < K; ++k) nc.push_back(lc[a * K + k] + P.cost[b * K + k]);
        nv.push_back(lv[a] + P.value[b]);
        L.fa.back().push_back(std::uint32_t(a));
        L.fb.back().push_back(std::uint32_t(b));
      }
      work += std::max(na, nb);
      r.info_.candidates += std::max(na, nb);
      lc.swap(nc);
      lv.swap(nv);
      held += lv.size() * (K * 8 + sizeof(Value) + 8);
      r.info_.states += lv.size();
      continue;
    }
    {  // a dense grid over the sums' lattice when it is smaller than the candidate pairs
      const long double room = (long double)s.max_table_bytes - (long double)bytes - (long double)held;
      std::vector<std::int64_t> nc;
      std::vector<Value> nv;
      std::vector<std::uint32_t> ga, gb;
      std::size_t used = 0;
      if (count > 0 && mmck_grid_merge(lc, lv, P.cost, P.value, cap, K, std::min(room, (long double)count * per_pair),
                                       nc, nv, ga, gb, work, used)) {
        r.info_.candidates += count;
        r.info_.grid = true;
        r.info_.peak_bytes = std::max(r.info_.peak_bytes, std::size_t(bytes + held + used));
        L.fa.push_back(std::move(ga));
        L.fb.push_back(std::move(gb));
        lc.swap(nc);
        lv.swap(nv);
        held += lv.size() * (K * 8 + sizeof(Value) + 8);
        r.info_.states += lv.size();
        continue;
      }
    }
    const long double need = (long double)bytes + (long double)held + (long double)count * per_pair;
    if (need > (long double)s.max_table_bytes) {
      if (!force) return std::nullopt;
      mmck_fail("the lattice path needs ", (unsigned long long)need, " bytes (a merge of ", na, " x ", nb,
                " class points with ", count, " candidate pairs within the budgets), more than "
                "max_table_bytes (got ", s.max_table_bytes, ")");
    }
    pairs.reserve(count);
    for (std::size_t a = 0; a < na; ++a)
      for (std::size_t b = 0; b < nb; ++b)
        if (fits(a, b)) pairs.push_back({std::uint32_t(a), std::uint32_t(b)});
    work += count;
    r.info_.candidates += count;
    std::vector<std::int64_t> sum(pairs.size() * K);
    std::vector<Value> val(pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      for (std::size_t k = 0; k < K; ++k) sum[i * K + k] = lc[pairs[i].first * K + k] + P.cost[pairs[i].second * K + k];
      val[i] = lv[pairs[i].first] + P.value[pairs[i].second];
    }
    const auto keep = mmck_pareto_indices(sum, val, K);
    std::vector<std::int64_t> nc;
    std::vector<Value> nv;
    L.fa.emplace_back();
    L.fb.emplace_back();
    for (std::uint32_t i : keep) {
      nc.insert(nc.end(), sum.begin() + std::ptrdiff_t(i * K), sum.begin() + std::ptrdiff_t((i + 1) * K));
      nv.push_back(val[i]);
      L.fa.back().push_back(pairs[i].first);
      L.fb.back().push_back(pairs[i].second);
    }
    lc.swap(nc);
    lv.swap(nv);
    held += lv.size() * (K * 8 + sizeof(Value) + 8);
    r.info_.states += lv.size();
    r.info_.peak_bytes = std::max(r.info_.peak_bytes, std::size_t(bytes + held + (long double)count * (8 + 8 * K + sizeof(Value))));
  }
  if (!single || C == 1) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < lv.size(); ++i) {
      if (!single) {
        r.front_.push_back({std::vector<std::int64_t>(lc.begin() + std::ptrdiff_t(i * K), lc.begin() + std::ptrdiff_t((i + 1) * K)), lv[i]});
        r.handle_.push_back(i);
      } else if (!best || lv[*best] < lv[i] ||
                 (!(lv[i] < lv[*best]) && mmck_cmp(lc.data() + i * K, lc.data() + *best * K, K) < 0)) {
        best = i;
      }
    }
    if (best) {
      r.front_.push_back({std::vector<std::int64_t>(lc.begin() + std::ptrdiff_t(*best * K), lc.begin() + std::ptrdiff_t((*best + 1) * K)), lv[*best]});
      r.handle_.push_back(*best);
    }
  } else {
    // the last class answers a dominance range maximum per point of the fold
    const auto& F = L.classes[L.order[C - 1]];
    mmck_kdtree<Value> tree(F.cost, F.value, K);
    std::vector<std::uint32_t> byv(lv.size());
    std::iota(byv.begin(), byv.end(), std::uint32_t{0});
    std::sort(byv.begin(), byv.end(), [&](std::uint32_t x, std::uint32_t y) {
      if (lv[y] < lv[x]) return true;
      if (lv[x] < lv[y]) return false;
      return x < y;
    });
    bool has = false;
    Value inc{};
    std::vector<std::int64_t> inc_c(K, 0);
    std::uint32_t best_a = 0, best_f = 0;
    std::uint64_t visits = 0;
    std::vector<std::int64_t> q(K);
    if (!tree.empty()) {
      const Value fmax = F.value[tree.root_best()];
      for (std::uint32_t a : byv) {
        if (has && lv[a] + fmax < inc) break;
        for (std::size_t k = 0; k < K; ++k) q[k] = B[k] - lc[a * K + k];
        const std::int64_t f = tree.query(lc.data() + a * K, lv[a], q.data(), has, inc, inc_c, visits);
        if (f >= 0) best_a = a, best_f = std::uint32_t(f);
      }
    }
    work += visits;
    r.info_.candidates += visits;
    L.fa.push_back({best_a});
    L.fb.push_back({best_f});
    if (has) {
      r.front_.push_back({inc_c, inc});
      r.handle_.push_back(0);
    }
  }
  r.info_.work = work;
  r.lattice_ = std::move(L);
  return r;
}

} // namespace detail

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_LATTICE_HPP
