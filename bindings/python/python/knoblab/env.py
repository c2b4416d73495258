"""KnobLab devices as Gymnasium environments (:func:`knoblab.make`)."""

from __future__ import annotations

import json
import string
from collections.abc import Sequence
from typing import Any, Dict, Iterator, List, Optional, SupportsFloat, Tuple, Union, overload

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import read_from_shared_memory

from . import _knoblab
from .errors import OptionsError

__all__ = ["KnobLabEnv", "make", "ObservedText", "SharedTexts", "MAX_ACTION_CHARS", "MAX_TEXT_CHARS", "TEXT_CHARSET"]

#: Longest action text the action space samples or accepts.
MAX_ACTION_CHARS = 1024
#: Longest text an observation's ``feedback`` or ``instruction`` holds (a
#: longer one is cut, ending in ``...``; ``info`` keeps it whole).
MAX_TEXT_CHARS: int = _knoblab.MAX_TEXT_CHARS
#: The characters an observation's texts hold: printable ASCII, newline,
#: Latin-1's letters and signs (``°``, ``µ``), common typography. Any other
#: character is ``?`` in the observation (``info`` keeps the texts whole).
TEXT_CHARSET: str = _knoblab.TEXT_CHARSET


class ObservedText(spaces.Text):
    """:class:`gymnasium.spaces.Text` as the observation's texts use it,
    which also reads right from a vector environment's shared memory.

    Gymnasium's ``AsyncVectorEnv`` with ``shared_memory=True`` reads each
    part of the observation from shared memory once, when it starts, and
    hands back those objects at every step: arrays are views that follow
    the memory, but a ``Text`` part is read into a tuple of strings that
    never changes again (Gymnasium issue #1164). This class's batch is read
    from the memory when it is used (see :class:`SharedTexts`); in every
    other way it is a ``Text`` space.
    """


class SharedTexts(Sequence):  # type: ignore[type-arg]
    """The texts of a vector environment's batch, read from its shared
    memory when used. A copy (the vector environment copies each batch it
    returns unless made with ``copy=False``) is a plain tuple of strings."""

    def __init__(self, space: spaces.Text, memory: Any, n: int) -> None:
        self._space = space
        self._memory = memory
        self._n = n

    def read(self) -> Tuple[str, ...]:
        """The texts now in the memory."""
        codes = np.frombuffer(self._memory.get_obj(), dtype=np.int32).reshape(self._n, self._space.max_length)
        chars = self._space.character_list
        end = len(chars)
        return tuple("".join(chars[c] for c in row if c < end) for row in codes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Tuple[str, ...]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[str, Tuple[str, ...]]:
        return self.read()[index]

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        return iter(self.read())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, SharedTexts)) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(self.read())

    def __deepcopy__(self, memo: Dict[int, Any]) -> Tuple[str, ...]:
        return self.read()

    def __repr__(self) -> str:
        return f"SharedTexts({self.read()!r})"


@read_from_shared_memory.register(ObservedText)
def _read_observed_text(space: ObservedText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(space, shared_memory, n)


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
        Whether observations carry the picture (``False`` skips drawing
        it, for agents that do not look).
    agent : str, default "gymnasium"
        The agent's name written into the trajectory's settings.
    pictures : {"static", "live"}, default "static"
        ``"static"``: the bundle's views as they are (VGEBench's setting);
        ``"live"``: each view drawn for the current state (lights,
        displays, pointers, open doors). Recorded in the trajectory.
    size : (int, int), optional
        The pictures' (width, height). Default: the device's view size
        (the largest view's, if they differ). Other sizes are scaled by
        the core with a triangle filter. Coordinates in actions stay on
        the 0–1000 scale, so they mean the same at any size.

    Notes
    -----
    ``step`` returns ``(observation, reward, terminated, truncated, info)``
    in Gymnasium's meanings: the reward is 1 for each goal the step reached
    (a step may reach several, in order) and 0 otherwise; ``terminated``
    means every goal was reached; ``truncated`` means a budget (global or
    local) ran out first.

    The observation is a dict of fixed shapes, so vector environments
    stack it (also in shared memory):

    - ``picture``: the current view, ``uint8`` H×W×3 at ``size`` (a fresh
      array each time);
    - ``view``: the current view's index in :attr:`view_names`
      (``Discrete``);
    - ``views``: the views one may switch to, as an ``int8`` mask over
      :attr:`view_names` (``MultiBinary``; a locked dashboard is 0);
    - ``feedback``: what the previous action did (``""`` after a reset),
      and ``instruction``: the current goal's (``""`` once all are
      reached), each a ``Text`` (:class:`ObservedText`) of at most
      :data:`MAX_TEXT_CHARS` characters of :data:`TEXT_CHARSET`.

    ``info`` holds what the agent must not see (state, budgets, C_opt,
    outcome, ``task``), the view's name (``view``), the names of the views
    one may switch to (``views``) and the texts whole (``feedback``,
    ``instruction``).
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
        size: Optional[Tuple[int, int]] = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise OptionsError(
                f"render_mode={render_mode!r}: expected one of {self.metadata['render_modes']} or None"
            )
        self.render_mode = render_mode
        if pictures not in ("static", "live"):
            raise OptionsError(f"pictures={pictures!r}: expected 'static' or 'live'")
        if size is not None:
            try:
                width, height = (int(v) for v in size)
            except (TypeError, ValueError):
                raise OptionsError(f"size={size!r}: expected (width, height), two whole numbers") from None
            if not (0 < width <= 8192 and 0 < height <= 8192):
                raise OptionsError(f"size={size!r}: width and height are whole numbers from 1 to 8192")
            size = (width, height)
        self._episode = _knoblab.Episode(str(device), _lambda(lam), agent, pictures, size, picture)
        self._tasks: List[Dict[str, Any]] = json.loads(self._episode.tasks_json())
        self._task_ids = [t["id"] for t in self._tasks]
        if task is not None and task not in self._task_ids:
            raise OptionsError(
                f"task={task!r}: the device {self._episode.bundle_id} has no such task "
                f"(tasks: {', '.join(self._task_ids)})"
            )
        self._fixed_task = task
        self._task: Optional[str] = None
        self._started = False
        self.view_names: List[str] = list(self._episode.view_names)
        width, height = self._episode.size
        text = ObservedText(MAX_TEXT_CHARS, min_length=0, charset=TEXT_CHARSET)
        fields: Dict[str, spaces.Space] = {
            "view": spaces.Discrete(len(self.view_names)),
            "views": spaces.MultiBinary(len(self.view_names)),
            "feedback": text,
            "instruction": text,
        }
        if picture:
            fields["picture"] = spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8)
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Text(
            MAX_ACTION_CHARS, min_length=1, charset=string.ascii_letters + string.digits + " ()[],=_:.-"
        )

    @property
    def bundle_id(self) -> str:
        """The device's bundle id."""
        return self._episode.bundle_id

    @property
    def size(self) -> Tuple[int, int]:
        """The pictures' (width, height)."""
        return self._episode.size

    @property
    def tasks(self) -> List[Dict[str, Any]]:
        """The device's tasks: ``[{"id", "goals", "instructions"}]``."""
        return json.loads(self._episode.tasks_json())

    @property
    def task(self) -> Optional[str]:
        """The task of the episode under way (``None`` before a reset)."""
        return self._task

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

        Raises
        ------
        knoblab.EpisodeError
            ``options["task"]`` is not a task of the device.
        """
        super().reset(seed=seed)
        task = (options or {}).get("task") or self._fixed_task
        if task is None:
            task = self._task_ids[int(self.np_random.integers(len(self._task_ids)))]
        observation, info = self._episode.reset(task)
        self._task = task
        self._started = True
        return observation, info

    def step(self, action: str) -> Tuple[Dict[str, Any], SupportsFloat, bool, bool, Dict[str, Any]]:
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
        return self._episode.step(str(action))

    def render(self) -> Optional[np.ndarray]:  # type: ignore[override]
        """The current view's picture (``uint8`` H×W×3) in ``"rgb_array"`` mode, else ``None``."""
        if self.render_mode != "rgb_array" or not self._started:
            return None
        return self._episode.picture()

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
        ``picture`` (bool), ``agent`` (str), ``pictures``
        (``"static"`` or ``"live"``) and ``size`` ((width, height)), see
        :class:`KnobLabEnv`.

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
    >>> env.unwrapped.view_names[observation["view"]]
    'front'
    """
    return KnobLabEnv(device_or_bundle_path, task=task, lam=lam, render_mode=render_mode, **kwargs)
