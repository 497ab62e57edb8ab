//! The example game end to end: it builds (its `build.rs` bakes the levels), runs and answers
//! sensibly, and its normal dependency tree holds the runtime without the bake's crates.

use std::path::PathBuf;
use std::process::Command;

fn run_game() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_meadow-example-game")).output().expect("run the game");
    assert!(out.status.success(), "the game failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The number after `key` in `line` (up to the next space).
fn number_after(line: &str, key: &str) -> f64 {
    let rest = &line[line.find(key).unwrap_or_else(|| panic!("no {key:?} in {line}")) + key.len()..];
    rest.split(' ').next().unwrap().parse().unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn the_game_loads_its_embedded_levels_finds_paths_and_walks_a_crowd() {
    let output = run_game();
    let lines: Vec<&str> = output.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("open_floor: ") && l.contains(" polygons, ")), "{output}");
    assert!(lines.iter().any(|l| l.starts_with("rooms: ") && l.contains(" polygons, ")), "{output}");
    // Two paths found; the exact one is never longer than A*'s, and both go round obstacles (a
    // box, a wall with a doorway), so they are longer than the straight lines.
    let found: Vec<&str> = lines.iter().copied().filter(|l| l.contains("find_path")).collect();
    assert_eq!(found.len(), 2, "{output}");
    for (line, straight) in found.iter().zip([512f64.sqrt(), 10.0]) {
        let (astar, exact) = (number_after(line, "find_path "), number_after(line, "exact "));
        assert!(exact <= astar + 1e-9 && exact > straight + 0.1, "{line}");
    }
    assert!(
        lines.iter().any(|l| l.starts_with("rooms: path [-10.0, 0.0, 0.0]") && l.contains("none")),
        "room A is closed to the agent: {output}"
    );
    // The ray along z = 0 stops at the big box's west face (x = -1), less the agent radius.
    let ray = lines.iter().find(|l| l.contains("raycast")).expect("a raycast line");
    assert!((number_after(ray, "x = ") + 1.6).abs() < 0.02, "{ray}");
    assert!(lines.iter().any(|l| l.starts_with("crowd: 6 of 6 agents arrived")), "{output}");
}

#[test]
fn the_game_links_the_runtime_without_the_bake_or_cli_crates() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let out = Command::new(&cargo)
        .args(["tree", "--offline", "-e", "normal", "-p", "meadow-example-game", "--prefix", "none"])
        .arg("--manifest-path")
        .arg(&manifest)
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            eprintln!(
                "SKIPPED: cannot run cargo ({}: {e}), so the dependency tree is not checked",
                cargo.to_string_lossy()
            );
            return;
        }
    };
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(crates.contains(&"meadow"), "{tree}");
    for banned in ["meadow-bake", "gltf", "gltf-json", "i_overlay", "clap", "indicatif", "toml"] {
        assert!(!crates.contains(&banned), "the game's normal dependencies hold {banned}:\n{tree}");
    }
}
