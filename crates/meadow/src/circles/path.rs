//! Paths among circles: straight segments and arcs, with exact lengths.

use super::Direction;
use crate::geom::Point2;
use serde::Serialize;
use std::f64::consts::TAU;

/// One piece of a path: a straight surfing segment or a hugging arc.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Piece {
    /// A straight segment.
    Segment {
        /// Where it starts.
        from: Point2,
        /// Where it ends.
        to: Point2,
    },
    /// An arc of the circle (`center`, `radius`) from `start_angle` to `end_angle`; the angles
    /// are not reduced, so the arc sweeps `|end_angle − start_angle|` radians in `direction`.
    Arc {
        /// Centre of the circle.
        center: Point2,
        /// Radius of the circle (metres).
        radius: f64,
        /// Angle where the arc starts (radians).
        start_angle: f64,
        /// Angle where the arc ends (radians).
        end_angle: f64,
        /// Which way round the circle the arc goes.
        direction: Direction,
    },
}

impl Piece {
    /// Exact length in metres.
    pub fn length(&self) -> f64 {
        match *self {
            Piece::Segment { from, to } => (to[0] - from[0]).hypot(to[1] - from[1]),
            Piece::Arc { radius, start_angle, end_angle, .. } => radius * (end_angle - start_angle).abs(),
        }
    }

    /// The point where the piece starts.
    pub fn start(&self) -> Point2 {
        match *self {
            Piece::Segment { from, .. } => from,
            Piece::Arc { center, radius, start_angle, .. } => {
                [center[0] + radius * start_angle.cos(), center[1] + radius * start_angle.sin()]
            }
        }
    }

    /// The point where the piece ends.
    pub fn end(&self) -> Point2 {
        match *self {
            Piece::Segment { to, .. } => to,
            Piece::Arc { center, radius, end_angle, .. } => {
                [center[0] + radius * end_angle.cos(), center[1] + radius * end_angle.sin()]
            }
        }
    }
}

/// A path of segments and arcs from a start to a goal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CirclePath {
    /// Segments and arcs in order from start to goal; each starts where the previous ends.
    pub pieces: Vec<Piece>,
    /// Exact length: the sum of the pieces' lengths, in metres.
    pub length: f64,
}

impl CirclePath {
    pub(crate) fn from_pieces(pieces: Vec<Piece>) -> CirclePath {
        let length = pieces.iter().map(Piece::length).sum();
        CirclePath { pieces, length }
    }

    /// Points along the path, for games that want a polyline: every segment end, and arcs cut
    /// into chords of at most `max_step` metres of arc (at most 1/16 turn when `max_step` is not
    /// a positive number). Consecutive duplicates are dropped.
    pub fn polyline(&self, max_step: f64) -> Vec<Point2> {
        let mut points: Vec<Point2> = Vec::new();
        let mut push = |p: Point2| {
            if points.last() != Some(&p) {
                points.push(p);
            }
        };
        for piece in &self.pieces {
            match *piece {
                Piece::Segment { from, to } => {
                    push(from);
                    push(to);
                }
                Piece::Arc { center, radius, start_angle, end_angle, .. } => {
                    let swept = (end_angle - start_angle).abs();
                    let by_angle = (swept / (TAU / 16.0)).ceil();
                    let by_length = if max_step > 0.0 && max_step.is_finite() {
                        (swept * radius / max_step).ceil()
                    } else {
                        by_angle
                    };
                    let chords = by_length.clamp(1.0, 100_000.0) as usize;
                    for k in 0..=chords {
                        let angle = start_angle + (end_angle - start_angle) * (k as f64 / chords as f64);
                        push([center[0] + radius * angle.cos(), center[1] + radius * angle.sin()]);
                    }
                }
            }
        }
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polyline_follows_pieces() {
        let path = CirclePath::from_pieces(vec![
            Piece::Segment { from: [-1.0, -1.0], to: [0.0, -1.0] },
            Piece::Arc {
                center: [0.0, 0.0],
                radius: 1.0,
                start_angle: -TAU / 4.0,
                end_angle: TAU / 4.0,
                direction: Direction::CounterClockwise,
            },
            Piece::Segment { from: [0.0, 1.0], to: [-1.0, 1.0] },
        ]);
        assert!((path.length - (2.0 + TAU / 2.0)).abs() < 1e-12);
        let points = path.polyline(0.1);
        assert_eq!(points.first(), Some(&[-1.0, -1.0]));
        assert_eq!(points.last(), Some(&[-1.0, 1.0]));
        // Chords are short and the polyline is a little shorter than the exact length.
        let mut total = 0.0;
        for w in points.windows(2) {
            let step = (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]);
            assert!(step <= 1.0 + 1e-12);
            total += step;
        }
        assert!(total < path.length && total > path.length - 1e-2);
    }
}
