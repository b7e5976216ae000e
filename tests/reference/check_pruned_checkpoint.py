#!/usr/bin/python3
"""Independent check of a checkpoint written by `nsc prune ... --weights ORIG --emit-checkpoint OUT`.

Usage: /usr/bin/python3 check_pruned_checkpoint.py ORIG_DIR OUT_DIR [--tol 1e-5] [--tokens N]

Nothing here comes from nsc but the files under test. The script
 1. reads both checkpoints with its own safetensors reader and the emitted config.json (the
    per-layer_config, DeciLM block_configs or nsc intermediate_sizes formats) to get every
    layer's query heads h, KV heads k, FFN width w, experts e, or a removed sublayer; the
    families' tensor names from LAYOUTS (llama-like, phi3's fused qkv_proj / gate_up_proj,
    mixtral's block_sparse_moe, qwen2_moe / qwen3_moe's mlp.experts with qwen2_moe's shared
    expert and its sigmoid gate, and qwen's dense mlp_only_layers; the norms before / after each
    sublayer of gemma3, exaone4 and glm4; DeepSeek's MLA and MoE (deepseek_v2 / v3, glm4_moe); the
    families under their own names in OWN (starcoder2, gpt_neox, falcon, opt, internlm2: renamed to
    llama's, the fused query_key_value / wqkv split by KV group, LayerNorm and Linear biases));
 2. recomputes from the original weights which query heads, KV groups, FFN channels and
    experts survive by the documented criterion nsc_prune.json names (docs/prune.md "Pruned checkpoints":
    magnitude: ||Q_i||_F ||O_i||_F per query head, ||gate_c|| ||up_c|| ||down_c|| per channel, the
    product of the Frobenius norms per expert; spectral: the greedy largest psi_W of the kept
    matrices, recomputed by brute force with numpy's slogdet; contiguous KV groups mean-pooled;
    --uniform's removed last layers) and requires
    OUT/nsc_prune.json and every emitted tensor to agree (kept rows / columns bit-exact, pooled
    K / V rows to float32 rounding);
 3. runs its own numpy forward pass (float64; llama / qwen2 / qwen3 / gemma / phi3 / mixtral / qwen MoE
    blocks: RMSNorm (gemma: 1 + w, scaled embeddings, GELU-tanh), RoPE, q/k/v biases, q_norm / k_norm, GQA causal attention, SwiGLU, top-k
    routing with or without renormalisation (norm_topk_prob), shared expert; gemma3's sliding layers
    and query_pre_attn_scalar; post-norms; multi-head latent attention; DeepSeek-V3 / GLM-4.5
    sigmoid routing chosen by score + e_score_correction_bias, routed_scaling_factor; forward_own's
    LayerNorm decoders with the parallel block of gpt_neox / falcon. RoPE is
    applied in one layout over the whole rotary width: the same function on both sides) of the emitted model and of
    the ORIGINAL model with the dropped heads / channels / experts masked and each KV head
    replaced by its group's mean, and requires the logits to agree to --tol (absolute).
gpt_oss and granitemoe (fused 3-D expert tensors; gpt_oss in BF16 or with MXFP4 experts) take their
own block at the end of this file (FUSED: reader, selection, tensor check, forward pass with
attention sinks, biases, the clamped SwiGLU and granite's multipliers; pooled K / V rounded to the
stored dtype on both sides).
Exit 0 with a one-line summary, 1 with the first disagreement.
"""
import json
import math
import os
import struct
import sys

import numpy as np


# Family tensor layouts (transformers' checkpoint names): MoE prefix and expert matrix names,
# fused q/k/v and gate/up rows (phi3), shared expert (qwen2_moe).
# gemma: RMSNorm (1 + w), embeddings scaled by sqrt(hidden), GELU (tanh); gemma3: plus four norms per
# layer (norms: attention side, FFN side) and per-head q_norm / k_norm; mla: DeepSeek's multi-head
# latent attention and MoE (mlp.shared_experts, router e_score_correction_bias).
# norms: ((before, after) attention, (before, after) FFN), None where the family has none.
GEMMA3_NORMS = (("input_layernorm", "post_attention_layernorm"), ("pre_feedforward_layernorm", "post_feedforward_layernorm"))
DS_MOE = dict(moe="mlp.", shared=True, ds_moe=True)  # DeepSeek's MoE: mlp.shared_experts, first_k_dense_replace
LAYOUTS = {"mixtral": dict(moe="block_sparse_moe.", names=("w1", "w3", "w2")),
           "qwen2_moe": dict(moe="mlp.", shared=True), "qwen3_moe": dict(moe="mlp."), "phi3": dict(fused=True, fused_gu=True),
           "gemma": dict(gemma=True), "gemma3_text": dict(gemma=True, norms=GEMMA3_NORMS),
           "deepseek_v2": dict(DS_MOE, mla=True), "deepseek_v3": dict(DS_MOE, mla=True),
           "exaone4": dict(norms=((None, "post_attention_layernorm"), (None, "post_feedforward_layernorm"))),
           "glm4": dict(fused_gu=True, norms=(("input_layernorm", "post_self_attn_layernorm"),
                                              ("post_attention_layernorm", "post_mlp_layernorm"))),
           "glm4_moe": dict(DS_MOE), "gemma2": dict(gemma=True, norms=GEMMA3_NORMS),
           # per-head q/k norms under other names, applied after RoPE
           "hunyuan_v1_dense": dict(qk=("query_layernorm", "key_layernorm"), qk_after_rope=True),
           # q_norm / k_norm over the whole projection (heads kept); olmo2 post-norms, olmoe qwen's MoE
           "olmo2": dict(qk_whole=True, norms=((None, "post_attention_layernorm"), (None, "post_feedforward_layernorm"))),
           "olmoe": dict(qk_whole=True, moe="mlp."),
           "minimax_m2": dict(qk_whole=True, moe="block_sparse_moe.", names=("w1", "w3", "w2"),
                              rbias="block_sparse_moe.e_score_correction_bias"),
           # issue 19j (forward_19j): cohere's q_norm / k_norm one row per head (qk_rows); phimoe mixtral's names
           "cohere": dict(qk_rows=True), "cohere2": dict(), "phimoe": dict(moe="block_sparse_moe.", names=("w1", "w3", "w2"))}
# the families whose experts' width is intermediate_size (mixtral's naming)
MIXTRAL_WIDTH = ("mixtral", "olmoe", "minimax_m2", "phimoe")


def shared_norm(cfg):
    """Whether a layer's one norm feeds both its parallel attention and MLP (issue 19j): cohere, cohere2 and
    falcon with parallel_attn and one LayerNorm (falcon-7b). The norm stays while either sublayer does."""
    mt = cfg["model_type"]
    return mt in ("cohere", "cohere2") or (mt == "falcon" and cfg.get("parallel_attn", True) and
                                          cfg.get("num_ln_in_parallel_attn") in (None, 1) and
                                          not cfg.get("new_decoder_architecture", False))


def lay(cfg):
    d = dict(moe=None, names=("gate_proj", "up_proj", "down_proj"), fused=False, fused_gu=False, shared=False, gemma=False,
             norms=(("input_layernorm", None), ("post_attention_layernorm", None)), mla=False, ds_moe=False,
             qk=("q_norm", "k_norm"), qk_after_rope=False, qk_whole=False, rbias=None, qk_rows=False)
    d.update(LAYOUTS.get(cfg["model_type"], {}))
    return d


def n_experts(cfg):
    return cfg.get("num_local_experts") or cfg.get("num_experts") or cfg.get("n_routed_experts") or 0


def is_moe_layer(cfg, i):
    if not n_experts(cfg):
        return False
    if cfg["model_type"] in MIXTRAL_WIDTH:
        return True
    if lay(cfg)["ds_moe"]:
        return i >= cfg.get("first_k_dense_replace", 0) and i % cfg.get("moe_layer_freq", 1) == 0
    return i not in cfg.get("mlp_only_layers", []) and (i + 1) % cfg.get("decoder_sparse_step", 1) == 0


def expert_width(cfg):
    return cfg["intermediate_size"] if cfg["model_type"] in MIXTRAL_WIDTH else cfg["moe_intermediate_size"]


def qkv(W, p, H, K, hd, fused):
    """q, k, v weights and biases (None when absent) of a layer."""
    if fused:
        w, b = W[p + "self_attn.qkv_proj.weight"], W.get(p + "self_attn.qkv_proj.bias")
        cut = lambda x: (x[:H * hd], x[H * hd:(H + K) * hd], x[(H + K) * hd:]) if x is not None else (None,) * 3
        return cut(w) + cut(b)
    g = lambda m, t: W.get(p + f"self_attn.{m}_proj.{t}")
    return g("q", "weight"), g("k", "weight"), g("v", "weight"), g("q", "bias"), g("k", "bias"), g("v", "bias")


def gate_up(W, p, F, fused):
    if fused:
        x = W[p + "mlp.gate_up_proj.weight"]
        return x[:F], x[F:]
    return W.get(p + "mlp.gate_proj.weight"), W[p + "mlp.up_proj.weight"]  # no gate (GELU / ReLU MLP): None


def expert(W, p, cfg, e, m):
    """m: 0 gate, 1 up, 2 down of expert e."""
    L = lay(cfg)
    return W[p + f"{L['moe']}experts.{e}.{L['names'][m]}.weight"]


def read_safetensors_dir(d):
    """name -> float64 array of a directory of F32 safetensors files (read_typed_dir's reader)."""
    out = {}
    for name, (a, dt) in read_typed_dir(d).items():
        assert dt == "F32", (d, name, dt)
        out[name] = a
    return out


def layer_shapes(cfg):
    """Per layer: dict(h, k, hd, w, e) with h = None (attention removed) or w = None (FFN removed)."""
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    K = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or d // H
    L = cfg["num_hidden_layers"]
    out = []
    for i in range(L):
        moe = is_moe_layer(cfg, i)
        s = {"h": H, "k": K, "hd": hd, "w": expert_width(cfg) if moe else cfg.get("intermediate_size"),
             "e": n_experts(cfg) if moe else 0}
        if "block_configs" in cfg:
            b = cfg["block_configs"][i]
            a, f = b["attention"], b["ffn"]
            s["h"] = None if a["no_op"] else H
            s["k"] = None if a["no_op"] else H // a["n_heads_in_group"]
            if f["no_op"]:
                s["w"] = None
            elif f.get("intermediate_size") is not None:
                s["w"] = f["intermediate_size"]
            else:
                x = int(2 * f["ffn_mult"] * d / 3)
                s["w"] = x if x % 256 == 0 else x + 256 - x % 256
        if "intermediate_sizes" in cfg:
            s["w"] = cfg["intermediate_sizes"][i]
            if "expert_counts" in cfg:
                s["e"] = cfg["expert_counts"][i]
        p = cfg.get("per_layer_config", {}).get(str(i), {})
        s["h"] = p.get("num_attention_heads", s["h"])
        s["k"] = p.get("num_key_value_heads", s["k"])
        s["hd"] = p.get("head_dim", s["hd"])
        s["w"] = p.get("moe_intermediate_size" if moe and cfg["model_type"] not in MIXTRAL_WIDTH else "intermediate_size", s["w"])
        s["e"] = p.get("num_local_experts", p.get("num_experts", s["e"])) if moe else 0
        if "attention" in p.get("skip", []):
            s["h"] = None
        if "mlp" in p.get("skip", []):
            s["w"] = None
        out.append(s)
    return out


def top(score, n):
    """The n largest (ties: lower index), ascending."""
    idx = sorted(range(len(score)), key=lambda i: (-score[i], i))[:n]
    return sorted(idx)


def psi_rows(X):
    """psi_W of the matrix whose rows are X's: ln det(I + X X^T) (numpy's slogdet)."""
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return 0.0
    sign, v = np.linalg.slogdet(np.eye(X.shape[0]) + X @ X.T)
    assert sign > 0
    return float(v)


def round_robin(ranked):
    """Rank 0 of every group, then rank 1 of every group, ... (exhausted groups skipped)."""
    out, r = [], 0
    while any(r < len(g) for g in ranked):
        out += [g[r] for g in ranked if r < len(g)]
        r += 1
    return out


# Greedy orders of the checkpoint held in _CACHE_OWNER (keys: (id(W), layer, ...)). The owner is kept
# referenced and the cache cleared when another checkpoint comes: a freed dict's id() can be reused by
# the next one (CPython), which once served one model's cached head order to another.
_CACHE = {}
_CACHE_OWNER = [None]


def _own_cache(W):
    if _CACHE_OWNER[0] is not W:
        _CACHE.clear()
        _CACHE_OWNER[0] = W


def greedy_channels(mats, steps, key):
    """The spectral FFN order by brute force: step by step the channel c maximising
    sum_m psi_W(M_m[S + c]) (M_m's rows: gate rows, up rows, down columns); ties: lower c."""
    if key in _CACHE and len(_CACHE[key]) >= steps:
        return _CACHE[key][:steps]
    grams = [M @ M.T for M in mats]
    S = []
    for _ in range(steps):
        best, bv = None, -np.inf
        for c in range(mats[0].shape[0]):
            if c in S:
                continue
            idx = S + [c]
            v = sum(np.linalg.slogdet(np.eye(len(idx)) + G[np.ix_(idx, idx)])[1] for G in grams)
            if v > bv:
                bv, best = v, c
        S.append(best)
    _CACHE[key] = S
    return S


def greedy_heads(q, o, groups, G, hd, key):
    """The spectral query-head order for the KV groups: round-robin over the groups, each step the
    group's head i maximising psi_W(Q_i) + psi_W(o_proj columns of the heads taken + i)."""
    if key in _CACHE:
        return _CACHE[key]
    H = q.shape[0] // hd
    qpsi = [psi_rows(q[i * hd:(i + 1) * hd]) for i in range(H)]
    cands = [[i for x in g for i in range(x * G, (x + 1) * G)] for g in groups]
    seq = round_robin([[j] * len(c) for j, c in enumerate(cands)])
    S = []
    for j in seq:
        best, bv = None, -np.inf
        for i in cands[j]:
            if i in S:
                continue
            cols = [h * hd + r for h in S + [i] for r in range(hd)]
            v = sum(qpsi[h] for h in S + [i]) + psi_rows(o[:, cols].T)
            if v > bv:
                bv, best = v, i
        S.append(best)
    _CACHE[key] = S
    return S


def ffn_mats(W, p, cfg, e=None):
    if e is None:
        g, u = gate_up(W, p, cfg["intermediate_size"], lay(cfg)["fused_gu"])
        return [m for m in (g, u, W[p + "mlp.down_proj.weight"].T) if m is not None]
    return [expert(W, p, cfg, e, 0), expert(W, p, cfg, e, 1), expert(W, p, cfg, e, 2).T]


def keep_heads(q, o, H, K, hd, h, k, spectral, key):
    """The query heads kept and the KV groups pooled for (h, k) by the criterion (q: q_proj, o: o_proj)."""
    G = H // K
    groups = [list(range(j * K // k, (j + 1) * K // k)) for j in range(k)]
    if spectral:
        kept = set(greedy_heads(q, o, groups, G, hd, key)[:h])
        heads = [i for g in groups for x in g for i in range(x * G, (x + 1) * G) if i in kept]
    else:
        imp = [np.linalg.norm(q[i * hd:(i + 1) * hd]) * np.linalg.norm(o[:, i * hd:(i + 1) * hd]) for i in range(H)]
        heads = []
        for g in groups:
            cand = [i for x in g for i in range(x * G, (x + 1) * G)]
            heads += [cand[t] for t in top([imp[i] for i in cand], h // k)]
    return {"q_heads": heads, "kv_groups": groups}


def select(orig_cfg, W, shapes, criterion="magnitude"):
    """The documented criterion (magnitude or spectral), from the original weights."""
    d, H = orig_cfg["hidden_size"], orig_cfg["num_attention_heads"]
    K = orig_cfg.get("num_key_value_heads", H)
    hd = orig_cfg.get("head_dim") or d // H
    E = n_experts(orig_cfg)
    spectral = criterion == "spectral"
    _own_cache(W)
    sel = []
    for l, s in enumerate(shapes):
        p = f"model.layers.{l}."
        layer = {"attention": None, "ffn": None}
        moe = is_moe_layer(orig_cfg, l)
        F = expert_width(orig_cfg) if moe else orig_cfg["intermediate_size"]
        if s["h"] is not None and lay(orig_cfg)["mla"]:  # latent attention: kept whole (every head, no pooling)
            layer["attention"] = {"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]}
        elif s["h"] is not None:
            q, o = qkv(W, p, H, K, hd, lay(orig_cfg)["fused"])[0], W[p + "self_attn.o_proj.weight"]
            layer["attention"] = keep_heads(q, o, H, K, hd, s["h"], s["k"], spectral, (id(W), l, "heads", s["k"]))
        if s["w"] is not None:
            w = s["w"]

            def chan(gate, up, down):
                return list(np.linalg.norm(gate, axis=1) * np.linalg.norm(up, axis=1) * np.linalg.norm(down, axis=0))

            def spec(e):
                return sorted(greedy_channels(ffn_mats(W, p, orig_cfg, e), w, (id(W), l, "ffn", e))) if w < F else list(range(F))
            if moe:
                x = lambda e, m: expert(W, p, orig_cfg, e, {"w1": 0, "w3": 1, "w2": 2}[m])
                if spectral:
                    val = [sum(psi_rows(M[spec(e)]) for M in ffn_mats(W, p, orig_cfg, e)) for e in range(E)]
                    ex = top(val, s["e"])
                    layer["ffn"] = {"experts": ex, "expert_channels": [spec(e) for e in ex]}
                else:
                    eimp = [np.linalg.norm(x(e, "w1")) * np.linalg.norm(x(e, "w3")) * np.linalg.norm(x(e, "w2")) for e in range(E)]
                    ex = top(eimp, s["e"])
                    layer["ffn"] = {"experts": ex,
                                    "expert_channels": [top(chan(x(e, "w1"), x(e, "w3"), x(e, "w2")), w) for e in ex]}
            else:
                if spectral:
                    layer["ffn"] = {"channels": spec(None)}
                else:
                    mats, down = ffn_mats(W, p, orig_cfg), W[p + "mlp.down_proj.weight"]
                    imp = chan(*mats[:2], down) if len(mats) == 3 else \
                        list(np.linalg.norm(mats[0], axis=1) * np.linalg.norm(down, axis=0))  # no gate: ||up_c|| ||down_c||
                    layer["ffn"] = {"channels": top(imp, w)}
        sel.append(layer)
    return sel


def rmsnorm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x, theta):  # x: (T, n, hd); transformers' rotate_half convention
    T, _, hd = x.shape
    inv = 1.0 / theta ** (np.arange(0, hd, 2) / hd)
    f = np.outer(np.arange(T), inv)
    emb = np.concatenate([f, f], axis=-1)
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    x1, x2 = x[..., :hd // 2], x[..., hd // 2:]
    return x * cos + np.concatenate([-x2, x1], axis=-1) * sin


def silu(x):
    return x / (1 + np.exp(-x))


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def attend(q, k, v, mask, scale=None, head_mask=None, softcap=None, sinks=None):
    """Softmax attention of q (T, H, hd) on k, v (T, K, .): query head i reads KV head i // (H / K).
    Scores q k^T / sqrt(hd), or times `scale`; gemma2's soft-capping; plus `mask`; gpt_oss's `sinks`
    (one learned logit per head in the softmax's denominator); head i's output times head_mask[i].
    Returns (T, H v_dim)."""
    T, H, hd = q.shape
    G = H // k.shape[1]
    out = np.zeros((T, H, v.shape[2]))
    for i in range(H):
        j = i // G
        s = q[:, i] @ k[:, j].T / np.sqrt(hd) if scale is None else q[:, i] @ k[:, j].T * scale
        if softcap:
            s = np.tanh(s / softcap) * softcap
        s = s + mask
        m = s.max(axis=1, keepdims=True)
        if sinks is not None:
            m = np.maximum(m, sinks[i])
            pr = np.exp(s - m) / (np.exp(s - m).sum(axis=1, keepdims=True) + np.exp(sinks[i] - m))
        else:
            pr = np.exp(s - m) / np.exp(s - m).sum(axis=1, keepdims=True)
        out[:, i] = pr @ v[:, j] if head_mask is None else pr @ v[:, j] * head_mask[i]
    return out.reshape(T, H * v.shape[2])


def forward(cfg, W, layers, tokens):
    """layers[l]: dict(attn=None | dict(H, K, hd, q, k, v, qb, kb, vb, o, qn, kn, head_mask),
    ffn=None | dict(gate, up, down, mask) | dict(router, experts=[(w1, w3, w2, mask)], expert_mask, top_k,
    norm, shared=None | (gate, up, down, shared_gate)))."""
    if cfg["model_type"] in OWN:  # LayerNorm families under their own names
        return forward_own(cfg, W, layers, tokens)
    if cfg["model_type"] in ("cohere", "cohere2", "phimoe"):  # issue 19j
        return forward_19j(cfg, W, layers, tokens)
    eps, theta = cfg["rms_norm_eps"], cfg.get("rope_theta", 10000.0)
    gemma, (anorms, fnorms) = lay(cfg)["gemma"], lay(cfg)["norms"]
    act = gelu_tanh if gemma else silu
    rms = (lambda v, w, e: rmsnorm(v, 1 + w, e)) if gemma else rmsnorm
    x = W["model.embed_tokens.weight"][tokens] * (np.sqrt(cfg["hidden_size"]) if gemma else cfg.get("embedding_multiplier", 1.0))
    res = cfg.get("residual_multiplier", 1.0)  # granite
    T = len(tokens)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    for l, ly in enumerate(layers):
        p = f"model.layers.{l}."
        a = ly["attn"]
        if a is not None and a.get("mla"):
            x = x + mla_attention(cfg, W, p, rms(x, W[p + "input_layernorm.weight"], eps), causal)
        elif a is not None:
            hh = rms(x, W[p + anorms[0] + ".weight"], eps) if anorms[0] else x
            H, K, hd = a["H"], a["K"], a["hd"]
            lin = lambda w, b: hh @ w.T + (b if b is not None else 0.0)
            q, k = lin(a["q"], a["qb"]), lin(a["k"], a["kb"])
            if lay(cfg)["qk_whole"]:  # olmo2 / olmoe: one RMSNorm over all heads
                q, k = rmsnorm(q, a["qn"], eps), rmsnorm(k, a["kn"], eps)
            q, k = q.reshape(T, H, hd), k.reshape(T, K, hd)
            v = lin(a["v"], a["vb"]).reshape(T, K, hd)
            after = lay(cfg)["qk_after_rope"]
            if a["qn"] is not None and not after and not lay(cfg)["qk_whole"]:
                q, k = rms(q, a["qn"], eps), rms(k, a["kn"], eps)
            mask, th, scale = causal, theta, 1 / np.sqrt(hd)
            if "attention_multiplier" in cfg:  # granite
                scale = cfg["attention_multiplier"]
            if "query_pre_attn_scalar" in cfg:  # gemma2 / gemma3: sliding layers (window; gemma3: local RoPE base)
                scale = cfg["query_pre_attn_scalar"] ** -0.5
                g2 = cfg["model_type"] == "gemma2"
                if (l % 2 == 0) if g2 else ((l + 1) % cfg["sliding_window_pattern"] != 0):
                    th = theta if g2 else cfg["rope_local_base_freq"]
                    ii = np.arange(T)
                    mask = causal + np.where(ii[:, None] - ii[None, :] >= cfg["sliding_window"], -np.inf, 0.0)
            q, k = rope(q, th), rope(k, th)
            if a["qn"] is not None and after:
                q, k = rms(q, a["qn"], eps), rms(k, a["kn"], eps)
            y = attend(q, k, v, mask, scale, a["head_mask"], cfg.get("attn_logit_softcapping")) @ a["o"].T  # gemma2's cap
            x = x + res * (rms(y, W[p + anorms[1] + ".weight"], eps) if anorms[1] else y)
        f = ly["ffn"]
        if f is not None:
            hh = rms(x, W[p + fnorms[0] + ".weight"], eps) if fnorms[0] else x
            if "router" in f:
                keep = np.where(f["expert_mask"] > 0, 0.0, -np.inf)
                logits = hh @ f["router"].T
                if f["scoring"] == "sigmoid":  # DeepSeek-V3: sigmoid scores, chosen by score + bias
                    pr = 1 / (1 + np.exp(-logits))
                    choice = pr + (f["bias"] if f["bias"] is not None else 0.0) + keep
                else:
                    pr = np.exp(logits + keep - (logits + keep).max(axis=1, keepdims=True))
                    pr /= pr.sum(axis=1, keepdims=True)
                    choice = pr
                y = np.zeros_like(x)
                for t in range(T):
                    sel = sorted(range(len(pr[t])), key=lambda e: (-choice[t][e], e))[:f["top_k"]]
                    wsum = sum(pr[t][e] for e in sel) if f["norm"] else 1.0
                    for e in sel:
                        w1, w3, w2, m = f["experts"][e]
                        y[t] += f["scale"] * pr[t][e] / wsum * ((silu(hh[t] @ w1.T) * (hh[t] @ w3.T) * m) @ w2.T)
                if f["shared"] is not None:
                    g, u, dn, sg = f["shared"]
                    gate = (1 / (1 + np.exp(-(hh @ sg.T)))) if sg is not None else 1.0
                    y += gate * ((silu(hh @ g.T) * (hh @ u.T)) @ dn.T)
            else:
                y = ((act(hh @ f["gate"].T) * (hh @ f["up"].T)) * f["mask"]) @ f["down"].T
            x = x + res * (rms(y, W[p + fnorms[1] + ".weight"], eps) if fnorms[1] else y)
    x = rms(x, W["model.norm.weight"], eps)
    head = W.get("lm_head.weight", W["model.embed_tokens.weight"])
    logits = x @ head.T / cfg.get("logits_scaling", 1.0)  # granite
    cap = cfg.get("final_logit_softcapping")  # gemma2
    return np.tanh(logits / cap) * cap if cap else logits


def mla_attention(cfg, W, p, h, causal):
    """DeepSeek's multi-head latent attention of the normed input h (T, d): q from q_proj or
    q_b_proj(RMSNorm(q_a_proj h)); keys and values from kv_b_proj(RMSNorm(latent)) plus the
    shared rotary key; scale (nope + rope)^-1/2. (RoPE here in the rotate-half layout: the same
    function on both sides of the comparison.)"""
    eps, H = cfg["rms_norm_eps"], cfg["num_attention_heads"]
    nope, rp, vd, C = cfg["qk_nope_head_dim"], cfg["qk_rope_head_dim"], cfg["v_head_dim"], cfg["kv_lora_rank"]
    T = h.shape[0]
    if cfg.get("q_lora_rank"):
        q = rmsnorm(h @ W[p + "self_attn.q_a_proj.weight"].T, W[p + "self_attn.q_a_layernorm.weight"], eps)
        q = q @ W[p + "self_attn.q_b_proj.weight"].T
    else:
        q = h @ W[p + "self_attn.q_proj.weight"].T
    q = q.reshape(T, H, nope + rp)
    ckv = h @ W[p + "self_attn.kv_a_proj_with_mqa.weight"].T
    kv = rmsnorm(ckv[:, :C], W[p + "self_attn.kv_a_layernorm.weight"], eps) @ W[p + "self_attn.kv_b_proj.weight"].T
    kv = kv.reshape(T, H, nope + vd)
    theta = cfg.get("rope_theta", 10000.0)
    q_pe, k_pe = rope(q[..., nope:], theta), rope(ckv[:, None, C:], theta)
    qq = np.concatenate([q[..., :nope], q_pe], axis=-1)
    kk = np.concatenate([kv[..., :nope], np.broadcast_to(k_pe, (T, H, rp))], axis=-1)
    return attend(qq, kk, kv[..., nope:], causal) @ W[p + "self_attn.o_proj.weight"].T


def moe_ffn(cfg, W, p, E, ex, mask):
    """The MoE FFN of layer prefix p: router, experts ex (w1, w3, w2, channel mask), expert mask."""
    L = lay(cfg)
    shared = None
    if L["shared"] and L["ds_moe"]:
        sp = p + "mlp.shared_experts."
        shared = (W[sp + "gate_proj.weight"], W[sp + "up_proj.weight"], W[sp + "down_proj.weight"], None)
    elif L["shared"]:
        sp = p + "mlp.shared_expert."
        shared = (W[sp + "gate_proj.weight"], W[sp + "up_proj.weight"], W[sp + "down_proj.weight"],
                  W[p + "mlp.shared_expert_gate.weight"])
    norm = cfg.get("norm_topk_prob", False) if cfg["model_type"] not in ("mixtral", "minimax_m2") else True
    rbias = L["rbias"] or f"{L['moe']}gate.e_score_correction_bias"
    return dict(router=W[p + f"{L['moe']}gate.weight"], experts=ex, expert_mask=mask, top_k=cfg["num_experts_per_tok"],
                norm=norm, shared=shared, bias=W.get(p + rbias),
                scoring="sigmoid" if cfg["model_type"] == "glm4_moe" else cfg.get("scoring_func", "softmax"), scale=cfg.get("routed_scaling_factor", 1.0) if L["ds_moe"] else 1.0)


def attn_dict(W, p, H, K, hd, fused, q, k, v, head_mask, qk=("q_norm", "k_norm")):
    _, _, _, qb, kb, vb = qkv(W, p, H, K, hd, fused)
    return dict(H=H, K=K, hd=hd, q=q, k=k, v=v, qb=qb, kb=kb, vb=vb, o=W[p + "self_attn.o_proj.weight"],
                qn=W.get(p + f"self_attn.{qk[0]}.weight"), kn=W.get(p + f"self_attn.{qk[1]}.weight"), head_mask=head_mask)


def emitted_layers(cfg, W, shapes):
    fused = lay(cfg)["fused"]
    out = []
    for l, s in enumerate(shapes):
        p = f"model.layers.{l}."
        a = f = None
        if s["h"] is not None and lay(cfg)["mla"]:
            a = {"mla": True}
        elif s["h"] is not None:
            q, k, v = qkv(W, p, s["h"], s["k"], s["hd"], fused)[:3]
            a = attn_dict(W, p, s["h"], s["k"], s["hd"], fused, q, k, v, np.ones(s["h"]), lay(cfg)["qk"])
        if s["w"] is not None:
            if s["e"]:
                ex = [(expert(W, p, cfg, e, 0), expert(W, p, cfg, e, 1), expert(W, p, cfg, e, 2), np.ones(s["w"]))
                      for e in range(s["e"])]
                f = moe_ffn(cfg, W, p, s["e"], ex, np.ones(s["e"]))
            else:
                g, u = gate_up(W, p, s["w"], lay(cfg)["fused_gu"])
                f = dict(gate=g, up=u, down=W[p + "mlp.down_proj.weight"], mask=np.ones(s["w"]))
        out.append({"attn": a, "ffn": f})
    return out


def masked_layers(cfg, W, sel):
    """The original model, dropped heads / channels / experts masked, KV heads group-pooled."""
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    K = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or d // H
    E, fused = n_experts(cfg), lay(cfg)["fused"]
    out = []
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        moe = is_moe_layer(cfg, l)
        F = expert_width(cfg) if moe else cfg["intermediate_size"]
        a = f = None
        if s["attention"] is not None and lay(cfg)["mla"]:
            a = {"mla": True}
        elif s["attention"] is not None:
            q, k, v, _, kb, vb = qkv(W, p, H, K, hd, fused)
            k, v = k.copy(), v.copy()
            pooled = [k, v] + [b.copy() for b in (kb, vb) if b is not None]
            for g in s["attention"]["kv_groups"]:
                for m in pooled:
                    mean = np.mean([m[x * hd:(x + 1) * hd] for x in g], axis=0)
                    for x in g:
                        m[x * hd:(x + 1) * hd] = mean
            hm = np.zeros(H)
            hm[s["attention"]["q_heads"]] = 1
            a = attn_dict(W, p, H, K, hd, fused, q, pooled[0], pooled[1], hm, lay(cfg)["qk"])
            if kb is not None:
                a["kb"], a["vb"] = pooled[2], pooled[3]
        if s["ffn"] is not None:
            if moe:
                em = np.zeros(E)
                em[s["ffn"]["experts"]] = 1
                ex = []
                for e in range(E):
                    m = np.zeros(F)
                    if e in s["ffn"]["experts"]:
                        m[s["ffn"]["expert_channels"][s["ffn"]["experts"].index(e)]] = 1
                    ex.append((expert(W, p, cfg, e, 0), expert(W, p, cfg, e, 1), expert(W, p, cfg, e, 2), m))
                f = moe_ffn(cfg, W, p, E, ex, em)
            else:
                m = np.zeros(F)
                m[s["ffn"]["channels"]] = 1
                g, u = gate_up(W, p, F, lay(cfg)["fused_gu"])
                f = dict(gate=g, up=u, down=W[p + "mlp.down_proj.weight"], mask=m)
        out.append({"attn": a, "ffn": f})
    return out


def check_tensors(Wo, We, sel, cfg):
    """Every emitted tensor equals its slice of the original (pooled K / V: the mean, float32)."""
    d, H = cfg["hidden_size"], cfg["num_attention_heads"]
    K = cfg.get("num_key_value_heads", H)
    hd = cfg.get("head_dim") or d // H
    L = lay(cfg)
    expect = {}
    for n, t in Wo.items():
        if not n.startswith("model.layers."):
            expect[n] = t
    pool = lambda w, groups: np.concatenate([np.mean([w[x * hd:(x + 1) * hd] for x in g], axis=0) for g in groups]).astype(np.float32)
    shared = shared_norm(cfg)  # issue 19j: the one norm stays while either sublayer does
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        if s["attention"] is not None or (shared and s["ffn"] is not None):
            for n in filter(None, L["norms"][0]):
                expect[p + n + ".weight"] = Wo[p + n + ".weight"]
        if s["attention"] is not None and L["mla"]:  # kept whole
            for n in Wo:
                if n.startswith(p + "self_attn."):
                    expect[n] = Wo[n]
        elif s["attention"] is not None:
            a = s["attention"]
            qr = [h * hd + r for h in a["q_heads"] for r in range(hd)]
            q, k, v, qb, kb, vb = qkv(Wo, p, H, K, hd, L["fused"])
            if L["fused"]:
                expect[p + "self_attn.qkv_proj.weight"] = np.concatenate([q[qr], pool(k, a["kv_groups"]), pool(v, a["kv_groups"])])
            else:
                expect[p + "self_attn.q_proj.weight"] = q[qr]
                expect[p + "self_attn.k_proj.weight"] = pool(k, a["kv_groups"])
                expect[p + "self_attn.v_proj.weight"] = pool(v, a["kv_groups"])
                if qb is not None:
                    expect[p + "self_attn.q_proj.bias"] = qb[qr]
                    expect[p + "self_attn.k_proj.bias"] = pool(kb, a["kv_groups"])
                    expect[p + "self_attn.v_proj.bias"] = pool(vb, a["kv_groups"])
            expect[p + "self_attn.o_proj.weight"] = Wo[p + "self_attn.o_proj.weight"][:, qr]
            for m in L["qk"]:
                if p + f"self_attn.{m}.weight" in Wo:
                    expect[p + f"self_attn.{m}.weight"] = Wo[p + f"self_attn.{m}.weight"]
            if L["qk_rows"] and p + "self_attn.q_norm.weight" in Wo:  # cohere: one row per query / KV head
                expect[p + "self_attn.q_norm.weight"] = Wo[p + "self_attn.q_norm.weight"][a["q_heads"]]
                expect[p + "self_attn.k_norm.weight"] = Wo[p + "self_attn.k_norm.weight"][[g[0] for g in a["kv_groups"]]]
        if s["ffn"] is not None:
            f = s["ffn"]
            for n in filter(None, L["norms"][1] if not shared else ()):
                expect[p + n + ".weight"] = Wo[p + n + ".weight"]
            if "experts" in f:
                expect[p + f"{L['moe']}gate.weight"] = Wo[p + f"{L['moe']}gate.weight"][f["experts"]]
                rb = p + (L["rbias"] or f"{L['moe']}gate.e_score_correction_bias")
                if rb in Wo:
                    expect[rb] = Wo[rb][f["experts"]]
                for i, (e, ch) in enumerate(zip(f["experts"], f["expert_channels"])):
                    x = p + f"{L['moe']}experts.{e}."
                    y = p + f"{L['moe']}experts.{i}."
                    g, u, dn = L["names"]
                    expect[y + f"{g}.weight"] = Wo[x + f"{g}.weight"][ch]
                    expect[y + f"{u}.weight"] = Wo[x + f"{u}.weight"][ch]
                    expect[y + f"{dn}.weight"] = Wo[x + f"{dn}.weight"][:, ch]
                for n in Wo:
                    if n.startswith(p + "mlp.shared_expert"):
                        expect[n] = Wo[n]
            else:
                ch = f["channels"]
                F = cfg["intermediate_size"]
                g, u = gate_up(Wo, p, F, L["fused_gu"])
                if L["fused_gu"]:
                    expect[p + "mlp.gate_up_proj.weight"] = np.concatenate([g[ch], u[ch]])
                else:
                    if g is not None:
                        expect[p + "mlp.gate_proj.weight"] = g[ch]
                    expect[p + "mlp.up_proj.weight"] = u[ch]
                expect[p + "mlp.down_proj.weight"] = Wo[p + "mlp.down_proj.weight"][:, ch]
    if set(expect) != set(We):
        return f"tensor names differ: missing {sorted(set(expect) - set(We))[:5]}, extra {sorted(set(We) - set(expect))[:5]}"
    for n, t in expect.items():
        if t.shape != We[n].shape:
            return f"{n}: shape {We[n].shape}, expected {t.shape}"
        if not np.array_equal(np.asarray(t, dtype=np.float32), np.asarray(We[n], dtype=np.float32)):
            return f"{n}: values differ (max {np.max(np.abs(t - We[n]))})"
    return None


def verdict(err, moved, tol):
    """Exit code: the emitted logits equal the masked original's to tol, and the masks changed the logits."""
    if not err <= tol:
        print("FAIL: the emitted checkpoint does not compute the masked original")
        return 1
    if not moved > 100 * tol:
        print("FAIL: pruning did not change the model (the test would not see a wrong mask)")
        return 1
    return 0


def same_selection(reported, sel):
    """Whether nsc_prune.json's layers are the criterion's (prints the first difference)."""
    for l, (a, b) in enumerate(zip(reported, sel)):
        if a != b:
            print(f"FAIL: layer {l}: nsc_prune.json says {a}, the criterion gives {b}")
            return False
    if len(reported) != len(sel):
        print("FAIL: nsc_prune.json has a different number of layers")
        return False
    return True
# LayerNorm families under their own names (starcoder2, gpt_neox, falcon, opt): the layer prefix,
# {own: llama's} module renames, the fused query_key_value in KV-group order (for each KV head: its
# G query heads, its key, its value; gpt_neox G = 1), the outer tensors, the activation. Their
# tensors are renamed to llama's (own_canonical) so that select / check_tensors / the masks apply.
def gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))


OWN = {
    "starcoder2": dict(prefix="model.layers.", renames=(("mlp.c_fc", "mlp.up_proj"), ("mlp.c_proj", "mlp.down_proj")),
                       embed="model.embed_tokens.weight", final="model.norm", head="lm_head.weight", act=gelu_tanh),
    "gpt_neox": dict(prefix="gpt_neox.layers.", renames=(("attention.query_key_value", "self_attn.qkv"),
                                                         ("attention.dense", "self_attn.o_proj"),
                                                         ("mlp.dense_h_to_4h", "mlp.up_proj"),
                                                         ("mlp.dense_4h_to_h", "mlp.down_proj")),
                     embed="gpt_neox.embed_in.weight", final="gpt_neox.final_layer_norm", head="embed_out.weight", act=gelu_erf),
    "falcon": dict(prefix="transformer.h.", renames=(("self_attention.query_key_value", "self_attn.qkv"),
                                                     ("self_attention.dense", "self_attn.o_proj"),
                                                     ("mlp.dense_h_to_4h", "mlp.up_proj"), ("mlp.dense_4h_to_h", "mlp.down_proj"),
                                                     ("ln_attn", "input_layernorm"), ("ln_mlp", "post_attention_layernorm")),
                   embed="transformer.word_embeddings.weight", final="transformer.ln_f", head="lm_head.weight", act=gelu_erf),
    "opt": dict(prefix="model.decoder.layers.", renames=(("self_attn.out_proj", "self_attn.o_proj"), ("fc1", "mlp.up_proj"),
                                                         ("fc2", "mlp.down_proj"), ("self_attn_layer_norm", "input_layernorm"),
                                                         ("final_layer_norm", "post_attention_layernorm")),
                embed="model.decoder.embed_tokens.weight", final="model.decoder.final_layer_norm", head="lm_head.weight",
                act=lambda x: np.maximum(x, 0.0)),
    # RMSNorm, SwiGLU, wqkv in KV-group order with wo biased (remote code InternLM2ForCausalLM)
    "internlm2": dict(prefix="model.layers.", renames=(("attention.wqkv", "self_attn.qkv"), ("attention.wo", "self_attn.o_proj"),
                                                       ("feed_forward.w1", "mlp.gate_proj"), ("feed_forward.w3", "mlp.up_proj"),
                                                       ("feed_forward.w2", "mlp.down_proj"), ("attention_norm", "input_layernorm"),
                                                       ("ffn_norm", "post_attention_layernorm")),
                      embed="model.tok_embeddings.weight", final="model.norm", head="output.weight", act=silu),
    # Conv1D weights stored (in, out), transposed back here; attn.c_attn = [q | k | v] (stacked)
    "gpt2": dict(prefix="transformer.h.", renames=(("attn.c_attn", "self_attn.qkv_stacked"), ("attn.c_proj", "self_attn.o_proj"),
                                                   ("mlp.c_fc", "mlp.up_proj"), ("mlp.c_proj", "mlp.down_proj"),
                                                   ("ln_1", "input_layernorm"), ("ln_2", "post_attention_layernorm")),
                 transposed=True, embed="transformer.wte.weight", final="transformer.ln_f", head="lm_head.weight", act=gelu_tanh),
}


def own_config(cfg):
    """The config with llama's keys for layer_shapes / select: intermediate_size, num_key_value_heads."""
    c = dict(cfg)
    for a, b in (("n_embd", "hidden_size"), ("n_head", "num_attention_heads"), ("n_layer", "num_hidden_layers"),
                 ("n_inner", "intermediate_size")):  # gpt2's keys
        if a in c and c.get(b) is None:
            c[b] = c[a]
    mt, H = c["model_type"], c["num_attention_heads"]
    c.setdefault("intermediate_size", c.get("ffn_dim") or c.get("ffn_hidden_size") or 4 * c["hidden_size"])
    if mt == "falcon":
        c["num_key_value_heads"] = (c.get("num_kv_heads") or H) if c.get("new_decoder_architecture") else \
            (1 if c.get("multi_query", True) else H)
    elif mt in ("gpt_neox", "opt", "gpt2"):
        c["num_key_value_heads"] = H
    return c


def own_canonical(cfg, W, shapes):
    """W under llama's layer names; each fused query_key_value split into q_proj / k_proj / v_proj
    (weights and biases) by the layer's (h, k): rows viewed as (k, h / k + 2, head_dim)."""
    O = OWN[cfg["model_type"]]
    out = {}
    for n, t in W.items():
        if not n.startswith(O["prefix"]):
            out[n] = t
            continue
        l, rest = n[len(O["prefix"]):].split(".", 1)
        for a, b in O["renames"]:
            if rest.startswith(a + "."):
                rest = b + rest[len(a):]
                break
        out[f"model.layers.{l}.{rest}"] = t.T if O.get("transposed") and t.ndim == 2 else t
    for l, s in enumerate(shapes):
        for kind in ("weight", "bias"):  # [q; k; v] rows (gpt2 after the transposition)
            x = out.pop(f"model.layers.{l}.self_attn.qkv_stacked.{kind}", None)
            if x is not None:
                h, k, hd = s["h"], s["k"], s["hd"]
                p = f"model.layers.{l}.self_attn."
                out[p + f"q_proj.{kind}"], out[p + f"k_proj.{kind}"], out[p + f"v_proj.{kind}"] = \
                    x[:h * hd], x[h * hd:(h + k) * hd], x[(h + k) * hd:]
        for kind in ("weight", "bias"):
            x = out.pop(f"model.layers.{l}.self_attn.qkv.{kind}", None)
            if x is None:
                continue
            h, k, hd = s["h"], s["k"], s["hd"]
            G = h // k
            g = x.reshape((k, G + 2, hd) + x.shape[1:])
            p = f"model.layers.{l}.self_attn."
            out[p + f"q_proj.{kind}"] = g[:, :G].reshape((h * hd,) + x.shape[1:])
            out[p + f"k_proj.{kind}"] = g[:, G].reshape((k * hd,) + x.shape[1:])
            out[p + f"v_proj.{kind}"] = g[:, G + 1].reshape((k * hd,) + x.shape[1:])
    return out


def check_tensors_own(Wo, We, sel, cfg):
    """check_tensors plus the biases it does not know: LayerNorm biases kept with their sublayer,
    o_proj's and down_proj's kept whole, up_proj's sliced with the channels."""
    extra = lambda n: n.startswith("model.layers.") and n.endswith(".bias") and any(
        x in n for x in (".input_layernorm.", ".post_attention_layernorm.", ".self_attn.o_proj.", ".mlp.up_proj.", ".mlp.down_proj."))
    expect = {}
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        if s["attention"] is not None or (shared_norm(cfg) and s["ffn"] is not None):  # 19j: a shared norm's bias
            if p + "input_layernorm.bias" in Wo:
                expect[p + "input_layernorm.bias"] = Wo[p + "input_layernorm.bias"]
        if s["attention"] is not None:
            for n in ("self_attn.o_proj.bias",):
                if p + n in Wo:
                    expect[p + n] = Wo[p + n]
        if s["ffn"] is not None:
            for n in ("post_attention_layernorm.bias", "mlp.down_proj.bias"):
                if p + n in Wo:
                    expect[p + n] = Wo[p + n]
            if p + "mlp.up_proj.bias" in Wo:
                expect[p + "mlp.up_proj.bias"] = Wo[p + "mlp.up_proj.bias"][s["ffn"]["channels"]]
    got = {n: t for n, t in We.items() if extra(n)}
    if set(got) != set(expect):
        return f"bias tensors differ: missing {sorted(set(expect) - set(got))[:5]}, extra {sorted(set(got) - set(expect))[:5]}"
    for n, t in expect.items():
        if t.shape != got[n].shape or not np.array_equal(t, got[n]):
            return f"{n}: shape {got[n].shape} or values differ from the original's slice {t.shape}"
    return check_tensors({n: t for n, t in Wo.items() if not extra(n)}, {n: t for n, t in We.items() if not extra(n)}, sel, cfg)


def layernorm(x, w, b, eps):
    m = x.mean(axis=-1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def forward_own(cfg, W, layers, tokens):
    """Starcoder2 / GPT-NeoX / Falcon / OPT / InternLM2 decoders (float64): LayerNorm with bias (InternLM2:
    RMSNorm, SwiGLU) before each sublayer, biased q/k/v/o and MLP, an MLP without gate (GELU tanh / erf, ReLU); RoPE on the whole
    head (starcoder2, falcon) or its first rotary_pct (gpt_neox), learned positions offset by 2 (opt);
    starcoder2's sliding window; the parallel block of gpt_neox (use_parallel_residual) and falcon
    (parallel_attn): x + attn(ln_1(x)) + mlp(ln_2(x)) with one residual add."""
    mt, O = cfg["model_type"], OWN[cfg["model_type"]]
    eps = cfg.get("norm_epsilon") or cfg.get("layer_norm_eps") or cfg.get("layer_norm_epsilon") or 1e-5
    T = len(tokens)
    x = W[O["embed"]][tokens]
    if mt == "opt":
        x = x + W["model.decoder.embed_positions.weight"][np.arange(T) + 2]
    if mt == "gpt2":
        x = x + W["transformer.wpe.weight"][np.arange(T)]
    ii = np.arange(T)
    mask = np.triu(np.full((T, T), -np.inf), 1)
    if mt == "starcoder2" and cfg.get("sliding_window"):
        mask = mask + np.where(ii[:, None] - ii[None, :] >= cfg["sliding_window"], -np.inf, 0.0)
    parallel = cfg.get("use_parallel_residual", True) if mt == "gpt_neox" else (cfg.get("parallel_attn", True) if mt == "falcon" else False)
    for l, ly in enumerate(layers):
        p = f"model.layers.{l}."
        ln = lambda v, n: layernorm(v, W[p + n + ".weight"], W[p + n + ".bias"], eps) if p + n + ".bias" in W else \
            rmsnorm(v, W[p + n + ".weight"], cfg["rms_norm_eps"])
        a, f, att = ly["attn"], ly["ffn"], 0.0
        if a is not None:
            hh = ln(x, "input_layernorm")
            H, K, hd = a["H"], a["K"], a["hd"]
            lin = lambda w, b: hh @ w.T + (b if b is not None else 0.0)
            q, k, v = lin(a["q"], a["qb"]).reshape(T, H, hd), lin(a["k"], a["kb"]).reshape(T, K, hd), lin(a["v"], a["vb"]).reshape(T, K, hd)
            if mt == "gpt_neox":
                rot = int(hd * cfg.get("rotary_pct", 1.0))
                th = cfg.get("rotary_emb_base", 10000.0)
                q = np.concatenate([rope(q[..., :rot], th), q[..., rot:]], axis=-1)
                k = np.concatenate([rope(k[..., :rot], th), k[..., rot:]], axis=-1)
            elif mt not in ("opt", "gpt2"):  # learned positions
                q, k = rope(q, cfg.get("rope_theta", 10000.0)), rope(k, cfg.get("rope_theta", 10000.0))
            att = attend(q, k, v, mask, head_mask=a["head_mask"]) @ a["o"].T + W.get(p + "self_attn.o_proj.bias", 0.0)
            if not parallel:
                x = x + att
                att = 0.0
        if f is not None:
            hh = ln(x, "input_layernorm" if shared_norm(cfg) else "post_attention_layernorm")  # falcon-7b: one norm
            u = hh @ f["up"].T + W.get(p + "mlp.up_proj.bias", 0.0)
            y = ((O["act"](hh @ f["gate"].T) * u if f["gate"] is not None else O["act"](u)) * f["mask"]) @ f["down"].T
            x = x + att + y + W.get(p + "mlp.down_proj.bias", 0.0)
        else:
            x = x + att
    x = layernorm(x, W[O["final"] + ".weight"], W[O["final"] + ".bias"], eps) if O["final"] + ".bias" in W else \
        rmsnorm(x, W[O["final"] + ".weight"], cfg["rms_norm_eps"])
    return x @ W.get(O["head"], W[O["embed"]]).T


# ---- Issue 19j: cohere / cohere2 (one CohereLayerNorm, weight only, before the parallel attention and MLP:
# x + attn(ln(x)) + mlp(ln(x)); RoPE on interleaved pairs; cohere's q_norm / k_norm a LayerNorm of each head
# over head_dim with that head's weight row, before RoPE; cohere2's sliding layers with RoPE and every
# sliding_window_pattern-th layer global without RoPE; logits times logit_scale) and phimoe (LayerNorm with
# bias before each sublayer, q/k/v/o biases, sparsemixer top-2 routing at inference, lm_head bias), written
# from modeling_cohere.py, modeling_cohere2.py and modeling_phimoe.py.
def rope_interleaved(x, theta):  # x: (T, n, hd); CohereRotaryEmbedding's repeat_interleave and rotate_half
    T, _, hd = x.shape
    f = np.outer(np.arange(T), 1.0 / theta ** (np.arange(0, hd, 2) / hd))
    emb = np.repeat(f, 2, axis=-1)
    rot = np.stack([-x[..., 1::2], x[..., ::2]], axis=-1).reshape(x.shape)
    return x * np.cos(emb)[:, None, :] + rot * np.sin(emb)[:, None, :]


def softmax_masked(g):
    e = np.where(np.isfinite(g), np.exp(g - g[np.isfinite(g)].max()), 0.0)
    return e / e.sum()


def sparsemixer_top2(scores, eps):
    """PhiMoE's sparsemixer at inference over the kept experts' router logits: the first expert the
    arg max, weighted by the softmax of the logits within 2 eps (relative) of the max; the second the
    arg max of the rest, weighted likewise. A dropped expert's logit at -infinity never passes the
    threshold test ((max - s) / |s| is NaN) and gets softmax weight 0: routing over the kept experts."""
    out = []
    masked = scores.copy()
    for _ in range(2):
        thr = masked.max()
        i = int(np.argmax(masked))
        factor = np.maximum(np.abs(scores), thr)
        g = np.where((thr - scores) / factor > 2 * eps, -np.inf, masked)
        out.append((i, softmax_masked(g)[i]))
        masked = masked.copy()
        masked[i] = -np.inf
    return out


def forward_19j(cfg, W, layers, tokens):
    mt, T = cfg["model_type"], len(tokens)
    cohere = mt in ("cohere", "cohere2")
    eps, theta = cfg["layer_norm_eps"] if cohere else cfg["rms_norm_eps"], cfg.get("rope_theta", 10000.0)
    ln = lambda v, n: layernorm(v, W[n + ".weight"], W.get(n + ".bias", 0.0), eps)  # CohereLayerNorm: no bias
    x = W["model.embed_tokens.weight"][tokens]
    causal = np.triu(np.full((T, T), -np.inf), 1)
    ii = np.arange(T)
    for l, ly in enumerate(layers):
        p = f"model.layers.{l}."
        a, f, att = ly["attn"], ly["ffn"], 0.0
        if a is not None:
            hh = ln(x, p + "input_layernorm")
            H, K, hd = a["H"], a["K"], a["hd"]
            lin = lambda w, b: hh @ w.T + (b if b is not None else 0.0)
            q, k, v = lin(a["q"], a["qb"]).reshape(T, H, hd), lin(a["k"], a["kb"]).reshape(T, K, hd), lin(a["v"], a["vb"]).reshape(T, K, hd)
            if a["qn"] is not None:  # (heads, head_dim) weights: each head normalised over head_dim
                q, k = layernorm(q, a["qn"], 0.0, eps), layernorm(k, a["kn"], 0.0, eps)
            mask, rotary = causal, True
            if mt == "cohere2":  # sliding layers: window and RoPE; global layers: neither
                rotary = (l + 1) % cfg["sliding_window_pattern"] != 0
                if rotary:
                    mask = causal + np.where(ii[:, None] - ii[None, :] >= cfg["sliding_window"], -np.inf, 0.0)
            if rotary:
                q, k = (rope_interleaved(q, theta), rope_interleaved(k, theta)) if cohere else (rope(q, theta), rope(k, theta))
            att = attend(q, k, v, mask, head_mask=a["head_mask"]) @ a["o"].T + W.get(p + "self_attn.o_proj.bias", 0.0)
        if cohere:  # parallel: the MLP reads the same norm
            y = 0.0
            if f is not None:
                hh = ln(x, p + "input_layernorm")
                y = ((silu(hh @ f["gate"].T) * (hh @ f["up"].T)) * f["mask"]) @ f["down"].T
            x = x + att + y
            continue
        x = x + att
        if f is not None:  # phimoe: the experts after post_attention_layernorm, sparsemixer over the kept experts
            hh = ln(x, p + "post_attention_layernorm")
            kept = np.flatnonzero(f["expert_mask"] > 0)
            logits = hh @ f["router"].T
            y = np.zeros_like(x)
            for t in range(T):
                for j, wgt in sparsemixer_top2(logits[t, kept], cfg["router_jitter_noise"]):
                    w1, w3, w2, m = f["experts"][kept[j]]
                    y[t] += wgt * ((silu(hh[t] @ w1.T) * (hh[t] @ w3.T) * m) @ w2.T)
            x = x + y
    x = ln(x, "model.norm")
    logits = x @ W.get("lm_head.weight", W["model.embed_tokens.weight"]).T + W.get("lm_head.bias", 0.0)
    return logits * cfg.get("logit_scale", 1.0) if cohere else logits


# ---- Hybrid layers (issue 19i): families whose Mamba-2 / Gated DeltaNet mixers are kept whole or
# removed (the layers renumbered), with their own forward pass: a naive Mamba-2 recurrence (depthwise
# causal conv1d + SiLU, per-head selective scan h_t = exp(dt A) h_{t-1} + dt x_t B_t^T, y_t = h_t C_t
# + D x_t, the gated, grouped RMSNorm y silu(z)), written from the Mamba-2 paper (Dao & Gu 2024)
# and NemotronHMamba2Mixer's semantics (no chunked scan).

def same_tensors(expect, We):
    """None when the emitted tensors are exactly `expect` (names, shapes, float32 values), else why."""
    if set(expect) != set(We):
        return f"tensor names differ: missing {sorted(set(expect) - set(We))[:5]}, extra {sorted(set(We) - set(expect))[:5]}"
    for n, t in expect.items():
        if t.shape != We[n].shape or not np.array_equal(np.asarray(t, np.float32), np.asarray(We[n], np.float32)):
            return f"{n}: shape {We[n].shape} / values differ from the original's slice {t.shape}"
    return None


def selection_and_tensors(pj, sel, expect, We):
    """None when nsc_prune.json's layers are the criterion's `sel` and the emitted tensors exactly `expect`, else why."""
    if pj["layers"] != sel:
        return f"nsc_prune.json {pj['layers']} differs from the criterion's {sel}"
    return same_tensors(expect, We)


def hybrid_verdict(what, le, lm, lu, tol):
    """Prints the summary line and returns None when the emitted logits le equal the masked original's
    lm to tol while pruning moved them (lm vs the unpruned lu), else why not."""
    err, moved = float(np.max(np.abs(le - lm))), float(np.max(np.abs(lm - lu)))
    print(f"{what}; max |logits(emitted) - logits(masked original)| = {err:.3g} (tol {tol:g}); pruning moved the logits "
          f"by {moved:.3g}; max |logit| {float(np.max(np.abs(le))):.3g}")
    if not err <= tol:
        return "the emitted checkpoint does not compute the masked original"
    if not moved > 100 * tol:
        return "pruning did not change the model (the test would not see a wrong mask)"
    return None


def softplus(x):
    return np.logaddexp(0.0, x)


def mamba2_mixer(cfg, W, p, h):
    """NemotronHMamba2Mixer of the normed input h (T, d), by the naive recurrence."""
    T = h.shape[0]
    H, P, G, N, K = cfg["mamba_num_heads"], cfg["mamba_head_dim"], cfg["n_groups"], cfg["ssm_state_size"], cfg["conv_kernel"]
    I, conv, eps = H * P, H * P + 2 * G * N, cfg["layer_norm_epsilon"]
    zxbcdt = h @ W[p + "in_proj.weight"].T
    z, xbc, dt = zxbcdt[:, :I], zxbcdt[:, I:I + conv], zxbcdt[:, I + conv:]
    cw = W[p + "conv1d.weight"][:, 0, :]  # (conv, K): out_t = sum_k w_k in_{t - (K - 1) + k}
    pad = np.vstack([np.zeros((K - 1, conv)), xbc])
    xbc = np.stack([(pad[t:t + K] * cw.T).sum(axis=0) for t in range(T)]) + W.get(p + "conv1d.bias", 0.0)
    xbc = silu(xbc)
    x, B, C = xbc[:, :I].reshape(T, H, P), xbc[:, I:I + G * N].reshape(T, G, N), xbc[:, I + G * N:].reshape(T, G, N)
    dt = np.maximum(softplus(dt + W[p + "dt_bias"]), cfg.get("time_step_min", 0.001))
    A = -np.exp(W[p + "A_log"])
    S, y = np.zeros((H, P, N)), np.zeros((T, H, P))
    for t in range(T):
        for i in range(H):
            g = i // (H // G)
            S[i] = np.exp(dt[t, i] * A[i]) * S[i] + dt[t, i] * np.outer(x[t, i], B[t, g])
            y[t, i] = S[i] @ C[t, g] + W[p + "D"][i] * x[t, i]
    y = y.reshape(T, I) * silu(z)
    if p + "norm.weight" in W:  # the gated RMSNorm over each group's I / G channels (falcon_h1 without it)
        y = y.reshape(T, G, I // G)
        y = (y / np.sqrt(np.mean(y * y, axis=-1, keepdims=True) + eps)).reshape(T, I) * W[p + "norm.weight"]
    return y @ W[p + "out_proj.weight"].T


def nemotron_h_forward(cfg, W, pre, layers, tokens):
    """layers: [(stored layer index, kind M / * / -, FFN channel mask or None)] in order."""
    eps, T = cfg["layer_norm_epsilon"], len(tokens)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    x = W[pre + "embeddings.weight"][tokens]
    for l, kind, mask in layers:
        p = f"{pre}layers.{l}."
        h = rmsnorm(x, W[p + "norm.weight"], eps)
        if kind == "M":
            y = mamba2_mixer(cfg, W, p + "mixer.", h)
        elif kind == "*":  # GQA without rotary positions
            H, K, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
            q = (h @ W[p + "mixer.q_proj.weight"].T).reshape(T, H, hd)
            k = (h @ W[p + "mixer.k_proj.weight"].T).reshape(T, K, hd)
            v = (h @ W[p + "mixer.v_proj.weight"].T).reshape(T, K, hd)
            y = attend(q, k, v, causal) @ W[p + "mixer.o_proj.weight"].T
        else:  # relu2 MLP
            y = (np.maximum(h @ W[p + "mixer.up_proj.weight"].T, 0.0) ** 2 * mask) @ W[p + "mixer.down_proj.weight"].T
        x = x + y
    return rmsnorm(x, W[pre + "norm_f.weight"], eps) @ W["lm_head.weight"].T


def check_nemotron_h(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """Selection, tensors and logits of a pruned nemotron_h checkpoint (the file comment, for one mixer
    per layer: a removed Mamba-2 layer leaves hybrid_override_pattern and the later layers renumber)."""
    pre = "backbone." if any(n.startswith("backbone.") for n in Wo) else "model."
    opat, epat, sel = ocfg["hybrid_override_pattern"], ecfg["hybrid_override_pattern"], pj["layers"]
    crit = pj.get("criterion", "magnitude")
    _own_cache(Wo)
    if len(sel) != len(opat):
        return "nsc_prune.json: expected one entry per original layer"
    kept = [l for l in range(len(opat)) if not (opat[l] == "M" and sel[l]["attention"] is None)]
    if "".join(opat[l] for l in kept) != epat or ecfg["num_hidden_layers"] != len(kept):
        return f"emitted pattern {epat} / {ecfg['num_hidden_layers']} layers is not the kept layers' {[opat[l] for l in kept]}"
    widths = ecfg["intermediate_sizes"]
    F, H, K = ocfg["intermediate_size"], ocfg["num_attention_heads"], ocfg["num_key_value_heads"]
    expect, olayers, elayers, full = {}, [], [], []
    for n, t in Wo.items():
        if not n.startswith(pre + "layers."):
            expect[n] = t
    for j, l in enumerate(kept):
        c, po, pe = opat[l], f"{pre}layers.{l}.", f"{pre}layers.{j}."
        want = {"attention": None, "ffn": None}
        if c == "-":
            up, down = Wo[po + "mixer.up_proj.weight"], Wo[po + "mixer.down_proj.weight"]
            if crit == "spectral":  # greedy largest psi_W of the kept up rows and down columns (brute force)
                ch = sorted(greedy_channels([up, down.T], widths[j], (id(Wo), l, "ffn", None))) if widths[j] < F else list(range(F))
            else:
                ch = top(list(np.linalg.norm(up, axis=1) * np.linalg.norm(down, axis=0)), widths[j])
            want["ffn"] = {"channels": ch}
            m = np.zeros(F)
            m[ch] = 1
            olayers.append((l, c, m))
            elayers.append((j, c, np.ones(len(ch))))
            full.append((l, c, np.ones(F)))
            expect[pe + "norm.weight"] = Wo[po + "norm.weight"]
            expect[pe + "mixer.up_proj.weight"], expect[pe + "mixer.down_proj.weight"] = up[ch], down[:, ch]
        else:
            want["attention"] = ({"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]} if c == "*"
                                 else {"q_heads": [], "kv_groups": []})
            for n, t in Wo.items():  # the mixer and its norm, byte for byte under the new index
                if n.startswith(po):
                    expect[pe + n[len(po):]] = t
            olayers.append((l, c, None))
            elayers.append((j, c, None))
            full.append((l, c, None))
        if sel[l] != want:
            return f"layer {l}: nsc_prune.json says {sel[l]}, the criterion gives {want}"
    removed = [l for l in range(len(opat)) if l not in kept]
    full = sorted(full + [(l, "M", None) for l in removed])
    bad = same_tensors(expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    le = nemotron_h_forward(ecfg, We, pre, elayers, tokens)
    lm = nemotron_h_forward(ocfg, Wo, pre, olayers, tokens)
    lu = nemotron_h_forward(ocfg, Wo, pre, full, tokens)
    return hybrid_verdict(f"nemotron_h ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                   f"{sum(t.size for t in We.values())} weights, pattern {opat} -> {epat} (Mamba-2 layers {removed} removed, "
                   f"the rest renumbered, every mixer tensor byte-identical), MLP widths "
                   f"{[widths[j] for j, l in enumerate(kept) if opat[l] == '-']}", le, lm, lu, tol)


# qwen3_next: a naive Gated DeltaNet (Yang et al. 2024: per value head, S_t = exp(g_t) S_{t-1} +
# k_t (beta_t (v_t - S^T k_t))^T, o_t = S_t^T q_t with L2-normed q, k and q scaled by dk^-1/2; conv1d +
# SiLU on q, k, v; the gated RMSNorm norm(o) w silu(z)), gated full attention (sigmoid of q_proj's
# second half per head, (1 + w) q / k norms, partial RoPE) and qwen's MoE with the gated shared expert.

def gated_deltanet(cfg, W, p, h):
    T = h.shape[0]
    HK, dk, HV, dv = cfg["linear_num_key_heads"], cfg["linear_key_head_dim"], cfg["linear_num_value_heads"], cfg["linear_value_head_dim"]
    r, K = HV // HK, cfg["linear_conv_kernel_dim"]
    if p + "in_proj_qkv.weight" in W:  # Qwen3.5: [q; k; v] rows, z, b and a apart
        mixed = h @ W[p + "in_proj_qkv.weight"].T
        z = (h @ W[p + "in_proj_z.weight"].T).reshape(T, HV, dv)
        b, a = h @ W[p + "in_proj_b.weight"].T, h @ W[p + "in_proj_a.weight"].T
    else:  # Qwen3-Next: q, k, v, z and b, a grouped per key head
        qkvz = (h @ W[p + "in_proj_qkvz.weight"].T).reshape(T, HK, 2 * dk + 2 * r * dv)
        ba = (h @ W[p + "in_proj_ba.weight"].T).reshape(T, HK, 2 * r)
        q, k = qkvz[..., :dk], qkvz[..., dk:2 * dk]
        v, z = qkvz[..., 2 * dk:2 * dk + r * dv].reshape(T, HV, dv), qkvz[..., 2 * dk + r * dv:].reshape(T, HV, dv)
        b, a = ba[..., :r].reshape(T, HV), ba[..., r:].reshape(T, HV)
        mixed = np.concatenate([q.reshape(T, -1), k.reshape(T, -1), v.reshape(T, -1)], axis=1)
    cw = W[p + "conv1d.weight"][:, 0, :]
    pad = np.vstack([np.zeros((K - 1, mixed.shape[1])), mixed])
    mixed = silu(np.stack([(pad[t:t + K] * cw.T).sum(axis=0) for t in range(T)]))
    q = mixed[:, :HK * dk].reshape(T, HK, dk)
    k = mixed[:, HK * dk:2 * HK * dk].reshape(T, HK, dk)
    v = mixed[:, 2 * HK * dk:].reshape(T, HV, dv)
    beta = 1 / (1 + np.exp(-b))
    g = -np.exp(W[p + "A_log"]) * softplus(a + W[p + "dt_bias"])
    l2 = lambda x: x / np.sqrt((x * x).sum(axis=-1, keepdims=True) + 1e-6)
    q, k = l2(q) / np.sqrt(dk), l2(k)
    o = np.zeros((T, HV, dv))
    for i in range(HV):
        S, j = np.zeros((dk, dv)), i // r
        for t in range(T):
            S = S * np.exp(g[t, i])
            S = S + np.outer(k[t, j], beta[t, i] * (v[t, i] - k[t, j] @ S))
            o[t, i] = q[t, j] @ S
    o = o / np.sqrt(np.mean(o * o, axis=-1, keepdims=True) + cfg["rms_norm_eps"]) * W[p + "norm.weight"] * silu(z)
    return o.reshape(T, HV * dv) @ W[p + "out_proj.weight"].T


def full_attention(cfg, l):
    if "layer_types" in cfg:
        return cfg["layer_types"][l] == "full_attention"
    return (l + 1) % cfg["full_attention_interval"] == 0


def rope_field(cfg, key, default):
    return cfg.get(key, cfg.get("rope_parameters", {}).get(key, default))


def qwen3_next_forward(cfg, W, layers, tokens):
    """layers[l]: (expert mask (E), per-expert channel masks) of layer l's MoE, or (the dense Qwen3.5:
    no num_experts) the channel mask of its gated MLP; every mixer kept."""
    eps, T = cfg["rms_norm_eps"], len(tokens)
    rms1 = lambda x, w: rmsnorm(x, 1 + w, eps)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    H, K, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    rd, theta = int(hd * rope_field(cfg, "partial_rotary_factor", 1.0)), rope_field(cfg, "rope_theta", 10000.0)
    x = W["model.embed_tokens.weight"][tokens]
    for l, ffn in enumerate(layers):
        p = f"model.layers.{l}."
        h = rms1(x, W[p + "input_layernorm.weight"])
        if full_attention(cfg, l):
            qg = (h @ W[p + "self_attn.q_proj.weight"].T).reshape(T, H, 2 * hd)
            q, gate = rms1(qg[..., :hd], W[p + "self_attn.q_norm.weight"]), qg[..., hd:].reshape(T, H * hd)
            k = rms1((h @ W[p + "self_attn.k_proj.weight"].T).reshape(T, K, hd), W[p + "self_attn.k_norm.weight"])
            v = (h @ W[p + "self_attn.v_proj.weight"].T).reshape(T, K, hd)
            q = np.concatenate([rope(q[..., :rd], theta), q[..., rd:]], axis=-1)
            k = np.concatenate([rope(k[..., :rd], theta), k[..., rd:]], axis=-1)
            y = (attend(q, k, v, causal) * (1 / (1 + np.exp(-gate)))) @ W[p + "self_attn.o_proj.weight"].T
        else:
            y = gated_deltanet(cfg, W, p + "linear_attn.", h)
        x = x + y
        h = rms1(x, W[p + "post_attention_layernorm.weight"])
        if "num_experts" not in cfg:  # Qwen3_5MLP: down(silu(gate(h)) * up(h)), channels masked
            g, u, dn = (W[p + f"mlp.{n}_proj.weight"] for n in ("gate", "up", "down"))
            x = x + ((silu(h @ g.T) * (h @ u.T)) * ffn) @ dn.T
            continue
        em, cm = ffn
        logits = h @ W[p + "mlp.gate.weight"].T + np.where(em > 0, 0.0, -np.inf)
        pr = np.exp(logits - logits.max(axis=1, keepdims=True))
        pr /= pr.sum(axis=1, keepdims=True)
        y = np.zeros_like(x)
        for t in range(T):
            top2 = sorted(range(len(em)), key=lambda e: (-pr[t][e], e))[:cfg["num_experts_per_tok"]]
            wsum = sum(pr[t][e] for e in top2) if cfg.get("norm_topk_prob", True) else 1.0
            for e in top2:
                xp = p + f"mlp.experts.{e}."
                a = silu(h[t] @ W[xp + "gate_proj.weight"].T) * (h[t] @ W[xp + "up_proj.weight"].T) * cm[e]
                y[t] += pr[t][e] / wsum * (a @ W[xp + "down_proj.weight"].T)
        sp = p + "mlp.shared_expert."
        sg = 1 / (1 + np.exp(-(h @ W[p + "mlp.shared_expert_gate.weight"].T)))
        y += sg * ((silu(h @ W[sp + "gate_proj.weight"].T) * (h @ W[sp + "up_proj.weight"].T)) @ W[sp + "down_proj.weight"].T)
        x = x + y
    return rms1(x, W["model.norm.weight"]) @ W["lm_head.weight"].T


def check_qwen3_next(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """Experts and channels by the criterion (the generic select), every mixer and attention tensor
    byte-identical, routers / experts sliced, and the logits of a numpy forward pass."""
    LAYOUTS.setdefault(ocfg["model_type"], dict(moe="mlp.", shared=True))
    crit, L, E = pj.get("criterion", "magnitude"), ocfg["num_hidden_layers"], ocfg["num_experts"]
    shapes = layer_shapes(ecfg)
    for l in range(L):  # the FFNs by the generic select; attention kept whole (below)
        shapes[l]["h"] = None
    sel = select(ocfg, Wo, shapes, crit)
    H, K = ocfg["num_attention_heads"], ocfg["num_key_value_heads"]
    for l in range(L):  # a Gated DeltaNet layer has no heads to list
        sel[l]["attention"] = ({"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]} if full_attention(ocfg, l)
                               else {"q_heads": [], "kv_groups": []})
    if pj["layers"] != sel:
        return f"nsc_prune.json {pj['layers']} differs from the criterion's {sel}"
    expect = {n: t for n, t in Wo.items() if ".mlp.gate.weight" not in n and ".mlp.experts." not in n}
    olayers, elayers, full = [], [], []
    Fe = ocfg["moe_intermediate_size"]
    for l, s in enumerate(sel):
        p, f = f"model.layers.{l}.", s["ffn"]
        expect[p + "mlp.gate.weight"] = Wo[p + "mlp.gate.weight"][f["experts"]]
        em, cm = np.zeros(E), [np.zeros(Fe) for _ in range(E)]
        for i, (e, ch) in enumerate(zip(f["experts"], f["expert_channels"])):
            em[e], cm[e][ch] = 1, 1
            for m, rows in (("gate_proj", True), ("up_proj", True), ("down_proj", False)):
                t = Wo[p + f"mlp.experts.{e}.{m}.weight"]
                expect[p + f"mlp.experts.{i}.{m}.weight"] = t[ch] if rows else t[:, ch]
        olayers.append((em, cm))
        elayers.append((np.ones(len(f["experts"])), [np.ones(len(ch)) for ch in f["expert_channels"]]))
        full.append((np.ones(E), [np.ones(Fe)] * E))
    bad = same_tensors(expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    le, lm = qwen3_next_forward(ecfg, We, elayers, tokens), qwen3_next_forward(ocfg, Wo, olayers, tokens)
    lu = qwen3_next_forward(ocfg, Wo, full, tokens)
    return hybrid_verdict(f"{ocfg['model_type']} ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                   f"{sum(t.size for t in We.values())} weights, experts {[len(s['ffn']['experts']) for s in sel]} of {E} x "
                   f"width {[len(s['ffn']['expert_channels'][0]) for s in sel]} of {Fe}, Gated DeltaNet and gated attention "
                   f"byte-identical", le, lm, lu, tol)


def check_qwen3_5_moe(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """Qwen3.5's wrapper: the text decoder (text_config, model.language_model.*) as qwen3_next's; the
    vision tower and MTP tensors copied byte for byte."""
    parts = qwen3_5_text_decoder(Wo, We)
    if isinstance(parts, str):
        return parts
    print("vision / MTP tensors copied: " + ", ".join(n for n in Wo if n.startswith(("model.visual.", "mtp."))))
    return check_qwen3_next(ocfg["text_config"], ecfg["text_config"], *parts, pj, tol, ntok)


def qwen3_5_text_decoder(Wo, We):
    """Qwen3.5's wrapper: every tensor outside the text decoder copied unchanged (else the message), and the
    decoder's tensors of both under qwen3_next's names (model.language_model.* -> model.*, lm_head)."""
    for n, t in Wo.items():
        if not (n.startswith("model.language_model.") or n == "lm_head.weight") and not np.array_equal(t, We.get(n)):
            return f"{n} (outside the text decoder) is not copied unchanged"
    strip = lambda W: {n.replace("model.language_model.", "model.", 1): t for n, t in W.items()
                       if n.startswith("model.language_model.") or n == "lm_head.weight"}
    return strip(Wo), strip(We)


# falcon_h1: attention (RoPE, GQA) and the Mamba-2 mixer above on the same normed input, summed, then the gated
# MLP under feed_forward.* (the tiny config's muP multipliers are 1: the reference applies them as stated).

def falcon_h1_forward(cfg, W, masks, tokens):
    eps, T = cfg["rms_norm_eps"], len(tokens)
    H, K, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    mcfg = {"mamba_num_heads": cfg["mamba_n_heads"], "mamba_head_dim": cfg["mamba_d_head"], "n_groups": cfg["mamba_n_groups"],
            "ssm_state_size": cfg["mamba_d_state"], "conv_kernel": cfg["mamba_d_conv"], "layer_norm_epsilon": eps,
            "time_step_min": cfg["time_step_limit"][0]}
    causal = np.triu(np.full((T, T), -np.inf), 1)
    x = W["model.embed_tokens.weight"][tokens] * cfg["embedding_multiplier"]
    for l, m in enumerate(masks):
        p = f"model.layers.{l}."
        h = rmsnorm(x, W[p + "input_layernorm.weight"], eps)
        ha = h * cfg["attention_in_multiplier"]
        q = rope((ha @ W[p + "self_attn.q_proj.weight"].T).reshape(T, H, hd), cfg["rope_theta"])
        k = rope((ha @ W[p + "self_attn.k_proj.weight"].T).reshape(T, K, hd), cfg["rope_theta"]) * cfg["key_multiplier"]
        v = (ha @ W[p + "self_attn.v_proj.weight"].T).reshape(T, K, hd)
        y = attend(q, k, v, causal) @ W[p + "self_attn.o_proj.weight"].T * cfg["attention_out_multiplier"]
        y = y + mamba2_mixer(mcfg, W, p + "mamba.", h * cfg["ssm_in_multiplier"]) * cfg["ssm_out_multiplier"]
        x = x + y
        h = rmsnorm(x, W[p + "pre_ff_layernorm.weight"], eps)
        g, u, dn = (W[p + f"feed_forward.{n}_proj.weight"] for n in ("gate", "up", "down"))
        x = x + ((silu(h @ g.T * cfg["mlp_multipliers"][0]) * (h @ u.T)) * m) @ dn.T * cfg["mlp_multipliers"][1]
    return rmsnorm(x, W["model.final_layernorm.weight"], eps) @ W["lm_head.weight"].T * cfg["lm_head_multiplier"]


def ffn_keep(mats, down, w, spectral, key):
    """The w channels kept of a dense FFN (mats: its gate / up matrices, channels as rows; down: channels as columns) by
    the criterion (magnitude: the product of the channel's row / column norms; spectral: the greedy psi_W order), and
    the mask over its down.shape[1] channels."""
    F = down.shape[1]
    if spectral:
        ch = sorted(greedy_channels(list(mats) + [down.T], w, key)) if w < F else list(range(F))
    else:
        ch = top(list(np.prod([np.linalg.norm(x, axis=1) for x in mats], axis=0) * np.linalg.norm(down, axis=0)), w)
    m = np.zeros(F)
    m[ch] = 1
    return ch, m


def check_dense_hybrid(name, ocfg, ecfg, Wo, We, pj, tol, ntok, F, mats, put, attention, forward):
    """A hybrid family whose mixers and attention are kept whole and whose dense gated FFN is narrowed:
    per layer l, mats(l) = (gate, up, down) of the original, put(expect, l, ch) the emitted FFN tensors,
    attention(l) the nsc_prune.json entry; the channels by the criterion, the tensors, forward's logits."""
    crit, L = pj.get("criterion", "magnitude"), ocfg["num_hidden_layers"]
    _own_cache(Wo)
    expect, om, em, sel = dict(Wo), [], [], []
    for l in range(L):
        w = ecfg["intermediate_sizes"][l]
        g, u, dn = mats(l)
        ch, m = ffn_keep([g, u], dn, w, crit == "spectral", (id(Wo), l, "ffn", None))
        sel.append({"attention": attention(l), "ffn": {"channels": ch}})
        put(expect, l, ch)
        om.append(m)
        em.append(np.ones(len(ch)))
    bad = selection_and_tensors(pj, sel, expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    le, lm = forward(ecfg, We, em, tokens), forward(ocfg, Wo, om, tokens)
    lu = forward(ocfg, Wo, [np.ones(F)] * L, tokens)
    return hybrid_verdict(f"{name} ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                   f"{sum(t.size for t in We.values())} weights, FFN widths {ecfg['intermediate_sizes']} of {F}, attention "
                   f"and Mamba-2 byte-identical", le, lm, lu, tol)


def gated_ffn_io(Wo, m):
    """check_dense_hybrid's mats / put for a gated FFN under model.layers.<l>.<m>.{gate,up,down}_proj."""
    mats = lambda l: tuple(Wo[f"model.layers.{l}.{m}.{n}_proj.weight"] for n in ("gate", "up", "down"))

    def put(expect, l, ch):
        g, u, dn = mats(l)
        p = f"model.layers.{l}.{m}."
        expect[p + "gate_proj.weight"], expect[p + "up_proj.weight"], expect[p + "down_proj.weight"] = g[ch], u[ch], dn[:, ch]
    return mats, put


def check_falcon_h1(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """FFN channels by the criterion (feed_forward.*), attention and Mamba-2 tensors byte-identical, the logits."""
    H, K = ocfg["num_attention_heads"], ocfg["num_key_value_heads"]
    mats, put = gated_ffn_io(Wo, "feed_forward")
    return check_dense_hybrid("falcon_h1", ocfg, ecfg, Wo, We, pj, tol, ntok, ocfg["intermediate_size"], mats, put,
                              lambda l: {"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]}, falcon_h1_forward)


# granitemoehybrid without experts: the Mamba-2 mixer above (one group: its gated RMSNorm over the whole inner
# width) or attention without RoPE (scale attention_multiplier), residual_multiplier on both sublayers, the fused
# gated shared_mlp ([gate; up] rows of input_linear), embedding_multiplier, logits / logits_scaling, tied head.

def granite_h_forward(cfg, W, masks, tokens, moe=None):
    """moe (issue 19l): per layer None or (kept experts, their channel masks) of its block_sparse_moe (moe19l_granite_moe)."""
    eps, T, H, K = cfg["rms_norm_eps"], len(tokens), cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, S, res = cfg["hidden_size"] // H, None, cfg["residual_multiplier"]
    mcfg = {"mamba_num_heads": cfg["mamba_n_heads"], "mamba_head_dim": cfg["mamba_d_head"], "n_groups": cfg["mamba_n_groups"],
            "ssm_state_size": cfg["mamba_d_state"], "conv_kernel": cfg["mamba_d_conv"], "layer_norm_epsilon": eps,
            "time_step_min": 0.0}
    causal = np.triu(np.full((T, T), -np.inf), 1)
    x = W["model.embed_tokens.weight"][tokens] * cfg["embedding_multiplier"]
    for l, m in enumerate(masks):
        p = f"model.layers.{l}."
        h = rmsnorm(x, W[p + "input_layernorm.weight"], eps)
        if cfg["layer_types"][l] == "mamba":
            y = mamba2_mixer(mcfg, W, p + "mamba.", h)
        else:
            q = (h @ W[p + "self_attn.q_proj.weight"].T).reshape(T, H, hd)
            k = (h @ W[p + "self_attn.k_proj.weight"].T).reshape(T, K, hd)
            v = (h @ W[p + "self_attn.v_proj.weight"].T).reshape(T, K, hd)
            y = attend(q, k, v, causal, cfg["attention_multiplier"]) @ W[p + "self_attn.o_proj.weight"].T
        x = x + res * y
        h = rmsnorm(x, W[p + "post_attention_layernorm.weight"], eps)
        gu = h @ W[p + "shared_mlp.input_linear.weight"].T
        S = gu.shape[1] // 2
        y = (silu(gu[:, :S]) * gu[:, S:] * m) @ W[p + "shared_mlp.output_linear.weight"].T
        if moe is not None and moe[l] is not None:
            y = y + moe19l_granite_moe(cfg, W, p, h, *moe[l])
        x = x + res * y
    x = rmsnorm(x, W["model.norm.weight"], eps)
    return x @ W.get("lm_head.weight", W["model.embed_tokens.weight"]).T / cfg["logits_scaling"]


def check_granite_h(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """shared_mlp channels by the criterion (gate, up rows of input_linear, columns of output_linear), every
    mixer tensor byte-identical, the logits."""
    F, H, K = ocfg["shared_intermediate_size"], ocfg["num_attention_heads"], ocfg["num_key_value_heads"]

    def mats(l):
        gu = Wo[f"model.layers.{l}.shared_mlp.input_linear.weight"]
        return gu[:F], gu[F:], Wo[f"model.layers.{l}.shared_mlp.output_linear.weight"]

    def put(expect, l, ch):
        g, u, dn = mats(l)
        expect[f"model.layers.{l}.shared_mlp.input_linear.weight"] = np.concatenate([g[ch], u[ch]])
        expect[f"model.layers.{l}.shared_mlp.output_linear.weight"] = dn[:, ch]
    attention = lambda l: ({"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]}
                           if ocfg["layer_types"][l] == "attention" else {"q_heads": [], "kv_groups": []})
    return check_dense_hybrid("granitemoehybrid", ocfg, ecfg, Wo, We, pj, tol, ntok, F, mats, put, attention, granite_h_forward)


# DSA (deepseek_v32, glm_moe_dsa): deepseek_v3's check (generic path); the indexer is checked byte for byte with
# its attention, and with index_topk >= the test's tokens the sparse attention attends every key, so the
# forward pass is MLA's exactly.
LAYOUTS.update({"deepseek_v32": dict(DS_MOE, mla=True), "glm_moe_dsa": dict(DS_MOE, mla=True)})

HYBRID_CHECKS = {"nemotron_h": check_nemotron_h, "falcon_h1": check_falcon_h1, "granitemoehybrid": check_granite_h, "qwen3_next": check_qwen3_next, "qwen3_5_moe": check_qwen3_5_moe}


# ---- Issue 19k's families ----

def check_qwen3_5(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """The dense Qwen3.5 (qwen3_5_text under Qwen3_5ForConditionalGeneration): the text decoder under
    model.language_model.*, its gated MLP's channels by the criterion, every Gated DeltaNet and gated
    attention tensor byte-identical, the vision tower and MTP tensors copied, the logits of
    qwen3_next_forward (Qwen3.5's split in_proj_qkv / in_proj_z / in_proj_b / in_proj_a, a dense MLP)."""
    parts = qwen3_5_text_decoder(Wo, We)
    if isinstance(parts, str):
        return parts
    oc, ec, (Wo, We) = ocfg["text_config"], ecfg["text_config"], parts
    H, K = oc["num_attention_heads"], oc["num_key_value_heads"]
    mats, put = gated_ffn_io(Wo, "mlp")
    attention = lambda l: ({"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]} if full_attention(oc, l)
                           else {"q_heads": [], "kv_groups": []})
    return check_dense_hybrid("qwen3_5_text", oc, ec, Wo, We, pj, tol, ntok, oc["intermediate_size"], mats, put, attention,
                              qwen3_next_forward)


# nemotron-nas (DeciLMForCausalLM, modeling_decilm.py): per layer, unless no_op, x += attention(input_layernorm(x))
# (llama's GQA with RoPE, H // n_heads_in_group KV heads; replace_with_linear: one (d, d) Linear) and x +=
# mlp(post_attention_layernorm(x)) (SwiGLU of the block's width; replace_with_linear: one Linear).

def deci_blocks(cfg):
    """Per layer (attention, ffn): None (no_op), "linear" or the KV heads / the FFN width of a block_configs entry."""
    H, d, out = cfg["num_attention_heads"], cfg["hidden_size"], []
    for b in cfg["block_configs"]:
        a, f = b["attention"], b["ffn"]
        at = None if a.get("no_op") else "linear" if a.get("replace_with_linear") else H // a["n_heads_in_group"]
        if f.get("no_op"):
            ft = None
        elif f.get("replace_with_linear"):
            ft = "linear"
        elif f.get("intermediate_size") is not None:
            ft = f["intermediate_size"]
        else:  # DeciLM's ffn_mult: 2 m d / 3 rounded up to a multiple of 256
            x = int(2 * f["ffn_mult"] * d / 3)
            ft = x if x % 256 == 0 else x + 256 - x % 256
        out.append((at, ft))
    return out


def deci_forward(cfg, W, masks, tokens, blocks=None):
    """masks[l] = (query head mask, FFN channel mask) of layer l (None where the sublayer has none); blocks: the
    layers' (attention, ffn) when not cfg's (the masked original: a removed sublayer None)."""
    eps, T, H, d = cfg["rms_norm_eps"], len(tokens), cfg["num_attention_heads"], cfg["hidden_size"]
    hd, theta = d // H, cfg.get("rope_theta", 10000.0)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    x = W["model.embed_tokens.weight"][tokens]
    for l, ((at, ft), (hm, cm)) in enumerate(zip(blocks or deci_blocks(cfg), masks)):
        p = f"model.layers.{l}."
        if at is not None:
            h = rmsnorm(x, W[p + "input_layernorm.weight"], eps)
            if at == "linear":
                x = x + h @ W[p + "self_attn.linear_attn.weight"].T
            else:
                q = rope((h @ W[p + "self_attn.q_proj.weight"].T).reshape(T, H, hd), theta)
                k = rope((h @ W[p + "self_attn.k_proj.weight"].T).reshape(T, at, hd), theta)
                v = (h @ W[p + "self_attn.v_proj.weight"].T).reshape(T, at, hd)
                x = x + attend(q, k, v, causal, None, hm) @ W[p + "self_attn.o_proj.weight"].T
        if ft is not None:
            h = rmsnorm(x, W[p + "post_attention_layernorm.weight"], eps)
            if ft == "linear":
                x = x + h @ W[p + "mlp.linear_mlp.weight"].T
            else:
                g, u, dn = (W[p + f"mlp.{n}_proj.weight"] for n in ("gate", "up", "down"))
                x = x + ((silu(h @ g.T) * (h @ u.T)) * cm) @ dn.T
    return rmsnorm(x, W["model.norm.weight"], eps) @ W["lm_head.weight"].T


def check_nemotron_nas(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """A DeciLM checkpoint pruned to DeciLM: heads / KV groups and FFN channels by the criterion from the original's
    per-layer shapes, no_op sublayers without tensors, linear replacements byte-identical, the logits."""
    crit, H, d = pj.get("criterion", "magnitude"), ocfg["num_attention_heads"], ocfg["hidden_size"]
    hd, spectral = d // H, pj.get("criterion") == "spectral"
    _own_cache(Wo)
    ob, eb = deci_blocks(ocfg), deci_blocks(ecfg)
    if len(ob) != len(eb):
        return f"{len(eb)} emitted layers for {len(ob)}"
    sel, expect, om, em, Wm = [], {}, [], [], dict(Wo)
    for n, t in Wo.items():
        if not n.startswith("model.layers."):
            expect[n] = t
    for l, ((oa, of), (ea, ef)) in enumerate(zip(ob, eb)):
        p, layer = f"model.layers.{l}.", {"attention": None, "ffn": None}
        hm = cm = None
        if ea is not None:
            expect[p + "input_layernorm.weight"] = Wo[p + "input_layernorm.weight"]
            if ea == "linear":
                layer["attention"] = {"kv_groups": [], "q_heads": []}
                expect[p + "self_attn.linear_attn.weight"] = Wo[p + "self_attn.linear_attn.weight"]
            else:
                q, o = Wo[p + "self_attn.q_proj.weight"], Wo[p + "self_attn.o_proj.weight"]
                a = keep_heads(q, o, H, oa, hd, H, ea, spectral, (id(Wo), l, "heads", ea))
                layer["attention"] = a
                hm = np.zeros(H)
                hm[a["q_heads"]] = 1
                for m in ("k", "v"):  # the masked original's KV heads: each group's mean
                    w = Wo[p + f"self_attn.{m}_proj.weight"].copy()
                    means = [np.mean([w[x * hd:(x + 1) * hd] for x in g], axis=0) for g in a["kv_groups"]]
                    for g, mean in zip(a["kv_groups"], means):
                        for x in g:
                            w[x * hd:(x + 1) * hd] = mean
                    Wm[p + f"self_attn.{m}_proj.weight"] = w
                    expect[p + f"self_attn.{m}_proj.weight"] = np.concatenate(means).astype(np.float32).astype(np.float64)
                expect[p + "self_attn.q_proj.weight"] = q
                expect[p + "self_attn.o_proj.weight"] = o
        if ef is not None:
            expect[p + "post_attention_layernorm.weight"] = Wo[p + "post_attention_layernorm.weight"]
            if ef == "linear":
                layer["ffn"] = {"channels": []}
                expect[p + "mlp.linear_mlp.weight"] = Wo[p + "mlp.linear_mlp.weight"]
            else:
                g, u, dn = (Wo[p + f"mlp.{n}_proj.weight"] for n in ("gate", "up", "down"))
                ch, cm = ffn_keep([g, u], dn, ef, spectral, (id(Wo), l, "ffn", None))
                layer["ffn"] = {"channels": ch}
                expect[p + "mlp.gate_proj.weight"], expect[p + "mlp.up_proj.weight"] = g[ch], u[ch]
                expect[p + "mlp.down_proj.weight"] = dn[:, ch]
        sel.append(layer)
        om.append((hm, cm))
        em.append((None if hm is None else np.ones(H), None if cm is None else np.ones(len(cm.nonzero()[0]))))
    bad = selection_and_tensors(pj, sel, expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    kept = [(oa if ea is not None else None, of if ef is not None else None) for (oa, of), (ea, ef) in zip(ob, eb)]
    le, lm = deci_forward(ecfg, We, em, tokens), deci_forward(ocfg, Wm, om, tokens, kept)
    lu = deci_forward(ocfg, Wo, [(None if a in (None, "linear") else np.ones(H), None if f in (None, "linear") else np.ones(f))
                                 for a, f in ob], tokens)
    return hybrid_verdict(f"nemotron-nas ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                          f"{sum(t.size for t in We.values())} weights, blocks {ob} -> {eb}, linear replacements "
                          f"byte-identical", le, lm, lu, tol)


# gemma4 (Gemma4ForConditionalGeneration's text decoder, modeling_gemma4.py): embeddings times sqrt(d); per layer
# x += post_attention_layernorm(attention(input_layernorm(x))), x += post_feedforward_layernorm(GeGLU(
# pre_feedforward_layernorm(x))), then x *= layer_scalar; Gemma4RMSNorm scales by w; q_norm / k_norm per head, v_norm
# without weight, scaling 1; sliding layers: head_dim, num_key_value_heads, default RoPE, a window; full layers:
# global_head_dim, with attention_k_eq_v num_global_key_value_heads and the values the key projection's output (before
# k_norm), proportional RoPE (the first partial_rotary_factor of the angles rotate); tied head, final soft-cap.

def gemma4_layer(c, l):
    """(full, head_dim, KV heads, k_eq_v) of layer l of a gemma4_text config."""
    full = c["layer_types"][l] == "full_attention"
    keqv = full and c.get("attention_k_eq_v", False)
    hd = c["global_head_dim"] if full and c.get("global_head_dim") else c["head_dim"]
    return full, hd, c["num_global_key_value_heads"] if keqv else c["num_key_value_heads"], keqv


def gemma4_inv_freq(c, l, hd):
    r = c["rope_parameters"][c["layer_types"][l]]
    if r["rope_type"] == "proportional":
        n = int(r.get("partial_rotary_factor", 1.0) * hd // 2)
        inv = np.zeros(hd // 2)
        inv[:n] = 1.0 / r["rope_theta"] ** (np.arange(0, 2 * n, 2) / hd)
        return inv
    return 1.0 / r["rope_theta"] ** (np.arange(0, hd, 2) / hd)


def rope_inv(x, inv):  # x: (T, n, hd), rotate_half with inverse frequencies inv (hd / 2)
    ang = np.arange(x.shape[0])[:, None] * inv[None, :]
    cos, sin = np.cos(np.concatenate([ang, ang], 1))[:, None, :], np.sin(np.concatenate([ang, ang], 1))[:, None, :]
    h = x.shape[-1] // 2
    return x * cos + np.concatenate([-x[..., h:], x[..., :h]], -1) * sin


def gemma4_forward(c, W, layers, tokens):
    """layers[l]: None (both sublayers removed: the identity) or dict(attn=None | dict(h, K, q, k, v, o, hm),
    ffn=None | dict(g, u, dn, m)), in the layer's own head_dim."""
    eps, T, d = c["rms_norm_eps"], len(tokens), c["hidden_size"]
    p0 = "model.language_model."
    x = W[p0 + "embed_tokens.weight"][tokens] * np.sqrt(d)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    ii = np.arange(T)
    for l, ly in enumerate(layers):
        if ly is None:
            continue
        p = f"{p0}layers.{l}."
        full, hd, _, keqv = gemma4_layer(c, l)
        a, f = ly["attn"], ly["ffn"]
        if a is not None:
            h = rmsnorm(x, W[p + "input_layernorm.weight"], eps)
            inv = gemma4_inv_freq(c, l, hd)
            q = rope_inv(rmsnorm((h @ a["q"].T).reshape(T, a["h"], hd), W[p + "self_attn.q_norm.weight"], eps), inv)
            kr = (h @ a["k"].T).reshape(T, a["K"], hd)
            v = kr if keqv else (h @ a["v"].T).reshape(T, a["K"], hd)
            k = rope_inv(rmsnorm(kr, W[p + "self_attn.k_norm.weight"], eps), inv)
            v = rmsnorm(v, 1.0, eps)
            mask = causal if full else causal + np.where(ii[:, None] - ii[None, :] >= c["sliding_window"], -np.inf, 0.0)
            y = attend(q, k, v, mask, 1.0, a["hm"]) @ a["o"].T
            x = x + rmsnorm(y, W[p + "post_attention_layernorm.weight"], eps)
        if f is not None:
            h = rmsnorm(x, W[p + "pre_feedforward_layernorm.weight"], eps)
            y = ((gelu_tanh(h @ f["g"].T) * (h @ f["u"].T)) * f["m"]) @ f["dn"].T
            x = x + rmsnorm(y, W[p + "post_feedforward_layernorm.weight"], eps)
        x = x * W[p + "layer_scalar"]
    logits = rmsnorm(x, W[p0 + "norm.weight"], eps) @ W[p0 + "embed_tokens.weight"].T
    cap = c.get("final_logit_softcapping")
    return np.tanh(logits / cap) * cap if cap else logits


def check_gemma4(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """Heads (per layer of its own head_dim), KV groups (k_eq_v: the pooled keys are the values) and FFN channels by the
    criterion, every emitted tensor the slice of the original, layer_scalar kept with a kept layer, the logits."""
    oc, ec = ocfg["text_config"], ecfg["text_config"]
    crit, H, L = pj.get("criterion", "magnitude"), oc["num_attention_heads"], oc["num_hidden_layers"]
    spectral = crit == "spectral"
    _own_cache(Wo)
    sel, expect, olayers, elayers, full = [], {}, [], [], []
    for n, t in Wo.items():
        if not n.startswith("model.language_model.layers."):
            expect[n] = t
    for l in range(L):
        p = f"model.language_model.layers.{l}."
        _, hd, K, keqv = gemma4_layer(oc, l)
        pl = ec.get("per_layer_config", {}).get(str(l), {})
        skip = pl.get("skip", [])
        w = ec["intermediate_sizes"][l] if "intermediate_sizes" in ec else oc["intermediate_size"]  # the nsc format's widths
        h, k, w = pl.get("num_attention_heads", H), pl.get("num_key_value_heads", K), pl.get("intermediate_size", w)
        if w is None:  # the nsc format's removed FFN
            skip = skip + ["mlp"]
        q, o = Wo[p + "self_attn.q_proj.weight"], Wo[p + "self_attn.o_proj.weight"]
        g, u, dn = (Wo[p + f"mlp.{n}_proj.weight"] for n in ("gate", "up", "down"))
        F = g.shape[0]
        full.append(dict(attn=dict(h=H, K=K, q=q, k=Wo[p + "self_attn.k_proj.weight"], v=Wo.get(p + "self_attn.v_proj.weight"),
                                   o=o, hm=np.ones(H)), ffn=dict(g=g, u=u, dn=dn, m=np.ones(F))))
        layer, oa, of, ea, ef = {"attention": None, "ffn": None}, None, None, None, None
        if "attention" not in skip:
            a = keep_heads(q, o, H, K, hd, h, k, spectral, (id(Wo), l, "heads", k))
            layer["attention"] = a
            hm = np.zeros(H)
            hm[a["q_heads"]] = 1
            pooled, rows = {}, lambda hs: np.concatenate([np.arange(i * hd, (i + 1) * hd) for i in hs])
            for m in ("k",) if keqv else ("k", "v"):
                wt = Wo[p + f"self_attn.{m}_proj.weight"].copy()
                means = [np.mean([wt[x * hd:(x + 1) * hd] for x in grp], axis=0) for grp in a["kv_groups"]]
                for grp, mean in zip(a["kv_groups"], means):
                    for x in grp:
                        wt[x * hd:(x + 1) * hd] = mean
                pooled[m] = wt
                expect[p + f"self_attn.{m}_proj.weight"] = np.concatenate(means).astype(np.float32).astype(np.float64)
            expect[p + "self_attn.q_proj.weight"], expect[p + "self_attn.o_proj.weight"] = q[rows(a["q_heads"])], o[:, rows(a["q_heads"])]
            for n in ("input_layernorm", "post_attention_layernorm", "self_attn.q_norm", "self_attn.k_norm"):
                expect[p + n + ".weight"] = Wo[p + n + ".weight"]
            oa = dict(h=H, K=K, q=q, k=pooled["k"], v=pooled.get("v"), o=o, hm=hm)
            ea = dict(h=len(a["q_heads"]), K=len(a["kv_groups"]), q=We.get(p + "self_attn.q_proj.weight"),
                      k=We.get(p + "self_attn.k_proj.weight"), v=We.get(p + "self_attn.v_proj.weight"),
                      o=We.get(p + "self_attn.o_proj.weight"), hm=np.ones(len(a["q_heads"])))
        if "mlp" not in skip:
            ch, m = ffn_keep([g, u], dn, w, spectral, (id(Wo), l, "ffn", None))
            layer["ffn"] = {"channels": ch}
            expect[p + "mlp.gate_proj.weight"], expect[p + "mlp.up_proj.weight"], expect[p + "mlp.down_proj.weight"] = g[ch], u[ch], dn[:, ch]
            for n in ("pre_feedforward_layernorm", "post_feedforward_layernorm"):
                expect[p + n + ".weight"] = Wo[p + n + ".weight"]
            of = dict(g=g, u=u, dn=dn, m=m)
            ef = dict(g=We.get(p + "mlp.gate_proj.weight"), u=We.get(p + "mlp.up_proj.weight"),
                      dn=We.get(p + "mlp.down_proj.weight"), m=np.ones(len(ch)))
        if oa is not None or of is not None:
            expect[p + "layer_scalar"] = Wo[p + "layer_scalar"]
        sel.append(layer)
        olayers.append(None if oa is None and of is None else dict(attn=oa, ffn=of))
        elayers.append(None if ea is None and ef is None else dict(attn=ea, ffn=ef))
    bad = selection_and_tensors(pj, sel, expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, oc["vocab_size"], ntok)
    le, lm, lu = (gemma4_forward(oc, We, elayers, tokens), gemma4_forward(oc, Wo, olayers, tokens),
                  gemma4_forward(oc, Wo, full, tokens))
    return hybrid_verdict(f"gemma4_text ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                          f"{sum(t.size for t in We.values())} weights, heads / KV {[(len(s['attention']['q_heads']), len(s['attention']['kv_groups'])) if s['attention'] else None for s in sel]}, "
                          f"FFN {[len(s['ffn']['channels']) if s['ffn'] else None for s in sel]}", le, lm, lu, tol)


# bert (modeling_bert.py, BertModel under "bert."): x = LayerNorm(word + position + token type 0 embeddings); per layer
# x = LayerNorm(x + attention(x)) (bidirectional, biases, scale hd^-1/2) and x = LayerNorm(x + output(gelu(intermediate(x))));
# a removed sublayer takes its LayerNorm with it; compared on the last hidden states (no LM head in the spec).

def bert_forward(cfg, W, layers, tokens):
    """layers[l]: dict(attn=None | dict(h, K, q, qb, k, kb, v, vb, o, ob, hm), ffn=None | dict(u, ub, dn, db, m))."""
    eps, T, P = cfg["layer_norm_eps"], len(tokens), "bert."
    x = W[P + "embeddings.word_embeddings.weight"][tokens] + W[P + "embeddings.position_embeddings.weight"][:T] + \
        W[P + "embeddings.token_type_embeddings.weight"][0]
    x = layernorm(x, W[P + "embeddings.LayerNorm.weight"], W[P + "embeddings.LayerNorm.bias"], eps)
    hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    for l, ly in enumerate(layers):
        p = f"{P}encoder.layer.{l}."
        a, f = ly["attn"], ly["ffn"]
        if a is not None:
            q = (x @ a["q"].T + a["qb"]).reshape(T, a["h"], hd)
            k = (x @ a["k"].T + a["kb"]).reshape(T, a["K"], hd)
            v = (x @ a["v"].T + a["vb"]).reshape(T, a["K"], hd)
            y = attend(q, k, v, np.zeros((T, T)), None, a["hm"]) @ a["o"].T + a["ob"]
            x = layernorm(x + y, W[p + "attention.output.LayerNorm.weight"], W[p + "attention.output.LayerNorm.bias"], eps)
        if f is not None:
            y = (gelu_erf(x @ f["u"].T + f["ub"]) * f["m"]) @ f["dn"].T + f["db"]
            x = layernorm(x + y, W[p + "output.LayerNorm.weight"], W[p + "output.LayerNorm.bias"], eps)
    return x


def check_bert(ocfg, ecfg, Wo, We, pj, tol, ntok):
    """Heads and KV groups (one KV head per query head), FFN channels by the criterion (||up_c|| ||down_c||), every
    emitted tensor the slice of the original (biases with their rows, pooled with the KV heads), the hidden states."""
    crit, H, d, L = pj.get("criterion", "magnitude"), ocfg["num_attention_heads"], ocfg["hidden_size"], ocfg["num_hidden_layers"]
    hd, Le = d // H, ecfg["num_hidden_layers"]
    _own_cache(Wo)
    sel, expect, olayers, elayers, full = [], {}, [], [], []
    for n, t in Wo.items():
        if not n.startswith("bert.encoder.layer."):
            expect[n] = t
    rows = lambda hs: np.concatenate([np.arange(i * hd, (i + 1) * hd) for i in hs])
    for l in range(L):
        p = f"bert.encoder.layer.{l}."
        g = lambda n: Wo[p + n]
        F = g("intermediate.dense.weight").shape[0]
        attn = dict(h=H, K=H, q=g("attention.self.query.weight"), qb=g("attention.self.query.bias"), k=g("attention.self.key.weight"),
                    kb=g("attention.self.key.bias"), v=g("attention.self.value.weight"), vb=g("attention.self.value.bias"),
                    o=g("attention.output.dense.weight"), ob=g("attention.output.dense.bias"), hm=np.ones(H))
        ffn = dict(u=g("intermediate.dense.weight"), ub=g("intermediate.dense.bias"), dn=g("output.dense.weight"),
                   db=g("output.dense.bias"), m=np.ones(F))
        full.append(dict(attn=attn, ffn=ffn))
        sizes = ecfg.get("intermediate_sizes")
        w = (sizes[l] if sizes else ecfg["intermediate_size"]) if l < Le else None
        h = ecfg["num_attention_heads"] if l < Le else None
        layer, oa, of, ea, ef = {"attention": None, "ffn": None}, None, None, None, None
        if h is not None:
            a = keep_heads(attn["q"], attn["o"], H, H, hd, h, h, crit == "spectral", (id(Wo), l, "heads", h))
            layer["attention"] = a
            hm = np.zeros(H)
            hm[a["q_heads"]] = 1
            oa = dict(attn, hm=hm)
            for m in ("k", "v"):
                wt, bt = attn[m].copy(), attn[m + "b"].copy()
                mw = [np.mean([wt[x * hd:(x + 1) * hd] for x in grp], axis=0) for grp in a["kv_groups"]]
                mb = [np.mean([bt[x * hd:(x + 1) * hd] for x in grp], axis=0) for grp in a["kv_groups"]]
                for grp, x1, x2 in zip(a["kv_groups"], mw, mb):
                    for x in grp:
                        wt[x * hd:(x + 1) * hd], bt[x * hd:(x + 1) * hd] = x1, x2
                oa[m], oa[m + "b"] = wt, bt
                name = {"k": "key", "v": "value"}[m]
                expect[p + f"attention.self.{name}.weight"] = np.concatenate(mw).astype(np.float32).astype(np.float64)
                expect[p + f"attention.self.{name}.bias"] = np.concatenate(mb).astype(np.float32).astype(np.float64)
            r = rows(a["q_heads"])
            expect[p + "attention.self.query.weight"], expect[p + "attention.self.query.bias"] = attn["q"][r], attn["qb"][r]
            expect[p + "attention.output.dense.weight"], expect[p + "attention.output.dense.bias"] = attn["o"][:, r], attn["ob"]
            for n in ("weight", "bias"):
                expect[p + "attention.output.LayerNorm." + n] = g("attention.output.LayerNorm." + n)
            ea = dict(h=len(a["q_heads"]), K=len(a["kv_groups"]), hm=np.ones(len(a["q_heads"])),
                      **{k: We.get(p + f"attention.{n}") for k, n in (("q", "self.query.weight"), ("qb", "self.query.bias"),
                         ("k", "self.key.weight"), ("kb", "self.key.bias"), ("v", "self.value.weight"), ("vb", "self.value.bias"),
                         ("o", "output.dense.weight"), ("ob", "output.dense.bias"))})
        if w is not None:
            ch, m = ffn_keep([ffn["u"]], ffn["dn"], w, crit == "spectral", (id(Wo), l, "ffn", None))
            layer["ffn"] = {"channels": ch}
            of = dict(ffn, m=m)
            expect[p + "intermediate.dense.weight"], expect[p + "intermediate.dense.bias"] = ffn["u"][ch], ffn["ub"][ch]
            expect[p + "output.dense.weight"], expect[p + "output.dense.bias"] = ffn["dn"][:, ch], ffn["db"]
            for n in ("weight", "bias"):
                expect[p + "output.LayerNorm." + n] = g("output.LayerNorm." + n)
            ef = dict(u=We.get(p + "intermediate.dense.weight"), ub=We.get(p + "intermediate.dense.bias"),
                      dn=We.get(p + "output.dense.weight"), db=We.get(p + "output.dense.bias"), m=np.ones(len(ch)))
        sel.append(layer)
        olayers.append(dict(attn=oa, ffn=of))
        if l < Le:
            elayers.append(dict(attn=ea, ffn=ef))
    if pj["layers"][:L] != sel[:len(pj["layers"])] or len(pj["layers"]) not in (L, Le):
        return f"nsc_prune.json {pj['layers']} differs from the criterion's {sel}"
    bad = same_tensors(expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    le, lm, lu = bert_forward(ecfg, We, elayers, tokens), bert_forward(ocfg, Wo, olayers, tokens), bert_forward(ocfg, Wo, full, tokens)
    return hybrid_verdict(f"bert ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                          f"{sum(t.size for t in We.values())} weights, {Le} of {L} layers, FFN "
                          f"{[len(s['ffn']['channels']) if s['ffn'] else None for s in sel]} (hidden states compared)", le, lm, lu, tol)


HYBRID_CHECKS.update({"qwen3_5": check_qwen3_5, "nemotron-nas": check_nemotron_nas, "gemma4": check_gemma4, "bert": check_bert})


def main():
    args = sys.argv[1:]
    tol, ntok = 1e-5, 16
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i:i + 2]
    if "--tokens" in args:
        i = args.index("--tokens")
        ntok = int(args[i + 1])
        del args[i:i + 2]
    orig, out = args
    ocfg = json.load(open(os.path.join(orig, "config.json")))
    ecfg = json.load(open(os.path.join(out, "config.json")))
    if ocfg["model_type"] in FUSED:
        return main_fused(orig, out, ocfg, ecfg, tol, ntok)
    Wo, We = read_safetensors_dir(orig), read_safetensors_dir(out)
    if ocfg["model_type"] in HYBRID_CHECKS:  # hybrid layers (issue 19i): their own checks and forward pass
        bad = HYBRID_CHECKS[ocfg["model_type"]](ocfg, ecfg, Wo, We, json.load(open(os.path.join(out, "nsc_prune.json"))), tol, ntok)
        if bad:
            print("FAIL: " + bad)
            return 1
        return 0
    own = ocfg["model_type"] in OWN
    if own:  # own names -> llama's, fused query_key_value -> q / k / v (OWN's layouts)
        ocfg, ecfg = own_config(ocfg), own_config(ecfg)
        Wo, We = own_canonical(ocfg, Wo, layer_shapes(ocfg)), own_canonical(ecfg, We, layer_shapes(ecfg))
    shapes = layer_shapes(ecfg)
    # --uniform removes the last layers: the emitted config has fewer, the original's last ones are removed
    removed = ocfg["num_hidden_layers"] - len(shapes)
    oshapes = shapes + [{"h": None, "k": None, "hd": None, "w": None, "e": None}] * removed
    pj = json.load(open(os.path.join(out, "nsc_prune.json")))
    criterion = pj.get("criterion", "magnitude")
    sel = select(ocfg, Wo, oshapes, criterion)
    if not same_selection(pj["layers"], sel):
        return 1
    bad = check_tensors_own(Wo, We, sel, ocfg) if own or ocfg["model_type"] == "phimoe" else check_tensors(Wo, We, sel, ocfg)
    if bad:
        print("FAIL: " + bad)
        return 1
    if ntok > ocfg.get("index_topk", ntok):
        print(f"FAIL: {ntok} tokens exceed index_topk {ocfg['index_topk']}: the reference attends every key (dense MLA)")
        return 1
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    le = forward(ecfg, We, emitted_layers(ocfg, We, shapes), tokens)
    lm = forward(ocfg, Wo, masked_layers(ocfg, Wo, sel), tokens)
    full = [{"attention": {"q_heads": list(range(ocfg["num_attention_heads"])),
                           "kv_groups": [[x] for x in range(ocfg.get("num_key_value_heads", ocfg["num_attention_heads"]))]},
             "ffn": ({"experts": list(range(n_experts(ocfg))),
                      "expert_channels": [list(range(expert_width(ocfg)))] * n_experts(ocfg)}
                     if is_moe_layer(ocfg, l) else {"channels": list(range(ocfg["intermediate_size"]))})}
            for l in range(len(oshapes))]
    lu = forward(ocfg, Wo, masked_layers(ocfg, Wo, full), tokens)
    err = float(np.max(np.abs(le - lm)))
    moved = float(np.max(np.abs(lm - lu)))
    kept = sum(1 for s in oshapes if s["h"] is not None), sum(1 for s in oshapes if s["w"] is not None)
    print(f"{ocfg['model_type']} ({criterion}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
          f"{sum(t.size for t in We.values())} weights, attention kept in {kept[0]} / FFN in {kept[1]} of {len(oshapes)} layers"
          f"{f' (the last {removed} removed)' if removed else ''}; "
          f"max |logits(emitted) - logits(masked original)| = {err:.3g} (tol {tol:g}); pruning moved the logits by "
          f"{moved:.3g}; max |logit| {float(np.max(np.abs(le))):.3g}")
    return verdict(err, moved, tol)


# ---- Fused 3-D expert families (gpt_oss, granitemoe): their own reader, selection, tensor check and
# forward pass (attention sinks, biases, sliding layers, clamped SwiGLU, granite's multipliers), so that
# the families above stay as they are. FUSED: the tensor names after "model.layers.<L>.";
# inputs_first: [E, d, 2F] / [E, F, d] (y = x W_e), else Linear's [E, 2F, d] / [E, d, F]; interleaved:
# gate = even, up = odd of the 2F, else [gate; up]; MXFP4 (<name>_blocks / _scales) stores [E, out, in].
FUSED = {"gpt_oss": dict(gu="mlp.experts.gate_up_proj", dn="mlp.experts.down_proj", inputs_first=True, interleaved=True,
                         bias=True, router="mlp.router.weight", rbias="mlp.router.bias", sinks="self_attn.sinks"),
         "granitemoe": dict(gu="block_sparse_moe.input_linear.weight", dn="block_sparse_moe.output_linear.weight",
                            inputs_first=False, interleaved=False, bias=False, router="block_sparse_moe.router.layer.weight",
                            rbias=None, sinks=None)}
FP4 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def read_typed_dir(d):
    """name -> (array, dtype): F32 / BF16 as float64 (exact), U8 as uint8."""
    out = {}
    for fn in sorted(f for f in os.listdir(d) if f.endswith(".safetensors")):
        with open(os.path.join(d, fn), "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            h = json.loads(f.read(n))
            buf = f.read()
        for name, e in h.items():
            if name == "__metadata__":
                continue
            b, en = e["data_offsets"]
            raw = buf[b:en]
            if e["dtype"] == "F32":
                a = np.frombuffer(raw, dtype="<f4").astype(np.float64)
            elif e["dtype"] == "BF16":
                a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view("<f4").astype(np.float64)
            else:
                assert e["dtype"] == "U8", (fn, name, e["dtype"])
                a = np.frombuffer(raw, dtype=np.uint8)
            out[name] = (a.reshape(e["shape"]), e["dtype"])
    return out


def round_to(x, dtype):
    """Round float64 values to the stored dtype (nearest, ties to even), back in float64."""
    if dtype == "F32":
        return np.asarray(x, dtype=np.float32).astype(np.float64)
    m, e = np.frexp(np.asarray(x, dtype=np.float64))
    return np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)  # BF16: 8 significant bits


def mxfp4_values(blocks, scales):
    """[..., G, 16] U8 blocks and [..., G] U8 scales -> [..., G * 32] values (low nibble first, 2^(s - 127))."""
    v = np.empty(blocks.shape[:-1] + (32,))
    v[..., 0::2] = FP4[blocks & 0x0F]
    v[..., 1::2] = FP4[blocks >> 4]
    v = v * np.exp2(scales.astype(np.float64) - 127)[..., None]
    return v.reshape(blocks.shape[:-2] + (blocks.shape[-2] * 32,))


def fused_experts(W, p, cfg):
    """Per expert (gate (F, d), up (F, d), down (d, F), gate bias, up bias, down bias or None) in Linear orientation."""
    L = FUSED[cfg["model_type"]]
    if p + L["gu"] + "_blocks" in W:
        gu = mxfp4_values(W[p + L["gu"] + "_blocks"][0], W[p + L["gu"] + "_scales"][0])  # [E, 2F, d]
        dn = mxfp4_values(W[p + L["dn"] + "_blocks"][0], W[p + L["dn"] + "_scales"][0])  # [E, d, F]
    else:
        gu, dn = W[p + L["gu"]][0], W[p + L["dn"]][0]
        if L["inputs_first"]:
            gu, dn = gu.transpose(0, 2, 1), dn.transpose(0, 2, 1)
    E, F = gu.shape[0], gu.shape[1] // 2
    gi = np.arange(F) * 2 if L["interleaved"] else np.arange(F)
    ui = gi + 1 if L["interleaved"] else gi + F
    out = []
    for e in range(E):
        gb = ub = db = None
        if L["bias"]:
            b = W[p + L["gu"] + "_bias"][0][e]
            gb, ub, db = b[gi], b[ui], W[p + L["dn"] + "_bias"][0][e]
        out.append((gu[e][gi], gu[e][ui], dn[e], gb, ub, db))
    return out


def fused_shapes(cfg):
    """Per layer dict(h, k, w, e) from the emitted config (its own architecture, per_layer_config or nsc's lists); None: removed."""
    H, K = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    out = []
    for i in range(cfg["num_hidden_layers"]):
        s = {"h": H, "k": K, "w": cfg["intermediate_size"], "e": cfg["num_local_experts"]}
        if "intermediate_sizes" in cfg:
            s["w"] = cfg["intermediate_sizes"][i]
            s["e"] = cfg.get("expert_counts", [s["e"]] * (i + 1))[i]
        p = cfg.get("per_layer_config", {}).get(str(i), {})
        s["h"], s["k"] = p.get("num_attention_heads", s["h"]), p.get("num_key_value_heads", s["k"])
        s["w"], s["e"] = p.get("intermediate_size", s["w"]), p.get("num_local_experts", s["e"])
        if "attention" in p.get("skip", []):
            s["h"] = None
        if "mlp" in p.get("skip", []):
            s["w"] = None
        out.append(s)
    return out


def fused_select(cfg, W, shapes, criterion):
    """The documented criterion on the original weights (heads as select(); experts / channels on the fused tensors)."""
    H, K, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    F, E = cfg["intermediate_size"], cfg["num_local_experts"]
    spectral = criterion == "spectral"
    _own_cache(W)
    sel = []
    for l, s in enumerate(shapes):
        p = f"model.layers.{l}."
        layer = {"attention": None, "ffn": None}
        if s["h"] is not None:
            q, o = W[p + "self_attn.q_proj.weight"][0], W[p + "self_attn.o_proj.weight"][0]
            layer["attention"] = keep_heads(q, o, H, K, hd, s["h"], s["k"], spectral, (id(W), l, "heads", s["k"]))
        if s["w"] is not None:
            w, ex = s["w"], fused_experts(W, p, cfg)
            mats = lambda e: [ex[e][0], ex[e][1], ex[e][2].T]
            if spectral:
                spec = lambda e: sorted(greedy_channels(mats(e), w, (id(W), l, "ffn", e))) if w < F else list(range(F))
                kept = top([sum(psi_rows(M[spec(e)]) for M in mats(e)) for e in range(E)], s["e"])
                layer["ffn"] = {"experts": kept, "expert_channels": [spec(e) for e in kept]}
            else:
                kept = top([np.prod([np.linalg.norm(M) for M in mats(e)]) for e in range(E)], s["e"])
                chan = lambda e: top(list(np.prod([np.linalg.norm(M, axis=1) for M in mats(e)], axis=0)), w)
                layer["ffn"] = {"experts": kept, "expert_channels": [chan(e) for e in kept]}
        sel.append(layer)
    return sel


def fused_expected(cfg, W, sel):
    """Every emitted tensor from the original's stored arrays (the selection applied; pooled K / V rounded to the dtype)."""
    H = cfg["num_attention_heads"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // H
    L, F = FUSED[cfg["model_type"]], cfg["intermediate_size"]
    exp = {n: a for n, (a, _) in W.items() if not n.startswith("model.layers.")}
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        mine = {n[len(p):]: v for n, v in W.items() if n.startswith(p)}
        if s["attention"] is not None:
            a = s["attention"]
            qr = [h * hd + r for h in a["q_heads"] for r in range(hd)]
            pool = lambda x, dt: round_to(np.concatenate([np.mean([x[g * hd:(g + 1) * hd] for g in grp], axis=0)
                                                          for grp in a["kv_groups"]]), dt)
            exp[p + "input_layernorm.weight"] = mine["input_layernorm.weight"][0]
            for m in ("q", "k", "v"):
                for t in ("weight", "bias"):
                    if f"self_attn.{m}_proj.{t}" in mine:
                        x, dt = mine[f"self_attn.{m}_proj.{t}"]
                        exp[p + f"self_attn.{m}_proj.{t}"] = x[qr] if m == "q" else pool(x, dt)
            exp[p + "self_attn.o_proj.weight"] = mine["self_attn.o_proj.weight"][0][:, qr]
            if "self_attn.o_proj.bias" in mine:
                exp[p + "self_attn.o_proj.bias"] = mine["self_attn.o_proj.bias"][0]
            if L["sinks"]:
                exp[p + L["sinks"]] = mine[L["sinks"]][0][a["q_heads"]]
        if s["ffn"] is not None:
            f = s["ffn"]
            ex, chs = f["experts"], f["expert_channels"]
            exp[p + "post_attention_layernorm.weight"] = mine["post_attention_layernorm.weight"][0]
            exp[p + L["router"]] = mine[L["router"]][0][ex]
            if L["rbias"]:
                exp[p + L["rbias"]] = mine[L["rbias"]][0][ex]
            gsel = lambda ch: ([i for c in ch for i in (2 * c, 2 * c + 1)] if L["interleaved"] else list(ch) + [F + c for c in ch])
            for rest, (x, _) in mine.items():
                if rest in (L["gu"] + "_blocks", L["gu"] + "_scales") or (rest == L["gu"] and not L["inputs_first"]):
                    exp[p + rest] = np.stack([x[e][gsel(ch)] for e, ch in zip(ex, chs)])  # rows = channels
                elif rest in (L["gu"], L["gu"] + "_bias"):
                    exp[p + rest] = np.stack([x[e][..., gsel(ch)] for e, ch in zip(ex, chs)])  # columns
                elif rest in (L["dn"] + "_blocks", L["dn"] + "_scales", L["dn"] + "_bias"):
                    exp[p + rest] = x[ex]  # MXFP4: whole blocks (the width is kept)
                elif rest == L["dn"]:
                    exp[p + rest] = np.stack([x[e][ch] if L["inputs_first"] else x[e][:, ch] for e, ch in zip(ex, chs)])
    return exp


def fused_layers(cfg, W, sel, masked):
    """Forward-pass layers: the original with masks and pooled K / V (masked) or the emitted checkpoint as it is."""
    H = cfg["num_attention_heads"]
    hd = cfg.get("head_dim") or cfg["hidden_size"] // H
    L = FUSED[cfg["model_type"]]
    out = []
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        g = lambda n: W[p + n][0] if p + n in W else None
        a = f = None
        if s["attention"] is not None:
            a = dict(q=g("self_attn.q_proj.weight"), k=g("self_attn.k_proj.weight"), v=g("self_attn.v_proj.weight"),
                     qb=g("self_attn.q_proj.bias"), kb=g("self_attn.k_proj.bias"), vb=g("self_attn.v_proj.bias"),
                     o=g("self_attn.o_proj.weight"), ob=g("self_attn.o_proj.bias"), sinks=g(L["sinks"]) if L["sinks"] else None,
                     ln=g("input_layernorm.weight"))
            a["H"], a["K"] = a["q"].shape[0] // hd, a["k"].shape[0] // hd
            a["mask"] = np.ones(a["H"])
            if masked:
                a["mask"] = np.zeros(H)
                a["mask"][s["attention"]["q_heads"]] = 1
                for m in ("k", "v", "kb", "vb"):
                    if a[m] is not None:
                        x, dt = a[m].copy(), W[p + f"self_attn.{m[0]}_proj.{'bias' if len(m) > 1 else 'weight'}"][1]
                        for grp in s["attention"]["kv_groups"]:
                            mean = round_to(np.mean([a[m][j * hd:(j + 1) * hd] for j in grp], axis=0), dt)
                            for j in grp:
                                x[j * hd:(j + 1) * hd] = mean
                        a[m] = x
        if s["ffn"] is not None:
            ex = fused_experts(W, p, cfg)
            E, F = len(ex), ex[0][0].shape[0]
            em, cm = np.ones(E), [np.ones(F)] * E
            if masked:
                em, cm = np.zeros(E), [np.zeros(F) for _ in range(E)]
                em[s["ffn"]["experts"]] = 1
                for e, ch in zip(s["ffn"]["experts"], s["ffn"]["expert_channels"]):
                    cm[e][ch] = 1
            f = dict(router=g(L["router"]), rbias=g(L["rbias"]) if L["rbias"] else None, experts=ex, expert_mask=em,
                     channel_mask=cm, ln=g("post_attention_layernorm.weight"))
        out.append({"attn": a, "ffn": f})
    return out


def fused_forward(cfg, W, layers, tokens):
    eps, theta, T = cfg["rms_norm_eps"], cfg.get("rope_theta", 10000.0), len(tokens)
    hd = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    gpt_oss = cfg["model_type"] == "gpt_oss"
    res, limit = cfg.get("residual_multiplier", 1.0), cfg.get("swiglu_limit", 7.0)
    x = W["model.embed_tokens.weight"][0][tokens] * cfg.get("embedding_multiplier", 1.0)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    ii = np.arange(T)
    for l, ly in enumerate(layers):
        a = ly["attn"]
        if a is not None:
            h = rmsnorm(x, a["ln"], eps)
            lin = lambda w, b: h @ w.T + (b if b is not None else 0.0)
            H, K = a["H"], a["K"]
            q, k, v = lin(a["q"], a["qb"]).reshape(T, H, hd), lin(a["k"], a["kb"]).reshape(T, K, hd), lin(a["v"], a["vb"]).reshape(T, K, hd)
            q, k = rope(q, theta), rope(k, theta)
            mask = causal
            if cfg.get("layer_types", [None] * (l + 1))[l] == "sliding_attention":
                mask = causal + np.where(ii[:, None] - ii[None, :] >= cfg["sliding_window"], -np.inf, 0.0)
            scale = cfg.get("attention_multiplier", hd ** -0.5)
            y = attend(q, k, v, mask, scale, a["mask"], sinks=a["sinks"]) @ a["o"].T + (a["ob"] if a["ob"] is not None else 0.0)
            x = x + res * y
        f = ly["ffn"]
        if f is not None:
            h = rmsnorm(x, f["ln"], eps)
            logits = h @ f["router"].T + (f["rbias"] if f["rbias"] is not None else 0.0)
            logits = logits + np.where(f["expert_mask"] > 0, 0.0, -np.inf)
            y = np.zeros_like(x)
            for t in range(T):  # top-k of the logits, softmax over them (gpt_oss, granitemoe)
                chosen = sorted(range(logits.shape[1]), key=lambda e: (-logits[t][e], e))[:cfg["num_experts_per_tok"]]
                wts = np.exp(logits[t][chosen] - logits[t][chosen].max())
                wts /= wts.sum()
                for e, wt in zip(chosen, wts):
                    g, u, dn, gb, ub, db = f["experts"][e]
                    gate, up = h[t] @ g.T + (gb if gb is not None else 0.0), h[t] @ u.T + (ub if ub is not None else 0.0)
                    if gpt_oss:  # clamped SwiGLU: gate <= limit, |up| <= limit, gate sigmoid(1.702 gate) (up + 1)
                        gate, up = np.minimum(gate, limit), np.clip(up, -limit, limit)
                        act = gate / (1 + np.exp(-1.702 * gate)) * (up + 1)
                    else:
                        act = silu(gate) * up
                    y[t] += wt * ((act * f["channel_mask"][e]) @ dn.T + (db if db is not None else 0.0))
            x = x + res * y
    x = rmsnorm(x, W["model.norm.weight"][0], eps)
    head = W["lm_head.weight"][0] if "lm_head.weight" in W else W["model.embed_tokens.weight"][0]
    return x @ head.T / cfg.get("logits_scaling", 1.0)


def main_fused(orig, out, ocfg, ecfg, tol, ntok):
    Wo, We = read_typed_dir(orig), read_typed_dir(out)
    shapes = fused_shapes(ecfg)
    removed = ocfg["num_hidden_layers"] - len(shapes)
    oshapes = shapes + [{"h": None, "k": None, "w": None, "e": None}] * removed
    pj = json.load(open(os.path.join(out, "nsc_prune.json")))
    criterion = pj.get("criterion", "magnitude")
    sel = fused_select(ocfg, Wo, oshapes, criterion)
    if not same_selection(pj["layers"], sel):
        return 1
    exp = fused_expected(ocfg, Wo, sel)
    if set(exp) != set(We):
        print(f"FAIL: tensor names differ: missing {sorted(set(exp) - set(We))[:5]}, extra {sorted(set(We) - set(exp))[:5]}")
        return 1
    for n, t in exp.items():
        e, dt = We[n]
        if dt != Wo[n][1] or t.shape != e.shape or not np.array_equal(t, e):
            print(f"FAIL: {n}: dtype {dt} (original {Wo[n][1]}), shape {e.shape} (expected {t.shape}) or values differ")
            return 1
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    present = [{"attention": {} if s["h"] is not None else None, "ffn": {} if s["w"] is not None else None} for s in shapes]
    le = fused_forward(ecfg, We, fused_layers(ecfg, We, present, False), tokens)
    lm = fused_forward(ocfg, Wo, fused_layers(ocfg, Wo, sel, True), tokens)
    E, F = ocfg["num_local_experts"], ocfg["intermediate_size"]
    full = [{"attention": {"q_heads": list(range(ocfg["num_attention_heads"])), "kv_groups": [[x] for x in range(ocfg["num_key_value_heads"])]},
             "ffn": {"experts": list(range(E)), "expert_channels": [list(range(F))] * E}} for _ in oshapes]
    lu = fused_forward(ocfg, Wo, fused_layers(ocfg, Wo, full, True), tokens)
    err, moved = float(np.max(np.abs(le - lm))), float(np.max(np.abs(lm - lu)))
    mx = " (MXFP4 experts)" if any(n.endswith("_blocks") for n in Wo) else ""
    print(f"{ocfg['model_type']}{mx} ({criterion}): {len(Wo)} -> {len(We)} tensors, {sum(a.size for a, _ in Wo.values())} -> "
          f"{sum(a.size for a, _ in We.values())} stored values, experts kept per layer "
          f"{[len(s['ffn']['experts']) if s['ffn'] else 0 for s in sel]} of {E}; max |logits(emitted) - logits(masked original)| = "
          f"{err:.3g} (tol {tol:g}); pruning moved the logits by {moved:.3g}; max |logit| {float(np.max(np.abs(le))):.3g}")
    return verdict(err, moved, tol)


# ---- issue 19l: MoE layouts with their own routing, written from transformers' modeling files (own
# selection, tensor check and forward pass; helpers above: top, psi_rows, greedy_channels, rope, attend).
# hunyuan_v1_moe (modeling_hunyuan_v1_moe.py): per-head query_layernorm / key_layernorm before RoPE, q/k/v/o
# biases; HunYuanMoE = shared_mlp(h) + sum over the top-k of softmax(wg h) of (p_e / sum of the chosen p) expert_e(h)
# (topkgating's renormalised combine weights; its token capacity, which drops tokens of an over-full expert, is
# not modelled: inference engines route every token). ernie4_5_moe (modeling_ernie4_5_moe.py): interleaved RoPE,
# use_bias on every Linear (lm_head.bias); Ernie4_5_MoeSparseMoeBlock = shared_experts(h) + sum over the top-k of
# softmax(gate h) + e_score_correction_bias of p_e / max(sum of the chosen p, moe_norm_min) expert_e(h); dense
# layers outside moe_layer_start_index .. moe_layer_end_index (every moe_layer_interval). llama4_text
# (modeling_llama4.py): RoPE on the even / odd pairs (complex), the weightless L2 q/k norm after it, chunked
# attention (attention_chunk_size) on the RoPE layers; NoPE layers (no_rope_layers 0) attend fully with the query
# scaled by 1 + attn_scale log1p(floor((pos + 1) / floor_scale)); Llama4TextMoe = shared_expert(h) + sum over the
# top-k logits of expert_e(sigmoid(logit_e) h) with the fused experts h @ gate_up_proj[e] = [gate | up],
# (up silu(gate)) @ down_proj[e]; dense layers (not in moe_layers) of intermediate_size_mlp; the llama4 wrapper
# under language_model.* (vision tensors copied). Dropped experts: their router logits at -infinity.
MOE19L = {"hunyuan_v1_moe": dict(ffn="mlp.", router="mlp.gate.wg.weight", rbias=None, shared="mlp.shared_mlp.",
                                 qk=("self_attn.query_layernorm.weight", "self_attn.key_layernorm.weight")),
          "ernie4_5_moe": dict(ffn="mlp.", router="mlp.gate.weight", rbias="mlp.moe_statics.e_score_correction_bias",
                               shared="mlp.shared_experts.", qk=None),
          "llama4_text": dict(ffn="feed_forward.", router="feed_forward.router.weight", rbias=None,
                              shared="feed_forward.shared_expert.", qk=None)}
MOE19L_NAMES = ("gate_proj.weight", "up_proj.weight", "down_proj.weight", "gate_proj.bias", "up_proj.bias", "down_proj.bias")


from gen_prune_checkpoints import moe19l_is_moe  # noqa: E402 (the modeling files' MoE-layer rule, shared with the generator)


def moe19l_shapes(cfg):
    """Per layer dict(moe, w, e) of a config (nsc's intermediate_sizes / expert_counts override the widths / counts)."""
    mt, out = cfg["model_type"], []
    for l in range(cfg["num_hidden_layers"]):
        moe = moe19l_is_moe(cfg, l)
        E = (cfg["moe_num_experts"] if mt == "ernie4_5_moe" else cfg.get("num_local_experts", cfg.get("num_experts"))) if moe else 0
        w = cfg["moe_intermediate_size"] if moe and mt == "ernie4_5_moe" else \
            (cfg["intermediate_size_mlp"] if mt == "llama4_text" and not moe else cfg["intermediate_size"])
        if "intermediate_sizes" in cfg:
            w = cfg["intermediate_sizes"][l]
        if "expert_counts" in cfg and moe:
            E = cfg["expert_counts"][l]
        out.append({"moe": moe, "w": w, "e": E})
    return out


def moe19l_mlp(W, p):
    """gate, up, down weights and biases (None when absent) of the MLP under prefix p."""
    return [W.get(p + n) for n in MOE19L_NAMES]


def moe19l_expert(cfg, W, p, e):
    """Expert e of layer prefix p as (gate (F, d), up (F, d), down (d, F), gate bias, up bias, down bias or None)."""
    L = MOE19L[cfg["model_type"]]
    if cfg["model_type"] != "llama4_text":
        return moe19l_mlp(W, p + L["ffn"] + f"experts.{e}.")
    gu, dn = W[p + "feed_forward.experts.gate_up_proj"][e], W[p + "feed_forward.experts.down_proj"][e]  # [d, 2F], [F, d]
    F = dn.shape[0]
    return [gu[:, :F].T, gu[:, F:].T, dn.T, None, None, None]


def moe19l_select(cfg, W, emitted, criterion):
    """The documented criterion from the original weights: experts by ||gate||_F ||up||_F ||down||_F (spectral:
    the largest sum of psi_W of the kept sub-matrices), channels by ||gate_c|| ||up_c|| ||down_c|| (spectral: the
    greedy psi_W order); every head kept (the nsc format)."""
    spectral, sel, L = criterion == "spectral", [], MOE19L[cfg["model_type"]]
    _own_cache(W)
    H, K = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    for l, (o, s) in enumerate(zip(moe19l_shapes(cfg), emitted)):
        p = f"model.layers.{l}."
        w, F = s["w"], o["w"]

        def mats(e):  # gate rows, up rows, down columns of expert e (None: the dense MLP)
            g, u, dn = (moe19l_expert(cfg, W, p, e) if e is not None else moe19l_mlp(W, p + L["ffn"]))[:3]
            return [g, u, dn.T]

        def chans(e):
            if w >= F:
                return list(range(F))
            if spectral:
                return sorted(greedy_channels(mats(e), w, (id(W), l, "ffn", e)))
            return top(list(np.prod([np.linalg.norm(M, axis=1) for M in mats(e)], axis=0)), w)
        layer = {"attention": {"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]}}
        if o["moe"]:
            if spectral:
                val = [sum(psi_rows(M[chans(e)]) for M in mats(e)) for e in range(o["e"])]
            else:
                val = [np.prod([np.linalg.norm(M) for M in mats(e)]) for e in range(o["e"])]
            ex = top(val, s["e"])
            layer["ffn"] = {"experts": ex, "expert_channels": [chans(e) for e in ex]}
        else:
            layer["ffn"] = {"channels": chans(None)}
        sel.append(layer)
    return sel


def moe19l_expected(cfg, W, sel):
    """Every emitted tensor from the original's (experts renumbered with their router rows / bias columns)."""
    L, exp = MOE19L[cfg["model_type"]], {}
    for n, t in W.items():
        if not n.startswith("model.layers."):
            exp[n] = t

    def mlp(src, dst, ch):
        for n, t in zip(MOE19L_NAMES, moe19l_mlp(W, src)):
            if t is not None:
                exp[dst + n] = t if n == "down_proj.bias" else (t[:, ch] if n == "down_proj.weight" else t[ch])
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        for n, t in W.items():  # attention (heads kept) and the norms: whole
            if n.startswith(p + "self_attn.") or n in (p + "input_layernorm.weight", p + "post_attention_layernorm.weight"):
                exp[n] = t
        f = s["ffn"]
        if "experts" not in f:
            mlp(p + L["ffn"], p + L["ffn"], f["channels"])
            continue
        ex = f["experts"]
        exp[p + L["router"]] = W[p + L["router"]][ex]
        if L["rbias"]:
            exp[p + L["rbias"]] = W[p + L["rbias"]][:, ex]  # [1, E]: columns
        if cfg["model_type"] == "llama4_text":  # fused: [gate | up] columns, down rows, expert by expert
            gu, dn = W[p + "feed_forward.experts.gate_up_proj"], W[p + "feed_forward.experts.down_proj"]
            F = dn.shape[1]
            exp[p + "feed_forward.experts.gate_up_proj"] = np.stack([gu[e][:, list(ch) + [F + c for c in ch]]
                                                                     for e, ch in zip(ex, f["expert_channels"])])
            exp[p + "feed_forward.experts.down_proj"] = np.stack([dn[e][ch] for e, ch in zip(ex, f["expert_channels"])])
        else:
            for i, (e, ch) in enumerate(zip(ex, f["expert_channels"])):
                mlp(p + L["ffn"] + f"experts.{e}.", p + L["ffn"] + f"experts.{i}.", ch)
        for n, t in W.items():
            if n.startswith(p + L["shared"]):
                exp[n] = t
    return exp


def moe19l_rope(x, theta, interleaved):
    """RoPE of x (T, n, hd): rotate_half over halves (hunyuan) or over the even / odd pairs (ernie, llama4's complex)."""
    if not interleaved:
        return rope(x, theta)
    T, _, hd = x.shape
    f = np.outer(np.arange(T), 1.0 / theta ** (np.arange(0, hd, 2) / hd))
    cos, sin = np.repeat(np.cos(f), 2, axis=-1)[:, None, :], np.repeat(np.sin(f), 2, axis=-1)[:, None, :]
    rot = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    return x * cos + rot * sin


def moe19l_forward(cfg, W, sel, tokens, masked):
    """Logits of W (float64). masked: W is the original and sel's dropped experts / channels are masked; else W
    is the emitted checkpoint, run as it is."""
    mt, L = cfg["model_type"], MOE19L[cfg["model_type"]]
    ernie, llama4, eps, T = mt == "ernie4_5_moe", mt == "llama4_text", cfg["rms_norm_eps"], len(tokens)
    H, K, hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    ii = np.arange(T)
    causal = np.triu(np.full((T, T), -np.inf), 1)
    lin = lambda x, w, b: x @ w.T + (b if b is not None else 0.0)

    def mlp(h, parts, mask):
        g, u, dn, gb, ub, db = parts
        return lin(silu(lin(h, g, gb)) * lin(h, u, ub) * mask, dn, db)
    x = W["model.embed_tokens.weight"][tokens]
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        h = rmsnorm(x, W[p + "input_layernorm.weight"], eps)
        a = lambda m: lin(h, W[p + f"self_attn.{m}_proj.weight"], W.get(p + f"self_attn.{m}_proj.bias"))
        q, k, v = a("q").reshape(T, H, hd), a("k").reshape(T, K, hd), a("v").reshape(T, K, hd)
        mask = causal
        if L["qk"]:  # HunYuanMoEV1Attention: the per-head norms before RoPE
            q, k = rmsnorm(q, W[p + L["qk"][0]], eps), rmsnorm(k, W[p + L["qk"][1]], eps)
        if not llama4 or cfg["no_rope_layers"][l]:
            q, k = moe19l_rope(q, cfg["rope_theta"], ernie or llama4), moe19l_rope(k, cfg["rope_theta"], ernie or llama4)
        if llama4 and cfg["no_rope_layers"][l]:  # L2 norm (no weight) after RoPE; chunked attention
            if cfg.get("use_qk_norm"):
                q, k = rmsnorm(q, 1.0, eps), rmsnorm(k, 1.0, eps)
            if cfg.get("attention_chunk_size"):
                c = cfg["attention_chunk_size"]
                mask = causal + np.where(ii[:, None] // c != ii[None, :] // c, -np.inf, 0.0)
        elif llama4 and cfg.get("attn_temperature_tuning"):  # NoPE layers: the query scaled by position
            q = q * (np.log1p(np.floor((ii + 1.0) / cfg["floor_scale"])) * cfg["attn_scale"] + 1.0)[:, None, None]
        x = x + lin(attend(q, k, v, mask), W[p + "self_attn.o_proj.weight"], W.get(p + "self_attn.o_proj.bias"))
        h = rmsnorm(x, W[p + "post_attention_layernorm.weight"], eps)
        f = s["ffn"]
        if "experts" not in f:
            F = W[p + L["ffn"] + "up_proj.weight"].shape[0]
            m = np.zeros(F)
            m[f["channels"] if masked else list(range(F))] = 1
            x = x + mlp(h, moe19l_mlp(W, p + L["ffn"]), m)
            continue
        logits = h @ W[p + L["router"]].T
        E = logits.shape[1]
        kept = f["experts"] if masked else list(range(E))
        logits = logits + np.array([0.0 if e in kept else -np.inf for e in range(E)])
        pr = np.exp(logits - logits.max(axis=1, keepdims=True))
        pr /= pr.sum(axis=1, keepdims=True)
        choice = logits if llama4 else pr + (W[p + L["rbias"]][0] if L["rbias"] else 0.0)
        y = mlp(h, moe19l_mlp(W, p + L["shared"]), 1.0)
        topk = cfg["moe_k" if ernie else "num_experts_per_tok" if llama4 else "moe_topk"]
        for t in range(T):
            chosen = sorted(range(E), key=lambda e: (-choice[t][e], e))[:topk]
            wsum = max(sum(pr[t][e] for e in chosen), cfg.get("moe_norm_min", 1e-12) if ernie else np.finfo(np.float32).eps)
            for e in chosen:
                parts = moe19l_expert(cfg, W, p, e)
                m = np.zeros(parts[0].shape[0])
                m[f["expert_channels"][kept.index(e)] if masked else list(range(len(m)))] = 1
                if llama4:  # the input scaled by the sigmoid of the logit
                    y[t] += mlp(h[t:t + 1] / (1 + np.exp(-logits[t][e])), parts, m)[0]
                else:
                    y[t] += pr[t][e] / wsum * mlp(h[t:t + 1], parts, m)[0]
        x = x + y
    x = rmsnorm(x, W["model.norm.weight"], eps)
    return x @ W.get("lm_head.weight", W["model.embed_tokens.weight"]).T + W.get("lm_head.bias", 0.0)


def check_moe19l(ocfg, ecfg, Wo, We, pj, tol, ntok):
    if ocfg["model_type"] == "llama4":  # the wrapper: the text decoder under language_model.*, the rest copied
        strip = lambda W: {n[len("language_model."):]: t for n, t in W.items() if n.startswith("language_model.")}
        for n, t in Wo.items():
            if not n.startswith("language_model.") and not np.array_equal(t, We.get(n)):
                return f"{n} (outside the text decoder) is not copied unchanged"
        if set(We) - set(Wo) - {"language_model." + n for n in strip(We)}:
            return "the emitted checkpoint has tensors outside the text decoder the original has not"
        print("copied whole: " + ", ".join(n for n in Wo if not n.startswith("language_model.")))
        return check_moe19l(ocfg["text_config"], ecfg["text_config"], strip(Wo), strip(We), pj, tol, ntok)
    crit = pj.get("criterion", "magnitude")
    sel = moe19l_select(ocfg, Wo, moe19l_shapes(ecfg), crit)
    bad = selection_and_tensors(pj, sel, moe19l_expected(ocfg, Wo, sel), We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    le, lm = moe19l_forward(ecfg, We, sel, tokens, False), moe19l_forward(ocfg, Wo, sel, tokens, True)
    full = [{"ffn": {"experts": list(range(o["e"])), "expert_channels": [list(range(o["w"]))] * o["e"]} if o["moe"]
             else {"channels": list(range(o["w"]))}} for o in moe19l_shapes(ocfg)]
    lu = moe19l_forward(ocfg, Wo, full, tokens, True)
    es = moe19l_shapes(ecfg)
    return hybrid_verdict(f"{ocfg['model_type']} ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                          f"{sum(t.size for t in We.values())} weights, experts {[s['e'] for s in es]} x width "
                          f"{[s['w'] for s in es]} (dense layers: e = 0), attention and shared experts byte-identical",
                          le, lm, lu, tol)



# granitemoehybrid with experts: granite_h_forward above plus GraniteMoeHybridMoE beside the shared_mlp (now kept
# whole): top-k of router.layer's logits, softmax over those k, expert e = output_linear[e] (silu(g) u) with
# [g; u] = input_linear[e] h. Every Mamba-2 / attention tensor byte-identical.
def moe19l_granite_moe(cfg, W, p, h, kept, masks):
    x = p + "block_sparse_moe."
    gu, dn = W[x + "input_linear.weight"], W[x + "output_linear.weight"]
    logits = h @ W[x + "router.layer.weight"].T
    E, F = logits.shape[1], dn.shape[2]
    logits = logits + np.array([0.0 if e in kept else -np.inf for e in range(E)])
    y = np.zeros_like(h)
    for t in range(len(h)):
        chosen = sorted(range(E), key=lambda e: (-logits[t][e], e))[:cfg["num_experts_per_tok"]]
        wts = np.exp(logits[t][chosen] - logits[t][chosen].max())
        for e, wt in zip(chosen, wts / wts.sum()):
            a = gu[e] @ h[t]
            y[t] += wt * (dn[e] @ (silu(a[:F]) * a[F:] * masks[kept.index(e)]))
    return y


def check_moe19l_granite(ocfg, ecfg, Wo, We, pj, tol, ntok):
    crit, L, F = pj.get("criterion", "magnitude"), ocfg["num_hidden_layers"], ocfg["intermediate_size"]
    H, K = ocfg["num_attention_heads"], ocfg["num_key_value_heads"]
    _own_cache(Wo)
    expect, sel, om, em = dict(Wo), [], [], []
    for l in range(L):
        x = f"model.layers.{l}.block_sparse_moe."
        gu, dn = Wo[x + "input_linear.weight"], Wo[x + "output_linear.weight"]
        w, E = ecfg["intermediate_sizes"][l], ecfg["expert_counts"][l]
        mats = lambda e: [gu[e][:F], gu[e][F:], dn[e].T]
        if crit == "spectral":
            chans = lambda e: sorted(greedy_channels(mats(e), w, (id(Wo), l, "ffn", e))) if w < F else list(range(F))
            kept = top([sum(psi_rows(M[chans(e)]) for M in mats(e)) for e in range(len(gu))], E)
        else:
            chans = lambda e: top(list(np.prod([np.linalg.norm(M, axis=1) for M in mats(e)], axis=0)), w)
            kept = top([np.prod([np.linalg.norm(M) for M in mats(e)]) for e in range(len(gu))], E)
        ch = [chans(e) for e in kept]
        attn = ({"q_heads": list(range(H)), "kv_groups": [[x] for x in range(K)]} if ocfg["layer_types"][l] == "attention"
                else {"q_heads": [], "kv_groups": []})
        sel.append({"attention": attn, "ffn": {"experts": kept, "expert_channels": ch}})
        expect[x + "router.layer.weight"] = Wo[x + "router.layer.weight"][kept]
        expect[x + "input_linear.weight"] = np.stack([gu[e][list(c) + [F + i for i in c]] for e, c in zip(kept, ch)])
        expect[x + "output_linear.weight"] = np.stack([dn[e][:, c] for e, c in zip(kept, ch)])
        om.append((kept, [np.isin(np.arange(F), c).astype(float) for c in ch]))
        em.append((list(range(E)), [np.ones(w)] * E))
    bad = selection_and_tensors(pj, sel, expect, We)
    if bad:
        return bad
    tokens = np.random.default_rng(5).integers(0, ocfg["vocab_size"], ntok)
    S = np.ones(ocfg["shared_intermediate_size"])
    le = granite_h_forward(ecfg, We, [S] * L, tokens, em)
    lm = granite_h_forward(ocfg, Wo, [S] * L, tokens, om)
    Eo = ocfg["num_local_experts"]
    lu = granite_h_forward(ocfg, Wo, [S] * L, tokens, [(list(range(Eo)), [np.ones(F)] * Eo)] * L)
    return hybrid_verdict(f"granitemoehybrid with experts ({crit}): {len(Wo)} -> {len(We)} tensors, {sum(t.size for t in Wo.values())} -> "
                          f"{sum(t.size for t in We.values())} weights, experts {ecfg['expert_counts']} x width "
                          f"{ecfg['intermediate_sizes']} of {F}, Mamba-2, attention and shared_mlp byte-identical", le, lm, lu, tol)


HYBRID_CHECKS.update({m: check_moe19l for m in list(MOE19L) + ["llama4"]})
HYBRID_CHECKS["granitemoehybrid"] = lambda ocfg, *a: (check_moe19l_granite if ocfg.get("num_local_experts") else check_granite_h)(ocfg, *a)

if __name__ == "__main__":
    sys.exit(main())
