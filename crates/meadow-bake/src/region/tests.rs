//! Tests of the region stage: erosion, blockers, walls, layers, area volumes.

use super::*;
use crate::classify::WalkableTriangle;
use crate::progress::NoProgress;
use crate::xz::{clip, normal};
use i_overlay::i_float::int::point::IntPoint;

fn quad(x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> [[[f64; 3]; 3]; 2] {
    // Facing up (+Y): counter-clockwise seen from above.
    [[[x0, y, z0], [x0, y, z1], [x1, y, z1]], [[x0, y, z0], [x1, y, z1], [x1, y, z0]]]
}

fn floor(x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> Vec<WalkableTriangle> {
    quad(x0, z0, x1, z1, y).into_iter().map(|v| WalkableTriangle { vertices: v, area: 0 }).collect()
}

fn params(radius: f64) -> RegionParams {
    RegionParams { radius, height: 2.0, max_climb: 0.9, arc_tolerance: 0.01 }
}

fn total_area(r: &Regions) -> f64 {
    r.areas.iter().flat_map(|a| &a.polygons).map(|p| p.area()).sum()
}

#[test]
fn open_floor_erodes_by_radius() {
    let c = Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: vec![],
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![],
    };
    let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
    assert!((total_area(&r) - 19.0 * 19.0).abs() < 1e-6, "{}", total_area(&r));
    let r0 = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
    assert!((total_area(&r0) - 400.0).abs() < 1e-9);
}

#[test]
fn low_ceiling_blocks_and_high_one_does_not() {
    // A slab 1.5 m over the middle of the floor (facing down: a ceiling).
    let slab = |y: f64| quad(8.0, 8.0, 12.0, 12.0, y).map(|t| [t[0], t[2], t[1]]).to_vec();
    let floor_only = Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: slab(1.5),
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![],
    };
    let r = build_regions(&floor_only, &params(0.0), &mut NoProgress).unwrap();
    assert!((total_area(&r) - (400.0 - 16.0)).abs() < 1e-6, "{}", total_area(&r));
    let high = Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: slab(2.5),
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![],
    };
    let r = build_regions(&high, &params(0.0), &mut NoProgress).unwrap();
    assert!((total_area(&r) - 400.0).abs() < 1e-6);
    let low = Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: slab(0.5),
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![],
    };
    let r = build_regions(&low, &params(0.0), &mut NoProgress).unwrap();
    assert!((total_area(&r) - 400.0).abs() < 1e-6, "a slab below the step height is stepped over");
}

#[test]
fn raised_platform_edge_is_a_wall_on_both_sides() {
    // Floor 0..10 at y=0 and a floating platform 10..20 at y=1.5, no side faces.
    let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
    walkable.extend(floor(10.0, 0.0, 20.0, 10.0, 1.5));
    let c = Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![], hulls: vec![] };
    let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
    let expected = 2.0 * 9.0 * 9.0;
    assert!((total_area(&r) - expected).abs() < 0.05, "{}", total_area(&r));
    assert_eq!(r.layers, 2, "not joined: two layers");
    assert_eq!(r.areas.iter().map(|a| a.polygons.len()).sum::<usize>(), 2);
    // A step within max_climb joins them instead.
    let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
    walkable.extend(floor(10.0, 0.0, 20.0, 10.0, 0.5));
    let r = build_regions(
        &Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![], hulls: vec![] },
        &params(0.5),
        &mut NoProgress,
    )
    .unwrap();
    assert_eq!(r.areas[0].polygons.len(), 1);
    assert!((total_area(&r) - 19.0 * 9.0).abs() < 1e-6);
}

#[test]
fn a_floor_partly_under_a_deck_stays_one_region() {
    // A floor of four 10 m tiles (shared corners), with a deck 3 m above part of one tile:
    // the tile under it is stacked, the others are not, and all four lie in one plane.
    let mut walkable = Vec::new();
    for (x, z) in [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0), (10.0, 10.0)] {
        walkable.extend(floor(x, z, x + 10.0, z + 10.0, 0.0));
    }
    walkable.extend(floor(2.0, 2.0, 6.0, 6.0, 3.0));
    let c = Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![], hulls: vec![] };
    let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
    assert_eq!(r.layers, 2);
    let floor_layer = r.triangle_layers[0] as u16;
    let pieces: usize = r.areas.iter().filter(|a| a.layer == floor_layer).map(|a| a.polygons.len()).sum();
    assert_eq!(pieces, 1, "the floor is cut where the deck's shadow ends");
    assert!((total_area(&r) - (19.0 * 19.0 + 3.0 * 3.0)).abs() < 1e-6, "{}", total_area(&r));
    // A ramp next to the deck's tile (not in its plane) still is a surface of its own.
    let mut walkable = c.walkable.clone();
    walkable.extend([
        WalkableTriangle { vertices: [[20.0, 0.0, 0.0], [20.0, 0.0, 10.0], [30.0, 2.0, 10.0]], area: 0 },
        WalkableTriangle { vertices: [[20.0, 0.0, 0.0], [30.0, 2.0, 10.0], [30.0, 2.0, 0.0]], area: 0 },
    ]);
    let with_ramp = Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![], hulls: vec![] };
    let r = build_regions(&with_ramp, &params(0.5), &mut NoProgress).unwrap();
    let pieces: usize = r.areas.iter().filter(|a| a.layer == floor_layer).map(|a| a.polygons.len()).sum();
    assert_eq!(pieces, 2, "floor and ramp");
}

#[test]
fn thin_vertical_wall_cuts_even_a_point_agent() {
    // A zero-thickness wall across the whole floor at x = 10 (two triangles, both sides).
    let wall = vec![
        [[10.0, 0.0, -1.0], [10.0, 3.0, -1.0], [10.0, 3.0, 21.0]],
        [[10.0, 0.0, -1.0], [10.0, 3.0, 21.0], [10.0, 0.0, 21.0]],
    ];
    let c = Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: wall,
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![],
    };
    let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
    assert_eq!(r.areas[0].polygons.len(), 2);
    let r = build_regions(&c, &params(0.6), &mut NoProgress).unwrap();
    assert_eq!(r.areas[0].polygons.len(), 2);
    let expected = 2.0 * (10.0 - 1.2) * 18.8;
    assert!((total_area(&r) - expected).abs() < 0.05, "{}", total_area(&r));
}

/// Free area with x ≤ `x_max` (half-plane clipping keeps signed areas exact for any ring).
fn area_left_of(r: &Regions, x_max: f64) -> f64 {
    let rings = r.areas.iter().flat_map(|a| &a.polygons).flat_map(|p| std::iter::once(&p.outer).chain(&p.holes));
    rings
        .map(|ring| {
            let mut ring = ring.clone();
            clip(&mut ring, |q| x_max - q[0]);
            geom::signed_area(&ring)
        })
        .sum()
}

#[test]
fn upper_floor_is_its_own_layer_and_blocks_only_the_floor_under_it() {
    // Ground 10×10 at y=0; a walkable slab at y=1.5 over x∈[0,5] whose underside (facing
    // down, 1.4 m up) blocks the ground under it but must not cut the slab itself.
    let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
    walkable.extend(floor(0.0, 0.0, 5.0, 10.0, 1.5));
    let underside = quad(0.0, 0.0, 5.0, 10.0, 1.4).map(|t| [t[0], t[2], t[1]]).to_vec();
    let c = Classified { walkable, blocking: underside, obstacles: vec![], volumes: vec![], hulls: vec![] };
    // The slab's edge at x = 5 is a drop edge (the ground is 1.5 m below across it); its
    // other edges lie on the level's outer border, and the ground's borders under the slab
    // are hidden.
    let w = WALL_HALF_WIDTH_UNITS as f64 / GRID_SCALE;
    for radius in [0.0, 0.5] {
        let r = build_regions(&c, &params(radius), &mut NoProgress).unwrap();
        // Outer borders erode by the radius; the drop edge at x = 5 keeps the radius (or the
        // quad's half-width `w` for a point agent) on both sides.
        let wall = if radius > 0.0 { radius } else { w };
        let slab = (5.0 - radius - wall) * (10.0 - 2.0 * radius);
        // The slab is a ceiling over the ground: its drop edge at x = 5 is a wall for the
        // ground too.
        let ground = (5.0 - radius - wall) * (10.0 - 2.0 * radius);
        let left = area_left_of(&r, 5.0);
        assert!(left > 0.0);
        assert!((left - slab).abs() < 1e-3, "radius {radius}: slab {left} vs {slab}");
        assert!((total_area(&r) - slab - ground).abs() < 1e-3, "radius {radius}: {}", total_area(&r));
        assert_eq!(r.layers, 2);
        assert_eq!(r.areas.len(), 2, "one region per layer");
        assert!(r.areas.iter().all(|a| a.polygons.len() == 1));
    }
    // Lifted above the agent's height, the slab is a second floor: the ground runs on
    // under it, uncut by the slab's drop edges.
    let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
    walkable.extend(floor(0.0, 0.0, 5.0, 10.0, 3.0));
    let underside = quad(0.0, 0.0, 5.0, 10.0, 2.9).map(|t| [t[0], t[2], t[1]]).to_vec();
    let r = build_regions(
        &Classified { walkable, blocking: underside, obstacles: vec![], volumes: vec![], hulls: vec![] },
        &params(0.0),
        &mut NoProgress,
    )
    .unwrap();
    let slab = (5.0 - w) * 10.0;
    let layer_area =
        |l: u16| -> f64 { r.areas.iter().filter(|a| a.layer == l).flat_map(|a| &a.polygons).map(|p| p.area()).sum() };
    assert_eq!(r.layers, 2);
    assert!((layer_area(0) - 100.0).abs() < 1e-3, "ground {}", layer_area(0));
    assert!((layer_area(1) - slab).abs() < 1e-3, "slab {}", layer_area(1));
}

#[test]
#[ignore = "needs the third-party levels"]
fn spiral_tower_keeps_its_floors() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels/gltf/navcat-tower-big.glb");
    assert!(path.exists(), "{} is not beside the repository", path.display());
    let scene = crate::ingest::ingest_file(&path, &mut NoProgress).unwrap();
    let c = crate::classify::classify(&scene, 45.0, meadow::WalkableRule::BySlope);
    // Stairs and landings about 1 m wide: an agent of radius 0.6 barely fits even with no
    // blocking geometry at all, so the checks use smaller agents. Blockers under a floor
    // must not cut it: with them the free area stays close to the bare walkable surface
    // (the old flattening lost about 40% of it at radius 0).
    let bare = Classified {
        walkable: c.walkable.clone(),
        blocking: vec![],
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![],
    };
    for (radius, keep) in [(0.0, 0.85), (0.3, 0.5)] {
        let r = build_regions(&c, &params(radius), &mut NoProgress).unwrap();
        let area = total_area(&r);
        let bare_area = total_area(&build_regions(&bare, &params(radius), &mut NoProgress).unwrap());
        println!(
            "tower radius {radius}: free area {area:.3} m² in {} polygons, {bare_area:.3} m² without blockers",
            r.areas.iter().map(|a| a.polygons.len()).sum::<usize>()
        );
        assert!(area > keep * bare_area && area <= bare_area + 1e-6);
    }
}

#[test]
fn collinear_segments_merge_exactly() {
    let p = |x: i32, y: i32| IntPoint::new(x, y);
    let merged = merge_collinear(
        [[p(0, 0), p(10, 5)], [p(20, 10), p(6, 3)], [p(30, 15), p(40, 20)], [p(0, 1), p(10, 6)]].into_iter(),
    );
    assert_eq!(merged.len(), 3);
    assert!(merged.contains(&vec![p(0, 0), p(20, 10)]));
    assert!(merged.contains(&vec![p(30, 15), p(40, 20)]));
    assert!(merged.contains(&vec![p(0, 1), p(10, 6)]));
}

/// An area volume over `[x0, x1] × [y0, y1] × [z0, z1]` (its top and bottom faces: the
/// region stage only needs the footprint and the height range).
fn volume(area: u16, x: [f64; 2], y: [f64; 2], z: [f64; 2]) -> crate::ingest::AreaVolume {
    let mut triangles = quad(x[0], z[0], x[1], z[1], y[1]).to_vec();
    triangles.extend(quad(x[0], z[0], x[1], z[1], y[0]).map(|t| [t[0], t[2], t[1]]));
    crate::ingest::AreaVolume { node: 0, area, triangles, y_min: y[0], y_max: y[1] }
}

fn area_of(r: &Regions, area: u16) -> f64 {
    r.areas.iter().filter(|a| a.area == area).flat_map(|a| &a.polygons).map(|p| p.area()).sum()
}

#[test]
fn volumes_paint_their_footprint_and_later_ones_win() {
    let floor_with = |volumes| Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: vec![],
        obstacles: vec![],
        volumes,
        hulls: vec![],
    };
    // A strip across the floor, reaching beyond it.
    let c = floor_with(vec![volume(1, [5.0, 10.0], [-1.0, 1.0], [-5.0, 25.0])]);
    let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
    assert!((area_of(&r, 1) - 100.0).abs() < 1e-9 && (area_of(&r, 0) - 300.0).abs() < 1e-9);
    assert_eq!(r.painted, [100.0]);
    // With a radius, the painted part is what is free of the border.
    let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
    assert!((area_of(&r, 1) - 5.0 * 19.0).abs() < 1e-9, "{}", area_of(&r, 1));
    assert!((total_area(&r) - 19.0 * 19.0).abs() < 1e-9);
    // Overlapping volumes: the later one takes the overlap, whatever the area indices.
    for (first, second) in [(1, 2), (2, 1)] {
        let c = floor_with(vec![
            volume(first, [0.0, 10.0], [-1.0, 1.0], [0.0, 20.0]),
            volume(second, [5.0, 15.0], [-1.0, 1.0], [0.0, 20.0]),
        ]);
        let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert!((area_of(&r, second) - 200.0).abs() < 1e-9, "{first} then {second}");
        assert!((area_of(&r, first) - 100.0).abs() < 1e-9, "{first} then {second}");
        assert!((area_of(&r, 0) - 100.0).abs() < 1e-9);
        assert_eq!(r.painted, [100.0, 200.0]);
    }
    // A volume painting the area already there leaves one region, and one above the floor
    // paints nothing.
    let c = floor_with(vec![
        volume(0, [5.0, 10.0], [-1.0, 1.0], [0.0, 20.0]),
        volume(1, [0.0, 20.0], [0.5, 3.0], [0.0, 20.0]),
    ]);
    let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
    assert_eq!(r.areas.len(), 1);
    assert_eq!(r.areas[0].polygons.len(), 1);
    assert_eq!(r.painted, [100.0, 0.0]);
}

#[test]
fn volumes_paint_only_the_layer_within_their_height_range() {
    // A deck 3 m over a floor (two layers, both stacked: the split by plane runs too), and
    // a volume over both in XZ whose height range holds one of them.
    let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
    walkable.extend(floor(2.0, 2.0, 6.0, 6.0, 3.0));
    for (y, painted_layer) in [([2.5, 3.5], 1u16), ([-1.0, 1.0], 0u16)] {
        let c = Classified {
            walkable: walkable.clone(),
            blocking: vec![],
            obstacles: vec![],
            volumes: vec![volume(1, [-1.0, 11.0], y, [-1.0, 11.0])],
            hulls: vec![],
        };
        let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert_eq!(r.layers, 2);
        let layer_area = |layer: u16, area: u16| -> f64 {
            r.areas
                .iter()
                .filter(|a| a.layer == layer && a.area == area)
                .flat_map(|a| &a.polygons)
                .map(|p| p.area())
                .sum()
        };
        let deck = r.triangle_layers[2] as u16;
        let ground = r.triangle_layers[0] as u16;
        let (painted, dry) = if painted_layer == 1 { (deck, ground) } else { (ground, deck) };
        assert!(layer_area(painted, 1) > 15.0, "{y:?}: {}", layer_area(painted, 1));
        assert_eq!(layer_area(painted, 0), 0.0, "{y:?}");
        assert_eq!(layer_area(dry, 1), 0.0, "{y:?}");
        assert!(layer_area(dry, 0) > 15.0, "{y:?}");
        assert_eq!(r.painted, [layer_area(painted, 1)]);
    }
}

#[test]
fn volumes_paint_only_the_part_of_a_slope_within_their_height_range() {
    // A ramp over [0, 10]² rising 0.3 m per metre along +x (0 to 3 m), in four triangles
    // that meet at its centre, and a volume up to 1.5 m: it paints x ≤ 5.
    let y = |x: f64| 0.3 * x;
    let p = |x: f64, z: f64| [x, y(x), z];
    let centre = p(5.0, 5.0);
    let walkable = [
        [p(0.0, 0.0), p(0.0, 10.0), centre],
        [p(0.0, 10.0), p(10.0, 10.0), centre],
        [p(10.0, 10.0), p(10.0, 0.0), centre],
        [p(10.0, 0.0), p(0.0, 0.0), centre],
    ]
    .map(|t| WalkableTriangle { vertices: t, area: 0 })
    .to_vec();
    assert!(walkable.iter().all(|w| normal(&w.vertices)[1] > 0.0));
    for (top, expected) in [(1.5, 50.0), (0.75, 25.0), (2.1, 70.0)] {
        let c = Classified {
            walkable: walkable.clone(),
            blocking: vec![],
            obstacles: vec![],
            volumes: vec![volume(1, [-1.0, 11.0], [-1.0, top], [-1.0, 11.0])],
            hulls: vec![],
        };
        let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert!((area_of(&r, 1) - expected).abs() < 1e-6, "top {top}: {}", area_of(&r, 1));
        assert!((area_of(&r, 0) - (100.0 - expected)).abs() < 1e-6, "top {top}: {}", area_of(&r, 0));
        // Every painted vertex lies within the height range.
        for poly in r.areas.iter().filter(|a| a.area == 1).flat_map(|a| &a.polygons) {
            assert!(poly.outer.iter().all(|q| y(q[0]) <= top + 1e-3), "{:?}", poly.outer);
        }
    }
}

/// A hull obstacle blocks its outline where its height range meets the agent's column (from
/// the floor, exclusive, up to the agent's height), including low ones the agent would step
/// onto as plain geometry; the whole outline, whatever it was made of.
#[test]
fn hull_obstacles_block_their_outline_over_their_height_range() {
    // A diamond of area 8 on a 20 × 20 floor; radius 0 so the area is exact.
    let outline = vec![[10.0, 8.0], [12.0, 10.0], [10.0, 12.0], [8.0, 10.0]];
    let with = |y_min: f64, y_max: f64| Classified {
        walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
        blocking: vec![],
        obstacles: vec![],
        volumes: vec![],
        hulls: vec![crate::classify::HullObstacle { node: 0, outline: outline.clone(), y_min, y_max }],
    };
    let area = |c: &Classified| total_area(&build_regions(c, &params(0.0), &mut NoProgress).unwrap());
    for (y_min, y_max, blocks) in [
        (-0.5, 1.5, true),   // a rock sunk into the floor
        (0.0, 0.3, true),    // low: an obstacle is not stepped over
        (1.5, 3.0, true),    // overhanging, below the head
        (-2.0, 5.0, true),   // taller than the agent, from below the floor
        (2.5, 3.0, false),   // above the head
        (-1.0, -0.2, false), // under the floor
        (-1.0, 0.0, false),  // flush with the floor
    ] {
        let expected = if blocks { 392.0 } else { 400.0 };
        let got = area(&with(y_min, y_max));
        assert!((got - expected).abs() < 1e-6, "y {y_min}..{y_max}: area {got}, expected {expected}");
    }
    // With a radius the free area is the floor eroded minus the outline grown (corners rounded
    // by arcs within the arc tolerance).
    let r = 0.5;
    let got = total_area(&build_regions(&with(-0.5, 1.5), &params(r), &mut NoProgress).unwrap());
    let perimeter = 4.0 * 8f64.sqrt();
    let expected = 19.0 * 19.0 - (8.0 + perimeter * r + std::f64::consts::PI * r * r);
    assert!((got - expected).abs() < 2.0 * std::f64::consts::PI * r * 0.01, "{got} vs {expected}");
}
