//! Stage 2, classify: [`Scene`] triangles → [`Classified`], walkable by slope and tag, the rest
//! blocking; area volumes pass through to the region stage. [`tag_warnings`] tells the user
//! where tags cost floor.

use crate::grid::{triangle_box, Box2, BoxGrid};
use crate::ingest::{AreaVolume, NavTag, Scene};
use crate::overlay::{self, Frame};
use meadow::WalkableRule;

pub use crate::tolerance::SLOPE_TOLERANCE_DEG;

/// Fraction of the walkable area (in XZ) that `obstacle`-tagged geometry must cover for the
/// bake to warn: above half, an `obstacle` tag most likely sits on a floor by mistake.
pub const OBSTACLE_COVERAGE_WARNING: f64 = 0.5;

/// Most node names a warning lists; the rest are counted ("and 3 more").
pub const WARNING_NAME_LIMIT: usize = 5;

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
    /// Triangles within the slope limit, facing up, and allowed to walk by their tag and the
    /// bake's [`WalkableRule`].
    pub walkable: Vec<WalkableTriangle>,
    /// Every other untagged or walkable-tagged triangle (walls, steep slopes, ceilings; with
    /// [`WalkableRule::TaggedOnly`] also untagged floors).
    pub blocking: Vec<[[f64; 3]; 3]>,
    /// Triangles of `obstacle`-tagged nodes: they block from the floor up, even where they are
    /// low enough to step over.
    pub obstacles: Vec<[[f64; 3]; 3]>,
    /// Obstacles tagged `"footprint": "hull"`, replacing their triangles: each blocks the
    /// convex hull of its geometry's XZ projection over its height range.
    pub hulls: Vec<HullObstacle>,
    /// The scene's area volumes, in scene order (later ones win where they overlap).
    pub volumes: Vec<AreaVolume>,
}

/// An obstacle that blocks by the convex hull of its geometry (`"footprint": "hull"`): the
/// prism over `outline` from `y_min` to `y_max`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HullObstacle {
    /// The node tagged `"footprint": "hull"` (index into [`Scene::nodes`]).
    pub node: u32,
    /// The convex hull of the XZ projections of the node's subtree's obstacle triangles:
    /// counter-clockwise seen from above (`[x, z]`), at least three corners, no three collinear.
    pub outline: Vec<[f64; 2]>,
    /// The lowest corner height of the geometry, in metres.
    pub y_min: f64,
    /// The highest corner height of the geometry, in metres.
    pub y_max: f64,
}

impl HullObstacle {
    /// The XZ bounding box `[min_x, min_z, max_x, max_z]` of the outline.
    pub(crate) fn xz_box(&self) -> Box2 {
        self.outline.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |b, p| {
            [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])]
        })
    }
}

/// Splits `scene` by slope (`max_slope_deg`, inclusive up to [`SLOPE_TOLERANCE_DEG`]), tags and
/// the walkable rule.
///
/// With [`WalkableRule::BySlope`] untagged and `walkable`-tagged geometry is floor where the
/// slope allows, whatever other nodes are tagged; with [`WalkableRule::TaggedOnly`] only
/// `walkable`-tagged geometry is, and untagged geometry only blocks.
pub fn classify(scene: &Scene, max_slope_deg: f64, rule: WalkableRule) -> Classified {
    let min_cos = min_cos(max_slope_deg);
    let mut out = Classified { volumes: scene.volumes.clone(), ..Classified::default() };
    // Per hull node: its geometry's corners, gathered in scene order.
    let mut hull_corners: std::collections::BTreeMap<u32, Vec<[f64; 3]>> = Default::default();
    for t in &scene.triangles {
        let hull = scene.hull_of_node.get(t.node as usize).copied().flatten();
        if let (NavTag::Obstacle, Some(node)) = (t.tag, hull) {
            hull_corners.entry(node).or_default().extend(t.vertices);
            continue;
        }
        let may_walk = match t.tag {
            NavTag::Obstacle => false,
            NavTag::Walkable => true,
            NavTag::Auto => rule == WalkableRule::BySlope,
        };
        if t.tag == NavTag::Obstacle {
            out.obstacles.push(t.vertices);
        } else if may_walk && is_walkable_slope(&t.vertices, min_cos) {
            out.walkable.push(WalkableTriangle { vertices: t.vertices, area: t.area });
        } else {
            out.blocking.push(t.vertices);
        }
    }
    for (node, corners) in hull_corners {
        match hull_obstacle(node, &corners) {
            Some(hull) => out.hulls.push(hull),
            // A flat footprint (all on one line, seen from above): its triangles block as
            // they are (as walls, being vertical).
            None => out.obstacles.extend(
                scene
                    .triangles
                    .iter()
                    .filter(|t| {
                        t.tag == NavTag::Obstacle
                            && scene.hull_of_node.get(t.node as usize).copied().flatten() == Some(node)
                    })
                    .map(|t| t.vertices),
            ),
        }
    }
    out
}

/// The hull obstacle over `corners` (world space), `None` when their XZ projections are all on
/// one line.
fn hull_obstacle(node: u32, corners: &[[f64; 3]]) -> Option<HullObstacle> {
    let mut points: Vec<[f64; 2]> = corners.iter().map(|c| [c[0], c[2]]).collect();
    let mut outline = Vec::new();
    meadow::geom::convex_hull(&mut points, |p| *p, &mut outline);
    if outline.len() < 3 {
        return None;
    }
    let y_min = corners.iter().map(|c| c[1]).fold(f64::INFINITY, f64::min);
    let y_max = corners.iter().map(|c| c[1]).fold(f64::NEG_INFINITY, f64::max);
    Some(HullObstacle { node, outline, y_min, y_max })
}

/// The warnings a user needs about the tags of `scene` as `classified` with the slope limit
/// `max_slope_deg` and the walkable `rule`, one message per problem:
///
/// - with `walkable = "tagged-only"`, the untagged geometry that slope alone would make floor
///   (the nodes, largest first, and the XZ area lost: the sum of the triangles' XZ areas, so
///   floors stacked over one another each count);
/// - when `obstacle`-tagged geometry covers more than [`OBSTACLE_COVERAGE_WARNING`] of the
///   walkable area: the area of the XZ union of the obstacle triangles intersected with the XZ
///   union of the walkable triangles, on the region stage's exact grid, against the area of
///   the latter, with the obstacle nodes that cover most.
pub fn tag_warnings(scene: &Scene, classified: &Classified, max_slope_deg: f64, rule: WalkableRule) -> Vec<String> {
    let mut out = Vec::new();
    if rule == WalkableRule::TaggedOnly {
        let min_cos = min_cos(max_slope_deg);
        let mut lost: Vec<(u32, f64)> = scene
            .triangles
            .iter()
            .filter(|t| t.tag == NavTag::Auto && is_walkable_slope(&t.vertices, min_cos))
            .map(|t| (t.node, xz_area(&t.vertices)))
            .collect();
        lost.sort_by_key(|l| l.0);
        let mut per_node: Vec<(u32, f64)> = Vec::new();
        for (node, area) in lost {
            match per_node.last_mut() {
                Some(last) if last.0 == node => last.1 += area,
                _ => per_node.push((node, area)),
            }
        }
        if !per_node.is_empty() {
            let total: f64 = per_node.iter().map(|n| n.1).sum();
            out.push(format!(
                "walkable = \"tagged-only\": {total:.2} m² (XZ) of untagged floor that slope alone would keep only \
                 blocks, in {}; tag it {{\"navmesh\": \"walkable\"}} or bake with walkable = \"by-slope\"",
                name_list(scene, per_node)
            ));
        }
    }
    if let Some(c) = obstacle_coverage(scene, classified) {
        if c.covered > OBSTACLE_COVERAGE_WARNING * c.walkable {
            out.push(format!(
                "obstacle-tagged geometry covers {:.2} m² of the {:.2} m² of walkable floor in XZ ({:.0}%), in {}; \
                 an \"obstacle\" tag on a floor makes it block",
                c.covered,
                c.walkable,
                100.0 * c.covered / c.walkable,
                name_list(scene, c.per_node)
            ));
        }
    }
    out
}

/// `'A' (12.00 m²), 'B' (3.00 m²) and 4 more`: nodes by decreasing area (then scene order),
/// at most [`WARNING_NAME_LIMIT`] named.
fn name_list(scene: &Scene, mut nodes: Vec<(u32, f64)>) -> String {
    nodes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let named: Vec<String> = nodes
        .iter()
        .take(WARNING_NAME_LIMIT)
        .map(|&(node, area)| {
            let name = scene.nodes.get(node as usize).map_or("?", String::as_str);
            format!("'{name}' ({area:.2} m²)")
        })
        .collect();
    let mut text = named.join(", ");
    if nodes.len() > WARNING_NAME_LIMIT {
        text.push_str(&format!(" and {} more", nodes.len() - WARNING_NAME_LIMIT));
    }
    let noun = if nodes.len() == 1 { "node" } else { "nodes" };
    format!("{noun} {text}")
}

/// How much of the walkable area obstacle-tagged geometry covers, in XZ.
struct Coverage {
    /// Area of the XZ union of the walkable triangles, m².
    walkable: f64,
    /// Area of that union covered by the XZ union of the obstacle triangles, m².
    covered: f64,
    /// Per obstacle node that covers any: the area it covers by itself, m².
    per_node: Vec<(u32, f64)>,
}

/// Computes [`Coverage`] on the region stage's grid; `None` when there is nothing to compare
/// or the level is too large for the grid (the region stage reports that).
fn obstacle_coverage(scene: &Scene, classified: &Classified) -> Option<Coverage> {
    if classified.obstacles.is_empty() || classified.walkable.is_empty() {
        return None;
    }
    let walk_boxes: Vec<Box2> = classified.walkable.iter().map(|w| triangle_box(&w.vertices)).collect();
    let bounds =
        walk_boxes.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |a, b| {
            [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
        });
    let frame = Frame::around(bounds)?;
    let walkable_union =
        overlay::union(classified.walkable.iter().filter_map(|w| overlay::walkable_contour(frame, &w.vertices)));
    let walkable = overlay::shapes_area(&walkable_union);
    // Obstacle triangles clipped to the walkable bounds (the rest covers nothing, and far
    // coordinates would leave the grid), with their nodes.
    let clipped = |t: &[[f64; 3]; 3]| -> Option<overlay::IntContour> {
        let mut ring = crate::xz::ccw_xz(t);
        crate::xz::clip(&mut ring, |q| q[0] - bounds[0]);
        crate::xz::clip(&mut ring, |q| q[1] - bounds[1]);
        crate::xz::clip(&mut ring, |q| bounds[2] - q[0]);
        crate::xz::clip(&mut ring, |q| bounds[3] - q[1]);
        overlay::int_ring(frame, &ring)
    };
    let mut obstacles: Vec<(u32, overlay::IntContour)> = scene
        .triangles
        .iter()
        .filter(|t| t.tag == NavTag::Obstacle)
        .filter_map(|t| clipped(&t.vertices).map(|c| (t.node, c)))
        .collect();
    obstacles.sort_by_key(|o| o.0);
    let obstacle_union = overlay::union(obstacles.iter().map(|o| o.1.clone()));
    let covered = overlay::shapes_area(&overlay::intersect(&walkable_union, &obstacle_union));
    if covered <= OBSTACLE_COVERAGE_WARNING * walkable {
        return Some(Coverage { walkable, covered, per_node: Vec::new() });
    }
    // Named only when warning: each node against the walkable triangles near it.
    let mut grid = BoxGrid::new(&walk_boxes, 2.0);
    let mut near = Vec::new();
    let mut per_node = Vec::new();
    for run in obstacles.chunk_by(|a, b| a.0 == b.0) {
        let node_union = overlay::union(run.iter().map(|o| o.1.clone()));
        let b = overlay::shapes_box(frame, &node_union);
        grid.query(&b, &mut near);
        let under = overlay::union(
            near.iter().filter_map(|&t| overlay::walkable_contour(frame, &classified.walkable[t as usize].vertices)),
        );
        let area = overlay::shapes_area(&overlay::intersect(&under, &node_union));
        if area > 0.0 {
            per_node.push((run[0].0, area));
        }
    }
    Some(Coverage { walkable, covered, per_node })
}

/// The cosine of the steepest walkable slope, tolerance included.
fn min_cos(max_slope_deg: f64) -> f64 {
    (max_slope_deg + SLOPE_TOLERANCE_DEG).min(90.0).to_radians().cos()
}

/// The area of a triangle's XZ projection, m².
fn xz_area(v: &[[f64; 3]; 3]) -> f64 {
    0.5 * ((v[1][0] - v[0][0]) * (v[2][2] - v[0][2]) - (v[2][0] - v[0][0]) * (v[1][2] - v[0][2])).abs()
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

    /// The two upward triangles of `[x0, x1] × [z0, z1]` at height `y`, of scene node `node`.
    fn square(x0: f64, z0: f64, x1: f64, z1: f64, y: f64, tag: NavTag, node: u32) -> [SceneTriangle; 2] {
        let t = |v| SceneTriangle { vertices: v, tag, area: 0, node };
        [t([[x0, y, z0], [x0, y, z1], [x1, y, z1]]), t([[x0, y, z0], [x1, y, z1], [x1, y, z0]])]
    }

    /// Hull nodes' obstacle triangles become one hull per tagged node (over its subtree), with
    /// the geometry's height range; a hull that is a segment keeps its triangles.
    #[test]
    fn hull_nodes_become_hull_obstacles() {
        let mut scene = Scene { hull_of_node: vec![Some(0), Some(0), None, Some(3)], ..Scene::default() };
        // Node 0 and its child 1: an L of two slabs at different heights; the hull is the
        // pentagon over both.
        scene.triangles.extend(square(0.0, 0.0, 2.0, 1.0, -0.25, NavTag::Obstacle, 0));
        scene.triangles.extend(square(0.0, 1.0, 1.0, 2.0, 1.5, NavTag::Obstacle, 1));
        // Node 2: an ordinary obstacle. Node 3: a vertical wall, flat seen from above.
        scene.triangles.extend(square(5.0, 5.0, 6.0, 6.0, 0.5, NavTag::Obstacle, 2));
        scene.triangles.push(tri([[8.0, 0.0, 8.0], [9.0, 0.0, 8.0], [9.0, 2.0, 8.0]], NavTag::Obstacle));
        scene.triangles.last_mut().unwrap().node = 3;
        let c = classify(&scene, 45.0, WalkableRule::BySlope);
        assert_eq!(c.hulls.len(), 1);
        let hull = &c.hulls[0];
        assert_eq!(hull.node, 0);
        assert_eq!((hull.y_min, hull.y_max), (-0.25, 1.5));
        assert_eq!(hull.outline, [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 2.0], [0.0, 2.0]]);
        assert_eq!(c.obstacles.len(), 3, "the plain obstacle's two triangles and the wall");
    }

    #[test]
    fn slope_limit_is_inclusive_and_down_faces_never_walk() {
        let mut scene = Scene::default();
        scene.triangles.push(tri(ramp(45.0), NavTag::Auto));
        scene.triangles.push(tri(ramp(45.2), NavTag::Auto));
        let flat = ramp(0.0);
        scene.triangles.push(tri([flat[0], flat[2], flat[1]], NavTag::Auto)); // facing down
        scene.triangles.push(tri(flat, NavTag::Obstacle));
        let c = classify(&scene, 45.0, WalkableRule::BySlope);
        assert_eq!(c.walkable.len(), 1);
        assert_eq!(c.blocking.len(), 2);
        assert_eq!(c.obstacles.len(), 1);
    }

    #[test]
    fn walkable_tags_keep_untagged_floors_unless_tagged_only() {
        let mut scene = Scene::default();
        scene.triangles.push(tri(ramp(0.0), NavTag::Auto));
        scene.triangles.push(tri(ramp(10.0), NavTag::Walkable));
        scene.triangles.push(tri(ramp(60.0), NavTag::Walkable));
        let c = classify(&scene, 45.0, WalkableRule::BySlope);
        assert_eq!(c.walkable.iter().map(|w| w.vertices).collect::<Vec<_>>(), [ramp(0.0), ramp(10.0)]);
        assert_eq!(c.blocking, [ramp(60.0)], "a walkable tag does not lift the slope limit");
        let c = classify(&scene, 45.0, WalkableRule::TaggedOnly);
        assert_eq!(c.walkable.iter().map(|w| w.vertices).collect::<Vec<_>>(), [ramp(10.0)]);
        assert_eq!(c.blocking, [ramp(0.0), ramp(60.0)]);
    }

    #[test]
    fn tagged_only_warns_with_the_floor_it_drops() {
        let mut scene = Scene { nodes: (0..8).map(|k| format!("N{k}")).collect(), ..Scene::default() };
        scene.triangles.extend(square(0.0, 0.0, 10.0, 10.0, 0.0, NavTag::Walkable, 0));
        // Seven untagged floors of 1..=7 m², and a steep face that slope alone would not keep.
        for k in 1..=7u32 {
            scene.triangles.extend(square(10.0 + k as f64, 0.0, 11.0 + k as f64, k as f64, 0.0, NavTag::Auto, k));
        }
        scene.triangles.push(SceneTriangle { node: 1, ..tri(ramp(60.0), NavTag::Auto) });
        let c = classify(&scene, 45.0, WalkableRule::TaggedOnly);
        let warnings = tag_warnings(&scene, &c, 45.0, WalkableRule::TaggedOnly);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(
                "walkable = \"tagged-only\": 28.00 m² (XZ) of untagged floor that slope alone would keep only \
                 blocks, in nodes 'N7' (7.00 m²), 'N6' (6.00 m²), 'N5' (5.00 m²), 'N4' (4.00 m²), 'N3' (3.00 m²) \
                 and 2 more;"
            ),
            "{}",
            warnings[0]
        );
        let c = classify(&scene, 45.0, WalkableRule::BySlope);
        assert!(tag_warnings(&scene, &c, 45.0, WalkableRule::BySlope).is_empty());
    }

    #[test]
    fn obstacles_covering_most_of_the_floor_warn() {
        let mut scene = Scene { nodes: vec!["Floor".into(), "Rug".into(), "Crate".into()], ..Scene::default() };
        scene.triangles.extend(square(0.0, 0.0, 10.0, 10.0, 0.0, NavTag::Auto, 0));
        // A 9 × 6 slab lying on the floor and tagged obstacle (its top would walk), and a
        // crate half off the floor: 54 + 1 m² of 100.
        scene.triangles.extend(square(0.0, 0.0, 9.0, 6.0, 0.05, NavTag::Obstacle, 1));
        scene.triangles.extend(square(9.0, 8.0, 11.0, 9.0, 1.0, NavTag::Obstacle, 2));
        let c = classify(&scene, 45.0, WalkableRule::BySlope);
        let warnings = tag_warnings(&scene, &c, 45.0, WalkableRule::BySlope);
        assert_eq!(
            warnings,
            ["obstacle-tagged geometry covers 55.00 m² of the 100.00 m² of walkable floor in XZ (55%), in nodes \
                 'Rug' (54.00 m²), 'Crate' (1.00 m²); an \"obstacle\" tag on a floor makes it block"]
        );
        // Less than half: no warning.
        scene.triangles.truncate(2);
        scene.triangles.extend(square(0.0, 0.0, 9.0, 5.0, 0.05, NavTag::Obstacle, 1));
        let c = classify(&scene, 45.0, WalkableRule::BySlope);
        assert!(tag_warnings(&scene, &c, 45.0, WalkableRule::BySlope).is_empty());
    }
}
