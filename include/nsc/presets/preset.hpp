/// \file nsc/presets/preset.hpp
/// What every preset returns: a network with the scoring convention under which it reproduces
/// the paper's reference number, plus the two reference scorings (psi_.02 and psi_X).
#ifndef NSC_PRESETS_PRESET_HPP
#define NSC_PRESETS_PRESET_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/psi.hpp>

#include <string_view>

namespace nsc::presets {

/// A network together with the scoring convention under which `::nsc::score(net, rule).nsc`
/// is the family's reference number. What `::nsc::count(net)` means is documented by each
/// preset function (a search's own parameter count, a tabular benchmark's, or just the scored
/// matrices of a scoring skeleton).
struct preset {
  network net;
  scoring rule;
  /// ::nsc::score(net, rule): NSC with its per-layer and per-part breakdowns.
  network_score evaluate(psi_cache* cache = nullptr) const {
    return ::nsc::score(net, rule, cache);
  }
  /// ::nsc::score(net, rule).nsc
  double nsc_score(psi_cache* cache = nullptr) const { return evaluate(cache).nsc; }
  /// ::nsc::count(net)
  resources cost() const { return ::nsc::count(net); }
};

/// The reference's psi_.02-style scoring: i.i.d. N(0, std_dev^2) entries, psi_MP, no
/// truncation correction (reference-conventions.md).
inline scoring normal_scoring(double std_dev) {
  scoring s;
  s.initialisation = init::normal(std_dev);
  return s;
}

/// The reference's psi_X scoring: Xavier-normal variance 2 / (rows + cols) of each scored
/// block itself, psi_MP (this is `scoring{}`).
inline scoring xavier_block_scoring() { return scoring{}; }

/// psi_MP of an m x n matrix with N(0, std_dev^2) entries (psi_.02 for std_dev = 0.02).
inline double psi_normal(double m, double n, double std_dev) {
  return ::nsc::psi(m, n, init::normal(std_dev));
}

/// psi_X(m, n): psi_MP of an m x n matrix with Xavier-normal variance 2 / (m + n).
inline double psi_xavier(double m, double n) { return ::nsc::psi(m, n, init::xavier_normal()); }

namespace detail {
/// Throws std::invalid_argument("<fn>: <rule> (got <value>)") unless `ok`.
template <class T>
void require(bool ok, std::string_view fn, std::string_view rule, const T& value) {
  if (!ok) ::nsc::throw_invalid_argument(fn, rule, value);
}
} // namespace detail

} // namespace nsc::presets
#endif // NSC_PRESETS_PRESET_HPP
