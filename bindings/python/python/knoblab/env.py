"""KnobLab devices as Gymnasium environments (:func:`knoblab.make`)."""

from __future__ import annotations

import json
import string
from typing import Any, Dict, List, Optional, SupportsFloat, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _knoblab
from ._knoblab import OptionsError

__all__ = ["KnobLabEnv", "make"]

#: Longest action text the action space samples or accepts.
MAX_ACTION_CHARS = 1024
#: Longest text an observation's string fields are declared to hold.
MAX_TEXT_CHARS = 65536


class AnyText(spaces.Text):
    """A :class:`gymnasium.spaces.Text` holding any characters.

    Feedback, instructions and view names are written by the device's
    author and the simulator, in any script; samples are drawn from
    printable ASCII.
    """

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a string within the length bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"


class Pictures(spaces.Space):
    """RGB pictures (``uint8``, H×W×3) of any of a set of sizes.

    Used when a bundle's views differ in size; when they share one, the
    picture's space is a plain :class:`gymnasium.spaces.Box`.
    """

    def __init__(self, sizes: List[Tuple[int, int]], seed: Optional[int] = None):
        self.sizes = sorted(set(sizes))
        super().__init__(None, np.uint8, seed)

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        """A random picture of one of the sizes."""
        w, h = self.sizes[int(self.np_random.integers(len(self.sizes)))]
        return self.np_random.integers(0, 256, size=(h, w, 3), dtype=np.uint8)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a ``uint8`` array of one of the sizes."""
        return (
            isinstance(x, np.ndarray)
            and x.dtype == np.uint8
            and x.ndim == 3
            and x.shape[2] == 3
            and (x.shape[1], x.shape[0]) in self.sizes
        )

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Pictures) and other.sizes == self.sizes


def _lambda(lam: Union[int, float]) -> int:
    if isinstance(lam, bool) or not float(lam).is_integer() or lam < 0:
        raise OptionsError(f"lam={lam!r}: the budget multiplier λ is a whole number ≥ 0, as 5")
    return int(lam)


class KnobLabEnv(gymnasium.Env):
    """One device of KnobLab as a Gymnasium environment.

    An episode is one task of the device: reach its goals, in order, by
    acting on the pictures of its views with action texts such as
    ``"Press(coord=[512, 300])"`` or ``"Switch_view(params=[top])"`` (the
    grammar of ``docs/specs/devices.md``, section 2). A mistake is an
    outcome with feedback, never an error.

    Parameters
    ----------
    device : str or os.PathLike
        A device id of the shipped library (``"coffee-0001"``) or the path
        of a bundle (a folder, a ``.zip`` or a single JSON file).
    task : str, optional
        The task every reset starts, unless ``reset``'s ``options`` name
        another. Without one, each reset draws a task of the device
        uniformly with the environment's seeded generator.
    lam : float, default 5.0
        The budget multiplier λ (a whole number): the global budget is
        λ · Σ C_opt, the local one λ · C_opt of the current goal.
    render_mode : {"rgb_array", None}, default "rgb_array"
        ``"rgb_array"``: :meth:`render` returns the current picture.
    picture : bool, default True
        Whether observations carry the picture (``False`` skips copying
        it, for agents that do not look).
    agent : str, default "gymnasium"
        The agent's name written into the trajectory's settings.
    pictures : {"static", "live"}, default "static"
        ``"static"``: the bundle's views as they are (VGEBench's setting);
        ``"live"``: each view drawn for the current state (lights,
        displays, pointers, open doors). Recorded in the trajectory.

    Notes
    -----
    ``step`` returns ``(observation, reward, terminated, truncated, info)``
    in Gymnasium's meanings: the reward is 1 for each goal the step reached
    (a step may reach several, in order) and 0 otherwise; ``terminated``
    means every goal was reached; ``truncated`` means a budget (global or
    local) ran out first. The observation is a dict: ``picture`` (the
    current view as ``uint8`` H×W×3, a fresh array each time), ``view``,
    ``views`` (the views one may switch to; a locked dashboard is not
    listed), ``feedback`` (of the previous action, ``""`` after a reset)
    and ``instruction`` (the current goal's, ``""`` once all are reached).
    ``info`` holds the diagnostics the agent must not see (state, budgets,
    C_opt, outcome) and ``task``.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        device: Any,
        task: Optional[str] = None,
        lam: Union[int, float] = 5.0,
        render_mode: Optional[str] = "rgb_array",
        picture: bool = True,
        agent: str = "gymnasium",
        pictures: str = "static",
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionsError(
                f"render_mode={render_mode!r}: expected one of {self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        if pictures not in ("static", "live"):
            raise OptionsError(f"pictures={pictures!r}: expected 'static' or 'live'")
        self._live = pictures == "live"
        self._episode = _knoblab.Episode(str(device), _lambda(lam), agent, pictures)
        self._tasks: List[Dict[str, Any]] = json.loads(self._episode.tasks_json())
        self._task_ids = [t["id"] for t in self._tasks]
        if task is not None and task not in self._task_ids:
            raise OptionsError(
                f"task={task!r}: the device {self._episode.bundle_id} has no such task "
                f"(tasks: {', '.join(self._task_ids)})"
            )
        self._fixed_task = task
        self._picture = picture
        self._pictures: Dict[str, np.ndarray] = {}
        self._task: Optional[str] = None
        self._view: Optional[str] = None
        sizes: Dict[str, List[int]] = json.loads(self._episode.view_sizes_json())
        size_set = sorted({(w, h) for w, h in sizes.values()})
        picture_space: spaces.Space = (
            spaces.Box(0, 255, shape=(size_set[0][1], size_set[0][0], 3), dtype=np.uint8)
            if len(size_set) == 1
            else Pictures(size_set)
        )
        text = AnyText(MAX_TEXT_CHARS, min_length=0)
        fields: Dict[str, spaces.Space] = {
            "view": text,
            "views": spaces.Sequence(text),
            "feedback": text,
            "instruction": text,
        }
        if picture:
            fields["picture"] = picture_space
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Text(
            MAX_ACTION_CHARS, min_length=1, charset=string.ascii_letters + string.digits + " ()[],=_:.-"
        )

    @property
    def bundle_id(self) -> str:
        """The device's bundle id."""
        return self._episode.bundle_id

    @property
    def tasks(self) -> List[Dict[str, Any]]:
        """The device's tasks: ``[{"id", "goals", "instructions"}]``."""
        return json.loads(self._episode.tasks_json())

    @property
    def task(self) -> Optional[str]:
        """The task of the episode under way (``None`` before a reset)."""
        return self._task

    def _picture_of(self, view: str) -> np.ndarray:
        if self._live:  # drawn for the current state, so never kept
            data, width, height = self._episode.picture(view)
            return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3).copy()
        base = self._pictures.get(view)
        if base is None:
            data, width, height = self._episode.picture(view)
            base = np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)
            self._pictures[view] = base
        return base.copy()

    def _observation(self, core: Dict[str, Any]) -> Dict[str, Any]:
        self._view = core["view"]
        obs: Dict[str, Any] = {
            "view": core["view"],
            "views": tuple(core["views"]),
            "feedback": core["feedback"] or "",
            "instruction": core["instruction"] or "",
        }
        if self._picture:
            obs["picture"] = self._picture_of(core["view"])
        return obs

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Start an episode.

        Parameters
        ----------
        seed : int, optional
            Seeds the generator that draws a task when none is fixed.
        options : dict, optional
            ``{"task": id}`` starts that task.

        Returns
        -------
        observation : dict
            What the agent sees (see the class notes).
        info : dict
            Diagnostics: state, view, budgets, C_opt, goal index, task.
        """
        super().reset(seed=seed)
        task = (options or {}).get("task") or self._fixed_task
        if task is None:
            task = self._task_ids[int(self.np_random.integers(len(self._task_ids)))]
        observation, info = json.loads(self._episode.reset(task))
        self._task = task
        info["task"] = task
        return self._observation(observation), info

    def step(
        self, action: str
    ) -> Tuple[Dict[str, Any], SupportsFloat, bool, bool, Dict[str, Any]]:
        """Play one action text.

        Parameters
        ----------
        action : str
            An action text (a model's whole reply is fine: the action is
            read from it).

        Returns
        -------
        observation : dict
            What the agent sees after the action.
        reward : float
            1 for each goal reached by this step, else 0.
        terminated : bool
            Every goal was reached.
        truncated : bool
            A budget ran out first.
        info : dict
            Diagnostics (the agent must not see them), with ``outcome``.

        Raises
        ------
        knoblab.EpisodeError
            Before any reset, or after the episode ended.
        """
        result = json.loads(self._episode.step(str(action)))
        step = result["step"]
        info = step["info"]
        info["task"] = self._task
        return (
            self._observation(step["observation"]),
            float(result["goals_reached"]),
            bool(step["terminated"]),
            bool(step["truncated"]),
            info,
        )

    def render(self) -> Optional[np.ndarray]:  # type: ignore[override]
        """The current view's picture (``uint8`` H×W×3) in ``"rgb_array"`` mode, else ``None``."""
        if self.render_mode != "rgb_array" or self._view is None:
            return None
        return self._picture_of(self._view)

    def optimal(self, task: Optional[str] = None) -> List[Dict[str, Any]]:
        """The optimal path of a task (default: the current one).

        Returns
        -------
        list of dict
            One per step: ``view``, ``action``, ``point`` (0–1000 scale, or
            ``None``), ``feedback`` and ``goal_index``, as the page shows it.
        """
        task = task or self._task or self._fixed_task
        if task is None:
            raise OptionsError("optimal(): no task given and no episode under way")
        return json.loads(self._episode.optimal(task))["steps"]

    def trajectory(self) -> str:
        """The episode's record: the JSON line ``knoblab run`` writes (no newline).

        Raises
        ------
        knoblab.EpisodeError
            Before any reset.
        """
        return self._episode.trajectory()

    def metrics(self) -> Dict[str, Any]:
        """The episode's metrics, as ``knoblab metrics --json`` computes them per episode.

        Returns
        -------
        dict
            ``task_id``, ``bundle_id``, then SR, SSR, SPL, State-F1, EIR,
            TIR, VSPS, GVPE, EER, PSR and the distances (``None`` where
            there is nothing to measure) and their ``counts``.
        """
        return json.loads(self._episode.metrics())


def make(
    device_or_bundle_path: Any,
    task: Optional[str] = None,
    lam: Union[int, float] = 5.0,
    render_mode: Optional[str] = "rgb_array",
    **kwargs: Any,
) -> KnobLabEnv:
    """Make a KnobLab device a Gymnasium environment.

    Parameters
    ----------
    device_or_bundle_path : str or os.PathLike
        A device id of the shipped library (see :func:`knoblab.library`) or
        a bundle's path (folder, ``.zip`` or single JSON file).
    task : str, optional
        The task every reset starts (default: drawn at each reset).
    lam : float, default 5.0
        The budget multiplier λ, a whole number.
    render_mode : {"rgb_array", None}, default "rgb_array"
        What :meth:`KnobLabEnv.render` returns.
    **kwargs
        ``picture`` (bool), ``agent`` (str) and ``pictures``
        (``"static"`` or ``"live"``), see :class:`KnobLabEnv`.

    Returns
    -------
    KnobLabEnv
        The environment. ``step`` rewards 1 for each goal reached, else 0.

    Raises
    ------
    knoblab.BundleError
        The bundle cannot be loaded (every problem, with where).
    knoblab.OptionsError
        An unknown task, render mode or a λ that is not a whole number.

    Examples
    --------
    >>> import knoblab
    >>> env = knoblab.make("coffee-0001", task="single-heating-up")
    >>> observation, info = env.reset(seed=0)
    >>> observation["view"]
    'front'
    """
    return KnobLabEnv(device_or_bundle_path, task=task, lam=lam, render_mode=render_mode, **kwargs)
