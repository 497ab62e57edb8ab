//! The shortcut pass: shortens a string-pulled path by re-routing its corridor round the other
//! side of corners at vertices no wall touches, and round the far side of small islands.

use super::PathQuery;
use crate::geom::{orient2d_certain_sign, Point2};
use crate::query::obstacles::convex_hull_perimeter;
use crate::query::{dist2, funnel, xz, QueryFilter, QueryMesh, NONE};
use crate::tolerance::SHORTCUT_MIN_GAIN;

/// Upper bound on accepted shortcuts per query; each one strictly shortens the path, so this
/// only caps the work on pathological corridors.
const MAX_SHORTCUTS: usize = 256;

/// Length of a polyline in XZ.
fn xz_length(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| dist2(xz(w[0]), xz(w[1]))).sum()
}

/// A point of a string-pulled path, as the shortcut pass sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Corner {
    /// The certain sign of the path's turn there (0 at the ends or when float cannot tell).
    turn: i8,
    /// Whether it is a mesh vertex no wall touches.
    off_walls: bool,
    /// Its mesh vertex (`NONE` at the ends or when unknown).
    vertex: u32,
}

impl Corner {
    /// The small island this corner bends round, if any.
    fn island(&self, mesh: &QueryMesh) -> Option<u32> {
        if self.vertex == NONE || self.turn == 0 {
            return None;
        }
        mesh.small_island_of(self.vertex)
    }
}

/// Largest number of steps (portals crossed and island vertices passed) of a walk round an
/// island.
const ISLAND_WALK_STEPS: usize = 256;

/// Polygon `r` of the corridor that starts in `start_poly` and crosses the portals `edges`.
fn corridor_polygon(mesh: &QueryMesh, edges: &[u32], start_poly: u32, r: usize) -> u32 {
    match r.checked_sub(1).and_then(|i| edges.get(i)) {
        Some(&h) => mesh.edge_neighbour(h as usize).unwrap_or(start_poly),
        None => start_poly,
    }
}

impl PathQuery {
    /// Shortens a string-pulled path by re-routing its corridor: a corner at a vertex no wall
    /// touches is no obstacle, the corridor merely passes the vertex on the wrong side (a
    /// common misjudgement of the midpoint graph in fans of thin polygons). The corridor is
    /// routed around the vertex's other side, through the rest of its fan (only through areas
    /// no dearer than the ones it replaces), the string pulled again, and the change kept when
    /// the path got shorter; until no corner gives way. Then, for a run of corners round a
    /// small island (a pillar, a crate: a hole outline of at most 32 vertices), the same with
    /// the corridor walked round the island's other side, when a lower bound on that way (the
    /// convex hull of the island's far side) leaves room for it to be shorter.
    ///
    /// Casting rays between path points further apart (Detour's path-corridor visibility
    /// optimisation) was tried as well and dropped: on the real levels it shortened about one
    /// path in 3,000 and took a tenth of the query time.
    pub(super) fn shortcut(
        &mut self,
        mesh: &QueryMesh,
        filter: &QueryFilter,
        start_poly: u32,
        points: &mut Vec<[f64; 3]>,
    ) {
        let corridor_at = |edges: &[u32], r: usize| corridor_polygon(mesh, edges, start_poly, r);
        if points.is_empty() {
            return;
        }
        let mut length = xz_length(points);
        // Leading path points whose off-wall corners, and whose island runs, were looked at
        // with the path as it is now there: an accepted splice keeps the points before its
        // first anchor (`self.settled`), and a re-route ends that iteration before islands.
        let (mut vertices_seen, mut islands_seen) = (0, 0);
        let mut accepted = 0;
        'search: while accepted < MAX_SHORTCUTS {
            let m = self.edges.len();
            let k = points.len();
            self.note_corners(mesh, points);
            // A corner at a vertex off the walls is no obstacle: the corridor merely passes it on
            // the wrong side. Route the corridor around the vertex's other side.
            for j in vertices_seen.max(1)..k.saturating_sub(1) {
                let Corner { vertex, off_walls, turn } = self.corners[j];
                // A point straight in XZ (kept for its height) has no shorter way round.
                if vertex == NONE || !off_walls || turn == 0 {
                    continue;
                }
                let e = self.corner_at[j] as usize - 1;
                let has_v = |r: usize| {
                    let poly = corridor_at(&self.edges, r);
                    mesh.edges_at_vertex(poly, vertex).is_some()
                };
                let (mut lo, mut hi) = (e, e + 1);
                while lo > 0 && has_v(lo - 1) {
                    lo -= 1;
                }
                while hi < m && has_v(hi + 1) {
                    hi += 1;
                }
                if !self.around_the_other_side(mesh, start_poly, lo, hi, vertex) {
                    continue;
                }
                if self.crossed_is_affordable(mesh, filter, start_poly, lo, hi)
                    && self.adopt_if_shorter(mesh, lo, hi, &mut length, points)
                {
                    accepted += 1;
                    vertices_seen = self.settled;
                    islands_seen = islands_seen.min(self.settled);
                    continue 'search;
                }
            }
            // Corners at a small island: the corridor may pass the whole island on the wrong
            // side. Walk round it the other way when that could be shorter.
            // From the start of the island run the first unseen point belongs to.
            let mut from = islands_seen.max(1);
            while from > 1
                && from < k
                && self.corners[from].island(mesh).is_some_and(|i| self.corners[from - 1].island(mesh) == Some(i))
            {
                from -= 1;
            }
            for j in from..k.saturating_sub(1) {
                let Some(island) = self.corners[j].island(mesh) else { continue };
                // The run of corners on this island, and the points either side of it.
                if self.corners[j - 1].island(mesh) == Some(island) {
                    continue;
                }
                let mut last = j;
                while last + 2 < k && self.corners[last + 1].island(mesh) == Some(island) {
                    last += 1;
                }
                if !self.other_side_could_be_shorter(mesh, island, points, j, last) {
                    continue;
                }
                let e = self.corner_at[j] as usize - 1;
                let vertex = self.corners[j].vertex;
                let Some((lo, end)) = self.around_the_island(mesh, start_poly, e, vertex, island) else { continue };
                if self.crossed_is_affordable(mesh, filter, start_poly, lo, end)
                    && self.adopt_if_shorter(mesh, lo, end, &mut length, points)
                {
                    accepted += 1;
                    (vertices_seen, islands_seen) = (self.settled, self.settled);
                    continue 'search;
                }
            }
            break;
        }
    }

    /// Whether a path from the point before corner `first` to the point after corner `last`
    /// (a run of corners round `island`, all on one side of the line between those points)
    /// could be shorter round the island's other side. Such a path and the current one enclose
    /// the island, so it is at least as long as the far side of the convex hull of the two
    /// points and the island's vertices beyond their line (the shortest way round those).
    fn other_side_could_be_shorter(
        &mut self,
        mesh: &QueryMesh,
        island: u32,
        points: &[[f64; 3]],
        first: usize,
        last: usize,
    ) -> bool {
        let (a, b) = (xz(points[first - 1]), xz(points[last + 1]));
        let side = orient2d_certain_sign(a, b, xz(points[first]));
        if side == 0 || a == b || (first..=last).any(|j| orient2d_certain_sign(a, b, xz(points[j])) != side) {
            return false;
        }
        let current = xz_length(&points[first - 1..=last + 1]) * (1.0 - SHORTCUT_MIN_GAIN);
        let ab = dist2(a, b);
        // Quick bounds first: the same holds for the ray from any point of the island beyond
        // the line, such as the far point of a disk inside it, or an island vertex.
        let through = |w: Point2| dist2(a, w) + dist2(w, b);
        if let Some((c, r)) = mesh.island_disk(island) {
            let normal = [-f64::from(side) * -(b[1] - a[1]) / ab, -f64::from(side) * (b[0] - a[0]) / ab];
            let far = [c[0] + r * normal[0], c[1] + r * normal[1]];
            if orient2d_certain_sign(a, b, far) == -side && through(far) >= current {
                return false;
            }
        }
        let ring = &mesh.mesh().outlines()[island as usize].vertices;
        let verts = mesh.mesh().vertices();
        let beyond = |w: &Point2| orient2d_certain_sign(a, b, *w) == -side;
        if ring.iter().map(|&v| xz(verts[v as usize])).filter(beyond).any(|w| through(w) >= current) {
            return false;
        }
        self.hull.clear();
        self.hull.extend([a, b]);
        self.hull.extend(ring.iter().map(|&v| xz(verts[v as usize])).filter(beyond));
        let around = convex_hull_perimeter(&mut self.hull, &mut self.hull_chain) - ab;
        around < current
    }

    /// Fills `self.crossed` with the portals of a walk round `island` the other way than the
    /// corridor goes: from corridor polygon `e`, which the corridor leaves through portal `e` at
    /// island vertex `v` (a corner of the path), turning round one island vertex after another
    /// through the polygons at them. Where the walk meets the corridor before `e` (the corridor
    /// came along the island) it starts again from there; where it meets the corridor past `e`,
    /// it has gone round the island's far side: returns the corridor indices `(lo, end)` of
    /// the polygons it left and reached. `None` when it takes too long or leaves the island.
    fn around_the_island(
        &mut self,
        mesh: &QueryMesh,
        start_poly: u32,
        e: usize,
        v: u32,
        island: u32,
    ) -> Option<(usize, usize)> {
        // Each corridor polygon marked with its first index (plus one), cleared on return.
        let m = self.edges.len();
        for r in (0..=m).rev() {
            self.corridor_mark[corridor_polygon(mesh, &self.edges, start_poly, r) as usize] = r as u32 + 1;
        }
        let found = self.walk_round_island(mesh, corridor_polygon(mesh, &self.edges, start_poly, e), e, v, island);
        for r in 0..=m {
            self.corridor_mark[corridor_polygon(mesh, &self.edges, start_poly, r) as usize] = 0;
        }
        found
    }

    /// The walk of [`PathQuery::around_the_island`], over the marked corridor.
    fn walk_round_island(
        &mut self,
        mesh: &QueryMesh,
        from: u32,
        e: usize,
        v: u32,
        island: u32,
    ) -> Option<(usize, usize)> {
        let next = mesh.edge_neighbour(*self.edges.get(e)? as usize)?;
        let (mut lo, mut poly, mut pivot) = (e, from, v);
        let mut x = mesh.edge_at_vertex_away_from(from, v, next)?;
        self.crossed.clear();
        for _ in 0..ISLAND_WALK_STEPS {
            let he = mesh.half_edges[x];
            if he.neighbour == NONE {
                // The island's wall: move the pivot along it to the next island vertex.
                let (a, b) = mesh.edge_vertices(x);
                pivot = if a == pivot { b } else { a };
                if mesh.small_island_of(pivot) != Some(island) {
                    return None;
                }
                let (into, out_of) = mesh.edges_at_vertex(poly, pivot)?;
                x = if into == x { out_of } else { into };
                continue;
            }
            self.crossed.push(x as u32);
            poly = he.neighbour;
            if let Some(r) = self.corridor_mark[poly as usize].checked_sub(1) {
                let r = r as usize;
                if r > e {
                    return Some((lo, r));
                }
                if r >= lo {
                    return None;
                }
                lo = r;
                self.crossed.clear();
            }
            let (into, out_of) = mesh.edges_at_vertex(poly, pivot)?;
            x = if into as u32 == he.twin { out_of } else { into };
        }
        None
    }

    /// Splices `self.crossed` into the corridor in place of its portals `lo..hi` and pulls the
    /// string again; keeps the change when the path got shorter (returns whether it did).
    ///
    /// Only the stretch between the last corner before the splice and the first corner after
    /// it is pulled again. The sleeve a corridor spans is simply connected, so a path that is
    /// locally shortest everywhere is its one shortest path: when the two kept corners still
    /// turn the way they did (around the same vertices, which stay on the same sides), the
    /// spliced path equals what pulling the whole corridor gives. Otherwise the whole corridor
    /// is pulled.
    fn adopt_if_shorter(
        &mut self,
        mesh: &QueryMesh,
        lo: usize,
        hi: usize,
        length: &mut f64,
        points: &mut Vec<[f64; 3]>,
    ) -> bool {
        let (Some(&start), Some(&end)) = (points.first(), points.last()) else { return false };
        if self.edges[lo..hi] == self.crossed[..] {
            return false;
        }
        self.edges_alt.clear();
        self.edges_alt.extend_from_slice(&self.edges[..lo]);
        self.edges_alt.extend_from_slice(&self.crossed);
        self.edges_alt.extend_from_slice(&self.edges[hi..]);
        self.portals_alt.clear();
        self.portals_alt.extend_from_slice(&self.portals[..lo]);
        for &h in &self.crossed {
            self.portals_alt.push(mesh.portal_ends(h as usize));
        }
        self.portals_alt.extend_from_slice(&self.portals[hi..]);
        // Corner `j` lies on portal `corner_at[j] - 1` (0: the start, m + 1: the goal), in
        // order along the path. The anchors: the last corner on a portal before `lo`, the
        // first on a portal from `hi` on (both kept), and the portals between them.
        let k = points.len();
        let ja = (0..k).rev().find(|&j| self.corner_at[j] as usize <= lo).unwrap_or(0);
        // (The goal is not recorded when it repeats the last corner: then no point lies past
        // the splice for certain, and the whole corridor is pulled.)
        let jb = (ja + 1..k).find(|&j| self.corner_at[j] as usize > hi);
        let delta = self.crossed.len() as isize - (hi - lo) as isize;
        let base = self.corner_at[ja] as usize;
        let stop = jb.map_or(usize::MAX, |jb| (self.corner_at[jb] as isize - 1 + delta) as usize);
        let mut taut = false;
        if let Some(jb) = jb.filter(|_| base <= stop && stop <= self.portals_alt.len()) {
            let (a, b) = (points[ja], points[jb]);
            let portals = &self.portals_alt[base..stop];
            funnel::string_pull(a, b, portals, &mut self.points_alt, &mut self.corner_alt, &mut self.funnel);
            let n = self.points_alt.len();
            let keeps_turn = |j: usize, before: [f64; 3], after: [f64; 3]| {
                let turn = self.corners[j].turn;
                turn != 0 && orient2d_certain_sign(xz(before), xz(points[j]), xz(after)) == turn
            };
            taut = (ja == 0 || keeps_turn(ja, points[ja - 1], self.points_alt[1]))
                && (jb + 1 == k || keeps_turn(jb, self.points_alt[n - 2], points[jb + 1]));
            if taut && !self.full_repulls {
                let new_length = xz_length(&points[..=ja]) + xz_length(&self.points_alt) + xz_length(&points[jb..]);
                if new_length >= *length - SHORTCUT_MIN_GAIN * (1.0 + *length) {
                    return false;
                }
                points.splice(ja..=jb, self.points_alt.iter().copied());
                let shifted = self.corner_at[jb + 1..].iter().map(|&c| (c as isize + delta) as u32);
                self.corner_alt.iter_mut().for_each(|c| *c += base as u32);
                self.corner_alt.extend(shifted);
                self.corner_at.truncate(ja);
                self.corner_at.extend_from_slice(&self.corner_alt);
                self.accept_splice(points, length, ja);
                return true;
            }
        }
        let portals = &self.portals_alt;
        funnel::string_pull(start, end, portals, &mut self.points_alt, &mut self.corner_alt, &mut self.funnel);
        let new_length = xz_length(&self.points_alt);
        if new_length >= *length - SHORTCUT_MIN_GAIN * (1.0 + *length) {
            return false;
        }
        // Copied, not swapped, so the caller's buffer keeps its own capacity.
        points.clear();
        points.extend_from_slice(&self.points_alt);
        std::mem::swap(&mut self.corner_at, &mut self.corner_alt);
        self.accept_splice(points, length, if taut { ja } else { 0 });
        true
    }

    /// Makes the spliced corridor (`edges_alt`, `portals_alt`) the current one, and `length`
    /// that of `points`, the string pulled through it, whose first `settled` points and their
    /// corners are those of the path before.
    fn accept_splice(&mut self, points: &[[f64; 3]], length: &mut f64, settled: usize) {
        self.settled = settled;
        std::mem::swap(&mut self.edges, &mut self.edges_alt);
        std::mem::swap(&mut self.portals, &mut self.portals_alt);
        *length = xz_length(points);
    }

    /// Whether every polygon the portals in `self.crossed` lead into is allowed and costs no
    /// more than the cheapest of corridor polygons `lo..=hi`, which they would replace.
    fn crossed_is_affordable(
        &self,
        mesh: &QueryMesh,
        filter: &QueryFilter,
        start_poly: u32,
        lo: usize,
        hi: usize,
    ) -> bool {
        let nav = mesh.mesh();
        let cost_of = |poly: u32| filter.area_cost(nav, nav.data().polygons[poly as usize].area);
        let cheapest = (lo..=hi)
            .filter_map(|r| cost_of(corridor_polygon(mesh, &self.edges, start_poly, r)))
            .fold(f64::INFINITY, f64::min);
        self.crossed.iter().all(|&h| mesh.edge_neighbour(h as usize).and_then(cost_of).is_some_and(|c| c <= cheapest))
    }

    /// Fills `self.crossed` with the portals that lead around vertex `v` from corridor polygon
    /// `lo` to corridor polygon `hi` the other way than the corridor does (through the rest of
    /// `v`'s fan); false when there is no such way (a wall at `v`, a fan of more than 64
    /// polygons).
    fn around_the_other_side(&mut self, mesh: &QueryMesh, start_poly: u32, lo: usize, hi: usize, v: u32) -> bool {
        let corridor_at = |r: usize| corridor_polygon(mesh, &self.edges, start_poly, r);
        let (from, to) = (corridor_at(lo), corridor_at(hi));
        let Some(mut x) = mesh.edge_at_vertex_away_from(from, v, corridor_at(lo + 1)) else { return false };
        self.crossed.clear();
        for _ in 0..64 {
            let he = mesh.half_edges[x];
            if he.neighbour == NONE || he.neighbour == from {
                return false;
            }
            self.crossed.push(x as u32);
            if he.neighbour == to {
                return true;
            }
            let Some((a, b)) = mesh.edges_at_vertex(he.neighbour, v) else { return false };
            x = if a as u32 == he.twin { b } else { a };
        }
        false
    }

    /// Fills `self.corners` for `points`, the string pulled through the current corridor
    /// (`self.edges`, `self.corner_at`): each point's turn, vertex and whether walls touch it.
    fn note_corners(&mut self, mesh: &QueryMesh, points: &[[f64; 3]]) {
        self.corners.clear();
        for (j, p) in points.iter().enumerate() {
            let turn = match (j.checked_sub(1).and_then(|i| points.get(i)), points.get(j + 1)) {
                (Some(&a), Some(&b)) => orient2d_certain_sign(xz(a), xz(*p), xz(b)),
                _ => 0,
            };
            let v = self.corner_at.get(j).copied().unwrap_or(0) as usize;
            // A point the corridor does not place on a portal end is treated as unknown.
            let vertex = match v.checked_sub(1).and_then(|e| self.edges.get(e)) {
                Some(&h) if j > 0 && j + 1 < points.len() => {
                    let (first, last) = mesh.portal_run(h as usize);
                    let at_start = xz(mesh.edge_endpoints(first).0) == xz(*p);
                    mesh.edge_vertex_at(if at_start { first } else { last }, xz(*p))
                }
                _ => NONE,
            };
            let off_walls = vertex != NONE && !mesh.touches_wall(vertex);
            self.corners.push(Corner { turn, off_walls, vertex });
        }
    }
}
