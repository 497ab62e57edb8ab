use meadow_bake::*;
fn main() {
    for p in std::env::args().skip(1) {
        let t = std::time::Instant::now();
        let scene = match ingest::ingest_file(p.as_ref(), &mut NoProgress) {
            Ok(s) => s,
            Err(e) => {
                println!("{p}: {e}");
                continue;
            }
        };
        let t1 = t.elapsed().as_secs_f64();
        let c = classify::classify(&scene, 45.0);
        let r = region::build_regions(&c, &region::RegionParams::from(&BakeSettings::DEFAULT), &mut NoProgress);
        let t2 = t.elapsed().as_secs_f64();
        match r {
            Ok(r) => {
                let polys: usize = r.areas.iter().map(|a| a.polygons.len()).sum();
                let verts: usize = r
                    .areas
                    .iter()
                    .flat_map(|a| &a.polygons)
                    .map(|p| p.outer.len() + p.holes.iter().map(|h| h.len()).sum::<usize>())
                    .sum();
                let area: f64 = r.areas.iter().flat_map(|a| &a.polygons).map(|p| p.area()).sum();
                println!("{p}: tris {} walk {} block {} | polys {polys} ring verts {verts} area {area:.1} blockers {} walls {} overlaps {} | ingest {t1:.3}s region {:.3}s", scene.triangles.len(), c.walkable.len(), c.blocking.len(), r.blocker_count, r.wall_count, r.overlaps.len(), t2 - t1);
            }
            Err(e) => println!("{p}: region error {e}"),
        }
    }
}
