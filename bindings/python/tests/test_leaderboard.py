"""``knoblab.leaderboard`` returns the document ``knoblab leaderboard
--json`` prints, for runs the command line makes."""

from __future__ import annotations

import pytest

import knoblab

from conftest import DEVICES, cli_json, run_cli


def test_leaderboard_equals_the_cli(cli, tmp_path):
    runs = []
    for agent in ("oracle", "random:7", "random:8"):
        out = tmp_path / f"{agent.replace(':', '-')}.jsonl"
        for device in ("coffee-0001", "kettle-0001"):
            part = tmp_path / f"{device}-{agent.replace(':', '-')}.jsonl"
            run_cli(cli, "run", str(DEVICES / device), "--agent", agent, "--out", str(part))
            with out.open("a") as f:
                f.write(part.read_text())
        runs.append(out)
    # A run cut short: the random run's first 5 episodes.
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(runs[1].read_text().splitlines(keepends=True)[:5]))
    runs.append(cut)
    files = [str(p) for p in runs]

    ours = knoblab.leaderboard(runs, bundles=DEVICES, seed=3, resamples=200, compare=[(0, 0), (0, 3)])
    theirs = cli_json(
        cli, "leaderboard", *files, "--bundles", str(DEVICES), "--seed", "3",
        "--resamples", "200", "--compare", "1", "1", "--compare", "1", "4",
    )
    assert ours == theirs
    assert ours["format"] == "knoblab-leaderboard/1"
    assert [r["status"] for r in ours["runs"]] == ["complete", "complete", "complete", "partial"]
    assert ours["runs"][3]["coverage"]["played"] == 5
    assert ours["runs"][3]["coverage"]["missing"] == ours["plan"]["episodes"] - 5
    assert ours["runs"][0]["metrics"]["sr"]["value"] == 1.0
    same = ours["comparisons"][0]
    assert (same["sr"]["value"], same["sr"]["ci_low"], same["sr"]["ci_high"]) == (0.0, 0.0, 0.0)
    # The same seed, the same document.
    assert knoblab.leaderboard(runs, bundles=DEVICES, seed=3, resamples=200, compare=[(0, 0), (0, 3)]) == ours


def test_leaderboard_errors_are_typed(tmp_path):
    with pytest.raises(knoblab.OptionsError):
        knoblab.leaderboard([])
    with pytest.raises(knoblab.ResultsError):
        knoblab.leaderboard(tmp_path / "nothing.jsonl")


def test_a_given_plan_counts_what_no_run_played(cli, tmp_path):
    run = tmp_path / "kettle.jsonl"
    run_cli(cli, "run", str(DEVICES / "kettle-0001"), "--agent", "oracle", "--out", str(run))
    union = knoblab.leaderboard(run, bundles=DEVICES, resamples=0)
    keys = [e["key"] for e in union["runs"][0]["episodes"]]
    # The plan: the kettle's episodes and one of the coffee machine's, which no run played.
    coffee = knoblab.leaderboard(
        _coffee_run(cli, tmp_path), bundles=DEVICES, resamples=0
    )["runs"][0]["episodes"][0]
    plan = tmp_path / "plan.txt"
    plan.write_text("\n".join(keys + [f"{coffee['bundle_id']}/{coffee['task_id']}#0"]) + "\n")
    ours = knoblab.leaderboard(run, bundles=DEVICES, resamples=0, plan=plan)
    theirs = cli_json(cli, "leaderboard", str(run), "--bundles", str(DEVICES), "--resamples", "0", "--plan", str(plan))
    assert ours == theirs
    assert ours["plan"]["given"] == len(keys) + 1
    row = ours["runs"][0]
    assert row["status"] == "partial"
    assert row["coverage"]["missing"] == 1
    assert row["sr_plan"]["value"] == pytest.approx(len(keys) / (len(keys) + 1))
    bad = tmp_path / "bad.txt"
    bad.write_text("not a key\n")
    with pytest.raises(knoblab.ResultsError, match="line 1"):
        knoblab.leaderboard(run, bundles=DEVICES, resamples=0, plan=bad)


def _coffee_run(cli, tmp_path):
    out = tmp_path / "coffee.jsonl"
    run_cli(cli, "run", str(DEVICES / "coffee-0001"), "--agent", "oracle", "--out", str(out))
    return out
