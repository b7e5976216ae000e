/// \file nsc/search/knapsack/diverse_pool.hpp
/// The best selection of a K-budget multiple-choice knapsack at Hamming distance >= D from each
/// of a list of earlier selections, exactly: one member of a diverse pool (Puzzle's sequential
/// definition: the i-th member is the best selection differing from each of the first i - 1 in
/// at least D groups).
///
/// Synopsis
/// --------
///     auto x = nsc::search::best_far_from(groups, {B_1, ..., B_K}, {s_1, ..., s_t}, D);
///     x->choice, x->value, x->cost          // std::nullopt: no selection fits and is far enough
///
/// Problem: maximise sum_g v_{g, x_g} subject to sum_g c_{g, x_g, k} <= B_k (every k) and
/// d_t(x) = #{g : x_g != s_t(g)} >= D (every earlier s_t).
///
/// Method: a Lagrangian-bounded state DP over the groups in order.
///  * Bound. With multipliers lambda_k >= 0 (budgets, costs normalised by B_k) and mu_t >= 0
///    (distances, normalised by D), reduced values r_gj = v_gj - sum_k lambda_k c_gjk / B_k +
///    sum_t mu_t [j != s_t(g)] / D give, for every feasible x,
///        v(x) <= UB - loss(x),  UB = sum_g max_j r_gj + sum_k lambda_k - sum_t mu_t,
///        loss(x) = sum_g (max_j r_gj - r_{g, x_g}) >= 0,
///    since lambda . (1 - c(x)/B) >= 0 and mu . (d(x)/D - 1) >= 0. The multipliers minimise UB
///    (the LP dual) by projected subgradient steps (Polyak steps against the best feasible
///    x(lambda, mu) seen, which is also an incumbent).
///  * States after g groups: (cost vector, capped distances min(D, d_t), value, loss). A state
///    is dropped when a completion cannot fit (cost + the remaining groups' minima > B), cannot
///    get far enough (d_t + remaining groups < D), when a candidate of the same capped distances
///    and cost has a larger value (a hash set), when its loss passes the gap UB - T (every
///    selection of value >= T keeps all its prefixes' losses within it), or when another state
///    of the same capped distances has cost <= and value >= (dominance: that state completed
///    like the dropped one is feasible and at least as good). Options are tried in ascending
///    loss per group, so the work is proportional to the states that survive.
///  * Threshold T: the best of the incumbent and UB - delta, delta doubling per round (from 1e-7 of |UB| + the
///    value range). A round
///    whose best full state reaches T is optimal (every selection of value >= T survived);
///    otherwise the next round lowers T to that best state (or UB - 2 delta), and a round whose
///    gap exceeds every possible loss prunes nothing (exact, or a proof of infeasibility).
/// Exactness is tested against brute force on thousands of random instances (tests in
/// tests/test_multi_knapsack.cpp, "[pool]").
///
/// Identical groups (settings.positions = false, the default): groups with the same options
/// (values and cost vectors, in the same order) are interchangeable -- the objective and the
/// costs cannot tell two selections apart that differ only by permuting them -- so a selection
/// is the multiset of options chosen in each class of identical groups, and the distance to an
/// earlier selection s counts, per class, sum_j max(0, n_j(s) - n_j(x)) (n_j: how many of the
/// class's groups choose option j; the Hamming distance after the best matching of the class's
/// groups), plus the positional distance over the other groups. The DP then runs one stage per
/// (class, option) choosing how many of the class's remaining groups take that option (the
/// state carries the remaining count), and the answer lists each class's options in ascending
/// option index over the class's groups in ascending index (canonical_choice). The bound treats
/// every group of such a class as differing from s (an upper bound on the distance, so the
/// Lagrangian bound stays valid). positions = true: every group is its own class (two
/// identical groups swapped are two selections at distance 2).
///
/// Ties: the largest value, then the lexicographically smallest cost vector; among those, the
/// first in the DP's order (deterministic). The value returned is summed in group order.
///
/// Bounds: every round's states are counted against settings.max_work (candidate states
/// examined, summed over rounds; 0 = none) and each stage's arrays against
/// settings.max_table_bytes before they are allocated; a query past either is refused with
/// std::invalid_argument naming what it needed.
#ifndef NSC_SEARCH_KNAPSACK_DIVERSE_POOL_HPP
#define NSC_SEARCH_KNAPSACK_DIVERSE_POOL_HPP

#include <nsc/error_handling.hpp>
#include <nsc/search/multi_knapsack.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace nsc::search {

/// One selection of a K-budget instance: original option index per group, value, total costs.
template <class Value>
struct mmck_selection {
  std::vector<std::size_t> choice;
  Value value;
  std::vector<std::int64_t> cost;
};

/// Settings of best_far_from.
struct far_settings {
  std::uint64_t max_work = 0;                          ///< candidate states over all rounds; 0: none
  std::size_t max_table_bytes = std::size_t{1} << 30;  ///< one stage's arrays plus the back-pointers
  /// false: identical groups are interchangeable (selections and distances over multisets; see
  /// the file comment); true: every group's position counts.
  bool positions = false;
};

/// The classes of identical groups (the same options: values and cost vectors, in the same
/// order): each class its group indices ascending, classes in order of their first group.
template <mck_value Value>
std::vector<std::vector<std::size_t>> identical_classes(const mmck_groups<Value>& groups) {
  const std::size_t G = groups.size();
  const std::vector<std::size_t> order = detail::mmck_group_order(groups);
  std::vector<std::size_t> rep(G);
  for (std::size_t i = 0; i < G;) {
    std::size_t j = i + 1;
    while (j < G && detail::mmck_same_group(groups[order[i]], groups[order[j]])) ++j;
    std::size_t low = order[i];
    for (std::size_t t = i; t < j; ++t) low = std::min(low, order[t]);
    for (std::size_t t = i; t < j; ++t) rep[order[t]] = low;
    i = j;
  }
  std::vector<std::vector<std::size_t>> out;
  std::vector<std::size_t> at(G, SIZE_MAX);
  for (std::size_t g = 0; g < G; ++g) {
    if (at[rep[g]] == SIZE_MAX) {
      at[rep[g]] = out.size();
      out.emplace_back();
    }
    out[at[rep[g]]].push_back(g);
  }
  return out;
}

/// The canonical form of a selection up to permuting identical groups: in each class of
/// identical_classes, the options chosen sorted ascending over the class's groups (ascending).
inline std::vector<std::size_t> canonical_choice(const std::vector<std::vector<std::size_t>>& classes,
                                                 std::vector<std::size_t> choice) {
  for (const auto& c : classes) {
    if (c.size() < 2) continue;
    std::vector<std::size_t> opts;
    for (std::size_t g : c) opts.push_back(choice.at(g));
    std::sort(opts.begin(), opts.end());
    for (std::size_t i = 0; i < c.size(); ++i) choice[c[i]] = opts[i];
  }
  return choice;
}

/// The number of distinct selections equal to `choice` up to permuting identical groups (the
/// selections that tie with it in value and every cost for that reason): the product over the
/// classes of identical groups of the multinomial m! / prod_j n_j! (m: the class's groups, n_j:
/// how many choose option j), exact, in decimal.
inline std::string count_orderings(const std::vector<std::vector<std::size_t>>& classes,
                                   const std::vector<std::size_t>& choice) {
  std::vector<std::uint32_t> n{1};  // little-endian base-10^9 digits
  auto mul = [&](std::uint32_t x) {
    std::uint64_t carry = 0;
    for (auto& d : n) {
      const std::uint64_t p = std::uint64_t(d) * x + carry;
      d = std::uint32_t(p % 1000000000u);
      carry = p / 1000000000u;
    }
    while (carry) {
      n.push_back(std::uint32_t(carry % 1000000000u));
      carry /= 1000000000u;
    }
  };
  auto div = [&](std::uint32_t x) {  // exact
    std::uint64_t rest = 0;
    for (std::size_t i = n.size(); i-- > 0;) {
      const std::uint64_t cur = rest * 1000000000u + n[i];
      n[i] = std::uint32_t(cur / x);
      rest = cur % x;
    }
    while (n.size() > 1 && n.back() == 0) n.pop_back();
  };
  for (const auto& c : classes) {
    if (c.size() < 2) continue;
    std::vector<std::size_t> opts;
    for (std::size_t g : c) opts.push_back(choice.at(g));
    std::sort(opts.begin(), opts.end());
    // m! / prod n_j! as prod_i C(i, run position): multiply by i, divide by the position within
    // the run of equal options (every partial product an integer)
    std::uint32_t run = 0;
    for (std::size_t i = 0; i < opts.size(); ++i) {
      run = i > 0 && opts[i] == opts[i - 1] ? run + 1 : 1;
      mul(std::uint32_t(i + 1));
      div(run);
    }
  }
  std::string out = std::to_string(n.back());
  for (std::size_t i = n.size() - 1; i-- > 0;) {
    const std::string d = std::to_string(n[i]);
    out += std::string(9 - d.size(), '0') + d;
  }
  return out;
}

/// count_orderings over the classes of identical groups of `groups`.
template <mck_value Value>
std::string count_orderings(const mmck_groups<Value>& groups, const std::vector<std::size_t>& choice) {
  return count_orderings(identical_classes(groups), choice);
}

/// What best_far_from did.
struct far_info {
  std::uint64_t candidates = 0;  ///< candidate states examined (all rounds)
  std::uint64_t states = 0;      ///< states kept (last round, all stages)
  std::size_t rounds = 0;        ///< threshold rounds
  std::size_t peak_bytes = 0;    ///< largest stage arrays plus back-pointers
  double upper_bound = 0;        ///< the Lagrangian bound UB
  double incumbent = 0;          ///< the subgradient's best feasible value (when found)
};

/// The best selection with cost <= budget differing from every earlier selection in at least
/// D groups (see the file comment); std::nullopt when there is none. D = 0 or no earlier
/// selections: the plain optimum. Domain as solve_mmck; each earlier selection has one valid
/// option index per group; at most 65,535 groups.
/// Errors: std::invalid_argument "nsc::search::best_far_from: <rule> (got ...)", the refusals
/// of max_work / max_table_bytes, and those of solve_mmck's validation.
template <mck_value Value>
std::optional<mmck_selection<Value>> best_far_from(const mmck_groups<Value>& groups,
                                                   const std::vector<std::int64_t>& budget,
                                                   const std::vector<std::vector<std::size_t>>& earlier,
                                                   std::size_t D, const far_settings& s = {},
                                                   far_info* info = nullptr) {
  constexpr std::string_view fn = "nsc::search::best_far_from";
  detail::mmck_validate(groups, budget);
  const std::size_t G = groups.size(), K = budget.size();
  if (G > 65535) throw_invalid_argument(fn, "at most 65535 groups", G);
  for (const auto& e : earlier) {
    if (e.size() != G) throw_invalid_argument(fn, "every earlier selection needs one option per group", e.size());
    for (std::size_t g = 0; g < G; ++g)
      if (e[g] >= groups[g].size()) throw_invalid_argument(fn, "an earlier selection's option index must exist", e[g]);
  }
  const std::size_t T = D == 0 ? 0 : earlier.size();
  if (T > 0 && D > G) return std::nullopt;
  using ld = long double;
  using i128 = detail::mmck_i128;
  far_info local;
  far_info& inf = info ? *info : local;
  inf = far_info{};

  // ---- classes of interchangeable groups (positions: every group alone) ----
  std::vector<std::vector<std::size_t>> classes;
  if (s.positions) {
    for (std::size_t g = 0; g < G; ++g) classes.push_back({g});
  } else {
    classes = identical_classes(groups);
  }
  std::vector<std::size_t> cls_of(G);
  for (std::size_t c = 0; c < classes.size(); ++c)
    for (std::size_t g : classes[c]) cls_of[g] = c;
  auto tied = [&](std::size_t g) { return classes[cls_of[g]].size() >= 2; };
  // earlier[t]'s option counts per class (tied classes only): ecount[t][c][j]
  std::vector<std::vector<std::vector<std::uint32_t>>> ecount(T);
  for (std::size_t t = 0; t < T; ++t) {
    ecount[t].resize(classes.size());
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].size() < 2) continue;
      ecount[t][c].assign(groups[classes[c][0]].size(), 0);
      for (std::size_t g : classes[c]) ++ecount[t][c][earlier[t][g]];
    }
  }
  // the distance of a full selection to earlier[t] (multisets over tied classes)
  auto distance = [&](const std::vector<std::size_t>& x, std::size_t t) {
    std::size_t d = 0;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].size() < 2) {
        d += x[classes[c][0]] != earlier[t][classes[c][0]];
        continue;
      }
      std::vector<std::uint32_t> n(ecount[t][c]);
      for (std::size_t g : classes[c])
        if (n[x[g]] > 0) --n[x[g]];
      for (std::uint32_t v : n) d += v;
    }
    return d;
  };

  // ---- multipliers (projected subgradient on the Lagrangian dual) ----
  std::vector<ld> scale(K);
  for (std::size_t k = 0; k < K; ++k) scale[k] = budget[k] > 0 ? ld(budget[k]) : 1;
  std::vector<ld> lam(K, 0), mu(T, 0);
  std::vector<std::vector<ld>> bonus(G);  // per group and option: sum_t mu_t [j == s_t(g)]
  std::vector<std::size_t> x(G);
  std::optional<Value> incumbent;
  std::vector<std::size_t> incumbent_choice;
  ld vscale = 0;
  for (const auto& grp : groups) {
    ld lo = static_cast<ld>(grp[0].value), hi = lo;
    for (const auto& o : grp) {
      lo = std::min(lo, static_cast<ld>(o.value));
      hi = std::max(hi, static_cast<ld>(o.value));
    }
    vscale += hi - lo;
  }
  if (!(vscale > 0)) vscale = 1;
  // Lagrangian value at (lam, mu) and its maximiser x; a group of a tied class counts as
  // differing from every earlier selection (bonus 0: an upper bound on the multiset distance)
  auto lagrangian = [&](std::vector<ld>* r_out) {
    ld L = 0;
    for (std::size_t k = 0; k < K; ++k) L += lam[k];
    ld mus = 0;
    for (std::size_t t = 0; t < T; ++t) mus += mu[t];
    L -= mus;
    for (std::size_t g = 0; g < G; ++g) {
      auto& b = bonus[g];
      b.assign(groups[g].size(), 0);
      if (!tied(g))
        for (std::size_t t = 0; t < T; ++t) b[earlier[t][g]] += mu[t];
      ld best = -INFINITY;
      for (std::size_t j = 0; j < groups[g].size(); ++j) {
        const auto& o = groups[g][j];
        ld r = static_cast<ld>(o.value) + (mus - b[j]) / ld(D == 0 ? 1 : D);
        for (std::size_t k = 0; k < K; ++k) r -= lam[k] * ld(o.cost[k]) / scale[k];
        if (r_out) r_out[g].push_back(r);
        if (r > best) {
          best = r;
          x[g] = j;
        }
      }
      L += best;
    }
    return L;
  };
  auto consider = [&]() {  // x feasible? then an incumbent
    std::vector<std::int64_t> c(K, 0);
    for (std::size_t g = 0; g < G; ++g)
      for (std::size_t k = 0; k < K; ++k)
        if (!detail::mmck_add(c[k], groups[g][x[g]].cost[k], c[k])) return;
    for (std::size_t k = 0; k < K; ++k)
      if (c[k] > budget[k]) return;
    for (std::size_t t = 0; t < T; ++t)
      if (distance(x, t) < D) return;
    Value v{};
    for (std::size_t g = 0; g < G; ++g) v = v + groups[g][x[g]].value;
    if (!incumbent || *incumbent < v) {
      incumbent = v;
      incumbent_choice = x;
    }
  };
  ld best_L = lagrangian(nullptr);
  consider();
  std::vector<ld> best_lam = lam, best_mu = mu;
  {
    ld theta = 1;
    int stall = 0;
    ld L = best_L;
    for (int it = 0; it < 300 && theta > 1e-5L && K + T > 0; ++it) {
      std::vector<ld> gl(K, 1), gm(T, -1);
      for (std::size_t g = 0; g < G; ++g) {
        const auto& o = groups[g][x[g]];
        for (std::size_t k = 0; k < K; ++k) gl[k] -= ld(o.cost[k]) / scale[k];
        for (std::size_t t = 0; t < T; ++t)
          if (tied(g) || x[g] != earlier[t][g]) gm[t] += 1 / ld(D);
      }
      ld norm = 0;
      for (std::size_t k = 0; k < K; ++k)
        if (!(lam[k] == 0 && gl[k] > 0)) norm += gl[k] * gl[k];
      for (std::size_t t = 0; t < T; ++t)
        if (!(mu[t] == 0 && gm[t] > 0)) norm += gm[t] * gm[t];
      if (norm == 0) break;  // x(lam, mu) is feasible with zero slack terms: UB is attained
      const ld target = incumbent ? static_cast<ld>(*incumbent) : best_L - 0.02L * vscale;
      const ld step = theta * std::max(L - target, 1e-6L * vscale) / norm;
      for (std::size_t k = 0; k < K; ++k) lam[k] = std::max<ld>(0, lam[k] - step * gl[k]);
      for (std::size_t t = 0; t < T; ++t) mu[t] = std::max<ld>(0, mu[t] - step * gm[t]);
      L = lagrangian(nullptr);
      consider();
      if (L < best_L) {
        best_L = L;
        best_lam = lam;
        best_mu = mu;
        stall = 0;
      } else if (++stall >= 20) {
        theta /= 2;
        stall = 0;
      }
    }
  }
  lam = best_lam;
  mu = best_mu;
  std::vector<std::vector<ld>> r(G);
  const ld UB = lagrangian(r.data());
  std::vector<std::vector<ld>> loss(G);
  std::vector<std::vector<std::uint32_t>> order(G);
  ld max_loss_sum = 0, rabs = 0;
  for (std::size_t g = 0; g < G; ++g) {
    const ld m = *std::max_element(r[g].begin(), r[g].end());
    rabs += std::abs(m);
    loss[g].resize(r[g].size());
    ld worst = 0;
    for (std::size_t j = 0; j < r[g].size(); ++j) {
      loss[g][j] = m - r[g][j];
      worst = std::max(worst, loss[g][j]);
    }
    max_loss_sum += worst;
    order[g].resize(r[g].size());
    std::iota(order[g].begin(), order[g].end(), 0u);
    std::stable_sort(order[g].begin(), order[g].end(),
                     [&](std::uint32_t a, std::uint32_t b) { return loss[g][a] < loss[g][b]; });
  }
  inf.upper_bound = double(UB);
  if (incumbent) inf.incumbent = double(static_cast<ld>(*incumbent));
  const ld slack = 1e-9L * (rabs + std::abs(UB) + vscale) + 1e-12L;

  // ---- stages: a group alone picks an option; a tied class, one stage per option (in
  // ascending loss), picks how many of its remaining groups take it ----
  struct stage {
    std::size_t g = 0;        // the group (a tied class: its first group)
    std::size_t cls = 0;
    std::uint32_t opt = 0;    // count stage: the option
    bool count = false, first = false, last = false;
    ld next_loss = 0;         // count stage: the loss of the class's next option
  };
  std::vector<stage> st;
  std::vector<std::int64_t> later_min;  // per stage x K: the class's later options' smallest cost
  std::vector<std::int64_t> rem_after;  // per stage x K: smallest cost of the groups of later blocks
  std::vector<std::uint32_t> fut;       // per stage x T: largest further distance after the stage
  {
    std::vector<std::size_t> blocks;    // the first group of each block, in order
    for (std::size_t g = 0; g < G; ++g)
      if (classes[cls_of[g]][0] == g) blocks.push_back(g);
    // suffix sums over blocks: smallest costs and group counts
    std::vector<std::int64_t> bmin((blocks.size() + 1) * K, 0);
    std::vector<std::size_t> bgroups(blocks.size() + 1, 0);
    for (std::size_t b = blocks.size(); b-- > 0;) {
      const std::size_t g = blocks[b], m = classes[cls_of[g]].size();
      bgroups[b] = bgroups[b + 1] + m;
      for (std::size_t k = 0; k < K; ++k) {
        std::int64_t lo = groups[g][0].cost[k];
        for (const auto& o : groups[g]) lo = std::min(lo, o.cost[k]);
        const i128 v = i128(lo) * i128(m) + i128(bmin[(b + 1) * K + k]);
        bmin[b * K + k] = v > i128(INT64_MAX) ? INT64_MAX : std::int64_t(v);
      }
    }
    for (std::size_t k = 0; k < K; ++k)
      if (bmin[k] > budget[k]) return std::nullopt;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const std::size_t g = blocks[b], c = cls_of[g];
      if (classes[c].size() < 2) {
        st.push_back({g, c, 0, false, true, true, 0});
        later_min.insert(later_min.end(), K, 0);
        rem_after.insert(rem_after.end(), bmin.begin() + std::ptrdiff_t((b + 1) * K), bmin.begin() + std::ptrdiff_t((b + 2) * K));
        fut.insert(fut.end(), T, std::uint32_t(bgroups[b + 1]));
        continue;
      }
      const auto& ord = order[g];
      const std::size_t J = ord.size();
      for (std::size_t q = 0; q < J; ++q) {
        st.push_back({g, c, ord[q], true, q == 0, q + 1 == J, q + 1 < J ? loss[g][ord[q + 1]] : 0});
        for (std::size_t k = 0; k < K; ++k) {
          std::int64_t lo = INT64_MAX;
          for (std::size_t p = q + 1; p < J; ++p) lo = std::min(lo, groups[g][ord[p]].cost[k]);
          later_min.push_back(q + 1 < J ? lo : 0);
        }
        rem_after.insert(rem_after.end(), bmin.begin() + std::ptrdiff_t((b + 1) * K), bmin.begin() + std::ptrdiff_t((b + 2) * K));
        for (std::size_t t = 0; t < T; ++t) {
          std::size_t f = bgroups[b + 1];
          for (std::size_t p = q + 1; p < J; ++p) f += ecount[t][c][ord[p]];
          fut.push_back(std::uint32_t(f));
        }
      }
    }
  }
  const std::size_t S = st.size();
  // count stages: the values of 0..m copies of an option (summed one copy at a time)
  std::vector<std::vector<Value>> copies(S);
  for (std::size_t q = 0; q < S; ++q) {
    if (!st[q].count) continue;
    const Value& v = groups[st[q].g][st[q].opt].value;
    copies[q].assign(1, Value{});
    for (std::size_t c = 1; c <= classes[st[q].cls].size(); ++c) copies[q].push_back(copies[q].back() + v);
  }

  // ---- one round: every state with loss <= gap ----
  // a state: cost (K), capped distances (T) and the tied class's remaining groups (1), value,
  // summed loss; links per stage: parent state and option (count stage: the count)
  struct stage_links {
    std::vector<std::uint32_t> parent, option;
  };
  const std::size_t W = T + 1;
  const std::size_t per_state = K * sizeof(std::int64_t) + W * sizeof(std::uint16_t) + sizeof(Value) +
                                sizeof(ld) + 2 * sizeof(std::uint32_t);
  auto round = [&](ld gap, std::vector<stage_links>& links) -> std::optional<mmck_selection<Value>> {
    std::vector<std::int64_t> cost(K, 0);
    std::vector<std::uint16_t> dist(W, 0);
    std::vector<Value> value(1, Value{});
    std::vector<ld> lsum(1, 0);
    links.assign(S, {});
    std::size_t held = 0;  // back-pointer bytes so far
    inf.states = 1;
    for (std::size_t q = 0; q < S; ++q) {
      const stage& sq = st[q];
      const std::size_t n = value.size();
      const std::int64_t* rest = rem_after.data() + q * K;
      const std::int64_t* lmin = later_min.data() + q * K;
      const std::uint32_t* fq = fut.data() + q * T;
      std::vector<std::int64_t> cc;
      std::vector<std::uint16_t> cd;
      std::vector<Value> cv;
      std::vector<ld> cl;
      std::vector<std::uint32_t> cp, co;
      std::vector<std::int64_t> c(K);
      auto key_hash = [&](std::uint32_t a) {
        std::uint64_t h = 1469598103934665603ull;
        for (std::size_t k = 0; k < K; ++k) h = (h ^ std::uint64_t(cc[a * K + k])) * 1099511628211ull;
        for (std::size_t t = 0; t < W; ++t) h = (h ^ cd[a * W + t]) * 1099511628211ull;
        return std::size_t(h ^ (h >> 29));
      };
      auto key_equal = [&](std::uint32_t a, std::uint32_t b) {
        return std::equal(cc.begin() + std::ptrdiff_t(a * K), cc.begin() + std::ptrdiff_t(a * K + K),
                          cc.begin() + std::ptrdiff_t(b * K)) &&
               std::equal(cd.begin() + std::ptrdiff_t(a * W), cd.begin() + std::ptrdiff_t(a * W + W),
                          cd.begin() + std::ptrdiff_t(b * W));
      };
      std::unordered_set<std::uint32_t, decltype(key_hash), decltype(key_equal)> same(16, key_hash, key_equal);
      // one candidate: state i with `copies` (count stage) or option j; false: pruned
      auto add = [&](std::size_t i, std::uint32_t j, std::size_t count, std::size_t left, ld l) {
        if (s.max_work != 0 && inf.candidates >= s.max_work) {
          char msg[320];
          std::snprintf(msg, sizeof msg,
                        "the pool member needs more than max_work = %llu candidate states (bound %.6g, gap %.3g "
                        "after %zu rounds); raise the work cap, or lower the distance or the pool size",
                        (unsigned long long)s.max_work, double(UB), double(gap), inf.rounds);
          throw_invalid_argument(fn, msg);
        }
        ++inf.candidates;
        const auto& o = groups[sq.g][j];
        for (std::size_t k = 0; k < K; ++k) {
          const i128 v = i128(cost[i * K + k]) + i128(o.cost[k]) * i128(count);
          if (v + i128(lmin[k]) * i128(left) + i128(rest[k]) > i128(budget[k])) return;
          c[k] = std::int64_t(v);
        }
        const std::size_t base = cd.size();
        for (std::size_t t = 0; t < T; ++t) {
          std::size_t d = dist[i * W + t];
          if (sq.count) {
            const std::uint32_t had = ecount[t][sq.cls][j];
            d += had > count ? had - count : 0;
          } else {
            d += j != earlier[t][sq.g] ? 1 : 0;
          }
          if (d > D) d = D;
          if (d + fq[t] < D) {
            cd.resize(base);
            return;
          }
          cd.push_back(std::uint16_t(d));
        }
        cd.push_back(std::uint16_t(left));
        cc.insert(cc.end(), c.begin(), c.end());
        cv.push_back(value[i] + (sq.count ? copies[q][count] : o.value));
        cl.push_back(l);
        cp.push_back(std::uint32_t(i));
        co.push_back(sq.count ? std::uint32_t(count) : j);
        // an equal (distances, remaining, cost) candidate: keep the better value (the first on ties)
        const std::uint32_t me = std::uint32_t(cv.size() - 1);
        if (auto [it, fresh] = same.insert(me); !fresh) {
          const std::uint32_t b = *it;
          if (cv[b] < cv[me]) {
            cv[b] = cv[me];
            cl[b] = cl[me];
            cp[b] = cp[me];
            co[b] = co[me];
          }
          cc.resize(cc.size() - K);
          cd.resize(cd.size() - W);
          cv.pop_back();
          cl.pop_back();
          cp.pop_back();
          co.pop_back();
          return;
        }
        if ((cv.size() & 4095) == 0 && cv.size() * per_state + held > s.max_table_bytes) {
          char msg[320];
          std::snprintf(msg, sizeof msg,
                        "the pool member's states need more than %zu bytes at group %zu (%zu candidate states); "
                        "more than max_table_bytes",
                        cv.size() * per_state + held, sq.g, cv.size());
          throw_invalid_argument(fn, msg, s.max_table_bytes);
        }
      };
      for (std::size_t i = 0; i < n; ++i) {
        if (!sq.count) {
          for (std::uint32_t j : order[sq.g]) {
            const ld l = lsum[i] + loss[sq.g][j];
            if (l > gap + 2 * slack) break;
            add(i, j, 1, 0, l);
          }
          continue;
        }
        // count stage: c copies of option opt, from all remaining down (the loss still to come,
        // (r - c) x the next option's loss, grows as c falls)
        const std::size_t r_in = sq.first ? classes[sq.cls].size() : dist[i * W + T];
        const ld lj = loss[sq.g][sq.opt];
        for (std::size_t cnt = r_in + 1; cnt-- > (sq.last ? r_in : 0);) {
          const ld l = lsum[i] + ld(cnt) * lj;
          if (l + ld(r_in - cnt) * sq.next_loss > gap + 2 * slack) break;
          add(i, sq.opt, cnt, r_in - cnt, l);
        }
      }
      const std::size_t m = cv.size();
      inf.peak_bytes = std::max(inf.peak_bytes, m * per_state + held);
      if (m == 0) return std::nullopt;
      // dominance within blocks of equal capped distances and remaining groups
      std::vector<std::uint32_t> idx(m);
      std::iota(idx.begin(), idx.end(), 0u);
      std::sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
        for (std::size_t t = 0; t < W; ++t)
          if (cd[a * W + t] != cd[b * W + t]) return cd[a * W + t] < cd[b * W + t];
        for (std::size_t k = 0; k < K; ++k)
          if (cc[a * K + k] != cc[b * K + k]) return cc[a * K + k] < cc[b * K + k];
        if (cv[b] < cv[a]) return true;
        if (cv[a] < cv[b]) return false;
        return a < b;
      });
      std::vector<std::uint32_t> keep;
      std::size_t lo = 0;
      while (lo < m) {
        std::size_t hi = lo + 1;
        while (hi < m && std::equal(cd.begin() + std::ptrdiff_t(idx[hi] * W), cd.begin() + std::ptrdiff_t(idx[hi] * W + W),
                                    cd.begin() + std::ptrdiff_t(idx[lo] * W)))
          ++hi;
        if (K == 1) {
          std::optional<Value> best;
          for (std::size_t p = lo; p < hi; ++p)
            if (!best || *best < cv[idx[p]]) {
              best = cv[idx[p]];
              keep.push_back(idx[p]);
            }
        } else if (K == 2) {
          // sorted by c0, then c1, then value descending: a Fenwick prefix maximum over c1
          std::vector<std::int64_t> ys;
          for (std::size_t p = lo; p < hi; ++p) ys.push_back(cc[idx[p] * 2 + 1]);
          std::sort(ys.begin(), ys.end());
          ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
          std::vector<Value> fv(ys.size() + 1);
          std::vector<char> fh(ys.size() + 1, 0);
          for (std::size_t p = lo; p < hi; ++p) {
            const std::uint32_t a = idx[p];
            const std::size_t y = std::size_t(std::lower_bound(ys.begin(), ys.end(), cc[a * 2 + 1]) - ys.begin()) + 1;
            bool dominated = false;
            for (std::size_t u = y; u > 0 && !dominated; u -= u & (~u + 1))
              dominated = fh[u] && !(fv[u] < cv[a]);
            if (dominated) continue;
            keep.push_back(a);
            for (std::size_t u = y; u <= ys.size(); u += u & (~u + 1))
              if (!fh[u] || fv[u] < cv[a]) {
                fv[u] = cv[a];
                fh[u] = 1;
              }
          }
        } else {
          const std::size_t first = keep.size();
          for (std::size_t p = lo; p < hi; ++p) {
            const std::uint32_t a = idx[p];
            bool dominated = false;
            for (std::size_t u = first; u < keep.size() && !dominated; ++u) {
              const std::uint32_t b = keep[u];
              bool le = !(cv[b] < cv[a]);
              for (std::size_t k = 0; k < K && le; ++k) le = cc[b * K + k] <= cc[a * K + k];
              dominated = le;
            }
            inf.candidates += keep.size() - first;
            if (!dominated) keep.push_back(a);
          }
        }
        lo = hi;
      }
      std::sort(keep.begin(), keep.end());
      const std::size_t n2 = keep.size();
      std::vector<std::int64_t> nc(n2 * K);
      std::vector<std::uint16_t> nd(n2 * W);
      std::vector<Value> nv(n2);
      std::vector<ld> nl(n2);
      auto& lk = links[q];
      lk.parent.resize(n2);
      lk.option.resize(n2);
      for (std::size_t p = 0; p < n2; ++p) {
        const std::uint32_t a = keep[p];
        std::copy_n(cc.begin() + std::ptrdiff_t(a * K), K, nc.begin() + std::ptrdiff_t(p * K));
        std::copy_n(cd.begin() + std::ptrdiff_t(a * W), W, nd.begin() + std::ptrdiff_t(p * W));
        nv[p] = cv[a];
        nl[p] = cl[a];
        lk.parent[p] = cp[a];
        lk.option[p] = co[a];
      }
      held += n2 * 2 * sizeof(std::uint32_t);
      inf.states += n2;
      cost.swap(nc);
      dist.swap(nd);
      value.swap(nv);
      lsum.swap(nl);
    }
    // every surviving state is feasible (costs checked, distances D)
    std::size_t best = 0;
    for (std::size_t i = 1; i < value.size(); ++i) {
      if (value[best] < value[i]) best = i;
      else if (!(value[i] < value[best]) &&
               std::lexicographical_compare(cost.begin() + std::ptrdiff_t(i * K), cost.begin() + std::ptrdiff_t(i * K + K),
                                            cost.begin() + std::ptrdiff_t(best * K),
                                            cost.begin() + std::ptrdiff_t(best * K + K)))
        best = i;
    }
    mmck_selection<Value> out{std::vector<std::size_t>(G), value[best],
                              std::vector<std::int64_t>(cost.begin() + std::ptrdiff_t(best * K),
                                                        cost.begin() + std::ptrdiff_t(best * K + K))};
    // back through the stages: options of single groups, counts of tied classes
    std::vector<std::vector<std::uint32_t>> counts(classes.size());
    std::size_t at = best;
    for (std::size_t q = S; q-- > 0;) {
      const stage& sq = st[q];
      if (sq.count) {
        if (counts[sq.cls].empty()) counts[sq.cls].assign(groups[sq.g].size(), 0);
        counts[sq.cls][sq.opt] = links[q].option[at];
      } else {
        out.choice[sq.g] = links[q].option[at];
      }
      at = links[q].parent[at];
    }
    for (std::size_t c = 0; c < classes.size(); ++c) {  // canonical: ascending options over ascending groups
      if (counts[c].empty()) continue;
      std::size_t p = 0;
      for (std::size_t j = 0; j < counts[c].size(); ++j)
        for (std::uint32_t u = 0; u < counts[c][j]; ++u) out.choice[classes[c][p++]] = j;
    }
    return out;
  };

  // the answer's value summed in group order (as a caller sums a selection)
  auto finish = [&](std::optional<mmck_selection<Value>> got) {
    if (got && !s.positions) {
      Value v{};
      for (std::size_t g = 0; g < G; ++g) v = v + groups[g][got->choice[g]].value;
      got->value = v;
    }
    return got;
  };
  std::vector<stage_links> links;
  ld delta = std::max(1e-7L * (std::abs(UB) + vscale), 4 * slack);
  ld threshold = UB - delta;
  if (incumbent && static_cast<ld>(*incumbent) > threshold) threshold = static_cast<ld>(*incumbent);
  for (;;) {
    ++inf.rounds;
    const ld gap = UB - threshold;
    const bool last = gap >= max_loss_sum;
    auto got = round(last ? max_loss_sum + 1 : gap, links);
    if (last) return finish(std::move(got));
    if (got && !(static_cast<ld>(got->value) < threshold - slack)) return finish(std::move(got));
    delta *= 2;
    ld next = UB - delta;
    if (got) next = std::max(next, static_cast<ld>(got->value));
    if (incumbent) next = std::max(next, static_cast<ld>(*incumbent));
    threshold = std::min(next, threshold - slack);
  }
}

} // namespace nsc::search

#endif // NSC_SEARCH_KNAPSACK_DIVERSE_POOL_HPP
