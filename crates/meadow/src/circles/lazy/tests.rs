//! Unit tests of the lazy planner: swept rounds against the eager planner, closed rings.

use super::*;
use crate::circles::EagerPlanner;
use meadow_testkit::rng::{Draw, Xorshift64};

/// A start walled in by a closed ring, with many circles outside: the sweeps stop at the
/// ring in every direction, and the search must still end (no path out; paths inside).
#[test]
fn swept_search_ends_inside_a_closed_ring() {
    let mut rng = Xorshift64::new(99);
    let mut circles: Vec<Circle> = (0..48)
        .map(|k| {
            let a = k as f64 * TAU / 48.0;
            Circle { center: [12.0 * a.cos(), 12.0 * a.sin()], radius: 1.2 }
        })
        .collect();
    while circles.len() < 110 {
        let c = Circle { center: [rng.uniform(-40.0, 40.0), rng.uniform(-40.0, 40.0)], radius: 0.8 };
        if distance(c.center, [0.0, 0.0]) > 16.0 {
            circles.push(c);
        }
    }
    let mut eager = EagerPlanner::new(&circles, 0.1).unwrap();
    for sweep_from in [0, SWEEP_FROM] {
        let mut lazy = CirclePlanner::new(&circles, 0.1).unwrap();
        lazy.sweep_from = sweep_from;
        assert_eq!(lazy.find_path([0.0, 0.0], [30.0, 1.0]), Err(CirclePathError::NoPath));
        assert_eq!(lazy.find_path([30.0, 1.0], [0.0, 0.0]), Err(CirclePathError::NoPath));
        let inside = lazy.find_path([-5.0, 1.0], [6.0, -2.0]).unwrap().length;
        assert!((inside - eager.find_path([-5.0, 1.0], [6.0, -2.0]).unwrap().length).abs() < 1e-9);
        let outside = lazy.find_path([-30.0, 0.0], [30.0, 2.0]).unwrap().length;
        assert!((outside - eager.find_path([-30.0, 0.0], [30.0, 2.0]).unwrap().length).abs() < 1e-9);
    }
}

/// Every round swept (nearest first, blocking bins, early stop), in sparse and dense,
/// separate and overlapping forests: the same lengths as the eager reference, and the sweep
/// must actually stop early and skip candidates.
#[test]
fn swept_rounds_match_eager() {
    let mut rng = Xorshift64::new(0x2545f4914f6cdd1d);
    let (mut stopped, mut skipped, mut checked) = (0, 0, 0);
    for round in 0..60 {
        let n = 20 + (round % 6) * 12;
        let side = 6.0 + (n as f64).sqrt() * if round % 2 == 0 { 2.0 } else { 3.5 };
        let overlapping = round % 3 == 0;
        let mut circles: Vec<Circle> = Vec::new();
        while circles.len() < n {
            let c = Circle { center: [rng.uniform(0.0, side), rng.uniform(0.0, side)], radius: rng.uniform(0.3, 1.5) };
            let clear = circles.iter().all(|o| distance(o.center, c.center) > o.radius + c.radius + 0.05);
            if overlapping || clear {
                circles.push(c);
            }
        }
        let agent = rng.uniform(0.0, 0.3);
        let mut swept = CirclePlanner::new(&circles, agent).unwrap();
        swept.sweep_from = 0;
        let mut eager = EagerPlanner::new(&circles, agent).unwrap();
        for _ in 0..8 {
            let mut free = || loop {
                let p = [rng.uniform(-1.0, side + 1.0), rng.uniform(-1.0, side + 1.0)];
                if swept.world.check_point(p).unwrap().is_none() {
                    return p;
                }
            };
            let (from, to) = (free(), free());
            let lazy = swept.find_path(from, to).map(|p| p.length);
            let reference = eager.find_path(from, to).map(|p| p.length);
            match (&lazy, &reference) {
                (Ok(a), Ok(b)) => assert!((a - b).abs() <= 1e-9 * (1.0 + b), "round {round}: {a} vs {b}"),
                _ => assert_eq!(lazy, reference, "round {round}"),
            }
            checked += 1;
        }
        stopped += swept.sweeps_stopped;
        skipped += swept.sweep_skipped;
    }
    assert_eq!(checked, 480);
    assert!(stopped > 100 && skipped > 1000, "sweeps stopped early {stopped} times, skipped {skipped} circles");
}
