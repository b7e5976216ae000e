/// \file nsc/presets/nats_sss.hpp
/// NATS-Bench size search space (SSS): 8^5 = 32,768 networks, channels c0..c4 in {8, 16, ..., 64}.
///
/// Synopsis
///
///     nats_dataset            cifar10 (10 classes, 32x32), cifar100 (100, 32x32),
///                             imagenet16_120 (120, 16x16)
///     nats_skip               (cnn.hpp) conv1x1 | factorized_reduce: the cell's skip, c_in != c_out
///     nats_wiring             xautodl (the trained networks) | reference_code (the paper's scripts)
///     nats_sss_options        dataset, skip, wiring, classes / resolution overrides
///     nats_sss_network(c, o)  the whole network (7 layers) as an nsc::network
///     nats_sss_scoring()      the paper's scoring convention for CNNs
///     nats_sss(c, o)          preset { nats_sss_network(c, o), nats_sss_scoring() }
///     nats_sss_table          the fast path: per-layer score / #Params / MACs as functions of
///                             (c_in, c_out), so all 32,768 architectures score in well under a ms
///     nats_sss_channels(i), nats_sss_index(c), nats_sss_arch_string(c), parse_nats_sss_arch(s)
///
/// The network (xautodl's DynamicShapeTinyNet with the fixed NAS-Bench-201 best cell, N = 1; see
/// shared/data/nats-bench-sss/SOURCE.md). Layer names, with the xautodl wiring:
///   "stem"       Conv3x3 3 -> c0 + BN                                       at R x R
///   "cell0"      cell c0 -> c0 (add_nats_cell)                              at R x R
///   "resblock1"  ResNet basic block c0 -> c1, stride 2, AvgPool + Conv1x1 shortcut (no BN)
///   "cell2"      cell c1 -> c2                                              at R/2 x R/2
///   "resblock3"  ResNet basic block c2 -> c3, stride 2
///   "cell4"      cell c3 -> c4                                              at R/4 x R/4
///   "head"       BN(c4) (+ ReLU), global average pool, Linear(c4 -> classes) with bias, part::head
/// #Params = every conv and linear weight, the affine BN parameters and the classifier bias: this
/// reproduces the params_computed_* columns of nats_sss_32768.csv exactly for all 32,768 rows
/// (64:64:64:64:64 on CIFAR-10: 713,674), under BOTH skip protocols: the skip has c_in c_out
/// weights + BN(c_out) either way (the CSV's README describes the single Conv1x1 -> BN, xautodl's
/// stride-1 FactorizedReduce). MACs per image at R = 32 (CIFAR) or 16 (ImageNet16-120).
///
/// Reference scoring (reference-conventions.md, "NATS-Bench SSS"): every conv weight
/// (c_out, c_in, k, k) is ONE matrix (c_out, c_in k^2) with Xavier variance 2 / (c_out + c_in k^2)
/// (variance_source::block, groups 1), and the classifier is scored as psi_X(classes, c4)
/// (score_embeddings = true turns part::head on). BN and biases contribute nothing.
///
/// Two wirings:
///  * xautodl (default): as above; the networks NATS-Bench trained, whose accuracies the CSV has.
///  * reference_code: the paper's Python scripts (ranking/compute_nats_sss.py, the all-32,768
///    CIFAR-10 script with FactorizedReduce, and run_realdata_proxy.py's nats_nsc, the figure's
///    CIFAR-100 protocol with one 1x1 skip) shift the channels by one: stem 3 -> c0, cell c0 -> c1,
///    resblock c1 -> c2, cell c2 -> c3, resblock c3 -> c4, cell c4 -> c4, classifier (classes, c4).
///    Use it (with skip and classes set accordingly) to reproduce the paper's numbers; its #Params
///    are those of the shifted network, not the CSV's.
#ifndef NSC_PRESETS_NATS_SSS_HPP
#define NSC_PRESETS_NATS_SSS_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/cnn.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/presets/preset.hpp>
#include <nsc/spectral/psi.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nsc::presets {

/// The three NATS-Bench datasets.
enum class nats_dataset { cifar10, cifar100, imagenet16_120 };

constexpr std::string_view to_string(nats_dataset d) noexcept {
  switch (d) {
  case nats_dataset::cifar10: return "cifar10";
  case nats_dataset::cifar100: return "cifar100";
  case nats_dataset::imagenet16_120: return "imagenet16_120";
  }
  return "?";
}

/// Parses "cifar10", "cifar100" or "imagenet16_120" (also "ImageNet16-120"); std::invalid_argument
/// otherwise.
inline nats_dataset parse_nats_dataset(std::string_view name) {
  if (name == "cifar10") return nats_dataset::cifar10;
  if (name == "cifar100") return nats_dataset::cifar100;
  if (name == "imagenet16_120" || name == "ImageNet16-120") return nats_dataset::imagenet16_120;
  throw_invalid_argument("nsc::presets::parse_nats_dataset",
                         "unknown dataset; expected cifar10, cifar100 or imagenet16_120",
                         std::string(name));
}

/// Number of classes: 10, 100, 120.
constexpr std::int64_t nats_classes(nats_dataset d) noexcept {
  return d == nats_dataset::cifar10 ? 10 : d == nats_dataset::cifar100 ? 100 : 120;
}

/// Input resolution: 32 (CIFAR) or 16 (ImageNet16-120).
constexpr std::int64_t nats_resolution(nats_dataset d) noexcept {
  return d == nats_dataset::imagenet16_120 ? 16 : 32;
}

/// Which channel feeds which layer (see the file comment).
enum class nats_wiring { xautodl, reference_code };

constexpr std::string_view to_string(nats_wiring w) noexcept {
  return w == nats_wiring::xautodl ? "xautodl" : "reference_code";
}

/// Parses "xautodl" or "reference_code"; std::invalid_argument otherwise.
inline nats_wiring parse_nats_wiring(std::string_view name) {
  if (name == "xautodl") return nats_wiring::xautodl;
  if (name == "reference_code") return nats_wiring::reference_code;
  throw_invalid_argument("nsc::presets::parse_nats_wiring",
                         "unknown wiring; expected xautodl or reference_code", std::string(name));
}

/// Channels c0..c4.
using nats_channels = std::array<std::int64_t, 5>;

/// The channel choices of the space.
inline constexpr std::array<std::int64_t, 8> nats_sss_widths{8, 16, 24, 32, 40, 48, 56, 64};
/// Number of architectures, 8^5.
inline constexpr std::size_t nats_sss_size = 32768;

/// Channels of architecture `index` in NATS' order (lexicographic, c4 fastest: 0 is 8:8:8:8:8,
/// 1 is 8:8:8:8:16, 32767 is 64:64:64:64:64). std::invalid_argument if index >= 32768.
inline nats_channels nats_sss_channels(std::size_t index) {
  if (index >= nats_sss_size)
    throw_invalid_argument("nsc::presets::nats_sss_channels", "index must be < 32768", index);
  nats_channels c{};
  for (std::size_t k = 5; k-- > 0;) {
    c[k] = nats_sss_widths[index % 8];
    index /= 8;
  }
  return c;
}

/// Position of a channel choice in nats_sss_widths, or -1.
constexpr int nats_sss_width_index(std::int64_t width) noexcept {
  return (width >= 8 && width <= 64 && width % 8 == 0) ? int(width / 8 - 1) : -1;
}

/// Index of `c` (inverse of nats_sss_channels); std::invalid_argument unless every channel is in
/// {8, 16, ..., 64}.
inline std::size_t nats_sss_index(const nats_channels& c) {
  std::size_t index = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    const int w = nats_sss_width_index(c[k]);
    if (w < 0)
      throw_invalid_argument(
          "nsc::presets::nats_sss_index",
          nsc::detail::cnn_cat({"c", std::to_string(k), " must be one of 8, 16, ..., 64"}), c[k]);
    index = index * 8 + std::size_t(w);
  }
  return index;
}

/// "c0:c1:c2:c3:c4".
inline std::string nats_sss_arch_string(const nats_channels& c) {
  std::string s;
  for (std::size_t k = 0; k < 5; ++k) {
    if (k) s += ':';
    s += std::to_string(c[k]);
  }
  return s;
}

/// Parses "c0:c1:c2:c3:c4" (five positive integers); std::invalid_argument otherwise.
inline nats_channels parse_nats_sss_arch(std::string_view s) {
  nats_channels c{};
  std::size_t k = 0, pos = 0;
  const std::string whole(s);
  while (true) {
    const std::size_t colon = s.find(':', pos);
    const std::string_view field =
        s.substr(pos, colon == std::string_view::npos ? s.npos : colon - pos);
    if (k >= 5 || field.empty() || field.size() > 9)
      throw_invalid_argument("nsc::presets::parse_nats_sss_arch",
                             "expected five positive integers c0:c1:c2:c3:c4", whole);
    std::int64_t v = 0;
    for (char ch : field) {
      if (ch < '0' || ch > '9')
        throw_invalid_argument("nsc::presets::parse_nats_sss_arch",
                               "expected five positive integers c0:c1:c2:c3:c4", whole);
      v = v * 10 + (ch - '0');
    }
    if (v < 1)
      throw_invalid_argument("nsc::presets::parse_nats_sss_arch", "channels must be >= 1", whole);
    c[k++] = v;
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  if (k != 5)
    throw_invalid_argument("nsc::presets::parse_nats_sss_arch",
                           "expected five positive integers c0:c1:c2:c3:c4", whole);
  return c;
}

/// How a NATS-SSS network is built.
struct nats_sss_options {
  nats_dataset dataset = nats_dataset::cifar10;
  nats_skip skip = nats_skip::conv1x1;
  nats_wiring wiring = nats_wiring::xautodl;
  std::int64_t classes = 0;    ///< 0: the dataset's (10, 100, 120)
  std::int64_t resolution = 0; ///< 0: the dataset's (32 or 16); must be divisible by 4

  std::int64_t num_classes() const { return classes > 0 ? classes : nats_classes(dataset); }
  std::int64_t input_resolution() const {
    return resolution > 0 ? resolution : nats_resolution(dataset);
  }
};

/// The paper's CNN scoring convention: Xavier-normal of each scored matrix, psi_MP, the
/// classifier (part::head) scored.
inline scoring nats_sss_scoring() {
  scoring s;
  s.initialisation = init::xavier_normal();
  s.source = variance_source::block;
  s.est = estimator::mp;
  s.score_embeddings = true;
  return s;
}

/// The network's seven layers, in order.
inline constexpr std::size_t nats_sss_slots = 7;
inline constexpr std::array<std::string_view, nats_sss_slots> nats_sss_slot_names{
    "stem", "cell0", "resblock1", "cell2", "resblock3", "cell4", "head"};

/// Which channels a layer maps: indices into c0..c4, -1 for the stem's 3 input channels and the
/// head's classes.
struct nats_slot_channels {
  int in;
  int out;
};

constexpr std::array<nats_slot_channels, nats_sss_slots> nats_sss_wiring(nats_wiring w) noexcept {
  if (w == nats_wiring::xautodl)
    return {{{-1, 0}, {0, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, -1}}};
  return {{{-1, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 4}, {4, -1}}};
}

namespace detail {

inline void nats_check_options(const nats_sss_options& o, std::string_view function) {
  if (o.classes < 0)
    throw_invalid_argument(function, "classes must be >= 0 (0: the dataset's)", o.classes);
  if (o.resolution < 0)
    throw_invalid_argument(function, "resolution must be >= 0 (0: the dataset's)", o.resolution);
  if (o.input_resolution() % 4 != 0)
    throw_invalid_argument(function,
                           "resolution must be divisible by 4 (two stride-2 AvgPool shortcuts)",
                           o.input_resolution());
}

} // namespace detail

/// Layer `slot` (0..6, see nats_sss_slot_names) mapping c_in -> c_out, its input being
/// `resolution_in` x `resolution_in`. For the stem c_in must be 3; for the head c_out is the
/// number of classes. If `out` is given it receives the layer's output feature map.
inline layer nats_sss_layer(std::size_t slot, std::int64_t c_in, std::int64_t c_out,
                            std::int64_t resolution_in, const nats_sss_options& o = {},
                            feature_map* out = nullptr) {
  if (slot >= nats_sss_slots)
    throw_invalid_argument("nsc::presets::nats_sss_layer", "slot must be < 7", slot);
  layer l;
  l.name = std::string(nats_sss_slot_names[slot]);
  feature_map x{c_in, resolution_in, resolution_in};
  switch (slot) {
  case 0:
    if (c_in != 3)
      throw_invalid_argument("nsc::presets::nats_sss_layer", "the stem's c_in must be 3", c_in);
    x = add_conv(l, x, {"conv", c_out, 3, 1, 1, same_padding, false, true, part::conv});
    break;
  case 1:
  case 3:
  case 5: x = add_nats_cell(l, x, c_out, o.skip); break;
  case 2:
  case 4: x = add_basic_block(l, x, {c_out, 2, shortcut_style::avgpool_conv, true}); break;
  default:
    x = add_batch_norm(l, x);
    x = add_linear(l, global_pool(x), {"classifier", c_out, true, part::head});
    break;
  }
  if (out) *out = x;
  return l;
}

/// The NATS-SSS network for channels `c` (any positive channels; the space uses 8..64 step 8).
/// std::invalid_argument for non-positive channels, classes or a resolution not divisible by 4.
inline network nats_sss_network(const nats_channels& c, const nats_sss_options& o = {}) {
  detail::nats_check_options(o, "nsc::presets::nats_sss_network");
  for (std::size_t k = 0; k < 5; ++k)
    if (c[k] < 1)
      throw_invalid_argument("nsc::presets::nats_sss_network",
                             nsc::detail::cnn_cat({"c", std::to_string(k), " must be >= 1"}), c[k]);
  network net;
  net.name =
      nsc::detail::cnn_cat({"nats_sss:", nats_sss_arch_string(c), ":", to_string(o.dataset)});
  net.per = "image";
  net.layers.reserve(nats_sss_slots);
  const auto wiring = nats_sss_wiring(o.wiring);
  feature_map x{3, o.input_resolution(), o.input_resolution()};
  for (std::size_t slot = 0; slot < nats_sss_slots; ++slot) {
    const std::int64_t c_in = wiring[slot].in < 0 ? 3 : c[std::size_t(wiring[slot].in)];
    const std::int64_t c_out =
        wiring[slot].out < 0 ? o.num_classes() : c[std::size_t(wiring[slot].out)];
    net.layers.push_back(nats_sss_layer(slot, c_in, c_out, x.height, o, &x));
  }
  return net;
}

/// The network with its reference scoring (nats_sss_scoring()): nats_sss(c, o).nsc_score() is
/// the paper-convention NSC, .cost() the #Params / MACs.
inline preset nats_sss(const nats_channels& c, const nats_sss_options& o = {}) {
  return {nats_sss_network(c, o), nats_sss_scoring()};
}

/// The fast path. Every layer of a NATS-SSS network depends only on its (c_in, c_out) (and the
/// fixed resolution at its position), so its score, #Params and MACs are tabulated once for the
/// 8 x 8 channel pairs of each of the 7 layers (built with nats_sss_layer and scored with
/// nsc::score(layer), the very functions the full network uses), and an architecture is 7
/// look-ups. The sums are taken in layer order, like score(network) and count(network): scores
/// equal score(nats_sss_network(c, o), s).nsc bit for bit, #Params and MACs exactly.
class nats_sss_table {
public:
  struct entry {
    double nsc = 0;
    std::int64_t params = 0;
    double macs = 0;
  };

  /// Tabulates the 7 x 8 x 8 layers (a few hundred psi evaluations; `cache` may be shared).
  explicit nats_sss_table(const nats_sss_options& o = {}, const scoring& s = nats_sss_scoring(),
                          psi_cache* cache = nullptr)
      : options_(o), wiring_(nats_sss_wiring(o.wiring)) {
    detail::nats_check_options(o, "nsc::presets::nats_sss_table");
    psi_cache local;
    psi_cache* pc = cache ? cache : &local;
    const std::int64_t r0 = o.input_resolution();
    const std::int64_t r1 = conv_output_size(r0, 3, 2);
    const std::int64_t r2 = conv_output_size(r1, 3, 2);
    const std::array<std::int64_t, nats_sss_slots> res{r0, r0, r0, r1, r1, r2, r2};
    for (std::size_t slot = 0; slot < nats_sss_slots; ++slot) {
      for (std::size_t i = 0; i < 8; ++i) {
        for (std::size_t j = 0; j < 8; ++j) {
          const bool fixed_in = wiring_[slot].in < 0, fixed_out = wiring_[slot].out < 0;
          if ((fixed_in && i > 0) || (fixed_out && j > 0)) {
            table_[slot][i][j] = table_[slot][fixed_in ? 0 : i][fixed_out ? 0 : j];
            continue;
          }
          const std::int64_t c_in = fixed_in ? 3 : nats_sss_widths[i];
          const std::int64_t c_out = fixed_out ? o.num_classes() : nats_sss_widths[j];
          const layer l = nats_sss_layer(slot, c_in, c_out, res[slot], o);
          const resources r = nsc::count(l);
          table_[slot][i][j] = {nsc::score(l, s, pc).nsc, r.total(), r.macs};
        }
      }
    }
  }

  /// The tabulated layer `slot` for c_in -> c_out (channels from the space; for the stem c_in
  /// is ignored, for the head c_out). std::invalid_argument for channels outside the space.
  const entry& layer_entry(std::size_t slot, std::int64_t c_in, std::int64_t c_out) const {
    if (slot >= nats_sss_slots)
      throw_invalid_argument("nsc::presets::nats_sss_table", "slot must be < 7", slot);
    const int i = wiring_[slot].in < 0 ? 0 : nats_sss_width_index(c_in);
    const int j = wiring_[slot].out < 0 ? 0 : nats_sss_width_index(c_out);
    if (i < 0)
      throw_invalid_argument("nsc::presets::nats_sss_table", "c_in must be one of 8, 16, ..., 64",
                             c_in);
    if (j < 0)
      throw_invalid_argument("nsc::presets::nats_sss_table", "c_out must be one of 8, 16, ..., 64",
                             c_out);
    return table_[slot][std::size_t(i)][std::size_t(j)];
  }

  /// Score of layer `slot` as a function of (c_in, c_out).
  double layer_score(std::size_t slot, std::int64_t c_in, std::int64_t c_out) const {
    return layer_entry(slot, c_in, c_out).nsc;
  }

  /// NSC of architecture `c` (channels in {8, ..., 64}; std::invalid_argument otherwise).
  double score(const nats_channels& c) const { return sum(indices(c), &entry::nsc); }
  std::int64_t params(const nats_channels& c) const {
    const auto ix = indices(c);
    std::int64_t p = 0;
    for (std::size_t slot = 0; slot < nats_sss_slots; ++slot) p += at(slot, ix).params;
    return p;
  }
  double macs(const nats_channels& c) const { return sum(indices(c), &entry::macs); }

  /// NSC of all 32,768 architectures in NATS order (index i is nats_sss_channels(i)).
  std::vector<double> score_all() const {
    std::vector<double> out(nats_sss_size);
    std::array<std::size_t, 5> ix{};
    for (std::size_t n = 0; n < nats_sss_size; ++n) {
      std::size_t rest = n;
      for (std::size_t k = 5; k-- > 0;) {
        ix[k] = rest % 8;
        rest /= 8;
      }
      out[n] = sum(ix, &entry::nsc);
    }
    return out;
  }

  const nats_sss_options& options() const noexcept { return options_; }

private:
  std::array<std::size_t, 5> indices(const nats_channels& c) const {
    std::array<std::size_t, 5> ix{};
    for (std::size_t k = 0; k < 5; ++k) {
      const int w = nats_sss_width_index(c[k]);
      if (w < 0)
        throw_invalid_argument(
            "nsc::presets::nats_sss_table",
            nsc::detail::cnn_cat({"c", std::to_string(k), " must be one of 8, 16, ..., 64"}), c[k]);
      ix[k] = std::size_t(w);
    }
    return ix;
  }
  const entry& at(std::size_t slot, const std::array<std::size_t, 5>& ix) const {
    const std::size_t i = wiring_[slot].in < 0 ? 0 : ix[std::size_t(wiring_[slot].in)];
    const std::size_t j = wiring_[slot].out < 0 ? 0 : ix[std::size_t(wiring_[slot].out)];
    return table_[slot][i][j];
  }
  double sum(const std::array<std::size_t, 5>& ix, double entry::*field) const {
    double s = 0;
    for (std::size_t slot = 0; slot < nats_sss_slots; ++slot) s += at(slot, ix).*field;
    return s;
  }

  nats_sss_options options_;
  std::array<nats_slot_channels, nats_sss_slots> wiring_;
  std::array<std::array<std::array<entry, 8>, 8>, nats_sss_slots> table_{};
};

} // namespace nsc::presets

#endif // NSC_PRESETS_NATS_SSS_HPP
