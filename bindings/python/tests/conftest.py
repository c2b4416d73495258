"""Shared fixtures: the repository's paths and the ``knoblab`` command line.

The command line is the parity target: ``KNOBLAB_CLI`` names its binary
(``scripts/dev.sh python`` builds ``target/debug/knoblab``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, List

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
DEVICES = ROOT / "data" / "devices"


def library_ids() -> List[str]:
    index = json.loads((ROOT / "data" / "library.json").read_text())
    return [d["id"] for d in index["devices"]]


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("KNOBLAB_CLI", str(ROOT / "target" / "debug" / "knoblab"))
    if not Path(path).is_file():
        pytest.fail(f"no knoblab binary at {path}: build it (cargo build --bin knoblab) or set KNOBLAB_CLI")
    return path


def run_cli(cli: str, *args: str) -> str:
    """The command's stdout; fails the test with its stderr if it fails."""
    out = subprocess.run([cli, *args], capture_output=True, text=True)
    assert out.returncode == 0, f"knoblab {' '.join(args)}: {out.stderr}"
    return out.stdout


def cli_json(cli: str, *args: str) -> Any:
    return json.loads(run_cli(cli, *args, "--json"))


# ------------------------------------------------------------ a mock model

KETTLE = FIXTURES / "kettle"


class MockModel:
    """An OpenAI-compatible chat server on a free loopback port (the
    protocol of the Rust eval tests' mock, written again in Python): it
    answers each turn with the oracle's action for the episode's task
    (found by an instruction of it in the last message) and turn (the
    assistant messages so far: run with ``history="full"``), after
    ``delay`` seconds. ``requests`` keeps every request's path, headers
    and JSON body. With ``hold_after_episodes=n``, once it has given the
    last action of n episodes it holds every later request until
    ``release`` is set, so a test can act while a run is surely under
    way, whatever the machine's pace."""

    def __init__(
        self, answers: "dict[str, list[str]]", delay: float = 0.0, hold_after_episodes: "int | None" = None
    ) -> None:
        import http.server
        import threading

        self.answers = answers
        self.delay = delay
        self.requests: List[Any] = []
        self.hold_after_episodes = hold_after_episodes
        self.last_actions_given = 0
        self.release = threading.Event()
        self._lock = threading.Lock()
        mock = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                answer, last = mock.reply_and_last(body)
                with mock._lock:
                    mock.requests.append((self.path, dict(self.headers), body))
                    hold = mock.hold_after_episodes is not None and mock.last_actions_given >= mock.hold_after_episodes
                    if last and not hold:
                        mock.last_actions_given += 1
                if hold:
                    mock.release.wait(timeout=60)
                reply = json.dumps(answer).encode()
                if mock.delay:
                    import time

                    time.sleep(mock.delay)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(reply)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def _text(message: Any) -> str:
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
        return ""

    def reply_and_last(self, body: Any) -> Any:
        """The answer to a request, and whether it gives the last action of
        its task's oracle path (the episode's end)."""
        messages = body.get("messages", []) if isinstance(body, dict) else []
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        last = self._text(messages[-1]) if messages else ""
        action = "Timed_wait()"
        ends = False
        for instruction, actions in self.answers.items():
            if instruction in last and turn < len(actions):
                action = actions[turn]
                ends = turn == len(actions) - 1
                break
        return {
            "choices": [
                {"message": {"role": "assistant", "content": f"Thought: turn {turn}.\nAction: {action}"}}
            ],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 20},
        }, ends

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def mock_model():
    m = MockModel(oracle_answers(KETTLE))
    yield m
    m.close()


def oracle_answers(bundle: Path) -> "dict[str, list[str]]":
    """The oracle's actions of every task of a bundle, by each of its instructions."""
    import knoblab

    env = knoblab.make(str(bundle)).unwrapped
    answers = {}
    for task in env.tasks:
        actions = [s["action"] for s in env.optimal(task["id"])]
        # A task of several goals shows the instruction of the goal under way.
        for instruction in task["instructions"]:
            answers[instruction] = actions
    return answers


def strip_timings(line: str) -> Any:
    """An episode line without what legitimately differs between two runs:
    each turn's ``elapsed_ms`` (wall-clock time of its request)."""
    record = json.loads(line)
    for turn in record.get("turns", []):
        turn.pop("elapsed_ms", None)
    return record
