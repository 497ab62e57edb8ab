//! The trapezoidal map of a set of non-crossing segments in the XZ plane (de Berg et al.,
//! *Computational Geometry*, ch. 6): randomised incremental construction in expected
//! O(n log n) with its search DAG, which locates a point in expected O(log n).
//!
//! Degenerate inputs are handled symbolically, never by moving coordinates:
//!
//! - **Symbolic shear.** Points are ordered lexicographically by `(x, z)`, as if the plane were
//!   sheared by an infinitesimal `(x, z) -> (x + λz, z)`: no two distinct points share an x, a
//!   vertical edge is a segment like any other (from its lower to its upper end), and the
//!   "vertical" walls of the map are the sheared ones. Above/below tests go through the exact
//!   [`orient2d`], which the shear does not change.
//! - **Ties of a query point** ([`Tie`]): a point on a segment or on a vertex is located as the
//!   point moved an infinitesimal step in a chosen direction ([`Tie::Up`]: straight up, so a
//!   point on a segment belongs to the trapezoid above it, on a vertical segment to the one on
//!   its left, and a point on a vertex to the trapezoid right of its wall). The map's
//!   [`TrapMap::locate`] also reports whether the point lies on a segment or vertex.
//!
//! Segments carry a label per side (a polygon, or [`NONE`]); the build checks that the input is
//! a planar subdivision (segments meet only at shared endpoints, no point of one lies inside
//! another, both sides of every trapezoid agree on its label) and refuses it otherwise with
//! [`NotPlanar`], so callers fall back to another index rather than trust a wrong map.
//! Trapezoids whose label is [`NONE`] (outside every polygon) are dropped after the build.

use super::{SplitMix64, NONE};
use crate::geom::{orient2d, Point2};
use std::cmp::Ordering;

/// Seed of the insertion order: a fixed seed keeps the map (and its memory) the same on every
/// run, while the shuffle still gives the expected bounds for any input order.
const INSERTION_SEED: u64 = 0x7261_705f_6d61_7073;

/// The input is not a planar subdivision: two segments cross or overlap, a vertex lies inside
/// a segment, or the two sides of a region disagree on its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotPlanar;

/// How a query point lying on a segment or a vertex is resolved (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Tie {
    /// Moved straight up (+z): above a segment, left of a vertical one, right of a vertex.
    Up,
    /// Moved towards this point (which must not be the query point).
    Toward(Point2),
}

/// One input segment: endpoints `a < b` (lexicographic), the labels of its two sides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Segment {
    /// Lexicographically smaller endpoint (index into the map's points).
    pub(crate) a: u32,
    /// Larger endpoint.
    pub(crate) b: u32,
    /// Label of the side left of `a -> b` (above; left of a vertical segment).
    pub(crate) above: u32,
    /// Label of the other side.
    pub(crate) below: u32,
}

/// A trapezoid of the map: bounded by two segments and the (sheared) vertical walls through two
/// points. [`NONE`] stands for the unbounded sides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Trapezoid {
    /// The segment above.
    pub(crate) top: u32,
    /// The segment below.
    pub(crate) bottom: u32,
    /// The point whose wall bounds it on the left.
    pub(crate) leftp: u32,
    /// The point whose wall bounds it on the right.
    pub(crate) rightp: u32,
    /// The label of the region it lies in.
    pub(crate) label: u32,
}

/// A node of the search DAG.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Node {
    /// Left or right of the wall through a point (equal: right).
    X { point: u32, left: u32, right: u32 },
    /// Above or below a segment.
    Y { segment: u32, above: u32, below: u32 },
    /// A trapezoid (index, or [`NONE`] for a dropped one).
    Leaf(u32),
}

/// A trapezoidal map with its search structure. Built once, read only.
#[derive(Clone, Debug, Default)]
pub(crate) struct TrapMap {
    points: Vec<Point2>,
    segments: Vec<Segment>,
    nodes: Vec<Node>,
    trapezoids: Vec<Trapezoid>,
}

/// Lexicographic order by `(x, z)`: the order of the symbolically sheared x.
#[inline]
pub(crate) fn lex_cmp(p: Point2, q: Point2) -> Ordering {
    p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1]))
}

/// A trapezoid while the map is built (`leaf`: its DAG leaf, [`NONE`] once replaced).
#[derive(Clone, Copy, Debug)]
struct Building {
    top: u32,
    bottom: u32,
    leftp: u32,
    rightp: u32,
    leaf: u32,
}

impl TrapMap {
    /// Builds the map of directed edges `(from, to, label)`, `label` being the region on the left
    /// of `from -> to` (a counter-clockwise polygon's own edges). The same segment given in both
    /// directions becomes one segment with a label on each side; zero-length edges are skipped.
    /// `same_region(l1, l2)` says whether the labels met on the two sides of a trapezoid agree.
    pub(crate) fn build(
        edges: &[(Point2, Point2, u32)],
        same_region: impl Fn(u32, u32) -> bool,
    ) -> Result<TrapMap, NotPlanar> {
        // `+ 0.0` turns -0.0 into 0.0: the order must see equal points as equal.
        let norm = |p: Point2| [p[0] + 0.0, p[1] + 0.0];
        let mut points: Vec<Point2> = edges.iter().flat_map(|e| [norm(e.0), norm(e.1)]).collect();
        points.sort_by(|p, q| lex_cmp(*p, *q));
        points.dedup();
        let index = |p: Point2| points.binary_search_by(|q| lex_cmp(*q, norm(p))).map(|i| i as u32).unwrap_or(NONE);
        let mut segments: Vec<Segment> = Vec::with_capacity(edges.len());
        for &(from, to, label) in edges {
            let (f, t) = (index(from), index(to));
            match f.cmp(&t) {
                Ordering::Less => segments.push(Segment { a: f, b: t, above: label, below: NONE }),
                Ordering::Greater => segments.push(Segment { a: t, b: f, above: NONE, below: label }),
                Ordering::Equal => {}
            }
        }
        segments.sort_by_key(|s| (s.a, s.b));
        // Merge the two directions of one segment; a side claimed twice is an overlap.
        let mut merged: Vec<Segment> = Vec::with_capacity(segments.len());
        for s in segments {
            match merged.last_mut() {
                Some(m) if m.a == s.a && m.b == s.b => {
                    if (s.above != NONE && m.above != NONE) || (s.below != NONE && m.below != NONE) {
                        return Err(NotPlanar);
                    }
                    m.above = m.above.min(s.above);
                    m.below = m.below.min(s.below);
                }
                _ => merged.push(s),
            }
        }
        let mut map = TrapMap { points, segments: merged, nodes: vec![Node::Leaf(0)], trapezoids: Vec::new() };
        let mut building = vec![Building { top: NONE, bottom: NONE, leftp: NONE, rightp: NONE, leaf: 0 }];
        let mut order: Vec<u32> = (0..map.segments.len() as u32).collect();
        let mut rng = SplitMix64::new(INSERTION_SEED);
        for i in (1..order.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let mut crossed = Vec::new();
        for s in order {
            map.insert(s, &mut building, &mut crossed)?;
        }
        map.finish(&building, same_region)?;
        Ok(map)
    }

    fn point(&self, i: u32) -> Point2 {
        self.points[i as usize]
    }

    fn seg_points(&self, s: u32) -> (Point2, Point2) {
        let s = self.segments[s as usize];
        (self.point(s.a), self.point(s.b))
    }

    /// Orientation of `p` against segment `s` (positive: above).
    fn side(&self, s: u32, p: Point2) -> f64 {
        let (a, b) = self.seg_points(s);
        orient2d(a, b, p)
    }

    /// Whether segment `s` is above segment `t` where both span the wall just right of a point
    /// of `s` (they do not cross there when the input is planar).
    fn above_segment(&self, s: u32, t: u32) -> Result<bool, NotPlanar> {
        let (sa, sb) = self.seg_points(s);
        let (ta, tb) = self.seg_points(t);
        let (o1, o2) = (orient2d(ta, tb, sa), orient2d(ta, tb, sb));
        if o1 == 0.0 && o2 == 0.0 {
            return Err(NotPlanar); // collinear segments meeting in the same x range overlap
        }
        if o1 >= 0.0 && o2 >= 0.0 {
            return Ok(true);
        }
        if o1 <= 0.0 && o2 <= 0.0 {
            return Ok(false);
        }
        // `s`'s line crosses `t`'s beyond `t`: decide by the side of `t` relative to `s`.
        let (o3, o4) = (orient2d(sa, sb, ta), orient2d(sa, sb, tb));
        if o3 <= 0.0 && o4 <= 0.0 {
            Ok(true)
        } else if o3 >= 0.0 && o4 >= 0.0 {
            Ok(false)
        } else {
            Err(NotPlanar)
        }
    }

    /// The trapezoid (building index) holding segment `s` just right of the wall through point
    /// `r` (a point of `s`'s x range).
    fn locate_along(&self, s: u32, r: u32, building: &[Building]) -> Result<u32, NotPlanar> {
        let rp = self.point(r);
        let mut n = 0u32;
        // The DAG is acyclic with at most `nodes` levels; the bound guards a corrupt one.
        for _ in 0..=self.nodes.len() {
            match self.nodes[n as usize] {
                Node::X { point, left, right } => {
                    n = if point != r && lex_cmp(rp, self.point(point)) == Ordering::Less { left } else { right };
                }
                Node::Y { segment, above, below } => {
                    n = if self.above_segment(s, segment)? { above } else { below };
                }
                Node::Leaf(t) => return if building[t as usize].leaf == n { Ok(t) } else { Err(NotPlanar) },
            }
        }
        Err(NotPlanar)
    }

    /// Whether segment `s` meets segment `t` anywhere but at a shared endpoint.
    fn meets_improperly(&self, s: u32, t: u32) -> bool {
        let (ss, ts) = (self.segments[s as usize], self.segments[t as usize]);
        let (sa, sb) = self.seg_points(s);
        let (ta, tb) = self.seg_points(t);
        let shared = ss.a == ts.a || ss.a == ts.b || ss.b == ts.a || ss.b == ts.b;
        if shared {
            // Collinear pieces leaving a shared endpoint the same way overlap.
            let collinear = orient2d(sa, sb, ta) == 0.0 && orient2d(sa, sb, tb) == 0.0;
            return collinear && (ss.a == ts.a || ss.b == ts.b);
        }
        let (o1, o2) = (orient2d(sa, sb, ta), orient2d(sa, sb, tb));
        let (o3, o4) = (orient2d(ta, tb, sa), orient2d(ta, tb, sb));
        let within =
            |p: Point2, a: Point2, b: Point2| lex_cmp(a, p) != Ordering::Greater && lex_cmp(p, b) != Ordering::Greater;
        // Signs compared, not multiplied: a product of two tiny orientations can underflow to 0.
        let opposite = |u: f64, v: f64| (u > 0.0 && v < 0.0) || (u < 0.0 && v > 0.0);
        if opposite(o1, o2) && opposite(o3, o4) {
            return true;
        }
        (o1 == 0.0 && within(ta, sa, sb))
            || (o2 == 0.0 && within(tb, sa, sb))
            || (o3 == 0.0 && within(sa, ta, tb))
            || (o4 == 0.0 && within(sb, ta, tb))
    }

    fn new_trapezoid(&mut self, building: &mut Vec<Building>, top: u32, bottom: u32, leftp: u32) -> u32 {
        let t = building.len() as u32;
        let leaf = self.nodes.len() as u32;
        self.nodes.push(Node::Leaf(t));
        building.push(Building { top, bottom, leftp, rightp: NONE, leaf });
        t
    }

    /// Inserts segment `s`: finds the trapezoids it crosses, splits them, merges the pieces whose
    /// wall it cut, and replaces their leaves by the new tests.
    fn insert(&mut self, s: u32, building: &mut Vec<Building>, crossed: &mut Vec<u32>) -> Result<(), NotPlanar> {
        let seg = self.segments[s as usize];
        let (p, q) = (seg.a, seg.b);
        let (pp, qp) = (self.point(p), self.point(q));
        crossed.clear();
        let mut t = self.locate_along(s, p, building)?;
        let mut above_walls = Vec::new(); // per crossed wall: whether its point is above `s`
        loop {
            crossed.push(t);
            let tr = building[t as usize];
            for bound in [tr.top, tr.bottom] {
                if bound != NONE && self.meets_improperly(s, bound) {
                    return Err(NotPlanar);
                }
            }
            let r = tr.rightp;
            if r == NONE || lex_cmp(qp, self.point(r)) != Ordering::Greater {
                break;
            }
            let o = orient2d(pp, qp, self.point(r));
            if o == 0.0 {
                return Err(NotPlanar); // a vertex inside `s`
            }
            above_walls.push(o > 0.0);
            t = self.locate_along(s, r, building)?;
            if building[t as usize].leftp != r {
                return Err(NotPlanar);
            }
        }
        let k = crossed.len() - 1;
        let first = building[crossed[0] as usize];
        let last = building[crossed[k] as usize];
        let left_piece = (first.leftp != p).then(|| {
            let a = self.new_trapezoid(building, first.top, first.bottom, first.leftp);
            building[a as usize].rightp = p;
            a
        });
        let right_piece = (last.rightp != q).then(|| {
            let b = self.new_trapezoid(building, last.top, last.bottom, q);
            building[b as usize].rightp = last.rightp;
            b
        });
        // Pieces above and below `s`: a new one starts where a wall survives on that side.
        let mut upper = Vec::with_capacity(k + 1);
        let mut lower = Vec::with_capacity(k + 1);
        let mut up = self.new_trapezoid(building, first.top, s, p);
        let mut down = self.new_trapezoid(building, s, first.bottom, p);
        for j in 0..=k {
            upper.push(up);
            lower.push(down);
            if j == k {
                building[up as usize].rightp = q;
                building[down as usize].rightp = q;
                break;
            }
            let r = building[crossed[j] as usize].rightp;
            let next = building[crossed[j + 1] as usize];
            if above_walls[j] {
                building[up as usize].rightp = r;
                up = self.new_trapezoid(building, next.top, s, r);
                if building[down as usize].bottom != next.bottom {
                    return Err(NotPlanar);
                }
            } else {
                building[down as usize].rightp = r;
                down = self.new_trapezoid(building, s, next.bottom, r);
                if building[up as usize].top != next.top {
                    return Err(NotPlanar);
                }
            }
        }
        for j in 0..=k {
            let old = crossed[j] as usize;
            let slot = building[old].leaf;
            building[old].leaf = NONE;
            let leaf = |t: u32| building[t as usize].leaf;
            let mut node = Node::Y { segment: s, above: leaf(upper[j]), below: leaf(lower[j]) };
            if j == k {
                if let Some(b) = right_piece {
                    self.nodes.push(node);
                    node = Node::X { point: q, left: self.nodes.len() as u32 - 1, right: leaf(b) };
                }
            }
            if j == 0 {
                if let Some(a) = left_piece {
                    self.nodes.push(node);
                    node = Node::X { point: p, left: leaf(a), right: self.nodes.len() as u32 - 1 };
                }
            }
            self.nodes[slot as usize] = node;
        }
        Ok(())
    }

    /// Labels the live trapezoids, checks both sides agree, drops the unlabelled ones and
    /// renumbers the leaves.
    fn finish(&mut self, building: &[Building], same_region: impl Fn(u32, u32) -> bool) -> Result<(), NotPlanar> {
        let mut renumber = vec![NONE; building.len()];
        for (i, b) in building.iter().enumerate() {
            if b.leaf == NONE {
                continue;
            }
            let from_top = if b.top == NONE { NONE } else { self.segments[b.top as usize].below };
            let from_bottom = if b.bottom == NONE { NONE } else { self.segments[b.bottom as usize].above };
            if !same_region(from_top, from_bottom) {
                return Err(NotPlanar);
            }
            if from_top != NONE {
                renumber[i] = self.trapezoids.len() as u32;
                self.trapezoids.push(Trapezoid {
                    top: b.top,
                    bottom: b.bottom,
                    leftp: b.leftp,
                    rightp: b.rightp,
                    label: from_top,
                });
            }
        }
        for n in &mut self.nodes {
            if let Node::Leaf(t) = n {
                *t = renumber[*t as usize];
            }
        }
        self.nodes.shrink_to_fit();
        self.trapezoids.shrink_to_fit();
        Ok(())
    }

    /// The trapezoid holding `q` (resolved by `tie` on a segment or vertex), or [`NONE`] when `q`
    /// is outside every labelled region; and whether `q` lies on a segment or a vertex.
    pub(crate) fn locate(&self, q: Point2, tie: Tie) -> (u32, bool) {
        let mut n = 0usize;
        let mut on_boundary = false;
        loop {
            match self.nodes[n] {
                Node::X { point, left, right } => {
                    let go_right = match lex_cmp(q, self.point(point)) {
                        Ordering::Less => false,
                        Ordering::Greater => true,
                        Ordering::Equal => {
                            on_boundary = true;
                            match tie {
                                Tie::Up => true,
                                Tie::Toward(c) => lex_cmp(c, q) == Ordering::Greater,
                            }
                        }
                    };
                    n = if go_right { right } else { left } as usize;
                }
                Node::Y { segment, above, below } => {
                    let o = self.side(segment, q);
                    let go_above = if o != 0.0 {
                        o > 0.0
                    } else {
                        on_boundary = true;
                        match tie {
                            Tie::Up => true,
                            Tie::Toward(c) => self.side(segment, c) >= 0.0,
                        }
                    };
                    n = if go_above { above } else { below } as usize;
                }
                Node::Leaf(t) => {
                    if t != NONE && !on_boundary {
                        // The DAG tests only some of the segments round `q`: check the two
                        // that bound the trapezoid as well.
                        let tr = self.trapezoids[t as usize];
                        on_boundary = self.side(tr.top, q) == 0.0
                            || self.side(tr.bottom, q) == 0.0
                            || self.point(tr.leftp) == q
                            || self.point(tr.rightp) == q;
                    }
                    return (t, on_boundary);
                }
            }
        }
    }

    /// The map's trapezoids (only the labelled ones).
    pub(crate) fn trapezoids(&self) -> &[Trapezoid] {
        &self.trapezoids
    }

    /// Point `i` of the map.
    pub(crate) fn point_at(&self, i: u32) -> Point2 {
        self.point(i)
    }

    /// Segment `i` of the map.
    pub(crate) fn segment(&self, i: u32) -> Segment {
        self.segments[i as usize]
    }

    /// The z of segment `s` on the (sheared) wall through `x_at`: interpolated, clamped to the
    /// segment; a vertical segment meets the wall at `x_at`'s own z, clamped.
    pub(crate) fn z_on(&self, s: u32, x_at: Point2) -> f64 {
        let (a, b) = self.seg_points(s);
        let (lo, hi) = (a[1].min(b[1]), a[1].max(b[1]));
        let z = if a[0] == b[0] {
            x_at[1]
        } else if x_at[0] <= a[0] {
            a[1]
        } else if x_at[0] >= b[0] {
            b[1]
        } else {
            a[1] + (b[1] - a[1]) * ((x_at[0] - a[0]) / (b[0] - a[0]))
        };
        z.clamp(lo, hi)
    }

    /// The four corners of trapezoid `t` (lower left, lower right, upper right, upper left).
    pub(crate) fn corners(&self, t: u32) -> [Point2; 4] {
        let tr = self.trapezoids[t as usize];
        let (l, r) = (self.point(tr.leftp), self.point(tr.rightp));
        [
            [l[0], self.z_on(tr.bottom, l)],
            [r[0], self.z_on(tr.bottom, r)],
            [r[0], self.z_on(tr.top, r)],
            [l[0], self.z_on(tr.top, l)],
        ]
    }

    /// Heap bytes held by the map.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.points.capacity() * std::mem::size_of::<Point2>()
            + self.segments.capacity() * std::mem::size_of::<Segment>()
            + self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.trapezoids.capacity() * std::mem::size_of::<Trapezoid>()
    }

    /// Number of DAG nodes.
    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of segments.
    pub(crate) fn segment_count(&self) -> usize {
        self.segments.len()
    }
}

mod locator;
mod roadmap;
#[cfg(test)]
mod tests;

pub(crate) use locator::TrapLocator;
pub use locator::{Locator, TrapezoidalMapStats};
pub(crate) use roadmap::Roadmap;
