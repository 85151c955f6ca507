// GET /v1/audio/speech/stream (WebSocket, streaming text input) through the `ws` client: text
// sent in any pieces, fast or slow, speaks exactly the audio of one POST of the whole text in
// the streaming layout; protocol errors close with 1008 and leave the server serving; a client
// that leaves cancels its request; the API key works as a header and as a subprotocol.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Server, wsClass } from "./server_harness.mjs";

const MODEL = "tiny-custom_voice";
const KEY = "k3y-stream";
// ASCII, Latin with a combining accent, CJK, an emoji outside the BMP (a surrogate pair in
// JS) and BMP symbols without surrogates (U+2600, U+2728), each followed by more text.
const TEXT = "Hello, 世界! Cafe\u0301 ☀ok 🎉 party ✨x… 你好吗? Done.";
const CONFIG = { voice: "Ryan", response_format: "pcm", seed: 11, greedy: true, max_frames: 40 };
let server, WebSocket;

before(async () => {
  WebSocket = wsClass();
  server = await Server.start(MODEL, ["--api-key", KEY]);
});
after(async () => {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

const auth = { Authorization: `Bearer ${KEY}` };

// A deterministic generator, so that a failing cutting can be reproduced.
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

// Cuts at code points (a JSON string carries whole characters), 1 to 4 of them per piece.
function randomPieces(text, seed) {
  const chars = Array.from(text);
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < chars.length;) {
    const n = 1 + Math.floor(r() * 4);
    out.push(chars.slice(i, i + n).join(""));
    i += n;
  }
  return out;
}

// The value of `promise`, or undefined after `ms` (a stuck stream fails its test, not the run).
async function within(promise, ms) {
  let timer;
  const late = new Promise((r) => (timer = setTimeout(r, ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

// Polls a gauge until it shows `value` (5 s at most); returns what it shows last.
async function settle(srv, name, value, headers = auth) {
  let v = await srv.metric(name, headers);
  for (let i = 0; i < 50 && v !== value; i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await srv.metric(name, headers);
  }
  return v;
}

// Opens a stream; collects what the server sends. `opts`: protocols, headers.
function open(opts = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/v1/audio/speech/stream`, opts.protocols ?? [],
                           { headers: opts.headers ?? auth });
  const s = { ws, binary: [], json: [], firstAudio: null };
  s.firstAudio = new Promise((resolve) => (s.gotAudio = resolve));
  s.opened = new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("unexpected-response", (req, res) => reject(Object.assign(new Error("refused"), { status: res.statusCode })));
    ws.on("error", reject);
  });
  s.closed = new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on("message", (data, isBinary) => {
    if (isBinary) {
      s.binary.push(Buffer.from(data));
      s.gotAudio();
      return;
    }
    const m = JSON.parse(data.toString());
    s.json.push(m);
    if (m.type === "speech.audio.delta") s.gotAudio();
  });
  s.send = (m) => ws.send(typeof m === "string" ? m : JSON.stringify(m));
  return s;
}

// One whole session: config, the pieces, input.done; returns the audio and the last messages.
async function speakStream(pieces, config = CONFIG, { delayMs = 0, beforeLast } = {}) {
  const s = open();
  await s.opened;
  s.send({ type: "session.config", ...config });
  for (let i = 0; i < pieces.length; i++) {
    if (i === pieces.length - 1 && beforeLast) await beforeLast(s);
    s.send({ type: "input.text", text: pieces[i] });
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
  }
  s.send({ type: "input.done" });
  const close = await s.closed;
  assert.equal(close.code, 1000, JSON.stringify(s.json.at(-1)));
  const done = s.json.at(-1);
  assert.equal(done.type, "speech.audio.done");
  const audio = config.audio_frames === "json"
    ? Buffer.concat(s.json.filter((m) => m.type === "speech.audio.delta").map((m) => Buffer.from(m.audio, "base64")))
    : Buffer.concat(s.binary);
  return { audio, done, s };
}

async function postOnce(text, fields = {}) {
  const res = await server.postJson("/v1/audio/speech",
                                    { model: "m", input: text, text_layout: "streaming", ...CONFIG, ...fields }, auth);
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

let reference;
async function ref() {
  reference ??= await postOnce(TEXT);
  return reference;
}

test("text in random pieces gives the audio of one POST of the whole text, byte for byte", async () => {
  const want = await ref();
  assert.equal(want.length, CONFIG.max_frames * 1920 * 2, "the text outlasts max_frames");
  const cuttings = [randomPieces(TEXT, 1), randomPieces(TEXT, 2), Array.from(TEXT), [TEXT]];
  // Cuts inside the combining sequence, the surrogate pair's neighbours and the BMP symbols.
  const at = (s) => TEXT.indexOf(s);
  cuttings.push([TEXT.slice(0, at("e\u0301") + 1), TEXT.slice(at("e\u0301") + 1, at("☀") + 1),
                 TEXT.slice(at("☀") + 1, at("🎉") + 2), TEXT.slice(at("🎉") + 2, at("✨") + 1),
                 TEXT.slice(at("✨") + 1)]);
  for (const pieces of cuttings) {
    assert.equal(pieces.join(""), TEXT);
    const { audio, done } = await speakStream(pieces);
    assert.ok(audio.equals(want), `pieces ${JSON.stringify(pieces)}: ${audio.length} vs ${want.length} bytes`);
    assert.equal(done.usage.output_tokens, CONFIG.max_frames);
    assert.ok(done.usage.input_tokens > 10);
    assert.equal(done.usage.total_tokens, done.usage.input_tokens + done.usage.output_tokens);
    assert.equal(done.stats.frames, CONFIG.max_frames);
    assert.ok(done.stats.first_audio_ms > 0 && done.stats.rtf > 0);
    assert.equal(done.seed, CONFIG.seed);
  }
});

test("a sampled stream without a seed names the one it drew; a POST with it repeats the audio", async () => {
  const sampled = { voice: "Ryan", response_format: "pcm", max_frames: 10 };
  const { audio, done } = await speakStream(randomPieces(TEXT, 5), sampled);
  assert.ok(Number.isSafeInteger(done.seed) && done.seed >= 0, JSON.stringify(done));
  assert.ok(audio.length > 0);
  assert.ok(audio.equals(await postOnce(TEXT, { ...sampled, greedy: false, seed: done.seed })));
});

test("json audio frames carry the same audio as binary frames", async () => {
  const { audio, s } = await speakStream(randomPieces(TEXT, 3), { ...CONFIG, audio_frames: "json" });
  assert.equal(s.binary.length, 0);
  assert.ok(audio.equals(await ref()));
});

test("speed in session.config time-stretches the stream as it does a POST", async () => {
  const res = await server.postJson("/v1/audio/speech",
                                    { model: "m", input: TEXT, text_layout: "streaming", ...CONFIG, speed: 2 }, auth);
  assert.equal(res.status, 200);
  const want = Buffer.from(await res.arrayBuffer());
  const whole = (await ref()).length;
  assert.ok(Math.abs(want.length - whole / 2) <= 0.02 * whole, `${want.length} bytes at speed 2 vs ${whole} at 1`);
  const { audio } = await speakStream(randomPieces(TEXT, 4), { ...CONFIG, speed: 2 });
  assert.ok(audio.equals(want), `${audio.length} vs ${want.length} bytes`);
});

test("input.flush speaks the last word at once; a flush where a piece ends anyway changes nothing", async (t) => {
  const first = "Hello, world.";
  const n = (await speakStream([first])).done.usage.input_tokens;
  const s = open();
  await s.opened;
  s.send({ type: "session.config", ...CONFIG });
  s.send({ type: "input.text", text: first });
  s.send({ type: "input.flush" });
  t.after(() => s.ws.terminate());  // a failing check below leaves no stream behind
  // Without the flush the final "." waits for the next character; with it, the talker gets all
  // n text tokens now, and their frames come out while the client still holds the rest of its
  // text: n - 1 of them (a frame step also adds the next step's text row, so frame f needs
  // text token f + 2; the last one waits for more text or input.done).
  const frames = () => Buffer.concat(s.binary).length / 3840;
  let waited = 0;
  while (frames() < n - 1 && waited < 20000) {
    await new Promise((r) => setTimeout(r, 50));
    waited += 50;
  }
  assert.ok(frames() >= n - 1, `${frames()} frames after the flush of ${n} tokens`);
  s.send({ type: "input.text", text: " Then a second sentence." });
  s.send({ type: "input.done" });
  assert.equal((await s.closed).code, 1000);
  assert.ok(Buffer.concat(s.binary).equals(await postOnce(first + " Then a second sentence.")));
  // Inside a word the flush cuts it ("Hel" | "lo" are two tokens): other audio than the POST's.
  const { audio } = await speakStream(["Hel", "lo world."], CONFIG, {
    beforeLast: async (st) => st.send({ type: "input.flush" }),
  });
  assert.ok(!audio.equals(await postOnce("Hello world.")));
});

test("a slow writer hears audio before its text is complete, and the same audio", async () => {
  const pieces = randomPieces(TEXT, 4);
  let audioBeforeLast = false;
  const { audio } = await speakStream(pieces, CONFIG, {
    delayMs: 20,
    // The last piece waits for the first audio (20 s at most): audio that came before it did
    // not wait for the end of the text.
    beforeLast: async (s) => {
      audioBeforeLast = (await within(s.firstAudio.then(() => true), 20000)) === true;
    },
  });
  assert.ok(audioBeforeLast);
  assert.ok(audio.equals(await ref()));
});

async function expectProtocolError(messages, code, param, closeCode = 1008) {
  const s = open();
  await s.opened;
  for (const m of messages) s.send(m);
  const close = await s.closed;
  const err = s.json.at(-1);
  assert.equal(err.type, "error", JSON.stringify(s.json));
  assert.deepEqual(Object.keys(err.error).sort(), ["code", "message", "param", "type"]);
  assert.equal(err.error.code, code, err.error.message);
  assert.equal(err.error.param, param);
  assert.equal(err.error.type, "invalid_request_error");
  assert.equal(close.code, closeCode);
  return err.error;
}

test("protocol errors: an error message, close 1008, and the server serves the next stream", async () => {
  await expectProtocolError([{ type: "input.text", text: "Hi" }], "config_required", "type");
  await expectProtocolError(['{"type": "session.config",'], "invalid_json", null);
  await expectProtocolError([{ type: "speak" }], "unknown_message_type", "type");
  let e = await expectProtocolError([{ type: "session.config", ...CONFIG, voice: "alloy" }], null, "voice");
  assert.ok(e.message.includes("unknown voice 'alloy'"), e.message);
  e = await expectProtocolError([{ type: "session.config", ...CONFIG, input: "x" }], null, "input");
  await expectProtocolError([{ type: "session.config", ...CONFIG }, { type: "session.config", ...CONFIG }],
                            "config_repeated", "type");
  await expectProtocolError([{ type: "session.config", ...CONFIG }, { type: "input.done" }], "empty_input", "text");
  await expectProtocolError([{ type: "session.config", ...CONFIG }, { type: "input.text", text: "x" },
                             { type: "input.done" }, { type: "input.text", text: "y" }], "text_finished", "type");
  e = await expectProtocolError([{ type: "session.config", ...CONFIG },
                                 { type: "input.text", text: "x".repeat(70000) }], "message_too_large", null, 1009);
  assert.ok(e.message.includes("65536 bytes"), e.message);
  // The first message may carry a reference clip (base64): its limit is 16 MiB.
  e = await expectProtocolError([{ type: "session.config", ...CONFIG, instructions: "x".repeat(17 << 20) }],
                                "message_too_large", null, 1009);
  assert.ok(e.message.includes("the first message is larger than the limit of 16777216 bytes"), e.message);
  e = await expectProtocolError([{ type: "session.config", ...CONFIG },
                                 ...Array.from({ length: 5 }, () => ({ type: "input.text", text: "y".repeat(1000) }))],
                                "string_above_max_length", "text");
  assert.ok(e.message.includes("the limit is 4096"), e.message);
  const { audio } = await speakStream(randomPieces(TEXT, 5));
  assert.ok(audio.equals(await ref()));
});

test("a wrong or missing key is a 401 before the upgrade; a plain GET is a 426", async () => {
  for (const opts of [{ headers: { Authorization: "Bearer nope" } }, { headers: {} },
                      { headers: {}, protocols: ["bearer.nope"] }]) {
    const s = open(opts);
    await assert.rejects(s.opened, (e) => e.status === 401);
  }
  const res = await server.fetch("/v1/audio/speech/stream", { headers: auth });
  assert.equal(res.status, 426);
  assert.equal((await res.json()).error.code, "upgrade_required");
});

test("browsers authenticate with the subprotocol bearer.<key>, which the server echoes", async () => {
  const s = open({ headers: {}, protocols: [`bearer.${KEY}`] });
  await s.opened;
  assert.equal(s.ws.protocol, `bearer.${KEY}`);
  s.send({ type: "session.config", ...CONFIG, max_frames: 3 });
  s.send({ type: "input.text", text: "Hi there." });
  s.send({ type: "input.done" });
  assert.equal((await s.closed).code, 1000);
  assert.equal(Buffer.concat(s.binary).length, 3 * 1920 * 2);
});

test("a client that leaves mid-stream cancels its request", async () => {
  const cancelled = await server.metric("qwen3tts_speech_cancelled_total", auth);
  const s = open();
  await s.opened;
  s.send({ type: "session.config", ...CONFIG, max_frames: 1000 });
  s.send({ type: "input.text", text: "This text never ends, " });
  assert.equal(await within(s.firstAudio.then(() => true), 20000), true, "no audio within 20 s");
  assert.equal(await server.metric("qwen3tts_active_streams", auth), 1);
  assert.equal(await server.metric("qwen3tts_stream_sessions_open", auth), 1);
  s.ws.terminate();  // no close frame: the connection just drops
  assert.equal(await settle(server, "qwen3tts_active_streams", 0), 0,
               "the request still runs 5 s after its client left");
  assert.equal(await settle(server, "qwen3tts_stream_sessions_open", 0), 0);
  assert.equal(await server.metric("qwen3tts_speech_cancelled_total", auth), cancelled + 1);
  const text = await (await server.fetch("/metrics", { headers: auth })).text();
  assert.match(text, /qwen3tts_requests_total\{path="\/v1\/audio\/speech\/stream",status="101"\} \d+/);
  assert.match(text, /qwen3tts_stream_sessions_total\{outcome="client_closed"\} [1-9]/);
  assert.match(text, /qwen3tts_stream_sessions_total\{outcome="done"\} [1-9]/);
});

test("a client silent for --stream-idle-timeout before input.done gets idle_timeout", async () => {
  const quick = await Server.start(MODEL, ["--stream-idle-timeout", "1"]);
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${quick.port}/v1/audio/speech/stream`);
    const messages = [];
    ws.on("message", (d, isBinary) => isBinary || messages.push(JSON.parse(d.toString())));
    const closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
    await new Promise((resolve, reject) => { ws.on("open", resolve); ws.on("error", reject); });
    ws.send(JSON.stringify({ type: "session.config", ...CONFIG }));
    ws.send(JSON.stringify({ type: "input.text", text: "Then nothing more" }));
    assert.equal(await within(closed, 20000), 1008);
    assert.equal(messages.at(-1).error.code, "idle_timeout");
    assert.equal(await settle(quick, "qwen3tts_active_streams", 0, {}), 0);
  } finally {
    assert.deepEqual(await quick.stop(), { code: 0, signal: null });
  }
});

test("a stream in segments (--segment-chars, or its session.config) is the POST of the whole text in segments", async () => {
  const segmented = await Server.start(MODEL, ["--segment-chars", "20"]);
  try {
    const post = async (fields) => {
      const res = await segmented.postJson("/v1/audio/speech",
                                           { model: "m", input: TEXT, text_layout: "streaming", ...CONFIG, ...fields });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    };
    const want = await post({});
    assert.ok(!want.equals(await post({ segment_chars: 0 })), "the text is more than one segment");
    const stream = async (fields, pieces, delayMs = 0) => {
      const ws = new WebSocket(`ws://127.0.0.1:${segmented.port}/v1/audio/speech/stream`);
      const audio = [];
      const messages = [];
      ws.on("message", (d, isBinary) => (isBinary ? audio.push(Buffer.from(d)) : messages.push(JSON.parse(d.toString()))));
      const closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
      await new Promise((resolve, reject) => { ws.on("open", resolve); ws.on("error", reject); });
      ws.send(JSON.stringify({ type: "session.config", ...CONFIG, ...fields }));
      for (const piece of pieces) {
        ws.send(JSON.stringify({ type: "input.text", text: piece }));
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      }
      ws.send(JSON.stringify({ type: "input.done" }));
      assert.equal(await within(closed, 20000), 1000, JSON.stringify(messages.at(-1)));
      return Buffer.concat(audio);
    };
    // The server's default, fast and slow writers (a segment may end before the next text).
    assert.ok((await stream({}, randomPieces(TEXT, 5))).equals(want));
    assert.ok((await stream({}, randomPieces(TEXT, 6), 30)).equals(want));
    // The session's own value over the default.
    assert.ok((await stream({ segment_chars: 0 }, randomPieces(TEXT, 7))).equals(await ref()));
  } finally {
    assert.deepEqual(await segmented.stop(), { code: 0, signal: null });
  }
  // A session's segment_chars on a server without the default.
  const want = await postOnce(TEXT, { segment_chars: 20 });
  const { audio } = await speakStream(randomPieces(TEXT, 8), { ...CONFIG, segment_chars: 20 });
  assert.ok(audio.equals(want));
});
