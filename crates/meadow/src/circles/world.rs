//! The obstacle set as the planners see it: inflated by the agent radius, circles inside other
//! circles dropped, each circle's arcs covered by overlapping neighbours, and the grid index.

use super::exact::compare_distance;
use super::geometry::{covered_arc, distance, CoveredArc};
use super::index::Grid;
use super::{Circle, CirclePathError, CirclesError};
use crate::geom::Point2;
use crate::tolerance::{CIRCLE_EPS_REL, CIRCLE_REACH_REL};
use std::cmp::Ordering;
use std::sync::OnceLock;

#[derive(Clone, Debug)]
pub(crate) struct World {
    /// Inflated obstacles that are not inside another one.
    pub circles: Vec<Circle>,
    /// For each kept circle, its index in the caller's list.
    pub original: Vec<usize>,
    /// For each kept circle, the arcs of its boundary inside or touching other circles; found on
    /// first use (a query touches few circles), see [`World::covered`].
    covered: Vec<OnceLock<Vec<CoveredArc>>>,
    pub grid: Grid,
    pub max_radius: f64,
    /// Line-of-sight slack (metres): a segment must come closer than a radius minus this to be
    /// blocked; obstacles no larger than this are dropped, and so are circles protruding less
    /// than this from another. Tiny and relative to the world's size: it only absorbs the
    /// rounding of computed tangent points, so that three circles on one tangent line do not
    /// block each other. Contacts between circles and the query points' inside test are exact
    /// instead (see `exact.rs`).
    pub eps: f64,
    pub agent_radius: f64,
}

impl World {
    pub(crate) fn new(input: &[Circle], agent_radius: f64) -> Result<World, CirclesError> {
        if !(agent_radius.is_finite() && agent_radius >= 0.0) {
            return Err(CirclesError::InvalidAgentRadius(agent_radius));
        }
        let mut scale: f64 = 1.0;
        for (index, c) in input.iter().enumerate() {
            if !(c.center[0].is_finite() && c.center[1].is_finite() && c.radius.is_finite() && c.radius >= 0.0) {
                return Err(CirclesError::InvalidCircle { index });
            }
            scale =
                scale.max(c.center[0].abs() + c.radius + agent_radius).max(c.center[1].abs() + c.radius + agent_radius);
        }
        let eps = CIRCLE_EPS_REL * scale;
        // Zero-size obstacles block nothing (a segment must come strictly closer than the radius).
        let inflated: Vec<(usize, Circle)> = input
            .iter()
            .enumerate()
            .map(|(i, c)| (i, Circle { center: c.center, radius: c.radius + agent_radius }))
            .filter(|(_, c)| c.radius > eps)
            .collect();
        let all: Vec<Circle> = inflated.iter().map(|&(_, c)| c).collect();
        let all_grid = Grid::new(&all, eps);
        // A circle inside another one (or a duplicate of an earlier one) never touches a path.
        let keep: Vec<bool> = all
            .iter()
            .enumerate()
            .map(|(i, c)| {
                !all_grid.items_at(c.center).iter().any(|&k| {
                    let k = k as usize;
                    let other = &all[k];
                    let d = distance(other.center, c.center);
                    k != i && d + c.radius <= other.radius + eps && (d + other.radius > c.radius + eps || k < i)
                })
            })
            .collect();
        let (circles, original, grid) = if keep.iter().all(|&k| k) {
            // Nothing dropped (the usual case): the grid is already built.
            (all, inflated.iter().map(|&(index, _)| index).collect(), all_grid)
        } else {
            let mut circles = Vec::new();
            let mut original = Vec::new();
            for (i, &(index, c)) in inflated.iter().enumerate() {
                if keep[i] {
                    circles.push(c);
                    original.push(index);
                }
            }
            let grid = all_grid.retain(&keep);
            (circles, original, grid)
        };
        let max_radius = circles.iter().map(|c| c.radius).fold(0.0, f64::max);
        let covered = (0..circles.len()).map(|_| OnceLock::new()).collect();
        Ok(World { circles, original, covered, grid, max_radius, eps, agent_radius })
    }

    /// The arcs of circle `i`'s boundary inside other circles (computed on first use). Circles
    /// that only touch it exactly cover nothing: the kiss point stays passable.
    pub(crate) fn covered(&self, i: usize) -> &[CoveredArc] {
        self.covered[i].get_or_init(|| {
            let c = &self.circles[i];
            let eps = self.eps;
            let mut neighbours = Vec::new();
            let lo = [c.center[0] - c.radius - eps, c.center[1] - c.radius - eps];
            let hi = [c.center[0] + c.radius + eps, c.center[1] + c.radius + eps];
            self.grid.items_in_box(lo, hi, |k| {
                let other = &self.circles[k as usize];
                let (dx, dy) = (other.center[0] - c.center[0], other.center[1] - c.center[1]);
                let reach = c.radius + other.radius + eps;
                // Only overlapping neighbours cover part of the boundary (a superset here, the
                // exact test is in `covered_arc`).
                if k as usize != i && dx * dx + dy * dy <= reach * reach * (1.0 + CIRCLE_REACH_REL) {
                    neighbours.push(k);
                }
            });
            neighbours.sort_unstable();
            neighbours.dedup();
            neighbours
                .iter()
                .filter_map(|&k| {
                    let other = &self.circles[k as usize];
                    covered_arc(c.center, c.radius, other.center, other.radius)
                })
                .collect()
        })
    }

    /// Checks that a query point is finite and not strictly inside an inflated obstacle (exactly:
    /// a point on the boundary is allowed); on failure returns the index (in the caller's list)
    /// of the obstacle it is in.
    pub(crate) fn check_point(&self, p: Point2) -> Result<Option<usize>, CirclePathError> {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(CirclePathError::InvalidPoint(p));
        }
        Ok(self
            .grid
            .items_at(p)
            .iter()
            .copied()
            .find(|&k| {
                let c = &self.circles[k as usize];
                compare_distance(c.center, p, c.radius, 0.0) == Ordering::Less
            })
            .map(|k| self.original[k as usize]))
    }

    /// Whether a circle other than the two skipped comes closer to segment `a b` than its radius.
    pub(crate) fn segment_blocked(&self, a: Point2, b: Point2, skip: [u32; 2], tests: &mut u64) -> bool {
        self.grid.segment_blocked(&self.circles, a, b, skip, self.eps, tests)
    }

    /// Rejects a query whose start or goal is invalid or inside an obstacle.
    pub(crate) fn check_query(&self, from: Point2, to: Point2) -> Result<(), CirclePathError> {
        if let Some(circle) = self.check_point(from)? {
            return Err(CirclePathError::StartBlocked { circle });
        }
        if let Some(circle) = self.check_point(to)? {
            return Err(CirclePathError::GoalBlocked { circle });
        }
        Ok(())
    }
}
