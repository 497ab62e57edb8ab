//! Accessors: typed reads of buffer data with every byte range checked, sparse substitution,
//! and normalised (quantized) positions.

use super::reader::Reader;
use super::IngestError;
use gltf::json;
use std::rc::Rc;

/// Most elements of an accessor without a buffer view (its values are implicit zeros).
const MAX_IMPLICIT_ELEMENTS: u64 = 1 << 24;

/// What an accessor is read for; it decides the types accepted (and the decoded cache key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum AccessorUse {
    Position,
    Index,
}

impl Reader<'_> {
    /// [`Self::read_accessor`], once per accessor and use.
    pub(super) fn decoded_accessor(
        &self,
        index: usize,
        role: &str,
        usage: AccessorUse,
    ) -> Result<Rc<Vec<f64>>, IngestError> {
        if let Some(values) = self.decoded.borrow().get(&(index, usage)) {
            return Ok(Rc::clone(values));
        }
        let values = Rc::new(self.read_accessor(index, role, usage)?);
        self.decoded.borrow_mut().insert((index, usage), Rc::clone(&values));
        Ok(values)
    }

    /// Reads an accessor (with sparse substitution) into `f64`s, checking every byte range.
    pub(super) fn read_accessor(&self, index: usize, role: &str, usage: AccessorUse) -> Result<Vec<f64>, IngestError> {
        use json::accessor::{ComponentType, Type};
        use json::validation::Checked;
        let out_of_bounds = |detail: String| IngestError::AccessorOutOfBounds {
            path: self.path.to_path_buf(),
            accessor: index,
            role: role.to_string(),
            detail,
        };
        let accessor = self
            .root
            .accessors
            .get(index)
            .ok_or_else(|| self.malformed(format!("{role} refers to accessor {index}, which does not exist")))?;
        let (Checked::Valid(component), Checked::Valid(kind)) = (&accessor.component_type, &accessor.type_) else {
            return Err(self.malformed(format!("accessor {index} ({role}) has an invalid componentType or type")));
        };
        let component = component.0;
        let width = match kind {
            Type::Scalar => 1,
            Type::Vec2 => 2,
            Type::Vec3 => 3,
            Type::Vec4 => 4,
            Type::Mat2 | Type::Mat3 | Type::Mat4 => 0,
        };
        let wanted = match usage {
            AccessorUse::Position => {
                // Float, or 8/16-bit integers as KHR_mesh_quantization allows.
                width == 3 && component != ComponentType::U32
            }
            AccessorUse::Index => {
                width == 1 && matches!(component, ComponentType::U8 | ComponentType::U16 | ComponentType::U32)
            }
        };
        if !wanted {
            return Err(self.malformed(format!(
                "accessor {index} ({role}) has type {kind:?} of {component:?}, which cannot hold {}",
                match usage {
                    AccessorUse::Position => "positions (VEC3 of float or, quantized, of 8/16-bit integers)",
                    AccessorUse::Index => "vertex indices (SCALAR of unsigned 8/16/32-bit integers)",
                }
            )));
        }
        let count = accessor.count.0;
        let mut values = match accessor.buffer_view {
            Some(view) => self.read_elements(
                view.value(),
                accessor.byte_offset.map_or(0, |o| o.0),
                count,
                component,
                width,
                true,
                &out_of_bounds,
            )?,
            None => {
                if count > MAX_IMPLICIT_ELEMENTS {
                    return Err(self.too_large(format!(
                        "accessor {index} ({role}) has {count} implicit elements (limit {MAX_IMPLICIT_ELEMENTS})"
                    )));
                }
                vec![0.0; count as usize * width]
            }
        };
        if let Some(sparse) = &accessor.sparse {
            let sparse_count = sparse.count.0;
            let index_component = match &sparse.indices.component_type {
                Checked::Valid(c) if matches!(c.0, ComponentType::U8 | ComponentType::U16 | ComponentType::U32) => c.0,
                _ => return Err(self.malformed(format!("accessor {index} ({role}) has invalid sparse index type"))),
            };
            let targets = self.read_elements(
                sparse.indices.buffer_view.value(),
                sparse.indices.byte_offset.0,
                sparse_count,
                index_component,
                1,
                false,
                &|d| out_of_bounds(format!("sparse indices: {d}")),
            )?;
            let substitutes = self.read_elements(
                sparse.values.buffer_view.value(),
                sparse.values.byte_offset.0,
                sparse_count,
                component,
                width,
                false,
                &|d| out_of_bounds(format!("sparse values: {d}")),
            )?;
            for (k, &target) in targets.iter().enumerate() {
                if target >= count as f64 {
                    return Err(out_of_bounds(format!("sparse index {target} is not below count {count}")));
                }
                let target = target as usize;
                values[target * width..(target + 1) * width].copy_from_slice(&substitutes[k * width..(k + 1) * width]);
            }
        }
        if accessor.normalized && usage == AccessorUse::Position {
            // glTF's normalized-integer mapping (KHR_mesh_quantization).
            let scale = match component {
                ComponentType::I8 => 127.0,
                ComponentType::U8 => 255.0,
                ComponentType::I16 => 32767.0,
                ComponentType::U16 => 65535.0,
                _ => 1.0,
            };
            for v in &mut values {
                *v = (*v / scale).max(-1.0);
            }
        }
        Ok(values)
    }

    /// Reads `count` elements of `width` components from a buffer view, checking all ranges.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_elements(
        &self,
        view_index: usize,
        offset: u64,
        count: u64,
        component: json::accessor::ComponentType,
        width: usize,
        strided: bool,
        out_of_bounds: &dyn Fn(String) -> IngestError,
    ) -> Result<Vec<f64>, IngestError> {
        use json::accessor::ComponentType;
        let view = self
            .root
            .buffer_views
            .get(view_index)
            .ok_or_else(|| out_of_bounds(format!("buffer view {view_index} does not exist")))?;
        let buffer_index = view.buffer.value();
        let buffer = self.buffers.get(buffer_index).ok_or_else(|| {
            out_of_bounds(format!("buffer view {view_index} refers to missing buffer {buffer_index}"))
        })?;
        let declared = self.root.buffers.get(buffer_index).map_or(0, |b| b.byte_length.0);
        let view_start = view.byte_offset.map_or(0, |o| o.0);
        let view_end = view_start.checked_add(view.byte_length.0);
        match view_end {
            Some(end) if end <= declared && end <= buffer.len() as u64 => {}
            _ => {
                return Err(out_of_bounds(format!(
                    "buffer view {view_index} spans bytes {view_start}+{} but buffer {buffer_index} has {declared}",
                    view.byte_length.0
                )))
            }
        }
        let component_size = component.size() as u64;
        let element_size = component_size * width as u64;
        let stride = match (strided, view.byte_stride) {
            (true, Some(stride)) => stride.0 as u64,
            _ => element_size,
        };
        if stride < element_size {
            return Err(out_of_bounds(format!(
                "buffer view {view_index} has byteStride {stride}, less than the element size {element_size}"
            )));
        }
        if count == 0 {
            return Ok(Vec::new());
        }
        let needed = (count - 1)
            .checked_mul(stride)
            .and_then(|s| s.checked_add(element_size))
            .and_then(|s| s.checked_add(offset));
        let view_length = view.byte_length.0;
        match needed {
            Some(needed) if needed <= view_length => {}
            _ => {
                return Err(out_of_bounds(format!(
                    "{count} elements of {element_size} bytes (stride {stride}) from offset {offset} need more than \
                     the {view_length} bytes of buffer view {view_index}"
                )))
            }
        }
        let base = (view_start + offset) as usize;
        let data = buffer.as_slice();
        let mut values = Vec::with_capacity(count as usize * width);
        for element in 0..count as usize {
            let start = base + element * stride as usize;
            for c in 0..width {
                let at = start + c * component_size as usize;
                let v = match component {
                    ComponentType::I8 => f64::from(data[at] as i8),
                    ComponentType::U8 => f64::from(data[at]),
                    ComponentType::I16 => f64::from(i16::from_le_bytes([data[at], data[at + 1]])),
                    ComponentType::U16 => f64::from(u16::from_le_bytes([data[at], data[at + 1]])),
                    ComponentType::U32 => {
                        f64::from(u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]))
                    }
                    ComponentType::F32 => {
                        f64::from(f32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]))
                    }
                };
                values.push(v);
            }
        }
        Ok(values)
    }
}
