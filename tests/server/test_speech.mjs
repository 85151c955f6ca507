// POST /v1/audio/speech through the official openai client: every format, both stream
// formats, byte-for-byte equality with `qwen3tts speak` for the same options, and speed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Server, speak, openaiClass } from "./server_harness.mjs";

const MODEL = "tiny-custom_voice";
let server, client;
const base = { model: "qwen3tts", voice: "Ryan", input: "Hello from the server.", seed: 7,
               greedy: true, max_frames: 12 };
const speakArgs = ["--text", "Hello from the server.", "--speaker", "ryan", "--seed", "7",
                   "--greedy", "--max-frames", "12"];

before(async () => {
  server = await Server.start(MODEL);
  const OpenAI = openaiClass();
  client = new OpenAI({ apiKey: "unused", baseURL: server.url + "/v1", maxRetries: 0 });
});
after(async () => {
  const r = await server.stop();
  assert.deepEqual(r, { code: 0, signal: null });
});

async function create(extra) {
  const res = await client.audio.speech.create({ ...base, ...extra });
  return Buffer.from(await res.arrayBuffer());
}

test("wav equals speak's output byte for byte", async () => {
  const got = await create({ response_format: "wav" });
  assert.equal(got.subarray(0, 4).toString(), "RIFF");
  assert.ok(got.equals(speak(MODEL, [...speakArgs, "--format", "wav"])));
});

test("pcm equals speak's output byte for byte", async () => {
  const got = await create({ response_format: "pcm" });
  assert.equal(got.length, 12 * 1920 * 2);
  assert.ok(got.equals(speak(MODEL, [...speakArgs, "--format", "pcm"])));
});

// Three sentences: segments of at most 30 characters cut each one off.
const LONG = "The first sentence is here. A second one follows it. And the third closes.";

test("segment_chars: a long input in segments is speak --segment-chars, byte for byte", async () => {
  const args = ["--text", LONG, "--speaker", "ryan", "--seed", "7", "--max-frames", "6", "--format", "pcm"];
  const got = await create({ input: LONG, greedy: false, max_frames: 6, segment_chars: 30, response_format: "pcm" });
  const want = speak(MODEL, [...args, "--segment-chars", "30"]);
  assert.ok(got.equals(want), `${got.length} vs ${want.length} bytes`);
  assert.ok(!got.equals(speak(MODEL, args)), "one generation of the whole text differs");
  // --segment-chars on the server: every request's default, a request's field over it.
  const segmented = await Server.start(MODEL, ["--segment-chars", "30"]);
  try {
    const post = async (extra) => {
      const res = await segmented.postJson("/v1/audio/speech", { ...base, input: LONG, greedy: false, max_frames: 6,
                                                                 response_format: "pcm", ...extra });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    };
    assert.ok((await post({})).equals(want));
    assert.ok((await post({ segment_chars: 0 })).equals(speak(MODEL, args)));
    const bad = await segmented.postJson("/v1/audio/speech", { ...base, segment_chars: -1 });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /segment_chars/);
  } finally {
    assert.deepEqual(await segmented.stop(), { code: 0, signal: null });
  }
});

test("flac, mp3 and opus carry their own headers", async () => {
  assert.equal((await create({ response_format: "flac" })).subarray(0, 4).toString(), "fLaC");
  assert.equal((await create({ response_format: "opus" })).subarray(0, 4).toString(), "OggS");
  const mp3 = await create({ response_format: "mp3" });
  assert.ok(mp3.subarray(0, 3).toString() === "ID3" || (mp3[0] === 0xff && (mp3[1] & 0xe0) === 0xe0));
  assert.ok((await create({})).equals(mp3), "mp3 is the default format, as in OpenAI's API");
});

test("sse: speech.audio.delta events carry the same pcm, then speech.audio.done has usage", async () => {
  const res = await client.audio.speech.create({ ...base, response_format: "pcm", stream_format: "sse" });
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const events = (await res.text()).split("\n\n").filter((e) => e).map((e) => {
    assert.ok(e.startsWith("data: "), e);
    return JSON.parse(e.slice(6));
  });
  const deltas = events.filter((e) => e.type === "speech.audio.delta");
  assert.ok(deltas.length >= 2);
  const pcm = Buffer.concat(deltas.map((e) => Buffer.from(e.audio, "base64")));
  assert.ok(pcm.equals(speak(MODEL, [...speakArgs, "--format", "pcm"])));
  const done = events.at(-1);
  assert.equal(done.type, "speech.audio.done");
  assert.equal(done.usage.output_tokens, 12);
  assert.ok(done.usage.input_tokens > 0);
  assert.equal(done.usage.total_tokens, done.usage.input_tokens + done.usage.output_tokens);
  assert.equal(done.seed, 7);
  assert.equal(res.headers.get("x-seed"), "7");
});

// A sampled request without a seed: the server draws one, names it, and that seed repeats the
// audio (here and in the CLI). Seeds are drawn below 2^53, so JavaScript holds them exactly.
test("a request without a seed gets one in X-Seed; sending it back repeats the audio", async () => {
  const body = { model: "m", voice: "ryan", input: "Hello from the server.", max_frames: 6, response_format: "pcm" };
  const first = await server.postJson("/v1/audio/speech", body);
  assert.equal(first.status, 200);
  const seed = first.headers.get("x-seed");
  assert.match(seed ?? "", /^\d+$/);
  assert.ok(Number.isSafeInteger(Number(seed)), seed);
  const heard = Buffer.from(await first.arrayBuffer());
  const other = await server.postJson("/v1/audio/speech", body);
  assert.notEqual(other.headers.get("x-seed"), seed, "each request draws its own seed");
  await other.arrayBuffer();
  const again = await server.postJson("/v1/audio/speech", { ...body, seed: Number(seed) });
  assert.equal(again.headers.get("x-seed"), seed);
  assert.ok(Buffer.from(await again.arrayBuffer()).equals(heard));
  assert.ok(heard.equals(speak(MODEL, ["--text", body.input, "--speaker", "ryan", "--seed", seed, "--max-frames", "6",
                                       "--format", "pcm"])));
});

test("audio streams: the first chunk arrives while the synthesis is still running", async () => {
  const res = await server.postJson("/v1/audio/speech", { ...base, response_format: "pcm", max_frames: 400 });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("transfer-encoding"), "chunked");
  const reader = res.body.getReader();
  const first = await reader.read();
  assert.ok(first.value.length > 0);
  assert.equal(await server.metric("qwen3tts_active_streams"), 1);
  let total = first.value.length;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
  }
  assert.ok(total > first.value.length);
});

// speed time-stretches with the pitch kept (the pitch itself is checked on a sine in
// tests/unit/test_time_stretch.cpp); the duration is n / speed within 2 %.
test("speed: 2 gives about half the samples of 1, 0.5 about twice; 1 is untouched", async () => {
  const pcm1 = await create({ response_format: "pcm" });
  const n1 = pcm1.length / 2;
  assert.equal(n1, 12 * 1920);
  assert.ok((await create({ response_format: "pcm", speed: 1 })).equals(pcm1));
  for (const speed of [2, 0.5, 4, 0.25]) {
    const n = (await create({ response_format: "pcm", speed })).length / 2;
    const want = n1 / speed;
    assert.ok(Math.abs(n - want) <= 0.02 * want, `speed ${speed}: ${n} samples, expected about ${want}`);
  }
});

test("speed 2 in every format and both stream formats: the same stretched audio", async () => {
  const pcm = await create({ response_format: "pcm", speed: 2 });
  const wav = await create({ response_format: "wav", speed: 2 });
  assert.equal(wav.subarray(0, 4).toString(), "RIFF");
  assert.ok(wav.subarray(44).equals(pcm), "wav carries the pcm samples after its 44-byte header");
  assert.equal((await create({ response_format: "flac", speed: 2 })).subarray(0, 4).toString(), "fLaC");
  assert.equal((await create({ response_format: "opus", speed: 2 })).subarray(0, 4).toString(), "OggS");
  assert.ok((await create({ response_format: "mp3", speed: 2 })).length > 0);
  const res = await client.audio.speech.create({ ...base, response_format: "pcm", stream_format: "sse", speed: 2 });
  const events = (await res.text()).split("\n\n").filter((e) => e).map((e) => JSON.parse(e.slice(6)));
  const deltas = events.filter((e) => e.type === "speech.audio.delta");
  assert.ok(Buffer.concat(deltas.map((e) => Buffer.from(e.audio, "base64"))).equals(pcm));
  assert.equal(events.at(-1).type, "speech.audio.done");
});

test("speed 1.5 still streams: the first chunk arrives while the synthesis is running", async () => {
  const res = await server.postJson("/v1/audio/speech",
                                    { ...base, response_format: "pcm", max_frames: 400, speed: 1.5 });
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  const first = await reader.read();
  assert.ok(first.value.length > 0);
  assert.equal(await server.metric("qwen3tts_active_streams"), 1);
  let total = first.value.length;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
  }
  assert.ok(total > first.value.length);
});

test("GET /v1/models lists the one model with its speakers", async () => {
  const list = await client.models.list();
  assert.equal(list.data.length, 1);
  assert.equal(list.data[0].object, "model");
  assert.ok(list.data[0].speakers.includes("ryan"));
});

test("GET /metrics is Prometheus text with the request counters and histograms", async () => {
  const res = await server.fetch("/metrics");
  assert.match(res.headers.get("content-type"), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  assert.match(text, /qwen3tts_requests_total\{path="\/v1\/audio\/speech",status="200"\} \d+/);
  assert.match(text, /# TYPE qwen3tts_time_to_first_audio_seconds histogram/);
  assert.match(text, /qwen3tts_real_time_factor_count \d+/);
  assert.match(text, /qwen3tts_frames_generated_total \d+/);
  assert.match(text, /qwen3tts_queue_depth 0/);
});

test("GET / is the page, inline, with no external resource", async () => {
  const res = await server.fetch("/");
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.match(html, /<title>qwen3tts<\/title>/);
  assert.doesNotMatch(html, /(src|href)="https?:/);
});
