// The server-wide budget of request bodies held in memory (--max-body-memory-mb): a request
// whose body would go over it is answered 503 with Retry-After before its body is read, a
// chunked body counts as the largest allowed (its size is unknown in advance), requests without
// a body still pass, and the bytes come back when a body has been handled or its client left.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { Server } from "./server_harness.mjs";

const MiB = 1 << 20;
const good = { model: "m", voice: "ryan", input: "Hi.", seed: 1, max_frames: 3, response_format: "pcm" };
let server;

before(async () => {
  server = await Server.start("tiny-custom_voice", ["--max-body-mb", "1", "--max-body-memory-mb", "2"]);
});
after(async () => {
  assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

// A connection that sent the head of a POST announcing a body (Content-Length, or chunked when
// length is null) with Expect: 100-continue. Resolves once the server answered 100 Continue:
// it has then counted the body against the budget and waits for it.
function holdBody(length) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(server.port, "127.0.0.1");
    const framing = length === null ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`;
    sock.on("connect", () => sock.write(
      "POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      `${framing}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`));
    const h = { sock, text: "" };
    h.ended = new Promise((done) => sock.on("close", () => done(h.text)));
    sock.on("data", (d) => {
      h.text += d.toString("latin1");
      if (h.text === "HTTP/1.1 100 Continue\r\n\r\n") resolve(h);
      else if (!h.text.startsWith("HTTP/1.1 100 ")) {
        sock.destroy();
        reject(new Error("expected 100 Continue, got " + h.text));
      }
    });
    sock.on("error", reject);
  });
}

// Retries a request until it is no longer refused for the budget (the bytes of a finished
// request come back just after its handler returns, not before the client has the response).
async function eventuallyAdmitted(send) {
  for (let i = 0; i < 200; i++) {
    const res = await send();
    if (res.status !== 503) return res;
    await res.arrayBuffer();
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("still refused after 200 tries");
}

async function expectBudget503(res) {
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "1");
  const e = (await res.json()).error;
  assert.equal(e.type, "server_error");
  assert.match(e.message, /too many request bodies in memory \(limit 2097152 bytes, --max-body-memory-mb\)/);
}

test("bodies over the budget are 503 with Retry-After; requests without a body still pass", async () => {
  const a = await holdBody(MiB);
  const b = await holdBody(MiB);  // 2 MiB held: the budget is full
  await expectBudget503(await server.postJson("/v1/audio/speech", good));
  assert.equal((await server.fetch("/health")).status, 200);
  assert.equal((await server.fetch("/v1/models")).status, 200);

  // a's body arrives (1 MiB of JSON, padded with spaces) and is served as any other.
  const json = JSON.stringify(good);
  a.sock.write(json + " ".repeat(MiB - json.length));
  const answer = await a.ended;
  assert.match(answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  // b leaves without sending its body.
  b.sock.destroy();
  const res = await eventuallyAdmitted(() => server.postJson("/v1/audio/speech", good));
  assert.equal(res.status, 200);
  assert.equal((await res.arrayBuffer()).byteLength, 3 * 1920 * 2);
});

test("a chunked body counts as the largest allowed (--max-body-mb)", async () => {
  const a = await eventuallyAdmittedHold(MiB);
  const c = await holdBody(null);  // 1 MiB + a chunked body's 1 MiB: full
  await expectBudget503(await server.postJson("/v1/audio/speech", good));
  a.sock.destroy();
  c.sock.destroy();
  // Everything came back: two bodies of the largest size fit again.
  const d = await eventuallyAdmittedHold(MiB);
  const e = await holdBody(MiB);
  d.sock.destroy();
  e.sock.destroy();
});

// holdBody, retried while the bytes of connections just closed are not yet back.
async function eventuallyAdmittedHold(length) {
  for (let i = 0; i < 200; i++) {
    try {
      return await holdBody(length);
    } catch (e) {
      if (!/HTTP\/1\.1 503 /.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error("still refused after 200 tries");
}

test("a budget below --max-body-mb is refused at start", async () => {
  await assert.rejects(Server.start("tiny-custom_voice", ["--max-body-mb", "4", "--max-body-memory-mb", "2"]),
                       /--max-body-memory-mb \(2 MiB\) must be at least --max-body-mb \(4 MiB\)/);
});
