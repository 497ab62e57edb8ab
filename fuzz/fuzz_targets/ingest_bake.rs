//! glTF ingest and a bake with small settings on mutated levels (JSON numbers and BIN data of a
//! GLB mutated, the container rebuilt), then every query on what bakes.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target, fuzzer_mutate};
use meadow_suite::fuzzing::{check_level, mutate_level};

fuzz_target!(|data: &[u8]| {
    let outcome = check_level(data);
    assert_eq!(outcome.non_finite, 0, "a query returned a non-finite number");
});

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    if seed % 4 == 0 {
        return fuzzer_mutate(data, size, max_size);
    }
    let out = mutate_level(&data[..size], u64::from(seed));
    let n = out.len().min(max_size);
    data[..n].copy_from_slice(&out[..n]);
    n
});
