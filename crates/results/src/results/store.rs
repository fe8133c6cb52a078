//! The experiment directory as a store shared by processes: fresh temporary files, per-run locks,
//! failure records, and setting aside files that do not belong to the current grid.
//!
//! Layout under `<out>/<experiment>/`:
//! - `runs/`, `jobs/`, `timeline/`: one `<run_key>.parquet` each per complete run (see `tables`);
//! - `spec.yaml`, `grid.json`: the spec of the last `blox run` and its grid (run keys and grid
//!   points), which `blox status` and `blox plot` read;
//! - `failed/<run_key>.txt`: why the last attempt at a run failed (removed when it succeeds);
//! - `set-aside/<UTC time>-<pid>/`: result files moved out of the way, never deleted, with a
//!   `reasons.txt` saying why each run was moved;
//! - `.locks/<run_key>.lock`: held (advisory `flock`) by the process running that run, so a
//!   second process on the same directory skips it instead of racing it; the OS releases a lock
//!   when its process dies, even by `kill -9`.
//!
//! Temporary files are hidden (`.` prefix), unique per process and attempt, and created with
//! `create_new`, so a planted file or symlink at a predictable name is never followed or
//! overwritten. Nothing is written through a symbolic link inside the experiment directory: the
//! directories blox writes into are refused when a link stands in their place
//! ([`ensure_dir`]), lock files are opened without following one, and final names are reached
//! by renaming, which replaces a link instead of following it.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::error::{AtPath, ResultsError};
use super::tables::{ALL_TABLES, RUNS_TABLE, complete_run, parquet_files};

const LOCKS_DIR: &str = ".locks";
const FAILED_DIR: &str = "failed";
const SET_ASIDE_DIR: &str = "set-aside";
const TEMP_SUFFIX: &str = ".tmp";

/// Creates a new hidden temporary file beside `final_path`, never reusing or following an
/// existing path. The name carries the process id and a per-process counter.
pub(crate) fn create_temp(final_path: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = final_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = final_path.with_file_name(format!(".{name}.{}-{n}{TEMP_SUFFIX}", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Creates the directory `dir` (and missing parents) unless it exists, and refuses anything but
/// a real directory in its place: a symbolic link there would take blox's writes (results, lock
/// files, set-aside runs, figures) out of the results directory.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    match fs::create_dir(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir_all(dir)?,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let kind = fs::symlink_metadata(dir)?.file_type();
    if kind.is_symlink() {
        Err(link_refused())
    } else if !kind.is_dir() {
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "exists and is not a directory"))
    } else {
        Ok(())
    }
}

fn link_refused() -> io::Error {
    io::Error::other("is a symbolic link; blox writes nothing through links inside a results directory")
}

/// Opens `path` for writing, creating it, without following a symbolic link in its place.
fn open_without_following(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| if e.raw_os_error() == Some(libc::ELOOP) { link_refused() } else { e })
}

/// Writes `bytes` to a fresh temporary file beside `path`, syncs it, and renames it over `path`.
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (temp, mut file) = create_temp(path)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all()).and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// The final name a hidden temporary file of [`create_temp`] will be renamed to.
fn final_name_of_temp(temp_name: &str) -> Option<&str> {
    let inner = temp_name.strip_prefix('.')?.strip_suffix(TEMP_SUFFIX)?;
    let (name, _attempt) = inner.rsplit_once('.')?;
    Some(name)
}

/// The exclusive right to run one grid point; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Takes the lock of `run_key`, or `None` when another process holds it.
pub fn lock_run(experiment_dir: &Path, run_key: &str) -> Result<Option<RunLock>, ResultsError> {
    let dir = experiment_dir.join(LOCKS_DIR);
    ensure_dir(&dir).at(&dir)?;
    let path = dir.join(format!("{run_key}.lock"));
    // Never truncated or removed: removing a lock file while another process waits on it would
    // let two processes hold "the" lock of one run.
    let file = open_without_following(&path).at(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(RunLock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(ResultsError::new(&path, e)),
    }
}

/// Whether another process holds the lock of `run_key` right now.
pub fn is_locked_elsewhere(experiment_dir: &Path, run_key: &str) -> bool {
    let path = experiment_dir.join(LOCKS_DIR).join(format!("{run_key}.lock"));
    let Ok(file) = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(&path) else { return false };
    matches!(file.try_lock(), Err(TryLockError::WouldBlock))
}

/// Records why the last attempt at `run_key` failed, for `blox status`.
pub fn record_failure(experiment_dir: &Path, run_key: &str, reason: &str) -> Result<(), ResultsError> {
    let dir = experiment_dir.join(FAILED_DIR);
    ensure_dir(&dir).at(&dir)?;
    let path = dir.join(format!("{run_key}.txt"));
    write_file_atomically(&path, format!("{reason}\n").as_bytes()).at(&path)
}

/// Forgets an earlier failure of `run_key` (it has just succeeded). A link standing for
/// `failed/` holds no record of this experiment and is not followed.
pub fn clear_failure(experiment_dir: &Path, run_key: &str) -> Result<(), ResultsError> {
    let dir = experiment_dir.join(FAILED_DIR);
    if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    let path = dir.join(format!("{run_key}.txt"));
    match fs::remove_file(&path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(ResultsError::new(&path, e)),
        _ => Ok(()),
    }
}

/// Why the last attempt at `run_key` failed, if it did and has not succeeded since.
pub fn failure(experiment_dir: &Path, run_key: &str) -> Option<String> {
    fs::read_to_string(experiment_dir.join(FAILED_DIR).join(format!("{run_key}.txt")))
        .ok()
        .map(|s| s.trim_end().to_owned())
}

/// Why a run's files were set aside.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum SetAsideReason {
    /// The run is not a point of the current grid (the spec changed, or another build of blox
    /// wrote it).
    NotInGrid,
    /// Its jobs or timeline file exists without a runs file: the run was killed while publishing.
    Incomplete,
    /// Its runs file cannot be read; the run will be redone.
    Damaged(String),
    /// One of its other tables does not match its runs file (truncated, replaced, from another
    /// write); the run will be redone.
    DamagedTable(String),
    /// A file it read changed while the sweep ran, so its key does not describe its input.
    InputChanged(String),
    /// A file it read could not be read again after the sweep (the error given), so what the
    /// run read cannot be checked against its key.
    InputUnreadable(String, String),
}

impl std::fmt::Display for SetAsideReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotInGrid => write!(f, "not in the current grid"),
            Self::Incomplete => write!(f, "incomplete (no runs file: the run was interrupted)"),
            Self::Damaged(error) => write!(f, "unreadable runs file ({error}); it will be redone"),
            Self::DamagedTable(error) => write!(f, "damaged table: {error}; it will be redone"),
            Self::InputChanged(file) => write!(f, "{file} changed while the run read it; it will be redone"),
            Self::InputUnreadable(file, error) => write!(
                f,
                "{file} could not be read again after the run ({error}), so what the run read cannot be checked; \
                 it will be redone"
            ),
        }
    }
}

/// Runs whose files were moved, where to, and why.
#[derive(Debug, Default)]
pub struct SetAside {
    /// `set-aside/<time>-<pid>/`, when anything was moved.
    pub dir: Option<PathBuf>,
    pub runs: Vec<(String, SetAsideReason)>,
    /// Hidden temporary files of dead processes, removed.
    pub temporaries_removed: usize,
}

/// Moves out of `runs/`, `jobs/` and `timeline/` every run that is not in `grid` (`NotInGrid`),
/// every jobs/timeline file without a runs file (`Incomplete`), every runs file that cannot be
/// read (`Damaged`) and every run whose tables do not match its runs file (`DamagedTable`), and
/// removes temporary files left by dead processes. Runs another process holds the lock of are
/// left alone. Nothing is deleted but temporaries.
pub fn tidy(experiment_dir: &Path, grid: &BTreeSet<String>) -> Result<SetAside, ResultsError> {
    let mut report = SetAside::default();
    let mut reasons = std::collections::BTreeMap::new();
    let mut checked = BTreeSet::new();
    for table in ALL_TABLES {
        let dir = experiment_dir.join(table);
        report.temporaries_removed += remove_dead_temporaries(experiment_dir, &dir)?;
        for path in parquet_files(&dir)? {
            let Some(run_key) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else { continue };
            if !checked.insert(run_key.clone()) || is_locked_elsewhere(experiment_dir, &run_key) {
                continue;
            }
            let runs_file = experiment_dir.join(RUNS_TABLE).join(format!("{run_key}.parquet"));
            let reason = if !grid.contains(&run_key) {
                SetAsideReason::NotInGrid
            } else {
                match complete_run(experiment_dir, &run_key) {
                    Ok(Some(_)) => continue,
                    Ok(None) => SetAsideReason::Incomplete,
                    Err(e) if e.path == runs_file => SetAsideReason::Damaged(e.kind.to_string()),
                    Err(e) => SetAsideReason::DamagedTable(e.to_string()),
                }
            };
            reasons.insert(run_key, reason);
        }
    }
    let moved = set_aside(experiment_dir, reasons)?;
    report.dir = moved.dir;
    report.runs = moved.runs;
    Ok(report)
}

/// Moves the files of each run of `reasons` from the three table directories into a new
/// `set-aside/<UTC time>-<pid>/`, with a `reasons.txt`.
pub fn set_aside(
    experiment_dir: &Path,
    reasons: impl IntoIterator<Item = (String, SetAsideReason)>,
) -> Result<SetAside, ResultsError> {
    let mut report = SetAside::default();
    let target =
        experiment_dir.join(SET_ASIDE_DIR).join(format!("{}-{}", utc_stamp(SystemTime::now()), std::process::id()));
    let mut notes = String::new();
    for (run_key, reason) in reasons {
        for table in ALL_TABLES {
            let from = experiment_dir.join(table).join(format!("{run_key}.parquet"));
            let to_dir = target.join(table);
            match fs::symlink_metadata(&from) {
                Ok(_) => {
                    for dir in [experiment_dir.join(SET_ASIDE_DIR), target.clone(), to_dir.clone()] {
                        ensure_dir(&dir).at(&dir)?;
                    }
                    match fs::rename(&from, to_dir.join(format!("{run_key}.parquet"))) {
                        // Another process tidying at the same moment moved it first.
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        moved => moved.at(&from)?,
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(ResultsError::new(&from, e)),
            }
        }
        notes += &format!("{run_key}: {reason}\n");
        report.runs.push((run_key, reason));
    }
    if report.runs.is_empty() {
        return Ok(report);
    }
    for dir in [experiment_dir.join(SET_ASIDE_DIR), target.clone()] {
        ensure_dir(&dir).at(&dir)?;
    }
    let notes_path = target.join("reasons.txt");
    write_file_atomically(&notes_path, notes.as_bytes()).at(&notes_path)?;
    report.dir = Some(target);
    Ok(report)
}

/// Removes the hidden temporary files in `dir` whose run no process is running (a crashed or
/// killed attempt); returns how many.
fn remove_dead_temporaries(experiment_dir: &Path, dir: &Path) -> Result<usize, ResultsError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(ResultsError::new(dir, e)),
    };
    let mut removed = 0;
    for entry in entries {
        let path = entry.at(dir)?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let Some(run_key) = final_name_of_temp(name).and_then(|n| n.strip_suffix(".parquet")) else { continue };
        if !is_locked_elsewhere(experiment_dir, run_key) {
            match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(ResultsError::new(&path, e)),
                _ => removed += 1,
            }
        }
    }
    Ok(removed)
}

/// `20261123T153008Z`: a sortable UTC time for directory names.
fn utc_stamp(time: SystemTime) -> String {
    let [year, month, day, hour, minute, second] = utc_fields(time);
    format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}Z")
}

/// Year, month, day, hour, minute and second of `time` in UTC (times before 1970 read as 1970).
pub fn utc_fields(time: SystemTime) -> [i64; 6] {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil-from-days, for days since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    [year, month, day, rest / 3600, rest / 60 % 60, rest % 60]
}

#[cfg(test)]
mod tests {
    use super::super::complete_run;
    use super::super::tables::tests::{info, output, provenance};
    use super::super::tables::{RESULT_TABLES, write_run};
    use super::*;
    use std::time::Duration;

    fn keys(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn visible(dir: &Path, table: &str) -> Vec<String> {
        parquet_files(&dir.join(table))
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    }

    /// After a spec change, only the current grid's runs stay; the others are moved (with their
    /// jobs and timeline), listed with a reason, and nothing is deleted.
    #[test]
    fn tidy_sets_aside_runs_not_in_the_grid_and_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        for key in ["keep", "old"] {
            write_run(dir.path(), &info(key), &output(), 1.0, &provenance()).unwrap();
        }
        let report = tidy(dir.path(), &keys(&["keep"])).unwrap();
        assert_eq!(report.runs, [("old".to_string(), SetAsideReason::NotInGrid)]);
        for table in RESULT_TABLES {
            assert_eq!(visible(dir.path(), table), ["keep.parquet"], "{table}");
            assert!(report.dir.as_ref().unwrap().join(table).join("old.parquet").is_file(), "{table}");
        }
        let reasons = fs::read_to_string(report.dir.unwrap().join("reasons.txt")).unwrap();
        assert_eq!(reasons, "old: not in the current grid\n");
        assert!(tidy(dir.path(), &keys(&["keep"])).unwrap().runs.is_empty());
    }

    /// `kill -9` between publishing jobs and runs leaves a jobs file without its run; a truncated
    /// runs file must not stop the sweep: both are moved aside and the run is redone.
    #[test]
    fn tidy_sets_aside_incomplete_and_damaged_runs() {
        let dir = tempfile::tempdir().unwrap();
        for key in ["killed", "truncated", "fine"] {
            write_run(dir.path(), &info(key), &output(), 1.0, &provenance()).unwrap();
        }
        fs::remove_file(dir.path().join(RUNS_TABLE).join("killed.parquet")).unwrap();
        let truncated = dir.path().join(RUNS_TABLE).join("truncated.parquet");
        let bytes = fs::read(&truncated).unwrap();
        fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
        let report = tidy(dir.path(), &keys(&["killed", "truncated", "fine"])).unwrap();
        let reasons: Vec<(&str, bool)> =
            report.runs.iter().map(|(k, r)| (k.as_str(), matches!(r, SetAsideReason::Damaged(_)))).collect();
        assert_eq!(reasons, [("killed", false), ("truncated", true)]);
        assert_eq!(report.runs[0].1, SetAsideReason::Incomplete);
        for table in RESULT_TABLES {
            assert_eq!(visible(dir.path(), table), ["fine.parquet"], "{table}");
        }
        assert!(complete_run(dir.path(), "fine").unwrap().is_some());
    }

    /// Temporaries of a dead writer go; those of a run another process holds stay, and so do
    /// its files.
    #[test]
    fn tidy_leaves_runs_locked_by_another_process_alone() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("busy"), &output(), 1.0, &provenance()).unwrap();
        fs::remove_file(dir.path().join(RUNS_TABLE).join("busy.parquet")).unwrap();
        let busy_temp = dir.path().join(RUNS_TABLE).join(".busy.parquet.999-0.tmp");
        let dead_temp = dir.path().join(RUNS_TABLE).join(".dead.parquet.999-0.tmp");
        fs::write(&busy_temp, "half").unwrap();
        fs::write(&dead_temp, "half").unwrap();
        let lock = lock_run(dir.path(), "busy").unwrap().unwrap();
        let report = tidy(dir.path(), &keys(&["busy"])).unwrap();
        assert!(report.runs.is_empty());
        assert_eq!(report.temporaries_removed, 1);
        assert!(busy_temp.exists() && !dead_temp.exists());
        drop(lock);
        let report = tidy(dir.path(), &keys(&["busy"])).unwrap();
        assert_eq!(report.runs, [("busy".to_string(), SetAsideReason::Incomplete)]);
        assert_eq!(report.temporaries_removed, 1);
    }

    #[test]
    fn stamps_are_utc_calendar_times() {
        assert_eq!(utc_stamp(UNIX_EPOCH), "19700101T000000Z");
        // 2026-11-23 15:30:08 UTC.
        assert_eq!(utc_stamp(UNIX_EPOCH + Duration::from_secs(1_795_447_808)), "20261123T153008Z");
        // 2024-02-29, a leap day.
        assert_eq!(utc_stamp(UNIX_EPOCH + Duration::from_secs(1_709_164_800)), "20240229T000000Z");
    }

    #[test]
    fn temporaries_are_fresh_and_never_follow_a_planted_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("victim");
        fs::write(&target, "precious").unwrap();
        let final_path = dir.path().join("spec.yaml");
        // Plant symlinks at the next names this process would pick.
        for n in 0..4 {
            let name = format!(".spec.yaml.{}-{n}.tmp", std::process::id());
            let _ = std::os::unix::fs::symlink(&target, dir.path().join(name));
        }
        write_file_atomically(&final_path, b"name: x\n").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "precious");
        assert_eq!(fs::read_to_string(&final_path).unwrap(), "name: x\n");
    }

    /// A link planted at a lock file's name, or in place of a directory blox writes into, is
    /// refused: nothing is created where it points.
    #[test]
    fn links_in_place_of_lock_files_and_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(LOCKS_DIR)).unwrap();
        std::os::unix::fs::symlink(outside.path().join("victim"), dir.path().join(LOCKS_DIR).join("k.lock")).unwrap();
        let error = lock_run(dir.path(), "k").unwrap_err().to_string();
        assert!(error.contains("k.lock: is a symbolic link"), "{error}");
        std::os::unix::fs::symlink(outside.path(), dir.path().join(FAILED_DIR)).unwrap();
        let error = record_failure(dir.path(), "k", "why").unwrap_err().to_string();
        assert!(error.contains("failed: is a symbolic link"), "{error}");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    /// A run whose jobs file does not match its runs file is set aside with the reason.
    #[test]
    fn tidy_sets_aside_a_run_with_a_damaged_table() {
        let dir = tempfile::tempdir().unwrap();
        write_run(dir.path(), &info("r"), &output(), 1.0, &provenance()).unwrap();
        let jobs = dir.path().join("jobs").join("r.parquet");
        let bytes = fs::read(&jobs).unwrap();
        fs::write(&jobs, &bytes[..bytes.len() / 2]).unwrap();
        let report = tidy(dir.path(), &keys(&["r"])).unwrap();
        let [(key, SetAsideReason::DamagedTable(error))] = &report.runs[..] else { panic!("{:?}", report.runs) };
        assert_eq!(key, "r");
        assert!(error.contains("r.parquet: is") && error.contains("truncated or replaced"), "{error}");
        for table in RESULT_TABLES {
            assert!(visible(dir.path(), table).is_empty(), "{table}");
        }
    }

    #[test]
    fn temp_names_map_back_to_their_final_names() {
        assert_eq!(final_name_of_temp(".a_b-1.2x_seed1.parquet.4242-7.tmp"), Some("a_b-1.2x_seed1.parquet"));
        assert_eq!(final_name_of_temp("a.parquet"), None);
        assert_eq!(final_name_of_temp(".a.parquet"), None);
    }

    #[test]
    fn a_lock_is_exclusive_until_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_run(dir.path(), "k").unwrap().expect("free");
        // flock locks belong to the open file description: a second open in the same process
        // conflicts like another process would.
        assert!(lock_run(dir.path(), "k").unwrap().is_none());
        assert!(is_locked_elsewhere(dir.path(), "k"));
        drop(first);
        assert!(!is_locked_elsewhere(dir.path(), "k"));
        assert!(lock_run(dir.path(), "k").unwrap().is_some());
    }

    #[test]
    fn failures_are_recorded_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(failure(dir.path(), "k"), None);
        record_failure(dir.path(), "k", "trace.csv:3: bad").unwrap();
        assert_eq!(failure(dir.path(), "k").as_deref(), Some("trace.csv:3: bad"));
        clear_failure(dir.path(), "k").unwrap();
        clear_failure(dir.path(), "k").unwrap();
        assert_eq!(failure(dir.path(), "k"), None);
    }
}
