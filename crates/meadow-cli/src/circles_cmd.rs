//! `meadow circles`: shortest paths among round obstacles, one query or a batch.

use anyhow::{bail, Context, Result};
use meadow::circles::{Circle, CirclePath, CirclePlanner, Piece};
use meadow::geom::Point2;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

/// Arguments of `meadow circles`.
#[derive(clap::Args, Debug, Clone)]
// Negative numbers are values (`--radius -1` is refused by validation, in one line).
#[command(allow_negative_numbers = true)]
pub struct CirclesArgs {
    /// Scene file: `{"circles": [{"center": [x, y], "radius": r}, ...]}`.
    pub scene: PathBuf,
    /// Start point `x,y`.
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true, requires = "to")]
    pub from: Option<Point2>,
    /// Goal point `x,y`.
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true, requires = "from")]
    pub to: Option<Point2>,
    /// Agent radius in metres (obstacles are grown by it); the default for batch queries too.
    #[arg(long, default_value_t = 0.0)]
    pub radius: f64,
    /// Batch file: `[{"from": [x, y], "to": [x, y], "radius": r}, ...]` (`radius` optional).
    #[arg(long, conflicts_with_all = ["from", "to"])]
    pub queries: Option<PathBuf>,
    /// Write a picture of the obstacles and the path(s) to this SVG file.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Print one JSON object per query (one per line) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Deserialize)]
struct Scene {
    circles: Vec<Circle>,
}

#[derive(Deserialize)]
struct Query {
    from: Point2,
    to: Point2,
    radius: Option<f64>,
}

/// The stable `--json` answer of one query.
#[derive(Serialize)]
struct Answer<'a> {
    found: bool,
    from: Point2,
    to: Point2,
    radius: f64,
    /// Exact length in metres (absent when not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<f64>,
    pieces: &'a [Piece],
    /// Points along the path (arcs cut into chords of at most 0.25 m).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    polyline: Vec<Point2>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

fn parse_point(text: &str) -> Result<Point2, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [x, y] = parts.as_slice() else {
        return Err(format!("expected `x,y`, got `{text}`"));
    };
    let parse = |s: &str| s.parse::<f64>().map_err(|e| format!("bad coordinate `{s}`: {e}"));
    let point = [parse(x)?, parse(y)?];
    if !(point[0].is_finite() && point[1].is_finite()) {
        return Err(format!("coordinates must be finite: `{text}`"));
    }
    Ok(point)
}

/// Planners per agent radius (a batch may mix radii); keyed by the radius' bits for a stable
/// order.
struct Planners<'a> {
    circles: &'a [Circle],
    by_radius: BTreeMap<u64, CirclePlanner>,
}

impl Planners<'_> {
    fn get(&mut self, radius: f64) -> Result<&mut CirclePlanner> {
        if !self.by_radius.contains_key(&radius.to_bits()) {
            let planner = CirclePlanner::new(self.circles, radius)?;
            self.by_radius.insert(radius.to_bits(), planner);
        }
        self.by_radius.get_mut(&radius.to_bits()).context("planner cache")
    }
}

/// Runs `meadow circles`.
pub fn run(args: &CirclesArgs) -> Result<()> {
    let text =
        std::fs::read_to_string(&args.scene).with_context(|| format!("cannot read scene {}", args.scene.display()))?;
    let scene: Scene =
        serde_json::from_str(&text).with_context(|| format!("scene {} is not valid", args.scene.display()))?;
    // Validate the scene once, up front, so that a bad circle is one clear error.
    CirclePlanner::new(&scene.circles, 0.0).context("invalid scene")?;
    let queries: Vec<Query> = match (&args.queries, args.from, args.to) {
        (Some(path), _, _) => {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("cannot read queries {}", path.display()))?;
            serde_json::from_str(&text).with_context(|| format!("queries file {} is not valid", path.display()))?
        }
        (None, Some(from), Some(to)) => vec![Query { from, to, radius: None }],
        _ => bail!("give --from x,y --to x,y, or --queries Q.json"),
    };
    let mut planners = Planners { circles: &scene.circles, by_radius: BTreeMap::new() };
    let mut results = Vec::with_capacity(queries.len());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for query in &queries {
        let radius = query.radius.unwrap_or(args.radius);
        // A bad radius in one batch query is that query's failure, not the batch's.
        let result = match planners.get(radius) {
            Ok(planner) => planner.find_path(query.from, query.to).map_err(|e| e.to_string()),
            Err(error) => Err(format!("{error:#}")),
        };
        if args.json {
            let answer = match &result {
                Ok(path) => Answer {
                    found: true,
                    from: query.from,
                    to: query.to,
                    radius,
                    length: Some(path.length),
                    pieces: &path.pieces,
                    polyline: path.polyline(0.25),
                    reason: None,
                },
                Err(error) => Answer {
                    found: false,
                    from: query.from,
                    to: query.to,
                    radius,
                    length: None,
                    pieces: &[],
                    polyline: Vec::new(),
                    reason: Some(error.clone()),
                },
            };
            serde_json::to_writer(&mut out, &answer)?;
            writeln!(out)?;
        } else if result.is_ok() || args.queries.is_some() {
            writeln!(out, "{}", describe(query, radius, &result))?;
        }
        results.push((query, radius, result));
    }
    if let Some(svg) = &args.svg {
        meadow::asset::write_atomically(svg, render_svg(&scene.circles, &results).as_bytes())
            .with_context(|| format!("cannot write {}", svg.display()))?;
    }
    // As `meadow path`: a single query that finds no path is a failure (exit 1, the reason on
    // stderr); a batch reports each failure in its own line and succeeds.
    if args.queries.is_none() {
        if let Some((query, radius, Err(error))) = results.first() {
            bail!(
                "no path from ({}, {}) to ({}, {}) with radius {radius}: {error}",
                query.from[0],
                query.from[1],
                query.to[0],
                query.to[1]
            );
        }
    }
    Ok(())
}

fn describe(query: &Query, radius: f64, result: &Result<CirclePath, String>) -> String {
    let (f, t) = (query.from, query.to);
    match result {
        Ok(path) => {
            let arcs = path.pieces.iter().filter(|p| matches!(p, Piece::Arc { .. })).count();
            format!(
                "({}, {}) -> ({}, {}) radius {radius}: length {:.6} m, {} pieces ({} arcs)",
                f[0],
                f[1],
                t[0],
                t[1],
                path.length,
                path.pieces.len(),
                arcs
            )
        }
        Err(error) => format!("({}, {}) -> ({}, {}) radius {radius}: not found: {error}", f[0], f[1], t[0], t[1]),
    }
}

/// An SVG of the obstacles (filled), their inflation by each query's radius (dashed), and each
/// path found (segments and true arcs).
fn render_svg(circles: &[Circle], results: &[(&Query, f64, Result<CirclePath, String>)]) -> String {
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    let max_radius = results.iter().map(|r| r.1).fold(0.0, f64::max);
    let max_radius = if max_radius.is_finite() { max_radius } else { 0.0 };
    let mut grow = |p: Point2, r: f64| {
        for axis in 0..2 {
            lo[axis] = lo[axis].min(p[axis] - r);
            hi[axis] = hi[axis].max(p[axis] + r);
        }
    };
    for c in circles {
        grow(c.center, c.radius + max_radius);
    }
    for (query, _, _) in results {
        grow(query.from, 0.0);
        grow(query.to, 0.0);
    }
    if !lo[0].is_finite() {
        lo = [0.0, 0.0];
        hi = [1.0, 1.0];
    }
    let margin = 0.05 * (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1.0);
    let (w, h) = (hi[0] - lo[0] + 2.0 * margin, hi[1] - lo[1] + 2.0 * margin);
    let stroke = w.max(h) / 400.0;
    let mut svg = String::new();
    // y is flipped so the picture shows (x, z) as a math plane (counter-clockwise looks so).
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{} {} {w} {h}" width="800" height="{}">"#,
        lo[0] - margin,
        -hi[1] - margin,
        (800.0 * h / w).round()
    );
    let _ = writeln!(svg, r#"<g transform="scale(1,-1)">"#);
    let _ = writeln!(
        svg,
        r##"<rect x="{}" y="{}" width="{w}" height="{h}" fill="#fbfbf5"/>"##,
        lo[0] - margin,
        lo[1] - margin
    );
    for c in circles {
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{}" r="{}" fill="#6a8f4e" fill-opacity="0.8"/>"##,
            c.center[0], c.center[1], c.radius
        );
    }
    let mut radii: Vec<f64> = results.iter().map(|r| r.1).filter(|&r| r > 0.0).collect();
    radii.sort_by(f64::total_cmp);
    radii.dedup();
    for r in radii {
        for c in circles {
            let _ = writeln!(
                svg,
                r##"<circle cx="{}" cy="{}" r="{}" fill="none" stroke="#6a8f4e" stroke-width="{}" stroke-dasharray="{} {}"/>"##,
                c.center[0],
                c.center[1],
                c.radius + r,
                stroke * 0.5,
                stroke * 2.0,
                stroke * 2.0
            );
        }
    }
    for (query, _, result) in results {
        if let Ok(path) = result {
            let mut d = String::new();
            if let Some(first) = path.pieces.first() {
                let p = first.start();
                let _ = write!(d, "M {} {}", p[0], p[1]);
            }
            for piece in &path.pieces {
                match *piece {
                    Piece::Segment { to, .. } => {
                        let _ = write!(d, " L {} {}", to[0], to[1]);
                    }
                    Piece::Arc { radius, start_angle, end_angle, .. } => {
                        let end = piece.end();
                        let large = u8::from((end_angle - start_angle).abs() > std::f64::consts::PI);
                        // In the unflipped (math) frame, sweep-flag 1 is counter-clockwise.
                        let sweep = u8::from(end_angle > start_angle);
                        let _ = write!(d, " A {radius} {radius} 0 {large} {sweep} {} {}", end[0], end[1]);
                    }
                }
            }
            let _ = writeln!(
                svg,
                r##"<path d="{d}" fill="none" stroke="#c0392b" stroke-width="{}" stroke-linejoin="round"/>"##,
                stroke * 1.5
            );
        }
        for (p, colour) in [(query.from, "#2c7fb8"), (query.to, "#e6a100")] {
            let _ = writeln!(svg, r#"<circle cx="{}" cy="{}" r="{}" fill="{colour}"/>"#, p[0], p[1], stroke * 3.0);
        }
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_parse() {
        assert_eq!(parse_point("1.5,-2"), Ok([1.5, -2.0]));
        assert_eq!(parse_point(" -3 , 4 "), Ok([-3.0, 4.0]));
        assert!(parse_point("1").is_err());
        assert!(parse_point("1,2,3").is_err());
        assert!(parse_point("x,2").is_err());
        assert!(parse_point("inf,2").is_err());
    }

    #[test]
    fn batch_run_writes_an_svg_with_true_arcs() {
        let dir = std::env::temp_dir().join(format!("meadow-circles-cmd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let scene = dir.join("scene.json");
        let queries = dir.join("queries.json");
        let svg = dir.join("out.svg");
        std::fs::write(&scene, r#"{"circles": [{"center": [5, 0], "radius": 1.5}, {"center": [9, 1], "radius": 1}]}"#)
            .unwrap();
        std::fs::write(
            &queries,
            r#"[{"from": [0, 0], "to": [14, 0]}, {"from": [5, 0], "to": [14, 0], "radius": 0.5}]"#,
        )
        .unwrap();
        let args = CirclesArgs {
            scene: scene.clone(),
            from: None,
            to: None,
            radius: 0.25,
            queries: Some(queries),
            svg: Some(svg.clone()),
            json: true,
        };
        run(&args).unwrap();
        let picture = std::fs::read_to_string(&svg).unwrap();
        assert!(picture.contains(" A "), "the path wraps a circle: an arc command");
        // A missing scene is an error, not a panic.
        let missing = CirclesArgs { scene: dir.join("missing.json"), ..args };
        assert!(run(&missing).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
