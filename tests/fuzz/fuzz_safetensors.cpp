// libFuzzer harness of the safetensors reader (nsc/io/safetensors.hpp) and the weight map
// (nsc/io/weight_map.hpp): the input is a whole .safetensors file in memory. Every
// std::exception is a normal outcome (a refused file); only crashes, UB, leaks and timeouts are
// findings. Seed corpus: tests/fuzz/corpus/safetensors/ (valid files of each dtype and the
// hostile files of tests/data/safetensors/hostile).
//
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude \
//       -I/usr/include/eigen3 tests/fuzz/fuzz_safetensors.cpp -o fuzz_safetensors
//   ./fuzz_safetensors tests/fuzz/corpus/safetensors -max_total_time=60
#include <nsc/io/safetensors.hpp>
#include <nsc/io/weight_map.hpp>
#include <nsc/spectral/eigen_backend.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const nsc::io::safetensors_header h = nsc::io::parse_safetensors_header(bytes, size, "fuzz");
    nsc::io::weight_geometry g;
    g.model_type = "llama";
    g.hidden = 8;
    g.n_heads = 2;
    g.n_kv_heads = 1;
    g.head_dim = 4;
    const auto* family = nsc::io::find_family("llama");
    for (const nsc::io::tensor_entry& t : h.tensors) {
      // The header was validated: the tensor's bytes lie inside the input.
      const std::size_t esize = std::size_t(*nsc::io::safetensors_dtype_size(t.dtype));
      const std::size_t count = std::size_t(t.end - t.begin) / esize;
      std::vector<double> values(count);
      try {
        nsc::io::convert_tensor_data(data + t.data_start + t.begin, count, t.dtype, values.data(),
                                     "fuzz", t.name);
      } catch (const std::exception&) {
        continue; // a dtype that is not read
      }
      try {
        const auto m = nsc::io::map_tensor(t.name, t.shape, family, g);
        if (m && count <= 4096) {
          const Eigen::Map<const Eigen::MatrixXd> w(values.data(), Eigen::Index(t.shape[1]),
                                                    Eigen::Index(t.shape[0]));
          for (const auto& b : m->blocks) {
            const auto blk = m->transposed ? w.block(b.row0, b.col0, b.rows, b.cols)
                                           : w.block(b.col0, b.row0, b.cols, b.rows);
            (void)nsc::psi_w(blk);
          }
        }
      } catch (const std::exception&) {
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
