//! The ORCA simulator: agents, obstacles and the two-phase step.

#[cfg(feature = "parallel")]
use rayon::prelude::*;

use super::agent::{compute_new_velocity, AgentParams, Scratch, SelfState};
use super::agent_grid::{AgentGrid, NeighborMemory};
use super::obstacle::{polygon_vertices, ObstacleTree, ObstacleVertex};
use super::vector::{sqr, Vec2};
#[cfg(feature = "parallel")]
use super::wake::Wake;
use super::OrcaError;

/// Agents per rayon task; enough work per task to hide the scheduling cost.
#[cfg(feature = "parallel")]
const MIN_AGENTS_PER_TASK: usize = 64;

/// Agents per rayon task of the move phase (a few multiplications each).
#[cfg(feature = "parallel")]
const MIN_AGENTS_PER_MOVE_TASK: usize = 4096;

/// Grid cells per neighbour distance (see [`Simulator::step`]).
const CELLS_PER_NEIGHBOR_DIST: f64 = 3.0;

thread_local! {
    /// Each thread's velocity-phase buffers, kept between steps so that a warmed-up step does
    /// not allocate them again.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// A thread's scratch, taken out of [`SCRATCH`] for a run of agents and put back when dropped
/// (a task that another one interrupts on the same thread gets a fresh one; either may be
/// kept, which only matters for speed).
struct ThreadScratch(Scratch);

impl ThreadScratch {
    fn take() -> Self {
        ThreadScratch(SCRATCH.try_with(|s| s.take()).unwrap_or_default())
    }
}

impl Drop for ThreadScratch {
    fn drop(&mut self) {
        let scratch = std::mem::take(&mut self.0);
        let _ = SCRATCH.try_with(|s| s.replace(scratch));
    }
}

/// An ORCA simulation (RVO2's `RVOSimulator`): agents, polygon obstacles and a fixed time step.
///
/// Each [`step`](Simulator::step) first computes every agent's new velocity from the state
/// before the step, then moves every agent, so the result does not depend on agent order. The
/// velocity phase runs on the current rayon thread pool (with the default `parallel` feature)
/// and gives bit-identical results for any number of threads.
#[derive(Clone, Debug)]
pub struct Simulator {
    time_step: f32,
    global_time: f32,
    params: Vec<AgentParams>,
    positions: Vec<Vec2>,
    velocities: Vec<Vec2>,
    pref_velocities: Vec<Vec2>,
    radii: Vec<f32>,
    /// Heights (the coordinate the plane leaves out), by agent index.
    heights: Vec<f32>,
    /// Agents left out of steps, by agent index (see [`Simulator::set_agent_active`]).
    inactive: Vec<bool>,
    /// Agents and obstacle edges whose heights differ by more than this ignore each other
    /// (infinite: everything is in one plane, as in RVO2).
    height_band: f32,
    /// The user's obstacle vertices, before any BSP splitting.
    obstacle_vertices: Vec<ObstacleVertex>,
    obstacles: ObstacleTree,
    obstacles_dirty: bool,
    num_obstacles: usize,
    agent_grid: AgentGrid,
    neighbor_memory: NeighborMemory,
    /// Largest `max_neighbors` of any agent.
    max_neighbors: usize,
    /// Sum of the agents' neighbour distances, for the grid's cell size.
    neighbor_dist_sum: f64,
    /// New velocities in grid order (phase one output).
    new_velocities: Vec<Vec2>,
    /// Keeps the pool's workers awake through the serial grid build.
    #[cfg(feature = "parallel")]
    wake: Wake,
    /// Whether steps ask idle workers to spin through the grid build (see
    /// [`Simulator::set_wake_workers`]; without the `parallel` feature there are none).
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    wake_workers: bool,
}

fn check_positive(name: &'static str, value: f32) -> Result<(), OrcaError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(OrcaError::InvalidParameter { name, value, limit: "> 0" })
    }
}

fn check_non_negative(name: &'static str, value: f32) -> Result<(), OrcaError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(OrcaError::InvalidParameter { name, value, limit: ">= 0" })
    }
}

impl AgentParams {
    /// Checks every parameter against its documented limits.
    pub fn validate(&self) -> Result<(), OrcaError> {
        check_non_negative("neighbor_dist", self.neighbor_dist)?;
        check_positive("time_horizon", self.time_horizon)?;
        check_positive("time_horizon_obst", self.time_horizon_obst)?;
        check_non_negative("radius", self.radius)?;
        check_non_negative("max_speed", self.max_speed)
    }
}

impl Simulator {
    /// Makes an empty simulation with the given time step (seconds, > 0).
    pub fn new(time_step: f32) -> Result<Self, OrcaError> {
        check_positive("time_step", time_step)?;
        Ok(Simulator {
            time_step,
            global_time: 0.0,
            params: Vec::new(),
            positions: Vec::new(),
            velocities: Vec::new(),
            pref_velocities: Vec::new(),
            radii: Vec::new(),
            heights: Vec::new(),
            inactive: Vec::new(),
            height_band: f32::INFINITY,
            obstacle_vertices: Vec::new(),
            obstacles: ObstacleTree::default(),
            obstacles_dirty: false,
            num_obstacles: 0,
            agent_grid: AgentGrid::default(),
            neighbor_memory: NeighborMemory::default(),
            max_neighbors: 0,
            neighbor_dist_sum: 0.0,
            new_velocities: Vec::new(),
            #[cfg(feature = "parallel")]
            wake: Wake::default(),
            wake_workers: true,
        })
    }

    /// Adds an agent and returns its index (agents are numbered in insertion order).
    /// Its preferred velocity starts at zero.
    pub fn add_agent(&mut self, position: Vec2, velocity: Vec2, params: AgentParams) -> Result<usize, OrcaError> {
        let agent = self.positions.len();
        params.validate().map_err(|e| OrcaError::Agent { agent, source: Box::new(e) })?;
        if !position.is_finite() || !velocity.is_finite() {
            return Err(OrcaError::NonFiniteAgent { agent });
        }
        if self.positions.len() >= u32::MAX as usize / 2 {
            return Err(OrcaError::TooManyAgents);
        }
        self.params.push(params);
        self.positions.push(position);
        self.velocities.push(velocity);
        self.pref_velocities.push(Vec2::ZERO);
        self.radii.push(params.radius);
        self.heights.push(0.0);
        self.inactive.push(false);
        self.neighbor_dist_sum += params.neighbor_dist as f64;
        self.max_neighbors = self.max_neighbors.max(params.max_neighbors);
        Ok(self.positions.len() - 1)
    }

    /// Adds a polygon obstacle, vertices counter-clockwise (two vertices make a line segment
    /// obstacle). Returns the id of its first vertex; its vertices get consecutive ids.
    pub fn add_obstacle(&mut self, vertices: &[Vec2]) -> Result<usize, OrcaError> {
        self.add_obstacle_at_heights(vertices, &[])
    }

    /// [`add_obstacle`](Self::add_obstacle) with a height per vertex (for the height band;
    /// missing heights are 0).
    pub fn add_obstacle_at_heights(&mut self, vertices: &[Vec2], heights: &[f32]) -> Result<usize, OrcaError> {
        let obstacle = self.num_obstacles;
        if let Some(vertex) = heights.iter().position(|h| !h.is_finite()) {
            return Err(OrcaError::NonFiniteObstacleVertex { obstacle, vertex });
        }
        if vertices.len() < 2 {
            return Err(OrcaError::TooFewObstacleVertices { obstacle, count: vertices.len() });
        }
        for (i, v) in vertices.iter().enumerate() {
            let next = vertices[(i + 1) % vertices.len()];
            if !v.is_finite() {
                return Err(OrcaError::NonFiniteObstacleVertex { obstacle, vertex: i });
            }
            if *v == next {
                return Err(OrcaError::DuplicateObstacleVertex { obstacle, vertex: i });
            }
        }
        let first = self.obstacle_vertices.len();
        if first + vertices.len() >= u32::MAX as usize / 4 {
            return Err(OrcaError::TooManyObstacleVertices);
        }
        self.obstacle_vertices.extend(polygon_vertices(vertices, heights, first as u32));
        self.obstacles_dirty = true;
        self.num_obstacles += 1;
        Ok(first)
    }

    /// Sets whether each step asks the thread pool's idle workers to spin through its serial
    /// start (the agent grid's build) rather than fall asleep before the parallel phase.
    ///
    /// On by default: waking a sleeping worker can cost more than a small crowd's whole step.
    /// The spinning ends when the parallel phase begins (2 ms at most), and never happens on a
    /// one-thread pool, below 128 agents or without the `parallel` feature. Each step then
    /// queues one small task (a heap allocation) per worker it asks, at most one per core
    /// besides the caller's. Turn it off when the pool's other work matters more than the
    /// step's latency, and when several simulators step at once on one pool (a worker may
    /// then take another simulator's spinning task and wait for that one's phase, up to the
    /// 2 ms). Results are the same either way.
    pub fn set_wake_workers(&mut self, wake: bool) {
        self.wake_workers = wake;
    }

    /// Makes agents and obstacle edges whose heights differ by more than `band` ignore each
    /// other, so that crowds on floors above one another do not avoid each other or each
    /// other's walls. An edge counts for an agent when the agent's height is within `band` of
    /// the edge's height range. `f32::INFINITY` (the default) turns it off. Limits: > 0.
    pub fn set_height_band(&mut self, band: f32) -> Result<(), OrcaError> {
        if band.is_nan() || band <= 0.0 {
            return Err(OrcaError::InvalidParameter { name: "height_band", value: band, limit: "> 0" });
        }
        self.height_band = band;
        Ok(())
    }

    /// Sets agent `agent`'s height (the coordinate the plane leaves out; finite), for the
    /// height band.
    pub fn set_agent_height(&mut self, agent: usize, height: f32) -> Result<(), OrcaError> {
        if !height.is_finite() {
            return Err(OrcaError::NonFiniteAgent { agent });
        }
        let slot = self.heights.get_mut(agent).ok_or(OrcaError::UnknownAgent { agent })?;
        *slot = height;
        Ok(())
    }

    /// Moves agent `agent` to `position` (finite), as RVO2's `setAgentPosition`.
    pub fn set_agent_position(&mut self, agent: usize, position: Vec2) -> Result<(), OrcaError> {
        if !position.is_finite() {
            return Err(OrcaError::NonFiniteAgent { agent });
        }
        let slot = self.positions.get_mut(agent).ok_or(OrcaError::UnknownAgent { agent })?;
        *slot = position;
        Ok(())
    }

    /// Sets agent `agent`'s current velocity (finite), as RVO2's `setAgentVelocity`.
    pub fn set_agent_velocity(&mut self, agent: usize, velocity: Vec2) -> Result<(), OrcaError> {
        if !velocity.is_finite() {
            return Err(OrcaError::NonFiniteAgent { agent });
        }
        let slot = self.velocities.get_mut(agent).ok_or(OrcaError::UnknownAgent { agent })?;
        *slot = velocity;
        Ok(())
    }

    /// Takes agent `agent` out of the steps (`false`) or back in (`true`, the default). An
    /// inactive agent is seen by no one, computes no velocity and does not move; its index
    /// stays, so a caller whose agents leave the plane for a while (a crowd agent on an
    /// off-mesh link) keeps one simulator, and its neighbour memory, throughout.
    pub fn set_agent_active(&mut self, agent: usize, active: bool) -> Result<(), OrcaError> {
        let slot = self.inactive.get_mut(agent).ok_or(OrcaError::UnknownAgent { agent })?;
        *slot = !active;
        Ok(())
    }

    /// Sets the velocity agent `agent` would take without anyone around.
    pub fn set_pref_velocity(&mut self, agent: usize, velocity: Vec2) -> Result<(), OrcaError> {
        let slot = self.pref_velocities.get_mut(agent).ok_or(OrcaError::UnknownAgent { agent })?;
        *slot = velocity;
        Ok(())
    }

    /// Number of agents.
    pub fn num_agents(&self) -> usize {
        self.positions.len()
    }

    /// Current positions, by agent index.
    pub fn positions(&self) -> &[Vec2] {
        &self.positions
    }

    /// Current velocities, by agent index.
    pub fn velocities(&self) -> &[Vec2] {
        &self.velocities
    }

    /// The parameters of every agent, by agent index.
    pub fn agent_params(&self) -> &[AgentParams] {
        &self.params
    }

    /// The time step in seconds.
    pub fn time_step(&self) -> f32 {
        self.time_step
    }

    /// Simulated time so far (sum of the steps taken, in f32 like RVO2).
    pub fn global_time(&self) -> f32 {
        self.global_time
    }

    /// Advances the simulation by one time step.
    pub fn step(&mut self) {
        if self.obstacles_dirty {
            self.obstacles = ObstacleTree::build(self.obstacle_vertices.clone());
            self.obstacles_dirty = false;
        }
        // Other workers can take the velocity phase's tasks beyond the first.
        #[cfg(feature = "parallel")]
        if self.wake_workers {
            self.wake.call((self.positions.len() / MIN_AGENTS_PER_TASK).saturating_sub(1));
        }
        // A third of the mean neighbour distance: the 3×3 cells around an agent then usually
        // hold its nearest neighbours, with few other candidates (any size gives the same answer).
        let n = self.positions.len();
        let cell_size = (self.neighbor_dist_sum / n.max(1) as f64 / CELLS_PER_NEIGHBOR_DIST) as f32;
        // Empty when every agent is active, so that the per-agent tests read nothing.
        let inactive: &[bool] = if self.inactive.contains(&true) { &self.inactive } else { &[] };
        self.agent_grid.build(&self.positions, &self.velocities, &self.radii, &self.heights, inactive, cell_size);

        // Phase one: every new velocity from the old state, in grid order for cache locality.
        // An inactive agent, or one whose position overflowed to infinity, is not indexed and
        // stays where it is.
        self.new_velocities.resize(self.agent_grid.len(), Vec2::ZERO);
        self.neighbor_memory.begin(self.agent_grid.len(), self.max_neighbors);
        let stride = self.neighbor_memory.stride();
        let mut remembered = std::mem::take(&mut self.neighbor_memory.new);
        let grid = &self.agent_grid;
        let memory = &self.neighbor_memory;
        let positions = &self.positions;
        let heights = &self.heights;
        let band = self.height_band;
        let obstacles = &self.obstacles;
        let params = &self.params;
        let pref_velocities = &self.pref_velocities;
        let time_step = self.time_step;
        let velocity_of =
            |scratch: &mut Scratch, (slot, (new_velocity, remembered)): (usize, (&mut Vec2, &mut [u32]))| {
                let grid_agent = &grid.agents[slot];
                let index = grid_agent.index as usize;
                let me = SelfState {
                    position: grid_agent.position,
                    velocity: grid_agent.velocity,
                    pref_velocity: pref_velocities[index],
                    params: params[index],
                    index: grid_agent.index,
                };
                let p = &me.params;
                let obstacle_range_sq = sqr(p.time_horizon_obst * p.max_speed + p.radius);
                let height = grid_agent.height;
                obstacles.neighbors(
                    me.position,
                    height,
                    band,
                    obstacle_range_sq,
                    &mut scratch.obstacle_neighbors,
                    &mut scratch.obstacle_stack,
                );
                let range_sq = sqr(p.neighbor_dist);
                let seed = memory.seed(
                    me.index,
                    me.position,
                    height,
                    positions,
                    heights,
                    inactive,
                    range_sq,
                    band,
                    p.max_neighbors,
                    &grid.slot_of,
                    &mut scratch.agent_neighbors.hint,
                );
                grid.neighbors(slot, range_sq, p.max_neighbors, band, seed, &mut scratch.agent_neighbors);
                NeighborMemory::record(remembered, &scratch.agent_neighbors.found);
                *new_velocity = compute_new_velocity(&me, &grid.agents, &obstacles.vertices, time_step, scratch);
            };
        // Each agent's velocity depends only on the old state, so the order of the work does
        // not change the result.
        #[cfg(feature = "parallel")]
        self.wake.release();
        #[cfg(feature = "parallel")]
        self.new_velocities
            .par_iter_mut()
            .zip(remembered.par_chunks_mut(stride))
            .with_min_len(MIN_AGENTS_PER_TASK)
            .enumerate()
            .for_each_init(ThreadScratch::take, |scratch, item| velocity_of(&mut scratch.0, item));
        #[cfg(not(feature = "parallel"))]
        {
            let mut scratch = ThreadScratch::take();
            let scratch = &mut scratch.0;
            self.new_velocities
                .iter_mut()
                .zip(remembered.chunks_mut(stride))
                .enumerate()
                .for_each(|item| velocity_of(scratch, item));
        }
        self.neighbor_memory.new = remembered;
        self.neighbor_memory.finish(&mut self.agent_grid);

        // Phase two: move everyone (by agent index, from the grid slot `finish` just mapped).
        let slot_of = self.neighbor_memory.slot_of();
        let new_velocities = &self.new_velocities;
        let move_agent = |(i, (position, velocity)): (usize, (&mut Vec2, &mut Vec2))| {
            if let Some(&new_velocity) = slot_of.get(i).and_then(|&slot| new_velocities.get(slot as usize)) {
                *velocity = new_velocity;
                *position = *position + new_velocity * time_step;
            }
        };
        #[cfg(feature = "parallel")]
        self.positions
            .par_iter_mut()
            .zip(self.velocities.par_iter_mut())
            .with_min_len(MIN_AGENTS_PER_MOVE_TASK)
            .enumerate()
            .for_each(move_agent);
        #[cfg(not(feature = "parallel"))]
        self.positions.iter_mut().zip(self.velocities.iter_mut()).enumerate().for_each(move_agent);
        self.global_time += time_step;
    }
}
