/// \file nsc/io/safetensors_writer.hpp
/// A streaming, header-only writer of safetensors files and sharded checkpoints (optional part:
/// needs nlohmann-json; the reader is nsc/io/safetensors.hpp).
///
/// Synopsis
///
///     std::vector<written_tensor> t = {{"w", "BF16", {4096, 4096}}, ...};
///     shard_plan p = plan_shards(t, 5'000'000'000);        // consecutive tensors, <= the size
///     safetensors_file_writer w(dir / p.files[0], subset, {{"format", "pt"}});
///     w.write(bytes, n); ... w.finish();                   // the tensors' data, in order
///     nlohmann::json idx = safetensors_index(t, p);         // model.safetensors.index.json
///     encode_from_double(dtype, values, n, out)             // double -> F64/F32/F16/BF16 bytes
///
/// Format (https://github.com/huggingface/safetensors): 8-byte little-endian header length N,
/// N bytes of JSON {name: {"dtype", "shape", "data_offsets"}, "__metadata__": {...}} padded with
/// spaces to a multiple of 8 (as the reference implementation pads), then the tensors' data
/// back to back in the order given (row-major, little-endian). The header is written first from
/// the declared shapes, so the data can be streamed tensor by tensor without holding a tensor:
/// the writer checks that exactly prod(shape) x dtype size bytes arrive for each tensor, in
/// order, and every fwrite / fflush / fclose is checked. Errors are std::invalid_argument
/// (a bad declaration: unknown dtype, negative dimension, duplicate name, more data than
/// declared) or std::runtime_error (the file system: "nsc::safetensors_file_writer: <file>:
/// write failed: <errno text>"), each naming the file and tensor. A writer destroyed before
/// finish() closes its file and leaves it incomplete (the caller reports the error).
///
/// Shards (plan_shards): tensors are kept in the given order and cut into consecutive files of
/// at most `max_shard_bytes` of data each (a tensor larger than that gets a file of its own, as
/// transformers' save_pretrained does), named model-00001-of-0000N.safetensors; the index is
/// {"metadata": {"total_size": bytes}, "weight_map": {tensor: file}}.
#ifndef NSC_IO_SAFETENSORS_WRITER_HPP
#define NSC_IO_SAFETENSORS_WRITER_HPP

#include <nsc/detail/checked.hpp>
#include <nsc/error_handling.hpp>
#include <nsc/io/safetensors.hpp>

#include <nlohmann/json.hpp>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace nsc::io {

/// A tensor to write: name, safetensors dtype and shape (row-major).
struct written_tensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  /// prod(shape) x element size (checked arithmetic; the dtype must be known).
  std::uint64_t bytes() const {
    const auto es = safetensors_dtype_size(dtype);
    if (!es) throw_invalid_argument("nsc::written_tensor", "tensor '" + name + "': unknown dtype", dtype);
    std::uint64_t b = *es;
    for (std::int64_t d : shape) {
      if (d < 0) throw_invalid_argument("nsc::written_tensor", "tensor '" + name + "': dimensions must be >= 0", d);
      b = nsc::detail::checked_mul(b, std::uint64_t(d), "nsc::written_tensor", "tensor byte size");
    }
    return b;
  }
};

/// Writes one safetensors file: the header at construction, then the data of each declared
/// tensor in order through write(), then finish().
class safetensors_file_writer {
public:
  safetensors_file_writer(const std::filesystem::path& file, std::vector<written_tensor> tensors,
                          const std::map<std::string, std::string>& metadata = {{"format", "pt"}})
      : file_(file), tensors_(std::move(tensors)) {
    constexpr std::string_view fn = "nsc::safetensors_file_writer";
    nlohmann::json h = nlohmann::json::object();
    if (!metadata.empty()) {
      nlohmann::json m = nlohmann::json::object();
      for (const auto& [k, v] : metadata) m[k] = v;
      h["__metadata__"] = m;
    }
    std::set<std::string> names;
    std::uint64_t at = 0;
    for (const written_tensor& t : tensors_) {
      if (t.name.empty() || t.name == "__metadata__")
        throw_invalid_argument(fn, file_.string() + ": a tensor name must be non-empty and not __metadata__", t.name);
      if (!names.insert(t.name).second)
        throw_invalid_argument(fn, file_.string() + ": tensor declared twice", t.name);
      const std::uint64_t b = t.bytes();
      sizes_.push_back(b);
      h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + b}}};
      at = nsc::detail::checked_add(at, b, fn, "data size");
    }
    std::string text = h.dump();
    while ((8 + text.size()) % 8 != 0) text.push_back(' ');
    f_ = std::fopen(file_.string().c_str(), "wb");
    if (!f_) fail_io("cannot open for writing");
    unsigned char len[8];
    std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
    put(len, 8);
    put(reinterpret_cast<const unsigned char*>(text.data()), text.size());
    skip_empty();
  }
  safetensors_file_writer(const safetensors_file_writer&) = delete;
  safetensors_file_writer& operator=(const safetensors_file_writer&) = delete;
  ~safetensors_file_writer() {
    if (f_) std::fclose(f_);
  }

  /// Appends `n` bytes of data of the current tensor (they may end it and start the next ones).
  void write(const unsigned char* p, std::size_t n) {
    while (n > 0) {
      if (cur_ >= tensors_.size())
        throw_invalid_argument("nsc::safetensors_file_writer",
                               file_.string() + ": more data than the declared tensors hold (bytes left over)", n);
      const std::uint64_t room = sizes_[cur_] - done_;
      const std::size_t k = std::size_t(std::min<std::uint64_t>(room, n));
      put(p, k);
      p += k;
      n -= k;
      done_ += k;
      if (done_ == sizes_[cur_]) {
        ++cur_;
        done_ = 0;
        skip_empty();
      }
    }
  }
  /// The tensor whose data write() expects next ("" when all are complete).
  std::string current() const { return cur_ < tensors_.size() ? tensors_[cur_].name : std::string(); }

  /// Checks that every declared byte was written, flushes and closes (each step checked).
  void finish() {
    if (cur_ < tensors_.size())
      throw_invalid_argument("nsc::safetensors_file_writer",
                             file_.string() + ": tensor '" + tensors_[cur_].name + "' is incomplete (bytes written)",
                             done_);
    const bool ok_flush = std::fflush(f_) == 0;
    const int e = errno;
    const bool ok_close = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok_flush || !ok_close) {
      errno = ok_flush ? errno : e;
      fail_io("flush / close failed");
    }
  }

private:
  void skip_empty() {
    while (cur_ < tensors_.size() && sizes_[cur_] == 0) ++cur_;
  }
  void put(const unsigned char* p, std::size_t n) {
    if (n > 0 && std::fwrite(p, 1, n, f_) != n) fail_io("write failed");
  }
  [[noreturn]] void fail_io(const char* what) {
    throw std::runtime_error("nsc::safetensors_file_writer: " + file_.string() + ": " + what + ": " +
                             std::strerror(errno));
  }
  std::filesystem::path file_;
  std::vector<written_tensor> tensors_;
  std::vector<std::uint64_t> sizes_;
  std::FILE* f_ = nullptr;
  std::size_t cur_ = 0;
  std::uint64_t done_ = 0;
};

/// Tensors cut into shard files (plan_shards).
struct shard_plan {
  std::vector<std::vector<std::size_t>> shards; ///< indices into the tensor list, per file
  std::vector<std::string> files;               ///< model-0000i-of-0000N.safetensors
  std::uint64_t total_bytes = 0;
};

/// Consecutive shards of at most `max_shard_bytes` data each (a larger tensor alone); see the
/// file comment. max_shard_bytes >= 1.
inline shard_plan plan_shards(const std::vector<written_tensor>& tensors, std::uint64_t max_shard_bytes) {
  if (max_shard_bytes < 1) throw_invalid_argument("nsc::plan_shards", "max_shard_bytes must be >= 1", max_shard_bytes);
  shard_plan p;
  std::uint64_t in_shard = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::uint64_t b = tensors[i].bytes();
    if (p.shards.empty() || (in_shard > 0 && in_shard + b > max_shard_bytes)) {
      p.shards.emplace_back();
      in_shard = 0;
    }
    p.shards.back().push_back(i);
    in_shard += b;
    p.total_bytes = nsc::detail::checked_add(p.total_bytes, b, "nsc::plan_shards", "total size");
  }
  if (p.shards.empty()) p.shards.emplace_back();
  const std::size_t n = p.shards.size();
  for (std::size_t i = 0; i < n; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "model-%05zu-of-%05zu.safetensors", i + 1, n);
    p.files.emplace_back(buf);
  }
  return p;
}

/// The model.safetensors.index.json of a plan.
inline nlohmann::json safetensors_index(const std::vector<written_tensor>& tensors, const shard_plan& p) {
  nlohmann::json wm = nlohmann::json::object();
  for (std::size_t s = 0; s < p.shards.size(); ++s)
    for (std::size_t i : p.shards[s]) wm[tensors[i].name] = p.files[s];
  return {{"metadata", {{"total_size", p.total_bytes}}}, {"weight_map", std::move(wm)}};
}

/// Encodes `n` doubles as little-endian `dtype` (F64, F32, F16 or BF16) into `out` (n x size
/// bytes), rounding to nearest, ties to even (BF16 and F16 from the value rounded to binary32
/// first: a double rounding that can differ from direct rounding only on exact binary32 ties of
/// the 16-bit format). std::invalid_argument for another dtype.
inline void encode_from_double(std::string_view dtype, const double* v, std::size_t n, unsigned char* out) {
  auto put32 = [](unsigned char* o, std::uint32_t u) {
    for (int b = 0; b < 4; ++b) o[b] = static_cast<unsigned char>(u >> (8 * b));
  };
  if (dtype == "F64") {
    for (std::size_t i = 0; i < n; ++i) {
      const auto u = std::bit_cast<std::uint64_t>(v[i]);
      for (int b = 0; b < 8; ++b) out[8 * i + std::size_t(b)] = static_cast<unsigned char>(u >> (8 * b));
    }
  } else if (dtype == "F32") {
    for (std::size_t i = 0; i < n; ++i) put32(out + 4 * i, std::bit_cast<std::uint32_t>(static_cast<float>(v[i])));
  } else if (dtype == "BF16") {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t u = std::bit_cast<std::uint32_t>(static_cast<float>(v[i]));
      if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) u = (u | 0x00400000u); // NaN stays NaN
      else u += 0x7fffu + ((u >> 16) & 1u);
      const auto h = std::uint16_t(u >> 16);
      out[2 * i] = static_cast<unsigned char>(h);
      out[2 * i + 1] = static_cast<unsigned char>(h >> 8);
    }
  } else if (dtype == "F16") {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t u = std::bit_cast<std::uint32_t>(static_cast<float>(v[i]));
      const std::uint32_t sign = (u >> 16) & 0x8000u;
      const std::uint32_t a = u & 0x7fffffffu;
      std::uint32_t h;
      if (a >= 0x7f800000u) {
        h = a > 0x7f800000u ? 0x7e00u : 0x7c00u; // NaN, infinity
      } else if (a >= 0x477ff000u) { // rounds to >= 65520: infinity
        h = 0x7c00u;
      } else if (a >= 0x38800000u) { // normal half
        const std::uint32_t m = a + 0xfffu + ((a >> 13) & 1u) - 0x38000000u;
        h = m >> 13;
      } else { // subnormal half (or zero)
        const float f = std::bit_cast<float>(a);
        h = static_cast<std::uint32_t>(std::nearbyint(double(f) * 16777216.0)); // units of 2^-24, ties to even
      }
      h |= sign;
      out[2 * i] = static_cast<unsigned char>(h);
      out[2 * i + 1] = static_cast<unsigned char>(h >> 8);
    }
  } else {
    throw_invalid_argument("nsc::encode_from_double", "dtype must be F64, F32, F16 or BF16", dtype);
  }
}

} // namespace nsc::io

#endif // NSC_IO_SAFETENSORS_WRITER_HPP
