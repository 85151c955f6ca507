// The page at /: type text, pick a speaker (CustomVoice), a stored voice (Base) or write a
// voice description (VoiceDesign), press speak, and hear the audio as it streams: raw 24 kHz
// PCM read from the fetch body and scheduled on Web Audio chunk by chunk. It also makes a
// voice from an uploaded clip and shows time to first audio and the real-time factor.
// "Stream as I type" speaks the text while it is written, through the WebSocket endpoint
// (speech_stream_endpoint.cpp): each addition at the end goes out as input.text, a pause after
// a sentence's end as input.flush, and Finish sends input.done.
// Everything is inline: no CDN, no build step. Link parameters fill the form and may start it:
// /?text=Hello&voice=ryan&language=english&max_frames=50&seed=7&speak=1 (the page test uses
// them; live=1 ticks "stream as I type"). The seed of every run is shown (the server's X-Seed
// header, or the stream's done message), so what was heard can be heard again.
#include "server/server_app.hpp"

namespace qwen3tts::server {

namespace {

const char kPage[] = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>qwen3tts</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.4em}fieldset{border:1px solid #ccc;border-radius:6px;margin:1em 0}
label{display:block;margin:.4em 0}textarea,input[type=text],select{width:100%;box-sizing:border-box}
textarea{height:7em}button{padding:.4em 1.2em}#stats,#vstatus{font-family:monospace}
.err{color:#b00}[hidden]{display:none!important}
</style></head><body>
<h1>qwen3tts</h1>
<div id="model">loading…</div>
<fieldset><legend>Speak</legend>
<label>Text <textarea id="text">Hello! This is qwen3tts, speaking as the audio is made.</textarea></label>
<label id="speakerRow">Speaker <select id="speaker"></select></label>
<label id="voiceRow">Voice <select id="voice"></select></label>
<label id="instrRow">Instruction <input type="text" id="instructions" placeholder="e.g. speak slowly and warmly"></label>
<label>Language <select id="language"></select></label>
<label>Seed <input type="text" id="seed" inputmode="numeric" placeholder="random: each run shows the seed it used"></label>
<label><input type="checkbox" id="live"> Stream as I type: the audio starts while you write (only text added at the end is spoken; Finish ends it)</label>
<button id="speak">Speak</button> <button id="stop" disabled>Stop</button>
<div id="stats"></div>
</fieldset>
<fieldset id="cloneBox"><legend>Make a voice from a clip (Base models)</legend>
<label>Name (A-Z a-z 0-9 _ -) <input type="text" id="vname"></label>
<label>Reference clip <input type="file" id="vfile" accept="audio/*,.voice"></label>
<label>Transcript of the clip <input type="text" id="vtext"></label>
<label><input type="checkbox" id="vxonly"> x-vector only (no transcript)</label>
<button id="vmake">Make voice</button> <span id="vstatus"></span>
</fieldset>
<label>API key (if the server needs one) <input type="text" id="key"></label>
<script>
"use strict";
const $ = id => document.getElementById(id);
const SR = 24000;
const params = new URLSearchParams(location.search);
let info = null, ctx = null, abort = null, live = null;
if (params.get("text")) $("text").value = params.get("text");
if (params.get("seed")) $("seed").value = params.get("seed");
$("key").value = localStorage.getItem("qwen3tts-key") || "";
$("key").onchange = () => localStorage.setItem("qwen3tts-key", $("key").value);
function headers(extra) {
  const h = Object.assign({}, extra || {});
  if ($("key").value) h["Authorization"] = "Bearer " + $("key").value;
  return h;
}
function fill(sel, items) {
  sel.innerHTML = "";
  for (const it of items) { const o = document.createElement("option"); o.value = o.textContent = it; sel.appendChild(o); }
}
async function errorText(r) {
  try { const j = await r.json(); return j.error.message; } catch (e) { return r.status + " " + r.statusText; }
}
async function loadVoices() {
  const r = await fetch("/v1/audio/voices", {headers: headers()});
  fill($("voice"), r.ok ? (await r.json()).data.map(v => v.id) : []);
}
async function init() {
  const r = await fetch("/v1/models", {headers: headers()});
  if (!r.ok) { showError(await errorText(r), $("model")); setTimeout(init, 1000); return; }
  info = (await r.json()).data[0];
  $("model").textContent = "model: " + info.id + " (" + info.type + ", " + info.size + ")";
  fill($("speaker"), info.speakers); fill($("language"), info.languages);
  $("speakerRow").hidden = info.type !== "custom_voice";
  $("voiceRow").hidden = $("cloneBox").hidden = info.type !== "base";
  $("instrRow").hidden = !info.takes_instruction;
  if (info.type === "base") await loadVoices();
  for (const [k, sel] of [["voice", info.type === "base" ? "voice" : "speaker"], ["language", "language"]])
    if (params.get(k)) $(sel).value = params.get(k);
  if (params.get("speak") === "1") speak();
}
// The request's fields but the text (shared by POST and the WebSocket's session.config).
function fields() {
  const body = {response_format: "pcm", language: $("language").value};
  if (info.type === "custom_voice") body.voice = $("speaker").value;
  if (info.type === "base") body.voice = $("voice").value;
  if (info.takes_instruction && $("instructions").value) body.instructions = $("instructions").value;
  if (params.get("max_frames")) body.max_frames = Number(params.get("max_frames"));
  const seed = $("seed").value.trim();
  if (seed) {
    // Larger numbers would reach the server rounded (a JS number holds 53 bits exactly).
    if (!/^\d+$/.test(seed) || !Number.isSafeInteger(Number(seed)))
      throw new Error("seed: a whole number from 0 to " + Number.MAX_SAFE_INTEGER);
    body.seed = Number(seed);
  }
  return body;
}
// Schedules 16-bit pcm right after what is already queued; returns its sample count.
function play(p, bytes) {
  const n = bytes.length / 2;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const buf = ctx.createBuffer(1, n, SR), ch = buf.getChannelData(0);
  for (let i = 0; i < n; i++) ch[i] = view.getInt16(2 * i, true) / 32768;
  const src = ctx.createBufferSource(); src.buffer = buf; src.connect(ctx.destination);
  p.next = Math.max(p.next, ctx.currentTime); src.start(p.next); p.next += n / SR;
  return n;
}
// As text, never as HTML: a message may quote what was typed or sent.
function showError(message, where = $("stats")) {
  where.innerHTML = '<span class="err"></span>';
  where.firstChild.textContent = message;
}
async function liveStart(config) {
  if (!ctx) ctx = new AudioContext({sampleRate: SR});
  const key = $("key").value;
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host +
                           "/v1/audio/speech/stream", key ? ["bearer." + key] : []);
  ws.binaryType = "arraybuffer";
  const l = live = {ws, sent: "", queue: [], t0: performance.now(), first: 0, samples: 0, next: ctx.currentTime + 0.05};
  $("stop").disabled = false;
  $("stats").textContent = "streaming…";
  ws.onopen = () => {
    ws.send(JSON.stringify(Object.assign({type: "session.config"}, config)));
    for (const m of l.queue) ws.send(m);
    l.queue = null;
  };
  ws.onmessage = (e) => {
    if (typeof e.data !== "string") {
      if (!l.first) l.first = performance.now() - l.t0;
      l.samples += play(l, new Uint8Array(e.data));
      document.body.dataset.liveSamples = l.samples;
      $("stats").textContent = "time to first audio " + l.first.toFixed(0) + " ms, " + (l.samples / SR).toFixed(2) + " s of audio";
      return;
    }
    const m = JSON.parse(e.data);
    if (m.type === "error") showError(m.error.message);
    if (m.type === "speech.audio.done") {
      $("stats").textContent += ", seed " + m.seed;
      document.body.dataset.samples = l.samples;
    }
  };
  ws.onclose = () => { if (live === l) live = null; $("stop").disabled = true; };
  await ctx.resume();
}
function liveSend(m) {
  const text = JSON.stringify(m);
  if (live.queue) live.queue.push(text); else live.ws.send(text);
}
function liveTyped() {
  if (!live) {
    let config;
    try { config = fields(); } catch (e) { return showError(e.message); }
    liveStart(config);
  }
  if (live.done) return;  // finished: the audio is still coming
  const text = $("text").value;
  if (!text.startsWith(live.sent)) return;  // an edit before the end: not spoken
  if (text.length > live.sent.length) liveSend({type: "input.text", text: text.slice(live.sent.length)});
  live.sent = text;
  clearTimeout(live.pause);
  // A pause after a sentence's end: speak its last word now (input.flush).
  if (/[.!?\u3002\uff01\uff1f]["')\]]?$/.test(text)) live.pause = setTimeout(() => live && liveSend({type: "input.flush"}), 600);
}
async function speak() {
  if ($("live").checked) {
    liveTyped();
    if (!live) return;  // the form has an error, shown
    if (!live.done) liveSend({type: "input.done"});
    live.done = true;
    return;
  }
  let body;
  try {
    body = Object.assign({model: info.id, input: $("text").value, stream_format: "audio"}, fields());
  } catch (e) { return showError(e.message); }
  if (!ctx) ctx = new AudioContext({sampleRate: SR});
  await ctx.resume();
  abort = new AbortController();
  $("speak").disabled = true; $("stop").disabled = false;
  const t0 = performance.now();
  const p = {next: ctx.currentTime + 0.05};
  let first = 0, samples = 0, carry = null;
  $("stats").textContent = "waiting for audio…";
  try {
    const r = await fetch("/v1/audio/speech", {method: "POST", body: JSON.stringify(body),
      headers: headers({"Content-Type": "application/json"}), signal: abort.signal});
    if (!r.ok) throw new Error(await errorText(r));
    const reader = r.body.getReader();
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      let bytes = value;
      if (carry) { bytes = new Uint8Array(carry.length + value.length); bytes.set(carry); bytes.set(value, carry.length); carry = null; }
      if (bytes.length % 2) { carry = bytes.slice(bytes.length - 1); bytes = bytes.slice(0, bytes.length - 1); }
      if (!bytes.length) continue;
      if (!first) first = performance.now() - t0;
      samples += play(p, bytes);
      $("stats").textContent = "time to first audio " + first.toFixed(0) + " ms, " + (samples / SR).toFixed(2) + " s of audio";
    }
    const total = (performance.now() - t0) / 1000, secs = samples / SR;
    $("stats").textContent = "time to first audio " + first.toFixed(0) + " ms, " + secs.toFixed(2) +
      " s of audio in " + total.toFixed(2) + " s, real-time factor " + (secs ? total / secs : 0).toFixed(3) +
      ", seed " + r.headers.get("X-Seed");
    document.body.dataset.samples = samples;
  } catch (e) {
    showError(e.name === "AbortError" ? "stopped" : e.message);
  } finally { $("speak").disabled = false; $("stop").disabled = true; }
}
async function makeVoice() {
  const f = $("vfile").files[0];
  if (!f) { $("vstatus").textContent = "pick a file"; return; }
  const form = new FormData();
  form.append("name", $("vname").value);
  form.append(f.name.endsWith(".voice") ? "voice_file" : "audio", f);
  form.append("ref_text", $("vtext").value);
  if ($("vxonly").checked) form.append("x_vector_only", "true");
  $("vstatus").textContent = "working…";
  const r = await fetch("/v1/audio/voices", {method: "POST", body: form, headers: headers()});
  $("vstatus").textContent = r.ok ? "made " + (await r.json()).id : await errorText(r);
  if (r.ok) await loadVoices();
}
$("speak").onclick = speak;
$("stop").onclick = () => { if (live) live.ws.close(); else if (abort) abort.abort(); };
$("live").checked = params.get("live") === "1";
const liveLabel = () => { $("speak").textContent = $("live").checked ? "Finish" : "Speak"; };
$("live").onchange = () => { liveLabel(); if (!$("live").checked && live) live.ws.close(); };
$("text").oninput = () => { if ($("live").checked && info) liveTyped(); };
liveLabel();
$("vmake").onclick = makeVoice;
init();
</script></body></html>
)HTML";

}  // namespace

const std::string& web_page_html() {
    static const std::string page = kPage;
    return page;
}

}  // namespace qwen3tts::server
