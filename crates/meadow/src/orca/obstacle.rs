//! Polygon obstacles and their BSP tree (RVO2's "obstacle k-d tree").
//!
//! Each obstacle is a closed polygon given counter-clockwise; each vertex starts the edge to the
//! next vertex. The tree is built once per obstacle set: a node's edge splits the plane by its
//! supporting line, and edges straddling that line are cut in two (the new vertex gets the next
//! free id), exactly as RVO2 does, so that every edge lies on one side of each ancestor line.

use super::vector::{dist_sq_point_segment, left_of, sqr, Vec2};
use crate::tolerance::RVO_EPSILON;

/// One obstacle vertex: the start of the edge to `next`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObstacleVertex {
    /// Position.
    pub point: Vec2,
    /// Id of the next vertex of the polygon (end of this vertex's edge).
    pub next: u32,
    /// Id of the previous vertex of the polygon.
    pub prev: u32,
    /// Unit direction of the edge from this vertex to the next.
    pub unit_dir: Vec2,
    /// Whether the polygon is convex at this vertex (always true for two-vertex obstacles).
    pub is_convex: bool,
    /// Height of the vertex (the third coordinate the plane leaves out; 0 unless given), for
    /// the simulator's height band.
    pub height: f32,
}

/// A node of the obstacle BSP tree: the edge starting at `vertex` and the two half-spaces.
#[derive(Clone, Copy, Debug)]
struct Node {
    vertex: u32,
    /// Subtree on the left of the edge's line.
    left: Option<u32>,
    /// Subtree on the right of the edge's line.
    right: Option<u32>,
}

/// Obstacle vertices (after splitting) and the BSP tree over their edges.
#[derive(Clone, Debug, Default)]
pub(crate) struct ObstacleTree {
    /// All vertices; ids index this. The first ones are the user's, in insertion order.
    pub(crate) vertices: Vec<ObstacleVertex>,
    nodes: Vec<Node>,
    root: Option<u32>,
}

/// Builds the vertex records for one polygon whose first vertex gets id `first_id`.
pub(crate) fn polygon_vertices(points: &[Vec2], heights: &[f32], first_id: u32) -> Vec<ObstacleVertex> {
    let n = points.len();
    (0..n)
        .map(|i| {
            let next_i = if i == n - 1 { 0 } else { i + 1 };
            let prev_i = if i == 0 { n - 1 } else { i - 1 };
            let is_convex = n == 2 || left_of(points[prev_i], points[i], points[next_i]) >= 0.0;
            ObstacleVertex {
                point: points[i],
                next: first_id + next_i as u32,
                prev: first_id + prev_i as u32,
                unit_dir: (points[next_i] - points[i]).normalize(),
                is_convex,
                height: heights.get(i).copied().unwrap_or(0.0),
            }
        })
        .collect()
}

impl ObstacleTree {
    /// Builds the tree over the given vertices (ids = indices), splitting straddling edges.
    pub(crate) fn build(vertices: Vec<ObstacleVertex>) -> Self {
        let mut tree = ObstacleTree { vertices, nodes: Vec::new(), root: None };
        let all: Vec<u32> = (0..tree.vertices.len() as u32).collect();
        tree.root = tree.build_recursive(&all);
        tree
    }

    /// Sorts `edges` by the side of edge `split` they lie on, cutting those that straddle it.
    fn build_recursive(&mut self, edges: &[u32]) -> Option<u32> {
        if edges.is_empty() {
            return None;
        }
        let split = self.choose_split(edges);
        let i1 = self.vertices[edges[split] as usize];
        let i2 = self.vertices[i1.next as usize];

        let mut left_edges = Vec::new();
        let mut right_edges = Vec::new();
        for (j, &edge) in edges.iter().enumerate() {
            if j == split {
                continue;
            }
            let j1 = self.vertices[edge as usize];
            let j2 = self.vertices[j1.next as usize];
            let j1_left = left_of(i1.point, i2.point, j1.point);
            let j2_left = left_of(i1.point, i2.point, j2.point);
            if j1_left >= -RVO_EPSILON && j2_left >= -RVO_EPSILON {
                left_edges.push(edge);
            } else if j1_left <= RVO_EPSILON && j2_left <= RVO_EPSILON {
                right_edges.push(edge);
            } else {
                // Edge j straddles the split line: cut it at the crossing.
                let t = (i2.point - i1.point).det(j1.point - i1.point) / (i2.point - i1.point).det(j1.point - j2.point);
                let split_point = j1.point + t * (j2.point - j1.point);
                let new_id = self.vertices.len() as u32;
                self.vertices.push(ObstacleVertex {
                    point: split_point,
                    next: j1.next,
                    prev: edge,
                    unit_dir: j1.unit_dir,
                    is_convex: true,
                    height: j1.height + t * (j2.height - j1.height),
                });
                let j2_id = j1.next;
                self.vertices[edge as usize].next = new_id;
                self.vertices[j2_id as usize].prev = new_id;
                if j1_left > 0.0 {
                    left_edges.push(edge);
                    right_edges.push(new_id);
                } else {
                    right_edges.push(edge);
                    left_edges.push(new_id);
                }
            }
        }

        let node_id = self.nodes.len() as u32;
        self.nodes.push(Node { vertex: edges[split], left: None, right: None });
        let left = self.build_recursive(&left_edges);
        let right = self.build_recursive(&right_edges);
        let node = &mut self.nodes[node_id as usize];
        node.left = left;
        node.right = right;
        Some(node_id)
    }

    /// RVO2's split choice: the edge minimising (larger side, smaller side), first one on ties.
    fn choose_split(&self, edges: &[u32]) -> usize {
        let mut best = 0;
        let mut min_left = edges.len();
        let mut min_right = edges.len();
        for (i, &edge_i) in edges.iter().enumerate() {
            let i1 = self.vertices[edge_i as usize];
            let i2 = self.vertices[i1.next as usize];
            let mut left_size = 0;
            let mut right_size = 0;
            let best_key = (min_left.max(min_right), min_left.min(min_right));
            for (j, &edge_j) in edges.iter().enumerate() {
                if i == j {
                    continue;
                }
                let j1 = self.vertices[edge_j as usize];
                let j2 = self.vertices[j1.next as usize];
                let j1_left = left_of(i1.point, i2.point, j1.point);
                let j2_left = left_of(i1.point, i2.point, j2.point);
                if j1_left >= -RVO_EPSILON && j2_left >= -RVO_EPSILON {
                    left_size += 1;
                } else if j1_left <= RVO_EPSILON && j2_left <= RVO_EPSILON {
                    right_size += 1;
                } else {
                    left_size += 1;
                    right_size += 1;
                }
                if (left_size.max(right_size), left_size.min(right_size)) >= best_key {
                    break;
                }
            }
            if (left_size.max(right_size), left_size.min(right_size)) < best_key {
                min_left = left_size;
                min_right = right_size;
                best = i;
            }
        }
        best
    }

    /// Collects every edge within `sqrt(range_sq)` of `position` that `position` is on the right
    /// of (faces), as `(dist_sq, vertex id)` sorted by that key. `stack` is scratch space.
    ///
    /// With a finite `band`, only edges whose height range comes within `band` of `height` count
    /// (walls of other floors are left out).
    pub(crate) fn neighbors(
        &self,
        position: Vec2,
        height: f32,
        band: f32,
        range_sq: f32,
        out: &mut Vec<(f32, u32)>,
        stack: &mut Vec<u32>,
    ) {
        out.clear();
        stack.clear();
        stack.extend(self.root);
        // The result is sorted by a total key, so the traversal order does not matter; an
        // explicit stack keeps deep trees (large convex polygons) off the call stack.
        while let Some(node) = stack.pop() {
            let node = self.nodes[node as usize];
            let o1 = self.vertices[node.vertex as usize];
            let o2 = self.vertices[o1.next as usize];
            let agent_left_of_line = left_of(o1.point, o2.point, position);
            let (near, far) = if agent_left_of_line >= 0.0 { (node.left, node.right) } else { (node.right, node.left) };
            stack.extend(near);
            let dist_sq_line = sqr(agent_left_of_line) / (o2.point - o1.point).abs_sq();
            if dist_sq_line < range_sq {
                if agent_left_of_line < 0.0 && within_band(o1.height, o2.height, height, band) {
                    // Only edges the agent is on the right of (outside the polygon) matter.
                    let dist_sq = dist_sq_point_segment(o1.point, o2.point, position);
                    if dist_sq < range_sq {
                        insert_sorted(out, (dist_sq, node.vertex));
                    }
                }
                // Edges beyond the line are at least this far away.
                stack.extend(far);
            }
        }
    }
}

/// Whether an edge between heights `a` and `b` comes within `band` of `height` (always with an
/// infinite band).
#[inline]
fn within_band(a: f32, b: f32, height: f32, band: f32) -> bool {
    band == f32::INFINITY || (height >= a.min(b) - band && height <= a.max(b) + band)
}

/// Inserts keeping `(dist_sq, id)` ascending (the canonical tie-break by vertex id).
fn insert_sorted(list: &mut Vec<(f32, u32)>, item: (f32, u32)) {
    let mut i = list.len();
    list.push(item);
    while i > 0 {
        let prev = list[i - 1];
        let less = item.0 < prev.0 || (item.0 == prev.0 && item.1 < prev.1);
        if !less {
            break;
        }
        list[i] = prev;
        i -= 1;
    }
    list[i] = item;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x0: f32, y0: f32, x1: f32, y1: f32) -> Vec<Vec2> {
        vec![Vec2::new(x0, y0), Vec2::new(x1, y0), Vec2::new(x1, y1), Vec2::new(x0, y1)]
    }

    /// RVO2's Blocks obstacles: its BSP build splits nothing (README of the RVO2 reference data).
    #[test]
    fn blocks_obstacles_are_not_split() {
        let squares = [
            [(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)],
            [(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)],
            [(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)],
            [(-10.0, -40.0), (-10.0, -10.0), (-40.0, -10.0), (-40.0, -40.0)],
        ];
        let mut vertices = Vec::new();
        for square in squares {
            let points: Vec<Vec2> = square.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
            let first = vertices.len() as u32;
            vertices.extend(polygon_vertices(&points, &[], first));
        }
        let tree = ObstacleTree::build(vertices);
        assert_eq!(tree.vertices.len(), 16);
        assert!(tree.vertices.iter().all(|v| v.is_convex));
    }

    /// The BSP query finds exactly the brute-force set of facing edges in range, in key order.
    #[test]
    fn query_matches_brute_force() {
        // Two squares plus an L-shaped (non-convex) polygon whose edges straddle other lines.
        let mut vertices = polygon_vertices(&square(0.0, 0.0, 4.0, 4.0), &[], 0);
        vertices.extend(polygon_vertices(&square(10.0, -3.0, 13.0, 9.0), &[], 4));
        let l_shape = [
            Vec2::new(-8.0, -8.0),
            Vec2::new(20.0, -8.0),
            Vec2::new(20.0, -6.0),
            Vec2::new(-6.0, -6.0),
            Vec2::new(-6.0, 12.0),
            Vec2::new(-8.0, 12.0),
        ];
        vertices.extend(polygon_vertices(&l_shape, &[], 8));
        let tree = ObstacleTree::build(vertices);
        assert!(tree.vertices.len() > 14, "expected some split edges");
        let range_sq = 30.0;
        let mut got = Vec::new();
        let mut stack = Vec::new();
        for ix in -40..=60 {
            for iy in -40..=60 {
                let p = Vec2::new(ix as f32 * 0.5 + 0.25, iy as f32 * 0.5 + 0.125);
                tree.neighbors(p, 0.0, f32::INFINITY, range_sq, &mut got, &mut stack);
                let mut want: Vec<(f32, u32)> = Vec::new();
                for (id, v) in tree.vertices.iter().enumerate() {
                    let q = tree.vertices[v.next as usize].point;
                    if left_of(v.point, q, p) < 0.0 {
                        let d = dist_sq_point_segment(v.point, q, p);
                        if d < range_sq {
                            insert_sorted(&mut want, (d, id as u32));
                        }
                    }
                }
                assert_eq!(got, want, "at {p:?}");
            }
        }
    }
}
