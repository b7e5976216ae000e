/// \file nsc/io/prune_config.hpp
/// Writes a pruned model (nsc/search/prune_space.hpp) as a config.json that loaders serve, and
/// checks that nsc reads it back to exactly the searched model.
///
/// Synopsis
/// --------
///     nlohmann::json cfg = nsc::prune_emit_config(input, space, candidate);   // space.settings.format
///     nsc::prune_verify_config(cfg, space, candidate);  // throws unless it re-scores identically
///     double m = nsc::decilm_ffn_mult(width, hidden);   // an ffn_mult giving width exactly, or 0
///     nsc::prune_engine_refusal(spec, prune_engine::llama_cpp); // "" or why it cannot serve spec
///     nsc::prune_emit_uniform_config(input, space, c);  // a uniform answer, own architecture
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
///    all). Structure DeciLM has no field for is refused by name before anything is written
///    (attention sinks, chunked attention, NoPE layers, MLA and DSA: "nsc::prune_emit_config: the decilm
///    format cannot express attention sinks (gpt_oss); use --emit-format per-layer or nsc").
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
///  * decilm for an engine (space.settings.engine, search::prune_engine_settings): the classic
///    keys only, ffn_mult of at most 6 decimals (never intermediate_size or moe), "ffn_mult":
///    null on removed FFNs (llama.cpp's converter reads the key); prune_engine_refusal says why
///    an engine cannot serve a model or a pruned answer.
///  * own architecture (prune_emit_uniform_config, for search::search_prune_uniform): the
///    input with new global sizes (heads, KV heads, head_dim, FFN / expert widths, expert
///    count, num_hidden_layers), which every engine loads with no remote code.
///
/// A multimodal wrapper (the reader took its text_config: llama4, gemma3, ...) is emitted with
/// the format applied to its text_config (per-layer, nsc); decilm refuses it by name. A family
/// whose modeling code does not read per_layer_config (llama4_text) refuses per-layer by name.
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
#include <optional>
#include <string>

namespace nsc {

/// The model_type of a config for a message ("null" when absent).
inline std::string json_excerpt_or_null(const nlohmann::json& input) {
  return input.contains("model_type") ? io::json_excerpt(input["model_type"]) : "null";
}

/// Why a parallel block with one shared norm (search::prune_shared_norms) has no DeciLM form.
inline constexpr const char* decilm_shared_norm_text =
    "one norm shared by a parallel attention and MLP (cohere, cohere2, falcon parallel_attn), which DeciLM's "
    "sequential blocks (attention, then the FFN, each after its own norm) cannot express";

/// The attention structure DeciLM's block_configs have no field for (what it is, for a message),
/// or nullptr: the one list behind prune_emit_config's decilm refusal and prune_engine_refusal.
inline const char* decilm_missing_attention(const attention_spec& a) {
  return a.sinks                        ? "attention sinks (gpt_oss)"
         : a.chunk > 0                  ? "chunked attention (llama4 attention_chunk_size)"
         : a.nope                       ? "NoPE layers (no_rope_layers: llama4, smollm3)"
         : a.index_n_heads > 0          ? "DSA sparse attention and its indexer (deepseek_v32)"
         : a.kind == attention_kind::latent ? "multi-head latent attention (deepseek)"
                                        : nullptr;
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
  if (input.is_object() && input.contains("text_config") && input["text_config"].is_object() &&
      read_hf_config(input).text_config) { // a multimodal wrapper: the text decoder's config is the one pruned
    if (space.settings.format == search::prune_format::decilm)
      throw_invalid_argument(fn,
                             "the decilm format cannot express a multimodal config (the text decoder in text_config); "
                             "use --emit-format per-layer or nsc (written into text_config)",
                             std::string(input.value("model_type", "")));
    json text = input["text_config"];
    const bool typed = text.contains("model_type");
    if (!typed) text["model_type"] = read_hf_config(input).model_type;
    json emitted = prune_emit_config(text, space, c);
    if (!typed) emitted.erase("model_type");
    json cfg = input;
    cfg["text_config"] = std::move(emitted);
    return cfg;
  }
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
    for (std::size_t i = 0; i < space.layers.size(); ++i) // a parallel block's one norm (the model's layer)
      if (space.layers[i].shared_norms > 0) {
        const detail::hf::family* fam = input.contains("model_type") && input["model_type"].is_string()
                                            ? detail::hf::find_family(input["model_type"].get<std::string>())
                                            : nullptr;
        throw_invalid_argument(fn,
                               "layer " + std::to_string(i) + ": the decilm format cannot express " +
                                   decilm_shared_norm_text + "; use --emit-format " +
                                   (fam && fam->per_layer_config ? "per-layer or nsc" : "nsc") + " (or --uniform)",
                               std::string(input.value("model_type", "")));
      }
    for (const block_spec& b : pruned.blocks) { // structure DeciLM's block_configs have no field for
      if (const char* what = decilm_missing_attention(b.attention))
        throw_invalid_argument(fn,
                               std::string("the decilm format cannot express ") + what +
                                   "; use --emit-format per-layer or nsc (they keep the model_type and its fields)",
                               std::string(input.value("model_type", "")));
    }
    cfg["model_type"] = "nemotron-nas";
    cfg["architectures"] = json::array({"DeciLMForCausalLM"});
    // The source family's tying, stated: its default (smollm3, gemma: tied) is not DeciLM's (untied).
    cfg["tie_word_embeddings"] = pruned.lm_head == lm_head_kind::tied;
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
      const bool engine = space.settings.engine != search::prune_engine::any;
      if (b.ffn.kind == ffn_kind::none) {
        f["no_op"] = true;
        f["ffn_mult"] = nullptr; // llama.cpp's converter reads the key (null: no FFN)
      } else if (b.ffn.kind == ffn_kind::linear) {
        f["replace_with_linear"] = true;
        f["ffn_mult"] = nullptr;
      } else if (engine) { // the engines read ffn_mult only, rounded to 6 decimals
        const double m = decilm_ffn_mult(b.ffn.d_ff, pruned.d_model, 6);
        if (b.ffn.n_experts > 0 || m == 0)
          throw_invalid_argument(fn,
                                 "layer " + std::to_string(i) + "'s FFN cannot be written for " +
                                     std::string(search::to_string(space.settings.engine)) +
                                     " (a dense width that a 6-decimal ffn_mult gives exactly is needed)",
                                 b.ffn.d_ff);
        f["ffn_mult"] = m;
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
    if (fam && !fam->per_layer_config)
      throw_invalid_argument(fn,
                             "the per-layer format writes transformers' per_layer_config, which model_type " +
                                 std::string(fam->model_type) + " does not read; use --emit-format nsc",
                             std::string(fam->model_type));
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

/// Why `e` cannot serve `spec` written as DeciLM block_configs, or "" when it can (the
/// engines' nemotron-nas code, ../shared/docs/deployment.md "Engines"). Checked for every
/// DeciLM engine: RMSNorm, rotary positions, standard attention without q/k norms, biases or
/// sliding windows, head_dim = hidden / heads, a gated MLP without biases and without experts;
/// vLLM and SGLang: no replace_with_linear. With `layers`, also the per-layer shapes that
/// prune_engine_settings keeps the space to: FFN widths from a 6-decimal ffn_mult, llama.cpp: no
/// attention without its FFN and attention in layer 0; mlx-lm: attention in layer 0.
/// any: the limits of the DeciLM format itself (what prune_emit_config can write).
inline std::string prune_engine_refusal(const transformer_spec& spec_in, search::prune_engine e, bool layers = true) {
  using search::prune_engine;
  const transformer_spec spec = expand(spec_in);
  const bool engine = e != prune_engine::any;
  if (spec.embeddings.positions > 0) return "learned position embeddings (DeciLM is rotary)";
  for (std::size_t i = 0; i < spec.blocks.size(); ++i) {
    const block_spec& b = spec.blocks[i];
    const attention_spec& a = b.attention;
    const ffn_spec& f = b.ffn;
    const std::string at = "layer " + std::to_string(i) + ": ";
    if (search::prune_shared_norms(b) > 0) return at + std::string(decilm_shared_norm_text);
    if (b.norm != norm_kind::rmsnorm) return at + "LayerNorm blocks (DeciLM's are RMSNorm)";
    if (a.kind == attention_kind::latent)
      return at + "multi-head latent attention (MLA), which DeciLM's layers do not have (they are Llama attention)";
    if (a.kind == attention_kind::standard) {
      if (a.qk_norm != qk_norm_kind::none)
        return at + "q_norm / k_norm (RMSNorm of queries and keys), which DeciLM's attention does not have";
      if (const char* what = decilm_missing_attention(a)) return at + what + ", which DeciLM block_configs have no field for";
      if (a.qkv_bias || a.out_bias) return at + "attention biases, which DeciLM block_configs cannot state";
      const std::int64_t d = a.d_model != 0 ? a.d_model : spec.d_model;
      if (a.head_size() * a.n_heads != d)
        return at + "head_dim " + std::to_string(a.head_size()) + " x " + std::to_string(a.n_heads) +
               " heads != hidden_size " + std::to_string(d) + " (DeciLM's head_dim is hidden / heads)";
      if (engine && a.sliding_window > 0)
        return at + "sliding-window attention (the engines' DeciLM code builds full attention)";
    }
    if (a.kind == attention_kind::linear && (e == prune_engine::vllm || e == prune_engine::sglang))
      return at + "replace_with_linear attention, which " + std::string(search::to_string(e)) + "'s nemotron_nas.py does not build";
    if (f.kind == ffn_kind::linear && (e == prune_engine::vllm || e == prune_engine::sglang))
      return at + "replace_with_linear FFN, which " + std::string(search::to_string(e)) + "'s nemotron_nas.py does not build";
    if (f.kind == ffn_kind::standard) {
      if (!f.gated || f.bias) return at + "a non-gated or biased MLP (DeciLM's is SwiGLU without biases)";
      if (f.shared_d_ff > 0) return at + "shared experts, which DeciLM block_configs cannot state";
      if (f.router_bias) return at + "a router bias, which DeciLM block_configs cannot state";
      if (engine && f.n_experts > 0)
        return at + "a mixture of experts (" + std::to_string(f.n_experts) +
               " experts): the engines' nemotron-nas code builds one dense MLP per layer (the moe block entry is "
               "Puzzletron's, read by no serving engine)";
      if (engine && layers && decilm_ffn_mult(f.d_ff, spec.d_model, 6) == 0)
        return at + "FFN width " + std::to_string(f.d_ff) +
               ", which no ffn_mult of 6 decimals gives (find_multiple(int(2 m hidden / 3), 256))";
    }
    if (layers && e == prune_engine::llama_cpp && a.kind != attention_kind::none && f.kind == ffn_kind::none)
      return at + "attention without an FFN (llama.cpp's deci graph skips the rest of such a layer, dropping the "
                  "attention's output)";
    if (layers && i == 0 && a.kind == attention_kind::none &&
        (e == prune_engine::llama_cpp || e == prune_engine::mlx))
      return at + "no attention in layer 0 (" +
             std::string(e == prune_engine::mlx ? "mlx-lm builds the attention mask from layer 0's cache"
                                                : "llama.cpp takes the head sizes from layer 0") +
             ")";
  }
  return "";
}

/// The pruned model `c` of a uniform search (search_prune_uniform) in the family's own
/// architecture: the input config with num_attention_heads / num_key_value_heads (head_dim
/// added when heads change and the config has none), the dense FFN width (intermediate_size),
/// the expert count and width (the family's moe_count_key / moe_width_key) and
/// num_hidden_layers = the kept depth (per-layer lists layer_types truncated, mlp_only_layers
/// entries beyond it dropped); architectures and model_type unchanged, so every engine that
/// serves the original loads it without remote code. std::invalid_argument
/// "nsc::prune_emit_uniform_config: ..." when c is not uniform (kept layers differing in a shape,
/// removed layers not the last ones), or the input has block_configs / per-layer lists of shapes.
inline nlohmann::json prune_emit_uniform_config(const nlohmann::json& input, const search::prune_space& space,
                                                const search::prune_candidate& c) {
  using nlohmann::json;
  constexpr std::string_view fn = "nsc::prune_emit_uniform_config";
  if (c.layers.size() != space.layers.size())
    throw_invalid_argument(fn, "the candidate needs one choice per layer", c.layers.size());
  for (const char* k : {"block_configs", "per_layer_config", "intermediate_sizes", "expert_counts"})
    if (input.contains(k) && !input[k].is_null())
      throw_invalid_argument(fn, std::string("the input's layers already differ (it has ") + k +
                                     "); the family's own architecture has one shape for every layer",
                             input[k].size());
  const std::string type = input.contains("model_type") && input["model_type"].is_string() ? input["model_type"].get<std::string>() : "";
  const detail::hf::family* fam = detail::hf::find_family(type);
  if (input.contains("text_config") && input["text_config"].is_object()) {
    json cfg = input; // a multimodal wrapper (llama4, mistral3, qwen3_5, gemma3, ...): its text decoder is the model
    cfg["text_config"] = prune_emit_uniform_config(input["text_config"], space, c);
    return cfg;
  }
  if (!fam) throw_invalid_argument(fn, "the config's model_type is not one nsc reads", type);
  json cfg = input;
  std::size_t depth = 0;
  std::optional<search::prune_layer_choice> att, dense, moe;
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    const search::prune_layer_choice& l = c.layers[i];
    const block_spec& base = space.layers[i].base;
    const bool removed = l.attention_none && l.ffn_none;
    if (removed) continue;
    if (depth != i) throw_invalid_argument(fn, "only the last layers may be removed; layer " + std::to_string(depth) + " is, layer", i);
    ++depth;
    if (l.attention_none != (base.attention.kind == attention_kind::none) || l.ffn_none != (base.ffn.kind == ffn_kind::none))
      throw_invalid_argument(fn, "a kept layer must keep both sublayers (the architecture has no per-layer skip); layer", i);
    auto same = [&](std::optional<search::prune_layer_choice>& seen, bool attention) {
      if (!seen) {
        seen = l;
        return;
      }
      const bool eq = attention ? seen->heads == l.heads && seen->kv_heads == l.kv_heads
                                : seen->ffn_width == l.ffn_width && seen->experts == l.experts;
      if (!eq) throw_invalid_argument(fn, std::string("the candidate is not uniform: its ") + (attention ? "attention" : "FFN") + " shapes differ at layer", i);
    };
    if (base.attention.kind == attention_kind::standard) same(att, true);
    if (base.ffn.kind == ffn_kind::standard) same(base.ffn.n_experts > 0 ? moe : dense, false);
  }
  const transformer_spec top = expand(space.spec);
  const block_spec* std_block = nullptr;
  for (const block_spec& b : top.blocks)
    if (b.attention.kind == attention_kind::standard) {
      std_block = &b;
      break;
    }
  if (att && std_block) {
    const attention_spec& a0 = std_block->attention;
    if (att->heads != a0.n_heads) {
      cfg[fam->heads] = att->heads;
      if (fam->head_dim && (!input.contains("head_dim") || input["head_dim"].is_null())) cfg["head_dim"] = a0.head_size();
    }
    if (fam->kv_heads && (att->kv_heads != a0.kv_heads() || input.contains(fam->kv_heads)))
      cfg[fam->kv_heads] = att->kv_heads;
  }
  if (dense && fam->ffn) cfg[fam->ffn] = dense->ffn_width;
  if (moe && fam->moe != detail::hf::moe_layout::none) {
    cfg[std::string(detail::hf::moe_count_key(fam->moe))] = moe->experts;
    cfg[std::string(detail::hf::moe_width_key(fam->moe))] = moe->ffn_width;
  }
  cfg[fam->layers] = depth;
  for (const char* k : {"layer_types", "no_rope_layers"}) // one entry per layer: the kept layers' entries
    if (cfg.contains(k) && cfg[k].is_array() && cfg[k].size() > depth) {
      json lt = json::array();
      for (std::size_t i = 0; i < depth; ++i) lt.push_back(cfg[k][i]);
      cfg[k] = std::move(lt);
    }
  for (const char* k : {"mlp_only_layers", "moe_layers"}) // layer indices: those of kept layers
    if (cfg.contains(k) && cfg[k].is_array()) {
      json kept = json::array();
      for (const json& x : cfg[k])
        if (!x.is_number_integer() || x.get<std::int64_t>() < std::int64_t(depth)) kept.push_back(x);
      cfg[k] = std::move(kept);
    }
  if (moe && depth > 0) // the family's shared expert may take its width from the routed experts' field
    for (const block_spec& b : top.blocks)
      if (b.ffn.kind == ffn_kind::standard && b.ffn.n_experts > 0) {
        if (b.ffn.shared_d_ff == 0 || moe->ffn_width == b.ffn.d_ff) break;
        for (const block_spec& w : expand(read_hf_config(cfg).spec).blocks)
          if (w.ffn.kind == ffn_kind::standard && w.ffn.n_experts > 0 && w.ffn.shared_d_ff != b.ffn.shared_d_ff)
            throw_invalid_argument(fn,
                                   "model_type " + type + " derives its shared expert's width from the experts' (" +
                                       std::to_string(b.ffn.d_ff) + " -> shared " + std::to_string(b.ffn.shared_d_ff) +
                                       "), so a uniform expert width of " + std::to_string(moe->ffn_width) +
                                       " would resize the shared expert, which the search keeps; search with "
                                       "--keep-expert-width (experts are still dropped) or --emit-format nsc",
                                   moe->ffn_width);
        break;
      }
  return cfg;
}

/// Reads `emitted` back (read_hf_config, the space's scoring layouts) and throws
/// std::invalid_argument "nsc::prune_verify_config: ..." unless its params, FLOPs, KV bytes,
/// memory and NSC equal the candidate's totals exactly (the file comment). `format` names the
/// written format in messages (default: the space's).
inline void prune_verify_config(const nlohmann::json& emitted, const search::prune_space& space,
                                const search::prune_candidate& c, std::string_view format = {}) {
  constexpr std::string_view fn = "nsc::prune_verify_config";
  const std::string fmt(format.empty() ? search::to_string(space.settings.format) : format);
  const std::string what = "the " + fmt + " config does not express this model" +
                           (fmt == "nsc" ? "" : " (the nsc format states every layer's shapes: --emit-format nsc)") + ": ";
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
