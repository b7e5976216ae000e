/// \file nsc/io/safetensors.hpp
/// A hardened, header-only reader of safetensors checkpoints (optional part: needs
/// nlohmann-json; the core never includes this header).
///
/// Synopsis
///
///     safetensors_header parse_safetensors_header(bytes, file_size, source)   the format's header
///     safetensors_header read_safetensors_header(path)                         ... of one file
///     checkpoint         open_checkpoint(path)     a .safetensors file, a sharded
///                                                  model.safetensors.index.json, or a directory
///     std::vector<double> read_tensor(const tensor_entry&)                     one tensor in double
///     void convert_tensor_data(bytes, n, dtype, out, source, name)             raw bytes -> double
///
/// Format (https://github.com/huggingface/safetensors): 8 bytes little-endian header length N,
/// N bytes of UTF-8 JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, optional
/// "__metadata__": {string: string}}, then the data buffer; offsets are relative to the start
/// of the buffer, tensors are stored row-major (C order), little-endian.
///
/// Every rule of the format is checked before any data is read, and a file breaking one is
/// refused with std::invalid_argument "nsc::read_safetensors: <file>: [tensor '<name>': ]<rule>
/// (got <value>)":
///  * the file holds at least the 8-byte length; N >= 2 and N <= max_header_bytes (100,000,000,
///    the limit of the format's reference implementation) and 8 + N <= file size;
///  * the header is JSON (parsed by nsc::io::parse_json: depth limit, parser errors with the
///    file) and an object; "__metadata__", if present, an object of strings;
///  * every tensor: an object with a known dtype (BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16,
///    U16, F16, BF16, I32, U32, F32, I64, U64, F64, C64), a shape of non-negative integers
///    (at most 16 dimensions) and data_offsets [begin, end] of non-negative integers with
///    begin <= end <= buffer size; prod(shape) * dtype size (checked arithmetic,
///    nsc/detail/checked.hpp) == end - begin;
///  * the tensors cover the data buffer exactly: sorted by offset, the first starts at 0, each
///    starts where the previous ends (no overlap, no gap), the last ends at the end of the file.
/// Only F64, F32, F16 and BF16 are read as numbers (read_tensor); the other dtypes are listed
/// (an integer or FP8 tensor is refused by name when read). Entries are read as stored: a NaN
/// or an infinity is a value, which psi_W refuses (nsc/io/weight_map.hpp names the tensor).
///
/// Sharded checkpoints: model.safetensors.index.json {"metadata": ..., "weight_map": {tensor:
/// file}}. Every file named must be a relative path inside the index's directory (no absolute
/// path, no '..' component, no symbolic link leading out); every tensor must be in the shard
/// the index names; a tensor in two shards is refused. A directory is read through its index if
/// it has one, else as every *.safetensors file in it (sorted by name).
///
/// Data are read with streamed reads of at most 1 MiB at a time, converted straight into the
/// caller's double buffer: peak memory is the tensor in double plus 1 MiB, whatever the dtype.
#ifndef NSC_IO_SAFETENSORS_HPP
#define NSC_IO_SAFETENSORS_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/io/input_file.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace nsc::io {

/// Limits of the reader.
struct safetensors_limits {
  std::uint64_t max_header_bytes = 100'000'000; ///< the reference implementation's limit
  std::size_t max_dims = 16;                    ///< dimensions of one tensor
  std::size_t max_json_depth = 8;               ///< the format needs 3
};

/// One tensor of a safetensors file.
struct tensor_entry {
  std::string name;
  std::string dtype;               ///< as stored: "F32", "BF16", ...
  std::vector<std::int64_t> shape; ///< row-major (C order)
  std::uint64_t begin = 0, end = 0; ///< data_offsets, relative to the data buffer
  std::uint64_t data_start = 0;    ///< absolute file offset of the data buffer (8 + N)
  std::filesystem::path file;      ///< the file that holds it
  std::int64_t elements() const {  ///< prod(shape) (checked when the header was read)
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return n;
  }
};

/// The header of one safetensors file.
struct safetensors_header {
  std::filesystem::path file;
  std::uint64_t header_bytes = 0; ///< N
  std::uint64_t file_size = 0;
  std::map<std::string, std::string> metadata; ///< "__metadata__"
  std::vector<tensor_entry> tensors;           ///< in offset order
};

/// The element size of a safetensors dtype, or nullopt if the name is not one of the format's.
inline std::optional<std::uint64_t> safetensors_dtype_size(std::string_view dtype) {
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 17> table{{
      {"BOOL", 1}, {"U8", 1}, {"I8", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"F8_E8M0", 1},
      {"I16", 2}, {"U16", 2}, {"F16", 2}, {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},
      {"I64", 8}, {"U64", 8}, {"F64", 8}, {"C64", 8}}};
  for (const auto& [name, size] : table)
    if (name == dtype) return size;
  return std::nullopt;
}

/// Whether read_tensor converts this dtype (F64, F32, F16, BF16).
inline bool safetensors_dtype_is_float(std::string_view dtype) {
  return dtype == "F64" || dtype == "F32" || dtype == "F16" || dtype == "BF16";
}

namespace detail::st {

inline constexpr std::string_view fn = "nsc::read_safetensors";

[[noreturn]] inline void fail(std::string_view source, std::string_view rule) {
  throw_input_error(fn, source, rule);
}

[[noreturn]] inline void fail_tensor(std::string_view source, std::string_view tensor,
                                     std::string_view rule) {
  std::string r = "tensor '";
  r.append(excerpt(tensor, 80)).append("': ").append(rule);
  throw_input_error(fn, source, r);
}

inline std::uint64_t le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/// A non-negative integer JSON value as uint64, or nullopt.
inline std::optional<std::uint64_t> as_count(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i >= 0) return static_cast<std::uint64_t>(i);
  }
  return std::nullopt;
}

/// IEEE binary16 -> double (exact).
inline double half_to_double(std::uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(double(mant), -24); // subnormal (or zero)
  else if (exp == 31)
    v = mant == 0 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  else
    v = std::ldexp(double(mant | 0x400), exp - 25);
  return sign ? -v : v;
}

/// bfloat16 -> double (exact: the upper half of a binary32).
inline double bf16_to_double(std::uint16_t h) {
  return double(std::bit_cast<float>(std::uint32_t(h) << 16));
}

} // namespace detail::st

/// Parses and validates a safetensors header. `bytes` holds (at least) the first
/// min(file_size, 8 + N) bytes of the file; `file_size` is the size of the whole file; `source`
/// names it in messages. Every rule in the file comment is checked; see there for the errors.
inline safetensors_header parse_safetensors_header(std::string_view bytes, std::uint64_t file_size,
                                                   const std::filesystem::path& source,
                                                   const safetensors_limits& limits = {}) {
  namespace st = detail::st;
  using nsc::detail::checked_add;
  using nsc::detail::checked_mul;
  const std::string src = source.string();
  if (file_size < 8 || bytes.size() < 8)
    st::fail(src, "file of " + std::to_string(file_size) +
                      " bytes is too short for the 8-byte header length");
  const std::uint64_t n = st::le64(reinterpret_cast<const unsigned char*>(bytes.data()));
  if (n > limits.max_header_bytes)
    st::fail(src, "header length " + std::to_string(n) + " exceeds the limit of " +
                      std::to_string(limits.max_header_bytes) + " bytes");
  if (n < 2) st::fail(src, "header length " + std::to_string(n) + " is too short for a JSON object");
  if (n > file_size - 8)
    st::fail(src, "header length " + std::to_string(n) + " exceeds the " +
                      std::to_string(file_size - 8) + " bytes after the length field");
  if (bytes.size() < 8 + n) st::fail(src, "header truncated while reading");
  const std::uint64_t buffer = file_size - 8 - n;

  input_limits jl;
  jl.max_json_depth = limits.max_json_depth;
  const nlohmann::json h = parse_json(bytes.substr(8, n), st::fn, src, jl);
  if (!h.is_object()) st::fail(src, "the header must be a JSON object (got " + json_excerpt(h) + ")");

  safetensors_header out;
  out.file = source;
  out.header_bytes = n;
  out.file_size = file_size;
  for (const auto& [key, val] : h.items()) {
    if (key == "__metadata__") {
      if (!val.is_object())
        st::fail(src, "__metadata__ must be an object of strings (got " + json_excerpt(val) + ")");
      for (const auto& [mk, mv] : val.items()) {
        if (!mv.is_string())
          st::fail(src, "__metadata__['" + excerpt(mk, 60) + "'] must be a string (got " +
                            json_excerpt(mv) + ")");
        out.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    if (!val.is_object())
      st::fail_tensor(src, key, "must be an object with dtype, shape and data_offsets (got " +
                                    json_excerpt(val) + ")");
    tensor_entry t;
    t.name = key;
    t.file = source;
    t.data_start = 8 + n;
    const auto dt = val.find("dtype");
    if (dt == val.end() || !dt->is_string())
      st::fail_tensor(src, key, "dtype must be a string");
    t.dtype = dt->get<std::string>();
    const auto esize = safetensors_dtype_size(t.dtype);
    if (!esize)
      st::fail_tensor(src, key,
                      "unknown dtype '" + excerpt(t.dtype, 40) +
                          "' (the format's dtypes: BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, "
                          "U16, F16, BF16, I32, U32, F32, I64, U64, F64, C64)");
    const auto sh = val.find("shape");
    if (sh == val.end() || !sh->is_array())
      st::fail_tensor(src, key, "shape must be a list of non-negative integers");
    if (sh->size() > limits.max_dims)
      st::fail_tensor(src, key, "shape has " + std::to_string(sh->size()) +
                                    " dimensions, more than the limit of " +
                                    std::to_string(limits.max_dims));
    std::uint64_t bytes_needed = *esize;
    for (const auto& d : *sh) {
      const auto v = st::as_count(d);
      if (!v || *v > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        st::fail_tensor(src, key, "shape must be a list of non-negative integers (got " +
                                      json_excerpt(*sh) + ")");
      t.shape.push_back(static_cast<std::int64_t>(*v));
      bytes_needed = checked_mul(bytes_needed, *v, st::fn, "tensor '" + excerpt(key, 80) + "' byte size in " + src);
    }
    const auto off = val.find("data_offsets");
    if (off == val.end() || !off->is_array() || off->size() != 2 || !st::as_count((*off)[0]) ||
        !st::as_count((*off)[1]))
      st::fail_tensor(src, key, "data_offsets must be [begin, end] with non-negative integers" +
                                    (off == val.end() ? std::string() : " (got " + json_excerpt(*off) + ")"));
    t.begin = *st::as_count((*off)[0]);
    t.end = *st::as_count((*off)[1]);
    if (t.begin > t.end)
      st::fail_tensor(src, key, "data_offsets begin " + std::to_string(t.begin) +
                                    " is after end " + std::to_string(t.end));
    if (t.end > buffer)
      st::fail_tensor(src, key, "data_offsets end " + std::to_string(t.end) +
                                    " is past the end of the data buffer (" +
                                    std::to_string(buffer) + " bytes)");
    if (t.end - t.begin != bytes_needed)
      st::fail_tensor(src, key, "shape x dtype size is " + std::to_string(bytes_needed) +
                                    " bytes but data_offsets span " +
                                    std::to_string(t.end - t.begin));
    (void)checked_add(t.data_start, t.end, st::fn, "tensor end offset");
    out.tensors.push_back(std::move(t));
  }
  std::sort(out.tensors.begin(), out.tensors.end(), [](const tensor_entry& a, const tensor_entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t at = 0;
  const tensor_entry* prev = nullptr;
  for (const tensor_entry& t : out.tensors) {
    if (t.begin < at)
      st::fail_tensor(src, t.name, "data_offsets [" + std::to_string(t.begin) + ", " +
                                       std::to_string(t.end) + "] overlap tensor '" +
                                       excerpt(prev->name, 80) + "' (ends at " +
                                       std::to_string(at) + ")");
    if (t.begin > at)
      st::fail_tensor(src, t.name, "data_offsets begin " + std::to_string(t.begin) +
                                       " leaves a gap after offset " + std::to_string(at) +
                                       " (the buffer must be covered without holes)");
    at = t.end;
    prev = &t;
  }
  if (at != buffer)
    st::fail(src, "the tensors cover " + std::to_string(at) + " of the " + std::to_string(buffer) +
                      " bytes of the data buffer (trailing bytes or a missing tensor)");
  return out;
}

/// Reads and validates the header of a safetensors file (parse_safetensors_header). The file
/// is opened, its size taken, and only the first 8 + N bytes read.
inline safetensors_header read_safetensors_header(const std::filesystem::path& path,
                                                  const safetensors_limits& limits = {}) {
  namespace fs = std::filesystem;
  namespace st = detail::st;
  const std::string src = path.string();
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) st::fail(src, "cannot open file (no such file)");
  if (fs::is_directory(status)) st::fail(src, "is a directory, not a file");
  if (!fs::is_regular_file(status)) st::fail(src, "is not a regular file");
  const std::uint64_t size = fs::file_size(path, ec);
  if (ec) st::fail(src, "cannot read the file size");
  std::ifstream in(path, std::ios::binary);
  if (!in) st::fail(src, "cannot open file");
  std::string head(8, '\0');
  if (size >= 8) {
    in.read(head.data(), 8);
    if (in.gcount() != 8) st::fail(src, "read of the header length failed");
    const std::uint64_t n = st::le64(reinterpret_cast<const unsigned char*>(head.data()));
    if (n <= limits.max_header_bytes && n <= size - 8) {
      head.resize(static_cast<std::size_t>(8 + n));
      in.read(head.data() + 8, static_cast<std::streamsize>(n));
      if (in.gcount() != static_cast<std::streamsize>(n)) st::fail(src, "read of the header failed");
    }
  } else {
    head.clear();
  }
  return parse_safetensors_header(head, size, path, limits);
}

/// Converts `count` stored elements of a floating dtype (F64, F32, F16, BF16; little-endian)
/// at `bytes` to double in `out` (exact: every such value is a double). `source` and `name`
/// name the file and tensor in the error for another dtype: "nsc::read_safetensors: <file>:
/// tensor '<name>': dtype I8 is not read (supported: F64, F32, F16, BF16)".
inline void convert_tensor_data(const unsigned char* bytes, std::size_t count, std::string_view dtype,
                                double* out, std::string_view source, std::string_view name) {
  if (dtype == "F64") {
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t u = 0;
      for (int b = 7; b >= 0; --b) u = (u << 8) | bytes[8 * i + std::size_t(b)];
      out[i] = std::bit_cast<double>(u);
    }
  } else if (dtype == "F32") {
    for (std::size_t i = 0; i < count; ++i) {
      const unsigned char* p = bytes + 4 * i;
      const std::uint32_t u = std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 |
                              std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
      out[i] = double(std::bit_cast<float>(u));
    }
  } else if (dtype == "F16") {
    for (std::size_t i = 0; i < count; ++i)
      out[i] = detail::st::half_to_double(
          std::uint16_t(bytes[2 * i] | (std::uint16_t(bytes[2 * i + 1]) << 8)));
  } else if (dtype == "BF16") {
    for (std::size_t i = 0; i < count; ++i)
      out[i] = detail::st::bf16_to_double(
          std::uint16_t(bytes[2 * i] | (std::uint16_t(bytes[2 * i + 1]) << 8)));
  } else {
    detail::st::fail_tensor(source, name,
                            "dtype " + excerpt(dtype, 40) +
                                " is not read (supported: F64, F32, F16, BF16)");
  }
}

/// The tensor's values in double, row-major (C order) as stored; reads only the tensor's bytes,
/// in chunks of at most 1 MiB (peak memory: the result plus 1 MiB). Throws std::invalid_argument
/// naming the file and tensor for a dtype that is not F64/F32/F16/BF16, a file that is now
/// shorter than its header says, or a failed read; a tensor too large to address in memory is
/// a domain error (checked arithmetic).
inline std::vector<double> read_tensor(const tensor_entry& t) {
  namespace st = detail::st;
  const std::string src = t.file.string();
  if (!safetensors_dtype_is_float(t.dtype))
    st::fail_tensor(src, t.name,
                    "dtype " + t.dtype + " is not read (supported: F64, F32, F16, BF16)");
  const std::uint64_t esize = *safetensors_dtype_size(t.dtype);
  const std::uint64_t count = (t.end - t.begin) / esize;
  if (count > std::uint64_t(std::numeric_limits<std::ptrdiff_t>::max() / 8))
    throw std::domain_error(std::string(st::fn) + ": " + src + ": tensor '" + t.name +
                            "' has too many elements to hold in memory (" + std::to_string(count) + ")");
  std::vector<double> out(static_cast<std::size_t>(count));
  std::ifstream in(t.file, std::ios::binary);
  if (!in) st::fail_tensor(src, t.name, "cannot open the file to read the data");
  in.seekg(static_cast<std::streamoff>(t.data_start + t.begin));
  if (!in) st::fail_tensor(src, t.name, "cannot seek to the data (file truncated?)");
  const std::uint64_t chunk_elems = (std::uint64_t(1) << 20) / esize;
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(count, chunk_elems) * esize));
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t k = std::min(chunk_elems, count - done);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(k * esize));
    if (in.gcount() != static_cast<std::streamsize>(k * esize))
      st::fail_tensor(src, t.name, "read of the data failed at byte " +
                                       std::to_string(t.data_start + t.begin + done * esize) +
                                       " (file truncated or changed since its header was read?)");
    convert_tensor_data(buf.data(), static_cast<std::size_t>(k), t.dtype, out.data() + done, src,
                        t.name);
    done += k;
  }
  return out;
}

/// A checkpoint: one or more safetensors files.
struct checkpoint {
  std::filesystem::path root;        ///< the directory (or the single file)
  std::vector<std::filesystem::path> files;
  std::map<std::string, std::string> metadata; ///< first file's __metadata__
  std::vector<tensor_entry> tensors; ///< sorted by file order, then offset
  /// The tensor named `name`, or nullptr.
  const tensor_entry* find(std::string_view name) const {
    for (const tensor_entry& t : tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
};

namespace detail::st {

/// A file named by an index: a relative path inside `dir`, else an error.
inline std::filesystem::path shard_path(const std::filesystem::path& dir, const std::string& name,
                                        std::string_view index_src) {
  namespace fs = std::filesystem;
  const fs::path p(name);
  if (name.empty() || p.is_absolute() || p.has_root_name() || p.has_root_directory())
    fail(index_src, "weight_map names file '" + excerpt(name, 80) +
                        "': files must be relative paths inside the checkpoint directory");
  for (const auto& part : p)
    if (part == "..")
      fail(index_src, "weight_map names file '" + excerpt(name, 80) +
                          "': a '..' component leaves the checkpoint directory");
  const fs::path full = dir / p;
  std::error_code ec1, ec2;
  const fs::path canon_dir = fs::weakly_canonical(dir, ec1);
  const fs::path canon = fs::weakly_canonical(full, ec2);
  if (!ec1 && !ec2) {
    const auto rel = canon.lexically_relative(canon_dir);
    if (rel.empty() || *rel.begin() == "..")
      fail(index_src, "weight_map names file '" + excerpt(name, 80) +
                          "', which resolves outside the checkpoint directory (symbolic link?)");
  }
  return full;
}

inline void add_file(checkpoint& c, const std::filesystem::path& file,
                     std::map<std::string, std::size_t>& seen, const safetensors_limits& limits) {
  safetensors_header h = read_safetensors_header(file, limits);
  if (c.files.empty()) c.metadata = h.metadata;
  c.files.push_back(file);
  for (tensor_entry& t : h.tensors) {
    const auto [it, inserted] = seen.emplace(t.name, c.tensors.size());
    if (!inserted)
      fail_tensor(file.string(), t.name,
                  "is also in " + c.tensors[it->second].file.string() +
                      " (a tensor must be in one shard only)");
    c.tensors.push_back(std::move(t));
  }
}

} // namespace detail::st

/// Opens a checkpoint: `path` is a .safetensors file, a model.safetensors.index.json (any
/// *.json is read as an index), or a directory (its model.safetensors.index.json if present,
/// else every *.safetensors file in it, sorted by name). Only headers are read; every file is
/// validated (read_safetensors_header). Index rules: an object with an object "weight_map" of
/// tensor -> file strings; files inside the directory (see the file comment); each tensor in
/// the shard named; no tensor in two shards. Errors name the file, the tensor and the rule.
inline checkpoint open_checkpoint(const std::filesystem::path& path,
                                  const safetensors_limits& limits = {}) {
  namespace fs = std::filesystem;
  namespace st = detail::st;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) st::fail(path.string(), "no such file or directory");
  checkpoint c;
  std::map<std::string, std::size_t> seen;
  fs::path index;
  if (fs::is_directory(status)) {
    c.root = path;
    if (fs::exists(path / "model.safetensors.index.json")) {
      index = path / "model.safetensors.index.json";
    } else {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(path, ec))
        if (e.path().extension() == ".safetensors") files.push_back(e.path());
      if (ec) st::fail(path.string(), "cannot list the directory");
      std::sort(files.begin(), files.end());
      if (files.empty())
        st::fail(path.string(), "the directory has no model.safetensors.index.json and no "
                                "*.safetensors file");
      for (const fs::path& f : files) st::add_file(c, f, seen, limits);
      return c;
    }
  } else if (path.extension() == ".json") {
    index = path;
    c.root = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  } else {
    c.root = path;
    st::add_file(c, path, seen, limits);
    return c;
  }
  const std::string isrc = index.string();
  const nlohmann::json j = read_json_file(index, st::fn);
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    st::fail(isrc, "an index must be an object with an object 'weight_map' {tensor: file}");
  std::map<std::string, std::vector<std::string>> by_file; // file -> tensors the index puts there
  for (const auto& [tensor, file] : j["weight_map"].items()) {
    if (!file.is_string())
      st::fail(isrc, "weight_map['" + excerpt(tensor, 80) + "'] must be a file name (got " +
                         json_excerpt(file) + ")");
    by_file[file.get<std::string>()].push_back(tensor);
  }
  if (by_file.empty()) st::fail(isrc, "weight_map is empty");
  const fs::path dir = c.root;
  for (const auto& [file, names] : by_file) {
    const fs::path full = st::shard_path(dir, file, isrc);
    st::add_file(c, full, seen, limits);
  }
  for (const auto& [file, names] : by_file)
    for (const std::string& name : names) {
      const auto it = seen.find(name);
      const fs::path want = dir / fs::path(file);
      if (it == seen.end())
        st::fail(isrc, "weight_map puts tensor '" + excerpt(name, 80) + "' in " + file +
                           ", which does not contain it");
      if (c.tensors[it->second].file != want)
        st::fail(isrc, "weight_map puts tensor '" + excerpt(name, 80) + "' in " + file +
                           " but it is in " + c.tensors[it->second].file.string());
    }
  return c;
}

} // namespace nsc::io

#endif // NSC_IO_SAFETENSORS_HPP
