#!/usr/bin/env python3
"""Writes the two large inputs of docs/performance.md ("Metrics and
validation at scale", issue #47), deterministic for a seed:

- OUT/ring/: the kettle fixture with its state machine replaced by a ring
  of STATES states (default 100,000, the cap), each with one push of the
  knob to the next, in an order shuffled by the seed, and one task whose
  goal is GOAL_STEPS pushes away; `knoblab run --agent oracle` then writes
  OUT/ring.jsonl for `knoblab metrics`.
- OUT/wide/: the kettle fixture with one state holding WIDE (default
  40,000) components, each with one push back to the start, and WIDE
  tasks, each with a goal and an instruction, for `knoblab validate`.

Usage: python3 scripts/big_inputs.py OUT [--seed N] [--states N]
       [--wide N] [--goal-steps N]
"""

import argparse
import json
import random
import shutil
from pathlib import Path

KETTLE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "kettle"
# The power button's box on the front view of the kettle fixture.
BOX = [{"coordinate": [852, 955, 184, 76, 1209, 1369], "view": "front"}]


def bundle_from_kettle(folder: Path, ssm: dict, tasks: list) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(KETTLE, folder)
    (folder / "ssm.json").write_text(json.dumps(ssm))
    (folder / "tasks.json").write_text(json.dumps({"tasks": tasks}))


def ring(folder: Path, states: int, goal_steps: int, rng: random.Random) -> None:
    order = [f"S{i}" for i in range(states)]
    rng.shuffle(order)
    machine = {}
    for i, name in enumerate(order):
        machine[name] = {
            "description": "",
            "on": {
                "knob": [
                    {
                        "next_state": order[(i + 1) % states],
                        "transition_description": "",
                        "bbox": BOX,
                        "atomic_action": "push",
                        "parameter": ["1"],
                    }
                ]
            },
        }
    ssm = {"name": "Ring", "path": "ring", "initial_state": order[0], "states": machine}
    tasks = [
        {
            "id": "far",
            "goals": [{"state": order[goal_steps % states], "instruction": "Turn it on."}],
        }
    ]
    bundle_from_kettle(folder, ssm, tasks)


def wide(folder: Path, n: int, rng: random.Random) -> None:
    components = {}
    for i in range(n):
        components[f"c{i}"] = [
            {
                "next_state": "Start",
                "transition_description": "",
                "bbox": BOX,
                "atomic_action": "push",
                "parameter": [str(rng.randrange(1, 10))],
            }
        ]
    ssm = {
        "name": "Wide",
        "path": "wide",
        "initial_state": "Start",
        "states": {"Start": {"description": "", "on": components}},
    }
    tasks = [
        {
            "id": f"t{i}",
            "goals": [{"state": "Start", "instruction": f"Leave it as it is, please ({i})."}],
        }
        for i in range(n)
    ]
    bundle_from_kettle(folder, ssm, tasks)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--seed", type=int, default=47)
    p.add_argument("--states", type=int, default=100_000)
    p.add_argument("--wide", type=int, default=40_000)
    p.add_argument("--goal-steps", type=int, default=1_000)
    a = p.parse_args()
    rng = random.Random(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)
    ring(a.out / "ring", a.states, a.goal_steps, rng)
    wide(a.out / "wide", a.wide, rng)
    print(f"wrote {a.out / 'ring'} ({a.states} states) and {a.out / 'wide'} ({a.wide} components and tasks)")


if __name__ == "__main__":
    main()
