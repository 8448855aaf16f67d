#!/usr/bin/env bash
# Runs the test binaries of the crates that hold the unsafe code
# (dynd-types: a type in one word; dynd-array: memory blocks, arrays,
# views; dynd-kernels: the kernel builder, the loop engine, kernels) under
# valgrind.
# Any memory error or definite leak fails the run.
#
#   scripts/valgrind.sh            # all of dynd-types', dynd-array's and dynd-kernels' tests
#   scripts/valgrind.sh builder    # only the jobs (binary.module) whose name contains "builder"
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-}"

command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)"; exit 2; }

mapfile -t bins < <(
  cargo test -p dynd-types -p dynd-array -p dynd-kernels --all-features --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])
'
)

# Random cases: valgrind checks memory, not values (the normal test runs
# check those with the full counts), and each case walks the same unsafe
# paths, so a few dozen per property serve here at a twentieth of the cost.
export PROPTEST_CASES="${PROPTEST_CASES:-24}" DYND_ROBUST_CASES="${DYND_ROBUST_CASES:-200}"

# Valgrind runs a program on one core: the work is split into jobs, one
# per test module of each binary (the integration tests are one binary of
# many modules), run side by side, one per core (VALGRIND_JOBS to change),
# each logging to its own file, printed whole when it ends.
jobs="${VALGRIND_JOBS:-$(nproc 2>/dev/null || echo 2)}"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Each job: a binary and a file of the test names it runs (one module's).
# The slowest modules first (measured: reduce ~5 min, moments ~3,
# ragged_elwise ~3, ragged_segments ~2), so that the short ones fill the
# other core around them.
mapfile -t job_files < <(
  for bin in "${bins[@]}"; do
    "$bin" --list --format terse 2>/dev/null | sed -n 's/: test$//p' |
      BIN="$bin" LOGS="$logs" python3 -c '
import os, sys
bin, logs = os.environ["BIN"], os.environ["LOGS"]
groups = {}
for name in sys.stdin.read().split():
    groups.setdefault(name.split("::")[0], []).append(name)
for module, names in groups.items():
    path = os.path.join(logs, "%s.%s.job" % (os.path.basename(bin), module))
    with open(path, "w") as f:
        f.write(bin + "\n" + "\n".join(names) + "\n")
    print(path)
'
  done
)
ordered=()
for slow in reduce moments ragged_elwise ragged_segments elwise; do
  for job in "${job_files[@]}"; do
    [[ "$job" == *".$slow.job" ]] && ordered+=("$job")
  done
done
for job in "${job_files[@]}"; do
  [[ " ${ordered[*]} " == *" $job "* ]] || ordered+=("$job")
done

run_one() {
  local job=$1 bin name start
  mapfile -t lines < "$job"
  bin=${lines[0]}
  name=$(basename "$job" .job)
  start=$SECONDS
  {
    echo "== valgrind $name"
    if valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite "$bin" --exact "${lines[@]:1}" --test-threads=1 -q; then
      echo "   ($((SECONDS - start)) s)"
    else
      echo "!! valgrind reported errors in $name ($((SECONDS - start)) s)"
      touch "$logs/failed"
    fi
  } > "$logs/$name.log" 2>&1
  cat "$logs/$name.log"
}

status=0
running=0
for job in "${ordered[@]}"; do
  name=$(basename "$job" .job)
  if [ -n "$filter" ] && [[ "$name" != *"$filter"* ]]; then continue; fi
  run_one "$job" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
if [ -e "$logs/failed" ]; then
  status=1
fi
# A panic inside a user function (serial, parallel, transposed, ragged,
# reduction loops) must leave no leak or double free: dynd-arrfunc's panic
# tests, then more calls, under valgrind.
if [ -z "$filter" ] || [[ "panics_threads" == *"$filter"* ]]; then
  panics_bin=$(
    cargo test -p dynd-arrfunc --test it --no-run --message-format=json 2>/dev/null |
      python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])
'
  )
  echo "== valgrind $(basename "$panics_bin") a_panic"
  if ! valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
      --show-leak-kinds=definite "$panics_bin" panics_threads::a_panic --test-threads=1 -q; then
    echo "!! valgrind reported errors in panics_threads"
    status=1
  fi
fi
exit $status
