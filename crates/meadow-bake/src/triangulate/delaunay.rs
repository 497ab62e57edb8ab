//! Flip (step 6, [`make_delaunay`]): Lawson's edge flips turn the ear-clipped triangles into
//! the constrained Delaunay triangulation of the rings.
//!
//! Input: a [`Triangulation`] as [`triangulate`](super::triangulate) makes it. Output: the same
//! triangulation, flipped in place.

use super::Triangulation;
use meadow::geom::{incircle, orient2d, Point2};
use std::collections::{BTreeSet, VecDeque};

/// No half-edge: the missing twin of a constraint edge, or the end of a corner list.
pub(super) const NONE: u32 = u32::MAX;

/// Flips interior edges of `t` until each is locally Delaunay or cannot be flipped: makes an
/// ear-clipped triangulation the constrained Delaunay triangulation of its rings.
///
/// An interior edge is one used by exactly two triangles, once in each direction; every other
/// edge (a ring edge, used by one triangle) is a constraint and stays. An interior edge is
/// flipped when the far vertex of one triangle lies strictly inside the other's circumcircle
/// ([`incircle`] > 0) and the two triangles form a strictly convex quad ([`orient2d`]), unless
/// the new diagonal already is an edge elsewhere (a guard for welded vertices: in triangles
/// that do not overlap it cannot happen). The triangles keep covering the same area with the
/// same vertices, counter-clockwise. The work order is fixed: same input, same output.
///
/// `t` should be as [`triangulate`](super::triangulate) makes it: counter-clockwise triangles that do not overlap,
/// each directed edge used once. Other input gets no guarantee beyond ending without a panic
/// (triangles indexing past the vertices: left alone).
pub fn make_delaunay(t: &mut Triangulation) {
    let Some(mut flipper) = Flipper::new(&t.vertices, &mut t.triangles) else {
        return;
    };
    flipper.run();
}

/// [`make_delaunay`] with the edges in `fixed` (vertex pairs, either way round) kept as
/// constraints too, as the ring edges are.
pub(super) fn make_delaunay_keeping(t: &mut Triangulation, fixed: &[[u32; 2]]) {
    let Some(mut flipper) = Flipper::new(&t.vertices, &mut t.triangles) else {
        return;
    };
    if !fixed.is_empty() {
        let fixed: BTreeSet<(u32, u32)> = fixed.iter().map(|&[a, b]| (a.min(b), a.max(b))).collect();
        for h in 0..flipper.twin.len() as u32 {
            let (u, v) = (flipper.corner(h), flipper.corner(h - h % 3 + (h % 3 + 1) % 3));
            if fixed.contains(&(u.min(v), u.max(v))) {
                flipper.twin[h as usize] = NONE;
            }
        }
    }
    flipper.run();
}

/// Lawson's flip algorithm over a half-edge view of the triangles. Half-edge `h` is the edge
/// from corner `h % 3` of triangle `h / 3` to the next corner; corner `h` is that vertex.
pub(super) struct Flipper<'a> {
    pub(super) pos: &'a [Point2],
    pub(super) tris: &'a mut [[u32; 3]],
    /// The opposite half-edge of each interior edge; `NONE` on constraints.
    pub(super) twin: Vec<u32>,
    /// Each vertex's first corner and number of corners, then the previous and next corner
    /// at the same vertex (a doubly linked list): the triangles around a vertex, for the test
    /// whether an edge exists.
    pub(super) first_corner: Vec<[u32; 2]>,
    pub(super) corner_links: Vec<[u32; 2]>,
}

impl<'a> Flipper<'a> {
    /// The half-edge view of `tris`; `None` if a triangle indexes past `pos` or there are too
    /// many triangles for `u32` half-edge ids.
    pub(super) fn new(pos: &'a [Point2], tris: &'a mut [[u32; 3]]) -> Option<Flipper<'a>> {
        let halves = tris.len().checked_mul(3).filter(|&h| h < NONE as usize)?;
        if tris.iter().flatten().any(|&v| v as usize >= pos.len()) {
            return None;
        }
        // Half-edges by undirected edge: twins are the runs of exactly two, opposite ways.
        let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(halves);
        for (i, tri) in tris.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k] as u64, tri[(k + 1) % 3] as u64);
                keyed.push((a.min(b) << 32 | a.max(b), (3 * i + k) as u32));
            }
        }
        keyed.sort_unstable();
        let mut twin = vec![NONE; halves];
        for run in keyed.chunk_by(|x, y| x.0 == y.0) {
            if let [(_, h), (_, g)] = *run {
                let origin = |h: u32| tris[h as usize / 3][h as usize % 3];
                if origin(h) != origin(g) {
                    twin[h as usize] = g;
                    twin[g as usize] = h;
                }
            }
        }
        let mut flipper = Flipper {
            pos,
            tris,
            twin,
            first_corner: vec![[NONE, 0]; pos.len()],
            corner_links: vec![[NONE; 2]; halves],
        };
        for c in 0..halves as u32 {
            flipper.link_corner(c);
        }
        Some(flipper)
    }

    /// The vertex at corner (half-edge origin) `c`.
    pub(super) fn corner(&self, c: u32) -> u32 {
        self.tris[c as usize / 3][c as usize % 3]
    }

    fn link_corner(&mut self, c: u32) {
        let v = self.corner(c) as usize;
        let [head, degree] = self.first_corner[v];
        self.corner_links[c as usize] = [NONE, head];
        if head != NONE {
            self.corner_links[head as usize][0] = c;
        }
        self.first_corner[v] = [c, degree + 1];
    }

    fn unlink_corner(&mut self, c: u32) {
        let [p, n] = self.corner_links[c as usize];
        let v = self.corner(c) as usize;
        self.first_corner[v][1] -= 1;
        if p == NONE {
            self.first_corner[v][0] = n;
        } else {
            self.corner_links[p as usize][1] = n;
        }
        if n != NONE {
            self.corner_links[n as usize][0] = p;
        }
    }

    /// Whether some triangle has both `u` and `v` as corners.
    pub(super) fn has_edge(&self, u: u32, v: u32) -> bool {
        // Round the vertex with fewer triangles: a fan's apex can have thousands.
        let (u, v) = if self.first_corner[u as usize][1] <= self.first_corner[v as usize][1] { (u, v) } else { (v, u) };
        let mut c = self.first_corner[u as usize][0];
        while c != NONE {
            if self.tris[c as usize / 3].contains(&v) {
                return true;
            }
            c = self.corner_links[c as usize][1];
        }
        false
    }

    fn pair(&mut self, h: u32, g: u32) {
        self.twin[h as usize] = g;
        if g != NONE {
            self.twin[g as usize] = h;
        }
    }

    /// Flips every interior edge that is not locally Delaunay, rechecking the quad's sides
    /// after each flip.
    pub(super) fn run(&mut self) {
        let halves = self.twin.len() as u32;
        // Each edge is queued once, by its lower half-edge, in order; the sides of flipped
        // quads go to the back.
        let mut queued = vec![false; halves as usize];
        let mut queue: VecDeque<u32> = (0..halves).filter(|&h| h < self.twin[h as usize]).collect();
        for &h in &queue {
            queued[h as usize] = true;
        }
        // Every flip lowers the lifted surface, so an edge flipped away never returns: at most
        // one flip per vertex pair. The bound only guards against a broken invariant.
        let n = self.pos.len() as u64;
        let mut flips_left = n * n.saturating_sub(1) / 2 + 1;
        while let Some(h) = queue.pop_front() {
            queued[h as usize] = false;
            if flips_left == 0 {
                break;
            }
            if let Some(sides) = self.flip_if_needed(h) {
                flips_left -= 1;
                // The quad's four sides have new opposite vertices.
                for s in sides {
                    let g = self.twin[s as usize];
                    if g != NONE && !queued[s as usize] && !queued[g as usize] {
                        queued[s as usize] = true;
                        queue.push_back(s);
                    }
                }
            }
        }
    }

    /// Flips the edge of half-edge `h` if it is interior, not locally Delaunay, its quad is
    /// strictly convex and the other diagonal is not an edge yet; returns the quad's sides.
    fn flip_if_needed(&mut self, h: u32) -> Option<[u32; 4]> {
        let g = self.twin[h as usize];
        if g == NONE || h / 3 == g / 3 {
            return None;
        }
        // Triangle i is a b c with h = a → b at slot ki; triangle j is b a d with g = b → a.
        let (i, j) = (h as usize / 3, g as usize / 3);
        let (ki, kj) = (h as usize % 3, g as usize % 3);
        let (ki1, ki2, kj2) = ((ki + 1) % 3, (ki + 2) % 3, (kj + 2) % 3);
        let (a, b, c, d) = (self.tris[i][ki], self.tris[i][ki1], self.tris[i][ki2], self.tris[j][kj2]);
        let p = |v: u32| self.pos[v as usize];
        let (pa, pb, pc, pd) = (p(a), p(b), p(c), p(d));
        // Not locally Delaunay, and c → d crosses a → b strictly inside both.
        if !(incircle(pa, pb, pc, pd) > 0.0 && orient2d(pc, pd, pa) < 0.0 && orient2d(pc, pd, pb) > 0.0) {
            return None;
        }
        if c == d || self.has_edge(c, d) {
            return None;
        }
        Some(self.flip(h))
    }

    /// Flips the interior edge of half-edge `h`, whose quad the caller found strictly convex
    /// with the other diagonal not an edge yet; returns the quad's sides.
    pub(super) fn flip(&mut self, h: u32) -> [u32; 4] {
        let g = self.twin[h as usize];
        let (i, j) = (h as usize / 3, g as usize / 3);
        let (ki, kj) = (h as usize % 3, g as usize % 3);
        let (ki1, ki2, kj1, kj2) = ((ki + 1) % 3, (ki + 2) % 3, (kj + 1) % 3, (kj + 2) % 3);
        let (c, d) = (self.tris[i][ki2], self.tris[j][kj2]);
        // Triangle i becomes a d c and j becomes b c d: one corner each changes (b → d in i,
        // a → c in j), the sides c → a and d → b keep their slots and twins.
        let (hi1, hj1) = ((3 * i + ki1) as u32, (3 * j + kj1) as u32);
        let (bc, ad) = (self.twin[hi1 as usize], self.twin[hj1 as usize]);
        self.unlink_corner(hi1);
        self.unlink_corner(hj1);
        self.tris[i][ki1] = d;
        self.tris[j][kj1] = c;
        self.link_corner(hi1);
        self.link_corner(hj1);
        self.pair(h, ad);
        self.pair(g, bc);
        self.pair(hi1, hj1);
        [h, (3 * i + ki2) as u32, g, (3 * j + kj2) as u32]
    }
}
