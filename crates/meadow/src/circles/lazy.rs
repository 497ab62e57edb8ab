//! The lazy planner: A* over surfing and hugging edges, generated as the search reaches circles.
//!
//! A node is an *arrival*: the point where a surfing edge touches a circle, with the direction
//! the path will travel around that circle (the clockwise and counter-clockwise copies of a
//! tangent point are different nodes). Expanding an arrival walks the circle's arc, in that
//! direction only, to the departure points of the circle's outgoing surfing edges — so a path
//! never reverses on a circle (no cusps).
//!
//! A circle's outgoing surfing edges are found once and cached (for later queries too). To avoid
//! computing all `4(n − 1)` bitangents, the search grows square rings of grid cells around the
//! circle and keeps, per direction of travel and per bin of tangent-point angle (1024 bins), the
//! distance within which one circle already seen blocks *every* tangent ray of the bin. A
//! candidate circle is skipped without computing its tangents when all bins its tangents can
//! leave from are blocked sooner than its shortest possible tangent; a tangent whose own bin is
//! blocked sooner than its length is dropped before any line-of-sight walk. The ring search stops
//! once every bin is blocked within some `L` and the rings cover `sqrt(L² + (r + r_max)²)`: a
//! bitangent to a circle at distance `d` is at least `sqrt(d² − (r + r_j)²)` long. In a forest
//! with open lanes to its edge the rings run to the edge, but the per-circle work left there
//! is a few arithmetic operations. The start point is handled the same way as a circle of
//! radius zero.

use super::geometry::{arc_blocked, distance, segments_cross, strictly_covered, sweep, tangent, Tangent};
use super::graph::{assemble, start_arrival_id, Arrival, Entry, SurfEdge, GOAL, START};
use super::world::World;
use super::{Circle, CirclePath, CirclesError, PathError, SearchStats};
use crate::geom::Point2;
use std::collections::BinaryHeap;
use std::f64::consts::TAU;

const BINS: usize = 1024;
const NONE: u32 = u32::MAX;

/// Per direction of travel (0: counter-clockwise, 1: clockwise) and bin of tangent-point angle:
/// a length beyond which every tangent ray in the bin is known to be blocked.
#[derive(Clone, Debug)]
struct Bins {
    blocked_within: Vec<f64>,
    /// Bins with no blocker yet.
    open: usize,
}

impl Bins {
    fn reset(&mut self, directions: usize) {
        self.blocked_within.clear();
        self.blocked_within.resize(2 * BINS, f64::INFINITY);
        self.open = directions * BINS;
    }

    fn at(&self, s: f64, bin: usize) -> f64 {
        self.blocked_within[dir_index(s) * BINS + bin]
    }

    fn lower(&mut self, s: f64, bin: usize, length: f64) {
        let slot = &mut self.blocked_within[dir_index(s) * BINS + bin];
        if slot.is_infinite() {
            self.open -= 1;
        }
        *slot = slot.min(length);
    }

    /// Whether some bin meeting the angle range `x0..x1` may hold an unblocked ray of `length`.
    fn may_see(&self, s: f64, x0: f64, x1: f64, length: f64) -> bool {
        if x1 - x0 >= TAU {
            return true;
        }
        let width = TAU / BINS as f64;
        let shift = x0.rem_euclid(TAU) - x0;
        let first = ((x0 + shift) / width).floor() as usize;
        let last = ((x1 + shift) / width).floor() as usize;
        (first..=last).any(|b| self.at(s, b % BINS) > length)
    }
}

impl Default for Bins {
    fn default() -> Bins {
        Bins { blocked_within: vec![f64::INFINITY; 2 * BINS], open: 2 * BINS }
    }
}

fn dir_index(s: f64) -> usize {
    usize::from(s < 0.0)
}

fn bin_of(angle: f64) -> usize {
    ((angle.rem_euclid(TAU) / (TAU / BINS as f64)) as usize).min(BINS - 1)
}

/// A circle's cached outgoing surfing edges: `edges[start..mid]` leave counter-clockwise,
/// `edges[mid..end]` clockwise.
#[derive(Clone, Debug)]
struct CachedCircle {
    start: u32,
    mid: u32,
    end: u32,
}

/// Dedup set of circle indices for one ring search.
#[derive(Clone, Debug, Default)]
struct Seen {
    stamp: Vec<u32>,
    counter: u32,
    list: Vec<u32>,
    /// Distance and direction from the origin to each circle of `list`.
    polar: Vec<(f64, f64)>,
    bins: Bins,
}

impl Seen {
    fn begin(&mut self, n: usize) {
        self.polar.clear();
        self.stamp.resize(n, 0);
        self.counter = self.counter.wrapping_add(1);
        if self.counter == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.counter = 1;
        }
        self.list.clear();
    }

    fn insert(&mut self, k: u32) {
        if self.stamp[k as usize] != self.counter {
            self.stamp[k as usize] = self.counter;
            self.list.push(k);
        }
    }
}

/// Per-query A* state, reused between queries (reset by stamps, not by clearing).
#[derive(Clone, Debug, Default)]
struct Search {
    stamp: u32,
    node_stamp: Vec<u32>,
    g: Vec<f64>,
    parent: Vec<u32>,
    closed: Vec<bool>,
    heap: BinaryHeap<Entry>,
    /// Tangent from the start for each start-arrival node (`id − 2`).
    start_edges: Vec<Tangent>,
    /// Tangent to the goal per `(circle, direction)`, computed on first use in the query.
    goal_stamp: Vec<u32>,
    goal_edges: Vec<Option<Tangent>>,
    from: Point2,
    to: Point2,
}

impl Search {
    fn begin(&mut self, circles: usize, nodes: usize, from: Point2, to: Point2) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.node_stamp.iter_mut().for_each(|s| *s = 0);
            self.goal_stamp.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.grow(nodes);
        let zero = Tangent { from_angle: 0.0, to_angle: 0.0, from: [0.0; 2], to: [0.0; 2], length: 0.0 };
        self.start_edges.resize(2 * circles, zero);
        self.goal_stamp.resize(2 * circles, 0);
        self.goal_edges.resize(2 * circles, None);
        self.heap.clear();
        self.from = from;
        self.to = to;
    }

    fn grow(&mut self, nodes: usize) {
        if self.node_stamp.len() < nodes {
            self.node_stamp.resize(nodes, 0);
            self.g.resize(nodes, f64::INFINITY);
            self.parent.resize(nodes, NONE);
            self.closed.resize(nodes, false);
        }
    }

    fn g_of(&self, node: u32) -> f64 {
        if self.node_stamp[node as usize] == self.stamp {
            self.g[node as usize]
        } else {
            f64::INFINITY
        }
    }

    fn relax(&mut self, node: u32, g: f64, parent: u32, h: f64) {
        let i = node as usize;
        if self.node_stamp[i] != self.stamp {
            self.node_stamp[i] = self.stamp;
            self.g[i] = f64::INFINITY;
            self.closed[i] = false;
        }
        if g < self.g[i] && !self.closed[i] {
            self.g[i] = g;
            self.parent[i] = parent;
            self.heap.push(Entry { f: g + h, g, node });
        }
    }
}

/// Shortest paths among circles by A* with lazily generated edges; reuse one planner for many
/// queries on the same obstacles (the surfing edges it finds are kept).
#[derive(Clone, Debug)]
pub struct CirclePlanner {
    world: World,
    /// Per circle: its index in `cached`, or `NONE` before its edges are computed.
    slot_of: Vec<u32>,
    cached: Vec<CachedCircle>,
    /// Every cached surfing edge; arrival node id = `2 + 2n + index`.
    edges: Vec<SurfEdge>,
    seen: Seen,
    search: Search,
    stats: SearchStats,
    scratch: Vec<SurfEdge>,
}

impl CirclePlanner {
    /// A planner for a point agent of radius `agent_radius` among `circles`.
    pub fn new(circles: &[Circle], agent_radius: f64) -> Result<CirclePlanner, CirclesError> {
        let world = World::new(circles, agent_radius)?;
        let n = world.circles.len();
        Ok(CirclePlanner {
            world,
            slot_of: vec![NONE; n],
            cached: Vec::new(),
            edges: Vec::new(),
            seen: Seen::default(),
            search: Search::default(),
            stats: SearchStats::default(),
            scratch: Vec::new(),
        })
    }

    /// The agent radius the obstacles were grown by.
    pub fn agent_radius(&self) -> f64 {
        self.world.agent_radius
    }

    /// The inflated obstacles the planner works with (circles inside others are left out).
    pub fn obstacles(&self) -> &[Circle] {
        &self.world.circles
    }

    /// Work counters of the last query.
    pub fn last_stats(&self) -> SearchStats {
        self.stats
    }

    /// Forgets the cached surfing edges (to measure queries from a cold start).
    pub fn clear_cache(&mut self) {
        self.slot_of.iter_mut().for_each(|s| *s = NONE);
        self.cached.clear();
        self.edges.clear();
    }

    /// Number of surfing edges currently cached.
    pub fn cached_edges(&self) -> usize {
        self.edges.len()
    }

    /// The shortest path from `from` to `to` for the agent, as segments and arcs.
    pub fn find_path(&mut self, from: Point2, to: Point2) -> Result<CirclePath, PathError> {
        self.stats = SearchStats::default();
        self.world.check_query(from, to)?;
        let n = self.world.circles.len();
        self.search.begin(n, self.node_count(), from, to);
        self.search.relax(START, 0.0, NONE, distance(from, to));
        while let Some(entry) = self.search.heap.pop() {
            let node = entry.node;
            if self.search.closed[node as usize] || entry.g > self.search.g[node as usize] {
                continue;
            }
            self.search.closed[node as usize] = true;
            self.stats.nodes_expanded += 1;
            match node {
                GOAL => return Ok(self.reconstruct()),
                START => self.expand_start(),
                _ => self.expand_arrival(node, entry.g),
            }
        }
        Err(PathError::NoPath)
    }

    fn node_count(&self) -> usize {
        2 + 2 * self.world.circles.len() + self.edges.len()
    }

    fn arrival(&self, node: u32) -> Arrival {
        let first_cached = 2 + 2 * self.world.circles.len() as u32;
        if node < first_cached {
            let index = node - 2;
            let dir = if index & 1 == 0 { 1.0 } else { -1.0 };
            Arrival { circle: index / 2, dir, tangent: self.search.start_edges[index as usize] }
        } else {
            let edge = &self.edges[(node - first_cached) as usize];
            Arrival { circle: edge.to, dir: edge.to_dir, tangent: edge.tangent }
        }
    }

    fn expand_start(&mut self) {
        let (from, to) = (self.search.from, self.search.to);
        if !self.world.segment_blocked(from, to, [NONE, NONE], &mut self.stats.circle_tests) {
            self.search.relax(GOAL, distance(from, to), START, 0.0);
        }
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        surfing_edges_from(&self.world, from, 0.0, NONE, &[1.0], &mut self.seen, &mut self.stats, &mut out);
        for edge in &out {
            let node = start_arrival_id(edge.to, edge.to_dir);
            self.search.start_edges[node as usize - 2] = edge.tangent;
            self.search.relax(node, edge.tangent.length, START, distance(edge.tangent.to, to));
        }
        self.scratch = out;
    }

    fn expand_arrival(&mut self, node: u32, g: f64) {
        let arrival = self.arrival(node);
        let circle = arrival.circle as usize;
        let slot = self.ensure_cached(circle);
        let (s, at) = (arrival.dir, arrival.tangent.to_angle);
        let radius = self.world.circles[circle].radius;
        let cached = &self.cached[slot];
        let range = if s > 0.0 { cached.start..cached.mid } else { cached.mid..cached.end };
        let first_cached = 2 + 2 * self.world.circles.len() as u32;
        let goal = self.search.to;
        for e in range {
            let edge = self.edges[e as usize];
            let swept = sweep(at, edge.tangent.from_angle, s);
            if arc_blocked(at, swept, s, &self.world.covered[circle]) {
                continue;
            }
            // A path whose consecutive surfing edges cross can be shortcut: never shortest.
            if segments_cross(arrival.tangent.from, arrival.tangent.to, edge.tangent.from, edge.tangent.to) {
                continue;
            }
            self.stats.hugging_edges += 1;
            let cost = g + radius * swept + edge.tangent.length;
            self.search.relax(first_cached + e, cost, node, distance(edge.tangent.to, goal));
        }
        if let Some(last) = self.goal_tangent(circle, s) {
            let swept = sweep(at, last.from_angle, s);
            if !arc_blocked(at, swept, s, &self.world.covered[circle])
                && !segments_cross(arrival.tangent.from, arrival.tangent.to, last.from, last.to)
            {
                self.stats.hugging_edges += 1;
                self.search.relax(GOAL, g + radius * swept + last.length, node, 0.0);
            }
        }
    }

    /// Computes and caches the outgoing surfing edges of a circle; returns its cache slot.
    fn ensure_cached(&mut self, circle: usize) -> usize {
        if self.slot_of[circle] != NONE {
            return self.slot_of[circle] as usize;
        }
        self.stats.circles_expanded += 1;
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        let c = self.world.circles[circle];
        surfing_edges_from(
            &self.world,
            c.center,
            c.radius,
            circle as u32,
            &[1.0, -1.0],
            &mut self.seen,
            &mut self.stats,
            &mut out,
        );
        // Counter-clockwise departures first; stable order keeps the search deterministic.
        out.sort_by_key(|e| dir_index(e.from_dir));
        let start = self.edges.len() as u32;
        let mid = start + out.iter().filter(|e| e.from_dir > 0.0).count() as u32;
        self.edges.extend_from_slice(&out);
        let end = self.edges.len() as u32;
        self.scratch = out;
        self.cached.push(CachedCircle { start, mid, end });
        self.slot_of[circle] = (self.cached.len() - 1) as u32;
        let nodes = self.node_count();
        self.search.grow(nodes);
        self.cached.len() - 1
    }

    /// The tangent from a circle (left in direction `s`) to the goal, if unblocked.
    fn goal_tangent(&mut self, circle: usize, s: f64) -> Option<Tangent> {
        let key = 2 * circle + dir_index(s);
        if self.search.goal_stamp[key] == self.search.stamp {
            return self.search.goal_edges[key];
        }
        let c = self.world.circles[circle];
        let goal = self.search.to;
        let found = tangent(c.center, c.radius, s, goal, 0.0, s, self.world.eps, true).filter(|t| {
            self.stats.surfing_edges += 1;
            let visible = !strictly_covered(t.from_angle, &self.world.covered[circle])
                && !self.world.segment_blocked(t.from, t.to, [circle as u32, NONE], &mut self.stats.circle_tests);
            self.stats.visible_surfing_edges += u64::from(visible);
            visible
        });
        self.search.goal_stamp[key] = self.search.stamp;
        self.search.goal_edges[key] = found;
        found
    }

    fn reconstruct(&self) -> CirclePath {
        let (from, to) = (self.search.from, self.search.to);
        let mut node = self.search.parent[GOAL as usize];
        let last = if node == START {
            Tangent { from_angle: 0.0, to_angle: 0.0, from, to, length: distance(from, to) }
        } else {
            let arrival = self.arrival(node);
            let key = 2 * arrival.circle as usize + dir_index(arrival.dir);
            // Set when the goal was relaxed from this node.
            self.search.goal_edges[key].unwrap_or(Tangent { from_angle: 0.0, to_angle: 0.0, from: to, to, length: 0.0 })
        };
        let mut chain = Vec::new();
        while node != START && node != NONE {
            chain.push(self.arrival(node));
            node = self.search.parent[node as usize];
        }
        chain.reverse();
        debug_assert!(self.search.g_of(GOAL).is_finite());
        assemble(&self.world, &chain, last)
    }
}

/// Finds the unblocked surfing edges from a circle (or, with radius 0 and `own == NONE`, from a
/// point) leaving in the given directions.
#[allow(clippy::too_many_arguments)]
fn surfing_edges_from(
    world: &World,
    origin: Point2,
    radius: f64,
    own: u32,
    directions: &[f64],
    seen: &mut Seen,
    stats: &mut SearchStats,
    out: &mut Vec<SurfEdge>,
) {
    seen.begin(world.circles.len());
    let mut bins = std::mem::take(&mut seen.bins);
    bins.reset(directions.len());
    let mut cursor = world.grid.ring_cursor(origin);
    let mut processed = 0;
    loop {
        let reach = world.grid.visit_ring(&mut cursor, |k| {
            if k != own {
                seen.insert(k);
            }
        });
        for &k in &seen.list[processed..] {
            let circle = &world.circles[k as usize];
            let v = [circle.center[0] - origin[0], circle.center[1] - origin[1]];
            let polar = ((v[0] * v[0] + v[1] * v[1]).sqrt(), v[1].atan2(v[0]));
            seen.polar.push(polar);
            add_blocker(&mut bins, world, radius, circle, polar, directions);
        }
        processed = seen.list.len();
        if reach.is_infinite() || (bins.open == 0 && reach >= needed_radius(&bins, radius + world.max_radius)) {
            break;
        }
    }
    let point = radius == 0.0;
    for (&j, &(d, centre)) in seen.list.iter().zip(&seen.polar) {
        let target = world.circles[j as usize];
        if d == 0.0 {
            continue;
        }
        // Every tangent to this circle is at least this long and leaves from a tangent point
        // in the angle range below: skip the circle when all those bins are blocked sooner.
        let shortest = (d * d - (radius + target.radius).powi(2)).max(0.0).sqrt() * (1.0 - 1e-9);
        let near = ((radius + target.radius) / d).clamp(-1.0, 1.0).acos();
        let far = ((radius - target.radius) / d).clamp(-1.0, 1.0).acos();
        for &sa in directions {
            let (x0, x1) = if sa > 0.0 { (centre - far, centre - near) } else { (centre + near, centre + far) };
            if !bins.may_see(sa, x0 - 1e-9, x1 + 1e-9, shortest) {
                continue;
            }
            for sb in [1.0, -1.0] {
                let Some(t) = tangent(origin, radius, sa, target.center, target.radius, sb, world.eps, point) else {
                    continue;
                };
                stats.surfing_edges += 1;
                if (own != NONE && strictly_covered(t.from_angle, &world.covered[own as usize]))
                    || strictly_covered(t.to_angle, &world.covered[j as usize])
                    || bins.at(sa, bin_of(t.from_angle)) <= t.length
                    || world.segment_blocked(t.from, t.to, [own, j], &mut stats.circle_tests)
                {
                    continue;
                }
                stats.visible_surfing_edges += 1;
                out.push(SurfEdge { to: j, from_dir: sa, to_dir: sb, tangent: t });
            }
        }
    }
    seen.bins = bins;
}

/// The distance beyond which no circle can have an unblocked tangent from the origin (all bins
/// must be blocked).
fn needed_radius(bins: &Bins, reach_radius: f64) -> f64 {
    let longest = bins.blocked_within.iter().copied().filter(|b| b.is_finite()).fold(0.0, f64::max);
    longest.hypot(reach_radius) * (1.0 + 1e-9)
}

/// Records, for the tangent rays of the origin circle that pass strictly within `blocker`, that
/// they are blocked within the blocker's centre distance.
///
/// The tangent ray at angle φ (tangent point `origin + R·n(φ)`, direction `±rot90(n)`) passes
/// the blocker's centre at offset `ρ·cos(φ − ψ) − R` from its line, at distance `ρ·|sin(φ − ψ)|
/// <= ρ` along it, in front of the tangent point when `φ − ψ` has the right sign. The radius is
/// shrunk a little so that "blocked here" implies the line-of-sight test says blocked too.
fn add_blocker(bins: &mut Bins, world: &World, radius: f64, blocker: &Circle, polar: (f64, f64), directions: &[f64]) {
    let (rho, centre) = polar;
    let reach = blocker.radius * (1.0 - 1e-9) - 2.0 * world.eps;
    if rho == 0.0 || reach <= 0.0 {
        return;
    }
    let (lo, hi) = ((radius - reach) / rho, (radius + reach) / rho);
    if lo >= 1.0 {
        return;
    }
    let (near, far) = (hi.min(1.0).acos(), lo.max(-1.0).acos());
    if far <= near {
        return;
    }
    for &s in directions {
        let x0 = if s > 0.0 { centre - far } else { centre + near };
        // Bins scaled to integers: bin b spans [b, b + 1).
        let scale = BINS as f64 / TAU;
        let x0 = x0.rem_euclid(TAU) * scale;
        let x1 = x0 + (far - near) * scale;
        // Bins lying strictly inside (x0, x1).
        let first = x0.floor() as usize + 1;
        let end = (x1.ceil() as usize).saturating_sub(1);
        for b in first..end {
            bins.lower(s, b % BINS, rho);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
        }
    }

    /// Every unblocked tangent from `origin`, by testing all candidates against all circles.
    fn brute_force(world: &World, origin: Point2, radius: f64, own: u32, directions: &[f64]) -> Vec<(u32, i8, i8)> {
        let mut found = Vec::new();
        for (j, target) in world.circles.iter().enumerate() {
            if j as u32 == own {
                continue;
            }
            for &sa in directions {
                for sb in [1.0, -1.0] {
                    let Some(t) =
                        tangent(origin, radius, sa, target.center, target.radius, sb, world.eps, radius == 0.0)
                    else {
                        continue;
                    };
                    let endpoints_free = (own == NONE || !strictly_covered(t.from_angle, &world.covered[own as usize]))
                        && !strictly_covered(t.to_angle, &world.covered[j]);
                    let clear = world.circles.iter().enumerate().all(|(k, c)| {
                        k == j
                            || k as u32 == own
                            || super::super::geometry::point_segment_distance2(c.center, t.from, t.to)
                                >= (c.radius - world.eps).max(0.0).powi(2)
                    });
                    if endpoints_free && clear {
                        found.push((j as u32, sa as i8, sb as i8));
                    }
                }
            }
        }
        found.sort_unstable();
        found
    }

    fn pruned(world: &World, origin: Point2, radius: f64, own: u32, directions: &[f64]) -> Vec<(u32, i8, i8)> {
        let (mut seen, mut stats, mut out) = (Seen::default(), SearchStats::default(), Vec::new());
        surfing_edges_from(world, origin, radius, own, directions, &mut seen, &mut stats, &mut out);
        let mut found: Vec<_> = out.iter().map(|e| (e.to, e.from_dir as i8, e.to_dir as i8)).collect();
        found.sort_unstable();
        found
    }

    /// The ring search, the blocking bins and the early stop must find exactly the tangents a
    /// brute-force scan finds, from circles and from points, in dense and sparse worlds.
    #[test]
    fn pruned_tangents_equal_brute_force() {
        let mut rng = Rng(0x2545f4914f6cdd1d);
        for round in 0..12 {
            let n = 40 + 20 * round;
            let side = 8.0 + (n as f64).sqrt() * if round % 2 == 0 { 2.0 } else { 3.5 };
            let circles: Vec<Circle> = (0..n)
                .map(|_| Circle {
                    center: [rng.uniform(0.0, side), rng.uniform(0.0, side)],
                    radius: rng.uniform(0.3, 1.5),
                })
                .collect();
            let world = World::new(&circles, 0.1).unwrap();
            for i in (0..world.circles.len()).step_by(3) {
                let c = world.circles[i];
                let expected = brute_force(&world, c.center, c.radius, i as u32, &[1.0, -1.0]);
                assert_eq!(
                    pruned(&world, c.center, c.radius, i as u32, &[1.0, -1.0]),
                    expected,
                    "round {round} circle {i}"
                );
            }
            for _ in 0..20 {
                let p = [rng.uniform(-2.0, side + 2.0), rng.uniform(-2.0, side + 2.0)];
                if world.check_point(p).unwrap().is_some() {
                    continue;
                }
                assert_eq!(pruned(&world, p, 0.0, NONE, &[1.0]), brute_force(&world, p, 0.0, NONE, &[1.0]));
            }
        }
    }

    /// A circle walled in by a ring with one gap sees the far side only through the gap.
    #[test]
    fn tangents_through_a_gap_in_a_ring() {
        let mut circles = vec![Circle { center: [0.0, 0.0], radius: 1.0 }];
        for k in 2..15 {
            let a = k as f64 * TAU / 16.0;
            circles.push(Circle { center: [5.0 * a.cos(), 5.0 * a.sin()], radius: 1.3 });
        }
        // A wide wall of circles behind the gap catches every ray that leaves through it.
        for k in -8..=8 {
            circles.push(Circle { center: [40.0, k as f64 * 3.0], radius: 1.6 });
        }
        let world = World::new(&circles, 0.0).unwrap();
        let expected = brute_force(&world, [0.0, 0.0], 1.0, 0, &[1.0, -1.0]);
        assert!(expected.iter().any(|e| e.0 >= 16), "some wall circle is visible through the gap");
        assert_eq!(pruned(&world, [0.0, 0.0], 1.0, 0, &[1.0, -1.0]), expected);
    }
}
