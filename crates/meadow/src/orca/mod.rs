//! ORCA crowd avoidance (Optimal Reciprocal Collision Avoidance, van den Berg et al.) as the RVO2
//! library implements it, reproducing its trajectories bit for bit.
//!
//! The model works in a 2D plane with coordinates `(x, y)` in f32, like RVO2; a navmesh crowd maps
//! Meadow's planar `[x, z]` onto it. Each agent is a disc with a preferred velocity; every step it
//! picks the velocity closest to that preference that avoids every neighbour for
//! `time_horizon` seconds (taking half of the avoidance on itself, since the neighbour does the
//! same) and every nearby obstacle edge for `time_horizon_obst` seconds.
//!
//! * [`Simulator`]: agents, polygon obstacles (counter-clockwise) and the two-phase step.
//! * [`scenario`]: the JSON scenario format of `meadow simulate` and its goal-seeking loop.
//!
//! Determinism: neighbours are ordered by a canonical key (agents by `(dist_sq, x, y)`, obstacle
//! edges by `(dist_sq, vertex id)`), so results depend neither on the order agents were added nor
//! on the spatial index, and the parallel step gives the same bits for any thread count.
//! Floating point follows RVO2's operation order exactly (f32, no fused multiply-add).

mod agent;
mod agent_grid;
mod linear_program;
mod obstacle;
pub mod scenario;
mod simulator;
mod vector;
#[cfg(feature = "parallel")]
mod wake;

pub use agent::AgentParams;
// Only the ORCA benchmark uses these, to give the peer library it is compared with the same
// neighbour search; they are no part of the simulator's API.
#[doc(hidden)]
pub use agent_grid::{AgentIndex, NeighborList};
pub use scenario::{Scenario, ScenarioRun};
pub use simulator::Simulator;
pub use vector::Vec2;

/// Errors from setting up an ORCA simulation.
#[derive(Debug, thiserror::Error)]
pub enum OrcaError {
    /// A parameter is outside its documented limits (or not finite).
    #[error("{name} must be finite and {limit}, got {value}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The rejected value.
        value: f32,
        /// The limit it breaks.
        limit: &'static str,
    },
    /// An agent's parameters are invalid.
    #[error("agent {agent}: {source}")]
    Agent {
        /// Agent index.
        agent: usize,
        /// What is wrong.
        #[source]
        source: Box<OrcaError>,
    },
    /// An agent's position, velocity or goal is not finite.
    #[error("agent {agent}: position, velocity and goal must be finite")]
    NonFiniteAgent {
        /// Agent index.
        agent: usize,
    },
    /// An obstacle has fewer than two vertices.
    #[error("obstacle {obstacle} has {count} vertices, needs at least 2")]
    TooFewObstacleVertices {
        /// Obstacle index (insertion order).
        obstacle: usize,
        /// Its vertex count.
        count: usize,
    },
    /// An obstacle vertex is not finite.
    #[error("obstacle {obstacle}, vertex {vertex}: not finite")]
    NonFiniteObstacleVertex {
        /// Obstacle index.
        obstacle: usize,
        /// Vertex index within the obstacle.
        vertex: usize,
    },
    /// Two consecutive obstacle vertices coincide (the edge has no direction).
    #[error("obstacle {obstacle}, vertex {vertex}: same point as the next vertex")]
    DuplicateObstacleVertex {
        /// Obstacle index.
        obstacle: usize,
        /// Vertex index within the obstacle.
        vertex: usize,
    },
    /// No agent has this index.
    #[error("no agent {agent}")]
    UnknownAgent {
        /// The index asked for.
        agent: usize,
    },
    /// More agents than the 32-bit indices can hold.
    #[error("too many agents")]
    TooManyAgents,
    /// More obstacle vertices than the 32-bit ids can hold.
    #[error("too many obstacle vertices")]
    TooManyObstacleVertices,
}
