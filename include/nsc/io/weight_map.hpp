/// \file nsc/io/weight_map.hpp
/// Checkpoint tensor names -> the matrices and scored blocks of nsc's scoring (optional part:
/// needs nlohmann-json for the config; no Eigen).
///
/// Synopsis
///
///     weight_geometry  read_weight_geometry(config_json)   heads, KV heads, head_dim, MLA dims
///     const family_rules* find_family(model_type)           the name table of a model_type
///     std::optional<mapped_matrix> map_tensor(name, shape, rules, geometry)
///
/// A mapped_matrix is one 2-D weight of the checkpoint in PyTorch orientation (out, in) with
/// the blocks the scoring uses: Q split into n_heads row blocks of head_dim, K and V into
/// n_kv_heads blocks (per layer for heterogeneous models), o_proj and the FFN whole, experts
/// one matrix each. Fused layouts are split into those blocks:
///  * phi3 qkv_proj (rows [Q | K | V]) and gate_up_proj (rows [gate | up]);
///  * GPT-2 c_attn, stored (in, out) by its Conv1D (transposed = true), columns [Q | K | V];
///    c_proj / c_fc likewise transposed;
///  * GPT-NeoX query_key_value: rows interleaved per head [q_h | k_h | v_h] (head_dim each);
///  * DeepSeek-V2/V3 MLA: q_b_proj per head (qk_nope + qk_rope rows), kv_b_proj per head into
///    its K part (qk_nope rows) and V part (v_head_dim rows); q_a_proj, kv_a_proj_with_mqa whole.
///
/// The table (`family_table()`) is keyed by model_type: each family lists name patterns
/// relative to the layer prefix ("<...>.layers.<L>.", "<...>.h.<L>.", "<...>.layer.<L>."),
/// where {E} matches an expert index, with the kind, layout and orientation; adding a family is
/// one entry. A tensor that no rule matches (embeddings, norms, LM head, unknown families) is
/// reported whole under its own name when it is 2-D (kind "other").
///
/// Errors: std::invalid_argument "nsc::map_tensor: tensor '<name>': <rule>" when a split
/// layout does not fit the tensor's shape (e.g. a q_proj of 4096 rows with num_attention_heads
/// 32 x head_dim 100), naming the config fields.
#ifndef NSC_IO_WEIGHT_MAP_HPP
#define NSC_IO_WEIGHT_MAP_HPP

#include <nsc/error_handling.hpp>
#include <nsc/io/input_file.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::io {

/// How a matrix is split into scored blocks.
enum class block_layout {
  whole,           ///< one block
  per_head,        ///< n_heads row blocks of head_dim (Q)
  per_kv_head,     ///< n_kv_heads row blocks of head_dim (K, V)
  fused_qkv,       ///< rows [Q (n_heads hd) | K (n_kv hd) | V (n_kv hd)], each per head
  interleaved_qkv, ///< rows per head [q_h | k_h | v_h] (GPT-NeoX, n_kv = n_heads)
  fused_gate_up,   ///< rows [gate (d_ff) | up (d_ff)], each whole
  mla_q_b,         ///< rows per head of qk_nope + qk_rope (DeepSeek q_b_proj / q_proj)
  mla_kv_b         ///< rows per head [k_nope (qk_nope) | v (v_head_dim)] (DeepSeek kv_b_proj)
};

/// One naming rule: a pattern relative to the layer prefix, e.g. "self_attn.q_proj.weight" or
/// "mlp.experts.{E}.down_proj.weight".
struct name_rule {
  std::string_view pattern;
  std::string_view kind;   ///< nsc's name of the matrix ("q_proj", "gate_proj", "router", ...)
  block_layout layout = block_layout::whole;
  bool transposed = false; ///< stored (in, out) (GPT-2's Conv1D)
  std::string_view part = "attention"; ///< attention, ffn, router
};

/// The rules of one family, and the model_type values that use them.
struct family_rules {
  std::string_view name;
  std::vector<std::string_view> model_types;
  std::vector<name_rule> rules;
};

/// Every family nsc maps (one entry per naming scheme).
inline const std::vector<family_rules>& family_table() {
  using L = block_layout;
  static const std::vector<name_rule> llama_attn = {
      {"self_attn.q_proj.weight", "q_proj", L::per_head},
      {"self_attn.k_proj.weight", "k_proj", L::per_kv_head},
      {"self_attn.v_proj.weight", "v_proj", L::per_kv_head},
      {"self_attn.o_proj.weight", "o_proj", L::whole}};
  static const std::vector<name_rule> llama_mlp = {
      {"mlp.gate_proj.weight", "gate_proj", L::whole, false, "ffn"},
      {"mlp.up_proj.weight", "up_proj", L::whole, false, "ffn"},
      {"mlp.down_proj.weight", "down_proj", L::whole, false, "ffn"}};
  static const std::vector<name_rule> moe_experts = {
      {"mlp.experts.{E}.gate_proj.weight", "gate_proj", L::whole, false, "ffn"},
      {"mlp.experts.{E}.up_proj.weight", "up_proj", L::whole, false, "ffn"},
      {"mlp.experts.{E}.down_proj.weight", "down_proj", L::whole, false, "ffn"},
      {"mlp.gate.weight", "router", L::whole, false, "router"}};
  static const std::vector<name_rule> qwen_shared = {
      {"mlp.shared_expert.gate_proj.weight", "shared_expert.gate_proj", L::whole, false, "ffn"},
      {"mlp.shared_expert.up_proj.weight", "shared_expert.up_proj", L::whole, false, "ffn"},
      {"mlp.shared_expert.down_proj.weight", "shared_expert.down_proj", L::whole, false, "ffn"},
      {"mlp.shared_expert_gate.weight", "shared_expert_gate", L::whole, false, "router"}};
  static const std::vector<name_rule> deepseek_shared = {
      {"mlp.shared_experts.gate_proj.weight", "shared_expert.gate_proj", L::whole, false, "ffn"},
      {"mlp.shared_experts.up_proj.weight", "shared_expert.up_proj", L::whole, false, "ffn"},
      {"mlp.shared_experts.down_proj.weight", "shared_expert.down_proj", L::whole, false, "ffn"}};
  static const std::vector<name_rule> mixtral_moe = {
      {"block_sparse_moe.experts.{E}.w1.weight", "gate_proj", L::whole, false, "ffn"},
      {"block_sparse_moe.experts.{E}.w3.weight", "up_proj", L::whole, false, "ffn"},
      {"block_sparse_moe.experts.{E}.w2.weight", "down_proj", L::whole, false, "ffn"},
      {"block_sparse_moe.gate.weight", "router", L::whole, false, "router"}};
  static const std::vector<name_rule> deepseek_attn = {
      {"self_attn.q_proj.weight", "q_proj", L::mla_q_b},
      {"self_attn.q_a_proj.weight", "q_a_proj", L::whole},
      {"self_attn.q_b_proj.weight", "q_b_proj", L::mla_q_b},
      {"self_attn.kv_a_proj_with_mqa.weight", "kv_a_proj_with_mqa", L::whole},
      {"self_attn.kv_b_proj.weight", "kv_b_proj", L::mla_kv_b},
      {"self_attn.o_proj.weight", "o_proj", L::whole}};
  auto cat = [](std::initializer_list<const std::vector<name_rule>*> parts) {
    std::vector<name_rule> r;
    for (const auto* p : parts) r.insert(r.end(), p->begin(), p->end());
    return r;
  };
  static const std::vector<family_rules> table = {
      {"llama-like",
       {"llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "gemma3_text",
        "olmo2", "deci", "nemotron-nas"},
       cat({&llama_attn, &llama_mlp})},
      {"mixtral",
       {"mixtral"},
       cat({&llama_attn, &mixtral_moe})},
      {"qwen-moe", {"qwen2_moe", "qwen3_moe"}, cat({&llama_attn, &moe_experts, &qwen_shared, &llama_mlp})},
      {"deepseek",
       {"deepseek_v2", "deepseek_v3"},
       cat({&deepseek_attn,
            &moe_experts, &deepseek_shared, &llama_mlp})},
      {"phi3",
       {"phi3"},
       {{"self_attn.qkv_proj.weight", "qkv_proj", L::fused_qkv},
        {"self_attn.o_proj.weight", "o_proj", L::whole},
        {"mlp.gate_up_proj.weight", "gate_up_proj", L::fused_gate_up, false, "ffn"},
        {"mlp.down_proj.weight", "down_proj", L::whole, false, "ffn"}}},
      {"gpt2",
       {"gpt2"},
       {{"attn.c_attn.weight", "qkv_proj", L::fused_qkv, true},
        {"attn.c_proj.weight", "o_proj", L::whole, true},
        {"mlp.c_fc.weight", "up_proj", L::whole, true, "ffn"},
        {"mlp.c_proj.weight", "down_proj", L::whole, true, "ffn"}}},
      {"gpt_neox",
       {"gpt_neox"},
       {{"attention.query_key_value.weight", "qkv_proj", L::interleaved_qkv},
        {"attention.dense.weight", "o_proj", L::whole},
        {"mlp.dense_h_to_4h.weight", "up_proj", L::whole, false, "ffn"},
        {"mlp.dense_4h_to_h.weight", "down_proj", L::whole, false, "ffn"}}},
      {"bert",
       {"bert"},
       {{"attention.self.query.weight", "q_proj", L::per_head},
        {"attention.self.key.weight", "k_proj", L::per_kv_head},
        {"attention.self.value.weight", "v_proj", L::per_kv_head},
        {"attention.output.dense.weight", "o_proj", L::whole},
        {"intermediate.dense.weight", "up_proj", L::whole, false, "ffn"},
        {"output.dense.weight", "down_proj", L::whole, false, "ffn"}}},
      {"opt",
       {"opt"},
       {{"self_attn.q_proj.weight", "q_proj", L::per_head},
        {"self_attn.k_proj.weight", "k_proj", L::per_kv_head},
        {"self_attn.v_proj.weight", "v_proj", L::per_kv_head},
        {"self_attn.out_proj.weight", "o_proj", L::whole},
        {"fc1.weight", "up_proj", L::whole, false, "ffn"},
        {"fc2.weight", "down_proj", L::whole, false, "ffn"}}},
  };
  return table;
}

/// The family of a model_type, or nullptr when nsc has no name table for it.
inline const family_rules* find_family(std::string_view model_type) {
  for (const family_rules& f : family_table())
    for (std::string_view t : f.model_types)
      if (t == model_type) return &f;
  return nullptr;
}

/// Head geometry from a config: what the split layouts need. 0 means unknown (then a split
/// layout is refused for that tensor with a message naming the missing field).
struct weight_geometry {
  std::string model_type;
  std::int64_t hidden = 0;     ///< hidden_size / n_embd / d_model
  std::int64_t n_heads = 0;    ///< num_attention_heads / n_head / num_heads
  std::int64_t n_kv_heads = 0; ///< num_key_value_heads (absent or null: n_heads)
  std::int64_t head_dim = 0;   ///< head_dim (absent or null: hidden / n_heads)
  std::int64_t qk_nope = 0, qk_rope = 0, v_head_dim = 0; ///< DeepSeek MLA
  std::vector<std::int64_t> layer_kv_heads; ///< per layer (nemotron-nas block_configs); 0: default
  std::vector<std::int64_t> layer_heads;    ///< per layer (transformers' per_layer_config); 0: default
  /// Query heads of layer `l` (per-layer override, else n_heads).
  std::int64_t heads(std::int64_t l) const {
    if (l >= 0 && std::size_t(l) < layer_heads.size() && layer_heads[std::size_t(l)] > 0) return layer_heads[std::size_t(l)];
    return n_heads;
  }
  double initializer_range = 0.02;          ///< initializer_range / init_std
  /// KV heads of layer `l` (per-layer override, else n_kv_heads).
  std::int64_t kv_heads(std::int64_t l) const {
    if (l >= 0 && std::size_t(l) < layer_kv_heads.size() && layer_kv_heads[std::size_t(l)] > 0)
      return layer_kv_heads[std::size_t(l)];
    return n_kv_heads;
  }
};

namespace detail::wm {

inline constexpr std::string_view fn = "nsc::read_weight_geometry";

inline std::int64_t field(const nlohmann::json& c, std::initializer_list<const char*> keys,
                          std::int64_t fallback) {
  for (const char* k : keys) {
    const auto it = c.find(k);
    if (it == c.end() || it->is_null()) continue;
    const nlohmann::json& v = *it;
    std::optional<std::int64_t> i;
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= (std::uint64_t(1) << 40))
      i = std::int64_t(v.get<std::uint64_t>());
    else if (v.is_number_integer())
      i = v.get<std::int64_t>();
    if (!i || *i < 1 || *i > (std::int64_t(1) << 40))
      throw_invalid_argument(fn, std::string("field '") + k + "' must be a positive integer",
                             json_excerpt(v));
    return *i;
  }
  return fallback;
}

} // namespace detail::wm

/// Reads the head geometry from a parsed config.json (any model_type; unknown fields are
/// ignored, missing ones left 0). Throws std::invalid_argument naming a field that is present
/// but not a positive integer.
inline weight_geometry read_weight_geometry(const nlohmann::json& c) {
  namespace wm = detail::wm;
  weight_geometry g;
  if (!c.is_object()) throw_invalid_argument(wm::fn, "the config must be a JSON object", json_excerpt(c));
  if (c.contains("model_type") && c["model_type"].is_string())
    g.model_type = c["model_type"].get<std::string>();
  g.hidden = wm::field(c, {"hidden_size", "n_embd", "d_model"}, 0);
  g.n_heads = wm::field(c, {"num_attention_heads", "n_head", "num_heads"}, 0);
  g.n_kv_heads = wm::field(c, {"num_key_value_heads"}, g.n_heads);
  g.head_dim = wm::field(c, {"head_dim"}, 0);
  if (g.head_dim == 0 && g.n_heads > 0 && g.hidden % g.n_heads == 0) g.head_dim = g.hidden / g.n_heads;
  g.qk_nope = wm::field(c, {"qk_nope_head_dim"}, 0);
  g.qk_rope = wm::field(c, {"qk_rope_head_dim"}, 0);
  g.v_head_dim = wm::field(c, {"v_head_dim"}, 0);
  for (const char* k : {"initializer_range", "init_std"}) {
    const auto it = c.find(k);
    if (it != c.end() && it->is_number() && std::isfinite(it->get<double>()) && it->get<double>() > 0) {
      g.initializer_range = it->get<double>();
      break;
    }
  }
  // transformers' per_layer_config {"<layer>": {num_attention_heads, num_key_value_heads}}
  // (what nsc prune --emit-format per-layer writes).
  const auto plc = c.find("per_layer_config");
  if (plc != c.end() && plc->is_object())
    for (const auto& [key, o] : plc->items()) {
      std::int64_t l = -1;
      if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos || !o.is_object())
        continue; // nsc::read_hf_config reports malformed entries
      l = std::stoll(key);
      if (l >= std::min<std::int64_t>(wm::field(c, {"num_hidden_layers", "n_layer"}, 0), 1 << 20))
        continue; // a layer the model does not have (nsc::read_hf_config refuses it)
      const std::int64_t h = wm::field(o, {"num_attention_heads"}, 0), k = wm::field(o, {"num_key_value_heads"}, 0);
      if (h > 0) {
        if (g.layer_heads.size() <= std::size_t(l)) g.layer_heads.resize(std::size_t(l) + 1, 0);
        g.layer_heads[std::size_t(l)] = h;
      }
      if (k > 0) {
        if (g.layer_kv_heads.size() <= std::size_t(l)) g.layer_kv_heads.resize(std::size_t(l) + 1, 0);
        g.layer_kv_heads[std::size_t(l)] = k;
      }
    }
  // Nemotron-NAS / DeciLM: per-layer attention with n_heads_in_group (KV heads = heads / it).
  const auto bc = c.find("block_configs");
  if (bc != c.end() && bc->is_array() && g.n_heads > 0) {
    for (const auto& b : *bc) {
      std::int64_t kv = 0;
      if (b.is_object() && b.contains("attention") && b["attention"].is_object()) {
        const std::int64_t group = wm::field(b["attention"], {"n_heads_in_group"}, 0);
        if (group > 0 && g.n_heads % group == 0) kv = g.n_heads / group;
      }
      g.layer_kv_heads.push_back(kv);
    }
  }
  return g;
}

/// One scored block of a matrix, in the matrix's (out, in) orientation.
struct matrix_block {
  std::string kind;           ///< q_proj, k_proj, v_proj, gate_proj, ... (fused: its part)
  std::int64_t head = -1;     ///< head index (per-head blocks), else -1
  std::int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
};

/// A checkpoint tensor mapped to a matrix and its scored blocks.
struct mapped_matrix {
  std::string tensor;      ///< the tensor's name in the checkpoint
  std::int64_t layer = -1; ///< layer index from the name, -1 if none
  std::int64_t expert = -1; ///< expert index, -1 if none
  std::string kind;        ///< nsc's name ("q_proj", "qkv_proj", ...) or "other"
  std::string part = "other"; ///< attention, ffn, router, other
  bool transposed = false; ///< stored (in, out)
  std::int64_t out = 0, in = 0; ///< PyTorch orientation
  std::vector<matrix_block> blocks;
};

namespace detail::wm {

/// Matches `s` against `pattern` where {E} matches one or more digits (stored in `expert`).
inline bool match(std::string_view pattern, std::string_view s, std::int64_t& expert) {
  const std::size_t e = pattern.find("{E}");
  if (e == std::string_view::npos) return pattern == s;
  const std::string_view head = pattern.substr(0, e), tail = pattern.substr(e + 3);
  if (s.size() < head.size() + tail.size() + 1 || s.substr(0, head.size()) != head ||
      s.substr(s.size() - tail.size()) != tail)
    return false;
  const std::string_view digits = s.substr(head.size(), s.size() - head.size() - tail.size());
  if (digits.empty() || digits.size() > 9) return false;
  std::int64_t v = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return false;
    v = v * 10 + (ch - '0');
  }
  expert = v;
  return true;
}

/// Finds "<container>.<digits>." in a tensor name (container: layers, h, layer, blocks);
/// returns the layer index and the local name after it.
inline std::optional<std::pair<std::int64_t, std::string_view>> split_layer(std::string_view name) {
  for (std::string_view c : {"layers.", "h.", "layer.", "blocks."}) {
    std::size_t pos = 0;
    while ((pos = name.find(c, pos)) != std::string_view::npos) {
      if (pos == 0 || name[pos - 1] == '.') {
        std::size_t i = pos + c.size(), j = i;
        while (j < name.size() && j - i < 9 && name[j] >= '0' && name[j] <= '9') ++j;
        if (j > i && j < name.size() && name[j] == '.') {
          std::int64_t v = 0;
          for (std::size_t k = i; k < j; ++k) v = v * 10 + (name[k] - '0');
          return std::make_pair(v, name.substr(j + 1));
        }
      }
      pos += c.size();
    }
  }
  return std::nullopt;
}

[[noreturn]] inline void misfit(const std::string& tensor, const std::string& rule) {
  throw_invalid_argument("nsc::map_tensor", "tensor '" + excerpt(tensor, 100) + "': " + rule);
}

inline void need(const std::string& tensor, std::int64_t v, const char* what) {
  if (v <= 0)
    misfit(tensor, std::string("splitting it needs ") + what +
                       " from the config (pass --config, or the field is missing)");
}

inline void rows_blocks(mapped_matrix& m, const std::string& kind, std::int64_t row0,
                        std::int64_t count, std::int64_t size, std::int64_t stride) {
  for (std::int64_t h = 0; h < count; ++h)
    m.blocks.push_back({kind, h, row0 + h * stride, size, 0, m.in});
}

} // namespace detail::wm

/// Maps one tensor: `rules` is the family (nullptr: no family, every 2-D tensor whole), `g` the
/// geometry (read_weight_geometry). Returns nullopt for tensors that are not 2-D (norms,
/// biases, 3-D fused expert stacks are not mapped) or have a zero dimension. Throws
/// std::invalid_argument when a split layout does not fit the shape (see the file comment).
inline std::optional<mapped_matrix> map_tensor(const std::string& name,
                                               const std::vector<std::int64_t>& shape,
                                               const family_rules* rules,
                                               const weight_geometry& g) {
  namespace wm = detail::wm;
  using L = block_layout;
  if (shape.size() != 2 || shape[0] == 0 || shape[1] == 0) return std::nullopt;
  mapped_matrix m;
  m.tensor = name;
  m.kind = "other";
  const name_rule* rule = nullptr;
  const auto lay = wm::split_layer(name);
  if (lay) m.layer = lay->first;
  if (rules && lay) {
    for (const name_rule& r : rules->rules) {
      std::int64_t e = -1;
      if (wm::match(r.pattern, lay->second, e)) {
        rule = &r;
        m.expert = e;
        break;
      }
    }
  }
  m.transposed = rule && rule->transposed;
  m.out = m.transposed ? shape[1] : shape[0];
  m.in = m.transposed ? shape[0] : shape[1];
  if (!rule) {
    m.blocks.push_back({"other", -1, 0, m.out, 0, m.in});
    return m;
  }
  m.kind = std::string(rule->kind);
  m.part = std::string(rule->part);
  const std::int64_t H = g.heads(m.layer), hd = g.head_dim, KV = g.kv_heads(m.layer);
  auto fits = [&](std::int64_t want, const std::string& how) {
    if (m.out != want)
      wm::misfit(name, "has " + std::to_string(m.out) + " output rows but " + how + " = " +
                           std::to_string(want) + " (config and checkpoint disagree)");
  };
  switch (rule->layout) {
  case L::whole: m.blocks.push_back({m.kind, -1, 0, m.out, 0, m.in}); break;
  case L::per_head:
    wm::need(name, H, "num_attention_heads");
    wm::need(name, hd, "head_dim");
    fits(H * hd, "num_attention_heads " + std::to_string(H) + " x head_dim " + std::to_string(hd));
    wm::rows_blocks(m, m.kind, 0, H, hd, hd);
    break;
  case L::per_kv_head:
    wm::need(name, KV, "num_key_value_heads");
    wm::need(name, hd, "head_dim");
    fits(KV * hd, "num_key_value_heads " + std::to_string(KV) + " x head_dim " + std::to_string(hd));
    wm::rows_blocks(m, m.kind, 0, KV, hd, hd);
    break;
  case L::fused_qkv:
    wm::need(name, H, "num_attention_heads");
    wm::need(name, hd, "head_dim");
    fits((H + 2 * KV) * hd, "(num_attention_heads " + std::to_string(H) +
                                " + 2 num_key_value_heads " + std::to_string(KV) + ") x head_dim " +
                                std::to_string(hd));
    wm::rows_blocks(m, "q_proj", 0, H, hd, hd);
    wm::rows_blocks(m, "k_proj", H * hd, KV, hd, hd);
    wm::rows_blocks(m, "v_proj", (H + KV) * hd, KV, hd, hd);
    break;
  case L::interleaved_qkv:
    wm::need(name, H, "num_attention_heads");
    wm::need(name, hd, "head_dim");
    fits(3 * H * hd, "3 num_attention_heads " + std::to_string(H) + " x head_dim " + std::to_string(hd));
    for (std::int64_t h = 0; h < H; ++h) {
      m.blocks.push_back({"q_proj", h, 3 * h * hd, hd, 0, m.in});
      m.blocks.push_back({"k_proj", h, 3 * h * hd + hd, hd, 0, m.in});
      m.blocks.push_back({"v_proj", h, 3 * h * hd + 2 * hd, hd, 0, m.in});
    }
    break;
  case L::fused_gate_up:
    if (m.out % 2 != 0) wm::misfit(name, "a fused gate_up_proj needs an even number of rows (got " + std::to_string(m.out) + ")");
    m.blocks.push_back({"gate_proj", -1, 0, m.out / 2, 0, m.in});
    m.blocks.push_back({"up_proj", -1, m.out / 2, m.out / 2, 0, m.in});
    break;
  case L::mla_q_b: {
    wm::need(name, H, "num_attention_heads");
    wm::need(name, g.qk_nope + g.qk_rope, "qk_nope_head_dim + qk_rope_head_dim");
    const std::int64_t qd = g.qk_nope + g.qk_rope;
    fits(H * qd, "num_attention_heads " + std::to_string(H) + " x (qk_nope_head_dim + qk_rope_head_dim) " + std::to_string(qd));
    wm::rows_blocks(m, "q_proj", 0, H, qd, qd);
    break;
  }
  case L::mla_kv_b: {
    wm::need(name, H, "num_attention_heads");
    wm::need(name, g.qk_nope, "qk_nope_head_dim");
    wm::need(name, g.v_head_dim, "v_head_dim");
    const std::int64_t per = g.qk_nope + g.v_head_dim;
    fits(H * per, "num_attention_heads " + std::to_string(H) + " x (qk_nope_head_dim + v_head_dim) " + std::to_string(per));
    for (std::int64_t h = 0; h < H; ++h) {
      m.blocks.push_back({"k_proj", h, h * per, g.qk_nope, 0, m.in});
      m.blocks.push_back({"v_proj", h, h * per + g.qk_nope, g.v_head_dim, 0, m.in});
    }
    break;
  }
  }
  return m;
}

} // namespace nsc::io

#endif // NSC_IO_WEIGHT_MAP_HPP
