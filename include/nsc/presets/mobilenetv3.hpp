/// \file nsc/presets/mobilenetv3.hpp
/// The OFA MobileNetV3 search space (Once-for-All, Cai et al. 2020) as scored by the paper.
///
/// Synopsis
///
///     ofa_mbv3_arch                 depths d[5] in {2,3,4}, kernels k[20] in {3,5,7} and expand
///                                   ratios e[20] in {3,4,6} (OFA's 20 block slots)
///     mbv3_indexing                 running (the paper's reference code) | ofa_slot (OFA)
///     mbv3_variant                  reference (the paper's network) | ofa_faithful (OFA's subnet)
///     mobilenetv3_options           indexing, variant, resolution (224), classes (1000)
///     mobilenetv3_network(a, o)     the nsc::network
///     mobilenetv3_block_slot(...)   which of the 20 entries a block reads
///     mobilenetv3_reference_scoring()  Xavier of each block (variance_source::block), heads scored
///     mobilenetv3_faithful_scoring()   Xavier with PyTorch's tensor fans (variance_source::tensor)
///     mobilenetv3(a, o)             preset { network, the scoring of its variant }
///
/// Stages s = 0..4 map 16 -> 24, 24 -> 40, 40 -> 80, 80 -> 112, 112 -> 160 with d[s] blocks; the
/// first block of a stage takes the stage input and has the stage stride (2, 2, 2, 1, 2), the
/// others take the stage output with stride 1 (identity residual, no weights).
///
/// variant::reference (reference-conventions.md, "MobileNetV3 (OFA space)") -- layers:
///   "stem"               Conv3x3 3 -> 16, stride 2, + BN              psi_X(16, 27)
///   "stage<s>.block<j>"  expand 1x1 in -> mid (+ BN)                  psi_X(mid, in)
///                        depthwise k x k, groups mid, stride (+ BN)   mid * psi_X(1, k^2)
///                        project 1x1 mid -> out (+ BN)                psi_X(out, mid)
///                        with mid = in * e; no SE blocks
///   "final_expand"       Conv1x1 160 -> 960 + BN                      psi_X(960, 160)
///   "feature_mix"        global pool, Conv1x1 960 -> 1280 (no bias)   psi_X(1280, 960)
///   "classifier"         Linear 1280 -> classes + bias, part::head    psi_X(1000, 1280)
/// Under mobilenetv3_reference_scoring() this is exactly the reference NSC.
///
/// variant::ofa_faithful -- the subnet OFA's get_active_subnet() returns: the same plus OFA's
/// fixed first block ("first_block": depthwise 3x3 16 -> 16 and project 16 -> 16, expand ratio 1,
/// residual), mid = make_divisible(in * e, 8), and squeeze-excite (reduce / expand 1x1 convs
/// with bias, hidden = make_divisible(mid / 4, 8)) in stages 1, 3 and 4 (widths 40, 112, 160),
/// where OFA has it. Score it with mobilenetv3_faithful_scoring() (the variance PyTorch's
/// xavier_normal_ draws for each whole tensor: a depthwise kernel has fan_in = k^2 and
/// fan_out = mid k^2) or any other convention. This is nsc's own, documented choice; the paper
/// does not score it.
///
/// Indexing. OFA stores k and e per block SLOT: block j of stage s reads entry 4 s + j (each
/// stage owns 4 slots, the unused ones are ignored). The paper's code reads them with a running
/// block counter: block j of stage s reads entry d[0] + ... + d[s-1] + j. The two agree when every
/// d[s] = 4 (and always for stage 0); otherwise the running counter gives later stages the
/// kernels and ratios OFA assigned to earlier stages' unused slots, i.e. it scores a different
/// subnet from the one whose accuracy was measured. mbv3_indexing::running reproduces the
/// paper; ofa_slot scores the subnet OFA built.
///
/// #Params count every conv / linear weight, affine BN parameters and biases (SE and classifier);
/// MACs per image at the given resolution (default 224).
#ifndef NSC_PRESETS_MOBILENETV3_HPP
#define NSC_PRESETS_MOBILENETV3_HPP

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
#include <utility>

namespace nsc::presets {

/// How a block finds its kernel and expand ratio among the 20 entries (see the file comment).
enum class mbv3_indexing { running, ofa_slot };

constexpr std::string_view to_string(mbv3_indexing i) noexcept {
  return i == mbv3_indexing::running ? "running" : "ofa_slot";
}

/// Parses "running" or "ofa_slot"; std::invalid_argument otherwise.
inline mbv3_indexing parse_mbv3_indexing(std::string_view name) {
  if (name == "running") return mbv3_indexing::running;
  if (name == "ofa_slot") return mbv3_indexing::ofa_slot;
  throw_invalid_argument("nsc::presets::parse_mbv3_indexing",
                         "unknown indexing; expected running or ofa_slot", std::string(name));
}

/// Which network is built (see the file comment).
enum class mbv3_variant { reference, ofa_faithful };

constexpr std::string_view to_string(mbv3_variant v) noexcept {
  return v == mbv3_variant::reference ? "reference" : "ofa_faithful";
}

/// Parses "reference" or "ofa_faithful"; std::invalid_argument otherwise.
inline mbv3_variant parse_mbv3_variant(std::string_view name) {
  if (name == "reference") return mbv3_variant::reference;
  if (name == "ofa_faithful") return mbv3_variant::ofa_faithful;
  throw_invalid_argument("nsc::presets::parse_mbv3_variant",
                         "unknown variant; expected reference or ofa_faithful", std::string(name));
}

/// The fixed skeleton of OFA MobileNetV3.
inline constexpr std::int64_t ofa_mbv3_stem_channels = 16;
inline constexpr std::array<std::int64_t, 5> ofa_mbv3_widths{24, 40, 80, 112, 160};
inline constexpr std::array<std::int64_t, 5> ofa_mbv3_strides{2, 2, 2, 1, 2};
inline constexpr std::array<bool, 5> ofa_mbv3_se_stages{false, true, false, true, true};
inline constexpr std::int64_t ofa_mbv3_final_expand = 960;
inline constexpr std::int64_t ofa_mbv3_feature_mix = 1280;
inline constexpr std::size_t ofa_mbv3_slots = 20;

/// One architecture of the space, in OFA's phenotype layout (ks, e: 20 entries; d: 5).
struct ofa_mbv3_arch {
  std::array<std::int64_t, 5> depths{4, 4, 4, 4, 4};
  std::array<std::int64_t, ofa_mbv3_slots> kernels{3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
                                                   3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
  std::array<std::int64_t, ofa_mbv3_slots> expand_ratios{3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
                                                         3, 3, 3, 3, 3, 3, 3, 3, 3, 3};

  /// Every stage of depth d, every block kernel k and expand ratio e.
  static ofa_mbv3_arch uniform(std::int64_t d, std::int64_t k, std::int64_t e) {
    ofa_mbv3_arch a;
    a.depths.fill(d);
    a.kernels.fill(k);
    a.expand_ratios.fill(e);
    return a;
  }
};

/// Which of the 20 entries block `block` of stage `stage` reads (see the file comment).
inline std::size_t mobilenetv3_block_slot(const ofa_mbv3_arch& a, std::size_t stage,
                                          std::size_t block, mbv3_indexing indexing) {
  if (indexing == mbv3_indexing::ofa_slot) return 4 * stage + block;
  std::size_t n = 0;
  for (std::size_t t = 0; t < stage; ++t) n += std::size_t(a.depths[t]);
  return n + block;
}

/// How the network is built.
struct mobilenetv3_options {
  mbv3_indexing indexing = mbv3_indexing::running;
  mbv3_variant variant = mbv3_variant::reference;
  std::int64_t resolution = 224;
  std::int64_t classes = 1000;
};

/// The paper's scoring: Xavier-normal of each scored block (a depthwise kernel is mid blocks
/// (1, k^2)), psi_MP, classifier scored.
inline scoring mobilenetv3_reference_scoring() {
  scoring s;
  s.initialisation = init::xavier_normal();
  s.source = variance_source::block;
  s.est = estimator::mp;
  s.score_embeddings = true;
  return s;
}

/// Framework-faithful scoring: Xavier-normal with the fans PyTorch computes for each whole
/// weight tensor (variance_source::tensor), psi_MP, classifier scored.
inline scoring mobilenetv3_faithful_scoring() {
  scoring s = mobilenetv3_reference_scoring();
  s.source = variance_source::tensor;
  return s;
}

/// The network of architecture `a`. std::invalid_argument (naming the stage / block) unless
/// every depth is in 1..4, every kernel read is odd and >= 1, every expand ratio read is >= 1,
/// and resolution, classes >= 1.
inline network mobilenetv3_network(const ofa_mbv3_arch& a, const mobilenetv3_options& o = {}) {
  constexpr std::string_view fn = "nsc::presets::mobilenetv3_network";
  if (o.resolution < 1) throw_invalid_argument(fn, "resolution must be >= 1", o.resolution);
  if (o.classes < 1) throw_invalid_argument(fn, "classes must be >= 1", o.classes);
  for (std::size_t s = 0; s < 5; ++s)
    if (a.depths[s] < 1 || a.depths[s] > 4)
      throw_invalid_argument(
          fn, nsc::detail::cnn_cat({"stage ", std::to_string(s), ": depth must be in 1..4"}),
          a.depths[s]);
  const bool faithful = o.variant == mbv3_variant::ofa_faithful;

  cnn_builder b(nsc::detail::cnn_cat({"ofa_mobilenetv3_", to_string(o.variant)}),
                {3, o.resolution, o.resolution});
  b.begin_layer("stem").conv(
      {"conv", ofa_mbv3_stem_channels, 3, 2, 1, same_padding, false, true, part::conv});
  if (faithful)
    b.begin_layer("first_block")
        .inverted_residual({ofa_mbv3_stem_channels, ofa_mbv3_stem_channels, 3, 1, false, {}, true});

  for (std::size_t s = 0; s < 5; ++s) {
    for (std::size_t j = 0; j < std::size_t(a.depths[s]); ++j) {
      const std::string where =
          nsc::detail::cnn_cat({"stage ", std::to_string(s), " block ", std::to_string(j)});
      const std::size_t slot = mobilenetv3_block_slot(a, s, j, o.indexing);
      const std::int64_t k = a.kernels[slot], e = a.expand_ratios[slot];
      if (k < 1 || k % 2 == 0)
        throw_invalid_argument(fn,
                               nsc::detail::cnn_cat({where, " (entry ", std::to_string(slot),
                                                     "): kernel must be odd and >= 1"}),
                               k);
      if (e < 1)
        throw_invalid_argument(fn,
                               nsc::detail::cnn_cat({where, " (entry ", std::to_string(slot),
                                                     "): expand ratio must be >= 1"}),
                               e);
      const std::int64_t in = b.shape().channels;
      const std::int64_t mid = faithful ? make_divisible(double(in * e), 8) : in * e;
      inverted_residual_spec spec;
      spec.out_channels = ofa_mbv3_widths[s];
      spec.expanded_channels = mid;
      spec.kernel = k;
      spec.stride = j == 0 ? ofa_mbv3_strides[s] : 1;
      spec.squeeze_excite = faithful && ofa_mbv3_se_stages[s];
      spec.se = se_spec{4, 8, 0, true, part::conv};
      b.begin_layer(nsc::detail::cnn_cat({"stage", std::to_string(s), ".block", std::to_string(j)}))
          .inverted_residual(spec);
    }
  }
  b.begin_layer("final_expand")
      .conv({"conv", ofa_mbv3_final_expand, 1, 1, 1, same_padding, false, true, part::conv});
  b.begin_layer("feature_mix")
      .global_pool()
      .conv({"conv", ofa_mbv3_feature_mix, 1, 1, 1, same_padding, false, false, part::conv});
  b.begin_layer("classifier").linear({"linear", o.classes, true, part::head});
  return std::move(b).build();
}

/// The network with the scoring its variant is meant for: mobilenetv3_reference_scoring() for
/// variant::reference (then nsc_score() is the paper's number), mobilenetv3_faithful_scoring()
/// for variant::ofa_faithful.
inline preset mobilenetv3(const ofa_mbv3_arch& a, const mobilenetv3_options& o = {}) {
  return {mobilenetv3_network(a, o), o.variant == mbv3_variant::reference
                                         ? mobilenetv3_reference_scoring()
                                         : mobilenetv3_faithful_scoring()};
}

} // namespace nsc::presets

#endif // NSC_PRESETS_MOBILENETV3_HPP
