//! The carving benchmark's harness (`vs_tilecache`): one measurement, generic over the side
//! measured (Detour's tile cache, Meadow's dynamic mesh), so every side answers the same
//! obstacles and pairs in the same order.

use crate::obstacles::BoxObstacle;
use std::time::Instant;

/// A navigation mesh with temporary obstacles, as the carving benchmark drives it.
pub trait DynamicNavigation {
    /// What names a placed obstacle.
    type Handle: Copy;
    /// Why an edit failed.
    type Error: std::error::Error + 'static;

    /// Places `obstacle`; queries see it after [`update`](Self::update).
    fn add(&mut self, obstacle: &BoxObstacle) -> Result<Self::Handle, Self::Error>;
    /// Moves the obstacle `handle` to `obstacle`, giving its handle from then on (a side without
    /// a move of its own removes and adds).
    fn move_to(&mut self, handle: Self::Handle, obstacle: &BoxObstacle) -> Result<Self::Handle, Self::Error>;
    /// Takes the obstacle `handle` away.
    fn remove(&mut self, handle: Self::Handle) -> Result<(), Self::Error>;
    /// Applies every pending edit: queries afterwards see all of them.
    fn update(&mut self) -> Result<(), Self::Error>;
    /// The length of a path from `from` to `to` (the side's usual path query, string pulled),
    /// or `None` when it finds none.
    fn path(&mut self, from: [f64; 3], to: [f64; 3]) -> Option<f64>;
}

/// Median times of one edit followed by [`DynamicNavigation::update`], in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EditTimes {
    /// Adding one obstacle.
    pub add: f64,
    /// Moving one obstacle.
    pub move_to: f64,
    /// Removing one obstacle.
    pub remove: f64,
    /// Edits of each kind timed (the medians' sample size).
    pub samples: usize,
}

/// The least number of edits of each kind timed per obstacle count, so one obstacle gets as
/// many samples as a hundred.
const MIN_SAMPLES: usize = 100;

/// Times `repetitions` rounds (more when `placed` is small: at least [`MIN_SAMPLES`] edits of
/// each kind) of: add every obstacle of `placed` one after the other, move each to its target
/// in `targets` (the same length), remove each; every edit is timed with the update after it.
/// The side ends with no obstacle.
pub fn time_edits<N: DynamicNavigation>(
    nav: &mut N,
    placed: &[BoxObstacle],
    targets: &[BoxObstacle],
    repetitions: usize,
) -> Result<EditTimes, N::Error> {
    let rounds = repetitions.max(MIN_SAMPLES.div_ceil(placed.len().max(1)));
    let (mut add, mut move_to, mut remove) = (Vec::new(), Vec::new(), Vec::new());
    let mut handles = Vec::with_capacity(placed.len());
    for _ in 0..rounds {
        handles.clear();
        for b in placed {
            let t = Instant::now();
            let h = nav.add(b)?;
            nav.update()?;
            add.push(t.elapsed().as_secs_f64());
            handles.push(h);
        }
        for (h, b) in handles.iter_mut().zip(targets) {
            let t = Instant::now();
            *h = nav.move_to(*h, b)?;
            nav.update()?;
            move_to.push(t.elapsed().as_secs_f64());
        }
        for &h in &handles {
            let t = Instant::now();
            nav.remove(h)?;
            nav.update()?;
            remove.push(t.elapsed().as_secs_f64());
        }
    }
    let samples = add.len();
    Ok(EditTimes { add: median(&mut add), move_to: median(&mut move_to), remove: median(&mut remove), samples })
}

/// Path query times and answers with obstacles present.
#[derive(Clone, Debug, PartialEq)]
pub struct PathTimes {
    /// Median over the pairs of each pair's fastest time, in seconds.
    pub median: f64,
    /// Each pair's path length, `None` where the side found no path.
    pub lengths: Vec<Option<f64>>,
}

/// Adds `obstacles` (each with its update: Detour's tile cache queues at most 64 edits),
/// answers every pair `rounds` times (after
/// one untimed pass, which records the lengths) and removes the obstacles again. Each pair keeps
/// its fastest time, as `vs_detour` does, so one interrupt does not decide a median.
pub fn time_paths<N: DynamicNavigation>(
    nav: &mut N,
    obstacles: &[BoxObstacle],
    pairs: &[([f64; 3], [f64; 3])],
    rounds: usize,
) -> Result<PathTimes, N::Error> {
    let mut handles = Vec::with_capacity(obstacles.len());
    for b in obstacles {
        handles.push(nav.add(b)?);
        nav.update()?;
    }
    let lengths: Vec<Option<f64>> = pairs.iter().map(|&(a, b)| nav.path(a, b)).collect();
    let mut best = vec![f64::INFINITY; pairs.len()];
    for _ in 0..rounds {
        for (best, &(a, b)) in best.iter_mut().zip(pairs) {
            let t = Instant::now();
            let _ = std::hint::black_box(nav.path(a, b));
            *best = best.min(t.elapsed().as_secs_f64());
        }
    }
    for h in handles {
        nav.remove(h)?;
        nav.update()?;
    }
    Ok(PathTimes { median: median(&mut best), lengths })
}

/// The median of `v` (the upper one of an even count; 0 for none), sorting it.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}
