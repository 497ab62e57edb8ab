//! Round-obstacle planner: lazy A* against the eager reference on thousands of random forests,
//! path invariants (clearance, continuity, no cusps), and an independent polygon oracle.

use meadow::circles::{Circle, CirclePath, CirclePathError, CirclePlanner, Direction, EagerPlanner, Piece};
use meadow::geom::Point2;
use meadow_testkit::rng::{Draw, SplitMix64};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Disjoint circles with at least `gap` between them.
    Separate,
    /// Anything goes.
    Overlapping,
    /// Chains of touching circles (up to rounding: centres placed with sine and cosine), plus
    /// some free ones.
    Touching,
    /// Chains, triangles and stars of circles that touch exactly once grown by the agent radius
    /// (centres on 3-4-5 triangles, radii multiples of 0.25, all exact in binary), plus some
    /// free ones; see [`lattice_forest`].
    ExactTouching,
}

/// Offsets (multiples of 3-4-5 triangles) from a circle to one touching it: exact in binary.
const KISS_OFFSETS: [[f64; 2]; 8] =
    [[3.0, 4.0], [4.0, 3.0], [-3.0, 4.0], [-4.0, 3.0], [5.0, 0.0], [0.0, 5.0], [-4.0, -3.0], [3.0, -4.0]];

/// A forest whose circles, grown by `agent`, kiss exactly: each new circle either starts a chain
/// on the lattice of quarter metres or kisses an earlier one (its grown radius is the offset's
/// length minus the other's grown radius); a third of them also try to kiss a second earlier
/// circle, closing triangles. Returns the circles and the kiss points (exact).
fn lattice_forest(rng: &mut SplitMix64, n: usize, size: f64, agent: f64) -> (Vec<Circle>, Vec<Point2>) {
    let quarter = |rng: &mut SplitMix64, lo: f64, hi: f64| (rng.uniform(lo, hi) * 4.0).round() / 4.0;
    let mut circles: Vec<Circle> = Vec::new();
    let mut kisses = Vec::new();
    let mut attempts = 0;
    while circles.len() < n && attempts < 10_000 {
        attempts += 1;
        if circles.is_empty() || rng.below(4) == 0 {
            let center = [quarter(rng, 0.0, size), quarter(rng, 0.0, size)];
            circles.push(Circle { center, radius: quarter(rng, 0.5, 2.0) });
            continue;
        }
        let base = circles[rng.below(circles.len())];
        let offset = KISS_OFFSETS[rng.below(KISS_OFFSETS.len())];
        // Offsets of length 2.5, 3.75 or 5: components are multiples of 0.75 or 0.5.
        let scale = [0.5, 0.75, 1.0][rng.below(3)];
        let d = 5.0 * scale;
        let radius = d - base.radius - 2.0 * agent;
        if !(0.25..=2.5).contains(&radius) {
            continue;
        }
        let center = [base.center[0] + scale * offset[0], base.center[1] + scale * offset[1]];
        let t = (base.radius + agent) / d;
        kisses.push([base.center[0] + t * scale * offset[0], base.center[1] + t * scale * offset[1]]);
        circles.push(Circle { center, radius });
    }
    (circles, kisses)
}

fn forest(rng: &mut SplitMix64, kind: Kind, n: usize, size: f64) -> Vec<Circle> {
    let mut circles: Vec<Circle> = Vec::new();
    let mut attempts = 0;
    while circles.len() < n && attempts < 10_000 {
        attempts += 1;
        let radius = rng.uniform(0.3, 2.0);
        let center = [rng.uniform(0.0, size), rng.uniform(0.0, size)];
        let candidate = Circle { center, radius };
        match kind {
            Kind::Separate => {
                let clear = circles.iter().all(|c| dist(c.center, center) > c.radius + radius + 0.05);
                if clear {
                    circles.push(candidate);
                }
            }
            Kind::Overlapping => circles.push(candidate),
            Kind::ExactTouching => unreachable!("made by lattice_forest"),
            Kind::Touching => {
                if !circles.is_empty() && rng.below(3) > 0 {
                    let base = circles[rng.below(circles.len())];
                    let angle = rng.uniform(0.0, std::f64::consts::TAU);
                    let d = base.radius + radius;
                    circles.push(Circle {
                        center: [base.center[0] + d * angle.cos(), base.center[1] + d * angle.sin()],
                        radius,
                    });
                } else {
                    circles.push(candidate);
                }
            }
        }
    }
    circles
}

fn dist(a: Point2, b: Point2) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

fn free_point(rng: &mut SplitMix64, circles: &[Circle], agent: f64, size: f64) -> Point2 {
    loop {
        let p = [rng.uniform(-1.0, size + 1.0), rng.uniform(-1.0, size + 1.0)];
        if circles.iter().all(|c| dist(c.center, p) > c.radius + agent + 1e-6) {
            return p;
        }
    }
}

/// Distance from `q` to an arc piece.
fn arc_distance(q: Point2, center: Point2, radius: f64, start: f64, end: f64) -> f64 {
    let (lo, hi) = if start <= end { (start, end) } else { (end, start) };
    let angle = (q[1] - center[1]).atan2(q[0] - center[0]);
    let within = (angle - lo).rem_euclid(std::f64::consts::TAU) <= hi - lo;
    let end_points = |a: f64| dist(q, [center[0] + radius * a.cos(), center[1] + radius * a.sin()]);
    if within && q != center {
        (dist(q, center) - radius).abs()
    } else if q == center {
        radius
    } else {
        end_points(lo).min(end_points(hi))
    }
}

fn segment_distance(p: Point2, a: Point2, b: Point2) -> f64 {
    meadow::geom::point_segment_distance(p, a, b)
}

fn direction_at(piece: &Piece, at_end: bool) -> Option<Point2> {
    match *piece {
        Piece::Segment { from, to } => {
            let len = dist(from, to);
            (len > 1e-9).then(|| [(to[0] - from[0]) / len, (to[1] - from[1]) / len])
        }
        Piece::Arc { start_angle, end_angle, direction, .. } => {
            let a = if at_end { end_angle } else { start_angle };
            let s = match direction {
                Direction::CounterClockwise => 1.0,
                Direction::Clockwise => -1.0,
            };
            // The stored angles must sweep in the stated direction.
            assert!((end_angle - start_angle) * s > 0.0, "arc sweeps against its direction");
            Some([-s * a.sin(), s * a.cos()])
        }
    }
}

/// Checks every invariant of a returned path; returns nothing, panics with a reason.
fn check_path(path: &CirclePath, from: Point2, to: Point2, circles: &[Circle], agent: f64) {
    assert!(!path.pieces.is_empty());
    assert!(dist(path.pieces[0].start(), from) < 1e-9, "path starts at the start");
    assert!(dist(path.pieces.last().unwrap().end(), to) < 1e-9, "path ends at the goal");
    let total: f64 = path.pieces.iter().map(Piece::length).sum();
    assert!((total - path.length).abs() <= 1e-9 * (1.0 + total));
    assert!(path.length >= dist(from, to) - 1e-9);
    for w in path.pieces.windows(2) {
        assert!(dist(w[0].end(), w[1].start()) < 1e-8, "pieces join: {:?} {:?}", w[0], w[1]);
        // G1 continuity: a cusp or corner would show as a change of direction at the joint.
        if let (Some(a), Some(b)) = (direction_at(&w[0], true), direction_at(&w[1], false)) {
            assert!(a[0] * b[0] + a[1] * b[1] > 1.0 - 1e-6, "corner or cusp between {:?} and {:?}", w[0], w[1]);
        }
    }
    for piece in &path.pieces {
        for c in circles {
            let clearance = match *piece {
                Piece::Segment { from, to } => segment_distance(c.center, from, to),
                Piece::Arc { center, radius, start_angle, end_angle, .. } => {
                    arc_distance(c.center, center, radius, start_angle, end_angle)
                }
            } - c.radius;
            assert!(clearance >= agent - 1e-9, "clearance {clearance} < agent radius {agent}: {piece:?} vs {c:?}");
        }
    }
}

fn same_outcome(
    lazy: &Result<CirclePath, CirclePathError>,
    eager: &Result<CirclePath, CirclePathError>,
    context: &str,
) {
    match (lazy, eager) {
        (Ok(a), Ok(b)) => {
            assert!(
                (a.length - b.length).abs() <= 1e-9 * (1.0 + a.length),
                "{context}: lazy {} eager {}",
                a.length,
                b.length
            )
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{context}"),
        _ => panic!("{context}: lazy {lazy:?} vs eager {eager:?}"),
    }
}

#[test]
fn lazy_matches_eager_on_random_forests() {
    let mut rng = SplitMix64::new(0x5eed_c1c1e5);
    let mut found = 0;
    let mut with_arcs = 0;
    let mut forests = 0;
    let mut from_kisses = 0;
    let mut through_kisses = 0;
    for kind in [Kind::Separate, Kind::Overlapping, Kind::Touching, Kind::ExactTouching] {
        for round in 0..700 {
            let n = 5 + rng.below(26);
            let size = if round % 2 == 0 { 20.0 } else { 12.0 };
            let (circles, agent, kisses) = if kind == Kind::ExactTouching {
                let agent = [0.0, 0.25, 0.5][round % 3];
                let (circles, kisses) = lattice_forest(&mut rng, n, size, agent);
                (circles, agent, kisses)
            } else {
                let circles = forest(&mut rng, kind, n, size);
                let agent = if round % 3 == 0 { 0.0 } else { rng.uniform(0.0, 0.5) };
                (circles, agent, Vec::new())
            };
            let mut lazy = CirclePlanner::new(&circles, agent).unwrap();
            let mut eager = EagerPlanner::new(&circles, agent).unwrap();
            forests += 1;
            // Several queries on one lazy planner: later ones run on a warm cache.
            for q in 0..3 {
                let mut from = free_point(&mut rng, &circles, agent, size);
                let to = free_point(&mut rng, &circles, agent, size);
                // A kiss point is on two boundaries: a valid start unless a third circle covers it.
                if q == 2 && !kisses.is_empty() {
                    from = kisses[rng.below(kisses.len())];
                    from_kisses += 1;
                }
                let context = format!("{kind:?} round {round} query {q}: {circles:?} agent {agent} {from:?} -> {to:?}");
                let a = lazy.find_path(from, to);
                let b = eager.find_path(from, to);
                same_outcome(&a, &b, &context);
                if let Ok(path) = &a {
                    check_path(path, from, to, &circles, agent);
                    check_path(b.as_ref().unwrap(), from, to, &circles, agent);
                    found += 1;
                    with_arcs += usize::from(path.pieces.iter().any(|p| matches!(p, Piece::Arc { .. })));
                    let inner = |k: &Point2| dist(*k, from) > 1e-9 && dist(*k, to) > 1e-9;
                    through_kisses += usize::from(kisses.iter().filter(|k| inner(k)).any(|&k| passes_through(path, k)));
                }
            }
        }
    }
    assert_eq!(forests, 2800);
    // The forests must actually exercise the planner, kiss points included.
    assert!(found > 6500 && with_arcs > 4000, "found {found}, with arcs {with_arcs}");
    assert!(from_kisses > 500 && through_kisses > 100, "from kisses {from_kisses}, through kisses {through_kisses}");
}

#[test]
fn cold_and_warm_caches_agree() {
    let mut rng = SplitMix64::new(77);
    for _ in 0..40 {
        let circles = forest(&mut rng, Kind::Overlapping, 60, 40.0);
        let mut warm = CirclePlanner::new(&circles, 0.2).unwrap();
        let mut cold = CirclePlanner::new(&circles, 0.2).unwrap();
        for _ in 0..5 {
            let from = free_point(&mut rng, &circles, 0.2, 40.0);
            let to = free_point(&mut rng, &circles, 0.2, 40.0);
            cold.clear_cache();
            let (a, b) = (warm.find_path(from, to), cold.find_path(from, to));
            same_outcome(&a, &b, "warm vs cold");
        }
    }
}

#[test]
fn blocked_endpoints_are_reported() {
    let circles = [Circle { center: [0.0, 0.0], radius: 1.0 }, Circle { center: [10.0, 0.0], radius: 1.0 }];
    let mut lazy = CirclePlanner::new(&circles, 0.5).unwrap();
    // Outside the obstacle but inside its inflation.
    assert_eq!(lazy.find_path([1.2, 0.0], [5.0, 5.0]), Err(CirclePathError::StartBlocked { circle: 0 }));
    assert_eq!(lazy.find_path([5.0, 5.0], [10.0, 1.4]), Err(CirclePathError::GoalBlocked { circle: 1 }));
    assert!(matches!(lazy.find_path([f64::NAN, 0.0], [5.0, 5.0]), Err(CirclePathError::InvalidPoint(_))));
    // A ring of overlapping circles walls the goal off.
    let ring: Vec<Circle> = (0..24)
        .map(|k| {
            let a = k as f64 * std::f64::consts::TAU / 24.0;
            Circle { center: [10.0 * a.cos(), 10.0 * a.sin()], radius: 1.5 }
        })
        .collect();
    let mut lazy = CirclePlanner::new(&ring, 0.0).unwrap();
    let mut eager = EagerPlanner::new(&ring, 0.0).unwrap();
    assert_eq!(lazy.find_path([0.0, 0.0], [20.0, 0.0]), Err(CirclePathError::NoPath));
    assert_eq!(eager.find_path([0.0, 0.0], [20.0, 0.0]), Err(CirclePathError::NoPath));
    // With a gap the path leaves through it.
    let gapped: Vec<Circle> = ring.iter().copied().skip(1).collect();
    let mut lazy = CirclePlanner::new(&gapped, 0.0).unwrap();
    let path = lazy.find_path([0.0, 0.0], [20.0, 0.0]).unwrap();
    check_path(&path, [0.0, 0.0], [20.0, 0.0], &gapped, 0.0);
    // Invalid input is an error, not a panic.
    assert!(CirclePlanner::new(&[Circle { center: [0.0, 0.0], radius: -1.0 }], 0.0).is_err());
    assert!(CirclePlanner::new(&circles, f64::NAN).is_err());
}

/// A single circle: the classic closed form (two tangents and an arc).
#[test]
fn single_circle_closed_form() {
    let r: f64 = 1.0;
    let circles = [Circle { center: [0.0, 0.0], radius: r }];
    let (from, to) = ([-3.0, 0.0], [3.0, 0.0]);
    let mut lazy = CirclePlanner::new(&circles, 0.0).unwrap();
    let path = lazy.find_path(from, to).unwrap();
    // Each tangent has length sqrt(d² − r²); the arc between the tangent points spans
    // π − 2·acos(r/d) radians.
    let d: f64 = 3.0;
    let expected = 2.0 * (d * d - r * r).sqrt() + r * (std::f64::consts::PI - 2.0 * (r / d).acos());
    assert!((path.length - expected).abs() < 1e-12, "{} vs {expected}", path.length);
    assert_eq!(path.pieces.len(), 3);
}

/// Walls with one far gap: the shortest path is several times the straight distance, so the
/// lazy planner's expansions must come back (again and again, with growing cost bounds) for the
/// circles they first left out.
#[test]
fn long_detours_through_far_gaps() {
    let mut rng = SplitMix64::new(0xde7012);
    let mut detours = 0;
    for round in 0..12 {
        let gap = rng.uniform(-28.0, 28.0);
        let mut circles: Vec<Circle> = (0..31)
            .map(|k| Circle { center: [0.0, -30.0 + 2.0 * k as f64], radius: 1.2 })
            .filter(|c| (c.center[1] - gap).abs() > 2.5)
            .collect();
        // Clutter on both sides.
        circles.extend(
            forest(&mut rng, Kind::Separate, 40, 30.0)
                .into_iter()
                .map(|c| Circle { center: [c.center[0] - 15.0, c.center[1] - 15.0], radius: c.radius * 0.5 }),
        );
        let agent = if round % 2 == 0 { 0.0 } else { 0.2 };
        let mut lazy = CirclePlanner::new(&circles, agent).unwrap();
        let mut eager = EagerPlanner::new(&circles, agent).unwrap();
        for q in 0..6 {
            let from = [rng.uniform(-14.0, -3.0), rng.uniform(-25.0, 25.0)];
            let to = [rng.uniform(3.0, 14.0), rng.uniform(-25.0, 25.0)];
            let blocked = |p: Point2| circles.iter().any(|c| dist(c.center, p) <= c.radius + agent + 1e-6);
            if blocked(from) || blocked(to) {
                continue;
            }
            let context = format!("detour round {round} query {q}: {circles:?} agent {agent} {from:?} -> {to:?}");
            let a = lazy.find_path(from, to);
            same_outcome(&a, &eager.find_path(from, to), &context);
            if let Ok(path) = &a {
                check_path(path, from, to, &circles, agent);
                detours += usize::from(path.length > 1.5 * dist(from, to));
            }
        }
    }
    assert!(detours > 20, "only {detours} queries had to detour");
}

/// Dense forests, where the lazy planner looks only at the circles within its A* cost bound:
/// the pruning must never lose the shortest path.
#[test]
fn lazy_matches_eager_in_dense_forests() {
    let mut rng = SplitMix64::new(0xde75e);
    let mut pruned = 0;
    for round in 0..30 {
        let kind = if round % 2 == 0 { Kind::Separate } else { Kind::Overlapping };
        let n = 80 + rng.below(80);
        let circles = forest(&mut rng, kind, n, 30.0);
        let agent = rng.uniform(0.0, 0.3);
        let mut lazy = CirclePlanner::new(&circles, agent).unwrap();
        let mut eager = EagerPlanner::new(&circles, agent).unwrap();
        let all_candidates = eager.build_stats().surfing_edges;
        for q in 0..6 {
            let from = free_point(&mut rng, &circles, agent, 30.0);
            let to = free_point(&mut rng, &circles, agent, 30.0);
            lazy.clear_cache();
            let a = lazy.find_path(from, to);
            let b = eager.find_path(from, to);
            same_outcome(
                &a,
                &b,
                &format!("dense {kind:?} round {round} query {q}: {circles:?} agent {agent} {from:?} -> {to:?}"),
            );
            if let Ok(path) = &a {
                check_path(path, from, to, &circles, agent);
            }
            let stats = lazy.last_stats();
            // Candidates a full per-circle scan would have computed for the circles it expanded.
            let full = stats.circles_expanded * 4 * (circles.len() as u64 - 1);
            eprintln!("lazy {} of {} per-circle candidates; eager graph {}", stats.surfing_edges, full, all_candidates);
            pruned += usize::from(stats.surfing_edges * 2 < full);
        }
    }
    assert!(pruned > 90, "pruning rarely kicked in: {pruned}");
}

/// Independent oracle: each circle (grown by the agent radius) replaced by a circumscribed regular
/// polygon, and the shortest path found in the plain visibility graph of the polygon vertices.
/// Nothing here uses the planner's code.
mod polygon_oracle {
    use super::{dist, Circle, Point2};

    /// Outward edge normals and vertices of the polygon bounded by the tangent lines of the
    /// circle at angles `2πk/sides`: doubling `sides` only adds half-planes, so the polygons
    /// shrink towards the circle.
    pub struct Polygon {
        pub vertices: Vec<Point2>,
        pub center: Point2,
        pub circumradius: f64,
    }

    pub fn polygon(c: &Circle, agent: f64, sides: usize) -> Polygon {
        let r = c.radius + agent;
        let step = std::f64::consts::TAU / sides as f64;
        let circumradius = r / (step / 2.0).cos();
        let vertices = (0..sides)
            .map(|k| {
                let a = (k as f64 + 0.5) * step;
                [c.center[0] + circumradius * a.cos(), c.center[1] + circumradius * a.sin()]
            })
            .collect();
        Polygon { vertices, center: c.center, circumradius }
    }

    fn cross(o: Point2, a: Point2, b: Point2) -> f64 {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    }

    const TOL: f64 = 1e-9;

    /// Whether `p` is strictly inside the (counter-clockwise, convex) polygon.
    fn strictly_inside(poly: &Polygon, p: Point2) -> bool {
        let n = poly.vertices.len();
        (0..n).all(|i| cross(poly.vertices[i], poly.vertices[(i + 1) % n], p) > TOL)
    }

    /// Whether the open segment `a b` passes through the polygon's interior: clip the segment's
    /// parameter range by each edge's inner half-plane and see if anything is left.
    fn crosses_interior(poly: &Polygon, a: Point2, b: Point2) -> bool {
        // Cheap rejection by the circumscribed circle.
        if meadow::geom::point_segment_distance(poly.center, a, b) >= poly.circumradius {
            return false;
        }
        let n = poly.vertices.len();
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for i in 0..n {
            let (p, q) = (poly.vertices[i], poly.vertices[(i + 1) % n]);
            // Inside side: cross(p, q, x) > TOL, linear in t: f(t) = f0 + t (f1 − f0).
            let f0 = cross(p, q, a) - TOL;
            let f1 = cross(p, q, b) - TOL;
            if f0 <= 0.0 && f1 <= 0.0 {
                return false;
            }
            if f0 <= 0.0 {
                lo = lo.max(f0 / (f0 - f1));
            } else if f1 <= 0.0 {
                hi = hi.min(f0 / (f0 - f1));
            }
        }
        hi - lo > 1e-12
    }

    /// Length of the shortest path from `from` to `to` avoiding every polygon's interior, or
    /// infinity when there is none.
    pub fn shortest(circles: &[Circle], agent: f64, sides: usize, from: Point2, to: Point2) -> f64 {
        let polys: Vec<Polygon> = circles.iter().map(|c| polygon(c, agent, sides)).collect();
        // Nodes: start, goal, then every vertex not inside another polygon; remember each
        // vertex's polygon neighbours for the taut-path test.
        let mut nodes: Vec<Point2> = vec![from, to];
        let mut neighbours: Vec<Option<(Point2, Point2)>> = vec![None, None];
        for (pi, poly) in polys.iter().enumerate() {
            let n = poly.vertices.len();
            for k in 0..n {
                let v = poly.vertices[k];
                if polys.iter().enumerate().any(|(qi, q)| qi != pi && strictly_inside(q, v)) {
                    continue;
                }
                nodes.push(v);
                neighbours.push(Some((poly.vertices[(k + n - 1) % n], poly.vertices[(k + 1) % n])));
            }
        }
        // A shortest path only bends at a vertex it wraps around: both polygon neighbours of
        // the vertex lie on one side of the edge's line.
        let taut = |u: Point2, v: usize| match neighbours[v] {
            None => true,
            Some((prev, next)) => {
                let (a, b) = (cross(u, nodes[v], prev), cross(u, nodes[v], next));
                !(a > TOL && b < -TOL || a < -TOL && b > TOL)
            }
        };
        let visible = |i: usize, j: usize| -> bool {
            taut(nodes[i], j) && taut(nodes[j], i) && !polys.iter().any(|p| crosses_interior(p, nodes[i], nodes[j]))
        };
        // Dijkstra on the dense graph, edges tested on demand.
        let count = nodes.len();
        let mut best = vec![f64::INFINITY; count];
        let mut done = vec![false; count];
        best[0] = 0.0;
        loop {
            let mut u = usize::MAX;
            for i in 0..count {
                if !done[i] && best[i].is_finite() && (u == usize::MAX || best[i] < best[u]) {
                    u = i;
                }
            }
            if u == usize::MAX {
                return f64::INFINITY;
            }
            if u == 1 {
                return best[1];
            }
            done[u] = true;
            for v in 0..count {
                if !done[v] && v != u {
                    let candidate = best[u] + dist(nodes[u], nodes[v]);
                    if candidate < best[v] && visible(u, v) {
                        best[v] = candidate;
                    }
                }
            }
        }
    }
}

#[test]
fn exact_length_is_the_limit_of_polygon_paths() {
    let mut rng = SplitMix64::new(0x0_5ac1e);
    let (mut compared, mut bent) = (0, 0);
    for round in 0..12 {
        let kind = if round % 3 == 2 { Kind::Overlapping } else { Kind::Separate };
        let n = 5 + rng.below(7);
        let circles = forest(&mut rng, kind, n, 10.0);
        let agent = if round % 2 == 0 { 0.0 } else { 0.2 };
        let mut lazy = CirclePlanner::new(&circles, agent).unwrap();
        for _ in 0..2 {
            // Outside the coarsest polygon too (its corners stick out of the circle).
            let margin = 1.0 / (std::f64::consts::PI / 16.0).cos();
            let free = |rng: &mut SplitMix64| loop {
                let p = [rng.uniform(-1.0, 11.0), rng.uniform(-1.0, 11.0)];
                if circles.iter().all(|c| dist(c.center, p) > (c.radius + agent) * margin + 1e-3) {
                    return p;
                }
            };
            let (from, to) = (free(&mut rng), free(&mut rng));
            let exact = match lazy.find_path(from, to) {
                Ok(path) => path.length,
                Err(CirclePathError::NoPath) => f64::INFINITY,
                Err(e) => panic!("{e}"),
            };
            let mut previous = f64::INFINITY;
            let mut gaps = Vec::new();
            for sides in [16, 32, 64, 128] {
                let polygonal = polygon_oracle::shortest(&circles, agent, sides, from, to);
                // The polygons contain the circles: never shorter; finer polygons are contained
                // in coarser ones: never longer than the previous.
                assert!(polygonal >= exact - 1e-9, "round {round}: polygon {polygonal} < exact {exact}");
                assert!(polygonal <= previous + 1e-9, "round {round}: not monotone");
                previous = polygonal;
                gaps.push(polygonal - exact);
            }
            if exact.is_finite() {
                compared += 1;
                bent += usize::from(gaps[0] > 0.0);
                let last = gaps[gaps.len() - 1];
                // The excess shrinks like 1/sides² (tan x / x − 1 on the arcs).
                assert!(last <= 2e-3 * exact, "round {round}: finest polygon still {last} longer than {exact}");
                assert!(last <= gaps[1] / 4.0 + 1e-9, "round {round}: no convergence: {gaps:?}");
            } else {
                assert!(previous.is_infinite(), "round {round}: the polygons find a path the planner missed");
            }
        }
    }
    // Most paths must wrap around circles, or the comparison says little.
    assert!(compared >= 18 && bent >= 10, "compared {compared}, bent {bent}");
}

/// Pillars in rows: many circles share tangent lines (a path along a row touches every pillar),
/// the degenerate case for line of sight and for arcs of zero length.
#[test]
fn pillar_grids_and_degenerate_inputs() {
    let mut rng = SplitMix64::new(0x9111a5);
    for spacing in [2.5, 3.0, 4.0] {
        let mut circles = Vec::new();
        for row in 0..6 {
            for column in 0..6 {
                circles.push(Circle { center: [column as f64 * spacing, row as f64 * spacing], radius: 1.0 });
            }
        }
        // Duplicates and a circle inside another change nothing.
        circles.push(circles[7]);
        circles.push(Circle { center: circles[8].center, radius: 0.5 });
        for agent in [0.0, 0.2] {
            let mut lazy = CirclePlanner::new(&circles, agent).unwrap();
            let mut eager = EagerPlanner::new(&circles, agent).unwrap();
            let size = 5.0 * spacing;
            let mut queries = vec![
                ([-2.0, -1.0], [size + 2.0, -1.0]),
                ([-2.0, 0.0], [size + 2.0, 0.0]),
                ([-1.5, -1.5], [size + 1.5, size + 1.5]),
            ];
            for _ in 0..30 {
                queries
                    .push((free_point(&mut rng, &circles, agent, size), free_point(&mut rng, &circles, agent, size)));
            }
            for (from, to) in queries {
                let (a, b) = (lazy.find_path(from, to), eager.find_path(from, to));
                same_outcome(&a, &b, &format!("pillars {spacing} agent {agent} {from:?} -> {to:?}"));
                if let Ok(path) = a {
                    check_path(&path, from, to, &circles, agent);
                }
            }
        }
    }
    // Degenerate worlds answer without panicking.
    let mut empty = CirclePlanner::new(&[], 0.5).unwrap();
    assert_eq!(empty.find_path([0.0, 0.0], [3.0, 4.0]).unwrap().length, 5.0);
    let same = [Circle { center: [1.0, 1.0], radius: 1.0 }; 5];
    let mut planner = CirclePlanner::new(&same, 0.0).unwrap();
    assert_eq!(planner.obstacles().len(), 1);
    let path = planner.find_path([-1.0, 1.0], [3.0, 1.0]).unwrap();
    check_path(&path, [-1.0, 1.0], [3.0, 1.0], &same, 0.0);
    // Start on an obstacle's boundary: a zero-length tangent, then the arc.
    let path = planner.find_path([0.0, 1.0], [3.0, 1.0]).unwrap();
    check_path(&path, [0.0, 1.0], [3.0, 1.0], &same, 0.0);
    let points = [Circle { center: [0.0, 0.0], radius: 0.0 }];
    assert_eq!(CirclePlanner::new(&points, 0.0).unwrap().find_path([-1.0, 0.0], [1.0, 0.0]).unwrap().length, 2.0);
    let far = [Circle { center: [1e12, -1e12], radius: 3.0 }, Circle { center: [1e12 + 10.0, -1e12], radius: 3.0 }];
    let mut planner = CirclePlanner::new(&far, 0.0).unwrap();
    assert!(planner.find_path([1e12 - 5.0, -1e12], [1e12 + 15.0, -1e12]).is_ok());
}

// --- Touching circles: kiss points and gaps exactly 2r wide -------------------------------
//
// The contract: a surfing segment is blocked only when a circle comes strictly closer to it
// than its radius, and a hugging arc only where another circle overlaps it. Every input below
// is exact in binary (centres on 3-4-5 triangles, radii multiples of 0.5), so the kiss points
// and the expected lengths are exact too.

/// Both planners on one query: the same outcome; a found path is checked and returned.
fn both(circles: &[Circle], agent: f64, from: Point2, to: Point2) -> Result<CirclePath, CirclePathError> {
    let a = CirclePlanner::new(circles, agent).unwrap().find_path(from, to);
    let b = EagerPlanner::new(circles, agent).unwrap().find_path(from, to);
    same_outcome(&a, &b, &format!("{circles:?} agent {agent} {from:?} -> {to:?}"));
    if let Ok(path) = &a {
        check_path(path, from, to, circles, agent);
        check_path(b.as_ref().unwrap(), from, to, circles, agent);
    }
    a
}

/// Whether the path passes through `p` (within rounding of the path's own points).
fn passes_through(path: &CirclePath, p: Point2) -> bool {
    path.pieces.iter().any(|piece| match *piece {
        Piece::Segment { from, to } => segment_distance(p, from, to) < 1e-9,
        Piece::Arc { center, radius, start_angle, end_angle, .. } => {
            arc_distance(p, center, radius, start_angle, end_angle) < 1e-9
        }
    })
}

/// A gap exactly `2r` wide lets an agent of radius `r` through, straight along the common
/// tangent and bent through the kiss point (hugging one circle into it, the other out of it).
#[test]
fn gap_of_exactly_twice_the_agent_radius_is_passable() {
    // Grown by 0.5 the circles are 2.5 and 7.5 around centres 10 apart: they kiss at (1.5, 2).
    let circles = [Circle { center: [0.0, 0.0], radius: 2.0 }, Circle { center: [6.0, 8.0], radius: 7.0 }];
    let kiss = [1.5, 2.0];
    // Along the common tangent (direction (0.8, -0.6)) through the kiss point: 10 m exactly.
    let path = both(&circles, 0.5, [-2.5, 5.0], [5.5, -1.0]).expect("the 2r gap is open");
    assert_eq!(path.length, 10.0);
    assert!(passes_through(&path, kiss));
    // Bent: from below the small circle round its right side, through the kiss point and on
    // along the big one. The planners agree and the path goes through the kiss point.
    let path = both(&circles, 0.5, [3.5, -1.0], [-3.0, 4.0]).expect("the 2r gap is open");
    assert!(passes_through(&path, kiss), "{path:?}");
    // A hair less than 2r: closed, the path goes round.
    let closed =
        [Circle { center: [0.0, 0.0], radius: 2.0 }, Circle { center: [6.0, 8.0], radius: 7.0 + 1.0 / 1024.0 }];
    let round = both(&closed, 0.5, [-2.5, 5.0], [5.5, -1.0]).expect("round the outside");
    assert!(round.length > 12.0, "{}", round.length);
}

/// Two equal circles kissing at the origin: the S-shaped path hugs one into the kiss point and
/// the other out of it, with a closed-form length.
#[test]
fn s_curve_through_a_kiss_point() {
    let circles = [Circle { center: [-2.5, 0.0], radius: 2.5 }, Circle { center: [2.5, 0.0], radius: 2.5 }];
    let (from, to) = ([-2.5, -3.5], [2.5, 3.5]);
    let path = both(&circles, 0.0, from, to).expect("through the kiss point");
    // Tangent sqrt(3.5² − 2.5²) = sqrt(6), then the arc from the tangent point (π/2 − acos(5/7)
    // short of the kiss point) to the kiss point, twice.
    let expected = 2.0 * (6.0f64.sqrt() + 2.5 * (std::f64::consts::FRAC_PI_2 - (5.0f64 / 7.0).acos()));
    assert!((path.length - expected).abs() < 1e-12, "{} vs {expected}", path.length);
    assert!(passes_through(&path, [0.0, 0.0]));
    // With the agent radius making the same kiss from smaller circles.
    let small = [Circle { center: [-2.5, 0.0], radius: 2.0 }, Circle { center: [2.5, 0.0], radius: 2.0 }];
    let path = both(&small, 0.5, from, to).expect("through the kiss point");
    assert!((path.length - expected).abs() < 1e-12, "{} vs {expected}", path.length);
}

/// Three mutually touching circles (centres on a 3-4-5 triangle scaled by 5, radii 5, 10, 15)
/// close a curved pocket whose only exits are the three kiss points.
#[test]
fn pocket_of_mutually_touching_circles_opens_at_its_kiss_points() {
    let circles = [
        Circle { center: [0.0, 0.0], radius: 5.0 },
        Circle { center: [15.0, 0.0], radius: 10.0 },
        Circle { center: [0.0, 20.0], radius: 15.0 },
    ];
    let kisses = [[5.0, 0.0], [0.0, 5.0], [9.0, 8.0]];
    // Straight out along the common tangent at (9, 8): 10 m exactly.
    let path = both(&circles, 0.0, [5.0, 5.0], [13.0, 11.0]).expect("out through (9, 8)");
    assert_eq!(path.length, 10.0);
    // From inside the pocket to anywhere outside: through one of the kiss points.
    for to in [[20.0, 20.0], [-10.0, -10.0], [30.0, -5.0], [-20.0, 5.0], [6.0, -12.0]] {
        let path = both(&circles, 0.0, [6.0, 5.0], to).unwrap_or_else(|e| panic!("to {to:?}: {e}"));
        assert!(kisses.iter().any(|&k| passes_through(&path, k)), "to {to:?}: {path:?}");
    }
    // Inside the pocket: an ordinary path.
    assert!(both(&circles, 0.0, [6.0, 5.0], [5.0, 5.5]).is_ok());
    // Grown by any positive agent radius the circles overlap: the pocket is sealed.
    assert_eq!(both(&circles, 0.25, [6.0, 5.0], [20.0, 20.0]), Err(CirclePathError::NoPath));
}

/// A chain of touching circles across the plane: every kiss point is a door.
#[test]
fn chain_of_touching_circles_is_crossed_at_kiss_points() {
    // Centres 5 apart on the diagonal of 3-4-5 triangles, radii 2.5: each kisses the next.
    let circles: Vec<Circle> =
        (-4..=4).map(|k| Circle { center: [3.0 * k as f64, 4.0 * k as f64], radius: 2.5 }).collect();
    let kisses: Vec<Point2> = (-4..4).map(|k| [3.0 * k as f64 + 1.5, 4.0 * k as f64 + 2.0]).collect();
    // Across the chain, perpendicular to it through the kiss at (1.5, 2): 10 m exactly.
    let path = both(&circles, 0.0, [5.5, -1.0], [-2.5, 5.0]).expect("through the kiss point");
    assert_eq!(path.length, 10.0);
    // From one side to the other at skewed angles: through a kiss point, never round the ends.
    for (from, to) in [([6.0, -2.0], [-6.0, 3.0]), ([10.0, 4.0], [-9.0, 0.0]), ([1.0, -6.0], [-1.0, 7.0])] {
        let path = both(&circles, 0.0, from, to).unwrap_or_else(|e| panic!("{from:?} -> {to:?}: {e}"));
        assert!(kisses.iter().any(|&k| passes_through(&path, k)), "{from:?} -> {to:?}: {path:?}");
        assert!(path.length < 1.5 * dist(from, to), "{from:?} -> {to:?}: a detour of {}", path.length);
    }
}

/// A bitangent that grazes a third circle is not blocked by it; one that cuts it is.
#[test]
fn tangent_grazing_a_third_circle_is_open() {
    let circles: Vec<Circle> = [0.0, 4.0, 8.0].iter().map(|&x| Circle { center: [x, 0.0], radius: 1.0 }).collect();
    // Over the top: tangent from (-2, 0), arc of π/6, the line z = 1 grazing the middle circle
    // at (4, 1), arc of π/6, tangent to (10, 0).
    let path = both(&circles, 0.0, [-2.0, 0.0], [10.0, 0.0]).expect("over the top");
    let expected = 8.0 + 2.0 * 3.0f64.sqrt() + std::f64::consts::PI / 3.0;
    assert!((path.length - expected).abs() < 1e-12, "{} vs {expected}", path.length);
    // The straight line z = 1 from end to end touches all three.
    assert_eq!(both(&circles, 0.0, [-3.0, 1.0], [11.0, 1.0]).unwrap().length, 14.0);
    // The middle circle a little larger: the line is cut, the path bends over it.
    let mut bigger = circles.clone();
    bigger[1].radius = 1.0 + 1.0 / 1024.0;
    assert!(both(&bigger, 0.0, [-3.0, 1.0], [11.0, 1.0]).unwrap().length > 14.0);
}

/// Start and goal on a grown circle's boundary are allowed; strictly inside (by as little as
/// one step of the binary grid the inputs are on) they are refused.
#[test]
fn endpoints_on_the_boundary_are_allowed_and_inside_refused() {
    let circles = [Circle { center: [0.0, 0.0], radius: 2.0 }, Circle { center: [6.0, 8.0], radius: 7.0 }];
    // On the grown boundaries (radius 2.5 and 7.5).
    let path = both(&circles, 0.5, [1.5, -2.0], [6.0, 15.5]).expect("from boundary to boundary");
    assert!(path.length >= dist([1.5, -2.0], [6.0, 15.5]));
    // The kiss point itself is on both boundaries.
    assert!(both(&circles, 0.5, [1.5, 2.0], [10.0, -5.0]).is_ok());
    assert!(both(&circles, 0.5, [-5.0, 5.0], [1.5, 2.0]).is_ok());
    // A step of 2^-40 m inside.
    let inside = 1.5 - 1.0 / (1u64 << 40) as f64;
    assert_eq!(both(&circles, 0.5, [inside, -2.0], [6.0, 15.5]), Err(CirclePathError::StartBlocked { circle: 0 }));
    assert_eq!(
        both(&circles, 0.5, [-5.0, 5.0], [6.0, 15.5 - 1.0 / (1u64 << 40) as f64]),
        Err(CirclePathError::GoalBlocked { circle: 1 })
    );
}
