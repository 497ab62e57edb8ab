//! Meadow mapping's local path refinement (Arkin): every portal point is the portal's midpoint
//! or one of its endpoints, whichever makes the path through its neighbours shortest, swept
//! until no point moves.

use super::{dist2, xz};
use crate::tolerance::REFINE_MIN_GAIN;

/// Sweeps are capped so that float ties can never loop; each accepted move strictly shortens
/// the path, so in practice a handful of sweeps suffice.
const MAX_SWEEPS: usize = 1000;

/// Writes the refined path from `start` to `goal` through `portals` (`(left, right)` pairs) into
/// `out`, using `choice` as scratch (0 = midpoint, 1 = left, 2 = right).
pub(crate) fn meadow_refine(
    start: [f64; 3],
    goal: [f64; 3],
    portals: &[([f64; 3], [f64; 3])],
    choice: &mut Vec<u8>,
    out: &mut Vec<[f64; 3]>,
) {
    let candidate = |i: usize, c: u8| -> [f64; 3] {
        let (l, r) = portals[i];
        match c {
            1 => l,
            2 => r,
            _ => [(l[0] + r[0]) * 0.5, (l[1] + r[1]) * 0.5, (l[2] + r[2]) * 0.5],
        }
    };
    choice.clear();
    choice.resize(portals.len(), 0);
    for _ in 0..MAX_SWEEPS {
        let mut moved = false;
        for i in 0..portals.len() {
            let prev = if i == 0 { start } else { candidate(i - 1, choice[i - 1]) };
            let next = if i + 1 == portals.len() { goal } else { candidate(i + 1, choice[i + 1]) };
            let through = |c: u8| {
                let p = xz(candidate(i, c));
                dist2(xz(prev), p) + dist2(p, xz(next))
            };
            let current = through(choice[i]);
            let mut best = (current, choice[i]);
            for c in 0..3u8 {
                let d = through(c);
                // A relative margin keeps rounding noise from counting as an improvement.
                if d < best.0 - REFINE_MIN_GAIN * (1.0 + current) {
                    best = (d, c);
                }
            }
            if best.1 != choice[i] {
                choice[i] = best.1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    out.clear();
    out.push(start);
    for (i, &c) in choice.iter().enumerate() {
        out.push(candidate(i, c));
    }
    out.push(goal);
}
