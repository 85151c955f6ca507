// Concurrency, the bounded queue (429), cancellation on disconnect, and SIGTERM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Server, speak } from "./server_harness.mjs";

const MODEL = "tiny-custom_voice";
const req = (voice, seed, frames, input = "Concurrent speech.") =>
  ({ model: "m", input, voice, seed, max_frames: frames, response_format: "pcm" });

test("simultaneous requests of different lengths and voices each equal their solo output", async () => {
  const server = await Server.start(MODEL, ["--max-batch", "2", "--max-queue", "16"]);
  try {
    const voices = ["ryan", "vivian", "serena", "aiden", "sohee", "eric", "dylan", "uncle_fu"];
    const jobs = Array.from({ length: 16 }, (_, i) => [voices[i % 8], i + 1, 3 + ((i * 5) % 11)]);
    const bodies = await Promise.all(jobs.map(async ([v, s, f]) => {
      const r = await server.postJson("/v1/audio/speech", req(v, s, f, `Request ${s}.`));
      assert.equal(r.status, 200);
      return Buffer.from(await r.arrayBuffer());
    }));
    jobs.forEach(([v, s, f], i) => {
      const solo = speak(MODEL, ["--text", `Request ${s}.`, "--speaker", v, "--seed", String(s),
                                 "--max-frames", String(f), "--format", "pcm"]);
      assert.ok(bodies[i].equals(solo), `request ${i} (${v}, seed ${s})`);
    });
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test("a full queue answers 429 with Retry-After; the accepted requests are intact", async () => {
  const server = await Server.start(MODEL, ["--max-batch", "1", "--max-queue", "1"]);
  try {
    const results = await Promise.all([1, 2, 3, 4].map(async (s) => {
      const r = await server.postJson("/v1/audio/speech", req("ryan", s, 150));
      return { s, status: r.status, retry: r.headers.get("retry-after"),
               body: r.status === 200 ? Buffer.from(await r.arrayBuffer()) : await r.json() };
    }));
    const refused = results.filter((r) => r.status === 429);
    const served = results.filter((r) => r.status === 200);
    assert.equal(refused.length, 2);
    assert.equal(served.length, 2);
    for (const r of refused) {
      assert.equal(r.retry, "1");
      assert.equal(r.body.error.type, "rate_limit_error");
    }
    for (const r of served) {
      const solo = speak(MODEL, ["--text", "Concurrent speech.", "--speaker", "ryan", "--seed", String(r.s),
                                 "--max-frames", "150", "--format", "pcm"]);
      assert.ok(r.body.equals(solo), `seed ${r.s}`);
    }
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test("a client that disconnects cancels its request", async () => {
  const server = await Server.start(MODEL);
  try {
    const r = await server.postJson("/v1/audio/speech", req("ryan", 1, 5000));
    const reader = r.body.getReader();
    await reader.read();
    await reader.cancel();  // closes the connection
    let cancelled = 0;
    for (let i = 0; i < 300 && cancelled !== 1; i++) {
      await new Promise((res) => setTimeout(res, 100));
      cancelled = await server.metric("qwen3tts_speech_cancelled_total");
    }
    assert.equal(cancelled, 1);
    assert.equal(await server.metric("qwen3tts_active_streams"), 0);
    const next = await server.postJson("/v1/audio/speech", req("ryan", 2, 3));
    assert.equal(next.status, 200);
    assert.equal((await next.arrayBuffer()).byteLength, 3 * 1920 * 2);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test("a client that disconnects while queued (no audio written yet) is dropped from the queue", async () => {
  const server = await Server.start(MODEL, ["--max-batch", "1", "--max-queue", "4"]);
  try {
    const long = await server.postJson("/v1/audio/speech", req("ryan", 1, 5000));
    const longReader = long.body.getReader();
    await longReader.read();
    const ac = new AbortController();
    const other = server.postJson("/v1/audio/speech", req("ryan", 2, 5));
    const waiting = fetch(server.url + "/v1/audio/speech", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req("vivian", 3, 5)),
      signal: ac.signal }).catch((e) => e.name);
    let depth = 0;
    for (let i = 0; i < 300 && depth !== 2; i++) {
      await new Promise((res) => setTimeout(res, 50));
      depth = await server.metric("qwen3tts_queue_depth");
    }
    assert.equal(depth, 2);
    ac.abort();
    assert.equal(await waiting, "AbortError");
    let cancelled = 0;
    for (let i = 0; i < 300 && cancelled !== 1; i++) {
      await new Promise((res) => setTimeout(res, 50));
      cancelled = await server.metric("qwen3tts_speech_cancelled_total");
    }
    assert.equal(cancelled, 1);
    assert.equal(await server.metric("qwen3tts_queue_depth"), 1);
    assert.equal(await server.metric("qwen3tts_active_streams"), 1, "the long request still runs");
    await longReader.cancel();
    const r = await other;
    assert.equal(r.status, 200);
    assert.equal((await r.arrayBuffer()).byteLength, 5 * 1920 * 2);
  } finally {
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test("SIGTERM lets the running request finish, then exits 0", async () => {
  const server = await Server.start(MODEL);
  const r = await server.postJson("/v1/audio/speech", req("ryan", 9, 60));
  const reader = r.body.getReader();
  let bytes = (await reader.read()).value.length;
  const exited = server.stop();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
  }
  assert.equal(bytes, 60 * 1920 * 2);
  assert.deepEqual(await exited, { code: 0, signal: null });
});
