// The Llama-3-70B-shaped K-budget instance of bench_knapsack / bench_searches (issue 8):
// 80 identical groups (layers); each layer picks its attention (no-op, or 1..8 KV heads with the
// 64 query heads of head_dim 128 kept) and its SwiGLU FFN (no-op, or width 256 j for j = 1..112,
// up to 28672): 9 x 113 = 1017 options per layer.
//
// Costs (hidden H = 8192, head_dim d = 128, T = 8192 tokens of context for the attention FLOPs;
// weight matrices only, norms left out):
//   params     attention 2 H^2 + 2 H d kv (q, o, k, v), FFN 3 H w (gate, up, down); no-op 0
//   flops      2 x params (one multiply-add per weight per token) + 4 T 64 d for an active
//              attention (QK^T and AV at context T)
//   kv_bytes   2 (K, V) x kv x d x 2 bytes (bf16) per token
// Value: the sum of psi_MP(out, in, 2 / (in + out)) (Xavier normal, the paper's closed form) over
// the layer's matrices: q (H x H), o (H x H), k and v (d kv x H), gate and up (w x H), down (H x w).
#ifndef NSC_BENCH_LLAMA70B_INSTANCE_HPP
#define NSC_BENCH_LLAMA70B_INSTANCE_HPP

#include <nsc/search/multi_knapsack.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <cstdint>
#include <vector>

namespace nsc_bench {

inline double xavier_psi(double out, double in) { return nsc::psi_mp(out, in, 2.0 / (in + out)); }

/// One layer's 1017 options, costs {params, flops, kv_bytes} (the first `dims` of them).
inline std::vector<nsc::search::mmck_option<double>> llama70b_layer(std::size_t dims) {
  const double H = 8192, d = 128;
  const std::int64_t Hi = 8192, di = 128, T = 8192;
  std::vector<nsc::search::mmck_option<double>> out;
  for (int kv = 0; kv <= 8; ++kv) {
    const double va = kv == 0 ? 0 : 2 * xavier_psi(H, H) + 2 * xavier_psi(d * kv, H);
    const std::int64_t pa = kv == 0 ? 0 : 2 * Hi * Hi + 2 * Hi * di * kv;
    const std::int64_t fa = kv == 0 ? 0 : 2 * pa + 4 * T * 64 * di;
    const std::int64_t ka = 2 * kv * di * 2;
    for (int j = 0; j <= 112; ++j) {
      const double w = 256.0 * j;
      const double vf = j == 0 ? 0 : 2 * xavier_psi(w, H) + xavier_psi(H, w);
      const std::int64_t pf = 3 * Hi * 256 * j;
      const std::vector<std::int64_t> all{pa + pf, fa + 2 * pf, ka};
      out.push_back({va + vf, std::vector<std::int64_t>(all.begin(), all.begin() + std::ptrdiff_t(dims))});
    }
  }
  return out;
}

/// 80 copies of the layer.
inline nsc::search::mmck_groups<double> llama70b_groups(std::size_t dims) {
  return nsc::search::mmck_groups<double>(80, llama70b_layer(dims));
}

/// The full model's totals {params, flops, kv_bytes} (every layer at kv 8, w 28672).
inline std::vector<std::int64_t> llama70b_full(std::size_t dims) {
  const auto l = llama70b_layer(dims);
  std::vector<std::int64_t> c = l.back().cost;
  for (auto& x : c) x *= 80;
  return c;
}

} // namespace nsc_bench

#endif
