//! Stage 1, ingest: a glTF level (`.gltf` + `.bin`, embedded `.gltf`, or `.glb`) → [`Scene`],
//! world-space triangles with the navmesh tags of their nodes.
//!
//! The file is parsed into `gltf`'s JSON model and every accessor, buffer view and buffer is read
//! here with checked arithmetic, so that a malformed or hostile file gives a typed
//! [`IngestError`] instead of a panic (the `gltf` crate's own readers assert on bad layouts).
//! Node transforms are composed in `f64`; triangles come out in scene → node (pre-order) →
//! primitive order, front face counter-clockwise seen from the side the normal points to.
//!
//! The reader is split by subject: `container` (GLB chunks and buffers), `reader` (the reader
//! state and the scene assembly), `nodes` (hierarchy, transforms, tags, areas and links),
//! `primitives` (triangles of a mesh primitive), `accessors` (typed, checked reads of buffer
//! data), `volume` (area volumes), with the output types in `scene` and the errors in `error`.

mod accessors;
mod container;
mod error;
mod nodes;
mod primitives;
mod reader;
mod scene;
#[cfg(test)]
mod tests;
mod volume;

pub use error::IngestError;
pub use scene::{AreaVolume, LinkRequest, NavTag, Scene, SceneTriangle};

use crate::fingerprint::InputFile;
use crate::progress::Progress;
use container::{load_buffers, split_container};
use gltf::json;
use reader::Reader;
use std::cell::{Cell, RefCell};
use std::path::Path;

/// Most triangles a level may produce (about 1.5 GB of [`SceneTriangle`]s).
pub const MAX_TRIANGLES: usize = 1 << 24;

/// Reads a glTF level into a [`Scene`]; skipped primitives and odd content go to `progress.warn`.
pub fn ingest_file(path: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    guard(path, || {
        let bytes = std::fs::read(path).map_err(|source| IngestError::Read { path: path.to_path_buf(), source })?;
        ingest_bytes(path, &bytes, progress)
    })
}

/// Reads a glTF level from memory; `origin` names it in messages, locates external buffers
/// (they are resolved next to it) and stands for it in [`Scene::inputs`].
pub fn ingest_slice(bytes: &[u8], origin: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    guard(origin, || ingest_bytes(origin, bytes, progress))
}

/// Runs the reader, turning a panic (a reader bug) into [`IngestError::Internal`].
fn guard(path: &Path, read: impl FnOnce() -> Result<Scene, IngestError>) -> Result<Scene, IngestError> {
    // The reader checks every layout itself; the guard keeps a remaining bug from taking the
    // caller (a build tool, an editor) down.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(IngestError::Internal { path: path.to_path_buf(), message })
        }
    }
}

fn ingest_bytes(path: &Path, bytes: &[u8], progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    let is_glb = bytes.starts_with(b"glTF");
    let (json_bytes, blob) = split_container(path, bytes)?;
    // A UTF-8 byte order mark is not allowed by glTF but some exporters write one.
    let json_bytes = json_bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(json_bytes);
    let root: json::Root = json::deserialize::from_slice(json_bytes).map_err(|e| {
        let first = json_bytes.iter().find(|b| !b.is_ascii_whitespace());
        let reason = if is_glb || first == Some(&b'{') {
            format!("bad glTF JSON: {e}")
        } else {
            "neither a GLB container (magic \"glTF\") nor JSON".to_string()
        };
        IngestError::NotGltf { path: path.to_path_buf(), reason }
    })?;
    for extension in &root.extensions_required {
        if matches!(extension.as_str(), "KHR_draco_mesh_compression" | "EXT_meshopt_compression") {
            return Err(IngestError::UnsupportedExtension { path: path.to_path_buf(), extension: extension.clone() });
        }
    }
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut inputs = vec![InputFile::new(path, bytes)];
    let buffers = load_buffers(path, &root, base_dir, blob, &mut inputs)?;
    let reader = Reader {
        path,
        root: &root,
        buffers,
        decoded: RefCell::default(),
        bounds: RefCell::new([[f64::INFINITY; 3], [f64::NEG_INFINITY; 3]]),
        volume_triangles: Cell::new(0),
    };
    let mut scene = reader.build_scene(progress)?;
    scene.inputs = inputs;
    Ok(scene)
}
