//! `NavMesh::from_bytes` on mutated assets, then every query on what loads. Mutations recompute
//! the header (magic, version, length, CRC32), so they reach the validator behind the checksum.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use meadow_suite::fuzzing::{check_asset, mutate_asset, with_header};

fuzz_target!(|data: &[u8]| {
    let outcome = check_asset(data);
    assert_eq!(outcome.non_finite, 0, "a query returned a non-finite number");
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let header = meadow::asset::HEADER_LEN;
    let out = if seed % 4 == 0 && size > header {
        // libFuzzer's own byte mutations on the payload, then a fresh header.
        let mut payload = data[header..size].to_vec();
        payload.resize(max_size.saturating_sub(header).max(payload.len()), 0);
        let n = fuzzer_mutate(&mut payload, size - header, max_size.saturating_sub(header));
        with_header(&payload[..n])
    } else {
        mutate_asset(&data[..size], u64::from(seed))
    };
    let n = out.len().min(max_size);
    data[..n].copy_from_slice(&out[..n]);
    n
});
