// Shared helpers of the tests of nsc/spectral/eigen_backend.hpp (split over three translation
// units so the heavy Eigen instantiations compile in parallel): known-spectrum matrices, the
// long-double reference psi, and the JacobiSVD gradient.
#ifndef NSC_TESTS_SUPPORT_EIGEN_TEST_HELPERS_HPP
#define NSC_TESTS_SUPPORT_EIGEN_TEST_HELPERS_HPP

#include <nsc/spectral/eigen_backend.hpp>
#include <nsc/spectral/finite_size.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>
#include <nsc/spectral/psi.hpp>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using Catch::Contains;
using nsc::entry_distribution;
using nsc::init;
using nsc::psi_w_method;

namespace eigen_test {

template <class Scalar>
using matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <class Real>
using vector = Eigen::Matrix<Real, Eigen::Dynamic, 1>;

inline bool verbose() {
  static const bool v = std::getenv("NSC_VERBOSE") != nullptr;
  return v;
}

// A Gaussian matrix (the test's own draws, independent of random_weight).
template <class Scalar>
matrix<Scalar> gaussian(Eigen::Index rows, Eigen::Index cols, boost::random::mt19937_64& rng) {
  boost::random::normal_distribution<double> d;
  matrix<Scalar> g(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) {
      if constexpr (Eigen::NumTraits<Scalar>::IsComplex) {
        const double re = d(rng), im = d(rng);
        g(i, j) = Scalar(static_cast<typename Scalar::value_type>(re),
                         static_cast<typename Scalar::value_type>(im));
      } else {
        g(i, j) = static_cast<Scalar>(d(rng));
      }
    }
  return g;
}

// n x k with orthonormal columns (k <= n).
template <class Scalar>
matrix<Scalar> orthonormal_columns(Eigen::Index n, Eigen::Index k, boost::random::mt19937_64& rng) {
  const Eigen::HouseholderQR<matrix<Scalar>> qr(gaussian<Scalar>(n, k, rng));
  return qr.householderQ() * matrix<Scalar>::Identity(n, k);
}

// m x n matrix with singular values s (size min(m, n)).
template <class Scalar, class Real>
matrix<Scalar> with_spectrum(Eigen::Index m, Eigen::Index n, const vector<Real>& s,
                             boost::random::mt19937_64& rng) {
  const Eigen::Index p = s.size();
  const matrix<Scalar> u = orthonormal_columns<Scalar>(m, p, rng);
  const matrix<Scalar> v = orthonormal_columns<Scalar>(n, p, rng);
  return u * s.template cast<Scalar>().asDiagonal() * v.adjoint();
}

template <class Real>
long double exact_psi(const vector<Real>& s, Eigen::Index r = -1) {
  std::vector<long double> v(s.data(), s.data() + s.size());
  std::sort(v.begin(), v.end(), [](long double a, long double b) { return a > b; });
  if (r < 0 || r > static_cast<Eigen::Index>(v.size())) r = static_cast<Eigen::Index>(v.size());
  long double sum = 0;
  for (Eigen::Index i = 0; i < r; ++i) sum += std::log1p(v[static_cast<std::size_t>(i)] * v[static_cast<std::size_t>(i)]);
  return sum;
}

// Singular values spread over [lo, hi] geometrically.
template <class Real>
vector<Real> geometric_spectrum(Eigen::Index p, double lo, double hi) {
  vector<Real> s(p);
  for (Eigen::Index i = 0; i < p; ++i)
    s(i) = static_cast<Real>(p == 1 ? hi : lo * std::pow(hi / lo, double(i) / double(p - 1)));
  return s;
}

inline double rel(long double got, long double want) {
  return static_cast<double>(std::fabs((got - want) / want));
}

// The SVD formula U diag(2 s / (1 + s^2)) V^T by JacobiSVD (independent of the library's route).
inline matrix<double> gradient_by_jacobi(const matrix<double>& w) {
  const Eigen::JacobiSVD<matrix<double>> svd(w, Eigen::ComputeThinU | Eigen::ComputeThinV);
  vector<double> g = svd.singularValues();
  for (Eigen::Index i = 0; i < g.size(); ++i) g(i) = 2 * g(i) / (1 + g(i) * g(i));
  return svd.matrixU() * g.asDiagonal() * svd.matrixV().transpose();
}

} // namespace eigen_test

using namespace eigen_test;

#endif
