//! `meadow merge`: partial assets of one level (`meadow bake --tiles`) → the full asset.

use anyhow::{Context, Result};
use meadow::NavMesh;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `meadow merge`.
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The partial assets, each baked with `meadow bake --tiles` from the same level and
    /// settings; together they must hold every tile of the level exactly once.
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Where to write the merged asset (written atomically): the same bytes a full bake gives.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Print nothing but warnings and errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Runs `meadow merge`.
pub fn run(args: &MergeArgs) -> Result<()> {
    let start = Instant::now();
    let mut parts = Vec::with_capacity(args.parts.len());
    let mut hashes = Vec::with_capacity(args.parts.len());
    for path in &args.parts {
        let context = || format!("cannot load {}", path.display());
        let bytes = std::fs::read(path).map_err(meadow::LoadError::from).with_context(context)?;
        parts.push(NavMesh::from_bytes(&bytes).with_context(context)?);
        hashes.push(meadow::asset::read_source_hash(&bytes).with_context(context)?);
    }
    let mesh = meadow_bake::merge(&parts, &mut crate::bake_cmd::BarProgress::new(args.quiet, false)).map_err(|e| {
        // Name the part a part index refers to.
        let text = e.to_string();
        let named = match &e {
            meadow_bake::MergeError::NotPartial { part } | meadow_bake::MergeError::Mismatch { part, .. } => {
                format!("{}: {text}", args.parts[*part].display())
            }
            _ => text,
        };
        anyhow::anyhow!("cannot merge: {named}")
    })?;
    // The parts of one bake share the level's source hash; parts of different sources keep none.
    let source_hash = if hashes.windows(2).all(|w| w[0] == w[1]) { hashes[0] } else { meadow::asset::NO_SOURCE_HASH };
    mesh.save_with_source_hash(&args.output, source_hash)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    if !args.quiet {
        println!(
            "merged {} parts -> {}: {} tiles, {} polygons, {} off-mesh links, {:.2} m² walkable, in {:.2} s",
            parts.len(),
            args.output.display(),
            mesh.data().tiles.len(),
            mesh.polygon_count(),
            mesh.links().len(),
            mesh.total_area(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
