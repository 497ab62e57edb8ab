//! Goal-seeking ORCA scenarios: the JSON format of `meadow simulate` and its loop.
//!
//! The format (numbers are read as f32):
//!
//! ```json
//! {"time_step": 0.25,
//!  "agent_defaults": {"neighbor_dist": 15, "max_neighbors": 10, "time_horizon": 10,
//!                     "time_horizon_obst": 10, "radius": 1.5, "max_speed": 2},
//!  "agents": [{"position": [200, 0], "goal": [-200, 0], "velocity": [0, 0], "radius": 1.0}],
//!  "obstacles": [[[-10, 40], [-40, 40], [-40, 10], [-10, 10]]],
//!  "max_steps": 20000, "goal_radius": 1.5}
//! ```
//!
//! An agent may override any default and give an initial velocity (default zero). Obstacles are
//! counter-clockwise vertex lists, added in the given order. The loop is RVO2's examples': each
//! step, every agent's preferred velocity is its goal minus its position, normalised when longer
//! than 1; then one simulator step; the run ends after the first step at which every agent is
//! within `goal_radius` of its goal, or after `max_steps` steps.

use serde::{Deserialize, Serialize};

use super::agent::AgentParams;
use super::simulator::Simulator;
use super::vector::Vec2;
use super::OrcaError;

/// A scenario as stored in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Simulation time step in seconds (> 0).
    pub time_step: f32,
    /// Parameters of every agent that does not override them.
    pub agent_defaults: AgentParams,
    /// The agents, in index order.
    pub agents: Vec<ScenarioAgent>,
    /// Polygon obstacles, each counter-clockwise.
    #[serde(default)]
    pub obstacles: Vec<Vec<[f32; 2]>>,
    /// Upper bound on the number of steps.
    pub max_steps: usize,
    /// An agent has arrived when it is within this distance of its goal.
    pub goal_radius: f32,
}

/// One agent of a scenario; unset parameters come from [`Scenario::agent_defaults`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioAgent {
    /// Start position.
    pub position: [f32; 2],
    /// Goal position.
    pub goal: [f32; 2],
    /// Initial velocity (default zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f32; 2]>,
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

impl ScenarioAgent {
    /// This agent's parameters: its overrides on top of `defaults`.
    pub fn params(&self, defaults: &AgentParams) -> AgentParams {
        AgentParams {
            neighbor_dist: self.neighbor_dist.unwrap_or(defaults.neighbor_dist),
            max_neighbors: self.max_neighbors.unwrap_or(defaults.max_neighbors),
            time_horizon: self.time_horizon.unwrap_or(defaults.time_horizon),
            time_horizon_obst: self.time_horizon_obst.unwrap_or(defaults.time_horizon_obst),
            radius: self.radius.unwrap_or(defaults.radius),
            max_speed: self.max_speed.unwrap_or(defaults.max_speed),
        }
    }
}

/// A running scenario: the simulator plus goals and the stopping rule.
#[derive(Clone, Debug)]
pub struct ScenarioRun {
    /// The simulation.
    pub simulator: Simulator,
    goals: Vec<Vec2>,
    goal_radius_sq: f32,
    max_steps: usize,
    steps: usize,
}

impl Scenario {
    /// Sets up the simulator: agents in order, then obstacles in order.
    pub fn start(&self) -> Result<ScenarioRun, OrcaError> {
        if !(self.goal_radius.is_finite() && self.goal_radius >= 0.0) {
            return Err(OrcaError::InvalidParameter { name: "goal_radius", value: self.goal_radius, limit: ">= 0" });
        }
        let mut simulator = Simulator::new(self.time_step)?;
        let mut goals = Vec::with_capacity(self.agents.len());
        for (agent, a) in self.agents.iter().enumerate() {
            let goal = Vec2::from(a.goal);
            if !goal.is_finite() {
                return Err(OrcaError::NonFiniteAgent { agent });
            }
            let velocity = a.velocity.map(Vec2::from).unwrap_or(Vec2::ZERO);
            simulator.add_agent(Vec2::from(a.position), velocity, a.params(&self.agent_defaults))?;
            goals.push(goal);
        }
        for polygon in &self.obstacles {
            let vertices: Vec<Vec2> = polygon.iter().map(|&p| Vec2::from(p)).collect();
            simulator.add_obstacle(&vertices)?;
        }
        Ok(ScenarioRun {
            simulator,
            goals,
            goal_radius_sq: self.goal_radius * self.goal_radius,
            max_steps: self.max_steps,
            steps: 0,
        })
    }
}

impl ScenarioRun {
    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The agents' goals, by agent index.
    pub fn goals(&self) -> &[Vec2] {
        &self.goals
    }

    /// Whether every agent is within the goal radius of its goal.
    pub fn all_arrived(&self) -> bool {
        let positions = self.simulator.positions();
        positions.iter().zip(&self.goals).all(|(&p, &g)| (p - g).abs_sq() <= self.goal_radius_sq)
    }

    /// Whether the run is over: at least one step taken and everyone arrived, or the step limit.
    pub fn is_done(&self) -> bool {
        self.steps >= self.max_steps || (self.steps > 0 && self.all_arrived())
    }

    /// Sets every preferred velocity towards the goal (unit speed cap) and takes one step.
    pub fn step(&mut self) {
        for (agent, goal) in self.goals.iter().enumerate() {
            let mut towards = *goal - self.simulator.positions()[agent];
            if towards.abs_sq() > 1.0 {
                towards = towards.normalize();
            }
            // The index comes from the goal list, which matches the agent list.
            let _ = self.simulator.set_pref_velocity(agent, towards);
        }
        self.simulator.step();
        self.steps += 1;
    }

    /// Steps until [`is_done`](Self::is_done), calling `on_step(step, simulator)` after each
    /// step. Returns whether every agent arrived.
    pub fn run(&mut self, mut on_step: impl FnMut(usize, &Simulator)) -> bool {
        while !self.is_done() {
            self.step();
            on_step(self.steps, &self.simulator);
        }
        self.all_arrived()
    }
}

/// RVO2's Circle example (`examples/Circle.cc`), the benchmarks' scenario: its agent defaults.
pub const CIRCLE_PARAMS: AgentParams = AgentParams {
    neighbor_dist: 15.0,
    max_neighbors: 10,
    time_horizon: 10.0,
    time_horizon_obst: 10.0,
    radius: 1.5,
    max_speed: 2.0,
};

/// RVO2's Circle example: the time step, seconds.
pub const CIRCLE_TIME_STEP: f32 = 0.25;

/// RVO2's Circle example: the squared distance to the goal, m², within which an agent has
/// arrived (RVO2 tests against its radius, 1.5 m).
pub const CIRCLE_GOAL_RADIUS_SQ: f32 = 2.25;

/// RVO2's Circle: `n` agents on a circle of radius 200·sqrt(n/250) (Circle's density at any
/// size), each heading to the antipode; the start positions and the goals.
pub fn circle(n: usize) -> (Vec<Vec2>, Vec<Vec2>) {
    let radius = 200.0 * (n as f32 / 250.0).sqrt();
    let positions: Vec<Vec2> = (0..n)
        .map(|i| {
            // RVO2 Circle.cc: float(i) * 2π * 0.004F for 250 agents (1/250 rounds to 0.004F).
            let a = i as f32 * 6.283_185_5 * (1.0 / n as f32);
            Vec2::new(radius * a.cos(), radius * a.sin())
        })
        .collect();
    let goals = positions.iter().map(|&p| -p).collect();
    (positions, goals)
}

/// RVO2's examples' preferred velocity: towards the goal, normalised when farther than 1 m.
pub fn pref_velocity(position: Vec2, goal: Vec2) -> Vec2 {
    let v = goal - position;
    if v.abs_sq() > 1.0 {
        v.normalize()
    } else {
        v
    }
}

/// Whether every agent is within [`CIRCLE_GOAL_RADIUS_SQ`] of its goal.
pub fn circle_arrived(positions: &[Vec2], goals: &[Vec2]) -> bool {
    positions.iter().zip(goals).all(|(&p, &g)| (p - g).abs_sq() <= CIRCLE_GOAL_RADIUS_SQ)
}
