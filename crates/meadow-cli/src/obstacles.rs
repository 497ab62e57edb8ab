//! `--obstacles OBST.json` of `meadow path` and `meadow render`: temporary obstacles carved out
//! of the loaded navmesh before it is used.

use anyhow::{bail, Context};
use meadow::{DynamicMesh, NavMesh, Obstacle};
use serde::Deserialize;
use std::path::Path;

/// One obstacle of an obstacles file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct ObstacleSpec {
    /// Outline `[[x, z], ...]`, convex and counter-clockwise.
    polygon: Vec<[f64; 2]>,
    /// Height range `[y_min, y_max]`.
    y: [f64; 2],
}

/// `mesh` with the obstacles of the JSON file `file` carved out (`[{"polygon": [[x, z], ...],
/// "y": [y_min, y_max]}, ...]`); a readable error naming the file and the obstacle otherwise.
pub fn carve(mesh: NavMesh, file: &Path) -> anyhow::Result<NavMesh> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let specs: Vec<ObstacleSpec> = serde_json::from_str(&text).with_context(|| {
        format!("{} is not a list of {{\"polygon\": [[x, z], ...], \"y\": [y_min, y_max]}} obstacles", file.display())
    })?;
    let mut world = DynamicMesh::new(mesh);
    for (i, spec) in specs.into_iter().enumerate() {
        world
            .add_obstacle(Obstacle { polygon: spec.polygon, y: spec.y })
            .with_context(|| format!("{}: obstacle {i}", file.display()))?;
    }
    let stats = world.update();
    if let Some(e) = stats.rejected {
        bail!("carving the obstacles of {} made an invalid navmesh: {e}", file.display());
    }
    Ok(world.mesh().mesh().clone())
}
