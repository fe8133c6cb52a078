//! The outputs of `blox compare` in a report: its pairing (`summary.csv`, one row per pair of
//! runs) and its per-pair JCT scatters (`jct-<run key>.svg`).
//!
//! The scatters are files on disk, which anyone who can write the directory can replace, so
//! they reach the page as images (`<img>` with a data URI), where a script in an SVG never
//! runs, not as inline markup.

use std::path::{Path, PathBuf};

/// The pairing file `blox compare` writes.
const SUMMARY: &str = "summary.csv";
/// The per-job file beside it.
const JOBS: &str = "compare.csv";
/// Largest scatter file embedded; bigger ones are named, not shown.
const MAX_SCATTER_BYTES: u64 = 4 << 20;
/// Most pairs (table rows and scatters) one section shows.
const MAX_PAIRS: usize = 500;

/// Whether `dir` holds the output of `blox compare`.
pub fn is_compare_dir(dir: &Path) -> bool {
    dir.join(SUMMARY).is_file() && dir.join(JOBS).is_file()
}

/// One comparison: its pairing table and scatters.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub dir: PathBuf,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Pairs beyond [`MAX_PAIRS`], left out.
    pub more_rows: usize,
    /// Per pair shown: A's run key and the scatter as a data URI, or why there is none.
    pub scatters: Vec<(String, Result<String, String>)>,
}

/// The comparisons written into `experiment_dir` by `blox compare` (its default output
/// directories, `compare-<B>/`); a comparison that cannot be read is shown as its error.
pub fn sections_in(experiment_dir: &Path) -> Vec<Result<Section, String>> {
    let Ok(entries) = std::fs::read_dir(experiment_dir) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("compare-"))
        // Not through a link: what it points to is not this experiment's.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|dir| is_compare_dir(dir))
        .collect();
    dirs.sort();
    dirs.iter().map(|dir| section(dir)).collect()
}

/// The comparison in `dir`.
pub fn section(dir: &Path) -> Result<Section, String> {
    let path = dir.join(SUMMARY);
    let mut reader = csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header: Vec<String> =
        reader.headers().map_err(|e| format!("{}: {e}", path.display()))?.iter().map(String::from).collect();
    let mut rows = Vec::new();
    let mut more_rows = 0;
    for record in reader.records() {
        let record = record.map_err(|e| format!("{}: {e}", path.display()))?;
        if rows.len() < MAX_PAIRS {
            rows.push(record.iter().map(String::from).collect::<Vec<_>>());
        } else {
            more_rows += 1;
        }
    }
    let key_column = header.iter().position(|h| h == "run_key_a");
    let scatters = key_column
        .map(|column| {
            rows.iter().filter_map(|row| row.get(column)).map(|key| (key.clone(), scatter_uri(dir, key))).collect()
        })
        .unwrap_or_default();
    Ok(Section { dir: dir.to_path_buf(), header, rows, more_rows, scatters })
}

/// `jct-<run_key>.svg` in `dir` as a `data:` URI.
fn scatter_uri(dir: &Path, run_key: &str) -> Result<String, String> {
    if run_key.is_empty() || run_key.starts_with('.') || run_key.contains(['/', '\\', '\0']) {
        return Err(format!("run key {run_key:?} is not a file name"));
    }
    let path = dir.join(format!("jct-{run_key}.svg"));
    let meta = std::fs::symlink_metadata(&path)
        .map_err(|_| format!("no {} (compared without --format svg?)", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()));
    }
    if meta.len() > MAX_SCATTER_BYTES {
        return Err(format!("{} is {} bytes, too large to embed", path.display(), meta.len()));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(format!("data:image/svg+xml;base64,{}", base64(&bytes)))
}

/// Standard base64 with padding.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_vectors() {
        for (plain, encoded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }
}
