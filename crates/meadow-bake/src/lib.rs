//! Meadow bake library: turns a glTF level into an exact convex navmesh ([`meadow::NavMesh`]).
//!
//! The bake is a pipeline of stages, one module each, each a function from one named type to
//! the next; [`bake`] only runs them in order, checks the work budgets between them and passes
//! warnings on to its [`Progress`]. In the order data flows:
//!
//! | # | stage | module | input | output | settings read |
//! |---|-------|--------|-------|--------|---------------|
//! | 1 | ingest | [`ingest`] | glTF file | [`ingest::Scene`] | — |
//! | 2 | classify | [`classify`] | `Scene` | [`classify::Classified`] | `max_slope`, `walkable` |
//! | 3 | region | [`region`] (layers: [`layers`]) | `Classified` | [`region::Regions`] | `radius`, `height`, `max_climb`, `arc_tolerance` ([`region::RegionParams`]) |
//! | 4 | simplify | [`simplify`] | `Regions` | `Regions` | `arc_tolerance`, `max_edge_length` ([`simplify::SimplifyParams`]) |
//! | 5 | polygons | [`polygons`] (runs [`triangulate`], then [`convex`]) | [`polygons::PolygonInput`] (`Regions` + walkable triangles) | [`portals::PolygonMesh`] | `max_climb`, `max_verts_per_poly`, `partition` ([`polygons::PolygonParams`]) |
//! | 3-5 | tiles (when `tile_size > 0`) | [`tiles`] | `Classified` | [`portals::PolygonMesh`] stitched from per-tile meshes, and the asset's tile sections | `tile_size` and those of stages 3-5 |
//! | 6 | portals | [`portals`] | `PolygonMesh` | edge links (`Vec<Vec<EdgeLink>>`) | — |
//! | 7 | assemble | [`assemble`] | `PolygonMesh` + edge links + area types | [`meadow::NavMesh`] | all (stored in the asset) |
//! | 8 | visibility | [`visibility`] | the assembled [`meadow::NavMesh`] | [`meadow::VisibilityGraph`] (set into the mesh, re-validated) | `visibility` |
//! | 9 | links | [`links`] | [`links::LinkInput`] (`NavMesh` + `Scene`) | [`links::LinkedMesh`] | — |
//!
//! Work budgets ([`BakeSettings::budgets`]) are checked after classify (walkable triangles),
//! within and after region (region vertices) and before polygons (triangles); see [`budget`].
//! Every geometric tolerance and grid constant lives in [`tolerance`]. Below the stages sit
//! helpers they share: XZ triangle geometry (`xz.rs`), the exact integer grid and its polygon
//! booleans (`overlay.rs`), box grids for neighbour queries (`grid.rs`) and surface heights
//! (`heights.rs`).
//!
//! The polygons stage ear-clips each region polygon and then flips its triangles to the
//! constrained Delaunay triangulation of the polygon's rings ([`triangulate::make_delaunay`]),
//! so that the convex merge works on fat triangles rather than long slivers: fewer polygons, and
//! shorter portals whose midpoints guide path searches better.
//!
//! Navigation meshes made by other tools enter through [`import`] (Polyanya's `.mesh` files:
//! [`import::polyanya`]), which skips the glTF stages and runs `assemble` and `visibility`.
//!
//! A baked mesh goes back out as glTF for viewers through [`export`] (`meadow export`).
//!
//! Tags (node `extras`, see [`ingest`]): untagged geometry is floor where its slope allows,
//! whatever other nodes are tagged, unless the bake setting `walkable` is `tagged-only`
//! ([`meadow::WalkableRule`]); the classify stage warns where tags cost floor
//! ([`classify::tag_warnings`]). Area volumes neither walk nor block: the region stage paints
//! the free surface inside them with their area ([`region::build_regions`]) and warns about
//! volumes that paint nothing ([`region::volume_warnings`]). Obstacles tagged `"footprint":
//! "hull"` block by the convex hull of their subtree's geometry over its height range
//! ([`classify::HullObstacle`]).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod assemble;
pub mod budget;
pub mod classify;
pub mod convex;
pub mod export;
pub mod fingerprint;
mod grid;
mod heights;
pub mod import;
pub mod ingest;
pub mod layers;
pub mod links;
mod overlay;
pub mod polygons;
pub mod portals;
pub mod progress;
pub mod region;
pub mod simplify;
pub mod tiles;
pub mod tolerance;
pub mod triangulate;
pub mod visibility;
mod xz;

pub use budget::BudgetExceeded;
pub use meadow::BakeSettings;
pub use progress::{NoProgress, Progress, Stage};

use ingest::{IngestError, Scene};
use meadow::{NavMesh, SettingsError, ValidationError};
use std::path::Path;

/// Why a bake failed.
#[derive(Debug, thiserror::Error)]
pub enum BakeError {
    /// The settings are outside their limits.
    #[error("invalid settings: {0}")]
    Settings(#[from] SettingsError),
    /// The level could not be read.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// The free area could not be computed.
    #[error(transparent)]
    Region(#[from] region::RegionError),
    /// A region polygon could not be triangulated.
    #[error("cannot triangulate region polygon {polygon} of area type {area}: {source}")]
    Triangulate {
        /// Area type index.
        area: u16,
        /// Polygon index within the area's region.
        polygon: usize,
        /// What went wrong.
        source: triangulate::TriangulateError,
    },
    /// Merging triangles into convex polygons failed.
    #[error("cannot merge triangles of area type {area} into convex polygons: {source}")]
    Convex {
        /// Area type index.
        area: u16,
        /// What went wrong.
        source: convex::ConvexError,
    },
    /// A work budget of the settings was exceeded (a hostile or mistaken input).
    #[error(transparent)]
    Budget(#[from] BudgetExceeded),
    /// No walkable area remains after erosion by the agent radius.
    #[error("no walkable area remains for an agent of radius {radius} m and height {height} m")]
    NothingWalkable {
        /// Agent radius in metres.
        radius: f64,
        /// Agent height in metres.
        height: f64,
    },
    /// The tile grid cannot be laid over the level, or a tile cannot be read back from an asset.
    #[error(transparent)]
    Tiles(#[from] tiles::TileError),
    /// The tiles cannot be stitched into one mesh.
    #[error(transparent)]
    Stitch(#[from] tiles::StitchError),
    /// The bake produced a structurally invalid mesh (a bug in Meadow; please report it).
    #[error("internal error, the baked mesh is invalid: {0}")]
    Internal(#[from] ValidationError),
}

impl From<polygons::PolygonError> for BakeError {
    fn from(e: polygons::PolygonError) -> Self {
        match e {
            polygons::PolygonError::Triangulate { area, polygon, source } => {
                BakeError::Triangulate { area, polygon, source }
            }
            polygons::PolygonError::Convex { area, source } => BakeError::Convex { area, source },
        }
    }
}

/// How [`bake_with`] runs beyond the settings: for tiled bakes, which tiles to make and a
/// previous asset to take unchanged tiles from. The default bakes every tile anew.
#[derive(Clone, Copy, Debug, Default)]
pub struct BakeOptions<'a> {
    /// Bake only these tiles (a partial asset for `meadow merge`); `None` bakes all.
    pub tiles: Option<tiles::TileRange>,
    /// The previous asset of the level: tiles whose inputs and settings are unchanged are taken
    /// from it instead of baked (an incremental bake gives the same bytes as a full one).
    pub previous: Option<&'a NavMesh>,
}

/// Bakes a scene into a validated navmesh, reporting stages and warnings to `progress`.
pub fn bake(scene: &Scene, settings: &BakeSettings, progress: &mut dyn Progress) -> Result<NavMesh, BakeError> {
    bake_with(scene, settings, BakeOptions::default(), progress)
}

/// As [`bake`], with the options of a tiled bake (partial, incremental); an untiled bake
/// (`tile_size = 0`) ignores them.
pub fn bake_with(
    scene: &Scene,
    settings: &BakeSettings,
    options: BakeOptions<'_>,
    progress: &mut dyn Progress,
) -> Result<NavMesh, BakeError> {
    settings.validate()?;
    let budgets = settings.budgets(scene.triangles.len());
    progress.begin(Stage::Classify, scene.triangles.len() as u64);
    let classified = classify::classify(scene, settings.max_slope, settings.walkable);
    for warning in classify::tag_warnings(scene, &classified, settings.max_slope, settings.walkable) {
        progress.warn(&warning);
    }
    progress.finish(Stage::Classify);
    if classified.walkable.len() as u64 > budgets.walkable_triangles {
        return Err(BudgetExceeded::walkable_triangles(budgets.walkable_triangles).into());
    }
    let nothing_walkable = || BakeError::NothingWalkable { radius: settings.radius, height: settings.height };

    if settings.tile_size > 0.0 {
        if classified.walkable.is_empty() {
            return Err(region::RegionError::NoWalkableSurface.into());
        }
        let baked = tiles::bake_tiles(&classified, settings, &budgets, options.tiles, options.previous, progress)?;
        if let Some(painted) = &baked.painted {
            for warning in region::volume_warnings_painted(scene, painted) {
                progress.warn(&warning);
            }
        }
        if options.tiles.is_none() && baked.tiles.iter().all(|t| t.polygons.is_empty()) {
            return Err(nothing_walkable());
        }
        let stitched = tiles::stitch(&baked.tiles, settings.tile_size, settings.max_climb, MAX_POLYGON_VERTICES)?;
        let partial = options.tiles.map(|range| partial_bake(scene, &baked.grid, range));
        return finish(stitched.mesh, stitched.sections, partial, scene, settings, &budgets, progress);
    }

    let params = region::RegionParams::from(settings);
    let regions = region::build_regions_within(&classified, &params, budgets.region_vertices, progress)?;
    for warning in region::volume_warnings(scene, &regions) {
        progress.warn(&warning);
    }
    if regions.areas.is_empty() {
        return Err(nothing_walkable());
    }
    if simplify::split_vertex_estimate(&regions, settings.max_edge_length) > budgets.region_vertices {
        return Err(BudgetExceeded::region_vertices(budgets.region_vertices).into());
    }

    let regions = simplify::simplify_regions(&regions, &simplify::SimplifyParams::from(settings), progress);

    if polygons::triangle_estimate(&regions) > budgets.polygons {
        return Err(BudgetExceeded::polygons(budgets.polygons).into());
    }

    let polygon_input = polygons::PolygonInput { regions: &regions, walkable: &classified.walkable };
    let mesh = polygons::build_polygons(polygon_input, &polygons::PolygonParams::from(settings), progress)?;
    finish(mesh, Vec::new(), None, scene, settings, &budgets, progress)
}

/// What a partial bake of `range` stores for [`merge`]: the level's tile grid, the range and the
/// level's off-mesh link requests (their end nodes' positions and names).
fn partial_bake(scene: &Scene, grid: &tiles::TileGrid, range: tiles::TileRange) -> meadow::PartialBake {
    let name = |node: u32| scene.nodes.get(node as usize).cloned().unwrap_or_default();
    let links = scene
        .links
        .iter()
        .map(|r| {
            let spec = links::link_spec(scene, r);
            meadow::PendingLink {
                from_node: name(r.from_node),
                to_node: name(r.to_node),
                start: spec.start,
                end: spec.end,
                bidirectional: r.bidirectional,
                cost: r.cost,
                radius: r.radius,
                area: r.area,
                id: r.id,
            }
        })
        .collect();
    meadow::PartialBake {
        grid: [grid.columns.start, grid.rows.start, grid.columns.end - 1, grid.rows.end - 1],
        range: [range.columns.0, range.rows.0, range.columns.1, range.rows.1],
        links,
    }
}

/// Why partial assets cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No parts were given.
    #[error("no partial assets to merge")]
    NoParts,
    /// A part is not a partial asset.
    #[error("part {part} is not a partial asset (bake it with --tiles)")]
    NotPartial {
        /// Index of the part.
        part: usize,
    },
    /// The parts were baked with different settings, grids or link requests.
    #[error("part {part} was baked from another level or with other settings than part 0 ({what} differ)")]
    Mismatch {
        /// Index of the part.
        part: usize,
        /// What differs.
        what: &'static str,
    },
    /// A tile of the grid is in no part, or in two.
    #[error("tile ({x}, {z}) of the level's grid is in {count} parts; every tile must be in exactly one")]
    Coverage {
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
        /// Number of parts holding it.
        count: usize,
    },
    /// The parts' tiles cannot be stitched or finished.
    #[error(transparent)]
    Bake(#[from] BakeError),
}

/// Stitches partial assets of one level (every tile of its grid in exactly one part) into the
/// asset a full bake gives, byte for byte: the same tiles, stitched, then portals, assemble,
/// visibility and the level's off-mesh links.
pub fn merge(parts: &[NavMesh], progress: &mut dyn Progress) -> Result<NavMesh, MergeError> {
    let first = parts.first().ok_or(MergeError::NoParts)?;
    let Some(p0) = &first.data().partial else {
        return Err(MergeError::NotPartial { part: 0 });
    };
    let settings = first.settings().clone();
    let mut tiles_of_parts = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Some(p) = &part.data().partial else {
            return Err(MergeError::NotPartial { part: i });
        };
        if part.settings() != &settings {
            return Err(MergeError::Mismatch { part: i, what: "settings" });
        }
        if p.grid != p0.grid {
            return Err(MergeError::Mismatch { part: i, what: "tile grids" });
        }
        if p.links != p0.links || part.data().areas != first.data().areas {
            return Err(MergeError::Mismatch { part: i, what: "off-mesh links or area types" });
        }
        tiles_of_parts.extend(tiles::tile_meshes_of(part).map_err(BakeError::from)?);
    }
    let g = p0.grid;
    for z in g[1]..=g[3] {
        for x in g[0]..=g[2] {
            let inside = |r: [i32; 4]| (r[0]..=r[2]).contains(&x) && (r[1]..=r[3]).contains(&z);
            let count = parts.iter().filter_map(|p| p.data().partial.as_ref()).filter(|p| inside(p.range)).count();
            if count != 1 {
                return Err(MergeError::Coverage { x, z, count });
            }
        }
    }
    tiles_of_parts.sort_by_key(|t| (t.z, t.x));
    let stitched = tiles::stitch(&tiles_of_parts, settings.tile_size, settings.max_climb, MAX_POLYGON_VERTICES)
        .map_err(BakeError::from)?;
    // The level's link requests, as a scene whose nodes are the links' two ends.
    let mut scene = Scene { areas: first.data().areas.clone(), ..Scene::default() };
    for (k, l) in p0.links.iter().enumerate() {
        scene.nodes.extend([l.from_node.clone(), l.to_node.clone()]);
        scene.node_positions.extend([l.start, l.end]);
        scene.links.push(ingest::LinkRequest {
            from_node: 2 * k as u32,
            to: l.to_node.clone(),
            to_node: 2 * k as u32 + 1,
            bidirectional: l.bidirectional,
            cost: l.cost,
            radius: l.radius,
            area_name: None,
            area: l.area,
            id: l.id,
        });
    }
    let budgets = settings.budgets(0);
    Ok(finish(stitched.mesh, stitched.sections, None, &scene, &settings, &budgets, progress)?)
}

/// Most vertices of a polygon in an asset (the runtime's limit); stitching may insert border
/// vertices into a tile's polygon up to it.
const MAX_POLYGON_VERTICES: usize = 12;

/// The stages after the polygons, shared by untiled, tiled and partial bakes: portals,
/// assemble (with the tile sections), visibility and off-mesh links. A partial asset
/// (`partial` set) stops after assemble: the merge of the parts makes its graph and links.
fn finish(
    mesh: portals::PolygonMesh,
    sections: Vec<meadow::TileSection>,
    partial: Option<meadow::PartialBake>,
    scene: &Scene,
    settings: &BakeSettings,
    budgets: &meadow::Budgets,
    progress: &mut dyn Progress,
) -> Result<NavMesh, BakeError> {
    progress.begin(Stage::Portals, mesh.polygons.len() as u64);
    let links = portals::link_portals(&mesh);
    progress.finish(Stage::Portals);

    progress.begin(Stage::Assemble, 0);
    let is_partial = partial.is_some();
    let nav = assemble::assemble_tiled(&mesh, &links, &scene.areas, settings, sections, partial)?;
    progress.finish(Stage::Assemble);
    if is_partial {
        return Ok(nav);
    }

    let nav = if settings.visibility {
        progress.begin(Stage::Visibility, 0);
        let (nav, outcome) = visibility::with_visibility(nav, settings.max_visibility_ratio, budgets.visibility_work)?;
        if let visibility::GraphOutcome::LeftOut(left_out) = outcome {
            progress.warn(&left_out.to_string());
        }
        progress.finish(Stage::Visibility);
        nav
    } else {
        nav
    };

    let linked = links::connect_links(links::LinkInput { mesh: nav, scene }, progress)?;
    Ok(linked.mesh)
}

/// Reads a glTF level and bakes it, silently: the one-call entry point for build scripts.
pub fn bake_file(path: impl AsRef<Path>, settings: &BakeSettings) -> Result<NavMesh, BakeError> {
    bake_file_with_progress(path, settings, &mut NoProgress)
}

/// Reads a glTF level and bakes it, reporting stages and warnings to `progress`.
pub fn bake_file_with_progress(
    path: impl AsRef<Path>,
    settings: &BakeSettings,
    progress: &mut dyn Progress,
) -> Result<NavMesh, BakeError> {
    settings.validate()?;
    let scene = ingest::ingest_file(path.as_ref(), progress)?;
    bake(&scene, settings, progress)
}
