// nsc prune: NSC-DP structured pruning of a Hugging Face model: the generic space (--space generic:
// heads, KV heads, FFN widths, MoE experts and expert widths, no-op sublayers; any budgets; decilm /
// per-layer / nsc configs; docs/prune.md "Pruning for a deployment envelope") or its LoNAS preset:
//
//   nsc prune CONFIG.json --space lonas [--params 5.7e9 | --tflops X] [--front]
//             [--format table|csv|json] [--json] [--seq-len 256] [--count-final-norm]
//             [--emit-config OUT.json] [--plot OUT.png]
//
// The space is the LoNAS preset of the generic pruning space (nsc/search/lonas.hpp, prune_lonas:
// make_prune_space + search_prune, the machinery of --space generic): per layer
// an FFN width floor(intermediate_size * j / 8), j in {8, 7, 6, 5, 4} (LLaMA-7B: 11008, 9632,
// 8256, 6880, 5504), and a q/k/v LoRA rank in {32, 28}; o/gate/up/down adapters at rank 32;
// Q/K/V and o_proj scored per head, Xavier of each block, psi_MP (the paper's LoNAS convention).
// Params follow the reference formula (embeddings, LM head, layers; LoRA not counted; the final
// norm only with --count-final-norm), so LLaMA-7B at 5.7e9 gives the paper's answer: rank 32
// everywhere, width 8256 in 30 layers and 9632 in 2, 5,690,097,664 params, NSC 881196.752.
// TFLOPs = multiply-accumulates for one sequence of --seq-len tokens / 1e12 (the paper's T = 256).
// One DP pass gives the whole front (one optimum per reachable cost); the budget's answer is read
// off it. Without a budget the answer is the unconstrained optimum.
//
// Output: a summary (default; the front compactly with --front), CSV (--format csv: one row per
// front point with --front, plus the chosen and the unpruned model), or ONE JSON object (--json /
// --format json): nsc, params, params_total_hf (Hugging Face's exact count of the pruned model,
// what `nsc score` reports), tflops, intermediate_sizes, lora_ranks, seq_len, budget, unpruned,
// time_seconds, stats, and with --front "front": [{nsc, params, tflops, intermediate_sizes,
// lora_ranks}] ascending in params.
// --emit-config OUT.json writes the config with the nsc extensions intermediate_sizes and
// lora_ranks, which `nsc score OUT.json` reads back (same params_total as params_total_hf).
// --plot OUT.png runs scripts/plot_front.py (python3 with matplotlib) on the front; if that is not
// possible it prints the command to run.
#include "cli.hpp"
#include "eigen_calls.hpp" // --score weights, --criterion spectral (compiled in cmd_weights.cpp)
#include "gpu_option.hpp"
#include "plot_front.hpp"
#include "units_option.hpp"

#include <nsc/io/hf_config.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/prune_checkpoint.hpp>
#include <nsc/io/prune_config.hpp>
#include <nsc/io/units.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/search/lonas.hpp>
#include <nsc/search/prune_space.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

struct prune_args {
  std::string config;
  std::string space = "lonas";
  std::optional<std::string> params;
  std::optional<double> tflops;
  bool front = false;
  std::string format = "table";
  bool json = false;
  std::string seq_len_text = "256";
  std::int64_t seq_len = 256;
  bool count_final_norm = false;
  std::string emit_config;
  std::string plot;
  // --space generic
  std::int64_t ffn_multiple = 256;
  std::int64_t min_ffn = 0;
  std::int64_t tp = 1;
  std::int64_t head_step = 0;
  bool no_noop = false;
  std::int64_t expert_step = 1;
  std::int64_t min_experts = 0;
  std::int64_t ep = 1;
  bool keep_expert_width = false;
  std::optional<std::string> params_non_embedding, active_params, flops, kv_bytes, memory;
  std::optional<std::string> weights_memory, memory_per_gpu, decode_ms, tokens_per_s, ttft_ms;
  nsc_cli::serving_options serving;
  std::int64_t kv_heads_min = 0;
  std::string min_ffn_ratio = "10%"; // docs/prune.md "Defaults": no FFN below a tenth of its own width (Puzzle's smallest)
  std::string context_text, batch_text = "1";
  long long context = 0;
  long long batch = 1;
  std::string kv_dtype = "bf16";
  std::string state_dtype = "bf16", conv_state_dtype = "bf16"; // Mamba-2 state (generic)
  std::string weight_dtype; // empty: as the checkpoint stores them (nsc score's default)
  std::string attention = "full";
  std::string estimator = "mp";
  std::string emit_format = "decilm";
  bool emit_format_given = false;
  std::size_t top = 0;
  std::size_t min_distance = 0;
  bool positions = false; ///< --positions: identical layers' choices swapped are separate --top entries
  double front_epsilon = 0;
  double max_memory = double(std::size_t{1} << 30);
  std::string engine; ///< --engine: the serving engine the config must load in ("": any)
  bool uniform = false; ///< --uniform: one shape for every layer, the family's own architecture
  // --weights / --emit-checkpoint (generic): the pruned safetensors checkpoint
  std::string weights;
  std::string emit_checkpoint;
  double shard_size = 5e9;
  std::string criterion = "magnitude";
  const CLI::App* app = nullptr; ///< the subcommand: which flags were given (the defaults line)
  std::string score = "shapes"; ///< --score: shapes (psi_MP / psi_FS of each option's shapes) or weights (psi_W)
};

std::string billions(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6fB", v / 1e9);
  return buf;
}

/// "8256 x 30, 9632 x 2" (largest count first).
std::string multiset(const std::vector<std::int64_t>& v) {
  std::map<std::int64_t, std::size_t> counts;
  for (std::int64_t x : v) ++counts[x];
  std::vector<std::pair<std::int64_t, std::size_t>> items(counts.begin(), counts.end());
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::ostringstream os;
  for (std::size_t i = 0; i < items.size(); ++i)
    os << (i ? ", " : "") << items[i].first << " x " << items[i].second;
  return os.str();
}

std::string joined(const std::vector<std::int64_t>& v, char sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

nlohmann::json candidate_json(const nsc::search::lonas_candidate& c) {
  return {{"nsc", c.nsc},
          {"params", c.params},
          {"tflops", c.tflops},
          {"ffn_sum", c.ffn_sum()},
          {"intermediate_sizes", c.widths},
          {"lora_ranks", c.ranks}};
}



/// One layer's choice in words: "attention 64 heads / 8 KV, FFN 28672" ("no-op" for removed); a
/// recurrent mixer (Mamba-2, Gated DeltaNet) is named by its kind ("mamba2 kept").
std::string layer_text(const nsc::search::prune_layer_choice& c, nsc::attention_kind kind = nsc::attention_kind::standard,
                       bool has_ffn = true) {
  const bool recurrent = kind == nsc::attention_kind::mamba2 || kind == nsc::attention_kind::gated_deltanet;
  const std::string mixer = recurrent ? std::string(nsc::to_string(kind)) : std::string("attention");
  std::string a = kind == nsc::attention_kind::none ? std::string("no mixer") // a layer without one (Nemotron-H's '-')
                  : c.attention_none ? mixer + " no-op"
                  : c.heads > 0    ? "attention " + std::to_string(c.heads) + " heads / " + std::to_string(c.kv_heads) + " KV"
                                   : mixer + " kept";
  std::string f = !has_ffn          ? "no FFN" // a layer without one (Nemotron-H's M and *)
                  : c.ffn_none        ? "FFN no-op"
                  : c.experts > 0    ? "FFN " + std::to_string(c.experts) + " experts x " + std::to_string(c.ffn_width)
                  : c.ffn_width > 0  ? "FFN " + std::to_string(c.ffn_width)
                                     : "FFN kept";
  return a + ", " + f;
}

nlohmann::json generic_json(const nsc::search::prune_candidate& c, std::int64_t T) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : c.layers) {
    nlohmann::json a = l.attention_none ? nlohmann::json(nullptr)
                                        : nlohmann::json{{"heads", l.heads}, {"kv_heads", l.kv_heads}};
    layers.push_back({{"attention", a}, {"ffn", l.ffn_none ? nlohmann::json(nullptr) : nlohmann::json(l.ffn_width)}});
    if (l.experts > 0 && !l.ffn_none) layers.back()["experts"] = l.experts;
  }
  const auto& t = c.totals.cost;
  return {{"nsc", c.totals.nsc},
          {"params_total", t[0]},
          {"params_non_embedding", t[1]},
          {"params_active", t[2]},
          {"prefill_flops", t[3]},
          {"flops_per_token", c.totals.flops_per_token},
          {"kv_cache_bytes", t[4]},
          {"memory_bytes", t[5]},
          {"weight_bytes", t[6]},
          {"memory_per_gpu_bytes", t[7]},
          {"decode_time_ps", t[8]},
          {"prefill_time_ps", t[9]},
          {"seq_len", T},
          {"layers", std::move(layers)}};
}

std::string cost_text(nsc::search::prune_cost c, std::int64_t v, std::int64_t T) {
  using nsc::search::prune_cost;
  if (c == prune_cost::prefill_flops) return nsc_cli::fmt(double(v) / double(T), 6) + " FLOPs/token";
  if (c == prune_cost::kv_bytes || c == prune_cost::memory || c == prune_cost::weight_bytes || c == prune_cost::memory_per_gpu)
    return grouped(v) + " bytes";
  if (c == prune_cost::decode_time || c == prune_cost::prefill_time) return nsc_cli::fmt(double(v) * 1e-9, 7) + " ms";
  return grouped(v) + " params";
}

/// One line per engine: whether the DeciLM config of `pruned` loads there, and why not.
nlohmann::json engine_lines(const nsc::transformer_spec& pruned) {
  using nsc::search::prune_engine;
  nlohmann::json out = nlohmann::json::object();
  for (prune_engine e : {prune_engine::vllm, prune_engine::sglang, prune_engine::trtllm, prune_engine::mlx,
                         prune_engine::llama_cpp, prune_engine::transformers}) {
    const std::string why = nsc::prune_engine_refusal(pruned, e);
    const char* how = e == prune_engine::vllm           ? "yes (--trust-remote-code: DeciLM's config class is remote code)"
                      : e == prune_engine::trtllm       ? "yes (PyTorch backend)"
                      : e == prune_engine::llama_cpp    ? "yes (convert_hf_to_gguf.py: arch deci)"
                      : e == prune_engine::transformers ? "yes (trust_remote_code=True: auto_map names DeciLM's remote code)"
                                                        : "yes";
    out[std::string(nsc::search::to_string(e))] = why.empty() ? std::string(how) : "no: " + why;
  }
  return out;
}

/// What would work instead of a refused format, for the messages.
std::string instead(const nlohmann::json& raw) {
  const std::string arch = raw.contains("architectures") && raw["architectures"].is_array() &&
                                   !raw["architectures"].empty() && raw["architectures"][0].is_string()
                               ? raw["architectures"][0].get<std::string>()
                               : "the family's architecture";
  // per-layer only where the family's modeling code reads per_layer_config (not falcon, llama4)
  const bool per_layer = !(raw.contains("model_type") && raw["model_type"].is_string()) ||
                         nsc::hf_reads_per_layer_config(raw["model_type"].get<std::string>());
  return "What works: --uniform (" + arch +
         " with one shape for every layer, which every engine loads with no remote code), or --emit-format " +
         (per_layer ? "per-layer / nsc (heterogeneous; nsc score reads them, no serving engine builds them)"
                    : "nsc (heterogeneous; nsc score reads it, no serving engine builds it)");
}

/// The defaults line of the generic space: every setting the user did not give, as the flag that
/// would change it (docs/prune.md "Defaults").
std::string prune_defaults(const prune_args& a, const nsc::search::prune_space_settings& ss,
                           const nsc::search::prune_space& space, bool gpu) {
  bool moe = false;
  std::int64_t top_k = 0;
  for (const auto& l : space.layers)
    if (l.base.ffn.kind == nsc::ffn_kind::standard && l.base.ffn.n_experts > 0) {
      moe = true;
      top_k = l.base.ffn.top_k;
    }
  std::vector<std::pair<std::string, std::string>> f{
      {"--ffn-multiple", std::to_string(ss.ffn_multiple)},
      {"--min-ffn-ratio", a.min_ffn_ratio + " (no FFN below this share of its layer's own width; no-op aside)"},
      {"--min-ffn", std::to_string(a.min_ffn)},
      {"--head-step", a.head_step > 0 ? std::to_string(a.head_step) : "the GQA group"},
      {"--kv-heads-min", std::to_string(std::max<std::int64_t>(1, a.kv_heads_min))},
      {"--no-noop", a.no_noop ? "" : "not given (no-op sublayers offered)"},
      {"--tp", std::to_string(a.tp)}};
  if (moe) {
    f.push_back({"--expert-step", std::to_string(a.expert_step)});
    f.push_back({"--min-experts", a.min_experts > 0 ? std::to_string(a.min_experts) : "top-k (" + std::to_string(top_k) + ")"});
    f.push_back({"--ep", std::to_string(a.ep)});
    f.push_back({"--keep-expert-width", ss.expert_width ? "not given (expert width on the FFN grid)" : "(kept)"});
  }
  f.insert(f.end(), {{"--weight-dtype", ss.load.stored ? nsc_cli::weights_text(ss.load.stored->name, ss.load.stored->source) : a.weight_dtype},
                     {"--kv-dtype", a.kv_dtype},
                     {"--seq-len", std::to_string(a.seq_len)},
                     {"--context", std::to_string(a.context > 0 ? a.context : a.seq_len) + (a.context > 0 ? "" : " (--seq-len)")},
                     {"--batch", std::to_string(a.batch)},
                     {"--attention", a.attention},
                     {"--estimator", a.estimator}});
  if (!a.uniform) f.push_back({"--emit-format", a.emit_format});
  if (!a.weights.empty()) f.insert(f.end(), {{"--criterion", a.criterion}, {"--score", a.score}});
  if (gpu)
    f.insert(f.end(), {{"--gpu-memory-utilization", nsc_cli::fmt(ss.serving->gpu_memory_utilization, 3)},
                       {"--reserve", nsc_cli::grouped((long long)ss.serving->reserve_bytes) + " bytes"},
                       {"--prefill-chunk", std::to_string(ss.serving->chunk())},
                       {"--bandwidth-efficiency", a.serving.bw_eff},
                       {"--compute-efficiency", a.serving.compute_eff}});
  return a.app ? nsc_cli::defaults_text(*a.app, f) : std::string("(not known)");
}

int run_generic(const prune_args& a) {
  using namespace nsc::search;
  const nlohmann::json raw = nsc::io::read_json_file(a.config, "nsc prune");
  nsc::hf_model m = nsc::read_hf_config(raw);
  if (!raw.contains("_name_or_path")) m.spec.name = std::filesystem::path(a.config).stem().string();
  if (a.tflops) throw std::invalid_argument("nsc prune: --tflops is the LoNAS space's; use --flops F (per token) with --space generic");
  prune_space_settings ss;
  ss.format = parse_prune_format(a.emit_format);
  if (a.uniform && a.emit_format_given)
    throw std::invalid_argument("nsc prune: --uniform writes the family's own architecture; drop --emit-format");
  if (!a.engine.empty() && !a.uniform && a.emit_format_given && ss.format != prune_format::decilm)
    throw std::invalid_argument("nsc prune: --engine " + a.engine +
                                " writes DeciLM block_configs (what the engines load); drop --emit-format " + a.emit_format);
  if (a.uniform) ss.format = prune_format::per_layer; // query and KV heads; whole layers removed from the end
  bool tied_shared = false; // DeepSeek: shared experts are n_shared_experts x moe_intermediate_size
  if (const auto* fam = nsc::detail::hf::find_family(m.model_type); a.uniform && fam && fam->moe == nsc::detail::hf::moe_layout::deepseek)
    for (const nsc::block_spec& blk : m.spec.blocks) tied_shared = tied_shared || blk.ffn.shared_d_ff > 0;
  if (a.uniform && (a.front || a.top > 0))
    throw std::invalid_argument("nsc prune: --uniform gives one exact answer; --front and --top need the per-layer space");
  ss.ffn_multiple = a.ffn_multiple;
  ss.min_ffn = a.min_ffn;
  ss.min_kv_heads = a.kv_heads_min;
  ss.min_ffn_ratio = a.min_ffn_ratio == "0" || a.min_ffn_ratio == "0%"
                         ? 0
                         : nsc::io::parse_fraction(a.min_ffn_ratio, "nsc prune: --min-ffn-ratio");
  ss.tp = a.tp;
  ss.head_step = a.head_step;
  ss.no_op = !a.no_noop;
  ss.expert_step = a.expert_step;
  ss.min_experts = a.min_experts;
  ss.ep = a.ep;
  ss.expert_width = !a.keep_expert_width && !tied_shared;
  ss.load.seq_len = a.seq_len;
  ss.load.context = a.context;
  ss.load.batch = a.batch;
  // The GPU, the engine's overhead and the per-GPU budget (docs/score.md "Budgets as people write them").
  const bool gpu = a.serving.any_gpu();
  // Without a GPU the overhead terms are what the user gives (default none: utilization 1, reserve 0).
  double utilization = a.serving.utilization ? nsc::io::parse_fraction(*a.serving.utilization, "nsc prune: --gpu-memory-utilization") : 1;
  double reserve = a.serving.reserve ? nsc::io::parse_bytes(*a.serving.reserve, "nsc prune: --reserve") : 0;
  double activations = 0;
  if (gpu) {
    ss.serving = nsc_cli::serving(a.serving, "nsc prune");
    utilization = ss.serving->gpu_memory_utilization;
    reserve = ss.serving->reserve_bytes;
    nsc::parallelism p;
    p.tp = a.tp;
    p.ep = a.ep == a.tp ? a.ep : 1; // as make_prune_space's costs (nsc/search/prune_space.hpp)
    ss.serving->par = p;
    activations = nsc::activation_bytes(nsc::shard_spec(nsc::expand(m.spec), p), *ss.serving, a.batch);
  }
  if ((a.decode_ms || a.tokens_per_s || a.ttft_ms) && !gpu)
    throw std::invalid_argument("nsc prune: --decode-ms, --tokens-per-s and --ttft-ms need a GPU: --gpu NAME (" + nsc::gpu_names() +
                                ") or --gpu-file");
  ss.load.kv = nsc::parse_dtype(a.kv_dtype);
  ss.load.state = nsc::parse_dtype(a.state_dtype);
  ss.load.conv_state = nsc::parse_dtype(a.conv_state_dtype);
  if (!a.weight_dtype.empty()) ss.load.weights = nsc::parse_dtype(a.weight_dtype);
  ss.load.stored = nsc::hf_weight_storage(m, a.weight_dtype); // the checkpoint's, as nsc score
  ss.load.attention = nsc::parse_attention_convention(a.attention);
  ss.rule.est = nsc::parse_estimator(a.estimator);
  const prune_engine engine = a.engine.empty() ? prune_engine::any : parse_prune_engine(a.engine);
  if (!a.uniform) ss = prune_engine_settings(ss, engine);
  if (engine != prune_engine::any && !a.uniform)
    if (const std::string why = nsc::prune_engine_refusal(m.spec, engine, false); !why.empty())
      throw std::invalid_argument("nsc prune: --engine " + a.engine + " cannot serve " + m.spec.name + " (" +
                                  m.model_type + ") as DeciLM block_configs: " + why + ". " + instead(raw));
  const std::int64_t T = a.seq_len;
  prune_search_settings s;
  s.front = a.front;
  if (a.front && !a.plot.empty()) s.front_point_extra_bytes = nsc_cli::plot_front_point_bytes; // the plotter's copy
  s.rescore_front = false; // front totals: the option sums (exact costs; NSC to ~1e-15); best and top re-scored
  s.top = a.top;
  s.min_distance = a.min_distance;
  s.positions = a.positions;
  s.front_epsilon = a.front_epsilon;
  s.mmck.max_table_bytes = std::size_t(a.max_memory);
  if (!a.plot.empty() && !a.front)
    throw std::invalid_argument("nsc prune: --plot draws the Pareto set: add --front (with --space generic)");

  if (!a.weights.empty()) nsc::io::check_prune_checkpoint_family(m.model_type, ss.format); // before the search
  const auto t0 = std::chrono::steady_clock::now();
  prune_space space = make_prune_space(m.spec, ss);
  // The checkpoint's spectra: --score weights values every option by psi_W of what it keeps;
  // --criterion spectral orders heads / channels / experts by it (nsc/io/prune_weights.hpp).
  std::optional<nsc::io::checkpoint> ck;
  std::optional<nsc_cli::prune_weights_outcome> pw;
  if (!a.weights.empty()) {
    ck = nsc::io::open_checkpoint(a.weights);
    nsc::io::check_prune_checkpoint_tensors(*ck, m.model_type, space);
    if (a.score == "weights" || a.criterion == "spectral") pw = nsc_cli::prune_weights(*ck, m.model_type, space, a.criterion, a.score == "weights");
  }
  { // Budgets: units and percentages of the unpruned model (its option-0 sums, exact).
    const prune_cost_vector un = prune_sum_candidate(space, std::vector<std::size_t>(2 * space.layers.size(), 0)).totals.cost;
    auto put = [&](prune_cost c, double x, const std::string& flag) {
      if (!(std::isfinite(x) && x >= 0 && x < 0x1p62))
        throw std::invalid_argument("nsc prune: " + flag + " must be >= 0 and < 2^62 in its unit (got " + nsc_cli::fmt(x, 6) + ")");
      const std::int64_t v = std::int64_t(std::floor(x));
      for (prune_budget& b : s.budgets)
        if (b.cost == c) { b.limit = std::min(b.limit, v); return; } // two flags on one cost: the tighter
      s.budgets.push_back({c, v});
    };
    auto ref = [&](prune_cost c) { return double(un[std::size_t(c)]); };
    using nsc::io::parse_bytes;
    using nsc::io::parse_count;
    if (a.params) put(prune_cost::params, parse_count(*a.params, "nsc prune: --params", ref(prune_cost::params)), "--params");
    if (a.params_non_embedding)
      put(prune_cost::params_non_embedding,
          parse_count(*a.params_non_embedding, "nsc prune: --params-non-embedding", ref(prune_cost::params_non_embedding)),
          "--params-non-embedding");
    if (a.active_params)
      put(prune_cost::params_active, parse_count(*a.active_params, "nsc prune: --active-params", ref(prune_cost::params_active)),
          "--active-params");
    if (a.flops) { // per token at T; a percentage of the unpruned prefill
      const nsc::io::quantity q = nsc::io::parse_quantity(*a.flops, nsc::io::quantity_kind::count, "nsc prune: --flops");
      put(prune_cost::prefill_flops, q.relative ? q.value * ref(prune_cost::prefill_flops) : q.value * double(T), "--flops");
    }
    if (a.kv_bytes) put(prune_cost::kv_bytes, parse_bytes(*a.kv_bytes, "nsc prune: --kv-bytes", ref(prune_cost::kv_bytes)), "--kv-bytes");
    if (a.memory) put(prune_cost::memory, parse_bytes(*a.memory, "nsc prune: --memory", ref(prune_cost::memory)), "--memory");
    if (a.weights_memory)
      put(prune_cost::weight_bytes, parse_bytes(*a.weights_memory, "nsc prune: --weights-memory", ref(prune_cost::weight_bytes)),
          "--weights-memory");
    // Per GPU: weights + KV <= utilization x memory - activations - reserve (the overhead model).
    auto per_gpu = [&](double device, const std::string& flag) {
      put(prune_cost::memory_per_gpu, std::max(0.0, utilization * device - activations - reserve), flag);
    };
    if (a.memory_per_gpu)
      per_gpu(parse_bytes(*a.memory_per_gpu, "nsc prune: --memory-per-gpu", ref(prune_cost::memory_per_gpu)), "--memory-per-gpu");
    if (gpu) per_gpu(ss.serving->gpu.memory_bytes, "--gpu (its memory)");
    if (a.decode_ms)
      put(prune_cost::decode_time,
          nsc::io::parse_milliseconds(*a.decode_ms, "nsc prune: --decode-ms", ref(prune_cost::decode_time) * 1e-9) * 1e9, "--decode-ms");
    if (a.tokens_per_s) {
      const double tps = nsc::io::parse_count(*a.tokens_per_s, "nsc prune: --tokens-per-s");
      if (!(tps > 0)) throw std::invalid_argument("nsc prune: --tokens-per-s must be > 0");
      put(prune_cost::decode_time, double(a.batch) / tps * 1e12, "--tokens-per-s");
    }
    if (a.ttft_ms)
      put(prune_cost::prefill_time,
          nsc::io::parse_milliseconds(*a.ttft_ms, "nsc prune: --ttft-ms", ref(prune_cost::prefill_time) * 1e-9) * 1e9, "--ttft-ms");
  }
  const std::string own = "own-architecture (" + m.model_type + ")";
  { // The format must express the model itself (e.g. DeciLM has no q_norm, no shared expert and
    // head_dim = hidden / heads): checked on the unpruned model before the search is run.
    const prune_candidate unpruned =
        nsc::search::prune_make_candidate(space, std::vector<std::size_t>(2 * space.layers.size(), 0));
    try {
      if (a.uniform)
        nsc::prune_verify_config(nsc::prune_emit_uniform_config(raw, space, unpruned), space, unpruned, own);
      else
        nsc::prune_verify_config(nsc::prune_emit_config(raw, space, unpruned), space, unpruned);
    } catch (const std::invalid_argument& e) {
      if (a.uniform)
        throw std::invalid_argument("nsc prune: --uniform cannot write " + m.spec.name + " in its own architecture: " +
                                    e.what());
      if (ss.format != prune_format::decilm) throw;
      const std::string why = nsc::prune_engine_refusal(m.spec, prune_engine::any, false);
      throw std::invalid_argument("nsc prune: " + m.spec.name + " (" + m.model_type +
                                  ") cannot be written as DeciLM block_configs (--emit-format decilm" +
                                  (a.emit_format_given ? ")" : ", the default)") +
                                  (why.empty() ? "" : ": " + why) + ". " + instead(raw) + "." +
                                  // the emitter's own refusal, or the read-back mismatch when no structural reason is known
                                  (why.empty() || (!std::string_view(e.what()).starts_with("nsc::prune_verify_config") &&
                                                   std::string_view(e.what()).find(nsc::decilm_shared_norm_text) == std::string_view::npos)
                                       ? std::string(" (") + e.what() + ")"
                                       : std::string()));
    }
  }
  const prune_search_result r = a.uniform ? search_prune_uniform(space, s) : search_prune(space, s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!r.best) {
    if (!r.shortfalls.empty()) {
      for (const prune_shortfall& x : r.shortfalls)
        std::fprintf(stderr, "nsc: infeasible: budget %s = %s cannot be met; the smallest model of the space has %s\n",
                     std::string(to_string(x.cost)).c_str(), cost_text(x.cost, x.limit, T).c_str(),
                     cost_text(x.cost, x.smallest, T).c_str());
    } else {
      std::fprintf(stderr, "nsc: infeasible: every budget alone can be met, but no model of the space meets them all at once\n");
    }
    return nsc_cli::exit_no_answer;
  }
  const prune_candidate& b = *r.best;
  // The chosen model's config (for --emit-config and --emit-checkpoint; always with --uniform, whose
  // answer says every engine loads it), built and read back once.
  nlohmann::json cfg;
  if (!a.emit_config.empty() || !a.emit_checkpoint.empty() || a.uniform) {
    cfg = a.uniform ? nsc::prune_emit_uniform_config(raw, space, b) : nsc::prune_emit_config(raw, space, b);
    nsc::prune_verify_config(cfg, space, b, a.uniform ? own : std::string()); // reads back to exactly these numbers
  }
  if (!a.emit_config.empty()) nsc_cli::write_text_file(a.emit_config, cfg.dump(2) + "\n");
  // Where the written config loads (the engines' code; nsc/io/prune_config.hpp).
  nlohmann::json loads;
  if (a.uniform)
    loads = {{"every engine",
              "yes (" + (raw.contains("architectures") && raw["architectures"].is_array() ? raw["architectures"].dump() : m.model_type) +
                  ", the original's own architecture with new sizes): transformers, vLLM, SGLang, TensorRT-LLM, mlx-lm and "
                  "llama.cpp (convert_hf_to_gguf.py) load it wherever they load the original, no remote code"}};
  else if (ss.format == prune_format::decilm)
    loads = engine_lines(nsc::search::prune_apply(space, b));
  else
    loads = {{"every engine", std::string("no: ") + to_string(ss.format).data() +
                                  " shapes are read by nsc score only (no engine builds per-layer shapes from them); "
                                  "use --engine E or --uniform for a servable config"}};
  std::optional<nsc::io::prune_checkpoint_result> ckpt;
  double ckpt_secs = 0;
  if (!a.emit_checkpoint.empty()) { // the weights of the chosen model (nsc/io/prune_checkpoint.hpp)
    const auto c0 = std::chrono::steady_clock::now();
    nsc::io::prune_checkpoint_settings cs;
    cs.shard_bytes = std::uint64_t(a.shard_size);
    cs.criterion = nsc::io::parse_channel_criterion(a.criterion);
    if (pw) cs.orders = pw->orders;
    ckpt = nsc::io::write_pruned_checkpoint(*ck, m.model_type, space, b, cfg, a.emit_checkpoint, cs);
    ckpt_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
  }
  nlohmann::json j = generic_json(b, T);
  j["model"] = m.spec.name;
  j["model_type"] = m.model_type;
  j["space"] = "generic";
  j["emit_format"] = a.uniform ? own : std::string(to_string(ss.format));
  if (engine != prune_engine::any) j["engine"] = a.engine;
  j["uniform"] = a.uniform;
  j["loads"] = loads;
  if (a.uniform) j["uniform_models"] = r.uniform_models;
  j["score"] = a.score;
  if (a.score == "weights")
    j["weight_score"] = {{"criterion", a.criterion}, {"best", b.dp_value}, {"unpruned", r.unpruned.dp_value},
                         {"matrices", pw->matrices}, {"float32_matrices", pw->float_matrices}, {"seconds", pw->seconds}};
  nlohmann::json bj = nlohmann::json::object();
  for (const prune_budget& x : s.budgets) bj[std::string(to_string(x.cost))] = x.limit;
  j["budgets"] = bj;
  j["workload"] = {{"seq_len", T}, {"context", ss.load.context_tokens()}, {"batch", a.batch},
                   {"kv_dtype", a.kv_dtype}, {"weight_dtype", ss.load.stored->name},
                   {"weight_dtype_source", ss.load.stored->source}, {"attention", a.attention}};
  j["unpruned"] = generic_json(r.unpruned, T);
  j["unpruned"].erase("layers");
  j["solver"] = a.uniform ? "uniform enumeration" : r.info.describe();
  if (!a.uniform && !r.info.reason.empty()) j["solver_choice"] = r.info.reason;
  if (a.front) {
    j["front_points"] = r.front_points;
    j["front_epsilon"] = r.front_epsilon; // the listing's guarantee (0: exact)
    j["front_solver"] = r.front_info.describe();
    if (r.front_epsilon > 0) j["front_dp_epsilon"] = r.front_dp_epsilon;
    if (!r.front_exact_refusal.empty()) j["front_exact_refusal"] = r.front_exact_refusal;
  }
  j["options"] = space.options();
  j["time_seconds"] = secs;
  if (!a.emit_config.empty()) j["emitted_config"] = a.emit_config;
  if (ckpt) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& f : ckpt->files) files.push_back(f.filename().string());
    j["emitted_checkpoint"] = {{"dir", a.emit_checkpoint}, {"files", files}, {"tensors", ckpt->tensors},
                               {"bytes", ckpt->bytes}, {"criterion", a.criterion}, {"time_seconds", ckpt_secs}};
  }
  if (a.top > 0) {
    nlohmann::json f = nlohmann::json::array();
    for (std::size_t i = 0; i < r.top.size(); ++i) {
      f.push_back(generic_json(r.top[i], T));
      f.back()["orderings"] = nsc_cli::orderings_json(r.top_orderings[i]);
    }
    j["top"] = std::move(f);
    j["top_positions"] = a.positions;
  }
  // --plot: NSC against params and the other budgeted costs (scripts/plot_front.py's generic
  // mode); the front streamed to its input a point at a time, without the per-layer lists (its
  // bytes in the plotter counted against --max-memory: plot_front_point_bytes)
  std::string plot_note;
  if (!a.plot.empty()) {
    nlohmann::json pj = j;
    pj.erase("layers");
    if (pj.contains("top")) pj.erase("top");
    const nsc_cli::plot_outcome po = nsc_cli::plot_front_streamed(
        std::move(pj), "front", r.front.size(),
        [&](std::size_t i) {
          nlohmann::json p = generic_json(r.front[i], T);
          p.erase("layers");
          return p;
        },
        a.plot, m.spec.name + " (generic space, " + a.emit_format + ")",
        "NSC against params and every other budgeted cost; chosen and unpruned marked");
    if (po.written) j["plot"] = a.plot;
    plot_note = po.note;
  }
  if (a.json || a.format == "json") {
    j["defaults"] = prune_defaults(a, ss, space, gpu);
    if (a.front) // one point at a time: the output holds no front-sized JSON tree
      nsc_cli::print_json_streamed(std::move(j), "front", r.front.size(), [&](std::size_t i) { return generic_json(r.front[i], T); });
    else
      nsc_cli::print_json(j);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }
  const auto& t = b.totals.cost;
  const auto& u = r.unpruned.totals.cost;
  const std::string out_name = a.uniform ? own
                               : std::string(to_string(ss.format)) + (engine != prune_engine::any ? " for " + a.engine : "");
  // The FFN floor as the space applies it (nsc/search/prune_space.hpp): max(min_ffn, ratio x own).
  const std::string ffn_floor =
      (ss.min_ffn_ratio > 0 ? ", >= " + nsc_cli::fmt(100 * ss.min_ffn_ratio, 4) + "% of the layer's own" : std::string()) +
      (a.min_ffn > 0 ? ", >= " + std::to_string(a.min_ffn) : std::string());
  std::printf("NSC-DP pruning  %s (%s, %zu layers), %s space, %s output\n", m.spec.name.c_str(), m.model_type.c_str(),
              space.layers.size(), a.uniform ? "uniform" : "generic", out_name.c_str());
  if (a.uniform)
    std::printf("space    uniform: one attention shape (query heads h, KV heads k | h) for every layer, one FFN width (multiples of "
                "%lld%s) for every dense layer, one (experts, width) for every MoE layer%s\n",
                static_cast<long long>(ss.ffn_multiple), ffn_floor.c_str(), ss.no_op ? "; depth: the last layers removed" : "");
  else
  std::printf("space    per layer: attention (%s) x FFN (multiples of %lld%s%s)%s; %zu options in all (sublayer choices summed over layers), %zu distinct "
              "layer(s)\n",
              ss.format == prune_format::decilm    ? "KV heads dividing the heads, or no-op"
              : ss.format == prune_format::per_layer ? "query heads h, KV heads k | h, or no-op"
                                                     : "kept",
              static_cast<long long>(ss.ffn_multiple), ffn_floor.c_str(),
              ss.format == prune_format::nsc ? "" : ", or no-op",
              a.tp > 1 ? (", tp " + std::to_string(a.tp)).c_str() : "", space.options(),
              a.score == "weights" ? space.layers.size() : space.distinct_layers); // --score weights: each layer its own values
  { // recurrent mixers (Mamba-2, Gated DeltaNet, falcon_h1's parallel one): what the space does with them
    std::size_t recurrent = 0, alone = 0;
    std::string kinds;
    for (const nsc::block_spec& blk : space.spec.blocks) {
      const nsc::attention_spec& mx = blk.attention.recurrent() ? blk.attention : blk.parallel;
      if (!mx.recurrent()) continue;
      ++recurrent;
      alone += blk.attention.recurrent() && blk.ffn.kind == nsc::ffn_kind::none;
      const std::string k(nsc::to_string(mx.kind));
      if (kinds.find(k) == std::string::npos) kinds += (kinds.empty() ? "" : " / ") + k;
    }
    if (recurrent > 0)
      std::printf("mixers   %zu of %zu layers hold a recurrent mixer (%s): kept as it is%s; its fixed state per sequence "
                  "(--state-dtype, --conv-state-dtype) is in --kv-bytes and --memory\n",
                  recurrent, space.spec.blocks.size(), kinds.c_str(),
                  alone > 0 && ss.no_op ? (", or removed where it is its layer's only sublayer (" + std::to_string(alone) + " layers)").c_str() : "");
  }
  if (tied_shared && !a.keep_expert_width)
    std::printf("note     the experts' width is kept: the config's shared experts are n_shared_experts x "
                "moe_intermediate_size, so it cannot narrow the routed experts alone\n");
  for (std::size_t i = 0; i < space.layers.size(); ++i) { // the expert options of the first MoE layer
    const nsc::ffn_spec& f = space.layers[i].base.ffn;
    if (f.kind != nsc::ffn_kind::standard || f.n_experts == 0) continue;
    std::vector<std::int64_t> counts;
    for (const prune_ffn_option& o : space.layers[i].ffn)
      if (!o.none && std::find(counts.begin(), counts.end(), o.experts) == counts.end()) counts.push_back(o.experts);
    std::printf("experts  per MoE layer (first: layer %zu): routed experts kept {%s} of %lld, top-%lld routing kept, expert "
                "width %s\n",
                i, joined(counts, ',').c_str(), static_cast<long long>(f.n_experts), static_cast<long long>(f.top_k),
                ss.expert_width ? "on the FFN grid" : "kept");
    break;
  }
  std::printf("workload prefill T = %lld (%s attention), context %lld, batch %lld, KV %s, weights %s\n",
              static_cast<long long>(T), a.attention.c_str(), static_cast<long long>(ss.load.context_tokens()),
              a.batch, a.kv_dtype.c_str(), nsc_cli::weights_text(ss.load.stored->name, ss.load.stored->source).c_str());
  for (const prune_budget& x : s.budgets)
    std::printf("budget   %-20s <= %s\n", std::string(to_string(x.cost)).c_str(), cost_text(x.cost, x.limit, T).c_str());
  if (s.budgets.empty()) std::printf("budget   none (the unconstrained optimum)\n");
  if (gpu)
    std::printf("gpu      %s x %lld (tp): per GPU weights + KV <= %s x %s - activations %s (chunk %lld) - reserve %s = %s bytes\n",
                ss.serving->gpu.name.c_str(), static_cast<long long>(a.tp), nsc_cli::fmt(utilization, 3).c_str(),
                grouped((long long)ss.serving->gpu.memory_bytes).c_str(), grouped((long long)activations).c_str(),
                static_cast<long long>(ss.serving->chunk()), grouped((long long)reserve).c_str(),
                grouped((long long)std::max(0.0, utilization * ss.serving->gpu.memory_bytes - activations - reserve)).c_str());
  auto serving_line = [&](const char* what, const prune_candidate& c) {
    const auto& v = c.totals.cost;
    std::printf("%-8s weights %s bytes, per GPU %s bytes (weights + KV)", what, grouped(v[6]).c_str(), grouped(v[7]).c_str());
    if (gpu)
      std::printf("; decode %s ms/step = %s tokens/s at batch %lld; TTFT %s ms at %lld tokens", nsc_cli::fmt(double(v[8]) * 1e-9, 6).c_str(),
                  nsc_cli::fmt(double(a.batch) / (double(v[8]) * 1e-12), 6).c_str(), a.batch,
                  nsc_cli::fmt(double(v[9]) * 1e-9, 6).c_str(), static_cast<long long>(ss.load.context_tokens()));
    std::printf("\n");
  };
  std::printf("%-8s %10s %18s %18s %14s %20s %20s\n", "", "NSC", "params", "non-embedding", "FLOPs/token",
              "KV bytes", "memory bytes");
  auto row = [&](const char* what, const prune_candidate& c) {
    const auto& v = c.totals.cost;
    std::printf("%-8s %10.1f %18s %18s %14.6g %20s %20s\n", what, c.totals.nsc, grouped(v[0]).c_str(),
                grouped(v[1]).c_str(), c.totals.flops_per_token, grouped(v[4]).c_str(), grouped(v[5]).c_str());
  };
  row("unpruned", r.unpruned);
  row("best", b);
  if (a.score == "weights")
    std::printf("score    psi_W of the kept weights (--score weights, %s criterion; layers only): unpruned %.1f, best %.1f "
                "(the knapsack's values; the NSC column is psi_%s of the shapes); %zu Grams (%zu in float32) in %s\n",
                a.criterion.c_str(), r.unpruned.dp_value, b.dp_value, a.estimator == "fs" ? "FS" : "MP", pw->matrices,
                pw->float_matrices, time_text(pw->seconds).c_str());
  (void)t;
  (void)u;
  // Runs of identical layers.
  const bool per_layer = space.spec.blocks.size() == b.layers.size(); // space.spec has one block per layer
  auto text = [&](std::size_t i) {
    return per_layer ? layer_text(b.layers[i], space.spec.blocks[i].attention.kind,
                                  space.spec.blocks[i].ffn.kind != nsc::ffn_kind::none)
                     : layer_text(b.layers[i]);
  };
  for (std::size_t i = 0; i < b.layers.size();) {
    std::size_t k = i + 1;
    while (k < b.layers.size() && text(k) == text(i)) ++k;
    if (k - 1 == i)
      std::printf("         layer %zu: %s\n", i, text(i).c_str());
    else
      std::printf("         layers %zu-%zu: %s\n", i, k - 1, text(i).c_str());
    i = k;
  }
  std::printf("         (identical layers are interchangeable: the solver lists a class's choices in option order)\n");
  serving_line("unpruned", r.unpruned);
  serving_line("best", b);
  if (a.front) {
    if (r.front_epsilon > 0) {
      std::printf("front    %zu points over the budgeted costs, an epsilon-front with eps = %g: every model whose budgeted "
                  "costs x (1 + eps) fit the budgets has a listed one within (1 + eps) in each budgeted cost with >= its NSC "
                  "(--json for all)\n",
                  r.front.size(), r.front_epsilon);
      std::printf("         %s: %zu points, trimmed to one per (1 + %.3g)-box at each of %zu levels (1 + %.3g overall), then "
                  "an epsilon-cover (1 + %.3g)\n",
                  r.front_info.describe().c_str(), r.front_points, r.front_info.trim_factor - 1, r.front_info.trim_depth,
                  r.front_dp_epsilon, r.front_dp_epsilon);
      if (!r.front_exact_refusal.empty())
        std::printf("         not the exact front: %s (%s)\n", r.front_exact_refusal.c_str(),
                    time_text(r.front_exact_seconds).c_str());
    } else {
      std::printf("front    %zu Pareto points over the budgeted costs (exact; --json for all)\n", r.front.size());
    }
    const std::size_t n = r.front.size(), rows = std::min<std::size_t>(n, 9);
    for (std::size_t k = 0; k < rows; ++k) row("", r.front[rows == 1 ? 0 : k * (n - 1) / (rows - 1)]);
  }
  if (a.top > 0) {
    std::printf("top      %zu best%s%s\n", r.top.size(),
                a.min_distance > 1 ? (" at distance >= " + std::to_string(a.min_distance) + " sublayers").c_str() : "",
                a.positions ? " (--positions: identical layers' choices in another order are separate entries)"
                            : " (identical layers interchangeable: one entry per multiset of their choices; --positions "
                              "lists orderings)");
    std::vector<double> values;
    for (const auto& c : r.top) {
      row("", c);
      values.push_back(c.dp_value);
    }
    if (!a.positions) nsc_cli::print_ties(values, r.top_orderings, r.top.size() == a.top, "NSC");
  }
  if (!a.emit_config.empty())
    std::printf("config   %s (%s; nsc score reads it back to exactly these numbers, checked)\n", a.emit_config.c_str(),
                out_name.c_str());
  for (const auto& [e, v] : loads.items()) std::printf("loads    %s: %s\n", e.c_str(), v.get<std::string>().c_str());
  if (ckpt)
    std::printf("weights  %s/ (%zu tensors, %s bytes in %zu shard(s) + index, config.json, nsc_prune.json: the heads, "
                "channels and experts kept, by %s importance) in %s\n",
                a.emit_checkpoint.c_str(), ckpt->tensors, grouped(std::int64_t(ckpt->bytes)).c_str(),
                std::size_t(std::count_if(ckpt->files.begin(), ckpt->files.end(),
                                          [](const auto& f) { return f.extension() == ".safetensors"; })),
                a.criterion.c_str(), time_text(ckpt_secs).c_str());
  if (!plot_note.empty()) std::printf("%s\n", plot_note.c_str());
  std::printf("defaults %s\n", prune_defaults(a, ss, space, gpu).c_str());
  if (a.uniform) {
    std::printf("solver   uniform enumeration, exact: %llu models (attention shapes x FFN shapes x depths; running sums give "
                "every depth)\n",
                static_cast<unsigned long long>(r.uniform_models));
  } else {
    std::printf("solver   %s\n", r.info.describe().c_str());
    if (!r.info.reason.empty()) std::printf("         cost model: %s\n", r.info.reason.c_str());
  }
  std::printf("time     %s (space incl. psi and costs, exact %s, re-scoring)\n", time_text(secs).c_str(),
              a.uniform ? "enumeration" : "multi-budget DP");
  return nsc_cli::exit_answer;
}

int run_prune(const prune_args& a) {
  if (!a.emit_checkpoint.empty() && a.weights.empty())
    throw std::invalid_argument("nsc prune: --emit-checkpoint OUT needs --weights CKPT (the checkpoint to slice)");
  if (a.score == "weights" && a.weights.empty())
    throw std::invalid_argument("nsc prune: --score weights needs --weights CKPT (psi_W of its matrices)");
  if (a.criterion != "magnitude" && a.weights.empty())
    throw std::invalid_argument("nsc prune: --criterion " + a.criterion + " needs --weights CKPT (with --emit-checkpoint or --score weights)");
  if (!a.weights.empty() && a.emit_checkpoint.empty() && a.score != "weights")
    throw std::invalid_argument("nsc prune: --weights CKPT is read by --emit-checkpoint OUT or --score weights (got neither)");
  if (!a.weights.empty() && a.space != "generic")
    throw std::invalid_argument("nsc prune: --weights / --emit-checkpoint need --space generic (LoRA adapters of the "
                                "LoNAS space have no weights)");
  if (a.space == "generic") return run_generic(a);
  if (!a.engine.empty() || a.uniform) throw std::invalid_argument("nsc prune: --engine and --uniform need --space generic");
  if (a.params_non_embedding || a.active_params || a.flops || a.kv_bytes || a.memory || a.top > 0)
    throw std::invalid_argument("nsc prune: --params-non-embedding, --active-params, --flops, --kv-bytes, --memory and "
                                "--top need --space generic");
  const nlohmann::json raw = nsc::io::read_json_file(a.config, "nsc prune");
  nsc::hf_model m = nsc::read_hf_config(raw);
  if (!raw.contains("_name_or_path")) m.spec.name = std::filesystem::path(a.config).stem().string();
  if (a.params && a.tflops)
    throw std::invalid_argument("nsc prune: give --params or --tflops, not both");

  nsc::search::lonas_space_settings ss;
  ss.seq_len = a.seq_len;
  ss.count_final_norm = a.count_final_norm;
  nsc::search::lonas_search_settings s;
  if (a.params) s.budget = nsc::io::parse_count(*a.params, "nsc prune: --params");
  if (a.tflops) {
    s.budget = *a.tflops * 1e12;
    s.cost = nsc::search::lonas_cost::macs;
  }

  // The LoNAS preset of the generic pruning space (nsc/search/lonas.hpp, prune_lonas): the same
  // space, engine and config writer as --space generic.
  const auto t0 = std::chrono::steady_clock::now();
  const nsc::search::lonas_prune_result g = nsc::search::prune_lonas(m.spec, ss, s);
  const nsc::search::lonas_search_result& r = g.lonas;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!r.best) {
    std::fprintf(stderr,
                 "nsc: infeasible: the smallest model of the space needs %s %s; the budget is %s\n",
                 a.tflops ? (std::to_string(double(r.front.front().macs) / 1e12) + " TFLOPs").c_str()
                          : grouped(r.front.front().params).c_str(),
                 a.tflops ? "" : "params",
                 a.tflops ? (std::to_string(*a.tflops) + " TFLOPs").c_str()
                          : grouped(*r.budget).c_str());
    return nsc_cli::exit_no_answer;
  }
  const nsc::search::lonas_candidate& b = *r.best;
  const std::int64_t hf_params = g.chosen->totals.cost[std::size_t(nsc::search::prune_cost::params)];

  if (!a.emit_config.empty()) { // nsc format: intermediate_sizes, lora_ranks; read back and checked
    const nlohmann::json cfg = nsc::prune_emit_config(raw, g.space, *g.chosen);
    nsc::prune_verify_config(cfg, g.space, *g.chosen);
    nsc_cli::write_text_file(a.emit_config, cfg.dump(2) + "\n");
  }

  nlohmann::json j = candidate_json(b);
  j["model"] = m.spec.name;
  j["model_type"] = m.model_type;
  j["space"] = a.space;
  j["params_total_hf"] = hf_params;
  j["seq_len"] = a.seq_len;
  j["budget"] = r.budget ? nlohmann::json(*r.budget) : nlohmann::json(nullptr);
  j["budget_kind"] = a.tflops ? "macs" : "params";
  j["unpruned"] = candidate_json(r.unpruned);
  j["front_points"] = r.front.size();
  j["time_seconds"] = secs;
  j["stats"] = {{"dp_runs", r.stats.dp_runs},
                {"cells", r.stats.cells},
                {"cell_updates", r.stats.cell_updates},
                {"layer_scores", r.stats.layer_scores}};
  if (!a.emit_config.empty()) j["emitted_config"] = a.emit_config;

  // The plot reads the whole front (always), the chosen and the unpruned model.
  std::string plot_note;
  if (!a.plot.empty()) {
    nlohmann::json pj = j;
    nlohmann::json f = nlohmann::json::array();
    for (const auto& c : r.front) f.push_back(candidate_json(c));
    pj["front"] = std::move(f);
    const nsc_cli::plot_outcome po = nsc_cli::plot_front(pj, a.plot, m.spec.name + " (LoNAS space)",
                                                         "NSC against params and TFLOPs; chosen and unpruned marked");
    if (po.written) j["plot"] = a.plot;
    plot_note = po.note;
  }

  const std::string format = a.json ? "json" : a.format;
  if (format == "json") {
    if (a.front) {
      nlohmann::json f = nlohmann::json::array();
      for (const auto& c : r.front) f.push_back(candidate_json(c));
      j["front"] = std::move(f);
    }
    nsc_cli::print_json(j);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }
  if (format == "csv") {
    std::printf("kind,params,tflops,nsc,ffn_sum,intermediate_sizes,lora_ranks\n");
    auto row = [](const char* kind, const nsc::search::lonas_candidate& c) {
      std::printf("%s,%lld,%.17g,%.17g,%lld,%s,%s\n", kind, static_cast<long long>(c.params),
                  c.tflops, c.nsc, static_cast<long long>(c.ffn_sum()), joined(c.widths, ';').c_str(),
                  joined(c.ranks, ';').c_str());
    };
    row("chosen", b);
    row("unpruned", r.unpruned);
    if (a.front)
      for (const auto& c : r.front) row("front", c);
    if (!plot_note.empty()) std::fprintf(stderr, "%s\n", plot_note.c_str());
    return nsc_cli::exit_answer;
  }

  std::vector<std::int64_t> widths, ranks; // layer 0's (every layer's widths: floor(d_ff j / 8) of its own)
  for (const auto& x : g.space.layers.at(0).ffn) widths.push_back(x.width);
  for (const auto& x : g.space.layers.at(0).attention) ranks.push_back(x.lora_rank);
  std::printf("NSC-DP pruning  %s (%s, %zu layers), LoNAS space\n", m.spec.name.c_str(),
              m.model_type.c_str(), g.space.layers.size());
  std::printf("space    per layer: q/k/v LoRA rank {%s} x FFN width {%s} (%zu options; "
              "o/gate/up/down adapters at rank %lld)\n"
              "scoring  the paper's LoNAS convention: Xavier of each block, psi_MP, q/k/v/o per "
              "head, LoRA adapters scored\n",
              joined(ranks, ',').c_str(), joined(widths, ',').c_str(), ranks.size() * widths.size(),
              static_cast<long long>(ss.adapter_rank));
  std::printf("unpruned %s params (%s), %.4f TFLOPs at T = %lld, NSC %.3f\n",
              grouped(r.unpruned.params).c_str(), billions(double(r.unpruned.params)).c_str(),
              r.unpruned.tflops, static_cast<long long>(a.seq_len), r.unpruned.nsc);
  if (r.budget)
    std::printf("budget   %s\n", a.tflops ? (nsc_cli::fmt(*a.tflops, 6) + " TFLOPs").c_str()
                                          : (grouped(*r.budget) + " params").c_str());
  else
    std::printf("budget   none (the unconstrained optimum)\n");
  std::printf("best     %s params (%s), %.4f TFLOPs, NSC %.3f\n", grouped(b.params).c_str(),
              billions(double(b.params)).c_str(), b.tflops, b.nsc);
  std::printf("         FFN widths %s; q/k/v ranks %s\n", multiset(b.widths).c_str(),
              multiset(b.ranks).c_str());
  if (a.count_final_norm == false && hf_params != b.params)
    std::printf("         (Hugging Face count incl. the final norm: %s)\n", grouped(hf_params).c_str());
  if (a.front) {
    std::printf("front    %zu points, %s .. %s params, %.4f .. %.4f TFLOPs (one DP pass; every "
                "budget's optimum)\n",
                r.front.size(), billions(double(r.front.front().params)).c_str(),
                billions(double(r.front.back().params)).c_str(), r.front.front().tflops,
                r.front.back().tflops);
    std::printf("         %14s %8s %12s  %s\n", "params", "TFLOPs", "NSC", "FFN widths");
    const std::size_t n = r.front.size();
    const std::size_t rows = std::min<std::size_t>(n, 9);
    for (std::size_t k = 0; k < rows; ++k) {
      const std::size_t i = rows == 1 ? 0 : k * (n - 1) / (rows - 1);
      const auto& c = r.front[i];
      std::printf("         %14s %8.4f %12.3f  %s%s\n", billions(double(c.params)).c_str(), c.tflops,
                  c.nsc, multiset(c.widths).c_str(),
                  multiset(c.ranks) == multiset(b.ranks) ? "" : (" (ranks " + multiset(c.ranks) + ")").c_str());
    }
    if (n > rows) std::printf("         (%zu rows shown of %zu; --format csv or --json for all)\n", rows, n);
  }
  if (!a.emit_config.empty())
    std::printf("config   %s (intermediate_sizes, lora_ranks; read back by nsc score)\n",
                a.emit_config.c_str());
  if (!plot_note.empty()) std::printf("%s\n", plot_note.c_str());
  std::printf("work     %zu sublayer options over %zu layers (%zu distinct; the generic prune space's LoNAS preset), 1 "
              "exact DP: %s, %llu states, %llu candidates\n",
              g.space.options(), g.space.layers.size(), g.space.distinct_layers, g.search.info.describe().c_str(), static_cast<unsigned long long>(g.search.info.states),
              static_cast<unsigned long long>(g.search.info.candidates));
  std::printf("time     %s (space incl. psi, DP and front)\n", time_text(secs).c_str());
  return nsc_cli::exit_answer;
}

const nsc_cli::command prune_command{"prune", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<prune_args>();
  auto* sub = app.add_subcommand(
      "prune", "NSC-DP structured pruning of a Hugging Face model: --space generic (heads, KV heads, FFN widths, "
               "MoE experts, no-op sublayers under any budgets; configs loaders serve) or its LoNAS preset (per-layer FFN "
               "width and q/k/v LoRA rank under a params or TFLOPs budget, with the whole front)");
  sub->add_option("config", args->config, "path to a Hugging Face config.json (llama-like)")
      ->required();
  sub->add_option("--space", args->space,
                  "pruning space: lonas (FFN width x q/k/v LoRA rank, the paper's; a preset of generic) or generic "
                  "(heads, KV heads, FFN width, MoE experts, no-op sublayers, any budgets)")
      ->check(CLI::IsMember({"lonas", "generic"}));
  sub->add_option("--ffn-multiple", args->ffn_multiple, "generic: FFN width grid (default 256)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 30));
  sub->add_option("--min-ffn", args->min_ffn, "generic: smallest FFN width offered (the model's own always is)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 40));
  sub->add_option("--tp", args->tp, "generic: tensor-parallel degree (heads, widths divisible; KV heads divisible or dividing)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_option("--head-step", args->head_step,
                  "generic, per-layer: query heads in steps of this many (default: the GQA group, heads / KV heads)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_flag("--no-noop", args->no_noop, "generic: never remove a whole sublayer");
  sub->add_option("--expert-step", args->expert_step,
                  "generic, MoE: routed experts kept per layer E, E - S, ... down to top-k (default 1; 0 keeps the count)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 20));
  sub->add_option("--min-experts", args->min_experts, "generic, MoE: fewest experts kept per layer (never below top-k)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 20));
  sub->add_option("--ep", args->ep, "generic, MoE: expert-parallel degree (kept expert counts divisible by it)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 20));
  sub->add_flag("--keep-expert-width", args->keep_expert_width,
                "generic, MoE: keep the experts' width (default: on the --ffn-multiple grid, as dense FFNs)");
  sub->add_option("--params-non-embedding", args->params_non_embedding, "generic: bound on non-embedding params (7B, 6.5e9, 80%)");
  sub->add_option("--active-params", args->active_params, "generic: bound on active params (MoE; 3B, 80%)");
  sub->add_option("--flops", args->flops, "generic: bound on prefill FLOPs per token at --seq-len (1.2e10, 12G, 80%)");
  sub->add_option("--kv-bytes", args->kv_bytes, "generic: bound on KV-cache bytes at --context x --batch (4GiB, 50%)");
  sub->add_option("--memory", args->memory,
                  "generic: bound on weight + KV-cache bytes over all --tp GPUs as vLLM allocates them (24GiB, 80GB, 70%)");
  sub->add_option("--weights-memory", args->weights_memory, "generic: bound on weight bytes alone at --weight-dtype (12GiB, 60%)");
  sub->add_option("--memory-per-gpu", args->memory_per_gpu,
                  "generic: one GPU's memory (24GiB); weights + KV per GPU <= utilization x it - activations - reserve");
  nsc_cli::add_serving_options(sub, args->serving, "generic (its memory bounds each GPU; enables --decode-ms, --tokens-per-s, --ttft-ms): ");
  sub->add_option("--decode-ms", args->decode_ms, "generic, --gpu: bound on the decode step at --batch, --context (40, 40ms, 80%)");
  sub->add_option("--tokens-per-s", args->tokens_per_s, "generic, --gpu: decode tokens/s at --batch at least this (a bound on the step)");
  sub->add_option("--ttft-ms", args->ttft_ms, "generic, --gpu: bound on the prefill of one --context sequence (800, 1.5s, 80%)");
  sub->add_option("--kv-heads-min", args->kv_heads_min, "generic: keep at least this many KV heads per layer (the model's own always offered)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(1) << 20));
  sub->add_option("--min-ffn-ratio", args->min_ffn_ratio,
                  "generic: FFN widths >= this share of each layer's own width (0.25 or 25%; default 10%; 0: down to the grid)");
  sub->add_option("--context", args->context_text, "generic: cached tokens per sequence (32k, 32Ki, 8192; default: --seq-len)");
  sub->add_option("--batch", args->batch_text, "generic: sequences cached (default 1)");
  nsc_cli::add_state_dtype_options(sub, args->state_dtype, args->conv_state_dtype, "generic: ");
  sub->add_option("--kv-dtype", args->kv_dtype, "generic: KV-cache dtype (fp32, bf16 default, fp16, fp8, int8)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8"}));
  sub->add_option("--weight-dtype", args->weight_dtype, "generic: weight dtype for --memory (fp32, bf16, fp16, fp8, int8, int4; default: as the checkpoint stores "
                  "them, quantization_config and torch_dtype, as nsc score)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16", "fp8", "int8", "int4"}));
  sub->add_option("--attention", args->attention, "generic: prefill attention full (default) or causal")
      ->check(CLI::IsMember({"full", "causal"}));
  sub->add_option("--estimator", args->estimator, "generic: psi estimator mp (default) or fs")
      ->check(CLI::IsMember({"mp", "fs"}));
  sub->add_option("--emit-format", args->emit_format,
                  "generic: decilm (default; nemotron-nas block_configs), per-layer (per_layer_config) or nsc "
                  "(intermediate_sizes); limits the space")
      ->check(CLI::IsMember({"decilm", "per-layer", "nsc"}));
  sub->add_option("--engine", args->engine,
                  "generic: the serving engine the config must load in (vllm, sglang, trtllm, mlx, llama.cpp, "
                  "transformers): DeciLM block_configs with the keys it reads, the space kept to what it runs (FFN "
                  "widths from a 6-decimal ffn_mult; llama.cpp: no attention without its FFN, attention in layer 0; "
                  "mlx: attention in layer 0); models it cannot run are refused with what would work")
      ->check(CLI::IsMember({"vllm", "sglang", "trtllm", "mlx", "llama.cpp", "transformers"}));
  sub->add_flag("--uniform", args->uniform,
                "generic: one shape for every layer (query/KV heads, FFN width, experts; the last layers removed "
                "unless --no-noop), solved exactly by enumeration, written in the family's own architecture, which "
                "every engine loads with no remote code");
  sub->add_option("--weights", args->weights,
                  "generic: the model's safetensors checkpoint (a .safetensors file, an index .json or a directory)");
  sub->add_option("--emit-checkpoint", args->emit_checkpoint,
                  "generic: write the chosen model's weights (sharded safetensors + index), config.json and "
                  "nsc_prune.json into this new or empty directory (needs --weights)");
  sub->add_option("--shard-size", args->shard_size, "generic: bytes of data per safetensors shard at most (default 5e9)")
      ->check(CLI::Range(1.0, 1e15));
  sub->add_option("--criterion", args->criterion,
                  "generic: which heads / channels / experts survive: magnitude (default) or spectral (largest psi_W of "
                  "the kept matrices, greedy; docs/prune.md \"Pruned checkpoints\")")
      ->check(CLI::IsMember({"magnitude", "spectral"}));
  sub->add_option("--score", args->score,
                  "generic: value of each option: shapes (default: psi_MP of its shapes, or psi_FS with --estimator fs) or "
                  "weights (psi_W of the sub-matrices it keeps under --criterion; needs --weights)")
      ->check(CLI::IsMember({"shapes", "weights"}));
  sub->add_option("--top", args->top, "generic: also the K best models")->check(CLI::Range(std::size_t(1), std::size_t(1000)));
  sub->add_option("--min-distance", args->min_distance,
                  "generic, --top: each model differs from every earlier one in >= D sublayers (identical layers "
                  "matched best unless --positions)");
  sub->add_flag("--positions", args->positions,
                "generic, --top: identical layers' choices in another order are separate entries (default: one entry "
                "per multiset, with the number of orderings it stands for)");
  sub->add_option("--front-epsilon", args->front_epsilon,
                  "generic, --front: an epsilon-front (every model whose costs x (1 + eps) fit has a listed one within (1 + eps) in "
                  "each cost with >= its NSC; default: exact when it fits the caps, else the first of 0.01, 0.05, 0.2, 1 that does)")
      ->check(CLI::Range(1e-9, 1000.0));
  sub->add_option("--max-memory", args->max_memory,
                  "memory cap for the solver's tables and the listed front (bytes as 6GiB, 500MB or 1e9; default 1GiB); larger queries are "
                  "refused with what would fit")
      ->transform(nsc_cli::units(nsc::io::quantity_kind::bytes, "nsc prune: --max-memory"))
      ->check(CLI::Range(1e6, 1e15));
  sub->add_option("--params", args->params, "upper bound on params (5.7e9, 7B, 80%)");
  sub->add_option("--tflops", args->tflops, "upper bound on TFLOPs at --seq-len instead")
      ->check(CLI::PositiveNumber);
  sub->add_flag("--front", args->front, "also print the Pareto front (all points in csv/json)");
  sub->add_option("--format", args->format, "table (default), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sub->add_flag("--json", args->json, "same as --format json");
  sub->add_option("--seq-len", args->seq_len_text, "T of the TFLOPs (default 256, the paper's; 4k, 4Ki)");
  sub->add_flag("--count-final-norm", args->count_final_norm,
                "count the final norm in params (Hugging Face's exact count; the reference "
                "formula leaves it out)");
  sub->add_option("--emit-config", args->emit_config,
                  "write the chosen model as a config.json with intermediate_sizes and lora_ranks");
  sub->add_option("--plot", args->plot,
                  "write a PNG of the front (scripts/plot_front.py; generic: needs --front, NSC against params and "
                  "every budgeted cost)");
  return [args, sub] {
    args->app = sub;
    args->emit_format_given = sub->get_option("--emit-format")->count() > 0;
    args->seq_len = nsc::io::parse_tokens(args->seq_len_text, "nsc prune: --seq-len", 1, std::int64_t(1) << 24);
    if (!args->context_text.empty())
      args->context = nsc::io::parse_tokens(args->context_text, "nsc prune: --context", 1, 1000000000000LL);
    args->batch = nsc::io::parse_tokens(args->batch_text, "nsc prune: --batch", 1, 1000000000LL);
    return run_prune(*args);
  };
}};

} // namespace
