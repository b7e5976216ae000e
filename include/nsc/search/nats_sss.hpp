/// \file nsc/search/nats_sss.hpp
/// NATS-Bench SSS (32,768 channel tuples c0..c4 in {8, ..., 64}): exhaustive scoring and an
/// exact chain DP, which must agree (reference-conventions.md, "The searches").
///
/// Synopsis
/// --------
///     presets::nats_sss_table table(options);                 // per-layer psi tables (7 x 8 x 8)
///     auto all = nats_sss_score_all(table);                   // NSC and params of all 32,768
///     nats_sss_exhaustive_best(all, budget), nats_sss_top_k(all, k, budget),
///     nats_sss_exhaustive_front(all, budget)
///     auto dp = nats_sss_chain_dp(table, budget);             // dp.best, dp.front
///     nats_sss_for_each(table, f)                             // f(index, nsc, params), no storage
///     auto r = search_nats_sss({.net = options, .max_params = 3e5, .top_k = 10});
///     nats_sss_join_accuracy(r, records, dataset)             // chosen / best-of-top-k / oracle
///
/// Description
/// -----------
/// Every layer of a NATS-SSS network depends on the channels it maps (presets::nats_sss_table
/// tabulates its NSC, #Params and MACs for the 8 x 8 channel pairs), and in both wirings each
/// layer maps two consecutive channels (c_{k-1} -> c_k), one channel twice, or a fixed size
/// (stem input, classes). So the network is a chain: stage k chooses c_k and adds the layers
/// whose largest channel index is k, evaluated at (c_{k-1}, c_k).
///
///  * Exhaustive: all 8^5 sums, computed with shared prefixes (8 + 64 + ... + 32,768 additions
///    per layer), each summed in layer order from 0 exactly as nats_sss_table::score does, so
///    every NSC is bitwise the table's and #Params exact.
///  * Chain DP: state (channel of the current stage, cost). For each channel the states are
///    kept as a Pareto list of (params, NSC, prefix) with strictly increasing NSC: a state with
///    more params and no more NSC than another of the same channel can never do better, because
///    every completion adds the same layers to both (IEEE addition is monotone). Without a budget
///    the lists hold the whole front; with one, states above it are dropped. The final lists,
///    merged, are the exact Pareto front of NSC against params, and the best architecture for
///    any budget is read off it. Layer values are added one layer at a time in layer order, so
///    the DP's NSC values are bitwise the exhaustive ones and the two searches agree exactly.
///
/// Ranking and tie-breaking (both searches): higher NSC first, then fewer params, then the
/// smaller NATS index (lexicographic c0..c4, c4 fastest).
///
/// Protocols (nats_sss_protocol_options): "xautodl" (default: the trained networks, whose
/// params equal the CSV's params_computed_* columns), "reference-fr" (the paper's all-32,768
/// script: channel-shifted wiring, FactorizedReduce skip) and "reference-1x1" (the paper's
/// figure protocol: shifted wiring, one 1x1 skip). See nsc/presets/nats_sss.hpp.
#ifndef NSC_SEARCH_NATS_SSS_HPP
#define NSC_SEARCH_NATS_SSS_HPP

#include <nsc/error_handling.hpp>
#include <nsc/io/nats_sss.hpp>
#include <nsc/model/cnn.hpp>
#include <nsc/presets/nats_sss.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/pareto.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::search {

/// Network options of a named protocol ("xautodl", "reference-fr", "reference-1x1") for a
/// dataset; std::invalid_argument for another name.
inline presets::nats_sss_options nats_sss_protocol_options(std::string_view protocol,
                                                           presets::nats_dataset dataset) {
  presets::nats_sss_options o;
  o.dataset = dataset;
  if (protocol == "xautodl") {
    o.wiring = presets::nats_wiring::xautodl;
    o.skip = nats_skip::conv1x1;
  } else if (protocol == "reference-fr") {
    o.wiring = presets::nats_wiring::reference_code;
    o.skip = nats_skip::factorized_reduce;
  } else if (protocol == "reference-1x1") {
    o.wiring = presets::nats_wiring::reference_code;
    o.skip = nats_skip::conv1x1;
  } else {
    throw_invalid_argument("nsc::search::nats_sss_protocol_options",
                           "unknown protocol; expected xautodl, reference-fr or reference-1x1",
                           std::string(protocol));
  }
  return o;
}

/// One architecture with its NSC and #Params (and MACs per image).
struct nats_sss_candidate {
  presets::nats_channels channels{};
  std::size_t index = 0; ///< NATS index (presets::nats_sss_index)
  double nsc = 0;
  std::int64_t params = 0;
  double macs = 0;
  std::string arch() const { return presets::nats_sss_arch_string(channels); }
};

/// NSC and #Params of all 32,768 architectures, in NATS order.
struct nats_sss_scores {
  std::vector<double> nsc;
  std::vector<std::int64_t> params;
};

namespace detail {

/// The chain view of a nats_sss_table: per slot its stage and flat 8 x 8 tables indexed by
/// (channel index of stage - 1, channel index of stage).
struct nats_chain {
  std::array<int, presets::nats_sss_slots> stage{};
  /// The slots of each stage, in slot order (slots[k][0 .. count[k])).
  std::array<std::array<std::size_t, presets::nats_sss_slots>, 5> slots{};
  std::array<std::size_t, 5> count{};
  /// value[slot][p * 8 + c], params[slot][p * 8 + c]; p unused (0) at stage 0.
  std::array<std::array<double, 64>, presets::nats_sss_slots> value{};
  std::array<std::array<std::int64_t, 64>, presets::nats_sss_slots> params{};
  std::array<std::array<double, 64>, presets::nats_sss_slots> macs{};

  explicit nats_chain(const presets::nats_sss_table& t) {
    constexpr std::string_view fn = "nsc::search::nats_sss (chain)";
    const auto w = presets::nats_sss_wiring(t.options().wiring);
    int last = 0;
    for (std::size_t s = 0; s < presets::nats_sss_slots; ++s) {
      const int k = std::max(w[s].in, w[s].out);
      if (k < 0) throw_invalid_argument(fn, "a layer maps no channel of the space", s);
      for (int x : {w[s].in, w[s].out})
        if (x >= 0 && x != k && x != k - 1)
          throw_invalid_argument(fn, "a layer maps non-consecutive channels", s);
      if (k < last) throw_invalid_argument(fn, "layers must follow the channel order", s);
      if (k > 4) throw_invalid_argument(fn, "a layer maps a channel beyond c4", s);
      last = k;
      stage[s] = k;
      slots[std::size_t(k)][count[std::size_t(k)]++] = s;
      for (std::size_t p = 0; p < 8; ++p) {
        for (std::size_t c = 0; c < 8; ++c) {
          auto ch = [&](int x) -> std::int64_t {
            if (x < 0) return 8; // fixed side: any valid channel, ignored by the table
            return presets::nats_sss_widths[x == k ? c : p];
          };
          const auto& e = t.layer_entry(s, ch(w[s].in), ch(w[s].out));
          value[s][p * 8 + c] = e.nsc;
          params[s][p * 8 + c] = e.params;
          macs[s][p * 8 + c] = e.macs;
        }
      }
    }
  }
};

inline bool nats_better(double v1, std::int64_t c1, std::size_t i1, double v2, std::int64_t c2,
                        std::size_t i2) {
  if (v1 != v2) return v2 < v1;
  if (c1 != c2) return c1 < c2;
  return i1 < i2;
}

} // namespace detail

/// The candidate of NATS index `index` from a table (NSC bitwise nats_sss_table::score).
inline nats_sss_candidate nats_sss_make_candidate(const presets::nats_sss_table& t,
                                                  std::size_t index) {
  nats_sss_candidate c;
  c.index = index;
  c.channels = presets::nats_sss_channels(index);
  c.nsc = t.score(c.channels);
  c.params = t.params(c.channels);
  c.macs = t.macs(c.channels);
  return c;
}

/// Calls f(index, nsc, params) for all 32,768 architectures in NATS order, with shared prefix
/// sums (each NSC bitwise nats_sss_table::score, params exact). Allocates nothing.
template <class F>
void nats_sss_for_each(const presets::nats_sss_table& table, F&& f) {
  const detail::nats_chain ch(table);
  std::array<double, 6> v{};
  std::array<std::int64_t, 6> p{};
  auto add_stage = [&](std::size_t k, std::size_t prev, std::size_t cur) {
    double x = v[k];
    std::int64_t y = p[k];
    const std::size_t pc = prev * 8 + cur;
    for (std::size_t i = 0; i < ch.count[k]; ++i) {
      x += ch.value[ch.slots[k][i]][pc];
      y += ch.params[ch.slots[k][i]][pc];
    }
    v[k + 1] = x;
    p[k + 1] = y;
  };
  std::size_t n = 0;
  for (std::size_t c0 = 0; c0 < 8; ++c0) {
    add_stage(0, 0, c0);
    for (std::size_t c1 = 0; c1 < 8; ++c1) {
      add_stage(1, c0, c1);
      for (std::size_t c2 = 0; c2 < 8; ++c2) {
        add_stage(2, c1, c2);
        for (std::size_t c3 = 0; c3 < 8; ++c3) {
          add_stage(3, c2, c3);
          for (std::size_t c4 = 0; c4 < 8; ++c4) {
            add_stage(4, c3, c4);
            f(n++, v[5], p[5]);
          }
        }
      }
    }
  }
}

/// NSC and #Params of all 32,768 architectures (nats_sss_for_each into two vectors).
inline nats_sss_scores nats_sss_score_all(const presets::nats_sss_table& table) {
  nats_sss_scores out;
  out.nsc.resize(presets::nats_sss_size);
  out.params.resize(presets::nats_sss_size);
  nats_sss_for_each(table, [&](std::size_t i, double v, std::int64_t c) {
    out.nsc[i] = v;
    out.params[i] = c;
  });
  return out;
}

namespace detail {

/// Streaming best and top-k under a budget (the ranking of the file comment).
class nats_ranker {
public:
  nats_ranker(std::size_t k, std::optional<std::int64_t> budget) : k_(k), budget_(budget) {
    top_.reserve(k + 1);
  }
  void offer(std::size_t i, double v, std::int64_t c) {
    if (budget_ && c > *budget_) return;
    const entry e{i, v, c};
    if (k_ == 0) { // best only
      if (!has_best_ || better(e, best_)) {
        best_ = e;
        has_best_ = true;
      }
      return;
    }
    // Most architectures fail this first test (the k-th best so far).
    if (top_.size() == k_ && !better(e, top_.back())) return;
    top_.insert(std::upper_bound(top_.begin(), top_.end(), e, better), e);
    if (top_.size() > k_) top_.pop_back();
  }
  /// A value below which offer() rejects for sure (the k-th best NSC so far, or -inf).
  double threshold() const noexcept {
    return k_ > 0 && top_.size() == k_ ? top_.back().nsc : -std::numeric_limits<double>::infinity();
  }
  std::optional<nats_sss_candidate> best() const {
    if (k_ > 0) {
      if (top_.empty()) return std::nullopt;
      return make(top_.front());
    }
    if (!has_best_) return std::nullopt;
    return make(best_);
  }
  std::vector<nats_sss_candidate> top() const {
    std::vector<nats_sss_candidate> out;
    for (const entry& e : top_) out.push_back(make(e));
    return out;
  }

private:
  struct entry {
    std::size_t index;
    double nsc;
    std::int64_t params;
  };
  static bool better(const entry& a, const entry& b) {
    return nats_better(a.nsc, a.params, a.index, b.nsc, b.params, b.index);
  }
  static nats_sss_candidate make(const entry& e) {
    nats_sss_candidate c;
    c.index = e.index;
    c.channels = presets::nats_sss_channels(e.index);
    c.nsc = e.nsc;
    c.params = e.params;
    return c;
  }
  std::size_t k_;
  std::optional<std::int64_t> budget_;
  bool has_best_ = false;
  entry best_{0, 0.0, 0}; // a plain member, not std::optional (g++ 12 -Wmaybe-uninitialized)
  std::vector<entry> top_;
};

} // namespace detail

/// The best architecture with params <= budget (nullopt: no budget), by NSC, then fewer params,
/// then the smaller index; nullopt if nothing fits. NSC and params from `all`; macs left 0.
inline std::optional<nats_sss_candidate> nats_sss_exhaustive_best(
    const nats_sss_scores& all, std::optional<std::int64_t> budget = std::nullopt) {
  detail::nats_ranker r(0, budget);
  for (std::size_t i = 0; i < all.nsc.size(); ++i) r.offer(i, all.nsc[i], all.params[i]);
  return r.best();
}

/// The k best architectures with params <= budget, best first (same order as above).
inline std::vector<nats_sss_candidate> nats_sss_top_k(
    const nats_sss_scores& all, std::size_t k, std::optional<std::int64_t> budget = std::nullopt) {
  detail::nats_ranker r(k, budget);
  for (std::size_t i = 0; i < all.nsc.size(); ++i) r.offer(i, all.nsc[i], all.params[i]);
  return r.top();
}

/// The exact Pareto front of NSC against params from all scores (params <= budget): ascending
/// params, strictly ascending NSC; each point the smallest index among equal (params, NSC).
inline std::vector<nats_sss_candidate> nats_sss_exhaustive_front(
    const nats_sss_scores& all, std::optional<std::int64_t> budget = std::nullopt) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < all.nsc.size(); ++i)
    if (!budget || all.params[i] <= *budget) idx.push_back(i);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    if (all.params[a] != all.params[b]) return all.params[a] < all.params[b];
    if (all.nsc[a] != all.nsc[b]) return all.nsc[b] < all.nsc[a];
    return a < b;
  });
  std::vector<nats_sss_candidate> out;
  for (std::size_t i : idx) {
    if (!out.empty() && !(out.back().nsc < all.nsc[i])) continue;
    nats_sss_candidate c;
    c.index = i;
    c.channels = presets::nats_sss_channels(i);
    c.nsc = all.nsc[i];
    c.params = all.params[i];
    out.push_back(c);
  }
  return out;
}

/// Outcome of the chain DP.
struct nats_sss_dp_result {
  std::optional<nats_sss_candidate> best; ///< the best with params <= budget (or overall)
  std::vector<nats_sss_candidate> front;  ///< exact front, params <= budget
  search_stats stats;                     ///< cells = states kept, cell_updates = transitions
};

/// The exact chain DP (see the file comment); budget: upper bound on params (nullopt: none).
/// Candidates carry NSC, params and MACs.
inline nats_sss_dp_result nats_sss_chain_dp(const presets::nats_sss_table& table,
                                            std::optional<std::int64_t> budget = std::nullopt) {
  const detail::nats_chain ch(table);
  struct state {
    std::int64_t cost;
    double value;
    std::uint32_t prefix; ///< channel indices so far, base 8 (the NATS index at the end)
  };
  nats_sss_dp_result out;
  out.stats.dp_runs = 1;
  out.stats.outer_configs = 1;
  out.stats.layer_scores = presets::nats_sss_slots * 64;
  const std::int64_t cap = budget ? *budget : std::numeric_limits<std::int64_t>::max();
  auto by_cost = [](const state& a, const state& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    if (a.value != b.value) return b.value < a.value;
    return a.prefix < b.prefix;
  };
  // Appends the Pareto-optimal states of `cand` to `dst`. `cand` holds `runs` runs, each sorted
  // by cost (a Pareto list shifted by a constant), run r in [bound[r], bound[r + 1]); they are
  // merged pairwise (ping-pong through `tmp`), O(n log runs).
  std::vector<state> tmp;
  auto pareto_into = [&](std::vector<state>& cand, std::array<std::size_t, 9> bound,
                         std::size_t runs, std::vector<state>& dst) {
    tmp.resize(cand.size());
    while (runs > 1) {
      std::size_t out_runs = 0;
      for (std::size_t r = 0; r < runs; r += 2) {
        const std::size_t a = bound[r], m = bound[std::min(r + 1, runs)],
                          b = bound[std::min(r + 2, runs)];
        std::merge(cand.begin() + std::ptrdiff_t(a), cand.begin() + std::ptrdiff_t(m),
                   cand.begin() + std::ptrdiff_t(m), cand.begin() + std::ptrdiff_t(b),
                   tmp.begin() + std::ptrdiff_t(a), by_cost);
        bound[out_runs++] = a;
      }
      bound[out_runs] = bound[runs];
      runs = out_runs;
      cand.swap(tmp);
    }
    const std::size_t first = dst.size();
    for (const state& x : cand)
      if (dst.size() == first || dst.back().value < x.value) dst.push_back(x);
  };
  // States of one stage in one buffer, grouped by channel: [off[c], off[c + 1]). The buffers are
  // reused across stages; a channel's candidates are at most all states of the previous stage.
  std::vector<state> cur{state{0, 0.0, 0}}, next, cand;
  std::array<std::size_t, 9> cur_off{0, 1, 1, 1, 1, 1, 1, 1, 1}, next_off{};
  for (std::size_t k = 0; k < 5; ++k) {
    const std::size_t prevs = k == 0 ? 1 : 8;
    next.clear();
    cand.reserve(cur.size());
    next_off[0] = 0;
    for (std::size_t c = 0; c < 8; ++c) {
      cand.clear();
      std::array<std::size_t, 9> bound{};
      for (std::size_t p = 0; p < prevs; ++p) {
        bound[p] = cand.size();
        const std::size_t pc = p * 8 + c;
        for (std::size_t i = cur_off[p]; i < cur_off[p + 1]; ++i) {
          const state& x = cur[i];
          ++out.stats.cell_updates;
          double v = x.value;
          std::int64_t cost = x.cost;
          for (std::size_t j = 0; j < ch.count[k]; ++j) {
            v += ch.value[ch.slots[k][j]][pc];
            cost += ch.params[ch.slots[k][j]][pc];
          }
          if (cost > cap) continue;
          cand.push_back(state{cost, v, std::uint32_t(x.prefix * 8 + c)});
        }
      }
      bound[prevs] = cand.size();
      pareto_into(cand, bound, prevs, next);
      next_off[c + 1] = next.size();
    }
    out.stats.cells += next.size();
    std::swap(cur, next);
    cur_off = next_off;
  }
  // The final channels' lists are not sorted against each other: one sort of the union.
  std::sort(cur.begin(), cur.end(), by_cost);
  std::vector<state> all;
  all.reserve(cur.size());
  pareto_into(cur, std::array<std::size_t, 9>{0, cur.size()}, 1, all);
  out.front.reserve(all.size());
  for (const state& x : all) {
    nats_sss_candidate c;
    c.index = x.prefix;
    c.channels = presets::nats_sss_channels(x.prefix);
    c.nsc = x.value; // bitwise equal to the table's sum
    c.params = x.cost;
    c.macs = table.macs(c.channels);
    out.front.push_back(c);
  }
  if (!out.front.empty()) out.best = out.front.back();
  return out;
}

/// Settings of search_nats_sss.
struct nats_sss_search_settings {
  presets::nats_sss_options net{};        ///< dataset, skip, wiring
  std::optional<double> max_params;       ///< upper bound on #Params (nullopt: none)
  std::size_t top_k = 10;                 ///< length of the NSC top list
  bool keep_scores = false;               ///< keep every NSC and #Params in result.all
  scoring rule = presets::nats_sss_scoring();
};

/// Outcome of search_nats_sss: both searches, their agreement, the top list and the front.
struct nats_sss_search_result {
  presets::nats_sss_options net{};
  std::optional<std::int64_t> budget;
  std::optional<nats_sss_candidate> best;            ///< the DP's answer
  std::optional<nats_sss_candidate> exhaustive_best; ///< the exhaustive answer
  bool agree = false; ///< same architecture (or both infeasible), same NSC and params
  std::vector<nats_sss_candidate> top;   ///< NSC top-k within the budget (exhaustive)
  std::vector<nats_sss_candidate> front; ///< the DP's front (params <= budget)
  std::optional<presets::nats_sss_table> table; ///< the per-layer tables used
  nats_sss_scores all;                   ///< with keep_scores: every NSC and #Params
  search_stats stats;
};

/// Builds the tables, scores all 32,768 architectures (streaming: best and top-k without
/// storing the scores), runs the chain DP, and checks that the two agree. Errors:
/// std::invalid_argument "nsc::search::search_nats_sss: ..." for a budget that is not finite and
/// >= 0; the presets' errors for bad options.
inline nats_sss_search_result search_nats_sss(const nats_sss_search_settings& s = {}) {
  constexpr std::string_view fn = "nsc::search::search_nats_sss";
  nats_sss_search_result out;
  out.net = s.net;
  if (s.max_params) out.budget = budget_floor(*s.max_params, fn);
  out.table.emplace(s.net, s.rule);
  const presets::nats_sss_table& table = *out.table;
  detail::nats_ranker ranker(s.top_k, out.budget);
  if (s.keep_scores) {
    out.all = nats_sss_score_all(table);
    for (std::size_t i = 0; i < out.all.nsc.size(); ++i)
      ranker.offer(i, out.all.nsc[i], out.all.params[i]);
  } else {
    double threshold = -std::numeric_limits<double>::infinity();
    nats_sss_for_each(table, [&](std::size_t i, double v, std::int64_t c) {
      if (v < threshold) return; // cannot enter the top-k (the common case)
      ranker.offer(i, v, c);
      threshold = ranker.threshold();
    });
  }
  out.stats.candidates = presets::nats_sss_size;
  out.exhaustive_best = ranker.best();
  out.top = ranker.top();
  for (auto& c : out.top) c.macs = table.macs(c.channels);
  if (out.exhaustive_best) out.exhaustive_best->macs = table.macs(out.exhaustive_best->channels);
  nats_sss_dp_result dp = nats_sss_chain_dp(table, out.budget);
  out.best = dp.best;
  out.front = std::move(dp.front);
  out.stats += dp.stats;
  if (!out.best && !out.exhaustive_best) {
    out.agree = true;
  } else if (out.best && out.exhaustive_best) {
    out.agree = out.best->index == out.exhaustive_best->index &&
                out.best->nsc == out.exhaustive_best->nsc &&
                out.best->params == out.exhaustive_best->params;
  }
  return out;
}

/// The accuracy (%) of a record on a dataset.
inline double nats_sss_accuracy(const io::nats_sss_record& r, presets::nats_dataset d) {
  switch (d) {
  case presets::nats_dataset::cifar10: return r.cifar10_acc;
  case presets::nats_dataset::cifar100: return r.cifar100_acc;
  case presets::nats_dataset::imagenet16_120: return r.imagenet16_120_acc;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

/// The chosen architecture's accuracy, the best accuracy among the NSC top-k (the paper's
/// "best of its top 10"), and the oracle (best accuracy of every architecture within the
/// budget, by the search's params).
struct nats_sss_accuracy_report {
  double chosen = std::numeric_limits<double>::quiet_NaN();
  nats_sss_candidate best_of_top;
  double best_of_top_accuracy = std::numeric_limits<double>::quiet_NaN();
  std::size_t best_of_top_rank = 0; ///< 1-based rank in the NSC list
  nats_sss_candidate oracle;
  double oracle_accuracy = std::numeric_limits<double>::quiet_NaN();
};

/// Joins a search with the accuracies of `records` (io::read_nats_sss; all 32,768 rows, any
/// order). std::invalid_argument "nsc::search::nats_sss_join_accuracy: ..." when an index is
/// missing, out of range or duplicated, or a row's channels disagree with its index.
inline nats_sss_accuracy_report nats_sss_join_accuracy(const nats_sss_search_result& r,
                                                       const std::vector<io::nats_sss_record>& records,
                                                       presets::nats_dataset dataset) {
  constexpr std::string_view fn = "nsc::search::nats_sss_join_accuracy";
  std::vector<double> acc(presets::nats_sss_size, std::numeric_limits<double>::quiet_NaN());
  for (const auto& rec : records) {
    if (rec.index < 0 || std::size_t(rec.index) >= presets::nats_sss_size)
      throw_invalid_argument(fn, "nats_index must be in [0, 32768)", rec.index);
    const auto i = std::size_t(rec.index);
    if (!std::isnan(acc[i])) throw_invalid_argument(fn, "duplicate nats_index", rec.index);
    if (rec.c != presets::nats_sss_channels(i))
      throw_invalid_argument(fn, "channels disagree with nats_index " + std::to_string(i),
                             rec.channels);
    acc[i] = nats_sss_accuracy(rec, dataset);
  }
  for (std::size_t i = 0; i < acc.size(); ++i)
    if (std::isnan(acc[i])) throw_invalid_argument(fn, "missing nats_index", i);
  nats_sss_accuracy_report out;
  if (r.best) out.chosen = acc[r.best->index];
  for (std::size_t k = 0; k < r.top.size(); ++k) {
    const double a = acc[r.top[k].index];
    if (k == 0 || out.best_of_top_accuracy < a) {
      out.best_of_top_accuracy = a;
      out.best_of_top = r.top[k];
      out.best_of_top_rank = k + 1;
    }
  }
  // The oracle: the best accuracy within the budget (params recomputed from the tables).
  std::optional<nats_sss_candidate> oracle;
  auto visit = [&](std::size_t i, double v, std::int64_t c) {
    if (r.budget && c > *r.budget) return;
    if (!oracle || acc[oracle->index] < acc[i]) {
      if (!oracle) oracle.emplace();
      oracle->index = i;
      oracle->nsc = v;
      oracle->params = c;
    }
  };
  if (r.table) {
    nats_sss_for_each(*r.table, visit);
  } else {
    for (std::size_t i = 0; i < acc.size(); ++i)
      visit(i, i < r.all.nsc.size() ? r.all.nsc[i] : 0.0,
            i < r.all.params.size() ? r.all.params[i] : 0);
  }
  if (oracle) {
    oracle->channels = presets::nats_sss_channels(oracle->index);
    if (r.table) oracle->macs = r.table->macs(oracle->channels);
    out.oracle = *oracle;
    out.oracle_accuracy = acc[oracle->index];
  }
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_NATS_SSS_HPP
