//! Writes the glTF fixture levels into `fixtures/levels/` and malformed inputs into `fixtures/bad/`.
//!
//! Run with `cargo run -p meadow-suite --bin gen_fixtures [OUT_DIR]` (default: the workspace's
//! `fixtures/`). The output is deterministic (byte-identical on every run) and is committed;
//! `fixtures/levels/README.md` documents the exact geometry, and a test checks that the committed
//! files equal a fresh run. Conventions: metres, +Y up; boxes are closed 12-triangle boxes with
//! outward-facing counter-clockwise faces; floors face up.

mod bad;
mod builder;
mod levels;

use bad::*;
use builder::*;
use levels::*;
use std::fs;
use std::path::PathBuf;

fn main() -> Result<()> {
    // Optional argument: another output directory (the tests regenerate into a temporary one).
    let root = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
    };
    let levels = root.join("levels");
    let bad = root.join("bad");
    fs::create_dir_all(&levels)?;
    fs::create_dir_all(&bad)?;
    open_floor(&levels)?;
    box_floor(&levels)?;
    rooms(&levels)?;
    corridor_l(&levels)?;
    ramps(&levels)?;
    table(&levels)?;
    hierarchy(&levels)?;
    strips_fans(&levels)?;
    tagged(&levels)?;
    bridge(&levels)?;
    links_gap(&levels)?;
    links_ladder(&levels)?;
    links_islands(&levels)?;
    halls(&levels)?;
    split_floor(&levels)?;
    road(&levels)?;
    slope_volume(&levels)?;
    rock(&levels, false)?;
    rock(&levels, true)?;
    write(&levels.join("meadow.toml"), SETTINGS_EXAMPLE.as_bytes())?;
    bad_inputs(&bad)?;
    bad_link_inputs(&bad)?;
    println!("wrote fixtures to {}", root.display());
    Ok(())
}
