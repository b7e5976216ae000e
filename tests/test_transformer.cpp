// Tests of nsc/model/transformer.hpp (Transformer specs -> networks) and nsc/io/hf_config.hpp
// (Hugging Face config.json -> specs): exact published parameter counts, FLOPs against hand
// formulas, psi sums against direct psi_mp calls, random-spec properties, and every error.
#include <nsc/io/hf_config.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace nsc;
using std::int64_t;

namespace {

const std::string configs = std::string(NSC_SOURCE_DIR) + "/examples/configs/";

/// psi_MP of an (m, n) block under Xavier-normal of that very block (the paper's psi_X).
double psi_x(double m, double n) { return psi_mp(m, n, 2.0 / (m + n)); }

/// A LLaMA-family decoder: RMSNorm, SwiGLU, rotary positions, untied head by default.
transformer_spec llama_like(int64_t d, int64_t layers, int64_t heads, int64_t kv, int64_t ffn,
                            int64_t vocab, int64_t experts = 0, int64_t top_k = 0) {
  transformer_spec s;
  s.name = "llama-like";
  s.d_model = d;
  s.embeddings.vocab_size = vocab;
  block_spec b;
  b.norm = norm_kind::rmsnorm;
  b.attention.n_heads = heads;
  b.attention.n_kv_heads = kv;
  b.ffn.d_ff = ffn;
  b.ffn.gated = true;
  b.ffn.n_experts = experts;
  b.ffn.top_k = top_k;
  s.blocks.assign(std::size_t(layers), b);
  s.final_norm = norm_kind::rmsnorm;
  s.lm_head = lm_head_kind::untied;
  return s;
}

/// GPT-2 (biases everywhere, LayerNorm, learned positions, tied head).
transformer_spec gpt2_like(int64_t d, int64_t layers, int64_t heads) {
  transformer_spec s;
  s.name = "gpt2-like";
  s.d_model = d;
  s.embeddings.vocab_size = 50257;
  s.embeddings.positions = 1024;
  block_spec b;
  b.norm = norm_kind::layernorm;
  b.attention.n_heads = heads;
  b.attention.qkv_bias = b.attention.out_bias = true;
  b.ffn.d_ff = 4 * d;
  b.ffn.bias = true;
  s.blocks.assign(std::size_t(layers), b);
  s.final_norm = norm_kind::layernorm;
  s.lm_head = lm_head_kind::tied;
  return s;
}

transformer_spec bert_base(bool pooler = true) {
  transformer_spec s = gpt2_like(768, 12, 12);
  s.name = "bert-base";
  s.embeddings.vocab_size = 30522;
  s.embeddings.positions = 512;
  s.embeddings.token_types = 2;
  s.embeddings.norm = norm_kind::layernorm;
  s.final_norm = norm_kind::none;
  s.lm_head = lm_head_kind::none;
  s.pooler = pooler;
  return s;
}

/// Sum of the layer scores and of the layer counts, layer by layer.
void check_additive(const network& net, const scoring& sc) {
  const network_score ns = score(net, sc);
  const resources r = count(net);
  double sum = 0;
  resources acc;
  REQUIRE(ns.layers.size() == net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const layer_score ls = score(net.layers[i], sc);
    REQUIRE(ls.nsc == ns.layers[i].nsc);
    sum += ls.nsc;
    acc += count(net.layers[i]);
  }
  REQUIRE(ns.nsc == Approx(sum).epsilon(1e-14));
  REQUIRE(acc.total() == r.total());
  REQUIRE(acc.non_embedding() == r.non_embedding());
  REQUIRE(acc.active() == r.active());
  REQUIRE(acc.macs == Approx(r.macs).epsilon(1e-14));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Published parameter counts (PyTorch / Hugging Face module counts, exact).
// ---------------------------------------------------------------------------------------------

TEST_CASE("LLaMA-7B has 6,738,415,616 parameters", "[transformer][params]") {
  // 2 V H (embedding, untied head) + L (4 H^2 + 3 H k + 2 H) + H
  // = 262,144,000 + 32 * 202,383,360 + 4,096.
  const network net = make_transformer(llama_like(4096, 32, 32, 0, 11008, 32000), 256);
  const resources r = count(net);
  CHECK(r.total() == 6738415616);
  CHECK(r.embedding == 262144000);
  CHECK(r.non_embedding() == 6738415616 - 262144000);
  CHECK(r.active() == r.total());
  CHECK(r.biases == 0);
  CHECK(r.norms == 32 * 2 * 4096 + 4096);
}

TEST_CASE("GPT-2 small has 124,439,808 parameters, medium 354,823,168", "[transformer][params]") {
  const resources small = count(make_transformer(gpt2_like(768, 12, 12), 1024));
  CHECK(small.total() == 124439808);
  CHECK(small.non_embedding() == 124439808 - 50257 * 768 - 1024 * 768); // Kaplan et al.
  const resources medium = count(make_transformer(gpt2_like(1024, 24, 16), 1024));
  CHECK(medium.total() == 354823168);
}

TEST_CASE("BERT-base has 109,482,240 parameters with its pooler", "[transformer][params]") {
  CHECK(count(make_transformer(bert_base(true), 128)).total() == 109482240);
  CHECK(count(make_transformer(bert_base(false), 128)).total() == 109482240 - 768 * 768 - 768);
  // The pooler is not scored by default (the paper scores no task head) ...
  const double with = score(make_transformer(bert_base(true), 128)).nsc;
  const double without = score(make_transformer(bert_base(false), 128)).nsc;
  CHECK(with == without);
  // ... unless asked to.
  transformer_spec s = bert_base(true);
  s.score_pooler = true;
  CHECK(score(make_transformer(s, 128)).nsc == Approx(without + psi_x(768, 768)).epsilon(1e-14));
}

TEST_CASE("Mistral-7B has 7,241,732,096 parameters", "[transformer][params]") {
  const resources r = count(make_transformer(llama_like(4096, 32, 32, 8, 14336, 32000), 4096));
  CHECK(r.total() == 7241732096);
}

TEST_CASE("Mixtral-8x7B: 46,702,792,704 total and 12,879,925,248 active", "[transformer][params]") {
  // By hand (d = 4096, 32 layers, 32 heads of 128, 8 kv heads, 8 experts top-2 of width 14336,
  // vocab 32000, untied head, RMSNorm):
  //   attention  q, o: 4096*4096 = 16,777,216 each; k, v: 1024*4096 = 4,194,304 each
  //              -> 41,943,040
  //   one expert 3 * 4096 * 14336 = 176,160,768; eight -> 1,409,286,144; two -> 352,321,536
  //   router     8 * 4096 = 32,768;  norms 2 * 4096 = 8,192
  //   layer      41,943,040 + 1,409,286,144 + 32,768 + 8,192 = 1,451,270,144 (x 32 = 46,440,644,608)
  //   active     41,943,040 +   352,321,536 + 32,768 + 8,192 =   394,305,536 (x 32 = 12,617,777,152)
  //   outside    embedding 131,072,000 + head 131,072,000 + final norm 4,096 = 262,148,096
  //   total      46,440,644,608 + 262,148,096 = 46,702,792,704
  //   active     12,617,777,152 + 262,148,096 = 12,879,925,248
  // Mistral's "46.7B total, 12.9B active" are these counts in units of 1e9 rounded to one
  // decimal, round-half-up: 46.70 -> 46.7 and 12.88 -> 12.9 (truncation would say 12.8; GiB-style
  // 2^30 units would say 43.5 / 12.0). The active count includes the embedding and LM head.
  const network net = make_transformer(llama_like(4096, 32, 32, 8, 14336, 32000, 8, 2), 4096);
  const resources r = count(net);
  CHECK(r.total() == 46702792704);
  CHECK(r.active() == 12879925248);
  CHECK(std::round(double(r.total()) / 1e8) / 10 == 46.7);
  CHECK(std::round(double(r.active()) / 1e8) / 10 == 12.9);
}

TEST_CASE("Bundled Hugging Face configs give the published counts", "[hf_config][params]") {
  struct row {
    const char* file;
    const char* type;
    int64_t params;
  };
  const row rows[] = {{"llama-7b.json", "llama", 6738415616},
                      {"llama-3-8b.json", "llama", 8030261248},
                      {"mistral-7b.json", "mistral", 7241732096},
                      {"mixtral-8x7b.json", "mixtral", 46702792704},
                      {"qwen2-7b.json", "qwen2", 7615616512},
                      {"gpt2.json", "gpt2", 124439808},
                      {"gpt2-medium.json", "gpt2", 354823168},
                      {"bert-base-uncased.json", "bert", 109482240}};
  for (const row& x : rows) {
    INFO(x.file);
    const hf_model m = read_hf_config_file(configs + x.file);
    CHECK(m.model_type == x.type);
    CHECK(m.initializer_range == 0.02);
    CHECK(count(hf_network(m, 256)).total() == x.params);
  }
  const hf_model mixtral = read_hf_config_file(configs + "mixtral-8x7b.json");
  CHECK(count(hf_network(mixtral, 256)).active() == 12879925248);
  // The file reader names the spec after the file; the C++ builders give the same network.
  const hf_model llama = read_hf_config_file(configs + "llama-7b.json");
  CHECK(llama.spec.name == "llama-7b");
  CHECK(llama.norm_eps == 1e-6);
  // (the reader's one run of 32 layers and the builder's 32 entries: bitwise the same NSC)
  CHECK(hf_network(llama, 256).layers.size() == 4);
  CHECK(score(hf_network(llama, 256)).nsc ==
        score(make_transformer(llama_like(4096, 32, 32, 0, 11008, 32000), 256)).nsc);
  const hf_model qwen = read_hf_config_file(configs + "qwen2-7b.json");
  CHECK(expand(qwen.spec).blocks[0].attention.qkv_bias);
  CHECK_FALSE(expand(qwen.spec).blocks[0].attention.out_bias);
}

TEST_CASE("OPT configs: learned positions +2, project_in/out, no final norm when post-norm",
          "[hf_config][params]") {
  // facebook/opt-125m: 125,239,296 parameters.
  const nlohmann::json opt125 = {{"model_type", "opt"},     {"hidden_size", 768},
                                 {"num_hidden_layers", 12}, {"num_attention_heads", 12},
                                 {"ffn_dim", 3072},         {"vocab_size", 50272},
                                 {"max_position_embeddings", 2048},
                                 {"word_embed_proj_dim", 768},
                                 {"do_layer_norm_before", true},
                                 {"enable_bias", true},     {"init_std", 0.02}};
  const hf_model m125 = read_hf_config(opt125);
  CHECK(m125.spec.embeddings.positions == 2050);
  CHECK(count(hf_network(m125, 2048)).total() == 125239296);
  // facebook/opt-350m: word_embed_proj_dim 512 != hidden 1024, post-norm (no final norm):
  // 331,196,416 parameters.
  nlohmann::json opt350 = opt125;
  opt350["hidden_size"] = 1024;
  opt350["num_hidden_layers"] = 24;
  opt350["num_attention_heads"] = 16;
  opt350["ffn_dim"] = 4096;
  opt350["word_embed_proj_dim"] = 512;
  opt350["do_layer_norm_before"] = false;
  opt350["_name_or_path"] = "facebook/opt-350m";
  const hf_model m350 = read_hf_config(opt350);
  CHECK(m350.spec.name == "facebook/opt-350m");
  const network net = hf_network(m350, 2048);
  CHECK(count(net).total() == 331196416);
  bool has_in = false, has_out = false, has_final = false;
  for (const layer& l : net.layers) {
    has_in |= l.name == "project_in";
    has_out |= l.name == "project_out";
    has_final |= l.name == "final_norm";
  }
  CHECK(has_in);
  CHECK(has_out);
  CHECK_FALSE(has_final);
  // The tied head is (vocab, 512): its MACs count, its parameters do not.
  CHECK(net.layers.back().name == "lm_head");
  CHECK(net.layers.back().weights[0].in == 512);
  CHECK(count(net.layers.back()).total() == 0);
  CHECK(count(net.layers.back()).macs == 50272.0 * 512);
}

// ---------------------------------------------------------------------------------------------
// Scoring layouts against direct psi_mp calls.
// ---------------------------------------------------------------------------------------------

TEST_CASE("QKV per head, merged and separate give the expected psi sums", "[transformer][score]") {
  const int64_t d = 512, h = 8, kv = 2, hd = 64;
  attention_spec a;
  a.d_model = d;
  a.n_heads = h;
  a.n_kv_heads = kv;
  auto attn_psi = [&](qkv_layout q, out_layout o) {
    a.qkv = q;
    a.out = o;
    layer l;
    l.weights = attention_weights(a);
    return score(l).nsc;
  };
  const double o_whole = psi_x(d, h * hd);
  const double o_heads = h * psi_x(d, hd);
  const double per_head = h * psi_x(hd, d) + 2 * kv * psi_x(hd, d);
  const double merged = psi_x((h + 2 * kv) * hd, d);
  const double separate = psi_x(h * hd, d) + 2 * psi_x(kv * hd, d);
  CHECK(attn_psi(qkv_layout::per_head, out_layout::whole) == Approx(per_head + o_whole).epsilon(1e-14));
  CHECK(attn_psi(qkv_layout::merged, out_layout::whole) == Approx(merged + o_whole).epsilon(1e-14));
  CHECK(attn_psi(qkv_layout::separate, out_layout::whole) == Approx(separate + o_whole).epsilon(1e-14));
  CHECK(attn_psi(qkv_layout::per_head, out_layout::per_head) == Approx(per_head + o_heads).epsilon(1e-14));
  // Per-head blocks hold more capacity than the merged matrix under the block's own Xavier.
  CHECK(per_head != Approx(merged));

  // Framework-faithful: every block has the variance of its whole tensor.
  scoring t;
  t.source = variance_source::tensor;
  a.qkv = qkv_layout::per_head;
  a.out = out_layout::per_head;
  layer l;
  l.weights = attention_weights(a);
  const double q_v = 2.0 / double(h * hd + d), kv_v = 2.0 / double(kv * hd + d);
  const double expect = h * psi_mp(double(hd), double(d), q_v) +
                        2 * kv * psi_mp(double(hd), double(d), kv_v) +
                        h * psi_mp(double(d), double(hd), 2.0 / double(d + h * hd));
  CHECK(score(l, t).nsc == Approx(expect).epsilon(1e-14));
  // Parameters and MACs do not depend on the layout.
  for (qkv_layout q : {qkv_layout::per_head, qkv_layout::merged, qkv_layout::separate}) {
    a.qkv = q;
    layer x;
    x.weights = attention_weights(a);
    CHECK(count(x).total() == (h + 2 * kv) * hd * d + d * h * hd);
  }
}

TEST_CASE("head_dim may differ from d_model / n_heads", "[transformer][score]") {
  attention_spec a;
  a.d_model = 96;
  a.n_heads = 4;
  a.head_dim = 40; // 4 * 40 = 160 != 96
  block_spec b;
  b.attention = a;
  b.ffn.d_model = 96;
  b.ffn.d_ff = 256;
  const layer l = make_block(b, 100);
  CHECK(l.extra_macs == 2.0 * 100 * 4 * 40);
  CHECK(count(l).weights == 3 * 160 * 96 + 96 * 160 + 2 * 256 * 96);
  CHECK(score(l).nsc == Approx(12 * psi_x(40, 96) + psi_x(96, 160) + psi_x(256, 96) +
                               psi_x(96, 256))
                            .epsilon(1e-14));
}

TEST_CASE("GQA with n_kv_heads = n_heads scores and counts exactly like MHA", "[transformer][score]") {
  const network mha = make_transformer(llama_like(1024, 4, 16, 0, 2816, 1000), 512);
  const network gqa = make_transformer(llama_like(1024, 4, 16, 16, 2816, 1000), 512);
  for (const scoring& sc : {scoring{}, scoring{init::normal(0.02), variance_source::tensor,
                                               estimator::fs, true}}) {
    CHECK(score(gqa, sc).nsc == score(mha, sc).nsc);
  }
  CHECK(count(gqa).total() == count(mha).total());
  CHECK(count(gqa).macs == count(mha).macs);
  // Fewer kv heads: fewer parameters, less attention capacity, same attention-score MACs.
  const network mqa = make_transformer(llama_like(1024, 4, 16, 1, 2816, 1000), 512);
  CHECK(count(mqa).total() < count(mha).total());
  CHECK(score(mqa).part_total(part::attention) < score(mha).part_total(part::attention));
  CHECK(mqa.layers[1].extra_macs == mha.layers[1].extra_macs);
}

TEST_CASE("MoE with one expert and top-1 equals the dense FFN", "[transformer][moe]") {
  ffn_spec dense;
  dense.d_model = 512;
  dense.d_ff = 1408;
  dense.gated = true;
  ffn_spec moe = dense;
  moe.n_experts = 1;
  moe.top_k = 1;
  layer ld, lm;
  ld.weights = ffn_weights(dense);
  lm.weights = ffn_weights(moe);
  const layer_score sd = score(ld), sm = score(lm);
  const auto ffn = std::size_t(part::ffn), router = std::size_t(part::router);
  // The experts are the dense FFN (score, parameters, active parameters, MACs) ...
  CHECK(sm.by_part[ffn] == sd.by_part[ffn]);
  const resources rd = count(ld), rm = count(lm);
  CHECK(rm.total() - 512 == rd.total());
  CHECK(rm.active() - 512 == rd.active());
  CHECK(rm.macs - 512 == rd.macs);
  // ... and the router (Linear(512 -> 1), as Hugging Face builds it) is all the difference.
  CHECK(sm.by_part[router] == Approx(psi_x(1, 512)).epsilon(1e-14));
  CHECK(sm.nsc == Approx(sd.nsc + psi_x(1, 512)).epsilon(1e-14));

  // Eight experts top-2: every expert scored, a quarter of them active.
  moe.n_experts = 8;
  moe.top_k = 2;
  lm.weights = ffn_weights(moe);
  CHECK(score(lm).by_part[ffn] == Approx(8 * sd.by_part[ffn]).epsilon(1e-14));
  const resources r8 = count(lm);
  CHECK(r8.total() == 8 * rd.total() + 8 * 512);
  CHECK(r8.active() == 2 * rd.total() + 8 * 512);
  CHECK(r8.macs == Approx(2 * rd.macs + 8 * 512).epsilon(1e-15));
}

TEST_CASE("LoRA adapters: scored, counted only on request, LoNAS reproduces the paper's NSC",
          "[transformer][lora]") {
  const int64_t H = 4096;
  auto lonas_layer = [&](int64_t rank, int64_t width) {
    block_spec b;
    b.attention.n_heads = 32;
    b.attention.out = out_layout::per_head;
    b.attention.lora_q = b.attention.lora_k = b.attention.lora_v = rank;
    b.attention.lora_o = 32;
    b.ffn.d_ff = width;
    b.ffn.gated = true;
    b.ffn.lora_gate = b.ffn.lora_up = b.ffn.lora_down = 32;
    return b;
  };
  // reference-conventions.md, LoNAS: per layer
  //   q/k/v: 32 psi_X(128, 4096) + psi_X(r, 4096) + psi_X(4096, r); o_proj the same at r = 32;
  //   gate/up: psi_X(k, 4096) + psi_X(32, 4096) + psi_X(k, 32);
  //   down: psi_X(4096, k) + psi_X(32, k) + psi_X(4096, 32).
  auto reference = [&](double r, double k) {
    const double qkv = 32 * psi_x(128, 4096) + psi_x(r, 4096) + psi_x(4096, r);
    const double o = 32 * psi_x(128, 4096) + psi_x(32, 4096) + psi_x(4096, 32);
    const double gu = psi_x(k, 4096) + psi_x(32, 4096) + psi_x(k, 32);
    const double dn = psi_x(4096, k) + psi_x(32, k) + psi_x(4096, 32);
    return 3 * qkv + o + 2 * gu + dn;
  };
  for (int64_t r : {32, 28})
    for (int64_t k : {11008, 8256}) {
      block_spec b = lonas_layer(r, k);
      b.attention.d_model = b.ffn.d_model = H;
      CHECK(score(make_block(b, 256)).nsc == Approx(reference(double(r), double(k))).epsilon(1e-13));
    }
  // The LoNAS search's known optimum (search-spaces / reference-conventions): rank 32 everywhere,
  // width 8256 in 30 layers and 9632 in 2 -> NSC = 881196.752.
  transformer_spec s = llama_like(H, 32, 32, 0, 8256, 32000);
  for (std::size_t i = 0; i < 32; ++i) s.blocks[i] = lonas_layer(32, i < 30 ? 8256 : 9632);
  const network net = make_transformer(s, 256);
  CHECK(score(net).nsc == Approx(881196.752).margin(5e-4));
  // Adapters add neither parameters nor MACs by default (the base model's counts): the
  // reference's 2 V H + L (4 H^2 + 2 H) + 3 H sum k = 5,690,097,664, plus the final norm H.
  CHECK(count(net).total() == 5690097664 + H);
  transformer_spec no_lora = llama_like(H, 32, 32, 0, 8256, 32000);
  for (std::size_t i = 30; i < 32; ++i) no_lora.blocks[i].ffn.d_ff = 9632;
  CHECK(count(make_transformer(no_lora, 256)).macs == count(net).macs);
  // Counting them on request: A (r, in) + B (out, r) per adapted projection.
  s.lora.count_params = true;
  s.lora.count_macs = true;
  const resources with = count(make_transformer(s, 256));
  const int64_t per_layer_lora = 4 * 32 * (H + H) + 2 * 32 * (H + 0) + 0; // q,k,v,o
  int64_t ffn_lora = 0;
  for (std::size_t i = 0; i < 32; ++i) {
    const int64_t k = i < 30 ? 8256 : 9632;
    ffn_lora += 2 * 32 * (H + k) + 32 * (k + H);
  }
  CHECK(with.total() - count(net).total() == 32 * (per_layer_lora - 2 * 32 * H) + ffn_lora);
  CHECK(with.macs - count(net).macs == double(with.total() - count(net).total()));
}

// ---------------------------------------------------------------------------------------------
// FLOPs.
// ---------------------------------------------------------------------------------------------

TEST_CASE("LLaMA-7B FLOPs per token at T against the hand formula", "[transformer][flops]") {
  const double H = 4096, k = 11008, V = 32000, L = 32;
  for (double T : {1.0, 256.0, 2048.0}) {
    const resources r = count(make_transformer(llama_like(4096, 32, 32, 0, 11008, 32000), T));
    // MACs per token: per layer 4 H^2 (q, k, v, o) + 2 T H (QK^T and AV) + 3 H k (SwiGLU),
    // plus H V for the LM head; embedding lookups and norms are free. FLOPs = 2 MACs.
    const double macs = L * (4 * H * H + 2 * T * H + 3 * H * k) + H * V;
    CHECK(r.macs == Approx(macs).epsilon(1e-15));
    CHECK(r.flops() == Approx(2 * macs).epsilon(1e-15));
  }
  // The paper's LoNAS "TFLOPs" are MACs over T = 256 tokens: 1.7 for the unpruned LLaMA-7B.
  const resources r256 = count(make_transformer(llama_like(4096, 32, 32, 0, 11008, 32000), 256));
  CHECK(std::round(r256.macs * 256 / 1e11) / 10 == 1.7);
}

TEST_CASE("Tied heads count MACs, not parameters, embeddings count neither MACs nor NSC",
          "[transformer][flops]") {
  const network net = make_transformer(gpt2_like(768, 12, 12), 1024);
  const resources emb = count(net.layers.front());
  CHECK(net.layers.front().name == "embeddings");
  CHECK(emb.total() == 50257 * 768 + 1024 * 768);
  CHECK(emb.macs == 0);
  CHECK(emb.non_embedding() == 0);
  CHECK(score(net.layers.front()).nsc == 0);
  const resources head = count(net.layers.back());
  CHECK(net.layers.back().name == "lm_head");
  CHECK(head.total() == 0);
  CHECK(head.macs == 50257.0 * 768);
  CHECK(score(net.layers.back()).nsc == 0);
  scoring all;
  all.score_embeddings = true;
  CHECK(score(net.layers.back(), all).nsc == Approx(psi_x(50257, 768)).epsilon(1e-14));
}

// ---------------------------------------------------------------------------------------------
// Properties on random specifications.
// ---------------------------------------------------------------------------------------------

TEST_CASE("Random specs: scores finite and >= 0, NSC and counts additive over layers",
          "[transformer][property]") {
  std::mt19937_64 rng(20240611);
  auto pick = [&](auto lo, auto hi) {
    return std::uniform_int_distribution<int64_t>(int64_t(lo), int64_t(hi))(rng);
  };
  for (int trial = 0; trial < 60; ++trial) {
    transformer_spec s;
    s.name = "random";
    const int64_t heads0 = int64_t(1) << pick(0, 4);
    s.d_model = heads0 * pick(2, 24);
    s.embeddings.vocab_size = pick(0, 3) == 0 ? 0 : pick(10, 5000);
    s.embeddings.positions = pick(0, 1) ? pick(1, 512) : 0;
    s.embeddings.token_types = pick(0, 2) == 0 ? 2 : 0;
    s.embeddings.dim = pick(0, 3) == 0 ? pick(4, 64) : 0;
    s.embeddings.norm = norm_kind(pick(0, 2));
    s.final_norm = norm_kind(pick(0, 2));
    s.lm_head = s.embeddings.vocab_size > 0 ? lm_head_kind(pick(0, 2)) : lm_head_kind::none;
    s.pooler = pick(0, 1) == 1;
    s.score_pooler = pick(0, 1) == 1;
    s.lora.count_params = pick(0, 1) == 1;
    s.lora.count_macs = pick(0, 1) == 1;
    const int64_t layers = pick(0, 5);
    for (int64_t i = 0; i < layers; ++i) {
      block_spec b;
      b.norm = norm_kind(pick(0, 2));
      b.n_norms = pick(0, 3);
      attention_spec& a = b.attention;
      a.n_heads = int64_t(1) << pick(0, 4);
      if (s.d_model % a.n_heads != 0 || pick(0, 2) == 0) a.head_dim = pick(1, 48);
      const int64_t kv_choices[] = {0, 1, a.n_heads, std::max<int64_t>(1, a.n_heads / 2)};
      a.n_kv_heads = kv_choices[pick(0, 3)];
      a.qkv = qkv_layout(pick(0, 2));
      a.out = out_layout(pick(0, 1));
      a.qkv_bias = pick(0, 1) == 1;
      a.out_bias = pick(0, 1) == 1;
      a.lora_q = pick(0, 1) ? pick(1, 16) : 0;
      a.lora_o = pick(0, 1) ? pick(1, 16) : 0;
      ffn_spec& f = b.ffn;
      f.d_ff = pick(1, 700);
      f.gated = pick(0, 1) == 1;
      f.bias = pick(0, 1) == 1;
      f.lora_up = pick(0, 1) ? pick(1, 8) : 0;
      f.lora_gate = f.gated && pick(0, 1) ? pick(1, 8) : 0;
      if (pick(0, 2) == 0) {
        f.n_experts = pick(1, 8);
        f.top_k = pick(1, f.n_experts);
      }
      s.blocks.push_back(b);
    }
    const double T = double(pick(1, 4096));
    INFO("trial " << trial);
    const network net = make_transformer(s, T);
    REQUIRE_NOTHROW(validate(net));
    scoring sc;
    sc.est = pick(0, 1) ? estimator::fs : estimator::mp;
    sc.source = pick(0, 1) ? variance_source::tensor : variance_source::block;
    sc.score_embeddings = pick(0, 1) == 1;
    const init inits[] = {init::xavier_normal(), init::kaiming_uniform(), init::torch_default(),
                          init::normal(0.02), init::truncated_normal(0.02), init::orthogonal()};
    sc.initialisation = inits[pick(0, 5)];
    const network_score ns = score(net, sc);
    CHECK(std::isfinite(ns.nsc));
    CHECK(ns.nsc >= 0);
    for (const layer_score& ls : ns.layers) {
      CHECK(std::isfinite(ls.nsc));
      CHECK(ls.nsc >= 0);
    }
    check_additive(net, sc);
    const resources r = count(net);
    CHECK(r.active() <= r.total());
    CHECK(r.non_embedding() <= r.total());
    CHECK(r.macs >= 0);
    // Adding a layer adds its own score.
    if (!s.blocks.empty()) {
      transformer_spec t = s;
      t.blocks.push_back(s.blocks.front());
      double first = -1;
      for (const layer_score& ls : ns.layers)
        if (ls.name == "layers.0") first = ls.nsc;
      REQUIRE(first >= 0);
      CHECK(score(make_transformer(t, T), sc).nsc == Approx(ns.nsc + first).epsilon(1e-12));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Malformed specifications.
// ---------------------------------------------------------------------------------------------

TEST_CASE("Malformed specs throw std::invalid_argument naming the layer and the field",
          "[transformer][errors]") {
  using Catch::Contains;
  const transformer_spec good = llama_like(256, 4, 8, 2, 512, 100);
  REQUIRE_NOTHROW(make_transformer(good, 64));
  auto throws = [&](auto edit, const std::string& text) {
    transformer_spec s = good;
    edit(s);
    INFO(text);
    CHECK_THROWS_AS(make_transformer(s, 64), std::invalid_argument);
    CHECK_THROWS_WITH(make_transformer(s, 64), Contains(text));
  };
  throws([](transformer_spec& s) { s.blocks[3].attention.n_kv_heads = 3; },
         "nsc::make_transformer: layer 3: attention.n_kv_heads must divide n_heads = 8 (got 3)");
  throws(
      [](transformer_spec& s) {
        s.blocks[1].attention.n_heads = 3;
        s.blocks[1].attention.n_kv_heads = 0;
      },
         "layer 1: attention.n_heads must divide d_model = 256 when head_dim is 0 (got 3)");
  throws([](transformer_spec& s) { s.blocks[0].attention.n_heads = 0; },
         "layer 0: attention.n_heads must be >= 1 (got 0)");
  throws([](transformer_spec& s) { s.blocks[2].attention.n_kv_heads = -1; },
         "layer 2: attention.n_kv_heads must be >= 0");
  throws([](transformer_spec& s) { s.blocks[2].attention.head_dim = -4; },
         "layer 2: attention.head_dim must be >= 0");
  throws([](transformer_spec& s) { s.blocks[2].attention.lora_v = -1; },
         "layer 2: attention.lora_v must be >= 0 (got -1)");
  throws([](transformer_spec& s) { s.blocks[2].ffn.d_ff = 0; }, "layer 2: ffn.d_ff must be >= 1 (got 0)");
  throws([](transformer_spec& s) { s.blocks[0].ffn.lora_down = -2; }, "layer 0: ffn.lora_down must be >= 0");
  throws(
      [](transformer_spec& s) {
        s.blocks[0].ffn.gated = false;
        s.blocks[0].ffn.lora_gate = 4;
      },
      "layer 0: ffn.lora_gate needs a gated FFN (got 4)");
  throws(
      [](transformer_spec& s) {
        s.blocks[3].ffn.n_experts = 4;
        s.blocks[3].ffn.top_k = 5;
      },
      "layer 3: ffn.top_k must be in [1, n_experts = 4] (got 5)");
  throws([](transformer_spec& s) { s.blocks[3].ffn.top_k = 2; }, "layer 3: ffn.top_k needs n_experts >= 1");
  throws([](transformer_spec& s) { s.blocks[3].ffn.n_experts = -1; }, "layer 3: ffn.n_experts must be >= 0");
  throws([](transformer_spec& s) { s.blocks[1].n_norms = -1; }, "layer 1: n_norms must be >= 0");
  throws([](transformer_spec& s) { s.blocks[1].attention.d_model = 128; },
         "layer 1: attention.d_model must be 0 or the model's d_model = 256 (got 128)");
  throws([](transformer_spec& s) { s.blocks[1].ffn.d_model = 512; },
         "layer 1: ffn.d_model must be 0 or the model's d_model = 256 (got 512)");
  throws([](transformer_spec& s) { s.d_model = 0; }, "nsc::make_transformer: d_model must be >= 1 (got 0)");
  throws([](transformer_spec& s) { s.embeddings.vocab_size = -5; }, "embeddings.vocab_size must be >= 0");
  throws([](transformer_spec& s) { s.embeddings.positions = -1; }, "embeddings.positions must be >= 0");
  throws([](transformer_spec& s) { s.embeddings.token_types = -1; }, "embeddings.token_types must be >= 0");
  throws([](transformer_spec& s) { s.embeddings.dim = -1; }, "embeddings.dim must be >= 0");
  throws([](transformer_spec& s) { s.embeddings.vocab_size = 0; },
         "embeddings.vocab_size must be >= 1 with an LM head (got 0)");
  // Sequence length.
  CHECK_THROWS_WITH(make_transformer(good, 0), Contains("seq_len must be finite and >= 1 (got 0)"));
  CHECK_THROWS_WITH(make_transformer(good, std::nan("")), Contains("seq_len"));
  // The building blocks name themselves.
  attention_spec a;
  a.d_model = 64;
  a.n_heads = 4;
  a.n_kv_heads = 3;
  CHECK_THROWS_WITH(attention_weights(a),
                    "nsc::attention_weights: attention.n_kv_heads must divide n_heads = 4 (got 3)");
  ffn_spec f;
  f.d_model = 64;
  CHECK_THROWS_WITH(ffn_weights(f), "nsc::ffn_weights: ffn.d_ff must be >= 1 (got 0)");
  block_spec b;
  b.attention.d_model = 64;
  b.attention.n_heads = 4;
  b.ffn.d_model = 32;
  b.ffn.d_ff = 10;
  CHECK_THROWS_WITH(make_block(b, 8), "nsc::make_block: ffn.d_model must equal attention.d_model = 64 (got 32)");
  b.ffn.d_model = 64;
  CHECK_THROWS_WITH(make_block(b, -1), "nsc::make_block: seq_len must be finite and >= 1 (got -1)");
  CHECK_THROWS_WITH(parse_qkv_layout("heads"), Contains("per_head, merged or separate"));
  CHECK(parse_qkv_layout("merged") == qkv_layout::merged);
  CHECK(parse_out_layout("per_head") == out_layout::per_head);
  CHECK_THROWS_AS(parse_out_layout("x"), std::invalid_argument);
}

TEST_CASE("Edge cases: no blocks, encoder without head, MQA", "[transformer]") {
  transformer_spec s = llama_like(64, 0, 4, 0, 128, 10);
  const network net = make_transformer(s, 16);
  CHECK(count(net).total() == 2 * 10 * 64 + 64);
  CHECK(score(net).nsc == 0);
  s.embeddings.vocab_size = 0;
  s.lm_head = lm_head_kind::none;
  s.final_norm = norm_kind::none;
  CHECK(make_transformer(s, 16).layers.empty());
  CHECK(score(make_transformer(s, 16)).nsc == 0);
  CHECK(norm_params(norm_kind::layernorm, 10) == 20);
  CHECK(norm_params(norm_kind::rmsnorm, 10) == 10);
  CHECK(norm_params(norm_kind::none, 10) == 0);
  CHECK(std::string(to_string(qkv_layout::separate)) == "separate");
  CHECK(std::string(to_string(lm_head_kind::tied)) == "tied");
  CHECK(std::string(to_string(norm_kind::rmsnorm)) == "rmsnorm");
  CHECK(std::string(to_string(out_layout::whole)) == "whole");
}

// ---------------------------------------------------------------------------------------------
// Hugging Face configs: fields, extensions, errors.
// ---------------------------------------------------------------------------------------------

namespace {
nlohmann::json tiny_llama() {
  return {{"model_type", "llama"},     {"hidden_size", 256},       {"intermediate_size", 688},
          {"num_hidden_layers", 3},    {"num_attention_heads", 8}, {"num_key_value_heads", 2},
          {"vocab_size", 1000},        {"rms_norm_eps", 1e-5},     {"initializer_range", 0.01}};
}
} // namespace

TEST_CASE("read_hf_config: llama fields and defaults", "[hf_config]") {
  nlohmann::json c = tiny_llama();
  hf_model m = read_hf_config(c);
  CHECK(m.spec.name == "llama");
  CHECK(m.spec.d_model == 256);
  CHECK(total_layers(m.spec) == 3);
  CHECK(expand(m.spec).blocks[0].attention.kv_heads() == 2);
  CHECK(expand(m.spec).blocks[0].attention.head_size() == 32);
  CHECK(expand(m.spec).blocks[0].ffn.gated);
  CHECK(m.spec.lm_head == lm_head_kind::untied);
  CHECK(m.initializer_range == 0.01);
  c.erase("num_key_value_heads");
  CHECK(expand(read_hf_config(c).spec).blocks[0].attention.kv_heads() == 8);
  c["num_key_value_heads"] = nullptr;
  CHECK(expand(read_hf_config(c).spec).blocks[0].attention.kv_heads() == 8);
  c["head_dim"] = 48; // explicit head_dim: need not divide
  c["hidden_size"] = 260;
  CHECK(expand(read_hf_config(c).spec).blocks[0].attention.head_size() == 48);
  c = tiny_llama();
  c["attention_bias"] = true;
  c["mlp_bias"] = true;
  c["tie_word_embeddings"] = true;
  c["hidden_size"] = 256.0; // integral floats are accepted
  m = read_hf_config(c);
  CHECK(expand(m.spec).blocks[1].attention.qkv_bias);
  CHECK(expand(m.spec).blocks[1].attention.out_bias);
  CHECK(expand(m.spec).blocks[1].ffn.bias);
  CHECK(m.spec.lm_head == lm_head_kind::tied);
  // hf_scoring: normal(initializer_range) with the whole tensor's variance.
  const scoring sc = hf_scoring(m, estimator::fs);
  CHECK(sc.initialisation.kind == init_kind::normal);
  CHECK(sc.initialisation.std == 0.01);
  CHECK(sc.source == variance_source::tensor);
  CHECK(sc.est == estimator::fs);
  const scoring mp = hf_scoring(read_hf_config(tiny_llama()));
  const layer l = hf_network(read_hf_config(tiny_llama()), 128).layers[1];
  const double v = 1e-4;
  const double expect = 8 * psi_mp(32.0, 256.0, v) + 4 * psi_mp(32.0, 256.0, v) +
                        psi_mp(256.0, 256.0, v) + 2 * psi_mp(688.0, 256.0, v) +
                        psi_mp(256.0, 688.0, v);
  CHECK(score(l, mp).nsc == Approx(expect).epsilon(1e-14));
}

TEST_CASE("read_hf_config: nsc extensions intermediate_sizes and lora_ranks round-trip",
          "[hf_config]") {
  nlohmann::json c = tiny_llama();
  c["intermediate_sizes"] = {688, 512, 344};
  hf_model m = read_hf_config(c);
  CHECK(expand(m.spec).blocks[0].ffn.d_ff == 688);
  CHECK(expand(m.spec).blocks[1].ffn.d_ff == 512);
  CHECK(expand(m.spec).blocks[2].ffn.d_ff == 344);
  c["lora_ranks"] = 16;
  m = read_hf_config(c);
  CHECK(expand(m.spec).blocks[2].attention.lora_o == 16);
  CHECK(expand(m.spec).blocks[2].ffn.lora_gate == 16);
  c["lora_ranks"] = {{"q_proj", 8}, {"v_proj", 4}};
  m = read_hf_config(c);
  CHECK(expand(m.spec).blocks[1].attention.lora_q == 8);
  CHECK(expand(m.spec).blocks[1].attention.lora_k == 0);
  CHECK(expand(m.spec).blocks[1].attention.lora_v == 4);
  c["lora_ranks"] = nlohmann::json::array({32, {{"up_proj", 28}}, 0});
  m = read_hf_config(c);
  CHECK(expand(m.spec).blocks[0].ffn.lora_down == 32);
  CHECK(expand(m.spec).blocks[1].ffn.lora_up == 28);
  CHECK(expand(m.spec).blocks[1].attention.lora_q == 0);
  CHECK(expand(m.spec).blocks[2].attention.lora_q == 0);

  // Write a pruned spec back and read it again: same network.
  transformer_spec pruned = m.spec;
  pruned.blocks[0].ffn.d_ff = 100;
  pruned.blocks[2].attention.lora_k = 7;
  const nlohmann::json out = with_nsc_extensions(tiny_llama(), pruned);
  CHECK(out["intermediate_sizes"] == nlohmann::json({100, 512, 344}));
  const hf_model back = read_hf_config(nlohmann::json::parse(out.dump()));
  const network a = make_transformer(pruned, 64), b = make_transformer(back.spec, 64);
  CHECK(score(a).nsc == score(b).nsc);
  CHECK(count(a).total() == count(b).total());
  // Without adapters the field disappears.
  transformer_spec plain = read_hf_config(tiny_llama()).spec;
  nlohmann::json with = tiny_llama();
  with["lora_ranks"] = 4;
  CHECK_FALSE(with_nsc_extensions(with, plain).contains("lora_ranks"));
}

TEST_CASE("read_hf_config: errors name the field and the bad value", "[hf_config][errors]") {
  using Catch::Contains;
  auto fails = [](const nlohmann::json& c, const std::string& text) {
    INFO(c.dump());
    CHECK_THROWS_AS(read_hf_config(c), std::invalid_argument);
    CHECK_THROWS_WITH(read_hf_config(c), Contains(text));
  };
  nlohmann::json c = tiny_llama();
  c["hidden_size"] = "abc";
  fails(c, "nsc::read_hf_config: field 'hidden_size' must be a positive integer (got \"abc\")");
  c["hidden_size"] = -3;
  fails(c, "field 'hidden_size' must be a positive integer (got -3)");
  c["hidden_size"] = 256.5;
  fails(c, "field 'hidden_size' must be a positive integer (got 256.5)");
  c = tiny_llama();
  c.erase("vocab_size");
  fails(c, "nsc::read_hf_config: missing field 'vocab_size' (model_type llama)");
  c = tiny_llama();
  c["num_key_value_heads"] = 3;
  fails(c, "field 'num_key_value_heads' must divide num_attention_heads = 8 (got 3)");
  c = tiny_llama();
  c["num_attention_heads"] = 7;
  fails(c, "field 'num_attention_heads' must divide hidden_size = 256 (got 7)");
  c = tiny_llama();
  c["tie_word_embeddings"] = "yes";
  fails(c, "field 'tie_word_embeddings' must be true or false (got \"yes\")");
  c = tiny_llama();
  c["rms_norm_eps"] = -1;
  fails(c, "field 'rms_norm_eps' must be a positive number (got -1)");
  c = tiny_llama();
  c["model_type"] = "t5";
  fails(c, "nsc::read_hf_config: unknown model_type; supported: llama, mistral, mixtral, qwen2, "
           "qwen3, qwen2_moe, qwen3_moe, phi3, olmo2, gemma, gemma2, gemma3, gemma3_text, "
           "deepseek_v2, deepseek_v3, ");
  fails(c, std::string(hf_supported_model_types) + " (got \"t5\")"); // the list grows with the families
  c.erase("model_type");
  fails(c, "missing field 'model_type'");
  c["model_type"] = 3;
  fails(c, "field 'model_type' must be a string (got 3)");
  fails(nlohmann::json::array({1, 2}), "the config must be a JSON object");
  c = tiny_llama();
  c["intermediate_sizes"] = {1, 2};
  fails(c, "field 'intermediate_sizes' must be a list of 3 positive integers (one per layer)");
  c["intermediate_sizes"] = {1, 0, 2};
  fails(c, "field 'intermediate_sizes[1]' must be a positive integer (got 0)");
  c = tiny_llama();
  c["lora_ranks"] = {1, 2};
  fails(c, "field 'lora_ranks' must have 3 entries (one per layer)");
  c["lora_ranks"] = {{"w_proj", 2}};
  fails(c, "field 'lora_ranks.w_proj' is not a LoRA target");
  c["lora_ranks"] = nlohmann::json::array({1, 2, -1});
  fails(c, "field 'lora_ranks[2]' must be a non-negative integer (got -1)");
  c["lora_ranks"] = "big";
  fails(c, "field 'lora_ranks' must be an integer, an object of ranks or a list of them");
  nlohmann::json g = {{"model_type", "gpt2"}, {"n_embd", 64}, {"n_layer", 2}, {"n_head", 4},
                      {"n_positions", 32},    {"vocab_size", 100}};
  REQUIRE_NOTHROW(read_hf_config(g));
  CHECK(expand(read_hf_config(g).spec).blocks[0].ffn.d_ff == 256); // n_inner absent: 4 n_embd
  g["n_inner"] = nullptr;
  CHECK(expand(read_hf_config(g).spec).blocks[0].ffn.d_ff == 256);
  g["lora_ranks"] = {{"gate_proj", 2}};
  fails(g, "field 'lora_ranks.gate_proj' needs a gated FFN");
  g.erase("lora_ranks");
  g.erase("n_head");
  fails(g, "missing field 'n_head' (model_type gpt2)");
  nlohmann::json x = {{"model_type", "mixtral"},   {"hidden_size", 64},
                      {"intermediate_size", 128},  {"num_hidden_layers", 1},
                      {"num_attention_heads", 4},  {"vocab_size", 10},
                      {"num_local_experts", 4},    {"num_experts_per_tok", 5}};
  fails(x, "field 'num_experts_per_tok' must be <= num_local_experts = 4 (got 5)");
  x.erase("num_local_experts");
  fails(x, "missing field 'num_local_experts' (model_type mixtral)");
  // Files.
  CHECK_THROWS_WITH(read_hf_config_file(configs + "no-such-file.json"),
                    Contains("nsc::read_hf_config: " + configs + "no-such-file.json: cannot open file (no such file)"));
  CHECK_THROWS_WITH(read_hf_config_file(configs), Contains("is a directory, not a file"));
  CHECK_THROWS_WITH(read_hf_config_file(std::string(NSC_SOURCE_DIR) + "/CMakeLists.txt"),
                    Contains("invalid JSON"));
}
