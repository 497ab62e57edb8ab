//! Portal chains: runs of neighbouring polygons of one area type that each have exactly two
//! portals (fans along a pillar's arc, strips along stairs and long walls). A midpoint path
//! that enters such a run from one end can only leave it at the other, through every portal in
//! between, so the A* crosses a whole chain in one step of known length instead of pushing and
//! popping a node per polygon. Polygons with a single portal are dead ends, never worth
//! entering unless they hold the goal.
//!
//! Most polygons of an exact navmesh are of this kind: two thirds of them on the real levels
//! (fans of thin triangles along 1 cm arcs), and more on open floors split by long edges.

use super::{dist3, DisjointSets, QueryMesh, NONE};

/// [`Jump::exit`] of a portal into a polygon that has no other portal.
pub(crate) const DEAD_END: u32 = NONE - 1;

/// Where a search that crosses a half-edge comes out of the chain behind it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Jump {
    /// Sum of the 3D distances between the midpoints of the portals crossed, from this
    /// half-edge's midpoint to the exit's.
    pub(crate) length: f64,
    /// The half-edge leaving the chain's last polygon; [`DEAD_END`] when the polygon behind this
    /// half-edge has no other portal; `NONE` when it is not on a chain.
    pub(crate) exit: u32,
    /// The area type of the chain's polygons (they all share it).
    pub(crate) area: u16,
}

const NO_JUMP: Jump = Jump { length: 0.0, exit: NONE, area: 0 };

/// Chains of the portal graph and the jumps across them.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chains {
    /// Per polygon with two portals: its chain; `NONE` for the others.
    chain_of: Vec<u32>,
    /// Per chain: the half-edges through which it is left at either end.
    exits: Vec<[u32; 2]>,
    /// Per half-edge: the jump across the chain behind it.
    jumps: Vec<Jump>,
    /// Per half-edge leaving a two-portal polygon through one portal: the twin of the other
    /// (the half-edge a path enters through); `NONE` for the rest.
    entry: Vec<u32>,
}

impl Chains {
    /// Finds the chains of `mesh` and the jump of every half-edge (linear time). Polygons marked
    /// in `expand` (those holding an off-mesh link end) are never part of a chain nor dead ends:
    /// the search must stand in them to take or leave the link.
    pub(crate) fn build(mesh: &QueryMesh, expand: &[bool]) -> Chains {
        let data = mesh.mesh().data();
        let polys = data.polygons.len();
        let portals_of = |p: usize| {
            let first = data.polygons[p].first as usize;
            (first..first + data.polygons[p].vertex_count as usize).filter(|&h| mesh.half_edges[h].neighbour != NONE)
        };
        // A polygon to expand counts as a junction (more than two portals).
        let degree: Vec<usize> =
            (0..polys).map(|p| if expand.get(p) == Some(&true) { 3 } else { portals_of(p).count() }).collect();
        let linkable =
            |p: usize, q: usize| degree[p] == 2 && degree[q] == 2 && data.polygons[p].area == data.polygons[q].area;
        // Group two-portal polygons joined by a portal (and sharing an area type).
        let mut sets = DisjointSets::new(polys);
        for p in 0..polys {
            for h in portals_of(p) {
                let q = mesh.half_edges[h].neighbour as usize;
                if linkable(p, q) {
                    sets.union(p as u32, q as u32);
                }
            }
        }
        // Dense chain ids in polygon order.
        let mut id_of_root = vec![NONE; polys];
        let mut chain_of = vec![NONE; polys];
        let mut chains = 0;
        for p in 0..polys {
            if degree[p] != 2 {
                continue;
            }
            let r = sets.root(p as u32) as usize;
            if id_of_root[r] == NONE {
                id_of_root[r] = chains;
                chains += 1;
            }
            chain_of[p] = id_of_root[r];
        }
        let mut entry = vec![NONE; mesh.half_edge_count()];
        for p in (0..polys).filter(|&p| degree[p] == 2) {
            let mut two = portals_of(p);
            if let (Some(a), Some(b)) = (two.next(), two.next()) {
                entry[a] = mesh.half_edges[b].twin;
                entry[b] = mesh.half_edges[a].twin;
            }
        }
        let mut exits = vec![[NONE; 2]; chains as usize];
        let mut jumps = vec![NO_JUMP; mesh.half_edge_count()];
        for (h, he) in mesh.half_edges.iter().enumerate() {
            if he.neighbour != NONE && degree[he.neighbour as usize] == 1 {
                jumps[h].exit = DEAD_END;
            }
        }
        // Walk each chain from each of its two ends; every portal crossed on the way jumps to
        // the far end's exit, by the remaining length (summed from the far end). A ring of
        // two-portal polygons has no end, so it gets no jumps and no exits.
        let mut entries = Vec::new();
        for p in 0..polys {
            let c = chain_of[p];
            if c == NONE {
                continue;
            }
            for out in portals_of(p).filter(|&h| chain_of[mesh.half_edges[h].neighbour as usize] != c) {
                let Some(first) = Some(mesh.half_edges[out].twin).filter(|&t| t != NONE) else { continue };
                entries.clear();
                let mut e = first;
                // `e` enters a chain polygon; step to that polygon's other portal.
                while entries.len() <= polys {
                    entries.push(e);
                    let q = mesh.half_edges[e as usize].neighbour as usize;
                    if chain_of[q] != c {
                        break;
                    }
                    let twin = mesh.half_edges[e as usize].twin;
                    match portals_of(q).find(|&g| g as u32 != twin) {
                        Some(g) => e = g as u32,
                        None => break,
                    }
                }
                let exit = *entries.last().expect("the walk records its first entry");
                if chain_of[mesh.half_edges[exit as usize].neighbour as usize] == c {
                    continue; // a malformed chain that never ends: leave it without jumps
                }
                let slot = &mut exits[c as usize];
                if slot[0] == NONE {
                    slot[0] = exit;
                } else if slot[0] != exit {
                    slot[1] = exit;
                }
                let area = data.polygons[p].area;
                let mut remaining = 0.0;
                for w in entries.windows(2).rev() {
                    remaining += dist3(mesh.half_edges[w[0] as usize].mid, mesh.half_edges[w[1] as usize].mid);
                    jumps[w[0] as usize] = Jump { length: remaining, exit, area };
                }
            }
        }
        Chains { chain_of, exits, jumps, entry }
    }

    /// The jump across the chain behind half-edge `h`.
    #[inline]
    pub(crate) fn jump(&self, h: usize) -> Jump {
        self.jumps[h]
    }

    /// The half-edge through which a path enters the two-portal polygon that `h` leaves
    /// (`NONE` when that polygon has other than two portals).
    #[inline]
    pub(crate) fn entry_before(&self, h: usize) -> u32 {
        self.entry[h]
    }

    /// The exits of the chain holding polygon `poly` (`NONE` when it is on none).
    pub(crate) fn exits_around(&self, poly: u32) -> [u32; 2] {
        match self.chain_of.get(poly as usize) {
            Some(&c) if c != NONE => self.exits[c as usize],
            _ => [NONE; 2],
        }
    }
}
