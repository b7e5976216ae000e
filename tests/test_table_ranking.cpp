// Tests for nsc/io/rank_table.hpp (tables of architectures -> the generic ranking) against the
// independent reference of tests/reference/gen_rank_table.py (mpmath psi_MP, scipy tau-b and
// rho), the built-in GPT-2 family reproduced bit for bit from a table, the three kinds of
// architecture cell, exact ties of permuted layers, and every error path.
#include <nsc/eval/families.hpp>
#include <nsc/eval/rank_scores.hpp>
#include <nsc/io/ground_truth.hpp>
#include <nsc/io/hf_config.hpp>
#include <nsc/io/rank_table.hpp>
#include <nsc/io/table.hpp>

#include <catch2/catch.hpp>

#include "support/errors.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ev = nsc::eval;
namespace io = nsc::io;
using Catch::Contains;

namespace {

const std::string data_dir = NSC_TEST_DATA_DIR;
const std::string source_dir = NSC_SOURCE_DIR;

using nsc_test::error_of;

std::map<std::string, double> reference_values() {
  const io::csv_table t = io::parse_csv(io::read_text_file(data_dir + "/rank_table_gpt_reference.csv"));
  std::map<std::string, double> m;
  for (const auto& r : t.rows) m[r[0]] = std::stod(r[1]);
  return m;
}

io::table_rank_options gpt_options() {
  io::table_rank_options o;
  o.target = "perplexity";
  o.lower_is_better = true;
  o.id_column = "id";
  return o;
}

const std::string arch_ok =
    R"({"d_model":64,"layers":[[{"d_ff":128,"n_heads":4}],[{"d_ff":256,"n_heads":2}]]})";

std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

} // namespace

TEST_CASE("table ranking against the independent reference (mpmath NSC, scipy statistics)", "[rank_table][reference]") {
  const io::table t = io::read_table_file(data_dir + "/rank_table_gpt.csv");
  const io::rank_table_data d = io::rank_table_rows(t, data_dir, gpt_options());
  const auto ref = reference_values();
  REQUIRE(double(d.input.size()) == ref.at("n"));
  CHECK(d.count(io::architecture_kind::nsc_architecture) == d.input.size());
  const std::size_t ref_nsc = *t.column("ref_nsc"), ref_params = *t.column("ref_params");
  double worst = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double r = std::stod(t.cell(i, ref_nsc));
    worst = std::max(worst, std::abs(d.input.score[i] - r) / r);
    CHECK(d.input.params[i] == std::stod(t.cell(i, ref_params)));
    CHECK(d.input.truth[i] == -std::stod(t.cell(i, *t.column("perplexity"))));
  }
  INFO("worst relative NSC error against mpmath: " << worst);
  CHECK(worst < 1e-13);
  // every permuted duplicate (every tenth row) ties exactly with an earlier row
  for (std::size_t i = 9; i < d.input.size(); i += 10) {
    bool tie = false;
    for (std::size_t j = 0; j < i; ++j) tie = tie || d.input.score[j] == d.input.score[i];
    CHECK(tie);
  }
  const ev::ranking_report r = ev::rank_scores(d.input);
  CHECK(*r.nsc.tau_b == Approx(ref.at("nsc_tau_b")).epsilon(1e-12));
  CHECK(*r.nsc.rho == Approx(ref.at("nsc_rho")).epsilon(1e-12));
  REQUIRE(r.baselines.size() == 2);
  CHECK(r.baselines[0].name == "params");
  CHECK(*r.baselines[0].summary.tau_b == Approx(ref.at("params_tau_b")).epsilon(1e-12));
  CHECK(*r.baselines[0].summary.rho == Approx(ref.at("params_rho")).epsilon(1e-12));
  // the bootstrap of the difference: defined, containing the point difference; the synthetic
  // perplexity is driven by #Params, so NSC is worse than #Params here
  ev::bootstrap_settings s;
  s.resamples = 500;
  const ev::ranking_report b = ev::rank_scores(d.input, s);
  REQUIRE(b.baselines[0].tau_b_diff);
  const double diff = *b.nsc.tau_b - *b.baselines[0].summary.tau_b;
  CHECK(b.baselines[0].tau_b_diff->interval[0] <= diff);
  CHECK(diff <= b.baselines[0].tau_b_diff->interval[1]);
  CHECK(b.baselines[0].tau_b_diff->v == ev::verdict::worse);
}

TEST_CASE("a table of the LTS GPT-2 benchmark reproduces nsc rank --family gpt2 bit for bit", "[rank_table][family]") {
  io::table_rank_options o;
  o.target = "valid_ppl";
  o.lower_is_better = true;
  o.id_column = "arch_id";
  o.params_source = "data";
  o.params_column = "params_nonembedding";
  const io::rank_table_data d = io::read_rank_table(source_dir + "/examples/tables/lts_gpt2.csv", o);
  const ev::family_data f = ev::load_family(
      ev::family::gpt2, std::string(NSC_SHARED_DATA_DIR) + "/" + std::string(ev::default_data_file(ev::family::gpt2)));
  REQUIRE(d.input.size() == f.size());
  CHECK(d.input.ids == f.ids);
  CHECK(d.input.score == f.score);
  CHECK(d.input.params == f.params);
  CHECK(d.input.flops == f.flops);
  CHECK(d.input.truth == f.truth);
  const ev::ranking_report a = ev::rank_scores(d.input), b = ev::rank_family_report(f);
  CHECK(a.nsc.tau_b == b.nsc.tau_b);
  CHECK(a.nsc.partial_tau == b.nsc.partial_tau);
  CHECK(a.baselines[0].summary.pw10_tau == b.baselines[0].summary.pw10_tau);
  // computed #Params: the layers (the benchmark's count adds the final LayerNorm, 2 d_model)
  o.params_source = "computed";
  const io::rank_table_data c = io::read_rank_table(source_dir + "/examples/tables/lts_gpt2.csv", o);
  CHECK(c.input.params[0] + 2 * 128 == f.params[0]);
}

TEST_CASE("the three kinds of architecture cell, CSV and JSON Lines alike", "[rank_table][kinds]") {
  io::table_rank_options o;
  o.target = "wikitext103_ppl";
  o.lower_is_better = true;
  o.id_column = "model";
  o.baselines = {"params", "params_non_embedding", "flops"};
  const auto c = io::read_rank_table(source_dir + "/examples/tables/gpt2_family.csv", o);
  const auto j = io::read_rank_table(source_dir + "/examples/tables/gpt2_family.jsonl", o);
  CHECK(c.input.score == j.input.score);
  CHECK(c.input.params == j.input.params);
  CHECK(c.input.ids == std::vector<std::string>{"gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl"});
  CHECK(c.count(io::architecture_kind::config_path) == 2);
  CHECK(c.count(io::architecture_kind::hf_config) == 1);
  CHECK(c.count(io::architecture_kind::nsc_architecture) == 1);
  // the path row is the bundled config: GPT-2's published 124,439,808 parameters
  CHECK(c.input.params[0] == 124439808);
  CHECK(c.input.baselines[1].values[3] == c.input.params[3]); // nsc JSON: layers only
  // the same config inline scores the same as through its path
  std::ifstream in(source_dir + "/examples/configs/gpt2.json");
  const std::string cfg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const io::table_architecture inline_cfg = io::score_architecture(cfg, ".", o);
  CHECK(inline_cfg.kind == io::architecture_kind::hf_config);
  CHECK(inline_cfg.nsc == c.input.score[0]);
  CHECK(io::classify_architecture("  ../x.json") == io::architecture_kind::config_path);
  CHECK(io::classify_architecture(" {\"d_model\": 1}") == io::architecture_kind::nsc_architecture);
  // overrides: psi_FS changes every row; --init hf applies to HF configs only
  io::table_rank_options fs = o;
  fs.est = nsc::estimator::fs;
  const auto f = io::read_rank_table(source_dir + "/examples/tables/gpt2_family.csv", fs);
  CHECK(f.input.score[0] != c.input.score[0]);
  CHECK(f.input.score[3] != c.input.score[3]);
  io::table_rank_options hf = o;
  hf.init = "hf";
  CHECK_THAT(error_of([&] { io::read_rank_table(source_dir + "/examples/tables/gpt2_family.csv", hf); }),
             Contains("row 4, column arch: --init hf needs a Hugging Face config"));
  hf.init = "kaiming_normal";
  CHECK(io::read_rank_table(source_dir + "/examples/tables/gpt2_family.csv", hf).input.score[2] != c.input.score[2]);
}

TEST_CASE("exact ties: layer order never splits a tie", "[rank_table][ties]") {
  std::string t = "id,arch,q\n";
  const std::string a = R"({"d_model":96,"layers":[[{"d_ff":100,"n_heads":4}],[{"d_ff":333,"n_heads":3,"n_kv_heads":1}],[{"d_ff":777,"n_heads":8}]]})";
  const std::string b = R"({"d_model":96,"layers":[[{"d_ff":777,"n_heads":8}],[{"d_ff":100,"n_heads":4}],[{"d_ff":333,"n_heads":3,"n_kv_heads":1}]]})";
  const std::string c = R"({"d_model":96,"layers":[[{"d_ff":333,"n_heads":3,"n_kv_heads":1}],[{"d_ff":777,"n_heads":8}],[{"d_ff":100,"n_heads":4}]]})";
  t += "a," + csv_quote(a) + ",1\nb," + csv_quote(b) + ",2\nc," + csv_quote(c) + ",3\nd," + csv_quote(arch_ok) + ",0\n";
  io::table_rank_options o;
  o.target = "q";
  const auto d = io::rank_table_rows(io::parse_table(t, "ties.csv"), ".", o);
  CHECK(d.input.score[0] == d.input.score[1]);
  CHECK(d.input.score[1] == d.input.score[2]);
  // tau-b counts the three as tied in NSC: pairs among a, b, c are ties, d is lower
  const auto tau = ev::kendall_tau_b(d.input.score, d.input.truth);
  CHECK(*tau == Approx(3.0 / std::sqrt(3.0 * 6.0)));
}

TEST_CASE("table ranking: every error names the table, row, column and rule", "[rank_table][errors]") {
  auto rank = [](const std::string& text, io::table_rank_options o) {
    if (o.target.empty()) o.target = "q";
    return error_of([&] { io::rank_table_rows(io::parse_table(text, "t.csv"), "/nonexistent", o); });
  };
  const std::string good = "arch,q\n" + csv_quote(arch_ok) + ",1\n" + csv_quote(arch_ok) + ",2\n";
  CHECK(rank(good, {}) == "(no error)");
  io::table_rank_options o;
  o.target = "ppl";
  CHECK(rank(good, o) == "nsc::io::rank_table_rows: t.csv: no target column 'ppl' (the columns are arch, q)");
  o = {};
  o.arch_column = "model";
  CHECK_THAT(rank(good, o), Contains("no architecture column 'model'"));
  o = {};
  o.baselines = {"params", "params"};
  CHECK_THAT(rank(good, o), Contains("baseline 'params' is given twice"));
  o.baselines = {"synflow"};
  CHECK_THAT(rank(good, o), Contains("no baseline column 'synflow'"));
  o = {};
  o.params_source = "data";
  CHECK_THAT(rank(good, o), Contains("no params column 'params'"));
  o.params_source = "guess";
  CHECK_THAT(rank(good, o), Contains("params source must be data or computed (got guess)"));
  CHECK(rank("arch,q\n" + csv_quote(arch_ok) + ",x\n" + csv_quote(arch_ok) + ",2\n", {}) ==
        "nsc::io::rank_table_rows: t.csv: row 1, column q: must be a finite number (got \"x\")");
  CHECK(rank("arch,q\n" + csv_quote(arch_ok) + ",1\n" + csv_quote(arch_ok) + ",\n", {}) ==
        "nsc::io::rank_table_rows: t.csv: fewer than 2 rows have a value of target 'q' (got 1)");
  CHECK_THAT(rank("arch,q\n,1\n" + csv_quote(arch_ok) + ",2\n", {}),
             Contains("t.csv: row 1, column arch: the architecture cell is blank"));
  CHECK_THAT(rank("arch,q\n\"{\"\"d_model\"\":\",1\n" + csv_quote(arch_ok) + ",2\n", {}),
             Contains("t.csv: row 1, column arch: invalid JSON"));
  CHECK_THAT(rank("arch,q\n\"{\"\"d_model\"\":64,\"\"layers\"\":[[{\"\"d_ff\"\":8,\"\"n_heads\"\":4},{\"\"d_ff\"\":16,\"\"n_heads\"\":4}]]}\",1\n" +
                      csv_quote(arch_ok) + ",2\n", {}),
             Contains("t.csv: row 1, column arch: an architecture needs exactly one option per layer (layer 0 has 2)"));
  CHECK_THAT(rank("arch,q\n\"{\"\"d_model\"\":64,\"\"layers\"\":[[{\"\"d_ff\"\":8,\"\"n_heads\"\":5}]]}\",1\n" +
                      csv_quote(arch_ok) + ",2\n", {}),
             Contains("row 1, column arch: /transformer/layers/0/0"));
  CHECK_THAT(rank("arch,q\n\"{\"\"model_type\"\":\"\"t5\"\"}\",1\n" + csv_quote(arch_ok) + ",2\n", {}),
             Contains("t.csv: row 1, column arch: nsc::read_hf_config: unknown model_type"));
  CHECK_THAT(rank("arch,q\nmissing.json,1\n" + csv_quote(arch_ok) + ",2\n", {}),
             Contains("row 1, column arch: nsc::io::rank_table_rows: /nonexistent/missing.json: cannot open file"));
  CHECK_THAT(rank("arch,q\n[1],1\n" + csv_quote(arch_ok) + ",2\n", {}), Contains("cannot open file"));
  CHECK_THAT(rank("arch,q\n\"{\"\"d_model\"\":" + std::string(10000, '9') + "}\",1\n", {}),
             Contains("row 1, column arch"));
  o = {};
  o.baselines = {"b"};
  CHECK(rank("arch,q,b\n" + csv_quote(arch_ok) + ",1,\n" + csv_quote(arch_ok) + ",2,3\n", o) ==
        "nsc::io::rank_table_rows: t.csv: row 1, column b: must be a finite number (got \"\")");
  // bounded work: layer counts are checked before anything is built
  CHECK_THAT(rank("arch,q\n\"{\"\"d_model\"\":64,\"\"n_layers\"\":2000000,\"\"choices\"\":[{\"\"d_ff\"\":8,\"\"n_heads\"\":4}]}\",1\n" +
                      csv_quote(arch_ok) + ",2\n", {}),
             Contains("row 1, column arch: an architecture of 2000000 layers exceeds the limit of 4096"));
  CHECK_THAT(rank("arch,q\n\"{\"\"model_type\"\":\"\"gpt2\"\",\"\"n_embd\"\":64,\"\"vocab_size\"\":100,\"\"n_positions\"\":16,\"\"n_layer\"\":5000,\"\"n_head\"\":4}\",1\n" +
                      csv_quote(arch_ok) + ",2\n", {}),
             Contains("nsc::io::rank_table_rows: t.csv: row 1, column arch: a Hugging Face config with 5000 layers exceeds the limit of 4096"));
  // a count that wraps (hidden size 1e12) is refused, never ranked
  CHECK_THAT(rank("arch,q\n\"{\"\"model_type\"\":\"\"gpt2\"\",\"\"n_embd\"\":1e12,\"\"vocab_size\"\":50257,\"\"n_positions\"\":1024,\"\"n_layer\"\":2,\"\"n_head\"\":1}\",1\n" +
                      csv_quote(arch_ok) + ",2\n", {}),
             Contains("t.csv: row 1, column arch: "));
  o = {};
  o.seq_len = 0;
  CHECK_THAT(rank(good, o), Contains("seq_len must be finite and >= 1"));
}
