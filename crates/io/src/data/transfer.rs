//! Sources (mirror directory, HTTP), streamed downloads and verified installation into the cache.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::{DataError, DataFile};

/// Longest wait for a TCP (and TLS) connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest silence while receiving headers or body; a stalled transfer fails instead of hanging.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// A parsed `BLOX_DATA_MIRROR`.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Mirror {
    /// A local directory laid out as `<mirror>/<mirror_dir>/<path>`.
    Dir(PathBuf),
    /// An HTTP(S) base URL laid out as `<mirror>/<mirror_dir>/<path>`, without a trailing slash.
    Http(String),
}

impl Mirror {
    /// Parses a directory path, `file://` URL or `http(s)://` base URL.
    pub(super) fn parse(mirror: &str) -> Result<Mirror, DataError> {
        let bad = |reason| DataError::BadMirror { mirror: mirror.to_string(), reason };
        let trimmed = mirror.trim();
        let lower = trimmed.to_ascii_lowercase();
        if trimmed.is_empty() {
            return Err(bad("empty"));
        }
        if lower.starts_with("http://") || lower.starts_with("https://") {
            let base = trimmed.trim_end_matches('/');
            let host = base.split_once("://").map_or("", |(_, rest)| rest);
            if host.is_empty() {
                return Err(bad("the URL has no host"));
            }
            return Ok(Mirror::Http(base.to_string()));
        }
        let dir = if lower.starts_with("file://") {
            let rest = &trimmed["file://".len()..];
            let rest = rest.strip_prefix("localhost").unwrap_or(rest);
            if !rest.starts_with('/') {
                return Err(bad("a file:// URL needs an absolute path, e.g. file:///srv/blox-mirror"));
            }
            PathBuf::from(rest)
        } else if trimmed.contains("://") {
            return Err(bad("unsupported scheme: use a directory, file://, http:// or https://"));
        } else {
            PathBuf::from(trimmed)
        };
        if !dir.is_dir() {
            return Err(bad("not a directory"));
        }
        Ok(Mirror::Dir(dir))
    }

    /// Where this mirror keeps `path` of the dataset whose mirror folder is `mirror_dir`.
    pub(super) fn source(&self, mirror_dir: &str, path: &str) -> Source {
        match self {
            Mirror::Dir(root) => Source::Path(root.join(mirror_dir).join(path)),
            Mirror::Http(base) => Source::Url(format!("{base}/{}/{}", encode_path(mirror_dir), encode_path(path))),
        }
    }
}

/// Where one copy of a file is read from.
#[derive(Debug)]
pub(super) enum Source {
    /// A local file (directory mirror).
    Path(PathBuf),
    /// An HTTP(S) URL.
    Url(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Path(path) => write!(f, "{}", path.display()),
            Source::Url(url) => f.write_str(url),
        }
    }
}

/// Percent-encodes each `/`-separated segment (RFC 3986 unreserved characters pass).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The HTTP client, built on first use so cached and directory-mirror fetches never create it.
#[derive(Default)]
pub(super) struct Net {
    agent: Option<ureq::Agent>,
}

impl Net {
    fn agent(&mut self) -> &ureq::Agent {
        self.agent.get_or_insert_with(|| {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_connect(Some(CONNECT_TIMEOUT))
                .timeout_per_read(Some(READ_TIMEOUT))
                .user_agent(concat!("blox/", env!("CARGO_PKG_VERSION")))
                .build()
                .into()
        })
    }

    /// Opens `source` for streaming; `what` names the file in errors.
    pub(super) fn open(&mut self, source: &Source, what: &str) -> Result<Box<dyn Read>, DataError> {
        match source {
            Source::Path(path) => match File::open(path) {
                Ok(file) => Ok(Box::new(file)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    Err(DataError::MirrorMissing { what: what.to_string(), path: path.clone() })
                }
                Err(source) => Err(DataError::Io { action: "open", path: path.clone(), source }),
            },
            Source::Url(url) => {
                let response = self.agent().get(url.as_str()).call().map_err(|e| DataError::Network {
                    what: what.to_string(),
                    url: url.clone(),
                    message: e.to_string(),
                })?;
                let status = response.status().as_u16();
                if status != 200 {
                    return Err(DataError::Http { what: what.to_string(), url: url.clone(), status });
                }
                Ok(Box::new(response.into_body().into_reader()))
            }
        }
    }
}

/// The error for a failed read from `source` (a network error for URLs).
pub(super) fn read_error(source: &Source, what: &str, error: io::Error) -> DataError {
    match source {
        Source::Path(path) => DataError::Io { action: "read", path: path.clone(), source: error },
        Source::Url(url) => DataError::Network { what: what.to_string(), url: url.clone(), message: error.to_string() },
    }
}

/// The most bytes read from a source whose size is not pinned (the origin archives): well above
/// any registered archive, far below filling a disk.
pub(super) const MAX_UNPINNED_BYTES: u64 = 8 << 30;

/// What a copy must match before it is installed; `None` checks nothing.
pub(super) struct Expect<'a> {
    /// Pinned SHA-256 (lowercase hex).
    pub(super) sha256: Option<&'a str>,
    /// Pinned size in bytes.
    pub(super) size: Option<u64>,
}

/// A temporary file beside the destination, removed on drop unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    file: File,
    installed: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.installed {
            // Best effort: the name is unique to this process, so a leftover harms nothing.
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Streams `reader` into a temporary file beside `dest`, checks it against `expect`, and renames
/// it to `dest`. On any failure nothing is left at `dest` or at the temporary path. Returns the
/// number of bytes installed. `from` names the source and `on_read` maps read errors.
pub(super) fn install(
    reader: &mut dyn Read,
    on_read: &dyn Fn(io::Error) -> DataError,
    dest: &Path,
    expect: &Expect<'_>,
    what: &str,
    from: &str,
) -> Result<u64, DataError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io_error = |action, path: &Path| {
        let path = path.to_path_buf();
        move |source| DataError::Io { action, path, source }
    };
    let (Some(parent), Some(name)) = (dest.parent(), dest.file_name()) else {
        return Err(DataError::UnsafePath { path: dest.display().to_string() });
    };
    fs::create_dir_all(parent).map_err(io_error("create directory", parent))?;
    // A name unique to this process and call; `create_new` never follows or reuses an existing
    // file (a leftover of a killed process with the same id is stepped over).
    let (temp_path, file) = loop {
        let temp_path = parent.join(format!(
            ".{}.part-{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match OpenOptions::new().write(true).create_new(true).open(&temp_path) {
            Ok(file) => break (temp_path, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error("create", &temp_path)(e)),
        }
    };
    let mut temp = TempFile { path: temp_path, file, installed: false };

    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut bytes = 0u64;
    // Read at most one byte past the pinned size (or the cap for unpinned files): a source that
    // serves more is wrong, and is not streamed to disk to find out.
    let limit = expect.size.map_or(MAX_UNPINNED_BYTES, |size| size.saturating_add(1));
    let mut reader = reader.take(limit);
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(on_read(e)),
        };
        let chunk = &buf[..n];
        hasher.update(chunk);
        temp.file.write_all(chunk).map_err(io_error("write", &temp.path))?;
        bytes += n as u64;
    }
    if bytes >= limit {
        return Err(DataError::TooLarge {
            what: what.to_string(),
            from: from.to_string(),
            limit: expect.size.unwrap_or(MAX_UNPINNED_BYTES),
            pinned: expect.size.is_some(),
        });
    }
    temp.file.sync_all().map_err(io_error("write", &temp.path))?;

    let actual = crate::digest::hex(&hasher.finalize());
    let sha_ok = expect.sha256.is_none_or(|sha| sha.eq_ignore_ascii_case(&actual));
    let size_ok = expect.size.is_none_or(|size| size == bytes);
    if !(sha_ok && size_ok) {
        return Err(DataError::Checksum {
            what: what.to_string(),
            from: from.to_string(),
            expected_sha256: expect.sha256.unwrap_or("(not pinned)").to_string(),
            actual_sha256: actual,
            expected_size: expect.size,
            actual_size: bytes,
        });
    }
    fs::rename(&temp.path, dest).map_err(io_error("rename into", dest))?;
    temp.installed = true;
    Ok(bytes)
}

/// Whether `path` holds `file` with its pinned size and SHA-256 (false when absent).
pub(super) fn is_verified(path: &Path, file: &DataFile) -> Result<bool, DataError> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(DataError::Io { action: "inspect", path: path.to_path_buf(), source });
        }
    };
    if !meta.is_file() || meta.len() != file.size {
        return Ok(false);
    }
    Ok(sha256_file(path)?.eq_ignore_ascii_case(file.sha256))
}

/// The lowercase hex SHA-256 of the file at `path`, read in chunks.
pub(super) fn sha256_file(path: &Path) -> Result<String, DataError> {
    let io_error = |source| DataError::Io { action: "read", path: path.to_path_buf(), source };
    crate::digest::sha256_of_reader(File::open(path).map_err(io_error)?).map_err(io_error)
}

/// After a failed (or impossible) fetch of `file`: removes what is at `path` unless it is `file`
/// verified, so the final path holds a verified file or nothing. A verified copy that a
/// concurrent fetcher installed meanwhile stays. Best effort: the fetch's own error is what the
/// caller reports.
pub(super) fn discard_unverified(path: &Path, file: &DataFile) {
    if !matches!(is_verified(path, file), Ok(true)) {
        let _ = fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_forms() {
        assert_eq!(Mirror::parse("http://127.0.0.1:8000/").ok(), Some(Mirror::Http("http://127.0.0.1:8000".into())));
        let dir = std::env::temp_dir();
        let url = format!("file://{}", dir.display());
        assert_eq!(Mirror::parse(&url).ok(), Some(Mirror::Dir(dir.clone())));
        assert_eq!(Mirror::parse(&dir.display().to_string()).ok(), Some(Mirror::Dir(dir)));
        for bad in ["", "ftp://host/x", "https://", "file://relative", "/no/such/blox/dir"] {
            assert!(Mirror::parse(bad).is_err(), "{bad}");
        }
    }

    /// Counts the bytes handed out, to show that a download stops at the pinned size.
    struct Counted<R> {
        inner: R,
        bytes: u64,
    }

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.bytes += n as u64;
            Ok(n)
        }
    }

    /// A source that serves 400 MB (here: endless bytes) for a 2,771-byte file is read to one
    /// byte past the pin, then refused; nothing is left behind.
    #[test]
    fn a_download_stops_one_byte_past_the_pinned_size() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("synergy/model_profiles.csv");
        let mut source = Counted { inner: io::repeat(b'x'), bytes: 0 };
        let expect = Expect { sha256: Some(&"0".repeat(64)), size: Some(2771) };
        let on_read = |e: io::Error| DataError::Io { action: "read", path: PathBuf::from("m"), source: e };
        let err = install(&mut source, &on_read, &dest, &expect, "synergy/model_profiles.csv", "mirror").err().unwrap();
        assert!(matches!(err, DataError::TooLarge { limit: 2771, pinned: true, .. }), "{err}");
        assert!(err.to_string().contains("larger than its pinned size of 2771 bytes"), "{err}");
        assert_eq!(source.bytes, 2772, "read one byte past the pin, no more");
        assert!(!dest.exists());
        assert_eq!(fs::read_dir(dest.parent().unwrap()).unwrap().count(), 0, "no temporary file is left");
        // Exactly the pinned size still goes through to the checksum.
        let mut exact = io::repeat(b'x').take(2771);
        let err = install(&mut exact, &on_read, &dest, &expect, "f", "mirror").err().unwrap();
        assert!(matches!(err, DataError::Checksum { actual_size: 2771, .. }), "{err}");
    }

    #[test]
    fn mirror_urls_are_encoded() {
        let mirror = Mirror::Http("https://m.example".into());
        assert_eq!(
            mirror.source("gavel", "a dir/seed=0.trace").to_string(),
            "https://m.example/gavel/a%20dir/seed%3D0.trace"
        );
    }
}
