//! Work budgets of a bake ([`meadow::Budgets`]): the typed error and the work estimate of a
//! polygon boolean.

use crate::grid::BoxGrid;
use i_overlay::i_float::int::point::IntPoint;
use std::sync::atomic::{AtomicU64, Ordering};

/// A bake needed more work than a budget of [`meadow::BakeSettings`] allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the level needs more than {limit} {what} (budget `{setting}`); check its scale and the settings, \
     or raise the budget if the level is genuine"
)]
pub struct BudgetExceeded {
    /// The setting that holds the budget (`max_region_vertices`, ...).
    pub setting: &'static str,
    /// What is counted, in words.
    pub what: &'static str,
    /// The budget.
    pub limit: u64,
}

impl BudgetExceeded {
    /// The walkable-triangle budget.
    pub(crate) fn walkable_triangles(limit: u64) -> BudgetExceeded {
        BudgetExceeded { setting: "max_walkable_triangles", what: "walkable triangles", limit }
    }

    /// The region-vertex budget.
    pub(crate) fn region_vertices(limit: u64) -> BudgetExceeded {
        BudgetExceeded { setting: "max_region_vertices", what: "region vertices", limit }
    }

    /// The polygon budget.
    pub(crate) fn polygons(limit: u64) -> BudgetExceeded {
        BudgetExceeded { setting: "max_polygons", what: "polygons", limit }
    }
}

/// A running count of region work against its budget.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Work {
    /// Work counted so far.
    pub(crate) used: u64,
    /// The budget.
    pub(crate) limit: u64,
}

impl Work {
    /// Adds `n` units, failing once the total is above the budget.
    pub(crate) fn add(&mut self, n: u64) -> Result<(), BudgetExceeded> {
        self.used = self.used.saturating_add(n);
        if self.used > self.limit {
            Err(BudgetExceeded::region_vertices(self.limit))
        } else {
            Ok(())
        }
    }

    /// What is left of the budget.
    pub(crate) fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
}

/// A [`Work`] count charged from several threads at once (the region stage's layers). Each
/// layer charges the same amounts on any thread count, stopping early only once the total is
/// over the budget, so whether a bake fits the budget does not depend on the thread count.
#[derive(Debug)]
pub(crate) struct SharedWork {
    used: AtomicU64,
    limit: u64,
}

impl SharedWork {
    /// Continues the count `work`.
    pub(crate) fn new(work: Work) -> SharedWork {
        SharedWork { used: AtomicU64::new(work.used), limit: work.limit }
    }

    /// Adds `n` units, failing once the total is above the budget.
    pub(crate) fn add(&self, n: u64) -> Result<(), BudgetExceeded> {
        // Relaxed is enough: only the running total matters, not its order with other memory.
        let before = self.used.fetch_add(n.min(u64::MAX / 4), Ordering::Relaxed);
        if before.saturating_add(n) > self.limit {
            Err(BudgetExceeded::region_vertices(self.limit))
        } else {
            Ok(())
        }
    }
}

/// How many box candidates the pair count may examine per unit of `limit` before it gives up
/// (the grid lists a box in the cells it overlaps, so most candidates really overlap).
const EXAMINED_PER_UNIT: u64 = 8;

/// An upper bound of the vertices a polygon boolean over `contours` takes in and can create:
/// their vertices, plus for every pair of contours whose bounding boxes overlap the product of
/// their edge counts (the most points where they can cross). Counting stops once the total is
/// above `limit` (the value returned is then above `limit`), so the cost of the estimate is
/// bounded by the budget too.
pub(crate) fn boolean_work<'a>(contours: impl Iterator<Item = &'a [IntPoint]>, limit: u64) -> u64 {
    let mut boxes = Vec::new();
    let mut sizes = Vec::new();
    for c in contours.filter(|c| !c.is_empty()) {
        let b = c.iter().fold([i32::MAX, i32::MAX, i32::MIN, i32::MIN], |b, q| {
            [b[0].min(q.x), b[1].min(q.y), b[2].max(q.x), b[3].max(q.y)]
        });
        boxes.push(b.map(f64::from));
        sizes.push(c.len() as u64);
    }
    let mut work: u64 = sizes.iter().sum();
    if work > limit || boxes.len() < 2 {
        return work;
    }
    let mut grid = BoxGrid::new(&boxes, 2.0);
    let mut near = Vec::new();
    let mut examined = 0u64;
    let max_examined = limit.saturating_mul(EXAMINED_PER_UNIT);
    for (i, b) in boxes.iter().enumerate() {
        grid.query(b, &mut near);
        for &j in near.iter().filter(|&&j| j as usize > i) {
            examined += 1;
            let o = &boxes[j as usize];
            if o[0] <= b[2] && b[0] <= o[2] && o[1] <= b[3] && b[1] <= o[3] {
                work = work.saturating_add(sizes[i] * sizes[j as usize]);
            }
            if work > limit || examined > max_examined {
                return work.max(limit.saturating_add(1));
            }
        }
    }
    work
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: i32, y: i32, s: i32) -> Vec<IntPoint> {
        vec![IntPoint::new(x, y), IntPoint::new(x + s, y), IntPoint::new(x + s, y + s), IntPoint::new(x, y + s)]
    }

    #[test]
    fn work_counts_vertices_and_overlapping_pairs() {
        let apart: Vec<_> = (0..100).map(|i| square(i * 10, 0, 5)).collect();
        assert_eq!(boolean_work(apart.iter().map(|c| c.as_slice()), u64::MAX), 400);
        let stacked: Vec<_> = (0..100).map(|i| square(i, i, 1000)).collect();
        assert_eq!(boolean_work(stacked.iter().map(|c| c.as_slice()), u64::MAX), 400 + 16 * 4950);
        assert!(boolean_work(stacked.iter().map(|c| c.as_slice()), 1000) > 1000);
    }
}
