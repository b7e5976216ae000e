#!/usr/bin/python3
"""Reference values for the spectral core (tests/test_marchenko_pastur.cpp, test_finite_size.cpp,
test_init.cpp), computed independently of the C++ code with mpmath at mp.dps = 50.

    /usr/bin/python3 tests/reference/gen_spectral_reference.py [output_dir]

(default output_dir: tests/data next to this script's parent). Deterministic: every random
input comes from numpy.random.default_rng(SEED). Inputs are IEEE doubles written with repr(),
so the C++ side reads exactly the same doubles; outputs are the 50-digit results of those exact
doubles, written with 24 significant digits (48 for the two check values of math.md).

Files
  psi_mp_reference.csv            m,n,v,psi_mp,psi_fs_k0,psi_fs_km1.2
                                  rows 1-4000: the random points (m = beta, n = 1, v = x);
                                  then near-square points (beta -> 1, x ~ 1/(1 - sqrt beta)^2),
                                  integer shapes, and last the two check values
  psi_mp_float_reference.csv      the same columns, inputs exactly representable in float
  psi_extreme_reference.csv       the same columns at extreme scales (issue 13): x = v q from
                                  1e150 to 1.7e308 (where x^2 overflows double) and from 1e-300
                                  to 1e-20, tiny ratios beta down to 1e-300, and shapes such as
                                  psi_mp(1, 1e160, 1) and v q > 1.8e308 such as
                                  psi_mp(10, 10, 1e308); evaluated by the direct formula at a
                                  working precision of 60 + 2 |log10 x| + |log10 beta| digits
                                  (its cancellations grow with x and 1/x), cross-checked by quad for x >= 1
  mp_law_reference.csv            beta,x,what,arg,value      (what: pdf | cdf | quantile)
  psi_top_r_reference.csv         m,n,v,r,psi_top_r
  truncated_normal_reference.csv  a,b,mean,variance,kurtosis_excess
  psi_vector_reference.csv        n,v,psi

Independent routes
  * psi_mp: the DIRECT Tulino-Verdu formula of math.md section 2 (not the cancellation-free form
    used by the C++), in 50-digit arithmetic. Its cancellations cost ~12 of the 50 digits at
    worst here; the script checks that by re-evaluating at 100 digits (difference < 1e-33
    relative), and cross-checks ~100 points against mpmath quad of p * ln(1 + lambda) against
    the MP density in lambda (tanh-sinh; an unrelated route), asserting 1e-30 relative. It also
    prints the worst error of the same direct formula in float64 numpy (for the docs).
  * psi_fs: math.md section 3 (lo, hi, r form), 50 digits.
  * MP law: the density in lambda; cdf = quad of the density from the lower edge (for lambda in
    the upper half of the support, 1 - quad from lambda to the upper edge), with
    lambda = a + s^2 (resp. b - s^2) to remove the square-root edges; quantile = mpmath findroot
    (Newton, the pdf as derivative, from a bisection bracket) on that cdf, or on its complement
    for probabilities > 1/2 (1 - prob is exact for the double prob).
  * psi_top_r: p * quad of ln(1 + lambda) f(lambda) over [quantile(1 - r/p), upper edge].
  * truncated normal: quad of t^k phi(t) over [a, b] (k = 0, 1) and of the central moments
    (t - mean)^k phi(t) (k = 2, 4).
  * psi_vector: quad of ln(1 + v t) against the chi^2_n density.

Runs in ~3 minutes of CPU.
"""
import math
import os
import sys

import mpmath as mpm
import numpy as np
from mpmath import mp, mpf

SEED = 20240611
N_RANDOM = 4000
N_QUAD_CHECK = 100
DIGITS = 24  # significant digits written for computed values (long double needs 21)
DIGITS_CHECK = 48  # for the two check values (the cpp_bin_float_50 test)

mp.dps = 50


def out_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def fmt(v, digits=DIGITS):
    """A computed (mpf) value with `digits` significant digits."""
    v = mpf(v)
    if v == 0:
        return "0"
    return mpm.nstr(v, digits, min_fixed=-5, max_fixed=25, strip_zeros=False)


def fin(x):
    """An input double, written so that strtod gives back exactly the same double."""
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    assert float(repr(x)) == x
    return repr(x)


# ---------------------------------------------------------------- psi_MP and psi_FS (math.md 2, 3)
def shape(m, n, v):
    """(p, q, beta, x) of math.md from exact doubles m, n, v."""
    m, n, v = mpf(m), mpf(n), mpf(v)
    p, q = min(m, n), max(m, n)
    return p, q, p / q, v * q


def psi_mp_direct(m, n, v):
    """math.md section 2, the direct Tulino-Verdu formula."""
    if m == 0 or n == 0 or v == 0:
        return mpf(0)
    p, q, beta, x = shape(m, n, v)
    sb = mpm.sqrt(beta)
    F = (mpm.sqrt(x * (1 + sb) ** 2 + 1) - mpm.sqrt(x * (1 - sb) ** 2 + 1)) ** 2
    return q * (beta * mpm.log(1 + x - F / 4) + mpm.log(1 + x * beta - F / 4) - F / (4 * x))


def mp_edges(beta, x):
    sb = mpm.sqrt(beta)
    return x * (1 - sb) ** 2, x * (1 + sb) ** 2


def mp_pdf(beta, x, lam):
    a, b = mp_edges(beta, x)
    if lam <= a or lam >= b:
        return mpf(0)
    return mpm.sqrt((b - lam) * (lam - a)) / (2 * mpm.pi * beta * x * lam)


def mp_integral(beta, x, g, lo, hi):
    """Integral of g(lambda) f(lambda) d lambda over [lo, hi] inside the support [a, b], f the MP
    density, by mpmath quad (tanh-sinh). The square-root edges are removed by lambda = a + s^2
    on the lower half and lambda = b - s^2 on the upper half (then lambda - a, resp. b - lambda,
    is s^2 exactly and the integrand is smooth); geometric break points in s towards the lower
    edge resolve the 1/lambda peak when a << b - a (ratio close to 1)."""
    a, b = mp_edges(beta, x)
    w = b - a
    c = 2 * mpm.pi * beta * x
    mid = a + w / 2
    total = mpf(0)

    def lower(s):  # lambda = a + s^2, d lambda = 2 s ds
        lam = a + s * s
        return g(lam) * 2 * s * s * mpm.sqrt(w - s * s) / (c * lam)

    def upper(s):  # lambda = b - s^2
        lam = b - s * s
        return g(lam) * 2 * s * s * mpm.sqrt(w - s * s) / (c * lam)

    if lo < mid:
        s0, s1 = mpm.sqrt(lo - a), mpm.sqrt(min(hi, mid) - a)
        pts = [s0]
        for k in range(28, 0, -1):
            t = mpm.sqrt(w) * mpf(10) ** (-mpf(k) / 2)
            if s0 < t < s1:
                pts.append(t)
        pts.append(s1)
        total += mpm.quad(lower, pts)
    if hi > mid:
        s0, s1 = mpm.sqrt(b - hi), mpm.sqrt(b - max(lo, mid))
        total += mpm.quad(upper, [s0, s1])
    return total


def psi_mp_by_quad(m, n, v):
    """p * integral of ln(1 + lambda) against the MP density in lambda (independent route)."""
    p, q, beta, x = shape(m, n, v)
    a, b = mp_edges(beta, x)
    return p * mp_integral(beta, x, mpm.log1p, a, b)


def psi_fs_ref(m, n, v, kappa):
    """math.md section 3 with lo, hi, r."""
    if m == 0 or n == 0 or v == 0:
        return mpf(0)
    p, q, beta, x = shape(m, n, v)
    sb = mpm.sqrt(beta)
    lo, hi = 1 + x * (1 - sb) ** 2, 1 + x * (1 + sb) ** 2  # 1 + s a, 1 + s b
    r = (mpm.sqrt(hi) - mpm.sqrt(lo)) / (mpm.sqrt(hi) + mpm.sqrt(lo))
    kappa = mpf(kappa)
    return (psi_mp_direct(m, n, v) + (mpm.log(lo) + mpm.log(hi)) / 4
            - mpm.log((mpm.sqrt(lo) + mpm.sqrt(hi)) / 2) - kappa / 2 * r ** 2)


def psi_mp_direct_float64(m, n, v):
    """The same direct formula in float64 numpy (to document how much it loses)."""
    m, n, v = np.asarray(m, float), np.asarray(n, float), np.asarray(v, float)
    p, q = np.minimum(m, n), np.maximum(m, n)
    beta, x = p / q, v * q
    sb = np.sqrt(beta)
    F = (np.sqrt(x * (1 + sb) ** 2 + 1) - np.sqrt(x * (1 - sb) ** 2 + 1)) ** 2
    return q * (beta * np.log(1 + x - F / 4) + np.log(1 + x * beta - F / 4) - F / (4 * x))


def gen_psi_mp(rng, path):
    rows = []  # (m, n, v) as doubles
    # 1. random points: x = v q log-uniform in [1e-8, 1e8], beta log-uniform in [1e-6, 1];
    #    written as m = beta, n = 1, v = x (real dimensions: p = beta, q = 1).
    xs = 10.0 ** rng.uniform(-8.0, 8.0, N_RANDOM)
    betas = 10.0 ** rng.uniform(-6.0, 0.0, N_RANDOM)
    betas = np.minimum(betas, 1.0)
    for b_, x_ in zip(betas, xs):
        rows.append((float(b_), 1.0, float(x_)))
    random_rows = list(rows)
    # 1b. near-square: beta -> 1 with x ~ 1/(1 - sqrt beta)^2, where 1 - sqrt(beta) must be
    #     formed without cancellation (the rest of [1e-8, 1e8] x [1e-6, 1] rarely samples it)
    for k in range(1, 9):
        beta = 1.0 - 10.0 ** -k
        delta = 1.0 - math.sqrt(beta)
        for c in (0.01, 0.3, 1.0, 3.0, 100.0):
            x = c / delta ** 2
            if 1e-8 <= x <= 1e8:
                rows.append((beta, 1.0, x))
    for p_ in (10, 99, 1000, 19999):
        delta = 1.0 - math.sqrt(p_ / (p_ + 1.0))
        for c in (0.1, 1.0, 10.0):
            rows.append((float(p_ + 1), float(p_), c / delta ** 2 / (p_ + 1)))
    # 2. integer shapes with the usual variances
    dims = [1, 2, 3, 7, 8, 16, 64, 100, 512, 768, 1000, 2000, 3072, 4096, 12345, 20000]
    shapes = [(d, d) for d in dims]
    shapes += [(1, 20000), (20000, 1), (2, 20000), (20000, 3), (7, 19999), (19999, 7),
               (1, 2), (2, 1), (1, 9), (9, 1), (64, 576), (576, 64), (4000, 1000), (1000, 4000),
               (768, 3072), (3072, 768), (2304, 768), (1, 1), (3, 20000), (20000, 20000 - 1)]
    logs = rng.uniform(0.0, math.log(20000.0), (30, 2))
    shapes += [(int(round(math.exp(a))), int(round(math.exp(b)))) for a, b in logs]
    for m, n in shapes:
        for v in (2.0 / (m + n), 2.0 / n, 0.02 ** 2, 1e-12, 1e3):
            rows.append((float(m), float(n), float(v)))
    # 3. the check values of math.md (Xavier)
    rows.append((2000.0, 2000.0, 2.0 / 4000.0))
    rows.append((4000.0, 1000.0, 2.0 / 5000.0))

    chk1, chk2 = psi_mp_direct(2000, 2000, 2.0 / 4000.0), psi_mp_direct(4000, 1000, 2.0 / 5000.0)
    assert mpm.nstr(chk1, 14).startswith("1160.9152777"), chk1
    assert mpm.nstr(chk2, 14).startswith("908.6602371"), chk2
    print(f"check values: 2000x2000 -> {mpm.nstr(chk1, 20)}, 4000x1000 -> {mpm.nstr(chk2, 20)}")

    out = []
    worst_prec = mpf(0)
    for m, n, v in rows:
        psi = psi_mp_direct(m, n, v)
        with mp.workdps(100):  # the 50-digit direct formula keeps > 33 digits everywhere here
            psi100 = psi_mp_direct(m, n, v)
        rel = abs(psi - psi100) / abs(psi100)
        worst_prec = max(worst_prec, rel)
        fs0 = psi_fs_ref(m, n, v, 0)
        fs12 = psi_fs_ref(m, n, v, mpf("-1.2"))
        out.append((m, n, v, psi, fs0, fs12))
    assert worst_prec < mpf("1e-33"), worst_prec
    for m, n, v in rows[-2:]:  # the check values also serve the cpp_bin_float_50 test (1e-45)
        with mp.workdps(100):
            exact = psi_mp_direct(m, n, v)
        assert abs(psi_mp_direct(m, n, v) - exact) < abs(exact) * mpf("1e-47")
    print(f"psi_mp direct at 50 digits vs 100 digits: worst relative difference "
          f"{mpm.nstr(worst_prec, 3)}")

    # independent route on a subset: quadrature against the density
    idx = list(rng.choice(N_RANDOM, N_QUAD_CHECK - 6, replace=False))
    idx += [len(random_rows) + i for i in range(0, len(rows) - len(random_rows), 50)][:4]
    idx += [len(rows) - 2, len(rows) - 1]
    worst_q = mpf(0)
    for i in idx:
        m, n, v = rows[i]
        qv = psi_mp_by_quad(m, n, v)
        rel = abs(qv - out[i][3]) / abs(out[i][3])
        worst_q = max(worst_q, rel)
        assert rel < mpf("1e-30"), (m, n, v, out[i][3], qv, rel)
    print(f"psi_mp direct vs quad of the density at {len(idx)} points: worst relative "
          f"difference {mpm.nstr(worst_q, 3)}")

    # how much the direct formula loses in float64 (documentation)
    rm = np.array([r[0] for r in random_rows])
    rn = np.array([r[1] for r in random_rows])
    rv = np.array([r[2] for r in random_rows])
    with np.errstate(all="ignore"):
        d64 = psi_mp_direct_float64(rm, rn, rv)
    errs = [abs(mpf(float(d)) - o[3]) / abs(o[3]) for d, o in zip(d64, out[:N_RANDOM])]
    k = int(np.argmax([float(e) for e in errs]))
    print(f"direct formula in float64 numpy on the {N_RANDOM} random points: worst relative "
          f"error {mpm.nstr(errs[k], 3)} at beta = {rm[k]!r}, x = {rv[k]!r}; median "
          f"{float(np.median([float(e) for e in errs])):.3g}")

    with open(path, "w") as f:
        f.write("m,n,v,psi_mp,psi_fs_k0,psi_fs_km1.2\n")
        for i, (m, n, v, a, b, c) in enumerate(out):
            d = DIGITS_CHECK if i >= len(out) - 2 else DIGITS
            f.write(f"{fin(m)},{fin(n)},{fin(v)},{fmt(a, d)},{fmt(b)},{fmt(c)}\n")
    print(f"wrote {path}: {len(out)} rows ({N_RANDOM} random)")


def gen_psi_mp_float(rng, path):
    """Random points whose inputs are exactly representable in float (for psi_mp<float>):
    beta and x drawn as in gen_psi_mp, then rounded to float32."""
    n_pts = 1000
    xs = np.float32(10.0 ** rng.uniform(-8.0, 8.0, n_pts))
    betas = np.minimum(np.float32(10.0 ** rng.uniform(-6.0, 0.0, n_pts)), np.float32(1))
    rows = [(float(b_), 1.0, float(x_)) for b_, x_ in zip(betas, xs)]
    rows += [(64.0, 64.0, 2.0 ** -6), (1000.0, 250.0, 1e3), (3.0, 20000.0, 2.0 ** -14)]
    with open(path, "w") as f:
        f.write("m,n,v,psi_mp,psi_fs_k0,psi_fs_km1.2\n")
        for m, n, v in rows:
            assert float(np.float32(m)) == m and float(np.float32(v)) == v
            f.write(f"{fin(m)},{fin(n)},{fin(v)},{fmt(psi_mp_direct(m, n, v))},"
                    f"{fmt(psi_fs_ref(m, n, v, 0))},{fmt(psi_fs_ref(m, n, v, mpf('-1.2')))}\n")
    print(f"wrote {path}: {len(rows)} rows")


def gen_psi_extreme(path):
    """Extreme scales and ratios (issue 13), m = beta, n = 1, v = x as for the random points, plus
    integer shapes. The direct formula loses ~2 |log10 x| + |log10 beta| digits to cancellation
    here, so each point is evaluated at that many extra digits, and re-evaluated with 40 more
    (agreement to 1e-40 relative asserted); every fourth point with x >= 1 is cross-checked
    against the quadrature route (1e-30 relative)."""
    xs = [1e150, 3.3e150, 1e154, 1.5e154, 1e155, 1e160, 1e200, 1e250, 1e300, 1e307, 1.7e308,
          1e-20, 1e-100, 1e-200, 1e-300]
    betas = [1.0, 0.999999, 0.5, 1e-3, 1e-10, 1e-100, 1e-200, 1e-300]
    rows = [(b, 1.0, x) for x in xs for b in betas]
    rows += [(1.0, 1e160, 1.0), (1.0, 1e300, 1.0), (100.0, 100.0, 1e155), (100.0, 200.0, 1e155),
             (4096.0, 11008.0, 1e300), (1.0, 1e308, 1e-300), (1e-5, 1e308, 1.0),
             (1.0, 1e10, 1e-310), (1e300, 1e300, 1e-300),
             # v q above the largest double (x = inf in double; psi is finite)
             (10.0, 10.0, 1e308), (1.0, 2.0, 1e308), (1.0, 1e308, 1e308), (3.0, 1e308, 1e308),
             (4096.0, 11008.0, 1e306)]
    km12 = mpf("-1.2")
    out = []
    for i, (m, n, v) in enumerate(rows):
        p, q, beta, x = shape(m, n, v)
        extra = 2 * abs(int(mpm.log10(x))) + abs(int(mpm.log10(beta)))
        with mp.workdps(60 + extra):
            vals = [psi_mp_direct(m, n, v), psi_fs_ref(m, n, v, 0), psi_fs_ref(m, n, v, km12)]
        with mp.workdps(100 + extra):
            again = [psi_mp_direct(m, n, v), psi_fs_ref(m, n, v, 0), psi_fs_ref(m, n, v, km12)]
        for a, b in zip(vals, again):
            assert abs(a - b) <= mpf(10) ** -40 * abs(b), (m, n, v)
        if i % 4 == 0 and x >= 1:  # the support is x (1 +- 2 sqrt beta): resolve its width
            with mp.workdps(60 + abs(int(mpm.log10(beta)))):
                qd = psi_mp_by_quad(m, n, v)
            assert abs(qd - vals[0]) <= mpf(10) ** -30 * abs(vals[0]), (m, n, v, qd, vals[0])
        out.append((m, n, v, *vals))
    with open(path, "w") as f:
        f.write("m,n,v,psi_mp,psi_fs_k0,psi_fs_km1.2\n")
        for m, n, v, a, b, c in out:
            f.write(f"{fin(m)},{fin(n)},{fin(v)},{fmt(a)},{fmt(b)},{fmt(c)}\n")
    print(f"wrote {path}: {len(out)} rows")


# ---------------------------------------------------------------- the Marchenko-Pastur law
def one(lam):
    return mpf(1)


def mp_cdf(beta, x, lam):
    a, b = mp_edges(beta, x)
    if lam <= a:
        return mpf(0)
    if lam >= b:
        return mpf(1)
    if lam - a <= b - lam:
        return mp_integral(beta, x, one, a, lam)
    return 1 - mp_integral(beta, x, one, lam, b)


def mp_ccdf(beta, x, lam):
    a, b = mp_edges(beta, x)
    if lam <= a:
        return mpf(1)
    if lam >= b:
        return mpf(0)
    if lam - a <= b - lam:
        return 1 - mp_integral(beta, x, one, a, lam)
    return mp_integral(beta, x, one, lam, b)


def solve_tail(G, width):
    """The root d in (0, width] of G(d) = 0, G increasing: geometric then arithmetic bisection at
    low precision for a bracket, then mpmath findroot (Newton, derivative G') at full precision
    in the variable d / scale (scale ~ the root, so findroot's absolute tolerance is relative)."""
    lo, hi = width * mpf(10) ** -40, width
    with mp.workdps(20):
        assert G[0](lo) < 0 < G[0](hi) or G[0](hi) == 0
        for _ in range(200):
            mid = mpm.sqrt(lo * hi) if hi > 2 * lo else (lo + hi) / 2
            if G[0](mid) < 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < hi * mpf(10) ** -9:
                break
    scale = (lo + hi) / 2
    root = mpm.findroot(lambda s: G[0](s * scale), mpf(1), df=lambda s: G[1](s * scale) * scale,
                        solver="newton", tol=mpf(10) ** -46, maxsteps=12, verify=False)
    return root * scale


def mp_quantile(beta, x, prob):
    """findroot on the cdf (on the complement for prob > 1/2, with 1 - prob exact)."""
    prob = mpf(prob)
    a, b = mp_edges(beta, x)
    if prob > mpf(1) / 2:  # lambda = b - d, P(Lambda > b - d) = 1 - prob
        target = 1 - prob
        G = (lambda d: mp_ccdf(beta, x, b - d) - target, lambda d: mp_pdf(beta, x, b - d))
        root = b - solve_tail(G, b - a)
    else:  # lambda = a + d, P(Lambda <= a + d) = prob
        target = prob
        G = (lambda d: mp_cdf(beta, x, a + d) - target, lambda d: mp_pdf(beta, x, a + d))
        root = a + solve_tail(G, b - a)
    assert a < root < b
    resid = (mp_ccdf(beta, x, root) if prob > mpf(1) / 2 else mp_cdf(beta, x, root)) - target
    # (lambda itself is only known to 50 digits, and the tail probability is ~ (b - lambda)^1.5)
    assert abs(resid) <= target * mpf(10) ** -36, (beta, x, prob, resid)
    return root


def gen_mp_law(path):
    cases = [(1.0, 1.0), (1e-4, 1.0), (0.25, 2.0), (0.5, 1e-3), (0.1, 50.0), (0.99, 1.0),
             (0.9999, 3.0), (1.0, 1e-6), (1e-6, 1e4)]
    ts = [1e-12, 1e-8, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.45, 0.5, 0.6, 0.75, 0.9, 0.99,
          0.9999, 1 - 1e-8]
    probs = [1e-12, 1e-9, 1e-6, 1e-3, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1 - 1e-6,
             1 - 1e-9, 1 - 1e-12]
    rows = []
    for beta, x in cases:
        bm, xm = mpf(beta), mpf(x)
        a, b = mp_edges(bm, xm)
        lams = [float(a + (b - a) * mpf(t)) for t in ts]
        # outside the support (trivial values) and on it
        lams += [float(a) * 0.5 if a > 0 else -1.0, float(b) * 1.5]
        for lam in lams:
            lm = mpf(lam)
            rows.append((beta, x, "pdf", lam, mp_pdf(bm, xm, lm)))
            rows.append((beta, x, "cdf", lam, mp_cdf(bm, xm, lm)))
        for pr in probs:
            rows.append((beta, x, "quantile", pr, mp_quantile(bm, xm, pr)))
    with open(path, "w") as f:
        f.write("beta,x,what,arg,value\n")
        for beta, x, what, arg, val in rows:
            f.write(f"{fin(beta)},{fin(x)},{what},{fin(arg)},{fmt(val)}\n")
    print(f"wrote {path}: {len(rows)} rows")


def psi_top_r_ref(m, n, v, r):
    p, q, beta, x = shape(m, n, v)
    a, b = mp_edges(beta, x)
    r = mpf(r)
    if r == 0:
        return mpf(0)
    if r >= p:
        return psi_mp_direct(m, n, v)
    # quantile(1 - r/p): the lambda = b - d with P(Lambda > lambda) = r/p
    target = r / p
    G = (lambda d: mp_ccdf(beta, x, b - d) - target, lambda d: mp_pdf(beta, x, b - d))
    lam_r = b - solve_tail(G, b - a)
    integral = mp_integral(beta, x, mpm.log1p, lam_r, b)
    return p * integral


def gen_top_r(path):
    cases = [(64.0, 64.0, 2.0 / 128.0), (128.0, 512.0, 0.02 ** 2), (1000.0, 4000.0, 2.0 / 5000.0),
             (768.0, 3072.0, 2.0 / 768.0), (300.0, 100.0, 1.0 / 300.0), (50.0, 5e5, 1e-5)]
    rows = []
    for m, n, v in cases:
        p = min(m, n)
        for r in (1.0, 0.25 * p, 0.5 * p, 0.9 * p, p - 1.0, 3.5):
            rows.append((m, n, v, r, psi_top_r_ref(m, n, v, r)))
    with open(path, "w") as f:
        f.write("m,n,v,r,psi_top_r\n")
        for m, n, v, r, val in rows:
            f.write(f"{fin(m)},{fin(n)},{fin(v)},{fin(r)},{fmt(val)}\n")
    print(f"wrote {path}: {len(rows)} rows")


# ---------------------------------------------------------------- truncated normal moments
def trunc_moments(a, b):
    a = mpf(a) if not math.isinf(a) else (mpm.inf if a > 0 else -mpm.inf)
    b = mpf(b) if not math.isinf(b) else (mpm.inf if b > 0 else -mpm.inf)
    phi = lambda t: mpm.exp(-t * t / 2) / mpm.sqrt(2 * mpm.pi)
    pts = [a]
    for c in (-10, -5, -2, 0, 2, 5, 10):
        if a < c < b:
            pts.append(mpf(c))
    pts.append(b)
    mom = [mpm.quad(lambda t, k=k: t ** k * phi(t), pts) for k in range(2)]
    z = mom[0]
    m1 = mom[1] / z if a != -b else mpf(0)  # exactly 0 by symmetry (quad leaves ~1e-59)
    c2 = mpm.quad(lambda t: (t - m1) ** 2 * phi(t), pts) / z
    c4 = mpm.quad(lambda t: (t - m1) ** 4 * phi(t), pts) / z
    return m1, c2, c4 / c2 ** 2 - 3


def gen_truncated(path):
    bounds = [(-2.0, 2.0), (-1.0, 1.0), (-3.0, 1.0), (0.5, 4.0), (-math.inf, 0.0), (-100.0, 100.0),
              (-0.5, 0.5), (-1e-3, 1e-3), (-2.5, 2.5), (-math.inf, math.inf), (0.0, math.inf),
              (1.0, 3.0), (-4.0, -0.5), (2.0, 3.0), (-10.0, 10.0),
              # narrow or far in a tail: the raw-moment recurrence cancels there
              (-0.1, 0.1), (-1e-6, 1e-6), (2.0, 2.001), (5.0, 8.0), (5.0, math.inf),
              (-math.inf, -6.0), (-0.2, 0.1)]
    with open(path, "w") as f:
        f.write("a,b,mean,variance,kurtosis_excess\n")
        for a, b in bounds:
            m1, var, kurt = trunc_moments(a, b)
            f.write(f"{fin(a)},{fin(b)},{fmt(m1)},{fmt(var)},{fmt(kurt)}\n")
    print(f"wrote {path}: {len(bounds)} rows")


# ---------------------------------------------------------------- E[ln(1 + v chi^2_n)]
def psi_vector_ref(n, v):
    n, v = mpf(n), mpf(v)
    h = n / 2
    logc = -h * mpm.log(2) - mpm.loggamma(h)

    def f(t):
        if t == 0:
            return mpf(0)
        return mpm.log1p(v * t) * mpm.exp(logc + (h - 1) * mpm.log(t) - t / 2)

    mode = max(n - 2, mpf(0))
    sd = mpm.sqrt(2 * n)
    pts = [mpf(0)]
    for k in (-40, -20, -10, -5, -2, 0, 2, 5, 10, 20, 40, 80):
        t = mode + k * sd
        if t > pts[-1]:
            pts.append(t)
    pts.append(mpm.inf)
    return mpm.quad(f, pts)


def gen_vector(path):
    rows = []
    for n in (1.0, 2.0, 3.0, 9.0, 25.0, 49.0, 1000.0, 1e5):
        for v in sorted({2.0 / (1.0 + n), 1e-3, 1.0, 0.02 ** 2, 100.0}):
            rows.append((n, v, psi_vector_ref(n, v)))
    with open(path, "w") as f:
        f.write("n,v,psi\n")
        for n, v, val in rows:
            f.write(f"{fin(n)},{fin(v)},{fmt(val)}\n")
    print(f"wrote {path}: {len(rows)} rows")


def main():
    d = out_dir()
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(SEED)
    gen_psi_mp(rng, os.path.join(d, "psi_mp_reference.csv"))
    gen_psi_mp_float(rng, os.path.join(d, "psi_mp_float_reference.csv"))
    gen_mp_law(os.path.join(d, "mp_law_reference.csv"))
    gen_top_r(os.path.join(d, "psi_top_r_reference.csv"))
    gen_truncated(os.path.join(d, "truncated_normal_reference.csv"))
    gen_vector(os.path.join(d, "psi_vector_reference.csv"))
    gen_psi_extreme(os.path.join(d, "psi_extreme_reference.csv"))


if __name__ == "__main__":
    main()
