// nsc weights: psi_W of every weight matrix of a safetensors checkpoint, per layer and per
// matrix, next to psi at initialisation.
//
//   nsc weights PATH [--config config.json] [--format table|json|csv] [--json]
//               [--init NAME|hf] [--estimator mp|fs] [--svd] [--accuracy A]
//               [--plot OUT.png] [--progress]
//
// PATH: a .safetensors file, a model.safetensors.index.json (sharded), or a directory (its
// index, else every *.safetensors in it). The config is --config, else config.json next to
// PATH (in it, for a directory). With a config whose model_type nsc maps (nsc/io/weight_map.hpp:
// llama, mistral, mixtral, qwen2, qwen3, qwen2_moe, qwen3_moe, gemma*, olmo2, deci /
// nemotron-nas, deepseek_v2/v3, phi3, gpt2, gpt_neox, bert, opt) each projection is split into
// the blocks nsc score uses (Q per head, K and V per KV head, o_proj and FFN whole, experts one
// each; fused and transposed layouts split); without one every 2-D floating tensor is reported
// whole by its name.
//
// psi at initialisation (key psi_mp): --init xavier_normal (default: Xavier of each block, the
// scoring nsc score uses) or any nsc score --init name; `hf` is the model's own
// normal(0, initializer_range^2). --estimator fs uses psi_FS instead of psi_MP.
// psi_W: Cholesky of I + G (nsc::psi_w_detailed), recomputed by the automatic route (eigenvalues
// or SVD) for a block whose error estimate exceeds --accuracy (default 1e-9 relative); --svd
// forces the SVD for every block.
//
// Output: a per-matrix table with per-layer sums and totals (default); CSV (one row per matrix,
// then one per layer and a total row); or one JSON object (--json): checkpoint, files,
// model_type, family, init, variance_source, estimator, route, blas, matrices: [{name, layer,
// expert, kind, part, shape, dtype, file, transposed, psi_w, psi_mp, ratio, seconds, blocks:
// [{kind, head, row0, rows, col0, cols, psi_w, psi_mp, route}]}], layers: [{layer, psi_w,
// psi_mp, ratio, kinds: {kind: {psi_w, psi_mp, ratio}}}], total: {psi_w, psi_mp, ratio,
// matrices, seconds}, skipped: ["name (reason)"], plot (when written).
// --plot OUT.png runs scripts/plot_weights.py (python3 + matplotlib) on the JSON: psi_W / psi_MP
// per layer for each matrix kind. --progress draws a progress bar on stderr (default: only when
// stderr is a terminal).
#include "cli.hpp"
#include "eigen_calls.hpp"

#include <nsc/io/checkpoint_psi.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/prune_weights.hpp>
#include <nsc/io/safetensors.hpp>
#include <nsc/io/weight_map.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct weights_args {
  std::string path;
  std::string config;
  std::string format = "table";
  bool json = false;
  std::string init_name = "xavier_normal";
  std::string estimator = "mp";
  bool svd = false;
  double accuracy = 1e-9;
  std::string plot;
  bool progress = false;
};

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > 0) t += 'x';
    t += std::to_string(s[i]);
  }
  return t;
}

double ratio(double w, double m) { return m > 0 ? w / m : 0.0; }

/// The config next to the checkpoint: PATH/config.json for a directory, else beside the file.
fs::path find_config(const weights_args& a) {
  if (!a.config.empty()) return a.config;
  const fs::path p(a.path);
  std::error_code ec;
  const fs::path c = fs::is_directory(p, ec) ? p / "config.json" : p.parent_path() / "config.json";
  return fs::exists(c, ec) ? c : fs::path();
}

int run_weights(const weights_args& a) {
  using clock = std::chrono::steady_clock;
  const fs::path config = find_config(a);
  nsc::io::weight_geometry geo;
  if (!config.empty()) geo = nsc::io::read_weight_geometry(nsc::io::read_json_file(config, "nsc weights"));
  const nsc::io::family_rules* family = nsc::io::find_family(geo.model_type);
  const nsc::io::checkpoint ck = nsc::io::open_checkpoint(a.path);

  nsc::io::psi_w_report_options opt;
  opt.init_scoring =
      nsc::scoring_for_init(a.init_name, geo.initializer_range, nsc::parse_estimator(a.estimator));
  opt.svd = a.svd;
  opt.accuracy = a.accuracy;
  const bool bar = a.progress || isatty(2);
  const auto t0 = clock::now();
  if (bar)
    opt.progress = [t0](std::size_t done, std::size_t total, std::uint64_t bytes, std::uint64_t total_bytes) {
      const double f = total_bytes ? double(bytes) / double(total_bytes) : 1.0;
      const int width = 30, fill = int(f * width + 0.5);
      const double secs = std::chrono::duration<double>(clock::now() - t0).count();
      std::fprintf(stderr, "\r[%s%s] %zu/%zu matrices, %.2f/%.2f GB, %s", std::string(std::size_t(fill), '#').c_str(),
                   std::string(std::size_t(width - fill), ' ').c_str(), done, total, double(bytes) / 1e9,
                   double(total_bytes) / 1e9, nsc_cli::time_text(secs).c_str());
      if (f > 0 && done < total)
        std::fprintf(stderr, ", ~%s left   ", nsc_cli::time_text(secs / f - secs).c_str());
      else
        std::fprintf(stderr, "            \n");
      std::fflush(stderr);
    };
  const nsc::io::weights_report rep = nsc::io::psi_w_report(ck, family, geo, opt);

  // Per-layer sums, by kind (the blocks' kinds: fused tensors contribute their parts).
  struct sums {
    double w = 0, m = 0;
  };
  std::map<std::int64_t, std::pair<sums, std::map<std::string, sums>>> layers;
  for (const auto& mx : rep.matrices) {
    if (mx.matrix.layer < 0) continue;
    auto& L = layers[mx.matrix.layer];
    L.first.w += mx.psi_w;
    L.first.m += mx.psi_init;
    for (const auto& b : mx.blocks) {
      const std::string kind = mx.matrix.expert >= 0 ? "experts." + b.block.kind : b.block.kind;
      L.second[kind].w += b.psi_w;
      L.second[kind].m += b.psi_init;
    }
  }
  const std::string init_label =
      a.init_name == "hf" ? "hf: normal(" + nsc_cli::fmt(geo.initializer_range, 6) + ")" : a.init_name;
#if defined(EIGEN_USE_BLAS)
  const bool blas = true;
#else
  const bool blas = false;
#endif

  nlohmann::json j;
  j["checkpoint"] = a.path;
  j["files"] = ck.files.size();
  j["model_type"] = geo.model_type;
  j["family"] = rep.family;
  j["init"] = init_label;
  j["variance_source"] = std::string(nsc::to_string(opt.init_scoring.source));
  j["estimator"] = a.estimator;
  j["route"] = a.svd ? "svd" : "cholesky";
  j["blas"] = blas;
  nlohmann::json mats = nlohmann::json::array();
  for (const auto& mx : rep.matrices) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& b : mx.blocks)
      blocks.push_back({{"kind", b.block.kind}, {"head", b.block.head}, {"row0", b.block.row0},
                        {"rows", b.block.rows}, {"col0", b.block.col0}, {"cols", b.block.cols},
                        {"psi_w", b.psi_w}, {"psi_mp", b.psi_init},
                        {"route", std::string(nsc::to_string(b.route))}});
    mats.push_back({{"name", mx.matrix.tensor}, {"layer", mx.matrix.layer}, {"expert", mx.matrix.expert},
                    {"kind", mx.matrix.kind}, {"part", mx.matrix.part}, {"shape", mx.shape},
                    {"dtype", mx.dtype}, {"file", mx.file}, {"transposed", mx.matrix.transposed},
                    {"psi_w", mx.psi_w}, {"psi_mp", mx.psi_init}, {"ratio", ratio(mx.psi_w, mx.psi_init)},
                    {"seconds", mx.seconds}, {"blocks", std::move(blocks)}});
  }
  j["matrices"] = std::move(mats);
  nlohmann::json lj = nlohmann::json::array();
  for (const auto& [l, v] : layers) {
    nlohmann::json kinds = nlohmann::json::object();
    for (const auto& [k, s] : v.second)
      kinds[k] = {{"psi_w", s.w}, {"psi_mp", s.m}, {"ratio", ratio(s.w, s.m)}};
    lj.push_back({{"layer", l}, {"psi_w", v.first.w}, {"psi_mp", v.first.m},
                  {"ratio", ratio(v.first.w, v.first.m)}, {"kinds", std::move(kinds)}});
  }
  j["layers"] = std::move(lj);
  j["total"] = {{"psi_w", rep.psi_w}, {"psi_mp", rep.psi_init}, {"ratio", ratio(rep.psi_w, rep.psi_init)},
                {"matrices", rep.matrices.size()}, {"seconds", rep.seconds}};
  j["skipped"] = rep.skipped;

  std::string plot_note;
  if (!a.plot.empty()) {
    const fs::path tmp = fs::temp_directory_path() / ("nsc_weights_" + std::to_string(::getpid()) + ".json");
    nsc_cli::write_text_file(tmp.string(), j.dump() + "\n");
    using nsc_cli::shell_quote;
    const std::string tail = shell_quote(nsc_cli::script_path("plot_weights.py")) + " " +
                             shell_quote(tmp.string()) + " -o " + shell_quote(a.plot);
    const bool ok = nsc_cli::run_python(tail);
    if (ok) {
      fs::remove(tmp);
      j["plot"] = a.plot;
      plot_note = "plot     " + a.plot + " (psi_W / psi_MP per layer for each matrix kind)";
    } else {
      plot_note = "plot     not written (python3 with matplotlib needed); run: python3 " + tail;
    }
  }

  const std::string format = a.json ? "json" : a.format;
  if (format == "json") {
    nsc_cli::print_json(j);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }
  if (format == "csv") {
    std::printf("name,layer,kind,shape,dtype,blocks,psi_w,psi_mp,ratio,seconds\n");
    for (const auto& mx : rep.matrices)
      std::printf("%s,%lld,%s,%s,%s,%zu,%.17g,%.17g,%.17g,%.6g\n", mx.matrix.tensor.c_str(),
                  static_cast<long long>(mx.matrix.layer), mx.matrix.kind.c_str(), shape_text(mx.shape).c_str(),
                  mx.dtype.c_str(), mx.blocks.size(), mx.psi_w, mx.psi_init, ratio(mx.psi_w, mx.psi_init),
                  mx.seconds);
    for (const auto& [l, v] : layers)
      std::printf("layers.%lld,%lld,layer,,,,%.17g,%.17g,%.17g,\n", static_cast<long long>(l),
                  static_cast<long long>(l), v.first.w, v.first.m, ratio(v.first.w, v.first.m));
    std::printf("total,,,,,%zu,%.17g,%.17g,%.17g,%.6g\n", rep.matrices.size(), rep.psi_w, rep.psi_init,
                ratio(rep.psi_w, rep.psi_init), rep.seconds);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }
  std::printf("checkpoint %s (%zu file%s, %zu tensors)\n", a.path.c_str(), ck.files.size(),
              ck.files.size() == 1 ? "" : "s", ck.tensors.size());
  std::printf("names      %s\n",
              family ? (geo.model_type + " (" + rep.family + " table; blocks as nsc score splits them)").c_str()
              : config.empty() ? "no config: every 2-D floating tensor whole, by name"
                               : ("model_type '" + geo.model_type + "' has no name table: matrices whole, by name").c_str());
  std::printf("init       %s (variance per %s), psi_%s\n", init_label.c_str(),
              std::string(nsc::to_string(opt.init_scoring.source)).c_str(), a.estimator.c_str());
  std::printf("psi_W      %s%s\n\n", a.svd ? "SVD of every block" : "Cholesky of I + G (automatic route above the accuracy target)",
              blas ? ", OpenBLAS" : ", Eigen header-only");
  std::printf("%-52s %-12s %-5s %6s %14s %14s %8s %10s\n", "matrix", "shape", "dtype", "blocks", "psi_W",
              "psi_init", "ratio", "time");
  for (const auto& mx : rep.matrices)
    std::printf("%-52s %-12s %-5s %6zu %14.6f %14.6f %8.4f %10s\n", mx.matrix.tensor.c_str(),
                shape_text(mx.shape).c_str(), mx.dtype.c_str(), mx.blocks.size(), mx.psi_w, mx.psi_init,
                ratio(mx.psi_w, mx.psi_init), nsc_cli::time_text(mx.seconds).c_str());
  if (!layers.empty()) {
    std::printf("\n%-10s %14s %14s %8s\n", "layer", "psi_W", "psi_init", "ratio");
    for (const auto& [l, v] : layers)
      std::printf("%-10lld %14.6f %14.6f %8.4f\n", static_cast<long long>(l), v.first.w, v.first.m,
                  ratio(v.first.w, v.first.m));
  }
  std::printf("\ntotal      psi_W %.6f, psi_init %.6f, ratio %.4f, %zu matrices in %s\n", rep.psi_w,
              rep.psi_init, ratio(rep.psi_w, rep.psi_init), rep.matrices.size(),
              nsc_cli::time_text(rep.seconds).c_str());
  if (!rep.skipped.empty()) {
    std::printf("skipped    %zu tensors (not 2-D or not floating):", rep.skipped.size());
    for (std::size_t i = 0; i < rep.skipped.size() && i < 4; ++i)
      std::printf("%s %s", i ? "," : "", rep.skipped[i].c_str());
    std::printf("%s\n", rep.skipped.size() > 4 ? ", ..." : "");
  }
  if (!plot_note.empty()) std::printf("%s\n", plot_note.c_str());
  return nsc_cli::exit_answer;
}

const nsc_cli::command weights_command{"weights", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<weights_args>();
  auto* sub = app.add_subcommand(
      "weights", "psi_W of every weight matrix of a safetensors checkpoint (file, index or "
                 "directory) per layer and per matrix, next to psi at initialisation");
  sub->add_option("path", args->path, "a .safetensors file, a model.safetensors.index.json or a directory")
      ->required();
  sub->add_option("--config", args->config,
                  "Hugging Face config.json (default: config.json next to the checkpoint)");
  sub->add_option("--format", args->format, "output: table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  sub->add_flag("--json", args->json, "same as --format json");
  sub->add_option("--init", args->init_name,
                  "initialisation of psi at init: xavier_normal (default, per block, as nsc score), "
                  "any nsc score --init name, or hf (normal(initializer_range))");
  sub->add_option("--estimator", args->estimator, "psi at init: mp (default) or fs")
      ->check(CLI::IsMember({"mp", "fs"}));
  sub->add_flag("--svd", args->svd, "psi_W by SVD for every block (slow; the reference route)");
  sub->add_option("--accuracy", args->accuracy,
                  "relative accuracy demanded of the Cholesky route (default 1e-9); blocks above "
                  "it are recomputed by eigenvalues or SVD")
      ->check(CLI::Range(1e-15, 1e-2));
  sub->add_option("--plot", args->plot, "write a PNG of psi_W / psi_MP per layer (scripts/plot_weights.py)");
  sub->add_flag("--progress", args->progress, "progress bar on stderr (default: when stderr is a terminal)");
  return [args] { return run_weights(*args); };
}};

} // namespace

// ---- the CLI's other calls into the Eigen backend (eigen_calls.hpp): this is the one translation
// unit of the tool that instantiates it.

nsc::network_score nsc_cli::score_with_checkpoint(const nsc::network& net, const nsc::scoring& s,
                                                  const std::filesystem::path& config_path,
                                                  const std::filesystem::path& checkpoint_path) {
  return nsc::io::score_with_checkpoint(net, s, config_path, checkpoint_path);
}

nsc_cli::monte_carlo_summary nsc_cli::psi_w_monte_carlo(std::int64_t rows, std::int64_t cols,
                                                        const nsc::init& ini, std::int64_t trials,
                                                        std::uint64_t seed,
                                                        const std::string& dist) {
  const auto d = dist.empty()       ? nsc::entry_distribution::from_init
                 : dist == "uniform" ? nsc::entry_distribution::uniform
                                     : nsc::entry_distribution::normal;
  const nsc::psi_w_monte_carlo_result r =
      nsc::psi_w_monte_carlo(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols), ini,
                             static_cast<Eigen::Index>(trials), seed, d);
  return {r.mean, r.standard_error, r.trials};
}

nsc_cli::prune_weights_outcome nsc_cli::prune_weights(const nsc::io::checkpoint& in, const std::string& model_type,
                                                      nsc::search::prune_space& space, const std::string& criterion, bool values) {
  nsc::io::prune_weight_settings s;
  s.model_type = model_type;
  s.criterion = nsc::io::parse_channel_criterion(criterion);
  s.values = values;
  if (isatty(2)) { // a progress line on a terminal, as nsc weights draws (the 8B takes minutes)
    const auto t0 = std::chrono::steady_clock::now();
    s.progress = [t0](std::size_t done, std::size_t total) {
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "\rpsi_W of the checkpoint's layers: %zu/%zu, %s", done, total, nsc_cli::time_text(secs).c_str());
      if (done < total) std::fprintf(stderr, ", ~%s left   ", nsc_cli::time_text(secs / double(done) * double(total - done)).c_str());
      else std::fprintf(stderr, "            \n");
      std::fflush(stderr);
    };
  }
  auto v = std::make_shared<const nsc::io::prune_weight_values_t>(nsc::io::prune_weight_values(in, space, s));
  if (values) nsc::io::apply_weight_scores(space, *v);
  return {nsc::io::weight_orders(v), v->matrices, v->float_matrices, v->seconds};
}
