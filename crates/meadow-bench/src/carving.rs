//! The carving benchmark's harness (`vs_tilecache`): one measurement, generic over the side
//! measured (Detour's tile cache, Meadow's dynamic mesh), so every side answers the same
//! obstacles and pairs in the same order.

use crate::obstacles::BoxObstacle;
use meadow::query::{Path, PathOptions, PathQuery, QueryFilter};
use meadow::{DynamicMesh, NavMesh, Obstacle, ObstacleError, ObstacleId};
use std::time::Instant;

/// A navigation mesh with temporary obstacles, as the carving benchmark drives it.
pub trait DynamicNavigation {
    /// What names a placed obstacle (no bounds: an opaque id will do).
    type Handle;
    /// Why an edit failed.
    type Error: std::error::Error + 'static;

    /// Places `obstacle`; queries see it after [`update`](Self::update).
    fn add(&mut self, obstacle: &BoxObstacle) -> Result<Self::Handle, Self::Error>;
    /// Moves the obstacle `handle` to `obstacle` (a side without a move of its own removes and
    /// adds, and puts the new handle in `handle`).
    fn move_to(&mut self, handle: &mut Self::Handle, obstacle: &BoxObstacle) -> Result<(), Self::Error>;
    /// Takes the obstacle `handle` away.
    fn remove(&mut self, handle: Self::Handle) -> Result<(), Self::Error>;
    /// Applies every pending edit: queries afterwards see all of them.
    fn update(&mut self) -> Result<(), Self::Error>;
    /// The length of a path from `from` to `to` (the side's usual path query, string pulled),
    /// or `None` when it finds none.
    fn path(&mut self, from: [f64; 3], to: [f64; 3]) -> Option<f64>;
    /// Polygons in the mesh queries see now.
    fn polygon_count(&self) -> usize;
    /// Bytes the side holds for its mesh and obstacles, where it can tell.
    fn memory_bytes(&self) -> Option<usize> {
        None
    }
}

/// Meadow's side: a [`DynamicMesh`] carving its baked mesh, and `find_path` on the carved mesh.
pub struct MeadowCarving {
    mesh: DynamicMesh,
    query: PathQuery,
    out: Path,
}

impl MeadowCarving {
    /// A dynamic mesh over `mesh`, with no obstacle yet.
    pub fn new(mesh: NavMesh) -> MeadowCarving {
        let mesh = DynamicMesh::new(mesh);
        let query = PathQuery::new(mesh.mesh());
        MeadowCarving { mesh, query, out: Path::default() }
    }

    /// The Meadow obstacle of a benchmark box.
    fn obstacle(b: &BoxObstacle) -> Obstacle {
        Obstacle { polygon: b.polygon_xz(), y: b.y_range() }
    }
}

impl DynamicNavigation for MeadowCarving {
    type Handle = ObstacleId;
    type Error = ObstacleError;

    fn add(&mut self, obstacle: &BoxObstacle) -> Result<ObstacleId, ObstacleError> {
        self.mesh.add_obstacle(Self::obstacle(obstacle))
    }

    fn move_to(&mut self, handle: &mut ObstacleId, obstacle: &BoxObstacle) -> Result<(), ObstacleError> {
        self.mesh.move_obstacle(*handle, Self::obstacle(obstacle))
    }

    fn remove(&mut self, handle: ObstacleId) -> Result<(), ObstacleError> {
        self.mesh.remove_obstacle(handle)
    }

    fn update(&mut self) -> Result<(), ObstacleError> {
        self.mesh.update();
        Ok(())
    }

    /// The 3D length of `find_path`'s string-pulled path, as Detour's side measures its own.
    fn path(&mut self, from: [f64; 3], to: [f64; 3]) -> Option<f64> {
        let mesh = self.mesh.mesh();
        self.query.find_path_into(mesh, from, to, &QueryFilter::new(), PathOptions::default(), &mut self.out).ok()?;
        Some(self.out.points.windows(2).map(|w| (0..3).map(|k| (w[1][k] - w[0][k]).powi(2)).sum::<f64>().sqrt()).sum())
    }

    fn polygon_count(&self) -> usize {
        self.mesh.mesh().mesh().polygon_count()
    }
}

/// The obstacle counts edits are timed with.
pub const OBSTACLE_COUNTS: [usize; 3] = [1, 10, 100];

/// Everything the benchmark measures on one side and level.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Edit times with each of [`OBSTACLE_COUNTS`] obstacles, in that order.
    pub edits: Vec<(usize, EditTimes)>,
    /// Path queries with no obstacle.
    pub paths_clear: PathTimes,
    /// Path queries with every obstacle of `placed` present.
    pub paths_blocked: PathTimes,
    /// Polygons with every obstacle present.
    pub polygons_blocked: usize,
    /// Polygons at the end, every obstacle removed (the count before any, if the side restores
    /// its mesh).
    pub polygons_after: usize,
}

/// The whole benchmark on one side: edits with 1, 10 and 100 of the obstacles of `placed`
/// (moved to the matching `targets`; see [`time_edits`]), then path queries on `pairs` with no
/// obstacle and with all of `placed`.
pub fn measure<N: DynamicNavigation>(
    nav: &mut N,
    placed: &[BoxObstacle],
    targets: &[BoxObstacle],
    pairs: &[([f64; 3], [f64; 3])],
    repetitions: usize,
) -> Result<Measured, N::Error> {
    let mut edits = Vec::with_capacity(OBSTACLE_COUNTS.len());
    for n in OBSTACLE_COUNTS {
        let n = n.min(placed.len()).min(targets.len());
        edits.push((n, time_edits(nav, placed, targets, n, repetitions)?));
    }
    let paths_clear = time_paths(nav, &[], pairs, repetitions)?;
    let mut polygons_blocked = 0;
    let paths_blocked = time_paths_with(nav, placed, pairs, repetitions, |nav| polygons_blocked = nav.polygon_count())?;
    Ok(Measured { edits, paths_clear, paths_blocked, polygons_blocked, polygons_after: nav.polygon_count() })
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
pub const MIN_SAMPLES: usize = 100;

/// Times edits with `count` obstacles: `repetitions` rounds (more when `count` is small: at
/// least [`MIN_SAMPLES`] edits of each kind) of: add `count` obstacles of `placed` one after the
/// other, move each to its target in `targets` (the same length as `placed`), remove each;
/// every edit is timed with the update after it. Round `k` takes the `count` obstacles from
/// index `k · count` on (wrapping round), so small counts sample many places, not one. The side
/// ends with no obstacle.
pub fn time_edits<N: DynamicNavigation>(
    nav: &mut N,
    placed: &[BoxObstacle],
    targets: &[BoxObstacle],
    count: usize,
    repetitions: usize,
) -> Result<EditTimes, N::Error> {
    let len = placed.len().min(targets.len());
    let count = count.min(len);
    if count == 0 {
        return Ok(EditTimes { add: 0.0, move_to: 0.0, remove: 0.0, samples: 0 });
    }
    let rounds = repetitions.max(MIN_SAMPLES.div_ceil(count));
    let (mut add, mut move_to, mut remove) = (Vec::new(), Vec::new(), Vec::new());
    let mut handles = Vec::with_capacity(count);
    for round in 0..rounds {
        let window: Vec<usize> = (0..count).map(|i| (round * count + i) % len).collect();
        handles.clear();
        for &i in &window {
            let t = Instant::now();
            let h = nav.add(&placed[i])?;
            nav.update()?;
            add.push(t.elapsed().as_secs_f64());
            handles.push(h);
        }
        for (h, &i) in handles.iter_mut().zip(&window) {
            let t = Instant::now();
            nav.move_to(h, &targets[i])?;
            nav.update()?;
            move_to.push(t.elapsed().as_secs_f64());
        }
        for h in handles.drain(..) {
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
    /// Each pair's fastest time, in seconds.
    pub times: Vec<f64>,
    /// Each pair's path length, `None` where the side found no path.
    pub lengths: Vec<Option<f64>>,
}

impl PathTimes {
    /// The median time over the pairs `keep` accepts (by index), in seconds; 0 for none.
    pub fn median_of(&self, keep: impl Fn(usize) -> bool) -> f64 {
        median(&mut (0..self.times.len()).filter(|&i| keep(i)).map(|i| self.times[i]).collect::<Vec<_>>())
    }

    /// Pairs with a path.
    pub fn found(&self) -> usize {
        self.lengths.iter().filter(|l| l.is_some()).count()
    }
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
    time_paths_with(nav, obstacles, pairs, rounds, |_| ())
}

/// [`time_paths`], calling `look` on the side once the obstacles are in.
fn time_paths_with<N: DynamicNavigation>(
    nav: &mut N,
    obstacles: &[BoxObstacle],
    pairs: &[([f64; 3], [f64; 3])],
    rounds: usize,
    look: impl FnOnce(&N),
) -> Result<PathTimes, N::Error> {
    let mut handles = Vec::with_capacity(obstacles.len());
    for b in obstacles {
        handles.push(nav.add(b)?);
        nav.update()?;
    }
    look(nav);
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
    Ok(PathTimes { median: median(&mut best.clone()), times: best, lengths })
}

/// The median of `v` (the upper one of an even count; 0 for none), sorting it.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A side that only keeps books: obstacles by handle, edits waiting for `update`, and a
    /// "path length" that is the number of obstacles queries see (so a test reads off what a
    /// query saw). It refuses an edit while another waits, and unknown handles.
    #[derive(Default)]
    struct Ledger {
        seen: BTreeMap<u32, BoxObstacle>,
        waiting: Option<(u32, Option<BoxObstacle>)>,
        next: u32,
        edits: usize,
        added: Vec<BoxObstacle>,
    }

    #[derive(Debug, PartialEq)]
    struct Refused(&'static str);

    impl std::fmt::Display for Refused {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Refused {}

    impl Ledger {
        fn edit(&mut self, handle: u32, to: Option<BoxObstacle>) -> Result<(), Refused> {
            if self.waiting.is_some() {
                return Err(Refused("an edit before the last one's update"));
            }
            self.waiting = Some((handle, to));
            self.edits += 1;
            Ok(())
        }
    }

    impl DynamicNavigation for Ledger {
        type Handle = u32;
        type Error = Refused;

        fn add(&mut self, obstacle: &BoxObstacle) -> Result<u32, Refused> {
            self.next += 1;
            self.edit(self.next, Some(*obstacle))?;
            self.added.push(*obstacle);
            Ok(self.next)
        }

        fn move_to(&mut self, handle: &mut u32, obstacle: &BoxObstacle) -> Result<(), Refused> {
            if !self.seen.contains_key(handle) {
                return Err(Refused("move of an unknown handle"));
            }
            self.edit(*handle, Some(*obstacle))
        }

        fn remove(&mut self, handle: u32) -> Result<(), Refused> {
            if !self.seen.contains_key(&handle) {
                return Err(Refused("removal of an unknown handle"));
            }
            self.edit(handle, None)
        }

        fn update(&mut self) -> Result<(), Refused> {
            match self.waiting.take() {
                Some((h, Some(b))) => self.seen.insert(h, b),
                Some((h, None)) => self.seen.remove(&h),
                None => None,
            };
            Ok(())
        }

        fn path(&mut self, _: [f64; 3], _: [f64; 3]) -> Option<f64> {
            Some(self.seen.len() as f64)
        }

        fn polygon_count(&self) -> usize {
            self.seen.len()
        }
    }

    fn boxes(n: usize, x: f64) -> Vec<BoxObstacle> {
        (0..n).map(|i| BoxObstacle::at([x, 0.0, i as f64])).collect()
    }

    #[test]
    fn edits_are_updated_one_by_one_and_the_side_ends_empty() {
        let mut side = Ledger::default();
        let (placed, targets) = (boxes(10, 0.0), boxes(10, 5.0));
        let times = time_edits(&mut side, &placed, &targets, 10, 2).unwrap();
        // 2 rounds asked, 10 given: at least MIN_SAMPLES edits of each kind.
        assert_eq!(times.samples, MIN_SAMPLES);
        assert_eq!(side.edits, 3 * MIN_SAMPLES);
        assert!(side.seen.is_empty() && side.waiting.is_none());
        assert!(times.add >= 0.0 && times.move_to >= 0.0 && times.remove >= 0.0);
    }

    #[test]
    fn one_obstacle_at_a_time_visits_every_obstacle_once() {
        let mut side = Ledger::default();
        let placed = boxes(100, 0.0);
        let times = time_edits(&mut side, &placed, &boxes(100, 5.0), 1, 5).unwrap();
        assert_eq!(times.samples, 100);
        assert_eq!(side.added, placed);
    }

    #[test]
    fn paths_are_answered_with_every_obstacle_present_and_the_side_ends_empty() {
        let mut side = Ledger::default();
        let placed = boxes(100, 0.0);
        let pairs = vec![([0.0; 3], [1.0; 3]); 7];
        let measured = measure(&mut side, &placed, &boxes(100, 5.0), &pairs, 3).unwrap();
        assert_eq!(measured.paths_blocked.lengths, vec![Some(100.0); 7]);
        assert_eq!(measured.paths_clear.lengths, vec![Some(0.0); 7]);
        assert_eq!(measured.polygons_blocked, 100);
        assert_eq!(measured.polygons_after, 0);
        assert_eq!(measured.paths_blocked.found(), 7);
        assert_eq!(measured.paths_blocked.times.len(), 7);
        let counts: Vec<usize> = measured.edits.iter().map(|(n, _)| *n).collect();
        assert_eq!(counts, OBSTACLE_COUNTS);
        assert!(side.seen.is_empty() && side.waiting.is_none());
    }

    #[test]
    fn median_is_the_middle_value_and_zero_for_none() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(&mut []), 0.0);
    }
}
