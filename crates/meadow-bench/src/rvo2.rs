//! RVO2 (the C++ reference implementation of ORCA) running its Circle loop, in two builds: a plain
//! `-O2` static library and a whole-program `-O2` build (all sources in one translation unit).
//! Compiled by `build.rs` from `../shared/peers/rvo2/src` when present.

use std::os::raw::c_void;

/// Which compiled copy of RVO2 to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rvo2Build {
    /// Static library, one object per source: every `Vector2` operator is a call.
    Plain,
    /// All sources in one translation unit, so the operators inline (what `-flto` gives).
    WholeProgram,
}

impl Rvo2Build {
    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Rvo2Build::Plain => "RVO2 -O2 static lib",
            Rvo2Build::WholeProgram => "RVO2 -O2 whole program",
        }
    }
}

/// RVO2's per-agent defaults, in its constructor's order.
#[derive(Clone, Copy, Debug)]
pub struct Rvo2Params {
    /// Seconds per step.
    pub time_step: f32,
    /// Neighbour distance.
    pub neighbor_dist: f32,
    /// Maximum neighbours.
    pub max_neighbors: usize,
    /// Time horizon for agents.
    pub time_horizon: f32,
    /// Time horizon for obstacles.
    pub time_horizon_obst: f32,
    /// Agent radius.
    pub radius: f32,
    /// Maximum speed.
    pub max_speed: f32,
}

#[cfg(rvo2_available)]
mod ffi {
    use std::os::raw::{c_int, c_void};

    macro_rules! driver {
        ($new:ident, $step:ident, $positions:ident, $free:ident) => {
            extern "C" {
                #[allow(clippy::too_many_arguments)]
                pub fn $new(
                    n: usize,
                    xy: *const f32,
                    goal_xy: *const f32,
                    time_step: f32,
                    neighbor_dist: f32,
                    max_neighbors: usize,
                    time_horizon: f32,
                    time_horizon_obst: f32,
                    radius: f32,
                    max_speed: f32,
                ) -> *mut c_void;
                pub fn $step(handle: *mut c_void, goal_radius_sq: f32) -> c_int;
                pub fn $positions(handle: *const c_void, out_xy: *mut f32);
                pub fn $free(handle: *mut c_void);
            }
        };
    }
    /// The signature of both builds' constructors.
    pub type NewFn =
        unsafe extern "C" fn(usize, *const f32, *const f32, f32, f32, usize, f32, f32, f32, f32) -> *mut c_void;

    driver!(rvo2_plain_new, rvo2_plain_step, rvo2_plain_positions, rvo2_plain_free);
    driver!(rvo2_whole_new, rvo2_whole_step, rvo2_whole_positions, rvo2_whole_free);
}

/// Whether the RVO2 sources were found and compiled into this binary.
pub const AVAILABLE: bool = cfg!(rvo2_available);

/// An RVO2 simulator with one goal per agent (RVO2's example loop).
pub struct Rvo2Circle {
    #[cfg_attr(not(rvo2_available), allow(dead_code))]
    build: Rvo2Build,
    #[cfg_attr(not(rvo2_available), allow(dead_code))]
    handle: *mut c_void,
    n: usize,
}

impl Rvo2Circle {
    /// Adds agents at `positions` (zero velocity) heading for `goals`; `None` when RVO2 was not
    /// compiled in, the two lists differ in length or memory ran out.
    pub fn new(build: Rvo2Build, positions: &[[f32; 2]], goals: &[[f32; 2]], params: Rvo2Params) -> Option<Self> {
        if positions.len() != goals.len() {
            return None;
        }
        #[cfg(rvo2_available)]
        {
            let p = params;
            let (xy, goal_xy) = (positions.as_ptr().cast::<f32>(), goals.as_ptr().cast::<f32>());
            let n = positions.len();
            // Both builds have one signature: pick the entry point, then call it once.
            let new_fn = match build {
                Rvo2Build::Plain => ffi::rvo2_plain_new,
                Rvo2Build::WholeProgram => ffi::rvo2_whole_new as ffi::NewFn,
            };
            // SAFETY: both arrays hold `n` pairs of floats; the driver copies them.
            let handle = unsafe {
                new_fn(
                    n,
                    xy,
                    goal_xy,
                    p.time_step,
                    p.neighbor_dist,
                    p.max_neighbors,
                    p.time_horizon,
                    p.time_horizon_obst,
                    p.radius,
                    p.max_speed,
                )
            };
            // The driver returns null when memory ran out.
            (!handle.is_null()).then_some(Rvo2Circle { build, handle, n })
        }
        #[cfg(not(rvo2_available))]
        {
            let _ = (build, params);
            None
        }
    }

    /// Preferred velocities towards the goals, one `doStep`; true once every agent is within
    /// `sqrt(goal_radius_sq)` of its goal (false also when RVO2 ran out of memory).
    pub fn step(&mut self, goal_radius_sq: f32) -> bool {
        #[cfg(rvo2_available)]
        // SAFETY: the handle is live (freed only on drop).
        unsafe {
            match self.build {
                Rvo2Build::Plain => ffi::rvo2_plain_step(self.handle, goal_radius_sq) == 1,
                Rvo2Build::WholeProgram => ffi::rvo2_whole_step(self.handle, goal_radius_sq) == 1,
            }
        }
        #[cfg(not(rvo2_available))]
        {
            let _ = goal_radius_sq;
            false
        }
    }

    /// The agents' positions.
    pub fn positions(&self) -> Vec<[f32; 2]> {
        let out = vec![[0.0f32; 2]; self.n];
        #[cfg(rvo2_available)]
        let out = {
            let mut out = out;
            let ptr = out.as_mut_ptr().cast::<f32>();
            // SAFETY: `out` holds 2 floats per agent, as the driver writes.
            unsafe {
                match self.build {
                    Rvo2Build::Plain => ffi::rvo2_plain_positions(self.handle, ptr),
                    Rvo2Build::WholeProgram => ffi::rvo2_whole_positions(self.handle, ptr),
                }
            }
            out
        };
        out
    }
}

impl Drop for Rvo2Circle {
    fn drop(&mut self) {
        #[cfg(rvo2_available)]
        // SAFETY: made by the matching `new`, freed once.
        unsafe {
            match self.build {
                Rvo2Build::Plain => ffi::rvo2_plain_free(self.handle),
                Rvo2Build::WholeProgram => ffi::rvo2_whole_free(self.handle),
            }
        }
    }
}
