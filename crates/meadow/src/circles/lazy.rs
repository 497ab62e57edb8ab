//! The lazy planner: A* over surfing and hugging edges, generated as the search reaches circles.
//!
//! A node is an *arrival*: the point where a surfing edge touches a circle, with the direction
//! the path will travel around that circle (the clockwise and counter-clockwise copies of a
//! tangent point are different nodes). Expanding an arrival walks the circle's arc, in that
//! direction only, to the departure points of the circle's outgoing surfing edges — so a path
//! never reverses on a circle (no cusps).
//!
//! Successors are generated per expansion, in rounds bounded by the A* cost, rather than as a
//! circle's whole visibility set. Let `P` be the node's point and `g` its cost. Any successor
//! through a tangent point `q` on circle `j` costs at least `g + |P − q| + |q − goal|`, which
//! is at least `g` plus the larger of the triangle bound `(|P − c_j| − r_j) + (|c_j − goal| −
//! r_j)` and, the sum of distances being convex, its value at `c_j` minus `r_j` times its
//! gradient's length (tight for circles near the segment from `P` to the goal); the surfing
//! edge `T → q` itself costs at least `g + |P − T| + |T − q| + |q − goal|` (the hugging arc is
//! at least its chord). A round with upper limit `U` visits the grid cells of the ellipse
//! `|x − P| + |x − goal| <= U − g` (found row by row from its chords): the end `q` of any edge
//! of the round lies in it, and the cell holding `q` lists `q`'s circle. It computes the
//! tangents of the circles whose first bound is at most `U` and relaxes the edges whose own
//! bound lies in `(previous U, U]`; line of sight is only tested for those. It then queues a
//! *resume* entry keyed by the smallest bound left out (or `U` when cells were left out), which
//! leaves the open list before anything costlier than the successors it still owes, so A*
//! stays exact. The first round stops half the largest obstacle radius above the node's own
//! `f`; each resumed round at least doubles the distance over it. Most nodes are never resumed:
//! instead of everything a circle can see, an expansion looks at a thin ellipse towards the
//! goal.
//!
//! A round with more than `SWEEP_FROM` candidate circles *sweeps* them, nearest to the
//! expanded circle's centre first (buckets one grid cell wide). Every circle met is recorded as
//! a blocker in 1024 bins of departure angle: per bin, a length beyond which every tangent ray
//! of the bin passes strictly inside some circle. A candidate whose bins are all blocked sooner
//! than its shortest possible tangent is skipped without computing a tangent, and a tangent
//! whose own bin is blocked sooner than its length is dropped before any line-of-sight walk.
//! The sweep stops at distance `ρ` once every bin that an edge of this round could still use is
//! blocked within `L = sqrt(ρ² − (R + r_max)²)`: such an edge ends on a circle at least `ρ`
//! away, so it is at least `L` long, and its end lies in the round's ellipse, which bounds its
//! direction from the centre (law of cosines) and hence its departure angle. In a forest the
//! sight lines towards the goal close within a few metres, so the far part of a long ellipse is
//! never looked at. A stopped sweep queues its resume entry with key `U` — unless every bin
//! was blocked, in which case the circles beyond are invisible to every later round too.
//!
//! Only the arrival's direction of travel is expanded. The line-of-sight outcome of every
//! surfing edge tested is cached per (circle, direction) in a small hash map, blocked ones
//! included, for later arrivals and later queries; a tangent's angles (`atan2`) are only taken
//! once its cost bound has let it through. Line of sight walks the grid cells from the near
//! end of the segment and stops at the first blocker.

use super::geometry::{
    arc_blocked, distance, segments_cross, strictly_covered, sweep, tangent, tangent_points, Tangent, TangentPoints,
};
use super::graph::{assemble, start_arrival_id, Arrival, Entry, SurfEdge, GOAL, START};
use super::world::World;
use super::{Circle, CirclePath, CirclePathError, CirclesError, SearchStats};
use crate::geom::Point2;
use crate::tolerance::{CIRCLE_ANGLE_PAD, CIRCLE_BOUND_REL, CIRCLE_COSINE_SLACK, CIRCLE_REACH_REL};
use std::collections::{BinaryHeap, HashMap};
use std::f64::consts::{FRAC_PI_2, TAU};
use std::hash::{BuildHasherDefault, Hasher};

const NONE: u32 = u32::MAX;
/// Open-list entries with this bit set resume an expansion: the rest is an index into
/// `Search::resume`. Node ids stay below it.
const RESUME: u32 = 1 << 31;

/// Rounds with more candidate circles than this visit them nearest first and keep blocking bins
/// (see the module docs); smaller ones test every candidate.
const SWEEP_FROM: usize = 32;
/// Bins of departure angle for the blocking record.
const BINS: usize = 1024;

fn dir_index(s: f64) -> usize {
    usize::from(s < 0.0)
}

/// Hasher for the pair-cache keys (plain integers): one multiply instead of SipHash.
#[derive(Clone, Copy, Debug, Default)]
struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// For one circle and direction of departure: `2·target + arrival bit` → the index in
/// `CirclePlanner::edges` of that surfing edge, or `NONE` when it is blocked. Only edges whose
/// line of sight was tested are present.
type EdgeMap = HashMap<u32, u32, BuildHasherDefault<PairHasher>>;

/// An expansion that has handled the successors whose lower bound is at most `done_upto` and
/// waits in the open list for the rest.
#[derive(Clone, Copy, Debug)]
struct Resume {
    node: u32,
    g: f64,
    done_upto: f64,
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
    /// Paused expansions, indexed by the `RESUME` open-list entries.
    resume: Vec<Resume>,
    /// Dedup stamps of candidate circles within one expansion round.
    mark: Vec<u32>,
    mark_stamp: u32,
    /// Per circle: the query stamp when it was first given new surfing edges (statistics).
    expanded: Vec<u32>,
    from: Point2,
    to: Point2,
}

impl Search {
    fn begin(&mut self, circles: usize, nodes: usize, from: Point2, to: Point2) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.node_stamp.iter_mut().for_each(|s| *s = 0);
            self.goal_stamp.iter_mut().for_each(|s| *s = 0);
            self.expanded.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.grow(nodes);
        let zero = Tangent { from_angle: 0.0, to_angle: 0.0, from: [0.0; 2], to: [0.0; 2], length: 0.0 };
        self.start_edges.resize(2 * circles, zero);
        self.goal_stamp.resize(2 * circles, 0);
        self.goal_edges.resize(2 * circles, None);
        self.mark.resize(circles, 0);
        self.expanded.resize(circles, 0);
        self.heap.clear();
        self.resume.clear();
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

    /// A fresh stamp for deduplicating candidate circles.
    fn next_mark(&mut self) -> u32 {
        self.mark_stamp = self.mark_stamp.wrapping_add(1);
        if self.mark_stamp == 0 {
            self.mark.iter_mut().for_each(|s| *s = 0);
            self.mark_stamp = 1;
        }
        self.mark_stamp
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
///
/// ```
/// use meadow::circles::{Circle, CirclePlanner};
/// let pillars = [Circle { center: [0.0, 0.0], radius: 1.0 }, Circle { center: [4.0, 1.0], radius: 0.5 }];
/// let mut planner = CirclePlanner::new(&pillars, 0.25)?; // agent radius 0.25
/// let path = planner.find_path([-3.0, 0.0], [7.0, 0.0])?;
/// assert!(path.length > 10.0 && path.length < 10.6);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct CirclePlanner {
    world: World,
    /// Per circle and direction of departure (`2·circle + direction bit`): its slot in
    /// `tested`, or `NONE` before any of its surfing edges was tested.
    tested_slot: Vec<u32>,
    /// The surfing edges tested so far, per circle and direction, for this and later queries.
    tested: Vec<EdgeMap>,
    /// Every cached surfing edge; arrival node id = `2 + 2n + index`.
    edges: Vec<SurfEdge>,
    search: Search,
    stats: SearchStats,
    /// Candidate circles of the current expansion round.
    targets: Vec<u32>,
    /// Sweeps: per bin of departure angle, a length beyond which every tangent ray of the bin
    /// is blocked; the candidates with their distance and direction from the circle's centre;
    /// bucket counts.
    bins: Vec<f64>,
    order: Vec<(f64, f64, u32)>,
    sorted: Vec<(f64, f64, u32)>,
    buckets: Vec<u32>,
    /// Rounds with more candidates than this sweep (`SWEEP_FROM`; tests lower it).
    sweep_from: usize,
    /// Sweeps that stopped before their last candidate, and candidates their bins skipped
    /// (for tests).
    sweeps_stopped: u64,
    sweep_skipped: u64,
}

impl CirclePlanner {
    /// A planner for a point agent of radius `agent_radius` among `circles`.
    pub fn new(circles: &[Circle], agent_radius: f64) -> Result<CirclePlanner, CirclesError> {
        let world = World::new(circles, agent_radius)?;
        let n = world.circles.len();
        Ok(CirclePlanner {
            world,
            tested_slot: vec![NONE; 2 * n],
            tested: Vec::new(),
            edges: Vec::new(),
            search: Search::default(),
            stats: SearchStats::default(),
            targets: Vec::new(),
            bins: Vec::new(),
            order: Vec::new(),
            sorted: Vec::new(),
            buckets: Vec::new(),
            sweep_from: SWEEP_FROM,
            sweeps_stopped: 0,
            sweep_skipped: 0,
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
        self.tested_slot.iter_mut().for_each(|s| *s = NONE);
        self.tested.clear();
        self.edges.clear();
    }

    /// Number of surfing edges currently cached.
    pub fn cached_edges(&self) -> usize {
        self.edges.len()
    }

    /// The shortest path from `from` to `to` for the agent, as segments and arcs.
    pub fn find_path(&mut self, from: Point2, to: Point2) -> Result<CirclePath, CirclePathError> {
        self.stats = SearchStats::default();
        self.world.check_query(from, to)?;
        let n = self.world.circles.len();
        self.search.begin(n, self.node_count(), from, to);
        self.search.relax(START, 0.0, NONE, distance(from, to));
        while let Some(entry) = self.search.heap.pop() {
            let node = entry.node;
            if node & RESUME != 0 {
                let resume = self.search.resume[(node & !RESUME) as usize];
                self.expand(resume.node, resume.g, Some((resume.done_upto, entry.f)));
                continue;
            }
            if self.search.closed[node as usize] || entry.g > self.search.g[node as usize] {
                continue;
            }
            self.search.closed[node as usize] = true;
            self.stats.nodes_expanded += 1;
            if node == GOAL {
                return Ok(self.reconstruct());
            }
            self.expand(node, entry.g, None);
        }
        Err(CirclePathError::NoPath)
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

    /// One round of expanding `node` (the start or an arrival, reached at cost `g`): relaxes the
    /// successors through the circles whose lower bound lies in this round's range and queues a
    /// resume entry for the rest. `resumed` is the previous round's upper end and the resume
    /// entry's key; `None` on the first round, which also relaxes the goal.
    fn expand(&mut self, node: u32, g: f64, resumed: Option<(f64, f64)>) {
        let goal = self.search.to;
        let arrival = (node != START).then(|| self.arrival(node));
        let (own, point) = arrival.map_or((NONE, self.search.from), |a| (a.circle, a.tangent.to));
        let h = distance(point, goal);
        // First round: successors within half the largest obstacle radius of the node's own f
        // (never less than rounding could swallow); each later round at least doubles the
        // margin over it.
        let step = (0.5 * self.world.max_radius).max(CIRCLE_BOUND_REL * (1.0 + g.abs() + h));
        let (lo, hi) = match resumed {
            None => {
                match arrival {
                    None => self.relax_straight(),
                    Some(a) => self.relax_goal(node, g, &a),
                }
                (f64::NEG_INFINITY, g + h + step)
            }
            Some((done, key)) => (done, key.max(done) + (done - g - h).max(step)),
        };
        // Rounding must not lift a bound over a true cost.
        let margin = CIRCLE_BOUND_REL * (1.0 + g.abs() + h);
        let stamp = self.search.next_mark();
        let mut targets = std::mem::take(&mut self.targets);
        targets.clear();
        let mark = &mut self.search.mark;
        // An edge within this round's bound ends at a point `q` with `|P − q| + |q − goal|`
        // at most `hi − g`, and the cell holding `q` lists the circle `q` lies on.
        let reach = hi - g + 2.0 * margin;
        let every_cell = self.world.grid.visit_ellipse(point, goal, reach, |k| {
            if mark[k as usize] != stamp {
                mark[k as usize] = stamp;
                targets.push(k);
            }
        });
        let mut deferred = f64::INFINITY;
        let mut complete = every_cell;
        if targets.len() > self.sweep_from {
            complete &= self.sweep(node, g, arrival.as_ref(), &targets, (lo, hi, margin), &mut deferred);
        } else {
            for &j in &targets {
                if j != own {
                    deferred = deferred.min(self.consider(node, g, arrival.as_ref(), j, (lo, hi, margin), false));
                }
            }
        }
        self.targets = targets;
        if !(complete && deferred == f64::INFINITY) {
            // Unvisited cells hold only circles bounded above `hi`; the circles a sweep did not
            // reach have their edges of this round blocked.
            let key = if complete { deferred } else { hi };
            let index = self.search.resume.len() as u32;
            self.search.resume.push(Resume { node, g, done_upto: hi });
            self.search.heap.push(Entry { f: key, g, node: RESUME | index });
        }
    }

    /// Relaxes the edges of this round (`(lo, hi]` with the rounding margin) through circle `j`;
    /// returns the smallest bound left for a later round. With `use_bins`, edges the blocking
    /// bins prove blocked are skipped.
    fn consider(
        &mut self,
        node: u32,
        g: f64,
        arrival: Option<&Arrival>,
        j: u32,
        (lo, hi, margin): (f64, f64, f64),
        use_bins: bool,
    ) -> f64 {
        let goal = self.search.to;
        let point = arrival.map_or(self.search.from, |a| a.tangent.to);
        let c = self.world.circles[j as usize];
        // Any path through a tangent point on circle j costs at least this.
        let bound = g + through_circle(point, goal, &c, hi - g + margin) - margin;
        if bound > hi {
            return bound;
        }
        // Each edge has its own, tighter bound: it may fall in an earlier or a later round.
        match arrival {
            None => self.relax_from_start(j, lo, hi, margin, use_bins),
            Some(a) => self.relax_hugging(node, g, a, j, lo, hi, margin, use_bins),
        }
    }

    /// Visits the candidates nearest first (by buckets one grid cell wide), recording each as
    /// a blocker of the departure-angle bins; skips candidates the bins prove invisible and
    /// stops once every bin that an edge of this round beyond the visited distance could use is
    /// blocked sooner. Returns whether every candidate was visited.
    fn sweep(
        &mut self,
        node: u32,
        g: f64,
        arrival: Option<&Arrival>,
        targets: &[u32],
        (lo, hi, margin): (f64, f64, f64),
        deferred: &mut f64,
    ) -> bool {
        let goal = self.search.to;
        let (own, origin, radius, s) = match arrival {
            None => (NONE, self.search.from, 0.0, 1.0),
            Some(a) => {
                let c = self.world.circles[a.circle as usize];
                (a.circle, c.center, c.radius, a.dir)
            }
        };
        let width = self.world.grid.cell_size();
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        for &j in targets {
            if j != own {
                let centre = self.world.circles[j as usize].center;
                order.push((distance(origin, centre), 0.0, j));
            }
        }
        // Counting sort into buckets of distance.
        let bucket = |d: f64| ((d / width) as usize).min(1 << 16);
        let mut counts = std::mem::take(&mut self.buckets);
        counts.clear();
        counts.resize(order.iter().map(|o| bucket(o.0)).max().unwrap_or(0) + 2, 0);
        for o in &order {
            counts[bucket(o.0) + 1] += 1;
        }
        for b in 1..counts.len() {
            counts[b] += counts[b - 1];
        }
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        sorted.resize(order.len(), (0.0, 0.0, 0));
        for &o in &order {
            let slot = &mut counts[bucket(o.0)];
            sorted[*slot as usize] = o;
            *slot += 1;
        }
        self.bins.clear();
        self.bins.resize(BINS, f64::INFINITY);
        let rmax = self.world.max_radius;
        let mut start = 0;
        let mut complete = true;
        while start < sorted.len() {
            let b = bucket(sorted[start].0);
            let end = start + sorted[start..].iter().take_while(|o| bucket(o.0) == b).count();
            for o in &mut sorted[start..end] {
                let c = self.world.circles[o.2 as usize];
                o.1 = (c.center[1] - origin[1]).atan2(c.center[0] - origin[0]);
                add_blocker(&mut self.bins, radius, &c, (o.0, o.1), s, self.world.eps);
            }
            for &(d, centre, j) in &sorted[start..end] {
                let target = self.world.circles[j as usize];
                if d > 0.0 {
                    // Every tangent to this circle is at least this long and leaves from a
                    // departure angle in the range below.
                    let shortest =
                        (d * d - (radius + target.radius).powi(2)).max(0.0).sqrt() * (1.0 - CIRCLE_BOUND_REL);
                    let near = ((radius + target.radius) / d).clamp(-1.0, 1.0).acos();
                    let far = ((radius - target.radius) / d).clamp(-1.0, 1.0).acos();
                    let (x0, x1) = if s > 0.0 { (centre - far, centre - near) } else { (centre + near, centre + far) };
                    if !may_see(&self.bins, x0 - CIRCLE_ANGLE_PAD, x1 + CIRCLE_ANGLE_PAD, shortest) {
                        self.sweep_skipped += 1;
                        continue;
                    }
                }
                *deferred = deferred.min(self.consider(node, g, arrival, j, (lo, hi, margin), true));
            }
            start = end;
            // Every candidate closer than this has been visited.
            let rho = (b + 1) as f64 * width * (1.0 - CIRCLE_REACH_REL);
            if start < sorted.len() {
                if let Some(forever) = beyond_sight(&self.bins, origin, radius, s, rho, rmax, hi - g + margin, goal) {
                    // Blocked all round, the circles left are invisible for any later round too.
                    complete = forever;
                    self.sweeps_stopped += 1;
                    break;
                }
            }
        }
        self.order = order;
        self.sorted = sorted;
        self.buckets = counts;
        complete
    }

    /// The straight segment from the start to the goal, if unblocked.
    fn relax_straight(&mut self) {
        let (from, to) = (self.search.from, self.search.to);
        if !self.world.segment_blocked(from, to, [NONE, NONE], &mut self.stats.circle_tests) {
            self.search.relax(GOAL, distance(from, to), START, 0.0);
        }
    }

    /// The tangents from the start to circle `j` whose cost bound lies in `(lo, hi]`; returns the
    /// smallest bound above `hi`.
    fn relax_from_start(&mut self, j: u32, lo: f64, hi: f64, margin: f64, use_bins: bool) -> f64 {
        let (from, goal) = (self.search.from, self.search.to);
        let target = self.world.circles[j as usize];
        let mut later = f64::INFINITY;
        for sb in [1.0, -1.0] {
            let Some(t) = tangent_points(from, 0.0, 1.0, target.center, target.radius, sb) else {
                continue;
            };
            let bound = t.length + distance(t.to, goal) - margin;
            if !self.in_round(bound, (lo, hi), &mut later, use_bins, &t) {
                continue;
            }
            self.stats.surfing_edges += 1;
            let covered = self.world.covered(j as usize);
            if (!covered.is_empty() && strictly_covered(t.arrival_angle(), covered))
                || self.world.segment_blocked(t.from, t.to, [NONE, j], &mut self.stats.circle_tests)
            {
                continue;
            }
            self.stats.visible_surfing_edges += 1;
            let node = start_arrival_id(j, sb);
            self.search.start_edges[node as usize - 2] = t.with_angles();
            self.search.relax(node, t.length, START, distance(t.to, goal));
        }
        later
    }

    /// Whether a candidate edge whose cost bound is `bound` belongs to the round `(lo, hi]`
    /// and is not already known blocked by the bins; a bound above `hi` lowers `later`, the
    /// bound of the next round.
    fn in_round(&self, bound: f64, (lo, hi): (f64, f64), later: &mut f64, use_bins: bool, t: &TangentPoints) -> bool {
        if bound <= lo {
            return false;
        }
        if bound > hi {
            *later = later.min(bound);
            return false;
        }
        !(use_bins && self.bins[bin_of(t.departure_angle())] <= t.length)
    }

    /// The hugging edges from an arrival to the surfing edges leaving its circle for circle `j`
    /// whose cost bound lies in `(lo, hi]`; returns the smallest bound above `hi`.
    #[allow(clippy::too_many_arguments)]
    fn relax_hugging(
        &mut self,
        node: u32,
        g: f64,
        arrival: &Arrival,
        j: u32,
        lo: f64,
        hi: f64,
        margin: f64,
        use_bins: bool,
    ) -> f64 {
        let circle = arrival.circle as usize;
        let (s, at, point) = (arrival.dir, arrival.tangent.to_angle, arrival.tangent.to);
        let (a, b) = (self.world.circles[circle], self.world.circles[j as usize]);
        let first_cached = 2 + 2 * self.world.circles.len() as u32;
        let goal = self.search.to;
        let mut later = f64::INFINITY;
        for sb in [1.0, -1.0] {
            let Some(t) = tangent_points(a.center, a.radius, s, b.center, b.radius, sb) else {
                continue;
            };
            // The arc to the departure point is at least its chord.
            let bound = g + distance(point, t.from) + t.length + distance(t.to, goal) - margin;
            if !self.in_round(bound, (lo, hi), &mut later, use_bins, &t) {
                continue;
            }
            let e = self.surfing_edge(arrival.circle, s, j, sb, &t);
            if e == NONE {
                continue;
            }
            let edge = self.edges[e as usize];
            let swept = sweep(at, edge.tangent.from_angle, s);
            if arc_blocked(at, swept, s, self.world.covered(circle)) {
                continue;
            }
            // A path whose consecutive surfing edges cross can be shortcut: never shortest.
            if segments_cross(arrival.tangent.from, arrival.tangent.to, edge.tangent.from, edge.tangent.to) {
                continue;
            }
            self.stats.hugging_edges += 1;
            let cost = g + a.radius * swept + edge.tangent.length;
            self.search.relax(first_cached + e, cost, node, distance(edge.tangent.to, goal));
        }
        later
    }

    /// The hugging edge from an arrival to the tangent to the goal.
    fn relax_goal(&mut self, node: u32, g: f64, arrival: &Arrival) {
        let circle = arrival.circle as usize;
        let (s, at) = (arrival.dir, arrival.tangent.to_angle);
        if let Some(last) = self.goal_tangent(circle, s) {
            let swept = sweep(at, last.from_angle, s);
            if !arc_blocked(at, swept, s, self.world.covered(circle))
                && !segments_cross(arrival.tangent.from, arrival.tangent.to, last.from, last.to)
            {
                self.stats.hugging_edges += 1;
                let radius = self.world.circles[circle].radius;
                self.search.relax(GOAL, g + radius * swept + last.length, node, 0.0);
            }
        }
    }

    /// The index in `edges` of the surfing edge `t` from `circle` (direction `s`) to `target`
    /// (direction `sb`), or `NONE` when it is blocked; tests line of sight on first use.
    fn surfing_edge(&mut self, circle: u32, s: f64, target: u32, sb: f64, t: &TangentPoints) -> u32 {
        let slot_key = 2 * circle as usize + dir_index(s);
        let key = 2 * target + dir_index(sb) as u32;
        let slot = self.tested_slot[slot_key];
        if slot != NONE {
            if let Some(&e) = self.tested[slot as usize].get(&key) {
                return e;
            }
        }
        if self.search.expanded[circle as usize] != self.search.stamp {
            self.search.expanded[circle as usize] = self.search.stamp;
            self.stats.circles_expanded += 1;
        }
        self.stats.surfing_edges += 1;
        let (from_covered, to_covered) = (self.world.covered(circle as usize), self.world.covered(target as usize));
        let e = if (!from_covered.is_empty() && strictly_covered(t.departure_angle(), from_covered))
            || (!to_covered.is_empty() && strictly_covered(t.arrival_angle(), to_covered))
            || self.world.segment_blocked(t.from, t.to, [circle, target], &mut self.stats.circle_tests)
        {
            NONE
        } else {
            self.stats.visible_surfing_edges += 1;
            self.edges.push(SurfEdge { to: target, from_dir: s, to_dir: sb, tangent: t.with_angles() });
            let nodes = self.node_count();
            self.search.grow(nodes);
            self.edges.len() as u32 - 1
        };
        let slot = if slot == NONE {
            self.tested.push(EdgeMap::with_capacity_and_hasher(32, Default::default()));
            self.tested_slot[slot_key] = (self.tested.len() - 1) as u32;
            self.tested.len() - 1
        } else {
            slot as usize
        };
        self.tested[slot].insert(key, e);
        e
    }

    /// The tangent from a circle (left in direction `s`) to the goal, if unblocked.
    fn goal_tangent(&mut self, circle: usize, s: f64) -> Option<Tangent> {
        let key = 2 * circle + dir_index(s);
        if self.search.goal_stamp[key] == self.search.stamp {
            return self.search.goal_edges[key];
        }
        let c = self.world.circles[circle];
        let goal = self.search.to;
        let found = tangent(c.center, c.radius, s, goal, 0.0, s).filter(|t| {
            self.stats.surfing_edges += 1;
            let visible = !strictly_covered(t.from_angle, self.world.covered(circle))
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

/// A lower bound on `|p − q| + |q − goal|` over the points `q` of `circle`. The function is
/// convex, so it is at least its value at the centre minus the radius times its gradient's
/// length there, `2·cos(α/2)` for the angle `α` the centre sees `p` and `goal` under: near the
/// segment between them (the circles that matter most) that is far tighter than the plain
/// triangle bound `(|p − c| − r) + (|c − goal| − r)`, which is taken when larger (and alone
/// when it already exceeds `limit`).
fn through_circle(p: Point2, goal: Point2, circle: &Circle, limit: f64) -> f64 {
    let c = circle.center;
    let (to_p, to_goal) = ([p[0] - c[0], p[1] - c[1]], [goal[0] - c[0], goal[1] - c[1]]);
    let (dp, dg) = (distance(p, c), distance(goal, c));
    let triangle = (dp - circle.radius).max(0.0) + (dg - circle.radius).max(0.0);
    if dp == 0.0 || dg == 0.0 || triangle > limit {
        return triangle;
    }
    let cos = (to_p[0] * to_goal[0] + to_p[1] * to_goal[1]) / (dp * dg);
    let gradient = (2.0 + 2.0 * cos).max(0.0).sqrt();
    triangle.max(dp + dg - circle.radius * gradient)
}

fn bin_of(angle: f64) -> usize {
    ((angle.rem_euclid(TAU) / (TAU / BINS as f64)) as usize).min(BINS - 1)
}

/// Whether some bin meeting the departure-angle range `x0..x1` may hold an unblocked tangent of
/// `length`.
fn may_see(bins: &[f64], x0: f64, x1: f64, length: f64) -> bool {
    if x1 - x0 >= TAU {
        return bins.iter().any(|&b| b > length);
    }
    let width = TAU / BINS as f64;
    let shift = x0.rem_euclid(TAU) - x0;
    let first = ((x0 + shift) / width).floor() as usize;
    let last = ((x1 + shift) / width).floor() as usize;
    (first..=last).any(|b| bins[b % BINS] > length)
}

/// Records, for the tangent rays leaving the origin circle (radius `radius`, direction `s`)
/// that pass strictly within `blocker`, that they are blocked within the blocker's centre
/// distance.
///
/// The tangent ray at departure angle φ (tangent point `origin + R·n(φ)`, direction
/// `s·rot90(n(φ))`) passes the blocker's centre (polar `(ρ, ψ)`) at offset `ρ·cos(φ − ψ) − R`
/// from its line, at distance `ρ·|sin(φ − ψ)| <= ρ` along it, in front of the tangent point
/// when `φ − ψ` has the sign of `−s`. The radius is shrunk a little so that "blocked here"
/// implies the line-of-sight test says blocked too.
fn add_blocker(bins: &mut [f64], radius: f64, blocker: &Circle, (rho, centre): (f64, f64), s: f64, eps: f64) {
    let reach = blocker.radius * (1.0 - CIRCLE_BOUND_REL) - 2.0 * eps;
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
    let x0 = if s > 0.0 { centre - far } else { centre + near };
    // Bins scaled to integers: bin b spans [b, b + 1); only bins strictly inside count.
    let scale = BINS as f64 / TAU;
    let x0 = x0.rem_euclid(TAU) * scale;
    let x1 = x0 + (far - near) * scale;
    let first = x0.floor() as usize + 1;
    let end = (x1.ceil() as usize).saturating_sub(1);
    for b in first..end {
        let slot = &mut bins[b % BINS];
        *slot = slot.min(rho);
    }
}

/// Whether no edge of the round can leave the origin circle unblocked towards a circle whose
/// centre is at least `rho` away: `Some(true)` when every bin is blocked soon enough (no edge
/// of any round can), `Some(false)` when only those the round's ellipse allows are, `None`
/// otherwise. Such an edge is at least `L = sqrt(ρ² − (R + r_max)²)` long
/// and ends at a point `q` at least `ρ − r_max` from the origin with `|q − O| + |q − goal|` at
/// most `sum + R` (`sum` bounds the way from the node's point, which is within `R` of the
/// origin). Those points lie within `acos κ` of the goal's direction, `κ = (D² − S² + 2St) /
/// 2tD` (`t = ρ − r_max`, `S = sum + R`, `D` the goal's distance: the law of cosines, worst at
/// the smallest `t`), and the departure angle is `s·(π/2 − atan(R/L'))` behind the direction of
/// `q` (`L' >= L` the edge's length). Every bin of that range must be blocked within `L`.
#[allow(clippy::too_many_arguments)]
fn beyond_sight(
    bins: &[f64],
    origin: Point2,
    radius: f64,
    s: f64,
    rho: f64,
    rmax: f64,
    sum: f64,
    goal: Point2,
) -> Option<bool> {
    let t = rho - rmax;
    let shortest2 = rho * rho - (radius + rmax).powi(2);
    let to_goal = [goal[0] - origin[0], goal[1] - origin[1]];
    let d = distance(origin, goal);
    if t <= 0.0 || shortest2 <= 0.0 || d == 0.0 {
        return None;
    }
    let shortest = shortest2.sqrt() * (1.0 - CIRCLE_BOUND_REL);
    let reach = (sum + radius) * (1.0 + CIRCLE_REACH_REL);
    let kappa = (d * d - reach * reach + 2.0 * reach * t) / (2.0 * t * d) - CIRCLE_COSINE_SLACK;
    if kappa > 1.0 {
        return Some(false);
    }
    let all_round = kappa <= -1.0;
    let (x0, x1) = if all_round {
        (0.0, TAU)
    } else {
        let half = kappa.acos();
        let theta = to_goal[1].atan2(to_goal[0]);
        let widen = (radius / shortest).atan();
        if s > 0.0 {
            (theta - half - FRAC_PI_2, theta + half - FRAC_PI_2 + widen)
        } else {
            (theta - half + FRAC_PI_2 - widen, theta + half + FRAC_PI_2)
        }
    };
    (!may_see(bins, x0 - CIRCLE_ANGLE_PAD, x1 + CIRCLE_ANGLE_PAD, shortest)).then_some(all_round)
}

#[cfg(test)]
mod tests;
