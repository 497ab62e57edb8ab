//! Meadow's exact shortest paths against the `polyanya` crate (0.18, pure Rust, any-angle and
//! optimal on navigation meshes), on the same polygons and the same seeded start/goal pairs.
//!
//! The levels: Polyanya's own meshes from `../shared/levels/polyanya` (read by Meadow's importer
//! and by the crate's own reader, so each side parses the file itself), and the glTF and Recast
//! levels of `../shared/levels` baked by Meadow and handed to the crate as Meadow's polygons
//! (XZ, shifted to the centre of the level before rounding to the crate's `f32`). Polyanya is 2D:
//! where polygons of different layers overlap in XZ (floors above one another), the crate reads a
//! point under another floor as on both and answers from either, so on such levels only the
//! pairs whose two ends lie in exactly one polygon in XZ are compared (the tables say how many).
//!
//! Per level it prints the median time per query, over the pairs both found, of Meadow exact over
//! the baked visibility graph, Meadow exact by search, Meadow `find_path`, and the crate's
//! `Mesh::path`; the largest relative difference between Meadow's exact length and the crate's;
//! and a second table with the visibility graph's size and build time.
//!
//! Run with `cargo run --release -p meadow-bench --features polyanya --bin vs_polyanya [-- PAIRS]`.

#[cfg(not(feature = "polyanya"))]
fn main() {
    eprintln!("vs_polyanya needs the polyanya crate: run with `--features polyanya`");
    std::process::exit(2);
}

#[cfg(feature = "polyanya")]
fn main() {
    bench::run();
}

#[cfg(feature = "polyanya")]
mod bench {
    use meadow::query::{Path as MeadowPath, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
    use meadow::{BakeSettings, EdgeLink, NavMesh, NavMeshData};
    use meadow_bake::import::polyanya as import;
    use polyanya::{Coords, Mesh as PolyMesh, PolyanyaFile, Polygon, Vertex};
    use std::path::{Path, PathBuf};
    use std::time::Instant;

    /// Timed passes over the pairs; each pair keeps its fastest time per contestant.
    const ROUNDS: usize = 3;

    /// One level as both sides see it.
    struct Level {
        name: String,
        nav: NavMesh,
        /// The crate's mesh and the XZ offset subtracted from Meadow's coordinates for it, or
        /// why the level cannot be handed to the crate.
        poly: Result<(PolyMesh, [f64; 2]), String>,
        /// Whether polygons of different layers overlap in XZ.
        overlaps: bool,
    }

    fn shared() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels")
    }

    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            f64::NAN
        } else {
            v[v.len() / 2] * 1e6
        }
    }

    /// XZ length of a polyline.
    fn flat(points: &[[f64; 3]]) -> f64 {
        points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum()
    }

    /// Whether two polygons of different layers overlap in XZ by more than `slack` (separating
    /// axes over both polygons' edge normals).
    fn overlapping_layers(nav: &NavMesh, slack: f64) -> Option<(usize, usize)> {
        let n = nav.polygon_count();
        let rings: Vec<Vec<[f64; 2]>> = (0..n).map(|i| nav.polygon_points(i).collect()).collect();
        let boxes: Vec<[f64; 4]> = rings
            .iter()
            .map(|r| {
                r.iter().fold([f64::MAX, f64::MAX, f64::MIN, f64::MIN], |b, p| {
                    [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])]
                })
            })
            .collect();
        let separated = |a: &[[f64; 2]], b: &[[f64; 2]]| {
            a.iter().zip(a.iter().cycle().skip(1)).any(|(p, q)| {
                let axis = [q[1] - p[1], p[0] - q[0]];
                let len = axis[0].hypot(axis[1]);
                let proj = |r: &[[f64; 2]]| {
                    r.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
                        let d = (v[0] * axis[0] + v[1] * axis[1]) / len;
                        (lo.min(d), hi.max(d))
                    })
                };
                let (a0, a1) = proj(a);
                let (b0, b1) = proj(b);
                a1 <= b0 + slack || b1 <= a0 + slack
            })
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| boxes[i][0].total_cmp(&boxes[j][0]));
        for (k, &i) in order.iter().enumerate() {
            for &j in &order[k + 1..] {
                if boxes[j][0] >= boxes[i][2] - slack {
                    break;
                }
                let disjoint_z = boxes[j][1] >= boxes[i][3] - slack || boxes[i][1] >= boxes[j][3] - slack;
                if disjoint_z || nav.polygon(i).layer == nav.polygon(j).layer {
                    continue;
                }
                if !separated(&rings[i], &rings[j]) && !separated(&rings[j], &rings[i]) {
                    return Some((i, j));
                }
            }
        }
        None
    }

    /// Meadow's polygons as the crate's mesh, shifted by `-offset` in XZ.
    ///
    /// The crate finds the polygon across an edge as the other polygon holding both its
    /// vertices, and walls from the vertices' "outside" marks. Meadow's polygons can share two
    /// vertices without a portal between them (a wall where two layers meet at a drop, a
    /// T-junction), so each vertex is given one index per fan of polygons joined through portals
    /// around it: two polygons then share a vertex only where Meadow connects them.
    fn to_polyanya(nav: &NavMesh, offset: [f64; 2]) -> Result<PolyMesh, String> {
        let d: &NavMeshData = nav.data();
        let first: Vec<usize> = d.polygons.iter().map(|p| p.first as usize).collect();
        let mut parent: Vec<usize> = (0..d.polygon_vertices.len()).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for (i, p) in nav.polygons().enumerate() {
            let n = p.vertices.len();
            for (k, link) in p.links.iter().enumerate() {
                let EdgeLink::Polygon(q) = *link else { continue };
                let qv = nav.polygon(q as usize).vertices;
                for s in [k, (k + 1) % n] {
                    if let Some(j) = qv.iter().position(|&w| w == p.vertices[s]) {
                        let (a, b) = (root(&mut parent, first[i] + s), root(&mut parent, first[q as usize] + j));
                        parent[a] = b;
                    }
                }
            }
        }
        let mut index = vec![u32::MAX; parent.len()];
        let mut coords = Vec::new();
        let mut around: Vec<Vec<u32>> = Vec::new();
        let mut polygons = Vec::with_capacity(d.polygons.len());
        for (i, p) in nav.polygons().enumerate() {
            let n = p.vertices.len();
            let ids: Vec<u32> = (0..n)
                .map(|s| {
                    let r = root(&mut parent, first[i] + s);
                    if index[r] == u32::MAX {
                        index[r] = coords.len() as u32;
                        coords.push(d.vertices[p.vertices[s] as usize]);
                        around.push(Vec::new());
                    }
                    index[r]
                })
                .collect();
            for k in 0..n {
                around[ids[k] as usize].push(i as u32);
                if p.links[k] == EdgeLink::Wall {
                    around[ids[k] as usize].push(u32::MAX);
                    around[ids[(k + 1) % n] as usize].push(u32::MAX);
                }
            }
            let neighbours = p.links.iter().filter(|l| matches!(l, EdgeLink::Polygon(_))).count();
            polygons.push(Polygon::new(ids, neighbours == 1));
        }
        let vertices = coords
            .iter()
            .zip(around)
            .map(|(v, mut ps)| {
                ps.sort_unstable();
                ps.dedup();
                Vertex::new([(v[0] - offset[0]) as f32, (v[2] - offset[1]) as f32].into(), ps)
            })
            .collect();
        PolyMesh::new(vertices, polygons).map_err(|e| format!("the crate refuses the mesh: {e}"))
    }

    fn levels() -> Vec<Level> {
        let mut out = Vec::new();
        for file in ["arena.mesh", "arena-merged.mesh", "aurora.mesh", "aurora-merged.mesh", "scene_mp_2p_01.mesh"] {
            let path = shared().join("polyanya").join(file);
            let nav = match import::import_file(&path, &import::import_settings()) {
                Ok(n) => n,
                Err(e) => {
                    println!("{file}: Meadow's import failed: {e}");
                    continue;
                }
            };
            let poly = PolyMesh::try_from(PolyanyaFile::from_file(&path.to_string_lossy()))
                .map(|m| (m, [0.0, 0.0]))
                .map_err(|e| e.to_string());
            out.push(Level { name: file.to_string(), nav, poly, overlaps: false });
        }
        let mut gltf: Vec<PathBuf> = ["gltf", "recast"]
            .iter()
            .filter_map(|dir| std::fs::read_dir(shared().join(dir)).ok())
            .flat_map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect::<Vec<_>>())
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")))
            .collect();
        gltf.sort();
        for path in gltf {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
            let nav = match meadow_bake::bake_file(&path, &BakeSettings::DEFAULT) {
                Ok(n) => n,
                Err(e) => {
                    println!("{name}: Meadow's bake failed: {e}");
                    continue;
                }
            };
            let overlaps = overlapping_layers(&nav, 1e-6).is_some();
            let poly = match nav.bounds() {
                None => Err("empty".into()),
                Some((lo, hi)) => {
                    let offset = [((lo[0] + hi[0]) * 0.5).round(), ((lo[2] + hi[2]) * 0.5).round()];
                    to_polyanya(&nav, offset).map(|m| (m, offset))
                }
            };
            out.push(Level { name, nav, poly, overlaps });
        }
        out
    }

    pub fn run() {
        let pairs_wanted: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
        let levels = levels();
        println!("\n## Visibility graph\n");
        println!("| level | polygons | corners | edges (undirected) | graph bytes | asset bytes without | build ms |");
        println!("|---|---|---|---|---|---|---|");
        for l in &levels {
            let without = NavMesh::new(NavMeshData { visibility: None, ..l.nav.data().clone() }).expect("valid");
            let t = Instant::now();
            let graph = meadow_bake::visibility::build_visibility(&without);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let bytes_without = without.to_bytes().len();
            println!(
                "| {} | {} | {} | {} | {} | {} | {ms:.1} |",
                l.name,
                l.nav.polygon_count(),
                graph.node_count(),
                graph.edge_count() / 2,
                l.nav.to_bytes().len() - bytes_without,
                bytes_without,
            );
        }
        println!("\n## Query times (median µs per query over the pairs both found; {pairs_wanted} seeded pairs)\n");
        println!(
            "| level | pairs compared | both found | only Meadow | only polyanya | by graph | Meadow graph | \
             Meadow search | Meadow find_path | polyanya | graph / polyanya | search / polyanya | \
             max rel. length diff M/P | pairs > 1e-4 apart: Meadow shorter / polyanya shorter | max rel. graph/search |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        let mut notes = Vec::new();
        for l in levels {
            let (poly, offset) = match l.poly {
                Ok(p) => p,
                Err(e) => {
                    println!("| {} | skipped: {e} |", l.name);
                    continue;
                }
            };
            let mesh = QueryMesh::new(l.nav);
            let mut pairs = meadow_bench::seeded_pairs(&mesh, pairs_wanted);
            let drawn = pairs.len();
            if l.overlaps {
                let single = |p: [f64; 3]| {
                    (0..mesh.mesh().polygon_count()).filter(|&i| mesh.polygon_contains(i as u32, [p[0], p[2]])).count()
                        == 1
                };
                pairs.retain(|&(a, b)| single(a) && single(b));
            }
            let filter = QueryFilter::new().without_links();
            let by_graph = if ShortestPathQuery::answers_by_graph(&mesh, &filter) { "yes" } else { "no" };
            let mut sq = ShortestPathQuery::new(&mesh);
            sq.use_visibility_graph(true);
            let mut pq = PathQuery::new(&mesh);
            let mut out = MeadowPath::default();
            let to2 = |p: [f64; 3]| Coords::on_mesh([(p[0] - offset[0]) as f32, (p[2] - offset[1]) as f32].into());
            let n = pairs.len();
            // Round 0 records the answers untimed (and warms up); then each contestant answers
            // all pairs in turn, ROUNDS times.
            let mut meadow_len = vec![None; n];
            let mut poly_len = vec![None; n];
            let mut graph_search = 0.0f64;
            let mut best = vec![[f64::INFINITY; 4]; n];
            for round in 0..=ROUNDS {
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    let t = Instant::now();
                    let r = sq.find_shortest_path(&mesh, a, b, &filter);
                    let dt = t.elapsed().as_secs_f64();
                    if round == 0 {
                        meadow_len[i] = r.ok().map(|p| flat(&p.points));
                    }
                    best[i][0] = best[i][0].min(dt);
                }
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    let t = Instant::now();
                    let r = sq.find_shortest_path_by_search(&mesh, a, b, &filter);
                    let dt = t.elapsed().as_secs_f64();
                    if round == 0 {
                        if let (Ok(p), Some(g)) = (r, meadow_len[i]) {
                            let s = flat(&p.points);
                            graph_search = graph_search.max((g - s).abs() / s.max(1e-12));
                        }
                    }
                    best[i][1] = best[i][1].min(dt);
                }
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    let t = Instant::now();
                    let _ = pq.find_path_into(&mesh, a, b, &filter, PathOptions::default(), &mut out);
                    best[i][2] = best[i][2].min(t.elapsed().as_secs_f64());
                }
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    let (from, to) = (to2(a), to2(b));
                    let t = Instant::now();
                    let r = poly.path(from, to);
                    let dt = t.elapsed().as_secs_f64();
                    if round == 0 {
                        poly_len[i] = r.map(|p| p.length as f64);
                    }
                    best[i][3] = best[i][3].min(dt);
                }
            }
            let (mut both, mut only_m, mut only_p) = (0, 0, 0);
            let mut times: [Vec<f64>; 4] = Default::default();
            let (mut max_rel, mut worst) = (0.0f64, None);
            let (mut m_shorter, mut p_shorter) = (0, 0);
            let (mut p_gain, mut p_worst) = (0.0f64, None);
            for i in 0..n {
                match (meadow_len[i], poly_len[i]) {
                    (Some(m), Some(p)) => {
                        both += 1;
                        for (k, t) in times.iter_mut().enumerate() {
                            t.push(best[i][k]);
                        }
                        let rel = (m - p).abs() / m.max(1e-9);
                        if rel > 1e-4 {
                            if m < p {
                                m_shorter += 1;
                            } else {
                                p_shorter += 1;
                            }
                        }
                        if m - p > p_gain {
                            p_gain = m - p;
                            p_worst = Some((pairs[i], m, p));
                        }
                        if rel > max_rel {
                            max_rel = rel;
                            worst = Some((pairs[i], m, p));
                        }
                    }
                    (Some(_), None) => only_m += 1,
                    (None, Some(_)) => only_p += 1,
                    (None, None) => {}
                }
            }
            let [g, s, f, p] = times.map(|mut t| median(&mut t));
            println!(
                "| {} | {}{} | {both} | {only_m} | {only_p} | {by_graph} | {g:.1} | {s:.1} | {f:.1} | {p:.1} | {:.2} | {:.2} \
                 | {max_rel:.1e} | {m_shorter} / {p_shorter} | {graph_search:.1e} |",
                l.name,
                pairs.len(),
                if l.overlaps { format!(" of {drawn} (ends under no other floor)") } else { String::new() },
                g / p,
                s / p
            );
            if let Some(((a, b), m, p)) = worst {
                notes.push(format!("{}: largest difference at {a:?} -> {b:?}: Meadow {m}, polyanya {p}", l.name));
            }
            if let Some(((a, b), m, p)) = p_worst.filter(|&(_, m, p)| (m - p) / m > 1e-4) {
                notes.push(format!(
                    "{}: polyanya shortest against Meadow at {a:?} -> {b:?}: Meadow {m}, polyanya {p}",
                    l.name
                ));
            }
        }
        println!();
        for n in notes {
            println!("- {n}");
        }
    }
}
