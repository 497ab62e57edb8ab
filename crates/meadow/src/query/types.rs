//! The query API's value types: errors, path options, found paths, area filters and locations.

use super::links::LinkId;
use crate::asset::NavMesh;

/// Why a point query failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// An input coordinate is NaN or infinite.
    #[error("query point has a non-finite coordinate")]
    NonFiniteInput,
    /// No polygon lies under the point within the vertical tolerance (or within the search box).
    #[error("point is not on the navmesh")]
    OffMesh,
    /// The raycast walk did not terminate within its step limit (degenerate geometry).
    #[error("raycast walk exceeded its step limit")]
    WalkLimit,
    /// An input coordinate lies outside the coordinate contract ([`crate::limits::MAX_COORDINATE`]).
    #[error("query point has a coordinate beyond {} m", crate::limits::MAX_COORDINATE)]
    OutOfRange,
}

/// Why a path query failed.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    /// The start or goal has a NaN or infinite coordinate.
    #[error("start or goal has a non-finite coordinate")]
    NonFiniteInput,
    /// No polygon lies under the start point.
    #[error("start point is not on the navmesh")]
    StartOffMesh,
    /// No polygon lies under the goal point.
    #[error("goal point is not on the navmesh")]
    GoalOffMesh,
    /// The start polygon's area is excluded by the filter.
    #[error("start polygon's area is excluded by the filter")]
    StartExcluded,
    /// A cost override in the filter is not a finite number > 0.
    #[error("filter has cost {cost} for area {area}; costs must be finite and > 0")]
    InvalidFilter {
        /// The area index.
        area: u16,
        /// The cost the filter gives it.
        cost: f32,
    },
    /// No path leads from the start to the goal (and a partial path was not asked for).
    #[error("goal is unreachable from the start")]
    Unreachable,
    /// The start or goal lies outside the coordinate contract ([`crate::limits::MAX_COORDINATE`]).
    #[error("start or goal has a coordinate beyond {} m", crate::limits::MAX_COORDINATE)]
    OutOfRange,
}

/// How the corridor found by A* is turned into path points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PathStyle {
    /// The raw A* path through the midpoints of the corridor's portals.
    Midpoints,
    /// Meadow mapping's refinement: each portal point is the midpoint or either endpoint,
    /// whichever shortens the path, iterated until nothing changes.
    MeadowRefined,
    /// The funnel algorithm: the shortest path inside the corridor (string pulling).
    #[default]
    StringPulled,
}

/// Options of a path query that are not about areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathOptions {
    /// How the corridor is smoothed. Default [`PathStyle::StringPulled`].
    pub style: PathStyle,
    /// When the goal is unreachable, return the path to the reachable point nearest the goal
    /// (flagged [`Path::partial`]) instead of [`PathError::Unreachable`]. Default `false`.
    pub allow_partial: bool,
    /// With [`PathStyle::StringPulled`]: answer a start and goal that see each other with the
    /// straight segment, and re-route the corridor around the other side of corners at vertices
    /// no wall touches while that shortens the path (the corridor of the midpoint graph's
    /// optimum need not hold the shortest path). Default `true`.
    pub shortcuts: bool,
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions { style: PathStyle::StringPulled, allow_partial: false, shortcuts: true }
    }
}

/// A found path.
///
/// ```
/// use meadow::{NavMesh, PathQuery, QueryFilter, QueryMesh};
/// # let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
/// let mesh = QueryMesh::new(NavMesh::from_bytes(bytes)?);
/// let path = PathQuery::new(&mesh).find_path(&mesh, [-5.0, 0.0, 0.0], [5.0, 0.0, 0.0], &QueryFilter::new())?;
/// assert_eq!(path.points.first(), Some(&[-5.0, 0.0, 0.0]));
/// assert_eq!(path.points.last(), Some(&[5.0, 0.0, 0.0]));
/// assert!(path.points.len() > 2 && path.length > 10.0); // round the box
/// assert!(!path.partial && path.links.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Path {
    /// Path points `[x, y, z]` from the start to the goal, heights on the mesh surface.
    pub points: Vec<[f64; 3]>,
    /// Length of the polyline through `points` (metres, 3D).
    pub length: f64,
    /// The polygons the path passes through, from the start polygon to the goal polygon.
    pub corridor: Vec<u32>,
    /// Whether the path ends at the reachable point nearest an unreachable goal.
    pub partial: bool,
    /// The off-mesh links the path takes, in path order: segment `points[l.segment] ->
    /// points[l.segment + 1]` of each is the link (take-off to landing), walked off the mesh.
    pub links: Vec<PathLink>,
}

/// An off-mesh link a [`Path`] takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PathLink {
    /// Index of the path point where the link takes off; the next point is where it lands.
    pub segment: usize,
    /// The link's handle in the mesh's link table.
    pub link: LinkId,
    /// The game's id of the link (from the level's `navmesh_link` extras or [`LinkSpec::id`](super::LinkSpec::id)).
    pub id: u32,
    /// Whether the link is taken from its end to its start (a two-way link walked backwards).
    pub reversed: bool,
}

impl Path {
    /// Empties the path, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.points.clear();
        self.corridor.clear();
        self.links.clear();
        self.length = 0.0;
        self.partial = false;
    }

    /// The link taken over segment `points[segment] -> points[segment + 1]`, if that segment is
    /// an off-mesh link.
    pub fn link_at(&self, segment: usize) -> Option<&PathLink> {
        self.links.iter().find(|l| l.segment == segment)
    }
}

/// Per-area rule of a [`QueryFilter`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct AreaRule {
    listed: bool,
    excluded: bool,
    cost: Option<f32>,
}

/// Which areas a path may cross and what they cost; the default allows every area at the
/// mesh's own cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryFilter {
    rules: Vec<AreaRule>,
    exclude_unlisted: bool,
    no_links: bool,
}

impl QueryFilter {
    /// A filter that allows every area at the mesh's cost.
    pub fn new() -> QueryFilter {
        QueryFilter::default()
    }

    /// A filter that allows only the given areas (at the mesh's cost unless overridden).
    pub fn include_only(areas: &[u16]) -> QueryFilter {
        let mut f = QueryFilter { rules: Vec::new(), exclude_unlisted: true, no_links: false };
        for &a in areas {
            f.rule_mut(a).listed = true;
        }
        f
    }

    /// Excludes an area: paths never enter its polygons.
    pub fn exclude(mut self, area: u16) -> QueryFilter {
        self.rule_mut(area).excluded = true;
        self
    }

    /// Overrides an area's cost multiplier (must be finite and > 0; costs below 1 weaken the
    /// A* heuristic accordingly, so results stay optimal).
    pub fn with_cost(mut self, area: u16, cost: f32) -> QueryFilter {
        self.rule_mut(area).cost = Some(cost);
        self
    }

    /// Switches off-mesh links off: paths stay on the mesh. (Links of an excluded area are
    /// off already.)
    pub fn without_links(mut self) -> QueryFilter {
        self.no_links = true;
        self
    }

    /// Whether the filter lets paths take off-mesh links at all.
    pub fn allows_links(&self) -> bool {
        !self.no_links
    }

    /// The cost multiplier of an off-mesh link of area `area`, or `None` when the filter
    /// excludes links or that area.
    pub fn link_cost(&self, mesh: &NavMesh, area: u16) -> Option<f64> {
        if self.no_links {
            return None;
        }
        self.area_cost(mesh, area)
    }

    fn rule_mut(&mut self, area: u16) -> &mut AreaRule {
        let i = area as usize;
        if self.rules.len() <= i {
            self.rules.resize(i + 1, AreaRule::default());
        }
        &mut self.rules[i]
    }

    /// The cost multiplier of an area, or `None` when the filter excludes it.
    pub fn area_cost(&self, mesh: &NavMesh, area: u16) -> Option<f64> {
        let rule = self.rules.get(area as usize).copied().unwrap_or_default();
        if rule.excluded || (self.exclude_unlisted && !rule.listed) {
            return None;
        }
        match rule.cost {
            Some(c) => Some(c as f64),
            None => Some(mesh.areas().get(area as usize).map_or(1.0, |a| a.cost as f64)),
        }
    }

    /// Checks the overrides and returns the smallest cost multiplier any area can have, which
    /// scales the A* heuristic (mesh costs are validated `>= 1`).
    pub(crate) fn heuristic_scale(&self) -> Result<f64, PathError> {
        let mut scale = 1.0f64;
        for (area, rule) in self.rules.iter().enumerate() {
            if let Some(cost) = rule.cost {
                if !(cost.is_finite() && cost > 0.0) {
                    return Err(PathError::InvalidFilter { area: area as u16, cost });
                }
                scale = scale.min(cost as f64);
            }
        }
        Ok(scale)
    }
}

/// A polygon and a point on its surface.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Location {
    /// The polygon index.
    pub polygon: u32,
    /// The point `[x, y, z]`, with `y` on the polygon's surface.
    pub point: [f64; 3],
}

impl PathError {
    /// The path error for a start or goal that failed [`check_input`].
    pub(crate) fn from_input(e: QueryError) -> PathError {
        match e {
            QueryError::OutOfRange => PathError::OutOfRange,
            _ => PathError::NonFiniteInput,
        }
    }
}
