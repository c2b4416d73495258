"""Timings for the report (not a test): environment steps per second from
Python with and without the picture, and ``knoblab.score.epic`` on the
6,661-sample synthetic EPIC-Bench set against the command line's time.

    cargo run --example epic_synthetic -- target/tmp/epic-synthetic
    python bindings/python/bench/bench.py --cli target/cli/knoblab --epic target/tmp/epic-synthetic
"""

from __future__ import annotations

import argparse
import subprocess
import time
import warnings
import zipfile
from pathlib import Path

import knoblab

CYCLE = [
    "Press(coord=[500, 500])",
    "Switch_view(params=[top])",
    "Switch_view(params=[front])",
    "Timed_wait()",
    "Rotate(coord=[300, 700], params=[clockwise, 1])",
]


def steps_per_second(picture: bool, steps: int) -> float:
    env = knoblab.make("coffee-0001", task="single-heating-up", lam=1_000_000, picture=picture)
    env.reset(seed=0)
    start = time.perf_counter()
    for i in range(steps):
        _, _, terminated, truncated, _ = env.step(CYCLE[i % len(CYCLE)])
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", help="the knoblab binary to time against")
    ap.add_argument("--epic", help="the folder epic_synthetic wrote")
    ap.add_argument("--steps", type=int, default=20000)
    args = ap.parse_args()
    for picture in (False, True):
        rate = max(steps_per_second(picture, args.steps) for _ in range(3))
        print(f"env.step, picture={picture}: {rate:,.0f} steps/s ({1e6 / rate:.1f} µs a step)")
    if args.epic:
        root = Path(args.epic)
        gt = root / "gt"
        if not gt.is_dir():  # epic_synthetic writes the masks as a zip; the scorers read a folder
            with zipfile.ZipFile(root / "gt.zip") as z:
                z.extractall(gt)
        pred = root / "raw.jsonl"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            py = best_of(3, lambda: knoblab.score.epic(gt, pred))
        print(f"knoblab.score.epic, {pred}: {py:.3f} s (best of 3, JSON document to dict included)")
        if args.cli:
            cmd = [args.cli, "score", "epic", "--gt", str(gt), "--pred", str(pred), "--json"]
            cli = best_of(3, lambda: subprocess.run(cmd, check=True, capture_output=True))
            print(f"knoblab score epic --json: {cli:.3f} s (best of 3, process start and printing included)")


if __name__ == "__main__":
    main()
