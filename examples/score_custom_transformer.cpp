// Score your own Transformer designs in C++ and let NSC pick an allocation.
//
// Three 12-layer decoders (d_model 1024, 16 heads of 64, SwiGLU, RMSNorm, vocab 32000, untied
// head) with exactly the same number of parameters:
//   mha         multi-head attention, FFN width 2816 in every layer
//   gqa         4 key/value heads; the 1,572,864 parameters saved per layer on k_proj and
//               v_proj go to the FFN: width 2816 + 512 = 3328
//   mha-uneven  MHA with FFN widths alternating 2304 / 3328 (same total width as mha)
// Each is scored (NSC, the paper's convention: Xavier of every scored block, psi_MP), counted
// (#Params, FLOPs per token at T = 2048) and compared. The program checks what must hold and
// returns non-zero otherwise: equal parameter counts, NSC and counts additive over layers,
// FLOPs = 2 MACs, and that uneven widths lose capacity (psi_MP is strictly concave in a width,
// so a fixed total width is best spread evenly: math.md section 6).
#include <nsc/model/analyze.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

/// One decoder block: 16 query heads of 64, `kv_heads` key/value heads, SwiGLU of width `ffn`.
nsc::block_spec block(std::int64_t kv_heads, std::int64_t ffn) {
  nsc::block_spec b;
  b.norm = nsc::norm_kind::rmsnorm;
  b.attention.n_heads = 16;
  b.attention.n_kv_heads = kv_heads; // 0 would also mean "as many as n_heads"
  b.ffn.d_ff = ffn;
  b.ffn.gated = true;
  return b;
}

/// A decoder with one block spec per layer (widths and head counts may differ per layer).
nsc::transformer_spec decoder(std::string name, std::vector<nsc::block_spec> blocks) {
  nsc::transformer_spec s;
  s.name = std::move(name);
  s.d_model = 1024;
  s.embeddings.vocab_size = 32000;
  s.blocks = std::move(blocks);
  s.final_norm = nsc::norm_kind::rmsnorm;
  s.lm_head = nsc::lm_head_kind::untied;
  return s;
}

struct result {
  std::string name;
  double nsc;
  nsc::resources res;
};

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "INCONSISTENT: %s\n", what.c_str());
    ++failures;
  }
}

result evaluate(const nsc::transformer_spec& spec, double seq_len) {
  // One call scores (default scoring: the paper's convention), counts and deploys the spec;
  // r.layers[i] is decoder layer i, r.parts the embeddings, final norm and LM head.
  nsc::model_options options;
  options.load.seq_len = static_cast<std::int64_t>(seq_len);
  const nsc::model_report r = nsc::analyze(spec, options);
  // Both are plain sums over layers (what makes NSC-DP exact).
  double sum = 0;
  std::int64_t params = 0;
  for (const nsc::layer_report& l : r.layers) {
    sum += l.nsc;
    params += l.params();
  }
  for (const nsc::layer_report& p : r.parts) {
    sum += p.nsc;
    params += p.params();
  }
  expect(r.layers.size() == spec.blocks.size(), spec.name + ": one report per decoder layer");
  expect(std::fabs(sum - r.nsc) <= 1e-9 * r.nsc, spec.name + ": NSC is not the sum of its layers");
  expect(params == r.params(), spec.name + ": #Params is not the sum of its layers");
  expect(r.counts.flops() == 2 * r.counts.macs, spec.name + ": FLOPs != 2 MACs");
  return {spec.name, r.nsc, r.counts};
}

} // namespace

int main() {
  const double T = 2048;
  std::vector<nsc::block_spec> uneven;
  for (int i = 0; i < 12; ++i) uneven.push_back(block(0, i % 2 == 0 ? 2304 : 3328));

  const std::vector<result> results = {
      evaluate(decoder("mha", std::vector<nsc::block_spec>(12, block(0, 2816))), T),
      evaluate(decoder("gqa", std::vector<nsc::block_spec>(12, block(4, 3328))), T),
      evaluate(decoder("mha-uneven", uneven), T)};

  std::printf("%-12s %14s %16s %16s %14s\n", "variant", "NSC", "params", "non-embedding",
              "GFLOPs/token");
  for (const result& r : results)
    std::printf("%-12s %14.4f %16lld %16lld %14.4f\n", r.name.c_str(), r.nsc,
                static_cast<long long>(r.res.total()),
                static_cast<long long>(r.res.non_embedding()), r.res.flops() / 1e9);

  const result& mha = results[0];
  const result& gqa = results[1];
  const result& uneven_mha = results[2];
  expect(mha.res.total() == gqa.res.total(), "mha and gqa should have the same #Params");
  expect(mha.res.total() == uneven_mha.res.total(), "mha and mha-uneven should have the same #Params");
  expect(mha.nsc > uneven_mha.nsc, "an even FFN allocation should score higher (concavity)");
  expect(std::isfinite(mha.nsc) && std::isfinite(gqa.nsc) && mha.nsc > 0 && gqa.nsc > 0,
         "scores should be finite and positive");

  const result& best = gqa.nsc > mha.nsc ? gqa : mha;
  const result& other = gqa.nsc > mha.nsc ? mha : gqa;
  std::printf("\nAt %lld parameters each, NSC prefers '%s' (%.2f vs %.2f for '%s', %+.2f%%);\n"
              "the even FFN allocation beats the uneven one by %.2f.\n",
              static_cast<long long>(mha.res.total()), best.name.c_str(), best.nsc, other.nsc,
              other.name.c_str(), 100 * (best.nsc - other.nsc) / other.nsc,
              mha.nsc - uneven_mha.nsc);
  return failures == 0 ? 0 : 1;
}
