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
///
/// Supported model_type values and the fields read (HF's defaults where a field is absent):
///
/// | model_type | fields |
/// |---|---|
/// | llama, mistral, qwen2, mixtral | hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_key_value_heads (absent or null: = heads), head_dim (absent or null: hidden / heads), vocab_size, tie_word_embeddings (false), rms_norm_eps, initializer_range (0.02); llama: attention_bias (on q, k, v, o; false), mlp_bias (false); qwen2: q, k, v biased, o not; mixtral: num_local_experts, num_experts_per_tok. RMSNorm, gated (SwiGLU) FFN, rotary positions (no table). |
/// | gpt2 | n_embd, n_layer, n_head, n_inner (absent or null: 4 n_embd), n_positions, vocab_size, layer_norm_epsilon, initializer_range; every Linear biased, LayerNorm, learned positions, LM head tied (tie_word_embeddings, default true). |
/// | bert | hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size, max_position_embeddings, type_vocab_size (2), layer_norm_eps, initializer_range; BertModel: embedding LayerNorm, post-norm blocks, no final norm, no LM head, the pooler (nsc extension `add_pooling_layer`, default true; the pretraining/MLM heads are not part of the spec). |
/// | opt | hidden_size, num_hidden_layers, num_attention_heads, ffn_dim, vocab_size, max_position_embeddings (+2 rows, as OPTLearnedPositionalEmbedding), word_embed_proj_dim (project_in/out when != hidden_size), enable_bias (true), do_layer_norm_before (true; false: no final norm), _remove_final_layer_norm (false), layer_norm_elementwise_affine (true), tie_word_embeddings (true), init_std (0.02). |
///
/// nsc extensions (any model_type): `intermediate_sizes` (one positive integer per layer,
/// overriding the FFN width; experts' width for mixtral) and `lora_ranks`: an integer (every
/// adapted projection of every layer), an object {"q_proj": r, "k_proj": r, "v_proj": r,
/// "o_proj": r, "gate_proj": r, "up_proj": r, "down_proj": r} (keys optional, every layer), or a
/// list with one integer or object per layer. The projection names are nsc's (the same for
/// every model_type: up_proj is GPT-2's c_fc, BERT's intermediate.dense, OPT's fc1).
///
/// Errors: std::invalid_argument "nsc::read_hf_config: field 'hidden_size' must be a positive
/// integer (got \"abc\")", "nsc::read_hf_config: missing field 'hidden_size' (model_type
/// llama)", "nsc::read_hf_config: unknown model_type; supported: llama, mistral, mixtral,
/// qwen2, gpt2, bert, opt (got \"t5\")"; an unreadable file or invalid JSON names the file.
/// Unknown fields are ignored (real configs carry many).
#ifndef NSC_IO_HF_CONFIG_HPP
#define NSC_IO_HF_CONFIG_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/psi.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// What read_hf_config extracts from a config.json.
struct hf_model {
  std::string model_type;         ///< "llama", "gpt2", ...
  transformer_spec spec;          ///< the architecture
  double initializer_range = 0.02; ///< std of HF's normal init (OPT: init_std)
  double norm_eps = 0;            ///< rms_norm_eps / layer_norm_eps(ilon) if given (informative)
};

/// The model types read_hf_config understands.
inline constexpr std::string_view hf_supported_model_types =
    "llama, mistral, mixtral, qwen2, gpt2, bert, opt";

namespace detail::hf {

using json = nlohmann::json;
inline constexpr std::string_view fn = "nsc::read_hf_config";

[[noreturn]] inline void bad(std::string_view field, std::string_view rule, const json& v) {
  std::string r = "field '";
  r.append(field).append("' ").append(rule);
  throw_invalid_argument(fn, r, v.dump());
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

inline std::int64_t integer(const json& v, const char* key, std::int64_t min, const char* rule) {
  const auto i = as_integer(v);
  if (!i || *i < min) bad(key, rule, v);
  return *i;
}

inline std::int64_t required_int(const json& c, const char* key, const std::string& type,
                                 std::int64_t min = 1) {
  if (!present(c, key)) {
    std::string r = "missing field '";
    r.append(key).append("' (model_type ").append(type).append(")");
    throw_invalid_argument(fn, r);
  }
  return integer(c[key], key, min,
                 min >= 1 ? "must be a positive integer" : "must be a non-negative integer");
}

inline std::int64_t optional_int(const json& c, const char* key, std::int64_t fallback,
                                 std::int64_t min = 1) {
  if (!present(c, key)) return fallback;
  return integer(c[key], key, min,
                 min >= 1 ? "must be a positive integer" : "must be a non-negative integer");
}

inline bool optional_bool(const json& c, const char* key, bool fallback) {
  if (!present(c, key)) return fallback;
  if (!c[key].is_boolean()) bad(key, "must be true or false", c[key]);
  return c[key].get<bool>();
}

inline double optional_positive(const json& c, const char* key, double fallback) {
  if (!present(c, key)) return fallback;
  const json& v = c[key];
  if (!v.is_number() || !(std::isfinite(v.get<double>()) && v.get<double>() > 0))
    bad(key, "must be a positive number", v);
  return v.get<double>();
}

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

/// Applies the nsc extension fields intermediate_sizes and lora_ranks.
inline void read_extensions(const json& c, transformer_spec& s) {
  const std::size_t n = s.blocks.size();
  if (present(c, "intermediate_sizes")) {
    const json& v = c["intermediate_sizes"];
    if (!v.is_array() || v.size() != n)
      bad("intermediate_sizes", "must be a list of " + std::to_string(n) + " positive integers (one per layer)", v);
    for (std::size_t i = 0; i < n; ++i) {
      const auto k = as_integer(v[i]);
      if (!k || *k < 1)
        bad("intermediate_sizes[" + std::to_string(i) + "]", "must be a positive integer", v[i]);
      s.blocks[i].ffn.d_ff = *k;
    }
  }
  if (present(c, "lora_ranks")) {
    const json& v = c["lora_ranks"];
    if (v.is_array()) {
      if (v.size() != n)
        bad("lora_ranks", "must have " + std::to_string(n) + " entries (one per layer)", v);
      for (std::size_t i = 0; i < n; ++i)
        read_lora(v[i], s.blocks[i], "lora_ranks[" + std::to_string(i) + "]");
    } else if (v.is_object() || as_integer(v)) {
      for (std::size_t i = 0; i < n; ++i) read_lora(v, s.blocks[i], "lora_ranks");
    } else {
      bad("lora_ranks", "must be an integer, an object of ranks or a list of them", v);
    }
  }
}

inline void check_heads(std::int64_t d, std::int64_t h, std::int64_t kv, bool explicit_head_dim,
                        const char* d_key, const char* h_key, const char* kv_key) {
  if (!explicit_head_dim && d % h != 0)
    bad(h_key, std::string("must divide ") + d_key + " = " + std::to_string(d), json(h));
  if (kv_key && h % kv != 0)
    bad(kv_key, std::string("must divide ") + h_key + " = " + std::to_string(h), json(kv));
}

inline hf_model read_llama_like(const json& c, const std::string& type) {
  hf_model m;
  m.model_type = type;
  transformer_spec& s = m.spec;
  s.d_model = required_int(c, "hidden_size", type);
  const std::int64_t layers = required_int(c, "num_hidden_layers", type);
  const std::int64_t heads = required_int(c, "num_attention_heads", type);
  const std::int64_t kv = optional_int(c, "num_key_value_heads", heads);
  const bool has_head_dim = present(c, "head_dim");
  const std::int64_t head_dim = optional_int(c, "head_dim", 0);
  check_heads(s.d_model, heads, kv, has_head_dim, "hidden_size", "num_attention_heads",
              "num_key_value_heads");
  const std::int64_t ffn = required_int(c, "intermediate_size", type);
  s.embeddings.vocab_size = required_int(c, "vocab_size", type);
  s.lm_head = optional_bool(c, "tie_word_embeddings", false) ? lm_head_kind::tied
                                                            : lm_head_kind::untied;
  s.final_norm = norm_kind::rmsnorm;
  m.norm_eps = optional_positive(c, "rms_norm_eps", 0);
  m.initializer_range = optional_positive(c, "initializer_range", 0.02);

  block_spec b;
  b.norm = norm_kind::rmsnorm;
  b.attention.n_heads = heads;
  b.attention.n_kv_heads = kv;
  b.attention.head_dim = head_dim;
  b.ffn.d_ff = ffn;
  b.ffn.gated = true;
  if (type == "llama") {
    const bool ab = optional_bool(c, "attention_bias", false);
    b.attention.qkv_bias = b.attention.out_bias = ab;
    b.ffn.bias = optional_bool(c, "mlp_bias", false);
  } else if (type == "qwen2") {
    b.attention.qkv_bias = true;
    b.attention.out_bias = false;
  } else if (type == "mixtral") {
    b.ffn.n_experts = required_int(c, "num_local_experts", type);
    b.ffn.top_k = required_int(c, "num_experts_per_tok", type);
    if (b.ffn.top_k > b.ffn.n_experts)
      bad("num_experts_per_tok",
          "must be <= num_local_experts = " + std::to_string(b.ffn.n_experts), c["num_experts_per_tok"]);
  }
  b.attention.d_model = b.ffn.d_model = s.d_model;
  s.blocks.assign(std::size_t(layers), b);
  return m;
}

inline hf_model read_gpt2(const json& c) {
  const std::string type = "gpt2";
  hf_model m;
  m.model_type = type;
  transformer_spec& s = m.spec;
  s.d_model = required_int(c, "n_embd", type);
  const std::int64_t layers = required_int(c, "n_layer", type);
  const std::int64_t heads = required_int(c, "n_head", type);
  check_heads(s.d_model, heads, heads, false, "n_embd", "n_head", nullptr);
  const std::int64_t inner = optional_int(c, "n_inner", 4 * s.d_model);
  s.embeddings.vocab_size = required_int(c, "vocab_size", type);
  s.embeddings.positions = required_int(c, "n_positions", type);
  s.final_norm = norm_kind::layernorm;
  s.lm_head = optional_bool(c, "tie_word_embeddings", true) ? lm_head_kind::tied
                                                           : lm_head_kind::untied;
  m.norm_eps = optional_positive(c, "layer_norm_epsilon", 0);
  m.initializer_range = optional_positive(c, "initializer_range", 0.02);
  block_spec b;
  b.norm = norm_kind::layernorm;
  b.attention.n_heads = heads;
  b.attention.qkv_bias = b.attention.out_bias = true;
  b.ffn.d_ff = inner;
  b.ffn.bias = true;
  b.attention.d_model = b.ffn.d_model = s.d_model;
  s.blocks.assign(std::size_t(layers), b);
  return m;
}

inline hf_model read_bert(const json& c) {
  const std::string type = "bert";
  hf_model m;
  m.model_type = type;
  transformer_spec& s = m.spec;
  s.d_model = required_int(c, "hidden_size", type);
  const std::int64_t layers = required_int(c, "num_hidden_layers", type);
  const std::int64_t heads = required_int(c, "num_attention_heads", type);
  check_heads(s.d_model, heads, heads, false, "hidden_size", "num_attention_heads", nullptr);
  const std::int64_t ffn = required_int(c, "intermediate_size", type);
  s.embeddings.vocab_size = required_int(c, "vocab_size", type);
  s.embeddings.positions = required_int(c, "max_position_embeddings", type);
  s.embeddings.token_types = optional_int(c, "type_vocab_size", 2, 0);
  s.embeddings.norm = norm_kind::layernorm;
  s.final_norm = norm_kind::none;
  s.lm_head = lm_head_kind::none;
  s.pooler = optional_bool(c, "add_pooling_layer", true);
  m.norm_eps = optional_positive(c, "layer_norm_eps", 0);
  m.initializer_range = optional_positive(c, "initializer_range", 0.02);
  block_spec b;
  b.norm = norm_kind::layernorm;
  b.attention.n_heads = heads;
  b.attention.qkv_bias = b.attention.out_bias = true;
  b.ffn.d_ff = ffn;
  b.ffn.bias = true;
  b.attention.d_model = b.ffn.d_model = s.d_model;
  s.blocks.assign(std::size_t(layers), b);
  return m;
}

inline hf_model read_opt(const json& c) {
  const std::string type = "opt";
  hf_model m;
  m.model_type = type;
  transformer_spec& s = m.spec;
  s.d_model = required_int(c, "hidden_size", type);
  const std::int64_t layers = required_int(c, "num_hidden_layers", type);
  const std::int64_t heads = required_int(c, "num_attention_heads", type);
  check_heads(s.d_model, heads, heads, false, "hidden_size", "num_attention_heads", nullptr);
  const std::int64_t ffn = required_int(c, "ffn_dim", type);
  s.embeddings.vocab_size = required_int(c, "vocab_size", type);
  s.embeddings.positions = required_int(c, "max_position_embeddings", type) + 2;
  s.embeddings.dim = optional_int(c, "word_embed_proj_dim", s.d_model);
  const bool bias = optional_bool(c, "enable_bias", true);
  const bool before = optional_bool(c, "do_layer_norm_before", true);
  const bool remove_final = optional_bool(c, "_remove_final_layer_norm", false);
  const bool affine = optional_bool(c, "layer_norm_elementwise_affine", true);
  const norm_kind ln = affine ? norm_kind::layernorm : norm_kind::none;
  s.final_norm = before && !remove_final ? ln : norm_kind::none;
  s.lm_head = optional_bool(c, "tie_word_embeddings", true) ? lm_head_kind::tied
                                                           : lm_head_kind::untied;
  m.initializer_range = optional_positive(c, "init_std", optional_positive(c, "initializer_range", 0.02));
  block_spec b;
  b.norm = ln;
  b.attention.n_heads = heads;
  b.attention.qkv_bias = b.attention.out_bias = bias;
  b.ffn.d_ff = ffn;
  b.ffn.bias = bias;
  b.attention.d_model = b.ffn.d_model = s.d_model;
  s.blocks.assign(std::size_t(layers), b);
  return m;
}

} // namespace detail::hf

/// Reads a Hugging Face config (a parsed config.json) into a transformer_spec; the fields read
/// per model_type and the nsc extensions are listed in the file comment. The spec's name is
/// `_name_or_path` if given, else the model_type. Scoring layouts are the spec defaults
/// (per-head Q/K/V, whole output projection): change them on the returned spec.
/// Throws std::invalid_argument "nsc::read_hf_config: ..." naming the field and the bad value.
inline hf_model read_hf_config(const nlohmann::json& config) {
  namespace h = detail::hf;
  if (!config.is_object())
    throw_invalid_argument(h::fn, "the config must be a JSON object", config.dump());
  if (!h::present(config, "model_type"))
    throw_invalid_argument(h::fn, std::string("missing field 'model_type' (supported: ")
                                      .append(hf_supported_model_types)
                                      .append(")"));
  const nlohmann::json& t = config["model_type"];
  if (!t.is_string()) h::bad("model_type", "must be a string", t);
  const std::string type = t.get<std::string>();
  hf_model m;
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2")
    m = h::read_llama_like(config, type);
  else if (type == "gpt2")
    m = h::read_gpt2(config);
  else if (type == "bert")
    m = h::read_bert(config);
  else if (type == "opt")
    m = h::read_opt(config);
  else
    throw_invalid_argument(h::fn,
                           std::string("unknown model_type; supported: ").append(hf_supported_model_types),
                           t.dump());
  h::read_extensions(config, m.spec);
  if (h::present(config, "_name_or_path") && config["_name_or_path"].is_string() &&
      !config["_name_or_path"].get<std::string>().empty())
    m.spec.name = config["_name_or_path"].get<std::string>();
  else
    m.spec.name = type;
  validate(m.spec, h::fn); // a safety net: the field checks above should catch everything
  return m;
}

/// Reads a config.json file (see read_hf_config). The spec's name is `_name_or_path` if given,
/// else the file's stem. Throws std::invalid_argument "nsc::read_hf_config: cannot open file
/// (got <path>)" or "...: <path>: invalid JSON: <parser message>", and read_hf_config's errors.
inline hf_model read_hf_config_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw_invalid_argument(detail::hf::fn, "cannot open file", file.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw_invalid_argument(detail::hf::fn, file.string() + ": invalid JSON: " + e.what());
  }
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
/// reads back: "intermediate_sizes" (every block's d_ff) and "lora_ranks" (one object per
/// layer with its non-zero ranks; the field is removed when no layer has an adapter). Other
/// fields are kept; the number of blocks must equal the config's layer count for it to read back.
inline nlohmann::json with_nsc_extensions(nlohmann::json config, const transformer_spec& spec) {
  nlohmann::json sizes = nlohmann::json::array();
  nlohmann::json ranks = nlohmann::json::array();
  bool any_lora = false;
  for (const block_spec& b : spec.blocks) {
    sizes.push_back(b.ffn.d_ff);
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
    ranks.push_back(std::move(r));
  }
  config["intermediate_sizes"] = std::move(sizes);
  if (any_lora)
    config["lora_ranks"] = std::move(ranks);
  else
    config.erase("lora_ranks");
  return config;
}

} // namespace nsc

#endif // NSC_IO_HF_CONFIG_HPP
