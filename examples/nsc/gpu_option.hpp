// The --gpu / --gpu-file options of nsc fit, prune and design: a built-in data-sheet profile
// (nsc/model/gpu.hpp) or one of a user's JSON file (nsc/io/gpu_file.hpp).
#ifndef NSC_EXAMPLES_GPU_OPTION_HPP
#define NSC_EXAMPLES_GPU_OPTION_HPP

#include <CLI/CLI.hpp>
#include <nsc/io/gpu_file.hpp>
#include <nsc/io/input_file.hpp>
#include <nsc/io/units.hpp>
#include <nsc/model/gpu.hpp>
#include <nsc/model/serving.hpp>

#include <optional>

#include <stdexcept>
#include <string>
#include <vector>

namespace nsc_cli {

/// The GPU profile of --gpu / --gpu-file (shared with nsc prune / design).
inline nsc::gpu_profile gpu_option(const std::string& name, const std::string& file, const char* cmd) {
  if (!file.empty()) {
    const std::vector<nsc::gpu_profile> list = nsc::io::read_gpu_file(file);
    if (name.empty()) {
      if (list.size() == 1) return list[0];
      throw std::invalid_argument(std::string(cmd) + ": --gpu-file " + file + " has " + std::to_string(list.size()) +
                                  " profiles: name one with --gpu");
    }
    for (const auto& g : list)
      if (nsc::detail::gpu_key(g.name) == nsc::detail::gpu_key(name)) return g;
  }
  if (name.empty()) throw std::invalid_argument(std::string(cmd) + ": give --gpu NAME (" + nsc::gpu_names() + ") or --gpu-file");
  if (auto g = nsc::find_gpu(name)) return *g;
  throw std::invalid_argument(std::string(cmd) + ": --gpu '" + nsc::io::excerpt(name, 40) + "' is not a known GPU (" +
                              nsc::gpu_names() + "; or describe yours with --gpu-file)");
}

/// The GPU and engine options shared by nsc fit and nsc prune (texts, parsed by serving()).
struct serving_options {
  std::string gpu, gpu_file;
  std::optional<std::string> utilization, reserve, prefill_chunk;
  std::string bw_eff = "0.8", compute_eff = "0.7";
  bool any_gpu() const { return !gpu.empty() || !gpu_file.empty(); }
};

/// Adds --gpu, --gpu-file, --gpu-memory-utilization, --reserve, --prefill-chunk,
/// --bandwidth-efficiency, --compute-efficiency; `scope` prefixes the help ("generic: ").
inline void add_serving_options(CLI::App* sub, serving_options& o, const std::string& scope) {
  sub->add_option("--gpu", o.gpu, scope + "a GPU: " + nsc::gpu_names() + " (or a name in --gpu-file)");
  sub->add_option("--gpu-file", o.gpu_file, scope + "JSON with your own GPU profile(s) (README: nsc fit)");
  sub->add_option("--gpu-memory-utilization", o.utilization, scope + "the engine's share of GPU memory (default 0.9, vLLM's)");
  sub->add_option("--reserve", o.reserve, scope + "per-GPU memory for the CUDA context and workspaces (default 0.5GiB)");
  sub->add_option("--prefill-chunk", o.prefill_chunk,
                  scope + "max_num_batched_tokens (default vLLM's: 8192 on >= 70 GiB GPUs but A100, else 2048)");
  sub->add_option("--bandwidth-efficiency", o.bw_eff, scope + "sustained share of the data-sheet bandwidth (default 0.8)");
  sub->add_option("--compute-efficiency", o.compute_eff, scope + "sustained share of the dense data-sheet peak (default 0.7)");
}

/// The serving settings of the options (defaults: nsc::serving_settings'); `cmd` names the command.
inline nsc::serving_settings serving(const serving_options& o, const std::string& cmd) {
  nsc::serving_settings s;
  s.gpu = gpu_option(o.gpu, o.gpu_file, cmd.c_str());
  if (o.utilization) s.gpu_memory_utilization = nsc::io::parse_fraction(*o.utilization, cmd + ": --gpu-memory-utilization");
  if (o.reserve) s.reserve_bytes = nsc::io::parse_bytes(*o.reserve, cmd + ": --reserve");
  if (o.prefill_chunk) s.prefill_chunk = nsc::io::parse_tokens(*o.prefill_chunk, cmd + ": --prefill-chunk", 1, 1 << 24);
  s.bandwidth_efficiency = nsc::io::parse_fraction(o.bw_eff, cmd + ": --bandwidth-efficiency");
  s.compute_efficiency = nsc::io::parse_fraction(o.compute_eff, cmd + ": --compute-efficiency");
  return s;
}

} // namespace nsc_cli

#endif
