// nsc score: NSC, #Params, FLOPs, KV cache and memory of a model from its Hugging Face
// config.json.
//
//   nsc score CONFIG.json [--estimator mp|fs] [--init NAME|hf] [--seq-len T]
//             [--context C] [--batch B] [--kv-dtype D] [--weight-dtype D]
//             [--attention full|causal]
//             [--format table|json|csv] [--json] [--qkv per_head|merged|separate]
//             [--o-proj whole|per_head] [--variance-source block|tensor]
//             [--score-embeddings] [--count-lora] [--mtp]
//
// Defaults reproduce the paper's convention: Xavier-normal of every scored block
// (variance_source::block), per-head Q/K/V blocks, whole o_proj, psi_MP, embeddings and LM head
// not scored. `--init hf` is the framework-faithful alternative: normal(initializer_range) with
// the variance of the whole tensor (what Hugging Face draws). Other --init names are
// torch.nn.init's (nsc::parse_init_kind); normal and truncated_normal use the config's
// initializer_range as their std.
//
// Workload (nsc/model/deployment.hpp states every convention): --seq-len T (default 256, the
// sequence length of the paper's LoNAS TFLOPs) is the prefill length; flops_per_token is the
// prefill's FLOPs / T with --attention full (default: every query attends T keys, the paper's)
// or causal (query p attends p keys), capped at a layer's sliding window. --context C (default
// T) is the decode context and the number of cached tokens, --batch B (1) the sequences cached,
// --kv-dtype (bf16) and --weight-dtype (bf16: fp32, bf16, fp16, fp8, int8, int4 with one fp16
// scale per 128 inputs) the storage types. FLOPs = 2 MACs; embedding lookups are free, a tied LM
// head costs its MACs.
//
// Output: a summary and a per-layer table (default), one JSON object (--json / --format json:
// nsc, params_total, params_non_embedding, params_active, flops_per_token, flops_convention,
// macs_per_token, prefill_flops, decode_flops_per_token, kv_cache_bytes,
// kv_cache_bytes_per_token, weight_bytes, memory_bytes, seq_len, context, batch, kv_dtype,
// weight_dtype, weight_dtype_source (quantization_config / torch_dtype / --weight-dtype), notes
// (attention sinks, chunked / NoPE layers, a multimodal wrapper's vision tower not counted),
// vision_params_not_counted, audio_params_not_counted (when the config determines them), mtp (the multi-token-prediction
// modules, when the config has them), attention, model, model_type, text_config, layers_total
// (every layer, runs counted repeat times), estimator, init, variance_source,
// and layers: [{name, repeat, nsc, attention, ffn, router, other, params, params_active,
// flops_per_token, decode_flops, kv_cache_bytes, kv_cache_bytes_per_token, window, chunk, weight_bytes,
// memory_bytes}]), or CSV (one row per layer entry, a last column repeat, and a final "total"
// row). prefill_flops is an exact integer (a string of digits when above 2^64 - 1).
//
// Runs: identical consecutive layers are one row ("layers.0-31", repeat 32) whose figures are
// those of ONE of its layers; totals count every layer (repeat x the row). With --weights every
// layer is its own row (a checkpoint's psi_W differs per layer).
#include "cli.hpp"
#include "units_option.hpp"
#include "eigen_calls.hpp" // --weights (psi_W: the Eigen backend, compiled in cmd_weights.cpp)

#include <nsc/io/hf_config.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/serving.hpp>
#include <nsc/model/transformer.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace {

using nsc_cli::grouped;

struct score_args {
  std::string config;
  std::string estimator = "mp";
  std::string init_name = "xavier_normal";
  double seq_len = 256;
  long long context = 0;
  long long batch = 1;
  std::string kv_dtype = "bf16";
  std::string weight_dtype; // empty: as the checkpoint stores them (torch_dtype, quantization_config)
  std::string state_dtype = "bf16";      // Mamba-2 SSM state
  std::string conv_state_dtype = "bf16"; // Mamba-2 convolution state
  std::string attention = "full";
  std::string format = "table";
  bool json = false;
  std::string qkv = "per_head";
  std::string o_proj = "whole";
  std::string source; // empty: block, or tensor for --init hf
  bool score_embeddings = false;
  bool count_lora = false;
  std::string weights; // --weights: psi_W of a safetensors checkpoint in place of psi at init
  std::int64_t tp = 1;  // --tp: memory as vLLM allocates it over tp GPUs (nsc/model/serving.hpp)
  bool mtp = false;    // --mtp: count the multi-token-prediction modules in every total
};

/// Thousands separators on a string of digits.
std::string grouped_digits(const std::string& digits) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}
std::string grouped_u(std::uint64_t v) { return grouped_digits(std::to_string(v)); }

/// Bytes with a binary unit: "16.06 GiB".
std::string bytes_text(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

/// An exact count as JSON: an integer when it fits 64 bits, else its decimal digits.
nlohmann::json exact_json(nsc::u128 v) {
  if (v <= nsc::u128(UINT64_MAX)) return std::uint64_t(v);
  return nsc::to_string(v);
}

nsc::scoring make_scoring(const score_args& a, const nsc::hf_model& m) {
  nsc::scoring s =
      nsc::scoring_for_init(a.init_name, m.initializer_range, nsc::parse_estimator(a.estimator));
  if (a.source == "block") s.source = nsc::variance_source::block;
  if (a.source == "tensor") s.source = nsc::variance_source::tensor;
  s.score_embeddings = a.score_embeddings;
  return s;
}

int run_score(const score_args& a) {
  nsc::hf_model m = nsc::read_hf_config_file(a.config);
  // Runs of identical layers are one row each (layers.0-31, with "repeat"); a checkpoint has
  // every layer's tensors, so --weights scores (and prints) one row per layer.
  if (!a.weights.empty()) m.spec = nsc::expand(m.spec);
  const nsc::qkv_layout qkv = nsc::parse_qkv_layout(a.qkv);
  const nsc::out_layout out = nsc::parse_out_layout(a.o_proj);
  for (nsc::block_spec& b : m.spec.blocks) {
    b.attention.qkv = qkv;
    b.attention.out = out;
  }
  m.spec.lora.count_params = m.spec.lora.count_macs = a.count_lora;
  const nsc::scoring sc = make_scoring(a, m);
  nsc::network net = nsc::hf_network(m, a.seq_len);
  // Multi-token-prediction modules: always reported apart; with --mtp also in every total.
  const nsc::network mtp_net = nsc::hf_mtp_network(m, a.seq_len);
  if (a.mtp && m.mtp_layers == 0)
    throw std::invalid_argument("nsc score: --mtp: the config has no multi-token-prediction module "
                                "(num_nextn_predict_layers absent or 0)");
  if (a.mtp && !a.weights.empty())
    throw std::invalid_argument("nsc score: --mtp cannot be combined with --weights (the checkpoint's MTP "
                                "tensors are not scored)");
  if (a.mtp) net.layers.insert(net.layers.end(), mtp_net.layers.begin(), mtp_net.layers.end());
  nsc::psi_cache cache;
  const nsc::network_score ns =
      a.weights.empty() ? nsc::score(net, sc, &cache)
                        : nsc_cli::score_with_checkpoint(net, sc, a.config, a.weights);
  const nsc::resources total = nsc::count(net);
  const nsc::resources mtp_total = nsc::count(mtp_net);
  if (a.seq_len != std::floor(a.seq_len))
    throw std::invalid_argument("nsc score: --seq-len must be an integer number of tokens (got " +
                                nsc_cli::fmt(a.seq_len, 17) + ")");
  nsc::workload wl;
  wl.seq_len = std::int64_t(a.seq_len);
  wl.context = a.context;
  wl.batch = a.batch;
  wl.kv = nsc::parse_dtype(a.kv_dtype);
  if (!a.weight_dtype.empty()) wl.weights = nsc::parse_dtype(a.weight_dtype);
  wl.stored = nsc::hf_weight_storage(m, a.weight_dtype);
  const std::string weight_name = wl.stored->name, weight_source = wl.stored->source;
  wl.state = nsc::parse_dtype(a.state_dtype);
  wl.conv_state = nsc::parse_dtype(a.conv_state_dtype);
  wl.attention = nsc::parse_attention_convention(a.attention);
  nsc::deployment dep = nsc::deploy(m.spec, wl);
  const nsc::deployment mtp_dep = nsc::hf_deploy_mtp(m, wl);
  if (a.mtp) { // every figure is a sum over layers
    dep.layers.insert(dep.layers.end(), mtp_dep.layers.begin(), mtp_dep.layers.end());
    dep.linear_macs_per_token += mtp_dep.linear_macs_per_token;
    dep.kv_bytes_per_token += mtp_dep.kv_bytes_per_token;
    dep.kv_cache_bytes += mtp_dep.kv_cache_bytes;
    dep.weight_bytes += mtp_dep.weight_bytes;
    dep.memory_bytes += mtp_dep.memory_bytes;
    dep.prefill_macs += mtp_dep.prefill_macs;
    dep.decode_macs += mtp_dep.decode_macs;
  }
  std::string mtp_text;
  if (m.mtp_layers > 0)
    mtp_text = grouped(m.mtp_layers) + " module" + (m.mtp_layers > 1 ? "s" : "") + " (num_nextn_predict_layers): " +
               grouped(mtp_total.total()) + " params (" + grouped(mtp_total.active()) +
               " active; decoder block, eh_proj Linear(2d -> d), " + std::to_string(m.mtp_norms) +
               " norms; embedding and head shared, not counted again), " + grouped_u(mtp_dep.weight_bytes) +
               " weight bytes, " + grouped_u(mtp_dep.kv_bytes_per_token) + " KV bytes per token; " +
               (a.mtp ? "counted in every total (--mtp)" : "not in the totals (--mtp counts them)");
  const std::string format = a.json ? "json" : a.format;

  auto part = [](const nsc::layer_score& l, nsc::part p) {
    return l.by_part[static_cast<std::size_t>(p)];
  };
  // Everything but attention, ffn and router (embeddings / head when scored, pooler, projections).
  auto rest = [](const std::array<double, nsc::part_count>& by_part) {
    double r = 0;
    for (nsc::part p : {nsc::part::conv, nsc::part::embedding, nsc::part::head, nsc::part::other})
      r += by_part[static_cast<std::size_t>(p)];
    return r;
  };
  const std::string init_label =
      a.init_name == "hf" ? "hf: normal(" + nsc_cli::fmt(m.initializer_range, 6) + ")" : a.init_name;

  if (format == "json") {
    nlohmann::json j;
    j["model"] = m.spec.name;
    j["model_type"] = m.model_type;
    j["estimator"] = std::string(nsc::to_string(sc.est));
    j["init"] = init_label;
    j["variance_source"] = std::string(nsc::to_string(sc.source));
    j["seq_len"] = a.seq_len;
    j["context"] = wl.context_tokens();
    j["batch"] = wl.batch;
    j["kv_dtype"] = a.kv_dtype;
    j["weight_dtype"] = weight_name;
    j["weight_dtype_source"] = weight_source;
    j["attention"] = a.attention;
    j["text_config"] = m.text_config;
    j["layers_total"] = nsc::total_layers(m.spec);
    if (m.mtp_layers > 0)
      j["mtp"] = {{"modules", m.mtp_layers},
                  {"params", mtp_total.total()},
                  {"params_active", mtp_total.active()},
                  {"weight_bytes", mtp_dep.weight_bytes},
                  {"kv_cache_bytes_per_token", mtp_dep.kv_bytes_per_token},
                  {"kv_cache_bytes", mtp_dep.kv_cache_bytes},
                  {"decode_flops_per_token", mtp_dep.decode_flops()},
                  {"counted", a.mtp},
                  {"contains", "decoder block, eh_proj Linear(2d -> d), " + std::to_string(m.mtp_norms) +
                                   " norms; the embedding and LM head are the main model's"}};
    j["notes"] = m.notes;
    if (m.vision_params >= 0) j["vision_params_not_counted"] = m.vision_params;
    if (m.audio_params >= 0) j["audio_params_not_counted"] = m.audio_params; // gemma4's audio tower
    j["nsc"] = ns.nsc;
    if (!a.weights.empty()) j["weights"] = a.weights;
    j["params_total"] = total.total();
    j["params_non_embedding"] = total.non_embedding();
    j["params_active"] = total.active();
    j["flops_per_token"] = dep.flops_per_token();
    j["flops_convention"] = dep.convention();
    j["macs_per_token"] = dep.flops_per_token() / 2;
    j["prefill_flops"] = exact_json(dep.prefill_flops());
    j["decode_flops_per_token"] = dep.decode_flops();
    j["kv_cache_bytes"] = dep.kv_cache_bytes;
    j["kv_cache_bytes_per_token"] = dep.kv_bytes_per_token;
    j["state_bytes"] = dep.state_bytes;
    j["state_dtype"] = a.state_dtype;
    j["conv_state_dtype"] = a.conv_state_dtype;
    j["weight_bytes"] = dep.weight_bytes;
    j["memory_bytes"] = dep.memory_bytes;
    if (a.tp > 1) { // over the tp GPUs: tp x one GPU's shard (replicated KV heads and norms on each)
      nsc::parallelism p;
      p.tp = a.tp;
      const std::uint64_t per_gpu = nsc::deploy(nsc::shard_spec(m.spec, p), wl).memory_bytes;
      j["memory_per_gpu_bytes"] = per_gpu;
      j["memory_bytes"] = per_gpu * std::uint64_t(a.tp);
      j["tp"] = a.tp;
    }
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const nsc::layer_score& ls = ns.layers[i];
      const nsc::resources r = nsc::count(net.layers[i]);
      const nsc::layer_deployment& ld = dep.layers[i];
      layers.push_back({{"name", ls.name},
                        {"repeat", net.layers[i].repeat},
                        {"nsc", ls.nsc},
                        {"attention", part(ls, nsc::part::attention)},
                        {"ffn", part(ls, nsc::part::ffn)},
                        {"router", part(ls, nsc::part::router)},
                        {"other", rest(ls.by_part)},
                        {"params", r.total()},
                        {"params_active", r.active()},
                        {"flops_per_token", 2 * double(ld.prefill_macs) / double(wl.seq_len)},
                        {"decode_flops", 2 * ld.decode_macs},
                        {"kv_cache_bytes", ld.kv_cache_bytes},
                        {"kv_cache_bytes_per_token", ld.kv_bytes_per_token},
                        {"window", ld.window},
                        {"chunk", ld.chunk},
                        {"weight_bytes", ld.weight_bytes},
                        {"memory_bytes", ld.memory_bytes()}});
    }
    j["layers"] = std::move(layers);
    nsc_cli::print_json(j);
    return 0;
  }

  if (format == "csv") {
    std::printf("layer,nsc,attention,ffn,router,other,params,params_active,flops_per_token,"
                "decode_flops,kv_cache_bytes,weight_bytes,memory_bytes,repeat\n");
    auto row = [&](const std::string& name, double v,
                   const std::array<double, nsc::part_count>& by_part, const nsc::resources& r,
                   nsc::u128 prefill_macs, std::uint64_t decode_macs, std::uint64_t kv, std::uint64_t wb,
                   const std::string& repeat) {
      auto at = [&](nsc::part p) { return by_part[static_cast<std::size_t>(p)]; };
      std::printf("%s,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%lld,%.17g,%s,%s,%s,%s,%s\n", name.c_str(), v,
                  at(nsc::part::attention), at(nsc::part::ffn), at(nsc::part::router),
                  rest(by_part), static_cast<long long>(r.total()),
                  static_cast<long long>(r.active()), 2 * double(prefill_macs) / double(wl.seq_len),
                  nsc::to_string(2 * nsc::u128(decode_macs)).c_str(), std::to_string(kv).c_str(),
                  std::to_string(wb).c_str(), nsc::to_string(nsc::u128(kv) + wb).c_str(), repeat.c_str());
    };
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const nsc::layer_deployment& ld = dep.layers[i];
      row(ns.layers[i].name, ns.layers[i].nsc, ns.layers[i].by_part, nsc::count(net.layers[i]),
          ld.prefill_macs, ld.decode_macs, ld.kv_cache_bytes, ld.weight_bytes,
          std::to_string(net.layers[i].repeat));
    }
    row("total", ns.nsc, ns.by_part, total, dep.prefill_macs, dep.decode_macs, dep.kv_cache_bytes,
        dep.weight_bytes, "");
    return 0;
  }

  // table
  std::printf("model          %s (%s%s), %s layers\n", m.spec.name.c_str(), m.model_type.c_str(),
              m.text_config ? ", text decoder of a multimodal config" : "",
              grouped(nsc::total_layers(m.spec)).c_str());
  std::printf("scoring        init %s, variance per %s, psi_%s, embeddings %s\n",
              init_label.c_str(), std::string(nsc::to_string(sc.source)).c_str(),
              std::string(nsc::to_string(sc.est)).c_str(),
              sc.score_embeddings ? "scored" : "not scored");
  std::printf("NSC            %.10g  (attention %.10g, ffn %.10g%s)\n", ns.nsc,
              ns.part_total(nsc::part::attention), ns.part_total(nsc::part::ffn),
              ns.part_total(nsc::part::router) > 0
                  ? (", router " + nsc_cli::fmt(ns.part_total(nsc::part::router))).c_str()
                  : "");
  for (const std::string& note : m.notes) std::printf("note           %s\n", note.c_str());
  if (!mtp_text.empty()) std::printf("MTP            %s\n", mtp_text.c_str());
  std::printf("params total   %s\n", grouped(total.total()).c_str());
  std::printf("params non-emb %s\n", grouped(total.non_embedding()).c_str());
  std::printf("params active  %s\n", grouped(total.active()).c_str());
  std::printf("workload       prefill T = %s tokens, %s attention; context C = %s, batch %s; KV %s, "
              "weights %s\n",
              grouped(wl.seq_len).c_str(), a.attention.c_str(), grouped(wl.context_tokens()).c_str(),
              grouped(wl.batch).c_str(), a.kv_dtype.c_str(), weight_name.c_str());
  std::printf("FLOPs/token    %.6g prefill mean (MACs/token %.6g); FLOPs = 2 MACs\n", dep.flops_per_token(),
              dep.flops_per_token() / 2);
  std::printf("prefill FLOPs  %s (T tokens, one sequence)\n", grouped_digits(nsc::to_string(dep.prefill_flops())).c_str());
  std::printf("decode FLOPs   %s per token at context C\n", grouped_u(dep.decode_flops()).c_str());
  std::printf("KV cache       %s bytes (%s) at C x batch; %s bytes per token\n",
              grouped_u(dep.kv_cache_bytes).c_str(), bytes_text(dep.kv_cache_bytes).c_str(),
              grouped_u(dep.kv_bytes_per_token).c_str());
  if (dep.state_bytes > 0)
    std::printf("state          %s bytes (%s) of recurrent-layer state in the KV cache: fixed per sequence x batch "
                "(recurrent state %s, conv state %s)\n",
                grouped_u(dep.state_bytes).c_str(), bytes_text(dep.state_bytes).c_str(), a.state_dtype.c_str(),
                a.conv_state_dtype.c_str());
  std::printf("weights        %s bytes (%s), %s\n", grouped_u(dep.weight_bytes).c_str(),
              bytes_text(dep.weight_bytes).c_str(), weight_source.c_str());
  std::printf("memory         %s bytes (%s) = weights + KV cache\n\n", grouped_u(dep.memory_bytes).c_str(),
              bytes_text(dep.memory_bytes).c_str());
  std::printf("%-14s %7s %16s %16s %16s %16s %13s %14s\n", "layer", "repeat", "nsc", "attention", "ffn",
              "params", "flops/token", "kv bytes");
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const nsc::layer_score& ls = ns.layers[i];
    const nsc::resources r = nsc::count(net.layers[i]);
    const nsc::layer_deployment& ld = dep.layers[i];
    std::printf("%-14s %7s %16.10g %16.10g %16.10g %16s %13.6g %14s\n", ls.name.c_str(),
                grouped(net.layers[i].repeat).c_str(), ls.nsc,
                part(ls, nsc::part::attention), part(ls, nsc::part::ffn),
                grouped(r.total()).c_str(), 2 * double(ld.prefill_macs) / double(wl.seq_len),
                grouped_u(ld.kv_cache_bytes).c_str());
  }
  return 0;
}

const nsc_cli::command score_command{"score", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<score_args>();
  auto* sub = app.add_subcommand(
      "score", "NSC, #Params (total, non-embedding, active), FLOPs (prefill and decode), KV "
               "cache, weight bytes and serving memory of a model from its Hugging Face "
               "config.json (every family in nsc::hf_supported_model_types), with a per-layer "
               "breakdown. Families: " + std::string(nsc::hf_supported_model_types) +
               ". Weight bytes follow the checkpoint (quantization_config, torch_dtype) unless "
               "--weight-dtype; MTP modules are reported apart unless --mtp. Multimodal wrappers: the text decoder of text_config; the vision tower is not "
               "counted and its size is printed where the config determines it. Conventions of the "
               "newer structures: attention sinks (gpt_oss) are n_heads parameters per layer, no "
               "matrix (not in NSC), no MACs, no cache; chunked attention (llama4) attends the "
               "query's chunk (full: min(T, chunk) keys; causal: its chunk so far; decode and KV "
               "at most the chunk); NoPE layers change no count; MoE biases, router biases and "
               "shared experts are counted, routed experts top-k of n in active params and FLOPs; DSA sparse "
               "attention (deepseek_v32, glm_moe_dsa): the lightning indexer's wq_b, wk, k_norm and weights_proj "
               "counted (wq_b per index head, wk and weights_proj whole in NSC), attention capped at index_topk "
               "keys in FLOPs while the indexer scores every key, and its fp8 key + fp32 scales cached per token");
  sub->add_option("config", args->config, "path to a Hugging Face config.json")->required();
  sub->footer(std::string("Structures beyond attention + FFN (docs/score.md \"Recurrent layers\"): Mamba-2 mixers (nemotron_h "
              "hybrid_override_pattern M; granitemoehybrid layer_types mamba, the layer keeping its FFN) and Gated DeltaNet linear attention (qwen3_next linear_attention): "
              "params counted exactly (in/out projections, depthwise conv1d, dt_bias, A_log, D, gated norm); "
              "NSC of the projections per head / per group, the depthwise conv not scored; a fixed-size state "
              "per sequence (conv_dim (K - 1) conv + recurrent state) in the KV cache and memory, at "
              "--state-dtype / --conv-state-dtype; FLOPs of the recurrent form (Mamba-2: conv_dim K + 2 H P N "
              "MACs per token, Gated DeltaNet: conv_dim K + 3 HV dk dv). Gated attention (qwen3_next): q_proj "
              "carries the output gate (2 heads head_dim rows). cohere / cohere2: one weight-only LayerNorm per "
              "layer (d parameters) before the parallel attention and MLP; cohere2's global layers use no "
              "rotary positions (no parameters). falcon: fused query_key_value of (heads + 2 kv) head_dim rows, "
              "kv = 1 with multi_query unless new_decoder_architecture; falcon_h1: every layer runs attention "
              "and a Mamba-2 mixer in parallel on the same normed input (outputs summed): both counted, the NSC "
              "of each mixer's matrices summed, KV bytes per token for the attention AND the mixer's state per "
              "sequence; glm_moe_dsa: DeepSeek-V3.2's DSA, "
              "indexer_types shared layers reuse the previous indexer's top-k (no indexer weights or cache). "
              "gemma4: full-attention layers take global_head_dim and, with attention_k_eq_v, no v_proj (the "
              "values are the key projection's output, not scored; keys and values both cached); KV-shared layers "
              "(num_kv_shared_layers) have q_proj and o_proj only and no KV cache of their own, their attention "
              "FLOPs unchanged (they attend the keys of the last earlier layer of their type); use_double_wide_mlp "
              "doubles their MLP; per-layer embeddings (hidden_size_per_layer_input): the per-layer table is a "
              "lookup (params counted, no FLOPs, not in NSC, as every embedding), per_layer_model_projection and "
              "each layer's gate and projection are matmuls (FLOPs and NSC); the MoE block (enable_moe_block): "
              "routed experts (top-k active) beside the dense MLP (an always-active shared expert), router scales "
              "counted; the vision and audio towers are printed, not counted. nsc prune refuses these three "
              "Gemma 4 structures by name."));
  sub->add_option("--estimator", args->estimator, "psi estimator: mp (paper) or fs (finite-size)")
      ->check(CLI::IsMember({"mp", "fs"}));
  sub->add_option("--init", args->init_name,
                  "initialisation: xavier_normal (default; Xavier of each block, the paper's), "
                  "xavier_uniform, kaiming_normal, kaiming_uniform, torch_default, normal, "
                  "truncated_normal (std = initializer_range), orthogonal, or hf "
                  "(normal(initializer_range), variance of the whole tensor)");
  sub->add_option("--seq-len", args->seq_len,
                  "prefill length T: flops_per_token = prefill FLOPs / T (default 256, as the "
                  "paper's LoNAS TFLOPs)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::tokens, "nsc score: --seq-len"))
      ->check(CLI::Range(1.0, 1e12));
  sub->add_option("--context", args->context,
                  "decode context C and cached tokens for the KV cache (default: T)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::tokens, "nsc score: --context"))
      ->check(CLI::Range(1LL, 1000000000000LL));
  sub->add_option("--batch", args->batch, "sequences in the KV cache (default 1)")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::tokens, "nsc score: --batch"))
      ->check(CLI::Range(1LL, 1000000000LL));
  sub->add_option("--kv-dtype", args->kv_dtype, "KV-cache element type: fp32, bf16 (default), fp16, fp8, int8")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8"}));
  nsc_cli::add_state_dtype_options(sub, args->state_dtype, args->conv_state_dtype, "");
  sub->add_option("--weight-dtype", args->weight_dtype,
                  "weight storage: fp32, bf16, fp16, fp8, int8, int4 (one fp16 scale per 128 inputs; "
                  "embeddings, head, routers, norms, biases stay bf16). Default: as the checkpoint "
                  "stores them: quantization_config (fp8 blocks, mxfp4, awq, gptq, "
                  "compressed-tensors, scales and zero points included) and torch_dtype for the rest")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8", "int4"}));
  sub->add_option("--attention", args->attention,
                  "prefill attention: full (default; every query attends T keys, the paper's) or "
                  "causal (query p attends p keys); sliding windows and attention chunks cap both")
      ->check(CLI::IsMember({"full", "causal"}));
  sub->add_option("--format", args->format, "output: table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  sub->add_flag("--json", args->json, "same as --format json");
  sub->add_option("--qkv", args->qkv, "Q/K/V scoring: per_head (default), merged or separate")
      ->check(CLI::IsMember({"per_head", "merged", "separate"}));
  sub->add_option("--o-proj", args->o_proj, "output projection scoring: whole (default) or per_head")
      ->check(CLI::IsMember({"whole", "per_head"}));
  sub->add_option("--variance-source", args->source,
                  "where a block's variance comes from: block (default) or tensor (default with "
                  "--init hf)")
      ->check(CLI::IsMember({"block", "tensor"}));
  sub->add_flag("--score-embeddings", args->score_embeddings,
                "also score the embedding tables and the LM head");
  sub->add_option("--weights", args->weights,
                  "score with psi_W of this safetensors checkpoint (file, index or directory) in "
                  "place of psi at initialisation (per-head Q/K/V, whole o_proj; see nsc weights)");
  sub->add_option("--tp", args->tp, "tensor-parallel GPUs: memory_bytes as vLLM allocates it over them (JSON)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(4096)));
  sub->add_flag("--mtp", args->mtp,
                "count the multi-token-prediction modules (num_nextn_predict_layers: decoder block, "
                "eh_proj, norms; the head's MACs) in every total; without it they are reported apart");
  sub->add_flag("--count-lora", args->count_lora,
                "count LoRA adapters (config field lora_ranks) in #Params and FLOPs");
  return [args] { return run_score(*args); };
}};

} // namespace
