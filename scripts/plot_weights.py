#!/usr/bin/env python3
"""Plot psi_W / psi_MP per layer for each matrix kind, from `nsc weights PATH --json`.

    python3 scripts/plot_weights.py WEIGHTS.json -o weights.png [--title TEXT]

Input: the JSON object printed by `nsc weights ... --json` (the CLI's --plot writes it to a
temporary file and calls this script). Its "layers" list holds, per layer, "kinds":
{kind: {psi_w, psi_mp, ratio}} (kinds are the scored blocks' names: q_proj, k_proj, v_proj,
o_proj, gate_proj, up_proj, down_proj, router, experts.<kind>, ...).

Output: a PNG with two panels: the ratio psi_W / psi_MP against the layer index, one line per
kind (1 = the capacity at initialisation), and psi_W per layer (all kinds summed) next to
psi_MP. A checkpoint without layers (bare file, no config) gets one bar per matrix instead.
Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    with open(a.input) as f:
        j = json.load(f)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    title = a.title or "{} ({}): psi_W / psi_MP at init {}".format(
        j.get("checkpoint", ""), j.get("model_type") or "no config", j.get("init", ""))
    layers = j.get("layers", [])
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    if layers:
        kinds = sorted({k for l in layers for k in l["kinds"]})
        xs = [l["layer"] for l in layers]
        for k in kinds:
            pts = [(l["layer"], l["kinds"][k]["ratio"]) for l in layers if k in l["kinds"]]
            ax[0].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=k)
        ax[0].axhline(1.0, color="grey", lw=0.8, ls="--")
        ax[0].set_xlabel("layer")
        ax[0].set_ylabel("psi_W / psi_MP")
        ax[0].legend(fontsize=7, ncol=2)
        ax[1].plot(xs, [l["psi_w"] for l in layers], marker="o", ms=3, label="psi_W (trained)")
        ax[1].plot(xs, [l["psi_mp"] for l in layers], marker="s", ms=3, label="psi_MP (init)")
        ax[1].set_xlabel("layer")
        ax[1].set_ylabel("psi per layer")
        ax[1].legend(fontsize=8)
    else:
        mats = j.get("matrices", [])
        names = [m["name"] for m in mats]
        ax[0].bar(range(len(mats)), [m["ratio"] for m in mats])
        ax[0].axhline(1.0, color="grey", lw=0.8, ls="--")
        ax[0].set_xticks(range(len(mats)))
        ax[0].set_xticklabels(names, rotation=60, ha="right", fontsize=7)
        ax[0].set_ylabel("psi_W / psi_MP")
        ax[1].bar(range(len(mats)), [m["psi_w"] for m in mats], label="psi_W")
        ax[1].plot(range(len(mats)), [m["psi_mp"] for m in mats], "ks", label="psi_MP")
        ax[1].set_xticks(range(len(mats)))
        ax[1].set_xticklabels(names, rotation=60, ha="right", fontsize=7)
        ax[1].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
