// A downstream project using nsc through CMake (find_package or add_subdirectory): the targets
// nsc::nsc and nsc::eigen give the include paths of nsc and of Eigen. Nothing here instantiates
// Eigen's decompositions (Eigen::BDCSVD alone costs ~40 CPU-s of g++ per translation unit, twice
// per CI run); psi_w itself is tested by tests/test_eigen_backend*.cpp.
#include <nsc/nsc.hpp>
#include <nsc/spectral/eigen_backend.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

int main() {
  const double psi = nsc::psi_mp(2000, 2000, 2.0 / 4000);
  const Eigen::MatrixXd w = Eigen::MatrixXd::Identity(3, 4);
  const double trace = (w * w.transpose()).trace(); // Eigen's headers through nsc::eigen
  const double tol = nsc::psi_w_gram_tolerance<double>(); // eps^(2/3)
  std::printf("psi_mp(2000, 2000, Xavier) = %.12g, tr(W W^T) = %g, gram tolerance %.3g\n", psi,
              trace, tol);
  return std::abs(psi - 1160.9152777382) < 1e-9 && trace == 3 &&
                 std::abs(tol - std::cbrt(2.220446049250313e-16) * std::cbrt(2.220446049250313e-16)) < 1e-20
             ? 0
             : 1;
}
