#!/usr/bin/env python3
"""A test HTTP server that reads requests as a lenient backend would, for
the egress proxy's tests of ambiguous requests (tests/run-egress-http.sh).

egress-raw-server.py PORTFILE LOGFILE: listens on a free port of 127.0.0.1,
writes the port to PORTFILE.  For each connection it reads one request:
the head up to its blank line, every Host header it holds, and a body of
the first Content-Length (or a chunked one); it answers "hello from HOSTS"
(the Host values joined by commas), then reads on until the client's end.
At that end it appends one line to LOGFILE:
  hosts=HOSTS body=N extra=M
where M counts the bytes that came after the first request's body (a second
request hidden there)."""
import os
import socket
import sys
import threading


def read_until(conn, buf, marker):
    while marker not in buf:
        more = conn.recv(65536)
        if not more:
            return buf, False
        buf += more
    return buf, True


def read_chunked(conn, buf):
    body = 0
    while True:
        buf, whole = read_until(conn, buf, b"\r\n")
        if not whole:
            return buf, body
        size_line, buf = buf.split(b"\r\n", 1)
        size = int(size_line.split(b";")[0], 16)
        while len(buf) < size + 2:
            more = conn.recv(65536)
            if not more:
                return buf, body
            buf += more
        buf = buf[size + 2:]
        body += size
        if size == 0:
            return buf, body


def serve(conn):
    with conn:
        buf, whole = read_until(conn, b"", b"\r\n\r\n")
        if not whole:
            return
        head, buf = buf.split(b"\r\n\r\n", 1)
        hosts, length, chunked = [], None, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            if name == b"host":
                hosts.append(value.decode("latin-1"))
            elif name == b"content-length" and length is None:
                length = int(value.split(b",")[0])
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if chunked:
            buf, body = read_chunked(conn, buf)
        else:
            body = length or 0
            while len(buf) < body:
                more = conn.recv(65536)
                if not more:
                    break
                buf += more
            buf = buf[body:]
        text = ("hello from %s\n" % ",".join(hosts)).encode()
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % len(text) + text)
        extra = len(buf)
        while True:
            more = conn.recv(65536)
            if not more:
                break
            extra += len(more)
        with open(sys.argv[2], "a") as f:
            f.write("hosts=%s body=%d extra=%d\n" % (",".join(hosts), body, extra))


srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % srv.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
