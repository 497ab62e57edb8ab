//! `meadow`: bake glTF levels into navmeshes, inspect, draw and export them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bake_cmd;
mod circles_cmd;
mod export_cmd;
mod info_cmd;
mod merge_cmd;
mod obstacles;
mod path_cmd;
mod render_cmd;
mod simulate_cmd;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit code of a command-line usage error (as clap and BSD `sysexits` use).
const USAGE_ERROR: u8 = 2;

/// Meadow: exact navmeshes from glTF levels.
#[derive(Parser, Debug)]
#[command(name = "meadow", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Bake a glTF level (.gltf or .glb) into a navmesh asset (.nav).
    Bake(bake_cmd::BakeArgs),
    /// Exact shortest paths among circular obstacles (trees, pillars, units).
    Circles(circles_cmd::CirclesArgs),
    /// Write a navmesh asset as a glTF 2.0 binary (.glb) for any viewer, optionally in its level.
    Export(export_cmd::ExportArgs),
    /// Print counts, bounds, area and settings of a navmesh asset.
    Info(info_cmd::InfoArgs),
    /// Stitch partial assets (`meadow bake --tiles`) of one level into the full asset.
    Merge(merge_cmd::MergeArgs),
    /// Find a path on a baked navmesh (or a batch of paths from a JSON file).
    Path(path_cmd::PathArgs),
    /// Draw a navmesh asset top-down as SVG.
    Render(render_cmd::RenderArgs),
    /// Run an ORCA (RVO2) scenario from JSON; write the trajectories as CSV and/or SVG.
    Simulate(simulate_cmd::SimulateArgs),
}

fn main() -> ExitCode {
    // A bug must still end in one readable line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        // `println!` panics when the reader of stdout has gone (`meadow path ... | head`): that is
        // the reader's choice, not a bug, so end quietly as other Unix tools do.
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(141);
        }
        eprintln!("meadow: internal error (please report): {msg}");
    }));
    // Usage errors are one line and exit 2 as well; help and version print as usual.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => e.exit(),
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) => {
            // clap lists missing arguments on the lines after the first: keep them, on one line.
            let text = e.to_string();
            let message: Vec<&str> = text.lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
            let message = message.join(" ");
            let message = message.trim_start_matches("error: ");
            let message = if message.is_empty() { "bad arguments" } else { message };
            eprintln!("meadow: error: {message} (see `meadow --help`)");
            return ExitCode::from(USAGE_ERROR);
        }
    };
    let result = match &cli.command {
        Command::Bake(args) => bake_cmd::run(args),
        Command::Circles(args) => circles_cmd::run(args),
        Command::Export(args) => export_cmd::run(args),
        Command::Info(args) => info_cmd::run(args),
        Command::Merge(args) => merge_cmd::run(args),
        Command::Path(args) => path_cmd::run(args),
        Command::Render(args) => render_cmd::run(args),
        Command::Simulate(args) => simulate_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meadow: error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line, skipping a cause whose text its parent already shows.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line.replace('\n', " ")
}
