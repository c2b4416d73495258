"""``knoblab.evaluate``: the core's runner (``knoblab eval``) from Python.

The loop, the HTTP client, the retries, the output file and its resume
are the core's (``knoblab::eval::evaluate``); this module turns keyword
arguments into its options and its JSON answers into dicts.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _knoblab

PathLike = Union[str, "os.PathLike[str]"]
Progress = Union[None, str, Callable[[Dict[str, Any]], None]]

# Every option of a run, as `knoblab eval` names them (`lam` for --lambda).
RUN_OPTIONS = (
    "bundles",
    "library",
    "devices",
    "categories",
    "tasks",
    "repeats",
    "agent",
    "api",
    "base_url",
    "model",
    "api_key_env",
    "concurrency",
    "lam",
    "history",
    "coords",
    "perturb",
    "seed",
    "temperature",
    "max_tokens",
    "timeout",
    "retries",
    "backoff",
    "price_in",
    "price_out",
    "max_cost",
    "render",
    "cache",
)


def _paths(value: Union[None, PathLike, Sequence[PathLike]]) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(p) for p in value]


def _names(value: Union[None, str, Sequence[str]]) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    return list(value)


def run_kwargs(options: Dict[str, Any]) -> Dict[str, Any]:
    """The options as the native runner takes them (unknown names refused there)."""
    kw = dict(options)
    kw["bundles"] = _paths(kw.get("bundles"))
    for key in ("library", "cache"):
        if kw.get(key) is not None:
            kw[key] = os.fspath(kw[key])
    for key in ("devices", "categories", "tasks"):
        kw[key] = _names(kw.get(key))
    return kw


def shipped(options: Dict[str, Any]) -> bool:
    """Whether the run plays the library shipped in the package."""
    return options.get("bundles") is None and options.get("library") is None


def _stderr_line(event: Dict[str, Any]) -> None:
    kind = event["event"]
    if kind == "resumed":
        for note in event["notes"]:
            print(f"knoblab: {note}", file=sys.stderr)
        if event["done"]:
            print(
                f"knoblab: resuming: {event['done']} of {event['total']} episodes are in the file",
                file=sys.stderr,
            )
    elif kind == "finished":
        print(
            f"knoblab: {event['done']}/{event['total']} {event['item']}: {event['status']}, "
            f"{event['steps']} steps",
            file=sys.stderr,
        )
    elif kind == "problem":
        print(f"knoblab: {event['item']}: {event['message']}", file=sys.stderr)


def callback(progress: Progress) -> Optional[Callable[[str], None]]:
    """The native runner's callback (it passes each event as JSON text)."""
    if progress is None:
        return None
    if progress == "stderr":
        target: Callable[[Dict[str, Any]], None] = _stderr_line
    elif callable(progress):
        target = progress
    else:
        raise TypeError(f"progress must be None, 'stderr' or a callable, not {progress!r}")

    def on_event(text: str) -> None:
        target(json.loads(text))

    return on_event


def evaluate(
    out: PathLike,
    bundles: Union[None, PathLike, Sequence[PathLike]] = None,
    *,
    library: Optional[PathLike] = None,
    devices: Union[None, str, Sequence[str]] = None,
    categories: Union[None, str, Sequence[str]] = None,
    tasks: Union[None, str, Sequence[str]] = None,
    repeats: int = 1,
    agent: str = "model",
    api: str = "openai",
    base_url: Optional[str] = None,
    model: Optional[str] = None,
    api_key_env: Optional[str] = None,
    concurrency: int = 4,
    lam: int = 5,
    history: Union[None, int, str] = None,
    coords: str = "0-1000",
    perturb: str = "none",
    seed: int = 0,
    temperature: float = 0.0,
    max_tokens: int = 512,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 1.0,
    price_in: Optional[float] = None,
    price_out: Optional[float] = None,
    max_cost: Optional[float] = None,
    render: str = "static",
    cache: Optional[PathLike] = None,
    select: Optional[Sequence[int]] = None,
    send_to: Optional[str] = None,
    progress: Progress = None,
) -> Dict[str, Any]:
    """Run a model (or the oracle, the random agent, a replay) on devices: ``knoblab eval``.

    The same runner as the command line, with the same options (by the
    same names, ``lam`` for ``--lambda``) and the same output file: JSON
    Lines of episode records, one whole line appended and synced as each
    episode ends, with the run's description beside it (``OUT.run.json``).
    Called again on the same file, it plays only the episodes without a
    record; a file of a different run is refused. The GIL is released
    while it runs. Ctrl-C stops it as it stops ``knoblab eval`` (no new
    request; episodes in flight are dropped and run again on resume),
    then raises :class:`KeyboardInterrupt`; finished episodes stay in the
    file.

    Parameters
    ----------
    out : str or os.PathLike
        The output file (created, or resumed).
    bundles : path or sequence of paths, optional
        Bundles to play (folders, zips or JSON files). With neither
        ``bundles`` nor ``library``, the library shipped in the package.
    library : str or os.PathLike, optional
        A library index (``library.json``) whose devices are played.
    devices, categories, tasks : str or sequence of str, optional
        Only these device ids, categories, task ids (comma-separated text
        or a list).
    repeats : int
        Episodes of each task.
    agent : str
        ``"model"`` (the API below), ``"oracle"``, ``"random"`` or
        ``"replay:FILE"``.
    api : str
        ``"openai"`` (any OpenAI-compatible server, vLLM included) or
        ``"anthropic"``.
    base_url, model : str, optional
        The API base (e.g. ``http://localhost:8000/v1``) and the model
        name; both needed with ``agent="model"``.
    api_key_env : str, optional
        The environment variable holding the key (default
        ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY`` by ``api``); unset or
        empty sends no key. The key is never an argument.
    concurrency : int
        Episodes in flight at once (threads of the core).
    lam : int
        Budget multiplier λ.
    history : int or "full", optional
        Past turns shown to the model.
    coords : str
        ``"0-1000"``, ``"0-1"`` or ``"pixels"``.
    perturb : str
        ``"none"``, ``"jpeg:Q"``, ``"blur:SIGMA"`` or ``"patch:PERCENT"``.
    seed : int
        Seeds the perturbation and the random agent.
    temperature, max_tokens
        Sampling options sent to the model.
    timeout : float
        Seconds a request may take.
    retries : int
        Retries of a request (429, 5xx, timeouts, cut replies).
    backoff : float
        Seconds before the first retry, doubling after.
    price_in, price_out : float, optional
        Dollars per million input and output tokens (the cost estimate).
    max_cost : float, optional
        Start no episode once the estimated cost reaches this.
    render : str
        ``"static"`` (the paper's pictures) or ``"live"``.
    cache : str or os.PathLike, optional
        The model-call cache's folder (``knoblab eval --cache``): a
        request found there is answered from it, not sent; a whole reply
        is kept there. Keyed by endpoint, model, request body (pictures
        by content), prompt version, library and this version; errors and
        truncated replies are never kept; several processes may share it.
        The turns answered from it are marked ``"cached": true`` and cost
        nothing.
    select : sequence of int, optional
        Play only the plan's items at these positions (0-based, plan
        order); what :func:`knoblab.ray.evaluate` gives each task.
    send_to : str, optional
        Send requests to this base URL instead of ``base_url`` (a replica
        of the same model beside this process); ``base_url`` still names
        the run in its description and records.
    progress : None, "stderr" or callable, optional
        ``"stderr"`` prints a line per finished episode; a callable gets
        each event as a dict (``{"event": "resumed" | "started" |
        "retrying" | "finished" | "problem", ...}``), from the runner's
        threads. An exception it raises stops the run and is raised.

    Returns
    -------
    dict
        ``file``, ``ran`` (episodes finished by this call), ``left``
        (planned episodes still without a record), ``stop``
        (``"complete"``, ``"cancelled"`` or ``"max_cost"``), ``problems``
        (items that could not be played), ``records`` (every record of
        the plan now in the file, in plan order: the file's lines as
        dicts), ``metrics`` (the document ``knoblab eval --json``
        prints, ``None`` while no episode can be scored) and ``cache``
        (with ``cache``: ``hits``, the requests answered from it,
        ``misses``, those sent, ``stored`` and ``failed_writes``; else
        ``None``).

    Raises
    ------
    knoblab.OptionsError
        An option outside its values, or an empty plan.
    knoblab.BundleError
        A bundle or library that cannot be loaded, or a device not in it.
    knoblab.RunRefusedError
        ``out`` holds episodes of a different run; the message names each
        difference.
    knoblab.ResultsError
        A line of ``out`` (not its last) that is not a record.
    """
    options = {
        "bundles": bundles,
        "library": library,
        "devices": devices,
        "categories": categories,
        "tasks": tasks,
        "repeats": repeats,
        "agent": agent,
        "api": api,
        "base_url": base_url,
        "model": model,
        "api_key_env": api_key_env,
        "concurrency": concurrency,
        "lam": lam,
        "history": history,
        "coords": coords,
        "perturb": perturb,
        "seed": seed,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "timeout": timeout,
        "retries": retries,
        "backoff": backoff,
        "price_in": price_in,
        "price_out": price_out,
        "max_cost": max_cost,
        "render": render,
        "cache": cache,
    }
    text = _knoblab.run_eval(
        os.fspath(out),
        shipped(options),
        select=None if select is None else [int(i) for i in select],
        send_to=send_to,
        progress=callback(progress),
        **run_kwargs(options),
    )
    return json.loads(text)
