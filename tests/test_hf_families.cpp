// Tests of nsc/io/hf_config.hpp's family table and nsc/model/deployment.hpp on every bundled
// config: parameters (total, active) against published totals and the independent generator
// tests/reference/gen_family_params.py (its output family_params.json), deployment figures
// (KV cache, FLOPs, weight bytes) against the same generator, restatement identities
// (GQA = MHA, per_layer_config, block_configs), MLA / sliding-window hand formulas, scoring of
// the new structures against direct psi_mp sums, and every error path of the reader.
#include <nsc/io/hf_config.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <fstream>
#include <string>

using namespace nsc;
using std::int64_t;
using json = nlohmann::json;

namespace {

const std::string root = std::string(NSC_SOURCE_DIR);
const std::string configs = root + "/examples/configs/";

const json& reference() {
  static const json j = json::parse(std::ifstream(root + "/tests/reference/family_params.json"));
  return j;
}

double psi_x(double m, double n) { return psi_mp(m, n, 2.0 / (m + n)); }

workload reference_workload() {
  const json& w = reference()["workload"];
  workload l;
  l.seq_len = w["T"].get<int64_t>();
  l.context = w["C"].get<int64_t>();
  l.batch = w["B"].get<int64_t>();
  l.kv = dtype::bf16;
  return l;
}

json tiny_llama() {
  return {{"model_type", "llama"},     {"hidden_size", 256},       {"intermediate_size", 688},
          {"num_hidden_layers", 4},    {"num_attention_heads", 8}, {"num_key_value_heads", 2},
          {"vocab_size", 1000},        {"rms_norm_eps", 1e-5}};
}

json tiny_deepseek() {
  return {{"model_type", "deepseek_v3"}, {"hidden_size", 64},  {"intermediate_size", 96},
          {"num_hidden_layers", 3},      {"num_attention_heads", 4}, {"vocab_size", 100},
          {"q_lora_rank", 24},           {"kv_lora_rank", 16}, {"qk_nope_head_dim", 8},
          {"qk_rope_head_dim", 4},       {"v_head_dim", 6},    {"n_routed_experts", 8},
          {"n_shared_experts", 2},       {"num_experts_per_tok", 2}, {"moe_intermediate_size", 12},
          {"first_k_dense_replace", 1},  {"moe_layer_freq", 1}, {"topk_method", "noaux_tc"}};
}

void same_everything(const transformer_spec& a, const transformer_spec& b) {
  const network na = make_transformer(a, 512), nb = make_transformer(b, 512);
  CHECK(score(na).nsc == score(nb).nsc);
  CHECK(count(na).total() == count(nb).total());
  CHECK(count(na).active() == count(nb).active());
  workload w;
  w.seq_len = 512;
  w.context = 8192;
  w.attention = attention_convention::causal;
  const deployment da = deploy(a, w), db = deploy(b, w);
  CHECK(da.kv_cache_bytes == db.kv_cache_bytes);
  CHECK(da.prefill_macs == db.prefill_macs);
  CHECK(da.decode_macs == db.decode_macs);
  CHECK(da.weight_bytes == db.weight_bytes);
}

} // namespace

TEST_CASE("Every bundled config: params equal the published total and the independent generator",
          "[hf_families][params]") {
  std::size_t seen = 0;
  for (const auto& [name, r] : reference()["models"].items()) {
    INFO(name);
    const hf_model m = read_hf_config_file(configs + name + ".json");
    const network net = hf_network(m, 256);
    const resources res = count(net);
    CHECK(res.total() == r["params_total"].get<int64_t>());
    CHECK(res.active() == r["params_active"].get<int64_t>());
    if (r.contains("published_total")) CHECK(res.total() == r["published_total"].get<int64_t>());
    CHECK(total_layers(m.spec) == r["layers"].get<int64_t>());
    ++seen;
  }
  CHECK(seen == 25); // every file in examples/configs
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(configs)) files += e.path().extension() == ".json";
  CHECK(files == seen);
  // Published totals spelled out (model cards / safetensors metadata).
  auto total = [](const char* f) { return count(hf_network(read_hf_config_file(configs + f), 256)).total(); };
  CHECK(total("gemma-2-9b.json") == 9241705984);
  CHECK(total("gemma-2-2b.json") == 2614341888);
  CHECK(total("phi-3-mini-4k-instruct.json") == 3821079552);
  CHECK(total("qwen3-8b.json") == 8190735360);
  CHECK(total("deepseek-v3.json") == 671026419200); // without the MTP layer (see README)
  CHECK(total("pythia-160m.json") == 162322944);
  CHECK(total("olmo-2-1124-7b.json") == 7298617344);
  CHECK(reference()["deepseek_v3_hub"]["total"].get<int64_t>() == 684531386000);
}

TEST_CASE("Every bundled config: KV cache, FLOPs and weight bytes equal the independent generator",
          "[hf_families][deployment]") {
  for (const auto& [name, r] : reference()["models"].items()) {
    INFO(name);
    const hf_model m = read_hf_config_file(configs + name + ".json");
    workload w = reference_workload();
    const deployment d = deploy(m.spec, w);
    CHECK(d.kv_bytes_per_token == r["kv_cache_bytes_per_token"].get<std::uint64_t>());
    CHECK(d.kv_cache_bytes == r["kv_cache_bytes"].get<std::uint64_t>());
    CHECK(d.linear_macs_per_token == r["linear_macs_per_token"].get<std::uint64_t>());
    CHECK(d.decode_flops() == r["decode_flops"].get<std::uint64_t>());
    CHECK(to_string(d.prefill_flops()) == std::to_string(r["prefill_flops_full"].get<std::uint64_t>()));
    CHECK(d.weight_bytes == r["weight_bytes_bf16"].get<std::uint64_t>());
    CHECK(d.memory_bytes == r["memory_bytes_bf16"].get<std::uint64_t>());
    w.attention = attention_convention::causal;
    CHECK(to_string(deploy(m.spec, w).prefill_flops()) ==
          std::to_string(r["prefill_flops_causal"].get<std::uint64_t>()));
    for (const char* t : {"fp32", "fp8", "int4"}) {
      w.weights = parse_dtype(t);
      CHECK(deploy(m.spec, w).weight_bytes == r[std::string("weight_bytes_") + t].get<std::uint64_t>());
    }
    // Per layer: the blocks' KV bytes per token and windows.
    std::size_t b = 0;
    for (const layer_deployment& l : d.layers) {
      if (l.name.rfind("layers.", 0) != 0) {
        CHECK(l.kv_cache_bytes == 0);
        continue;
      }
      for (int64_t k = 0; k < l.repeat; ++k, ++b) { // a run: the same figures for each of its layers
        CHECK(l.kv_bytes_per_token == r["layer_kv_bytes_per_token"][b].get<std::uint64_t>());
        CHECK(l.window == r["layer_window"][b].get<int64_t>());
      }
    }
    CHECK(int64_t(b) == total_layers(m.spec));
  }
}

TEST_CASE("Family structure: windows, MoE layers, MLA dims, text_config", "[hf_families]") {
  const hf_model g2 = read_hf_config_file(configs + "gemma-2-9b.json");
  CHECK(expand(g2.spec).blocks[0].attention.sliding_window == 4096);
  CHECK(expand(g2.spec).blocks[1].attention.sliding_window == 0);
  CHECK(expand(g2.spec).blocks[0].n_norms == 4);
  CHECK(g2.spec.lm_head == lm_head_kind::tied);
  const hf_model g3 = read_hf_config_file(configs + "gemma-3-4b-it.json");
  CHECK(g3.text_config);
  CHECK(g3.model_type == "gemma3_text");
  CHECK(g3.spec.d_model == 2560);
  CHECK(g3.spec.embeddings.vocab_size == 262208); // Gemma3TextConfig's default
  CHECK(expand(g3.spec).blocks[4].attention.sliding_window == 1024);
  CHECK(expand(g3.spec).blocks[5].attention.sliding_window == 0);
  CHECK(expand(g3.spec).blocks[0].attention.qk_norm == qk_norm_kind::per_head);
  const hf_model ds = read_hf_config_file(configs + "deepseek-v3.json");
  CHECK(expand(ds.spec).blocks[2].ffn.n_experts == 0);
  CHECK(expand(ds.spec).blocks[3].ffn.n_experts == 256);
  CHECK(expand(ds.spec).blocks[3].ffn.shared_d_ff == 2048);
  CHECK(expand(ds.spec).blocks[3].ffn.router_bias);
  CHECK(expand(ds.spec).blocks[0].attention.kind == attention_kind::latent);
  CHECK(expand(ds.spec).blocks[0].attention.qk_head_size() == 192);
  const hf_model lite = read_hf_config_file(configs + "deepseek-v2-lite.json");
  CHECK(expand(lite.spec).blocks[0].attention.q_lora_rank == 0);
  CHECK_FALSE(expand(lite.spec).blocks[1].ffn.router_bias);
  const hf_model qm = read_hf_config_file(configs + "qwen1.5-moe-a2.7b.json");
  CHECK(expand(qm.spec).blocks[0].ffn.shared_gate);
  CHECK(expand(qm.spec).blocks[0].attention.sliding_window == 0); // use_sliding_window false
  const hf_model phi = read_hf_config_file(configs + "phi-3-mini-4k-instruct.json");
  CHECK(expand(phi.spec).blocks[31].attention.sliding_window == 2047);
  CHECK(phi.spec.name == "Phi-3-mini-4k-instruct");
  const hf_model deci = read_hf_config_file(configs + "nemotron-nas-example.json");
  CHECK(expand(deci.spec).blocks[0].attention.kv_heads() == 8);
  CHECK(expand(deci.spec).blocks[0].ffn.d_ff == 7168);  // find_multiple(int(2 * 5.25 * 2048 / 3), 256)
  CHECK(expand(deci.spec).blocks[2].ffn.d_ff == 1792);  // 1.3125
  CHECK(expand(deci.spec).blocks[4].ffn.d_ff == 4608);  // int(4480) -> 4608
  CHECK(expand(deci.spec).blocks[3].attention.kind == attention_kind::none);
  CHECK(expand(deci.spec).blocks[3].n_norms == 1);
  CHECK(expand(deci.spec).blocks[4].attention.kind == attention_kind::linear);
  CHECK(expand(deci.spec).blocks[5].ffn.kind == ffn_kind::none);
  CHECK(expand(deci.spec).blocks[6].ffn.kind == ffn_kind::linear);
  CHECK(expand(deci.spec).blocks[7].ffn.d_ff == 3072);
  // A written-back DeciLM config (with_nsc_extensions: d_ff 0 for no_op / linear FFNs) reads back.
  const json deci_raw = json::parse(std::ifstream(configs + "nemotron-nas-example.json"));
  const hf_model back = read_hf_config(with_nsc_extensions(deci_raw, deci.spec));
  CHECK(count(hf_network(back, 16)).total() == count(hf_network(deci, 16)).total());
  // Qwen sliding rule and layer_types.
  json q = tiny_llama();
  q["model_type"] = "qwen2";
  q["use_sliding_window"] = true;
  q["sliding_window"] = 64;
  q["max_window_layers"] = 2;
  hf_model m = read_hf_config(q);
  CHECK(expand(m.spec).blocks[1].attention.sliding_window == 0);
  CHECK(expand(m.spec).blocks[2].attention.sliding_window == 64);
  q["layer_types"] = {"sliding_attention", "full_attention", "full_attention", "sliding_attention"};
  m = read_hf_config(q);
  CHECK(expand(m.spec).blocks[0].attention.sliding_window == 64);
  CHECK(expand(m.spec).blocks[2].attention.sliding_window == 0);
  CHECK(expand(m.spec).blocks[3].attention.sliding_window == 64);
  // A multimodal wrapper of any known text decoder.
  json wrap = {{"model_type", "llava"}, {"text_config", tiny_llama()}};
  m = read_hf_config(wrap);
  CHECK(m.text_config);
  CHECK(m.model_type == "llama");
  CHECK(m.spec.name == "llava");
}

TEST_CASE("Restatements give identical results", "[hf_families]") {
  // GQA with n_kv = n_heads is MHA.
  json mha = tiny_llama();
  mha.erase("num_key_value_heads");
  json gqa = tiny_llama();
  gqa["num_key_value_heads"] = 8;
  same_everything(read_hf_config(mha).spec, read_hf_config(gqa).spec);
  // per_layer_config restating the global fields.
  json plc = tiny_llama();
  plc["per_layer_config"] = {{"1", {{"num_attention_heads", 8}, {"num_key_value_heads", 2}}},
                             {"3", {{"intermediate_size", 688}, {"head_dim", 32}, {"skip", json::array()}}}};
  same_everything(read_hf_config(tiny_llama()).spec, read_hf_config(plc).spec);
  // block_configs restating a homogeneous llama: nemotron-nas == llama.
  json deci = tiny_llama();
  deci["model_type"] = "nemotron-nas";
  deci.erase("num_key_value_heads");
  deci.erase("intermediate_size");
  json blocks = json::array();
  for (int i = 0; i < 4; ++i)
    blocks.push_back({{"attention", {{"n_heads_in_group", 4}, {"no_op", false}, {"replace_with_linear", false}}},
                      {"ffn", {{"intermediate_size", 688}}}});
  deci["block_configs"] = blocks;
  same_everything(read_hf_config(tiny_llama()).spec, read_hf_config(deci).spec);
  // ffn_mult that lands on the same width: find_multiple(int(2 * 2.015625 * 256 / 3), 256) = 512.
  json llama512 = tiny_llama();
  llama512["intermediate_size"] = 512;
  for (json& b : deci["block_configs"]) b["ffn"] = {{"ffn_mult", 2.015625}};
  same_everything(read_hf_config(llama512).spec, read_hf_config(deci).spec);
  // per_layer_config skip == DeciLM no_op (the sublayer and its norm are gone).
  json skip = tiny_llama();
  skip["per_layer_config"] = {{"2", {{"skip", {"attention"}}}}, {"3", {{"skip", {"mlp"}}}}};
  deci["block_configs"][2]["attention"] = {{"no_op", true}};
  deci["block_configs"][3]["ffn"] = {{"no_op", true}};
  for (int i : {0, 1, 2}) deci["block_configs"][std::size_t(i)]["ffn"] = {{"intermediate_size", 688}};
  same_everything(read_hf_config(skip).spec, read_hf_config(deci).spec);
  const hf_model s = read_hf_config(skip);
  CHECK(expand(s.spec).blocks[2].n_norms == 1);
  CHECK(count(make_transformer(s.spec, 1)).total() ==
        count(make_transformer(read_hf_config(tiny_llama()).spec, 1)).total() -
            (256 * 256 * 2 + 2 * 256 * 64 + 256) - (3 * 256 * 688 + 256));
}

TEST_CASE("MLA and sliding-window deployment against hand formulas", "[hf_families][deployment]") {
  const hf_model m = read_hf_config(tiny_deepseek());
  // Params by hand: d 64, h 4, q_lora 24, kv_lora 16, nope 8, rope 4, v 6, vocab 100.
  const int64_t attn = 24 * 64 + 24 + 4 * 12 * 24 + (16 + 4) * 64 + 16 + 4 * (8 + 6) * 16 + 64 * 4 * 6;
  const int64_t dense = 3 * 64 * 96, moe = 8 * 3 * 64 * 12 + 3 * 64 * 24 + 8 * 64 + 8;
  const int64_t total = 2 * 100 * 64 + 64 + 3 * (attn + 2 * 64) + dense + 2 * moe;
  CHECK(count(hf_network(m, 1)).total() == total);
  CHECK(count(hf_network(m, 1)).active() == total - 2 * 6 * 3 * 64 * 12);
  workload w;
  w.seq_len = 10;
  w.context = 1000;
  w.batch = 3;
  w.kv = dtype::fp16;
  const deployment d = deploy(m.spec, w);
  CHECK(d.kv_bytes_per_token == 3 * (16 + 4) * 2);          // one latent per token, no factor 2
  CHECK(d.kv_cache_bytes == 3ull * (16 + 4) * 2 * 1000 * 3);
  const std::uint64_t per_key = 4 * (12 + 6);
  const std::uint64_t linear = 100 * 64 + 3 * (attn - 24 - 16 - 0) + dense + 2 * (2 * 3 * 64 * 12 + 3 * 64 * 24 + 8 * 64);
  CHECK(d.linear_macs_per_token == linear);
  CHECK(d.decode_macs == linear + 3 * per_key * 1000);
  CHECK(d.prefill_macs == u128(10 * linear + 3 * per_key * 100)); // full: 10 x 10 keys
  w.attention = attention_convention::causal;
  CHECK(deploy(m.spec, w).prefill_macs == u128(10 * linear + 3 * per_key * 55));

  // Sliding window W = 4 on layers 0 and 2 of a 4-layer llama (kv 2 heads of 32).
  json c = tiny_llama();
  c["model_type"] = "mistral";
  c["sliding_window"] = 4;
  c["layer_types"] = {"sliding_attention", "full_attention", "sliding_attention", "full_attention"};
  const hf_model s = read_hf_config(c);
  w = workload{};
  w.seq_len = 10;
  w.context = 7;
  w.batch = 2;
  w.kv = dtype::bf16;
  const deployment e = deploy(s.spec, w);
  const std::uint64_t kv_tok = 2 * 2 * 32 * 2; // 2 x n_kv x head_dim x bytes
  CHECK(e.kv_bytes_per_token == 4 * kv_tok);
  CHECK(e.kv_cache_bytes == 2 * kv_tok * (4 + 7 + 4 + 7));
  const std::uint64_t pk = 2 * 8 * 32;
  const std::uint64_t lin = 1000 * 256 + 4 * (256 * 256 * 2 + 2 * 256 * 64 + 3 * 256 * 688);
  CHECK(e.linear_macs_per_token == lin);
  CHECK(e.decode_macs == lin + pk * (4 + 7 + 4 + 7));
  // full: sliding layers 10 x 4 keys, global 10 x 10
  CHECK(e.prefill_macs == u128(10 * lin + pk * (40 + 100 + 40 + 100)));
  w.attention = attention_convention::causal;
  // causal: sliding 1+2+3+4+4x6 = 34, global 55
  CHECK(deploy(s.spec, w).prefill_macs == u128(10 * lin + pk * (34 + 55 + 34 + 55)));
  CHECK(deploy(s.spec, w).flops_per_token() == Approx(2.0 * double(10 * lin + pk * 178) / 10).epsilon(1e-15));
  // Per layer adds up.
  u128 sum = 0;
  std::uint64_t kv = 0;
  for (const layer_deployment& l : e.layers) {
    sum += l.prefill_macs;
    kv += l.kv_cache_bytes;
  }
  CHECK(sum == e.prefill_macs);
  CHECK(kv == e.kv_cache_bytes);
}

TEST_CASE("Scoring MLA, shared experts and linear sublayers by the paper's convention", "[hf_families][score]") {
  const hf_model m = read_hf_config(tiny_deepseek());
  const network net = expand(hf_network(m, 16));
  const layer& l1 = net.layers[2]; // layers.1: MoE
  REQUIRE(l1.name == "layers.1");
  const double attn = psi_x(24, 64) + 4 * psi_x(12, 24) + psi_x(20, 64) + 4 * psi_x(8, 16) +
                      4 * psi_x(6, 16) + psi_x(64, 24);
  const double ffn = 8 * (2 * psi_x(12, 64) + psi_x(64, 12)) + 2 * psi_x(24, 64) + psi_x(64, 24);
  const double router = psi_x(8, 64);
  const layer_score ls = score(l1);
  CHECK(ls.by_part[std::size_t(part::attention)] == Approx(attn).epsilon(1e-13));
  CHECK(ls.by_part[std::size_t(part::ffn)] == Approx(ffn).epsilon(1e-13));
  CHECK(ls.by_part[std::size_t(part::router)] == Approx(router).epsilon(1e-13));
  // Qwen2-MoE shared-expert gate (1, d) is scored with the router.
  json q = tiny_llama();
  q["model_type"] = "qwen2_moe";
  q["num_experts"] = 4;
  q["num_experts_per_tok"] = 2;
  q["moe_intermediate_size"] = 32;
  q["shared_expert_intermediate_size"] = 48;
  const layer lq = hf_network(read_hf_config(q), 16).layers[1];
  CHECK(score(lq).by_part[std::size_t(part::router)] == Approx(psi_x(4, 256) + psi_x(1, 256)).epsilon(1e-13));
  CHECK(count(lq).total() == 256 * 256 * 2 + 2 * 256 * 64 + 256 + 2 * 64 + 4 * 3 * 256 * 32 + 3 * 256 * 48 +
                                 4 * 256 + 256 + 2 * 256);
  // DeciLM replace_with_linear: one (d, d) matrix each.
  const hf_model deci = read_hf_config_file(configs + "nemotron-nas-example.json");
  const network nd = expand(hf_network(deci, 16));
  CHECK(score(nd.layers[5]).by_part[std::size_t(part::attention)] == Approx(psi_x(2048, 2048)).epsilon(1e-13));
  CHECK(score(nd.layers[7]).by_part[std::size_t(part::ffn)] == Approx(psi_x(2048, 2048)).epsilon(1e-13));
  CHECK(score(nd.layers[4]).by_part[std::size_t(part::attention)] == 0); // no_op
}

TEST_CASE("read_hf_config: every new error path names the field", "[hf_families][errors]") {
  using Catch::Contains;
  auto fails = [](const json& c, const std::string& text) {
    INFO(c.dump());
    CHECK_THROWS_AS(read_hf_config(c), std::invalid_argument);
    CHECK_THROWS_WITH(read_hf_config(c), Contains(text));
  };
  json c = tiny_llama();
  // Per-layer lists are bounded (a uniform config is not: see test_multiplicity.cpp).
  c["num_hidden_layers"] = 2000000;
  c["intermediate_sizes"] = json::array({688});
  fails(c, "field 'intermediate_sizes' must be a list of 2000000 positive integers (one per layer)");
  c["intermediate_sizes"] = json::array();
  for (int i = 0; i < 16385; ++i) c["intermediate_sizes"].push_back(688);
  c["num_hidden_layers"] = 16385;
  fails(c, "field 'intermediate_sizes' is a per-layer list, supported for at most 16384 layers (num_hidden_layers = 16385)");
  c = tiny_llama();
  c["per_layer_config"] = {{"4", {{"head_dim", 16}}}};
  fails(c, "field 'per_layer_config.4' must be keyed by a layer index in [0, 4)");
  c["per_layer_config"] = {{"x1", json::object()}};
  fails(c, "field 'per_layer_config.x1' must be keyed by a layer index");
  c["per_layer_config"] = {{"1", {{"rope_theta", 5}}}};
  fails(c, "field 'per_layer_config.1.rope_theta' is not a supported per_layer_config override");
  c["per_layer_config"] = {{"1", {{"num_key_value_heads", 3}}}};
  fails(c, "field 'per_layer_config.1.num_key_value_heads' must divide num_attention_heads = 8 (got 3)");
  c["per_layer_config"] = {{"1", {{"num_attention_heads", 7}, {"num_key_value_heads", 7}}}};
  fails(c, "field 'per_layer_config.1.num_attention_heads' must divide hidden_size = 256");
  c["per_layer_config"] = {{"1", {{"skip", {"ffn"}}}}};
  fails(c, "field 'per_layer_config.1.skip' entries must be \"attention\" or \"mlp\" (got \"ffn\")");
  c["per_layer_config"] = {{"1", 3}};
  fails(c, "field 'per_layer_config.1' must be an object of overrides");
  c["per_layer_config"] = 3;
  fails(c, "field 'per_layer_config' must be an object");
  c = tiny_llama();
  c["layer_types"] = {"full_attention"};
  fails(c, "field 'layer_types' must be a list of 4 entries (one per layer)");
  c["layer_types"] = {"full_attention", "local", "full_attention", "full_attention"};
  fails(c, "field 'layer_types[1]' must be \"sliding_attention\" or \"full_attention\" (got \"local\")");
  c["layer_types"] = {"full_attention", "sliding_attention", "full_attention", "full_attention"};
  fails(c, "missing field 'sliding_window' (model_type llama)");

  json n = tiny_llama();
  n["model_type"] = "nemotron-nas";
  n.erase("intermediate_size");
  fails(n, "field 'block_configs' is required for model_type nemotron-nas");
  n["block_configs"] = json::array({json::object()});
  fails(n, "field 'block_configs' must be a list of num_hidden_layers = 4 entries");
  json ok = {{"attention", {{"n_heads_in_group", 2}}}, {"ffn", {{"ffn_mult", 2.0}}}};
  n["block_configs"] = {ok, ok, ok, ok};
  REQUIRE_NOTHROW(read_hf_config(n));
  n["block_configs"][1]["attention"]["n_heads_in_group"] = 3;
  fails(n, "field 'block_configs[1].attention.n_heads_in_group' must divide num_attention_heads = 8 (got 3)");
  n["block_configs"][1]["attention"] = {{"no_op", false}};
  fails(n, "field 'block_configs[1].attention.n_heads_in_group' is required for an attention block");
  n["block_configs"][1]["attention"] = {{"n_heads_in_group", 2}, {"mamba", {{"state_dim", 16}}}};
  fails(n, "field 'block_configs[1].attention.mamba' is not a supported block_configs field (it may change shapes)");
  n["block_configs"][1]["attention"] = {{"no_op", true}, {"replace_with_linear", true}};
  fails(n, "field 'block_configs[1].attention' cannot be both no_op and replace_with_linear");
  n["block_configs"][1]["attention"] = {{"no_op", "yes"}};
  fails(n, "field 'block_configs[1].attention.no_op' must be true or false");
  n["block_configs"][1] = ok;
  n["block_configs"][2]["ffn"] = {{"no_op", false}};
  fails(n, "field 'block_configs[2].ffn' needs ffn_mult or intermediate_size");
  n["block_configs"][2]["ffn"] = {{"ffn_mult", -1}};
  fails(n, "field 'block_configs[2].ffn.ffn_mult' must be a positive number (got -1)");
  n["block_configs"][2]["ffn"] = {{"ffn_mult", 1e300}};
  fails(n, "field 'block_configs[2].ffn.ffn_mult' gives an FFN width out of range");
  n["block_configs"][2]["ffn"] = {{"moe", {{"num_local_experts", 8}}}};
  // Puzzletron's moe block is read (tests/test_prune_space.cpp); an incomplete one is named.
  fails(n, "field 'block_configs[2].ffn.moe.num_experts_per_tok' is required");
  n["block_configs"][2] = {{"ffn", ok["ffn"]}};
  fails(n, "field 'block_configs[2].attention' must be an object");
  n["block_configs"][2] = 5;
  fails(n, "field 'block_configs[2]' must be an object");
  n["block_configs"][2] = ok;
  n["per_layer_config"] = json::object();
  fails(n, "field 'per_layer_config' is not supported for model_type nemotron-nas");

  json d = tiny_deepseek();
  d.erase("kv_lora_rank");
  fails(d, "missing field 'kv_lora_rank' (model_type deepseek_v3)");
  d = tiny_deepseek();
  d["qk_nope_head_dim"] = 0;
  d["qk_rope_head_dim"] = 0;
  fails(d, "field 'qk_nope_head_dim' plus qk_rope_head_dim must be >= 1");
  d = tiny_deepseek();
  d["num_experts_per_tok"] = 9;
  fails(d, "field 'num_experts_per_tok' must be <= n_routed_experts = 8 (got 9)");
  json q = tiny_llama();
  q["model_type"] = "qwen3_moe";
  q["num_experts"] = 4;
  q["num_experts_per_tok"] = 2;
  q["moe_intermediate_size"] = 32;
  q["mlp_only_layers"] = {4};
  fails(q, "field 'mlp_only_layers[0]' must be < num_hidden_layers = 4 (got 4)");
  q["mlp_only_layers"] = 1;
  fails(q, "field 'mlp_only_layers' must be a list of layer indices");
  q["mlp_only_layers"] = {1};
  q["per_layer_config"] = {{"0", {{"intermediate_size", 64}}}};
  fails(q, "field 'per_layer_config.0.intermediate_size' overrides a dense MLP width, but layer 0 is a mixture of experts");
  json neox = {{"model_type", "gpt_neox"}, {"hidden_size", 64}, {"intermediate_size", 256},
               {"num_hidden_layers", 2},    {"num_attention_heads", 4}, {"vocab_size", 100}, {"head_dim", 32}};
  fails(neox, "field 'head_dim' must be hidden_size / num_attention_heads = 16 for model_type gpt_neox");
  neox["head_dim"] = 9223372036854775807; // no signed overflow on the way to the message
  fails(neox, "field 'head_dim' must be hidden_size / num_attention_heads = 16");
  neox["head_dim"] = 16;
  REQUIRE_NOTHROW(read_hf_config(neox));
  json g3 = {{"model_type", "gemma3"}, {"text_config", 5}};
  fails(g3, "field 'text_config' must be an object (got 5)");
  // Long values are quoted truncated.
  c = tiny_llama();
  c["hidden_size"] = std::string(5000, 'x');
  try {
    read_hf_config(c);
    FAIL("no throw");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).size() < 400);
    CHECK_THAT(e.what(), Contains("... (5002 bytes)"));
  }
}

TEST_CASE("Hostile configs: overflow is a domain error, files are named (issue 13)", "[hf_families][errors]") {
  using Catch::Contains;
  // hidden_size 1e12 used to print params_total -2,416,585,432,054,378,496.
  json c = tiny_llama();
  c["hidden_size"] = 1e12;
  const hf_model m = read_hf_config(c);
  CHECK_THROWS_AS(count(hf_network(m, 256)).total(), std::domain_error);
  CHECK_THROWS_WITH(count(hf_network(m, 256)).total(), Contains("overflows the signed 64-bit range"));
  // vocab_size 5e15 used to print a wrapped 4,066,511,852,782,288,896.
  c = tiny_llama();
  c["vocab_size"] = 5e15;
  c["hidden_size"] = 4096;
  c["head_dim"] = 32;
  const hf_model v = read_hf_config(c);
  CHECK_THROWS_WITH(count(hf_network(v, 256)), Contains("parameters of 'embed_tokens' overflows"));
  CHECK_THROWS_AS(deploy(v.spec, workload{}), std::domain_error);
  // Files: deep nesting, 1e400, a directory.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nsc_test_hf_families";
  std::filesystem::create_directories(dir);
  const auto deep = dir / "deep.json", big = dir / "big.json";
  std::ofstream(deep) << "{\"model_type\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  std::ofstream(big) << "{\"model_type\": \"llama\", \"hidden_size\": 1e400}";
  CHECK_THROWS_WITH(read_hf_config_file(deep), Contains(deep.string() + ": JSON nested deeper than 64 levels"));
  CHECK_THROWS_WITH(read_hf_config_file(big), Contains(big.string() + ": invalid JSON"));
  CHECK_THROWS_WITH(read_hf_config_file(dir), Contains(dir.string() + ": is a directory, not a file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("JSON as Python writes it: NaN, Infinity, -Infinity outside strings (issue 18)", "[hf_families][json]") {
  using Catch::Contains;
  const auto parse = [](std::string_view t) { return io::parse_json(t, "f", "src"); };
  const json j = parse(R"({"a": NaN, "b": [Infinity, -Infinity, "NaN", 1.5], "NaN": "x Infinity",
                           "c": "-Infinity", "d\"NaN": {"e": -Infinity , "f": NaN}, "g": 7})");
  CHECK(std::isnan(j["a"].get<double>()));
  CHECK(j["b"][0].get<double>() == std::numeric_limits<double>::infinity());
  CHECK(j["b"][1].get<double>() == -std::numeric_limits<double>::infinity());
  CHECK(j["b"][2] == "NaN"); // strings are left alone
  CHECK(j["b"][3] == 1.5);
  CHECK(j["NaN"] == "x Infinity");
  CHECK(j["c"] == "-Infinity");
  CHECK(j["d\"NaN"]["e"].get<double>() == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(j["d\"NaN"]["f"].get<double>()));
  CHECK(j["g"] == 7);
  CHECK(parse("Infinity").get<double>() == std::numeric_limits<double>::infinity()); // a top-level value
  CHECK(io::json_excerpt(j["a"]) == "NaN");
  CHECK(io::json_excerpt(j["b"][1]) == "-Infinity");
  // Still refused: a bare key, other spellings, a number out of range; byte offsets are the file's.
  CHECK_THROWS_WITH(parse(R"({NaN: 1})"), Contains("f: src: invalid JSON"));
  CHECK_THROWS_WITH(parse(R"([nan])"), Contains("invalid JSON"));
  CHECK_THROWS_WITH(parse(R"([+Infinity])"), Contains("invalid JSON"));
  CHECK_THROWS_WITH(parse(R"([NaNa])"), Contains("invalid JSON"));
  CHECK_THROWS_WITH(parse(R"([1e400, NaN])"), Contains("invalid JSON"));
  CHECK_THROWS_WITH(parse(R"([12345678, ])"), Contains("column 12")); // the same width ...
  CHECK_THROWS_WITH(parse(R"([Infinity, ])"), Contains("column 12")); // ... the same column
  // A field that needs a finite number names it; an ignored field may hold one.
  std::string text = tiny_llama().dump();
  text.insert(1, R"("time_step_limit": [0.0, Infinity], )");
  CHECK(count(hf_network(read_hf_config(io::parse_json(text, "f", "src")), 256)).total() ==
        count(hf_network(read_hf_config(tiny_llama()), 256)).total());
  auto with = [&](const char* key, const char* literal) {
    json base = tiny_llama();
    base.erase(key);
    std::string t = base.dump();
    t.insert(1, std::string("\"") + key + "\": " + literal + ", ");
    return io::parse_json(t, "f", "src");
  };
  CHECK_THROWS_WITH(read_hf_config(with("hidden_size", "Infinity")),
                    "nsc::read_hf_config: field 'hidden_size' must be a positive integer (got Infinity)");
  CHECK_THROWS_WITH(read_hf_config(with("num_attention_heads", "NaN")),
                    "nsc::read_hf_config: field 'num_attention_heads' must be a positive integer (got NaN)");
  CHECK_THROWS_WITH(read_hf_config(with("rms_norm_eps", "-Infinity")),
                    "nsc::read_hf_config: field 'rms_norm_eps' must be a positive number (got -Infinity)");
  CHECK_THROWS_WITH(read_hf_config(with("initializer_range", "NaN")),
                    "nsc::read_hf_config: field 'initializer_range' must be a positive number (got NaN)");
  // Through a file, as the CLI reads it.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nsc_test_hf_json_literals";
  std::filesystem::create_directories(dir);
  const auto file = dir / "inf.json";
  {
    json base = tiny_llama();
    base.erase("vocab_size");
    std::string t = base.dump();
    t.insert(1, R"("vocab_size": Infinity, )");
    std::ofstream(file) << t;
  }
  CHECK_THROWS_WITH(read_hf_config_file(file),
                    "nsc::read_hf_config: field 'vocab_size' must be a positive integer (got Infinity)");
  std::filesystem::remove_all(dir);
}

namespace {
/// A tiny Nemotron-H: layer 0 Mamba-2, layer 1 attention, layer 2 MLP (every count by hand below).
json tiny_nemotron_h() {
  return {{"model_type", "nemotron_h"}, {"hidden_size", 16}, {"num_hidden_layers", 3},
          {"hybrid_override_pattern", "M*-"}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"attention_head_dim", 4}, {"intermediate_size", 32}, {"mamba_num_heads", 4}, {"mamba_head_dim", 2},
          {"ssm_state_size", 3}, {"n_groups", 2}, {"conv_kernel", 4}, {"use_conv_bias", true},
          {"vocab_size", 10}, {"tie_word_embeddings", false}, {"layer_norm_epsilon", 1e-5}};
}
} // namespace

TEST_CASE("Mamba-2 layers (nemotron_h): params, state bytes, FLOPs and NSC by hand (issue 18)",
          "[hf_families][mamba2]") {
  const hf_model m = read_hf_config(tiny_nemotron_h());
  REQUIRE(m.spec.blocks.size() == 3);
  CHECK(m.spec.blocks[0].attention.kind == attention_kind::mamba2);
  CHECK(m.spec.blocks[0].ffn.kind == ffn_kind::none);
  CHECK(m.spec.blocks[1].attention.kind == attention_kind::standard);
  CHECK(m.spec.blocks[1].ffn.kind == ffn_kind::none);
  CHECK(m.spec.blocks[2].attention.kind == attention_kind::none);
  const network net = hf_network(m, 10);
  // Mamba-2: I = 4 x 2 = 8, conv_dim = 8 + 2 x 2 x 3 = 20; in_proj (8 + 20 + 4) x 16 = 512,
  // conv1d 20 x 4 + 20 = 100, dt_bias + A_log + D 12, gated norm 8, out_proj 16 x 8 = 128, norm 16.
  CHECK(count(net.layers[1]).total() == 512 + 100 + 12 + 8 + 128 + 16);
  CHECK(count(net.layers[2]).total() == 256 + 128 + 128 + 256 + 16); // q, k, v, o, norm
  CHECK(count(net.layers[3]).total() == 512 + 512 + 16);             // up, down, norm
  CHECK(count(net).total() == 776 + 784 + 1040 + 160 + 160 + 16);    // + embeddings, lm_head, norm_f
  // NSC (Xavier per block, psi_MP): z and x per head (2, 16), B and C per group (3, 16), dt (4, 16)
  // whole, out_proj (16, 8) whole; the depthwise conv, dt_bias, A_log and D are not scored.
  CHECK(score(net.layers[1]).nsc ==
        Approx(8 * psi_x(2, 16) + 4 * psi_x(3, 16) + psi_x(4, 16) + psi_x(16, 8)).epsilon(1e-13));
  // Deployment at T = 10, C = 100, B = 2, bf16: the Mamba layer caches (20 x 3 + 8 x 3) x 2 =
  // 168 bytes per sequence whatever C; the attention layer 2 x 2 x 4 x 2 = 32 bytes per token.
  workload w;
  w.seq_len = 10;
  w.context = 100;
  w.batch = 2;
  const deployment d = deploy(m.spec, w);
  CHECK(d.layers[1].state_bytes_per_sequence == 168);
  CHECK(d.layers[1].kv_bytes_per_token == 0);
  CHECK(d.layers[1].kv_cache_bytes == 336);
  CHECK(d.layers[2].kv_cache_bytes == 32 * 100 * 2);
  CHECK(d.state_bytes == 336);
  CHECK(d.kv_cache_bytes == 6400 + 336);
  CHECK(d.memory_bytes == d.weight_bytes + 6736);
  // MACs per token: linear 640 + 768 + 1024 + 160 (lm_head) = 2592; the Mamba recurrence
  // conv 20 x 4 + 2 x 8 x 3 = 128; attention 2 x 4 x 4 = 32 per key.
  CHECK(d.layers[1].state_macs_per_token == 128);
  CHECK(d.linear_macs_per_token == 2592);
  CHECK(d.decode_flops() == 2 * (2592 + 128 + 32 * 100));
  CHECK(to_string(d.prefill_flops()) == std::to_string(2 * (10 * (2592 + 128) + 32 * 10 * 10)));
  CHECK(count(net).macs == Approx(2592 + 128 + 32 * 10).epsilon(1e-15)); // full attention at T = 10
  // The state at fp32 (vLLM --mamba-ssm-cache-dtype float32) and the conv state at fp32.
  w.state = dtype::fp32;
  CHECK(deploy(m.spec, w).layers[1].state_bytes_per_sequence == 60 * 2 + 24 * 4);
  w.conv_state = dtype::fp32;
  CHECK(deploy(m.spec, w).layers[1].state_bytes_per_sequence == 84 * 4);

  // Nemotron-H-8B-Base-8K: 24 Mamba-2 layers of 30,720 conv + 1,048,576 SSM elements.
  const hf_model h8 = read_hf_config_file(configs + "nemotron-h-8b-base-8k.json");
  CHECK(count(hf_network(h8, 256)).total() == 8100852736);
  workload w8;
  w8.context = 8192;
  const deployment d8 = deploy(h8.spec, w8);
  CHECK(d8.state_bytes == 24 * (30720 * 2 + 1048576 * 2));
  CHECK(d8.kv_bytes_per_token == 4 * 2 * 8 * 128 * 2);
  CHECK(d8.kv_cache_bytes == 4 * 2 * 8 * 128 * 2 * 8192 + 24 * (30720 * 2 + 1048576 * 2));
  w8.state = dtype::fp32;
  CHECK(deploy(h8.spec, w8).state_bytes == 24 * (30720 * 2 + 1048576 * 4));
  // The hub's configs hold time_step_limit [0.0, Infinity] as Python's json writes it: read alike.
  std::string text = io::read_input_file(configs + "nemotron-h-8b-base-8k.json", "test");
  text.insert(text.find('{') + 1, "\n  \"time_step_limit\": [0.0, Infinity], \"time_step_floor\": NaN,");
  same_everything(read_hf_config(io::parse_json(text, "test", "8b")).spec, h8.spec);

  // Errors name the field.
  using Catch::Contains;
  json c = tiny_nemotron_h();
  c["hybrid_override_pattern"] = "M*";
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'hybrid_override_pattern' must have num_hidden_layers = 3 characters"));
  c["hybrid_override_pattern"] = "ME-";
  CHECK_THROWS_WITH(read_hf_config(c), Contains("'E' (mixture-of-experts layer) at 1"));
  c["hybrid_override_pattern"] = "M+-";
  CHECK_THROWS_WITH(read_hf_config(c), Contains("has '+' at 1; expected M (Mamba-2), * (attention) or - (MLP)"));
  c = tiny_nemotron_h();
  c["n_groups"] = 3;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'n_groups' must divide mamba_num_heads = 4 (got 3)"));
  c = tiny_nemotron_h();
  c["ssm_state_size"] = Catch::Detail::stringify(1); // a string
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'ssm_state_size' must be a positive integer"));
  c = tiny_nemotron_h();
  c.erase("mamba_num_heads");
  CHECK_THROWS_WITH(read_hf_config(c), Contains("missing field 'mamba_num_heads' (model_type nemotron_h)"));
  c = tiny_nemotron_h();
  c["mamba_num_heads"] = 4e15;
  c["mamba_head_dim"] = 4e15;
  CHECK_THROWS_AS(read_hf_config(c), std::domain_error);
}

TEST_CASE("Gated DeltaNet layers (qwen3_next): params, state bytes, FLOPs and NSC by hand (issue 18)",
          "[hf_families][gdn]") {
  // Layers 0-2 Gated DeltaNet, layer 3 gated full attention (full_attention_interval 4); MoE on
  // layers 1 and 3 (decoder_sparse_step 2), dense MLPs on 0 and 2.
  const json c = {{"model_type", "qwen3_next"}, {"hidden_size", 16}, {"num_hidden_layers", 4},
                  {"num_attention_heads", 2}, {"num_key_value_heads", 1}, {"head_dim", 8},
                  {"intermediate_size", 20}, {"linear_num_key_heads", 2}, {"linear_key_head_dim", 4},
                  {"linear_num_value_heads", 4}, {"linear_value_head_dim", 2}, {"linear_conv_kernel_dim", 3},
                  {"num_experts", 4}, {"num_experts_per_tok", 2}, {"moe_intermediate_size", 6},
                  {"shared_expert_intermediate_size", 8}, {"decoder_sparse_step", 2}, {"vocab_size", 10},
                  {"tie_word_embeddings", false}};
  const hf_model m = read_hf_config(c);
  const network net = expand(hf_network(m, 10));
  REQUIRE(net.layers.size() == 7); // embeddings, 4 layers, norm, lm_head
  CHECK(m.spec.blocks[0].attention.kind == attention_kind::gated_deltanet);
  // GDN: key_dim 8, value_dim 8, conv_dim 24; in_proj_qkvz 32 x 16, in_proj_ba 8 x 16, conv1d 24 x 3,
  // dt_bias + A_log 8, gated norm 2, out_proj 16 x 8; dense MLP 3 x 20 x 16; 2 norms of 16.
  CHECK(count(net.layers[1]).total() == 512 + 128 + 72 + 8 + 2 + 128 + 960 + 32);
  // MoE: router 4 x 16, experts 4 x 3 x 6 x 16, shared expert 3 x 8 x 16, its gate 16.
  CHECK(count(net.layers[2]).total() == 850 + 64 + 1152 + 384 + 16 + 32);
  // Gated attention: q_proj 2 x 2 x 8 rows (queries and gate), k, v 8 rows, o_proj 16 x 16, q/k norms 8.
  CHECK(count(net.layers[4]).total() == 512 + 128 + 128 + 256 + 16 + 1616 + 32);
  CHECK(count(net).total() == 1842 + 2498 + 1842 + 2688 + 160 + 160 + 16);
  CHECK(count(net).active() == 9206 - 2 * 2 * 3 * 6 * 16);
  // NSC: q and k per key head (4, 16), v and z per value head (2, 16), beta and a (4, 16) whole,
  // out_proj (16, 8) whole; gated attention: q and gate per head (8, 16), k, v (8, 16), o (16, 16).
  CHECK(score(net.layers[1]).by_part[std::size_t(part::attention)] ==
        Approx(6 * psi_x(4, 16) + 8 * psi_x(2, 16) + psi_x(16, 8)).epsilon(1e-13));
  CHECK(score(net.layers[4]).by_part[std::size_t(part::attention)] ==
        Approx(6 * psi_x(8, 16) + psi_x(16, 16)).epsilon(1e-13));
  // State per sequence and GDN layer: conv 24 x 2 + recurrent 4 x 4 x 2 = 80 elements (bf16: 160
  // bytes); MACs per token: conv 24 x 3 + 3 x 4 x 4 x 2 = 168.
  workload w;
  w.seq_len = 10;
  w.context = 100;
  w.batch = 3;
  const deployment d = deploy(m.spec, w);
  CHECK(d.state_bytes == 3 * 3 * 160);
  CHECK(d.kv_bytes_per_token == 2 * 8 * 2);
  CHECK(d.kv_cache_bytes == 32 * 100 * 3 + 3 * 3 * 160);
  const std::uint64_t lin = (512 + 128 + 128) * 3 + 960 * 2 + (64 + 2 * 3 * 6 * 16 + 384 + 16) * 2 +
                            (512 + 128 + 128 + 256) + 160;
  CHECK(d.linear_macs_per_token == lin);
  CHECK(d.decode_flops() == 2 * (lin + 3 * 168 + 2 * 2 * 8 * 100));
  w.state = dtype::fp32;
  CHECK(deploy(m.spec, w).state_bytes == 3 * 3 * (48 * 2 + 32 * 4));
  // layer_types gives the same model; a wrong entry names itself.
  json lt = c;
  lt["layer_types"] = {"linear_attention", "linear_attention", "linear_attention", "full_attention"};
  same_everything(read_hf_config(lt).spec, m.spec);
  lt["layer_types"][2] = "sliding_attention";
  using Catch::Contains;
  CHECK_THROWS_WITH(read_hf_config(lt), Contains("field 'layer_types[2]' must be \"linear_attention\" or \"full_attention\""));
  json bad = c;
  bad["linear_num_key_heads"] = 3;
  CHECK_THROWS_WITH(read_hf_config(bad), Contains("field 'linear_num_key_heads' must divide linear_num_value_heads = 4"));
  // Qwen3-Coder-Next: 36 GDN layers of (8192 x 3 + 32 x 128 x 128) elements.
  const hf_model q = read_hf_config_file(configs + "qwen3-coder-next.json");
  const network nq = hf_network(q, 256);
  CHECK(count(nq).total() == 79674391296);
  CHECK(count(nq).active() == 3874929408);
  CHECK(deploy(q.spec, workload{}).state_bytes == 36 * (8192 * 3 * 2 + 32 * 128 * 128 * 2));
}

TEST_CASE("Qwen3.5 wrappers read their text decoder as Qwen3-Next (issue 18)", "[hf_families][gdn]") {
  const json text = {{"hidden_size", 16}, {"num_hidden_layers", 4}, {"num_attention_heads", 2},
                     {"num_key_value_heads", 1}, {"head_dim", 8}, {"intermediate_size", 20},
                     {"linear_num_key_heads", 2}, {"linear_key_head_dim", 4}, {"linear_num_value_heads", 4},
                     {"linear_value_head_dim", 2}, {"linear_conv_kernel_dim", 3}, {"vocab_size", 10},
                     {"tie_word_embeddings", false}, {"full_attention_interval", 4}};
  json next = text;
  next["model_type"] = "qwen3_next";
  const hf_model ref = read_hf_config(next);
  // Dense Qwen3.5: 3 x (GDN 850 + MLP 960 + norms 32) + (gated attention 1040 + 960 + 32) + 336.
  CHECK(count(hf_network(ref, 8)).total() == 3 * 1842 + 2032 + 336);
  for (const char* outer : {"qwen3_5", "qwen3_5_moe"}) {
    INFO(outer);
    const json wrapped = {{"model_type", outer}, {"text_config", text}, {"vision_config", {{"depth", 27}}}};
    const hf_model m = read_hf_config(wrapped);
    CHECK(m.text_config);
    CHECK(m.model_type == std::string(outer) + "_text");
    same_everything(m.spec, ref.spec);
  }
}
