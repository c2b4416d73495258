"""Type stubs of ``knoblab._knoblab``, the native half (PyO3).

An episode's steps cross as Python values (dicts, ``numpy`` arrays,
numbers); documents (scorer reports, metrics, listings) cross as the
core's JSON text, which the pure-Python modules read with
:func:`json.loads`. The pure-Python modules are the public API. The test
suite checks these stubs against the built module (``mypy.stubtest``).
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import final

__all__ = [
    "Episode",
    "page_picture",
    "score_epic",
    "score_finestate",
    "score_switch",
    "metrics_json",
    "library_json",
    "shipped_device_ids",
    "library_version_json",
    "prepare_run",
    "run_eval",
    "run_options_json",
    "leaderboard_json",
    "TEXT_CHARSET",
    "MAX_TEXT_CHARS",
    "__version__",
]

__version__: str

TEXT_CHARSET: str
MAX_TEXT_CHARS: int

@final
class Episode:
    """The core's owning episode on one bundle."""

    def __new__(
        cls,
        source: str,
        lam: int = 5,
        agent: str = "python",
        pictures: str = "static",
        size: Optional[Tuple[int, int]] = None,
        picture: bool = True,
    ) -> Episode: ...
    @property
    def bundle_id(self) -> str: ...
    @property
    def view_names(self) -> List[str]: ...
    @property
    def size(self) -> Tuple[int, int]: ...
    def tasks_json(self) -> str: ...
    def reset(self, task: str) -> Tuple[Dict[str, Any], Dict[str, Any]]: ...
    def step(self, action: str) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]: ...
    def picture(self) -> npt.NDArray[np.uint8]: ...
    def trajectory(self) -> str: ...
    def metrics(self) -> str: ...
    def optimal(self, task: str) -> str: ...

def page_picture(
    source: str,
    task: str,
    actions: Sequence[str],
    pictures: str = "static",
    size: Optional[Tuple[int, int]] = None,
) -> Tuple[bytes, npt.NDArray[np.uint8]]: ...

def score_epic(
    gt: str, pred: str, coord_mode: Optional[str] = None, family: Optional[str] = None
) -> Tuple[str, List[str]]: ...
def score_finestate(
    gt: str,
    pred: str,
    model: str,
    parser: str = "py",
    vda: bool = False,
    vda_pred: Optional[str] = None,
    convention: str = "unit",
    platform: Optional[str] = None,
    assume_images: bool = False,
) -> Tuple[str, List[str]]: ...
def score_switch(
    gt: Optional[str] = None,
    pred: Optional[str] = None,
    video: Optional[str] = None,
    submission_time: Optional[str] = None,
) -> str: ...
def metrics_json(trajectories: List[str], bundles: str) -> str: ...
def leaderboard_json(
    trajectories: List[str],
    bundles: Optional[str] = None,
    library: Optional[str] = None,
    seed: int = 0,
    resamples: int = 1000,
    compare: List[Tuple[int, int]] = ...,
    plan: Optional[str] = None,
) -> str: ...
def library_json(path: Optional[str] = None) -> str: ...
def shipped_device_ids() -> List[str]: ...
def library_version_json() -> str: ...
def prepare_run(out: str, shipped: bool, **options: Any) -> str: ...
def run_options_json(**options: Any) -> str: ...
def run_eval(
    out: str,
    shipped: bool,
    select: Optional[Sequence[int]] = None,
    send_to: Optional[str] = None,
    progress: Optional[Callable[[str], None]] = None,
    full: bool = True,
    **options: Any,
) -> str: ...
