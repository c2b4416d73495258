#!/usr/bin/env bash
# KnobLab's build and test driver. The Makefile's targets call it; so can you:
#   scripts/dev.sh setup | serve | build | dist | test | native | python | wasm-test | e2e | lint | fuzz
# Every install step checks first and skips what is present, so a second run
# starts in seconds. Nothing is downloaded from outside the package registries:
# Trunk is pointed at the wasm-bindgen and wasm-opt installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

# Newest Trunk whose rust-version fits this machine's rustc 1.95 (0.22.x needs 1.96.1).
TRUNK_VERSION=0.21.14
# wasm-bindgen-cli must equal the wasm-bindgen that Cargo.lock pins.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
# The page's split step (scripts/split_page.py): wasm-split-cli, from the crate
# registry, at the version tried with Leptos 0.8's split points.
WASM_SPLIT_VERSION=0.2.4
PORT="${PORT:-8080}"

export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH" # npm's wasm-opt first
export TRUNK_SKIP_VERSION_CHECK=true
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"

step() { printf '\n==> %s\n' "$*"; }
has_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -qF "$2"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

setup_build() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    step "adding the wasm32 target"
    rustup target add wasm32-unknown-unknown
  fi
  setup_node
  if ! has_version trunk "trunk $TRUNK_VERSION"; then
    step "installing Trunk $TRUNK_VERSION (about 10 minutes on 2 cores, once)"
    # Trunk's own release profile (fat LTO, one codegen unit) takes 27 minutes here.
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install trunk --version "$TRUNK_VERSION" --locked --force
  fi
  if ! has_version wasm-bindgen "wasm-bindgen $WASM_BINDGEN_VERSION"; then
    step "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 6 minutes, once)"
    # Not --locked: the registry does not serve a dependency version its lockfile names.
    # --force: cargo may remember an install whose binary is gone or another version.
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi
  if ! cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:" \
    || ! command -v wasm-split-cli >/dev/null 2>&1; then
    step "installing wasm-split-cli $WASM_SPLIT_VERSION (about 2 minutes, once)"
    cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked --force
  fi
}

setup_node() {
  if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] \
    || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    step "installing npm packages (binaryen's wasm-opt, playwright-core)"
    npm ci --no-audit --no-fund
  fi
}

setup_test() {
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    step "installing Debian's chromium and chromium-driver"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

setup() {
  # apt runs beside the cargo installs; both are slow only on a fresh machine.
  setup_test & local apt_pid=$!
  setup_build
  wait "$apt_pid"
}

build() {
  step "building the page (trunk build --release)"
  trunk build --release
}

serve() {
  setup_build
  build
  step "serving dist/ at http://127.0.0.1:$PORT/ (Ctrl-C stops)"
  exec python3 -m http.server "$PORT" --bind 127.0.0.1 -d dist
}

# A clone of the repository alone must build and pass every test, so no
# tracked file may reach outside it for fixtures or specs (they live in
# tests/fixtures/ and docs/). The pattern is spelt in two pieces so this
# line does not match itself.
self_contained() {
  step "no tracked file refers to a folder beside the repository"
  local outside='\.\./''shared' hits
  if hits=$(git grep -n -a -e "$outside" -- . 2>/dev/null) && [ -n "$hits" ]; then
    printf '%s\n' "$hits" | head -n 20 >&2
    echo "dev.sh: lint: the lines above name a shared/ folder beside the repository, which a clone does not" \
      "have; copy what they need into tests/fixtures/ or docs/ and point them there." >&2
    return 1
  fi
}

lint() {
  self_contained
  step "cargo fmt --check"
  cargo fmt --all --check
  step "clippy, native (every crate of the workspace)"
  cargo clippy --workspace --all-targets -- -D warnings
  step "clippy, wasm32 (the page and its browser tests; the layers it uses)"
  cargo clippy --target wasm32-unknown-unknown -p knoblab-page --lib --bins --tests -- -D warnings
  step "clippy, wasm32: the release's page, with its split points (feature split)"
  cargo clippy --target wasm32-unknown-unknown -p knoblab-page --lib --bins --features split -- -D warnings
  step "clippy, each layer alone for wasm32 (what the page can load)"
  cargo clippy --target wasm32-unknown-unknown -p knoblab-core -p knoblab-score -p knoblab-eval \
    -p knoblab-devicegen -p knoblab-app --lib -- -D warnings
}

native() {
  step "native tests (every crate; natively the page is only its allocator)"
  cargo test
}

wasm_test() {
  step "browser tests (wasm-bindgen-test in headless Chromium)"
  cargo test --target wasm32-unknown-unknown -p knoblab-page --test web --test web_core --test hostile_web
  # Generated devices drawn in a worker: a debug build takes tens of seconds each.
  WASM_BINDGEN_TEST_TIMEOUT=900 cargo test --target wasm32-unknown-unknown -p knoblab-page --test web_generated
}

e2e() {
  build
  step "end-to-end tests (playwright-core driving /usr/bin/chromium)"
  # dist/ under a nested sub-path, on a free port (two checkouts can run side
  # by side), and a second origin for a page that embeds it (e2e/serve.mjs).
  local urls server
  urls=$(mktemp)
  node e2e/serve.mjs --dist dist --mount /a/b/c/ >"$urls" &
  server=$!
  trap 'kill "$server" 2>/dev/null || true; rm -f "$urls"' RETURN
  for _ in $(seq 100); do
    [ -s "$urls" ] && break
    sleep 0.1
  done
  local base host
  base=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["app"])' "$urls")
  host=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["host"])' "$urls")
  BASE_URL="$base" HOST_URL="$host" node --test --test-concurrency=1 e2e/
}

# The folder to upload: dist/, built once, runs unchanged at any path of a
# static host (docs/page.md, "Deploy").
dist() {
  setup_build
  build
  local version
  version=$(sed -n 's/.*<meta name="knoblab-release" content="\([0-9a-f]*\)".*/\1/p' dist/index.html)
  step "dist/ is release $version: upload the folder as it is, to any path (docs/page.md)"
  du -sh dist
}

# The Python package (bindings/python): a virtual environment with the
# registry's maturin, numpy, gymnasium, pytest, mypy (its stubtest checks
# the extension's stubs) and ray (pip's cache keeps a
# second run fast), the extension built with the `python` Cargo
# profile (opt-level 3, no LTO: see Cargo.toml) into target/python/, and
# pytest against the debug `knoblab` binary the native tests build.
PY_VENV="${PY_VENV:-target/py-venv}"
case "$PY_VENV" in /*) ;; *) PY_VENV="$PWD/$PY_VENV" ;; esac

setup_python() {
  if [ ! -x "$PY_VENV/bin/python" ]; then
    step "creating the Python virtual environment $PY_VENV"
    python3 -m venv "$PY_VENV"
  fi
  if ! { [ -x "$PY_VENV/bin/maturin" ] && "$PY_VENV/bin/python" -c 'import numpy, gymnasium, pytest, mypy'; } >/dev/null 2>&1; then
    step "installing maturin, numpy, gymnasium, pytest and mypy into $PY_VENV"
    "$PY_VENV/bin/pip" install --quiet --upgrade pip
    "$PY_VENV/bin/pip" install --quiet "maturin>=1.5,<2" numpy gymnasium pytest mypy
  fi
  # Ray, the package's [ray] extra, for tests/test_ray.py: about 15-25 s
  # the first time here (a 70 MB wheel and its dependencies), then kept.
  if ! "$PY_VENV/bin/python" -c 'import ray' >/dev/null 2>&1; then
    step "installing ray (the [ray] extra) into $PY_VENV"
    "$PY_VENV/bin/pip" install --quiet "ray>=2.9,<3"
  fi
}

python_test() {
  setup_python
  step "building and installing the Python package (pip install ./bindings/python, Cargo profile python)"
  # --no-build-isolation: the build uses the venv's maturin (on PATH) instead of fetching one.
  PATH="$PY_VENV/bin:$PATH" "$PY_VENV/bin/pip" install --quiet --no-build-isolation --force-reinstall --no-deps ./bindings/python
  step "the knoblab binary the parity tests compare with (debug)"
  cargo build --quiet --bin knoblab
  step "Python tests (pytest)"
  KNOBLAB_CLI="${CARGO_TARGET_DIR:-$PWD/target}/debug/knoblab" "$PY_VENV/bin/python" -m pytest -q bindings/python/tests
}

# Regenerates the device library (data/devices, data/library.json,
# data/library-sheet.png) from data/gen and data/ucsm, the manifest of
# the generated devices (data/generated.json; they are made on demand),
# their task list (data/generated-tasks.json), the library's version file
# (data/library-version.json: one version more when its content changed),
# the 26 per-category contact sheets (docs/sheets/<Category>.png) and
# the Python package's table of step limits (budgets.json).
library() {
  step "device library (knoblab library build)"
  cargo run --quiet --bin knoblab -- library build --out data
  step "generated devices' manifest, task list and cards, the library's version (knoblab library generate)"
  cargo run --quiet --bin knoblab -- library generate --out data
  step "per-category contact sheets (knoblab library sheet --all)"
  cargo run --quiet --bin knoblab -- library sheet --all --out docs/sheets
  # The Python package's step limits are of one library version (a test
  # checks it): remade from the package built with this library.
  setup_python
  step "the Python package's step limits (python -m knoblab._budgets)"
  PATH="$PY_VENV/bin:$PATH" "$PY_VENV/bin/pip" install --quiet --no-build-isolation --force-reinstall --no-deps ./bindings/python
  "$PY_VENV/bin/python" -m knoblab._budgets bindings/python/python/knoblab/budgets.json
}

# cargo-fuzz runs on a nightly toolchain (its coverage flags need one).
CARGO_FUZZ_VERSION=0.13.2
# Seconds each fuzz target runs in the smoke (8 targets: about a minute).
FUZZ_SECONDS="${FUZZ_SECONDS:-7}"

setup_fuzz() {
  if ! rustup toolchain list | grep -q '^nightly'; then
    step "installing a nightly toolchain for cargo-fuzz (rustup reaches the Rust dist server here)"
    if ! rustup toolchain install nightly --profile minimal; then
      echo "dev.sh: fuzz: no nightly toolchain, and 'rustup toolchain install nightly' failed;" \
        "the fuzz smoke did NOT run. Install one, or run without the fuzz step." >&2
      return 1
    fi
  fi
  if ! has_version cargo-fuzz "cargo-fuzz $CARGO_FUZZ_VERSION"; then
    step "installing cargo-fuzz $CARGO_FUZZ_VERSION (about 3 minutes, once)"
    cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION" --force
  fi
}

# The fuzz smoke: every target of fuzz/ for FUZZ_SECONDS, starting from its
# committed corpus (read only: new inputs go to fuzz/target/smoke/), no
# sanitizer (the core is safe Rust), debug assertions on (overflow checks).
# A crash fails the step and leaves its input in fuzz/artifacts/<target>/.
# Long runs: see docs/hardening.md.
fuzz() {
  setup_fuzz
  local target log scratch
  mkdir -p fuzz/logs
  for target in $(cargo +nightly fuzz list --fuzz-dir fuzz); do
    step "fuzzing $target for ${FUZZ_SECONDS}s"
    log="fuzz/logs/$target.log"
    scratch="fuzz/target/smoke/$target"
    mkdir -p "$scratch"
    if ! nice cargo +nightly fuzz run --fuzz-dir fuzz --sanitizer none --debug-assertions \
      "$target" "$scratch" "fuzz/corpus/$target" -- \
      -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 >"$log" 2>&1; then
      tail -n 40 "$log" >&2
      echo "dev.sh: fuzz: $target failed; the input is in fuzz/artifacts/$target/, the log in $log" >&2
      return 1
    fi
    grep -E '^stat::number_of_executed_units' "$log" || true
  done
}

case "${1:-}" in
  setup) setup ;;
  serve) serve ;;
  build) setup_build; build ;;
  dist) dist ;;
  lint) lint ;;
  native) native ;;
  python) python_test ;;
  wasm-test) wasm_test ;;
  e2e) e2e ;;
  library) library ;;
  fuzz) fuzz ;;
  # One statement each, not an && chain: inside a function called from a
  # chain, bash ignores errexit, so a failed step would be masked by the
  # next command of the same function.
  test) setup; lint; native; python_test; wasm_test; e2e; fuzz ;;
  *) echo "usage: $0 setup|serve|build|dist|test|lint|native|python|wasm-test|e2e|library|fuzz" >&2; exit 2 ;;
esac
