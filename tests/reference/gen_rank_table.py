#!/usr/bin/python3
"""A table of GPT-style architectures for `nsc rank --table`, with independent reference values
(tests/test_table_ranking.cpp, tests/cli/rank.cmake).

    /usr/bin/python3 tests/reference/gen_rank_table.py [--rows 300] [--seed 12] [--out DIR]

Writes DIR/rank_table_gpt.csv (default DIR = tests/data) with columns
    id, arch, perplexity, ref_nsc, ref_params
and DIR/rank_table_gpt_reference.csv with columns statistic,value:
    n, nsc_tau_b, nsc_rho, params_tau_b, params_rho   (scipy.stats.kendalltau(variant='b'),
                                                      scipy.stats.spearmanr)
Each `arch` cell is nsc's architecture JSON (the `transformer` object of a SPACE.json with one
option per layer): d_model in {256, 384, 512, 768, 1024}, 2-12 layers, per layer n_heads from
the divisors of d_model in {4, 6, 8, 12, 16}, n_kv_heads a divisor of n_heads (MHA, GQA, MQA),
d_ff in [d_model, 4 d_model]; biases, LayerNorm, per-head Q/K/V, whole output projection,
Xavier-normal of each block, psi_MP (the paper's convention, math.md). Every tenth row repeats an
earlier architecture with its layers permuted (its NSC is mathematically equal: an exact tie),
and perplexities are rounded to 2 decimals (ties in the target).

Independence from the code under test: psi_MP from the textbook closed form (math.md section 2,
tests/reference/gen_preset_reference.py's psi_mp) in 50-digit mpmath; the per-head Xavier variances and
the parameter count re-derived here from the convention; NSC summed exactly in mpmath; the
statistics from scipy. The synthetic perplexity depends on the parameter count, the depth-width
balance and log-normal noise (seeded numpy): it is a test target, not a measurement.
"""
import argparse
import csv
import json
import math
import os
import sys

import mpmath
import numpy as np
from scipy import stats

mpmath.mp.dps = 50
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# psi_MP: the textbook closed form in 50-digit mpmath, shared with the preset reference.
sys.path.insert(0, HERE)
from gen_preset_reference import psi_mp  # noqa: E402


def xavier(rows, cols):
    """psi_MP of a rows x cols block under Xavier-normal of the block: v = 2 / (rows + cols)."""
    return psi_mp(rows, cols, mpmath.mpf(2) / (rows + cols))


def layer_nsc(d, h, kv, ff):
    hd = d // h
    blocks = h * xavier(hd, d) + 2 * kv * xavier(hd, d)  # per-head Q, K, V
    return blocks + xavier(d, h * hd) + xavier(ff, d) + xavier(d, ff)  # O whole, FFN up, down


def layer_params(d, h, kv, ff):
    hd = d // h
    q = d * h * hd + h * hd
    k = d * kv * hd + kv * hd
    o = h * hd * d + d
    ffn = d * ff + ff + ff * d + d
    return q + 2 * k + o + ffn + 4 * d  # two LayerNorms (weight and bias)


BLOCK = {"gated": False, "bias": True, "norm": "layernorm", "qkv": "per_head", "o_proj": "whole"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data"))
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    archs = []
    for i in range(a.rows):
        if i % 10 == 9 and archs:
            d, layers = archs[int(rng.integers(len(archs)))]
            layers = [layers[j] for j in rng.permutation(len(layers))]
        else:
            d = int(rng.choice([256, 384, 512, 768, 1024]))
            L = int(rng.integers(2, 13))
            layers = []
            for _ in range(L):
                h = int(rng.choice([x for x in (4, 6, 8, 12, 16) if d % x == 0]))
                kv = int(rng.choice([x for x in range(1, h + 1) if h % x == 0]))
                ff = int(rng.integers(d, 4 * d + 1))
                layers.append((h, kv, ff))
        archs.append((d, layers))
    ids, cells, ppl, nsc, params = [], [], [], [], []
    for i, (d, layers) in enumerate(archs):
        arch = {"d_model": d,
                "layers": [[{"d_ff": ff, "n_heads": h, "n_kv_heads": kv}] for h, kv, ff in layers],
                "block": BLOCK,
                "scoring": {"init": "xavier_normal", "estimator": "mp"}}
        s = mpmath.fsum(layer_nsc(d, h, kv, ff) for h, kv, ff in layers)
        p = sum(layer_params(d, h, kv, ff) for h, kv, ff in layers)
        depth_width = abs(math.log(len(layers) / (d / 128.0)))
        ppl.append(round(float(math.exp(5.2 - 0.22 * math.log(p / 1e6) + 0.08 * depth_width
                                        + rng.normal(0, 0.06))), 2))
        ids.append("g%04d" % i)
        cells.append(json.dumps(arch, separators=(",", ":")))
        nsc.append(float(s))
        params.append(p)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "rank_table_gpt.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "arch", "perplexity", "ref_nsc", "ref_params"])
        for row in zip(ids, cells, ppl, nsc, params):
            w.writerow([row[0], row[1], "%.2f" % row[2], repr(row[3]), row[4]])
    truth = -np.array(ppl)
    ref = [("n", len(ids)),
           ("nsc_tau_b", stats.kendalltau(nsc, truth, variant="b").statistic),
           ("nsc_rho", stats.spearmanr(nsc, truth).statistic),
           ("params_tau_b", stats.kendalltau(params, truth, variant="b").statistic),
           ("params_rho", stats.spearmanr(params, truth).statistic)]
    with open(os.path.join(a.out, "rank_table_gpt_reference.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["statistic", "value"])
        for k, v in ref:
            w.writerow([k, repr(float(v)) if k != "n" else v])
    print("wrote", a.out, ref)


if __name__ == "__main__":
    main()
