// Reference token ids for tests/unit/test_tokenizer.cpp, from an implementation independent
// of ours: the Rust HF `tokenizers` library (through the @anush008/tokenizers Node binding,
// tokenizers 0.22), cross-checked with the pure-JS @huggingface/tokenizers.
//
// It builds the tokenizer.json that transformers' Qwen2Converter makes from vocab.json +
// merges.txt + tokenizer_config.json (NFC, Split(regex, isolated), ByteLevel(use_regex=false),
// BPE), once per pre-tokeniser regex, and encodes every corpus text with each.
//
// Setup (node_modules outside the repo):
//   mkdir -p /tmp/tokref && cd /tmp/tokref && npm init -y &&
//     npm install @anush008/tokenizers@0.6.0 @huggingface/tokenizers@0.2.0
// Run from the repo root:
//   TOKREF_DIR=/tmp/tokref node tests/tools/make_tokenizer_reference.mjs \
//     tests/data/models/tiny-custom_voice tests/data/tokenizer/corpus.json \
//     tests/data/tokenizer/reference.json
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

const [modelDir, corpusPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: make_tokenizer_reference.mjs MODEL_DIR CORPUS_JSON OUT_JSON");
  process.exit(2);
}
const require = createRequire(path.join(process.env.TOKREF_DIR || "/tmp/tokref", "index.js"));
const rust = require("@anush008/tokenizers");
const js = require("@huggingface/tokenizers");

// Spec talker.md §3.1 (transformers Qwen2Tokenizer) and §3.3 (transformers 4.57.3
// _patch_mistral_regex), copied verbatim.
const PATTERNS = {
  qwen2: String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  mistral_fixed: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
};

function readMerges(file) {
  // As transformers Qwen2Tokenizer: skip a first "#version:" line and blank lines, split on
  // whitespace, keep the first occurrence of a pair.
  const seen = new Set();
  const merges = [];
  fs.readFileSync(file, "utf8").split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line || (i === 0 && line.startsWith("#version:"))) return;
    const parts = line.split(/\s+/);
    if (parts.length !== 2) throw new Error(`${file}:${i + 1}: bad merge line`);
    const key = parts.join(" ");
    if (!seen.has(key)) {
      seen.add(key);
      merges.push(key);
    }
  });
  return merges;
}

function tokenizerJson(pattern) {
  const vocab = JSON.parse(fs.readFileSync(path.join(modelDir, "vocab.json"), "utf8"));
  const config = JSON.parse(fs.readFileSync(path.join(modelDir, "tokenizer_config.json"), "utf8"));
  const added = Object.entries(config.added_tokens_decoder || {}).map(([id, t]) => ({
    id: Number(id), content: t.content, single_word: !!t.single_word, lstrip: !!t.lstrip,
    rstrip: !!t.rstrip, normalized: !!t.normalized, special: !!t.special,
  }));
  const byteLevel = { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false };
  return {
    version: "1.0", truncation: null, padding: null, added_tokens: added,
    normalizer: { type: "NFC" },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Split", pattern: { Regex: pattern }, behavior: "Isolated", invert: false },
      byteLevel] },
    post_processor: { ...byteLevel }, decoder: { ...byteLevel },
    model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "",
      end_of_word_suffix: "", fuse_unk: false, byte_fallback: false, ignore_merges: false,
      vocab, merges: readMerges(path.join(modelDir, "merges.txt")) },
  };
}

const corpus = JSON.parse(fs.readFileSync(corpusPath, "utf8"));
const cases = corpus.cases.map((c) => ({ name: c.name, text: c.text }));
{
  const byName = Object.fromEntries(cases.map((c) => [c.name, c.text]));
  const block = corpus.long_10k_parts.map((n) => byName[n]).join("\n\n");
  let long = block;
  while (Buffer.byteLength(long, "utf8") < 10240) long += "\n\n" + block;
  cases.push({ name: "long_10k", text: long });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tokref-"));
const out = {
  generator: "tests/tools/make_tokenizer_reference.mjs",
  reference: "HF tokenizers 0.22 (Rust) via @anush008/tokenizers 0.6.0; cross-checked with @huggingface/tokenizers 0.2.0 (pure JS)",
  model_dir: modelDir,
  cases: cases.map((c) => ({ name: c.name, text: c.text, ids: {} })),
};
let disagreements = 0;
for (const [mode, pattern] of Object.entries(PATTERNS)) {
  const spec = tokenizerJson(pattern);
  const file = path.join(tmp, `tokenizer_${mode}.json`);
  fs.writeFileSync(file, JSON.stringify(spec));
  const rustTok = rust.Tokenizer.fromFile(file);
  const jsTok = new js.Tokenizer(spec, {});
  for (const [i, c] of cases.entries()) {
    const enc = await rustTok.encode(c.text, null, { addSpecialTokens: false });
    const ids = Array.from(enc.getIds());
    out.cases[i].ids[mode] = ids;
    const jsIds = Array.from(jsTok.encode(c.text, { add_special_tokens: false }).ids);
    if (JSON.stringify(jsIds) !== JSON.stringify(ids)) {
      ++disagreements;
      console.error(`note: pure-JS tokenizer differs from Rust on ${c.name} (${mode})`);
    }
  }
}
let differ = out.cases.filter((c) => JSON.stringify(c.ids.qwen2) !== JSON.stringify(c.ids.mistral_fixed));
console.error(`cases: ${out.cases.length}; regexes differ on: ${differ.map((c) => c.name).join(", ")}`);
console.error(`pure-JS disagreements: ${disagreements}`);
fs.writeFileSync(outPath, JSON.stringify(out, null, 0).replace(/\{"name"/g, '\n{"name"') + "\n");
fs.rmSync(tmp, { recursive: true });
