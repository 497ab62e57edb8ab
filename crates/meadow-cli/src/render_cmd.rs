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
    #[arg(long, value_parser = parse_endpoints, allow_hyphen_values = true)]
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
        .map(|&(from, to)| crate::path_cmd::render_path(&mesh, from, to, meadow::PathStyle::StringPulled))
        .collect::<Result<Vec<_>>>()?;
    let svg = render_svg(&mesh, &paths);
    meadow::asset::write_atomically(&args.output, svg.as_bytes())
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    Ok(())
}

/// Colour of off-mesh links (arcs with arrowheads).
const LINK_COLOUR: &str = "#1f77b4";
/// Colour of paths.
const PATH_COLOUR: &str = "#d62728";
/// How far an off-mesh link's arc bows out to the side, as a fraction of its length in XZ.
const LINK_BOW: f64 = 0.2;

/// An SVG path `d` for an arc from `a` to `b` (XZ): a quadratic curve bowed to the left of
/// `a → b`, so the two directions of a pair of one-way links do not overlap. A link whose ends
/// lie one above the other (a ladder) gets a small loop of `fallback` radius.
fn arc_d(a: [f64; 3], b: [f64; 3], fallback: f64) -> String {
    let (dx, dz) = (b[0] - a[0], b[2] - a[2]);
    let len = (dx * dx + dz * dz).sqrt();
    if len < fallback {
        let r = fallback;
        return format!(
            "M {} {} C {} {} {} {} {} {}",
            a[0],
            a[2],
            a[0] - r,
            a[2] - 2.0 * r,
            b[0] + r,
            b[2] - 2.0 * r,
            b[0],
            b[2]
        );
    }
    let (mx, mz) = ((a[0] + b[0]) / 2.0, (a[2] + b[2]) / 2.0);
    // Left of the direction in the drawing (x right, z down): (dz, -dx) scaled.
    let (cx, cz) = (mx + dz * LINK_BOW * 2.0, mz - dx * LINK_BOW * 2.0);
    format!("M {} {} Q {cx} {cz} {} {}", a[0], a[2], b[0], b[2])
}

/// Draws polygons filled by area, portals thin, walls thick, off-mesh links as arcs with
/// arrowheads (at both ends of two-way links), and optional paths on top (their link segments
/// as dashed arcs).
pub fn render_svg(mesh: &NavMesh, paths: &[meadow::Path]) -> String {
    let (mut lo, mut hi) = mesh.bounds().unwrap_or(([0.0; 3], [1.0; 3]));
    // Link arcs bow out beyond their end points (by LINK_BOW of their length at the apex).
    for l in mesh.links() {
        let (dx, dz) = (l.end[0] - l.start[0], l.end[2] - l.start[2]);
        let apex = [(l.start[0] + l.end[0]) / 2.0 + dz * LINK_BOW, (l.start[2] + l.end[2]) / 2.0 - dx * LINK_BOW];
        lo[0] = lo[0].min(apex[0]);
        lo[2] = lo[2].min(apex[1]);
        hi[0] = hi[0].max(apex[0]);
        hi[2] = hi[2].max(apex[1]);
    }
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
    if !mesh.links().is_empty() {
        let _ = writeln!(
            s,
            r#"<defs><marker id="link-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{LINK_COLOUR}"/></marker></defs>"#
        );
        let _ = writeln!(s, r#"<g fill="none" stroke="{LINK_COLOUR}" stroke-width="{}">"#, line * 3.0);
        for (i, l) in mesh.links().iter().enumerate() {
            let start_marker = if l.bidirectional { r#" marker-start="url(#link-arrow)""# } else { "" };
            let area = mesh.areas().get(l.area as usize).map_or("?", |a| a.name.as_str());
            let _ = writeln!(
                s,
                r#"<path class="link" d="{}" marker-end="url(#link-arrow)"{start_marker}><title>link {i}, id {}, {}, cost {}, area {area}</title></path>"#,
                arc_d(l.start, l.end, size / 100.0),
                l.id,
                if l.bidirectional { "two-way" } else { "one-way" },
                l.cost
            );
        }
        let _ = writeln!(s, "</g>");
    }
    for path in paths {
        // On-mesh runs as polylines, each off-mesh link segment as a dashed arc.
        let mut run: Vec<String> = Vec::new();
        let flush = |run: &mut Vec<String>, s: &mut String| {
            if run.len() >= 2 {
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{PATH_COLOUR}" stroke-width="{}" stroke-linejoin="round"/>"#,
                    run.join(" "),
                    line * 5.0
                );
            }
            run.clear();
        };
        for (i, p) in path.points.iter().enumerate() {
            run.push(format!("{},{}", p[0], p[2]));
            if let (Some(_), Some(next)) = (path.link_at(i), path.points.get(i + 1)) {
                flush(&mut run, &mut s);
                let _ = writeln!(
                    s,
                    r#"<path d="{}" fill="none" stroke="{PATH_COLOUR}" stroke-width="{}" stroke-dasharray="{} {}"/>"#,
                    arc_d(*p, *next, size / 100.0),
                    line * 5.0,
                    line * 15.0,
                    line * 10.0
                );
            }
        }
        flush(&mut run, &mut s);
    }
    let _ = writeln!(s, "</svg>");
    s
}
