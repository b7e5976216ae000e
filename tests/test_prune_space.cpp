// Tests of nsc/search/prune_space.hpp and nsc/io/prune_config.hpp: the generic pruning space
// against brute force (every selection of 2-3 layer models built as a whole model and scored /
// counted / deployed from scratch) for every budget alone and in combinations; round trips of
// every emitted format through the reader; the rules loaders enforce; errors.
#include <nsc/io/hf_config.hpp>
#include <nsc/io/prune_config.hpp>
#include <nsc/search/prune_space.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace nsc;
using namespace nsc::search;
using json = nlohmann::json;
using std::int64_t;

namespace {

const std::string configs = std::string(NSC_SOURCE_DIR) + "/examples/configs/";

/// 3 layers, hidden 256, 4 heads of 64, 2 KV heads, FFN 768; layer 1 narrower (per_layer_config).
json tiny_llama() {
  return {{"model_type", "llama"},       {"hidden_size", 256},       {"intermediate_size", 768},
          {"num_hidden_layers", 3},      {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"vocab_size", 500},           {"rms_norm_eps", 1e-5},     {"tie_word_embeddings", false},
          {"per_layer_config", {{"1", {{"intermediate_size", 512}}}}}};
}

/// 3 layers of a Mixtral-style MoE: hidden 128, 4 heads of 32, 2 KV heads, 4 experts of width
/// 256, top-2; layer 1 keeps 3 experts (per_layer_config's num_local_experts).
json tiny_mixtral() {
  return {{"model_type", "mixtral"},      {"hidden_size", 128},       {"intermediate_size", 256},
          {"num_hidden_layers", 3},       {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"num_local_experts", 4},       {"num_experts_per_tok", 2}, {"vocab_size", 300},
          {"rms_norm_eps", 1e-5},         {"tie_word_embeddings", false},
          {"per_layer_config", {{"1", {{"num_local_experts", 3}}}}}};
}

/// 2 layers of a Qwen2-MoE: layer 0 dense (mlp_only_layers), layer 1 6 experts of width 128,
/// top-2, a shared expert of 192 with its gate.
json tiny_qwen_moe() {
  return {{"model_type", "qwen2_moe"},   {"hidden_size", 128},           {"intermediate_size", 384},
          {"num_hidden_layers", 2},      {"num_attention_heads", 4},     {"num_key_value_heads", 2},
          {"num_experts", 6},            {"num_experts_per_tok", 2},     {"moe_intermediate_size", 128},
          {"shared_expert_intermediate_size", 192}, {"mlp_only_layers", {0}}, {"vocab_size", 300},
          {"tie_word_embeddings", false}};
}

prune_space_settings settings(prune_format f) {
  prune_space_settings s;
  s.format = f;
  s.load.seq_len = 64;
  s.load.context = 256;
  s.load.batch = 2;
  s.head_step = 1; // every query-head count (the default steps by the GQA group)
  return s;
}

/// Every selection of the space as (attention option, FFN option) per layer.
void for_each_selection(const prune_space& sp, const std::function<void(const prune_candidate&)>& f) {
  const std::size_t L = sp.layers.size();
  std::vector<std::size_t> a(L, 0), b(L, 0);
  while (true) {
    prune_candidate c;
    for (std::size_t i = 0; i < L; ++i) c.layers.push_back(prune_choice(sp.layers[i], a[i], b[i]));
    f(c);
    std::size_t i = 0;
    for (; i < L; ++i) {
      if (++b[i] < sp.layers[i].ffn.size()) break;
      b[i] = 0;
      if (++a[i] < sp.layers[i].attention.size()) break;
      a[i] = 0;
    }
    if (i == L) return;
  }
}

/// The fixed costs plus the costs of every chosen option pair (what the knapsack adds up:
/// prune_pair_cost, the options' costs with a shared norm counted once).
prune_cost_vector option_sum(const prune_space& sp, const prune_candidate& c) {
  prune_cost_vector sum = sp.fixed;
  for (std::size_t i = 0; i < c.layers.size(); ++i) {
    const prune_cost_vector p = prune_pair_cost(sp.layers[i], c.layers[i].attention_option, c.layers[i].ffn_option);
    for (std::size_t k = 0; k < prune_cost_count; ++k) sum[k] += p[k];
  }
  return sum;
}

struct brute {
  std::vector<prune_totals_t> all;
};

/// Totals of every selection, each from the whole pruned model (independent of the option sums).
brute enumerate(const prune_space& sp) {
  brute out;
  for_each_selection(sp, [&](const prune_candidate& c) { out.all.push_back(prune_totals(prune_apply(sp, c), sp.settings)); });
  return out;
}

/// A budget at fraction frac of the way from the smallest to the largest value of cost c over
/// every selection: at(c, 0) admits only the cheapest, at(c, 1) every one.
struct budget_grid {
  prune_cost_vector lo{}, hi{};
  explicit budget_grid(const brute& b) {
    lo.fill(INT64_MAX);
    hi.fill(0);
    for (const auto& t : b.all)
      for (std::size_t k = 0; k < prune_cost_count; ++k) lo[k] = std::min(lo[k], t.cost[k]), hi[k] = std::max(hi[k], t.cost[k]);
  }
  prune_budget operator()(prune_cost c, double frac) const {
    const std::size_t k = std::size_t(c);
    return prune_budget{c, lo[k] + int64_t(double(hi[k] - lo[k]) * frac)};
  }
};

/// The brute-force optimum under the budgets (nullopt: none fits).
std::optional<double> brute_best(const brute& b, const std::vector<prune_budget>& budgets) {
  std::optional<double> best;
  for (const prune_totals_t& t : b.all) {
    bool fits = true;
    for (const prune_budget& x : budgets) fits = fits && t.cost[std::size_t(x.cost)] <= x.limit;
    if (fits && (!best || t.nsc > *best)) best = t.nsc;
  }
  return best;
}

/// search_prune's optimum against the brute force b for each budget set of `list` (feasibility,
/// NSC to 1e-12, every budget met).
void check_budget_list(const prune_space& sp, const brute& b, const std::vector<std::vector<prune_budget>>& list) {
  for (const auto& budgets : list) {
    prune_search_settings ps;
    ps.budgets = budgets;
    const prune_search_result r = search_prune(sp, ps);
    const auto want = brute_best(b, budgets);
    REQUIRE(bool(r.best) == bool(want));
    if (!want) continue;
    CHECK(r.best->totals.nsc == Approx(*want).epsilon(1e-12));
    for (const prune_budget& x : budgets) CHECK(r.best->totals.cost[std::size_t(x.cost)] <= x.limit);
  }
}

/// search_prune against brute force under the serving budgets, each at its fraction f of the
/// way from the smallest to the largest value: decode time f[0], prefill time f[1], memory per GPU
/// f[2], weight bytes f[3], memory f[4] with decode time f[5].
void check_serving_budgets(const prune_space& sp, const std::array<double, 6>& f) {
  const brute b = enumerate(sp);
  const budget_grid at(b);
  using P = prune_cost;
  check_budget_list(sp, b, {{at(P::decode_time, f[0])},
                            {at(P::prefill_time, f[1])},
                            {at(P::memory_per_gpu, f[2])},
                            {at(P::weight_bytes, f[3])},
                            {at(P::memory, f[4]), at(P::decode_time, f[5])}});
}

} // namespace

TEST_CASE("prune space: options per format, loader rules and tp", "[prune]") {
  const hf_model m = read_hf_config(tiny_llama());
  const prune_space d = make_prune_space(m.spec, settings(prune_format::decilm));
  REQUIRE(d.layers.size() == 3);
  CHECK(d.distinct_layers == 2); // layers 0 and 2 identical, layer 1 narrower
  // decilm: k in {2, 1} dividing 4, plus no-op; FFN {768, 512, 256} plus no-op.
  CHECK(d.layers[0].attention.size() == 3);
  CHECK(d.layers[0].attention[0].kv_heads == 2);
  CHECK(d.layers[0].attention[1].kv_heads == 1);
  CHECK(d.layers[0].attention[2].none);
  for (const auto& o : d.layers[0].attention) CHECK((o.none || o.heads == 4));
  CHECK(d.layers[0].ffn.size() == 4);
  CHECK(d.layers[0].ffn[0].width == 768);
  CHECK(d.layers[1].ffn.size() == 3); // 512, 256, no-op
  CHECK(d.layers[1].ffn[0].width == 512);
  // per-layer: (h, k) with k | h, k <= 2: (4,2) (4,1) (3,1) (2,2) (2,1) (1,1), plus no-op.
  const prune_space p = make_prune_space(m.spec, settings(prune_format::per_layer));
  CHECK(p.layers[0].attention.size() == 7);
  for (const auto& o : p.layers[0].attention)
    if (!o.none) CHECK((o.heads % o.kv_heads == 0 && o.kv_heads <= 2 && o.heads <= 4));
  prune_space_settings grp = settings(prune_format::per_layer);
  grp.head_step = 0; // whole GQA groups of 2: (4,2) (4,1) (2,2) (2,1), plus no-op
  CHECK(make_prune_space(m.spec, grp).layers[0].attention.size() == 5);
  // nsc: attention kept, widths only.
  const prune_space n = make_prune_space(m.spec, settings(prune_format::nsc));
  CHECK(n.layers[0].attention.size() == 1);
  CHECK(n.layers[0].ffn.size() == 3);
  // tp = 2: heads and widths divisible, KV heads divisible or dividing.
  prune_space_settings t = settings(prune_format::per_layer);
  t.tp = 2;
  t.ffn_multiple = 128;
  t.min_ffn = 300;
  const prune_space tp = make_prune_space(m.spec, t);
  for (const auto& o : tp.layers[0].attention)
    if (!o.none) CHECK((o.heads % 2 == 0 && (o.kv_heads % 2 == 0 || 2 % o.kv_heads == 0)));
  std::vector<int64_t> widths;
  for (const auto& o : tp.layers[0].ffn)
    if (!o.none) widths.push_back(o.width);
  CHECK(widths == std::vector<int64_t>{768, 640, 512, 384});
  // No no-op when asked.
  prune_space_settings nn = settings(prune_format::decilm);
  nn.no_op = false;
  const prune_space x = make_prune_space(m.spec, nn);
  for (const auto& o : x.layers[0].attention) CHECK_FALSE(o.none);
  for (const auto& o : x.layers[0].ffn) CHECK_FALSE(o.none);
}

TEST_CASE("prune space: Gemma 4's KV-shared layers, per-layer embeddings and MoE block are refused by name",
          "[prune]") {
  using Catch::Contains;
  // A KV-shared layer reads the keys and values of an earlier layer: neither can be pruned or
  // removed apart from the other, so the space refuses the model (every format).
  for (const prune_format f : {prune_format::nsc, prune_format::per_layer, prune_format::decilm}) {
    CHECK_THROWS_WITH(make_prune_space(read_hf_config_file(configs + "gemma-4-e2b-it.json").spec, settings(f)),
                      Contains("the model has per-layer embeddings (Gemma 4 hidden_size_per_layer_input") &&
                          Contains("(from layer 0); KV-shared layers (Gemma 4 num_kv_shared_layers") &&
                          Contains("(from layer 15), which the pruning space does not model"));
    CHECK_THROWS_WITH(make_prune_space(read_hf_config_file(configs + "gemma-4-26b-a4b-it.json").spec, settings(f)),
                      Contains("the model has the Gemma 4 MoE block (enable_moe_block"));
  }
}

TEST_CASE("prune space: option costs add up to the whole model's (decomposition)", "[prune]") {
  const hf_model m = read_hf_config(tiny_llama());
  const prune_space sp = make_prune_space(m.spec, settings(prune_format::per_layer));
  for_each_selection(sp, [&](const prune_candidate& c) {
    const prune_totals_t t = prune_totals(prune_apply(sp, c), sp.settings);
    CHECK(option_sum(sp, c) == t.cost);
  });
}

namespace {

/// search_prune's optimum (best, front, k best) against brute force over every selection of the
/// space, for every budget alone and in combinations.
void check_against_brute_force(const prune_space& sp) {
  {
    const brute b = enumerate(sp);
    const budget_grid at(b);
    using P = prune_cost;
    const std::vector<std::vector<prune_budget>> combos = {
        {},
        {at(P::params, 0.5)},
        {at(P::params_non_embedding, 0.3)},
        {at(P::params_active, 0.7)},
        {at(P::prefill_flops, 0.4)},
        {at(P::kv_bytes, 0.5)},
        {at(P::memory, 0.6)},
        {at(P::params, 0.6), at(P::kv_bytes, 0.3)},
        {at(P::prefill_flops, 0.5), at(P::kv_bytes, 0.7)},
        {at(P::params, 0.8), at(P::prefill_flops, 0.4), at(P::kv_bytes, 0.4)},
        {at(P::memory, 0.5), at(P::params_active, 0.6), at(P::params_non_embedding, 0.9)},
        {at(P::params, 0.0)},
        {at(P::params, 1.0), at(P::kv_bytes, 0.0)},
    };
    for (const auto& budgets : combos) {
      INFO("budgets " << budgets.size() << (budgets.empty() ? "" : std::string(to_string(budgets[0].cost))));
      prune_search_settings s;
      s.budgets = budgets;
      const prune_search_result r = search_prune(sp, s);
      const auto want = brute_best(b, budgets);
      REQUIRE(bool(r.best) == bool(want));
      if (!want) continue;
      CHECK(r.best->totals.nsc == Approx(*want).epsilon(1e-12));
      CHECK(r.best->dp_value == Approx(r.best->totals.nsc).epsilon(1e-12));
      for (const prune_budget& x : budgets) CHECK(r.best->totals.cost[std::size_t(x.cost)] <= x.limit);
      // The front and the k best agree with the optimum.
      s.front = true;
      s.top = 3;
      const prune_search_result rf = search_prune(sp, s);
      REQUIRE(rf.best);
      CHECK(rf.best->totals.nsc == Approx(*want).epsilon(1e-12));
      REQUIRE(!rf.top.empty());
      CHECK(rf.top[0].totals.nsc == Approx(*want).epsilon(1e-12));
      for (std::size_t i = 1; i < rf.top.size(); ++i) // non-increasing (sums in different orders: 1e-12)
        CHECK(rf.top[i].dp_value <= rf.top[i - 1].dp_value + 1e-12 * std::abs(rf.top[i - 1].dp_value));
      double front_best = -1;
      for (const auto& c : rf.front) {
        for (const prune_budget& x : budgets) CHECK(c.totals.cost[std::size_t(x.cost)] <= x.limit);
        front_best = std::max(front_best, c.totals.nsc);
      }
      CHECK(front_best == Approx(*want).epsilon(1e-12));
    }
  }
}

} // namespace

TEST_CASE("prune search: exact optimum against brute force for every budget combination", "[prune]") {
  const hf_model m = read_hf_config(tiny_llama());
  for (prune_format f : {prune_format::decilm, prune_format::per_layer, prune_format::nsc}) {
    INFO(to_string(f));
    check_against_brute_force(make_prune_space(m.spec, settings(f)));
  }
}

TEST_CASE("prune emission: every format reads back to exactly the searched model", "[prune]") {
  const json raw = tiny_llama();
  const hf_model m = read_hf_config(raw);
  for (prune_format f : {prune_format::decilm, prune_format::per_layer, prune_format::nsc}) {
    INFO(to_string(f));
    const prune_space sp = make_prune_space(m.spec, settings(f));
    std::size_t n = 0;
    for_each_selection(sp, [&](const prune_candidate& c0) {
      if (n++ % 7 != 0) return; // a spread of selections (every no-op / width / head pattern)
      prune_candidate c = c0;
      c.totals = prune_totals(prune_apply(sp, c), sp.settings);
      const json cfg = prune_emit_config(raw, sp, c);
      CHECK_NOTHROW(prune_verify_config(cfg, sp, c));
      hf_model back = read_hf_config(cfg);
      back.spec = expand(back.spec); // runs of identical layers -> one block per layer
      REQUIRE(back.spec.blocks.size() == 3);
      for (std::size_t i = 0; i < 3; ++i) {
        const block_spec& b = back.spec.blocks[i];
        CHECK((b.attention.kind == attention_kind::none) == c.layers[i].attention_none);
        CHECK((b.ffn.kind == ffn_kind::none) == c.layers[i].ffn_none);
        if (!c.layers[i].attention_none) CHECK(b.attention.kv_heads() == c.layers[i].kv_heads);
        if (!c.layers[i].ffn_none) CHECK(b.ffn.d_ff == c.layers[i].ffn_width);
      }
      if (f == prune_format::decilm) {
        CHECK(cfg["model_type"] == "nemotron-nas");
        CHECK(cfg["architectures"] == json::array({"DeciLMForCausalLM"}));
        REQUIRE(cfg["block_configs"].size() == cfg["num_hidden_layers"].get<std::size_t>());
        for (const json& e : cfg["block_configs"]) {
          if (!e["attention"]["no_op"].get<bool>()) CHECK(4 % e["attention"]["n_heads_in_group"].get<int64_t>() == 0);
          if (!e["ffn"]["no_op"].get<bool>()) CHECK(e["ffn"].contains("ffn_mult")); // every 256 multiple has one
        }
      }
      if (f == prune_format::per_layer && cfg.contains("per_layer_config"))
        for (const auto& [k, o] : cfg["per_layer_config"].items()) {
          const int64_t h = o.value("num_attention_heads", int64_t(4)), kv = o.value("num_key_value_heads", int64_t(2));
          CHECK(h % kv == 0);
          if (o.contains("intermediate_size")) CHECK(o["intermediate_size"].get<int64_t>() % 256 == 0);
        }
    });
  }
}

TEST_CASE("prune emission: DeciLM ffn_mult gives the width exactly", "[prune]") {
  // Against DeciLM's find_multiple(int(2 m H / 3), 256) written out by hand.
  for (int64_t H : {256, 4096, 8192, 5120}) {
    for (int64_t w = 256; w <= 4 * H; w += 256) {
      const double m = decilm_ffn_mult(w, H);
      REQUIRE(m > 0);
      const int64_t x = int64_t(2 * m * double(H) / 3);
      CHECK((x % 256 == 0 ? x : x + 256 - x % 256) == w);
    }
  }
  CHECK(decilm_ffn_mult(28672, 8192) == 5.25); // Llama-3.1-70B's own width (Nemotron-51B's 5.25)
  CHECK(decilm_ffn_mult(300, 256) == 0);       // not a multiple of 256: intermediate_size instead
}

TEST_CASE("prune on bundled configs: round trip and identical-group speed path", "[prune]") {
  for (const char* name : {"llama-3.1-70b.json", "llama-3-8b.json", "mistral-7b.json", "qwen3-8b.json"}) {
    INFO(name);
    const json raw = io::read_json_file(configs + name, "test");
    const hf_model m = read_hf_config(raw);
    for (prune_format f : {prune_format::decilm, prune_format::per_layer, prune_format::nsc}) {
      prune_space_settings ss;
      ss.format = f;
      ss.load.seq_len = 8192;
      ss.load.batch = 8;
      const prune_space sp = make_prune_space(m.spec, ss);
      CHECK(sp.distinct_layers == 1);
      prune_search_settings s;
      s.budgets = {{prune_cost::params, int64_t(0.6 * double(search_prune(sp).unpruned.totals.cost[0]))}};
      if (f != prune_format::nsc) s.budgets.push_back({prune_cost::kv_bytes, 4 * (int64_t(1) << 30)}); // nsc: attention fixed
      const prune_search_result r = search_prune(sp, s);
      REQUIRE(r.best);
      CHECK(r.info.identical);
      CHECK(r.best->totals.cost[0] <= s.budgets[0].limit);
      if (s.budgets.size() > 1) CHECK(r.best->totals.cost[4] <= s.budgets[1].limit);
      const json cfg = prune_emit_config(raw, sp, *r.best);
      if (std::string(name) == "qwen3-8b.json" && f == prune_format::decilm) // q_norm / k_norm: not DeciLM's
        CHECK_THROWS_WITH(prune_verify_config(cfg, sp, *r.best), Catch::Contains("decilm config does not express"));
      else
        CHECK_NOTHROW(prune_verify_config(cfg, sp, *r.best));
    }
  }
}

TEST_CASE("prune: formats that cannot express a model, infeasible envelopes and bad settings", "[prune]") {
  // Gemma 2's head_dim 256 != hidden / heads = 288: DeciLM (head_dim = hidden / heads) cannot.
  const json gemma = io::read_json_file(configs + "gemma-2-2b.json", "test");
  const hf_model g = read_hf_config(gemma);
  prune_space_settings ss;
  const prune_space sp = make_prune_space(g.spec, ss);
  const prune_search_result r = search_prune(sp);
  REQUIRE(r.best);
  CHECK_THROWS_WITH(prune_verify_config(prune_emit_config(gemma, sp, *r.best), sp, *r.best),
                    Catch::Contains("nsc::prune_verify_config: the decilm config does not express this model"));
  { // a family that ties its head by default (Ernie4_5Config: tie_word_embeddings = True) goes out as
    // DeciLM (default untied) with the tying stated: the read-back has the search's params
    json e = io::read_json_file(configs + "ernie-4.5-0.3b-pt.json", "test");
    e.erase("tie_word_embeddings");
    e.erase("head_dim"); // DeciLM's head_dim is hidden / heads
    const prune_space se = make_prune_space(read_hf_config(e).spec, ss);
    prune_search_settings half;
    half.budgets = {{prune_cost::params, 250000000}};
    const prune_search_result re = search_prune(se, half);
    REQUIRE(re.best);
    const json cfg = prune_emit_config(e, se, *re.best);
    CHECK(cfg["tie_word_embeddings"] == true);
    CHECK_NOTHROW(prune_verify_config(cfg, se, *re.best));
  }
  // per-layer of a family without per_layer_config (gpt2): refused by name before anything is written.
  const json gpt2 = io::read_json_file(configs + "gpt2.json", "test");
  ss.format = prune_format::per_layer;
  const prune_space sg = make_prune_space(read_hf_config(gpt2).spec, ss);
  prune_search_settings one;
  one.budgets = {{prune_cost::params, 100000000}};
  const prune_search_result rg = search_prune(sg, one);
  REQUIRE(rg.best);
  CHECK_THROWS_WITH(prune_emit_config(gpt2, sg, *rg.best),
                    Catch::Contains("nsc::prune_emit_config: the per-layer format writes transformers' "
                                    "per_layer_config, which model_type gpt2 does not read; use --emit-format nsc"));

  // Infeasible: the budget named with the smallest value reachable.
  const hf_model m = read_hf_config(tiny_llama());
  const prune_space t = make_prune_space(m.spec, settings(prune_format::decilm));
  prune_search_settings s;
  s.budgets = {{prune_cost::kv_bytes, 1000000}, {prune_cost::params, 10}};
  const prune_search_result x = search_prune(t, s);
  CHECK_FALSE(x.best);
  REQUIRE(x.shortfalls.size() == 1);
  CHECK(x.shortfalls[0].cost == prune_cost::params);
  CHECK(x.shortfalls[0].smallest == t.fixed[0]); // every sublayer no-op: embeddings, head, final norm
  // With no-op sublayers the all-no-op model is the smallest in every cost at once; without
  // them, a jointly infeasible envelope has no answer and no single shortfall.
  prune_space_settings keep = settings(prune_format::decilm);
  keep.no_op = false;
  const prune_space k = make_prune_space(m.spec, keep);
  const brute bk = enumerate(k);
  int64_t min_p = INT64_MAX;
  for (const auto& tt : bk.all) min_p = std::min(min_p, tt.cost[0]);
  s.budgets = {{prune_cost::params, min_p}, {prune_cost::kv_bytes, 0}};
  const prune_search_result y = search_prune(k, s);
  CHECK_FALSE(y.best);
  REQUIRE(y.shortfalls.size() == 1); // KV 0 needs every attention removed
  CHECK(y.shortfalls[0].cost == prune_cost::kv_bytes);
  CHECK(y.shortfalls[0].smallest > 0);
  // Errors.
  prune_space_settings bad = settings(prune_format::decilm);
  bad.ffn_multiple = 0;
  CHECK_THROWS_WITH(make_prune_space(m.spec, bad), Catch::Contains("make_prune_space: ffn_multiple must be >= 1"));
  bad = settings(prune_format::decilm);
  bad.tp = 0;
  CHECK_THROWS_WITH(make_prune_space(m.spec, bad), Catch::Contains("tp must be >= 1"));
  bad = settings(prune_format::decilm);
  bad.head_step = -1;
  CHECK_THROWS_WITH(make_prune_space(m.spec, bad), Catch::Contains("head_step must be >= 0"));
  bad = settings(prune_format::decilm);
  bad.min_ffn = -1;
  CHECK_THROWS_WITH(make_prune_space(m.spec, bad), Catch::Contains("min_ffn must be >= 0"));
  bad = settings(prune_format::decilm);
  bad.load.batch = 0;
  CHECK_THROWS_WITH(make_prune_space(m.spec, bad), Catch::Contains("batch must be >= 1"));
  transformer_spec empty = m.spec;
  empty.blocks.clear();
  CHECK_THROWS_WITH(make_prune_space(empty, settings(prune_format::decilm)), Catch::Contains("at least one layer"));
  s.budgets = {{prune_cost::params, -1}};
  CHECK_THROWS_WITH(search_prune(t, s), Catch::Contains("search_prune: budget limits must be >= 0"));
  s.budgets = {{prune_cost::params, 1000000000}, {prune_cost::params, 5}};
  CHECK_THROWS_WITH(search_prune(t, s), Catch::Contains("a cost is budgeted twice"));
  CHECK_THROWS_WITH(parse_prune_format("gguf"), Catch::Contains("expected decilm, per-layer or nsc"));
  prune_candidate short_c;
  CHECK_THROWS_WITH(prune_apply(t, short_c), Catch::Contains("one choice per layer"));
  CHECK_THROWS_WITH(prune_emit_config(tiny_llama(), t, short_c), Catch::Contains("one choice per layer"));
}

// =============================================================================================
// Mixture of experts: experts kept per layer (top-k unchanged, the router shrinks), expert width
// =============================================================================================

TEST_CASE("prune space MoE: expert counts x widths, closed-form costs, settings", "[prune][moe]") {
  const hf_model m = read_hf_config(tiny_mixtral());
  REQUIRE(m.spec.blocks[1].ffn.n_experts == 3); // per_layer_config's num_local_experts read
  prune_space_settings ss = settings(prune_format::decilm);
  ss.ffn_multiple = 128;
  const prune_space sp = make_prune_space(m.spec, ss);
  CHECK(sp.distinct_layers == 2);
  // Layer 0: E' in {4, 3, 2} (>= top-2) x widths {256, 128}, model's own first, then no-op.
  const auto& f0 = sp.layers[0].ffn;
  REQUIRE(f0.size() == 7);
  const std::vector<std::pair<int64_t, int64_t>> want{{4, 256}, {4, 128}, {3, 256}, {3, 128}, {2, 256}, {2, 128}};
  const int64_t d = 128, T = ss.load.seq_len;
  for (std::size_t j = 0; j < want.size(); ++j) {
    INFO("option " << j);
    const auto [e, w] = want[j];
    CHECK(f0[j].experts == e);
    CHECK(f0[j].width == w);
    // Closed forms (Mixtral: SwiGLU experts 3 d w each, router Linear(d, E') without bias, one
    // RMSNorm of d per sublayer): every expert copy counted in params and memory, top-2 active.
    CHECK(f0[j].cost[0] == 3 * d * w * e + d * e + d);
    CHECK(f0[j].cost[1] == f0[j].cost[0]);
    CHECK(f0[j].cost[2] == 3 * d * w * 2 + d * e + d);
    CHECK(f0[j].cost[3] == 2 * T * (3 * d * w * 2 + d * e)); // FLOPs: the router shrinks, k experts run
    CHECK(f0[j].cost[4] == 0);                               // KV unaffected by the FFN
    CHECK(f0[j].cost[5] == 2 * f0[j].cost[0]);               // bf16 weights
  }
  CHECK(f0.back().none);
  // NSC counts every expert copy: dropping one expert of width w removes exactly one copy of its
  // three matrices' scores (and shrinks the router).
  CHECK(f0[0].nsc > f0[2].nsc);
  CHECK(f0[2].nsc > f0[4].nsc);
  CHECK((f0[0].nsc - f0[2].nsc) == Approx(f0[2].nsc - f0[4].nsc).epsilon(1e-3));
  // Layer 1 (3 experts): {3, 2} x {256, 128}.
  CHECK(sp.layers[1].ffn.size() == 5);
  CHECK(sp.layers[1].ffn[0].experts == 3);
  // Never fewer experts than top-k; min_experts, expert_step, ep and expert_width narrow it.
  for (const auto& l : sp.layers)
    for (const auto& o : l.ffn)
      if (!o.none) CHECK(o.experts >= 2);
  auto counts = [](const prune_space& x, std::size_t layer) {
    std::vector<int64_t> v;
    for (const auto& o : x.layers[layer].ffn)
      if (!o.none && std::find(v.begin(), v.end(), o.experts) == v.end()) v.push_back(o.experts);
    return v;
  };
  prune_space_settings t = ss;
  t.min_experts = 3;
  CHECK(counts(make_prune_space(m.spec, t), 0) == std::vector<int64_t>{4, 3});
  t = ss;
  t.expert_step = 2;
  CHECK(counts(make_prune_space(m.spec, t), 0) == std::vector<int64_t>{4, 2});
  t = ss;
  t.ep = 2;
  CHECK(counts(make_prune_space(m.spec, t), 0) == std::vector<int64_t>{4, 2});
  CHECK(counts(make_prune_space(m.spec, t), 1) == std::vector<int64_t>{3, 2}); // the model's own always
  t = ss;
  t.expert_step = 0;
  CHECK(counts(make_prune_space(m.spec, t), 0) == std::vector<int64_t>{4});
  t = ss;
  t.expert_width = false;
  const prune_space kw = make_prune_space(m.spec, t);
  REQUIRE(kw.layers[0].ffn.size() == 4);
  for (const auto& o : kw.layers[0].ffn)
    if (!o.none) CHECK(o.width == 256);
  // Bad settings are named.
  t = ss;
  t.expert_step = -1;
  CHECK_THROWS_WITH(make_prune_space(m.spec, t), Catch::Contains("make_prune_space: expert_step must be >= 0"));
  t = ss;
  t.min_experts = -2;
  CHECK_THROWS_WITH(make_prune_space(m.spec, t), Catch::Contains("min_experts must be >= 0"));
  t = ss;
  t.ep = 0;
  CHECK_THROWS_WITH(make_prune_space(m.spec, t), Catch::Contains("ep (expert-parallel degree) must be >= 1"));
  // A hostile expert count or width is refused before anything is built, with its size.
  transformer_spec huge = m.spec;
  huge.blocks[2].ffn.n_experts = int64_t(1) << 40;
  CHECK_THROWS_WITH(make_prune_space(huge, ss),
                    Catch::Contains("make_prune_space: layer 2's FFN would have more than 65536 options"));
  t = ss;
  t.expert_step = 0; // the count kept: 3 widths only
  CHECK(make_prune_space(huge, t).layers[2].ffn.size() == 3);
  huge = m.spec;
  huge.blocks[0].ffn.n_experts = 0;
  huge.blocks[0].ffn.top_k = 0;
  huge.blocks[0].ffn.d_ff = int64_t(1) << 30; // a dense width of 2^30 on a grid of 128: 8M widths
  CHECK_THROWS_WITH(make_prune_space(huge, ss), Catch::Contains("layer 0's FFN would have more than 65536 options"));
  t = ss;
  t.ffn_multiple = 1;  // 2^40 widths: refused before one is listed (the list once ended in bad_alloc)
  huge.blocks[0].ffn.d_ff = int64_t(1) << 40;
  CHECK_THROWS_WITH(make_prune_space(huge, t), Catch::Contains("layer 0's FFN would have more than 65536 options"));
  // per-layer heads: 200,000 heads and KV heads (every k of every h was tried: 43 s) are refused
  // once the grid passes 65,536 options, before any is scored
  huge = m.spec;
  t = settings(prune_format::per_layer);
  huge.blocks[0].attention.n_heads = 200000;
  huge.blocks[0].attention.n_kv_heads = 200000;
  huge.blocks[0].attention.head_dim = 1;
  CHECK_THROWS_WITH(make_prune_space(huge, t),
                    Catch::Contains("layer 0's attention would have more than 65536 options (heads x KV heads x LoRA ranks"));
}

TEST_CASE("prune search MoE: exact optimum against brute force, every format", "[prune][moe]") {
  const hf_model m = read_hf_config(tiny_mixtral());
  for (prune_format f : {prune_format::decilm, prune_format::nsc}) {
    INFO(to_string(f));
    prune_space_settings ss = settings(f);
    ss.ffn_multiple = 128;
    check_against_brute_force(make_prune_space(m.spec, ss));
  }
  // per-layer (query heads too) on 2 layers; and a Qwen2-MoE with a dense layer and a shared expert.
  json two = tiny_mixtral();
  two["num_hidden_layers"] = 2;
  prune_space_settings pl = settings(prune_format::per_layer);
  pl.ffn_multiple = 128;
  check_against_brute_force(make_prune_space(read_hf_config(two).spec, pl));
  const hf_model q = read_hf_config(tiny_qwen_moe());
  REQUIRE(q.spec.blocks[0].ffn.n_experts == 0);
  REQUIRE(q.spec.blocks[1].ffn.shared_d_ff == 192);
  for (prune_format f : {prune_format::per_layer, prune_format::nsc}) {
    INFO("qwen2_moe " << to_string(f));
    prune_space_settings ss = settings(f);
    ss.ffn_multiple = 128;
    ss.head_step = 0;
    check_against_brute_force(make_prune_space(q.spec, ss));
  }
}

TEST_CASE("prune emission MoE: every format reads back to exactly the searched model", "[prune][moe]") {
  for (const json& raw : {tiny_mixtral(), tiny_qwen_moe()}) {
    const hf_model m = read_hf_config(raw);
    const bool qwen = raw["model_type"] == "qwen2_moe";
    for (prune_format f : {prune_format::decilm, prune_format::per_layer, prune_format::nsc}) {
      INFO(raw["model_type"] << " " << to_string(f));
      prune_space_settings ss = settings(f);
      ss.ffn_multiple = 128;
      ss.head_step = 0;
      const prune_space sp = make_prune_space(m.spec, ss);
      std::size_t n = 0, checked = 0, refused = 0;
      for_each_selection(sp, [&](const prune_candidate& c0) {
        if (n++ % 5 != 0) return;
        prune_candidate c = c0;
        c.totals = prune_totals(prune_apply(sp, c), sp.settings);
        const json cfg = prune_emit_config(raw, sp, c);
        if (qwen && f == prune_format::decilm) { // no q/k/v biases, no shared expert in DeciLM / Puzzletron
          try {
            prune_verify_config(cfg, sp, c);
          } catch (const std::invalid_argument& e) {
            CHECK_THAT(e.what(), Catch::Contains("nsc::prune_verify_config: the decilm config does not express"));
            ++refused;
          }
          return;
        }
        CHECK_NOTHROW(prune_verify_config(cfg, sp, c));
        const hf_model back_runs = read_hf_config(cfg);
        const transformer_spec back{expand(back_runs.spec)}; // one block per layer (runs expanded)
        REQUIRE(back.blocks.size() == c.layers.size());
        for (std::size_t i = 0; i < back.blocks.size(); ++i) {
          const ffn_spec& e = back.blocks[i].ffn;
          if (c.layers[i].ffn_none) {
            CHECK(e.kind == ffn_kind::none);
            continue;
          }
          CHECK(e.n_experts == c.layers[i].experts);
          CHECK(e.d_ff == c.layers[i].ffn_width);
          if (e.n_experts > 0) CHECK(e.top_k == 2);
        }
        if (f == prune_format::decilm)
          for (std::size_t i = 0; i < cfg["block_configs"].size(); ++i) {
            const json& ff = cfg["block_configs"][i]["ffn"];
            if (!c.layers[i].ffn_none)
              CHECK(ff["moe"] == json{{"num_local_experts", c.layers[i].experts},
                                      {"num_experts_per_tok", 2},
                                      {"expert_intermediate_dim", c.layers[i].ffn_width}});
          }
        if (f == prune_format::per_layer && cfg.contains("per_layer_config"))
          for (const auto& [k, o] : cfg["per_layer_config"].items())
            for (const auto& [key, v] : o.items()) {
              (void)v;
              if (qwen) CHECK(key != "num_local_experts");
              else CHECK(key != "num_experts");
            }
        if (f == prune_format::nsc) CHECK(cfg["expert_counts"].size() == back.blocks.size());
        ++checked;
      });
      if (qwen && f == prune_format::decilm) CHECK(refused > 0);
      else CHECK(checked > 2);
    }
  }
}

TEST_CASE("MoE readers: the rules of expert counts and widths are enforced and named", "[prune][moe]") {
  auto fails = [](const json& cfg, const std::string& msg) {
    CHECK_THROWS_WITH(read_hf_config(cfg), Catch::Contains(msg));
  };
  // top-k routing needs at least k experts, in every format.
  json pl = tiny_mixtral();
  pl["per_layer_config"] = {{"2", {{"num_local_experts", 1}}}};
  fails(pl, "field 'per_layer_config.2.num_local_experts' must be >= num_experts_per_tok = 2 (top-k routing needs k experts) (got 1)");
  pl["per_layer_config"] = {{"0", {{"intermediate_size", 64}}}}; // mixtral: the experts' width
  CHECK(read_hf_config(pl).spec.blocks[0].ffn.d_ff == 64);
  pl["per_layer_config"] = {{"0", {{"moe_intermediate_size", 64}}}};
  fails(pl, "'per_layer_config.0.moe_intermediate_size' is not a supported per_layer_config override (num_attention_heads, "
            "num_key_value_heads, head_dim, intermediate_size, skip, num_local_experts, intermediate_size)");
  json q = tiny_qwen_moe();
  q["per_layer_config"] = {{"0", {{"num_experts", 4}}}};
  fails(q, "field 'per_layer_config.0.num_experts' overrides the experts, but layer 0 has none (a dense MLP)");
  q["per_layer_config"] = {{"1", {{"num_experts", 4}, {"moe_intermediate_size", 64}}}};
  const hf_model qm = read_hf_config(q);
  CHECK(qm.spec.blocks[1].ffn.n_experts == 4);
  CHECK(qm.spec.blocks[1].ffn.d_ff == 64);
  CHECK(qm.spec.blocks[0].ffn.d_ff == 384);
  json ex = tiny_mixtral();
  ex["expert_counts"] = {4, 1, 4};
  fails(ex, "field 'expert_counts[1]' must be an integer >= num_experts_per_tok = 2 (top-k routing needs at least k "
            "experts) (got 1)");
  ex["expert_counts"] = {4, 4};
  fails(ex, "field 'expert_counts' must be a list of 3 integers (one per layer)");
  json eq = tiny_qwen_moe();
  eq["expert_counts"] = {3, 3};
  fails(eq, "field 'expert_counts[0]' must be 0 (layer 0 has no experts) (got 3)");
  eq["expert_counts"] = {0, 3};
  CHECK(read_hf_config(eq).spec.blocks[1].ffn.n_experts == 3);
  // DeciLM / Puzzletron moe blocks.
  json deci = {{"model_type", "nemotron-nas"}, {"hidden_size", 128}, {"num_hidden_layers", 1},
               {"num_attention_heads", 4},     {"vocab_size", 300},
               {"block_configs", {{{"attention", {{"n_heads_in_group", 2}}},
                                   {"ffn", {{"moe", {{"num_local_experts", 2}, {"num_experts_per_tok", 3},
                                                     {"expert_intermediate_dim", 64}}}}}}}}};
  fails(deci, "field 'block_configs[0].ffn.moe.num_experts_per_tok' must be <= num_local_experts = 2 (got 3)");
  deci["block_configs"][0]["ffn"]["moe"]["num_experts_per_tok"] = 1;
  const hf_model dm = read_hf_config(deci);
  CHECK(dm.spec.blocks[0].ffn.n_experts == 2);
  CHECK(dm.spec.blocks[0].ffn.top_k == 1);
  CHECK(dm.spec.blocks[0].ffn.d_ff == 64);
  deci["block_configs"][0]["ffn"]["moe"].erase("expert_intermediate_dim");
  fails(deci, "field 'block_configs[0].ffn.moe.expert_intermediate_dim' is required");
  deci["block_configs"][0]["ffn"]["moe"]["expert_intermediate_dim"] = 64;
  deci["block_configs"][0]["ffn"]["moe"]["shared_expert_intermediate_dim"] = 64;
  fails(deci, "field 'block_configs[0].ffn.moe.shared_expert_intermediate_dim' is not a supported block_configs field");
  deci["block_configs"][0]["ffn"]["moe"].erase("shared_expert_intermediate_dim");
  deci["block_configs"][0]["ffn"]["intermediate_size"] = 512;
  fails(deci, "field 'block_configs[0].ffn.moe' cannot be combined with intermediate_size or ffn_mult");
  deci["block_configs"][0]["ffn"]["moe"] = 5;
  fails(deci, "field 'block_configs[0].ffn.moe' must be an object");
}

TEST_CASE("prune MoE on Mixtral-8x7B: experts cut under memory, round trip", "[prune][moe]") {
  const json raw = io::read_json_file(configs + "mixtral-8x7b.json", "test");
  const hf_model m = read_hf_config(raw);
  for (prune_format f : {prune_format::decilm, prune_format::per_layer, prune_format::nsc}) {
    INFO(to_string(f));
    prune_space_settings ss;
    ss.format = f;
    ss.load.seq_len = 4096;
    ss.load.batch = 4;
    ss.expert_width = false; // experts only: the count must fall
    const prune_space sp = make_prune_space(m.spec, ss);
    prune_search_settings s;
    s.budgets = {{prune_cost::memory, 60'000'000'000}};
    const prune_search_result r = search_prune(sp, s);
    REQUIRE(r.best);
    CHECK(r.best->totals.cost[5] <= 60'000'000'000);
    int64_t experts = 0;
    for (const auto& l : r.best->layers) experts += l.ffn_none ? 0 : l.experts;
    CHECK(experts < 8 * 32);
    CHECK(r.best->totals.cost[2] < r.unpruned.totals.cost[2]); // active params: attention and router only
    CHECK_NOTHROW(prune_verify_config(prune_emit_config(raw, sp, *r.best), sp, *r.best));
  }
}

TEST_CASE("prune search: a front of option sums equals the re-scored front", "[prune]") {
  const hf_model m = read_hf_config(tiny_mixtral());
  prune_space_settings ss = settings(prune_format::decilm);
  ss.ffn_multiple = 128;
  const prune_space sp = make_prune_space(m.spec, ss);
  prune_search_settings s;
  s.budgets = {{prune_cost::params, INT64_MAX / 4}, {prune_cost::kv_bytes, INT64_MAX / 4}};
  s.front = true;
  const prune_search_result a = search_prune(sp, s);
  s.rescore_front = false;
  const prune_search_result b = search_prune(sp, s);
  REQUIRE(a.front.size() > 10);
  REQUIRE(a.front.size() == b.front.size());
  for (std::size_t i = 0; i < a.front.size(); ++i) {
    CHECK(a.front[i].totals.cost == b.front[i].totals.cost);
    CHECK(b.front[i].totals.nsc == Approx(a.front[i].totals.nsc).epsilon(1e-12));
    CHECK(b.front[i].totals.flops_per_token == a.front[i].totals.flops_per_token);
  }
}

TEST_CASE("prune search: per-GPU memory and roofline times at tp 2 add up and are exact (brute force)", "[prune][serving]") {
  // decilm at tp 2 on an L4: KV heads 2 (sharded) or 1 (replicated on both GPUs), widths 768 /
  // 512 / 256, or no-op; 12^3 selections, each re-served whole (nsc::serve) for the brute force.
  const hf_model m = read_hf_config(tiny_llama());
  prune_space_settings s = settings(prune_format::decilm);
  s.tp = 2;
  serving_settings sv;
  sv.gpu = *find_gpu("L4");
  s.serving = sv;
  const prune_space sp = make_prune_space(m.spec, s);
  for_each_selection(sp, [&](const prune_candidate& c) {
    const prune_totals_t t = prune_totals(prune_apply(sp, c), sp.settings);
    CHECK(option_sum(sp, c) == t.cost);
    CHECK(t.cost[std::size_t(prune_cost::memory)] == 2 * t.cost[std::size_t(prune_cost::memory_per_gpu)]);
    CHECK(t.cost[std::size_t(prune_cost::decode_time)] > 0);
  });
  check_serving_budgets(sp, {0.5, 0.4, 0.5, 0.3, 0.6, 0.7});
  // Minimums: no layer below 2 KV heads; FFN floors relative to each layer's own width.
  prune_space_settings f = settings(prune_format::decilm);
  f.min_kv_heads = 2;
  f.min_ffn_ratio = 0.5; // layer 1's own width 512: >= 256; the others 768: >= 384 -> 512
  const prune_space fl = make_prune_space(m.spec, f);
  for (const auto& l : fl.layers)
    for (const auto& o : l.attention)
      if (!o.none) CHECK(o.kv_heads == 2);
  std::vector<int64_t> w0, w1;
  for (const auto& o : fl.layers[0].ffn)
    if (!o.none) w0.push_back(o.width);
  for (const auto& o : fl.layers[1].ffn)
    if (!o.none) w1.push_back(o.width);
  CHECK(w0 == std::vector<int64_t>{768, 512});
  CHECK(w1 == std::vector<int64_t>{512, 256});
  f.min_ffn_ratio = 1.5;
  CHECK_THROWS_WITH(make_prune_space(m.spec, f), Catch::Contains("min_ffn_ratio must be in [0, 1]"));
}

namespace {

/// tiny_llama without its per-layer override: 3 identical layers (FFN 768).
json tiny_llama_uniform() {
  json j = tiny_llama();
  j.erase("per_layer_config");
  return j;
}

/// Every selection of the space that `keep` allows, totals from the whole pruned model.
brute enumerate_if(const prune_space& sp, const std::function<bool(const prune_candidate&)>& keep) {
  brute out;
  for_each_selection(sp, [&](const prune_candidate& c) {
    if (keep(c)) out.all.push_back(prune_totals(prune_apply(sp, c), sp.settings));
  });
  return out;
}

} // namespace

TEST_CASE("prune engines: the space keeps to what each engine runs, exact against brute force", "[prune][engine]") {
  const json raw = tiny_llama();
  const hf_model m = read_hf_config(raw);
  prune_space_settings base = settings(prune_format::decilm);
  base.ffn_multiple = 128; // a grid finer than DeciLM's 256: half its widths have no ffn_mult
  for (prune_engine e : {prune_engine::vllm, prune_engine::sglang, prune_engine::trtllm, prune_engine::mlx,
                         prune_engine::llama_cpp, prune_engine::transformers}) {
    INFO(to_string(e));
    const prune_space sp = make_prune_space(m.spec, prune_engine_settings(base, e));
    CHECK(sp.settings.format == prune_format::decilm);
    for (const prune_layer_space& l : sp.layers)
      for (const prune_ffn_option& o : l.ffn)
        if (!o.none) CHECK((o.width % 256 == 0 && decilm_ffn_mult(o.width, 256, 6) > 0));
    // layer 0 keeps attention in llama.cpp and mlx-lm, not elsewhere
    bool first_none = false;
    for (const prune_attention_option& o : sp.layers[0].attention) first_none = first_none || o.none;
    CHECK(first_none == !(e == prune_engine::llama_cpp || e == prune_engine::mlx));
    CHECK(sp.layers[0].ffn.size() == 3 + 1); // 768, 512, 256, no-op (640, 384, 128 dropped)
    // Exact: every allowed selection (llama.cpp: no attention without its FFN) by brute force.
    const bool needs_ffn = e == prune_engine::llama_cpp;
    const brute b = enumerate_if(sp, [&](const prune_candidate& c) {
      for (const prune_layer_choice& l : c.layers)
        if (needs_ffn && !l.attention_none && l.ffn_none) return false;
      return true;
    });
    const prune_totals_t full = prune_totals(sp.spec, sp.settings);
    for (double frac : {0.2, 0.45, 0.7, 1.0})
      for (prune_cost k : {prune_cost::params, prune_cost::memory, prune_cost::kv_bytes}) {
        const std::vector<prune_budget> budgets{{k, int64_t(frac * double(full.cost[std::size_t(k)]))}};
        prune_search_settings s;
        s.budgets = budgets;
        const prune_search_result r = search_prune(sp, s);
        const auto want = brute_best(b, budgets);
        REQUIRE(bool(r.best) == bool(want));
        if (!want) continue;
        CHECK(r.best->totals.nsc == Approx(*want).epsilon(1e-12));
        const transformer_spec pruned = prune_apply(sp, *r.best);
        CHECK(prune_engine_refusal(pruned, e).empty());
        // The config holds only the keys the engine reads and reads back exactly.
        const json cfg = prune_emit_config(raw, sp, *r.best);
        CHECK_NOTHROW(prune_verify_config(cfg, sp, *r.best));
        for (const json& blk : cfg["block_configs"]) {
          for (const auto& [key, v] : blk["ffn"].items())
            CHECK((key == "no_op" || key == "replace_with_linear" || key == "sparsify" || key == "ffn_mult"));
          CHECK(blk["ffn"].contains("ffn_mult")); // llama.cpp's converter reads it (null: no FFN)
          CHECK(blk["attention"].contains("n_heads_in_group"));
          if (!blk["ffn"]["ffn_mult"].is_null()) CHECK(blk["ffn"]["ffn_mult"].dump().find('.') != std::string::npos);
        }
      }
    // Front and k best map the joint groups back to sublayers.
    prune_search_settings s;
    s.budgets = {{prune_cost::params, int64_t(0.6 * double(full.cost[0]))}};
    s.front = true;
    s.top = 2;
    const prune_search_result r = search_prune(sp, s);
    REQUIRE(r.best);
    for (const prune_candidate& c : r.front) CHECK(prune_engine_refusal(prune_apply(sp, c), e).empty());
    for (const prune_candidate& c : r.top) CHECK(prune_engine_refusal(prune_apply(sp, c), e).empty());
  }
  // Unchanged without an engine: the same settings as before the engines existed.
  const prune_space_settings any = prune_engine_settings(base, prune_engine::any);
  CHECK(any.ffn_mult_decimals == -1);
  CHECK(!any.attention_needs_ffn);
  CHECK(!any.keep_first_attention);
  // The model's own width without an ffn_mult (700): not offered, the unpruned row still the model.
  json odd = tiny_llama_uniform();
  odd["intermediate_size"] = 700;
  const hf_model mo = read_hf_config(odd);
  const prune_space so = make_prune_space(mo.spec, prune_engine_settings(settings(prune_format::decilm), prune_engine::vllm));
  CHECK(so.layers[0].ffn[0].width == 512);
  CHECK(search_prune(so).unpruned.totals.cost[0] == prune_totals(so.spec, so.settings).cost[0]);
  CHECK_THROWS_WITH(parse_prune_engine("ollama"), Catch::Contains("expected vllm, sglang"));
  CHECK(parse_prune_engine("llama_cpp") == prune_engine::llama_cpp);
}

TEST_CASE("prune engines: models an engine cannot run are refused with the reason", "[prune][engine]") {
  auto refusal = [](const char* name, prune_engine e) {
    return prune_engine_refusal(read_hf_config(io::read_json_file(configs + name, "test")).spec, e, false);
  };
  CHECK_THAT(refusal("qwen3-8b.json", prune_engine::vllm), Catch::Contains("q_norm / k_norm"));
  CHECK_THAT(refusal("qwen3-8b.json", prune_engine::any), Catch::Contains("q_norm / k_norm"));
  CHECK_THAT(refusal("deepseek-v2-lite.json", prune_engine::sglang), Catch::Contains("multi-head latent attention"));
  CHECK_THAT(refusal("mixtral-8x7b.json", prune_engine::mlx), Catch::Contains("mixture of experts"));
  CHECK(refusal("mixtral-8x7b.json", prune_engine::any).empty()); // Puzzletron's moe entry
  CHECK_THAT(refusal("qwen2-7b.json", prune_engine::trtllm), Catch::Contains("attention biases"));
  CHECK_THAT(refusal("gemma-2-9b.json", prune_engine::vllm), Catch::Contains("hidden / heads"));
  CHECK_THAT(refusal("mistral-7b.json", prune_engine::llama_cpp), Catch::Contains("sliding-window"));
  for (prune_engine e : {prune_engine::vllm, prune_engine::sglang, prune_engine::trtllm, prune_engine::mlx,
                         prune_engine::llama_cpp, prune_engine::transformers}) {
    INFO(to_string(e));
    CHECK(refusal("llama-3.1-70b.json", e).empty());
    CHECK(refusal("llama-3-8b.json", e).empty());
  }
  // Per-layer shapes: llama.cpp loses a lone attention's output; layer 0 needs attention.
  transformer_spec s = expand(read_hf_config(tiny_llama_uniform()).spec);
  s.blocks[1].ffn.kind = ffn_kind::none;
  s.blocks[1].n_norms = 1;
  CHECK_THAT(prune_engine_refusal(s, prune_engine::llama_cpp), Catch::Contains("layer 1: attention without an FFN"));
  CHECK(prune_engine_refusal(s, prune_engine::vllm).empty());
  s = expand(read_hf_config(tiny_llama_uniform()).spec);
  s.blocks[0].attention.kind = attention_kind::none;
  s.blocks[0].n_norms = 1;
  CHECK_THAT(prune_engine_refusal(s, prune_engine::mlx), Catch::Contains("layer 0"));
  CHECK(prune_engine_refusal(s, prune_engine::sglang).empty());
}

TEST_CASE("prune uniform: exact against every uniform model, own-architecture round trip", "[prune][uniform]") {
  const json raw = tiny_llama_uniform();
  const hf_model m = read_hf_config(raw);
  const prune_space sp = make_prune_space(m.spec, settings(prune_format::per_layer));
  const std::size_t L = sp.layers.size();
  // Brute force: every (attention option, FFN option) of layer 0 kept in layers < d, the rest removed.
  struct model {
    prune_candidate c;
    prune_totals_t t;
  };
  std::vector<model> all;
  const prune_layer_space& l0 = sp.layers[0];
  std::size_t an = 0, fn_ = 0;
  for (std::size_t j = 0; j < l0.attention.size(); ++j) an += l0.attention[j].none ? j : 0;
  for (std::size_t j = 0; j < l0.ffn.size(); ++j) fn_ += l0.ffn[j].none ? j : 0;
  for (std::size_t ai = 0; ai < l0.attention.size(); ++ai)
    for (std::size_t fi = 0; fi < l0.ffn.size(); ++fi) {
      if (l0.attention[ai].none || l0.ffn[fi].none) continue;
      for (std::size_t d = 1; d <= L; ++d) {
        model x;
        for (std::size_t i = 0; i < L; ++i)
          x.c.layers.push_back(i < d ? prune_choice(sp.layers[i], ai, fi) : prune_choice(sp.layers[i], an, fn_));
        x.t = prune_totals(prune_apply(sp, x.c), sp.settings);
        all.push_back(x);
      }
    }
  const prune_totals_t full = prune_totals(sp.spec, sp.settings);
  for (double frac : {0.1, 0.3, 0.5, 0.8, 1.0})
    for (prune_cost k : {prune_cost::params, prune_cost::prefill_flops, prune_cost::kv_bytes, prune_cost::memory}) {
      INFO(to_string(k) << " at " << frac);
      prune_search_settings s;
      s.budgets = {{k, int64_t(frac * double(full.cost[std::size_t(k)]))}};
      const prune_search_result r = search_prune_uniform(sp, s);
      std::optional<double> want;
      for (const model& x : all)
        if (x.t.cost[std::size_t(k)] <= s.budgets[0].limit && (!want || x.t.nsc > *want)) want = x.t.nsc;
      REQUIRE(bool(r.best) == bool(want));
      CHECK(r.uniform_models == all.size());
      if (!want) {
        REQUIRE(!r.shortfalls.empty());
        continue;
      }
      CHECK(r.best->totals.nsc == Approx(*want).epsilon(1e-12));
      // Never above the per-layer optimum of the same space.
      CHECK(r.best->totals.nsc <= search_prune(sp, s).best->totals.nsc * (1 + 1e-12));
      const json cfg = prune_emit_uniform_config(raw, sp, *r.best);
      CHECK_NOTHROW(prune_verify_config(cfg, sp, *r.best, "own-architecture"));
      CHECK(cfg["model_type"] == "llama");
      CHECK(!cfg.contains("per_layer_config"));
      std::size_t depth = 0;
      for (const prune_layer_choice& c : r.best->layers) depth += c.attention_none ? 0 : 1;
      CHECK(cfg["num_hidden_layers"] == depth);
      CHECK(cfg["num_key_value_heads"] == r.best->layers[0].kv_heads);
      CHECK(cfg["intermediate_size"] == r.best->layers[0].ffn_width);
      if (r.best->layers[0].heads != 4) CHECK(cfg["head_dim"] == 64);
    }
  // --no-noop: depth kept.
  prune_space_settings keep = settings(prune_format::per_layer);
  keep.no_op = false;
  prune_search_settings s;
  s.budgets = {{prune_cost::params, int64_t(0.5 * double(full.cost[0]))}};
  const prune_search_result rk = search_prune_uniform(make_prune_space(m.spec, keep), s);
  REQUIRE(rk.best);
  for (const prune_layer_choice& c : rk.best->layers) CHECK(!c.attention_none);
  // A non-uniform candidate and a per-layer input are refused by the writer.
  prune_candidate mixed = *rk.best;
  mixed.layers[1].kv_heads = mixed.layers[0].kv_heads == 1 ? 2 : 1;
  CHECK_THROWS_WITH(prune_emit_uniform_config(raw, sp, mixed), Catch::Contains("not uniform"));
  CHECK_THROWS_WITH(prune_emit_uniform_config(tiny_llama(), sp, *rk.best), Catch::Contains("already differ"));
  s.front = true;
  CHECK_THROWS_WITH(search_prune_uniform(sp, s), Catch::Contains("one answer"));
  // Dense + MoE layers (Qwen2-MoE): one dense width, one (experts, width), read back exactly.
  const json q = tiny_qwen_moe();
  const prune_space sq = make_prune_space(read_hf_config(q).spec, settings(prune_format::per_layer));
  prune_search_settings sm;
  sm.budgets = {{prune_cost::params, int64_t(0.7 * double(prune_totals(sq.spec, sq.settings).cost[0]))}};
  const prune_search_result rq = search_prune_uniform(sq, sm);
  REQUIRE(rq.best);
  const json cq = prune_emit_uniform_config(q, sq, *rq.best);
  CHECK_NOTHROW(prune_verify_config(cq, sq, *rq.best, "own-architecture"));
}

// ---- Issue 18c: sinks (gpt_oss), chunked / NoPE layers (llama4, a multimodal wrapper), DSA ------

namespace {

/// 2 gpt_oss layers (sliding, full): hidden 64, 4 heads of 16, 2 KV heads, 4 experts of 64, top-2.
json tiny_gpt_oss() {
  return {{"model_type", "gpt_oss"},  {"hidden_size", 64},        {"intermediate_size", 64},
          {"num_hidden_layers", 2},   {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"head_dim", 16},           {"vocab_size", 100},        {"num_local_experts", 4},
          {"num_experts_per_tok", 2}, {"sliding_window", 8}};
}

/// A llama4 wrapper of 2 text layers: layer 0 dense + chunked, layer 1 MoE (3 experts) + NoPE.
json tiny_llama4_wrapper() {
  return {{"model_type", "llama4"},
          {"text_config",
           {{"model_type", "llama4_text"}, {"hidden_size", 64},          {"intermediate_size", 64},
            {"intermediate_size_mlp", 128}, {"num_hidden_layers", 2},    {"num_attention_heads", 4},
            {"num_key_value_heads", 2},     {"head_dim", 16},            {"vocab_size", 100},
            {"num_local_experts", 3},       {"num_experts_per_tok", 1},  {"interleave_moe_layer_step", 2},
            {"no_rope_layer_interval", 2},  {"attention_chunk_size", 8}}}};
}

} // namespace

TEST_CASE("prune: sinks, chunked / NoPE layers and DSA round-trip or are refused by name", "[prune][issue18]") {
  // Every 3rd selection of every space round-trips exactly through the formats that keep the model_type.
  for (const json& raw : {tiny_gpt_oss(), tiny_llama4_wrapper()}) {
    const hf_model m = read_hf_config(raw);
    const bool llama4 = raw["model_type"] == "llama4";
    for (prune_format f : {prune_format::per_layer, prune_format::nsc}) {
      if (llama4 && f == prune_format::per_layer) continue; // refused below
      INFO(raw["model_type"] << " " << to_string(f));
      prune_space_settings ss = settings(f);
      ss.ffn_multiple = 32;
      const prune_space sp = make_prune_space(m.spec, ss);
      std::size_t n = 0, checked = 0;
      for_each_selection(sp, [&](const prune_candidate& c0) {
        if (n++ % 3 != 0) return;
        prune_candidate c = c0;
        const transformer_spec pruned = prune_apply(sp, c);
        c.totals = prune_totals(pruned, sp.settings);
        const json cfg = prune_emit_config(raw, sp, c);
        CHECK_NOTHROW(prune_verify_config(cfg, sp, c));
        const transformer_spec back = expand(read_hf_config(cfg).spec);
        for (std::size_t i = 0; i < back.blocks.size(); ++i) {
          const attention_spec &a = back.blocks[i].attention, &p = pruned.blocks[i].attention;
          CHECK(a.kind == p.kind);
          if (a.attends()) { // the structure is kept with its layer
            CHECK(a.sinks == p.sinks);
            CHECK(a.chunk == p.chunk);
            CHECK(a.nope == p.nope);
            CHECK(a.sliding_window == p.sliding_window);
          }
        }
        if (llama4) CHECK(cfg["text_config"].contains("intermediate_sizes")); // written into text_config
        ++checked;
      });
      CHECK(checked >= 8); // every 3rd of 24 (llama4 nsc) to 2401 (gpt_oss per-layer) selections
    }
  }
  // Sinks follow the kept query heads: params of a gpt_oss layer with h heads.
  {
    const hf_model m = read_hf_config(tiny_gpt_oss());
    const prune_space sp = make_prune_space(m.spec, settings(prune_format::per_layer));
    bool seen = false;
    for (std::size_t a = 0; a < sp.layers[0].attention.size(); ++a) {
      const prune_attention_option& o = sp.layers[0].attention[a];
      if (o.none || o.heads != 2) continue;
      transformer_spec s = expand(m.spec);
      s.blocks[0].attention.n_heads = 2;
      s.blocks[0].attention.n_kv_heads = o.kv_heads;
      CHECK(count(make_transformer(s, 16)).other == 2 + 4); // layer 0: 2 sinks, layer 1: 4
      seen = true;
    }
    CHECK(seen);
  }
  // Refusals by name, before anything is written.
  auto first = [](const json& raw, prune_format f) {
    const hf_model m = read_hf_config(raw);
    const prune_space sp = make_prune_space(m.spec, settings(f));
    return prune_make_candidate(sp, std::vector<std::size_t>(2 * sp.layers.size(), 0));
  };
  auto space = [](const json& raw, prune_format f) { return make_prune_space(read_hf_config(raw).spec, settings(f)); };
  CHECK_THROWS_WITH(prune_emit_config(tiny_gpt_oss(), space(tiny_gpt_oss(), prune_format::decilm),
                                      first(tiny_gpt_oss(), prune_format::decilm)),
                    Catch::Contains("nsc::prune_emit_config: the decilm format cannot express attention sinks (gpt_oss); "
                                    "use --emit-format per-layer or nsc"));
  const json text = tiny_llama4_wrapper()["text_config"];
  CHECK_THROWS_WITH(prune_emit_config(text, space(text, prune_format::decilm), first(text, prune_format::decilm)),
                    Catch::Contains("the decilm format cannot express chunked attention (llama4 attention_chunk_size)"));
  CHECK_THROWS_WITH(prune_emit_config(text, space(text, prune_format::per_layer), first(text, prune_format::per_layer)),
                    Catch::Contains("the per-layer format writes transformers' per_layer_config, which model_type "
                                    "llama4_text does not read; use --emit-format nsc"));
  CHECK_THROWS_WITH(prune_emit_config(tiny_llama4_wrapper(), space(tiny_llama4_wrapper(), prune_format::decilm),
                                      first(tiny_llama4_wrapper(), prune_format::decilm)),
                    Catch::Contains("the decilm format cannot express a multimodal config"));
  json dsa = {{"model_type", "deepseek_v32"}, {"hidden_size", 64},  {"intermediate_size", 96},
              {"num_hidden_layers", 2},       {"num_attention_heads", 4}, {"vocab_size", 100},
              {"q_lora_rank", 24},            {"kv_lora_rank", 16}, {"qk_nope_head_dim", 8},
              {"qk_rope_head_dim", 4},        {"v_head_dim", 6},    {"index_n_heads", 2},
              {"index_head_dim", 8},          {"index_topk", 3}};
  CHECK_THROWS_WITH(prune_emit_config(dsa, space(dsa, prune_format::decilm), first(dsa, prune_format::decilm)),
                    Catch::Contains("the decilm format cannot express DSA sparse attention and its indexer (deepseek_v32)"));
  // nsc format: DSA kept (FFN widths pruned), reads back exactly.
  prune_space_settings sdset = settings(prune_format::nsc);
  sdset.ffn_multiple = 32;
  const prune_space sd = make_prune_space(read_hf_config(dsa).spec, sdset);
  std::size_t n = 0;
  for_each_selection(sd, [&](const prune_candidate& c0) {
    prune_candidate c = c0;
    c.totals = prune_totals(prune_apply(sd, c), sd.settings);
    CHECK_NOTHROW(prune_verify_config(prune_emit_config(dsa, sd, c), sd, c));
    ++n;
  });
  CHECK(n > 1);
}

namespace {

/// 2 layers of a Cohere block (CohereForCausalLM): one LayerNorm (weight only) before the
/// parallel attention and MLP, hidden 64, 4 heads of 16, 2 KV heads, gated MLP 192, q_norm /
/// k_norm over (heads, head_dim) and (KV heads, head_dim), tied head.
json tiny_cohere() {
  return {{"model_type", "cohere"},      {"hidden_size", 64},        {"intermediate_size", 192},
          {"num_hidden_layers", 2},      {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"vocab_size", 100},           {"layer_norm_eps", 1e-5},   {"use_qk_norm", true}};
}

/// 2 layers of Falcon-7B's block: one LayerNorm (weight and bias) before the parallel attention
/// and MLP (parallel_attn, num_ln_in_parallel_attn 1), multi_query (one KV head), hidden 64,
/// 4 heads, non-gated MLP 4 x 64, no biases, tied head.
json tiny_falcon7b() {
  return {{"model_type", "falcon"}, {"hidden_size", 64},    {"num_attention_heads", 4}, {"num_hidden_layers", 2},
          {"vocab_size", 100},      {"multi_query", true}, {"parallel_attn", true},    {"bias", false}};
}

/// Parameters of a pruned tiny_cohere / tiny_falcon7b model written out from the modeling files
/// (independent of the library): per layer q, k, v, o (and Cohere's per-head q_norm / k_norm),
/// the MLP (gated 3 d w, else 2 d w) and the one shared norm (d, or 2 d for Falcon's LayerNorm
/// with bias) while either sublayer is kept; the tied embedding and the final norm.
int64_t shared_norm_params(const prune_candidate& c, bool falcon) {
  const int64_t d = 64, hd = 16, vocab = 100, norm = falcon ? 2 * d : d;
  int64_t p = vocab * d + norm;
  for (const prune_layer_choice& l : c.layers) {
    if (!l.attention_none) {
      p += d * (l.heads + 2 * l.kv_heads) * hd + l.heads * hd * d;
      if (!falcon) p += (l.heads + l.kv_heads) * hd; // q_norm, k_norm
    }
    if (!l.ffn_none) p += (falcon ? 2 : 3) * d * l.ffn_width;
    if (!l.attention_none || !l.ffn_none) p += norm;
  }
  return p;
}

} // namespace

TEST_CASE("prune space: a norm shared by a parallel block is priced exactly (closed form, brute force)",
          "[prune][shared_norm]") {
  for (const bool falcon : {false, true}) {
    const json raw = falcon ? tiny_falcon7b() : tiny_cohere();
    const hf_model m = read_hf_config(raw);
    REQUIRE(m.spec.blocks.at(0).n_norms == 1);
    for (prune_format f : {prune_format::decilm, prune_format::per_layer, prune_format::nsc}) {
      INFO((falcon ? "falcon " : "cohere ") << to_string(f));
      prune_space_settings s = settings(f);
      s.ffn_multiple = 64;
      const prune_space sp = make_prune_space(m.spec, s);
      REQUIRE(sp.layers.size() == 2);
      CHECK(sp.layers[0].shared_norms == 1);
      CHECK(sp.layers[0].norms_per_sublayer == 0);
      // One group per layer where both sublayers may go (decilm, per-layer), two in nsc (no no-op).
      const auto pairs = prune_joint_pairs(sp);
      CHECK(pairs[0].size() == (f == prune_format::nsc ? 0 : sp.layers[0].attention.size() * sp.layers[0].ffn.size()));
      CHECK(prune_groups(sp, {prune_cost::params}).size() == (f == prune_format::nsc ? 4u : 2u));
      bool alone_a = false, alone_f = false, empty = false;
      for_each_selection(sp, [&](const prune_candidate& c) {
        const prune_totals_t t = prune_totals(prune_apply(sp, c), sp.settings);
        CHECK(t.cost[std::size_t(prune_cost::params)] == shared_norm_params(c, falcon));
        CHECK(option_sum(sp, c) == t.cost);
        for (const prune_layer_choice& l : c.layers) {
          alone_a = alone_a || (!l.attention_none && l.ffn_none);
          alone_f = alone_f || (l.attention_none && !l.ffn_none);
          empty = empty || (l.attention_none && l.ffn_none);
        }
      });
      CHECK(alone_a == (f != prune_format::nsc));
      CHECK(alone_f == (f != prune_format::nsc));
      CHECK(empty == (f != prune_format::nsc));
      check_against_brute_force(sp);
    }
  }
}

TEST_CASE("prune space: a shared norm at tp 2 with roofline times, no no-op, layer 0 kept, and the pair cap",
          "[prune][shared_norm]") {
  const hf_model m = read_hf_config(tiny_cohere());
  // Roofline times are a max(bytes, FLOPs) per sublayer: the attention beside a kept FFN is timed
  // without the norm (cost_beside_ffn), alone with it; every selection adds up and is exact.
  prune_space_settings s = settings(prune_format::per_layer);
  s.ffn_multiple = 64;
  s.tp = 2;
  serving_settings sv;
  sv.gpu = *find_gpu("L4");
  s.serving = sv;
  const prune_space sp = make_prune_space(m.spec, s);
  for_each_selection(sp, [&](const prune_candidate& c) {
    CHECK(option_sum(sp, c) == prune_totals(prune_apply(sp, c), sp.settings).cost);
  });
  check_serving_budgets(sp, {0.3, 0.5, 0.2, 0.1, 0.4, 0.6});
  // No no-op: the norm is always there, two groups per layer, the attention at cost_beside_ffn.
  prune_space_settings nn = settings(prune_format::per_layer);
  nn.no_op = false;
  const prune_space sn = make_prune_space(m.spec, nn);
  CHECK(prune_joint_pairs(sn)[0].empty());
  check_against_brute_force(sn);
  // Layer 0 keeps its attention (mlx-lm's rule, here on per-layer): still one group, exact.
  prune_space_settings k0 = settings(prune_format::per_layer);
  k0.keep_first_attention = true;
  const prune_space s0 = make_prune_space(m.spec, k0);
  CHECK(!prune_joint_pairs(s0)[0].empty());
  for (const prune_attention_option& o : s0.layers[0].attention) CHECK_FALSE(o.none);
  check_against_brute_force(s0);
  // The pairs of one group are capped (2^20): 32 heads over 8 KV heads at every head count x
  // 40,000 FFN widths is refused by name.
  json wide = tiny_cohere();
  wide["hidden_size"] = 64;
  wide["num_attention_heads"] = 32;
  wide["num_key_value_heads"] = 8;
  wide["intermediate_size"] = 40000;
  wide["num_hidden_layers"] = 1;
  prune_space_settings w = settings(prune_format::per_layer);
  w.ffn_multiple = 1;
  CHECK_THROWS_WITH(make_prune_space(read_hf_config(wide).spec, w),
                    Catch::Contains("layer 0 is one knapsack group of (attention, FFN) pairs (a norm shared by both "
                                    "sublayers) and would have more than 2^20 of them"));
}

TEST_CASE("prune emission: shared-norm models read back in every format that carries them, decilm refused by name",
          "[prune][shared_norm]") {
  // Tiny models: every selection that removes a sublayer, both, or none reads back exactly.
  {
    const json raw = tiny_cohere();
    const hf_model m = read_hf_config(raw);
    prune_space_settings s = settings(prune_format::per_layer);
    s.ffn_multiple = 64;
    const prune_space sp = make_prune_space(m.spec, s);
    int checked = 0;
    for_each_selection(sp, [&](const prune_candidate& c0) {
      prune_candidate c = c0;
      c.totals = prune_totals(prune_apply(sp, c), sp.settings);
      const json cfg = prune_emit_config(raw, sp, c);
      CHECK_NOTHROW(prune_verify_config(cfg, sp, c));
      const transformer_spec back = expand(read_hf_config(cfg).spec);
      for (std::size_t i = 0; i < c.layers.size(); ++i) // the norm exists while either sublayer does
        CHECK(back.blocks.at(i).n_norms == (c.layers[i].attention_none && c.layers[i].ffn_none ? 0 : 1));
      ++checked;
    });
    CHECK(checked == int(sp.layers[0].attention.size() * sp.layers[0].ffn.size() * sp.layers[1].attention.size() *
                         sp.layers[1].ffn.size()));
    const prune_space sd = make_prune_space(m.spec, settings(prune_format::decilm));
    const prune_candidate u = search_prune(sd).unpruned;
    CHECK_THROWS_WITH(prune_emit_config(raw, sd, u),
                      Catch::Contains("layer 0: the decilm format cannot express one norm shared by a parallel "
                                      "attention and MLP") &&
                          Catch::Contains("use --emit-format per-layer or nsc (or --uniform)"));
    CHECK_THAT(prune_engine_refusal(m.spec, prune_engine::any, false),
               Catch::Contains("one norm shared by a parallel attention and MLP"));
    const json tf = tiny_falcon7b(); // falcon has no per_layer_config: nsc is the format that works
    const prune_space sf = make_prune_space(read_hf_config(tf).spec, settings(prune_format::decilm));
    CHECK_THROWS_WITH(prune_emit_config(tf, sf, search_prune(sf).unpruned), Catch::Contains("use --emit-format nsc (or --uniform)"));
  }
  // The bundled configs: Falcon-7B (nsc), Command R7B, Aya Expanse 8B and Tiny Aya (per-layer, nsc)
  // under params and memory budgets, every answer read back by the reader to the search's numbers.
  struct run {
    const char* file;
    prune_format format;
    std::vector<std::pair<prune_cost, double>> budgets; // shares of the unpruned model
  };
  using P = prune_cost;
  const std::vector<run> runs = {
      {"falcon-7b-instruct.json", prune_format::nsc, {{P::params, 0.7}}},
      {"falcon-7b-instruct.json", prune_format::nsc, {{P::memory, 0.5}}},
      {"command-r7b-12-2024.json", prune_format::per_layer, {{P::params, 0.2}}}, // FFNs removed
      {"command-r7b-12-2024.json", prune_format::per_layer, {{P::memory, 0.35}, {P::kv_bytes, 0.3}}},
      {"command-r7b-12-2024.json", prune_format::nsc, {{P::params, 0.6}}},
      {"aya-expanse-8b.json", prune_format::per_layer, {{P::params, 0.3}, {P::prefill_flops, 0.4}}},
      {"aya-expanse-8b.json", prune_format::nsc, {{P::memory, 0.6}}},
      {"tiny-aya-global.json", prune_format::per_layer, {{P::memory, 0.4}}},
      {"tiny-aya-global.json", prune_format::per_layer, {{P::params, 0.25}}},
      {"tiny-aya-global.json", prune_format::nsc, {{P::params, 0.7}}},
  };
  for (const run& x : runs) {
    INFO(x.file << " " << to_string(x.format));
    std::ifstream in(configs + x.file);
    const json raw = json::parse(in);
    const hf_model m = read_hf_config(raw);
    prune_space_settings s;
    s.format = x.format;
    s.load.seq_len = 256;
    s.load.context = 8192;
    const prune_space sp = make_prune_space(m.spec, s);
    CHECK(sp.layers[0].shared_norms == 1);
    const prune_totals_t full = prune_totals(sp.spec, sp.settings);
    prune_search_settings ps;
    for (const auto& [c, share] : x.budgets) ps.budgets.push_back({c, int64_t(share * double(full.cost[std::size_t(c)]))});
    const prune_search_result r = search_prune(sp, ps);
    REQUIRE(r.best);
    CHECK(r.unpruned.totals.cost == full.cost);
    for (const prune_budget& b : ps.budgets) CHECK(r.best->totals.cost[std::size_t(b.cost)] <= b.limit);
    CHECK(option_sum(sp, *r.best) == r.best->totals.cost);
    const json cfg = prune_emit_config(raw, sp, *r.best);
    CHECK_NOTHROW(prune_verify_config(cfg, sp, *r.best));
    CHECK_NOTHROW(prune_verify_config(prune_emit_config(raw, sp, r.unpruned), sp, r.unpruned));
  }
}
