//! Times the fuzz level checker (ingest, bake with the fuzz settings, every query) on each file
//! given: `cargo run --release --example replay_level -- FILE.glb...` (replays fuzz finds).

fn main() {
    for p in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&p) else {
            eprintln!("{p}: cannot read");
            continue;
        };
        let t = std::time::Instant::now();
        let o = meadow_suite::fuzzing::check_level(&bytes);
        eprintln!("{p}: {:?} {:?}", t.elapsed(), o.non_finite);
    }
}
