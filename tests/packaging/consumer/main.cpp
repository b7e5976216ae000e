// A downstream project using nsc through CMake (find_package or add_subdirectory).
#include <nsc/nsc.hpp>
#include <nsc/spectral/eigen_backend.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

int main() {
  const double psi = nsc::psi_mp(2000, 2000, 2.0 / 4000);
  Eigen::MatrixXd w = Eigen::MatrixXd::Identity(3, 4);
  const double psi_w = nsc::psi_w(w); // three singular values of 1: 3 ln 2
  std::printf("psi_mp(2000, 2000, Xavier) = %.12g, psi_w(I_3x4) = %.12g\n", psi, psi_w);
  return std::abs(psi - 1160.9152777382) < 1e-9 && std::abs(psi_w - 3 * std::log(2.0)) < 1e-12 ? 0 : 1;
}
