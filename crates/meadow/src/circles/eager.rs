//! The eager reference planner: the whole graph (every bitangent of every pair of circles,
//! every hugging edge between them) built up front, then Dijkstra per query.
//!
//! It shares only the geometric primitives and line-of-sight test with the lazy planner, not
//! its candidate pruning, caching or search, so the two check each other. Building is
//! `O(n²)` tangents with a line-of-sight walk each, plus the hugging edges between them: fine
//! for tests and for hundreds or a few thousand circles, not for tens of thousands.

use super::geometry::{arc_blocked, distance, segments_cross, strictly_covered, sweep, tangent, Tangent};
use super::graph::{assemble, start_arrival_id, Arrival, Entry, SurfEdge, GOAL, START};
use super::world::World;
use super::{Circle, CirclePath, CirclePathError, CirclesError, SearchStats};
use crate::geom::Point2;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;
/// Placeholder for tangents the search never reads (nodes are only reached through real ones).
const NO_TANGENT: Tangent = Tangent { from_angle: 0.0, to_angle: 0.0, from: [0.0; 2], to: [0.0; 2], length: 0.0 };

/// Shortest paths among circles by Dijkstra over the fully built surfing/hugging graph.
#[derive(Clone, Debug)]
pub struct EagerPlanner {
    world: World,
    /// Every unblocked surfing edge between circles, grouped by the circle it leaves.
    edges: Vec<SurfEdge>,
    /// `edges[first_edge[i]..first_edge[i + 1]]` leave circle `i`.
    first_edge: Vec<u32>,
    /// Hugging adjacency of the arrival by edge `e`: `hugs[first_hug[e]..first_hug[e + 1]]`
    /// lists `(next edge, arc length + next edge length)`.
    first_hug: Vec<u32>,
    hugs: Vec<(u32, f64)>,
    build_stats: SearchStats,
    stats: SearchStats,
}

impl EagerPlanner {
    /// Builds the complete graph for a point agent of radius `agent_radius` among `circles`.
    pub fn new(circles: &[Circle], agent_radius: f64) -> Result<EagerPlanner, CirclesError> {
        let world = World::new(circles, agent_radius)?;
        let n = world.circles.len();
        let mut stats = SearchStats::default();
        let mut edges = Vec::new();
        let mut first_edge = Vec::with_capacity(n + 1);
        for (i, a) in world.circles.iter().enumerate() {
            first_edge.push(edges.len() as u32);
            for (j, b) in world.circles.iter().enumerate() {
                if i == j {
                    continue;
                }
                for sa in [1.0, -1.0] {
                    for sb in [1.0, -1.0] {
                        let Some(t) = tangent(a.center, a.radius, sa, b.center, b.radius, sb) else {
                            continue;
                        };
                        stats.surfing_edges += 1;
                        if strictly_covered(t.from_angle, world.covered(i))
                            || strictly_covered(t.to_angle, world.covered(j))
                            || world.segment_blocked(t.from, t.to, [i as u32, j as u32], &mut stats.circle_tests)
                        {
                            continue;
                        }
                        stats.visible_surfing_edges += 1;
                        edges.push(SurfEdge { to: j as u32, from_dir: sa, to_dir: sb, tangent: t });
                    }
                }
            }
        }
        first_edge.push(edges.len() as u32);
        let mut first_hug = Vec::with_capacity(edges.len() + 1);
        let mut hugs = Vec::new();
        for edge in &edges {
            first_hug.push(hugs.len() as u32);
            let circle = edge.to as usize;
            let radius = world.circles[circle].radius;
            for next in first_edge[circle]..first_edge[circle + 1] {
                let out = &edges[next as usize];
                if out.from_dir != edge.to_dir {
                    continue;
                }
                if let Some(arc) = hug(&world, circle, edge.to_dir, &edge.tangent, &out.tangent) {
                    stats.hugging_edges += 1;
                    hugs.push((next, radius * arc + out.tangent.length));
                }
            }
        }
        first_hug.push(hugs.len() as u32);
        Ok(EagerPlanner {
            world,
            edges,
            first_edge,
            first_hug,
            hugs,
            build_stats: stats,
            stats: SearchStats::default(),
        })
    }

    /// Work counters of the graph build.
    pub fn build_stats(&self) -> SearchStats {
        self.build_stats
    }

    /// Work counters of the last query (start and goal edges, search).
    pub fn last_stats(&self) -> SearchStats {
        self.stats
    }

    /// The shortest path from `from` to `to` for the agent, as segments and arcs.
    pub fn find_path(&mut self, from: Point2, to: Point2) -> Result<CirclePath, CirclePathError> {
        self.stats = SearchStats::default();
        self.world.check_query(from, to)?;
        let world = &self.world;
        let n = world.circles.len();
        let stats = &mut self.stats;
        // Tangents from the start and to the goal, per (circle, direction).
        let mut start_edges: Vec<Option<Tangent>> = vec![None; 2 * n];
        let mut goal_edges: Vec<Option<Tangent>> = vec![None; 2 * n];
        for (i, c) in world.circles.iter().enumerate() {
            for s in [1.0, -1.0] {
                let key = start_arrival_id(i as u32, s) as usize - 2;
                start_edges[key] = tangent(from, 0.0, 1.0, c.center, c.radius, s).filter(|t| {
                    stats.surfing_edges += 1;
                    !strictly_covered(t.to_angle, world.covered(i))
                        && !world.segment_blocked(t.from, t.to, [NONE, i as u32], &mut stats.circle_tests)
                });
                goal_edges[key] = tangent(c.center, c.radius, s, to, 0.0, s).filter(|t| {
                    stats.surfing_edges += 1;
                    !strictly_covered(t.from_angle, world.covered(i))
                        && !world.segment_blocked(t.from, t.to, [i as u32, NONE], &mut stats.circle_tests)
                });
            }
        }
        let first_cached = 2 + 2 * n as u32;
        let arrival = |node: u32| -> Arrival {
            if node < first_cached {
                let key = node - 2;
                let dir = if key & 1 == 0 { 1.0 } else { -1.0 };
                Arrival { circle: key / 2, dir, tangent: start_edges[key as usize].unwrap_or(NO_TANGENT) }
            } else {
                let edge = &self.edges[(node - first_cached) as usize];
                Arrival { circle: edge.to, dir: edge.to_dir, tangent: edge.tangent }
            }
        };
        let nodes = first_cached as usize + self.edges.len();
        let mut g = vec![f64::INFINITY; nodes];
        let mut parent = vec![NONE; nodes];
        let mut done = vec![false; nodes];
        let mut heap = BinaryHeap::new();
        let mut relax = |heap: &mut BinaryHeap<Entry>, node: u32, cost: f64, from_node: u32| {
            if cost < g[node as usize] {
                g[node as usize] = cost;
                parent[node as usize] = from_node;
                heap.push(Entry { f: cost, g: cost, node });
            }
        };
        relax(&mut heap, START, 0.0, NONE);
        while let Some(Entry { g: cost, node, .. }) = heap.pop() {
            if done[node as usize] {
                continue;
            }
            done[node as usize] = true;
            stats.nodes_expanded += 1;
            if node == GOAL {
                break;
            }
            if node == START {
                if !world.segment_blocked(from, to, [NONE, NONE], &mut stats.circle_tests) {
                    relax(&mut heap, GOAL, distance(from, to), START);
                }
                for (key, t) in start_edges.iter().enumerate() {
                    if let Some(t) = t {
                        relax(&mut heap, 2 + key as u32, t.length, START);
                    }
                }
                continue;
            }
            let here = arrival(node);
            let circle = here.circle as usize;
            if node >= first_cached {
                let e = (node - first_cached) as usize;
                for &(next, step) in &self.hugs[self.first_hug[e] as usize..self.first_hug[e + 1] as usize] {
                    stats.hugging_edges += 1;
                    relax(&mut heap, first_cached + next, cost + step, node);
                }
            } else {
                // Arrivals from the start are per query: their hugging edges too.
                let radius = world.circles[circle].radius;
                for next in self.first_edge[circle]..self.first_edge[circle + 1] {
                    let out = &self.edges[next as usize];
                    if out.from_dir != here.dir {
                        continue;
                    }
                    if let Some(arc) = hug(world, circle, here.dir, &here.tangent, &out.tangent) {
                        stats.hugging_edges += 1;
                        relax(&mut heap, first_cached + next, cost + radius * arc + out.tangent.length, node);
                    }
                }
            }
            let key = start_arrival_id(here.circle, here.dir) as usize - 2;
            if let Some(last) = goal_edges[key] {
                if let Some(arc) = hug(world, circle, here.dir, &here.tangent, &last) {
                    stats.hugging_edges += 1;
                    relax(&mut heap, GOAL, cost + world.circles[circle].radius * arc + last.length, node);
                }
            }
        }
        if !g[GOAL as usize].is_finite() {
            return Err(CirclePathError::NoPath);
        }
        let mut node = parent[GOAL as usize];
        let last = if node == START {
            Tangent { from_angle: 0.0, to_angle: 0.0, from, to, length: distance(from, to) }
        } else {
            let here = arrival(node);
            goal_edges[start_arrival_id(here.circle, here.dir) as usize - 2].unwrap_or(NO_TANGENT)
        };
        let mut chain = Vec::new();
        while node != START {
            chain.push(arrival(node));
            node = parent[node as usize];
        }
        chain.reverse();
        Ok(assemble(world, &chain, last))
    }
}

/// The swept angle of the hugging arc from arriving by `incoming` to leaving by `outgoing` on
/// `circle` in direction `s`, or `None` when an overlapping circle covers part of the arc or the
/// two surfing edges cross.
fn hug(world: &World, circle: usize, s: f64, incoming: &Tangent, outgoing: &Tangent) -> Option<f64> {
    let swept = sweep(incoming.to_angle, outgoing.from_angle, s);
    if arc_blocked(incoming.to_angle, swept, s, world.covered(circle))
        || segments_cross(incoming.from, incoming.to, outgoing.from, outgoing.to)
    {
        return None;
    }
    Some(swept)
}
