#!/usr/bin/env bash
# Runs the `meadow` binary on a table of bad inputs and prints, for each, the exit code, the
# first line of stderr and whether an existing output file survived untouched.
#
#   scripts/bad-inputs.sh            # from the repository root; builds the release binary
#
# Every row must show a non-zero exit code, one readable line, and "intact" for the old output.
set -u
cd "$(dirname "$0")/.."
cargo build --release -q -p meadow-cli || exit 1
bin=target/release/meadow
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
old="$scratch/old.nav"
bad=fixtures/bad
lvl=fixtures/levels
"$bin" bake "$lvl/rooms.glb" -o "$scratch/rooms.nav" -q || exit 1
head -c 200 "$scratch/rooms.nav" > "$scratch/truncated.nav"
cp "$scratch/rooms.nav" "$scratch/flipped.nav"
printf '\xff' | dd of="$scratch/flipped.nav" bs=1 seek=100 conv=notrunc status=none
: > "$scratch/empty.nav"
printf '{"circles": [{"center": [0, 0], "radius": 1}]}' > "$scratch/circles.json"
printf 'radius = "wide"\n' > "$scratch/typo.toml"
printf 'radus = 0.5\n' > "$scratch/unknown_key.toml"
printf 'max_polygons = 3\n' > "$scratch/budget.toml"
# Bad obstacle files for `--obstacles` (JSON has no NaN: 1e400 overflows to a parse error).
printf '[{"polygon": [[0, 0], [1, 0], [1e400, 1]], "y": [0, 1]}]' > "$scratch/obst_overflow.json"
printf '[{"polygon": [[0, 0], [1, 0]], "y": [0, 1]}]' > "$scratch/obst_two.json"
printf '[{"polygon": [[0, 0], [0, 1], [1, 0]], "y": [0, 1]}]' > "$scratch/obst_clockwise.json"
printf '[{"polygon": [[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]], "y": [0, 1]}]' > "$scratch/obst_concave.json"
printf '[{"polygon": [[0, 0], [1, 0], [0, 1]], "y": [1, 0]}]' > "$scratch/obst_inverted.json"
printf '[{"polygon": [[0, 0], [1e300, 0], [0, 1]], "y": [0, 1]}]' > "$scratch/obst_far.json"
printf '{"polygon": [[0, 0], [1, 0], [0, 1]]}' > "$scratch/obst_not_list.json"
# Two halves of rooms in 4 m tiles, for the merge rows.
"$bin" bake "$lvl/rooms.glb" -o "$scratch/west.nav" -q --tile-size 4 --tiles=..0,.. || exit 1
"$bin" bake "$lvl/rooms.glb" -o "$scratch/east.nav" -q --tile-size 4 --tiles=0..,.. || exit 1

echo "| command | exit | first line of stderr | old output |"
echo "|---|---|---|---|"
row() {
    printf 'previous asset' > "$old"
    local out code state line
    out=$("$@" 2>&1 >/dev/null)
    code=$?
    # The error line when there is one (warnings may precede it), else the first line.
    line=$(printf '%s\n' "$out" | grep -m1 'error' || printf '%s\n' "$out" | head -n 1)
    if [ "$(cat "$old")" = "previous asset" ]; then state=intact; else state=CHANGED; fi
    shift
    local shown="$*"
    shown=${shown//$scratch/\$TMP}
    line=${line//$scratch/\$TMP}
    echo "| \`meadow ${shown}\` | $code | ${line//|/\\|} | $state |"
}
for f in truncated.glb nan_position.glb inf_position.glb not_gltf.glb bad_json.gltf missing_bin.gltf \
    buffer_too_short.gltf accessor_overrun.glb index_out_of_range.glb missing_position.glb \
    empty_scene.glb degenerate_only.glb bad_tag.glb bad_cost.glb bad_link_self.glb bad_link_cost.glb \
    bad_link_target.glb open_volume.glb volume_without_area.glb; do
    row "$bin" bake "$bad/$f" -o "$old"
done
row "$bin" bake no/such/level.glb -o "$old"
row "$bin" bake "$lvl/rooms.glb" -o "$old" --config "$bad/negative_radius.toml"
row "$bin" bake "$lvl/rooms.glb" -o "$old" --config "$scratch/typo.toml"
row "$bin" bake "$lvl/rooms.glb" -o "$old" --config "$scratch/unknown_key.toml"
row "$bin" bake "$lvl/rooms.glb" -o "$old" --max-verts 2
row "$bin" bake "$lvl/rooms.glb" -o "$old" --radius nan
row "$bin" bake "$lvl/rooms.glb" -o "$old" --radius -1
row "$bin" bake "$lvl/rooms.glb" -o "$old" --max-visibility-ratio -1
row "$bin" bake "$lvl/rooms.glb" -o "$old" --max-edge-length 0.001
row "$bin" bake "$lvl/rooms.glb" -o "$old" --config "$scratch/budget.toml"
row "$bin" bake "$lvl/rooms.glb" -o "$scratch/no/such/dir/out.nav"
row "$bin" bake "$lvl/rooms.glb" -o "$old" --tile-size 1
row "$bin" bake "$lvl/rooms.glb" -o "$old" --tiles 0..2,0..2
row "$bin" bake "$lvl/rooms.glb" -o "$old" --tile-size 4 --tiles 0..2
row "$bin" merge "$scratch/rooms.nav" -o "$old"
row "$bin" merge "$scratch/west.nav" -o "$old"
row "$bin" merge "$scratch/west.nav" "$scratch/west.nav" "$scratch/east.nav" -o "$old"
row "$bin" info "$scratch/truncated.nav"
row "$bin" info "$scratch/flipped.nav"
row "$bin" info "$scratch/empty.nav"
row "$bin" info "$lvl/rooms.glb"
row "$bin" path "$scratch/rooms.nav" --from 1e300,0,1e300 --to 0,0,0 --snap 1e300
row "$bin" path "$scratch/rooms.nav" --from a,b,c --to 0,0,0
row "$bin" path "$scratch/rooms.nav" --from 0,0 --to 0,0,0
row "$bin" path "$scratch/rooms.nav" --from 0,0,0 --to 0,0,0 --snap -1
row "$bin" path "$scratch/rooms.nav" --from 0,0,0 --to 0,0,0 --snap nan
row "$bin" path "$scratch/rooms.nav" --from 0,0,0
row "$bin" path "$scratch/truncated.nav" --from 0,0,0 --to 1,0,1
row "$bin" render "$scratch/flipped.nav" -o "$old"
for f in obst_overflow obst_two obst_clockwise obst_concave obst_inverted obst_far obst_not_list; do
    row "$bin" path "$scratch/rooms.nav" --from 1,0,1 --to 2,0,2 --obstacles "$scratch/$f.json"
    row "$bin" render "$scratch/rooms.nav" -o "$old" --obstacles "$scratch/$f.json"
done
row "$bin" path "$scratch/rooms.nav" --from 1,0,1 --to 2,0,2 --obstacles no/such/obstacles.json
row "$bin" export "$scratch/truncated.nav" -o "$old"
row "$bin" export "$lvl/rooms.glb" -o "$old"
row "$bin" export "$scratch/rooms.nav" -o "$scratch/no/such/dir/out.glb"
row "$bin" export "$scratch/rooms.nav" -o "$old" --with-level "$bad/truncated.glb"
row "$bin" export "$scratch/rooms.nav" -o "$old" --with-level "$bad/not_gltf.glb"
row "$bin" export "$scratch/rooms.nav" -o "$old" --with-level "$scratch/rooms.nav"
row "$bin" export "$scratch/rooms.nav" -o "$old" --with-level no/such/level.glb
row "$bin" circles "$scratch/circles.json" --from 0,0 --to 5,5
row "$bin" circles "$scratch/empty.nav" --from 0,0 --to 5,5
row "$bin" simulate "$scratch/empty.nav"
row "$bin" bake
row "$bin" frobnicate
