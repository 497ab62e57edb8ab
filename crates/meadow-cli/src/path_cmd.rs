//! `meadow path`: find paths on a baked navmesh, one query from the command line or a batch
//! from a JSON file.

use anyhow::{anyhow, bail, Context};
use meadow::query::{Location, Path, PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::NavMesh;
use serde::Deserialize;
use serde_json::json;
use std::path::PathBuf;

/// Arguments of `meadow path`.
#[derive(clap::Args, Debug, Clone)]
// Negative numbers are values (`--radius -1` is refused by validation, in one line).
#[command(allow_negative_numbers = true)]
pub struct PathArgs {
    /// The navmesh asset (.nav).
    pub level: PathBuf,
    /// Start point `x,y,z` (metres, +Y up).
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true, required_unless_present = "queries")]
    pub from: Option<[f64; 3]>,
    /// Goal point `x,y,z`.
    #[arg(long, value_parser = parse_point, allow_hyphen_values = true, required_unless_present = "queries")]
    pub to: Option<[f64; 3]>,
    /// Batch of queries: a JSON file `[{"from":[x,y,z],"to":[x,y,z]}, ...]`; prints one result
    /// per query (one JSON object per line with --json).
    #[arg(long, conflicts_with_all = ["from", "to"])]
    pub queries: Option<PathBuf>,
    /// The path: `exact` (the Euclidean-shortest path, `find_shortest_path`) or a smoothed A*
    /// corridor. Default: `exact` when the asset holds visibility data and `--partial` is not
    /// given, else `funnel`.
    #[arg(long, value_enum)]
    pub style: Option<StyleArg>,
    /// The same as `--style exact` (kept for scripts).
    #[arg(long, conflicts_with_all = ["style", "partial"])]
    pub optimal: bool,
    /// Print JSON (stable keys: style, found, length, points, corridor, partial, links, error; each
    /// link is `{segment, link, id, reversed}`, the segment `points[segment] -> points[segment + 1]`).
    #[arg(long)]
    pub json: bool,
    /// When the goal is unreachable, return the path to the reachable point nearest it.
    #[arg(long)]
    pub partial: bool,
    /// Snap points that are not on the mesh to the nearest mesh point within this many metres
    /// horizontally (and the agent height vertically).
    #[arg(long, default_value_t = 0.5)]
    pub snap: f64,
    /// Never enter polygons of this area type (by name; repeatable).
    #[arg(long = "exclude-area", value_name = "NAME")]
    pub exclude_areas: Vec<String>,
    /// What plans the path: `navmesh` (the styles above) or `roadmap` (the trapezoid roadmap,
    /// the classic planner navmeshes replaced: no styles, area costs, exclusions, off-mesh
    /// links or partial paths; JSON `style` is `roadmap`).
    #[arg(long, value_enum, default_value_t = PlannerArg::Navmesh)]
    pub planner: PlannerArg,
    /// Temporary obstacles to carve out before answering: a JSON file `[{"polygon": [[x, z],
    /// ...], "y": [y_min, y_max]}, ...]` (outlines convex and counter-clockwise, grown by the
    /// asset's agent radius; see `meadow::DynamicMesh`).
    #[arg(long, value_name = "OBST.json")]
    pub obstacles: Option<PathBuf>,
}

/// The planners of the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlannerArg {
    /// Paths on the navmesh (`--style`).
    Navmesh,
    /// Paths on the trapezoid roadmap (`QueryMesh::find_roadmap_path`).
    Roadmap,
}

/// The path styles of the command line.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StyleArg {
    /// The Euclidean-shortest path (`find_shortest_path`), over the baked visibility graph
    /// where the asset has one.
    Exact,
    /// The raw A* path through portal midpoints.
    Midpoints,
    /// Meadow refinement (midpoint or portal endpoint, whichever is shorter).
    Meadow,
    /// String pulling (the funnel algorithm); the shortest path in the corridor.
    Funnel,
}

impl StyleArg {
    /// The corridor smoothing of an A* style; `None` for `exact`.
    fn corridor_style(self) -> Option<PathStyle> {
        match self {
            StyleArg::Exact => None,
            StyleArg::Midpoints => Some(PathStyle::Midpoints),
            StyleArg::Meadow => Some(PathStyle::MeadowRefined),
            StyleArg::Funnel => Some(PathStyle::StringPulled),
        }
    }

    /// The name the command line uses.
    fn name(self) -> String {
        clap::ValueEnum::to_possible_value(&self).map_or_else(String::new, |v| v.get_name().to_string())
    }
}

impl PathArgs {
    /// The style asked for, or the default for `mesh` (see `--style`).
    fn style_for(&self, mesh: &NavMesh) -> anyhow::Result<StyleArg> {
        let style = match (self.optimal, self.style) {
            (true, _) => StyleArg::Exact,
            (false, Some(s)) => s,
            (false, None) if mesh.visibility().is_some() && !self.partial => StyleArg::Exact,
            (false, None) => StyleArg::Funnel,
        };
        if style == StyleArg::Exact && self.partial {
            bail!("--partial needs an A* style (--style funnel, meadow or midpoints): exact paths are never partial");
        }
        Ok(style)
    }
}

/// Parses `x,y,z` into a point.
fn parse_point(s: &str) -> Result<[f64; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected x,y,z but got {s:?}"));
    }
    let mut p = [0.0; 3];
    for (k, part) in parts.iter().enumerate() {
        let v: f64 = part.parse().map_err(|_| format!("{part:?} is not a number"))?;
        if !v.is_finite() {
            return Err(format!("{part:?} is not a finite number"));
        }
        p[k] = v;
    }
    Ok(p)
}

/// One query of a `--queries` file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct QuerySpec {
    from: [f64; 3],
    to: [f64; 3],
}

/// Everything a query needs, set up once per run.
struct Finder {
    mesh: QueryMesh,
    query: PathQuery,
    /// Set for the `exact` style (the shortest path instead of the midpoint A*).
    shortest: Option<ShortestPathQuery>,
    filter: QueryFilter,
    options: PathOptions,
    snap: f64,
    /// Plan on the trapezoid roadmap instead.
    roadmap: bool,
}

impl Finder {
    fn new(mesh: NavMesh, style: PathStyle, partial: bool, snap: f64, exclude: &[String]) -> anyhow::Result<Finder> {
        let mut filter = QueryFilter::new();
        for name in exclude {
            let index = mesh
                .areas()
                .iter()
                .position(|a| &a.name == name)
                .ok_or_else(|| anyhow!("the navmesh has no area type named {name:?}"))?;
            filter = filter.exclude(index as u16);
        }
        if !(snap.is_finite() && snap >= 0.0) {
            bail!("--snap must be a finite distance >= 0, got {snap}");
        }
        let mesh = QueryMesh::new(mesh);
        let query = PathQuery::new(&mesh);
        Ok(Finder {
            mesh,
            query,
            shortest: None,
            filter,
            options: PathOptions { style, allow_partial: partial, ..PathOptions::default() },
            snap,
            roadmap: false,
        })
    }

    /// The mesh point for a user-given point: the polygon under it, else the nearest point
    /// within the snap box.
    fn snap(&self, p: [f64; 3], what: &str) -> anyhow::Result<Location> {
        // A point beyond the coordinate limit is refused, never snapped: far from the mesh,
        // distances to every room round to the same value and the nearest one is arbitrary.
        if !meadow::limits::in_range(p) {
            bail!(
                "{what} point ({:?}, {:?}, {:?}) is beyond the coordinate limit of {} m",
                p[0],
                p[1],
                p[2],
                meadow::limits::MAX_COORDINATE
            );
        }
        let height = self.mesh.mesh().settings().height;
        self.mesh.locate(p).or_else(|_| self.mesh.nearest_point(p, [self.snap, height, self.snap])).map_err(|_| {
            anyhow!(
                "{what} point ({}, {}, {}) is not on the navmesh (nothing within {} m)",
                p[0],
                p[1],
                p[2],
                self.snap
            )
        })
    }

    fn find(&mut self, from: [f64; 3], to: [f64; 3]) -> anyhow::Result<Path> {
        let start = self.snap(from, "start")?;
        let goal = self.snap(to, "goal")?;
        if self.roadmap {
            return Ok(self.mesh.find_roadmap_path(start.point, goal.point)?);
        }
        let mut path = Path::default();
        match &mut self.shortest {
            Some(q) => q.find_shortest_path_between(&self.mesh, start, goal, &self.filter, &mut path)?,
            None => self.query.find_path_between(&self.mesh, start, goal, &self.filter, self.options, &mut path)?,
        }
        Ok(path)
    }
}

fn load(level: &std::path::Path) -> anyhow::Result<NavMesh> {
    NavMesh::load(level).with_context(|| format!("cannot load {}", level.display()))
}

/// The path points between two points (snapped to the mesh as `meadow path` does, default
/// snap distance, no partial paths).
#[cfg(test)]
pub fn path_points(mesh: &NavMesh, from: [f64; 3], to: [f64; 3], style: PathStyle) -> anyhow::Result<Vec<[f64; 3]>> {
    Ok(render_path(mesh, from, to, style)?.points)
}

/// The path between two points for `meadow render --path`, with the off-mesh links it takes
/// (snapped to the mesh as `meadow path` does, default snap distance, no partial paths).
pub fn render_path(mesh: &NavMesh, from: [f64; 3], to: [f64; 3], style: PathStyle) -> anyhow::Result<Path> {
    let mut finder = Finder::new(mesh.clone(), style, false, 0.5, &[])?;
    finder.find(from, to)
}

/// The off-mesh links of a path as JSON: segment index (the link runs from `points[segment]`
/// to `points[segment + 1]`), link handle, the game's id and whether it is taken backwards.
fn links_json(path: &Path) -> serde_json::Value {
    path.links
        .iter()
        .map(|l| json!({"segment": l.segment, "link": l.link.0, "id": l.id, "reversed": l.reversed}))
        .collect()
}

fn result_json(from: [f64; 3], to: [f64; 3], style: &str, result: &anyhow::Result<Path>) -> serde_json::Value {
    match result {
        Ok(p) => json!({
            "from": from,
            "to": to,
            "style": style,
            "found": true,
            "partial": p.partial,
            "length": p.length,
            "points": p.points,
            "corridor": p.corridor,
            "links": links_json(p),
        }),
        Err(e) => json!({
            "from": from,
            "to": to,
            "style": style,
            "found": false,
            "length": null,
            "points": [],
            "links": [],
            "error": format!("{e:#}"),
        }),
    }
}

fn print_human(path: &Path, style: &str) {
    let kind = if path.partial { "partial path (goal unreachable)" } else { "path" };
    let links = match path.links.len() {
        0 => String::new(),
        1 => ", 1 off-mesh link".to_string(),
        n => format!(", {n} off-mesh links"),
    };
    println!(
        "{kind}: {:.3} m, {} points, {} polygons{links} (style: {style})",
        path.length,
        path.points.len(),
        path.corridor.len(),
    );
    for (i, p) in path.points.iter().enumerate() {
        let link = path.link_at(i).map_or_else(String::new, |l| {
            let way = if l.reversed { ", taken end to start" } else { "" };
            format!("  -> off-mesh link id {} (link {}{way}) to the next point", l.id, l.link.0)
        });
        println!("  {i:>3}  {:>10.3} {:>10.3} {:>10.3}{link}", p[0], p[1], p[2]);
    }
}

/// Runs `meadow path`.
pub fn run(args: &PathArgs) -> anyhow::Result<()> {
    let mesh = load(&args.level)?;
    let roadmap = args.planner == PlannerArg::Roadmap;
    if roadmap && (args.style.is_some() || args.optimal || args.partial || !args.exclude_areas.is_empty()) {
        bail!("--planner roadmap takes no --style, --optimal, --partial or --exclude-area: the roadmap has one kind of path");
    }
    // The style comes from the asset as baked (carving leaves its visibility graph out; exact
    // paths then search without it).
    let style = args.style_for(&mesh)?;
    let mesh = match &args.obstacles {
        Some(file) => crate::obstacles::carve(mesh, file)?,
        None => mesh,
    };
    let name = if roadmap { "roadmap".to_string() } else { style.name() };
    let corridor_style = style.corridor_style().unwrap_or(PathStyle::StringPulled);
    let mut finder = Finder::new(mesh, corridor_style, args.partial, args.snap, &args.exclude_areas)?;
    finder.roadmap = roadmap;
    if style == StyleArg::Exact && !roadmap {
        let mut shortest = ShortestPathQuery::new(&finder.mesh);
        shortest.use_visibility_graph(true);
        finder.shortest = Some(shortest);
    }
    if let Some(file) = &args.queries {
        let text = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        let specs: Vec<QuerySpec> = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a list of {{\"from\", \"to\"}} queries", file.display()))?;
        for spec in specs {
            let result = finder.find(spec.from, spec.to);
            if args.json {
                println!("{}", result_json(spec.from, spec.to, &name, &result));
            } else {
                match &result {
                    Ok(path) => print_human(path, &name),
                    Err(e) => println!("no path: {e:#}"),
                }
            }
        }
        return Ok(());
    }
    let (Some(from), Some(to)) = (args.from, args.to) else {
        bail!("give --from and --to, or --queries");
    };
    let result = finder.find(from, to);
    if args.json {
        println!("{}", result_json(from, to, &name, &result));
    }
    let path = result?;
    if !args.json {
        print_human(&path, &name);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use meadow_testkit::testmesh::GridSpec;

    #[test]
    fn points_parse_and_reject_garbage() {
        assert_eq!(parse_point("1,-2.5, 3"), Ok([1.0, -2.5, 3.0]));
        assert!(parse_point("1,2").is_err());
        assert!(parse_point("1,2,x").is_err());
        assert!(parse_point("1,2,inf").is_err());
    }

    #[test]
    fn path_points_snap_and_follow_the_mesh() {
        let mesh = NavMesh::new(GridSpec { cols: 5, rows: 1, ..GridSpec::default() }.build()).unwrap();
        // The start is 0.3 m off the mesh: snapped onto its edge.
        let pts = path_points(&mesh, [0.5, 0.0, -0.3], [4.5, 0.0, 0.5], PathStyle::StringPulled).unwrap();
        assert_eq!(pts.first(), Some(&[0.5, 0.0, 0.0]));
        assert_eq!(pts.last(), Some(&[4.5, 0.0, 0.5]));
        assert!(path_points(&mesh, [0.5, 0.0, -3.0], [4.5, 0.0, 0.5], PathStyle::StringPulled).is_err());
    }

    #[test]
    fn run_answers_single_and_batch_queries_from_a_saved_asset() {
        let dir = std::env::temp_dir().join(format!("meadow-path-cmd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let level = dir.join("grid.nav");
        let spec = GridSpec { cols: 6, rows: 4, blocked: vec![false, false, true], ..GridSpec::default() };
        NavMesh::new(spec.build()).unwrap().save(&level).unwrap();
        let queries = dir.join("q.json");
        std::fs::write(&queries, r#"[{"from":[0.5,0,0.5],"to":[5.5,0,3.5]},{"from":[0.5,0,0.5],"to":[50,0,3.5]}]"#)
            .unwrap();
        let args = PathArgs {
            level: level.clone(),
            from: Some([0.5, 0.0, 0.5]),
            to: Some([5.5, 0.0, 0.5]),
            queries: None,
            style: Some(StyleArg::Meadow),
            optimal: false,
            json: true,
            partial: false,
            snap: 0.5,
            exclude_areas: vec![],
            planner: PlannerArg::Navmesh,
            obstacles: None,
        };
        run(&args).unwrap();
        let roadmap = PathArgs { planner: PlannerArg::Roadmap, style: None, ..args.clone() };
        run(&roadmap).unwrap();
        run(&PathArgs { from: None, to: None, queries: Some(queries.clone()), ..roadmap.clone() }).unwrap();
        assert!(run(&PathArgs { style: Some(StyleArg::Funnel), ..roadmap.clone() }).is_err(), "roadmap has no styles");
        assert!(run(&PathArgs { partial: true, ..roadmap }).is_err(), "roadmap paths are never partial");
        run(&PathArgs { from: None, to: None, queries: Some(queries), ..args.clone() }).unwrap();
        run(&PathArgs { optimal: true, ..args.clone() }).unwrap();
        assert!(run(&PathArgs { to: Some([50.0, 0.0, 0.5]), ..args.clone() }).is_err(), "goal off the mesh");
        assert!(run(&PathArgs { exclude_areas: vec!["lava".into()], ..args.clone() }).is_err(), "unknown area name");
        assert!(run(&PathArgs { level: dir.join("missing.nav"), ..args }).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
