//! `blox data`: list and fetch the registered public datasets.

use super::emit;
use crate::data;
use clap::Subcommand;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand)]
pub(super) enum DataCommand {
    /// Every dataset: files, size, license and how many files the cache holds verified.
    List {
        /// Cache directory (default: $BLOX_DATA_DIR, else $XDG_CACHE_HOME/blox, else ~/.cache/blox).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Also list each dataset's files (the paths specs name as `dataset: NAME/PATH`).
        #[arg(long)]
        files: bool,
    },
    /// Download datasets into the cache and verify them; verified files are never downloaded again.
    #[command(
        after_help = "Examples:\n  blox data fetch philly itp-raw\n  BLOX_DATA_MIRROR=/srv/traces blox data fetch muri   # offline: a directory or http(s) base URL\n  blox data fetch alibaba-2023 --dir ./data"
    )]
    Fetch {
        /// Dataset names (see `blox data list`).
        #[arg(required = true)]
        names: Vec<String>,
        /// Cache directory (default: $BLOX_DATA_DIR, else $XDG_CACHE_HOME/blox, else ~/.cache/blox).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Print only errors and the summary.
        #[arg(long, short)]
        quiet: bool,
    },
}

pub(super) fn data(command: DataCommand) -> Result<ExitCode, String> {
    match command {
        DataCommand::List { dir, files } => list(dir, files),
        DataCommand::Fetch { names, dir, quiet } => fetch(&names, dir, quiet),
    }
}

fn list(dir: Option<PathBuf>, files: bool) -> Result<ExitCode, String> {
    let options = data::FetchOptions::from_env(dir).map_err(|e| e.to_string())?;
    let mut text = format!("cache: {}\n", options.cache_dir.display());
    for dataset in data::datasets() {
        let cached = data::verified_count(dataset, &options).unwrap_or(0);
        text += &format!(
            "  {:<22} {:>3} files {:>8.1} MB  {:>3} cached  {}\n",
            dataset.name,
            dataset.files.len(),
            dataset.total_size() as f64 / 1e6,
            cached,
            dataset.description
        );
        text += &format!("  {:<22} license: {}\n", "", dataset.license);
        if files {
            for file in dataset.files {
                text += &format!("  {:<22}   {}/{}\n", "", dataset.name, file.path);
            }
        }
    }
    emit(&text);
    Ok(ExitCode::SUCCESS)
}

fn fetch(names: &[String], dir: Option<PathBuf>, quiet: bool) -> Result<ExitCode, String> {
    let options = data::FetchOptions { quiet, ..data::FetchOptions::from_env(dir).map_err(|e| e.to_string())? };
    for name in names {
        let report = data::find(name).and_then(|d| data::fetch(d, &options)).map_err(|e| e.to_string())?;
        let count = |f: fn(&data::Outcome) -> bool| report.files.iter().filter(|(_, o)| f(o)).count();
        let skipped = count(|o| matches!(o, data::Outcome::MirrorOnly { .. }));
        eprintln!(
            "{name}: {} files in {} ({} downloaded, {} already verified{})",
            report.files.len() - skipped,
            report.dir.display(),
            count(|o| matches!(o, data::Outcome::Downloaded { .. })),
            count(|o| matches!(o, data::Outcome::AlreadyVerified)),
            if skipped > 0 { format!(", {skipped} only on a mirror: set BLOX_DATA_MIRROR") } else { String::new() }
        );
    }
    Ok(ExitCode::SUCCESS)
}
