//! Query tests: geometric invariants on many random queries, checked against brute-force
//! oracles written independently of the query code (naive visibility graph + Dijkstra for
//! shortest lengths, Dijkstra over the midpoint graph for A* optimality, linear scans for point
//! location).

use super::chains::DEAD_END;
use super::*;
use crate::asset::{AreaType, NavMesh};
use crate::geom::orient2d;
use crate::oracle::{Oracle, Visibility};
use crate::testmesh::{check_path_in_corridor, combine, corridor_portals as corridor_portal, random_blocked};
use crate::testmesh::{segments_intersect, GridSpec};
use std::collections::BTreeSet;

mod direct;
mod fuzz;
mod links;
mod location;
mod midpoint;
mod paths;
mod random_points;
mod rays;
mod shortest;
mod string_pull;
mod visibility;

fn query_mesh(data: crate::asset::NavMeshData) -> QueryMesh {
    QueryMesh::new(NavMesh::new(data).expect("test mesh is valid"))
}

/// Panics unless the path lies in its corridor ([`check_path_in_corridor`]).
fn assert_path_in_corridor(mesh: &QueryMesh, path: &Path) {
    if let Err(e) = check_path_in_corridor(mesh, path) {
        panic!("{e}");
    }
}

struct Styled {
    midpoints: Path,
    meadow: Path,
    /// String pulled on the A* corridor, without shortcuts.
    pulled: Path,
    /// The default: string pulled with corridor shortcuts.
    funnel: Path,
}

fn all_styles(q: &mut PathQuery, mesh: &QueryMesh, s: [f64; 3], g: [f64; 3]) -> Result<Styled, PathError> {
    let filter = QueryFilter::new();
    let mut run = |style, shortcuts| {
        let mut p = Path::default();
        q.find_path_into(mesh, s, g, &filter, PathOptions { style, allow_partial: false, shortcuts }, &mut p).map(|_| p)
    };
    Ok(Styled {
        midpoints: run(PathStyle::Midpoints, true)?,
        meadow: run(PathStyle::MeadowRefined, true)?,
        pulled: run(PathStyle::StringPulled, false)?,
        funnel: run(PathStyle::StringPulled, true)?,
    })
}

/// Mean relative excess over the true shortest length of the default paths (with shortcuts)
/// and of the plain string-pulled A* corridor, and the number of paths found.
struct Excess {
    funnel: f64,
    pulled: f64,
    found: usize,
}

/// Runs `pairs` random queries on a mesh and checks every invariant.
fn check_random_paths(mesh: &QueryMesh, pairs: usize, seed: u64, exact_midpoints: bool, max_excess: f64) -> Excess {
    let oracle = Oracle::new(mesh, Visibility::ClosedSegment);
    let mut rng = SplitMix64::new(seed);
    let mut q = PathQuery::new(mesh);
    let (mut excess_sum, mut pulled_sum, mut found) = (0.0, 0.0, 0);
    for _ in 0..pairs {
        let s = mesh.random_point(&mut rng).unwrap();
        let g = mesh.random_point(&mut rng).unwrap();
        let truth = oracle.shortest(xz(s.point), xz(g.point));
        let styled = match all_styles(&mut q, mesh, s.point, g.point) {
            Ok(p) => p,
            Err(e) => {
                assert_eq!(e, PathError::Unreachable);
                assert_eq!(truth, None, "A* found no path but the oracle did");
                continue;
            }
        };
        let truth = truth.expect("A* found a path but the oracle did not");
        found += 1;
        for p in [&styled.midpoints, &styled.meadow, &styled.pulled, &styled.funnel] {
            assert_eq!(p.points.first(), Some(&s.point));
            assert_eq!(p.points.last(), Some(&g.point));
            assert!((p.length - polyline_length(&p.points)).abs() <= 1e-12 * (1.0 + p.length));
        }
        for p in [&styled.meadow, &styled.pulled] {
            assert_eq!(p.corridor, styled.midpoints.corridor, "styles share the A* corridor");
        }
        assert_path_in_corridor(mesh, &styled.funnel);
        assert_path_in_corridor(mesh, &styled.pulled);
        if exact_midpoints {
            assert_path_in_corridor(mesh, &styled.meadow);
            assert_path_in_corridor(mesh, &styled.midpoints);
        }
        let tol = 1e-9 * (1.0 + styled.midpoints.length);
        let straight = dist3(s.point, g.point);
        assert!(styled.funnel.length <= styled.pulled.length + tol, "shortcuts lengthened the path");
        assert!(
            styled.pulled.length <= styled.meadow.length + tol,
            "funnel {} > meadow {}",
            styled.pulled.length,
            styled.meadow.length
        );
        assert!(styled.meadow.length <= styled.midpoints.length + tol);
        assert!(styled.funnel.length >= straight - tol);
        assert!(
            styled.funnel.length >= truth - tol,
            "funnel {} shorter than the true shortest {truth}",
            styled.funnel.length
        );
        let excess = (styled.funnel.length - truth) / truth.max(1e-12);
        assert!(excess <= max_excess, "funnel {} exceeds shortest {truth} by {excess}", styled.funnel.length);
        excess_sum += excess;
        pulled_sum += (styled.pulled.length - truth) / truth.max(1e-12);
    }
    let n = found.max(1) as f64;
    Excess { funnel: excess_sum / n, pulled: pulled_sum / n, found }
}

/// Per-cell areas of a `cols` × `rows` grid: area 1 in the columns `band`, area 0 elsewhere.
fn area_band(cols: usize, rows: usize, band: std::ops::Range<usize>) -> Vec<u16> {
    (0..cols * rows).map(|cell| u16::from(band.contains(&(cell % cols)))).collect()
}

/// Grid cells merged into random rectangles of up to 4 × 3 cells (so polygons have collinear
/// vertices along every side), sheared by an exact factor and moved away from the origin.
fn merged_rectangles(cols: usize, rows: usize, seed: u64, shear: f64, origin: [f64; 2]) -> crate::asset::NavMeshData {
    let mut rng = SplitMix64::new(seed);
    let blocked = random_blocked(cols, rows, 0.15, seed + 1000);
    let mut taken = vec![false; cols * rows];
    let mut rects: Vec<(usize, usize, usize, usize)> = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            if taken[r * cols + c] || blocked[r * cols + c] {
                continue;
            }
            let (mut w, mut h) = (1 + (rng.next_f64() * 4.0) as usize, 1 + (rng.next_f64() * 3.0) as usize);
            // At most 12 vertices per polygon: 2 (w + h) <= 12.
            if w + h > 6 {
                w = 6 - h;
            }
            let free = |w: usize, h: usize, taken: &[bool]| {
                c + w <= cols
                    && r + h <= rows
                    && (0..h).all(|dr| {
                        (0..w).all(|dc| !taken[(r + dr) * cols + c + dc] && !blocked[(r + dr) * cols + c + dc])
                    })
            };
            while !free(w, h, &taken) {
                if w > 1 {
                    w -= 1
                } else {
                    h -= 1
                }
            }
            for dr in 0..h {
                for dc in 0..w {
                    taken[(r + dr) * cols + c + dc] = true;
                }
            }
            rects.push((c, r, w, h));
        }
    }
    let vid = |c: usize, r: usize| (r * (cols + 1) + c) as u32;
    let mut vertices = Vec::new();
    for r in 0..=rows {
        for c in 0..=cols {
            vertices.push([origin[0] + c as f64 + shear * r as f64, 0.0, origin[1] + r as f64]);
        }
    }
    let rings: Vec<(Vec<u32>, u16)> = rects
        .iter()
        .map(|&(c, r, w, h)| {
            let mut ring: Vec<u32> = (0..w).map(|i| vid(c + i, r)).collect();
            ring.extend((0..h).map(|j| vid(c + w, r + j)));
            ring.extend((0..w).map(|i| vid(c + w - i, r + h)));
            ring.extend((0..h).map(|j| vid(c, r + h - j)));
            (ring, 0u16)
        })
        .collect();
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    crate::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, areas, 0)
}
