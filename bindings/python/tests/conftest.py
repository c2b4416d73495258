"""Shared fixtures: the repository's paths and the ``knoblab`` command line.

The command line is the parity target: ``KNOBLAB_CLI`` names its binary
(``scripts/dev.sh python`` builds ``target/debug/knoblab``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, List

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures"
DEVICES = ROOT / "data" / "devices"


def library_ids() -> List[str]:
    index = json.loads((ROOT / "data" / "library.json").read_text())
    return [d["id"] for d in index["devices"]]


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("KNOBLAB_CLI", str(ROOT / "target" / "debug" / "knoblab"))
    if not Path(path).is_file():
        pytest.fail(f"no knoblab binary at {path}: build it (cargo build --bin knoblab) or set KNOBLAB_CLI")
    return path


def run_cli(cli: str, *args: str) -> str:
    """The command's stdout; fails the test with its stderr if it fails."""
    out = subprocess.run([cli, *args], capture_output=True, text=True)
    assert out.returncode == 0, f"knoblab {' '.join(args)}: {out.stderr}"
    return out.stdout


def cli_json(cli: str, *args: str) -> Any:
    return json.loads(run_cli(cli, *args, "--json"))
