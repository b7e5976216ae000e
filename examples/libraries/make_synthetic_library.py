#!/usr/bin/python3
"""Synthetic measured block libraries in Puzzle's block_library.json layout
({layer id: {variant name: {"stats": {...}, "metrics": {...}}}}), shaped like a 70B decoder:
80 layers x 16 variants (attention: 8, 4 or 1 KV heads or no-op, x FFN: 100%, 75%, 50% width or
no-op). Costs are correlated (memory, runtime and params all grow with the kept sublayers, with
per-layer measurement noise); the KL divergence grows as sublayers shrink, scaled by a per-layer
sensitivity (first and last layers most sensitive). No NVIDIA data is used: every number comes
from the formulas and the seeded generator below.

    /usr/bin/python3 examples/libraries/make_synthetic_library.py [--layers 80] [--seed 1] OUT.json

Stats are rounded to 4 decimals (a measurement's precision), metrics to 6, so nsc sums them as
exact decimals."""
import argparse
import json

import numpy as np

ATTN = [("kv8", 8), ("kv4", 4), ("kv1", 1), ("noop", 0)]
FFN = [("ffn100", 1.0), ("ffn75", 0.75), ("ffn50", 0.5), ("noop", 0.0)]
HIDDEN, HEADS, HEAD_DIM, FFN_WIDTH = 8192, 64, 128, 28672


def library(layers, seed):
    rng = np.random.default_rng(seed)
    depth = np.linspace(0.0, 1.0, layers)
    sens = np.exp(rng.normal(0.0, 0.35, layers)) * (1.0 + 2.5 * np.exp(-12 * depth) + 1.5 * np.exp(-12 * (1 - depth)))
    out = {}
    for l in range(layers):
        speed = np.exp(rng.normal(0.0, 0.03))  # this layer's GPU timing drift, shared by its variants
        lib = {}
        for an, kv in ATTN:
            for fn, frac in FFN:
                attn_params = 0 if kv == 0 else 2 * HIDDEN * HEADS * HEAD_DIM + 2 * HIDDEN * kv * HEAD_DIM
                ffn_params = int(round(3 * HIDDEN * FFN_WIDTH * frac))
                params = attn_params + ffn_params
                mem = params * 2 / 2**20 + kv * 8192 * 8 * HEAD_DIM * 2 * 2 / 2**20
                mem *= np.exp(rng.normal(0.0, 0.01))
                rt = speed * (1e-6 * params * 0.9 + (0 if kv == 0 else 55.0 + 6.0 * kv) + (0 if frac == 0 else 20.0))
                rt *= np.exp(rng.normal(0.0, 0.02))
                a_loss = {8: 0.0, 4: 0.004, 1: 0.02, 0: 0.09}[kv]
                f_loss = 0.12 * (1 - frac) ** 1.6
                kl = sens[l] * (a_loss + f_loss + a_loss * f_loss * 3) * np.exp(rng.normal(0.0, 0.15))
                if kv == 8 and frac == 1.0:
                    kl = 0.0
                lib[f"{an}_{fn}"] = {
                    "stats": {"memory_mib": round(float(mem), 4), "runtime_ms": round(float(rt), 4),
                              "num_params": params, "num_kv_heads": kv,
                              "ffn_intermediate_size": int(FFN_WIDTH * frac)},
                    "metrics": {"kl_div": round(float(kl), 6), "lm_loss": round(float(1.9 + kl * 1.3), 6)},
                }
        out[str(l)] = lib
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=80)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with open(a.out, "w") as f:
        json.dump(library(a.layers, a.seed), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
