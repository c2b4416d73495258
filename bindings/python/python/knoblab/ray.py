"""``knoblab.ray.evaluate``: a run's episodes as Ray tasks over a cluster.

Needs the ``ray`` extra (``pip install "./bindings/python[ray]"``);
``import knoblab`` never imports Ray, this module does when imported.

How it works
------------
The driver (the process calling :func:`evaluate`) builds the plan with
the core, checks the output file against it once (``prepare_output``:
the run description ``OUT.run.json`` is written beside it, a file of
another run is refused before any task is sent) and reads which items
already have a record. The items left go out in chunks, one Ray task
each (``ray.remote`` with ``max_retries``: Ray schedules, places and
retries them; nothing here stands in for its scheduler). Each task
rebuilds the same plan on its worker and runs the core's runner
(:func:`knoblab.evaluate`) on its chunk only (``select``), appending
each finished episode to the one shared output file.

Several writers, one file: every append holds an exclusive lock on the
file (``flock``) from before it reads what others appended since its
last look until after its ``fsync``; a record whose item another writer
already put in the file is not written again, and a tail without its
line end (a worker killed inside its write: the lock dies with it) is
cut off before the next line. So the file holds each episode exactly
once whatever the retries, and the same resume logic as ``knoblab
eval`` reads it. The lock lives in the core (``knoblab::eval::Output``),
so ``knoblab eval`` shards and these tasks exclude each other too.

A killed worker: the episodes it finished are in the file; Ray retries
its task (up to ``max_retries``), which skips them and plays the rest of
its chunk. With retries used up, the task is reported in ``failed`` and
calling :func:`evaluate` again with the same arguments plays what is
left.

The output file must be on a file system every node sees at the same
path (a shared mount), and one where ``flock`` works across nodes (local
disks, NFS with locking); the local tests use one machine.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

try:
    import ray as _ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "knoblab.ray needs Ray: pip install 'knoblab[ray]' (or pip install ray)"
    ) from e

from . import _knoblab
from ._eval import RUN_OPTIONS, PathLike, Progress, callback, run_kwargs, shipped

__all__ = ["evaluate"]


def _play_chunk(
    out: str,
    from_shipped: bool,
    select: List[int],
    kwargs: Dict[str, Any],
    send_to_env: Optional[str],
    on_event: Optional[Callable[[Dict[str, Any]], None]],
) -> Dict[str, Any]:
    """One Ray task: the core's runner on these plan positions."""
    send_to = None
    if send_to_env is not None:
        send_to = os.environ.get(send_to_env) or None
        if send_to is None:
            raise RuntimeError(
                f"send_to_env={send_to_env!r}: the variable is not set on node "
                f"{_ray.get_runtime_context().get_node_id()}; set it where `ray start` runs"
            )
    answer = json.loads(
        _knoblab.run_eval(
            out,
            from_shipped,
            select=select,
            send_to=send_to,
            progress=callback(on_event),
            full=False,
            **kwargs,
        )
    )
    answer["select"] = select
    answer["node"] = _ray.get_runtime_context().get_node_id()
    return answer


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
    """Run a plan's episodes as Ray tasks, into one shared output file.

    The options of the run are those of :func:`knoblab.evaluate` (the
    same names, the same defaults but ``concurrency``), and so is the
    output file: the same resume, the same refusal of another run's file.
    The result is that of :func:`knoblab.evaluate` on the finished file,
    plus what the tasks did.

    Parameters
    ----------
    out : str or os.PathLike
        The output file, at a path every node sees (a shared mount).
    bundles : path or sequence of paths, optional
        As in :func:`knoblab.evaluate`; on a cluster, at the same path on
        every node (the shipped library, the default, is in the wheel).
    address : str, optional
        Passed to :func:`ray.init` when Ray is not initialised yet (e.g.
        ``"auto"`` or ``"ray://head:10001"``); ``None`` starts or joins
        as :func:`ray.init` does by itself.
    chunk : int
        Plan items per task (1: one episode a task).
    max_retries : int
        Ray's retries of a task whose worker died.
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
        a callable gets each task's answer (a dict).
    concurrency : int
        Episodes in flight per task (threads of the core's runner).
    **options
        The run's options, named as in :func:`knoblab.evaluate`.

    Returns
    -------
    dict
        As :func:`knoblab.evaluate` returns (``records``, ``metrics``,
        ``left``, ...: of the whole file), with ``ran`` the episodes the
        tasks finished, ``tasks`` the number of tasks sent and ``failed``
        a list of ``{"select", "error"}`` for tasks that failed after
        their retries (their episodes are in ``left``: call again).

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
    done = set(state["done"])
    todo = [i for i in range(len(state["items"])) if i not in done]
    chunks = [todo[i : i + chunk] for i in range(0, len(todo), chunk)]

    task = _ray.remote(_play_chunk).options(
        max_retries=max_retries, num_cpus=num_cpus, resources=resources or {}
    )
    refs = {
        task.remote(path, from_shipped, select, kwargs, send_to_env, on_event): select
        for select in chunks
    }
    ran = 0
    failed: List[Dict[str, Any]] = []
    pending = list(refs)
    try:
        while pending:
            ready, pending = _ray.wait(pending, num_returns=1)
            for ref in ready:
                try:
                    answer = _ray.get(ref)
                except Exception as e:  # a task that failed after its retries
                    failed.append({"select": refs[ref], "error": str(e)})
                    if progress == "stderr":
                        print(f"knoblab: task {refs[ref]} failed: {e}", file=sys.stderr)
                    continue
                ran += answer["ran"]
                if progress == "stderr":
                    print(
                        f"knoblab: task {answer['select']} on {answer['node'][:8]}: "
                        f"{answer['ran']} episodes",
                        file=sys.stderr,
                    )
                elif callable(progress):
                    progress(answer)
    except KeyboardInterrupt:
        # The tasks stop as `knoblab eval` stops on Ctrl-C: what they
        # finished is in the file, the rest runs on the next call.
        for ref in pending:
            _ray.cancel(ref)
        raise

    # The whole file, read by the core on the driver (nothing is played).
    result = json.loads(_knoblab.run_eval(path, from_shipped, select=[], **kwargs))
    result["ran"] = ran
    result["tasks"] = len(chunks)
    result["failed"] = failed
    return result
