"""``knoblab.ray.evaluate``: a run's episodes as Ray tasks over a cluster,
with one writer.

Needs the ``ray`` extra (``pip install "./bindings/python[ray]"``);
``import knoblab`` never imports Ray, this module does when imported.

How it works
------------
The driver (the process calling :func:`evaluate`) builds the plan with
the core and gets the output file ready once (``prepare_output``, as
``knoblab eval`` does: the run description ``OUT.run.json`` is written
beside it, a file of another run is refused before any task is sent, a
torn last line is cut) and reads which items already have a record. The
items left go out in chunks, one Ray task each (``ray.remote`` with
``max_retries``: Ray schedules, places and retries them).

A task needs nothing of the driver's disk. The library shipped in the
package is in the wheel on every node; bundles, a library index's folder
and a replay file named by the call are packed once by the driver into
one zip put in Ray's object store, and unpacked once per worker process
into a temporary folder of its node. The task runs the core's runner
(:func:`knoblab.evaluate`) on its chunk into a file of its own temporary
folder, and returns the finished episodes' lines to the driver.

Only the driver writes the output: it appends each returned episode as
one whole line and syncs it (``fsync``) before taking the next, and it keeps
the items the file holds, so an episode another attempt of a task
returned already is not written again (the same resume by key as
``knoblab eval``: only items without a record are played; the core reads
the file back). No file lock, no path the nodes share.

A killed worker or node: its task's episodes never reached the driver,
so they are in no file; Ray retries the task elsewhere (up to
``max_retries``). With its retries used up, the task is reported in
``failed`` and calling :func:`evaluate` again with the same arguments
plays what is left. A killed driver: every episode it wrote is synced;
the next call resumes from the file (a line torn by the kill is cut).

The same code runs on one laptop (``ray.init()`` starts a local Ray) and
on a cluster.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
import zipfile
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

try:
    import ray as _ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "knoblab.ray needs Ray: pip install 'knoblab[ray]' (or pip install ray)"
    ) from e

from . import _knoblab
from ._eval import RUN_OPTIONS, PathLike, Progress, callback, run_kwargs, shipped

__all__ = ["evaluate"]


# ------------------------------------------------------------ what is sent


def _add_tree(zf: zipfile.ZipFile, path: str, name: str) -> None:
    """``path`` (a file or a folder's files) into ``zf`` under ``name``."""
    if os.path.isdir(path):
        for folder, _, files in os.walk(path):
            for f in sorted(files):
                full = os.path.join(folder, f)
                zf.write(full, os.path.join(name, os.path.relpath(full, path)))
    else:
        zf.write(path, name)


def _pack(kwargs: Dict[str, Any]) -> Tuple[Optional[bytes], Dict[str, Any]]:
    """The files a run reads from the driver's disk, as one zip, and the
    options with their paths made relative to where it is unpacked
    (``{"bundles": [...], "library": ..., "agent": ...}``: what changes)."""
    buffer = io.BytesIO()
    local: Dict[str, Any] = {}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        if kwargs.get("bundles"):
            names = []
            for i, path in enumerate(kwargs["bundles"]):
                if os.path.exists(path):
                    name = f"b{i}/{os.path.basename(os.path.normpath(path))}"
                    _add_tree(zf, path, name)
                    names.append(("unpacked", name))
                else:  # a generated device's id: made on the node
                    names.append(("as-is", path))
            local["bundles"] = names
        if kwargs.get("library") is not None and not kwargs.get("bundles"):
            index = kwargs["library"]
            if os.path.exists(index):
                # The index and the device folders it names beside it.
                _add_tree(zf, os.path.dirname(os.path.abspath(index)), "lib")
                local["library"] = "lib/" + os.path.basename(index)
        agent = kwargs.get("agent") or ""
        if agent.startswith("replay:") and os.path.exists(agent[len("replay:") :]):
            zf.write(agent[len("replay:") :], "replay.jsonl")
            local["agent"] = "replay.jsonl"
    return (buffer.getvalue() if local else None), local


# Per worker process: the packs unpacked so far (by digest), removed at exit.
_UNPACKED: Dict[str, str] = {}


def _remove_unpacked() -> None:
    for folder in _UNPACKED.values():
        shutil.rmtree(folder, ignore_errors=True)


def _unpack(digest: str, payload: bytes) -> str:
    if digest not in _UNPACKED:
        if not _UNPACKED:
            atexit.register(_remove_unpacked)
        folder = tempfile.mkdtemp(prefix="knoblab-ray-")
        with zipfile.ZipFile(io.BytesIO(payload)) as zf:
            zf.extractall(folder)
        _UNPACKED[digest] = folder
    return _UNPACKED[digest]


def _localize(kwargs: Dict[str, Any], local: Dict[str, Any], root: str) -> Dict[str, Any]:
    kw = dict(kwargs)
    if "bundles" in local:
        kw["bundles"] = [os.path.join(root, p) if how == "unpacked" else p for how, p in local["bundles"]]
    if "library" in local:
        kw["library"] = os.path.join(root, local["library"])
    if "agent" in local:
        kw["agent"] = "replay:" + os.path.join(root, local["agent"])
    return kw


# ------------------------------------------------------------ a task


def _play_chunk(
    select: List[int],
    payload: Optional[bytes],
    pack: Optional[Tuple[str, Dict[str, Any]]],
    from_shipped: bool,
    kwargs: Dict[str, Any],
    send_to_env: Optional[str],
    on_event: Optional[Callable[[Dict[str, Any]], None]],
) -> Dict[str, Any]:
    """One Ray task: the core's runner on these plan positions, into a
    file of the node's own temporary folder; returns its lines."""
    node = _ray.get_runtime_context().get_node_id()
    send_to = None
    if send_to_env is not None:
        send_to = os.environ.get(send_to_env) or None
        if send_to is None:
            raise RuntimeError(
                f"send_to_env={send_to_env!r}: the variable is not set on node {node}; set it where `ray start` runs"
            )
    kw = dict(kwargs)
    if pack is not None and payload is not None:
        digest, local = pack
        kw = _localize(kw, local, _unpack(digest, payload))
    with tempfile.TemporaryDirectory(prefix="knoblab-task-") as folder:
        out = os.path.join(folder, "episodes.jsonl")
        answer = json.loads(
            _knoblab.run_eval(
                out, from_shipped, select=select, send_to=send_to, progress=callback(on_event), full=False, **kw
            )
        )
        with open(out, encoding="utf-8") as f:
            answer["lines"] = [line for line in f.read().split("\n") if line.strip()]
    answer.pop("file", None)
    answer["select"] = select
    answer["node"] = node
    answer["bundles"] = kw.get("bundles")
    return answer


# ------------------------------------------------------------ the writer


class _Writer:
    """The output file, appended by this process only: each record one
    whole line, synced before the next; an item the file holds is not
    written again."""

    def __init__(self, path: str, have: Set[str]) -> None:
        self.path = path
        self.items = set(have)
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, line: str, item: str) -> bool:
        if item in self.items:
            return False
        data = (line.rstrip("\n") + "\n").encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]
        os.fsync(self.fd)
        self.items.add(item)
        return True

    def close(self) -> None:
        os.close(self.fd)


def _costs(path: str) -> float:
    """The estimated cost of the records in the file (for ``max_cost``)."""
    total = 0.0
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                total += float(json.loads(line).get("cost") or 0.0)
            except ValueError:
                pass  # the core reads the file and reports a bad line
    return total


def evaluate(
    out: PathLike,
    bundles: Union[None, PathLike, Sequence[PathLike]] = None,
    *,
    address: Optional[str] = None,
    chunk: int = 1,
    max_retries: int = 3,
    num_cpus: float = 1,
    resources: Optional[Dict[str, float]] = None,
    send_to_env: Optional[str] = None,
    on_event: Optional[Callable[[Dict[str, Any]], None]] = None,
    progress: Progress = None,
    concurrency: int = 1,
    **options: Any,
) -> Dict[str, Any]:
    """Run a plan's episodes as Ray tasks; the driver alone writes ``out``.

    The options of the run are those of :func:`knoblab.evaluate` (the
    same names, the same defaults but ``concurrency``), and so is the
    output file: the same resume, the same refusal of another run's file.
    The result is that of :func:`knoblab.evaluate` on the finished file,
    plus what the tasks did.

    Parameters
    ----------
    out : str or os.PathLike
        The output file, on the driver's disk (no node needs to see it).
    bundles : path or sequence of paths, optional
        As in :func:`knoblab.evaluate`, on the driver's disk: sent to the
        nodes through Ray's object store (so is a ``library`` index's
        folder, and a ``replay:FILE``). The shipped library, the default,
        is in the wheel.
    address : str, optional
        Passed to :func:`ray.init` when Ray is not initialised yet (e.g.
        ``"auto"`` or ``"ray://head:10001"``); ``None`` starts or joins
        as :func:`ray.init` does by itself.
    chunk : int
        Plan items per task (1: one episode a task, each written as soon
        as it ends; more: fewer tasks, a killed task loses more work).
    max_retries : int
        Ray's retries of a task whose worker or node died.
    num_cpus : float
        CPUs Ray reserves per task.
    resources : dict, optional
        Custom Ray resources each task needs (e.g. ``{"vllm": 1}`` to
        run tasks only on nodes started with that resource).
    send_to_env : str, optional
        The name of an environment variable read on the worker: each
        task sends its requests to the base URL it holds (that node's
        model server) instead of ``base_url``, which still names the run.
    on_event : callable, optional
        Called on the worker with each event of its runner (as in
        ``progress`` of :func:`knoblab.evaluate`); pickled by Ray.
    progress : None, "stderr" or callable, optional
        On the driver, as tasks end: ``"stderr"`` prints a line per task,
        a callable gets each task's answer (a dict: ``select``, ``node``,
        ``ran``, ``written``, ``problems``, ``cache``).
    concurrency : int
        Episodes in flight per task (threads of the core's runner).
    **options
        The run's options, named as in :func:`knoblab.evaluate`
        (``cache`` is a folder on each node).

    Returns
    -------
    dict
        As :func:`knoblab.evaluate` returns (``records``, ``metrics``,
        ``left``, ...: of the whole file), with ``ran`` the episodes the
        driver wrote, ``tasks`` the number of tasks sent, ``failed`` a
        list of ``{"select", "error"}`` for tasks that failed after their
        retries (their episodes are in ``left``: call again), ``stop``
        (``"max_cost"`` when ``max_cost`` stopped it) and ``cache`` (the
        tasks' cache counts added up, with ``cache``).

    Raises
    ------
    knoblab.OptionsError, knoblab.BundleError, knoblab.RunRefusedError
        As :func:`knoblab.evaluate`, on the driver, before any task.
    """
    unknown = sorted(set(options) - set(RUN_OPTIONS))
    if unknown:
        raise TypeError(f"evaluate() got unexpected options: {', '.join(unknown)}")
    if chunk < 1:
        raise ValueError(f"chunk={chunk}: at least one item per task")
    options = dict(options, bundles=bundles, concurrency=concurrency)
    from_shipped = shipped(options)
    kwargs = run_kwargs(options)
    path = os.fspath(os.path.abspath(os.fspath(out)))
    if not _ray.is_initialized():
        _ray.init(address=address)

    state = json.loads(_knoblab.prepare_run(path, from_shipped, **kwargs))
    items: List[str] = state["items"]
    done = set(state["done"])
    todo = [i for i in range(len(items)) if i not in done]
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]

    payload, local = _pack(kwargs)
    pack = None
    payload_ref = None
    if payload is not None:
        # Put once; Ray moves it to each node that runs a task, and each
        # worker process unpacks it once (by its digest).
        pack = (hashlib.sha256(payload).hexdigest(), local)
        payload_ref = _ray.put(payload)

    task = _ray.remote(_play_chunk).options(max_retries=max_retries, num_cpus=num_cpus, resources=resources or {})
    refs = {
        task.remote(select, payload_ref, pack, from_shipped, kwargs, send_to_env, on_event): select
        for select in chunks
    }
    writer = _Writer(path, {items[i] for i in done})
    max_cost = kwargs.get("max_cost")
    spent = _costs(path) if max_cost is not None else 0.0
    ran = 0
    failed: List[Dict[str, Any]] = []
    cache: Optional[Dict[str, int]] = None
    stop_for_cost = False
    pending = list(refs)
    try:
        while pending:
            ready, pending = _ray.wait(pending, num_returns=1)
            for ref in ready:
                select = refs[ref]
                try:
                    answer = _ray.get(ref)
                except Exception as e:  # a task that failed after its retries
                    failed.append({"select": select, "error": str(e)})
                    if progress == "stderr":
                        print(f"knoblab: task {select} failed: {e}", file=sys.stderr)
                    continue
                asked = {items[i] for i in select}
                written = 0
                for line in answer.pop("lines"):
                    try:
                        record = json.loads(line)
                    except ValueError as e:
                        failed.append({"select": select, "error": f"the task returned a line that is not JSON: {e}"})
                        continue
                    item = record.get("item")
                    if item not in asked:
                        failed.append({"select": select, "error": f"the task returned {item!r}, not asked for"})
                        continue
                    if writer.append(line, item):
                        written += 1
                        spent += float(record.get("cost") or 0.0)
                ran += written
                answer["written"] = written
                if answer.get("cache") is not None:
                    cache = cache or {}
                    for k, v in answer["cache"].items():
                        cache[k] = cache.get(k, 0) + v
                if progress == "stderr":
                    print(
                        f"knoblab: task {answer['select']} on {answer['node'][:8]}: {written} episodes written",
                        file=sys.stderr,
                    )
                elif callable(progress):
                    progress(answer)
            if max_cost is not None and spent >= max_cost and pending:
                stop_for_cost = True
                for ref in pending:
                    _ray.cancel(ref)
                pending = []
    except KeyboardInterrupt:
        # As `knoblab eval` stops on Ctrl-C: what was written stays, the
        # rest runs on the next call.
        for ref in pending:
            _ray.cancel(ref)
        raise
    finally:
        writer.close()

    # The whole file, read by the core on the driver (nothing is played).
    final = {k: v for k, v in kwargs.items() if k != "cache"}
    result = json.loads(_knoblab.run_eval(path, from_shipped, select=[], **final))
    result["ran"] = ran
    result["tasks"] = len(chunks)
    result["failed"] = failed
    result["cache"] = cache
    if stop_for_cost and result["left"] > 0:
        result["stop"] = "max_cost"
    return result
