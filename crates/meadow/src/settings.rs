//! The agent and bake settings a navmesh was built with (stored in every asset).
//!
//! # Coordinate limits
//! Levels obey one coordinate contract ([`crate::limits`]): every world coordinate within
//! [`MAX_COORDINATE`](crate::limits::MAX_COORDINATE) = 2^20 m (about 1049 km) of the origin, and
//! the level spanning at most [`MAX_EXTENT`](crate::limits::MAX_EXTENT) = 2^16 m (65,536 m) along
//! each axis. Ingest, asset loading and queries reject anything outside with a typed error.
//!
//! # Work budgets
//! A bake checks its work against three budgets before and during the expensive stages, so a
//! hostile or mistaken input fails within seconds with a typed error naming the budget instead of
//! exhausting memory. Each is a field below; `0` (the default) derives it from the input:
//!
//! | field                    | derived default (n = input triangles)  |
//! |--------------------------|----------------------------------------|
//! | `max_walkable_triangles` | `2^22` (4,194,304)                      |
//! | `max_region_vertices`    | `2^20 + 512 n`                          |
//! | `max_polygons`           | `2^20 + 16 n`                           |
//! | `max_visibility_work`    | `2^25` (33,554,432)                     |
//!
//! Region vertices count the vertices entering the region stage's booleans plus an upper bound
//! of the crossings between them (pairs of edges of shapes whose boxes overlap), the vertices
//! each of its booleans and offsets makes, and the ring vertices after `max_edge_length`
//! splitting; polygons count the triangles before merging. Visibility work counts the polygons the
//! visibility stage's walks enter plus the corner pairs it tests / 16; unlike the others, passing
//! this budget is no error: the graph is left out with a warning, as when it is larger than
//! `max_visibility_ratio` allows.

use serde::{Deserialize, Serialize};

/// Agent and bake settings, in world units (metres, degrees), with Recast's meanings.
///
/// Validate with [`BakeSettings::validate`] before use; the bake does this once at its boundary.
///
/// ```
/// use meadow::BakeSettings;
/// let mut settings = BakeSettings::DEFAULT; // Recast's demo agent
/// settings.radius = 0.4;
/// settings.max_slope = 30.0;
/// assert!(settings.validate().is_ok());
/// settings.height = 0.5; // not above max_climb (0.9)
/// assert!(settings.validate().is_err());
/// ```
///
/// In TOML (`meadow bake --config`, or `toml::from_str` in a build script), every key is
/// optional and unknown keys are refused: `radius = 0.4`, `walkable = "tagged-only"`, ...
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct BakeSettings {
    /// Agent radius: walkable space keeps this distance from walls. Metres, `>= 0`
    /// (0 is a point agent), finite. Default 0.6.
    pub radius: f64,
    /// Agent height: geometry closer than this above the floor blocks. Metres, `> 0`,
    /// `> max_climb`. Default 2.0.
    pub height: f64,
    /// Step height the agent climbs (stairs, kerbs); geometry below it does not block.
    /// Metres, `>= 0`, `< height`. Default 0.9.
    pub max_climb: f64,
    /// Steepest walkable slope. Degrees, `0..90` (exclusive of 90). Default 45.
    pub max_slope: f64,
    /// Most vertices per convex polygon. `3..=12`. Default 6.
    pub max_verts_per_poly: u8,
    /// Largest distance between a radius arc and the segments that approximate it.
    /// Metres, `> 0`. Default 0.01.
    pub arc_tolerance: f64,
    /// Longest walkable-boundary edge before triangulation; longer edges are split evenly
    /// (Recast's `maxEdgeLen`), so open floors are not fanned into long thin triangles whose
    /// portal midpoints mislead the midpoint A*. Metres, `0` (no limit) or `0.05 ..= 1e6`.
    /// Default 12, Recast's demo value.
    pub max_edge_length: f64,
    /// Work budget: most walkable triangles after classification; `0` derives it (see the
    /// module docs: 2^22).
    pub max_walkable_triangles: u64,
    /// Work budget: most region vertices (boolean inputs plus their possible crossings, and
    /// ring vertices after edge splitting); `0` derives it (2^20 + 512 per input triangle).
    pub max_region_vertices: u64,
    /// Work budget: most output polygons (triangles before merging); `0` derives it
    /// (2^20 + 16 per input triangle).
    pub max_polygons: u64,
    /// Which geometry may be floor: `by-slope` (default; every upward face within `max_slope`
    /// whose node is not tagged `obstacle`, as Recast, Unity and Godot do) or `tagged-only`
    /// (only geometry of nodes tagged `walkable`; everything else blocks).
    pub walkable: WalkableRule,
    /// Whether to bake the corner visibility graph ([`crate::VisibilityGraph`]) for exact
    /// shortest paths. Default true.
    pub visibility: bool,
    /// Largest encoded size of the visibility graph, as a multiple of the rest of the asset: a
    /// larger graph is left out with a warning (the asset stays exact; its exact paths search
    /// without the graph). `>= 0`, finite. Default 2: the game levels' graphs are 0.2-0.8 of
    /// the rest, open maps with thousands of mutually visible corners (Polyanya's aurora) 4.5.
    pub max_visibility_ratio: f64,
    /// Work budget of the visibility stage: most work (polygons its walks enter, plus corner
    /// pairs tested / 16) before the graph is left out with a warning; `0` derives it (2^25,
    /// about a second of one core). The work grows with the square of the corners, so open worlds
    /// of thousands of props pass it long before their graph is built; the shared game levels use
    /// at most 0.7% of it. A build whose first 32 corners (spread over the level) foretell more
    /// than 4 times the budget stops there.
    pub max_visibility_work: u64,
    /// Edge of the square tiles the bake works in, metres: `0` (the default) bakes the level as
    /// one tile; otherwise at least `4 × radius` and 1 m, at most 65,536 m. Tiles are aligned to
    /// the world origin (tile `(i, j)` covers `[i·t, (i+1)·t) × [j·t, (j+1)·t)` in XZ), bake in
    /// parallel, and are what incremental bakes (`meadow bake --update`) re-bake and build
    /// farms spread (`--tiles`, `meadow merge`). For open worlds of a kilometre or more, 64 m
    /// tiles bake fastest on the generated world (see `ARCHITECTURE.md`, "Tiles").
    pub tile_size: f64,
    /// How the free area is cut into convex polygons: `merge` (triangulate, then merge
    /// triangles greedily, Recast's way) or `meadow` (Arkin's Meadow mapping: diagonals at
    /// reflex corners, two resolved at once where possible, then the same merge). Both give
    /// the same area and the same exact paths. Default `merge`: `meadow`'s longer diagonals
    /// steer the midpoint A* of `find_path` to slightly longer corridors.
    pub partition: Partition,
}

/// How the polygons stage cuts the free area into convex polygons (the `partition` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partition {
    /// Constrained Delaunay triangles merged greedily, longest shared edge first (TOML
    /// `"merge"`).
    #[default]
    Merge,
    /// Arkin's Meadow mapping: reflex corners split by diagonals, pairs of reflex corners
    /// resolved by one diagonal first, then the pieces merged (TOML `"meadow"`).
    Meadow,
}

impl Partition {
    /// The setting's value as written in `meadow.toml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Partition::Merge => "merge",
            Partition::Meadow => "meadow",
        }
    }
}

/// Which geometry a bake may take as floor (the `walkable` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WalkableRule {
    /// Untagged and `walkable`-tagged geometry is floor where its slope allows (TOML
    /// `"by-slope"`). Tags never remove floor they do not name.
    #[default]
    BySlope,
    /// Only geometry of nodes tagged `walkable` can be floor (where its slope allows);
    /// untagged geometry only blocks (TOML `"tagged-only"`).
    TaggedOnly,
}

impl WalkableRule {
    /// The setting's value as written in `meadow.toml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WalkableRule::BySlope => "by-slope",
            WalkableRule::TaggedOnly => "tagged-only",
        }
    }
}

impl BakeSettings {
    /// Recast's demo agent: radius 0.6, height 2.0, climb 0.9, slope 45°, 6 vertices, 1 cm arcs,
    /// boundary edges of at most 12 m, floors by slope.
    pub const DEFAULT: BakeSettings = BakeSettings {
        radius: 0.6,
        height: 2.0,
        max_climb: 0.9,
        max_slope: 45.0,
        max_verts_per_poly: 6,
        arc_tolerance: 0.01,
        max_edge_length: 12.0,
        max_walkable_triangles: 0,
        max_region_vertices: 0,
        max_polygons: 0,
        walkable: WalkableRule::BySlope,
        visibility: true,
        max_visibility_ratio: 2.0,
        max_visibility_work: 0,
        tile_size: 0.0,
        partition: Partition::Merge,
    };

    /// The work budgets for a level of `input_triangles` triangles: the fields, or where they
    /// are `0`, the derived defaults (see the module docs).
    pub fn budgets(&self, input_triangles: usize) -> Budgets {
        let n = input_triangles as u64;
        let pick = |set: u64, derived: u64| if set == 0 { derived } else { set };
        Budgets {
            walkable_triangles: pick(self.max_walkable_triangles, DEFAULT_MAX_WALKABLE_TRIANGLES),
            region_vertices: pick(self.max_region_vertices, BUDGET_BASE.saturating_add(n.saturating_mul(512))),
            polygons: pick(self.max_polygons, BUDGET_BASE.saturating_add(n.saturating_mul(16))),
            visibility_work: pick(self.max_visibility_work, DEFAULT_MAX_VISIBILITY_WORK),
        }
    }

    /// Checks every limit documented on the fields.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let check = |name: &'static str, value: f64, ok: bool, limit: &'static str| {
            if value.is_finite() && ok {
                Ok(())
            } else {
                Err(SettingsError { name, value, limit })
            }
        };
        check("radius", self.radius, self.radius >= 0.0 && self.radius <= 1000.0, "0 ..= 1000 m")?;
        check("height", self.height, self.height > 0.0 && self.height <= 1000.0, "> 0 and <= 1000 m")?;
        check("max_climb", self.max_climb, self.max_climb >= 0.0 && self.max_climb < self.height, ">= 0 and < height")?;
        check("max_slope", self.max_slope, self.max_slope >= 0.0 && self.max_slope < 90.0, "0 ..< 90 degrees")?;
        let verts = self.max_verts_per_poly as f64;
        check("max_verts_per_poly", verts, (3..=12).contains(&self.max_verts_per_poly), "3 ..= 12")?;
        check(
            "arc_tolerance",
            self.arc_tolerance,
            self.arc_tolerance >= 1e-4 && self.arc_tolerance <= 10.0,
            "1e-4 ..= 10 m",
        )?;
        let edge = self.max_edge_length;
        check("max_edge_length", edge, edge == 0.0 || (0.05..=1e6).contains(&edge), "0 (no limit) or 0.05 ..= 1e6 m")?;
        check("max_visibility_ratio", self.max_visibility_ratio, self.max_visibility_ratio >= 0.0, ">= 0")?;
        let tile = self.tile_size;
        let tile_ok = tile == 0.0 || (tile >= MIN_TILE_SIZE && tile >= 4.0 * self.radius && tile <= MAX_TILE_SIZE);
        check("tile_size", tile, tile_ok, "0 (one tile) or at least 4 x radius and 1 m, at most 65536 m")?;
        Ok(())
    }
}

/// Smallest non-zero [`BakeSettings::tile_size`], metres: a tile is baked from the geometry
/// within the radius plus 1 m of it, so smaller tiles would mostly bake their margins.
pub const MIN_TILE_SIZE: f64 = 1.0;

/// Largest [`BakeSettings::tile_size`], metres: a level's largest extent
/// ([`crate::limits::MAX_EXTENT`]).
pub const MAX_TILE_SIZE: f64 = crate::limits::MAX_EXTENT;

/// Most tiles a tiled bake may have (the tile grid over the walkable bounds).
pub const MAX_TILES: u64 = 65_536;

/// Derived default of [`BakeSettings::max_walkable_triangles`]: 2^22 triangles (about 400 MB
/// of per-triangle region data).
pub const DEFAULT_MAX_WALKABLE_TRIANGLES: u64 = 1 << 22;

/// Derived default of [`BakeSettings::max_visibility_work`]: 2^25 work units (about 1 s of one
/// core). Undulating, the costliest shared level, uses 211,350.
pub const DEFAULT_MAX_VISIBILITY_WORK: u64 = 1 << 25;

/// Part of the derived region-vertex and polygon budgets that does not grow with the input:
/// 2^20, so that small levels with long boundaries and a short `max_edge_length` still bake.
pub const BUDGET_BASE: u64 = 1 << 20;

/// The work budgets of one bake (see [`BakeSettings::budgets`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Most walkable triangles after classification.
    pub walkable_triangles: u64,
    /// Most region vertices.
    pub region_vertices: u64,
    /// Most output polygons.
    pub polygons: u64,
    /// Most work of the visibility stage (polygons entered plus corner pairs tested / 16).
    pub visibility_work: u64,
}

impl Default for BakeSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A setting outside its documented limits.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("setting `{name}` = {value} is out of range (allowed: {limit})")]
pub struct SettingsError {
    /// The setting's name as in the TOML file and on the command line.
    pub name: &'static str,
    /// The offending value.
    pub value: f64,
    /// The allowed range, in words.
    pub limit: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_negative_radius_is_not() {
        BakeSettings::DEFAULT.validate().unwrap();
        let bad = BakeSettings { radius: -1.0, ..BakeSettings::DEFAULT };
        assert_eq!(bad.validate().unwrap_err().name, "radius");
        let nan = BakeSettings { height: f64::NAN, ..BakeSettings::DEFAULT };
        assert_eq!(nan.validate().unwrap_err().name, "height");
        let verts = BakeSettings { max_verts_per_poly: 13, ..BakeSettings::DEFAULT };
        for ratio in [-1.0, f64::NAN, f64::INFINITY] {
            let s = BakeSettings { max_visibility_ratio: ratio, ..BakeSettings::DEFAULT };
            assert_eq!(s.validate().unwrap_err().name, "max_visibility_ratio");
        }
        assert_eq!(verts.validate().unwrap_err().name, "max_verts_per_poly");
        for bad in [-1.0, 0.01, f64::NAN, f64::INFINITY, 2e6] {
            let s = BakeSettings { max_edge_length: bad, ..BakeSettings::DEFAULT };
            assert_eq!(s.validate().unwrap_err().name, "max_edge_length", "{bad}");
        }
        for good in [0.0, 0.05, 6.0, 1e6] {
            BakeSettings { max_edge_length: good, ..BakeSettings::DEFAULT }.validate().unwrap();
        }
        // Radius 0.6: tiles of at least 2.4 m.
        for bad in [-1.0, 0.5, 2.3, f64::NAN, f64::INFINITY, 70_000.0] {
            let s = BakeSettings { tile_size: bad, ..BakeSettings::DEFAULT };
            assert_eq!(s.validate().unwrap_err().name, "tile_size", "{bad}");
        }
        for good in [0.0, 2.4, 64.0, 65_536.0] {
            BakeSettings { tile_size: good, ..BakeSettings::DEFAULT }.validate().unwrap();
        }
        let point_agent = BakeSettings { radius: 0.0, tile_size: 0.5, ..BakeSettings::DEFAULT };
        assert_eq!(point_agent.validate().unwrap_err().name, "tile_size");
    }

    #[test]
    fn visibility_defaults_to_on_and_reads_its_key() {
        assert_eq!(BakeSettings::default().visibility, BakeSettings::DEFAULT.visibility);
        assert!(BakeSettings::default().visibility);
        let off = serde_json::from_str::<BakeSettings>(r#"{"visibility": false}"#).unwrap();
        assert!(!off.visibility);
        off.validate().unwrap();
    }

    #[test]
    fn walkable_rule_defaults_to_by_slope_and_round_trips() {
        assert_eq!(BakeSettings::DEFAULT.walkable, WalkableRule::BySlope);
        assert_eq!(WalkableRule::default(), WalkableRule::BySlope);
        for rule in [WalkableRule::BySlope, WalkableRule::TaggedOnly] {
            let s = BakeSettings { walkable: rule, ..BakeSettings::DEFAULT };
            let json = serde_json::to_string(&s).unwrap();
            assert!(json.contains(&format!("\"walkable\":\"{}\"", rule.name())), "{json}");
            assert_eq!(serde_json::from_str::<BakeSettings>(&json).unwrap(), s);
        }
        let bad = serde_json::from_str::<BakeSettings>(r#"{"walkable": "tagged"}"#);
        assert!(bad.is_err());
    }
}
