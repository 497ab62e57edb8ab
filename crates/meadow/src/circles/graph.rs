//! Pieces shared by the lazy and eager planners: surfing edges, the open-list entry, and turning
//! a chain of arrivals into a path.

use super::geometry::{sweep, Tangent};
use super::path::{CirclePath, Piece};
use super::world::World;
use super::Direction;
use std::cmp::Ordering;

/// A surfing edge leaving circle `from` in direction `from_dir` and arriving on circle `to` in
/// direction `to_dir` (signs: +1 counter-clockwise, −1 clockwise).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SurfEdge {
    pub to: u32,
    pub from_dir: f64,
    pub to_dir: f64,
    pub tangent: Tangent,
}

/// Node ids shared by both planners: the start, the goal, the arrivals by a tangent from the
/// start (`2 + 2·circle + direction bit`), then the arrivals by cached surfing edges.
pub(crate) const START: u32 = 0;
pub(crate) const GOAL: u32 = 1;

pub(crate) fn start_arrival_id(circle: u32, dir: f64) -> u32 {
    2 + 2 * circle + u32::from(dir < 0.0)
}

/// An open-list entry: smallest `f` first, and among equal `f` the deeper node.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub f: f64,
    pub g: f64,
    pub node: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse f.
        other.f.total_cmp(&self.f).then(self.g.total_cmp(&other.g)).then(other.node.cmp(&self.node))
    }
}

/// Where a path is on a circle right after a surfing edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival {
    pub circle: u32,
    pub dir: f64,
    pub tangent: Tangent,
}

/// The path: each arrival's surfing edge, then the arc to the next departure, then the final
/// segment `last` (the tangent to the goal, or the straight segment when there are no arrivals).
pub(crate) fn assemble(world: &World, arrivals: &[Arrival], last: Tangent) -> CirclePath {
    let mut pieces = Vec::with_capacity(2 * arrivals.len() + 1);
    for (k, arrival) in arrivals.iter().enumerate() {
        pieces.push(Piece::Segment { from: arrival.tangent.from, to: arrival.tangent.to });
        let leave = arrivals.get(k + 1).map_or(last.from_angle, |next| next.tangent.from_angle);
        let start_angle = arrival.tangent.to_angle;
        let swept = sweep(start_angle, leave, arrival.dir);
        if swept > 0.0 {
            let circle = &world.circles[arrival.circle as usize];
            pieces.push(Piece::Arc {
                center: circle.center,
                radius: circle.radius,
                start_angle,
                end_angle: start_angle + arrival.dir * swept,
                direction: Direction::from_sign(arrival.dir),
            });
        }
    }
    pieces.push(Piece::Segment { from: last.from, to: last.to });
    CirclePath::from_pieces(pieces)
}
