//! The layered oracle on hand-made meshes with known answers, and against the single-layer
//! oracle of `crate::oracle` on grids.

use super::*;
use crate::oracle::{Oracle, Visibility};
use crate::rng::SplitMix64;
use crate::testmesh::{assemble, combine, random_blocked, GridSpec};
use meadow::query::QueryMesh;
use meadow::settings::BakeSettings;
use meadow::AreaType;

fn areas() -> Vec<AreaType> {
    vec![AreaType { name: "default".into(), cost: 1.0 }]
}

fn mesh(vertices: Vec<[f64; 3]>, rings: &[&[u32]]) -> NavMesh {
    let rings: Vec<(Vec<u32>, u16)> = rings.iter().map(|r| (r.to_vec(), 0)).collect();
    NavMesh::new(assemble(BakeSettings::DEFAULT, vertices, &rings, areas(), 0)).expect("valid test mesh")
}

/// A switchback: a floor `F` at y = 0, a landing (`La`, `Lb`) at its east end, a ramp `R` back
/// west beside the floor up to y = 3, an upper landing (`L2b`, `L2a`) and a deck `U` at y = 3
/// exactly above `F`. `F` and `U` are the same rectangle in XZ; only the ramp joins them.
///
/// ```text
///  z 4   15 ------- 9 ------------------- 7 ------- 6       polygons (XZ), y in brackets:
///        |   L2b   |     R (3 -> 0)      |   Lb    |         F  = [0 1 2 3]       (0)
///  z 2   14 ----- 8/3 ------------------ 2/12 ----- 5        La = [1 4 5 2], Lb = [2 5 6 7]
///        |   L2a   |   F (0) under U (3)  |   La    |        R  = [8 2 7 9]       (3 at x=0, 0 at x=10)
///  z 0   13 ----- 10/0 ----------------- 1/11 ----- 4        U  = [10 11 12 8]    (3)
///       x -2       0                     10        12        L2a = [13 10 8 14], L2b = [14 8 9 15] (3)
/// ```
fn switchback() -> NavMesh {
    let v = vec![
        [0., 0., 0.],
        [10., 0., 0.],
        [10., 0., 2.],
        [0., 0., 2.],
        [12., 0., 0.],
        [12., 0., 2.],
        [12., 0., 4.],
        [10., 0., 4.],
        [0., 3., 2.],
        [0., 3., 4.],
        [0., 3., 0.],
        [10., 3., 0.],
        [10., 3., 2.],
        [-2., 3., 0.],
        [-2., 3., 2.],
        [-2., 3., 4.],
    ];
    mesh(
        v,
        &[
            &[0, 1, 2, 3],
            &[1, 4, 5, 2],
            &[2, 5, 6, 7],
            &[8, 2, 7, 9],
            &[10, 11, 12, 8],
            &[13, 10, 8, 14],
            &[14, 8, 9, 15],
        ],
    )
}

const F: u32 = 0;
const LA: u32 = 1;
const LB: u32 = 2;
const R: u32 = 3;
const U: u32 = 4;
const L2B: u32 = 6;

fn pt(polygon: u32, x: f64, z: f64) -> End {
    End::Point { polygon, at: [x, z] }
}

fn assert_len(o: &mut LayeredOracle, s: End, g: End, want: f64, turns: &[u32]) {
    let got = o.shortest(s, g).unwrap_or_else(|| panic!("{s:?} -> {g:?}: unreachable"));
    assert!((got.length - want).abs() <= 1e-12 * want, "{s:?} -> {g:?}: {got:?}, want {want}");
    assert_eq!(got.turns, turns, "{s:?} -> {g:?}");
    let back = o.shortest(g, s).expect("reachable both ways");
    assert!((back.length - want).abs() <= 1e-12 * want, "{g:?} -> {s:?}: {back:?}");
}

#[test]
fn the_switchback_keeps_its_floors_apart() {
    let m = switchback();
    let mut o = LayeredOracle::new(&m);
    // The two slit corners where the ramp meets the floor and the deck, and the corners of the
    // landings' outer sides are not turning vertices (convex).
    assert_eq!(o.nodes(), &[2, 8]);
    let s26 = 26f64.sqrt();
    // Floor to the deck right above: along the ramp's south wall.
    assert_len(&mut o, pt(F, 5., 1.), pt(U, 5., 1.), 2. * s26 + 10., &[2, 8]);
    assert_len(&mut o, pt(F, 5., 1.), pt(LB, 11., 3.), s26 + 2f64.sqrt(), &[2]);
    assert_len(&mut o, pt(U, 5., 1.), pt(LB, 11., 3.), s26 + 122f64.sqrt(), &[8]);
    assert_len(&mut o, pt(U, 5., 1.), pt(F, 7., 1.), s26 + 10. + 10f64.sqrt(), &[8, 2]);
    // Same XZ point, other floor: not the same place.
    assert!(!o.sees(pt(F, 5., 1.), pt(U, 5., 1.)));
    assert!(o.sees(pt(F, 5., 1.), pt(F, 5., 1.)));
    assert!(o.sees(pt(F, 1., 1.), pt(F, 9., 1.)));
    assert!(!o.sees(pt(R, 1., 3.), pt(U, 1., 1.)), "through the ramp's wall");
    assert!(!o.sees(pt(F, 2., 1.), pt(LB, 11., 3.5)), "through the floor's wall");
    // Exactly through vertex 2 (the slit corner), from the floor into the upper landing half,
    // and from the ramp into the lower one: every polygon around the vertex continues.
    assert!(o.sees(pt(F, 9., 1.), pt(LB, 11., 3.)));
    assert!(o.sees(pt(R, 9., 3.), pt(LA, 11., 1.)));
    assert!(o.sees(pt(R, 8., 3.), pt(LA, 12., 1.)));
    // Along two portals (ramp | upper landing half, floor | lower landing half) through vertex 2.
    assert!(o.sees(pt(LB, 10., 3.), pt(LA, 10., 1.)));
    assert!(o.sees(pt(R, 10., 3.5), pt(F, 10., 0.5)));
    // Not through a convex corner into the upper landing beyond it (another floor, joined to
    // the floor's corner by no vertex), nor through a wall.
    assert!(!o.sees(pt(F, 1., 1.), pt(L2B, -1., 3.)));
    assert!(!o.sees(pt(R, 9., 3.), pt(F, 9.5, 1.5)));
    // Along the ramp's wall, from corner to corner (the deck's and floor's walls lie below and
    // above it in XZ: another floor, never entered).
    assert!(o.sees(End::Vertex(2), End::Vertex(8)));
    assert!(o.sees(End::Vertex(3), End::Vertex(2)), "along the floor's own wall");
    assert!(!o.sees(End::Vertex(12), End::Vertex(2)), "deck corner to the floor corner below it");
    // A point on a portal or at a vertex is held by every polygon there.
    assert_eq!(o.holders(pt(F, 10., 1.)), vec![F, LA]);
    let mut at_vertex = o.holders(pt(R, 10., 2.));
    at_vertex.sort();
    assert_eq!(at_vertex, vec![F, LA, LB, R]);
}

/// Two unit squares touching only at vertex 2 (a pinch), and a third square stacked over the
/// second one with its own vertices (another floor at the same XZ).
#[test]
fn pinches_connect_and_stacked_copies_do_not() {
    let v = vec![
        [0., 0., 0.],
        [1., 0., 0.],
        [1., 0., 1.],
        [0., 0., 1.],
        [2., 0., 1.],
        [2., 0., 2.],
        [1., 0., 2.],
        [1., 5., 1.],
        [2., 5., 1.],
        [2., 5., 2.],
        [1., 5., 2.],
    ];
    let m = mesh(v, &[&[0, 1, 2, 3], &[2, 4, 5, 6], &[7, 8, 9, 10]]);
    let mut o = LayeredOracle::new(&m);
    assert_eq!(o.nodes(), &[2], "the pinch vertex");
    assert_len(&mut o, pt(0, 0.5, 0.5), pt(1, 1.5, 1.5), 2f64.sqrt(), &[]);
    let want = 0.8f64.hypot(0.5) + 0.5f64.hypot(0.8);
    assert_len(&mut o, pt(0, 0.2, 0.5), pt(1, 1.5, 1.8), want, &[2]);
    assert_eq!(o.shortest(pt(0, 0.5, 0.5), pt(2, 1.5, 1.5)), None);
    assert_eq!(o.shortest(pt(1, 1.5, 1.5), pt(2, 1.5, 1.5)), None);
    assert!(o.sees(pt(2, 1.2, 1.9), pt(2, 1.9, 1.1)));
}

/// Random pairs on random grids: the same lengths as the single-layer oracle (two independent
/// programs), alone and with a copy of the grid stacked above it (never reachable from below).
#[test]
fn single_layer_grids_agree_with_the_plane_oracle() {
    let mut compared = 0;
    for (seed, triangulate) in [(1, false), (2, true), (3, true), (4, false)] {
        let spec = |y: f64, layer: u16| GridSpec {
            cols: 7,
            rows: 6,
            origin: [0., y, 0.],
            blocked: random_blocked(7, 6, 0.3, seed),
            triangulate,
            jitter: if triangulate { 0.2 } else { 0.0 },
            seed,
            layer,
            ..GridSpec::default()
        };
        let plane = QueryMesh::new(NavMesh::new(spec(0., 0).build()).unwrap());
        let truth = Oracle::new(&plane, Visibility::OpenSegment);
        let stacked = NavMesh::new(combine(spec(0., 0).build(), spec(4., 1).build())).unwrap();
        let top = plane.mesh().polygon_count() as u32;
        let mut alone = LayeredOracle::new(plane.mesh());
        let mut both = LayeredOracle::new(&stacked);
        let mut rng = SplitMix64::new(seed);
        let verts = plane.mesh().vertices();
        let end = |rng: &mut SplitMix64| {
            let l = plane.random_point(rng).unwrap();
            // Every third end a vertex of the located polygon (exact degenerate cases).
            if rng.next_u64().is_multiple_of(3) {
                let ring = plane.mesh().polygon(l.polygon as usize).vertices;
                let v = verts[ring[(rng.next_u64() % ring.len() as u64) as usize] as usize];
                (l.polygon, [v[0], v[2]])
            } else {
                (l.polygon, [l.point[0], l.point[2]])
            }
        };
        for _ in 0..150 {
            let ((sp, s), (gp, g)) = (end(&mut rng), end(&mut rng));
            let want = truth.shortest(s, g);
            let got = alone.shortest(pt(sp, s[0], s[1]), pt(gp, g[0], g[1])).map(|p| p.length);
            match (want, got) {
                (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-12 * (1. + a), "{s:?} -> {g:?}: {a} vs {b}"),
                (a, b) => assert_eq!(a, b, "{s:?} -> {g:?}"),
            }
            let up = both.shortest(pt(sp + top, s[0], s[1]), pt(gp + top, g[0], g[1])).map(|p| p.length);
            assert_eq!(up, got, "{s:?} -> {g:?} on the upper copy");
            assert_eq!(both.shortest(pt(sp, s[0], s[1]), pt(gp + top, g[0], g[1])), None);
            compared += 1;
        }
    }
    assert_eq!(compared, 600);
}
