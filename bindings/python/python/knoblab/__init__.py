"""KnobLab from Python.

The same Rust core as the page and the ``knoblab`` command line, as a
Python package:

- :func:`make`: a device as a :class:`gymnasium.Env` (also registered as
  ``knoblab/<device-id>`` for :func:`gymnasium.make`).
- :func:`library`: the devices and tasks of the shipped library or a path;
  :func:`library_version`: its version and content hash, which every
  trajectory of its devices records.
- :mod:`knoblab.score`: ``epic``, ``finestate``, ``switch``, returning the
  documents ``knoblab score … --json`` prints.
- :func:`metrics`: the document ``knoblab metrics --json`` prints.
- :func:`leaderboard`: the document ``knoblab leaderboard --json`` prints.
- :func:`evaluate`: the core's runner behind ``knoblab eval`` (a model,
  the oracle, a replay on devices; resumable output file).
- :mod:`knoblab.ray` (``pip install "knoblab[ray]"``, imported only when
  asked for): :func:`knoblab.ray.evaluate`, a plan's episodes as Ray tasks.

Errors (:mod:`knoblab.errors`) are one class per kind, each a
:class:`KnobLabError` and the builtin users catch (``ValueError``; a file
that is not there raises a :class:`FileNotFoundError`), carrying the
core's message, and ``path`` and ``line`` where there is one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import gymnasium

from . import _knoblab, errors, score
from ._eval import evaluate
from .errors import (
    BundleError,
    BundleNotFoundError,
    EpisodeError,
    GroundTruthError,
    GroundTruthNotFoundError,
    KnobLabError,
    MetricsError,
    OptionsError,
    OutputError,
    ResultsError,
    ResultsNotFoundError,
    RunRefusedError,
)
from .env import KnobLabEnv, make
from .score import KnobLabWarning

__version__: str = _knoblab.__version__

__all__ = [
    "BundleError",
    "BundleNotFoundError",
    "EpisodeError",
    "GroundTruthError",
    "GroundTruthNotFoundError",
    "KnobLabEnv",
    "KnobLabError",
    "KnobLabWarning",
    "MetricsError",
    "OptionsError",
    "OutputError",
    "ResultsError",
    "ResultsNotFoundError",
    "RunRefusedError",
    "errors",
    "evaluate",
    "library",
    "library_version",
    "leaderboard",
    "make",
    "metrics",
    "score",
]

PathLike = Union[str, "os.PathLike[str]"]


def library(path: Optional[PathLike] = None) -> List[Dict[str, Any]]:
    """The devices of a library and their tasks.

    The shipped library has 968 devices: the 52 described by hand, then the
    916 generated ones (``"generated": True``), which have no files of their
    own and are made in memory when :func:`make` or :func:`evaluate` opens
    them (the same device, byte for byte, as the page and the command line
    make). Their tasks are listed from the task list committed beside
    their manifest (``generated-tasks.json``), so nothing is made to list
    them. Every episode on a device of the library records the library's
    version and content hash (``settings["library"]`` in its trajectory;
    :func:`library_version` gives them), and :func:`metrics` refuses to pool
    episodes of two library versions.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A library index (``library.json``) or the folder holding it; a
        ``generated.json`` beside it adds its generated devices (their
        tasks from ``generated-tasks.json`` beside it, or, without one,
        from each device's files made without pictures: seconds).
        Default: the library shipped inside this package (the repository's
        ``data/``).

    Returns
    -------
    list of dict
        One per device, in index order: ``id``, ``name``, ``category``,
        ``path``, ``generated`` and ``tasks``, each task
        ``{"id", "goals", "instructions"}``.

    Raises
    ------
    knoblab.BundleError
        The index or one of its bundles cannot be read.
    """
    return json.loads(_knoblab.library_json(None if path is None else os.fspath(path)))


def library_version() -> Dict[str, Any]:
    """The shipped library's identity: ``{"version": int, "hash": str}``.

    The version counts the library's changes and the hash is its content
    hash (the hand-described devices' files and the generated devices'
    manifest), as committed in ``data/library-version.json``. Every episode
    on one of its devices records them under ``settings["library"]``
    (:func:`make`'s environments and :func:`evaluate` alike); episodes on a
    bundle of one's own record none.
    """
    return json.loads(_knoblab.library_version_json())


def metrics(trajectory_files: Union[PathLike, Sequence[PathLike]], bundles: PathLike) -> Any:
    """VGEBench metrics of trajectory files: ``knoblab metrics --json``.

    Parameters
    ----------
    trajectory_files : path or sequence of paths
        JSON Lines files of trajectories, one run per file.
    bundles : str or os.PathLike
        A folder of bundles (folders or zips), or one bundle.

    Returns
    -------
    dict or list of dict
        The document: for one file, ``{"file", "episodes", "sr", "ssr",
        "spl", ...}`` (the metrics, then their counts); for several, a list.

    Raises
    ------
    knoblab.BundleError
        A bundle (or the folder) cannot be loaded.
    knoblab.ResultsError
        A file that cannot be read, or a line that is not a trajectory
        (the message names the file and the line).
    knoblab.MetricsError
        An episode recorded on another device or version of it, or
        episodes of two library versions (within a file or across files:
        both are named, with their lines).
    """
    if isinstance(trajectory_files, (str, os.PathLike)):
        trajectory_files = [trajectory_files]
    files = [os.fspath(p) for p in trajectory_files]
    return json.loads(_knoblab.metrics_json(files, os.fspath(bundles)))


from ._leaderboard import leaderboard  # noqa: E402  (after the module's own names)

_BUDGETS = Path(__file__).with_name("budgets.json")


def _register() -> None:
    # Each id with its device's largest global budget at λ = 5 as
    # max_episode_steps (knoblab/_budgets.py); with another λ, pass
    # max_episode_steps to gymnasium.make as well.
    try:
        budgets = json.loads(_BUDGETS.read_text())["budgets"]
    except (OSError, ValueError, KeyError):  # a source tree without the table: no limits
        budgets = {}
    for device in _knoblab.shipped_device_ids():
        env_id = f"knoblab/{device}"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="knoblab.env:KnobLabEnv",
                kwargs={"device": device},
                max_episode_steps=budgets.get(device),
            )


_register()
