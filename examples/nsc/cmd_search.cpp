// nsc search: NSC-DP, the exact search of the best architecture under a budget.
//
//   nsc search txl [--params 38.4e6] [--tolerance 0.05] [--json] [--front]
//   nsc search autoformer --space tiny|small|base [--params X] [--method factored|joint]
//                         [--json] [--front]
//   nsc search nats-sss [--params B] [--dataset cifar10|cifar100|imagenet16-120]
//                       [--protocol xautodl|reference-fr|reference-1x1] [--top K]
//                       [--data PATH] [--json] [--front]
//   nsc search --space SPACE.json [--budget NAME=VALUE]... [--front] [--top K [--min-distance D]]
//                                 [--json]
//
// txl, autoformer and nats-sss are the paper's searches (reference-conventions.md, "The
// searches"; nsc/search/{transformer_xl,autoformer,nats_sss}.hpp). --space runs the generic
// search on a SPACE.json (nsc/io/search_space.hpp): named groups of (value, cost) options, or a
// Transformer with per-layer (d_ff, n_heads[, n_kv_heads]) choices.
//
// Output: a human-readable summary (default), or with --json ONE object: nsc, params (and
// flops / tflops where defined), the architecture's own fields (txl: d_model, n_layer, d_inner;
// autoformer: embed_dim, depth, mlp_ratio, num_heads; nats-sss: channels, arch), time_seconds,
// stats, and with --front the list of such objects under "front" (ascending params). Every
// command prints the time the search took (parsing and file reading excluded). A budget that
// nothing meets prints "nsc: infeasible: ..." on stderr and exits with status 1.
#include "cli.hpp"
#include "units_option.hpp"

#include <nsc/io/block_library.hpp>
#include <nsc/io/nats_sss.hpp>
#include <nsc/io/search_space.hpp>
#include <nsc/presets/autoformer.hpp>
#include <nsc/presets/nats_sss.hpp>
#include <nsc/presets/transformer_xl.hpp>
#include <nsc/search/autoformer.hpp>
#include <nsc/search/common.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/search/budget_search.hpp>
#include <nsc/search/groups.hpp>
#include <nsc/search/nats_sss.hpp>
#include <nsc/search/transformer_space.hpp>
#include <nsc/search/transformer_xl.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nsc_cli::grouped;
using nsc_cli::time_text;

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// 40211712 -> "40.21M", 5690097664 -> "5.690098B".
std::string human(double v) {
  char buf[64];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.6fB", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// A multiset of per-layer values, largest count first: "8256 x 30, 9632 x 2".
template <class T>
std::string multiset(const std::vector<T>& v) {
  std::map<T, std::size_t> counts;
  for (const T& x : v) ++counts[x];
  std::vector<std::pair<T, std::size_t>> items(counts.begin(), counts.end());
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::ostringstream os;
  for (std::size_t i = 0; i < items.size(); ++i)
    os << (i ? ", " : "") << items[i].first << " x " << items[i].second;
  return os.str();
}

template <class T>
std::string list_text(const std::vector<T>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

nlohmann::json stats_json(const nsc::search::search_stats& s) {
  return {{"outer_configs", s.outer_configs}, {"skipped", s.skipped}, {"bounded", s.bounded},
          {"dp_runs", s.dp_runs},             {"cells", s.cells},
          {"cell_updates", s.cell_updates},   {"layer_scores", s.layer_scores},
          {"candidates", s.candidates}};
}

void print_work(const nsc::search::search_stats& s) {
  std::printf("work     %zu outer configurations (%zu cannot meet the budget%s), %zu DP%s, "
              "%s cells, %s cell updates, %zu layer scores\n",
              s.outer_configs, s.skipped,
              s.bounded ? (", " + std::to_string(s.bounded) + " cannot beat the best (bound)").c_str() : "",
              s.dp_runs, s.dp_runs == 1 ? "" : "s", grouped(std::int64_t(s.cells)).c_str(),
              grouped(std::int64_t(s.cell_updates)).c_str(), s.layer_scores);
}

/// Indices of at most `rows` points spread evenly over n (first and last included).
std::vector<std::size_t> sample_rows(std::size_t n, std::size_t rows) {
  std::vector<std::size_t> out;
  if (n <= rows) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (std::size_t k = 0; k < rows; ++k) out.push_back(k * (n - 1) / (rows - 1));
  return out;
}

int infeasible(const std::string& what) {
  std::fprintf(stderr, "nsc: infeasible: %s\n", what.c_str());
  return 1;
}

// ---- txl ---------------------------------------------------------------------------------

struct txl_args {
  double params = 38.4e6;
  double tolerance = 0.05;
  bool json = false;
  bool front = false;
};

nlohmann::json txl_json(const nsc::search::transformer_xl_candidate& c) {
  return {{"nsc", c.nsc},
          {"params", c.params},
          {"d_model", c.d_model},
          {"n_layer", c.n_layer()},
          {"d_inner", c.d_inner}};
}

/// The JSON answer of a paper search: its time, work and (with --front) every front point as
/// `to_json` gives it.
template <class Point, class ToJson>
int print_search_json(nlohmann::json j, double secs, const nsc::search::search_stats& stats, bool front,
                      const std::vector<Point>& points, const ToJson& to_json) {
  j["time_seconds"] = secs;
  j["stats"] = stats_json(stats);
  if (front) {
    nlohmann::json f = nlohmann::json::array();
    for (const Point& c : points) f.push_back(to_json(c));
    j["front"] = std::move(f);
  }
  nsc_cli::print_json(j);
  return 0;
}

int run_txl(const txl_args& a) {
  auto space = nsc::presets::transformer_xl_reference_search_space();
  space.budget = a.params;
  space.tolerance = a.tolerance;
  const auto t0 = clock_type::now();
  const auto r = nsc::search::search_transformer_xl(space, {.front = a.front, .mck = {}});
  const double secs = seconds_since(t0);
  if (!r.best)
    return infeasible("no Transformer-XL of the space has params in [" + grouped(r.band_lo) +
                      ", " + grouped(r.band_hi) + "]");
  if (a.json) {
    nlohmann::json j = txl_json(*r.best);
    j["search"] = "transformer-xl";
    j["budget"] = a.params;
    j["tolerance"] = a.tolerance;
    j["band"] = {r.band_lo, r.band_hi};
    return print_search_json(std::move(j), secs, r.stats, a.front, r.front, txl_json);
  }
  const auto& b = *r.best;
  std::printf("NSC-DP   Transformer-XL, search convention (psi_.02, merged QKV; params "
              "L (4 d^2 + 9 d) + sum_l d_inner_l (2 d + 1))\n");
  std::printf("space    d_model %s x n_layer %s, per layer d_inner from %zu values %s\n",
              list_text(space.d_model).c_str(), list_text(space.n_layer).c_str(),
              space.d_inner.size(), list_text(space.d_inner).c_str());
  std::printf("budget   %s +- %g%%: params in [%s, %s]\n", grouped(std::llround(a.params)).c_str(),
              a.tolerance * 100, grouped(r.band_lo).c_str(), grouped(r.band_hi).c_str());
  std::printf("best     d_model %lld, n_layer %zu, d_inner %s\n", static_cast<long long>(b.d_model),
              b.n_layer(), multiset(b.d_inner).c_str());
  std::printf("         params %s (%s), NSC %.6f\n", grouped(b.params).c_str(),
              human(double(b.params)).c_str(), b.nsc);
  if (a.front) {
    std::printf("front    %zu points (NSC-optimal for every budget <= %s)%s\n", r.front.size(),
                grouped(r.band_hi).c_str(), r.front.size() > 25 ? "; --json lists all" : "");
    std::printf("         %14s %12s %8s %8s  %s\n", "params", "NSC", "d_model", "n_layer", "d_inner");
    for (std::size_t i : sample_rows(r.front.size(), 25)) {
      const auto& c = r.front[i];
      std::printf("         %14s %12.4f %8lld %8zu  %s\n", grouped(c.params).c_str(), c.nsc,
                  static_cast<long long>(c.d_model), c.n_layer(), multiset(c.d_inner).c_str());
    }
  }
  print_work(r.stats);
  std::printf("time     %s\n", time_text(secs).c_str());
  return 0;
}

// ---- autoformer --------------------------------------------------------------------------

struct autoformer_args {
  std::string space;
  std::optional<double> params;
  std::string method = "factored";
  bool json = false;
  bool front = false;
};

nlohmann::json af_json(const nsc::search::autoformer_candidate& c) {
  return {{"nsc", c.nsc},
          {"params", c.params},
          {"embed_dim", c.arch.embed_dim},
          {"depth", c.arch.depth()},
          {"mlp_ratio", c.arch.mlp_ratio},
          {"num_heads", c.arch.num_heads}};
}

int run_autoformer(const autoformer_args& a) {
  const auto space = nsc::search::autoformer_space(a.space);
  nsc::search::autoformer_search_settings s;
  s.param_limit = a.params;
  s.front = a.front;
  s.method = nsc::search::parse_autoformer_method(a.method);
  const auto t0 = clock_type::now();
  const auto r = nsc::search::search_autoformer(space, s);
  const double secs = seconds_since(t0);
  if (!r.best)
    return infeasible("no AutoFormer-" + a.space + " subnet has at most " + grouped(r.limit) +
                      " params");
  if (a.json) {
    nlohmann::json j = af_json(*r.best);
    j["search"] = "autoformer";
    j["space"] = a.space;
    j["limit"] = r.limit;
    j["method"] = a.method;
    return print_search_json(std::move(j), secs, r.stats, a.front, r.front, af_json);
  }
  const auto& b = *r.best;
  std::string title = a.space;
  if (!title.empty()) title[0] = char(title[0] - 'a' + 'A');
  std::printf("NSC-DP   AutoFormer-%s, search convention (head dim 64, psi_X; fixed 969 e params "
              "and psi_X(e, 768))\n",
              title.c_str());
  std::printf("space    embed_dim %s x depth %s, per layer mlp_ratio %s x num_heads %s\n",
              list_text(space.embed_dim).c_str(), list_text(space.depth).c_str(),
              list_text(space.mlp_ratio).c_str(), list_text(space.num_heads).c_str());
  std::printf("limit    %s params%s\n", grouped(r.limit).c_str(),
              a.params ? "" : " (the space's default)");
  std::printf("best     embed_dim %lld, depth %zu\n", static_cast<long long>(b.arch.embed_dim),
              b.arch.depth());
  std::printf("         mlp_ratio %s\n", list_text(b.arch.mlp_ratio).c_str());
  std::printf("         num_heads %s\n", list_text(b.arch.num_heads).c_str());
  std::printf("         params %s (%s), NSC %.6f\n", grouped(b.params).c_str(),
              human(double(b.params)).c_str(), b.nsc);
  if (a.front) {
    std::printf("front    %zu points (NSC-optimal for every budget <= %s)%s\n", r.front.size(),
                grouped(r.limit).c_str(), r.front.size() > 25 ? "; --json lists all" : "");
    std::printf("         %14s %12s %9s %5s  %-22s %s\n", "params", "NSC", "embed_dim", "depth",
                "mlp_ratio", "num_heads");
    for (std::size_t i : sample_rows(r.front.size(), 25)) {
      const auto& c = r.front[i];
      std::printf("         %14s %12.4f %9lld %5zu  %-22s %s\n", grouped(c.params).c_str(), c.nsc,
                  static_cast<long long>(c.arch.embed_dim), c.arch.depth(),
                  multiset(c.arch.mlp_ratio).c_str(), multiset(c.arch.num_heads).c_str());
    }
  }
  std::printf("method   %s\n", a.method == "factored"
                                   ? "factored (attention and FFN knapsacks per (embed_dim, "
                                     "depth), fronts combined; exact)"
                                   : "joint (one knapsack of (mlp_ratio, num_heads) options per "
                                     "(embed_dim, depth), the paper's)");
  print_work(r.stats);
  std::printf("time     %s\n", time_text(secs).c_str());
  return 0;
}

// ---- nats-sss ----------------------------------------------------------------------------

struct nats_args {
  std::optional<double> params;
  std::string dataset = "cifar10";
  std::string protocol = "xautodl";
  std::size_t top = 10;
  std::string data;
  bool json = false;
  bool front = false;
};

nsc::presets::nats_dataset dataset_of(const std::string& name) {
  if (name == "imagenet16-120") return nsc::presets::nats_dataset::imagenet16_120;
  return nsc::presets::parse_nats_dataset(name);
}

std::string default_nats_data() {
  return std::string(nsc_cli::source_dir()) + "/../shared/data/nats-bench-sss/nats_sss_32768.csv";
}

int run_nats(const nats_args& a) {
  const auto dataset = dataset_of(a.dataset);
  nsc::search::nats_sss_search_settings s;
  s.net = nsc::search::nats_sss_protocol_options(a.protocol, dataset);
  s.max_params = a.params;
  s.top_k = a.top;
  const auto t0 = clock_type::now();
  const auto r = nsc::search::search_nats_sss(s);
  const double secs = seconds_since(t0);

  // Accuracies (optional): a missing default file is skipped, a missing --data is an error.
  std::optional<nsc::search::nats_sss_accuracy_report> acc;
  std::vector<nsc::io::nats_sss_record> records;
  const std::string data_path = a.data.empty() ? default_nats_data() : a.data;
  if (!a.data.empty() || std::filesystem::exists(data_path)) {
    records = nsc::io::read_nats_sss(data_path);
    acc = nsc::search::nats_sss_join_accuracy(r, records, dataset);
  }

  if (!r.best)
    return infeasible("no NATS-SSS architecture has at most " + grouped(*r.budget) + " params");
  auto cand_json = [&](const nsc::search::nats_sss_candidate& c) {
    return nlohmann::json{{"nsc", c.nsc},
                          {"params", c.params},
                          {"flops", 2 * c.macs},
                          {"channels", std::vector<std::int64_t>(c.channels.begin(), c.channels.end())},
                          {"arch", c.arch()},
                          {"index", c.index}};
  };
  const std::string acc_key = std::string(nsc::presets::to_string(dataset)) + "_acc";
  if (a.json) {
    nlohmann::json j = cand_json(*r.best);
    j["search"] = "nats-sss";
    j["dataset"] = std::string(nsc::presets::to_string(dataset));
    j["protocol"] = a.protocol;
    j["budget"] = r.budget ? nlohmann::json(*r.budget) : nlohmann::json(nullptr);
    j["agree"] = r.agree;
    j["exhaustive"] = r.exhaustive_best ? cand_json(*r.exhaustive_best) : nlohmann::json(nullptr);
    nlohmann::json top = nlohmann::json::array();
    for (const auto& c : r.top) top.push_back(cand_json(c));
    j["top"] = std::move(top);
    if (acc) {
      j["accuracy"] = {{"dataset", std::string(nsc::presets::to_string(dataset))},
                       {"chosen", acc->chosen},
                       {"best_of_top", acc->best_of_top_accuracy},
                       {"best_of_top_arch", acc->best_of_top.arch()},
                       {"best_of_top_rank", acc->best_of_top_rank},
                       {"oracle", acc->oracle_accuracy},
                       {"oracle_arch", acc->oracle.arch()}};
    }
    return print_search_json(std::move(j), secs, r.stats, a.front, r.front, cand_json);
  }
  std::printf("NSC-DP   NATS-Bench SSS, %s, protocol %s (wiring %s, skip %s), paper scoring "
              "(psi_X per conv matrix, classifier scored)\n",
              std::string(nsc::presets::to_string(dataset)).c_str(), a.protocol.c_str(),
              std::string(nsc::presets::to_string(s.net.wiring)).c_str(),
              std::string(nsc::to_string(s.net.skip)).c_str());
  std::printf("budget   %s\n",
              r.budget ? (grouped(*r.budget) + " params").c_str() : "none (unconstrained)");
  const auto& e = *r.exhaustive_best;
  const auto& b = *r.best;
  std::printf("exhaustive  32,768 architectures scored: best %s, NSC %.6f, %s params\n",
              e.arch().c_str(), e.nsc, grouped(e.params).c_str());
  std::printf("chain DP    best %s, NSC %.6f, %s params, %.4g MFLOPs (front: %zu points)\n",
              b.arch().c_str(), b.nsc, grouped(b.params).c_str(), 2 * b.macs / 1e6,
              r.front.size());
  std::printf("agreement   exhaustive == DP: %s\n", r.agree ? "yes (same architecture, NSC bit "
                                                             "for bit, params)"
                                                           : "NO");
  std::map<std::size_t, double> acc_of;
  for (const auto& rec : records)
    acc_of[std::size_t(rec.index)] = nsc::search::nats_sss_accuracy(rec, dataset);
  std::printf("top-%zu by NSC:\n", r.top.size());
  std::printf("  %4s  %-16s %12s %10s%s\n", "rank", "channels", "NSC", "params",
              acc ? ("  " + acc_key).c_str() : "");
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    const auto& c = r.top[i];
    std::printf("  %4zu  %-16s %12.6f %10s", i + 1, c.arch().c_str(), c.nsc,
                grouped(c.params).c_str());
    if (acc) std::printf("  %.2f", acc_of[c.index]);
    std::printf("\n");
  }
  if (a.front) {
    std::printf("front    %zu points%s\n", r.front.size(),
                r.front.size() > 25 ? " (sampled; --json lists all)" : "");
    for (std::size_t i : sample_rows(r.front.size(), 25)) {
      const auto& c = r.front[i];
      std::printf("  %10s  %12.6f  %s\n", grouped(c.params).c_str(), c.nsc, c.arch().c_str());
    }
  }
  if (acc) {
    std::printf("accuracy (%s, %s):\n", acc_key.c_str(), data_path.c_str());
    const std::string top_label = "best of NSC top-" + std::to_string(r.top.size());
    std::printf("  %-24s %7.3f  %s\n", "chosen (NSC top-1)", acc->chosen, b.arch().c_str());
    std::printf("  %-24s %7.3f  %s (rank %zu)\n", top_label.c_str(), acc->best_of_top_accuracy,
                acc->best_of_top.arch().c_str(), acc->best_of_top_rank);
    std::printf("  %-24s %7.3f  %s\n", r.budget ? "oracle (within budget)" : "oracle",
                acc->oracle_accuracy, acc->oracle.arch().c_str());
  } else {
    std::printf("accuracy    no data (%s not found; --data PATH)\n", data_path.c_str());
  }
  std::printf("work     32,768 architectures, chain DP %s states, %s transitions\n",
              grouped(std::int64_t(r.stats.cells)).c_str(),
              grouped(std::int64_t(r.stats.cell_updates)).c_str());
  std::printf("time     %s (tables, exhaustive scoring, chain DP)\n", time_text(secs).c_str());
  return 0;
}

// ---- generic --space ---------------------------------------------------------------------

struct generic_args {
  std::string space;
  std::vector<std::string> budgets;  ///< "NAME=VALUE" or a bare number (the single cost)
  bool json = false;
  bool front = false;
  std::size_t top = 0;
  std::size_t min_distance = 0;
  bool positions = false;  ///< --positions: identical groups' choices in another order are separate --top entries
  double front_epsilon = 0;
  double max_memory = double(std::size_t{1} << 30);
  double max_work = 5e8;
  std::string library;                    ///< --library FILE.json (block_library.json layout)
  std::string objective = "metrics.kl_div";
  bool minimize = false;
};

/// A budget value >= 0 with units (1.5e9, 24GiB, 8B); no percentage (no reference model).
/// Units (nsc/io/units.hpp): bytes for a cost whose name says so (bytes, memory, kv), else a count.
double parse_budget_value(const std::string& text, const std::string& what) {
  const bool bytes = what.find("byte") != std::string::npos || what.find("memory") != std::string::npos ||
                     what.find("kv") != std::string::npos;
  const std::string where = "nsc search: --budget " + what;
  // no upper limit here: a budget above every cost is no constraint (1e300)
  const nsc::io::quantity q =
      nsc::io::parse_quantity(text, bytes ? nsc::io::quantity_kind::bytes : nsc::io::quantity_kind::count, where);
  if (q.relative) throw std::invalid_argument(where + ": a percentage needs a reference model (nsc prune has one)");
  return q.value;
}

/// The budgets per cost name: the file's, overridden by each --budget NAME=VALUE (a bare number
/// is the single cost's budget).
std::vector<std::optional<double>> resolve_budgets(const nsc::io::search_space_file& f,
                                                   const std::vector<std::string>& args) {
  std::vector<std::optional<double>> out = f.budgets;
  out.resize(f.cost_names.size());
  std::string names;
  for (const auto& n : f.cost_names) names += (names.empty() ? "" : ", ") + n;
  for (const std::string& a : args) {
    const auto eq = a.find('=');
    if (eq == std::string::npos) {
      if (f.cost_names.size() != 1)
        throw std::invalid_argument("nsc search: --budget " + nsc::io::excerpt(a, 40) + ": " + f.name +
                                    " has several costs (" + names + "); give --budget NAME=VALUE");
      out[0] = parse_budget_value(a, f.cost_names[0]);
      continue;
    }
    const std::string name = a.substr(0, eq);
    std::size_t k = f.cost_names.size();
    for (std::size_t i = 0; i < f.cost_names.size(); ++i)
      if (f.cost_names[i] == name) k = i;
    if (k == f.cost_names.size())
      throw std::invalid_argument("nsc search: --budget " + nsc::io::excerpt(a, 40) + ": unknown cost '" +
                                  nsc::io::excerpt(name, 40) + "' (the costs of " + f.name + " are " + names + ")");
    out[k] = parse_budget_value(a.substr(eq + 1), name);
  }
  return out;
}

/// "params <= 1,000 and kv_bytes <= 64" (unlimited names left out; "no budget" if none).
std::string budgets_text(const std::vector<std::string>& names, const std::vector<std::optional<double>>& b) {
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (!b[k]) continue;
    out += (out.empty() ? "" : " and ") + names[k] + " <= " +
           (*b[k] == std::floor(*b[k]) && *b[k] < 9e18 ? grouped(std::llround(*b[k])) : nsc_cli::fmt(*b[k]));
  }
  return out.empty() ? "no budget" : out;
}

nlohmann::json budgets_json(const std::vector<std::string>& names, const std::vector<std::optional<double>>& b) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t k = 0; k < names.size(); ++k) j[names[k]] = b[k] ? nlohmann::json(*b[k]) : nlohmann::json(nullptr);
  return j;
}

template <class T>
nlohmann::json costs_json(const std::vector<std::string>& names, const std::vector<T>& c) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t k = 0; k < names.size(); ++k) j[names[k]] = c[k];
  return j;
}

nlohmann::json engine_json(const nsc::search::mmck_info& i) {
  return {{"algorithm", i.describe()},
          {"path", std::string(nsc::search::to_string(i.path))},
          {"identical_groups", i.identical},
          {"bounded", i.bounded},
          {"classes", i.classes},
          {"cells", i.cells},
          {"states", i.states},
          {"candidates", i.candidates},
          {"peak_bytes", i.peak_bytes},
          {"choice", i.reason}};
}

void print_engine(const nsc::search::mmck_info& i) {
  std::printf("engine   %s: %s cells, %s states, %s candidates, peak %s bytes\n", i.describe().c_str(),
              grouped(std::int64_t(i.cells)).c_str(), grouped(std::int64_t(i.states)).c_str(),
              grouped(std::int64_t(i.candidates)).c_str(), grouped(std::int64_t(i.peak_bytes)).c_str());
  if (!i.reason.empty()) std::printf("         cost model: %s\n", i.reason.c_str());
}

int infeasible_json(bool json, const nsc::io::search_space_file& f, const std::string& search,
                    const std::vector<std::optional<double>>& b) {
  if (json)
    nsc_cli::print_json({{"status", "infeasible"}, {"search", search}, {"space", f.name},
                         {"budgets", budgets_json(f.cost_names, b)}});
  return infeasible("no selection of " + f.name + " has " + budgets_text(f.cost_names, b));
}

/// The --top header's note on identical groups (none with --positions).
const char* top_note(const generic_args& a) {
  return a.positions ? " (--positions: identical groups' choices in another order are separate)"
                     : " (identical groups interchangeable: one per multiset of their choices; --positions lists orderings)";
}

/// The JSON answer's --top list (each selection with its orderings) and --front (streamed: no
/// front-sized JSON tree), printed; `cand_json(c)` is one selection's object.
template <class Result, class CandJson>
int print_answer_json(nlohmann::json j, const generic_args& a, const Result& r, const CandJson& cand_json) {
  if (a.top) {
    nlohmann::json tp = nlohmann::json::array();
    for (std::size_t i = 0; i < r.top.size(); ++i) {
      tp.push_back(cand_json(r.top[i]));
      tp.back()["orderings"] = nsc_cli::orderings_json(r.top_orderings[i]);
    }
    j["top"] = std::move(tp);
  }
  if (a.front)
    nsc_cli::print_json_streamed(std::move(j), "front", r.front.size(), [&](std::size_t i) { return cand_json(r.front[i]); });
  else
    nsc_cli::print_json(j);
  return 0;
}

/// The text --top list: its header (distance in `unit`), a row per selection (`row(c)`) and the
/// ties of their values (`value_of(c)`, named `value_name`).
template <class Result, class Row, class Value>
void print_top_list(const generic_args& a, const Result& r, const char* unit, const Row& row, const Value& value_of,
                    const char* value_name) {
  std::printf("top      %zu best selections%s%s\n", r.top.size(),
              a.min_distance > 1 ? (" at distance >= " + std::to_string(a.min_distance) + unit).c_str() : "", top_note(a));
  std::vector<double> values;
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    std::printf("         %2zu  %s\n", i + 1, row(r.top[i]).c_str());
    values.push_back(value_of(r.top[i]));
  }
  if (!a.positions) nsc_cli::print_ties(values, r.top_orderings, r.top.size() == a.top, value_name);
}

/// The text --front list of a groups or Transformer space (25 rows at most, `row(c)` each).
template <class Result, class Row>
void print_front_list(const Result& r, const Row& row) {
  std::printf("front    %zu Pareto points%s%s\n", r.front.size(),
              r.front_epsilon > 0 ? (" (an epsilon-front: every selection whose costs x (1 + " + nsc_cli::fmt(r.front_epsilon) +
                                     ") fit has a listed one within that factor in each cost with >= its value)").c_str() : "",
              r.front.size() > 25 ? " (sampled; --json lists all)" : "");
  for (std::size_t i : sample_rows(r.front.size(), 25)) std::printf("         %s\n", row(r.front[i]).c_str());
}

/// printf into a std::string (the rows of the lists above).
template <class... T>
std::string printf_text(const char* format, T... v) {
  const int n = std::snprintf(nullptr, 0, format, v...);
  std::string out(std::size_t(n > 0 ? n : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, format, v...);
  return out;
}

/// The solver settings of --front, --top, --min-distance, --front-epsilon, --max-memory, --max-work.
nsc::search::budget_search_settings search_settings(const generic_args& a) {
  nsc::search::budget_search_settings bs;
  bs.front = a.front;
  bs.top = a.top;
  bs.min_distance = a.min_distance;
  bs.positions = a.positions;
  bs.front_epsilon = a.front_epsilon;
  bs.mmck.max_table_bytes = std::size_t(a.max_memory);
  bs.mmck.max_work = std::uint64_t(a.max_work);
  return bs;
}

int run_generic(const generic_args& a) {
  const nsc::io::search_space_file f = nsc::io::read_search_space_file(a.space);
  const auto budgets = resolve_budgets(f, a.budgets);
  const auto& names = f.cost_names;
  const bool single = names.size() == 1;
  const nsc::search::budget_search_settings bs = search_settings(a);
  if (f.type == nsc::io::search_space_file::kind::groups) {
    nsc::search::groups_budgets_settings s;
    s.cost_names = names;
    s.budgets = budgets;
    s.resolution = f.resolution;
    s.search = bs;
    const auto t0 = clock_type::now();
    const auto r = nsc::search::search_groups_budgets(f.groups, s);
    const double secs = seconds_since(t0);
    if (!r.best) return infeasible_json(a.json, f, "groups", budgets);
    auto cand_json = [&](const nsc::search::groups_budgets_candidate& c) {
      nlohmann::json choice = nlohmann::json::array();
      for (std::size_t g = 0; g < c.choice.size(); ++g)
        choice.push_back({{"group", f.groups[g].name}, {"option", f.groups[g].options[c.choice[g]].name}});
      nlohmann::json j{{"nsc", c.value}, {"costs", costs_json(names, c.costs)}, {"choice", std::move(choice)}};
      if (single) j["cost"] = c.costs[0];
      return j;
    };
    if (a.json) {
      nlohmann::json j = cand_json(*r.best);
      j["status"] = "optimal";
      j["best"] = cand_json(*r.best);
      j["search"] = "groups";
      j["space"] = f.name;
      j["budget"] = single ? (budgets[0] ? nlohmann::json(*budgets[0]) : nlohmann::json(nullptr))
                           : budgets_json(names, budgets);
      j["budgets"] = budgets_json(names, budgets);
      j["resolution"] = f.resolution;
      j["time_seconds"] = secs;
      j["engine"] = engine_json(r.info);
      return print_answer_json(std::move(j), a, r, cand_json);
    }
    auto costs_text = [&](const nsc::search::groups_budgets_candidate& c) {
      std::string t;
      for (std::size_t k = 0; k < names.size(); ++k) t += (k ? ", " : "") + names[k] + " " + nsc_cli::fmt(c.costs[k]);
      return t;
    };
    std::printf("NSC-DP   %s: %zu groups, values and costs from %s\n", f.name.c_str(), f.groups.size(),
                a.space.c_str());
    std::printf("budget   %s\n", budgets_text(names, budgets).c_str());
    std::printf("best     value %.10g, %s\n", r.best->value, costs_text(*r.best).c_str());
    for (std::size_t g = 0; g < f.groups.size(); ++g)
      std::printf("         %-20s %s\n", f.groups[g].name.c_str(), f.groups[g].options[r.best->choice[g]].name.c_str());
    const auto row = [&](const nsc::search::groups_budgets_candidate& c) {
      return printf_text("value %-14.10g %s", c.value, costs_text(c).c_str());
    };
    if (a.front) print_front_list(r, row);
    if (a.top)
      print_top_list(a, r, "", row, [](const nsc::search::groups_budgets_candidate& c) { return c.value; }, "value");
    print_engine(r.info);
    std::printf("time     %s\n", time_text(secs).c_str());
    return 0;
  }
  const auto& sp = f.transformer;
  const auto t0 = clock_type::now();
  const auto r = nsc::search::search_transformer_space_budgets(sp, budgets, bs);
  const double secs = seconds_since(t0);
  if (!r.best) return infeasible_json(a.json, f, "transformer", budgets);
  auto cand_json = [&](const nsc::search::transformer_space_candidate& c) {
    nlohmann::json layers = nlohmann::json::array();
    std::vector<std::int64_t> dff, heads;
    for (const auto& l : c.layers) {
      layers.push_back({{"d_ff", l.d_ff}, {"n_heads", l.n_heads}, {"n_kv_heads", l.n_kv_heads},
                        {"head_dim", l.head_dim}});
      dff.push_back(l.d_ff);
      heads.push_back(l.n_heads);
    }
    nlohmann::json j{{"nsc", c.nsc},       {"params", c.params}, {"flops", c.flops},
                     {"costs", costs_json(names, c.costs)},  {"d_ff", dff},
                     {"n_heads", heads},   {"layers", std::move(layers)}, {"choice", c.choice}};
    if (single) j["cost"] = c.costs[0];
    return j;
  };
  if (a.json) {
    nlohmann::json j = cand_json(*r.best);
    j["status"] = "optimal";
    j["best"] = cand_json(*r.best);
    j["search"] = "transformer";
    j["space"] = f.name;
    j["d_model"] = sp.d_model;
    j["n_layer"] = sp.layers.size();
    j["cost_kind"] = single ? nlohmann::json(names[0]) : nlohmann::json(names);
    j["seq_len"] = sp.seq_len;
    j["budget"] = single ? (budgets[0] ? nlohmann::json(*budgets[0]) : nlohmann::json(nullptr))
                         : budgets_json(names, budgets);
    j["budgets"] = budgets_json(names, budgets);
    j["time_seconds"] = secs;
    j["stats"] = stats_json(r.stats);
    j["engine"] = engine_json(r.info);
    return print_answer_json(std::move(j), a, r, cand_json);
  }
  auto costs_text = [&](const nsc::search::transformer_space_candidate& c) {
    std::string t;
    for (std::size_t k = 0; k < names.size(); ++k) t += (k ? ", " : "") + names[k] + " " + grouped(c.costs[k]);
    return t;
  };
  std::printf("NSC-DP   %s: Transformer d_model %lld, %zu layers, per-layer choices from %s\n", f.name.c_str(),
              static_cast<long long>(sp.d_model), sp.layers.size(), a.space.c_str());
  std::printf("budget   %s (layers only; FLOPs per token at seq_len %lld)\n", budgets_text(names, budgets).c_str(),
              static_cast<long long>(sp.seq_len));
  std::printf("best     NSC %.6f, params %s, FLOPs/token %s\n", r.best->nsc, grouped(r.best->params).c_str(),
              grouped(r.best->flops).c_str());
  std::printf("         %5s %8s %8s %10s %8s\n", "layer", "d_ff", "n_heads", "n_kv_heads", "head_dim");
  for (std::size_t i = 0; i < r.best->layers.size(); ++i) {
    const auto& l = r.best->layers[i];
    std::printf("         %5zu %8lld %8lld %10lld %8lld\n", i, static_cast<long long>(l.d_ff),
                static_cast<long long>(l.n_heads), static_cast<long long>(l.n_kv_heads ? l.n_kv_heads : l.n_heads),
                static_cast<long long>(l.head_dim ? l.head_dim : sp.d_model / l.n_heads));
  }
  const auto row = [&](const nsc::search::transformer_space_candidate& c) {
    return printf_text("NSC %-12.6f %s", c.nsc, costs_text(c).c_str());
  };
  if (a.front) print_front_list(r, row);
  if (a.top)
    print_top_list(a, r, "", row, [](const nsc::search::transformer_space_candidate& c) { return c.nsc; }, "NSC");
  print_work(r.stats);
  print_engine(r.info);
  std::printf("time     %s\n", time_text(secs).c_str());
  return 0;
}

// ---- --library (measured block libraries) -------------------------------------------------

/// --budget FIELD=HI, FIELD=LO..HI or FIELD=LO.. (decimal text, kept as written).
std::vector<nsc::io::library_budget> library_budgets(const std::vector<std::string>& args) {
  std::vector<nsc::io::library_budget> out;
  for (const std::string& a : args) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("nsc search: --budget " + nsc::io::excerpt(a, 40) +
                                  ": with --library give FIELD=HI, FIELD=LO..HI or FIELD=LO.. (e.g. stats.memory_mib=80000)");
    nsc::io::library_budget b;
    b.field = a.substr(0, eq);
    const std::string v = a.substr(eq + 1);
    const auto dots = v.find("..");
    if (dots == std::string::npos) {
      b.hi = v;
    } else {
      if (dots > 0) b.lo = v.substr(0, dots);
      if (dots + 2 < v.size()) b.hi = v.substr(dots + 2);
    }
    out.push_back(b);
  }
  return out;
}

int run_library(const generic_args& a) {
  const auto t0 = clock_type::now();
  const nsc::io::block_library_problem p =
      nsc::io::read_block_library(a.library, a.objective, a.minimize, library_budgets(a.budgets));
  const double read_secs = seconds_since(t0);
  std::string dims;
  for (const auto& t : p.dim_text) dims += (dims.empty() ? "" : " and ") + t;
  bool feasible = true;
  for (std::int64_t b : p.budget) feasible = feasible && b >= 0;
  std::optional<nsc::search::budget_search_result<double>> r;
  const auto t1 = clock_type::now();
  std::string relaxed_note;
  if (feasible) {
    const nsc::search::budget_search_settings bs = search_settings(a);
    // Lower bounds: solve without them first; when every answer meets them, the relaxation's
    // answers are the constrained ones (exact: the constrained selections are a subset). Not for
    // --front (the constrained front is not a subset of the relaxed one).
    const bool any_lower = std::find(p.lower.begin(), p.lower.end(), true) != p.lower.end();
    bool upper_only = false;
    if (any_lower && !a.front) {
      std::vector<std::size_t> keep;
      for (std::size_t k = 0; k < p.lower.size(); ++k)
        if (!p.lower[k]) keep.push_back(k);
      nsc::search::mmck_groups<double> rg = p.groups;
      std::vector<std::optional<std::int64_t>> lim;
      for (auto& g : rg)
        for (auto& o : g) {
          std::vector<std::int64_t> c;
          for (std::size_t k : keep) c.push_back(o.cost[k]);
          if (c.empty()) c.push_back(0);
          o.cost = std::move(c);
        }
      for (std::size_t k : keep) lim.push_back(p.budget[k]);
      if (lim.empty()) lim.push_back(0);
      auto rr = nsc::search::search_budgets(rg, lim, bs);
      auto meets = [&](const nsc::search::budget_selection<double>& x) {
        for (std::size_t k = 0; k < p.lower.size(); ++k) {
          if (!p.lower[k]) continue;
          std::int64_t t = 0;
          for (std::size_t l = 0; l < p.groups.size(); ++l) t += p.groups[l][x.choice[l]].cost[k];
          if (t > p.budget[k]) return false;
        }
        return true;
      };
      bool all = !rr.best || meets(*rr.best);
      for (const auto& x : rr.top) all = all && meets(x);
      if (all) {
        upper_only = true;
        r = std::move(rr);
        relaxed_note = "lower bounds not binding: the upper-bound solve's answers meet them (exact)";
      }
    }
    if (!upper_only) {
      std::vector<std::optional<std::int64_t>> lim(p.budget.begin(), p.budget.end());
      r = nsc::search::search_budgets(p.groups, lim, bs);
    }
  }
  const double secs = seconds_since(t1);
  if (!r || !r->best) {
    if (a.json) nsc_cli::print_json({{"status", "infeasible"}, {"search", "library"}, {"library", a.library}});
    return infeasible("no selection of " + a.library + " has " + dims);
  }
  auto sel_json = [&](const nsc::search::budget_selection<double>& c) {
    nlohmann::json layers = nlohmann::json::object();
    for (std::size_t l = 0; l < p.layers.size(); ++l) layers[p.layers[l]] = p.variants[l][c.choice[l]];
    nlohmann::json totals = nlohmann::json::object();
    for (std::size_t f = 0; f < p.fields.size(); ++f) totals[p.fields[f]] = p.total(f, c.choice);
    return nlohmann::json{{"objective", p.objective_total(c.choice)}, {"totals", totals}, {"layers", layers}};
  };
  auto totals_text = [&](const nsc::search::budget_selection<double>& c) {
    std::string t = a.objective + " " + nsc_cli::fmt(p.objective_total(c.choice));
    for (std::size_t f = 0; f < p.fields.size(); ++f) t += ", " + p.fields[f] + " " + nsc_cli::fmt(p.total(f, c.choice));
    return t;
  };
  if (a.json) {
    nlohmann::json j = sel_json(*r->best);
    j["status"] = "optimal";
    j["search"] = "library";
    j["library"] = a.library;
    j["minimize"] = a.minimize;
    j["budgets"] = p.dim_text;
    j["engine"] = engine_json(r->info);
    if (!relaxed_note.empty()) j["lower_bounds"] = relaxed_note;
    j["time_seconds"] = secs;
    if (a.front) {
      j["front_points"] = r->front_points;
      j["front_epsilon"] = r->front_epsilon;
      j["front_engine"] = engine_json(r->front_info);
      if (!r->front_exact_refusal.empty()) j["front_exact_refusal"] = r->front_exact_refusal;
    }
    if (a.top) {
      nlohmann::json tp = nlohmann::json::array();
      for (std::size_t i = 0; i < r->top.size(); ++i) {
        tp.push_back(sel_json(r->top[i]));
        tp.back()["orderings"] = nsc_cli::orderings_json(r->top_orderings[i]);
      }
      j["top"] = std::move(tp);
    }
    if (a.front) // streamed: no front-sized JSON tree
      nsc_cli::print_json_streamed(std::move(j), "front", r->front.size(), [&](std::size_t i) { return sel_json(r->front[i]); });
    else
      nsc_cli::print_json(j);
    return 0;
  }
  std::size_t variants = 0;
  for (const auto& v : p.variants) variants += v.size();
  std::printf("NSC-DP   block library %s: %zu layers, %zu variants; %s %s\n", a.library.c_str(), p.layers.size(), variants,
              a.minimize ? "minimise" : "maximise", a.objective.c_str());
  std::string scales;
  for (std::size_t f = 0; f < p.fields.size(); ++f)
    scales += (f ? ", " : "") + p.fields[f] + " x 10^" + std::to_string(p.field_scale[f]);
  std::printf("budget   %s (exact decimal sums: %s)\n", dims.c_str(), scales.empty() ? "none" : scales.c_str());
  std::printf("best     %s\n", totals_text(*r->best).c_str());
  for (std::size_t l = 0; l < p.layers.size();) {
    std::size_t k = l + 1;
    while (k < p.layers.size() && p.variants[k][r->best->choice[k]] == p.variants[l][r->best->choice[l]]) ++k;
    if (k - 1 == l)
      std::printf("         layer %s: %s\n", p.layers[l].c_str(), p.variants[l][r->best->choice[l]].c_str());
    else
      std::printf("         layers %s-%s: %s\n", p.layers[l].c_str(), p.layers[k - 1].c_str(),
                  p.variants[l][r->best->choice[l]].c_str());
    l = k;
  }
  if (a.front) {
    if (r->front_epsilon > 0)
      std::printf("front    %zu points, an epsilon-front with eps = %s: every selection whose budgeted costs x (1 + eps) fit "
                  "has a listed one within (1 + eps) in each budgeted cost with >= its value%s\n",
                  r->front.size(), nsc_cli::fmt(r->front_epsilon).c_str(), r->front.size() > 25 ? " (sampled; --json lists all)" : "");
    else
      std::printf("front    %zu Pareto points (exact)%s\n", r->front.size(), r->front.size() > 25 ? " (sampled; --json lists all)" : "");
    for (std::size_t i : sample_rows(r->front.size(), 25)) std::printf("         %s\n", totals_text(r->front[i]).c_str());
  }
  if (a.top)
    print_top_list(a, *r, " layers", totals_text, [&](const auto& c) { return p.objective_total(c.choice); },
                   a.objective.c_str());
  print_engine(r->info);
  if (a.front) {
    const auto& fi = r->front_info;
    std::printf("front    %s: %zu points%s\n", fi.describe().c_str(), r->front_points,
                fi.epsilon > 0 ? (", trimmed to one per (1 + " + nsc_cli::fmt(fi.trim_factor - 1, 3) + ")-box at each of " +
                                  std::to_string(fi.trim_depth) + " levels, then an epsilon-cover (1 + " +
                                  nsc_cli::fmt(r->front_dp_epsilon, 3) + ")").c_str() : "");
    if (!r->front_exact_refusal.empty())
      std::printf("         not the exact front: %s (%s)\n", r->front_exact_refusal.c_str(), time_text(r->front_exact_seconds).c_str());
  }
  if (!relaxed_note.empty()) std::printf("         %s\n", relaxed_note.c_str());
  std::printf("time     %s (reading %s)\n", time_text(secs).c_str(), time_text(read_secs).c_str());
  return 0;
}

const nsc_cli::command search_command{"search", [](CLI::App& app) -> std::function<int()> {
  auto g = std::make_shared<generic_args>();
  auto t = std::make_shared<txl_args>();
  auto af = std::make_shared<autoformer_args>();
  auto na = std::make_shared<nats_args>();
  auto* sub = app.add_subcommand(
      "search", "NSC-DP: the exact NSC-optimal architecture under a budget (and the whole Pareto "
                "front): the paper's searches (txl, autoformer, nats-sss) or a SPACE.json");
  sub->require_subcommand(0, 1);
  sub->add_option("--space", g->space,
                  "SPACE.json: named groups of (value, cost) options, or a Transformer with "
                  "per-layer choices (see examples/spaces/)");
  sub->add_option("--budget", g->budgets,
                  "NAME=VALUE: upper bound on the cost NAME (repeatable: several budgets at once); a "
                  "bare number bounds the single cost (default: the file's 'budget', else none)");
  sub->add_flag("--json", g->json, "print one JSON object");
  sub->add_flag("--front", g->front,
                "also give the Pareto set (every budget vector at once: (costs, NSC) points not "
                "dominated by another selection)");
  auto* top_opt = sub->add_option("--top", g->top, "also give the K best distinct selections (1..1000)")
                      ->check(CLI::Range(std::size_t(1), std::size_t(1000)));
  sub->add_option("--min-distance", g->min_distance,
                  "with --top: keep selections differing from each kept one in >= D groups (identical groups matched "
                  "best unless --positions)")
      ->needs(top_opt);
  sub->add_flag("--positions", g->positions,
                "with --top: identical groups' choices in another order are separate selections (default: one per "
                "multiset, with the number of orderings it stands for)")
      ->needs(top_opt);
  sub->add_option("--library", g->library,
                  "a measured block library (block_library.json: layer -> variant -> {stats, metrics}); one "
                  "variant per layer, --budget FIELD=HI | FIELD=LO..HI on dotted fields, exact decimal sums");
  sub->add_option("--objective", g->objective, "with --library: the field to optimise (default metrics.kl_div)");
  sub->add_flag("--minimize", g->minimize, "with --library: minimise the objective (default: maximise)");
  sub->add_option("--front-epsilon", g->front_epsilon,
                  "with --front: list an epsilon-cover of the Pareto set (every Pareto point within (1 + eps) in "
                  "each cost of a listed one with >= its value)")
      ->check(CLI::Range(1e-9, 1000.0));
  sub->add_option("--max-memory", g->max_memory,
                  "memory cap for the solver's tables and the listed front (bytes as 6GiB, 500MB or 1e9; default 1GiB); larger "
                  "queries are refused with what would fit")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc search: --max-memory"))
      ->check(CLI::Range(1e6, 1e15));
  sub->add_option("--max-work", g->max_work,
                  "work cap of the sparse path (candidate states examined, default 5e8, seconds); a larger "
                  "query is refused naming it")
      ->check(CLI::Range(1e3, 1e15));

  auto* txl = sub->add_subcommand(
      "txl", "Transformer-XL: d_model x n_layer outer, per-layer d_inner DP, params band "
             "(the paper: d 512, 18 layers, d_inner 1152, NSC 12391.756)");
  txl->add_option("--params", t->params, "centre of the params band (default 38.4e6)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc search: --params"))
      ->check(CLI::PositiveNumber);
  txl->add_option("--tolerance", t->tolerance, "half-width of the band, relative (default 0.05)")
      ->check(CLI::Range(0.0, 0.999));
  txl->add_flag("--json", t->json, "print one JSON object");
  txl->add_flag("--front", t->front, "also give the merged Pareto front (every budget <= band top)");

  auto* afc = sub->add_subcommand(
      "autoformer", "AutoFormer: embed_dim x depth outer, per-layer (mlp_ratio, num_heads) DP, "
                    "params limit (tiny 5.9M, small 23.5M, base 54.5M)");
  afc->add_option("--space", af->space, "tiny, small or base")
      ->required()
      ->check(CLI::IsMember({"tiny", "small", "base"}));
  afc->add_option("--params", af->params, "params limit (default: the space's)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc search: --params"))
      ->check(CLI::PositiveNumber);
  afc->add_option("--method", af->method,
                  "factored (default: attention and FFN knapsacks, exact, fast) or joint (the "
                  "paper's single knapsack)")
      ->check(CLI::IsMember({"factored", "joint"}));
  afc->add_flag("--json", af->json, "print one JSON object");
  afc->add_flag("--front", af->front, "also give the merged Pareto front (every budget <= limit)");

  auto* nats = sub->add_subcommand(
      "nats-sss", "NATS-Bench SSS: all 32,768 channel tuples scored exhaustively and by an exact "
                  "chain DP (they must agree), NSC top-k, accuracies joined from the CSV");
  nats->add_option("--params", na->params, "upper bound on #Params (default: none)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc search: --params"))
      ->check(CLI::PositiveNumber);
  nats->add_option("--dataset", na->dataset, "cifar10 (default), cifar100 or imagenet16-120")
      ->check(CLI::IsMember({"cifar10", "cifar100", "imagenet16-120", "imagenet16_120"}));
  nats->add_option("--protocol", na->protocol,
                   "xautodl (default: the trained networks), reference-fr (the paper's all-32,768 "
                   "script) or reference-1x1 (the paper's figure)")
      ->check(CLI::IsMember({"xautodl", "reference-fr", "reference-1x1"}));
  nats->add_option("--top", na->top, "length of the NSC top list (default 10)")
      ->check(CLI::Range(std::size_t(1), std::size_t(32768)));
  nats->add_option("--data", na->data,
                   "nats_sss_32768.csv with the accuracies (default: "
                   "../shared/data/nats-bench-sss/nats_sss_32768.csv of the source tree, "
                   "skipped if absent)");
  nats->add_flag("--json", na->json, "print one JSON object");
  nats->add_flag("--front", na->front, "also give the exact Pareto front (NSC vs params)");

  return [=]() -> int {
    if (txl->parsed() || afc->parsed() || nats->parsed()) {
      if (!g->space.empty() || !g->budgets.empty() || g->json || g->front || g->top)
        throw std::invalid_argument(
            "nsc search: --space, --budget, --json, --front and --top before a search name belong "
            "to --space; put options after the search name (e.g. nsc search txl --json)");
      if (txl->parsed()) return run_txl(*t);
      if (afc->parsed()) return run_autoformer(*af);
      return run_nats(*na);
    }
    if (!g->library.empty()) {
      if (!g->space.empty()) throw std::invalid_argument("nsc search: give --space or --library, not both");
      return run_library(*g);
    }
    if (g->space.empty())
      throw std::invalid_argument(
          "nsc search: give a search (txl, autoformer, nats-sss) or --space SPACE.json");
    return run_generic(*g);
  };
}};

} // namespace
