#!/usr/bin/env python3
"""A test HTTP server on the host's 127.0.0.1 for the egress tests.

egress-server.py PORTFILE LOGFILE [BIG_BYTES]: listens on a free port of
127.0.0.1, writes the port to PORTFILE, and appends a line to LOGFILE for
every connection it accepts (so a test can tell that nothing connected).
GET /big answers BIG_BYTES bytes; any other path "hello from NAME" where
NAME is the Host header the request came with."""
import http.server
import socketserver
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/big":
            n = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 20
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            chunk = b"x" * 1048576
            while n > 0:
                self.wfile.write(chunk[: min(n, len(chunk))])
                n -= len(chunk)
            return
        body = ("hello from %s\n" % self.headers.get("Host", "?")).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def verify_request(self, request, client_address):
        with open(sys.argv[2], "a") as f:
            f.write("connection from %s:%d\n" % client_address)
        return True


srv = Server(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % srv.server_address[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
