//! Stage 3, region: walkable triangles minus blockers, eroded by the agent radius → [`Regions`],
//! exact polygons with holes per area type.

use meadow::geom::Point2;

/// A simple polygon with holes in XZ: outer ring counter-clockwise, holes clockwise; rings do
/// not repeat their first vertex. Rings may touch at single points but never cross.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonWithHoles {
    /// The outer boundary, counter-clockwise.
    pub outer: Vec<Point2>,
    /// The holes, each clockwise.
    pub holes: Vec<Vec<Point2>>,
}
