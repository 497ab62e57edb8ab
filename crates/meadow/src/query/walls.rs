//! Wall loops: the connected sets of wall edges (each obstacle outline, each region's outer
//! boundary) with their XZ bounds, so the shortcut pass can tell which obstacles a path could
//! pass on their far side.

use super::{grow_bounds, DisjointSets, EMPTY_BOUNDS, NONE};
use crate::asset::{EdgeLink, NavMesh};

/// What the wall loops say about one vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum LoopAt {
    /// No wall edge touches the vertex.
    OffWalls,
    /// More than two wall edges meet there (loops touching at a point): a loop can pass from
    /// one side of a path through such a vertex to the other.
    Pinched,
    /// The XZ bounds `[min_x, min_z, max_x, max_z]` of the vertex's loop.
    Bounds([f64; 4]),
}

/// Per vertex, the wall loop it lies on; per loop, its XZ bounds.
#[derive(Clone, Debug, Default)]
pub(crate) struct WallLoops {
    /// Per vertex: the index of its loop, or `NONE` when no wall edge touches it.
    of_vertex: Vec<u32>,
    /// Per vertex: whether more than two wall edges meet there.
    pinched: Vec<bool>,
    /// Per loop: `[min_x, min_z, max_x, max_z]`.
    bounds: Vec<[f64; 4]>,
}

impl WallLoops {
    /// Groups the wall edges of `mesh` by shared vertices (linear, union–find); loops that touch
    /// at a vertex become one.
    pub(crate) fn build(mesh: &NavMesh) -> WallLoops {
        let data = mesh.data();
        let verts = mesh.vertices();
        let mut sets = DisjointSets::new(verts.len());
        let mut degree = vec![0u32; verts.len()];
        for p in &data.polygons {
            let (first, n) = (p.first as usize, p.vertex_count as usize);
            for k in 0..n {
                if data.edge_links[first + k] != EdgeLink::Wall {
                    continue;
                }
                let (a, b) = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]);
                degree[a as usize] += 1;
                degree[b as usize] += 1;
                sets.union(a, b);
            }
        }
        let mut loop_of_root = vec![NONE; verts.len()];
        let mut of_vertex = vec![NONE; verts.len()];
        let mut bounds: Vec<[f64; 4]> = Vec::new();
        for v in 0..verts.len() {
            if degree[v] == 0 {
                continue;
            }
            let r = sets.root(v as u32) as usize;
            if loop_of_root[r] == NONE {
                loop_of_root[r] = bounds.len() as u32;
                bounds.push(EMPTY_BOUNDS);
            }
            let l = loop_of_root[r];
            of_vertex[v] = l;
            grow_bounds(&mut bounds[l as usize], verts[v]);
        }
        let pinched = degree.iter().map(|&d| d > 2).collect();
        WallLoops { of_vertex, pinched, bounds }
    }

    /// What the loops say about vertex `v`.
    pub(crate) fn at(&self, v: u32) -> LoopAt {
        match self.of_vertex.get(v as usize) {
            None | Some(&NONE) => LoopAt::OffWalls,
            Some(_) if self.pinched[v as usize] => LoopAt::Pinched,
            Some(&l) => LoopAt::Bounds(self.bounds[l as usize]),
        }
    }

    /// Number of loops.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.bounds.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::testmesh::{random_blocked, GridSpec};

    #[test]
    fn loops_join_exactly_the_wall_edges_that_touch() {
        for seed in 0..6 {
            let spec = GridSpec { cols: 9, rows: 7, blocked: random_blocked(9, 7, 0.25, seed), ..GridSpec::default() };
            let mesh = NavMesh::new(spec.build()).unwrap();
            let loops = WallLoops::build(&mesh);
            let data = mesh.data();
            let verts = mesh.vertices();
            // Brute force: grow groups of wall edges by shared endpoints until nothing changes.
            let mut walls: Vec<(u32, u32)> = Vec::new();
            for p in &data.polygons {
                let (first, n) = (p.first as usize, p.vertex_count as usize);
                for k in 0..n {
                    if data.edge_links[first + k] == EdgeLink::Wall {
                        walls.push((data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]));
                    }
                }
            }
            let mut group: Vec<usize> = (0..walls.len()).collect();
            let mut changed = true;
            while changed {
                changed = false;
                for i in 0..walls.len() {
                    for j in 0..walls.len() {
                        let touch = [walls[i].0, walls[i].1].iter().any(|v| *v == walls[j].0 || *v == walls[j].1);
                        if touch && group[j] > group[i] {
                            group[j] = group[i];
                            changed = true;
                        }
                    }
                }
            }
            let distinct: std::collections::BTreeSet<usize> = group.iter().copied().collect();
            assert_eq!(loops.len(), distinct.len(), "seed {seed}");
            for g in distinct {
                let members: Vec<u32> =
                    walls.iter().zip(&group).filter(|(_, &h)| h == g).flat_map(|(e, _)| [e.0, e.1]).collect();
                let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
                for &v in &members {
                    let p = verts[v as usize];
                    b = [b[0].min(p[0]), b[1].min(p[2]), b[2].max(p[0]), b[3].max(p[2])];
                }
                for &v in &members {
                    let degree = walls.iter().filter(|e| e.0 == v || e.1 == v).count();
                    let want = if degree > 2 { LoopAt::Pinched } else { LoopAt::Bounds(b) };
                    assert_eq!(loops.at(v), want, "seed {seed}: vertex {v}");
                }
            }
            // Vertices no wall touches have no loop.
            for v in 0..verts.len() as u32 {
                let on_wall = walls.iter().any(|e| e.0 == v || e.1 == v);
                assert_eq!(loops.at(v) != LoopAt::OffWalls, on_wall);
            }
        }
    }
}
