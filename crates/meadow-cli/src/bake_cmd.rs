//! `meadow bake`: glTF level → navmesh asset, with a progress bar per stage.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use meadow::{BakeSettings, NavMesh, Partition, WalkableRule};
use meadow_bake::fingerprint::{fingerprint, InputFile};
use meadow_bake::{Progress, Stage};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of `meadow bake`.
#[derive(clap::Args, Debug)]
// Negative numbers are values (`--radius -1` is refused by validation, in one line).
#[command(allow_negative_numbers = true)]
pub struct BakeArgs {
    /// The level: .gltf (with external or embedded buffers) or .glb; or a Polyanya navigation
    /// mesh (.mesh, versions 2 and 3), imported as it is (the agent settings do not apply to it;
    /// `--no-visibility` does).
    pub level: PathBuf,
    /// Where to write the navmesh asset (written atomically).
    #[arg(short, long)]
    pub output: PathBuf,
    /// A TOML file of settings; flags override it. Keys: radius, height, max_climb, max_slope,
    /// max_verts_per_poly, arc_tolerance, max_edge_length, walkable, visibility, partition, and the work budgets
    /// max_walkable_triangles, max_region_vertices, max_polygons (0 derives them from the level).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Agent radius in metres [default 0.6].
    #[arg(long)]
    pub radius: Option<f64>,
    /// Agent height in metres [default 2.0].
    #[arg(long)]
    pub height: Option<f64>,
    /// Step height in metres [default 0.9].
    #[arg(long)]
    pub max_climb: Option<f64>,
    /// Steepest walkable slope in degrees [default 45].
    #[arg(long)]
    pub max_slope: Option<f64>,
    /// Most vertices per polygon, 3..=12 [default 6].
    #[arg(long)]
    pub max_verts: Option<u8>,
    /// Largest error of radius arcs in metres [default 0.01].
    #[arg(long)]
    pub arc_tolerance: Option<f64>,
    /// Longest walkable-boundary edge in metres, 0 for no limit [default 12].
    #[arg(long)]
    pub max_edge_length: Option<f64>,
    /// Which geometry may be floor: by-slope (untagged too, the default) or tagged-only (only
    /// nodes tagged {"navmesh": "walkable"}; untagged geometry blocks).
    #[arg(long, value_enum)]
    pub walkable: Option<WalkableArg>,
    /// Bake no corner visibility graph (smaller asset; exact shortest paths search without it).
    #[arg(long)]
    pub no_visibility: bool,
    /// Leave out a visibility graph larger than this multiple of the rest of the asset [default 2].
    #[arg(long)]
    pub max_visibility_ratio: Option<f64>,
    /// How the free area is cut into convex polygons: merge (triangles merged greedily) or meadow
    /// (Meadow mapping: diagonals at reflex corners first) [default merge].
    #[arg(long, value_enum)]
    pub partition: Option<PartitionArg>,
    /// Print nothing but warnings and errors (for build scripts).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print each stage's name when it starts and its time when it ends, on stderr (also with
    /// `--quiet`; shows where a long bake is without a terminal for the bars).
    #[arg(long)]
    pub timings: bool,
    /// Also write a Make/Ninja dependency file here (`OUTPUT: INPUTS...`): the level, its
    /// external buffers and the config file (written atomically, also when the bake is skipped).
    #[arg(long, value_name = "FILE")]
    pub depfile: Option<PathBuf>,
    /// Skip the bake when the output already holds an asset of this format version baked from the
    /// same input bytes and settings (the source hash in its header); anything else re-bakes.
    #[arg(long)]
    pub if_changed: bool,
    /// Bake in square tiles of this edge in metres, aligned to the world origin (0: one tile, the
    /// default). At least 4 x radius and 1 m; at most 65,536 tiles over the level.
    #[arg(long, value_name = "METRES")]
    pub tile_size: Option<f64>,
    /// Incremental bake of a tiled level: take every tile whose inputs (the triangles around it)
    /// and settings are unchanged from the existing output, bake the others; the result is the
    /// same bytes as a full bake. Without a readable tiled output of the same settings, bakes all.
    #[arg(long)]
    pub update: bool,
    /// Bake only the tiles in X0..X1,Z0..Z1 (column and row ranges, end exclusive; `..=` for an
    /// inclusive end, open ends allowed: `..0,0..`) into a partial asset, for `meadow merge`.
    #[arg(long, value_name = "X0..X1,Z0..Z1", value_parser = parse_tile_range, allow_hyphen_values = true)]
    pub tiles: Option<meadow_bake::tiles::TileRange>,
}

/// Parses `--tiles`: two ranges `A..B`, `A..=B`, `A..`, `..B` or `..`, columns then rows.
pub fn parse_tile_range(text: &str) -> Result<meadow_bake::tiles::TileRange, String> {
    let bad = || format!("`{text}` is not X0..X1,Z0..Z1 (tile columns and rows, for example -4..0,0..4)");
    let range = |r: &str| -> Result<(i32, i32), String> {
        let (lo, hi) = r.trim().split_once("..").ok_or_else(bad)?;
        let (hi, inclusive) = match hi.strip_prefix('=') {
            Some(h) => (h, true),
            None => (hi, false),
        };
        let lo = if lo.is_empty() { i32::MIN } else { lo.parse::<i32>().map_err(|_| bad())? };
        let hi = match (hi.is_empty(), inclusive) {
            (true, false) => i32::MAX,
            (true, true) => return Err(bad()),
            (false, true) => hi.parse::<i32>().map_err(|_| bad())?,
            (false, false) => hi.parse::<i32>().map_err(|_| bad())?.checked_sub(1).ok_or_else(bad)?,
        };
        if lo > hi {
            return Err(format!("`{text}`: the range {r} holds no tile"));
        }
        Ok((lo, hi))
    };
    let (columns, rows) = text.split_once(',').ok_or_else(bad)?;
    Ok(meadow_bake::tiles::TileRange { columns: range(columns)?, rows: range(rows)? })
}

impl BakeArgs {
    /// The settings from the config file (if any) with the flags applied on top.
    pub fn settings(&self) -> Result<BakeSettings> {
        let mut s = match &self.config {
            Some(path) => {
                let text =
                    std::fs::read_to_string(path).with_context(|| format!("cannot read config {}", path.display()))?;
                toml::from_str::<BakeSettings>(&text)
                    .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.message()))?
            }
            None => BakeSettings::DEFAULT,
        };
        if let Some(v) = self.radius {
            s.radius = v;
        }
        if let Some(v) = self.height {
            s.height = v;
        }
        if let Some(v) = self.max_climb {
            s.max_climb = v;
        }
        if let Some(v) = self.max_slope {
            s.max_slope = v;
        }
        if let Some(v) = self.max_verts {
            s.max_verts_per_poly = v;
        }
        if let Some(v) = self.arc_tolerance {
            s.arc_tolerance = v;
        }
        if let Some(v) = self.max_edge_length {
            s.max_edge_length = v;
        }
        if let Some(v) = self.walkable {
            s.walkable = v.into();
        }
        if self.no_visibility {
            s.visibility = false;
        }
        if let Some(v) = self.max_visibility_ratio {
            s.max_visibility_ratio = v;
        }
        if let Some(v) = self.tile_size {
            s.tile_size = v;
        }
        if let Some(v) = self.partition {
            s.partition = v.into();
        }
        s.validate()?;
        if self.tiles.is_some() && s.tile_size == 0.0 {
            anyhow::bail!("--tiles needs a tiled bake: set --tile-size (or tile_size in the config)");
        }
        Ok(s)
    }
}

/// The values of `--walkable` (the `walkable` setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WalkableArg {
    /// Untagged and walkable-tagged geometry is floor where its slope allows.
    BySlope,
    /// Only walkable-tagged geometry can be floor; untagged geometry blocks.
    TaggedOnly,
}

impl From<WalkableArg> for WalkableRule {
    fn from(v: WalkableArg) -> Self {
        match v {
            WalkableArg::BySlope => WalkableRule::BySlope,
            WalkableArg::TaggedOnly => WalkableRule::TaggedOnly,
        }
    }
}

/// The values of `--partition` (the `partition` setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PartitionArg {
    /// Constrained Delaunay triangles merged greedily, longest shared edge first.
    Merge,
    /// Meadow mapping: diagonals at reflex corners (two resolved at once first), then merged.
    Meadow,
}

impl From<PartitionArg> for Partition {
    fn from(v: PartitionArg) -> Self {
        match v {
            PartitionArg::Merge => Partition::Merge,
            PartitionArg::Meadow => Partition::Meadow,
        }
    }
}

/// Runs `meadow bake`.
pub fn run(args: &BakeArgs) -> Result<()> {
    let settings = args.settings()?;
    let start = Instant::now();
    let mut progress = BarProgress::new(args.quiet, args.timings);
    let is_polyanya = args.level.extension().is_some_and(|e| e.eq_ignore_ascii_case("mesh"));
    // The inputs are read before the bake, so that an unchanged level is skipped for the price of
    // reading it.
    let (scene, inputs) = if is_polyanya {
        let bytes = std::fs::read(&args.level).with_context(|| format!("cannot read {}", args.level.display()))?;
        (None, vec![InputFile::new(&args.level, &bytes)])
    } else {
        let scene = meadow_bake::ingest::ingest_file(&args.level, &mut progress)
            .with_context(|| format!("cannot bake {}", args.level.display()))?;
        let inputs = scene.inputs.clone();
        (Some(scene), inputs)
    };
    let source_hash = fingerprint(&inputs, &settings);
    if args.if_changed && is_up_to_date(&args.output, source_hash) {
        write_depfile(args, &inputs)?;
        if !args.quiet {
            println!(
                "{} is up to date (same inputs, settings and format version): bake skipped",
                args.output.display()
            );
        }
        return Ok(());
    }
    let mesh = match &scene {
        None => {
            let mut imported = meadow_bake::import::polyanya::import_settings();
            imported.visibility = settings.visibility;
            imported.max_visibility_ratio = settings.max_visibility_ratio;
            imported.max_visibility_work = settings.max_visibility_work;
            meadow_bake::import::polyanya::import_file_with_progress(&args.level, &imported, &mut progress)
                .with_context(|| format!("cannot import {}", args.level.display()))?
        }
        Some(scene) => {
            // The previous asset, for `--update`: anything unreadable just means a full bake.
            let previous = if args.update { NavMesh::load(&args.output).ok() } else { None };
            let options = meadow_bake::BakeOptions { tiles: args.tiles, previous: previous.as_ref() };
            let mesh = meadow_bake::bake_with(scene, &settings, options, &mut progress)
                .with_context(|| format!("cannot bake {}", args.level.display()))?;
            if args.update && !args.quiet && settings.tile_size > 0.0 {
                let old: std::collections::BTreeSet<(i32, i32, u64)> =
                    previous.iter().flat_map(|p| p.data().tiles.iter().map(|t| (t.x, t.z, t.hash))).collect();
                let tiles = &mesh.data().tiles;
                let kept = tiles.iter().filter(|t| old.contains(&(t.x, t.z, t.hash))).count();
                println!("update: {} of {} tiles re-baked, {kept} unchanged", tiles.len() - kept, tiles.len());
            }
            mesh
        }
    };
    mesh.save_with_source_hash(&args.output, source_hash)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    write_depfile(args, &inputs)?;
    if !args.quiet {
        let tiles = match (mesh.data().tiles.len(), &mesh.data().partial) {
            (0, None) => String::new(),
            (n, None) => format!(", {n} tiles of {} m", settings.tile_size),
            (n, Some(p)) => format!(
                ", partial: {n} tiles of {} m (grid columns {}..={}, rows {}..={})",
                settings.tile_size, p.grid[0], p.grid[2], p.grid[1], p.grid[3]
            ),
        };
        println!(
            "baked {} -> {}: {} polygons, {} vertices, {} off-mesh links, {:.2} m² walkable{tiles}, in {:.2} s",
            args.level.display(),
            args.output.display(),
            mesh.polygon_count(),
            mesh.vertices().len(),
            mesh.links().len(),
            mesh.total_area(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Whether `output` holds a valid asset of this format version with `source_hash` in its
/// header; a missing, damaged, foreign or older file is never trusted.
fn is_up_to_date(output: &Path, source_hash: u64) -> bool {
    let Ok(bytes) = std::fs::read(output) else {
        return false;
    };
    NavMesh::from_bytes(&bytes).is_ok() && meadow::asset::read_source_hash(&bytes).ok() == Some(source_hash)
}

/// Writes `--depfile` (if asked for): the output depends on every file read and the config.
fn write_depfile(args: &BakeArgs, inputs: &[InputFile]) -> Result<()> {
    let Some(depfile) = &args.depfile else {
        return Ok(());
    };
    let mut prerequisites: Vec<&Path> = inputs.iter().map(|i| i.path.as_path()).collect();
    prerequisites.extend(args.config.as_deref());
    let text = depfile_text(&args.output, &prerequisites)?;
    meadow::asset::write_atomically(depfile, text.as_bytes())
        .with_context(|| format!("cannot write {}", depfile.display()))
}

/// The dependency rule `target: prerequisites...` in the Make syntax that Ninja also reads,
/// one prerequisite per continued line.
fn depfile_text(target: &Path, prerequisites: &[&Path]) -> Result<String> {
    let mut text = escape_make(target)?;
    text.push(':');
    for p in prerequisites {
        text.push_str(" \\\n  ");
        text.push_str(&escape_make(p)?);
    }
    text.push('\n');
    Ok(text)
}

/// A path as a Make word: spaces and `#` backslash-escaped, `$` doubled; a path Make cannot
/// spell (not UTF-8, a newline) is an error rather than a wrong rule.
fn escape_make(path: &Path) -> Result<String> {
    let text =
        path.to_str().with_context(|| format!("{} is not valid UTF-8, a depfile cannot name it", path.display()))?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ' ' | '\t' => {
                out.push('\\');
                out.push(c);
            }
            '#' => out.push_str("\\#"),
            '$' => out.push_str("$$"),
            '\n' | '\r' => anyhow::bail!("{} holds a line break, a depfile cannot name it", path.display()),
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// Draws one indicatif bar per stage on stderr; warnings go above the bars.
pub(crate) struct BarProgress {
    quiet: bool,
    timings: bool,
    bar: Option<(Stage, ProgressBar, Instant)>,
    started: Option<(Stage, Instant)>,
}

impl BarProgress {
    pub(crate) fn new(quiet: bool, timings: bool) -> Self {
        BarProgress { quiet, timings, bar: None, started: None }
    }
}

impl Progress for BarProgress {
    fn begin(&mut self, stage: Stage, total: u64) {
        if self.timings {
            eprintln!("meadow: {} started ({total} units)", stage.name());
            self.started = Some((stage, Instant::now()));
        }
        if self.quiet {
            return;
        }
        let bar = if total > 0 { ProgressBar::new(total) } else { ProgressBar::new_spinner() };
        bar.set_draw_target(ProgressDrawTarget::stderr());
        let template = if total > 0 {
            "{prefix:>12.cyan} [{bar:30}] {pos}/{len} {elapsed}"
        } else {
            "{prefix:>12.cyan} {spinner} {elapsed}"
        };
        bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
        bar.set_prefix(stage.name());
        bar.enable_steady_tick(Duration::from_millis(100));
        self.bar = Some((stage, bar, Instant::now()));
    }

    fn advance(&mut self, stage: Stage, done: u64) {
        if let Some((s, bar, _)) = &self.bar {
            if *s == stage {
                bar.set_position(done);
            }
        }
    }

    fn finish(&mut self, stage: Stage) {
        if let Some((s, started)) = self.started.take() {
            if s == stage {
                eprintln!("meadow: {} took {:.3} s", stage.name(), started.elapsed().as_secs_f64());
            }
        }
        if let Some((s, bar, started)) = self.bar.take() {
            if s == stage {
                bar.set_style(
                    ProgressStyle::with_template("{prefix:>12.green} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.finish_with_message(format!("done in {:.3} s", started.elapsed().as_secs_f64()));
            } else {
                self.bar = Some((s, bar, started));
            }
        }
    }

    fn warn(&mut self, message: &str) {
        match &self.bar {
            Some((_, bar, _)) if !self.quiet => bar.suspend(|| eprintln!("meadow: warning: {message}")),
            _ => eprintln!("meadow: warning: {message}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depfile_paths_are_escaped_as_make_expects() {
        let text =
            depfile_text(Path::new("out/my level.nav"), &[Path::new("a b/c#1.gltf"), Path::new("$x.bin")]).unwrap();
        assert_eq!(text, "out/my\\ level.nav: \\\n  a\\ b/c\\#1.gltf \\\n  $$x.bin\n");
        assert!(depfile_text(Path::new("a\nb.nav"), &[]).is_err());
    }
}
