//! Waking the thread pool's workers ahead of the velocity phase.
//!
//! A rayon worker that finds no work yields for a few tens of microseconds and then sleeps;
//! waking it again can cost far more (on the 2-vCPU virtual machines of our benchmarks, a
//! parallel region after 100 µs of serial work costs 125-210 µs more than one that follows
//! another at once, per `vs_rvo2 --fork-join`: most of a 1,000-agent step). Each step begins
//! with the serial grid build, which is long enough for idle workers to fall asleep. So the
//! step asks them to wait for the velocity phase by spinning: it spawns one task per other
//! worker before the build, and each task spins until the phase begins (or a time limit
//! passes), then returns, and its worker takes the phase's work at once. A sleeping worker is
//! woken by the spawn, so its wake-up overlaps the build instead of delaying the phase.
//!
//! A task spins at most until the phase begins or the limit passes (one that a busy worker
//! only takes later finds the phase begun and returns at once), nothing is spawned on a
//! one-thread pool, never more spinners than the machine has cores besides the caller's, and
//! the results do not depend on any of it (only on the work's split, which does not change
//! them). Each task is one small heap allocation (rayon boxes spawned jobs).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest a worker spins waiting for the velocity phase: bounds the CPU time wasted when a
/// step's serial part runs long (far more than the grid build of 100,000 agents takes).
const SPIN_LIMIT: Duration = Duration::from_millis(2);

/// Spins between two readings of the clock (reading it can be a system call on a virtual
/// machine, and the limit needs no finer check).
const SPINS_PER_CLOCK_READ: u32 = 64;

/// The simulator's call to its pool's workers (see the module notes).
pub(crate) struct Wake {
    /// Bumped when the phase the spinning workers wait for begins.
    epoch: Arc<AtomicU64>,
    /// Cores besides the caller's: more spinners would take CPU from the serial build.
    spare_cores: usize,
}

impl Clone for Wake {
    /// A clone has its own epoch: its steps do not release another simulator's workers.
    fn clone(&self) -> Self {
        Wake::default()
    }
}

impl Default for Wake {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Wake { epoch: Arc::new(AtomicU64::new(0)), spare_cores: cores - 1 }
    }
}

impl std::fmt::Debug for Wake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wake")
    }
}

impl Wake {
    /// Asks up to `workers` workers of the current pool, other than the caller, to spin until
    /// [`release`](Wake::release) (none on a one-thread pool, and no more than the machine
    /// has cores besides the caller's).
    pub(crate) fn call(&self, workers: usize) {
        // A caller outside the pool waits while the pool's own threads do the phase.
        let threads = rayon::current_num_threads();
        let others = if rayon::current_thread_index().is_some() { threads.saturating_sub(1) } else { threads };
        let spinners = others.min(workers).min(self.spare_cores);
        // The epoch publishes no data: the flag is all that is read.
        let epoch = self.epoch.load(Ordering::Relaxed);
        for _ in 0..spinners {
            let flag = Arc::clone(&self.epoch);
            rayon::spawn(move || {
                let start = Instant::now();
                'spin: while start.elapsed() < SPIN_LIMIT {
                    for _ in 0..SPINS_PER_CLOCK_READ {
                        if flag.load(Ordering::Relaxed) != epoch {
                            break 'spin;
                        }
                        std::hint::spin_loop();
                    }
                }
            });
        }
    }

    /// Ends the spinning asked for by [`call`](Wake::call): the work they wait for is queued.
    pub(crate) fn release(&self) {
        self.epoch.fetch_add(1, Ordering::Relaxed);
    }
}
