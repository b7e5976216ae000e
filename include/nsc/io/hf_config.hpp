/// \file nsc/io/hf_config.hpp
/// Hugging Face `config.json` -> nsc::transformer_spec (optional part: needs nlohmann-json; the
/// core never includes this header).
///
/// Synopsis
///
///     hf_model read_hf_config(const nlohmann::json& config)     model_type, spec, init range
///     hf_model read_hf_config_file(const std::filesystem::path&)
///     network  hf_network(const hf_model&, double seq_len)       make_transformer(spec, T)
///     scoring  hf_scoring(const hf_model&, estimator)            normal(initializer_range),
///                                                                variance_source::tensor
///     nlohmann::json with_nsc_extensions(config, spec)           writes intermediate_sizes and
///                                                                lora_ranks (pruned models)
///     hf_families()                                              the table of family traits
///
/// One reader drives every family from one table (`detail::hf::families`) of field names,
/// HF config-class defaults and structural traits; the counts are those of the module tree
/// transformers instantiates (every Linear, bias, norm, router, shared-expert gate, MLA norm).
///
/// | model_type | structure read from the config |
/// |---|---|
/// | llama, mistral, mixtral, qwen2, qwen3, phi3, olmo2, gemma, gemma2, gemma3 / gemma3_text | hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads (absent or null: = heads), head_dim (absent or null: hidden / heads; Gemma 256, Qwen3 128 by default), vocab_size, tie_word_embeddings, rms_norm_eps, initializer_range. RMSNorm, gated FFN, rotary positions. llama/qwen3/olmo2: attention_bias (q, k, v, o), llama: mlp_bias; qwen2: q, k, v biased; qwen3, gemma3: q_norm/k_norm RMSNorm(head_dim); olmo2: q_norm RMSNorm(heads head_dim), k_norm RMSNorm(kv heads head_dim), 2 norms per layer; gemma2/gemma3: 4 norms per layer; gemma: tied by default. phi3's fused qkv_proj and gate_up_proj have the parameters of separate q, k, v and gate, up. mixtral: num_local_experts, num_experts_per_tok. |
/// | qwen2_moe, qwen3_moe | num_experts, num_experts_per_tok, moe_intermediate_size, decoder_sparse_step (1), mlp_only_layers ([]): layer i is MoE iff i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0, else a dense MLP of intermediate_size; qwen2_moe: shared_expert_intermediate_size and its Linear(d, 1) shared_expert_gate, q, k, v biased; qwen3_moe: q_norm/k_norm, no shared expert. |
/// | deepseek_v2, deepseek_v3 | multi-head latent attention: q_lora_rank (null: a direct q_proj), kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, q_a_layernorm and kv_a_layernorm; n_routed_experts (null: dense), num_experts_per_tok, moe_intermediate_size, n_shared_experts (one MLP of n_shared_experts x moe_intermediate_size), first_k_dense_replace (0), moe_layer_freq (1): layer i is MoE iff i >= first_k_dense_replace and i % moe_layer_freq == 0; topk_method "noaux_tc" (V3) adds the router's e_score_correction_bias (n_routed_experts parameters). The multi-token-prediction layers (num_nextn_predict_layers) are not instantiated by transformers and not counted. |
/// | gpt_neox | hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, vocab_size, tie_word_embeddings (false), attention_bias (true), layer_norm_eps; LayerNorm, fused query_key_value (= q, k, v), biased dense MLP; rotary_pct and use_parallel_residual change no count. |
/// | nemotron-nas (DeciLM) | the llama fields plus block_configs (exactly num_hidden_layers entries {"attention": {...}, "ffn": {...}}): attention no_op (sublayer and its norm absent), replace_with_linear (one Linear(hidden, hidden) without bias), n_heads_in_group (KV heads = heads / n_heads_in_group, must divide), window_length (sliding window); ffn no_op, replace_with_linear, ffn_mult (width find_multiple(int(2 ffn_mult hidden / 3), 256)), intermediate_size, or Puzzletron's moe {num_local_experts, num_experts_per_tok, expert_intermediate_dim} (a Mixtral-style MoE: router Linear(hidden, experts) without bias, SwiGLU experts). head_dim = hidden / heads. |
/// | nemotron_h | hybrid_override_pattern (one character per layer: M a Mamba-2 mixer, * attention, - a relu2 MLP up_proj/down_proj; E (MoE) refused); each layer one mixer and one RMSNorm (layer_norm_epsilon); hidden_size, num_attention_heads, num_key_value_heads, head_dim or attention_head_dim (remote code), attention_bias, intermediate_size, mlp_bias; Mamba-2: mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups, conv_kernel, use_conv_bias (true), use_bias (false: in_proj, out_proj); vocab_size (131072), tie_word_embeddings (false). |
/// | qwen3_next | the qwen3_moe fields (q_norm/k_norm, qwen MoE with shared_expert_intermediate_size and its Linear(d, 1) gate, decoder_sparse_step, mlp_only_layers) plus: layer_types ("linear_attention" / "full_attention", one per layer) or full_attention_interval (4: layer i is full attention iff (i + 1) % 4 == 0); linear layers are Gated DeltaNet mixers (linear_num_value_heads, linear_value_head_dim, linear_num_key_heads, linear_key_head_dim, linear_conv_kernel_dim (4)); full-attention layers have the output gate (attn_output_gate, default true: q_proj of 2 heads head_dim rows); head_dim (256). The multi-token-prediction weights (mtp.*) are not instantiated by transformers and not counted. |
/// | qwen3_5_text, qwen3_5_moe_text (the text_config of qwen3_5 / qwen3_5_moe) | as qwen3_next (Qwen3.5's in_proj_qkv, in_proj_z, in_proj_b, in_proj_a have the parameters of in_proj_qkvz and in_proj_ba); dense MLP without num_experts; the vision tower is not counted; mtp_num_hidden_layers not counted. |
/// | gpt2 | n_embd, n_layer, n_head, n_inner (absent or null: 4 n_embd), n_positions, vocab_size, layer_norm_epsilon, initializer_range; every Linear biased, LayerNorm, learned positions, LM head tied (tie_word_embeddings, default true). |
/// | bert | hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size, max_position_embeddings, type_vocab_size (2), layer_norm_eps, initializer_range; BertModel: embedding LayerNorm, post-norm blocks, no final norm, no LM head, the pooler (nsc extension `add_pooling_layer`, default true; the pretraining/MLM heads are not part of the spec). |
/// | opt | hidden_size, num_hidden_layers, num_attention_heads, ffn_dim, vocab_size, max_position_embeddings (+2 rows, as OPTLearnedPositionalEmbedding), word_embed_proj_dim (project_in/out when != hidden_size), enable_bias (true), do_layer_norm_before (true; false: no final norm), _remove_final_layer_norm (false), layer_norm_elementwise_affine (true), tie_word_embeddings (true), init_std (0.02). |
///
/// Multimodal configs: when the top-level model_type is not in the table but a `text_config`
/// object is (gemma3's Gemma3ForConditionalGeneration, and any other), its text decoder is read
/// (`hf_model::text_config` is true; the vision tower and projector are not counted).
///
/// Sliding-window layers (attention_spec::sliding_window): `layer_types` ("sliding_attention" /
/// "full_attention", one per layer) when given; else mistral, mixtral, phi3: every layer when
/// sliding_window is non-null; qwen2, qwen3, qwen2_moe, qwen3_moe: layers i >= max_window_layers
/// when use_sliding_window is true; gemma2: even layers; gemma3: every layer but each
/// sliding_window_pattern-th (6).
///
/// Per-layer overrides (llama-like families): transformers' `per_layer_config`, a map from the
/// layer index (a string) to {num_attention_heads, num_key_value_heads, head_dim,
/// intermediate_size, skip: ["attention" | "mlp"]} (a skipped sublayer drops its norms, as a
/// DeciLM no_op), and on MoE layers the family's expert count (mixtral num_local_experts, qwen
/// num_experts) and expert width (mixtral intermediate_size, qwen moe_intermediate_size), the
/// count >= num_experts_per_tok; an unknown key is an error (it might change a shape nsc cannot see).
///
/// nsc extensions (any model_type): `intermediate_sizes` (one positive integer per layer,
/// overriding the FFN width; experts' width for MoE layers), `expert_counts` (one integer per
/// layer: the routed experts of a MoE layer, >= num_experts_per_tok; 0 for a layer without
/// experts) and `lora_ranks`: an integer (every
/// adapted projection of every layer), an object {"q_proj": r, "k_proj": r, "v_proj": r,
/// "o_proj": r, "gate_proj": r, "up_proj": r, "down_proj": r} (keys optional, every layer), or a
/// list with one integer or object per layer. The projection names are nsc's (the same for
/// every model_type: up_proj is GPT-2's c_fc, BERT's intermediate.dense, OPT's fc1).
///
/// Runs of identical layers: the spec's blocks are runs (block_spec::repeat), built without
/// materialising a layer twice; a uniform config is one block "layers.0-<n-1>" whatever
/// num_hidden_layers (2e6, 1e7, 1e12 read instantly; their counts are exact or a domain error
/// naming the overflow). Per-layer configs (layer_types, block_configs, per_layer_config,
/// mlp_only_layers, decoder_sparse_step, first_k_dense_replace, moe_layer_freq, gemma2/3
/// window patterns, intermediate_sizes, lora_ranks lists) give consecutive runs, equal
/// neighbours merged (same_block). Code that needs one block per layer calls expand(spec).
///
/// Limits (checked before anything is allocated): at most hf_max_layer_runs (16384) runs, and
/// per-layer lists for at most 16384 layers (a message naming the field, the value and the
/// limit); every count derived from the config is computed with checked arithmetic
/// (nsc/detail/checked.hpp), so a huge width or depth is a domain error, never a wrapped number.
///
/// Errors: std::invalid_argument "nsc::read_hf_config: field 'hidden_size' must be a positive
/// integer (got \"abc\")", "nsc::read_hf_config: missing field 'hidden_size' (model_type
/// llama)", "nsc::read_hf_config: unknown model_type; supported: ... (got \"t5\")",
/// "nsc::read_hf_config: field 'block_configs[3].attention.n_heads_in_group' must divide
/// num_attention_heads = 64 (got 7)"; files go through nsc/io/input_file.hpp (size and depth
/// limits, the path in every message). Values are quoted truncated. Unknown top-level fields
/// are ignored (real configs carry many).
#ifndef NSC_IO_HF_CONFIG_HPP
#define NSC_IO_HF_CONFIG_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/psi.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// What read_hf_config extracts from a config.json.
struct hf_model {
  std::string model_type;         ///< "llama", "gpt2", ... (the text decoder's for a multimodal config)
  transformer_spec spec;          ///< the architecture
  double initializer_range = 0.02; ///< std of HF's normal init (OPT: init_std)
  double norm_eps = 0;            ///< rms_norm_eps / layer_norm_eps(ilon) if given (informative)
  bool text_config = false;       ///< read from a nested text_config (vision parts not counted)
};

/// The most runs of identical layers read_hf_config builds, and the most layers a per-layer list
/// (layer_types, block_configs, intermediate_sizes, a list of lora_ranks) may describe: far
/// above any published decoder (~130 layers). num_hidden_layers itself has no limit of its own:
/// a uniform config is one run (block_spec::repeat) whatever its depth, and every count of it is
/// checked arithmetic (a domain error on overflow).
inline constexpr std::int64_t hf_max_layer_runs = 16384;

/// The model types read_hf_config understands.
inline constexpr std::string_view hf_supported_model_types =
    "llama, mistral, mixtral, qwen2, qwen3, qwen2_moe, qwen3_moe, phi3, olmo2, gemma, gemma2, "
    "gemma3, gemma3_text, deepseek_v2, deepseek_v3, gpt_neox, nemotron-nas, nemotron_h, qwen3_next, "
    "qwen3_5 / qwen3_5_text, qwen3_5_moe / qwen3_5_moe_text, gpt2, bert, opt";

namespace detail::hf {

using json = nlohmann::json;
inline constexpr std::string_view fn = "nsc::read_hf_config";

[[noreturn]] inline void bad(std::string_view field, std::string_view rule, const json& v) {
  std::string r = "field '";
  r.append(field).append("' ").append(rule);
  throw_invalid_argument(fn, r, io::json_excerpt(v));
}

/// Which mixture-of-experts layout a family has.
enum class moe_layout { none, mixtral, qwen, deepseek };
/// How a family marks sliding-window layers when `layer_types` is absent.
enum class window_rule { none, every_layer, qwen, alternate, pattern };

/// One row of the family table: field names, HF config-class defaults and structure.
struct family {
  std::string_view model_type;
  const char* hidden = "hidden_size";
  const char* layers = "num_hidden_layers";
  const char* heads = "num_attention_heads";
  const char* kv_heads = "num_key_value_heads"; ///< nullptr: MHA (kv = heads)
  bool head_dim = true;                          ///< reads head_dim (else hidden / heads)
  const char* ffn = "intermediate_size";         ///< nullptr: no global FFN width (DeciLM)
  std::int64_t ffn_default_mult = 0;             ///< absent FFN width: mult x hidden (GPT-2: 4)
  const char* vocab = "vocab_size";
  const char* positions = nullptr;               ///< learned position table rows
  const char* eps = "rms_norm_eps";
  const char* init = "initializer_range";
  const char* defaults = "{}";                   ///< HF config-class defaults (JSON)
  bool tie_default = false;
  norm_kind norm = norm_kind::rmsnorm;
  std::int64_t block_norms = 2;                  ///< d_model-wide norms per block
  bool gated = true;
  bool qkv_bias = false, out_bias = false, ffn_bias = false;
  const char* attention_bias = nullptr;          ///< field switching q, k, v, o biases
  const char* mlp_bias = nullptr;                ///< field switching the MLP biases
  qk_norm_kind qk_norm = qk_norm_kind::none;
  moe_layout moe = moe_layout::none;
  bool shared_expert = false;                    ///< qwen: shared expert + its gate
  bool latent = false;                           ///< DeepSeek MLA
  window_rule window = window_rule::none;
  bool per_layer_config = true;                  ///< reads transformers' per_layer_config
  bool block_configs = false;                    ///< DeciLM block_configs
  const char* hybrid_pattern = nullptr;          ///< Nemotron-H hybrid_override_pattern (one mixer per layer)
  bool linear_attention = false;                 ///< Qwen3-Next: Gated DeltaNet layers (layer_types /
                                                 ///< full_attention_interval), gated full attention
};

inline constexpr const char* gemma_defaults = R"({"head_dim": 256, "vocab_size": 256000})";
inline constexpr const char* gemma3_defaults =
    R"({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
        "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "sliding_window": 4096,
        "sliding_window_pattern": 6})";

/// The family table (HF transformers' modeling files; see the file comment).
inline const std::vector<family>& families() {
  static const std::vector<family> table = [] {
    std::vector<family> t;
    family llama;
    llama.model_type = "llama";
    llama.attention_bias = "attention_bias";
    llama.mlp_bias = "mlp_bias";
    t.push_back(llama);
    family mistral;
    mistral.model_type = "mistral";
    mistral.window = window_rule::every_layer;
    t.push_back(mistral);
    family mixtral = mistral;
    mixtral.model_type = "mixtral";
    mixtral.moe = moe_layout::mixtral;
    t.push_back(mixtral);
    family qwen2;
    qwen2.model_type = "qwen2";
    qwen2.qkv_bias = true;
    qwen2.window = window_rule::qwen;
    t.push_back(qwen2);
    family qwen3;
    qwen3.model_type = "qwen3";
    qwen3.attention_bias = "attention_bias";
    qwen3.qk_norm = qk_norm_kind::per_head;
    qwen3.window = window_rule::qwen;
    qwen3.defaults = R"({"head_dim": 128})";
    t.push_back(qwen3);
    family qwen2_moe = qwen2;
    qwen2_moe.model_type = "qwen2_moe";
    qwen2_moe.moe = moe_layout::qwen;
    qwen2_moe.shared_expert = true;
    t.push_back(qwen2_moe);
    family qwen3_moe = qwen3;
    qwen3_moe.model_type = "qwen3_moe";
    qwen3_moe.moe = moe_layout::qwen;
    t.push_back(qwen3_moe);
    family phi3;
    phi3.model_type = "phi3";
    phi3.window = window_rule::every_layer;
    t.push_back(phi3);
    family olmo2;
    olmo2.model_type = "olmo2";
    olmo2.attention_bias = "attention_bias";
    olmo2.qk_norm = qk_norm_kind::whole;
    t.push_back(olmo2);
    family gemma;
    gemma.model_type = "gemma";
    gemma.tie_default = true;
    gemma.defaults = gemma_defaults;
    gemma.attention_bias = "attention_bias";
    t.push_back(gemma);
    family gemma2 = gemma;
    gemma2.model_type = "gemma2";
    gemma2.block_norms = 4;
    gemma2.window = window_rule::alternate;
    t.push_back(gemma2);
    family gemma3 = gemma2;
    gemma3.model_type = "gemma3_text";
    gemma3.qk_norm = qk_norm_kind::per_head;
    gemma3.window = window_rule::pattern;
    gemma3.defaults = gemma3_defaults;
    t.push_back(gemma3);
    gemma3.model_type = "gemma3"; // a text-only config labelled gemma3
    t.push_back(gemma3);
    family ds;
    ds.model_type = "deepseek_v2";
    ds.latent = true;
    ds.kv_heads = nullptr;
    ds.head_dim = false;
    ds.moe = moe_layout::deepseek;
    ds.attention_bias = "attention_bias";
    ds.per_layer_config = false;
    t.push_back(ds);
    ds.model_type = "deepseek_v3";
    t.push_back(ds);
    family neox;
    neox.model_type = "gpt_neox";
    neox.kv_heads = nullptr;
    neox.head_dim = false;
    neox.eps = "layer_norm_eps";
    neox.norm = norm_kind::layernorm;
    neox.gated = false;
    neox.qkv_bias = neox.out_bias = neox.ffn_bias = true;
    neox.attention_bias = "attention_bias";
    t.push_back(neox);
    family deci;
    deci.model_type = "nemotron-nas";
    deci.kv_heads = nullptr;
    deci.head_dim = false;
    deci.ffn = nullptr;
    deci.block_configs = true;
    deci.per_layer_config = false;
    t.push_back(deci);
    family qwen3_next = qwen3_moe; // Qwen3NextForCausalLM: Gated DeltaNet + gated attention, qwen2_moe-style MoE
    qwen3_next.model_type = "qwen3_next";
    qwen3_next.shared_expert = true;
    qwen3_next.window = window_rule::none;
    qwen3_next.linear_attention = true;
    qwen3_next.per_layer_config = false;
    qwen3_next.defaults = R"({"head_dim": 256, "full_attention_interval": 4, "linear_conv_kernel_dim": 4})";
    t.push_back(qwen3_next);
    // Qwen3.5 (Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration): the text
    // decoder in text_config has Qwen3-Next's structure (in_proj_qkv + in_proj_z and in_proj_b +
    // in_proj_a hold the parameters of in_proj_qkvz and in_proj_ba); dense (qwen3_5_text: no
    // num_experts) or MoE with a gated shared expert (qwen3_5_moe_text).
    qwen3_next.model_type = "qwen3_5_text";
    t.push_back(qwen3_next);
    qwen3_next.model_type = "qwen3_5_moe_text";
    t.push_back(qwen3_next);
    family nemotron_h; // NemotronHForCausalLM: one mixer per layer, picked by hybrid_override_pattern
    nemotron_h.model_type = "nemotron_h";
    nemotron_h.eps = "layer_norm_epsilon";
    nemotron_h.block_norms = 1;
    nemotron_h.gated = false; // relu2 MLP: up_proj, down_proj
    nemotron_h.attention_bias = "attention_bias";
    nemotron_h.mlp_bias = "mlp_bias";
    nemotron_h.hybrid_pattern = "hybrid_override_pattern";
    nemotron_h.per_layer_config = false;
    nemotron_h.defaults = R"({"use_conv_bias": true, "use_bias": false, "vocab_size": 131072})";
    t.push_back(nemotron_h);
    family gpt2;
    gpt2.model_type = "gpt2";
    gpt2.hidden = "n_embd";
    gpt2.layers = "n_layer";
    gpt2.heads = "n_head";
    gpt2.kv_heads = nullptr;
    gpt2.head_dim = false;
    gpt2.ffn = "n_inner";
    gpt2.ffn_default_mult = 4;
    gpt2.positions = "n_positions";
    gpt2.eps = "layer_norm_epsilon";
    gpt2.tie_default = true;
    gpt2.norm = norm_kind::layernorm;
    gpt2.gated = false;
    gpt2.qkv_bias = gpt2.out_bias = gpt2.ffn_bias = true;
    gpt2.per_layer_config = false;
    t.push_back(gpt2);
    family bert = gpt2;
    bert.model_type = "bert";
    bert.hidden = "hidden_size";
    bert.layers = "num_hidden_layers";
    bert.heads = "num_attention_heads";
    bert.ffn = "intermediate_size";
    bert.ffn_default_mult = 0;
    bert.positions = "max_position_embeddings";
    bert.eps = "layer_norm_eps";
    t.push_back(bert);
    family opt = bert;
    opt.model_type = "opt";
    opt.ffn = "ffn_dim";
    opt.eps = "layer_norm_eps";
    opt.init = "init_std";
    t.push_back(opt);
    return t;
  }();
  return table;
}

inline const family* find_family(std::string_view type) {
  for (const family& f : families())
    if (f.model_type == type) return &f;
  return nullptr;
}

/// An integer-valued JSON number (integer, or a float with an integral value) as int64.
inline std::optional<std::int64_t> as_integer(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > std::uint64_t(INT64_MAX)) return std::nullopt;
    return std::int64_t(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0)
      return std::int64_t(d);
  }
  return std::nullopt;
}

inline bool present(const json& c, const char* key) { return c.contains(key) && !c[key].is_null(); }

inline std::int64_t integer(const json& v, std::string_view key, std::int64_t min, const char* rule) {
  const auto i = as_integer(v);
  if (!i || *i < min) bad(key, rule, v);
  return *i;
}

inline const char* int_rule(std::int64_t min) {
  return min >= 1 ? "must be a positive integer" : "must be a non-negative integer";
}

/// A config seen through its family's defaults: a field absent or null in the config takes
/// the HF config class's default when the family table has one.
struct fields {
  const json& c;
  json defaults;
  std::string type;

  const json* get(const char* key) const {
    if (present(c, key)) return &c[key];
    if (present(defaults, key)) return &defaults[key];
    return nullptr;
  }
  bool has(const char* key) const { return get(key) != nullptr; }
  std::int64_t required(const char* key, std::int64_t min = 1) const {
    const json* v = get(key);
    if (!v) {
      std::string r = "missing field '";
      r.append(key).append("' (model_type ").append(type).append(")");
      throw_invalid_argument(fn, r);
    }
    return integer(*v, key, min, int_rule(min));
  }
  std::int64_t optional(const char* key, std::int64_t fallback, std::int64_t min = 1) const {
    const json* v = get(key);
    return v ? integer(*v, key, min, int_rule(min)) : fallback;
  }
  bool flag(const char* key, bool fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) bad(key, "must be true or false", *v);
    return v->get<bool>();
  }
  double positive(const char* key, double fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_number() || !(std::isfinite(v->get<double>()) && v->get<double>() > 0))
      bad(key, "must be a positive number", *v);
    return v->get<double>();
  }
};

/// One layer's LoRA ranks from an integer or an object of per-projection ranks.
inline void read_lora(const json& v, block_spec& b, const std::string& where) {
  auto rank = [&](const json& x, const std::string& key) {
    const auto i = as_integer(x);
    if (!i || *i < 0) bad(key, "must be a non-negative integer", x);
    return *i;
  };
  if (v.is_object()) {
    for (const auto& [key, val] : v.items()) {
      const std::int64_t r = rank(val, where + "." + key);
      if (key == "q_proj") b.attention.lora_q = r;
      else if (key == "k_proj") b.attention.lora_k = r;
      else if (key == "v_proj") b.attention.lora_v = r;
      else if (key == "o_proj") b.attention.lora_o = r;
      else if (key == "gate_proj") {
        if (r > 0 && !b.ffn.gated)
          bad(where + "." + key, "needs a gated FFN (this model_type has none)", val);
        b.ffn.lora_gate = r;
      } else if (key == "up_proj") b.ffn.lora_up = r;
      else if (key == "down_proj") b.ffn.lora_down = r;
      else
        bad(where + "." + key,
            "is not a LoRA target; expected q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj "
            "or down_proj",
            val);
    }
    return;
  }
  const std::int64_t r = rank(v, where);
  b.attention.lora_q = b.attention.lora_k = b.attention.lora_v = b.attention.lora_o = r;
  if (b.ffn.gated) b.ffn.lora_gate = r;
  b.ffn.lora_up = b.ffn.lora_down = r;
}

/// The nsc extension fields intermediate_sizes and lora_ranks, checked as a whole (lists of one
/// entry per layer) and applied layer by layer (apply).
struct extensions {
  const json* sizes = nullptr; ///< intermediate_sizes (a list of n)
  const json* ranks = nullptr; ///< lora_ranks (an integer, an object or a list of n)
  const json* experts = nullptr; ///< expert_counts (a list of n)

  extensions(const json& c, std::int64_t n) {
    const std::size_t un = std::size_t(n);
    if (present(c, "intermediate_sizes")) {
      sizes = &c["intermediate_sizes"];
      if (!sizes->is_array() || sizes->size() != un)
        bad("intermediate_sizes", "must be a list of " + std::to_string(n) + " positive integers (one per layer)",
            *sizes);
    }
    if (present(c, "expert_counts")) { // routed experts kept per layer (0: a layer without experts)
      experts = &c["expert_counts"];
      if (!experts->is_array() || experts->size() != un)
        bad("expert_counts", "must be a list of " + std::to_string(n) + " integers (one per layer)", *experts);
    }
    if (present(c, "lora_ranks")) {
      ranks = &c["lora_ranks"];
      if (ranks->is_array()) {
        if (ranks->size() != un) bad("lora_ranks", "must have " + std::to_string(n) + " entries (one per layer)", *ranks);
      } else if (!ranks->is_object() && !as_integer(*ranks)) {
        bad("lora_ranks", "must be an integer, an object of ranks or a list of them", *ranks);
      }
    }
  }
  /// Whether a field lists one entry per layer (every layer is then read on its own).
  bool per_layer() const { return sizes || experts || (ranks && ranks->is_array()); }
  /// The per-layer list that sets the runs (the first present).
  std::pair<const char*, const json*> list() const {
    if (sizes) return {"intermediate_sizes", sizes};
    if (experts) return {"expert_counts", experts};
    return {"lora_ranks", ranks};
  }
  /// Applies the fields to layer i.
  void apply(std::int64_t i, block_spec& b) const {
    const std::size_t ui = std::size_t(i);
    if (sizes) {
      const json& e = (*sizes)[ui];
      const auto k = as_integer(e);
      const bool width = b.ffn.kind == ffn_kind::standard; // no_op / linear: no width
      if (!k || *k < (width ? 1 : 0))
        bad("intermediate_sizes[" + std::to_string(i) + "]",
            width ? "must be a positive integer" : "must be a non-negative integer (layer without an FFN width)", e);
      if (width) b.ffn.d_ff = *k;
    }
    if (experts) {
      const json& e = (*experts)[ui];
      const auto k = as_integer(e);
      const std::string at = "expert_counts[" + std::to_string(i) + "]";
      if (b.ffn.kind != ffn_kind::standard || b.ffn.n_experts == 0) {
        if (!k || *k != 0) bad(at, "must be 0 (layer " + std::to_string(i) + " has no experts)", e);
      } else {
        if (!k || *k < b.ffn.top_k)
          bad(at, "must be an integer >= num_experts_per_tok = " + std::to_string(b.ffn.top_k) +
                      " (top-k routing needs at least k experts)",
              e);
        b.ffn.n_experts = *k;
      }
    }
    if (ranks) {
      if (ranks->is_array()) read_lora((*ranks)[ui], b, "lora_ranks[" + std::to_string(i) + "]");
      else read_lora(*ranks, b, "lora_ranks");
    }
  }
};

/// Heads consistent with the width: without an explicit head_dim, heads divide hidden; the
/// KV heads divide the heads.
inline void check_heads(std::int64_t d, std::int64_t h, std::int64_t kv, bool explicit_head_dim,
                        const std::string& d_key, const std::string& h_key, const std::string& kv_key) {
  if (!explicit_head_dim && d % h != 0)
    bad(h_key, "must divide " + d_key + " = " + std::to_string(d), json(h));
  if (!kv_key.empty() && (kv < 1 || h % kv != 0))
    bad(kv_key, "must divide " + h_key + " = " + std::to_string(h), json(kv));
}

/// DeciLM's find_multiple(int(2 * ffn_mult * hidden / 3), 256) (Python float arithmetic).
inline std::int64_t deci_ffn_width(double ffn_mult, std::int64_t hidden, const std::string& where,
                                   const json& v) {
  const double x = 2 * ffn_mult * double(hidden) / 3;
  if (!(std::isfinite(x) && x >= 1 && x < 9.0e15)) bad(where, "gives an FFN width out of range", v);
  const auto n = std::int64_t(x);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

/// Reads one DeciLM block_configs entry into block i.
inline void read_block_config(const json& e, std::size_t i, const fields& f, block_spec& b) {
  const std::string at = "block_configs[" + std::to_string(i) + "]";
  if (!e.is_object()) bad(at, "must be an object {\"attention\": {...}, \"ffn\": {...}}", e);
  auto sub = [&](const char* key) -> const json& {
    if (!present(e, key) || !e[key].is_object()) bad(at + "." + key, "must be an object", e.contains(key) ? e[key] : json());
    return e[key];
  };
  auto flag = [&](const json& o, const std::string& where, const char* key) {
    if (!present(o, key)) return false;
    if (!o[key].is_boolean()) bad(where + "." + key, "must be true or false", o[key]);
    return o[key].get<bool>();
  };
  // Fields that change no count; anything else non-null is refused (it could change a shape).
  auto check_known = [&](const json& o, const std::string& where, std::initializer_list<std::string_view> known) {
    for (const auto& [key, val] : o.items()) {
      bool ok = val.is_null() || (val.is_boolean() && !val.get<bool>());
      for (std::string_view k : known) ok = ok || key == k;
      if (!ok) bad(where + "." + key, "is not a supported block_configs field (it may change shapes)", val);
    }
  };
  const json& a = sub("attention");
  const std::string aw = at + ".attention";
  check_known(a, aw, {"no_op", "replace_with_linear", "n_heads_in_group", "window_length", "num_sink_tokens",
                      "use_prefill_window_in_sink_attention", "unshifted_sink", "sparsify"});
  const bool a_none = flag(a, aw, "no_op"), a_lin = flag(a, aw, "replace_with_linear");
  if (a_none && a_lin) bad(aw, "cannot be both no_op and replace_with_linear", a);
  std::int64_t norms = 0;
  if (a_none) {
    b.attention.kind = attention_kind::none;
  } else {
    ++norms;
    if (a_lin) {
      b.attention.kind = attention_kind::linear;
    } else {
      if (!present(a, "n_heads_in_group")) bad(aw + ".n_heads_in_group", "is required for an attention block", json());
      const std::int64_t g = integer(a["n_heads_in_group"], aw + ".n_heads_in_group", 1, "must be a positive integer");
      const std::int64_t h = b.attention.n_heads;
      if (h % g != 0)
        bad(aw + ".n_heads_in_group", "must divide num_attention_heads = " + std::to_string(h), a["n_heads_in_group"]);
      b.attention.n_kv_heads = h / g;
      if (present(a, "window_length"))
        b.attention.sliding_window = integer(a["window_length"], aw + ".window_length", 1, "must be a positive integer");
    }
  }
  const json& ff = sub("ffn");
  const std::string fw = at + ".ffn";
  check_known(ff, fw, {"no_op", "replace_with_linear", "ffn_mult", "intermediate_size", "moe", "sparsify"});
  const bool f_none = flag(ff, fw, "no_op"), f_lin = flag(ff, fw, "replace_with_linear");
  if (f_none && f_lin) bad(fw, "cannot be both no_op and replace_with_linear", ff);
  if (f_none) {
    b.ffn.kind = ffn_kind::none;
  } else {
    ++norms;
    if (f_lin) {
      b.ffn.kind = ffn_kind::linear;
    } else if (present(ff, "moe")) { // Puzzletron's MoE block: E experts of SwiGLU width w, top-k routing
      const json& mo = ff["moe"];
      const std::string mw = fw + ".moe";
      if (!mo.is_object())
        bad(mw, "must be an object {num_local_experts, num_experts_per_tok, expert_intermediate_dim}", mo);
      if (present(ff, "intermediate_size") || present(ff, "ffn_mult"))
        bad(mw, "cannot be combined with intermediate_size or ffn_mult (the experts' width is expert_intermediate_dim)", ff);
      check_known(mo, mw, {"num_local_experts", "num_experts_per_tok", "expert_intermediate_dim"});
      auto need = [&](const char* key) {
        if (!present(mo, key)) bad(mw + "." + key, "is required", json());
        return integer(mo[key], mw + "." + key, 1, "must be a positive integer");
      };
      b.ffn.n_experts = need("num_local_experts");
      b.ffn.top_k = need("num_experts_per_tok");
      b.ffn.d_ff = need("expert_intermediate_dim");
      if (b.ffn.top_k > b.ffn.n_experts)
        bad(mw + ".num_experts_per_tok", "must be <= num_local_experts = " + std::to_string(b.ffn.n_experts),
            mo["num_experts_per_tok"]);
    } else if (present(ff, "intermediate_size")) {
      b.ffn.d_ff = integer(ff["intermediate_size"], fw + ".intermediate_size", 1, "must be a positive integer");
    } else if (present(ff, "ffn_mult")) {
      const json& m = ff["ffn_mult"];
      if (!m.is_number() || !(std::isfinite(m.get<double>()) && m.get<double>() > 0))
        bad(fw + ".ffn_mult", "must be a positive number", m);
      b.ffn.d_ff = deci_ffn_width(m.get<double>(), b.attention.d_model, fw + ".ffn_mult", m);
    } else if (f.has("intermediate_size")) {
      b.ffn.d_ff = f.required("intermediate_size");
    } else {
      bad(fw, "needs ffn_mult or intermediate_size (or no_op / replace_with_linear)", ff);
    }
  }
  b.n_norms = norms;
}

/// The config field holding a MoE family's routed expert count ("" when the family has none).
inline std::string_view moe_count_key(moe_layout m) {
  return m == moe_layout::mixtral ? "num_local_experts"
         : m == moe_layout::qwen  ? "num_experts"
         : m == moe_layout::deepseek ? "n_routed_experts"
                                     : "";
}

/// The config field holding a MoE family's expert width (mixtral: intermediate_size itself).
inline std::string_view moe_width_key(moe_layout m) {
  return m == moe_layout::mixtral ? "intermediate_size" : m == moe_layout::none ? "" : "moe_intermediate_size";
}

/// transformers' per_layer_config: the keys checked as a whole (layer indices in [0, n)), the
/// overrides applied layer by layer (apply; MoE layers: the family's expert count and expert
/// width fields, moe_count_key / moe_width_key).
struct per_layer_overrides {
  std::map<std::int64_t, std::vector<std::pair<std::string, const json*>>> at; ///< layer -> (key, overrides)
  std::int64_t norms_per_sublayer = 1;
  moe_layout moe = moe_layout::none;

  per_layer_overrides() = default;
  per_layer_overrides(const json& v, std::int64_t n, std::int64_t norms, moe_layout m = moe_layout::none)
      : norms_per_sublayer(norms), moe(m) {
    if (!v.is_object()) bad("per_layer_config", "must be an object mapping layer indices to overrides", v);
    for (const auto& [key, o] : v.items()) {
      const std::string where = "per_layer_config." + key;
      std::int64_t i = 0;
      bool ok = !key.empty() && key.size() <= 6;
      for (char ch : key) ok = ok && ch >= '0' && ch <= '9';
      if (ok) i = std::int64_t(std::stoul(key));
      if (!ok || i >= n) bad(where, "must be keyed by a layer index in [0, " + std::to_string(n) + ")", json(key));
      if (!o.is_object()) bad(where, "must be an object of overrides", o);
      at[i].emplace_back(key, &o);
    }
  }
  /// Applies the overrides of layer i (none: b unchanged).
  void apply(std::int64_t i, block_spec& b) const {
    const auto found = at.find(i);
    if (found == at.end()) return;
    for (const auto& [key, op] : found->second) {
      const std::string at_key = "per_layer_config." + key;
      for (const auto& [field, val] : op->items()) {
        const std::string w = at_key + "." + field;
        if (field == "num_attention_heads") b.attention.n_heads = integer(val, w, 1, "must be a positive integer");
        else if (field == "num_key_value_heads") b.attention.n_kv_heads = integer(val, w, 1, "must be a positive integer");
        else if (field == "head_dim") b.attention.head_dim = integer(val, w, 1, "must be a positive integer");
        else if (b.ffn.n_experts > 0 && field == moe_width_key(moe)) // the experts' width
          b.ffn.d_ff = integer(val, w, 1, "must be a positive integer");
        else if (field == "intermediate_size") {
          if (b.ffn.n_experts > 0) bad(w, "overrides a dense MLP width, but layer " + key + " is a mixture of experts", val);
          b.ffn.d_ff = integer(val, w, 1, "must be a positive integer");
        } else if (moe != moe_layout::none && (field == moe_count_key(moe) || field == moe_width_key(moe))) {
          if (b.ffn.n_experts == 0) bad(w, "overrides the experts, but layer " + key + " has none (a dense MLP)", val);
          const std::int64_t e = integer(val, w, 1, "must be a positive integer");
          if (e < b.ffn.top_k)
            bad(w, "must be >= num_experts_per_tok = " + std::to_string(b.ffn.top_k) + " (top-k routing needs k experts)",
                val);
          b.ffn.n_experts = e;
        } else if (field == "skip") {
          if (!val.is_array()) bad(w, "must be a list of \"attention\" and/or \"mlp\"", val);
          for (const json& sk : val) {
            if (sk == "attention" && b.attention.kind != attention_kind::none) {
              b.attention.kind = attention_kind::none;
              b.n_norms -= norms_per_sublayer;
            } else if (sk == "mlp" && b.ffn.kind != ffn_kind::none) {
              b.ffn.kind = ffn_kind::none;
              b.n_norms -= norms_per_sublayer;
            } else if (sk != "attention" && sk != "mlp") {
              bad(w, "entries must be \"attention\" or \"mlp\"", sk);
            }
          }
        } else {
          bad(w, "is not a supported per_layer_config override (num_attention_heads, num_key_value_heads, head_dim, "
                 "intermediate_size, skip" +
                     (moe == moe_layout::none ? std::string()
                                              : ", " + std::string(moe_count_key(moe)) + ", " + std::string(moe_width_key(moe))) +
                     ")",
              val);
        }
      }
      if (b.attention.kind == attention_kind::standard) {
        const attention_spec& a = b.attention;
        if (a.head_dim == 0 && a.d_model % a.n_heads != 0)
          bad(at_key + ".num_attention_heads", "must divide hidden_size = " + std::to_string(a.d_model) + " (no head_dim)",
              json(a.n_heads));
        if (a.n_heads % a.kv_heads() != 0)
          bad(at_key + ".num_key_value_heads", "must divide num_attention_heads = " + std::to_string(a.n_heads),
              json(a.kv_heads()));
      }
    }
  }
};

/// Where the layers of a config change: the indices at which a run of identical layers may
/// end. A per-layer list (every_layer) needs num_hidden_layers <= hf_max_layer_runs; a periodic
/// rule (period p) adds about 2 n / p cuts and is refused when that exceeds hf_max_layer_runs.
struct layer_cuts {
  std::int64_t n;          ///< layers
  const char* layers_key;  ///< the family's num_hidden_layers field (for messages)
  const json* layers_value;
  bool all = false;        ///< every layer is read on its own
  std::vector<std::int64_t> points{0};

  /// A run may end before layer i.
  void at(std::int64_t i) {
    if (i <= 0 || i >= n || all) return;
    if (points.size() > 4 * std::size_t(hf_max_layer_runs))
      bad(layers_key, "gives more than " + std::to_string(hf_max_layer_runs) +
                          " runs of identical layers (per-layer fields); at most that many are supported",
          *layers_value);
    points.push_back(i);
  }
  /// Every layer is read on its own: `field` is a list with one entry per layer.
  void every_layer(const char* field, const json& v) {
    if (n > hf_max_layer_runs)
      bad(field, "is a per-layer list, supported for at most " + std::to_string(hf_max_layer_runs) +
                     " layers (num_hidden_layers = " + std::to_string(n) + ")",
          v);
    all = true;
  }
  /// Cuts before start + k p + offset for k >= 0 and each offset in {0, 1}: rule `what` holds
  /// for the layers start + k p.
  void periodic(std::int64_t start, std::int64_t p, const std::string& what) {
    if (all || p <= 1 || start >= n) {
      at(start);
      return;
    }
    const std::int64_t count = (n - start) / p + 1;
    if (count > hf_max_layer_runs / 2)
      bad(layers_key, "gives more than " + std::to_string(hf_max_layer_runs) + " runs of identical layers (" + what +
                          " alternates every " + std::to_string(p) + " layers); at most " +
                          std::to_string(hf_max_layer_runs) + " runs are supported",
          *layers_value);
    for (std::int64_t m = start; m < n; m += p) {
      at(m);
      at(m + 1);
    }
  }
  /// The run boundaries: sorted, unique, starting at 0 (every layer when `all`).
  std::vector<std::int64_t> starts() {
    if (all) {
      std::vector<std::int64_t> v(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) v[std::size_t(i)] = i;
      return v;
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    return points;
  }
};

/// Which layers use a sliding window: `layer_types` ("sliding_attention" / "full_attention",
/// one per layer, all checked) when given, else the family's rule; at(i) for layer i.
struct sliding_rule {
  window_rule rule = window_rule::none;
  const json* types = nullptr;
  bool on = false;          ///< every_layer: sliding_window given; qwen: use_sliding_window
  std::int64_t from = 0;    ///< qwen: max_window_layers
  std::int64_t pattern = 6; ///< gemma3: every pattern-th layer is global

  sliding_rule() = default; ///< no sliding-window layer
  sliding_rule(const fields& f, const family& fam, layer_cuts& cuts) {
    const std::int64_t n = cuts.n;
    if (const json* lt = f.get("layer_types")) {
      if (!lt->is_array() || lt->size() != std::size_t(n))
        bad("layer_types", "must be a list of " + std::to_string(n) + " entries (one per layer)", *lt);
      cuts.every_layer("layer_types", *lt);
      for (std::size_t i = 0; i < lt->size(); ++i) {
        const json& t = (*lt)[i];
        if (t != "sliding_attention" && t != "full_attention")
          bad("layer_types[" + std::to_string(i) + "]", "must be \"sliding_attention\" or \"full_attention\"", t);
      }
      types = lt;
      return;
    }
    rule = fam.window;
    switch (rule) {
    case window_rule::none: break;
    case window_rule::every_layer: on = f.has("sliding_window"); break;
    case window_rule::qwen:
      on = f.flag("use_sliding_window", false);
      if (on) {
        from = f.optional("max_window_layers", 0, 0);
        cuts.at(from);
      }
      break;
    case window_rule::alternate: cuts.periodic(0, 2, "the sliding window"); break;
    case window_rule::pattern: {
      const char* key = f.has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern";
      pattern = f.optional(key, 6);
      cuts.periodic(pattern - 1, pattern, "the sliding window");
      break;
    }
    }
  }
  bool at(std::int64_t i) const {
    if (types) return (*types)[std::size_t(i)] == "sliding_attention";
    switch (rule) {
    case window_rule::none: return false;
    case window_rule::every_layer: return on;
    case window_rule::qwen: return on && i >= from;
    case window_rule::alternate: return i % 2 == 0;
    case window_rule::pattern: return (i + 1) % pattern != 0;
    }
    return false;
  }
};

/// Reads a config of family `fam`.
inline hf_model read_family(const json& c, const family& fam, const std::string& type) {
  fields f{c, json::parse(fam.defaults), type};
  hf_model m;
  m.model_type = type;
  transformer_spec& s = m.spec;
  s.d_model = f.required(fam.hidden);
  const std::int64_t layers = f.required(fam.layers);
  const std::int64_t heads = f.required(fam.heads);
  const std::int64_t kv = fam.kv_heads ? f.optional(fam.kv_heads, heads) : heads;
  std::int64_t head_dim = 0;
  if (fam.head_dim) {
    head_dim = f.optional("head_dim", 0);
    if (fam.hybrid_pattern && f.has("attention_head_dim")) { // Nemotron-H's remote code reads attention_head_dim
      const std::int64_t ahd = f.required("attention_head_dim");
      if (head_dim > 0 && head_dim != ahd)
        bad("head_dim", "must equal attention_head_dim = " + std::to_string(ahd), *f.get("head_dim"));
      head_dim = ahd;
    }
  } else if (!fam.latent && f.has("head_dim") &&
             (s.d_model % heads != 0 || f.required("head_dim") != s.d_model / heads)) {
    bad("head_dim", "must be " + std::string(fam.hidden) + " / " + fam.heads + " = " +
                        std::to_string(s.d_model / heads) + " for model_type " + type +
                        " (its modeling code does not read head_dim)",
        *f.get("head_dim"));
  }
  if (!fam.latent)
    check_heads(s.d_model, heads, kv, head_dim > 0, fam.hidden, fam.heads, fam.kv_heads ? fam.kv_heads : "");
  std::int64_t ffn = 0;
  if (fam.ffn) {
    if (fam.ffn_default_mult > 0)
      ffn = f.optional(fam.ffn, checked_mul(fam.ffn_default_mult, s.d_model, fn, "default FFN width"));
    else
      ffn = f.required(fam.ffn);
  }
  s.embeddings.vocab_size = f.required(fam.vocab);
  if (fam.positions) s.embeddings.positions = f.required(fam.positions);
  s.lm_head = f.flag("tie_word_embeddings", fam.tie_default) ? lm_head_kind::tied : lm_head_kind::untied;
  s.final_norm = fam.norm;
  m.norm_eps = f.positive(fam.eps, 0);
  m.initializer_range = f.positive(fam.init, f.positive("initializer_range", 0.02));

  block_spec b;
  b.norm = fam.norm;
  b.n_norms = fam.block_norms;
  attention_spec& a = b.attention;
  a.d_model = b.ffn.d_model = s.d_model;
  a.n_heads = heads;
  a.n_kv_heads = kv;
  a.head_dim = head_dim;
  a.qkv_bias = fam.qkv_bias;
  a.out_bias = fam.out_bias;
  if (fam.attention_bias) a.qkv_bias = a.out_bias = f.flag(fam.attention_bias, fam.qkv_bias);
  a.qk_norm = fam.qk_norm;
  b.ffn.d_ff = ffn;
  b.ffn.gated = fam.gated;
  b.ffn.bias = fam.mlp_bias ? f.flag(fam.mlp_bias, fam.ffn_bias) : fam.ffn_bias;
  if (fam.latent) {
    a.kind = attention_kind::latent;
    a.n_kv_heads = 0;
    a.q_lora_rank = f.optional("q_lora_rank", 0);
    a.kv_lora_rank = f.required("kv_lora_rank");
    a.qk_nope_head_dim = f.required("qk_nope_head_dim", 0);
    a.qk_rope_head_dim = f.required("qk_rope_head_dim", 0);
    a.v_head_dim = f.required("v_head_dim");
    if (a.qk_nope_head_dim == 0 && a.qk_rope_head_dim == 0)
      bad("qk_nope_head_dim", "plus qk_rope_head_dim must be >= 1", *f.get("qk_nope_head_dim"));
  }
  // The layers are built as runs of identical layers (block_spec::repeat): every rule below
  // is a function of the layer index i (at(i)) plus the indices where it may change (cuts), so
  // a uniform config is one run whatever num_hidden_layers, and no layer is built twice.
  layer_cuts cuts{layers, fam.layers, f.get(fam.layers)};

  // Mixture of experts, per layer.
  auto moe_fields = [&](const char* n_key, std::int64_t width) {
    ffn_spec e = b.ffn;
    e.n_experts = f.required(n_key);
    e.top_k = f.required("num_experts_per_tok");
    if (e.top_k > e.n_experts)
      bad("num_experts_per_tok", "must be <= " + std::string(n_key) + " = " + std::to_string(e.n_experts),
          *f.get("num_experts_per_tok"));
    e.d_ff = width;
    return e;
  };
  ffn_spec expert;                   // the MoE FFN of the layers is_moe(i) picks
  bool moe = false;                  // the config has MoE layers
  std::int64_t step = 1, first = 0;  // qwen decoder_sparse_step; deepseek first_k_dense_replace ...
  std::int64_t freq = 1;             // ... and moe_layer_freq
  std::set<std::int64_t> dense;      // qwen mlp_only_layers
  switch (fam.moe) {
  case moe_layout::none: break;
  case moe_layout::mixtral:
    expert = moe_fields("num_local_experts", ffn);
    moe = true;
    break;
  case moe_layout::qwen: {
    if (f.optional("num_experts", 0, 0) == 0) break;
    expert = moe_fields("num_experts", f.required("moe_intermediate_size"));
    moe = true;
    if (fam.shared_expert) {
      expert.shared_d_ff = f.optional("shared_expert_intermediate_size", 0, 0);
      expert.shared_gate = expert.shared_d_ff > 0;
    }
    step = f.optional("decoder_sparse_step", 1);
    if (const json* v = f.get("mlp_only_layers")) {
      if (!v->is_array()) bad("mlp_only_layers", "must be a list of layer indices", *v);
      for (std::size_t k = 0; k < v->size(); ++k) {
        const std::int64_t i = integer((*v)[k], "mlp_only_layers[" + std::to_string(k) + "]", 0,
                                       "must be a non-negative integer");
        if (i >= layers) bad("mlp_only_layers[" + std::to_string(k) + "]", "must be < num_hidden_layers = " + std::to_string(layers), (*v)[k]);
        dense.insert(i);
        cuts.at(i);
        cuts.at(i + 1);
      }
    }
    cuts.periodic(step - 1, step, "decoder_sparse_step");
    break;
  }
  case moe_layout::deepseek: {
    if (!f.has("n_routed_experts")) break;
    expert = moe_fields("n_routed_experts", f.required("moe_intermediate_size"));
    moe = true;
    expert.shared_d_ff = checked_mul(f.optional("n_shared_experts", 0, 0), expert.d_ff, fn, "shared expert width");
    if (const json* t = f.get("topk_method")) expert.router_bias = *t == "noaux_tc";
    first = f.optional("first_k_dense_replace", 0, 0);
    freq = f.optional("moe_layer_freq", 1);
    cuts.at(first);
    if (freq > 1) cuts.periodic(first + (freq - first % freq) % freq, freq, "moe_layer_freq");
    break;
  }
  }
  auto is_moe = [&](std::int64_t i) {
    switch (fam.moe) {
    case moe_layout::none: return false;
    case moe_layout::mixtral: return moe;
    case moe_layout::qwen: return moe && !dense.count(i) && (i + 1) % step == 0;
    case moe_layout::deepseek: return moe && i >= first && i % freq == 0;
    }
    return false;
  };

  // Sliding-window layers.
  const bool windows = fam.window != window_rule::none || (f.has("layer_types") && !fam.linear_attention);
  const sliding_rule sliding = windows ? sliding_rule(f, fam, cuts) : sliding_rule();
  std::int64_t window = 0; // sliding_window, read at the first sliding layer

  const json* block_configs = nullptr;
  if (fam.block_configs) {
    block_configs = f.get("block_configs");
    if (!block_configs) bad("block_configs", "is required for model_type " + type, json());
    if (!block_configs->is_array() || block_configs->size() != std::size_t(layers))
      bad("block_configs", "must be a list of num_hidden_layers = " + std::to_string(layers) + " entries",
          *block_configs);
    cuts.every_layer("block_configs", *block_configs);
  }
  per_layer_overrides overrides;
  if (const json* v = f.get("per_layer_config")) {
    if (!fam.per_layer_config) bad("per_layer_config", "is not supported for model_type " + type, *v);
    overrides = per_layer_overrides(*v, layers, fam.block_norms / 2, fam.moe);
    for (const auto& [i, list] : overrides.at) {
      cuts.at(i);
      cuts.at(i + 1);
    }
  }
  // Nemotron-H: hybrid_override_pattern, one character per layer: 'M' a Mamba-2 mixer, '*'
  // attention, '-' an MLP; each layer has that one mixer and one RMSNorm.
  std::string pattern;
  attention_spec mamba;
  if (fam.hybrid_pattern) {
    const json* v = f.get(fam.hybrid_pattern);
    if (!v || !v->is_string())
      bad(fam.hybrid_pattern, "must be a string of one character per layer (M, *, -) for model_type " + type,
          v ? *v : json());
    pattern = v->get<std::string>();
    if (pattern.size() != std::size_t(layers))
      bad(fam.hybrid_pattern, "must have num_hidden_layers = " + std::to_string(layers) + " characters", *v);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      const char ch = pattern[i];
      if (ch == 'E')
        bad(fam.hybrid_pattern, "has an 'E' (mixture-of-experts layer) at " + std::to_string(i) +
                                    ": Nemotron-H MoE layers are not supported yet (M, * and - are)",
            *v);
      if (ch != 'M' && ch != '*' && ch != '-')
        bad(fam.hybrid_pattern, "has '" + std::string(1, ch) + "' at " + std::to_string(i) +
                                    "; expected M (Mamba-2), * (attention) or - (MLP)",
            *v);
      if (i > 0 && ch != pattern[i - 1]) cuts.at(std::int64_t(i));
    }
    if (pattern.find('M') != std::string::npos) {
      mamba.kind = attention_kind::mamba2;
      mamba.d_model = s.d_model;
      mamba.ssm_heads = f.required("mamba_num_heads");
      mamba.ssm_head_dim = f.required("mamba_head_dim");
      mamba.ssm_state = f.required("ssm_state_size");
      mamba.ssm_groups = f.required("n_groups");
      if (mamba.ssm_heads % mamba.ssm_groups != 0)
        bad("n_groups", "must divide mamba_num_heads = " + std::to_string(mamba.ssm_heads), *f.get("n_groups"));
      mamba.conv_kernel = f.required("conv_kernel");
      mamba.conv_bias = f.flag("use_conv_bias", true);
      mamba.qkv_bias = mamba.out_bias = f.flag("use_bias", false);
    }
  }
  // Qwen3-Next: Gated DeltaNet ("linear_attention") and gated full-attention layers, from
  // layer_types, else every full_attention_interval-th layer is full attention.
  attention_spec gdn;
  std::vector<bool> linear_at; // per layer when layer_types is given
  std::int64_t interval = 0;
  if (fam.linear_attention) {
    gdn.kind = attention_kind::gated_deltanet;
    gdn.d_model = s.d_model;
    gdn.ssm_heads = f.required("linear_num_value_heads");
    gdn.ssm_head_dim = f.required("linear_value_head_dim");
    gdn.ssm_groups = f.required("linear_num_key_heads");
    gdn.ssm_state = f.required("linear_key_head_dim");
    gdn.conv_kernel = f.required("linear_conv_kernel_dim");
    if (gdn.ssm_heads % gdn.ssm_groups != 0)
      bad("linear_num_key_heads", "must divide linear_num_value_heads = " + std::to_string(gdn.ssm_heads),
          *f.get("linear_num_key_heads"));
    b.attention.output_gate = f.flag("attn_output_gate", true);
    if (const json* v = f.get("layer_types")) {
      if (!v->is_array() || v->size() != std::size_t(layers))
        bad("layer_types", "must be a list of num_hidden_layers = " + std::to_string(layers) + " entries", *v);
      cuts.every_layer("layer_types", *v);
      for (std::size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (e != "linear_attention" && e != "full_attention")
          bad("layer_types[" + std::to_string(i) + "]", "must be \"linear_attention\" or \"full_attention\"", e);
        linear_at.push_back(e == "linear_attention");
      }
    } else {
      interval = f.required("full_attention_interval");
      cuts.periodic(interval - 1, interval, "full_attention_interval");
    }
  }
  const extensions ext(c, layers);
  if (ext.per_layer()) cuts.every_layer(ext.list().first, *ext.list().second);

  // Layer i, then the runs.
  auto layer_at = [&](std::int64_t i) {
    block_spec x = b;
    if (is_moe(i)) x.ffn = expert;
    if (windows && sliding.at(i)) {
      if (window == 0) window = f.required("sliding_window");
      x.attention.sliding_window = window;
    }
    if (block_configs) read_block_config((*block_configs)[std::size_t(i)], std::size_t(i), f, x);
    if (fam.linear_attention &&
        (linear_at.empty() ? (i + 1) % interval != 0 : bool(linear_at[std::size_t(i)]))) {
      x.attention = gdn;
      x.attention.qkv = b.attention.qkv;
    }
    if (!pattern.empty()) {
      const char ch = pattern[std::size_t(i)];
      if (ch == 'M') x.attention = mamba;
      if (ch != '-') x.ffn.kind = ffn_kind::none;
      if (ch == '-') x.attention.kind = attention_kind::none;
    }
    overrides.apply(i, x);
    ext.apply(i, x);
    return x;
  };
  const std::vector<std::int64_t> starts = cuts.starts();
  for (std::size_t k = 0; k < starts.size(); ++k) {
    block_spec x = layer_at(starts[k]);
    x.repeat = (k + 1 < starts.size() ? starts[k + 1] : layers) - starts[k];
    if (!s.blocks.empty() && same_block(s.blocks.back(), x))
      s.blocks.back().repeat += x.repeat; // at most num_hidden_layers in all
    else
      s.blocks.push_back(x);
  }

  // Family peculiarities the table does not express.
  if (type == "bert") {
    s.embeddings.token_types = f.optional("type_vocab_size", 2, 0);
    s.embeddings.norm = norm_kind::layernorm;
    s.final_norm = norm_kind::none;
    s.lm_head = lm_head_kind::none;
    s.pooler = f.flag("add_pooling_layer", true);
  } else if (type == "opt") {
    s.embeddings.positions = checked_add<std::int64_t>(s.embeddings.positions, 2, fn, "position rows");
    s.embeddings.dim = f.optional("word_embed_proj_dim", s.d_model);
    const bool bias = f.flag("enable_bias", true);
    const bool before = f.flag("do_layer_norm_before", true);
    const bool remove_final = f.flag("_remove_final_layer_norm", false);
    const norm_kind ln = f.flag("layer_norm_elementwise_affine", true) ? norm_kind::layernorm : norm_kind::none;
    s.final_norm = before && !remove_final ? ln : norm_kind::none;
    for (block_spec& x : s.blocks) {
      x.norm = ln;
      x.attention.qkv_bias = x.attention.out_bias = x.ffn.bias = bias;
    }
  }
  return m;
}

} // namespace detail::hf

/// The table of families read_hf_config understands (field names, defaults, structure).
inline const std::vector<detail::hf::family>& hf_families() { return detail::hf::families(); }

/// Reads a Hugging Face config (a parsed config.json) into a transformer_spec; the fields read
/// per model_type and the nsc extensions are listed in the file comment. The spec's name is
/// `_name_or_path` if given, else the model_type. Scoring layouts are the spec defaults
/// (per-head Q/K/V, whole output projection): change them on the returned spec.
/// Throws std::invalid_argument "nsc::read_hf_config: ..." naming the field and the bad value,
/// std::domain_error when a count overflows 64 bits.
inline hf_model read_hf_config(const nlohmann::json& config) {
  namespace h = detail::hf;
  if (!config.is_object())
    throw_invalid_argument(h::fn, "the config must be a JSON object", io::json_excerpt(config));
  if (!h::present(config, "model_type"))
    throw_invalid_argument(h::fn, std::string("missing field 'model_type' (supported: ")
                                      .append(hf_supported_model_types)
                                      .append(")"));
  const nlohmann::json& t = config["model_type"];
  if (!t.is_string()) h::bad("model_type", "must be a string", t);
  std::string type = t.get<std::string>();
  const nlohmann::json* body = &config;
  const h::family* fam = h::find_family(type);
  bool nested = false;
  if ((!fam || type == "gemma3") && h::present(config, "text_config")) {
    const nlohmann::json& tc = config["text_config"];
    if (!tc.is_object()) h::bad("text_config", "must be an object", tc);
    std::string inner = type == "gemma3" || type == "qwen3_5" || type == "qwen3_5_moe" ? type + "_text" : "";
    if (h::present(tc, "model_type")) {
      if (!tc["model_type"].is_string()) h::bad("text_config.model_type", "must be a string", tc["model_type"]);
      inner = tc["model_type"].get<std::string>();
    }
    if (const h::family* f2 = h::find_family(inner)) {
      fam = f2;
      body = &tc;
      type = inner;
      nested = true;
    }
  }
  if (!fam)
    throw_invalid_argument(h::fn,
                           std::string("unknown model_type; supported: ").append(hf_supported_model_types),
                           io::json_excerpt(t));
  hf_model m = h::read_family(*body, *fam, type);
  m.text_config = nested;
  if (h::present(config, "_name_or_path") && config["_name_or_path"].is_string() &&
      !config["_name_or_path"].get<std::string>().empty())
    m.spec.name = config["_name_or_path"].get<std::string>();
  else
    m.spec.name = t.get<std::string>();
  validate(m.spec, h::fn); // a safety net: the field checks above should catch everything
  return m;
}

/// Reads a config.json file (see read_hf_config) through nsc/io/input_file.hpp (size limit,
/// depth limit, the path in every message). The spec's name is `_name_or_path` if given, else
/// the file's stem. Throws std::invalid_argument "nsc::read_hf_config: <path>: cannot open file
/// (no such file)", "...: <path>: is a directory, not a file", "...: <path>: invalid JSON: ..."
/// and read_hf_config's errors.
inline hf_model read_hf_config_file(const std::filesystem::path& file) {
  const nlohmann::json j = io::read_json_file(file, detail::hf::fn);
  hf_model m = read_hf_config(j);
  if (!detail::hf::present(j, "_name_or_path")) m.spec.name = file.stem().string();
  return m;
}

/// The network of a read config at sequence length T: make_transformer(m.spec, T).
inline network hf_network(const hf_model& m, double seq_len) {
  return make_transformer(m.spec, seq_len);
}

/// Framework-faithful scoring of a Hugging Face model: every Linear drawn from
/// normal(0, initializer_range^2) (what HF's _init_weights does), the variance of the whole
/// tensor (variance_source::tensor; with a normal init the fans play no part), estimator `est`,
/// embeddings and heads not scored. Compare scoring{} (Xavier of each block, the paper's).
inline scoring hf_scoring(const hf_model& m, estimator est = estimator::mp) {
  scoring s;
  s.initialisation = init::normal(m.initializer_range);
  s.source = variance_source::tensor;
  s.est = est;
  s.score_embeddings = false;
  return s;
}

/// Returns `config` with the nsc extension fields written from `spec` so that a pruned model
/// reads back: "intermediate_sizes" (every block's d_ff), "expert_counts" (when a block is a
/// mixture of experts: its expert count, 0 for the others) and "lora_ranks" (one object per
/// layer with its non-zero ranks; the field is removed when no layer has an adapter). Other
/// fields are kept; the number of layers (a run counts repeat times) must equal the config's
/// layer count for it to read back, and may not exceed hf_max_layer_runs (the per-layer list
/// limit; std::invalid_argument "nsc::with_nsc_extensions: ...").
inline nlohmann::json with_nsc_extensions(nlohmann::json config, const transformer_spec& spec) {
  detail::check_layer_limit("nsc::with_nsc_extensions", "model", total_layers(spec), hf_max_layer_runs,
                            "list entries", "the per-layer list limit of read_hf_config");
  nlohmann::json sizes = nlohmann::json::array();
  nlohmann::json ranks = nlohmann::json::array();
  bool any_lora = false;
  for (const block_spec& b : spec.blocks) {
    nlohmann::json r = nlohmann::json::object();
    auto put = [&](const char* key, std::int64_t v) {
      if (v > 0) {
        r[key] = v;
        any_lora = true;
      }
    };
    put("q_proj", b.attention.lora_q);
    put("k_proj", b.attention.lora_k);
    put("v_proj", b.attention.lora_v);
    put("o_proj", b.attention.lora_o);
    put("gate_proj", b.ffn.lora_gate);
    put("up_proj", b.ffn.lora_up);
    put("down_proj", b.ffn.lora_down);
    for (std::int64_t k = 0; k < b.repeat; ++k) { // a run: one entry per layer
      sizes.push_back(b.ffn.d_ff);
      ranks.push_back(r);
    }
  }
  config["intermediate_sizes"] = std::move(sizes);
  nlohmann::json experts = nlohmann::json::array();
  bool any_moe = false;
  for (const block_spec& b : spec.blocks) {
    const bool moe = b.ffn.kind == ffn_kind::standard && b.ffn.n_experts > 0;
    for (std::int64_t k = 0; k < b.repeat; ++k) experts.push_back(moe ? b.ffn.n_experts : 0); // a run: one entry per layer
    any_moe = any_moe || moe;
  }
  if (any_moe)
    config["expert_counts"] = std::move(experts);
  else
    config.erase("expert_counts");
  if (any_lora)
    config["lora_ranks"] = std::move(ranks);
  else
    config.erase("lora_ranks");
  return config;
}

} // namespace nsc

#endif // NSC_IO_HF_CONFIG_HPP
