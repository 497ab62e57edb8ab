//! Random points: uniform by area.

use super::*;

#[test]
fn random_points_are_uniform_by_area() {
    let spec = GridSpec { cols: 6, rows: 5, triangulate: true, jitter: 0.22, seed: 12, ..GridSpec::default() };
    let mesh = query_mesh(spec.build());
    let n = mesh.mesh().polygon_count();
    let total = mesh.mesh().total_area();
    let mut counts = vec![0usize; n];
    let mut rng = SplitMix64::new(2024);
    let draws = 30_000;
    for _ in 0..draws {
        let l = mesh.random_point(&mut rng).unwrap();
        assert!(mesh.polygon_contains(l.polygon, xz(l.point)));
        counts[l.polygon as usize] += 1;
    }
    // Pearson's chi-squared against the area fractions; dof = n - 1 (~60), so 6 standard
    // deviations above the mean is far outside chance.
    let chi2: f64 = (0..n)
        .map(|i| {
            let expected = draws as f64 * mesh.mesh().polygon_area(i) / total;
            (counts[i] as f64 - expected).powi(2) / expected
        })
        .sum();
    let dof = (n - 1) as f64;
    assert!(chi2 < dof + 6.0 * (2.0 * dof).sqrt(), "chi2 {chi2} with {dof} degrees of freedom");
    // Same seed, same points.
    let a = mesh.random_point(&mut SplitMix64::new(5));
    assert_eq!(a, mesh.random_point(&mut SplitMix64::new(5)));
}
