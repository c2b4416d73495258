#!/usr/bin/env python3
"""Trunk post_build hook (after csp_hashes.py): names the release.

The release's version is the first 12 hex digits of a SHA-256 over every
built file (its path and bytes, in path order), so two builds of the same
sources have the same version and any change makes a new one. It is
written
- into index.html's <meta name="knoblab-release"> (the About page shows it),
- into sw.js, with the list of files the service worker keeps on install
  (the app shell and the library's index), so a new release is a new
  service worker with a new cache, and the list it keeps in the
  background after that (the page's chunks: the pages', the scorers', the
  generator's and the leaderboard's, which no route needs before it is
  usable, so that a dropped file scores and a generated device is drawn
  offline after one visit; issue #46).
"""

import hashlib
import os
import pathlib
import sys

# The page's chunks (the Agent, Score and Leaderboard pages' code, the
# scorers, the generator and the leaderboard), named by
# split_page.py, are kept in the background too; the page's main module, glue
# and the chunks' loader are the shell.
from split_page import CHUNK_NAME

VERSION = "{{KNOBLAB_VERSION}}"
PRECACHE = "'{{KNOBLAB_PRECACHE}}'"
BACKGROUND = "'{{KNOBLAB_BACKGROUND}}'"
# Beside the top-level files and snippets/: what every route needs from data/.
DATA_SHELL = [
    "data/library.json",
    "data/generated.json",
    "data/library-version.json",
    "data/samples/index.json",
]


def main():
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        sys.exit("release.py: TRUNK_STAGING_DIR is not set; run it as a Trunk post_build hook")
    root = pathlib.Path(staging)
    page, worker = root / "index.html", root / "sw.js"
    marks = ((page, VERSION), (worker, VERSION), (worker, PRECACHE), (worker, BACKGROUND))
    for f, mark in marks:
        if mark not in f.read_text(encoding="utf-8"):
            sys.exit(f"release.py: {f} has no {mark}")
    files = sorted(p for p in root.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for f in files:
        rel = f.relative_to(root).as_posix()
        digest.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    version = digest.hexdigest()[:12]
    shell = ["./"]
    background = []
    for f in files:
        rel = f.relative_to(root).as_posix()
        top = "/" not in rel and rel not in ("index.html", "sw.js")
        if top and CHUNK_NAME.fullmatch(rel):
            background.append(rel)
        elif top or rel.startswith("snippets/"):
            shell.append(rel)
    if not background:
        sys.exit("release.py: the build has no chunks of the page's module (split_page.py writes them)")
    for rel in DATA_SHELL:
        if not (root / rel).is_file():
            sys.exit(f"release.py: {rel} is missing from the build")
        shell.append(rel)
    listed = ", ".join(f"'{p}'" for p in shell)
    later = ", ".join(f"'{p}'" for p in background)
    page.write_text(page.read_text(encoding="utf-8").replace(VERSION, version), encoding="utf-8")
    text = worker.read_text(encoding="utf-8").replace(VERSION, version).replace(PRECACHE, listed).replace(BACKGROUND, later)
    worker.write_text(text, encoding="utf-8")
    print(
        f"release.py: version {version}, {len(shell)} files kept for offline use on install,"
        f" {len(background)} after it in the background"
    )


if __name__ == "__main__":
    main()
