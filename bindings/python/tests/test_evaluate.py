"""``knoblab.evaluate``: the core's runner from Python, against a mock
OpenAI-compatible server; its output file equals ``knoblab eval``'s."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import knoblab

from conftest import KETTLE, MockModel, oracle_answers, run_cli, strip_timings

OPTIONS = dict(
    tasks=["boil", "open_lid"],
    repeats=2,
    model="mock-vlm",
    history="full",
    concurrency=1,
    timeout=5.0,
    retries=1,
    backoff=0.05,
    price_in=2.5,
    price_out=10.0,
)


def cli_args(out: Path, base_url: str) -> list:
    return [
        "eval", str(KETTLE), "--tasks", "boil,open_lid", "--repeats", "2",
        "--base-url", base_url, "--model", "mock-vlm", "--history", "full",
        "--concurrency", "1", "--timeout", "5", "--retries", "1", "--backoff", "0.05",
        "--price-in", "2.5", "--price-out", "10", "--api-key-env", "KNOBLAB_NO_SUCH_KEY",
        "--out", str(out), "--json", "--quiet",
    ]


def test_the_output_equals_knoblab_evals_but_the_timings(cli, mock_model, tmp_path):
    out = tmp_path / "python.jsonl"
    result = knoblab.evaluate(
        out, KETTLE, base_url=mock_model.base_url, api_key_env="KNOBLAB_NO_SUCH_KEY", **OPTIONS
    )
    assert result["stop"] == "complete"
    assert result["ran"] == 4 and result["left"] == 0 and result["problems"] == []
    assert all(r["terminated"] for r in result["records"]), "the oracle's answers solve every task"

    cli_out = tmp_path / "cli.jsonl"
    doc = json.loads(run_cli(cli, *cli_args(cli_out, mock_model.base_url)))

    ours = out.read_text().splitlines()
    theirs = cli_out.read_text().splitlines()
    assert len(ours) == len(theirs) == 4
    for a, b in zip(ours, theirs):
        assert strip_timings(a) == strip_timings(b)
    # The records returned are the file's lines.
    assert [strip_timings(json.dumps(r)) for r in result["records"]] == [strip_timings(l) for l in ours]
    # The run descriptions beside them are the same document.
    spec = lambda p: json.loads(Path(str(p) + ".run.json").read_text())
    assert spec(out) == spec(cli_out)
    # The metrics are knoblab eval --json's, but for the file's name.
    assert result["metrics"]["file"] == str(out)
    assert {k: v for k, v in result["metrics"].items() if k != "file"} == {
        k: v for k, v in doc.items() if k != "file"
    }


def test_a_second_call_resumes_and_sends_nothing(mock_model, tmp_path):
    out = tmp_path / "run.jsonl"
    first = knoblab.evaluate(out, KETTLE, base_url=mock_model.base_url, **OPTIONS)
    sent = len(mock_model.requests)
    events = []
    again = knoblab.evaluate(out, KETTLE, base_url=mock_model.base_url, progress=events.append, **OPTIONS)
    assert again["ran"] == 0 and again["left"] == 0
    assert len(mock_model.requests) == sent
    assert events[0] == {"event": "resumed", "done": 4, "total": 4, "notes": []}
    assert again["records"] == first["records"]
    assert len(out.read_text().splitlines()) == 4


def test_another_runs_file_and_bad_options_raise_their_classes(mock_model, tmp_path):
    out = tmp_path / "run.jsonl"
    knoblab.evaluate(out, KETTLE, agent="oracle", tasks="boil")
    with pytest.raises(knoblab.RunRefusedError, match="agent: oracle before, random now"):
        knoblab.evaluate(out, KETTLE, agent="random", tasks="boil")
    with pytest.raises(knoblab.OptionsError, match="--base-url is needed to run a model"):
        knoblab.evaluate(tmp_path / "b.jsonl", KETTLE)
    with pytest.raises(knoblab.OptionsError, match='unknown --agent "robot"'):
        knoblab.evaluate(tmp_path / "c.jsonl", KETTLE, agent="robot")
    with pytest.raises(knoblab.OptionsError, match="item 99 is not in the plan"):
        knoblab.evaluate(tmp_path / "d.jsonl", KETTLE, agent="oracle", select=[99])
    with pytest.raises(knoblab.BundleError, match="no device nope"):
        knoblab.evaluate(tmp_path / "e.jsonl", KETTLE, agent="oracle", devices="nope")


def test_a_callback_that_raises_stops_the_run_and_its_error_is_raised(mock_model, tmp_path):
    out = tmp_path / "run.jsonl"

    def stop_at_first_finish(event):
        if event["event"] == "finished":
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        knoblab.evaluate(out, KETTLE, base_url=mock_model.base_url, progress=stop_at_first_finish, **OPTIONS)
    # The episode that finished is in the file; the rest is left for a resume.
    assert len(out.read_text().splitlines()) == 1
    rest = knoblab.evaluate(out, KETTLE, base_url=mock_model.base_url, **OPTIONS)
    assert rest["ran"] == 3 and rest["left"] == 0


def test_the_shipped_library_is_played_by_default():
    device = knoblab.library()[0]
    task = device["tasks"][0]["id"]
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        result = knoblab.evaluate(Path(d) / "run.jsonl", agent="oracle", devices=device["id"], tasks=task)
    assert [r["item"] for r in result["records"]] == [f"{device['id']}/{task}#0"]
    assert result["metrics"]["sr"] == 1.0


# The child's Ctrl-C is a terminal's: a suite started in the background
# (a shell's `&`) has SIGINT ignored, which a child inherits, and Python
# then installs no KeyboardInterrupt handler of its own.
CHILD = """
import signal, sys, knoblab
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    knoblab.evaluate(sys.argv[1], sys.argv[2], base_url=sys.argv[3], model="m", history="full",
                     repeats=4, concurrency=2, timeout=5.0)
except KeyboardInterrupt:
    sys.exit(130)
sys.exit(0)
"""


def test_ctrl_c_keeps_the_finished_episodes_and_a_rerun_completes(tmp_path):
    # The model holds its answers once two episodes have ended, so the
    # Ctrl-C comes while the run is under way even on a loaded machine (a
    # child left to run could finish before a starved test looked).
    slow = MockModel(oracle_answers(KETTLE), delay=0.05, hold_after_episodes=2)
    try:
        out = tmp_path / "run.jsonl"
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(out), str(KETTLE), slow.base_url],
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_text().splitlines()) >= 2:
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        # The child sees the signal within 0.1 s; then the held requests go.
        time.sleep(0.3)
        slow.release.set()
        _, stderr = child.communicate(timeout=30)
        assert child.returncode == 130, stderr
        text = out.read_text()
        assert text.endswith("\n"), "whole lines only"
        before = len(text.splitlines())
        assert 2 <= before < 12, before
        result = knoblab.evaluate(out, KETTLE, base_url=slow.base_url, model="m", history="full",
                                  repeats=4, concurrency=2, timeout=5.0)
        items = [json.loads(l)["item"] for l in out.read_text().splitlines()]
        assert len(items) == len(set(items)) == 12
        assert result["ran"] == 12 - before
    finally:
        slow.close()


def test_import_knoblab_does_not_import_ray():
    code = "import sys, knoblab; knoblab.evaluate; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
