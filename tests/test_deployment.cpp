// Tests of nsc/model/deployment.hpp on hand-built specs: every figure against a hand formula,
// additivity over layers, dtype conventions (int4 groups and scales), exact 128-bit FLOPs, and
// every error path (workload, KV dtype, overflow).
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/transformer.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

using namespace nsc;
using std::int64_t;

namespace {

/// d 128, 2 layers, 4 heads of 32, 2 KV heads, gated FFN 256, vocab 50, untied.
transformer_spec small() {
  transformer_spec s;
  s.d_model = 128;
  s.embeddings.vocab_size = 50;
  block_spec b;
  b.attention.n_heads = 4;
  b.attention.n_kv_heads = 2;
  b.ffn.d_ff = 256;
  b.ffn.gated = true;
  s.blocks.assign(2, b);
  return s;
}

} // namespace

TEST_CASE("deploy: hand formulas for a small dense model", "[deployment]") {
  const transformer_spec s = small();
  workload w;
  w.seq_len = 16;
  w.context = 100;
  w.batch = 4;
  w.kv = dtype::fp32;
  w.weights = dtype::fp32;
  const deployment d = deploy(s, w);
  const std::uint64_t attn = 128 * 128 * 2 + 2 * 128 * 64, ffn = 3 * 128 * 256;
  const std::uint64_t lin = 50 * 128 + 2 * (attn + ffn);
  CHECK(d.linear_macs_per_token == lin);
  CHECK(d.kv_bytes_per_token == 2 * (2 * 2 * 32 * 4));
  CHECK(d.kv_cache_bytes == 2 * (2 * 2 * 32 * 4) * 100 * 4);
  const std::uint64_t pk = 2 * 4 * 32;
  CHECK(d.decode_macs == lin + 2 * pk * 100);
  CHECK(d.decode_flops() == 2 * d.decode_macs);
  CHECK(d.prefill_macs == u128(16 * lin + 2 * pk * 256));
  CHECK(d.flops_per_token() == Approx(2.0 * double(16 * lin + 2 * pk * 256) / 16).epsilon(1e-15));
  const int64_t params = count(make_transformer(s, 16)).total();
  CHECK(d.weight_bytes == std::uint64_t(4 * params));
  CHECK(d.memory_bytes == d.weight_bytes + d.kv_cache_bytes);
  // The default full convention equals resources' MACs at seq_len T (the paper's convention).
  CHECK(d.flops_per_token() == Approx(count(make_transformer(s, 16)).flops()).epsilon(1e-15));
  w.attention = attention_convention::causal;
  CHECK(deploy(s, w).prefill_macs == u128(16 * lin + 2 * pk * (16 * 17 / 2)));
  // Context 0 means seq_len.
  w.context = 0;
  CHECK(deploy(s, w).kv_cache_bytes == 2 * (2 * 2 * 32 * 4) * 16 * 4);
  CHECK(d.convention().find("FLOPs = 2 x MACs") == 0);
}

TEST_CASE("deploy: weight dtypes", "[deployment]") {
  transformer_spec s = small();
  s.blocks[0].ffn.bias = true; // biases stay 2 bytes
  workload w;
  const int64_t params = count(make_transformer(s, 1)).total();
  w.weights = dtype::bf16;
  CHECK(deploy(s, w).weight_bytes == std::uint64_t(2 * params));
  w.weights = dtype::fp16;
  CHECK(deploy(s, w).weight_bytes == std::uint64_t(2 * params));
  // fp8 / int8: attention and FFN matrices at 1 byte; embeddings, head, norms, biases at 2.
  const std::uint64_t mats = 2 * (128 * 128 * 2 + 2 * 128 * 64 + 3 * 128 * 256);
  const std::uint64_t rest = std::uint64_t(params) - mats;
  w.weights = dtype::fp8;
  CHECK(deploy(s, w).weight_bytes == mats + 2 * rest);
  w.weights = dtype::int8;
  CHECK(deploy(s, w).weight_bytes == mats + 2 * rest);
  // int4: half a byte per element + one fp16 scale per 128 inputs of each row.
  // rows x ceil(in / 128): q (128 rows, in 128), k, v (64, 128), o (128, 128), gate/up (256, 128),
  // down (128, in 256: 2 groups).
  const std::uint64_t scales = 2 * 2 * (128 + 64 + 64 + 128 + 256 + 256 + 128 * 2);
  w.weights = dtype::int4;
  CHECK(deploy(s, w).weight_bytes == mats / 2 + scales + 2 * rest);
  // Odd element counts round up per matrix; a group tail counts a whole scale.
  transformer_spec odd;
  odd.d_model = 3;
  odd.final_norm = norm_kind::none;
  odd.lm_head = lm_head_kind::none;
  block_spec b;
  b.attention.kind = attention_kind::linear;
  b.ffn.kind = ffn_kind::none;
  b.n_norms = 0;
  odd.blocks.assign(1, b);
  CHECK(deploy(odd, w).weight_bytes == 5 + 3 * 2); // ceil(9 / 2) + 3 rows x 1 scale x 2 bytes
  // A tied head stores nothing.
  transformer_spec tied = small();
  tied.lm_head = lm_head_kind::tied;
  w.weights = dtype::bf16;
  CHECK(deploy(small(), w).weight_bytes - deploy(tied, w).weight_bytes == 2 * 50 * 128);
  CHECK(deploy(small(), w).linear_macs_per_token == deploy(tied, w).linear_macs_per_token);
}

TEST_CASE("deploy: no-op and linear sublayers, MoE active experts", "[deployment]") {
  transformer_spec s = small();
  s.blocks[0].attention.kind = attention_kind::none;
  s.blocks[0].n_norms = 1;
  s.blocks[1].attention.kind = attention_kind::linear;
  s.blocks[1].ffn.n_experts = 8;
  s.blocks[1].ffn.top_k = 2;
  s.blocks[1].ffn.shared_d_ff = 64;
  s.blocks[1].ffn.shared_gate = true;
  workload w;
  w.seq_len = 8;
  const deployment d = deploy(s, w);
  CHECK(d.kv_bytes_per_token == 0);
  CHECK(d.kv_cache_bytes == 0);
  const std::uint64_t lin = 50 * 128 + 3 * 128 * 256 + 128 * 128 + 2 * 3 * 128 * 256 + 3 * 128 * 64 + 8 * 128 + 128;
  CHECK(d.linear_macs_per_token == lin);
  CHECK(d.prefill_macs == u128(8 * lin)); // no attention products
  CHECK(d.decode_macs == lin);
}

TEST_CASE("deploy: 128-bit exact FLOPs, overflow and workload errors", "[deployment][errors]") {
  CHECK(to_string(u128(0)) == "0");
  CHECK(to_string(u128(UINT64_MAX) * 10 + 7) == "184467440737095516157");
  const transformer_spec s = small();
  workload w;
  w.seq_len = int64_t(1) << 40; // T^2 ~ 1.2e24: beyond 2^64, exact in 128 bits
  w.context = 1;
  const deployment d = deploy(s, w);
  const u128 T = u128(w.seq_len);
  const u128 lin = 50 * 128 + 2 * (128 * 128 * 2 + 2 * 128 * 64 + 3 * 128 * 256);
  CHECK(d.prefill_macs == T * lin + 2 * 256 * T * T);
  CHECK(d.prefill_flops() > u128(UINT64_MAX));
  // Overflow: bytes beyond 2^64 - 1 are a domain error naming the quantity.
  w = workload{};
  w.context = int64_t(1) << 50;
  w.batch = int64_t(1) << 20;
  CHECK_THROWS_AS(deploy(s, w), std::domain_error);
  CHECK_THROWS_WITH(deploy(s, w), Catch::Contains("nsc::deploy: KV-cache bytes"));
  // Workload errors.
  w = workload{};
  w.seq_len = 0;
  CHECK_THROWS_WITH(deploy(s, w), "nsc::deploy: workload.seq_len must be >= 1 (got 0)");
  w = workload{};
  w.context = -1;
  CHECK_THROWS_WITH(deploy(s, w), "nsc::deploy: workload.context must be >= 0 (0: seq_len) (got -1)");
  w = workload{};
  w.batch = 0;
  CHECK_THROWS_WITH(deploy(s, w), "nsc::deploy: workload.batch must be >= 1 (got 0)");
  w = workload{};
  w.kv = dtype::int4;
  CHECK_THROWS_WITH(deploy(s, w), Catch::Contains("the KV-cache dtype must be fp32, bf16, fp16, fp8 or int8"));
  transformer_spec bad = s;
  bad.blocks[1].attention.n_kv_heads = 3;
  CHECK_THROWS_WITH(deploy(bad, workload{}), Catch::Contains("nsc::deploy: layer 1: attention.n_kv_heads must divide"));
  CHECK_THROWS_WITH(parse_dtype("fp4"), Catch::Contains("unknown dtype"));
  CHECK(parse_dtype("int4") == dtype::int4);
  CHECK(parse_attention_convention("causal") == attention_convention::causal);
  CHECK_THROWS_WITH(parse_attention_convention("sparse"), Catch::Contains("expected full or causal"));
}

TEST_CASE("Model-layer checks of the new structures", "[deployment][errors]") {
  auto fails = [](const transformer_spec& s, const std::string& text) {
    CHECK_THROWS_WITH(make_transformer(s, 8), Catch::Contains(text));
  };
  transformer_spec s = small();
  s.blocks[0].attention.kind = attention_kind::latent;
  fails(s, "layer 0: attention.kv_lora_rank must be >= 1");
  s.blocks[0].attention.kv_lora_rank = 8;
  fails(s, "layer 0: attention.qk_nope_head_dim + qk_rope_head_dim must be >= 1");
  s.blocks[0].attention.qk_rope_head_dim = 4;
  fails(s, "layer 0: attention.v_head_dim must be >= 1");
  s.blocks[0].attention.v_head_dim = 8;
  REQUIRE_NOTHROW(make_transformer(s, 8));
  s.blocks[0].attention.qk_rope_head_dim = INT64_MAX;
  fails(s, "layer 0: attention latent dims overflow 64 bits");
  s.blocks[0].attention.qk_rope_head_dim = 4;
  s.blocks[0].attention.lora_q = 2;
  fails(s, "attention LoRA ranks need standard attention");
  s = small();
  s.blocks[1].attention.sliding_window = -1;
  fails(s, "layer 1: attention.sliding_window must be >= 0");
  s = small();
  s.blocks[1].ffn.shared_d_ff = 4;
  fails(s, "layer 1: ffn.shared_d_ff needs a mixture of experts");
  s.blocks[1].ffn.shared_d_ff = 0;
  s.blocks[1].ffn.shared_gate = true;
  fails(s, "layer 1: ffn.shared_gate needs shared_d_ff >= 1");
  // Linear / no-op sublayers need no heads or width.
  s = small();
  s.blocks[0].attention.kind = attention_kind::linear;
  s.blocks[0].attention.n_heads = 0;
  s.blocks[0].ffn.kind = ffn_kind::none;
  s.blocks[0].ffn.d_ff = 0;
  REQUIRE_NOTHROW(make_transformer(s, 8));
  CHECK(make_transformer(s, 8).layers[1].extra_macs == 0);
}
