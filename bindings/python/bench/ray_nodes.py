"""Episodes per second of ``knoblab.ray.evaluate`` on 1 and 3 Ray nodes of
this machine (each ``ray start --block`` with 1 CPU, as in
tests/test_ray_cluster.py), against the tests' mock model answering each
request after 0.3 s: the kettle fixture's 3 tasks x REPEATS, one episode
a task. On each layout a warm-up run of 3 episodes goes first (worker
processes started), then the timed run (wall time of the call).

    target/py-venv/bin/python bindings/python/bench/ray_nodes.py [REPEATS]
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
os.environ["RAY_AUTH_MODE"] = "disabled"

import ray  # noqa: E402

import knoblab.ray  # noqa: E402
from conftest import KETTLE, MockModel, oracle_answers  # noqa: E402
from test_ray_cluster import Node, free_port, wait_for  # noqa: E402


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    mock = MockModel(oracle_answers(KETTLE), delay=0.3)
    root = Path(tempfile.mkdtemp(prefix="kb-"))
    ip = ray.util.get_node_ip_address()
    port = free_port()
    nodes = [Node(root, "head", port, ip, True)]
    options = dict(repeats=repeats, model="mock-vlm", history="full", timeout=10.0, base_url=mock.base_url)

    def connect() -> bool:
        try:
            ray.init(address=f"{ip}:{port}", log_to_driver=False, configure_logging=False)
            return True
        except (ConnectionError, RuntimeError):
            return False

    def run(label: str) -> None:
        knoblab.ray.evaluate(root / f"warm-{label}.jsonl", KETTLE, **dict(options, repeats=1))
        started = time.monotonic()
        result = knoblab.ray.evaluate(root / f"{label}.jsonl", KETTLE, **options)
        seconds = time.monotonic() - started
        n = result["ran"]
        print(f"{label}: {n} episodes in {seconds:.2f} s = {n / seconds:.2f} episodes/s", flush=True)

    try:
        wait_for("the head", connect, every=1.0)
        run("1 node")
        nodes += [Node(root, f"worker{i}", port, ip, False) for i in (1, 2)]
        wait_for("three nodes", lambda: sum(n["Alive"] for n in ray.nodes()) == 3)
        run("3 nodes")
    finally:
        ray.shutdown()
        for node in reversed(nodes):
            node.kill()
        shutil.rmtree(root, ignore_errors=True)
        mock.close()


if __name__ == "__main__":
    main()
