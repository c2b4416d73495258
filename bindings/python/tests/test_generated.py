"""The generated devices from Python: listed beside the hand-described
ones, made in memory by ``knoblab.make`` and ``knoblab.evaluate`` from the
same inputs as the page and the command line (their content hash is the
manifest's), and played like any device."""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import knoblab
from conftest import ROOT, library_ids, run_cli, strip_timings

MANIFEST = json.loads((ROOT / "data" / "generated.json").read_text())
# A seeded sample of two generated devices (seed 19: the number).
SAMPLE = random.Random(19).sample([d["id"] for d in MANIFEST["devices"]], 2)


def test_the_library_lists_all_968_devices_and_says_which_are_generated():
    listed = knoblab.library()
    assert len(listed) == 968
    hand = [d for d in listed if not d["generated"]]
    generated = [d for d in listed if d["generated"]]
    assert [d["id"] for d in hand] == library_ids()
    assert [d["id"] for d in generated] == [d["id"] for d in MANIFEST["devices"]]
    assert len(Counter(d["category"] for d in listed)) == 26
    by_id = {d["id"]: d for d in MANIFEST["devices"]}
    for device in generated:
        entry = by_id[device["id"]]
        assert (device["name"], device["category"]) == (entry["name"], entry["category"])
        single = sum(1 for t in device["tasks"] if len(t["goals"]) == 1)
        assert (single, len(device["tasks"]) - single) == (entry["single"], entry["multi"])
        assert f"knoblab/{device['id']}" in gymnasium.registry


@pytest.mark.parametrize("device", SAMPLE)
def test_a_generated_device_is_an_env_that_passes_the_checker(device):
    env = gymnasium.make(f"knoblab/{device}").unwrapped  # the raw env, with its spec
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings fail the test too
        check_env(env, skip_render_check=False)
    env.close()
    # knoblab.make by the id is the same device.
    made = knoblab.make(device)
    _, info = made.reset(seed=0)
    listed = next(d for d in knoblab.library() if d["id"] == device)
    assert info["task"] in [t["id"] for t in listed["tasks"]]
    made.close()


@pytest.mark.parametrize("device", SAMPLE)
def test_the_oracle_rollout_on_a_generated_device_is_knoblab_runs(device, cli, tmp_path):
    out = tmp_path / "python.jsonl"
    result = knoblab.evaluate(out, [device], agent="oracle", concurrency=1)
    assert result["stop"] == "complete" and result["problems"] == []
    entry = next(d for d in MANIFEST["devices"] if d["id"] == device)
    assert result["ran"] == entry["single"] + entry["multi"]
    assert all(r["terminated"] and not r["truncated"] for r in result["records"])
    cli_out = tmp_path / "cli.jsonl"
    run_cli(cli, "eval", device, "--agent", "oracle", "--concurrency", "1", "--out", str(cli_out), "--quiet")
    ours = [strip_timings(l) for l in out.read_text().splitlines()]
    theirs = [strip_timings(l) for l in cli_out.read_text().splitlines()]
    assert ours == theirs


def test_an_unknown_id_names_the_library():
    with pytest.raises(knoblab.BundleError, match="968 devices"):
        knoblab.make("microwave-g9999")
