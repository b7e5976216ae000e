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
/// Multiplicity: a layer entry with `repeat = r` stands for r identical consecutive layers
/// (an 80-layer decoder is one entry "layers.0-79" with repeat 80). Everything that describes
/// ONE entry (score(layer), count(layer), a layer_deployment) is the figure of one of its r
/// layers; every network total (score(net), count(net), deploy) is the exact sum over all
/// layers, i.e. r times the entry's figure (integers with checked arithmetic). Run names:
/// "<prefix><first>-<last>" (run_name); expand() gives one entry per layer ("<prefix><i>"),
/// compress() merges consecutive equal layers (same_layer: everything but name and repeat).
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
  std::int64_t repeat = 1;       ///< this entry stands for `repeat` identical consecutive layers (>= 1)
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
/// applications >= 0 and finite, non-negative extra parameters and MACs, repeat >= 1. Throws
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
    if (l.repeat < 1) fail(li, "", "repeat must be >= 1", l.repeat);
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


/// Runs of at most this many layers are summed layer by layer by score(network), count(network)
/// and aggregate() (the same floating-point additions, in the same order, as the expanded
/// network: bitwise-equal NSC, MACs and aggregates); longer runs are multiplied (repeat x the
/// layer's figure: integers exact and checked, doubles within ~1e-16 relative). 2^20 additions
/// take about a millisecond.
inline constexpr std::int64_t repeat_sum_max = std::int64_t(1) << 20;

/// The most entries expand() builds by default (2^20 layers: far above any published model,
/// ~130 layers, and a few hundred MB at most).
inline constexpr std::int64_t expand_max_layers = std::int64_t(1) << 20;

/// Whether two weights are identical in every field (name, shape, scoring and counting flags,
/// initialisation; doubles compared exactly).
inline bool same_weight(const weight& a, const weight& b) {
  auto same_init = [](const std::optional<basic_init<double>>& x, const std::optional<basic_init<double>>& y) {
    if (x.has_value() != y.has_value()) return false;
    if (!x) return true;
    return x->kind == y->kind && x->gain == y->gain && x->mode == y->mode && x->std == y->std &&
           x->lower == y->lower && x->upper == y->upper;
  };
  return a.name == b.name && a.kind == b.kind && a.out == b.out && a.in == b.in && a.kernel_h == b.kernel_h &&
         a.kernel_w == b.kernel_w && a.groups == b.groups && a.split_out == b.split_out &&
         a.split_in == b.split_in && a.copies == b.copies && a.active_copies == b.active_copies &&
         a.bias == b.bias && a.applications == b.applications && a.scored == b.scored &&
         a.counted == b.counted && same_init(a.initialisation, b.initialisation);
}

/// Whether two layer entries describe the same layer: equal weights in the same order (see
/// same_weight), norm and other parameters, embedding flag and extra MACs. The name and the
/// repeat are not compared (a run of such layers is what compress() builds).
inline bool same_layer(const layer& a, const layer& b) {
  if (a.weights.size() != b.weights.size() || a.norm_params != b.norm_params ||
      a.other_params != b.other_params || a.embedding != b.embedding || a.extra_macs != b.extra_macs)
    return false;
  for (std::size_t i = 0; i < a.weights.size(); ++i)
    if (!same_weight(a.weights[i], b.weights[i])) return false;
  return true;
}

/// The name of a run of `count` layers starting at index `first`: "<prefix><first>" for one
/// layer, "<prefix><first>-<first + count - 1>" otherwise (e.g. "layers.0-79").
inline std::string run_name(std::string_view prefix, std::int64_t first, std::int64_t count) {
  std::string s(prefix);
  s += std::to_string(first);
  if (count > 1) s.append("-").append(std::to_string(first + (count - 1)));
  return s;
}

namespace detail {

/// Splits "<prefix><a>" or "<prefix><a>-<b>" (decimal, no sign, <= 18 digits each) into
/// (prefix, a, b); false when the name has no such trailing index.
inline bool parse_run_name(std::string_view name, std::string& prefix, std::int64_t& a, std::int64_t& b) {
  auto digits_back = [](std::string_view s, std::size_t end) {
    std::size_t i = end;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
    return i;
  };
  auto value = [](std::string_view s) {
    std::int64_t v = 0;
    for (char c : s) v = v * 10 + (c - '0');
    return v;
  };
  const std::size_t end = name.size();
  std::size_t i = digits_back(name, end);
  if (i == end || end - i > 18) return false;
  std::int64_t last = value(name.substr(i));
  std::int64_t first = last;
  if (i > 0 && name[i - 1] == '-') {
    const std::size_t j = digits_back(name, i - 1);
    if (j < i - 1 && i - 1 - j <= 18) {
      first = value(name.substr(j, i - 1 - j));
      i = j;
    }
  }
  if (first > last) return false;
  prefix.assign(name.substr(0, i));
  a = first;
  b = last;
  return true;
}

} // namespace detail

namespace detail {

/// The sum of the repeats of `entries` (layers or blocks), checked: std::invalid_argument
/// "nsc::total_layers: <what(i)>: repeat must be >= 1 (got r)", std::domain_error on overflow.
template <class Entries, class Name>
std::int64_t sum_repeats(const Entries& entries, Name what) {
  checked_sum<std::int64_t> n{"nsc::total_layers", "layers"};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].repeat < 1)
      throw_invalid_argument("nsc::total_layers", what(i) + ": repeat must be >= 1", entries[i].repeat);
    n += entries[i].repeat;
  }
  return n.value();
}

/// Refuses, before allocating, `n` > `limit` layers with one entry (`noun`) per layer:
/// std::invalid_argument "<function>: the <model> has more layers than the limit of <limit>
/// <noun> one per layer (<hint>) (got n)".
inline void check_layer_limit(std::string_view function, std::string_view model, std::int64_t n, std::int64_t limit,
                              std::string_view noun, std::string_view hint) {
  if (n <= limit) return;
  std::string rule = "the ";
  rule.append(model).append(" has more layers than the limit of ").append(std::to_string(limit)).append(" ");
  rule.append(noun).append(" one per layer (").append(hint).append(")");
  throw_invalid_argument(function, rule, n);
}

} // namespace detail

/// The number of layers `net` stands for: the sum of its entries' repeats (checked:
/// std::domain_error "nsc::total_layers: layers overflows ..."; repeat < 1 is
/// std::invalid_argument "nsc::total_layers: layer <i> '<name>': repeat must be >= 1 (got r)").
inline std::int64_t total_layers(const network& net) {
  return detail::sum_repeats(net.layers, [&](std::size_t i) {
    return "layer " + std::to_string(i) + " '" + net.layers[i].name + "'";
  });
}

/// `net` with one entry per layer (every repeat 1). An entry named as run_name makes it
/// ("layers.0-79" with repeat 80) expands to "layers.0", ..., "layers.79"; any other name
/// "<name>" with repeat r > 1 to "<name>.0", ..., "<name>.<r-1>". Refuses, before allocating,
/// more than `max_layers` layers: std::invalid_argument "nsc::expand: the network has more
/// layers than the limit of <max_layers> entries one per layer (...) (got <n>)".
inline network expand(const network& net, std::int64_t max_layers = expand_max_layers) {
  const std::int64_t n = total_layers(net);
  detail::check_layer_limit("nsc::expand", "network", n, max_layers, "entries", "keep the runs, or raise max_layers");
  network out;
  out.name = net.name;
  out.per = net.per;
  out.layers.reserve(std::size_t(n));
  for (const layer& l : net.layers) {
    if (l.repeat == 1) {
      out.layers.push_back(l);
      continue;
    }
    std::string prefix;
    std::int64_t a = 0, b = 0;
    const bool indexed = detail::parse_run_name(l.name, prefix, a, b) && b - a + 1 == l.repeat;
    for (std::int64_t k = 0; k < l.repeat; ++k) {
      layer one = l;
      one.repeat = 1;
      one.name = indexed ? prefix + std::to_string(a + k) : l.name + "." + std::to_string(k);
      out.layers.push_back(std::move(one));
    }
  }
  return out;
}

/// `net` with every maximal stretch of consecutive equal layers (same_layer) merged into one
/// entry whose repeat is the sum of theirs (checked). The merged entry is named
/// "<prefix><first>-<last>" when the entries are named "<prefix><i>" / "<prefix><i>-<j>" with
/// consecutive indices (layers.3, layers.4-9 -> layers.3-9), else it keeps the first entry's
/// name. Scores, counts and deployment figures are unchanged (integers exactly, NSC up to
/// rounding). Validates nothing beyond repeat >= 1 (see total_layers).
inline network compress(const network& net) {
  total_layers(net);
  network out;
  out.name = net.name;
  out.per = net.per;
  std::string prefix, p2, first_name;
  std::int64_t a = 0, b = 0, a2 = 0, b2 = 0;
  bool indexed = false;
  for (const layer& l : net.layers) {
    if (!out.layers.empty() && same_layer(out.layers.back(), l)) {
      layer& run = out.layers.back();
      run.repeat = detail::checked_add(run.repeat, l.repeat, "nsc::compress", "repeat");
      const bool next = detail::parse_run_name(l.name, p2, a2, b2) && b2 - a2 + 1 == l.repeat;
      if (indexed && next && p2 == prefix && a2 == b + 1) {
        b = b2;
        run.name = run_name(prefix, a, b - a + 1);
      } else {
        indexed = false;
        run.name = first_name;
      }
      continue;
    }
    out.layers.push_back(l);
    first_name = l.name;
    indexed = detail::parse_run_name(l.name, prefix, a, b) && b - a + 1 == l.repeat;
  }
  return out;
}

} // namespace nsc

#endif // NSC_MODEL_NETWORK_HPP
