#!/usr/bin/env bash
# Where Meadow's ORCA step spends its time on RVO2's Circle (one thread), by perf sampling:
# the share of the samples in each phase of the step.
#
#   scripts/orca-profile.sh [AGENTS] [STEPS]     # defaults 5000 300; needs `perf`
#
# Phases are told apart by function (the release profile keeps symbols): the grid build, the
# neighbour memory's seed (inlined into the per-agent closure of the velocity phase, which
# also sets each agent up), the agent neighbour search (scan and selection), the obstacle
# neighbours, the ORCA lines and linear programs, and the rest (the Circle driver setting
# preferred velocities, the move phase, the thread pool, the kernel).
set -euo pipefail
cd "$(dirname "$0")/.."
agents=${1:-5000}
steps=${2:-300}
cargo build --release -q -p meadow-bench --bin vs_rvo2
bin=${CARGO_TARGET_DIR:-target}/release/vs_rvo2
data=$(mktemp)
trap 'rm -f "$data"' EXIT
perf record -q -o "$data" "$bin" --sizes "$agents" --steps "$steps" --rounds 1 --meadow-only --no-dodgy >/dev/null
perf report -i "$data" --no-children --sort sym --stdio -g none 2>/dev/null | awk '
  /%/ {
    share = $1; sub(/%/, "", share); sym = $0
    if (sym ~ /AgentGrid::build/) phase = "grid build"
    else if (sym ~ /NeighborMemory::seed/) phase = "agent neighbours: seed from last step"
    # The velocity phase'"'"'s per-agent closure, into which the seed is inlined.
    else if (sym ~ /Fn<A> for &F>::call/) phase = "per-agent setup and seed from last step"
    else if (sym ~ /agent_grid|slice::sort|smallsort/) phase = "agent neighbours: scan and selection"
    else if (sym ~ /ObstacleTree::neighbors/) phase = "obstacle neighbours"
    else if (sym ~ /compute_new_velocity|linear_program/) phase = "ORCA lines and linear programs"
    else phase = "other (driver, move phase, threads, kernel)"
    total[phase] += share
  }
  END { for (p in total) printf "%6.1f%%  %s\n", total[p], p }' | sort -rn
