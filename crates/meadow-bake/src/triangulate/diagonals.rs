//! Reflex diagonals (step 8, [`insert_reflex_diagonals`], for `partition = "meadow"`): the
//! diagonals of Arkin's Meadow mapping, made edges of the triangulation.
//!
//! Meadow mapping splits a polygon at a reflex vertex (a sector of the free area wider than
//! 180 degrees) by a diagonal to a vertex it sees, until every piece is convex. A diagonal
//! between two reflex vertices that lies in the resolving wedge of both resolves two at once,
//! and a convex partition needs at least one diagonal end per reflex vertex, so the split
//! first takes such pairs, shortest first, then gives every reflex sector left a diagonal of
//! its own to the nearest vertex that resolves it. The triangulation stands for the polygon:
//! it already settled its touching rings and holes (step 2 to 5), so a candidate diagonal is a
//! walk through its triangles from one end to the other that crosses no ring edge, no earlier
//! diagonal and no vertex; an accepted one is made an edge by flipping the edges it crosses
//! (Sloan's insertion). The merge ([`crate::convex`]) then rebuilds the pieces the diagonals
//! bound from their triangles, and merges across diagonals last.
//!
//! Input: a [`Triangulation`] as [`triangulate`](super::triangulate) makes it. Output: the same
//! triangulation with the diagonals as edges, and the diagonals. Every decision goes through
//! [`orient2d`]; the work order is fixed, so the same input gives the same output.

use super::delaunay::{Flipper, NONE};
use super::Triangulation;
use meadow::geom::{orient2d, Point2};
use std::collections::{BTreeSet, VecDeque};

/// Most reflex sectors examined as partners of each reflex sector (pairs), nearest first: a
/// bound on the work per sector. On the shared levels 256 finds 1% fewer polygons than 48 and
/// takes 2.5 times as long on a generated 100,000-triangle world.
pub const MAX_PAIR_CANDIDATES: usize = 48;

/// Most vertices examined as the end of a single diagonal per reflex sector, nearest first: a
/// bound on the work per sector. Polygon counts stop falling at 256 on the shared levels
/// (dungeon: 1,024 polygons at 48, 983 at 256 and at 4,096).
pub const MAX_DIAGONAL_CANDIDATES: usize = 256;

/// Work budget of the split per triangle of the polygon (plus [`SPLIT_WORK_BASE`]), in steps: a
/// triangle a candidate's walk enters, or an edge an insertion takes from its queue. Past it no
/// more diagonals are added (the merge resolves what is left), so a hostile polygon cannot stall
/// the bake. The shared game levels use well under a tenth of it.
pub const SPLIT_WORK_PER_TRIANGLE: u64 = 4_096;

/// The part of the split's work budget that does not grow with the polygon, in steps.
pub const SPLIT_WORK_BASE: u64 = 1 << 16;

/// Sloan's insertion takes each crossed edge from its queue at most about this many times the
/// number of crossed edges (it terminates in O(k^2) flips for k crossings): a guard against a
/// broken invariant, not a limit any valid input meets.
const INSERT_WORK_PER_CROSSING2: u64 = 64;

/// The part of the insertion guard that does not grow with the crossings, in queue steps.
const INSERT_WORK_BASE: u64 = 1_000;

/// Smallest side of the candidate grid's box and smallest cell, metres: keeps the cell size
/// positive for points on a line or at one place.
const NEAR_GRID_MIN_EXTENT: f64 = 1e-9;

/// Most cells along the longer side of the candidate grid (at most about 2^20 cells in all).
const NEAR_GRID_SIDE_CELLS: f64 = 1024.0;

/// Makes the Meadow split's diagonals edges of `t` (see the module docs) and returns them, each
/// as its two vertex indices, lower first, in the order they were chosen.
///
/// `t` should be as [`triangulate`](super::triangulate) makes it; other input gets no
/// guarantee beyond ending without a panic, with `t` a triangulation of the same area.
/// `on_surface(a, b)` says whether a diagonal from `a` to `b` may be used: the bake refuses
/// those along which the walkable surface leaves the straight line between the ends' heights
/// (a long diagonal over a hill would make a flat polygon that leaves the surface).
pub fn insert_reflex_diagonals(
    t: &mut Triangulation,
    on_surface: &mut dyn FnMut(Point2, Point2) -> bool,
) -> Vec<[u32; 2]> {
    let work_left = SPLIT_WORK_BASE.saturating_add(SPLIT_WORK_PER_TRIANGLE.saturating_mul(t.triangles.len() as u64));
    let Some(flipper) = Flipper::new(&t.vertices, &mut t.triangles) else {
        return Vec::new();
    };
    let mut split = Splitter { f: flipper, fixed: BTreeSet::new(), chosen: Vec::new(), reflex: Vec::new(), work_left };
    split.reflex = (0..split.f.pos.len() as u32).map(|v| split.reflex_sectors(v)).collect();
    split.pair_reflex_sectors(on_surface);
    split.resolve_remaining(on_surface);
    split.restore_delaunay();
    split.chosen
}

/// A fan of triangles round vertex `apex` between two walls (ring edges or chosen diagonals):
/// `first` is the far end of the clockwise wall, `last` of the counter-clockwise one.
#[derive(Clone, Copy, Debug)]
struct Sector {
    apex: u32,
    first: u32,
    last: u32,
}

struct Splitter<'a> {
    f: Flipper<'a>,
    /// The chosen diagonals, as (lower, higher) vertex index.
    fixed: BTreeSet<(u32, u32)>,
    chosen: Vec<[u32; 2]>,
    /// Per vertex: its reflex sectors, kept current (a diagonal changes only its two ends'
    /// sectors: flips never move a wall).
    reflex: Vec<Vec<Sector>>,
    /// Steps left of the work budget ([`SPLIT_WORK_PER_TRIANGLE`]).
    work_left: u64,
}

fn key(u: u32, v: u32) -> (u32, u32) {
    (u.min(v), u.max(v))
}

/// Whether `p` lies beyond `o` in the same direction as `q` does, given that the three are
/// collinear.
fn same_direction(o: Point2, q: Point2, p: Point2) -> bool {
    (q[0] - o[0]) * (p[0] - o[0]) + (q[1] - o[1]) * (p[1] - o[1]) > 0.0
}

impl Splitter<'_> {
    fn pos(&self, v: u32) -> Point2 {
        self.f.pos[v as usize]
    }

    /// The vertex a half-edge ends at.
    fn head(&self, h: u32) -> u32 {
        self.f.tris[h as usize / 3][(h as usize % 3 + 1) % 3]
    }

    /// Whether the edge of half-edge `h` (from `u` to `v`) is a wall: a ring edge or a diagonal.
    fn is_wall(&self, h: u32, u: u32, v: u32) -> bool {
        self.f.twin[h as usize] == NONE || self.fixed.contains(&key(u, v))
    }

    /// The corners (half-edge ids) at vertex `v`.
    fn corners(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.f.first_corner[v as usize][0];
        std::iter::successors((first != NONE).then_some(first), move |&c| {
            let next = self.f.corner_links[c as usize][1];
            (next != NONE).then_some(next)
        })
    }

    /// The sectors at vertex `v`, in corner-list order.
    fn sectors(&self, v: u32) -> Vec<Sector> {
        let degree = self.f.first_corner[v as usize][1];
        let mut out = Vec::new();
        for c in self.corners(v) {
            let first = self.head(c);
            if !self.is_wall(c, v, first) {
                continue;
            }
            // Round the apex counter-clockwise: the incoming half-edge of each triangle leads,
            // through its twin, to the next triangle's outgoing one.
            let mut at = c;
            for _ in 0..=degree {
                let incoming = 3 * (at / 3) + (at % 3 + 2) % 3;
                let from = self.f.corner(incoming);
                if self.is_wall(incoming, from, v) {
                    out.push(Sector { apex: v, first, last: from });
                    break;
                }
                at = self.f.twin[incoming as usize];
            }
        }
        out
    }

    /// The sectors at `v` wider than 180 degrees.
    fn reflex_sectors(&self, v: u32) -> Vec<Sector> {
        if self.f.first_corner[v as usize][1] == 0 {
            return Vec::new();
        }
        self.sectors(v).into_iter().filter(|&s| self.is_reflex(s)).collect()
    }

    /// Whether the sector is wider than 180 degrees.
    fn is_reflex(&self, s: Sector) -> bool {
        orient2d(self.pos(s.apex), self.pos(s.first), self.pos(s.last)) < 0.0
    }

    /// Whether a diagonal from the apex of reflex sector `s` to `u` leaves both parts of the
    /// sector at most 180 degrees wide.
    fn resolves(&self, s: Sector, u: u32) -> bool {
        let (v, f, l, p) = (self.pos(s.apex), self.pos(s.first), self.pos(s.last), self.pos(u));
        let (of, ol) = (orient2d(v, f, p), orient2d(v, p, l));
        of >= 0.0 && ol >= 0.0 && !(of == 0.0 && same_direction(v, f, p)) && !(ol == 0.0 && same_direction(v, l, p))
    }

    /// Whether a reflex sector at `u` holds the direction to `v` strictly inside: a diagonal
    /// `u – v` narrows it.
    fn narrows_reflex(&self, u: u32, v: u32) -> bool {
        let (pu, pv) = (self.pos(u), self.pos(v));
        self.reflex[u as usize].iter().any(|&t| {
            let (f, l) = (self.pos(t.first), self.pos(t.last));
            let (of, ol) = (orient2d(pu, f, pv), orient2d(pu, pv, l));
            // Outside means strictly inside the convex complement from `last` round to `first`.
            let outside = orient2d(pu, l, pv) >= 0.0 && orient2d(pu, pv, f) >= 0.0;
            !(outside || of == 0.0 || ol == 0.0)
        })
    }

    /// The edges (as (right, left) of `v → u`) the segment from `v` to `u` crosses, when it runs
    /// through the triangles from `v` to `u` crossing no wall and touching no other vertex.
    fn walk(&mut self, v: u32, u: u32) -> Option<Vec<(u32, u32)>> {
        let (pv, pu) = (self.pos(v), self.pos(u));
        if pv == pu {
            return None;
        }
        let mut start = None;
        for c in self.corners(v) {
            let tri = self.f.tris[c as usize / 3];
            let (a, b) = (tri[(c as usize % 3 + 1) % 3], tri[(c as usize % 3 + 2) % 3]);
            if a == u || b == u {
                return Some(Vec::new());
            }
            let (oa, ob) = (orient2d(pv, self.pos(a), pu), orient2d(pv, pu, self.pos(b)));
            if oa < 0.0 || ob < 0.0 {
                continue;
            }
            if (oa == 0.0 && same_direction(pv, self.pos(a), pu)) || (ob == 0.0 && same_direction(pv, self.pos(b), pu))
            {
                // A vertex on the segment (or a zero-area corner): blocked.
                return None;
            }
            if oa > 0.0 && ob > 0.0 {
                start = Some(3 * (c / 3) + (c % 3 + 1) % 3);
                break;
            }
        }
        // `e` is the half-edge x → y crossed, x right of v → u and y left.
        let mut e = start?;
        let mut crossed = Vec::new();
        for _ in 0..self.f.tris.len() {
            if self.work_left == 0 {
                return None;
            }
            self.work_left -= 1;
            let (x, y) = (self.f.corner(e), self.head(e));
            if orient2d(self.pos(x), self.pos(y), pu) >= 0.0 || self.is_wall(e, x, y) {
                return None;
            }
            crossed.push((x, y));
            let g = self.f.twin[e as usize];
            let d = self.f.corner(3 * (g / 3) + (g % 3 + 2) % 3);
            if d == u {
                return Some(crossed);
            }
            let od = orient2d(pv, pu, self.pos(d));
            e = if od > 0.0 {
                3 * (g / 3) + (g % 3 + 1) % 3
            } else if od < 0.0 {
                3 * (g / 3) + (g % 3 + 2) % 3
            } else {
                return None;
            };
        }
        None
    }

    /// The half-edge from `x` to `y`, if there is one.
    fn half_edge(&self, x: u32, y: u32) -> Option<u32> {
        self.corners(x).find(|&c| self.head(c) == y)
    }

    /// Makes `v – u` an edge by flipping the edges it crosses (Sloan's insertion: a crossed edge
    /// whose quad is strictly convex is flipped, the others wait their turn) and fixes it as a
    /// wall. Every flip keeps a valid triangulation, so a give-up (the work bound, a guard
    /// against a broken invariant) leaves the triangles covering the same area.
    fn insert(&mut self, v: u32, u: u32, crossed: Vec<(u32, u32)>) -> bool {
        let (pv, pu) = (self.pos(v), self.pos(u));
        let n = crossed.len() as u64 + 1;
        let mut work_left = INSERT_WORK_PER_CROSSING2 * n * n + INSERT_WORK_BASE;
        let mut queue: VecDeque<(u32, u32)> = crossed.into();
        while let Some((x, y)) = queue.pop_front() {
            if work_left == 0 || self.work_left == 0 {
                return false;
            }
            work_left -= 1;
            self.work_left -= 1;
            let Some(h) = self.half_edge(x, y) else {
                return false;
            };
            let g = self.f.twin[h as usize];
            if g == NONE {
                return false;
            }
            let c = self.f.corner(3 * (h / 3) + (h % 3 + 2) % 3);
            let d = self.f.corner(3 * (g / 3) + (g % 3 + 2) % 3);
            let (px, py, pc, pd) = (self.pos(x), self.pos(y), self.pos(c), self.pos(d));
            let convex = orient2d(pc, pd, px) < 0.0 && orient2d(pc, pd, py) > 0.0;
            if !convex || c == d || self.f.has_edge(c, d) {
                queue.push_back((x, y));
                continue;
            }
            self.f.flip(h);
            if key(c, d) == key(v, u) {
                continue;
            }
            let (oc, od) = (orient2d(pv, pu, pc), orient2d(pv, pu, pd));
            if oc < 0.0 && od > 0.0 {
                queue.push_back((c, d));
            } else if oc > 0.0 && od < 0.0 {
                queue.push_back((d, c));
            }
        }
        if self.fixed.insert(key(v, u)) {
            self.chosen.push([v.min(u), v.max(u)]);
            self.reflex[v as usize] = self.reflex_sectors(v);
            self.reflex[u as usize] = self.reflex_sectors(u);
        }
        true
    }

    /// Flips the triangulation back to the constrained Delaunay triangulation of the rings and
    /// the chosen diagonals. Sloan's insertion leaves long edges of its own wherever it flipped
    /// (a fan from a diagonal's end across the polygon); those would bound polygons of the
    /// merge as much as the diagonals do, without having been checked against the surface.
    fn restore_delaunay(&mut self) {
        for &[v, u] in &self.chosen {
            if let Some(h) = self.half_edge(v, u) {
                let g = self.f.twin[h as usize];
                self.f.twin[h as usize] = NONE;
                if g != NONE {
                    self.f.twin[g as usize] = NONE;
                }
            }
        }
        self.f.run();
    }

    /// The vertices with triangles.
    fn used(&self) -> Vec<u32> {
        (0..self.f.pos.len() as u32).filter(|&v| self.f.first_corner[v as usize][1] > 0).collect()
    }

    /// Phase 1: diagonals that resolve two reflex sectors at once, shortest first.
    fn pair_reflex_sectors(&mut self, on_surface: &mut dyn FnMut(Point2, Point2) -> bool) {
        let reflex: Vec<Sector> = self.reflex.iter().flatten().copied().collect();
        if reflex.len() < 2 {
            return;
        }
        let grid = NearGrid::new(reflex.iter().map(|s| self.pos(s.apex)).collect());
        let mut pairs: Vec<(f64, u32, u32)> = Vec::new();
        for (i, &s) in reflex.iter().enumerate() {
            let p = self.pos(s.apex);
            for j in grid.nearest(p, MAX_PAIR_CANDIDATES) {
                let t = reflex[j as usize];
                if t.apex == s.apex || !self.resolves(s, t.apex) || !self.resolves(t, s.apex) {
                    continue;
                }
                let q = self.pos(t.apex);
                let d2 = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
                pairs.push((d2, (i as u32).min(j), (i as u32).max(j)));
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        pairs.dedup();
        let mut resolved = vec![false; reflex.len()];
        for (_, i, j) in pairs {
            let (i, j) = (i as usize, j as usize);
            if resolved[i] || resolved[j] {
                continue;
            }
            let (v, u) = (reflex[i].apex, reflex[j].apex);
            if let Some(crossed) = self.walk(v, u).filter(|_| on_surface(self.pos(v), self.pos(u))) {
                if self.insert(v, u, crossed) {
                    resolved[i] = true;
                    resolved[j] = true;
                }
            }
        }
    }

    /// Phase 2: a diagonal of its own for every reflex sector left, to the nearest vertex that
    /// resolves it (sectors that no examined vertex resolves are left to the merge).
    fn resolve_remaining(&mut self, on_surface: &mut dyn FnMut(Point2, Point2) -> bool) {
        let used = self.used();
        if used.len() < 3 {
            return;
        }
        let grid = NearGrid::new(used.iter().map(|&v| self.pos(v)).collect());
        for &v in &used {
            // A sector may change as diagonals from other vertices land on it: read them anew.
            let mut tries = 0;
            while let Some(&s) = self.reflex[v as usize].first() {
                tries += 1;
                if tries > 4 {
                    break;
                }
                let p = self.pos(v);
                let mut candidates: Vec<u32> = grid
                    .nearest(p, MAX_DIAGONAL_CANDIDATES)
                    .into_iter()
                    .map(|k| used[k as usize])
                    .filter(|&u| u != v && self.resolves(s, u))
                    .collect();
                // Ends at another reflex sector that the diagonal narrows go first (stable:
                // nearest first within each group).
                candidates.sort_by_cached_key(|&u| !self.narrows_reflex(u, v));
                let mut done = false;
                for u in candidates {
                    if let Some(crossed) = self.walk(v, u).filter(|_| on_surface(self.pos(v), self.pos(u))) {
                        done = self.insert(v, u, crossed);
                        if done {
                            break;
                        }
                    }
                }
                if !done {
                    break;
                }
            }
        }
    }
}

/// A uniform grid of points for nearest-first candidate lists.
struct NearGrid {
    points: Vec<Point2>,
    origin: Point2,
    cell: f64,
    columns: usize,
    rows: usize,
    /// Point indices by cell (row-major), each cell's run in `items`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl NearGrid {
    fn new(points: Vec<Point2>) -> NearGrid {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in &points {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        // About two points per cell.
        let (w, h) = ((hi[0] - lo[0]).max(NEAR_GRID_MIN_EXTENT), (hi[1] - lo[1]).max(NEAR_GRID_MIN_EXTENT));
        let cells = (points.len() / 2).max(1) as f64;
        let cell = ((w * h) / cells).sqrt().max(w.max(h) / NEAR_GRID_SIDE_CELLS).max(NEAR_GRID_MIN_EXTENT);
        let columns = (w / cell) as usize + 1;
        let rows = (h / cell) as usize + 1;
        let mut grid = NearGrid { points, origin: lo, cell, columns, rows, starts: Vec::new(), items: Vec::new() };
        let mut counts = vec![0u32; columns * rows + 1];
        for p in &grid.points {
            counts[grid.cell_of(*p) + 1] += 1;
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        grid.items = vec![0; grid.points.len()];
        for (i, p) in grid.points.iter().enumerate() {
            let c = grid.cell_of(*p);
            grid.items[fill[c] as usize] = i as u32;
            fill[c] += 1;
        }
        grid.starts = counts;
        grid
    }

    fn coords(&self, p: Point2) -> (usize, usize) {
        let x = ((p[0] - self.origin[0]) / self.cell).max(0.0) as usize;
        let z = ((p[1] - self.origin[1]) / self.cell).max(0.0) as usize;
        (x.min(self.columns - 1), z.min(self.rows - 1))
    }

    fn cell_of(&self, p: Point2) -> usize {
        let (x, z) = self.coords(p);
        z * self.columns + x
    }

    /// Up to `k` points near `p`, nearest first (rings of cells round `p`'s cell until `k` are
    /// found, then one ring more).
    fn nearest(&self, p: Point2, k: usize) -> Vec<u32> {
        let (cx, cz) = self.coords(p);
        let mut found: Vec<u32> = Vec::new();
        let mut extra = None;
        for r in 0..self.columns.max(self.rows) {
            let (x0, x1) = (cx.saturating_sub(r), (cx + r).min(self.columns - 1));
            let (z0, z1) = (cz.saturating_sub(r), (cz + r).min(self.rows - 1));
            for z in z0..=z1 {
                for x in x0..=x1 {
                    if (x.abs_diff(cx)).max(z.abs_diff(cz)) != r {
                        continue;
                    }
                    let c = z * self.columns + x;
                    found.extend_from_slice(&self.items[self.starts[c] as usize..self.starts[c + 1] as usize]);
                }
            }
            match extra {
                Some(0) => break,
                Some(n) => extra = Some(n - 1),
                None if found.len() >= k => extra = Some(0),
                None => {}
            }
        }
        let d2 = |i: u32| {
            let q = self.points[i as usize];
            (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)
        };
        let mut keyed: Vec<(f64, u32)> = found.into_iter().map(|i| (d2(i), i)).collect();
        let order = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if keyed.len() > k && k > 0 {
            keyed.select_nth_unstable_by(k - 1, order);
            keyed.truncate(k);
        }
        keyed.sort_unstable_by(order);
        keyed.into_iter().map(|(_, i)| i).collect()
    }
}
