// docs/serving.md's scale-out example, checked: two replicas on loopback sharing one voices
// directory behind nginx (Debian's), configured as the document says. A voice made through
// the balancer is used by both replicas, and the audio streams through.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { Server, toneWav, tmpDir } from "./server_harness.mjs";

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function speechCount(server) {
  const text = await (await server.fetch("/metrics")).text();
  const m = text.match(/qwen3tts_requests_total\{path="\/v1\/audio\/speech",status="200"\} (\d+)/);
  return m ? Number(m[1]) : 0;
}

test("two replicas behind nginx share the voices and stream through it", async () => {
  const dir = tmpDir("scale-out");
  const voices = path.join(dir, "voices");
  const a = await Server.start("tiny-base", ["--voices-dir", voices]);
  const b = await Server.start("tiny-base", ["--voices-dir", voices]);
  const port = await freePort();
  fs.mkdirSync(path.join(dir, "tmp"));
  fs.writeFileSync(path.join(dir, "nginx.conf"), `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/tmp;
  proxy_temp_path ${dir}/tmp;
  upstream qwen3tts { least_conn; server 127.0.0.1:${a.port}; server 127.0.0.1:${b.port}; }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 32m;
    location / {
      proxy_pass http://qwen3tts;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
`);
  const nginx = spawn("nginx", ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"],
                      { stdio: ["ignore", "ignore", "pipe"] });
  let nginxLog = "";
  nginx.stderr.on("data", (d) => (nginxLog += d.toString()));
  const lb = `http://127.0.0.1:${port}`;
  try {
    let health = null;
    for (let i = 0; i < 100 && !(health && health.status === 200); i++) {
      await new Promise((r) => setTimeout(r, 100));
      health = await fetch(lb + "/health").catch(() => null);
    }
    assert.equal(health && health.status, 200, nginxLog);

    const form = new FormData();
    form.append("name", "shared");
    form.append("audio", new Blob([toneWav()]), "clip.wav");
    form.append("ref_text", "A test tone.");
    const made = await fetch(lb + "/v1/audio/voices", { method: "POST", body: form });
    assert.equal(made.status, 201);

    const bodies = [];
    for (let i = 0; i < 4; i++) {
      const r = await fetch(lb + "/v1/audio/speech", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ model: "m", input: "Shared voice.", voice: "shared", seed: 5, max_frames: 6,
                               response_format: "pcm" }) });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("transfer-encoding"), "chunked");
      bodies.push(Buffer.from(await r.arrayBuffer()));
    }
    assert.equal(bodies[0].length, 6 * 1920 * 2);
    for (const body of bodies) assert.ok(body.equals(bodies[0]));
    assert.ok(await speechCount(a) >= 1, "replica A served some");
    assert.ok(await speechCount(b) >= 1, "replica B served some");
  } finally {
    nginx.kill("SIGTERM");
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
    assert.deepEqual(await b.stop(), { code: 0, signal: null });
  }
});
