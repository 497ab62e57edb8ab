//! Tiled bakes: [`Classified`] triangles → one [`PolygonMesh`] stitched from square tiles, and
//! the tile sections the asset stores ([`meadow::TileSection`]).
//!
//! With `tile_size = t > 0` the level is cut into tiles aligned to the world origin: tile
//! `(x, z)` covers `[x·t, (x+1)·t) × [z·t, (z+1)·t)` in XZ, its sides rounded to the region
//! stage's grid. Every tile that meets the walkable bounds runs the region, simplify and
//! polygons stages on its own, from the triangles whose boxes meet the tile grown by the radius
//! and [`TILE_MARGIN`]: its free area is computed with the walls, blockers and floor around it
//! ([`region::build_regions_layered`], with the whole level's layering, ceilings and surface
//! groups), simplified as an untiled bake simplifies (each vertex decided by the rings within
//! half a metre, [`crate::tolerance::SIMPLIFY_CELL`]), and then cut to the tile, each point where the
//! cut crosses a ring edge placed on that edge (`clip.rs`). So the tiles' boundary is the
//! untiled bake's, plus collinear points where tile borders cut its edges. A tile's polygons
//! are put in a canonical form ([`TileMesh`]: vertices in order of first use, layers numbered
//! in order of first use), so that a tile's output depends only on its inputs.
//!
//! Tiles bake in parallel (rayon's current pool) and are gathered in row-major order, so the
//! result does not depend on the thread count. [`stitch`] welds them into one mesh (equal XZ,
//! heights within `max_climb`, as the polygons stage welds regions) and, where the two sides of
//! a tile border rounded a crossing differently, inserts the other side's border vertex into an
//! edge (recorded in [`meadow::TileSection::stitched`]), so that border edges meet end to end and
//! become portals, never walls.
//!
//! Each tile's inputs are hashed ([`tile_hash`]); an incremental bake ([`bake_tiles`] with the
//! previous asset) takes a tile whose hash is unchanged from the previous asset
//! ([`tile_meshes_of`] undoes the stitching), which gives the same bytes as baking it again.

use crate::budget::BudgetExceeded;
use crate::classify::{Classified, WalkableTriangle};
use crate::fingerprint::Fnv;
use crate::grid::{triangle_box, Box2, BoxGrid};
use crate::layers::{self, Layering};
use crate::polygons::{self, PolygonInput, PolygonParams};
use crate::portals::{PolygonMesh, VertexIndex};
use crate::progress::{NoProgress, Progress, Stage};
use crate::region::{self, RegionParams, GRID_SCALE};
use crate::simplify::{self, SimplifyParams};
use crate::tolerance::{BOX_GRID_ITEMS_PER_CELL, TILE_MARGIN};
use crate::BakeError;
use meadow::settings::MAX_TILES;
use meadow::{BakeSettings, Budgets, NavMesh, TileSection};
use rayon::prelude::*;
use std::collections::BTreeMap;

mod clip;

/// The tiles of a tiled bake: the size and the ranges of tile columns and rows that meet the
/// walkable bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct TileGrid {
    /// Tile edge in metres.
    pub size: f64,
    /// Tile columns `x0..x1`.
    pub columns: std::ops::Range<i32>,
    /// Tile rows `z0..z1`.
    pub rows: std::ops::Range<i32>,
}

/// Which tiles a partial bake makes: columns `x0..=x1` and rows `z0..=z1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRange {
    /// First and last column.
    pub columns: (i32, i32),
    /// First and last row.
    pub rows: (i32, i32),
}

impl TileRange {
    /// Whether tile `(x, z)` is in the range.
    pub fn contains(&self, x: i32, z: i32) -> bool {
        (self.columns.0..=self.columns.1).contains(&x) && (self.rows.0..=self.rows.1).contains(&z)
    }
}

/// Why a tile grid cannot be laid over a level.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TileError {
    /// The grid over the walkable bounds has more tiles than an asset may hold.
    #[error(
        "a tile size of {size} m cuts the level ({width:.0} x {depth:.0} m of walkable bounds) into {count} tiles, \
         more than the {MAX_TILES} allowed: choose a larger tile_size"
    )]
    TooMany {
        /// The tile size in metres.
        size: f64,
        /// Width of the walkable bounds (x) in metres.
        width: f64,
        /// Depth of the walkable bounds (z) in metres.
        depth: f64,
        /// Number of tiles the grid would have.
        count: u64,
    },
    /// A tile's polygons could not be taken from the previous asset or a partial asset.
    #[error("the asset's tile ({x}, {z}) cannot be read back: {reason}")]
    Unreadable {
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
        /// What is wrong.
        reason: &'static str,
    },
}

impl TileGrid {
    /// The tiles of edge `size` that meet the XZ box `bounds`, or an error when there are more
    /// than [`MAX_TILES`].
    pub fn over(bounds: Box2, size: f64) -> Result<TileGrid, TileError> {
        let index = |v: f64| (v / size).floor();
        let (x0, z0, x1, z1) = (index(bounds[0]), index(bounds[1]), index(bounds[2]), index(bounds[3]));
        // Coordinates are within 2^20 m and sizes at least 1 m, so indices fit in i32.
        let count = (x1 - x0 + 1.0) * (z1 - z0 + 1.0);
        if !(count.is_finite() && count <= MAX_TILES as f64) {
            return Err(TileError::TooMany {
                size,
                width: bounds[2] - bounds[0],
                depth: bounds[3] - bounds[1],
                count: if count.is_finite() { count as u64 } else { u64::MAX },
            });
        }
        Ok(TileGrid { size, columns: x0 as i32..x1 as i32 + 1, rows: z0 as i32..z1 as i32 + 1 })
    }

    /// Number of tiles.
    pub fn len(&self) -> usize {
        self.columns.len() * self.rows.len()
    }

    /// Whether the grid has no tile.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The tiles in row-major order (rows `z` ascending, then columns `x`).
    pub fn tiles(&self) -> impl Iterator<Item = (i32, i32)> + '_ {
        self.rows.clone().flat_map(move |z| self.columns.clone().map(move |x| (x, z)))
    }

    /// The XZ box of tile `(x, z)`, its sides on the region stage's grid.
    pub fn rect(&self, x: i32, z: i32) -> Box2 {
        let side = |i: i32| border(i, self.size);
        [side(x), side(z), side(x + 1), side(z + 1)]
    }
}

/// The world coordinate of tile border `i` for tiles of edge `size`: `i·size` rounded to the
/// region grid, computed the same way for both tiles that share the border.
pub fn border(i: i32, size: f64) -> f64 {
    (i as f64 * size * GRID_SCALE).round() / GRID_SCALE
}

/// One tile's polygons in canonical form: vertices in order of first use by the polygons,
/// layers numbered from 0 in order of first use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TileMesh {
    /// Tile column.
    pub x: i32,
    /// Tile row.
    pub z: i32,
    /// Content hash of the tile's inputs ([`tile_hash`]).
    pub hash: u64,
    /// Vertex positions `[x, y, z]`.
    pub vertices: Vec<[f64; 3]>,
    /// Convex polygons, counter-clockwise in XZ, as vertex indices.
    pub polygons: Vec<Vec<u32>>,
    /// Area type per polygon.
    pub areas: Vec<u16>,
    /// Tile-local layer per polygon.
    pub layers: Vec<u16>,
}

impl TileMesh {
    /// The canonical form of polygons given over any vertex list.
    fn canonical(
        x: i32,
        z: i32,
        hash: u64,
        vertex: impl Fn(u32) -> [f64; 3],
        polygons: Vec<(Vec<u32>, u16, u16)>,
    ) -> Self {
        let mut out = TileMesh { x, z, hash, ..TileMesh::default() };
        let mut vertex_of: BTreeMap<u32, u32> = BTreeMap::new();
        let mut layer_of: BTreeMap<u16, u16> = BTreeMap::new();
        for (ring, area, layer) in polygons {
            let ring = ring
                .iter()
                .map(|&v| {
                    *vertex_of.entry(v).or_insert_with(|| {
                        out.vertices.push(vertex(v));
                        (out.vertices.len() - 1) as u32
                    })
                })
                .collect();
            let next = layer_of.len() as u16;
            out.layers.push(*layer_of.entry(layer).or_insert(next));
            out.polygons.push(ring);
            out.areas.push(area);
        }
        out
    }
}

/// The triangles a tile is baked from: those of `classified` whose XZ boxes meet `rect` grown by
/// `reach`, in their original order, and every area volume; and the indices of its walkable
/// triangles.
fn tile_input(classified: &Classified, grids: &InputGrids, rect: Box2, reach: f64) -> (Classified, Vec<u32>) {
    let grown = [rect[0] - reach, rect[1] - reach, rect[2] + reach, rect[3] + reach];
    let meets = |b: &Box2| b[0] <= grown[2] && b[2] >= grown[0] && b[1] <= grown[3] && b[3] >= grown[1];
    let pick = |grid: &BoxGrid, boxes: &[Box2]| {
        let mut near = Vec::new();
        grid.query_shared(&grown, &mut near);
        near.retain(|&i| meets(&boxes[i as usize]));
        near
    };
    let walkable = pick(&grids.walkable.0, &grids.walkable.1);
    let blocking = pick(&grids.blocking.0, &grids.blocking.1);
    let obstacles = pick(&grids.obstacles.0, &grids.obstacles.1);
    let hulls = pick(&grids.hulls.0, &grids.hulls.1);
    let input = Classified {
        walkable: walkable.iter().map(|&i| classified.walkable[i as usize]).collect(),
        blocking: blocking.iter().map(|&i| classified.blocking[i as usize]).collect(),
        obstacles: obstacles.iter().map(|&i| classified.obstacles[i as usize]).collect(),
        hulls: hulls.iter().map(|&i| classified.hulls[i as usize].clone()).collect(),
        volumes: classified.volumes.clone(),
    };
    (input, walkable)
}

/// Box grids over the three triangle lists and the hull obstacles of the classify stage, shared
/// by the tiles.
struct InputGrids {
    walkable: (BoxGrid, Vec<Box2>),
    blocking: (BoxGrid, Vec<Box2>),
    obstacles: (BoxGrid, Vec<Box2>),
    hulls: (BoxGrid, Vec<Box2>),
}

impl InputGrids {
    fn new(c: &Classified) -> InputGrids {
        let grid = |boxes: Vec<Box2>| (BoxGrid::new(&boxes, BOX_GRID_ITEMS_PER_CELL), boxes);
        InputGrids {
            walkable: grid(c.walkable.iter().map(|w| triangle_box(&w.vertices)).collect()),
            blocking: grid(c.blocking.iter().map(triangle_box).collect()),
            obstacles: grid(c.obstacles.iter().map(triangle_box).collect()),
            hulls: grid(c.hulls.iter().map(|h| h.xz_box()).collect()),
        }
    }
}

/// FNV-1a 64 over everything a tile's output depends on: a tag, the asset format and this
/// crate's version, the settings (as JSON), the tile's place, its input triangles (exact bits,
/// in order), their layering and surface groups, and the area volumes.
pub fn tile_hash(
    settings: &BakeSettings,
    x: i32,
    z: i32,
    input: &Classified,
    (layering, groups): (&Layering, &[u32]),
) -> u64 {
    let mut h = Fnv::new();
    // The tag changes whenever a tile bakes differently from the same inputs (2: cut after
    // simplifying), so that assets of older bakes are not reused.
    h.bytes(b"meadow-bake tile 2");
    h.bytes(&meadow::asset::FORMAT_VERSION.to_le_bytes());
    h.bytes(env!("CARGO_PKG_VERSION").as_bytes());
    h.bytes(serde_json::to_string(settings).unwrap_or_default().as_bytes());
    h.bytes(&x.to_le_bytes());
    h.bytes(&z.to_le_bytes());
    let triangle =
        |h: &mut Fnv, t: &[[f64; 3]; 3]| t.iter().flatten().for_each(|c| h.bytes(&c.to_bits().to_le_bytes()));
    h.bytes(&(input.walkable.len() as u64).to_le_bytes());
    for w in &input.walkable {
        triangle(&mut h, &w.vertices);
        h.bytes(&w.area.to_le_bytes());
    }
    for list in [&input.blocking, &input.obstacles] {
        h.bytes(&(list.len() as u64).to_le_bytes());
        list.iter().for_each(|t| triangle(&mut h, t));
    }
    // Only when there are any: hull obstacles add nothing to the hash of a tile without them
    // (the format version and the settings, also hashed, decide whether older assets serve).
    if !input.hulls.is_empty() {
        h.bytes(b"hulls");
        h.bytes(&(input.hulls.len() as u64).to_le_bytes());
    }
    for hull in &input.hulls {
        h.bytes(&(hull.outline.len() as u64).to_le_bytes());
        hull.outline
            .iter()
            .flatten()
            .chain([&hull.y_min, &hull.y_max])
            .for_each(|c| h.bytes(&c.to_bits().to_le_bytes()));
    }
    for &l in &layering.layer_of {
        h.bytes(&l.to_le_bytes());
    }
    for c in &layering.conflicts_with {
        h.bytes(&(c.len() as u64).to_le_bytes());
        c.iter().for_each(|l| h.bytes(&l.to_le_bytes()));
    }
    h.bytes(&(layering.seams.len() as u64).to_le_bytes());
    for &(a, b) in &layering.seams {
        h.bytes(&a.to_le_bytes());
        h.bytes(&b.to_le_bytes());
    }
    h.bytes(&(layering.ceilings.len() as u64).to_le_bytes());
    for &(t, l) in &layering.ceilings {
        h.bytes(&t.to_le_bytes());
        h.bytes(&l.to_le_bytes());
    }
    for &g in groups {
        h.bytes(&g.to_le_bytes());
    }
    h.bytes(&(input.volumes.len() as u64).to_le_bytes());
    for v in &input.volumes {
        h.bytes(&v.area.to_le_bytes());
        h.bytes(&v.y_min.to_bits().to_le_bytes());
        h.bytes(&v.y_max.to_bits().to_le_bytes());
        h.bytes(&(v.triangles.len() as u64).to_le_bytes());
        v.triangles.iter().for_each(|t| triangle(&mut h, t));
    }
    h.0
}

/// What baking one tile gives: its mesh, the free area each volume painted in its input (the
/// tile grown by its margin), and its budget estimates (region vertices after splitting,
/// triangles).
struct BakedTile {
    mesh: TileMesh,
    painted: Vec<f64>,
    region_vertices: u64,
    triangles: u64,
}

/// Bakes one tile from its input triangles: region, simplify, cut to `rect` ([`clip`]), split
/// long edges, polygons; then the canonical form.
fn bake_tile(
    input: &Classified,
    (layering, groups): (Layering, &[u32]),
    (x, z, hash): (i32, i32, u64),
    rect: Box2,
    settings: &BakeSettings,
    budgets: &Budgets,
) -> Result<BakedTile, BakeError> {
    let empty = |painted| BakedTile {
        mesh: TileMesh { x, z, hash, ..TileMesh::default() },
        painted,
        region_vertices: 0,
        triangles: 0,
    };
    if input.walkable.is_empty() {
        return Ok(empty(vec![0.0; input.volumes.len()]));
    }
    let params = RegionParams::from(settings);
    // The free area of the tile's whole input, simplified as an untiled bake simplifies (chains
    // within half-metre cells), then cut to the tile: near the tile both are the whole level's.
    let regions = region::build_regions_layered(
        input,
        Some(layering),
        Some(groups),
        &params,
        budgets.region_vertices,
        &mut NoProgress,
    )?;
    let simplify_params = SimplifyParams::from(settings);
    let simplified = simplify::simplify_regions_unsplit(&regions, &simplify_params, &mut NoProgress);
    let clipped = clip::clip_regions(&simplified, rect);
    if clipped.areas.is_empty() {
        return Ok(empty(regions.painted));
    }
    let region_vertices = simplify::split_vertex_estimate(&clipped, settings.max_edge_length);
    if region_vertices > budgets.region_vertices {
        return Err(BudgetExceeded::region_vertices(budgets.region_vertices).into());
    }
    let simplified = simplify::split_regions(&clipped, simplify_params.max_edge);
    let triangles = polygons::triangle_estimate(&simplified);
    if triangles > budgets.polygons {
        return Err(BudgetExceeded::polygons(budgets.polygons).into());
    }
    let walkable: &[WalkableTriangle] = &input.walkable;
    let mesh = polygons::build_polygons(
        PolygonInput { regions: &simplified, walkable },
        &PolygonParams::from(settings),
        &mut NoProgress,
    )?;
    let polys = (0..mesh.polygons.len()).map(|p| (mesh.polygons[p].clone(), mesh.areas[p], mesh.layers[p])).collect();
    let vertex = |v: u32| {
        let [px, pz] = mesh.vertices[v as usize];
        [px, mesh.heights[v as usize], pz]
    };
    Ok(BakedTile {
        mesh: TileMesh::canonical(x, z, hash, vertex, polys),
        painted: regions.painted,
        region_vertices,
        triangles,
    })
}

/// What [`bake_tiles`] gives: the tiles' meshes in row-major order, and per area volume the
/// free area it painted in the inputs of the tiles baked anew, which overlap (`None` when some
/// tile came from a previous asset, whose painting is not known): the bake only asks whether a
/// volume painted anything.
pub struct BakedTiles {
    /// The level's tile grid.
    pub grid: TileGrid,
    /// The tiles' meshes, row-major.
    pub tiles: Vec<TileMesh>,
    /// Free area painted per volume, m².
    pub painted: Option<Vec<f64>>,
}

/// How many tiles bake in one parallel batch between progress reports.
const TILES_PER_BATCH: usize = 16;

/// Bakes the tiles of `classified` (all of them, or those in `only`), taking from `previous`
/// every tile whose input hash is unchanged (when the previous asset was baked with the same
/// settings).
pub fn bake_tiles(
    classified: &Classified,
    settings: &BakeSettings,
    budgets: &Budgets,
    only: Option<TileRange>,
    previous: Option<&NavMesh>,
    progress: &mut dyn Progress,
) -> Result<BakedTiles, BakeError> {
    let bounds = classified
        .walkable
        .iter()
        .map(|w| triangle_box(&w.vertices))
        .fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |a, b| {
            [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
        });
    let grid = TileGrid::over(bounds, settings.tile_size)?;
    let wanted: Vec<(i32, i32)> = grid.tiles().filter(|&(x, z)| only.is_none_or(|r| r.contains(x, z))).collect();
    let reused: BTreeMap<(i32, i32), TileMesh> = match previous {
        Some(p) if p.settings() == settings => tile_meshes_of(p)?.into_iter().map(|t| ((t.x, t.z), t)).collect(),
        _ => BTreeMap::new(),
    };
    progress.begin(Stage::Tiles, wanted.len() as u64);
    let grids = InputGrids::new(classified);
    // Which floor is which is decided once for the whole level: a tile alone would split
    // stairs, ramps and stacked floors into layers differently near its borders.
    let mut layering = layers::assign_layers(&classified.walkable, settings.max_climb);
    // So is which surfaces are ceilings over which layers: a long ramp rises over the floor at
    // its foot, maybe in another tile than its head, and its drop edges concern that floor.
    layering.ceilings = region::level_ceilings(&classified.walkable, &layering.layer_of, &RegionParams::from(settings));
    // So are the surfaces stacked layers split by: they grow from seeds across a whole layer.
    let groups = region::level_plane_groups(&classified.walkable, &layering, settings.max_climb);
    let reach = settings.radius + TILE_MARGIN;
    let mut tiles = Vec::with_capacity(wanted.len());
    let mut painted = vec![0.0; classified.volumes.len()];
    let (mut region_vertices, mut triangles) = (0u64, 0u64);
    let mut all_fresh = true;
    for (b, batch) in wanted.chunks(TILES_PER_BATCH).enumerate() {
        let baked: Vec<Option<BakedTile>> = batch
            .par_iter()
            .map(|&(x, z)| {
                let rect = grid.rect(x, z);
                let (input, walkable) = tile_input(classified, &grids, rect, reach);
                if input.walkable.is_empty() {
                    return Ok(None);
                }
                let layering = layering.restricted(&walkable);
                let groups: Vec<u32> = walkable.iter().map(|&t| groups[t as usize]).collect();
                let hash = tile_hash(settings, x, z, &input, (&layering, &groups));
                if let Some(old) = reused.get(&(x, z)).filter(|t| t.hash == hash) {
                    return Ok(Some(BakedTile {
                        mesh: old.clone(),
                        painted: Vec::new(),
                        region_vertices: 0,
                        triangles: 0,
                    }));
                }
                bake_tile(&input, (layering, &groups), (x, z, hash), rect, settings, budgets).map(Some)
            })
            .collect::<Result<_, BakeError>>()?;
        for tile in baked.into_iter().flatten() {
            if tile.painted.len() == painted.len() {
                painted.iter_mut().zip(&tile.painted).for_each(|(a, b)| *a += b);
            } else {
                all_fresh = false;
            }
            region_vertices = region_vertices.saturating_add(tile.region_vertices);
            triangles = triangles.saturating_add(tile.triangles);
            tiles.push(tile.mesh);
        }
        if region_vertices > budgets.region_vertices {
            return Err(BudgetExceeded::region_vertices(budgets.region_vertices).into());
        }
        if triangles > budgets.polygons {
            return Err(BudgetExceeded::polygons(budgets.polygons).into());
        }
        progress.advance(Stage::Tiles, ((b + 1) * TILES_PER_BATCH).min(wanted.len()) as u64);
    }
    progress.finish(Stage::Tiles);
    Ok(BakedTiles { grid, tiles, painted: all_fresh.then_some(painted) })
}

/// The tiles of a tiled asset in canonical form, as they were before stitching.
pub fn tile_meshes_of(nav: &NavMesh) -> Result<Vec<TileMesh>, TileError> {
    let d = nav.data();
    let mut out = Vec::with_capacity(d.tiles.len());
    for t in &d.tiles {
        let polygons = &d.polygons[t.first_polygon as usize..(t.first_polygon + t.polygon_count) as usize];
        let base_slot = polygons.first().map_or(0, |p| p.first);
        let base_layer = polygons.first().map_or(0, |p| p.layer);
        let mut stitched = t.stitched.iter().peekable();
        let mut rings = Vec::with_capacity(polygons.len());
        for p in polygons {
            let mut ring = Vec::with_capacity(p.vertex_count as usize);
            for slot in p.first..p.first + p.vertex_count as u32 {
                if stitched.peek().is_some_and(|&&s| s == slot - base_slot) {
                    stitched.next();
                } else {
                    ring.push(d.polygon_vertices[slot as usize]);
                }
            }
            let Some(layer) = p.layer.checked_sub(base_layer) else {
                return Err(TileError::Unreadable {
                    x: t.x,
                    z: t.z,
                    reason: "its layers do not start at its first polygon",
                });
            };
            if ring.len() < 3 {
                return Err(TileError::Unreadable {
                    x: t.x,
                    z: t.z,
                    reason: "a polygon has fewer than 3 own vertices",
                });
            }
            rings.push((ring, p.area, layer));
        }
        let mesh = TileMesh::canonical(t.x, t.z, t.hash, |v| d.vertices[v as usize], rings);
        // Layers were numbered in order of first use from the first polygon's: renumbering them
        // must give the same numbers, or the asset was not written by a tiled bake.
        let layers_kept = polygons.iter().zip(&mesh.layers).all(|(p, &l)| p.layer - base_layer == l);
        if !layers_kept {
            return Err(TileError::Unreadable {
                x: t.x,
                z: t.z,
                reason: "its layers are not numbered in order of use",
            });
        }
        out.push(mesh);
    }
    Ok(out)
}

/// The stitched mesh of tiles in row-major order, and their sections (hash, polygon runs,
/// stitched vertices) for the asset.
pub struct Stitched {
    /// The welded polygons of every tile, tile by tile.
    pub mesh: PolygonMesh,
    /// One section per tile, in the order given.
    pub sections: Vec<TileSection>,
}

/// Why tiles cannot be stitched.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StitchError {
    /// The tiles together use more layers than an asset numbers.
    #[error("the tiles use {count} layers together, more than the 65536 an asset holds: choose a larger tile_size")]
    TooManyLayers {
        /// Layers used.
        count: u64,
    },
    /// Two tiles have the same place, or the tiles are not in row-major order.
    #[error("tile ({x}, {z}) is given twice or out of order")]
    Order {
        /// Tile column.
        x: i32,
        /// Tile row.
        z: i32,
    },
}

/// Welds `tiles` (row-major, each canonical) into one mesh, numbering their layers one after the
/// other, and inserts into every border edge the other side's border vertices that lie inside
/// it (see the module docs). `size` is the tile edge, `max_climb` the welding height.
pub fn stitch(tiles: &[TileMesh], size: f64, max_climb: f64, max_verts: usize) -> Result<Stitched, StitchError> {
    for w in tiles.windows(2) {
        if (w[0].z, w[0].x) >= (w[1].z, w[1].x) {
            return Err(StitchError::Order { x: w[1].x, z: w[1].z });
        }
    }
    let mut mesh = PolygonMesh::default();
    let mut index = VertexIndex::new(max_climb);
    let mut runs = Vec::with_capacity(tiles.len());
    let mut layer_base = 0u64;
    for t in tiles {
        let first = mesh.polygons.len();
        let xz: Vec<[f64; 2]> = t.vertices.iter().map(|v| [v[0], v[2]]).collect();
        let heights: Vec<f64> = t.vertices.iter().map(|v| v[1]).collect();
        let layers = t.layers.iter().map(|&l| l as u64).max().map_or(0, |m| m + 1);
        if layer_base + layers > u16::MAX as u64 + 1 {
            return Err(StitchError::TooManyLayers { count: layer_base + layers });
        }
        let labels: Vec<(u16, u16)> =
            t.areas.iter().zip(&t.layers).map(|(&a, &l)| (a, (layer_base + l as u64) as u16)).collect();
        mesh.add_labelled(&xz, &heights, &t.polygons, &labels, &mut index);
        layer_base += layers;
        runs.push(first..mesh.polygons.len());
    }
    let stitched = insert_border_vertices(&mut mesh, tiles, &runs, size, max_climb, max_verts);
    let sections = tiles
        .iter()
        .zip(&runs)
        .zip(stitched)
        .map(|((t, run), stitched)| TileSection {
            x: t.x,
            z: t.z,
            first_polygon: run.start as u32,
            polygon_count: run.len() as u32,
            hash: t.hash,
            stitched,
        })
        .collect();
    Ok(Stitched { mesh, sections })
}

/// A tile border line: `axis` 0 is the line `x = coordinate`, 1 the line `z = coordinate`;
/// the coordinate as f64 bits (border coordinates are exact grid values).
type BorderLine = (u8, u64);

/// Inserts into each polygon edge that lies on a side of its tile the vertices of other tiles'
/// edges on the same line that lie strictly inside it at a height within `max_climb` of the
/// edge's; returns per tile the offsets of the inserted vertices within its run of vertex slots.
/// A polygon that would exceed `max_verts` (at most 12) keeps its edge (a wall there).
fn insert_border_vertices(
    mesh: &mut PolygonMesh,
    tiles: &[TileMesh],
    runs: &[std::ops::Range<usize>],
    size: f64,
    max_climb: f64,
    max_verts: usize,
) -> Vec<Vec<u32>> {
    // The side lines of a tile, and which of them an edge lies on.
    let sides = |t: &TileMesh| {
        let (x0, z0, x1, z1) = (border(t.x, size), border(t.z, size), border(t.x + 1, size), border(t.z + 1, size));
        [(0u8, x0), (0, x1), (1, z0), (1, z1)]
    };
    let on_line = |p: [f64; 2], (axis, c): (u8, f64)| p[axis as usize] == c;
    // Every vertex of a border edge, per line, sorted along it.
    let mut on_lines: BTreeMap<BorderLine, Vec<(f64, u32)>> = BTreeMap::new();
    for (t, run) in tiles.iter().zip(runs) {
        let lines = sides(t);
        for poly in &mesh.polygons[run.clone()] {
            for k in 0..poly.len() {
                let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
                let (pa, pb) = (mesh.vertices[a as usize], mesh.vertices[b as usize]);
                for &line in &lines {
                    if on_line(pa, line) && on_line(pb, line) {
                        let along = 1 - line.0 as usize;
                        let list = on_lines.entry((line.0, line.1.to_bits())).or_default();
                        list.push((pa[along], a));
                        list.push((pb[along], b));
                    }
                }
            }
        }
    }
    for list in on_lines.values_mut() {
        list.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        list.dedup();
    }
    let mut stitched = vec![Vec::new(); tiles.len()];
    for ((t, run), out) in tiles.iter().zip(runs).zip(&mut stitched) {
        let lines = sides(t);
        let mut slot = 0u32;
        for p in run.clone() {
            let poly = mesh.polygons[p].clone();
            let mut ring = Vec::with_capacity(poly.len());
            let mut inserted = Vec::new();
            for k in 0..poly.len() {
                let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
                ring.push(a);
                let (pa, pb) = (mesh.vertices[a as usize], mesh.vertices[b as usize]);
                let Some(&line) = lines.iter().find(|&&l| on_line(pa, l) && on_line(pb, l)) else { continue };
                let along = 1 - line.0 as usize;
                let (lo, hi) = (pa[along].min(pb[along]), pa[along].max(pb[along]));
                let list = &on_lines[&(line.0, line.1.to_bits())];
                let start = list.partition_point(|e| e.0 <= lo);
                let end = list.partition_point(|e| e.0 < hi);
                // An edge whose ends share their place along the line (two heights at one XZ,
                // in an asset read back) holds nothing strictly inside.
                if start >= end {
                    continue;
                }
                let (ha, hb) = (mesh.heights[a as usize], mesh.heights[b as usize]);
                let mut between: Vec<(f64, u32)> = list[start..end]
                    .iter()
                    .filter(|&&(s, v)| {
                        let f = (s - pa[along]) / (pb[along] - pa[along]);
                        (mesh.heights[v as usize] - (ha + (hb - ha) * f)).abs() <= max_climb
                    })
                    .copied()
                    .collect();
                // One vertex per position along the edge (the lowest index).
                between.dedup_by(|x, y| x.0 == y.0);
                if pa[along] > pb[along] {
                    between.reverse();
                }
                for (_, v) in between {
                    inserted.push(ring.len());
                    ring.push(v);
                }
            }
            if !inserted.is_empty() && ring.len() <= max_verts.min(12) {
                out.extend(inserted.iter().map(|&i| slot + i as u32));
                mesh.polygons[p] = ring;
            }
            slot += mesh.polygons[p].len() as u32;
        }
    }
    stitched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borders_are_grid_values_shared_by_both_tiles() {
        for size in [2.4, 64.0, 100.0 / 3.0] {
            for i in [-5, -1, 0, 1, 7, 1000] {
                let b = border(i, size);
                assert_eq!((b * GRID_SCALE).fract(), 0.0);
                assert!((b - i as f64 * size).abs() <= 0.5 / GRID_SCALE);
                let g = TileGrid { size, columns: i - 1..i + 1, rows: 0..1 };
                assert_eq!(g.rect(i - 1, 0)[2], g.rect(i, 0)[0]);
            }
        }
    }

    #[test]
    fn the_grid_covers_the_bounds_and_refuses_too_many_tiles() {
        let g = TileGrid::over([-10.0, 0.0, 130.0, 63.9], 64.0).unwrap();
        assert_eq!((g.columns.clone(), g.rows.clone()), (-1..3, 0..1));
        assert_eq!(g.tiles().collect::<Vec<_>>(), vec![(-1, 0), (0, 0), (1, 0), (2, 0)]);
        let err = TileGrid::over([0.0, 0.0, 1000.0, 1000.0], 1.0).unwrap_err();
        assert!(matches!(err, TileError::TooMany { count: 1_002_001, .. }), "{err:?}");
        assert!(err.to_string().contains("tile_size"));
    }
}
