//! What the command-line tests share: running the built binary from the repository root,
//! scratch folders and the one-line failure check.

// Each test file uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the binary runs there, so fixture paths are relative to it).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `meadow ARGS` from the repository root.
pub fn meadow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meadow")).args(args).current_dir(repo()).output().expect("run meadow")
}

/// A fresh scratch directory for one test of the test file `file`.
pub fn scratch(file: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meadow-{file}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The output of a run that must succeed.
pub fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// A failure is one line on stderr, a non-zero exit, and never a panic.
pub fn assert_clean_failure(out: &Output, mentions: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected failure, got success; stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "stderr is not one line: {err}");
    assert!(err.starts_with("meadow: error: "), "{err}");
    assert!(err.contains(mentions), "stderr should mention {mentions:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
}
