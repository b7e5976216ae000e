/// \file nsc/search/transformer_space.hpp
/// NSC-DP over per-layer choice sets of a Transformer: fixed d_model and depth, and for every
/// layer a list of candidate (d_ff, n_heads[, n_kv_heads, head_dim]) options.
///
/// Synopsis
/// --------
///     nsc::search::transformer_space s = nsc::search::transformer_space::uniform(
///         512, 6, {{2048, 8}, {1024, 8}, {2048, 4, 1}});        // same choices in every layer
///     s.cost = nsc::search::transformer_cost::params;           // or flops (per token at seq_len)
///     auto r = nsc::search::search_transformer_space(s, {.budget = 12e6, .front = true});
///     r.best->layers, r.best->nsc, r.best->params, r.best->flops
///
///     s.costs = {"params", "flops"};                            // several budgets at once
///     auto m = nsc::search::search_transformer_space_budgets(s, {90e6, 230e6}, {.front = true});
///     m.best->costs, m.front, m.top, m.info.describe()          // solve_mmck (multi_knapsack.hpp)
///
/// Cost names come from transformer_cost_registry() (params, flops; a new cost such as KV bytes
/// is one more entry: name, description, function of the option's block and counts).
/// Each option is lowered with make_block (base block_spec: norms, gating, biases, scoring
/// layouts of Q/K/V and the output projection; d_model, d_ff, heads set from the option), scored
/// with nsc::score(layer, rule) and costed with nsc::count(layer): params = total(), flops =
/// 2 x MACs per token at sequence length seq_len (weights plus 2 T n_heads head_dim for the
/// attention products), both integers. Only the layers are searched: embeddings, heads and the
/// final norm are the same for every selection and are not included. Identical options (in any
/// layer) are scored once. The knapsack is solve_mck (exact; costs reduced by their gcd).
///
/// Tie-breaking: lowest option index (in that layer's list) at a DP cell; cheapest cost reaching
/// the best value.
#ifndef NSC_SEARCH_TRANSFORMER_SPACE_HPP
#define NSC_SEARCH_TRANSFORMER_SPACE_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/detail/checked.hpp>
#include <nsc/search/budget_search.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <nsc/search/pareto.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace nsc::search {

/// One candidate layer shape.
struct transformer_layer_choice {
  std::int64_t d_ff = 0;       ///< FFN width (per expert), >= 1
  std::int64_t n_heads = 0;    ///< query heads, >= 1
  std::int64_t n_kv_heads = 0; ///< key/value heads (0: n_heads)
  std::int64_t head_dim = 0;   ///< 0: d_model / n_heads
  bool operator==(const transformer_layer_choice&) const = default;
};

/// What the budget counts.
enum class transformer_cost { params, flops };

constexpr std::string_view to_string(transformer_cost c) noexcept {
  return c == transformer_cost::params ? "params" : "flops";
}

/// Parses "params" or "flops"; std::invalid_argument otherwise.
inline transformer_cost parse_transformer_cost(std::string_view name) {
  if (name == "params") return transformer_cost::params;
  if (name == "flops") return transformer_cost::flops;
  throw_invalid_argument("nsc::search::parse_transformer_cost",
                         "unknown cost; expected params or flops", std::string(name));
}

struct transformer_space;
struct transformer_layer_choice;

/// What a cost function of the registry sees: the space, the option, its lowered block and
/// its counts (nsc::count).
struct transformer_cost_input {
  const transformer_space& space;
  const transformer_layer_choice& choice;
  const layer& block;
  const resources& counts;
};

/// One named cost of a Transformer space's options: an integer >= 0 per layer option.
struct transformer_cost_kind {
  std::string_view name;
  std::string_view description;
  std::int64_t (*compute)(const transformer_cost_input&);
};

namespace detail {
inline std::int64_t transformer_cost_params(const transformer_cost_input& in) {
  return in.counts.total();
}
inline std::int64_t transformer_cost_flops(const transformer_cost_input& in) {
  const double f = 2 * in.counts.macs;
  if (!(std::isfinite(f) && f >= 0 && f < 0x1p62))
    throw_invalid_argument("nsc::search::transformer_space", "FLOPs per token must be finite and < 2^62", f);
  return std::llround(f);
}
} // namespace detail

/// The cost names a SPACE.json "cost" may use. A new cost (e.g. "kv_bytes" once the deployment
/// accounting lands) is one more entry here: a name, a description and the function computing
/// it from the option's block and counts; the reader, the search and the CLI take it from here.
inline const std::vector<transformer_cost_kind>& transformer_cost_registry() {
  static const std::vector<transformer_cost_kind> r{
      {"params", "parameters of the layer (nsc::count total)", &detail::transformer_cost_params},
      {"flops", "2 x multiply-accumulates per token at seq_len", &detail::transformer_cost_flops},
  };
  return r;
}

/// The registry entry named `name`; std::invalid_argument "nsc::search::transformer_cost:
/// unknown cost; expected one of params, flops (got <name>)" otherwise.
inline const transformer_cost_kind& find_transformer_cost(std::string_view name) {
  std::string list;
  for (const auto& k : transformer_cost_registry()) {
    if (k.name == name) return k;
    list.append(list.empty() ? "" : ", ").append(k.name);
  }
  throw_invalid_argument("nsc::search::transformer_cost", "unknown cost; expected one of " + list,
                         std::string(name));
}

/// A per-layer choice space.
struct transformer_space {
  std::int64_t d_model = 0;
  std::vector<std::vector<transformer_layer_choice>> layers; ///< candidate options per layer
  block_spec base{};  ///< everything but the shape: norm, gated, biases, qkv/out layouts, LoRA
  scoring rule{};     ///< default: Xavier of each block, psi_MP (the paper's)
  transformer_cost cost = transformer_cost::params;
  /// Several budgets: registry names (transformer_cost_registry), e.g. {"params", "flops"};
  /// empty: {to_string(cost)}.
  std::vector<std::string> costs{};
  std::int64_t seq_len = 256; ///< T of the attention MACs (flops)

  /// The cost names in use: `costs`, or the single `cost`.
  std::vector<std::string> cost_names() const {
    return costs.empty() ? std::vector<std::string>{std::string(to_string(cost))} : costs;
  }

  /// The same `choices` in each of `n_layers` layers.
  static transformer_space uniform(std::int64_t d_model, std::int64_t n_layers,
                                   const std::vector<transformer_layer_choice>& choices) {
    if (n_layers < 0)
      throw_invalid_argument("nsc::search::transformer_space::uniform", "n_layers must be >= 0",
                             n_layers);
    transformer_space s;
    s.d_model = d_model;
    s.layers.assign(static_cast<std::size_t>(n_layers), choices);
    return s;
  }
};

/// One option's score and costs.
struct transformer_option_info {
  transformer_layer_choice choice;
  double nsc = 0;
  std::int64_t params = 0;
  std::int64_t flops = 0; ///< per token at seq_len
  std::vector<std::int64_t> costs; ///< per name of space.cost_names()
};

/// One selection.
struct transformer_space_candidate {
  std::vector<std::size_t> choice;                 ///< option index per layer
  std::vector<transformer_layer_choice> layers;    ///< the chosen options
  double nsc = 0;
  std::int64_t params = 0;
  std::int64_t flops = 0;
  std::vector<std::int64_t> costs; ///< per name of space.cost_names() (search_..._budgets)
};

/// Settings of search_transformer_space.
struct transformer_space_search_settings {
  std::optional<double> budget; ///< upper bound on the cost (params or flops); nullopt: none
  bool front = false;
  mck_settings mck{};
};

/// Outcome of search_transformer_space.
struct transformer_space_result {
  std::optional<transformer_space_candidate> best; ///< nullopt: nothing fits
  std::vector<transformer_space_candidate> front;  ///< ascending cost, strictly ascending NSC
  std::vector<std::vector<transformer_option_info>> tables; ///< per layer, per option
  std::optional<std::int64_t> budget;
  search_stats stats;
};

/// The block of one option (the base with the option's shape).
inline block_spec transformer_space_block(const transformer_space& s,
                                          const transformer_layer_choice& c) {
  block_spec b = s.base;
  b.attention.d_model = b.ffn.d_model = s.d_model;
  b.attention.n_heads = c.n_heads;
  b.attention.n_kv_heads = c.n_kv_heads;
  b.attention.head_dim = c.head_dim;
  b.ffn.d_ff = c.d_ff;
  return b;
}

/// Scores and costs of every option of every layer (identical options computed once).
/// Errors: std::invalid_argument "nsc::search::transformer_space: layer <i>, option <j>: ..."
/// (make_block's rule, e.g. "attention.n_heads must divide d_model = 512 ... (got 7)").
inline std::vector<std::vector<transformer_option_info>> transformer_space_tables(
    const transformer_space& s, search_stats* stats = nullptr) {
  constexpr std::string_view fn = "nsc::search::transformer_space";
  if (s.d_model < 1) throw_invalid_argument(fn, "d_model must be >= 1", s.d_model);
  if (s.seq_len < 1) throw_invalid_argument(fn, "seq_len must be >= 1", s.seq_len);
  using key = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
  std::vector<const transformer_cost_kind*> kinds;
  for (const auto& n : s.cost_names()) kinds.push_back(&find_transformer_cost(n));
  std::map<key, transformer_option_info> memo;
  psi_cache cache;
  std::vector<std::vector<transformer_option_info>> out(s.layers.size());
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    if (s.layers[i].empty())
      throw_invalid_argument(fn, "layer " + std::to_string(i) + ": needs at least one option");
    for (std::size_t j = 0; j < s.layers[i].size(); ++j) {
      const transformer_layer_choice& c = s.layers[i][j];
      const key k{c.d_ff, c.n_heads, c.n_kv_heads, c.head_dim};
      auto it = memo.find(k);
      if (it == memo.end()) {
        layer l;
        try {
          l = make_block(transformer_space_block(s, c), double(s.seq_len), "layer");
        } catch (const std::invalid_argument& e) {
          throw_invalid_argument(fn, "layer " + std::to_string(i) + ", option " +
                                         std::to_string(j) + ": " + e.what());
        }
        const resources r = count(l);
        transformer_option_info info;
        info.choice = c;
        info.nsc = score(l, s.rule, &cache).nsc;
        const transformer_cost_input in{s, c, l, r};
        info.params = detail::transformer_cost_params(in);
        info.flops = detail::transformer_cost_flops(in);
        for (const auto* kind : kinds) info.costs.push_back(kind->compute(in));
        it = memo.emplace(k, info).first;
        if (stats) ++stats->layer_scores;
      }
      out[i].push_back(it->second);
    }
  }
  return out;
}

namespace detail {
/// The candidate of option indices `choice` (one per layer): layers, NSC summed in layer order,
/// params and FLOPs with checked sums.
inline transformer_space_candidate transformer_space_candidate_of(
    const std::vector<std::vector<transformer_option_info>>& tables,
    const std::vector<std::size_t>& choice, std::string_view fn) {
  transformer_space_candidate c;
  c.choice = choice;
  double v = 0;
  for (std::size_t i = 0; i < choice.size(); ++i) {
    const auto& o = tables[i][choice[i]];
    c.layers.push_back(o.choice);
    v += o.nsc;
    c.params = nsc::detail::checked_add(c.params, o.params, fn, "params");
    c.flops = nsc::detail::checked_add(c.flops, o.flops, fn, "flops");
  }
  c.nsc = v;
  return c;
}
} // namespace detail

/// NSC-DP over the space (see the file comment). Errors: those of transformer_space_tables, a
/// budget that is not finite and >= 0, the knapsack's (memory cap: the DP has one cell per
/// distinct reachable cost / gcd, so very fine-grained costs with a huge budget are refused).
inline transformer_space_result search_transformer_space(
    const transformer_space& s, const transformer_space_search_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::search::search_transformer_space";
  transformer_space_result out;
  out.stats.outer_configs = 1;
  out.tables = transformer_space_tables(s, &out.stats);
  const bool flops = s.cost == transformer_cost::flops;
  mck_groups<double> groups(out.tables.size());
  std::int64_t reachable = 0;
  for (std::size_t i = 0; i < out.tables.size(); ++i) {
    std::int64_t largest = 0;
    for (const auto& o : out.tables[i]) {
      const std::int64_t c = flops ? o.flops : o.params;
      groups[i].push_back({o.nsc, c});
      largest = std::max(largest, c);
    }
    reachable = nsc::detail::checked_add(reachable, largest, fn, "the largest total cost");
  }
  // a budget at or above the reachable total constrains nothing (and may exceed 2^62)
  if (settings.budget && !(*settings.budget >= double(reachable)))
    out.budget = budget_floor(*settings.budget, fn);
  const std::int64_t B = out.budget ? *out.budget : reachable;
  const mck_result<double> r = solve_mck(groups, B, settings.mck);
  out.stats.add(r, groups);
  auto make = [&](const std::vector<std::size_t>& choice) {
    return detail::transformer_space_candidate_of(out.tables, choice, fn);
  };
  if (const auto ch = r.choice(B)) out.best = make(*ch);
  if (settings.front)
    for (const auto& p : r.front()) out.front.push_back(make(*r.choice(p.cost)));
  return out;
}

/// Outcome of search_transformer_space_budgets.
struct transformer_space_budgets_result {
  std::optional<transformer_space_candidate> best;  ///< nullopt: infeasible
  std::vector<transformer_space_candidate> front;   ///< the Pareto set (with settings.front)
  std::vector<transformer_space_candidate> top;     ///< the k best (with settings.top)
  std::vector<std::string> top_orderings;           ///< per top entry: count_orderings (decimal)
  std::vector<std::string> cost_names;              ///< space.cost_names()
  std::vector<std::int64_t> budget;                 ///< the vector solved (limits, clamped)
  std::vector<std::vector<transformer_option_info>> tables;
  mmck_info info;
  double front_epsilon = 0;  ///< the front's guarantee (0: exact; solve_mmck_front)
  search_stats stats;
};

/// NSC-DP over the space under one budget per name of space.cost_names() at once (nullopt or a
/// missing entry: unlimited; a budget is floored to an integer, never rounded up). The engine is
/// solve_mmck through search_budgets (algorithm and tie rule: multi_knapsack.hpp). Candidates
/// carry params, flops and `costs` (per name). NSC is summed in layer order.
/// Errors: those of transformer_space_tables, a budget not finite and >= 0 (naming the cost),
/// more budgets than names, the engine's.
inline transformer_space_budgets_result search_transformer_space_budgets(
    const transformer_space& s, const std::vector<std::optional<double>>& budgets,
    const budget_search_settings& settings = {}) {
  constexpr std::string_view fn = "nsc::search::search_transformer_space_budgets";
  transformer_space_budgets_result out;
  out.cost_names = s.cost_names();
  const std::size_t K = out.cost_names.size();
  if (K < 1 || K > mmck_max_dims)
    throw_invalid_argument(fn, "needs 1 to " + std::to_string(mmck_max_dims) + " cost names", K);
  if (budgets.size() > K) throw_invalid_argument(fn, "more budgets than cost names", budgets.size());
  out.stats.outer_configs = 1;
  out.tables = transformer_space_tables(s, &out.stats);
  mmck_groups<double> groups(out.tables.size());
  for (std::size_t i = 0; i < out.tables.size(); ++i)
    for (const auto& o : out.tables[i]) groups[i].push_back({o.nsc, o.costs});
  const auto reach = budget_reachable(groups, K);
  std::vector<std::optional<std::int64_t>> limits(K);
  for (std::size_t k = 0; k < budgets.size(); ++k) {
    if (!budgets[k]) continue;
    const double b = *budgets[k];
    if (!(std::isfinite(b) && b >= 0))
      throw_invalid_argument(fn, "budget '" + out.cost_names[k] + "' must be finite and >= 0", b);
    if (b >= double(reach[k])) continue;  // constrains nothing
    limits[k] = budget_floor(b, fn);
  }
  const auto r = search_budgets(groups, limits, settings);
  out.budget = r.budget;
  out.info = r.info;
  out.front_epsilon = r.front_epsilon;
  ++out.stats.dp_runs;
  out.stats.cells += r.info.path == mmck_path::sparse ? r.info.states : r.info.cells;
  out.stats.cell_updates += r.info.work;
  auto make = [&](const budget_selection<double>& x) {
    transformer_space_candidate c = detail::transformer_space_candidate_of(out.tables, x.choice, fn);
    c.costs = x.cost;
    return c;
  };
  if (r.best) out.best = make(*r.best);
  for (const auto& x : r.front) out.front.push_back(make(x));
  for (const auto& x : r.top) out.top.push_back(make(x));
  out.top_orderings = r.top_orderings;
  return out;
}

} // namespace nsc::search

#endif // NSC_SEARCH_TRANSFORMER_SPACE_HPP
