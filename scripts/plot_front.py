#!/usr/bin/env python3
"""Plot an NSC-DP Pareto front: NSC against #Params and, when known, against TFLOPs.

    python3 scripts/plot_front.py FRONT.json|FRONT.csv -o front.png [--title TEXT]

Input (written by the nsc tool):
  * JSON: one object as printed by `nsc prune ... --front --json` (or `nsc search ... --front
    --json`): the chosen model's "nsc", "params" (and "tflops") at the top level, the list
    "front" of {"nsc", "params"[, "tflops"]} points, optionally "unpruned" {nsc, params, tflops}
    and "budget" (with "budget_kind": "params" or "macs").
  * CSV: `nsc prune ... --front --format csv`: columns kind,params,tflops,nsc,... with kind
    one of chosen, unpruned, front.

Output: a PNG with one panel per cost (NSC vs params; NSC vs TFLOPs when the points have it),
the front as a step line (the best NSC reachable for every budget), the chosen point and the
unpruned model marked, and the budget drawn. Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import json
import sys


def load(path):
    """Returns (front, chosen, unpruned, meta): lists/dicts with keys nsc, params, tflops."""
    if path.endswith(".csv"):
        front, chosen, unpruned = [], None, None
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                p = {"nsc": float(row["nsc"]), "params": float(row["params"]),
                     "tflops": float(row["tflops"]) if row.get("tflops") not in (None, "") else None}
                kind = row.get("kind", "front")
                if kind == "chosen":
                    chosen = p
                elif kind == "unpruned":
                    unpruned = p
                else:
                    front.append(p)
        return front, chosen, unpruned, {}
    with open(path) as f:
        j = json.load(f)
    def point(d):
        return {"nsc": float(d["nsc"]), "params": float(d["params"]),
                "tflops": float(d["tflops"]) if d.get("tflops") is not None else None}
    front = [point(p) for p in j.get("front", [])]
    chosen = point(j) if "nsc" in j and "params" in j else None
    unpruned = point(j["unpruned"]) if isinstance(j.get("unpruned"), dict) else None
    meta = {k: j.get(k) for k in ("budget", "budget_kind", "band", "model", "seq_len", "search",
                                  "space")}
    return front, chosen, unpruned, meta


def fmt_params(v, scale, unit):
    digits = 6 if unit == "B" else 2 if unit == "M" else 0
    return f"{v / scale:.{digits}f}{unit}"


def scale_of(values):
    top = max(values) if values else 1
    if top >= 1e9:
        return 1e9, "B"
    if top >= 1e6:
        return 1e6, "M"
    if top >= 1e3:
        return 1e3, "k"
    return 1, ""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="front JSON or CSV written by nsc")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    ap.add_argument("--title", default=None, help="figure title")
    args = ap.parse_args(argv)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        sys.exit("plot_front.py: matplotlib is needed (Debian: apt-get install python3-matplotlib)")

    front, chosen, unpruned, meta = load(args.input)
    if not front and chosen is None:
        sys.exit("plot_front.py: no points in " + args.input)
    front.sort(key=lambda p: p["params"])
    has_tflops = all(p["tflops"] is not None for p in front) and (front or chosen)
    panels = [("params", "#Params")] + ([("tflops", "TFLOPs")] if has_tflops else [])

    everything = front + [p for p in (chosen, unpruned) if p]
    pscale, punit = scale_of([p["params"] for p in everything])
    nscale, nunit = scale_of([p["nsc"] for p in everything])

    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10})
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), squeeze=False)
    seq = meta.get("seq_len")
    for ax, (key, label) in zip(axes[0], panels):
        sx = pscale if key == "params" else 1.0
        xs = [p[key] / sx for p in front]
        ys = [p["nsc"] / nscale for p in front]
        if front:
            ax.step(xs, ys, where="post", color="#4c72b0", lw=1.3, alpha=0.9, zorder=2,
                    label=f"Pareto front ({len(front)} points)")
            ax.scatter(xs, ys, s=9, color="#4c72b0", zorder=3)
        if unpruned:
            ax.scatter([unpruned[key] / sx], [unpruned["nsc"] / nscale], marker="D", s=70,
                       color="#555555", edgecolor="black", zorder=5, label="unpruned model")
            ax.annotate(f"unpruned: {fmt_params(unpruned['params'], pscale, punit)}"
                        + (f", {unpruned['tflops']:.3f} TFLOPs" if unpruned.get("tflops") else "")
                        + f"\nNSC {unpruned['nsc']:,.1f}",
                        (unpruned[key] / sx, unpruned["nsc"] / nscale), textcoords="offset points",
                        xytext=(4, -92), ha="right", fontsize=8.5, color="#333333",
                        arrowprops=dict(arrowstyle="-", color="#777777", lw=0.8))
        if chosen:
            # Text above-left of the point, or below-left when the point is near the top.
            ys_all = ys + [chosen["nsc"] / nscale] + ([unpruned["nsc"] / nscale] if unpruned else [])
            lo_y, hi_y = min(ys_all), max(ys_all)
            high = hi_y > lo_y and (chosen["nsc"] / nscale - lo_y) / (hi_y - lo_y) > 0.75
            ax.scatter([chosen[key] / sx], [chosen["nsc"] / nscale], marker="*", s=260,
                       color="#dd8452", edgecolor="black", linewidth=0.8, zorder=6,
                       label="NSC-DP choice")
            ax.annotate(f"{fmt_params(chosen['params'], pscale, punit)} params"
                        + (f", {chosen['tflops']:.3f} TFLOPs" if chosen.get("tflops") else "")
                        + f"\nNSC {chosen['nsc']:,.1f}",
                        (chosen[key] / sx, chosen["nsc"] / nscale), textcoords="offset points",
                        xytext=(-4, -115) if high else (-18, 36), ha="right", fontsize=9,
                        bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="#dd8452", alpha=0.95),
                        arrowprops=dict(arrowstyle="-", color="#dd8452"))
        budget, kind = meta.get("budget"), meta.get("budget_kind") or "params"
        band = meta.get("band")
        if band and key == "params":  # a params band (Transformer-XL): shade the allowed range
            ax.axvspan(band[0] / pscale, band[1] / pscale, color="#55a868", alpha=0.15, zorder=0,
                       label=f"band {band[0] / pscale:.4g}-{band[1] / pscale:.4g}{punit}")
        elif budget is not None:
            bx = None
            if key == "params" and kind == "params":
                bx = float(budget) / pscale
            elif key == "tflops" and kind == "macs":
                bx = float(budget) / 1e12
            if bx is not None:
                ax.axvline(bx, color="#c44e52", ls="--", lw=1.1, zorder=1,
                           label=f"budget {bx:.4g}{punit if key == 'params' else ' TFLOPs'}")
                ax.axvspan(bx, ax.get_xlim()[1], color="#c44e52", alpha=0.06, zorder=0)
                ax.set_xlim(right=ax.get_xlim()[1])
        if key == "params":
            ax.set_xlabel(f"#Params ({punit})" if punit else "#Params")
        else:
            ax.set_xlabel("TFLOPs" + (f" (multiply-accumulates, T = {seq})" if seq else ""))
        ax.set_ylabel(f"NSC ({nunit})" if nunit else "NSC")
        ax.set_title(f"NSC against {label}")
        ax.grid(True, alpha=0.3)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.3g}"))
        ax.legend(loc="lower right", fontsize=8.5, framealpha=0.95)
    title = args.title or meta.get("model") or meta.get("search") or "NSC-DP"
    fig.suptitle(f"NSC-DP Pareto front: {title}", fontsize=12, fontweight="bold")
    fig.tight_layout()
    fig.savefig(args.output, dpi=130)
    print(f"plot_front.py: wrote {args.output}")


if __name__ == "__main__":
    main()
