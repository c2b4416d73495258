"""The exceptions KnobLab raises, each where Python users look for it.

Every class is a :class:`KnobLabError` *and* the builtin exception one
catches for its kind, so both ``except knoblab.ResultsError`` and
``except ValueError`` work:

- ``BundleError`` (``ValueError``): a device bundle, folder or library;
- ``ResultsError`` (``ValueError``): predictions, judge outputs, trajectories;
- ``GroundTruthError`` (``ValueError``): ground truth;
- ``OptionsError`` (``ValueError``): an option outside its values;
- ``MetricsError`` (``ValueError``): episodes that cannot be scored together;
- ``RunRefusedError`` (``ValueError``): an output file of another run;
- ``EpisodeError`` (``RuntimeError``): stepping before a reset or after the end;
- ``OutputError`` (``OSError``): a run's output file that cannot be read or written.

A file or folder that is not there raises the ``…NotFoundError`` of its
kind (``BundleNotFoundError``, ``ResultsNotFoundError``,
``GroundTruthNotFoundError``), which is also a :class:`FileNotFoundError`
(``errno`` ``ENOENT``, ``filename`` the path), so ``except
FileNotFoundError`` catches it too.

Each carries the core's message (``str(error)``), and ``path`` (the file or
folder at fault, as given) and ``line`` (from 1) where there is one, else
``None``.
"""

from __future__ import annotations

import errno
from typing import Dict, Optional, Type

__all__ = [
    "BundleError",
    "BundleNotFoundError",
    "EpisodeError",
    "GroundTruthError",
    "GroundTruthNotFoundError",
    "KnobLabError",
    "MetricsError",
    "OptionsError",
    "OutputError",
    "ResultsError",
    "ResultsNotFoundError",
    "RunRefusedError",
]


class KnobLabError(Exception):
    """Base class of every error KnobLab raises.

    Attributes
    ----------
    message : str
        The core's message, naming what is wrong and where.
    path : str or None
        The file or folder at fault, as given, where there is one.
    line : int or None
        The line of ``path`` at fault (from 1), where the core knows it.
    """

    message: str
    path: Optional[str]
    line: Optional[int]

    def __init__(self, message: str = "", *, path: Optional[str] = None, line: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def __str__(self) -> str:
        return self.message


class BundleError(KnobLabError, ValueError):
    """A device bundle (or a folder or library of them) could not be loaded."""


class ResultsError(KnobLabError, ValueError):
    """A results file (predictions, judge outputs, trajectories) cannot be read or is not of its format."""


class GroundTruthError(KnobLabError, ValueError):
    """Ground truth that is missing, unreadable or malformed."""


class OptionsError(KnobLabError, ValueError):
    """An option outside its values."""


class MetricsError(KnobLabError, ValueError):
    """Trajectories that cannot be scored against the bundles given."""


class RunRefusedError(KnobLabError, ValueError):
    """An output file that holds episodes of a different run (other settings, devices or plan)."""


class EpisodeError(KnobLabError, RuntimeError):
    """Misuse of an episode: stepping before a reset or after it ended, an unknown task."""


class OutputError(KnobLabError, OSError):
    """A run's output file (or the description beside it) that cannot be read or written."""

    def __init__(self, message: str = "", *, path: Optional[str] = None, line: Optional[int] = None) -> None:
        super().__init__(message, path=path, line=line)
        self.filename = path


class _NotFound(FileNotFoundError):
    """What the ``…NotFoundError`` classes add: ``errno``, ``strerror`` and
    ``filename`` as :class:`FileNotFoundError` has them."""

    def _not_found(self, path: Optional[str]) -> None:
        self.errno = errno.ENOENT
        self.strerror = "No such file or directory"
        self.filename = path


class BundleNotFoundError(BundleError, _NotFound):
    """A bundle, folder of bundles or library index that is not there (and no device of that id)."""

    def __init__(self, message: str = "", *, path: Optional[str] = None, line: Optional[int] = None) -> None:
        super().__init__(message, path=path, line=line)
        self._not_found(path)


class ResultsNotFoundError(ResultsError, _NotFound):
    """A results file that is not there."""

    def __init__(self, message: str = "", *, path: Optional[str] = None, line: Optional[int] = None) -> None:
        super().__init__(message, path=path, line=line)
        self._not_found(path)


class GroundTruthNotFoundError(GroundTruthError, _NotFound):
    """Ground truth (a file or folder) that is not there."""

    def __init__(self, message: str = "", *, path: Optional[str] = None, line: Optional[int] = None) -> None:
        super().__init__(message, path=path, line=line)
        self._not_found(path)


_KINDS: Dict[str, Type[KnobLabError]] = {
    "": KnobLabError,
    "bundle": BundleError,
    "results": ResultsError,
    "ground_truth": GroundTruthError,
    "options": OptionsError,
    "metrics": MetricsError,
    "run_refused": RunRefusedError,
    "episode": EpisodeError,
    "output": OutputError,
}
_MISSING: Dict[str, Type[KnobLabError]] = {
    "bundle": BundleNotFoundError,
    "results": ResultsNotFoundError,
    "ground_truth": GroundTruthNotFoundError,
}


def _error(kind: str, message: str, path: Optional[str], line: Optional[int], missing: bool) -> KnobLabError:
    """The exception of a kind (the native half's names), built for it to raise."""
    cls = _MISSING.get(kind) if missing else None
    return (cls or _KINDS.get(kind, KnobLabError))(message, path=path, line=line)
