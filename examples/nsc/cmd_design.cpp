// nsc design: the best decoder from scratch under a deployment envelope: an outer enumeration of
// hidden size x depth, and for each the exact multi-budget search over per-layer KV heads and FFN
// widths (nsc/search/prune_space.hpp, decilm space without no-op), the best NSC over all.
//
//   nsc design [--params P] [--params-non-embedding P] [--flops F] [--kv-bytes K] [--memory M]
//              [--hidden-min 512 --hidden-max 4096 --hidden-step 256] [--depth-min 4 --depth-max 48
//              --depth-step 2] [--vocab 128256] [--head-dim 128] [--kv-heads 8] [--ffn-ratio 4]
//              [--tie] [--ffn-multiple 256] [--seq-len T --context C --batch B --kv-dtype D
//              --weight-dtype D] [--emit-config OUT.json] [--json] [--front] [--plot OUT.png]
//
// Defaults (stated): Llama-style decoder (RMSNorm, SwiGLU FFN, rotary positions, no biases), the
// Llama-3 vocabulary of 128,256 tokens, untied head (--tie ties it), head_dim 128 (query heads =
// hidden / 128, hidden in multiples of 128), up to 8 KV heads (the largest count <= 8 dividing the
// heads; per layer any k dividing the heads below it: the GQA grid), FFN widths on a 256 grid up to 4 x hidden. Scoring as nsc score.
// Output: the winning (hidden, depth) with its per-layer KV heads and widths and its totals; the
// config is written as DeciLM (nemotron-nas block_configs), read back and checked. --front lists
// every feasible configuration's optimum (the front over hidden x depth; Pareto-optimal ones
// marked: no other has >= NSC at <= every budgeted cost); --plot draws them (plot_front.py).
#include "cli.hpp"
#include "units_option.hpp"
#include "gpu_option.hpp"
#include "plot_front.hpp"

#include <nsc/io/hf_config.hpp>
#include <nsc/io/prune_config.hpp>
#include <nsc/search/common.hpp>
#include <nsc/search/prune_space.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <vector>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

namespace {

using nsc_cli::grouped;

struct design_args {
  std::optional<double> params, params_non_embedding, flops, kv_bytes, memory;
  std::optional<double> weights_memory, memory_per_gpu, decode_ms, tokens_per_s, ttft_ms;
  std::string gpu, gpu_file;
  double utilization = 0.9, reserve = 0.5 * 0x1p30;
  std::int64_t hidden_min = 512, hidden_max = 4096, hidden_step = 256;
  std::int64_t depth_min = 4, depth_max = 48, depth_step = 2;
  std::int64_t vocab = 128256, head_dim = 128, kv_heads = 8, ffn_ratio = 4, ffn_multiple = 256;
  bool tie = false;
  std::int64_t seq_len = 256;
  long long context = 0, batch = 1;
  std::string kv_dtype = "bf16", weight_dtype = "bf16";
  std::string emit_config;
  std::string plot;
  bool front = false;
  bool json = false;
};

/// A configuration's optimum as a front point (the fields plot_front.py's generic mode reads).
nlohmann::json design_point(const nsc::search::prune_candidate& c, std::int64_t hidden, std::int64_t depth) {
  const auto& t = c.totals.cost;
  return {{"hidden_size", hidden},  {"num_hidden_layers", depth},   {"nsc", c.totals.nsc},
          {"params_total", t[0]},   {"params_non_embedding", t[1]}, {"prefill_flops", t[3]},
          {"flops_per_token", c.totals.flops_per_token}, {"kv_cache_bytes", t[4]}, {"memory_bytes", t[5]}};
}

nlohmann::json base_config(const design_args& a, std::int64_t hidden, std::int64_t depth) {
  const std::int64_t heads = hidden / a.head_dim;
  const std::int64_t ffn = (a.ffn_ratio * hidden) / a.ffn_multiple * a.ffn_multiple;
  std::int64_t kv = std::min(a.kv_heads, heads); // the largest KV-head count <= --kv-heads dividing the heads
  while (heads % kv != 0) --kv;
  return {{"model_type", "llama"},
          {"architectures", {"LlamaForCausalLM"}},
          {"hidden_size", hidden},
          {"intermediate_size", ffn},
          {"num_hidden_layers", depth},
          {"num_attention_heads", heads},
          {"num_key_value_heads", kv},
          {"vocab_size", a.vocab},
          {"tie_word_embeddings", a.tie},
          {"rms_norm_eps", 1e-5},
          {"hidden_act", "silu"},
          {"rope_theta", 500000.0},
          {"max_position_embeddings", 131072},
          {"torch_dtype", "bfloat16"}};
}

int run_design(const design_args& a) {
  using namespace nsc::search;
  if (a.hidden_step < 1 || a.depth_step < 1 || a.hidden_min < a.head_dim || a.hidden_max < a.hidden_min ||
      a.depth_min < 1 || a.depth_max < a.depth_min)
    throw std::invalid_argument("nsc design: need head_dim <= --hidden-min <= --hidden-max, 1 <= --depth-min <= "
                                "--depth-max and steps >= 1");
  const bool gpu = !a.gpu.empty() || !a.gpu_file.empty();
  if (!a.params && !a.params_non_embedding && !a.flops && !a.kv_bytes && !a.memory && !a.weights_memory && !a.memory_per_gpu &&
      !gpu)
    throw std::invalid_argument("nsc design: give at least one budget (--params, --params-non-embedding, --flops, "
                                "--kv-bytes, --memory, --weights-memory, --memory-per-gpu, --gpu)");
  if ((a.decode_ms || a.tokens_per_s || a.ttft_ms) && !gpu)
    throw std::invalid_argument("nsc design: --decode-ms, --tokens-per-s and --ttft-ms need --gpu NAME or --gpu-file");
  prune_space_settings ss;
  ss.format = prune_format::decilm;
  ss.no_op = false;
  ss.ffn_multiple = a.ffn_multiple;
  ss.load.seq_len = a.seq_len;
  ss.load.context = a.context;
  ss.load.batch = a.batch;
  ss.load.kv = nsc::parse_dtype(a.kv_dtype);
  ss.load.weights = nsc::parse_dtype(a.weight_dtype);
  prune_search_settings s;
  auto add = [&](prune_cost c, const std::optional<double>& v, double scale) {
    if (v) s.budgets.push_back({c, nsc::search::budget_floor(*v * scale, "nsc design")});
  };
  add(prune_cost::params, a.params, 1);
  add(prune_cost::params_non_embedding, a.params_non_embedding, 1);
  add(prune_cost::prefill_flops, a.flops, double(a.seq_len));
  add(prune_cost::kv_bytes, a.kv_bytes, 1);
  add(prune_cost::memory, a.memory, 1);
  add(prune_cost::weight_bytes, a.weights_memory, 1);
  if (gpu) { // the GPU's memory bounds weights + KV (activations of the widest configuration, reserve and
             // utilization as nsc prune states them), and enables the time budgets
    nsc::serving_settings sv;
    sv.gpu = nsc_cli::gpu_option(a.gpu, a.gpu_file, "nsc design");
    sv.gpu_memory_utilization = a.utilization;
    sv.reserve_bytes = a.reserve;
    ss.serving = sv;
    const nsc::hf_model widest = nsc::read_hf_config(base_config(a, a.hidden_max - a.hidden_max % a.head_dim, a.depth_min));
    const double act = nsc::activation_bytes(widest.spec, sv, a.batch);
    const double limit = std::max(0.0, a.utilization * (a.memory_per_gpu ? std::min(*a.memory_per_gpu, sv.gpu.memory_bytes)
                                                                           : sv.gpu.memory_bytes) - act - a.reserve);
    s.budgets.push_back({prune_cost::memory_per_gpu, nsc::search::budget_floor(limit, "nsc design")});
  } else {
    add(prune_cost::memory_per_gpu, a.memory_per_gpu, 1);
  }
  add(prune_cost::decode_time, a.decode_ms, 1e9);
  if (a.tokens_per_s) {
    if (!(*a.tokens_per_s > 0)) throw std::invalid_argument("nsc design: --tokens-per-s must be > 0");
    const double ps = double(a.batch) / *a.tokens_per_s * 1e12;
    bool merged = false;
    for (auto& b : s.budgets)
      if (b.cost == prune_cost::decode_time) b.limit = std::min(b.limit, nsc::search::budget_floor(ps, "nsc design")), merged = true;
    if (!merged) s.budgets.push_back({prune_cost::decode_time, nsc::search::budget_floor(ps, "nsc design")});
  }
  add(prune_cost::prefill_time, a.ttft_ms, 1e9);
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<prune_candidate> best;
  std::optional<prune_space> best_space;
  nlohmann::json best_cfg;
  std::int64_t best_h = 0, best_l = 0, outer = 0, feasible = 0;
  std::vector<nlohmann::json> points; // every feasible configuration's optimum (--front, --plot)
  std::vector<nsc::search::prune_cost_vector> point_costs;
  for (std::int64_t h = a.hidden_min; h <= a.hidden_max; h += a.hidden_step) {
    if (h % a.head_dim != 0) continue;
    for (std::int64_t l = a.depth_min; l <= a.depth_max; l += a.depth_step) {
      ++outer;
      const nlohmann::json cfg = base_config(a, h, l);
      const nsc::hf_model m = nsc::read_hf_config(cfg);
      prune_space sp = make_prune_space(m.spec, ss);
      const prune_search_result r = search_prune(sp, s);
      if (!r.best) continue;
      ++feasible;
      points.push_back(design_point(*r.best, h, l));
      point_costs.push_back(r.best->totals.cost);
      if (!best || r.best->totals.nsc > best->totals.nsc) {
        best = r.best;
        best_space = std::move(sp);
        best_cfg = cfg;
        best_h = h;
        best_l = l;
      }
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!best) {
    std::fprintf(stderr, "nsc: infeasible: none of the %lld (hidden, depth) configurations meets every budget\n",
                 static_cast<long long>(outer));
    return nsc_cli::exit_no_answer;
  }
  if (!a.emit_config.empty()) {
    const nlohmann::json out = nsc::prune_emit_config(best_cfg, *best_space, *best);
    nsc::prune_verify_config(out, *best_space, *best);
    nsc_cli::write_text_file(a.emit_config, out.dump(2) + "\n");
  }
  const auto& t = best->totals.cost;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& c : best->layers) layers.push_back({{"heads", c.heads}, {"kv_heads", c.kv_heads}, {"ffn", c.ffn_width}});
  nlohmann::json j = {{"hidden_size", best_h}, {"num_hidden_layers", best_l}, {"head_dim", a.head_dim},
                      {"num_attention_heads", best_h / a.head_dim}, {"vocab_size", a.vocab},
                      {"nsc", best->totals.nsc}, {"params_total", t[0]}, {"params_non_embedding", t[1]},
                      {"prefill_flops", t[3]}, {"flops_per_token", best->totals.flops_per_token},
                      {"kv_cache_bytes", t[4]}, {"memory_bytes", t[5]}, {"layers", layers},
                      {"outer_configs", outer}, {"feasible_configs", feasible}, {"time_seconds", secs}};
  if (!a.emit_config.empty()) j["emitted_config"] = a.emit_config;
  if (gpu || a.weights_memory || a.memory_per_gpu) {
    j["weight_bytes"] = t[6];
    j["memory_per_gpu_bytes"] = t[7];
  }
  if (gpu) {
    j["gpu"] = ss.serving->gpu.name;
    j["decode_time_ps"] = t[8];
    j["prefill_time_ps"] = t[9];
  }
  nlohmann::json bj = nlohmann::json::object();
  for (const prune_budget& x : s.budgets) bj[std::string(to_string(x.cost))] = x.limit;
  j["budgets"] = bj;
  j["seq_len"] = a.seq_len;
  // The front over (hidden, depth): each configuration's optimum, Pareto-optimal when no other
  // has at least its NSC at no more of every budgeted cost (and is better in one).
  std::size_t pareto = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (std::size_t k = 0; k < points.size() && !dominated; ++k) {
      if (k == i) continue;
      const double vi = points[i]["nsc"].get<double>(), vk = points[k]["nsc"].get<double>();
      bool le = vk >= vi, strict = vk > vi;
      for (const prune_budget& x : s.budgets) {
        const std::size_t c = std::size_t(x.cost);
        le = le && point_costs[k][c] <= point_costs[i][c];
        strict = strict || point_costs[k][c] < point_costs[i][c];
      }
      dominated = le && strict;
    }
    points[i]["pareto"] = !dominated;
    pareto += !dominated;
  }
  std::string plot_note;
  if (!a.plot.empty()) {
    nlohmann::json pj = j;
    pj.erase("layers");
    pj["front"] = points;
    pj["hidden_size"] = best_h;
    const nsc_cli::plot_outcome po = nsc_cli::plot_front(
        pj, a.plot, "Llama-style decoder, hidden x depth",
        "every configuration's optimum: NSC against params and each budgeted cost");
    if (po.written) j["plot"] = a.plot;
    plot_note = po.note;
  }
  if (a.front) j["front"] = points;
  if (a.json) {
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    nsc_cli::print_json(j);
    return nsc_cli::exit_answer;
  }
  std::printf("NSC-DP design  Llama-style decoder (SwiGLU, RMSNorm, rotary), vocab %s, head_dim %lld, <= %lld KV heads\n",
              grouped(a.vocab).c_str(), static_cast<long long>(a.head_dim), static_cast<long long>(a.kv_heads));
  std::printf("outer    hidden %lld..%lld step %lld x depth %lld..%lld step %lld: %lld configurations, %lld feasible\n",
              static_cast<long long>(a.hidden_min), static_cast<long long>(a.hidden_max),
              static_cast<long long>(a.hidden_step), static_cast<long long>(a.depth_min),
              static_cast<long long>(a.depth_max), static_cast<long long>(a.depth_step), static_cast<long long>(outer),
              static_cast<long long>(feasible));
  for (const prune_budget& x : s.budgets)
    std::printf("budget   %-20s <= %s\n", std::string(to_string(x.cost)).c_str(), grouped(x.limit).c_str());
  std::printf("best     hidden %lld, %lld layers, %lld heads; NSC %.1f\n", static_cast<long long>(best_h),
              static_cast<long long>(best_l), static_cast<long long>(best_h / a.head_dim), best->totals.nsc);
  std::printf("         params %s (non-embedding %s), FLOPs/token %.6g, KV %s bytes, memory %s bytes\n",
              grouped(t[0]).c_str(), grouped(t[1]).c_str(), best->totals.flops_per_token, grouped(t[4]).c_str(),
              grouped(t[5]).c_str());
  if (gpu)
    std::printf("         on %s: decode %.4g ms/step = %.5g tokens/s at batch %lld, TTFT %.4g ms at %lld tokens\n",
                ss.serving->gpu.name.c_str(), double(t[8]) * 1e-9, double(a.batch) / (double(t[8]) * 1e-12), a.batch,
                double(t[9]) * 1e-9, static_cast<long long>(ss.load.context_tokens()));
  for (std::size_t i = 0; i < best->layers.size();) {
    std::size_t k = i + 1;
    const auto& c = best->layers[i];
    while (k < best->layers.size() && best->layers[k].kv_heads == c.kv_heads && best->layers[k].ffn_width == c.ffn_width) ++k;
    if (k - 1 == i)
      std::printf("         layer %zu: %lld KV heads, FFN %lld\n", i, static_cast<long long>(c.kv_heads),
                  static_cast<long long>(c.ffn_width));
    else
      std::printf("         layers %zu-%zu: %lld KV heads, FFN %lld\n", i, k - 1, static_cast<long long>(c.kv_heads),
                  static_cast<long long>(c.ffn_width));
    i = k;
  }
  if (a.front) {
    std::printf("front    %zu configurations' optima, %zu Pareto-optimal over NSC and the budgeted costs (--json for all):\n",
                points.size(), pareto);
    for (const nlohmann::json& p : points)
      if (p["pareto"].get<bool>())
        std::printf("         hidden %5lld x %3lld layers  NSC %10.1f  params %s  KV %s bytes\n",
                    static_cast<long long>(p["hidden_size"].get<std::int64_t>()),
                    static_cast<long long>(p["num_hidden_layers"].get<std::int64_t>()), p["nsc"].get<double>(),
                    grouped(p["params_total"].get<std::int64_t>()).c_str(),
                    grouped(p["kv_cache_bytes"].get<std::int64_t>()).c_str());
  }
  if (!a.emit_config.empty()) std::printf("config   %s (decilm; read back and checked)\n", a.emit_config.c_str());
  if (!plot_note.empty()) std::printf("%s\n", plot_note.c_str());
  std::printf("time     %s\n", nsc_cli::time_text(secs).c_str());
  return nsc_cli::exit_answer;
}

const nsc_cli::command design_command{"design", [](CLI::App& app) -> std::function<int()> {
  auto a = std::make_shared<design_args>();
  auto* sub = app.add_subcommand("design", "the best Llama-style decoder from scratch under params / FLOPs / KV / "
                                           "memory budgets (hidden x depth outer, exact per-layer KV heads and FFN widths)");
  sub->add_option("--params", a->params, "bound on total params")->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc design: --params"))->check(CLI::NonNegativeNumber);
  sub->add_option("--params-non-embedding", a->params_non_embedding, "bound on non-embedding params")->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc design: --params-non-embedding"))->check(CLI::NonNegativeNumber);
  sub->add_option("--flops", a->flops, "bound on prefill FLOPs per token at --seq-len")->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc design: --flops"))->check(CLI::NonNegativeNumber);
  sub->add_option("--kv-bytes", a->kv_bytes, "bound on KV-cache bytes at --context x --batch")->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc design: --kv-bytes"))->check(CLI::NonNegativeNumber);
  sub->add_option("--weights-memory", a->weights_memory, "bound on weight bytes alone (12GiB)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc design: --weights-memory"));
  sub->add_option("--memory-per-gpu", a->memory_per_gpu, "one GPU's memory (24GiB; with --gpu: utilization x min(it, the GPU's) - activations - reserve)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc design: --memory-per-gpu"));
  sub->add_option("--gpu", a->gpu, "a GPU (" + nsc::gpu_names() + "): weights + KV + activations + reserve within its memory; time budgets");
  sub->add_option("--gpu-file", a->gpu_file, "JSON with your own GPU profile(s)");
  sub->add_option("--gpu-memory-utilization", a->utilization, "with --gpu: the engine's share of memory (default 0.9)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::fraction, "nsc design: --gpu-memory-utilization"));
  sub->add_option("--reserve", a->reserve, "with --gpu: CUDA context and workspaces per GPU (default 0.5GiB)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc design: --reserve"));
  sub->add_option("--decode-ms", a->decode_ms, "with --gpu: bound on the decode step at --batch, --context (ms; 40, 40ms, 0.04s)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::milliseconds, "nsc design: --decode-ms"));
  sub->add_option("--tokens-per-s", a->tokens_per_s, "with --gpu: decode tokens/s at --batch at least this")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::count, "nsc design: --tokens-per-s"));
  sub->add_option("--ttft-ms", a->ttft_ms, "with --gpu: bound on the prefill of one --context sequence (ms)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::milliseconds, "nsc design: --ttft-ms"));
  sub->add_option("--memory", a->memory, "bound on weight + KV bytes")->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc design: --memory"))->check(CLI::NonNegativeNumber);
  sub->add_option("--hidden-min", a->hidden_min, "smallest hidden size (default 512)")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_option("--hidden-max", a->hidden_max, "largest hidden size (default 4096)")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_option("--hidden-step", a->hidden_step, "hidden size step (default 256)")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_option("--depth-min", a->depth_min, "fewest layers (default 4)")->check(CLI::Range(std::int64_t(1), std::int64_t(1024)));
  sub->add_option("--depth-max", a->depth_max, "most layers (default 48)")->check(CLI::Range(std::int64_t(1), std::int64_t(1024)));
  sub->add_option("--depth-step", a->depth_step, "depth step (default 2)")->check(CLI::Range(std::int64_t(1), std::int64_t(1024)));
  sub->add_option("--vocab", a->vocab, "vocabulary (default 128256, Llama 3's)")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 24));
  sub->add_option("--head-dim", a->head_dim, "head width (default 128)")->check(CLI::Range(std::int64_t(1), std::int64_t(4096)));
  sub->add_option("--kv-heads", a->kv_heads, "most KV heads per layer (default 8)")->check(CLI::Range(std::int64_t(1), std::int64_t(4096)));
  sub->add_option("--ffn-ratio", a->ffn_ratio, "widest FFN = ratio x hidden (default 4)")->check(CLI::Range(std::int64_t(1), std::int64_t(64)));
  sub->add_option("--ffn-multiple", a->ffn_multiple, "FFN width grid (default 256)")->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_flag("--tie", a->tie, "tie the LM head to the embedding");
  sub->add_option("--seq-len", a->seq_len, "prefill length T (default 256)")->transform(nsc_cli::units(nsc::io::quantity_kind::tokens, "nsc design: --seq-len"))->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 24));
  sub->add_option("--context", a->context, "cached tokens (default T)")->transform(nsc_cli::units(nsc::io::quantity_kind::tokens, "nsc design: --context"))->check(CLI::Range(1LL, 1000000000000LL));
  sub->add_option("--batch", a->batch, "sequences cached (default 1)")->transform(nsc_cli::units(nsc::io::quantity_kind::tokens, "nsc design: --batch"))->check(CLI::Range(1LL, 1000000000LL));
  sub->add_option("--kv-dtype", a->kv_dtype, "KV dtype (default bf16)")->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8"}));
  sub->add_option("--weight-dtype", a->weight_dtype, "weight dtype (default bf16)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8", "int4"}));
  sub->add_option("--emit-config", a->emit_config, "write the design as a DeciLM config.json");
  sub->add_flag("--json", a->json, "one JSON object");
  sub->add_flag("--front", a->front,
                "also every feasible (hidden, depth) configuration's optimum, the Pareto-optimal ones marked");
  sub->add_option("--plot", a->plot, "write a PNG of the configurations' optima (scripts/plot_front.py)");
  return [a] { return run_design(*a); };
}};

} // namespace
