//! Stage 5, convex: triangles → convex polygons of at most `max_verts` vertices.

use crate::triangulate::Triangulation;

/// Convex polygons over the vertices of a [`Triangulation`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvexPolygons {
    /// Each polygon's vertex indices (into the triangulation's vertices), counter-clockwise.
    pub polygons: Vec<Vec<u32>>,
}

/// Merges the triangles into convex polygons of at most `max_verts` vertices, longest shared
/// edge first; the polygons cover exactly the triangles' area.
pub fn merge_convex(triangulation: &Triangulation, max_verts: usize) -> ConvexPolygons {
    let _ = (triangulation, max_verts);
    todo!("convex")
}
