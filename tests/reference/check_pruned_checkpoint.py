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
    experts survive by the documented criterion nsc_prune.json names (README "Pruned checkpoints":
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
                              rbias="block_sparse_moe.e_score_correction_bias")}


def lay(cfg):
    d = dict(moe=None, names=("gate_proj", "up_proj", "down_proj"), fused=False, fused_gu=False, shared=False, gemma=False,
             norms=(("input_layernorm", None), ("post_attention_layernorm", None)), mla=False, ds_moe=False,
             qk=("q_norm", "k_norm"), qk_after_rope=False, qk_whole=False, rbias=None)
    d.update(LAYOUTS.get(cfg["model_type"], {}))
    return d


def n_experts(cfg):
    return cfg.get("num_local_experts") or cfg.get("num_experts") or cfg.get("n_routed_experts") or 0


def is_moe_layer(cfg, i):
    if not n_experts(cfg):
        return False
    if cfg["model_type"] in ("mixtral", "olmoe", "minimax_m2"):
        return True
    if lay(cfg)["ds_moe"]:
        return i >= cfg.get("first_k_dense_replace", 0) and i % cfg.get("moe_layer_freq", 1) == 0
    return i not in cfg.get("mlp_only_layers", []) and (i + 1) % cfg.get("decoder_sparse_step", 1) == 0


def expert_width(cfg):
    return cfg["intermediate_size"] if cfg["model_type"] in ("mixtral", "olmoe", "minimax_m2") else cfg["moe_intermediate_size"]


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
        s["w"] = p.get("moe_intermediate_size" if moe and cfg["model_type"] not in ("mixtral", "olmoe", "minimax_m2") else "intermediate_size", s["w"])
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


def forward(cfg, W, layers, tokens):
    """layers[l]: dict(attn=None | dict(H, K, hd, q, k, v, qb, kb, vb, o, qn, kn, head_mask),
    ffn=None | dict(gate, up, down, mask) | dict(router, experts=[(w1, w3, w2, mask)], expert_mask, top_k,
    norm, shared=None | (gate, up, down, shared_gate)))."""
    if cfg["model_type"] in OWN:  # LayerNorm families under their own names
        return forward_own(cfg, W, layers, tokens)
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
            out = np.zeros((T, H, hd))
            for i in range(H):
                j = i // (H // K)
                s = q[:, i] @ k[:, j].T * scale
                if cfg.get("attn_logit_softcapping"):  # gemma2
                    s = np.tanh(s / cfg["attn_logit_softcapping"]) * cfg["attn_logit_softcapping"]
                s = s + mask
                s = np.exp(s - s.max(axis=1, keepdims=True))
                out[:, i] = (s / s.sum(axis=1, keepdims=True)) @ v[:, j] * a["head_mask"][i]
            y = out.reshape(T, H * hd) @ a["o"].T
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
    out = np.zeros((T, H, vd))
    for i in range(H):
        s = qq[:, i] @ kk[:, i].T / np.sqrt(nope + rp) + causal
        s = np.exp(s - s.max(axis=1, keepdims=True))
        out[:, i] = (s / s.sum(axis=1, keepdims=True)) @ kv[:, i, nope:]
    return out.reshape(T, H * vd) @ W[p + "self_attn.o_proj.weight"].T


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
    for l, s in enumerate(sel):
        p = f"model.layers.{l}."
        if s["attention"] is not None:
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
        if s["ffn"] is not None:
            f = s["ffn"]
            for n in filter(None, L["norms"][1]):
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
        if s["attention"] is not None:
            for n in ("input_layernorm.bias", "self_attn.o_proj.bias"):
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
            out = np.zeros((T, H, hd))
            for i in range(H):
                j = i // (H // K)
                s = q[:, i] @ k[:, j].T / np.sqrt(hd) + mask
                s = np.exp(s - s.max(axis=1, keepdims=True))
                out[:, i] = (s / s.sum(axis=1, keepdims=True)) @ v[:, j] * a["head_mask"][i]
            att = out.reshape(T, H * hd) @ a["o"].T + W.get(p + "self_attn.o_proj.bias", 0.0)
            if not parallel:
                x = x + att
                att = 0.0
        if f is not None:
            hh = ln(x, "post_attention_layernorm")
            u = hh @ f["up"].T + W.get(p + "mlp.up_proj.bias", 0.0)
            y = ((O["act"](hh @ f["gate"].T) * u if f["gate"] is not None else O["act"](u)) * f["mask"]) @ f["down"].T
            x = x + att + y + W.get(p + "mlp.down_proj.bias", 0.0)
        else:
            x = x + att
    x = layernorm(x, W[O["final"] + ".weight"], W[O["final"] + ".bias"], eps) if O["final"] + ".bias" in W else \
        rmsnorm(x, W[O["final"] + ".weight"], cfg["rms_norm_eps"])
    return x @ W.get(O["head"], W[O["embed"]]).T


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
    bad = check_tensors_own(Wo, We, sel, ocfg) if own else check_tensors(Wo, We, sel, ocfg)
    if bad:
        print("FAIL: " + bad)
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
            out = np.zeros((T, H, hd))
            for i in range(H):
                j = i // (H // K)
                s = q[:, i] @ k[:, j].T * scale + mask
                m = s.max(axis=1, keepdims=True)
                if a["sinks"] is not None:  # a learned logit per head in the softmax's denominator
                    m = np.maximum(m, a["sinks"][i])
                    pr = np.exp(s - m) / (np.exp(s - m).sum(axis=1, keepdims=True) + np.exp(a["sinks"][i] - m))
                else:
                    pr = np.exp(s - m) / np.exp(s - m).sum(axis=1, keepdims=True)
                out[:, i] = pr @ v[:, j] * a["mask"][i]
            y = out.reshape(T, H * hd) @ a["o"].T + (a["ob"] if a["ob"] is not None else 0.0)
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


if __name__ == "__main__":
    sys.exit(main())
