//! The agent index, a uniform grid rebuilt every step, and the k-nearest-neighbour query.
//!
//! Neighbours are ranked by the canonical key `(dist_sq, x, y)` of the neighbour (then its agent
//! index, which only matters for agents at the very same spot), so the answer is the exact set of
//! `max_neighbors` smallest keys among agents strictly closer than the neighbour distance: it does
//! not depend on how the index is built or in which order candidates are met, and it is what
//! RVO2's k-d tree answers with the same tie-break.
//!
//! The grid is row-major with a counting sort of the agents by cell, so the agents of a run of
//! cells along a row are one contiguous range: a query scans a few contiguous ranges of
//! structure-of-arrays positions instead of walking a tree. Positions, velocities and radii are
//! copied into cell order, which is also the order the velocity phase runs in (neighbours of
//! consecutive agents overlap, so their data is in cache).
//!
//! Exactness of the pruning: an agent's cell is `floor((x - origin) / cell_size)` computed in f32.
//! With at most [`MAX_CELLS_PER_AXIS`] cells per axis that index is within 1/64 of a cell of the
//! exact quotient, so an agent whose f32 squared distance is at most `bound` lies in a cell whose
//! index is within `sqrt(bound) * (1 + 1e-5) / cell_size + 1/32` of the query's exact quotient
//! ([`CELL_MARGIN`], [`DIST_SQ_SLACK`]). The query scans at least those cells, so no candidate
//! that could enter the list is skipped.

use super::vector::Vec2;

/// Cells per axis at most: keeps the f32 cell index within 1/64 of a cell of the exact quotient
/// (`2^16 * 2^-22`), which the pruning margin relies on.
const MAX_CELLS_PER_AXIS: usize = 1 << 16;

/// Cells at most per agent (plus [`EXTRA_CELLS`]): bounds the grid's memory (4 bytes a cell) when
/// agents are spread thin over a large area; a coarser grid then only costs scan time. Every
/// step clears and sums all cells, so more cells than agents cost more than the finer scan saves
/// (on RVO2's Circle, where agents fill a ring, 4 beat 16 and 64 by 10-40% per step).
const MAX_CELLS_PER_AGENT: usize = 4;

/// Cells allowed beyond `MAX_CELLS_PER_AGENT * n`, so that a handful of agents still get a grid.
const EXTRA_CELLS: usize = 1024;

/// How far, in cells, an agent's computed cell index may be from its exact quotient, doubled (the
/// query's and the neighbour's error): 2 × 1/64 of a cell.
const CELL_MARGIN: f64 = 1.0 / 32.0;

/// Relative slack between an f32 squared distance and the exact one (a few ulps; 1e-5 is far
/// more than the 2.4e-7 that two subtractions, two squares and an add can lose).
const DIST_SQ_SLACK: f64 = 1e-5;

/// An agent as seen by its neighbours: what ORCA needs from the other side.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GridAgent {
    pub(crate) position: Vec2,
    pub(crate) velocity: Vec2,
    pub(crate) radius: f32,
    /// Agent index (insertion order).
    pub(crate) index: u32,
    /// Height, for the height band (0 unless the simulator was given heights).
    pub(crate) height: f32,
}

/// A found neighbour: its agent index and grid slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Neighbor {
    pub(crate) index: u32,
    pub(crate) slot: u32,
}

/// The buffers of one neighbour search: the candidate keys it gathers and the neighbours it
/// finds, reused from query to query.
#[derive(Clone, Debug, Default)]
pub(crate) struct NeighborSearch {
    keys: Vec<u64>,
    /// Where [`Query::settle`] writes the keys in order (then swapped with `keys`), so that no
    /// step of the search fills or copies a buffer.
    spare: Vec<u64>,
    /// Keys of last step's neighbours at their current distances, in last step's order, as
    /// [`NeighborMemory::seed`] leaves them with the seed it returns (see
    /// [`AgentGrid::neighbors`]); the next search consumes them.
    pub(crate) hint: SeedHint,
    /// The neighbours found by the last search, in canonical order.
    pub(crate) found: Vec<Neighbor>,
}

/// The keys of a seed's agents (see [`NeighborSearch::hint`]): at most [`MEMORY_CAP`], in a
/// fixed array so that filling it checks no capacity.
#[derive(Clone, Debug, Default)]
pub(crate) struct SeedHint {
    keys: [u64; MEMORY_CAP],
    len: usize,
}

impl SeedHint {
    fn as_slice(&self) -> &[u64] {
        &self.keys[..self.len]
    }
}

/// The agent grid. Agents with a non-finite position are left out (no one sees them and they
/// see no one, as a NaN distance never compares below a bound).
#[derive(Clone, Debug, Default)]
pub(crate) struct AgentGrid {
    /// The indexed agents in cell order ("slots").
    pub(crate) agents: Vec<GridAgent>,
    /// Their x, y and height alone, for the scan.
    xs: Vec<f32>,
    ys: Vec<f32>,
    hs: Vec<f32>,
    /// First slot of each cell (row-major), plus the end.
    cell_start: Vec<u32>,
    origin: Vec2,
    cell_size: f32,
    inv_cell_size: f32,
    /// `1 / cell_size` in f64, for the query's reach.
    inv_cell_size_f64: f64,
    cells_x: usize,
    cells_y: usize,
    /// Scratch of the build: cell of each agent index (`u32::MAX`: left out).
    cell_of: Vec<u32>,
    /// Slot of each agent index (`u32::MAX`: left out), written by the build.
    pub(crate) slot_of: Vec<u32>,
}

impl AgentGrid {
    /// Rebuilds the grid over the current agents (`positions[i]` etc. of agent `i`), with cells of
    /// about `cell_size` (made coarser when the agents' extent needs too many cells; a
    /// non-positive or non-finite size picks one from the agents' density).
    /// `heights` may be empty (all at height 0); agents whose `inactive` entry is true are left
    /// out (`inactive` may be empty: none).
    pub(crate) fn build(
        &mut self,
        positions: &[Vec2],
        velocities: &[Vec2],
        radii: &[f32],
        heights: &[f32],
        inactive: &[bool],
        cell_size: f32,
    ) {
        let n = positions.len();
        let indexed = |i: usize| positions[i].is_finite() && !inactive.get(i).copied().unwrap_or(false);
        let mut min = Vec2::new(f32::INFINITY, f32::INFINITY);
        let mut max = Vec2::new(f32::NEG_INFINITY, f32::NEG_INFINITY);
        let mut finite = 0usize;
        for (i, p) in positions.iter().enumerate() {
            if indexed(i) {
                min = Vec2::new(min.x.min(p.x), min.y.min(p.y));
                max = Vec2::new(max.x.max(p.x), max.y.max(p.y));
                finite += 1;
            }
        }
        self.cell_start.clear();
        self.cells_x = 0;
        self.cells_y = 0;
        self.slot_of.clear();
        self.slot_of.resize(n, u32::MAX);
        if finite == 0 {
            self.agents.clear();
            self.xs.clear();
            self.ys.clear();
            self.hs.clear();
            return;
        }
        // Extents in f64: the difference of two finite f32 may overflow f32.
        let extent_x = max.x as f64 - min.x as f64;
        let extent_y = max.y as f64 - min.y as f64;
        let mut h = cell_size as f64;
        if !(h.is_finite() && h > 0.0) {
            // About four agents a cell if they were spread evenly over their box.
            h = (4.0 * extent_x.max(1e-6) * extent_y.max(1e-6) / finite as f64).sqrt();
        }
        let max_cells = MAX_CELLS_PER_AGENT * finite + EXTRA_CELLS;
        let (mut cells_x, mut cells_y);
        loop {
            // One cell beyond the extent, so that the largest coordinate's index is in range.
            cells_x = (extent_x / h).floor() + 2.0;
            cells_y = (extent_y / h).floor() + 2.0;
            if cells_x <= MAX_CELLS_PER_AXIS as f64
                && cells_y <= MAX_CELLS_PER_AXIS as f64
                && cells_x * cells_y <= max_cells as f64
                && (h as f32).is_finite()
                && (1.0 / h as f32).is_finite()
            {
                break;
            }
            h *= 1.5;
        }
        let (cells_x, cells_y) = (cells_x as usize, cells_y as usize);
        self.origin = min;
        self.cell_size = h as f32;
        self.inv_cell_size = 1.0 / h as f32;
        self.inv_cell_size_f64 = 1.0 / (h as f32) as f64;
        self.cells_x = cells_x;
        self.cells_y = cells_y;

        // Counting sort by cell (stable: agents of a cell stay in index order). Each cell's
        // count becomes its end, and the agents are placed from the last one back, which leaves
        // each entry at its cell's start.
        let cells = cells_x * cells_y;
        // The most cells any build over this many agents may take, so that a grid whose box
        // grows as agents move does not reallocate step after step.
        self.cell_start.reserve(max_cells + 1);
        self.cell_start.resize(cells + 1, 0);
        self.cell_of.resize(n, u32::MAX);
        // Every slot is written below; only a change of count needs a resize.
        self.agents.resize(finite, GridAgent::default());
        self.xs.resize(finite, 0.0);
        self.ys.resize(finite, 0.0);
        self.hs.resize(finite, 0.0);
        // The loops work on local slices: stores through them cannot alias the grid's fields,
        // so those stay in registers.
        let (origin, inv_cell_size) = (self.origin, self.inv_cell_size);
        let cell_coords = |p: Vec2| cell_coords_of(p, origin, inv_cell_size, cells_x, cells_y);
        let cell_start = &mut self.cell_start[..cells + 1];
        let cell_of = &mut self.cell_of[..n];
        for (i, (p, cell_of)) in positions.iter().zip(cell_of.iter_mut()).enumerate() {
            *cell_of = if indexed(i) {
                let (cx, cy) = cell_coords(*p);
                let cell = cy * cells_x + cx;
                cell_start[cell] += 1;
                cell as u32
            } else {
                u32::MAX
            };
        }
        for c in 1..cells {
            cell_start[c] += cell_start[c - 1];
        }
        cell_start[cells] = finite as u32;
        let (agents, xs, ys, hs) = (&mut self.agents[..], &mut self.xs[..], &mut self.ys[..], &mut self.hs[..]);
        let slot_of = &mut self.slot_of[..n];
        for i in (0..n).rev() {
            let cell = cell_of[i];
            if cell == u32::MAX {
                continue;
            }
            let start = &mut cell_start[cell as usize];
            *start -= 1;
            let slot = *start as usize;
            slot_of[i] = slot as u32;
            let position = positions[i];
            let height = heights.get(i).copied().unwrap_or(0.0);
            agents[slot] = GridAgent { position, velocity: velocities[i], radius: radii[i], index: i as u32, height };
            xs[slot] = position.x;
            ys[slot] = position.y;
            hs[slot] = height;
        }
    }

    /// The cell of a finite position, computed in f32 (see the module notes on its error).
    #[inline]
    fn cell_coords(&self, p: Vec2) -> (usize, usize) {
        cell_coords_of(p, self.origin, self.inv_cell_size, self.cells_x, self.cells_y)
    }

    /// Number of indexed agents (those with a finite position).
    pub(crate) fn len(&self) -> usize {
        self.agents.len()
    }

    /// Finds the `max_neighbors` nearest agents to the agent in `self_slot` among those with
    /// `dist_sq < range_sq`, ascending by the canonical key, into `search.found`.
    ///
    /// With a finite `band`, only agents whose height is within `band` of this one's count.
    ///
    /// `seed`, when given, must be the largest squared distance (computed as the scan does) to
    /// `max_neighbors` distinct other agents that all count (strictly within the range and the
    /// band): the answer then lies within it, and the search starts from that bound. Those
    /// agents' keys may be left in `search.hint` (in any order): when the scan gathers no one
    /// else, they are the answer and only need sorting (they come in last step's order, nearly
    /// sorted). The hint is used only with a seed, and cleared.
    pub(crate) fn neighbors(
        &self,
        self_slot: usize,
        range_sq: f32,
        max_neighbors: usize,
        band: f32,
        seed: Option<f32>,
        search: &mut NeighborSearch,
    ) {
        let NeighborSearch { keys, spare, hint, found: out } = search;
        out.clear();
        if max_neighbors == 0 || self_slot >= self.agents.len() || range_sq.is_nan() || range_sq <= 0.0 {
            hint.len = 0;
            return;
        }
        let position = self.agents[self_slot].position;
        // `d < range_sq` is `d <= the float below range_sq`.
        let mut bound = next_down(range_sq);
        if let Some(seed) = seed {
            if seed < range_sq {
                bound = seed;
            }
        }
        let height = self.agents[self_slot].height;
        let mut query = Query {
            grid: self,
            self_slot: self_slot as u32,
            position,
            height,
            band,
            max_neighbors,
            bound,
            keys,
            spare,
            hint: if seed.is_some() && hint.len == max_neighbors { hint.as_slice() } else { &[] },
            len: 0,
        };
        // The query's exact cell coordinates (f64 holds the f32 difference exactly, and the
        // reciprocal's rounding moves them by about 1e-11 of a cell, far inside `CELL_MARGIN`).
        let u = (position.x as f64 - self.origin.x as f64) * self.inv_cell_size_f64;
        let v = (position.y as f64 - self.origin.y as f64) * self.inv_cell_size_f64;
        let (cx, cy) = self.cell_coords(position);
        // Start with the 3×3 block around the query's own cell, then grow it: one ring at a time
        // while the list has room, else straight to the block the bound still allows.
        //
        // `done` is the bounding box of the blocks scanned so far. It may claim a corner cell that
        // was not scanned, but only one outside the reach of the current bound (each new block
        // lies in the old one grown by a ring, and is all of that which the bound reaches), and
        // the reach only shrinks as the bound does: such a cell never holds a candidate.
        let mut done = Block::empty();
        let mut want = match seed {
            Some(_) => self.reach(u, v, query.bound),
            None => Block::around(cx, cy, 1, self.cells_x, self.cells_y),
        };
        let mut answered = false;
        if seed.is_some() && query.hint.len() == max_neighbors {
            // Count first: when the seed's reach holds no one but the seed's own agents (nearly
            // always, as agents move little per step), they are the answer, and no key needs
            // writing.
            query.scan_block_minus::<true>(want, done);
            if query.len == max_neighbors {
                query.sort_hint();
                answered = true;
            } else {
                query.len = 0;
            }
        }
        // Otherwise grow the scanned block until the bound reaches nothing new.
        if !answered {
            loop {
                query.scan_block_minus::<false>(want, done);
                query.settle();
                if seed.is_some() && done.is_empty() && query.len == query.max_neighbors {
                    // The first block was the seed's reach, and the bound can only have shrunk
                    // below the seed: nothing the bound reaches is left.
                    break;
                }
                done = done.union(want);
                let reach = self.reach(u, v, query.bound);
                let next = if query.len == query.max_neighbors {
                    reach
                } else {
                    done.grown(1, self.cells_x, self.cells_y).intersect(reach)
                };
                if done.contains(next) {
                    break;
                }
                want = next;
            }
        }
        out.extend(query.keys[..query.len].iter().map(|&key| {
            let slot = key as u32;
            let agent = &self.agents[slot as usize];
            Neighbor { index: agent.index, slot }
        }));
        hint.len = 0;
    }

    /// The cells that may hold an agent within f32 squared distance `bound` of the point at
    /// exact cell coordinates `(u, v)`.
    fn reach(&self, u: f64, v: f64, bound: f32) -> Block {
        if bound.is_nan() || bound < 0.0 {
            return Block::empty();
        }
        // The reciprocal of the f32 cell size, rounded once, is within 1 ulp of the quotient's
        // divisor: far inside the slack.
        let r = (bound as f64).sqrt() * ((1.0 + DIST_SQ_SLACK) * self.inv_cell_size_f64) + CELL_MARGIN;
        let span = |c: f64, cells: usize| -> (usize, usize) {
            let last = (cells - 1) as f64;
            // Clamped to non-negative first, so truncation is the floor (and needs no libm call).
            let lo = (c - r).clamp(0.0, last);
            let hi = (c + r).clamp(0.0, last);
            // Below `MAX_CELLS_PER_AXIS`: u32 holds them (see `cell_coords`).
            (lo as u32 as usize, hi as u32 as usize)
        };
        let (x0, x1) = span(u, self.cells_x);
        let (y0, y1) = span(v, self.cells_y);
        Block { x0, x1: x1 + 1, y0, y1: y1 + 1 }
    }
}

/// Most candidates a search settles by counting ranks (a quadratic number of branch-free
/// comparisons, cheaper than a sort's mispredicted branches for lists of this size).
const RANK_SORT_MAX: usize = 32;

/// Most neighbours remembered per agent from one step to the next (agents that keep more are
/// searched without a seed).
const MEMORY_CAP: usize = 32;

/// Last step's neighbours of every agent: their distances now bound this step's search (agents
/// move little per step, so the bound is nearly the final one and few candidates pass it), and
/// when no other agent passes it they are the answer, in nearly the right order already.
#[derive(Clone, Debug, Default)]
pub(crate) struct NeighborMemory {
    /// Entries per slot.
    stride: usize,
    /// Agent indices of last step's neighbours, `stride` per slot of last step's grid, padded
    /// with `u32::MAX`.
    old: Vec<u32>,
    /// Slot in last step's grid of each agent index (`u32::MAX`: none).
    old_slot_of: Vec<u32>,
    /// This step's lists, being written (same layout, this step's slots).
    pub(crate) new: Vec<u32>,
}

impl NeighborMemory {
    /// Prepares this step's lists for `slots` slots and up to `max_neighbors` entries each.
    pub(crate) fn begin(&mut self, slots: usize, max_neighbors: usize) {
        let stride = max_neighbors.clamp(1, MEMORY_CAP);
        if stride != self.stride {
            // Old lists in another layout: forget them.
            self.stride = stride;
            self.old.clear();
            self.old_slot_of.clear();
        }
        // Every slot's chunk is written whole by `record`, so stale entries need no clearing.
        self.new.resize(slots * stride, u32::MAX);
    }

    /// Entries per slot of [`new`](Self::new).
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// Writes one slot's list (its chunk of `new`).
    pub(crate) fn record(chunk: &mut [u32], neighbors: &[Neighbor]) {
        let found = neighbors.len().min(chunk.len());
        for (entry, n) in chunk.iter_mut().zip(neighbors) {
            *entry = n.index;
        }
        chunk[found..].fill(u32::MAX);
    }

    /// The seed of agent `index` at `position` (see [`AgentGrid::neighbors`]): the largest
    /// current squared distance to its `max_neighbors` neighbours of last step, if it remembers
    /// that many and all are still indexed (not `inactive`) and strictly within the range.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn seed(
        &self,
        index: u32,
        position: Vec2,
        height: f32,
        positions: &[Vec2],
        heights: &[f32],
        inactive: &[bool],
        range_sq: f32,
        band: f32,
        max_neighbors: usize,
        slot_of: &[u32],
        hint: &mut SeedHint,
    ) -> Option<f32> {
        hint.len = 0;
        if max_neighbors == 0 || max_neighbors > self.stride {
            return None;
        }
        let old_slot = *self.old_slot_of.get(index as usize)? as usize;
        let list = self.old.get(old_slot * self.stride..old_slot * self.stride + max_neighbors)?;
        // At most `stride <= MEMORY_CAP` entries, so the hint holds them all.
        let keys = hint.keys.get_mut(..list.len())?;
        let me = (position, height, band, range_sq);
        // The loop for each case, so that no agent pays for a test that cannot fail.
        let seed = match (inactive.is_empty(), band == f32::INFINITY) {
            (true, true) => seed_keys::<false, false>(me, list, keys, positions, heights, inactive, slot_of),
            (true, false) => seed_keys::<false, true>(me, list, keys, positions, heights, inactive, slot_of),
            (false, true) => seed_keys::<true, false>(me, list, keys, positions, heights, inactive, slot_of),
            (false, false) => seed_keys::<true, true>(me, list, keys, positions, heights, inactive, slot_of),
        };
        debug_assert!(!list.contains(&index), "a list never holds its own agent");
        hint.len = list.len();
        seed
    }

    /// Slot in this step's grid of each agent index (`u32::MAX`: not indexed), once
    /// [`finish`](Self::finish) has run.
    pub(crate) fn slot_of(&self) -> &[u32] {
        &self.old_slot_of
    }

    /// Makes this step's lists the old ones, for the next step over the same agents (takes
    /// the grid's slot map; the grid's next build rewrites the buffer it gets back).
    pub(crate) fn finish(&mut self, grid: &mut AgentGrid) {
        std::mem::swap(&mut self.old_slot_of, &mut grid.slot_of);
        std::mem::swap(&mut self.old, &mut self.new);
    }
}

/// The seed's keys and bound (see [`NeighborMemory::seed`]) for the agent at `position` and
/// `height` (`band`, `range_sq` its limits): `None` if one of the listed agents is not indexed
/// or does not count. `INACTIVE`: some agents are inactive; `BANDED`: the band is finite.
#[inline(always)]
fn seed_keys<const INACTIVE: bool, const BANDED: bool>(
    (position, height, band, range_sq): (Vec2, f32, f32, f32),
    list: &[u32],
    keys: &mut [u64],
    positions: &[Vec2],
    heights: &[f32],
    inactive: &[bool],
    slot_of: &[u32],
) -> Option<f32> {
    let mut seed = 0.0f32;
    // Every condition is gathered without a branch: nearly every seed holds.
    let mut valid = true;
    for (&j, key) in list.iter().zip(keys) {
        // Padding (`u32::MAX`) is no agent.
        let other = *positions.get(j as usize)?;
        // An indexed agent's slot in this step's grid (a valid seed's agents all are).
        let slot = *slot_of.get(j as usize)?;
        // The scan's formula, on the same f32 values.
        let dx = position.x - other.x;
        let dy = position.y - other.y;
        let dist_sq = dx * dx + dy * dy;
        // `<` also rejects NaN.
        valid &= dist_sq < range_sq;
        if INACTIVE {
            valid &= !inactive.get(j as usize).copied().unwrap_or(false);
        }
        if BANDED {
            let gap = (height - heights.get(j as usize).copied().unwrap_or(0.0)).abs();
            // `<=` also rejects NaN.
            valid &= gap <= band;
        }
        // The larger one (a NaN, which makes the seed invalid anyway, is skipped): one
        // compare and select, where `f32::max` also orders NaN.
        seed = if dist_sq > seed { dist_sq } else { seed };
        // The scan's key (a valid seed's distances are non-negative and finite).
        *key = ((dist_sq.to_bits() as u64) << 32) | slot as u64;
    }
    valid.then_some(seed)
}

/// The cell of a finite position `p` in a grid of `cells_x` × `cells_y` cells from `origin`,
/// computed in f32 (see the module notes on its error).
#[inline]
fn cell_coords_of(p: Vec2, origin: Vec2, inv_cell_size: f32, cells_x: usize, cells_y: usize) -> (usize, usize) {
    let u = (p.x - origin.x) * inv_cell_size;
    let v = (p.y - origin.y) * inv_cell_size;
    // Non-negative by construction; the `min` only guards memory safety. Through u32 (which
    // holds every index, at most `MAX_CELLS_PER_AXIS`): a float's saturating conversion to
    // u32 takes fewer instructions than to usize.
    ((u.max(0.0) as u32 as usize).min(cells_x - 1), (v.max(0.0) as u32 as usize).min(cells_y - 1))
}

/// The largest f32 below `x` (for finite positive `x`; infinity gives `f32::MAX`).
fn next_down(x: f32) -> f32 {
    if x == f32::INFINITY {
        f32::MAX
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// A rectangle of cells `x0..x1` × `y0..y1` (empty when either range is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    x0: usize,
    x1: usize,
    y0: usize,
    y1: usize,
}

impl Block {
    fn empty() -> Block {
        Block { x0: 0, x1: 0, y0: 0, y1: 0 }
    }

    fn is_empty(self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    fn around(cx: usize, cy: usize, r: usize, cells_x: usize, cells_y: usize) -> Block {
        Block {
            x0: cx.saturating_sub(r),
            x1: (cx + r + 1).min(cells_x),
            y0: cy.saturating_sub(r),
            y1: (cy + r + 1).min(cells_y),
        }
    }

    fn grown(self, r: usize, cells_x: usize, cells_y: usize) -> Block {
        Block {
            x0: self.x0.saturating_sub(r),
            x1: (self.x1 + r).min(cells_x),
            y0: self.y0.saturating_sub(r),
            y1: (self.y1 + r).min(cells_y),
        }
    }

    fn intersect(self, o: Block) -> Block {
        Block { x0: self.x0.max(o.x0), x1: self.x1.min(o.x1), y0: self.y0.max(o.y0), y1: self.y1.min(o.y1) }
    }

    /// The smallest block holding both.
    fn union(self, o: Block) -> Block {
        if self.is_empty() {
            return o;
        }
        if o.is_empty() {
            return self;
        }
        Block { x0: self.x0.min(o.x0), x1: self.x1.max(o.x1), y0: self.y0.min(o.y0), y1: self.y1.max(o.y1) }
    }

    fn contains(self, o: Block) -> bool {
        o.is_empty() || (!self.is_empty() && self.x0 <= o.x0 && o.x1 <= self.x1 && self.y0 <= o.y0 && o.y1 <= self.y1)
    }
}

struct Query<'a> {
    grid: &'a AgentGrid,
    self_slot: u32,
    position: Vec2,
    height: f32,
    /// Height band (infinite: no band).
    band: f32,
    max_neighbors: usize,
    /// A candidate is gathered iff `dist_sq <= bound`: the float below `range_sq` while the list
    /// has room, then the worst kept entry's distance (ties with it can still win on `(x, y)`).
    bound: f32,
    /// Candidate keys `dist_sq bits << 32 | slot`: `keys[..len]` are gathered, and after
    /// [`settle`](Query::settle) they are the kept list in canonical order. For a non-negative
    /// f32 the bits order as the values do, so sorting the keys sorts by `(dist_sq, slot)`.
    keys: &'a mut Vec<u64>,
    /// The other buffer of [`NeighborSearch`].
    spare: &'a mut Vec<u64>,
    /// The keys of the seed's agents (exactly `max_neighbors`, or none).
    hint: &'a [u64],
    len: usize,
}

impl Query<'_> {
    /// Scans the cells of `want` that are not in `done`.
    /// With `COUNT`, only counts them in `len` (no keys are written).
    fn scan_block_minus<const COUNT: bool>(&mut self, want: Block, done: Block) {
        if want.is_empty() {
            return;
        }
        for y in want.y0..want.y1 {
            if done.is_empty() || y < done.y0 || y >= done.y1 {
                self.scan_row::<COUNT>(y, want.x0, want.x1);
            } else {
                self.scan_row::<COUNT>(y, want.x0, want.x1.min(done.x0));
                self.scan_row::<COUNT>(y, want.x0.max(done.x1), want.x1);
            }
        }
    }

    /// Scans cells `x0..x1` of row `y`: one contiguous range of slots.
    #[inline]
    fn scan_row<const COUNT: bool>(&mut self, y: usize, x0: usize, x1: usize) {
        if x0 >= x1 {
            return;
        }
        let grid = self.grid;
        let row = y * grid.cells_x;
        let begin = grid.cell_start[row + x0] as usize;
        let end = grid.cell_start[row + x1] as usize;
        if self.band == f32::INFINITY {
            self.scan_range::<false, COUNT>(begin, end);
        } else {
            self.scan_range::<true, COUNT>(begin, end);
        }
    }

    /// Gathers the agents of slots `begin..end` within the bound, except the querying agent
    /// (cut out of the range here, so the per-agent loop needs no test for it).
    #[inline]
    fn scan_range<const BAND: bool, const COUNT: bool>(&mut self, begin: usize, end: usize) {
        let me = self.self_slot as usize;
        if (begin..end).contains(&me) {
            self.gather::<BAND, COUNT>(begin, me);
            self.gather::<BAND, COUNT>(me + 1, end);
        } else {
            self.gather::<BAND, COUNT>(begin, end);
        }
    }

    /// Gathers the agents of slots `begin..end` within the bound, without branching on them:
    /// every key is written and the length grows only for those that pass. With `COUNT`, no key
    /// is written: the length only counts them.
    #[inline]
    fn gather<const BAND: bool, const COUNT: bool>(&mut self, begin: usize, end: usize) {
        let grid = self.grid;
        let (px, py) = (self.position.x, self.position.y);
        let need = if COUNT { 0 } else { self.len + (end - begin) };
        if self.keys.len() < need {
            self.keys.resize(need, 0);
        }
        let keys = &mut self.keys[..need];
        let mut len = self.len;
        let (bound, height, band) = (self.bound, self.height, self.band);
        let xs = &grid.xs[begin..end];
        let ys = &grid.ys[begin..end];
        // RVO2's absSq(self - other): (px - x)² + (py - y)².
        let dist_sq = |x: f32, y: f32| {
            let dx = px - x;
            let dy = py - y;
            dx * dx + dy * dy
        };
        let key = |dist_sq: f32, k: usize| ((dist_sq.to_bits() as u64) << 32) | (begin + k) as u64;
        if BAND {
            let hs = &grid.hs[begin..end];
            for (k, ((&x, &y), &h)) in xs.iter().zip(ys).zip(hs).enumerate() {
                let d = dist_sq(x, y);
                // Also rejects NaN.
                let take = d <= bound && (height - h).abs() <= band;
                if !COUNT {
                    keys[len] = key(d, k);
                }
                len += take as usize;
            }
        } else {
            // Without a band the heights are not read at all.
            for (k, (&x, &y)) in xs.iter().zip(ys).enumerate() {
                let d = dist_sq(x, y);
                // Also rejects NaN.
                let take = d <= bound;
                if !COUNT {
                    keys[len] = key(d, k);
                }
                len += take as usize;
            }
        }
        self.len = len;
    }

    /// Makes the seed's agents (`hint`) the kept list, in canonical order: for when the seed's
    /// reach holds no other candidate. Last step's order is nearly this step's, so an insertion
    /// sort takes a pass of predictable compares.
    fn sort_hint(&mut self) {
        let hint = self.hint;
        if self.keys.len() < hint.len() {
            self.keys.resize(hint.len(), 0);
        }
        let keys = &mut self.keys[..hint.len()];
        for (i, &key) in hint.iter().enumerate() {
            // Entries before `i` are sorted; `key` goes in among them.
            let mut j = i;
            while j > 0 && keys[j - 1] > key {
                keys[j] = keys[j - 1];
                j -= 1;
            }
            keys[j] = key;
        }
        self.settle_ties(hint.len());
    }

    /// Keeps the `max_neighbors` smallest gathered candidates by the canonical key, in order,
    /// and tightens the bound to the worst of them when the list is full.
    fn settle(&mut self) {
        let k = self.max_neighbors;
        let mut end = self.len;
        if self.len <= RANK_SORT_MAX {
            // Few candidates (a seeded search gathers about `k`): sort them all by rank, with
            // no data-dependent branch. Keys are distinct (slots are), so ranks are too, and
            // every entry of `spare[..len]` is written.
            if self.spare.len() < self.len {
                self.spare.resize(self.len, 0);
            }
            let gathered = &self.keys[..self.len];
            let sorted = &mut self.spare[..self.len];
            for &key in gathered {
                let rank = gathered.iter().filter(|&&other| other < key).count();
                sorted[rank] = key;
            }
            std::mem::swap(self.keys, self.spare);
            let keys = &mut self.keys[..self.len];
            if keys.len() > k {
                // Keep the ones tied with the k-th on distance: they may come first on (x, y).
                let worst = keys[k - 1] >> 32;
                end = k + keys[k..].iter().take_while(|&&key| key >> 32 == worst).count();
            }
        } else {
            let keys = &mut self.keys[..self.len];
            if keys.len() > k {
                // The k smallest by (dist_sq, slot), then every other one at the k-th distance.
                keys.select_nth_unstable(k - 1);
                let worst = keys[k - 1] >> 32;
                end = k;
                for i in k..keys.len() {
                    if keys[i] >> 32 == worst {
                        keys.swap(end, i);
                        end += 1;
                    }
                }
            }
            keys[..end].sort_unstable();
        }
        self.settle_ties(end);
    }

    /// Puts the runs of equal distance in `keys[..end]` (sorted by `(dist_sq, slot)`) in
    /// canonical order, keeps the first `max_neighbors`, and tightens the bound to the worst of
    /// them when the list is full.
    fn settle_ties(&mut self, end: usize) {
        let k = self.max_neighbors;
        let kept = &mut self.keys[..end];
        // Runs of equal distance go in canonical order: (x, y), then agent index. Ties are rare
        // after the first steps, so a branch-free pass first tells whether there is any.
        let tied = kept.windows(2).fold(false, |tied, pair| tied | ((pair[0] ^ pair[1]) >> 32 == 0));
        let agents = &self.grid.agents;
        let mut i = 0;
        while tied && i + 1 < kept.len() {
            let mut j = i + 1;
            while j < kept.len() && kept[j] >> 32 == kept[i] >> 32 {
                j += 1;
            }
            if j > i + 1 {
                kept[i..j].sort_unstable_by(|&a, &b| {
                    let (a, b) = (&agents[a as u32 as usize], &agents[b as u32 as usize]);
                    let x = a.position.x.partial_cmp(&b.position.x).unwrap_or(std::cmp::Ordering::Equal);
                    let y = a.position.y.partial_cmp(&b.position.y).unwrap_or(std::cmp::Ordering::Equal);
                    x.then(y).then(a.index.cmp(&b.index))
                });
            }
            i = j;
        }
        self.len = end.min(k);
        if self.len == k {
            self.bound = f32::from_bits((self.keys[k - 1] >> 32) as u32);
        }
    }
}

/// Exact nearest-agent search with the canonical tie-break (the simulator's grid), for code
/// that drives its own per-agent avoidance.
#[derive(Clone, Debug, Default)]
pub struct AgentIndex {
    grid: AgentGrid,
    zeros: Vec<Vec2>,
    radii: Vec<f32>,
}

/// Reusable result buffer of [`AgentIndex::nearest`].
#[derive(Clone, Debug, Default)]
pub struct NeighborList {
    search: NeighborSearch,
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

    /// Rebuilds the index over `positions` (agent `i` at `positions[i]`), with grid cells of
    /// about `cell_size` (a third of the neighbour distance suits crowds; 0 picks one from the
    /// agents' density).
    pub fn rebuild(&mut self, positions: &[Vec2], cell_size: f32) {
        self.zeros.resize(positions.len(), Vec2::ZERO);
        self.radii.resize(positions.len(), 0.0);
        self.grid.build(positions, &self.zeros, &self.radii, &[], &[], cell_size);
    }

    /// The `max_neighbors` agents nearest to `agent` that are strictly closer than
    /// `neighbor_dist`, ordered by `(dist_sq, x, y)`; nothing if `agent` is not indexed.
    pub fn nearest(&self, agent: usize, neighbor_dist: f32, max_neighbors: usize, out: &mut NeighborList) {
        out.agents.clear();
        out.search.found.clear();
        let Some(&slot) = self.grid.slot_of.get(agent) else {
            return;
        };
        // A negative or NaN range sees nobody (squaring would turn a negative one positive).
        if slot == u32::MAX || neighbor_dist.is_nan() || neighbor_dist < 0.0 {
            return;
        }
        self.grid.neighbors(
            slot as usize,
            neighbor_dist * neighbor_dist,
            max_neighbors,
            f32::INFINITY,
            None,
            &mut out.search,
        );
        let agents = &self.grid.agents;
        out.agents.extend(out.search.found.iter().map(|n| agents[n.slot as usize].index as usize));
    }
}

#[cfg(test)]
mod tests;
