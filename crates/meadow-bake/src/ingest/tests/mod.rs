//! Unit tests of the glTF reader, by subject; the helpers here build small levels in memory.

mod accessors;
mod container;
mod extras;
mod fuzz;
mod nodes;
mod primitives;

use super::*;
use crate::progress::{NoProgress, Progress, Stage};
use meadow_testkit::gltf::{append_aligned, f32_bytes, IndexWidth};
use serde_json::{json, Value};

/// A glTF document assembled in a test, written as a GLB in memory.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    meshes: Vec<Value>,
    nodes: Vec<Value>,
    scenes: Vec<Value>,
    scene: Option<usize>,
}

impl Doc {
    fn view(&mut self, bytes: &[u8]) -> usize {
        let offset = append_aligned(&mut self.bin, bytes);
        self.views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
        self.views.len() - 1
    }

    fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn positions(&mut self, points: &[[f32; 3]]) -> usize {
        let view = self.view(&f32_bytes(points));
        self.accessor(json!({"bufferView": view, "componentType": 5126, "count": points.len(), "type": "VEC3"}))
    }

    /// Indices with component type 5121 (u8), 5123 (u16) or 5125 (u32).
    fn indices(&mut self, indices: &[u32], component_type: u32) -> usize {
        let width = IndexWidth::from_component_type(component_type).expect("an index component type");
        let view = self.view(&width.bytes(indices));
        self.accessor(
            json!({"bufferView": view, "componentType": component_type, "count": indices.len(), "type": "SCALAR"}),
        )
    }

    fn mesh(&mut self, name: &str, primitives: Value) -> usize {
        self.meshes.push(json!({"name": name, "primitives": primitives}));
        self.meshes.len() - 1
    }

    fn node(&mut self, node: Value) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Adds a scene of root nodes and makes it the default.
    fn scene(&mut self, roots: &[usize]) {
        self.scenes.push(json!({"nodes": roots}));
        self.scene = Some(self.scenes.len() - 1);
    }

    fn json(&self) -> Value {
        let mut root = json!({
            "asset": {"version": "2.0"},
            "bufferViews": self.views,
            "accessors": self.accessors,
            "meshes": self.meshes,
            "nodes": self.nodes,
            "scenes": self.scenes,
        });
        if !self.bin.is_empty() {
            root["buffers"] = json!([{"byteLength": self.bin.len()}]);
        }
        if let Some(scene) = self.scene {
            root["scene"] = json!(scene);
        }
        root
    }

    fn glb(&self) -> Vec<u8> {
        glb(&self.json(), &self.bin)
    }

    fn ingest(&self) -> Result<(Scene, Recorder), IngestError> {
        ingest_glb(&self.glb())
    }
}

/// The GLB of a document; an empty buffer gets no BIN chunk.
fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    meadow_testkit::gltf::glb(&serde_json::to_vec(json).unwrap(), (!bin.is_empty()).then_some(bin))
}

#[derive(Default, Debug)]
struct Recorder {
    warnings: Vec<String>,
    begun: Option<u64>,
    advanced: Vec<u64>,
    finished: bool,
}

impl Progress for Recorder {
    fn begin(&mut self, stage: Stage, total: u64) {
        assert_eq!(stage, Stage::Ingest);
        self.begun = Some(total);
    }
    fn advance(&mut self, stage: Stage, done: u64) {
        assert_eq!(stage, Stage::Ingest);
        self.advanced.push(done);
    }
    fn finish(&mut self, stage: Stage) {
        assert_eq!(stage, Stage::Ingest);
        self.finished = true;
    }
    fn warn(&mut self, message: &str) {
        self.warnings.push(message.to_string());
    }
}

fn ingest_glb(bytes: &[u8]) -> Result<(Scene, Recorder), IngestError> {
    let mut recorder = Recorder::default();
    let scene = ingest_slice(bytes, Path::new("test.glb"), &mut recorder)?;
    Ok((scene, recorder))
}

fn normal(t: &SceneTriangle) -> [f64; 3] {
    let [a, b, c] = t.vertices;
    let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

/// Unit square at y = 0, `[0, 1]²` in (x, z), two upward triangles (CCW seen from +Y).
const SQUARE: [[f32; 3]; 4] = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
const SQUARE_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];

/// A document with one square mesh (u16 indices) and nothing placed yet.
fn square_doc() -> (Doc, usize) {
    let mut doc = Doc::default();
    let p = doc.positions(&SQUARE);
    let i = doc.indices(&SQUARE_INDICES, 5123);
    let mesh = doc.mesh("Square", json!([{"attributes": {"POSITION": p}, "indices": i}]));
    (doc, mesh)
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < 1e-6)
}
