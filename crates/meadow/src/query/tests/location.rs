//! Point location and nearest points against linear scans, and the locate grid's size.

use super::*;

/// The locate rule, brute force over every polygon.
fn locate_brute(mesh: &QueryMesh, p: [f64; 3]) -> Option<u32> {
    let s = mesh.mesh().settings();
    let mut cands: Vec<(f64, u32)> = (0..mesh.mesh().polygon_count() as u32)
        .filter(|&poly| mesh.polygon_contains(poly, xz(p)))
        .map(|poly| (mesh.surface_height(poly, xz(p)), poly))
        .collect();
    cands.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let below = cands
        .iter()
        .filter(|(h, _)| *h <= p[1] && p[1] - h <= s.height)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let above = cands.iter().find(|(h, _)| *h > p[1] && h - p[1] <= s.max_climb);
    below.or(above).map(|c| c.1)
}

#[test]
fn locate_is_layer_aware_and_matches_a_linear_scan() {
    // A sloped lower floor and a flat upper floor at y = 3 overlapping it in XZ.
    let lower =
        GridSpec { cols: 8, rows: 6, triangulate: true, jitter: 0.2, slope: [0.05, -0.03], ..GridSpec::default() }
            .build();
    let upper =
        GridSpec { cols: 4, rows: 3, cell: 1.5, origin: [2.0, 3.0, 1.0], layer: 1, ..GridSpec::default() }.build();
    let mesh = query_mesh(combine(lower, upper));
    assert!(mesh.locate_index().dimensions().0 >= 2);
    let mut rng = SplitMix64::new(4);
    let mut hits = [0usize; 2];
    for _ in 0..3000 {
        let p = [rng.next_f64() * 10.0 - 1.0, rng.next_f64() * 7.0 - 2.0, rng.next_f64() * 8.0 - 1.0];
        let got = mesh.locate(p).ok().map(|l| l.polygon);
        assert_eq!(got, locate_brute(&mesh, p), "locate {p:?}");
        if let Some(poly) = got {
            let layer = mesh.mesh().data().polygons[poly as usize].layer;
            hits[layer as usize] += 1;
        }
    }
    assert!(hits[0] > 100 && hits[1] > 100, "{hits:?}");
    // Heights on the sloped planar floor are exact up to rounding.
    for _ in 0..200 {
        let l = mesh.random_point(&mut rng).unwrap();
        let layer = mesh.mesh().data().polygons[l.polygon as usize].layer;
        let plane = if layer == 0 { 0.05 * l.point[0] - 0.03 * l.point[2] } else { 3.0 };
        let located = mesh.locate([l.point[0], l.point[1] + 0.01, l.point[2]]).unwrap();
        assert!((located.point[1] - plane).abs() < 1e-9);
    }
    // Directly under the upper floor: y chooses the layer.
    let at = |y| mesh.locate([3.0, y, 2.0]).map(|l| mesh.mesh().data().polygons[l.polygon as usize].layer);
    assert_eq!(at(0.5), Ok(0));
    assert_eq!(at(3.2), Ok(1));
    assert_eq!(at(2.5), Ok(1), "just below the upper floor, within climb");
    assert_eq!(at(5.5), Err(QueryError::OffMesh));
}

#[test]
fn nearest_point_matches_a_linear_scan() {
    let spec = GridSpec {
        cols: 10,
        rows: 7,
        triangulate: true,
        blocked: random_blocked(10, 7, 0.25, 8),
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let mut rng = SplitMix64::new(6);
    let mut found = 0;
    for _ in 0..2000 {
        let p = [rng.next_f64() * 12.0 - 1.0, rng.next_f64() * 2.0 - 1.0, rng.next_f64() * 9.0 - 1.0];
        let e = [rng.next_f64() * 1.5, 1.0, rng.next_f64() * 1.5];
        let brute = (0..mesh.mesh().polygon_count() as u32)
            .map(|poly| mesh.closest_point_on_polygon(poly, xz(p)))
            .filter(|c| (0..3).all(|k| (c[k] - p[k]).abs() <= e[k]))
            .map(|c| dist3(c, p))
            .min_by(f64::total_cmp);
        match (mesh.nearest_point(p, e), brute) {
            (Ok(l), Some(d)) => {
                assert_eq!(dist3(l.point, p), d);
                assert!(mesh.polygon_contains(l.polygon, xz(l.point)) || d > 0.0);
                found += 1;
            }
            (Err(QueryError::OffMesh), None) => {}
            (got, want) => panic!("nearest_point {got:?} vs brute force {want:?}"),
        }
    }
    assert!(found > 500);
}

#[test]
fn locate_grid_stays_linear_for_long_diagonal_strips() {
    // 1500 thin parallelograms running corner to corner: each bounding box covers most of the
    // mesh, which a fine grid would repeat in almost every cell.
    let n = 1500;
    let d = 0.01;
    let mut vertices = Vec::new();
    let mut rings = Vec::new();
    for i in 0..n {
        let x = i as f64 * d;
        let base = vertices.len() as u32;
        vertices.extend([[x, 0.0, 0.0], [x + d, 0.0, 0.0], [x + d + 100.0, 0.0, 100.0], [x + 100.0, 0.0, 100.0]]);
        rings.push((vec![base, base + 1, base + 2, base + 3], 0u16));
    }
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    let data = crate::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, areas, 0);
    let mesh = query_mesh(data);
    assert!(mesh.locate_index().entry_count() <= 16 * n + 64, "{} entries", mesh.locate_index().entry_count());
    let mut rng = SplitMix64::new(8);
    for _ in 0..300 {
        let p = [rng.next_f64() * 116.0 - 1.0, 0.0, rng.next_f64() * 102.0 - 1.0];
        assert_eq!(mesh.locate(p).ok().map(|l| l.polygon), locate_brute(&mesh, p));
    }
}
