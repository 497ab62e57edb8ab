//! Writes the generated open world of `meadow_testkit::world` for about a given number of
//! triangles (default 1,000,000): terrain with cliffs, instanced props, multi-storey buildings
//! with stairs, in one GLB. Used to measure the bake's time and peak memory on a big world.
//!
//! ```sh
//! cargo run --release -p meadow-suite --bin gen_big_level -- /tmp/big.glb 1000000
//! /usr/bin/time -v target/release/meadow bake /tmp/big.glb -o /tmp/big.nav --timings
//! ```

use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: gen_big_level OUT.glb [TRIANGLES]");
        std::process::exit(2);
    };
    let target: usize = match args.next().map(|a| a.parse()) {
        None => 1_000_000,
        Some(Ok(n)) if n >= 20_000 => n,
        Some(_) => {
            eprintln!("gen_big_level: TRIANGLES must be a whole number >= 20000");
            std::process::exit(2);
        }
    };
    let world = meadow_testkit::world::generate(target);
    if let Err(e) = std::fs::write(&out, &world.glb) {
        eprintln!("gen_big_level: cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
    println!(
        "{}: {} triangles, {:.0} m x {:.0} m, {} props, {} buildings, {} plateaus, {} bytes",
        out.display(),
        world.triangles,
        2.0 * world.half,
        2.0 * world.half,
        world.props,
        world.buildings.len(),
        world.plateaus.len(),
        world.glb.len()
    );
}
