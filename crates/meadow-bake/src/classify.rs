//! Stage 2, classify: [`Scene`] triangles → [`Classified`], walkable by slope and tag, the rest
//! blocking.

use crate::ingest::{NavTag, Scene};

/// Extra angle allowed beyond `max_slope`, in degrees, so that slopes modelled at exactly the
/// limit count as walkable (exported floors bevel tiles at exactly 45°; a strict test would
/// scatter them into islands).
pub const SLOPE_TOLERANCE_DEG: f64 = 0.01;

/// A triangle the agent can stand on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WalkableTriangle {
    /// Corners in world space, counter-clockwise seen from above.
    pub vertices: [[f64; 3]; 3],
    /// Area type index.
    pub area: u16,
}

/// The scene split into walkable and blocking triangles: the output of [`classify`].
///
/// Walkable triangles also block what lies under them (a table top over a floor); the region
/// stage treats both lists as potential blockers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Classified {
    /// Triangles within the slope limit, facing up, and not tagged otherwise.
    pub walkable: Vec<WalkableTriangle>,
    /// Every other untagged or walkable-tagged triangle (walls, steep slopes, ceilings).
    pub blocking: Vec<[[f64; 3]; 3]>,
    /// Triangles of `obstacle`-tagged nodes: they block from the floor up, even where they are
    /// low enough to step over.
    pub obstacles: Vec<[[f64; 3]; 3]>,
}

/// Splits `scene` by slope (`max_slope_deg`, inclusive up to [`SLOPE_TOLERANCE_DEG`]) and tags.
///
/// When any node is tagged `walkable`, untagged geometry only blocks.
pub fn classify(scene: &Scene, max_slope_deg: f64) -> Classified {
    let explicit_floors = scene.triangles.iter().any(|t| t.tag == NavTag::Walkable);
    let min_cos = (max_slope_deg + SLOPE_TOLERANCE_DEG).min(90.0).to_radians().cos();
    let mut out = Classified::default();
    for t in &scene.triangles {
        let may_walk = match t.tag {
            NavTag::Obstacle => false,
            NavTag::Walkable => true,
            NavTag::Auto => !explicit_floors,
        };
        if t.tag == NavTag::Obstacle {
            out.obstacles.push(t.vertices);
        } else if may_walk && is_walkable_slope(&t.vertices, min_cos) {
            out.walkable.push(WalkableTriangle { vertices: t.vertices, area: t.area });
        } else {
            out.blocking.push(t.vertices);
        }
    }
    out
}

/// Whether the triangle faces up with a normal within the angle whose cosine is `min_cos`.
fn is_walkable_slope(v: &[[f64; 3]; 3], min_cos: f64) -> bool {
    let e1 = [v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]];
    let e2 = [v[2][0] - v[0][0], v[2][1] - v[0][1], v[2][2] - v[0][2]];
    let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    len > 0.0 && n[1] > 0.0 && n[1] >= len * min_cos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::SceneTriangle;

    fn tri(v: [[f64; 3]; 3], tag: NavTag) -> SceneTriangle {
        SceneTriangle { vertices: v, tag, area: 0, node: 0 }
    }

    /// A triangle rising at `deg` degrees along +x, facing up.
    fn ramp(deg: f64) -> [[f64; 3]; 3] {
        let h = deg.to_radians().tan();
        [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, h, 0.0]]
    }

    #[test]
    fn slope_limit_is_inclusive_and_down_faces_never_walk() {
        let mut scene = Scene::default();
        scene.triangles.push(tri(ramp(45.0), NavTag::Auto));
        scene.triangles.push(tri(ramp(45.2), NavTag::Auto));
        let flat = ramp(0.0);
        scene.triangles.push(tri([flat[0], flat[2], flat[1]], NavTag::Auto)); // facing down
        scene.triangles.push(tri(flat, NavTag::Obstacle));
        let c = classify(&scene, 45.0);
        assert_eq!(c.walkable.len(), 1);
        assert_eq!(c.blocking.len(), 2);
        assert_eq!(c.obstacles.len(), 1);
    }

    #[test]
    fn explicit_walkable_tags_demote_untagged_floors() {
        let mut scene = Scene::default();
        scene.triangles.push(tri(ramp(0.0), NavTag::Auto));
        scene.triangles.push(tri(ramp(10.0), NavTag::Walkable));
        let c = classify(&scene, 45.0);
        assert_eq!(c.walkable.len(), 1);
        assert_eq!(c.walkable[0].vertices, ramp(10.0));
    }
}
