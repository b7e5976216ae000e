#!/usr/bin/env python3
"""The roofline of `nsc fit` against published measurements (docs/results.md "Latency model: validation").

Data points: Qwen2.5 Speed Benchmark (QwenLM/Qwen2.5, docs/source/benchmark/speed_benchmark.rst):
vLLM 0.6.3, NVIDIA A100 80GB, batch 1, BF16, the speed of generating 2048 tokens after an input
of L tokens (tokens/s = 2048 / (prefill of L + 2048 decode steps)); "Setting 1" runs are
enforce_eager=True (no CUDA graphs). The configs next to this script are the hub's shapes of the
four models (hidden, FFN, heads, KV heads, layers, vocabulary 152064, untied, q/k/v bias).

Prediction from nsc fit (default efficiencies, nothing fitted to these points):
    t = TTFT(L) + 2048 x decode step at context L + 1024 (the step is linear in the context,
    so the mean context gives the sum), tokens/s = 2048 / t.

Usage: validate_latency.py PATH/TO/nsc  > validation.md
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (config, GPUs (tp), input length, published tokens/s, note)
POINTS = [
    ("qwen2.5-7b-instruct", 1, 1, 84.28, ""),
    ("qwen2.5-7b-instruct", 1, 6144, 80.70, ""),
    ("qwen2.5-7b-instruct", 1, 14336, 77.69, ""),
    ("qwen2.5-7b-instruct", 1, 30720, 70.33, ""),
    ("qwen2.5-14b-instruct", 1, 1, 46.30, ""),
    ("qwen2.5-14b-instruct", 1, 6144, 43.83, ""),
    ("qwen2.5-14b-instruct", 1, 14336, 41.91, ""),
    ("qwen2.5-32b-instruct", 1, 1, 22.13, "Setting 1 (eager)"),
    ("qwen2.5-32b-instruct", 1, 6144, 21.05, "Setting 1 (eager)"),
    ("qwen2.5-32b-instruct", 1, 14336, 19.91, "Setting 1 (eager)"),
    ("qwen2.5-32b-instruct", 2, 30720, 31.82, ""),
    ("qwen2.5-72b-instruct", 2, 1, 18.19, "Setting 1 (eager)"),
    ("qwen2.5-72b-instruct", 4, 1, 31.37, ""),
    ("qwen2.5-72b-instruct", 4, 6144, 29.90, ""),
]


def fit(nsc, config, tp, context):
    out = subprocess.run(
        [nsc, "fit", os.path.join(HERE, config + ".json"), "--gpu", "A100-80GB", "--tp", str(tp),
         "--context", str(context), "--batch", "1", "--json"],
        capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"nsc fit {config}: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    nsc = sys.argv[1]
    print("| model | GPUs (tp) | input | published tok/s | nsc fit tok/s | error | note |")
    print("|---|---:|---:|---:|---:|---:|---|")
    errors = []
    for config, tp, length, published, note in POINTS:
        ttft = fit(nsc, config, tp, length)["ttft_ms"] * 1e-3 if length > 1 else 0.0
        step = fit(nsc, config, tp, length + 1024)["decode_ms"] * 1e-3
        predicted = 2048 / (ttft + 2048 * step)
        err = predicted / published - 1
        errors.append(abs(err))
        print(f"| {config} | {tp} | {length} | {published:.2f} | {predicted:.2f} | {err:+.1%} | {note} |")
    errors.sort()
    print()
    print(f"median |error| {errors[len(errors) // 2]:.1%}, max {errors[-1]:.1%} over {len(errors)} points")


if __name__ == "__main__":
    main()
