#!/usr/bin/env python3
"""A fake Hugging Face hub for the tests: serves local model folders over the hub's HTTP
protocol on 127.0.0.1 (Python 3 standard library only).

    GET  /api/models/{org}/{name}/revision/{rev}  -> {"id", "sha", "siblings": [{"rfilename",
         "size", "blobId", "lfs": {"sha256", "size", "pointerSize"}}]} (as with ?blobs=true)
    HEAD/GET /{org}/{name}/resolve/{rev}/{file}    -> small files: 200 with ETag = git sha1;
         LFS files (*.safetensors and files over 1 MB): 302 to /cdn/... with X-Linked-Etag =
         sha256 and X-Linked-Size, like the real hub's redirect to its CDN
    GET  /cdn/{org}/{name}/{sha256}                -> the bytes, with Range support

Errors carry X-Error-Code as the hub sends them (RepoNotFound, RevisionNotFound,
EntryNotFound, GatedRepo). A gated repo answers 401 unless "Authorization: Bearer <token>".

Behaviour switches are read from <state>/mode.json at each request (the test rewrites it):
    {"cut": N}            the next N CDN downloads stop halfway through what they announced
    {"corrupt": "FILE"}   downloads of FILE have one byte flipped (the etag stays right)
    {"truncate": "FILE"}  FILE is served cut to 3/4, its announced size (HEAD, Content-Length)
                          cut alike; the file list keeps the true size and digests
    {"opaque_etag": "FILE"}  FILE's ETag (and X-Linked-Etag) is no digest, as some mirrors send
    {"redirect": "URL"}   resolve of an LFS file redirects to URL (e.g. file:///etc/passwd)
    {"cdn_redirect": "URL"}  CDN downloads redirect to URL
    {"delay_ms": D}       sleep D ms per 64 KiB chunk of CDN downloads
    {"cdn_host": "localhost"}  the host name put in CDN redirects (another "origin")
Each request is appended to <state>/requests.log as one JSON line
    {"method", "path", "range", "auth"}.
The port is written to <state>/port once listening. The server exits on SIGTERM, when its
parent process dies, or after --max-seconds.
"""
import argparse
import hashlib
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

CHUNK = 64 * 1024
LFS_MIN_SIZE = 1_000_000


class Repo:
    def __init__(self, repo_id, root, gated):
        self.repo_id = repo_id
        self.root = root
        self.gated = gated
        self.files = {}  # name -> dict(path, size, sha256, git_sha1, lfs)
        for dirpath, _, names in os.walk(root):
            for n in names:
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                data = open(path, "rb").read()
                self.files[rel] = {
                    "path": path,
                    "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "git_sha1": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest(),
                    "lfs": rel.endswith(".safetensors") or len(data) > LFS_MIN_SIZE,
                }
                f = self.files[rel]
                # git stores an LFS file as a pointer; blobId is that pointer's git sha1.
                pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
                           % (f["sha256"], f["size"])).encode()
                f["pointer_size"] = len(pointer)
                f["blob_id"] = (hashlib.sha1(b"blob %d\0" % len(pointer) + pointer).hexdigest()
                                if f["lfs"] else f["git_sha1"])
        h = hashlib.sha1(repo_id.encode())
        for rel in sorted(self.files):
            h.update(rel.encode() + self.files[rel]["sha256"].encode())
        self.commit = h.hexdigest()

    def by_sha256(self, sha):
        for rel, f in self.files.items():
            if f["sha256"] == sha:
                return rel, f
        return None, None


class State:
    def __init__(self, state_dir, repos, token):
        self.dir = state_dir
        self.repos = repos
        self.token = token
        self.lock = threading.Lock()
        self.mode_text = None
        self.mode = {}
        self.cuts_left = 0

    def refresh_mode(self):
        path = os.path.join(self.dir, "mode.json")
        try:
            text = open(path).read()
        except OSError:
            text = "{}"
        with self.lock:
            if text != self.mode_text:
                self.mode_text = text
                try:
                    self.mode = json.loads(text or "{}")
                except ValueError:
                    self.mode = {}
                self.cuts_left = int(self.mode.get("cut", 0))
            return dict(self.mode)

    def take_cut(self):
        with self.lock:
            if self.cuts_left > 0:
                self.cuts_left -= 1
                return True
            return False

    def log(self, entry):
        with self.lock:
            with open(os.path.join(self.dir, "requests.log"), "a") as f:
                f.write(json.dumps(entry) + "\n")


def sibling(name, f):
    s = {"rfilename": name, "blobId": f["blob_id"], "size": f["size"]}
    if f["lfs"]:
        s["lfs"] = {"sha256": f["sha256"], "size": f["size"], "pointerSize": f["pointer_size"]}
    return s


def served(name, f, mode):
    """The bytes of a file as this mode serves them."""
    data = bytearray(open(f["path"], "rb").read())
    if mode.get("truncate") == name:
        data = data[:len(data) * 3 // 4]
    if mode.get("corrupt") == name:
        data[len(data) // 2] ^= 0xFF
    return data


def etags(name, f, mode):
    """(ETag, X-Linked-Etag) of a file: git sha1 / sha256, or opaque ones."""
    if mode.get("opaque_etag") == name:
        opaque = "opaque-" + hashlib.md5(name.encode()).hexdigest()[:12] + "-1"
        return opaque, opaque
    return (hashlib.sha1(name.encode()).hexdigest() if f["lfs"] else f["git_sha1"]), f["sha256"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-hub/1"

    def log_message(self, fmt, *args):  # keep the test output clean
        pass

    @property
    def st(self):
        return self.server.state

    def authorized(self):
        return self.headers.get("Authorization", "") == "Bearer " + self.st.token

    def send_error_code(self, status, code, message):
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.handle_any()

    def do_GET(self):
        self.handle_any()

    def handle_any(self):
        mode = self.st.refresh_mode()
        path = unquote(urlsplit(self.path).path)
        self.st.log({"method": self.command, "path": path,
                     "range": self.headers.get("Range", ""),
                     "auth": "Authorization" in self.headers})
        parts = path.strip("/").split("/")
        if len(parts) >= 6 and parts[0] == "api" and parts[1] == "models" and parts[4] == "revision":
            return self.api_info("/".join(parts[2:4]), "/".join(parts[5:]))
        if len(parts) >= 5 and parts[2] == "resolve":
            return self.resolve("/".join(parts[0:2]), parts[3], "/".join(parts[4:]), mode)
        if len(parts) == 4 and parts[0] == "cdn":
            return self.cdn("/".join(parts[1:3]), parts[3], mode)
        self.send_error_code(404, "NotFound", "no route for " + path)

    def find_repo(self, repo_id, rev):
        repo = self.st.repos.get(repo_id)
        if repo is None:
            self.send_error_code(404, "RepoNotFound", "Repository not found")
            return None
        if rev not in ("main", repo.commit):
            self.send_error_code(404, "RevisionNotFound", "Invalid rev id: " + rev)
            return None
        return repo

    def api_info(self, repo_id, rev):
        repo = self.find_repo(repo_id, rev)
        if repo is None:
            return
        body = json.dumps({
            "id": repo.repo_id, "sha": repo.commit, "gated": "manual" if repo.gated else False,
            "siblings": [sibling(n, repo.files[n]) for n in sorted(repo.files)],
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def resolve(self, repo_id, rev, name, mode):
        repo = self.find_repo(repo_id, rev)
        if repo is None:
            return
        if repo.gated and not self.authorized():
            return self.send_error_code(
                401, "GatedRepo", "Access to model %s is restricted. You must have access to "
                "it and be authenticated to access it. Please log in." % repo_id)
        f = repo.files.get(name)
        if f is None:
            return self.send_error_code(404, "EntryNotFound", "Entry not found")
        etag, linked_etag = etags(name, f, mode)
        data = served(name, f, mode)
        if f["lfs"]:
            host = mode.get("cdn_host", "127.0.0.1")
            location = mode.get("redirect") or "http://%s:%d/cdn/%s/%s" % (
                host, self.server.server_address[1], repo_id, f["sha256"])
            self.send_response(302)
            self.send_header("Location", location)
            self.send_header("X-Repo-Commit", repo.commit)
            self.send_header("ETag", '"%s"' % etag)
            self.send_header("X-Linked-Etag", '"%s"' % linked_etag)
            self.send_header("X-Linked-Size", str(len(data)))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("X-Repo-Commit", repo.commit)
        self.send_header("ETag", '"%s"' % etag)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def cdn(self, repo_id, sha, mode):
        repo = self.st.repos.get(repo_id)
        name, f = repo.by_sha256(sha) if repo else (None, None)
        if f is None:
            return self.send_error_code(404, "NotFound", "no such object")
        if mode.get("cdn_redirect"):
            self.send_response(302)
            self.send_header("Location", mode["cdn_redirect"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = served(name, f, mode)
        size = len(data)
        start = 0
        rng = self.headers.get("Range", "")
        if rng.startswith("bytes=") and rng.endswith("-"):
            start = int(rng[6:-1])
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(size - start))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        if self.command == "HEAD":
            return
        end = size
        if self.command == "GET" and self.st.take_cut():
            end = start + (size - start) // 2
            self.close_connection = True
        delay = float(mode.get("delay_ms", 0)) / 1000.0
        pos = start
        try:
            while pos < end:
                n = min(CHUNK, end - pos)
                self.wfile.write(data[pos:pos + n])
                pos += n
                if delay:
                    time.sleep(delay)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", default=[], metavar="ORG/NAME=DIR")
    ap.add_argument("--gated", action="append", default=[], metavar="ORG/NAME=DIR")
    ap.add_argument("--token", default="hf_test_token")
    ap.add_argument("--state", required=True, help="directory for port, mode.json, requests.log")
    ap.add_argument("--max-seconds", type=float, default=600)
    args = ap.parse_args()

    repos = {}
    for spec, gated in [(s, False) for s in args.repo] + [(s, True) for s in args.gated]:
        repo_id, root = spec.split("=", 1)
        repos[repo_id] = Repo(repo_id, root, gated)
    os.makedirs(args.state, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(args.state, repos, args.token)

    manifest = {rid: {"commit": r.commit, "files": {
        n: {"size": f["size"], "etag": f["sha256"] if f["lfs"] else f["git_sha1"]}
        for n, f in r.files.items()}} for rid, r in repos.items()}
    with open(os.path.join(args.state, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    tmp = os.path.join(args.state, "port.tmp")
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, os.path.join(args.state, "port"))

    parent = os.getppid()
    deadline = time.monotonic() + args.max_seconds

    def watchdog():
        while time.monotonic() < deadline and os.getppid() == parent:
            time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watchdog, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    sys.exit(main())
