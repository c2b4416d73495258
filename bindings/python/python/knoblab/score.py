"""The benchmark scorers, returning the documents ``knoblab score … --json`` prints.

Each function reads the same files as the command line, runs the same
core computation and returns its JSON document as a dict (same keys, same
numbers). Warnings the command line prints on stderr (ground truth found
for only some samples, a VDA hint detected) are issued as
:class:`knoblab.KnobLabWarning`. Every document has an ``unused`` list:
each line or item of the inputs that the numbers do not use (skipped,
refused, given twice, matching nothing, not scored), with its ``file``,
``line`` (where it has one), ``item``, ``kind`` and ``reason``.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Optional, Union

from . import _knoblab

__all__ = ["epic", "finestate", "switch", "KnobLabWarning"]

PathLike = Union[str, "os.PathLike[str]"]


class KnobLabWarning(UserWarning):
    """Something a person should know that did not stop scoring."""


def _warn(messages: List[str]) -> None:
    for message in messages:
        warnings.warn(message, KnobLabWarning, stacklevel=3)


def _path(p: Optional[PathLike]) -> Optional[str]:
    return None if p is None else os.fspath(p)


def epic(
    gt: PathLike,
    pred: PathLike,
    coord_mode: Optional[str] = None,
    family: Optional[str] = None,
) -> Dict[str, Any]:
    """Score EPIC-Bench predictions: ``knoblab score epic --json``.

    Parameters
    ----------
    gt : str or os.PathLike
        The ground-truth root (the folder holding ``EPIC_Bench/``, or the
        dataset folder above it).
    pred : str or os.PathLike
        Raw outputs, std_format JSON Lines or an official ``*_full.json``.
    coord_mode : {"auto", "normalized_0_1000", "absolute", "normalized_0_1"}, optional
        Overrides the model family's coordinate mode.
    family : str, optional
        The model family (default: the name of ``pred``'s folder).

    Returns
    -------
    dict
        The document: ``std_response_jsonl``, ``summary`` (official), the
        corrected summary and the per-sample details, as the CLI prints it;
        ``unused`` lists each line skipped and sample repeated (``file``,
        ``line``, ``kind``, ``reason``), as every scorer's document does.

    Raises
    ------
    knoblab.ResultsError
        ``pred`` cannot be read or is not an EPIC-Bench file.
    knoblab.GroundTruthError
        ``gt`` is not a folder or holds no mask for any sample.
    knoblab.OptionsError
        An unknown ``coord_mode``.
    """
    text, notes = _knoblab.score_epic(os.fspath(gt), os.fspath(pred), coord_mode, family)
    _warn(notes)
    return json.loads(text)


def finestate(
    gt: PathLike,
    pred: PathLike,
    model: str,
    parser: str = "py",
    vda: bool = False,
    vda_pred: Optional[PathLike] = None,
    convention: str = "unit",
    platform: Optional[str] = None,
    assume_images: bool = False,
) -> Dict[str, Any]:
    """Score FineState-Bench results: ``knoblab score finestate --json``.

    Parameters
    ----------
    gt : str or os.PathLike
        The annotation root (``desktop_en/``, ``web_en/``, ``mobile_en/``),
        a zip of it, or one annotation JSON Lines file.
    pred : str or os.PathLike
        ``<model>_results.json``, a folder of ``result_<i>.json`` or JSON Lines.
    model : str
        The model name (the official parser keys unit rules on it).
    parser : {"py", "pyc"}, default "py"
        Which build of the official parser.
    vda : bool, default False
        The run was made with the VDA hint.
    vda_pred : str or os.PathLike, optional
        A second run with the VDA hint: adds the VDA delta.
    convention : str, default "unit"
        Corrected mode's convention: ``unit``, ``permille`` or ``pixels:WxH``.
    platform : str, optional
        The platform of a single annotation file.
    assume_images : bool, default False
        Take every image as present.

    Returns
    -------
    dict
        The document the CLI prints (official and corrected side by side).

    Raises
    ------
    knoblab.ResultsError, knoblab.GroundTruthError, knoblab.OptionsError
    """
    text, notes = _knoblab.score_finestate(
        os.fspath(gt),
        os.fspath(pred),
        model,
        parser,
        vda,
        _path(vda_pred),
        convention,
        platform,
        assume_images,
    )
    _warn(notes)
    return json.loads(text)


def switch(
    gt: Optional[PathLike] = None,
    pred: Optional[PathLike] = None,
    video: Optional[PathLike] = None,
    submission_time: Optional[str] = None,
) -> Dict[str, Any]:
    """Score SWITCH predictions: ``knoblab score switch --json``.

    Parameters
    ----------
    gt : str or os.PathLike, optional
        The dataset root: a folder, a zip of it, or one ``vqa.json`` /
        ``openqa.json`` (with ``pred``).
    pred : str or os.PathLike, optional
        The predictions, JSON Lines or a JSON array (with ``gt``).
    video : str or os.PathLike, optional
        Generated-video judge outputs.
    submission_time : str, optional
        The leaderboard submission row's time (RFC 3339), as
        ``--submission-time`` gives it; left null when not given (the CLI
        writes the current time).

    Returns
    -------
    dict
        The document the CLI prints.

    Raises
    ------
    knoblab.ResultsError, knoblab.GroundTruthError
        An input that cannot be read; the message lists every problem.
    knoblab.OptionsError
        Neither ``gt`` with ``pred`` nor ``video`` was given.
    """
    return json.loads(
        _knoblab.score_switch(_path(gt), _path(pred), _path(video), submission_time)
    )
