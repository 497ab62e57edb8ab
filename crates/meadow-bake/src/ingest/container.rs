//! The container layer: a `.glb`'s JSON and BIN chunks, and the buffers a document refers to
//! (the BIN chunk, base64 data URIs, external files next to the level).

use super::IngestError;
use crate::fingerprint::InputFile;
use gltf::json;
use std::path::Path;

/// Splits a `.glb` into its JSON chunk and optional BIN chunk; other bytes are taken as JSON.
pub(super) fn split_container<'a>(path: &Path, bytes: &'a [u8]) -> Result<(&'a [u8], Option<&'a [u8]>), IngestError> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    let truncated = |what, expected: u64, actual: u64| IngestError::TruncatedGlb {
        path: path.to_path_buf(),
        what,
        expected,
        actual,
    };
    let actual = bytes.len() as u64;
    if bytes.len() < 12 {
        return Err(truncated("the 12-byte GLB header", 12, actual));
    }
    let word = |at: usize| -> u32 {
        let mut four = [0u8; 4];
        four.copy_from_slice(&bytes[at..at + 4]);
        u32::from_le_bytes(four)
    };
    let version = word(4);
    if version != 2 {
        return Err(IngestError::NotGltf {
            path: path.to_path_buf(),
            reason: format!("GLB version {version} is not supported (only version 2)"),
        });
    }
    let declared = word(8) as u64;
    if declared > actual {
        return Err(truncated("the length in the GLB header", declared, actual));
    }
    let end = declared as usize;
    let mut at = 12usize;
    let mut json_chunk = None;
    let mut bin_chunk = None;
    while at < end {
        if end - at < 8 {
            return Err(truncated("a GLB chunk header", at as u64 + 8, declared));
        }
        let length = word(at) as usize;
        let kind = word(at + 4);
        let start = at + 8;
        let stop = start.checked_add(length).filter(|&s| s <= end);
        let Some(stop) = stop else {
            return Err(truncated("a GLB chunk", start as u64 + length as u64, declared));
        };
        match kind {
            0x4E4F_534A if json_chunk.is_none() => json_chunk = Some(&bytes[start..stop]),
            0x004E_4942 if bin_chunk.is_none() => bin_chunk = Some(&bytes[start..stop]),
            // Unknown chunks must be ignored (glTF 2.0, GLB file format).
            _ => {}
        }
        at = stop;
    }
    let json_chunk = json_chunk
        .ok_or_else(|| IngestError::NotGltf { path: path.to_path_buf(), reason: "the GLB has no JSON chunk".into() })?;
    Ok((json_chunk, bin_chunk))
}

/// Reads every buffer: the GLB BIN chunk, base64 data URIs and external files next to the level
/// (each external file read is recorded in `read`).
pub(super) fn load_buffers(
    path: &Path,
    root: &json::Root,
    base_dir: &Path,
    blob: Option<&[u8]>,
    read: &mut Vec<InputFile>,
) -> Result<Vec<Vec<u8>>, IngestError> {
    let malformed = |detail: String| IngestError::Malformed { path: path.to_path_buf(), detail };
    let mut buffers = Vec::with_capacity(root.buffers.len());
    for (index, buffer) in root.buffers.iter().enumerate() {
        let data = match buffer.uri.as_deref() {
            None => match (index, blob) {
                (0, Some(blob)) => blob.to_vec(),
                _ => return Err(malformed(format!("buffer {index} has no uri and there is no GLB BIN chunk for it"))),
            },
            Some(uri) if uri.starts_with("data:") => {
                if !uri.contains(";base64,") {
                    return Err(malformed(format!("buffer {index}: only base64 data URIs are supported")));
                }
                gltf::buffer::Data::from_source(gltf::buffer::Source::Uri(uri), None)
                    .map_err(|e| malformed(format!("buffer {index}: bad base64 data URI: {e}")))?
                    .0
            }
            Some(uri) if uri.contains(':') => {
                return Err(malformed(format!("buffer {index}: unsupported URI scheme in '{uri}'")));
            }
            Some(uri) => {
                let relative = percent_decode(uri)
                    .ok_or_else(|| malformed(format!("buffer {index}: bad percent-encoding in uri '{uri}'")))?;
                let file = base_dir.join(relative);
                let data = std::fs::read(&file).map_err(|source| IngestError::MissingBuffer {
                    path: path.to_path_buf(),
                    buffer: index,
                    file: file.clone(),
                    source,
                })?;
                // Two buffers may share one file; it is one input.
                if !read.iter().any(|r| r.path == file) {
                    read.push(InputFile::new(file, &data));
                }
                data
            }
        };
        let expected = buffer.byte_length.0;
        if (data.len() as u64) < expected {
            return Err(IngestError::BufferTooShort {
                path: path.to_path_buf(),
                buffer: index,
                expected,
                actual: data.len() as u64,
            });
        }
        buffers.push(data);
    }
    Ok(buffers)
}

/// Decodes `%XX` escapes of a relative URI; `None` when an escape or the result is invalid.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
