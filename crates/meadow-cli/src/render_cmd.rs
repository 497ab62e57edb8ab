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
    /// Draw only this layer (its polygons, walls, islands and the links that touch it), for one
    /// SVG per floor.
    #[arg(long, value_name = "N")]
    pub layer: Option<u16>,
    /// Temporary obstacles to carve out before drawing: a JSON file `[{"polygon": [[x, z], ...],
    /// "y": [y_min, y_max]}, ...]` (outlines convex and counter-clockwise).
    #[arg(long, value_name = "OBST.json")]
    pub obstacles: Option<PathBuf>,
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

/// Fill colours by a layer's rank among the mesh's layers (modulo the length; layer numbers
/// can be sparse): hues far apart, so that floors drawn over one another are told apart.
const LAYER_PALETTE: [&str; 8] =
    ["#9fd19a", "#8fb8e0", "#e8c27a", "#c3a6e0", "#a0e0d8", "#e3a0a0", "#d8d890", "#c8b098"];
/// Hatch colours of non-default areas by area index (modulo the length; area 0 has none).
const AREA_HATCH: [&str; 6] = ["none", "#8a6d00", "#005f8a", "#8a0050", "#3d7a00", "#5a2d8a"];
/// Outline colours of islands (connected parts of the mesh) by island index.
const ISLAND_PALETTE: [&str; 6] = ["#f58231", "#911eb4", "#42d4f4", "#f032e6", "#469990", "#9a6324"];
/// Width of an island's outline, in multiples of the thin line: wide enough to show as a band
/// on both sides of the black wall drawn over it (4 thin lines).
const ISLAND_OUTLINE_WIDTH: f64 = 12.0;
/// Most rows the legend lists of layer-and-area fills; the rest are counted in one line.
const LEGEND_MAX_ROWS: usize = 12;

/// Runs `meadow render`.
pub fn run(args: &RenderArgs) -> Result<()> {
    let mut mesh = NavMesh::load(&args.navmesh).with_context(|| format!("cannot load {}", args.navmesh.display()))?;
    if let Some(file) = &args.obstacles {
        mesh = crate::obstacles::carve(mesh, file)?;
    }
    if let Some(layer) = args.layer {
        if !mesh.polygons().any(|p| p.layer == layer) {
            let layers: std::collections::BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
            let (first, last) = (layers.first().copied().unwrap_or(0), layers.last().copied().unwrap_or(0));
            anyhow::bail!("the navmesh has no layer {layer} (its layers: {} in {first}..={last})", layers.len());
        }
    }
    let paths = args
        .path
        .iter()
        .map(|&(from, to)| crate::path_cmd::render_path(&mesh, from, to, meadow::PathStyle::StringPulled))
        .collect::<Result<Vec<_>>>()?;
    let svg = render_svg(&mesh, &paths, args.layer);
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

/// Per polygon: its island, the connected part of the mesh it belongs to over portals
/// (off-mesh links do not join islands: they are drawn apart), numbered 0, 1, … in order of
/// each island's first polygon.
fn islands(mesh: &NavMesh) -> (Vec<u32>, usize) {
    const NONE: u32 = u32::MAX;
    let mut island = vec![NONE; mesh.polygon_count()];
    let mut count = 0u32;
    let mut stack = Vec::new();
    for seed in 0..island.len() {
        if island[seed] != NONE {
            continue;
        }
        island[seed] = count;
        stack.push(seed);
        while let Some(p) = stack.pop() {
            for link in mesh.polygon(p).links {
                if let EdgeLink::Polygon(q) = *link {
                    if island[q as usize] == NONE {
                        island[q as usize] = count;
                        stack.push(q as usize);
                    }
                }
            }
        }
        count += 1;
    }
    (island, count as usize)
}

/// The scale bar's length: the largest 1, 2 or 5 × 10^k metres not above `most` (`most > 0`).
fn scale_length(most: f64) -> f64 {
    let decade = 10f64.powf(most.log10().floor());
    [5.0, 2.0, 1.0].into_iter().map(|m| m * decade).find(|&l| l <= most).unwrap_or(decade)
}

/// Draws polygons filled by layer (non-default areas hatched), portals thin, walls thick over
/// a coloured outline per island, off-mesh links as arcs with arrowheads (at both ends of
/// two-way links), optional paths with their corners marked (link segments as dashed arcs),
/// a legend and a scale bar. With `layer`, only that layer's polygons and islands and the
/// links with an end on it. Every polygon is one `<polygon class="poly" id="poly-I">`, every
/// link one `<path class="link" id="link-I">`.
pub fn render_svg(mesh: &NavMesh, paths: &[meadow::Path], layer: Option<u16>) -> String {
    let shown = |p: u32| layer.is_none_or(|l| mesh.polygon(p as usize).layer == l);
    let links: Vec<(usize, &meadow::asset::OffMeshLink)> =
        mesh.links().iter().enumerate().filter(|(_, l)| shown(l.start_polygon) || shown(l.end_polygon)).collect();
    let v = mesh.vertices();
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut grow = |x: f64, z: f64| {
        lo[0] = lo[0].min(x);
        lo[2] = lo[2].min(z);
        hi[0] = hi[0].max(x);
        hi[2] = hi[2].max(z);
    };
    for (i, p) in mesh.polygons().enumerate() {
        if shown(i as u32) {
            for &k in p.vertices {
                grow(v[k as usize][0], v[k as usize][2]);
            }
        }
    }
    // Link arcs bow out beyond their end points (by LINK_BOW of their length at the apex).
    for (_, l) in &links {
        let (dx, dz) = (l.end[0] - l.start[0], l.end[2] - l.start[2]);
        grow(l.start[0], l.start[2]);
        grow(l.end[0], l.end[2]);
        grow((l.start[0] + l.end[0]) / 2.0 + dz * LINK_BOW, (l.start[2] + l.end[2]) / 2.0 - dx * LINK_BOW);
    }
    // Paths are drawn whole, also where they leave the layer shown.
    for p in paths.iter().flat_map(|p| &p.points) {
        grow(p[0], p[2]);
    }
    if lo[0] > hi[0] {
        (lo, hi) = ([0.0; 3], [1.0; 3]);
    }
    let size = (hi[0] - lo[0]).max(hi[2] - lo[2]).max(1e-3);
    let margin = size * 0.03;
    let (x0, z0) = (lo[0] - margin, lo[2] - margin);
    let (w, map_h) = (hi[0] - lo[0] + 2.0 * margin, hi[2] - lo[2] + 2.0 * margin);
    let line = size / 1500.0;

    // Legend rows: the layer-and-area fills drawn, islands, links, paths, then the scale bar.
    let mut fills: Vec<(u16, u16)> =
        mesh.polygons().enumerate().filter(|(i, _)| shown(*i as u32)).map(|(_, p)| (p.layer, p.area)).collect();
    fills.sort_unstable();
    fills.dedup();
    let (island, _) = islands(mesh);
    let mut drawn_islands: Vec<u32> =
        (0..mesh.polygon_count()).filter(|&p| shown(p as u32)).map(|p| island[p]).collect();
    drawn_islands.sort_unstable();
    drawn_islands.dedup();
    let row = size / 25.0;
    let font = row * 0.6;
    let fill_rows = fills.len().min(LEGEND_MAX_ROWS) + usize::from(fills.len() > LEGEND_MAX_ROWS);
    let rows = fill_rows + 1 + usize::from(!links.is_empty()) + usize::from(!paths.is_empty()) + 1;
    let h = map_h + rows as f64 * row + margin;
    let px = 1200.0 / w.max(h);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0} {z0} {w} {h}" width="{:.0}" height="{:.0}">"#,
        w * px,
        h * px
    );
    let _ = writeln!(s, r#"<rect x="{x0}" y="{z0}" width="{w}" height="{h}" fill="white"/>"#);
    // One hatch pattern per non-default area drawn (diagonal lines in user space).
    let mut hatched: Vec<u16> = fills.iter().map(|&(_, a)| a).filter(|&a| a != 0).collect();
    hatched.sort_unstable();
    hatched.dedup();
    if !hatched.is_empty() {
        let _ = writeln!(s, "<defs>");
        let step = size / 120.0;
        for a in &hatched {
            let _ = writeln!(
                s,
                r#"<pattern id="area-{a}" patternUnits="userSpaceOnUse" width="{step}" height="{step}" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="{step}" stroke="{}" stroke-width="{}"/></pattern>"#,
                AREA_HATCH[*a as usize % AREA_HATCH.len()],
                step * 0.3
            );
        }
        let _ = writeln!(s, "</defs>");
    }
    let area_name = |a: u16| mesh.areas().get(a as usize).map_or("?", |t| t.name.as_str());
    // Ranks among all the mesh's layers, so that `--layer N` keeps the full drawing's colour.
    let ranks: std::collections::BTreeMap<u16, usize> = {
        let layers: std::collections::BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
        layers.into_iter().enumerate().map(|(rank, l)| (l, rank)).collect()
    };
    let layer_fill = |l: u16| LAYER_PALETTE[ranks.get(&l).copied().unwrap_or(0) % LAYER_PALETTE.len()];
    let points = |p: meadow::asset::PolygonRef<'_>| -> String {
        let pts: Vec<String> =
            p.vertices.iter().map(|&k| format!("{},{}", v[k as usize][0], v[k as usize][2])).collect();
        pts.join(" ")
    };
    let _ = writeln!(s, r##"<g stroke="#5a7d57" stroke-width="{}" stroke-linejoin="round">"##, line);
    for (i, p) in mesh.polygons().enumerate() {
        if shown(i as u32) {
            let _ = writeln!(
                s,
                r#"<polygon class="poly" id="poly-{i}" points="{}" fill="{}"><title>polygon {i}, layer {}, area {}, island {}</title></polygon>"#,
                points(p),
                layer_fill(p.layer),
                p.layer,
                escape(area_name(p.area)),
                island[i]
            );
        }
    }
    let _ = writeln!(s, "</g>");
    if !hatched.is_empty() {
        let _ = writeln!(s, r#"<g stroke="none">"#);
        for (i, p) in mesh.polygons().enumerate() {
            if shown(i as u32) && p.area != 0 {
                let _ = writeln!(s, r#"<polygon class="hatch" points="{}" fill="url(#area-{})"/>"#, points(p), p.area);
            }
        }
        let _ = writeln!(s, "</g>");
    }
    // Islands: each outline ring in its island's colour, under the walls (the ring's edges are
    // walls). The ring's island is that of the polygon owning its first edge.
    let mut wall_owner = std::collections::BTreeMap::new();
    for (i, p) in mesh.polygons().enumerate() {
        for k in 0..p.vertices.len() {
            if p.links[k] == EdgeLink::Wall {
                wall_owner.insert((p.vertices[k], p.vertices[(k + 1) % p.vertices.len()]), i);
            }
        }
    }
    let _ = writeln!(s, r#"<g fill="none" stroke-width="{}" stroke-linejoin="round">"#, line * ISLAND_OUTLINE_WIDTH);
    for (r, ring) in mesh.outlines().iter().enumerate() {
        let Some(&owner) = ring.vertices.first().zip(ring.vertices.get(1)).and_then(|(a, b)| wall_owner.get(&(*a, *b)))
        else {
            continue;
        };
        if !shown(owner as u32) {
            continue;
        }
        let d: Vec<String> =
            ring.vertices.iter().map(|&k| format!("{} {}", v[k as usize][0], v[k as usize][2])).collect();
        let _ = writeln!(
            s,
            r#"<path class="island" id="outline-{r}" d="M {} Z" stroke="{}"><title>island {}</title></path>"#,
            d.join(" L "),
            ISLAND_PALETTE[island[owner] as usize % ISLAND_PALETTE.len()],
            island[owner]
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, r#"<g stroke="black" stroke-width="{}" stroke-linecap="round">"#, line * 4.0);
    for (i, p) in mesh.polygons().enumerate() {
        if !shown(i as u32) {
            continue;
        }
        for k in 0..p.vertices.len() {
            if p.links[k] == EdgeLink::Wall {
                let a = v[p.vertices[k] as usize];
                let b = v[p.vertices[(k + 1) % p.vertices.len()] as usize];
                let _ = writeln!(s, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, a[0], a[2], b[0], b[2]);
            }
        }
    }
    let _ = writeln!(s, "</g>");
    if !links.is_empty() {
        let _ = writeln!(
            s,
            r#"<defs><marker id="link-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{LINK_COLOUR}"/></marker></defs>"#
        );
        let _ = writeln!(s, r#"<g fill="none" stroke="{LINK_COLOUR}" stroke-width="{}">"#, line * 3.0);
        for (i, l) in &links {
            let start_marker = if l.bidirectional { r#" marker-start="url(#link-arrow)""# } else { "" };
            let _ = writeln!(
                s,
                r#"<path class="link" id="link-{i}" d="{}" marker-end="url(#link-arrow)"{start_marker}><title>link {i}, id {}, {}, cost {}, area {}</title></path>"#,
                arc_d(l.start, l.end, size / 100.0),
                l.id,
                if l.bidirectional { "two-way" } else { "one-way" },
                l.cost,
                escape(area_name(l.area))
            );
        }
        let _ = writeln!(s, "</g>");
    }
    for (n, path) in paths.iter().enumerate() {
        // On-mesh runs as polylines, each off-mesh link segment as a dashed arc.
        let mut run: Vec<String> = Vec::new();
        let flush = |run: &mut Vec<String>, s: &mut String| {
            if run.len() >= 2 {
                let _ = writeln!(
                    s,
                    r#"<polyline class="path" points="{}" fill="none" stroke="{PATH_COLOUR}" stroke-width="{}" stroke-linejoin="round"/>"#,
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
                    r#"<path class="path" d="{}" fill="none" stroke="{PATH_COLOUR}" stroke-width="{}" stroke-dasharray="{} {}"/>"#,
                    arc_d(*p, *next, size / 100.0),
                    line * 5.0,
                    line * 15.0,
                    line * 10.0
                );
            }
        }
        flush(&mut run, &mut s);
        let _ = writeln!(s, r#"<g fill="white" stroke="{PATH_COLOUR}" stroke-width="{}">"#, line * 2.5);
        for (i, p) in path.points.iter().enumerate() {
            let _ = writeln!(
                s,
                r#"<circle class="corner" cx="{}" cy="{}" r="{}"><title>path {n}, point {i}: {:.3}, {:.3}, {:.3}</title></circle>"#,
                p[0],
                p[2],
                line * 7.0,
                p[0],
                p[1],
                p[2]
            );
        }
        let _ = writeln!(s, "</g>");
    }

    // The legend, below the map: one row each, swatch then text.
    let _ = writeln!(s, r#"<g class="legend" font-family="sans-serif" font-size="{font}">"#);
    let left = x0 + margin;
    let mut y = z0 + map_h;
    let swatch = row * 0.7;
    let text = |s: &mut String, y: f64, label: &str| {
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, left + swatch * 1.6, y + swatch * 0.8, escape(label));
    };
    for &(l, a) in fills.iter().take(LEGEND_MAX_ROWS) {
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{y}" width="{swatch}" height="{swatch}" fill="{}" stroke="#5a7d57" stroke-width="{line}"/>"##,
            layer_fill(l)
        );
        if a != 0 {
            let _ =
                writeln!(s, r#"<rect x="{left}" y="{y}" width="{swatch}" height="{swatch}" fill="url(#area-{a})"/>"#);
        }
        let cost = mesh.areas().get(a as usize).map_or(1.0, |t| t.cost);
        text(&mut s, y, &format!("layer {l}, area {} (cost {cost})", area_name(a)));
        y += row;
    }
    if fills.len() > LEGEND_MAX_ROWS {
        text(&mut s, y, &format!("… and {} more layer and area fills", fills.len() - LEGEND_MAX_ROWS));
        y += row;
    }
    for (k, isl) in drawn_islands.iter().take(ISLAND_PALETTE.len()).enumerate() {
        // Bars side by side within the swatch column.
        let step = swatch * 1.4 / ISLAND_PALETTE.len() as f64;
        let x = left + (k as f64 + 0.5) * step;
        let _ = writeln!(
            s,
            r#"<line x1="{x}" y1="{y}" x2="{x}" y2="{}" stroke="{}" stroke-width="{}"/>"#,
            y + swatch,
            ISLAND_PALETTE[*isl as usize % ISLAND_PALETTE.len()],
            step * 0.8
        );
    }
    let plural = if drawn_islands.len() == 1 { "" } else { "s" };
    text(&mut s, y, &format!("{} island{plural} (connected parts), outlined by colour", drawn_islands.len()));
    y += row;
    if !links.is_empty() {
        let _ = writeln!(
            s,
            r#"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="{LINK_COLOUR}" stroke-width="{}"/>"#,
            y + swatch / 2.0,
            left + swatch,
            y + swatch / 2.0,
            line * 3.0
        );
        let plural = if links.len() == 1 { "" } else { "s" };
        text(&mut s, y, &format!("{} off-mesh link{plural} (arrows: the ways it can be taken)", links.len()));
        y += row;
    }
    if !paths.is_empty() {
        let _ = writeln!(
            s,
            r#"<circle cx="{}" cy="{}" r="{}" fill="white" stroke="{PATH_COLOUR}" stroke-width="{}"/>"#,
            left + swatch / 2.0,
            y + swatch / 2.0,
            line * 7.0,
            line * 2.5
        );
        text(&mut s, y, "path corners (dashed: off-mesh links taken)");
        y += row;
    }
    // Scale bar: at most a third of the map's width.
    let bar = scale_length(w / 3.0);
    let (bar_y, tick) = (y + swatch / 2.0, swatch / 2.0);
    let _ = writeln!(
        s,
        r#"<path class="scale" d="M {left} {} L {left} {bar_y} L {} {bar_y} L {} {}" fill="none" stroke="black" stroke-width="{}"/>"#,
        bar_y - tick,
        left + bar,
        left + bar,
        bar_y - tick,
        line * 3.0
    );
    let _ = writeln!(s, r#"<text x="{}" y="{}">{bar} m</text>"#, left + bar + swatch * 0.5, y + swatch * 0.8);
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "</svg>");
    s
}

/// `text` with the XML special characters escaped (area names come from the level).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
