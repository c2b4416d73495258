"""A tiny OpenAI-compatible chat completions server for the model-run tests.

Every request to ``/v1/chat/completions`` (or ``/chat/completions``) gets
the same assistant reply, after ``delay`` seconds; every request is
counted. It listens on 127.0.0.1 only and stops with the test.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Tuple

REPLY = "Thought: I wait for the device.\nAction: Timed_wait()"


class MockServer:
    """Starts on a free loopback port; ``url`` is the API base URL."""

    def __init__(self, reply: str = REPLY, delay: float = 0.0) -> None:
        self.reply = reply
        self.delay = delay
        self.requests = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with server._lock:
                    server.requests += 1
                if not self.path.rstrip("/").endswith("chat/completions"):
                    self.send_error(404)
                    return
                try:
                    model = json.loads(body).get("model", "mock")
                except ValueError:
                    self.send_error(400)
                    return
                if server.delay:
                    time.sleep(server.delay)
                doc = {
                    "id": "mock-1",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": server.reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                }
                data = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def address(self) -> Tuple[str, int]:
        return self._httpd.server_address[:2]  # type: ignore[return-value]

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


if __name__ == "__main__":  # a standalone mock: python mock_server.py [delay]
    import sys

    mock = MockServer(delay=float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)
    print(mock.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        mock.close()
