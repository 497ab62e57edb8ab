//! The small linear programs that pick a velocity inside the ORCA half-planes.
//!
//! A half-plane is a directed [`Line`]; the permitted side is the left of `direction`. The
//! programs follow RVO2 (and van den Berg et al.): program 1 optimises along one line, program 2
//! adds the lines one at a time in the given order (randomised incremental style without the
//! shuffle), and program 3 is the 3D fallback used when program 2 is infeasible: it minimises the
//! largest violation of the agent lines while keeping the obstacle lines hard.

use super::vector::{max_f, min_f, sqr, Vec2};

use crate::tolerance::RVO_EPSILON;

/// A directed line bounding a half-plane of permitted velocities (the left side of `direction`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Line {
    /// A point on the line.
    pub point: Vec2,
    /// Unit direction of the line.
    pub direction: Vec2,
}

/// Optimises on line `line_no` subject to the earlier lines and the speed circle.
/// Returns `None` when that is infeasible.
fn linear_program_1(
    lines: &[Line],
    line_no: usize,
    radius: f32,
    opt_velocity: Vec2,
    direction_opt: bool,
) -> Option<Vec2> {
    let line = lines[line_no];
    let dot_product = line.point.dot(line.direction);
    let discriminant = sqr(dot_product) + sqr(radius) - line.point.abs_sq();
    if discriminant < 0.0 {
        // The speed circle lies entirely on the forbidden side of this line.
        return None;
    }
    let sqrt_discriminant = discriminant.sqrt();
    let mut t_left = -dot_product - sqrt_discriminant;
    let mut t_right = -dot_product + sqrt_discriminant;

    for earlier in &lines[..line_no] {
        let denominator = line.direction.det(earlier.direction);
        let numerator = earlier.direction.det(line.point - earlier.point);
        if denominator.abs() <= RVO_EPSILON {
            // (Almost) parallel: either this line is entirely forbidden or unaffected.
            if numerator < 0.0 {
                return None;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = min_f(t_right, t);
        } else {
            t_left = max_f(t_left, t);
        }
        if t_left > t_right {
            return None;
        }
    }

    let result = if direction_opt {
        if opt_velocity.dot(line.direction) > 0.0 {
            line.point + t_right * line.direction
        } else {
            line.point + t_left * line.direction
        }
    } else {
        let t = line.direction.dot(opt_velocity - line.point);
        if t < t_left {
            line.point + t_left * line.direction
        } else if t > t_right {
            line.point + t_right * line.direction
        } else {
            line.point + t * line.direction
        }
    };
    Some(result)
}

/// Finds the velocity closest to `opt_velocity` (or furthest along it when `direction_opt`)
/// inside all lines and the circle of `radius`. Returns the index of the first line that made the
/// program infeasible (or `lines.len()`), and the best velocity found before it.
pub(crate) fn linear_program_2(
    lines: &[Line],
    radius: f32,
    opt_velocity: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> usize {
    *result = if direction_opt {
        // The optimisation direction is a unit vector here.
        opt_velocity * radius
    } else if opt_velocity.abs_sq() > sqr(radius) {
        opt_velocity.normalize() * radius
    } else {
        opt_velocity
    };

    for (i, line) in lines.iter().enumerate() {
        if line.direction.det(line.point - *result) > 0.0 {
            // The current result violates line i: re-optimise on it.
            match linear_program_1(lines, i, radius, opt_velocity, direction_opt) {
                Some(v) => *result = v,
                None => return i,
            }
        }
    }
    lines.len()
}

/// The 3D fallback: starting at `begin_line`, minimises the largest penetration of the agent
/// lines (those from `num_obstacle_lines` on) while obstacle lines stay hard.
pub(crate) fn linear_program_3(
    lines: &[Line],
    num_obstacle_lines: usize,
    begin_line: usize,
    radius: f32,
    result: &mut Vec2,
    proj_lines: &mut Vec<Line>,
) {
    let mut distance = 0.0f32;
    for i in begin_line..lines.len() {
        let line_i = lines[i];
        if line_i.direction.det(line_i.point - *result) > distance {
            // The result violates line i by more than the current worst penetration.
            proj_lines.clear();
            proj_lines.extend_from_slice(&lines[..num_obstacle_lines]);
            // RVO2 loops j over num_obstacle_lines..i, which is empty when the failing line is
            // an obstacle line (i < num_obstacle_lines); an empty range here too, not a panic.
            for line_j in &lines[num_obstacle_lines.min(i)..i] {
                let determinant = line_i.direction.det(line_j.direction);
                let point = if determinant.abs() <= RVO_EPSILON {
                    if line_i.direction.dot(line_j.direction) > 0.0 {
                        // Parallel, same direction: line j adds nothing.
                        continue;
                    }
                    // Parallel, opposite directions: the bisector lies halfway.
                    0.5 * (line_i.point + line_j.point)
                } else {
                    line_i.point + (line_j.direction.det(line_i.point - line_j.point) / determinant) * line_i.direction
                };
                let direction = (line_j.direction - line_i.direction).normalize();
                proj_lines.push(Line { point, direction });
            }

            let previous = *result;
            let towards = Vec2::new(-line_i.direction.y, line_i.direction.x);
            if linear_program_2(proj_lines, radius, towards, true, result) < proj_lines.len() {
                // Only float rounding can get here: the previous result is feasible in
                // principle, so keep it.
                *result = previous;
            }
            distance = line_i.direction.det(line_i.point - *result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fallback may start at an obstacle line (an infeasible set of walls in a dense
    /// crowd): it must keep going, with no agent lines before that one to project.
    #[test]
    fn fallback_starting_at_an_obstacle_line_does_not_panic() {
        // Two obstacle lines the origin violates, then one agent line.
        let lines = [
            Line { point: Vec2::new(1.0, 0.0), direction: Vec2::new(0.0, -1.0) },
            Line { point: Vec2::new(1.5, 0.0), direction: Vec2::new(0.0, -1.0) },
            Line { point: Vec2::new(0.0, 1.0), direction: Vec2::new(1.0, 0.0) },
        ];
        let mut result = Vec2::ZERO;
        let mut proj = Vec::new();
        linear_program_3(&lines, 2, 0, 2.0, &mut result, &mut proj);
        assert!(result.is_finite());
        assert!(result.abs_sq() <= 4.0 * (1.0 + 1e-5));
    }
}
