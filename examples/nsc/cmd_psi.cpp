// nsc psi: psi of one weight matrix from its shape and initialisation.
//
//   nsc psi --rows R --cols C --init NAME [--gain G] [--mode fan_in|fan_out] [--std S]
//           [--trunc A,B] [--json] [--mc TRIALS [--seed S] [--dist normal|uniform]]
//
// rows = out features (fan_out), cols = in features (fan_in), as a PyTorch Linear(cols, rows).
#include "cli.hpp"
#include "eigen_calls.hpp" // --mc (the Eigen backend, compiled in cmd_weights.cpp)

#include <nsc/detail/checked.hpp>
#include <nsc/spectral/psi.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

namespace {

struct psi_args {
  std::int64_t rows = -1, cols = -1;
  std::string init_name;
  std::optional<double> gain;
  std::string mode = "fan_in";
  double std_dev = 0.02;
  std::vector<double> trunc{-2.0, 2.0};
  bool json = false;
  std::size_t mc_trials = 0;
  std::uint64_t seed = 1;
  std::string dist; // empty: as the initialisation draws (uniform for *_uniform, torch_default)
};

nsc::init make_init(const psi_args& a) {
  const nsc::init_kind kind = nsc::parse_init_kind(a.init_name);
  const nsc::fan_mode mode = a.mode == "fan_out" ? nsc::fan_mode::fan_out : nsc::fan_mode::fan_in;
  switch (kind) {
  case nsc::init_kind::xavier_normal: return nsc::init::xavier_normal(a.gain.value_or(1.0));
  case nsc::init_kind::xavier_uniform: return nsc::init::xavier_uniform(a.gain.value_or(1.0));
  case nsc::init_kind::kaiming_normal:
    return nsc::init::kaiming_normal(a.gain.value_or(std::sqrt(2.0)), mode);
  case nsc::init_kind::kaiming_uniform:
    return nsc::init::kaiming_uniform(a.gain.value_or(std::sqrt(2.0)), mode);
  case nsc::init_kind::torch_default: return nsc::init::torch_default();
  case nsc::init_kind::normal: return nsc::init::normal(a.std_dev);
  case nsc::init_kind::truncated_normal:
    return nsc::init::truncated_normal(a.std_dev, a.trunc[0], a.trunc[1]);
  case nsc::init_kind::orthogonal: return nsc::init::orthogonal(a.gain.value_or(1.0));
  }
  return nsc::init::xavier_normal();
}

/// Largest matrix --mc draws (2^24 entries = 128 MiB of doubles, e.g. 4096 x 4096).
constexpr std::int64_t mc_max_entries = std::int64_t(1) << 24;

int run_psi(const psi_args& a) {
  const nsc::init ini = make_init(a);
  const double rows = double(a.rows), cols = double(a.cols);
  const auto f = nsc::linear_fans(rows, cols);
  const double psi_mp = nsc::psi(rows, cols, ini, f, nsc::estimator::mp, nsc::default_policy());
  const double psi_fs = nsc::psi(rows, cols, ini, f, nsc::estimator::fs, nsc::default_policy());
  // A zero-size matrix has psi = 0 and no entry law (its fans may be 0).
  const bool empty = a.rows == 0 || a.cols == 0;
  const nsc::entry_moments<double> m =
      empty ? nsc::entry_moments<double>{0, 0} : nsc::moments(ini, f);
  // Orthogonal: not i.i.d.; report the mean squared entry g^2 / max(rows, cols).
  const double q = std::max(rows, cols);
  const double variance = m.orthogonal ? m.gain * m.gain / q : m.variance;
  const bool has_law = !empty;
  const bool has_kurtosis = has_law && !m.orthogonal;

  std::optional<nsc_cli::monte_carlo_summary> mc;
  std::string mc_dist;
  if (a.mc_trials > 0) {
    // Monte Carlo draws and decomposes a dense rows x cols matrix: refuse sizes that would not
    // fit in memory before allocating (rows * cols checked, never wrapped).
    const std::int64_t entries = nsc::detail::checked_mul<std::int64_t>(
        a.rows, a.cols, "nsc psi --mc", "rows * cols");
    if (entries > mc_max_entries)
      throw std::invalid_argument("nsc psi: --mc needs a dense rows x cols matrix; rows * cols = " +
                                  std::to_string(entries) + " exceeds the limit of " +
                                  std::to_string(mc_max_entries) + " entries (128 MiB of doubles)");
    mc = nsc_cli::psi_w_monte_carlo(a.rows, a.cols, ini, static_cast<std::int64_t>(a.mc_trials),
                                    a.seed, a.dist);
    mc_dist = a.dist.empty() ? "as the init draws" : a.dist;
  }

  if (a.json) {
    nlohmann::json j;
    j["rows"] = a.rows;
    j["cols"] = a.cols;
    j["init"] = a.init_name;
    j["psi_mp"] = psi_mp;
    j["psi_fs"] = psi_fs;
    j["variance"] = has_law ? nlohmann::json(variance) : nlohmann::json(nullptr);
    j["kurtosis_excess"] = has_kurtosis ? nlohmann::json(m.kurtosis_excess) : nlohmann::json(nullptr);
    if (mc) {
      j["psi_w_mean"] = mc->mean;
      j["psi_w_stderr"] = mc->standard_error;
      j["mc_trials"] = mc->trials;
      j["mc_seed"] = a.seed;
      j["mc_dist"] = a.dist.empty() ? std::string("from_init") : a.dist;
    }
    nsc_cli::print_json(j);
    return nsc_cli::exit_answer;
  }
  std::printf("matrix          %lld x %lld (out x in), init %s\n", static_cast<long long>(a.rows),
              static_cast<long long>(a.cols), a.init_name.c_str());
  std::printf("psi_mp          %.17g\n", psi_mp);
  std::printf("psi_fs          %.17g\n", psi_fs);
  if (!has_law)
    std::printf("variance        n/a (zero-size matrix)\n");
  else
    std::printf("variance        %.17g%s\n", variance, m.orthogonal ? "  (mean squared entry)" : "");
  if (has_kurtosis)
    std::printf("kurtosis_excess %.17g\n", m.kurtosis_excess);
  else
    std::printf("kurtosis_excess n/a (%s)\n",
                has_law ? "orthogonal: deterministic spectrum" : "zero-size matrix");
  if (mc)
    std::printf("psi_w (MC)      %.17g +- %.3g  (%zu trials, seed %llu, %s entries)\n", mc->mean,
                mc->standard_error, mc->trials, static_cast<unsigned long long>(a.seed),
                mc_dist.c_str());
  return nsc_cli::exit_answer;
}

// CLI11's NonNegativeNumber prints its range as a 300-digit double; say the rule instead.
const CLI::Validator non_negative_integer(
    [](std::string& s) -> std::string {
      try {
        std::size_t pos = 0;
        const long long v = std::stoll(s, &pos);
        if (pos == s.size() && v >= 0) return {};
      } catch (const std::exception&) {
      }
      return "must be an integer >= 0 (got " + s + ")";
    },
    "INT>=0");

const nsc_cli::command psi_command{"psi", [](CLI::App& app) -> std::function<int()> {
  auto args = std::make_shared<psi_args>();
  auto* sub = app.add_subcommand(
      "psi", "psi of one weight matrix (rows = out features = fan_out, cols = in features = "
             "fan_in) under an initialisation: psi_MP, psi_FS, entry variance and kurtosis");
  sub->add_option("--rows", args->rows, "out features (fan_out)")
      ->required()
      ->check(non_negative_integer);
  sub->add_option("--cols", args->cols, "in features (fan_in)")
      ->required()
      ->check(non_negative_integer);
  sub->add_option("--init", args->init_name,
                  "xavier_normal, xavier_uniform, kaiming_normal, kaiming_uniform, "
                  "torch_default, normal, truncated_normal, orthogonal")
      ->required()
      ->check(CLI::IsMember({"xavier_normal", "xavier_uniform", "kaiming_normal",
                             "kaiming_uniform", "torch_default", "normal", "truncated_normal",
                             "orthogonal"}));
  sub->add_option("--gain", args->gain,
                  "gain (default 1; sqrt(2) for kaiming_*, PyTorch's default)");
  sub->add_option("--mode", args->mode, "kaiming fan mode")
      ->check(CLI::IsMember({"fan_in", "fan_out"}))
      ->capture_default_str();
  sub->add_option("--std", args->std_dev, "std of normal / truncated_normal")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--trunc", args->trunc,
                  "truncated_normal bounds in units of std, as A,B (A < B)")
      ->delimiter(',')
      ->expected(2)
      ->capture_default_str();
  sub->add_flag("--json", args->json, "print one JSON object");
  auto* mc = sub->add_option("--mc", args->mc_trials,
                             "Monte Carlo trials of psi_W from random matrices (>= 2)")
                 ->check(CLI::Range(std::size_t(2), std::size_t(100000000)));
  sub->add_option("--seed", args->seed, "Monte Carlo seed")->needs(mc)->capture_default_str();
  sub->add_option("--dist", args->dist,
                  "Monte Carlo entry distribution (default: as the initialisation draws: "
                  "uniform for *_uniform and torch_default, truncated normal, Haar orthogonal, "
                  "normal otherwise)")
      ->needs(mc)
      ->check(CLI::IsMember({"normal", "uniform"}));
  return [args] { return run_psi(*args); };
}};

} // namespace
