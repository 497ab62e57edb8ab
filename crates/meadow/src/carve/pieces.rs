//! Carving base polygons into pieces with shared vertices, and assembling the carved navmesh.
//!
//! A piece is a ring of corners (a base vertex or a new point), each with the *support* of the
//! edge leaving it: the base edge it lies on, the obstacle edge line that cut it, or a diagonal
//! of a repair. Points are shared by value: a point cut on a base edge is computed from the
//! edge's two base vertices in ascending index order, a point cut on a chord from the chord's
//! ends in a fixed order, so every polygon that computes it gets the same bits, and the assembly
//! gives equal points one vertex.

use super::geometry::{crossing, interiors_overlap, strictly_inside};
use super::plan::{line_crossing, plan_cuts, CutLines, CutPlan, Pocket};
use crate::asset::{EdgeLink, NavMeshData, Outline, PolygonData};
use crate::geom::{self, orient2d, Point2};
use crate::query::QueryMesh;
use crate::tolerance::LINK_POINT_SLACK;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// No polygon (a wall across a base edge).
const NONE: u32 = u32::MAX;
/// Most vertices of a polygon the asset format allows.
pub(super) const MAX_VERTICES: usize = 12;

/// A corner of a piece.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Corner {
    /// A vertex of the base mesh.
    Base(u32),
    /// A point made by carving `[x, y, z]`.
    New([f64; 3]),
}

/// What the edge leaving a corner lies on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Support {
    /// Base edge `from → to` (as in its base polygon) and the base polygon across it (`NONE`:
    /// a wall).
    Base { from: u32, to: u32, across: u32 },
    /// Edge `edge` of the dilated obstacle `obstacle`.
    Line { obstacle: u64, edge: u32 },
    /// A diagonal added to make a ring convex or small enough.
    Diagonal,
}

/// The points on each support (see [`scope`]), with where they lie along it.
type PointsBySupport = BTreeMap<(u32, u32, u64, u32), Vec<(f64, Corner)>>;

/// A fast hasher for the assembly's maps of integer keys (vertex ids, point bits): a
/// multiply-rotate mix, as the assembly hashes every corner of the mesh on each update and
/// std's SipHash made that most of its time. Maps keyed by it are only looked up, never
/// iterated, so outputs do not depend on it.
#[derive(Clone, Copy, Default)]
struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Arrays of integers arrive here as their bytes: mix them eight at a time.
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        for &b in chunks.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        // The golden-ratio multiplier of Fibonacci hashing; the rotation spreads the high bits.
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type IntMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<IntHasher>>;

/// A convex piece of a carved base polygon.
pub(crate) type Piece = Vec<(Corner, Support)>;

/// One obstacle carving a polygon: its id and dilated outline.
pub(crate) struct Cutter<'a> {
    pub(crate) id: u64,
    pub(crate) outline: &'a [Point2],
}

fn position(data: &NavMeshData, c: Corner) -> [f64; 3] {
    match c {
        Corner::Base(v) => data.vertices[v as usize],
        Corner::New(p) => p,
    }
}

fn xz(p: [f64; 3]) -> Point2 {
    [p[0], p[2]]
}

/// The key of a corner for sharing: base vertices by index, new points by their bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    Base(u32),
    New([u64; 3]),
}

fn key(c: Corner) -> Key {
    match c {
        Corner::Base(v) => Key::Base(v),
        Corner::New(p) => Key::New(p.map(|x| (x + 0.0).to_bits())),
    }
}

/// Base polygon `poly` as a piece.
pub(crate) fn base_piece(data: &NavMeshData, poly: u32) -> Piece {
    let p = data.polygons[poly as usize];
    let (first, n) = (p.first as usize, p.vertex_count as usize);
    (0..n)
        .map(|k| {
            let (from, to) = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]);
            let across = match data.edge_links[first + k] {
                EdgeLink::Polygon(q) => q,
                EdgeLink::Wall => NONE,
            };
            (Corner::Base(from), Support::Base { from, to, across })
        })
        .collect()
}

/// Base polygon `poly` minus the cutters, as convex pieces (before the shared points of other
/// polygons are inserted): each cutter in turn is subtracted from every piece whose interior it
/// overlaps by successive half-plane splits (see [`CutPlan`]).
pub(crate) fn carve_polygon(mesh: &QueryMesh, poly: u32, cutters: &[Cutter<'_>]) -> Vec<Piece> {
    let data = mesh.mesh().data();
    let mut lines = CutLines::new();
    let plans: Vec<CutPlan> = cutters.iter().map(|c| plan_cuts(c.id, c.outline, &mut lines)).collect();
    let cut = Cut { mesh, poly, lines: &lines };
    let mut pieces = vec![base_piece(data, poly)];
    for (cutter, plan) in cutters.iter().zip(&plans) {
        let mut next = Vec::with_capacity(pieces.len() + 4);
        for piece in pieces {
            let pts: Vec<Point2> = piece.iter().map(|&(c, _)| xz(position(data, c))).collect();
            if interiors_overlap(&pts, cutter.outline) {
                cut.subtract(piece, cutter.id, plan, &mut next);
            } else {
                next.push(piece);
            }
        }
        pieces = next;
    }
    pieces
}

/// Where a piece lies against a cutting line.
enum Sides {
    /// On its left (closed).
    Left(Piece),
    /// On its right (closed).
    Right(Piece),
    /// Across it: the right part and the left part.
    Both(Piece, Piece),
}

/// The cutting of one base polygon.
struct Cut<'a> {
    mesh: &'a QueryMesh,
    poly: u32,
    lines: &'a CutLines,
}

impl Cut<'_> {
    /// `piece` against the line `(obstacle, index)`.
    fn sides(&self, piece: Piece, obstacle: u64, index: u32) -> Sides {
        let data = self.mesh.mesh().data();
        let (o0, o1) = self.lines[&(obstacle, index)];
        let sides: Vec<f64> = piece.iter().map(|&(c, _)| orient2d(o0, o1, xz(position(data, c)))).collect();
        if sides.iter().all(|&s| s >= 0.0) {
            return Sides::Left(piece);
        }
        if sides.iter().all(|&s| s <= 0.0) {
            return Sides::Right(piece);
        }
        let line = Support::Line { obstacle, edge: index };
        let (right, left) = split(self.mesh, self.poly, &piece, &sides, self.lines, line);
        Sides::Both(right, left)
    }

    /// Pushes the pieces of `piece` minus the outline of `obstacle` (cut as `plan` says) to `out`.
    fn subtract(&self, piece: Piece, obstacle: u64, plan: &CutPlan, out: &mut Vec<Piece>) {
        let mut rest = piece;
        for &k in &plan.hull {
            match self.sides(rest, obstacle, k) {
                Sides::Left(left) => rest = left,
                Sides::Right(right) => return out.push(right),
                Sides::Both(right, left) => {
                    out.push(right);
                    rest = left;
                }
            }
        }
        // `rest` lies in the bounding polygon: its pockets are cut off; what stays lies inside
        // the outline (the hull of the chains' ends).
        for pocket in &plan.pockets {
            match self.sides(rest, obstacle, pocket.chord) {
                Sides::Left(left) => rest = left,
                Sides::Right(right) => return self.pocket(right, obstacle, pocket, out),
                Sides::Both(right, left) => {
                    self.pocket(right, obstacle, pocket, out);
                    rest = left;
                }
            }
        }
    }

    /// Pushes the pieces of `piece` (in a pocket, right of its chord) outside the outline:
    /// the sectors between the fan rays, each less what lies beyond its arc edge.
    fn pocket(&self, piece: Piece, obstacle: u64, pocket: &Pocket, out: &mut Vec<Piece>) {
        if pocket.edges == [pocket.chord] {
            // The chord is the chain's one edge: the piece lies beyond it already.
            return out.push(piece);
        }
        let mut rest = Some(piece);
        for (t, &edge) in pocket.edges.iter().enumerate() {
            let Some(current) = rest.take() else { return };
            // The sector of edge `t` lies left of the ray through its far end.
            let sector = match pocket.rays.get(t) {
                None => current,
                Some(&ray) => match self.sides(current, obstacle, ray) {
                    Sides::Left(left) => left,
                    Sides::Right(right) => {
                        rest = Some(right);
                        continue;
                    }
                    Sides::Both(right, left) => {
                        rest = Some(right);
                        left
                    }
                },
            };
            match self.sides(sector, obstacle, edge) {
                Sides::Left(_) => {}
                Sides::Right(right) | Sides::Both(right, _) => out.push(right),
            }
        }
    }
}

/// Splits a piece by the line `o0 → o1` into the parts right (outside the cutter) and left of
/// it, given each corner's exact side.
fn split(mesh: &QueryMesh, poly: u32, piece: &Piece, sides: &[f64], lines: &CutLines, line: Support) -> (Piece, Piece) {
    let n = piece.len();
    // The cut point of each edge crossed strictly, computed once for both parts.
    let cuts: Vec<Option<Corner>> = (0..n)
        .map(|i| {
            let j = (i + 1) % n;
            let (sa, sb) = (sides[i], sides[j]);
            ((sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0))
                .then(|| cut_point(mesh, poly, piece[i], piece[j].0, lines, line))
        })
        .collect();
    let mut parts = (Vec::new(), Vec::new());
    for (sign, part) in [(-1.0, &mut parts.0), (1.0, &mut parts.1)] {
        for i in 0..n {
            let j = (i + 1) % n;
            let (a, b) = (sides[i] * sign, sides[j] * sign);
            let (corner, support) = piece[i];
            if a >= 0.0 {
                if b >= 0.0 {
                    part.push((corner, support));
                } else if a > 0.0 {
                    part.push((corner, support));
                    part.push((cuts[i].expect("a strict crossing"), line));
                } else {
                    part.push((corner, line));
                }
            } else if b > 0.0 {
                part.push((cuts[i].expect("a strict crossing"), support));
            }
        }
    }
    parts
}

/// Where the cutting line `line` crosses the edge leaving `from` (towards `to`), computed from
/// what the edge lies on rather than from its ends, so that every piece meeting the same two
/// supports gets the same bits: on a base edge, along the whole base edge from its
/// lower-numbered vertex, the height interpolated along it; on another cut line, the
/// crossing of the two lines (their shared end itself where they have one, such as two edges of
/// one obstacle at its corner), the height from the base polygon's surface; on anything else, along the edge from its lexicographically
/// smaller end.
fn cut_point(
    mesh: &QueryMesh,
    poly: u32,
    (from, support): (Corner, Support),
    to: Corner,
    lines: &CutLines,
    line: Support,
) -> Corner {
    let data = mesh.mesh().data();
    let Support::Line { obstacle, edge } = line else { unreachable!("cuts are along obstacle lines") };
    let (o0, o1) = lines[&(obstacle, edge)];
    let side = |p: [f64; 3]| orient2d(o0, o1, xz(p));
    let on_surface = |p: Point2| {
        let y = mesh.surface_height(poly, p);
        Corner::New([p[0], if y.is_finite() { y } else { 0.0 }, p[1]])
    };
    match support {
        Support::Base { from: a, to: b, .. } => {
            let (lo, hi) = (a.min(b), a.max(b));
            let (pa, pb) = (data.vertices[lo as usize], data.vertices[hi as usize]);
            let (sa, sb) = (side(pa), side(pb));
            if (sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0) {
                return Corner::New(crossing(pa, pb, sa, sb).0);
            }
        }
        Support::Line { obstacle: other, edge: other_edge } => {
            let this = (o0, o1);
            let that = lines[&(other, other_edge)];
            // Lines through one point of an outline (two of its edges at their corner, a chord
            // or a ray and the edges at its ends) meet at that point itself.
            if (other, other_edge) != (obstacle, edge) {
                for p in [this.0, this.1] {
                    if p == that.0 || p == that.1 {
                        return on_surface(p);
                    }
                }
            }
            let (first, second) = if (other, other_edge) < (obstacle, edge) { (that, this) } else { (this, that) };
            if let Some(p) = line_crossing(first, second) {
                return on_surface(p);
            }
        }
        Support::Diagonal => {}
    }
    let (mut pa, mut pb) = (position(data, from), position(data, to));
    if (pb[0], pb[2]) < (pa[0], pa[2]) {
        std::mem::swap(&mut pa, &mut pb);
    }
    let (p, _) = crossing(pa, pb, side(pa), side(pb));
    on_surface(xz(p))
}

/// Where a point lies along a support, for ordering the points on it.
fn along(data: &NavMeshData, support: Support, lines: &CutLines, p: Point2) -> f64 {
    let (o, d) = match support {
        Support::Base { from, to, .. } => {
            let (a, b) = (xz(data.vertices[from.min(to) as usize]), xz(data.vertices[from.max(to) as usize]));
            (a, [b[0] - a[0], b[1] - a[1]])
        }
        Support::Line { obstacle, edge } => match lines.get(&(obstacle, edge)) {
            Some(&(a, b)) => (a, [b[0] - a[0], b[1] - a[1]]),
            None => return 0.0,
        },
        Support::Diagonal => return 0.0,
    };
    (p[0] - o[0]) * d[0] + (p[1] - o[1]) * d[1]
}

/// The scope of a support's point list: base edges are shared by two base polygons (keyed by
/// their ends in ascending order), obstacle lines belong to one base polygon.
fn scope(poly: u32, s: Support) -> Option<(u32, u32, u64, u32)> {
    match s {
        Support::Base { from, to, .. } => Some((NONE, from.min(to), u64::from(from.max(to)), 0)),
        Support::Line { obstacle, edge } => Some((poly, NONE, obstacle, edge)),
        Support::Diagonal => None,
    }
}

/// Inserts into every edge of `ring` the points of its support lying strictly between its ends.
fn insert_points(data: &NavMeshData, poly: u32, ring: &Piece, on_support: &PointsBySupport, lines: &CutLines) -> Piece {
    let mut out = Vec::with_capacity(ring.len() + 4);
    for i in 0..ring.len() {
        let (c, s) = ring[i];
        out.push((c, s));
        let Some(list) = scope(poly, s).and_then(|k| on_support.get(&k)) else { continue };
        let next = ring[(i + 1) % ring.len()].0;
        let (ta, tb) = (along(data, s, lines, xz(position(data, c))), along(data, s, lines, xz(position(data, next))));
        let (lo, hi) = (ta.min(tb), ta.max(tb));
        let between = list.iter().filter(|(t, _)| lo < *t && *t < hi).map(|&(t, p)| (t, p));
        let mut extra: Vec<(f64, Corner)> = between.collect();
        if ta > tb {
            extra.reverse();
        }
        out.extend(extra.into_iter().map(|(_, p)| (p, s)));
    }
    out
}

/// Most rings [`make_convex`] examines for one input ring: its search for diagonals backtracks,
/// and a ring that cannot be split (points within ulps of degenerate) would otherwise make it
/// try exponentially many; convex rings and the usual repairs need a handful.
const MAKE_CONVEX_BUDGET: usize = 256;

/// Splits a ring into convex counter-clockwise rings of at most [`MAX_VERTICES`] by diagonals
/// between its own corners (no new points), or `None` when no such split is found within
/// [`MAKE_CONVEX_BUDGET`].
pub(super) fn make_convex(data: &NavMeshData, ring: Piece) -> Option<Vec<Piece>> {
    split_convex(data, ring, &mut MAKE_CONVEX_BUDGET.clone())
}

fn split_convex(data: &NavMeshData, ring: Piece, budget: &mut usize) -> Option<Vec<Piece>> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let mut ring = ring;
    // Consecutive corners at one point make a zero-length edge: keep the later one.
    let mut k = 0;
    while ring.len() > 1 && k < ring.len() {
        let next = (k + 1) % ring.len();
        if position(data, ring[k].0) == position(data, ring[next].0) {
            ring.remove(k);
        } else {
            k += 1;
        }
    }
    let pts: Vec<Point2> = ring.iter().map(|&(c, _)| xz(position(data, c))).collect();
    let n = pts.len();
    if n < 3 {
        return None;
    }
    if n <= MAX_VERTICES && geom::is_convex_ccw(&pts) {
        return Some(vec![ring]);
    }
    let turn = |i: usize, j: usize, k: usize| orient2d(pts[i % n], pts[j % n], pts[k % n]);
    let reflex = (0..n).find(|&i| turn(i + n - 1, i, i + 1) < 0.0);
    let starts: Vec<usize> = match reflex {
        Some(i) => vec![i],
        None => (0..n).collect(),
    };
    for &i in &starts {
        // Diagonals to the far side first (balanced parts).
        let mut ends: Vec<usize> = (2..n - 1).map(|d| (i + d) % n).collect();
        ends.sort_by_key(|&j| ((j + n - i) % n).abs_diff(n / 2));
        for j in ends {
            // Both parts keep a non-negative turn at both ends of the diagonal.
            let ok = turn(j, i, i + 1) >= 0.0
                && turn(j + n - 1, j, i) >= 0.0
                && turn(i, j, j + 1) >= 0.0
                && turn(i + n - 1, i, j) >= 0.0;
            // Neither part may be flat: a diagonal along a run of points in line (the points
            // carved neighbours insert into one edge) would leave a part of zero area, which no
            // split makes convex, and trying its splits would spend the budget.
            let flat = |from: usize, to: usize| (from + 1..to).all(|k| turn(i, j, k) == 0.0);
            let (jj, ii) = (if j > i { j } else { j + n }, if i > j { i } else { i + n });
            if !ok || flat(i, jj) || flat(j, ii) {
                continue;
            }
            let len_a = (j + n - i) % n + 1;
            let mut a: Piece = (0..len_a).map(|d| ring[(i + d) % n]).collect();
            a.last_mut().expect("three or more").1 = Support::Diagonal;
            let len_b = (i + n - j) % n + 1;
            let mut b: Piece = (0..len_b).map(|d| ring[(j + d) % n]).collect();
            b.last_mut().expect("three or more").1 = Support::Diagonal;
            if let Some(mut pa) = split_convex(data, a, budget) {
                if let Some(pb) = split_convex(data, b, budget) {
                    pa.extend(pb);
                    return Some(pa);
                }
            }
            if *budget == 0 {
                return None;
            }
        }
    }
    None
}

/// What the assembly of a carved mesh found besides the mesh.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AssemblyCounts {
    pub(crate) polygons_out: usize,
    pub(crate) dropped_slivers: usize,
    pub(crate) unmatched_rings: usize,
    pub(crate) disabled_links: usize,
}

/// The final rings of a rewritten base polygon (its pieces with the points of the pieces around
/// it inserted, made convex), kept between updates while neither it nor a neighbour changes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rings {
    rings: Vec<Piece>,
    unmatched_rings: usize,
    dropped_slivers: usize,
}

/// The carved navmesh data and how its polygons come from the base polygons.
pub(crate) struct Assembled {
    /// The carved navmesh data.
    pub(crate) data: NavMeshData,
    /// What the assembly found besides the mesh.
    pub(crate) counts: AssemblyCounts,
    /// Per base polygon (and one past the last): its first polygon in `data`.
    pub(crate) first_of: Vec<u32>,
    /// Per polygon of `data`: the base polygon it comes from.
    pub(crate) origin: Vec<u32>,
    /// Per base polygon: whether its rings were computed again (a changed polygon or the
    /// neighbour of one, or every rewritten one for a full assembly); the others have the rings
    /// of the previous assembly (a polygon neither carved nor beside a carved one: its base
    /// ring).
    pub(crate) changed: Vec<bool>,
}

/// The base polygons across polygon `poly`'s portals.
fn base_neighbours(base: &NavMeshData, poly: u32) -> impl Iterator<Item = u32> + '_ {
    let p = base.polygons[poly as usize];
    base.edge_links[p.first as usize..p.first as usize + p.vertex_count as usize].iter().filter_map(|l| match *l {
        EdgeLink::Polygon(q) => Some(q),
        EdgeLink::Wall => None,
    })
}

/// The carved navmesh data: every base polygon in order, replaced by its pieces where carved
/// (and by its ring with the points of its carved neighbours inserted where it borders one),
/// portals matched by shared vertices, walls and links recomputed, no visibility graph.
///
/// `cache` holds the final rings of the rewritten base polygons (carved, or beside a carved
/// one) of the previous assembly; only those of `changed` polygons (whose pieces changed) and
/// their neighbours are computed again (all of them when `changed` is `None`), as a polygon's
/// rings depend only on its own pieces and those of its neighbours.
pub(crate) fn assemble(
    mesh: &QueryMesh,
    carved: &BTreeMap<u32, Vec<Piece>>,
    cutters_of: &dyn Fn(u32) -> Vec<(u64, Vec<Point2>)>,
    changed: Option<&BTreeSet<u32>>,
    cache: &mut BTreeMap<u32, Rings>,
) -> Assembled {
    let base = mesh.mesh().data();
    let mut counts = AssemblyCounts::default();
    let n_base = base.polygons.len();
    // Rewritten: carved polygons and their base neighbours.
    let mut rewritten = vec![false; n_base];
    for &poly in carved.keys() {
        rewritten[poly as usize] = true;
        for q in base_neighbours(base, poly) {
            rewritten[q as usize] = true;
        }
    }
    // Stale: the rewritten polygons whose rings are computed again.
    let mut recomputed = vec![false; n_base];
    match changed {
        Some(changed) => {
            for p in changed.iter().flat_map(|&p| std::iter::once(p).chain(base_neighbours(base, p))) {
                recomputed[p as usize] = true;
            }
        }
        None => {
            cache.clear();
            recomputed.clone_from(&rewritten);
        }
    }
    // A cached polygon no longer rewritten gets its base ring back: it changed too.
    let mut dropped = Vec::new();
    cache.retain(|&p, _| {
        let keep = rewritten[p as usize] && !recomputed[p as usize];
        if !keep {
            dropped.push(p);
        }
        keep
    });
    for p in dropped {
        recomputed[p as usize] = true;
    }
    // A rewritten polygon without cached rings is computed (whatever `changed` says).
    for p in 0..n_base {
        if rewritten[p] && !cache.contains_key(&(p as u32)) {
            recomputed[p] = true;
        }
    }
    let stale: Vec<u32> = (0..n_base as u32).filter(|&p| recomputed[p as usize] && rewritten[p as usize]).collect();
    // The carved polygons whose points the stale ones take: themselves and their neighbours.
    let mut sources: Vec<u32> = stale
        .iter()
        .flat_map(|&p| std::iter::once(p).chain(base_neighbours(base, p)))
        .filter(|p| carved.contains_key(p))
        .collect();
    sources.sort_unstable();
    sources.dedup();
    // Obstacle lines by id and index, for ordering points along them.
    // (Once per obstacle: one may carve many polygons.)
    let mut lines = CutLines::new();
    let mut planned = BTreeSet::new();
    for &poly in &sources {
        for (id, outline) in cutters_of(poly) {
            if planned.insert(id) {
                plan_cuts(id, &outline, &mut lines);
            }
        }
    }
    // The points on every support of a stale polygon, from the carved pieces (a base edge's
    // from both polygons beside it, an obstacle line's from its own polygon).
    let mut on_support: PointsBySupport = BTreeMap::new();
    for &poly in &sources {
        for piece in &carved[&poly] {
            for i in 0..piece.len() {
                let (c, s) = piece[i];
                let Some(scope_key) = scope(poly, s) else { continue };
                let next = piece[(i + 1) % piece.len()].0;
                let list = on_support.entry(scope_key).or_default();
                for p in [c, next] {
                    let t = along(base, s, &lines, xz(position(base, p)));
                    list.push((t, p));
                }
            }
        }
    }
    for list in on_support.values_mut() {
        list.sort_by(|a, b| a.0.total_cmp(&b.0).then(key(a.1).cmp(&key(b.1))));
        list.dedup_by(|a, b| key(a.1) == key(b.1));
    }
    // Final rings of the stale polygons.
    for &poly in &stale {
        let raw = match carved.get(&poly) {
            Some(pieces) => pieces.clone(),
            None => vec![base_piece(base, poly)],
        };
        let mut out = Rings::default();
        for piece in raw {
            let full = insert_points(base, poly, &piece, &on_support, &lines);
            match make_convex(base, full) {
                Some(parts) => out.rings.extend(parts),
                None => match make_convex(base, piece) {
                    // The inserted points could not be kept convex: the edges they split stay
                    // unmatched (walls) on this side.
                    Some(parts) => {
                        out.unmatched_rings += 1;
                        out.rings.extend(parts);
                    }
                    None => out.dropped_slivers += 1,
                },
            }
        }
        cache.insert(poly, out);
    }
    for r in cache.values() {
        counts.unmatched_rings += r.unmatched_rings;
        counts.dropped_slivers += r.dropped_slivers;
    }
    // Final rings per base polygon (`None`: the base ring, copied below without a piece).
    let mut rings: Vec<(u32, Option<&Piece>)> = Vec::with_capacity(n_base + 16);
    for poly in 0..n_base as u32 {
        match cache.get(&poly) {
            Some(r) => rings.extend(r.rings.iter().map(|p| (poly, Some(p)))),
            None => rings.push((poly, None)),
        }
    }
    // Vertices: the base ones, then new points in order of first use.
    let mut vertices = base.vertices.clone();
    // At most one new point per corner of the carved rings (most are shared by two).
    let corners: usize = rings.iter().map(|(_, r)| r.map_or(0, |r| r.len())).sum();
    let mut new_ids: IntMap<[u64; 3], u32> = IntMap::with_capacity_and_hasher(corners / 2, Default::default());
    let mut id_of = |c: Corner, vertices: &mut Vec<[f64; 3]>| -> u32 {
        match c {
            Corner::Base(v) => v,
            Corner::New(p) => *new_ids.entry(p.map(|x| (x + 0.0).to_bits())).or_insert_with(|| {
                vertices.push(p);
                (vertices.len() - 1) as u32
            }),
        }
    };
    let mut polygons = Vec::with_capacity(rings.len());
    let mut polygon_vertices = Vec::new();
    let mut supports = Vec::new();
    let mut origin = Vec::with_capacity(rings.len());
    let mut first_of = vec![0u32; n_base + 1];
    let mut next_base = 0usize;
    for (i, (poly, ring)) in rings.iter().enumerate() {
        while next_base <= *poly as usize {
            first_of[next_base] = i as u32;
            next_base += 1;
        }
        let b = base.polygons[*poly as usize];
        let first = polygon_vertices.len() as u32;
        match ring {
            Some(ring) => {
                polygons.push(PolygonData { first, vertex_count: ring.len() as u8, ..b });
                for &(c, s) in ring.iter() {
                    polygon_vertices.push(id_of(c, &mut vertices));
                    supports.push(s);
                }
            }
            None => {
                // The base ring unchanged (as `base_piece` gives it).
                polygons.push(PolygonData { first, ..b });
                let (bf, n) = (b.first as usize, b.vertex_count as usize);
                for k in 0..n {
                    let (from, to) = (base.polygon_vertices[bf + k], base.polygon_vertices[bf + (k + 1) % n]);
                    let across = match base.edge_links[bf + k] {
                        EdgeLink::Polygon(q) => q,
                        EdgeLink::Wall => NONE,
                    };
                    polygon_vertices.push(from);
                    supports.push(Support::Base { from, to, across });
                }
            }
        }
        origin.push(*poly);
    }
    while next_base <= n_base {
        first_of[next_base] = rings.len() as u32;
        next_base += 1;
    }
    counts.polygons_out = polygons.len();
    // Portals: the reversed edge in the polygon the support says lies across.
    let edge = |p: &PolygonData, k: usize| {
        let n = p.vertex_count as usize;
        (polygon_vertices[p.first as usize + k], polygon_vertices[p.first as usize + (k + 1) % n])
    };
    // The polygons with each directed edge, as chains through `edge_polygons`: `by_edge`
    // holds the last entry, `same_edge` each entry's predecessor (`NONE` ends a chain; a valid
    // base mesh has one polygon per directed edge, and the carved pieces of one base polygon
    // never hold the same edge twice, so chains are one entry long unless a piece is wrong).
    let mut by_edge: IntMap<(u32, u32), u32> = IntMap::default();
    let (mut edge_polygons, mut same_edge) = (Vec::new(), Vec::new());
    for (i, p) in polygons.iter().enumerate() {
        if rewritten[origin[i] as usize] {
            for k in 0..p.vertex_count as usize {
                let previous = by_edge.insert(edge(p, k), edge_polygons.len() as u32);
                edge_polygons.push(i as u32);
                same_edge.push(previous.unwrap_or(NONE));
            }
        }
    }
    // The first polygon (in polygon order) with edge `(a, b)` that comes from base polygon
    // `from`.
    let first_with_edge = |a: u32, b: u32, from: u32| -> Option<u32> {
        let mut found = None;
        let mut at = by_edge.get(&(a, b)).copied().unwrap_or(NONE);
        while at != NONE {
            let q = edge_polygons[at as usize];
            if origin[q as usize] == from {
                found = Some(q);
            }
            at = same_edge[at as usize];
        }
        found
    };
    let mut edge_links = Vec::with_capacity(polygon_vertices.len());
    for (i, p) in polygons.iter().enumerate() {
        for k in 0..p.vertex_count as usize {
            let (u, v) = edge(p, k);
            let expected = match supports[p.first as usize + k] {
                Support::Base { across, .. } => across,
                _ => origin[i],
            };
            let link = if expected == NONE {
                EdgeLink::Wall
            } else if !rewritten[expected as usize] {
                EdgeLink::Polygon(first_of[expected as usize])
            } else {
                match first_with_edge(v, u, expected) {
                    Some(q) if q as usize != i => EdgeLink::Polygon(q),
                    _ => EdgeLink::Wall,
                }
            };
            edge_links.push(link);
        }
    }
    let mut data = NavMeshData {
        settings: base.settings.clone(),
        vertices,
        polygons,
        polygon_vertices,
        edge_links,
        areas: base.areas.clone(),
        outlines: Vec::new(),
        links: Vec::new(),
        visibility: None,
        tiles: base.tiles.clone(),
        partial: base.partial.clone(),
    };
    data.outlines = outlines(&data);
    for t in &mut data.tiles {
        let (a, b) = (t.first_polygon as usize, t.first_polygon as usize + t.polygon_count as usize);
        t.first_polygon = first_of[a];
        t.polygon_count = first_of[b] - first_of[a];
        // The stitched slots name vertices of the baked polygons; a carved mesh is no input
        // to an incremental bake.
        t.stitched.clear();
    }
    // Off-mesh links: the base mesh's current table (baked links and those added at run time,
    // in handle order), each re-attached to the piece under each end; disabled while an end is
    // covered.
    let table = mesh.links();
    for (_, l) in table.iter() {
        let attach = |poly: u32, at: [f64; 3]| -> Option<u32> {
            let (a, b) = (first_of[poly as usize], first_of[poly as usize + 1]);
            if !rewritten[poly as usize] {
                return Some(a);
            }
            let p = xz(at);
            let ring_of = |q: u32| -> Vec<Point2> {
                let pd = data.polygons[q as usize];
                let run = &data.polygon_vertices[pd.first as usize..pd.first as usize + pd.vertex_count as usize];
                run.iter().map(|&v| xz(data.vertices[v as usize])).collect()
            };
            let contains = |r: &[Point2]| (0..r.len()).all(|k| orient2d(r[k], r[(k + 1) % r.len()], p) >= 0.0);
            if let Some(q) = (a..b).find(|&q| contains(&ring_of(q))) {
                return Some(q);
            }
            if cutters_of(poly).iter().any(|(_, o)| strictly_inside(o, p)) {
                return None;
            }
            (a..b).find(|&q| {
                let r = ring_of(q);
                let bb = super::geometry::bounds(&r);
                p[0] >= bb[0] - LINK_POINT_SLACK
                    && p[0] <= bb[2] + LINK_POINT_SLACK
                    && p[1] >= bb[1] - LINK_POINT_SLACK
                    && p[1] <= bb[3] + LINK_POINT_SLACK
            })
        };
        match (attach(l.start_polygon, l.start), attach(l.end_polygon, l.end)) {
            (Some(s), Some(e)) => {
                let mut l = *l;
                (l.start_polygon, l.end_polygon) = (s, e);
                data.links.push(l);
            }
            _ => counts.disabled_links += 1,
        }
    }
    Assembled { data, counts, first_of, origin, changed: recomputed }
}

/// The boundary rings of a mesh from its wall edges, walkable side on the left: each ring
/// follows wall edges end to start, taking at a vertex where several leave the first one met
/// turning clockwise from the way it came (so a ring never crosses into a region that only
/// touches it at a vertex).
pub(crate) fn outlines(data: &NavMeshData) -> Vec<Outline> {
    let mut walls: Vec<(u32, u32)> = Vec::new();
    for p in &data.polygons {
        let (first, n) = (p.first as usize, p.vertex_count as usize);
        for k in 0..n {
            if data.edge_links[first + k] == EdgeLink::Wall {
                walls.push((data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]));
            }
        }
    }
    // The walls leaving each vertex, in wall order (compressed sparse rows).
    let mut leaving_start = vec![0u32; data.vertices.len() + 1];
    for &(a, _) in &walls {
        leaving_start[a as usize + 1] += 1;
    }
    for v in 0..data.vertices.len() {
        leaving_start[v + 1] += leaving_start[v];
    }
    let mut fill = leaving_start.clone();
    let mut leaving_list = vec![0usize; walls.len()];
    for (i, &(a, _)) in walls.iter().enumerate() {
        leaving_list[fill[a as usize] as usize] = i;
        fill[a as usize] += 1;
    }
    let leaving = |v: u32| &leaving_list[leaving_start[v as usize] as usize..leaving_start[v as usize + 1] as usize];
    let angle = |a: u32, b: u32| {
        let (p, q) = (data.vertices[a as usize], data.vertices[b as usize]);
        (q[2] - p[2]).atan2(q[0] - p[0])
    };
    let mut used = vec![false; walls.len()];
    let mut out = Vec::new();
    for start in 0..walls.len() {
        if used[start] {
            continue;
        }
        let mut ring = Vec::new();
        let mut cur = start;
        loop {
            used[cur] = true;
            let (a, b) = walls[cur];
            ring.push(a);
            if b == walls[start].0 {
                break;
            }
            let unused = || leaving(b).iter().copied().filter(|&e| !used[e]);
            // Nearly every vertex has one wall leaving it: the angles only decide between several.
            let next = if unused().nth(1).is_none() {
                unused().next()
            } else {
                let back = angle(b, a);
                unused().min_by(|&e, &f| {
                    // Straight back along the edge is the last choice, not the first.
                    let cw = |e: usize| match (back - angle(b, walls[e].1)).rem_euclid(std::f64::consts::TAU) {
                        0.0 => std::f64::consts::TAU,
                        c => c,
                    };
                    cw(e).total_cmp(&cw(f)).then(e.cmp(&f))
                })
            };
            match next {
                Some(e) => cur = e,
                None => break,
            }
        }
        if ring.len() >= 3 {
            out.push(Outline { vertices: ring });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::NavMeshData;
    use crate::carve::{DynamicMesh, Obstacle};
    use crate::NavMesh;

    /// One 20 m square polygon, radius 0.6, arc tolerance 1 cm.
    fn big_square() -> NavMesh {
        let mut d: NavMeshData =
            crate::testmesh::GridSpec { cols: 1, rows: 1, cell: 20.0, ..Default::default() }.build();
        d.settings.radius = 0.6;
        d.settings.arc_tolerance = 0.01;
        NavMesh::new(d).unwrap()
    }

    #[test]
    fn a_box_in_open_floor_leaves_four_junctions_and_two_portal_fans_along_its_arcs() {
        let mut world = DynamicMesh::new(big_square());
        let square = vec![[9.5, 9.5], [10.5, 9.5], [10.5, 10.5], [9.5, 10.5]];
        let id = world.add_obstacle(Obstacle { polygon: square, y: [-0.1, 2.0] }).unwrap();
        let stats = world.update();
        assert!(stats.rejected.is_none() && stats.dropped_slivers == 0 && stats.unmatched_rings == 0, "{stats:?}");
        let dilated = world.dilated(id).unwrap().to_vec();
        let mesh = world.mesh().mesh();
        let carved = mesh.total_area();
        let hole = crate::geom::signed_area(&dilated);
        assert!((400.0 - hole - carved).abs() < 1e-9, "{carved} + {hole} != 400");
        let mut by_portals = [0usize; 8];
        for p in mesh.polygons() {
            let portals = p.links.iter().filter(|l| matches!(l, EdgeLink::Polygon(_))).count();
            by_portals[portals.min(7)] += 1;
        }
        // The four pieces outside the bounding box are the only junctions; the 16 arc triangles
        // each lead from one to the next, and every piece has two portals at least. (Cutting along every outline edge instead gives a
        // junction per edge.)
        assert_eq!(by_portals[3..].iter().sum::<usize>(), 4, "{by_portals:?}");
        // (Points along a bounding line are rounded off it by ulps, so a ring can be split by a
        // diagonal there: two-portal pieces beside the 16 triangles.)
        assert!(by_portals[2] >= 16, "{by_portals:?}");
        assert_eq!(by_portals[0] + by_portals[1], 0, "{by_portals:?}");
        // Every outline edge is a wall of exactly one polygon.
        let verts = mesh.vertices();
        let mut walls = 0;
        for p in mesh.polygons() {
            let m = p.vertices.len();
            for k in (0..m).filter(|&k| p.links[k] == EdgeLink::Wall) {
                let (a, b) = (verts[p.vertices[k] as usize], verts[p.vertices[(k + 1) % m] as usize]);
                let on_outline = (0..dilated.len()).any(|e| {
                    let (o0, o1) = (dilated[e], dilated[(e + 1) % dilated.len()]);
                    orient2d(o0, o1, xz(a)) == 0.0 && orient2d(o0, o1, xz(b)) == 0.0
                });
                walls += usize::from(on_outline);
            }
        }
        assert_eq!(walls, dilated.len());
    }
}
