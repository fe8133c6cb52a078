//! `blox report`: one self-contained HTML page of a results directory ([`crate::report`]).

use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub(super) struct ReportArgs {
    /// Experiment directory written by `blox run` (e.g. results/blox-fig6), or an output
    /// directory of `blox compare`.
    results: PathBuf,
    /// Where to write the page (default: <results>/report.html). A link there is replaced, not
    /// written through.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub(super) fn report(args: ReportArgs) -> Result<ExitCode, String> {
    let out = args.output.unwrap_or_else(|| args.results.join("report.html"));
    let written = crate::report::write(&args.results, &out)?;
    for error in &written.figure_errors {
        eprintln!("warning: {error}");
    }
    if written.unreadable > 0 {
        eprintln!("warning: {} runs' tables could not be read in full; the page says which", written.unreadable);
    }
    outln!(
        "{}: {} KB, {} runs ({} complete), {} figures",
        written.path.display(),
        written.bytes.div_ceil(1024),
        written.runs,
        written.done,
        written.figures
    );
    Ok(ExitCode::SUCCESS)
}
