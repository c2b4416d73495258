#!/usr/bin/env python3
"""Ten runs of 16,000 episodes each, for timing `knoblab leaderboard`
(docs/leaderboard.md, Performance).

Input: four runs `knoblab eval` made on the 52 hand-described library
devices (624 episodes each) in the current folder: oracle.jsonl and
random1.jsonl .. random3.jsonl (`--agent oracle`, `--agent random --seed
N`). Output: runs/run00.jsonl .. runs/run09.jsonl. Run i takes each
episode from the oracle with probability i/9, else from one of the
random runs, as repeat r of its task (the item `bundle/task#r`, as
`knoblab eval --repeats` writes), and names its model `mix-i`; seeded,
so the files are the same on every machine.
"""

import json
import os
import random

# `LEADERBOARD_EPISODES` makes smaller runs (scripts/perf.sh --quick).
EPISODES = int(os.environ.get("LEADERBOARD_EPISODES", "16000"))
RUNS = 10


def main() -> None:
    pools = {}
    for name in ["oracle", "random1", "random2", "random3"]:
        with open(f"{name}.jsonl") as f:
            records = [json.loads(line) for line in f if line.strip()]
        pools[name] = {r["item"]: r for r in records}
    items = sorted(pools["oracle"])
    os.makedirs("runs", exist_ok=True)
    for i in range(RUNS):
        rng = random.Random(i)
        p = i / (RUNS - 1)
        with open(f"runs/run{i:02}.jsonl", "w") as out:
            k = 0
            r = 0
            while k < EPISODES:
                for t, item in enumerate(items):
                    if k >= EPISODES:
                        break
                    src = "oracle" if rng.random() < p else f"random{1 + (r + t) % 3}"
                    rec = dict(pools[src][item])
                    rec["item"] = f"{rec['bundle_id']}/{rec['task_id']}#{r}"
                    rec["settings"] = dict(rec["settings"], model=f"mix-{i}")
                    out.write(json.dumps(rec, separators=(",", ":")) + "\n")
                    k += 1
                r += 1


if __name__ == "__main__":
    main()
