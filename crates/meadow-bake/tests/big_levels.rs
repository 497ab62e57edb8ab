//! Levels at the size limits of the coordinate contract ([`meadow::limits`]): a diagonal
//! zero-thickness wall and rotated boxes near the corners, at 1, 5, 20 and 60 km, and the
//! largest one translated far from the origin. Regression for the collinear-merge overflow of
//! the region stage (a non-axis-aligned wall on a level a few kilometres across: wrong mesh in
//! release builds, a panic in debug builds): every path must keep the agent radius from every
//! wall.

use meadow::geom::orient2d;
use meadow::limits::{MAX_COORDINATE, MAX_EXTENT};
use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::{AreaType, BakeSettings};
use meadow_bake::ingest::{NavTag, Scene, SceneTriangle};

type P2 = [f64; 2];

/// Tolerance on the clearance of a path from a wall: the radius arcs' chord error (1 cm) plus
/// the grid and simplification steps (a few 1/2048 m).
const CLEARANCE_SLACK: f64 = 0.02;

struct Level {
    scene: Scene,
    /// Wall segments in XZ (the diagonal wall, the boxes' sides).
    walls: Vec<[P2; 2]>,
    /// (start, goal) pairs that must be joined by paths around the walls.
    pairs: Vec<([f64; 3], [f64; 3])>,
}

fn tri(vertices: [[f64; 3]; 3], tag: NavTag) -> SceneTriangle {
    SceneTriangle { vertices, tag, area: 0, node: 0 }
}

/// A level of side `size` centred at `centre` (XZ) with its floor at height `y`.
fn level(size: f64, centre: P2, y: f64) -> Level {
    let h = size / 2.0;
    let at = |x: f64, z: f64| [centre[0] + x, centre[1] + z];
    let p3 = |q: P2, dy: f64| [q[0], y + dy, q[1]];
    let mut triangles = Vec::new();
    let (a, b, c, d) = (at(-h, -h), at(-h, h), at(h, h), at(h, -h));
    // Facing up: counter-clockwise seen from above.
    triangles.push(tri([p3(a, 0.0), p3(b, 0.0), p3(c, 0.0)], NavTag::Auto));
    triangles.push(tri([p3(a, 0.0), p3(c, 0.0), p3(d, 0.0)], NavTag::Auto));
    let mut walls = Vec::new();
    let mut pairs = Vec::new();
    // The diagonal wall: enters across the floor's left edge, ends inside (a gap at its far
    // end), with a direction whose reduced grid components are large (odd offsets).
    let w0 = at(-h - 10.0, -0.31 * h + 0.123);
    let w1 = at(0.27 * h + 0.377, 0.42 * h - 0.0917);
    triangles.push(tri([p3(w0, -1.0), p3(w1, -1.0), p3(w1, 3.0)], NavTag::Auto));
    triangles.push(tri([p3(w0, -1.0), p3(w1, 3.0), p3(w0, 3.0)], NavTag::Auto));
    walls.push([w0, w1]);
    let mid = [(w0[0] + w1[0]) / 2.0, (w0[1] + w1[1]) / 2.0];
    let len = ((w1[0] - w0[0]).powi(2) + (w1[1] - w0[1]).powi(2)).sqrt();
    let n = [-(w1[1] - w0[1]) / len * 50.0, (w1[0] - w0[0]) / len * 50.0];
    pairs.push(([mid[0] + n[0], y, mid[1] + n[1]], [mid[0] - n[0], y, mid[1] - n[1]]));
    // Rotated boxes (obstacles, 8 m wide, 1.5 m tall) 30 m in from each corner.
    for (k, (sx, sz)) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].into_iter().enumerate() {
        let c = at(sx * (h - 30.0), sz * (h - 30.0));
        let angle = 0.3 + 0.4 * k as f64;
        let (s, co) = angle.sin_cos();
        let corner = |u: f64, v: f64| [c[0] + 4.0 * (u * co - v * s), c[1] + 4.0 * (u * s + v * co)];
        let ring = [corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)];
        let mut faces = vec![[ring[0], ring[1], ring[2]], [ring[0], ring[2], ring[3]]];
        let box_tris: Vec<[[f64; 3]; 3]> = faces
            .drain(..)
            .flat_map(|f| {
                [[p3(f[0], 1.5), p3(f[1], 1.5), p3(f[2], 1.5)], [p3(f[0], 0.0), p3(f[2], 0.0), p3(f[1], 0.0)]]
            })
            .chain((0..4).flat_map(|i| {
                let (q0, q1) = (ring[i], ring[(i + 1) % 4]);
                [[p3(q0, 0.0), p3(q1, 0.0), p3(q1, 1.5)], [p3(q0, 0.0), p3(q1, 1.5), p3(q0, 1.5)]]
            }))
            .collect();
        triangles.extend(box_tris.into_iter().map(|t| tri(t, NavTag::Obstacle)));
        for i in 0..4 {
            walls.push([ring[i], ring[(i + 1) % 4]]);
        }
        let around = |u: f64, v: f64| {
            let q = corner(u, v);
            [q[0], y, q[1]]
        };
        pairs.push((around(-3.5, -0.2), around(3.5, 0.3)));
        pairs.push((around(0.1, -3.5), around(-0.2, 3.5)));
    }
    let scene = Scene {
        triangles,
        areas: vec![AreaType { name: "default".into(), cost: 1.0 }],
        nodes: vec!["level".into()],
        node_positions: vec![[centre[0], y, centre[1]]],
        ..Scene::default()
    };
    Level { scene, walls, pairs }
}

fn segment_distance(a: P2, b: P2, c: P2, d: P2) -> f64 {
    let crosses = |p: P2, q: P2, r: P2, s: P2| {
        let (o1, o2) = (orient2d(p, q, r), orient2d(p, q, s));
        let (o3, o4) = (orient2d(r, s, p), orient2d(r, s, q));
        o1 * o2 < 0.0 && o3 * o4 < 0.0
    };
    if crosses(a, b, c, d) {
        return 0.0;
    }
    let point_seg = |p: P2, q: P2, r: P2| {
        let (dx, dz) = (r[0] - q[0], r[1] - q[1]);
        let len2 = dx * dx + dz * dz;
        let t = if len2 > 0.0 { (((p[0] - q[0]) * dx + (p[1] - q[1]) * dz) / len2).clamp(0.0, 1.0) } else { 0.0 };
        ((q[0] + dx * t - p[0]).powi(2) + (q[1] + dz * t - p[1]).powi(2)).sqrt()
    };
    point_seg(a, c, d).min(point_seg(b, c, d)).min(point_seg(c, a, b)).min(point_seg(d, a, b))
}

fn check(size: f64, centre: P2, y: f64) {
    let level = level(size, centre, y);
    let mut settings = BakeSettings::DEFAULT;
    settings.max_edge_length = 0.0;
    let nav = meadow_bake::bake(&level.scene, &settings, &mut meadow_bake::NoProgress)
        .unwrap_or_else(|e| panic!("{size} m at {centre:?}: {e}"));
    let polygons = nav.polygon_count();
    assert!(polygons < 400, "{size} m at {centre:?}: {polygons} polygons for a wall and four boxes");
    let mesh = QueryMesh::new(nav);
    let mut astar = PathQuery::new(&mesh);
    let mut exact = ShortestPathQuery::new(&mesh);
    let filter = QueryFilter::new();
    for (i, &(start, goal)) in level.pairs.iter().enumerate() {
        let paths = [
            ("find_path", astar.find_path(&mesh, start, goal, &filter)),
            ("find_shortest_path", exact.find_shortest_path(&mesh, start, goal, &filter)),
        ];
        for (name, path) in paths {
            let path = path.unwrap_or_else(|e| panic!("{size} m at {centre:?}, pair {i}, {name}: {e}"));
            assert!(path.length.is_finite() && path.points.iter().flatten().all(|c| c.is_finite()));
            for seg in path.points.windows(2) {
                let (a, b) = ([seg[0][0], seg[0][2]], [seg[1][0], seg[1][2]]);
                for w in &level.walls {
                    let d = segment_distance(a, b, w[0], w[1]);
                    assert!(
                        d >= settings.radius - CLEARANCE_SLACK,
                        "{size} m at {centre:?}, pair {i}, {name}: segment {a:?} -> {b:?} passes {d} m from wall {w:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn diagonal_wall_and_rotated_boxes_at_1_5_20_and_60_km() {
    for size in [1_000.0, 5_000.0, 20_000.0, 60_000.0] {
        check(size, [0.0, 0.0], 0.0);
    }
}

#[test]
fn the_largest_level_far_from_the_origin() {
    // The level's far corner (with the wall's overhang) stays within the coordinate limit.
    let size = 60_000.0;
    let off = MAX_COORDINATE - size / 2.0 - 20.0;
    assert!(size + 20.0 <= MAX_EXTENT);
    check(size, [off, -off], -500.25);
    check(5_000.0, [-off, off], 1234.5);
}
