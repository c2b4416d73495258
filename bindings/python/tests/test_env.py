"""The Gymnasium environment: the checker on every library device, the
oracle's rollout against ``knoblab run``, rewards and registration."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import knoblab
from conftest import DEVICES, FIXTURES, library_ids, run_cli

IDS = library_ids()


def test_the_library_has_its_52_devices_and_each_is_registered():
    assert len(IDS) == 52
    # The generated devices follow them (test_generated.py).
    listed = [d for d in knoblab.library() if not d["generated"]]
    assert [d["id"] for d in listed] == IDS
    for device in listed:
        assert f"knoblab/{device['id']}" in gymnasium.registry
        assert device["tasks"], device["id"]
        for task in device["tasks"]:
            assert len(task["goals"]) == len(task["instructions"]) > 0


def test_library_from_a_path_equals_the_shipped_one():
    assert knoblab.library(DEVICES.parent) == knoblab.library()


@pytest.mark.parametrize("device", IDS)
def test_check_env_passes(device):
    env = gymnasium.make(f"knoblab/{device}").unwrapped  # the raw env, with its spec
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings fail the test too
        check_env(env, skip_render_check=False)
    env.close()


@pytest.mark.parametrize("device", IDS)
def test_an_oracle_rollout_is_the_cli_trajectory_byte_for_byte(device, cli, tmp_path):
    out = tmp_path / "oracle.jsonl"
    run_cli(cli, "run", str(DEVICES / device), "--agent", "oracle", "--out", str(out))
    expected = out.read_text().splitlines()
    env = knoblab.make(DEVICES / device, agent="oracle", picture=False)
    lines = []
    for task in env.unwrapped.tasks:
        observation, info = env.reset(options={"task": task["id"]})
        total = 0.0
        terminated = truncated = False
        for step in env.unwrapped.optimal():
            observation, reward, terminated, truncated, info = env.step(step["action"])
            total += reward
        assert terminated and not truncated, (device, task["id"])
        assert total == len(task["goals"]), (device, task["id"])
        assert env.unwrapped.metrics()["sr"] == 1.0
        lines.append(env.unwrapped.trajectory())
    assert lines == expected


def test_gymnasium_make_and_the_observation():
    env = gymnasium.make("knoblab/coffee-0001")
    observation, info = env.reset(seed=3, options={"task": "single-heating-up"})
    picture = observation["picture"]
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    names = env.unwrapped.view_names
    assert names[observation["view"]] == info["view"]
    assert observation["feedback"] == ""
    assert observation["instruction"] == env.unwrapped.tasks[1]["instructions"][0]
    assert observation["views"].dtype == np.int8 and observation["views"].shape == (len(names),)
    assert {names[i] for i in np.flatnonzero(observation["views"])} == set(info["views"])
    assert info["task"] == "single-heating-up"
    assert isinstance(env.action_space, gymnasium.spaces.Text)
    rendered = env.render()
    assert np.array_equal(rendered, picture) and rendered is not picture


def test_reward_is_one_per_goal_and_zero_otherwise():
    env = knoblab.make("coffee-0001")
    task = next(t for t in env.tasks if len(t["goals"]) > 1)
    env.reset(options={"task": task["id"]})
    rewards = []
    for step in env.optimal():
        _, reward, terminated, _, info = env.step(step["action"])
        rewards.append(reward)
    assert sum(rewards) == len(task["goals"])
    assert set(rewards) <= {0.0, 1.0, 2.0}
    assert terminated and info["goal_index"] == len(task["goals"])


def test_a_budget_running_out_truncates():
    env = knoblab.make("coffee-0001", task="single-heating-up", lam=1, picture=False)
    observation, info = env.reset()
    steps = 0
    while True:
        _, reward, terminated, truncated, info = env.step("Timed_wait()")
        steps += 1
        if terminated or truncated:
            break
    assert truncated and not terminated and reward == 0.0
    assert "picture" not in observation
    trajectory = json.loads(env.trajectory())
    assert trajectory["truncated"] and len(trajectory["steps"]) == steps


def test_a_bundle_path_and_the_library_id_are_the_same_device():
    by_id = knoblab.make("kettle-0001", agent="oracle")
    by_path = knoblab.make(DEVICES / "kettle-0001", agent="oracle")
    for env in (by_id, by_path):
        env.reset(options={"task": env.tasks[0]["id"]})
        for step in env.optimal():
            env.step(step["action"])
    assert by_id.trajectory() == by_path.trajectory()


def test_a_scripted_rollout_on_a_test_bundle_is_the_cli_trajectory(cli, tmp_path):
    actions = [
        "Switch_view(params=[back])",
        "Push(coord=[781, 725], params=[1])",
        "Thought: wait.\nAction: Timed_wait()",
        "Click(coord=[5, 5])",
        "Switch_view(params=[front])",
        "Push(coord=[781, 725], params=[1])",
    ]
    script = tmp_path / "moves.txt"
    script.write_text("\n".join(a.replace("\n", " ") for a in actions) + "\n")
    agent = f"script:{script}"
    out = tmp_path / "script.jsonl"
    run_cli(cli, "run", str(FIXTURES / "kettle"), "--task", "boil", "--agent", agent, "--lambda", "7", "--out", str(out))
    env = knoblab.make(FIXTURES / "kettle", task="boil", lam=7.0, agent=agent)
    env.reset()
    for line in script.read_text().splitlines():
        _, _, terminated, truncated, _ = env.step(line)
        if terminated or truncated:
            break
    assert env.trajectory() == out.read_text().rstrip("\n")


def test_live_pictures_follow_the_state_and_match_the_cli(cli, tmp_path):
    device = "microwave-0001"  # its door, window and display all change with the state
    out = tmp_path / "live.jsonl"
    run_cli(cli, "run", str(DEVICES / device), "--agent", "oracle", "--render", "live", "--out", str(out))
    expected = out.read_text().splitlines()
    live = knoblab.make(device, agent="oracle", pictures="live")
    still = knoblab.make(device, agent="oracle")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Through gymnasium.make, so the checker has the spec it wants.
        checked = gymnasium.make(f"knoblab/{device}", pictures="live").unwrapped
        check_env(checked, skip_render_check=False)
    lines, changed = [], 0
    for task in live.unwrapped.tasks:
        live.reset(options={"task": task["id"]})
        still.reset(options={"task": task["id"]})
        for step in live.unwrapped.optimal():
            a, _, _, _, _ = live.step(step["action"])
            b, _, _, _, _ = still.step(step["action"])
            assert a["feedback"] == b["feedback"] and a["view"] == b["view"]
            changed += int(not np.array_equal(a["picture"], b["picture"]))
        lines.append(live.unwrapped.trajectory())
        assert json.loads(lines[-1])["settings"]["render"] == "live"
    assert lines == expected
    assert changed > 0  # some state on the optimal paths shows on the picture
    with pytest.raises(knoblab.OptionsError):
        knoblab.make(device, pictures="moving")
