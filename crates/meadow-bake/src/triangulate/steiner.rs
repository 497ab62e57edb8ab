//! Steiner vertices (step 7, [`refine`]): interior edges a caller refuses (the bake: those
//! along which the walkable surface leaves the straight line, see `polygons/creases.rs`) are
//! halved by a new vertex, points the caller names inside triangles (the bake: surface
//! vertices far off a triangle's plane) become vertices, and the triangles are flipped back to
//! Delaunay, round after round.
//!
//! Input: a Delaunay [`Triangulation`] as [`make_delaunay`](super::make_delaunay) leaves it.
//! Output: the same area, with vertices added inside it (after the ring vertices), Delaunay
//! again. Ring edges are never split here: the rings were split before triangulating, alike on
//! both sides of a shared edge.

use super::delaunay::make_delaunay_keeping;
use super::Triangulation;
use meadow::geom::{orient2d, Point2};
use std::collections::HashSet;

/// Most rounds of refinement: each round halves every refused edge once, so this bounds the
/// halvings of one crossing (a 12 m edge reaches the 0.1 m floor of the bake in 7).
pub const MAX_REFINE_ROUNDS: usize = 16;

/// What [`refine`] asks of its caller.
pub trait Refinement {
    /// Whether the interior edge from `a` to `b` (lower end, by x then z, first) may stay.
    /// Must accept short edges for the rounds to end early.
    fn keeps(&mut self, a: Point2, b: Point2) -> bool;
    /// A point strictly inside the counter-clockwise triangle `corners` that must become a
    /// vertex, if any (a point elsewhere is ignored).
    fn point_inside(&mut self, corners: [Point2; 3]) -> Option<Point2>;
}

/// Splits, at its midpoint, every interior edge of `t` that `r` refuses, makes every point `r`
/// names inside a triangle a vertex, flips back to Delaunay, and repeats until nothing changes
/// or [`MAX_REFINE_ROUNDS`] rounds have run; returns the vertices added. The edges in `fixed`
/// (the Meadow split's diagonals) are neither split nor flipped.
///
/// A triangle changed in a round waits for the next round for its other edges and its inside.
/// Work order is fixed: same input, same output.
pub fn refine(t: &mut Triangulation, fixed: &[[u32; 2]], r: &mut dyn Refinement) -> usize {
    let before = t.vertices.len();
    let mut keys: Vec<(u32, u32)> = fixed.iter().map(|&[a, b]| (a.min(b), a.max(b))).collect();
    keys.sort_unstable();
    let mut kept = Kept::default();
    for _ in 0..MAX_REFINE_ROUNDS {
        if !refine_round(t, &keys, r, &mut kept) {
            break;
        }
        make_delaunay_keeping(t, fixed);
    }
    t.vertices.len() - before
}

/// The edges and triangles a [`Refinement`] accepted in earlier rounds, by vertex indices: they
/// are not asked again (most of a triangulation outlives a round's flips). Only looked up,
/// never iterated, so the hashing order does not reach the output.
#[derive(Default)]
struct Kept {
    edges: HashSet<(u32, u32)>,
    triangles: HashSet<[u32; 3]>,
}

/// One round: splits each refused interior edge whose two triangles no earlier split of the
/// round touched, then gives each untouched triangle the point inside it that `r` names;
/// whether anything changed.
fn refine_round(t: &mut Triangulation, fixed: &[(u32, u32)], r: &mut dyn Refinement, kept: &mut Kept) -> bool {
    // Half-edges by undirected edge: interior edges are the runs of two, opposite ways.
    let mut halves: Vec<((u32, u32), u32, u8)> = Vec::with_capacity(t.triangles.len() * 3);
    for (i, tri) in t.triangles.iter().enumerate() {
        for k in 0..3 {
            let (u, v) = (tri[k], tri[(k + 1) % 3]);
            halves.push(((u.min(v), u.max(v)), i as u32, k as u8));
        }
    }
    halves.sort_unstable();
    let triangles = t.triangles.len();
    let mut touched = vec![false; triangles];
    let mut any = false;
    let mut s = 0;
    while s < halves.len() {
        let mut e = s + 1;
        while e < halves.len() && halves[e].0 == halves[s].0 {
            e += 1;
        }
        if e - s == 2 {
            let ((lo, hi), i, ki) = halves[s];
            let (_, j, kj) = halves[s + 1];
            let (i, j) = (i as usize, j as usize);
            let (pa, pb) = (t.vertices[lo as usize], t.vertices[hi as usize]);
            let (pa, pb) = if (pa[0], pa[1]) <= (pb[0], pb[1]) { (pa, pb) } else { (pb, pa) };
            let free = fixed.binary_search(&(lo, hi)).is_err() && !kept.edges.contains(&(lo, hi));
            let refused = i != j && !touched[i] && !touched[j] && free && {
                let keeps = r.keeps(pa, pb);
                if keeps {
                    kept.edges.insert((lo, hi));
                }
                !keeps
            };
            if refused {
                let Ok(m) = u32::try_from(t.vertices.len()) else {
                    return any;
                };
                let (pu, pv) = (t.vertices[lo as usize], t.vertices[hi as usize]);
                t.vertices.push([(pu[0] + pv[0]) / 2.0, (pu[1] + pv[1]) / 2.0]);
                split_triangle(t, i, ki as usize, m);
                split_triangle(t, j, kj as usize, m);
                touched[i] = true;
                touched[j] = true;
                any = true;
            }
        }
        s = e;
    }
    for (i, _) in touched.iter().enumerate().filter(|(_, &t)| !t) {
        let tri = t.triangles[i];
        let mut key = tri;
        key.sort_unstable();
        if kept.triangles.contains(&key) {
            continue;
        }
        let corners = tri.map(|v| t.vertices[v as usize]);
        let Some(p) = r.point_inside(corners) else {
            kept.triangles.insert(key);
            continue;
        };
        let inside = (0..3).all(|k| orient2d(corners[k], corners[(k + 1) % 3], p) > 0.0);
        let Ok(m) = u32::try_from(t.vertices.len()) else {
            return any;
        };
        if inside {
            t.vertices.push(p);
            t.triangles[i] = [tri[0], tri[1], m];
            t.triangles.push([tri[1], tri[2], m]);
            t.triangles.push([tri[2], tri[0], m]);
            any = true;
        }
    }
    any
}

/// Splits triangle `i`, whose edge at slot `k` (from corner `k` to the next) has its midpoint at
/// vertex `m`, into two counter-clockwise triangles.
fn split_triangle(t: &mut Triangulation, i: usize, k: usize, m: u32) {
    let tri = t.triangles[i];
    let (u, v, w) = (tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]);
    t.triangles[i] = [u, m, w];
    t.triangles.push([m, v, w]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triangulate::checks::{area2, flippable_edges};
    use std::collections::BTreeSet;

    /// Counter-clockwise triangles, each directed edge once, covering `area`, Delaunay.
    fn check(t: &Triangulation, area: f64) {
        let v = &t.vertices;
        let mut edges = BTreeSet::new();
        for tri in &t.triangles {
            assert!(orient2d(v[tri[0] as usize], v[tri[1] as usize], v[tri[2] as usize]) > 0.0);
            for k in 0..3 {
                assert!(edges.insert((tri[k], tri[(k + 1) % 3])), "directed edge used twice");
            }
        }
        let total: f64 = t.triangles.iter().map(|&tri| area2(v, tri) * 0.5).sum();
        assert!((total - area).abs() < 1e-12, "area {total}");
        assert!(flippable_edges(t).is_empty());
    }

    /// Refuses edges by a rule and names at most one point per triangle.
    struct Rule<K: FnMut(Point2, Point2) -> bool> {
        keep: K,
        point: Option<Point2>,
    }

    impl<K: FnMut(Point2, Point2) -> bool> Refinement for Rule<K> {
        fn keeps(&mut self, a: Point2, b: Point2) -> bool {
            (self.keep)(a, b)
        }
        fn point_inside(&mut self, corners: [Point2; 3]) -> Option<Point2> {
            let p = self.point?;
            (0..3).all(|k| orient2d(corners[k], corners[(k + 1) % 3], p) > 0.0).then_some(p)
        }
    }

    #[test]
    fn a_named_point_becomes_a_vertex() {
        let mut t = Triangulation {
            vertices: vec![[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        };
        let added = refine(&mut t, &[], &mut Rule { keep: |_, _| true, point: Some([3.0, 1.0]) });
        assert_eq!(added, 1);
        assert_eq!(t.vertices[4], [3.0, 1.0]);
        assert!(t.triangles.iter().filter(|tri| tri.contains(&4)).count() >= 3);
        check(&t, 16.0);
    }

    #[test]
    fn a_refused_diagonal_is_split_and_the_area_kept() {
        // A long thin rectangle: its diagonals run the length; refuse every edge crossing
        // z = 5 diagonally (not the ring's sides), as a crease across it would.
        let mut t = Triangulation {
            vertices: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 10.0], [0.0, 10.0]],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        };
        let keep = |a: Point2, b: Point2| (a[1] - 5.0) * (b[1] - 5.0) >= 0.0 || a[0] == b[0];
        let added = refine(&mut t, &[], &mut Rule { keep, point: None });
        assert!(added > 0);
        check(&t, 10.0);
        for tri in &t.triangles {
            for k in 0..3 {
                let (a, b) = (t.vertices[tri[k] as usize], t.vertices[tri[(k + 1) % 3] as usize]);
                let crosses = (a[1] - 5.0) * (b[1] - 5.0) < 0.0 && a[0] != b[0];
                let ring = (a[0] == b[0] && (a[0] == 0.0 || a[0] == 1.0)) || a[1] == b[1];
                assert!(!crosses || ring, "edge {a:?}-{b:?} still crosses z = 5");
            }
        }
    }

    #[test]
    fn nothing_refused_changes_nothing() {
        let mut t = Triangulation {
            vertices: vec![[0.0, 0.0], [1.0, 0.0], [1.0, 10.0], [0.0, 10.0]],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        };
        let original = t.clone();
        assert_eq!(refine(&mut t, &[], &mut Rule { keep: |_, _| true, point: None }), 0);
        assert_eq!(t, original);
    }
}
