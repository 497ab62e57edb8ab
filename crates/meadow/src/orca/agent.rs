//! Per-agent parameters and the ORCA velocity computation for one agent.

use super::agent_grid::{GridAgent, Neighbor, NeighborSearch};
use super::linear_program::{linear_program_2, linear_program_3, Line};
use super::obstacle::ObstacleVertex;
use super::vector::{sqr, Vec2};
use crate::tolerance::RVO_EPSILON;

/// The ORCA parameters of one agent (RVO2's per-agent settings).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgentParams {
    /// Only agents strictly closer than this (centre to centre) are considered. Units: distance;
    /// limits: >= 0.
    pub neighbor_dist: f32,
    /// At most this many nearest agents are considered. Limits: any; 0 ignores other agents.
    pub max_neighbors: usize,
    /// How far ahead, in time, collisions with other agents are avoided. Limits: > 0.
    pub time_horizon: f32,
    /// How far ahead, in time, collisions with obstacles are avoided. Limits: > 0.
    pub time_horizon_obst: f32,
    /// Radius of the agent's disc. Limits: >= 0.
    pub radius: f32,
    /// Maximum speed. Limits: >= 0.
    pub max_speed: f32,
}

/// The computing agent's own state, read-only during the velocity phase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SelfState {
    pub(crate) position: Vec2,
    pub(crate) velocity: Vec2,
    pub(crate) pref_velocity: Vec2,
    pub(crate) params: AgentParams,
    /// Agent index (insertion order).
    pub(crate) index: u32,
}

/// Scratch buffers for one velocity computation, reused across agents.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) obstacle_neighbors: Vec<(f32, u32)>,
    pub(crate) obstacle_stack: Vec<u32>,
    pub(crate) agent_neighbors: NeighborSearch,
    pub(crate) lines: Vec<Line>,
    pub(crate) proj_lines: Vec<Line>,
}

/// Left tangent direction from the origin to a disc of `radius` at `rel` (`dist_sq = |rel|²`).
#[inline]
fn left_leg(rel: Vec2, leg: f32, radius: f32, dist_sq: f32) -> Vec2 {
    Vec2::new(rel.x * leg - rel.y * radius, rel.x * radius + rel.y * leg) / dist_sq
}

/// Right tangent direction from the origin to a disc of `radius` at `rel`.
#[inline]
fn right_leg(rel: Vec2, leg: f32, radius: f32, dist_sq: f32) -> Vec2 {
    Vec2::new(rel.x * leg + rel.y * radius, -rel.x * radius + rel.y * leg) / dist_sq
}

/// Appends the ORCA lines of the obstacle edges in `obstacle_neighbors` (in that order).
fn obstacle_lines(
    me: &SelfState,
    obstacle_neighbors: &[(f32, u32)],
    vertices: &[ObstacleVertex],
    lines: &mut Vec<Line>,
) {
    let position = me.position;
    let velocity = me.velocity;
    let radius = me.params.radius;
    let inv_time_horizon_obst = 1.0 / me.params.time_horizon_obst;

    for &(_, id) in obstacle_neighbors {
        let mut obstacle1 = &vertices[id as usize];
        let mut obstacle2 = &vertices[obstacle1.next as usize];
        let relative_position1 = obstacle1.point - position;
        let relative_position2 = obstacle2.point - position;

        // Skip the edge if its velocity obstacle is already covered by earlier lines.
        let already_covered = lines.iter().any(|line| {
            (inv_time_horizon_obst * relative_position1 - line.point).det(line.direction)
                - inv_time_horizon_obst * radius
                >= -RVO_EPSILON
                && (inv_time_horizon_obst * relative_position2 - line.point).det(line.direction)
                    - inv_time_horizon_obst * radius
                    >= -RVO_EPSILON
        });
        if already_covered {
            continue;
        }

        let dist_sq1 = relative_position1.abs_sq();
        let dist_sq2 = relative_position2.abs_sq();
        let radius_sq = sqr(radius);
        let obstacle_vector = obstacle2.point - obstacle1.point;
        let s = (-relative_position1).dot(obstacle_vector) / obstacle_vector.abs_sq();
        let dist_sq_line = (-relative_position1 - s * obstacle_vector).abs_sq();

        let origin_line = |direction: Vec2| Line { point: Vec2::ZERO, direction };
        if s < 0.0 && dist_sq1 <= radius_sq {
            // Already colliding with the left vertex; a non-convex one is handled by its edges.
            if obstacle1.is_convex {
                let d = Vec2::new(-relative_position1.y, relative_position1.x).normalize();
                lines.push(origin_line(d));
            }
            continue;
        }
        if s > 1.0 && dist_sq2 <= radius_sq {
            // Colliding with the right vertex; skip if non-convex or the next edge covers it.
            if obstacle2.is_convex && relative_position2.det(obstacle2.unit_dir) >= 0.0 {
                let d = Vec2::new(-relative_position2.y, relative_position2.x).normalize();
                lines.push(origin_line(d));
            }
            continue;
        }
        if (0.0..=1.0).contains(&s) && dist_sq_line <= radius_sq {
            // Colliding with the edge itself.
            lines.push(origin_line(-obstacle1.unit_dir));
            continue;
        }

        // No collision: find the legs. Seen obliquely, both legs come from one vertex; at a
        // non-convex vertex the leg continues the cut-off line.
        let mut left_leg_direction;
        let mut right_leg_direction;
        if s < 0.0 && dist_sq_line <= radius_sq {
            // Seen obliquely so that the left vertex defines the velocity obstacle.
            if !obstacle1.is_convex {
                continue;
            }
            obstacle2 = obstacle1;
            let leg1 = (dist_sq1 - radius_sq).sqrt();
            left_leg_direction = left_leg(relative_position1, leg1, radius, dist_sq1);
            right_leg_direction = right_leg(relative_position1, leg1, radius, dist_sq1);
        } else if s > 1.0 && dist_sq_line <= radius_sq {
            // Seen obliquely so that the right vertex defines the velocity obstacle.
            if !obstacle2.is_convex {
                continue;
            }
            obstacle1 = obstacle2;
            let leg2 = (dist_sq2 - radius_sq).sqrt();
            left_leg_direction = left_leg(relative_position2, leg2, radius, dist_sq2);
            right_leg_direction = right_leg(relative_position2, leg2, radius, dist_sq2);
        } else {
            left_leg_direction = if obstacle1.is_convex {
                let leg1 = (dist_sq1 - radius_sq).sqrt();
                left_leg(relative_position1, leg1, radius, dist_sq1)
            } else {
                -obstacle1.unit_dir
            };
            right_leg_direction = if obstacle2.is_convex {
                let leg2 = (dist_sq2 - radius_sq).sqrt();
                right_leg(relative_position2, leg2, radius, dist_sq2)
            } else {
                obstacle1.unit_dir
            };
        }

        // A leg at a convex vertex must not point into the neighbouring edge; use that edge's
        // line instead ("foreign" leg, which then adds no constraint of its own).
        let left_neighbor = &vertices[obstacle1.prev as usize];
        let mut is_left_leg_foreign = false;
        let mut is_right_leg_foreign = false;
        if obstacle1.is_convex && left_leg_direction.det(-left_neighbor.unit_dir) >= 0.0 {
            left_leg_direction = -left_neighbor.unit_dir;
            is_left_leg_foreign = true;
        }
        if obstacle2.is_convex && right_leg_direction.det(obstacle2.unit_dir) <= 0.0 {
            right_leg_direction = obstacle2.unit_dir;
            is_right_leg_foreign = true;
        }

        // Cut-off centres at the time horizon.
        let left_cutoff = inv_time_horizon_obst * (obstacle1.point - position);
        let right_cutoff = inv_time_horizon_obst * (obstacle2.point - position);
        let cutoff_vec = right_cutoff - left_cutoff;
        let same_vertex = std::ptr::eq(obstacle1, obstacle2);

        // Project the current velocity on the velocity obstacle.
        let t = if same_vertex { 0.5 } else { (velocity - left_cutoff).dot(cutoff_vec) / cutoff_vec.abs_sq() };
        let t_left = (velocity - left_cutoff).dot(left_leg_direction);
        let t_right = (velocity - right_cutoff).dot(right_leg_direction);
        let cutoff_scale = radius * inv_time_horizon_obst;

        if (t < 0.0 && t_left < 0.0) || (same_vertex && t_left < 0.0 && t_right < 0.0) {
            // Closest to the left cut-off circle.
            let unit_w = (velocity - left_cutoff).normalize();
            lines.push(Line { point: left_cutoff + cutoff_scale * unit_w, direction: Vec2::new(unit_w.y, -unit_w.x) });
            continue;
        }
        if t > 1.0 && t_right < 0.0 {
            // Closest to the right cut-off circle.
            let unit_w = (velocity - right_cutoff).normalize();
            lines.push(Line { point: right_cutoff + cutoff_scale * unit_w, direction: Vec2::new(unit_w.y, -unit_w.x) });
            continue;
        }

        // Otherwise project on the left leg, the right leg or the cut-off line, whichever is
        // closest to the velocity.
        let dist_sq_cutoff = if !(0.0..=1.0).contains(&t) || same_vertex {
            f32::INFINITY
        } else {
            (velocity - (left_cutoff + t * cutoff_vec)).abs_sq()
        };
        let dist_sq_left = if t_left < 0.0 {
            f32::INFINITY
        } else {
            (velocity - (left_cutoff + t_left * left_leg_direction)).abs_sq()
        };
        let dist_sq_right = if t_right < 0.0 {
            f32::INFINITY
        } else {
            (velocity - (right_cutoff + t_right * right_leg_direction)).abs_sq()
        };

        let (base, direction) = if dist_sq_cutoff <= dist_sq_left && dist_sq_cutoff <= dist_sq_right {
            (left_cutoff, -obstacle1.unit_dir)
        } else if dist_sq_left <= dist_sq_right {
            if is_left_leg_foreign {
                continue;
            }
            (left_cutoff, left_leg_direction)
        } else {
            if is_right_leg_foreign {
                continue;
            }
            (right_cutoff, -right_leg_direction)
        };
        lines.push(Line { point: base + cutoff_scale * Vec2::new(-direction.y, direction.x), direction });
    }
}

/// Appends the reciprocal ORCA lines of the neighbouring agents (in neighbour order).
fn agent_lines(me: &SelfState, neighbors: &[Neighbor], agents: &[GridAgent], time_step: f32, lines: &mut Vec<Line>) {
    let position = me.position;
    let velocity = me.velocity;
    let radius = me.params.radius;
    let inv_time_horizon = 1.0 / me.params.time_horizon;

    for neighbor in neighbors {
        let other = &agents[neighbor.slot as usize];
        let relative_position = other.position - position;
        let relative_velocity = velocity - other.velocity;
        let dist_sq = relative_position.abs_sq();
        let combined_radius = radius + other.radius;
        let combined_radius_sq = sqr(combined_radius);

        let direction;
        let u;
        if dist_sq > combined_radius_sq {
            // No collision yet. w: from the cut-off centre to the relative velocity.
            let w = relative_velocity - inv_time_horizon * relative_position;
            let w_length_sq = w.abs_sq();
            let dot_product1 = w.dot(relative_position);
            if dot_product1 < 0.0 && sqr(dot_product1) > combined_radius_sq * w_length_sq {
                // Closest to the cut-off circle.
                let w_length = w_length_sq.sqrt();
                let unit_w = w / w_length;
                direction = Vec2::new(unit_w.y, -unit_w.x);
                u = (combined_radius * inv_time_horizon - w_length) * unit_w;
            } else {
                // Closest to one of the legs.
                let leg = (dist_sq - combined_radius_sq).sqrt();
                direction = if relative_position.det(w) > 0.0 {
                    left_leg(relative_position, leg, combined_radius, dist_sq)
                } else {
                    -right_leg(relative_position, leg, combined_radius, dist_sq)
                };
                let dot_product2 = relative_velocity.dot(direction);
                u = dot_product2 * direction - relative_velocity;
            }
        } else {
            // Already overlapping: resolve within one time step (cut-off circle at 1/dt).
            let inv_time_step = 1.0 / time_step;
            let w = relative_velocity - inv_time_step * relative_position;
            let w_length = w.abs();
            let unit_w = if w_length > 0.0 {
                w / w_length
            } else {
                // Same spot and same velocity: RVO2 divides by zero here. Push the two apart
                // along x, in opposite directions decided by agent index.
                Vec2::new(if me.index < other.index { 1.0 } else { -1.0 }, 0.0)
            };
            direction = Vec2::new(unit_w.y, -unit_w.x);
            u = (combined_radius * inv_time_step - w_length) * unit_w;
        }
        // Each agent takes half of the responsibility (reciprocity).
        lines.push(Line { point: velocity + 0.5 * u, direction });
    }
}

/// Computes the agent's new velocity from its neighbours (already gathered in `scratch`).
pub(crate) fn compute_new_velocity(
    me: &SelfState,
    agents: &[GridAgent],
    vertices: &[ObstacleVertex],
    time_step: f32,
    scratch: &mut Scratch,
) -> Vec2 {
    let Scratch { obstacle_neighbors, agent_neighbors, lines, proj_lines, .. } = scratch;
    lines.clear();
    obstacle_lines(me, obstacle_neighbors, vertices, lines);
    let num_obstacle_lines = lines.len();
    agent_lines(me, &agent_neighbors.found, agents, time_step, lines);

    let mut new_velocity = Vec2::ZERO;
    let max_speed = me.params.max_speed;
    let line_fail = linear_program_2(lines, max_speed, me.pref_velocity, false, &mut new_velocity);
    if line_fail < lines.len() {
        linear_program_3(lines, num_obstacle_lines, line_fail, max_speed, &mut new_velocity, proj_lines);
    }
    new_velocity
}
