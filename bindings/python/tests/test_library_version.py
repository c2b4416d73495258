"""The frozen, versioned benchmark from Python (issue #19): the shipped
library's version and content hash are the committed ones, every episode
on one of its devices records them (the environment and ``evaluate``
alike) and none on a bundle of one's own, ``knoblab.metrics`` refuses to
pool two library versions, and ``knoblab.library()`` lists the generated
devices' tasks from their committed task list."""

from __future__ import annotations

import json

import pytest

import knoblab
from conftest import DEVICES, FIXTURES, ROOT

VERSION = json.loads((ROOT / "data" / "library-version.json").read_text())
STAMP = {"version": VERSION["version"], "hash": VERSION["hash"]}


def oracle_line(device) -> str:
    """The first task of ``device`` played by the oracle, as its trajectory line."""
    env = knoblab.make(device).unwrapped
    env.reset(seed=0)
    for step in env.optimal():
        env.step(step["action"])
    line = env.trajectory()
    env.close()
    return line


def test_the_shipped_librarys_identity_is_the_committed_one():
    assert knoblab.library_version() == STAMP
    assert len(VERSION["devices"]) == 968


@pytest.mark.parametrize("device", ["lamp-0001", "lamp-g0001", str(DEVICES / "lamp-0001")])
def test_an_episode_on_a_library_device_records_the_library(device):
    line = json.loads(oracle_line(device))
    assert line["settings"]["library"] == STAMP
    assert line["terminated"]


def test_a_bundle_of_ones_own_records_none():
    # The fixture is called kettle-0001 too, with other logic.
    line = json.loads(oracle_line(str(FIXTURES / "kettle")))
    assert line["bundle_id"] == "kettle-0001"
    assert "library" not in line["settings"]


def test_evaluate_records_it_and_metrics_refuse_two_library_versions(tmp_path):
    out = tmp_path / "oracle.jsonl"
    result = knoblab.evaluate(out, [str(DEVICES / "lamp-0001")], agent="oracle", concurrency=1)
    assert result["stop"] == "complete" and result["ran"] > 1
    assert all(r["settings"]["library"] == STAMP for r in result["records"])
    lines = out.read_text().splitlines()
    other = tmp_path / "other.jsonl"
    bumped = []
    for line in lines:
        record = json.loads(line)
        record["settings"]["library"] = {"version": STAMP["version"] + 1, "hash": "f" * 64}
        bumped.append(json.dumps(record))
    other.write_text("\n".join(bumped) + "\n")
    with pytest.raises(knoblab.MetricsError) as refused:
        knoblab.metrics([out, other], bundles=DEVICES)
    message = str(refused.value)
    assert f"library version {STAMP['version'] + 1} (ffffffffffff" in message
    assert f"library version {STAMP['version']} ({STAMP['hash'][:12]}" in message
    assert str(other) in message and str(out) in message
    # Each file alone is scored.
    assert knoblab.metrics(out, bundles=DEVICES)["sr"] == 1.0


def test_the_library_lists_generated_tasks_from_the_committed_task_list():
    tasks = json.loads((ROOT / "data" / "generated-tasks.json").read_text())
    listed = {d["id"]: d for d in knoblab.library() if d["generated"]}
    assert len(listed) == len(tasks["devices"]) == 916
    for device in tasks["devices"]:
        assert listed[device["id"]]["tasks"] == device["tasks"], device["id"]
