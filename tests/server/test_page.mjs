// The page at /, driven by headless Chromium (Debian's `chromium`) over the DevTools protocol on
// a pipe: it loads, fills its menus from /v1/models, speaks, and its Web Audio player receives
// the streamed audio. A screenshot is kept in the test folder as an artifact. The page samples
// with a seed from its link, so the CLI's audio for the same request says how many samples must
// reach the player (a random seed may end the speech before max_frames).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Server, speak, tmpDir } from "./server_harness.mjs";

const MODEL = "tiny-custom_voice";

// Chrome DevTools Protocol over --remote-debugging-pipe: JSON messages ended by NUL on fds 3/4.
class Browser {
  constructor() {
    this.proc = spawn("chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                                   "--autoplay-policy=no-user-gesture-required", "--window-size=900,900",
                                   "about:blank"],
                      { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
    this.next = 1;
    this.waiting = new Map();
    let buf = "";
    this.proc.stdio[4].on("data", (d) => {
      buf += d.toString();
      let end;
      while ((end = buf.indexOf("\0")) >= 0) {
        const msg = JSON.parse(buf.slice(0, end));
        buf = buf.slice(end + 1);
        const w = this.waiting.get(msg.id);
        if (!w) continue;
        this.waiting.delete(msg.id);
        if (msg.error) w.reject(new Error(JSON.stringify(msg.error)));
        else w.resolve(msg.result);
      }
    });
  }
  send(method, params = {}, sessionId) {
    const id = this.next++;
    this.proc.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + "\0");
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }
  async close() {
    await this.send("Browser.close").catch(() => {});
    this.proc.kill();
  }
}

test("the page speaks: Web Audio receives the streamed audio; screenshot kept", async () => {
  const server = await Server.start(MODEL);
  const browser = new Browser();
  try {
    const { targetId } = await browser.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await browser.send("Target.attachToTarget", { targetId, flatten: true });
    const evaluate = async (expression) =>
      (await browser.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)).result.value;
    await browser.send("Page.enable", {}, sessionId);
    await browser.send("Page.navigate",
                       { url: server.url + "/?text=Hello%20from%20the%20page&voice=ryan&max_frames=25&seed=7&speak=1" },
                       sessionId);
    let samples = "";
    for (let i = 0; i < 600 && !samples; i++) {
      await new Promise((r) => setTimeout(r, 100));
      samples = await evaluate("document.body.dataset.samples || ''").catch(() => "");
    }
    const language = await evaluate("document.getElementById('language').value");
    const cli = speak(MODEL, ["--text", "Hello from the page", "--speaker", "ryan", "--language", language,
                              "--seed", "7", "--max-frames", "25", "--format", "pcm"]);
    assert.ok(cli.length > 0 && cli.length % 3840 === 0);
    assert.equal(Number(samples), cli.length / 2, "every sample of the speech reached the player");
    assert.match(await evaluate("document.getElementById('model').textContent"), /custom_voice, tiny/);
    assert.match(await evaluate("document.getElementById('stats').textContent"),
                 new RegExp(`^time to first audio \\d+ ms, ${(cli.length / 2 / 24000).toFixed(2)} s of audio ` +
                            "in [\\d.]+ s, real-time factor [\\d.]+, seed 7$"));
    assert.equal(await evaluate("document.getElementById('speaker').value"), "ryan");
    const shown = (id) => evaluate(`getComputedStyle(document.getElementById('${id}')).display !== 'none'`);
    assert.equal(await shown("speakerRow"), true);
    assert.equal(await shown("voiceRow"), false, "a CustomVoice model has no stored voices");
    assert.equal(await shown("cloneBox"), false);
    // A seed the server could not take exactly is refused on the page, by name.
    await evaluate("document.getElementById('seed').value = '12x'; document.getElementById('speak').click()");
    assert.match(await evaluate("document.getElementById('stats').textContent"), /^seed: a whole number from 0 to/);
    const shot = await browser.send("Page.captureScreenshot", { format: "png" }, sessionId);
    const file = path.join(tmpDir("page"), "page.png");
    fs.writeFileSync(file, Buffer.from(shot.data, "base64"));
    assert.ok(fs.statSync(file).size > 1000);
  } finally {
    await browser.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});

test("stream as I type: the page speaks the text while it is typed, over the WebSocket", async () => {
  const server = await Server.start(MODEL);
  const browser = new Browser();
  try {
    const { targetId } = await browser.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await browser.send("Target.attachToTarget", { targetId, flatten: true });
    const evaluate = async (expression) =>
      (await browser.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)).result.value;
    await browser.send("Page.enable", {}, sessionId);
    await browser.send("Page.navigate", { url: server.url + "/?voice=ryan&max_frames=25&seed=7&live=1" }, sessionId);
    const waitFor = async (expression) => {
      let v = "";
      for (let i = 0; i < 600 && !v; i++) {
        await new Promise((r) => setTimeout(r, 100));
        v = await evaluate(expression).catch(() => "");
      }
      return v;
    };
    assert.ok(await waitFor("document.getElementById('speaker').options.length > 0 ? 'yes' : ''"));
    assert.equal(await evaluate("document.getElementById('speak').textContent"), "Finish");
    // Typing: the text grows a few characters at a time, each step an input event.
    await browser.send("Runtime.evaluate", { awaitPromise: true, expression: `(async () => {
      const t = document.getElementById('text');
      t.value = '';
      for (const piece of ['Hel', 'lo, this ', 'is typed ', 'as we go. ', 'And more']) {
        t.value += piece;
        t.dispatchEvent(new Event('input'));
        await new Promise((r) => setTimeout(r, 30));
      }
    })()` }, sessionId);
    // Audio comes while the text is still open (no Finish yet).
    assert.ok(Number(await waitFor("document.body.dataset.liveSamples || ''")) > 0, "no audio before Finish");
    assert.equal(await evaluate("document.body.dataset.samples || ''"), "");
    await evaluate("document.getElementById('speak').click()");
    const samples = Number(await waitFor("document.body.dataset.samples || ''"));
    const language = await evaluate("document.getElementById('language').value");
    const cli = speak(MODEL, ["--text", "Hello, this is typed as we go. And more", "--speaker", "ryan",
                              "--language", language, "--text-layout", "streaming", "--seed", "7",
                              "--max-frames", "25", "--format", "pcm"]);
    assert.ok(cli.length > 0 && cli.length % 3840 === 0);
    assert.equal(samples, cli.length / 2, "every sample of the speech reached the player");
    assert.match(await evaluate("document.getElementById('stats').textContent"), /, seed 7$/);
  } finally {
    await browser.close();
    assert.deepEqual(await server.stop(), { code: 0, signal: null });
  }
});
