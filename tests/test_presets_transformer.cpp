// Tests for the Transformer presets (nsc/presets/{transformer_xl,gpt2,flexibert,autoformer,lonas}.hpp)
// and the ground-truth readers (nsc/io/ground_truth.hpp).
//
// Reference numbers come from tests/reference/gen_preset_reference.py (an independent Python
// re-implementation of the conventions, psi_MP in 50-digit mpmath from the textbook closed
// form, cross-checked against quadrature of the MP density), stored in
// tests/data/preset_reference.csv. Parameter counts are checked exactly against every row of
// the released tables in shared/data.
#include <nsc/io/ground_truth.hpp>
#include <nsc/presets/autoformer.hpp>
#include <nsc/presets/flexibert.hpp>
#include <nsc/presets/gpt2.hpp>
#include <nsc/presets/lonas.hpp>
#include <nsc/presets/transformer_xl.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace p = nsc::presets;
namespace io = nsc::io;
using Catch::Contains;

namespace {

const std::string shared_dir = NSC_SHARED_DATA_DIR;
const std::string test_dir = NSC_TEST_DATA_DIR;

std::string lts(const char* f) { return shared_dir + "/lts-archai/" + f; }
std::string flexibert_csv() { return shared_dir + "/flexibert-nas-bench-bert/flexibert_500_glue.csv"; }
std::string autoformer_csv() { return shared_dir + "/autoformer-tiny-autoprox/autoformer_tiny_200.csv"; }

double rel_err(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// A scratch directory removed at the end of the test case.
struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("nsc_presets_test_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const auto f = path / name;
    std::ofstream out(f, std::ios::binary);
    out << text;
    return f.string();
  }
};

// Message of the std::invalid_argument thrown by f (fails the test if none is thrown).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("no std::invalid_argument thrown");
  return {};
}

p::autoformer_arch autoformer_from_row(const io::autoformer_record& r) { return r.arch; }

} // namespace

// =============================================================================================
// Known answers (the numbers printed in reference-conventions.md)
// =============================================================================================

TEST_CASE("Transformer-XL search: NSC-DP answer and human baseline", "[presets][txl]") {
  const auto ans = p::transformer_xl_nsc_dp_answer();
  const auto base = p::transformer_xl_human_baseline();
  const auto pa = p::transformer_xl_search(ans);
  const auto pb = p::transformer_xl_search(base);

  // "NSC = 12391.756" and "11184.19", to the printed digits
  CHECK(std::round(pa.nsc_score() * 1000) / 1000 == Approx(12391.756).epsilon(0).margin(1e-9));
  CHECK(std::round(pb.nsc_score() * 100) / 100 == Approx(11184.19).epsilon(0).margin(1e-9));
  // 40.21M and 38.40M, exactly by the search's formula
  CHECK(p::transformer_xl_search_params(ans) == 40211712);
  CHECK(p::transformer_xl_search_params(base) == 38403040);
  CHECK(std::round(double(p::transformer_xl_search_params(ans)) / 1e4) / 100 == Approx(40.21));
  CHECK(std::round(double(p::transformer_xl_search_params(base)) / 1e4) / 100 == Approx(38.40));

  // the network's count reproduces the search's count, split as documented
  for (const auto& a : {ans, base, p::transformer_xl_search_arch{384, {512, 4096, 1152}}}) {
    const auto pr = p::transformer_xl_search(a);
    const auto r = pr.cost();
    const std::int64_t d = a.d_model;
    std::int64_t sum_f = 0;
    for (auto f : a.d_inner) sum_f += f;
    const auto L = std::int64_t(a.d_inner.size());
    CHECK(r.total() == p::transformer_xl_search_params(a));
    CHECK(r.non_embedding() == r.total());
    CHECK(r.weights == L * 4 * d * d + 2 * d * sum_f);
    CHECK(r.biases == L * (3 * d + d + d) + sum_f);
    CHECK(r.norms == L * 4 * d);
    CHECK(r.other == 0);
    // direct per-layer helpers agree with the network score
    CHECK(rel_err(pr.nsc_score(), p::transformer_xl_search_nsc(a)) < 1e-14);
    double s = 0;
    std::int64_t q = 0;
    for (auto f : a.d_inner) {
      s += p::transformer_xl_search_layer_score(d, f);
      q += p::transformer_xl_search_layer_params(d, f);
    }
    CHECK(rel_err(s, pr.nsc_score()) < 1e-14);
    CHECK(q == r.total());
  }

  // the answer lies in the band, and the baseline too
  const auto space = p::transformer_xl_reference_search_space();
  CHECK(space.d_inner.size() == 21);
  CHECK(space.d_inner.front() == 512);
  CHECK(space.d_inner.back() == 4096);
  CHECK(space.d_model == std::vector<std::int64_t>{128, 256, 384, 512, 640, 768, 1024});
  CHECK(space.n_layer == std::vector<std::int64_t>{12, 14, 16, 18});
  CHECK(double(p::transformer_xl_search_params(ans)) <= space.max_params());
  CHECK(double(p::transformer_xl_search_params(ans)) >= space.min_params());
  CHECK(pa.nsc_score() > pb.nsc_score());
}

TEST_CASE("LoNAS: the 5.7B answer, the unpruned model, TFLOPs", "[presets][lonas]") {
  const auto ans = p::lonas_nsc_dp_answer();
  const auto pr = p::lonas(ans);
  const auto r = pr.cost();
  CHECK(p::lonas_params(ans) == 5690097664);
  CHECK(r.total() == 5690097664);
  CHECK(std::round(pr.nsc_score() * 1000) / 1000 == Approx(881196.752).epsilon(0).margin(1e-9));
  CHECK(rel_err(pr.nsc_score(), p::lonas_nsc(ans)) < 1e-14);
  CHECK(p::lonas_params(p::lonas_unpruned()) == 6738411520);
  CHECK(std::round(double(p::lonas_params(p::lonas_unpruned())) / 1e6) / 1e3 == Approx(6.738));
  // TFLOPs from the network's MACs == the formula
  CHECK(rel_err(r.macs * 256 / 1e12, p::lonas_tflops(ans)) < 1e-14);
  CHECK(rel_err(nsc::count(p::lonas(p::lonas_unpruned()).net).macs * 256 / 1e12,
                p::lonas_tflops(p::lonas_unpruned())) < 1e-14);
  // README figures: LoRA 6.7B / 1.7 TFLOPs, LoNAS 5.6B / 1.4 TFLOPs (rounded)
  CHECK(std::round(p::lonas_tflops(p::lonas_unpruned()) * 10) / 10 == Approx(1.7));
  CHECK(std::round(p::lonas_tflops(ans) * 10) / 10 == Approx(1.4));
  // LoRA adapters are scored but neither counted nor applied; embedding and head not scored
  CHECK(r.embedding == 2 * p::lonas_vocab * p::lonas_hidden);
  CHECK(r.non_embedding() == r.total() - r.embedding);
  const auto sc = pr.evaluate();
  CHECK(sc.part_total(nsc::part::embedding) == 0);
  CHECK(sc.part_total(nsc::part::head) == 0);

  // the option list, and per-layer sums
  const auto opts = p::lonas_options();
  REQUIRE(opts.size() == 10);
  CHECK(opts.front() == p::lonas_option{32, 11008});
  CHECK(opts.back() == p::lonas_option{28, 5504});
  std::int64_t q = p::lonas_fixed_params();
  double t = p::lonas_fixed_tflops(), s = 0;
  for (const auto& o : ans) {
    q += p::lonas_layer_params(o);
    t += p::lonas_layer_tflops(o);
    s += p::lonas_layer_score(o);
  }
  CHECK(q == 5690097664);
  CHECK(rel_err(t, p::lonas_tflops(ans)) < 1e-14);
  CHECK(rel_err(s, pr.nsc_score()) < 1e-14);
  // a layer's network score equals the direct per-layer helper
  for (const auto& o : opts)
    CHECK(rel_err(nsc::score(p::lonas_layer(o), nsc::scoring{}).nsc, p::lonas_layer_score(o)) <
          1e-14);
  // rank costs nothing
  CHECK(p::lonas_layer_params({28, 8256}) == p::lonas_layer_params({32, 8256}));
  CHECK(p::lonas_layer_score({28, 8256}) < p::lonas_layer_score({32, 8256}));
  // the memoised batch is bitwise the one-by-one score (same psi values, same order of sums)
  std::vector<p::lonas_option> more = opts;
  for (std::int64_t rank : {1, 7, 64, 4096})
    for (std::int64_t k : {1, 33, 11008, 20000}) more.push_back({rank, k});
  const auto batch = p::lonas_layer_scores(more);
  REQUIRE(batch.size() == more.size());
  for (std::size_t j = 0; j < more.size(); ++j) CHECK(batch[j] == p::lonas_layer_score(more[j]));
  CHECK_THROWS_WITH(p::lonas_layer_scores({{32, 0}}), Contains("nsc::presets::lonas_layer_scores: FFN width must be >= 1"));
}

TEST_CASE("AutoFormer: official parameter counts of the released subnets", "[presets][autoformer]") {
  CHECK(p::autoformer_official_params(p::autoformer_t_subnet()) == 5867944); // README: 5.8M
  CHECK(p::autoformer_official_params(p::autoformer_s_subnet()) == 22891432); // 22.9M
  CHECK(p::autoformer_official_params(p::autoformer_b_subnet()) == 53691688); // 53.7M
  CHECK(std::round(double(p::autoformer_official_params(p::autoformer_t_subnet())) / 1e4) / 100 ==
        Approx(5.87));
  for (const auto& a : {p::autoformer_t_subnet(), p::autoformer_s_subnet(), p::autoformer_b_subnet()}) {
    const auto off = p::autoformer_official(a);
    const auto srch = p::autoformer_search(a);
    const auto rk = p::autoformer_ranking(a);
    // search count: 969 e + layers; the official adds 7680 per layer and the head
    CHECK(srch.cost().total() == p::autoformer_search_params(a));
    CHECK(off.cost().total() - srch.cost().total() ==
          std::int64_t(a.depth()) * 7680 + a.embed_dim * 1000 + 1000);
    // the official network scores like the search convention; direct == network
    CHECK(off.nsc_score() == srch.nsc_score());
    CHECK(rel_err(srch.nsc_score(), p::autoformer_search_nsc(a)) < 1e-14);
    CHECK(rel_err(rk.nsc_score(), p::autoformer_ranking_nsc(a)) < 1e-14);
    std::int64_t q = p::autoformer_search_fixed_params(a.embed_dim);
    for (std::size_t i = 0; i < a.depth(); ++i)
      q += p::autoformer_search_layer_params(a.embed_dim, a.mlp_ratio[i], a.num_heads[i]);
    CHECK(q == p::autoformer_search_params(a));
    CHECK(p::autoformer_search_fixed_params(a.embed_dim) == 969 * a.embed_dim);
    CHECK(srch.net.per == "image");
  }
  // ranking network: AutoFormerSub, head dim e/h, 1000-way head by default
  const auto t = p::autoformer_t_subnet();
  const auto rk = p::autoformer_ranking(t, 100).cost();
  std::int64_t expect = 768 * 192 + 192 + 198 * 192 + 2 * 192 + 192 * 100 + 100;
  for (std::size_t i = 0; i < t.depth(); ++i) {
    const std::int64_t e = 192, f = p::autoformer_mlp_width(e, t.mlp_ratio[i]);
    expect += 4 * e + 3 * e * e + 3 * e + e * e + e + 2 * e * f + f + e;
  }
  CHECK(rk.total() == expect);
  // search spaces as data
  CHECK(p::autoformer_tiny_space().param_limit == 5.9e6);
  CHECK(p::autoformer_small_space().param_limit == 23.5e6);
  CHECK(p::autoformer_base_space().param_limit == 54.5e6);
  CHECK(p::autoformer_tiny_space().embed_dim == std::vector<std::int64_t>{192});
  CHECK(p::autoformer_base_space().num_heads == std::vector<std::int64_t>{8, 9, 10});
  CHECK(p::autoformer_mlp_width(192, 3.5) == 672);
  CHECK(p::autoformer_mlp_width(216, 3.5) == 756);
}

// =============================================================================================
// Independent reference values (tests/data/preset_reference.csv)
// =============================================================================================

TEST_CASE("presets agree with the independent Python reference", "[presets][reference]") {
  const auto table = io::parse_csv(io::read_text_file(test_dir + "/preset_reference.csv"));
  REQUIRE(table.header == std::vector<std::string>{"case", "quantity", "value"});
  REQUIRE(table.rows.size() > 100);

  const auto txl_rows = io::read_lts_csv(lts("random_TransXL_wt103.csv"));
  const auto gpt2_rows = io::read_lts_csv(lts("random_GPT2_wt103.csv"));
  const auto fb_rows = io::read_flexibert_csv(flexibert_csv());
  const auto af_rows = io::read_autoformer_tiny_csv(autoformer_csv());

  auto row_index = [](const std::string& key) {
    REQUIRE(key.rfind("row=", 0) == 0);
    return std::stoul(key.substr(4));
  };
  std::set<std::string> families;
  for (const auto& row : table.rows) {
    const std::string& c = row[0];
    const std::string& qty = row[1];
    const std::string family = c.substr(0, c.find(':'));
    const std::string key = c.substr(c.find(':') + 1);
    families.insert(family);
    const double expect = std::stod(row[2]);
    std::optional<double> got;
    if (family == "txl_search") {
      p::transformer_xl_search_arch a;
      if (key == "answer") a = p::transformer_xl_nsc_dp_answer();
      else if (key == "baseline") a = p::transformer_xl_human_baseline();
      else if (key == "d256_L12_f4096") a = p::transformer_xl_search_uniform(256, 12, 4096);
      else if (key == "mixed")
        a = {384, {512, 640, 2304, 4096, 1152, 896, 2048, 3840, 768, 1920, 1024, 3072}};
      const auto pr = p::transformer_xl_search(a);
      if (qty == "nsc") got = pr.nsc_score();
      if (qty == "params") got = double(pr.cost().total());
    } else if (family == "txl_search_layer") {
      got = p::transformer_xl_search_layer_score(512, 1152);
    } else if (family == "txl_lts") {
      const auto a = txl_rows.at(row_index(key)).transformer_xl();
      if (qty == "nsc_merged") got = p::transformer_xl_lts(a).nsc_score();
      if (qty == "nsc_per_head")
        got = p::transformer_xl_lts(a, p::transformer_xl_lts_attention::per_head).nsc_score();
      if (qty == "params") got = double(p::transformer_xl_lts(a).cost().total());
    } else if (family == "gpt2") {
      const auto a = gpt2_rows.at(row_index(key)).gpt2();
      auto pr = p::gpt2_flex(a);
      if (qty == "nsc") got = pr.nsc_score();
      if (qty == "params") got = double(pr.cost().total());
      if (qty == "nsc_xavier") {
        pr.rule = p::xavier_block_scoring();
        got = pr.nsc_score();
      }
    } else if (family == "flexibert") {
      const auto& a = fb_rows.at(row_index(key)).arch;
      if (qty == "nsc_reference") got = p::flexibert(a).nsc_score();
      if (qty == "nsc_original") got = p::flexibert(a, p::flexibert_reading::original).nsc_score();
      if (qty == "nsc_as_trained")
        got = p::flexibert(a, p::flexibert_reading::as_trained).nsc_score();
      if (qty == "params_as_trained") got = double(p::flexibert_params_as_trained(a));
      if (qty == "params_nominal") got = double(p::flexibert_params_nominal(a));
      if (qty == "flops_as_trained") got = p::flexibert_flops(a);
      if (qty == "flops_nominal") got = p::flexibert_flops(a, p::flexibert_reading::nominal);
    } else if (family == "autoformer") {
      const auto a = key == "T" ? p::autoformer_t_subnet()
                     : key == "S" ? p::autoformer_s_subnet()
                                  : p::autoformer_b_subnet();
      if (qty == "params_official") got = double(p::autoformer_official_params(a));
      if (qty == "flops_official") got = p::autoformer_official_flops(a);
      if (qty == "nsc_search") got = p::autoformer_search(a).nsc_score();
      if (qty == "params_search") got = double(p::autoformer_search(a).cost().total());
      if (qty == "nsc_ranking") got = p::autoformer_ranking(a).nsc_score();
    } else if (family == "autoformer_csv") {
      const auto a = autoformer_from_row(af_rows.at(row_index(key)));
      if (qty == "nsc_ranking") got = p::autoformer_ranking(a).nsc_score();
      if (qty == "nsc_search") got = p::autoformer_search(a).nsc_score();
      if (qty == "params_search") got = double(p::autoformer_search_params(a));
    } else if (family == "lonas") {
      std::vector<p::lonas_option> o;
      if (key == "answer") o = p::lonas_nsc_dp_answer();
      else if (key == "unpruned") o = p::lonas_unpruned();
      else if (key == "smallest") o = p::lonas_uniform({28, 5504});
      else if (key == "mixed")
        for (std::size_t i = 0; i < 32; ++i)
          o.push_back({p::lonas_ranks[i % 2], p::lonas_widths[i % 5]});
      const auto pr = p::lonas(o);
      if (qty == "nsc") got = pr.nsc_score();
      if (qty == "params") got = double(pr.cost().total());
      if (qty == "tflops") got = pr.cost().macs * 256 / 1e12;
    } else if (family == "lonas_layer") {
      int r = 0, k = 0;
      REQUIRE(std::sscanf(key.c_str(), "r=%d_k=%d", &r, &k) == 2);
      got = p::lonas_layer_score({r, k});
    }
    INFO(c << " " << qty << ": expected " << row[2]);
    REQUIRE(got.has_value());
    if (qty.rfind("params", 0) == 0) CHECK(*got == expect); // integers: exact
    else CHECK(rel_err(*got, expect) < 1e-12);
  }
  CHECK(families.size() == 9);
}

// =============================================================================================
// Every row of the released tables
// =============================================================================================

TEST_CASE("LTS: params_nonembedding of every row of every lts-archai CSV", "[presets][lts][data]") {
  std::size_t checked = 0;
  for (const char* f : {"random_TransXL_wt103.csv", "random_TransXL_wt103_homogeneous.csv"}) {
    const auto rows = io::read_lts_csv(lts(f));
    REQUIRE(!rows.empty());
    for (const auto& r : rows) {
      INFO(f << " " << r.arch_id);
      REQUIRE(r.params_nonembedding);
      const auto a = r.transformer_xl();
      const auto c = p::transformer_xl_lts_param_breakdown(a);
      CHECK(c.nonembedding == *r.params_nonembedding);
      CHECK(c.attn == *r.params_attn);
      CHECK(c.ffn == *r.params_ffn);
      CHECK(p::transformer_xl_lts(a).cost().total() == *r.params_nonembedding);
      CHECK(p::transformer_xl_lts(a).cost().non_embedding() == *r.params_nonembedding);
      ++checked;
    }
  }
  const auto rows = io::read_lts_csv(lts("random_GPT2_wt103.csv"));
  REQUIRE(rows.size() == 200);
  for (const auto& r : rows) {
    INFO("random_GPT2_wt103.csv " << r.arch_id);
    REQUIRE(r.params_nonembedding);
    const auto a = r.gpt2();
    const auto c = p::gpt2_flex_param_breakdown(a);
    CHECK(c.nonembedding == *r.params_nonembedding);
    CHECK(c.attn == *r.params_attn);
    CHECK(c.ffn == *r.params_ffn);
    CHECK(p::gpt2_flex(a).cost().total() == *r.params_nonembedding);
    CHECK(rel_err(p::gpt2_flex(a).nsc_score(), p::gpt2_flex_nsc(a)) < 1e-14);
    ++checked;
  }
  CHECK(checked == 200 + 99 + 200);
}

TEST_CASE("FlexiBERT: params_encoder_as_trained and the FFN paths of every row",
          "[presets][flexibert][data]") {
  const auto rows = io::read_flexibert_csv(flexibert_csv());
  REQUIRE(rows.size() == 500);
  for (const auto& r : rows) {
    INFO("arch " << r.arch_id);
    REQUIRE(r.params_encoder_as_trained);
    CHECK(p::flexibert_params_as_trained(r.arch) == *r.params_encoder_as_trained);
    for (std::size_t i = 0; i < r.arch.layers.size(); ++i) {
      std::string path;
      for (auto w : p::flexibert_ffn_path_as_trained(r.arch, i)) {
        if (!path.empty()) path += '-';
        path += std::to_string(w);
      }
      CHECK(path == r.ffn_path_as_trained[i]);
    }
    REQUIRE(r.glue);
    double mean = 0;
    for (const auto& t : r.tasks) {
      REQUIRE(t);
      mean += *t / 8;
    }
    CHECK(*r.glue == Approx(mean).epsilon(1e-9));
    // closed-form layer scores == network scores, every reading
    for (auto reading : {p::flexibert_reading::reference, p::flexibert_reading::original,
                         p::flexibert_reading::as_trained, p::flexibert_reading::nominal})
      CHECK(rel_err(p::flexibert(r.arch, reading).nsc_score(), p::flexibert_nsc(r.arch, reading)) <
            1e-14);
    CHECK(p::flexibert_params_nominal(r.arch) > 0);
    CHECK(p::flexibert_flops(r.arch, p::flexibert_reading::nominal) > 0);
  }
  CHECK(rows[0].task("cola") == 42.69);
  CHECK_THROWS_WITH(rows[0].task("wnli"), Contains("unknown GLUE task"));
}

TEST_CASE("FlexiBERT: the reference convention's details", "[presets][flexibert]") {
  p::flexibert_arch a;
  a.hidden = 128;
  a.layers = {{p::flexibert_op::sa, "SDP", 2, 512, 3},
              {p::flexibert_op::lt, "DFT", 2, std::nullopt, 1},
              {p::flexibert_op::dsc, "9", 4, std::nullopt, 3}};
  // D_FF fallback: the layer's, else layer 0's, else 1024
  CHECK(p::flexibert_ffn_dim(a, 0) == 512);
  CHECK(p::flexibert_ffn_dim(a, 1) == 512);
  auto b = a;
  b.layers[0].ffn_dim.reset();
  CHECK(p::flexibert_ffn_dim(b, 2) == 1024);
  // SA: psi_X(3H, H) + psi_X(H, H); LT: 2 psi_X(H, H); DSC: psi_X(H, H); FFN: branches of 170
  const double H = 128;
  const double sa = p::psi_xavier(3 * H, H) + p::psi_xavier(H, H) +
                    3 * (p::psi_xavier(170, H) + p::psi_xavier(H, 170));
  const double lt = 2 * p::psi_xavier(H, H) + p::psi_xavier(512, H) + p::psi_xavier(H, 512);
  const double dsc = p::psi_xavier(H, H) + 3 * (p::psi_xavier(170, H) + p::psi_xavier(H, 170));
  CHECK(rel_err(p::flexibert_layer_score(a, 0), sa) < 1e-14);
  CHECK(rel_err(p::flexibert_layer_score(a, 1), lt) < 1e-14);
  CHECK(rel_err(p::flexibert_layer_score(a, 2), dsc) < 1e-14);
  CHECK(rel_err(p::flexibert(a).nsc_score(), sa + lt + dsc) < 1e-14);
  // as-trained: attention for every op type, FFN H -> 4H -> D_FF x (nff - 1) -> H
  CHECK(p::flexibert_ffn_path_as_trained(a, 0) == std::vector<std::int64_t>{128, 512, 512, 512, 128});
  CHECK(p::flexibert_ffn_path_as_trained(a, 1) == std::vector<std::int64_t>{128, 512, 128});
  CHECK(p::flexibert_ffn_path_nominal(a, 0) == std::vector<std::int64_t>{128, 512, 512, 512, 128});
  CHECK(p::flexibert_ffn_path_nominal(a, 1) == std::vector<std::int64_t>{128, 512, 128});
  // FLOPs at T = 128 (as_trained): 2 (4H^2 + 2 T H + FFN products) per layer
  double macs = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    macs += 4 * H * H + 2 * 128 * H;
    const auto path = p::flexibert_ffn_path_as_trained(a, i);
    for (std::size_t j = 0; j + 1 < path.size(); ++j) macs += double(path[j] * path[j + 1]);
  }
  CHECK(p::flexibert_flops(a) == 2 * macs);
  CHECK(p::flexibert_flops(a, p::flexibert_reading::as_trained, 64) < 2 * macs);
  CHECK_THROWS_WITH(p::flexibert_flops(a, p::flexibert_reading::reference),
                    Contains("FLOPs are defined for the as_trained and nominal readings"));
  // nominal reading: WMA adds a bias-free H x H; a bad DSC kernel is reported
  auto w = a;
  w.layers[0].op_param = "WMA";
  CHECK(p::flexibert_params_nominal(w) - p::flexibert_params_nominal(a) == 128 * 128);
  w.layers[2].op_param = "x";
  CHECK_THROWS_WITH(p::flexibert_params_nominal(w), Contains("kernel size"));
  // the skeleton's count is just its matrices
  CHECK(p::flexibert(a).cost().biases == 0);
}

TEST_CASE("AutoFormer-Tiny table: architectures and targets", "[presets][autoformer][data]") {
  const auto rows = io::read_autoformer_tiny_csv(autoformer_csv());
  REQUIRE(rows.size() == 200);
  std::size_t with_base = 0;
  for (const auto& r : rows) {
    INFO(r.arch_id);
    CHECK((r.arch.embed_dim == 192 || r.arch.embed_dim == 216 || r.arch.embed_dim == 240));
    CHECK((r.arch.depth() >= 12 && r.arch.depth() <= 14));
    CHECK(r.target("imagenet_super_acc").has_value());
    CHECK(r.target("c100_kd_acc").has_value());
    if (r.target("c100_base_acc")) ++with_base;
    CHECK(r.targets.size() == 7);
    CHECK(rel_err(p::autoformer_ranking(r.arch).nsc_score(), p::autoformer_ranking_nsc(r.arch)) <
          1e-14);
  }
  CHECK(with_base == 100);
  CHECK(rows[0].arch_id == "gt_autoformer_0");
  CHECK(rows[0].source_file == "gt_autoformer.pth");
  CHECK(rows[0].index_in_file == 0);
  CHECK(rows[0].arch.mlp_ratio.size() == 12);
  CHECK(rows[0].arch.num_heads[2] == 3);
  CHECK_THROWS_WITH(rows[0].target("nope"), Contains("no such target column"));
}

// =============================================================================================
// Presets: checks on the specification
// =============================================================================================

TEST_CASE("presets reject malformed architectures", "[presets][errors]") {
  CHECK_THROWS_WITH(p::transformer_xl_search({512, {}}), Contains("at least one layer"));
  CHECK_THROWS_WITH(p::transformer_xl_search({0, {1024}}),
                    Contains("nsc::presets::transformer_xl_search: d_model must be >= 1 (got 0)"));
  CHECK_THROWS_WITH(p::transformer_xl_search_layer_score(512, -1), Contains("d_inner must be >= 1"));
  CHECK_THROWS_WITH(p::transformer_xl_lts({64, {2, 2}, {700}}), Contains("one value per layer"));
  CHECK_THROWS_WITH(p::transformer_xl_lts({64, {128}, {700}}), Contains("n_head must be in [1, d_model]"));
  CHECK_THROWS_WITH(p::gpt2_flex({64, {0}, {700}}), Contains("n_head must be in [1, d_model]"));
  CHECK_THROWS_WITH(p::autoformer_search({192, {3.5}, {}}), Contains("one value per layer"));
  CHECK_THROWS_WITH(p::autoformer_search({192, {-1.0}, {3}}), Contains("mlp_ratio must be finite and > 0"));
  CHECK_THROWS_WITH(p::lonas({}), Contains("one option per layer"));
  CHECK_THROWS_WITH(p::lonas_layer_score({0, 8256}), Contains("LoRA rank"));
  p::flexibert_arch f;
  f.hidden = 128;
  CHECK_THROWS_WITH(p::flexibert(f), Contains("at least one layer"));
  f.layers = {{p::flexibert_op::sa, "SDP", 2, 2, 3}};
  CHECK_THROWS_WITH(p::flexibert(f), Contains("D_FF / num_feed_forward must be >= 1"));
  CHECK_THROWS_WITH(p::flexibert_ffn_dim(f, 3), Contains("layer index out of range"));
  CHECK_THROWS_WITH(p::parse_flexibert_op("XX"), Contains("unknown operation type"));
}

TEST_CASE("GPT-2 and TXL: head counts that do not divide d_model", "[presets][gpt2]") {
  // archai's GPT-2 baseline yaml has d = 1024 with 12 heads: 3 * 12 * 85 scored rows plus an
  // unscored remainder, so the count stays LTS's.
  const p::gpt2_flex_arch a{1024, {12, 12}, {2048, 2048}};
  const auto pr = p::gpt2_flex(a);
  CHECK(pr.cost().total() == p::gpt2_flex_params(a));
  CHECK(rel_err(pr.nsc_score(), p::gpt2_flex_nsc(a)) < 1e-14);
  CHECK(rel_err(p::gpt2_flex_layer_score(1024, 12, 2048),
                36 * p::psi_normal(85, 1024, 0.02) + p::psi_normal(1024, 1024, 0.02) +
                    2 * p::psi_normal(2048, 1024, 0.02)) < 1e-14);
  // TXL-LTS uses h * (d / h) as the attention width (archai's d_head = d // h)
  const p::transformer_xl_lts_arch t{100, {8}, {600}};
  const std::int64_t he = 96;
  CHECK(p::transformer_xl_lts_params(t) == 5 * 100 * he + 2 * 100 + 2 * 100 * 600 + 600 + 100 +
                                               2 * 100 + 2 * he);
  CHECK(p::transformer_xl_lts(t).cost().total() == p::transformer_xl_lts_params(t));
  CHECK(rel_err(p::transformer_xl_lts(t).nsc_score(), p::transformer_xl_lts_layer_score(100, 8, 600)) <
        1e-14);
  CHECK(rel_err(p::transformer_xl_lts(t, p::transformer_xl_lts_attention::per_head).nsc_score(),
                p::transformer_xl_lts_layer_score(100, 8, 600,
                                                  p::transformer_xl_lts_attention::per_head)) < 1e-14);
  // with dividing heads the merged LTS score equals the search convention's layer score
  CHECK(rel_err(p::transformer_xl_lts_layer_score(512, 8, 1152),
                p::transformer_xl_search_layer_score(512, 1152)) < 1e-14);
}

// =============================================================================================
// Readers on fixture files
// =============================================================================================

TEST_CASE("CSV layer: quoting, line endings, BOM, blank lines", "[io][csv]") {
  const auto t = io::parse_csv("\xEF\xBB\xBF" "a,b,c\r\n"
                               "1,\"x, \"\"quoted\"\"\",\"multi\nline\"\r\n"
                               "\n"
                               "2,,\n"
                               "3,y,z");
  REQUIRE(t.header == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0][1] == "x, \"quoted\"");
  CHECK(t.rows[0][2] == "multi\nline");
  CHECK(t.rows[1] == std::vector<std::string>{"2", "", ""});
  CHECK(t.rows[2] == std::vector<std::string>{"3", "y", "z"});
  CHECK(io::parse_csv("a,b\n1,\n").rows[0] == std::vector<std::string>{"1", ""});
  CHECK(io::parse_csv("a,b\n1,").rows[0] == std::vector<std::string>{"1", ""});

  CHECK(error_of([] { io::parse_csv("", "f"); }) == "f: the file is empty (no header row)");
  CHECK(error_of([] { io::parse_csv("a,b\n1,2\n3\n", "f"); }) == "f: row 2: expected 2 fields, got 1");
  CHECK(error_of([] { io::parse_csv("a,b\n1,\"2\n", "f"); }) == "f: row 1: unterminated quoted field");
  CHECK(error_of([] { io::parse_csv("a,b\n1,\"2\"x\n", "f"); }) ==
        "f: row 1: unexpected character after a closing quote");
  CHECK(error_of([] { io::parse_csv("a,\"b\n", "f"); }) == "f: header: unterminated quoted field");
  CHECK(error_of([] { io::parse_csv("a,b,a\n", "f"); }) == "f: duplicate column 'a'");
  CHECK(error_of([] { io::read_text_file("/nonexistent/nsc.csv", "f"); }) ==
        "f: cannot open '/nonexistent/nsc.csv'");
}

TEST_CASE("read_lts_csv on fixtures", "[io][lts]") {
  temp_dir dir;
  const std::string header =
      "arch_id,n_layer,d_model,n_head_list,d_inner_list,n_head_0,d_inner_0,n_head_1,d_inner_1,"
      "valid_ppl,test_ppl,params_nonembedding\n";
  const auto good = dir.write("good.csv", header +
                                              "a0,2,64,\"2 4\",700 800,2,700,4,800,40.5,41.0,\n"
                                              "\"a,1\",1,128,8,1024,8,1024,,,,\"33.25\",906375.0\n");
  const auto rows = io::read_lts_csv(good);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].arch_id == "a0");
  CHECK(rows[0].n_head == std::vector<std::int64_t>{2, 4});
  CHECK(rows[0].d_inner == std::vector<std::int64_t>{700, 800});
  CHECK(rows[0].valid_ppl == 40.5);
  CHECK_FALSE(rows[0].params_nonembedding);
  CHECK(rows[1].arch_id == "a,1");
  CHECK_FALSE(rows[1].valid_ppl);
  CHECK(rows[1].test_ppl == 33.25);
  CHECK(rows[1].params_nonembedding == 906375);
  CHECK_FALSE(rows[1].d_embed); // absent column
  CHECK(rows[1].gpt2().d_model == 128);
  CHECK(rows[1].transformer_xl().n_head == std::vector<std::int64_t>{8});

  auto bad = [&](const std::string& body) {
    const auto f = dir.write("bad.csv", header + body);
    return error_of([&] { io::read_lts_csv(f); });
  };
  const std::string ok_row = "a0,2,64,2 4,700 800,2,700,4,800,40.5,41.0,\n";
  std::string many;
  for (int i = 0; i < 16; ++i) many += ok_row;
  CHECK(bad(many + "a16,2,x,2 4,700 800,,,,,,,\n") ==
        "nsc::read_lts_csv: row 17: column 'd_model' is not an integer (got \"x\")");
  CHECK(bad("a0,2,64,2 x,700 800,,,,,,,\n") ==
        "nsc::read_lts_csv: row 1: column 'n_head_list' is not a list of integers (got \"2 x\")");
  CHECK(bad("a0,3,64,2 4,700 800,,,,,,,\n") ==
        "nsc::read_lts_csv: row 1: column 'n_head_list' has 2 values but n_layer is 3");
  CHECK(bad("a0,2,64,2 4,700 800,2,700,8,800,,,\n") ==
        "nsc::read_lts_csv: row 1: column 'n_head_1' disagrees with n_head_list (got 8, the list has 4)");
  CHECK(bad("a0,2,64,2 4,700 800,,,,,4O.5,,\n") ==
        "nsc::read_lts_csv: row 1: column 'valid_ppl' is not a finite number (got \"4O.5\")");
  CHECK(bad("a0,2,64,2 4,700 800,,,,,+-1,,\n") ==
        "nsc::read_lts_csv: row 1: column 'valid_ppl' is not a finite number (got \"+-1\")");
  CHECK(bad("a0,+-2,64,2 4,700 800,,,,,,,\n") ==
        "nsc::read_lts_csv: row 1: column 'n_layer' is not an integer (got \"+-2\")");
  CHECK(io::parse_lts_csv(header + "a0,+1,64,+2,700.00,,,,, +40.5 ,,\n")[0].valid_ppl == 40.5);
  CHECK(bad("a0,2,64,2 4,700 800,,,,,nan,,\n") ==
        "nsc::read_lts_csv: row 1: column 'valid_ppl' is not a finite number (got \"nan\")");
  CHECK(bad("a0,2,64,2 4,700 800,,,,,,,1.5\n") ==
        "nsc::read_lts_csv: row 1: column 'params_nonembedding' is not an integer (got \"1.5\")");
  CHECK(bad("a0,0,64,,,,,,,,,\n") == "nsc::read_lts_csv: row 1: column 'n_layer' must be >= 1 (got 0)");
  CHECK(bad("a0,2,,2 4,700 800,,,,,,,\n") == "nsc::read_lts_csv: row 1: column 'd_model' is blank");
  CHECK(bad("a0,1,64,128,700,,,,,,,\n") ==
        "nsc::read_lts_csv: row 1: column 'n_head_list' has a head count outside [1, d_model] (got 128)");
  CHECK(bad(ok_row + "a1,2,64,2 4,700 800,,,,\n") ==
        "nsc::read_lts_csv: row 2: expected 12 fields, got 9");
  const auto nocol = dir.write("nocol.csv", "arch_id,n_layer,n_head_list,d_inner_list\n");
  CHECK(error_of([&] { io::read_lts_csv(nocol); }) == "nsc::read_lts_csv: missing column 'd_model'");
  CHECK(error_of([&] { io::read_lts_csv((dir.path / "none.csv").string()); }) ==
        "nsc::read_lts_csv: cannot open '" + (dir.path / "none.csv").string() + "'");
}

TEST_CASE("read_flexibert_csv on fixtures", "[io][flexibert]") {
  temp_dir dir;
  const std::string header =
      "arch_id,hidden_size,num_layers,l0_op_type,l0_op_param,l0_heads,l0_ffn_dim,l0_n_ffn,"
      "l0_ffn_path_as_trained,l1_op_type,l1_op_param,l1_heads,l1_ffn_dim,l1_n_ffn,"
      "l1_ffn_path_as_trained,params_encoder_as_trained,cola,mnli,mrpc,qnli,qqp,rte,sst,sts,glue\n";
  const auto good = dir.write(
      "good.csv", header + "7,128,2,SA,WMA,4,512,3,128-512-512-512-128,DSC,9,2,,1,,,1,2,3,4,5,6,7,8,4.5\n"
                           "8,256,1,LT,DCT,2,1024,1,,,,,,,,,,,,,,,,,\n");
  const auto rows = io::read_flexibert_csv(good);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].arch_id == "7");
  CHECK(rows[0].arch.hidden == 128);
  REQUIRE(rows[0].arch.layers.size() == 2);
  CHECK(rows[0].arch.layers[0].op == p::flexibert_op::sa);
  CHECK(rows[0].arch.layers[0].op_param == "WMA");
  CHECK(rows[0].arch.layers[0].ffn_dim == 512);
  CHECK(rows[0].arch.layers[1].op == p::flexibert_op::dsc);
  CHECK_FALSE(rows[0].arch.layers[1].ffn_dim);
  CHECK(p::flexibert_ffn_dim(rows[0].arch, 1) == 512); // layer 0's
  CHECK(rows[0].ffn_path_as_trained[0] == "128-512-512-512-128");
  CHECK(rows[0].task("sts") == 8);
  CHECK(rows[0].glue == 4.5);
  CHECK(rows[1].arch.layers.size() == 1);
  CHECK_FALSE(rows[1].glue);
  CHECK_FALSE(rows[1].tasks[0]);

  auto bad = [&](const std::string& body) {
    const auto f = dir.write("bad.csv", header + body);
    return error_of([&] { io::read_flexibert_csv(f); });
  };
  CHECK(bad("7,128,2,SA,WMA,4,512,3,,XX,9,2,,1,,,,,,,,,,,\n") ==
        "nsc::read_flexibert_csv: row 1: column 'l1_op_type' is not SA, LT or DSC (got \"XX\")");
  CHECK(bad("7,128,2,SA,DFT,4,512,3,,DSC,9,2,,1,,,,,,,,,,,\n") ==
        "nsc::read_flexibert_csv: row 1: column 'l0_op_param' is not valid for SA (got \"DFT\")");
  CHECK(bad("7,128,2,SA,SDP,4,512,3,,DSC,0,2,,1,,,,,,,,,,,\n") ==
        "nsc::read_flexibert_csv: row 1: column 'l1_op_param' is not valid for DSC (got \"0\")");
  CHECK(bad("7,128,2,SA,SDP,4,512,3,,DSC,9,,,1,,,,,,,,,,,\n") ==
        "nsc::read_flexibert_csv: row 1: column 'l1_heads' is blank");
  CHECK(bad("7,128,2,SA,SDP,4,512,3,,DSC,9,2,,1,,,,,,,,,,,x\n") ==
        "nsc::read_flexibert_csv: row 1: column 'glue' is not a finite number (got \"x\")");
  CHECK(bad("7,128,3,SA,SDP,4,512,3,,DSC,9,2,,1,,,,,,,,,,,\n") ==
        "nsc::read_flexibert_csv: row 1: missing column 'l2_op_type'");
}

TEST_CASE("read_autoformer_tiny_csv on fixtures", "[io][autoformer]") {
  temp_dir dir;
  const std::string header =
      "arch_id,source_file,index_in_file,embed_dim,depth,mlp_ratio_0,mlp_ratio_1,num_heads_0,"
      "num_heads_1,c100_base_acc,imagenet_super_acc\n";
  const auto good = dir.write("good.csv", header + "x0,f.pth,0,192,2,3.5,4.0,3,4,,74.5\r\n"
                                                   "x1,f.pth,1,216,1,4,,4,,68.25,70\r\n");
  const auto rows = io::read_autoformer_tiny_csv(good);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].arch.embed_dim == 192);
  CHECK(rows[0].arch.mlp_ratio == std::vector<double>{3.5, 4.0});
  CHECK(rows[0].arch.num_heads == std::vector<std::int64_t>{3, 4});
  CHECK_FALSE(rows[0].target("c100_base_acc"));
  CHECK(rows[0].target("imagenet_super_acc") == 74.5);
  CHECK(rows[1].arch.depth() == 1);
  CHECK(rows[1].target("c100_base_acc") == 68.25);
  CHECK(rows[1].targets.size() == 2);
  // maps to the presets
  CHECK(p::autoformer_search_params(rows[1].arch) ==
        969 * 216 + p::autoformer_search_layer_params(216, 4.0, 4));

  auto bad = [&](const std::string& body) {
    const auto f = dir.write("bad.csv", header + body);
    return error_of([&] { io::read_autoformer_tiny_csv(f); });
  };
  CHECK(bad("x0,f.pth,0,192,2,3.5,,3,4,,74.5\n") ==
        "nsc::read_autoformer_tiny_csv: row 1: column 'mlp_ratio_1' is blank");
  CHECK(bad("x0,f.pth,0,192,1,3.5,4.0,3,,,74.5\n") ==
        "nsc::read_autoformer_tiny_csv: row 1: column 'mlp_ratio_1' must be blank past depth 1 (got \"4.0\")");
  CHECK(bad("x0,f.pth,0,192,2,3.5,4.0,3,4,,top\n") ==
        "nsc::read_autoformer_tiny_csv: row 1: column 'imagenet_super_acc' is not a finite number (got \"top\")");
  CHECK(bad("x0,f.pth,0,192,3,3.5,4.0,3,4,,1\n") ==
        "nsc::read_autoformer_tiny_csv: row 1: missing column 'mlp_ratio_2'");
  CHECK(bad("x0,f.pth,0,192,2,3.5,-4,3,4,,1\n") ==
        "nsc::read_autoformer_tiny_csv: row 1: column 'mlp_ratio_1' must be > 0 (got \"-4\")");
}
