//! glTF bytes for test levels and the fixture generator: the GLB container (header, JSON chunk,
//! BIN chunk) and the little-endian buffer data that accessors point into.
//!
//! Everything here deals in bytes, not in a JSON model, so that each user keeps its own way of
//! writing the document (`serde_json` values in tests, `gltf-json` in the fixture generator).

/// A GLB container around a JSON document and an optional binary buffer; each chunk is padded
/// to 4 bytes (JSON with spaces, BIN with zeros). `Some` of an empty buffer still writes an
/// empty BIN chunk.
pub fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut json = json.to_vec();
    json.resize(json.len().next_multiple_of(4), b' ');
    let bin = bin.map(|b| {
        let mut b = b.to_vec();
        b.resize(b.len().next_multiple_of(4), 0);
        b
    });
    let total = 12 + 8 + json.len() + bin.as_ref().map_or(0, |b| 8 + b.len());
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&length(total).to_le_bytes());
    out.extend_from_slice(&length(json.len()).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if let Some(bin) = bin {
        out.extend_from_slice(&length(bin.len()).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}

/// A GLB length field; GLB cannot describe more than 4 GiB, and no test level comes near.
fn length(bytes: usize) -> u32 {
    u32::try_from(bytes).expect("a GLB holds at most 4 GiB")
}

/// Appends `bytes` to a binary buffer at its next 4-byte boundary (zero padding, as glTF
/// requires for aligned accessors) and returns the offset they start at.
pub fn append_aligned(bin: &mut Vec<u8>, bytes: &[u8]) -> usize {
    bin.resize(bin.len().next_multiple_of(4), 0);
    let offset = bin.len();
    bin.extend_from_slice(bytes);
    offset
}

/// The little-endian bytes of `f32` vectors (a `VEC3` of `FLOAT` POSITION accessor's data).
pub fn f32_bytes<const N: usize>(vectors: &[[f32; N]]) -> Vec<u8> {
    vectors.iter().flatten().flat_map(|c| c.to_le_bytes()).collect()
}

/// The unsigned integer type of an index accessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexWidth {
    /// `UNSIGNED_BYTE` (5121).
    U8,
    /// `UNSIGNED_SHORT` (5123).
    U16,
    /// `UNSIGNED_INT` (5125).
    U32,
}

impl IndexWidth {
    /// The glTF `componentType` code.
    pub fn component_type(self) -> u32 {
        match self {
            IndexWidth::U8 => 5121,
            IndexWidth::U16 => 5123,
            IndexWidth::U32 => 5125,
        }
    }

    /// The width of a glTF `componentType` code (5121, 5123, 5125), if it is an index type.
    pub fn from_component_type(code: u32) -> Option<IndexWidth> {
        match code {
            5121 => Some(IndexWidth::U8),
            5123 => Some(IndexWidth::U16),
            5125 => Some(IndexWidth::U32),
            _ => None,
        }
    }

    /// The little-endian bytes of `indices` at this width; panics on an index that does not fit.
    pub fn bytes(self, indices: &[u32]) -> Vec<u8> {
        match self {
            IndexWidth::U8 => indices.iter().map(|&i| u8::try_from(i).expect("u8 index")).collect(),
            IndexWidth::U16 => {
                indices.iter().flat_map(|&i| u16::try_from(i).expect("u16 index").to_le_bytes()).collect()
            }
            IndexWidth::U32 => indices.iter().flat_map(|&i| i.to_le_bytes()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glb_pads_chunks_and_counts_every_byte() {
        let out = glb(b"{}", Some(&[1, 2, 3, 4, 5]));
        assert_eq!(out.len(), 12 + 8 + 4 + 8 + 8);
        assert_eq!(&out[..4], b"glTF");
        assert_eq!(u32::from_le_bytes(out[8..12].try_into().unwrap()) as usize, out.len());
        assert_eq!(&out[20..24], b"{}  ");
        assert_eq!(&out[28..32], b"BIN\0");
        assert_eq!(&out[32..], [1, 2, 3, 4, 5, 0, 0, 0]);
        // No buffer: no BIN chunk; an empty buffer: an empty one.
        assert_eq!(glb(b"{}", None).len(), 24);
        assert_eq!(glb(b"{}", Some(&[])).len(), 32);
    }

    #[test]
    fn views_are_aligned_and_indices_little_endian() {
        let mut bin = vec![9];
        assert_eq!(append_aligned(&mut bin, &[7, 7]), 4);
        assert_eq!(bin, [9, 0, 0, 0, 7, 7]);
        assert_eq!(IndexWidth::U16.bytes(&[1, 258]), [1, 0, 2, 1]);
        assert_eq!(IndexWidth::from_component_type(5125), Some(IndexWidth::U32));
        assert_eq!(f32_bytes(&[[1.0f32]]), 1.0f32.to_le_bytes());
    }
}
