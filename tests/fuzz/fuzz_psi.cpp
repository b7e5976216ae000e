// libFuzzer harness for the public numeric API (nsc/spectral/psi.hpp): psi_mp, psi_fs and
// psi(rows, cols, init, fans, estimator) on fuzzed doubles, read as raw IEEE bit patterns (so
// NaN, inf, subnormals, negatives and huge values all occur).
//
// Contract checked (a violation aborts, which libFuzzer reports as a finding):
//  * every call returns a finite value >= 0 or throws std::domain_error; any other exception
//    type, NaN, inf or a negative psi is a bug;
//  * for valid arguments (finite, >= 0; kappa finite >= -2) a domain error is only allowed where
//    the result is genuinely not representable (min(m, n) >= 1e300: psi <= p ln(1 + 4 v q)) or,
//    for psi_fs, where the documented validity bound on kappa applies (only for kappa > 0, or
//    for fractional shapes max(m, n) < 1, where the O(1) correction is not small against
//    psi_MP = O(p));
//  * psi_fs in [0, 2 psi_mp] (the bound it enforces), psi_mp symmetric in (m, n) and
//    non-decreasing in v (relative slack 1e-13).
// psi_mp_top_r is left out: its quadrature costs ~20 ms per call, which would cut the rate
// from ~7000 to ~50 executions per second (its edge cases are unit-tested instead).
#include <nsc/spectral/psi.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace {

struct bytes {
  const std::uint8_t* data;
  std::size_t size;
  double next_double() {
    std::uint64_t bits = 0;
    const std::size_t n = size < 8 ? size : 8;
    std::memcpy(&bits, data, n);
    data += n;
    size -= n;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::uint8_t next_byte() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
};

[[noreturn]] void finding(const char* what, double a, double b, double c, double d,
                          const std::string& detail = "") {
  std::fprintf(stderr, "fuzz_psi finding: %s at (%.17g, %.17g, %.17g, %.17g) %s\n", what, a, b, c,
               d, detail.c_str());
  std::abort();
}

bool valid_shape(double m, double n, double v) {
  return std::isfinite(m) && m >= 0 && std::isfinite(n) && n >= 0 && std::isfinite(v) && v >= 0;
}

/// Calls f; returns true with `out` set on success, false on std::domain_error; aborts on any
/// other exception or on a non-finite / negative result.
template <class F>
bool call(F f, double& out, std::string& message, const char* what, double a, double b, double c,
          double d) {
  try {
    out = f();
  } catch (const std::domain_error& e) {
    message = e.what();
    return false;
  } catch (const std::exception& e) {
    finding(what, a, b, c, d, std::string("unexpected exception: ") + e.what());
  }
  if (!std::isfinite(out) || out < 0) finding(what, a, b, c, d, "result " + std::to_string(out));
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bytes in{data, size};
  const double m = in.next_double(), n = in.next_double(), v = in.next_double(),
               k = in.next_double();
  const std::uint8_t sel = in.next_byte();
  const double p = std::fmin(m, n);
  std::string msg;

  double mp = 0;
  const bool mp_ok = call([&] { return nsc::psi_mp(m, n, v); }, mp, msg, "psi_mp", m, n, v, k);
  if (valid_shape(m, n, v) && !mp_ok && !(p >= 1e300)) finding("psi_mp domain error", m, n, v, k, msg);
  if (mp_ok) {
    double sym = 0;
    if (!call([&] { return nsc::psi_mp(n, m, v); }, sym, msg, "psi_mp swapped", m, n, v, k) || sym != mp)
      finding("psi_mp not symmetric", m, n, v, k);
    double up = 0;
    if (std::isfinite(2 * v) &&
        call([&] { return nsc::psi_mp(m, n, 2 * v); }, up, msg, "psi_mp 2v", m, n, v, k) &&
        up < mp * (1 - 1e-13))
      finding("psi_mp decreasing in v", m, n, v, k, std::to_string(up) + " < " + std::to_string(mp));
  }

  double fs = 0;
  const bool fs_ok = call([&] { return nsc::psi_fs(m, n, v, k); }, fs, msg, "psi_fs", m, n, v, k);
  if (valid_shape(m, n, v) && std::isfinite(k) && k >= -2 && !fs_ok && !(p >= 1e300) &&
      !((k > 0 || std::fmax(m, n) < 1) && msg.find("exceeds psi_MP") != std::string::npos))
    finding("psi_fs domain error", m, n, v, k, msg);
  if (fs_ok && mp_ok && fs > 2 * mp * (1 + 1e-13) + 1e-300) finding("psi_fs > 2 psi_mp", m, n, v, k);

  // psi(rows, cols, init, fans, estimator): the init's parameter is the fourth double
  // (gain or std), the truncation bounds come from two more.
  const double a = in.next_double(), b = in.next_double();

  nsc::init ini = nsc::init::xavier_normal();
  switch (sel % 8) {
  case 0: ini = nsc::init::xavier_normal(k); break;
  case 1: ini = nsc::init::xavier_uniform(k); break;
  case 2: ini = nsc::init::kaiming_normal(k, sel & 8 ? nsc::fan_mode::fan_out : nsc::fan_mode::fan_in); break;
  case 3: ini = nsc::init::kaiming_uniform(k); break;
  case 4: ini = nsc::init::torch_default(); break;
  case 5: ini = nsc::init::normal(std::fabs(k)); break;
  case 6: ini = nsc::init::truncated_normal(std::fabs(k), a, b); break;
  default: ini = nsc::init::orthogonal(k); break;
  }
  const nsc::estimator est = sel & 16 ? nsc::estimator::fs : nsc::estimator::mp;
  double r = 0;
  try {
    r = nsc::psi(m, n, ini, nsc::linear_fans(m, n), est, nsc::default_policy());
  } catch (const std::domain_error&) {
    return 0;
  } catch (const std::invalid_argument&) { // a bad init specification (e.g. truncation a >= b)
    return 0;
  } catch (const std::exception& e) {
    finding("psi(init)", m, n, k, double(sel), std::string("unexpected exception: ") + e.what());
  }
  if (!std::isfinite(r) || r < 0) finding("psi(init) result", m, n, k, double(sel), std::to_string(r));
  return 0;
}
