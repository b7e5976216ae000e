#!/usr/bin/python3
"""Plot of `nsc rank --plot`: how NSC and each baseline order the architectures of a table.

    python3 scripts/plot_rank.py DUMP.csv -o OUT.png [--title TEXT]

DUMP.csv is what `nsc rank --dump` writes (id,nsc,baseline:<name>...,params,flops,truth; truth
is higher-is-better). One panel per score (NSC first, then every baseline column): the score's
rank (x) against the truth's rank (y), 1 = best, average ranks for ties, with Kendall's tau-b and
Spearman's rho in the panel title (computed here with scipy when it is installed, else omitted).
A perfect proxy puts every point on the diagonal (best architectures at the origin). Needs matplotlib (python3-matplotlib).
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

try:
    from scipy import stats
except ImportError:  # the plot does not need scipy
    stats = None


def ranks(values):
    """1 = largest; ties share their average rank."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    with open(a.dump, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) < 2:
        sys.exit("plot_rank.py: fewer than 2 rows in " + a.dump)
    truth = [float(r["truth"]) for r in rows]
    panels = [("NSC", "nsc")]
    for c in rows[0].keys():
        if c.startswith("baseline:"):
            name = c[len("baseline:"):]
            label = {"params": "#Params", "flops": "#FLOPs",
                     "params_non_embedding": "#Params (non-emb.)"}.get(name, name)
            panels.append((label, c))
    if len(panels) == 1:
        panels += [("#Params", "params"), ("#FLOPs", "flops")]
    ty = ranks(truth)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.2), squeeze=False)
    n = len(rows)
    for ax, (label, col) in zip(axes[0], panels):
        v = [float(r[col]) for r in rows]
        tx = ranks(v)
        ax.scatter(tx, ty, s=8 if n > 300 else 16, alpha=0.6, color="#1f77b4" if col == "nsc" else "#7f7f7f")
        ax.plot([1, n], [1, n], color="#d62728", lw=0.8)
        t = label
        if stats is not None:
            tau = stats.kendalltau(v, truth, variant="b").statistic
            rho = stats.spearmanr(v, truth).statistic
            t += "\ntau-b %.3f, rho %.3f" % (tau, rho)
        ax.set_title(t, fontsize=10)
        ax.set_xlabel("rank by " + label + " (1 = highest)")
        ax.set_ylabel("rank by truth (1 = best)")
    if a.title:
        fig.suptitle(a.title + " (n = %d)" % n, fontsize=11)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
