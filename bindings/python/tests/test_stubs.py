"""The type stubs match the built module: ``mypy.stubtest`` on the
package (the native half's ``_knoblab.pyi`` against ``knoblab._knoblab``
as built, and the pure-Python modules against themselves)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
ALLOWLIST = Path(__file__).with_name("stubtest-allowlist.txt")


def test_stubtest_finds_no_difference():
    pytest.importorskip("mypy", reason="scripts/dev.sh setup_python installs mypy")
    out = subprocess.run(
        [
            sys.executable, "-m", "mypy.stubtest", "knoblab",
            "--mypy-config-file", str(PYPROJECT),
            "--allowlist", str(ALLOWLIST), "--ignore-unused-allowlist",
        ],  # fmt: skip
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_package_is_marked_typed():
    import importlib.resources

    assert importlib.resources.files("knoblab").joinpath("py.typed").is_file()
