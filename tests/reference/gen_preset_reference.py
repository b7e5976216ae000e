#!/usr/bin/python3
"""Reference values for the Transformer presets (tests/test_presets_transformer.cpp).

Run from anywhere with the Debian Python (numpy, scipy, mpmath):

    /usr/bin/python3 tests/reference/gen_preset_reference.py

Writes tests/data/preset_reference.csv with columns  case,quantity,value  (value printed with
20 significant digits; integers exactly). The C++ test rebuilds every case from its name.

Independence from the code under test:
  * psi_MP is evaluated from the textbook closed form of math.md section 2
    (F = (sqrt(x(1+sqrt b)^2+1) - sqrt(x(1-sqrt b)^2+1))^2,
     psi = q [b ln(1+x-F/4) + ln(1+x b-F/4) - F/(4x)])
    in 50-digit mpmath, NOT the cancellation-free form the C++ uses. A subset is cross-checked
    against scipy.integrate.quad of the Marchenko-Pastur density (the reference
    implementation's method) to 1e-9 relative.
  * The conventions are re-implemented here from reference-conventions.md and the SOURCE.md
    files (matrices per layer, variances, parameter and FLOP formulas), without the C++.
  * Architectures of tabular rows are read from shared/data with the csv module.
"""

import csv
import math
import os

import mpmath
from scipy import integrate

mpmath.mp.dps = 50

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
OUT = os.path.join(ROOT, "tests", "data", "preset_reference.csv")


# ---- psi_MP ---------------------------------------------------------------------------------

_cache = {}


def psi_mp(m, n, v):
    """psi_MP of an m x n matrix with i.i.d. entries of variance v (mpmath, 50 digits)."""
    key = (int(m), int(n), str(v))
    if key in _cache:
        return _cache[key]
    m = mpmath.mpf(int(m))
    n = mpmath.mpf(int(n))
    p, q = min(m, n), max(m, n)
    b = p / q
    x = v * q
    sb = mpmath.sqrt(b)
    F = (mpmath.sqrt(x * (1 + sb) ** 2 + 1) - mpmath.sqrt(x * (1 - sb) ** 2 + 1)) ** 2
    r = q * (b * mpmath.log(1 + x - F / 4) + mpmath.log(1 + x * b - F / 4) - F / (4 * x))
    _cache[key] = r
    return r


def psi_quad(m, n, v):
    """The same by quadrature of the MP density in float64 (the reference code's method)."""
    p, q = min(m, n), max(m, n)
    b = p / q
    x = v * q
    lo = x * (1 - math.sqrt(b)) ** 2
    hi = x * (1 + math.sqrt(b)) ** 2

    def dens(t):
        return math.sqrt(max((hi - t) * (t - lo), 0.0)) / (2 * math.pi * x * b * t)

    val, _ = integrate.quad(lambda t: math.log1p(t) * dens(t), lo, hi, limit=200,
                            epsabs=0, epsrel=1e-13)
    return p * val




def p02(m, n):
    # entries N(0, 0.02^2): variance is the double nearest 0.02, squared (as the C++ does)
    return psi_mp(m, n, mpmath.mpf(0.02) ** 2)


def px(m, n):
    # Xavier-normal of the block itself: 2 / (m + n)
    return psi_mp(m, n, mpmath.mpf(2) / (int(m) + int(n)))


# ---- Transformer-XL (search) ----------------------------------------------------------------

def txl_search(d, d_inner):
    nsc = sum(p02(3 * d, d) + p02(d, d) + 2 * p02(f, d) for f in d_inner)
    params = len(d_inner) * (4 * d * d + 9 * d) + sum(f * (2 * d + 1) for f in d_inner)
    return nsc, params


# ---- LTS rows ---------------------------------------------------------------------------------

def read_csv(rel):
    with open(os.path.join(SHARED, rel), newline="") as f:
        return list(csv.DictReader(f))


def lts_arch(row):
    d = int(row["d_model"])
    heads = [int(t) for t in row["n_head_list"].split()]
    inner = [int(t) for t in row["d_inner_list"].split()]
    return d, heads, inner


def txl_lts(d, heads, inner, per_head):
    nsc = mpmath.mpf(0)
    params = 0
    for h, f in zip(heads, inner):
        e = d // h
        he = h * e
        if per_head:
            nsc += 3 * h * p02(e, d)
        else:
            nsc += p02(3 * he, d)
        nsc += p02(d, he) + p02(f, d) + p02(d, f)
        params += 5 * d * he + 2 * d + 2 * d * f + f + d + 2 * d + 2 * he
    return nsc, params


def gpt2(d, heads, inner, xavier=False):
    nsc = mpmath.mpf(0)
    ps = px if xavier else p02
    for h, f in zip(heads, inner):
        nsc += 3 * h * ps(d // h, d) + ps(d, d) + ps(f, d) + ps(d, f)
    L = len(inner)
    params = L * (4 * d * d + 4 * d) + sum(2 * d * f + f + d for f in inner) + L * 4 * d + 2 * d
    return nsc, params


# ---- FlexiBERT --------------------------------------------------------------------------------

def flexi_arch(row):
    H = int(row["hidden_size"])
    layers = []
    for i in range(int(row["num_layers"])):
        g = lambda k: row["l%d_%s" % (i, k)]
        layers.append(dict(op=g("op_type"), param=g("op_param"), heads=int(g("heads")),
                           ffn=int(g("ffn_dim")) if g("ffn_dim") else None, n=int(g("n_ffn"))))
    return H, layers


def dff(layers, i):
    if layers[i]["ffn"] is not None:
        return layers[i]["ffn"]
    if layers[0]["ffn"] is not None:
        return layers[0]["ffn"]
    return 1024


def flexi_reference(H, layers, original=False):
    total = mpmath.mpf(0)
    for i, l in enumerate(layers):
        h = 256 if original else H
        D = 1024 if original else dff(layers, i)
        if l["op"] == "SA":
            total += px(3 * h, h) + px(h, h)
        elif l["op"] == "LT":
            total += 2 * px(h, h)
        else:
            total += px(h, h)
        w = D // l["n"]
        total += l["n"] * (px(w, h) + px(h, w))
    return total


def path_as_trained(H, layers, i):
    return [H, 4 * H] + [dff(layers, i)] * (layers[i]["n"] - 1) + [H]


def flexi_as_trained(H, layers, T=128):
    nsc = mpmath.mpf(0)
    params = 0
    macs = 0
    for i in range(len(layers)):
        nsc += px(3 * H, H) + px(H, H)
        params += 4 * H * H + 4 * H + 4 * H
        macs += 4 * H * H + 2 * T * H
        path = path_as_trained(H, layers, i)
        for a, b in zip(path, path[1:]):
            nsc += px(b, a)
            params += a * b + b
            macs += a * b
    return nsc, params, 2 * macs


def flexi_nominal(H, layers, T=128):
    """Reading A, as documented in nsc/presets/flexibert.hpp: (params, FLOPs per token)."""
    params = 0
    macs = 0
    for i, l in enumerate(layers):
        params += 4 * H  # two LayerNorms
        if l["op"] == "SA":
            params += 4 * (H * H + H)
            macs += 4 * H * H + 2 * T * H
            if l["param"] == "WMA":
                params += H * H
                macs += H * H
        elif l["op"] == "LT":
            params += H * H + H
            macs += H * H + T * H
        else:
            k = int(l["param"])
            n2 = max(1, l["heads"] // 2)
            a = n2 * (H // l["heads"])
            lin = [(a, H), (a, H), (a, H), (a, H), (n2 * k, a), (a, H), (H, 2 * a)]
            for o, inp in lin:
                params += o * inp + o
                macs += o * inp
            params += H * k  # depthwise, no bias
            macs += H * k + 2 * T * a + a * k
        f = dff(layers, i)
        path = [H] + [f] * l["n"] + [H]
        for a_, b_ in zip(path, path[1:]):
            params += a_ * b_ + b_
            macs += a_ * b_
    return params, 2 * macs


# ---- AutoFormer -------------------------------------------------------------------------------

SUBNETS = {
    "T": (192, [3.5, 3.5, 3.0, 3.5, 3.0, 3.0, 4.0, 4.0, 3.5, 4.0, 3.5, 4.0, 3.5],
          [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 3, 3]),
    "S": (384, [3.0, 3.5, 3.0, 3.5, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.5, 4.0],
          [6, 6, 5, 7, 5, 5, 5, 6, 6, 7, 7, 6, 7]),
    "B": (576, [3.5, 3.5, 4.0, 3.5, 4.0, 3.5, 3.5, 3.0, 4.0, 4.0, 3.0, 4.0, 3.0, 3.5],
          [9, 9, 9, 9, 9, 10, 9, 9, 10, 9, 10, 9, 9, 10]),
}


def af_ranking(e, ratios, heads):
    t = mpmath.mpf(0)
    for r, h in zip(ratios, heads):
        f = int(e * r)
        t += 3 * h * px(e // h, e) + px(e, e) + px(f, e) + px(e, f)
    return t


def af_search(e, ratios, heads):
    t = px(e, 768)
    params = 969 * e
    for r, h in zip(ratios, heads):
        q = 64 * h
        f = int(e * r)
        t += px(3 * q, e) + px(e, q) + px(e, f) + px(f, e)
        params += 3 * q * e + 3 * q + q * e + e + 2 * e + 2 * e * f + f + e + 2 * e
    return t, params


def af_official(e, ratios, heads, classes=1000):
    params = 768 * e + e + e + 197 * e
    macs = 768 * e * 196
    for r, h in zip(ratios, heads):
        q = 64 * h
        f = int(e * r)
        params += 2 * e + 3 * q * e + 3 * q + q * e + e + 4 * 30 * 64 + 2 * e + e * f + f + f * e + e
        macs += 197 * (3 * q * e + q * e + 2 * e * f) + 2 * 197 * 197 * q
    params += 2 * e + e * classes + classes
    macs += e * classes
    return params, 2 * macs


# ---- LoNAS ------------------------------------------------------------------------------------

H, V, L = 4096, 32000, 32


def lonas_layer(r, k):
    qkv = 32 * px(128, H) + px(r, H) + px(H, r)
    o = 32 * px(128, H) + px(32, H) + px(H, 32)
    gate = px(k, H) + px(32, H) + px(k, 32)
    down = px(H, k) + px(32, k) + px(H, 32)
    return 3 * qkv + o + 2 * gate + down


def lonas(opts, T=256):
    nsc = sum(lonas_layer(r, k) for r, k in opts)
    params = 2 * V * H + len(opts) * (4 * H * H + 2 * H) + 3 * H * sum(k for _, k in opts)
    macs = sum(4 * H * H * T + 2 * T * T * H + 3 * H * k * T for _, k in opts) + H * V * T
    return nsc, params, mpmath.mpf(macs) / mpmath.mpf(10) ** 12


# ---- driver -----------------------------------------------------------------------------------

def main():
    rows = []

    def put(case, quantity, value):
        if isinstance(value, int):
            text = str(value)
        else:
            text = mpmath.nstr(mpmath.mpf(value), 20, min_fixed=-5, max_fixed=25)
        rows.append((case, quantity, text))

    # quadrature cross-check of the closed form (the reference implementation's method)
    for m, n, v in [(1536, 512, 0.0004), (1152, 512, 0.0004), (128, 4096, 2 / 4224),
                    (8256, 32, 2 / 8288), (768, 256, 2 / 1024), (341, 256, 2 / 597),
                    (2000, 2000, 2 / 4000), (4000, 1000, 2 / 5000)]:
        a = float(psi_mp(m, n, mpmath.mpf(v)))
        b = psi_quad(m, n, v)
        assert abs(a - b) <= 1e-9 * abs(a), (m, n, v, a, b)
    assert abs(float(px(2000, 2000)) - 1160.915) < 1e-3
    assert abs(float(px(4000, 1000)) - 908.660) < 1e-3

    # Transformer-XL search
    for case, d, L_, f in [("txl_search:answer", 512, 18, 1152),
                           ("txl_search:baseline", 410, 16, 2100),
                           ("txl_search:d256_L12_f4096", 256, 12, 4096)]:
        nsc, params = txl_search(d, [f] * L_)
        put(case, "nsc", nsc)
        put(case, "params", params)
    nsc, params = txl_search(384, [512, 640, 2304, 4096, 1152, 896, 2048, 3840, 768, 1920, 1024, 3072])
    put("txl_search:mixed", "nsc", nsc)
    put("txl_search:mixed", "params", params)
    nsc1, _ = txl_search(512, [1152])
    assert abs(float(txl_search(512, [1152] * 18)[0]) - 12391.756) < 5e-4
    assert abs(float(txl_search(410, [2100] * 16)[0]) - 11184.19) < 5e-3
    put("txl_search_layer:d512_f1152", "nsc", nsc1)

    # Transformer-XL LTS rows
    txl = read_csv("lts-archai/random_TransXL_wt103.csv")
    for i in [0, 1, 57, 199]:
        d, heads, inner = lts_arch(txl[i])
        m, params = txl_lts(d, heads, inner, False)
        p, _ = txl_lts(d, heads, inner, True)
        assert params == int(float(txl[i]["params_nonembedding"]))
        put("txl_lts:row=%d" % i, "nsc_merged", m)
        put("txl_lts:row=%d" % i, "nsc_per_head", p)
        put("txl_lts:row=%d" % i, "params", params)

    # GPT-2 rows
    g2 = read_csv("lts-archai/random_GPT2_wt103.csv")
    for i in [0, 1, 50, 123, 199]:
        d, heads, inner = lts_arch(g2[i])
        n02, params = gpt2(d, heads, inner)
        nx, _ = gpt2(d, heads, inner, xavier=True)
        assert params == int(float(g2[i]["params_nonembedding"]))
        put("gpt2:row=%d" % i, "nsc", n02)
        put("gpt2:row=%d" % i, "nsc_xavier", nx)
        put("gpt2:row=%d" % i, "params", params)

    # FlexiBERT rows
    fb = read_csv("flexibert-nas-bench-bert/flexibert_500_glue.csv")
    for i in [0, 1, 2, 3, 4, 5, 7, 100, 499]:
        Hh, layers = flexi_arch(fb[i])
        c = "flexibert:row=%d" % i
        put(c, "nsc_reference", flexi_reference(Hh, layers))
        put(c, "nsc_original", flexi_reference(Hh, layers, original=True))
        nsc, params, flops = flexi_as_trained(Hh, layers)
        assert params == int(fb[i]["params_encoder_as_trained"])
        put(c, "nsc_as_trained", nsc)
        put(c, "params_as_trained", params)
        put(c, "flops_as_trained", flops)
        pn, fn = flexi_nominal(Hh, layers)
        put(c, "params_nominal", pn)
        put(c, "flops_nominal", fn)

    # AutoFormer subnets and Auto-Prox rows
    expect = {"T": 5867944, "S": 22891432, "B": 53691688}
    for name, (e, ratios, heads) in SUBNETS.items():
        c = "autoformer:%s" % name
        params, flops = af_official(e, ratios, heads)
        assert params == expect[name], (name, params)
        sn, sp = af_search(e, ratios, heads)
        put(c, "params_official", params)
        put(c, "flops_official", flops)
        put(c, "nsc_search", sn)
        put(c, "params_search", sp)
        put(c, "nsc_ranking", af_ranking(e, ratios, heads))
    af = read_csv("autoformer-tiny-autoprox/autoformer_tiny_200.csv")
    for i in [0, 1, 2, 150, 199]:
        row = af[i]
        e = int(row["embed_dim"])
        dpt = int(row["depth"])
        ratios = [float(row["mlp_ratio_%d" % j]) for j in range(dpt)]
        heads = [int(row["num_heads_%d" % j]) for j in range(dpt)]
        c = "autoformer_csv:row=%d" % i
        put(c, "nsc_ranking", af_ranking(e, ratios, heads))
        sn, sp = af_search(e, ratios, heads)
        put(c, "nsc_search", sn)
        put(c, "params_search", sp)

    # LoNAS
    cases = {
        "answer": [(32, 9632)] * 2 + [(32, 8256)] * 30,
        "unpruned": [(32, 11008)] * 32,
        "smallest": [(28, 5504)] * 32,
        "mixed": [((32, 28)[i % 2], (11008, 9632, 8256, 6880, 5504)[i % 5]) for i in range(32)],
    }
    for name, opts in cases.items():
        nsc, params, tflops = lonas(opts)
        c = "lonas:%s" % name
        put(c, "nsc", nsc)
        put(c, "params", params)
        put(c, "tflops", tflops)
    assert lonas(cases["answer"])[1] == 5690097664
    assert abs(float(lonas(cases["answer"])[0]) - 881196.752) < 5e-4
    assert lonas(cases["unpruned"])[1] == 6738411520
    for r in (32, 28):
        for k in (11008, 9632, 8256, 6880, 5504):
            put("lonas_layer:r=%d_k=%d" % (r, k), "nsc", lonas_layer(r, k))

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["case", "quantity", "value"])
        w.writerows(rows)
    print("wrote %d values to %s" % (len(rows), OUT))


if __name__ == "__main__":
    main()
