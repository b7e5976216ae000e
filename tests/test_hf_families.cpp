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
#include <nsc/model/serving.hpp>
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
    const bool with_mtp = r.contains("published_scope") &&
                          r["published_scope"].get<std::string>().find("MTP") != std::string::npos;
    if (r.contains("published_total") && !with_mtp) // with MTP: the MTP test case below
      CHECK(res.total() == r["published_total"].get<int64_t>());
    CHECK(total_layers(m.spec) == r["layers"].get<int64_t>());
    ++seen;
  }
  CHECK(seen == 67); // every file in examples/configs
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
  // Issue 18c. gpt-oss: GGUF general.parameter_count (every element, dequantised).
  CHECK(total("gpt-oss-20b.json") == 20914757184);
  CHECK(total("gpt-oss-120b.json") == 116829156672);
  // Llama 4 Scout: the hub's safetensors total 108,641,793,536 = text decoder + vision tower and
  // projector (Llama4VisionModel + Llama4MultiModalProjector, from vision_config).
  const hf_model scout = read_hf_config_file(configs + "llama-4-scout-17b-16e.json");
  CHECK(total("llama-4-scout-17b-16e.json") == 107769861120);
  CHECK(scout.vision_params == 871932416);
  CHECK(scout.vision_params == reference()["models"]["llama-4-scout-17b-16e"]["vision_params"].get<int64_t>());
  CHECK(total("llama-4-scout-17b-16e.json") + scout.vision_params == 108641793536);
  // Active: the model cards' 3.6B / 5.1B / 17B count one embedding table less (the lookup).
  auto active = [](const char* f) { return count(hf_network(read_hf_config_file(configs + f), 256)).active(); };
  CHECK(active("gpt-oss-20b.json") - 201088 * 2880 == 3608307264);
  CHECK(active("gpt-oss-120b.json") - 201088 * 2880 == 5132849472);
  CHECK(active("llama-4-scout-17b-16e.json") == 17172894720);
  // Llama 4 Maverick (meta-llama/Llama-4-Maverick-17B-128E: Scout's config with 128 experts on
  // every second layer, interleave_moe_layer_step 2, dense layers of intermediate_size_mlp, no
  // qk_norm, as TensorRT-LLM's test copy of it): the hub's 401,583,781,376 = text + vision.
  json maverick = json::parse(std::ifstream(configs + "llama-4-scout-17b-16e.json"));
  maverick["text_config"].erase("moe_layers");
  maverick["text_config"]["interleave_moe_layer_step"] = 2;
  maverick["text_config"]["num_local_experts"] = 128;
  maverick["text_config"]["use_qk_norm"] = false;
  maverick["text_config"]["max_position_embeddings"] = 1048576;
  const hf_model mav = read_hf_config(maverick);
  CHECK(count(hf_network(mav, 256)).total() == 400711848960);
  CHECK(count(hf_network(mav, 256)).active() == 17184691200);
  CHECK(count(hf_network(mav, 256)).total() + mav.vision_params == 401583781376);
  CHECK(expand(mav.spec).blocks[0].ffn.n_experts == 0);
  CHECK(expand(mav.spec).blocks[0].ffn.d_ff == 16384);
  CHECK(expand(mav.spec).blocks[1].ffn.n_experts == 128);
  // DeepSeek-V3.2-Exp: V3 + 61 DSA indexers (wq_b, wk, k_norm, weights_proj: 13,959,424 each);
  // the hub's 685,396,921,376 adds the MTP layer and the fp8 scales (the generator rebuilds it).
  CHECK(total("deepseek-v3.2-exp.json") == 671026419200 + 61 * (64 * 128 * 1536 + 128 * 7168 + 2 * 128 + 64 * 7168));
  CHECK(reference()["deepseek_v32_hub"]["total"].get<int64_t>() == 685396921376);
  CHECK(total("deepseek-v3.2-exp.json") + reference()["deepseek_v32_hub"]["mtp_layer"].get<int64_t>() +
            reference()["deepseek_v32_hub"]["fp8_scales"].get<int64_t>() ==
        685396921376);
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
        if (r.contains("layer_chunk")) CHECK(l.chunk == r["layer_chunk"][b].get<int64_t>());
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
  fails(c, "field 'layer_types' must be a list of num_hidden_layers = 4 entries (one per layer), each \"sliding_attention\" or \"full_attention\"");
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

// ---------------------------------------------------------------------------------------------
// Issue 18a: quantised checkpoints (quantization_config, torch_dtype), MTP modules, and the
// families that are one table entry each (granite, smollm3, granitemoe, mimo, kimi_k2, ...).
// ---------------------------------------------------------------------------------------------

namespace {

json config_file(const std::string& name) { return json::parse(std::ifstream(configs + name + ".json")); }

std::uint64_t stored_bytes(const json& config) {
  const hf_model m = read_hf_config(config);
  workload w;
  w.stored = m.checkpoint_weights();
  return deploy(m.spec, w).weight_bytes;
}

/// One layer, no vocabulary: the weight bytes of exactly the matrices below.
json one_layer(json quant) {
  json c = {{"model_type", "llama"},     {"hidden_size", 256},      {"intermediate_size", 640},
            {"num_hidden_layers", 1},    {"num_attention_heads", 4}, {"num_key_value_heads", 2},
            {"vocab_size", 1},           {"torch_dtype", "bfloat16"}, {"tie_word_embeddings", true}};
  if (!quant.is_null()) c["quantization_config"] = std::move(quant);
  return c;
}

} // namespace

TEST_CASE("Quantised checkpoints: stored bytes equal the independent generator", "[hf_families][quantization]") {
  const json& q = reference()["stored_bytes"];
  // DeepSeek-V3 as published: fp8 e4m3 and one float32 weight_scale_inv per 128 x 128 block.
  const hf_model ds = read_hf_config_file(configs + "deepseek-v3.json");
  CHECK(ds.checkpoint_weights().source ==
        "quantization_config fp8 block 128x128 (fp32 scales); other weights torch_dtype bfloat16");
  CHECK(stored_bytes(config_file("deepseek-v3")) == q["deepseek-v3"].get<std::uint64_t>());
  // MiniMax-M2.7: fp8 blocks, modules_to_not_convert gate, e_score_correction_bias, lm_head.
  CHECK(stored_bytes(config_file("minimax-m2.7")) == q["minimax-m2.7"].get<std::uint64_t>());
  // The synthetic variants of tests/reference/gen_family_params.py (SYNTHETIC_QUANT).
  json awq = config_file("qwen3-8b");
  awq["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true},
                                {"version", "gemm"}, {"modules_to_not_convert", nullptr}};
  CHECK(stored_bytes(awq) == q["awq"].get<std::uint64_t>());
  json gptq = config_file("qwen3-8b");
  gptq["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"desc_act", false},
                                 {"sym", true}};
  CHECK(stored_bytes(gptq) == q["gptq"].get<std::uint64_t>());
  json ct = config_file("qwen3-30b-a3b");
  ct["quantization_config"] = json::parse(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
      "strategy": "group", "group_size": 32, "symmetric": true}}},
      "ignore": ["lm_head", "re:.*mlp.gate$"]})");
  CHECK(stored_bytes(ct) == q["ct_w4a16"].get<std::uint64_t>());
  json fp8c = config_file("llama-3-8b");
  fp8c["quantization_config"] = json::parse(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
      "strategy": "channel", "symmetric": true}, "input_activations": {"num_bits": 8, "type": "float",
      "strategy": "token", "dynamic": true}}}, "ignore": ["lm_head"]})");
  CHECK(stored_bytes(fp8c) == q["ct_fp8_channel"].get<std::uint64_t>());
  json mx = config_file("mixtral-8x7b");
  mx["quantization_config"] = {{"quant_method", "mxfp4"},
                               {"modules_to_not_convert", {"model.layers.*.self_attn", "model.layers.*.block_sparse_moe.gate",
                                                           "model.embed_tokens", "lm_head"}}};
  CHECK(stored_bytes(mx) == q["mxfp4"].get<std::uint64_t>());
  // torch_dtype float32 (Gemma 2's checkpoints): 4 bytes per parameter.
  const hf_model g9 = read_hf_config_file(configs + "gemma-2-9b.json");
  workload w;
  w.stored = g9.checkpoint_weights();
  CHECK(deploy(g9.spec, w).weight_bytes == 4 * std::uint64_t(count(hf_network(g9, 256)).total()));
}

TEST_CASE("Quantised checkpoints: stored bytes by hand", "[hf_families][quantization]") {
  // One llama layer, d = 256, 4 heads of 64, 2 KV heads, d_ff = 640, vocab 1 (tied): q, o 256 x 256;
  // k, v 128 x 256; gate, up 640 x 256; down 256 x 640; norms 3 x 256; embedding 256.
  const std::uint64_t plain = 2 * (256 + 3 * 256); // embedding + 2 block norms + final norm, bf16
  const std::uint64_t elems = 2 * 65536 + 2 * 32768 + 3 * 163840;
  CHECK(stored_bytes(one_layer(nullptr)) == plain + 2 * elems);
  // fp8 blocks 128 x 128, fp32 scales: q, o 4 blocks; k, v 2; gate, up 10 (5 x 2); down 10 (2 x 5).
  CHECK(stored_bytes(one_layer({{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}})) ==
        plain + elems + 4 * (4 + 4 + 2 + 2 + 10 + 10 + 10));
  // fp8 blocks 100 x 100 (ragged): ceil(256/100) = 3, ceil(128/100) = 2, ceil(640/100) = 7.
  CHECK(stored_bytes(one_layer({{"quant_method", "fp8"}, {"weight_block_size", {100, 100}}})) ==
        plain + elems + 4 * (9 + 9 + 6 + 6 + 21 + 21 + 21));
  // AWQ gemm int4 group 128, zero points: a (out, in) matrix stores in x out / 2 bytes of qweight,
  // fp16 scales (in / 128, out) and qzeros (in / 128, out / 8) int32.
  auto awq = [](std::uint64_t o, std::uint64_t i) { return i * o / 2 + 2 * (i / 128) * o + 4 * (i / 128) * (o / 8); };
  CHECK(stored_bytes(one_layer({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true},
                                {"version", "gemm"}})) ==
        plain + 2 * awq(256, 256) + 2 * awq(128, 256) + 2 * awq(640, 256) + awq(256, 640));
  // GPTQ adds g_idx: one int32 per input column.
  auto gptq = [&](std::uint64_t o, std::uint64_t i) { return awq(o, i) + 4 * i; };
  CHECK(stored_bytes(one_layer({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}})) ==
        plain + 2 * gptq(256, 256) + 2 * gptq(128, 256) + 2 * gptq(640, 256) + gptq(256, 640));
  // GPTQ group_size -1: one group per column (per output channel).
  auto gptq1 = [&](std::uint64_t o, std::uint64_t i) { return i * o / 2 + 2 * o + 4 * (o / 8) + 4 * i; };
  CHECK(stored_bytes(one_layer({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", -1}})) ==
        plain + 2 * gptq1(256, 256) + 2 * gptq1(128, 256) + 2 * gptq1(640, 256) + gptq1(256, 640));
  // compressed-tensors pack-quantized int4 group 32: weight_packed (out, in / 8) int32, bf16
  // scales (out, in / 32), weight_shape (2 int64); a static input_scale (bf16) per Linear.
  auto ct = [](std::uint64_t o, std::uint64_t i) { return o * i / 2 + 2 * o * (i / 32) + 16 + 2; };
  CHECK(stored_bytes(one_layer(json::parse(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group",
        "group_size": 32, "symmetric": true}, "input_activations": {"num_bits": 8, "dynamic": false}}}})"))) ==
        plain + 2 * ct(256, 256) + 2 * ct(128, 256) + 2 * ct(640, 256) + ct(256, 640));
  // compressed-tensors fp8 per tensor, attention only (targets): one bf16 scale per matrix.
  CHECK(stored_bytes(one_layer(json::parse(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
        "config_groups": {"g": {"targets": ["re:.*self_attn.*"], "weights": {"num_bits": 8, "type": "float",
        "strategy": "tensor"}}}})"))) == plain + (2 * 65536 + 2 * 32768) + 4 * 2 + 2 * 3 * 163840);
  // --weight-dtype's conventions (stored_as) are unchanged: int4 = packed nibbles + fp16 per 128.
  const hf_model m = read_hf_config(one_layer(nullptr));
  workload w;
  w.weights = dtype::int4;
  const std::uint64_t int4 = deploy(m.spec, w).weight_bytes;
  w.stored = stored_as(dtype::int4);
  CHECK(deploy(m.spec, w).weight_bytes == int4);
  CHECK(int4 == plain + elems / 2 + 2 * (2 * 256 * 2 + 2 * 128 * 2 + 2 * 640 * 2 + 256 * 5));
}

TEST_CASE("Quantised checkpoints: mxfp4 experts only, exclusions per role, errors name the field",
          "[hf_families][quantization][errors]") {
  // A tiny Mixtral: 4 experts of 64 x 128, mxfp4 (one e8m0 byte per 32 inputs) on the experts.
  json c = {{"model_type", "mixtral"}, {"hidden_size", 128}, {"intermediate_size", 64}, {"num_hidden_layers", 2},
            {"num_attention_heads", 4}, {"num_key_value_heads", 4}, {"vocab_size", 10}, {"num_local_experts", 4},
            {"num_experts_per_tok", 2}, {"torch_dtype", "bfloat16"}, {"quantization_config", {{"quant_method", "mxfp4"}}}};
  json plain = c;
  plain.erase("quantization_config");
  const std::uint64_t bf16 = stored_bytes(plain);
  // Per layer: w1, w3 (64 x 128) and w2 (128 x 64), 4 copies: bf16 2 bytes -> 0.5 byte + 1 byte per 32.
  const std::uint64_t expert_elems = 4 * 3 * 64 * 128;
  const std::uint64_t scales = 4 * (2 * 64 * (128 / 32) + 128 * (64 / 32));
  CHECK(stored_bytes(c) == bf16 - 2 * (2 * expert_elems) + 2 * (expert_elems / 2 + scales));
  // Excluding a role in every layer (a per-layer list) keeps it plain; in some layers only: an error.
  json fp8 = c;
  fp8["quantization_config"] = {{"quant_method", "fp8"},
                                {"modules_to_not_convert", {"model.layers.0.self_attn", "model.layers.1.self_attn"}}};
  json fp8_all = c;
  fp8_all["quantization_config"] = {{"quant_method", "fp8"}, {"modules_to_not_convert", {"model.layers.*.self_attn"}}};
  CHECK(stored_bytes(fp8) == stored_bytes(fp8_all));
  json partial = c;
  partial["quantization_config"] = {{"quant_method", "fp8"}, {"modules_to_not_convert", {"model.layers.0.self_attn"}}};
  const hf_model pm = read_hf_config(partial); // the architecture still reads
  CHECK(count(hf_network(pm, 16)).total() == count(hf_network(read_hf_config(plain), 16)).total());
  CHECK_THROWS_WITH(pm.checkpoint_weights(),
                    "nsc::read_hf_config: field 'quantization_config.modules_to_not_convert' keeps the attention "
                    "matrices unquantised in 1 of the 2 layers that have them; nsc stores a role one way in every "
                    "layer (got [\"model.layers.0.self_attn\"])");
  auto refusal = [&](json quant) {
    json x = c;
    x["quantization_config"] = std::move(quant);
    const hf_model m = read_hf_config(x);
    try {
      (void)m.checkpoint_weights();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(refusal({{"quant_method", "bitsandbytes"}}) ==
        "nsc::read_hf_config: field 'quantization_config.quant_method' is not supported (fp8, mxfp4, awq, gptq, "
        "compressed-tensors); give --weight-dtype (got \"bitsandbytes\")");
  CHECK(refusal({{"quant_method", "fp8"}, {"weight_block_size", {128}}}) ==
        "nsc::read_hf_config: field 'quantization_config.weight_block_size' must be [rows, columns] (got [128])");
  CHECK(refusal({{"quant_method", "awq"}, {"version", "exllama"}}).find("must be gemm or gemv") != std::string::npos);
  CHECK(refusal({{"quant_method", "gptq"}, {"bits", 5}}) ==
        "nsc::read_hf_config: field 'quantization_config.bits' must be 2, 3, 4 or 8 (got 5)");
  CHECK(refusal({{"quant_method", "fp8"}, {"modules_to_not_convert", {"model.layers.*.frobnicator"}}})
            .find("'quantization_config.modules_to_not_convert[0]' is a module nsc cannot place") != std::string::npos);
  CHECK(refusal(json::parse(R"({"quant_method": "compressed-tensors", "format": "marlin-24",
        "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4}}}})"))
            .find("'quantization_config.format' must be float-quantized") != std::string::npos);
  CHECK(refusal(json::parse(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"a": {"targets": ["Linear"], "weights": {"num_bits": 4, "strategy": "group", "group_size": 32}},
                          "b": {"targets": ["Linear"], "weights": {"num_bits": 8, "strategy": "channel"}}}})"))
            .find("one weight scheme per checkpoint is supported") != std::string::npos);
  json bad_dtype = plain;
  bad_dtype["torch_dtype"] = "float8";
  CHECK_THROWS_WITH(read_hf_config(bad_dtype).checkpoint_weights(),
                    "nsc::read_hf_config: field 'torch_dtype' must be bfloat16, float16 or float32 (got \"float8\")");
}

TEST_CASE("MTP modules: reported apart, counted by hand and against the generator", "[hf_families][mtp]") {
  // DeepSeek-V3: one module = a MoE decoder layer + eh_proj (2d -> d) + enorm, hnorm,
  // shared_head.norm; the hub's MTP layer 61 also stores copies of the embedding and head.
  const hf_model ds = read_hf_config_file(configs + "deepseek-v3.json");
  REQUIRE(ds.mtp_layers == 1);
  const std::int64_t d = 7168, V = 129280;
  const resources mtp = count(hf_mtp_network(ds, 256));
  CHECK(mtp.total() == reference()["models"]["deepseek-v3"]["mtp"]["params"].get<int64_t>());
  CHECK(mtp.total() == reference()["deepseek_v3_hub"]["mtp_layer"].get<int64_t>() - 2 * V * d);
  CHECK(mtp.total() == 11507286272 + 2 * d * d + 3 * d); // one MoE layer (README's layers.3-60 row) + eh_proj + norms
  CHECK(mtp.active() == reference()["models"]["deepseek-v3"]["mtp"]["params_active"].get<int64_t>());
  // The main model is unchanged by the MTP module (671,026,419,200, as before).
  CHECK(count(hf_network(ds, 256)).total() == 671026419200);
  workload w;
  const deployment dm = hf_deploy_mtp(ds, w);
  CHECK(dm.kv_bytes_per_token == 2 * (512 + 64)); // one MLA latent, bf16
  // Per token: the block's linear MACs + eh_proj 2 d^2 + the shared head V d.
  const deployment block_only = deploy(hf_mtp_spec(ds), w);
  CHECK(dm.linear_macs_per_token == block_only.linear_macs_per_token + std::uint64_t(2 * d * d + V * d));
  CHECK(dm.weight_bytes == block_only.weight_bytes + std::uint64_t(2 * (2 * d * d + 3 * d)));
  // MiMo-7B: the published index total_size / 2 = main model + its MTP module.
  const hf_model mimo = read_hf_config_file(configs + "mimo-7b.json");
  REQUIRE(mimo.mtp_layers == 1);
  const std::int64_t main = count(hf_network(mimo, 256)).total(), extra = count(hf_mtp_network(mimo, 256)).total();
  CHECK(main == 7622619136);
  CHECK(extra == 177223680 + 2 * 4096 * 4096 + 3 * 4096); // a Qwen2 layer + input_proj + 3 norms
  CHECK(main + extra == 7833409536);
  CHECK(hf_deploy_mtp(mimo, w).kv_bytes_per_token == 2 * 2 * 8 * 128);
  // Without MTP modules: nothing.
  const hf_model q = read_hf_config_file(configs + "qwen3-8b.json");
  CHECK(q.mtp_layers == 0);
  CHECK(hf_mtp_network(q, 256).layers.empty());
  CHECK(hf_deploy_mtp(q, w).weight_bytes == 0);
  json bad = config_file("deepseek-v3");
  bad["num_nextn_predict_layers"] = -1;
  CHECK_THROWS_WITH(read_hf_config(bad), "nsc::read_hf_config: field 'num_nextn_predict_layers' must be a "
                                         "non-negative integer (got -1)");
}

TEST_CASE("Issue 18a families: table entries, published totals, notes", "[hf_families][params]") {
  auto total = [](const char* f) { return count(hf_network(read_hf_config_file(configs + f), 256)).total(); };
  CHECK(total("granite-3.3-8b-instruct.json") == 8170864640);       // hub safetensors.total
  CHECK(total("smollm3-3b.json") == 3075098624);                    // hub safetensors.total
  CHECK(total("granite-3.1-1b-a400m-instruct.json") == 1334628352); // index total_size 5,338,513,408 / 4
  CHECK(total("minimax-m2.7.json") == 228689764864);                // hub safetensors.total
  CHECK(total("phi-3.5-moe-instruct.json") == 41873153344);         // hub total
  CHECK(total("olmoe-1b-7b-0924-instruct.json") == 6919161856);     // safetensors headers
  // GLM-4.5-Air: the hub's 110,468,824,832 = the model transformers builds (106,852,251,264, the
  // hub total of INTELLECT-3, the same architecture without MTP) + the MTP module (layer 46) +
  // the copies of the embedding and the head the checkpoint's layer 46 holds.
  const hf_model air = read_hf_config_file(configs + "glm-4.5-air.json");
  const std::int64_t air_main = count(hf_network(air, 256)).total(), air_mtp = count(hf_mtp_network(air, 256)).total();
  CHECK(air_main == 106852251264);
  CHECK(air_main + air_mtp + 2 * 151552 * 4096 == 110468824832);
  const hf_model smol = read_hf_config_file(configs + "smollm3-3b.json");
  REQUIRE(smol.notes.size() == 1);
  CHECK(smol.notes[0] == "NoPE layers (no rotary positions; global attention): 3, 7, 11, 15, 19, 23, 27, 31, 35");
  { // each layer's attention_spec::nope is the config's no_rope_layers[i] == 0 (SmolLM3's NoPE layers)
    const json sc = config_file("smollm3-3b");
    std::vector<bool> want, got;
    for (const json& v : sc["no_rope_layers"]) want.push_back(v == 0);
    for (const block_spec& b : smol.spec.blocks)
      for (std::int64_t r = 0; r < b.repeat; ++r) got.push_back(b.attention.nope);
    CHECK(got == want);
    json interval = sc; // without the list: every no_rope_layer_interval-th layer (4: layers 3, 7, ...)
    interval.erase("no_rope_layers");
    interval["no_rope_layer_interval"] = 3;
    CHECK(read_hf_config(interval).notes.at(0) == "NoPE layers (no rotary positions; global attention): 2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35");
  }
  // kimi_k2 is DeepseekV3ForCausalLM under another name: the same counts as deepseek_v3.
  json kimi = config_file("deepseek-v3");
  kimi["model_type"] = "kimi_k2";
  const hf_model k = read_hf_config(kimi);
  CHECK(count(hf_network(k, 256)).total() == 671026419200);
  CHECK(k.mtp_layers == 1);
  // A Mistral3 wrapper reads its text_config (ministral / mistral), the vision tower not counted.
  json m3 = {{"model_type", "mistral3"}, {"vision_config", {{"model_type", "pixtral"}}},
             {"text_config", config_file("mistral-7b")}};
  const hf_model mm = read_hf_config(m3);
  CHECK(mm.text_config);
  REQUIRE(mm.notes.size() == 1);
  CHECK(mm.notes[0] == "multimodal config (mistral3): the text decoder (text_config) is scored and counted; the vision "
                      "tower and projector are not counted (their size is not determined here)");
  CHECK(count(hf_network(mm, 256)).total() == 7241732096);
  m3["text_config"]["model_type"] = "ministral3";
  CHECK(count(hf_network(read_hf_config(m3), 256)).total() == 7241732096);
  // Family switches: glm4 q/k/v biased, o_proj not, 4 norms; glm4_moe use_qk_norm and the router's
  // e_score_correction_bias; phimoe's lm_head bias; starcoder2's use_bias on every Linear.
  json glm4 = tiny_llama();
  glm4["model_type"] = "glm4";
  glm4["attention_bias"] = true;
  const hf_model g4 = read_hf_config(glm4);
  const block_spec& gb = g4.spec.blocks[0];
  CHECK((gb.attention.qkv_bias && !gb.attention.out_bias && gb.n_norms == 4));
  json glm_moe = tiny_deepseek();
  glm_moe["model_type"] = "glm4_moe";
  glm_moe["num_key_value_heads"] = 2;
  glm_moe["head_dim"] = 16;
  glm_moe["use_qk_norm"] = true;
  glm_moe.erase("topk_method");
  const hf_model gm = read_hf_config(glm_moe);
  CHECK(gm.spec.blocks.back().ffn.router_bias);
  CHECK(gm.spec.blocks.back().attention.qk_norm == qk_norm_kind::per_head);
  CHECK(gm.spec.blocks.back().attention.kind == attention_kind::standard);
  json phimoe = tiny_llama();
  phimoe["model_type"] = "phimoe";
  phimoe["num_local_experts"] = 4;
  phimoe["num_experts_per_tok"] = 2;
  phimoe["lm_head_bias"] = true;
  const hf_model pm = read_hf_config(phimoe);
  CHECK(pm.spec.lm_head_bias);
  json phimoe_nb = phimoe;
  phimoe_nb["lm_head_bias"] = false;
  CHECK(count(hf_network(pm, 16)).total() - count(hf_network(read_hf_config(phimoe_nb), 16)).total() == 1000);
  json sc2 = tiny_llama();
  sc2["model_type"] = "starcoder2";
  const hf_model s2 = read_hf_config(sc2);
  const block_spec& sb = s2.spec.blocks[0];
  CHECK((sb.attention.qkv_bias && sb.attention.out_bias && sb.ffn.bias && !sb.ffn.gated && sb.norm == norm_kind::layernorm));
  sc2["use_bias"] = false;
  const hf_model s2b = read_hf_config(sc2);
  const block_spec& sb2 = s2b.spec.blocks[0];
  CHECK((!sb2.attention.qkv_bias && !sb2.ffn.bias));
}

// ---- Issue 18c: attention sinks (gpt_oss), chunked attention and NoPE layers (llama4) -------------

namespace {

json tiny_gpt_oss() {
  return {{"model_type", "gpt_oss"},   {"hidden_size", 64},        {"intermediate_size", 48},
          {"num_hidden_layers", 4},    {"num_attention_heads", 8}, {"num_key_value_heads", 2},
          {"head_dim", 16},            {"vocab_size", 100},        {"num_local_experts", 6},
          {"num_experts_per_tok", 2},  {"sliding_window", 4}};
}

json tiny_llama4() {
  return {{"model_type", "llama4_text"},   {"hidden_size", 64},          {"intermediate_size", 24},
          {"intermediate_size_mlp", 80},   {"num_hidden_layers", 4},     {"num_attention_heads", 4},
          {"num_key_value_heads", 2},      {"head_dim", 16},             {"vocab_size", 100},
          {"num_local_experts", 5},        {"num_experts_per_tok", 1},   {"interleave_moe_layer_step", 2},
          {"no_rope_layer_interval", 2},   {"attention_chunk_size", 4}};
}

} // namespace

TEST_CASE("gpt_oss: sinks, biases, router bias, alternating windows by hand", "[hf_families][sinks]") {
  const hf_model m = read_hf_config(tiny_gpt_oss());
  // Per layer: q (128 x 64 + 128), k, v (32 x 64 + 32 each), o (64 x 128 + 64), sinks 8, two
  // RMSNorms; router 6 x 64 + 6; experts 6 x (gate, up 48 x 64 + 48, down 64 x 48 + 64).
  const int64_t attn = 128 * 64 + 128 + 2 * (32 * 64 + 32) + 64 * 128 + 64;
  const int64_t expert = 2 * (48 * 64 + 48) + 64 * 48 + 64;
  const int64_t layer = attn + 8 + 2 * 64 + 6 * 64 + 6 + 6 * expert;
  const int64_t total = 2 * 100 * 64 + 64 + 4 * layer;
  const resources r = count(hf_network(m, 16));
  CHECK(r.total() == total);
  CHECK(r.active() == total - 4 * 4 * expert);
  CHECK(r.other == 4 * 8); // the sinks
  const block_spec b0 = expand(m.spec).blocks[0], b1 = expand(m.spec).blocks[1];
  CHECK(b0.attention.sinks);
  CHECK(b0.attention.sliding_window == 4); // GptOssConfig: even layers sliding
  CHECK(b1.attention.sliding_window == 0);
  CHECK(b0.ffn.router_bias);
  CHECK(b0.ffn.bias);
  CHECK(m.notes.at(0) == "attention sinks: one learned logit per query head on 4 layers (32 parameters, counted; "
                         "no matrix, not scored; no MACs; nothing cached)");
  // Sinks change neither the score, nor any FLOP, nor the KV cache; they add n_heads parameters
  // stored at 2 bytes (bf16).
  transformer_spec no_sinks = m.spec;
  for (block_spec& b : no_sinks.blocks) b.attention.sinks = false;
  CHECK(score(hf_network(m, 16)).nsc == score(make_transformer(no_sinks, 16)).nsc);
  CHECK(count(hf_network(m, 16)).macs == count(make_transformer(no_sinks, 16)).macs);
  workload w;
  w.seq_len = 10;
  w.context = 7;
  w.attention = attention_convention::causal;
  const deployment d = deploy(m.spec, w), e = deploy(no_sinks, w);
  CHECK(d.prefill_macs == e.prefill_macs);
  CHECK(d.decode_macs == e.decode_macs);
  CHECK(d.kv_cache_bytes == e.kv_cache_bytes);
  CHECK(d.weight_bytes == e.weight_bytes + 2 * 4 * 8);
  // KV and FLOPs by hand: 2 x 2 KV heads x 16 x 2 bytes per token; sliding layers 0, 2 cache 4.
  const std::uint64_t tok = 2 * 2 * 16 * 2, pk = 2 * 8 * 16;
  CHECK(d.kv_cache_bytes == tok * (4 + 7 + 4 + 7));
  const std::uint64_t lin = 100 * 64 + 4 * ((128 + 32 + 32) * 64 + 64 * 128 + 6 * 64 + 2 * (2 * 48 * 64 + 64 * 48));
  CHECK(d.linear_macs_per_token == lin);
  CHECK(d.decode_macs == lin + pk * (4 + 7 + 4 + 7));
  // causal prefill of 10: window 4 -> 4 x 5 / 2 + 6 x 4 = 34 keys; global 55
  CHECK(d.prefill_macs == u128(10 * lin + pk * (34 + 55 + 34 + 55)));
}

TEST_CASE("Chunked attention and NoPE layers: keys, KV and the llama4 reader by hand", "[hf_families][chunked]") {
  // prefill_keys with a chunk: full min(T, c) per query; causal its chunk so far.
  CHECK(detail::prefill_keys(10, 0, attention_convention::full, 4) == 40);
  CHECK(detail::prefill_keys(10, 0, attention_convention::causal, 4) == u128(10 + 10 + 3)); // 1+2+3+4, 1+2+3+4, 1+2
  CHECK(detail::prefill_keys(3, 0, attention_convention::causal, 4) == 6);
  CHECK(detail::prefill_keys(8, 0, attention_convention::causal, 4) == 20);
  const hf_model m = read_hf_config(tiny_llama4());
  const transformer_spec x = expand(m.spec);
  // interleave 2: layers 1, 3 MoE; NoPE interval 2: layers 1, 3 NoPE (global), 0, 2 chunked.
  CHECK(x.blocks[0].ffn.n_experts == 0);
  CHECK(x.blocks[0].ffn.d_ff == 80);
  CHECK(x.blocks[1].ffn.n_experts == 5);
  CHECK(x.blocks[1].ffn.d_ff == 24);
  CHECK(x.blocks[1].ffn.shared_d_ff == 24);
  CHECK_FALSE(x.blocks[1].ffn.router_bias);
  CHECK(x.blocks[0].attention.chunk == 4);
  CHECK_FALSE(x.blocks[0].attention.nope);
  CHECK(x.blocks[1].attention.chunk == 0);
  CHECK(x.blocks[1].attention.nope);
  const int64_t attn = (64 + 32 + 32) * 64 + 64 * 64;
  const int64_t dense = 3 * 64 * 80, moe = 5 * 64 + 5 * 3 * 64 * 24 + 3 * 64 * 24;
  const int64_t total = 2 * 100 * 64 + 64 + 4 * (attn + 2 * 64) + 2 * dense + 2 * moe;
  CHECK(count(hf_network(m, 16)).total() == total);
  CHECK(count(hf_network(m, 16)).active() == total - 2 * 4 * 3 * 64 * 24);
  REQUIRE(m.notes.size() == 2);
  CHECK(m.notes[0] == "chunked attention (chunk 4 tokens) on 2 layers: a query attends its chunk only, at most 4 "
                      "tokens cached");
  CHECK(m.notes[1] == "NoPE layers (no rotary positions; global attention): 1, 3");
  workload w;
  w.seq_len = 10;
  w.context = 7;
  w.batch = 3;
  const deployment d = deploy(m.spec, w);
  const std::uint64_t tok = 2 * 2 * 16 * 2, pk = 2 * 4 * 16;
  CHECK(d.kv_bytes_per_token == 4 * tok);
  CHECK(d.kv_cache_bytes == 3 * tok * (4 + 7 + 4 + 7)); // chunked layers cache at most the chunk
  const std::uint64_t lin = 100 * 64 + 4 * attn + 2 * dense + 2 * (5 * 64 + 3 * 64 * 24 + 3 * 64 * 24);
  CHECK(d.linear_macs_per_token == lin);
  CHECK(d.decode_macs == lin + pk * (4 + 7 + 4 + 7));
  CHECK(d.prefill_macs == u128(10 * lin + pk * (40 + 100 + 40 + 100)));
  CHECK(d.layers[1].chunk == 4);
  w.attention = attention_convention::causal;
  CHECK(deploy(m.spec, w).prefill_macs == u128(10 * lin + pk * (23 + 55 + 23 + 55)));
  // NoPE changes no count and no score; the chunk changes the FLOPs only.
  transformer_spec plain = m.spec;
  for (block_spec& b : plain.blocks) b.attention.nope = false, b.attention.chunk = 0;
  CHECK(score(hf_network(m, 16)).nsc == score(make_transformer(plain, 16)).nsc);
  CHECK(count(make_transformer(plain, 16)).total() == total);
  // Explicit lists restate the defaults; layer_types and a null chunk.
  json c = tiny_llama4();
  c["moe_layers"] = {1, 3};
  c["no_rope_layers"] = {1, 0, 1, 0};
  same_everything(read_hf_config(c).spec, m.spec);
  c["no_rope_layers"] = json::array(); // [] means the interval default (Llama4TextConfig)
  same_everything(read_hf_config(c).spec, m.spec);
  c["layer_types"] = {"full_attention", "full_attention", "chunked_attention", "full_attention"};
  CHECK(expand(read_hf_config(c).spec).blocks[0].attention.chunk == 0);
  CHECK(expand(read_hf_config(c).spec).blocks[2].attention.chunk == 4);
  c.erase("layer_types");
  c["attention_chunk_size"] = nullptr;
  CHECK(expand(read_hf_config(c).spec).blocks[0].attention.chunk == 0);
  // A wrapper: text_config read, vision tower reported (its size when vision_config has it).
  json wrap = {{"model_type", "llama4"}, {"text_config", tiny_llama4()}};
  const hf_model wm = read_hf_config(wrap);
  CHECK(wm.text_config);
  CHECK(wm.vision_params == -1);
  CHECK(wm.notes.back().find("vision tower and projector are not counted (their size is not determined here)") !=
        std::string::npos);
}

TEST_CASE("Sinks, chunks and llama4 lists: every error names the field", "[hf_families][errors]") {
  auto fails = [](const json& c, const std::string& what) {
    INFO(what);
    CHECK_THROWS_WITH(read_hf_config(c), Catch::Contains(what));
  };
  json c = tiny_llama4();
  c["no_rope_layers"] = {1, 0, 1};
  fails(c, "field 'no_rope_layers' must be a list of num_hidden_layers = 4 entries (one per layer), each 0 or 1");
  c["no_rope_layers"] = {1, 0, 2, 1};
  fails(c, "field 'no_rope_layers[2]' must be 0 (NoPE) or 1 (rotary)");
  c = tiny_llama4();
  c["moe_layers"] = {1, 4};
  fails(c, "field 'moe_layers[1]' must be < num_hidden_layers = 4");
  c["moe_layers"] = 3;
  fails(c, "field 'moe_layers' must be a list of layer indices");
  c = tiny_llama4();
  c["attention_chunk_size"] = nullptr;
  c["layer_types"] = {"chunked_attention", "full_attention", "full_attention", "full_attention"};
  fails(c, "field 'layer_types[0]' is chunked_attention, but attention_chunk_size is null");
  c["layer_types"] = {"sliding_attention", "full_attention", "full_attention", "full_attention"};
  fails(c, "field 'layer_types[0]' must be \"chunked_attention\" or \"full_attention\"");
  c = tiny_llama4();
  c["attention_chunk_size"] = -3;
  fails(c, "field 'attention_chunk_size' must be a positive integer");
  json g = tiny_gpt_oss();
  g["layer_types"] = {"sliding_attention", "chunked_attention", "full_attention", "full_attention"};
  fails(g, "field 'layer_types[1]' must be \"sliding_attention\" or \"full_attention\"");
  // The spec rules.
  transformer_spec s = read_hf_config(tiny_llama4()).spec;
  s.blocks[0].attention.chunk = -1;
  CHECK_THROWS_WITH(validate(s), Catch::Contains("attention.chunk must be >= 0 (0: not chunked)"));
  s.blocks[0].attention.chunk = 4;
  s.blocks[0].attention.sliding_window = 8;
  CHECK_THROWS_WITH(validate(s), Catch::Contains("attention.chunk and attention.sliding_window cannot both be set"));
  s = read_hf_config(tiny_gpt_oss()).spec;
  s.blocks[0].attention.kind = attention_kind::latent;
  s.blocks[0].attention.kv_lora_rank = s.blocks[0].attention.v_head_dim = s.blocks[0].attention.qk_rope_head_dim = 8;
  CHECK_THROWS_WITH(validate(s), Catch::Contains("attention.sinks needs standard attention"));
  // A removed sublayer keeps its (inert) fields: no parameter, no MAC, no cache, no note.
  s = read_hf_config(tiny_gpt_oss()).spec;
  for (block_spec& b : s.blocks) b.attention.kind = attention_kind::none;
  CHECK(count(make_transformer(s, 16)).other == 0);
  CHECK(detail::hf::structure_notes(s).empty());
}

TEST_CASE("DSA sparse attention and its indexer by hand (deepseek_v32)", "[hf_families][dsa]") {
  json c = tiny_deepseek();
  const hf_model v3 = read_hf_config(c);
  c["model_type"] = "deepseek_v32";
  c["index_n_heads"] = 2;
  c["index_head_dim"] = 8;
  c["index_topk"] = 3;
  const hf_model m = read_hf_config(c);
  // Per layer: wq_b (2 x 8, q_lora 24), wk (8, 64), k_norm LayerNorm(8), weights_proj (2, 64).
  const int64_t indexer = 2 * 8 * 24 + 8 * 64 + 2 * 8 + 2 * 64;
  CHECK(count(hf_network(m, 1)).total() == count(hf_network(v3, 1)).total() + 3 * indexer);
  CHECK(count(hf_network(m, 1)).active() == count(hf_network(v3, 1)).active() + 3 * indexer);
  CHECK(expand(m.spec).blocks[0].attention.index_topk == 3);
  workload w;
  w.seq_len = 10;
  w.context = 1000;
  w.batch = 3;
  w.kv = dtype::fp16;
  const deployment d = deploy(m.spec, w), e = deploy(v3.spec, w);
  // KV: the latent (16 + 4) x 2 bytes + the indexer key 8 fp8 bytes + one fp32 scale, every token.
  CHECK(d.kv_bytes_per_token == 3 * ((16 + 4) * 2 + 8 + 4));
  CHECK(d.kv_cache_bytes == 3ull * ((16 + 4) * 2 + 8 + 4) * 1000 * 3);
  const std::uint64_t pk = 4 * (12 + 6), ik = 2 * (8 + 1);
  const std::uint64_t lin = e.linear_macs_per_token + 3 * (2 * 8 * 24 + 8 * 64 + 2 * 64);
  CHECK(d.linear_macs_per_token == lin);
  // decode: the attention attends index_topk = 3 keys, the indexer scores all 1000
  CHECK(d.decode_macs == lin + 3 * (pk * 3 + ik * 1000));
  CHECK(d.prefill_macs == u128(10 * lin + 3 * (pk * 10 * 3 + ik * 100)));
  w.attention = attention_convention::causal;
  CHECK(deploy(m.spec, w).prefill_macs == u128(10 * lin + 3 * (pk * (1 + 2 + 3 * 8) + ik * 55)));
  // The paper's full convention of the network: min(T, k) keys + the indexer over T.
  CHECK(count(hf_network(m, 10)).macs == double(lin) + 3.0 * double(pk * 3 + ik * 10));
  // Scoring: wq_b per index head (2 blocks 8 x 24), wk and weights_proj whole.
  const network net = hf_network(m, 10), base = hf_network(v3, 10);
  const double extra = 2 * psi_x(8, 24) + psi_x(8, 64) + psi_x(2, 64);
  CHECK(score(net).nsc == Approx(score(base).nsc + 3 * extra).epsilon(1e-12));
  CHECK(m.notes.at(0) == "DSA sparse attention on 3 layers: attends at most index_topk = 3 keys; its indexer (2 heads "
                         "of 8, weights counted) scores every key and caches a key of 8 fp8 bytes + fp32 scales per token");
  // Errors: the indexer fields are required; DSA needs q_lora_rank.
  json bad = c;
  bad.erase("index_topk");
  CHECK_THROWS_WITH(read_hf_config(bad), Catch::Contains("missing field 'index_topk' (model_type deepseek_v32)"));
  bad = c;
  bad["q_lora_rank"] = nullptr;
  CHECK_THROWS_WITH(read_hf_config(bad), Catch::Contains("field 'q_lora_rank' must be a positive integer with DSA"));
  transformer_spec s = m.spec;
  s.blocks[0].attention.index_topk = 0;
  CHECK_THROWS_WITH(validate(s), Catch::Contains("attention.index_topk must be >= 1 with an indexer"));
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
  const hf_model m = read_hf_config(json{{"model_type", "qwen3_5"}, {"text_config", text}, {"vision_config", {{"depth", 27}}}});
  CHECK(m.text_config);
  CHECK(m.model_type == "qwen3_5_text");
  same_everything(m.spec, ref.spec);
  // Qwen3_5MoeTextConfig: every layer MoE (no intermediate_size field); the same MoE fields as
  // Qwen3-Next's give the same model.
  json moe = text;
  moe.erase("intermediate_size");
  moe.update(json{{"num_experts", 4}, {"num_experts_per_tok", 2}, {"moe_intermediate_size", 6},
                  {"shared_expert_intermediate_size", 8}});
  json next_moe = moe;
  next_moe["model_type"] = "qwen3_next";
  next_moe["intermediate_size"] = 20;
  const hf_model mm = read_hf_config(json{{"model_type", "qwen3_5_moe"}, {"text_config", moe}});
  CHECK(mm.model_type == "qwen3_5_moe_text");
  same_everything(mm.spec, read_hf_config(next_moe).spec);
  CHECK(expand(mm.spec).blocks[0].ffn.n_experts == 4);
  // Without MoE fields: Qwen3_5MoeTextConfig's defaults (256 experts of 512, top 8, shared 512).
  moe.erase("num_experts");
  moe.erase("moe_intermediate_size");
  const block_spec b0 = expand(read_hf_config(json{{"model_type", "qwen3_5_moe"}, {"text_config", moe}}).spec).blocks[0];
  CHECK(b0.ffn.n_experts == 256);
  CHECK(b0.ffn.d_ff == 512);
}

TEST_CASE("Qwen3.5-27B and -35B-A3B: text decoders, vision towers and MTP against the published totals (issue 18f)",
          "[hf_families][params]") {
  // Text decoders: llama.cpp's n_params of the GGUF conversions; + the vision tower computed from
  // vision_config = the totals transformers builds (Qwen3_5(Moe)ForConditionalGeneration).
  const hf_model d = read_hf_config_file(configs + "qwen3.5-27b.json");
  const hf_model e = read_hf_config_file(configs + "qwen3.5-35b-a3b.json");
  CHECK(count(hf_network(d, 256)).total() == 26895998464);
  CHECK(count(hf_network(e, 256)).total() == 34660610688);
  CHECK(count(hf_network(e, 256)).active() == 3454988928);
  CHECK(d.vision_params == 460730096);
  CHECK(e.vision_params == 446571248);
  CHECK(d.vision_params == reference()["models"]["qwen3.5-27b"]["vision_params"].get<int64_t>());
  CHECK(e.vision_params == reference()["models"]["qwen3.5-35b-a3b"]["vision_params"].get<int64_t>());
  CHECK(count(hf_network(d, 256)).total() + d.vision_params == 27356728560);
  CHECK(count(hf_network(e, 256)).total() + e.vision_params == 35107181936);
  // The 27B checkpoint also stores the MTP module (a gated full-attention layer, its MLP, fc and 3 norms).
  CHECK(27356728560 + reference()["models"]["qwen3.5-27b"]["mtp_checkpoint_params"].get<int64_t>() == 27781427952);
  // Qwen3.5's vision tower by hand: patch_embed 3 x 2 x 16 x 16 x 1152 + 1152, pos_embed 2304 x 1152,
  // 27 blocks (2 LayerNorms, qkv, proj, fc1, fc2 with bias), merger LayerNorm + fc1 4608^2 + fc2 to out.
  const int64_t block = 4 * 1152 + (3 * 1152 * 1152 + 3 * 1152) + (1152 * 1152 + 1152) + 2 * 1152 * 4304 + 4304 + 1152;
  CHECK(d.vision_params == 1769472 + 1152 + 2304 * 1152 + 27 * block + 2304 + (4608 * 4608 + 4608) + (4608 * 5120 + 5120));
  // Deepstack mergers (Qwen3-VL) are another tower: not determined.
  json c = json::parse(std::ifstream(configs + "qwen3.5-27b.json"));
  c["vision_config"]["deepstack_visual_indexes"] = {8, 16, 24};
  CHECK(read_hf_config(c).vision_params == -1);
  // KV and state: 16 gated full-attention layers cache 2 x 4 x 256 x 2 bytes per token; 48 Gated
  // DeltaNet layers keep (10,240 x 3 conv + 48 x 128 x 128) x 2 bytes per sequence.
  workload w;
  w.context = 32768;
  const deployment dd = deploy(d.spec, w);
  CHECK(dd.kv_bytes_per_token == 16 * 2 * 4 * 256 * 2);
  CHECK(dd.state_bytes == 48 * ((2 * 16 * 128 + 48 * 128) * 3 + 48 * 128 * 128) * 2);
}

TEST_CASE("Issue 18d families: cohere, cohere2, internlm2, seed_oss, granitemoehybrid by hand", "[hf_families][params]") {
  using Catch::Contains;
  auto total = [](const json& c) { return count(hf_network(read_hf_config(c), 16)).total(); };
  // Published exact totals (hub safetensors counts; index total_size / 2 for Seed-OSS).
  auto file_total = [](const char* f) { return count(hf_network(read_hf_config_file(configs + f), 256)).total(); };
  CHECK(file_total("aya-expanse-8b.json") == 8028033024);
  CHECK(file_total("internlm2_5-7b-chat.json") == 7737708544);
  CHECK(file_total("granite-4.0-micro.json") == 3402836480);
  CHECK(file_total("seed-oss-36b-instruct.json") == 36151104512);
  // InternLM2.5 1.8B and 20B (the same table): the 7B config with their shapes.
  json il = json::parse(std::ifstream(configs + "internlm2_5-7b-chat.json"));
  il.update({{"hidden_size", 2048}, {"num_hidden_layers", 24}, {"num_attention_heads", 16}, {"intermediate_size", 8192}});
  CHECK(count(hf_network(read_hf_config(il), 256)).total() == 1889110016);
  il.update({{"hidden_size", 6144}, {"num_hidden_layers", 48}, {"num_attention_heads", 48}, {"intermediate_size", 16384}});
  CHECK(count(hf_network(read_hf_config(il), 256)).total() == 19861149696);
  // A tiny llama-shaped body: d 16, 2 layers, 4 heads of 4, 2 KV heads, FFN 8, vocab 10.
  const json body = {{"hidden_size", 16}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
                     {"num_key_value_heads", 2}, {"intermediate_size", 8}, {"vocab_size", 10}};
  const int64_t attn = 16 * 16 + 2 * 16 * 8 + 16 * 16, mlp = 3 * 16 * 8;
  // cohere: one weight-only LayerNorm per layer, tied head; use_qk_norm adds (4 x 4) + (2 x 4).
  json c = body;
  c["model_type"] = "cohere";
  CHECK(total(c) == 160 + 2 * (attn + mlp + 16) + 16);
  c["use_qk_norm"] = true;
  CHECK(total(c) == 160 + 2 * (attn + mlp + 16 + 16 + 8) + 16);
  c["attention_bias"] = true;
  CHECK(total(c) == 160 + 2 * (attn + mlp + 16 + 16 + 8 + 16 + 8 + 8 + 16) + 16);
  // cohere2: sliding layers 0-2, global layer 3 (sliding_window_pattern 4, window 4096 by default).
  c = body;
  c["model_type"] = "cohere2";
  c["num_hidden_layers"] = 4;
  const hf_model c2 = read_hf_config(c);
  const transformer_spec e2 = expand(c2.spec);
  CHECK(e2.blocks[0].attention.sliding_window == 4096);
  CHECK(e2.blocks[2].attention.sliding_window == 4096);
  CHECK(e2.blocks[3].attention.sliding_window == 0);
  CHECK(e2.blocks[0].attention.qk_norm == qk_norm_kind::none);
  c["use_qk_norm"] = true; // not a Cohere2 field: no norms
  CHECK(total(c) == 160 + 4 * (attn + mlp + 16) + 16);
  const hf_model r7b = read_hf_config_file(configs + "command-r7b-12-2024.json");
  CHECK(count(hf_network(r7b, 256)).total() == 8028033024); // aya-expanse-8b's shape
  CHECK(expand(r7b.spec).blocks[3].attention.sliding_window == 0);
  CHECK(expand(r7b.spec).blocks[4].attention.sliding_window == 4096);
  // internlm2: `bias` (default true) on wqkv and wo; untied output.
  c = body;
  c["model_type"] = "internlm2";
  CHECK(total(c) == 2 * 160 + 2 * (attn + mlp + 2 * 16 + 16 + 8 + 8 + 16) + 16);
  c["bias"] = false;
  CHECK(total(c) == 2 * 160 + 2 * (attn + mlp + 2 * 16) + 16);
  // seed_oss: attention_bias on q, k, v; attention_out_bias on o_proj alone; mlp_bias.
  c = body;
  c["model_type"] = "seed_oss";
  c["attention_bias"] = true;
  CHECK(total(c) == 2 * 160 + 2 * (attn + mlp + 32 + 16 + 8 + 8) + 16);
  c["attention_out_bias"] = true;
  c["mlp_bias"] = true;
  CHECK(total(c) == 2 * 160 + 2 * (attn + mlp + 32 + 16 + 8 + 8 + 16 + 8 + 8 + 16) + 16);
  // granitemoehybrid: layer 0 Mamba-2, layer 1 attention; every layer 2 norms + MoE of 4
  // experts (top 2) of width 8 + the shared_mlp (width 6, ungated shared expert).
  json g = body;
  g["model_type"] = "granitemoehybrid";
  g["layer_types"] = {"mamba", "attention"};
  g["num_local_experts"] = 4;
  g["num_experts_per_tok"] = 2;
  g["shared_intermediate_size"] = 6;
  g["mamba_n_heads"] = 4;
  g["mamba_d_head"] = 2;
  g["mamba_d_state"] = 3;
  g["mamba_n_groups"] = 2;
  g["mamba_d_conv"] = 4;
  const hf_model gh = read_hf_config(g);
  REQUIRE(gh.spec.blocks.size() == 2);
  CHECK(gh.spec.blocks[0].attention.kind == attention_kind::mamba2);
  CHECK(gh.spec.blocks[1].attention.kind == attention_kind::standard);
  const network gn = hf_network(gh, 16);
  // The Mamba-2 mixer of tests' tiny_nemotron_h (same H, P, N, G, K, d): 512 + 100 + 12 + 8 + 128.
  const int64_t mamba = 512 + 100 + 12 + 8 + 128;
  const int64_t moe = 4 * 16 + 4 * 3 * 16 * 8 + 3 * 16 * 6; // router, experts, shared_mlp
  CHECK(count(gn.layers[1]).total() == mamba + moe + 32);
  CHECK(count(gn.layers[2]).total() == attn + moe + 32);
  CHECK(count(gn.layers[1]).active() == mamba + moe - 2 * 3 * 16 * 8 + 32);
  {
    json n = tiny_nemotron_h(); // its Mamba layer 0 alone, as a check of the shared mixer
    const network nn = hf_network(read_hf_config(n), 16);
    CHECK(count(nn.layers[1]).total() == mamba + 16);
    workload w;
    w.context = 100;
    CHECK(deploy(read_hf_config(g).spec, w).state_bytes == deploy(read_hf_config(n).spec, w).state_bytes);
  }
  g["mamba_d_head"] = "auto"; // mamba_expand (2) x hidden / mamba_n_heads = 8
  CHECK(expand(read_hf_config(g).spec).blocks[0].attention.ssm_head_dim == 8);
  g["num_local_experts"] = 0; // dense: the shared_mlp alone
  g["mamba_d_head"] = 2;
  CHECK(count(hf_network(read_hf_config(g), 16).layers[2]).total() == attn + 3 * 16 * 6 + 32);
  // Errors name the field.
  g["layer_types"] = {"mamba", "linear_attention"};
  CHECK_THROWS_WITH(read_hf_config(g), Contains("field 'layer_types[1]' must be \"mamba\" or \"attention\""));
  g["layer_types"] = {"mamba"};
  CHECK_THROWS_WITH(read_hf_config(g), Contains("field 'layer_types' must be a list of num_hidden_layers = 2 entries"));
  g["layer_types"] = {"mamba", "attention"};
  g["mamba_n_groups"] = 3;
  CHECK_THROWS_WITH(read_hf_config(g), Contains("field 'mamba_n_groups' must divide mamba_n_heads = 4 (got 3)"));
  g["mamba_n_groups"] = 2;
  g["mamba_d_head"] = "auto";
  g["mamba_n_heads"] = 3;
  g["mamba_n_groups"] = 1;
  CHECK_THROWS_WITH(read_hf_config(g), Contains("field 'mamba_n_heads' must divide mamba_expand x hidden_size = 32"));
}

TEST_CASE("Issue 18e families: falcon, internlm3, ernie4_5, exaone4, hunyuan_v1_dense by hand", "[hf_families][params]") {
  using Catch::Contains;
  auto total = [](const json& c) { return count(hf_network(read_hf_config(c), 16)).total(); };
  auto file_total = [](const char* f) { return count(hf_network(read_hf_config_file(configs + f), 256)).total(); };
  // Published totals. Falcon's checkpoints store the tied LM head as its own tensor: the hub's
  // 41,835,970,560 (falcon-40b) and 7,217,189,760 (falcon-7b) are the instantiated model plus
  // vocab x hidden.
  CHECK(file_total("falcon-40b-instruct.json") + 65024 * 8192 == 41835970560);
  CHECK(file_total("falcon-7b-instruct.json") + 65024 * 4544 == 7217189760);
  CHECK(file_total("ernie-4.5-0.3b-pt.json") == 360748032);
  // Falcon-7B: multi_query (one K and one V head of 64 although num_kv_heads is 71), one
  // LayerNorm per layer (parallel_attn, no num_ln_in_parallel_attn), tied head.
  const hf_model f7 = read_hf_config_file(configs + "falcon-7b-instruct.json");
  CHECK(f7.spec.blocks[0].attention.n_kv_heads == 1);
  CHECK(f7.spec.blocks[0].n_norms == 1);
  CHECK(f7.spec.lm_head == lm_head_kind::tied);
  CHECK(f7.spec.name == "tiiuae/falcon-7b-instruct");
  // Falcon-40B: new_decoder_architecture, 8 KV heads, ln_attn + ln_mlp.
  const hf_model f40 = read_hf_config_file(configs + "falcon-40b-instruct.json");
  CHECK(f40.spec.blocks[0].attention.n_kv_heads == 8);
  CHECK(f40.spec.blocks[0].n_norms == 2);
  // A tiny falcon: d 16, 4 heads of 4, 2 layers, vocab 10; LayerNorms with bias (2 d each).
  json c = {{"model_type", "falcon"}, {"hidden_size", 16}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
            {"vocab_size", 10}};
  const int64_t mlp = 2 * 16 * 64; // dense_h_to_4h, dense_4h_to_h (4 d)
  CHECK(total(c) == 160 + 2 * ((16 + 2 * 4) * 16 + 256 + mlp + 32) + 32); // multi_query, 1 LayerNorm
  c["multi_query"] = false;                                             // MHA: 3 d rows
  CHECK(total(c) == 160 + 2 * (3 * 256 + 256 + mlp + 32) + 32);
  c["parallel_attn"] = false; // input_layernorm + post_attention_layernorm
  CHECK(total(c) == 160 + 2 * (3 * 256 + 256 + mlp + 64) + 32);
  c["bias"] = true; // every Linear biased: q, k, v rows, dense, both MLP matrices
  CHECK(total(c) == 160 + 2 * (3 * 256 + 256 + mlp + 64 + 48 + 16 + 64 + 16) + 32);
  c = {{"model_type", "falcon"}, {"hidden_size", 16}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
       {"vocab_size", 10}, {"new_decoder_architecture", true}, {"num_kv_heads", 2}, {"ffn_hidden_size", 24},
       {"tie_word_embeddings", false}};
  CHECK(total(c) == 2 * 160 + 2 * ((16 + 2 * 8) * 16 + 256 + 2 * 16 * 24 + 64) + 32);
  c["num_ln_in_parallel_attn"] = 1; // one shared input_layernorm
  CHECK(total(c) == 2 * 160 + 2 * ((16 + 2 * 8) * 16 + 256 + 2 * 16 * 24 + 32) + 32);
  c["num_kv_heads"] = 3;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'num_kv_heads' must divide num_attention_heads = 4 (got 3)"));
  c["num_kv_heads"] = 2;
  c["alibi"] = true;
  CHECK(read_hf_config(c).notes.back().find("ALiBi") != std::string::npos);
  // A tiny llama-shaped body for the others: d 16, 2 layers, 4 heads of 4, 2 KV heads, FFN 8.
  const json body = {{"hidden_size", 16}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
                     {"num_key_value_heads", 2}, {"intermediate_size", 8}, {"vocab_size", 10}};
  const int64_t attn = 16 * 16 + 2 * 16 * 8 + 16 * 16, ffn = 3 * 16 * 8;
  // internlm3: qkv_bias on q, k, v (16 + 8 + 8); `bias` on o_proj (16) and the MLP (8 + 8 + 16); untied.
  c = body;
  c["model_type"] = "internlm3";
  CHECK(total(c) == 2 * 160 + 2 * (attn + ffn + 32) + 16);
  c["qkv_bias"] = true;
  CHECK(total(c) == 2 * 160 + 2 * (attn + ffn + 32 + 32) + 16);
  c["bias"] = true;
  CHECK(total(c) == 2 * 160 + 2 * (attn + ffn + 32 + 32 + 16 + 32) + 16);
  CHECK(file_total("internlm3-8b-instruct.json") == 8804241408);
  // ernie4_5: use_bias on q, k, v, o and the MLP; tied by default.
  c = body;
  c["model_type"] = "ernie4_5";
  CHECK(total(c) == 160 + 2 * (attn + ffn + 32) + 16);
  c["use_bias"] = true;
  CHECK(total(c) == 160 + 2 * (attn + ffn + 32 + 48 + 32) + 16);
  // hunyuan_v1_dense: query/key_layernorm (4 + 4) always; attention_bias on q, k, v, o; mlp_bias is not read.
  c = body;
  c["model_type"] = "hunyuan_v1_dense";
  c["mlp_bias"] = true;
  CHECK(total(c) == 2 * 160 + 2 * (attn + ffn + 32 + 8) + 16);
  c["attention_bias"] = true;
  CHECK(total(c) == 2 * 160 + 2 * (attn + ffn + 32 + 8 + 48) + 16);
  CHECK(file_total("hy-mt2-7b.json") == 7504568320);
  // exaone4: q/k norms per head; layers 0-2 slide (4096), layer 3 is global; null window: all global.
  c = body;
  c["model_type"] = "exaone4";
  c["num_hidden_layers"] = 4;
  CHECK(total(c) == 2 * 160 + 4 * (attn + ffn + 32 + 8) + 16);
  transformer_spec e = expand(read_hf_config(c).spec);
  CHECK(e.blocks[0].attention.sliding_window == 4096);
  CHECK(e.blocks[2].attention.sliding_window == 4096);
  CHECK(e.blocks[3].attention.sliding_window == 0);
  c["sliding_window"] = nullptr;
  e = expand(read_hf_config(c).spec);
  for (const block_spec& b : e.blocks) CHECK(b.attention.sliding_window == 0);
  c["sliding_window"] = 128;
  c["layer_types"] = {"full_attention", "sliding_attention", "full_attention", "sliding_attention"};
  e = expand(read_hf_config(c).spec);
  CHECK(e.blocks[0].attention.sliding_window == 0);
  CHECK(e.blocks[1].attention.sliding_window == 128);
  c.erase("layer_types");
  c["sliding_window_pattern"] = "LLLG"; // the remote code's string form: give layer_types
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'sliding_window_pattern' must be a positive integer"));
  const hf_model ex = read_hf_config_file(configs + "exaone-4.0-32b.json");
  CHECK(count(hf_network(ex, 256)).total() == 32003216384);
  // The model card's "30.95B without embeddings" (rounded): 32,003,216,384 - 2 x 102,400 x 5,120.
  CHECK(count(hf_network(ex, 256)).total() - 2 * 102400 * 5120 == 30954640384);
  CHECK(expand(ex.spec).blocks[63].attention.sliding_window == 0);
  CHECK(expand(ex.spec).blocks[62].attention.sliding_window == 4096);
}

TEST_CASE("glm_moe_dsa (GLM-5): DeepSeek-V3.2's structure, shared top-k layers by hand", "[hf_families][dsa]") {
  using Catch::Contains;
  const hf_model glm = read_hf_config_file(configs + "glm-5.json");
  const int64_t total = count(hf_network(glm, 256)).total();
  // The hub's 753,864,139,008 (zai-org/GLM-5) = the model + its MTP layer (with its indexer).
  CHECK(total == 743911218432);
  REQUIRE(glm.mtp_layers == 1);
  CHECK(total + count(hf_mtp_network(glm, 256)).total() == 753864139008);
  CHECK(expand(glm.spec).blocks[77].attention.index_n_heads == 32);
  // GLM-5.2 / 5.3's schedule (index_topk_freq 4, index_skip_topk_offset 3): layers 0-2 and 6, 10,
  // ..., 74 run their indexer (21), the 57 others reuse its top-k: no indexer weights
  // (wq_b 32 x 128 x 2048, wk 128 x 6144, k_norm 2 x 128, weights_proj 32 x 6144 each), no
  // indexer cache (128 fp8 bytes + one fp32 scale per token), the same top-k cap.
  json c = json::parse(std::ifstream(configs + "glm-5.json"));
  c["index_topk_freq"] = 4;
  c["index_skip_topk_offset"] = 3;
  const hf_model g53 = read_hf_config(c);
  const int64_t indexer = 32 * 128 * 2048 + 128 * 6144 + 2 * 128 + 32 * 6144;
  CHECK(count(hf_network(g53, 256)).total() == total - 57 * indexer);
  const transformer_spec e = expand(g53.spec);
  int64_t full = 0;
  for (std::size_t i = 0; i < e.blocks.size(); ++i) {
    const attention_spec& a = e.blocks[i].attention;
    const bool run = i < 3 || (i - 2) % 4 == 0;
    CHECK(a.index_n_heads == (run ? 32 : 0));
    CHECK(a.index_topk == 2048);
    full += run;
  }
  CHECK(full == 21);
  workload w;
  w.context = 4096;
  const deployment d5 = deploy(glm.spec, w), d53 = deploy(g53.spec, w);
  CHECK(d5.kv_bytes_per_token - d53.kv_bytes_per_token == std::uint64_t(57 * (128 + 4)));
  CHECK(d5.decode_macs - d53.decode_macs == u128(57) * u128(indexer - 2 * 128) + u128(57) * u128(32 * 129) * u128(4096));
  CHECK(g53.notes[0].find("57 more layers reuse the top-k") != std::string::npos);
  // The same schedule as a list (indexer_types) and as letters (index_topk_pattern).
  json types = json::array();
  std::string letters;
  for (int i = 0; i < 78; ++i) {
    const bool run = i < 3 || (i - 2) % 4 == 0;
    types.push_back(run ? "full" : "shared");
    letters += run ? 'F' : 'S';
  }
  json l = json::parse(std::ifstream(configs + "glm-5.json"));
  l["indexer_types"] = types;
  same_everything(read_hf_config(l).spec, g53.spec);
  l.erase("indexer_types");
  l["index_topk_pattern"] = letters;
  same_everything(read_hf_config(l).spec, g53.spec);
  // Errors name the field.
  l["index_topk_pattern"] = "S" + letters.substr(1);
  CHECK_THROWS_WITH(read_hf_config(l), Contains("field 'index_topk_pattern' makes layer 0 \"shared\""));
  l["index_topk_pattern"] = letters.substr(1);
  CHECK_THROWS_WITH(read_hf_config(l), Contains("field 'index_topk_pattern' must list num_hidden_layers = 78 entries"));
  l.erase("index_topk_pattern");
  types[5] = "partial";
  l["indexer_types"] = types;
  CHECK_THROWS_WITH(read_hf_config(l), Contains("field 'indexer_types[5]' must be \"full\" or \"shared\" (F or S)"));
  l.erase("indexer_types");
  json mlp = json::array();
  for (int i = 0; i < 78; ++i) mlp.push_back(i < 3 ? "dense" : "sparse");
  l["mlp_layer_types"] = mlp;
  CHECK(count(hf_network(read_hf_config(l), 256)).total() == total);
  l["mlp_layer_types"][3] = "dense";
  CHECK_THROWS_WITH(read_hf_config(l), Contains("field 'mlp_layer_types[3]' must be \"sparse\" as first_k_dense_replace"));
}

TEST_CASE("ernie4_5_moe: start / end / interval MoE layers, shared experts, router bias by hand", "[hf_families][params]") {
  using Catch::Contains;
  // ERNIE-4.5-21B-A3B: layer 0 dense (intermediate_size 12288), layers 1-27 MoE: gate 64 x 2560 +
  // moe_statics 64 + 64 experts x 3 x 2560 x 1536 + 2 shared (one MLP of 3072); top 6.
  const hf_model e = read_hf_config_file(configs + "ernie-4.5-21b-a3b-pt.json");
  const int64_t d = 2560, attn = d * 20 * 128 + 2 * d * 4 * 128 + 20 * 128 * d;
  const int64_t moe = 64 * d + 64 + 64 * 3 * d * 1536 + 3 * d * 3072;
  const int64_t total = 103424 * d + 28 * (attn + 2 * d) + 3 * d * 12288 + 27 * moe + d;
  CHECK(count(hf_network(e, 256)).total() == total);
  CHECK(total == 21825437888); // the hub shows 21.8B (rounded); no exact published total found (README)
  CHECK(count(hf_network(e, 256)).active() == total - 27 * 58 * 3 * d * 1536);
  const transformer_spec x = expand(e.spec);
  CHECK(x.blocks[0].ffn.n_experts == 0);
  CHECK(x.blocks[1].ffn.n_experts == 64);
  CHECK(x.blocks[27].ffn.shared_d_ff == 3072);
  // A tiny one: 4 layers, start 0, end 2, interval 2: layer 1 alone is MoE (layer 3 is past the end).
  json c = {{"model_type", "ernie4_5_moe"}, {"hidden_size", 16}, {"num_hidden_layers", 4}, {"num_attention_heads", 4},
            {"num_key_value_heads", 2}, {"intermediate_size", 8}, {"vocab_size", 10}, {"moe_num_experts", 4},
            {"moe_k", 2}, {"moe_intermediate_size", 6}, {"moe_num_shared_experts", 1}, {"moe_layer_start_index", 0},
            {"moe_layer_end_index", 2}, {"moe_layer_interval", 2}, {"use_bias", true}, {"tie_word_embeddings", false}};
  const transformer_spec t = expand(read_hf_config(c).spec);
  CHECK(t.blocks[0].ffn.n_experts == 0); // (0 + 1) % 2 != 0
  CHECK(t.blocks[1].ffn.n_experts == 4);
  CHECK(t.blocks[2].ffn.n_experts == 0);
  CHECK(t.blocks[3].ffn.n_experts == 0); // past moe_layer_end_index
  const int64_t a = 16 * 16 + 2 * 16 * 8 + 16 * 16 + 16 + 8 + 8 + 16; // q, k, v, o and their biases (use_bias)
  const int64_t dense = 3 * 16 * 8 + 8 + 8 + 16, expert = 3 * 16 * 6 + 6 + 6 + 16;
  // tied false: lm_head Linear(16, 10, bias=use_bias)
  CHECK(count(hf_network(read_hf_config(c), 16)).total() ==
        160 + 4 * (a + 32) + 3 * dense + (4 * 16 + 4 + 4 * expert + expert) + 16 + 160 + 10);
  c["moe_k"] = 5;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'moe_k' must be <= moe_num_experts = 4 (got 5)"));
  c["moe_k"] = 2;
  c["moe_layer_end_index"] = -2;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'moe_layer_end_index' must be -1 (the last layer) or a layer index"));
}

TEST_CASE("hunyuan_v1_moe: every layer MoE + shared_mlp, per-layer lists of one value by hand", "[hf_families][params]") {
  using Catch::Contains;
  // Hunyuan-A13B: 32 layers of attention (with query/key_layernorm) + router 64 x 4096 + 64 experts
  // of 3 x 4096 x 3072 + the shared_mlp of 3072; top 8; tied head.
  const hf_model h = read_hf_config_file(configs + "hunyuan-a13b-instruct.json");
  const int64_t d = 4096, attn = 2 * d * d + 2 * d * 1024 + 2 * 128 + 2 * d;
  const int64_t layer = attn + 64 * d + 65 * 3 * d * 3072;
  CHECK(count(hf_network(h, 256)).total() == 128167 * d + 32 * layer + d);
  CHECK(count(hf_network(h, 256)).total() == 80393183232); // the safetensors headers, as a public ledger quotes them
  CHECK(count(hf_network(h, 256)).active() == 80393183232 - int64_t(32) * 56 * 3 * d * 3072);
  // Lists must hold one value (transformers reads the entry of each layer; nsc a uniform model).
  json c = json::parse(std::ifstream(configs + "hunyuan-a13b-instruct.json"));
  c["moe_topk"] = 8;
  c["num_experts"] = json::array();
  for (int i = 0; i < 32; ++i) c["num_experts"].push_back(64);
  same_everything(read_hf_config(c).spec, h.spec);
  c["num_experts"][5] = 32;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'num_experts[5]' differs from num_experts[0]: per-layer values are not supported (got 32)"));
  c["num_experts"] = 64;
  c["moe_topk"] = json::array({8, 8});
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'moe_topk' must be an integer or a list of num_hidden_layers = 32 entries"));
  c["moe_topk"] = 65;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'moe_topk' must be <= num_experts = 64 (got 65)"));
}

TEST_CASE("Kimi K2: the hub totals and the checkpoint's payload against nsc's count", "[hf_families][quantization]") {
  // moonshotai/Kimi-K2-Instruct: 1,026,408,232,448 instantiated parameters (a provider's
  // paramCount and a third-party header recount); the hub adds 3,416 = 61 x 56 stored elements
  // that are no parameter of DeepseekV3ForCausalLM, and Kimi-K2-Base's hub figure adds the fp8
  // weight_scale_inv too. The recount's payload (1,029,173,256,720 bytes) = nsc's stored bytes +
  // the routers' e_score_correction_bias in float32 (2 more bytes each) + the 3,416 elements in bf16.
  const hf_model k = read_hf_config_file(configs + "kimi-k2-instruct.json");
  const int64_t total = count(hf_network(k, 256)).total();
  CHECK(total == 1026408232448);
  const json& hub = reference()["kimi_k2_hub"];
  CHECK(total + 3416 == hub["hub_instruct"].get<int64_t>());
  CHECK(total + hub["fp8_scales"].get<int64_t>() + 3416 == hub["hub_base"].get<int64_t>());
  workload w;
  w.stored = k.checkpoint_weights();
  const std::uint64_t bytes = deploy(k.spec, w).weight_bytes;
  CHECK(bytes == reference()["stored_bytes"]["kimi-k2-instruct"].get<std::uint64_t>());
  CHECK(bytes + 60 * 384 * 2 + 2 * 3416 == 1029173256720);
}

TEST_CASE("mistral3 wrapper: the text decoder counted, the Pixtral tower and projector reported", "[hf_families][params]") {
  // Mistral Small 3.1: text 23,572,403,200 (published for the text-only conversions) + vision
  // 438,958,080 = the published 24,011,361,280. By hand: patch_conv 3 x 14 x 14 x 1024, ln_pre,
  // 24 layers of 2 norms + 4 x 1024^2 + 3 x 1024 x 4096; projector norm, patch_merger 4096 x 1024,
  // linear_1 1024 x 5120, linear_2 5120 x 5120 (no bias).
  const hf_model m = read_hf_config_file(configs + "mistral-small-3.1-24b-instruct-2503.json");
  CHECK(m.text_config);
  CHECK(count(hf_network(m, 256)).total() == 23572403200);
  const int64_t h = 1024;
  const int64_t vision = 3 * 14 * 14 * h + h + 24 * (2 * h + 4 * h * h + 3 * h * 4096) + h + 4 * h * h + h * 5120 + 5120 * 5120;
  CHECK(m.vision_params == vision);
  CHECK(m.vision_params == reference()["models"]["mistral-small-3.1-24b-instruct-2503"]["vision_params"].get<int64_t>());
  CHECK(count(hf_network(m, 256)).total() + m.vision_params == 24011361280);
  CHECK(m.notes.back().find("(438958080 parameters)") != std::string::npos);
  // A list of feature layers widens linear_1; a projector bias adds 2 x 5120; a missing field: not determined.
  json c = json::parse(std::ifstream(configs + "mistral-small-3.1-24b-instruct-2503.json"));
  c["vision_feature_layer"] = {-1, -2};
  c["multimodal_projector_bias"] = true;
  CHECK(read_hf_config(c).vision_params == vision + h * 5120 + 2 * 5120);
  c["vision_config"].erase("patch_size");
  CHECK(read_hf_config(c).vision_params == -1);
  CHECK(read_hf_config(c).notes.back().find("their size is not determined here") != std::string::npos);
}

TEST_CASE("gemma4: Gemma 4 31B's text decoder by hand (global head_dim, k_eq_v, forced full last layer)",
          "[hf_families][gemma4]") {
  using Catch::Contains;
  const hf_model g = read_hf_config_file(configs + "gemma-4-31b-it.json");
  CHECK(g.model_type == "gemma4_text");
  CHECK(g.text_config);
  const transformer_spec e = expand(g.spec);
  REQUIRE(e.blocks.size() == 60);
  // A sliding layer: q 32 x 256, k and v 16 x 256 rows of 5376, o, q/k norms RMSNorm(256), GeGLU
  // 21504, 4 norms: 478,959,104. A full layer (every 6th): head_dim 512, 4 KV heads, no v_proj:
  // q 16384 + k 2048 rows, o, q/k norms 2 x 512, MLP, norms: 534,009,856.
  const auto one_layer = [](const block_spec& layer) {
    transformer_spec s;
    s.d_model = 5376;
    s.blocks = {layer};
    s.final_norm = norm_kind::none;
    s.lm_head = lm_head_kind::none;
    return count(make_transformer(s, 1)).total();
  };
  CHECK(one_layer(e.blocks[0]) == 478959104);
  CHECK(one_layer(e.blocks[5]) == 534009856);
  CHECK(e.blocks[5].attention.k_eq_v);
  CHECK(e.blocks[5].attention.head_dim == 512);
  CHECK(e.blocks[5].attention.kv_heads() == 4);
  CHECK(e.blocks[5].attention.sliding_window == 0);
  CHECK(!e.blocks[4].attention.k_eq_v);
  CHECK(e.blocks[4].attention.sliding_window == 1024);
  // 50 x 478,959,104 + 10 x 534,009,856 + the tied table 262,144 x 5,376 + the final norm.
  CHECK(count(hf_network(g, 256)).total() == 30697345280);
  CHECK(count(hf_network(g, 256)).total() ==
        reference()["models"]["gemma-4-31b-it"]["params_total"].get<int64_t>());
  // KV bytes per token (bf16): 50 x 2 x 16 x 256 x 2 + 10 x 2 x 4 x 512 x 2 = 901,120 (k_eq_v
  // layers cache keys and values apart: the values are normalised, the keys normalised and rotated).
  workload w;
  w.context = 1;
  w.batch = 1;
  CHECK(deploy(g.spec, w).kv_cache_bytes == 901120);
  bool noted = false;
  for (const std::string& n : g.notes) noted = noted || n.find("10 of 60 layers are full attention (head_dim 512") == 0;
  CHECK(noted);
  json c = json::parse(std::ifstream(configs + "gemma-4-31b-it.json"));
  json& t = c["text_config"];
  // The last layer is always full attention (Gemma4TextConfig forces it).
  t["layer_types"][59] = "sliding_attention";
  CHECK(expand(read_hf_config(c).spec).blocks[59].attention.head_dim == 512);
  // Without layer_types: every 6th layer full (sliding_window_pattern is not read).
  json u = t;
  u.erase("layer_types");
  u["sliding_window_pattern"] = 2;
  const transformer_spec eu = expand(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", u}}).spec);
  CHECK(eu.blocks[1].attention.sliding_window == 1024);
  CHECK(eu.blocks[5].attention.sliding_window == 0);
  // Without attention_k_eq_v: full layers keep v_proj and num_key_value_heads, head_dim 512.
  u["attention_k_eq_v"] = false;
  const transformer_spec ek = expand(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", u}}).spec);
  CHECK(!ek.blocks[5].attention.k_eq_v);
  CHECK(ek.blocks[5].attention.kv_heads() == 16);
  // hidden_size_per_layer_input defaults to 256 (Gemma4TextConfig); null means none.
  json p = t;
  p.erase("hidden_size_per_layer_input");
  CHECK(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", p}}).spec.embeddings.per_layer_dim == 256);
  p["hidden_size_per_layer_input"] = nullptr;
  CHECK(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", p}}).spec.embeddings.per_layer_dim == 0);
  p = t;
  p["num_global_key_value_heads"] = 5;
  CHECK_THROWS_WITH(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", p}}),
                    Contains("field 'num_global_key_value_heads' must divide num_attention_heads = 32"));
  // LoRA on v_proj needs a v_proj.
  attention_spec a = e.blocks[5].attention;
  a.d_model = 5376;
  a.lora_v = 8;
  CHECK_THROWS_WITH(attention_weights(a), Contains("attention.lora_v needs a v_proj (k_eq_v has none)"));
}

TEST_CASE("gemma4: E2B's KV-shared layers, double-wide MLP and per-layer embeddings by hand", "[hf_families][gemma4]") {
  using Catch::Contains;
  const hf_model g = read_hf_config_file(configs + "gemma-4-e2b-it.json");
  const transformer_spec e = expand(g.spec);
  REQUIRE(e.blocks.size() == 35);
  // num_kv_shared_layers 20: layers 15-34 read the keys and values of layer 13 (the last sliding
  // layer before them) or 14 (the last full one); use_double_wide_mlp doubles their MLP.
  CHECK(!e.blocks[14].attention.kv_shared);
  CHECK(e.blocks[15].attention.kv_shared);
  CHECK(e.blocks[34].attention.kv_shared);
  CHECK(e.blocks[14].ffn.d_ff == 6144);
  CHECK(e.blocks[15].ffn.d_ff == 12288);
  CHECK(e.blocks[15].per_layer_input == 256);
  CHECK(g.spec.embeddings.per_layer_dim == 256);
  CHECK(g.spec.embeddings.per_layer_vocab == 262144);
  const auto one_layer = [&](const block_spec& layer) {
    transformer_spec s;
    s.d_model = 1536;
    s.blocks = {layer};
    s.final_norm = norm_kind::none;
    s.lm_head = lm_head_kind::none;
    s.embeddings.per_layer_dim = layer.per_layer_input; // no table (per_layer_vocab 0 with dim 0 only)
    if (layer.per_layer_input > 0) s.embeddings.per_layer_vocab = 1;
    const network n = make_transformer(s, 1);
    return count(n).total() - (layer.per_layer_input > 0 ? 256 + 256 * 1536 + 256 : 0); // minus the model-level PLE parts
  };
  // A KV-shared sliding layer: q (8 x 256, 1536) and o, q_norm 256 (no k/v, no k_norm), the
  // double-wide GeGLU 3 x 1536 x 12288, 4 norms, the PLE gate and projection 2 x 256 x 1536 and
  // post_per_layer_input_norm: 63,708,928 (= `nsc score`'s layers.15-18).
  CHECK(one_layer(e.blocks[15]) == 2 * 3145728 + 256 + 56623104 + 4 * 1536 + 2 * 393216 + 1536);
  CHECK(one_layer(e.blocks[15]) == 63708928);
  // Its source layer 13: + k_proj (256, 1536), v_proj, k_norm; the MLP of 6144.
  CHECK(one_layer(e.blocks[13]) == 2 * 3145728 + 2 * 393216 + 2 * 256 + 3 * 1536 * 6144 + 5 * 1536 + 2 * 393216);
  // The per-layer-embedding path: embed_tokens_per_layer 262,144 x (35 x 256) is a lookup (0 MACs,
  // not scored); per_layer_model_projection (8960, 1536) is a matmul (8960 x 1536 MACs per token,
  // scored as one matrix) with per_layer_projection_norm RMSNorm(256).
  const network net = hf_network(g, 256);
  REQUIRE(net.layers.size() >= 3);
  CHECK(net.layers[0].name == "embeddings");
  CHECK(count(net.layers[0]).total() == 262144LL * 1536 + 262144LL * 8960);
  CHECK(count(net.layers[0]).macs == 0);
  CHECK(score(net.layers[0]).nsc == 0);
  CHECK(net.layers[1].name == "per_layer_proj");
  CHECK(count(net.layers[1]).total() == 8960LL * 1536 + 256);
  CHECK(count(net.layers[1]).macs == 8960.0 * 1536);
  CHECK(score(net.layers[1]).nsc == Approx(psi_x(8960, 1536)).epsilon(1e-12));
  // Total: the text decoder of Gemma4ForConditionalGeneration; + vision 168,544,256 + audio
  // 307,183,904 (Gemma4VisionModel / Gemma4AudioModel + their projectors, from the config) =
  // 5,104,297,504, the parameters of the model built from google/gemma-4-E2B-it's config.
  CHECK(count(net).total() == 4628569344);
  CHECK(g.vision_params == 168544256);
  CHECK(g.audio_params == 307183904);
  CHECK(count(net).total() + g.vision_params + g.audio_params == 5104297504);
  CHECK(g.vision_params == reference()["models"]["gemma-4-e2b-it"]["vision_params"].get<int64_t>());
  CHECK(g.audio_params == reference()["models"]["gemma-4-e2b-it"]["audio_params"].get<int64_t>());
  // KV cache per token (bf16): only the 15 non-shared layers cache: 12 sliding x 2 x 1 x 256 x 2
  // + 3 full x 2 x 1 x 512 x 2 = 18,432 bytes; a shared layer caches nothing.
  workload w;
  w.context = 32768;
  w.batch = 1;
  const deployment d = deploy(g.spec, w);
  CHECK(d.kv_bytes_per_token == 12 * 2 * 256 * 2 + 3 * 2 * 512 * 2);
  CHECK(d.kv_cache_bytes == 12ULL * 2 * 256 * 2 * 512 + 3ULL * 2 * 512 * 2 * 32768);
  // Decode FLOPs of a KV-shared sliding layer at C = 32,768: its matmuls q, o, the double-wide MLP,
  // the PLE gate and projection (63,700,992 MACs) + its attention products over the min(C, 512)
  // keys of its source, 2 x 8 x 256 MACs each (as the source's own: unchanged by the sharing).
  const layer_deployment* shared = nullptr;
  const layer_deployment* source = nullptr;
  for (const layer_deployment& l : d.layers) {
    if (l.name == "layers.15-18") shared = &l;
    if (l.name == "layers.10-13") source = &l;
  }
  REQUIRE(shared);
  REQUIRE(source);
  CHECK(shared->kv_cache_bytes == 0);
  CHECK(shared->kv_bytes_per_token == 0);
  CHECK(shared->attention_macs_per_key == 2 * 8 * 256);
  CHECK(shared->attention_macs_per_key == source->attention_macs_per_key);
  CHECK(shared->decode_macs == 63700992ULL + 2 * 8 * 256 * 512);
  CHECK(source->kv_cache_bytes == 2 * 256 * 2 * 512);
  // nsc fit's per-sublayer split holds every weight and cache byte once (the per-layer input goes
  // with the FFN; 26B-A4B's 7 norms: 3 + 4), whatever the GPU.
  serving_settings st;
  st.gpu = *find_gpu("L4");
  const hf_model moe = read_hf_config_file(configs + "gemma-4-26b-a4b-it.json");
  for (const hf_model* x : {&g, &moe}) {
    const serving_report sr = serve(x->spec, w, st, false);
    CHECK(sr.weight_bytes == deploy(x->spec, w).weight_bytes);
    CHECK(sr.kv_bytes == deploy(x->spec, w).kv_cache_bytes);
  }
  bool noted = false;
  for (const std::string& n : g.notes)
    noted = noted || n.find("layers 15-34 (20 of 35) are KV-shared (num_kv_shared_layers): no k_proj, v_proj or k_norm and "
                            "no KV cache of their own; they attend the keys and values of layer 13 (sliding) and layer "
                            "14 (full)") == 0;
  CHECK(noted);
  // The KV source the generator derives (transformers' store_full_length_kv rule).
  CHECK(reference()["models"]["gemma-4-e2b-it"]["kv_sources"]["15"].get<int>() == 13);
  CHECK(reference()["models"]["gemma-4-e2b-it"]["kv_sources"]["19"].get<int>() == 14);
  // Bad configs: every layer shared; a shared full layer with no full layer before the sharing.
  json c = json::parse(std::ifstream(configs + "gemma-4-e2b-it.json"));
  json t = c["text_config"];
  t["num_kv_shared_layers"] = 35;
  CHECK_THROWS_WITH(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", t}}),
                    Contains("field 'num_kv_shared_layers' must be < num_hidden_layers = 35"));
  t["num_kv_shared_layers"] = 31; // layers 4-34 shared: layer 4 is full, layers 0-3 sliding
  CHECK_THROWS_WITH(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", t}}),
                    Contains("makes layer 4 (full attention) KV-shared, but no earlier layer of that type"));
  // Spec rules of the new fields.
  attention_spec a = e.blocks[15].attention;
  a.d_model = 1536;
  CHECK(attention_weights(a).size() == 2); // q_proj, o_proj
  a.k_eq_v = true;
  CHECK_THROWS_WITH(attention_weights(a), Contains("attention.k_eq_v needs a k_proj (a kv_shared layer has none)"));
  transformer_spec bad = g.spec;
  bad.blocks[0].per_layer_input = 128;
  CHECK_THROWS_WITH(validate(bad), Contains("per_layer_input must equal embeddings.per_layer_dim = 256"));
  bad = g.spec;
  bad.embeddings.per_layer_vocab = 0;
  CHECK_THROWS_WITH(validate(bad), Contains("embeddings.per_layer_vocab and per_layer_dim must both be 0 or both >= 1"));
}

TEST_CASE("gemma4: 26B-A4B's MoE block by hand and the published totals", "[hf_families][gemma4]") {
  using Catch::Contains;
  const hf_model g = read_hf_config_file(configs + "gemma-4-26b-a4b-it.json");
  const transformer_spec e = expand(g.spec);
  REQUIRE(e.blocks.size() == 30);
  const ffn_spec& f = e.blocks[0].ffn;
  CHECK(f.n_experts == 128);
  CHECK(f.top_k == 8);
  CHECK(f.d_ff == 704);
  CHECK(f.shared_d_ff == 2112); // the dense MLP beside the experts, on every token
  CHECK(f.router_scales);
  CHECK(e.blocks[0].n_norms == 7);
  // One sliding layer: q, o (16 x 256, 2816), k, v (8 x 256), q/k norms 2 x 256, the dense GeGLU
  // 3 x 2816 x 2112, router.proj (128, 2816), router.scale 2816 + per_expert_scale 128, experts
  // 128 x 3 x 704 x 2816, 7 norms: 814,094,976; active: 8 of the 128 experts.
  transformer_spec one;
  one.d_model = 2816;
  one.blocks = {e.blocks[0]};
  one.final_norm = norm_kind::none;
  one.lm_head = lm_head_kind::none;
  const resources r = count(make_transformer(one, 1));
  const int64_t experts = 128LL * 3 * 704 * 2816;
  const int64_t layer = 2 * 11534336 + 2 * 5767168 + 512 + 3 * 2816 * 2112 + 128 * 2816 + 2816 + 128 + experts + 7 * 2816;
  CHECK(r.total() == layer);
  CHECK(r.total() == 814094976);
  CHECK(r.active() == layer - experts + experts / 16);
  // The text decoder: 25,233,141,760 (active 3,822,530,560); + the vision tower and projector
  // 572,792,112 = 25,805,933,872, the checkpoint's index total_parameters.
  const resources all = count(hf_network(g, 256));
  CHECK(all.total() == 25233141760);
  CHECK(all.active() == 3822530560);
  CHECK(g.vision_params == 572792112);
  CHECK(g.audio_params == -1);
  CHECK(all.total() + g.vision_params == 25805933872);
  CHECK(all.total() + g.vision_params ==
        reference()["models"]["gemma-4-26b-a4b-it"]["published_total_with_towers"].get<int64_t>());
  // Bad MoE fields.
  json c = json::parse(std::ifstream(configs + "gemma-4-26b-a4b-it.json"));
  json t = c["text_config"];
  t["top_k_experts"] = 129;
  CHECK_THROWS_WITH(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", t}}),
                    Contains("field 'top_k_experts' must be <= num_experts = 128"));
  t = c["text_config"];
  t.erase("moe_intermediate_size");
  CHECK_THROWS_WITH(read_hf_config(json{{"model_type", "gemma4"}, {"text_config", t}}),
                    Contains("missing field 'moe_intermediate_size'"));
  ffn_spec dense = f;
  dense.d_model = 2816;
  dense.n_experts = dense.top_k = 0;
  dense.shared_d_ff = 0;
  CHECK_THROWS_WITH(ffn_weights(dense), Contains("ffn.router_scales needs a mixture of experts"));
  // E4B: no double-wide MLP (use_double_wide_mlp false), 18 KV-shared layers.
  const hf_model e4 = read_hf_config_file(configs + "gemma-4-e4b-it.json");
  const transformer_spec e4x = expand(e4.spec);
  CHECK(e4x.blocks[24].attention.kv_shared);
  CHECK(!e4x.blocks[23].attention.kv_shared);
  CHECK(e4x.blocks[24].ffn.d_ff == 10240);
  CHECK(count(hf_network(e4, 256)).total() + e4.vision_params + e4.audio_params == 7941100832);
}

TEST_CASE("falcon_h1: attention and Mamba-2 in parallel in one layer, by hand (issue 18f)", "[hf_families][mamba2]") {
  using Catch::Contains;
  const json tiny = {{"model_type", "falcon_h1"}, {"hidden_size", 16}, {"num_hidden_layers", 2},
                     {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 4},
                     {"intermediate_size", 24}, {"vocab_size", 50}, {"attention_bias", true},
                     {"mamba_n_heads", 4}, {"mamba_d_head", "auto"}, {"mamba_d_ssm", 8}, {"mamba_n_groups", 2},
                     {"mamba_d_state", 3}, {"mamba_d_conv", 4}, {"mamba_proj_bias", true},
                     {"projectors_bias", true}, {"mamba_rms_norm", true}, {"key_multiplier", 0.5},
                     {"ssm_multipliers", {1, 2, 3, 4, 5}}};
  const hf_model m = read_hf_config(tiny);
  REQUIRE(m.spec.blocks.size() == 1); // two identical hybrid layers: one run
  CHECK(m.spec.blocks[0].repeat == 2);
  CHECK(m.spec.blocks[0].attention.kind == attention_kind::standard);
  CHECK(m.spec.blocks[0].parallel.kind == attention_kind::mamba2);
  CHECK(m.spec.blocks[0].parallel.ssm_head_dim == 2); // auto: mamba_d_ssm / mamba_n_heads
  const network net = hf_network(m, 10);
  // Per layer: attention q (16 x 16 + 16), k and v (8 x 16 + 8), o (16 x 16 + 16) = 816; the
  // Mamba-2 mixer, I = 8, conv_dim = 8 + 2 x 2 x 3 = 20: in_proj (8 + 20 + 4) x 16 + 32 bias = 544,
  // conv1d 20 x 4 + 20 = 100, dt_bias + A_log + D 12, gated RMSNorm 8, out_proj 16 x 8 + 16 = 144;
  // gated MLP 3 x 24 x 16 = 1152 (mlp_bias false); 2 RMSNorms 32.
  const int64_t layer = 816 + (544 + 100 + 12 + 8 + 144) + 1152 + 32;
  CHECK(count(net.layers[1]).total() == layer); // the figures of one layer of the run (repeat 2)
  CHECK(count(net).total() == 2 * layer + 800 + 800 + 16); // + embed_tokens, untied lm_head, final norm
  // NSC (paper's convention): q per head, k and v per KV head, o whole; beside them the mixer's z
  // and x per head, B and C per group, dt and out_proj whole; the FFN matrices whole.
  const double attention = 8 * psi_x(4, 16) + psi_x(16, 16) + 8 * psi_x(2, 16) + 4 * psi_x(3, 16) + psi_x(4, 16) +
                           psi_x(16, 8);
  const double ffn = 2 * psi_x(24, 16) + psi_x(16, 24);
  CHECK(score(net.layers[1]).nsc == Approx(attention + ffn).epsilon(1e-13));
  CHECK(score(net).nsc == Approx(2 * (attention + ffn)).epsilon(1e-13));
  // Deployment at T = 10, C = 100, B = 2, bf16: per layer 2 x 2 x 4 x 2 = 32 KV bytes per token
  // AND (20 x 3 conv + 4 x 2 x 3 SSM) x 2 = 168 state bytes per sequence.
  workload w;
  w.seq_len = 10;
  w.context = 100;
  w.batch = 2;
  const deployment d = deploy(m.spec, w);
  CHECK(d.layers[1].kv_bytes_per_token == 32);
  CHECK(d.layers[1].state_bytes_per_sequence == 168);
  CHECK(d.layers[1].kv_cache_bytes == 32 * 100 * 2 + 168 * 2);
  CHECK(d.kv_bytes_per_token == 64);
  CHECK(d.state_bytes == 2 * 168 * 2);
  CHECK(d.kv_cache_bytes == 2 * (6400 + 336));
  // MACs per token: linear per layer 768 (attention) + 640 (in_proj, out_proj) + 1152 (MLP),
  // lm_head 800: 5920; the recurrence 20 x 4 + 2 x 8 x 3 = 128 per layer; 2 x 4 x 4 = 32 per key.
  CHECK(d.layers[1].state_macs_per_token == 128);
  CHECK(d.linear_macs_per_token == 5920);
  CHECK(d.decode_flops() == 2 * (5920 + 2 * 128 + 2 * 32 * 100));
  CHECK(to_string(d.prefill_flops()) == std::to_string(2 * (10 * (5920 + 2 * 128) + 2 * 32 * 10 * 10)));
  CHECK(count(net).macs == Approx(5920 + 2 * 128 + 2 * 32 * 10).epsilon(1e-15));
  // mamba_d_ssm null: expand x hidden = 32 (P = 8); mamba_rms_norm false: no gated norm.
  json c = tiny;
  c["mamba_d_ssm"] = nullptr;
  c["mamba_rms_norm"] = false;
  const hf_model e = read_hf_config(c);
  CHECK(e.spec.blocks[0].parallel.ssm_head_dim == 8);
  CHECK(count(hf_network(e, 10)).total() ==
        2 * (816 + ((32 + 44 + 4) * 16 + 80) + (44 * 4 + 44) + 12 + (16 * 32 + 16) + 1152 + 32) + 1616);

  // The bundled configs: the published exact totals (Falcon-H1-0.5B-Base: 521,411,104 measured;
  // Falcon-H1-7B-Base: 7,585,648,736; same shapes as the instruct models) and the state by hand.
  const hf_model h05 = read_hf_config_file(configs + "falcon-h1-0.5b-instruct.json");
  CHECK(count(hf_network(h05, 256)).total() == 521411104);
  CHECK(count(hf_network(read_hf_config_file(configs + "falcon-h1-7b-base.json"), 256)).total() == 7585648736);
  workload w5;
  w5.context = 16384;
  const deployment d5 = deploy(h05.spec, w5);
  CHECK(d5.kv_bytes_per_token == 36 * 2 * 2 * 64 * 2);
  CHECK(d5.state_bytes == 36 * ((1536 + 256) * 3 + 24 * 64 * 128) * 2);
  CHECK(d5.kv_cache_bytes == 36 * 512 * 16384 + d5.state_bytes);

  // Errors name the field or the rule.
  c = tiny;
  c["mamba_d_head"] = 3;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'mamba_d_head' x mamba_n_heads = 4 must equal mamba_d_ssm = 8 (got 3)"));
  c = tiny;
  c["mamba_d_ssm"] = 10;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'mamba_n_heads' must divide mamba_d_ssm = 10 (mamba_d_head auto)"));
  c = tiny;
  c["mamba_n_groups"] = 3;
  CHECK_THROWS_WITH(read_hf_config(c), Contains("field 'mamba_n_groups' must divide mamba_n_heads = 4 (got 3)"));
  transformer_spec s = m.spec;
  s.blocks[0].parallel.kind = attention_kind::standard;
  CHECK_THROWS_WITH(make_transformer(s, 10), Contains("parallel.kind must be none, mamba2 or gated_deltanet"));
  s = m.spec;
  s.blocks[0].attention.kind = attention_kind::none;
  CHECK_THROWS_WITH(make_transformer(s, 10), Contains("parallel needs standard or latent attention beside it"));
  s = m.spec;
  s.blocks[0].parallel.ssm_groups = 3;
  CHECK_THROWS_WITH(make_transformer(s, 10), Contains("layers 0-1: parallel mixer: attention.ssm_groups must be >= 1 and divide"));
  // A block that differs only in its parallel mixer is another run.
  s = expand(m.spec);
  s.blocks[1].parallel.ssm_state = 4;
  CHECK(compress(s).blocks.size() == 2);
}

TEST_CASE("glm4 and starcoder2: released configs against the published totals, windows by hand (issue 18f)",
          "[hf_families][params]") {
  // GLM-4-9B-0414: q, k, v biased (attention_bias), o unbiased, 4 RMSNorms, fused gate_up; untied.
  const hf_model g = read_hf_config_file(configs + "glm-4-9b-0414.json");
  const int64_t glm_layer = (4096 * 4096 + 4096) + 2 * (256 * 4096 + 256) + 4096 * 4096 + 3 * 13696 * 4096 + 4 * 4096;
  CHECK(count(hf_network(g, 256)).total() == 40 * glm_layer + 2 * 151552 * 4096 + 4096);
  CHECK(count(hf_network(g, 256)).total() == 9400279040); // its official safetensors count
  // StarCoder2-15B: every Linear biased, 2 LayerNorms (weight and bias), plain MLP, untied (its
  // config says so), sliding window 4096 on every layer.
  const hf_model s = read_hf_config_file(configs + "starcoder2-15b.json");
  CHECK(count(hf_network(s, 256)).total() == 15957889024); // the hub's safetensors metadata
  workload w;
  w.context = 32768;
  const deployment d = deploy(s.spec, w);
  CHECK(d.kv_bytes_per_token == 40 * 2 * 4 * 128 * 2);
  CHECK(d.kv_cache_bytes == uint64_t(40) * 2 * 4 * 128 * 2 * 4096); // the window caps the cache
  CHECK(d.weight_bytes == 2 * uint64_t(15957889024)); // the workload's default bf16
  w.stored = s.checkpoint_weights();                   // torch_dtype float32, as the checkpoint stores it
  CHECK(deploy(s.spec, w).weight_bytes == 4 * uint64_t(15957889024));
}

TEST_CASE("Issue 18h: ministral, ministral3, exaone4, hunyuan, Granite-4.0-H and Gemma 4 against published totals",
          "[hf_families][params]") {
  auto total = [](const hf_model& m) { return count(hf_network(m, 256)).total(); };
  // Ministral-8B-Instruct-2410 (ministral): the hub's safetensors.total 8,019,808,256. By hand: 36 x
  // (q, o 4096 x 4096, k, v 1024 x 4096, gated MLP 3 x 4096 x 12288, 2 norms) + embedding and head
  // 2 x 131072 x 4096 + the final norm. Its layer_types: one full-attention layer, then 3 sliding.
  const hf_model m8 = read_hf_config_file(configs + "ministral-8b-instruct-2410.json");
  CHECK(total(m8) == 36LL * (4096 * 10240 + 3LL * 4096 * 12288 + 2 * 4096) + 2LL * 131072 * 4096 + 4096);
  CHECK(total(m8) == 8019808256);
  const transformer_spec x8 = expand(m8.spec);
  CHECK(x8.blocks[0].attention.sliding_window == 0);
  CHECK(x8.blocks[1].attention.sliding_window == 32768);
  CHECK(x8.blocks[4].attention.sliding_window == 0);
  // Ministral-3-3B-Instruct-2512 (mistral3 wrapper, ministral3 text_config, tied head): text
  // 3,429,006,336 + the Pixtral tower and projector 420,083,712 = the hub's 3,849,090,048, whose
  // F8_E4M3 part (3,026,190,336) is exactly the 26 layers' matrices and BF16 part the rest.
  const hf_model m3 = read_hf_config_file(configs + "ministral-3-3b-instruct-2512.json");
  CHECK(m3.text_config);
  CHECK(m3.model_type == "ministral3");
  const int64_t d3 = 3072, mats = 3072LL * 4096 * 2 + 3072LL * 1024 * 2 + 3LL * 3072 * 9216;
  CHECK(total(m3) == 26 * (mats + 2 * d3) + 131072 * d3 + d3);
  CHECK(total(m3) == 3429006336);
  const int64_t h = 1024;
  CHECK(m3.vision_params == 3 * 14 * 14 * h + h + 24 * (2 * h + 4 * h * h + 3 * h * 4096) + h + 4 * h * h + h * d3 + d3 * d3);
  CHECK(total(m3) + m3.vision_params == 3849090048);
  CHECK(26 * mats == reference()["ministral3_dtypes"]["F8_E4M3"].get<int64_t>());
  CHECK(total(m3) + m3.vision_params - 26 * mats == reference()["ministral3_dtypes"]["BF16"].get<int64_t>());
  CHECK(m3.notes.back().find("(420083712 parameters)") != std::string::npos);
  // Tiny Aya Global (cohere2; Command R7B has no exact published total): 36 x (q, o 2048 x 2048, k, v
  // 512 x 2048, gated MLP 3 x 2048 x 11008, one LayerNorm weight) + the tied table + the final norm =
  // 3,349,227,520, the parameters of a from-scratch model that loads every tensor of the checkpoint.
  const hf_model aya = read_hf_config_file(configs + "tiny-aya-global.json");
  CHECK(total(aya) == 36LL * (2048 * 5120 + 3LL * 2048 * 11008 + 2048) + 262144LL * 2048 + 2048);
  CHECK(total(aya) == 3349227520);
  CHECK(expand(aya.spec).blocks[3].attention.sliding_window == 0);
  CHECK(expand(aya.spec).blocks[4].attention.sliding_window == 4096);
  // EXAONE-4.0-32B: its model.safetensors.index.json total_size 64,006,432,768 bytes of bf16 / 2.
  CHECK(total(read_hf_config_file(configs + "exaone-4.0-32b.json")) * 2 == 64006432768);
  // Granite-4.0-H-Small (granitemoehybrid with 36 Mamba-2 layers): the hub's 32,207,337,984; active:
  // 10 of the 72 experts. Mamba layer: in_proj (2 x 8192 + 2 x 128 + 128) x 4096, conv1d (8192 + 256)
  // x 4 + bias, dt_bias, A_log, D (128 each), the gated norm 8192, out_proj 4096 x 8192.
  const hf_model gh = read_hf_config_file(configs + "granite-4.0-h-small.json");
  const int64_t d = 4096, conv = 8192 + 256, mamba = (2 * 8192 + 256 + 128) * d + conv * 4 + conv + 3 * 128 + 8192 + d * 8192;
  const int64_t attn = 2 * d * d + 2 * d * 1024, moe = 72 * d + 72 * 3 * d * 768 + 3 * d * 1536;
  CHECK(total(gh) == 36 * mamba + 4 * attn + 40 * (moe + 2 * d) + 100352 * d + d);
  CHECK(total(gh) == 32207337984);
  CHECK(count(hf_network(gh, 256)).active() == 32207337984 - 40LL * 62 * 3 * d * 768);
  const transformer_spec xg = expand(gh.spec);
  std::size_t recurrent = 0;
  for (const block_spec& b : xg.blocks) recurrent += b.attention.kind == attention_kind::mamba2;
  CHECK(recurrent == 36);
  CHECK(reference()["models"]["granite-4.0-h-small"]["kv_cache_bytes_per_token"].get<int64_t>() == 4 * 2 * 8 * 128 * 2);
  // Granite-4.0-H-Micro: the same file with hidden 2048, a dense shared_mlp of 8192, no experts, 64
  // Mamba heads: 3,191,396,096 = the general.parameter_count of its GGUF conversion.
  json micro = json::parse(std::ifstream(configs + "granite-4.0-h-small.json"));
  for (const auto& [k, v] : reference()["granite4h_micro"]["changes"].items()) micro[k] = v;
  CHECK(total(read_hf_config(micro)) == 3191396096);
  // Gemma 4 31B: the text decoder + the vision tower of the 26B-A4B's vision_config, projected to
  // 5376, = 31,273,086,512, Gemma4ForConditionalGeneration's parameters for google/gemma-4-31B-it.
  json g31 = json::parse(std::ifstream(configs + "gemma-4-31b-it.json"));
  g31["vision_config"] = json::parse(std::ifstream(configs + "gemma-4-26b-a4b-it.json"))["vision_config"];
  const hf_model m31 = read_hf_config(g31);
  CHECK(total(m31) + m31.vision_params == 31273086512);
  CHECK(m31.vision_params == reference()["gemma4_31b_meta"]["vision_26b_config"].get<int64_t>());
  // Gemma 4's per_layer_config use: transformers writes the full layers' global_head_dim and
  // num_global_key_value_heads as a per_layer_config of {head_dim, num_key_value_heads}; a config
  // that holds it reads to the same model.
  json plc = json::parse(std::ifstream(configs + "gemma-4-31b-it.json"));
  for (int i = 5; i < 60; i += 6) plc["text_config"]["per_layer_config"][std::to_string(i)] = {{"head_dim", 512}, {"num_key_value_heads", 4}};
  same_everything(read_hf_config(plc).spec, read_hf_config_file(configs + "gemma-4-31b-it.json").spec);
}
