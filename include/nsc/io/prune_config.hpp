/// \file nsc/io/prune_config.hpp
/// Writes a pruned model (nsc/search/prune_space.hpp) as a config.json that loaders serve, and
/// checks that nsc reads it back to exactly the searched model.
///
/// Synopsis
/// --------
///     nlohmann::json cfg = nsc::prune_emit_config(input, space, candidate);   // space.settings.format
///     nsc::prune_verify_config(cfg, space, candidate);  // throws unless it re-scores identically
///     double m = nsc::decilm_ffn_mult(width, hidden);   // an ffn_mult giving width exactly, or 0
///
/// Formats:
///  * decilm: the input's fields, model_type "nemotron-nas", architectures
///    ["DeciLMForCausalLM"], auto_map of DeciLM's remote code, and block_configs with one entry
///    per layer: attention {no_op, replace_with_linear, n_heads_in_group = heads / kv_heads,
///    window_length for sliding-window layers}, ffn {no_op, replace_with_linear, ffn_mult: the
///    shortest decimal m with find_multiple(int(2 m hidden / 3), 256) == width, else
///    intermediate_size; a mixture of experts as Puzzletron's moe {num_local_experts,
///    num_experts_per_tok, expert_intermediate_dim}}. num_key_value_heads, intermediate_size,
///    per_layer_config, intermediate_sizes and expert_counts are removed (block_configs says it
///    all).
///  * per-layer: the input's fields plus transformers' per_layer_config: for every layer that
///    differs from the top-level shape, {num_attention_heads, num_key_value_heads, head_dim
///    (only when the heads change and the config has no head_dim), intermediate_size, skip:
///    ["attention", "mlp"]}, on MoE layers the family's expert count (mixtral num_local_experts,
///    qwen num_experts) and expert width (mixtral intermediate_size, qwen moe_intermediate_size);
///    any per_layer_config of the input is replaced.
///  * nsc: nsc's extensions intermediate_sizes and expert_counts (with_nsc_extensions). A
///    removed Mamba-2 layer (the only sublayer of its layer, Nemotron-H) drops out of the
///    config: its character leaves hybrid_override_pattern and num_hidden_layers counts the
///    layers kept (a config without hybrid_override_pattern cannot drop a layer: refused). The
///    decilm and per-layer formats refuse Mamba-2 layers (make_prune_space).
///
/// prune_verify_config reads the emitted config with read_hf_config and recomputes params
/// (total, non-embedding, active), prefill FLOPs, KV bytes, memory and NSC with prune_totals;
/// a reader error or any difference from the candidate's totals is std::invalid_argument
/// "nsc::prune_verify_config: the <format> config does not express this model: <quantity> reads
/// back as X, the search has Y" (e.g. a DeciLM config of a model whose head_dim is not
/// hidden / heads, or biases DeciLM does not have).
#ifndef NSC_IO_PRUNE_CONFIG_HPP
#define NSC_IO_PRUNE_CONFIG_HPP

#include <nsc/io/hf_config.hpp>
#include <nsc/search/prune_space.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace nsc {

/// DeciLM's FFN width of ffn_mult m at hidden size H: find_multiple(int(2 m H / 3), 256), in
/// double arithmetic as Python computes it (0 when out of range).
inline std::int64_t decilm_ffn_width(double m, std::int64_t hidden) {
  const double x = 2 * m * double(hidden) / 3;
  if (!(std::isfinite(x) && x >= 1 && x < 9.0e15)) return 0;
  const auto n = std::int64_t(x);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

/// The shortest decimal ffn_mult (at most 12 decimals) whose DeciLM width at `hidden` is exactly
/// `width`, or 0 when none exists (then write intermediate_size). Domain: width, hidden >= 1.
inline double decilm_ffn_mult(std::int64_t width, std::int64_t hidden) {
  if (width < 1 || hidden < 1 || width % 256 != 0) return 0;
  const double exact = 3.0 * double(width) / (2.0 * double(hidden));
  for (int digits = 0; digits <= 12; ++digits) {
    const double scale = std::pow(10.0, digits);
    for (double m : {std::round(exact * scale) / scale, std::ceil(exact * scale) / scale,
                     std::floor(exact * scale) / scale}) {
      // Print and re-read, as the JSON file will.
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", digits, m);
      const double v = std::strtod(buf, nullptr);
      if (v > 0 && decilm_ffn_width(v, hidden) == width) return v;
    }
  }
  return decilm_ffn_width(exact, hidden) == width ? exact : 0;
}

/// The model_type of a config for a message ("null" when absent).
inline std::string json_excerpt_or_null(const nlohmann::json& input) {
  return input.contains("model_type") ? io::json_excerpt(input["model_type"]) : "null";
}

/// The config of `c` in the space's format (see the file comment), from the input config
/// `input` the space was derived from. std::invalid_argument "nsc::prune_emit_config: ..." when
/// the candidate does not match the space.
inline nlohmann::json prune_emit_config(const nlohmann::json& input, const search::prune_space& space,
                                        const search::prune_candidate& c) {
  using nlohmann::json;
  constexpr std::string_view fn = "nsc::prune_emit_config";
  if (c.layers.size() != space.layers.size())
    throw_invalid_argument(fn, "the candidate needs one choice per layer", c.layers.size());
  const transformer_spec pruned = search::prune_apply(space, c);
  json cfg = input;
  switch (space.settings.format) {
  case search::prune_format::nsc: {
    // Layers left without any sublayer (a removed Mamba-2 mixer) leave the model.
    transformer_spec kept = pruned;
    kept.blocks.clear();
    std::string pattern;
    bool dropped = false;
    for (std::size_t i = 0; i < pruned.blocks.size(); ++i) {
      const block_spec& b = pruned.blocks[i];
      const bool empty = b.attention.kind == attention_kind::none && b.ffn.kind == ffn_kind::none &&
                         space.layers[i].base.attention.recurrent();
      dropped = dropped || empty;
      if (empty) continue;
      kept.blocks.push_back(b);
      if (input.contains("hybrid_override_pattern") && input["hybrid_override_pattern"].is_string() &&
          i < input["hybrid_override_pattern"].get<std::string>().size())
        pattern.push_back(input["hybrid_override_pattern"].get<std::string>()[i]);
    }
    if (dropped) {
      if (!input.contains("hybrid_override_pattern") || !input["hybrid_override_pattern"].is_string())
        throw_invalid_argument(fn, "a removed Mamba-2 layer needs a config with hybrid_override_pattern (Nemotron-H) "
                                   "to drop it from",
                               json_excerpt_or_null(input));
      cfg["hybrid_override_pattern"] = pattern;
      cfg["num_hidden_layers"] = std::int64_t(pattern.size());
    }
    return with_nsc_extensions(std::move(cfg), kept);
  }
  case search::prune_format::decilm: {
    cfg["model_type"] = "nemotron-nas";
    cfg["architectures"] = json::array({"DeciLMForCausalLM"});
    cfg["auto_map"] = {{"AutoConfig", "configuration_decilm.DeciLMConfig"},
                       {"AutoModelForCausalLM", "modeling_decilm.DeciLMForCausalLM"}};
    for (const char* k :
         {"num_key_value_heads", "intermediate_size", "per_layer_config", "intermediate_sizes", "expert_counts"})
      cfg.erase(k);
    json blocks = json::array();
    for (std::size_t i = 0; i < pruned.blocks.size(); ++i) {
      const block_spec& b = pruned.blocks[i];
      json a = {{"no_op", false}, {"replace_with_linear", false}, {"n_heads_in_group", nullptr},
                {"window_length", nullptr}, {"sparsify", nullptr}};
      if (b.attention.kind == attention_kind::none) {
        a["no_op"] = true;
      } else if (b.attention.kind == attention_kind::linear) {
        a["replace_with_linear"] = true;
      } else {
        a["n_heads_in_group"] = b.attention.n_heads / b.attention.kv_heads();
        if (b.attention.sliding_window > 0) a["window_length"] = b.attention.sliding_window;
      }
      json f = {{"no_op", false}, {"replace_with_linear", false}, {"sparsify", nullptr}};
      if (b.ffn.kind == ffn_kind::none) {
        f["no_op"] = true;
      } else if (b.ffn.kind == ffn_kind::linear) {
        f["replace_with_linear"] = true;
      } else if (b.ffn.n_experts > 0) {
        f["moe"] = {{"num_local_experts", b.ffn.n_experts},
                    {"num_experts_per_tok", b.ffn.top_k},
                    {"expert_intermediate_dim", b.ffn.d_ff}};
      } else if (const double m = decilm_ffn_mult(b.ffn.d_ff, pruned.d_model); m > 0) {
        f["ffn_mult"] = m;
      } else {
        f["intermediate_size"] = b.ffn.d_ff;
      }
      blocks.push_back({{"attention", std::move(a)}, {"ffn", std::move(f)}});
    }
    cfg["block_configs"] = std::move(blocks);
    return cfg;
  }
  case search::prune_format::per_layer: {
    cfg.erase("per_layer_config");
    const transformer_spec top = expand(read_hf_config(cfg).spec); // the shape every override is relative to
    const bool has_head_dim = input.contains("head_dim") && !input["head_dim"].is_null();
    const detail::hf::family* fam =
        input.contains("model_type") && input["model_type"].is_string()
            ? detail::hf::find_family(input["model_type"].get<std::string>())
            : nullptr;
    const detail::hf::moe_layout moe = fam ? fam->moe : detail::hf::moe_layout::none;
    json per = json::object();
    for (std::size_t i = 0; i < pruned.blocks.size(); ++i) {
      const block_spec& b = pruned.blocks[i];
      const block_spec& t = top.blocks.at(i);
      json o = json::object();
      json skip = json::array();
      if (b.attention.kind == attention_kind::none && t.attention.kind != attention_kind::none) skip.push_back("attention");
      if (b.ffn.kind == ffn_kind::none && t.ffn.kind != ffn_kind::none) skip.push_back("mlp");
      if (b.attention.kind == attention_kind::standard) {
        if (b.attention.n_heads != t.attention.n_heads) {
          o["num_attention_heads"] = b.attention.n_heads;
          if (!has_head_dim) o["head_dim"] = b.attention.head_size();
        }
        if (b.attention.kv_heads() != t.attention.kv_heads()) o["num_key_value_heads"] = b.attention.kv_heads();
      }
      if (b.ffn.kind == ffn_kind::standard && b.ffn.n_experts > 0 && moe != detail::hf::moe_layout::none) {
        if (b.ffn.n_experts != t.ffn.n_experts) o[std::string(detail::hf::moe_count_key(moe))] = b.ffn.n_experts;
        if (b.ffn.d_ff != t.ffn.d_ff) o[std::string(detail::hf::moe_width_key(moe))] = b.ffn.d_ff;
      } else if (b.ffn.kind == ffn_kind::standard && b.ffn.d_ff != t.ffn.d_ff) {
        o["intermediate_size"] = b.ffn.d_ff;
      }
      if (!skip.empty()) o["skip"] = std::move(skip);
      if (!o.empty()) per[std::to_string(i)] = std::move(o);
    }
    if (!per.empty()) cfg["per_layer_config"] = std::move(per);
    return cfg;
  }
  }
  return cfg;
}

/// Reads `emitted` back (read_hf_config, the space's scoring layouts) and throws
/// std::invalid_argument "nsc::prune_verify_config: ..." unless its params, FLOPs, KV bytes,
/// memory and NSC equal the candidate's totals exactly (the file comment).
inline void prune_verify_config(const nlohmann::json& emitted, const search::prune_space& space,
                                const search::prune_candidate& c) {
  constexpr std::string_view fn = "nsc::prune_verify_config";
  const std::string what =
      "the " + std::string(search::to_string(space.settings.format)) + " config does not express this model: ";
  hf_model m;
  try {
    m = read_hf_config(emitted);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(fn) + ": " + what + e.what());
  }
  for (block_spec& b : m.spec.blocks) {
    b.attention.qkv = space.settings.qkv;
    b.attention.out = space.settings.out;
  }
  const search::prune_totals_t t = search::prune_totals(m.spec, space.settings);
  for (std::size_t k = 0; k < search::prune_cost_count; ++k)
    if (t.cost[k] != c.totals.cost[k])
      throw_invalid_argument(fn,
                             what + std::string(search::to_string(search::prune_cost(k))) + " reads back as " +
                                 std::to_string(t.cost[k]) + ", the search has",
                             c.totals.cost[k]);
  if (t.nsc != c.totals.nsc) throw_invalid_argument(fn, what + "NSC reads back as " + std::to_string(t.nsc) + ", the search has", c.totals.nsc);
}

} // namespace nsc

#endif // NSC_IO_PRUNE_CONFIG_HPP
