#!/usr/bin/env bash
# Bakes each level given (default: every fixture level, and the third-party levels when present
# beside the repository) with the release `meadow` binary and prints its peak resident memory
# and wall time, as measured by GNU time.
#
#   scripts/peak-memory.sh                   # fixtures and ../shared/levels
#   scripts/peak-memory.sh /tmp/big.glb      # any level (see src/bin/gen_big_level.rs)
set -u
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/time ]; then echo "needs GNU time at /usr/bin/time" >&2; exit 1; fi
cargo build --release -q -p meadow-cli || exit 1
if [ $# -eq 0 ]; then
    set -- fixtures/levels/*.gl*
    for d in ../shared/levels/gltf ../shared/levels/gltf/original ../shared/levels/recast; do
        [ -d "$d" ] && set -- "$@" "$d"/*.gl*
    done
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "| level | peak RSS MB | wall s | result |"
echo "|---|---|---|---|"
for level in "$@"; do
    case "$level" in *.glb|*.gltf) ;; *) continue ;; esac
    /usr/bin/time -f "%M %e" -o "$scratch/time" target/release/meadow bake "$level" -o "$scratch/out.nav" -q \
        2> "$scratch/err"
    code=$?
    read -r kb secs < "$scratch/time"
    if [ $code -eq 0 ]; then result=$(target/release/meadow info "$scratch/out.nav" | grep -m1 -i polygons)
    else result="exit $code: $(grep -m1 error "$scratch/err")"; fi
    printf '| %s | %.1f | %s | %s |\n' "$level" "$(awk "BEGIN{print $kb/1024}")" "$secs" "$result"
done
