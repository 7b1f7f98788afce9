"""Run OpenClaw commands inside an empty network namespace, next to a mock model.

Usage: ``unshare -n python3 netns_runner.py SPEC.json``

The spec names the commands to run (argv, env, timeout, output files) and an
optional scripted mock model. Inside the fresh namespace only the loopback
interface exists; this script brings it up, serves an OpenAI-compatible
chat-completions mock on 127.0.0.1, runs the commands one after another and
writes a JSON result (exit codes, seconds). Nothing here can reach another
host: the namespace has no other interface.

Mock script: a list of steps; a step is a list of ``[tool_name, arguments]``
calls the model "makes" in one assistant message. Step *n* is played when the
conversation already holds *n* assistant messages with tool calls; after the
last step the model answers ``MOCK_DONE``. Every request body is written to
``<out_dir>/req-<n>.json``.

Standard library only: it runs under whatever python3 the suite uses.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _loopback_up() -> None:
    """Bring ``lo`` up in the new namespace (it starts down)."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)


class _Mock:
    def __init__(self, script: list[list[list[Any]]], out_dir: str) -> None:
        self.script = script
        self.out_dir = out_dir
        self.count = 0
        self.lock = threading.Lock()
        os.makedirs(out_dir, exist_ok=True)

    def record(self, method: str, path: str, body: Any) -> int:
        with self.lock:
            self.count += 1
            n = self.count
        with open(os.path.join(self.out_dir, f"req-{n}.json"), "w", encoding="utf-8") as fh:
            json.dump({"method": method, "url": path, "body": body}, fh, indent=1)
        return n

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
        """Return (tool_calls, text) for this request."""
        messages = body.get("messages") or []
        done_steps = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        offered = {(t.get("function") or {}).get("name") for t in body.get("tools") or []}
        if done_steps >= len(self.script):
            return [], "MOCK_DONE"
        calls = []
        for i, (name, args) in enumerate(self.script[done_steps]):
            if name not in offered and "tool_call" in offered:
                name, args = "tool_call", {"id": name, "args": args}
            calls.append({
                "index": i,
                "id": f"call_{done_steps + 1}_{i + 1}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            })
        return calls, None


def _handler(mock: _Mock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep stderr quiet
            pass

        def _json(self, obj: Any) -> None:
            data = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            mock.record("GET", self.path, None)
            self._json({"object": "list", "data": [{"id": "mock-model", "object": "model"}]})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = {}
            n = mock.record("POST", self.path, body)
            calls, text = mock.reply(body)
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            finish = "tool_calls" if calls else "stop"
            base = {"id": f"cmpl-{n}", "created": 0, "model": "mock-model"}
            if not body.get("stream"):
                message: dict[str, Any] = {"role": "assistant", "content": text}
                if calls:
                    message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
                self._json({**base, "object": "chat.completion", "usage": usage,
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            delta: dict[str, Any] = {"role": "assistant"}
            if calls:
                delta["tool_calls"] = calls
            else:
                delta["content"] = text
            chunks = [
                {**base, "object": "chat.completion.chunk",
                 "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                {**base, "object": "chat.completion.chunk", "usage": usage,
                 "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            ]
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


def main(spec_path: str) -> int:
    with open(spec_path, encoding="utf-8") as fh:
        spec = json.load(fh)
    _loopback_up()
    server = None
    if spec.get("mock") is not None:
        mock = _Mock(spec["mock"]["script"], spec["mock"]["out_dir"])
        server = ThreadingHTTPServer(("127.0.0.1", int(spec["mock"]["port"])), _handler(mock))
        threading.Thread(target=server.serve_forever, daemon=True).start()
    results = []
    for cmd in spec["commands"]:
        started = time.monotonic()
        with open(cmd["stdout"], "wb") as out, open(cmd["stderr"], "wb") as err:
            try:
                rc = subprocess.run(cmd["argv"], env=cmd["env"], cwd=cmd.get("cwd"), stdout=out,
                                    stderr=err, stdin=subprocess.DEVNULL,
                                    timeout=cmd.get("timeout", 180)).returncode
            except subprocess.TimeoutExpired:
                rc = -9
        results.append({"argv": cmd["argv"], "rc": rc, "seconds": round(time.monotonic() - started, 2)})
    if server is not None:
        server.shutdown()
    with open(spec["result"], "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
