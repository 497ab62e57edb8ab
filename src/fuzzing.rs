//! Structure-aware mutators and checkers shared by the cargo-fuzz targets in `fuzz/` (nightly)
//! and the stable smoke test `tests/fuzz_smoke.rs`, so both exercise the same inputs.
//!
//! * Assets: the payload is mutated and the header (magic, version, length, CRC32) recomputed,
//!   so mutations reach the structural validator behind the checksum; a few mutations damage
//!   the header itself. A loaded mesh then answers queries, and every number they return must be
//!   finite.
//! * Levels: a GLB's JSON numbers and BIN bytes are mutated and the container rebuilt; the level
//!   is ingested and baked with small settings and budgets. Neither may panic; a bake may fail
//!   only with a typed error.

use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, NavMesh};
use meadow_testkit::gltf::glb;
use serde_json::Value;

/// Hostile `f64` values written over payload bytes and JSON numbers.
const HOSTILE_F64: [f64; 12] =
    [f64::NAN, f64::INFINITY, -f64::INFINITY, 1e38, -1e38, 1e300, 0.0, -0.0, 1.5e6, 65535.0, 1e-300, f64::MAX];

/// Hostile integers for JSON (indices, counts, offsets, component types).
const HOSTILE_INT: [i64; 12] = [0, 1, -1, 3, 255, 5123, 5126, 65535, 1 << 24, 1 << 31, u32::MAX as i64, 1 << 40];

/// The header of an asset around `payload`: magic, version, length, CRC32 (of the source hash
/// and the payload) and no source hash, recomputed.
pub fn with_header(payload: &[u8]) -> Vec<u8> {
    let mut covered = Vec::with_capacity(8 + payload.len());
    covered.extend_from_slice(&meadow::asset::NO_SOURCE_HASH.to_le_bytes());
    covered.extend_from_slice(payload);
    let mut out = Vec::with_capacity(meadow::asset::HEADER_LEN + payload.len());
    out.extend_from_slice(&meadow::asset::MAGIC);
    out.extend_from_slice(&meadow::asset::FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast_hash(&covered).to_le_bytes());
    out.extend_from_slice(&covered);
    out
}

/// CRC32 (IEEE), bit by bit: small and independent of the asset code it checks.
fn crc32fast_hash(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// One structure-aware mutation of an asset (a valid one or an earlier mutant): 1–4 edits of
/// the payload, then a fresh header; one time in 16 the header itself is damaged afterwards.
pub fn mutate_asset(bytes: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let header = meadow::asset::HEADER_LEN;
    let mut payload = if bytes.len() > header { bytes[header..].to_vec() } else { bytes.to_vec() };
    for _ in 0..1 + rng.next_u64() % 4 {
        mutate_bytes(&mut payload, &mut rng);
    }
    let mut out = with_header(&payload);
    if rng.next_u64().is_multiple_of(16) {
        let at = (rng.next_u64() % header as u64) as usize;
        out[at] ^= 1 << (rng.next_u64() % 8);
    }
    out
}

/// Edits `bytes` once: a bit flip, an interesting byte, an `f64` or `u32` written over 8 or 4
/// bytes, a run inserted, removed or duplicated.
fn mutate_bytes(bytes: &mut Vec<u8>, rng: &mut SplitMix64) {
    let n = bytes.len();
    let pick = |rng: &mut SplitMix64, k: usize| if k == 0 { 0 } else { (rng.next_u64() % k as u64) as usize };
    match rng.next_u64() % 8 {
        0 if n > 0 => {
            let at = pick(rng, n);
            bytes[at] ^= 1 << (rng.next_u64() % 8);
        }
        1 if n > 0 => {
            let at = pick(rng, n);
            bytes[at] = [0u8, 1, 0x7f, 0x80, 0xfe, 0xff, 0xfb, 0xfc][pick(rng, 8)];
        }
        2 if n >= 8 => {
            let at = pick(rng, n - 7);
            let v = HOSTILE_F64[pick(rng, HOSTILE_F64.len())];
            bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        3 if n >= 4 => {
            let at = pick(rng, n - 3);
            let v = [0u32, 1, 3, 12, 255, 65535, 1 << 24, u32::MAX][pick(rng, 8)];
            bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        4 if n > 0 => {
            let at = pick(rng, n);
            let len = 1 + pick(rng, 16).min(n - at);
            bytes.drain(at..(at + len).min(n));
        }
        5 => {
            let at = pick(rng, n + 1);
            let len = 1 + pick(rng, 16);
            let fill: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            bytes.splice(at..at, fill);
        }
        6 if n > 0 => {
            let at = pick(rng, n);
            let len = (1 + pick(rng, 32)).min(n - at);
            let run = bytes[at..at + len].to_vec();
            let to = pick(rng, n + 1);
            bytes.splice(to..to, run);
        }
        _ if n >= 8 => {
            // Scale an f64 in place (coordinates stay plausible but grow or shrink).
            let at = pick(rng, n - 7);
            let v = f64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
            let scaled = v * [1e3, 1e6, -1.0, 0.5, 1e-3][pick(rng, 5)];
            bytes[at..at + 8].copy_from_slice(&scaled.to_le_bytes());
        }
        _ => bytes.push(rng.next_u64() as u8),
    }
}

/// What a checker saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The input was accepted (asset loaded, or level baked).
    pub accepted: bool,
    /// Non-finite numbers in query results (must stay 0).
    pub non_finite: u64,
    /// Queries run.
    pub queries: u64,
}

/// Loads an asset; if it loads, runs every kind of query on it and counts non-finite outputs.
pub fn check_asset(bytes: &[u8]) -> Outcome {
    match NavMesh::from_bytes(bytes) {
        Ok(mesh) => query_everything(mesh, bytes.len() as u64),
        Err(_) => Outcome::default(),
    }
}

/// Runs locate, nearest point, raycasts, A* and exact paths between points derived from the
/// mesh (vertices, random points, far and hostile points); counts non-finite numbers returned.
pub fn query_everything(mesh: NavMesh, seed: u64) -> Outcome {
    let mut out = Outcome { accepted: true, ..Outcome::default() };
    let mesh = QueryMesh::new(mesh);
    let mut rng = SplitMix64::new(seed);
    let mut points: Vec<[f64; 3]> = Vec::new();
    for _ in 0..4 {
        if let Some(l) = mesh.random_point(&mut rng) {
            points.push(l.point);
        }
    }
    let vertices = mesh.mesh().vertices();
    for _ in 0..vertices.len().min(4) {
        points.push(vertices[(rng.next_u64() % vertices.len() as u64) as usize]);
    }
    points.extend([[0.0; 3], [1e300, 0.0, 0.0], [f64::NAN, 0.0, 0.0], [-1.5e6, 2.0, 3.0]]);
    let bad = |v: &[f64]| v.iter().filter(|c| !c.is_finite()).count() as u64;
    let filter = QueryFilter::new();
    let mut astar = PathQuery::new(&mesh);
    let mut exact = ShortestPathQuery::new(&mesh);
    let mut visited = Vec::new();
    for (i, &a) in points.iter().enumerate() {
        out.queries += 2;
        if let Ok(l) = mesh.locate(a) {
            out.non_finite += bad(&l.point);
        }
        if let Ok(l) = mesh.nearest_point(a, [5.0, 5.0, 5.0]) {
            out.non_finite += bad(&l.point);
        }
        let b = points[(i * 7 + 3) % points.len()];
        out.queries += 3;
        if let Ok(r) = mesh.raycast(a, b, &mut visited) {
            if let Some(hit) = r.hit {
                out.non_finite += bad(&hit.point) + bad(&hit.normal) + bad(&[hit.t]);
            }
        }
        if let Ok(p) = astar.find_path(&mesh, a, b, &filter) {
            out.non_finite += bad(&[p.length]) + p.points.iter().map(|q| bad(q)).sum::<u64>();
        }
        if let Ok(p) = exact.find_shortest_path(&mesh, a, b, &filter) {
            out.non_finite += bad(&[p.length]) + p.points.iter().map(|q| bad(q)).sum::<u64>();
        }
    }
    out
}

/// One structure-aware mutation of a glTF level: a GLB has its JSON numbers or its BIN chunk
/// mutated and the container rebuilt; anything else is mutated as bytes.
pub fn mutate_level(bytes: &[u8], seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    let Some((json, bin)) = split_glb(bytes) else {
        let mut b = bytes.to_vec();
        mutate_bytes(&mut b, &mut rng);
        return b;
    };
    let mut json = json.to_vec();
    let mut bin = bin.map(<[u8]>::to_vec);
    for _ in 0..1 + rng.next_u64() % 3 {
        match (rng.next_u64() % 4, &mut bin) {
            (0 | 1, _) => mutate_json(&mut json, &mut rng),
            (2, Some(bin)) => {
                // Overwrite a float of the binary data (positions are f32).
                if bin.len() >= 4 {
                    let at = (rng.next_u64() % (bin.len() as u64 - 3)) as usize & !3;
                    let v = HOSTILE_F64[(rng.next_u64() % HOSTILE_F64.len() as u64) as usize] as f32;
                    bin[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
            (_, Some(bin)) => mutate_bytes(bin, &mut rng),
            _ => mutate_bytes(&mut json, &mut rng),
        }
    }
    glb(&json, bin.as_deref())
}

/// Replaces one number of the JSON (an index, count, offset, component type, transform or
/// bound) with a hostile one, or one accessor's component type with raw 16-bit integers.
fn mutate_json(json: &mut Vec<u8>, rng: &mut SplitMix64) {
    let Ok(mut value) = serde_json::from_slice::<Value>(json) else {
        mutate_bytes(json, rng);
        return;
    };
    /// Counts the numbers in `v`, replacing the `k`-th (in walk order) with `new` if given.
    fn walk(v: &mut Value, k: &mut usize, new: &mut Option<Value>) -> usize {
        match v {
            Value::Number(_) => {
                if *k == 0 {
                    if let Some(n) = new.take() {
                        *v = n;
                    }
                }
                *k = k.wrapping_sub(1);
                1
            }
            Value::Array(a) => a.iter_mut().map(|x| walk(x, k, new)).sum(),
            Value::Object(o) => o.values_mut().map(|x| walk(x, k, new)).sum(),
            _ => 0,
        }
    }
    if rng.next_u64().is_multiple_of(8) {
        // The report's case: positions re-read as raw (not normalised) u16 integers.
        if let Some(accessors) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            let n = accessors.len();
            if n > 0 {
                let a = &mut accessors[(rng.next_u64() % n as u64) as usize];
                a["componentType"] = Value::from(5123);
                a["normalized"] = Value::from(false);
            }
        }
    } else {
        let mut none = usize::MAX;
        let count = walk(&mut value, &mut none, &mut None);
        if count > 0 {
            let mut k = (rng.next_u64() % count as u64) as usize;
            let new = if rng.next_u64().is_multiple_of(2) {
                Value::from(HOSTILE_INT[(rng.next_u64() % HOSTILE_INT.len() as u64) as usize])
            } else {
                let v = HOSTILE_F64[(rng.next_u64() % HOSTILE_F64.len() as u64) as usize];
                serde_json::Number::from_f64(v).map_or(Value::from(0), Value::Number)
            };
            walk(&mut value, &mut k, &mut Some(new));
        }
    }
    *json = serde_json::to_vec(&value).unwrap_or_default();
}

/// The JSON and BIN chunks of a GLB, if `bytes` is one with sane chunk lengths.
fn split_glb(bytes: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
    if bytes.len() < 20 || &bytes[0..4] != b"glTF" {
        return None;
    }
    let word =
        |at: usize| -> Option<usize> { Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize) };
    let json_len = word(12)?;
    let json = bytes.get(20..20usize.checked_add(json_len)?)?;
    let at = 20 + json_len;
    let bin = word(at).and_then(|len| bytes.get(at + 8..(at + 8).checked_add(len)?));
    Some((json, bin))
}

/// The small settings the level checker bakes with: a point-ish agent and budgets that keep
/// one execution within a fraction of a second.
///
/// The region budget is about seven times what the fixtures need (3,482 at most): mutants with
/// long sheared slivers make `i_overlay` spend up to 40 us per counted vertex (a 112,170-vertex
/// level took 4 s in release), so a larger budget lets one execution run for seconds.
///
/// The visibility budget (2^16 units) is about 80 times the costliest fixture's (836): the stage
/// tests every pair of corners, and under the fuzzer's instrumentation a mutant with thousands
/// of corners spent seconds there; past the budget the stage leaves the graph out, which the
/// checker exercises too.
pub fn small_settings() -> BakeSettings {
    let mut s = BakeSettings::DEFAULT;
    s.radius = 0.3;
    s.max_edge_length = 0.0;
    s.max_walkable_triangles = 20_000;
    s.max_region_vertices = 25_000;
    s.max_polygons = 20_000;
    s.max_visibility_work = 1 << 16;
    s
}

/// Most triangles the level checker bakes (larger valid mutants are only ingested).
const MAX_BAKED_TRIANGLES: usize = 5_000;

/// Ingests a level and, if it reads, bakes it with [`small_settings`] (one level in four in
/// tiles, re-baked incrementally) and queries the result.
pub fn check_level(bytes: &[u8]) -> Outcome {
    let origin = std::path::Path::new("fuzz-input.glb");
    let Ok(scene) = meadow_bake::ingest::ingest_slice(bytes, origin, &mut meadow_bake::NoProgress) else {
        return Outcome::default();
    };
    if scene.triangles.len() > MAX_BAKED_TRIANGLES {
        return Outcome::default();
    }
    let mut settings = small_settings();
    // One level in four bakes in tiles, about 3 x 3 of them over its bounds (at least the
    // smallest size the radius allows), and must come back the same when every tile is taken
    // from its own asset (an incremental bake with nothing changed).
    let tiled = bytes.len().is_multiple_of(4);
    if tiled {
        let extent = scene.bounds().map_or(0.0, |(lo, hi)| (hi[0] - lo[0]).max(hi[2] - lo[2]));
        settings.tile_size = (extent / 3.0).clamp(4.0 * settings.radius, meadow::settings::MAX_TILE_SIZE);
    }
    match meadow_bake::bake(&scene, &settings, &mut meadow_bake::NoProgress) {
        Ok(mesh) => {
            // The baked asset must survive its own round trip.
            let reloaded = NavMesh::from_bytes(&mesh.to_bytes()).expect("a baked mesh reloads");
            if tiled {
                let options = meadow_bake::BakeOptions { previous: Some(&reloaded), ..Default::default() };
                let again = meadow_bake::bake_with(&scene, &settings, options, &mut meadow_bake::NoProgress)
                    .expect("an incremental bake of an unchanged level succeeds");
                assert!(again.to_bytes() == reloaded.to_bytes(), "an incremental bake of an unchanged level differs");
            }
            query_everything(reloaded, bytes.len() as u64)
        }
        Err(meadow_bake::BakeError::Internal(e)) => panic!("bake produced an invalid mesh: {e}"),
        Err(_) => Outcome::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_matches_the_asset_writer() {
        let payload = b"123456789";
        assert_eq!(crc32fast_hash(payload), 0xCBF4_3926);
        let mesh = NavMesh::from_bytes(&with_header(&[])).unwrap_err();
        assert!(matches!(mesh, meadow::LoadError::Decode(_)), "{mesh}");
    }
}
