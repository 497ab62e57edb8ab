//! Test support for Meadow's end-to-end fixture tests: one module, shared by every test file.
//!
//! The checks here are written apart from the bake: they re-derive what a correct navmesh must
//! satisfy from the asset and the level's raw triangles.

pub mod fuzzing;

use meadow::geom::{self, Point2};
use meadow::{EdgeLink, NavMesh};
use meadow_bake::ingest::{ingest_file, IngestError, Scene, SceneTriangle};
use meadow_bake::{Progress, Stage};
use std::path::{Path, PathBuf};

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

/// The repository root (where `fixtures/` lives).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The third-party data folder beside the repository (`../shared`), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = repo_root().join("..").join("shared");
    p.is_dir().then_some(p)
}

/// The third-party data folder beside the repository, for the `#[ignore]`d tests that need it:
/// absent data fails such a test loudly instead of letting it pass without checking anything.
pub fn third_party_dir() -> PathBuf {
    shared_dir().unwrap_or_else(|| {
        panic!(
            "the third-party levels are not beside the repository ({}); run the tests marked \
             `needs the third-party levels` only where they are present",
            repo_root().join("..").join("shared").display()
        )
    })
}

/// The third-party `.glb` levels beside the repository (`levels/gltf`, then `levels/recast`,
/// each folder sorted); empty when the data is absent.
pub fn shared_glb_levels() -> Vec<PathBuf> {
    let Some(shared) = shared_dir() else {
        return Vec::new();
    };
    let mut levels = Vec::new();
    for dir in ["levels/gltf", "levels/recast"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(shared.join(dir))
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        found.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("glb"));
        found.sort();
        levels.extend(found);
    }
    levels
}

/// Every level file in `fixtures/levels/`, sorted.
pub fn fixture_levels() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join("levels"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")));
    v.sort();
    v
}

/// A polygon's XZ ring.
pub fn ring(mesh: &NavMesh, poly: usize) -> Vec<Point2> {
    mesh.polygon_points(poly).collect()
}

/// Whether the interiors of two convex counter-clockwise polygons intersect (exact: a
/// separating edge line is searched with robust orientation tests).
pub fn convex_interiors_overlap(a: &[Point2], b: &[Point2]) -> bool {
    let separated_by_edges_of = |p: &[Point2], q: &[Point2]| {
        (0..p.len()).any(|i| {
            let (u, v) = (p[i], p[(i + 1) % p.len()]);
            q.iter().all(|&x| geom::orient2d(u, v, x) <= 0.0)
        })
    };
    !(separated_by_edges_of(a, b) || separated_by_edges_of(b, a))
}

/// The surface height of polygon `poly` at XZ point `p` (from the triangle fan of its
/// vertices; nearest fan triangle when `p` lies just outside).
pub fn height_at(mesh: &NavMesh, poly: usize, p: Point2) -> f64 {
    let v: Vec<[f64; 3]> = mesh.polygon(poly).vertices.iter().map(|&i| mesh.vertices()[i as usize]).collect();
    let mut best = (f64::INFINITY, v[0][1]);
    for k in 1..v.len() - 1 {
        let (a, b, c) = (v[0], v[k], v[k + 1]);
        let det = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
        if det == 0.0 {
            continue;
        }
        let u = ((p[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (p[1] - a[2])) / det;
        let w = ((b[0] - a[0]) * (p[1] - a[2]) - (p[0] - a[0]) * (b[2] - a[2])) / det;
        let outside = (-u).max(0.0) + (-w).max(0.0) + (u + w - 1.0).max(0.0);
        if outside < best.0 {
            best = (outside, a[1] + u * (b[1] - a[1]) + w * (c[1] - a[1]));
        }
    }
    best.1
}

/// Pairs of polygons whose interiors overlap in XZ, except polygons of different layers whose
/// surfaces are more than the mesh's `max_climb` apart everywhere over the overlap (one floor
/// above another) and pairs whose overlap is a sliver narrower than a bake grid unit (regions
/// computed in separate overlays, rounded to the grid apart where they meet); bounding boxes
/// prune the quadratic scan.
pub fn overlapping_pairs(mesh: &NavMesh) -> Vec<(usize, usize)> {
    let climb = mesh.settings().max_climb;
    let rings: Vec<Vec<Point2>> = (0..mesh.polygon_count()).map(|i| ring(mesh, i)).collect();
    let stacked = |i: usize, j: usize| {
        // The overlap of two convex polygons is convex: its corners bound the height gap.
        let mut overlap = rings[i].clone();
        let r = &rings[j];
        for k in 0..r.len() {
            let (a, b) = (r[k], r[(k + 1) % r.len()]);
            let f = |q: Point2| (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]);
            let mut out = Vec::new();
            for m in 0..overlap.len() {
                let (p, q) = (overlap[m], overlap[(m + 1) % overlap.len()]);
                let (fp, fq) = (f(p), f(q));
                if fp >= 0.0 {
                    out.push(p);
                }
                if (fp >= 0.0) != (fq >= 0.0) {
                    let t = fp / (fp - fq);
                    out.push([p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t]);
                }
            }
            overlap = out;
        }
        if overlap.len() < 3 {
            return true;
        }
        // Regions are computed apart (layers, and surfaces within a layer): where they meet,
        // rounding to the bake grid may leave a sliver of overlap narrower than one grid unit
        // (area below perimeter × unit).
        let area = geom::signed_area(&overlap).abs();
        let perimeter: f64 = (0..overlap.len())
            .map(|k| {
                let (a, b) = (overlap[k], overlap[(k + 1) % overlap.len()]);
                ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt()
            })
            .sum();
        let unit = meadow_bake::region::GRID_SCALE.recip();
        area <= perimeter * unit
            || (mesh.polygon(i).layer != mesh.polygon(j).layer
                && overlap.iter().all(|&q| (height_at(mesh, i, q) - height_at(mesh, j, q)).abs() > climb))
    };
    let boxes: Vec<[f64; 4]> = rings
        .iter()
        .map(|r| {
            r.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |b, p| {
                [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])]
            })
        })
        .collect();
    let mut order: Vec<usize> = (0..rings.len()).collect();
    order.sort_by(|&i, &j| boxes[i][0].total_cmp(&boxes[j][0]));
    let mut out = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j][0] >= boxes[i][2] {
                break;
            }
            if boxes[j][1] >= boxes[i][3] || boxes[i][1] >= boxes[j][3] {
                continue;
            }
            if convex_interiors_overlap(&rings[i], &rings[j]) && !stacked(i, j) {
                out.push((i.min(j), i.max(j)));
            }
        }
    }
    out.sort_unstable();
    out
}

/// The polygon whose closed XZ footprint contains `p` (first by index), by linear scan.
pub fn polygon_at(mesh: &NavMesh, p: Point2) -> Option<usize> {
    (0..mesh.polygon_count()).find(|&i| {
        let r = ring(mesh, i);
        (0..r.len()).all(|k| geom::orient2d(r[k], r[(k + 1) % r.len()], p) >= 0.0)
    })
}

/// Connected component id of every polygon through portals.
pub fn components(mesh: &NavMesh) -> Vec<usize> {
    let n = mesh.polygon_count();
    let mut comp = vec![usize::MAX; n];
    let mut next = 0;
    for s in 0..n {
        if comp[s] != usize::MAX {
            continue;
        }
        let mut stack = vec![s];
        comp[s] = next;
        while let Some(p) = stack.pop() {
            for l in mesh.polygon(p).links {
                if let EdgeLink::Polygon(q) = *l {
                    if comp[q as usize] == usize::MAX {
                        comp[q as usize] = next;
                        stack.push(q as usize);
                    }
                }
            }
        }
        next += 1;
    }
    comp
}

/// Whether the navmesh connects the XZ points `a` and `b` through portals.
pub fn connected(mesh: &NavMesh, a: Point2, b: Point2) -> bool {
    let comp = components(mesh);
    match (polygon_at(mesh, a), polygon_at(mesh, b)) {
        (Some(pa), Some(pb)) => comp[pa] == comp[pb],
        _ => false,
    }
}

/// Clips a 3D polygon to the slab `lo <= y <= hi`.
fn clip_to_slab(poly: &[[f64; 3]], lo: f64, hi: f64) -> Vec<[f64; 3]> {
    let mut out: Vec<[f64; 3]> = poly.to_vec();
    for (sign, bound) in [(1.0, lo), (-1.0, -hi)] {
        let f = |p: &[f64; 3]| sign * p[1] - bound;
        let input = std::mem::take(&mut out);
        for i in 0..input.len() {
            let (p, q) = (input[i], input[(i + 1) % input.len()]);
            let (fp, fq) = (f(&p), f(&q));
            if fp >= 0.0 {
                out.push(p);
            }
            if (fp >= 0.0) != (fq >= 0.0) {
                let s = fp / (fp - fq);
                out.push([p[0] + (q[0] - p[0]) * s, p[1] + (q[1] - p[1]) * s, p[2] + (q[2] - p[2]) * s]);
            }
        }
    }
    out
}

/// XZ distance from `p` to the footprint of a (possibly degenerate) 3D polygon.
fn footprint_distance(p: Point2, poly: &[[f64; 3]]) -> f64 {
    let r: Vec<Point2> = poly.iter().map(|v| [v[0], v[2]]).collect();
    if r.len() >= 3 {
        let s = geom::signed_area(&r).signum();
        let o: Vec<f64> = (0..r.len()).map(|k| geom::orient2d(r[k], r[(k + 1) % r.len()], p)).collect();
        // A footprint that rounding left with a sliver of area (a vertical face) contains no
        // point merely collinear with it: some orientation must be strictly positive.
        if s != 0.0 && o.iter().all(|&x| x * s >= 0.0) && o.iter().any(|&x| x != 0.0) {
            return 0.0;
        }
    }
    (0..r.len()).map(|k| geom::point_segment_distance(p, r[k], r[(k + 1) % r.len()])).fold(f64::INFINITY, f64::min)
}

/// The smallest XZ distance from any navmesh vertex to any part of a blocking triangle that
/// stands in the agent's column above that vertex (strictly above `max_climb`, up to `height`),
/// with the vertex and the triangle that attains it.
pub fn min_blocker_clearance(mesh: &NavMesh, blocking: &[[[f64; 3]; 3]]) -> (f64, usize, usize) {
    let s = mesh.settings();
    let mut worst = (f64::INFINITY, usize::MAX, usize::MAX);
    for (vi, v) in mesh.vertices().iter().enumerate() {
        for (ti, t) in blocking.iter().enumerate() {
            let lo = v[1] + s.max_climb + 1e-6;
            let hi = v[1] + s.height;
            if t.iter().all(|c| c[1] < lo) || t.iter().all(|c| c[1] > hi) {
                continue;
            }
            let piece = clip_to_slab(t, lo, hi);
            if piece.is_empty() {
                continue;
            }
            let d = footprint_distance([v[0], v[2]], &piece);
            if d < worst.0 {
                worst = (d, vi, ti);
            }
        }
    }
    worst
}

/// Points (with their heights) every `spacing` metres along the borders of the walkable
/// surface: edge points of a walkable triangle that no other walkable triangle covers (in XZ,
/// closed) at a height within `climb` of the edge there. An agent on that level must keep its
/// radius from these (walls, drops).
pub fn walkable_border_samples(walkable: &[[[f64; 3]; 3]], climb: f64, spacing: f64) -> Vec<[f64; 3]> {
    // Height of `t` over the XZ of `p`, if `p` is in its closed footprint.
    let height_at = |t: &[[f64; 3]; 3], p: [f64; 3]| -> Option<f64> {
        let (a, b, c) = ([t[0][0], t[0][2]], [t[1][0], t[1][2]], [t[2][0], t[2][2]]);
        let det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
        if det.abs() < 1e-12 {
            return None;
        }
        let u = ((p[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (p[2] - a[1])) / det;
        let v = ((b[0] - a[0]) * (p[2] - a[1]) - (p[0] - a[0]) * (b[1] - a[1])) / det;
        let eps = 1e-7;
        if u < -eps || v < -eps || u + v > 1.0 + eps {
            return None;
        }
        Some(t[0][1] + u * (t[1][1] - t[0][1]) + v * (t[2][1] - t[0][1]))
    };
    let mut out = Vec::new();
    for (i, t) in walkable.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            let len = ((b[0] - a[0]).powi(2) + (b[2] - a[2]).powi(2)).sqrt();
            let n = (len / spacing).ceil().max(1.0) as usize;
            for j in 0..=n {
                let s = j as f64 / n as f64;
                let p = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s];
                let joined = walkable
                    .iter()
                    .enumerate()
                    .any(|(o, u)| o != i && height_at(u, p).is_some_and(|y| (y - p[1]).abs() <= climb));
                if !joined {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The smallest XZ distance from a navmesh vertex to one of `points` less than `span` above or
/// below it (floors far above or below do not count).
pub fn min_point_clearance(mesh: &NavMesh, points: &[[f64; 3]], span: f64) -> f64 {
    let mut worst = f64::INFINITY;
    for v in mesh.vertices() {
        for p in points {
            if (v[1] - p[1]).abs() < span {
                worst = worst.min(((v[0] - p[0]).powi(2) + (v[2] - p[2]).powi(2)).sqrt());
            }
        }
    }
    worst
}

/// Reads a whole file, for byte-level comparisons.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The settings each level is baked with by the whole-corpus tools: the defaults and the corners
/// that take other branches of the pipeline (point agent, no edge splitting, triangles only, a
/// wide agent).
pub fn settings_variants() -> Vec<(&'static str, meadow_bake::BakeSettings)> {
    use meadow_bake::BakeSettings;
    let with = |change: fn(&mut BakeSettings)| {
        let mut s = BakeSettings::DEFAULT;
        change(&mut s);
        s
    };
    vec![
        ("default", BakeSettings::DEFAULT),
        ("point", with(|s| s.radius = 0.0)),
        ("fuzz-small", fuzzing::small_settings()),
        (
            "tri-only",
            with(|s| {
                s.max_verts_per_poly = 3;
                s.max_edge_length = 2.0;
            }),
        ),
        (
            "wide",
            with(|s| {
                s.radius = 1.2;
                s.height = 2.5;
                s.max_climb = 0.6;
                s.max_slope = 30.0;
            }),
        ),
    ]
}

/// Every fixture level and, when present beside the repository, every third-party glTF and
/// Recast level, as (display name, path), in a fixed order.
pub fn all_levels() -> Vec<(String, PathBuf)> {
    let levels_in = |dir: &Path| -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> =
            std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        out.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")));
        out.sort();
        out
    };
    let root = repo_root();
    let mut levels: Vec<(String, PathBuf)> = levels_in(&root.join("fixtures/levels"))
        .into_iter()
        .map(|p| (p.strip_prefix(&root).unwrap_or(&p).display().to_string(), p))
        .collect();
    if let Some(shared) = shared_dir() {
        for d in ["levels/gltf", "levels/gltf/original", "levels/recast"] {
            for p in levels_in(&shared.join(d)) {
                levels.push((format!("shared/{}", p.strip_prefix(&shared).unwrap_or(&p).display()), p));
            }
        }
    }
    levels
}
