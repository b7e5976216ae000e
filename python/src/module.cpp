// nsc._core: the native half of the Python package nsc (the pure-Python layer is python/nsc/).
//
//   run(args)                    the `nsc` CLI in-process (run.hpp): (exit code, stdout, stderr)
//   psi_mp / psi_fs / psi        the closed forms over numpy arrays of shapes (broadcast)
//   psi_w(W, ...)                psi_W of a 2-D array (psi_w.cpp), the GIL released
//   solve(groups, budget, ...)   the exact K-budget multiple-choice knapsack (solve_mmck, k_best)
//
// Errors: the library's std::invalid_argument / std::domain_error become ValueError (pybind11's
// translation), with the library's message naming the function and the rule broken.
#include "run.hpp"

#include <nsc/config.hpp>
#include <nsc/search/k_best.hpp>
#include <nsc/search/multi_knapsack.hpp>
#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/init.hpp>
#include <nsc/spectral/psi.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace nsc_py {
void bind_psi_w(py::module_& m); // psi_w.cpp
}

namespace {

using real_array = py::array_t<double, py::array::forcecast>;

/// `obj` as an array of doubles (no copy when it already is one); ValueError naming the
/// function and the argument when numpy cannot convert it.
real_array real_arg(const py::object& obj, const char* function, const char* name) {
  auto a = real_array::ensure(obj);
  if (!a)
    throw std::invalid_argument(std::string(function) + ": " + name +
                                " must be a real number or an array of real numbers (got " +
                                std::string(py::str(py::type::of(obj).attr("__name__"))) + ")");
  return a;
}

/// The initialisation named as in `nsc psi --init` (same defaults: gain 1, sqrt(2) for
/// kaiming_*, std 0.02, truncation (-2, 2) in units of std).
nsc::init make_init(const std::string& name, std::optional<double> gain, const std::string& mode,
                    double std_dev, std::pair<double, double> trunc) {
  const nsc::init_kind kind = nsc::parse_init_kind(name);
  if (mode != "fan_in" && mode != "fan_out")
    throw std::invalid_argument("nsc.psi: mode must be fan_in or fan_out (got " + mode + ")");
  const nsc::fan_mode fm = mode == "fan_out" ? nsc::fan_mode::fan_out : nsc::fan_mode::fan_in;
  switch (kind) {
  case nsc::init_kind::xavier_normal: return nsc::init::xavier_normal(gain.value_or(1.0));
  case nsc::init_kind::xavier_uniform: return nsc::init::xavier_uniform(gain.value_or(1.0));
  case nsc::init_kind::kaiming_normal: return nsc::init::kaiming_normal(gain.value_or(std::sqrt(2.0)), fm);
  case nsc::init_kind::kaiming_uniform: return nsc::init::kaiming_uniform(gain.value_or(std::sqrt(2.0)), fm);
  case nsc::init_kind::torch_default: return nsc::init::torch_default();
  case nsc::init_kind::normal: return nsc::init::normal(std_dev);
  case nsc::init_kind::truncated_normal: return nsc::init::truncated_normal(std_dev, trunc.first, trunc.second);
  case nsc::init_kind::orthogonal: return nsc::init::orthogonal(gain.value_or(1.0));
  }
  throw std::invalid_argument("nsc.psi: unknown initialisation " + name);
}

/// Calls a py::vectorize'd function; pybind11's own "incompatible size/dimension" failure (a
/// std::runtime_error) becomes a ValueError naming the nsc function.
template <class F>
py::object broadcast_call(const char* function, F&& f) {
  try {
    return f();
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("pybind11::vectorize", 0) == 0)
      throw std::invalid_argument(std::string(function) +
                                  ": the arguments' shapes do not broadcast together (numpy rules)");
    throw;
  }
}

py::object psi_mp_array(const py::object& rows, const py::object& cols, const py::object& variance) {
  auto f = py::vectorize([](double m, double n, double v) { return nsc::psi_mp(m, n, v); });
  return broadcast_call("nsc.psi_mp", [&] {
    return f(real_arg(rows, "nsc.psi_mp", "rows"), real_arg(cols, "nsc.psi_mp", "cols"),
             real_arg(variance, "nsc.psi_mp", "variance"));
  });
}

py::object psi_fs_array(const py::object& rows, const py::object& cols, const py::object& variance,
                        const py::object& kurtosis) {
  auto f = py::vectorize([](double m, double n, double v, double k) { return nsc::psi_fs(m, n, v, k); });
  return broadcast_call("nsc.psi_fs", [&] {
    return f(real_arg(rows, "nsc.psi_fs", "rows"), real_arg(cols, "nsc.psi_fs", "cols"),
             real_arg(variance, "nsc.psi_fs", "variance"), real_arg(kurtosis, "nsc.psi_fs", "kurtosis_excess"));
  });
}

py::object psi_array(const py::object& rows, const py::object& cols, const std::string& init_name,
                     const std::string& est_name, std::optional<double> gain, const std::string& mode,
                     double std_dev, std::pair<double, double> trunc) {
  const nsc::init ini = make_init(init_name, gain, mode, std_dev, trunc);
  const nsc::estimator est = nsc::parse_estimator(est_name);
  auto f = py::vectorize([&ini, est](double m, double n) {
    return nsc::psi(m, n, ini, nsc::linear_fans(m, n), est, nsc::default_policy());
  });
  return broadcast_call("nsc.psi", [&] { return f(real_arg(rows, "nsc.psi", "rows"), real_arg(cols, "nsc.psi", "cols")); });
}

/// Moments of the entry law (`nsc psi`'s variance and kurtosis_excess) for one shape.
py::dict init_moments(double rows, double cols, const std::string& init_name, std::optional<double> gain,
                      const std::string& mode, double std_dev, std::pair<double, double> trunc) {
  const nsc::init ini = make_init(init_name, gain, mode, std_dev, trunc);
  const auto m = nsc::moments(ini, nsc::linear_fans(rows, cols));
  py::dict d;
  d["variance"] = m.orthogonal ? m.gain * m.gain / std::max(rows, cols) : m.variance;
  d["kurtosis_excess"] = m.orthogonal ? py::object(py::none()) : py::object(py::float_(m.kurtosis_excess));
  d["orthogonal"] = m.orthogonal;
  return d;
}

using groups_t = nsc::search::mmck_groups<double>;

/// groups: a list of (values, costs) with values a 1-D float64 array of n options and costs an
/// (n, K) int64 array (the Python layer normalises every accepted input to this).
groups_t to_groups(const py::list& groups, std::size_t K) {
  groups_t g;
  g.reserve(groups.size());
  std::size_t gi = 0;
  for (const py::handle item : groups) {
    const auto pair = item.cast<py::tuple>();
    if (pair.size() != 2) throw std::invalid_argument("nsc.solve: group " + std::to_string(gi) + " must be (values, costs)");
    const auto v = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(pair[0]);
    const auto c = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(pair[1]);
    if (!v || !c || v.ndim() != 1 || c.ndim() != 2 || c.shape(0) != v.shape(0) || std::size_t(c.shape(1)) != K)
      throw std::invalid_argument("nsc.solve: group " + std::to_string(gi) +
                                  " needs values of shape (n,) and costs of shape (n, " + std::to_string(K) + ")");
    std::vector<nsc::search::mmck_option<double>> opts(std::size_t(v.shape(0)));
    for (py::ssize_t j = 0; j < v.shape(0); ++j) {
      opts[std::size_t(j)].value = v.at(j);
      opts[std::size_t(j)].cost.assign(c.data(j, 0), c.data(j, 0) + K);
    }
    g.push_back(std::move(opts));
    ++gi;
  }
  return g;
}

nsc::search::mmck_method parse_method(const std::string& m) {
  if (m == "auto" || m == "automatic") return nsc::search::mmck_method::automatic;
  if (m == "dense") return nsc::search::mmck_method::dense;
  if (m == "sparse") return nsc::search::mmck_method::sparse;
  if (m == "lattice") return nsc::search::mmck_method::lattice;
  throw std::invalid_argument("nsc.solve: method must be auto, dense, sparse or lattice (got " + m + ")");
}

py::dict solve(const py::list& groups, const std::vector<std::int64_t>& budget, bool front, std::size_t k,
               std::size_t min_distance, const std::string& method, std::size_t max_table_bytes,
               std::size_t max_enumerated) {
  const groups_t g = to_groups(groups, budget.size());
  nsc::search::mmck_settings s;
  s.method = parse_method(method);
  s.max_table_bytes = max_table_bytes;
  s.single_budget = !front;
  std::optional<nsc::search::mmck_result<double>> r;
  std::vector<nsc::search::k_best_selection<double>> top;
  {
    py::gil_scoped_release unlocked;
    r = nsc::search::solve_mmck(g, budget, s);
    if (k > 0 && r->status(budget) == nsc::search::mck_status::optimal) {
      nsc::search::k_best_settings ks;
      ks.k = k;
      ks.min_distance = min_distance;
      ks.positions = true;  // nsc.solve's top: positional selections (as documented; the CLI lists multisets)
      ks.max_enumerated = max_enumerated;
      ks.mmck.max_table_bytes = max_table_bytes;
      top = nsc::search::k_best(g, budget, ks);
    }
  }
  py::dict d;
  const bool ok = r->status(budget) == nsc::search::mck_status::optimal;
  d["status"] = ok ? "optimal" : "infeasible";
  d["budget"] = budget;
  d["solver"] = r->info().describe();
  if (ok) {
    d["value"] = *r->best(budget);
    d["cost"] = *r->best_cost(budget);
    d["choice"] = *r->choice(budget);
  }
  if (front) {
    py::list pts;
    const auto& f = r->front();
    for (std::size_t i = 0; i < f.size(); ++i) {
      py::dict p;
      p["value"] = f[i].value;
      p["cost"] = f[i].cost;
      p["choice"] = r->front_choice(i);
      pts.append(p);
    }
    d["front"] = pts;
  }
  if (k > 0) {
    py::list t;
    for (const auto& sel : top) {
      py::dict p;
      p["value"] = sel.value;
      p["cost"] = sel.cost;
      p["choice"] = sel.choice;
      t.append(p);
    }
    d["top"] = t;
  }
  return d;
}

py::tuple run_cli(const std::vector<std::string>& args) {
  std::string out, err;
  const int code = nsc_cli::run_captured(args, out, err);
  return py::make_tuple(code, py::bytes(out), py::bytes(err));
}

/// The CLI on the process's own stdout / stderr (the `nsc` console script of a pip install).
int main_cli(const std::vector<std::string>& args) {
  std::vector<std::string> storage{"nsc"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  return nsc_cli::run(static_cast<int>(storage.size()), argv.data());
}

} // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "nsc._core: native bindings of nsc (use the package nsc)";
  m.attr("__version__") = NSC_VERSION_STRING;
  m.def("run", &run_cli, py::arg("args"),
        "Runs the nsc CLI in-process: (exit code, stdout bytes, stderr bytes).");
  m.def("main", &main_cli, py::arg("args"), "Runs the nsc CLI on this process's stdout / stderr; the exit code.");
  m.def("psi_mp", &psi_mp_array, py::arg("rows"), py::arg("cols"), py::arg("variance"));
  // One shape as Python floats: no array conversion (the per-call path of nsc.psi_mp / psi_fs).
  m.def("psi_mp_scalar", [](double r, double c, double v) { return nsc::psi_mp(r, c, v); });
  m.def("psi_fs_scalar", [](double r, double c, double v, double k) { return nsc::psi_fs(r, c, v, k); });
  m.def("psi_fs", &psi_fs_array, py::arg("rows"), py::arg("cols"), py::arg("variance"), py::arg("kurtosis_excess"));
  m.def("psi", &psi_array, py::arg("rows"), py::arg("cols"), py::arg("init"), py::arg("estimator"),
        py::arg("gain"), py::arg("mode"), py::arg("std"), py::arg("trunc"));
  m.def("init_moments", &init_moments, py::arg("rows"), py::arg("cols"), py::arg("init"), py::arg("gain"),
        py::arg("mode"), py::arg("std"), py::arg("trunc"));
  m.def("solve", &solve, py::arg("groups"), py::arg("budget"), py::arg("front"), py::arg("k"),
        py::arg("min_distance"), py::arg("method"), py::arg("max_table_bytes"), py::arg("max_enumerated"));
  nsc_py::bind_psi_w(m);
}
