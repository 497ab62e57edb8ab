//! Meadow's ORCA against RVO2 (the C++ reference, plain `-O2` static library and whole-program
//! `-O2` build) and dodgy_2d on RVO2's Circle scenario, in one process, interleaved: every round
//! runs each implementation once from the same start, so load from other work on the machine
//! falls on all of them alike. Prints the load average, wall ms/step per implementation (median
//! over rounds) and the ratio to RVO2's whole-program build (median, min-max over rounds, each
//! round's ratio taken within that round).
//!
//! Run: `cargo run --release -p meadow-bench --features rvo2 --bin vs_rvo2 [-- --sizes 1000,5000
//! --steps 300 --rounds 3 --no-dodgy]`. Without the feature (or without `../shared/peers/rvo2`)
//! the RVO2 rows are left out.
//!
//! Checks on the way: Meadow gives the same bits on 1 and N threads, and RVO2's two builds give
//! the same bits as each other.
//!
//! `--fork-join` prints the fork/join cost of a parallel region shaped like a step's velocity
//! phase (what a step on N threads pays beyond its work divided by N): its time on N threads
//! minus its time on one thread / N, with and without work in the items and serial gaps between
//! regions.
//!
//! `--sleepy` adds a multi-thread row of Meadow with `Simulator::set_wake_workers(false)`: the
//! pool's idle workers may fall asleep during each step's serial start.
//!
//! `--scaling` prints what a second thread gives this machine on two plain loops: independent
//! arithmetic, and a chain of dependent loads from the core's caches like a step's neighbour
//! reads (throughput of two copies at once against one).
//!
//! `--meadow-only` runs Meadow alone, on one thread or on `--threads N`, for profiling
//! (`scripts/orca-profile.sh` prints the share of each phase of a step from it) and for comparing
//! the CPU time of thread counts (`/usr/bin/time -v`: user + system time against wall time).
//!
//! `--cpu` times the one-thread rows by the CPU time of the thread that runs them
//! (`CLOCK_THREAD_CPUTIME_ID`) instead of the wall clock, so that on a loaded machine the time
//! other processes take does not count (cache and memory contention still do); the
//! multi-thread rows, which no single thread's clock measures, are left out.

use std::borrow::Cow;
use std::time::Instant;

use meadow::orca::{AgentIndex, NeighborList, Simulator, Vec2};
use meadow_bench::rvo2::{self, Rvo2Build, Rvo2Circle, Rvo2Params};
use meadow_bench::{thread_cpu_seconds, Clock};
use rayon::prelude::*;

use meadow::orca::scenario::{
    circle, circle_arrived as all_arrived, pref_velocity, CIRCLE_GOAL_RADIUS_SQ as GOAL_RADIUS_SQ,
    CIRCLE_PARAMS as PARAMS, CIRCLE_TIME_STEP as TIME_STEP,
};

/// Milliseconds per step by `clock` over `steps` steps (fewer if everyone arrives first).
fn timed(clock: Clock, steps: usize, mut step: impl FnMut() -> bool) -> f64 {
    let origin = Instant::now();
    let start = clock.seconds(origin);
    let mut done = 0;
    while done < steps {
        done += 1;
        if step() {
            break;
        }
    }
    (clock.seconds(origin) - start) * 1e3 / done as f64
}

fn run_meadow(clock: Clock, n: usize, steps: usize, pool: &rayon::ThreadPool, wake: bool) -> (f64, Vec<Vec2>) {
    let (positions, goals) = circle(n);
    let mut sim = Simulator::new(TIME_STEP).expect("valid time step");
    sim.set_wake_workers(wake);
    for &p in &positions {
        sim.add_agent(p, Vec2::ZERO, PARAMS).expect("valid agent");
    }
    // A one-thread pool runs the whole step on the thread `install` runs this on, so its clock
    // is the step's CPU time.
    let ms = pool.install(|| {
        timed(clock, steps, || {
            for (i, &goal) in goals.iter().enumerate() {
                let v = pref_velocity(sim.positions()[i], goal);
                sim.set_pref_velocity(i, v).expect("agent exists");
            }
            sim.step();
            all_arrived(sim.positions(), &goals)
        })
    });
    (ms, sim.positions().to_vec())
}

fn run_rvo2(clock: Clock, build: Rvo2Build, n: usize, steps: usize) -> Option<(f64, Vec<[f32; 2]>)> {
    let (positions, goals) = circle(n);
    let xy: Vec<[f32; 2]> = positions.iter().map(|p| [p.x, p.y]).collect();
    let goal_xy: Vec<[f32; 2]> = goals.iter().map(|p| [p.x, p.y]).collect();
    let params = Rvo2Params {
        time_step: TIME_STEP,
        neighbor_dist: PARAMS.neighbor_dist,
        max_neighbors: PARAMS.max_neighbors,
        time_horizon: PARAMS.time_horizon,
        time_horizon_obst: PARAMS.time_horizon_obst,
        radius: PARAMS.radius,
        max_speed: PARAMS.max_speed,
    };
    let mut sim = Rvo2Circle::new(build, &xy, &goal_xy, params)?;
    let ms = timed(clock, steps, || sim.step(GOAL_RADIUS_SQ));
    Some((ms, sim.positions()))
}

/// dodgy_2d driven per agent, with Meadow's exact neighbour search feeding it the same neighbours.
fn run_dodgy(clock: Clock, n: usize, steps: usize, pool: &rayon::ThreadPool) -> f64 {
    let (mut positions, goals) = circle(n);
    let mut velocities = vec![Vec2::ZERO; n];
    let mut new_velocities = vec![Vec2::ZERO; n];
    let mut index = AgentIndex::new();
    let options = dodgy_2d::AvoidanceOptions {
        obstacle_margin: 0.0,
        time_horizon: PARAMS.time_horizon,
        obstacle_time_horizon: PARAMS.time_horizon_obst,
    };
    let to_glam = |v: Vec2| dodgy_2d::Vec2::new(v.x, v.y);
    let agent = |p: Vec2, v: Vec2| dodgy_2d::Agent {
        position: to_glam(p),
        velocity: to_glam(v),
        radius: PARAMS.radius,
        avoidance_responsibility: 1.0,
    };
    pool.install(|| {
        timed(clock, steps, || {
            index.rebuild(&positions, PARAMS.neighbor_dist / 3.0);
            let (index, pos, vel) = (&index, &positions, &velocities);
            new_velocities.par_iter_mut().with_min_len(64).enumerate().for_each_init(
                || (NeighborList::default(), Vec::new()),
                |(list, neighbours), (i, new_velocity)| {
                    index.nearest(i, PARAMS.neighbor_dist, PARAMS.max_neighbors, list);
                    neighbours.clear();
                    neighbours.extend(list.agents().iter().map(|&j| Cow::Owned(agent(pos[j], vel[j]))));
                    let v = agent(pos[i], vel[i]).compute_avoiding_velocity(
                        neighbours,
                        &[],
                        to_glam(pref_velocity(pos[i], goals[i])),
                        PARAMS.max_speed,
                        TIME_STEP,
                        &options,
                    );
                    *new_velocity = Vec2::new(v.x, v.y);
                },
            );
            for i in 0..n {
                velocities[i] = new_velocities[i];
                positions[i] = positions[i] + velocities[i] * TIME_STEP;
            }
            all_arrived(&positions, &goals)
        })
    })
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let m = values.len() / 2;
    if values.len() % 2 == 1 {
        values[m]
    } else {
        0.5 * (values[m - 1] + values[m])
    }
}

struct Options {
    sizes: Vec<usize>,
    steps: usize,
    rounds: usize,
    dodgy: bool,
    meadow_only: bool,
    clock: Clock,
    /// Threads of the `--meadow-only` run.
    threads: usize,
    /// Measure the cost of a parallel region instead (`--fork-join`).
    fork_join: bool,
    /// Also time Meadow on all threads with its workers left to sleep (`--sleepy`).
    sleepy: bool,
    /// Measure what a second thread gives on plain loops instead (`--scaling`).
    scaling: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut o = Options {
        sizes: vec![1000, 5000, 20000],
        steps: 300,
        rounds: 3,
        dodgy: true,
        meadow_only: false,
        clock: Clock::Wall,
        threads: 1,
        fork_join: false,
        sleepy: false,
        scaling: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--sizes" => {
                o.sizes = value("--sizes")?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("bad size {s:?}")))
                    .collect::<Result<_, _>>()?
            }
            "--steps" => o.steps = value("--steps")?.parse().map_err(|_| "bad --steps".to_string())?,
            "--rounds" => o.rounds = value("--rounds")?.parse().map_err(|_| "bad --rounds".to_string())?,
            "--no-dodgy" => o.dodgy = false,
            "--meadow-only" => o.meadow_only = true,
            "--cpu" => o.clock = Clock::ThreadCpu,
            "--threads" => o.threads = value("--threads")?.parse().map_err(|_| "bad --threads".to_string())?,
            "--fork-join" => o.fork_join = true,
            "--sleepy" => o.sleepy = true,
            "--scaling" => o.scaling = true,
            "--bench" => {}
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if o.steps == 0 || o.rounds == 0 || o.threads == 0 || o.sizes.contains(&0) {
        return Err("sizes, steps, rounds and threads must be positive".into());
    }
    if o.clock == Clock::ThreadCpu && (o.threads > 1 || thread_cpu_seconds().is_none()) {
        return Err("--cpu needs one thread and a readable thread CPU clock".into());
    }
    Ok(o)
}

/// Microseconds per parallel region shaped like the step's velocity phase over `n` agents (one
/// item per agent, tasks of at least 64) on `pool`, each item doing `work` rounds of a small
/// integer hash (about a nanosecond each); `gap_us` of serial spinning between regions stands
/// for the rest of a step (the workers may fall asleep in it and need waking).
fn fork_join_us(pool: &rayon::ThreadPool, n: usize, work: u32, gap_us: f64, regions: usize) -> f64 {
    let mut items = vec![0u32; n];
    let mut total = 0.0;
    pool.install(|| {
        for _ in 0..regions {
            let gap = Instant::now();
            while gap.elapsed().as_secs_f64() * 1e6 < gap_us {
                std::hint::spin_loop();
            }
            let start = Instant::now();
            items.par_iter_mut().with_min_len(64).for_each(|x| {
                let mut h = *x;
                for _ in 0..std::hint::black_box(work) {
                    h = h.wrapping_mul(0x9e37_79b9).rotate_left(5);
                }
                *x = h;
            });
            total += start.elapsed().as_secs_f64();
        }
    });
    std::hint::black_box(&items);
    total * 1e6 / regions as f64
}

/// Seconds for one copy of a loop: `Arithmetic` runs eight independent multiply-add chains,
/// `Chase` follows a random cycle through a 256 KiB table (each load waits for the one before,
/// from the core's caches), as the neighbour reads of a step do.
#[derive(Clone, Copy)]
enum Loop {
    Arithmetic,
    Chase,
}

fn run_loop(kind: Loop, table: &[u32]) -> f64 {
    let start = Instant::now();
    match kind {
        Loop::Arithmetic => {
            let mut a = [1.0f64, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7];
            for _ in 0..std::hint::black_box(50_000_000u64) {
                for x in a.iter_mut() {
                    *x = *x * 0.999_999_9 + 1e-9;
                }
            }
            std::hint::black_box(a);
        }
        Loop::Chase => {
            let mut i = 0usize;
            for _ in 0..std::hint::black_box(20_000_000u64) {
                i = table[i] as usize;
            }
            std::hint::black_box(i);
        }
    }
    start.elapsed().as_secs_f64()
}

/// A random cycle through `n` slots (Sattolo's shuffle), seeded.
fn random_cycle(n: usize) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut rng = meadow::query::SplitMix64::new(0x6d65_6164_6f77);
    for i in (1..n).rev() {
        order.swap(i, (rng.next_u64() % i as u64) as usize);
    }
    let mut next = vec![0u32; n];
    for k in 0..n {
        next[order[k] as usize] = order[(k + 1) % n];
    }
    next
}

/// Prints how much throughput two threads give over one on the two loops of [`Loop`].
fn print_scaling(rounds: usize) {
    let table = random_cycle(1 << 16);
    println!("Throughput of two copies on two threads against one copy on one (median of {rounds} runs):");
    println!("| loop | one copy s | two copies at once s | throughput ×");
    println!("|---|---|---|---|");
    for (name, kind) in
        [("arithmetic (8 multiply-add chains)", Loop::Arithmetic), ("pointer chase in 256 KiB", Loop::Chase)]
    {
        let mut one: Vec<f64> = (0..rounds).map(|_| run_loop(kind, &table)).collect();
        let mut two: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                std::thread::scope(|s| {
                    s.spawn(|| run_loop(kind, &table));
                    run_loop(kind, &table);
                });
                start.elapsed().as_secs_f64()
            })
            .collect();
        let (one, two) = (median(&mut one), median(&mut two));
        println!("| {name} | {one:.3} | {two:.3} | {:.2} |", 2.0 * one / two);
    }
    println!("load average: {}", load_average());
}

fn main() {
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("vs_rvo2: {e}");
            std::process::exit(2);
        }
    };
    if o.scaling {
        print_scaling(o.rounds);
        return;
    }
    if o.fork_join {
        let all = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(all).build().expect("thread pool");
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("thread pool");
        println!(
            "Fork/join cost of a parallel region shaped like the velocity phase: time on {all} threads minus \
             the time on one thread / {all} (median of {} runs of 1000 regions)",
            o.rounds
        );
        println!("| agents | work per item, hash rounds | serial gap between regions µs | 1 thread µs | {all} threads µs | overhead µs |");
        println!("|---|---|---|---|---|---|");
        for &n in &o.sizes {
            for work in [0, 300] {
                for gap in [0.0, 100.0] {
                    let mut t1: Vec<f64> = (0..o.rounds).map(|_| fork_join_us(&one, n, work, gap, 1000)).collect();
                    let mut tn: Vec<f64> = (0..o.rounds).map(|_| fork_join_us(&pool, n, work, gap, 1000)).collect();
                    let (t1, tn) = (median(&mut t1), median(&mut tn));
                    println!("| {n} | {work} | {gap} | {t1:.1} | {tn:.1} | {:.1} |", tn - t1 / all as f64);
                }
            }
        }
        println!("load average: {}", load_average());
        return;
    }
    if !rvo2::AVAILABLE && !o.meadow_only {
        eprintln!(
            "vs_rvo2: RVO2 is not compiled in (needs `--features rvo2` and ../shared/peers/rvo2/src): \
             its rows are left out"
        );
    }
    let all = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let pool = |t: usize| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("thread pool");
    let (one, many) = (pool(o.threads), pool(all));

    println!(
        "Circle, {} steps per run, {} interleaved rounds; {all} threads in the multi-thread rows",
        o.steps, o.rounds
    );
    let clock_name = if o.clock == Clock::Wall { "wall" } else { "thread CPU" };
    println!(
        "| impl | agents | threads | {clock_name} ms/step (median) | ratio to RVO2 whole program (median, min-max) |"
    );
    println!("|---|---|---|---|---|");
    for &n in &o.sizes {
        let load_before = load_average();
        // (name, threads, ms per round)
        let mut rows: Vec<(String, usize, Vec<f64>)> = Vec::new();
        let mut record =
            |name: &str, threads: usize, ms: f64| match rows.iter_mut().find(|(r, t, _)| r == name && *t == threads) {
                Some(row) => row.2.push(ms),
                None => rows.push((name.to_string(), threads, vec![ms])),
            };
        for round in 0..o.rounds {
            let clock = o.clock;
            let (ms, meadow_one) = run_meadow(clock, n, o.steps, &one, true);
            record("Meadow", o.threads, ms);
            if o.meadow_only {
                continue;
            }
            if let Some((ms, whole)) = run_rvo2(clock, Rvo2Build::WholeProgram, n, o.steps) {
                record(Rvo2Build::WholeProgram.name(), 1, ms);
                let (ms, plain) =
                    run_rvo2(clock, Rvo2Build::Plain, n, o.steps).expect("both builds are compiled together");
                record(Rvo2Build::Plain.name(), 1, ms);
                if round == 0 {
                    let same = whole
                        .iter()
                        .zip(&plain)
                        .all(|(a, b)| a[0].to_bits() == b[0].to_bits() && a[1].to_bits() == b[1].to_bits());
                    assert!(same, "RVO2's two builds disagree");
                }
            }
            if o.dodgy {
                record("dodgy_2d 0.5.5", 1, run_dodgy(clock, n, o.steps, &one));
            }
            if all > 1 && clock == Clock::Wall {
                let (ms, meadow_many) = run_meadow(clock, n, o.steps, &many, true);
                record("Meadow", all, ms);
                if o.sleepy {
                    let (ms, sleepy) = run_meadow(clock, n, o.steps, &many, false);
                    record("Meadow, workers not woken", all, ms);
                    let same = sleepy
                        .iter()
                        .zip(&meadow_many)
                        .all(|(a, b)| a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits());
                    assert!(same, "waking workers changed Meadow's result");
                }
                let same = meadow_one
                    .iter()
                    .zip(&meadow_many)
                    .all(|(a, b)| a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits());
                assert!(same, "thread count changed Meadow's result");
                if o.dodgy {
                    record("dodgy_2d 0.5.5", all, run_dodgy(clock, n, o.steps, &many));
                }
            }
        }
        let reference: Option<Vec<f64>> =
            rows.iter().find(|(name, _, _)| name == Rvo2Build::WholeProgram.name()).map(|(_, _, ms)| ms.clone());
        for (name, threads, ms) in &rows {
            let ratio = match &reference {
                Some(r) => {
                    let mut ratios: Vec<f64> = ms.iter().zip(r).map(|(a, b)| a / b).collect();
                    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                    format!("{:.3} ({lo:.3}-{hi:.3})", median(&mut ratios))
                }
                None => "-".into(),
            };
            println!("| {name} | {n} | {threads} | {:.3} | {ratio} |", median(&mut ms.clone()));
        }
        println!("load average before / after {n}: {load_before} / {}", load_average());
    }
}
