//! Bakes every fixture level, and every third-party level when present beside the repository,
//! under the settings of `asset_digests`, and prints per bake how many directed edges two
//! polygons hold (convex counter-clockwise polygons holding one directed edge overlap), with
//! the first few: the edge's end points and both polygons' area, layer and ring.
//!
//! ```sh
//! cargo run --release -p meadow-suite --bin duplicate_edges [LEVEL-SUBSTRING [VARIANT]]
//! ```

use meadow::NavMesh;
use meadow_bake::NoProgress;

/// How many duplicate edges are printed in full per bake.
const SHOWN: usize = 4;

/// Every directed edge held by two polygons, as (from, to, first polygon, second polygon).
fn duplicate_edges(mesh: &NavMesh) -> Vec<(u32, u32, usize, usize)> {
    let d = mesh.data();
    let mut directed: Vec<(u32, u32, usize)> = Vec::with_capacity(d.polygon_vertices.len());
    for (polygon, p) in d.polygons.iter().enumerate() {
        let run = &d.polygon_vertices[p.first as usize..p.first as usize + p.vertex_count as usize];
        directed.extend((0..run.len()).map(|k| (run[k], run[(k + 1) % run.len()], polygon)));
    }
    directed.sort_unstable();
    directed
        .windows(2)
        .filter(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        .map(|w| (w[0].0, w[0].1, w[0].2, w[1].2))
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut total = 0;
    for (name, path) in meadow_suite::all_levels() {
        if args.first().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let scene = match meadow_bake::ingest::ingest_file(&path, &mut NoProgress) {
            Ok(scene) => scene,
            Err(e) => {
                println!("ingest-error {name}: {e}");
                continue;
            }
        };
        for (label, settings) in meadow_suite::settings_variants() {
            if args.get(1).is_some_and(|v| v != label) {
                continue;
            }
            let mesh = match meadow_bake::bake(&scene, &settings, &mut NoProgress) {
                Ok(mesh) => mesh,
                Err(e) => {
                    println!("bake-error {name} {label}: {e}");
                    continue;
                }
            };
            let dups = duplicate_edges(&mesh);
            total += dups.len();
            println!("{:>4} {name} {label}", dups.len());
            let d = mesh.data();
            for &(from, to, p, q) in dups.iter().take(SHOWN) {
                let v = |i: u32| d.vertices[i as usize];
                println!("       edge {from} {:?} -> {to} {:?}", v(from), v(to));
                for poly in [p, q] {
                    let pd = &d.polygons[poly];
                    let ring: Vec<[f64; 3]> = d.polygon_vertices
                        [pd.first as usize..pd.first as usize + pd.vertex_count as usize]
                        .iter()
                        .map(|&i| v(i))
                        .collect();
                    println!("         polygon {poly} area {} layer {}: {ring:?}", pd.area, pd.layer);
                }
            }
        }
    }
    println!("total {total}");
}
