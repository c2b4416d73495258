#!/usr/bin/env python3
"""Trunk post_build hook: puts the hash of each inline script into the
Content-Security-Policy of the built index.html.

Trunk injects one inline module script that imports the wasm-bindgen glue
and starts the app. Its text names the hashed file names, so it changes with
every build; a static page cannot use a nonce (no server writes one per
request), so the policy allows exactly this script by its SHA-256 instead.
index.html carries the placeholder {{INLINE_SCRIPT_HASHES}} in script-src;
without this hook the placeholder stays, no inline script matches, and the
page stays blank (a loud failure, not a silent weakening).
"""

import base64
import hashlib
import os
import pathlib
import re
import sys

PLACEHOLDER = "{{INLINE_SCRIPT_HASHES}}"
# An inline script: a <script> tag without src, up to its closing tag.
INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.DOTALL | re.IGNORECASE)


def main():
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        sys.exit("csp_hashes.py: TRUNK_STAGING_DIR is not set; run it as a Trunk post_build hook")
    page = pathlib.Path(staging) / "index.html"
    html = page.read_text(encoding="utf-8")
    if PLACEHOLDER not in html:
        sys.exit(f"csp_hashes.py: {page} has no {PLACEHOLDER} in its Content-Security-Policy")
    hashes = []
    for body in INLINE.findall(html):
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        hashes.append(f"'sha256-{digest}'")
    if not hashes:
        sys.exit(f"csp_hashes.py: {page} has no inline script; expected Trunk's loader")
    page.write_text(html.replace(PLACEHOLDER, " ".join(hashes)), encoding="utf-8")


if __name__ == "__main__":
    main()
