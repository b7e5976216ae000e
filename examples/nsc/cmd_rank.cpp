// nsc rank: how well NSC and its baselines rank architectures against their measured quality
// (the paper's ranking table, math.md section 7), on a built-in family or on any table.
//
//   nsc rank --family flexibert|gpt2|txl|nats-sss|autoformer-tiny [--data PATH]
//            [--estimator mp|fs] [--convention reference|framework|...] [--baselines data|paper]
//            [--dataset cifar10|cifar100|imagenet16-120] [--protocol factorized-reduce|figure-1x1]
//            [--target COLUMN] [--params data|computed] [--bootstrap N --seed S]
//            [--json] [--dump FILE.csv] [--plot FILE.png]
//   nsc rank --table FILE [--arch-column COL] --target COL [--lower-is-better] [--id-column COL]
//            [--estimator mp|fs] [--init NAME|hf] [--seq-len T]
//            [--baseline params|params_non_embedding|flops|COL ...] [--params computed|data]
//            [--params-column COL] [--bootstrap N --seed S] [--confidence C]
//            [--json] [--dump FILE.csv] [--plot FILE.png]
//
// --family: the family's file under the shared data directory (NSC_SOURCE_DIR/../shared/data)
// unless --data; conventions, #Params / #FLOPs / truth per family in nsc/eval/families.hpp.
// --params computed replaces the data's parameter column by nsc's count (default data: the
// column, refused when it disagrees with the count). No bootstrap unless --bootstrap N.
//
// --table: CSV or JSON Lines (nsc/io/table.hpp); the architecture cell of each row is a path to
// a config.json (relative to the table), an inline Hugging Face config or nsc's architecture
// JSON (nsc/io/rank_table.hpp documents the rule and what is counted). Baselines default to
// params and flops; the bootstrap defaults to 1000 resamples, seed 1 (--bootstrap 0: none).
//
// Statistics, each against the truth (higher is better; --lower-is-better negates the target):
// Kendall tau-b, Spearman rho, the 10%-PW tau (pairs whose #Params differ by less than 10%) and
// the Conover-Iman partial tau (controls #Params and #FLOPs, minus the score itself). The
// paired bootstrap (nsc/eval/bootstrap.hpp: std::mt19937_64 per resample, unbiased bounded
// draws, percentile intervals) gives for each baseline tau(NSC) - tau(baseline) and
// rho(NSC) - rho(baseline) with their intervals and a verdict: better (interval above 0), worse
// (below 0) or tied (contains 0); `verdict` is the tau-b one, `rho_verdict` the rho one.
//
// JSON (--json, one object on one line):
//   family mode  as before: n, nsc, params, flops ({tau_b, rho, pw10_tau, partial_tau}, null
//                when undefined), time_ms, timing_ms {load, statistics}, family, data,
//                estimator, convention, baselines, dataset, protocol, target, skipped, and
//                params_source; with --bootstrap also "bootstrap" (below), nsc gains tau_b_ci
//                and rho_ci, params and flops gain the comparison keys (below).
//   table mode   table, format, arch_column, target, lower_is_better, id_column, estimator,
//                init (null = each row's default), seq_len, params_source, n, skipped,
//                kinds {path, hf_config, nsc_architecture}, nsc {tau_b, rho, pw10_tau,
//                partial_tau, tau_b_ci, rho_ci}, baselines: [{name, tau_b, rho, pw10_tau,
//                partial_tau, + comparison keys}], bootstrap, time_ms, timing_ms {load,
//                statistics, bootstrap}.
//   comparison   tau_b_diff (NSC - baseline on the full data, null if undefined),
//                tau_b_diff_ci [lo, hi], rho_diff, rho_diff_ci [lo, hi], verdict, rho_verdict
//                ("better" | "tied" | "worse": NSC against this baseline), valid (resamples
//                where both tau-b are defined); the intervals and verdicts are null without a
//                bootstrap.
//   bootstrap    {resamples, seed, confidence, method: "paired percentile"} or null.
// --dump writes the per-architecture vectors as CSV (family: id,nsc,params,flops,truth; table:
// id,nsc,<baselines>,params,flops,truth; truth is higher-is-better). --plot writes a PNG of the
// ranks of NSC and of each baseline against the truth (scripts/plot_rank.py, python3 with
// matplotlib).
#include "cli.hpp"

#include <nsc/eval/families.hpp>
#include <nsc/eval/rank_scores.hpp>
#include <nsc/eval/ranking.hpp>
#include <nsc/io/rank_table.hpp>
#include <nsc/io/table.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct rank_args {
  std::string family;
  std::string table;
  std::string data;
  std::string estimator;
  std::string convention;
  std::string baselines;
  std::string dataset;
  std::string protocol;
  std::string target;
  std::string arch_column = "arch";
  std::string id_column;
  std::string init;
  double seq_len = 256;
  std::vector<std::string> baseline;
  std::string params;
  std::string params_column = "params";
  bool lower_is_better = false;
  std::optional<std::size_t> bootstrap;
  std::uint64_t seed = 1;
  double confidence = 0.95;
  std::string dump;
  std::string plot;
  bool json = false;
  // which table-only / family-only options were given
  std::vector<std::string> table_only, family_only;
};

using clock_type = std::chrono::steady_clock;
double ms(clock_type::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

nlohmann::json to_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const nsc::eval::rank_summary& s) {
  return {{"tau_b", to_json(s.tau_b)},
          {"rho", to_json(s.rho)},
          {"pw10_tau", to_json(s.pw10_tau)},
          {"partial_tau", to_json(s.partial_tau)}};
}

nlohmann::json to_json(const std::optional<nsc::eval::bootstrap_interval>& i) {
  if (!i) return nullptr;
  return nlohmann::json::array({i->interval[0], i->interval[1]});
}

std::optional<double> diff(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::nullopt;
  return *a - *b;
}

/// The summary of NSC with its own intervals (when bootstrapped).
nlohmann::json nsc_json(const nsc::eval::ranking_report& r) {
  nlohmann::json j = to_json(r.nsc);
  if (r.bootstrap) {
    j["tau_b_ci"] = to_json(r.nsc_tau_b_ci);
    j["rho_ci"] = to_json(r.nsc_rho_ci);
  }
  return j;
}

/// A baseline's summary plus its comparison with NSC.
nlohmann::json baseline_json(const nsc::eval::ranking_report& r, std::size_t k, bool with_name) {
  const nsc::eval::baseline_ranking& b = r.baselines[k];
  nlohmann::json j = to_json(b.summary);
  if (with_name) j["name"] = b.name;
  if (with_name || r.bootstrap) {
    j["tau_b_diff"] = to_json(diff(r.nsc.tau_b, b.summary.tau_b));
    j["rho_diff"] = to_json(diff(r.nsc.rho, b.summary.rho));
    j["tau_b_diff_ci"] = to_json(b.tau_b_diff);
    j["rho_diff_ci"] = to_json(b.rho_diff);
    j["verdict"] = b.tau_b_diff ? nlohmann::json(std::string(nsc::eval::to_string(b.tau_b_diff->v)))
                                : nlohmann::json(nullptr);
    j["rho_verdict"] = b.rho_diff ? nlohmann::json(std::string(nsc::eval::to_string(b.rho_diff->v)))
                                  : nlohmann::json(nullptr);
    j["valid"] = b.tau_b_diff ? nlohmann::json(b.tau_b_diff->valid) : nlohmann::json(nullptr);
  }
  return j;
}

nlohmann::json bootstrap_json(const nsc::eval::ranking_report& r) {
  if (!r.bootstrap) return nullptr;
  return {{"resamples", r.bootstrap->resamples},
          {"seed", r.bootstrap->seed},
          {"confidence", r.bootstrap->confidence},
          {"method", "paired percentile"}};
}

std::string cell(const std::optional<double>& v) {
  char buf[32];
  if (!v) return "n/a";
  std::snprintf(buf, sizeof buf, "%.4f", *v);
  return buf;
}

std::string ci_cell(const std::optional<double>& d, const std::optional<nsc::eval::bootstrap_interval>& i) {
  char buf[80];
  if (!d) return "n/a";
  if (!i) {
    std::snprintf(buf, sizeof buf, "%+.4f", *d);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%+.4f [%+.4f, %+.4f]", *d, i->interval[0], i->interval[1]);
  return buf;
}

/// The display name of a baseline.
std::string display_name(const std::string& name) {
  if (name == "params") return "#Params";
  if (name == "params_non_embedding") return "#Params (non-emb.)";
  if (name == "flops") return "#FLOPs";
  return name;
}

/// RFC 4180 quoting when needed.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// The per-architecture vectors as CSV: id,nsc,<baselines>,params,flops,truth (family mode:
/// the baselines are params and flops, written once).
std::string dump_text(const nsc::eval::ranking_input& in, bool family_mode) {
  std::string out = "id,nsc";
  if (!family_mode)
    for (const auto& b : in.baselines) {
      std::string name = "baseline:";
      name.append(b.name);
      out.push_back(',');
      out.append(csv_field(name));
    }
  out.append(",params,flops,truth\n");
  auto field = [&out](const std::string& s) {
    out.push_back(',');
    out.append(s);
  };
  for (std::size_t i = 0; i < in.size(); ++i) {
    out.append(csv_field(in.ids[i]));
    field(num(in.score[i]));
    if (!family_mode)
      for (const auto& b : in.baselines) field(num(b.values[i]));
    field(num(in.params[i]));
    field(num(in.flops[i]));
    field(num(in.truth[i]));
    out.push_back('\n');
  }
  return out;
}

/// Writes the plot through scripts/plot_rank.py; returns the note to print.
std::string make_plot(const rank_args& a, const nsc::eval::ranking_input& in, bool family_mode,
                      const std::string& title, nlohmann::json& j) {
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() /
      ("nsc_rank_" + std::to_string(reinterpret_cast<std::uintptr_t>(&in)) + ".csv");
  nsc_cli::write_text_file(tmp.string(), dump_text(in, false));
  (void)family_mode;
  const std::string tail = nsc_cli::shell_quote(nsc_cli::script_path("plot_rank.py")) + " " +
                           nsc_cli::shell_quote(tmp.string()) + " -o " +
                           nsc_cli::shell_quote(a.plot) + " --title " + nsc_cli::shell_quote(title);
  if (nsc_cli::run_python(tail)) {
    std::filesystem::remove(tmp);
    j["plot"] = a.plot;
    return "plot        " + a.plot + " (ranks of NSC and each baseline against the truth)";
  }
  return "plot        not written (python3 with matplotlib needed); run: python3 " + tail;
}

std::optional<nsc::eval::bootstrap_settings> bootstrap_of(const rank_args& a, std::size_t dflt) {
  const std::size_t n = a.bootstrap.value_or(dflt);
  if (n == 0) return std::nullopt;
  nsc::eval::bootstrap_settings s;
  s.resamples = n;
  s.seed = a.seed;
  s.confidence = a.confidence;
  return s;
}

void print_rows(const nsc::eval::ranking_report& r) {
  const bool boot = r.bootstrap.has_value();
  std::printf("%-22s %8s %8s %11s %12s", "score", "tau-b", "rho", "10%-PW tau", "partial tau");
  if (boot)
    std::printf("  %-30s %-30s %s", "tau-b: NSC - score [CI]", "rho: NSC - score [CI]", "verdict");
  std::printf("\n");
  std::printf("%-22s %8s %8s %11s %12s", "NSC", cell(r.nsc.tau_b).c_str(), cell(r.nsc.rho).c_str(),
              cell(r.nsc.pw10_tau).c_str(), cell(r.nsc.partial_tau).c_str());
  if (boot && r.nsc_tau_b_ci)
    std::printf("  tau-b CI [%.4f, %.4f]", r.nsc_tau_b_ci->interval[0], r.nsc_tau_b_ci->interval[1]);
  std::printf("\n");
  for (const auto& b : r.baselines) {
    std::printf("%-22s %8s %8s %11s %12s", display_name(b.name).c_str(), cell(b.summary.tau_b).c_str(),
                cell(b.summary.rho).c_str(), cell(b.summary.pw10_tau).c_str(),
                cell(b.summary.partial_tau).c_str());
    if (boot) {
      const std::string v = b.tau_b_diff ? std::string(nsc::eval::to_string(b.tau_b_diff->v)) : "n/a";
      std::printf("  %-30s %-30s NSC %s", ci_cell(diff(r.nsc.tau_b, b.summary.tau_b), b.tau_b_diff).c_str(),
                  ci_cell(diff(r.nsc.rho, b.summary.rho), b.rho_diff).c_str(), v.c_str());
    }
    std::printf("\n");
  }
  if (boot)
    std::printf("\nbootstrap   %zu paired resamples, seed %llu, %g%% percentile intervals; verdict: "
                "NSC better / worse than the baseline when the tau-b interval excludes 0, else tied\n",
                r.bootstrap->resamples, static_cast<unsigned long long>(r.bootstrap->seed),
                100 * r.bootstrap->confidence);
}

void refuse_mixed(const rank_args& a) {
  const bool table = !a.table.empty();
  const auto& wrong = table ? a.family_only : a.table_only;
  if (!wrong.empty())
    throw std::invalid_argument(std::string("nsc rank: ") + wrong.front() + " applies to " +
                                (table ? "--family" : "--table") + " only");
  if (table == !a.family.empty())
    throw std::invalid_argument("nsc rank: give exactly one of --family or --table");
}

int run_family(const rank_args& a) {
  const nsc::eval::family fam = nsc::eval::parse_family(a.family);
  nsc::eval::family_options o;
  o.est = nsc::parse_estimator(a.estimator.empty() ? "mp" : a.estimator);
  o.convention = a.convention;
  o.baselines = a.baselines;
  o.dataset = a.dataset;
  o.protocol = a.protocol;
  o.target = a.target;
  o.params_source = a.params;
  const std::string path = a.data.empty() ? (std::string(nsc_cli::source_dir()) + "/../shared/data/") +
                                                std::string(nsc::eval::default_data_file(fam))
                                          : a.data;

  const auto t0 = clock_type::now();
  const nsc::eval::family_data d = nsc::eval::load_family(fam, path, o);
  const auto t1 = clock_type::now();
  const nsc::eval::ranking_input in = nsc::eval::ranking_input_of(d);
  const nsc::eval::ranking_report r = nsc::eval::rank_scores(in, bootstrap_of(a, 0));
  const auto t2 = clock_type::now();
  const double load_ms = ms(t1 - t0), stats_ms = ms(t2 - t1), total_ms = ms(t2 - t0);
  const bool nats = fam == nsc::eval::family::nats_sss;
  if (!a.dump.empty()) nsc_cli::write_text_file(a.dump, dump_text(in, true));

  nlohmann::json j;
  std::string plot_note;
  if (!a.plot.empty())
    plot_note = make_plot(a, in, true, std::string(nsc::eval::to_string(fam)) + ": " + d.truth_definition, j);
  if (a.json) {
    j["family"] = std::string(nsc::eval::to_string(fam));
    j["data"] = path;
    j["estimator"] = std::string(nsc::to_string(d.est));
    j["convention"] = d.convention;
    j["baselines"] = d.baselines;
    j["params_source"] = d.params_source;
    j["dataset"] = nats ? nlohmann::json(d.dataset) : nlohmann::json(nullptr);
    j["protocol"] = nats ? nlohmann::json(d.protocol) : nlohmann::json(nullptr);
    j["target"] = d.target;
    j["skipped"] = d.skipped;
    j["n"] = d.size();
    j["nsc"] = nsc_json(r);
    j["params"] = baseline_json(r, 0, false);
    j["flops"] = baseline_json(r, 1, false);
    if (r.bootstrap) j["bootstrap"] = bootstrap_json(r);
    j["time_ms"] = total_ms;
    j["timing_ms"] = {{"load", load_ms}, {"statistics", stats_ms}};
    nsc_cli::print_json(j);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }

  std::printf("family      %s: %zu architectures (%zu skipped without %s) from %s\n",
              std::string(nsc::eval::to_string(fam)).c_str(), d.size(), d.skipped, d.target.c_str(),
              path.c_str());
  std::printf("settings    estimator psi_%s, convention %s, baselines %s",
              std::string(nsc::to_string(d.est)).c_str(), d.convention.c_str(),
              d.baselines.c_str());
  if (nats) std::printf(", dataset %s, protocol %s", d.dataset.c_str(), d.protocol.c_str());
  if (d.params_source != "data") std::printf(", params %s", d.params_source.c_str());
  std::printf("\nNSC         %s\n", d.score_definition.c_str());
  std::printf("#Params     %s\n", d.params_definition.c_str());
  std::printf("#FLOPs      %s\n", d.flops_definition.c_str());
  std::printf("truth       %s\n\n", d.truth_definition.c_str());
  if (!r.bootstrap) {
    std::printf("%-9s %8s %8s %11s %12s  %s\n", "score", "tau-b", "rho", "10%-PW tau",
                "partial tau", "partial controls");
    auto row = [](const char* name, const nsc::eval::rank_summary& s, const char* controls) {
      std::printf("%-9s %8s %8s %11s %12s  %s\n", name, cell(s.tau_b).c_str(), cell(s.rho).c_str(),
                  cell(s.pw10_tau).c_str(), cell(s.partial_tau).c_str(), controls);
    };
    row("NSC", r.nsc, "#Params, #FLOPs");
    row("#Params", r.baselines[0].summary, "#FLOPs");
    row("#FLOPs", r.baselines[1].summary, "#Params");
  } else {
    print_rows(r);
  }
  std::printf("\ntime        %.2f ms (read + score %.2f ms, statistics %.2f ms)\n", total_ms,
              load_ms, stats_ms);
  if (!plot_note.empty()) std::printf("%s\n", plot_note.c_str());
  return nsc_cli::exit_answer;
}

int run_table(const rank_args& a) {
  if (a.target.empty()) throw std::invalid_argument("nsc rank: --table needs --target COLUMN");
  nsc::io::table_rank_options o;
  o.arch_column = a.arch_column;
  o.target = a.target;
  o.lower_is_better = a.lower_is_better;
  o.id_column = a.id_column;
  if (!a.estimator.empty()) o.est = nsc::parse_estimator(a.estimator);
  o.init = a.init;
  if (!o.init.empty() && o.init != "hf") (void)nsc::parse_init_kind(o.init);
  o.seq_len = a.seq_len;
  if (!a.baseline.empty()) o.baselines = a.baseline;
  o.params_source = a.params.empty() ? "computed" : a.params;
  o.params_column = a.params_column;

  const auto t0 = clock_type::now();
  const nsc::io::table t = nsc::io::read_table_file(a.table);
  const nsc::io::rank_table_data d =
      nsc::io::rank_table_rows(t, std::filesystem::path(a.table).parent_path(), o);
  const auto t1 = clock_type::now();
  const nsc::eval::ranking_report plain = nsc::eval::rank_scores(d.input);
  const auto t2 = clock_type::now();
  const auto boot = bootstrap_of(a, 1000);
  nsc::eval::ranking_report r = plain;
  if (boot) r = nsc::eval::rank_scores(d.input, boot);
  const auto t3 = clock_type::now();
  const double load_ms = ms(t1 - t0), stats_ms = ms(t2 - t1), boot_ms = boot ? ms(t3 - t2) : 0.0;
  if (!a.dump.empty()) nsc_cli::write_text_file(a.dump, dump_text(d.input, false));
  using nsc::io::architecture_kind;
  nlohmann::json j;
  std::string plot_note;
  if (!a.plot.empty())
    plot_note = make_plot(a, d.input, false,
                          std::filesystem::path(a.table).filename().string() + ": " + a.target +
                              (a.lower_is_better ? " (lower is better)" : ""),
                          j);
  if (a.json) {
    j["table"] = a.table;
    j["format"] = t.format == nsc::io::table_format::jsonl ? "jsonl" : "csv";
    j["arch_column"] = o.arch_column;
    j["target"] = o.target;
    j["lower_is_better"] = o.lower_is_better;
    j["id_column"] = o.id_column.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.id_column);
    j["estimator"] = o.est ? nlohmann::json(std::string(nsc::to_string(*o.est))) : nlohmann::json(nullptr);
    j["init"] = o.init.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.init);
    j["seq_len"] = o.seq_len;
    j["params_source"] = o.params_source;
    j["n"] = d.input.size();
    j["skipped"] = d.skipped;
    j["kinds"] = {{"path", d.count(architecture_kind::config_path)},
                  {"hf_config", d.count(architecture_kind::hf_config)},
                  {"nsc_architecture", d.count(architecture_kind::nsc_architecture)}};
    j["nsc"] = nsc_json(r);
    nlohmann::json bl = nlohmann::json::array();
    for (std::size_t k = 0; k < r.baselines.size(); ++k) bl.push_back(baseline_json(r, k, true));
    j["baselines"] = std::move(bl);
    j["bootstrap"] = bootstrap_json(r);
    j["time_ms"] = load_ms + stats_ms + boot_ms;
    j["timing_ms"] = {{"load", load_ms}, {"statistics", stats_ms}, {"bootstrap", boot_ms}};
    nsc_cli::print_json(j);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }
  std::printf("table       %s (%s): %zu architectures (%zu skipped without %s): %zu paths, %zu "
              "inline HF configs, %zu nsc architectures\n",
              a.table.c_str(), t.format == nsc::io::table_format::jsonl ? "JSON Lines" : "CSV",
              d.input.size(), d.skipped, o.target.c_str(), d.count(architecture_kind::config_path),
              d.count(architecture_kind::hf_config), d.count(architecture_kind::nsc_architecture));
  std::printf("truth       %s%s\n", o.lower_is_better ? "-" : "", o.target.c_str());
  const std::string est_text = o.est ? "psi_" + std::string(nsc::to_string(*o.est))
                                     : std::string("each row's (nsc JSON: its scoring; HF: psi_mp)");
  const std::string init_text = o.init.empty() ? std::string("each row's (nsc JSON: its scoring; HF: "
                                                             "xavier_normal of each block)")
                                               : o.init;
  std::printf("NSC         order-free sum; estimator %s; init %s\n", est_text.c_str(), init_text.c_str());
  const std::string params_text = o.params_source == "data" ? "column " + o.params_column
                                                            : std::string("computed (HF: total; nsc JSON: the layers)");
  std::printf("#Params     %s\n", params_text.c_str());
  std::printf("#FLOPs      per token (HF at T = %g; nsc JSON at its seq_len)\n\n", o.seq_len);
  print_rows(r);
  std::printf("\ntime        %.2f ms (read + score %.2f ms, statistics %.2f ms, bootstrap %.2f ms)\n",
              load_ms + stats_ms + boot_ms, load_ms, stats_ms, boot_ms);
  if (!plot_note.empty()) std::printf("%s\n", plot_note.c_str());
  return nsc_cli::exit_answer;
}

int run_rank(const rank_args& a) {
  refuse_mixed(a);
  if (!(a.confidence > 0 && a.confidence < 1))
    throw std::invalid_argument("nsc rank: --confidence must lie in (0, 1) (got " +
                                std::to_string(a.confidence) + ")");
  return a.table.empty() ? run_family(a) : run_table(a);
}

const nsc_cli::command rank_command{
    "rank", [](CLI::App& app) -> std::function<int()> {
      auto args = std::make_shared<rank_args>();
      auto* sub = app.add_subcommand(
          "rank", "Ranking quality of NSC and baselines against measured quality, on a built-in "
                  "family or any CSV / JSON Lines table: Kendall tau-b, Spearman rho, 10%-PW tau, "
                  "partial tau, and a paired bootstrap with a verdict per baseline");
      auto family_opts = std::make_shared<std::vector<CLI::Option*>>();
      auto table_opts = std::make_shared<std::vector<CLI::Option*>>();
      auto family_only = [family_opts](CLI::Option* o) {
        family_opts->push_back(o);
        return o;
      };
      auto table_only = [table_opts](CLI::Option* o) {
        table_opts->push_back(o);
        return o;
      };
      sub->add_option("--family", args->family, "flexibert, gpt2, txl, nats-sss or autoformer-tiny");
      sub->add_option("--table", args->table,
                      "a CSV or JSON Lines table of architectures (see nsc/io/rank_table.hpp)");
      family_only(sub->add_option("--data", args->data,
                                  "the family's table (default: its file under NSC_SOURCE_DIR/../shared/data)"));
      sub->add_option("--estimator", args->estimator, "psi estimator: mp (default, the paper's) or fs");
      family_only(sub->add_option(
          "--convention", args->convention,
          "reference (default, the paper's), framework (the model's own PyTorch init, "
          "variance per tensor) or a family reading: flexibert original|as_trained|nominal, "
          "txl per_head, nats-sss xautodl, autoformer-tiny official"));
      family_only(sub->add_option(
          "--baselines", args->baselines,
          "#Params / #FLOPs definitions: data (default) or, for flexibert, paper"));
      family_only(sub->add_option("--dataset", args->dataset,
                                  "nats-sss only: cifar10 (default), cifar100 or imagenet16-120"));
      family_only(sub->add_option("--protocol", args->protocol,
                                  "nats-sss only: factorized-reduce (default) or figure-1x1"));
      sub->add_option("--target", args->target,
                      "ground-truth column (table: required; family: flexibert glue or a task, "
                      "gpt2 / txl valid_ppl or test_ppl, autoformer-tiny any target column)");
      table_only(sub->add_option("--arch-column", args->arch_column,
                                 "the column holding each row's architecture (default arch)"));
      table_only(sub->add_flag("--lower-is-better", args->lower_is_better,
                               "the target is better when lower (perplexity, loss, latency)"));
      table_only(sub->add_option("--id-column", args->id_column, "a column naming each row"));
      table_only(sub->add_option("--init", args->init,
                                 "override every row's init: a torch.nn.init name (variance of "
                                 "each block) or hf (normal(initializer_range), HF configs)"));
      table_only(sub->add_option("--seq-len", args->seq_len,
                                 "T of the Hugging Face configs' FLOPs per token (default 256)"));
      table_only(sub->add_option("--baseline", args->baseline,
                                 "baselines compared with NSC (repeatable): params, "
                                 "params_non_embedding, flops or a numeric column (default: "
                                 "params flops)"));
      sub->add_option("--params", args->params,
                      "#Params source: family data (default: the data's column, refused when it "
                      "disagrees with the count) or computed; table computed (default) or data "
                      "(--params-column)")
          ->check(CLI::IsMember({"data", "computed"}));
      table_only(sub->add_option("--params-column", args->params_column,
                                 "the table's #Params column for --params data (default params)"));
      sub->add_option("--bootstrap", args->bootstrap,
                      "paired bootstrap resamples (table default 1000, family default 0 = none)")
          ->check(CLI::Range(std::size_t(0), std::size_t(10'000'000)));
      sub->add_option("--seed", args->seed, "bootstrap seed (default 1)");
      sub->add_option("--confidence", args->confidence, "interval level (default 0.95)");
      sub->add_flag("--json", args->json, "one JSON object instead of the table");
      sub->add_option("--dump", args->dump, "also write the per-architecture vectors to this CSV file");
      sub->add_option("--plot", args->plot,
                      "write a PNG of NSC's and each baseline's ranks against the truth "
                      "(scripts/plot_rank.py)");
      return [args, family_opts, table_opts] {
        for (CLI::Option* o : *family_opts)
          if (o->count() > 0) args->family_only.push_back(o->get_name());
        for (CLI::Option* o : *table_opts)
          if (o->count() > 0) args->table_only.push_back(o->get_name());
        return run_rank(*args);
      };
    }};

} // namespace
