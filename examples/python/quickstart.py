"""The README's Python quick start: score Llama-3.1-70B, prune it to a deployment budget, rank a
benchmark table given as a pandas DataFrame. Run from the repository root:
    python3 examples/python/quickstart.py"""
import pandas as pd

import nsc

# 1. Score a config (a path, a dict, or a transformers config object).
s = nsc.score("examples/configs/llama-3.1-70b.json", context=8192, batch=8, kv_dtype="fp8")
print(f"Llama-3.1-70B: NSC {s.nsc:,.0f}, {s.params_total / 1e9:.2f}B params, "
      f"KV cache {s.kv_cache_bytes / 2**30:.1f} GiB, memory {s.memory_bytes / 2**30:.1f} GiB")

# 2. Prune it: the exactly optimal sub-model under 40B params and 80 GB of memory.
p = nsc.prune("examples/configs/llama-3.1-70b.json", {"params": 40e9, "memory": 80e9},
              context=8192, batch=8, kv_dtype="fp8")
print(f"pruned: NSC {p.nsc:,.0f}, {p.params_total / 1e9:.2f}B params, memory {p.memory_bytes / 1e9:.1f} GB, "
      f"{p.config['num_hidden_layers']} layers")
p.save("llama-3.1-40b.json")  # a config.json: nsc.score("llama-3.1-40b.json") gives the same numbers

# 3. Rank a benchmark table: 200 GPT-2 architectures of LiteTransformerSearch and their perplexity.
df = pd.read_csv("examples/tables/lts_gpt2.csv")   # 200 LTS GPT-2 architectures, measured perplexity
r = nsc.rank(df, target="valid_ppl", lower_is_better=True, id_column="arch_id",
             params="data", params_column="params_nonembedding", seed=1)
print(r.to_pandas()[["scorer", "tau_b", "rho", "partial_tau"]].to_string(index=False))
