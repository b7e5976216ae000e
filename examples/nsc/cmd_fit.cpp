// nsc fit: does a model fit a GPU (or a tensor-parallel group of GPUs) at a workload, and how
// fast does it serve there? (docs/score.md "Does it fit: `nsc fit`")
//
//   nsc fit CONFIG.json --gpu L4 [--gpu-file MY.json] [--gpus N --tp N --ep N] --context 32k
//           --batch 4 [--kv-dtype fp8] [--weight-dtype bf16] [--gpu-memory-utilization 0.9]
//           [--prefill-chunk 2048] [--reserve 0.5GiB] [--bandwidth-efficiency 0.8]
//           [--compute-efficiency 0.7] [--layers] [--json]
//
// Output: per GPU the weights, KV cache (replicated KV heads counted where tp exceeds them),
// activations at the prefill chunk and reserve against gpu_memory_utilization x memory; fits or
// not; the largest batch at this context and the longest context at this batch that fit; a
// roofline estimate (nsc/model/serving.hpp) of the decode step, tokens/s at the batch and the
// prefill time (time to first token) of one sequence of the context, per layer (--layers) and in
// total; every default with the answer. Exit 0 when it fits, 1 when it does not, 2 on bad input.
#include "cli.hpp"
#include "gpu_option.hpp"

#include <nsc/io/hf_config.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/units.hpp>
#include <nsc/model/serving.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace {

using nsc_cli::grouped;

struct fit_args {
  std::string config;
  nsc_cli::serving_options serving;
  std::int64_t gpus = 0, tp = 0, ep = 1;
  std::string context = "8192", batch = "1";
  std::string kv_dtype = "bf16", weight_dtype; // weight_dtype empty: as the checkpoint stores them
  bool layers = false, json = false;
};

std::string gib(double b) { return nsc_cli::fmt(b / double(1ull << 30), 4) + " GiB"; }
std::string ms(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  return buf;
}
std::string us(std::int64_t ps) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", double(ps) * 1e-6);
  return buf;
}

int run_fit(const fit_args& a) {
  const nlohmann::json raw = nsc::io::read_json_file(a.config, "nsc fit");
  nsc::hf_model m = nsc::read_hf_config(raw);
  if (!raw.contains("_name_or_path")) m.spec.name = std::filesystem::path(a.config).stem().string();
  nsc::serving_settings s = nsc_cli::serving(a.serving, "nsc fit");
  const std::int64_t tp = a.tp > 0 ? a.tp : (a.gpus > 0 ? a.gpus : 1);
  const std::int64_t gpus = a.gpus > 0 ? a.gpus : tp;
  if (gpus % tp != 0)
    throw std::invalid_argument("nsc fit: --gpus " + std::to_string(gpus) + " must be a multiple of --tp " + std::to_string(tp) +
                                " (gpus / tp data-parallel replicas)");
  s.par.tp = tp;
  s.par.dp = gpus / tp;
  s.par.ep = a.ep;
  nsc::workload w;
  w.context = nsc::io::parse_tokens(a.context, "nsc fit: --context", 1, std::int64_t(1) << 40);
  w.seq_len = w.context;
  w.batch = nsc::io::parse_tokens(a.batch, "nsc fit: --batch", 1, std::int64_t(1) << 30);
  w.kv = nsc::parse_dtype(a.kv_dtype);
  if (!a.weight_dtype.empty()) w.weights = nsc::parse_dtype(a.weight_dtype); // the compute peak's dtype too
  w.stored = nsc::hf_weight_storage(m, a.weight_dtype);                      // nsc score's default
  const nsc::serving_report r = nsc::serve(m.spec, w, s);
  const nsc::gpu_profile& g = s.gpu;
  const double free_bytes = r.budget_bytes - r.memory_bytes;

  // Runs of identical layers (same sublayer figures).
  struct run {
    std::size_t first, last;
  };
  std::vector<run> runs;
  for (std::size_t i = 0; i < r.attention.size(); ++i) {
    auto same = [&](std::size_t x, std::size_t y) {
      return r.attention[x].decode_ps == r.attention[y].decode_ps && r.ffn[x].decode_ps == r.ffn[y].decode_ps &&
             r.attention[x].prefill_ps == r.attention[y].prefill_ps && r.ffn[x].prefill_ps == r.ffn[y].prefill_ps &&
             r.attention[x].memory_bytes() == r.attention[y].memory_bytes() && r.ffn[x].memory_bytes() == r.ffn[y].memory_bytes();
    };
    if (!runs.empty() && same(runs.back().first, i)) runs.back().last = i;
    else runs.push_back({i, i});
  }
  std::int64_t fixed_decode = 0, fixed_prefill = 0;
  for (const auto& e : r.fixed) fixed_decode += e.decode_ps * e.repeat, fixed_prefill += e.prefill_ps * e.repeat;

  const std::string model_text =
      "roofline per sublayer on one GPU: max(bytes / (bandwidth x " + nsc_cli::fmt(s.bandwidth_efficiency, 3) +
      "), linear FLOPs / (peak at the weight dtype x " + nsc_cli::fmt(s.compute_efficiency, 3) +
      ") + attention FLOPs / (bf16 peak x " + nsc_cli::fmt(s.compute_efficiency, 3) +
      ")); decode: weights (MoE: experts touched) + KV read; prefill: causal, in chunks of " + std::to_string(r.chunk) +
      " tokens, LM head for the last token; all-reduce traffic not modelled";
  if (a.json) {
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t i = 0; i < r.attention.size(); ++i)
      layers.push_back({{"layer", i},
                        {"attention", {{"memory_bytes", r.attention[i].memory_bytes()}, {"decode_ps", r.attention[i].decode_ps},
                                       {"prefill_ps", r.attention[i].prefill_ps}, {"decode_memory_bound", r.attention[i].decode_memory_bound}}},
                        {"ffn", {{"memory_bytes", r.ffn[i].memory_bytes()}, {"decode_ps", r.ffn[i].decode_ps},
                                 {"prefill_ps", r.ffn[i].prefill_ps}, {"decode_memory_bound", r.ffn[i].decode_memory_bound}}}});
    nlohmann::json j = {
        {"model", m.spec.name},
        {"model_type", m.model_type},
        {"gpu", {{"name", g.name}, {"memory_bytes", g.memory_bytes}, {"bandwidth", g.bandwidth}, {"bf16_flops", g.bf16_flops},
                 {"fp8_flops", g.fp8_flops}, {"int8_ops", g.int8_ops}, {"source", g.source}}},
        {"parallel", {{"gpus", gpus}, {"tp", tp}, {"ep", a.ep}, {"replicas", s.par.dp}}},
        {"workload", {{"context", w.context}, {"batch", w.batch}, {"kv_dtype", a.kv_dtype}, {"weight_dtype", w.stored->name},
                      {"weight_dtype_source", w.stored->source}}},
        {"settings", {{"gpu_memory_utilization", s.gpu_memory_utilization}, {"prefill_chunk", r.chunk},
                      {"reserve_bytes", s.reserve_bytes}, {"bandwidth_efficiency", s.bandwidth_efficiency},
                      {"compute_efficiency", s.compute_efficiency}}},
        {"per_gpu", {{"weight_bytes", r.weight_bytes}, {"kv_cache_bytes", r.kv_bytes}, {"activation_bytes", r.activation_bytes},
                     {"reserve_bytes", r.reserve_bytes}, {"memory_bytes", r.memory_bytes}, {"budget_bytes", r.budget_bytes}}},
        {"fits", r.fits},
        {"max_batch", r.max_batch},
        {"max_context", r.max_context},
        {"decode_ps", r.decode_ps},
        {"decode_ms", r.decode_seconds() * 1e3},
        {"tokens_per_s", r.tokens_per_second()},
        {"prefill_ps", r.prefill_ps},
        {"ttft_ms", r.prefill_seconds() * 1e3},
        {"fixed", {{"decode_ps", fixed_decode}, {"prefill_ps", fixed_prefill}}},
        {"latency_model", model_text},
        {"layers", layers}};
    nsc_cli::print_json(j);
    return r.fits ? nsc_cli::exit_answer : nsc_cli::exit_no_answer;
  }
  std::printf("nsc fit  %s (%s, %zu layers) on %lld x %s\n", m.spec.name.c_str(), m.model_type.c_str(), r.attention.size(),
              static_cast<long long>(gpus), g.name.c_str());
  std::printf("gpu      %s GB (%s) memory, %s GB/s, dense bf16 %s / fp8 %s / int8 %s TFLOPS\nsource   %s\n",
              nsc_cli::fmt(g.memory_bytes / 1e9, 5).c_str(), gib(g.memory_bytes).c_str(),
              nsc_cli::fmt(g.bandwidth / 1e9, 5).c_str(), nsc_cli::fmt(g.bf16_flops / 1e12, 5).c_str(),
              g.fp8_flops > 0 ? nsc_cli::fmt(g.fp8_flops / 1e12, 5).c_str() : "none",
              nsc_cli::fmt(g.int8_ops / 1e12, 5).c_str(), g.source.c_str());
  std::printf("workload context %s tokens, batch %s, KV %s, weights %s; tp %lld, ep %lld, %lld replica(s)\n",
              grouped(w.context).c_str(), grouped(w.batch).c_str(), a.kv_dtype.c_str(),
              nsc_cli::weights_text(w.stored->name, w.stored->source).c_str(),
              static_cast<long long>(tp), static_cast<long long>(a.ep), static_cast<long long>(s.par.dp));
  std::printf("memory per GPU %26s\n", "bytes");
  auto line = [](const char* what, double v) { std::printf("  %-24s %22s %14s\n", what, grouped((long long)v).c_str(), gib(v).c_str()); };
  line("weights", double(r.weight_bytes));
  line(tp > 1 ? "KV cache (replicas incl.)" : "KV cache (C x batch)", double(r.kv_bytes));
  line(("activations (chunk " + std::to_string(r.chunk) + ")").c_str(), r.activation_bytes);
  line("reserve", r.reserve_bytes);
  line("total", r.memory_bytes);
  line(("budget " + nsc_cli::fmt(s.gpu_memory_utilization, 3) + " x memory").c_str(), r.budget_bytes);
  if (r.fits)
    std::printf("answer   FITS, %s to spare per GPU\n", gib(free_bytes).c_str());
  else
    std::printf("answer   DOES NOT FIT: %s short per GPU\n", gib(-free_bytes).c_str());
  std::printf("largest  batch %s at context %s; context %s at batch %s\n", grouped(r.max_batch).c_str(),
              grouped(w.context).c_str(), grouped(r.max_context).c_str(), grouped(w.batch).c_str());
  std::printf("decode   %s per step at batch %s = %s tokens/s (%s tokens/s per sequence)\n", ms(r.decode_seconds()).c_str(),
              grouped(w.batch).c_str(), nsc_cli::fmt(r.tokens_per_second(), 5).c_str(),
              nsc_cli::fmt(r.tokens_per_second() / double(w.batch), 5).c_str());
  std::printf("prefill  %s to the first token of one %s-token sequence\n", ms(r.prefill_seconds()).c_str(),
              grouped(w.context).c_str());
  if (a.layers || runs.size() <= 4) {
    std::printf("%-16s %14s %14s %12s %14s %14s\n", "layers", "attn decode us", "ffn decode us", "bound", "attn prefill ms",
                "ffn prefill ms");
    for (const run& x : runs) {
      const auto& at = r.attention[x.first];
      const auto& ff = r.ffn[x.first];
      const std::string name = x.first == x.last ? std::to_string(x.first) : std::to_string(x.first) + "-" + std::to_string(x.last);
      std::printf("%-16s %14s %14s %12s %14s %14s\n", name.c_str(), us(at.decode_ps).c_str(), us(ff.decode_ps).c_str(),
                  at.decode_memory_bound && ff.decode_memory_bound ? "memory" : (!at.decode_memory_bound && !ff.decode_memory_bound ? "compute" : "mixed"),
                  nsc_cli::fmt(double(at.prefill_ps) * 1e-9, 4).c_str(), nsc_cli::fmt(double(ff.prefill_ps) * 1e-9, 4).c_str());
    }
    std::printf("%-16s %14s %14s %12s %14s\n", "fixed (head...)", us(fixed_decode).c_str(), "", "",
                nsc_cli::fmt(double(fixed_prefill) * 1e-9, 4).c_str());
  }
  std::printf("model    %s\n", model_text.c_str());
  std::printf("defaults gpu_memory_utilization %s (vLLM's), prefill chunk %lld (%s), reserve %s (CUDA context, workspaces), "
              "efficiencies: bandwidth %s, compute %s; activations = chunk x 2 B x (2 hidden + widest projection) + "
              "batch x vocab/tp x 8 B (sampler); tp shards heads / FFN / vocab, KV heads fewer than tp replicated\n",
              nsc_cli::fmt(s.gpu_memory_utilization, 3).c_str(), static_cast<long long>(r.chunk),
              !a.serving.prefill_chunk ? "vLLM's default for this GPU" : "--prefill-chunk", gib(s.reserve_bytes).c_str(),
              nsc_cli::fmt(s.bandwidth_efficiency, 3).c_str(), nsc_cli::fmt(s.compute_efficiency, 3).c_str());
  return r.fits ? nsc_cli::exit_answer : nsc_cli::exit_no_answer;
}

const nsc_cli::command fit_command{"fit", [](CLI::App& app) -> std::function<int()> {
  auto a = std::make_shared<fit_args>();
  auto* sub = app.add_subcommand("fit", "does a model fit a GPU at a context and batch (per-GPU weights, KV cache, activations, "
                                        "reserve; largest batch and context), and how fast it serves (roofline decode / prefill)");
  sub->add_option("config", a->config, "path to a Hugging Face config.json")->required();
  nsc_cli::add_serving_options(sub, a->serving, "");
  sub->add_option("--gpus", a->gpus, "GPUs in all (default: --tp; more: data-parallel replicas)")->check(CLI::Range(std::int64_t(1), std::int64_t(4096)));
  sub->add_option("--tp", a->tp, "tensor-parallel degree (default: --gpus, or 1)")->check(CLI::Range(std::int64_t(1), std::int64_t(4096)));
  sub->add_option("--ep", a->ep, "MoE: 1 (each expert's width split over tp, default) or tp (experts split by count)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(4096)));
  sub->add_option("--context", a->context, "tokens per sequence: 32k (32,000), 32Ki (32,768), 8192 (default 8192)");
  sub->add_option("--batch", a->batch, "concurrent sequences (default 1)");
  sub->add_option("--kv-dtype", a->kv_dtype, "KV-cache dtype: fp32, bf16 (default), fp16, fp8, int8")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8"}));
  sub->add_option("--weight-dtype", a->weight_dtype, "weight dtype: fp32, bf16, fp16, fp8, int8, int4 (default: as the checkpoint stores them, "
                  "quantization_config and torch_dtype, as nsc score)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8", "int4"}));
  sub->add_flag("--layers", a->layers, "per-layer table of the time estimates");
  sub->add_flag("--json", a->json, "one JSON object");
  return [a] { return run_fit(*a); };
}};

} // namespace
