//! Where a path query spends its time on the real levels: locate, search + string pulling,
//! and the shortcut pass (straight-segment check, re-routing), as medians over seeded random
//! pairs (release build).

use meadow::query::{Path, PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh};
use meadow::BakeSettings;
use meadow_bake::{ingest, NoProgress};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN) * 1e6
}

fn main() {
    let levels = meadow_bench::query_levels();
    println!("| level | polygons | locate ×2 µs | midpoints µs | funnel µs | funnel + shortcuts µs | search nodes |");
    println!("|---|---|---|---|---|---|---|");
    for path in levels {
        let Ok(scene) = ingest::ingest_file(&path, &mut NoProgress) else {
            println!("| {} | missing |", path.display());
            continue;
        };
        let Ok(nav) = meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress) else { continue };
        let mesh = QueryMesh::new(nav);
        let pairs = meadow_bench::seeded_pairs(&mesh, 1000);
        let filter = QueryFilter::new();
        let mut query = PathQuery::new(&mesh);
        let mut out = Path::default();
        let mut times = [vec![], vec![], vec![], vec![]];
        let mut nodes = 0;
        for round in 0..2 {
            for &(a, b) in &pairs {
                let t = Instant::now();
                let la = mesh.locate(a);
                let lb = mesh.locate(b);
                std::hint::black_box((la.is_ok(), lb.is_ok()));
                if round == 1 {
                    times[0].push(t.elapsed().as_secs_f64());
                }
                for (k, (style, shortcuts)) in
                    [(PathStyle::Midpoints, false), (PathStyle::StringPulled, false), (PathStyle::StringPulled, true)]
                        .into_iter()
                        .enumerate()
                {
                    let options = PathOptions { style, allow_partial: false, shortcuts };
                    let t = Instant::now();
                    let r = query.find_path_into(&mesh, a, b, &filter, options, &mut out);
                    std::hint::black_box(r.is_ok());
                    if round == 1 {
                        times[k + 1].push(t.elapsed().as_secs_f64());
                        if k == 0 {
                            nodes += query.last_search_size();
                        }
                    }
                }
            }
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let [t0, t1, t2, t3] = times;
        println!(
            "| {name} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
            mesh.mesh().polygon_count(),
            median(t0),
            median(t1),
            median(t2),
            median(t3),
            nodes as f64 / pairs.len() as f64
        );
    }
}
