/// \file nsc/model/network.hpp
/// The value types every architecture lowers to: weights, layers, networks.
///
/// A `weight` is one weight tensor of the model, in PyTorch orientation (out, in): a Linear
/// (out, in), or a convolution (c_out, c_in / groups, k_h, k_w). It says how it is scored
/// (split into per-head blocks, one block per conv group, copies for experts), how it is
/// counted (parameters, biases, MACs per token or per image) and, optionally, its own
/// initialisation. A `layer` is an ordered group of weights plus the parameters that are not
/// weight matrices (norms, position tables, ...) and the multiply-accumulates that are not
/// matrix products (attention scores and values). A `network` is an ordered list of layers.
///
/// Everything here is plain data: builders (transformer.hpp, cnn.hpp), presets (presets/) and
/// user code fill it in; score.hpp and resources.hpp read it. NSC and every resource count are
/// sums over layers, which is what makes the knapsack search (search/) exact.
#ifndef NSC_MODEL_NETWORK_HPP
#define NSC_MODEL_NETWORK_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/spectral/init.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsc {

/// Which part of a network a weight belongs to (the per-kind breakdown of a score).
enum class part { attention, ffn, conv, embedding, head, router, other };

constexpr std::string_view to_string(part p) noexcept {
  switch (p) {
  case part::attention: return "attention";
  case part::ffn: return "ffn";
  case part::conv: return "conv";
  case part::embedding: return "embedding";
  case part::head: return "head";
  case part::router: return "router";
  case part::other: return "other";
  }
  return "?";
}

/// One weight tensor.
struct weight {
  std::string name;                   ///< e.g. "q_proj", "ffn.up", "conv_a"
  part kind = part::other;
  std::int64_t out = 0;               ///< out features / c_out
  std::int64_t in = 0;                ///< in features / c_in (before dividing by groups)
  std::int64_t kernel_h = 1;          ///< conv kernel (1 for Linear)
  std::int64_t kernel_w = 1;
  std::int64_t groups = 1;            ///< conv groups; each group is scored as its own matrix
  std::int64_t split_out = 1;         ///< score as split_out blocks along out (per-head Q/K/V)
  std::int64_t split_in = 1;          ///< ... and split_in blocks along in (per-head o_proj)
  std::int64_t copies = 1;            ///< identical independent copies (MoE experts)
  double active_copies = -1;          ///< copies used per token (MoE top-k); < 0 means all
  bool bias = false;                  ///< has a bias of size out (per copy)
  double applications = 1;            ///< uses per token (Linear) or output positions per image (conv)
  bool scored = true;                 ///< contributes to NSC
  bool counted = true;                ///< contributes to #Params (false: tied/shared weights)
  std::optional<basic_init<double>> initialisation; ///< overrides the scoring convention's init

  /// Rows and columns of one scored block: ((out / groups) / split_out, (in / groups) k_h k_w / split_in).
  double block_rows() const { return double(out / groups / split_out); }
  double block_cols() const { return double(in / groups * kernel_h * kernel_w / split_in); }
  /// Number of scored blocks: copies * groups * split_out * split_in.
  double blocks() const { return double(copies) * double(groups) * double(split_out) * double(split_in); }
  /// Parameters of one copy, without bias: out * (in / groups) * k_h * k_w (std::domain_error
  /// "nsc::weight: parameters of '<name>' overflows ..." beyond 2^63 - 1).
  std::int64_t copy_params() const {
    return mul(mul(mul(out, in / groups, "parameters"), kernel_h, "parameters"), kernel_w, "parameters");
  }
  /// Parameters of the weight tensor(s), without bias: copies * out * (in / groups) * k_h * k_w
  /// (checked like copy_params()).
  std::int64_t weight_params() const { return mul(copies, copy_params(), "parameters"); }
  /// Bias parameters: copies * out when bias (checked).
  std::int64_t bias_params() const { return bias ? mul(copies, out, "bias parameters") : 0; }
  double active_fraction() const {
    return active_copies < 0 ? 1.0 : active_copies / double(copies);
  }
  /// Multiply-accumulates per token / image: active copies * out * (in / groups) k_h k_w * applications.
  double macs() const {
    return active_fraction() * double(weight_params()) * applications;
  }
  /// PyTorch's fans of the whole tensor (Linear: (in, out); conv: ((in/groups) k k, out k k)).
  fans<double> tensor_fans() const {
    return {double(in / groups * kernel_h * kernel_w), double(out * kernel_h * kernel_w)};
  }
  /// The scored block seen as a Linear(block_cols -> block_rows).
  fans<double> block_fans() const { return {block_cols(), block_rows()}; }

private:
  /// a * b, or std::domain_error naming this weight (the message is built only on overflow).
  std::int64_t mul(std::int64_t a, std::int64_t b, const char* what) const {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
      detail::throw_overflow("nsc::weight", std::string(what) + " of '" + name + "'", '*', a, b);
    return r;
  }
};

/// A Linear(in -> out) weight of the given part (applied once per token).
inline weight linear(std::string name, part kind, std::int64_t out, std::int64_t in,
                     bool bias = false) {
  weight w;
  w.name = std::move(name);
  w.kind = kind;
  w.out = out;
  w.in = in;
  w.bias = bias;
  return w;
}

/// A Conv2d(c_in -> c_out, k_h x k_w, groups) weight applied at `positions` output positions
/// per image (H_out * W_out); part::conv, scored per group.
inline weight conv2d(std::string name, std::int64_t c_out, std::int64_t c_in, std::int64_t k_h,
                     std::int64_t k_w, std::int64_t groups = 1, double positions = 1,
                     bool bias = false) {
  weight w = linear(std::move(name), part::conv, c_out, c_in, bias);
  w.kernel_h = k_h;
  w.kernel_w = k_w;
  w.groups = groups;
  w.applications = positions;
  return w;
}

/// One layer: weights plus non-matrix parameters and MACs.
struct layer {
  std::string name;
  std::vector<weight> weights;
  std::int64_t norm_params = 0;  ///< LayerNorm / RMSNorm / BatchNorm parameters
  std::int64_t other_params = 0; ///< cls tokens, position tables, relative-position biases, ...
  bool embedding = false;        ///< the whole layer is "embedding" (excluded from non-embedding counts)
  double extra_macs = 0;         ///< MACs not from weights, per token / image (attention QK^T and AV)
};

/// An ordered list of layers. `per` names the unit MACs are counted per ("token" or "image").
struct network {
  std::string name;
  std::vector<layer> layers;
  std::string per = "token";
};

/// Checks a network: every weight has out, in >= 1 (0 allowed only together: an absent
/// weight is better left out), kernel >= 1, groups >= 1 dividing out and in, splits >= 1
/// dividing the grouped dimensions, copies >= 1, 0 <= active_copies <= copies (or < 0 for all),
/// applications >= 0 and finite, non-negative extra parameters and MACs. Throws
/// std::invalid_argument "nsc::validate: layer <i> '<name>', weight '<w>': <rule> (got <v>)".
inline void validate(const network& net) {
  auto fail = [&](std::size_t li, const std::string& wname, std::string_view rule,
                  auto value) {
    std::string where = "layer " + std::to_string(li) + " '" + net.layers[li].name + "'";
    if (!wname.empty()) where += ", weight '" + wname + "'";
    where += ": ";
    where += rule;
    throw_invalid_argument("nsc::validate", where, value);
  };
  for (std::size_t li = 0; li < net.layers.size(); ++li) {
    const layer& l = net.layers[li];
    if (l.norm_params < 0) fail(li, "", "norm_params must be >= 0", l.norm_params);
    if (l.other_params < 0) fail(li, "", "other_params must be >= 0", l.other_params);
    if (!(std::isfinite(l.extra_macs) && l.extra_macs >= 0))
      fail(li, "", "extra_macs must be finite and >= 0", l.extra_macs);
    for (const weight& w : l.weights) {
      if (w.out < 1) fail(li, w.name, "out must be >= 1", w.out);
      if (w.in < 1) fail(li, w.name, "in must be >= 1", w.in);
      if (w.kernel_h < 1 || w.kernel_w < 1)
        fail(li, w.name, "kernel sizes must be >= 1", std::min(w.kernel_h, w.kernel_w));
      if (w.groups < 1) fail(li, w.name, "groups must be >= 1", w.groups);
      if (w.out % w.groups != 0) fail(li, w.name, "groups must divide out", w.groups);
      if (w.in % w.groups != 0) fail(li, w.name, "groups must divide in", w.groups);
      if (w.split_out < 1 || (w.out / w.groups) % w.split_out != 0)
        fail(li, w.name, "split_out must be >= 1 and divide out / groups", w.split_out);
      if (w.split_in < 1 || (w.in / w.groups * w.kernel_h * w.kernel_w) % w.split_in != 0)
        fail(li, w.name, "split_in must be >= 1 and divide (in / groups) * k_h * k_w", w.split_in);
      if (w.copies < 1) fail(li, w.name, "copies must be >= 1", w.copies);
      if (!(w.active_copies < 0 || (w.active_copies <= double(w.copies))) ||
          std::isnan(w.active_copies))
        fail(li, w.name, "active_copies must be <= copies (or < 0 for all)", w.active_copies);
      if (!(std::isfinite(w.applications) && w.applications >= 0))
        fail(li, w.name, "applications must be finite and >= 0", w.applications);
    }
  }
}

} // namespace nsc

#endif // NSC_MODEL_NETWORK_HPP
