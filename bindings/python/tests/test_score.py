"""Every scorer and the metrics return the CLI's ``--json`` document: the
same keys and the same numbers, on the official fixtures."""

from __future__ import annotations

import warnings

import pytest

import knoblab
from conftest import DEVICES, FIXTURES, ROOT, cli_json, run_cli

EPIC = FIXTURES / "official" / "epic"
FINESTATE = FIXTURES / "official" / "finestate"
SWITCH = FIXTURES / "switch"


def epic_inputs():
    for folder in ("raw", "std", "scores"):
        for path in sorted((EPIC / folder).rglob("*.json*")):
            yield pytest.param(path, id=f"{folder}/{path.parent.name}/{path.name}")


@pytest.mark.parametrize("pred", list(epic_inputs()))
def test_epic_equals_the_cli(cli, pred):
    gt = EPIC / "dataset" / "annotation"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", knoblab.KnobLabWarning)
        ours = knoblab.score.epic(gt, pred)
    assert ours == cli_json(cli, "score", "epic", "--gt", str(gt), "--pred", str(pred))
    assert ours["summary"]  # the official summary is there


def test_epic_with_options_equals_the_cli(cli):
    gt = EPIC / "dataset" / "annotation"
    pred = EPIC / "raw" / "Custom" / "probe-auto.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", knoblab.KnobLabWarning)
        ours = knoblab.score.epic(gt, pred, coord_mode="absolute", family="Qwen3-VL")
        default = knoblab.score.epic(gt, pred)
    theirs = cli_json(
        cli, "score", "epic", "--gt", str(gt), "--pred", str(pred), "--coord-mode", "absolute", "--family", "Qwen3-VL"
    )
    assert ours == theirs
    assert ours != default


def test_epic_warns_where_the_cli_warns():
    gt = EPIC / "dataset" / "annotation"
    with pytest.warns(knoblab.KnobLabWarning, match="samples found their mask"):
        knoblab.score.epic(gt, EPIC / "raw" / "Custom" / "probe-auto.jsonl")


FINESTATE_RUNS = [
    ("predictions.jsonl", ROOT / "data" / "samples" / "finestate" / "predictions.jsonl", "google/gemini-2.5-flash", {}),
    ("pyc", ROOT / "data" / "samples" / "finestate" / "predictions.jsonl", "google/gemini-2.5-flash", {"parser": "pyc"}),
    ("permille", ROOT / "data" / "samples" / "finestate" / "predictions.jsonl", "google/gemini-2.5-flash", {"convention": "permille"}),
]


@pytest.mark.parametrize("name,pred,model,options", FINESTATE_RUNS, ids=[r[0] for r in FINESTATE_RUNS])
def test_finestate_equals_the_cli(cli, name, pred, model, options):
    gt = FINESTATE / "dataset"
    args = ["score", "finestate", "--gt", str(gt), "--pred", str(pred), "--model", model]
    for key, value in options.items():
        args += [f"--{key}", value]
    ours = knoblab.score.finestate(gt, pred, model, **options)
    assert ours == cli_json(cli, *args)


def test_finestate_with_a_vda_run_equals_the_cli(cli):
    gt = FINESTATE / "dataset"
    pred = ROOT / "data" / "samples" / "finestate" / "predictions.jsonl"
    model = "google/gemini-2.5-flash"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", knoblab.KnobLabWarning)
        ours = knoblab.score.finestate(gt, pred, model, vda_pred=pred)
    theirs = cli_json(cli, "score", "finestate", "--gt", str(gt), "--pred", str(pred), "--model", model, "--vda-pred", str(pred))
    assert ours == theirs


def test_switch_equals_the_cli(cli):
    gt, pred, video = SWITCH / "gt", SWITCH / "pred.jsonl", SWITCH / "video_judge.jsonl"
    when = "2026-12-01T00:00:00Z"  # the CLI stamps the submission row with now unless told

    def theirs(*args):
        return cli_json(cli, "score", "switch", *args, "--submission-time", when)

    assert knoblab.score.switch(gt, pred, submission_time=when) == theirs("--gt", str(gt), "--pred", str(pred))
    both = knoblab.score.switch(gt, pred, video=video, submission_time=when)
    assert both == theirs("--gt", str(gt), "--pred", str(pred), "--video", str(video))
    assert both["video"] is not None
    assert knoblab.score.switch(video=video, submission_time=when) == theirs("--video", str(video))


def test_metrics_equal_the_cli(cli, tmp_path):
    oracle, rnd = tmp_path / "oracle.jsonl", tmp_path / "random.jsonl"
    for agent, out in (("oracle", oracle), ("random:7", rnd)):
        for device in ("coffee-0001", "kettle-0001"):
            part = tmp_path / f"{device}.jsonl"
            run_cli(cli, "run", str(DEVICES / device), "--agent", agent, "--out", str(part))
            with out.open("a") as f:
                f.write(part.read_text())
    one = knoblab.metrics(oracle, DEVICES)
    assert one == cli_json(cli, "metrics", str(oracle), "--bundles", str(DEVICES))
    assert one["sr"] == 1.0 and one["episodes"] == 24
    two = knoblab.metrics([oracle, rnd], DEVICES)
    assert two == cli_json(cli, "metrics", str(oracle), str(rnd), "--bundles", str(DEVICES))
    assert len(two) == 2


def test_what_was_not_used_is_returned_item_by_item(tmp_path):
    """Issue #47: the document lists each skipped line and repeated sample
    with its line, as the CLI's ``--json`` does."""
    raw = (EPIC / "raw" / "Qwen3-VL" / "probe-q3.jsonl").read_text().splitlines()[0]
    folder = tmp_path / "Qwen3-VL"
    folder.mkdir()
    pred = folder / "pred.jsonl"
    pred.write_text(f'{raw}\n{{"response": broken\n{raw}\n')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", knoblab.KnobLabWarning)
        doc = knoblab.score.epic(EPIC / "dataset" / "annotation", pred)
    assert [(u["kind"], u.get("line")) for u in doc["unused"]] == [("skipped", 2), ("duplicate", 3)]
    assert all(u["file"] == str(pred) for u in doc["unused"])
