#!/usr/bin/env python3
"""A fake model server on 127.0.0.1 for tests/agents.sh.

It speaks just enough of three model APIs for a headless coding agent to
make one tool call and send its result back:

  Anthropic Messages (Claude Code)   POST /v1/messages, SSE when "stream"
  OpenAI Responses (Codex)           POST /v1/responses, SSE
  Gemini generateContent (Gemini)    POST /v1beta/models/M:streamGenerateContent
                                     (SSE) and :generateContent

usage: model-server.py STATE_DIR

STATE_DIR/port          the port it listens on (written when ready)
STATE_DIR/scenario.json {"calls": [{"tool": NAME, "input": {...}}, ...]}: the
                        calls to ask for, one a turn, in order; read on every
                        request, so one server serves every run
STATE_DIR/requests.jsonl every request: {"api", "path", "body"}
STATE_DIR/results.jsonl  every tool result an agent sent back:
                        {"api", "index", "tool", "result"} (the result as text)

A request that offers the tools gets the next call (the number of tool
results in its conversation says which), or a final "done" after the
last; anything else (titles, summaries, routing) gets a plain answer.  Python 3 standard
library only; it never contacts anything.
"""

import http.server
import json
import os
import socketserver
import sys
import threading
import uuid

STATE = sys.argv[1]
LOCK = threading.Lock()


def append(name, record):
    with LOCK, open(os.path.join(STATE, name), "a") as f:
        f.write(json.dumps(record) + "\n")


def next_call(done):
    """The call to ask for after `done` results, or None."""
    try:
        with open(os.path.join(STATE, "scenario.json")) as f:
            calls = json.load(f).get("calls") or []
    except (OSError, ValueError):
        return None
    return calls[done] if done < len(calls) else None


def record(api, done, results):
    """The tool results of the last turn: calls done-len .. done-1."""
    for k, (tool, text) in enumerate(results):
        append("results.jsonl", {"api": api, "index": done - len(results) + k,
                                 "tool": tool, "result": text})


def text_of(content):
    """A tool result's content, whatever shape it came in, as text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c) for c in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content", "error", "llmContent"):
            if key in content:
                return text_of(content[key])
        return json.dumps(content)
    return json.dumps(content)


# ---- Anthropic Messages ----------------------------------------------------


def anthropic(body):
    msgs = body.get("messages") or []

    def results_in(m):
        return [c for c in (m.get("content") or []) if isinstance(c, dict)
                and c.get("type") == "tool_result"] if m.get("role") == "user" and \
            isinstance(m.get("content"), list) else []
    done = sum(len(results_in(m)) for m in msgs)
    last = results_in(msgs[-1]) if msgs else []
    tools = [t.get("name") for t in body.get("tools") or []]
    if not tools:
        return [{"type": "text", "text": "ok"}], "end_turn"
    if last:
        record("anthropic", done, [(None, text_of(r.get("content"))) for r in last])
    call = next_call(done)
    if call and call["tool"] in tools:
        return [{"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20],
                 "name": call["tool"], "input": call.get("input", {})}], "tool_use"
    return [{"type": "text", "text": "done"}], "end_turn"


def anthropic_message(body, blocks, stop):
    return {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
            "model": body.get("model", "fake"), "content": blocks, "stop_reason": stop,
            "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}


def anthropic_events(body, blocks, stop):
    msg = anthropic_message(body, [], None)
    yield "message_start", {"type": "message_start", "message": msg}
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "text_delta", "text": b["text"]}}
        else:
            start = dict(b, input={})
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": start}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "input_json_delta",
                                                    "partial_json": json.dumps(b["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


# ---- OpenAI Responses --------------------------------------------------------


def responses(body):
    items = body.get("input") or []
    if isinstance(items, str):
        items = []
    outputs = [i for i in items if isinstance(i, dict) and i.get("type") in
               ("function_call_output", "custom_tool_call_output")]
    tools = {}
    for t in body.get("tools") or []:
        name = t.get("name") or (t.get("function") or {}).get("name")
        tools[name] = t.get("type")
    # One call a turn: a request that ends in a result carries that turn's.
    last = items[-1] if items else None
    if isinstance(last, dict) and last in outputs:
        record("responses", len(outputs), [(None, text_of(last.get("output")))])
    call = next_call(len(outputs)) if tools else None
    if call and call["tool"] in tools:
        call_id = "call_" + uuid.uuid4().hex[:20]
        if tools[call["tool"]] == "custom":
            return [{"type": "custom_tool_call", "id": "ctc_" + uuid.uuid4().hex,
                     "status": "completed", "call_id": call_id, "name": call["tool"],
                     "input": call.get("input", "")}]
        return [{"type": "function_call", "id": "fc_" + uuid.uuid4().hex, "status": "completed",
                 "call_id": call_id, "name": call["tool"],
                 "arguments": json.dumps(call.get("input", {}))}]
    return [{"type": "message", "role": "assistant", "id": "msg_" + uuid.uuid4().hex,
             "status": "completed",
             "content": [{"type": "output_text", "text": "done", "annotations": []}]}]


def responses_events(body, output):
    rid = "resp_" + uuid.uuid4().hex
    base = {"id": rid, "object": "response", "model": body.get("model", "fake"),
            "status": "in_progress", "output": []}
    yield "response.created", {"type": "response.created", "response": base}
    for i, item in enumerate(output):
        yield "response.output_item.added", {"type": "response.output_item.added",
                                             "output_index": i, "item": item}
        yield "response.output_item.done", {"type": "response.output_item.done",
                                            "output_index": i, "item": item}
    done = dict(base, status="completed", output=output,
                usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                       "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                       "total_tokens": 15})
    yield "response.completed", {"type": "response.completed", "response": done}


# ---- Gemini ------------------------------------------------------------------------


def gemini(body):
    contents = body.get("contents") or []

    def results_in(c):
        return [p["functionResponse"] for p in c.get("parts") or []
                if isinstance(p, dict) and "functionResponse" in p]
    done = sum(len(results_in(c)) for c in contents)
    last = results_in(contents[-1]) if contents else []
    tools = [d.get("name") for t in body.get("tools") or []
             for d in t.get("functionDeclarations") or []]
    gen = body.get("generationConfig") or {}
    if tools:
        if last:
            record("gemini", done, [(r.get("name"), text_of(r.get("response"))) for r in last])
        call = next_call(done)
        if call and call["tool"] in tools:
            return [{"functionCall": {"name": call["tool"], "args": call.get("input", {})}}]
        return [{"text": "done"}]
    if gen.get("responseMimeType") == "application/json":
        # Gemini's own side questions (which model, who speaks next).
        return [{"text": json.dumps({"reasoning": "test", "model_choice": "flash",
                                     "next_speaker": "user"})}]
    return [{"text": "ok"}]


def gemini_response(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                              "totalTokenCount": 15}}


# ---- the server --------------------------------------------------------------------


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def reply_sse(self, events, named=True):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            chunk = ("event: %s\n" % name if named and name else "") + \
                "data: %s\n\n" % json.dumps(data)
            self.wfile.write(chunk.encode())
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        append("requests.jsonl", {"api": "get", "path": self.path, "body": None})
        if "/models" in self.path:
            self.reply_json({"object": "list", "data": [], "models": []})
        else:
            self.reply_json({})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            return self.reply_json({"input_tokens": 10})
        if path.endswith("/messages"):
            append("requests.jsonl", {"api": "anthropic", "path": self.path, "body": body})
            blocks, stop = anthropic(body)
            if body.get("stream"):
                return self.reply_sse(anthropic_events(body, blocks, stop))
            return self.reply_json(anthropic_message(body, blocks, stop))
        if path.endswith("/responses"):
            append("requests.jsonl", {"api": "responses", "path": self.path, "body": body})
            return self.reply_sse(responses_events(body, responses(body)))
        if ":countTokens" in path:
            return self.reply_json({"totalTokens": 10})
        if ":streamGenerateContent" in path or ":generateContent" in path:
            append("requests.jsonl", {"api": "gemini", "path": self.path, "body": body})
            resp = gemini_response(gemini(body))
            if ":stream" in path:
                return self.reply_sse([(None, resp)], named=False)
            return self.reply_json(resp)
        append("requests.jsonl", {"api": "unknown", "path": self.path, "body": body})
        self.reply_json({"error": {"message": "not served here"}}, status=404)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    tmp = os.path.join(STATE, "port.tmp")
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, os.path.join(STATE, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
