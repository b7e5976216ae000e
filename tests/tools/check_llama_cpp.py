#!/usr/bin/python3
"""Opt-in engine check (ctest label `engine`): a checkpoint pruned by nsc runs in llama.cpp and
gives the reference logits.

Usage: NSC_NODE_LLAMA_CPP=/path/to/node_modules /usr/bin/python3 check_llama_cpp.py NSC SOURCE_DIR WORK_DIR

NSC_NODE_LLAMA_CPP names a node_modules holding node-llama-cpp@3.21.1 (`npm i -E
node-llama-cpp@3.21.1` in a directory outside the repository: llama.cpp's prebuilt CPU
libraries). Without it the check is skipped (exit 77): CI never downloads. Steps, for each case
below: nsc prune the tiny llama of tests/data/prune_ckpt to a DeciLM checkpoint; tests/reference/check_pruned_checkpoint.py proves it equals the masked original;
tests/tools/gguf_from_pruned.py converts it to GGUF (arch deci); llama.cpp loads it and returns
the next-token distribution after every prefix of 16 tokens (tests/tools/llama_cpp_logits.mjs);
the logits (log-probabilities centred over the model's ids) must equal the numpy reference
forward pass of the emitted checkpoint to 1e-5 (llama.cpp in float32 with an F32 KV cache).
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
from check_pruned_checkpoint import emitted_layers, forward, layer_shapes, read_safetensors_dir  # noqa: E402


# KV heads pooled 4 -> 2 and 4 -> 1, FFN 96 -> 32 / 16, an attention-free layer (its FFN kept)
CASES = [("kv_ffn_attention_free_layer", ["--params", "45000"]),
         ("kv_pooled", ["--params", "55000", "--kv-bytes", "50000"])]


def main():
    nsc, src, work = sys.argv[1:4]
    tol = 1e-5
    mods = os.environ.get("NSC_NODE_LLAMA_CPP")
    if not mods or not os.path.isdir(os.path.join(mods, "node-llama-cpp")):
        print("skipped: set NSC_NODE_LLAMA_CPP to a node_modules with node-llama-cpp@3.21.1")
        return 77
    orig = os.path.join(src, "tests", "data", "prune_ckpt", "llama")
    os.makedirs(work, exist_ok=True)
    worst = 0.0
    for name, budget in CASES:
        out = os.path.join(work, "llama_cpp_" + name)
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([nsc, "prune", os.path.join(orig, "config.json"), "--space", "generic", "--ffn-multiple", "16",
                        "--emit-format", "decilm", "--weights", orig, "--emit-checkpoint", out] + budget,
                       check=True, capture_output=True)
        subprocess.run([sys.executable, os.path.join(HERE, "..", "reference", "check_pruned_checkpoint.py"), orig, out],
                       check=True)
        gguf = out + ".gguf"
        subprocess.run([sys.executable, os.path.join(HERE, "gguf_from_pruned.py"), out, gguf], check=True)
        cfg = json.load(open(os.path.join(out, "config.json")))
        tokens = [int(t) for t in np.random.default_rng(5).integers(0, cfg["vocab_size"], 16)]
        r = subprocess.run(["node", os.path.join(HERE, "llama_cpp_logits.mjs"), gguf, ",".join(map(str, tokens))],
                           capture_output=True, text=True, env=dict(os.environ, NODE_PATH=mods))
        if r.returncode != 0:
            print(f"FAIL {name}: llama.cpp: " + r.stderr.strip()[-2000:])
            return 1
        probs = json.loads(r.stdout.strip().splitlines()[-1])["probabilities"]
        W = read_safetensors_dir(out)
        logits = forward(cfg, W, emitted_layers(cfg, W, layer_shapes(cfg)), np.array(tokens))
        # log p(v) = logit(v) - logsumexp over llama.cpp's (padded) vocabulary: compare both centred
        # over the model's V ids, which removes the normaliser
        ref = logits - logits.mean(axis=1, keepdims=True)
        got = np.array([[np.log(p.get(str(v), 0.0)) for v in range(cfg["vocab_size"])] for p in probs])
        got = got - got.mean(axis=1, keepdims=True)
        err = float(np.max(np.abs(got - ref)))
        worst = max(worst, err)
        print(f"{name}: llama.cpp (node-llama-cpp 3.21.1, arch deci) loads it; {len(tokens)} positions x "
              f"{cfg['vocab_size']} tokens, max |centred logits(llama.cpp) - centred logits(reference)| = {err:.3g} "
              f"(tol {tol:g}, logits up to {float(np.max(np.abs(ref))):.3g}); argmax agree at "
              f"{int(np.sum(got.argmax(1) == ref.argmax(1)))} / {len(tokens)}")
    err = worst
    return 0 if err <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
