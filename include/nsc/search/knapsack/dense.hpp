/// \file nsc/search/knapsack/dense.hpp
/// The dense path: one K-dimensional table over the reduced cost lattice with back-pointers and
/// a prefix maximum (every budget vector and the Pareto set).
/// Part of the K-budget knapsack engine (nsc/search/multi_knapsack.hpp: the file comment there
/// describes every algorithm, the choice rule, ties, accuracy and memory).
#ifndef NSC_SEARCH_KNAPSACK_DENSE_HPP
#define NSC_SEARCH_KNAPSACK_DENSE_HPP

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

/// The dense K-dimensional table (see the file comment); nullopt when it does not fit and
/// !force (force: the memory refusal is an error).
template <class Value>
std::optional<mmck_result<Value>> mmck_solve_dense(const mmck_groups<Value>& groups,
                                                   const std::vector<std::int64_t>& B,
                                                   const mmck_settings& s, bool force) {
  const std::size_t K = B.size(), G = groups.size();
  mmck_dense<Value> d;
  d.K = K;
  d.original.resize(G);
  // in-group pruning: one option per cost vector (largest value, lowest index), no dominated
  std::vector<std::int64_t> minimum(G * K), largest(G * K, 0);
  for (std::size_t g = 0; g < G; ++g) {
    const auto& opts = groups[g];
    std::vector<std::size_t> order(opts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    mmck_sort_options(opts, K, order);
    mmck_node<Value> tmp;
    mmck_filter<Value> f(K, tmp);
    for (std::size_t j : order) f.offer(opts[j].cost.data(), opts[j].value, std::uint32_t(j), 0);
    d.original[g].assign(tmp.a.begin(), tmp.a.end());
    std::sort(d.original[g].begin(), d.original[g].end());
    for (std::size_t k = 0; k < K; ++k) {
      std::int64_t m = std::numeric_limits<std::int64_t>::max();
      for (const auto& o : opts) m = std::min(m, o.cost[k]);
      minimum[g * K + k] = m;
    }
  }
  std::size_t per_cell = 3 * sizeof(Value) + 3;
  std::uint64_t cells = 1;
  bool huge = false;
  for (std::size_t k = 0; k < K; ++k) {
    std::int64_t M = 0, unit = 0, reach = 0;
    for (std::size_t g = 0; g < G; ++g) {
      M += minimum[g * K + k];  // fits: the caller checked sum of minima <= B
      std::int64_t big = 0;
      for (std::size_t j : d.original[g]) {
        const std::int64_t sh = groups[g][j].cost[k] - minimum[g * K + k];
        unit = std::gcd(unit, sh);
        big = std::max(big, sh);
      }
      reach = mck_saturating_add(reach, big);
    }
    if (unit == 0) unit = 1;
    d.offset[k] = M;
    d.unit[k] = unit;
    const std::int64_t last = std::min((B[k] - M) / unit, reach / unit);
    d.extent[k] = static_cast<std::size_t>(last) + 1;
    if (__builtin_mul_overflow(cells, std::uint64_t(d.extent[k]), &cells)) huge = true;
  }
  std::size_t maxj = 1;
  for (const auto& o : d.original) maxj = std::max(maxj, o.size());
  d.wide = maxj > 65535;
  const std::size_t bpw = d.wide ? 4 : 2;
  long double bytes = (long double)cells * (long double)(per_cell + G * bpw);
  if (huge || bytes > (long double)s.max_table_bytes) {
    if (!force) return std::nullopt;
    std::string shape;
    for (std::size_t k = 0; k < K; ++k) shape += (k ? " x " : "") + std::to_string(d.extent[k]);
    mmck_fail("the dense table needs ", huge ? std::string("more than 2^64") : std::to_string((unsigned long long)bytes),
              " bytes (", G, " groups x ", shape, " cells x ", bpw, " back-pointer bytes + ", per_cell,
              " bytes per cell), more than max_table_bytes (got ", s.max_table_bytes, ")");
  }
  d.cells = static_cast<std::size_t>(cells);
  for (std::size_t k = K; k-- > 0;) d.stride[k] = k + 1 == K ? 1 : d.stride[k + 1] * d.extent[k + 1];
  d.shift.resize(G);
  d.step.resize(G);
  for (std::size_t g = 0; g < G; ++g) {
    for (std::size_t j : d.original[g]) {
      std::array<std::size_t, mmck_max_dims> st{};
      std::size_t lin = 0;
      bool fits = true;
      for (std::size_t k = 0; k < K; ++k) {
        const auto q = static_cast<std::uint64_t>((groups[g][j].cost[k] - minimum[g * K + k]) / d.unit[k]);
        if (q >= d.extent[k]) fits = false, st[k] = d.extent[k];
        else st[k] = static_cast<std::size_t>(q), lin += st[k] * d.stride[k];
      }
      d.step[g].push_back(st);
      d.shift[g].push_back(fits ? lin : std::size_t(-1));
    }
  }
  if (d.wide) d.bp32.assign(G * d.cells, 0);
  else d.bp16.assign(G * d.cells, 0);
  std::vector<Value> cur(d.cells), next(d.cells);
  std::vector<unsigned char> cur_r(d.cells, 0), next_r(d.cells, 0);
  cur_r[0] = 1;
  std::uint64_t work = 0;
  const std::size_t inner_dim = K - 1;
  for (std::size_t g = 0; g < G; ++g) {
    std::fill(next_r.begin(), next_r.end(), static_cast<unsigned char>(0));
    for (std::size_t jj = 0; jj < d.original[g].size(); ++jj) {
      if (d.shift[g][jj] == std::size_t(-1)) continue;
      const auto& st = d.step[g][jj];
      const Value& v = groups[g][d.original[g][jj]].value;
      const std::size_t run = d.extent[inner_dim] - st[inner_dim];
      std::array<std::size_t, mmck_max_dims> idx{};
      while (true) {
        std::size_t base = 0;
        for (std::size_t k = 0; k < inner_dim; ++k) base += idx[k] * d.stride[k];
        const std::size_t dst0 = base + d.shift[g][jj];
        for (std::size_t t = 0; t < run; ++t) {
          const std::size_t src = base + t, dst = dst0 + t;
          if (!cur_r[src]) continue;
          Value cand = cur[src] + v;
          if (!next_r[dst] || next[dst] < cand) {
            next[dst] = std::move(cand);
            next_r[dst] = 1;
            if (d.wide) d.bp32[g * d.cells + dst] = std::uint32_t(jj);
            else d.bp16[g * d.cells + dst] = std::uint16_t(jj);
          }
        }
        work += run;
        std::size_t k = inner_dim;
        while (k-- > 0) {
          if (++idx[k] < d.extent[k] - st[k]) break;
          idx[k] = 0;
        }
        if (k == std::size_t(-1)) break;
      }
    }
    cur.swap(next);
    cur_r.swap(next_r);
  }
  // prefix maximum over every dimension, then the Pareto cells
  std::vector<Value> pv = cur;
  std::vector<unsigned char> ph = cur_r;
  for (std::size_t k = 0; k < K; ++k) {
    for (std::size_t c = 0; c < d.cells; ++c) {
      if ((c / d.stride[k]) % d.extent[k] == 0) continue;
      const std::size_t from = c - d.stride[k];
      if (ph[from] && (!ph[c] || pv[c] < pv[from])) {
        pv[c] = pv[from];
        ph[c] = 1;
      }
    }
  }
  mmck_result<Value> r;
  r.groups_ = G;
  r.budget_ = B;
  r.info_.path = mmck_path::dense;
  r.info_.dims = K;
  r.info_.cells = d.cells;
  r.info_.work = work;
  r.info_.peak_bytes = static_cast<std::size_t>(bytes);
  for (std::size_t c = 0; c < d.cells; ++c) {
    if (!cur_r[c]) continue;
    bool pareto = true;
    mmck_point<Value> p{std::vector<std::int64_t>(K), cur[c]};
    for (std::size_t k = 0; k < K && pareto; ++k) {
      const std::size_t ik = (c / d.stride[k]) % d.extent[k];
      p.cost[k] = d.offset[k] + std::int64_t(ik) * d.unit[k];
      if (ik > 0 && ph[c - d.stride[k]] && !(pv[c - d.stride[k]] < cur[c])) pareto = false;
    }
    if (!pareto) continue;
    r.front_.push_back(std::move(p));
    r.handle_.push_back(c);
  }
  for (auto& sh : d.shift)
    for (auto& x : sh)
      if (x == std::size_t(-1)) x = 0;
  r.dense_ = std::move(d);
  return r;
}

} // namespace detail

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_DENSE_HPP
