//! Crowd scenarios on a navmesh: the JSON format of `meadow simulate --navmesh` and its loop.
//!
//! The format is the 2D ORCA scenario's ([`crate::orca::scenario`]) with 3D points and no
//! obstacles (the navmesh outlines are the obstacles):
//!
//! ```json
//! {"time_step": 0.1,
//!  "agent_defaults": {"neighbor_dist": 5, "max_neighbors": 10, "time_horizon": 2,
//!                     "time_horizon_obst": 1, "radius": 0.5, "max_speed": 1.5},
//!  "agents": [{"position": [-3, 0, 0], "goal": [10, 0, 0], "radius": 0.4}],
//!  "max_steps": 2000, "goal_radius": 0.25}
//! ```
//!
//! The run ends after the first step at which every agent is within `goal_radius` of its goal
//! (both snapped onto the mesh), or after `max_steps` steps.

use serde::{Deserialize, Serialize};

use super::{Crowd, CrowdConfig, CrowdError};
use crate::orca::scenario::ScenarioAgent;
use crate::orca::AgentParams;
use crate::query::QueryMesh;

/// A crowd scenario as stored in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrowdScenario {
    /// Simulation time step in seconds (> 0).
    pub time_step: f32,
    /// Parameters of every agent that does not override them.
    pub agent_defaults: AgentParams,
    /// The agents, in index order.
    pub agents: Vec<CrowdScenarioAgent>,
    /// Upper bound on the number of steps.
    pub max_steps: usize,
    /// An agent has arrived when it is within this distance (XZ) of its goal.
    pub goal_radius: f64,
}

/// One agent of a crowd scenario; unset parameters come from [`CrowdScenario::agent_defaults`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrowdScenarioAgent {
    /// Start position `[x, y, z]`.
    pub position: [f64; 3],
    /// Goal position `[x, y, z]`.
    pub goal: [f64; 3],
    /// Overrides [`AgentParams::neighbor_dist`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbor_dist: Option<f32>,
    /// Overrides [`AgentParams::max_neighbors`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_neighbors: Option<usize>,
    /// Overrides [`AgentParams::time_horizon`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_horizon: Option<f32>,
    /// Overrides [`AgentParams::time_horizon_obst`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_horizon_obst: Option<f32>,
    /// Overrides [`AgentParams::radius`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Overrides [`AgentParams::max_speed`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_speed: Option<f32>,
}

impl CrowdScenarioAgent {
    /// This agent's parameters: its overrides on top of `defaults`.
    pub fn params(&self, defaults: &AgentParams) -> AgentParams {
        ScenarioAgent {
            neighbor_dist: self.neighbor_dist,
            max_neighbors: self.max_neighbors,
            time_horizon: self.time_horizon,
            time_horizon_obst: self.time_horizon_obst,
            radius: self.radius,
            max_speed: self.max_speed,
            ..ScenarioAgent::default()
        }
        .params(defaults)
    }
}

impl CrowdScenario {
    /// Sets up the crowd on `mesh` (default [`CrowdConfig`] apart from the time step and goal
    /// radius), adding the agents in order.
    pub fn start<'m>(&self, mesh: &'m QueryMesh) -> Result<Crowd<'m>, CrowdError> {
        let config = CrowdConfig { time_step: self.time_step, goal_radius: self.goal_radius, ..CrowdConfig::default() };
        let mut crowd = Crowd::new(mesh, config)?;
        for a in &self.agents {
            crowd.add_agent(a.position, a.goal, a.params(&self.agent_defaults))?;
        }
        Ok(crowd)
    }

    /// Runs the crowd until everyone arrived or `max_steps`, calling `on_step(step, crowd)`
    /// after each step. Returns whether every agent arrived.
    pub fn run(&self, crowd: &mut Crowd<'_>, mut on_step: impl FnMut(usize, &Crowd<'_>)) -> bool {
        while crowd.steps() < self.max_steps && !(crowd.steps() > 0 && crowd.all_arrived()) {
            crowd.step();
            on_step(crowd.steps(), crowd);
        }
        crowd.all_arrived()
    }
}
