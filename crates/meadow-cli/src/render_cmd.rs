//! `meadow render`: a top-down SVG of a navmesh (x to the right, z down, as seen from +Y).

use anyhow::{Context, Result};
use meadow::{EdgeLink, NavMesh};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `meadow render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The navmesh asset.
    pub navmesh: PathBuf,
    /// Where to write the SVG.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Draw the (string-pulled) path between two points: `x,y,z:x,y,z`. Repeatable.
    #[arg(long, value_parser = parse_endpoints)]
    pub path: Vec<([f64; 3], [f64; 3])>,
}

/// Parses `x,y,z:x,y,z`.
fn parse_endpoints(text: &str) -> Result<([f64; 3], [f64; 3]), String> {
    let point = |t: &str| -> Result<[f64; 3], String> {
        let v: Vec<f64> = t
            .split(',')
            .map(|c| c.trim().parse::<f64>().map_err(|e| format!("{t:?}: {e}")))
            .collect::<Result<_, _>>()?;
        match v.as_slice() {
            [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok([*x, *y, *z]),
            _ => Err(format!("{t:?} is not three finite numbers x,y,z")),
        }
    };
    let (a, b) = text.split_once(':').ok_or_else(|| format!("{text:?} is not of the form x,y,z:x,y,z"))?;
    Ok((point(a)?, point(b)?))
}

/// Fill colours by area index.
const PALETTE: [&str; 8] = ["#9fd19a", "#e8d27a", "#8fb8e0", "#e3a0a0", "#c3a6e0", "#a0e0d8", "#e0b98f", "#c8c8c8"];

/// Runs `meadow render`.
pub fn run(args: &RenderArgs) -> Result<()> {
    let mesh = NavMesh::load(&args.navmesh).with_context(|| format!("cannot load {}", args.navmesh.display()))?;
    let paths = args
        .path
        .iter()
        .map(|&(from, to)| crate::path_cmd::path_points(&mesh, from, to, meadow::PathStyle::StringPulled))
        .collect::<Result<Vec<_>>>()?;
    let svg = render_svg(&mesh, &paths);
    meadow::asset::write_atomically(&args.output, svg.as_bytes())
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    Ok(())
}

/// Draws polygons filled by area, portals thin, walls thick, and optional polylines on top.
pub fn render_svg(mesh: &NavMesh, paths: &[Vec<[f64; 3]>]) -> String {
    let (lo, hi) = mesh.bounds().unwrap_or(([0.0; 3], [1.0; 3]));
    let size = (hi[0] - lo[0]).max(hi[2] - lo[2]).max(1e-3);
    let margin = size * 0.03;
    let (x0, z0) = (lo[0] - margin, lo[2] - margin);
    let (w, h) = (hi[0] - lo[0] + 2.0 * margin, hi[2] - lo[2] + 2.0 * margin);
    let px = 1200.0 / w.max(h);
    let line = size / 1500.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0} {z0} {w} {h}" width="{:.0}" height="{:.0}">"#,
        w * px,
        h * px
    );
    let _ = writeln!(s, r#"<rect x="{x0}" y="{z0}" width="{w}" height="{h}" fill="white"/>"#);
    let v = mesh.vertices();
    let _ = writeln!(s, r##"<g stroke="#5a7d57" stroke-width="{}" stroke-linejoin="round">"##, line);
    for (i, p) in mesh.polygons().enumerate() {
        let pts: Vec<String> =
            p.vertices.iter().map(|&k| format!("{},{}", v[k as usize][0], v[k as usize][2])).collect();
        let _ = writeln!(
            s,
            r#"<polygon points="{}" fill="{}"><title>polygon {i}, area {}</title></polygon>"#,
            pts.join(" "),
            PALETTE[p.area as usize % PALETTE.len()],
            mesh.areas().get(p.area as usize).map_or("?", |a| a.name.as_str())
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, r#"<g stroke="black" stroke-width="{}" stroke-linecap="round">"#, line * 4.0);
    for p in mesh.polygons() {
        for k in 0..p.vertices.len() {
            if p.links[k] == EdgeLink::Wall {
                let a = v[p.vertices[k] as usize];
                let b = v[p.vertices[(k + 1) % p.vertices.len()] as usize];
                let _ = writeln!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, a[0], a[2], b[0], b[2]);
            }
        }
    }
    let _ = writeln!(s, "</g>");
    for path in paths {
        let pts: Vec<String> = path.iter().map(|p| format!("{},{}", p[0], p[2])).collect();
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#d62728" stroke-width="{}" stroke-linejoin="round"/>"##,
            pts.join(" "),
            line * 5.0
        );
    }
    let _ = writeln!(s, "</svg>");
    s
}
