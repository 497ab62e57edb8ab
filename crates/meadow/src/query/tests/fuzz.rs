//! Any input, finite or not, gives an answer or a typed error.

use super::*;
use proptest::prelude::*;

fn coordinate() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -2.0..12.0f64,
        1 => prop::num::f64::ANY,
        1 => Just(1e300),
        1 => Just(-1e300),
        1 => Just(4.0),
        1 => Just(0.0),
    ]
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    (coordinate(), coordinate(), coordinate()).prop_map(|(x, y, z)| [x, y * 0.01, z])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    /// Any input gives an answer or a typed error, never a panic or a hang.
    #[test]
    fn queries_never_panic(s in point(), g in point(), e in point(), partial in any::<bool>(), style in 0..3u8) {
        thread_local! {
            static MESH: QueryMesh = query_mesh(GridSpec {
                cols: 8, rows: 8, triangulate: true, blocked: random_blocked(8, 8, 0.25, 2), ..GridSpec::default()
            }.build());
        }
        MESH.with(|mesh| {
            let style = [PathStyle::Midpoints, PathStyle::MeadowRefined, PathStyle::StringPulled][style as usize];
            let mut q = PathQuery::new(mesh);
            let mut path = Path::default();
            let options = PathOptions { style, allow_partial: partial, ..PathOptions::default() };
            if q.find_path_into(mesh, s, g, &QueryFilter::new(), options, &mut path).is_ok() {
                prop_assert!(path.length.is_finite());
                prop_assert!(path.points.len() >= 2 || path.points.len() == 1 && s[0] == g[0] && s[2] == g[2]);
            }
            let _ = mesh.locate(s);
            let _ = mesh.nearest_point(s, e);
            let _ = mesh.raycast(s, g, &mut Vec::new());
            Ok(())
        })?;
    }
}
