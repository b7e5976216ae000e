#!/usr/bin/python3
"""ctest driver of `nsc prune --score weights` (nsc/io/prune_weights.hpp) on the tiny llama (3 layers),
mixtral (2 layers, 6 experts), qwen2_moe (2 layers, 4 experts, q/k/v biases, a shared expert and
its gate: valued in every option that keeps the FFN), phi3 (fused qkv_proj / gate_up_proj) and starcoder2
(LayerNorm with bias, q/k/v/o and MLP biases, an MLP without gate: ||up_c|| ||down_c||)
checkpoints of tests/data/prune_ckpt, and gpt_oss (2 layers, fused 3-D experts with biases, attention sinks; BF16):
every option of the space valued independently in numpy (psi_W
of the kept sub-matrices by slogdet, the kept sets by tests/reference/check_pruned_checkpoint.py's
magnitude / brute-force spectral criterion), then the knapsack solved by brute force over all
combinations of the three layers' (attention, FFN) options under a params budget.

Usage: /usr/bin/python3 check_weight_scores.py NSC SOURCE_DIR

For each criterion and budget, nsc's answer must have the brute-force optimum's value (its
weight_score.best, and numpy's value of the layers nsc chose, to 1e-9 relative), its unpruned
value must equal numpy's, and its params must meet the budget. Prints "N cases, F failures".
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import check_pruned_checkpoint as ref  # noqa: E402

BUDGETS = [40000, 60000, 85000]
MOE_BUDGETS = [25000, 40000]
STEP = 16  # --ffn-multiple


def options(cfg):
    """The per-layer space of --emit-format per-layer --head-step 1 --ffn-multiple 16: attention (h, k)
    (the model's own first), k | h, k <= min(K, h), or removed; FFN widths F, multiples of 16 below F, or removed
    (MoE: (experts E' from E down to top-k, width))."""
    H, K = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    E = ref.n_experts(cfg)
    F = ref.expert_width(cfg) if E else cfg["intermediate_size"]
    att = [(H, K)] + [(h, k) for h in range(H, 0, -1) for k in range(min(K, h), 0, -1) if h % k == 0 and (h, k) != (H, K)]
    att.append(None)
    widths = [F] + list(range((F - 1) // STEP * STEP, STEP - 1, -STEP))
    ffn = [(e, w) for e in range(E, cfg["num_experts_per_tok"] - 1, -1) for w in widths] if E else widths
    return att, ffn + [None]


def values(cfg, W, criterion):
    """Per layer: [(value, params)] of every attention option and of every FFN option, numpy only."""
    d, H, K = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim") or d // H
    L = cfg["num_hidden_layers"]
    att, ffn = options(cfg)
    out = []
    for l in range(L):
        p = f"model.layers.{l}."
        L_ = ref.lay(cfg)
        q, kw, vw, qb, _, _ = ref.qkv(W, p, H, K, hd, L_["fused"])
        o = W[p + "self_attn.o_proj.weight"]
        bias = qb is not None
        none = {"h": None, "k": None, "hd": hd, "w": None, "e": 0}
        A = []
        for hk in att:
            if hk is None:
                A.append((0.0, 0, None))
                continue
            h, k = hk
            shapes = [none] * L
            shapes[l] = {"h": h, "k": k, "hd": hd, "w": None, "e": 0}
            s = ref.select(cfg, W, shapes, criterion)[l]["attention"]
            v = sum(ref.psi_rows(q[i * hd:(i + 1) * hd]) for i in s["q_heads"])
            for g in s["kv_groups"]:
                v += ref.psi_rows(np.mean([kw[x * hd:(x + 1) * hd] for x in g], axis=0))
                v += ref.psi_rows(np.mean([vw[x * hd:(x + 1) * hd] for x in g], axis=0))
            cols = [i * hd + r for i in s["q_heads"] for r in range(hd)]
            v += ref.psi_rows(o[:, cols].T)
            # LayerNorm families: the norm's bias and o_proj's bias come with the attention
            extra = d * (p + "input_layernorm.bias" in W) + d * (p + "self_attn.o_proj.bias" in W)
            A.append((v, 2 * h * hd * d + 2 * k * hd * d + d + (h + 2 * k) * hd * bias + extra, hk))
        Fo = []
        for w in ffn:
            if w is None:
                Fo.append((0.0, 0, None))
                continue
            shapes = [none] * L
            if isinstance(w, tuple):  # MoE: the kept experts' matrices and their router rows
                e, ww = w
                shapes[l] = {"h": None, "k": None, "hd": hd, "w": ww, "e": e}
                f = ref.select(cfg, W, shapes, criterion)[l]["ffn"]
                v = ref.psi_rows(W[p + f"{L_['moe']}gate.weight"][f["experts"]])
                for x, ch in zip(f["experts"], f["expert_channels"]):
                    v += sum(ref.psi_rows(M[ch]) for M in ref.ffn_mats(W, p, cfg, x))
                c = e * 3 * ww * d + e * d + d
                if L_["shared"]:  # kept whole: its three matrices and its gate row
                    sp = p + "mlp.shared_expert."
                    v += ref.psi_rows(W[sp + "gate_proj.weight"]) + ref.psi_rows(W[sp + "up_proj.weight"]) + \
                        ref.psi_rows(W[sp + "down_proj.weight"].T) + ref.psi_rows(W[p + "mlp.shared_expert_gate.weight"])
                    c += 3 * cfg["shared_expert_intermediate_size"] * d + d
                Fo.append((v, c, w))
                continue
            shapes[l] = {"h": None, "k": None, "hd": hd, "w": w, "e": 0}
            ch = ref.select(cfg, W, shapes, criterion)[l]["ffn"]["channels"]
            v = sum(ref.psi_rows(M[ch]) for M in ref.ffn_mats(W, p, cfg))
            if len(ref.ffn_mats(W, p, cfg)) == 3:  # gate, up, down
                Fo.append((v, 3 * w * d + d, w))
            else:  # no gate (starcoder2): up / down, their biases (up's sliced), the LayerNorm's bias
                Fo.append((v, 2 * w * d + d + w * (p + "mlp.up_proj.bias" in W) + d * (p + "mlp.down_proj.bias" in W) +
                           d * (p + "post_attention_layernorm.bias" in W), w))
        out.append((A, Fo))
    return out


def brute_force(vals, fixed, budget):
    """The best sum of option values over every combination of every layer's (attention, FFN) options."""
    per = []
    for A, Fo in vals:
        per.append(np.array([[a[0] + f[0] for f in Fo] for a in A]).ravel())
        per[-1] = (per[-1], np.array([[a[1] + f[1] for f in Fo] for a in A]).ravel())
    v, c = per[0]
    for pv, pc in per[1:]:
        v = (v[:, None] + pv[None, :]).ravel()
        c = (c[:, None] + pc[None, :]).ravel()
    ok = c + fixed <= budget
    return float(v[ok].max())


def judge(nsc, orig, model, criterion, budget, grid, vals, fixed, unpruned):
    """nsc prune --score weights on `orig` under a params budget, against the brute force over `vals`; prints a line."""
    r = subprocess.run([nsc, "prune", os.path.join(orig, "config.json"), "--space", "generic", "--emit-format", "per-layer",
                        "--head-step", "1"] + grid + ["--params", str(budget), "--weights", orig, "--score", "weights",
                                                     "--criterion", criterion, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL {model} {criterion} {budget}: nsc prune exit {r.returncode}: {r.stderr.strip()}")
        return False
    j = json.loads(r.stdout)
    best = brute_force(vals, fixed, budget)
    # numpy's value of the layers nsc chose
    chosen = 0.0
    for (A, Fo), lay in zip(vals, j["layers"]):
        a = None if lay["attention"] is None else (lay["attention"]["heads"], lay["attention"]["kv_heads"])
        f = lay["ffn"] if lay["ffn"] is None or "experts" not in lay else (lay["experts"], lay["ffn"])
        chosen += next(x[0] for x in A if x[2] == a) + next(x[0] for x in Fo if x[2] == f)
    ws = j["weight_score"]
    errs = [abs(ws["best"] - best) / best, abs(chosen - best) / best, abs(ws["unpruned"] - unpruned) / unpruned]
    good = max(errs) <= 1e-9 and j["params_total"] <= budget
    shapes = ", ".join(("-" if l["attention"] is None else f"{l['attention']['heads']}/{l['attention']['kv_heads']}") + " " +
                       ("-" if l["ffn"] is None else (f"{l['experts']}x" if "experts" in l else "") + str(l["ffn"])) for l in j["layers"])
    print(f"{'ok  ' if good else 'FAIL'} {model} {criterion} params <= {budget}: nsc {ws['best']:.10g}, brute force {best:.10g}, "
          f"numpy value of nsc's layers {chosen:.10g}; unpruned nsc {ws['unpruned']:.10g} numpy {unpruned:.10g}; "
          f"layers (heads/KV FFN) {shapes}; params {j['params_total']}")
    return good


def main():
    nsc, src = sys.argv[1:3]
    failures = cases = 0
    for model, criterion, budgets in [("llama", "magnitude", BUDGETS), ("llama", "spectral", BUDGETS),
                                      ("mixtral", "magnitude", MOE_BUDGETS), ("mixtral", "spectral", MOE_BUDGETS),
                                      ("qwen2_moe", "magnitude", [20000, 26000]), ("qwen2_moe", "spectral", [23000]),
                                      ("phi3", "magnitude", [20000, 30000]), ("phi3", "spectral", [25000]),
                                      ("starcoder2", "magnitude", [16000, 20000]), ("starcoder2", "spectral", [18000])]:
        orig = os.path.join(src, "tests", "data", "prune_ckpt", model)
        cfg = json.load(open(os.path.join(orig, "config.json")))
        W = ref.read_safetensors_dir(orig)
        d, V = cfg["hidden_size"], cfg["vocab_size"]
        fixed = 2 * V * d + d  # embeddings, untied LM head, final norm
        if model in ref.OWN:  # LayerNorm families: llama's names; the tensors outside the layers as they are
            cfg = ref.own_config(cfg)
            W = ref.own_canonical(cfg, W, ref.layer_shapes(cfg))
            fixed = sum(t.size for n, t in W.items() if not n.startswith("model.layers."))
        vals = values(cfg, W, criterion)
        unpruned = sum(A[0][0] + Fo[0][0] for A, Fo in vals)
        for budget in budgets:
            cases += 1
            failures += not judge(nsc, orig, model, criterion, budget, ["--ffn-multiple", str(STEP)], vals, fixed, unpruned)
    fc, ff = fused_main(nsc, src)
    cases, failures = cases + fc, failures + ff
    print(f"{cases} cases, {failures} failures")
    return 1 if failures else 0


# Fused 3-D experts (gpt_oss: q/k/v/o biases, sinks, router bias, expert biases in BF16): the same values
# from check_pruned_checkpoint.py's fused reader and selection (biases and sinks are counted, not valued).
FUSED_STEP = 4


def fused_values(cfg, W, criterion):
    d, H, K = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd, L, E, F = cfg.get("head_dim") or d // H, cfg["num_hidden_layers"], cfg["num_local_experts"], cfg["intermediate_size"]
    lay = ref.FUSED[cfg["model_type"]]
    bias = cfg.get("attention_bias", False)
    att = [(H, K)] + [(h, k) for h in range(H, 0, -1) for k in range(min(K, h), 0, -1) if h % k == 0 and (h, k) != (H, K)]
    widths = [F] + list(range((F - 1) // FUSED_STEP * FUSED_STEP, FUSED_STEP - 1, -FUSED_STEP))
    ffn = [(e, w) for e in range(E, cfg["num_experts_per_tok"] - 1, -1) for w in widths]
    out = []
    for l in range(L):
        p = f"model.layers.{l}."
        q, kw, vw, o = (W[p + f"self_attn.{m}_proj.weight"][0] for m in "qkvo")
        none = {"h": None, "k": None, "w": None, "e": None}
        A = [(0.0, 0, None)]
        for h, k in att:
            shapes = [none] * L
            shapes[l] = {"h": h, "k": k, "w": None, "e": None}
            s = ref.fused_select(cfg, W, shapes, criterion)[l]["attention"]
            v = sum(ref.psi_rows(q[i * hd:(i + 1) * hd]) for i in s["q_heads"])
            for g in s["kv_groups"]:
                v += ref.psi_rows(np.mean([kw[x * hd:(x + 1) * hd] for x in g], axis=0))
                v += ref.psi_rows(np.mean([vw[x * hd:(x + 1) * hd] for x in g], axis=0))
            v += ref.psi_rows(o[:, [i * hd + r for i in s["q_heads"] for r in range(hd)]].T)
            c = 2 * h * hd * d + 2 * k * hd * d + d + ((h + 2 * k) * hd + d) * bias + h * (lay["sinks"] is not None)
            A.append((v, c, (h, k)))
        Fo = [(0.0, 0, None)]
        ex = ref.fused_experts(W, p, cfg)
        for e, w in ffn:
            shapes = [none] * L
            shapes[l] = {"h": None, "k": None, "w": w, "e": e}
            f = ref.fused_select(cfg, W, shapes, criterion)[l]["ffn"]
            v = ref.psi_rows(W[p + lay["router"]][0][f["experts"]])
            for x, ch in zip(f["experts"], f["expert_channels"]):
                v += sum(ref.psi_rows(M[ch]) for M in (ex[x][0], ex[x][1], ex[x][2].T))
            c = e * 3 * w * d + e * d + d + (e if lay["rbias"] else 0) + (e * (2 * w + d) if lay["bias"] else 0)
            Fo.append((v, c, (e, w)))
        # the unpruned options first (as values() lists them)
        A = [A[1], A[0]] + A[2:]
        Fo = [Fo[1], Fo[0]] + Fo[2:]
        out.append((A, Fo))
    return out


def fused_main(nsc, src):
    failures = cases = 0
    for model, criterion, budgets in [("gpt_oss", "magnitude", [14000, 20000]), ("gpt_oss", "spectral", [16000])]:
        orig = os.path.join(src, "tests", "data", "prune_ckpt", model)
        cfg = json.load(open(os.path.join(orig, "config.json")))
        W = ref.read_typed_dir(orig)
        d, V = cfg["hidden_size"], cfg["vocab_size"]
        fixed = 2 * V * d + d
        vals = fused_values(cfg, W, criterion)
        unpruned = sum(A[0][0] + Fo[0][0] for A, Fo in vals)
        for budget in budgets:
            cases += 1
            failures += not judge(nsc, orig, model, criterion, budget, ["--expert-step", "1", "--ffn-multiple", str(FUSED_STEP)],
                                  vals, fixed, unpruned)
    return cases, failures


if __name__ == "__main__":
    sys.exit(main())
