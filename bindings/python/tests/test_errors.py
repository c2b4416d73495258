"""Bad input raises the documented class for its kind, with the core's
message naming where."""

from __future__ import annotations

import json

import pytest

import knoblab
from conftest import DEVICES, FIXTURES

EPIC = FIXTURES / "official" / "epic"
GT = EPIC / "dataset" / "annotation"


def test_the_classes_are_one_family():
    for cls in (
        knoblab.BundleError,
        knoblab.ResultsError,
        knoblab.GroundTruthError,
        knoblab.OptionsError,
        knoblab.MetricsError,
        knoblab.EpisodeError,
    ):
        assert issubclass(cls, knoblab.KnobLabError) and issubclass(cls, Exception)


def test_a_broken_bundle_is_a_bundle_error_naming_the_rule():
    path = FIXTURES / "broken" / "unknown_next_state"
    with pytest.raises(knoblab.BundleError, match="unknown_next_state") as e:
        knoblab.make(path)
    assert "problem" in str(e.value)


def test_an_unknown_device_is_a_bundle_error_listing_the_library():
    with pytest.raises(knoblab.BundleError, match="coffee-0001"):
        knoblab.make("no-such-device")


def test_a_bad_predictions_file_is_a_results_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"nothing": 1}\n')
    with pytest.raises(knoblab.ResultsError, match="not an EPIC-Bench predictions file"):
        knoblab.score.epic(GT, bad)
    with pytest.raises(knoblab.ResultsError, match="missing.jsonl"):
        knoblab.score.epic(GT, tmp_path / "missing.jsonl")


def test_ground_truth_that_is_not_there_is_a_ground_truth_error(tmp_path):
    pred = EPIC / "raw" / "Custom" / "probe-auto.jsonl"
    with pytest.raises(knoblab.GroundTruthError, match="not a folder"):
        knoblab.score.epic(tmp_path / "nowhere", pred)
    with pytest.raises(knoblab.GroundTruthError, match="no ground truth found"):
        knoblab.score.epic(tmp_path, pred)


def test_an_unknown_option_is_an_options_error():
    pred = EPIC / "raw" / "Custom" / "probe-auto.jsonl"
    with pytest.raises(knoblab.OptionsError, match="normalized_0_1000"):
        knoblab.score.epic(GT, pred, coord_mode="sideways")
    with pytest.raises(knoblab.OptionsError, match="pass --platform|unknown platform|parser"):
        knoblab.score.finestate(FIXTURES / "official" / "finestate" / "dataset", pred, "m", parser="java")
    with pytest.raises(knoblab.OptionsError):
        knoblab.score.switch()
    with pytest.raises(knoblab.OptionsError, match="whole number"):
        knoblab.make("coffee-0001", lam=2.5)
    with pytest.raises(knoblab.OptionsError, match="no such task"):
        knoblab.make("coffee-0001", task="fly")


def test_switch_inputs_with_problems_list_them(tmp_path):
    bad = tmp_path / "pred.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(knoblab.ResultsError, match=r"pred.jsonl:1"):
        knoblab.score.switch(FIXTURES / "switch" / "gt", bad)
    with pytest.raises(knoblab.GroundTruthError):
        knoblab.score.switch(tmp_path / "nothing", FIXTURES / "switch" / "pred.jsonl")


def test_a_trajectory_line_that_is_not_one_names_its_line(tmp_path):
    bad = tmp_path / "t.jsonl"
    bad.write_text("\n{}\n")
    with pytest.raises(knoblab.ResultsError, match=r"t.jsonl:2: not a trajectory line"):
        knoblab.metrics(bad, DEVICES)


def test_a_trajectory_of_another_device_is_a_metrics_error(tmp_path):
    env = knoblab.make("coffee-0001", agent="oracle", picture=False)
    env.reset(options={"task": env.tasks[0]["id"]})
    env.step("Timed_wait()")
    line = json.loads(env.trajectory())
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(knoblab.MetricsError, match="no bundle with id coffee-0001"):
        knoblab.metrics(path, DEVICES / "kettle-0001")
    with pytest.raises(knoblab.BundleError, match="does not exist"):
        knoblab.metrics(path, tmp_path / "none")


def test_stepping_a_finished_or_unstarted_episode_is_an_episode_error():
    env = knoblab.make("coffee-0001", lam=1, picture=False)
    with pytest.raises(knoblab.EpisodeError, match="not been reset"):
        env.step("Timed_wait()")
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step("Timed_wait()")
        done = terminated or truncated
    with pytest.raises(knoblab.EpisodeError, match="is over"):
        env.step("Timed_wait()")


# ------------------------------------------- where Python users look (#48)


def test_every_class_is_also_the_builtin_users_catch():
    for cls in (
        knoblab.BundleError,
        knoblab.ResultsError,
        knoblab.GroundTruthError,
        knoblab.OptionsError,
        knoblab.MetricsError,
        knoblab.RunRefusedError,
    ):
        assert issubclass(cls, ValueError), cls
    assert issubclass(knoblab.EpisodeError, RuntimeError)
    assert issubclass(knoblab.OutputError, OSError)
    for cls in (knoblab.BundleNotFoundError, knoblab.ResultsNotFoundError, knoblab.GroundTruthNotFoundError):
        assert issubclass(cls, FileNotFoundError) and issubclass(cls, knoblab.KnobLabError), cls
    # One module holds them; the package re-exports the same objects.
    assert knoblab.errors.ResultsError is knoblab.ResultsError
    assert all(getattr(knoblab, name) is getattr(knoblab.errors, name) for name in knoblab.errors.__all__)


def _missing(tmp_path, call, cls, path):
    """The call raises ``cls``, caught both as FileNotFoundError and as
    itself, naming ``path``."""
    with pytest.raises(FileNotFoundError) as caught:
        call()
    assert isinstance(caught.value, cls) and isinstance(caught.value, knoblab.KnobLabError), type(caught.value)
    assert caught.value.path == str(path) and caught.value.filename == str(path)
    assert caught.value.errno == __import__("errno").ENOENT
    assert str(path) in str(caught.value)  # the core's message, not "[Errno 2] ..."
    with pytest.raises(cls):
        call()


def test_a_missing_file_is_a_file_not_found_error_of_its_kind(tmp_path):
    pred = EPIC / "raw" / "Custom" / "probe-auto.jsonl"
    nowhere = tmp_path / "nowhere"
    missing = tmp_path / "missing.jsonl"
    _missing(tmp_path, lambda: knoblab.score.epic(GT, missing), knoblab.ResultsNotFoundError, missing)
    _missing(tmp_path, lambda: knoblab.score.epic(nowhere, pred), knoblab.GroundTruthNotFoundError, nowhere)
    fs = FIXTURES / "official" / "finestate" / "dataset"
    _missing(tmp_path, lambda: knoblab.score.finestate(fs, missing, "m"), knoblab.ResultsNotFoundError, missing)
    _missing(
        tmp_path,
        lambda: knoblab.score.switch(FIXTURES / "switch" / "gt", missing),
        knoblab.ResultsNotFoundError,
        missing,
    )
    _missing(tmp_path, lambda: knoblab.metrics(missing, DEVICES), knoblab.ResultsNotFoundError, missing)
    _missing(
        tmp_path,
        lambda: knoblab.metrics(FIXTURES / "kettle" / "none.jsonl", nowhere),
        knoblab.BundleNotFoundError,  # the bundles are read first
        nowhere,
    )
    _missing(tmp_path, lambda: knoblab.make(nowhere), knoblab.BundleNotFoundError, nowhere)
    _missing(tmp_path, lambda: knoblab.library(nowhere), knoblab.BundleNotFoundError, nowhere)
    _missing(
        tmp_path,
        lambda: knoblab.evaluate(tmp_path / "out.jsonl", bundles=nowhere, agent="oracle"),
        knoblab.BundleNotFoundError,
        nowhere,
    )


def test_bad_input_is_a_value_error_and_names_its_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"nothing": 1}\n')
    with pytest.raises(ValueError) as caught:
        knoblab.score.epic(GT, bad)
    assert isinstance(caught.value, knoblab.ResultsError) and not isinstance(caught.value, FileNotFoundError)
    assert caught.value.path == str(bad)
    with pytest.raises(ValueError) as caught:
        knoblab.score.epic(GT, bad, coord_mode="sideways")
    assert isinstance(caught.value, knoblab.OptionsError) and caught.value.path is None
    with pytest.raises(ValueError) as caught:
        knoblab.make(FIXTURES / "broken" / "unknown_next_state")
    assert isinstance(caught.value, knoblab.BundleError)
    assert caught.value.path == str(FIXTURES / "broken" / "unknown_next_state")
    with pytest.raises(ValueError):
        knoblab.make("coffee-0001", size=(0, 10))
    with pytest.raises(ValueError) as caught:
        knoblab.evaluate(tmp_path / "o.jsonl", bundles=DEVICES / "kettle-0001", agent="oracle", coords="sideways")
    assert isinstance(caught.value, knoblab.OptionsError)


def test_a_bad_line_of_a_run_file_carries_its_path_and_line(tmp_path):
    out = tmp_path / "run.jsonl"
    kettle = DEVICES / "kettle-0001"
    knoblab.evaluate(out, bundles=kettle, agent="oracle")
    lines = out.read_text().splitlines(keepends=True)
    assert len(lines) >= 2
    out.write_text(lines[0] + "not a record\n" + "".join(lines[1:]))
    with pytest.raises(ValueError) as caught:
        knoblab.evaluate(out, bundles=kettle, agent="oracle")
    assert isinstance(caught.value, knoblab.ResultsError)
    assert (caught.value.path, caught.value.line) == (str(out), 2)
    assert f"{out}:2" in str(caught.value)


def test_a_bad_trajectory_line_carries_its_path_and_line(tmp_path):
    bad = tmp_path / "t.jsonl"
    bad.write_text("\n{}\n")
    with pytest.raises(ValueError) as caught:
        knoblab.metrics(bad, DEVICES)
    assert isinstance(caught.value, knoblab.ResultsError)
    assert (caught.value.path, caught.value.line) == (str(bad), 2)


def test_episode_misuse_is_a_runtime_error():
    env = knoblab.make("coffee-0001", picture=False)
    with pytest.raises(RuntimeError) as caught:
        env.step("Timed_wait()")
    assert isinstance(caught.value, knoblab.EpisodeError)
