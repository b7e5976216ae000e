/// \file nsc/io/prune_checkpoint.hpp
/// The weights of a pruned model: which heads, KV heads, FFN channels and experts survive,
/// decided from the weights alone, and a streaming writer of the pruned safetensors checkpoint
/// (optional part: needs nlohmann-json; no Eigen).
///
/// Synopsis
///
///     checkpoint in = open_checkpoint(dir);                          // nsc/io/safetensors.hpp
///     auto sel = select_channels(in, space, candidate, {});           // what survives, per layer
///     auto r = write_pruned_checkpoint(in, space, candidate, config, out_dir, {});
///     // out_dir: config.json, model-0000i-of-0000N.safetensors, model.safetensors.index.json,
///     //          nsc_prune.json (the selection), the input's tokenizer / generation files
///
/// Families (one layouts() entry each, the names of transformers' checkpoints:
/// "model.layers.<L>.self_attn.q_proj.weight", ...; an entry names the norms before / after each
/// sublayer, the q/k norm names, fused parts, the MoE prefix, shared experts and router bias):
/// llama's names (llama, mistral, ministral, ministral3, qwen2 (q/k/v biases), qwen3 (q_norm /
/// k_norm), mimo, smollm3, granite, seed_oss, ernie4_5, internlm3, hunyuan_v1_dense
/// (query_layernorm / key_layernorm), gemma); four norms per layer (gemma2, gemma3, gemma3_text:
/// input / post_attention with attention, pre / post_feedforward with the FFN; glm4: input /
/// post_self_attn and post_attention / post_mlp, fused gate_up_proj); post-norms only (exaone4:
/// post_attention / post_feedforward; olmo2 too, with q_norm / k_norm over the whole projection,
/// (H hd) and (K hd), so its heads are kept: a space that drops or pools them is refused with
/// the flags that keep them; olmoe: the same norms, qwen's MoE names; minimax_m2: the same norms,
/// mixtral's names, block_sparse_moe.e_score_correction_bias sliced with the router); phi3 (fused qkv_proj = [q; k; v] rows and gate_up_proj =
/// [gate; up] rows, sliced part by part and written fused); mixtral (block_sparse_moe.experts.<e>.w1 /
/// w3 / w2); qwen2_moe and qwen3_moe (mlp.experts.<e>.gate_proj / up_proj / down_proj, router
/// mlp.gate; qwen2_moe's shared expert and its gate kept whole; qwen's dense mlp_only_layers
/// have the dense names); DeepSeek (deepseek_v2, deepseek_v3, kimi_k2: multi-head latent
/// attention q_proj or q_a_proj / q_a_layernorm / q_b_proj, kv_a_proj_with_mqa, kv_a_layernorm,
/// kv_b_proj, o_proj, kept whole or removed, as the space offers; mlp.experts.<e>.*, router
/// mlp.gate with mlp.gate.e_score_correction_bias sliced by the same expert rows,
/// mlp.shared_experts kept whole, first_k_dense_replace layers dense); glm4_moe (GQA attention,
/// DeepSeek's MoE). Hybrid layers (family::hybrid; detail::pc::hybrid_*; the nsc format, whose space keeps
/// attention heads and mixers whole): nemotron_h (one mixer per layer, "backbone.layers.<L>.norm" and
/// "mixer.*" read through a canonical view as input_layernorm / self_attn.* or post_attention_layernorm /
/// mlp.*; a removed Mamba-2 layer leaves the checkpoint and the later layers are renumbered, as
/// hybrid_override_pattern), qwen3_next and qwen3_5_moe_text (Gated DeltaNet linear_attn.* and the gated
/// q_proj kept whole; Qwen3.5 under "model.language_model.layers."), falcon_h1 (mamba.* beside the
/// attention kept whole, feed_forward.* read as mlp.*), granitemoehybrid without experts (mamba.* or
/// self_attn.* kept whole, shared_mlp.input_linear / output_linear read as mlp.gate_up_proj / down_proj;
/// fused 3-D experts refused by name), deepseek_v32 and glm_moe_dsa (the DSA
/// self_attn.indexer.* kept whole with the latent attention); every tensor is written back under its
/// stored name. Any other model_type is refused by name, with the reason when nsc prune
/// reads it (unsliced_reason: fused 3-D experts;
/// LayerNorm blocks; ...), naming the supported ones. Tensors
/// of a layer past the config's (MTP modules) are refused. Every tensor under "model.layers.<L>." must be one
/// the family's layout names, with the shape the config gives (q_proj (H hd, d), k/v_proj
/// (K hd, d), o_proj (d, H hd), gate/up (F, d), down (d, F), router (E, d), norms (d) or (hd));
/// a missing, unknown or mis-shaped tensor is refused before any file is written:
/// "nsc::write_pruned_checkpoint: tensor 'model.layers.3.mlp.up_proj.weight': shape [64, 32]
/// disagrees with the config (expected [96, 32])". Tensors outside the layers (embeddings,
/// final norm, LM head) are copied as they are: a tied LM head stays tied (absent) and an
/// untied one is copied.
///
/// What survives (criterion `magnitude`; `spectral`, the greedy largest psi_W, is stated in
/// nsc/io/prune_weights.hpp, which computes its orders; both give nested orders, see
/// channel_orders; all from the weights, no data):
///  * KV heads, K -> k: the K heads are cut into k contiguous groups, group j = KV heads
///    [floor(j K / k), floor((j + 1) K / k)), and the new KV head j is the mean of the group's
///    K rows and of its V rows (and biases): the GQA paper's mean-pooling conversion (Ainslie
///    et al. 2023, section 2), exact when k divides K (groups of K / k), contiguous groups of
///    floor or ceil(K / k) otherwise. k = K keeps every KV head as it is.
///  * query heads, H -> h: query head i uses KV head floor(i / G), G = H / K; new group j may take the query heads of its KV heads, and keeps the h / k of
///    them with the largest importance ||Q_i||_F ||O_i||_F (the Frobenius norms of head i's
///    head_dim rows of q_proj and head_dim columns of o_proj; ties: the lower index), in their
///    original order. A group with fewer candidates than h / k is refused (name, numbers).
///  * FFN channels, F -> w: channel c's importance is ||gate_c|| ||up_c|| ||down_c|| (the
///    Euclidean norms of row c of gate_proj and up_proj and column c of down_proj; without a
///    gate, ||up_c|| ||down_c||); the w largest are kept in their original order (ties: lower
///    index). Experts: the same per kept expert on its gate (mixtral w1), up (w3), down (w2).
///  * experts, E -> E': expert e's importance is ||W1_e||_F ||W3_e||_F ||W2_e||_F (the product
///    of the Frobenius norms of its three matrices); the E' largest are kept in their original
///    order and renumbered 0..E'-1, with their rows of the router (block_sparse_moe.gate, mlp.gate).
///    Routing stays top-k over the kept experts: softmax, top-k and renormalisation over the
///    kept logits equal the original's with the dropped experts' logits at -infinity.
///  * a removed sublayer (no-op) loses every tensor, its norms included (the family's norms of
///    that sublayer: input_layernorm for llama's attention, post_attention_layernorm for its FFN).
/// So the pruned model computes exactly what the original computes with the dropped query
/// heads' outputs, FFN channels and experts masked and the KV heads of each group replaced by
/// their mean (tests/reference/check_pruned_checkpoint.py shows it to 1e-5 on the logits).
///
/// Data: kept rows and columns are copied byte for byte in the input's dtype; pooled K / V rows
/// are averaged in double and rounded to the input dtype (F64, F32, F16, BF16; other dtypes
/// refused for pooling). Memory: a few rows at a time and per-row / per-column norm vectors
/// (O(max dimension) doubles), never a whole tensor: peak memory is independent of the model
/// size (README measures it with /usr/bin/time -v). Output files: see nsc/io/safetensors_writer.hpp
/// (shards of at most settings.shard_bytes, default 5 GB as transformers' save_pretrained).
/// The output directory must be new or empty.
#ifndef NSC_IO_PRUNE_CHECKPOINT_HPP
#define NSC_IO_PRUNE_CHECKPOINT_HPP

#include <nsc/error_handling.hpp>
#include <nsc/io/safetensors.hpp>
#include <nsc/io/safetensors_writer.hpp>
#include <nsc/search/prune_space.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::io {

/// How surviving channels are chosen (the file comment states the rules).
enum class channel_criterion { magnitude, spectral };

inline channel_criterion parse_channel_criterion(std::string_view s) {
  if (s == "magnitude") return channel_criterion::magnitude;
  if (s == "spectral") return channel_criterion::spectral;
  throw_invalid_argument("nsc::parse_channel_criterion", "criterion must be magnitude or spectral", s);
}

inline std::string_view to_string(channel_criterion c) { return c == channel_criterion::magnitude ? "magnitude" : "spectral"; }

struct channel_orders;

/// Options of write_pruned_checkpoint.
struct prune_checkpoint_settings {
  std::uint64_t shard_bytes = 5'000'000'000; ///< data per shard at most (a larger tensor alone)
  channel_criterion criterion = channel_criterion::magnitude;
  /// The criterion's orders (spectral: nsc/io/prune_weights.hpp's spectral_orders; null for
  /// magnitude: magnitude_orders).
  std::shared_ptr<const channel_orders> orders;
  bool copy_tokenizer = true; ///< copy tokenizer / generation files of an input directory
};

/// What one layer keeps, in indices of the original model.
struct layer_keep {
  bool attention = true;                            ///< the attention sublayer is kept
  std::vector<std::int64_t> q_heads;                ///< query heads, in the pruned order
  std::vector<std::vector<std::int64_t>> kv_groups; ///< per new KV head: the KV heads averaged
  bool ffn = true;                                  ///< the FFN sublayer is kept
  std::vector<std::int64_t> channels;               ///< dense FFN channels kept (ascending)
  std::vector<std::int64_t> experts;                ///< MoE: experts kept (ascending)
  std::vector<std::vector<std::int64_t>> expert_channels; ///< MoE: channels per kept expert
};

/// The selection as JSON (nsc_prune.json): {"criterion", "layers": [{attention: null |
/// {q_heads, kv_groups}, ffn: null | {channels} | {experts, expert_channels}}]}.
inline nlohmann::json selection_json(const std::vector<layer_keep>& sel, channel_criterion criterion) {
  nlohmann::json layers = nlohmann::json::array();
  for (const layer_keep& l : sel) {
    nlohmann::json a = l.attention ? nlohmann::json{{"q_heads", l.q_heads}, {"kv_groups", l.kv_groups}}
                                   : nlohmann::json(nullptr);
    nlohmann::json f = !l.ffn ? nlohmann::json(nullptr)
                       : l.experts.empty()
                           ? nlohmann::json{{"channels", l.channels}}
                           : nlohmann::json{{"experts", l.experts}, {"expert_channels", l.expert_channels}};
    layers.push_back({{"attention", std::move(a)}, {"ffn", std::move(f)}});
  }
  return {{"criterion", std::string(to_string(criterion))}, {"layers", std::move(layers)}};
}

namespace detail::pc {

inline constexpr std::string_view fn = "nsc::write_pruned_checkpoint";

[[noreturn]] inline void fail(std::string_view rule) { throw_invalid_argument(fn, rule); }

inline std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

/// A family's tensor layout under "model.layers.<L>." (transformers' checkpoint names): one
/// table entry per family (layouts()). The attention side of a layer is every "self_attn.*"
/// tensor and attn_norms; the FFN side every other layer tensor (with ffn_norms).
struct family {
  std::string_view model_type;
  /// The MoE block's prefix ("block_sparse_moe." mixtral, "mlp." qwen / deepseek): router
  /// <moe>gate.weight (E, d), experts <moe>experts.<e>.<w_gate | w_up | w_down>.weight; "": dense.
  /// A layer whose config FFN is dense (qwen's mlp_only_layers, deepseek's first_k_dense_replace)
  /// has the dense names.
  std::string_view moe = "";
  std::string_view w_gate = "gate_proj", w_up = "up_proj", w_down = "down_proj";
  /// The shared expert's prefix ({gate,up,down}_proj under it, width shared_d_ff), kept whole
  /// with the FFN: "mlp.shared_expert." (qwen2_moe), "mlp.shared_experts." (deepseek); "": none.
  std::string_view shared = "";
  std::string_view shared_gate = ""; ///< the shared expert's gate (1, d) (qwen2_moe), kept whole
  /// The router's per-expert bias (E) (DeepSeek-V3's noaux_tc e_score_correction_bias), sliced
  /// with the router's rows; "": none.
  std::string_view router_bias = "";
  /// phi3: self_attn.qkv_proj = [q; k; v] rows; phi3, glm4: mlp.gate_up_proj = [gate; up] rows
  /// (sliced as the separate matrices would be, written fused).
  bool fused_qkv = false, fused_gate_up = false;
  /// The d-wide norms removed with each sublayer (llama: input_layernorm before attention,
  /// post_attention_layernorm before the FFN; gemma2 / gemma3 add post_attention_layernorm after
  /// attention and pre / post_feedforward_layernorm around the FFN; exaone4 has post-norms only).
  std::array<std::string_view, 2> attn_norms{"input_layernorm", ""};
  std::array<std::string_view, 2> ffn_norms{"post_attention_layernorm", ""};
  /// Per-head q / k norms (hd), kept whole (the same weight for every head).
  std::string_view q_norm = "self_attn.q_norm", k_norm = "self_attn.k_norm";
  /// Why the decilm format cannot carry it ("": it can; DeciLM's blocks are llama's).
  std::string_view not_decilm = "";
  // Hybrid layers (issue 19i: nemotron_h, qwen3_next, deepseek_v32, ...): recurrent mixers and DSA
  // indexers kept whole with their sublayer, removed layers renumbered (detail::pc::hybrid_*).
  /// Checked and written by the hybrid mechanism (check_hybrid_tensors, hybrid_outputs): attention
  /// kept whole (heads and KV heads unchanged: the nsc format has no field for them).
  bool hybrid = false;
  /// The layers' stored prefix besides "model.layers." ("backbone.layers.": nemotron_h's hub
  /// checkpoints), used when the checkpoint has tensors under its root ("backbone.").
  std::string_view alt_layers = "";
  /// One mixer per layer (nemotron_h): "<L>.norm.weight" and "<L>.mixer.*", read as
  /// input_layernorm / self_attn.* on a mixer layer and post_attention_layernorm / mlp.* on an MLP
  /// layer (the canonical names the rest of this file slices), written back under the stored names.
  bool single_mixer = false;
  /// The prefix of a Mamba-2 mixer's tensors (canonical: nemotron_h's "self_attn." = "mixer.").
  std::string_view ssm = "self_attn.";
  /// The prefix of a Gated DeltaNet mixer's tensors (qwen3_next: "linear_attn."); split: Qwen3.5's
  /// in_proj_qkv / in_proj_z / in_proj_b / in_proj_a instead of in_proj_qkvz / in_proj_ba.
  std::string_view deltanet = "linear_attn.";
  bool deltanet_split = false;
  /// The FFN's stored prefix when not "mlp." (falcon_h1: "feed_forward."), read as "mlp.".
  std::string_view ffn_stored = "";
  /// Whole stored names read as canonical ones (granitemoehybrid: shared_mlp.input_linear = [gate; up]
  /// rows is mlp.gate_up_proj, shared_mlp.output_linear is mlp.down_proj).
  std::array<std::pair<std::string_view, std::string_view>, 2> renames{};
  bool has_moe() const { return !moe.empty(); }
  std::string expert(std::int64_t x, std::string_view m) const {
    return std::string(moe) + "experts." + std::to_string(x) + "." + std::string(m) + ".weight";
  }
  std::string router() const { return std::string(moe) + "gate.weight"; }
  std::int64_t norms() const {
    std::int64_t n = 0;
    for (const auto& a : {attn_norms, ffn_norms})
      for (std::string_view x : a) n += !x.empty();
    return n;
  }
};

/// The families whose checkpoints nsc can prune.
inline const std::vector<family>& layouts() {
  constexpr std::string_view gemma_why = "no (1 + w) norms, GELU or scaled embeddings";
  constexpr std::string_view moe_why = "no MoE block";
  const family llama{.model_type = "llama"};
  family gemma2{.model_type = "gemma2", .not_decilm = "no (1 + w) norms, GELU, scaled embeddings or post-norms"};
  gemma2.attn_norms = {"input_layernorm", "post_attention_layernorm"};
  gemma2.ffn_norms = {"pre_feedforward_layernorm", "post_feedforward_layernorm"};
  family exaone4{.model_type = "exaone4", .not_decilm = "no post-norms or q/k norms"};
  exaone4.attn_norms = {"post_attention_layernorm", ""};
  exaone4.ffn_norms = {"post_feedforward_layernorm", ""};
  // olmo2: post-norms only, q_norm / k_norm over the whole projection (H hd) / (K hd): heads kept
  family olmo2{.model_type = "olmo2", .not_decilm = "no post-norms or q/k norms"};
  olmo2.attn_norms = {"post_attention_layernorm", ""};
  olmo2.ffn_norms = {"post_feedforward_layernorm", ""};
  family glm4{.model_type = "glm4", .fused_gate_up = true, .not_decilm = "no fused gate_up_proj or post-norms"};
  glm4.attn_norms = {"input_layernorm", "post_self_attn_layernorm"};
  glm4.ffn_norms = {"post_attention_layernorm", "post_mlp_layernorm"};
  const family deepseek{.model_type = "deepseek_v2", .moe = "mlp.", .shared = "mlp.shared_experts.",
                        .router_bias = "mlp.gate.e_score_correction_bias", .not_decilm = "no latent attention or MoE block"};
  static const std::vector<family> t = [&] {
    std::vector<family> v{
        llama,
        {.model_type = "mistral"},
        {.model_type = "ministral"},
        {.model_type = "ministral3"},
        {.model_type = "qwen2"},
        {.model_type = "qwen3"},
        {.model_type = "mimo", .not_decilm = "no q/k/v biases"}, // qwen2's layers (MTP modules outside model.layers copied)
        {.model_type = "smollm3", .not_decilm = "no NoPE layers"},
        {.model_type = "granite", .not_decilm = "no embedding / residual / attention / logits multipliers"},
        {.model_type = "seed_oss", .not_decilm = "no separate q/k/v and o_proj biases"},
        {.model_type = "ernie4_5", .not_decilm = "no q/k/v/o biases"},
        {.model_type = "internlm3", .not_decilm = "no separate q/k/v and o_proj biases"},
        {.model_type = "hunyuan_v1_dense", .q_norm = "self_attn.query_layernorm", .k_norm = "self_attn.key_layernorm",
         .not_decilm = "no q/k norms"},
        {.model_type = "gemma", .not_decilm = gemma_why}, // llama's names; (1 + w) norms, scaled tied embeddings, GELU
        gemma2,
        exaone4,
        olmo2,
        glm4,
        {.model_type = "phi3", .fused_qkv = true, .fused_gate_up = true, .not_decilm = "no fused qkv_proj / gate_up_proj"},
        {.model_type = "mixtral", .moe = "block_sparse_moe.", .w_gate = "w1", .w_up = "w3", .w_down = "w2", .not_decilm = moe_why},
        {.model_type = "qwen2_moe", .moe = "mlp.", .shared = "mlp.shared_expert.", .shared_gate = "mlp.shared_expert_gate.weight",
         .not_decilm = moe_why},
        {.model_type = "qwen3_moe", .moe = "mlp.", .not_decilm = moe_why},
        {.model_type = "olmoe", .moe = "mlp.", .not_decilm = moe_why}, // whole-projection q/k norms: heads kept
        {.model_type = "minimax_m2", .moe = "block_sparse_moe.", .w_gate = "w1", .w_up = "w3", .w_down = "w2",
         .router_bias = "block_sparse_moe.e_score_correction_bias", .not_decilm = moe_why}, // as olmoe's norms
        deepseek,
    };
    for (const char* m : {"gemma3", "gemma3_text"}) { // gemma2's layers plus per-head q_norm / k_norm
      family g = gemma2;
      g.model_type = m;
      v.push_back(g);
    }
    for (const char* m : {"deepseek_v3", "kimi_k2"}) { // deepseek_v2's names (V3: the router's e_score_correction_bias)
      family d = deepseek;
      d.model_type = m;
      v.push_back(d);
    }
    family glm4_moe = deepseek; // deepseek's MoE names, GQA attention (q/k/v biases, q_norm / k_norm)
    glm4_moe.model_type = "glm4_moe";
    glm4_moe.not_decilm = moe_why;
    v.push_back(glm4_moe);
    // Hybrid layers (issue 19i; detail::pc::hybrid_*): Mamba-2 / Gated DeltaNet mixers kept whole or
    // removed, attention kept whole, the FFNs and experts sliced as the families above.
    v.push_back({.model_type = "nemotron_h", .not_decilm = "no Mamba-2 layers", .hybrid = true,
                 .alt_layers = "backbone.layers.", .single_mixer = true}); // relu2 MLP: up_proj, down_proj
    v.push_back({.model_type = "qwen3_next", .moe = "mlp.", .shared = "mlp.shared_expert.",
                 .shared_gate = "mlp.shared_expert_gate.weight", .not_decilm = "no Gated DeltaNet layers", .hybrid = true});
    for (const char* m : {"deepseek_v32", "glm_moe_dsa"}) { // DSA: deepseek's names + self_attn.indexer.* kept whole
      family d = deepseek;
      d.model_type = m;
      d.hybrid = true;
      v.push_back(d);
    }
    // falcon_h1: a Mamba-2 mixer ("mamba.*") beside the attention of every layer, both kept whole; the gated MLP
    // ("feed_forward.*", norm pre_ff_layernorm) narrowed
    family falcon_h1{.model_type = "falcon_h1", .not_decilm = "no parallel Mamba-2 mixer", .hybrid = true, .ssm = "mamba.",
                     .ffn_stored = "feed_forward."};
    falcon_h1.ffn_norms = {"pre_ff_layernorm", ""};
    v.push_back(falcon_h1);
    // granitemoehybrid without experts: Mamba-2 ("mamba.*") or attention layers, each with the fused gated
    // shared_mlp narrowed (input_linear = [gate; up] rows, output_linear)
    family granite_h{.model_type = "granitemoehybrid", .fused_gate_up = true, .not_decilm = "no Mamba-2 layers",
                     .hybrid = true, .ssm = "mamba."};
    granite_h.renames = {{{"shared_mlp.input_linear.weight", "mlp.gate_up_proj.weight"},
                          {"shared_mlp.output_linear.weight", "mlp.down_proj.weight"}}};
    v.push_back(granite_h);
    // Qwen3.5 (the text decoder of qwen3_5 / qwen3_5_moe): qwen3_next's layers under model.language_model.*
    // (the vision tower and MTP tensors copied), Gated DeltaNet's split in_proj_qkv / in_proj_z / in_proj_b / in_proj_a
    v.push_back({.model_type = "qwen3_5_moe_text", .moe = "mlp.", .shared = "mlp.shared_expert.",
                 .shared_gate = "mlp.shared_expert_gate.weight", .not_decilm = "no Gated DeltaNet layers", .hybrid = true,
                 .alt_layers = "model.language_model.layers.", .deltanet_split = true});
    return v;
  }();
  return t;
}

/// The families `nsc prune` reads whose checkpoints are not sliced, and why (the refusal names it).
inline std::string_view unsliced_reason(std::string_view model_type) {
  static const std::vector<std::pair<std::string_view, std::string_view>> t{
      {"cohere", "LayerNorm with whole-projection q/k norms and a parallel block"},
      {"cohere2", "LayerNorm and a parallel attention + MLP block (not sliced yet)"},
      {"gpt_oss", "fused, biased 3-D expert tensors (gate_up_proj interleaved) and attention sinks (not sliced yet)"},
      {"llama4_text", "fused 3-D expert tensors and chunked attention (not sliced yet)"},
      {"llama4", "fused 3-D expert tensors and chunked attention (not sliced yet)"},
      {"granitemoe", "fused 3-D expert tensors input_linear / output_linear (not sliced yet)"},
      {"phimoe", "LayerNorm (weight and bias) blocks (not sliced yet)"},
      {"internlm2", "its wqkv interleaves q, k, v per KV group (not sliced yet)"},
      {"ernie4_5_moe", "its moe_statics router bias and expert layout (not sliced yet)"},
      {"hunyuan_v1_moe", "its wg router and shared_mlp layout (not sliced yet)"},
      {"starcoder2", "LayerNorm (weight and bias) and c_fc / c_proj MLP names (not sliced yet)"},
      {"falcon", "fused query_key_value and LayerNorm blocks (not sliced yet)"},
      {"gpt_neox", "fused query_key_value and LayerNorm blocks (not sliced yet)"},
      {"gpt2", "Conv1D c_attn / c_fc and LayerNorm blocks (not sliced yet)"},
      {"opt", "LayerNorm blocks (not sliced yet)"},
      {"bert", "an encoder (not sliced)"},
      {"nemotron-nas", "DeciLM's per-layer checkpoint (not sliced yet)"},
      {"gemma4_text", "per-layer embeddings, KV-shared layers and k_eq_v attention (not sliced yet)"},
      {"qwen3_5_text", "the dense Qwen3.5 text decoder (its MoE sibling qwen3_5_moe_text is sliced; not sliced yet)"},
  };
  for (const auto& [m, why] : t)
    if (m == model_type) return why;
  return "";
}

inline family find_layout(std::string_view model_type) {
  std::string names;
  for (const family& f : layouts()) {
    if (f.model_type == model_type) return f;
    names += (names.empty() ? "" : ", ") + std::string(f.model_type);
  }
  const std::string_view why = unsliced_reason(model_type);
  fail("model_type '" + excerpt(model_type, 60) + "' has no checkpoint pruning" +
       (why.empty() ? std::string() : ": " + std::string(why)) + " (supported: " + names + ")");
}

/// Rows [row0, row0 + rows) of the layer tensor `rest` (a fused tensor's part, or all rows).
struct matrix_part {
  std::string rest;
  std::int64_t row0 = 0, rows = 0;
};

/// The q, k, v rows and the FFN gate / up rows of a dense layer in family f's layout.
inline matrix_part part_of(const family& f, const block_spec& b, std::string_view role) {
  const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads(), hd = b.attention.head_size(), F = b.ffn.d_ff;
  if (role == "q") return f.fused_qkv ? matrix_part{"self_attn.qkv_proj.weight", 0, H * hd} : matrix_part{"self_attn.q_proj.weight", 0, H * hd};
  if (role == "k") return f.fused_qkv ? matrix_part{"self_attn.qkv_proj.weight", H * hd, K * hd} : matrix_part{"self_attn.k_proj.weight", 0, K * hd};
  if (role == "v")
    return f.fused_qkv ? matrix_part{"self_attn.qkv_proj.weight", (H + K) * hd, K * hd} : matrix_part{"self_attn.v_proj.weight", 0, K * hd};
  if (role == "gate") return f.fused_gate_up ? matrix_part{"mlp.gate_up_proj.weight", 0, F} : matrix_part{"mlp.gate_proj.weight", 0, F};
  if (role == "up") return f.fused_gate_up ? matrix_part{"mlp.gate_up_proj.weight", F, F} : matrix_part{"mlp.up_proj.weight", 0, F};
  fail("internal: unknown matrix role " + std::string(role));
}

/// Reads rows of a tensor (as a matrix of rows x cols, a 1-D tensor as n x 1) as raw bytes.
class tensor_reader {
public:
  explicit tensor_reader(const tensor_entry& t) : t_(t), in_(t.file, std::ios::binary) {
    if (!in_) fail("tensor '" + t.name + "': cannot open " + t.file.string());
    esize_ = *safetensors_dtype_size(t.dtype);
    rows_ = t.shape.empty() ? 1 : t.shape[0];
    cols_ = 1;
    for (std::size_t i = 1; i < t.shape.size(); ++i) cols_ *= t.shape[i];
  }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::uint64_t esize() const { return esize_; }
  /// Raw bytes of rows [r, r + n) into `buf`.
  void read_rows(std::int64_t r, std::int64_t n, std::vector<unsigned char>& buf) {
    const std::uint64_t bytes = std::uint64_t(n) * std::uint64_t(cols_) * esize_;
    buf.resize(std::size_t(bytes));
    in_.seekg(std::streamoff(t_.data_start + t_.begin + std::uint64_t(r) * std::uint64_t(cols_) * esize_));
    in_.read(reinterpret_cast<char*>(buf.data()), std::streamsize(bytes));
    if (!in_ || in_.gcount() != std::streamsize(bytes))
      throw std::invalid_argument(std::string(fn) + ": " + t_.file.string() + ": tensor '" + t_.name +
                                  "': read of rows failed (file truncated or changed since its header was read?)");
  }
  /// Rows [r, r + n) in double (row-major).
  void read_values(std::int64_t r, std::int64_t n, std::vector<double>& out) {
    read_rows(r, n, raw_);
    out.resize(std::size_t(n * cols_));
    convert_tensor_data(raw_.data(), out.size(), t_.dtype, out.data(), t_.file.string(), t_.name);
  }
  /// Squared Euclidean norms of every row and every column (streamed, about 1 MiB at a time).
  void square_norms(std::vector<double>& row, std::vector<double>& col) {
    row.assign(std::size_t(rows_), 0.0);
    col.assign(std::size_t(cols_), 0.0);
    const std::int64_t step = std::max<std::int64_t>(1, std::int64_t((1u << 20) / (std::uint64_t(cols_) * esize_ + 1)));
    std::vector<double> v;
    for (std::int64_t r = 0; r < rows_; r += step) {
      const std::int64_t n = std::min(step, rows_ - r);
      read_values(r, n, v);
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < cols_; ++j) {
          const double x = v[std::size_t(i * cols_ + j)];
          row[std::size_t(r + i)] += x * x;
          col[std::size_t(j)] += x * x;
        }
    }
  }

private:
  const tensor_entry& t_;
  std::ifstream in_;
  std::uint64_t esize_ = 0;
  std::int64_t rows_ = 0, cols_ = 0;
  std::vector<unsigned char> raw_;
};

/// The `n` largest of `score` (ties: the lower index), ascending.
inline std::vector<std::int64_t> top_indices(const std::vector<double>& score, std::int64_t n) {
  std::vector<std::int64_t> idx(score.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::int64_t a, std::int64_t b) { return score[std::size_t(a)] > score[std::size_t(b)]; });
  idx.resize(std::size_t(std::min<std::int64_t>(n, std::int64_t(idx.size()))));
  std::sort(idx.begin(), idx.end());
  return idx;
}

/// One output tensor and how it is made from a source tensor: output row r is the mean of the
/// source rows rows[r] (all rows as they are when rows is empty), restricted to the columns
/// cols (all when empty).
struct tensor_op {
  written_tensor out;
  const tensor_entry* src = nullptr;
  std::vector<std::vector<std::int64_t>> rows;
  std::vector<std::int64_t> cols;
};

inline std::vector<std::vector<std::int64_t>> singletons(const std::vector<std::int64_t>& v) {
  std::vector<std::vector<std::int64_t>> r;
  for (std::int64_t x : v) r.push_back({x});
  return r;
}

/// Row lists of a per-head tensor: head h of `heads` (each a list of source heads averaged)
/// gives head_dim rows.
inline std::vector<std::vector<std::int64_t>> head_rows(const std::vector<std::vector<std::int64_t>>& heads,
                                                        std::int64_t hd) {
  std::vector<std::vector<std::int64_t>> r;
  for (const auto& g : heads)
    for (std::int64_t i = 0; i < hd; ++i) {
      std::vector<std::int64_t> s;
      for (std::int64_t h : g) s.push_back(h * hd + i);
      r.push_back(std::move(s));
    }
  return r;
}

inline std::vector<std::int64_t> head_cols(const std::vector<std::int64_t>& heads, std::int64_t hd) {
  std::vector<std::int64_t> c;
  for (std::int64_t h : heads)
    for (std::int64_t i = 0; i < hd; ++i) c.push_back(h * hd + i);
  return c;
}

/// Streams one op's data into the writer.
inline void run_op(const tensor_op& op, safetensors_file_writer& w) {
  tensor_reader rd(*op.src);
  const std::uint64_t es = rd.esize();
  std::vector<unsigned char> raw, out;
  if (op.rows.empty() && op.cols.empty()) { // a copy, 1 MiB at a time
    const std::int64_t step = std::max<std::int64_t>(1, std::int64_t((1u << 20) / (std::uint64_t(rd.cols()) * es + 1)));
    for (std::int64_t r = 0; r < rd.rows(); r += step) {
      const std::int64_t n = std::min(step, rd.rows() - r);
      rd.read_rows(r, n, raw);
      w.write(raw.data(), raw.size());
    }
    return;
  }
  const std::int64_t nrows = op.rows.empty() ? rd.rows() : std::int64_t(op.rows.size());
  const std::int64_t ncols = op.cols.empty() ? rd.cols() : std::int64_t(op.cols.size());
  out.resize(std::size_t(std::uint64_t(ncols) * es));
  std::vector<double> acc, vals;
  for (std::int64_t r = 0; r < nrows; ++r) {
    const std::vector<std::int64_t> one{r};
    const std::vector<std::int64_t>& src = op.rows.empty() ? one : op.rows[std::size_t(r)];
    if (src.size() == 1) { // bytes as stored
      rd.read_rows(src[0], 1, raw);
      if (op.cols.empty()) {
        w.write(raw.data(), raw.size());
        continue;
      }
      for (std::int64_t j = 0; j < ncols; ++j)
        std::memcpy(out.data() + std::size_t(j) * es, raw.data() + std::size_t(op.cols[std::size_t(j)]) * es, es);
      w.write(out.data(), out.size());
      continue;
    }
    if (!safetensors_dtype_is_float(op.src->dtype))
      fail("tensor '" + op.src->name + "': dtype " + op.src->dtype +
           " cannot be mean-pooled (KV heads are averaged in F64, F32, F16 or BF16)");
    acc.assign(std::size_t(rd.cols()), 0.0);
    for (std::int64_t s : src) {
      rd.read_values(s, 1, vals);
      for (std::size_t j = 0; j < acc.size(); ++j) acc[j] += vals[j];
    }
    vals.resize(std::size_t(ncols));
    for (std::int64_t j = 0; j < ncols; ++j)
      vals[std::size_t(j)] = acc[std::size_t(op.cols.empty() ? j : op.cols[std::size_t(j)])] / double(src.size());
    encode_from_double(op.src->dtype, vals.data(), vals.size(), out.data());
    w.write(out.data(), out.size());
  }
}

/// Parses "model.layers.<L>.<rest>": the layer and the rest, or nullopt.
inline std::optional<std::pair<std::int64_t, std::string>> layer_of(const std::string& name) {
  constexpr std::string_view p = "model.layers.";
  if (name.rfind(p, 0) != 0) return std::nullopt;
  std::size_t i = p.size();
  std::int64_t l = 0;
  const std::size_t start = i;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i - start < 9) l = l * 10 + (name[i++] - '0');
  if (i == start || i >= name.size() || name[i] != '.') return std::nullopt;
  return std::pair{l, name.substr(i + 1)};
}

/// Parses "<moe>experts.<E>.<w>.weight" (moe: the family's MoE prefix).
inline std::optional<std::pair<std::int64_t, std::string>> expert_of(const std::string& rest, std::string_view moe) {
  const std::string p = std::string(moe) + "experts.";
  if (rest.rfind(p, 0) != 0) return std::nullopt;
  std::size_t i = p.size();
  const std::size_t start = i;
  std::int64_t e = 0;
  while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && i - start < 9) e = e * 10 + (rest[i++] - '0');
  if (i == start || i >= rest.size() || rest[i] != '.') return std::nullopt;
  return std::pair{e, rest.substr(i + 1)};
}

/// The tensors of one layer, by the name after the layer prefix.
using layer_tensors = std::map<std::string, const tensor_entry*>;

/// The contiguous KV groups of k new KV heads from K: group j = [floor(j K / k), floor((j + 1) K / k)).
inline std::vector<std::vector<std::int64_t>> kv_groups(std::int64_t K, std::int64_t k) {
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t j = 0; j < k; ++j) {
    std::vector<std::int64_t> g;
    for (std::int64_t x = j * K / k; x < (j + 1) * K / k; ++x) g.push_back(x);
    out.push_back(std::move(g));
  }
  return out;
}

/// Round-robin over the KV groups of per-group rankings: rank 0 of group 0, 1, ..., k - 1, then
/// rank 1 of every group, ...: the first h keep h / k heads of every group.
inline std::vector<std::int64_t> round_robin(const std::vector<std::vector<std::int64_t>>& ranked) {
  std::vector<std::int64_t> out;
  for (std::size_t r = 0;; ++r) {
    bool any = false;
    for (const auto& g : ranked)
      if (r < g.size()) out.push_back(g[r]), any = true;
    if (!any) return out;
  }
}

/// The query heads of new KV group j for k new KV heads (G = H / K per original KV head).
inline std::vector<std::int64_t> group_candidates(const std::vector<std::int64_t>& group, std::int64_t G) {
  std::vector<std::int64_t> cand;
  for (std::int64_t x : group)
    for (std::int64_t i = x * G; i < (x + 1) * G; ++i) cand.push_back(i);
  return cand;
}

/// `score`'s indices, largest first (ties: the lower index).
inline std::vector<std::int64_t> ranking(const std::vector<double>& score) {
  std::vector<std::int64_t> idx(score.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::int64_t a, std::int64_t b) { return score[std::size_t(a)] > score[std::size_t(b)]; });
  return idx;
}

// ---- Hybrid layers (issue 19i): recurrent mixers and DSA indexers kept whole, removed layers
// renumbered, checkpoints under another layer prefix or with one mixer per layer (family::hybrid).

/// Parses "<prefix><L>.<rest>": the layer and the rest, or nullopt.
inline std::optional<std::pair<std::int64_t, std::string>> layer_in(const std::string& name, std::string_view prefix) {
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  return layer_of("model.layers." + name.substr(prefix.size()));
}

/// The stored prefix of f's layer tensors in `in`: f.alt_layers when a tensor is under its root
/// ("backbone." of "backbone.layers."), else "model.layers.".
inline std::string stored_layers(const checkpoint& in, const family& f) {
  if (!f.alt_layers.empty()) {
    const std::string_view root = f.alt_layers.substr(0, f.alt_layers.size() - std::string_view("layers.").size());
    for (const tensor_entry& t : in.tensors)
      if (t.name.rfind(root, 0) == 0) return std::string(f.alt_layers);
  }
  return "model.layers.";
}

/// A stored layer tensor's canonical rest (single_mixer: norm / mixer.* by the layer's kind).
inline std::string canonical_rest(const family& f, const block_spec& b, const std::string& rest) {
  for (const auto& [stored, canonical] : f.renames)
    if (!stored.empty() && rest == stored) return std::string(canonical);
  if (!f.ffn_stored.empty() && rest.rfind(f.ffn_stored, 0) == 0) return "mlp." + rest.substr(f.ffn_stored.size());
  if (!f.single_mixer) return rest;
  const bool mlp = b.attention.kind == attention_kind::none;
  if (rest == "norm.weight") return mlp ? "post_attention_layernorm.weight" : "input_layernorm.weight";
  if (rest.rfind("mixer.", 0) == 0) return (mlp ? "mlp." : "self_attn.") + rest.substr(6);
  return rest;
}

/// The stored rest of a canonical one (canonical_rest's inverse).
inline std::string stored_rest(const family& f, const std::string& rest) {
  for (const auto& [stored, canonical] : f.renames)
    if (!stored.empty() && rest == canonical) return std::string(stored);
  if (!f.ffn_stored.empty() && rest.rfind("mlp.", 0) == 0) return std::string(f.ffn_stored) + rest.substr(4);
  if (!f.single_mixer) return rest;
  if (rest == "input_layernorm.weight" || rest == "post_attention_layernorm.weight") return "norm.weight";
  for (std::string_view p : {"self_attn.", "mlp."})
    if (rest.rfind(p, 0) == 0) return "mixer." + rest.substr(p.size());
  return rest;
}

/// Whether f's checkpoints are read through a canonical view (another prefix or one mixer per layer).
inline bool needs_view(const family& f) {
  return f.single_mixer || !f.alt_layers.empty() || !f.ffn_stored.empty() || !f.renames[0].first.empty();
}

/// `in` with its layer tensors under the canonical names ("model.layers.<L>." + canonical_rest);
/// `stored` (optional) maps each canonical name to the stored one. Idempotent: a canonical
/// checkpoint maps to itself.
inline checkpoint hybrid_view(const checkpoint& in, const family& f, const search::prune_space& space,
                              std::map<std::string, std::string>* stored = nullptr) {
  checkpoint v = in;
  const std::string pre = stored_layers(in, f);
  for (tensor_entry& t : v.tensors) {
    const std::string orig = t.name;
    if (const auto lr = layer_in(t.name, pre)) {
      const std::string rest = lr->first < std::int64_t(space.layers.size())
                                   ? canonical_rest(f, space.layers[std::size_t(lr->first)].base, lr->second)
                                   : lr->second;
      t.name = "model.layers." + std::to_string(lr->first) + "." + rest;
    }
    if (stored) (*stored)[t.name] = orig;
  }
  return v;
}

/// Whether `in` already has the canonical names.
inline bool is_canonical(const checkpoint& in, const family& f, const search::prune_space& space) {
  const checkpoint v = hybrid_view(in, f, space);
  for (std::size_t i = 0; i < in.tensors.size(); ++i)
    if (v.tensors[i].name != in.tensors[i].name) return false;
  return true;
}

/// The layer tensors a hybrid family's layer holds, canonical rest -> (shape, required).
inline std::map<std::string, std::pair<std::vector<std::int64_t>, bool>> hybrid_layer_tensors(const family& f,
                                                                                              const block_spec& b) {
  std::map<std::string, std::pair<std::vector<std::int64_t>, bool>> out;
  auto add = [&](const std::string& rest, std::vector<std::int64_t> shape, bool required = true) {
    out[rest] = {std::move(shape), required};
  };
  const attention_spec& a = b.attention;
  const std::int64_t d = a.d_model;
  if (a.kind != attention_kind::none)
    for (std::string_view n : f.attn_norms)
      if (!n.empty() && (!f.single_mixer || n == f.attn_norms[0])) add(std::string(n) + ".weight", {d});
  if (b.ffn.kind != ffn_kind::none)
    for (std::string_view n : f.ffn_norms)
      if (!n.empty() && (!f.single_mixer || n == f.ffn_norms[0])) add(std::string(n) + ".weight", {d});
  auto mamba = [&](const attention_spec& m, const std::string& p) { // Mamba-2 (attention_kind::mamba2)
    const std::int64_t H = m.ssm_heads, I = H * m.ssm_head_dim, GN = m.ssm_groups * m.ssm_state, conv = I + 2 * GN;
    add(p + "in_proj.weight", {2 * I + 2 * GN + H, d});
    add(p + "in_proj.bias", {2 * I + 2 * GN + H}, m.qkv_bias);
    add(p + "conv1d.weight", {conv, 1, m.conv_kernel});
    add(p + "conv1d.bias", {conv}, m.conv_bias);
    for (const char* x : {"A_log", "D", "dt_bias"}) add(p + x, {H});
    if (m.ssm_norm) add(p + "norm.weight", {I});
    add(p + "out_proj.weight", {d, I});
    add(p + "out_proj.bias", {d}, m.out_bias);
  };
  if (a.kind == attention_kind::standard) {
    const std::int64_t H = a.n_heads, K = a.kv_heads(), hd = a.head_size();
    add("self_attn.q_proj.weight", {(a.output_gate ? 2 : 1) * H * hd, d}); // Qwen3-Next: query and gate per head
    add("self_attn.k_proj.weight", {K * hd, d});
    add("self_attn.v_proj.weight", {K * hd, d});
    add("self_attn.o_proj.weight", {d, H * hd});
    if (a.qkv_bias) {
      add("self_attn.q_proj.bias", {(a.output_gate ? 2 : 1) * H * hd});
      add("self_attn.k_proj.bias", {K * hd});
      add("self_attn.v_proj.bias", {K * hd});
    }
    if (a.out_bias) add("self_attn.o_proj.bias", {d});
    if (a.qk_norm == qk_norm_kind::per_head) {
      add(std::string(f.q_norm) + ".weight", {hd});
      add(std::string(f.k_norm) + ".weight", {hd});
    }
    add("self_attn.rotary_emb.inv_freq", {hd / 2}, false);
  } else if (a.kind == attention_kind::latent) { // MLA (+ the DSA indexer), kept whole
    const std::int64_t H = a.n_heads, qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      add("self_attn.q_a_proj.weight", {a.q_lora_rank, d});
      add("self_attn.q_a_layernorm.weight", {a.q_lora_rank});
      add("self_attn.q_b_proj.weight", {H * qk, a.q_lora_rank});
    } else {
      add("self_attn.q_proj.weight", {H * qk, d});
    }
    add("self_attn.kv_a_proj_with_mqa.weight", {a.kv_lora_rank + a.qk_rope_head_dim, d});
    add("self_attn.kv_a_layernorm.weight", {a.kv_lora_rank});
    add("self_attn.kv_b_proj.weight", {H * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank});
    add("self_attn.o_proj.weight", {d, H * a.v_head_dim});
    if (a.index_n_heads > 0) { // DeepSeek-V3.2's lightning indexer
      const std::int64_t n = a.index_n_heads, ih = a.index_head_dim;
      add("self_attn.indexer.wq_b.weight", {n * ih, a.q_lora_rank});
      add("self_attn.indexer.wk.weight", {ih, d});
      add("self_attn.indexer.k_norm.weight", {ih});
      add("self_attn.indexer.k_norm.bias", {ih});
      add("self_attn.indexer.weights_proj.weight", {n, d});
    }
  } else if (a.kind == attention_kind::mamba2) {
    mamba(a, std::string(f.ssm));
  } else if (a.kind == attention_kind::gated_deltanet) { // Qwen3-Next / Qwen3.5 GatedDeltaNet
    const std::int64_t HK = a.ssm_groups, dk = a.ssm_state, HV = a.ssm_heads, dv = a.ssm_head_dim;
    const std::string p(f.deltanet);
    if (f.deltanet_split) {
      add(p + "in_proj_qkv.weight", {2 * HK * dk + HV * dv, d});
      add(p + "in_proj_z.weight", {HV * dv, d});
      add(p + "in_proj_b.weight", {HV, d});
      add(p + "in_proj_a.weight", {HV, d});
    } else {
      add(p + "in_proj_qkvz.weight", {2 * HK * dk + 2 * HV * dv, d});
      add(p + "in_proj_ba.weight", {2 * HV, d});
    }
    add(p + "conv1d.weight", {2 * HK * dk + HV * dv, 1, a.conv_kernel});
    add(p + "dt_bias", {HV});
    add(p + "A_log", {HV});
    add(p + "norm.weight", {dv});
    add(p + "out_proj.weight", {d, HV * dv});
  }
  if (b.parallel.kind == attention_kind::mamba2) mamba(b.parallel, std::string(f.ssm));
  const ffn_spec& x = b.ffn;
  const std::int64_t F = x.d_ff;
  if (x.kind == ffn_kind::standard && x.n_experts > 0) {
    add(f.router(), {x.n_experts, d});
    for (std::int64_t e = 0; e < x.n_experts; ++e) {
      add(f.expert(e, f.w_gate), {F, d});
      add(f.expert(e, f.w_up), {F, d});
      add(f.expert(e, f.w_down), {d, F});
    }
    if (x.router_bias) add(std::string(f.router_bias), {x.n_experts});
    if (x.shared_d_ff > 0) {
      const std::int64_t S = x.shared_d_ff;
      add(std::string(f.shared) + "gate_proj.weight", {S, d});
      add(std::string(f.shared) + "up_proj.weight", {S, d});
      add(std::string(f.shared) + "down_proj.weight", {d, S});
      if (x.shared_gate) add(std::string(f.shared_gate), {1, d});
    }
  } else if (x.kind == ffn_kind::standard && f.fused_gate_up) {
    add("mlp.gate_up_proj.weight", {2 * F, d});
    add("mlp.down_proj.weight", {d, F});
  } else if (x.kind == ffn_kind::standard) {
    if (x.gated) add("mlp.gate_proj.weight", {F, d});
    add("mlp.up_proj.weight", {F, d});
    add("mlp.down_proj.weight", {d, F});
    if (x.bias) {
      if (x.gated) add("mlp.gate_proj.bias", {F});
      add("mlp.up_proj.bias", {F});
      add("mlp.down_proj.bias", {d});
    }
  }
  return out;
}

/// check_prune_checkpoint_tensors for a hybrid family: every layer tensor (under its stored name)
/// named by hybrid_layer_tensors with its shape, nothing else; messages name the stored tensors.
inline void check_hybrid_tensors(const checkpoint& in, std::string_view model_type, const family& f,
                                 const search::prune_space& space) {
  std::map<std::string, std::string> stored;
  const checkpoint v = hybrid_view(in, f, space, &stored);
  const std::string pre = stored_layers(in, f);
  std::map<std::string, const tensor_entry*> by_name;
  for (const tensor_entry& t : v.tensors) by_name[t.name] = &t;
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const block_spec& b = space.layers[l].base;
    const attention_spec& a = b.attention;
    if (b.ffn.n_experts > 0 && !f.has_moe())
      fail("layer " + std::to_string(l) + ": the " + std::string(model_type) + " layout slices no experts: its fused 3-D "
           "experts are not sliced yet (a config without them, like granite-4.0-micro's dense shared_mlp, is)");
    if (b.norm != norm_kind::rmsnorm || b.ffn.kind == ffn_kind::linear || a.kind == attention_kind::linear ||
        (a.kind == attention_kind::standard && (a.qk_norm == qk_norm_kind::whole || a.k_eq_v || a.kv_shared)) ||
        (b.ffn.shared_d_ff > 0 && f.shared.empty()) || (b.ffn.router_bias && f.router_bias.empty()) ||
        (b.parallel.kind != attention_kind::none && b.parallel.kind != attention_kind::mamba2) ||
        (a.index_n_heads > 0 && a.q_lora_rank == 0))
      fail("layer " + std::to_string(l) + " is not a block of the " + std::string(model_type) +
           " layout (RMSNorm; standard, latent, Mamba-2 or Gated DeltaNet mixer; dense or MoE FFN)");
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const auto& [rest, want] : hybrid_layer_tensors(f, b)) {
      const auto it = by_name.find(p + rest);
      const std::string name = pre + std::to_string(l) + "." + stored_rest(f, rest);
      if (it == by_name.end()) {
        if (want.second) fail("tensor '" + name + "' is missing from the checkpoint");
        continue;
      }
      if (it->second->shape != want.first)
        fail("tensor '" + name + "': shape " + shape_text(it->second->shape) + " disagrees with the config (expected " +
             shape_text(want.first) + ")");
    }
  }
  for (const tensor_entry& t : v.tensors) {
    const auto lr = layer_of(t.name);
    if (!lr) continue;
    if (lr->first >= std::int64_t(space.layers.size()))
      fail("tensor '" + stored[t.name] + "' is in layer " + std::to_string(lr->first) + " but the config has " +
           std::to_string(space.layers.size()) + " layers (a multi-token-prediction module, which nsc does not "
           "slice: remove its tensors from the checkpoint first)");
    if (!hybrid_layer_tensors(f, space.layers[std::size_t(lr->first)].base).count(lr->second))
      fail("tensor '" + stored[t.name] + "' (dtype " + t.dtype + ", shape " + shape_text(t.shape) + ") is not one the " +
           std::string(model_type) + " layout with this config names: nsc cannot prune it");
  }
}

/// The writer's last step for a hybrid family (the ops of a canonical checkpoint `in`): attention
/// copied whole (refused if the selection changes its heads), a layer whose only sublayer was a
/// removed recurrent mixer dropped and the later layers renumbered, every name stored as the input's.
inline void hybrid_outputs(const checkpoint& in, const family& f, const search::prune_space& space,
                           const std::vector<layer_keep>& sel, std::vector<tensor_op>& ops) {
  if (!f.hybrid) return;
  std::vector<std::int64_t> to(space.layers.size(), -1);
  std::int64_t next = 0;
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const layer_keep& k = sel[l];
    const block_spec& b = space.layers[l].base;
    if (!k.attention && !k.ffn && b.attention.recurrent()) continue; // the layer leaves the model
    to[l] = next++;
    if (k.attention && b.attention.kind == attention_kind::standard) {
      bool whole = std::int64_t(k.q_heads.size()) == b.attention.n_heads &&
                   std::int64_t(k.kv_groups.size()) == b.attention.kv_heads();
      for (std::size_t i = 0; whole && i < k.q_heads.size(); ++i) whole = k.q_heads[i] == std::int64_t(i);
      for (std::size_t j = 0; whole && j < k.kv_groups.size(); ++j)
        whole = k.kv_groups[j].size() == 1 && k.kv_groups[j][0] == std::int64_t(j);
      if (!whole)
        fail("layer " + std::to_string(l) + ": the " + std::string(f.model_type) +
             " layout keeps attention heads and KV heads whole (its output format, nsc, has no field for them)");
    }
  }
  const std::string pre = stored_layers(in, f);
  for (tensor_op& op : ops) {
    const auto lr = layer_of(op.out.name);
    if (!lr) continue;
    const auto [l, rest] = *lr;
    if (to[std::size_t(l)] < 0) fail("internal: a tensor of removed layer " + std::to_string(l) + " is written");
    if (rest.rfind("self_attn.", 0) == 0 || rest.rfind(f.ssm, 0) == 0) { // attention, MLA, indexers, mixers: whole
      op.rows.clear();
      op.cols.clear();
      op.out.shape = op.src->shape;
    }
    op.out.name = pre + std::to_string(to[std::size_t(l)]) + "." + stored_rest(f, rest);
  }
}

} // namespace detail::pc

/// The nested orders of a criterion, best first: the kept set of size n is the first n of an
/// order. Query heads for k new KV heads are listed round-robin over the k groups (see
/// detail::pc::round_robin), so the first h keep h / k heads of every group.
struct channel_orders {
  std::function<std::vector<std::int64_t>(std::size_t layer, std::int64_t kv_heads)> heads;
  std::function<std::vector<std::int64_t>(std::size_t layer)> channels;
  /// experts, when the experts keep `width` channels each
  std::function<std::vector<std::int64_t>(std::size_t layer, std::int64_t width)> experts;
  std::function<std::vector<std::int64_t>(std::size_t layer, std::int64_t expert)> expert_channels;
};

/// The magnitude criterion's orders (the file comment), read from `in` lazily (each call
/// streams the tensors it needs). Tensor names: the layout of model_type (layouts()).
inline channel_orders magnitude_orders(const checkpoint& in, const search::prune_space& space, std::string_view model_type) {
  namespace pc = detail::pc;
  const pc::family fam = pc::find_layout(model_type);
  auto by_layer = std::make_shared<std::vector<pc::layer_tensors>>(space.layers.size());
  for (const tensor_entry& t : in.tensors) {
    const auto lr = pc::layer_of(t.name);
    if (!lr) continue;
    if (lr->first >= std::int64_t(space.layers.size()))
      pc::fail("tensor '" + t.name + "' is in layer " + std::to_string(lr->first) + " but the config has " +
               std::to_string(space.layers.size()) + " layers");
    (*by_layer)[std::size_t(lr->first)][lr->second] = &t;
  }
  auto need = [by_layer](std::size_t l, const std::string& rest) -> const tensor_entry& {
    const auto it = (*by_layer)[l].find(rest);
    if (it == (*by_layer)[l].end())
      pc::fail("tensor 'model.layers." + std::to_string(l) + "." + rest + "' is missing from the checkpoint");
    return *it->second;
  };
  const search::prune_space* sp = &space;
  // squared row norms of a part (rows [row0, row0 + rows) of its tensor)
  auto part_rows = [need](std::size_t l, const pc::matrix_part& m) {
    std::vector<double> r, unused;
    pc::tensor_reader(need(l, m.rest)).square_norms(r, unused);
    if (m.rows > 0 && std::int64_t(r.size()) >= m.row0 + m.rows)
      r = std::vector<double>(r.begin() + m.row0, r.begin() + m.row0 + m.rows);
    return r;
  };
  auto channel_order = [need, sp, part_rows](std::size_t l, const pc::matrix_part& gate, const pc::matrix_part& up,
                                             const std::string& down) {
    const std::int64_t F = sp->layers[l].base.ffn.d_ff;
    std::vector<double> g, u, d, unused, imp(std::size_t(F), 1.0);
    if (!gate.rest.empty()) g = part_rows(l, gate);
    u = part_rows(l, up);
    pc::tensor_reader(need(l, down)).square_norms(unused, d);
    if (std::int64_t(u.size()) != F || std::int64_t(d.size()) != F || (!gate.rest.empty() && std::int64_t(g.size()) != F))
      pc::fail("layer " + std::to_string(l) + ": FFN matrices do not have " + std::to_string(F) + " channels");
    for (std::int64_t x = 0; x < F; ++x)
      imp[std::size_t(x)] = std::sqrt(u[std::size_t(x)]) * std::sqrt(d[std::size_t(x)]) *
                            (gate.rest.empty() ? 1.0 : std::sqrt(g[std::size_t(x)]));
    return pc::ranking(imp);
  };
  channel_orders o;
  o.heads = [need, sp, fam, part_rows](std::size_t l, std::int64_t k) {
    const block_spec& b = sp->layers[l].base;
    const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads(), hd = b.attention.head_size();
    std::vector<double> qr = part_rows(l, pc::part_of(fam, b, "q")), orow, ocol, imp(std::size_t(H), 0.0);
    pc::tensor_reader(need(l, "self_attn.o_proj.weight")).square_norms(orow, ocol);
    if (std::int64_t(qr.size()) != H * hd || std::int64_t(ocol.size()) != H * hd)
      pc::fail("layer " + std::to_string(l) + ": q_proj / o_proj do not have " + std::to_string(H * hd) + " head rows / columns");
    for (std::int64_t i = 0; i < H; ++i) {
      double q = 0, oo = 0;
      for (std::int64_t r = 0; r < hd; ++r) q += qr[std::size_t(i * hd + r)], oo += ocol[std::size_t(i * hd + r)];
      imp[std::size_t(i)] = std::sqrt(q) * std::sqrt(oo);
    }
    std::vector<std::vector<std::int64_t>> ranked;
    for (const auto& g : pc::kv_groups(K, k)) {
      const std::vector<std::int64_t> cand = pc::group_candidates(g, H / K);
      std::vector<double> s;
      for (std::int64_t i : cand) s.push_back(imp[std::size_t(i)]);
      std::vector<std::int64_t> r;
      for (std::int64_t t : pc::ranking(s)) r.push_back(cand[std::size_t(t)]);
      ranked.push_back(std::move(r));
    }
    return pc::round_robin(ranked);
  };
  o.channels = [channel_order, sp, fam](std::size_t l) {
    const block_spec& b = sp->layers[l].base;
    return channel_order(l, b.ffn.gated ? pc::part_of(fam, b, "gate") : pc::matrix_part{}, pc::part_of(fam, b, "up"),
                         "mlp.down_proj.weight");
  };
  o.experts = [need, fam, sp](std::size_t l, std::int64_t) {
    const std::int64_t E = sp->layers[l].base.ffn.n_experts;
    std::vector<double> imp(std::size_t(E), 1.0);
    for (std::int64_t x = 0; x < E; ++x) {
      double p = 1;
      for (std::string_view m : {fam.w_gate, fam.w_up, fam.w_down}) {
        std::vector<double> r, cc;
        pc::tensor_reader(need(l, fam.expert(x, m))).square_norms(r, cc);
        p *= std::sqrt(std::accumulate(r.begin(), r.end(), 0.0));
      }
      imp[std::size_t(x)] = p;
    }
    return pc::ranking(imp);
  };
  o.expert_channels = [channel_order, fam](std::size_t l, std::int64_t x) {
    return channel_order(l, {fam.expert(x, fam.w_gate)}, {fam.expert(x, fam.w_up)}, fam.expert(x, fam.w_down));
  };
  return o;
}

/// Which heads, KV heads, channels and experts of each layer survive in `c` (the file
/// comment's rule): the first entries of `orders` (magnitude_orders when null), kept in their
/// original order. Errors as in the file comment.
inline std::vector<layer_keep> select_channels(const checkpoint& in, std::string_view model_type,
                                               const search::prune_space& space, const search::prune_candidate& c,
                                               const prune_checkpoint_settings& settings = {},
                                               const channel_orders* orders = nullptr) {
  namespace pc = detail::pc;
  if (const pc::family f = pc::find_layout(model_type); pc::needs_view(f) && !pc::is_canonical(in, f, space))
    return select_channels(pc::hybrid_view(in, f, space), model_type, space, c, settings, orders); // stored names (issue 19i)
  if (c.layers.size() != space.layers.size())
    pc::fail("the candidate needs one choice per layer (" + std::to_string(space.layers.size()) + "), got " +
             std::to_string(c.layers.size()));
  const channel_orders mag = orders ? channel_orders{} : magnitude_orders(in, space, model_type);
  const channel_orders& ord = orders ? *orders : mag;
  auto first = [](const std::vector<std::int64_t>& order, std::int64_t n) {
    std::vector<std::int64_t> v(order.begin(), order.begin() + std::min<std::ptrdiff_t>(n, std::ptrdiff_t(order.size())));
    std::sort(v.begin(), v.end());
    return v;
  };
  std::vector<layer_keep> out(space.layers.size());
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const block_spec& b = space.layers[l].base;
    const search::prune_layer_choice& ch = c.layers[l];
    layer_keep& k = out[l];
    if (ch.lora_rank != 0) pc::fail("LoRA adapters (the LoNAS space) have no checkpoint: use --space generic");
    // attention
    k.attention = !ch.attention_none;
    if (k.attention && b.attention.attends()) { // a recurrent mixer (issue 19i): kept whole
      const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads();
      const std::int64_t h = ch.heads > 0 ? ch.heads : H, kk = ch.kv_heads > 0 ? ch.kv_heads : K;
      if (kk < 1 || kk > K || h % kk != 0)
        pc::fail("layer " + std::to_string(l) + ": " + std::to_string(kk) + " KV heads from " + std::to_string(K) +
                 " with " + std::to_string(h) + " query heads cannot be made by pooling (need 1 <= k <= K, k | h)");
      const std::int64_t G = H / K;
      k.kv_groups = pc::kv_groups(K, kk);
      const std::int64_t per = h / kk;
      for (std::int64_t j = 0; j < kk; ++j) {
        const std::vector<std::int64_t> cand = pc::group_candidates(k.kv_groups[std::size_t(j)], G);
        if (std::int64_t(cand.size()) < per)
          pc::fail("layer " + std::to_string(l) + ": new KV head " + std::to_string(j) + " pools " +
                   std::to_string(k.kv_groups[std::size_t(j)].size()) + " KV heads with " + std::to_string(cand.size()) +
                   " query heads, fewer than the " + std::to_string(per) + " it needs (h / k = " + std::to_string(h) +
                   " / " + std::to_string(kk) + ")");
      }
      const std::vector<std::int64_t> kept = h < H ? first(ord.heads(l, kk), h) : std::vector<std::int64_t>{};
      for (std::int64_t j = 0; j < kk; ++j)
        for (std::int64_t i : pc::group_candidates(k.kv_groups[std::size_t(j)], G))
          if (h == H || std::binary_search(kept.begin(), kept.end(), i)) k.q_heads.push_back(i);
    }
    // FFN
    k.ffn = !ch.ffn_none;
    if (k.ffn) {
      const std::int64_t F = b.ffn.d_ff, w = ch.ffn_width > 0 ? ch.ffn_width : F;
      std::vector<std::int64_t> all(static_cast<std::size_t>(w));
      std::iota(all.begin(), all.end(), 0);
      if (b.ffn.n_experts > 0) {
        const std::int64_t E = b.ffn.n_experts, e = ch.experts > 0 ? ch.experts : E;
        if (e < E) {
          k.experts = first(ord.experts(l, w), e);
        } else {
          k.experts.resize(std::size_t(E));
          std::iota(k.experts.begin(), k.experts.end(), 0);
        }
        for (std::int64_t x : k.experts) k.expert_channels.push_back(w < F ? first(ord.expert_channels(l, x), w) : all);
      } else {
        k.channels = w < F ? first(ord.channels(l), w) : all;
      }
    }
  }
  return out;
}

/// Refuses, before any search, a model_type or format write_pruned_checkpoint cannot write
/// (the same messages).
inline void check_prune_checkpoint_family(std::string_view model_type, search::prune_format format) {
  const detail::pc::family fam = detail::pc::find_layout(model_type);
  if (!fam.not_decilm.empty() && format == search::prune_format::decilm)
    detail::pc::fail("a " + std::string(model_type) + " checkpoint cannot be written in the decilm format (DeciLM's "
                     "blocks are llama's: " + std::string(fam.not_decilm) + "): use --emit-format per-layer or nsc");
}

/// Refuses a checkpoint whose layer tensors are not exactly those the family's layout names for
/// the space's model (a missing, unknown or mis-shaped tensor; the file comment's messages).
inline void check_prune_checkpoint_tensors(const checkpoint& in, std::string_view model_type,
                                           const search::prune_space& space) {
  namespace pc = detail::pc;
  const pc::family fam = pc::find_layout(model_type);
  if (fam.hybrid) return pc::check_hybrid_tensors(in, model_type, fam, space); // hybrid layers (issue 19i)
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const block_spec& b = space.layers[l].base;
    const attention_spec& at = b.attention;
    const bool mla = at.kind == attention_kind::latent && at.index_n_heads == 0;
    if ((at.kind != attention_kind::standard && !mla) || b.ffn.kind != ffn_kind::standard ||
        b.parallel.kind != attention_kind::none || (b.ffn.shared_d_ff > 0 && fam.shared.empty()) ||
        (b.ffn.shared_gate && fam.shared_gate.empty()) ||
        (b.ffn.router_bias && fam.router_bias.empty()) || b.norm != norm_kind::rmsnorm || b.n_norms != fam.norms())
      pc::fail("layer " + std::to_string(l) + " is not a standard (or latent) attention + FFN block with the " +
               std::to_string(fam.norms()) + " RMSNorms of the " + std::string(model_type) +
               " layout (the layouts nsc can slice)");
    if (at.qk_norm == qk_norm_kind::whole) // olmo2, olmoe: the norm's RMS runs over every head
      for (const auto& o : space.layers[l].attention)
        if (!o.none && o.heads > 0 && (o.heads < at.n_heads || o.kv_heads < at.kv_heads()))
          pc::fail("layer " + std::to_string(l) + "'s q_norm / k_norm normalise the whole projection (heads x head_dim), "
                   "so dropping or pooling heads would change the kept heads: search with every head kept (nsc prune "
                   "--head-step " + std::to_string(at.n_heads) + " --kv-heads-min " + std::to_string(at.kv_heads()) +
                   "; FFN widths, experts and removed sublayers stay free)");
    if (b.ffn.n_experts > 0 && !fam.has_moe())
      pc::fail("layer " + std::to_string(l) + ": the config's FFN kind does not match model_type '" +
               std::string(model_type) + "'");
  }
  for (const tensor_entry& t : in.tensors) // layers past the config's (DeepSeek-V3 / GLM-4.5 MTP modules)
    if (const auto lr = pc::layer_of(t.name); lr && lr->first >= std::int64_t(space.layers.size()))
      pc::fail("tensor '" + t.name + "' is in layer " + std::to_string(lr->first) + " but the config has " +
               std::to_string(space.layers.size()) + " layers (a multi-token-prediction module, which nsc does not "
               "slice: remove its tensors from the checkpoint first)");
  // Check every layer tensor (name and shape) before reading any data.
  std::map<std::string, const tensor_entry*> by_name;
  for (const tensor_entry& t : in.tensors) by_name[t.name] = &t;
  auto expect = [&](const std::string& name, std::vector<std::int64_t> shape, bool required) {
    const auto it = by_name.find(name);
    if (it == by_name.end()) {
      if (required) pc::fail("tensor '" + name + "' is missing from the checkpoint");
      return false;
    }
    if (it->second->shape != shape)
      pc::fail("tensor '" + name + "': shape " + pc::shape_text(it->second->shape) +
               " disagrees with the config (expected " + pc::shape_text(shape) + ")");
    return true;
  };
  std::set<std::string> known; // every layer tensor the layout names
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const block_spec& b = space.layers[l].base;
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const std::int64_t d = b.attention.d_model, H = b.attention.n_heads, K = b.attention.kv_heads(),
                       hd = b.attention.head_size(), F = b.ffn.d_ff;
    auto add = [&](const std::string& rest, std::vector<std::int64_t> shape, bool required) {
      if (expect(p + rest, std::move(shape), required)) known.insert(p + rest);
    };
    for (const auto& side : {fam.attn_norms, fam.ffn_norms})
      for (std::string_view n : side)
        if (!n.empty()) add(std::string(n) + ".weight", {d}, true);
    if (b.attention.kind == attention_kind::latent) { // MLA: kept whole (or removed) by the space
      const attention_spec& a = b.attention;
      const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
      if (a.q_lora_rank > 0) {
        add("self_attn.q_a_proj.weight", {a.q_lora_rank, d}, true);
        add("self_attn.q_a_proj.bias", {a.q_lora_rank}, false);
        add("self_attn.q_a_layernorm.weight", {a.q_lora_rank}, true);
        add("self_attn.q_b_proj.weight", {H * qk, a.q_lora_rank}, true);
      } else {
        add("self_attn.q_proj.weight", {H * qk, d}, true);
        add("self_attn.q_proj.bias", {H * qk}, false);
      }
      add("self_attn.kv_a_proj_with_mqa.weight", {a.kv_lora_rank + a.qk_rope_head_dim, d}, true);
      add("self_attn.kv_a_proj_with_mqa.bias", {a.kv_lora_rank + a.qk_rope_head_dim}, false);
      add("self_attn.kv_a_layernorm.weight", {a.kv_lora_rank}, true);
      add("self_attn.kv_b_proj.weight", {H * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank}, true);
      add("self_attn.o_proj.weight", {d, H * a.v_head_dim}, true);
      add("self_attn.o_proj.bias", {d}, false);
    } else {
      if (fam.fused_qkv) {
        add("self_attn.qkv_proj.weight", {(H + 2 * K) * hd, d}, true);
        add("self_attn.qkv_proj.bias", {(H + 2 * K) * hd}, b.attention.qkv_bias);
      } else {
        add("self_attn.q_proj.weight", {H * hd, d}, true);
        add("self_attn.k_proj.weight", {K * hd, d}, true);
        add("self_attn.v_proj.weight", {K * hd, d}, true);
        add("self_attn.q_proj.bias", {H * hd}, b.attention.qkv_bias);
        add("self_attn.k_proj.bias", {K * hd}, b.attention.qkv_bias);
        add("self_attn.v_proj.bias", {K * hd}, b.attention.qkv_bias);
      }
      add("self_attn.o_proj.weight", {d, H * hd}, true);
      add("self_attn.o_proj.bias", {d}, b.attention.out_bias);
      const bool whole = b.attention.qk_norm == qk_norm_kind::whole; // (H hd) and (K hd), else per head (hd)
      add(std::string(fam.q_norm) + ".weight", {whole ? H * hd : hd}, b.attention.qk_norm != qk_norm_kind::none);
      add(std::string(fam.k_norm) + ".weight", {whole ? K * hd : hd}, b.attention.qk_norm != qk_norm_kind::none);
      add("self_attn.rotary_emb.inv_freq", {hd / 2}, false);
    }
    if (b.ffn.n_experts > 0) {
      add(fam.router(), {b.ffn.n_experts, d}, true);
      for (std::int64_t e = 0; e < b.ffn.n_experts; ++e) {
        add(fam.expert(e, fam.w_gate), {F, d}, true);
        add(fam.expert(e, fam.w_up), {F, d}, true);
        add(fam.expert(e, fam.w_down), {d, F}, true);
      }
      if (b.ffn.router_bias) add(std::string(fam.router_bias), {b.ffn.n_experts}, true);
      if (b.ffn.shared_d_ff > 0) {
        const std::int64_t S = b.ffn.shared_d_ff;
        add(std::string(fam.shared) + "gate_proj.weight", {S, d}, true);
        add(std::string(fam.shared) + "up_proj.weight", {S, d}, true);
        add(std::string(fam.shared) + "down_proj.weight", {d, S}, true);
        if (b.ffn.shared_gate) add(std::string(fam.shared_gate), {1, d}, true);
      }
    } else if (fam.fused_gate_up) {
      add("mlp.gate_up_proj.weight", {2 * F, d}, true);
      add("mlp.down_proj.weight", {d, F}, true);
    } else {
      if (b.ffn.gated) add("mlp.gate_proj.weight", {F, d}, true);
      add("mlp.up_proj.weight", {F, d}, true);
      add("mlp.down_proj.weight", {d, F}, true);
      if (b.ffn.gated) add("mlp.gate_proj.bias", {F}, b.ffn.bias);
      add("mlp.up_proj.bias", {F}, b.ffn.bias);
      add("mlp.down_proj.bias", {d}, b.ffn.bias);
    }
  }
  for (const tensor_entry& t : in.tensors)
    if (const auto lr = pc::layer_of(t.name); lr && !known.count(t.name))
      pc::fail("tensor '" + t.name + "' (dtype " + t.dtype + ", shape " + pc::shape_text(t.shape) +
               ") is not one the " + std::string(model_type) + " layout with this config names: nsc cannot prune it");
}

/// `in` under the canonical layer names that select_channels, write_pruned_checkpoint and the
/// spectral criterion (nsc/io/prune_weights.hpp) read: `in` itself but for families stored under
/// another prefix or with one mixer per layer (nemotron_h: "backbone.layers.<L>.mixer.up_proj" is
/// "model.layers.<L>.mlp.up_proj"); the writer stores the output under the input's names.
inline checkpoint prune_checkpoint_view(const checkpoint& in, std::string_view model_type,
                                        const search::prune_space& space) {
  const detail::pc::family f = detail::pc::find_layout(model_type);
  return detail::pc::needs_view(f) ? detail::pc::hybrid_view(in, f, space) : in;
}

/// Result of write_pruned_checkpoint.
struct prune_checkpoint_result {
  std::vector<layer_keep> selection;
  std::vector<std::filesystem::path> files; ///< every file written
  std::size_t tensors = 0;                  ///< tensors written
  std::uint64_t bytes = 0;                  ///< their data bytes
};

/// Writes the checkpoint of candidate `c` of `space` (built from the config of model_type
/// `model_type` that `in` holds the weights of) into `out_dir`, with `config` as
/// out_dir/config.json (nsc::prune_emit_config's, already verified by the caller). See the file
/// comment for the rules, the errors and the memory.
inline prune_checkpoint_result write_pruned_checkpoint(const checkpoint& in, std::string_view model_type,
                                                       const search::prune_space& space,
                                                       const search::prune_candidate& c,
                                                       const nlohmann::json& config,
                                                       const std::filesystem::path& out_dir,
                                                       const prune_checkpoint_settings& settings = {}) {
  namespace pc = detail::pc;
  namespace fs = std::filesystem;
  check_prune_checkpoint_family(model_type, space.settings.format);
  const pc::family fam = pc::find_layout(model_type);
  check_prune_checkpoint_tensors(in, model_type, space);
  if (pc::needs_view(fam) && !pc::is_canonical(in, fam, space)) // hybrid layers' stored names (issue 19i)
    return write_pruned_checkpoint(pc::hybrid_view(in, fam, space), model_type, space, c, config, out_dir, settings);
  prune_checkpoint_result res;
  if (settings.criterion == channel_criterion::spectral && !settings.orders)
    pc::fail("the spectral criterion needs its orders (nsc/io/prune_weights.hpp: spectral_orders)");
  res.selection = select_channels(in, model_type, space, c, settings, settings.orders.get()); // may refuse: before anything is created
  // The output directory: new or empty.
  std::error_code ec;
  if (fs::exists(out_dir, ec)) {
    if (!fs::is_directory(out_dir, ec)) pc::fail(out_dir.string() + ": the output exists and is not a directory");
    if (fs::directory_iterator(out_dir, ec) != fs::directory_iterator())
      pc::fail(out_dir.string() + ": the output directory must be new or empty");
  } else if (!fs::create_directories(out_dir, ec) || ec) {
    pc::fail(out_dir.string() + ": cannot create the output directory (" + ec.message() + ")");
  }

  // The output tensors, in the input's order.
  std::vector<pc::tensor_op> ops;
  for (const tensor_entry& t : in.tensors) {
    pc::tensor_op op;
    op.src = &t;
    op.out = {t.name, t.dtype, t.shape};
    const auto lr = pc::layer_of(t.name);
    if (!lr) {
      ops.push_back(std::move(op));
      continue;
    }
    const auto [l, rest] = *lr;
    const layer_keep& k = res.selection[std::size_t(l)];
    const block_spec& b = space.layers[std::size_t(l)].base;
    const std::int64_t hd = b.attention.head_size();
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const auto is_norm = [](const std::string& name, const std::array<std::string_view, 2>& side) {
      for (std::string_view n : side)
        if (!n.empty() && name == std::string(n) + ".weight") return true;
      return false;
    };
    const bool attn = rest.rfind("self_attn.", 0) == 0 || is_norm(rest, fam.attn_norms);
    if (attn) {
      if (!k.attention) continue;
      if (b.attention.kind != attention_kind::standard) { // MLA: kept whole
        ops.push_back(std::move(op));
        continue;
      }
      std::vector<std::vector<std::int64_t>> qh;
      for (std::int64_t h : k.q_heads) qh.push_back({h});
      const std::int64_t nq = std::int64_t(k.q_heads.size()) * hd, nk = std::int64_t(k.kv_groups.size()) * hd;
      if (rest == "self_attn.qkv_proj.weight" || rest == "self_attn.qkv_proj.bias") { // [q; k; v] rows
        const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads();
        op.rows = pc::head_rows(qh, hd);
        for (const std::int64_t off : {H, H + K})
          for (std::vector<std::int64_t> r : pc::head_rows(k.kv_groups, hd)) {
            for (std::int64_t& x : r) x += off * hd;
            op.rows.push_back(std::move(r));
          }
        op.out.shape[0] = nq + 2 * nk;
      } else if (rest == "self_attn.q_proj.weight" || rest == "self_attn.q_proj.bias") {
        op.rows = pc::head_rows(qh, hd);
        op.out.shape[0] = nq;
      } else if (rest == "self_attn.k_proj.weight" || rest == "self_attn.k_proj.bias" ||
                 rest == "self_attn.v_proj.weight" || rest == "self_attn.v_proj.bias") {
        op.rows = pc::head_rows(k.kv_groups, hd);
        op.out.shape[0] = nk;
      } else if (rest == "self_attn.o_proj.weight") {
        op.cols = pc::head_cols(k.q_heads, hd);
        op.out.shape[1] = nq;
      }
      if (std::int64_t(op.rows.size()) == (t.shape.empty() ? 0 : t.shape[0])) { // identity rows: a copy
        bool id = true;
        for (std::size_t r = 0; r < op.rows.size() && id; ++r) id = op.rows[r].size() == 1 && op.rows[r][0] == std::int64_t(r);
        if (id) op.rows.clear();
      }
      if (t.shape.size() == 2 && std::int64_t(op.cols.size()) == t.shape[1]) {
        bool id = true;
        for (std::size_t r = 0; r < op.cols.size() && id; ++r) id = op.cols[r] == std::int64_t(r);
        if (id) op.cols.clear();
      }
      ops.push_back(std::move(op));
      continue;
    }
    // FFN side
    if (!k.ffn) continue;
    const std::int64_t F = b.ffn.d_ff;
    auto narrow = [&](const std::vector<std::int64_t>& ch, bool by_rows) {
      if (std::int64_t(ch.size()) == F) return; // every channel: a copy
      if (by_rows) {
        op.rows = pc::singletons(ch);
        op.out.shape[0] = std::int64_t(ch.size());
      } else {
        op.cols = ch;
        op.out.shape[1] = std::int64_t(ch.size());
      }
    };
    if (fam.fused_gate_up && rest == "mlp.gate_up_proj.weight" && b.ffn.n_experts == 0) { // [gate; up] rows
      if (std::int64_t(k.channels.size()) != F) {
        op.rows = pc::singletons(k.channels);
        for (std::int64_t ch : k.channels) op.rows.push_back({F + ch});
        op.out.shape[0] = 2 * std::int64_t(k.channels.size());
      }
    } else if (b.ffn.n_experts > 0) {
      if (rest == fam.router() || (!fam.router_bias.empty() && rest == fam.router_bias)) { // rows = experts
        if (std::int64_t(k.experts.size()) != b.ffn.n_experts) {
          op.rows = pc::singletons(k.experts);
          op.out.shape[0] = std::int64_t(k.experts.size());
        }
      } else if (const auto ex = pc::expert_of(rest, fam.moe)) {
        const auto it = std::find(k.experts.begin(), k.experts.end(), ex->first);
        if (it == k.experts.end()) continue;
        const std::size_t pos = std::size_t(it - k.experts.begin());
        op.out.name = p + std::string(fam.moe) + "experts." + std::to_string(pos) + "." + ex->second;
        narrow(k.expert_channels[pos], ex->second != std::string(fam.w_down) + ".weight");
      } // the shared expert(s) and the shared gate: copied whole
    } else if (rest == "mlp.gate_proj.weight" || rest == "mlp.up_proj.weight" || rest == "mlp.gate_proj.bias" ||
               rest == "mlp.up_proj.bias") {
      narrow(k.channels, true);
    } else if (rest == "mlp.down_proj.weight") {
      narrow(k.channels, false);
    }
    ops.push_back(std::move(op));
  }
  pc::hybrid_outputs(in, fam, space, res.selection, ops); // hybrid layers (issue 19i)
  std::vector<written_tensor> decl;
  for (const auto& op : ops) decl.push_back(op.out);
  const shard_plan plan = plan_shards(decl, settings.shard_bytes);
  for (std::size_t s = 0; s < plan.shards.size(); ++s) {
    std::vector<written_tensor> sub;
    for (std::size_t i : plan.shards[s]) sub.push_back(decl[i]);
    const fs::path f = out_dir / plan.files[s];
    safetensors_file_writer w(f, std::move(sub));
    for (std::size_t i : plan.shards[s]) pc::run_op(ops[i], w);
    w.finish();
    res.files.push_back(f);
  }
  res.tensors = decl.size();
  res.bytes = plan.total_bytes;
  auto write_json = [&](const fs::path& f, const nlohmann::json& j) {
    const std::string text = j.dump(2) + "\n";
    std::FILE* fp = std::fopen(f.string().c_str(), "wb");
    if (!fp) throw std::runtime_error(std::string(pc::fn) + ": cannot open " + f.string() + " for writing");
    const bool ok = std::fwrite(text.data(), 1, text.size(), fp) == text.size();
    const bool ok_close = std::fclose(fp) == 0;
    if (!ok || !ok_close) throw std::runtime_error(std::string(pc::fn) + ": writing " + f.string() + " failed");
    res.files.push_back(f);
  };
  write_json(out_dir / "model.safetensors.index.json", safetensors_index(decl, plan));
  write_json(out_dir / "config.json", config);
  write_json(out_dir / "nsc_prune.json", selection_json(res.selection, settings.criterion));
  if (settings.copy_tokenizer && fs::is_directory(in.root, ec))
    for (const char* name : {"tokenizer.json", "tokenizer_config.json", "tokenizer.model", "special_tokens_map.json",
                             "generation_config.json", "vocab.json", "merges.txt"}) {
      const fs::path src = in.root / name;
      if (!fs::is_regular_file(src, ec)) continue;
      fs::copy_file(src, out_dir / name, ec);
      if (ec) throw std::runtime_error(std::string(pc::fn) + ": copying " + src.string() + " failed: " + ec.message());
      res.files.push_back(out_dir / name);
    }
  return res;
}

} // namespace nsc::io

#endif // NSC_IO_PRUNE_CHECKPOINT_HPP
