"""``knoblab.leaderboard``: runs side by side with bootstrap intervals."""

import json
import os
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from . import _knoblab

PathLike = Union[str, "os.PathLike[str]"]


def leaderboard(
    trajectory_files: Union[PathLike, Sequence[PathLike]],
    bundles: Optional[PathLike] = None,
    library: Optional[PathLike] = None,
    seed: int = 0,
    resamples: int = 1000,
    compare: Sequence[Tuple[int, int]] = (),
    plan: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """The leaderboard of runs: ``knoblab leaderboard --json``.

    Parameters
    ----------
    trajectory_files : path or sequence of paths
        JSON Lines files of trajectories, one run per file.
    bundles : str or os.PathLike, optional
        A folder of bundles (folders or zips), or one bundle.
    library : str or os.PathLike, optional
        A library index (``data/library.json``) whose hand-described
        devices the runs played; generated devices are made when needed.
    seed : int
        Seeds the bootstrap: the same seed gives the same document.
    resamples : int
        Bootstrap resamples (0: values without intervals).
    compare : sequence of (int, int)
        Pairs of rows (0-based) to compare: SR and SSR differences with a
        paired bootstrap interval, and the episodes one solved and the
        other did not.
    plan : str or os.PathLike, optional
        The plan the runs were meant to cover (``--plan``): episode keys
        ``bundle/task#repeat``, one per line, or a trajectory file whose
        episodes are the plan. Episodes no run played count as missing in
        every row.

    Returns
    -------
    dict
        The document (format ``knoblab-leaderboard/1``, described in
        ``docs/leaderboard.md``): ``plan``, ``runs`` (each metric under
        its ``knoblab metrics`` key with ``value``, ``ci_low``,
        ``ci_high``, ``n``, ``missing``), ``comparisons``.

    Raises
    ------
    knoblab.ResultsError
        A file or folder that cannot be read, or a plan that is not a
        list of episode keys or a trajectory file.
    knoblab.MetricsError
        A run of the plan's library that cannot be scored (the message
        names the file and the episode).
    knoblab.OptionsError
        No file, too many resamples, or a comparison of a row that does
        not exist or is of another library.
    """
    if isinstance(trajectory_files, (str, os.PathLike)):
        trajectory_files = [trajectory_files]
    files = [os.fspath(p) for p in trajectory_files]
    return json.loads(
        _knoblab.leaderboard_json(
            files,
            os.fspath(bundles) if bundles is not None else None,
            os.fspath(library) if library is not None else None,
            seed,
            resamples,
            [(int(a), int(b)) for a, b in compare],
            os.fspath(plan) if plan is not None else None,
        )
    )
