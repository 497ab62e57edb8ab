//! Point location through one trapezoidal map per layer, an alternative to the uniform grid.
//!
//! A layer's map is built from every polygon edge of the layer (both sides labelled with their
//! polygons), so a point strictly inside a trapezoid lies in exactly one polygon of that layer:
//! the trapezoid's label. `locate` then applies the grid locate's height rule to the one
//! candidate per layer. A point on an edge or vertex (several polygons contain it, and the
//! grid's rule picks among them by height and index) and any layer whose edges are not a planar
//! subdivision (the map refuses it) are answered by the grid, so both give the same polygon.

use super::{Tie, TrapMap, NONE};
use crate::query::{xz, QueryMesh, EMPTY_BOUNDS};

/// Which index [`QueryMesh::locate`] searches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Locator {
    /// The uniform grid over polygon bounds (always built: the nearest-point and obstacle
    /// queries read it too).
    #[default]
    Grid,
    /// One trapezoidal map per layer, built when the query mesh is; falls back to the grid on
    /// edges, vertices and layers that are not planar subdivisions.
    TrapezoidalMap,
}

/// The per-layer maps of [`Locator::TrapezoidalMap`].
#[derive(Clone, Debug, Default)]
pub(crate) struct TrapLocator {
    layers: Vec<LayerMap>,
}

/// One layer: its XZ bounds and height range (to skip it quickly) and its map, `None` when its
/// edges are not a planar subdivision.
#[derive(Clone, Debug)]
struct LayerMap {
    bounds: [f64; 4],
    heights: [f64; 2],
    map: Option<TrapMap>,
}

/// Sizes of the trapezoidal-map locator, for benchmarks and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrapezoidalMapStats {
    /// Layers of the mesh.
    pub layers: usize,
    /// Layers whose edges formed a planar subdivision (the others use the grid).
    pub mapped_layers: usize,
    /// Segments over all maps (an edge shared by two polygons counts once).
    pub segments: usize,
    /// Trapezoids inside polygons over all maps.
    pub trapezoids: usize,
    /// Search DAG nodes over all maps.
    pub nodes: usize,
    /// Heap bytes held by the maps.
    pub heap_bytes: usize,
}

impl TrapLocator {
    /// Builds one map per layer from all its polygons' edges.
    pub(crate) fn build(mesh: &QueryMesh) -> TrapLocator {
        let mut layers = Vec::new();
        let mut edges = Vec::new();
        for (_, polys) in mesh.mesh.polygons_by_layer() {
            edges.clear();
            let mut bounds = EMPTY_BOUNDS;
            let mut heights = [f64::INFINITY, f64::NEG_INFINITY];
            for &poly in &polys {
                let b = mesh.poly_bounds[poly as usize];
                let h = mesh.poly_heights[poly as usize];
                bounds = [bounds[0].min(b[0]), bounds[1].min(b[1]), bounds[2].max(b[2]), bounds[3].max(b[3])];
                heights = [heights[0].min(h[0]), heights[1].max(h[1])];
                edges.extend(mesh.poly_edges(poly).iter().map(|&[a, b]| (xz(a), xz(b), poly)));
            }
            let map = TrapMap::build(&edges, |a, b| a == b).ok();
            layers.push(LayerMap { bounds, heights, map });
        }
        TrapLocator { layers }
    }

    /// Sizes of the maps.
    pub(crate) fn stats(&self) -> TrapezoidalMapStats {
        let mut stats = TrapezoidalMapStats {
            layers: self.layers.len(),
            heap_bytes: self.layers.capacity() * std::mem::size_of::<LayerMap>(),
            ..TrapezoidalMapStats::default()
        };
        for map in self.layers.iter().filter_map(|l| l.map.as_ref()) {
            stats.mapped_layers += 1;
            stats.segments += map.segment_count();
            stats.trapezoids += map.trapezoids().len();
            stats.nodes += map.node_count();
            stats.heap_bytes += map.heap_bytes();
        }
        stats
    }

    /// The candidate polygons under `p` with heights in `[p.y - below, p.y + above]`, one per
    /// layer, passed to `f`; `false` when the grid must answer instead (the point is on an edge
    /// or vertex of a layer in reach, or such a layer has no map).
    pub(crate) fn for_each_candidate(&self, p: [f64; 3], below: f64, above: f64, mut f: impl FnMut(u32)) -> bool {
        let q = xz(p);
        for layer in &self.layers {
            let b = layer.bounds;
            if q[0] < b[0] || q[0] > b[2] || q[1] < b[1] || q[1] > b[3] {
                continue;
            }
            if layer.heights[1] < p[1] - below || layer.heights[0] > p[1] + above {
                continue;
            }
            let Some(map) = &layer.map else { return false };
            let (t, on_boundary) = map.locate(q, Tie::Up);
            if on_boundary {
                return false;
            }
            if t != NONE {
                f(map.trapezoids()[t as usize].label);
            }
        }
        true
    }
}
