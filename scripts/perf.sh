#!/usr/bin/env bash
# The figures of docs/performance.md, from one command (`make perf`):
# builds the CLI as users get it (`--profile cli`), makes the inputs
# (seeded, so they are the same on every machine), times each command
# ROUNDS times under /usr/bin/time and prints one Markdown table: the
# median user + system CPU time, the median wall time, the largest peak
# memory, the threads the command uses, and what the figure is against.
# The machine it ran on heads the table.
#
#   scripts/perf.sh            # every figure, full size (about 15 minutes on 2 cores)
#   scripts/perf.sh --quick    # the same commands on small inputs (a smoke run)
#
# Output: the table on stdout and in target/perf/figures.md; each run's
# /usr/bin/time record in target/perf/logs/.
set -euo pipefail
cd "$(dirname "$0")/.."

QUICK=0
[ "${1:-}" = "--quick" ] && QUICK=1
ROUNDS="${ROUNDS:-3}"
[ "$QUICK" = 1 ] && ROUNDS=1
OUT=target/perf
mkdir -p "$OUT/logs"
ROOT="$PWD"

say() { echo "perf.sh: $*" >&2; }

if [ ! -x /usr/bin/time ]; then
  say "/usr/bin/time is missing (Debian package: time)"
  exit 1
fi

say "building the CLI (--profile cli)"
cargo build --quiet --profile cli -p knoblab-cli --bin knoblab
KNOBLAB="$ROOT/target/cli/knoblab"

# --- inputs -------------------------------------------------------------------
EPIC="$OUT/epic-synthetic"
if [ "$QUICK" = 1 ]; then EPIC="$OUT/epic-synthetic-quick"; fi
if [ ! -f "$EPIC/raw.jsonl" ]; then
  say "making the synthetic EPIC-Bench set in $EPIC"
  if [ "$QUICK" = 1 ]; then
    cargo run --quiet --release -p knoblab-score --example epic_synthetic -- "$EPIC" 0.05
  else
    cargo run --quiet --release -p knoblab-score --example epic_synthetic -- "$EPIC"
  fi
fi

RUNS="$OUT/runs"
[ "$QUICK" = 1 ] && RUNS="$OUT/runs-quick"
IDS=$(python3 -c "import json; print(','.join(d['id'] for d in json.load(open('data/library.json'))['devices']))")
if [ "$QUICK" = 1 ]; then IDS=$(echo "$IDS" | cut -d, -f1-4); fi
mkdir -p "$RUNS"

# --- timing -------------------------------------------------------------------
ROWS=()
# figure NAME THREADS AGAINST -- COMMAND...: runs COMMAND ROUNDS times
# (stdout to /dev/null) and adds a row.
figure() {
  local name="$1" threads="$2" against="$3"
  shift 4
  local cpus=() walls=() peak=0 i log
  for i in $(seq 1 "$ROUNDS"); do
    log="$OUT/logs/$(echo "$name" | tr -c 'A-Za-z0-9' '-')-$i.txt"
    /usr/bin/time -f '%U %S %e %M' -o "$log" "$@" > /dev/null
    read -r user sys wall kb < "$log"
    cpus+=("$(python3 -c "print(f'{$user + $sys:.2f}')")")
    walls+=("$wall")
    [ "$kb" -gt "$peak" ] && peak="$kb"
  done
  local cpu wall
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  wall=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  ROWS+=("| $name | $cpu s | $wall s | $((peak / 1024)) MiB | $threads | $against |")
  say "$name: $cpu s CPU, $wall s wall, $((peak / 1024)) MiB"
}

EPIC_N=$(wc -l < "$EPIC/raw.jsonl")
figure "knoblab score epic --json, $EPIC_N samples" 1 \
  "the official formatter + scorer: 56.4 s CPU side by side (docs/performance.md; not in this repository)" -- \
  "$KNOBLAB" score epic --gt "$EPIC/gt" --pred "$EPIC/raw.jsonl" --json

figure "knoblab score finestate --json, the shipped sample" 1 "—" -- \
  "$KNOBLAB" score finestate --gt tests/fixtures/official/finestate/dataset \
  --pred data/samples/finestate/predictions.jsonl --model google/gemini-2.5-flash --json

figure "knoblab score switch --json, the test fixture" 1 "—" -- \
  "$KNOBLAB" score switch --gt tests/fixtures/switch/gt --pred tests/fixtures/switch/pred.jsonl --json

DEVICES=$(echo "$IDS" | tr ',' '\n' | wc -l)
figure "knoblab eval --agent oracle, $DEVICES hand-described devices" "4 (episodes in flight)" "—" -- \
  sh -c 'rm -f "$1/oracle.jsonl" && "$2" eval --agent oracle --devices "$3" --library data/library.json --out "$1/oracle.jsonl" --quiet' \
  sh "$RUNS" "$KNOBLAB" "$IDS"
EPISODES=$(grep -c . "$RUNS/oracle.jsonl")
figure "knoblab metrics --json, $EPISODES oracle episodes" 1 "—" -- \
  "$KNOBLAB" metrics "$RUNS/oracle.jsonl" --bundles data/devices --json

# The leaderboard: ten runs mixed from the oracle and three random runs.
for s in 1 2 3; do
  [ -f "$RUNS/random$s.jsonl" ] || "$KNOBLAB" eval --agent random --seed "$s" --devices "$IDS" \
    --library data/library.json --out "$RUNS/random$s.jsonl" --quiet
done
if [ ! -f "$RUNS/runs/run09.jsonl" ]; then
  say "making ten runs for the leaderboard"
  (cd "$RUNS" && LEADERBOARD_EPISODES=$([ "$QUICK" = 1 ] && echo 400 || echo 16000) \
    python3 "$ROOT/scripts/leaderboard_runs.py")
fi
TOTAL=$(cat "$RUNS"/runs/run*.jsonl | grep -c .)
figure "knoblab leaderboard, 10 runs, $TOTAL episodes, 1,000 resamples" 1 "—" -- \
  "$KNOBLAB" leaderboard "$RUNS"/runs/run*.jsonl --library data/library.json --resamples 1000 --seed 1

# --- the table ----------------------------------------------------------------
{
  echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') at commit $(git rev-parse --short HEAD) by \`scripts/perf.sh$([ "$QUICK" = 1 ] && echo ' --quick')\`."
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB of memory, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Each command ran $ROUNDS time(s); CPU is user + system (median), wall the median, memory the largest peak (max RSS)."
  echo
  echo "| command | CPU | wall | peak memory | threads | against |"
  echo "|---|---:|---:|---:|---|---|"
  printf '%s\n' "${ROWS[@]}"
} | tee "$OUT/figures.md"
