//! `find_shortest_path` on every baked fixture level against a brute-force oracle written here
//! from the public API only: the visibility graph of all wall endpoints (every pair tested
//! against every wall, exact predicates), searched with Dijkstra. The oracle works in XZ, so it
//! needs levels whose polygons do not overlap in XZ; that is checked (exactly) first.

use meadow::geom::{orient2d, Point2};
use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, EdgeLink, PathError};
use meadow_suite::fixture_levels;

fn xz(p: [f64; 3]) -> Point2 {
    [p[0], p[2]]
}

fn dist(a: Point2, b: Point2) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

fn sign(v: f64) -> i32 {
    (v > 0.0) as i32 - (v < 0.0) as i32
}

/// XZ rings of every polygon.
fn rings(mesh: &QueryMesh) -> Vec<Vec<Point2>> {
    (0..mesh.mesh().polygon_count()).map(|p| mesh.mesh().polygon_points(p).collect()).collect()
}

fn contains(ring: &[Point2], p: Point2) -> bool {
    (0..ring.len()).all(|k| orient2d(ring[k], ring[(k + 1) % ring.len()], p) >= 0.0)
}

/// Whether two convex CCW rings have disjoint interiors: some edge line of one has the other
/// entirely on its outer side (or on the line).
fn interiors_disjoint(a: &[Point2], b: &[Point2]) -> bool {
    let separates = |r: &[Point2], o: &[Point2]| {
        (0..r.len()).any(|k| o.iter().all(|&p| orient2d(r[k], r[(k + 1) % r.len()], p) <= 0.0))
    };
    separates(a, b) || separates(b, a)
}

struct Oracle {
    rings: Vec<Vec<Point2>>,
    walls: Vec<(Point2, Point2)>,
    corners: Vec<Point2>,
    graph: Vec<Vec<(usize, f64)>>,
}

impl Oracle {
    fn new(mesh: &QueryMesh) -> Oracle {
        let data = mesh.mesh().data();
        let verts = mesh.mesh().vertices();
        let mut walls = Vec::new();
        let mut corner_ids = std::collections::BTreeSet::new();
        for p in &data.polygons {
            let (first, n) = (p.first as usize, p.vertex_count as usize);
            for k in 0..n {
                if data.edge_links[first + k] == EdgeLink::Wall {
                    let (a, b) = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]);
                    walls.push((xz(verts[a as usize]), xz(verts[b as usize])));
                    corner_ids.insert(a);
                    corner_ids.insert(b);
                }
            }
        }
        let corners: Vec<Point2> = corner_ids.iter().map(|&v| xz(verts[v as usize])).collect();
        let mut o = Oracle { rings: rings(mesh), walls, corners, graph: Vec::new() };
        let n = o.corners.len();
        let mut graph = vec![Vec::new(); n];
        for i in 0..n {
            for j in i + 1..n {
                if o.visible(o.corners[i], o.corners[j]) {
                    let d = dist(o.corners[i], o.corners[j]);
                    graph[i].push((j, d));
                    graph[j].push((i, d));
                }
            }
        }
        o.graph = graph;
        o
    }

    /// Whether segment `p q` stays in the union of the polygons: it crosses no wall properly, and
    /// every piece between the corners on it lies in the mesh (its midpoint in some polygon, or
    /// both its ends in one convex polygon).
    fn visible(&self, p: Point2, q: Point2) -> bool {
        if p == q {
            return true;
        }
        for &(a, b) in &self.walls {
            let (o1, o2) = (sign(orient2d(p, q, a)), sign(orient2d(p, q, b)));
            let (o3, o4) = (sign(orient2d(a, b, p)), sign(orient2d(a, b, q)));
            if o1 * o2 < 0 && o3 * o4 < 0 {
                return false;
            }
        }
        let axis = if (q[0] - p[0]).abs() >= (q[1] - p[1]).abs() { 0 } else { 1 };
        let (lo, hi) = (p[axis].min(q[axis]), p[axis].max(q[axis]));
        let mut stops = vec![p, q];
        stops.extend(self.corners.iter().filter(|c| orient2d(p, q, **c) == 0.0 && c[axis] > lo && c[axis] < hi));
        stops.sort_by(|a, b| a[axis].total_cmp(&b[axis]));
        stops.windows(2).all(|w| {
            let mid = [(w[0][0] + w[1][0]) * 0.5, (w[0][1] + w[1][1]) * 0.5];
            w[0] == w[1]
                || self.rings.iter().any(|r| contains(r, mid))
                || self.rings.iter().any(|r| contains(r, w[0]) && contains(r, w[1]))
        })
    }

    fn shortest(&self, s: Point2, g: Point2) -> Option<f64> {
        if self.visible(s, g) {
            return Some(dist(s, g));
        }
        let n = self.corners.len();
        let mut d: Vec<f64> =
            self.corners.iter().map(|&c| if self.visible(s, c) { dist(s, c) } else { f64::INFINITY }).collect();
        let to_goal: Vec<bool> = self.corners.iter().map(|&c| self.visible(c, g)).collect();
        let mut done = vec![false; n];
        let mut best = f64::INFINITY;
        while let Some(u) = (0..n).filter(|&i| !done[i] && d[i].is_finite()).min_by(|&a, &b| d[a].total_cmp(&d[b])) {
            if d[u] >= best {
                break;
            }
            done[u] = true;
            if to_goal[u] {
                best = best.min(d[u] + dist(self.corners[u], g));
            }
            for &(v, w) in &self.graph[u] {
                d[v] = d[v].min(d[u] + w);
            }
        }
        best.is_finite().then_some(best)
    }
}

#[test]
fn shortest_paths_match_the_oracle_on_every_fixture() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    let mut compared = 0;
    for level in &levels {
        let name = level.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let nav = meadow_bake::bake_file(level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mesh = QueryMesh::new(nav);
        // The oracle is a plane visibility graph: it does not apply to floors above one another.
        if mesh.mesh().polygons().any(|p| p.layer != 0) {
            println!("{name}: skipped, several layers");
            continue;
        }
        let r = rings(&mesh);
        for i in 0..r.len() {
            for j in i + 1..r.len() {
                assert!(interiors_disjoint(&r[i], &r[j]), "{name}: polygons {i} and {j} overlap in XZ");
            }
        }
        let oracle = Oracle::new(&mesh);
        let verts = mesh.mesh().vertices();
        let mut rng = SplitMix64::new(7);
        let mut sq = ShortestPathQuery::new(&mesh);
        let mut pq = PathQuery::new(&mesh);
        // The oracle knows walls only: off-mesh links stay off on both sides.
        let filter = QueryFilter::new().without_links();
        let sample = |rng: &mut SplitMix64| -> [f64; 3] {
            loop {
                // Mostly random points; every fourth a mesh vertex (the baked boundaries have many
                // collinear ones).
                let p = if rng.next_u64().is_multiple_of(4) {
                    verts[(rng.next_u64() % verts.len() as u64) as usize]
                } else {
                    mesh.random_point(rng).expect("mesh has area").point
                };
                if mesh.locate(p).is_ok() {
                    return p;
                }
            }
        };
        let (mut found, mut unreachable) = (0, 0);
        for _ in 0..400 {
            let (s, g) = (sample(&mut rng), sample(&mut rng));
            let (sl, gl) = (mesh.locate(s).expect("sampled on the mesh"), mesh.locate(g).expect("sampled on the mesh"));
            let truth = oracle.shortest(xz(sl.point), xz(gl.point));
            match (sq.find_shortest_path(&mesh, s, g, &filter), truth) {
                (Ok(p), Some(t)) => {
                    let flat: f64 = p.points.windows(2).map(|w| dist(xz(w[0]), xz(w[1]))).sum();
                    assert!((flat - t).abs() <= 1e-9 * (1.0 + t), "{name}: {s:?} -> {g:?}: {flat} vs oracle {t}");
                    for w in p.points.windows(2) {
                        assert!(oracle.visible(xz(w[0]), xz(w[1])), "{name}: segment {w:?} leaves the mesh");
                    }
                    // Compared in XZ, where the search is optimal: on ramps an XZ-shorter path
                    // can be longer in 3D.
                    if let Ok(f) = pq.find_path(&mesh, s, g, &filter) {
                        let f_flat: f64 = f.points.windows(2).map(|w| dist(xz(w[0]), xz(w[1]))).sum();
                        assert!(flat <= f_flat + 1e-9 * (1.0 + f_flat), "{name}: longer than find_path");
                    }
                    found += 1;
                }
                (Err(PathError::Unreachable), None) => unreachable += 1,
                (r, t) => panic!("{name}: {s:?} -> {g:?}: shortest {r:?}, oracle {t:?}"),
            }
        }
        println!("{name}: {found} paths equal to the oracle's, {unreachable} unreachable");
        assert!(found > 50, "{name}: only {found} paths");
        compared += found;
    }
    assert!(compared > 1000);
}
