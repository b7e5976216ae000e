// Layers with a multiplicity (issue 13, bounded work): a run of identical layers is one entry
// (layer::repeat, block_spec::repeat) that score, count and deploy honour exactly, the Hugging
// Face reader builds runs directly (a uniform config is one run whatever its depth), and
// expand / compress convert between runs and one entry per layer.
//
// References: deep uniform configs against tests/reference/gen_family_params.py's "deep"
// section (the layer-by-layer Python model at L and L + 1 layers, extrapolated exactly) and a
// hand formula from the shapes; NSC against direct psi_mp sums; runs against their expansion
// on every bundled config.
#include <nsc/eval/order_free.hpp>
#include <nsc/io/hf_config.hpp>
#include <nsc/model/deployment.hpp>
#include <nsc/model/network.hpp>
#include <nsc/model/resources.hpp>
#include <nsc/model/score.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/spectral/marchenko_pastur.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

using namespace nsc;
using Catch::Contains;
using std::int64_t;
using json = nlohmann::json;

namespace {

const std::string root = std::string(NSC_SOURCE_DIR);
const std::string configs = root + "/examples/configs/";

const json& reference() {
  static const json j = json::parse(std::ifstream(root + "/tests/reference/family_params.json"));
  return j;
}

json config(const std::string& name) { return json::parse(std::ifstream(configs + name + ".json")); }

workload reference_workload() {
  const json& w = reference()["workload"];
  workload l;
  l.seq_len = w["T"].get<int64_t>();
  l.context = w["C"].get<int64_t>();
  l.batch = w["B"].get<int64_t>();
  return l;
}

double psi_x(double m, double n) { return psi_mp(m, n, 2.0 / (m + n)); }

/// NSC of one LLaMA-7B decoder layer by the paper's convention, from the shapes: per-head
/// q, k, v (32 blocks of (128, 4096) each), whole o_proj, gate/up (11008, 4096), down.
double llama7b_layer_nsc() {
  return 3 * 32 * psi_x(128, 4096) + psi_x(4096, 4096) + 2 * psi_x(11008, 4096) + psi_x(4096, 11008);
}

} // namespace

TEST_CASE("Deep uniform configs: one run, exact counts and figures (generator's deep section)",
          "[multiplicity][hf]") {
  std::size_t seen = 0;
  for (const json& r : reference()["deep"]) {
    const std::string name = r["config"].get<std::string>();
    const int64_t n = r["layers"].get<int64_t>();
    INFO(name << " with " << n << " layers");
    json c = config(name);
    c["num_hidden_layers"] = n;
    const hf_model m = read_hf_config(c);
    CHECK(total_layers(m.spec) == n);
    CHECK(m.spec.blocks.size() <= 2); // DeepSeek-V3: the dense layers, then one MoE run
    const network net = hf_network(m, 256);
    CHECK(net.layers.size() <= 5);    // embeddings, the runs, final norm, LM head: nothing per layer
    const std::string total = r["params_total"].get<std::string>();
    const bool fits = total.size() < 19 || (total.size() == 19 && total <= "9223372036854775807");
    if (!fits) {
      // 1e12 LLaMA-7B layers: 2.0e20 parameters, beyond int64: a domain error naming the quantity.
      CHECK_THROWS_AS(count(net), std::domain_error);
      CHECK_THROWS_WITH(count(net), Contains("nsc::count: weight parameters overflows the signed 64-bit range "
                                             "(202375168 * 1000000000000)"));
      CHECK_THROWS_AS(deploy(m.spec, reference_workload()), std::domain_error);
      CHECK_THROWS_WITH(deploy(m.spec, reference_workload()), Contains("exceeds 2^64 - 1"));
      CHECK(std::isfinite(score(net).nsc)); // the score itself is finite: 1e12 x one layer's
      ++seen;
      continue;
    }
    const resources res = count(net);
    CHECK(std::to_string(res.total()) == total);
    CHECK(std::to_string(res.active()) == r["params_active"].get<std::string>());
    const deployment d = deploy(m.spec, reference_workload());
    CHECK(std::to_string(d.kv_bytes_per_token) == r["kv_cache_bytes_per_token"].get<std::string>());
    CHECK(std::to_string(d.kv_cache_bytes) == r["kv_cache_bytes"].get<std::string>());
    CHECK(std::to_string(d.linear_macs_per_token) == r["linear_macs_per_token"].get<std::string>());
    CHECK(std::to_string(d.decode_flops()) == r["decode_flops"].get<std::string>());
    CHECK(to_string(d.prefill_flops()) == r["prefill_flops_full"].get<std::string>());
    CHECK(std::to_string(d.weight_bytes) == r["weight_bytes_bf16"].get<std::string>());
    CHECK(std::to_string(d.memory_bytes) == r["memory_bytes_bf16"].get<std::string>());
    workload w = reference_workload();
    w.attention = attention_convention::causal;
    CHECK(to_string(deploy(m.spec, w).prefill_flops()) == r["prefill_flops_causal"].get<std::string>());
    for (const char* t : {"fp32", "fp8", "int4"}) {
      w.weights = parse_dtype(t);
      CHECK(std::to_string(deploy(m.spec, w).weight_bytes) == r[std::string("weight_bytes_") + t].get<std::string>());
    }
    ++seen;
  }
  CHECK(seen == 6);
}

TEST_CASE("2,000,000 and 1e7 LLaMA-7B layers: params and NSC from the shapes", "[multiplicity][hf]") {
  for (const int64_t n : {int64_t(2000000), int64_t(10000000)}) {
    INFO(n);
    json c = config("llama-7b");
    c["num_hidden_layers"] = n;
    const hf_model m = read_hf_config(c);
    REQUIRE(m.spec.blocks.size() == 1);
    CHECK(m.spec.blocks[0].repeat == n);
    const network net = hf_network(m, 256);
    REQUIRE(net.layers.size() == 4);
    CHECK(net.layers[1].name == "layers.0-" + std::to_string(n - 1));
    CHECK(net.layers[1].repeat == n);
    // 4 d^2 attention + 3 d d_ff FFN + 2 d norms per layer (202,383,360: LLaMA-7B's published
    // per-layer count), the token table and the untied head V d each, the final norm d.
    const int64_t d = 4096, ff = 11008, V = 32000;
    const int64_t per_layer = 4 * d * d + 3 * d * ff + 2 * d;
    CHECK(per_layer == 202383360);
    CHECK(count(net).total() == per_layer * n + 2 * V * d + d);
    CHECK(count(net).non_embedding() == per_layer * n + d);
    const network_score ns = score(net);
    CHECK(ns.nsc == Approx(double(n) * llama7b_layer_nsc()).epsilon(1e-12));
    CHECK(ns.layers[1].nsc == Approx(llama7b_layer_nsc()).epsilon(1e-12)); // one layer of the run
    CHECK(ns.layers[1].repeat == n);
    CHECK(eval::order_free_score(net, scoring{}) == Approx(ns.nsc).epsilon(1e-12));
    // KV cache: 2 x 32 heads x 128 x 2 bytes per token and layer.
    CHECK(deploy(m.spec, workload{}).kv_bytes_per_token == std::uint64_t(16384) * std::uint64_t(n));
  }
}

TEST_CASE("Runs equal their expansion on every bundled config", "[multiplicity][equivalence]") {
  std::size_t seen = 0;
  for (const auto& [name, r] : reference()["models"].items()) {
    INFO(name);
    const hf_model m = read_hf_config_file(configs + name + ".json");
    const transformer_spec full = expand(m.spec);
    CHECK(int64_t(full.blocks.size()) == r["layers"].get<int64_t>());
    for (const block_spec& b : full.blocks) CHECK(b.repeat == 1);
    // The reader's runs are maximal: compressing the expansion gives them back.
    const transformer_spec again = compress(full);
    REQUIRE(again.blocks.size() == m.spec.blocks.size());
    for (std::size_t i = 0; i < again.blocks.size(); ++i) {
      CHECK(same_block(again.blocks[i], m.spec.blocks[i]));
      CHECK(again.blocks[i].repeat == m.spec.blocks[i].repeat);
    }
    const network runs = hf_network(m, 512), each = make_transformer(full, 512);
    CHECK(each.layers.size() >= runs.layers.size());
    const resources a = count(runs), b = count(each);
    CHECK(a.total() == b.total());
    CHECK(a.non_embedding() == b.non_embedding());
    CHECK(a.active() == b.active());
    CHECK(a.weights == b.weights);
    CHECK(a.biases == b.biases);
    CHECK(a.norms == b.norms);
    CHECK(a.macs == b.macs);       // runs up to repeat_sum_max layers are added layer by layer:
    CHECK(a.inactive == b.inactive); // bitwise the expanded network's figures
    for (const scoring& s : {scoring{}, hf_scoring(m, estimator::fs)}) {
      const network_score sa = score(runs, s), sb = score(each, s);
      CHECK(sa.nsc == sb.nsc);
      for (std::size_t p = 0; p < part_count; ++p) CHECK(sa.by_part[p] == sb.by_part[p]);
      CHECK(eval::order_free_score(runs, s) == eval::order_free_score(each, s)); // bitwise
      CHECK(aggregate(sa, aggregation::bottleneck) == aggregate(sb, aggregation::bottleneck));
      CHECK(aggregate(sa, aggregation::sum) == aggregate(sb, aggregation::sum));
      CHECK(aggregate(sa, aggregation::harmonic) == aggregate(sb, aggregation::harmonic));
      CHECK(aggregate(sa, aggregation::product) == aggregate(sb, aggregation::product));
    }
    // Network-level expand / compress: the same entries as the spec-level ones.
    const network ex = expand(runs);
    REQUIRE(ex.layers.size() == each.layers.size());
    for (std::size_t i = 0; i < ex.layers.size(); ++i) {
      CHECK(ex.layers[i].name == each.layers[i].name);
      CHECK(same_layer(ex.layers[i], each.layers[i]));
    }
    // A network does not see sliding windows at T = 512 below every window (equal layers), so
    // its compression may merge more than the spec's runs: counts and scores stay.
    const network co = compress(each);
    CHECK(co.layers.size() <= runs.layers.size());
    CHECK(total_layers(co) == total_layers(each));
    CHECK(count(co).total() == b.total());
    CHECK(count(co).active() == b.active());
    CHECK(score(co).nsc == score(each).nsc);
    CHECK(eval::order_free_score(co, scoring{}) == eval::order_free_score(each, scoring{}));
    for (const attention_convention conv : {attention_convention::full, attention_convention::causal}) {
      workload w = reference_workload();
      w.attention = conv;
      for (const dtype t : {dtype::bf16, dtype::int4}) {
        w.weights = t;
        const deployment da = deploy(m.spec, w), db = deploy(full, w);
        CHECK(da.kv_cache_bytes == db.kv_cache_bytes);
        CHECK(da.kv_bytes_per_token == db.kv_bytes_per_token);
        CHECK(da.prefill_macs == db.prefill_macs);
        CHECK(da.decode_macs == db.decode_macs);
        CHECK(da.linear_macs_per_token == db.linear_macs_per_token);
        CHECK(da.weight_bytes == db.weight_bytes);
        CHECK(da.memory_bytes == db.memory_bytes);
      }
    }
    ++seen;
  }
  std::size_t files = 0; // every bundled config (the generator lists them all)
  for (const auto& e : std::filesystem::directory_iterator(configs)) files += e.path().extension() == ".json";
  CHECK(seen == files);
  CHECK(seen >= 31);
  // Uniform configs are one run: LLaMA-3.1-70B's 80 layers are one entry.
  const hf_model l70 = read_hf_config_file(configs + "llama-3.1-70b.json");
  REQUIRE(l70.spec.blocks.size() == 1);
  CHECK(l70.spec.blocks[0].repeat == 80);
  CHECK(hf_network(l70, 256).layers[1].name == "layers.0-79");
  // Per-layer patterns are runs: Gemma 2 alternates (26 runs), DeepSeek-V3 has 3 dense layers
  // then 58 MoE ones, Gemma 3 1B has runs of 5 sliding layers and one global.
  CHECK(read_hf_config_file(configs + "gemma-2-2b.json").spec.blocks.size() == 26);
  const hf_model ds = read_hf_config_file(configs + "deepseek-v3.json");
  REQUIRE(ds.spec.blocks.size() == 2);
  CHECK(ds.spec.blocks[0].repeat == 3);
  CHECK(ds.spec.blocks[1].repeat == 58);
  const hf_model g3 = read_hf_config_file(configs + "gemma-3-1b-it.json");
  CHECK(g3.spec.blocks[0].repeat == 5);
  CHECK(g3.spec.blocks[0].attention.sliding_window > 0);
  CHECK(g3.spec.blocks[1].repeat == 1);
  CHECK(g3.spec.blocks[1].attention.sliding_window == 0);
}

TEST_CASE("Periodic per-layer rules with a huge depth: runs, or an error naming the limit",
          "[multiplicity][hf]") {
  // Mistral: every layer slides: one run of 1e7.
  json c = config("mistral-7b");
  c["num_hidden_layers"] = 10000000;
  CHECK(read_hf_config(c).spec.blocks.size() == 1);
  // Qwen3: sliding from max_window_layers on: two runs.
  c = config("qwen3-8b");
  c["num_hidden_layers"] = 10000000;
  c["use_sliding_window"] = true;
  c["sliding_window"] = 4096;
  c["max_window_layers"] = 28;
  const hf_model q = read_hf_config(c);
  REQUIRE(q.spec.blocks.size() == 2);
  CHECK(q.spec.blocks[0].repeat == 28);
  CHECK(q.spec.blocks[1].repeat == 10000000 - 28);
  CHECK(q.spec.blocks[1].attention.sliding_window == 4096);
  // Gemma 2 alternates every layer: 2e6 layers would be 2e6 runs.
  c = config("gemma-2-2b");
  c["num_hidden_layers"] = 2000000;
  CHECK_THROWS_AS(read_hf_config(c), std::invalid_argument);
  CHECK_THROWS_WITH(read_hf_config(c), Contains("nsc::read_hf_config: field 'num_hidden_layers' gives more than "
                                                "16384 runs of identical layers (the sliding window alternates "
                                                "every 2 layers)"));
  CHECK_THROWS_WITH(read_hf_config(c), Contains("(got 2000000)"));
  // Qwen MoE every other layer (decoder_sparse_step 2), mlp_only_layers, DeepSeek moe_layer_freq.
  c = config("qwen3-30b-a3b");
  c["num_hidden_layers"] = 1000;
  c["decoder_sparse_step"] = 2;
  c["mlp_only_layers"] = {7, 8};
  const hf_model qm = read_hf_config(c);
  const transformer_spec qe = expand(qm.spec);
  for (int64_t i = 0; i < 1000; ++i) {
    const bool moe = i != 7 && i != 8 && (i + 1) % 2 == 0;
    CHECK((qe.blocks[std::size_t(i)].ffn.n_experts > 0) == moe);
  }
  c["num_hidden_layers"] = 1000000;
  c["mlp_only_layers"] = json::array();
  CHECK_THROWS_WITH(read_hf_config(c), Contains("(decoder_sparse_step alternates every 2 layers)"));
  c = config("deepseek-v3");
  c["num_hidden_layers"] = 100;
  c["moe_layer_freq"] = 3;
  c["first_k_dense_replace"] = 4;
  const transformer_spec de = expand(read_hf_config(c).spec);
  for (int64_t i = 0; i < 100; ++i) CHECK((de.blocks[std::size_t(i)].ffn.n_experts > 0) == (i >= 4 && i % 3 == 0));
  // Per-layer overrides on a deep model: the overridden layer is its own run.
  c = config("llama-7b");
  c["num_hidden_layers"] = 10000000;
  c["per_layer_config"] = {{"5", {{"intermediate_size", 4096}}}};
  const hf_model pl = read_hf_config(c);
  REQUIRE(pl.spec.blocks.size() == 3);
  CHECK(pl.spec.blocks[0].repeat == 5);
  CHECK(pl.spec.blocks[1].repeat == 1);
  CHECK(pl.spec.blocks[1].ffn.d_ff == 4096);
  CHECK(pl.spec.blocks[2].repeat == 10000000 - 6);
  CHECK(count(hf_network(pl, 256)).total() == 202383360LL * 10000000 - 3 * 4096LL * (11008 - 4096) +
                                                  2 * 32000LL * 4096 + 4096);
  // layer_types is a per-layer list: bounded.
  c = config("llama-7b");
  c["num_hidden_layers"] = 20000;
  c["layer_types"] = json::array();
  for (int i = 0; i < 20000; ++i) c["layer_types"].push_back("full_attention");
  CHECK_THROWS_WITH(read_hf_config(c),
                    Contains("field 'layer_types' is a per-layer list, supported for at most 16384 layers "
                             "(num_hidden_layers = 20000)"));
}

TEST_CASE("repeat: validation, names, expand's limit, compress", "[multiplicity][errors]") {
  network net;
  net.name = "toy";
  layer l;
  l.name = "block";
  l.weights.push_back(linear("w", part::ffn, 8, 4));
  l.norm_params = 3;
  l.repeat = 0;
  net.layers.push_back(l);
  CHECK_THROWS_AS(validate(net), std::invalid_argument);
  CHECK_THROWS_WITH(validate(net), "nsc::validate: layer 0 'block': repeat must be >= 1 (got 0)");
  CHECK_THROWS_WITH(score(net), "nsc::validate: layer 0 'block': repeat must be >= 1 (got 0)");
  CHECK_THROWS_WITH(count(net), "nsc::validate: layer 0 'block': repeat must be >= 1 (got 0)");
  CHECK_THROWS_WITH(expand(net), Contains("nsc::total_layers: layer 0 'block': repeat must be >= 1 (got 0)"));
  CHECK_THROWS_WITH(compress(net), Contains("repeat must be >= 1 (got 0)"));
  net.layers[0].repeat = 3;
  // One entry stands for 3 layers: counts and score x 3.
  CHECK(count(net).total() == 3 * (32 + 3));
  CHECK(count(net.layers[0]).total() == 32 + 3); // one layer of the run
  CHECK(score(net).nsc == Approx(3 * psi_x(8, 4)).epsilon(1e-14));
  CHECK(total_layers(net) == 3);
  const network ex = expand(net);
  REQUIRE(ex.layers.size() == 3);
  CHECK(ex.layers[0].name == "block.0");
  CHECK(ex.layers[2].name == "block.2");
  CHECK_THROWS_WITH(expand(net, 2), "nsc::expand: the network has more layers than the limit of 2 entries one per "
                                    "layer (keep the runs, or raise max_layers) (got 3)");
  // compress of the expansion gives the run back, named by its index range.
  CHECK(compress(ex).layers.size() == 1);
  CHECK(compress(ex).layers[0].name == "block.0-2");
  CHECK(compress(ex).layers[0].repeat == 3);
  CHECK(expand(compress(ex)).layers[1].name == "block.1");
  // Differently named equal layers: the first name.
  network named = ex;
  named.layers[1].name = "other";
  CHECK(compress(named).layers.size() == 1);
  CHECK(compress(named).layers[0].name == "block.0");
  // Indexed names merge into a range; a different layer breaks the run.
  network idx;
  for (int i = 0; i < 4; ++i) {
    layer x = l;
    x.repeat = 1;
    x.name = "layers." + std::to_string(i);
    if (i == 3) x.norm_params = 4;
    idx.layers.push_back(x);
  }
  const network ci = compress(idx);
  REQUIRE(ci.layers.size() == 2);
  CHECK(ci.layers[0].name == "layers.0-2");
  CHECK(ci.layers[0].repeat == 3);
  CHECK(ci.layers[1].name == "layers.3");
  CHECK(expand(ci).layers[1].name == "layers.1");
  CHECK(run_name("layers.", 0, 80) == "layers.0-79");
  // A run longer than repeat_sum_max is multiplied: the aggregates count it as repeat layers.
  network longrun;
  layer big = l;
  big.repeat = repeat_sum_max + 5;
  longrun.layers.push_back(big);
  layer other = l;
  other.repeat = 1;
  other.weights[0].out = 16;
  longrun.layers.push_back(other);
  const network_score lr = score(longrun);
  const double p1 = psi_x(8, 4), p2 = psi_x(16, 4), r = double(repeat_sum_max + 5);
  CHECK(lr.nsc == Approx(r * p1 + p2).epsilon(1e-14));
  CHECK(aggregate(lr, aggregation::sum) == Approx(r * p1 + p2).epsilon(1e-14));
  CHECK(aggregate(lr, aggregation::bottleneck) == Approx(std::min(p1, p2)).epsilon(1e-15));
  CHECK(aggregate(lr, aggregation::harmonic) == Approx((r + 1) / (r / p1 + 1 / p2)).epsilon(1e-12));
  CHECK(std::isinf(aggregate(lr, aggregation::product))); // p1^(2^20 + 5), p1 > 1: +inf, as documented
  CHECK(count(longrun).total() == int64_t(repeat_sum_max + 5) * (32 + 3) + (64 + 3));
  CHECK(run_name("layers.", 7, 1) == "layers.7");
  // Overflow of the total and of a count.
  net.layers[0].repeat = std::numeric_limits<int64_t>::max();
  net.layers.push_back(net.layers[0]);
  CHECK_THROWS_AS(total_layers(net), std::domain_error);
  CHECK_THROWS_WITH(compress(net), Contains("layers overflows the signed 64-bit range"));
  CHECK_THROWS_WITH(count(net), Contains("nsc::count: weight parameters overflows the signed 64-bit range "
                                         "(32 * 9223372036854775807)"));
  // transformer_spec: repeat is validated and names the layer range.
  transformer_spec s;
  s.d_model = 64;
  s.embeddings.vocab_size = 100;
  block_spec b;
  b.attention.n_heads = 4;
  b.ffn.d_ff = 128;
  b.repeat = 0;
  s.blocks = {b};
  CHECK_THROWS_WITH(make_transformer(s, 16), "nsc::make_transformer: layer 0: repeat must be >= 1 (got 0)");
  CHECK_THROWS_WITH(deploy(s, workload{}), Contains("repeat must be >= 1 (got 0)"));
  b.repeat = 10;
  block_spec bad = b;
  bad.attention.n_heads = 0;
  s.blocks = {b, bad};
  CHECK_THROWS_WITH(make_transformer(s, 16), "nsc::make_transformer: layers 10-19: attention.n_heads must be >= 1 (got 0)");
  s.blocks = {b, b};
  s.blocks[1].repeat = std::numeric_limits<int64_t>::max();
  CHECK_THROWS_WITH(make_transformer(s, 16), Contains("the total number of layers overflows 64 bits"));
  s.blocks = {b};
  const network one = make_transformer(s, 16);
  CHECK(one.layers[1].name == "layers.0-9");
  CHECK(one.layers[1].repeat == 10);
  CHECK_THROWS_WITH(expand(s, 5), "nsc::expand: the model has more layers than the limit of 5 blocks one per "
                                  "layer (keep the runs, or raise max_layers) (got 10)");
  // deploy: per-layer figures are of one layer, totals of all 10.
  const deployment d = deploy(s, workload{});
  CHECK(d.layers[1].repeat == 10);
  CHECK(d.kv_bytes_per_token == 10 * d.layers[1].kv_bytes_per_token);
  CHECK(d.weight_bytes == d.layers[0].weight_bytes + 10 * d.layers[1].weight_bytes + d.layers[2].weight_bytes +
                              d.layers[3].weight_bytes);
  // with_nsc_extensions writes one entry per layer of a run.
  const json back = with_nsc_extensions(json::object(), s);
  CHECK(back["intermediate_sizes"].size() == 10);
  s.blocks[0].repeat = 20000;
  CHECK_THROWS_WITH(with_nsc_extensions(json::object(), s),
                    "nsc::with_nsc_extensions: the model has more layers than the limit of 16384 list entries one "
                    "per layer (the per-layer list limit of read_hf_config) (got 20000)");
}
