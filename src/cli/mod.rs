//! The `blox` command line: `main` parses the arguments, each subcommand lives in its own file
//! and returns `Result<ExitCode, String>`, and errors are printed in one place.
//!
//! Exit codes: 0 success, 1 some runs or figures failed, 2 bad input (spec, trace, arguments).

/// `println!` for the command's output: a closed stdout (`blox status DIR | head -0`) does not
/// turn it into a panic ([`emit`]).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::emit(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod cluster;
mod compare;
mod data;
mod experiment;
mod node;
pub mod reference;
mod report;
mod run;
pub use run::prepare;
mod summary;
mod trace;
mod validate;

use crate::policies::{Engine, Kind};
use crate::spec::{Spec, SpecError, SpecSource};
use crate::workload::WorkloadSpec;
use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// The spec `blox run` uses when given none: a small Blox-style sweep that takes seconds.
pub const DEFAULT_SPEC: &str = include_str!("../../specs/default.yaml");

#[derive(Parser)]
#[command(
    name = "blox",
    version = crate::version::LONG_VERSION,
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
    #[command(after_help = RUN_HELP)]
    Run(run::RunArgs),
    /// What a results directory holds: its grid's runs done, missing, failed or running.
    #[command(after_help = "Example:\n  blox status results/blox-fig6")]
    Status(experiment::StatusArgs),
    /// Draw a results directory's figures again from its Parquet tables, without rerunning.
    #[command(
        after_help = "Examples:\n  blox plot results/blox-fig6\n  blox plot results/blox-fig6 --spec my-figures.yaml"
    )]
    Plot(experiment::PlotArgs),
    /// Write one merged file per table (runs, jobs, timeline) of a results directory's grid.
    #[command(
        after_help = "Examples:\n  blox export results/blox-fig6 --to csv\n  blox export results/blox-fig6 --to parquet -o /tmp/fig6"
    )]
    Export(experiment::ExportArgs),
    /// Write one self-contained HTML page of a results directory: provenance, the grid with each
    /// run's state, sortable metrics, the figures, per-run drill-downs, comparisons.
    #[command(
        after_help = "Examples:\n  blox report results/blox-fig6\n  blox report results/blox-fig6 -o /tmp/fig6.html\n\nThe page opens offline from disk: nothing is loaded from a network."
    )]
    Report(report::ReportArgs),
    /// Set two experiments' runs of the same grid points side by side, job by job (a live run
    /// beside its simulation): JCT and makespan differences, CSVs and per-run JCT scatters.
    #[command(after_help = COMPARE_HELP)]
    Compare(compare::CompareArgs),
    /// Check a spec and print the size of its grid.
    #[command(after_help = "Example:\n  blox validate specs/paper/blox-fig6.yaml")]
    Validate(validate::ValidateArgs),
    /// List every scheduler, placement, admission policy, overhead model and workload.
    List {
        /// Print the whole reference (policies, workloads, trace formats, metrics, datasets) as
        /// Markdown: the text of docs/reference.md.
        #[arg(long)]
        markdown: bool,
    },
    /// Inspect and convert real cluster traces.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// List and fetch the public trace datasets (verified by SHA-256, cached).
    #[command(subcommand)]
    Data(data::DataCommand),
    /// Write (and with --submit, submit) a Slurm array script whose tasks run the grid's shards.
    #[command(
        after_help = "Examples:\n  blox slurm specs/paper/blox-fig6.yaml --tasks 4 --out /shared/results --submit\n  blox slurm my-study.yaml --tasks 64 -j 4 --sbatch=--partition=cpu --sbatch=--time=04:00:00"
    )]
    Slurm(cluster::SlurmArgs),
    /// Write a Kubernetes Indexed Job manifest whose pods run the grid's shards.
    #[command(
        after_help = "Example:\n  blox k8s specs/my-study.yaml --tasks 16 --image registry.example/blox:latest -o job.yaml && kubectl apply -f job.yaml"
    )]
    K8s(cluster::K8sArgs),
    /// Run a live cluster's node agent: start, signal and reap the jobs the scheduler sends.
    #[command(after_help = NODE_HELP)]
    Node(node::NodeArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  blox completions bash > ~/.local/share/bash-completion/completions/blox\n  blox completions zsh > ~/.zfunc/_blox"
    )]
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), or write one page per subcommand into a directory.
    #[command(after_help = "Examples:\n  blox man | man -l -\n  blox man --dir ~/.local/share/man/man1")]
    Man {
        /// Write blox.1 and blox-<subcommand>.1 here instead of printing blox.1.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

const RUN_HELP: &str = "Examples:
  blox run
  blox run specs/paper/blox-fig6.yaml
  blox run my-study.yaml -j 8 --out /scratch/results --force
  blox run my-study.yaml --only 'label=LAS,load=8' --dry-run

Environment:
  BLOX_DATA_DIR     cache of public datasets (default: $XDG_CACHE_HOME/blox, else ~/.cache/blox)
  BLOX_DATA_MIRROR  a directory or http(s) base URL serving the datasets instead of their origins
                    (offline machines, CI)

Ctrl-C (or SIGTERM) stops the runs in progress and keeps every complete one; rerun to resume.
Exit status: 0 all runs and figures done, 1 some failed, 2 bad input, 130 interrupted.";

const COMPARE_HELP: &str = "Examples:
  blox compare results/my-study-sim results/my-study-live
  blox compare results/round-300 results/round-60 --out /tmp/fidelity --format pdf

Runs pair when they are the same grid point: the same label, scheduler, placement, admission
and policy options (policy_params), cluster (label, nodes, GPUs), workload, load and seed. The
engine (mode, round or slot length, overhead), the experiment's name and the blox build may
differ, so a live run pairs with the `rounds` simulation of its spec. A run without a partner
is listed and skipped; nothing pairing at all is an error.

Per pair, over the jobs tracked in both runs: average JCT of the jobs finished in both, each
run's makespan (the runs table's makespan_s), the relative differences (B - A) / A, the median
and 95th percentile of |JCT B - JCT A| and of JCT B / JCT A, and the jobs finished in one run
only. Written into --out: compare.csv (one row per job tracked in both runs), summary.csv (one
row per pair, seconds), and jct-<A's run key>.svg/.pdf/.png, B's JCT against A's with y = x.
Exit status: 0 compared, 1 a figure could not be drawn, 2 bad input.";

const NODE_HELP: &str = "Examples:
  BLOX_TOKEN=$(cat ~/.blox-token) blox node --scheduler head:7070 --gpus 0,1,2,3
  blox node --scheduler 10.0.0.1:7070 --cpu-slots 8 --token-file /etc/blox/token --work-dir /scratch/blox

Each job runs in its own process group with CUDA_VISIBLE_DEVICES (its GPUs), BLOX_SLOTS,
BLOX_SCHEDULER, BLOX_JOB_CREDENTIAL (good for its own attempt only; never the token), BLOX_JOB_ID,
BLOX_ATTEMPT and BLOX_CHECKPOINT_DIR set, and its stdout and stderr in
WORK_DIR/jobs/<job>/attempt-<n>.{out,err}. The agent obeys only a scheduler that proves it holds
the token (at least 16 bytes). The agent keeps its jobs when it loses the scheduler and
reconnects (1 s doubling to 10 s between attempts). SIGTERM or Ctrl-C
stops the jobs (SIGTERM, then SIGKILL after --shutdown-grace-s) and exits; a second one kills
them at once. The protocol: docs/live-protocol.md.
Exit status: 0 stopped cleanly, 2 bad arguments, or refused by the scheduler (a node name already
connected: give --name) or a scheduler that cannot prove it holds the token, before the first
welcome.";

/// Runs the `blox` command line with `registry`'s policies beside the built-in ones: the entry
/// point of a program that extends blox ([`crate::plugin`] has an example).
pub fn main_with(registry: crate::plugin::Registry) -> ExitCode {
    match crate::plugin::install(registry) {
        Ok(()) => main(),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Runs the `blox` command line on the process's arguments.
pub fn main() -> ExitCode {
    main_from(std::env::args_os())
}

/// Runs the `blox` command line on `args`, the program's name first: the entry point of a host
/// that is not blox's own binary (the Python package's `blox` command passes its `sys.argv`).
pub fn main_from<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let outcome = match Cli::parse_from(args).command {
        Command::Run(args) => run::run(args),
        Command::Status(args) => experiment::status(args),
        Command::Plot(args) => experiment::plot(args),
        Command::Export(args) => experiment::export_tables(args),
        Command::Report(args) => report::report(args),
        Command::Compare(args) => compare::compare(args),
        Command::Validate(args) => validate::validate(args),
        Command::List { markdown: true } => {
            emit(&reference::markdown());
            Ok(ExitCode::SUCCESS)
        }
        Command::List { markdown: false } => list(),
        Command::Trace(command) => trace::trace(command),
        Command::Data(command) => data::data(command),
        Command::Slurm(args) => cluster::slurm(args),
        Command::K8s(args) => cluster::k8s(args),
        Command::Node(args) => node::node(args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "blox", &mut script);
            emit(&String::from_utf8_lossy(&script));
            Ok(ExitCode::SUCCESS)
        }
        Command::Man { dir } => man(dir),
    };
    outcome.unwrap_or_else(|message| {
        eprintln!("error: {}", crate::text::escape_control(&message));
        ExitCode::from(2)
    })
}

fn man(dir: Option<PathBuf>) -> Result<ExitCode, String> {
    let command = Cli::command();
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            clap_mangen::generate_to(command, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            eprintln!("man pages written to {}", dir.display());
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page).map_err(|e| format!("cannot render the man page: {e}"))?;
            emit(&String::from_utf8_lossy(&page));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Every registered policy by kind, from its descriptor (summary; the engine when it is not the
/// default; options with an example; source), then the workload generators.
fn list() -> Result<ExitCode, String> {
    fn line(text: &mut String, name: &str, content: &str) {
        *text += &format!("  {name:<24} {content}\n");
    }
    let mut text = String::new();
    for kind in Kind::ALL {
        text += &format!("{}:\n", kind.heading());
        for info in kind.policies() {
            line(&mut text, info.name, info.summary);
            if info.engine == Engine::Rounds
                && let Some(own) = &info.placement
            {
                line(&mut text, "", &format!("engine: rounds; placement: its own ({})", own.name));
            }
            if info.engine == Engine::Events {
                let mut engine = "engine: events".to_string();
                if let Some(own) = &info.placement {
                    engine += &format!("; placement: its own ({})", own.name);
                    for alternative in own.alternatives {
                        engine += &format!(" or {}", alternative.name);
                    }
                }
                let accepted_by = info.accepted_by();
                if !accepted_by.is_empty() {
                    engine += &format!("; for {}", accepted_by.join(", "));
                }
                line(&mut text, "", &engine);
            }
            if info.engine == Engine::Placements {
                line(&mut text, "", "engine: placements (a score policy: places each request itself)");
            }
            if !info.options.is_empty() {
                line(&mut text, "", &format!("options, e.g. {}:", info.example()));
                for option in info.options {
                    line(&mut text, "", &format!("  {}: {}", option.name, option.meaning));
                }
            }
            line(&mut text, "", &format!("source: {}", info.source));
        }
        if kind == Kind::Scheduler {
            text += "  (live mode, `engine.mode: live`, runs the rounds schedulers without a placement of their own\n   on a real cluster: docs/guide/live.md)\n";
        }
        text += "\n";
    }
    text += "workloads (workloads[]):\n";
    for workload in WorkloadSpec::ALL {
        line(&mut text, workload.name, workload.summary);
    }
    text += "\n";
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

/// Writes to stdout, the one way commands print their output: a closed pipe (`blox status DIR |
/// head -0`) ends the output quietly, with no panic; the command still finishes its work and
/// exits with its own status.
fn emit(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
}
