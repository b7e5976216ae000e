// Test tool: loads a GGUF with llama.cpp (node-llama-cpp's prebuilt CPU build; run with
// NODE_PATH pointing at a node_modules that has node-llama-cpp@3.21.1, installed outside the
// repository) and prints, as JSON, the next-token probabilities over the whole vocabulary after
// each prefix of the given token ids (temperature 1, no top-k / top-p / min-p truncation; F32 KV
// cache).
//
//   node llama_cpp_logits.mjs MODEL.gguf 5,17,3,...  >  probs.json
import {createRequire} from "node:module";
const require = createRequire(import.meta.url);
const {getLlama} = await import(require.resolve("node-llama-cpp", {paths: (process.env.NODE_PATH || "").split(":")}));

const [model_path, token_list] = process.argv.slice(2);
const tokens = token_list.split(",").map(Number);
const llama = await getLlama({gpu: false, logLevel: "error"});
const model = await llama.loadModel({modelPath: model_path});
// an F32 KV cache (the default F16 cache rounds K and V to 11 bits: logits off by ~2e-3)
const context = await model.createContext({contextSize: 64, batchSize: 64, threads: 1, flashAttention: false,
                                          experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"});
const seq = context.getSequence();
const opts = {temperature: 1, topK: 0, topP: 1, minP: 0};
const items = tokens.map((t) => [t, {generateNext: {probabilities: true, options: opts}}]);
const res = await seq.controlledEvaluate(items);
const out = res.map((r) => {
  const p = r?.next?.probabilities;
  if (!p) return null;
  const obj = {};
  for (const [k, v] of p) obj[k] = v;
  return obj;
});
process.stdout.write(JSON.stringify({tokens, probabilities: out}) + "\n");
await context.dispose();
await model.dispose();
await llama.dispose();
