//! `meadow info`: what is in a navmesh asset.

use anyhow::{Context, Result};
use meadow::{EdgeLink, NavMesh};
use std::path::PathBuf;

/// Arguments of `meadow info`.
#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// The navmesh asset.
    pub navmesh: PathBuf,
    /// Print a stable JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `meadow info`.
pub fn run(args: &InfoArgs) -> Result<()> {
    let context = || format!("cannot load {}", args.navmesh.display());
    let bytes = std::fs::read(&args.navmesh).map_err(meadow::LoadError::from).with_context(context)?;
    let mesh = NavMesh::from_bytes(&bytes).with_context(context)?;
    let mut info = summary(&mesh);
    // The header's source hash (what `meadow bake --if-changed` compares), `null` when none.
    let source_hash = meadow::asset::read_source_hash(&bytes).with_context(context)?;
    info["source_hash"] = match source_hash {
        meadow::asset::NO_SOURCE_HASH => serde_json::Value::Null,
        hash => format!("{hash:016x}").into(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        let s = mesh.settings();
        println!("navmesh   {}", args.navmesh.display());
        println!(
            "format    {} (source hash {})",
            meadow::asset::FORMAT_VERSION,
            info["source_hash"].as_str().unwrap_or("none")
        );
        println!("polygons  {}", info["polygons"]);
        println!("vertices  {}", info["vertices"]);
        println!("portals   {}", info["portals"]);
        println!("outlines  {}", info["outlines"]);
        println!("links     {}", info["links"]);
        match info["visibility"].as_object() {
            Some(v) => println!("visibility {} corners, {} edges, {} bytes", v["nodes"], v["edges"], v["bytes"]),
            None => println!("visibility none"),
        }
        match (mesh.data().tiles.len(), &mesh.data().partial) {
            (0, None) => {}
            (n, None) => println!("tiles     {n} of {} m", s.tile_size),
            (n, Some(p)) => println!(
                "tiles     {n} of {} m, partial: columns {}..={}, rows {}..={} of grid columns {}..={}, rows {}..={}",
                s.tile_size,
                p.range[0].max(p.grid[0]),
                p.range[2].min(p.grid[2]),
                p.range[1].max(p.grid[1]),
                p.range[3].min(p.grid[3]),
                p.grid[0],
                p.grid[2],
                p.grid[1],
                p.grid[3]
            ),
        }
        println!("area      {:.3} m²", mesh.total_area());
        if let Some((lo, hi)) = mesh.bounds() {
            println!(
                "bounds    ({:.3}, {:.3}, {:.3}) .. ({:.3}, {:.3}, {:.3})",
                lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
            );
        }
        for (i, a) in mesh.areas().iter().enumerate() {
            println!("area {i:<4} {} (cost {})", a.name, a.cost);
        }
        for (i, l) in mesh.links().iter().enumerate() {
            let area = mesh.areas().get(l.area as usize).map_or("?", |a| a.name.as_str());
            println!(
                "link {i:<4} id {} ({:.3}, {:.3}, {:.3}) {} ({:.3}, {:.3}, {:.3}), cost {:.3}, area {area}",
                l.id,
                l.start[0],
                l.start[1],
                l.start[2],
                if l.bidirectional { "<->" } else { "->" },
                l.end[0],
                l.end[1],
                l.end[2],
                l.cost
            );
        }
        println!(
            "settings  radius {} m, height {} m, max climb {} m, max slope {}°, max verts {}, arc tolerance {} m, \
             max edge length {} m, walkable {}, visibility {}, partition {}, tile size {} m",
            s.radius,
            s.height,
            s.max_climb,
            s.max_slope,
            s.max_verts_per_poly,
            s.arc_tolerance,
            s.max_edge_length,
            s.walkable.name(),
            s.visibility,
            s.partition.name(),
            s.tile_size
        );
    }
    Ok(())
}

/// The JSON summary (stable keys: format_version, polygons, vertices, portals, outlines, links
/// (the number of off-mesh links), visibility (`null` or the graph's nodes, undirected edges and
/// encoded bytes), area, bounds, areas, settings, tiles (0 for a one-tile bake), partial (`null`
/// or the grid and range of a partial asset); `run` adds source_hash).
pub fn summary(mesh: &NavMesh) -> serde_json::Value {
    let portals =
        mesh.polygons().flat_map(|p| p.links.iter()).filter(|l| matches!(l, EdgeLink::Polygon(_))).count() / 2;
    let bounds = mesh.bounds().map(|(lo, hi)| serde_json::json!({ "min": lo, "max": hi }));
    serde_json::json!({
        "format_version": meadow::asset::FORMAT_VERSION,
        "polygons": mesh.polygon_count(),
        "vertices": mesh.vertices().len(),
        "portals": portals,
        "outlines": mesh.outlines().len(),
        "links": mesh.links().len(),
        "visibility": mesh.visibility().map(|g| serde_json::json!({
            "nodes": g.node_count(),
            "edges": g.edge_count() / 2,
            "bytes": visibility_bytes(mesh),
        })),
        "area": mesh.total_area(),
        "bounds": bounds,
        "areas": mesh.areas().iter().map(|a| serde_json::json!({"name": a.name, "cost": a.cost})).collect::<Vec<_>>(),
        "settings": mesh.settings(),
        "tiles": mesh.data().tiles.len(),
        "partial": mesh.data().partial.as_ref().map(|p| serde_json::json!({"grid": p.grid, "range": p.range})),
    })
}

/// The encoded size of the asset's visibility graph in bytes.
pub fn visibility_bytes(mesh: &NavMesh) -> usize {
    meadow_bake::visibility::graph_and_rest_bytes(mesh).0
}
