//! Exact shortest paths among round obstacles (trees, pillars, parked units).
//!
//! A shortest path among disks is made of straight *surfing* edges — bitangents between
//! circles, and tangents from the start and to the goal — and *hugging* edges, arcs around one
//! circle between the points where surfing edges touch it. The agent's radius is handled by
//! Minkowski inflation: every obstacle grows by it and the agent becomes a point.
//!
//! [`CirclePlanner`] runs A* (straight-line heuristic) over that graph, generating edges lazily:
//! an expansion only looks at the circles its successors could reach within the current A*
//! cost bound (an ellipse towards the goal) and comes back for the others if the bound grows;
//! the surfing edges it finds are cached for later expansions and queries. Nodes are copies of a tangent point per direction of travel (clockwise or
//! counter-clockwise); a hugging edge keeps the direction the path arrived with, so paths with
//! cusps never enter the graph. [`EagerPlanner`] builds the whole graph up front and runs
//! Dijkstra; it is the reference the lazy planner is tested against.
//!
//! Coordinates are `[x, z]` ([`Point2`]); angles are radians counter-clockwise from +x.
//!
//! **Contract.** With every obstacle grown by the agent radius (the sum rounded to a double): a
//! surfing segment is blocked only when a circle comes strictly closer to it than its radius,
//! and a hugging arc only where another circle overlaps it. So circles that exactly touch leave
//! their kiss point passable (a path may go through it, hugging either circle or switching
//! from one to the other), and a gap exactly `2r` wide lets an agent of radius `r` through. A
//! start or goal on a grown boundary is allowed, strictly inside is refused. Contacts (kiss,
//! overlap, point on a boundary, whether a tangent exists) are decided exactly on the double
//! inputs; segments, whose tangent points are computed with rounding, are tested with a slack
//! of `1e-12` times the world's size (`CIRCLE_EPS_REL`), so that a tangent grazing a third
//! circle is not cut by rounding.
//!
//! ```
//! use meadow::circles::{Circle, CirclePlanner};
//! let trees = [Circle { center: [5.0, 0.0], radius: 1.0 }];
//! let mut planner = CirclePlanner::new(&trees, 0.5).unwrap();
//! let path = planner.find_path([0.0, 0.0], [10.0, 0.0]).unwrap();
//! assert!(path.length > 10.0 && path.length < 10.5);
//! ```

mod eager;
mod exact;
mod geometry;
mod graph;
mod index;
mod lazy;
mod path;
mod world;

pub use eager::EagerPlanner;
pub use lazy::CirclePlanner;
pub use path::{CirclePath, Piece};

use crate::geom::Point2;
use serde::{Deserialize, Serialize};

/// A round obstacle: centre `[x, z]` and radius in metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Circle {
    /// Centre `[x, z]`.
    pub center: Point2,
    /// Radius in metres (>= 0).
    pub radius: f64,
}

/// The direction in which a path travels around a circle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Centre on the traveller's right.
    Clockwise,
    /// Centre on the traveller's left.
    CounterClockwise,
}

impl Direction {
    /// `+1.0` counter-clockwise, `-1.0` clockwise: the sign used by the tangent formulas.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Clockwise => -1.0,
            Direction::CounterClockwise => 1.0,
        }
    }

    pub(crate) fn from_sign(sign: f64) -> Direction {
        if sign > 0.0 {
            Direction::CounterClockwise
        } else {
            Direction::Clockwise
        }
    }
}

/// Invalid planner input.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CirclesError {
    /// A centre is not finite or a radius is negative or not finite.
    #[error("circle {index} has a non-finite centre or a negative or non-finite radius")]
    InvalidCircle {
        /// Index of the circle in the input.
        index: usize,
    },
    /// The agent radius is negative or not finite.
    #[error("agent radius {0} must be finite and >= 0")]
    InvalidAgentRadius(f64),
}

/// Why a circle-planner query found no path (the navmesh queries have [`crate::PathError`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CirclePathError {
    /// The start or goal has a non-finite coordinate.
    #[error("query point {0:?} is not finite")]
    InvalidPoint(Point2),
    /// The start lies inside an obstacle grown by the agent radius (index into the input).
    #[error("start lies inside obstacle {circle} (grown by the agent radius)")]
    StartBlocked {
        /// Index of the obstacle in the input.
        circle: usize,
    },
    /// The goal lies inside an obstacle grown by the agent radius (index into the input).
    #[error("goal lies inside obstacle {circle} (grown by the agent radius)")]
    GoalBlocked {
        /// Index of the obstacle in the input.
        circle: usize,
    },
    /// Start and goal are in different connected parts of the free space.
    #[error("no path: the goal is walled off from the start")]
    NoPath,
}

/// Work counters of the last query (for benchmarks and tuning).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SearchStats {
    /// Candidate surfing edges (tangents) tested for visibility, including the ones found
    /// blocked; for the lazy planner only those first tested during this query (not cached
    /// ones, nor the many its cost bounds and blocking bins rule out without a test).
    pub surfing_edges: u64,
    /// Of those, the ones that passed line of sight and entered the graph.
    pub visible_surfing_edges: u64,
    /// Hugging edges (arc + following surfing edge) evaluated.
    pub hugging_edges: u64,
    /// Segment-versus-circle distance tests made by line-of-sight checks.
    pub circle_tests: u64,
    /// Nodes taken off the open list.
    pub nodes_expanded: u64,
    /// Circles with outgoing surfing edges first tested during this query (lazy planner).
    pub circles_expanded: u64,
}
