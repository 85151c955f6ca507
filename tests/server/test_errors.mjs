// Bad requests get OpenAI's error shape with the status and the field at fault, and the server
// stays up and answers the next request correctly.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Server, rawRequest } from "./server_harness.mjs";

let server;
const good = { model: "m", voice: "ryan", input: "Hi.", seed: 1, max_frames: 3, response_format: "pcm" };

before(async () => {
  server = await Server.start("tiny-custom_voice", ["--max-input-chars", "40", "--max-body-mb", "1"]);
});
after(async () => {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

async function expectError(res, status, param, messagePart) {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("content-type"), "application/json");
  const body = await res.json();
  assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
  assert.equal(body.error.param, param);
  if (messagePart) assert.ok(body.error.message.includes(messagePart), body.error.message);
  return body.error;
}

test("malformed JSON", async () => {
  const e = await expectError(await server.postJson("/v1/audio/speech", '{"input": "x",'), 400, null,
                              "not valid JSON");
  assert.equal(e.code, "invalid_json");
  assert.equal(e.type, "invalid_request_error");
});

test("wrong types and values name the field", async () => {
  const cases = [
    [{ input: 5 }, "input", "must be a string, got a number"],
    [{ input: "" }, "input", "must not be empty"],
    [{ speed: "fast" }, "speed", "must be a number"],
    [{ speed: 4.5 }, "speed", "must be in [0.25, 4], got 4.5"],
    [{ speed: 0.2 }, "speed", "must be in [0.25, 4], got 0.2"],
    [{ speed: 0 }, "speed", "must be in [0.25, 4], got 0"],
    [{ response_format: "aac" }, "response_format", "aac is not available"],
    [{ response_format: "ogg" }, "response_format", "must be one of"],
    [{ stream_format: "chunks" }, "stream_format", "must be audio or sse"],
    [{ voice: "alloy" }, "voice", "unknown voice 'alloy'"],
    [{ voice: 3 }, "voice", "must be a string"],
    [{ language: "klingon" }, "language", "unknown language 'klingon'"],
    [{ temperature: 0 }, "temperature", "must be in (0"],
    [{ seed: -1 }, "seed", "must be in [0"],
    [{ max_frames: 1.5 }, "max_frames", "must be an integer"],
    [{ text_layout: "zigzag" }, "text_layout", "must be auto, streaming or non-streaming"],
    [{ task_type: "Base" }, "task_type", "this server runs a CustomVoice model"],
    [{ ref_audio: "AAAA" }, "ref_audio", "needs a Base model"],
    [{ colour: "blue" }, "colour", "unrecognized request argument supplied: colour"],
  ];
  for (const [patch, param, part] of cases)
    await expectError(await server.postJson("/v1/audio/speech", { ...good, ...patch }), 400, param, part);
  const noModel = { ...good };
  delete noModel.model;
  await expectError(await server.postJson("/v1/audio/speech", noModel), 400, "model", "is required");
});

test("input and instructions over --max-input-chars", async () => {
  const e = await expectError(await server.postJson("/v1/audio/speech", { ...good, input: "é".repeat(41) }),
                              400, "input", "41 characters long; the limit is 40");
  assert.equal(e.code, "string_above_max_length");
  await server.postJson("/v1/audio/speech", { ...good, input: "é".repeat(40) }).then((r) => assert.equal(r.status, 200));
  await expectError(await server.postJson("/v1/audio/speech", { ...good, instructions: "x".repeat(41) }),
                    400, "instructions", "limit is 40");
});

test("a body over --max-body-mb is 413", async () => {
  const huge = JSON.stringify({ ...good, input: "a".repeat(2 << 20) });
  await expectError(await server.postJson("/v1/audio/speech", huge), 413, null, "larger than the limit");
});

test("413 also on a kept-alive connection after an earlier response", async () => {
  const out = await rawRequest(server.port,
    "GET /health HTTP/1.1\r\nHost: x\r\n\r\n" +
    "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
    "Content-Length: 5000000\r\n\r\n");
  assert.match(out, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(out, /\r\n\r\n\{"status":"ok"\}HTTP\/1\.1 413 Payload Too Large\r\n/);
  assert.match(out, /"message":"the request body is larger than the limit of 1048576 bytes"/);
});

test("unknown paths are 404, wrong methods 405", async () => {
  await expectError(await server.fetch("/v1/nothing"), 404, null, "no endpoint GET /v1/nothing");
  await expectError(await server.fetch("/v1/audio/speech"), 405, null, "use POST");
});

test("without --voices-dir the voices endpoints are 404", async () => {
  await expectError(await server.fetch("/v1/audio/voices"), 404, null, "--voices-dir");
});

test("the server still answers correctly after all that", async () => {
  const res = await server.postJson("/v1/audio/speech", good);
  assert.equal(res.status, 200);
  assert.equal((await res.arrayBuffer()).byteLength, 3 * 1920 * 2);
});

test("API key: 401 without or with a wrong key, /health stays public", async () => {
  const keyed = await Server.start("tiny-custom_voice", ["--api-key", "s3cret"]);
  try {
    const e = await expectError(await keyed.postJson("/v1/audio/speech", good), 401, null, "missing API key");
    assert.equal(e.type, "authentication_error");
    await expectError(await keyed.postJson("/v1/audio/speech", good, { Authorization: "Bearer s3cre" }), 401,
                      null, "invalid API key");
    await expectError(await keyed.fetch("/v1/models"), 401, null);
    await expectError(await keyed.fetch("/metrics"), 401, null);
    assert.equal((await keyed.fetch("/health")).status, 200);
    const ok = await keyed.postJson("/v1/audio/speech", good, { Authorization: "Bearer s3cret" });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
  } finally {
    assert.deepEqual(await keyed.stop(), { code: 0, signal: null });
  }
});
