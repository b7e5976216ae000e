// The C++ example of README.md ("Using the library from C++"), kept compiling and running by ctest.
#include <nsc/nsc.hpp>                       // the core: spectral closed forms, models, scores
#include <nsc/model/analyze.hpp>             // Transformer specs scored, counted and deployed in one call
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <cstdio>

int main() {
  // One matrix: psi of a 4096 x 11008 Xavier-normal matrix, closed form and finite-size.
  double mp = nsc::psi_mp(4096, 11008, 2.0 / (4096 + 11008));
  double fs = nsc::psi_fs(4096, 11008, 2.0 / (4096 + 11008), /*excess kurtosis*/ 0.0);

  // A Transformer layer from its specification, scored by the paper's convention
  // (per-head Q/K/V blocks, Xavier variance of each block, psi_MP, embeddings not scored).
  nsc::transformer_spec spec;
  spec.d_model = 1024;
  spec.embeddings.vocab_size = 32000;                                  // untied LM head by default
  nsc::block_spec b;
  b.attention = {.d_model = 1024, .n_heads = 16, .n_kv_heads = 4};   // GQA
  b.ffn = {.d_model = 1024, .d_ff = 2816, .gated = true};              // SwiGLU
  b.norm = nsc::norm_kind::rmsnorm;
  spec.blocks.assign(24, b);
  // Everything at once, at a workload (T = 2048 tokens, batch 8); every default is stated in
  // nsc::model_options. r.layers[i] is decoder layer i; the embeddings, final norm and LM head
  // are r.parts (r.part_named("lm_head")).
  nsc::model_report r = nsc::analyze(spec, {.load = {.seq_len = 2048, .batch = 8}});
  std::printf("psi %.3f %.3f  NSC %.1f (layer 0: %.1f)  params %lld  FLOPs/token %.3g  KV %llu bytes\n", mp, fs,
              r.nsc, r.layers[0].nsc, static_cast<long long>(r.params()), r.counts.flops(),
              static_cast<unsigned long long>(r.kv_cache_bytes()));

  // NSC-DP on your own groups: one option per group, maximise value under a cost budget.
  nsc::search::mck_groups<double> groups = {{{1.0, 2}, {1.8, 4}}, {{0.5, 1}, {1.1, 3}}};
  auto res = nsc::search::solve_mck(groups, 6);
  if (res.best(6)) std::printf("best %.2f, choices %zu %zu\n", *res.best(6), (*res.choice(6))[0], (*res.choice(6))[1]);
}
