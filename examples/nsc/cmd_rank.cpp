// nsc rank: how well NSC, #Params and #FLOPs rank the architectures of a family against their
// measured quality (the paper's ranking table, math.md section 7).
//
//   nsc rank --family flexibert|gpt2|txl|nats-sss|autoformer-tiny [--data PATH]
//            [--estimator mp|fs] [--convention reference|framework|...] [--baselines data|paper]
//            [--dataset cifar10|cifar100|imagenet16-120] [--protocol factorized-reduce|figure-1x1]
//            [--target COLUMN] [--json] [--dump FILE.csv]
//
// Defaults: the paper's reference convention with psi_MP, the family's file under the shared data
// directory (NSC_SOURCE_DIR/../shared/data/...), the family's default target. What each
// convention scores and which #Params / #FLOPs / truth are used is documented in
// nsc/eval/families.hpp (and printed by the table output).
//
// Statistics, each against the truth (higher is better): Kendall tau-b, Spearman rho, the 10%-PW
// tau (pairs whose #Params differ by less than 10%) and the Conover-Iman partial tau. The partial
// tau controls NSC for #Params and #FLOPs, #Params for #FLOPs only and #FLOPs for #Params only (a
// score controlled for itself has no residual); it is n/a (JSON null) when undefined, e.g. when
// #Params and #FLOPs are rank-equivalent.
//
// Output: a table (default) or, with --json, one object on one line with keys n, nsc, params,
// flops (each {tau_b, rho, pw10_tau, partial_tau}, null when undefined), time_ms (wall time of
// reading, scoring and all statistics), timing_ms {load, statistics} (load = read + score), and
// the settings: family, data, estimator, convention, baselines, dataset and protocol (nats-sss,
// else null),
// target, skipped (rows without a target value). --dump also writes the per-architecture vectors
// (id,nsc,params,flops,truth; truth is higher-is-better, e.g. minus perplexity) as CSV.
#include "cli.hpp"

#include <nsc/eval/families.hpp>
#include <nsc/eval/ranking.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace {

struct rank_args {
  std::string family;
  std::string data;
  std::string estimator = "mp";
  std::string convention;
  std::string baselines;
  std::string dataset;
  std::string protocol;
  std::string target;
  std::string dump;
  bool json = false;
};

/// Writes the per-architecture vectors as CSV: id,nsc,params,flops,truth.
void write_dump(const std::string& path, const nsc::eval::family_data& d) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("nsc rank: cannot write '" + path + "'");
  std::fprintf(f, "id,nsc,params,flops,truth\n");
  for (std::size_t i = 0; i < d.size(); ++i)
    std::fprintf(f, "%s,%.17g,%.17g,%.17g,%.17g\n", d.ids[i].c_str(), d.score[i], d.params[i],
                 d.flops[i], d.truth[i]);
  if (std::fclose(f) != 0) throw std::runtime_error("nsc rank: cannot write '" + path + "'");
}

nlohmann::json to_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json to_json(const nsc::eval::rank_summary& s) {
  return {{"tau_b", to_json(s.tau_b)},
          {"rho", to_json(s.rho)},
          {"pw10_tau", to_json(s.pw10_tau)},
          {"partial_tau", to_json(s.partial_tau)}};
}

std::string cell(const std::optional<double>& v) {
  char buf[32];
  if (!v) return "n/a";
  std::snprintf(buf, sizeof buf, "%.4f", *v);
  return buf;
}

int run_rank(const rank_args& a) {
  using clock = std::chrono::steady_clock;
  const auto ms = [](clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  const nsc::eval::family fam = nsc::eval::parse_family(a.family);
  nsc::eval::family_options o;
  o.est = nsc::parse_estimator(a.estimator);
  o.convention = a.convention;
  o.baselines = a.baselines;
  o.dataset = a.dataset;
  o.protocol = a.protocol;
  o.target = a.target;
  const std::string path = a.data.empty() ? std::string(NSC_SOURCE_DIR "/../shared/data/") +
                                                std::string(nsc::eval::default_data_file(fam))
                                          : a.data;

  const auto t0 = clock::now();
  const nsc::eval::family_data d = nsc::eval::load_family(fam, path, o);
  const auto t1 = clock::now();
  const nsc::eval::family_ranking r = nsc::eval::rank_family(d);
  const auto t2 = clock::now();
  const double load_ms = ms(t1 - t0), stats_ms = ms(t2 - t1), total_ms = ms(t2 - t0);
  const bool nats = fam == nsc::eval::family::nats_sss;
  if (!a.dump.empty()) write_dump(a.dump, d);

  if (a.json) {
    nlohmann::json j;
    j["family"] = std::string(nsc::eval::to_string(fam));
    j["data"] = path;
    j["estimator"] = std::string(nsc::to_string(d.est));
    j["convention"] = d.convention;
    j["baselines"] = d.baselines;
    j["dataset"] = nats ? nlohmann::json(d.dataset) : nlohmann::json(nullptr);
    j["protocol"] = nats ? nlohmann::json(d.protocol) : nlohmann::json(nullptr);
    j["target"] = d.target;
    j["skipped"] = d.skipped;
    j["n"] = d.size();
    j["nsc"] = to_json(r.nsc);
    j["params"] = to_json(r.params);
    j["flops"] = to_json(r.flops);
    j["time_ms"] = total_ms;
    j["timing_ms"] = {{"load", load_ms}, {"statistics", stats_ms}};
    nsc_cli::print_json(j);
    return 0;
  }

  std::printf("family      %s: %zu architectures (%zu skipped without %s) from %s\n",
              std::string(nsc::eval::to_string(fam)).c_str(), d.size(), d.skipped, d.target.c_str(),
              path.c_str());
  std::printf("settings    estimator psi_%s, convention %s, baselines %s",
              std::string(nsc::to_string(d.est)).c_str(), d.convention.c_str(),
              d.baselines.c_str());
  if (nats) std::printf(", dataset %s, protocol %s", d.dataset.c_str(), d.protocol.c_str());
  std::printf("\nNSC         %s\n", d.score_definition.c_str());
  std::printf("#Params     %s\n", d.params_definition.c_str());
  std::printf("#FLOPs      %s\n", d.flops_definition.c_str());
  std::printf("truth       %s\n\n", d.truth_definition.c_str());
  std::printf("%-9s %8s %8s %11s %12s  %s\n", "score", "tau-b", "rho", "10%-PW tau", "partial tau",
              "partial controls");
  auto row = [](const char* name, const nsc::eval::rank_summary& s, const char* controls) {
    std::printf("%-9s %8s %8s %11s %12s  %s\n", name, cell(s.tau_b).c_str(), cell(s.rho).c_str(),
                cell(s.pw10_tau).c_str(), cell(s.partial_tau).c_str(), controls);
  };
  row("NSC", r.nsc, "#Params, #FLOPs");
  row("#Params", r.params, "#FLOPs");
  row("#FLOPs", r.flops, "#Params");
  std::printf("\ntime        %.2f ms (read + score %.2f ms, statistics %.2f ms)\n", total_ms,
              load_ms, stats_ms);
  return 0;
}

const nsc_cli::command rank_command{
    "rank", [](CLI::App& app) -> std::function<int()> {
      auto args = std::make_shared<rank_args>();
      auto* sub = app.add_subcommand(
          "rank", "Ranking quality of NSC, #Params and #FLOPs on a family's ground truth: Kendall "
                  "tau-b, Spearman rho, 10%-PW tau and partial tau (the paper's ranking table)");
      sub->add_option("--family", args->family, "flexibert, gpt2, txl, nats-sss or autoformer-tiny")
          ->required();
      sub->add_option("--data", args->data,
                      "the family's table (default: its file under NSC_SOURCE_DIR/../shared/data)");
      sub->add_option("--estimator", args->estimator,
                      "psi estimator: mp (default, the paper's) or fs");
      sub->add_option(
          "--convention", args->convention,
          "reference (default, the paper's), framework (the model's own PyTorch init, "
          "variance per tensor) or a family reading: flexibert original|as_trained|nominal, "
          "txl per_head, nats-sss xautodl, autoformer-tiny official");
      sub->add_option(
          "--baselines", args->baselines,
          "#Params / #FLOPs definitions: data (default: the data's parameter column, the "
          "trained networks' FLOPs) or, for flexibert, paper (the reference "
          "implementation's count with embeddings and its analytic FLOPs)");
      sub->add_option("--dataset", args->dataset,
                      "nats-sss only: cifar10 (default), cifar100 or imagenet16-120");
      sub->add_option("--protocol", args->protocol,
                      "nats-sss only: the skip of a cell with c_in != c_out, factorized-reduce "
                      "(default) or figure-1x1");
      sub->add_option(
          "--target", args->target,
          "ground-truth column: flexibert glue (default) or a GLUE task; gpt2 / txl "
          "valid_ppl (default) or test_ppl; autoformer-tiny c100_kd_acc (default) or any "
          "target column");
      sub->add_flag("--json", args->json, "one JSON object instead of the table");
      sub->add_option("--dump", args->dump,
                      "also write the per-architecture vectors to this CSV file "
                      "(id,nsc,params,flops,truth)");
      return [args] { return run_rank(*args); };
    }};

} // namespace
