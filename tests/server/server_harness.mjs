// Starts `qwen3tts serve` on a free loopback port for the server tests and stops it again.
// Environment (set by tests/CMakeLists.txt): QWEN3TTS_CLI (the binary under test: the build
// tree's own, so a sanitizer tree's tests run its sanitized server), QWEN3TTS_TEST_DATA,
// QWEN3TTS_TEST_TMP, QWEN3TTS_NODE_MODULES (where scripts/install-deps.sh put the pinned `openai`
// and `ws` packages). QWEN3TTS_SERVER_CLI, when set, is used instead of QWEN3TTS_CLI: the tests
// of one tree against another tree's binary (ctest passes it through).
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export const CLI = process.env.QWEN3TTS_SERVER_CLI || process.env.QWEN3TTS_CLI;
export const DATA = process.env.QWEN3TTS_TEST_DATA;
export const TMP = process.env.QWEN3TTS_TEST_TMP;
export const model = (name) => path.join(DATA, "models", name);

// The official OpenAI client, installed outside the repository (no network at test time).
export function openaiClass() {
  const dir = process.env.QWEN3TTS_NODE_MODULES;
  const require = createRequire(path.join(dir || "/nonexistent", "package.json"));
  try {
    return require("openai").OpenAI;
  } catch (e) {
    throw new Error(`the openai npm package is not in ${dir}: run scripts/install-deps.sh (${e.message})`);
  }
}

// The `ws` WebSocket client, from the same folder.
export function wsClass() {
  const dir = process.env.QWEN3TTS_NODE_MODULES;
  const require = createRequire(path.join(dir || "/nonexistent", "package.json"));
  try {
    return require("ws");
  } catch (e) {
    throw new Error(`the ws npm package is not in ${dir}: run scripts/install-deps.sh (${e.message})`);
  }
}

export class Server {
  // args: extra `qwen3tts serve` options.
  static async start(modelName, args = []) {
    const s = new Server();
    s.log = "";
    s.proc = spawn(CLI, ["serve", "--model", model(modelName), "--port", "0", "--threads", "1", ...args],
                   { stdio: ["ignore", "ignore", "pipe"] });
    s.exited = new Promise((resolve) => s.proc.on("close", (code, signal) => {
      // A sanitizer's report (scripts/sanitize.sh) is on the server's stderr: show it.
      if (code !== 0) process.stderr.write(`server exited (${code ?? signal}); its log:\n${s.log}\n`);
      resolve({ code, signal });
    }));
    s.port = await new Promise((resolve, reject) => {
      s.proc.stderr.on("data", (d) => {
        s.log += d.toString();
        const m = s.log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
        if (m) resolve(Number(m[1]));
      });
      s.exited.then((r) => reject(new Error(`server exited (${JSON.stringify(r)}):\n${s.log}`)));
    });
    s.url = `http://127.0.0.1:${s.port}`;
    for (let i = 0; i < 600; i++) {
      const r = await fetch(s.url + "/health").catch(() => null);
      if (r && r.status === 200) return s;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error("the server did not become healthy:\n" + s.log);
  }

  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.exited;
    this.proc.kill("SIGTERM");
    return this.exited;
  }

  fetch(p, init = {}) {
    return fetch(this.url + p, init);
  }

  postJson(p, body, headers = {}) {
    return this.fetch(p, { method: "POST", headers: { "Content-Type": "application/json", ...headers },
                           body: typeof body === "string" ? body : JSON.stringify(body) });
  }

  async metric(name, headers = {}) {
    const text = await (await this.fetch("/metrics", { headers })).text();
    const line = text.split("\n").find((l) => l.startsWith(name + " ") || l.startsWith(name + "{"));
    return line === undefined ? undefined : Number(line.split(" ").pop());
  }
}

// `qwen3tts speak` with the same options, writing to a pipe (as the server streams: WAV with
// "unknown length" sizes), returning its bytes.
export function speak(modelName, args) {
  const r = spawnSync(CLI, ["speak", "--model", model(modelName), "--threads", "1", "-q", "--out", "-", ...args],
                      { maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error("speak failed: " + r.stderr.toString());
  return r.stdout;
}

// A mono 16-bit WAV of a few tones, as a reference clip for cloning.
export function toneWav(seconds = 1.5, rate = 24000) {
  const n = Math.round(seconds * rate);
  const b = Buffer.alloc(44 + 2 * n);
  b.write("RIFF", 0); b.writeUInt32LE(36 + 2 * n, 4); b.write("WAVE", 8); b.write("fmt ", 12);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(2 * rate, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write("data", 36);
  b.writeUInt32LE(2 * n, 40);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const v = 0.3 * Math.sin(2 * Math.PI * (180 + 40 * Math.sin(3 * t)) * t) + 0.1 * Math.sin(2 * Math.PI * 900 * t);
    b.writeInt16LE(Math.round(v * 32767), 44 + 2 * i);
  }
  return b;
}

export function tmpDir(name) {
  const d = path.join(TMP, "server", name);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d, { recursive: true });
  return d;
}

// Sends bytes as they are (no URL normalisation) and returns all the server answers (send
// "Connection: close"). The socket is not half-closed: the server takes an end of stream from
// the client as the client leaving.
export function rawRequest(port, text) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1", () => sock.write(text));
    let out = "";
    sock.on("data", (d) => (out += d.toString("latin1")));
    sock.on("end", () => resolve(out));
    sock.on("error", reject);
    sock.setTimeout(20000, () => {
      sock.destroy();
      reject(new Error("no complete answer within 20 s; got: " + out));
    });
  });
}
