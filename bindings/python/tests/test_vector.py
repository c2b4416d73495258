"""Observations of fixed shapes (#48): vector environments in both modes
against single ones, the standard wrappers, the registered ids and their
step limits, and the pictures against the page's."""

from __future__ import annotations

import json
import warnings
from typing import Any, Dict, List, Tuple

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import knoblab
from knoblab import _budgets, _knoblab

DEVICE = "microwave-0001"  # several views, a locked one, live pictures that change
SIZE = (160, 120)  # small pictures keep the comparisons cheap


def action_pool(device: str) -> List[str]:
    """Actions that do something on the device: its tasks' optimal actions,
    a switch to each view, waits and a few presses anywhere."""
    env = knoblab.make(device, picture=False).unwrapped
    pool = {s["action"] for t in env.tasks for s in env.optimal(t["id"])}
    pool |= {f"Switch_view(params=[{v}])" for v in env.view_names}
    pool |= {"Timed_wait()", "Press(coord=[500, 500])", "Press(coord=[10, 990])", "not an action"}
    return sorted(pool)


def reference(
    device: str, n: int, seed: int, actions: List[Tuple[str, ...]], **kwargs: Any
) -> List[Tuple[List[Dict[str, Any]], np.ndarray, np.ndarray, np.ndarray]]:
    """What ``n`` single environments give for these actions, reset as a
    vector environment resets them (seed + i, then next-step autoreset)."""
    envs = [gymnasium.make(f"knoblab/{device}", **kwargs) for _ in range(n)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    done = [False] * n
    out = []
    for batch in actions:
        obs, rewards, terms, truncs = [], [], [], []
        for i, env in enumerate(envs):
            if done[i]:
                o, _ = env.reset()
                r, te, tr = 0.0, False, False
            else:
                o, r, te, tr, _ = env.step(batch[i])
            done[i] = te or tr
            obs.append(o)
            rewards.append(r)
            terms.append(te)
            truncs.append(tr)
        out.append((obs, np.array(rewards), np.array(terms), np.array(truncs)))
    for env in envs:
        env.close()
    return out


def assert_batch_equals(batch: Dict[str, Any], singles: List[Dict[str, Any]]) -> None:
    for i, single in enumerate(singles):
        assert single.keys() == batch.keys()
        assert batch["view"][i] == single["view"]
        assert np.array_equal(batch["views"][i], single["views"])
        assert batch["feedback"][i] == single["feedback"]
        assert batch["instruction"][i] == single["instruction"]
        assert np.array_equal(batch["picture"][i], single["picture"])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_vector_env_equals_single_envs(mode):
    n, seed, steps = 3, 11, 150  # 450 env steps per mode
    rng = np.random.default_rng(5)
    pool = action_pool(DEVICE)
    actions = [tuple(pool[j] for j in rng.integers(len(pool), size=n)) for _ in range(steps)]
    expected = reference(DEVICE, n, seed, actions, size=SIZE, pictures="live")
    vec = gymnasium.make_vec(
        f"knoblab/{DEVICE}",
        num_envs=n,
        vectorization_mode=mode,
        vector_kwargs={"shared_memory": True} if mode == "async" else {},
        size=SIZE,
        pictures="live",
    )
    try:
        assert vec.single_observation_space == expected_space(DEVICE)
        obs, info = vec.reset(seed=seed)
        assert obs["picture"].shape == (n, SIZE[1], SIZE[0], 3) and obs["picture"].dtype == np.uint8
        endings = 0
        for batch, (singles, rewards, terms, truncs) in zip(actions, expected):
            obs, reward, term, trunc, info = vec.step(batch)
            assert_batch_equals(obs, singles)
            assert np.array_equal(reward, rewards) and np.array_equal(term, terms) and np.array_equal(trunc, truncs)
            assert vec.observation_space.contains(obs)
            endings += int(term.sum() + trunc.sum())
        assert endings > 0  # the run crossed autoresets
    finally:
        vec.close()


def expected_space(device: str) -> gymnasium.spaces.Dict:
    names = knoblab.make(device, picture=False).unwrapped.view_names
    text = gymnasium.spaces.Text(knoblab.env.MAX_TEXT_CHARS, min_length=0, charset=knoblab.env.TEXT_CHARSET)
    return gymnasium.spaces.Dict(
        {
            "view": gymnasium.spaces.Discrete(len(names)),
            "views": gymnasium.spaces.MultiBinary(len(names)),
            "feedback": text,
            "instruction": text,
            "picture": gymnasium.spaces.Box(0, 255, (SIZE[1], SIZE[0], 3), np.uint8),
        }
    )


def test_the_observation_space_has_fixed_shapes_and_gymnasium_text():
    env = knoblab.make(DEVICE)
    space = env.observation_space
    assert isinstance(space["view"], gymnasium.spaces.Discrete) and space["view"].n == len(env.view_names) > 1
    assert isinstance(space["views"], gymnasium.spaces.MultiBinary)
    assert isinstance(space["feedback"], gymnasium.spaces.Text) and space["feedback"].max_length == 512
    assert space["picture"].shape == (480, 640, 3)  # the device's own size by default
    # Texts outside the charset or too long are kept within the space, whole in info.
    assert "°" in knoblab.env.TEXT_CHARSET
    o, info = env.reset(options={"task": env.tasks[0]["id"]})
    o, *_, info = env.step("x" * 2000 + " \u4e2d")
    assert space.contains(o) and len(o["feedback"]) <= 512
    assert o["feedback"] == info["feedback"] or o["feedback"].endswith("...") or "?" in o["feedback"]


def test_check_env_passes_with_a_size_and_on_a_generated_device():
    generated = next(d["id"] for d in knoblab.library() if d["generated"])
    for device, kwargs in ((DEVICE, {"size": (64, 48), "pictures": "live"}), (generated, {})):
        env = gymnasium.make(f"knoblab/{device}", **kwargs).unwrapped
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env, skip_render_check=False)
        env.close()


def test_the_standard_wrappers_work():
    env = gymnasium.make(f"knoblab/{DEVICE}", max_episode_steps=4, size=SIZE)
    env = gymnasium.wrappers.RecordEpisodeStatistics(env)
    env = gymnasium.wrappers.FlattenObservation(gymnasium.wrappers.FilterObservation(env, ["view", "views", "picture"]))
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    for _ in range(4):
        obs, _, terminated, truncated, info = env.step("Timed_wait()")
        if terminated or truncated:
            break
    assert truncated and info["episode"]["l"] == 4
    vec = gymnasium.make_vec(f"knoblab/{DEVICE}", num_envs=2, vectorization_mode="sync", size=SIZE)
    vec = gymnasium.wrappers.vector.RecordEpisodeStatistics(vec)
    vec.reset(seed=1)
    vec.step(("Timed_wait()", "Timed_wait()"))
    vec.close()


def test_every_device_is_registered_with_its_budget_as_the_step_limit():
    devices = [d["id"] for d in knoblab.library()]
    assert len(devices) == 968
    table = json.loads(_budgets.TABLE.read_text())
    # The table is of the shipped library (a changed library must remake it).
    assert table["library"] == knoblab.library_version()
    for device in devices:
        spec = gymnasium.spec(f"knoblab/{device}")
        assert spec.max_episode_steps == table["budgets"][device] > 0, device
    # Recomputed from the core for the hand-made devices and a seeded
    # sample of the generated ones.
    rng = np.random.default_rng(48)
    sample = devices[:52] + [devices[52 + int(i)] for i in rng.choice(len(devices) - 52, 6, replace=False)]
    assert _budgets.compute(sample) == {d: table["budgets"][d] for d in sample}
    # The limit never cuts an episode before the device's own budget does.
    env = gymnasium.make(f"knoblab/{DEVICE}")
    for task in env.unwrapped.tasks:
        _, info = env.reset(options={"task": task["id"]})
        assert info["budget_global_total"] <= env.spec.max_episode_steps


def test_pictures_are_the_pages_pictures_of_the_same_state():
    device = DEVICE
    env = knoblab.make(device, pictures="live")
    small = knoblab.make(device, pictures="live", size=SIZE)
    seen = set()
    for task in env.tasks[:3]:
        observation, _ = env.reset(options={"task": task["id"]})
        small_observation, _ = small.reset(options={"task": task["id"]})
        played: List[str] = []
        for step in [None] + env.optimal():
            if step is not None:
                observation, *_ = env.step(step["action"])
                small_observation, *_ = small.step(step["action"])
                played.append(step["action"])
            png, page = _knoblab.page_picture(device, task["id"], played, "live")
            assert png[:8] == b"\x89PNG\r\n\x1a\n"  # the bytes the page shows, decoded by the core
            assert np.array_equal(observation["picture"], page)
            _, page_small = _knoblab.page_picture(device, task["id"], played, "live", SIZE)
            assert np.array_equal(small_observation["picture"], page_small)
            seen.add(page.tobytes())
    assert len(seen) > 2  # the states played look different


def test_static_pictures_are_the_bundles_views():
    env = knoblab.make(DEVICE)
    task = env.tasks[0]["id"]
    observation, info = env.reset(options={"task": task})
    _, page = _knoblab.page_picture(DEVICE, task, [], "static")
    assert np.array_equal(observation["picture"], page)
    assert np.array_equal(env.render(), page) and env.render() is not observation["picture"]


def test_uncopied_async_texts_follow_the_shared_memory():
    # With copy=False the vector env hands back its shared buffers: the
    # texts must follow them as the arrays do (see knoblab.env.ObservedText).
    vec = gymnasium.make_vec(
        f"knoblab/{DEVICE}",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": True, "copy": False},
        size=(8, 6),
    )
    single = knoblab.make(DEVICE, size=(8, 6))
    try:
        obs, _ = vec.reset(seed=3)
        first, _ = single.reset(seed=3)
        assert obs["instruction"][0] == first["instruction"] != ""
        obs, *_ = vec.step(("Press(coord=[10, 990])", "Timed_wait()"))
        after, *_ = single.step("Press(coord=[10, 990])")
        assert obs["feedback"][0] == after["feedback"] != ""
        assert tuple(obs["feedback"]) == __import__("copy").deepcopy(obs["feedback"])
    finally:
        vec.close()
