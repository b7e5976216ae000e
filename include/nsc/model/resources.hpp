/// \file nsc/model/resources.hpp
/// #Params and #MACs/#FLOPs of a network, additive over layers (so NSC-DP can budget them).
///
/// Parameter classes: weight matrices, biases, norms, other (position tables, cls tokens,
/// relative-position biases...). "Embedding" parameters are those of layers flagged
/// `embedding` plus weights of part::embedding and part::head (token/position embeddings and
/// an untied LM head); non_embedding() excludes them (the Kaplan et al. convention). Tied
/// weights (`counted = false`) add MACs but no parameters. MoE: active() counts each
/// weight's active fraction (top-k of the experts) of its parameters.
/// MACs are per token for Transformers (per image for CNNs): each weight contributes
/// active_fraction * params * applications, plus the layer's extra_macs (attention score and
/// value products, 2 T n_heads d_head per token at sequence length T). FLOPs = 2 MACs.
/// Multiplicity: count(layer) is ONE layer of the entry; count(network) adds repeat x each
/// entry (times(): integers checked, overflow a std::domain_error naming the field and both
/// operands, e.g. "nsc::count: weight parameters overflows the signed 64-bit range
/// (202383360 * 1000000000000)").
#ifndef NSC_MODEL_RESOURCES_HPP
#define NSC_MODEL_RESOURCES_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/model/network.hpp>

#include <cmath>
#include <cstdint>

namespace nsc {

struct resources {
  std::int64_t weights = 0;   ///< weight-matrix parameters
  std::int64_t biases = 0;
  std::int64_t norms = 0;
  std::int64_t other = 0;
  std::int64_t embedding = 0; ///< part of the above that is embedding / LM head
  double inactive = 0;        ///< parameters of MoE experts not used per token
  double macs = 0;            ///< multiply-accumulates per token or image

  /// All parameters (checked: std::domain_error "nsc::count: params_total overflows ...").
  std::int64_t total() const {
    using detail::checked_add;
    constexpr std::string_view fn = "nsc::count", q = "params_total";
    return checked_add(checked_add(checked_add(weights, biases, fn, q), norms, fn, q), other, fn, q);
  }
  std::int64_t non_embedding() const { return total() - embedding; }
  /// Parameters used per token (MoE: top-k experts); equals total() for dense models.
  std::int64_t active() const { return total() - std::llround(inactive); }
  /// total() without biases and norms.
  std::int64_t without_biases_and_norms() const {
    return detail::checked_add(weights, other, "nsc::count", "params without biases and norms");
  }
  double flops() const { return 2 * macs; }

  /// Adds r field by field (integer fields checked: std::domain_error naming the field).
  resources& operator+=(const resources& r) {
    using detail::checked_add;
    constexpr std::string_view fn = "nsc::count";
    weights = checked_add(weights, r.weights, fn, "weight parameters");
    biases = checked_add(biases, r.biases, fn, "bias parameters");
    norms = checked_add(norms, r.norms, fn, "norm parameters");
    other = checked_add(other, r.other, fn, "other parameters");
    embedding = checked_add(embedding, r.embedding, fn, "embedding parameters");
    inactive += r.inactive;
    macs += r.macs;
    return *this;
  }
};

/// r added n times (n >= 0): every integer field multiplied with checked arithmetic
/// (std::domain_error "nsc::count: <field> overflows the signed 64-bit range (<value> * <n>)"),
/// inactive and macs multiplied in double.
inline resources times(const resources& r, std::int64_t n) {
  using detail::checked_mul;
  constexpr std::string_view fn = "nsc::count";
  resources o;
  o.weights = checked_mul(r.weights, n, fn, "weight parameters");
  o.biases = checked_mul(r.biases, n, fn, "bias parameters");
  o.norms = checked_mul(r.norms, n, fn, "norm parameters");
  o.other = checked_mul(r.other, n, fn, "other parameters");
  o.embedding = checked_mul(r.embedding, n, fn, "embedding parameters");
  o.inactive = r.inactive * double(n);
  o.macs = r.macs * double(n);
  return o;
}

/// Resources of one weight.
inline resources count(const weight& w) {
  resources r;
  if (w.counted) {
    r.weights = w.weight_params();
    r.biases = w.bias_params();
    const std::int64_t all = detail::checked_add(r.weights, r.biases, "nsc::count", "parameters of a weight");
    // Integral top-k: the inactive experts' parameters exactly; else the fraction.
    if (w.active_copies >= 0 && w.active_copies == std::floor(w.active_copies))
      r.inactive = double(w.copies - std::int64_t(w.active_copies)) * double(all / w.copies);
    else
      r.inactive = (1 - w.active_fraction()) * double(all);
    if (w.kind == part::embedding || w.kind == part::head) r.embedding = all;
  }
  r.macs = w.macs();
  return r;
}

/// Resources of one layer (of ONE layer of the entry: repeat is not multiplied in).
inline resources count(const layer& l) {
  resources r;
  for (const weight& w : l.weights) r += count(w);
  r.norms = detail::checked_add(r.norms, l.norm_params, "nsc::count", "norm parameters");
  r.other = detail::checked_add(r.other, l.other_params, "nsc::count", "other parameters");
  r.macs += l.extra_macs;
  if (l.embedding) r.embedding = r.total();
  return r;
}

/// Resources of a network: the sum over entries of repeat x count(entry) (runs up to
/// repeat_sum_max layers added layer by layer, bitwise equal to the expanded network; validated first:
/// std::invalid_argument on a malformed network; std::domain_error on overflow).
inline resources count(const network& net) {
  validate(net);
  resources r;
  for (const layer& l : net.layers) {
    const resources one = count(l);
    if (l.repeat <= repeat_sum_max) // layer by layer: bitwise what the expanded network gives
      for (std::int64_t k = 0; k < l.repeat; ++k) r += one;
    else
      r += times(one, l.repeat);
  }
  return r;
}

} // namespace nsc

#endif // NSC_MODEL_RESOURCES_HPP
