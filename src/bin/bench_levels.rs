//! Bakes the third-party levels in `../shared/levels/` with Recast's demo settings and prints a
//! table: input triangles, polygons out, median bake time over several runs, warnings.
//!
//! Run with `cargo run --release -p meadow-suite --bin bench_levels [-- RUNS]`.

use meadow_bake::{BakeSettings, Progress, Stage};
use std::time::Instant;

/// Counts warnings and keeps the first few.
#[derive(Default)]
struct Collect {
    warnings: Vec<String>,
}

impl Progress for Collect {
    fn begin(&mut self, _: Stage, _: u64) {}
    fn advance(&mut self, _: Stage, _: u64) {}
    fn finish(&mut self, _: Stage) {}
    fn warn(&mut self, message: &str) {
        self.warnings.push(message.to_string());
    }
}

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let Some(shared) = meadow_suite::shared_dir() else {
        eprintln!("bench_levels: ../shared is absent; nothing to measure");
        return;
    };
    let mut levels: Vec<_> = ["levels/gltf", "levels/gltf/original", "levels/recast"]
        .iter()
        .filter_map(|d| std::fs::read_dir(shared.join(d)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")))
        .collect();
    levels.sort();
    let settings = BakeSettings::DEFAULT;
    println!("| level | input triangles | polygons | vertices | area m² | median bake s (n={runs}) | warnings |");
    println!("|---|---|---|---|---|---|---|");
    for path in levels {
        let name = path.strip_prefix(&shared).unwrap_or(&path).display().to_string();
        let mut sink = Collect::default();
        let scene = match meadow_bake::ingest::ingest_file(&path, &mut sink) {
            Ok(s) => s,
            Err(e) => {
                println!("| {name} | - | ingest failed: {e} | | | | |");
                continue;
            }
        };
        let mut times = Vec::new();
        let mut result = None;
        for _ in 0..runs {
            let mut progress = Collect::default();
            let t = Instant::now();
            let r = meadow_bake::bake(&scene, &settings, &mut progress);
            times.push(t.elapsed().as_secs_f64());
            result = Some((r, progress.warnings));
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let (r, warnings) = result.expect("at least one run");
        let warn_count = sink.warnings.len() + warnings.len();
        match r {
            Ok(mesh) => println!(
                "| {name} | {} | {} | {} | {:.1} | {:.3} | {} |",
                scene.triangles.len(),
                mesh.polygon_count(),
                mesh.vertices().len(),
                mesh.total_area(),
                median,
                warn_count
            ),
            Err(e) => println!(
                "| {name} | {} | bake failed: {e} | | | {:.3} | {} |",
                scene.triangles.len(),
                median,
                warn_count
            ),
        }
        for w in sink.warnings.iter().chain(&warnings).take(4) {
            eprintln!("  {name}: {w}");
        }
    }
}
