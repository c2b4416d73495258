"""``knoblab.ray.evaluate`` on a real multi-node Ray cluster on this
machine: a head and two worker nodes, each a ``ray start --block`` of its
own (its own temporary folder, one CPU, a small object store), in its own
process group. Every episode must be in the output exactly once, written
by the driver alone; then a worker node is killed (its whole process
group, SIGKILL: raylet, workers and all) while it plays an episode, and
the run still ends with every episode once.

The driver is a Python process of its own (Ray does not support a
second cluster in a process that has shut one down: its objects' owner
is reported dead), started as a user starts one. Every wait is bounded
and fails with what it waited for; nothing is timed. The nodes are this test's processes, ended by their process
groups (never ``ray stop``, which would end every Ray of the machine)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import shutil
import tempfile
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

import knoblab  # noqa: E402
import knoblab.ray  # noqa: E402

from conftest import KETTLE, MockModel, oracle_answers  # noqa: E402

RAY = str(Path(sys.executable).with_name("ray"))
# A token left in the home folder by another Ray would switch token
# authentication on for some processes only: these nodes use none.
ENV = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, check, timeout: float = 90.0, every: float = 0.05, fail: bool = True):
    """``check()`` until it is true, at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    if fail:
        pytest.fail(f"waited {timeout:.0f} s for {what}")
    return None


class Node:
    """One ``ray start --block`` in a process group of its own."""

    def __init__(self, root: Path, name: str, head_port: int, ip: str, head: bool) -> None:
        self.name = name
        self.temp = root / name
        self.temp.mkdir(parents=True)
        args = [
            RAY, "start", "--block", f"--temp-dir={self.temp}", "--num-cpus=1",
            "--object-store-memory=100000000", "--disable-usage-stats",
            f"--node-manager-port={free_port()}", f"--object-manager-port={free_port()}",
            f"--dashboard-agent-listen-port={free_port()}", f"--dashboard-agent-grpc-port={free_port()}",
            f"--metrics-export-port={free_port()}", f"--runtime-env-agent-port={free_port()}",
        ]
        if head:
            args += ["--head", f"--port={head_port}", "--include-dashboard=false", f"--dashboard-port={free_port()}"]
        else:
            args += [f"--address={ip}:{head_port}"]
        self.log = open(root / f"{name}.log", "w")
        self.process = subprocess.Popen(args, env=ENV, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=30)
        self.log.close()


@pytest.fixture(scope="module")
def mock():
    # Slow enough that a node killed as an episode starts has it in flight.
    m = MockModel(oracle_answers(KETTLE), delay=0.3)
    yield m
    m.close()


@pytest.fixture(scope="module")
def cluster():
    if ray.is_initialized():
        ray.shutdown()
    # Short: Ray's socket paths under it must fit AF_UNIX's 107 bytes.
    root = Path(tempfile.mkdtemp(prefix="kr-"))
    ip = ray.util.get_node_ip_address()
    port = free_port()
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    nodes = [Node(root, "head", port, ip, head=True)]
    try:
        nodes += [Node(root, f"worker{i}", port, ip, head=False) for i in (1, 2)]

        def connect():
            try:
                ray.init(address=f"{ip}:{port}", log_to_driver=False, configure_logging=False)
                return True
            except (ConnectionError, RuntimeError):
                return False

        wait_for("the head to take a driver", connect, every=1.0)
        alive = lambda: sum(n["Alive"] for n in ray.nodes()) == 3  # noqa: E731
        if not wait_for("three nodes alive", alive, fail=False):
            logs = "\n".join(f"--- {n.name}\n" + (root / f"{n.name}.log").read_text()[-1500:] for n in nodes)
            pytest.fail(f"the three Ray nodes did not come up:\n{logs}")
        by_temp = {}
        for n in ray.nodes():
            for node in nodes:
                if str(node.temp) in n.get("ObjectStoreSocketName", ""):
                    by_temp[n["NodeID"]] = node
        assert len(by_temp) == 3, "each Ray node found by its temporary folder"
        yield nodes, by_temp, f"{ip}:{port}"
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for node in reversed(nodes):
            node.kill()
        shutil.rmtree(root, ignore_errors=True)
        if saved is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = saved


def planned(repeats: int) -> set:
    return {f"{t['id']}#{r}" for t in knoblab.make(str(KETTLE)).unwrapped.tasks for r in range(repeats)}


def items_of(out: Path) -> list:
    text = out.read_text()
    assert text.endswith("\n")
    return [json.loads(line)["item"].split("/", 1)[1] for line in text.splitlines()]


# The driver: joins the cluster, runs the evaluation, prints its result
# and the tasks' answers as one JSON document. With a markers folder, each
# worker marks every episode it starts (node, item, process id).
DRIVER = """
import json, os, sys, time
from pathlib import Path
import ray, knoblab.ray

address, out, kettle, base_url, markers = sys.argv[1:6]

def mark(event, folder=markers):
    if event["event"] == "started":
        node = ray.get_runtime_context().get_node_id()
        Path(folder, f"{node}.{event['item'].replace('/', '_')}.{os.getpid()}").touch()

ray.init(address=address, log_to_driver=False, configure_logging=False)
answers = []
started = time.monotonic()
result = knoblab.ray.evaluate(
    out, kettle, repeats=4, model="mock-vlm", history="full", timeout=10.0, base_url=base_url,
    max_retries=5, progress=answers.append, on_event=mark if markers else None)
seconds = time.monotonic() - started
print(json.dumps({"result": result, "answers": answers, "seconds": seconds}))
"""


def drive(address: str, out: Path, mock, markers: str = "") -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, address, str(out), str(KETTLE), mock.base_url, markers],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finish(driver: subprocess.Popen) -> dict:
    try:
        stdout, stderr = driver.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        driver.kill()
        pytest.fail("the driver did not end within 240 s")
    assert driver.returncode == 0, stderr[-3000:]
    return json.loads(stdout.strip().splitlines()[-1])


def test_three_nodes_every_episode_once_written_by_the_driver(cluster, mock, tmp_path):
    nodes, by_temp, address = cluster
    out = tmp_path / "run.jsonl"
    done = finish(drive(address, out, mock))
    result, answers = done["result"], done["answers"]
    items = items_of(out)
    assert result["failed"] == [], result["failed"]
    assert sorted(items) == sorted(planned(4)), "every episode exactly once"
    assert result["left"] == 0 and result["ran"] == len(items)
    assert all(r["terminated"] for r in result["records"])
    # Played on more than one node, none from the driver's copy of the bundle.
    assert len({a["node"] for a in answers}) >= 2
    for a in answers:
        assert all(str(KETTLE) != b for b in a["bundles"]), "the bundle came through the object store"
    print(f"\n3 nodes: {len(items)} episodes in {done['seconds']:.1f} s")


def test_a_worker_node_killed_mid_run_loses_no_episode(cluster, mock, tmp_path):
    nodes, by_temp, address = cluster
    out = tmp_path / "run.jsonl"
    markers = tmp_path / "started"
    markers.mkdir()
    driver = drive(address, out, mock, str(markers))
    workers = {nid: n for nid, n in by_temp.items() if n.name != "head"}

    def victim():
        for f in markers.iterdir():
            node = f.name.split(".", 1)[0]
            if node in workers:
                return node
        return None

    node_id = wait_for("an episode to start on a worker node", victim)
    # The node as a machine lost: its process group (ray start, raylet,
    # object store), and the worker processes that played its episodes
    # (the raylet's children, which may outlive it in a group of their own).
    workers[node_id].kill()
    for f in markers.iterdir():
        if f.name.startswith(node_id):
            try:
                os.kill(int(f.name.rsplit(".", 1)[1]), signal.SIGKILL)
            except ProcessLookupError:
                pass
    result = finish(driver)["result"]
    items = items_of(out)
    assert result["failed"] == [], result["failed"]
    assert sorted(items) == sorted(planned(4)), "every episode exactly once, none lost"
    assert result["left"] == 0
    # The killed node had an episode in flight: it was played again elsewhere.
    lost = {f.name.split(".")[1] for f in markers.iterdir() if f.name.startswith(node_id)}
    again = {f.name.split(".")[1] for f in markers.iterdir() if not f.name.startswith(node_id)}
    assert lost & again, f"an episode the killed node started ({sorted(lost)}) was played again"
