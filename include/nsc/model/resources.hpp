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
#ifndef NSC_MODEL_RESOURCES_HPP
#define NSC_MODEL_RESOURCES_HPP

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

  std::int64_t total() const { return weights + biases + norms + other; }
  std::int64_t non_embedding() const { return total() - embedding; }
  /// Parameters used per token (MoE: top-k experts); equals total() for dense models.
  std::int64_t active() const { return total() - std::llround(inactive); }
  /// total() without biases and norms.
  std::int64_t without_biases_and_norms() const { return weights + other; }
  double flops() const { return 2 * macs; }

  resources& operator+=(const resources& r) {
    weights += r.weights;
    biases += r.biases;
    norms += r.norms;
    other += r.other;
    embedding += r.embedding;
    inactive += r.inactive;
    macs += r.macs;
    return *this;
  }
};

/// Resources of one weight.
inline resources count(const weight& w) {
  resources r;
  if (w.counted) {
    r.weights = w.weight_params();
    r.biases = w.bias_params();
    r.inactive = (1 - w.active_fraction()) * double(r.weights + r.biases);
    if (w.kind == part::embedding || w.kind == part::head) r.embedding = r.weights + r.biases;
  }
  r.macs = w.macs();
  return r;
}

/// Resources of one layer.
inline resources count(const layer& l) {
  resources r;
  for (const weight& w : l.weights) r += count(w);
  r.norms += l.norm_params;
  r.other += l.other_params;
  r.macs += l.extra_macs;
  if (l.embedding) r.embedding = r.total();
  return r;
}

/// Resources of a network (validated first: std::invalid_argument on a malformed network).
inline resources count(const network& net) {
  validate(net);
  resources r;
  for (const layer& l : net.layers) r += count(l);
  return r;
}

} // namespace nsc

#endif // NSC_MODEL_RESOURCES_HPP
