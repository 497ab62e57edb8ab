//! Hand-made navmeshes for tests and benchmarks: a grid of square cells with some cells removed
//! as obstacles, optionally split into triangles and jittered, on a planar (possibly sloped)
//! surface; and an exact check that a path lies in its corridor, shared by the unit and the
//! fixture tests.
//!
//! ```text
//!  z                       cell (c, r) spans x in [c, c+1] * cell, z in [r, r+1] * cell
//!  2  +---+---+---+
//!     |   |###|   |        ### = blocked cell (no polygon: its edges become walls)
//!  1  +---+---+---+
//!     |   |   |   |        triangulated cells use the diagonal that alternates with c + r
//!  0  +---+---+---+
//!     0   1   2   3  x
//! ```

use meadow::asset::{AreaType, EdgeLink, NavMeshData, Outline, PolygonData};
use meadow::geom::{orient2d, Point2};
use meadow::query::{Path, QueryMesh, SplitMix64};
use meadow::settings::BakeSettings;
use std::collections::BTreeMap;

/// Parameters of a grid mesh.
#[derive(Clone, Debug)]
pub struct GridSpec {
    /// Number of cells along x.
    pub cols: usize,
    /// Number of cells along z.
    pub rows: usize,
    /// Cell side length (metres).
    pub cell: f64,
    /// World position of the grid corner `(0, 0)`; `origin[1]` is the height there.
    pub origin: [f64; 3],
    /// Height gradient `(dy/dx, dy/dz)` of the planar surface.
    pub slope: [f64; 2],
    /// Blocked cells, row-major (`r * cols + c`); missing entries are open.
    pub blocked: Vec<bool>,
    /// Area index per cell, row-major; missing entries use area 0.
    pub cell_area: Vec<u16>,
    /// Area types; defaults to one `"default"` area of cost 1.
    pub areas: Vec<AreaType>,
    /// Split every cell into two triangles.
    pub triangulate: bool,
    /// Move interior grid vertices randomly by up to this fraction of a cell per axis
    /// (only with `triangulate`; keep it below 0.25 so triangles stay counter-clockwise).
    pub jitter: f64,
    /// Seed of the jitter.
    pub seed: u64,
    /// Layer number written into every polygon.
    pub layer: u16,
}

impl Default for GridSpec {
    fn default() -> Self {
        GridSpec {
            cols: 4,
            rows: 4,
            cell: 1.0,
            origin: [0.0; 3],
            slope: [0.0; 2],
            blocked: Vec::new(),
            cell_area: Vec::new(),
            areas: vec![AreaType { name: "default".into(), cost: 1.0 }],
            triangulate: false,
            jitter: 0.0,
            seed: 1,
            layer: 0,
        }
    }
}

/// Marks about `fraction` of the cells of a `cols × rows` grid as blocked (seeded), then opens
/// cells until no two open cells touch only at a corner (a pinch point where the walkable
/// region's interior is disconnected but its closure is not, which a navmesh cannot link).
pub fn random_blocked(cols: usize, rows: usize, fraction: f64, seed: u64) -> Vec<bool> {
    let mut rng = SplitMix64::new(seed);
    let mut blocked: Vec<bool> = (0..cols * rows).map(|_| rng.next_f64() < fraction).collect();
    // Every pass opens a cell or stops, so this ends after at most cols * rows passes.
    loop {
        let mut changed = false;
        for r in 0..rows.saturating_sub(1) {
            for c in 0..cols.saturating_sub(1) {
                let cells = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1];
                let b = cells.map(|i| blocked[i]);
                if b[0] == b[3] && b[1] == b[2] && b[0] != b[1] {
                    let open = if b[0] { cells[0] } else { cells[1] };
                    blocked[open] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            return blocked;
        }
    }
}

impl GridSpec {
    fn is_blocked(&self, c: usize, r: usize) -> bool {
        self.blocked.get(r * self.cols + c).copied().unwrap_or(false)
    }

    /// Builds the mesh data (outlines: its boundary rings, see [`boundary_rings`]).
    pub fn build(&self) -> NavMeshData {
        let (cols, rows) = (self.cols, self.rows);
        let mut rng = SplitMix64::new(self.seed);
        let mut vertices = Vec::with_capacity((cols + 1) * (rows + 1));
        for r in 0..=rows {
            for c in 0..=cols {
                let (mut x, mut z) = (c as f64, r as f64);
                let interior = c > 0 && c < cols && r > 0 && r < rows;
                if self.triangulate && interior && self.jitter > 0.0 {
                    x += (rng.next_f64() * 2.0 - 1.0) * self.jitter;
                    z += (rng.next_f64() * 2.0 - 1.0) * self.jitter;
                }
                let (x, z) = (self.origin[0] + x * self.cell, self.origin[2] + z * self.cell);
                let y = self.origin[1] + self.slope[0] * (x - self.origin[0]) + self.slope[1] * (z - self.origin[2]);
                vertices.push([x, y, z]);
            }
        }
        let vid = |c: usize, r: usize| (r * (cols + 1) + c) as u32;
        let mut rings: Vec<(Vec<u32>, u16)> = Vec::new();
        for r in 0..rows {
            for c in 0..cols {
                if self.is_blocked(c, r) {
                    continue;
                }
                let area = self.cell_area.get(r * cols + c).copied().unwrap_or(0);
                let (v00, v10, v11, v01) = (vid(c, r), vid(c + 1, r), vid(c + 1, r + 1), vid(c, r + 1));
                if !self.triangulate {
                    rings.push((vec![v00, v10, v11, v01], area));
                } else if (c + r) % 2 == 0 {
                    rings.push((vec![v00, v10, v11], area));
                    rings.push((vec![v00, v11, v01], area));
                } else {
                    rings.push((vec![v00, v10, v01], area));
                    rings.push((vec![v10, v11, v01], area));
                }
            }
        }
        assemble(self.settings(), vertices, &rings, self.areas.clone(), self.layer)
    }

    fn settings(&self) -> BakeSettings {
        BakeSettings::DEFAULT
    }
}

/// Builds mesh data from polygon rings (vertex indices, counter-clockwise) and an area each,
/// linking every edge to the polygon that has it reversed.
pub fn assemble(
    settings: BakeSettings,
    vertices: Vec<[f64; 3]>,
    rings: &[(Vec<u32>, u16)],
    areas: Vec<AreaType>,
    layer: u16,
) -> NavMeshData {
    let mut owner: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for (pi, (ring, _)) in rings.iter().enumerate() {
        for k in 0..ring.len() {
            owner.insert((ring[k], ring[(k + 1) % ring.len()]), pi as u32);
        }
    }
    let mut polygons = Vec::new();
    let mut polygon_vertices = Vec::new();
    let mut edge_links = Vec::new();
    for (ring, area) in rings {
        polygons.push(PolygonData {
            first: polygon_vertices.len() as u32,
            vertex_count: ring.len() as u8,
            area: *area,
            layer,
        });
        for k in 0..ring.len() {
            let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
            polygon_vertices.push(a);
            edge_links.push(owner.get(&(b, a)).map_or(EdgeLink::Wall, |&q| EdgeLink::Polygon(q)));
        }
    }
    let mut data = NavMeshData {
        settings,
        vertices,
        polygons,
        polygon_vertices,
        edge_links,
        areas,
        outlines: Vec::new(),
        links: Vec::new(),
        visibility: None,
        tiles: Vec::new(),
        partial: None,
    };
    data.outlines = boundary_rings(&data);
    data
}

/// The boundary rings of mesh data: its wall edges chained end to start, so outer boundaries run
/// counter-clockwise and holes clockwise, as the bake writes its outlines. (Where two rings touch
/// at a vertex the chaining may join them; the queries leave such rings alone.)
pub fn boundary_rings(data: &NavMeshData) -> Vec<Outline> {
    let mut next: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for p in &data.polygons {
        let (first, n) = (p.first as usize, p.vertex_count as usize);
        for k in (0..n).filter(|&k| data.edge_links[first + k] == EdgeLink::Wall) {
            let (a, b) = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]);
            next.entry(a).or_default().push(b);
        }
    }
    let starts: Vec<u32> = next.keys().copied().collect();
    let mut rings = Vec::new();
    for a in starts {
        while next.get(&a).is_some_and(|list| !list.is_empty()) {
            let mut ring = vec![a];
            let mut at = a;
            while let Some(b) = next.get_mut(&at).and_then(|list| list.pop()) {
                if b == a {
                    break;
                }
                ring.push(b);
                at = b;
            }
            if ring.len() >= 3 {
                rings.push(Outline { vertices: ring });
            }
        }
    }
    rings
}

/// Puts two meshes into one asset (no links between them); `top`'s polygons keep their own
/// layer numbers, so give the specs different `layer` values.
pub fn combine(bottom: NavMeshData, top: NavMeshData) -> NavMeshData {
    let mut out = bottom;
    let vertex_offset = out.vertices.len() as u32;
    let poly_offset = out.polygons.len() as u32;
    let run_offset = out.polygon_vertices.len() as u32;
    out.vertices.extend(top.vertices);
    out.polygons.extend(top.polygons.iter().map(|p| PolygonData { first: p.first + run_offset, ..*p }));
    out.polygon_vertices.extend(top.polygon_vertices.iter().map(|v| v + vertex_offset));
    out.outlines.extend(
        top.outlines.iter().map(|o| Outline { vertices: o.vertices.iter().map(|v| v + vertex_offset).collect() }),
    );
    out.edge_links.extend(top.edge_links.iter().map(|&l| {
        if let EdgeLink::Polygon(q) = l {
            EdgeLink::Polygon(q + poly_offset)
        } else {
            l
        }
    }));
    out
}

/// The sign of `v`: 1, -1 or 0.
pub fn sign(v: f64) -> i8 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}

/// Whether the closed segments `s t` and `a b` intersect (exact).
pub fn segments_intersect(s: Point2, t: Point2, a: Point2, b: Point2) -> bool {
    let (o1, o2) = (sign(orient2d(s, t, a)), sign(orient2d(s, t, b)));
    let (o3, o4) = (sign(orient2d(a, b, s)), sign(orient2d(a, b, t)));
    if o1 == 0 && o2 == 0 {
        // Collinear: the projections on the dominant axis must overlap.
        let axis =
            if (t[0] - s[0]).abs() + (b[0] - a[0]).abs() >= (t[1] - s[1]).abs() + (b[1] - a[1]).abs() { 0 } else { 1 };
        let (s0, s1) = (s[axis].min(t[axis]), s[axis].max(t[axis]));
        let (a0, a1) = (a[axis].min(b[axis]), a[axis].max(b[axis]));
        return s0 <= a1 && a0 <= s1;
    }
    o1 * o2 <= 0 && o3 * o4 <= 0
}

/// The portals from polygon `from` to polygon `to` (any shared edge), as XZ segments.
pub fn corridor_portals(mesh: &QueryMesh, from: u32, to: u32) -> Vec<(Point2, Point2)> {
    let data = mesh.mesh().data();
    let verts = mesh.mesh().vertices();
    let p = data.polygons[from as usize];
    let (first, n) = (p.first as usize, p.vertex_count as usize);
    (0..n)
        .filter(|&k| data.edge_links[first + k] == EdgeLink::Polygon(to))
        .map(|k| {
            let (a, b) = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]);
            (xz(verts[a as usize]), xz(verts[b as usize]))
        })
        .collect()
}

/// XZ projection of a 3D point.
fn xz(p: [f64; 3]) -> Point2 {
    [p[0], p[2]]
}

/// Checks exactly that the path polyline lies inside the union of its corridor polygons: each
/// point lies in a corridor polygon (in corridor order) and each segment crosses every portal
/// between the polygons of its endpoints. Pieces between consecutive crossings then lie in one
/// convex polygon each, and together they cover the segment.
pub fn check_path_in_corridor(mesh: &QueryMesh, path: &Path) -> Result<(), String> {
    let cor = &path.corridor;
    if cor.is_empty() {
        return Err("empty corridor".into());
    }
    for w in cor.windows(2) {
        if corridor_portals(mesh, w[0], w[1]).is_empty() {
            return Err(format!("corridor {w:?} not adjacent"));
        }
    }
    let mut c = 0usize;
    for (j, p) in path.points.iter().enumerate() {
        let p2 = xz(*p);
        let target = if j + 1 == path.points.len() {
            cor.len() - 1
        } else {
            (c..cor.len())
                .find(|&k| mesh.polygon_contains(cor[k], p2))
                .ok_or_else(|| format!("point {j} {p:?} off the corridor"))?
        };
        if !mesh.polygon_contains(cor[target], p2) {
            return Err(format!("point {j} not in corridor polygon {}", cor[target]));
        }
        if j > 0 {
            let s = xz(path.points[j - 1]);
            for i in c..target {
                let crosses =
                    corridor_portals(mesh, cor[i], cor[i + 1]).iter().any(|&(a, b)| segments_intersect(s, p2, a, b));
                if !crosses {
                    return Err(format!("segment {j} misses portal {i}"));
                }
            }
        }
        c = target;
    }
    Ok(())
}

/// Slack of [`segment_in_one_layer`] (metres): roadmap nodes are floating-point points computed
/// on trapezoid walls and segments, some on a wall, so they may round a few ulps outside.
pub const FREE_SPACE_SLACK: f64 = 1e-9;

/// Whether the XZ segment `a -> b` lies in the union of the polygons of one layer of `mesh`
/// (each polygon clipped as half-planes grown by [`FREE_SPACE_SLACK`], the pieces' parameter
/// intervals covering `[0, 1]`).
pub fn segment_in_one_layer(mesh: &QueryMesh, a: Point2, b: Point2) -> bool {
    let nav = mesh.mesh();
    let data = nav.data();
    let verts = nav.vertices();
    let mut layers: Vec<u16> = data.polygons.iter().map(|p| p.layer).collect();
    layers.sort_unstable();
    layers.dedup();
    layers.iter().any(|&layer| {
        let mut spans: Vec<(f64, f64)> = Vec::new();
        for poly in data.polygons.iter().filter(|p| p.layer == layer) {
            let run = &data.polygon_vertices[poly.first as usize..poly.first as usize + poly.vertex_count as usize];
            let (mut t0, mut t1) = (0.0f64, 1.0f64);
            for k in 0..run.len() {
                let (u, v) = (verts[run[k] as usize], verts[run[(k + 1) % run.len()] as usize]);
                let (u, v) = ([u[0], u[2]], [v[0], v[2]]);
                let len = ((v[0] - u[0]).powi(2) + (v[1] - u[1]).powi(2)).sqrt();
                let side = |q: Point2| {
                    ((v[0] - u[0]) * (q[1] - u[1]) - (v[1] - u[1]) * (q[0] - u[0])) / len + FREE_SPACE_SLACK
                };
                let (da, db) = (side(a), side(b));
                if da < 0.0 && db < 0.0 {
                    t1 = -1.0;
                    break;
                }
                if da < 0.0 {
                    t0 = t0.max(da / (da - db));
                } else if db < 0.0 {
                    t1 = t1.min(da / (da - db));
                }
            }
            if t0 <= t1 {
                spans.push((t0, t1));
            }
        }
        spans.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut reach = 0.0f64;
        for (s, e) in spans {
            if s > reach + FREE_SPACE_SLACK {
                break;
            }
            reach = reach.max(e);
        }
        reach >= 1.0 - FREE_SPACE_SLACK
    })
}
