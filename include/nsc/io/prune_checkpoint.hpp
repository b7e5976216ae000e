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
/// DeepSeek's MoE); hunyuan_v1_moe (router mlp.gate.wg, mlp.experts.<e>.*, mlp.shared_mlp kept
/// whole, query_layernorm / key_layernorm); ernie4_5_moe (router mlp.gate, its bias
/// mlp.moe_statics.e_score_correction_bias [1, E] sliced by columns (family::router_bias_row),
/// mlp.experts.<e>.* with use_bias: gate / up biases sliced with the channels, down's kept;
/// mlp.shared_experts kept whole; dense layers outside the MoE range); fused 3-D experts, one tensor per matrix holding every expert (family fields
/// x3_*): gpt_oss (mlp.experts.gate_up_proj [E, d, 2F], gate = even and up = odd columns, with
/// gate_up_proj_bias [E, 2F]; down_proj [E, F, d] with down_proj_bias [E, d]; router
/// mlp.router.weight / bias; self_attn.sinks [H] sliced with the query heads; q/k/v/o biases),
/// granitemoe (block_sparse_moe.input_linear.weight [E, 2F, d] = [gate; up] rows,
/// output_linear.weight [E, d, F], router block_sparse_moe.router.layer.weight), llama4_text and the
/// llama4 wrapper's decoder under "language_model.model.layers." (feed_forward.* read as mlp.*:
/// experts.gate_up_proj [E, d, 2F] = [gate | up] columns, experts.down_proj [E, F, d], router
/// (E, d), shared_expert kept whole; dense layers' gate / up / down of intermediate_size_mlp
/// narrowed; NoPE, chunked and L2-normed attention has llama's tensors). They are sliced
/// expert by expert, a few rows at a time (detail::pc::fused_matrix, fused_op): a dropped expert
/// is a slice of the leading axis, a narrower one keeps its channels' rows or columns. MXFP4
/// experts (gpt_oss as released: <name>_blocks U8 [E, out, in / 32, 16], <name>_scales U8
/// [E, out, in / 32], value = e2m1 x 2^(scale - 127)) are decoded for their importances and
/// copied byte for byte; narrowing them is refused (down_proj's 32-value blocks run along the
/// expert width): "tensor '...down_proj_blocks': the experts are MXFP4, ... search with
/// --keep-expert-width". Families under their own names (one mapping for every family,
/// family::layer_prefix and its one table family::renames: every layer tensor is read under its
/// canonical, llama, name, family::canonical, and written under its stored one, family::own):
/// starcoder2 (LayerNorm weight and bias, norm_bias; q/k/v/o biases; mlp.c_fc / c_proj without a
/// gate), gpt_neox (gpt_neox.layers.<L>.attention.query_key_value per head [q; k; v], attention.dense,
/// mlp.dense_h_to_4h / dense_4h_to_h; mha_only: one KV head per query head, so a space pooling KV
/// heads is refused with the flags that keep them), falcon (transformer.h.<L>.self_attention.
/// query_key_value in KV-group order, ln_attn / ln_mlp or input_layernorm / post_attention_layernorm,
/// or falcon-7b's one input_layernorm shared by the parallel block), opt (model.decoder.layers.<L>.self_attn.out_proj,
/// fc1 / fc2, self_attn_layer_norm / final_layer_norm), internlm2 (attention.wqkv in KV-group order,
/// attention.wo, feed_forward.w1 / w3 / w2, attention_norm / ffn_norm), gpt2 (transformer.h.<L>.,
/// Conv1D weights stored (in, out): FFN channels are mlp.c_fc's columns and mlp.c_proj's rows;
/// attn.c_attn / c_proj kept whole, heads kept; magnitude only). A KV-group-fused q/k/v
/// (qkv_grouped) holds per KV head its G query heads' rows, then its key's, then its value's; it is
/// written in the same order for the kept heads (pooled K / V rows per new group). An optional bias
/// is sliced with its rows (q/k/v, up); an output projection's bias (o_proj, down_proj) is kept
/// whole; a LayerNorm's bias goes with its weight.
/// Hybrid layers (family::hybrid; detail::pc::hybrid_*; the nsc format, whose space keeps
/// attention heads and mixers whole): nemotron_h (one mixer per layer, "backbone.layers.<L>.norm" and
/// "mixer.*" read, by family::renames restricted to mixer or MLP-only layers, as input_layernorm / self_attn.* or
/// post_attention_layernorm / mlp.*; a removed Mamba-2 layer leaves the checkpoint and the later layers are renumbered, as
/// hybrid_override_pattern), qwen3_next and qwen3_5_moe_text (Gated DeltaNet linear_attn.* and the gated
/// q_proj kept whole; Qwen3.5 under "model.language_model.layers."), falcon_h1 (mamba.* beside the
/// attention kept whole, feed_forward.* read as mlp.*), granitemoehybrid without experts (mamba.* or
/// self_attn.* kept whole, shared_mlp.input_linear / output_linear read as mlp.gate_up_proj / down_proj;
/// with experts, block_sparse_moe's fused experts as granitemoe's and the shared_mlp their shared
/// expert, kept whole: family::shared_fused), deepseek_v32 and glm_moe_dsa (the DSA
/// self_attn.indexer.* kept whole with the latent attention); every tensor is written back under its
/// stored name. Parallel blocks with one shared norm (issue 19j; the space's shared_norms): cohere
/// and cohere2 (llama's names, one input_layernorm (weight only) before the parallel attention and
/// MLP; cohere's q_norm / k_norm (use_qk_norm) of shape (heads, head_dim) / (KV heads, head_dim), one
/// row per head: q_norm's rows sliced with the kept query heads, k_norm kept whole, a space pooling
/// KV heads refused with the flag that keeps them) and falcon-7b: the shared norm is kept while
/// either sublayer is and removed with the second. phimoe: mixtral's expert names with LayerNorm
/// (weight and bias) and q/k/v/o biases; its lm_head.bias is copied with the head.
/// Any other model_type is refused by name, naming the supported ones. Tensors
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
#include <nsc/io/hf_config.hpp>
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

/// Which layers a family::renames entry applies to (every layer; those with a mixer, attention side
/// present; the MLP-only ones: nemotron_h's one mixer per layer).
enum class rename_layers { every, mixer, mlp_only };

/// One entry of family::renames: canonical (llama's) and stored module names.
struct rename {
  std::string_view canonical, own;
  rename_layers layers = rename_layers::every;
  bool applies(const block_spec* b) const; ///< to a layer with block b (null: past the config's)
};

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
  /// The prefix of a Mamba-2 mixer's tensors (canonical: nemotron_h's "self_attn." = "mixer.").
  std::string_view ssm = "self_attn.";
  /// The prefix of a Gated DeltaNet mixer's tensors (qwen3_next: "linear_attn."); split: Qwen3.5's
  /// in_proj_qkv / in_proj_z / in_proj_b / in_proj_a instead of in_proj_qkvz / in_proj_ba.
  std::string_view deltanet = "linear_attn.";
  bool deltanet_split = false;
  bool has_moe() const { return !moe.empty(); }
  std::string expert(std::int64_t x, std::string_view m) const {
    return std::string(moe) + "experts." + std::to_string(x) + "." + std::string(m) + ".weight";
  }
  std::string router() const { return router_weight.empty() ? std::string(moe) + "gate.weight" : std::string(router_weight); }
  std::int64_t norms() const {
    std::int64_t n = 0;
    for (const auto& a : {attn_norms, ffn_norms})
      for (std::string_view x : a) n += !x.empty();
    return n;
  }
  // --- Fused 3-D experts (gpt_oss, granitemoe): one tensor per matrix holding every expert,
  // sliced expert by expert (fused_layer below; the file comment) ---
  /// The gate + up tensor of every expert under "model.layers.<L>." ("": per-expert tensors):
  /// gpt_oss "mlp.experts.gate_up_proj" [E, d, 2F], granitemoe
  /// "block_sparse_moe.input_linear.weight" [E, 2F, d]; MXFP4: <name>_blocks / <name>_scales.
  std::string_view x3_gate_up = "";
  std::string_view x3_down = ""; ///< the down tensor: [E, F, d] (inputs first) or [E, d, F]
  bool x3_inputs_first = false;  ///< [E, d, 2F] / [E, F, d] (y = x W_e: gpt_oss); else Linear's [E, 2F, d] / [E, d, F]
  bool x3_interleaved = false;   ///< gate = the even, up = the odd of the 2F (gpt_oss); else [gate; up] halves
  bool x3_bias = false;          ///< <gate_up>_bias [E, 2F] and <down>_bias [E, d] (gpt_oss)
  std::string_view router_weight = ""; ///< the router's (E, d) weight when not <moe>gate.weight
  /// The per-query-head attention sink logits [H] ("self_attn.sinks", gpt_oss), sliced with the query heads.
  std::string_view sinks = "";
  bool fused_experts() const { return !x3_gate_up.empty(); }
  // --- Stored names (every family not stored under llama's names: starcoder2, gpt_neox, falcon,
  // opt, internlm2, gpt2, nemotron_h, falcon_h1, granitemoehybrid, Qwen3.5). The one mapping: the
  // code reads every layer tensor under its canonical (llama) name, canonical(), and writes it
  // under its stored name, own(). ---
  /// The stored layer prefix ("model.layers."; gpt_neox "gpt_neox.layers.", falcon "transformer.h.",
  /// opt "model.decoder.layers.", nemotron_h "backbone.layers.", Qwen3.5 "model.language_model.layers.").
  /// Layer tensors under the canonical "model.layers." are read too (a checkpoint already under the
  /// canonical names, or a text-only export) and written back under the prefix they were read under.
  std::string_view layer_prefix = "model.layers.";
  /// {canonical, own[, layers]} module names after the layer prefix (".weight" / ".bias" / more
  /// follow), e.g. starcoder2 {"mlp.up_proj", "mlp.c_fc"}, falcon_h1 {"mlp", "feed_forward"}; the
  /// first that matches (at a '.') is applied. Several own names may share a canonical one (falcon's
  /// ln_attn or input_layernorm); messages name the first. `layers` restricts a rename to the layers
  /// with a mixer (attention side) or to the MLP-only ones (nemotron_h's one mixer per layer:
  /// "norm" / "mixer" are input_layernorm / self_attn on a mixer layer, post_attention_layernorm /
  /// mlp on an MLP layer).
  std::vector<rename> renames = {};
  /// Fused q/k/v in KV-group order (canonical "self_attn.qkv_grouped"): for each KV head x the
  /// head_dim rows of its G = H / K query heads, then its key head, then its value head (falcon:
  /// G = H with multi_query, 1 without, H / num_kv_heads with new_decoder_architecture;
  /// gpt_neox: G = 1), written in the same order for the kept heads.
  bool qkv_grouped = false;
  /// One KV head per query head in the architecture (gpt_neox; falcon without multi_query or the
  /// new decoder architecture): a space whose attention options pool KV heads apart from the
  /// query heads is refused. Falcon with multi_query has one KV head (kept).
  bool mha_only = false;
  /// LayerNorm: every norm (attn_norms, ffn_norms) has a bias (d), kept or removed with it.
  bool norm_bias = false;
  /// Buffers some checkpoints hold beside the attention, copied whole with it (canonical
  /// names after "self_attn.", any shape): gpt_neox's attention.bias / masked_bias.
  std::vector<std::string_view> attn_buffers = {};
  /// Conv1D storage (gpt2): every 2-D layer weight is stored transposed, (in, out); FFN channels are
  /// c_fc's columns and c_proj's rows. Heads are kept (a space cutting them is refused), and the
  /// spectral criterion / --score weights are refused.
  bool transposed = false;
  /// DeciLM blocks (nemotron-nas, issue 19k): a layer's attention or FFN may be absent (no_op: no
  /// tensors, no norm) or one (d, d) Linear kept whole ("self_attn.linear_attn", "mlp.linear_mlp":
  /// replace_with_linear), beside llama's blocks of per-layer KV heads and FFN widths.
  bool decilm_blocks = false;
  /// Per-layer buffers (names after the layer prefix, any shape) kept whole while either sublayer of
  /// their layer is (gemma4's layer_scalar, which scales the layer's output: a layer with both
  /// sublayers removed is the identity and loses it); optional in the checkpoint.
  std::vector<std::string_view> layer_buffers = {};
  /// The canonical rest ("<llama's module>.<weight | bias>") of the stored rest of a tensor of a
  /// layer with block `b` (null: a layer past the config's, renames for every layer only).
  std::string canonical_rest(const block_spec* b, const std::string& rest) const;
  /// The stored rest of a canonical rest (canonical_rest's inverse).
  std::string own_rest(const block_spec* b, const std::string& rest) const;
  /// The canonical full name ("model.layers.<L>.<canonical rest>") of a stored tensor name of this
  /// family in a model of `space`'s layers; names outside the layers are returned as they are.
  std::string canonical(const std::string& name, const search::prune_space& space) const;
  /// The stored name of canonical full name `c` (the inverse of canonical()), under `prefix`
  /// ("": layer_prefix; stored_prefix() of the checkpoint).
  std::string own(const std::string& c, const search::prune_space& space, std::string_view prefix = "") const;
  /// The prefix `name` is stored under ("": not a layer tensor's).
  std::string_view prefix_of(const std::string& name) const;
  /// The layer prefix checkpoint `in` uses: layer_prefix, or "model.layers." when only that is used.
  std::string_view stored_prefix(const checkpoint& in) const;
  // --- issue 19j: parallel blocks with one shared norm (cohere, cohere2, falcon-7b), per-head q/k norm rows ---
  /// q_norm / k_norm weights of shape (heads, head_dim) and (KV heads, head_dim) (cohere's
  /// CohereLayerNorm normalises each head over head_dim with that head's own weight row): the
  /// q_norm rows are sliced with the kept query heads, k_norm is kept whole (pooling KV heads is
  /// refused: the mean of a group's keys has no k_norm row that gives the group's normalised keys).
  bool qk_norm_head_rows = false;
  // --- issue 19l: MoE layouts with a [1, E] router bias and biased experts ---
  /// The router bias is stored [1, E] (ernie4_5_moe's mlp.moe_statics.e_score_correction_bias: one
  /// group of E), sliced by columns with the kept experts; else [E], sliced by rows.
  bool router_bias_row = false;
  /// The shared expert is stored fused: <shared>gate_up_proj = [gate; up] rows (2S, d) and <shared>down_proj
  /// (d, S), kept whole (granitemoehybrid's shared_mlp beside its experts, under the canonical names of its
  /// dense case: shared "mlp."); else <shared>{gate,up,down}_proj.
  bool shared_fused = false;
};

/// Parses "<L>.<rest>" at `name`'s position `at`: the layer and the rest, or nullopt.
inline std::optional<std::pair<std::int64_t, std::string>> layer_rest(const std::string& name, std::size_t at) {
  std::size_t i = at;
  std::int64_t l = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && i - at < 9) l = l * 10 + (name[i++] - '0');
  if (i == at || i >= name.size() || name[i] != '.') return std::nullopt;
  return std::pair{l, name.substr(i + 1)};
}

inline bool rename::applies(const block_spec* b) const {
  if (layers == rename_layers::every) return true;
  return b && (b->attention.kind == attention_kind::none) == (layers == rename_layers::mlp_only);
}

inline std::string family::canonical_rest(const block_spec* b, const std::string& rest) const {
  for (const rename& r : renames)
    if (rest.size() > r.own.size() && rest.compare(0, r.own.size(), r.own) == 0 && rest[r.own.size()] == '.' && r.applies(b))
      return std::string(r.canonical) + rest.substr(r.own.size());
  return rest;
}

inline std::string family::own_rest(const block_spec* b, const std::string& rest) const {
  for (const rename& r : renames)
    if (rest.size() > r.canonical.size() && rest.compare(0, r.canonical.size(), r.canonical) == 0 &&
        rest[r.canonical.size()] == '.' && r.applies(b))
      return std::string(r.own) + rest.substr(r.canonical.size());
  return rest;
}

inline std::string_view family::prefix_of(const std::string& name) const {
  if (name.rfind(layer_prefix, 0) == 0) return layer_prefix;
  if (name.rfind("model.layers.", 0) == 0) return "model.layers.";
  return "";
}

inline std::string_view family::stored_prefix(const checkpoint& in) const {
  bool canonical_only = false;
  for (const tensor_entry& t : in.tensors) {
    if (t.name.rfind(layer_prefix, 0) == 0) return layer_prefix;
    canonical_only = canonical_only || t.name.rfind("model.layers.", 0) == 0;
  }
  return canonical_only ? "model.layers." : layer_prefix;
}

inline std::string family::canonical(const std::string& name, const search::prune_space& space) const {
  if (layer_prefix == "model.layers." && renames.empty()) return name;
  const std::string_view p = prefix_of(name);
  if (p.empty()) return name;
  const auto lr = layer_rest(name, p.size());
  if (!lr) return name;
  const block_spec* b = lr->first < std::int64_t(space.layers.size()) ? &space.layers[std::size_t(lr->first)].base : nullptr;
  return "model.layers." + std::to_string(lr->first) + "." + canonical_rest(b, lr->second);
}

inline std::string family::own(const std::string& c, const search::prune_space& space, std::string_view prefix) const {
  if (layer_prefix == "model.layers." && renames.empty()) return c;
  constexpr std::string_view p = "model.layers.";
  if (c.rfind(p, 0) != 0) return c;
  const auto lr = layer_rest(c, p.size());
  if (!lr) return c;
  const block_spec* b = lr->first < std::int64_t(space.layers.size()) ? &space.layers[std::size_t(lr->first)].base : nullptr;
  return std::string(prefix.empty() ? layer_prefix : prefix) + std::to_string(lr->first) + "." + own_rest(b, lr->second);
}

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
    // fused 3-D experts
    family gpt_oss{.model_type = "gpt_oss", .moe = "mlp.", .router_bias = "mlp.router.bias",
                   .not_decilm = "no attention sinks, biases or MoE block"};
    gpt_oss.x3_gate_up = "mlp.experts.gate_up_proj";
    gpt_oss.x3_down = "mlp.experts.down_proj";
    gpt_oss.x3_inputs_first = gpt_oss.x3_interleaved = gpt_oss.x3_bias = true;
    gpt_oss.router_weight = "mlp.router.weight";
    gpt_oss.sinks = "self_attn.sinks";
    v.push_back(gpt_oss);
    family granitemoe{.model_type = "granitemoe", .moe = "block_sparse_moe.", .not_decilm = moe_why};
    granitemoe.x3_gate_up = "block_sparse_moe.input_linear.weight";
    granitemoe.x3_down = "block_sparse_moe.output_linear.weight";
    granitemoe.router_weight = "block_sparse_moe.router.layer.weight";
    v.push_back(granitemoe);
    // Own names and storage: LayerNorm (weight and bias), biases, a GELU MLP without gate.
    constexpr std::string_view ln_why = "no LayerNorm, biases or GELU MLP without gate";
    family starcoder2{.model_type = "starcoder2", .not_decilm = ln_why}; // Starcoder2MLP c_fc / c_proj, q/k/v/o biases
    starcoder2.renames = {{"mlp.up_proj", "mlp.c_fc"}, {"mlp.down_proj", "mlp.c_proj"}};
    starcoder2.norm_bias = true;
    v.push_back(starcoder2);
    // GPTNeoXLayer: attention.query_key_value = per head [q_h; k_h; v_h] (KV groups of one head),
    // attention.dense, mlp.dense_h_to_4h / dense_4h_to_h; parallel residual or not (same tensors)
    family neox{.model_type = "gpt_neox", .not_decilm = "no fused query_key_value, LayerNorm, biases or GELU MLP"};
    neox.layer_prefix = "gpt_neox.layers.";
    neox.renames = {{"self_attn.qkv_grouped", "attention.query_key_value"}, {"self_attn.o_proj", "attention.dense"},
                    {"mlp.up_proj", "mlp.dense_h_to_4h"}, {"mlp.down_proj", "mlp.dense_4h_to_h"}, {"self_attn", "attention"}};
    neox.qkv_grouped = neox.mha_only = neox.norm_bias = true;
    neox.attn_buffers = {"bias", "masked_bias"}; // older checkpoints' causal-mask buffers
    v.push_back(neox);
    // FalconDecoderLayer: self_attention.query_key_value in KV-group order (multi_query: [q; k; v];
    // new_decoder_architecture: per KV head its query heads, key, value), self_attention.dense,
    // mlp.dense_h_to_4h / dense_4h_to_h; ln_attn / ln_mlp (new architecture) or input_layernorm /
    // post_attention_layernorm; one input_layernorm shared by a parallel block is refused (n_norms)
    family falcon{.model_type = "falcon", .not_decilm = "no fused query_key_value, LayerNorm or parallel attention + MLP"};
    falcon.layer_prefix = "transformer.h.";
    falcon.renames = {{"self_attn.qkv_grouped", "self_attention.query_key_value"}, {"self_attn.o_proj", "self_attention.dense"},
                      {"mlp.up_proj", "mlp.dense_h_to_4h"}, {"mlp.down_proj", "mlp.dense_4h_to_h"},
                      {"input_layernorm", "ln_attn"}, {"post_attention_layernorm", "ln_mlp"}};
    falcon.qkv_grouped = falcon.norm_bias = true;
    v.push_back(falcon);
    // OPTDecoderLayer: self_attn.q/k/v_proj, out_proj, fc1 / fc2, self_attn_layer_norm / final_layer_norm
    family opt{.model_type = "opt", .not_decilm = ln_why};
    opt.layer_prefix = "model.decoder.layers.";
    opt.renames = {{"self_attn.o_proj", "self_attn.out_proj"}, {"mlp.up_proj", "fc1"}, {"mlp.down_proj", "fc2"},
                   {"input_layernorm", "self_attn_layer_norm"}, {"post_attention_layernorm", "final_layer_norm"}};
    opt.norm_bias = true;
    v.push_back(opt);
    // InternLM2 (remote code InternLM2ForCausalLM): attention.wqkv in KV-group order (per KV head: its
    // query heads, key, value), attention.wo, feed_forward.w1 / w3 / w2, attention_norm / ffn_norm
    family internlm2{.model_type = "internlm2", .not_decilm = "no fused wqkv or q/k/v/o biases"};
    internlm2.renames = {{"self_attn.qkv_grouped", "attention.wqkv"}, {"self_attn.o_proj", "attention.wo"},
                         {"mlp.gate_proj", "feed_forward.w1"}, {"mlp.up_proj", "feed_forward.w3"},
                         {"mlp.down_proj", "feed_forward.w2"}, {"input_layernorm", "attention_norm"},
                         {"post_attention_layernorm", "ffn_norm"}, {"self_attn", "attention"}};
    internlm2.qkv_grouped = true;
    v.push_back(internlm2);
    // GPT2Block: Conv1D weights stored (in, out): attn.c_attn = [q | k | v] columns, attn.c_proj,
    // mlp.c_fc / c_proj; ln_1 / ln_2; older checkpoints' attn.bias / masked_bias buffers
    family gpt2{.model_type = "gpt2", .fused_qkv = true, .not_decilm = "no Conv1D weights, LayerNorm, biases or GELU MLP"};
    gpt2.layer_prefix = "transformer.h.";
    gpt2.renames = {{"self_attn.qkv_proj", "attn.c_attn"}, {"self_attn.o_proj", "attn.c_proj"}, {"mlp.up_proj", "mlp.c_fc"},
                    {"mlp.down_proj", "mlp.c_proj"}, {"input_layernorm", "ln_1"}, {"post_attention_layernorm", "ln_2"},
                    {"self_attn", "attn"}};
    gpt2.norm_bias = gpt2.transposed = true;
    gpt2.attn_buffers = {"bias", "masked_bias"};
    v.push_back(gpt2);
    // Hybrid layers (issue 19i; detail::pc::hybrid_*): Mamba-2 / Gated DeltaNet mixers kept whole or
    // removed, attention kept whole, the FFNs and experts sliced as the families above.
    // nemotron_h: one mixer per layer, "<L>.norm" and "<L>.mixer.*" (relu2 MLP: mixer.up_proj, down_proj)
    family nemotron_h{.model_type = "nemotron_h", .not_decilm = "no Mamba-2 layers", .hybrid = true};
    nemotron_h.layer_prefix = "backbone.layers.";
    nemotron_h.renames = {{"input_layernorm", "norm", rename_layers::mixer}, {"self_attn", "mixer", rename_layers::mixer},
                          {"post_attention_layernorm", "norm", rename_layers::mlp_only},
                          {"mlp", "mixer", rename_layers::mlp_only}};
    v.push_back(nemotron_h);
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
    family falcon_h1{.model_type = "falcon_h1", .not_decilm = "no parallel Mamba-2 mixer", .hybrid = true, .ssm = "mamba."};
    falcon_h1.ffn_norms = {"pre_ff_layernorm", ""};
    falcon_h1.renames = {{"mlp", "feed_forward"}};
    v.push_back(falcon_h1);
    // granitemoehybrid: Mamba-2 ("mamba.*") or attention layers, each with the fused gated
    // shared_mlp narrowed (input_linear = [gate; up] rows, output_linear)
    family granite_h{.model_type = "granitemoehybrid", .fused_gate_up = true, .not_decilm = "no Mamba-2 layers",
                     .hybrid = true, .ssm = "mamba."};
    granite_h.renames = {{"mlp.gate_up_proj", "shared_mlp.input_linear"}, {"mlp.down_proj", "shared_mlp.output_linear"}};
    // with experts (granite-4.0-h-small): block_sparse_moe's fused experts as granitemoe's, the shared_mlp (read as
    // mlp.gate_up_proj / mlp.down_proj, as in the dense case) their shared expert, kept whole
    granite_h.moe = "block_sparse_moe.";
    granite_h.x3_gate_up = "block_sparse_moe.input_linear.weight";
    granite_h.x3_down = "block_sparse_moe.output_linear.weight";
    granite_h.router_weight = "block_sparse_moe.router.layer.weight";
    granite_h.shared = "mlp.";
    granite_h.shared_fused = true;
    v.push_back(granite_h);
    // Qwen3.5 (the text decoder of qwen3_5 / qwen3_5_moe): qwen3_next's layers under model.language_model.*
    // (the vision tower and MTP tensors copied), Gated DeltaNet's split in_proj_qkv / in_proj_z / in_proj_b / in_proj_a
    family qwen3_5_moe{.model_type = "qwen3_5_moe_text", .moe = "mlp.", .shared = "mlp.shared_expert.",
                       .shared_gate = "mlp.shared_expert_gate.weight", .not_decilm = "no Gated DeltaNet layers", .hybrid = true,
                       .deltanet_split = true};
    qwen3_5_moe.layer_prefix = "model.language_model.layers.";
    v.push_back(qwen3_5_moe);
    // issue 19j. cohere / cohere2: llama's tensor names, one input_layernorm (weight only) before the parallel
    // attention and MLP (shared: kept while either sublayer is, prune_shared_norm_kept); cohere's q_norm / k_norm
    // (use_qk_norm) one row per head
    family cohere{.model_type = "cohere", .not_decilm = "no parallel attention + MLP after one shared norm"};
    cohere.ffn_norms = {"", ""};
    cohere.qk_norm_head_rows = true;
    v.push_back(cohere);
    family cohere2 = cohere;
    cohere2.model_type = "cohere2";
    v.push_back(cohere2);
    // phimoe: mixtral's names (block_sparse_moe.gate, experts.<e>.w1 / w3 / w2), LayerNorm weight and bias, q/k/v/o
    // biases (o_proj's kept whole), lm_head.bias copied with the head
    family phimoe{.model_type = "phimoe", .moe = "block_sparse_moe.", .w_gate = "w1", .w_up = "w3", .w_down = "w2",
                  .not_decilm = "no LayerNorm, biases or MoE block"};
    phimoe.norm_bias = true;
    v.push_back(phimoe);
    // issue 19l. hunyuan_v1_moe (HunYuanMoE): every layer MoE, router mlp.gate.wg, experts mlp.experts.<e>.*, the
    // shared_mlp kept whole; per-head query_layernorm / key_layernorm, q/k/v/o biases (attention_bias)
    family hunyuan_moe{.model_type = "hunyuan_v1_moe", .moe = "mlp.", .shared = "mlp.shared_mlp.",
                       .q_norm = "self_attn.query_layernorm", .k_norm = "self_attn.key_layernorm", .not_decilm = moe_why};
    hunyuan_moe.router_weight = "mlp.gate.wg.weight";
    v.push_back(hunyuan_moe);
    // ernie4_5_moe (Ernie4_5_MoeSparseMoeBlock): router mlp.gate, its bias mlp.moe_statics.e_score_correction_bias
    // [1, E] sliced by columns, experts mlp.experts.<e>.* (use_bias: gate / up biases sliced with the channels, the
    // down bias kept), mlp.shared_experts kept whole; dense layers outside moe_layer_start / end / interval
    family ernie_moe{.model_type = "ernie4_5_moe", .moe = "mlp.", .shared = "mlp.shared_experts.",
                     .router_bias = "mlp.moe_statics.e_score_correction_bias", .not_decilm = moe_why};
    ernie_moe.router_bias_row = true;
    v.push_back(ernie_moe);
    // llama4_text (Llama4ForCausalLM, and the llama4 wrapper's decoder under language_model.model.layers.): feed_forward.*
    // read as mlp.*; MoE layers: fused experts experts.gate_up_proj [E, d, 2F] ([gate | up] columns, x @ W) and
    // experts.down_proj [E, F, d], router (E, d), shared_expert kept whole; dense layers (intermediate_size_mlp)
    // narrowed; NoPE, chunked and L2-normed attention has llama's tensors
    for (const char* m : {"llama4_text", "llama4"}) {
      family l4{.model_type = m, .moe = "mlp.", .shared = "mlp.shared_expert.",
                .not_decilm = "no MoE block, NoPE layers or chunked attention"};
      l4.x3_gate_up = "mlp.experts.gate_up_proj";
      l4.x3_down = "mlp.experts.down_proj";
      l4.x3_inputs_first = true;
      l4.router_weight = "mlp.router.weight";
      l4.layer_prefix = "language_model.model.layers.";
      l4.renames = {{"mlp", "feed_forward"}};
      v.push_back(l4);
    }
    // qwen3_5_text (issue 19k): the dense Qwen3.5 text decoder, qwen3_5_moe_text's layers with a gated MLP narrowed
    family qwen3_5{.model_type = "qwen3_5_text", .not_decilm = "no Gated DeltaNet layers", .hybrid = true, .deltanet_split = true};
    qwen3_5.layer_prefix = "model.language_model.layers.";
    v.push_back(qwen3_5);
    // nemotron-nas (issue 19k): DeciLM checkpoints (DeciLMForCausalLM, llama's names), per-layer KV heads and FFN widths
    // from block_configs, no_op sublayers without tensors, replace_with_linear ones kept whole; out as DeciLM again
    family deci{.model_type = "nemotron-nas"};
    deci.decilm_blocks = true;
    v.push_back(deci);
    // gemma4_text (issue 19k; Gemma4ForConditionalGeneration's text decoder, the 31B shape): gemma3's four norms and
    // per-head q_norm / k_norm; full layers of global_head_dim, with attention_k_eq_v no v_proj (the values are the
    // key projection's output: pooling K pools them); layer_scalar kept with its layer. Per-layer embeddings,
    // KV-shared layers and the MoE block are refused by the pruning space by name.
    family gemma4{.model_type = "gemma4_text", .not_decilm = "no GELU, scaled embeddings, post-norms, global_head_dim or k_eq_v attention"};
    gemma4.attn_norms = {"input_layernorm", "post_attention_layernorm"};
    gemma4.ffn_norms = {"pre_feedforward_layernorm", "post_feedforward_layernorm"};
    gemma4.layer_prefix = "model.language_model.layers.";
    gemma4.layer_buffers = {"layer_scalar"};
    v.push_back(gemma4);
    // bert (issue 19k; BertForMaskedLM / BertForPreTraining checkpoints, "bert.encoder.layer.<L>."): post-norm encoder
    // blocks under their own names, LayerNorm after each residual (removed with its sublayer), biases everywhere, a
    // GELU MLP without gate (intermediate.dense / output.dense); one KV head per query head; the heads, pooler and
    // embeddings (word, position, token type, their LayerNorm) copied
    family bert{.model_type = "bert", .not_decilm = "an encoder: post-norm LayerNorm blocks, biases, GELU MLP, no LM head"};
    bert.layer_prefix = "bert.encoder.layer.";
    bert.renames = {{"self_attn.q_proj", "attention.self.query"}, {"self_attn.k_proj", "attention.self.key"},
                    {"self_attn.v_proj", "attention.self.value"}, {"self_attn.o_proj", "attention.output.dense"},
                    {"input_layernorm", "attention.output.LayerNorm"}, {"mlp.up_proj", "intermediate.dense"},
                    {"mlp.down_proj", "output.dense"}, {"post_attention_layernorm", "output.LayerNorm"}};
    bert.norm_bias = bert.mha_only = true;
    v.push_back(bert);
    return v;
  }();
  return t;
}

/// issue 19j: whether layer tensor `rest` (canonical, after "model.layers.<L>.") is the one norm a
/// parallel block's attention and FFN share (the layer's shared_norms, search::prune_shared_norms:
/// the family's first attention norm, input_layernorm), kept while either sublayer is kept.
inline bool prune_shared_norm_tensor(const family& f, const search::prune_layer_space& ls, const std::string& rest) {
  const std::string n(f.attn_norms[0]);
  return ls.shared_norms > 0 && !n.empty() && (rest == n + ".weight" || rest == n + ".bias");
}

inline family find_layout(std::string_view model_type) {
  std::string names;
  for (const family& f : layouts()) {
    if (f.model_type == model_type) return f;
    names += (names.empty() ? "" : ", ") + std::string(f.model_type);
  }
  fail("model_type '" + excerpt(model_type, 60) + "' has no checkpoint pruning (supported: " + names + ")");
}

/// Rows [row0, row0 + rows) of the layer tensor `rest` (a fused tensor's part, or all rows).
struct matrix_part {
  std::string rest;
  std::int64_t row0 = 0, rows = 0;
  std::vector<std::int64_t> index = {}; ///< the part's rows of `rest` in order, when not contiguous (row0, rows unused)
};

/// The row of a KV-group-fused q/k/v (family::qkv_grouped; K KV heads of G query heads each) that
/// holds row r of query head i (role 'q'), or of KV head i's key ('k') or value ('v').
inline std::int64_t grouped_row(std::int64_t G, std::int64_t hd, char role, std::int64_t i, std::int64_t r) {
  if (role == 'q') return ((i / G) * (G + 2) + i % G) * hd + r;
  return (i * (G + 2) + G + (role == 'v')) * hd + r;
}

/// The rows of every head of a role (q: H heads, k / v: K heads) of a grouped q/k/v, in head order.
inline std::vector<std::int64_t> grouped_rows(std::int64_t H, std::int64_t K, std::int64_t hd, char role) {
  std::vector<std::int64_t> v;
  const std::int64_t G = H / K;
  for (std::int64_t i = 0; i < (role == 'q' ? H : K); ++i)
    for (std::int64_t r = 0; r < hd; ++r) v.push_back(grouped_row(G, hd, role, i, r));
  return v;
}

/// The q, k, v rows and the FFN gate / up rows of a dense layer in family f's layout.
inline matrix_part part_of(const family& f, const block_spec& b, std::string_view role) {
  const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads(), hd = b.attention.head_size(), F = b.ffn.d_ff;
  if (f.qkv_grouped && (role == "q" || role == "k" || role == "v"))
    return {"self_attn.qkv_grouped.weight", 0, 0, grouped_rows(H, K, hd, role[0])};
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
  // fused 3-D experts: output row r takes the columns block_cols[r / block_rows] (each kept
  // expert its own channels); `view` owns src's 2-D view
  std::vector<std::vector<std::int64_t>> block_cols;
  std::int64_t block_rows = 0;
  std::shared_ptr<const tensor_entry> view;
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

inline void run_block_op(const tensor_op& op, safetensors_file_writer& w);

/// Streams one op's data into the writer.
inline void run_op(const tensor_op& op, safetensors_file_writer& w) {
  if (!op.block_cols.empty()) return run_block_op(op, w);
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

/// The source rows of a KV-group-fused q/k/v (family::qkv_grouped) for the kept heads of `k`, in
/// the same layout: per new KV head j, its kept query heads (k.q_heads lists them group by
/// group), then the mean of its group's key heads, then of their value heads.
inline std::vector<std::vector<std::int64_t>> grouped_op_rows(const block_spec& b, const layer_keep& k, std::int64_t hd) {
  const std::int64_t H = b.attention.n_heads, K = b.attention.kv_heads(), G = H / K;
  const std::size_t per = k.q_heads.size() / std::max<std::size_t>(1, k.kv_groups.size());
  std::vector<std::vector<std::int64_t>> rows;
  for (std::size_t j = 0; j < k.kv_groups.size(); ++j) {
    for (std::size_t t = 0; t < per; ++t)
      for (std::int64_t r = 0; r < hd; ++r) rows.push_back({grouped_row(G, hd, 'q', k.q_heads[j * per + t], r)});
    for (const char role : {'k', 'v'})
      for (std::int64_t r = 0; r < hd; ++r) {
        std::vector<std::int64_t> src;
        for (std::int64_t x : k.kv_groups[j]) src.push_back(grouped_row(G, hd, role, x, r));
        rows.push_back(std::move(src));
      }
  }
  return rows;
}

/// Parses "model.layers.<L>.<rest>": the layer and the rest, or nullopt.
inline std::optional<std::pair<std::int64_t, std::string>> layer_of(const std::string& name) {
  constexpr std::string_view p = "model.layers.";
  if (name.rfind(p, 0) != 0) return std::nullopt;
  return layer_rest(name, p.size());
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

// --- Fused 3-D experts (gpt_oss, granitemoe; the file comment) ---

/// MXFP4 (OCP microscaling, e2m1 elements): `cols` values of one row from cols / 2 bytes of
/// blocks (two elements a byte, the low nibble first) and cols / 32 e8m0 scales (2^(s - 127)).
inline void mxfp4_decode(const unsigned char* blocks, const unsigned char* scales, std::int64_t cols, double* out) {
  static constexpr std::array<double, 16> e2m1{0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0};
  for (std::int64_t g = 0; g < cols / 32; ++g) { // one power of two per 32 values (exact products)
    const double s = std::ldexp(1.0, int(scales[g]) - 127);
    const unsigned char* b = blocks + 16 * g;
    double* o = out + 32 * g;
    for (int j = 0; j < 16; ++j) o[2 * j] = e2m1[b[j] & 0x0F] * s, o[2 * j + 1] = e2m1[b[j] >> 4] * s;
  }
}

/// One matrix of every expert of a layer, stored as one tensor [E, rows, cols] (MXFP4: blocks
/// [E, rows, cols / 32, 16] and scales [E, rows, cols / 32]), viewed as the 2-D [E rows, row
/// bytes] (a reshape of the same bytes) so that tensor_reader and tensor_op read its rows.
struct fused_matrix {
  std::shared_ptr<tensor_entry> flat, flat_scales; ///< the views; flat_scales: MXFP4 only
  std::int64_t E = 0, rows = 0, cols = 0;          ///< per expert (MXFP4: decoded values)
  bool mxfp4() const { return flat_scales != nullptr; }
  /// Rows [r, r + n) of expert e in double (n x cols, row-major).
  void read(std::int64_t e, std::int64_t r, std::int64_t n, std::vector<double>& out) const {
    out.resize(std::size_t(n * cols));
    if (!mxfp4()) {
      tensor_reader(*flat).read_values(e * rows + r, n, out);
      return;
    }
    std::vector<unsigned char> b, s;
    tensor_reader(*flat).read_rows(e * rows + r, n, b);
    tensor_reader(*flat_scales).read_rows(e * rows + r, n, s);
    for (std::int64_t i = 0; i < n; ++i)
      mxfp4_decode(b.data() + i * (cols / 2), s.data() + i * (cols / 32), cols, out.data() + i * cols);
  }
  /// Squared Euclidean norms of expert e's rows and columns (read about 1 MiB at a time).
  void square_norms(std::int64_t e, std::vector<double>& row, std::vector<double>& col) const {
    row.assign(std::size_t(rows), 0.0);
    col.assign(std::size_t(cols), 0.0);
    const std::int64_t step = std::max<std::int64_t>(1, (std::int64_t(1) << 17) / std::max<std::int64_t>(1, cols));
    std::vector<double> v;
    for (std::int64_t r = 0; r < rows; r += step) {
      const std::int64_t n = std::min(step, rows - r);
      read(e, r, n, v);
      double* c = col.data();
      for (std::int64_t i = 0; i < n; ++i) { // the row's sum in four registers, the columns' in memory
        const double* x = v.data() + i * cols;
        std::array<double, 4> rs{};
        for (std::int64_t j = 0; j < cols; ++j) {
          const double x2 = x[j] * x[j];
          rs[std::size_t(j & 3)] += x2;
          c[j] += x2;
        }
        row[std::size_t(r + i)] = (rs[0] + rs[1]) + (rs[2] + rs[3]);
      }
    }
  }
};

/// The fused experts of one layer: the gate + up and down matrices, where channel c lies in
/// each (its axis: rows or columns of an expert's stored matrix) and the optional biases.
struct fused_layer {
  fused_matrix gate_up, down;
  bool gu_rows = false, down_rows = false; ///< the channel axis: rows (else columns)
  bool interleaved = false;
  std::int64_t F = 0;
  std::int64_t gate(std::int64_t c) const { return interleaved ? 2 * c : c; }
  std::int64_t up(std::int64_t c) const { return interleaved ? 2 * c + 1 : F + c; }
  /// gate_up's indices of channels `ch` along its channel axis, as stored (interleaved: g, u per channel).
  std::vector<std::int64_t> gate_up_indices(const std::vector<std::int64_t>& ch) const {
    std::vector<std::int64_t> v;
    if (interleaved)
      for (std::int64_t c : ch) v.push_back(gate(c)), v.push_back(up(c));
    else {
      for (std::int64_t c : ch) v.push_back(gate(c));
      for (std::int64_t c : ch) v.push_back(up(c));
    }
    return v;
  }
};

inline fused_matrix fused_view(const tensor_entry& t, const tensor_entry* scales, std::int64_t E, std::int64_t rows,
                               std::int64_t cols) {
  fused_matrix m;
  m.E = E, m.rows = rows, m.cols = cols;
  m.flat = std::make_shared<tensor_entry>(t);
  m.flat->shape = {E * rows, scales ? cols / 2 : cols};
  if (scales) {
    m.flat_scales = std::make_shared<tensor_entry>(*scales);
    m.flat_scales->shape = {E * rows, cols / 32};
  }
  return m;
}

/// Whether layer prefix p's experts are MXFP4 (<gate_up>_blocks present).
inline bool fused_mxfp4(const family& f, const std::map<std::string, const tensor_entry*>& by_name, const std::string& p) {
  return by_name.count(p + std::string(f.x3_gate_up) + "_blocks") > 0;
}

/// The expected fused tensors of a MoE layer (name after the layer prefix, shape, dtype rule):
/// plain: gate_up [E, d, 2F] (inputs first) or [E, 2F, d], down [E, F, d] or [E, d, F]; MXFP4
/// (<name>_blocks U8 [E, out, in / 32, 16], <name>_scales U8 [E, out, in / 32]: gate_up out =
/// 2F, in = d; down out = d, in = F); biases [E, 2F] and [E, d].
struct fused_tensor {
  std::string rest;
  std::vector<std::int64_t> shape;
  bool u8 = false;
};
inline std::vector<fused_tensor> fused_tensors(const family& f, const block_spec& b, bool mxfp4) {
  const std::int64_t E = b.ffn.n_experts, d = b.attention.d_model, F = b.ffn.d_ff;
  const std::string gu(f.x3_gate_up), dn(f.x3_down);
  std::vector<fused_tensor> v;
  if (mxfp4) {
    v.push_back({gu + "_blocks", {E, 2 * F, d / 32, 16}, true});
    v.push_back({gu + "_scales", {E, 2 * F, d / 32}, true});
    v.push_back({dn + "_blocks", {E, d, F / 32, 16}, true});
    v.push_back({dn + "_scales", {E, d, F / 32}, true});
  } else if (f.x3_inputs_first) {
    v.push_back({gu, {E, d, 2 * F}});
    v.push_back({dn, {E, F, d}});
  } else {
    v.push_back({gu, {E, 2 * F, d}});
    v.push_back({dn, {E, d, F}});
  }
  if (f.x3_bias && b.ffn.bias) {
    v.push_back({gu + "_bias", {E, 2 * F}});
    v.push_back({dn + "_bias", {E, d}});
  }
  return v;
}

/// The shared expert's tensors of an MoE layer with FFN x (rest after the layer prefix, shape, required),
/// kept whole with the FFN: <shared>{gate,up,down}_proj (their biases with x.bias) or, shared_fused,
/// <shared>gate_up_proj (2S, d) and <shared>down_proj (d, S); the shared gate (1, d).
struct shared_tensor {
  std::string rest;
  std::vector<std::int64_t> shape;
  bool required = true;
};
inline std::vector<shared_tensor> shared_expert_tensors(const family& f, const ffn_spec& x, std::int64_t d) {
  std::vector<shared_tensor> v;
  const std::int64_t S = x.shared_d_ff;
  if (S <= 0) return v;
  const std::string p(f.shared);
  if (f.shared_fused) {
    v.push_back({p + "gate_up_proj.weight", {2 * S, d}});
    v.push_back({p + "down_proj.weight", {d, S}});
  } else {
    v.push_back({p + "gate_proj.weight", {S, d}});
    v.push_back({p + "up_proj.weight", {S, d}});
    v.push_back({p + "down_proj.weight", {d, S}});
    v.push_back({p + "gate_proj.bias", {S}, x.bias});
    v.push_back({p + "up_proj.bias", {S}, x.bias});
    v.push_back({p + "down_proj.bias", {d}, x.bias});
  }
  if (x.shared_gate) v.push_back({std::string(f.shared_gate), {1, d}});
  return v;
}

/// The fused experts of layer prefix p (tensors checked by check_prune_checkpoint_tensors).
inline fused_layer fused_experts_of(const family& f, const block_spec& b, const std::map<std::string, const tensor_entry*>& by_name,
                                    const std::string& p) {
  const std::int64_t E = b.ffn.n_experts, d = b.attention.d_model, F = b.ffn.d_ff;
  auto need = [&](const std::string& rest) -> const tensor_entry& {
    const auto it = by_name.find(p + rest);
    if (it == by_name.end()) fail("tensor '" + p + rest + "' is missing from the checkpoint");
    return *it->second;
  };
  fused_layer x;
  x.F = F;
  x.interleaved = f.x3_interleaved;
  const std::string gu(f.x3_gate_up), dn(f.x3_down);
  if (fused_mxfp4(f, by_name, p)) { // stored [out, in]: gate_up's channels are rows, down's columns
    x.gate_up = fused_view(need(gu + "_blocks"), &need(gu + "_scales"), E, 2 * F, d);
    x.down = fused_view(need(dn + "_blocks"), &need(dn + "_scales"), E, d, F);
    x.gu_rows = true;
  } else if (f.x3_inputs_first) {
    x.gate_up = fused_view(need(gu), nullptr, E, d, 2 * F);
    x.down = fused_view(need(dn), nullptr, E, F, d);
    x.down_rows = true;
  } else {
    x.gate_up = fused_view(need(gu), nullptr, E, 2 * F, d);
    x.down = fused_view(need(dn), nullptr, E, d, F);
    x.gu_rows = true;
  }
  return x;
}

/// Expert e's squared channel norms of gate, up and down (channel c: a row or column of each).
inline std::array<std::vector<double>, 3> fused_channel_norms(const fused_layer& x, std::int64_t e) {
  std::vector<double> r, c, dr, dc;
  x.gate_up.square_norms(e, r, c);
  x.down.square_norms(e, dr, dc);
  const std::vector<double>& gu = x.gu_rows ? r : c;
  std::array<std::vector<double>, 3> out;
  for (std::int64_t ch = 0; ch < x.F; ++ch) {
    out[0].push_back(gu[std::size_t(x.gate(ch))]);
    out[1].push_back(gu[std::size_t(x.up(ch))]);
  }
  out[2] = x.down_rows ? dr : dc;
  return out;
}

/// Expert e's gate, up or down (m = 0, 1, 2) as F channel rows of length d, row-major, in
/// double (one expert's matrix read at a time).
inline std::vector<double> fused_channel_rows(const fused_layer& x, std::int64_t e, int m) {
  const fused_matrix& s = m < 2 ? x.gate_up : x.down;
  const bool on_rows = m < 2 ? x.gu_rows : x.down_rows;
  std::vector<double> all, out;
  s.read(e, 0, s.rows, all);
  const std::int64_t d = on_rows ? s.cols : s.rows;
  out.resize(std::size_t(x.F * d));
  for (std::int64_t c = 0; c < x.F; ++c) {
    const std::int64_t i = m == 0 ? x.gate(c) : m == 1 ? x.up(c) : c;
    for (std::int64_t j = 0; j < d; ++j)
      out[std::size_t(c * d + j)] = on_rows ? all[std::size_t(i * s.cols + j)] : all[std::size_t(j * s.cols + i)];
  }
  return out;
}

/// The op slicing fused tensor `rest` of a layer (a name of fused_tensors) to experts `experts`
/// (kept, ascending) with channels `channels[i]` each: viewed as [E R, C] (R rows per expert),
/// output rows are the kept experts' kept rows, and each expert's block of rows its own columns.
/// (false: `rest` is not one of the layer's fused tensors.)
inline bool fused_op(const family& f, const block_spec& b, const fused_layer& x, bool mxfp4, const std::string& rest,
                     const std::vector<std::int64_t>& experts, const std::vector<std::vector<std::int64_t>>& channels,
                     tensor_op& op) {
  const std::string gu(f.x3_gate_up), dn(f.x3_down);
  const bool is_gu = rest == gu || rest == gu + "_blocks" || rest == gu + "_scales" || rest == gu + "_bias";
  const bool is_dn = rest == dn || rest == dn + "_blocks" || rest == dn + "_scales" || rest == dn + "_bias";
  if (!is_gu && !is_dn) return false;
  const std::int64_t E = b.ffn.n_experts, F = b.ffn.d_ff;
  bool full = std::int64_t(experts.size()) == E;
  for (const auto& ch : channels) full = full && std::int64_t(ch.size()) == F;
  if (full) return true; // a copy
  const tensor_entry& t = *op.src;
  const bool bias = rest.size() > 5 && rest.compare(rest.size() - 5, 5, "_bias") == 0;
  // R rows per expert; the channel axis: 1 (rows), the last (columns) or none (down's bias; MXFP4 down: whole blocks)
  std::int64_t R = bias ? 1 : t.shape[1];
  int axis = 0;
  if (bias) axis = is_gu ? 1 : 0;
  else if (mxfp4) axis = is_gu ? 1 : 0;
  else axis = (is_gu ? x.gu_rows : x.down_rows) ? 1 : 2;
  if (mxfp4 && is_dn && !bias)
    for (const auto& ch : channels)
      if (std::int64_t(ch.size()) != F) fail("tensor '" + t.name + "': MXFP4 blocks run along the expert width: it cannot be narrowed");
  auto v = std::make_shared<tensor_entry>(t);
  std::int64_t C = 1;
  for (std::size_t i = 1; i < t.shape.size(); ++i) C *= t.shape[i];
  C /= R;
  v->shape = {E * R, C};
  op.view = v;
  op.src = v.get();
  op.out.shape[0] = std::int64_t(experts.size());
  op.block_rows = (axis == 2 || (axis == 1 && bias)) ? R : 0;
  for (std::size_t i = 0; i < experts.size(); ++i) {
    const std::int64_t e = experts[i];
    const std::vector<std::int64_t> idx = is_gu ? x.gate_up_indices(channels[i]) : channels[i];
    if (axis == 1 && !bias) { // rows of the expert
      for (std::int64_t r : idx) op.rows.push_back({e * R + r});
      op.out.shape[1] = std::int64_t(idx.size());
      continue;
    }
    for (std::int64_t r = 0; r < R; ++r) op.rows.push_back({e * R + r});
    if (axis != 0) {
      op.block_cols.push_back(idx);
      op.out.shape.back() = std::int64_t(idx.size());
    }
  }
  if (op.block_cols.empty()) op.block_rows = 0;
  return true;
}

/// run_op for an op with per-block columns (every row a single source row).
inline void run_block_op(const tensor_op& op, safetensors_file_writer& w) {
  tensor_reader rd(*op.src);
  const std::uint64_t es = rd.esize();
  std::vector<unsigned char> raw, out;
  for (std::size_t r = 0; r < op.rows.size(); ++r) {
    const std::vector<std::int64_t>& cols = op.block_cols[r / std::size_t(op.block_rows)];
    rd.read_rows(op.rows[r].at(0), 1, raw);
    out.resize(std::size_t(cols.size() * es));
    for (std::size_t j = 0; j < cols.size(); ++j)
      std::memcpy(out.data() + j * es, raw.data() + std::size_t(cols[j]) * es, es);
    w.write(out.data(), out.size());
  }
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
      if (!n.empty()) add(std::string(n) + ".weight", {d});
  if (b.ffn.kind != ffn_kind::none)
    for (std::string_view n : f.ffn_norms)
      if (!n.empty()) add(std::string(n) + ".weight", {d});
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
    if (f.fused_experts()) // granitemoehybrid's block_sparse_moe (issue 19l)
      for (const fused_tensor& t : fused_tensors(f, b, false)) add(t.rest, t.shape);
    for (std::int64_t e = 0; e < x.n_experts && !f.fused_experts(); ++e) {
      add(f.expert(e, f.w_gate), {F, d});
      add(f.expert(e, f.w_up), {F, d});
      add(f.expert(e, f.w_down), {d, F});
    }
    if (x.router_bias) add(std::string(f.router_bias), {x.n_experts});
    for (const shared_tensor& t : shared_expert_tensors(f, x, d)) add(t.rest, t.shape, t.required);
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
  std::map<std::string, const tensor_entry*> by_name; // by canonical name
  for (const tensor_entry& t : in.tensors) by_name[f.canonical(t.name, space)] = &t;
  const std::string_view pre = f.stored_prefix(in);
  for (std::size_t l = 0; l < space.layers.size(); ++l) {
    const block_spec& b = space.layers[l].base;
    const attention_spec& a = b.attention;
    if (b.ffn.n_experts > 0 && !f.has_moe())
      fail("layer " + std::to_string(l) + ": the " + std::string(model_type) + " layout slices no experts");
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
      if (it == by_name.end()) {
        if (want.second) fail("tensor '" + f.own(p + rest, space, pre) + "' is missing from the checkpoint");
        continue;
      }
      if (it->second->shape != want.first)
        fail("tensor '" + it->second->name + "': shape " + shape_text(it->second->shape) + " disagrees with the config (expected " +
             shape_text(want.first) + ")");
    }
  }
  for (const tensor_entry& x : in.tensors) {
    const tensor_entry* t = &x;
    const auto lr = layer_of(f.canonical(x.name, space));
    if (!lr) continue;
    if (lr->first >= std::int64_t(space.layers.size()))
      fail("tensor '" + t->name + "' is in layer " + std::to_string(lr->first) + " but the config has " +
           std::to_string(space.layers.size()) + " layers (a multi-token-prediction module, which nsc does not "
           "slice: remove its tensors from the checkpoint first)");
    if (!hybrid_layer_tensors(f, space.layers[std::size_t(lr->first)].base).count(lr->second))
      fail("tensor '" + t->name + "' (dtype " + t->dtype + ", shape " + shape_text(t->shape) + ") is not one the " +
           std::string(model_type) + " layout with this config names: nsc cannot prune it");
  }
}

/// The writer's last step for a hybrid family (ops named as stored): attention copied whole
/// (refused if the selection changes its heads), a layer whose only sublayer was a removed
/// recurrent mixer dropped and the later layers renumbered under their stored prefix.
inline void hybrid_outputs(const family& f, const search::prune_space& space, const std::vector<layer_keep>& sel,
                           std::vector<tensor_op>& ops) {
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
  for (tensor_op& op : ops) {
    const auto lr = layer_of(f.canonical(op.out.name, space));
    if (!lr) continue;
    const auto [l, rest] = *lr;
    if (to[std::size_t(l)] < 0) fail("internal: a tensor of removed layer " + std::to_string(l) + " is written");
    if (rest.rfind("self_attn.", 0) == 0 || rest.rfind(f.ssm, 0) == 0) { // attention, MLA, indexers, mixers: whole
      op.rows.clear();
      op.cols.clear();
      op.out.shape = op.src->shape;
    }
    op.out.name = std::string(f.prefix_of(op.out.name)) + std::to_string(to[std::size_t(l)]) + "." +
                  f.own_rest(&space.layers[std::size_t(l)].base, rest);
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

/// magnitude_orders's experts and expert channels for fused 3-D experts (the same rules: an
/// expert's ||gate||_F ||up||_F ||down||_F, a channel's ||gate_c|| ||up_c|| ||down_c||), each
/// expert's matrices streamed (detail::pc::fused_matrix::square_norms).
inline void fused_magnitude_orders(channel_orders& o, const checkpoint& in, const search::prune_space& space,
                                   const detail::pc::family& fam) {
  namespace pc = detail::pc;
  auto by_name = std::make_shared<std::map<std::string, const tensor_entry*>>(); // by canonical name
  for (const tensor_entry& t : in.tensors) (*by_name)[fam.canonical(t.name, space)] = &t;
  const search::prune_space* sp = &space;
  auto layer = [by_name, sp, fam](std::size_t l) {
    return pc::fused_experts_of(fam, sp->layers[l].base, *by_name, "model.layers." + std::to_string(l) + ".");
  };
  o.experts = [layer, sp](std::size_t l, std::int64_t) {
    const pc::fused_layer x = layer(l);
    std::vector<double> imp;
    for (std::int64_t e = 0; e < sp->layers[l].base.ffn.n_experts; ++e) {
      double p = 1;
      for (const std::vector<double>& n : pc::fused_channel_norms(x, e)) p *= std::sqrt(std::accumulate(n.begin(), n.end(), 0.0));
      imp.push_back(p);
    }
    return pc::ranking(imp);
  };
  o.expert_channels = [layer](std::size_t l, std::int64_t e) {
    const pc::fused_layer x = layer(l);
    const auto n = pc::fused_channel_norms(x, e);
    std::vector<double> imp;
    for (std::size_t c = 0; c < n[0].size(); ++c) imp.push_back(std::sqrt(n[0][c]) * std::sqrt(n[1][c]) * std::sqrt(n[2][c]));
    return pc::ranking(imp);
  };
}

/// The magnitude criterion's orders (the file comment), read from `in` lazily (each call
/// streams the tensors it needs). Tensor names: the layout of model_type (layouts()).
inline channel_orders magnitude_orders(const checkpoint& in, const search::prune_space& space, std::string_view model_type) {
  namespace pc = detail::pc;
  const pc::family fam = pc::find_layout(model_type);
  auto by_layer = std::make_shared<std::vector<pc::layer_tensors>>(space.layers.size());
  for (const tensor_entry& t : in.tensors) {
    const auto lr = pc::layer_of(fam.canonical(t.name, space));
    if (!lr) continue;
    if (lr->first >= std::int64_t(space.layers.size()))
      pc::fail("tensor '" + t.name + "' is in layer " + std::to_string(lr->first) + " but the config has " +
               std::to_string(space.layers.size()) + " layers");
    (*by_layer)[std::size_t(lr->first)][lr->second] = &t;
  }
  const search::prune_space* sp = &space;
  auto need = [by_layer, fam, sp, pre = std::string(fam.stored_prefix(in))](std::size_t l, const std::string& rest) -> const tensor_entry& {
    const auto it = (*by_layer)[l].find(rest);
    if (it == (*by_layer)[l].end())
      pc::fail("tensor '" + fam.own("model.layers." + std::to_string(l) + "." + rest, *sp, pre) + "' is missing from the checkpoint");
    return *it->second;
  };
  // squared row norms of a part (rows [row0, row0 + rows) of its tensor)
  auto part_rows = [need](std::size_t l, const pc::matrix_part& m) {
    std::vector<double> r, unused;
    pc::tensor_reader(need(l, m.rest)).square_norms(r, unused);
    if (!m.index.empty()) { // a grouped q/k/v's rows of one role
      std::vector<double> x;
      for (std::int64_t i : m.index) x.push_back(i < std::int64_t(r.size()) ? r[std::size_t(i)] : 0.0);
      return x;
    }
    if (m.rows > 0 && std::int64_t(r.size()) >= m.row0 + m.rows)
      r = std::vector<double>(r.begin() + m.row0, r.begin() + m.row0 + m.rows);
    return r;
  };
  auto channel_order = [need, sp, part_rows, fam](std::size_t l, const pc::matrix_part& gate, const pc::matrix_part& up,
                                                  const std::string& down) {
    const std::int64_t F = sp->layers[l].base.ffn.d_ff;
    std::vector<double> g, u, d, unused, imp(std::size_t(F), 1.0);
    if (!gate.rest.empty()) g = part_rows(l, gate);
    if (fam.transposed) { // Conv1D: c_fc's columns, c_proj's rows
      pc::tensor_reader(need(l, up.rest)).square_norms(unused, u);
      pc::tensor_reader(need(l, down)).square_norms(d, unused);
    } else {
      u = part_rows(l, up);
      pc::tensor_reader(need(l, down)).square_norms(unused, d);
    }
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
  if (fam.fused_experts()) fused_magnitude_orders(o, in, space, fam);
  return o;
}

/// Which heads, KV heads, channels and experts of each layer survive in `c` (the file
/// comment's rule): the first entries of `orders` (magnitude_orders when null), kept in their
/// original order. Errors as in the file comment.
inline std::vector<layer_keep> select_channels(const checkpoint& in, std::string_view model_type,
                                               const search::prune_space& space, const search::prune_candidate& c,
                                               const prune_checkpoint_settings& /*settings*/ = {},
                                               const channel_orders* orders = nullptr) {
  namespace pc = detail::pc;
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
  if (!fam.not_decilm.empty() && format == search::prune_format::decilm) {
    detail::pc::fail("a " + std::string(model_type) + " checkpoint cannot be written in the decilm format (DeciLM's "
                     "blocks are llama's: " + std::string(fam.not_decilm) + "): use --emit-format " +
                     (hf_reads_per_layer_config(model_type) ? "per-layer or nsc" : "nsc"));
  }
}

/// check_prune_checkpoint_tensors for a layer's fused 3-D experts (detail::pc::fused_tensors;
/// `add(rest, shape, required)` checks a tensor's presence and shape): dtypes (plain: a float
/// dtype; MXFP4: U8, d and F multiples of 32) and, for MXFP4, a space that keeps the width.
template <class Add>
void check_fused_experts(const detail::pc::family& fam, const block_spec& b, const search::prune_layer_space& ls,
                         const std::map<std::string, const tensor_entry*>& by_name, const std::string& p, Add&& add) {
  namespace pc = detail::pc;
  const bool mx = pc::fused_mxfp4(fam, by_name, p);
  const std::int64_t d = b.attention.d_model, F = b.ffn.d_ff;
  if (mx && (d % 32 != 0 || F % 32 != 0))
    pc::fail("tensor '" + p + std::string(fam.x3_gate_up) + "_blocks': MXFP4 needs hidden_size and the expert width to be "
             "multiples of 32 (got " + std::to_string(d) + " and " + std::to_string(F) + ")");
  for (const pc::fused_tensor& t : pc::fused_tensors(fam, b, mx)) {
    add(t.rest, t.shape, true);
    const tensor_entry& e = *by_name.at(p + t.rest);
    if (t.u8 ? e.dtype != "U8" : !safetensors_dtype_is_float(e.dtype))
      pc::fail("tensor '" + e.name + "' has dtype " + e.dtype + " (" +
               (t.u8 ? "MXFP4 blocks and scales are U8" : "expert weights are read in F64, F32, F16 or BF16") + ")");
  }
  if (mx)
    for (const auto& o : ls.ffn)
      if (!o.none && o.width > 0 && o.width < F)
        pc::fail("tensor '" + p + std::string(fam.x3_down) + "_blocks': the experts are MXFP4, whose 32-value blocks run "
                 "along the expert width (" + std::to_string(F) + ") in down_proj, so the width " + std::to_string(o.width) +
                 " the space offers would cut blocks: search with --keep-expert-width (experts are still dropped whole: "
                 "--expert-step, --min-experts)");
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
    const bool deci_attn = fam.decilm_blocks && (at.kind == attention_kind::none || at.kind == attention_kind::linear);
    const bool deci_ffn = fam.decilm_blocks && (b.ffn.kind == ffn_kind::none || b.ffn.kind == ffn_kind::linear);
    if ((at.kind != attention_kind::standard && !mla && !deci_attn) || (b.ffn.kind != ffn_kind::standard && !deci_ffn) ||
        b.parallel.kind != attention_kind::none || (b.ffn.shared_d_ff > 0 && fam.shared.empty()) ||
        (b.ffn.shared_gate && fam.shared_gate.empty()) ||
        (b.ffn.router_bias && fam.router_bias.empty()) ||
        b.norm != (fam.norm_bias ? norm_kind::layernorm : norm_kind::rmsnorm) ||
        (!fam.decilm_blocks && b.n_norms != (space.layers[l].shared_norms > 0 ? 1 : fam.norms())) || // a parallel block's one shared norm (19j)
        (at.sinks && fam.sinks.empty()))
      pc::fail("layer " + std::to_string(l) + " is not a standard (or latent) attention + FFN block with the " +
               std::to_string(fam.norms()) + (fam.norm_bias ? " LayerNorms" : " RMSNorms") + " of the " +
               std::string(model_type) + " layout (the layouts nsc can slice; or one norm shared by a parallel attention "
               "and MLP)");
    if (fam.transposed) // Conv1D c_attn: heads are columns, kept
      for (const auto& o : space.layers[l].attention)
        if (!o.none && o.heads > 0 && (o.heads < at.n_heads || o.kv_heads < at.kv_heads()))
          pc::fail("layer " + std::to_string(l) + ": " + std::string(model_type) + " stores c_attn transposed (Conv1D), "
                   "whose heads nsc does not slice: search with every head kept (nsc prune --head-step " +
                   std::to_string(at.n_heads) + " --kv-heads-min " + std::to_string(at.kv_heads()) +
                   "; FFN widths and removed sublayers stay free)");
    if (fam.mha_only) // the architecture pairs every query head with its own KV head
      for (const auto& o : space.layers[l].attention)
        if (!o.none && o.heads > 0 && o.heads != o.kv_heads)
          pc::fail("layer " + std::to_string(l) + ": " + std::string(model_type) + " has one KV head per query head, so an "
                   "option with " + std::to_string(o.heads) + " query heads and " + std::to_string(o.kv_heads) +
                   " KV heads has no checkpoint: search with every head kept (nsc prune --head-step " +
                   std::to_string(at.n_heads) + " --kv-heads-min " + std::to_string(at.kv_heads()) +
                   "; FFN widths and removed sublayers stay free)");
    if (at.qk_norm == qk_norm_kind::whole && fam.qk_norm_head_rows) // cohere: one k_norm row per KV head (19j)
      for (const auto& o : space.layers[l].attention)
        if (!o.none && o.kv_heads > 0 && o.kv_heads < at.kv_heads())
          pc::fail("layer " + std::to_string(l) + ": " + std::string(model_type) + "'s k_norm holds one weight row per KV "
                   "head (CohereLayerNorm over (KV heads, head_dim), applied before attention), so a KV head pooled from " +
                   "several has no k_norm that gives their normalised keys: search with every KV head kept (nsc prune "
                   "--kv-heads-min " + std::to_string(at.kv_heads()) +
                   "; query heads, FFN widths and removed sublayers stay free)");
    if (at.qk_norm == qk_norm_kind::whole && !fam.qk_norm_head_rows) // olmo2, olmoe: the norm's RMS runs over every head
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
    if (const auto lr = pc::layer_of(fam.canonical(t.name, space)); lr && lr->first >= std::int64_t(space.layers.size()))
      pc::fail("tensor '" + t.name + "' is in layer " + std::to_string(lr->first) + " but the config has " +
               std::to_string(space.layers.size()) + " layers (a multi-token-prediction module, which nsc does not "
               "slice: remove its tensors from the checkpoint first)");
  // Check every layer tensor (name and shape) before reading any data.
  std::map<std::string, const tensor_entry*> by_name; // by canonical name
  for (const tensor_entry& t : in.tensors)
    if (const auto [it, fresh] = by_name.emplace(fam.canonical(t.name, space), &t); !fresh)
      pc::fail("tensors '" + it->second->name + "' and '" + t.name + "' are the same " + std::string(model_type) +
               " tensor under two names");
  const std::string_view pre = fam.stored_prefix(in);
  auto expect = [&](const std::string& name, std::vector<std::int64_t> shape, bool required) {
    const auto it = by_name.find(name);
    if (it == by_name.end()) {
      if (required) pc::fail("tensor '" + fam.own(name, space, pre) + "' is missing from the checkpoint");
      return false;
    }
    if (it->second->shape != shape)
      pc::fail("tensor '" + it->second->name + "': shape " + pc::shape_text(it->second->shape) +
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
      if (fam.transposed && shape.size() == 2) std::swap(shape[0], shape[1]); // Conv1D: (in, out)
      if (expect(p + rest, std::move(shape), required)) known.insert(p + rest);
    };
    for (int side = 0; side < 2; ++side) // a DeciLM no_op sublayer has no norm
      for (std::string_view n : side == 0 ? fam.attn_norms : fam.ffn_norms)
        if (!n.empty() && (space.layers[l].shared_norms == 0 || n == fam.attn_norms[0]) && // shared: input_layernorm only
            !(fam.decilm_blocks && (side == 0 ? b.attention.kind == attention_kind::none : b.ffn.kind == ffn_kind::none))) {
          add(std::string(n) + ".weight", {d}, true);
          if (fam.norm_bias) add(std::string(n) + ".bias", {d}, true);
        }
    if (b.attention.kind == attention_kind::none) { // DeciLM's no_op: no tensors
    } else if (b.attention.kind == attention_kind::linear) { // DeciLM's replace_with_linear: kept whole
      add("self_attn.linear_attn.weight", {d, d}, true);
      add("self_attn.linear_attn.bias", {d}, b.attention.out_bias);
    } else if (b.attention.kind == attention_kind::latent) { // MLA: kept whole (or removed) by the space
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
      if (fam.qkv_grouped) {
        add("self_attn.qkv_grouped.weight", {(H + 2 * K) * hd, d}, true);
        add("self_attn.qkv_grouped.bias", {(H + 2 * K) * hd}, b.attention.qkv_bias);
      } else if (fam.fused_qkv) {
        add("self_attn.qkv_proj.weight", {(H + 2 * K) * hd, d}, true);
        add("self_attn.qkv_proj.bias", {(H + 2 * K) * hd}, b.attention.qkv_bias);
      } else {
        add("self_attn.q_proj.weight", {H * hd, d}, true);
        add("self_attn.k_proj.weight", {K * hd, d}, true);
        add("self_attn.q_proj.bias", {H * hd}, b.attention.qkv_bias);
        add("self_attn.k_proj.bias", {K * hd}, b.attention.qkv_bias);
        if (!b.attention.k_eq_v) { // gemma4's k_eq_v layers: the values are the key projection's output
          add("self_attn.v_proj.weight", {K * hd, d}, true);
          add("self_attn.v_proj.bias", {K * hd}, b.attention.qkv_bias);
        }
      }
      add("self_attn.o_proj.weight", {d, H * hd}, true);
      add("self_attn.o_proj.bias", {d}, b.attention.out_bias);
      const bool whole = b.attention.qk_norm == qk_norm_kind::whole; // (H hd) and (K hd), else per head (hd)
      const bool rows = whole && fam.qk_norm_head_rows;              // cohere: (H, hd) and (K, hd)
      add(std::string(fam.q_norm) + ".weight", rows ? std::vector<std::int64_t>{H, hd} : std::vector<std::int64_t>{whole ? H * hd : hd},
          b.attention.qk_norm != qk_norm_kind::none);
      add(std::string(fam.k_norm) + ".weight", rows ? std::vector<std::int64_t>{K, hd} : std::vector<std::int64_t>{whole ? K * hd : hd},
          b.attention.qk_norm != qk_norm_kind::none);
      add("self_attn.rotary_emb.inv_freq", {hd / 2}, false);
      if (b.attention.sinks) add(std::string(fam.sinks), {H}, true);
      for (std::string_view x : fam.attn_buffers) // any shape: copied with the attention
        if (const auto it = by_name.find(p + "self_attn." + std::string(x)); it != by_name.end()) known.insert(it->first);
    }
    for (std::string_view x : fam.layer_buffers) // any shape: kept with the layer
      if (const auto it = by_name.find(p + std::string(x)); it != by_name.end()) known.insert(it->first);
    if (b.ffn.kind == ffn_kind::none) { // DeciLM's no_op: no tensors
    } else if (b.ffn.kind == ffn_kind::linear) { // DeciLM's replace_with_linear: kept whole
      add("mlp.linear_mlp.weight", {d, d}, true);
      add("mlp.linear_mlp.bias", {d}, b.ffn.bias);
    } else if (b.ffn.n_experts > 0 && fam.fused_experts()) {
      add(fam.router(), {b.ffn.n_experts, d}, true);
      if (b.ffn.router_bias) add(std::string(fam.router_bias), {b.ffn.n_experts}, true);
      check_fused_experts(fam, b, space.layers[l], by_name, p, add);
      for (const pc::shared_tensor& t : pc::shared_expert_tensors(fam, b.ffn, d)) add(t.rest, t.shape, t.required); // llama4
    } else if (b.ffn.n_experts > 0) {
      add(fam.router(), {b.ffn.n_experts, d}, true);
      for (std::int64_t e = 0; e < b.ffn.n_experts; ++e) {
        add(fam.expert(e, fam.w_gate), {F, d}, true);
        add(fam.expert(e, fam.w_up), {F, d}, true);
        add(fam.expert(e, fam.w_down), {d, F}, true);
      }
      if (b.ffn.router_bias && fam.router_bias_row) add(std::string(fam.router_bias), {1, b.ffn.n_experts}, true);
      else if (b.ffn.router_bias) add(std::string(fam.router_bias), {b.ffn.n_experts}, true);
      if (b.ffn.bias) // biased experts (ernie4_5_moe use_bias): gate / up biases per channel, down's per output
        for (std::int64_t e = 0; e < b.ffn.n_experts; ++e) {
          const std::string x = std::string(fam.moe) + "experts." + std::to_string(e) + ".";
          add(x + std::string(fam.w_gate) + ".bias", {F}, true);
          add(x + std::string(fam.w_up) + ".bias", {F}, true);
          add(x + std::string(fam.w_down) + ".bias", {d}, true);
        }
      for (const pc::shared_tensor& t : pc::shared_expert_tensors(fam, b.ffn, d)) add(t.rest, t.shape, t.required);
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
    if (const std::string cn = fam.canonical(t.name, space); pc::layer_of(cn) && !known.count(cn))
      pc::fail("tensor '" + t.name + "' (dtype " + t.dtype + ", shape " + pc::shape_text(t.shape) +
               ") is not one the " + std::string(model_type) + " layout with this config names: nsc cannot prune it");
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
  std::map<std::string, const tensor_entry*> by_name;
  for (const tensor_entry& t : in.tensors) by_name[fam.canonical(t.name, space)] = &t;
  for (const tensor_entry& t : in.tensors) {
    pc::tensor_op op;
    op.src = &t;
    op.out = {t.name, t.dtype, t.shape};
    const auto lr = pc::layer_of(fam.canonical(t.name, space));
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
        if (!n.empty() && (name == std::string(n) + ".weight" || name == std::string(n) + ".bias")) return true;
      return false;
    };
    if (std::find(fam.layer_buffers.begin(), fam.layer_buffers.end(), rest) != fam.layer_buffers.end()) {
      if (k.attention || k.ffn) ops.push_back(std::move(op)); // the identity layer loses its scale
      continue;
    }
    const bool attn = rest.rfind("self_attn.", 0) == 0 || is_norm(rest, fam.attn_norms);
    if (attn) {
      if (!k.attention && !(k.ffn && pc::prune_shared_norm_tensor(fam, space.layers[std::size_t(l)], rest))) continue;
      if (b.attention.kind != attention_kind::standard || fam.transposed) { // MLA, Conv1D (heads kept): whole
        ops.push_back(std::move(op));
        continue;
      }
      std::vector<std::vector<std::int64_t>> qh;
      for (std::int64_t h : k.q_heads) qh.push_back({h});
      const std::int64_t nq = std::int64_t(k.q_heads.size()) * hd, nk = std::int64_t(k.kv_groups.size()) * hd;
      if (rest == "self_attn.qkv_grouped.weight" || rest == "self_attn.qkv_grouped.bias") {
        op.rows = pc::grouped_op_rows(b, k, hd);
        op.out.shape[0] = nq + 2 * nk;
      } else if (rest == "self_attn.qkv_proj.weight" || rest == "self_attn.qkv_proj.bias") { // [q; k; v] rows
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
      } else if (!fam.sinks.empty() && rest == fam.sinks) { // one logit per query head
        op.rows = pc::singletons(k.q_heads);
        op.out.shape[0] = std::int64_t(k.q_heads.size());
      } else if (fam.qk_norm_head_rows && rest == std::string(fam.q_norm) + ".weight" && t.shape.size() == 2) {
        op.rows = pc::singletons(k.q_heads); // cohere: one row per query head (19j)
        op.out.shape[0] = std::int64_t(k.q_heads.size());
      } else if (fam.qk_norm_head_rows && rest == std::string(fam.k_norm) + ".weight" && t.shape.size() == 2) {
        op.rows = k.kv_groups; // one row per KV head (groups of one: pooling is refused)
        op.out.shape[0] = std::int64_t(k.kv_groups.size());
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
      if (fam.router_bias_row && !fam.router_bias.empty() && rest == fam.router_bias) { // [1, E]: columns = experts
        if (std::int64_t(k.experts.size()) != b.ffn.n_experts) {
          op.cols = k.experts;
          op.out.shape[1] = std::int64_t(k.experts.size());
        }
      } else if (rest == fam.router() || (!fam.router_bias.empty() && rest == fam.router_bias)) { // rows = experts
        if (std::int64_t(k.experts.size()) != b.ffn.n_experts) {
          op.rows = pc::singletons(k.experts);
          op.out.shape[0] = std::int64_t(k.experts.size());
        }
      } else if (fam.fused_experts() &&
                 pc::fused_op(fam, b, pc::fused_experts_of(fam, b, by_name, p), pc::fused_mxfp4(fam, by_name, p), rest,
                              k.experts, k.expert_channels, op)) { // sliced expert by expert
      } else if (const auto ex = pc::expert_of(rest, fam.moe)) {
        const auto it = std::find(k.experts.begin(), k.experts.end(), ex->first);
        if (it == k.experts.end()) continue;
        const std::size_t pos = std::size_t(it - k.experts.begin());
        op.out.name = fam.own(p + std::string(fam.moe) + "experts." + std::to_string(pos) + "." + ex->second, space,
                              fam.prefix_of(t.name));
        if (ex->second != std::string(fam.w_down) + ".bias") // down's bias (d): whole
          narrow(k.expert_channels[pos], ex->second != std::string(fam.w_down) + ".weight");
      } // the shared expert(s) and the shared gate: copied whole
    } else if (rest == "mlp.gate_proj.weight" || rest == "mlp.up_proj.weight" || rest == "mlp.gate_proj.bias" ||
               rest == "mlp.up_proj.bias") {
      narrow(k.channels, !(fam.transposed && t.shape.size() == 2)); // Conv1D c_fc: channels are columns
    } else if (rest == "mlp.down_proj.weight") {
      narrow(k.channels, fam.transposed);
    }
    ops.push_back(std::move(op));
  }
  pc::hybrid_outputs(fam, space, res.selection, ops); // hybrid layers (issue 19i)
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
