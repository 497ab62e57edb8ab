//! The triangles of one mesh primitive: modes, indices, world transform, the coordinate
//! contract, windings and degenerate triangles.

use super::accessors::AccessorUse;
use super::nodes::{Instance, OwnTag};
use super::reader::Reader;
use super::volume::VolumeParts;
use super::{IngestError, NavTag, Scene, SceneTriangle, MAX_TRIANGLES};
use gltf::json;

impl Reader<'_> {
    /// Adds one primitive's triangles (world space, front face CCW) to the scene.
    pub(super) fn add_primitive(
        &self,
        instance: &Instance,
        mesh_index: usize,
        primitive_index: usize,
        primitive: &json::mesh::Primitive,
        scene: &mut Scene,
        mut volume: Option<&mut VolumeParts>,
    ) -> Result<PrimitiveOutcome, IngestError> {
        use json::mesh::Mode;
        use json::validation::Checked;
        let node_label = || self.node_label(instance.gltf_node);
        let mode = match primitive.mode {
            Checked::Valid(mode) => mode,
            Checked::Invalid => {
                return Err(self.malformed(format!(
                    "mesh {}, primitive {primitive_index} has an invalid mode",
                    self.mesh_label(mesh_index)
                )))
            }
        };
        match mode {
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan => {}
            Mode::Points => return Ok(PrimitiveOutcome::Skipped("POINTS")),
            Mode::Lines => return Ok(PrimitiveOutcome::Skipped("LINES")),
            Mode::LineLoop => return Ok(PrimitiveOutcome::Skipped("LINE_LOOP")),
            Mode::LineStrip => return Ok(PrimitiveOutcome::Skipped("LINE_STRIP")),
        }
        let tag = match instance.inherited.tag {
            None => NavTag::Auto,
            Some(OwnTag::Walkable) => NavTag::Walkable,
            Some(OwnTag::Obstacle) => NavTag::Obstacle,
            // Unused: the triangles go to `volume`.
            Some(OwnTag::AreaVolume) => NavTag::Obstacle,
            Some(OwnTag::Ignore) => {
                // Ignored geometry is not even decoded (a broken helper mesh can be ignored);
                // its triangles are counted from the accessor counts alone.
                let counted = primitive
                    .indices
                    .or_else(|| primitive.attributes.get(&Checked::Valid(json::mesh::Semantic::Positions)).copied());
                let corners = counted.and_then(|a| self.root.accessors.get(a.value())).map_or(0, |a| a.count.0);
                scene.ignored_dropped += triangle_count(mode, corners);
                return Ok(PrimitiveOutcome::Added { leftover_indices: false });
            }
        };
        let Some(position_accessor) =
            primitive.attributes.get(&Checked::Valid(json::mesh::Semantic::Positions)).map(|a| a.value())
        else {
            return Err(IngestError::MissingPosition {
                path: self.path.to_path_buf(),
                node: node_label(),
                mesh: self.mesh_label(mesh_index),
                primitive: primitive_index,
            });
        };
        let role = format!("POSITION of mesh {}", self.mesh_label(mesh_index));
        let positions = self.decoded_accessor(position_accessor, &role, AccessorUse::Position)?;
        let vertex_count = positions.len() / 3;

        let indices: Vec<u32> = match primitive.indices {
            Some(accessor) => {
                let role = format!("indices of mesh {}", self.mesh_label(mesh_index));
                let values = self.decoded_accessor(accessor.value(), &role, AccessorUse::Index)?;
                // Index values were read from unsigned integers of at most 32 bits: exact.
                values.iter().map(|&v| v as u32).collect()
            }
            None => {
                let count = u32::try_from(vertex_count)
                    .map_err(|_| self.too_large(format!("accessor {position_accessor} has too many vertices")))?;
                (0..count).collect()
            }
        };
        if let Some(&index) = indices.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(IngestError::IndexOutOfRange {
                path: self.path.to_path_buf(),
                node: node_label(),
                mesh: self.mesh_label(mesh_index),
                primitive: primitive_index,
                accessor: position_accessor,
                index,
                vertex_count,
            });
        }

        // Only the vertices the primitive uses are transformed and checked.
        let mut world: Vec<Option<[f64; 3]>> = vec![None; vertex_count];
        let m = &instance.world;
        for &i in &indices {
            let i = i as usize;
            if world[i].is_some() {
                continue;
            }
            let p = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
            let w = [
                m[(0, 0)] * p[0] + m[(0, 1)] * p[1] + m[(0, 2)] * p[2] + m[(0, 3)],
                m[(1, 0)] * p[0] + m[(1, 1)] * p[1] + m[(1, 2)] * p[2] + m[(1, 3)],
                m[(2, 0)] * p[0] + m[(2, 1)] * p[1] + m[(2, 2)] * p[2] + m[(2, 3)],
            ];
            for (value, in_world) in [(p, false), (w, true)] {
                if value.iter().any(|c| !c.is_finite()) {
                    return Err(IngestError::NonFinitePosition {
                        path: self.path.to_path_buf(),
                        node: node_label(),
                        mesh: self.mesh_label(mesh_index),
                        accessor: position_accessor,
                        vertex: i,
                        value,
                        world: in_world,
                    });
                }
            }
            self.check_contract(w).map_err(|detail| IngestError::OutOfRange {
                path: self.path.to_path_buf(),
                node: node_label(),
                accessor: position_accessor,
                vertex: i,
                value: w,
                detail,
            })?;
            world[i] = Some(w);
        }

        let corner_triples = triangle_corners(mode, &indices);
        let leftover_indices = mode == Mode::Triangles && !indices.len().is_multiple_of(3);
        let flip = instance.world.fixed_view::<3, 3>(0, 0).determinant() < 0.0;
        let held = scene.triangles.len() + self.volume_triangles.get();
        if held + corner_triples.len() > MAX_TRIANGLES {
            return Err(self.too_large(format!("more than {MAX_TRIANGLES} triangles")));
        }
        for [a, b, c] in corner_triples {
            if a == b || b == c || a == c {
                scene.degenerate_dropped += 1;
                continue;
            }
            let corner = |i: u32| world[i as usize].unwrap_or([0.0; 3]);
            let (pa, mut pb, mut pc) = (corner(a), corner(b), corner(c));
            if let Some(parts) = volume.as_deref_mut() {
                // Windings do not matter for a volume: only its footprint and heights do.
                parts.add([pa, pb, pc]);
                self.volume_triangles.set(self.volume_triangles.get() + 1);
                continue;
            }
            if is_collinear(pa, pb, pc) {
                scene.degenerate_dropped += 1;
                continue;
            }
            if flip {
                std::mem::swap(&mut pb, &mut pc);
            }
            scene.triangles.push(SceneTriangle {
                vertices: [pa, pb, pc],
                tag,
                area: instance.inherited.area,
                node: instance.scene_node,
            });
        }
        Ok(PrimitiveOutcome::Added { leftover_indices })
    }

    /// Checks a finite world-space vertex against the coordinate contract and widens the
    /// level's bounds by it; the error says which limit it breaks.
    pub(super) fn check_contract(&self, w: [f64; 3]) -> Result<(), String> {
        use meadow::limits::{MAX_COORDINATE, MAX_EXTENT};
        if !meadow::limits::in_range(w) {
            return Err(format!("a coordinate is beyond the {MAX_COORDINATE} m limit"));
        }
        let mut bounds = self.bounds.borrow_mut();
        let [mut lo, mut hi] = *bounds;
        for k in 0..3 {
            lo[k] = lo[k].min(w[k]);
            hi[k] = hi[k].max(w[k]);
            if hi[k] - lo[k] > MAX_EXTENT {
                let axis = ["x", "y", "z"][k];
                return Err(format!(
                    "the level would span {:.0} m along {axis}, more than the {MAX_EXTENT} m limit \
                     (tag far-away helper geometry \"navmesh\": \"ignore\")",
                    hi[k] - lo[k]
                ));
            }
        }
        *bounds = [lo, hi];
        Ok(())
    }
}

/// What became of one primitive: its triangles were added (`leftover_indices`: a TRIANGLES index
/// count that is not a multiple of 3), or it was skipped as a non-triangle mode (named).
pub(super) enum PrimitiveOutcome {
    Added { leftover_indices: bool },
    Skipped(&'static str),
}

/// The corner index triples of a triangle primitive, each in the front-face order of glTF
/// (strips alternate so every triangle keeps the strip's winding; fans turn around the first vertex).
pub(super) fn triangle_corners(mode: json::mesh::Mode, indices: &[u32]) -> Vec<[u32; 3]> {
    use json::mesh::Mode;
    match mode {
        Mode::Triangles => indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => (0..indices.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [indices[i], indices[i + 1], indices[i + 2]]
                } else {
                    [indices[i], indices[i + 2], indices[i + 1]]
                }
            })
            .collect(),
        Mode::TriangleFan => {
            (1..indices.len().saturating_sub(1)).map(|i| [indices[i], indices[i + 1], indices[0]]).collect()
        }
        _ => Vec::new(),
    }
}

/// How many triangles a triangle primitive of `corners` indices (or vertices) draws.
pub(super) fn triangle_count(mode: json::mesh::Mode, corners: u64) -> usize {
    use json::mesh::Mode;
    let count = match mode {
        Mode::Triangles => corners / 3,
        Mode::TriangleStrip | Mode::TriangleFan => corners.saturating_sub(2),
        _ => 0,
    };
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// Whether three points lie on one line: exact, through the orientation of their projections
/// onto the three coordinate planes (collinear in 3D iff collinear in all three projections).
pub(super) fn is_collinear(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> bool {
    use meadow::geom::orient2d;
    [(0, 1), (1, 2), (2, 0)].iter().all(|&(u, v)| orient2d([a[u], a[v]], [b[u], b[v]], [c[u], c[v]]) == 0.0)
}
