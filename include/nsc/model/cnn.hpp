/// \file nsc/model/cnn.hpp
/// Convolutional network specifications lowered to nsc::layer / nsc::network (math.md section 5).
///
/// Synopsis
///
///     feature_map                 channels x height x width of an activation (per image)
///     conv_output_size(n, k, s, p) output length of a convolution / pooling along one axis
///     make_divisible(v, d)        MobileNet's channel rounding (torchvision / OFA rule)
///
///     conv_spec                   Conv2d k x k: stride, 'same' or explicit padding, groups
///                                 (depthwise, pointwise), bias, optional BatchNorm
///     linear_spec                 Linear over the flattened input (classifier: part::head)
///     se_spec                     squeeze-excite: two 1x1 convs at 1 x 1 spatial, with bias
///     inverted_residual_spec      MobileNetV2/V3 block: expand 1x1, depthwise k x k, SE, project
///     basic_block_spec            ResNet basic block: conv 3x3 (stride s), conv 3x3, shortcut
///     nats_skip                   the skip edge of the NATS-Bench / NAS-Bench-201 cell
///
///     add_conv / add_linear / add_batch_norm / add_squeeze_excite / add_inverted_residual /
///     add_basic_block / add_nats_cell   append the weights of one operation to a layer and
///                                 return the output feature map
///     cnn_builder                 tracks the feature map through a network, one layer per
///                                 begin_layer(); build() gives the nsc::network
///
/// Everything is core (std + nsc only).
///
/// Conventions (all per image, input resolution tracked by the caller / the builder):
///  * A convolution is one nsc::weight of shape (c_out, c_in / groups, k, k), part::conv, scored
///    per group (a depthwise conv of C channels is C blocks of (1, k^2)); its applications are
///    H_out * W_out, so MACs = c_out (c_in / groups) k^2 H_out W_out.
///  * 'same' padding (same_padding, the default) means H_out = ceil(H_in / stride): TF/Keras
///    'SAME', and PyTorch's padding = k / 2 for odd k (every preset here). An explicit padding p
///    gives PyTorch's H_out = floor((H_in + 2p - k) / stride) + 1.
///  * BatchNorm adds 2 c parameters (affine weight and bias; running statistics are buffers) to
///    the layer's norm_params. Pooling and identity shortcuts have no weights; their (tiny) adds
///    and compares are not counted as MACs, nor are BatchNorm, activations and SE scaling.
///  * A Linear sees its input flattened (in_features = C H W; after global_pool that is C), and
///    is applied once per image.
///
/// Errors: every malformed specification throws std::invalid_argument naming the layer, the
/// weight and the rule:
///   "nsc::cnn: layer 'cell2', weight 'edge_1_0': groups must divide c_in (8) (got 3)".
#ifndef NSC_MODEL_CNN_HPP
#define NSC_MODEL_CNN_HPP

#include <nsc/error_handling.hpp>
#include <nsc/model/network.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace nsc {

/// An activation of one image: channels x height x width.
struct feature_map {
  std::int64_t channels = 0;
  std::int64_t height = 1;
  std::int64_t width = 1;

  double positions() const { return double(height) * double(width); }
  std::int64_t elements() const { return channels * height * width; }
  bool operator==(const feature_map&) const = default;
};

/// Padding value meaning 'same': output = ceil(input / stride).
inline constexpr std::int64_t same_padding = -1;

namespace detail {

/// conv_output_size without checks; <= 0 when the window does not fit.
constexpr std::int64_t cnn_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                       std::int64_t padding) {
  if (padding == same_padding) return (in + stride - 1) / stride;
  const std::int64_t span = in + 2 * padding - kernel;
  if (span < 0) return 0;
  return span / stride + 1;
}

template <class T>
[[noreturn]] void cnn_fail(std::string_view layer_name, std::string_view what,
                           std::string_view rule, const T& value) {
  std::string where = "layer '";
  where.append(layer_name).append("'");
  if (!what.empty()) where.append(", ").append(what);
  where.append(": ").append(rule);
  throw_invalid_argument("nsc::cnn", where, value);
}

/// Concatenation without operator+ chains (GCC 12 -O2 reports spurious -Wrestrict on
/// "literal" + std::string temporaries).
inline std::string cnn_cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}

inline std::string cnn_weight(std::string_view name) {
  std::string s = "weight '";
  s.append(name).append("'");
  return s;
}

inline void cnn_check_input(const layer& l, std::string_view what, const feature_map& in) {
  if (in.channels < 1) cnn_fail(l.name, what, "input channels must be >= 1", in.channels);
  if (in.height < 1) cnn_fail(l.name, what, "input height must be >= 1", in.height);
  if (in.width < 1) cnn_fail(l.name, what, "input width must be >= 1", in.width);
}

} // namespace detail

/// Output length of a convolution or pooling window along one axis: ceil(in / stride) for
/// same_padding, floor((in + 2 padding - kernel) / stride) + 1 otherwise. std::invalid_argument
/// unless in, kernel, stride >= 1, padding >= 0 (or same_padding) and the window fits.
inline std::int64_t conv_output_size(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                                     std::int64_t padding = same_padding) {
  if (in < 1) throw_invalid_argument("nsc::conv_output_size", "input size must be >= 1", in);
  if (kernel < 1) throw_invalid_argument("nsc::conv_output_size", "kernel must be >= 1", kernel);
  if (stride < 1) throw_invalid_argument("nsc::conv_output_size", "stride must be >= 1", stride);
  if (padding < same_padding)
    throw_invalid_argument("nsc::conv_output_size", "padding must be >= 0 (or same_padding)",
                           padding);
  const std::int64_t out = detail::cnn_output_size(in, kernel, stride, padding);
  if (out < 1)
    throw_invalid_argument("nsc::conv_output_size",
                           "the kernel does not fit the padded input (in + 2 padding < kernel)",
                           in);
  return out;
}

/// MobileNet's channel rounding (the rule torchvision's _make_divisible and OFA's make_divisible
/// implement): the multiple of `divisor` nearest to v (ties up), at least min_value (default:
/// divisor), plus one more divisor if that lost more than 10% of v. divisor must be >= 1.
inline std::int64_t make_divisible(double v, std::int64_t divisor, std::int64_t min_value = 0) {
  if (divisor < 1) throw_invalid_argument("nsc::make_divisible", "divisor must be >= 1", divisor);
  if (!(v >= 0) || v > 1e15)
    throw_invalid_argument("nsc::make_divisible", "v must be in [0, 1e15]", v);
  if (min_value <= 0) min_value = divisor;
  const auto d = double(divisor);
  std::int64_t r = std::int64_t(v + d / 2) / divisor * divisor;
  if (r < min_value) r = min_value;
  if (double(r) < 0.9 * v) r += divisor;
  return r;
}

/// A square k x k Conv2d. Designated initialisers read well:
///     conv_spec{.name = "conv_a", .out_channels = 64, .kernel = 3, .stride = 2,
///               .batch_norm = true}
struct conv_spec {
  std::string name = "conv";
  std::int64_t out_channels = 0;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t groups = 1;             ///< must divide c_in and c_out; c_in for depthwise
  std::int64_t padding = same_padding; ///< same_padding or an explicit symmetric padding >= 0
  bool bias = false;
  bool batch_norm = false; ///< BatchNorm(c_out) after the conv: 2 c_out parameters
  part kind = part::conv;
};

/// Depthwise k x k conv of `channels` channels (groups = channels), BatchNorm by default.
inline conv_spec depthwise_conv(std::string name, std::int64_t channels, std::int64_t kernel,
                                std::int64_t stride = 1, bool batch_norm = true) {
  return {std::move(name), channels, kernel,     stride,    channels,
          same_padding,    false,    batch_norm, part::conv};
}

/// Pointwise (1 x 1) conv to `out_channels`, BatchNorm by default.
inline conv_spec pointwise_conv(std::string name, std::int64_t out_channels, bool batch_norm = true,
                                std::int64_t stride = 1) {
  return {std::move(name), out_channels, 1, stride, 1, same_padding, false, batch_norm, part::conv};
}

/// A Linear over the flattened input, applied once per image.
struct linear_spec {
  std::string name = "classifier";
  std::int64_t out_features = 0;
  bool bias = true;
  part kind = part::head;
};

/// Squeeze-excite on C channels: global pool, reduce 1x1 conv C -> hidden (+ bias), activation,
/// expand 1x1 conv hidden -> C (+ bias), gate. Both convs are applied at 1 x 1 spatial (one
/// application each). hidden = make_divisible(C / reduction, divisor) (integer division first,
/// as torchvision and OFA do; divisor 1 gives plain C / reduction, at least 1), unless
/// `hidden` > 0 is given.
struct se_spec {
  std::int64_t reduction = 4;
  std::int64_t divisor = 8;
  std::int64_t hidden = 0;
  bool bias = true;
  part kind = part::conv; ///< part of the two SE weights (they are 1x1 convs / linears)
};

/// Hidden width of a squeeze-excite on `channels` channels (see se_spec).
inline std::int64_t se_hidden_channels(std::int64_t channels, const se_spec& se) {
  if (se.hidden > 0) return se.hidden;
  if (se.reduction < 1)
    throw_invalid_argument("nsc::se_hidden_channels", "SE reduction must be >= 1", se.reduction);
  if (se.divisor < 1)
    throw_invalid_argument("nsc::se_hidden_channels", "SE divisor must be >= 1", se.divisor);
  return make_divisible(double(channels / se.reduction), se.divisor);
}

/// Inverted residual (MobileNetV2 / V3 "MBConv") block in -> out:
///   expand    1x1 conv in -> expanded (+ BN); absent when expanded == in (expand ratio 1)
///   depthwise k x k conv, groups = expanded, stride (+ BN)
///   SE        on the expanded channels, after the depthwise conv (optional)
///   project   1x1 conv expanded -> out (+ BN)
/// The identity residual (stride 1, in == out) has no weights.
struct inverted_residual_spec {
  std::int64_t out_channels = 0;
  std::int64_t expanded_channels = 0; ///< the block's middle width (e.g. in * expand ratio)
  std::int64_t kernel = 3;
  std::int64_t stride = 1;
  bool squeeze_excite = false;
  se_spec se{};
  bool batch_norm = true;
};

/// Shortcut of a ResNet basic block when its shape changes (stride > 1 or c_in != c_out).
///  * conv_bn:        Conv1x1(stride) + BatchNorm (torchvision's ResNet "downsample").
///  * avgpool_conv:   xautodl's ResNetBasicblock (NATS-Bench): stride 2 -> AvgPool 2x2 then
///                    Conv1x1 without BatchNorm; stride 1 with c_in != c_out -> Conv1x1 + BN.
enum class shortcut_style { conv_bn, avgpool_conv };

constexpr std::string_view to_string(shortcut_style s) noexcept {
  return s == shortcut_style::conv_bn ? "conv_bn" : "avgpool_conv";
}

/// ResNet basic block in -> out: conv_a 3x3 (stride) + BN, conv_b 3x3 + BN, and a 1x1
/// shortcut when the shape changes (identity otherwise).
struct basic_block_spec {
  std::int64_t out_channels = 0;
  std::int64_t stride = 1;
  shortcut_style shortcut = shortcut_style::conv_bn;
  bool batch_norm = true;
};

/// The skip edge node0 -> node3 of the NAS-Bench-201 best cell when c_in != c_out (identity
/// when c_in == c_out):
///  * conv1x1:            one Conv1x1(c_in -> c_out) + BN (xautodl's stride-1 FactorizedReduce,
///                        the network NATS-Bench trains; the paper figure's scoring protocol).
///  * factorized_reduce:  two Conv1x1 (c_in -> floor(c_out / 2)) and
///                        (c_in -> c_out - floor(c_out / 2)) + BN(c_out) (the stride-2 form; the
///                        paper's all-32,768 scoring script).
/// Both have c_in c_out weights and 2 c_out BN parameters: #Params and MACs are identical, only
/// the scored matrices differ.
enum class nats_skip { conv1x1, factorized_reduce };

constexpr std::string_view to_string(nats_skip s) noexcept {
  return s == nats_skip::conv1x1 ? "conv1x1" : "factorized_reduce";
}

/// Parses "conv1x1" or "factorized_reduce"; std::invalid_argument otherwise.
inline nats_skip parse_nats_skip(std::string_view name) {
  if (name == "conv1x1") return nats_skip::conv1x1;
  if (name == "factorized_reduce") return nats_skip::factorized_reduce;
  throw_invalid_argument("nsc::parse_nats_skip",
                         "unknown NATS skip protocol; expected conv1x1 or factorized_reduce",
                         std::string(name));
}

/// Appends a Conv2d to `l` (and 2 c_out BN parameters if c.batch_norm); returns the output map.
inline feature_map add_conv(layer& l, const feature_map& in, const conv_spec& c) {
  const std::string what = detail::cnn_weight(c.name);
  detail::cnn_check_input(l, what, in);
  if (c.out_channels < 1) detail::cnn_fail(l.name, what, "c_out must be >= 1", c.out_channels);
  if (c.kernel < 1) detail::cnn_fail(l.name, what, "kernel must be >= 1", c.kernel);
  if (c.stride < 1) detail::cnn_fail(l.name, what, "stride must be >= 1", c.stride);
  if (c.groups < 1) detail::cnn_fail(l.name, what, "groups must be >= 1", c.groups);
  if (in.channels % c.groups != 0)
    detail::cnn_fail(
        l.name, what,
        detail::cnn_cat({"groups must divide c_in (", std::to_string(in.channels), ")"}), c.groups);
  if (c.out_channels % c.groups != 0)
    detail::cnn_fail(
        l.name, what,
        detail::cnn_cat({"groups must divide c_out (", std::to_string(c.out_channels), ")"}),
        c.groups);
  if (c.padding < same_padding)
    detail::cnn_fail(l.name, what, "padding must be >= 0 (or same_padding)", c.padding);
  const std::int64_t h = detail::cnn_output_size(in.height, c.kernel, c.stride, c.padding);
  const std::int64_t w = detail::cnn_output_size(in.width, c.kernel, c.stride, c.padding);
  if (h < 1 || w < 1)
    detail::cnn_fail(
        l.name, what,
        detail::cnn_cat({"kernel does not fit the padded input (input height x width ",
                         std::to_string(in.height), " x ", std::to_string(in.width), ")"}),
        c.kernel);
  weight wt = conv2d(c.name, c.out_channels, in.channels, c.kernel, c.kernel, c.groups,
                     double(h) * double(w), c.bias);
  wt.kind = c.kind;
  l.weights.push_back(std::move(wt));
  if (c.batch_norm) l.norm_params += 2 * c.out_channels;
  return {c.out_channels, h, w};
}

/// Appends a Linear (in_features = C H W of `in`, applied once per image); returns {out, 1, 1}.
inline feature_map add_linear(layer& l, const feature_map& in, const linear_spec& s) {
  const std::string what = detail::cnn_weight(s.name);
  detail::cnn_check_input(l, what, in);
  if (s.out_features < 1)
    detail::cnn_fail(l.name, what, "out_features must be >= 1", s.out_features);
  l.weights.push_back(linear(s.name, s.kind, s.out_features, in.elements(), s.bias));
  return {s.out_features, 1, 1};
}

/// Adds a BatchNorm over the channels of `in` (2 C parameters); returns `in`.
inline feature_map add_batch_norm(layer& l, const feature_map& in) {
  detail::cnn_check_input(l, "batch norm", in);
  l.norm_params += 2 * in.channels;
  return in;
}

/// Global average pooling: {C, 1, 1}.
constexpr feature_map global_pool(const feature_map& in) { return {in.channels, 1, 1}; }

/// Output of a k x k pooling window (max or average: no weights).
inline feature_map pool_output(const layer& l, const feature_map& in, std::int64_t kernel,
                               std::int64_t stride, std::int64_t padding = 0) {
  detail::cnn_check_input(l, "pooling", in);
  if (kernel < 1) detail::cnn_fail(l.name, "pooling", "kernel must be >= 1", kernel);
  if (stride < 1) detail::cnn_fail(l.name, "pooling", "stride must be >= 1", stride);
  if (padding < same_padding)
    detail::cnn_fail(l.name, "pooling", "padding must be >= 0 (or same_padding)", padding);
  const std::int64_t h = detail::cnn_output_size(in.height, kernel, stride, padding);
  const std::int64_t w = detail::cnn_output_size(in.width, kernel, stride, padding);
  if (h < 1 || w < 1)
    detail::cnn_fail(l.name, "pooling", "kernel does not fit the padded input", kernel);
  return {in.channels, h, w};
}

/// Appends a squeeze-excite on the channels of `in` (weights "<prefix>.reduce" and
/// "<prefix>.expand", each applied once); returns `in` (SE keeps the shape).
inline feature_map add_squeeze_excite(layer& l, const feature_map& in, const se_spec& se = {},
                                      const std::string& prefix = "se") {
  const std::string what = detail::cnn_cat({"squeeze-excite '", prefix, "'"});
  detail::cnn_check_input(l, what, in);
  if (se.hidden < 0) detail::cnn_fail(l.name, what, "SE hidden must be >= 0", se.hidden);
  if (se.hidden == 0 && se.reduction < 1)
    detail::cnn_fail(l.name, what, "SE reduction must be >= 1", se.reduction);
  if (se.hidden == 0 && se.divisor < 1)
    detail::cnn_fail(l.name, what, "SE divisor must be >= 1", se.divisor);
  const std::int64_t hidden = se_hidden_channels(in.channels, se);
  const feature_map pooled = global_pool(in);
  const conv_spec reduce{
      detail::cnn_cat({prefix, ".reduce"}), hidden, 1, 1, 1, same_padding, se.bias, false, se.kind};
  const feature_map mid = add_conv(l, pooled, reduce);
  const conv_spec expand{detail::cnn_cat({prefix, ".expand"}),
                         in.channels,
                         1,
                         1,
                         1,
                         same_padding,
                         se.bias,
                         false,
                         se.kind};
  add_conv(l, mid, expand);
  return in;
}

/// Appends an inverted residual block (weights "expand", "depthwise", "se.reduce", "se.expand",
/// "project"); returns the output map.
inline feature_map add_inverted_residual(layer& l, const feature_map& in,
                                         const inverted_residual_spec& s) {
  detail::cnn_check_input(l, "inverted residual", in);
  if (s.expanded_channels < 1)
    detail::cnn_fail(l.name, "inverted residual", "expanded_channels must be >= 1",
                     s.expanded_channels);
  if (s.out_channels < 1)
    detail::cnn_fail(l.name, "inverted residual", "out_channels must be >= 1", s.out_channels);
  feature_map x = in;
  if (s.expanded_channels != in.channels)
    x = add_conv(l, x, pointwise_conv("expand", s.expanded_channels, s.batch_norm));
  x = add_conv(l, x,
               depthwise_conv("depthwise", s.expanded_channels, s.kernel, s.stride, s.batch_norm));
  if (s.squeeze_excite) x = add_squeeze_excite(l, x, s.se, "se");
  return add_conv(l, x, pointwise_conv("project", s.out_channels, s.batch_norm));
}

/// Appends a ResNet basic block (weights "conv_a", "conv_b", "shortcut"); returns the output map.
/// std::invalid_argument if the shortcut's resolution differs from the main path's (an
/// avgpool_conv shortcut on an odd input size).
inline feature_map add_basic_block(layer& l, const feature_map& in, const basic_block_spec& s) {
  detail::cnn_check_input(l, "basic block", in);
  if (s.out_channels < 1)
    detail::cnn_fail(l.name, "basic block", "out_channels must be >= 1", s.out_channels);
  const feature_map a = add_conv(
      l, in,
      {"conv_a", s.out_channels, 3, s.stride, 1, same_padding, false, s.batch_norm, part::conv});
  const feature_map b = add_conv(
      l, a, {"conv_b", s.out_channels, 3, 1, 1, same_padding, false, s.batch_norm, part::conv});
  if (s.stride == 1 && in.channels == s.out_channels) return b;
  feature_map sc;
  if (s.shortcut == shortcut_style::avgpool_conv && s.stride > 1) {
    const feature_map pooled = pool_output(l, in, s.stride, s.stride, 0);
    sc = add_conv(l, pooled, pointwise_conv("shortcut", s.out_channels, false));
  } else {
    sc = add_conv(l, in, pointwise_conv("shortcut", s.out_channels, s.batch_norm, s.stride));
  }
  if (!(sc == b))
    detail::cnn_fail(l.name, "weight 'shortcut'",
                     detail::cnn_cat({"shortcut output ", std::to_string(sc.height), " x ",
                                      std::to_string(sc.width), " differs from the main path's ",
                                      std::to_string(b.height), " x ", std::to_string(b.width),
                                      " (input height)"}),
                     in.height);
  return b;
}

/// Appends the fixed NAS-Bench-201 best cell c_in -> c_out used by NATS-Bench SSS
/// (|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|+|skip_connect~0|nor_conv_3x3~1|nor_conv_3x3~2|):
/// five ReLU-Conv3x3-BN edges "edge_1_0" (c_in -> c_out), "edge_2_0" (c_in -> c_out),
/// "edge_2_1", "edge_3_1", "edge_3_2" (c_out -> c_out), all stride 1, and the skip edge node0 ->
/// node3: identity when c_in == c_out, else per `skip` ("skip", or "skip.0" and "skip.1").
inline feature_map add_nats_cell(layer& l, const feature_map& in, std::int64_t out_channels,
                                 nats_skip skip = nats_skip::conv1x1) {
  detail::cnn_check_input(l, "NATS cell", in);
  if (out_channels < 1)
    detail::cnn_fail(l.name, "NATS cell", "out_channels must be >= 1", out_channels);
  auto edge = [&](const char* name) {
    return conv_spec{name, out_channels, 3, 1, 1, same_padding, false, true, part::conv};
  };
  const feature_map n1 = add_conv(l, in, edge("edge_1_0"));
  add_conv(l, in, edge("edge_2_0"));
  const feature_map n2 = add_conv(l, n1, edge("edge_2_1"));
  if (in.channels != out_channels) {
    if (skip == nats_skip::conv1x1) {
      add_conv(l, in, pointwise_conv("skip", out_channels, true));
    } else {
      if (out_channels < 2)
        detail::cnn_fail(l.name, "weight 'skip'", "the factorized_reduce skip needs c_out >= 2",
                         out_channels);
      const std::int64_t half = out_channels / 2;
      add_conv(l, in, pointwise_conv("skip.0", half, false));
      add_conv(l, in, pointwise_conv("skip.1", out_channels - half, false));
      l.norm_params += 2 * out_channels;
    }
  }
  add_conv(l, n1, edge("edge_3_1"));
  return add_conv(l, n2, edge("edge_3_2"));
}

/// Builds a network operation by operation, tracking the feature map. Each begin_layer() starts
/// a new nsc::layer; operations append to the current one (std::invalid_argument if none was
/// started). Example (a small CIFAR ResNet):
///
///     nsc::cnn_builder b("resnet8", {3, 32, 32});
///     b.begin_layer("stem").conv({.name = "conv", .out_channels = 16, .kernel = 3,
///                                 .batch_norm = true});
///     b.begin_layer("block1").basic_block({.out_channels = 32, .stride = 2});
///     b.begin_layer("head").global_pool().linear({.out_features = 10});
///     nsc::network net = std::move(b).build();
class cnn_builder {
public:
  cnn_builder(std::string network_name, feature_map input) : shape_(input) {
    net_.name = std::move(network_name);
    net_.per = "image";
    if (input.channels < 1 || input.height < 1 || input.width < 1)
      throw_invalid_argument("nsc::cnn_builder",
                             "input channels, height and width must be >= 1 (channels)",
                             input.channels);
  }

  /// Starts a new layer named `name`.
  cnn_builder& begin_layer(std::string name) {
    layer l;
    l.name = std::move(name);
    net_.layers.push_back(std::move(l));
    return *this;
  }

  cnn_builder& conv(const conv_spec& c) {
    shape_ = add_conv(current("conv"), shape_, c);
    return *this;
  }
  cnn_builder& batch_norm() {
    shape_ = add_batch_norm(current("batch_norm"), shape_);
    return *this;
  }
  /// Max or average pooling (no weights).
  cnn_builder& pool(std::int64_t kernel, std::int64_t stride, std::int64_t padding = 0) {
    shape_ = pool_output(current("pool"), shape_, kernel, stride, padding);
    return *this;
  }
  cnn_builder& global_pool() {
    shape_ = nsc::global_pool(shape_);
    return *this;
  }
  cnn_builder& squeeze_excite(const se_spec& se = {}, const std::string& prefix = "se") {
    shape_ = add_squeeze_excite(current("squeeze_excite"), shape_, se, prefix);
    return *this;
  }
  cnn_builder& inverted_residual(const inverted_residual_spec& s) {
    shape_ = add_inverted_residual(current("inverted_residual"), shape_, s);
    return *this;
  }
  cnn_builder& basic_block(const basic_block_spec& s) {
    shape_ = add_basic_block(current("basic_block"), shape_, s);
    return *this;
  }
  cnn_builder& nats_cell(std::int64_t out_channels, nats_skip skip = nats_skip::conv1x1) {
    shape_ = add_nats_cell(current("nats_cell"), shape_, out_channels, skip);
    return *this;
  }
  cnn_builder& linear(const linear_spec& s) {
    shape_ = add_linear(current("linear"), shape_, s);
    return *this;
  }

  /// The current feature map (the input of the next operation).
  const feature_map& shape() const noexcept { return shape_; }
  const network& net() const noexcept { return net_; }
  /// The network built so far.
  network build() && { return std::move(net_); }
  network build() const& { return net_; }

private:
  layer& current(std::string_view op) {
    if (net_.layers.empty())
      throw_invalid_argument("nsc::cnn_builder", "call begin_layer() before the first operation",
                             std::string(op));
    return net_.layers.back();
  }

  network net_;
  feature_map shape_;
};

} // namespace nsc

#endif // NSC_MODEL_CNN_HPP
