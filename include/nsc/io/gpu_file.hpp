/// \file nsc/io/gpu_file.hpp
/// User-defined GPU profiles (`--gpu-file`): a small JSON file, read as untrusted input.
///
///     {"gpus": [{"name": "MyCard", "memory": "48GiB", "bandwidth_gb_s": 960,
///                "bf16_tflops": 181, "fp8_tflops": 362, "int8_tops": 362,
///                "source": "vendor sheet, 2026"}]}
///
/// (a single profile object without "gpus" is accepted too). memory: bytes as a number or with
/// a unit (nsc/io/units.hpp: "48GiB", "80GB"); bandwidth in GB/s (1e9 bytes / s); peaks dense, in
/// TFLOPS / TOPS (1e12 / s); fp8_tflops and int8_tops optional (0: none); source optional.
/// Rules (each broken one is an error naming the file, the entry and the field): name 1-64
/// printable characters, unique; memory in [1 MB, 1 PB]; bandwidth in [1, 1e6] GB/s; bf16 in
/// (0, 1e6] TFLOPS, fp8 / int8 in [0, 1e6]; at most 256 profiles; no other fields.
#ifndef NSC_IO_GPU_FILE_HPP
#define NSC_IO_GPU_FILE_HPP

#include <nsc/io/input_file.hpp>
#include <nsc/io/units.hpp>
#include <nsc/model/gpu.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace nsc::io {

namespace detail {

inline gpu_profile gpu_entry(const nlohmann::json& e, const std::string& where) {
  constexpr std::string_view fn = "nsc::io::read_gpu_file";
  auto fail = [&](const std::string& field, const std::string& rule, const nlohmann::json& v) -> void {
    throw std::invalid_argument(std::string(fn) + ": " + where + ": field '" + field + "' " + rule + " (got " +
                                json_excerpt(v) + ")");
  };
  if (!e.is_object()) fail("(entry)", "must be an object", e);
  for (auto it = e.begin(); it != e.end(); ++it)
    if (it.key() != "name" && it.key() != "memory" && it.key() != "bandwidth_gb_s" && it.key() != "bf16_tflops" &&
        it.key() != "fp8_tflops" && it.key() != "int8_tops" && it.key() != "source")
      fail(excerpt(it.key(), 40), "is not a profile field (name, memory, bandwidth_gb_s, bf16_tflops, fp8_tflops, "
                                  "int8_tops, source)",
           it.value());
  gpu_profile g;
  if (!e.contains("name") || !e["name"].is_string()) fail("name", "must be a string", e.value("name", nlohmann::json()));
  g.name = e["name"].get<std::string>();
  if (g.name.empty() || g.name.size() > 64) fail("name", "must have 1 to 64 characters", e["name"]);
  for (char c : g.name)
    if (c < 32 || c > 126) fail("name", "must be printable ASCII", e["name"]);
  if (!e.contains("memory")) fail("memory", "is required (bytes, e.g. \"48GiB\" or 48e9)", nlohmann::json());
  const nlohmann::json& m = e["memory"];
  if (m.is_string()) g.memory_bytes = parse_bytes(m.get<std::string>(), std::string(fn) + ": " + where + ": memory");
  else if (m.is_number()) g.memory_bytes = m.get<double>();
  else fail("memory", "must be a number of bytes or a string with a unit", m);
  if (!(g.memory_bytes >= 1e6 && g.memory_bytes <= 1e15)) fail("memory", "must be in [1 MB, 1 PB]", m);
  auto num_text = [](double x) {
    std::ostringstream os;
    os << x;
    return os.str();
  };
  auto number = [&](const char* field, double lo, double hi, bool required, bool open_lo) {
    if (!e.contains(field)) {
      if (required) fail(field, "is required", nlohmann::json());
      return 0.0;
    }
    const nlohmann::json& v = e[field];
    if (!v.is_number()) fail(field, "must be a number", v);
    const double x = v.get<double>();
    if (!std::isfinite(x) || x > hi || (open_lo ? !(x > lo) : x < lo))
      fail(field, std::string("must be in ") + (open_lo ? "(" : "[") + num_text(lo) + ", " + num_text(hi) + "]", v);
    return x;
  };
  g.bandwidth = number("bandwidth_gb_s", 1, 1e6, true, false) * 1e9;
  g.bf16_flops = number("bf16_tflops", 0, 1e6, true, true) * 1e12;
  g.fp8_flops = number("fp8_tflops", 0, 1e6, false, false) * 1e12;
  g.int8_ops = number("int8_tops", 0, 1e6, false, false) * 1e12;
  if (e.contains("source")) {
    if (!e["source"].is_string()) fail("source", "must be a string", e["source"]);
    g.source = excerpt(e["source"].get<std::string>(), 300);
  } else {
    g.source = "user profile (" + where + ")";
  }
  return g;
}

} // namespace detail

/// The profiles of a --gpu-file (format and rules in the file comment).
inline std::vector<gpu_profile> read_gpu_file(const std::filesystem::path& path) {
  constexpr std::string_view fn = "nsc::io::read_gpu_file";
  input_limits lim;
  lim.max_bytes = std::uintmax_t(1) << 20; // a profile list is a few hundred bytes
  lim.max_json_depth = 4;
  const nlohmann::json j = read_json_file(path, fn, lim);
  std::vector<gpu_profile> out;
  const std::string file = path.string();
  if (j.is_object() && j.contains("gpus")) {
    if (j.size() != 1) throw std::invalid_argument(std::string(fn) + ": " + file + ": only the field 'gpus' is allowed next to it");
    const nlohmann::json& list = j["gpus"];
    if (!list.is_array() || list.empty() || list.size() > 256)
      throw std::invalid_argument(std::string(fn) + ": " + file + ": 'gpus' must be a list of 1 to 256 profiles (got " +
                                  json_excerpt(list) + ")");
    for (std::size_t i = 0; i < list.size(); ++i)
      out.push_back(detail::gpu_entry(list[i], file + ": gpus[" + std::to_string(i) + "]"));
  } else {
    out.push_back(detail::gpu_entry(j, file));
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (nsc::detail::gpu_key(out[i].name) == nsc::detail::gpu_key(out[k].name))
        throw std::invalid_argument(std::string(fn) + ": " + file + ": two profiles are named '" + out[i].name + "'");
  return out;
}

} // namespace nsc::io

#endif // NSC_IO_GPU_FILE_HPP
