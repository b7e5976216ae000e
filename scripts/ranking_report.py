#!/usr/bin/python3
"""Ranking report: the paper's ranking table reproduced on the shared ground-truth data.

Runs `nsc rank --json` for every family x estimator (mp, fs) x convention the family offers
(plus the NATS-SSS protocols and datasets, the AutoFormer-Tiny targets and FlexiBERT's "paper"
baselines), and writes

    docs/ranking-report.md    commentary + one markdown table
    docs/ranking-report.csv   the same numbers, full precision, plus timings
    docs/ranking-scores.png   NSC (reference convention, psi_MP) against the ground truth,
                              one panel per family

Usage: /usr/bin/python3 scripts/ranking_report.py [--nsc build/bin/nsc] [--out docs]
Needs numpy and matplotlib. What each convention scores and which #Params / #FLOPs / truth are
used is documented in include/nsc/eval/families.hpp.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONVENTIONS = {
    "flexibert": ["reference", "framework", "original", "as_trained", "nominal"],
    "gpt2": ["reference", "framework"],
    "txl": ["reference", "framework", "per_head"],
    "nats-sss": ["reference", "framework", "xautodl"],
    "autoformer-tiny": ["reference", "framework", "official"],
}
ESTIMATORS = ["mp", "fs"]
STATS = ["tau_b", "rho", "pw10_tau", "partial_tau"]
SCORES = [("nsc", "NSC"), ("params", "#Params"), ("flops", "#FLOPs")]
TIE = 0.005  # |difference in tau| below which the commentary calls two scores tied


def runs():
    """(label, setting, extra args) for every row of the table, in table order."""
    out = []
    for est in ESTIMATORS:
        for conv in CONVENTIONS["flexibert"]:
            out.append(("flexibert", "glue", ["--family", "flexibert", "--convention", conv, "--estimator", est]))
        out.append(("flexibert", "glue, paper baselines",
                    ["--family", "flexibert", "--baselines", "paper", "--estimator", est]))
    for fam in ("gpt2", "txl"):
        for est in ESTIMATORS:
            for conv in CONVENTIONS[fam]:
                out.append((fam, "valid_ppl", ["--family", fam, "--convention", conv, "--estimator", est]))
    for dataset in ("cifar10", "cifar100", "imagenet16-120"):
        protocols = ["factorized-reduce", "figure-1x1"] if dataset == "cifar10" else ["factorized-reduce"]
        for est in ESTIMATORS:
            for conv in CONVENTIONS["nats-sss"]:
                for protocol in protocols:
                    out.append(("nats-sss", dataset, ["--family", "nats-sss", "--dataset", dataset,
                                                      "--protocol", protocol, "--convention", conv,
                                                      "--estimator", est]))
    for target in ("c100_kd_acc", "c100_base_acc", "imagenet_super_acc"):
        for est in ESTIMATORS:
            for conv in CONVENTIONS["autoformer-tiny"]:
                out.append(("autoformer-tiny", target, ["--family", "autoformer-tiny", "--target", target,
                                                        "--convention", conv, "--estimator", est]))
    return out


def run_nsc(nsc, args):
    cmd = [nsc, "rank", "--json"] + args
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("ranking_report: %s failed (%d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return json.loads(p.stdout)


def fmt(v):
    return "n/a" if v is None else "%.3f" % v


def convention_label(r):
    label = r["convention"]
    if r["family"] == "nats-sss":
        label += ", " + r["protocol"]
    return label


def table(rows):
    head = ["family", "data", "est.", "convention", "n"]
    for _, name in SCORES:
        head += [name + " &tau;<sub>b</sub>", name + " &rho;", name + " 10%-PW &tau;", name + " partial &tau;"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for setting, r in rows:
        cells = [r["family"], setting, "&psi;<sub>%s</sub>" % r["estimator"].upper(), convention_label(r), str(r["n"])]
        for key, _ in SCORES:
            for stat in STATS:
                v = r[key][stat]
                # Bold: best as printed. Not for the partial tau: each baseline drops its own control,
                # so the three partial taus answer different questions.
                others = [round(r[k][stat], 3) for k, _ in SCORES if k != key and r[k][stat] is not None]
                best = stat != "partial_tau" and v is not None and all(round(v, 3) > o for o in others)
                cells.append(("**%s**" if best else "%s") % fmt(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def find(rows, family, setting, estimator="mp", convention="reference", protocol=None):
    for s, r in rows:
        if (r["family"] == family and s == setting and r["estimator"] == estimator
                and r["convention"] == convention and (protocol is None or r["protocol"] == protocol)):
            return r
    raise KeyError((family, setting, estimator, convention, protocol))


def versus(a, b, name_b):
    """'beats #Params (0.695 vs 0.573)' / 'ties with' / 'loses to'."""
    d = a - b
    word = "ties with" if abs(d) < TIE else ("beats" if d > 0 else "loses to")
    return "%s %s (%.3f vs %.3f)" % (word, name_b, a, b)


def commentary(rows):
    fx = find(rows, "flexibert", "glue")
    fx_fw = find(rows, "flexibert", "glue", convention="framework")
    fx_orig = find(rows, "flexibert", "glue", convention="original")
    fx_tr = find(rows, "flexibert", "glue", convention="as_trained")
    fxp = find(rows, "flexibert", "glue, paper baselines")
    g = find(rows, "gpt2", "valid_ppl")
    gf = find(rows, "gpt2", "valid_ppl", convention="framework")
    t = find(rows, "txl", "valid_ppl")
    nats = {(ds, conv): find(rows, "nats-sss", ds, convention=conv, protocol="factorized-reduce")
            for ds in ("cifar10", "cifar100", "imagenet16-120") for conv in CONVENTIONS["nats-sss"]}
    n_fig = find(rows, "nats-sss", "cifar10", protocol="figure-1x1")
    a_kd = find(rows, "autoformer-tiny", "c100_kd_acc")
    a_kd_fw = find(rows, "autoformer-tiny", "c100_kd_acc", convention="framework")
    a_base = find(rows, "autoformer-tiny", "c100_base_acc")
    a_im = find(rows, "autoformer-tiny", "imagenet_super_acc")
    a_im_off = find(rows, "autoformer-tiny", "imagenet_super_acc", convention="official")
    dmax = max(abs(r["nsc"]["tau_b"] - find(rows, r["family"], s, "mp", r["convention"], r["protocol"])["nsc"]["tau_b"])
               for s, r in rows if r["estimator"] == "fs")

    def tau(r, k="nsc", stat="tau_b"):
        return r[k][stat]

    def nats_line(ds):
        ref, x, fw = nats[(ds, "reference")], nats[(ds, "xautodl")], nats[(ds, "framework")]
        return ("%s: reference %.3f, xautodl %.3f, framework %.3f; #Params %.3f"
                % (ds, tau(ref), tau(x), tau(fw), tau(ref, "params")))

    L = ["## Commentary", ""]
    L.append("Defaults unless stated: the paper's reference convention, &psi;<sub>MP</sub>, the data's own "
             "#Params column (or the trained networks' count) and the trained networks' #FLOPs. Bold in the "
             "table marks the best of NSC, #Params and #FLOPs for &tau;<sub>b</sub>, &rho; and 10%%-PW "
             "&tau; in a row (as printed); partial &tau;s are not compared, since NSC's controls for both "
             "baselines while each baseline's controls for the other one only. Nothing is tuned to "
             "a dataset: every convention is fixed by the paper's reference code, by the model's own "
             "framework initialisation, or by a documented reading of the data (include/nsc/eval/families.hpp). "
             "\"Ties\" below means |&Delta;&tau;<sub>b</sub>| < %.3f." % TIE)
    L.append("")
    L.append("**Where NSC beats #Params.**")
    L.append("")
    L.append("- *FlexiBERT* (n = %d): NSC %s in &tau;<sub>b</sub> and %s within 10%% #Params windows; its "
             "partial &tau; after #Params and #FLOPs is %.3f. The paper's &tau; 0.695 / &rho; 0.884 are "
             "reproduced (%.4f / %.4f). With the paper's own baselines (`--baselines paper`: the reference's "
             "ElectraModel count with embeddings, reading A, and its analytic FLOPs) the whole row is "
             "reproduced: #Params %.3f (10%%-PW %.3f; paper 0.485 (0.082)), #FLOPs %.3f (%.3f; paper 0.552 "
             "(0.329)), NSC 10%%-PW %.3f (paper 0.505), partial %.3f (paper 0.477). The data's as-trained "
             "count is the stronger baseline (%.3f). Scoring the networks as trained (`as_trained`, "
             "SOURCE.md reading B) gives %.3f, and the paper's \"original\" protocol (H = 256, D_FF = 1024 "
             "for all) %.3f (paper: 0.544)."
             % (fx["n"], versus(tau(fx), tau(fx, "params"), "#Params"),
                versus(tau(fx, "nsc", "pw10_tau"), tau(fx, "params", "pw10_tau"), "#Params"),
                tau(fx, "nsc", "partial_tau"), tau(fx), tau(fx, "nsc", "rho"),
                tau(fxp, "params"), tau(fxp, "params", "pw10_tau"), tau(fxp, "flops"),
                tau(fxp, "flops", "pw10_tau"), tau(fxp, "nsc", "pw10_tau"), tau(fxp, "nsc", "partial_tau"),
                tau(fx, "params"), tau(fx_tr), tau(fx_orig)))
    L.append("- *AutoFormer-Tiny, c100_kd_acc* (the default target, n = %d): NSC %s; 10%%-PW %.3f vs %.3f; "
             "partial %.3f (#Params and #FLOPs are rank-equivalent here, so their partial &tau; is n/a)."
             % (a_kd["n"], versus(tau(a_kd), tau(a_kd, "params"), "#Params"), tau(a_kd, "nsc", "pw10_tau"),
                tau(a_kd, "params", "pw10_tau"), tau(a_kd, "nsc", "partial_tau")))
    L.append("- *NATS-SSS* (n = %d) on the networks NATS-Bench trained (`xautodl` wiring): NSC %s on "
             "CIFAR-10 (10%%-PW %.3f vs %.3f) and %s on ImageNet16-120; PyTorch's default init "
             "(`framework`) is close behind. Per dataset: %s; %s; %s."
             % (nats[("cifar10", "xautodl")]["n"],
                versus(tau(nats[("cifar10", "xautodl")]), tau(nats[("cifar10", "xautodl")], "params"), "#Params"),
                tau(nats[("cifar10", "xautodl")], "nsc", "pw10_tau"),
                tau(nats[("cifar10", "xautodl")], "params", "pw10_tau"),
                versus(tau(nats[("imagenet16-120", "xautodl")]), tau(nats[("imagenet16-120", "xautodl")], "params"),
                       "#Params"),
                nats_line("cifar10"), nats_line("cifar100"), nats_line("imagenet16-120")))
    L.append("")
    L.append("**Where it only ties.**")
    L.append("")
    L.append("- *GPT-2* (n = %d): the paper's &tau; 0.849 / &rho; 0.968 are reproduced (%.4f / %.4f), but NSC "
             "%s: decoder size explains almost all of the ranking. NSC keeps more signal within 10%% windows "
             "(%.3f vs %.3f) and after controls (partial %.3f). The framework convention (Hugging Face GPT-2 "
             "init, both c_proj at 0.02 / sqrt(2 n_layer)) %s."
             % (g["n"], tau(g), tau(g, "nsc", "rho"), versus(tau(g), tau(g, "params"), "#Params"),
                tau(g, "nsc", "pw10_tau"), tau(g, "params", "pw10_tau"), tau(g, "nsc", "partial_tau"),
                versus(tau(gf), tau(g), "the reference")))
    L.append("- *Transformer-XL* (n = %d): NSC %s and %s; its partial &tau; is %.3f, so NSC carries no "
             "ranking signal beyond size on this set."
             % (t["n"], versus(tau(t), tau(t, "params"), "#Params"), versus(tau(t), tau(t, "flops"), "#FLOPs"),
                tau(t, "nsc", "partial_tau")))
    L.append("- *Fixed-variance framework inits on small models*: with normal(0.02) entries (FlexiBERT "
             "`framework`, AutoFormer-Tiny `framework`) the Gram spectra are tiny, &psi; is in its linear "
             "regime (&psi; &asymp; v m n, the weight count times a constant) and NSC collapses onto #Params: "
             "FlexiBERT %s, AutoFormer-Tiny %s. The spectral signal of the reference convention comes from "
             "its per-block Xavier variance."
             % (versus(tau(fx_fw), tau(fx_fw, "params"), "#Params"),
                versus(tau(a_kd_fw), tau(a_kd_fw, "params"), "#Params")))
    L.append("")
    L.append("**Where it does not.**")
    L.append("")
    L.append("- *NATS-SSS, reference convention*: the paper's script shifts the channels by one layer "
             "(cell c0 -> c1, ..., cell c4 -> c4), so it scores networks that were not trained. NSC %s on "
             "CIFAR-10 (%.3f with the figure's 1x1 skip) and %s on ImageNet16-120. On CIFAR-100 the shifted "
             "wiring happens to rank better than the trained one (%.3f vs %.3f); it gives the last width c4 "
             "more weight, and why that pays off on CIFAR-100 alone is not established. The trained "
             "networks' wiring is the defensible convention; we do not pick a wiring per dataset."
             % (versus(tau(nats[("cifar10", "reference")]), tau(nats[("cifar10", "reference")], "params"), "#Params"),
                tau(n_fig),
                versus(tau(nats[("imagenet16-120", "reference")]),
                       tau(nats[("imagenet16-120", "reference")], "params"), "#Params"),
                tau(nats[("cifar100", "reference")]), tau(nats[("cifar100", "xautodl")])))
    L.append("- *AutoFormer-Tiny, imagenet_super_acc*: every score is anti-correlated with this column "
             "(NSC %.3f, official convention %.3f, #Params %.3f). SOURCE.md explains why it is suspect "
             "(supernet checkpoint of undocumented provenance; E = 240 subnets score lower). "
             "*c100_base_acc* (n = %d, no distillation) is anti-correlated too (NSC %.3f, #Params %.3f). NSC "
             "tracks size and cannot rescue a target that rewards smaller models; it is only less wrong "
             "than #Params there."
             % (tau(a_im), tau(a_im_off), tau(a_im, "params"), a_base["n"], tau(a_base), tau(a_base, "params")))
    L.append("")
    L.append("&psi;<sub>FS</sub> instead of &psi;<sub>MP</sub> changes NSC's &tau;<sub>b</sub> by at most "
             "%.3f in any row: the finite-size correction is O(1) per matrix and hardly reorders whole "
             "networks." % dmax)
    L.append("")
    L.append("**Discrepancies with the paper.** The paper's numbers for AutoFormer-Tiny (1,001 ImageNet "
             "subnets), AutoFormer-Small, MobileNetV3 and its CIFAR-100 NATS figure come from data that is "
             "not public; the rows above use the closest public sets (SOURCE.md of each folder), so they are "
             "not the paper's experiments. GPT-2's joint-control partial &tau; (paper 0.329) is not "
             "reproduced (%.3f here). The reference's GPT-2 baselines are the total parameter count "
             "(adaptive embeddings included) and thop FLOPs; controlling for that total count instead gives "
             "0.70 (measured once), so the #Params definition alone does not explain the gap, which stays "
             "open. FlexiBERT's NSC 10%%-PW &tau; "
             "(%.3f vs 0.505) and #FLOPs 10%%-PW &tau; (%.3f vs 0.329) with the paper's baselines differ in "
             "the third digit; the reference does not implement these statistics (reference-conventions.md), "
             "so its window predicate may differ."
             % (tau(g, "nsc", "partial_tau"), tau(fxp, "nsc", "pw10_tau"), tau(fxp, "flops", "pw10_tau")))
    L.append("")
    L.append("**Exact ties.** Architectures with the same multiset of scored blocks (layer permutations) are "
             "scored bitwise-equal (blocks summed in ascending order of &psi;), so they tie instead of being "
             "ordered by rounding noise. On FlexiBERT this adds 61 exact ties to the 324 that layer-order sums "
             "keep and moves &tau;<sub>b</sub> from 0.69502 to 0.69509 (measured once against the presets' "
             "layer-order sums; tests/test_families.cpp checks that ties are gained).")
    return "\n".join(L)


def plot(nsc, out_png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator, ScalarFormatter
    import numpy as np

    # (family, extra args, y label, perplexity?, log x?)
    panels = [
        ("flexibert", [], "GLUE score (dev average)", False, False),
        ("gpt2", [], "WikiText-103 validation perplexity", True, True),
        ("txl", [], "WikiText-103 validation perplexity", True, True),
        ("nats-sss", ["--dataset", "cifar10"], "CIFAR-10 top-1 accuracy (%)", False, False),
        ("autoformer-tiny", [], "CIFAR-100 top-1 accuracy, KD (%)", False, False),
    ]
    plt.rcParams.update({"font.size": 11})
    fig, grid = plt.subplots(2, 3, figsize=(15, 9.5))
    axes = grid.ravel()
    with tempfile.TemporaryDirectory() as tmp:
        for ax, (fam, extra, ylabel, ppl, logx) in zip(axes, panels):
            dump = os.path.join(tmp, fam + ".csv")
            r = run_nsc(nsc, ["--family", fam, "--dump", dump] + extra)
            data = np.genfromtxt(dump, delimiter=",", names=True, dtype=None, encoding="utf-8")
            x = data["nsc"]
            y = -data["truth"] if ppl else data["truth"]
            big = len(x) > 5000
            ax.scatter(x, y, s=3 if big else 16, alpha=0.12 if big else 0.7,
                       color="tab:blue", edgecolors="none", rasterized=big)
            if logx:
                ax.set_xscale("log")
            if ppl:
                ax.set_yscale("log")
                ticks = [t for t in (20, 25, 30, 40, 50, 60, 80) if y.min() * 0.95 <= t <= y.max() * 1.05]
                ax.yaxis.set_major_locator(FixedLocator(ticks))
                ax.yaxis.set_major_formatter(ScalarFormatter())
                ax.yaxis.set_minor_locator(NullLocator())
                ax.yaxis.set_minor_formatter(NullFormatter())
                ax.invert_yaxis()  # up is better
            ax.set_xlabel("NSC, reference convention, $\\psi_{MP}$" + (" (log scale)" if logx else ""))
            ax.set_ylabel(ylabel + (" (log, inverted)" if ppl else ""))
            ax.set_title("%s, n = %d\nNSC $\\tau_b$ = %.3f, $\\rho$ = %.3f   (#Params $\\tau_b$ = %.3f)"
                         % (fam, r["n"], r["nsc"]["tau_b"], r["nsc"]["rho"], r["params"]["tau_b"]))
            ax.grid(True, alpha=0.3)
    axes[-1].axis("off")
    axes[-1].text(0.02, 0.5,
                  "One point per architecture.\n\n"
                  "Higher is better on every y axis\n(perplexity axes are inverted).\n\n"
                  "Truth: FlexiBERT GLUE; LTS GPT-2 and\nTransformer-XL WikiText-103 perplexity;\n"
                  "NATS-SSS CIFAR-10 accuracy (all 32,768);\nAutoFormer-Tiny (Auto-Prox) CIFAR-100\n"
                  "accuracy with distillation.\n\nSee docs/ranking-report.md.",
                  va="center", ha="left", fontsize=12)
    fig.suptitle("NSC against measured quality, one panel per family", fontsize=14)
    fig.tight_layout()
    fig.savefig(out_png, dpi=100)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nsc", default=os.path.join(ROOT, "build", "bin", "nsc"), help="the nsc binary")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"), help="output directory")
    a = ap.parse_args()
    if not os.path.exists(a.nsc):
        sys.exit("ranking_report: no nsc binary at %s (build target nsc_cli, or pass --nsc)" % a.nsc)
    os.makedirs(a.out, exist_ok=True)

    rows = []
    for fam, setting, args in runs():
        rows.append((setting, run_nsc(a.nsc, args)))
        r = rows[-1][1]
        print("%-16s %-22s %-3s %-30s n=%-6d NSC tau %.4f  #Params %.4f  (%.0f ms)"
              % (fam, setting, r["estimator"], convention_label(r), r["n"], r["nsc"]["tau_b"],
                 r["params"]["tau_b"], r["time_ms"]), flush=True)

    with open(os.path.join(a.out, "ranking-report.csv"), "w", newline="") as f:
        w = csv.writer(f)
        head = ["family", "data", "estimator", "convention", "protocol", "baselines", "n", "skipped"]
        head += ["%s_%s" % (k, s) for k, _ in SCORES for s in STATS] + ["time_ms"]
        w.writerow(head)
        for setting, r in rows:
            w.writerow([r["family"], setting, r["estimator"], r["convention"], r["protocol"] or "",
                        r["baselines"], r["n"], r["skipped"]]
                       + ["" if r[k][s] is None else repr(r[k][s]) for k, _ in SCORES for s in STATS]
                       + ["%.1f" % r["time_ms"]])

    nats = [r["time_ms"] for _, r in rows if r["family"] == "nats-sss"]
    md = ["# Ranking report: NSC against #Params and #FLOPs on the shared ground truth", "",
          "Generated by `scripts/ranking_report.py` from `nsc rank --json` (examples/nsc/cmd_rank.cpp, "
          "include/nsc/eval/families.hpp). Statistics against the measured quality (higher is better): "
          "Kendall &tau;<sub>b</sub>, Spearman &rho;, the 10%-PW &tau; (pairs whose #Params differ by "
          "less than 10%) and the Conover-Iman partial &tau; (NSC controlled for #Params and #FLOPs, "
          "#Params for #FLOPs only, #FLOPs for #Params only; n/a when undefined). Full precision in "
          "`ranking-report.csv`; NSC against the truth in `ranking-scores.png`.", "",
          commentary(rows), "",
          "## Table", "",
          "`data`: the target column, NATS-SSS dataset, or FlexiBERT's baselines. NATS-SSS rows read, "
          "score and rank all 32,768 architectures in %.0f-%.0f ms each (2 cores, Release)."
          % (min(nats), max(nats)), "",
          table(rows), ""]
    with open(os.path.join(a.out, "ranking-report.md"), "w") as f:
        f.write("\n".join(md))
    plot(a.nsc, os.path.join(a.out, "ranking-scores.png"))
    print("wrote %s/ranking-report.md, ranking-report.csv, ranking-scores.png" % a.out)


if __name__ == "__main__":
    main()
