//! Tests of the agent grid: neighbour searches against brute force.

use super::*;

/// A neighbour's full canonical key, for the brute-force answers.
#[derive(Clone, Copy, Debug)]
struct Key {
    dist_sq: f32,
    position: Vec2,
    index: u32,
}

/// The canonical neighbour order: `(dist_sq, x, y)` ascending, then agent index.
fn key_less(a: &Key, b: &Key) -> bool {
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

/// A tiny deterministic generator (xorshift) for test positions.
fn xorshift(state: &mut u64) -> f32 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 40) as f32 / (1u64 << 24) as f32
}

/// The grid answers exactly what a brute-force scan with the same key answers, including
/// many exact distance ties (points on a coarse lattice), for cell sizes from far below to
/// far above the neighbour distance and far from the origin (where f32 cell indices round).
#[test]
fn neighbors_match_brute_force() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let cases = [
        (1usize, false, 0.0f32, 5.0f32),
        (7, false, 0.0, 5.0),
        (300, false, 0.0, 5.0),
        (300, false, 0.0, 0.01),
        (300, false, 0.0, 1000.0),
        (300, false, 0.0, 0.0),
        (300, false, 1.0e6, 1.7),
        (500, true, 0.0, 5.0),
        (500, true, 0.0, 1.0),
        (500, true, -3.0e4, 2.5),
    ];
    for &(n, lattice, offset, cell_size) in &cases {
        let positions: Vec<Vec2> = (0..n)
            .map(|_| {
                let x = xorshift(&mut state) * 60.0;
                let y = xorshift(&mut state) * 60.0;
                if lattice {
                    Vec2::new(x.floor() + offset, y.floor() - offset)
                } else {
                    Vec2::new(x + offset, y + offset)
                }
            })
            .collect();
        let zeros = vec![Vec2::ZERO; n];
        let radii = vec![1.0; n];
        let mut tree = AgentGrid::default();
        tree.build(&positions, &zeros, &radii, &[], &[], cell_size);
        let mut out = NeighborSearch::default();
        for slot in 0..n {
            for &(range_sq, k) in &[(25.0f32, 10usize), (100.0, 4), (4.0, 50)] {
                let me = tree.agents[slot];
                let mut all: Vec<Key> = tree
                    .agents
                    .iter()
                    .filter(|a| a.index != me.index)
                    .map(|a| Key { dist_sq: (me.position - a.position).abs_sq(), position: a.position, index: a.index })
                    .filter(|key| key.dist_sq < range_sq)
                    .collect();
                all.sort_by(|a, b| {
                    if key_less(a, b) {
                        std::cmp::Ordering::Less
                    } else if key_less(b, a) {
                        std::cmp::Ordering::Greater
                    } else {
                        std::cmp::Ordering::Equal
                    }
                });
                // A valid seed (the simulator's: the farthest of some k agents in range),
                // here the last k of the in-range list, which is as loose as a seed gets.
                let seed = (all.len() >= k).then(|| all[all.len() - k..].iter().map(|a| a.dist_sq).fold(0.0, f32::max));
                // The seed's agents as the simulator hands them over (keys, here in reverse
                // order): the answer when no one else lies within the seed, else to be
                // ignored.
                let hint_of = |agents: &[Key]| {
                    let mut hint = SeedHint::default();
                    for (entry, a) in hint.keys.iter_mut().zip(agents.iter().rev()) {
                        *entry = ((a.dist_sq.to_bits() as u64) << 32) | tree.slot_of[a.index as usize] as u64;
                    }
                    hint.len = agents.len();
                    hint
                };
                let loose_hint = (all.len() >= k && k <= MEMORY_CAP).then(|| hint_of(&all[all.len() - k..]));
                let tight_hint = (all.len() >= k && k <= MEMORY_CAP).then(|| hint_of(&all[..k]));
                all.truncate(k);
                let want: Vec<u32> = all.iter().map(|a| a.index).collect();
                tree.neighbors(slot, range_sq, k, f32::INFINITY, None, &mut out);
                let got: Vec<u32> = out.found.iter().map(|nb| tree.agents[nb.slot as usize].index).collect();
                assert_eq!(got, want, "unseeded: n={n} cell={cell_size} offset={offset} slot={slot} k={k}");
                // The tightest seed too: the k-th distance itself.
                let tight = (all.len() == k).then(|| all[k - 1].dist_sq);
                for (seed, hint) in [(seed, loose_hint), (tight, tight_hint)] {
                    let Some(seed) = seed else { continue };
                    for hint in [None, hint] {
                        let hinted = hint.is_some();
                        out.hint = hint.unwrap_or_default();
                        tree.neighbors(slot, range_sq, k, f32::INFINITY, Some(seed), &mut out);
                        let got: Vec<u32> = out.found.iter().map(|nb| tree.agents[nb.slot as usize].index).collect();
                        assert_eq!(
                            got, want,
                            "seed {seed} (hint {hinted}): n={n} cell={cell_size} offset={offset} slot={slot} k={k}"
                        );
                        assert_eq!(out.hint.len, 0, "the search consumes its hint");
                    }
                }
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
        index.rebuild(&positions, 0.0);
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

/// A remembered neighbour that is now inactive cannot vouch for a seed (the search would
/// stop at a bound that fewer than `max_neighbors` indexed agents meet).
#[test]
fn seed_ignores_inactive_neighbors() {
    let positions: Vec<Vec2> = (0..4).map(|i| Vec2::new(i as f32, 0.0)).collect();
    let zeros = vec![Vec2::ZERO; 4];
    let radii = vec![0.1; 4];
    let (mut grid, mut memory) = (AgentGrid::default(), NeighborMemory::default());
    let mut out = NeighborSearch::default();
    grid.build(&positions, &zeros, &radii, &[], &[], 1.0);
    memory.begin(grid.len(), 2);
    let stride = memory.stride();
    for slot in 0..grid.len() {
        grid.neighbors(slot, 100.0, 2, f32::INFINITY, None, &mut out);
        NeighborMemory::record(&mut memory.new[slot * stride..(slot + 1) * stride], &out.found);
    }
    memory.finish(&mut grid);
    // Agent 0 remembers agents 1 and 2; the farther is at squared distance 4.
    let slot_of = [0, 1, 2, 3];
    let seed = |inactive: &[bool]| {
        let mut hint = SeedHint::default();
        memory.seed(0, positions[0], 0.0, &positions, &[], inactive, 100.0, f32::INFINITY, 2, &slot_of, &mut hint)
    };
    assert_eq!(seed(&[]), Some(4.0));
    assert_eq!(seed(&[false, true, false, false]), None);
    // And the search without it finds agents 2 and 3.
    let inactive = [false, true, false, false];
    grid.build(&positions, &zeros, &radii, &[], &inactive, 1.0);
    let slot = grid.agents.iter().position(|a| a.index == 0).unwrap();
    grid.neighbors(slot, 100.0, 2, f32::INFINITY, seed(&inactive), &mut out);
    let found: Vec<u32> = out.found.iter().map(|n| n.index).collect();
    assert_eq!(found, [2, 3]);
}

/// Many agents on one spot share one cell and are ranked by index.
#[test]
fn coincident_agents_rank_by_index() {
    let n = 5000;
    let positions = vec![Vec2::new(3.0, 4.0); n];
    let zeros = vec![Vec2::ZERO; n];
    let radii = vec![1.0; n];
    let mut tree = AgentGrid::default();
    tree.build(&positions, &zeros, &radii, &[], &[], 5.0);
    let mut out = NeighborSearch::default();
    tree.neighbors(17, 1.0, 10, f32::INFINITY, None, &mut out);
    let got: Vec<u32> = out.found.iter().map(|nb| tree.agents[nb.slot as usize].index).collect();
    let want: Vec<u32> = (0..n as u32).filter(|&i| i != tree.agents[17].index).take(10).collect();
    assert_eq!(got, want);
}

/// Non-finite positions are left out of the index; the others still find each other, and
/// extreme but finite spreads still build a bounded grid.
#[test]
fn non_finite_and_extreme_positions() {
    let positions = vec![
        Vec2::new(0.0, 0.0),
        Vec2::new(f32::NAN, 1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(f32::INFINITY, 0.0),
        Vec2::new(-3.0e38, 3.0e38),
        Vec2::new(3.0e38, -3.0e38),
    ];
    let mut index = AgentIndex::new();
    let mut list = NeighborList::default();
    index.rebuild(&positions, 0.5);
    index.nearest(0, 10.0, 5, &mut list);
    assert_eq!(list.agents(), &[2]);
    index.nearest(1, 10.0, 5, &mut list);
    assert!(list.agents().is_empty());
    index.nearest(4, f32::MAX, 5, &mut list);
    // Squared distances overflow to infinity, which is never below a bound.
    assert!(list.agents().is_empty());
    assert!(index.grid.cell_start.len() <= MAX_CELLS_PER_AGENT * 4 + EXTRA_CELLS + 1);
}
