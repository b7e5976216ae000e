// nsc._core.psi_w: psi_W of a 2-D array by the Eigen backend (nsc/spectral/eigen_backend.hpp),
// in double (a float16 / float32 array is converted first, as nsc weights converts a
// checkpoint's tensors), the GIL released during the decomposition. Its own translation unit:
// the Eigen solvers are the costliest code of the module to compile.
#include <nsc/spectral/eigen_backend.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace nsc_py {

namespace {

nsc::psi_w_method parse_psi_w_method(const std::string& m) {
  if (m == "auto" || m == "automatic") return nsc::psi_w_method::automatic;
  if (m == "cholesky") return nsc::psi_w_method::cholesky;
  if (m == "gram") return nsc::psi_w_method::gram;
  if (m == "svd") return nsc::psi_w_method::svd;
  throw std::invalid_argument("nsc.psi_w: method must be auto, cholesky, gram or svd (got " + m + ")");
}

using row_major_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// psi_W of every block of W (rows x cols, C order): `heads` blocks of rows (axis 0) or of
/// columns (axis 1), each psi_W(block), in block order; heads = 1: the whole matrix.
py::tuple psi_w_blocks(const py::object& W_obj, const std::string& method, std::int64_t heads, int axis) {
  const auto W = row_major_array::ensure(W_obj);
  if (!W) throw std::invalid_argument("nsc.psi_w: W must be a real numeric 2-D array");
  if (W.ndim() != 2)
    throw std::invalid_argument("nsc.psi_w: W must be 2-D (got " + std::to_string(W.ndim()) + " dimensions)");
  if (axis != 0 && axis != 1)
    throw std::invalid_argument("nsc.psi_w: axis must be 0 (blocks of rows) or 1 (blocks of columns) (got " +
                                std::to_string(axis) + ")");
  const std::int64_t rows = W.shape(0), cols = W.shape(1);
  const std::int64_t split = axis == 0 ? rows : cols;
  if (heads < 1 || (split > 0 && split % heads != 0) || (split == 0 && heads != 1))
    throw std::invalid_argument("nsc.psi_w: heads must be >= 1 and divide the " +
                                std::string(axis == 0 ? "rows" : "columns") + " (" + std::to_string(split) +
                                ") (got " + std::to_string(heads) + ")");
  const nsc::psi_w_method m = parse_psi_w_method(method);
  std::vector<double> values(static_cast<std::size_t>(heads));
  std::vector<std::string> used(static_cast<std::size_t>(heads));
  {
    py::gil_scoped_release unlocked;
    // C-order rows x cols = column-major cols x rows, i.e. W^T; psi_W(W^T) = psi_W(W).
    const Eigen::Map<const Eigen::MatrixXd> Wt(W.data(), Eigen::Index(cols), Eigen::Index(rows));
    const std::int64_t b = split / heads;
    for (std::int64_t h = 0; h < heads; ++h) {
      nsc::psi_w_details<double> d{};
      if (heads == 1)
        d = nsc::psi_w_detailed(Wt, m);
      else if (axis == 0)
        d = nsc::psi_w_detailed(Wt.middleCols(Eigen::Index(h * b), Eigen::Index(b)), m);
      else
        d = nsc::psi_w_detailed(Wt.middleRows(Eigen::Index(h * b), Eigen::Index(b)), m);
      values[std::size_t(h)] = d.value;
      used[std::size_t(h)] = std::string(nsc::to_string(d.used));
    }
  }
  py::array_t<double> out(static_cast<py::ssize_t>(heads));
  for (std::int64_t h = 0; h < heads; ++h) out.mutable_at(h) = values[std::size_t(h)];
  py::list methods;
  for (const auto& u : used) methods.append(u);
  return py::make_tuple(out, methods);
}

} // namespace

void bind_psi_w(py::module_& m) {
  m.def("psi_w", &psi_w_blocks, py::arg("W"), py::arg("method"), py::arg("heads"), py::arg("axis"),
        "psi_W of each of `heads` blocks of W along `axis`: (values, methods used).");
}

} // namespace nsc_py
