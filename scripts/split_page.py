#!/usr/bin/env python3
"""Trunk post_build hook (first of three): splits the page's module.

The release builds the page with the cargo feature `split` (index.html), so
the Agent, Score and Leaderboard pages are split points (src/app.rs) and the
linker keeps its relocations (build.rs). Trunk 0.21 has no step between
cargo and wasm-bindgen, so this hook redoes the page's part after it, from
cargo's own output:

1. `wasm-split-cli` cuts cargo's module into a main module and one chunk per
   split point (and chunks for the code two of them share), with a small
   loader, `__wasm_split.js`, that fetches a chunk the first time its point
   is called;
2. `wasm-bindgen --keep-lld-exports` makes the main module's glue (the
   chunks import the main module's table and memory through those exports);
3. `wasm-opt -Os` shrinks the main module and every chunk, as Trunk would;
4. the results replace Trunk's page files under Trunk's hashed name
   (`knoblab-page-HASH.js`, `…_bg.wasm`, the page's snippets), beside
   `knoblab-page-HASH.split.js` (the loader) and `knoblab-page-HASH.NAME.wasm`
   (the chunks), and index.html's subresource hashes are recomputed;
5. the loader takes a chunk already compiled when one was posted to it (the
   Score page's workers run this module too, and the page posts them the
   job's chunks compiled once), and index.html names the glue and those
   chunks in two <meta> tags for the page to read (src/worker,
   src/browser/module_worker.rs).

Every name is relative (the loader resolves chunks against its own URL), so
the folder still runs at any path; every name carries the build's hash, so
a browser never pairs a chunk with another release's main module.
"""

import base64
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = "knoblab-page"
PROFILE = "page"  # index.html's data-cargo-profile
TARGET = "wasm32-unknown-unknown"
# The import module of a split point before the split step resolves it.
PLACEHOLDER = b"__wasm_split_placeholder__"
# The <meta> that names the page's glue (`knoblab-page-HASH.js`) in index.html.
GLUE_META = "knoblab-page-glue"
# The split points that each kind of worker calls first (the page's
# src/worker), by the <meta> that lists their chunks (each with the chunks it
# needs): the page downloads and compiles those once and posts them to every
# such worker, so that two workers starting together do not each download
# them. The Score page's workers, the device drawer, the Leaderboard's.
WORKER_SPLITS = {
    "knoblab-score-chunks": ("score_job",),
    "knoblab-device-chunks": ("draw_device",),
    "knoblab-board-chunks": ("board",),
}
# Put before the split loader: a chunk posted compiled (a worker's
# `globalThis.knoblabChunks`, by absolute URL) is instantiated from it; any
# other is downloaded as the loader does.
LOADER_PRELUDE = """// scripts/split_page.py: a chunk the page posted compiled (a worker's
// globalThis.knoblabChunks, by URL) is not downloaded again.
const knoblabChunk = (url) => {
    const compiled = globalThis.knoblabChunks?.get(url.href);
    return compiled ? Promise.resolve(compiled) : fetch(url);
};
const knoblabInstantiate = async (src, imports) => {
    const got = await src;
    return got instanceof WebAssembly.Module ? WebAssembly.instantiate(got, imports) : WebAssembly.instantiateStreaming(got, imports);
};
"""
# A chunk's name beside the page: the glue's stem (`knoblab-page-HASH`), then
# the chunk's own name (release.py keeps these in the background).
CHUNK_NAME = re.compile(rf"{PAGE}-[0-9a-f]+\.[A-Za-z0-9_]+\.wasm")
# What the main module and chunks use (.cargo/config.toml: simd128); as Trunk's wasm-opt.
WASM_OPT = ["-Os", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-simd",
            "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types"]


def fail(message):
    sys.exit(f"split_page.py: {message}")


def run(*command):
    try:
        subprocess.run(command, check=True)
    except FileNotFoundError:
        fail(f"{command[0]} is not installed; `scripts/dev.sh setup` installs it")
    except subprocess.CalledProcessError as err:
        fail(f"{' '.join(map(str, command))} failed with status {err.returncode}")


def wasm_opt():
    """The wasm-opt Trunk uses: npm's binaryen at the version Trunk.toml pins
    (Debian's older wasm-opt builds a page that stays blank)."""
    with open(ROOT / "Trunk.toml", "rb") as f:
        pinned = tomllib.load(f)["tools"]["wasm_opt"]
    local = ROOT / "node_modules" / ".bin" / "wasm-opt"
    tool = str(local) if local.exists() else "wasm-opt"
    try:
        found = subprocess.run([tool, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    except (FileNotFoundError, subprocess.CalledProcessError):
        fail(f"{tool} does not run; `scripts/dev.sh setup` installs npm's binaryen")
    if f"({pinned})" not in found:
        fail(f"{tool} is `{found}`, not binaryen {pinned} (Trunk.toml); `scripts/dev.sh setup` installs it")
    return tool


def target_dir():
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                         check=True, capture_output=True, text=True).stdout
    return pathlib.Path(json.loads(out)["target_directory"])


def sri(path):
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()


def needed(loader, splits):
    """The chunk files that the split points `splits` load (each point's own
    and those it needs), read from the split loader."""
    files = dict(re.findall(r'const (__chunk_\d+) = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\./([^"]+\.wasm)"', loader))
    out = []
    for split in splits:
        found = re.search(rf'export const __wasm_split_load_{split} = wrapAsyncCb\(makeLoad\(\(\) => \{{\s*'
                          rf'const src = fetch\(new URL\("\./([^"]+\.wasm)".*?\}}\s*,\s*\[([^\]]*)\]\)\)', loader, re.S)
        if not found:
            fail(f"the split loader has no split point {split} (the page's src/worker)")
        out.append(found.group(1))
        for dep in filter(None, (d.strip() for d in found.group(2).split(","))):
            if dep not in files:
                fail(f"the split loader's {split} needs {dep}, which it does not define")
            out.append(files[dep])
    return sorted(set(out))


def main():
    staging = os.environ.get("TRUNK_STAGING_DIR")
    if not staging:
        fail("TRUNK_STAGING_DIR is not set; run it as a Trunk post_build hook")
    staging = pathlib.Path(staging)
    glue = [p for p in staging.glob(f"{PAGE}-*.js") if re.fullmatch(rf"{PAGE}-[0-9a-f]+\.js", p.name)]
    if len(glue) != 1:
        fail(f"expected one {PAGE}-HASH.js in {staging}, found {[p.name for p in glue]}")
    stem = glue[0].name[:-len(".js")]

    work = target_dir() / "knoblab-split"
    raw = target_dir() / TARGET / PROFILE / f"{PAGE}.wasm"
    if not raw.is_file():
        fail(f"{raw} is missing: the page is built by the cargo profile `{PROFILE}` (index.html)")
    if PLACEHOLDER not in raw.read_bytes():
        fail(f"{raw} has no split points: build it with the cargo feature `split` (index.html)")
    shutil.rmtree(work, ignore_errors=True)
    split, bound = work / "split", work / "bound"
    run("wasm-split-cli", "--target", "web", "--out-name", PAGE, raw, split)
    run("wasm-bindgen", "--target", "web", "--no-typescript", "--keep-lld-exports",
        "--out-dir", bound, "--out-name", PAGE, split / f"{PAGE}.wasm")

    # The main module and its glue, under Trunk's names.
    optimizer = wasm_opt()
    run(optimizer, *WASM_OPT, bound / f"{PAGE}_bg.wasm", "-o", staging / f"{stem}_bg.wasm")
    # The loader's module specifier changes; the import module's name, the
    # key of the imports object, stays what the main module asks for.
    main_js = (bound / f"{PAGE}.js").read_text(encoding="utf-8")
    if 'from "./__wasm_split.js"' not in main_js:
        fail("wasm-bindgen's glue does not import the split loader; is the page built with `split`?")
    main_js = main_js.replace('from "./__wasm_split.js"', f'from "./{stem}.split.js"')
    (staging / f"{stem}.js").write_text(main_js, encoding="utf-8")
    for old in staging.glob(f"snippets/{PAGE}-*"):
        shutil.rmtree(old)
    for new in (bound / "snippets").iterdir():
        shutil.copytree(new, staging / "snippets" / new.name)

    # The chunks and their loader.
    loader = (split / "__wasm_split.js").read_text(encoding="utf-8")
    if f'"./{PAGE}.js"' not in loader:
        fail("the split loader does not import the page's glue by its expected name")
    loader = loader.replace(f'"./{PAGE}.js"', f'"./{stem}.js"')
    chunks = sorted(p for p in split.glob("*.wasm") if p.name != f"{PAGE}.wasm")
    optimized = []
    for chunk in chunks:
        name = f"{stem}.{chunk.stem}.wasm"
        if not CHUNK_NAME.fullmatch(name):
            fail(f"{chunk.name}: a chunk name release.py would not recognise ({name})")
        if f'"./{chunk.name}"' not in loader:
            fail(f"the split loader does not name {chunk.name}")
        loader = loader.replace(f'"./{chunk.name}"', f'"./{name}"')
        optimized.append((chunk, staging / name))
    # The chunks are many (most under a kilobyte): optimized side by side.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(lambda pair: run(optimizer, *WASM_OPT, pair[0], "-o", pair[1]), optimized))
    worker_chunks = {meta: needed(loader, splits) for meta, splits in WORKER_SPLITS.items()}
    loader, fetches = re.subn(r'fetch\((new URL\("\./[^"]+\.wasm", import\.meta\.url\))\)', r"knoblabChunk(\1)", loader)
    loader, streams = re.subn(r"WebAssembly\.instantiateStreaming\(src, imports\)", "knoblabInstantiate(src, imports)", loader)
    if fetches != len(chunks) or streams != len(chunks):
        fail(f"the split loader fetches {fetches} and instantiates {streams} of {len(chunks)} chunks the expected way")
    loader = LOADER_PRELUDE + loader
    (staging / f"{stem}.split.js").write_text(loader, encoding="utf-8")

    # index.html's subresource hashes, for the files just replaced.
    page = staging / "index.html"
    html = page.read_text(encoding="utf-8")

    def rehash(match):
        target = staging / match.group(2)
        if not target.is_file():
            fail(f"index.html links {match.group(2)}, which the split build does not have")
        return f'{match.group(1)}{match.group(2)}{match.group(3)}{sri(target)}"'

    html, count = re.subn(r'(href="\./)([^"]+)("[^>]*?integrity=")sha384-[^"]+"', rehash, html)
    if count == 0:
        fail("index.html has no subresource hashes to recompute")
    # The loader preloaded beside the glue that imports it, as Trunk does for
    # the snippets, so that it does not wait for the glue to be parsed.
    glue_link = re.search(rf'<link rel="modulepreload" href="\./{re.escape(stem)}\.js"[^>]*>', html)
    if not glue_link:
        fail(f"index.html does not preload {stem}.js")
    loader_link = (f'\n<link rel="modulepreload" href="./{stem}.split.js" crossorigin="anonymous" '
                   f'integrity="{sri(staging / f"{stem}.split.js")}">')
    html = html[:glue_link.end()] + loader_link + html[glue_link.end():]
    # The glue's name and each kind of worker's chunks, for the workers,
    # which run this module too (the page's src/browser/module_worker.rs).
    if "</head>" not in html:
        fail("index.html has no </head>")
    metas = f'<meta name="{GLUE_META}" content="./{stem}.js">\n'
    for meta, names in worker_chunks.items():
        listed = " ".join(f"./{name}" for name in names)
        metas += f'<meta name="{meta}" content="{listed}">\n'
    html = html.replace("</head>", metas + "</head>", 1)
    page.write_text(html, encoding="utf-8")
    print(f"split_page.py: {stem}: main module and {len(chunks)} chunks")


if __name__ == "__main__":
    main()
