#!/usr/bin/env python3
"""A small real HTTP server for the fleet tests, on 127.0.0.1 only.

Prints "PORT <n>" once listening (port chosen by the kernel, so tests never race for one) and
exits when its standard input closes, so it dies with the test process that started it.

Routes (any path may carry ?fail=N: the first N requests for that exact path and query answer
503, counted per path):
  GET  /files/<name>            a file under --root
  GET  /bytes/<n>               n bytes with Content-Length
  GET  /chunked/<n>             n bytes, chunked (no Content-Length)
  GET  /status/<code>           an empty answer with that status
  GET  /slow/<ms>               waits, then answers "ok"
  GET  /redirect/<n>/<rest>     n redirects (302), then /<rest>
  GET  /redirect-to?url=<url>   one redirect (302) to url, whatever its scheme
  PUT  <path>                   records the body: <record>/<k>.body and a line in <record>/puts.jsonl
  GET  /_stats                  {"connections": accepted TCP connections, "requests": ["GET /…", …]}
"""
import argparse
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
FAILS = {}          # path+query -> 503s already answered
REQUESTS = []       # "METHOD path" in arrival order
CONNECTIONS = [0]
PUTS = [0]


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def verify_request(self, request, client_address):
        with LOCK:
            CONNECTIONS[0] += 1
        return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, body=b"", content_type="application/octet-stream", headers=()):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def failing(self):
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        wanted = int(query.get("fail", ["0"])[0])
        with LOCK:
            done = FAILS.get(self.path, 0)
            if done < wanted:
                FAILS[self.path] = done + 1
                return True
        return False

    def do_GET(self):
        with LOCK:
            REQUESTS.append("GET " + self.path)
        parts = urllib.parse.urlsplit(self.path)
        path = parts.path
        if path == "/_stats":
            with LOCK:
                body = json.dumps({"connections": CONNECTIONS[0], "requests": REQUESTS}).encode()
            return self.reply(200, body, "application/json")
        if self.failing():
            return self.reply(503, b"busy, try again", "text/plain")
        segments = path.strip("/").split("/")
        head = segments[0] if segments else ""
        if head == "files" and len(segments) >= 2:
            name = "/".join(segments[1:])
            full = os.path.realpath(os.path.join(self.server.root, name))
            if not full.startswith(os.path.realpath(self.server.root) + os.sep) or not os.path.isfile(full):
                return self.reply(404, b"not found", "text/plain")
            with open(full, "rb") as f:
                return self.reply(200, f.read())
        if head == "bytes" and len(segments) == 2:
            n = int(segments[1])
            return self.reply(200, bytes(i % 251 for i in range(n)))
        if head == "chunked" and len(segments) == 2:
            n = int(segments[1])
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            sent = 0
            try:
                while sent < n:
                    size = min(65536, n - sent)
                    self.wfile.write(b"%x\r\n" % size + bytes(size) + b"\r\n")
                    sent += size
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if head == "status" and len(segments) == 2:
            return self.reply(int(segments[1]), b"", "text/plain")
        if head == "slow" and len(segments) == 2:
            end = time.monotonic() + int(segments[1]) / 1000.0
            while time.monotonic() < end:
                time.sleep(0.01)
            return self.reply(200, b"ok", "text/plain")
        if head == "redirect" and len(segments) >= 3:
            n = int(segments[1])
            rest = "/".join(segments[2:])
            target = "/redirect/%d/%s" % (n - 1, rest) if n > 1 else "/" + rest
            return self.reply(302, b"", "text/plain", [("Location", target)])
        if path == "/redirect-to":
            url = urllib.parse.parse_qs(parts.query)["url"][0]
            return self.reply(302, b"", "text/plain", [("Location", url)])
        return self.reply(404, b"no such route", "text/plain")

    def do_PUT(self):
        with LOCK:
            REQUESTS.append("PUT " + self.path)
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        if self.failing():
            return self.reply(503, b"busy, try again", "text/plain")
        with LOCK:
            PUTS[0] += 1
            k = PUTS[0]
            name = "%d.body" % k
            with open(os.path.join(self.server.record, name), "wb") as f:
                f.write(body)
            line = {"path": self.path, "content_type": self.headers.get("Content-Type"),
                    "length": len(body), "file": name}
            with open(os.path.join(self.server.record, "puts.jsonl"), "a") as f:
                f.write(json.dumps(line) + "\n")
        self.reply(201, b"stored", "text/plain")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--record", required=True)
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.root = args.root
    server.record = args.record
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    # Standard input closing means the test process is gone: stop with it.
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
