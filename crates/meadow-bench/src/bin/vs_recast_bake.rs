//! Meadow's bake against Recast's, side by side: per level (every glTF level in
//! `../shared/levels/gltf` and `../shared/levels/recast`), the median over several bakes of the
//! same ingested scene, all in one process run, of Meadow's bake (`meadow_bake::bake`, default
//! settings, which are Recast's demo agent: radius 0.6, height 2, climb 0.9, slope 45°) on one
//! rayon thread and on all cores, and of Recast's solo-mesh bake (RecastDemo's pipeline up to the
//! Detour navmesh, cell height 0.2) at cell size 0.3 and 0.1, with the same agent; where a solo
//! mesh fails (more than 65,535 vertices), RecastDemo's tiled pipeline with 64-cell tiles,
//! marked "(tiled)" beside its polygon count. The four
//! bakes take turns within each round, so a change of machine load spreads over all of them.
//! Ingesting the file is timed for neither.
//!
//! Peak memory: a process's peak resident size only grows, so each kind of bake runs once more
//! in a child process of this binary (`vs_recast_bake --one LEVEL KIND`), which ingests the
//! level, resets the kernel's high-water mark to the current resident size (writing `5` to
//! `/proc/self/clear_refs`), bakes once and prints `VmHWM` from `/proc/self/status`. The figure
//! is the child's whole resident peak during the bake: the ingested scene and the program are
//! in it, the ingest's own transient peak is not. Where the reset is refused the figure
//! includes the ingest and is marked with `*`.
//!
//! Run with `RECAST_VENDOR=true cargo run --release -p meadow-bench --features detour --bin
//! vs_recast_bake [-- --runs N] [--tile-size T] [LEVEL...]` (levels named replace the shared
//! ones; `--tile-size` bakes Meadow in tiles of T metres). Timings on a shared machine are noisy: compare the ratios
//! within one run rather than times across runs.

#[cfg(not(feature = "detour"))]
fn main() {
    eprintln!(
        "vs_recast_bake needs Recast: run `RECAST_VENDOR=true cargo run --release -p meadow-bench --features detour \
         --bin vs_recast_bake` (needs cmake, libclang-dev and a C++ compiler)"
    );
    std::process::exit(2);
}

#[cfg(feature = "detour")]
fn main() {
    if let Err(e) = bench::run() {
        eprintln!("vs_recast_bake: {e}");
        std::process::exit(1);
    }
}

#[cfg(feature = "detour")]
mod bench {
    use meadow::BakeSettings;
    use meadow_bake::ingest::{self, Scene};
    use meadow_bake::NoProgress;
    use meadow_bench::detour::{DetourMesh, RecastSettings};
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::time::Instant;

    /// The kinds of bake compared, as named on a child's command line.
    const KINDS: [&str; 4] = ["meadow-1t", "meadow-nt", "recast-0.3", "recast-0.1"];

    type Error = Box<dyn std::error::Error>;

    /// The levels: every glTF level of the shared game and RecastDemo folders, sorted.
    fn levels() -> (PathBuf, Vec<PathBuf>) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels");
        let mut files: Vec<PathBuf> = ["gltf", "recast"]
            .iter()
            .flat_map(|dir| {
                std::fs::read_dir(root.join(dir))
                    .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")))
            .collect();
        files.sort();
        (root, files)
    }

    /// All cores the process may use.
    fn cores() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// Recast's demo settings at another cell size.
    fn recast_at(cell_size: f32) -> RecastSettings {
        RecastSettings { cell_size, ..RecastSettings::DEMO }
    }

    /// Meadow's tile size for this run (`--tile-size`, 0 = one tile).
    static TILE_SIZE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();

    /// Meadow's settings: the defaults, in tiles when asked.
    fn meadow_settings() -> BakeSettings {
        let mut s = BakeSettings::DEFAULT;
        s.tile_size = TILE_SIZE.get().copied().unwrap_or(0.0);
        s
    }

    /// Bakes `scene` once as `kind` (one of [`KINDS`]) and returns the polygon count.
    fn bake_once(scene: &Scene, kind: &str, pools: &[rayon::ThreadPool; 2]) -> Result<usize, Error> {
        let meadow = |pool: &rayon::ThreadPool| -> Result<usize, Error> {
            Ok(pool.install(|| meadow_bake::bake(scene, &meadow_settings(), &mut NoProgress))?.polygon_count())
        };
        match kind {
            "meadow-1t" => meadow(&pools[0]),
            "meadow-nt" => meadow(&pools[1]),
            "recast-0.3" => Ok(DetourMesh::bake(scene, &recast_at(0.3))?.polygons),
            "recast-0.1" => Ok(DetourMesh::bake(scene, &recast_at(0.1))?.polygons),
            "recast-0.3-tiled" => Ok(DetourMesh::bake_tiled(scene, &recast_at(0.3), TILE_CELLS)?.polygons),
            "recast-0.1-tiled" => Ok(DetourMesh::bake_tiled(scene, &recast_at(0.1), TILE_CELLS)?.polygons),
            _ => Err(format!("unknown kind {kind:?} (one of {})", KINDS.join(", ")).into()),
        }
    }

    /// Tile side of the tiled Recast bake, in cells (RecastDemo's slider allows 16 to 1024).
    const TILE_CELLS: i32 = 64;

    fn pools() -> Result<[rayon::ThreadPool; 2], Error> {
        Ok([
            rayon::ThreadPoolBuilder::new().num_threads(1).build()?,
            rayon::ThreadPoolBuilder::new().num_threads(cores()).build()?,
        ])
    }

    /// A field of `/proc/self/status` in kB.
    fn status_kb(field: &str) -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with(field))?;
        line[field.len()..].trim().trim_end_matches("kB").trim().parse().ok()
    }

    /// The child's side: one bake of `level` as `kind`, printing `peak_kb N reset yes|no`.
    fn one(level: &str, kind: &str) -> Result<(), Error> {
        let pools = pools()?;
        let scene = ingest::ingest_file(Path::new(level), &mut NoProgress)?;
        // Linux resets the high-water mark to the current resident size on "5".
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        bake_once(&scene, kind, &pools)?;
        let peak = status_kb("VmHWM:").ok_or("no VmHWM in /proc/self/status")?;
        println!("peak_kb {peak} reset {}", if reset { "yes" } else { "no" });
        Ok(())
    }

    /// The peak resident size of one bake in a child process, in MB as printed.
    fn child_peak(level: &Path, kind: &str) -> String {
        let tile = meadow_settings().tile_size.to_string();
        let out = std::env::current_exe()
            .and_then(|exe| Command::new(exe).arg("--one").arg(level).arg(kind).arg(tile).output());
        let Ok(out) = out else { return "-".into() };
        let text = String::from_utf8_lossy(&out.stdout);
        let mut words = text.split_whitespace();
        match (words.next(), words.next().and_then(|w| w.parse::<u64>().ok()), words.nth(1)) {
            (Some("peak_kb"), Some(kb), reset) if out.status.success() => {
                format!("{:.0}{}", kb as f64 / 1024.0, if reset == Some("yes") { "" } else { "*" })
            }
            _ => "-".into(),
        }
    }

    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            f64::NAN
        } else {
            v[v.len() / 2]
        }
    }

    pub fn run() -> Result<(), Error> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        if args.first().map(String::as_str) == Some("--one") {
            if let Some(t) = args.get(3).and_then(|t| t.parse().ok()) {
                TILE_SIZE.set(t).ok();
            }
            return match (args.get(1), args.get(2)) {
                (Some(level), Some(kind)) => one(level, kind),
                _ => Err("usage: vs_recast_bake --one LEVEL KIND [TILE_SIZE]".into()),
            };
        }
        let tile_at = args.iter().position(|a| a == "--tile-size");
        if let Some(i) = tile_at {
            let t: f64 = args.get(i + 1).and_then(|v| v.parse().ok()).ok_or("--tile-size needs metres")?;
            TILE_SIZE.set(t).ok();
        }
        let runs_at = args.iter().position(|a| a == "--runs");
        let runs: usize = match runs_at {
            Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).filter(|&n| n > 0).ok_or("--runs needs a count")?,
            None => 5,
        };
        // Levels named on the command line replace the shared ones.
        let named: Vec<PathBuf> = args
            .iter()
            .enumerate()
            .filter(|&(i, _)| runs_at.is_none_or(|r| i != r && i != r + 1))
            .filter(|&(i, _)| tile_at.is_none_or(|r| i != r && i != r + 1))
            .map(|(_, a)| PathBuf::from(a))
            .collect();
        let (root, files) = if named.is_empty() { levels() } else { (PathBuf::from("."), named) };
        if files.is_empty() {
            eprintln!("vs_recast_bake: no levels in {} (gltf/, recast/); nothing to measure", root.display());
            return Ok(());
        }
        let pools = pools()?;
        let n = cores();
        println!(
            "Median of {runs} bakes each, one process run; Meadow default settings (Recast's demo agent; tile size {} \
             m, 0 = one tile), Recast \
             solo mesh, cell height 0.2; {n} = all cores. Peak MB: resident high-water mark of one bake in a child \
             process.\n",
            meadow_settings().tile_size
        );
        println!(
            "| level | input triangles | Meadow 1t ms | Meadow {n}t ms | Recast 0.3 ms | Recast 0.1 ms | Meadow 1t / \
             Recast 0.1 | Meadow {n}t / Recast 0.3 | peak MB Meadow 1t | peak MB Meadow {n}t | peak MB Recast 0.3 | \
             peak MB Recast 0.1 | polygons Meadow | polygons Recast 0.3 | polygons Recast 0.1 |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        let mut notes = Vec::new();
        for path in files {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
            let scene = match ingest::ingest_file(&path, &mut NoProgress) {
                Ok(s) => s,
                Err(e) => {
                    println!("| {name} | ingest failed: {e} |");
                    continue;
                }
            };
            let mut times: [Vec<f64>; 4] = Default::default();
            let mut polygons: [Option<usize>; 4] = [None; 4];
            // A solo Recast bake that fails (Detour refuses a tile of more than 65,535 vertices)
            // is replaced by the tiled one from then on; any other kind that fails is left out
            // of the later rounds, and the others go on.
            let mut kinds: [String; 4] = KINDS.map(String::from);
            let mut failed: [Option<String>; 4] = Default::default();
            for round in 0..runs + 1 {
                for k in 0..KINDS.len() {
                    // Round 0 only tries the solo Recast bakes once, untimed, to pick solo or tiled.
                    if failed[k].is_some() || (round == 0 && !kinds[k].starts_with("recast")) {
                        continue;
                    }
                    let t = Instant::now();
                    match bake_once(&scene, &kinds[k], &pools) {
                        Ok(p) => polygons[k] = Some(p),
                        Err(e) if round == 0 => {
                            notes.push(format!("{name}, {}: {e}; tiled instead", kinds[k]));
                            kinds[k] = format!("{}-tiled", kinds[k]);
                            continue;
                        }
                        Err(e) => {
                            failed[k] = Some(e.to_string());
                            continue;
                        }
                    }
                    if round > 0 {
                        times[k].push(t.elapsed().as_secs_f64() * 1e3);
                    }
                }
            }
            for (kind, e) in kinds.iter().zip(&failed) {
                if let Some(e) = e {
                    notes.push(format!("{name}, {kind}: {e}"));
                }
            }
            let ms = times.map(|mut t| median(&mut t));
            let peaks: Vec<String> = kinds
                .iter()
                .zip(&failed)
                .map(|(kind, e)| if e.is_some() { "-".to_string() } else { child_peak(&path, kind) })
                .collect();
            let time = |k: usize| if failed[k].is_some() { "failed".to_string() } else { format!("{:.1}", ms[k]) };
            let ratio = |a: usize, b: usize| {
                if failed[a].is_some() || failed[b].is_some() {
                    "-".to_string()
                } else {
                    format!("{:.2}", ms[a] / ms[b])
                }
            };
            let count = |k: usize| {
                let tiled = if kinds[k].ends_with("-tiled") { " (tiled)" } else { "" };
                polygons[k].map_or("-".to_string(), |p| format!("{p}{tiled}"))
            };
            println!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                scene.triangles.len(),
                time(0),
                time(1),
                time(2),
                time(3),
                ratio(0, 3),
                ratio(1, 2),
                peaks[0],
                peaks[1],
                peaks[2],
                peaks[3],
                count(0),
                count(2),
                count(3),
            );
        }
        for note in notes {
            println!("\n{note}");
        }
        Ok(())
    }
}
