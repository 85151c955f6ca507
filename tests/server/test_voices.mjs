// Voices of a Base model: made from a clip (multipart), uploaded as a .voice file, listed,
// fetched, deleted, kept across a restart; used by /v1/audio/speech (and vLLM-Omni's inline
// ref_audio, on a POST and on a WebSocket stream) with the same audio as `qwen3tts speak`.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Server, rawRequest, speak, toneWav, tmpDir, wsClass } from "./server_harness.mjs";

const MODEL = "tiny-base";
let server, dir, clipPath;
const clip = toneWav();

before(async () => {
  dir = tmpDir("voices");
  clipPath = path.join(tmpDir("voices-clip"), "clip.wav");
  fs.writeFileSync(clipPath, clip);
  server = await Server.start(MODEL, ["--voices-dir", dir]);
});
after(async () => {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

function form(fields) {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Buffer) f.append(k, new Blob([v]), k + ".bin");
    else f.append(k, v);
  }
  return f;
}
const post = (fields) => server.fetch("/v1/audio/voices", { method: "POST", body: form(fields) });

test("a voice made from a clip is stored, listed, used, and equal to speak --ref-audio", async () => {
  const res = await post({ name: "anna", audio: clip, ref_text: "A test tone." });
  assert.equal(res.status, 201);
  const v = await res.json();
  assert.equal(v.id, "anna");
  assert.equal(v.mode, "in_context");
  assert.equal(v.ref_text, "A test tone.");
  assert.ok(fs.existsSync(path.join(dir, "anna.voice")));
  assert.deepEqual((await (await server.fetch("/v1/audio/voices")).json()).data.map((x) => x.id), ["anna"]);
  assert.equal((await (await server.fetch("/v1/audio/voices/anna")).json()).id, "anna");

  const body = { model: "m", input: "Cloned.", voice: "anna", response_format: "pcm", seed: 3, max_frames: 8 };
  const got = Buffer.from(await (await server.postJson("/v1/audio/speech", body)).arrayBuffer());
  const want = speak(MODEL, ["--text", "Cloned.", "--voice", path.join(dir, "anna.voice"), "--seed", "3",
                             "--max-frames", "8", "--format", "pcm"]);
  assert.ok(got.equals(want));
  const direct = speak(MODEL, ["--text", "Cloned.", "--ref-audio", clipPath, "--ref-text", "A test tone.",
                               "--seed", "3", "--max-frames", "8", "--format", "pcm"]);
  assert.ok(got.equals(direct));

  // vLLM-Omni's inline clone: ref_audio as a data URL, nothing stored.
  const inline = { model: "m", input: "Cloned.", task_type: "Base", ref_audio: "data:audio/wav;base64," +
                   clip.toString("base64"), ref_text: "A test tone.", response_format: "pcm", seed: 3, max_frames: 8 };
  const r2 = await server.postJson("/v1/audio/speech", inline);
  assert.equal(r2.status, 200);
  assert.ok(Buffer.from(await r2.arrayBuffer()).equals(direct));
});

test("a stream's session.config may carry the clip inline: the audio of speak --ref-audio", async () => {
  const WebSocket = wsClass();
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/v1/audio/speech/stream`);
  const audio = [], messages = [];
  ws.on("message", (data, isBinary) => (isBinary ? audio.push(Buffer.from(data)) : messages.push(JSON.parse(data.toString()))));
  const closed = new Promise((resolve) => ws.on("close", (code) => resolve(code)));
  await new Promise((resolve, reject) => { ws.on("open", resolve); ws.on("error", reject); });
  ws.send(JSON.stringify({ type: "session.config", ref_audio: "data:audio/wav;base64," + clip.toString("base64"),
                           ref_text: "A test tone.", response_format: "pcm", seed: 3, max_frames: 8 }));
  for (const text of ["Clo", "ned."]) ws.send(JSON.stringify({ type: "input.text", text }));
  ws.send(JSON.stringify({ type: "input.done" }));
  assert.equal(await closed, 1000, JSON.stringify(messages.at(-1)));
  assert.equal(messages.at(-1).type, "speech.audio.done");
  const want = speak(MODEL, ["--text", "Cloned.", "--ref-audio", clipPath, "--ref-text", "A test tone.",
                             "--text-layout", "streaming", "--seed", "3", "--max-frames", "8", "--format", "pcm"]);
  assert.ok(want.length > 0);
  assert.ok(Buffer.concat(audio).equals(want));
  // Nothing was stored.
  assert.deepEqual(fs.readdirSync(dir), ["anna.voice"]);
});

test("a .voice file uploads as voice_file, byte for byte; a broken one is refused", async () => {
  const bytes = fs.readFileSync(path.join(dir, "anna.voice"));
  const res = await post({ name: "anna-copy", voice_file: bytes });
  assert.equal(res.status, 201);
  assert.ok(fs.readFileSync(path.join(dir, "anna-copy.voice")).equals(bytes));
  const bad = await post({ name: "broken", voice_file: Buffer.from("not a voice file at all") });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.param, "voice_file");
  assert.ok(!fs.existsSync(path.join(dir, "broken.voice")));
  assert.deepEqual(fs.readdirSync(dir).sort(), ["anna-copy.voice", "anna.voice"]);
});

test("ids are safe: traversal and odd names are 400, taken ones 409, missing ones 404", async () => {
  for (const name of ["../evil", "a/b", "", "x".repeat(65), "dot.dot"]) {
    const r = await post({ name, audio: clip, ref_text: "t" });
    assert.equal(r.status, 400, name);
    assert.equal((await r.json()).error.param, "name");
  }
  const taken = await post({ name: "anna", audio: clip, ref_text: "t" });
  assert.equal(taken.status, 409);
  // fetch would normalise a literal "..": send that one raw.
  const raw = await rawRequest(server.port, "GET /v1/audio/voices/../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  assert.match(raw, /^HTTP\/1\.1 400 /);
  assert.match(raw, /"param":"voice_id"/);
  for (const id of ["..%2F..%2Fetc%2Fpasswd", "a%20b", "a.b"]) {
    const r = await server.fetch("/v1/audio/voices/" + id);
    assert.equal(r.status, 400, id);
    assert.equal((await r.json()).error.param, "voice_id");
  }
  assert.equal((await server.fetch("/v1/audio/voices/nobody")).status, 404);
  const unknown = await server.postJson("/v1/audio/speech", { model: "m", input: "x", voice: "nobody" });
  assert.equal(unknown.status, 400);
  assert.equal((await unknown.json()).error.code, "voice_not_found");
  const missingText = await post({ name: "notext", audio: clip });
  assert.equal(missingText.status, 400);
  assert.equal((await missingText.json()).error.param, "ref_text");
});

test("concurrent creations of one id: exactly one 201, the others 409, no temporaries left", async () => {
  const bytes = fs.readFileSync(path.join(dir, "anna.voice"));
  for (let round = 0; round < 4; round++) {
    const name = "race" + round;
    const answers = await Promise.all(Array.from({ length: 8 }, () => post({ name, voice_file: bytes })));
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409], name);
    for (const r of answers) {
      const body = await r.json();
      if (r.status === 409) {
        assert.equal(body.error.param, "name");
        assert.equal(body.error.code, "voice_exists");
      }
    }
    assert.ok(fs.readFileSync(path.join(dir, name + ".voice")).equals(bytes));
    assert.equal((await server.fetch("/v1/audio/voices/" + name, { method: "DELETE" })).status, 200);
  }
  assert.deepEqual(fs.readdirSync(dir).sort(), ["anna-copy.voice", "anna.voice"]);
});

test("voices survive a restart; DELETE removes one", async () => {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
  server = await Server.start(MODEL, ["--voices-dir", dir]);
  const ids = (await (await server.fetch("/v1/audio/voices")).json()).data.map((x) => x.id);
  assert.deepEqual(ids, ["anna", "anna-copy"]);
  const del = await server.fetch("/v1/audio/voices/anna-copy", { method: "DELETE" });
  assert.equal(del.status, 200);
  assert.equal((await del.json()).deleted, true);
  assert.equal((await server.fetch("/v1/audio/voices/anna-copy")).status, 404);
  assert.ok(!fs.existsSync(path.join(dir, "anna-copy.voice")));
});
