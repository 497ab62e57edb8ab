//! [`QueryMesh`]: a validated navmesh plus the derived tables every query reads (point-location
//! grid, half-edge twins, midpoints and portal runs, islands, components, area prefix sums).

use super::links;
use super::obstacles;
use super::shortest;
use super::{dist2, grow_bounds, xz, LocateIndex, Locator, TrapezoidalMapStats, EMPTY_BOUNDS, NONE};
use crate::asset::{EdgeLink, NavMesh};
use crate::geom::Point2;

/// A validated navmesh plus the derived tables the queries use, shareable between threads. Its
/// polygons never change; its off-mesh link table does, through `&self`
/// ([`QueryMesh::add_link`], [`QueryMesh::remove_link`]): each query sees the table as it was
/// when the query started.
///
/// ```
/// use meadow::{NavMesh, QueryMesh};
/// # let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
/// let mesh = QueryMesh::new(NavMesh::from_bytes(bytes)?); // build once, share between threads
/// let on_floor = mesh.locate([3.0, 0.2, 3.0])?;
/// assert_eq!(on_floor.point, [3.0, 0.0, 3.0]);
/// // Inside the box there is no floor; the nearest point on the mesh is beside it.
/// assert!(mesh.locate([0.0, 0.0, 0.0]).is_err());
/// let beside = mesh.nearest_point([0.0, 0.0, -1.0], [2.0, 1.0, 2.0])?;
/// assert!((beside.point[2] + 1.6).abs() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct QueryMesh {
    pub(super) mesh: NavMesh,
    pub(super) index: LocateIndex,
    /// Per polygon: XZ bounds `[min_x, min_z, max_x, max_z]`.
    pub(super) poly_bounds: Vec<[f64; 4]>,
    /// Per polygon: height range `[min_y, max_y]`.
    pub(super) poly_heights: Vec<[f64; 2]>,
    /// Per half-edge (index into `polygon_vertices`): the polygon that owns it.
    pub(super) edge_owner: Vec<u32>,
    /// Per half-edge: what the path search reads, packed together (one cache line per pair).
    pub(super) half_edges: Vec<HalfEdge>,
    /// Per half-edge: the run of half-edges of its polygon leading to the same neighbour that
    /// it belongs to (see [`QueryMesh::portal_run`]; read for every corridor portal).
    pub(super) portal_runs: Vec<[u32; 2]>,
    /// Per half-edge: its start and end vertex (read by every corridor and interval step, so
    /// kept apart from the vertex indirection).
    pub(super) edge_ends: Vec<[[f64; 3]; 2]>,
    /// Prefix sums of polygon areas (XZ), for uniform random points.
    pub(super) area_prefix: Vec<f64>,
    /// Polygons around each vertex, for the shortest-path search (built on first use).
    pub(super) vertex_fans: std::sync::OnceLock<shortest::VertexFans>,
    /// The visibility graph's nodes tied to the mesh's polygons (built on first use).
    pub(super) corner_table: std::sync::OnceLock<super::visibility::CornerTable>,
    /// Per vertex: whether a wall edge touches it (corners elsewhere are re-routed).
    pub(super) on_wall: Vec<bool>,
    /// Per vertex: the small island (see [`QueryMesh::small_island_of`]) whose outline passes
    /// through it, or `NONE`.
    pub(super) island_of: Vec<u32>,
    /// Per outline: a disk inside it when it is a small island (centre and radius; radius
    /// `-1` otherwise), for a quick lower bound on ways round it.
    pub(super) island_disks: Vec<(Point2, f64)>,
    /// Per polygon: its connected component of the portal graph (numbered in order of first
    /// polygon).
    pub(super) component: Vec<u32>,
    /// Per outline: whether it is a simple hole (see [`QueryMesh::new`]).
    pub(super) simple_hole: Vec<bool>,
    /// The convex hulls of islands that certify a path round one of them (built on first use:
    /// the overlap test behind it is most of the cost of building a query mesh).
    pub(super) obstacles: std::sync::OnceLock<obstacles::Obstacles>,
    /// The off-mesh link table and what depends on it (chains, landmarks, components joined
    /// through links): the one part of a query mesh that can change.
    pub(super) links: links::LinkCell,
    /// The per-layer trapezoidal maps `locate` searches, with [`Locator::TrapezoidalMap`].
    pub(super) trap_locator: Option<super::trapmap::TrapLocator>,
    /// The trapezoid roadmap of [`QueryMesh::find_roadmap_path`] (built on first use).
    pub(super) roadmap: std::sync::OnceLock<super::trapmap::Roadmap>,
}

/// The search-relevant data of one half-edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HalfEdge {
    /// The 3D midpoint of the edge (the A* node position).
    pub(crate) mid: [f64; 3],
    /// The polygon across the edge, or `NONE` when it is not a portal.
    pub(crate) neighbour: u32,
    /// The same edge reversed in the neighbouring polygon, or `NONE`.
    pub(crate) twin: u32,
}

/// Largest outline (in vertices) the shortcut pass walks round as an island. Each candidate
/// costs a scan of the outline: 32 takes the pillars and crates of the fixtures and nav_test
/// (their mean excess over the shortest path falls from 1.0035 to 1.0012 on open_floor, 1.0048
/// to 1.0012 on nav_test) for 3.5% of the median query on undulating, whose rocks have more
/// vertices; 64 reaches 1.0000 on open_floor but costs undulating 22%.
pub(crate) const MAX_ISLAND_VERTICES: usize = 32;

/// Per polygon: its connected component of the portal graph, numbered 0, 1, … in order of
/// each component's first polygon (flood fill over portals).
fn portal_components(data: &crate::asset::NavMeshData) -> Vec<u32> {
    let mut component = vec![NONE; data.polygons.len()];
    let mut stack = Vec::new();
    let mut count = 0;
    for seed in 0..data.polygons.len() {
        if component[seed] != NONE {
            continue;
        }
        component[seed] = count;
        stack.push(seed);
        while let Some(p) = stack.pop() {
            let poly = data.polygons[p];
            let first = poly.first as usize;
            for link in &data.edge_links[first..first + poly.vertex_count as usize] {
                if let EdgeLink::Polygon(q) = *link {
                    if component[q as usize] == NONE {
                        component[q as usize] = count;
                        stack.push(q as usize);
                    }
                }
            }
        }
        count += 1;
    }
    component
}

/// The per-polygon and per-half-edge tables of a query mesh that a carved mesh copies from its
/// base for the polygons carving left alone.
struct Core {
    index: LocateIndex,
    poly_bounds: Vec<[f64; 4]>,
    poly_heights: Vec<[f64; 2]>,
    edge_owner: Vec<u32>,
    half_edges: Vec<HalfEdge>,
    edge_ends: Vec<[[f64; 3]; 2]>,
}

/// How the polygons of a carved mesh come from those of its base mesh and of the previous
/// carved mesh (or the base mesh itself), for [`QueryMesh::derive`]. Both keep the base
/// polygons' order, each replaced by a run of polygons.
pub(crate) struct Derivation<'a> {
    /// Per base polygon `p` (and one past the last): its polygons in the previous mesh are
    /// `before[p]..before[p + 1]`.
    pub(crate) before: &'a [u32],
    /// Per polygon of the previous mesh: its base polygon.
    pub(crate) before_origin: &'a [u32],
    /// Per base polygon (and one past the last): its polygons in the new mesh.
    pub(crate) after: &'a [u32],
    /// Per base polygon: whether its polygons changed. Those of one that did not are the
    /// previous ones (same vertex runs, same order); only what lies across their edges may
    /// have been renumbered or replaced.
    pub(crate) changed: &'a [bool],
}

/// The half-edge of polygon `q` that is polygon `p`'s edge from `a` to `b`
/// reversed and links back to `p`, or `NONE` (validation guarantees one for every portal).
fn find_twin(data: &crate::asset::NavMeshData, p: u32, a: u32, b: u32, q: u32) -> u32 {
    let qd = data.polygons[q as usize];
    let (qf, qc) = (qd.first as usize, qd.vertex_count as usize);
    for j in 0..qc {
        if data.polygon_vertices[qf + j] == b
            && data.polygon_vertices[qf + (j + 1) % qc] == a
            && data.edge_links[qf + j] == EdgeLink::Polygon(p)
        {
            return (qf + j) as u32;
        }
    }
    NONE
}

/// Polygon `pi`'s tables from its vertices: XZ bounds, height range, and per half-edge its
/// owner, midpoint and ends, written at the polygon's run.
fn polygon_tables(
    data: &crate::asset::NavMeshData,
    pi: usize,
    edge_owner: &mut [u32],
    edge_mid: &mut [[f64; 3]],
    edge_ends: &mut [[[f64; 3]; 2]],
) -> ([f64; 4], [f64; 2]) {
    let verts = &data.vertices;
    let p = data.polygons[pi];
    let (first, count) = (p.first as usize, p.vertex_count as usize);
    let mut b = EMPTY_BOUNDS;
    let mut h = [f64::INFINITY, f64::NEG_INFINITY];
    for k in 0..count {
        let a = verts[data.polygon_vertices[first + k] as usize];
        let c = verts[data.polygon_vertices[first + (k + 1) % count] as usize];
        grow_bounds(&mut b, a);
        h = [h[0].min(a[1]), h[1].max(a[1])];
        edge_owner[first + k] = pi as u32;
        edge_mid[first + k] = [(a[0] + c[0]) * 0.5, (a[1] + c[1]) * 0.5, (a[2] + c[2]) * 0.5];
        edge_ends[first + k] = [a, c];
    }
    (b, h)
}

/// Appends polygon `pi`'s vertices in XZ to `ring` (what the locate grid tests cells against).
fn ring_xz(data: &crate::asset::NavMeshData, pi: usize, ring: &mut Vec<Point2>) {
    let p = data.polygons[pi];
    let run = &data.polygon_vertices[p.first as usize..p.first as usize + p.vertex_count as usize];
    ring.extend(run.iter().map(|&v| {
        let q = data.vertices[v as usize];
        [q[0], q[2]]
    }));
}

/// The packed per-half-edge records the path search reads, from the midpoints, the twins and
/// the asset's edge links.
fn half_edges(data: &crate::asset::NavMeshData, edge_mid: &[[f64; 3]], edge_twin: &[u32]) -> Vec<HalfEdge> {
    (0..edge_mid.len())
        .map(|h| HalfEdge {
            mid: edge_mid[h],
            neighbour: if let EdgeLink::Polygon(q) = data.edge_links[h] { q } else { NONE },
            twin: edge_twin[h],
        })
        .collect()
}

impl QueryMesh {
    /// Builds the query tables for a validated mesh (linear time plus the grid build).
    pub fn new(mesh: NavMesh) -> QueryMesh {
        let n = mesh.polygon_count();
        let data = mesh.data();
        let mut poly_bounds = Vec::with_capacity(n);
        let mut poly_heights = Vec::with_capacity(n);
        let mut edge_owner = vec![0u32; data.polygon_vertices.len()];
        let mut edge_mid = vec![[0.0; 3]; data.polygon_vertices.len()];
        let mut edge_ends = vec![[[0.0; 3]; 2]; data.polygon_vertices.len()];
        for pi in 0..n {
            let (b, h) = polygon_tables(data, pi, &mut edge_owner, &mut edge_mid, &mut edge_ends);
            poly_bounds.push(b);
            poly_heights.push(h);
        }
        // Twins: validation guarantees the neighbour has the reversed edge linking back.
        let mut edge_twin = vec![NONE; data.polygon_vertices.len()];
        for (pi, p) in data.polygons.iter().enumerate() {
            let first = p.first as usize;
            let count = p.vertex_count as usize;
            for k in 0..count {
                let EdgeLink::Polygon(q) = data.edge_links[first + k] else { continue };
                let a = data.polygon_vertices[first + k];
                let b = data.polygon_vertices[first + (k + 1) % count];
                edge_twin[first + k] = find_twin(data, pi as u32, a, b, q);
            }
        }
        let index = LocateIndex::build(&poly_bounds, |pi, ring| ring_xz(data, pi, ring));
        let half_edges = half_edges(data, &edge_mid, &edge_twin);
        QueryMesh::finish(mesh, Core { index, poly_bounds, poly_heights, edge_owner, half_edges, edge_ends })
    }

    /// The query mesh of `mesh`, a carved version of the base mesh whose previous version is
    /// `previous` (see [`Derivation`]): the tables of polygons that did not change are copied
    /// from `previous` (their half-edges' twins renumbered), those of the changed ones
    /// computed, and the locate grid keeps the base grid's cells (`base_index`), copying the
    /// lists of `previous` and testing the changed polygons against the cells of their base
    /// polygon. Every query answers as on [`QueryMesh::new`] of the same mesh (tests compare
    /// them); only the grid's dimensions (the base's) differ.
    pub(crate) fn derive(
        previous: &QueryMesh,
        base_index: &LocateIndex,
        mesh: NavMesh,
        how: &Derivation<'_>,
    ) -> QueryMesh {
        let data = mesh.data();
        let prev_data = previous.mesh.data();
        let n = data.polygons.len();
        let h_count = data.polygon_vertices.len();
        let mut poly_bounds = Vec::with_capacity(n);
        let mut poly_heights = Vec::with_capacity(n);
        let mut edge_owner = vec![0u32; h_count];
        let mut edge_mid = vec![[0.0; 3]; h_count];
        let mut edge_ends = vec![[[0.0; 3]; 2]; h_count];
        let mut edge_twin = vec![NONE; h_count];
        for (bp, &changed) in how.changed.iter().enumerate() {
            let (from, to) = (how.after[bp] as usize, how.after[bp + 1] as usize);
            if changed {
                for pi in from..to {
                    let (b, h) = polygon_tables(data, pi, &mut edge_owner, &mut edge_mid, &mut edge_ends);
                    poly_bounds.push(b);
                    poly_heights.push(h);
                }
                continue;
            }
            // The previous polygons, copied.
            let prev_from = how.before[bp] as usize;
            for (pi, qi) in (from..to).zip(prev_from..) {
                let (old, new) = (prev_data.polygons[qi], data.polygons[pi]);
                let (of, nf, count) = (old.first as usize, new.first as usize, old.vertex_count as usize);
                poly_bounds.push(previous.poly_bounds[qi]);
                poly_heights.push(previous.poly_heights[qi]);
                edge_owner[nf..nf + count].fill(pi as u32);
                edge_ends[nf..nf + count].copy_from_slice(&previous.edge_ends[of..of + count]);
                for k in 0..count {
                    let half = previous.half_edges[of + k];
                    edge_mid[nf + k] = half.mid;
                    if half.twin == NONE || data.edge_links[nf + k] == EdgeLink::Wall {
                        continue;
                    }
                    let q = previous.edge_owner[half.twin as usize] as usize;
                    let bq = how.before_origin[q] as usize;
                    if !how.changed[bq] {
                        // The polygon across did not change either: its twin half-edge moved
                        // with its run.
                        let q_new = how.after[bq] as usize + (q - how.before[bq] as usize);
                        let (q_old_first, q_new_first) =
                            (prev_data.polygons[q].first as usize, data.polygons[q_new].first as usize);
                        edge_twin[nf + k] = (q_new_first + half.twin as usize - q_old_first) as u32;
                    }
                }
            }
        }
        // Twins of the changed polygons' portals and of the portals into them.
        for (pi, p) in data.polygons.iter().enumerate() {
            let (first, count) = (p.first as usize, p.vertex_count as usize);
            for k in 0..count {
                let EdgeLink::Polygon(q) = data.edge_links[first + k] else { continue };
                if edge_twin[first + k] == NONE {
                    let a = data.polygon_vertices[first + k];
                    let b = data.polygon_vertices[first + (k + 1) % count];
                    edge_twin[first + k] = find_twin(data, pi as u32, a, b, q);
                }
            }
        }
        let index = previous.index.derive(base_index, how, |pi, ring| ring_xz(data, pi, ring));
        let half_edges = half_edges(data, &edge_mid, &edge_twin);
        QueryMesh::finish(mesh, Core { index, poly_bounds, poly_heights, edge_owner, half_edges, edge_ends })
    }

    /// The tables every query mesh computes from its core tables and outlines: area prefix sums,
    /// walls at vertices, islands, components, portal runs and the link snapshot.
    fn finish(mesh: NavMesh, core: Core) -> QueryMesh {
        let Core { index, poly_bounds, poly_heights, edge_owner, half_edges, edge_ends } = core;
        let data = mesh.data();
        let verts = mesh.vertices();
        let mut area_prefix = Vec::with_capacity(data.polygons.len());
        let mut total = 0.0;
        for p in &data.polygons {
            let first = p.first as usize;
            let ends = &edge_ends[first..first + p.vertex_count as usize];
            let o = ends[0][0];
            let mut twice_area = 0.0;
            for &[a, c] in ends {
                twice_area += (a[0] - o[0]) * (c[2] - o[2]) - (c[0] - o[0]) * (a[2] - o[2]);
            }
            total += twice_area * 0.5;
            area_prefix.push(total);
        }
        let mut wall_degree = vec![0u32; verts.len()];
        for p in &data.polygons {
            let (first, n) = (p.first as usize, p.vertex_count as usize);
            for k in (0..n).filter(|&k| data.edge_links[first + k] == EdgeLink::Wall) {
                wall_degree[data.polygon_vertices[first + k] as usize] += 1;
                wall_degree[data.polygon_vertices[first + (k + 1) % n] as usize] += 1;
            }
        }
        let on_wall = wall_degree.iter().map(|&d| d > 0).collect();
        // Simple holes: hole outlines (clockwise) none of whose vertices is shared with another
        // outline or pinched, so a walk round one meets each of its vertices once.
        let simple_hole: Vec<bool> = data
            .outlines
            .iter()
            .map(|ring| {
                let pts: Vec<Point2> = ring.vertices.iter().map(|&v| xz(verts[v as usize])).collect();
                ring.vertices.iter().all(|&v| wall_degree[v as usize] == 2) && crate::geom::signed_area(&pts) < 0.0
            })
            .collect();
        // Small islands: simple holes of few vertices.
        let mut island_of = vec![NONE; verts.len()];
        let mut island_disks = vec![([0.0, 0.0], -1.0); data.outlines.len()];
        for (i, ring) in data.outlines.iter().enumerate() {
            if simple_hole[i] && ring.vertices.len() <= MAX_ISLAND_VERTICES {
                for &v in &ring.vertices {
                    island_of[v as usize] = i as u32;
                }
                let pts: Vec<Point2> = ring.vertices.iter().map(|&v| xz(verts[v as usize])).collect();
                island_disks[i] = inner_disk(&pts);
            }
        }
        let component = portal_components(data);
        let mut query_mesh = QueryMesh {
            mesh,
            index,
            poly_bounds,
            poly_heights,
            edge_owner,
            half_edges,
            portal_runs: Vec::new(),
            edge_ends,
            area_prefix,
            vertex_fans: std::sync::OnceLock::new(),
            corner_table: std::sync::OnceLock::new(),
            on_wall,
            island_of,
            island_disks,
            component,
            simple_hole,
            obstacles: std::sync::OnceLock::new(),
            links: links::LinkCell::new(links::LinkState::empty()),
            trap_locator: None,
            roadmap: std::sync::OnceLock::new(),
        };
        query_mesh.portal_runs = (0..query_mesh.half_edges.len())
            .map(|h| {
                let (first, last) = query_mesh.find_portal_run(h);
                [first as u32, last as u32]
            })
            .collect();
        let baked = query_mesh.mesh.data().links.iter().map(|&l| Some(l)).collect();
        query_mesh.links = links::LinkCell::new(links::LinkState::build(&query_mesh, baked));
        query_mesh
    }

    /// Builds the query tables with the given point-location index for [`QueryMesh::locate`]
    /// ([`QueryMesh::new`] uses [`Locator::Grid`]).
    pub fn with_locator(mesh: NavMesh, locator: Locator) -> QueryMesh {
        let mut query_mesh = QueryMesh::new(mesh);
        if locator == Locator::TrapezoidalMap {
            query_mesh.trap_locator = Some(super::trapmap::TrapLocator::build(&query_mesh));
        }
        query_mesh
    }

    /// The point-location index [`QueryMesh::locate`] searches.
    pub fn locator(&self) -> Locator {
        if self.trap_locator.is_some() {
            Locator::TrapezoidalMap
        } else {
            Locator::Grid
        }
    }

    /// Sizes of the trapezoidal-map locator, when it is the one in use.
    pub fn trapezoidal_map_stats(&self) -> Option<TrapezoidalMapStats> {
        self.trap_locator.as_ref().map(|t| t.stats())
    }

    /// The underlying navmesh.
    pub fn mesh(&self) -> &NavMesh {
        &self.mesh
    }

    /// Consumes the query mesh, returning the navmesh.
    pub fn into_mesh(self) -> NavMesh {
        self.mesh
    }

    /// The point-location grid.
    pub fn locate_index(&self) -> &LocateIndex {
        &self.index
    }

    /// The vertex of half-edge `h` at `p` (its start when `p` is there, else its end).
    pub(crate) fn edge_vertex_at(&self, h: usize, p: Point2) -> u32 {
        let data = self.mesh.data();
        if xz(self.edge_ends[h][0]) == p {
            data.polygon_vertices[h]
        } else {
            let poly = self.edge_owner[h];
            let (first, n) = (self.poly_first(poly), self.poly_len(poly));
            data.polygon_vertices[first + (h - first + 1) % n]
        }
    }

    /// Portal `h` as `(left, right)` seen crossing it out of its owner, spanning the whole edge
    /// when the bake split it into collinear pieces leading to the same neighbour.
    pub(crate) fn portal_ends(&self, h: usize) -> ([f64; 3], [f64; 3]) {
        let (first, last) = self.portal_run(h);
        let (a, b) = (self.edge_endpoints(first).0, self.edge_endpoints(last).1);
        // Leaving the owner (interior on the left of a -> b), b is on the walker's left.
        (b, a)
    }

    /// The run of half-edges `(first, last)` around `h` in its polygon that lead to the same
    /// neighbour (the collinear pieces of one split edge; `(h, h)` for a wall or a whole edge).
    #[inline]
    pub(crate) fn portal_run(&self, h: usize) -> (usize, usize) {
        let [first, last] = self.portal_runs[h];
        (first as usize, last as usize)
    }

    /// [`QueryMesh::portal_run`] worked out from the polygon (for the table it reads).
    fn find_portal_run(&self, h: usize) -> (usize, usize) {
        let q = self.half_edges[h].neighbour;
        let poly = self.edge_owner[h];
        let (f, n) = (self.poly_first(poly), self.poly_len(poly));
        let (mut first, mut last) = (h, h);
        if q == NONE {
            return (h, h);
        }
        // Two convex polygons share one segment, so the pieces are contiguous.
        for _ in 1..n {
            let prev = f + (first - f + n - 1) % n;
            if prev == last || self.half_edges[prev].neighbour != q {
                break;
            }
            first = prev;
        }
        for _ in 1..n {
            let next = f + (last - f + 1) % n;
            if next == first || self.half_edges[next].neighbour != q {
                break;
            }
            last = next;
        }
        (first, last)
    }

    /// The small island whose outline passes through vertex `v`: its index in the navmesh's
    /// outlines (a hole of at most [`MAX_ISLAND_VERTICES`] vertices: a pillar, a crate).
    pub(crate) fn small_island_of(&self, v: u32) -> Option<u32> {
        self.island_of.get(v as usize).copied().filter(|&i| i != NONE)
    }

    /// A disk inside small island `island` (centre, radius), when one is known.
    pub(crate) fn island_disk(&self, island: u32) -> Option<(Point2, f64)> {
        self.island_disks.get(island as usize).copied().filter(|d| d.1 >= 0.0)
    }

    /// The start and end vertex of half-edge `h`.
    pub(crate) fn edge_vertices(&self, h: usize) -> (u32, u32) {
        let data = self.mesh.data();
        let poly = self.edge_owner[h];
        let (first, n) = (self.poly_first(poly), self.poly_len(poly));
        (data.polygon_vertices[h], data.polygon_vertices[first + (h - first + 1) % n])
    }

    /// Whether a wall edge touches vertex `v`.
    pub(crate) fn touches_wall(&self, v: u32) -> bool {
        self.on_wall.get(v as usize).copied().unwrap_or(false)
    }

    /// Polygon `poly`'s two half-edges at vertex `v`: the one ending there and the one starting
    /// there (`None` when `v` is not one of its corners).
    pub(crate) fn edges_at_vertex(&self, poly: u32, v: u32) -> Option<(usize, usize)> {
        let (first, n) = (self.poly_first(poly), self.poly_len(poly));
        let run = &self.mesh.data().polygon_vertices[first..first + n];
        let k = run.iter().position(|&w| w == v)?;
        Some((first + (k + n - 1) % n, first + k))
    }

    /// Polygon `poly`'s edge at vertex `v` that does not lead into polygon `next`, when the
    /// other one does: where a corridor leaving `poly` through an edge at `v` (or a piece of
    /// one) would turn round `v` the other way. `None` otherwise.
    pub(crate) fn edge_at_vertex_away_from(&self, poly: u32, v: u32, next: u32) -> Option<usize> {
        let (into, out_of) = self.edges_at_vertex(poly, v)?;
        let leads_on = |h: usize| self.half_edges[h].neighbour == next;
        match (leads_on(into), leads_on(out_of)) {
            (true, false) => Some(out_of),
            (false, true) => Some(into),
            _ => None,
        }
    }

    /// Whether two polygons lie in one component of the portal graph joined through the current
    /// off-mesh links (paths between different ones cannot exist).
    #[cfg(test)]
    pub(crate) fn connected(&self, a: u32, b: u32) -> bool {
        self.link_state().connected(a, b)
    }

    /// Per polygon: its component of the portal graph, numbered in order of first polygon.
    pub(crate) fn components(&self) -> &[u32] {
        &self.component
    }

    /// The hulls of the islands that certify a path round one of them.
    pub(crate) fn obstacles(&self) -> &obstacles::Obstacles {
        self.obstacles
            .get_or_init(|| obstacles::Obstacles::build(&self.mesh, &self.index, &self.component, &self.simple_hole))
    }

    /// Number of half-edges (entries of `polygon_vertices`).
    pub(crate) fn half_edge_count(&self) -> usize {
        self.edge_owner.len()
    }

    /// Vertex `k` of polygon `poly` as `[x, y, z]` (k taken modulo the vertex count).
    #[inline]
    pub(crate) fn poly_vertex(&self, poly: u32, k: usize) -> [f64; 3] {
        let data = self.mesh.data();
        let p = data.polygons[poly as usize];
        let idx = data.polygon_vertices[p.first as usize + k % p.vertex_count as usize];
        self.mesh.vertices()[idx as usize]
    }

    /// Number of vertices of polygon `poly`.
    #[inline]
    pub(crate) fn poly_len(&self, poly: u32) -> usize {
        self.mesh.data().polygons[poly as usize].vertex_count as usize
    }

    /// Index of polygon `poly`'s first half-edge.
    #[inline]
    pub(crate) fn poly_first(&self, poly: u32) -> usize {
        self.mesh.data().polygons[poly as usize].first as usize
    }

    /// The polygon across half-edge `h`, if it is a portal.
    #[inline]
    pub(crate) fn edge_neighbour(&self, h: usize) -> Option<u32> {
        let q = self.half_edges[h].neighbour;
        (q != NONE).then_some(q)
    }

    /// Whether the XZ point lies inside or on the boundary of polygon `poly` (exact; panics when
    /// `poly` is out of range, like [`NavMesh::polygon`]).
    pub fn polygon_contains(&self, poly: u32, p: Point2) -> bool {
        self.poly_edges(poly).iter().all(|&[a, b]| crate::geom::orient2d(xz(a), xz(b), p) >= 0.0)
    }

    /// Polygon `poly`'s edges as `[start, end]` vertex pairs, counter-clockwise (its half-edges
    /// in order; panics when `poly` is out of range).
    #[inline]
    pub(crate) fn poly_edges(&self, poly: u32) -> &[[[f64; 3]; 2]] {
        let p = self.mesh.data().polygons[poly as usize];
        &self.edge_ends[p.first as usize..p.first as usize + p.vertex_count as usize]
    }
}

#[cfg(test)]
impl QueryMesh {
    /// The first table (other than the locate grid and lazily built ones) in which `self`
    /// and `other` differ, bit for bit, or `None`.
    pub(crate) fn first_table_difference(&self, other: &QueryMesh) -> Option<&'static str> {
        let bits4 = |v: &[[f64; 4]]| v.iter().map(|b| b.map(f64::to_bits)).collect::<Vec<_>>();
        let bits2 = |v: &[[f64; 2]]| v.iter().map(|b| b.map(f64::to_bits)).collect::<Vec<_>>();
        let half =
            |v: &[HalfEdge]| v.iter().map(|h| (h.mid.map(f64::to_bits), h.neighbour, h.twin)).collect::<Vec<_>>();
        let ends = |v: &[[[f64; 3]; 2]]| v.iter().map(|e| e.map(|p| p.map(f64::to_bits))).collect::<Vec<_>>();
        let disks = |v: &[(Point2, f64)]| v.iter().map(|(c, r)| (c.map(f64::to_bits), r.to_bits())).collect::<Vec<_>>();
        let prefix = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        [
            ("mesh", self.mesh == other.mesh),
            ("poly_bounds", bits4(&self.poly_bounds) == bits4(&other.poly_bounds)),
            ("poly_heights", bits2(&self.poly_heights) == bits2(&other.poly_heights)),
            ("edge_owner", self.edge_owner == other.edge_owner),
            ("half_edges", half(&self.half_edges) == half(&other.half_edges)),
            ("portal_runs", self.portal_runs == other.portal_runs),
            ("edge_ends", ends(&self.edge_ends) == ends(&other.edge_ends)),
            ("area_prefix", prefix(&self.area_prefix) == prefix(&other.area_prefix)),
            ("on_wall", self.on_wall == other.on_wall),
            ("island_of", self.island_of == other.island_of),
            ("island_disks", disks(&self.island_disks) == disks(&other.island_disks)),
            ("component", self.component == other.component),
            ("simple_hole", self.simple_hole == other.simple_hole),
        ]
        .into_iter()
        .find(|&(_, same)| !same)
        .map(|(name, _)| name)
    }
}

/// A disk inside the clockwise ring `pts` (a hole seen from the walkable side): centred on the
/// vertex average, as wide as its distance to the nearest edge; radius `-1` when the centre
/// is not strictly inside.
fn inner_disk(pts: &[Point2]) -> (Point2, f64) {
    let n = pts.len() as f64;
    let c = pts.iter().fold([0.0, 0.0], |s, p| [s[0] + p[0] / n, s[1] + p[1] / n]);
    let mut radius = f64::INFINITY;
    for (k, &a) in pts.iter().enumerate() {
        let b = pts[(k + 1) % pts.len()];
        // Clockwise ring: the inside lies right of every edge of a convex ring; a centre left of
        // (or on) an edge is not known to be inside.
        if crate::geom::orient2d(a, b, c) >= 0.0 {
            return (c, -1.0);
        }
        let ab = [b[0] - a[0], b[1] - a[1]];
        let len2 = ab[0] * ab[0] + ab[1] * ab[1];
        let t = if len2 > 0.0 { (((c[0] - a[0]) * ab[0] + (c[1] - a[1]) * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
        radius = radius.min(dist2(c, [a[0] + ab[0] * t, a[1] + ab[1] * t]));
    }
    (c, if radius.is_finite() { radius } else { -1.0 })
}

impl QueryMesh {
    /// The endpoints `(a, b)` of half-edge `h`, in its owner's counter-clockwise order.
    pub(crate) fn edge_endpoints(&self, h: usize) -> ([f64; 3], [f64; 3]) {
        let [a, b] = self.edge_ends[h];
        (a, b)
    }
}
