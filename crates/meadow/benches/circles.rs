//! Query time of the round-obstacle planners on random forests of 100, 1,000 and 10,000
//! circles (non-overlapping and overlapping): lazy A* with a warm edge cache (one planner
//! answering many queries), lazy from a cold start (a new planner per query, its setup — the
//! obstacle grid and covered arcs — included in the time), and the eager reference (full graph,
//! then Dijkstra). Every timed query checks its length against the answer computed before
//! timing. Edge counts are printed as a table before the timings; the table's lazy times are
//! wall-clock with this thread's CPU time in brackets (what a busy machine does not inflate;
//! taken over repeats lasting at least 0.3 s).
//!
//! Run: `cargo bench -p meadow --bench circles` (`CIRCLES_SIZES=100,1000` to run only some sizes;
//! `CIRCLES_EAGER_LIMIT=10000` to build the eager graph at 10,000 circles too: about two minutes
//! and 4·10⁸ candidate tangents).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use meadow::circles::{Circle, CirclePlanner, EagerPlanner};
use meadow::geom::Point2;
use meadow_testkit::rng::{Draw, SplitMix64};
use std::hint::black_box;
use std::time::{Duration, Instant};

const AGENT: f64 = 0.25;
const QUERIES: usize = 40;
/// Eager builds above this size take too long to benchmark (`CIRCLES_EAGER_LIMIT` overrides).
const EAGER_LIMIT: usize = 1000;

/// `n` circles of radius 0.5..1.5 in a square sized so that they cover about a fifth of it.
fn forest(n: usize, overlapping: bool, seed: u64) -> (Vec<Circle>, f64) {
    let mut rng = SplitMix64::new(seed);
    let side = (n as f64 * 16.0).sqrt();
    let mut circles: Vec<Circle> = Vec::with_capacity(n);
    // A coarse bucket grid keeps rejection sampling linear.
    let cell = 3.2;
    let cols = (side / cell).ceil() as usize + 1;
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); cols * cols];
    while circles.len() < n {
        let c = Circle { center: [rng.uniform(0.0, side), rng.uniform(0.0, side)], radius: rng.uniform(0.5, 1.5) };
        let (bx, by) = ((c.center[0] / cell) as usize, (c.center[1] / cell) as usize);
        if !overlapping {
            let mut clear = true;
            for y in by.saturating_sub(1)..=(by + 1).min(cols - 1) {
                for x in bx.saturating_sub(1)..=(bx + 1).min(cols - 1) {
                    for &k in &buckets[y * cols + x] {
                        let o: &Circle = &circles[k];
                        let d = (o.center[0] - c.center[0]).hypot(o.center[1] - c.center[1]);
                        clear &= d > o.radius + c.radius + 0.1;
                    }
                }
            }
            if !clear {
                continue;
            }
        }
        buckets[by * cols + bx].push(circles.len());
        circles.push(c);
    }
    (circles, side)
}

fn queries(circles: &[Circle], side: f64, seed: u64) -> Vec<(Point2, Point2)> {
    let mut rng = SplitMix64::new(seed);
    let mut free = || loop {
        let p = [rng.uniform(0.0, side), rng.uniform(0.0, side)];
        if circles.iter().all(|c| (c.center[0] - p[0]).hypot(c.center[1] - p[1]) > c.radius + AGENT) {
            return p;
        }
    };
    (0..QUERIES).map(|_| (free(), free())).collect()
}

/// CPU time of this thread in milliseconds (Linux), for figures that other processes on a busy
/// machine do not inflate; `NaN` elsewhere.
fn thread_cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse::<f64>().ok()))
        .map_or(f64::NAN, |ns| ns * 1e-6)
}

/// Thread CPU milliseconds per query of `pass` (which answers `queries` queries), repeated for
/// at least 0.3 s: the CPU clock only advances in scheduler ticks.
fn cpu_per_query(queries: usize, mut pass: impl FnMut()) -> f64 {
    let (start, cpu) = (Instant::now(), thread_cpu_ms());
    let mut passes = 0;
    while passes == 0 || start.elapsed() < Duration::from_millis(300) {
        pass();
        passes += 1;
    }
    (thread_cpu_ms() - cpu) / (passes * queries) as f64
}

fn lengths(planner: &mut CirclePlanner, qs: &[(Point2, Point2)]) -> Vec<f64> {
    qs.iter().map(|&(a, b)| planner.find_path(a, b).map_or(f64::INFINITY, |p| p.length)).collect()
}

fn check(length: f64, expected: f64) {
    assert!(
        (length - expected).abs() <= 1e-9 * (1.0 + expected) || (length.is_infinite() && expected.is_infinite()),
        "length {length} != expected {expected}"
    );
}

fn bench_circles(c: &mut Criterion) {
    let mut table = Vec::new();
    // `CIRCLES_SIZES=1000` (comma-separated) restricts the run, e.g. while tuning.
    let sizes: Vec<usize> = std::env::var("CIRCLES_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1000, 10_000]);
    for &n in &sizes {
        for overlapping in [false, true] {
            let kind = if overlapping { "overlapping" } else { "separate" };
            let (circles, side) = forest(n, overlapping, 42 + n as u64);
            let qs = queries(&circles, side, 7 + n as u64);
            // Cold: a new planner per query, built inside the timed loop.
            let mut cold_edges = 0;
            let mut cold_hugs = 0;
            let start = Instant::now();
            let mut expected = Vec::new();
            for &(a, b) in &qs {
                let mut planner = CirclePlanner::new(&circles, AGENT).unwrap();
                expected.push(planner.find_path(a, b).map_or(f64::INFINITY, |p| p.length));
                cold_edges += planner.last_stats().surfing_edges;
                cold_hugs += planner.last_stats().hugging_edges;
            }
            let cold_ms = start.elapsed().as_secs_f64() * 1e3 / qs.len() as f64;
            let cold_cpu_ms = cpu_per_query(qs.len(), || {
                for &(a, b) in &qs {
                    let mut planner = CirclePlanner::new(&circles, AGENT).unwrap();
                    black_box(planner.find_path(a, b).map_or(f64::INFINITY, |p| p.length));
                }
            });
            // Setup alone (part of the cold time).
            let start = Instant::now();
            for _ in &qs {
                black_box(CirclePlanner::new(black_box(&circles), AGENT).unwrap());
            }
            let setup_ms = start.elapsed().as_secs_f64() * 1e3 / qs.len() as f64;
            // Warm: one pass to fill the cache, then measure.
            let mut planner = CirclePlanner::new(&circles, AGENT).unwrap();
            let warm_check = lengths(&mut planner, &qs);
            let start = Instant::now();
            let mut warm_edges = 0;
            let mut warm_hugs = 0;
            for (&(a, b), &e) in qs.iter().zip(&expected) {
                check(planner.find_path(a, b).map_or(f64::INFINITY, |p| p.length), e);
                warm_edges += planner.last_stats().surfing_edges;
                warm_hugs += planner.last_stats().hugging_edges;
            }
            let warm_ms = start.elapsed().as_secs_f64() * 1e3 / qs.len() as f64;
            let warm_cpu_ms = cpu_per_query(qs.len(), || {
                for &(a, b) in &qs {
                    black_box(planner.find_path(a, b).map_or(f64::INFINITY, |p| p.length));
                }
            });
            for (&l, &e) in warm_check.iter().zip(&expected) {
                check(l, e);
            }

            let mut eager_row = None;
            let mut eager = None;
            let eager_limit =
                std::env::var("CIRCLES_EAGER_LIMIT").ok().and_then(|s| s.parse().ok()).unwrap_or(EAGER_LIMIT);
            if n <= eager_limit {
                let start = Instant::now();
                let mut planner = EagerPlanner::new(&circles, AGENT).unwrap();
                let build_ms = start.elapsed().as_secs_f64() * 1e3;
                let build = planner.build_stats();
                let start = Instant::now();
                let mut query_edges = 0;
                let mut query_hugs = 0;
                for (&(a, b), &e) in qs.iter().zip(&expected) {
                    check(planner.find_path(a, b).map_or(f64::INFINITY, |p| p.length), e);
                    query_edges += planner.last_stats().surfing_edges;
                    query_hugs += planner.last_stats().hugging_edges;
                }
                let query_ms = start.elapsed().as_secs_f64() * 1e3 / qs.len() as f64;
                eager_row = Some((
                    build_ms,
                    query_ms,
                    build.surfing_edges,
                    build.visible_surfing_edges,
                    build.hugging_edges,
                    query_edges / qs.len() as u64,
                    query_hugs / qs.len() as u64,
                ));
                eager = Some(planner);
            }
            let q = qs.len() as u64;
            table.push(format!(
                "| {n:>6} | {kind:<11} | {cold_ms:>8.3} ({cold_cpu_ms:.3}) | {setup_ms:>8.3} | {warm_ms:>8.3} ({warm_cpu_ms:.3}) | {:>7} / {:>7} | {:>6} / {:>6} | {} |",
                cold_edges / q,
                cold_hugs / q,
                warm_edges / q,
                warm_hugs / q,
                match eager_row {
                    Some((b, qms, cand, vis, hug, qe, qh)) => format!(
                        "{b:>9.1} | {qms:>8.3} | {cand} cand, {vis} visible, {hug} hugging; per query +{qe} surf, {qh} hug"
                    ),
                    None => "not built by default (about 2 min at 10,000; CIRCLES_EAGER_LIMIT=10000)".to_string(),
                }
            ));

            let mut group = c.benchmark_group(format!("circles/{kind}/{n}"));
            group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
            group.bench_function(BenchmarkId::new("lazy_warm", n), |bench| {
                let mut k = 0;
                bench.iter(|| {
                    let (a, b) = qs[k % qs.len()];
                    let length = planner.find_path(black_box(a), black_box(b)).map_or(f64::INFINITY, |p| p.length);
                    check(length, expected[k % qs.len()]);
                    k += 1;
                })
            });
            group.bench_function(BenchmarkId::new("lazy_cold", n), |bench| {
                let mut k = 0;
                bench.iter(|| {
                    let (a, b) = qs[k % qs.len()];
                    let mut planner = CirclePlanner::new(black_box(&circles), AGENT).unwrap();
                    let length = planner.find_path(black_box(a), black_box(b)).map_or(f64::INFINITY, |p| p.length);
                    check(length, expected[k % qs.len()]);
                    k += 1;
                })
            });
            if let Some(eager) = eager.as_mut() {
                group.bench_function(BenchmarkId::new("eager_query", n), |bench| {
                    let mut k = 0;
                    bench.iter(|| {
                        let (a, b) = qs[k % qs.len()];
                        let length = eager.find_path(black_box(a), black_box(b)).map_or(f64::INFINITY, |p| p.length);
                        check(length, expected[k % qs.len()]);
                        k += 1;
                    })
                });
            }
            group.finish();
        }
    }
    println!("\n| circles | world | lazy cold ms/query (thread CPU ms) | of which setup ms | lazy warm ms/query (CPU) | lazy cold surf / hug edges per query | lazy warm surf / hug | eager build ms | eager ms/query | eager edges |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in table {
        println!("{row}");
    }
}

criterion_group!(benches, bench_circles);
criterion_main!(benches);
