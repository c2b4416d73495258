"""The step limits of the registered ids ``knoblab/<device>``.

Each id's ``max_episode_steps`` is the device's largest global budget at
the default λ = 5: the most steps any of its tasks allows (λ · Σ C_opt,
which the core computes at each reset), so Gymnasium's ``TimeLimit`` never
cuts an episode the device would have let go on. Computing them means
making every generated device, so they are computed once per library
version and kept beside this module (``budgets.json``, with the library's
version and hash, which a test checks against the shipped library)::

    python -m knoblab._budgets [PATH]   # writes the table (about 2.5 min of CPU: every generated device is made)

PATH defaults to the installed module's own ``budgets.json``; the
repository's copy is ``bindings/python/python/knoblab/budgets.json``,
which ``scripts/dev.sh library`` rewrites after rebuilding the library.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, Optional

TABLE = Path(__file__).with_name("budgets.json")
#: The λ of the table (the environments' default).
LAMBDA = 5


def load() -> Dict[str, int]:
    """The table: ``{device id: max_episode_steps}`` (empty if it is missing)."""
    try:
        return {k: int(v) for k, v in json.loads(TABLE.read_text())["budgets"].items()}
    except (OSError, ValueError, KeyError):
        return {}


def compute(devices: Optional[Iterable[str]] = None) -> Dict[str, int]:
    """The largest global budget at λ = 5 of each device (default: every
    device of the shipped library), from the core's resets."""
    from . import _knoblab
    from .env import KnobLabEnv

    ids = list(devices) if devices is not None else _knoblab.shipped_device_ids()
    out: Dict[str, int] = {}
    for device in ids:
        env = KnobLabEnv(device, lam=LAMBDA, picture=False, render_mode=None)
        out[device] = max(
            int(env.reset(options={"task": t["id"]})[1]["budget_global_total"]) for t in env.tasks
        )
    return out


def main(out: Path = TABLE) -> None:
    """Writes the table of the shipped library to ``out``."""
    from . import library_version

    budgets = compute()
    table: Dict[str, Any] = {
        "format": "knoblab-budgets/1",
        "lambda": LAMBDA,
        "library": library_version(),
        "budgets": budgets,
    }
    out.write_text(json.dumps(table, indent=0, sort_keys=False) + "\n")
    print(f"{out}: {len(budgets)} devices", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else TABLE)
