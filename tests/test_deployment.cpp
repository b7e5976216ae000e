// Tests of nsc/model/deployment.hpp on hand-built specs: every figure against a hand formula,
// additivity over layers, dtype conventions (int4 groups and scales), exact 128-bit FLOPs, and
// every error path (workload, KV dtype, overflow).
#include <nsc/model/analyze.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

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

// ---- nsc/io/units.hpp, nsc/model/gpu.hpp, nsc/io/gpu_file.hpp, nsc/model/serving.hpp ----------
// References are hand-computed (the arithmetic is in the comments); nothing is read back from the
// code under test.

#include <nsc/io/gpu_file.hpp>
#include <nsc/io/units.hpp>
#include <nsc/model/gpu.hpp>
#include <nsc/model/serving.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

std::string units_error(std::string_view text, io::quantity_kind k) {
  try {
    (void)io::parse_quantity(text, k, "nsc prune: --memory");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

/// Llama-3.1-70B as its config describes it: d 8192, 80 layers, 64 heads of 128, kv_heads KV
/// heads, SwiGLU 28672, vocabulary 128256, untied, RMSNorm.
transformer_spec llama70b(std::int64_t kv_heads) {
  transformer_spec s;
  s.d_model = 8192;
  s.embeddings.vocab_size = 128256;
  block_spec b;
  b.attention.n_heads = 64;
  b.attention.n_kv_heads = kv_heads;
  b.ffn.d_ff = 28672;
  b.ffn.gated = true;
  b.repeat = 80;
  s.blocks.assign(1, b);
  return s;
}

} // namespace

TEST_CASE("units: budgets as people write them", "[units]") {
  using io::quantity_kind;
  CHECK(io::parse_bytes("24GiB", "f") == 24.0 * 1073741824.0);
  CHECK(io::parse_bytes("80GB", "f") == 80e9);
  CHECK(io::parse_bytes("80G", "f") == 80e9);
  CHECK(io::parse_bytes("512Mi", "f") == 536870912.0);
  CHECK(io::parse_bytes("1.5e9", "f") == 1.5e9);
  CHECK(io::parse_bytes(" 100B ", "f") == 100);
  CHECK(io::parse_bytes("70%", "f", 1000) == 700);
  CHECK(io::parse_count("8B", "f") == 8e9);
  CHECK(io::parse_count("750M", "f") == 750e6);
  CHECK(io::parse_count("8190735360", "f") == 8190735360.0);
  CHECK(io::parse_count("80%", "f", 8190735360.0) == 0.8 * 8190735360.0);
  CHECK(io::parse_tokens("32k", "f", 1, 1 << 30) == 32000);
  CHECK(io::parse_tokens("32Ki", "f", 1, 1 << 30) == 32768);
  CHECK(io::parse_tokens("25.6k", "f", 1, 1 << 30) == 25600);
  CHECK(io::parse_tokens("4096", "f", 1, 1 << 30) == 4096);
  CHECK(io::parse_milliseconds("40", "f") == 40);
  CHECK(io::parse_milliseconds("40ms", "f") == 40);
  CHECK(io::parse_milliseconds("0.04s", "f") == 40);
  CHECK(io::parse_milliseconds("500us", "f") == 0.5);
  CHECK(io::parse_milliseconds("50%", "f", 30) == 15);
  CHECK(io::parse_fraction("0.9", "f") == 0.9);
  CHECK(io::parse_fraction("90%", "f") == 0.9);
  // Refusals: the flag, the text and the accepted forms, in one short line.
  const std::string e = units_error("24GX", quantity_kind::bytes);
  CHECK(e.find("nsc prune: --memory: cannot read '24GX'") == 0);
  CHECK(e.find("24GiB, 80GB") != std::string::npos);
  CHECK(e.size() < 200);
  CHECK(units_error("32K", quantity_kind::tokens).find("ambiguous") != std::string::npos);
  CHECK(units_error("-5", quantity_kind::bytes).find("negative") != std::string::npos);
  CHECK(units_error("", quantity_kind::bytes).find("empty") != std::string::npos);
  CHECK(units_error("1e400", quantity_kind::count).find("not finite") != std::string::npos);
  CHECK(units_error("1.5", quantity_kind::tokens).find("whole number") != std::string::npos);
  CHECK(units_error("70%", quantity_kind::tokens).find("percentage") != std::string::npos);
  CHECK(units_error("1Gi", quantity_kind::count).find("binary") != std::string::npos);
  CHECK(units_error("1e", quantity_kind::count).find("exponent") != std::string::npos);
  CHECK(units_error("1.2", quantity_kind::fraction).find("(0, 1]") != std::string::npos);
  CHECK(units_error(std::string(300, '9'), quantity_kind::count).find("too long") != std::string::npos);
  CHECK_THROWS_WITH(io::parse_bytes("70%", "f"), Catch::Contains("no reference"));
  CHECK_THROWS_WITH(io::parse_bytes("8192Pi", "f"), Catch::Contains("above 2^62")); // 2^63 bytes
  CHECK_THROWS_WITH(io::parse_tokens("2Ki", "f", 1, 1000), Catch::Contains("outside [1, 1000]"));
}

TEST_CASE("gpu: data-sheet table and user profiles", "[gpu]") {
  // The dense figures: sparse sheet figures halved (L4: 242 / 485 / 485 with sparsity).
  const auto l4 = find_gpu("l4");
  REQUIRE(l4);
  CHECK(l4->memory_bytes == 24e9);
  CHECK(l4->bandwidth == 300e9);
  CHECK(l4->bf16_flops == 121e12);
  CHECK(l4->fp8_flops == 242.5e12);
  CHECK(find_gpu("h100 sxm")->bf16_flops == 989.4e12);
  CHECK(find_gpu("MI300X")->memory_bytes == 192e9);
  CHECK_FALSE(find_gpu("H1000"));
  for (const gpu_datasheet& g : gpu_datasheets()) {
    CHECK(g.memory_bytes > 0);
    CHECK(g.bandwidth > 0);
    CHECK(g.bf16_flops > 0);
    CHECK((g.fp8_flops == 0 || g.fp8_flops >= g.bf16_flops)); // fp8 runs at >= the bf16 rate
    CHECK(g.int8_ops >= g.bf16_flops);
    CHECK(g.source.size() > 20);
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nsc_test_gpu_file";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const auto ok = io::read_gpu_file(write("ok.json", R"({"gpus": [{"name": "Mine", "memory": "48GiB", "bandwidth_gb_s": 960,
      "bf16_tflops": 181, "fp8_tflops": 362}, {"name": "Other", "memory": 16e9, "bandwidth_gb_s": 320, "bf16_tflops": 65}]})"));
  REQUIRE(ok.size() == 2);
  CHECK(ok[0].memory_bytes == 48.0 * 1073741824.0);
  CHECK(ok[0].bandwidth == 960e9);
  CHECK(ok[0].fp8_flops == 362e12);
  CHECK(ok[1].int8_ops == 0);
  CHECK(io::read_gpu_file(write("one.json", R"({"name": "Solo", "memory": "8GB", "bandwidth_gb_s": 100, "bf16_tflops": 10})")).size() == 1);
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad1.json", R"({"name": "X", "memory": "8GB", "bandwidth_gb_s": -1, "bf16_tflops": 10})")),
                    Catch::Contains("bandwidth_gb_s") && Catch::Contains("must be in"));
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad2.json", R"({"name": "X", "memory": "8GB", "bandwidth_gb_s": 100})")),
                    Catch::Contains("bf16_tflops") && Catch::Contains("required"));
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad3.json", R"({"name": "X", "memory": "8GX", "bandwidth_gb_s": 100, "bf16_tflops": 1})")),
                    Catch::Contains("memory") && Catch::Contains("cannot read"));
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad4.json", R"({"name": "X", "memory": 1e30, "bandwidth_gb_s": 100, "bf16_tflops": 1})")),
                    Catch::Contains("1 PB"));
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad5.json", R"({"name": "X", "memroy": 1, "bandwidth_gb_s": 100, "bf16_tflops": 1})")),
                    Catch::Contains("'memroy' is not a profile field"));
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad6.json", R"({"gpus": [{"name": "A", "memory": "8GB", "bandwidth_gb_s": 1, "bf16_tflops": 1},
      {"name": "a", "memory": "8GB", "bandwidth_gb_s": 1, "bf16_tflops": 1}]})")),
                    Catch::Contains("two profiles"));
  CHECK_THROWS_WITH(io::read_gpu_file(write("bad7.json", "[[[[[[[[1]]]]]]]]")), Catch::Contains("nsc::io::read_gpu_file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("serving: tensor-parallel memory as vLLM allocates it (Llama-3.1-70B, tp 2)", "[serving]") {
  // Hand formulas, bf16, context 8192, batch 1. Per GPU at tp 2 with 8 KV heads: embedding and
  // head 64128 x 8192 x 2 B each; per layer q 32 x 128 x 8192, k and v 4 x 128 x 8192, o 8192 x
  // 4096, gate / up / down 14336 x 8192 (x 2 B), 2 norms of 8192 x 2 B; final norm 16,384 B:
  // 70,555,025,408 B of weights; KV 80 x 8192 x 2 x 4 x 128 x 2 B = 1,342,177,280 B.
  workload w;
  w.seq_len = 8192;
  w.context = 8192;
  parallelism p;
  p.tp = 2;
  const deployment d8 = deploy(shard_spec(llama70b(8), p), w);
  CHECK(d8.weight_bytes == 70555025408ull);
  CHECK(d8.kv_cache_bytes == 1342177280ull);
  // One KV head per layer (a pruned model): fewer KV heads than tp, so each GPU holds one
  // replica of it (k / v projections 128 x 8192 each, KV 8192 x 2 x 128 x 2 B per layer):
  // 69,548,392,448 + 335,544,320 per GPU, 139,767,873,536 over both; the model's own count
  // (one copy) is 139,094,147,072: 673,726,464 bytes short.
  const deployment d1 = deploy(shard_spec(llama70b(1), p), w);
  CHECK(d1.weight_bytes == 69548392448ull);
  CHECK(d1.kv_cache_bytes == 335544320ull);
  CHECK(2 * d1.memory_bytes == 139767873536ull);
  CHECK(deploy(llama70b(1), w).memory_bytes == 139094147072ull);
  // tp 1 is the model itself; ep must be 1 or tp.
  CHECK(deploy(shard_spec(llama70b(8), parallelism{}), w).memory_bytes == deploy(llama70b(8), w).memory_bytes);
  parallelism bad;
  bad.tp = 4;
  bad.ep = 2;
  CHECK_THROWS_WITH(shard_spec(llama70b(8), bad), Catch::Contains("ep must be 1 or tp"));
}

TEST_CASE("serving: roofline of a sublayer against hand formulas (Llama-3-8B FFN on an L4)", "[serving]") {
  transformer_spec s;
  s.d_model = 4096;
  s.embeddings.vocab_size = 128256;
  block_spec b;
  b.attention.n_heads = 32;
  b.attention.n_kv_heads = 8;
  b.ffn.d_ff = 14336;
  b.ffn.gated = true;
  s.blocks.assign(1, b);
  serving_settings st;
  st.gpu = *find_gpu("L4");
  workload w;
  w.seq_len = 4096;
  w.context = 4096;
  const serving_entry f = serving_block(s, sublayer_block(b, false), w, st);
  // decode, batch 1: 3 x 14336 x 4096 x 2 B + one norm 4096 x 2 B = 352,329,728 B at 0.8 x 300 GB/s
  // = 1,468,040,533.3 ps (memory-bound: 2 x 3 x 14336 x 4096 FLOPs / (0.7 x 121e12) = 4.2 us).
  CHECK(f.decode_ps == 1468040533);
  CHECK(f.decode_memory_bound);
  // prefill of 4096 tokens in 2 chunks of 2048 (L4 < 70 GiB: vLLM's 2048): each compute-bound,
  // 2048 x 2 x 3 x 14336 x 4096 / (0.7 x 121e12) s: 17,037,886,794.05 ps in all.
  CHECK(st.chunk() == 2048);
  CHECK(f.prefill_ps == 17037886794);
  // MoE: expected experts touched by b tokens routing to k of E: E (1 - (1 - k/E)^b).
  CHECK(detail::experts_touched(8, 2, 1) == Approx(2.0).epsilon(1e-15));
  CHECK(detail::experts_touched(8, 2, 2) == Approx(3.5).epsilon(1e-15));
  // Keys of a causal chunk: 3 queries after 5 cached, window 6: min(6,6) + min(7,6) + min(8,6) = 18.
  CHECK(detail::chunk_keys(5, 3, 6) == 18);
  CHECK(detail::chunk_keys(5, 3, 0) == 3 * 5 + 6);
  // Bad settings are refused with the rule.
  serving_settings bad = st;
  bad.gpu_memory_utilization = 1.5;
  CHECK_THROWS_WITH(serve(s, w, bad), Catch::Contains("gpu_memory_utilization must be in (0, 1]"));
  bad = st;
  bad.prefill_chunk = 1;
  w.context = 2000000;
  CHECK_THROWS_WITH(serve(s, w, bad), Catch::Contains("1,000,000 chunks"));
}

// nsc::analyze: decoder layers by index (runs expanded), the other parts by name, each figure
// against a hand formula (params, KV bytes, psi sums of the paper's per-head blocks with Xavier
// variance 2 / (rows + cols) through the checked primitive psi_mp), and the same totals as the
// lower-level score / count / deploy.
TEST_CASE("analyze: layers by index, parts by name, hand formulas", "[deployment][analyze]") {
  const int64_t d = 256, V = 1000, H = 8, hd = 32;
  transformer_spec s;
  s.d_model = d;
  s.embeddings.vocab_size = V;
  block_spec gqa; // 8 heads of 32, 2 KV heads, SwiGLU 688
  gqa.attention.n_heads = H;
  gqa.attention.n_kv_heads = 2;
  gqa.ffn.d_ff = 688;
  gqa.ffn.gated = true;
  block_spec mha = gqa; // MHA, plain FFN 512
  mha.attention.n_kv_heads = 0;
  mha.ffn.d_ff = 512;
  mha.ffn.gated = false;
  gqa.repeat = 3;
  block_spec tail = gqa;
  tail.repeat = 2;
  s.blocks = {gqa, mha, tail}; // layers 0-2 gqa, 3 mha, 4-5 gqa
  model_options o;
  o.load.seq_len = 128;
  o.load.batch = 2;
  const model_report r = analyze(s, o);
  REQUIRE(r.layers.size() == 6);
  auto psi = [](double m, double n) { return psi_mp(m, n, 2 / (m + n)); };
  auto layer_params = [&](int64_t kv, int64_t ff, bool gated) {
    return d * H * hd + 2 * d * kv * hd + H * hd * d + (gated ? 3 : 2) * d * ff + 2 * d; // + 2 RMSNorms
  };
  auto layer_nsc = [&](int64_t kv, int64_t ff, bool gated) {
    return H * psi(hd, d) + 2 * kv * psi(hd, d) + psi(d, H * hd) + (gated ? 2 : 1) * psi(ff, d) + psi(d, ff);
  };
  for (int64_t i = 0; i < 6; ++i) {
    const layer_report& l = r.layers[std::size_t(i)];
    const bool is_mha = i == 3;
    CHECK(l.index == i);
    CHECK(l.name == "layers." + std::to_string(i));
    CHECK(l.deployment.name == l.name);
    CHECK(l.deployment.repeat == 1);
    CHECK(l.params() == (is_mha ? layer_params(H, 512, false) : layer_params(2, 688, true)));
    CHECK(l.nsc == Approx(is_mha ? layer_nsc(H, 512, false) : layer_nsc(2, 688, true)).epsilon(1e-12));
    CHECK(l.part_nsc(part::attention) + l.part_nsc(part::ffn) == Approx(l.nsc).epsilon(1e-12));
    const uint64_t kv_token = uint64_t(2 * (is_mha ? H : 2) * hd * 2); // K and V, bf16
    CHECK(l.deployment.kv_bytes_per_token == kv_token);
    CHECK(l.deployment.kv_cache_bytes == kv_token * 128 * 2);
  }
  REQUIRE(r.parts.size() == 3);
  CHECK(r.parts[0].name == "embeddings");
  CHECK(r.parts[1].name == "final_norm");
  CHECK(r.parts[2].name == "lm_head");
  CHECK(r.part_named("embeddings").params() == V * d);
  CHECK(r.part_named("final_norm").params() == d);
  CHECK(r.part_named("lm_head").params() == V * d);
  CHECK(r.part_named("lm_head").nsc == 0); // not scored by the paper's convention
  CHECK(r.part_named("embeddings").index == -1);
  const int64_t total = 2 * V * d + d + 5 * layer_params(2, 688, true) + layer_params(H, 512, false);
  CHECK(r.params() == total);
  CHECK(r.active_params() == total);
  CHECK(r.nsc == Approx(5 * layer_nsc(2, 688, true) + layer_nsc(H, 512, false)).epsilon(1e-12));
  CHECK(r.kv_cache_bytes() == uint64_t(5 * 256 + 1024) * 128 * 2); // bytes per token x T x B
  CHECK(r.memory_bytes() == uint64_t(total) * 2 + r.kv_cache_bytes());
  // The lower-level calls give the same totals.
  const network net = make_transformer(s, 128);
  CHECK(r.nsc == score(net).nsc);
  CHECK(r.params() == count(net).total());
  CHECK(r.counts.macs == count(net).macs);
  CHECK(r.deployment.kv_cache_bytes == deploy(s, o.load).kv_cache_bytes);
  // A run and its expansion report the same layers.
  const model_report e = analyze(expand(s), o);
  REQUIRE(e.layers.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(e.layers[i].name == r.layers[i].name);
    CHECK(e.layers[i].nsc == r.layers[i].nsc);
    CHECK(e.layers[i].params() == r.layers[i].params());
  }
}

TEST_CASE("analyze: errors name the function and the rule", "[deployment][analyze][errors]") {
  transformer_spec s = small();
  s.blocks[0].repeat = 70000;
  CHECK_THROWS_WITH(analyze(s), Catch::Contains("nsc::analyze") && Catch::Contains("max_layers = 65536"));
  model_options o;
  o.max_layers = 70001;
  CHECK(analyze(s, o).layers.size() == 70001);
  CHECK_THROWS_WITH(analyze(small(), {.load = {.seq_len = 0}}), Catch::Contains("nsc::analyze: options.load.seq_len must be >= 1"));
  CHECK_THROWS_WITH(analyze(small()).part_named("pooler"),
                    Catch::Contains("nsc::model_report::part_named") && Catch::Contains("embeddings, final_norm, lm_head"));
  transformer_spec bad = small();
  bad.blocks[1].attention.n_kv_heads = 3;
  CHECK_THROWS_WITH(analyze(bad), Catch::Contains("nsc::analyze: layer 1"));
}
