//! Meadow bake library: turns a glTF level into an exact convex navmesh ([`meadow::NavMesh`]).
//!
//! The pipeline is one module per stage, each a function from one named type to the next:
//! [`ingest`] (`Scene`) → [`classify`] (`Classified`) → [`region`] (`Regions`) →
//! [`simplify`] (`Regions`) → [`triangulate`] (`Triangulation`) → [`convex`] (`ConvexMesh`) → [`portals`] (edge links) →
//! [`assemble`] (`NavMesh`) → [`links`] (`LinkedMesh`: the level's off-mesh links connected).
//!
//! The triangulate stage ear-clips each region polygon and then flips its triangles to the
//! constrained Delaunay triangulation of the polygon's rings ([`triangulate::make_delaunay`]),
//! so that the convex stage merges fat triangles rather than long slivers: fewer polygons, and
//! shorter portals whose midpoints guide path searches better.
//!
//! Tags (node `extras`, see [`ingest`]): untagged geometry is floor where its slope allows,
//! whatever other nodes are tagged, unless the bake setting `walkable` is `tagged-only`
//! ([`meadow::WalkableRule`]); the classify stage warns where tags cost floor
//! ([`classify::tag_warnings`]). Area volumes neither walk nor block: the region stage paints
//! the free surface inside them with their area ([`region::build_regions`]).

pub mod assemble;
pub mod budget;
pub mod classify;
pub mod convex;
mod grid;
pub mod ingest;
pub mod layers;
pub mod links;
mod overlay;
pub mod portals;
pub mod progress;
pub mod region;
pub mod simplify;
pub mod tolerance;
pub mod triangulate;
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
    /// The bake produced a structurally invalid mesh (a bug in Meadow; please report it).
    #[error("internal error, the baked mesh is invalid: {0}")]
    Internal(#[from] ValidationError),
}

/// Bakes a scene into a validated navmesh, reporting stages and warnings to `progress`.
pub fn bake(scene: &Scene, settings: &BakeSettings, progress: &mut dyn Progress) -> Result<NavMesh, BakeError> {
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

    let params = region::RegionParams::from(settings);
    let regions = region::build_regions_within(&classified, &params, budgets.region_vertices, progress)?;
    for (volume, &painted) in scene.volumes.iter().zip(&regions.painted) {
        if painted <= 0.0 {
            let name = scene.nodes.get(volume.node as usize).map_or("?", String::as_str);
            let area = scene.areas.get(volume.area as usize).map_or("?", |a| a.name.as_str());
            progress.warn(&format!(
                "area volume '{name}' (area '{area}') paints nothing: no free walkable surface lies inside its \
                 footprint within its height range y = {:.2} ..= {:.2} m",
                volume.y_min, volume.y_max
            ));
        }
    }
    if regions.areas.is_empty() {
        return Err(BakeError::NothingWalkable { radius: settings.radius, height: settings.height });
    }
    if simplify::split_vertex_estimate(&regions, settings.max_edge_length) > budgets.region_vertices {
        return Err(BudgetExceeded::region_vertices(budgets.region_vertices).into());
    }

    let regions = simplify::simplify_regions(&regions, &simplify::SimplifyParams::from(settings), progress);

    // A polygon with holes of v ring vertices and h holes triangulates into v + 2h - 2
    // triangles, each at most one output polygon.
    let triangle_total: u64 = regions
        .areas
        .iter()
        .flat_map(|a| &a.polygons)
        .map(|p| (p.outer.len() + p.holes.iter().map(|h| h.len() + 2).sum::<usize>()) as u64)
        .sum();
    if triangle_total > budgets.polygons {
        return Err(BudgetExceeded::polygons(budgets.polygons).into());
    }

    let polygon_total: usize = regions.areas.iter().map(|a| a.polygons.len()).sum();
    progress.begin(Stage::Triangulate, polygon_total as u64);
    let mut pieces = Vec::with_capacity(polygon_total);
    for a in &regions.areas {
        for (i, poly) in a.polygons.iter().enumerate() {
            let mut tri = triangulate::triangulate(poly).map_err(|source| BakeError::Triangulate {
                area: a.area,
                polygon: i,
                source,
            })?;
            triangulate::make_delaunay(&mut tri);
            pieces.push((a.area, a.layer, tri));
            progress.advance(Stage::Triangulate, pieces.len() as u64);
        }
    }
    progress.finish(Stage::Triangulate);

    progress.begin(Stage::Convex, pieces.len() as u64);
    let mut mesh = portals::PolygonMesh::default();
    let mut index = portals::VertexIndex::new(settings.max_climb);
    let mut surface = assemble::SurfaceHeights::new(&classified.walkable, &regions.triangle_layers);
    let mut heights = Vec::new();
    for (k, (area, layer, tri)) in pieces.iter().enumerate() {
        heights.clear();
        heights.extend(tri.vertices.iter().map(|&p| surface.at(p, *layer as u32)));
        let convex = convex::merge_convex_flat(tri, Some(&heights), settings.max_verts_per_poly as usize)
            .map_err(|source| BakeError::Convex { area: *area, source })?;
        mesh.add(&tri.vertices, &heights, &convex.polygons, *area, *layer, &mut index);
        progress.advance(Stage::Convex, k as u64 + 1);
    }
    progress.finish(Stage::Convex);

    progress.begin(Stage::Portals, mesh.polygons.len() as u64);
    let links = portals::link_portals(&mesh);
    progress.finish(Stage::Portals);

    progress.begin(Stage::Assemble, 0);
    let nav = assemble::assemble(&mesh, &links, &scene.areas, settings)?;
    progress.finish(Stage::Assemble);

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
