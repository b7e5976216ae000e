/// \file nsc/model/gpu.hpp
/// GPU profiles from the vendors' data sheets: memory, memory bandwidth and dense (not sparse)
/// tensor peaks at bf16, fp8 and int8, each entry with its source document.
///
/// Synopsis
///
///     gpu_datasheet {name, memory_bytes, bandwidth (B/s), bf16 / fp8 / int8 peak (op/s), source}
///     gpu_datasheets()            the built-in table (constexpr)
///     gpu_profile                 the same figures, owning its strings (table or --gpu-file)
///     find_gpu(name)              case-insensitive, '-' / '_' / ' ' ignored ("h100-sxm" finds H100-SXM)
///     gpu_names()                 "H100-SXM, H100-PCIe, ..." for messages
///
/// Conventions:
///  * Peaks are the dense tensor-core figures: data sheets print "with sparsity" figures (2:4
///    structured sparsity) that are twice the dense ones; where a sheet prints only the sparse
///    figure (NVIDIA marks it with an asterisk), the table holds half of it.
///  * bf16 is the tensor peak with fp32 accumulation (what serving GEMMs use; GeForce cards run
///    fp32 accumulation at half their fp16-accumulation rate, and their sheets list both).
///  * fp8_flops = 0: no fp8 tensor cores (Ampere); an fp8 model runs weight-only there (vLLM's
///    Marlin kernels), its math at the bf16 peak.
///  * memory_bytes is the usable capacity the sheet states, in decimal GB (80 GB = 80e9 bytes)
///    except where the sheet states binary units; bandwidth in decimal bytes per second.
#ifndef NSC_MODEL_GPU_HPP
#define NSC_MODEL_GPU_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nsc {

/// One GPU's data-sheet figures as the table stores them (constexpr).
struct gpu_datasheet {
  std::string_view name;
  double memory_bytes = 0;   ///< device memory (bytes)
  double bandwidth = 0;      ///< peak memory bandwidth (bytes / s)
  double bf16_flops = 0;     ///< dense bf16 tensor peak, fp32 accumulate (FLOP / s)
  double fp8_flops = 0;      ///< dense fp8 tensor peak (FLOP / s; 0: no fp8 tensor cores)
  double int8_ops = 0;       ///< dense int8 tensor peak (OP / s)
  std::string_view source;   ///< the data sheet (document and address)
};

/// A GPU profile (a table entry, or one read from a --gpu-file: nsc/io/gpu_file.hpp).
struct gpu_profile {
  std::string name;
  double memory_bytes = 0, bandwidth = 0, bf16_flops = 0, fp8_flops = 0, int8_ops = 0;
  std::string source;
  gpu_profile() = default;
  explicit gpu_profile(const gpu_datasheet& d)
      : name(d.name), memory_bytes(d.memory_bytes), bandwidth(d.bandwidth), bf16_flops(d.bf16_flops),
        fp8_flops(d.fp8_flops), int8_ops(d.int8_ops), source(d.source) {}
};

/// The built-in profiles (dense peaks; see the file comment).
inline constexpr std::array<gpu_datasheet, 13> builtin_gpus{{
    {"H100-SXM", 80e9, 3.35e12, 989.4e12, 1978.9e12, 1978.9e12,
     "NVIDIA H100 Tensor Core GPU datasheet (H100 SXM column; sparse figures halved), "
     "https://www.nvidia.com/en-us/data-center/h100/"},
    {"H100-PCIe", 80e9, 2.0e12, 756.5e12, 1513e12, 1513e12,
     "NVIDIA H100 Tensor Core GPU datasheet (H100 PCIe column; sparse figures halved), "
     "https://www.nvidia.com/en-us/data-center/h100/; PCIe product brief PB-11133-001: > 2,000 GB/s"},
    {"H200", 141e9, 4.8e12, 989.4e12, 1978.9e12, 1978.9e12,
     "NVIDIA H200 Tensor Core GPU datasheet (H200 SXM column; sparse figures halved), "
     "https://www.nvidia.com/en-us/data-center/h200/"},
    {"B200", 180e9, 7.7e12, 2250e12, 4500e12, 4500e12,
     "NVIDIA HGX B200 datasheet, individual Blackwell GPU (FP16/BF16 4.5, FP8 9, INT8 9 PFLOPS sparse; "
     "180 GB HBM3E, 7.7 TB/s), https://www.nvidia.com/en-us/data-center/hgx/"},
    {"A100-40GB", 40e9, 1.555e12, 312e12, 0, 624e12,
     "NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM: 1,555 GB/s; BF16 312, INT8 624 dense), "
     "https://www.nvidia.com/en-us/data-center/a100/"},
    {"A100-80GB", 80e9, 2.039e12, 312e12, 0, 624e12,
     "NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM: 2,039 GB/s; BF16 312, INT8 624 dense), "
     "https://www.nvidia.com/en-us/data-center/a100/"},
    {"L40S", 48e9, 864e9, 362.05e12, 733e12, 733e12,
     "NVIDIA L40S datasheet (BF16 362.05 / 733*, FP8 733 / 1,466*, INT8 733 / 1,466* TOPS; 864 GB/s), "
     "https://www.nvidia.com/en-us/data-center/l40s/"},
    {"L4", 24e9, 300e9, 121e12, 242.5e12, 242.5e12,
     "NVIDIA L4 Tensor Core GPU datasheet (BF16 242*, FP8 485*, INT8 485* TOPS with sparsity; 24 GB, "
     "300 GB/s), https://www.nvidia.com/en-us/data-center/l4/"},
    {"A10G", 24e9, 600e9, 70e12, 0, 140e12,
     "AWS publishes no A10G data sheet; Baseten, 'NVIDIA A10 vs A10G for ML model inference' spec table "
     "(24 GB GDDR6, 600 GB/s, FP16 tensor 70 TF, INT8 140 TOPS), "
     "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/"},
    {"RTX-4090", 24e9, 1008e9, 165.2e12, 330.3e12, 660.6e12,
     "NVIDIA Ada Lovelace GPU Architecture whitepaper v2.1, Table 2 (GeForce RTX 4090: FP16/BF16 with FP32 "
     "accumulate 165.2, FP8 with FP32 accumulate 330.3, INT8 660.6 dense; 1,008 GB/s)"},
    {"RTX-5090", 32e9, 1792e9, 209.5e12, 419e12, 838e12,
     "NVIDIA RTX Blackwell GPU Architecture whitepaper (GeForce RTX 5090: FP16/BF16 with FP32 accumulate "
     "209.5, FP8 with FP32 accumulate 419, INT8 838 dense; 32 GB GDDR7, 1,792 GB/s)"},
    {"MI300X", 192e9, 5.3e12, 1307.4e12, 2614.9e12, 2614.9e12,
     "AMD Instinct MI300X data sheet (peak FP16/BF16 1,307.4, FP8 2,614.9, INT8 2,614.9 dense; 192 GB HBM3, "
     "5.3 TB/s), https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"},
    {"A10", 24e9, 600e9, 125e12, 0, 250e12,
     "NVIDIA A10 Tensor Core GPU datasheet (BF16 125 / 250*, INT8 250 / 500* TOPS; 24 GB, 600 GB/s), "
     "https://www.nvidia.com/en-us/data-center/products/a10-gpu/"},
}};

/// The built-in table.
constexpr const std::array<gpu_datasheet, 13>& gpu_datasheets() noexcept { return builtin_gpus; }

namespace detail {
/// Lower-case letters and digits only ("H100-SXM" -> "h100sxm").
inline std::string gpu_key(std::string_view s) {
  std::string k;
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') k.push_back(char(c - 'A' + 'a'));
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) k.push_back(c);
  }
  return k;
}
} // namespace detail

/// The built-in profile named `name` (case, '-', '_' and spaces ignored), or nullopt.
inline std::optional<gpu_profile> find_gpu(std::string_view name) {
  const std::string k = detail::gpu_key(name);
  for (const gpu_datasheet& g : builtin_gpus)
    if (detail::gpu_key(g.name) == k) return gpu_profile(g);
  return std::nullopt;
}

/// The built-in names, comma separated.
inline std::string gpu_names() {
  std::string s;
  for (const gpu_datasheet& g : builtin_gpus) {
    if (!s.empty()) s += ", ";
    s += g.name;
  }
  return s;
}

} // namespace nsc

#endif // NSC_MODEL_GPU_HPP
