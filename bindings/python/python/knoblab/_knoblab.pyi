"""Type stubs of ``knoblab._knoblab``, the native half (PyO3).

Documents cross as the core's JSON text; the pure-Python modules read them
with :func:`json.loads` and are the public API.
"""

from typing import Any, Callable, List, Optional, Sequence, Tuple

__version__: str

class KnobLabError(Exception):
    """Base class of every error KnobLab raises."""

class BundleError(KnobLabError):
    """A device bundle (or a folder or library of them) could not be loaded."""

class ResultsError(KnobLabError):
    """A results file cannot be read or is not of its format."""

class GroundTruthError(KnobLabError):
    """Ground truth that is missing, unreadable or malformed."""

class OptionsError(KnobLabError):
    """An option outside its values."""

class MetricsError(KnobLabError):
    """Trajectories that cannot be scored against the bundles given."""

class EpisodeError(KnobLabError):
    """Misuse of an episode: stepping before a reset or after it ended, an unknown task."""

class RunRefusedError(KnobLabError):
    """An output file that holds episodes of a different run."""

class Episode:
    """The core's owning episode on one bundle."""

    def __init__(
        self, source: str, lam: int = 5, agent: str = "python", pictures: str = "static"
    ) -> None: ...
    @property
    def bundle_id(self) -> str: ...
    def tasks_json(self) -> str: ...
    def view_sizes_json(self) -> str: ...
    def reset(self, task: str) -> str: ...
    def step(self, action: str) -> str: ...
    def picture(self, view: str) -> Tuple[bytes, int, int]: ...
    def trajectory(self) -> str: ...
    def metrics(self) -> str: ...
    def optimal(self, task: str) -> str: ...

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
) -> str: ...
def library_json(path: Optional[str] = None) -> str: ...
def shipped_device_ids() -> List[str]: ...
def library_version_json() -> str: ...
def prepare_run(out: str, shipped: bool, **options: Any) -> str: ...
def run_eval(
    out: str,
    shipped: bool,
    select: Optional[Sequence[int]] = None,
    send_to: Optional[str] = None,
    progress: Optional[Callable[[str], None]] = None,
    full: bool = True,
    **options: Any,
) -> str: ...
