//! Detour's tile cache with temporary obstacles, as RecastDemo's temporary obstacle sample
//! (`Sample_TempObstacles`) builds it: per tile, the level's triangles rasterised, filtered and
//! eroded by the agent radius, cut into heightfield layers and stored in the cache; a navmesh of
//! all tiles built from the cache; box obstacles marked into the layers of the tiles they touch,
//! whose navmesh tiles `dtTileCache::update` then rebuilds.
//!
//! Differences from the sample: the layers are compressed with LZ4 (the `lz4_flex` crate) where
//! the sample uses FastLZ, a compressor of the same kind (byte-oriented LZ77, fast to
//! decompress), or stored as they are ([`LayerCompression::None`], which spares every rebuild a
//! decompression); and the cache allocates with Detour's default allocator (the sample's linear
//! allocator only saves the per-build `malloc` calls). The virtual classes come from the sys
//! crate's forwarding wrappers, with their methods written here.

use super::{check, tile_box, BakeFailed, DetourMesh, Intermediates, RecastInput, RecastSettings};
use crate::carving::DynamicNavigation;
use crate::obstacles::BoxObstacle;
use meadow_bake::ingest::Scene;
use recastnavigation_sys as rc;
use std::os::raw::{c_int, c_uchar, c_ushort, c_void};
use std::ptr;

/// Detour's search box around a query point (RecastDemo's pick extents, as in `vs_detour`).
pub const PICK_EXTENTS: [f32; 3] = [2.0, 4.0, 2.0];
/// Tile side in cells (the issue's 32 cells: 9.6 m at cell size 0.3).
pub const TILE_CELLS: i32 = 32;
/// Obstacles the cache holds at once: the benchmark's 100 with room to spare (the sample has
/// 128; a removed obstacle's slot frees only once its tiles are rebuilt).
const MAX_OBSTACLES: c_int = 256;
/// The sample's contour simplification error (cells).
const MAX_SIMPLIFICATION_ERROR: f32 = 1.3;
/// The polygon flag the mesh process gives walkable polygons (the sample's `SAMPLE_POLYFLAGS_WALK`;
/// Detour's default filter includes every flag, and a polygon with none is never entered).
const WALK_FLAG: c_ushort = 1;
/// The area the mesh process gives walkable polygons (the sample's `SAMPLE_POLYAREA_GROUND`).
const GROUND_AREA: c_uchar = 0;

/// How the cache stores its tile layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerCompression {
    /// LZ4 blocks, in place of the sample's FastLZ.
    Lz4,
    /// As they are: each rebuild skips decompressing (favours Detour's edit times).
    None,
}

/// Why building or editing the tile cache failed.
#[derive(Debug, thiserror::Error)]
pub enum TileCacheError {
    /// Recast failed while building the tiles' layers.
    #[error(transparent)]
    Bake(#[from] BakeFailed),
    /// A tile cache call returned a failure status.
    #[error("Detour's tile cache failed at {operation} (status {status:#x})")]
    Failed {
        /// The call that failed.
        operation: &'static str,
        /// Detour's status bits.
        status: u32,
    },
    /// `update` still had work after one call per tile layer and per queued request.
    #[error("the tile cache update did not finish within {0} calls")]
    UpdateUnfinished(usize),
}

/// Turns a Detour status into an error naming the call.
fn status_ok(status: rc::dtStatus, operation: &'static str) -> Result<(), TileCacheError> {
    if status & rc::DT_FAILURE != 0 {
        Err(TileCacheError::Failed { operation, status })
    } else {
        Ok(())
    }
}

/// Detour's tile cache, its navmesh and query (owns them all; freed on drop).
pub struct TileCacheMesh {
    // Fields drop in this order: the cache refers to the callbacks, so it goes first.
    cache: Cache,
    /// Kept alive for the cache, which calls them.
    _callbacks: Callbacks,
    /// The navmesh the cache rebuilds, with its query object.
    mesh: DetourMesh,
    /// Half the box a query point searches for its polygon.
    extents: [f32; 3],
    /// Added to every side of a box obstacle: Detour marks cells under the box, not under the
    /// box grown by the agent radius, so the box is grown here.
    radius: f32,
    /// Tile layers in the cache.
    pub layers: usize,
    /// Bytes of (compressed) layer data in the cache.
    pub layer_bytes: usize,
    /// Most `update` calls an edit can need (one per tile layer, plus one per queued request).
    max_update_calls: usize,
}

/// A tile cache, freed on drop.
struct Cache(*mut rc::dtTileCache);

impl Drop for Cache {
    fn drop(&mut self) {
        // SAFETY: null or from dtAllocTileCache, freed once.
        unsafe { rc::dtFreeTileCache(self.0) };
    }
}

/// The cache's allocator, compressor and mesh process (C++ objects forwarding to the functions
/// below), freed on drop.
struct Callbacks {
    alloc: *mut rc::dtTileCacheAlloc,
    compressor: *mut rc::dtTileCacheCompressor,
    process: *mut rc::dtTileCacheMeshProcess,
}

impl Callbacks {
    /// Detour's default allocator, the compressor of `compression` and the sample's mesh process.
    fn new(compression: LayerCompression) -> Result<Callbacks, TileCacheError> {
        // SAFETY: the forwarding objects get 'static functions and no object pointer.
        let c = unsafe {
            Callbacks {
                alloc: rc::CreateDefaultTileCacheAlloc(),
                compressor: match compression {
                    LayerCompression::Lz4 => rc::CreateForwardedTileCacheCompressor(
                        ptr::null_mut(),
                        Some(lz4_max_compressed_size),
                        Some(lz4_compress),
                        Some(lz4_decompress),
                    ),
                    LayerCompression::None => rc::CreateForwardedTileCacheCompressor(
                        ptr::null_mut(),
                        Some(max_compressed_size),
                        Some(compress),
                        Some(decompress),
                    ),
                },
                process: rc::CreateForwardedTileCacheMeshProcess(ptr::null_mut(), Some(process_mesh)),
            }
        };
        if c.alloc.is_null() || c.compressor.is_null() || c.process.is_null() {
            return Err(BakeFailed("tile cache allocation").into());
        }
        Ok(c)
    }
}

impl Drop for Callbacks {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or from its Create function, deleted once.
        unsafe {
            if !self.process.is_null() {
                rc::DeleteTileCacheMeshProcess(self.process);
            }
            if !self.compressor.is_null() {
                rc::DeleteTileCacheCompressor(self.compressor);
            }
            if !self.alloc.is_null() {
                rc::DeleteTileCacheAlloc(self.alloc);
            }
        }
    }
}

/// Layer data of one tile, owned until the cache takes it.
struct LayerData(Vec<(*mut c_uchar, c_int)>);

impl Drop for LayerData {
    fn drop(&mut self) {
        for &(data, _) in &self.0 {
            // SAFETY: each buffer came from dtBuildTileCacheLayer (dtAlloc) and was not handed on.
            unsafe { rc::dtFree(data as *mut c_void) };
        }
    }
}

/// The copying compressor's bound: a layer stays the same size.
unsafe extern "C" fn max_compressed_size(_: *mut c_void, size: c_int) -> c_int {
    size
}

/// Copies `size` bytes into a buffer of `capacity`, recording the size.
///
/// # Safety
/// `from` holds `size` bytes, `to` holds `capacity` bytes, `out` is writable.
unsafe fn copy_layer(from: *const c_uchar, size: c_int, to: *mut c_uchar, capacity: c_int, out: *mut c_int) -> u32 {
    if size < 0 || size > capacity {
        return rc::DT_FAILURE | rc::DT_BUFFER_TOO_SMALL;
    }
    ptr::copy_nonoverlapping(from, to, size as usize);
    *out = size;
    rc::DT_SUCCESS
}

/// The copying compressor's `compress`.
unsafe extern "C" fn compress(
    _: *mut c_void,
    buffer: *const c_uchar,
    size: c_int,
    compressed: *mut c_uchar,
    capacity: c_int,
    compressed_size: *mut c_int,
) -> rc::dtStatus {
    copy_layer(buffer, size, compressed, capacity, compressed_size)
}

/// The copying compressor's `decompress`.
unsafe extern "C" fn decompress(
    _: *mut c_void,
    compressed: *const c_uchar,
    size: c_int,
    buffer: *mut c_uchar,
    capacity: c_int,
    buffer_size: *mut c_int,
) -> rc::dtStatus {
    copy_layer(compressed, size, buffer, capacity, buffer_size)
}

/// LZ4's bound on a block compressed from `size` bytes.
unsafe extern "C" fn lz4_max_compressed_size(_: *mut c_void, size: c_int) -> c_int {
    c_int::try_from(lz4_flex::block::get_maximum_output_size(size.max(0) as usize)).unwrap_or(c_int::MAX)
}

/// Runs an LZ4 block call from a buffer of `size` bytes into one of `capacity`, recording the
/// bytes written; a failure (too small a buffer, corrupt input) is Detour's failure status.
///
/// # Safety
/// `from` holds `size` bytes, `to` holds `capacity` bytes, `out` is writable.
unsafe fn lz4_call<E>(
    from: *const c_uchar,
    size: c_int,
    to: *mut c_uchar,
    capacity: c_int,
    out: *mut c_int,
    call: impl FnOnce(&[u8], &mut [u8]) -> Result<usize, E>,
) -> rc::dtStatus {
    if size < 0 || capacity < 0 {
        return rc::DT_FAILURE | rc::DT_INVALID_PARAM;
    }
    let input = std::slice::from_raw_parts(from, size as usize);
    let output = std::slice::from_raw_parts_mut(to, capacity as usize);
    match call(input, output) {
        // At most `capacity`, a c_int.
        Ok(n) => {
            *out = n as c_int;
            rc::DT_SUCCESS
        }
        Err(_) => rc::DT_FAILURE | rc::DT_BUFFER_TOO_SMALL,
    }
}

/// The LZ4 compressor's `compress`.
unsafe extern "C" fn lz4_compress(
    _: *mut c_void,
    buffer: *const c_uchar,
    size: c_int,
    compressed: *mut c_uchar,
    capacity: c_int,
    compressed_size: *mut c_int,
) -> rc::dtStatus {
    lz4_call(buffer, size, compressed, capacity, compressed_size, lz4_flex::block::compress_into)
}

/// The LZ4 compressor's `decompress`.
unsafe extern "C" fn lz4_decompress(
    _: *mut c_void,
    compressed: *const c_uchar,
    size: c_int,
    buffer: *mut c_uchar,
    capacity: c_int,
    buffer_size: *mut c_int,
) -> rc::dtStatus {
    lz4_call(compressed, size, buffer, capacity, buffer_size, lz4_flex::block::decompress_into)
}

/// The sample's mesh process: walkable polygons become ground with the walk flag.
unsafe extern "C" fn process_mesh(
    _: *mut c_void,
    params: *mut rc::dtNavMeshCreateParams,
    areas: *mut c_uchar,
    flags: *mut c_ushort,
) {
    for i in 0..(*params).polyCount.max(0) as usize {
        if *areas.add(i) == rc::DT_TILECACHE_WALKABLE_AREA {
            *areas.add(i) = GROUND_AREA;
            *flags.add(i) = WALK_FLAG;
        }
    }
}

impl TileCacheMesh {
    /// Builds the tile cache of the scene's triangles with Recast settings `s` (RecastDemo's
    /// temporary obstacle sample with tiles of [`TILE_CELLS`] cells), its layers stored with
    /// `compression`, and the navmesh of all its tiles.
    pub fn build(
        scene: &Scene,
        s: &RecastSettings,
        compression: LayerCompression,
    ) -> Result<TileCacheMesh, TileCacheError> {
        let input = RecastInput::new(scene, s)?;
        let (bmin, bmax, gw, gh) = input.grid(s.cell_size);
        let (tw, th) = ((gw + TILE_CELLS - 1) / TILE_CELLS, (gh + TILE_CELLS - 1) / TILE_CELLS);
        let border = (s.radius / s.cell_size).ceil() as i32 + 3;
        let tile = TILE_CELLS as f32 * s.cell_size;
        let pad = border as f32 * s.cell_size;
        let buckets = input.tile_buckets(bmin, tile, pad, (tw, th));
        let callbacks = Callbacks::new(compression)?;
        // SAFETY: every Recast/Detour pointer is checked for null and owned by a value that
        // frees it on drop from the moment it exists; slices passed match the counts passed.
        unsafe {
            // Every tile's layers first: the cache's and the navmesh's tile counts are their total.
            let mut tiles = Vec::new();
            let (mut tris, mut areas) = (Vec::new(), Vec::new());
            for y in 0..th {
                for x in 0..tw {
                    let bucket = &buckets[(y * tw + x) as usize];
                    if bucket.is_empty() {
                        continue;
                    }
                    input.gather(bucket, &mut tris, &mut areas);
                    let (lo, hi) = tile_box(bmin, bmax, tile, pad, (x, y));
                    tiles.push(tile_layers(
                        callbacks.compressor,
                        (&input.verts, &tris, &areas),
                        (lo, hi, TILE_CELLS + 2 * border, border),
                        (x, y),
                        s,
                    )?);
                }
            }
            let layers: usize = tiles.iter().map(|t| t.0.len()).sum();
            let layer_bytes = tiles.iter().flat_map(|t| &t.0).map(|&(_, n)| n as usize).sum();
            let mut params: rc::dtTileCacheParams = std::mem::zeroed();
            params.orig = bmin;
            params.cs = s.cell_size;
            params.ch = s.cell_height;
            params.width = TILE_CELLS;
            params.height = TILE_CELLS;
            params.walkableHeight = s.height;
            params.walkableRadius = s.radius;
            params.walkableClimb = s.climb;
            params.maxSimplificationError = MAX_SIMPLIFICATION_ERROR;
            params.maxTiles = layers.max(1).next_power_of_two() as c_int;
            params.maxObstacles = MAX_OBSTACLES;
            let cache = Cache(rc::dtAllocTileCache());
            if cache.0.is_null() {
                return Err(BakeFailed("tile cache allocation").into());
            }
            status_ok(
                (*cache.0).init(&params, callbacks.alloc, callbacks.compressor, callbacks.process),
                "tile cache init",
            )?;
            for tile in &mut tiles {
                // Taken one at a time, so the layers not yet handed over stay in `tile` (freed by
                // its drop if one fails).
                tile.0.reverse();
                while let Some((data, size)) = tile.0.pop() {
                    let flags = rc::dtCompressedTileFlags_DT_COMPRESSEDTILE_FREE_DATA as c_uchar;
                    let status = (*cache.0).addTile(data, size, flags, ptr::null_mut());
                    if status & rc::DT_FAILURE != 0 {
                        rc::dtFree(data as *mut c_void);
                        return Err(TileCacheError::Failed { operation: "add tile", status });
                    }
                }
            }
            // Detour's polygon references hold 22 bits of tile and polygon index (the sample's
            // split, from the tile count).
            let tile_bits = (usize::BITS - layers.max(1).next_power_of_two().leading_zeros() - 1).clamp(1, 14);
            let nav = rc::dtAllocNavMesh();
            if nav.is_null() {
                return Err(BakeFailed("Detour allocation").into());
            }
            let mut nav_params: rc::dtNavMeshParams = std::mem::zeroed();
            nav_params.orig = bmin;
            nav_params.tileWidth = tile;
            nav_params.tileHeight = tile;
            nav_params.maxTiles = 1 << tile_bits;
            nav_params.maxPolys = 1 << (22 - tile_bits);
            if (*nav).init(&nav_params) & rc::DT_FAILURE != 0 {
                rc::dtFreeNavMesh(nav);
                return Err(BakeFailed("Detour tiled navmesh init").into());
            }
            let mesh = DetourMesh::with_query(nav, 0)?;
            for y in 0..th {
                for x in 0..tw {
                    status_ok((*cache.0).buildNavMeshTilesAt(x, y, mesh.nav), "build navmesh tiles")?;
                }
            }
            let mut built = TileCacheMesh {
                cache,
                _callbacks: callbacks,
                mesh,
                extents: PICK_EXTENTS,
                radius: s.radius,
                layers,
                layer_bytes,
                max_update_calls: layers + MAX_OBSTACLES as usize,
            };
            built.mesh.polygons = built.navmesh_tiles().0;
            Ok(built)
        }
    }

    /// Detour's navmesh tiles now (`(polygons, data bytes)` summed over them).
    fn navmesh_tiles(&self) -> (usize, usize) {
        // SAFETY: the navmesh is live; getTile gives a tile record for every index below
        // getMaxTiles, with a null header when the slot is empty.
        unsafe {
            let nav = &*self.mesh.nav;
            (0..nav.getMaxTiles())
                .map(|i| nav.getTile(i))
                .filter(|&tile| !tile.is_null() && !(*tile).header.is_null())
                .map(|tile| ((*(*tile).header).polyCount.max(0) as usize, (*tile).dataSize.max(0) as usize))
                .fold((0, 0), |(p, b), (tp, tb)| (p + tp, b + tb))
        }
    }
}

/// The compressed layers of tile `(x, y)`: the triangles rasterised into the box `lo..hi` of
/// `side` x `side` cells (`border` of them the overlap with the neighbours), filtered, eroded
/// and cut into heightfield layers.
///
/// # Safety
/// `compressor` is live; `tris` indexes `verts`.
unsafe fn tile_layers(
    compressor: *mut rc::dtTileCacheCompressor,
    input: (&[f32], &[i32], &[u8]),
    (lo, hi, side, border): ([f32; 3], [f32; 3], i32, i32),
    (x, y): (i32, i32),
    s: &RecastSettings,
) -> Result<LayerData, TileCacheError> {
    let m = Intermediates::new()?;
    super::build_compact(&m, input, (lo, hi, side, side), s)?;
    let walkable_height = (s.height / s.cell_height).ceil() as i32;
    let set = LayerSet(rc::rcAllocHeightfieldLayerSet());
    if set.0.is_null() {
        return Err(BakeFailed("allocation").into());
    }
    check(rc::rcBuildHeightfieldLayers(m.ctx, m.chf, border, walkable_height, set.0), "heightfield layers")?;
    let count = (*set.0).nlayers.max(0) as usize;
    let mut out = LayerData(Vec::with_capacity(count));
    for i in 0..count {
        let layer = &*(*set.0).layers.add(i);
        let mut header: rc::dtTileCacheLayerHeader = std::mem::zeroed();
        header.magic = rc::DT_TILECACHE_MAGIC;
        header.version = rc::DT_TILECACHE_VERSION;
        header.tx = x;
        header.ty = y;
        header.tlayer = i as c_int;
        header.bmin = layer.bmin;
        header.bmax = layer.bmax;
        // A layer is at most `side` (< 256) cells a side and its heights fit 16 bits, as the
        // sample assumes.
        header.width = layer.width as c_uchar;
        header.height = layer.height as c_uchar;
        header.minx = layer.minx as c_uchar;
        header.maxx = layer.maxx as c_uchar;
        header.miny = layer.miny as c_uchar;
        header.maxy = layer.maxy as c_uchar;
        header.hmin = layer.hmin as c_ushort;
        header.hmax = layer.hmax as c_ushort;
        let (mut data, mut size) = (ptr::null_mut(), 0);
        status_ok(
            rc::dtBuildTileCacheLayer(
                compressor,
                &mut header,
                layer.heights,
                layer.areas,
                layer.cons,
                &mut data,
                &mut size,
            ),
            "build tile cache layer",
        )?;
        out.0.push((data, size));
    }
    Ok(out)
}

/// A heightfield layer set, freed on drop.
struct LayerSet(*mut rc::rcHeightfieldLayerSet);

impl Drop for LayerSet {
    fn drop(&mut self) {
        // SAFETY: null or from rcAllocHeightfieldLayerSet, freed once.
        unsafe { rc::rcFreeHeightfieldLayerSet(self.0) };
    }
}

impl DynamicNavigation for TileCacheMesh {
    type Handle = rc::dtObstacleRef;
    type Error = TileCacheError;

    /// `addBoxObstacle` with the box grown by the agent radius in X and Z.
    fn add(&mut self, obstacle: &BoxObstacle) -> Result<rc::dtObstacleRef, TileCacheError> {
        let [lo, hi] = obstacle.xz_bounds();
        let [y0, y1] = obstacle.y_range();
        let r = self.radius;
        let bmin = [lo[0] as f32 - r, y0 as f32, lo[1] as f32 - r];
        let bmax = [hi[0] as f32 + r, y1 as f32, hi[1] as f32 + r];
        let mut handle = 0;
        // SAFETY: the cache is live; the boxes are 3 floats each.
        let status = unsafe { (*self.cache.0).addBoxObstacle(bmin.as_ptr(), bmax.as_ptr(), &mut handle) };
        status_ok(status, "add box obstacle")?;
        Ok(handle)
    }

    /// The tile cache has no move: remove, then add.
    fn move_to(&mut self, handle: &mut rc::dtObstacleRef, obstacle: &BoxObstacle) -> Result<(), TileCacheError> {
        self.remove(*handle)?;
        *handle = self.add(obstacle)?;
        Ok(())
    }

    fn remove(&mut self, handle: rc::dtObstacleRef) -> Result<(), TileCacheError> {
        // SAFETY: the cache is live.
        status_ok(unsafe { (*self.cache.0).removeObstacle(handle) }, "remove obstacle")
    }

    /// `dtTileCache::update` until it reports the navmesh up to date (each call rebuilds one
    /// tile layer).
    fn update(&mut self) -> Result<(), TileCacheError> {
        for _ in 0..self.max_update_calls {
            let mut done = false;
            // SAFETY: the cache and navmesh are live.
            let status = unsafe { (*self.cache.0).update(0.0, self.mesh.nav, &mut done) };
            status_ok(status, "update")?;
            if done {
                return Ok(());
            }
        }
        Err(TileCacheError::UpdateUnfinished(self.max_update_calls))
    }

    /// `findNearestPoly` for both ends, `findPath` and `findStraightPath` (as `vs_detour`).
    fn path(&mut self, from: [f64; 3], to: [f64; 3]) -> Option<f64> {
        self.mesh.path_length(from, to, self.extents)
    }

    fn polygon_count(&self) -> usize {
        self.navmesh_tiles().0
    }

    /// The cache's (compressed) layers and the navmesh's tile data (not the query's node pool).
    fn memory_bytes(&self) -> Option<usize> {
        Some(self.layer_bytes + self.navmesh_tiles().1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meadow_bake::ingest::{NavTag, SceneTriangle};
    use meadow_bake::{ingest, NoProgress};

    /// Three rooms in a row along x, joined by doorways at z = 0 (see `fixtures/levels/README.md`);
    /// the 2 m doorway between rooms B and C is their only connection.
    fn rooms(compression: LayerCompression) -> TileCacheMesh {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/levels/rooms.glb");
        let scene = ingest::ingest_file(&path, &mut NoProgress).expect("the rooms fixture");
        TileCacheMesh::build(&scene, &RecastSettings::DEMO, compression).expect("Detour's tile cache builds")
    }

    #[test]
    fn lz4_layers_are_smaller_and_give_the_same_navmesh() {
        let (lz4, stored) = (rooms(LayerCompression::Lz4), rooms(LayerCompression::None));
        assert_eq!(lz4.layers, stored.layers);
        assert!(lz4.layer_bytes < stored.layer_bytes, "{} against {}", lz4.layer_bytes, stored.layer_bytes);
        // Every rebuild decompresses: the same navmesh either way.
        assert_eq!(lz4.navmesh_tiles(), stored.navmesh_tiles());
    }

    /// Two corridors 3 m wide, joined at both ends, seen from above (x to the right, z up):
    ///
    /// ```text
    ///  z = 4  +--------------------------------------+
    ///         |            north corridor            |
    ///  z = 1  |     +------------------------+       |
    ///         |     |   wall block, 3 m high |       |
    ///  z = -1 |     +------------------------+       |
    ///         |   a ->      south corridor     -> b  |
    ///  z = -4 +--------------------------------------+
    ///       x = -10  -6                      6     10
    /// ```
    fn two_corridors() -> Scene {
        let mut scene = Scene::default();
        let mut quad = |c: [[f64; 3]; 4], tag: NavTag| {
            for tri in [[c[0], c[1], c[2]], [c[0], c[2], c[3]]] {
                scene.triangles.push(SceneTriangle { vertices: tri, tag, area: 0, node: 0 });
            }
        };
        // Wound so that Recast's normal, (v1 - v0) x (v2 - v0), points up.
        quad([[-10.0, 0.0, -4.0], [-10.0, 0.0, 4.0], [10.0, 0.0, 4.0], [10.0, 0.0, -4.0]], NavTag::Auto);
        let (x, y, z) = ([-6.0, 6.0], [0.0, 3.0], [-1.0, 1.0]);
        for (a, b) in [
            ([x[0], z[0]], [x[1], z[0]]),
            ([x[1], z[0]], [x[1], z[1]]),
            ([x[1], z[1]], [x[0], z[1]]),
            ([x[0], z[1]], [x[0], z[0]]),
        ] {
            quad([[a[0], y[0], a[1]], [b[0], y[0], b[1]], [b[0], y[1], b[1]], [a[0], y[1], a[1]]], NavTag::Obstacle);
        }
        quad([[x[0], y[1], z[0]], [x[0], y[1], z[1]], [x[1], y[1], z[1]], [x[1], y[1], z[0]]], NavTag::Obstacle);
        scene.nodes.push("corridors".into());
        scene.node_positions.push([0.0; 3]);
        scene
    }

    #[test]
    fn an_obstacle_across_a_corridor_sends_the_path_round_by_the_other_and_removing_it_restores_it() {
        let mut nav = TileCacheMesh::build(&two_corridors(), &RecastSettings::DEMO, LayerCompression::Lz4)
            .expect("Detour's tile cache builds");
        let (a, b) = ([-4.0, 0.0, -2.5], [4.0, 0.0, -2.5]);
        let straight = nav.path(a, b).expect("a path along the south corridor");
        assert!((straight - 8.0).abs() < 0.05, "{straight}");
        // The box grown by the agent radius spans z in [-3.6, -1.4], the whole width the agent's
        // centre has in the south corridor ([-3.4, -1.6]): the path goes round the wall block
        // through the north corridor: at least 2 · (2 + 2.5) + 12 = 21 m, and about 25 m round
        // the block's corners grown by the radius (2 · (2.75 + 3.2) + 13.2 = 25.1 m).
        let id = nav.add(&BoxObstacle::at([0.0, 0.0, -2.5])).unwrap();
        nav.update().unwrap();
        let round = nav.path(a, b).expect("a path by the north corridor");
        assert!((21.0..27.0).contains(&round), "{round} against {straight}");
        nav.remove(id).unwrap();
        nav.update().unwrap();
        assert_eq!(nav.path(a, b), Some(straight));
    }

    #[test]
    fn an_obstacle_on_the_straight_line_makes_the_path_go_round_and_removing_it_restores_it() {
        for compression in [LayerCompression::Lz4, LayerCompression::None] {
            on_the_straight_line(rooms(compression));
        }
    }

    fn on_the_straight_line(mut nav: TileCacheMesh) {
        let (a, b) = ([-2.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
        let straight = nav.path(a, b).expect("a path across room B");
        assert!((straight - 4.0).abs() < 0.05, "{straight}");
        let polygons = nav.polygon_count();
        // The box grown by the agent radius covers x, z in [-1.1, 1.1]: the path passes a
        // corner at z = ±1.1, at least 2 · √(0.9² + 1.1²) + 2.2 ≈ 5.04 m.
        let id = nav.add(&BoxObstacle::at([0.0, 0.0, 0.0])).unwrap();
        nav.update().unwrap();
        let round = nav.path(a, b).expect("a path round the box");
        assert!(round > 4.9, "{round} against {straight}");
        assert_ne!(nav.polygon_count(), polygons);
        nav.remove(id).unwrap();
        nav.update().unwrap();
        assert_eq!(nav.path(a, b), Some(straight));
        assert_eq!(nav.polygon_count(), polygons);
    }

    #[test]
    fn an_obstacle_in_the_only_doorway_disconnects_the_rooms_until_it_moves_away() {
        let mut nav = rooms(LayerCompression::Lz4);
        let (a, b) = ([0.0, 0.0, 0.0], [10.0, 0.0, 0.0]);
        let through = nav.path(a, b).expect("a path through the doorway");
        let id = nav.add(&BoxObstacle::at([5.0, 0.0, 0.0])).unwrap();
        nav.update().unwrap();
        assert_eq!(nav.path(a, b), None);
        // Moved into room A, which no path from B to C enters.
        let mut id = id;
        nav.move_to(&mut id, &BoxObstacle::at([-10.0, 0.0, 0.0])).unwrap();
        nav.update().unwrap();
        assert_eq!(nav.path(a, b), Some(through));
        nav.remove(id).unwrap();
        nav.update().unwrap();
        assert_eq!(nav.path(a, b), Some(through));
    }
}
