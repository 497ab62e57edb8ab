//! A navmesh crowd: ORCA agents with goals on a [`QueryMesh`].
//!
//! Every [`Crowd::step`]:
//! 1. each agent follows the corners of its [`find_path`](crate::PathQuery::find_path_into)
//!    path: its preferred velocity points at the farthest corner it can see (raycast), and it
//!    re-plans when its current corner is no longer visible (it strayed from the corridor);
//! 2. agents that stall (deadlock) for [`CrowdConfig::stall_steps`] steps turn their preferred
//!    velocity by 45° for as many steps: the first turn to the right (everyone the same way, so
//!    symmetric pairs pass), then alternately left and right;
//! 3. one ORCA step ([`crate::orca::Simulator`]) picks the new velocities; the obstacles are the
//!    navmesh boundary outlines pushed back out by the bake radius (the walls the mesh was eroded
//!    from), built once;
//! 4. each agent moves along the surface with raycasts (sliding along a wall it hits, never
//!    through it), its height taken from the mesh;
//! 5. a few Jacobi iterations push overlapping pairs apart (each push again kept on the mesh), so
//!    agents never overlap by more than [`CrowdConfig::max_overlap`] of their combined radius
//!    unless walls pin them.
//!
//! Off-mesh links: an agent walks to a link's take-off point like to any corner (it never
//! steers past it), and once within the goal radius of it moves along the link, start to end
//! in 3D at its maximum speed, outside ORCA (others neither avoid it nor are avoided, and the
//! keep-on-mesh and overlap passes leave it alone); at the end it is back on the mesh and
//! follows the rest of its path.
//!
//! ORCA's plane `(x, y)` is Meadow's `[x, z]`. Only the ORCA velocity phase runs in parallel (and
//! is bit-identical for any thread count); everything else runs in agent index order, so a crowd
//! is deterministic across thread counts.
//!
//! Floors: agents, and agents and walls, see each other only within a height band
//! ([`CrowdConfig::layer_band`], by default the mesh's agent height), so an agent on a bridge
//! neither avoids the agents on the road below nor the road's walls. Along a ramp or stairs the
//! band follows the agent, so the layers it joins are seen where it is near them. The band is
//! on height alone: on a slope steeper than the band over the neighbour distance, far
//! neighbours up or down the slope drop out (the near ones, which matter, stay).

pub mod scenario;

use crate::orca::{AgentParams, OrcaError, Simulator, Vec2};
use crate::point::IntoPoint;
use crate::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh};
use crate::tolerance::{CROWD_FLAT_VERTEX_TOLERANCE, CROWD_LINK_REACH, CROWD_MITRE_MIN, CROWD_WALL_BACKOFF};

pub use scenario::{CrowdScenario, CrowdScenarioAgent};

/// Errors from setting up or changing a crowd.
#[derive(Debug, thiserror::Error)]
pub enum CrowdError {
    /// The ORCA simulator rejected a parameter or obstacle.
    #[error(transparent)]
    Orca(#[from] OrcaError),
    /// A configuration value is outside its limits.
    #[error("{name} must be finite and {limit}, got {value}")]
    InvalidConfig {
        /// Field name.
        name: &'static str,
        /// The rejected value.
        value: f64,
        /// The limit it breaks.
        limit: &'static str,
    },
    /// An agent's start or goal is not finite.
    #[error("agent {agent}: position and goal must be finite")]
    NonFinite {
        /// Agent index.
        agent: usize,
    },
    /// An agent's start is not near the navmesh.
    #[error("agent {agent}: start {point:?} is not on the navmesh")]
    StartOffMesh {
        /// Agent index.
        agent: usize,
        /// The point given.
        point: [f64; 3],
    },
    /// An agent's goal is not near the navmesh.
    #[error("agent {agent}: goal {point:?} is not on the navmesh")]
    GoalOffMesh {
        /// Agent index.
        agent: usize,
        /// The point given.
        point: [f64; 3],
    },
    /// No agent has this index.
    #[error("no agent {agent}")]
    UnknownAgent {
        /// The index asked for.
        agent: usize,
    },
}

/// Crowd-wide settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdConfig {
    /// Simulation time step in seconds (> 0).
    pub time_step: f32,
    /// An agent has arrived when it is within this XZ distance of its goal (>= 0).
    pub goal_radius: f64,
    /// Steps an agent may stall (moving slower than a tenth of its preferred speed) before it
    /// gets a symmetry-breaking turn.
    pub stall_steps: u32,
    /// The overlap-resolution pass stops once no pair overlaps by more than this fraction of
    /// its combined radius (in [0, 1)).
    pub max_overlap: f64,
    /// Upper bound on overlap-resolution iterations per step.
    pub overlap_iterations: u32,
    /// Half-extents of the box searched when snapping starts and goals onto the mesh.
    pub snap_extents: [f64; 3],
    /// Agents, and agents and walls, whose heights differ by more than this ignore each other
    /// (ORCA, the overlap pass and [`Crowd::max_overlap_ratio`]), so crowds on floors above
    /// one another do not interact. A wall counts when the agent's height is within the band
    /// of the wall's height range. `None`: the mesh's agent height (floors the bake kept apart
    /// are at least that far apart); `Some(f64::INFINITY)`: one plane for all. Limits: > 0.
    pub layer_band: Option<f64>,
}

impl Default for CrowdConfig {
    fn default() -> Self {
        CrowdConfig {
            time_step: 0.1,
            goal_radius: 0.25,
            stall_steps: 10,
            max_overlap: 0.005,
            overlap_iterations: 48,
            snap_extents: [1.0, 2.0, 1.0],
            layer_band: None,
        }
    }
}

/// Wall time of the phases of the last [`Crowd::step`] (for benchmarks; never an input to the
/// simulation).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrowdStepTimes {
    /// Following the paths: preferred velocities, re-planning, stall turns.
    pub path_following: std::time::Duration,
    /// The ORCA step (setting up the simulator and computing the new velocities).
    pub orca: std::time::Duration,
    /// Keeping agents on the mesh: moving along the surface and the overlap pass.
    pub keep_on_mesh: std::time::Duration,
}

/// The time at a phase boundary of [`Crowd::step`], where the target has a clock:
/// `Instant::now` panics on `wasm32-unknown-unknown`, so there the phase times stay zero.
fn phase_clock() -> Option<std::time::Instant> {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    let now = None;
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let now = Some(std::time::Instant::now());
    now
}

/// The time from `a` to `b`, zero without a clock.
fn between(a: Option<std::time::Instant>, b: Option<std::time::Instant>) -> std::time::Duration {
    match (a, b) {
        (Some(a), Some(b)) => b.saturating_duration_since(a),
        _ => std::time::Duration::ZERO,
    }
}

/// How far (radians) a stalled agent turns its preferred velocity to the right.
const NUDGE_ANGLE: f64 = std::f64::consts::FRAC_PI_4;

/// The state of one crowd agent.
#[derive(Clone, Debug)]
struct AgentState {
    params: AgentParams,
    goal: [f64; 3],
    /// The current path (corners from the position at planning time to the goal).
    path: Path,
    /// Index into `path.points` of the corner being steered at.
    corner: usize,
    /// Whether the path must be (re)computed before the next step.
    replan: bool,
    /// Consecutive steps with too little progress.
    stalled: u32,
    /// Steps left of the current symmetry-breaking turn.
    nudge_left: u32,
    /// Turns given so far (odd: right, even: left).
    nudges: u32,
    /// The off-mesh link the agent is on, if any.
    on_link: Option<LinkTraversal>,
}

/// An agent's way along an off-mesh link.
#[derive(Clone, Copy, Debug)]
struct LinkTraversal {
    /// Take-off and landing points.
    from: [f64; 3],
    to: [f64; 3],
    /// Distance covered so far, metres (3D, along the segment).
    covered: f64,
    /// Index of the landing point in the agent's path.
    landing: usize,
}

/// A crowd of ORCA agents walking to goals on a navmesh.
///
/// ```
/// use meadow::crowd::{Crowd, CrowdConfig};
/// use meadow::orca::AgentParams;
/// use meadow::{NavMesh, QueryMesh};
/// # let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
/// let mesh = QueryMesh::new(NavMesh::from_bytes(bytes)?);
/// let mut crowd = Crowd::new(&mesh, CrowdConfig::default())?;
/// let params = AgentParams {
///     neighbor_dist: 5.0,
///     max_neighbors: 10,
///     time_horizon: 2.0,
///     time_horizon_obst: 1.0,
///     radius: 0.5,
///     max_speed: 2.0,
/// };
/// // Through the box's line, so each walks round it.
/// let a = crowd.add_agent([-6.0, 0.0, 0.0], [6.0, 0.0, 0.0], params)?;
/// while !crowd.all_arrived() && crowd.steps() < 500 {
///     crowd.step();
/// }
/// assert!(crowd.arrived(a));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Crowd<'m> {
    mesh: CrowdMesh<'m>,
    config: CrowdConfig,
    /// The ORCA simulator: the walls, and one ORCA agent per crowd agent (same index), kept
    /// from step to step so that its neighbour memory and buffers carry over.
    sim: Simulator,
    /// Whether each agent took part in the last ORCA step (not on a link, state finite in f32).
    in_orca: Vec<bool>,
    positions: Vec<[f64; 3]>,
    velocities: Vec<[f64; 2]>,
    pref_velocities: Vec<[f64; 2]>,
    agents: Vec<AgentState>,
    query: PathQuery,
    filter: QueryFilter,
    visited: Vec<u32>,
    steps: usize,
    last_step_times: CrowdStepTimes,
}

/// The mesh a crowd walks on: borrowed, or shared so that [`Crowd::set_mesh`] can replace it
/// (a [`DynamicMesh`](crate::DynamicMesh) after an update).
#[derive(Clone, Debug)]
enum CrowdMesh<'m> {
    Borrowed(&'m QueryMesh),
    Shared(std::sync::Arc<QueryMesh>),
}

impl std::ops::Deref for CrowdMesh<'_> {
    type Target = QueryMesh;
    fn deref(&self) -> &QueryMesh {
        match self {
            CrowdMesh::Borrowed(m) => m,
            CrowdMesh::Shared(m) => m,
        }
    }
}

fn check(name: &'static str, value: f64, ok: bool, limit: &'static str) -> Result<(), CrowdError> {
    if value.is_finite() && ok {
        Ok(())
    } else {
        Err(CrowdError::InvalidConfig { name, value, limit })
    }
}

fn finite3(p: [f64; 3]) -> bool {
    p.iter().all(|c| c.is_finite())
}

fn len2(v: [f64; 2]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

/// Removes ring vertices `[x, z, height]` within `tolerance` of the segment joining their
/// neighbours in XZ, repeatedly; a vertex where the height leaves the straight line between its
/// neighbours' by more than `tolerance` stays (a wall rising along a ramp and level along a deck
/// keeps the bend, so its height range is right for the crowd's layer band).
fn drop_flat_vertices(mut ring: Vec<[f64; 3]>, tolerance: f64) -> Vec<[f64; 3]> {
    loop {
        let n = ring.len();
        if n <= 3 {
            return ring;
        }
        let flat = (0..n).find(|&i| {
            let (p, c, q) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            let d = [q[0] - p[0], q[1] - p[1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            let along = ((c[0] - p[0]) * d[0] + (c[1] - p[1]) * d[1]) / l.max(f64::MIN_POSITIVE);
            let height_on_line = p[2] + (q[2] - p[2]) * (along / l.max(f64::MIN_POSITIVE));
            l > 0.0
                && (0.0..=l).contains(&along)
                && ((c[0] - p[0]) * d[1] - (c[1] - p[1]) * d[0]).abs() / l < tolerance
                && (c[2] - height_on_line).abs() < tolerance
        });
        match flat {
            Some(i) => {
                ring.remove(i);
            }
            None => return ring,
        }
    }
}

/// The ORCA obstacle polygons of a navmesh: every boundary outline reversed (RVO2 wants the
/// blocked side on the left, the outlines have the walkable side there) and pushed out by
/// `offset` to the blocked side with a mitre join capped at `2 * offset`.
pub fn obstacle_polygons(mesh: &QueryMesh, offset: f64) -> Vec<Vec<Vec2>> {
    obstacle_outlines(mesh, offset).into_iter().map(|(polygon, _)| polygon).collect()
}

/// [`obstacle_polygons`] with the height of each vertex (that of the outline vertex it was
/// pushed out from).
pub fn obstacle_outlines(mesh: &QueryMesh, offset: f64) -> Vec<(Vec<Vec2>, Vec<f32>)> {
    let nav = mesh.mesh();
    let verts = nav.vertices();
    let mut out = Vec::new();
    for outline in nav.outlines() {
        // Reversed ring in XZ, with heights.
        let ring3: Vec<[f64; 3]> =
            outline.vertices.iter().rev().filter_map(|&v| verts.get(v as usize).map(|p| [p[0], p[2], p[1]])).collect();
        let ring3 = drop_flat_vertices(ring3, CROWD_FLAT_VERTEX_TOLERANCE);
        let ring: Vec<[f64; 2]> = ring3.iter().map(|p| [p[0], p[1]]).collect();
        let n = ring.len();
        if n < 2 {
            continue;
        }
        // Offset points (f64) with the index of the original vertex each came from.
        let mut shifted: Vec<([f64; 2], usize)> = Vec::with_capacity(n);
        for i in 0..n {
            let (p, c, q) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            // Reversed, the blocked side is on the left of each edge: push along left normals.
            let normal = |a: [f64; 2], b: [f64; 2]| {
                let d = [b[0] - a[0], b[1] - a[1]];
                let l = len2(d);
                if l > 0.0 {
                    [-d[1] / l, d[0] / l]
                } else {
                    [0.0, 0.0]
                }
            };
            let (n1, n2) = (normal(p, c), normal(c, q));
            let sum = [n1[0] + n2[0], n1[1] + n2[1]];
            let s = len2(sum);
            let shift = if s > CROWD_MITRE_MIN {
                // Mitre: the bisector scaled so both offset edges meet, capped so sharp tips do
                // not poke far beyond the wall.
                let cos_half = s / 2.0;
                let scale = (offset / cos_half.max(0.5)).min(1.5 * offset);
                [sum[0] / s * scale, sum[1] / s * scale]
            } else {
                [0.0, 0.0]
            };
            shifted.push(([c[0] + shift[0], c[1] + shift[1]], i));
        }
        // Around an eroded (rounded) wall corner the offset points of the arc collapse onto the
        // corner and can fold back; drop every point that would make an edge run against its
        // original edge, so the polygon has no tiny reversed edges for ORCA to trip over.
        let mut kept: Vec<([f64; 2], usize)> = Vec::with_capacity(n);
        for &(v, ci) in &shifted {
            let c = ring[ci];
            while let Some(&(lv, li)) = kept.last() {
                let lc = ring[li];
                let orig = [c[0] - lc[0], c[1] - lc[1]];
                let off = [v[0] - lv[0], v[1] - lv[1]];
                if kept.len() > 1 && orig[0] * off[0] + orig[1] * off[1] <= 0.0 {
                    kept.pop();
                } else {
                    break;
                }
            }
            kept.push((v, ci));
        }
        let mut poly: Vec<Vec2> = Vec::with_capacity(kept.len());
        let mut heights: Vec<f32> = Vec::with_capacity(kept.len());
        for (v, ci) in kept {
            let v = Vec2::new(v[0] as f32, v[1] as f32);
            if poly.last() != Some(&v) {
                poly.push(v);
                // The original vertex's own height (two vertices of a ring can share XZ on
                // stacked floors, so it is looked up by index, not by position).
                heights.push(ring3[ci][2] as f32);
            }
        }
        while poly.len() > 1 && poly.first() == poly.last() {
            poly.pop();
            heights.pop();
        }
        if poly.len() >= 2 {
            out.push((poly, heights));
        }
    }
    out
}

/// An ORCA simulator holding `mesh`'s walls (the obstacle tree built) and no agent yet.
fn wall_simulator(mesh: &QueryMesh, config: &CrowdConfig) -> Result<Simulator, CrowdError> {
    let band = config.layer_band.unwrap_or(mesh.mesh().settings().height);
    // Infinity is allowed (one plane for all); NaN fails the comparison.
    if band.is_nan() || band <= 0.0 {
        return Err(CrowdError::InvalidConfig { name: "layer_band", value: band, limit: "> 0 (or infinite)" });
    }
    let mut sim = Simulator::new(config.time_step)?;
    sim.set_height_band(band as f32)?;
    for (polygon, heights) in obstacle_outlines(mesh, mesh.mesh().settings().radius) {
        sim.add_obstacle_at_heights(&polygon, &heights)?;
    }
    // An empty step builds the obstacle tree once, before any agent joins.
    sim.step();
    Ok(sim)
}

impl<'m> Crowd<'m> {
    /// An empty crowd on `mesh`; builds the ORCA obstacles from the mesh outlines.
    pub fn new(mesh: &'m QueryMesh, config: CrowdConfig) -> Result<Self, CrowdError> {
        Crowd::on(CrowdMesh::Borrowed(mesh), config)
    }

    /// An empty crowd on a shared mesh, which [`Crowd::set_mesh`] can replace.
    pub fn with_shared_mesh(mesh: std::sync::Arc<QueryMesh>, config: CrowdConfig) -> Result<Self, CrowdError> {
        Crowd::on(CrowdMesh::Shared(mesh), config)
    }

    fn on(mesh: CrowdMesh<'m>, config: CrowdConfig) -> Result<Self, CrowdError> {
        check("goal_radius", config.goal_radius, config.goal_radius >= 0.0, ">= 0")?;
        check("max_overlap", config.max_overlap, (0.0..1.0).contains(&config.max_overlap), "in [0, 1)")?;
        for e in config.snap_extents {
            check("snap_extents", e, e >= 0.0, ">= 0")?;
        }
        let sim = wall_simulator(&mesh, &config)?;
        Ok(Crowd {
            query: PathQuery::new(&mesh),
            mesh,
            config,
            sim,
            in_orca: Vec::new(),
            positions: Vec::new(),
            velocities: Vec::new(),
            pref_velocities: Vec::new(),
            agents: Vec::new(),
            filter: QueryFilter::new(),
            visited: Vec::new(),
            steps: 0,
            last_step_times: CrowdStepTimes::default(),
        })
    }

    /// Moves the crowd onto another mesh of the same level (a [`DynamicMesh`](crate::DynamicMesh)
    /// after an update): rebuilds the walls (and the ORCA simulator round them), snaps every agent not on an off-mesh link and every
    /// goal onto the new mesh (an agent an obstacle now covers goes to the nearest point beside
    /// it) and re-plans every path. An agent or goal with no mesh within the snap extents stays
    /// where it is (its path search fails until it is back on the mesh).
    pub fn set_mesh(&mut self, mesh: std::sync::Arc<QueryMesh>) -> Result<(), CrowdError> {
        let mesh = CrowdMesh::Shared(mesh);
        // The walls change, so the simulator is built anew with the agents in their order (its
        // agent `i` stays crowd agent `i`; only last step's neighbour memory is lost).
        let mut sim = wall_simulator(&mesh, &self.config)?;
        for (i, a) in self.agents.iter().enumerate() {
            let (p, v) = (self.positions[i], self.velocities[i]);
            sim.add_agent(Vec2::new(p[0] as f32, p[2] as f32), Vec2::new(v[0] as f32, v[1] as f32), a.params)?;
        }
        self.sim = sim;
        self.query = PathQuery::new(&mesh);
        self.mesh = mesh;
        for (i, a) in self.agents.iter_mut().enumerate() {
            if a.on_link.is_none() {
                if let Ok(p) = self.mesh.nearest_point(self.positions[i], self.config.snap_extents) {
                    self.positions[i] = p.point;
                }
            }
            if let Ok(g) = self.mesh.nearest_point(a.goal, self.config.snap_extents) {
                a.goal = g.point;
            }
            a.replan = true;
            a.stalled = 0;
        }
        Ok(())
    }

    /// Adds an agent at `position` walking to `goal` (both snapped onto the mesh) and returns its
    /// index.
    pub fn add_agent(
        &mut self,
        position: impl IntoPoint,
        goal: impl IntoPoint,
        params: AgentParams,
    ) -> Result<usize, CrowdError> {
        let (position, goal) = (position.into_point(), goal.into_point());
        let agent = self.agents.len();
        params.validate().map_err(|e| OrcaError::Agent { agent, source: Box::new(e) })?;
        if !finite3(position) || !finite3(goal) {
            return Err(CrowdError::NonFinite { agent });
        }
        let start = self
            .mesh
            .nearest_point(position, self.config.snap_extents)
            .map_err(|_| CrowdError::StartOffMesh { agent, point: position })?;
        let goal_loc = self
            .mesh
            .nearest_point(goal, self.config.snap_extents)
            .map_err(|_| CrowdError::GoalOffMesh { agent, point: goal })?;
        // The simulator's agent `agent` is this one: both lists grow together or not at all.
        let p = start.point;
        self.sim.add_agent(Vec2::new(p[0] as f32, p[2] as f32), Vec2::ZERO, params)?;
        self.in_orca.push(false);
        self.positions.push(start.point);
        self.velocities.push([0.0; 2]);
        self.pref_velocities.push([0.0; 2]);
        self.agents.push(AgentState {
            params,
            goal: goal_loc.point,
            path: Path::default(),
            corner: 0,
            replan: true,
            stalled: 0,
            nudge_left: 0,
            nudges: 0,
            on_link: None,
        });
        Ok(agent)
    }

    /// Gives agent `agent` a new goal (snapped onto the mesh).
    pub fn set_goal(&mut self, agent: usize, goal: impl IntoPoint) -> Result<(), CrowdError> {
        let goal = goal.into_point();
        if agent >= self.agents.len() {
            return Err(CrowdError::UnknownAgent { agent });
        }
        if !finite3(goal) {
            return Err(CrowdError::NonFinite { agent });
        }
        let g = self
            .mesh
            .nearest_point(goal, self.config.snap_extents)
            .map_err(|_| CrowdError::GoalOffMesh { agent, point: goal })?;
        let a = &mut self.agents[agent];
        a.goal = g.point;
        a.replan = true;
        a.stalled = 0;
        Ok(())
    }

    /// The mesh the crowd walks on.
    pub fn mesh(&self) -> &QueryMesh {
        &self.mesh
    }

    /// The crowd settings.
    pub fn config(&self) -> &CrowdConfig {
        &self.config
    }

    /// Number of agents.
    pub fn num_agents(&self) -> usize {
        self.agents.len()
    }

    /// Current positions `[x, y, z]` on the mesh surface, by agent index.
    pub fn positions(&self) -> &[[f64; 3]] {
        &self.positions
    }

    /// Velocities `[x, z]` chosen by the last ORCA step, by agent index.
    pub fn velocities(&self) -> &[[f64; 2]] {
        &self.velocities
    }

    /// Preferred velocities `[x, z]` of the last step, by agent index.
    pub fn pref_velocities(&self) -> &[[f64; 2]] {
        &self.pref_velocities
    }

    /// The ORCA parameters of agent `agent`.
    pub fn agent_params(&self, agent: usize) -> Option<&AgentParams> {
        self.agents.get(agent).map(|a| &a.params)
    }

    /// The goal of agent `agent` (on the mesh).
    pub fn goal(&self, agent: usize) -> Option<[f64; 3]> {
        self.agents.get(agent).map(|a| a.goal)
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Whether agent `agent` is on an off-mesh link (a jump, a ladder: moving along it outside
    /// ORCA).
    pub fn on_link(&self, agent: usize) -> bool {
        self.agents.get(agent).is_some_and(|a| a.on_link.is_some())
    }

    /// Whether agent `agent` is within the goal radius of its goal (XZ).
    pub fn arrived(&self, agent: usize) -> bool {
        match (self.positions.get(agent), self.agents.get(agent)) {
            (Some(p), Some(a)) => len2([a.goal[0] - p[0], a.goal[2] - p[2]]) <= self.config.goal_radius,
            _ => false,
        }
    }

    /// Whether every agent has arrived.
    pub fn all_arrived(&self) -> bool {
        (0..self.agents.len()).all(|i| self.arrived(i))
    }

    /// The largest overlap of any pair of agents on the mesh (not on a link) as a fraction of
    /// its combined radius (0 when none overlap), by brute force.
    pub fn max_overlap_ratio(&self) -> f64 {
        let mut worst = 0.0f64;
        for i in 0..self.positions.len() {
            for j in i + 1..self.positions.len() {
                if self.agents[i].on_link.is_some() || self.agents[j].on_link.is_some() {
                    continue; // off the mesh, outside the crowd's collision handling
                }
                let sum = (self.agents[i].params.radius + self.agents[j].params.radius) as f64;
                if sum <= 0.0 {
                    continue;
                }
                let (p, q) = (self.positions[i], self.positions[j]);
                if !self.same_layer(p, q) {
                    continue;
                }
                let d = len2([q[0] - p[0], q[2] - p[2]]);
                worst = worst.max((sum - d) / sum);
            }
        }
        worst
    }

    /// Advances the crowd by one time step.
    pub fn step(&mut self) {
        let started = phase_clock();
        let dt = self.config.time_step as f64;
        for i in 0..self.agents.len() {
            self.pref_velocities[i] = self.steer(i, dt);
        }
        let steered = phase_clock();

        // ORCA velocities from the state before the step (parallel, thread-count independent),
        // for the agents on the mesh; agents on links sit the step out.
        for i in 0..self.agents.len() {
            let (p, v, pv) = (self.positions[i], self.velocities[i], self.pref_velocities[i]);
            // Positions on the mesh are finite, but may not fit in f32: such an agent sits out
            // too (and takes velocity zero).
            let in_orca = self.agents[i].on_link.is_none()
                && self.sim.set_agent_position(i, Vec2::new(p[0] as f32, p[2] as f32)).is_ok()
                && self.sim.set_agent_velocity(i, Vec2::new(v[0] as f32, v[1] as f32)).is_ok()
                && self.sim.set_pref_velocity(i, Vec2::new(pv[0] as f32, pv[1] as f32)).is_ok()
                && self.sim.set_agent_height(i, p[1] as f32).is_ok();
            // Every crowd agent has its simulator agent, so this cannot fail.
            let _ = self.sim.set_agent_active(i, in_orca);
            self.in_orca[i] = in_orca;
        }
        self.sim.step();
        let avoided = phase_clock();

        for i in 0..self.agents.len() {
            if self.agents[i].on_link.is_some() {
                self.move_on_link(i, dt);
                continue;
            }
            let v = match self.sim.velocities().get(i) {
                Some(v) if self.in_orca[i] => [v.x as f64, v.y as f64],
                _ => [0.0; 2],
            };
            let from = self.positions[i];
            let to = self.move_on_mesh(from, [from[0] + v[0] * dt, from[2] + v[1] * dt]);
            self.positions[i] = to;
            self.velocities[i] = v;
            // Stall bookkeeping on the actual displacement.
            let pref = len2(self.pref_velocities[i]);
            let moved = len2([to[0] - from[0], to[2] - from[2]]) / dt;
            let a = &mut self.agents[i];
            if pref > 0.0 && moved < 0.1 * pref {
                a.stalled = a.stalled.saturating_add(1);
            } else {
                a.stalled = 0;
            }
        }
        self.resolve_overlaps();
        self.steps += 1;
        self.last_step_times = CrowdStepTimes {
            path_following: between(started, steered),
            orca: between(steered, avoided),
            keep_on_mesh: between(avoided, phase_clock()),
        };
    }

    /// Wall time of the phases of the last [`step`](Self::step) (zero before the first, and
    /// on targets without a clock).
    pub fn last_step_times(&self) -> CrowdStepTimes {
        self.last_step_times
    }

    /// Moves agent `i`, which is on a link, along it at its maximum speed for one step; at the
    /// landing it is back on the mesh, steering at the corner after the landing.
    fn move_on_link(&mut self, i: usize, dt: f64) {
        let a = &mut self.agents[i];
        let Some(mut l) = a.on_link else { return };
        let length =
            ((l.to[0] - l.from[0]).powi(2) + (l.to[1] - l.from[1]).powi(2) + (l.to[2] - l.from[2]).powi(2)).sqrt();
        let speed = a.params.max_speed as f64;
        l.covered += speed * dt;
        if l.covered >= length {
            self.positions[i] = l.to;
            a.on_link = None;
            a.corner = (l.landing + 1).min(a.path.points.len().saturating_sub(1));
            a.stalled = 0;
        } else {
            let t = l.covered / length;
            self.positions[i] = [
                l.from[0] + (l.to[0] - l.from[0]) * t,
                l.from[1] + (l.to[1] - l.from[1]) * t,
                l.from[2] + (l.to[2] - l.from[2]) * t,
            ];
            a.on_link = Some(l);
        }
        // The velocity shown is the motion along the link in XZ.
        let d = [l.to[0] - l.from[0], l.to[2] - l.from[2]];
        let xz_len = len2(d);
        self.velocities[i] =
            if xz_len > 0.0 && length > 0.0 { [d[0] / length * speed, d[1] / length * speed] } else { [0.0; 2] };
    }

    /// Starts agent `i` along the link that takes off at path point `corner`.
    fn take_link(&mut self, i: usize, corner: usize) {
        let a = &mut self.agents[i];
        let (Some(&from), Some(&to)) = (a.path.points.get(corner), a.path.points.get(corner + 1)) else { return };
        a.on_link = Some(LinkTraversal { from, to, covered: 0.0, landing: corner + 1 });
        self.positions[i] = from;
        a.stalled = 0;
        a.nudge_left = 0;
    }

    /// Plans if needed, advances the corner and returns the preferred velocity `[x, z]`.
    fn steer(&mut self, i: usize, dt: f64) -> [f64; 2] {
        if self.agents[i].on_link.is_some() {
            return [0.0; 2];
        }
        let pos = self.positions[i];
        let goal = self.agents[i].goal;
        if len2([goal[0] - pos[0], goal[2] - pos[2]]) <= self.config.goal_radius {
            self.agents[i].stalled = 0;
            return [0.0; 2];
        }
        // Re-plan when asked or when the corner steered at is no longer visible.
        let corner_visible = {
            let a = &self.agents[i];
            !a.replan && a.corner < a.path.points.len() && self.visible(pos, a.path.points[a.corner])
        };
        if !corner_visible {
            let a = &mut self.agents[i];
            let options = PathOptions { allow_partial: true, ..PathOptions::default() };
            let ok = self.query.find_path_into(&self.mesh, pos, goal, &self.filter, options, &mut a.path).is_ok();
            a.replan = false;
            // Corner 0 is the start itself (unless a link takes off right there).
            a.corner = if a.path.link_at(0).is_some() { 0 } else { 1.min(a.path.points.len().saturating_sub(1)) };
            if !ok || a.path.points.is_empty() {
                return [0.0; 2];
            }
        }
        // Steer at the farthest visible corner, but never past a link's take-off.
        loop {
            let a = &self.agents[i];
            let next = a.corner + 1;
            if a.path.link_at(a.corner).is_some()
                || next >= a.path.points.len()
                || !self.visible(pos, a.path.points[next])
            {
                break;
            }
            self.agents[i].corner = next;
        }
        let a = &self.agents[i];
        let corner = a.corner;
        let target = a.path.points[corner];
        if a.path.link_at(corner).is_some()
            && len2([target[0] - pos[0], target[2] - pos[2]]) <= self.config.goal_radius.max(CROWD_LINK_REACH)
        {
            self.take_link(i, corner);
            return [0.0; 2];
        }
        let d = [target[0] - pos[0], target[2] - pos[2]];
        let dist = len2(d);
        if dist <= 0.0 {
            return [0.0; 2];
        }
        // Slow down for the goal and for a take-off point, so as to stop on it.
        let last = a.corner + 1 >= a.path.points.len() || a.path.link_at(a.corner).is_some();
        let speed = if last { (a.params.max_speed as f64).min(dist / dt) } else { a.params.max_speed as f64 };
        let mut v = [d[0] / dist * speed, d[1] / dist * speed];
        let a = &mut self.agents[i];
        if a.nudge_left == 0 && a.stalled >= self.config.stall_steps {
            a.nudges = a.nudges.wrapping_add(1);
            a.nudge_left = self.config.stall_steps.max(1);
            a.stalled = 0;
        }
        if a.nudge_left > 0 {
            a.nudge_left -= 1;
            // Everyone turns right (clockwise in (x, z)), so two agents blocking each other head
            // on pass; every second turn goes left, so an agent pinned on its right gets out.
            let sign = if a.nudges % 2 == 1 { -1.0 } else { 1.0 };
            let (s, c) = (sign * NUDGE_ANGLE).sin_cos();
            v = [v[0] * c - v[1] * s, v[0] * s + v[1] * c];
        }
        v
    }

    /// Whether the straight XZ segment from `from` to `to` stays on the mesh.
    fn visible(&mut self, from: [f64; 3], to: [f64; 3]) -> bool {
        matches!(self.mesh.raycast(from, to, &mut self.visited), Ok(r) if r.hit.is_none())
    }

    /// Moves from `from` towards the XZ point `to` along the surface: on a wall hit, stops just
    /// short of the wall and slides the rest of the move along it. Returns the new position with
    /// its height on the mesh; stays put when the walk fails.
    fn move_on_mesh(&mut self, from: [f64; 3], to: [f64; 2]) -> [f64; 3] {
        let mut cur = from;
        let mut target = to;
        for _ in 0..2 {
            let d = [target[0] - cur[0], target[1] - cur[2]];
            let dist = len2(d);
            if dist <= 0.0 {
                break;
            }
            let end = [target[0], cur[1], target[1]];
            let Ok(r) = self.mesh.raycast(cur, end, &mut self.visited) else { break };
            match r.hit {
                None => {
                    let p = [target[0], target[1]];
                    let h = self.mesh.surface_height(r.last_polygon, p);
                    return [p[0], h, p[1]];
                }
                Some(hit) => {
                    let t = (hit.t - CROWD_WALL_BACKOFF / dist).max(0.0);
                    let p = [cur[0] + d[0] * t, cur[2] + d[1] * t];
                    let stop = [p[0], self.mesh.surface_height(r.last_polygon, p), p[1]];
                    if !self.inside(stop) {
                        break;
                    }
                    cur = stop;
                    // Slide: the rest of the move minus its component into the wall.
                    let rest = [d[0] * (1.0 - t), d[1] * (1.0 - t)];
                    let n = [hit.normal[0], hit.normal[2]];
                    let into = rest[0] * n[0] + rest[1] * n[1];
                    let slide = if into < 0.0 { [rest[0] - into * n[0], rest[1] - into * n[1]] } else { rest };
                    target = [cur[0] + slide[0], cur[2] + slide[1]];
                }
            }
        }
        cur
    }

    /// Whether two agents at `p` and `q` are within the layer band of each other.
    fn same_layer(&self, p: [f64; 3], q: [f64; 3]) -> bool {
        let band = self.config.layer_band.unwrap_or(self.mesh.mesh().settings().height);
        (p[1] - q[1]).abs() <= band
    }

    /// Whether a point lies on the mesh (strictly usable as a raycast start).
    fn inside(&self, p: [f64; 3]) -> bool {
        self.mesh.locate(p).is_ok()
    }

    /// Pushes overlapping pairs apart (Jacobi iterations in index order), each push kept on the
    /// mesh.
    fn resolve_overlaps(&mut self) {
        let n = self.agents.len();
        if n < 2 {
            return;
        }
        let max_radius = self.agents.iter().map(|a| a.params.radius as f64).fold(0.0, f64::max);
        let mut order: Vec<usize> = (0..n).collect();
        let mut push = vec![[0.0f64; 2]; n];
        for _ in 0..self.config.overlap_iterations {
            // Sweep along x: sorted by (x, index) so the pair set is order independent.
            order.sort_by(|&a, &b| self.positions[a][0].total_cmp(&self.positions[b][0]).then(a.cmp(&b)));
            push.iter_mut().for_each(|p| *p = [0.0; 2]);
            let mut worst = 0.0f64;
            for (k, &i) in order.iter().enumerate() {
                if self.agents[i].on_link.is_some() {
                    continue;
                }
                let pi = self.positions[i];
                let ri = self.agents[i].params.radius as f64;
                for &j in &order[k + 1..] {
                    let pj = self.positions[j];
                    if pj[0] - pi[0] >= ri + max_radius {
                        break;
                    }
                    if self.agents[j].on_link.is_some() {
                        continue;
                    }
                    if !self.same_layer(pi, pj) {
                        continue;
                    }
                    let sum = ri + self.agents[j].params.radius as f64;
                    let d = [pj[0] - pi[0], pj[2] - pi[2]];
                    let dist = len2(d);
                    if dist >= sum || sum <= 0.0 {
                        continue;
                    }
                    worst = worst.max((sum - dist) / sum);
                    let (lo, hi) = if i < j { (i, j) } else { (j, i) };
                    // Unit normal from lo to hi; coincident agents split along +x.
                    let dir = if dist > 0.0 {
                        let s = if lo == i { 1.0 } else { -1.0 };
                        [s * d[0] / dist, s * d[1] / dist]
                    } else {
                        [1.0, 0.0]
                    };
                    // Each takes half, aiming slightly past contact so rounding cannot leave a
                    // residual overlap.
                    let half = 0.5 * (sum * (1.0 + 0.25 * self.config.max_overlap) - dist);
                    push[lo] = [push[lo][0] - dir[0] * half, push[lo][1] - dir[1] * half];
                    push[hi] = [push[hi][0] + dir[0] * half, push[hi][1] + dir[1] * half];
                }
            }
            if worst <= self.config.max_overlap {
                break;
            }
            for (i, d) in push.iter().enumerate() {
                if *d != [0.0; 2] {
                    let p = self.positions[i];
                    self.positions[i] = self.move_on_mesh(p, [p[0] + d[0], p[2] + d[1]]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
