//! Recast bakes (RecastDemo's solo mesh sample, and its tile mesh sample) and Detour path queries;
//! the temporary obstacle sample's tile cache in [`tile_cache`].

pub mod tile_cache;

use meadow_bake::ingest::{NavTag, Scene};
use recastnavigation_sys as rc;
use std::ptr;

/// Recast's agent and voxel settings (RecastDemo's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecastSettings {
    /// Cell size in XZ (metres).
    pub cell_size: f32,
    /// Cell height (metres).
    pub cell_height: f32,
    /// Agent radius (metres).
    pub radius: f32,
    /// Agent height (metres).
    pub height: f32,
    /// Maximum step height (metres).
    pub climb: f32,
    /// Maximum walkable slope (degrees).
    pub max_slope: f32,
}

impl RecastSettings {
    /// RecastDemo's defaults: cell 0.3, cell height 0.2, radius 0.6, height 2, climb 0.9, 45°.
    pub const DEMO: RecastSettings =
        RecastSettings { cell_size: 0.3, cell_height: 0.2, radius: 0.6, height: 2.0, climb: 0.9, max_slope: 45.0 };
}

/// Why the Recast bake failed.
#[derive(Debug)]
pub struct BakeFailed(pub &'static str);

impl std::fmt::Display for BakeFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Recast bake failed at {}", self.0)
    }
}

impl std::error::Error for BakeFailed {}

/// A Detour navmesh and its query object (owns both; freed on drop).
pub struct DetourMesh {
    nav: *mut rc::dtNavMesh,
    query: *mut rc::dtNavMeshQuery,
    filter: rc::dtQueryFilter,
    /// Polygons in the navmesh.
    pub polygons: usize,
    path: Vec<rc::dtPolyRef>,
    straight: Vec<f32>,
}

/// Maximum polygons in a corridor and points in a straight path.
const MAX_PATH: usize = 4096;

/// Runs a Recast stage, turning a `false` return into an error naming the stage.
fn check(ok: bool, stage: &'static str) -> Result<(), BakeFailed> {
    if ok {
        Ok(())
    } else {
        Err(BakeFailed(stage))
    }
}

/// Frees Recast's intermediate results however the bake ends.
struct Intermediates {
    ctx: *mut rc::rcContext,
    hf: *mut rc::rcHeightfield,
    chf: *mut rc::rcCompactHeightfield,
    cset: *mut rc::rcContourSet,
    pmesh: *mut rc::rcPolyMesh,
    dmesh: *mut rc::rcPolyMeshDetail,
}

impl Drop for Intermediates {
    fn drop(&mut self) {
        // SAFETY: each pointer is null or came from the matching rcAlloc*/CreateContext call.
        unsafe {
            rc::rcFreeHeightField(self.hf);
            rc::rcFreeCompactHeightfield(self.chf);
            rc::rcFreeContourSet(self.cset);
            rc::rcFreePolyMesh(self.pmesh);
            rc::rcFreePolyMeshDetail(self.dmesh);
            if !self.ctx.is_null() {
                rc::DeleteContext(self.ctx);
            }
        }
    }
}

/// The scene as Recast takes it: vertex coordinates, index triples and per-triangle areas
/// (walkable by slope, obstacle-tagged triangles never).
struct RecastInput {
    verts: Vec<f32>,
    tris: Vec<i32>,
    areas: Vec<u8>,
}

/// The bounds of tile `(x, y)` of side `tile` from `bmin`, grown by `pad` in XZ, spanning the
/// input's height range `bmin[1]..bmax[1]`.
fn tile_box(bmin: [f32; 3], bmax: [f32; 3], tile: f32, pad: f32, (x, y): (i32, i32)) -> ([f32; 3], [f32; 3]) {
    let lo = [bmin[0] + x as f32 * tile - pad, bmin[1], bmin[2] + y as f32 * tile - pad];
    let hi = [bmin[0] + (x + 1) as f32 * tile + pad, bmax[1], bmin[2] + (y + 1) as f32 * tile + pad];
    (lo, hi)
}

impl RecastInput {
    fn new(scene: &Scene, s: &RecastSettings) -> Result<RecastInput, BakeFailed> {
        let mut verts: Vec<f32> = Vec::with_capacity(scene.triangles.len() * 9);
        let mut tris: Vec<i32> = Vec::with_capacity(scene.triangles.len() * 3);
        for t in &scene.triangles {
            for v in t.vertices {
                tris.push((verts.len() / 3) as i32);
                verts.extend(v.iter().map(|&c| c as f32));
            }
        }
        if scene.triangles.is_empty() {
            return Err(BakeFailed("input (no triangles)"));
        }
        let mut areas = vec![0u8; scene.triangles.len()];
        // SAFETY: the slices' lengths match the counts passed; the context is checked for null.
        unsafe {
            let ctx = rc::CreateContext(false);
            if ctx.is_null() {
                return Err(BakeFailed("allocation"));
            }
            rc::rcMarkWalkableTriangles(
                ctx,
                s.max_slope,
                verts.as_ptr(),
                (verts.len() / 3) as i32,
                tris.as_ptr(),
                scene.triangles.len() as i32,
                areas.as_mut_ptr(),
            );
            rc::DeleteContext(ctx);
        }
        for (a, t) in areas.iter_mut().zip(&scene.triangles) {
            if t.tag == NavTag::Obstacle {
                *a = 0;
            }
        }
        Ok(RecastInput { verts, tris, areas })
    }

    /// The triangles of each tile of a `tw` x `th` grid of square tiles of side `tile` from
    /// `bmin`, row-major: those whose XZ boxes grown by `pad` meet the tile.
    fn tile_buckets(&self, bmin: [f32; 3], tile: f32, pad: f32, (tw, th): (i32, i32)) -> Vec<Vec<usize>> {
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); (tw * th) as usize];
        for (t, tri) in self.tris.chunks_exact(3).enumerate() {
            let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
            for &v in tri {
                let p = &self.verts[v as usize * 3..v as usize * 3 + 3];
                lo = [lo[0].min(p[0]), lo[1].min(p[2])];
                hi = [hi[0].max(p[0]), hi[1].max(p[2])];
            }
            let cell = |c: f32, origin: f32, n: i32| (((c - origin) / tile).floor() as i32).clamp(0, n - 1);
            for x in cell(lo[0] - pad, bmin[0], tw)..=cell(hi[0] + pad, bmin[0], tw) {
                for y in cell(lo[1] - pad, bmin[2], th)..=cell(hi[1] + pad, bmin[2], th) {
                    buckets[(y * tw + x) as usize].push(t);
                }
            }
        }
        buckets
    }

    /// Copies the triangles of `bucket` (one of [`Self::tile_buckets`]) and their areas into
    /// `tris` and `areas`, replacing what they held.
    fn gather(&self, bucket: &[usize], tris: &mut Vec<i32>, areas: &mut Vec<u8>) {
        tris.clear();
        areas.clear();
        for &t in bucket {
            tris.extend_from_slice(&self.tris[t * 3..t * 3 + 3]);
            areas.push(self.areas[t]);
        }
    }

    /// The input's bounds and its grid size in cells of `cell_size`.
    fn grid(&self, cell_size: f32) -> ([f32; 3], [f32; 3], i32, i32) {
        let (mut bmin, mut bmax) = ([0f32; 3], [0f32; 3]);
        let (mut w, mut h) = (0, 0);
        // SAFETY: `verts` holds `len / 3` points; the outputs are local arrays of 3 floats.
        unsafe {
            rc::rcCalcBounds(self.verts.as_ptr(), (self.verts.len() / 3) as i32, bmin.as_mut_ptr(), bmax.as_mut_ptr());
            rc::rcCalcGridSize(bmin.as_ptr(), bmax.as_ptr(), cell_size, &mut w, &mut h);
        }
        (bmin, bmax, w, h)
    }
}

/// One Recast build, RecastDemo's pipeline from rasterising to the detail mesh, of the triangles
/// `tris` (with their `areas`) into the box `bmin..bmax` of `w` x `h` cells, `border` of which on
/// each side only feed the regions (a tile's overlap with its neighbours; 0 for a solo mesh).
/// The results stay in `m` (its poly mesh and detail mesh).
///
/// # Safety
/// `m`'s pointers are live Recast allocations; `tris` indexes `verts`.
unsafe fn build_tile(
    m: &Intermediates,
    input: (&[f32], &[i32], &[u8]),
    (bmin, bmax, w, h, border): ([f32; 3], [f32; 3], i32, i32, i32),
    s: &RecastSettings,
) -> Result<(), BakeFailed> {
    build_compact(m, input, (bmin, bmax, w, h), s)?;
    let max_edge_len = (12.0 / s.cell_size) as i32;
    let (max_error, min_region, merge_region, nvp) = (1.3f32, 8 * 8, 20 * 20, 6);
    let (detail_sample_dist, detail_max_error) = (6.0 * s.cell_size, s.cell_height);
    check(rc::rcBuildDistanceField(m.ctx, m.chf), "distance field")?;
    check(rc::rcBuildRegions(m.ctx, m.chf, border, min_region, merge_region), "regions")?;
    check(
        rc::rcBuildContours(
            m.ctx,
            m.chf,
            max_error,
            max_edge_len,
            m.cset,
            rc::rcBuildContoursFlags_RC_CONTOUR_TESS_WALL_EDGES as i32,
        ),
        "contours",
    )?;
    check(rc::rcBuildPolyMesh(m.ctx, m.cset, nvp, m.pmesh), "poly mesh")?;
    check(
        rc::rcBuildPolyMeshDetail(m.ctx, m.pmesh, m.chf, detail_sample_dist, detail_max_error, m.dmesh),
        "detail mesh",
    )
}

/// The first steps of [`build_tile`], shared with the tile cache's layers: rasterise the
/// triangles into the box `bmin..bmax` of `w` x `h` cells, filter the spans, build the compact
/// heightfield and erode it by the agent radius (into `m.chf`).
///
/// # Safety
/// As [`build_tile`].
unsafe fn build_compact(
    m: &Intermediates,
    (verts, tris, areas): (&[f32], &[i32], &[u8]),
    (bmin, bmax, w, h): ([f32; 3], [f32; 3], i32, i32),
    s: &RecastSettings,
) -> Result<(), BakeFailed> {
    let walkable_height = (s.height / s.cell_height).ceil() as i32;
    let walkable_climb = (s.climb / s.cell_height).floor() as i32;
    let walkable_radius = (s.radius / s.cell_size).ceil() as i32;
    check(
        rc::rcCreateHeightfield(m.ctx, m.hf, w, h, bmin.as_ptr(), bmax.as_ptr(), s.cell_size, s.cell_height),
        "heightfield",
    )?;
    check(
        rc::rcRasterizeTriangles(
            m.ctx,
            verts.as_ptr(),
            (verts.len() / 3) as i32,
            tris.as_ptr(),
            areas.as_ptr(),
            areas.len() as i32,
            m.hf,
            walkable_climb,
        ),
        "rasterize",
    )?;
    rc::rcFilterLowHangingWalkableObstacles(m.ctx, walkable_climb, m.hf);
    rc::rcFilterLedgeSpans(m.ctx, walkable_height, walkable_climb, m.hf);
    rc::rcFilterWalkableLowHeightSpans(m.ctx, walkable_height, m.hf);
    check(rc::rcBuildCompactHeightfield(m.ctx, walkable_height, walkable_climb, m.hf, m.chf), "compact")?;
    check(rc::rcErodeWalkableArea(m.ctx, walkable_radius, m.chf), "erode")
}

/// Detour's tile data for the poly mesh and detail mesh in `m`, at tile `(x, y)` (both 0 for a
/// solo mesh); `None` when the tile has no polygon. The caller owns the returned buffer.
///
/// # Safety
/// `m` holds a poly mesh and detail mesh built by [`build_tile`].
unsafe fn tile_data(
    m: &Intermediates,
    s: &RecastSettings,
    (x, y): (i32, i32),
) -> Result<Option<(*mut u8, i32)>, BakeFailed> {
    let pm = &mut *m.pmesh;
    let dm = &*m.dmesh;
    if pm.npolys == 0 {
        return Ok(None);
    }
    for i in 0..pm.npolys as usize {
        // Detour's default filter includes every flag; a polygon needs one to be usable.
        *pm.flags.add(i) = if *pm.areas.add(i) != 0 { 1 } else { 0 };
    }
    let mut params: rc::dtNavMeshCreateParams = std::mem::zeroed();
    params.verts = pm.verts;
    params.vertCount = pm.nverts;
    params.polys = pm.polys;
    params.polyAreas = pm.areas;
    params.polyFlags = pm.flags;
    params.polyCount = pm.npolys;
    params.nvp = pm.nvp;
    params.detailMeshes = dm.meshes;
    params.detailVerts = dm.verts;
    params.detailVertsCount = dm.nverts;
    params.detailTris = dm.tris;
    params.detailTriCount = dm.ntris;
    params.walkableHeight = s.height;
    params.walkableRadius = s.radius;
    params.walkableClimb = s.climb;
    params.tileX = x;
    params.tileY = y;
    params.bmin = pm.bmin;
    params.bmax = pm.bmax;
    params.cs = s.cell_size;
    params.ch = s.cell_height;
    params.buildBvTree = true;
    let mut data: *mut u8 = ptr::null_mut();
    let mut size = 0;
    check(rc::dtCreateNavMeshData(&mut params, &mut data, &mut size), "Detour mesh data")?;
    Ok(Some((data, size)))
}

impl Intermediates {
    /// Fresh Recast allocations for one build.
    fn new() -> Result<Intermediates, BakeFailed> {
        // SAFETY: plain allocations; every pointer is checked (and freed on drop).
        let m = unsafe {
            Intermediates {
                ctx: rc::CreateContext(false),
                hf: rc::rcAllocHeightfield(),
                chf: rc::rcAllocCompactHeightfield(),
                cset: rc::rcAllocContourSet(),
                pmesh: rc::rcAllocPolyMesh(),
                dmesh: rc::rcAllocPolyMeshDetail(),
            }
        };
        if m.ctx.is_null()
            || m.hf.is_null()
            || m.chf.is_null()
            || m.cset.is_null()
            || m.pmesh.is_null()
            || m.dmesh.is_null()
        {
            return Err(BakeFailed("allocation"));
        }
        Ok(m)
    }
}

impl DetourMesh {
    /// Bakes the scene's triangles with Recast (one tile, watershed regions) and builds the Detour
    /// navmesh and query.
    pub fn bake(scene: &Scene, s: &RecastSettings) -> Result<DetourMesh, BakeFailed> {
        let input = RecastInput::new(scene, s)?;
        let m = Intermediates::new()?;
        // SAFETY: every pointer handed to Recast/Detour is either a live allocation from their own
        // allocators (checked for null) or a Rust slice whose length matches the count passed.
        unsafe {
            let (bmin, bmax, w, h) = input.grid(s.cell_size);
            build_tile(&m, (&input.verts, &input.tris, &input.areas), (bmin, bmax, w, h, 0), s)?;
            let polygons = (*m.pmesh).npolys as usize;
            let Some((data, size)) = tile_data(&m, s, (0, 0))? else {
                return Err(BakeFailed("poly mesh (no polygons)"));
            };
            let nav = rc::dtAllocNavMesh();
            if nav.is_null() {
                rc::dtFree(data as *mut _);
                return Err(BakeFailed("Detour allocation"));
            }
            let status = (*nav).init1(data, size, rc::dtTileFlags_DT_TILE_FREE_DATA as i32);
            if status & rc::DT_FAILURE != 0 {
                rc::dtFree(data as *mut _);
                rc::dtFreeNavMesh(nav);
                return Err(BakeFailed("Detour navmesh init"));
            }
            DetourMesh::with_query(nav, polygons)
        }
    }

    /// Bakes the scene with Recast tile by tile, as RecastDemo's tile mesh sample does: tiles of
    /// `tile_cells` cells a side (more where the grid would pass 128 x 128 tiles), each
    /// rasterising the triangles that overlap it grown by a border of the agent radius plus 3
    /// cells, built one after another into one tiled Detour navmesh.
    pub fn bake_tiled(scene: &Scene, s: &RecastSettings, tile_cells: i32) -> Result<DetourMesh, BakeFailed> {
        let input = RecastInput::new(scene, s)?;
        let border = (s.radius / s.cell_size).ceil() as i32 + 3;
        let pad = border as f32 * s.cell_size;
        // SAFETY: as in `bake`; tile data buffers go to Detour, which frees them.
        unsafe {
            let (bmin, bmax, gw, gh) = input.grid(s.cell_size);
            // Detour addresses at most 2^14 tiles with RecastDemo's 22 bits of tile and polygon
            // ids, so a grid over 128 x 128 tiles takes larger tiles.
            let tile_cells = tile_cells.max((gw.max(gh) + 127) / 128);
            let tile = tile_cells as f32 * s.cell_size;
            let (tw, th) = ((gw + tile_cells - 1) / tile_cells, (gh + tile_cells - 1) / tile_cells);
            let buckets = input.tile_buckets(bmin, tile, pad, (tw, th));
            let nav = rc::dtAllocNavMesh();
            if nav.is_null() {
                return Err(BakeFailed("Detour allocation"));
            }
            let tile_bits = (32 - ((tw * th) as u32).next_power_of_two().leading_zeros() - 1).clamp(1, 14);
            let mut params: rc::dtNavMeshParams = std::mem::zeroed();
            params.orig = bmin;
            params.tileWidth = tile;
            params.tileHeight = tile;
            params.maxTiles = 1 << tile_bits;
            params.maxPolys = 1 << (22 - tile_bits);
            if (*nav).init(&params) & rc::DT_FAILURE != 0 {
                rc::dtFreeNavMesh(nav);
                return Err(BakeFailed("Detour tiled navmesh init"));
            }
            let mut polygons = 0;
            let (mut tris, mut areas) = (Vec::new(), Vec::new());
            for y in 0..th {
                for x in 0..tw {
                    let bucket = &buckets[(y * tw + x) as usize];
                    if bucket.is_empty() {
                        continue;
                    }
                    input.gather(bucket, &mut tris, &mut areas);
                    let (lo, hi) = tile_box(bmin, bmax, tile, pad, (x, y));
                    let side = tile_cells + 2 * border;
                    let m = Intermediates::new()?;
                    let built = build_tile(&m, (&input.verts, &tris, &areas), (lo, hi, side, side, border), s)
                        .and_then(|()| tile_data(&m, s, (x, y)));
                    let data = match built {
                        Ok(Some(data)) => data,
                        Ok(None) => continue,
                        Err(e) => {
                            rc::dtFreeNavMesh(nav);
                            return Err(e);
                        }
                    };
                    polygons += (*m.pmesh).npolys as usize;
                    let status =
                        (*nav).addTile(data.0, data.1, rc::dtTileFlags_DT_TILE_FREE_DATA as i32, 0, ptr::null_mut());
                    if status & rc::DT_FAILURE != 0 {
                        rc::dtFree(data.0 as *mut _);
                        rc::dtFreeNavMesh(nav);
                        return Err(BakeFailed("Detour add tile"));
                    }
                }
            }
            DetourMesh::with_query(nav, polygons)
        }
    }

    /// The mesh with its query object, or an error (freeing `nav`).
    ///
    /// # Safety
    /// `nav` is a live, initialised Detour navmesh, owned from here on.
    unsafe fn with_query(nav: *mut rc::dtNavMesh, polygons: usize) -> Result<DetourMesh, BakeFailed> {
        let query = rc::dtAllocNavMeshQuery();
        if query.is_null() || (*query).init(nav, 65535) & rc::DT_FAILURE != 0 {
            rc::dtFreeNavMeshQuery(query);
            rc::dtFreeNavMesh(nav);
            return Err(BakeFailed("Detour query init"));
        }
        Ok(DetourMesh {
            nav,
            query,
            filter: rc::dtQueryFilter::new(),
            polygons,
            path: vec![0; MAX_PATH],
            straight: vec![0.0; MAX_PATH * 3],
        })
    }

    /// `findNearestPoly` for both ends (half extents `extents`), `findPath` and
    /// `findStraightPath`: the straight path's 3D length, or `None` when an end has no polygon
    /// or the corridor does not reach the goal's polygon.
    pub fn path_length(&mut self, from: [f64; 3], to: [f64; 3], extents: [f32; 3]) -> Option<f64> {
        let start = from.map(|c| c as f32);
        let goal = to.map(|c| c as f32);
        let (mut start_ref, mut goal_ref) = (0, 0);
        let (mut start_pt, mut goal_pt) = ([0f32; 3], [0f32; 3]);
        let mut count = 0;
        let mut points = 0;
        // SAFETY: the query is live, the buffers hold MAX_PATH entries as passed.
        unsafe {
            let q = &*self.query;
            q.findNearestPoly(start.as_ptr(), extents.as_ptr(), &self.filter, &mut start_ref, start_pt.as_mut_ptr());
            q.findNearestPoly(goal.as_ptr(), extents.as_ptr(), &self.filter, &mut goal_ref, goal_pt.as_mut_ptr());
            if start_ref == 0 || goal_ref == 0 {
                return None;
            }
            let status = q.findPath(
                start_ref,
                goal_ref,
                start_pt.as_ptr(),
                goal_pt.as_ptr(),
                &self.filter,
                self.path.as_mut_ptr(),
                &mut count,
                MAX_PATH as i32,
            );
            if status & rc::DT_FAILURE != 0 || count == 0 || self.path[count as usize - 1] != goal_ref {
                return None;
            }
            q.findStraightPath(
                start_pt.as_ptr(),
                goal_pt.as_ptr(),
                self.path.as_ptr(),
                count,
                self.straight.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut points,
                MAX_PATH as i32,
                0,
            );
        }
        let pts = &self.straight[..points.max(0) as usize * 3];
        Some(
            pts.chunks_exact(3)
                .zip(pts.chunks_exact(3).skip(1))
                .map(|(a, b)| {
                    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]].map(f64::from);
                    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
                })
                .sum(),
        )
    }
}

impl Drop for DetourMesh {
    fn drop(&mut self) {
        // SAFETY: both came from dtAlloc* and are freed once, here.
        unsafe {
            rc::dtFreeNavMeshQuery(self.query);
            rc::dtFreeNavMesh(self.nav);
        }
    }
}
