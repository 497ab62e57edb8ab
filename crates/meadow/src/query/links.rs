//! Off-mesh links at run time: the baked links of the asset plus those a game adds, in a table
//! the [`QueryMesh`] owns beside its immutable polygons (as Unity's `NavMeshLink` does; Detour
//! must rebuild tiles to change its off-mesh connections).
//!
//! Every change to the table builds a new immutable snapshot ([`LinkState`]): the links'
//! take-off directions indexed by polygon, the portal-graph components joined through links,
//! the A* chains (polygons holding a link end are never jumped over) and, on first use, the
//! landmark tables over portals and link end points. A query takes one snapshot at its start
//! (an `Arc` clone, no allocation), so a link added or removed by another thread mid-query is
//! seen by the next query.

use super::chains::Chains;
use super::landmarks::Landmarks;
use super::{dist3, DisjointSets, QueryMesh, NONE};
use crate::asset::OffMeshLink;
use std::sync::{Arc, OnceLock, RwLock};

/// The handle of a link in a [`QueryMesh`]'s link table: baked links are `0..n` in asset order,
/// links added at run time get the next numbers (never reused).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LinkId(pub u32);

/// Distance (metres) beyond the agent radius within which a link end connects to the mesh when
/// no radius is given: Recast's off-mesh connections snap within the agent radius; the extra
/// half metre takes link nodes placed a little above or beside the floor, as authors do.
pub const DEFAULT_LINK_REACH: f64 = 0.5;

/// Largest link cost, metres: costs are summed with path lengths (within the coordinate
/// contract, below 2^24 m per path) and multiplied by area costs (f32), and must stay far from
/// overflow; no real link costs more than a trip round a planet.
pub const MAX_LINK_COST: f64 = (1u64 << 40) as f64;

/// Most links a table holds (take-off directions and landmark rows must fit 32-bit ids).
pub const MAX_LINKS: usize = 1 << 24;

/// A link to connect to the mesh: end points anywhere within `radius` of a polygon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Where the link starts `[x, y, z]` (near the mesh).
    pub start: [f64; 3],
    /// Where the link ends `[x, y, z]` (near the mesh, any layer, any distance away).
    pub end: [f64; 3],
    /// Whether the link can be taken both ways.
    pub bidirectional: bool,
    /// Traversal cost in metres of walking before the area multiplier; `None`: the 3D distance
    /// between the connected end points.
    pub cost: Option<f64>,
    /// Area type (index into the mesh's areas): filters exclude links by area.
    pub area: u16,
    /// The game's identifier, handed back in paths.
    pub id: u32,
    /// How far (3D, metres) an end point may be from the polygon it connects to; `None`: the
    /// agent radius plus [`DEFAULT_LINK_REACH`].
    pub radius: Option<f64>,
}

impl LinkSpec {
    /// A two-way link of the default area and cost from `start` to `end`.
    pub fn new(start: [f64; 3], end: [f64; 3]) -> LinkSpec {
        LinkSpec { start, end, bidirectional: true, cost: None, area: 0, id: 0, radius: None }
    }
}

/// Why a link could not be connected, added or removed.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum LinkError {
    /// An end point, the cost or the radius is NaN or infinite.
    #[error("link end point, cost or radius is not finite")]
    NonFinite,
    /// The cost is negative or above [`MAX_LINK_COST`].
    #[error("link cost {cost} must be >= 0 and <= {MAX_LINK_COST} m")]
    BadCost {
        /// The rejected cost.
        cost: f64,
    },
    /// An end point lies beyond the coordinate contract ([`crate::limits::MAX_COORDINATE`]).
    #[error("link end point {point:?} lies beyond the coordinate limit of {} m", crate::limits::MAX_COORDINATE)]
    OutOfRange {
        /// The end point given.
        point: [f64; 3],
    },
    /// The radius is negative.
    #[error("link radius {radius} must be >= 0")]
    NegativeRadius {
        /// The rejected radius.
        radius: f64,
    },
    /// The area index is not one of the mesh's areas.
    #[error("link area {area} is out of range (the mesh has {count} area types)")]
    AreaOutOfRange {
        /// The rejected area.
        area: u16,
        /// Number of area types.
        count: usize,
    },
    /// No polygon lies within the radius of the start point.
    #[error("no navmesh polygon lies within {radius} m of the link's start {point:?}")]
    StartOffMesh {
        /// The start point given.
        point: [f64; 3],
        /// The radius searched.
        radius: f64,
    },
    /// No polygon lies within the radius of the end point.
    #[error("no navmesh polygon lies within {radius} m of the link's end {point:?}")]
    EndOffMesh {
        /// The end point given.
        point: [f64; 3],
        /// The radius searched.
        radius: f64,
    },
    /// The table has no link with this id (never added, or removed).
    #[error("no off-mesh link {0:?}")]
    UnknownLink(LinkId),
    /// The table is full.
    #[error("the link table holds at most {MAX_LINKS} links")]
    TooMany,
}

/// One direction of an active link: where it takes off and lands, and what it costs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Takeoff {
    /// The link's handle.
    pub(crate) link: LinkId,
    /// The link's index among the active links (its landmark rows).
    pub(crate) active: u32,
    /// Whether this direction runs from the link's end to its start.
    pub(crate) reversed: bool,
    /// Take-off point and polygon.
    pub(crate) from: [f64; 3],
    pub(crate) from_poly: u32,
    /// Landing point and polygon.
    pub(crate) to: [f64; 3],
    pub(crate) to_poly: u32,
    /// Cost before the area multiplier.
    pub(crate) cost: f64,
    /// Area type.
    pub(crate) area: u16,
    /// The game's id.
    pub(crate) id: u32,
}

impl Takeoff {
    /// Whether the link is cheaper than the straight 3D line between its ends (a teleporter):
    /// then the straight-line distance is no lower bound on paths that take it.
    pub(crate) fn is_shortcut(&self) -> bool {
        self.cost < dist3(self.from, self.to)
    }
}

/// One snapshot of a mesh's link table and the tables derived from it.
#[derive(Debug)]
pub(crate) struct LinkState {
    /// By [`LinkId`]: the link, or `None` once removed.
    slots: Vec<Option<OffMeshLink>>,
    /// Active links' slots, in slot order (their landmark rows follow the half-edges': active
    /// link `i` has rows `H + 2i` at its start and `H + 2i + 1` at its end).
    active: Vec<u32>,
    /// Take-off directions of the active links (forward, then reverse when two-way).
    pub(crate) takeoffs: Vec<Takeoff>,
    /// Per polygon (CSR offsets, `polygons + 1` entries): the take-offs leaving from it.
    takeoff_start: Vec<u32>,
    takeoff_list: Vec<u32>,
    /// Per polygon (CSR): the landmark rows of the link end points on it.
    point_start: Vec<u32>,
    point_list: Vec<u32>,
    /// Per polygon: its component of the portal graph joined through links (numbered by first
    /// polygon; links are taken both ways, so it may join more than a one-way link reaches).
    reach: Vec<u32>,
    /// Take-offs that are shortcuts ([`Takeoff::is_shortcut`]).
    pub(crate) shortcuts: Vec<u32>,
    /// Chains of the portal graph, never through a polygon holding a link end.
    pub(crate) chains: Chains,
    /// Landmark distances over portals and link end points (built on first use).
    landmarks: OnceLock<Landmarks>,
}

impl LinkState {
    /// A placeholder holding nothing, for a query mesh under construction.
    pub(crate) fn empty() -> LinkState {
        LinkState {
            slots: Vec::new(),
            active: Vec::new(),
            takeoffs: Vec::new(),
            takeoff_start: Vec::new(),
            takeoff_list: Vec::new(),
            point_start: Vec::new(),
            point_list: Vec::new(),
            reach: Vec::new(),
            shortcuts: Vec::new(),
            chains: Chains::default(),
            landmarks: OnceLock::new(),
        }
    }

    /// Builds the snapshot of `slots` on `mesh`.
    pub(crate) fn build(mesh: &QueryMesh, slots: Vec<Option<OffMeshLink>>) -> LinkState {
        let polys = mesh.mesh().polygon_count();
        let active: Vec<u32> = (0..slots.len() as u32).filter(|&i| slots[i as usize].is_some()).collect();
        let mut takeoffs = Vec::with_capacity(active.len() * 2);
        for (i, &slot) in active.iter().enumerate() {
            let Some(l) = slots[slot as usize] else { continue };
            let base = Takeoff {
                link: LinkId(slot),
                active: i as u32,
                reversed: false,
                from: l.start,
                from_poly: l.start_polygon,
                to: l.end,
                to_poly: l.end_polygon,
                cost: l.cost,
                area: l.area,
                id: l.id,
            };
            takeoffs.push(base);
            if l.bidirectional {
                takeoffs.push(Takeoff {
                    reversed: true,
                    from: l.end,
                    from_poly: l.end_polygon,
                    to: l.start,
                    to_poly: l.start_polygon,
                    ..base
                });
            }
        }
        let (takeoff_start, takeoff_list) =
            csr(polys, takeoffs.iter().enumerate().map(|(t, k)| (k.from_poly, t as u32)));
        let h = mesh.half_edge_count() as u32;
        let points = active.iter().enumerate().flat_map(|(i, &slot)| {
            let l = slots[slot as usize].expect("active slots hold links");
            [(l.start_polygon, h + 2 * i as u32), (l.end_polygon, h + 2 * i as u32 + 1)]
        });
        let (point_start, point_list) = csr(polys, points);
        // Components of the portal graph, joined through links (both ways).
        let component = mesh.components();
        let count = component.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut sets = DisjointSets::new(count);
        for t in &takeoffs {
            sets.union(component[t.from_poly as usize], component[t.to_poly as usize]);
        }
        let mut id_of_root = vec![NONE; count];
        let mut next = 0;
        let reach = component
            .iter()
            .map(|&c| {
                let r = sets.root(c) as usize;
                if id_of_root[r] == NONE {
                    id_of_root[r] = next;
                    next += 1;
                }
                id_of_root[r]
            })
            .collect();
        let shortcuts = (0..takeoffs.len() as u32).filter(|&t| takeoffs[t as usize].is_shortcut()).collect();
        let mut holds_link = vec![false; polys];
        for t in &takeoffs {
            holds_link[t.from_poly as usize] = true;
            holds_link[t.to_poly as usize] = true;
        }
        let chains = Chains::build(mesh, &holds_link);
        LinkState {
            slots,
            active,
            takeoffs,
            takeoff_start,
            takeoff_list,
            point_start,
            point_list,
            reach,
            shortcuts,
            chains,
            landmarks: OnceLock::new(),
        }
    }

    /// The take-offs leaving from polygon `poly`.
    #[inline]
    pub(crate) fn takeoffs_from(&self, poly: u32) -> &[u32] {
        let (a, b) = (self.takeoff_start[poly as usize] as usize, self.takeoff_start[poly as usize + 1] as usize);
        &self.takeoff_list[a..b]
    }

    /// The landmark rows of the link end points on polygon `poly`.
    #[inline]
    pub(crate) fn points_on(&self, poly: u32) -> &[u32] {
        let (a, b) = (self.point_start[poly as usize] as usize, self.point_start[poly as usize + 1] as usize);
        &self.point_list[a..b]
    }

    /// Number of active links.
    pub(crate) fn active_count(&self) -> usize {
        self.active.len()
    }

    /// Active link `i`'s end point `end` (0: start, 1: end) and its polygon.
    pub(crate) fn point(&self, i: usize, end: usize) -> ([f64; 3], u32) {
        let l = self.slots[self.active[i] as usize].expect("active slots hold links");
        if end == 0 {
            (l.start, l.start_polygon)
        } else {
            (l.end, l.end_polygon)
        }
    }

    /// Active link `i`'s cost before the area multiplier.
    pub(crate) fn active_cost(&self, i: usize) -> f64 {
        self.slots[self.active[i] as usize].map_or(f64::INFINITY, |l| l.cost)
    }

    /// Whether polygons `a` and `b` lie in one component of the portal graph joined through
    /// links (paths between different ones cannot exist).
    pub(crate) fn connected(&self, a: u32, b: u32) -> bool {
        self.reach.get(a as usize) == self.reach.get(b as usize)
    }

    /// Per polygon: its component joined through links.
    pub(crate) fn components(&self) -> &[u32] {
        &self.reach
    }

    /// The landmark tables, built on first use.
    pub(crate) fn landmarks(&self, mesh: &QueryMesh) -> &Landmarks {
        self.landmarks.get_or_init(|| Landmarks::build(mesh, self))
    }

    /// Whether any link is active.
    pub(crate) fn is_empty(&self) -> bool {
        self.takeoffs.is_empty()
    }
}

/// CSR offsets and list of `(bucket, value)` pairs over `buckets` buckets, values in input
/// order within a bucket.
fn csr(buckets: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; buckets + 1];
    for (b, _) in pairs.clone() {
        start[b as usize + 1] += 1;
    }
    for i in 0..buckets {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![0u32; start[buckets] as usize];
    for (b, v) in pairs {
        list[fill[b as usize] as usize] = v;
        fill[b as usize] += 1;
    }
    (start, list)
}

/// The link table cell of a [`QueryMesh`]: the current snapshot, replaced whole on change.
#[derive(Debug)]
pub(crate) struct LinkCell(RwLock<Arc<LinkState>>);

impl LinkCell {
    pub(crate) fn new(state: LinkState) -> LinkCell {
        LinkCell(RwLock::new(Arc::new(state)))
    }

    /// The current snapshot.
    pub(crate) fn get(&self) -> Arc<LinkState> {
        // A panic while holding the lock cannot leave a half-built state (states are built
        // before the swap), so a poisoned lock still holds a consistent snapshot.
        match self.0.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Replaces the snapshot with `change(current slots)`'s result, built on `mesh`.
    fn update<T>(
        &self,
        mesh: &QueryMesh,
        change: impl FnOnce(&mut Vec<Option<OffMeshLink>>) -> Result<T, LinkError>,
    ) -> Result<T, LinkError> {
        let mut guard = match self.0.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let mut slots = guard.slots.clone();
        let out = change(&mut slots)?;
        *guard = Arc::new(LinkState::build(mesh, slots));
        Ok(out)
    }
}

impl Clone for LinkCell {
    fn clone(&self) -> Self {
        LinkCell(RwLock::new(self.get()))
    }
}

/// A snapshot of a mesh's off-mesh links (see [`QueryMesh::links`]).
#[derive(Clone, Debug)]
pub struct Links(Arc<LinkState>);

impl Links {
    /// The active links with their handles, in handle order.
    pub fn iter(&self) -> impl Iterator<Item = (LinkId, &OffMeshLink)> + '_ {
        self.0.slots.iter().enumerate().filter_map(|(i, l)| l.as_ref().map(|l| (LinkId(i as u32), l)))
    }

    /// The link with handle `id`, if it is active.
    pub fn get(&self, id: LinkId) -> Option<&OffMeshLink> {
        self.0.slots.get(id.0 as usize).and_then(Option::as_ref)
    }

    /// Number of active links.
    pub fn len(&self) -> usize {
        self.0.active.len()
    }

    /// Whether there is no active link.
    pub fn is_empty(&self) -> bool {
        self.0.active.is_empty()
    }
}

impl QueryMesh {
    /// The current off-mesh links (baked and added at run time), as a snapshot.
    pub fn links(&self) -> Links {
        Links(self.links.get())
    }

    /// The current link snapshot, for one query.
    pub(crate) fn link_state(&self) -> Arc<LinkState> {
        self.links.get()
    }

    /// Connects a link to the mesh without adding it: each end point goes to the nearest point
    /// (3D) of the polygon nearest it within the radius, on any layer. The bake uses this for
    /// the links of a level.
    pub fn connect_link(&self, spec: &LinkSpec) -> Result<OffMeshLink, LinkError> {
        let radius = spec.radius.unwrap_or(self.mesh().settings().radius + DEFAULT_LINK_REACH);
        let finite = spec.start.iter().chain(&spec.end).all(|c| c.is_finite())
            && radius.is_finite()
            && spec.cost.is_none_or(f64::is_finite);
        if !finite {
            return Err(LinkError::NonFinite);
        }
        if radius < 0.0 {
            return Err(LinkError::NegativeRadius { radius });
        }
        if !crate::limits::in_range(spec.start) || !crate::limits::in_range(spec.end) {
            let point = if crate::limits::in_range(spec.start) { spec.end } else { spec.start };
            return Err(LinkError::OutOfRange { point });
        }
        if let Some(cost) = spec.cost.filter(|&c| !(0.0..=MAX_LINK_COST).contains(&c)) {
            return Err(LinkError::BadCost { cost });
        }
        let count = self.mesh().areas().len();
        if spec.area as usize >= count {
            return Err(LinkError::AreaOutOfRange { area: spec.area, count });
        }
        let near = |p: [f64; 3]| self.nearest_point(p, [radius; 3]).ok().filter(|l| dist3(l.point, p) <= radius);
        let start = near(spec.start).ok_or(LinkError::StartOffMesh { point: spec.start, radius })?;
        let end = near(spec.end).ok_or(LinkError::EndOffMesh { point: spec.end, radius })?;
        Ok(OffMeshLink {
            start: start.point,
            end: end.point,
            start_polygon: start.polygon,
            end_polygon: end.polygon,
            bidirectional: spec.bidirectional,
            cost: spec.cost.unwrap_or_else(|| dist3(start.point, end.point)),
            area: spec.area,
            id: spec.id,
        })
    }

    /// Connects a link ([`QueryMesh::connect_link`]) and adds it to the link table; queries
    /// started afterwards use it.
    pub fn add_link(&self, spec: &LinkSpec) -> Result<LinkId, LinkError> {
        let link = self.connect_link(spec)?;
        self.insert_link(link)
    }

    /// Adds an already connected link (for example one of another mesh's table, or a baked
    /// one removed earlier) after checking it against this mesh.
    pub fn insert_link(&self, link: OffMeshLink) -> Result<LinkId, LinkError> {
        let data = self.mesh().data();
        if crate::asset::validate_link(data, &link).is_err() {
            // Name the first thing wrong as the connection would have.
            if !link.start.iter().chain(&link.end).chain([&link.cost]).all(|c| c.is_finite()) {
                return Err(LinkError::NonFinite);
            }
            if !(0.0..=MAX_LINK_COST).contains(&link.cost) {
                return Err(LinkError::BadCost { cost: link.cost });
            }
            if link.area as usize >= data.areas.len() {
                return Err(LinkError::AreaOutOfRange { area: link.area, count: data.areas.len() });
            }
            return Err(LinkError::StartOffMesh { point: link.start, radius: 0.0 });
        }
        self.links.update(self, |slots| {
            if slots.len() >= MAX_LINKS {
                return Err(LinkError::TooMany);
            }
            slots.push(Some(link));
            Ok(LinkId(slots.len() as u32 - 1))
        })
    }

    /// Removes link `id` from the table; queries started afterwards no longer use it.
    pub fn remove_link(&self, id: LinkId) -> Result<OffMeshLink, LinkError> {
        self.links
            .update(self, |slots| slots.get_mut(id.0 as usize).and_then(Option::take).ok_or(LinkError::UnknownLink(id)))
    }
}
