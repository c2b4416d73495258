"""``knoblab.ray.evaluate`` on a local Ray cluster (two CPUs, one per
session) against the mock model server: every episode once in the
output the driver writes, also after a worker process is killed in the
middle of its task (Ray's retry, or a second call, completes the run).
The multi-node cluster is in test_ray_cluster.py.

Requests go to the plan's base URL ``http://model.invalid/v1`` rerouted
on each worker by an environment variable to the mock: the per-node
endpoint of docs/python.md's recipe, on one node."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import knoblab  # noqa: E402
import knoblab.ray  # noqa: E402

from conftest import KETTLE  # noqa: E402

PLAN_URL = "http://model.invalid/v1"
ROUTE = "KNOBLAB_TEST_ENDPOINT"


@pytest.fixture(scope="module")
def cluster(mock_model):
    # Workers inherit the environment of the cluster's processes.
    os.environ[ROUTE] = mock_model.base_url
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()
    os.environ.pop(ROUTE, None)


OPTIONS = dict(repeats=2, model="mock-vlm", history="full", timeout=5.0, base_url=PLAN_URL, send_to_env=ROUTE)


def items_of(out: Path) -> list:
    text = out.read_text()
    assert text.endswith("\n")
    return [json.loads(line)["item"] for line in text.splitlines()]


def planned() -> set:
    return {f"{t['id']}#{r}" for t in knoblab.make(str(KETTLE)).unwrapped.tasks for r in range(2)}


def killer(marker: str):
    """A worker-side event hook that kills its own process (os._exit, no
    cleanup) when its task starts a second episode, once per marker: the
    first episode finished, the second in flight, neither returned."""

    def on_event(event):
        if event["event"] != "started":
            return
        started = on_event.__dict__.setdefault("started", 0) + 1
        on_event.started = started
        if started == 2:
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os._exit(1)

    return on_event


def test_every_episode_once_through_ray_tasks(cluster, mock_model, tmp_path):
    out = tmp_path / "run.jsonl"
    result = knoblab.ray.evaluate(out, KETTLE, chunk=2, **OPTIONS)
    items = items_of(out)
    assert len(items) == len(set(items)) == 6
    assert {i.split("/", 1)[1] for i in items} == planned()
    assert result["tasks"] == 3 and result["ran"] == 6 and result["left"] == 0
    assert result["failed"] == []
    for r in result["records"]:
        assert r["terminated"], "the mock's oracle answers reached the workers"
        assert r["settings"]["endpoint"] == PLAN_URL, "the run keeps its plan's URL"
    assert result["metrics"]["sr"] == 1.0
    # Nothing left: a second call sends no task.
    again = knoblab.ray.evaluate(out, KETTLE, chunk=2, **OPTIONS)
    assert again["tasks"] == 0 and len(items_of(out)) == 6


def test_a_killed_worker_is_retried_by_ray_and_each_episode_is_once(cluster, tmp_path):
    out = tmp_path / "run.jsonl"
    marker = tmp_path / "killed"
    result = knoblab.ray.evaluate(out, KETTLE, chunk=3, max_retries=2, on_event=killer(str(marker)), **OPTIONS)
    assert marker.exists(), "a worker was killed"
    items = items_of(out)
    assert len(items) == len(set(items)) == 6
    assert result["failed"] == [] and result["left"] == 0


def test_without_retries_a_second_call_completes_the_run(cluster, tmp_path):
    out = tmp_path / "run.jsonl"
    marker = tmp_path / "killed"
    first = knoblab.ray.evaluate(out, KETTLE, chunk=3, max_retries=0, on_event=killer(str(marker)), **OPTIONS)
    assert marker.exists()
    assert len(first["failed"]) == 1 and first["left"] >= 1
    before = items_of(out)
    # The killed task returned nothing: its episodes are in no file.
    assert len(before) == len(set(before)) == 6 - first["left"]
    second = knoblab.ray.evaluate(out, KETTLE, chunk=3, max_retries=0, **OPTIONS)
    items = items_of(out)
    assert len(items) == len(set(items)) == 6
    assert second["failed"] == [] and second["left"] == 0
    assert second["ran"] == 6 - len(before)


def test_another_runs_file_is_refused_before_any_task(cluster, tmp_path):
    out = tmp_path / "run.jsonl"
    knoblab.evaluate(out, KETTLE, agent="oracle", tasks="boil")
    with pytest.raises(knoblab.RunRefusedError):
        knoblab.ray.evaluate(out, KETTLE, **OPTIONS)
