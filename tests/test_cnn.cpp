// Tests for nsc/model/cnn.hpp: spatial arithmetic, conv / SE / inverted residual / basic block /
// NATS cell lowering, scoring of grouped and depthwise convs, validation errors.
// Expected parameter counts are hand arithmetic, and the published torchvision totals of
// ResNet-18 (11,689,512 parameters, 1.814 GMACs) and MobileNetV3-Large (5,483,032 parameters).
#include <nsc/model/cnn.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/spectral/psi.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using Catch::Contains;
using nsc::feature_map;

namespace {

using i64 = std::int64_t;

double psi_x(double rows, double cols) { return nsc::psi(rows, cols, nsc::init::xavier_normal()); }

double psi_v(double rows, double cols, double v) {
  return nsc::psi_mp(rows, cols, v, nsc::default_policy());
}

nsc::scoring block_scoring() {
  nsc::scoring s;
  s.score_embeddings = true;
  return s;
}

nsc::scoring tensor_scoring() {
  nsc::scoring s = block_scoring();
  s.source = nsc::variance_source::tensor;
  return s;
}

nsc::layer named(const char* n) {
  nsc::layer l;
  l.name = n;
  return l;
}

const nsc::weight& find(const nsc::layer& l, const std::string& name) {
  for (const auto& w : l.weights)
    if (w.name == name) return w;
  FAIL("no weight " << name << " in layer " << l.name);
  throw std::logic_error("unreachable");
}

bool has(const nsc::layer& l, const std::string& name) {
  for (const auto& w : l.weights)
    if (w.name == name) return true;
  return false;
}

} // namespace

TEST_CASE("conv_output_size: 'same' and explicit padding", "[cnn][spatial]") {
  using nsc::conv_output_size;
  using nsc::same_padding;
  CHECK(conv_output_size(32, 3, 1) == 32);
  CHECK(conv_output_size(32, 3, 2) == 16);
  CHECK(conv_output_size(33, 3, 2) == 17); // ceil
  CHECK(conv_output_size(7, 7, 2) == 4);
  CHECK(conv_output_size(1, 5, 2) == 1);
  CHECK(conv_output_size(224, 7, 2, 3) == 112); // ResNet stem
  CHECK(conv_output_size(112, 3, 2, 1) == 56);  // ResNet max pool
  CHECK(conv_output_size(5, 3, 1, 0) == 3);
  CHECK(conv_output_size(5, 5, 1, 0) == 1);
  CHECK(conv_output_size(16, 2, 2, 0) == 8); // AvgPool 2x2
  CHECK(conv_output_size(17, 2, 2, 0) == 8);
  CHECK_THROWS_WITH(conv_output_size(4, 5, 1, 0), Contains("does not fit"));
  CHECK_THROWS_WITH(conv_output_size(0, 3, 1), Contains("input size must be >= 1"));
  CHECK_THROWS_WITH(conv_output_size(8, 0, 1), Contains("kernel must be >= 1"));
  CHECK_THROWS_WITH(conv_output_size(8, 3, 0), Contains("stride must be >= 1"));
  CHECK_THROWS_WITH(conv_output_size(8, 3, 1, -2), Contains("padding must be >= 0"));
  CHECK(conv_output_size(8, 3, 1, same_padding) == 8);
}

TEST_CASE("make_divisible follows the MobileNet rule", "[cnn]") {
  using nsc::make_divisible;
  CHECK(make_divisible(16, 8) == 16);
  CHECK(make_divisible(18, 8) == 24); // 16 would lose more than 10%
  CHECK(make_divisible(30, 8) == 32);
  CHECK(make_divisible(60, 8) == 64);
  CHECK(make_divisible(168, 8) == 168);
  CHECK(make_divisible(3, 8) == 8);   // min_value = divisor
  CHECK(make_divisible(20, 8) == 24); // ties round up: int(20 + 4) / 8 * 8
  CHECK(make_divisible(7, 1) == 7);
  CHECK(make_divisible(7, 4, 16) == 16);
  CHECK_THROWS_WITH(make_divisible(8, 0), Contains("divisor must be >= 1"));
  CHECK_THROWS_WITH(make_divisible(-1, 8), Contains("v must be"));
}

TEST_CASE("add_conv: shape, parameters, BatchNorm, bias, MACs", "[cnn]") {
  nsc::layer l = named("blk");
  const feature_map out = nsc::add_conv(
      l, {16, 32, 32}, {"c", 32, 3, 2, 1, nsc::same_padding, true, true, nsc::part::conv});
  CHECK(out == feature_map{32, 16, 16});
  REQUIRE(l.weights.size() == 1);
  const nsc::weight& w = l.weights[0];
  CHECK(w.kind == nsc::part::conv);
  CHECK(w.out == 32);
  CHECK(w.in == 16);
  CHECK(w.kernel_h == 3);
  CHECK(w.kernel_w == 3);
  CHECK(w.applications == 256);
  CHECK(l.norm_params == 64);
  const nsc::resources r = nsc::count(l);
  CHECK(r.weights == 16 * 32 * 9);
  CHECK(r.biases == 32);
  CHECK(r.norms == 64);
  CHECK(r.total() == 4608 + 32 + 64);
  CHECK(r.macs == 4608.0 * 256);
  CHECK(r.flops() == 2 * 4608.0 * 256);

  // Explicit padding: a 7x7 stride-2 conv with padding 3 at 224.
  nsc::layer s = named("stem");
  CHECK(nsc::add_conv(s, {3, 224, 224}, {"conv1", 64, 7, 2, 1, 3, false, true, nsc::part::conv}) ==
        feature_map{64, 112, 112});
  // Valid padding (0) shrinks.
  CHECK(nsc::add_conv(s, {4, 10, 12}, {"v", 4, 3, 1, 1, 0, false, false, nsc::part::conv}) ==
        feature_map{4, 8, 10});
  CHECK(s.weights.back().applications == 80);
  // Scored as one (c_out, c_in k^2) matrix with its own Xavier variance.
  CHECK(nsc::psi_of(l.weights[0], block_scoring()) == Approx(psi_x(32, 144)).epsilon(1e-14));
}

TEST_CASE("a depthwise conv is scored as `groups` blocks of (1, k^2)", "[cnn][score]") {
  for (i64 k : {3, 5, 7}) {
    nsc::layer l = named("dw");
    const feature_map out =
        nsc::add_conv(l, {96, 14, 14}, nsc::depthwise_conv("depthwise", 96, k, 2));
    CHECK(out == feature_map{96, 7, 7});
    const nsc::weight& w = l.weights[0];
    CHECK(w.groups == 96);
    CHECK(w.blocks() == 96);
    CHECK(w.block_rows() == 1);
    CHECK(w.block_cols() == double(k * k));
    CHECK(w.weight_params() == 96 * k * k);
    CHECK(w.macs() == double(96 * k * k * 49));
    CHECK(l.norm_params == 2 * 96);
    // Reference convention: Xavier of each block, 2 / (1 + k^2).
    CHECK(nsc::psi_of(w, block_scoring()) ==
          Approx(96 * psi_v(1, double(k * k), 2.0 / double(1 + k * k))).epsilon(1e-14));
    // Framework-faithful: PyTorch's fans of the tensor (c, 1, k, k): fan_in = k^2,
    // fan_out = c k^2.
    CHECK(w.tensor_fans().fan_in == double(k * k));
    CHECK(w.tensor_fans().fan_out == double(96 * k * k));
    CHECK(nsc::psi_of(w, tensor_scoring()) ==
          Approx(96 * psi_v(1, double(k * k), 2.0 / double(k * k + 96 * k * k))).epsilon(1e-14));
  }
}

TEST_CASE("grouped conv: per-group blocks, PyTorch fans under variance_source::tensor",
          "[cnn][score]") {
  nsc::layer l = named("g");
  nsc::add_conv(l, {32, 8, 8},
                {"grouped", 64, 3, 1, 4, nsc::same_padding, false, false, nsc::part::conv});
  const nsc::weight& w = l.weights[0];
  CHECK(w.blocks() == 4);
  CHECK(w.block_rows() == 16);
  CHECK(w.block_cols() == 72);
  CHECK(w.weight_params() == 64 * 8 * 9);
  CHECK(w.tensor_fans().fan_in == 72.0);   // (c_in / groups) k^2
  CHECK(w.tensor_fans().fan_out == 576.0); // c_out k^2 (PyTorch, whatever the groups)
  CHECK(nsc::psi_of(w, tensor_scoring()) ==
        Approx(4 * psi_v(16, 72, 2.0 / (72 + 576))).epsilon(1e-14));
  CHECK(nsc::psi_of(w, block_scoring()) == Approx(4 * psi_x(16, 72)).epsilon(1e-14));
  // Kaiming fan_out under tensor fans: 2 / (c_out k^2).
  nsc::scoring k = tensor_scoring();
  k.initialisation = nsc::init::kaiming_normal(std::sqrt(2.0), nsc::fan_mode::fan_out);
  CHECK(nsc::psi_of(w, k) == Approx(4 * psi_v(16, 72, 2.0 / 576)).epsilon(1e-14));
}

TEST_CASE("pointwise, linear (flattened input), global pool, batch norm", "[cnn]") {
  nsc::layer l = named("head");
  feature_map x{8, 2, 2};
  x = nsc::add_batch_norm(l, x);
  CHECK(l.norm_params == 16);
  // Linear on the flattened 8 x 2 x 2 map.
  CHECK(nsc::add_linear(l, x, {"fc", 10, true, nsc::part::head}) == feature_map{10, 1, 1});
  CHECK(l.weights.back().in == 32);
  CHECK(l.weights.back().kind == nsc::part::head);
  CHECK(l.weights.back().applications == 1);
  CHECK(nsc::add_linear(l, nsc::global_pool(x), {"fc2", 10, false, nsc::part::head}) ==
        feature_map{10, 1, 1});
  CHECK(l.weights.back().in == 8);
  const nsc::resources r = nsc::count(l);
  CHECK(r.total() == 16 + 320 + 10 + 80);
  CHECK(r.embedding == 320 + 10 + 80); // part::head counts as embedding / LM-head parameters
  CHECK(r.macs == 320 + 80);
  nsc::layer p = named("p");
  const nsc::conv_spec pw = nsc::pointwise_conv("pw", 24);
  CHECK(nsc::add_conv(p, {16, 7, 7}, pw) == feature_map{24, 7, 7});
  CHECK(p.weights[0].weight_params() == 16 * 24);
  CHECK(p.norm_params == 48);
  // Heads are scored only when score_embeddings is on.
  nsc::scoring off;
  CHECK(nsc::score(l, off).nsc == 0);
  CHECK(nsc::score(l, block_scoring()).nsc == Approx(psi_x(10, 32) + psi_x(10, 8)).epsilon(1e-14));
}

TEST_CASE("squeeze-excite: parameters, MACs at 1x1, hidden width", "[cnn][se]") {
  nsc::layer l = named("se_layer");
  const feature_map x{120, 28, 28};
  CHECK(nsc::add_squeeze_excite(l, x) == x);
  REQUIRE(l.weights.size() == 2);
  const nsc::weight& red = find(l, "se.reduce");
  const nsc::weight& exp = find(l, "se.expand");
  CHECK(red.out == 32); // make_divisible(120 / 4, 8)
  CHECK(red.in == 120);
  CHECK(exp.out == 120);
  CHECK(exp.in == 32);
  CHECK(red.applications == 1);
  CHECK(exp.applications == 1);
  const nsc::resources r = nsc::count(l);
  CHECK(r.total() == 120 * 32 + 32 + 32 * 120 + 120);
  CHECK(r.norms == 0);
  CHECK(r.macs == 2 * 120 * 32);
  CHECK(nsc::score(l, block_scoring()).nsc == Approx(2 * psi_x(32, 120)).epsilon(1e-14));

  CHECK(nsc::se_hidden_channels(72, {}) == 24); // 18 -> 24 (OFA / torchvision rule)
  CHECK(nsc::se_hidden_channels(960, {}) == 240);
  CHECK(nsc::se_hidden_channels(64, {16, 1, 0, true, nsc::part::conv}) == 4);  // plain C / r
  CHECK(nsc::se_hidden_channels(64, {4, 8, 12, true, nsc::part::conv}) == 12); // explicit
  nsc::layer lin = named("se_lin");
  nsc::add_squeeze_excite(lin, {64, 4, 4}, {16, 1, 0, false, nsc::part::other}, "gate");
  CHECK(has(lin, "gate.reduce"));
  CHECK(nsc::count(lin).total() == 64 * 4 * 2);
  CHECK(find(lin, "gate.expand").kind == nsc::part::other);
}

TEST_CASE("inverted residual: a torchvision MobileNetV3 block by hand", "[cnn][mbconv]") {
  // torchvision mobilenet_v3_large: bneck(40, k5, expanded 120, out 40, SE, stride 1) at 28x28.
  nsc::layer l = named("features.5");
  nsc::inverted_residual_spec s;
  s.out_channels = 40;
  s.expanded_channels = 120;
  s.kernel = 5;
  s.squeeze_excite = true;
  CHECK(nsc::add_inverted_residual(l, {40, 28, 28}, s) == feature_map{40, 28, 28});
  const nsc::resources r = nsc::count(l);
  // expand 40*120 + BN 240; dw 120*25 + BN 240; SE 120*32 + 32 + 32*120 + 120;
  // project 120*40 + BN 80
  CHECK(r.total() == 4800 + 240 + 3000 + 240 + 3872 + 3960 + 4800 + 80);
  CHECK(r.total() == 20992);
  CHECK(r.macs == 4800.0 * 784 + 3000.0 * 784 + 7680 + 4800.0 * 784);
  CHECK(nsc::score(l, block_scoring()).nsc ==
        Approx(psi_x(120, 40) + 120 * psi_x(1, 25) + 2 * psi_x(32, 120) + psi_x(40, 120))
            .epsilon(1e-13));

  // Stride 2 with expand ratio 1 (no expand conv): bneck(16, k3, 16, 16, SE, stride 2) of
  // mobilenet_v3_small at 112 -> 56.
  nsc::layer m = named("small.1");
  nsc::inverted_residual_spec t;
  t.out_channels = 16;
  t.expanded_channels = 16;
  t.kernel = 3;
  t.stride = 2;
  t.squeeze_excite = true;
  CHECK(nsc::add_inverted_residual(m, {16, 112, 112}, t) == feature_map{16, 56, 56});
  CHECK_FALSE(has(m, "expand"));
  CHECK(nsc::count(m).total() == 16 * 9 + 32 + (16 * 8 + 8 + 8 * 16 + 16) + 16 * 16 + 32);
  CHECK(nsc::count(m).macs == 144.0 * 3136 + 256 + 256.0 * 3136);
}

TEST_CASE("torchvision MobileNetV3-Large: 5,483,032 parameters", "[cnn][mbconv]") {
  struct bneck {
    i64 in, k, exp, out;
    bool se;
    i64 stride;
  };
  const std::vector<bneck> cfg{
      {16, 3, 16, 16, false, 1},   {16, 3, 64, 24, false, 2},   {24, 3, 72, 24, false, 1},
      {24, 5, 72, 40, true, 2},    {40, 5, 120, 40, true, 1},   {40, 5, 120, 40, true, 1},
      {40, 3, 240, 80, false, 2},  {80, 3, 200, 80, false, 1},  {80, 3, 184, 80, false, 1},
      {80, 3, 184, 80, false, 1},  {80, 3, 480, 112, true, 1},  {112, 3, 672, 112, true, 1},
      {112, 5, 672, 160, true, 2}, {160, 5, 960, 160, true, 1}, {160, 5, 960, 160, true, 1}};
  nsc::cnn_builder b("mobilenet_v3_large", {3, 224, 224});
  b.begin_layer("stem").conv(
      {"conv", 16, 3, 2, 1, nsc::same_padding, false, true, nsc::part::conv});
  int i = 0;
  for (const bneck& c : cfg) {
    REQUIRE(b.shape().channels == c.in);
    nsc::inverted_residual_spec s;
    s.out_channels = c.out;
    s.expanded_channels = c.exp;
    s.kernel = c.k;
    s.stride = c.stride;
    s.squeeze_excite = c.se;
    b.begin_layer("features." + std::to_string(++i)).inverted_residual(s);
  }
  CHECK(b.shape() == feature_map{160, 7, 7});
  b.begin_layer("last").conv(
      {"conv", 960, 1, 1, 1, nsc::same_padding, false, true, nsc::part::conv});
  b.begin_layer("classifier")
      .global_pool()
      .linear({"fc1", 1280, true, nsc::part::other})
      .linear({"fc2", 1000, true, nsc::part::head});
  const nsc::network net = std::move(b).build();
  CHECK(net.per == "image");
  CHECK(net.layers.size() == 18);
  CHECK(nsc::count(net).total() == 5483032);
}

TEST_CASE("ResNet basic block: shortcut styles by hand", "[cnn][resnet]") {
  // torchvision BasicBlock(64 -> 128, stride 2): conv3x3 s2 + BN, conv3x3 + BN, conv1x1 s2 + BN.
  nsc::layer l = named("layer2.0");
  CHECK(nsc::add_basic_block(l, {64, 56, 56}, {128, 2, nsc::shortcut_style::conv_bn, true}) ==
        feature_map{128, 28, 28});
  CHECK(nsc::count(l).total() == 230144);
  CHECK(nsc::count(l).macs == (73728.0 + 147456 + 8192) * 784);
  CHECK(find(l, "shortcut").applications == 784);
  CHECK(nsc::score(l, block_scoring()).nsc ==
        Approx(psi_x(128, 576) + psi_x(128, 1152) + psi_x(128, 64)).epsilon(1e-13));

  // Identity shortcut: no weight.
  nsc::layer id = named("layer1.0");
  nsc::add_basic_block(id, {64, 56, 56}, {64, 1, nsc::shortcut_style::conv_bn, true});
  CHECK_FALSE(has(id, "shortcut"));
  CHECK(nsc::count(id).total() == 2 * (36864 + 128));

  // xautodl (NATS): AvgPool 2x2 then Conv1x1 without BN, applied at the pooled resolution.
  nsc::layer x = named("resblock");
  CHECK(nsc::add_basic_block(x, {64, 32, 32}, {128, 2, nsc::shortcut_style::avgpool_conv, true}) ==
        feature_map{128, 16, 16});
  CHECK(nsc::count(x).total() == 73728 + 256 + 147456 + 256 + 8192);
  CHECK(find(x, "shortcut").applications == 256);
  // Stride 1 with c_in != c_out: Conv1x1 + BN in both styles.
  nsc::layer y = named("resblock_s1");
  nsc::add_basic_block(y, {32, 8, 8}, {64, 1, nsc::shortcut_style::avgpool_conv, true});
  CHECK(nsc::count(y).total() == 32 * 64 * 9 + 128 + 64 * 64 * 9 + 128 + 32 * 64 + 128);
}

TEST_CASE("torchvision ResNet-18: 11,689,512 parameters, 1.814 GMACs", "[cnn][resnet]") {
  nsc::cnn_builder b("resnet18", {3, 224, 224});
  b.begin_layer("stem").conv({"conv1", 64, 7, 2, 1, 3, false, true, nsc::part::conv}).pool(3, 2, 1);
  CHECK(b.shape() == feature_map{64, 56, 56});
  int i = 0;
  for (i64 width : {64, 128, 256, 512})
    for (int j = 0; j < 2; ++j)
      b.begin_layer("block" + std::to_string(i++))
          .basic_block(
              {width, (j == 0 && width != 64) ? 2 : 1, nsc::shortcut_style::conv_bn, true});
  CHECK(b.shape() == feature_map{512, 7, 7});
  b.begin_layer("fc").global_pool().linear({"fc", 1000, true, nsc::part::head});
  const nsc::resources r = nsc::count(b.net());
  CHECK(r.total() == 11689512);
  CHECK(r.macs == 1814073344.0);
}

TEST_CASE("NATS cell: identity skip, conv1x1 and factorized_reduce", "[cnn][nats]") {
  nsc::layer same = named("cell0");
  CHECK(nsc::add_nats_cell(same, {16, 32, 32}, 16) == feature_map{16, 32, 32});
  CHECK(same.weights.size() == 5);
  CHECK(nsc::count(same).total() == 5 * (16 * 16 * 9 + 32));
  CHECK(nsc::count(same).macs == 5.0 * 2304 * 1024);

  for (i64 co : {32, 7}) {
    nsc::layer a = named("cell2");
    nsc::layer f = named("cell2");
    CHECK(nsc::add_nats_cell(a, {16, 8, 8}, co, nsc::nats_skip::conv1x1) == feature_map{co, 8, 8});
    CHECK(nsc::add_nats_cell(f, {16, 8, 8}, co, nsc::nats_skip::factorized_reduce) ==
          feature_map{co, 8, 8});
    CHECK(a.weights.size() == 6);
    CHECK(f.weights.size() == 7);
    CHECK(find(a, "skip").out == co);
    CHECK(find(f, "skip.0").out == co / 2);
    CHECK(find(f, "skip.1").out == co - co / 2);
    // Same parameters and MACs under both protocols.
    const i64 expect = 2 * 16 * co * 9 + 3 * co * co * 9 + 16 * co + 6 * 2 * co;
    CHECK(nsc::count(a).total() == expect);
    CHECK(nsc::count(f).total() == expect);
    CHECK(nsc::count(a).macs == nsc::count(f).macs);
    // Different scores: one (co, 16) matrix vs two halves.
    const double convs = 2 * psi_x(double(co), 144) + 3 * psi_x(double(co), 9.0 * double(co));
    CHECK(nsc::score(a, block_scoring()).nsc ==
          Approx(convs + psi_x(double(co), 16)).epsilon(1e-13));
    CHECK(
        nsc::score(f, block_scoring()).nsc ==
        Approx(convs + psi_x(double(co / 2), 16) + psi_x(double(co - co / 2), 16)).epsilon(1e-13));
  }
  CHECK(nsc::parse_nats_skip("factorized_reduce") == nsc::nats_skip::factorized_reduce);
  CHECK(std::string(nsc::to_string(nsc::nats_skip::conv1x1)) == "conv1x1");
  CHECK_THROWS_WITH(nsc::parse_nats_skip("fr"), Contains("conv1x1 or factorized_reduce"));
}

TEST_CASE("cnn_builder tracks spatial size and MACs through strides", "[cnn][spatial]") {
  nsc::cnn_builder b("tiny", {3, 33, 33});
  b.begin_layer("stem").conv({"conv", 8, 3, 2, 1, nsc::same_padding, false, true, nsc::part::conv});
  CHECK(b.shape() == feature_map{8, 17, 17});
  b.begin_layer("mb").inverted_residual({16, 32, 5, 2, true, {}, true});
  CHECK(b.shape() == feature_map{16, 9, 9});
  b.begin_layer("down").conv({"conv", 16, 3, 2, 1, 0, false, false, nsc::part::conv});
  CHECK(b.shape() == feature_map{16, 4, 4});
  b.begin_layer("head").global_pool().linear({"fc", 10, true, nsc::part::head});
  CHECK(b.shape() == feature_map{10, 1, 1});
  const nsc::network net = b.build();
  REQUIRE(net.layers.size() == 4);
  const double expect = 27.0 * 8 * 289                    // stem at 17 x 17
                        + 8.0 * 32 * 289 + 32.0 * 25 * 81 // expand at 17, dw s2 at 9
                        + 2.0 * 32 * 8 + 32.0 * 16 * 81   // SE (hidden 8), project
                        + 16.0 * 16 * 9 * 16              // valid 3x3 s2: 9 -> 4
                        + 160;                            // classifier
  CHECK(nsc::count(net).macs == expect);
  // score(net) is the sum of the layers' scores and of psi_of over the weights.
  const nsc::network_score ns = nsc::score(net, block_scoring());
  double sum = 0;
  for (const auto& l : net.layers)
    for (const auto& w : l.weights) sum += nsc::psi_of(w, block_scoring());
  CHECK(ns.nsc == Approx(sum).epsilon(1e-14));
  CHECK(ns.part_total(nsc::part::head) == Approx(psi_x(10, 16)).epsilon(1e-14));
  CHECK(ns.part_total(nsc::part::conv) + ns.part_total(nsc::part::head) ==
        Approx(ns.nsc).epsilon(1e-14));
}

TEST_CASE("validation errors name the layer, the weight and the rule", "[cnn][errors]") {
  nsc::layer l = named("blk3");
  const feature_map x{12, 8, 8};
  CHECK_THROWS_AS(
      nsc::add_conv(l, x, {"dw", 12, 3, 1, 5, nsc::same_padding, false, false, nsc::part::conv}),
      std::invalid_argument);
  CHECK_THROWS_WITH(
      nsc::add_conv(l, x, {"dw", 12, 3, 1, 5, nsc::same_padding, false, false, nsc::part::conv}),
      Contains("nsc::cnn: layer 'blk3', weight 'dw': groups must divide c_in (12) (got 5)"));
  CHECK_THROWS_WITH(
      nsc::add_conv(l, x, {"g", 10, 3, 1, 4, nsc::same_padding, false, false, nsc::part::conv}),
      Contains("groups must divide c_out"));
  CHECK_THROWS_WITH(
      nsc::add_conv(l, x, {"z", 0, 3, 1, 1, nsc::same_padding, false, false, nsc::part::conv}),
      Contains("weight 'z': c_out must be >= 1 (got 0)"));
  CHECK_THROWS_WITH(
      nsc::add_conv(l, x, {"k", 4, 0, 1, 1, nsc::same_padding, false, false, nsc::part::conv}),
      Contains("kernel must be >= 1"));
  CHECK_THROWS_WITH(
      nsc::add_conv(l, x, {"s", 4, 3, 0, 1, nsc::same_padding, false, false, nsc::part::conv}),
      Contains("stride must be >= 1"));
  CHECK_THROWS_WITH(
      nsc::add_conv(l, x, {"g0", 4, 3, 1, 0, nsc::same_padding, false, false, nsc::part::conv}),
      Contains("groups must be >= 1"));
  CHECK_THROWS_WITH(nsc::add_conv(l, x, {"p", 4, 3, 1, 1, -3, false, false, nsc::part::conv}),
                    Contains("padding must be >= 0"));
  CHECK_THROWS_WITH(nsc::add_conv(l, x, {"big", 4, 11, 1, 1, 0, false, false, nsc::part::conv}),
                    Contains("layer 'blk3', weight 'big': kernel does not fit the padded input"));
  CHECK_THROWS_WITH(nsc::add_conv(l, {0, 8, 8}, nsc::pointwise_conv("pw", 4)),
                    Contains("input channels must be >= 1"));
  CHECK_THROWS_WITH(nsc::add_linear(l, x, {"fc", 0, true, nsc::part::head}),
                    Contains("weight 'fc': out_features must be >= 1"));
  CHECK_THROWS_WITH(nsc::add_squeeze_excite(l, x, {0, 8, 0, true, nsc::part::conv}),
                    Contains("squeeze-excite 'se': SE reduction must be >= 1"));
  CHECK_THROWS_WITH(nsc::add_inverted_residual(l, x, {16, 0, 3, 1, false, {}, true}),
                    Contains("layer 'blk3', inverted residual: expanded_channels must be >= 1"));
  CHECK_THROWS_WITH(nsc::add_inverted_residual(l, x, {0, 24, 3, 1, false, {}, true}),
                    Contains("out_channels must be >= 1"));
  CHECK_THROWS_WITH(nsc::add_inverted_residual(l, x, {16, 24, 0, 1, false, {}, true}),
                    Contains("weight 'depthwise': kernel must be >= 1"));
  CHECK_THROWS_WITH(
      nsc::add_basic_block(l, {12, 5, 5}, {24, 2, nsc::shortcut_style::avgpool_conv, true}),
      Contains("weight 'shortcut': shortcut output 2 x 2 differs from the main path's 3 x 3"));
  CHECK_THROWS_WITH(nsc::add_nats_cell(l, x, 1, nsc::nats_skip::factorized_reduce),
                    Contains("factorized_reduce skip needs c_out >= 2"));
  CHECK_THROWS_WITH(nsc::pool_output(l, x, 9, 1, 0), Contains("pooling: kernel does not fit"));

  nsc::cnn_builder b("net", {3, 8, 8});
  CHECK_THROWS_WITH(b.conv(nsc::pointwise_conv("pw", 4)), Contains("call begin_layer() before"));
  b.begin_layer("stem");
  CHECK_THROWS_WITH(b.conv({"c", 4, 3, 1, 3, nsc::same_padding, false, false, nsc::part::conv}),
                    Contains("layer 'stem', weight 'c': groups must divide c_out (4) (got 3)"));
  CHECK_THROWS_WITH(nsc::cnn_builder("bad", {3, 0, 8}), Contains("must be >= 1"));
}
