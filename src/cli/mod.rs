//! The `blox` command line: `main` parses the arguments, each subcommand lives in its own file
//! and returns `Result<ExitCode, String>`, and errors are printed in one place.
//!
//! Exit codes: 0 success, 1 some runs or figures failed, 2 bad input (spec, trace, arguments).

mod data;
mod run;
mod trace;
mod validate;

use crate::policies::{AdmissionSpec, Entry, OverheadSpec, PlacementSpec, SchedulerSpec};
use crate::spec::{Spec, SpecError, SpecSource};
use crate::workload::WorkloadSpec;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The spec `blox run` uses when given none: a small Blox-style sweep that takes seconds.
pub const DEFAULT_SPEC: &str = include_str!("../../specs/default.yaml");

#[derive(Parser)]
#[command(
    name = "blox",
    version,
    about = "Declarative, parallel simulation of deep-learning GPU-cluster scheduling experiments",
    after_help = "Examples:\n  blox run                                  # the embedded default sweep\n  blox run specs/paper/blox-fig6.yaml -j 2  # Blox Figures 6 and 7\n  blox validate specs/paper/blox-fig12.yaml # check a spec, print its grid size\n  blox plot results/blox-fig6                # redraw figures from existing results\n  blox list                                 # every policy and workload generator\n  blox trace inspect philly.csv --gpus 128  # what a real trace holds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every point of a spec's grid and write Parquet tables under `<out>/<name>/`.
    #[command(
        after_help = "Examples:\n  blox run\n  blox run specs/paper/blox-fig6.yaml\n  blox run my-study.yaml -j 8 --out /scratch/results --force"
    )]
    Run(run::RunArgs),
    /// Draw a results directory's figures again from its Parquet tables, without rerunning.
    #[command(
        after_help = "Examples:\n  blox plot results/blox-fig6\n  blox plot results/blox-fig6 --spec my-figures.yaml"
    )]
    Plot(run::PlotArgs),
    /// Check a spec and print the size of its grid.
    #[command(after_help = "Example:\n  blox validate specs/paper/blox-fig6.yaml")]
    Validate(validate::ValidateArgs),
    /// List every scheduler, placement, admission policy, overhead model and workload.
    List,
    /// Inspect and convert real cluster traces.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// List and fetch the public trace datasets (verified by SHA-256, cached).
    #[command(subcommand)]
    Data(data::DataCommand),
}

/// Runs the `blox` command line on the process's arguments.
pub fn main() -> ExitCode {
    let outcome = match Cli::parse().command {
        Command::Run(args) => run::run(args),
        Command::Plot(args) => run::plot(args),
        Command::Validate(args) => validate::validate(args),
        Command::List => list(),
        Command::Trace(command) => trace::trace(command),
        Command::Data(command) => data::data(command),
    };
    outcome.unwrap_or_else(|message| {
        eprintln!("error: {}", crate::text::escape_control(&message));
        ExitCode::from(2)
    })
}

fn list() -> Result<ExitCode, String> {
    let sections: [(&str, &[Entry]); 5] = [
        ("schedulers (policies[].scheduler)", SchedulerSpec::ALL),
        ("placements (policies[].placement)", PlacementSpec::ALL),
        ("admissions (policies[].admission)", AdmissionSpec::ALL),
        ("overhead models (engine.overhead)", OverheadSpec::ALL),
        ("workloads (workloads[])", WorkloadSpec::ALL),
    ];
    let mut text = String::new();
    for (title, entries) in sections {
        text += &format!("{title}:\n");
        for e in entries {
            text += &format!("  {:<24} {}\n", e.name, e.summary);
        }
        text += "\n";
    }
    emit(&text);
    Ok(ExitCode::SUCCESS)
}

/// Reads and parses a spec file, or the embedded default spec when `path` is `None`.
fn read_spec(path: Option<&PathBuf>) -> Result<(SpecSource, Spec), SpecError> {
    let source = match path {
        Some(path) => SpecSource::read(path)?,
        None => SpecSource { file: "<embedded default spec>".into(), text: DEFAULT_SPEC.into(), base_dir: ".".into() },
    };
    Spec::parse(&source).map(|spec| (source, spec))
}

/// Writes to stdout; a closed pipe (`blox trace inspect ... | head`) ends the output quietly.
fn emit(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
