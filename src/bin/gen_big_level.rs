//! Writes a generated open-world level of about a given number of triangles: a rolling terrain
//! grid (2 m cells, walkable slopes) scattered with pillars, in one GLB. Used to measure the
//! bake's time and peak memory on a million-triangle world.
//!
//! ```sh
//! cargo run --release -p meadow-suite --bin gen_big_level -- /tmp/big.glb 1000000 [boxes|spikes]
//! /usr/bin/time -v target/release/meadow bake /tmp/big.glb -o /tmp/big.nav --timings
//! ```
//! `boxes` (the default) are closed boxes whose flat tops are walkable floors of their own, above
//! the terrain; `spikes` are steep square pyramids with no walkable face, so the terrain is the
//! level's only floor.

use std::path::PathBuf;

/// Side of one terrain cell (m).
const CELL: f64 = 2.0;
/// Cells per pillar, on average: one pillar in every 8 x 8 block of cells.
const CELLS_PER_PILLAR: usize = 64;
/// Triangles of one box pillar; a spike has 6.
const PILLAR_TRIANGLES: usize = 12;

/// The terrain height (m) at `(x, z)`: gentle waves, at most about 5 degrees of slope.
fn height(x: f64, z: f64) -> f64 {
    3.0 * (x / 40.0).sin() * (z / 55.0).cos() + 1.5 * (x / 23.0 + z / 31.0).sin()
}

/// SplitMix64: a fixed sequence, so the level is the same on every machine.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: gen_big_level OUT.glb [TRIANGLES]");
        std::process::exit(2);
    };
    let target: usize = match args.next().map(|a| a.parse()) {
        None => 1_000_000,
        Some(Ok(n)) if n >= 100 => n,
        Some(_) => {
            eprintln!("gen_big_level: TRIANGLES must be a whole number >= 100");
            std::process::exit(2);
        }
    };
    let spikes = match args.next().as_deref() {
        None | Some("boxes") => false,
        Some("spikes") => true,
        Some(other) => {
            eprintln!("gen_big_level: pillars are `boxes` or `spikes`, not {other:?}");
            std::process::exit(2);
        }
    };
    // 2 g^2 terrain triangles plus g^2 / 64 pillars of 12 triangles each.
    let pillar_triangles = if spikes { 6 } else { PILLAR_TRIANGLES };
    let per_cell = 2.0 + pillar_triangles as f64 / CELLS_PER_PILLAR as f64;
    let g = ((target as f64 / per_cell).sqrt().round() as usize).max(8);
    let half = g as f64 * CELL / 2.0;

    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    for i in 0..=g {
        for j in 0..=g {
            let (x, z) = (i as f64 * CELL - half, j as f64 * CELL - half);
            positions.push([x as f32, height(x, z) as f32, z as f32]);
        }
    }
    let at = |i: usize, j: usize| (i * (g + 1) + j) as u32;
    for i in 0..g {
        for j in 0..g {
            // Counter-clockwise seen from +Y, so the faces point up.
            indices.extend([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
            indices.extend([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
        }
    }
    let mut rng = 0x5EED_u64;
    for _ in 0..g * g / CELLS_PER_PILLAR {
        let cx = (next(&mut rng) % 1_000_000) as f64 / 1e6 * (2.0 * half - 8.0) - half + 4.0;
        let cz = (next(&mut rng) % 1_000_000) as f64 / 1e6 * (2.0 * half - 8.0) - half + 4.0;
        let s = 0.5 + (next(&mut rng) % 1000) as f64 / 1000.0;
        let base = height(cx, cz) - 1.0;
        let top = base + 4.0;
        let first = positions.len() as u32;
        for (dx, dz) in [(-s, -s), (s, -s), (s, s), (-s, s)] {
            positions.push([(cx + dx) as f32, base as f32, (cz + dz) as f32]);
        }
        if spikes {
            // A steep square pyramid (sides at least 78 degrees): base and four sides.
            positions.push([cx as f32, (base + 8.0) as f32, cz as f32]);
            let faces: [[u32; 3]; 6] = [[0, 1, 2], [0, 2, 3], [0, 4, 1], [1, 4, 2], [2, 4, 3], [3, 4, 0]];
            for f in faces {
                indices.extend(f.map(|k| first + k));
            }
            continue;
        }
        for (dx, dz) in [(-s, -s), (s, -s), (s, s), (-s, s)] {
            positions.push([(cx + dx) as f32, top as f32, (cz + dz) as f32]);
        }
        // A closed box, outward faces: bottom, top, four sides.
        let faces: [[u32; 3]; 12] = [
            [0, 1, 2],
            [0, 2, 3],
            [4, 6, 5],
            [4, 7, 6],
            [0, 4, 5],
            [0, 5, 1],
            [1, 5, 6],
            [1, 6, 2],
            [2, 6, 7],
            [2, 7, 3],
            [3, 7, 4],
            [3, 4, 0],
        ];
        for f in faces {
            indices.extend(f.map(|k| first + k));
        }
    }

    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in &positions {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    let mut bin: Vec<u8> = Vec::with_capacity(positions.len() * 12 + indices.len() * 4);
    for p in &positions {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let index_offset = bin.len();
    for i in &indices {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let json = serde_json::json!({
        "asset": {"version": "2.0", "generator": "meadow gen_big_level"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "World", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": index_offset},
            {"buffer": 0, "byteOffset": index_offset, "byteLength": bin.len() - index_offset}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": positions.len(), "type": "VEC3",
             "min": min, "max": max},
            {"bufferView": 1, "componentType": 5125, "count": indices.len(), "type": "SCALAR"}
        ]
    });
    let bytes = meadow_testkit::gltf::glb(json.to_string().as_bytes(), Some(&bin));
    if let Err(e) = std::fs::write(&out, bytes) {
        eprintln!("gen_big_level: cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
    println!(
        "{}: {} triangles ({g} x {g} cells of {CELL} m, {} pillars)",
        out.display(),
        indices.len() / 3,
        g * g / CELLS_PER_PILLAR
    );
}
