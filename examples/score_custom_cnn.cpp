// Score your own CNN with nsc: build it layer by layer with nsc::cnn_builder, then read its NSC,
// #Params, MFLOPs per image and the per-layer / per-part breakdown.
//
// Two CIFAR-10 (32 x 32) candidates with a similar parameter budget (~0.7M):
//   * a ResNet-ish network of basic blocks (widths 32, 64, 128),
//   * a MobileNet-ish network of inverted residual blocks (expand 4) with squeeze-excite.
// Which one has more spectral capacity per parameter? Copy this file, change the builders.
//
// Exit status 0 if every consistency check holds, 1 otherwise (run by ctest).
#include <nsc/model/cnn.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace {

nsc::network resnet_ish() {
  nsc::cnn_builder b("resnet_ish", {3, 32, 32});
  b.begin_layer("stem").conv({.name = "conv", .out_channels = 32, .kernel = 3, .batch_norm = true});
  const std::int64_t widths[] = {32, 64, 128};
  for (int stage = 0; stage < 3; ++stage) {
    for (int block = 0; block < 2; ++block) {
      b.begin_layer("stage" + std::to_string(stage) + ".block" + std::to_string(block))
          .basic_block(
              {.out_channels = widths[stage], .stride = (stage > 0 && block == 0) ? 2 : 1});
    }
  }
  b.begin_layer("head").global_pool().linear({.name = "fc", .out_features = 10});
  return std::move(b).build();
}

nsc::network mobilenet_ish() {
  nsc::cnn_builder b("mobilenet_ish", {3, 32, 32});
  b.begin_layer("stem").conv({.name = "conv", .out_channels = 32, .kernel = 3, .batch_norm = true});
  struct stage {
    std::int64_t out, expand, kernel, stride, blocks;
    bool se;
  };
  const stage stages[] = {{24, 4, 3, 1, 2, false},
                          {48, 4, 5, 2, 3, true},
                          {96, 4, 5, 2, 3, true},
                          {128, 4, 3, 1, 1, true}};
  int s = 0;
  for (const stage& st : stages) {
    for (std::int64_t j = 0; j < st.blocks; ++j) {
      const std::int64_t in = b.shape().channels;
      b.begin_layer("stage" + std::to_string(s) + ".block" + std::to_string(j))
          .inverted_residual({.out_channels = st.out,
                              .expanded_channels = in * st.expand,
                              .kernel = st.kernel,
                              .stride = j == 0 ? st.stride : 1,
                              .squeeze_excite = st.se});
    }
    ++s;
  }
  b.begin_layer("head")
      .conv({.name = "conv", .out_channels = 256, .kernel = 1, .batch_norm = true})
      .global_pool()
      .linear({.name = "fc", .out_features = 10});
  return std::move(b).build();
}

struct report {
  double nsc = 0;
  std::int64_t params = 0;
  double mflops = 0;
};

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// Prints the scores of `net` and returns false if a consistency check fails.
bool show(const nsc::network& net, const nsc::scoring& rule, report& out) {
  nsc::psi_cache cache;
  const nsc::network_score ns = nsc::score(net, rule, &cache);
  const nsc::resources total = nsc::count(net);
  std::printf("\n%s\n", net.name.c_str());
  std::printf("  %-16s %12s %12s %12s\n", "layer", "NSC", "params", "MFLOPs");
  bool ok = ns.layers.size() == net.layers.size();
  double layer_sum = 0;
  std::int64_t params_sum = 0;
  double macs_sum = 0;
  for (std::size_t i = 0; ok && i < net.layers.size(); ++i) {
    const nsc::resources r = nsc::count(net.layers[i]);
    std::printf("  %-16s %12.3f %12lld %12.3f\n", net.layers[i].name.c_str(), ns.layers[i].nsc,
                static_cast<long long>(r.total()), r.flops() / 1e6);
    layer_sum += ns.layers[i].nsc;
    params_sum += r.total();
    macs_sum += r.macs;
    ok = ok && std::isfinite(ns.layers[i].nsc) && ns.layers[i].nsc >= 0;
  }
  std::printf("  %-16s %12.3f %12lld %12.3f\n", "total", ns.nsc,
              static_cast<long long>(total.total()), total.flops() / 1e6);
  std::printf("  by part:");
  double part_sum = 0;
  for (std::size_t p = 0; p < nsc::part_count; ++p) {
    part_sum += ns.by_part[p];
    if (ns.by_part[p] != 0)
      std::printf("  %s %.3f", std::string(nsc::to_string(static_cast<nsc::part>(p))).c_str(),
                  ns.by_part[p]);
  }
  std::printf("\n  weights %lld, biases %lld, BatchNorm %lld; NSC per 1k params %.4f\n",
              static_cast<long long>(total.weights), static_cast<long long>(total.biases),
              static_cast<long long>(total.norms), 1e3 * ns.nsc / double(total.total()));

  ok = ok && std::isfinite(ns.nsc) && ns.nsc > 0 && close(layer_sum, ns.nsc) &&
       close(part_sum, ns.nsc) && params_sum == total.total() && close(macs_sum, total.macs) &&
       total.total() > 0 && total.macs > 0 &&
       close(nsc::aggregate(ns, nsc::aggregation::sum), ns.nsc);
  if (!ok) std::printf("  INCONSISTENT: layer, part or resource sums disagree\n");
  out = {ns.nsc, total.total(), total.flops() / 1e6};
  return ok;
}

} // namespace

int main() {
  try {
    // The paper's CNN convention: Xavier of each scored matrix, psi_MP, classifier scored.
    nsc::scoring paper;
    paper.score_embeddings = true;
    // A framework-faithful alternative: the variance PyTorch's xavier_normal_ draws per tensor.
    nsc::scoring faithful = paper;
    faithful.source = nsc::variance_source::tensor;

    report a, b;
    bool ok = show(resnet_ish(), paper, a);
    ok = show(mobilenet_ish(), paper, b) && ok;

    std::printf("\n%-14s %12s %12s %12s %14s\n", "network", "NSC", "params", "MFLOPs",
                "NSC (tensor)");
    const double fa = nsc::score(resnet_ish(), faithful).nsc;
    const double fb = nsc::score(mobilenet_ish(), faithful).nsc;
    std::printf("%-14s %12.3f %12lld %12.2f %14.3f\n", "resnet_ish", a.nsc,
                static_cast<long long>(a.params), a.mflops, fa);
    std::printf("%-14s %12.3f %12lld %12.2f %14.3f\n", "mobilenet_ish", b.nsc,
                static_cast<long long>(b.params), b.mflops, fb);
    std::printf("higher NSC: %s\n", a.nsc > b.nsc ? "resnet_ish" : "mobilenet_ish");

    // The two candidates are meant to be comparable in size.
    const double ratio = double(a.params) / double(b.params);
    if (ratio < 0.5 || ratio > 2) {
      std::printf("INCONSISTENT: parameter budgets differ by more than 2x (%.2f)\n", ratio);
      ok = false;
    }
    if (!(std::isfinite(fa) && fa > 0 && std::isfinite(fb) && fb > 0)) ok = false;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
