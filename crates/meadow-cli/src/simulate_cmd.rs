//! `meadow simulate`: runs an ORCA scenario and writes its trajectories.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use meadow::orca::{Scenario, Simulator, Vec2};

/// Arguments of `meadow simulate`.
#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// Scenario JSON (time_step, agent_defaults, agents, obstacles, max_steps, goal_radius).
    pub scenario: PathBuf,
    /// Write the trajectories as CSV `step,agent,x,y` (step 0 = initial positions).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Draw the agents' trails and the obstacles as SVG.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Worker threads for the velocity computation (default: all cores). Results are identical
    /// for any count.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Runs the scenario, writing the requested outputs and a short summary on stderr.
pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(&args.scenario).with_context(|| format!("reading {}", args.scenario.display()))?;
    let scenario: Scenario =
        serde_json::from_str(&text).with_context(|| format!("parsing scenario {}", args.scenario.display()))?;
    let mut run = scenario.start().context("setting up the scenario")?;

    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = args.threads {
        anyhow::ensure!(threads > 0, "--threads must be at least 1");
        pool = pool.num_threads(threads);
    }
    let pool = pool.build().context("starting the thread pool")?;

    let mut csv = match &args.out {
        Some(path) => {
            let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
            let mut w = BufWriter::new(file);
            writeln!(w, "step,agent,x,y")?;
            write_rows(&mut w, 0, run.simulator.positions())?;
            Some(w)
        }
        None => None,
    };
    let mut trails: Option<Vec<Vec<Vec2>>> =
        args.svg.as_ref().map(|_| run.simulator.positions().iter().map(|&p| vec![p]).collect());

    let started = Instant::now();
    let mut write_error = None;
    let arrived = pool.install(|| {
        run.run(|step, sim| {
            if let Some(w) = csv.as_mut() {
                if let Err(e) = write_rows(w, step, sim.positions()) {
                    write_error.get_or_insert(e);
                }
            }
            if let Some(trails) = trails.as_mut() {
                for (trail, &p) in trails.iter_mut().zip(sim.positions()) {
                    trail.push(p);
                }
            }
        })
    });
    let elapsed = started.elapsed();
    if let Some(e) = write_error {
        return Err(e).context("writing the CSV");
    }
    if let Some(mut w) = csv {
        w.flush().context("writing the CSV")?;
    }
    if let (Some(path), Some(trails)) = (&args.svg, &trails) {
        let svg = render_svg(&scenario, &run.simulator, trails, run.goals());
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
    }

    let steps = run.steps();
    eprintln!(
        "{} agents, {} steps, {}; {:.3} s ({:.4} ms/step, {} threads)",
        run.simulator.num_agents(),
        steps,
        if arrived { "all agents arrived" } else { "step limit reached before all arrived" },
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3 / steps.max(1) as f64,
        pool.current_num_threads(),
    );
    Ok(())
}

/// Writes one row per agent; f32 `Display` prints the shortest text that parses back exactly.
fn write_rows(w: &mut impl Write, step: usize, positions: &[Vec2]) -> std::io::Result<()> {
    for (agent, p) in positions.iter().enumerate() {
        writeln!(w, "{step},{agent},{},{}", p.x, p.y)?;
    }
    Ok(())
}

/// Draws obstacles, goals and trails; the y axis points up as in the scenario.
fn render_svg(scenario: &Scenario, sim: &Simulator, trails: &[Vec<Vec2>], goals: &[Vec2]) -> String {
    let mut min = Vec2::new(f32::INFINITY, f32::INFINITY);
    let mut max = Vec2::new(f32::NEG_INFINITY, f32::NEG_INFINITY);
    let mut grow = |p: Vec2| {
        if p.is_finite() {
            min = Vec2::new(min.x.min(p.x), min.y.min(p.y));
            max = Vec2::new(max.x.max(p.x), max.y.max(p.y));
        }
    };
    trails.iter().flatten().for_each(|&p| grow(p));
    goals.iter().for_each(|&p| grow(p));
    scenario.obstacles.iter().flatten().for_each(|&p| grow(Vec2::from(p)));
    if !min.is_finite() {
        min = Vec2::ZERO;
        max = Vec2::new(1.0, 1.0);
    }
    let max_radius = sim.agent_params().iter().map(|p| p.radius).fold(0.0f32, f32::max);
    let margin = 2.0 * max_radius + 1.0;
    let (x0, y0) = (min.x - margin, min.y - margin);
    let (w, h) = (max.x - min.x + 2.0 * margin, max.y - min.y + 2.0 * margin);
    let stroke = (w.max(h) / 1000.0).max(1e-3);
    // Flip y so that +y is up.
    let tx = |p: Vec2| (p.x - x0, y0 + h - p.y);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="1000" height="{}">"#,
        (1000.0 * h / w).round()
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    for polygon in &scenario.obstacles {
        let points: Vec<String> = polygon
            .iter()
            .map(|&p| {
                let (x, y) = tx(Vec2::from(p));
                format!("{x},{y}")
            })
            .collect();
        let _ = writeln!(s, r##"<polygon points="{}" fill="#777"/>"##, points.join(" "));
    }
    let n = trails.len().max(1);
    for (i, trail) in trails.iter().enumerate() {
        let hue = 360.0 * i as f32 / n as f32;
        // Keep the file small: at most about 400 points per trail.
        let every = trail.len().div_ceil(400).max(1);
        let mut points: Vec<String> = trail
            .iter()
            .step_by(every)
            .chain(trail.last())
            .map(|&p| {
                let (x, y) = tx(p);
                format!("{x:.3},{y:.3}")
            })
            .collect();
        points.dedup();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="hsl({hue:.0},70%,45%)" stroke-width="{stroke}" stroke-opacity="0.7"/>"#,
            points.join(" ")
        );
        if let (Some(&last), Some(params)) = (trail.last(), sim.agent_params().get(i)) {
            let (x, y) = tx(last);
            let _ = writeln!(
                s,
                r#"<circle cx="{x}" cy="{y}" r="{}" fill="hsl({hue:.0},70%,45%)" fill-opacity="0.5"/>"#,
                params.radius
            );
        }
    }
    s.push_str("</svg>\n");
    s
}
