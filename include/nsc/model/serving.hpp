/// \file nsc/model/serving.hpp
/// Serving a model on GPUs: what one GPU holds under tensor / expert parallelism (vLLM's
/// sharding rules), the memory it needs (weights, KV cache, activations at the prefill chunk,
/// reserve, under the engine's gpu_memory_utilization), and a roofline estimate of decode and
/// prefill time, per sublayer and in total. Every figure is a sum over sublayers (attention and
/// FFN of each layer, plus the fixed part: embeddings, final norm, LM head), so NSC-DP budgets
/// it exactly (nsc/search/prune_space.hpp: memory_per_gpu, decode_time, prefill_time).
///
/// Synopsis
///
///     parallelism {tp, ep, dp}; serving_settings {gpu, par, utilization, chunk, reserve, eff.}
///     shard_spec(spec, par)                 the spec one GPU of a tp group holds
///     serving_entries(spec, load, s)        per network entry of one GPU: memory, decode / prefill ps
///     serve(spec, load, s)                  per sublayer and totals, fit, largest batch / context
///
/// Sharding (vLLM's ColumnParallel / RowParallel / VocabParallel layers; ceil for a count that
/// does not divide, i.e. the busiest GPU): query heads H / tp; KV heads K / tp when K >= tp, else
/// ONE KV head per GPU (replicated tp / K times: vLLM's num_kv_head_replicas, KV cache and
/// k/v projections both); MLA: heads / tp, the latent projections and the latent KV cache whole
/// on every GPU (vLLM caches the full latent per rank); FFN width d_ff / tp; MoE with ep = 1:
/// every expert's width / tp; with ep = tp: experts / ep at full width, top_k / ep of them
/// active per token (rounded up); shared experts width / tp; vocabulary (embedding, LM head)
/// V / tp; norms, o_proj / down_proj biases, routers and replace_with_linear sublayers whole on
/// every GPU. Not modelled: vLLM's vocabulary padding to a multiple of 64 (< 64 rows), the
/// all-reduce traffic between GPUs, pipeline parallelism.
///
/// Memory per GPU = weights + KV cache (context C x batch per replica) + activations + reserve,
/// which must be <= gpu_memory_utilization x memory (vLLM's budget: the KV cache gets what
/// is left of utilization x memory after weights and the profiled peak activation).
///   activations = chunk x 2 bytes x (2 d_model + max over sublayers of the widest projection
///                 output per token: (q + k + v heads) head_dim, or 2 x FFN width x active experts)
///                 + batch x (V / tp) x 8 bytes (fp32 logits and probabilities of the sampler)
///   chunk = max_num_batched_tokens (vLLM's default: 8192 on GPUs with >= 70 GiB other than
///           A100, else 2048, the OpenAI server's), reserve = CUDA context, cuBLAS / NCCL
///           workspaces (default 0.5 GiB; CUDA graphs come out of 1 - utilization).
///
/// Roofline, per sublayer on one GPU: time = max(bytes / (bandwidth x eta_bw),
/// linear FLOPs / (peak_w x eta_c) + attention FLOPs / (peak_bf16 x eta_c)), peak_w the dense
/// peak of the weight dtype (fp8: fp8 peak where the GPU has it, else bf16 (weight-only); int8:
/// int8 peak; int4 and 16-bit: bf16 peak); eta_bw = 0.8 and eta_c = 0.7 by default (sustained
/// fractions of the data-sheet bandwidth and dense peak; named, settable).
///  * decode step (b sequences at context C): bytes = weights read (MoE experts: the expected
///    number touched by b tokens, E (1 - (1 - k/E)^b), of E) + KV read (b x C cached tokens) +
///    KV written (b tokens); FLOPs = b x decode FLOPs per token (attention over min(C, W) keys).
///  * prefill (one sequence of T = C tokens, time to first token), in chunks of `chunk` tokens:
///    per chunk, weights read once, KV of the prefix read and the chunk's written, FLOPs of the
///    chunk's tokens (causal: each attends its prefix, min(p, W) keys). The LM head runs for the
///    last token only (vLLM computes logits of the sampled position).
/// Times are integers in picoseconds per sublayer (rounded to nearest), and every total is the
/// sum of those integers, so a budget in the knapsack and a re-read by nsc fit agree exactly.
#ifndef NSC_MODEL_SERVING_HPP
#define NSC_MODEL_SERVING_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/gpu.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/transformer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nsc {

/// How a model is spread over GPUs: tp-way tensor parallel, experts ep-way (1 or tp), dp replicas.
struct parallelism {
  std::int64_t tp = 1;
  std::int64_t ep = 1;
  std::int64_t dp = 1;
  std::int64_t gpus() const { return tp * dp; }
};

/// The serving engine and hardware (defaults: the file comment).
struct serving_settings {
  gpu_profile gpu;
  parallelism par;
  double gpu_memory_utilization = 0.9; ///< vLLM's default
  std::int64_t prefill_chunk = 0;      ///< max_num_batched_tokens (0: vLLM's default for the GPU)
  double reserve_bytes = 0.5 * 0x1p30; ///< CUDA context and workspaces per GPU
  double bandwidth_efficiency = 0.8;   ///< sustained / data-sheet bandwidth
  double compute_efficiency = 0.7;     ///< sustained / dense data-sheet peak
  /// The chunk in effect: prefill_chunk, or vLLM's default (8192 at >= 70 GiB unless A100, else 2048).
  std::int64_t chunk() const {
    if (prefill_chunk > 0) return prefill_chunk;
    const bool a100 = gpu.name.find("A100") != std::string::npos || gpu.name.find("a100") != std::string::npos;
    return gpu.memory_bytes >= 70 * 0x1p30 && !a100 ? 8192 : 2048;
  }
};

/// One network entry of one GPU (a layer of the shard; a run of identical layers: one layer).
struct serving_entry {
  std::string name;
  std::int64_t repeat = 1;
  bool block = false;                 ///< a "layers.<i>" entry
  std::uint64_t weight_bytes = 0;     ///< on one GPU
  std::uint64_t kv_bytes = 0;         ///< on one GPU at C x batch per replica
  double decode_seconds = 0, prefill_seconds = 0;
  double decode_bytes = 0, decode_flops = 0; ///< one decode step (roofline inputs)
  std::int64_t decode_ps = 0, prefill_ps = 0; ///< rounded to picoseconds
  bool decode_memory_bound = true;            ///< bytes / bandwidth >= FLOPs / peak at decode
  std::uint64_t memory_bytes() const { return weight_bytes + kv_bytes; }
};

namespace detail {

inline constexpr std::string_view serving_fn = "nsc::serve";

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

inline void check_serving(const serving_settings& s, const workload& w) {
  const auto& p = s.par;
  if (p.tp < 1 || p.tp > 4096) throw_invalid_argument(serving_fn, "tp must be in [1, 4096]", p.tp);
  if (p.dp < 1 || p.dp > 4096) throw_invalid_argument(serving_fn, "dp (replicas) must be in [1, 4096]", p.dp);
  if (p.ep != 1 && p.ep != p.tp)
    throw_invalid_argument(serving_fn, "ep must be 1 (experts split by width) or equal to tp (experts split by count)", p.ep);
  if (!(s.gpu.memory_bytes > 0 && s.gpu.bandwidth > 0 && s.gpu.bf16_flops > 0))
    throw_invalid_argument(serving_fn, "the GPU profile needs memory, bandwidth and a bf16 peak > 0", s.gpu.name);
  if (!(s.gpu_memory_utilization > 0 && s.gpu_memory_utilization <= 1))
    throw_invalid_argument(serving_fn, "gpu_memory_utilization must be in (0, 1]", s.gpu_memory_utilization);
  if (!(s.bandwidth_efficiency > 0 && s.bandwidth_efficiency <= 1))
    throw_invalid_argument(serving_fn, "bandwidth_efficiency must be in (0, 1]", s.bandwidth_efficiency);
  if (!(s.compute_efficiency > 0 && s.compute_efficiency <= 1))
    throw_invalid_argument(serving_fn, "compute_efficiency must be in (0, 1]", s.compute_efficiency);
  if (!(s.reserve_bytes >= 0 && s.reserve_bytes < 1e15)) throw_invalid_argument(serving_fn, "reserve must be in [0, 1e15) bytes", s.reserve_bytes);
  if (s.prefill_chunk < 0) throw_invalid_argument(serving_fn, "prefill_chunk must be >= 0 (0: the engine's default)", s.prefill_chunk);
  const std::int64_t steps = ceil_div(w.context_tokens(), s.chunk());
  if (steps > 1000000)
    throw_invalid_argument(serving_fn, "a prefill of more than 1,000,000 chunks (context / prefill_chunk); raise the chunk", steps);
}

/// Peak (FLOP/s) of the linear layers at the weight dtype.
inline double linear_peak(const gpu_profile& g, dtype t) {
  if (t == dtype::fp8 && g.fp8_flops > 0) return g.fp8_flops;
  if (t == dtype::int8 && g.int8_ops > 0) return g.int8_ops;
  return g.bf16_flops;
}

/// Expected experts of E touched by `tokens` tokens routing to k each (uniform routing).
inline double experts_touched(double E, double k, double tokens) {
  if (E <= 0) return 0;
  return E * (1 - std::pow(1 - k / E, tokens));
}

/// Sum over a chunk of t queries after a prefix of p tokens of min(p + i, W) (W = 0: none).
inline double chunk_keys(double p, double t, std::int64_t window) {
  if (window <= 0) return t * p + t * (t + 1) / 2;
  const double W = double(window);
  const double m = std::clamp(W - p, 0.0, t);
  return m * p + m * (m + 1) / 2 + (t - m) * W;
}

} // namespace detail

/// The spec one GPU of a tp group holds (rules in the file comment). std::invalid_argument as
/// validate() for a malformed spec, and for ep other than 1 or tp.
inline transformer_spec shard_spec(const transformer_spec& spec, const parallelism& p) {
  using detail::ceil_div;
  validate(spec, detail::serving_fn);
  if (p.tp < 1) throw_invalid_argument(detail::serving_fn, "tp must be >= 1", p.tp);
  if (p.ep != 1 && p.ep != p.tp) throw_invalid_argument(detail::serving_fn, "ep must be 1 or tp", p.ep);
  transformer_spec s = spec;
  const std::int64_t tp = p.tp;
  if (tp == 1 && p.ep == 1) return s;
  if (s.embeddings.vocab_size > 0) s.embeddings.vocab_size = ceil_div(s.embeddings.vocab_size, tp);
  for (block_spec& b : s.blocks) {
    attention_spec& a = b.attention;
    if (a.d_model == 0) a.d_model = spec.d_model;
    if (a.kind == attention_kind::standard) {
      const std::int64_t hd = a.head_size(), K = a.kv_heads();
      a.head_dim = hd;
      a.n_heads = ceil_div(a.n_heads, tp);
      a.n_kv_heads = K >= tp ? ceil_div(K, tp) : 1;
      if (a.n_kv_heads > a.n_heads) a.n_kv_heads = a.n_heads; // never more KV than query heads on a rank
      while (a.n_heads % a.n_kv_heads != 0) --a.n_kv_heads;  // a ceil that broke divisibility (busiest rank)
    } else if (a.kind == attention_kind::latent) {
      a.n_heads = ceil_div(a.n_heads, tp);
    }
    ffn_spec& f = b.ffn;
    if (f.kind == ffn_kind::standard) {
      if (f.n_experts > 0 && p.ep > 1) {
        f.n_experts = ceil_div(f.n_experts, p.ep);
        f.top_k = std::min(f.n_experts, ceil_div(f.top_k, p.ep));
      } else {
        f.d_ff = ceil_div(f.d_ff, tp);
      }
      if (f.shared_d_ff > 0) f.shared_d_ff = ceil_div(f.shared_d_ff, tp);
    }
  }
  return s;
}

/// Per network entry of one GPU's shard: memory, and decode / prefill roofline times (see the
/// file comment). `load` gives T (unused here), C = context, batch (per replica: ceil(batch /
/// dp)) and dtypes. Errors: std::invalid_argument for bad settings (check list in the file
/// comment), deploy()'s for a bad spec or workload.
inline std::vector<serving_entry> serving_entries(const transformer_spec& spec, const workload& load,
                                                  const serving_settings& s) {
  using namespace detail;
  check_serving(s, load);
  const transformer_spec sh = shard_spec(spec, s.par);
  workload w = load;
  w.batch = ceil_div(load.batch, s.par.dp);
  w.attention = attention_convention::causal;
  const deployment d = deploy(sh, w);
  const network net = make_transformer(sh, double(w.seq_len));
  const double C = double(w.context_tokens()), B = double(w.batch);
  const double bw = s.gpu.bandwidth * s.bandwidth_efficiency;
  const double p_lin = linear_peak(s.gpu, w.weights) * s.compute_efficiency;
  const double p_att = s.gpu.bf16_flops * s.compute_efficiency;
  const std::int64_t chunk = s.chunk();
  const double steps = std::ceil(C / double(chunk));
  std::vector<serving_entry> out;
  std::size_t block = 0;
  const stored_weights stored = w.stored ? *w.stored : stored_as(w.weights);
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const layer& l = net.layers[i];
    const layer_deployment& ld = d.layers[i];
    serving_entry e;
    e.name = l.name;
    e.repeat = l.repeat;
    e.block = l.name.rfind("layers.", 0) == 0 && block < sh.blocks.size();
    e.weight_bytes = ld.weight_bytes;
    e.kv_bytes = ld.kv_cache_bytes;
    // Weight bytes split into always-read and per-expert parts (as the checkpoint stores them).
    double fixed_bytes = double(plain_storage(l.norm_params, stored)) + double(plain_storage(l.other_params, stored));
    double expert_bytes = 0, E = 0, k = 0;
    for (const weight& x : l.weights) {
      double b = double(weight_storage(x, stored));
      if (x.kind == part::head && !x.counted) // a tied head reads the embedding table
        b = double(plain_storage(x.weight_params(), stored));
      if (x.kind == part::embedding) continue; // a lookup reads b rows: negligible
      if (x.copies > 1 && x.active_copies >= 0) {
        expert_bytes += b;
        E = double(x.copies);
        k = x.active_copies;
      } else {
        fixed_bytes += b;
      }
    }
    const double lin_tok = 2 * double(ld.linear_macs_per_token);
    const double kv_tok = double(ld.kv_bytes_per_token);
    const double apk = 2 * double(ld.attention_macs_per_key); // FLOPs per attended key
    if (e.block) {
      ++block;
      // decode: B tokens at context C
      const double keys = ld.window > 0 ? std::min(C, double(ld.window)) : C;
      e.decode_bytes = fixed_bytes + expert_bytes * (E > 0 ? experts_touched(E, k, B) / E : 1) + double(ld.kv_cache_bytes) +
                       B * kv_tok;
      const double lin = B * lin_tok, att = B * apk * keys;
      e.decode_flops = lin + att;
      e.decode_seconds = std::max(e.decode_bytes / bw, lin / p_lin + att / p_att);
      e.decode_memory_bound = e.decode_bytes / bw >= lin / p_lin + att / p_att;
      // prefill: one sequence of C tokens in chunks
      double t_total = 0;
      for (double j = 0; j < steps; ++j) {
        const double p = j * double(chunk), t = std::min(double(chunk), C - p);
        const double cached = ld.window > 0 ? std::min(p, double(ld.window)) : p;
        const double bytes = fixed_bytes + expert_bytes * (E > 0 ? experts_touched(E, k, t) / E : 1) + cached * kv_tok + t * kv_tok;
        const double fl = t * lin_tok, fa = apk * chunk_keys(p, t, ld.window);
        t_total += std::max(bytes / bw, fl / p_lin + fa / p_att);
      }
      e.prefill_seconds = t_total;
    } else {
      // embeddings, norms, LM head: decode B tokens; prefill: the head for the last token only
      e.decode_bytes = fixed_bytes + expert_bytes;
      e.decode_flops = B * lin_tok;
      e.decode_seconds = std::max(e.decode_bytes / bw, e.decode_flops / p_lin);
      e.prefill_seconds = lin_tok > 0 ? std::max((fixed_bytes + expert_bytes) / bw, lin_tok / p_lin) : 0;
    }
    e.decode_ps = std::llround(e.decode_seconds * 1e12);
    e.prefill_ps = std::llround(e.prefill_seconds * 1e12);
    out.push_back(std::move(e));
  }
  return out;
}

/// Activation bytes of one GPU at the prefill chunk (formula in the file comment) with `batch`
/// sequences per replica: chunk x 2 x (2 d + widest projection output) + batch x V/tp x 8.
inline double activation_bytes(const transformer_spec& shard, const serving_settings& s, std::int64_t batch) {
  double widest = 0;
  for (const block_spec& b : shard.blocks) {
    const attention_spec& a = b.attention;
    if (a.kind == attention_kind::standard)
      widest = std::max(widest, double(a.n_heads + 2 * a.kv_heads()) * double(a.head_size()));
    else if (a.kind == attention_kind::latent)
      widest = std::max(widest, double(a.n_heads) * double(2 * a.qk_head_size() + a.v_head_size()));
    const ffn_spec& f = b.ffn;
    if (f.kind == ffn_kind::standard) {
      const double active = f.n_experts > 0 ? double(f.top_k) : 1.0;
      widest = std::max(widest, 2 * double(f.d_ff) * active + 2 * double(f.shared_d_ff));
    }
  }
  const double per_token = 2 * double(shard.d_model) + widest;
  return double(s.chunk()) * 2 * per_token + double(batch) * double(shard.embeddings.vocab_size) * 8;
}

/// The block of a sublayer of b alone (attention or FFN; the other removed), with its share of
/// the block's norms (n_norms / sublayers present, as nsc/search/prune_space.hpp splits it; an odd
/// remainder goes to the FFN, so that the two sublayers hold every norm of the block). Gemma 4's
/// per-layer input (after the FFN) goes with the FFN sublayer.
inline block_spec sublayer_block(const block_spec& b, bool attention) {
  block_spec out = b;
  const bool has_attention = b.attention.kind != attention_kind::none;
  const std::int64_t present = std::int64_t(has_attention) + std::int64_t(b.ffn.kind != ffn_kind::none);
  const std::int64_t per = present > 0 ? b.n_norms / present : 0;
  if (attention) {
    out.ffn.kind = ffn_kind::none;
    out.n_norms = has_attention ? per : 0;
    out.per_layer_input = 0;
  } else {
    out.attention.kind = attention_kind::none;
    out.parallel.kind = attention_kind::none; // a parallel mixer belongs to the attention sublayer
    out.n_norms = b.ffn.kind != ffn_kind::none ? b.n_norms - (has_attention ? per : 0) : 0;
  }
  out.repeat = 1;
  return out;
}

/// The sublayer entry ("layers.0") of the one-block model {spec's fixed part, b} on one GPU.
inline serving_entry serving_block(const transformer_spec& spec, const block_spec& b, const workload& load,
                                   const serving_settings& s) {
  transformer_spec one = spec;
  one.blocks.assign(1, b);
  if (b.per_layer_input == 0) one.embeddings.per_layer_vocab = one.embeddings.per_layer_dim = 0; // an attention sublayer
  for (serving_entry& e : serving_entries(one, load, s))
    if (e.block) return e;
  return serving_entry{};
}

/// Serving one model: per sublayer, the fixed part, totals per GPU, fit, largest batch and context.
struct serving_report {
  workload load;
  serving_settings settings;
  std::int64_t chunk = 0;
  std::vector<serving_entry> attention, ffn; ///< per layer (every layer of the expanded spec)
  std::vector<serving_entry> fixed;          ///< embeddings, final norm, LM head, ...
  std::uint64_t weight_bytes = 0, kv_bytes = 0; ///< per GPU
  double activation_bytes = 0, reserve_bytes = 0, budget_bytes = 0; ///< per GPU; budget = utilization x memory
  double memory_bytes = 0;                   ///< weights + KV + activations + reserve (per GPU)
  bool fits = false;
  std::int64_t decode_ps = 0, prefill_ps = 0; ///< sums of the sublayers' integers
  std::int64_t max_batch = 0;                 ///< at this context (over all replicas; 0: none fits)
  std::int64_t max_context = 0;               ///< at this batch (0: none fits)
  double decode_seconds() const { return double(decode_ps) * 1e-12; }
  double prefill_seconds() const { return double(prefill_ps) * 1e-12; }
  double tokens_per_second() const { return decode_ps > 0 ? double(load.batch) / decode_seconds() : 0; }
};

/// Memory of one GPU (weights + KV + activations + reserve) for `spec` at context C, batch B.
inline double serving_memory(const transformer_spec& spec, workload w, const serving_settings& s) {
  const transformer_spec sh = shard_spec(spec, s.par);
  w.batch = detail::ceil_div(w.batch, s.par.dp);
  const deployment d = deploy(sh, w);
  return double(d.memory_bytes) + activation_bytes(sh, s, w.batch) + s.reserve_bytes;
}

/// Serves `spec` at `load` under `s` (see the file comment). The context is load.context_tokens().
/// limits = false skips the largest batch and context (max_batch = max_context = 0).
inline serving_report serve(const transformer_spec& spec_in, const workload& load, const serving_settings& s,
                            bool limits = true) {
  using namespace detail;
  check_serving(s, load);
  const transformer_spec spec = expand(spec_in);
  serving_report r;
  r.load = load;
  r.settings = s;
  r.chunk = s.chunk();
  for (const serving_entry& e : serving_entries(spec, load, s))
    if (!e.block) r.fixed.push_back(e);
  using nsc::detail::checked_add;
  constexpr std::string_view fn = "nsc::serve";
  for (const block_spec& b : spec.blocks) {
    r.attention.push_back(serving_block(spec, sublayer_block(b, true), load, s));
    r.ffn.push_back(serving_block(spec, sublayer_block(b, false), load, s));
  }
  auto add = [&](const serving_entry& e) {
    r.weight_bytes += e.weight_bytes * std::uint64_t(e.repeat);
    r.kv_bytes += e.kv_bytes * std::uint64_t(e.repeat);
    r.decode_ps = checked_add(r.decode_ps, e.decode_ps * e.repeat, fn, "decode time");
    r.prefill_ps = checked_add(r.prefill_ps, e.prefill_ps * e.repeat, fn, "prefill time");
  };
  for (const auto& e : r.fixed) add(e);
  for (std::size_t i = 0; i < r.attention.size(); ++i) add(r.attention[i]), add(r.ffn[i]);
  const transformer_spec sh = shard_spec(spec, s.par);
  const std::int64_t b_rep = ceil_div(load.batch, s.par.dp);
  r.activation_bytes = activation_bytes(sh, s, b_rep);
  r.reserve_bytes = s.reserve_bytes;
  r.budget_bytes = s.gpu_memory_utilization * s.gpu.memory_bytes;
  r.memory_bytes = double(r.weight_bytes) + double(r.kv_bytes) + r.activation_bytes + r.reserve_bytes;
  r.fits = r.memory_bytes <= r.budget_bytes;
  if (!limits) return r;
  // Largest batch at this context: weights + b (KV per sequence + logits per sequence) + rest <= budget.
  {
    workload one = load;
    one.batch = 1;
    const deployment d1 = deploy(sh, one);
    const double kv1 = double(d1.kv_cache_bytes);
    const double act0 = activation_bytes(sh, s, 0), per_seq_logits = activation_bytes(sh, s, 1) - act0;
    const double room = r.budget_bytes - double(d1.weight_bytes) - act0 - s.reserve_bytes;
    const double per = kv1 + per_seq_logits;
    const double b = room < per ? 0 : std::floor(room / per);
    r.max_batch = std::int64_t(std::min(b, 1e12)) * s.par.dp;
  }
  // Longest context at this batch: bisection on C (memory is non-decreasing in C).
  {
    workload w = load;
    auto fits_at = [&](std::int64_t c) {
      w.context = c;
      try {
        return serving_memory(spec, w, s) <= r.budget_bytes;
      } catch (const std::domain_error&) { // bytes beyond 2^64: does not fit
        return false;
      }
    };
    std::int64_t lo = 0, hi = std::int64_t(1) << 40;
    if (fits_at(hi)) lo = hi;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (fits_at(mid) ? lo : hi) = mid;
    }
    r.max_context = lo;
  }
  return r;
}

} // namespace nsc

#endif // NSC_MODEL_SERVING_HPP
