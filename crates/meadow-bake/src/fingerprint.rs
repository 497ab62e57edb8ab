//! What a bake read and a fingerprint of it: the files behind a level (for build systems'
//! dependency lists) and the source hash stored in the asset header (for skipping a bake whose
//! inputs and settings are unchanged).
//!
//! The fingerprint is FNV-1a 64 over, in order: a tag, [`meadow::asset::FORMAT_VERSION`], this
//! crate's version, the settings as JSON (fields in declaration order), and each input file's
//! length and FNV-1a 64 hash in read order. Paths are not part of it: a level moved elsewhere
//! keeps its fingerprint, a changed byte changes it. FNV-1a is not collision resistant against
//! a deliberate attacker; it guards against stale assets, not forged ones.
//!
//! ```
//! use meadow_bake::fingerprint::{fingerprint, InputFile};
//! use meadow_bake::BakeSettings;
//!
//! let level = InputFile::new("level.gltf", b"{\"asset\":{\"version\":\"2.0\"}}");
//! let buffer = InputFile::new("level.bin", &[0u8; 16]);
//! let a = fingerprint(&[level.clone(), buffer.clone()], &BakeSettings::DEFAULT);
//! let mut wide = BakeSettings::DEFAULT;
//! wide.radius = 1.0;
//! assert_ne!(a, fingerprint(&[level.clone(), buffer.clone()], &wide));
//! assert_ne!(a, fingerprint(&[level], &BakeSettings::DEFAULT));
//! assert_ne!(a, meadow::asset::NO_SOURCE_HASH);
//! ```

use meadow::BakeSettings;
use std::path::PathBuf;

/// One file a bake read: its path as the bake opened it, its length and its content hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputFile {
    /// The path as opened: the level path as given, external buffers joined to its folder.
    pub path: PathBuf,
    /// Length in bytes.
    pub len: u64,
    /// FNV-1a 64 hash of the bytes ([`hash_bytes`]).
    pub hash: u64,
}

impl InputFile {
    /// Records a file read from `path` with contents `bytes`.
    pub fn new(path: impl Into<PathBuf>, bytes: &[u8]) -> InputFile {
        InputFile { path: path.into(), len: bytes.len() as u64, hash: hash_bytes(bytes) }
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a 64 of `bytes`: a stable content hash with no dependency.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    fnv(FNV_OFFSET, bytes)
}

fn fnv(state: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(state, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

/// A running FNV-1a 64 hash, fed one field after another (the tiles' input hashes).
pub(crate) struct Fnv(pub(crate) u64);

impl Fnv {
    /// The hash of no bytes.
    pub(crate) fn new() -> Fnv {
        Fnv(FNV_OFFSET)
    }

    /// Feeds `bytes`.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.0 = fnv(self.0, bytes);
    }
}

/// The source hash of a bake of `inputs` with `settings` (see the module docs); never
/// [`meadow::asset::NO_SOURCE_HASH`].
pub fn fingerprint(inputs: &[InputFile], settings: &BakeSettings) -> u64 {
    let mut h = fnv(FNV_OFFSET, b"meadow-bake source hash 1");
    h = fnv(h, &meadow::asset::FORMAT_VERSION.to_le_bytes());
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    h = fnv(h, &(version.len() as u64).to_le_bytes());
    h = fnv(h, version);
    // Serialising plain numbers, strings and booleans cannot fail; an empty text would only
    // weaken the hash, not break it.
    let json = serde_json::to_vec(settings).unwrap_or_default();
    h = fnv(h, &(json.len() as u64).to_le_bytes());
    h = fnv(h, &json);
    h = fnv(h, &(inputs.len() as u64).to_le_bytes());
    for input in inputs {
        h = fnv(h, &input.len.to_le_bytes());
        h = fnv(h, &input.hash.to_le_bytes());
    }
    if h == meadow::asset::NO_SOURCE_HASH {
        1
    } else {
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(hash_bytes(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash_bytes(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash_bytes(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_fingerprint_depends_on_bytes_and_order_not_paths() {
        let a = InputFile::new("a/level.gltf", b"level");
        let b = InputFile::new("a/level.bin", b"buffer");
        let moved = [InputFile::new("b/level.gltf", b"level"), InputFile::new("b/level.bin", b"buffer")];
        let s = BakeSettings::DEFAULT;
        let base = fingerprint(&[a.clone(), b.clone()], &s);
        assert_eq!(base, fingerprint(&moved, &s));
        assert_ne!(base, fingerprint(&[b.clone(), a.clone()], &s));
        assert_ne!(base, fingerprint(&[a, InputFile::new("a/level.bin", b"bufffer")], &s));
    }
}
