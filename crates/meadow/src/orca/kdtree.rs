//! The agent k-d tree, rebuilt every step, and the k-nearest-neighbour query.
//!
//! Neighbours are ranked by the canonical key `(dist_sq, x, y)` of the neighbour (then its agent
//! index, which only matters for agents at the very same spot), so the answer is the exact set of
//! `max_neighbors` smallest keys among agents strictly closer than the neighbour distance: it does
//! not depend on how the tree is built or in which order agents were added.
//!
//! The tree copies positions, velocities and radii into tree order so that a query touches
//! contiguous memory. The permutation persists between steps: agents move little per step, so the
//! partitions start almost sorted.

use super::vector::{max_f, sqr, Vec2};

/// Leaves hold at most this many agents.
const MAX_LEAF_SIZE: usize = 10;

/// A tree node: the agents `begin..end` (tree order) and their bounding box.
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    min: Vec2,
    max: Vec2,
    begin: u32,
    end: u32,
    left: u32,
    right: u32,
}

/// An agent as seen by its neighbours: what ORCA needs from the other side.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TreeAgent {
    pub(crate) position: Vec2,
    pub(crate) velocity: Vec2,
    pub(crate) radius: f32,
    /// Agent index (insertion order).
    pub(crate) index: u32,
}

/// A found neighbour: its full key (kept here so sorting needs no lookups) and its tree slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neighbor {
    pub(crate) dist_sq: f32,
    pub(crate) position: Vec2,
    pub(crate) index: u32,
    pub(crate) slot: u32,
}

/// The agent k-d tree.
#[derive(Clone, Debug, Default)]
pub(crate) struct AgentTree {
    /// Agent indices in tree order; persists between builds.
    order: Vec<u32>,
    /// The agents in tree order.
    pub(crate) agents: Vec<TreeAgent>,
    /// Their positions alone, for a compact leaf scan.
    positions: Vec<Vec2>,
    nodes: Vec<Node>,
}

impl AgentTree {
    /// Rebuilds the tree over the current agents (`positions[i]` etc. of agent `i`).
    pub(crate) fn build(&mut self, positions: &[Vec2], velocities: &[Vec2], radii: &[f32]) {
        let n = positions.len();
        if self.order.len() != n {
            // Keep the old permutation of the agents that remain, append the new ones.
            self.order.retain(|&i| (i as usize) < n);
            let old = self.order.len();
            self.order.extend(old as u32..n as u32);
        }
        self.agents.clear();
        self.agents.extend(self.order.iter().map(|&i| TreeAgent {
            position: positions[i as usize],
            velocity: velocities[i as usize],
            radius: radii[i as usize],
            index: i,
        }));
        self.nodes.clear();
        if n > 0 {
            self.nodes.resize(2 * n - 1, Node::default());
            self.build_recursive(0, n, 0);
        }
        for (slot, agent) in self.agents.iter().enumerate() {
            self.order[slot] = agent.index;
        }
        self.positions.clear();
        self.positions.extend(self.agents.iter().map(|a| a.position));
    }

    fn build_recursive(&mut self, begin: usize, end: usize, node: usize) {
        let mut min = self.agents[begin].position;
        let mut max = min;
        for a in &self.agents[begin + 1..end] {
            min.x = min.x.min(a.position.x);
            min.y = min.y.min(a.position.y);
            max.x = max.x.max(a.position.x);
            max.y = max.y.max(a.position.y);
        }
        self.nodes[node] = Node { min, max, begin: begin as u32, end: end as u32, left: 0, right: 0 };
        if end - begin <= MAX_LEAF_SIZE {
            return;
        }
        let width = max.x - min.x;
        let height = max.y - min.y;
        let vertical = width > height;
        let split = if vertical { 0.5 * (max.x + min.x) } else { 0.5 * (max.y + min.y) };
        // All agents on one spot (or non-finite input): no split separates them, keep a leaf.
        if !(width > 0.0 || height > 0.0) || !split.is_finite() {
            return;
        }
        let coord = |a: &TreeAgent| if vertical { a.position.x } else { a.position.y };
        let mut left = begin;
        let mut right = end;
        while left < right {
            while left < right && coord(&self.agents[left]) < split {
                left += 1;
            }
            while right > left && coord(&self.agents[right - 1]) >= split {
                right -= 1;
            }
            if left < right {
                self.agents.swap(left, right - 1);
                left += 1;
                right -= 1;
            }
        }
        // Guard against an empty side (only rounding at extreme magnitudes can cause it).
        let left = left.clamp(begin + 1, end - 1);
        let left_node = node + 1;
        let right_node = node + 2 * (left - begin);
        self.nodes[node].left = left_node as u32;
        self.nodes[node].right = right_node as u32;
        self.build_recursive(begin, left, left_node);
        self.build_recursive(left, end, right_node);
    }

    /// Finds the `max_neighbors` nearest agents to the agent in `self_slot` among those with
    /// `dist_sq < range_sq`, ascending by the canonical key; writes them to `out`.
    pub(crate) fn neighbors(&self, self_slot: usize, range_sq: f32, max_neighbors: usize, out: &mut Vec<Neighbor>) {
        out.clear();
        if max_neighbors == 0 || self.nodes.is_empty() {
            return;
        }
        let mut query = Query {
            tree: self,
            self_slot: self_slot as u32,
            position: self.agents[self_slot].position,
            max_neighbors,
            bound: range_sq,
            full: false,
            out,
        };
        query.visit(0);
    }
}

struct Query<'a> {
    tree: &'a AgentTree,
    self_slot: u32,
    position: Vec2,
    max_neighbors: usize,
    /// Squared distance of the worst entry once the list is full, else `range_sq`.
    bound: f32,
    full: bool,
    out: &'a mut Vec<Neighbor>,
}

impl Query<'_> {
    /// Squared distance from the query point to a node's box; never more than the f32 squared
    /// distance to any agent inside (rounding is monotone), so pruning on it is exact.
    #[inline]
    fn box_dist_sq(&self, node: &Node) -> f32 {
        let p = self.position;
        sqr(max_f(0.0, node.min.x - p.x))
            + sqr(max_f(0.0, p.x - node.max.x))
            + sqr(max_f(0.0, node.min.y - p.y))
            + sqr(max_f(0.0, p.y - node.max.y))
    }

    /// Whether something at this squared distance may still enter the list: strictly inside
    /// the range while the list has room; once full, ties with the worst entry can still win on
    /// `(x, y)`.
    #[inline]
    fn may_enter(&self, dist_sq: f32) -> bool {
        if self.full {
            dist_sq <= self.bound
        } else {
            dist_sq < self.bound
        }
    }

    fn visit(&mut self, node: usize) {
        let n = self.tree.nodes[node];
        if n.left == 0 {
            for slot in n.begin..n.end {
                self.insert(slot);
            }
            return;
        }
        let left = &self.tree.nodes[n.left as usize];
        let right = &self.tree.nodes[n.right as usize];
        let dist_left = self.box_dist_sq(left);
        let dist_right = self.box_dist_sq(right);
        let (first, d_first, second, d_second) = if dist_left < dist_right {
            (n.left, dist_left, n.right, dist_right)
        } else {
            (n.right, dist_right, n.left, dist_left)
        };
        if self.may_enter(d_first) {
            self.visit(first as usize);
            if self.may_enter(d_second) {
                self.visit(second as usize);
            }
        }
    }

    #[inline]
    fn insert(&mut self, slot: u32) {
        let position = self.tree.positions[slot as usize];
        let dist_sq = (self.position - position).abs_sq();
        // Fast rejection; also rejects NaN.
        if !self.may_enter(dist_sq) || slot == self.self_slot {
            return;
        }
        let candidate = Neighbor { dist_sq, position, index: self.tree.agents[slot as usize].index, slot };
        if self.full {
            let len = self.out.len();
            if !key_less(&candidate, &self.out[len - 1]) {
                return;
            }
            self.out[len - 1] = candidate;
        } else {
            self.out.push(candidate);
        }
        // Insertion sort by the canonical key.
        let mut i = self.out.len() - 1;
        while i > 0 && key_less(&candidate, &self.out[i - 1]) {
            self.out[i] = self.out[i - 1];
            i -= 1;
        }
        self.out[i] = candidate;
        if self.out.len() == self.max_neighbors {
            self.full = true;
            self.bound = self.out[self.out.len() - 1].dist_sq;
        }
    }
}

/// Exact nearest-agent search with the canonical tie-break (the simulator's k-d tree), for code
/// that drives its own per-agent avoidance.
#[derive(Clone, Debug, Default)]
pub struct AgentIndex {
    tree: AgentTree,
    /// Tree slot of each agent index.
    slot_of: Vec<u32>,
    zeros: Vec<Vec2>,
    radii: Vec<f32>,
}

/// Reusable result buffer of [`AgentIndex::nearest`].
#[derive(Clone, Debug, Default)]
pub struct NeighborList {
    found: Vec<Neighbor>,
    agents: Vec<usize>,
}

impl NeighborList {
    /// The neighbours found by the last query, nearest first (agent indices).
    pub fn agents(&self) -> &[usize] {
        &self.agents
    }
}

impl AgentIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds the index over `positions` (agent `i` at `positions[i]`).
    pub fn rebuild(&mut self, positions: &[Vec2]) {
        self.zeros.resize(positions.len(), Vec2::ZERO);
        self.radii.resize(positions.len(), 0.0);
        self.tree.build(positions, &self.zeros, &self.radii);
        self.slot_of.resize(positions.len(), 0);
        for (slot, agent) in self.tree.agents.iter().enumerate() {
            self.slot_of[agent.index as usize] = slot as u32;
        }
    }

    /// The `max_neighbors` agents nearest to `agent` that are strictly closer than
    /// `neighbor_dist`, ordered by `(dist_sq, x, y)`; nothing if `agent` is not indexed.
    pub fn nearest(&self, agent: usize, neighbor_dist: f32, max_neighbors: usize, out: &mut NeighborList) {
        out.agents.clear();
        let Some(&slot) = self.slot_of.get(agent) else {
            out.found.clear();
            return;
        };
        self.tree.neighbors(slot as usize, sqr(neighbor_dist), max_neighbors, &mut out.found);
        let agents = &self.tree.agents;
        out.agents.extend(out.found.iter().map(|n| agents[n.slot as usize].index as usize));
    }
}

/// The canonical neighbour order: `(dist_sq, x, y)` ascending, then agent index.
#[inline]
fn key_less(a: &Neighbor, b: &Neighbor) -> bool {
    if a.dist_sq != b.dist_sq {
        return a.dist_sq < b.dist_sq;
    }
    if a.position.x != b.position.x {
        return a.position.x < b.position.x;
    }
    if a.position.y != b.position.y {
        return a.position.y < b.position.y;
    }
    a.index < b.index
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift) for test positions.
    fn xorshift(state: &mut u64) -> f32 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 40) as f32 / (1u64 << 24) as f32
    }

    /// The tree answers exactly what a brute-force scan with the same key answers, including
    /// many exact distance ties (points on a coarse grid).
    #[test]
    fn neighbors_match_brute_force() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for &(n, grid) in &[(1usize, false), (7, false), (300, false), (500, true)] {
            let positions: Vec<Vec2> = (0..n)
                .map(|_| {
                    let x = xorshift(&mut state) * 60.0;
                    let y = xorshift(&mut state) * 60.0;
                    if grid {
                        Vec2::new(x.floor(), y.floor())
                    } else {
                        Vec2::new(x, y)
                    }
                })
                .collect();
            let zeros = vec![Vec2::ZERO; n];
            let radii = vec![1.0; n];
            let mut tree = AgentTree::default();
            // Build twice so the second build starts from a permuted order.
            tree.build(&positions, &zeros, &radii);
            tree.build(&positions, &zeros, &radii);
            let mut out = Vec::new();
            for slot in 0..n {
                for &(range_sq, k) in &[(25.0f32, 10usize), (100.0, 4), (4.0, 50)] {
                    tree.neighbors(slot, range_sq, k, &mut out);
                    let me = tree.agents[slot];
                    let mut all: Vec<(f32, Neighbor)> = tree
                        .agents
                        .iter()
                        .enumerate()
                        .filter(|(_, a)| a.index != me.index)
                        .map(|(slot, a)| {
                            let dist_sq = (me.position - a.position).abs_sq();
                            let nb = Neighbor { dist_sq, position: a.position, index: a.index, slot: slot as u32 };
                            (dist_sq, nb)
                        })
                        .filter(|(d, _)| *d < range_sq)
                        .collect();
                    all.sort_by(|(_, a), (_, b)| {
                        if key_less(a, b) {
                            std::cmp::Ordering::Less
                        } else if key_less(b, a) {
                            std::cmp::Ordering::Greater
                        } else {
                            std::cmp::Ordering::Equal
                        }
                    });
                    all.truncate(k);
                    let want: Vec<u32> = all.iter().map(|(_, a)| a.index).collect();
                    let got: Vec<u32> = out.iter().map(|nb| tree.agents[nb.slot as usize].index).collect();
                    assert_eq!(got, want, "n={n} slot={slot} range_sq={range_sq} k={k}");
                }
            }
        }
    }

    /// The public index keeps answering exactly when the agent set shrinks and grows.
    #[test]
    fn index_follows_changing_agent_counts() {
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut index = AgentIndex::new();
        let mut list = NeighborList::default();
        for n in [200usize, 50, 120] {
            let positions: Vec<Vec2> =
                (0..n).map(|_| Vec2::new(xorshift(&mut state) * 40.0, xorshift(&mut state) * 40.0)).collect();
            index.rebuild(&positions);
            for agent in 0..n {
                index.nearest(agent, 6.0, 5, &mut list);
                let mut want: Vec<(f32, usize)> = (0..n)
                    .filter(|&j| j != agent)
                    .map(|j| ((positions[agent] - positions[j]).abs_sq(), j))
                    .filter(|&(d, _)| d < 36.0)
                    .collect();
                // Random positions: no exact ties, so distance order is the canonical order.
                want.sort_by(|a, b| a.0.total_cmp(&b.0));
                want.truncate(5);
                let want: Vec<usize> = want.into_iter().map(|(_, j)| j).collect();
                assert_eq!(list.agents(), &want[..], "n={n} agent={agent}");
            }
            index.nearest(n, 6.0, 5, &mut list);
            assert!(list.agents().is_empty());
        }
    }

    /// Many agents on one spot make a leaf instead of a degenerate deep tree.
    #[test]
    fn coincident_agents_do_not_recurse_forever() {
        let n = 5000;
        let positions = vec![Vec2::new(3.0, 4.0); n];
        let zeros = vec![Vec2::ZERO; n];
        let radii = vec![1.0; n];
        let mut tree = AgentTree::default();
        tree.build(&positions, &zeros, &radii);
        let mut out = Vec::new();
        tree.neighbors(17, 1.0, 10, &mut out);
        let got: Vec<u32> = out.iter().map(|nb| tree.agents[nb.slot as usize].index).collect();
        let want: Vec<u32> = (0..n as u32).filter(|&i| i != tree.agents[17].index).take(10).collect();
        assert_eq!(got, want);
    }
}
