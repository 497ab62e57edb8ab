//! `meadow simulate`: runs an ORCA scenario (2D, or a navmesh crowd with `--navmesh`) and writes
//! its trajectories.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use meadow::crowd::{Crowd, CrowdScenario};
use meadow::orca::{Scenario, Vec2};
use meadow::query::QueryMesh;
use meadow::NavMesh;

/// Arguments of `meadow simulate`.
#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// Scenario JSON (time_step, agent_defaults, agents, obstacles, max_steps, goal_radius).
    pub scenario: PathBuf,
    /// Write the trajectories as CSV `step,agent,x,y` (step 0 = initial positions); with
    /// `--navmesh`, `step,agent,x,y,z`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Draw the agents' trails and the obstacles as SVG.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Worker threads for the velocity computation (default: all cores). Results are identical
    /// for any count.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run a navmesh crowd on this baked level: agents then have 3D `position`/`goal`
    /// `[x, y, z]`, and the navmesh boundary replaces the scenario's obstacles.
    #[arg(long)]
    pub navmesh: Option<PathBuf>,
}

/// Runs the scenario, writing the requested outputs and a short summary on stderr.
pub fn run(args: &SimulateArgs) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(&args.scenario).with_context(|| format!("reading {}", args.scenario.display()))?;
    let pool = thread_pool(args.threads)?;
    if let Some(navmesh) = &args.navmesh {
        return run_crowd(args, navmesh, &text, &pool);
    }
    let scenario: Scenario =
        serde_json::from_str(&text).with_context(|| format!("parsing scenario {}", args.scenario.display()))?;
    let mut run = scenario.start().context("setting up the scenario")?;

    let mut csv = match &args.out {
        Some(path) => {
            let mut w = AtomicOutput::create(path)?;
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
    finish_csv(write_error, csv)?;
    if let (Some(path), Some(trails)) = (&args.svg, &trails) {
        let radii: Vec<f32> = run.simulator.agent_params().iter().map(|p| p.radius).collect();
        let svg = draw_svg(&scenario.obstacles, "#777", trails, run.goals(), &radii);
        write_svg(path, &svg)?;
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

fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        anyhow::ensure!(threads > 0, "--threads must be at least 1");
        pool = pool.num_threads(threads);
    }
    pool.build().context("starting the thread pool")
}

/// Runs a navmesh crowd scenario (`--navmesh`).
fn run_crowd(
    args: &SimulateArgs,
    navmesh: &std::path::Path,
    text: &str,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<()> {
    let scenario: CrowdScenario = serde_json::from_str(text)
        .with_context(|| format!("parsing crowd scenario {} (3D positions and goals)", args.scenario.display()))?;
    let mesh = NavMesh::load(navmesh).with_context(|| format!("loading {}", navmesh.display()))?;
    let mesh = QueryMesh::new(mesh);
    let mut crowd = scenario.start(&mesh).context("setting up the crowd")?;

    let mut csv = match &args.out {
        Some(path) => {
            let mut w = AtomicOutput::create(path)?;
            writeln!(w, "step,agent,x,y,z")?;
            write_rows_3d(&mut w, 0, crowd.positions())?;
            Some(w)
        }
        None => None,
    };
    let mut trails: Option<Vec<Vec<Vec2>>> = args
        .svg
        .as_ref()
        .map(|_| crowd.positions().iter().map(|p| vec![Vec2::new(p[0] as f32, p[2] as f32)]).collect());

    let started = Instant::now();
    let mut write_error = None;
    let mut worst_overlap = 0.0f64;
    let arrived = pool.install(|| {
        scenario.run(&mut crowd, |step, crowd| {
            worst_overlap = worst_overlap.max(crowd.max_overlap_ratio());
            if let Some(w) = csv.as_mut() {
                if let Err(e) = write_rows_3d(w, step, crowd.positions()) {
                    write_error.get_or_insert(e);
                }
            }
            if let Some(trails) = trails.as_mut() {
                for (trail, p) in trails.iter_mut().zip(crowd.positions()) {
                    trail.push(Vec2::new(p[0] as f32, p[2] as f32));
                }
            }
        })
    });
    let elapsed = started.elapsed();
    finish_csv(write_error, csv)?;
    if let (Some(path), Some(trails)) = (&args.svg, &trails) {
        let svg = render_crowd_svg(&crowd, trails);
        write_svg(path, &svg)?;
    }
    let steps = crowd.steps();
    eprintln!(
        "{} agents on {}, {} steps, {}; max overlap {:.2}% of r1 + r2; {:.3} s ({:.4} ms/step, {} threads)",
        crowd.num_agents(),
        navmesh.display(),
        steps,
        if arrived { "all agents arrived" } else { "step limit reached before all arrived" },
        100.0 * worst_overlap,
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e3 / steps.max(1) as f64,
        pool.current_num_threads(),
    );
    Ok(())
}

/// Writes one row `step,agent,x,y,z` per agent (f64 `Display` round-trips exactly).
fn write_rows_3d(w: &mut impl Write, step: usize, positions: &[[f64; 3]]) -> std::io::Result<()> {
    for (agent, p) in positions.iter().enumerate() {
        writeln!(w, "{step},{agent},{},{},{}", p[0], p[1], p[2])?;
    }
    Ok(())
}

/// Draws a crowd's navmesh polygons, goals and trails from above (x right, z up).
fn render_crowd_svg(crowd: &Crowd<'_>, trails: &[Vec<Vec2>]) -> String {
    let mesh = crowd.mesh().mesh();
    let polygons: Vec<Vec<[f32; 2]>> = (0..mesh.polygon_count())
        .map(|i| mesh.polygon_points(i).map(|p| [p[0] as f32, p[1] as f32]).collect())
        .collect();
    let goals: Vec<Vec2> =
        (0..crowd.num_agents()).filter_map(|i| crowd.goal(i)).map(|g| Vec2::new(g[0] as f32, g[2] as f32)).collect();
    let radii: Vec<f32> = (0..crowd.num_agents()).map(|i| crowd.agent_params(i).map_or(0.0, |p| p.radius)).collect();
    draw_svg(&polygons, "#dde8d0", trails, &goals, &radii)
}

/// Writes one row per agent; f32 `Display` prints the shortest text that parses back exactly.
fn write_rows(w: &mut impl Write, step: usize, positions: &[Vec2]) -> std::io::Result<()> {
    for (agent, p) in positions.iter().enumerate() {
        writeln!(w, "{step},{agent},{},{}", p.x, p.y)?;
    }
    Ok(())
}

/// Draws polygons (obstacles, or navmesh polygons), goals and trails; the y axis points up.
fn draw_svg(polygons: &[Vec<[f32; 2]>], fill: &str, trails: &[Vec<Vec2>], goals: &[Vec2], radii: &[f32]) -> String {
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
    polygons.iter().flatten().for_each(|&p| grow(Vec2::from(p)));
    if !min.is_finite() {
        min = Vec2::ZERO;
        max = Vec2::new(1.0, 1.0);
    }
    let max_radius = radii.iter().copied().fold(0.0f32, f32::max);
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
    for polygon in polygons {
        let points: Vec<String> = polygon
            .iter()
            .map(|&p| {
                let (x, y) = tx(Vec2::from(p));
                format!("{x},{y}")
            })
            .collect();
        let _ = writeln!(s, r#"<polygon points="{}" fill="{fill}"/>"#, points.join(" "));
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
        if let (Some(&last), Some(radius)) = (trail.last(), radii.get(i)) {
            let (x, y) = tx(last);
            let _ = writeln!(
                s,
                r#"<circle cx="{x}" cy="{y}" r="{}" fill="hsl({hue:.0},70%,45%)" fill-opacity="0.5"/>"#,
                radius
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

/// An output file written under a temporary sibling name and renamed over the target only when
/// complete, so a failed or interrupted run never leaves a half-written file behind.
struct AtomicOutput {
    target: std::path::PathBuf,
    tmp: std::path::PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicOutput {
    fn create(target: &std::path::Path) -> anyhow::Result<Self> {
        let name = target.file_name().with_context(|| format!("{} has no file name", target.display()))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp-{}", std::process::id()));
        let tmp = target.with_file_name(tmp_name);
        let file = File::create(&tmp).with_context(|| format!("creating {}", target.display()))?;
        Ok(AtomicOutput { target: target.to_path_buf(), tmp, writer: Some(BufWriter::new(file)) })
    }

    /// Flushes, syncs and renames the file into place.
    fn commit(mut self) -> anyhow::Result<()> {
        let writer = self.writer.take().expect("commit runs once");
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&self.tmp, &self.target).with_context(|| format!("writing {}", self.target.display()))
    }
}

impl Write for AtomicOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.as_mut().expect("writer present until commit").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("writer present until commit").flush()
    }
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Ends a CSV output: reports a write error from the run, else moves the file into place.
fn finish_csv(write_error: Option<std::io::Error>, csv: Option<AtomicOutput>) -> anyhow::Result<()> {
    if let Some(e) = write_error {
        return Err(e).context("writing the CSV");
    }
    if let Some(w) = csv {
        w.commit().context("writing the CSV")?;
    }
    Ok(())
}

/// Writes an SVG drawing atomically.
fn write_svg(path: &std::path::Path, svg: &str) -> anyhow::Result<()> {
    meadow::asset::write_atomically(path, svg.as_bytes()).with_context(|| format!("writing {}", path.display()))
}
