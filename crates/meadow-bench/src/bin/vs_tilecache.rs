//! Temporary obstacles: time per add, move and remove (each with the update that makes queries
//! see it) with 1, 10 and 100 obstacles, and path query time with none and with 100, for each
//! side on the same levels, obstacles and pairs. Meadow's side is a `DynamicMesh` over the
//! level's default bake, with `find_path` on the carved mesh. Detour's side is its tile cache
//! (RecastDemo's temporary obstacle sample: cell 0.3, cell height 0.2, tiles of 32 cells, the
//! demo agent, layers compressed with LZ4, box obstacles grown by the agent radius; it has no
//! move, so a move is a remove and an add; `update` is called until it reports the navmesh up to
//! date).
//!
//! The obstacles: 1 m x 1 m boxes from 0.1 m under to 2 m over uniform random points of Meadow's
//! mesh of the level (`meadow_bench::obstacles`, seeded); box `i` moves to the `i`-th of another
//! set of random points. The pairs: 1,000 random pairs on Meadow's mesh, as `vs_detour` picks
//! them. Edit times are medians over every edit of a kind (at least 100 of each, over several
//! rounds of add N, move N, remove N, each round with the next N of the 100 obstacles); path
//! times are medians over the pairs of each pair's fastest of several rounds.
//!
//! Run with `RECAST_VENDOR=true cargo run --release -p meadow-bench --features detour --bin
//! vs_tilecache [-- --runs N] [--pairs P] [--compression lz4|none] [LEVEL...]` (levels named
//! replace the shared ones in `../shared/levels/gltf` and `../shared/levels/recast`; `none`
//! stores Detour's layers uncompressed). Timings on a shared machine are
//! noisy: compare sides within one run.

#[cfg(not(feature = "detour"))]
fn main() {
    eprintln!(
        "vs_tilecache needs Recast/Detour: run `RECAST_VENDOR=true cargo run --release -p meadow-bench --features \
         detour --bin vs_tilecache` (needs cmake, libclang-dev and a C++ compiler)"
    );
    std::process::exit(2);
}

#[cfg(feature = "detour")]
fn main() {
    if let Err(e) = bench::run() {
        eprintln!("vs_tilecache: {e}");
        std::process::exit(1);
    }
}

#[cfg(feature = "detour")]
mod bench {
    use meadow::query::QueryMesh;
    use meadow::BakeSettings;
    use meadow_bake::{ingest, NoProgress};
    use meadow_bench::carving::{measure, DynamicNavigation, MeadowCarving, Measured, OBSTACLE_COUNTS};
    use meadow_bench::detour::tile_cache::{LayerCompression, TileCacheMesh};
    use meadow_bench::detour::RecastSettings;
    use meadow_bench::obstacles::{box_obstacles, move_targets};
    use std::path::{Path, PathBuf};
    use std::time::Instant;

    type Error = Box<dyn std::error::Error>;

    /// Seed of the obstacles every side carves.
    const OBSTACLE_SEED: u64 = 0x6f62_7374;

    /// One side's results on one level, or why it has none.
    struct Row {
        side: &'static str,
        build_ms: f64,
        polygons: usize,
        memory_bytes: Option<usize>,
        result: Result<Measured, String>,
    }

    /// Builds one side with `build` and runs the whole benchmark on it.
    fn side<N: DynamicNavigation, E: std::fmt::Display>(
        side: &'static str,
        build: impl FnOnce() -> Result<N, E>,
        work: &Work,
    ) -> Row {
        let t = Instant::now();
        let built = build();
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        match built {
            Ok(mut nav) => {
                let (polygons, memory_bytes) = (nav.polygon_count(), nav.memory_bytes());
                let result =
                    measure(&mut nav, &work.placed, &work.targets, &work.pairs, work.runs).map_err(|e| e.to_string());
                Row { side, build_ms, polygons, memory_bytes, result }
            }
            Err(e) => Row { side, build_ms, polygons: 0, memory_bytes: None, result: Err(e.to_string()) },
        }
    }

    /// What every side answers on one level.
    struct Work {
        placed: Vec<meadow_bench::obstacles::BoxObstacle>,
        targets: Vec<meadow_bench::obstacles::BoxObstacle>,
        pairs: Vec<([f64; 3], [f64; 3])>,
        runs: usize,
    }

    /// The levels: every glTF level of the shared game and RecastDemo folders, sorted.
    fn levels() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels");
        let mut files: Vec<PathBuf> = ["gltf", "recast"]
            .iter()
            .flat_map(|dir| {
                std::fs::read_dir(root.join(dir))
                    .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")))
            .collect();
        files.sort();
        files
    }

    fn micros(seconds: f64) -> String {
        format!("{:.1}", seconds * 1e6)
    }

    pub fn run() -> Result<(), Error> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut runs = 5;
        let mut pair_count = 1000;
        let mut named = Vec::new();
        let mut compression = LayerCompression::Lz4;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--runs" => {
                    runs = it.next().and_then(|v| v.parse().ok()).filter(|&n| n > 0).ok_or("--runs needs a count")?
                }
                "--compression" => {
                    compression = match it.next().map(String::as_str) {
                        Some("lz4") => LayerCompression::Lz4,
                        Some("none") => LayerCompression::None,
                        _ => return Err("--compression needs lz4 or none".into()),
                    }
                }
                "--pairs" => pair_count = it.next().and_then(|v| v.parse().ok()).ok_or("--pairs needs a count")?,
                _ => named.push(PathBuf::from(a)),
            }
        }
        let files = if named.is_empty() { levels() } else { named };
        if files.is_empty() {
            eprintln!(
                "vs_tilecache: no levels in ../shared/levels (gltf/, recast/) and none named; nothing to measure"
            );
            return Ok(());
        }
        let counts = OBSTACLE_COUNTS.map(|n| n.to_string()).join(" / ");
        let mut edits = vec![
            format!(
                "| level | side | build ms | polygons | MB held | add µs ({counts} obstacles) | move µs ({counts}) | \
                 remove µs ({counts}) | edits timed ({counts}) |"
            ),
            "|---|---|---|---|---|---|---|---|---|".to_string(),
        ];
        let mut paths = vec![
            "| level | side | path µs, no obstacle | path µs, 100 obstacles | path µs, 100 obstacles, pairs found | \
             pairs found, no obstacle | pairs found, 100 obstacles | polygons, 100 obstacles |"
                .to_string(),
            "|---|---|---|---|---|---|---|---|".to_string(),
        ];
        let mut notes = Vec::new();
        for path in files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
            let scene = match ingest::ingest_file(&path, &mut NoProgress) {
                Ok(s) => s,
                Err(e) => {
                    edits.push(format!("| {name} | ingest failed: {e} |"));
                    continue;
                }
            };
            // Obstacles and pairs come from Meadow's mesh, so every side gets the same ones.
            let mesh = match meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress) {
                Ok(n) => QueryMesh::new(n),
                Err(e) => {
                    edits.push(format!("| {name} | Meadow bake failed: {e} |"));
                    continue;
                }
            };
            let max = OBSTACLE_COUNTS.iter().copied().max().unwrap_or(0);
            let work = Work {
                placed: box_obstacles(&mesh, max, OBSTACLE_SEED),
                targets: move_targets(&mesh, max, OBSTACLE_SEED),
                pairs: meadow_bench::seeded_pairs(&mesh, pair_count),
                runs,
            };
            let rows = [
                side("Detour tile cache", || TileCacheMesh::build(&scene, &RecastSettings::DEMO, compression), &work),
                side("Meadow DynamicMesh", || Ok::<_, String>(MeadowCarving::new(mesh.mesh().clone())), &work),
            ];
            for row in rows {
                let m = match &row.result {
                    Ok(m) => m,
                    Err(e) => {
                        edits.push(format!("| {name} | {} | failed: {e} |", row.side));
                        continue;
                    }
                };
                let per = |f: fn(&meadow_bench::carving::EditTimes) -> f64| {
                    m.edits.iter().map(|(_, t)| micros(f(t))).collect::<Vec<_>>().join(" / ")
                };
                let samples = m.edits.iter().map(|(_, t)| t.samples.to_string()).collect::<Vec<_>>().join(" / ");
                let mb = row.memory_bytes.map_or("-".to_string(), |b| format!("{:.2}", b as f64 / 1e6));
                edits.push(format!(
                    "| {name} | {} | {:.0} | {} | {mb} | {} | {} | {} | {samples} |",
                    row.side,
                    row.build_ms,
                    row.polygons,
                    per(|t| t.add),
                    per(|t| t.move_to),
                    per(|t| t.remove),
                ));
                let blocked = &m.paths_blocked;
                paths.push(format!(
                    "| {name} | {} | {} | {} | {} | {} | {} | {} |",
                    row.side,
                    micros(m.paths_clear.median),
                    micros(blocked.median),
                    if blocked.found() == 0 {
                        "-".to_string()
                    } else {
                        micros(blocked.median_of(|i| blocked.lengths[i].is_some()))
                    },
                    m.paths_clear.found(),
                    blocked.found(),
                    m.polygons_blocked,
                ));
                // A benchmark that checks its side: every obstacle removed, the mesh is back.
                if m.polygons_after != row.polygons {
                    notes.push(format!(
                        "{name}, {}: {} polygons after removing every obstacle, {} before",
                        row.side, m.polygons_after, row.polygons
                    ));
                }
                if row.polygons == 0 {
                    notes.push(format!("{name}, {}: no polygons (nothing walkable for this side)", row.side));
                }
            }
        }
        println!("Edits (each timed with the update after it; medians):\n");
        for line in edits {
            println!("{line}");
        }
        println!(
            "\nPath queries ({pair_count} pairs from seed {:#x}; median over pairs of each pair's fastest of {runs} rounds):\n",
            meadow_bench::PAIR_SEED
        );
        for line in paths {
            println!("{line}");
        }
        for note in notes {
            println!("\n{note}");
        }
        println!(
            "\nObstacles: seed {OBSTACLE_SEED:#x}, {runs} rounds per obstacle count (more for fewer obstacles: at least \
             100 edits of each kind). MB held: the side's own count of its mesh and obstacle data (Detour: the \
             cache's layers, compressed: {compression:?}, and the navmesh tiles)."
        );
        Ok(())
    }
}
