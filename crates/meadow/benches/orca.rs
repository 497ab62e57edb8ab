//! ORCA step time on RVO2's Circle scenario at several crowd sizes, one thread and all threads,
//! against `dodgy_2d` driven per agent with the same neighbour search.
//!
//! Run: `cargo bench -p meadow --bench orca` (release profile). Environment:
//! `ORCA_BENCH_SIZES=250,1000` picks the crowd sizes, `ORCA_BENCH_STEPS=2000` the steps timed for
//! sizes above 250 (250 runs to completion), `ORCA_BENCH_DODGY=0` skips dodgy.
//! Prints wall time and process CPU time per step (the CPU figure is robust to other load on a
//! shared machine; for the multi-thread rows it is the sum over threads).

use std::borrow::Cow;
use std::time::Instant;

use meadow::orca::{AgentIndex, NeighborList, Simulator, Vec2};
use rayon::prelude::*;

use meadow::orca::scenario::{
    circle, circle_arrived as all_arrived, pref_velocity, CIRCLE_PARAMS as PARAMS, CIRCLE_TIME_STEP as TIME_STEP,
};
/// Process CPU time (user + system) in seconds, from /proc (0 where unavailable).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the command name (which is in parentheses): utime is the 12th, stime the 13th.
    let Some(rest) = stat.rsplit(')').next() else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

struct Outcome {
    steps: usize,
    arrived: bool,
    wall_ms: f64,
    cpu_ms: f64,
    final_positions: Vec<Vec2>,
}

fn timed(steps_cap: usize, mut step: impl FnMut() -> bool) -> (usize, bool, f64, f64) {
    let (wall, cpu) = (Instant::now(), cpu_seconds());
    let mut steps = 0;
    let mut arrived = false;
    while steps < steps_cap && !arrived {
        arrived = step();
        steps += 1;
    }
    let wall_ms = wall.elapsed().as_secs_f64() * 1e3 / steps as f64;
    let cpu_ms = (cpu_seconds() - cpu) * 1e3 / steps as f64;
    (steps, arrived, wall_ms, cpu_ms)
}

fn run_meadow(n: usize, steps_cap: usize, pool: &rayon::ThreadPool) -> Outcome {
    let (positions, goals) = circle(n);
    let mut sim = Simulator::new(TIME_STEP).expect("valid time step");
    for &p in &positions {
        sim.add_agent(p, Vec2::ZERO, PARAMS).expect("valid agent");
    }
    let (steps, arrived, wall_ms, cpu_ms) = pool.install(|| {
        timed(steps_cap, || {
            for (i, &goal) in goals.iter().enumerate() {
                let v = pref_velocity(sim.positions()[i], goal);
                sim.set_pref_velocity(i, v).expect("agent exists");
            }
            sim.step();
            all_arrived(sim.positions(), &goals)
        })
    });
    Outcome { steps, arrived, wall_ms, cpu_ms, final_positions: sim.positions().to_vec() }
}

fn run_dodgy(n: usize, steps_cap: usize, pool: &rayon::ThreadPool) -> Outcome {
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
    let (steps, arrived, wall_ms, cpu_ms) = pool.install(|| {
        timed(steps_cap, || {
            index.rebuild(&positions, PARAMS.neighbor_dist / 3.0);
            let (index, pos, vel) = (&index, &positions, &velocities);
            new_velocities.par_iter_mut().with_min_len(64).enumerate().for_each_init(
                || (NeighborList::default(), Vec::new()),
                |(list, neighbours), (i, new_velocity)| {
                    let (positions, velocities) = (pos, vel);
                    index.nearest(i, PARAMS.neighbor_dist, PARAMS.max_neighbors, list);
                    neighbours.clear();
                    neighbours.extend(list.agents().iter().map(|&j| {
                        Cow::Owned(dodgy_2d::Agent {
                            position: to_glam(positions[j]),
                            velocity: to_glam(velocities[j]),
                            radius: PARAMS.radius,
                            avoidance_responsibility: 1.0,
                        })
                    }));
                    let me = dodgy_2d::Agent {
                        position: to_glam(positions[i]),
                        velocity: to_glam(velocities[i]),
                        radius: PARAMS.radius,
                        avoidance_responsibility: 1.0,
                    };
                    let v = me.compute_avoiding_velocity(
                        neighbours,
                        &[],
                        to_glam(pref_velocity(positions[i], goals[i])),
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
    });
    Outcome { steps, arrived, wall_ms, cpu_ms, final_positions: positions }
}

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(name) {
        Ok(v) => v.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
        Err(_) => default.to_vec(),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then just smoke-test.
    let benching = std::env::args().any(|a| a == "--bench");
    let sizes = if benching { env_list("ORCA_BENCH_SIZES", &[250, 1000, 5000, 20000]) } else { vec![250] };
    let steps_default = if benching { 2000 } else { 20 };
    let steps = env_list("ORCA_BENCH_STEPS", &[steps_default])[0];
    let with_dodgy = std::env::var("ORCA_BENCH_DODGY").map(|v| v != "0").unwrap_or(true);
    let all = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let pools: Vec<(usize, rayon::ThreadPool)> = [1, all]
        .iter()
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|t| (t, rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool")))
        .collect();

    println!("| impl | agents | threads | steps | finished | wall ms/step | CPU ms/step |");
    println!("|---|---|---|---|---|---|---|");
    for &n in &sizes {
        // 250 agents run to completion (steps to finish); larger rings cannot finish (README).
        let cap = if n == 250 && benching { 20000 } else { steps };
        let mut reference: Option<Vec<Vec2>> = None;
        for (threads, pool) in &pools {
            let o = run_meadow(n, cap, pool);
            println!("| meadow | {n} | {threads} | {} | {} | {:.4} | {:.4} |", o.steps, o.arrived, o.wall_ms, o.cpu_ms);
            // The answer check: every thread count gives the same bits.
            match &reference {
                None => reference = Some(o.final_positions),
                Some(r) => assert!(
                    r.iter()
                        .zip(&o.final_positions)
                        .all(|(a, b)| a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits()),
                    "thread count changed the result"
                ),
            }
        }
        if with_dodgy {
            for (threads, pool) in &pools {
                let o = run_dodgy(n, cap, pool);
                assert!(o.final_positions.iter().all(|p| p.is_finite()));
                println!(
                    "| dodgy_2d 0.5.5 | {n} | {threads} | {} | {} | {:.4} | {:.4} |",
                    o.steps, o.arrived, o.wall_ms, o.cpu_ms
                );
            }
        }
    }
}
