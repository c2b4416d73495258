"""Steps per second of a vector environment (not a test): ``gymnasium.make_vec``
on one device, ``async`` with shared memory (or ``sync``), seeded random
actions from the device's own optimal paths, waits and switches. Prints the
wall time, the CPU time of this process and of its worker processes, and
the size of one observation.

    python bindings/python/bench/vector.py                    # 8 envs, async, 2,000 steps
    python bindings/python/bench/vector.py --mode sync --envs 4 --pictures live --size 320 240
"""

from __future__ import annotations

import argparse
import resource
import time
from typing import List

import gymnasium
import numpy as np

import knoblab


def pool(device: str) -> List[str]:
    env = knoblab.make(device, picture=False).unwrapped
    actions = {s["action"] for t in env.tasks for s in env.optimal(t["id"])}
    actions |= {f"Switch_view(params=[{v}])" for v in env.view_names} | {"Timed_wait()"}
    return sorted(actions)


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="microwave-0001")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=2000, help="vector steps (each steps every env)")
    parser.add_argument("--mode", choices=["async", "sync"], default="async")
    parser.add_argument("--pictures", choices=["static", "live"], default="static")
    parser.add_argument("--size", type=int, nargs=2, metavar=("W", "H"))
    args = parser.parse_args()
    kwargs = {"pictures": args.pictures}
    if args.size:
        kwargs["size"] = tuple(args.size)
    actions = pool(args.device)
    rng = np.random.default_rng(0)
    batches = [tuple(actions[i] for i in rng.integers(len(actions), size=args.envs)) for _ in range(args.steps)]
    vec = gymnasium.make_vec(
        f"knoblab/{args.device}",
        num_envs=args.envs,
        vectorization_mode=args.mode,
        vector_kwargs={"shared_memory": True} if args.mode == "async" else {},
        **kwargs,
    )
    observation, _ = vec.reset(seed=0)
    one = {k: (v[0].nbytes if isinstance(v, np.ndarray) else None) for k, v in observation.items()}
    space = vec.single_observation_space
    cpu0, wall0 = cpu(), time.perf_counter()
    for batch in batches:
        vec.step(batch)
    wall = time.perf_counter() - wall0
    vec.close()  # the workers exit, so their CPU time is counted
    used = cpu() - cpu0
    env_steps = args.steps * args.envs
    print(f"{args.mode}, {args.envs} envs, {args.device}, pictures {args.pictures}, size {space['picture'].shape}")
    print(f"{env_steps} env steps in {wall:.2f} s wall: {env_steps / wall:.0f} env steps/s ({args.steps / wall:.0f} vector steps/s)")
    print(f"CPU (this process and its workers): {used:.2f} s, {used / env_steps * 1e6:.0f} µs per env step")
    print(f"one observation: {one} bytes of arrays; texts up to {space['feedback'].max_length} characters each")


if __name__ == "__main__":
    main()
