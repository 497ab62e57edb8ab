//! The `meadow` command line tool.

mod simulate_cmd;

use clap::{Parser, Subcommand};

/// Meadow: navmesh baking, inspection, queries and crowd simulation.
#[derive(Parser)]
#[command(name = "meadow", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an ORCA (RVO2) scenario from JSON; write the trajectories as CSV and/or SVG.
    Simulate(simulate_cmd::SimulateArgs),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Simulate(args) => simulate_cmd::run(&args),
    }
}
