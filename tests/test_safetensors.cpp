// Tests for nsc/io/safetensors.hpp, nsc/io/weight_map.hpp and nsc/io/checkpoint_psi.hpp.
//
// Reference: tests/reference/gen_safetensors.py writes the checkpoints of tests/data/safetensors
// by hand (header length, JSON header, raw bytes; BF16 rounded to nearest even) and, in
// reference.csv, numpy's SVD psi of the STORED values of every scored block. The C++ side
// reads the files and computes psi_W by the Cholesky route; every block must agree to 1e-12
// relative (achieved: worst 1.5e-14, on the spiked F32 matrix; 1.7e-15 elsewhere; printed with
// NSC_VERBOSE=1).
#include <nsc/io/checkpoint_psi.hpp>
#include <nsc/io/hf_config.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/prune_checkpoint.hpp>
#include <nsc/io/safetensors.hpp>
#include <nsc/io/safetensors_writer.hpp>
#include <nsc/spectral/prefix_logdet.hpp>
#include <nsc/io/weight_map.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using Catch::Contains;
namespace io = nsc::io;

namespace {

const std::string dir = std::string(NSC_TEST_DATA_DIR) + "/safetensors/";

struct ref_block {
  std::string kind;
  std::int64_t head, row0, rows, col0, cols;
  double psi;
};

/// reference.csv: (checkpoint, tensor) -> blocks.
std::map<std::pair<std::string, std::string>, std::vector<ref_block>> reference() {
  std::ifstream in(dir + "reference.csv");
  REQUIRE(in);
  std::string line;
  std::getline(in, line);
  std::map<std::pair<std::string, std::string>, std::vector<ref_block>> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    REQUIRE(f.size() == 9);
    out[{f[0], f[1]}].push_back({f[2], std::stoll(f[3]), std::stoll(f[4]), std::stoll(f[5]),
                                 std::stoll(f[6]), std::stoll(f[7]), std::stod(f[8])});
  }
  return out;
}

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

bool verbose() { return std::getenv("NSC_VERBOSE") != nullptr; }

/// Checks every block of `rep` against the reference of `name`; every reference block must be
/// matched exactly once. Returns the worst relative error.
double check_against_reference(const io::weights_report& rep, const std::string& name) {
  const auto ref = reference();
  std::size_t want = 0;
  for (const auto& [key, blocks] : ref)
    if (key.first == name) want += blocks.size();
  std::size_t got = 0;
  double worst = 0;
  for (const io::matrix_psi& m : rep.matrices) {
    const auto it = ref.find({name, m.matrix.tensor});
    INFO(name << ": " << m.matrix.tensor);
    REQUIRE(it != ref.end());
    REQUIRE(it->second.size() == m.blocks.size());
    for (std::size_t i = 0; i < m.blocks.size(); ++i) {
      const io::block_psi& b = m.blocks[i];
      const ref_block& r = it->second[i];
      INFO("block " << i << " " << b.block.kind << " head " << b.block.head);
      CHECK(b.block.kind == r.kind);
      CHECK(b.block.head == r.head);
      CHECK(b.block.row0 == r.row0);
      CHECK(b.block.rows == r.rows);
      CHECK(b.block.col0 == r.col0);
      CHECK(b.block.cols == r.cols);
      CHECK(rel(b.psi_w, r.psi) < 1e-12);
      worst = std::max(worst, rel(b.psi_w, r.psi));
      ++got;
    }
  }
  CHECK(got == want);
  if (verbose()) std::printf("%s: %zu blocks, worst relative error %.2e\n", name.c_str(), got, worst);
  return worst;
}

io::weights_report report_of(const std::string& sub, const io::psi_w_report_options& o = {}) {
  const io::checkpoint ck = io::open_checkpoint(dir + sub);
  const nlohmann::json cfg = io::read_json_file(dir + sub + "/config.json", "test");
  const io::weight_geometry g = io::read_weight_geometry(cfg);
  return io::psi_w_report(ck, io::find_family(g.model_type), g, o);
}

/// The message of the std::invalid_argument thrown by f ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  } catch (const std::domain_error& e) {
    return std::string("domain_error: ") + e.what();
  }
  return "";
}

} // namespace

TEST_CASE("bare safetensors file: every 2-D float tensor by name, psi_W = numpy SVD of the stored values",
          "[safetensors]") {
  const io::checkpoint ck = io::open_checkpoint(dir + "bare.safetensors");
  REQUIRE(ck.tensors.size() == 7);
  CHECK(ck.metadata.at("format") == "pt");
  CHECK(ck.find("w_bf16")->dtype == "BF16");
  CHECK(ck.find("w_f16")->shape == std::vector<std::int64_t>{40, 24});
  CHECK(ck.find("nothing") == nullptr);
  const io::weights_report rep = io::psi_w_report(ck, nullptr, {});
  REQUIRE(rep.matrices.size() == 5);
  REQUIRE(rep.skipped.size() == 2);
  CHECK_THAT(rep.skipped[0] + rep.skipped[1], Contains("bias (1-D)") && Contains("quantised (dtype I8)"));
  check_against_reference(rep, "bare");
  for (const auto& m : rep.matrices) {
    CHECK(m.matrix.kind == "other");
    CHECK(m.blocks[0].route == nsc::psi_w_method::cholesky); // spiked (s_max = 30) included
    // psi at init: Xavier-normal psi_MP of the shape (the default scoring).
    CHECK(m.psi_init == Approx(nsc::psi_mp(double(m.matrix.out), double(m.matrix.in),
                                           2.0 / double(m.matrix.out + m.matrix.in)))
                            .epsilon(1e-14));
  }
  // The SVD route agrees.
  io::psi_w_report_options o;
  o.svd = true;
  const io::weights_report svd = io::psi_w_report(ck, nullptr, {}, o);
  check_against_reference(svd, "bare");
  CHECK(svd.matrices[0].blocks[0].route == nsc::psi_w_method::svd);
}

TEST_CASE("sharded mixed-dtype llama checkpoint: per-head Q/K/V blocks match numpy", "[safetensors]") {
  const io::checkpoint ck = io::open_checkpoint(dir + "llama_sharded");
  CHECK(ck.files.size() == 2);
  // The index itself and a shard file open too.
  CHECK(io::open_checkpoint(dir + "llama_sharded/model.safetensors.index.json").tensors.size() ==
        ck.tensors.size());
  CHECK(io::open_checkpoint(dir + "llama_sharded/model-00002-of-00002.safetensors").tensors.size() <
        ck.tensors.size());
  std::size_t progress_calls = 0;
  io::psi_w_report_options o;
  o.progress = [&](std::size_t done, std::size_t total, std::uint64_t bytes, std::uint64_t total_bytes) {
    ++progress_calls;
    CHECK(done <= total);
    CHECK(bytes <= total_bytes);
  };
  const io::weights_report rep = report_of("llama_sharded", o);
  CHECK(rep.family == "llama-like");
  CHECK(progress_calls == rep.matrices.size());
  check_against_reference(rep, "llama_sharded");
  const auto& q = rep.matrices[1];
  CHECK(q.matrix.tensor == "model.layers.0.self_attn.q_proj.weight");
  CHECK(q.matrix.layer == 0);
  CHECK(q.blocks.size() == 4);
  // psi at init: per block (16 x 64), Xavier of the block.
  CHECK(q.blocks[0].psi_init == Approx(nsc::psi_mp(16.0, 64.0, 2.0 / 80)).epsilon(1e-14));
  // --init hf: normal(initializer_range = 0.02).
  io::psi_w_report_options hf;
  hf.init_scoring.initialisation = nsc::init::normal(0.02);
  hf.init_scoring.source = nsc::variance_source::tensor;
  const io::weights_report rh = report_of("llama_sharded", hf);
  CHECK(rh.matrices[1].blocks[0].psi_init == Approx(nsc::psi_mp(16.0, 64.0, 0.0004)).epsilon(1e-14));
}

TEST_CASE("fused, transposed, interleaved, MLA and expert layouts match numpy on their slices",
          "[safetensors][weight_map]") {
  for (const char* name : {"gpt2", "phi3", "gpt_neox", "deepseek_v3", "mixtral"}) {
    INFO(name);
    const io::weights_report rep = report_of(name);
    CHECK(!rep.family.empty());
    check_against_reference(rep, name);
  }
  const io::weights_report g = report_of("gpt2");
  CHECK(g.matrices[0].matrix.transposed);
  CHECK(g.matrices[0].matrix.out == 144);
  CHECK(g.matrices[0].matrix.in == 48);
  const io::weights_report d = report_of("deepseek_v3");
  CHECK(d.matrices[0].matrix.kind == "q_a_proj");
  const io::weights_report mx = report_of("mixtral");
  bool saw_expert = false;
  for (const auto& m : mx.matrices)
    if (m.matrix.expert == 1 && m.matrix.kind == "down_proj") saw_expert = true;
  CHECK(saw_expert);
}

TEST_CASE("nsc score --weights: NSC with psi_W in place of psi_MP", "[safetensors][score]") {
  const nsc::hf_model m = nsc::read_hf_config_file(dir + "mixtral/config.json");
  const nsc::network net = nsc::hf_network(m, 16);
  const io::weights_report rep = report_of("mixtral");
  const nsc::network_score s = io::score_with_weights(net, nsc::scoring{}, rep);
  // Every scored weight of mixtral is in the checkpoint: attention + experts + router.
  double want = 0;
  for (const auto& [key, blocks] : reference())
    if (key.first == "mixtral")
      for (const ref_block& b : blocks) want += b.psi;
  CHECK(rel(s.nsc, want) < 1e-12);
  CHECK(s.part_total(nsc::part::router) > 0);
  // A merged Q/K/V scoring cannot take per-head blocks.
  nsc::hf_model merged = m;
  for (auto& b : merged.spec.blocks) b.attention.qkv = nsc::qkv_layout::merged;
  CHECK_THAT(error_of([&] { (void)io::score_with_weights(nsc::hf_network(merged, 16), nsc::scoring{}, rep); }),
             Contains("qkv_proj: the checkpoint has no matrix"));
  // Per-head o_proj: 4 blocks wanted, 1 given.
  nsc::hf_model per_head = m;
  for (auto& b : per_head.spec.blocks) b.attention.out = nsc::out_layout::per_head;
  CHECK_THAT(error_of([&] { (void)io::score_with_weights(nsc::hf_network(per_head, 16), nsc::scoring{}, rep); }),
             Contains("o_proj: the checkpoint gives 1 blocks but the scoring splits it into 4"));
}

TEST_CASE("hostile safetensors files are refused with the file, the tensor and the rule",
          "[safetensors][errors]") {
  const std::string h = dir + "hostile/";
  struct bad {
    const char* file;
    const char* rule;
  };
  for (const bad& b : {
           bad{"too_short.safetensors", "file of 3 bytes is too short"},
           bad{"header_length_1e15.safetensors", "header length 1000000000000000 exceeds the limit of 100000000 bytes"},
           bad{"header_past_end.safetensors", "bytes after the length field"},
           bad{"header_not_json.safetensors", "invalid JSON"},
           bad{"header_not_object.safetensors", "the header must be a JSON object"},
           bad{"deep_json.safetensors", "JSON nested deeper than 8 levels"},
           bad{"offsets_past_end.safetensors", "tensor 'a': data_offsets end 4800 is past the end of the data buffer (48 bytes)"},
           bad{"begin_after_end.safetensors", "tensor 'a': data_offsets begin 48 is after end 0"},
           bad{"overlap.safetensors", "tensor 'b': data_offsets [24, 48] overlap tensor 'a'"},
           bad{"gap.safetensors", "tensor 'b': data_offsets begin 36 leaves a gap after offset 24"},
           bad{"trailing_bytes.safetensors", "the tensors cover 24 of the 48 bytes"},
           bad{"shape_dtype_mismatch.safetensors", "tensor 'a': shape x dtype size is 96 bytes but data_offsets span 48"},
           bad{"shape_overflow.safetensors", "overflows the unsigned 64-bit range"},
           bad{"negative_shape.safetensors", "tensor 'a': shape must be a list of non-negative integers"},
           bad{"unknown_dtype.safetensors", "tensor 'a': unknown dtype 'F128'"},
           bad{"missing_offsets.safetensors", "tensor 'a': data_offsets must be [begin, end]"},
           bad{"bad_metadata.safetensors", "__metadata__['k'] must be a string"},
           bad{"no_such_file.safetensors", "no such file or directory"}}) {
    INFO(b.file);
    const std::string msg = error_of([&] { (void)io::open_checkpoint(h + b.file); });
    CHECK_THAT(msg, Contains(b.rule));
    CHECK_THAT(msg, Contains(b.file));
  }
  // The truncated file's own tensor would end past the buffer: that rule fires first.
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(h + "truncated.safetensors"); }),
             Contains("tensor 'a': data_offsets end 48 is past the end of the data buffer (30 bytes)"));
  // The valid one opens.
  CHECK(io::open_checkpoint(h + "valid.safetensors").tensors.size() == 1);
  // NaN / inf entries: refused by psi_w_report, naming the tensor and the first bad entry.
  const io::checkpoint nan = io::open_checkpoint(h + "nan_entries.safetensors");
  CHECK_THAT(error_of([&] { (void)io::psi_w_report(nan, nullptr, {}); }),
             Contains("nan_entries.safetensors: tensor 'a': 2 non-finite entries (first at row 0, column 2: nan)"));
  // An integer tensor is listed but not read.
  const io::checkpoint i8 = io::open_checkpoint(h + "int8_only.safetensors");
  CHECK_THAT(error_of([&] { (void)io::read_tensor(i8.tensors[0]); }),
             Contains("tensor 'q': dtype I8 is not read (supported: F64, F32, F16, BF16)"));
  CHECK(io::psi_w_report(i8, nullptr, {}).matrices.empty());
  // A directory without safetensors files.
  const auto empty = std::filesystem::temp_directory_path() / "nsc_test_safetensors_empty_dir";
  std::filesystem::create_directories(empty);
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(empty); }),
             Contains("no model.safetensors.index.json and no *.safetensors file"));
  std::filesystem::remove(empty);
}

TEST_CASE("hostile indexes: outside the directory, absolute, duplicates, wrong shard, missing file",
          "[safetensors][errors]") {
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(dir + "hostile_index_outside"); }),
             Contains("a '..' component leaves the checkpoint directory"));
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(dir + "hostile_index_absolute"); }),
             Contains("files must be relative paths inside the checkpoint directory"));
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(dir + "hostile_index_duplicate"); }),
             Contains("s2.safetensors: tensor 'a': is also in") && Contains("s1.safetensors"));
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(dir + "hostile_index_wrong_shard"); }),
             Contains("weight_map puts tensor 'b' in s1.safetensors, which does not contain it"));
  CHECK_THAT(error_of([&] { (void)io::open_checkpoint(dir + "hostile_index_missing_file"); }),
             Contains("nowhere.safetensors: cannot open file (no such file)"));
}

TEST_CASE("header parsing from memory: every rule, checked arithmetic", "[safetensors][errors]") {
  auto file = [](const std::string& json, std::uint64_t data_bytes, std::uint64_t claimed = ~0ull) {
    std::string s(8, '\0');
    const std::uint64_t n = claimed == ~0ull ? json.size() : claimed;
    for (int i = 0; i < 8; ++i) s[std::size_t(i)] = char((n >> (8 * i)) & 0xff);
    s += json;
    s.append(data_bytes, '\0');
    return s;
  };
  auto parse = [](const std::string& s) { return io::parse_safetensors_header(s, s.size(), "mem"); };
  CHECK(parse(file("{}", 0)).tensors.empty());
  CHECK(parse(file(R"({"x":{"dtype":"BF16","shape":[],"data_offsets":[0,2]}})", 2)).tensors[0].elements() == 1);
  CHECK(parse(file(R"({"x":{"dtype":"F32","shape":[0,5],"data_offsets":[0,0]}})", 0)).tensors.size() == 1);
  CHECK_THAT(error_of([&] { parse(file("{}", 0, 1)); }), Contains("header length 1 is too short"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":5})", 0)); }), Contains("tensor 'x': must be an object"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":{"dtype":7,"shape":[],"data_offsets":[0,2]}})", 2)); }),
             Contains("tensor 'x': dtype must be a string"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})", 4)); }),
             Contains("17 dimensions, more than the limit of 16"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", 4)); }),
             Contains("shape must be a list of non-negative integers"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,-4]}})", 4)); }),
             Contains("data_offsets must be [begin, end]"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}})", 4)); }),
             Contains("data_offsets must be [begin, end]"));
  CHECK_THAT(error_of([&] { parse(file(R"({"x":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551615]}})", 4)); }),
             Contains("is past the end of the data buffer"));
  CHECK_THAT(error_of([&] { parse(file(R"({"__metadata__":[1],"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4)); }),
             Contains("__metadata__ must be an object of strings"));
  // Two zero-size tensors at the same offset neither overlap nor leave a gap.
  CHECK(parse(file(R"({"x":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"y":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"z":{"dtype":"U8","shape":[0],"data_offsets":[4,4]}})", 4)).tensors.size() == 3);
}

TEST_CASE("dtype conversion is exact: F16 subnormals, infinities, BF16 rounding", "[safetensors]") {
  auto conv = [](std::vector<unsigned char> b, const char* dt) {
    std::vector<double> out(b.size() / io::safetensors_dtype_size(dt).value());
    io::convert_tensor_data(b.data(), out.size(), dt, out.data(), "mem", "t");
    return out;
  };
  const auto h = conv({0x01, 0x00, 0x00, 0x3c, 0xff, 0x7b, 0x00, 0x7c, 0x00, 0xfc, 0x01, 0x7e, 0x00, 0x80}, "F16");
  CHECK(h[0] == std::ldexp(1.0, -24)); // smallest subnormal
  CHECK(h[1] == 1.0);
  CHECK(h[2] == 65504.0);              // largest finite
  CHECK(h[3] == INFINITY);
  CHECK(h[4] == -INFINITY);
  CHECK(std::isnan(h[5]));
  CHECK(h[6] == 0.0);
  CHECK(std::signbit(h[6]));
  const auto bf = conv({0x80, 0x3f, 0x49, 0x40, 0x80, 0xff}, "BF16");
  CHECK(bf[0] == 1.0);
  CHECK(bf[1] == 3.140625);
  CHECK(bf[2] == -INFINITY);
  const auto f = conv({0x00, 0x00, 0x80, 0x3f, 0x01, 0x00, 0x00, 0x00}, "F32");
  CHECK(f[0] == 1.0);
  CHECK(f[1] == double(std::numeric_limits<float>::denorm_min()));
  const auto d = conv({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, "F64");
  CHECK(d[0] == 1.0);
  CHECK_THAT(error_of([&] { conv({1, 2}, "I16"); }), Contains("tensor 't': dtype I16 is not read"));
  CHECK(!io::safetensors_dtype_size("F128"));
  CHECK(io::safetensors_dtype_size("F8_E4M3").value() == 1);
}

TEST_CASE("weight map: families, layer names, shape mismatches", "[weight_map][errors]") {
  CHECK(io::find_family("llama")->name == "llama-like");
  CHECK(io::find_family("qwen3_moe")->name == "qwen-moe");
  CHECK(io::find_family("gemma3")->name == "llama-like");
  CHECK(io::find_family("t5") == nullptr);
  io::weight_geometry g = io::read_weight_geometry(
      nlohmann::json{{"model_type", "llama"}, {"hidden_size", 64}, {"num_attention_heads", 4},
                     {"num_key_value_heads", 2}});
  CHECK(g.head_dim == 16);
  const auto* llama = io::find_family("llama");
  const auto q = io::map_tensor("model.layers.12.self_attn.q_proj.weight", {64, 64}, llama, g);
  REQUIRE(q);
  CHECK(q->layer == 12);
  CHECK(q->blocks.size() == 4);
  CHECK(q->blocks[3].row0 == 48);
  CHECK(!io::map_tensor("model.layers.0.input_layernorm.weight", {64}, llama, g));
  const auto emb = io::map_tensor("model.embed_tokens.weight", {100, 64}, llama, g);
  CHECK(emb->kind == "other");
  CHECK(emb->layer == -1);
  CHECK_THAT(error_of([&] { (void)io::map_tensor("model.layers.0.self_attn.k_proj.weight", {48, 64}, llama, g); }),
             Contains("tensor 'model.layers.0.self_attn.k_proj.weight': has 48 output rows but "
                      "num_key_value_heads 2 x head_dim 16 = 32"));
  io::weight_geometry none;
  CHECK_THAT(error_of([&] { (void)io::map_tensor("model.layers.0.self_attn.q_proj.weight", {64, 64}, llama, none); }),
             Contains("splitting it needs num_attention_heads from the config"));
  CHECK_THAT(error_of([&] { (void)io::read_weight_geometry(nlohmann::json{{"num_attention_heads", "many"}}); }),
             Contains("field 'num_attention_heads' must be a positive integer"));
  // Nemotron-NAS: per-layer KV heads from block_configs.
  const io::weight_geometry n = io::read_weight_geometry(nlohmann::json::parse(
      R"({"model_type":"nemotron-nas","hidden_size":64,"num_attention_heads":8,
          "block_configs":[{"attention":{"n_heads_in_group":4}},{"attention":{"n_heads_in_group":8}}]})"));
  CHECK(n.kv_heads(0) == 2);
  CHECK(n.kv_heads(1) == 1);
  const auto k1 = io::map_tensor("model.layers.1.self_attn.k_proj.weight", {8, 64},
                                 io::find_family("nemotron-nas"), n);
  CHECK(k1->blocks.size() == 1);
  // Experts: {E} in the pattern.
  const auto e = io::map_tensor("model.layers.3.mlp.experts.17.up_proj.weight", {32, 64},
                                io::find_family("qwen3_moe"), g);
  CHECK(e->expert == 17);
  CHECK(e->kind == "up_proj");
  CHECK(e->part == "ffn");
}

// ---- nsc/io/safetensors_writer.hpp -------------------------------------------------------------

TEST_CASE("safetensors writer: exact round trips, round to nearest even, checked writes, shards",
          "[safetensors][writer]") {
  // Every finite F16 / BF16 value encodes back to its own bits; the midpoint of two neighbours
  // goes to the one with an even last bit (the format definition: an independent reference).
  for (const char* dt : {"F16", "BF16"}) {
    std::size_t checked = 0;
    for (std::uint32_t h = 0; h < 0xffff; ++h) {
      // 8-byte buffers: g++ cannot see that dt is a 2-byte dtype (-Warray-bounds)
      const unsigned char b[8] = {static_cast<unsigned char>(h), static_cast<unsigned char>(h >> 8)};
      const unsigned char b1[8] = {static_cast<unsigned char>(h + 1), static_cast<unsigned char>((h + 1) >> 8)};
      double v = 0, v1 = 0;
      io::convert_tensor_data(b, 1, dt, &v, "t", "t");
      io::convert_tensor_data(b1, 1, dt, &v1, "t", "t");
      if (!std::isfinite(v)) continue;
      unsigned char e[8] = {};
      io::encode_from_double(dt, &v, 1, e);
      REQUIRE((e[0] | e[1] << 8) == int(h));
      if (!std::isfinite(v1) || (h & 0x7fff) == 0x7fff || h == 0x7fff) continue;
      if ((h & 0x8000) != ((h + 1) & 0x8000)) continue;
      const double mid = (v + v1) / 2;
      io::encode_from_double(dt, &mid, 1, e);
      REQUIRE((e[0] | e[1] << 8) == int((h % 2 == 0) ? h : h + 1));
      ++checked;
    }
    CHECK(checked > 60000);
  }
  const auto path = std::filesystem::temp_directory_path() / "nsc_test_writer.safetensors";
  const std::vector<double> a = {1.5, -2.25, 3.0, 0.1, 1e-3, 65504.0};
  std::vector<io::written_tensor> decl = {
      {"a32", "F32", {2, 3}}, {"empty", "BF16", {0, 4}}, {"a16", "F16", {6}}, {"b", "BF16", {3, 2}}};
  {
    io::safetensors_file_writer w(path, decl);
    for (const char* dt : {"F32", "F16", "BF16"}) {
      std::vector<unsigned char> buf(a.size() * 8); // room for any dtype (g++ -Warray-bounds)
      io::encode_from_double(dt, a.data(), a.size(), buf.data());
      const std::size_t n = a.size() * (std::string(dt) == "F32" ? 4 : 2);
      w.write(buf.data(), n / 2); // in two pieces
      w.write(buf.data() + n / 2, n - n / 2);
    }
    CHECK(w.current().empty());
    w.finish();
  }
  const io::safetensors_header h = io::read_safetensors_header(path); // every rule of the reader
  REQUIRE(h.tensors.size() == 4);
  CHECK(h.metadata.at("format") == "pt");
  CHECK((8 + h.header_bytes) % 8 == 0);
  for (const io::tensor_entry& t : h.tensors) {
    const std::vector<double> v = io::read_tensor(t);
    if (t.name == "empty") {
      CHECK(v.empty());
      continue;
    }
    REQUIRE(v.size() == a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      CHECK(v[i] == (t.dtype == "F32" ? double(float(a[i])) : t.dtype == "F16" ? (i == 3 ? 0.0999755859375 : i == 4 ? 0.0010004043579101562 : a[i])
                                                                               : (i == 3 ? 0.10009765625 : i == 4 ? 0.00099945068359375 : i == 5 ? 65536.0 : a[i])));
  }
  { // more data than declared; incomplete; duplicate names; unknown dtype
    io::safetensors_file_writer w(path, {{"x", "F32", {1}}});
    const unsigned char z[8] = {};
    CHECK_THROWS_WITH(w.write(z, 8), Contains("more data than the declared tensors hold"));
  }
  {
    io::safetensors_file_writer w(path, {{"x", "F32", {2}}});
    const unsigned char z[4] = {};
    w.write(z, 4);
    CHECK(w.current() == "x");
    CHECK_THROWS_WITH(w.finish(), Contains("tensor 'x' is incomplete"));
  }
  CHECK_THROWS_WITH(io::safetensors_file_writer(path, {{"x", "F32", {1}}, {"x", "F32", {1}}}),
                    Contains("tensor declared twice"));
  CHECK_THROWS_WITH(io::safetensors_file_writer(path, {{"x", "F33", {1}}}), Contains("unknown dtype"));
  CHECK_THROWS_WITH(io::safetensors_file_writer("/nonexistent-dir/x.safetensors", {{"x", "F32", {1}}}),
                    Contains("cannot open for writing"));
  // Shards: consecutive, at most the size, a larger tensor alone; the index names every tensor.
  const std::vector<io::written_tensor> t = {
      {"a", "U8", {10}}, {"b", "U8", {10}}, {"c", "U8", {25}}, {"d", "U8", {5}}, {"e", "U8", {5}}};
  const io::shard_plan p = io::plan_shards(t, 20);
  REQUIRE(p.shards == std::vector<std::vector<std::size_t>>{{0, 1}, {2}, {3, 4}});
  CHECK(p.files[2] == "model-00003-of-00003.safetensors");
  CHECK(p.total_bytes == 55);
  const nlohmann::json idx = io::safetensors_index(t, p);
  CHECK(idx["weight_map"]["c"] == "model-00002-of-00003.safetensors");
  CHECK(idx["metadata"]["total_size"] == 55);
  std::filesystem::remove(path);
}

TEST_CASE("prefix psi: every nested prefix from one factorisation, greedy and ordered, = numpy slogdet",
          "[prefix_logdet]") {
  // tests/data/prefix_logdet.json: tests/reference/gen_prefix_logdet.py (brute force over subsets)
  std::ifstream f(std::string(NSC_TEST_DATA_DIR) + "/prefix_logdet.json");
  const nlohmann::json j = nlohmann::json::parse(f);
  std::vector<Eigen::MatrixXd> X;
  for (const auto& m : j["X"]) {
    Eigen::MatrixXd x(Eigen::Index(m.size()), Eigen::Index(m[0].size()));
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      for (Eigen::Index c = 0; c < x.cols(); ++c) x(r, c) = m[std::size_t(r)][std::size_t(c)].get<double>();
    X.push_back(x);
  }
  auto close = [](const std::vector<double>& a, const nlohmann::json& b, double tol) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i].get<double>()).margin(tol));
  };
  const auto all = [](std::int64_t, std::int64_t) { return true; };
  SECTION("ordered: leading minors of one Cholesky, double and float32 within the stated bound") {
    const std::vector<std::int64_t> order = j["order"].get<std::vector<std::int64_t>>();
    close(nsc::prefix_psi_ordered<double>(X[0], order), j["ordered"], 1e-12);
    const double lmax = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(X[0] * X[0].transpose()).eigenvalues().maxCoeff();
    close(nsc::prefix_psi_ordered<float>(X[0], order), j["ordered"], nsc::prefix_psi_error<float>(12, 5, lmax, 12));
  }
  SECTION("qr route (d-space, LAPACK xTPQRT): the prefixes asked for, double and float32 within its bound") {
#if defined(NSC_HAVE_OPENBLAS)
    const std::vector<std::int64_t> order = j["order"].get<std::vector<std::int64_t>>();
    const std::vector<std::int64_t> sizes{1, 2, 5, 9, 12};
    const double lmax = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(X[0] * X[0].transpose()).eigenvalues().maxCoeff();
    double lam = 0;
    const std::vector<double> p = nsc::prefix_psi_ordered_qr<double>(X[0], order, 1, sizes, &lam);
    REQUIRE(p.size() == 13);
    for (std::size_t k = 0; k < p.size(); ++k)
      if (k == 0 || std::count(sizes.begin(), sizes.end(), std::int64_t(k)))
        CHECK(p[k] == Approx(j["ordered"][k].get<double>()).margin(1e-12));
      else
        CHECK(std::isnan(p[k]));
    CHECK(lam <= lmax * (1 + 1e-9));
    CHECK(lam >= 0.9 * lmax);
    const double bound = nsc::prefix_psi_route_error<float>(nsc::prefix_psi_route::qr, 12, 5, lmax);
    const std::vector<double> pf = nsc::prefix_psi_ordered_qr<float>(X[0], order, 1, sizes);
    for (std::int64_t k : sizes) CHECK(pf[std::size_t(k)] == Approx(j["ordered"][std::size_t(k)].get<double>()).margin(bound));
    // units of 3 rows (heads), and a 700 x 160 matrix with one strong direction (lambda_max ~
    // 900) in blocks crossing the 256-row steps: the qr route against the gram route in double
    // (an independent algorithm, checked against numpy above), float32 within the stated bound
    const std::vector<std::int64_t> o3{2, 0, 3, 1};
    const std::vector<double> g3 = nsc::prefix_psi_ordered<double>(X[1], o3, 3);
    const std::vector<double> q3 = nsc::prefix_psi_ordered_qr<double>(X[1], o3, 3, {1, 2, 3, 4});
    for (std::size_t k = 0; k < g3.size(); ++k) CHECK(q3[k] == Approx(g3[k]).margin(1e-11));
    Eigen::MatrixXd big = Eigen::MatrixXd::Random(700, 160) * 0.3;
    big.col(7) += Eigen::VectorXd::Constant(700, 1.1);
    std::vector<std::int64_t> perm(700);
    for (std::int64_t i = 0; i < 700; ++i) perm[std::size_t(i)] = (i * 367) % 700;
    double lg = 0, lq = 0;
    const std::vector<double> gd = nsc::prefix_psi_ordered<double>(big, perm, 1, &lg);
    const std::vector<std::int64_t> at{3, 160, 255, 256, 300, 512, 699, 700};
    const std::vector<double> qd = nsc::prefix_psi_ordered_qr<double>(big, perm, 1, at, &lq);
    const std::vector<double> qf = nsc::prefix_psi_ordered_qr<float>(big, perm, 1, at);
    const double bf = nsc::prefix_psi_route_error<float>(nsc::prefix_psi_route::qr, 700, 160, lg);
    CHECK(lg > 800);
    CHECK(lq == Approx(lg).epsilon(1e-6));
    for (std::int64_t k : at) {
      CHECK(qd[std::size_t(k)] == Approx(gd[std::size_t(k)]).margin(1e-9));
      CHECK(std::abs(qf[std::size_t(k)] - gd[std::size_t(k)]) <= bf);
    }
    // from float32 memory as nsc prune --score weights reads a tensor: its rows (gate / up:
    // row_stride d, col_stride 1) or its columns (down: row_stride 1, col_stride n), computed
    // in double: bit-identical to the Eigen call on the same values in both layouts, and equal
    // to the gram route on those values
    const Eigen::MatrixXf bigf = big.cast<float>();
    std::vector<float> row_major(std::size_t(700 * 160));
    for (std::int64_t i = 0; i < 700; ++i)
      for (std::int64_t c = 0; c < 160; ++c) row_major[std::size_t(i * 160 + c)] = bigf(i, c);
    const std::vector<double> se = nsc::prefix_psi_ordered_qr<double>(bigf, perm, 1, at);
    const std::vector<double> sr = nsc::prefix_psi_ordered_qr<double, float>(row_major.data(), 700, 160, 160, 1, perm, 1, at);
    const std::vector<double> sc = nsc::prefix_psi_ordered_qr<double, float>(bigf.data(), 700, 160, 1, 700, perm, 1, at);
    const std::vector<double> gf = nsc::prefix_psi_ordered<double>(bigf, perm, 1);
    for (std::int64_t k : at) {
      CHECK(sr[std::size_t(k)] == se[std::size_t(k)]);
      CHECK(sc[std::size_t(k)] == se[std::size_t(k)]);
      CHECK(sr[std::size_t(k)] == Approx(gf[std::size_t(k)]).margin(1e-9));
    }
    const std::vector<double> s3 = nsc::prefix_psi_ordered_qr<double, double>(X[1].data(), 12, X[1].cols(), 1, 12, o3, 3, {1, 2, 3, 4});
    for (std::size_t k = 0; k < g3.size(); ++k) CHECK(s3[k] == Approx(g3[k]).margin(1e-11));
    CHECK_THROWS_WITH((nsc::prefix_psi_ordered_qr<double, float>(row_major.data(), 700, 160, 160, 1, perm, 3, at)),
                      Catch::Contains("nsc::prefix_psi_ordered_qr: unit must divide the rows"));
    CHECK(nsc::prefix_psi_best_route(14336, 4096) == nsc::prefix_psi_route::qr);
    CHECK(nsc::prefix_psi_best_route(4096, 4096) == nsc::prefix_psi_route::gram);
    CHECK_THROWS_WITH(nsc::prefix_psi_ordered_qr<double>(X[0], order, 1, {3, 2}),
                      Catch::Contains("nsc::prefix_psi_ordered_qr: sizes must increase within 1 .. the units"));
    CHECK_THROWS_WITH(nsc::prefix_psi_ordered_qr<double>(X[0], order, 1, {13}), Catch::Contains("sizes must increase"));
    Eigen::MatrixXd bad = X[0];
    bad(4, 2) = std::nan("");
    CHECK_THROWS_WITH(nsc::prefix_psi_ordered_qr<double>(bad, order, 1, {12}), Catch::Contains("nsc::prefix_psi_ordered_qr:"));
#else
    CHECK(nsc::prefix_psi_best_route(14336, 4096) == nsc::prefix_psi_route::gram);
#endif
  }
  SECTION("several orders from one Gram (o_proj's head orders): each = its own factorisation") {
    const std::vector<std::int64_t> order = j["order"].get<std::vector<std::int64_t>>();
    Eigen::MatrixXd g = nsc::identity_plus_gram<double>(X[0]);
    g.triangularView<Eigen::StrictlyUpper>() = g.transpose();
    double lam = 0;
    close(nsc::prefix_psi_ordered_gram<double>(g, order, 1, &lam), j["ordered"], 1e-12);
    const double lmax = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(X[0] * X[0].transpose()).eigenvalues().maxCoeff();
    CHECK(lam <= lmax * (1 + 1e-9));
    CHECK(lam >= 0.9 * lmax);
    const double lmax1 = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(X[1] * X[1].transpose()).eigenvalues().maxCoeff();
    Eigen::MatrixXd g1 = nsc::identity_plus_gram<double>(X[1]);
    g1.triangularView<Eigen::StrictlyUpper>() = g1.transpose();
    Eigen::MatrixXf g1f = g1.cast<float>();
    for (const std::vector<std::int64_t>& o : {std::vector<std::int64_t>{2, 0, 3, 1}, {3, 2, 1, 0}, {0, 1, 2, 3}}) {
      const std::vector<double> want = nsc::prefix_psi_ordered<double>(X[1], o, 3);
      const std::vector<double> got = nsc::prefix_psi_ordered_gram<double>(g1, o, 3);
      const std::vector<double> gotf = nsc::prefix_psi_ordered_gram<float>(g1f, o, 3);
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        CHECK(got[k] == Approx(want[k]).margin(1e-12));
        CHECK(std::abs(gotf[k] - want[k]) <= nsc::prefix_psi_error<float>(12, X[1].cols(), lmax1, 12));
      }
    }
    const std::vector<std::int64_t> twice{0, 1, 1, 3};
    CHECK_THROWS_WITH(nsc::prefix_psi_ordered_gram<double>(g1, twice, 3),
                      Catch::Contains("nsc::prefix_psi_ordered_gram: order must be a permutation of the units"));
  }
  SECTION("greedy over rows of three matrices jointly (one pivot order)") {
    for (int precision = 0; precision < 2; ++precision) {
      nsc::prefix_psi_greedy_result r;
      if (precision == 0) {
        std::vector<Eigen::MatrixXd> a;
        for (const auto& x : X) a.push_back(nsc::identity_plus_gram<double>(x));
        r = nsc::prefix_psi_greedy<double>(a, 1, {}, all);
      } else {
        std::vector<Eigen::MatrixXf> a;
        for (const auto& x : X) a.push_back(nsc::identity_plus_gram<float>(x));
        r = nsc::prefix_psi_greedy<float>(a, 1, {}, all);
      }
      CHECK(r.order == j["greedy1"]["order"].get<std::vector<std::int64_t>>());
      close(r.prefix, j["greedy1"]["prefix"], precision == 0 ? 1e-11 : 1e-3);
    }
  }
  SECTION("greedy over units of 3 rows with bonuses, free and round-robin") {
    const std::vector<double> bonus = j["greedy3"]["bonus"].get<std::vector<double>>();
    std::vector<Eigen::MatrixXd> a{nsc::identity_plus_gram<double>(X[1])};
    const auto r = nsc::prefix_psi_greedy<double>(a, 3, bonus, all);
    CHECK(r.order == j["greedy3"]["order"].get<std::vector<std::int64_t>>());
    close(r.prefix, j["greedy3"]["prefix"], 1e-11);
    std::vector<Eigen::MatrixXd> b{nsc::identity_plus_gram<double>(X[1])};
    const auto rr = nsc::prefix_psi_greedy<double>(b, 3, bonus, [](std::int64_t u, std::int64_t t) { return (u % 2 == 0) == (t % 2 == 0); });
    CHECK(rr.order == j["round_robin"]["order"].get<std::vector<std::int64_t>>());
    close(rr.prefix, j["round_robin"]["prefix"], 1e-11);
  }
  SECTION("bad input is refused by name") {
    CHECK_THROWS_WITH(nsc::prefix_psi_ordered<double>(X[0], {0, 1}), Catch::Contains("nsc::prefix_psi_ordered: order must list every unit once"));
    CHECK_THROWS_WITH(nsc::prefix_psi_ordered<double>(X[0], {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10}),
                      Catch::Contains("must be a permutation"));
    std::vector<Eigen::MatrixXd> a{nsc::identity_plus_gram<double>(X[0])};
    CHECK_THROWS_WITH(nsc::prefix_psi_greedy<double>(a, 5, {}, all), Catch::Contains("nsc::prefix_psi_greedy: unit must divide n"));
    a[0](3, 3) = std::nan("");
    CHECK_THROWS_WITH(nsc::prefix_psi_greedy<double>(a, 1, {}, all), Catch::Contains("not positive definite"));
  }
}

// Every family nsc prune reads has its checkpoints sliced (issue 19: the last eleven refused
// model_types became layouts() rows), and a model_type without a layout is refused naming the
// supported ones.
TEST_CASE("every family nsc prune reads has checkpoint pruning") {
  std::size_t n = 0;
  for (const auto& f : nsc::hf_families()) {
    INFO(f.model_type);
    CHECK_NOTHROW(nsc::io::detail::pc::find_layout(f.model_type));
    ++n;
  }
  CHECK(n >= 55);
  CHECK_THROWS_WITH(nsc::io::detail::pc::find_layout("xlnet"),
                    Contains("model_type 'xlnet' has no checkpoint pruning (supported: llama, mistral") &&
                        Contains("phimoe") && Contains("llama4") && Contains("bert"));
}
