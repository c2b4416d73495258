#!/usr/bin/env python3
"""Seeds each fuzz target's corpus (fuzz/corpus/<target>/) from the repo's
fixtures, in the input form the target's harness reads (fuzz/harness.rs):
the first byte picks an option where the harness says so.

Run once before the first fuzzing run; the corpora committed since are the
fuzzed and minimised ones (`cargo fuzz cmin`), so this is only needed to
start over: `python3 fuzz/seed.py`.
"""

import base64
import hashlib
import io
import json
import pathlib
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OFFICIAL = FIXTURES / "official"  # the benchmarks' official runs
CORPUS = ROOT / "fuzz" / "corpus"
BUNDLES = ["lamp", "kettle", "kettle-panel"]


def put(target, data):
    """Writes one seed, named by its hash as libFuzzer names its own."""
    if isinstance(data, str):
        data = data.encode()
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def bundle_folders():
    yield from (FIXTURES / name for name in BUNDLES)
    # The broken bundles, one per validation rule, where they are small.
    for folder in sorted((FIXTURES / "broken").iterdir()):
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        if folder.is_dir() and size < 64 * 1024:
            yield folder


def single_json(folder):
    """The single-JSON form: the four files under their keys, view images as
    data URLs; None when a file is not JSON (a broken bundle's zip seeds that)."""
    parts = {}
    for key in ["manifest", "ssm", "views", "tasks"]:
        path = folder / f"{key}.json"
        try:
            parts[key] = json.loads(path.read_text()) if path.exists() else {}
        except json.JSONDecodeError:
            return None
    views = parts["views"] if isinstance(parts["views"], dict) else {}
    for view in views.values():
        image = folder / str(view.get("file", "")) if isinstance(view, dict) else folder
        if image.is_file():
            encoded = base64.b64encode(image.read_bytes()).decode()
            view["file"] = f"data:image/png;base64,{encoded}"
    return json.dumps(parts)


def zipped(folder, top=None):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(folder.rglob("*")):
            if f.is_file():
                name = f.relative_to(folder).as_posix()
                z.write(f, f"{top}/{name}" if top else name)
    return out.getvalue()


def bundles():
    for folder in bundle_folders():
        single = single_json(folder)
        if single is not None:
            put("bundle_json", single)
        put("bundle_zip", zipped(folder))
    put("bundle_zip", zipped(FIXTURES / "lamp", top="lamp"))


def actions():
    for text in [
        "Action: Press(coord=[780, 711])",
        "I will boil it.\nAction: push(coord=(780, 711), params=['1']).",
        "Rotate(coord=[10, 20], params=[90])",
        "Grasp(coord=[0, 1000])",
        "Pull(coord=[500.5, 499.5])",
        "Timed_wait()",
        "Switch_view(params=[top])",
        "Switch_view(coord=[12, 34])",
        "**Action:** `Press(coord=[1, 2])`",
        "Action:\n\nSwitchView(params=['front_top'])",
        "Click(coord=[1, 2])",
    ]:
        put("action", text)


def epic():
    for path in sorted((OFFICIAL / "epic" / "raw").rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            put("epic_formatter", b"\x00" + line.encode())
            put("epic_formatter", b"\x01" + line.encode())
    for path in sorted((OFFICIAL / "epic").rglob("*_rle.json")):
        if path.stat().st_size < 16 * 1024:
            put("epic_rle", path.read_bytes())
    for value in ['{"size": [3, 2], "counts": [1, 3, 2]}', '{"size": [5, 4], "counts": "12"}', "1231"]:
        put("epic_rle", value)


def finestate():
    cases = json.loads((OFFICIAL / "finestate" / "parse_cases.json").read_text())
    for n, case in enumerate(cases["cases"]):
        model = case.get("model_name")
        pick = {None: 0, "OS-Atlas-Pro-7B": 2, "UGround-V1-7B": 4, "Qwen2-VL-7B": 6}.get(model, n % 12)
        put("finestate_parser", bytes([pick | (n & 1)]) + case["response"].encode())
    dataset = OFFICIAL / "finestate" / "dataset"
    files = sorted(f for f in dataset.rglob("*") if f.is_file())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in files:
            # Images need only exist: keep them empty, as the loader does.
            data = f.read_bytes() if f.suffix in (".json", ".jsonl") else b""
            z.writestr(f"dataset/{f.relative_to(dataset).as_posix()}", data)
    put("finestate_loaders", b"\x00" + out.getvalue())
    for f in files:
        if f.suffix == ".jsonl":
            put("finestate_loaders", b"\x01" + f.read_bytes())
            put("finestate_loaders", b"\x06" + f.read_bytes())
    for name in ["predictions.json", "example_official_result_file.json"]:
        put("finestate_loaders", b"\x03" + (OFFICIAL / "finestate" / name).read_bytes())


def switch():
    for line in (FIXTURES / "switch" / "pred.jsonl").read_text().splitlines():
        record = json.loads(line)
        reply = record.get("response")
        if isinstance(reply, str):
            for pick in range(4):
                put("switch_extract", bytes([pick]) + reply.encode())
    for answer in ['"B"', '["A", "C"]', '"The answer is (C)"', '{"answer": "D"}']:
        put("switch_extract", b"\x01" + answer.encode())


def detect():
    """Results and ground-truth files the scoring page detects, small ones
    whole and larger ones cut to their first 8 KiB (detection reads the
    start); the first byte picks the extension (harness::detect)."""
    names = {".jsonl": 0, ".json": 1, ".zip": 2, ".png": 3}
    roots = [OFFICIAL / "epic", OFFICIAL / "finestate", FIXTURES / "switch"]
    for root in roots:
        for path in sorted(root.rglob("*")):
            pick = names.get(path.suffix)
            if path.is_file() and pick is not None:
                put("detect", bytes([pick]) + path.read_bytes()[: 8 * 1024])


if __name__ == "__main__":
    bundles()
    actions()
    epic()
    finestate()
    switch()
    detect()
    for folder in sorted(CORPUS.iterdir()):
        files = list(folder.iterdir())
        print(f"{folder.name}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")
