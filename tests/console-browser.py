"""Drive headless Chromium through the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4), with
nothing but the standard library.  Used by tests/console-browser.sh:

    console-browser.py CHROMIUM PROFILE_DIR < COMMANDS

Each line of COMMANDS is a JSON array, answered by one JSON line on stdout:
    ["open", URL]                 navigate and wait for the load
    ["eval", EXPRESSION]          its value (promises awaited)
    ["wait", EXPRESSION, TRIES]   evaluate every 50 ms until truthy
    ["click", SELECTOR]           a real mouse click in the middle of it
    ["key", KEY]                  a real key press (a single character)
    ["shot", FILE]                a PNG screenshot of the page
"""
import base64
import fcntl
import json
import os
import subprocess
import sys
import time


def moved_up(fd):
    """fd as a descriptor numbered 10 or more."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    def __init__(self, chromium, profile):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Out of the way of 3 and 4, which the child's ends become.
        to_child_r, from_child_w = moved_up(to_child_r), moved_up(from_child_w)

        def fds():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [chromium, "--headless=new", "--remote-debugging-pipe", "--no-first-run",
                "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
                "--disable-background-networking", "--user-data-dir=" + profile,
                "--window-size=1200,900", "about:blank"]
        # Chromium's own sandbox needs namespaces a container or root may
        # not give it; it loads only the console's page and a data: URL here.
        args.insert(1, "--no-sandbox")
        self.proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4, to_child_r, from_child_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def message(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_child, 65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\0", 1)
        return json.loads(line)

    def call(self, method, params=None, wait_event=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        result, seen = None, wait_event is None
        while result is None or not seen:
            m = self.message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(method + ": " + m["error"].get("message", ""))
                result = m.get("result", {})
            elif wait_event and m.get("method") == wait_event:
                seen = True
        return result

    def evaluate(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            return {"exception": r["exceptionDetails"].get("text", "")}
        return r.get("result", {}).get("value")

    def click(self, selector):
        box = self.evaluate("(() => { const e = document.querySelector(%s); if (!e) return null;"
                            " const r = e.getBoundingClientRect();"
                            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
                            % json.dumps(selector))
        if not box:
            return False
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})
        return True

    def key(self, k):
        self.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": k, "text": k})
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": k})
        return True

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run(b, cmd):
    op = cmd[0]
    if op == "open":
        b.call("Page.navigate", {"url": cmd[1]}, wait_event="Page.loadEventFired")
        return True
    if op == "eval":
        return b.evaluate(cmd[1])
    if op == "wait":
        for _ in range(cmd[2]):
            v = b.evaluate(cmd[1])
            if v and not (isinstance(v, dict) and "exception" in v):
                return v
            time.sleep(0.05)
        return None
    if op == "click":
        return b.click(cmd[1])
    if op == "key":
        return b.key(cmd[1])
    if op == "shot":
        data = b.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(cmd[1], "wb") as f:
            f.write(base64.b64decode(data))
        return True
    raise RuntimeError("unknown command " + op)


def main():
    b = Browser(sys.argv[1], sys.argv[2])
    try:
        for line in sys.stdin:
            if line.strip():
                try:
                    out = run(b, json.loads(line))
                except Exception as e:  # the test sees it as a failed answer
                    out = {"error": str(e)}
                print(json.dumps(out), flush=True)
    finally:
        b.close()


main()
