//! The `meadow` command line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod path_cmd;

/// Meadow: bake glTF levels into navmeshes and query them.
#[derive(Parser, Debug)]
#[command(name = "meadow", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Find a path on a baked navmesh (or a batch of paths from a JSON file).
    Path(path_cmd::PathArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Path(args) => path_cmd::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meadow: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
