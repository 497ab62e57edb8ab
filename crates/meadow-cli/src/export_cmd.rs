//! `meadow export`: a navmesh asset as a glTF 2.0 binary (GLB) for any glTF viewer.

use anyhow::{Context, Result};
use meadow::NavMesh;
use std::path::PathBuf;

/// Arguments of `meadow export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The navmesh asset.
    pub navmesh: PathBuf,
    /// Where to write the GLB (written atomically).
    #[arg(short, long)]
    pub output: PathBuf,
    /// The source level (.gltf or .glb), added dimmed and semi-transparent so the navmesh can be
    /// seen in place.
    #[arg(long, value_name = "LEVEL")]
    pub with_level: Option<PathBuf>,
}

/// Runs `meadow export`.
pub fn run(args: &ExportArgs) -> Result<()> {
    let mesh = NavMesh::load(&args.navmesh).with_context(|| format!("cannot load {}", args.navmesh.display()))?;
    let level = match &args.with_level {
        // Warnings about the level (skipped primitives, odd tags) concern its bake, not a picture.
        Some(path) => Some(
            meadow_bake::ingest::ingest_file(path, &mut meadow_bake::NoProgress)
                .with_context(|| format!("cannot read the level {}", path.display()))?,
        ),
        None => None,
    };
    let bytes = meadow_bake::export::export_glb(&mesh, level.as_ref())
        .with_context(|| format!("cannot export {}", args.navmesh.display()))?;
    meadow::asset::write_atomically(&args.output, &bytes)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let layers: std::collections::BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
    let level = level.map_or(String::new(), |s| format!(", level of {} triangles", s.triangles.len()));
    println!(
        "wrote {}: {} layers, {} polygons, {} off-mesh links{level}, {} bytes",
        args.output.display(),
        layers.len(),
        mesh.polygon_count(),
        mesh.links().len(),
        bytes.len()
    );
    Ok(())
}
