//! The README shows this crate's files and the Makefile example verbatim: each fenced block
//! after a `<!-- PATH -->` line must equal the file at PATH (relative to the repository).

use std::path::PathBuf;

#[test]
fn readme_blocks_are_the_example_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let mut checked = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(path) = line.strip_prefix("<!-- ").and_then(|l| l.strip_suffix(" -->")) else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(fence.starts_with("```"), "no fenced block after the marker of {path}");
        let mut block = String::new();
        for line in lines.by_ref().take_while(|l| *l != "```") {
            block.push_str(line);
            block.push('\n');
        }
        let file = std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(block, file, "README's block for {path} differs from the file");
        checked.push(path.to_string());
    }
    let expected =
        ["examples/game/navmesh.toml", "examples/game/build.rs", "examples/game/src/main.rs", "examples/make/Makefile"];
    assert_eq!(checked, expected);
}
