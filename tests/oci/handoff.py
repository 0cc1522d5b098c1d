"""Hand a listener made in one network namespace to a process in another.

handoff.py send UNIX-PATH ADDR PORT: (run inside the container's network
namespace) listen on ADDR:PORT there, send that socket over the unix
socket UNIX-PATH, then wait until stdin closes, keeping the namespace.

handoff.py recv UNIX-PATH CMD...: (run where the proxy's contacts are to
leave from) wait on UNIX-PATH for the socket, then exec CMD with every
"{fd}" in it the socket's descriptor number: `cordon proxy --listen fd:{fd}`.

For tests/oci-proxy.sh; what a container engine or a CNI plugin does when
it gives a container's namespace a way to a proxy outside it.
"""
import os
import socket
import sys


def send(path, addr, port):
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind((addr, int(port)))
    lst.listen(128)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as u:
        u.connect(path)
        socket.send_fds(u, [b"L"], [lst.fileno()])
    lst.close()
    sys.stdin.read()


def recv(path, cmd):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as srv:
        srv.bind(path)
        srv.listen(1)
        conn, _ = srv.accept()
        with conn:
            _, fds, _, _ = socket.recv_fds(conn, 1, 1)
    if len(fds) != 1:
        sys.exit("handoff.py: no socket came")
    os.set_inheritable(fds[0], True)
    os.execvp(cmd[0], [a.replace("{fd}", str(fds[0])) for a in cmd])


if sys.argv[1] == "send":
    send(*sys.argv[2:5])
else:
    recv(sys.argv[2], sys.argv[3:])
