//! Test support for Meadow's end-to-end fixture tests (one module, shared by every test file).

use meadow_bake::ingest::{ingest_file, IngestError, Scene, SceneTriangle};
use meadow_bake::{Progress, Stage};
use std::path::PathBuf;

/// The `fixtures/` directory of the workspace.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Path of a fixture level, e.g. `level("rooms.glb")`.
pub fn level(name: &str) -> PathBuf {
    fixtures_dir().join("levels").join(name)
}

/// Path of a malformed input, e.g. `bad_input("truncated.glb")`.
pub fn bad_input(name: &str) -> PathBuf {
    fixtures_dir().join("bad").join(name)
}

/// One call the bake made on its [`Progress`].
#[derive(Clone, Debug, PartialEq)]
pub enum ProgressEvent {
    /// `begin(stage, total)`.
    Begin(Stage, u64),
    /// `advance(stage, done)`.
    Advance(Stage, u64),
    /// `finish(stage)`.
    Finish(Stage),
}

/// A [`Progress`] that records every event and warning, for assertions.
#[derive(Clone, Debug, Default)]
pub struct RecordingProgress {
    /// Stage events in call order.
    pub events: Vec<ProgressEvent>,
    /// Warning messages in call order.
    pub warnings: Vec<String>,
}

impl Progress for RecordingProgress {
    fn begin(&mut self, stage: Stage, total: u64) {
        self.events.push(ProgressEvent::Begin(stage, total));
    }
    fn advance(&mut self, stage: Stage, done: u64) {
        self.events.push(ProgressEvent::Advance(stage, done));
    }
    fn finish(&mut self, stage: Stage) {
        self.events.push(ProgressEvent::Finish(stage));
    }
    fn warn(&mut self, message: &str) {
        self.warnings.push(message.to_string());
    }
}

/// Ingests a fixture level, returning the scene and the recorded progress.
pub fn ingest_level(name: &str) -> Result<(Scene, RecordingProgress), IngestError> {
    let mut progress = RecordingProgress::default();
    let scene = ingest_file(&level(name), &mut progress)?;
    Ok((scene, progress))
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The (unnormalised) normal of a triangle's front face: `(b - a) × (c - a)`.
pub fn triangle_normal(triangle: &SceneTriangle) -> [f64; 3] {
    let [a, b, c] = triangle.vertices;
    let (u, v) = (sub(b, a), sub(c, a));
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

/// The area of a triangle in square metres.
pub fn triangle_area(triangle: &SceneTriangle) -> f64 {
    let n = triangle_normal(triangle);
    (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() / 2.0
}

/// The centroid of a triangle.
pub fn triangle_centroid(triangle: &SceneTriangle) -> [f64; 3] {
    let [a, b, c] = triangle.vertices;
    [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0, (a[2] + b[2] + c[2]) / 3.0]
}

/// Whether the triangle faces up: its unit normal's y component is above `min_cos`.
pub fn faces_up(triangle: &SceneTriangle, min_cos: f64) -> bool {
    let n = triangle_normal(triangle);
    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    length > 0.0 && n[1] / length > min_cos
}

/// Signed volume enclosed by a set of triangles (divergence theorem); positive when the
/// triangles form closed surfaces with outward-facing fronts.
pub fn signed_volume<'a>(triangles: impl IntoIterator<Item = &'a SceneTriangle>) -> f64 {
    triangles
        .into_iter()
        .map(|t| {
            let [a, b, c] = t.vertices;
            let cross = [b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]];
            (a[0] * cross[0] + a[1] * cross[1] + a[2] * cross[2]) / 6.0
        })
        .sum()
}

/// The triangles of the scene that came from the named node.
pub fn node_triangles<'a>(scene: &'a Scene, name: &str) -> Vec<&'a SceneTriangle> {
    scene.triangles.iter().filter(|t| scene.nodes[t.node as usize] == name).collect()
}

/// Whether `a` and `b` differ by at most `tolerance` in every coordinate.
pub fn close3(a: [f64; 3], b: [f64; 3], tolerance: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tolerance)
}
