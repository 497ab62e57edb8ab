//! Work budgets: hostile or mistaken levels fail fast with a typed error naming the limit.

use meadow::{AreaType, BakeSettings};
use meadow_bake::ingest::{NavTag, Scene, SceneTriangle};
use meadow_bake::{Progress, Stage};
use meadow_testkit::rng::SplitMix64;

/// The regression level of the hostile-input report: a small level whose position accessor was
/// reinterpreted as raw 16-bit integers, i.e. `count` triangles with corners anywhere in a
/// 65 km cube (deterministic SplitMix64 stream).
fn u16_soup(count: usize, seed: u64) -> Scene {
    let mut rng = SplitMix64::new(seed);
    let mut next = || (rng.next_u64() & 0xFFFF) as f64;
    let triangles = (0..count)
        .map(|_| SceneTriangle {
            vertices: [[next(), next(), next()], [next(), next(), next()], [next(), next(), next()]],
            tag: NavTag::Auto,
            area: 0,
            node: 0,
        })
        .collect();
    Scene {
        triangles,
        areas: vec![AreaType { name: "default".into(), cost: 1.0 }],
        nodes: vec!["soup".into()],
        node_positions: vec![[0.0; 3]],
        ..Scene::default()
    }
}

struct Log;

impl Progress for Log {
    fn begin(&mut self, stage: Stage, total: u64) {
        eprintln!("begin {} {total}", stage.name());
    }
    fn advance(&mut self, _: Stage, _: u64) {}
    fn finish(&mut self, stage: Stage) {
        eprintln!("finish {}", stage.name());
    }
    fn warn(&mut self, message: &str) {
        eprintln!("warn {message}");
    }
}

/// Regression (hostile levels): a 31 KB level whose positions were mutated to raw 16-bit
/// integers drove the bake past 24 GB. It now fails within seconds naming the budget.
#[test]
fn quantised_soup_fails_fast_naming_the_budget() {
    for (count, seed) in [(1500, 7), (400, 11)] {
        let scene = u16_soup(count, seed);
        let started = std::time::Instant::now();
        let result = meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut Log);
        let elapsed = started.elapsed();
        match result {
            Err(meadow_bake::BakeError::Region(meadow_bake::region::RegionError::Budget(e))) => {
                assert_eq!(e.setting, "max_region_vertices");
                assert!(e.to_string().contains("max_region_vertices"), "{e}");
            }
            Err(meadow_bake::BakeError::Budget(e)) => assert!(e.to_string().contains(e.setting), "{e}"),
            other => panic!("{count} triangles: expected a budget error, got {:?}", other.map(|m| m.polygon_count())),
        }
        assert!(elapsed.as_secs_f64() < 20.0, "{count} triangles: {elapsed:?}");
    }
}

/// Each budget is a setting: a tiny one stops an ordinary level at the stage that checks it.
#[test]
fn every_budget_is_a_setting() {
    let mut floor = u16_soup(0, 0);
    for (x, z) in [(0.0, 0.0), (10.0, 0.0)] {
        for v in [
            [[x, 0.0, z], [x, 0.0, z + 10.0], [x + 10.0, 0.0, z + 10.0]],
            [[x, 0.0, z], [x + 10.0, 0.0, z + 10.0], [x + 10.0, 0.0, z]],
        ] {
            floor.triangles.push(SceneTriangle { vertices: v, tag: NavTag::Auto, area: 0, node: 0 });
        }
    }
    meadow_bake::bake(&floor, &BakeSettings::DEFAULT, &mut meadow_bake::NoProgress).unwrap();
    let budget_error = |f: fn(&mut BakeSettings)| {
        let mut s = BakeSettings::DEFAULT;
        f(&mut s);
        let result = meadow_bake::bake(&floor, &s, &mut meadow_bake::NoProgress).map(|m| m.polygon_count());
        match result.expect_err("a budget error") {
            meadow_bake::BakeError::Budget(b) => b.setting,
            meadow_bake::BakeError::Region(meadow_bake::region::RegionError::Budget(b)) => b.setting,
            other => panic!("{other}"),
        }
    };
    assert_eq!(budget_error(|s| s.max_walkable_triangles = 3), "max_walkable_triangles");
    assert_eq!(budget_error(|s| s.max_region_vertices = 10), "max_region_vertices");
    assert_eq!(budget_error(|s| s.max_polygons = 2), "max_polygons");
    // The smallest edge length on a long floor: the split estimate is checked before splitting.
    assert_eq!(
        budget_error(|s| {
            s.max_edge_length = 0.05;
            s.max_region_vertices = 1000;
        }),
        "max_region_vertices"
    );
}
