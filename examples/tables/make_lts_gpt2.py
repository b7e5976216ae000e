#!/usr/bin/python3
"""Writes lts_gpt2.csv: the 200 GPT-2 architectures of the LiteTransformerSearch benchmark
(../shared/data/lts-archai/random_GPT2_wt103.csv, MIT licence, see its SOURCE.md) as a table for
`nsc rank --table`: one row per architecture with its measured WikiText-103 perplexities and the
benchmark's own non-embedding parameter count, the architecture written as nsc's architecture
JSON (the `transformer` object of a SPACE.json with one option per layer) in the convention of
`nsc rank --family gpt2`: per-head Q/K/V, whole output projection, biases, LayerNorm, every
matrix normal(0.02) (psi_.02), FLOPs at the benchmark's tgt_len 192.

Usage: /usr/bin/python3 examples/tables/make_lts_gpt2.py [SHARED_DATA_DIR]
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "shared", "data")
src = os.path.join(data, "lts-archai", "random_GPT2_wt103.csv")

with open(src, newline="") as f:
    rows = list(csv.DictReader(f))

with open(os.path.join(HERE, "lts_gpt2.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["arch_id", "arch", "valid_ppl", "test_ppl", "params_nonembedding"])
    for r in rows:
        heads = [int(x) for x in r["n_head_list"].split()]
        inner = [int(x) for x in r["d_inner_list"].split()]
        arch = {
            "d_model": int(r["d_model"]),
            "layers": [[{"d_ff": d, "n_heads": h}] for h, d in zip(heads, inner)],
            "block": {"gated": False, "bias": True, "norm": "layernorm", "qkv": "per_head",
                      "o_proj": "whole"},
            "scoring": {"init": "normal", "std": 0.02},
            "seq_len": 192,
        }
        w.writerow([r["arch_id"], json.dumps(arch, separators=(",", ":")), r["valid_ppl"],
                    r["test_ppl"], str(int(float(r["params_nonembedding"])))])
print("wrote", os.path.join(HERE, "lts_gpt2.csv"), len(rows), "rows")
