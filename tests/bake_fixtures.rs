//! End-to-end: bake every fixture level and check the navmesh against properties derived
//! independently of the bake (exact overlap tests, clearance oracles, analytic areas).

use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::{BakeSettings, NavMesh, WalkableRule};
use meadow_bake::ingest::IngestError;
use meadow_bake::region::{self, Regions};
use meadow_bake::{classify, ingest, simplify, BakeError, NoProgress};
use meadow_suite::*;
use std::path::Path;

fn settings(radius: f64) -> BakeSettings {
    let mut s = BakeSettings::DEFAULT;
    s.radius = radius;
    s
}

fn bake(path: &Path, s: &BakeSettings) -> NavMesh {
    meadow_bake::bake_file(path, s).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Vertex clearance may fall short of the radius by the arc tolerance, the grid step and half
/// the border sampling step.
const GRID: f64 = meadow_bake::region::GRID_SCALE.recip() * 2.0;
const SAMPLING: f64 = 0.02;

fn check_invariants(path: &Path, s: &BakeSettings) -> NavMesh {
    let name = path.display();
    let mesh = bake(path, s);
    assert!(mesh.polygon_count() > 0, "{name}: empty navmesh");
    // Loading re-validates indices, convexity and winding, and adjacency symmetry.
    let reloaded = NavMesh::from_bytes(&mesh.to_bytes()).unwrap_or_else(|e| panic!("{name}: reload: {e}"));
    assert_eq!(reloaded, mesh);
    assert!(mesh.polygons().all(|p| p.vertices.len() <= s.max_verts_per_poly as usize), "{name}: too many vertices");
    assert_eq!(overlapping_pairs(&mesh), vec![], "{name}: polygons overlap");

    let scene = ingest::ingest_file(path, &mut NoProgress).unwrap();
    let classified = classify::classify(&scene, s.max_slope, s.walkable);
    let (d, v, t) = min_blocker_clearance(&mesh, &classified.blocking);
    let tolerance = s.arc_tolerance + GRID;
    assert!(d >= s.radius - tolerance, "{name}: vertex {v} is {d} from blocking triangle {t} (radius {})", s.radius);
    let walkable: Vec<_> = classified.walkable.iter().map(|w| w.vertices).collect();
    let borders = walkable_border_samples(&walkable, s.max_climb, SAMPLING);
    let d = min_point_clearance(&mesh, &borders, s.max_climb);
    assert!(
        d >= s.radius - tolerance - SAMPLING / 2.0,
        "{name}: a vertex is {d} from a walkable border (radius {})",
        s.radius
    );
    mesh
}

#[test]
fn every_fixture_bakes_valid_non_overlapping_with_clearance() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    for path in &levels {
        for radius in [0.6, 0.25, 0.0] {
            check_invariants(path, &settings(radius));
        }
    }
}

#[test]
fn baking_is_byte_identical() {
    for path in fixture_levels() {
        let s = BakeSettings::DEFAULT;
        assert_eq!(bake(&path, &s).to_bytes(), bake(&path, &s).to_bytes(), "{}", path.display());
    }
}

/// (20 − 2r)² − (4 + 8r + πr²) for the floor, plus (2 − 2r)² for the box top.
fn box_floor_area(r: f64) -> f64 {
    (20.0 - 2.0 * r).powi(2) - (4.0 + 8.0 * r + std::f64::consts::PI * r * r) + (2.0 - 2.0 * r).powi(2)
}

#[test]
fn box_floor_area_is_analytic() {
    for r in [0.5, 0.6, 0.3] {
        let mesh = bake(&level("box_floor.glb"), &settings(r));
        let expected = box_floor_area(r);
        let rel = (mesh.total_area() - expected).abs() / expected;
        assert!(rel < 1e-3, "radius {r}: area {} vs analytic {expected} ({:.4}%)", mesh.total_area(), rel * 100.0);
    }
}

/// The L corridor (2 m wide, legs 10 m long): two strips of width 2 − 2r and length 10 − 2r
/// overlapping in a square, plus what lies beyond the radius arc at the inner corner.
fn corridor_area(r: f64) -> f64 {
    let (len, width) = (10.0 - 2.0 * r, 2.0 - 2.0 * r);
    2.0 * len * width - width * width + r * r - std::f64::consts::PI * r * r / 4.0
}

#[test]
fn corridor_area_is_analytic() {
    for r in [0.6, 0.5, 0.3, 0.25] {
        let mesh = bake(&level("corridor_l.gltf"), &settings(r));
        let expected = corridor_area(r);
        let rel = (mesh.total_area() - expected).abs() / expected;
        assert!(rel < 1e-3, "radius {r}: area {} vs analytic {expected} ({:.4}%)", mesh.total_area(), rel * 100.0);
    }
}

/// The region rings of open_floor carry hundreds of millimetre zigzag and near-collinear
/// vertices (331 before the simplify stage existed, 160 after, 204 since chains end where a ring
/// leaves its half-metre cell, which tiled bakes need): far fewer must reach the mesh, and the
/// free area may only change by what the tolerances allow along the boundary.
#[test]
fn open_floor_rings_are_simplified_within_tolerance() {
    let s = BakeSettings::DEFAULT;
    let path = level("open_floor.gltf");
    let scene = ingest::ingest_file(&path, &mut NoProgress).unwrap();
    let classified = classify::classify(&scene, s.max_slope, s.walkable);
    let regions = region::build_regions(&classified, &region::RegionParams::from(&s), &mut NoProgress).unwrap();
    let params = simplify::SimplifyParams::from(&s);
    let simplified = simplify::simplify_regions(&regions, &params, &mut NoProgress);
    let rings = |r: &Regions| -> Vec<Vec<[f64; 2]>> {
        r.areas
            .iter()
            .flat_map(|a| &a.polygons)
            .flat_map(|p| std::iter::once(p.outer.clone()).chain(p.holes.iter().cloned()))
            .collect()
    };
    let count = |r: &Regions| rings(r).iter().map(Vec::len).sum::<usize>();
    let area = |r: &Regions| r.areas.iter().flat_map(|a| &a.polygons).map(|p| p.area()).sum::<f64>();
    let perimeter: f64 = rings(&regions)
        .iter()
        .map(|ring| (0..ring.len()).map(|i| distance(ring[i], ring[(i + 1) % ring.len()])).sum::<f64>())
        .sum();
    assert!(count(&simplified) < 220, "{} ring vertices before, {} after", count(&regions), count(&simplified));
    let change = area(&simplified) - area(&regions);
    assert!(
        change >= -perimeter * params.shrink && change <= perimeter * params.grow,
        "free area changed by {change} m² along a {perimeter} m boundary"
    );
    let mesh = bake(&path, &s);
    assert!(mesh.vertices().len() < 230, "{} mesh vertices", mesh.vertices().len());
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

#[test]
fn narrow_doorway_is_closed_and_wide_one_open() {
    let (a, b, c) = ([-10.0, 0.0], [0.0, 0.0], [10.0, 0.0]);
    let mesh = bake(&level("rooms.glb"), &settings(0.6));
    assert!(!connected(&mesh, a, b), "the 1.0 m doorway must be closed for radius 0.6");
    assert!(connected(&mesh, b, c), "the 2.0 m doorway must be open for radius 0.6");
    let thin = bake(&level("rooms.glb"), &settings(0.4));
    assert!(connected(&thin, a, b), "the 1.0 m doorway must be open for radius 0.4");
}

#[test]
fn ramps_within_the_slope_limit_connect_and_steeper_ones_do_not() {
    let mesh = bake(&level("ramps.glb"), &settings(0.6));
    let floor = [-6.0, 0.0];
    assert!(connected(&mesh, floor, [4.0, -4.0]), "30° ramp leads onto the first platform");
    assert!(polygon_at(&mesh, [4.0, 4.0]).is_some(), "the second platform top is walkable");
    assert!(!connected(&mesh, floor, [4.0, 4.0]), "the 60° ramp is not walkable");
    // Heights come from the surface under each vertex: platform vertices sit at 1.5 m.
    let p = polygon_at(&mesh, [4.0, -4.0]).unwrap();
    for &v in mesh.polygon(p).vertices {
        assert!((mesh.vertices()[v as usize][1] - 1.5).abs() < 1e-6);
    }
}

#[test]
fn nobody_passes_under_the_table() {
    let mesh = bake(&level("table.glb"), &settings(0.6));
    assert!(polygon_at(&mesh, [0.0, 0.0]).is_none());
    // The top's edge at z = -0.5 is a drop, so the floor is free from z = -1.1 on.
    assert!(polygon_at(&mesh, [0.0, -1.05]).is_none(), "within radius of the table edge");
    assert!(polygon_at(&mesh, [0.0, -1.15]).is_some());
    // A point agent still cannot stand under it (the top is inside its column): what is walkable
    // there, seen from above, is the table top itself, 1 m up.
    let point = bake(&level("table.glb"), &settings(0.0));
    let top = polygon_at(&point, [0.0, 0.3]).expect("the table top is walkable for a point agent");
    for &v in point.polygon(top).vertices {
        assert!((point.vertices()[v as usize][1] - 1.0).abs() < 1e-6, "only the top, not the floor under it");
    }
    assert!(!connected(&point, [0.0, 0.3], [0.0, -3.0]), "the top is not reachable from the floor");
}

#[test]
fn bridge_deck_and_the_floor_under_it_are_two_layers_joined_by_the_ramps() {
    use meadow::query::{PathQuery, QueryFilter, QueryMesh};
    let mesh = bake(&level("bridge.glb"), &settings(0.6));
    // Over the middle of the deck: the floor (2.8 m of headroom, more than the agent's 2 m) and
    // the deck itself, in different layers.
    let under_middle: Vec<usize> = (0..mesh.polygon_count())
        .filter(|&i| {
            let r = ring(&mesh, i);
            (0..r.len()).all(|k| meadow::geom::orient2d(r[k], r[(k + 1) % r.len()], [0.0, 0.0]) >= 0.0)
        })
        .collect();
    let mut heights: Vec<f64> = under_middle.iter().map(|&i| height_at(&mesh, i, [0.0, 0.0])).collect();
    heights.sort_by(f64::total_cmp);
    assert_eq!(heights.len(), 2, "floor and deck over (0, 0): {heights:?}");
    assert!(heights[0].abs() < 1e-6 && (heights[1] - 3.0).abs() < 1e-6, "{heights:?}");
    assert_ne!(mesh.polygon(under_middle[0]).layer, mesh.polygon(under_middle[1]).layer);
    // From under the deck up onto it: round a ramp's foot, up the ramp (no teleport through
    // the deck), about 9 + 6.7 + 3 m.
    let query_mesh = QueryMesh::new(mesh);
    let mut query = PathQuery::new(&query_mesh);
    let path = query.find_path(&query_mesh, [0.0, 0.0, 0.0], [0.0, 3.0, 0.0], &QueryFilter::new()).unwrap();
    assert!(path.length > 15.0 && path.length < 25.0, "length {}", path.length);
    assert!(path.points.iter().any(|p| p[0].abs() > 6.0), "the path goes round onto a ramp beyond the deck");
    // A taller agent does not fit under the deck: there the deck is a ceiling for the floor.
    let mut tall = settings(0.6);
    tall.height = 3.5;
    let tall = bake(&level("bridge.glb"), &tall);
    let under: Vec<f64> = (0..tall.polygon_count())
        .filter(|&i| {
            let r = ring(&tall, i);
            (0..r.len()).all(|k| meadow::geom::orient2d(r[k], r[(k + 1) % r.len()], [0.0, 0.0]) >= 0.0)
        })
        .map(|i| height_at(&tall, i, [0.0, 0.0]))
        .collect();
    assert!(under.iter().all(|&y| (y - 3.0).abs() < 1e-6) && !under.is_empty(), "only the deck: {under:?}");
}

#[test]
fn tags_drive_areas_obstacles_and_ignored_geometry() {
    let mesh = bake(&level("tagged.glb"), &settings(0.6));
    assert_eq!(mesh.areas().len(), 2);
    assert_eq!((mesh.areas()[1].name.as_str(), mesh.areas()[1].cost), ("grass", 2.0));
    let grass = polygon_at(&mesh, [-5.0, 7.0]).expect("grass patch is walkable");
    assert_eq!(mesh.polygon(grass).area, 1);
    // The grass is tagged walkable; the untagged floor still walks by its slope.
    let floor = polygon_at(&mesh, [0.0, 0.0]).expect("floor is walkable");
    assert_eq!(mesh.polygon(floor).area, 0);
    assert!(connected(&mesh, [-5.0, 7.0], [0.0, 0.0]), "areas join through portals");
    assert!(polygon_at(&mesh, [3.5, -3.5]).is_none(), "the obstacle-tagged slab blocks");
    assert!(polygon_at(&mesh, [-6.0, -6.0]).is_some(), "the ignored box does not block");
}

/// A visibility build that costs more than `max_visibility_work` is left out with
/// one warning naming the budget; at the default budget the fixture keeps its graph.
#[test]
fn a_graph_over_the_work_budget_is_left_out_with_a_warning() {
    let bake = |work: u64| {
        let mut s = settings(0.3);
        s.max_visibility_work = work;
        let mut progress = RecordingProgress::default();
        let mesh = meadow_bake::bake_file_with_progress(level("open_floor.gltf"), &s, &mut progress).unwrap();
        (mesh, progress.warnings)
    };
    let (kept, warnings) = bake(0);
    assert!(kept.visibility().is_some() && warnings.is_empty(), "{warnings:?}");
    let (_, work) = meadow_bake::visibility::build_visibility_counted(&kept);
    let (just_kept, warnings) = bake(work);
    assert_eq!(just_kept.visibility(), kept.visibility(), "{warnings:?}");
    let (left_out, warnings) = bake(work - 1);
    assert!(left_out.visibility().is_none());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("visibility graph left out") && warnings[0].contains("max_visibility_work"));
    assert_eq!(left_out.polygon_count(), kept.polygon_count());
}

/// A visibility graph above `max_visibility_ratio` times the rest of the asset is left out with
/// one warning, and the exact paths of the asset without it are the same.
#[test]
fn a_graph_above_the_size_bound_is_left_out_with_a_warning() {
    let bake = |ratio: f64| {
        let mut s = settings(0.3);
        s.max_visibility_ratio = ratio;
        let mut progress = RecordingProgress::default();
        let mesh = meadow_bake::bake_file_with_progress(level("open_floor.gltf"), &s, &mut progress).unwrap();
        (mesh, progress.warnings)
    };
    let (kept, warnings) = bake(1e6);
    assert!(warnings.is_empty(), "{warnings:?}");
    let (graph, rest) = meadow_bake::visibility::graph_and_rest_bytes(&kept);
    assert!(graph > 0 && rest > graph, "open_floor's graph is smaller than the rest: {graph} vs {rest}");
    let ratio = graph as f64 / rest as f64;
    let (just_kept, warnings) = bake(ratio * 1.001);
    assert!(just_kept.visibility().is_some() && warnings.is_empty(), "{warnings:?}");
    let (left_out, warnings) = bake(ratio * 0.999);
    assert!(left_out.visibility().is_none());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("visibility graph left out") && warnings[0].contains("max_visibility_ratio"));
    // Same mesh otherwise: exact paths agree with and without the graph.
    assert_eq!(left_out.polygon_count(), kept.polygon_count());
    // Between polygon centroids spread over the level.
    let centroid = |m: &NavMesh, i: usize| {
        let vs = m.polygon(i).vertices;
        let sum = vs.iter().fold([0.0; 3], |a, &v| {
            let p = m.vertices()[v as usize];
            [a[0] + p[0], a[1] + p[1], a[2] + p[2]]
        });
        sum.map(|c| c / vs.len() as f64)
    };
    let n = kept.polygon_count();
    let ends: Vec<[f64; 3]> = (0..8).map(|k| centroid(&kept, k * (n - 1) / 7)).collect();
    let (with, without) = (QueryMesh::new(kept), QueryMesh::new(left_out));
    let (mut by_graph, mut by_search) = (ShortestPathQuery::new(&with), ShortestPathQuery::new(&without));
    let filter = QueryFilter::new();
    let mut found = 0;
    for (i, &a) in ends.iter().enumerate() {
        for &b in &ends[i + 1..] {
            let p = by_graph.find_shortest_path(&with, a, b, &filter);
            let q = by_search.find_shortest_path(&without, a, b, &filter);
            assert_eq!(p.is_ok(), q.is_ok(), "{a:?} -> {b:?}");
            if let (Ok(p), Ok(q)) = (p, q) {
                assert!((p.length - q.length).abs() <= 1e-9 * p.length.max(1.0), "{a:?} -> {b:?}");
                found += 1;
            }
        }
    }
    assert!(found >= 10, "only {found} of 28 pairs found");
}

/// Bakes with `walkable = rule`, returning the mesh and the warnings.
fn bake_with_rule(name: &str, radius: f64, rule: WalkableRule) -> (NavMesh, Vec<String>) {
    let mut s = settings(radius);
    s.walkable = rule;
    let mut progress = RecordingProgress::default();
    let mesh = meadow_bake::bake_file_with_progress(level(name), &s, &mut progress)
        .unwrap_or_else(|e| panic!("{name} ({rule:?}): {e}"));
    (mesh, progress.warnings)
}

fn assert_area(what: &str, area: f64, expected: f64) {
    let rel = (area - expected).abs() / expected;
    assert!(rel < 1e-3, "{what}: area {area} vs analytic {expected} ({:.4}%)", rel * 100.0);
}

/// The tagged west hall and the untagged east hall (mirrored by its parent) bake as one floor
/// by default: (36 − 2r)(10 − 2r) less the pillar grown by r, plus its top.
fn halls_area(r: f64) -> f64 {
    (36.0 - 2.0 * r) * (10.0 - 2.0 * r) - (4.0 + 8.0 * r + std::f64::consts::PI * r * r) + (2.0 - 2.0 * r).powi(2)
}

#[test]
fn tagged_and_untagged_halls_both_bake_also_mirrored() {
    for r in [0.6, 0.3] {
        let (mesh, warnings) = bake_with_rule("halls.glb", r, WalkableRule::BySlope);
        assert_area(&format!("halls, radius {r}"), mesh.total_area(), halls_area(r));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(connected(&mesh, [-10.0, 0.0], [14.0, 0.0]), "the seam between the halls is no wall");
        let pillar_top = polygon_at(&mesh, [9.0, 0.0]).expect("the pillar top is walkable");
        assert!((height_at(&mesh, pillar_top, [9.0, 0.0]) - 3.0).abs() < 1e-6);

        // The explicit exclusive mode gives the old result: only the tagged hall, and says so.
        let (mesh, warnings) = bake_with_rule("halls.glb", r, WalkableRule::TaggedOnly);
        assert_area(&format!("tagged-only halls, radius {r}"), mesh.total_area(), (18.0 - 2.0 * r) * (10.0 - 2.0 * r));
        assert!(polygon_at(&mesh, [1.0, 0.0]).is_none());
        assert_eq!(
            warnings,
            ["walkable = \"tagged-only\": 184.00 m² (XZ) of untagged floor that slope alone would keep only blocks, \
                 in nodes 'EastHall' (180.00 m²), 'EastPillar' (4.00 m²); tag it {\"navmesh\": \"walkable\"} or bake \
                 with walkable = \"by-slope\""]
        );
    }
}

#[test]
fn a_floor_split_into_meshes_with_one_tagged_keeps_all_of_it() {
    let r = 0.6;
    let (mesh, warnings) = bake_with_rule("split_floor.glb", r, WalkableRule::BySlope);
    assert_area("split floor", mesh.total_area(), (26.0 - 2.0 * r) * (10.0 - 2.0 * r));
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(connected(&mesh, [1.0, 5.0], [25.0, 5.0]));
    let (mesh, warnings) = bake_with_rule("split_floor.glb", r, WalkableRule::TaggedOnly);
    assert_area("tagged-only split floor", mesh.total_area(), (5.0 - 2.0 * r) * (10.0 - 2.0 * r));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "walkable = \"tagged-only\": 210.00 m² (XZ) of untagged floor that slope alone would keep only blocks, \
             in nodes 'Strip6' (60.00 m²), 'Strip5' (50.00 m²), 'Strip4' (40.00 m²), 'Strip3' (30.00 m²), \
             'Strip2' (20.00 m²) and 1 more;"
        ),
        "{}",
        warnings[0]
    );
}

/// XZ area of the polygons of area type `area`.
fn area_of_type(mesh: &NavMesh, area: u16) -> f64 {
    (0..mesh.polygon_count())
        .filter(|&i| mesh.polygon(i).area == area)
        .map(|i| meadow::geom::signed_area(&ring(mesh, i)))
        .sum()
}

/// Whether the polyline passes through the interior of the XZ box `[x0, z0, x1, z1]`
/// (sampled every centimetre).
fn enters(points: &[[f64; 3]], b: [f64; 4]) -> bool {
    points.windows(2).any(|w| {
        let steps = ((w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2]) / 0.01).ceil().max(1.0) as usize;
        (0..=steps).any(|k| {
            let t = k as f64 / steps as f64;
            let (x, z) = (w[0][0] + (w[1][0] - w[0][0]) * t, w[0][2] + (w[1][2] - w[0][2]) * t);
            x > b[0] + 1e-6 && x < b[2] - 1e-6 && z > b[1] + 1e-6 && z < b[3] - 1e-6
        })
    })
}

/// The cost of walking the polyline on `mesh`: length times the cost of the area under it
/// (sampled every centimetre, in XZ; `costs` per area index).
fn path_cost(mesh: &NavMesh, points: &[[f64; 3]], costs: &[f64]) -> f64 {
    let mut total = 0.0;
    for w in points.windows(2) {
        let length = (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2]);
        let steps = (length / 0.01).ceil().max(1.0) as usize;
        for k in 0..steps {
            let t = (k as f64 + 0.5) / steps as f64;
            let q = [w[0][0] + (w[1][0] - w[0][0]) * t, w[0][2] + (w[1][2] - w[0][2]) * t];
            let poly = polygon_at(mesh, q).unwrap_or_else(|| panic!("{q:?} is off the mesh"));
            total += length / steps as f64 * costs[mesh.polygon(poly).area as usize];
        }
    }
    total
}

/// Where the path crosses the line x = `x`: the z of its first crossing.
fn z_at_x(points: &[[f64; 3]], x: f64) -> Option<f64> {
    points.windows(2).find_map(|w| {
        let (a, b) = (w[0], w[1]);
        ((a[0] - x) * (b[0] - x) <= 0.0 && a[0] != b[0]).then(|| a[2] + (b[2] - a[2]) * (x - a[0]) / (b[0] - a[0]))
    })
}

#[test]
fn road_volumes_paint_their_footprints_and_paths_follow_the_costs() {
    let r = 0.6;
    let mesh = bake(&level("road.glb"), &settings(r));
    let names: Vec<(&str, f32)> = mesh.areas().iter().map(|a| (a.name.as_str(), a.cost)).collect();
    assert_eq!(names, [("default", 1.0), ("field", 3.0), ("road", 1.0), ("mud", 50.0), ("crossing", 2.0)]);
    // The crossing comes later in the scene than the road: it takes their overlap (2 × 2 m).
    let (road, mud, crossing) = (2, 3, 4);
    assert_area("road", area_of_type(&mesh, road), 32.0 * 2.0 - 4.0);
    assert_area("crossing", area_of_type(&mesh, crossing), 2.0 * 6.0);
    // The mud reaches past the field's north edge: it paints up to the eroded border.
    assert_area("mud", area_of_type(&mesh, mud), 6.0 * (10.0 - r - 4.0));
    assert_area("field and volumes", mesh.total_area(), (40.0 - 2.0 * r) * (20.0 - 2.0 * r));
    assert_eq!(area_of_type(&mesh, 0), 0.0);
    // Painted polygons lie inside their volume's footprint.
    let tolerance = 2.0 / meadow_bake::region::GRID_SCALE;
    for i in 0..mesh.polygon_count() {
        let bounds = match mesh.polygon(i).area {
            2 => [-16.0, -1.0, 16.0, 1.0],
            3 => [-3.0, 4.0, 3.0, 12.0],
            4 => [-1.0, -3.0, 1.0, 3.0],
            _ => continue,
        };
        for q in ring(&mesh, i) {
            let inside = q[0] >= bounds[0] - tolerance
                && q[1] >= bounds[1] - tolerance
                && q[0] <= bounds[2] + tolerance
                && q[1] <= bounds[3] + tolerance;
            assert!(inside, "polygon {i} of area {} has vertex {q:?}", mesh.polygon(i).area);
        }
    }

    let query_mesh = QueryMesh::new(mesh);
    let mut query = PathQuery::new(&query_mesh);
    let mut path = |from: [f64; 3], to: [f64; 3], filter: &QueryFilter| {
        PathQuery::find_path(&mut query, &query_mesh, from, to, filter).unwrap()
    };
    // Along the field: 36 m at cost 3 (108) straight, or at best 2 × 6.3 m of field, 30 m of
    // road and 2 m of crossing (72) by the road.
    let (west, east) = ([-18.0, 0.0, -7.0], [18.0, 0.0, -7.0]);
    let by_road = path(west, east, &QueryFilter::new());
    let z = z_at_x(&by_road.points, 0.0).expect("the path crosses x = 0");
    assert!(z.abs() <= 1.0, "the path takes the road: it crosses x = 0 at z = {z}");
    // At least 10 m of it run on the road (the corridor is string-pulled, so it joins the road
    // where its corridor does, not necessarily at the road's ends).
    let on_road: f64 = by_road
        .points
        .windows(2)
        .filter(|w| w[0][2].abs() <= 1.0 + 1e-9 && w[1][2].abs() <= 1.0 + 1e-9)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2]))
        .sum();
    assert!(on_road >= 10.0, "{on_road} m on the road: {:?}", by_road.points);
    assert!(by_road.length > 37.0, "a detour from the straight 36 m: {}", by_road.length);
    let costs = [1.0, 3.0, 1.0, 50.0, 2.0];
    let cost = path_cost(query_mesh.mesh(), &by_road.points, &costs);
    assert!(cost < 0.9 * 108.0, "the road way costs {cost}, the straight one 108");
    // A road as dear as the field is not worth the detour.
    let field_road = QueryFilter::new().with_cost(road, 3.0).with_cost(crossing, 3.0);
    let straight = path(west, east, &field_road);
    assert!((straight.length - 36.0).abs() < 1e-6, "{}", straight.length);

    // Across the mud patch (cost 50, 6 m wide): 16 m straight through costs 5 × 3 + 6 × 50,
    // the way round its southern edge no more than 21 m × 3.
    let (a, b) = ([-8.0, 0.0, 7.0], [8.0, 0.0, 7.0]);
    let around = path(a, b, &QueryFilter::new());
    assert!(!enters(&around.points, [-3.0, 4.0, 3.0, 12.0]), "{:?}", around.points);
    assert!(around.length < 21.0, "{} {:?}", around.length, around.points);
    assert!(path_cost(query_mesh.mesh(), &around.points, &costs) < 21.0 * 3.0);
    let through = path(a, b, &QueryFilter::new().with_cost(mud, 3.0));
    assert!((through.length - 16.0).abs() < 1e-6, "mud as dear as the field is crossed: {}", through.length);
}

#[test]
fn a_volume_paints_only_the_part_of_a_slope_within_its_height_range() {
    let r = 0.6;
    let mut progress = RecordingProgress::default();
    let mesh = meadow_bake::bake_file_with_progress(level("slope_volume.glb"), &settings(r), &mut progress).unwrap();
    let names: Vec<&str> = mesh.areas().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["default", "puddle", "cloud"]);
    // The ramp rises 0.3 m per metre: the puddle (up to 1.5 m) paints x ≤ 5.
    assert_area("puddle", area_of_type(&mesh, 1), (5.0 - r) * (10.0 - 2.0 * r));
    assert_area("dry ramp", area_of_type(&mesh, 0), (5.0 - r) * (10.0 - 2.0 * r));
    assert_eq!(area_of_type(&mesh, 2), 0.0);
    for i in (0..mesh.polygon_count()).filter(|&i| mesh.polygon(i).area == 1) {
        for &v in mesh.polygon(i).vertices {
            let [x, y, _] = mesh.vertices()[v as usize];
            assert!(x <= 5.0 + 1e-3 && y <= 1.5 + 1e-3, "puddle vertex at x {x}, y {y}");
        }
    }
    assert!(connected(&mesh, [2.0, 5.0], [8.0, 5.0]), "portals join the puddle and the dry ramp");
    assert_eq!(
        progress.warnings,
        ["area volume 'Cloud' (area 'cloud') paints nothing: no free walkable surface lies inside its footprint \
          within its height range y = 4.00 ..= 5.00 m"]
    );
}

#[test]
fn area_volumes_need_a_closed_mesh_and_an_area() {
    match meadow_bake::bake_file(bad_input("open_volume.glb"), &BakeSettings::DEFAULT) {
        Err(BakeError::Ingest(IngestError::OpenVolume { node, open_edges: 4, .. })) => assert_eq!(node, "'Pond'"),
        other => panic!("expected an open-volume error, got {other:?}"),
    }
    match meadow_bake::bake_file(bad_input("volume_without_area.glb"), &BakeSettings::DEFAULT) {
        Err(BakeError::Ingest(e @ IngestError::VolumeWithoutArea { .. })) => {
            assert!(e.to_string().contains("'Marsh'"), "{e}")
        }
        other => panic!("expected a missing-area error, got {other:?}"),
    }
}

#[test]
fn deep_hierarchy_floor_is_one_connected_surface() {
    let mesh = bake(&level("hierarchy.glb"), &settings(0.3));
    assert!(connected(&mesh, [-3.5, 3.5], [3.5, 3.5]));
    assert!(connected(&mesh, [-3.5, -3.5], [3.5, 3.5]));
    assert!(polygon_at(&mesh, [1.0, -3.0]).is_none(), "the matrix-placed pillar blocks");
}

#[test]
fn strips_fans_and_index_widths_give_the_same_floor() {
    let mesh = bake(&level("strips_fans.gltf"), &settings(0.6));
    // The low octagonal stage (0.25 m) is climbable, so it joins the floor.
    assert!(connected(&mesh, [0.0, -6.0], [0.0, 6.0]));
    // Box sides block the floor; their tops (1 m and 2 m up) are islands of their own.
    assert!(polygon_at(&mesh, [2.1, 3.0]).is_none(), "the strip/fan box blocks");
    assert!(polygon_at(&mesh, [-2.1, -3.0]).is_none(), "the u32 box blocks");
    assert!(!connected(&mesh, [3.0, 3.0], [0.0, 6.0]), "the strip/fan box top is not reachable");
}

#[test]
fn bad_levels_give_typed_errors() {
    let s = BakeSettings::DEFAULT;
    for name in [
        "truncated.glb",
        "missing_bin.gltf",
        "buffer_too_short.gltf",
        "accessor_overrun.glb",
        "nan_position.glb",
        "inf_position.glb",
        "empty_scene.glb",
        "degenerate_only.glb",
        "index_out_of_range.glb",
        "missing_position.glb",
        "not_gltf.glb",
        "bad_json.gltf",
        "bad_tag.glb",
        "bad_cost.glb",
        "bad_link_self.glb",
        "bad_link_target.glb",
        "bad_link_cost.glb",
        "open_volume.glb",
        "volume_without_area.glb",
    ] {
        match meadow_bake::bake_file(bad_input(name), &s) {
            Err(BakeError::Ingest(e)) => assert!(!e.to_string().is_empty()),
            other => panic!("{name}: expected an ingest error, got {other:?}"),
        }
    }
    let text = std::fs::read_to_string(bad_input("negative_radius.toml")).unwrap();
    let parsed: BakeSettings = toml::from_str(&text).unwrap();
    assert!(matches!(meadow_bake::bake_file(level("box_floor.glb"), &parsed), Err(BakeError::Settings(_))));
    let too_big = settings(50.0);
    assert!(matches!(meadow_bake::bake_file(level("rooms.glb"), &too_big), Err(BakeError::NothingWalkable { .. })));
}

#[test]
fn damaged_assets_are_rejected() {
    let bytes = bake(&level("rooms.glb"), &BakeSettings::DEFAULT).to_bytes();
    for i in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[i] ^= 0x10;
        assert!(NavMesh::from_bytes(&b).is_err(), "flipped byte {i} accepted");
    }
    for len in (0..bytes.len()).step_by(11) {
        assert!(NavMesh::from_bytes(&bytes[..len]).is_err(), "truncation to {len} accepted");
    }
}

#[test]
#[ignore = "needs the third-party levels"]
fn real_levels_bake_valid() {
    let shared = meadow_suite::third_party_dir();
    for name in ["gltf/collision-world.glb", "gltf/navcat-proto-level.glb", "recast/nav_test.glb", "recast/dungeon.glb"]
    {
        let path = shared.join("levels").join(name);
        let mesh = bake(&path, &BakeSettings::DEFAULT);
        assert!(mesh.polygon_count() > 100, "{name}");
        assert_eq!(NavMesh::from_bytes(&mesh.to_bytes()).unwrap(), mesh);
        assert_eq!(overlapping_pairs(&mesh), vec![], "{name}: polygons overlap");
    }
    check_invariants(&shared.join("levels/gltf/collision-world.glb"), &BakeSettings::DEFAULT);
}

/// The committed asset the doctests load must be of this format and what this bake makes of its
/// level (re-bake it with the command in `fixtures/assets/README.md` after a format change).
#[test]
fn the_committed_fixture_asset_is_current() {
    let bytes = std::fs::read(fixtures_dir().join("assets/box_floor.nav")).unwrap();
    let committed = NavMesh::from_bytes(&bytes).unwrap_or_else(|e| {
        panic!("fixtures/assets/box_floor.nav does not load ({e}): re-bake it (fixtures/assets/README.md)")
    });
    let fresh = bake(&level("box_floor.glb"), committed.settings());
    assert!(fresh == committed, "fixtures/assets/box_floor.nav is stale: re-bake it (fixtures/assets/README.md)");
}
