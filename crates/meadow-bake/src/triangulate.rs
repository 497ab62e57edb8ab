//! Stage 4, triangulate: a polygon with holes → triangles, by ear clipping with hole bridging.

use crate::region::PolygonWithHoles;
use meadow::geom::Point2;

/// Triangles over the vertices of one polygon with holes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Triangulation {
    /// The ring vertices: the outer ring's, then each hole's, in ring order.
    pub vertices: Vec<Point2>,
    /// Counter-clockwise triangles indexing `vertices`.
    pub triangles: Vec<[u32; 3]>,
}

/// Why a polygon could not be triangulated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TriangulateError {
    /// Placeholder until the stage is written.
    #[error("{0}")]
    Other(String),
}

/// Ear-clips `polygon` (outer ring counter-clockwise, holes clockwise) into triangles that
/// cover exactly its area.
pub fn triangulate(polygon: &PolygonWithHoles) -> Result<Triangulation, TriangulateError> {
    let _ = polygon;
    todo!("triangulate")
}
