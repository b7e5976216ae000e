#!/usr/bin/python3
"""Reference values for the CNN presets (tests/test_presets_cnn.cpp), computed independently of
the C++ code.

    /usr/bin/python3 tests/reference/gen_cnn_reference.py [output_dir]

(default output_dir: tests/data next to this script's parent). Deterministic (numpy
default_rng(SEED) picks the random architectures).

File cnn_reference.csv, columns
    family,arch,option1,option2,resolution,classes,nsc,params,macs
  family nats: arch "c0:c1:c2:c3:c4"; option1 = skip (conv1x1 | factorized_reduce);
               option2 = wiring (xautodl | reference_code); nsc under the reference convention
               (Xavier of each (c_out, c_in k^2) matrix, classifier psi_X(classes, c4)).
  family mbv3: arch "d0-..-d4/k0-..-k19/e0-..-e19"; option1 = indexing (running | ofa_slot);
               option2 = variant (reference | ofa_faithful). reference rows are scored with the
               reference convention (psi_X of each block), ofa_faithful rows with Xavier from
               PyTorch's tensor fans (fan_in = (c_in / groups) k^2, fan_out = c_out k^2).
  nsc with 40 significant digits; params and macs (multiply-accumulates per image) exact integers.

Independent routes
  * psi_MP: the DIRECT Tulino-Verdu formula of math.md section 2 (not the cancellation-free form
    the C++ uses), in 50-digit mpmath; a few values are cross-checked against the paper's route
    (scipy quad of p ln(1 + v q lambda) against the Marchenko-Pastur density), asserting 1e-9.
  * The networks are written out here from the specification (reference-conventions.md,
    shared/data/nats-bench-sss/SOURCE.md, the OFA MobileNetV3 layout) as lists of
    (rows, cols, blocks, variance) and parameter / MAC sums, not by translating the C++ builders.
"""
import math
import os
import sys

import mpmath as mpm
import numpy as np
from mpmath import mp, mpf
from scipy import integrate

mp.dps = 50
SEED = 20240617
DIGITS = 40


def out_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def psi_mp(m, n, v):
    """psi_MP(m, n, v), direct closed form, 50 digits."""
    m, n, v = mpf(m), mpf(n), mpf(v)
    p, q = min(m, n), max(m, n)
    b = p / q
    x = v * q
    sb = mpm.sqrt(b)
    F = (mpm.sqrt(x * (1 + sb) ** 2 + 1) - mpm.sqrt(x * (1 - sb) ** 2 + 1)) ** 2
    return q * (b * mpm.log(1 + x - F / 4) + mpm.log(1 + x * b - F / 4) - F / (4 * x))


def psi_quad(m, n, v):
    """The paper's route: scipy quad of p E_MP[ln(1 + x lambda / ... )] in float64."""
    p, q = min(m, n), max(m, n)
    g = p / q
    lo, hi = (1 - math.sqrt(g)) ** 2, (1 + math.sqrt(g)) ** 2
    s2q = v * q

    def f(t):
        d = math.sqrt(max((hi - t) * (t - lo), 0.0)) / (2 * math.pi * g * t)
        return math.log(1 + s2q * t) * d

    return p * integrate.quad(f, lo, hi, limit=200)[0]


def xavier_block(rows, cols):
    return mpf(2) / (mpf(rows) + mpf(cols))


# ------------------------------------------------------------------ weights as plain tuples
# A conv weight is (c_out, c_in, k, groups); its scored blocks are groups blocks of
# (c_out / groups, (c_in / groups) k^2).

def psi_conv(c_out, c_in, k, groups, source):
    rows = c_out // groups
    cols = (c_in // groups) * k * k
    if source == "block":
        v = xavier_block(rows, cols)
    else:  # PyTorch's fans of the whole tensor
        v = mpf(2) / (mpf((c_in // groups) * k * k) + mpf(c_out * k * k))
    return groups * psi_mp(rows, cols, v)


def psi_linear(out, inp):
    return psi_mp(out, inp, xavier_block(out, inp))


# ------------------------------------------------------------------ NATS-Bench SSS
def nats(ch, skip, wiring, res, classes):
    c0, c1, c2, c3, c4 = ch
    if wiring == "xautodl":
        cells = [(c0, c0), (c1, c2), (c3, c4)]
        blocks = [(c0, c1), (c2, c3)]
    else:  # the reference scripts' shifted wiring
        cells = [(c0, c1), (c2, c3), (c4, c4)]
        blocks = [(c1, c2), (c3, c4)]
    r = [res, res // 2, res // 4]  # cell i runs at r[i]; block i maps r[i] -> r[i + 1]
    nsc = psi_conv(c0, 3, 3, 1, "block")
    params = 27 * c0 + 2 * c0
    macs = 27 * c0 * res * res
    for i, (ci, co) in enumerate(cells):
        mats = [(co, ci, 3)] * 2 + [(co, co, 3)] * 3
        if ci != co:
            if skip == "conv1x1":
                mats.append((co, ci, 1))
            else:
                mats += [(co // 2, ci, 1), (co - co // 2, ci, 1)]
        for (o, ii, k) in mats:
            nsc += psi_conv(o, ii, k, 1, "block")
            params += o * ii * k * k
            macs += o * ii * k * k * r[i] * r[i]
        params += 5 * 2 * co + (2 * co if ci != co else 0)
    for i, (ci, co) in enumerate(blocks):
        ro = r[i + 1]
        for (o, ii, k) in [(co, ci, 3), (co, co, 3), (co, ci, 1)]:
            nsc += psi_conv(o, ii, k, 1, "block")
            params += o * ii * k * k
            macs += o * ii * k * k * ro * ro
        params += 2 * 2 * co  # BN after conv_a and conv_b; the AvgPool shortcut has no BN
    nsc += psi_linear(classes, c4)
    params += 2 * c4 + classes * c4 + classes
    macs += classes * c4
    return nsc, params, macs


# ------------------------------------------------------------------ OFA MobileNetV3
WIDTHS = [24, 40, 80, 112, 160]
STRIDES = [2, 2, 2, 1, 2]
SE = [False, True, False, True, True]


def make_div(v, d=8):
    nv = max(d, int(v + d / 2) // d * d)
    if nv < 0.9 * v:
        nv += d
    return nv


def ceil_div(a, b):
    return -(-a // b)


def mbv3(d, ks, es, indexing, variant, res, classes):
    faithful = variant == "ofa_faithful"
    src = "tensor" if faithful else "block"
    h = ceil_div(res, 2)
    nsc = psi_conv(16, 3, 3, 1, src)
    params = 16 * 27 + 2 * 16
    macs = 16 * 27 * h * h

    def block(cin, cout, k, mid, stride, se, h):
        nonlocal nsc, params, macs
        ho = ceil_div(h, stride)
        if mid != cin:
            nsc += psi_conv(mid, cin, 1, 1, src)
            params += cin * mid + 2 * mid
            macs += cin * mid * h * h
        nsc += psi_conv(mid, mid, k, mid, src)
        params += mid * k * k + 2 * mid
        macs += mid * k * k * ho * ho
        if se:
            hid = make_div(mid // 4)
            nsc += psi_conv(hid, mid, 1, 1, src) + psi_conv(mid, hid, 1, 1, src)
            params += mid * hid + hid + hid * mid + mid
            macs += 2 * mid * hid
        nsc += psi_conv(cout, mid, 1, 1, src)
        params += mid * cout + 2 * cout
        macs += mid * cout * ho * ho
        return ho

    if faithful:
        h = block(16, 16, 3, 16, 1, False, h)
    cin = 16
    run = 0
    for s in range(5):
        for j in range(d[s]):
            slot = 4 * s + j if indexing == "ofa_slot" else run
            run += 1
            k, e = ks[slot], es[slot]
            mid = make_div(cin * e) if faithful else cin * e
            h = block(cin, WIDTHS[s], k, mid, STRIDES[s] if j == 0 else 1, faithful and SE[s], h)
            cin = WIDTHS[s]
    nsc += psi_conv(960, 160, 1, 1, src)
    params += 160 * 960 + 2 * 960
    macs += 160 * 960 * h * h
    nsc += psi_conv(1280, 960, 1, 1, src)
    params += 960 * 1280
    macs += 960 * 1280
    nsc += psi_mp(classes, 1280, mpf(2) / (classes + 1280))  # Linear: tensor fans = block fans
    params += 1280 * classes + classes
    macs += 1280 * classes
    return nsc, params, macs


def fmt(v):
    return mpm.nstr(mpf(v), DIGITS, strip_zeros=False)


def main():
    rng = np.random.default_rng(SEED)
    # Cross-check the direct formula against the paper's quadrature route.
    for (m, n) in [(64, 576), (16, 27), (1, 9), (1, 49), (10, 64), (1000, 1280), (28, 72)]:
        a = float(psi_mp(m, n, xavier_block(m, n)))
        b = psi_quad(m, n, 2.0 / (m + n))
        assert abs(a - b) <= 1e-9 * abs(a), (m, n, a, b)

    rows = []
    widths = [8, 16, 24, 32, 40, 48, 56, 64]
    archs = [(8, 8, 8, 8, 8), (64, 64, 64, 64, 64), (8, 64, 16, 56, 24), (64, 8, 40, 16, 48),
             (24, 24, 32, 32, 40), (16, 48, 48, 8, 64)]
    for _ in range(6):
        archs.append(tuple(int(x) for x in rng.choice(widths, 5)))
    datasets = [(32, 10), (32, 100), (16, 120)]
    for ch in archs:
        for skip in ["conv1x1", "factorized_reduce"]:
            for wiring in ["xautodl", "reference_code"]:
                for res, classes in datasets:
                    nsc, params, macs = nats(ch, skip, wiring, res, classes)
                    rows.append(["nats", ":".join(map(str, ch)), skip, wiring, res, classes,
                                 fmt(nsc), params, macs])

    mb = [([4] * 5, [7] * 20, [6] * 20), ([2] * 5, [3] * 20, [3] * 20)]
    for _ in range(6):
        d = [int(x) for x in rng.choice([2, 3, 4], 5)]
        ks = [int(x) for x in rng.choice([3, 5, 7], 20)]
        es = [int(x) for x in rng.choice([3, 4, 6], 20)]
        mb.append((d, ks, es))
    for d, ks, es in mb:
        arch = "-".join(map(str, d)) + "/" + "-".join(map(str, ks)) + "/" + "-".join(map(str, es))
        for indexing in ["running", "ofa_slot"]:
            for variant in ["reference", "ofa_faithful"]:
                for res in [224, 160]:
                    nsc, params, macs = mbv3(d, ks, es, indexing, variant, res, 1000)
                    rows.append(["mbv3", arch, indexing, variant, res, 1000, fmt(nsc), params, macs])

    path = os.path.join(out_dir(), "cnn_reference.csv")
    with open(path, "w") as f:
        f.write("family,arch,option1,option2,resolution,classes,nsc,params,macs\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    print(f"wrote {len(rows)} rows to {path}")


if __name__ == "__main__":
    main()
