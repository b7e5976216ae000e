// Tests for nsc/io/table.hpp (CSV and JSON Lines tables) and the CSV layer of
// nsc/io/ground_truth.hpp built on it: RFC 4180 details, JSON Lines columns, format detection,
// every limit and error message, and the issue-13 regressions (a 200,000-column header in linear
// time, a 10 MB line quoted truncated).
#include <nsc/io/ground_truth.hpp>
#include <nsc/io/table.hpp>

#include <catch2/catch.hpp>

#include "support/errors.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace io = nsc::io;
using Catch::Contains;

namespace {

using nsc_test::error_of;

class temp_file {
public:
  temp_file(const std::string& name, const std::string& text) {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("nsc_test_table_" + std::to_string(rd()) + "_" + name);
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~temp_file() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

} // namespace

TEST_CASE("CSV tables: RFC 4180 quoting, CRLF inside quotes, BOM, blank lines", "[table][csv]") {
  const io::table t = io::parse_table("\xEF\xBB\xBF" " id ,arch,ppl\r\n"
                                      "a,\"{\"\"d\"\": 1,\r\n \"\"e\"\": 2}\",3.5\r\n"
                                      "\r\n"
                                      "b,,\n"
                                      "c,x,4",
                                      "t.csv");
  CHECK(t.format == io::table_format::csv);
  REQUIRE(t.columns == std::vector<std::string>{"id", "arch", "ppl"});
  REQUIRE(t.size() == 3);
  CHECK(t.cell(0, 1) == "{\"d\": 1,\r\n \"e\": 2}");
  CHECK(t.cell(1, 1).empty());
  CHECK(t.cell(2, 2) == "4");
  CHECK(t.column("ppl") == 2);
  CHECK_FALSE(t.column("nope"));
  CHECK(error_of([] { io::parse_table("a,b\n1,2\n3\n", "t.csv"); }) ==
        "nsc::read_table: t.csv: row 2: expected 2 fields, got 1");
  CHECK(error_of([] { io::parse_table("a,b\n1,\"2\n", "t.csv"); }) ==
        "nsc::read_table: t.csv: row 1: unterminated quoted field");
  CHECK(error_of([] { io::parse_table("a,\"b\"x\n", "t.csv"); }) ==
        "nsc::read_table: t.csv: header: unexpected character after a closing quote");
  CHECK(error_of([] { io::parse_table("a, b ,b\n", "t.csv"); }) ==
        "nsc::read_table: t.csv: duplicate column 'b'");
  CHECK(error_of([] { io::parse_table("", "t.csv", io::table_format::csv); }) ==
        "nsc::read_table: t.csv: the file is empty (no header row)");
}

TEST_CASE("table limits: columns, field size, rows", "[table][limits]") {
  io::table_limits lim;
  lim.max_columns = 3;
  lim.max_field_bytes = 8;
  lim.max_rows = 2;
  CHECK(error_of([&] { io::parse_table("a,b,c,d\n", "t.csv", io::table_format::csv, lim); }) ==
        "nsc::read_table: t.csv: header: more than 3 fields (the limit)");
  CHECK(error_of([&] { io::parse_table("a\n123456789\n", "t.csv", io::table_format::csv, lim); }) ==
        "nsc::read_table: t.csv: row 1: a field longer than 8 bytes (the limit)");
  CHECK(error_of([&] { io::parse_table("a\n\"12345\"\"6789\"\n", "t.csv", io::table_format::csv, lim); }) ==
        "nsc::read_table: t.csv: row 1: a field longer than 8 bytes (the limit)");
  CHECK(error_of([&] { io::parse_table("a\n1\n2\n3\n", "t.csv", io::table_format::csv, lim); }) ==
        "nsc::read_table: t.csv: row 3: more than 2 data rows (the limit)");
  CHECK(error_of([&] { io::parse_table("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n", "t.jsonl", io::table_format::jsonl, lim); }) ==
        "nsc::read_table: t.jsonl: row 3: more than 2 data rows (the limit)");
  io::table_limits wide = lim;
  wide.max_field_bytes = 100;
  CHECK(error_of([&] { io::parse_table("{\"a\":1,\"b\":1,\"c\":1,\"d\":1}\n", "t.jsonl", io::table_format::jsonl, wide); }) ==
        "nsc::read_table: t.jsonl: row 1: more than 3 columns (the limit)");
  CHECK(error_of([&] { io::parse_table("{\"a\":\"123456789\"}\n", "t.jsonl", io::table_format::jsonl, lim); }) ==
        "nsc::read_table: t.jsonl: row 1: a line longer than 8 bytes (the limit)");
  // the defaults, documented in the header
  const io::table_limits d;
  CHECK(d.max_columns == 65536);
  CHECK(d.max_field_bytes == std::size_t(16) << 20);
  CHECK(d.max_rows == 10'000'000);
}

TEST_CASE("JSON Lines tables: columns in order of first appearance, cell texts", "[table][jsonl]") {
  const io::table t = io::parse_table("{\"id\":\"a\",\"arch\":{\"d_model\":8},\"ppl\":3.5}\r\n"
                                      "\n"
                                      "{\"ppl\":4,\"id\":\"b\",\"extra\":true}\n"
                                      "{\"id\":null,\"arch\":\"cfg.json\",\"ppl\":1e-3}",
                                      "t.jsonl");
  CHECK(t.format == io::table_format::jsonl); // sniffed
  REQUIRE(t.columns == std::vector<std::string>{"arch", "id", "ppl", "extra"});
  REQUIRE(t.size() == 3);
  CHECK(t.cell(0, 0) == "{\"d_model\":8}");
  CHECK(t.cell(0, 2) == "3.5");
  CHECK(t.cell(0, 3).empty());
  CHECK(t.cell(1, 0).empty());
  CHECK(t.cell(1, 3) == "true");
  CHECK(t.cell(2, 1).empty());
  CHECK(t.cell(2, 0) == "cfg.json");
  CHECK(error_of([] { io::parse_table("{\"a\":1}\n[1,2]\n", "t.jsonl"); }) ==
        "nsc::read_table: t.jsonl: row 2: a JSON Lines row must be an object (got [1,2])");
  CHECK_THAT(error_of([] { io::parse_table("{\"a\":1}\n{\"a\":\n", "t.jsonl"); }),
             Contains("nsc::read_table: t.jsonl: row 2: invalid JSON"));
  CHECK_THAT(error_of([] { io::parse_table("{\"a\":" + std::string(100, '[') + "}\n", "t.jsonl"); }),
             Contains("t.jsonl: row 1: JSON nested deeper than 64 levels"));
  // Python's json literals (issue 18): a cell holds NaN / Infinity as Python spells them, which a
  // numeric column then refuses as not finite.
  const io::table py = io::parse_table("{\"id\":\"a\",\"ppl\":NaN,\"q\":-Infinity,\"s\":\"NaN\"}\n", "t.jsonl");
  CHECK(py.cell(0, 1) == "NaN");
  CHECK(py.cell(0, 2) == "-Infinity");
  CHECK(py.cell(0, 3) == "NaN");
  CHECK(error_of([] { io::parse_table("\n \n", "t.jsonl", io::table_format::jsonl); }) ==
        "nsc::read_table: t.jsonl: the file has no JSON object (no rows)");
}

TEST_CASE("table files: format by extension, then content, path in every message", "[table][file]") {
  const temp_file csv("t.csv", "a,b\n1,2\n");
  CHECK(io::read_table_file(csv.path()).format == io::table_format::csv);
  const temp_file jl("t.ndjson", "{\"a\":1}\n");
  CHECK(io::read_table_file(jl.path()).format == io::table_format::jsonl);
  const temp_file sniff("t.txt", "{\"a\":1}\n");
  CHECK(io::read_table_file(sniff.path()).format == io::table_format::jsonl);
  CHECK(io::table_format_of("x.jsonl") == io::table_format::jsonl);
  CHECK(io::table_format_of("x.tsv") == io::table_format::automatic);
  CHECK_THAT(error_of([] { io::read_table_file("/nonexistent/t.csv"); }),
             Contains("nsc::read_table: /nonexistent/t.csv: cannot open file"));
  CHECK_THAT(error_of([] { io::read_table_file(std::filesystem::temp_directory_path()); }),
             Contains("is a directory"));
  io::table_limits small;
  small.file.max_bytes = 4;
  CHECK_THAT(error_of([&] { io::read_table_file(csv.path(), io::table_format::automatic, small); }),
             Contains("exceeds the limit of 4 bytes"));
  const temp_file bad("bad.csv", "a,b\n1\n");
  CHECK(error_of([&] { io::read_table_file(bad.path()); }) ==
        "nsc::read_table: " + bad.path() + ": row 1: expected 2 fields, got 1");
}

TEST_CASE("issue 13: a 200,000-column header is read in linear time and bounded", "[table][issue13]") {
  std::string header;
  for (int i = 0; i < 200000; ++i) header += (i ? ",c" : "c") + std::to_string(i);
  header += "\n";
  io::table_limits big;
  big.max_columns = 250000;
  const auto t0 = std::chrono::steady_clock::now();
  const io::csv_table t = io::parse_csv(header, "f", big);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(t.header.size() == 200000);
  INFO("200,000 columns parsed in " << s << " s (was 42 s with the quadratic check)");
  // the default limit refuses it before building the header
  CHECK(error_of([&] { io::parse_csv(header, "f"); }) == "f: header: more than 65536 fields (the limit)");
  // duplicates still found, at the far end
  CHECK(error_of([&] { io::parse_csv(header.substr(0, header.size() - 1) + ",c0\n", "f", big); }) ==
        "f: duplicate column 'c0'");
}

TEST_CASE("issue 13: a 10 MB line is quoted truncated in errors", "[table][issue13]") {
  const std::string huge(10'000'000, 'x');
  const std::string msg = error_of([&] {
    io::parse_lts_csv("arch_id,n_layer,d_model,n_head_list,d_inner_list\na0," + huge + ",64,2,700\n");
  });
  CHECK_THAT(msg, Contains("column 'n_layer' is not an integer (got \"xxxx"));
  CHECK_THAT(msg, Contains("... (10000000 bytes)"));
  CHECK(msg.size() < 400);
  const std::string msg2 = error_of([&] { io::parse_csv("a,b\n1,2\n" + huge + "\n", "f"); });
  CHECK(msg2 == "f: row 2: expected 2 fields, got 1");
  const std::string msg3 = error_of([&] { io::parse_csv("a," + huge.substr(0, 300) + "," + huge.substr(0, 300) + "\n", "f"); });
  CHECK(msg3.size() < 300);
  CHECK_THAT(msg3, Contains("duplicate column 'xxx"));
}

TEST_CASE("ground-truth readers go through input_file limits and name the path", "[table][ground_truth]") {
  CHECK(error_of([] { io::read_lts_csv("/nonexistent/x.csv"); }) ==
        "nsc::read_lts_csv: cannot open '/nonexistent/x.csv'");
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK(error_of([&] { io::read_lts_csv(dir); }) == "nsc::read_lts_csv: " + dir + ": is a directory, not a file");
  CHECK(error_of([&] { io::read_flexibert_csv(dir); }) ==
        "nsc::read_flexibert_csv: " + dir + ": is a directory, not a file");
  CHECK(error_of([&] { io::read_autoformer_tiny_csv(dir); }) ==
        "nsc::read_autoformer_tiny_csv: " + dir + ": is a directory, not a file");
}
