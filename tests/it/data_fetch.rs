//! `blox data fetch`: the real download path against a local HTTP/1.1 server on 127.0.0.1 that
//! serves a mirror directory each test builds (registry files obtained through the data layer,
//! or files it generates), plus directory mirrors, origin archives and concurrent fetches into
//! one cache. The mirror under test is always passed through `FetchOptions` (or the child's
//! environment), never read from this process's environment.

use crate::common;

use std::error::Error;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use blox::data::{self, Archive, DataError, DataFile, Dataset, FetchOptions, Origin, Outcome};
use common::{dataset_file, mirror_of_datasets, mirror_with, sha256_hex};

type TestResult = Result<(), Box<dyn Error>>;

/// A minimal HTTP/1.1 file server on 127.0.0.1 that counts requests; stops when dropped.
struct Server {
    port: u16,
    requests: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(root: PathBuf) -> Result<Server, Box<dyn Error>> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let requests = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, stopping) = (Arc::clone(&requests), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    // A failed exchange only drops that connection; the client reports it.
                    let _ = serve(stream, &root, &count);
                }
            }
        });
        Ok(Server { port, requests, stop, thread: Some(thread) })
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so the thread sees the flag and ends.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers one GET: 200 with the file under `root`, else 404; one request per connection.
fn serve(stream: TcpStream, root: &Path, requests: &AtomicUsize) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    requests.fetch_add(1, Ordering::SeqCst);
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let relative = PathBuf::from(percent_decode(target.trim_start_matches('/')));
    let safe = relative.components().all(|c| matches!(c, Component::Normal(_)));
    let body = if safe { fs::read(root.join(&relative)).ok() } else { None };
    let mut stream = stream;
    match body {
        Some(body) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            stream.write_all(&body)?;
        }
        None => write!(stream, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found")?,
    }
    stream.flush()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn options(cache: &Path, mirror: Option<String>) -> FetchOptions {
    FetchOptions { cache_dir: cache.to_path_buf(), mirror, quiet: true }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Names of leftover temporary files anywhere under `dir`.
fn temp_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().contains(".part-") {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[test]
fn http_mirror_downloads_verifies_and_never_refetches() -> TestResult {
    let mirror = mirror_of_datasets(&["alibaba-2023"]);
    let server = Server::start(mirror.path().to_path_buf())?;
    let cache = tempfile::tempdir()?;
    let options = options(cache.path(), Some(server.url()));
    let dataset = data::find("alibaba-2023")?;

    let report = data::fetch(dataset, &options)?;
    assert_eq!(report.dir, cache.path().join("alibaba-2023"));
    assert_eq!(report.files.len(), dataset.files.len());
    for ((path, outcome), file) in report.files.iter().zip(dataset.files) {
        let Outcome::Downloaded { bytes, from } = outcome else {
            panic!("{file:?}: {outcome:?}");
        };
        assert_eq!(*bytes, file.size);
        assert_eq!(from, &format!("{}/alibaba-gpu-v2023/{}", server.url(), file.path));
        let body = fs::read(path)?;
        assert_eq!(sha256_hex(&body), file.sha256);
        assert_eq!(body, fs::read(mirror.path().join("alibaba-gpu-v2023").join(file.path))?);
    }
    assert_eq!(server.requests(), dataset.files.len());
    assert_eq!(data::verified_count(dataset, &options)?, dataset.files.len());

    let again = data::fetch(dataset, &options)?;
    assert!(again.files.iter().all(|(_, o)| *o == Outcome::AlreadyVerified));
    assert_eq!(server.requests(), dataset.files.len(), "a verified file was downloaded again");
    assert!(temp_files(cache.path()).is_empty());
    Ok(())
}

#[test]
fn corrupted_cached_file_is_fetched_again() -> TestResult {
    let mirror = mirror_of_datasets(&["tiresias"]);
    let server = Server::start(mirror.path().to_path_buf())?;
    let cache = tempfile::tempdir()?;
    let options = options(cache.path(), Some(server.url()));
    let dataset = data::find("tiresias")?;
    data::fetch(dataset, &options)?;
    let before = server.requests();

    let victim = cache.path().join("tiresias/60_job.csv");
    fs::write(&victim, b"job_id,num_gpu\n1,1\n")?;
    let report = data::fetch(dataset, &options)?;
    for (path, outcome) in &report.files {
        if *path == victim {
            assert!(matches!(outcome, Outcome::Downloaded { .. }), "{outcome:?}");
        } else {
            assert_eq!(*outcome, Outcome::AlreadyVerified, "{}", path.display());
        }
    }
    assert_eq!(server.requests(), before + 1);
    assert_eq!(fs::read(&victim)?, fs::read(mirror.path().join("tiresias/60_job.csv"))?);
    Ok(())
}

#[test]
fn checksum_mismatch_names_file_hashes_and_url_and_installs_nothing() -> TestResult {
    let root = mirror_of_datasets(&["alibaba-2023"]);
    let altered = root.path().join("alibaba-gpu-v2023/openb_node_list_gpu_node.csv");
    let mut bytes = fs::read(&altered)?;
    bytes[100] ^= 1;
    fs::write(&altered, &bytes)?;

    let server = Server::start(root.path().to_path_buf())?;
    let cache = tempfile::tempdir()?;
    let dataset = data::find("alibaba-2023")?;
    let file = dataset.file("openb_node_list_gpu_node.csv").ok_or("registry lacks the node list")?;
    let err = data::fetch(dataset, &options(cache.path(), Some(server.url())))
        .err()
        .ok_or("a corrupted mirror copy was accepted")?;
    assert!(matches!(err, DataError::Checksum { .. }), "{err:?}");
    let message = err.to_string();
    let url = format!("{}/alibaba-gpu-v2023/openb_node_list_gpu_node.csv", server.url());
    for needle in ["alibaba-2023/openb_node_list_gpu_node.csv", file.sha256, &sha256_hex(&bytes), &url] {
        assert!(message.contains(needle), "{needle} not in: {message}");
    }
    assert!(!cache.path().join("alibaba-2023/openb_node_list_gpu_node.csv").exists());
    assert!(temp_files(cache.path()).is_empty());
    Ok(())
}

#[test]
fn directory_and_file_url_mirrors() -> TestResult {
    let dataset = data::find("tiresias")?;
    let root = mirror_of_datasets(&["tiresias"]);
    for mirror in [root.path().display().to_string(), format!("file://{}", root.path().display())] {
        let cache = tempfile::tempdir()?;
        let report = data::fetch(dataset, &options(cache.path(), Some(mirror.clone())))?;
        for ((path, outcome), file) in report.files.iter().zip(dataset.files) {
            let expected_from = root.path().join("tiresias").join(file.path);
            assert_eq!(*outcome, Outcome::Downloaded { bytes: file.size, from: expected_from.display().to_string() });
            assert_eq!(fs::read(path)?, fs::read(&expected_from)?);
        }
    }
    Ok(())
}

#[test]
fn missing_file_in_directory_mirror_names_the_path() -> TestResult {
    let empty = tempfile::tempdir()?;
    let cache = tempfile::tempdir()?;
    let mirror = Some(empty.path().display().to_string());
    let err = data::fetch(data::find("philly")?, &options(cache.path(), mirror))
        .err()
        .ok_or("fetch from an empty mirror succeeded")?;
    let message = err.to_string();
    assert!(message.contains("philly/pollux_philly.csv"), "{message}");
    assert!(message.contains(&empty.path().join("philly").display().to_string()));
    Ok(())
}

#[test]
fn http_404_and_refused_connection_name_the_url() -> TestResult {
    let empty = tempfile::tempdir()?;
    let server = Server::start(empty.path().to_path_buf())?;
    let cache = tempfile::tempdir()?;
    let dataset = data::find("philly")?;
    let err = data::fetch(dataset, &options(cache.path(), Some(server.url()))).err().ok_or("a 404 was accepted")?;
    assert!(matches!(err, DataError::Http { status: 404, .. }), "{err:?}");
    let url = format!("{}/philly/pollux_philly.csv", server.url());
    assert!(err.to_string().contains(&url), "{err}");
    assert!(!cache.path().join("philly/pollux_philly.csv").exists());

    let closed = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let base = format!("http://127.0.0.1:{closed}");
    let err = data::fetch(dataset, &options(cache.path(), Some(base.clone())))
        .err()
        .ok_or("a refused connection was accepted")?;
    assert!(matches!(err, DataError::Network { .. }), "{err:?}");
    assert!(err.to_string().contains(&format!("{base}/philly/pollux_philly.csv")), "{err}");
    Ok(())
}

#[test]
fn origin_url_is_used_without_a_mirror() -> TestResult {
    let root = mirror_with(&["muri/cluster_exp/cluster_trace.csv"]);
    let server = Server::start(root.path().to_path_buf())?;
    let cache = tempfile::tempdir()?;
    let real =
        data::find("muri")?.file("cluster_exp/cluster_trace.csv").ok_or("registry lacks the Muri testbed trace")?;
    let url = leak(format!("{}/muri/cluster_exp/cluster_trace.csv", server.url()));
    let files: &'static [DataFile] = Box::leak(Box::new([DataFile {
        path: "cluster_trace.csv",
        size: real.size,
        sha256: real.sha256,
        origin: Origin::Url(url),
    }]));
    let dataset = Dataset {
        name: "origin-test",
        description: "one file from its origin URL",
        source: "test",
        license: "test",
        citation: "test",
        mirror_dir: "unused",
        files,
    };
    let report = data::fetch(&dataset, &options(cache.path(), None))?;
    assert_eq!(report.files[0].1, Outcome::Downloaded { bytes: real.size, from: url.to_string() });
    assert_eq!(server.requests(), 1);
    Ok(())
}

/// Writes a `.tar.gz` with `(entry path, bytes)` members.
fn write_tar_gz(path: &Path, members: &[(&str, Vec<u8>)]) -> TestResult {
    let gz = flate2::write::GzEncoder::new(fs::File::create(path)?, flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    for (name, bytes) in members {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, bytes.as_slice())?;
    }
    builder.into_inner()?.finish()?;
    Ok(())
}

/// A dataset of ITP raw files that come from a test archive served at `url`.
fn archive_dataset(url: &str, archive_sha: Option<&'static str>, members: &[&str]) -> Dataset {
    let archive: &'static Archive = Box::leak(Box::new(Archive {
        file_name: "raw-traces-test.tar.gz",
        url: leak(url.to_string()),
        sha256: archive_sha,
    }));
    let itp = data::find("itp-raw").ok();
    let files: Vec<DataFile> = members
        .iter()
        .map(|member| {
            let path = leak(format!("raw/{member}"));
            let real = itp.and_then(|d| d.file(path));
            DataFile {
                path,
                size: real.map_or(0, |f| f.size),
                sha256: real.map_or("0", |f| f.sha256),
                origin: Origin::ArchiveMember { archive, member: leak(member.to_string()) },
            }
        })
        .collect();
    Dataset {
        name: "archive-test",
        description: "members of a test archive",
        source: "test",
        license: "test",
        citation: "test",
        mirror_dir: "unused",
        files: Box::leak(files.into_boxed_slice()),
    }
}

#[test]
fn archive_members_are_unpacked_verified_and_cached() -> TestResult {
    let root = tempfile::tempdir()?;
    let tarball = root.path().join("raw-traces.tar.gz");
    write_tar_gz(
        &tarball,
        &[
            ("./raw-traces/LICENSE", fs::read(dataset_file("itp-raw/LICENSE"))?),
            // A decoy with the right name but wrong bytes comes first: it must be skipped.
            ("decoy/cluster10.csv", b"job_id\n".to_vec()),
            ("./raw-traces/cluster05.csv", fs::read(dataset_file("itp-raw/raw/cluster05.csv"))?),
            ("./raw-traces/cluster10.csv", fs::read(dataset_file("itp-raw/raw/cluster10.csv"))?),
        ],
    )?;
    let server = Server::start(root.path().to_path_buf())?;
    let url = format!("{}/raw-traces.tar.gz", server.url());
    let cache = tempfile::tempdir()?;
    let options = options(cache.path(), None);

    let dataset = archive_dataset(&url, None, &["cluster05.csv", "cluster10.csv"]);
    let report = data::fetch(&dataset, &options)?;
    for ((path, outcome), file) in report.files.iter().zip(dataset.files) {
        let Outcome::Downloaded { bytes, from } = outcome else {
            panic!("{outcome:?}");
        };
        assert_eq!(*bytes, file.size);
        assert!(from.starts_with(&url) && from.contains("raw-traces/cluster"), "{from}");
        assert_eq!(sha256_hex(&fs::read(path)?), file.sha256);
    }
    assert_eq!(server.requests(), 1, "the archive is downloaded once");
    assert!(cache.path().join(".archives/raw-traces-test.tar.gz").is_file());

    data::fetch(&dataset, &options)?;
    fs::remove_file(cache.path().join("archive-test/raw/cluster05.csv"))?;
    let report = data::fetch(&dataset, &options)?;
    assert!(matches!(report.files[0].1, Outcome::Downloaded { .. }));
    assert_eq!(report.files[1].1, Outcome::AlreadyVerified);
    assert_eq!(server.requests(), 1, "the cached archive is reused");

    // A member that does not verify: the cached archive is fetched once more, then the error.
    let bad = archive_dataset(&url, None, &["cluster01.csv"]);
    let bad_files: &'static [DataFile] = Box::leak(Box::new([DataFile {
        path: "raw/cluster05-bad.csv",
        size: 5,
        sha256: "0000000000000000000000000000000000000000000000000000000000000000",
        origin: Origin::ArchiveMember {
            archive: match bad.files[0].origin {
                Origin::ArchiveMember { archive, .. } => archive,
                _ => return Err("test dataset without archive".into()),
            },
            member: "cluster05.csv",
        },
    }]));
    let bad_sha = Dataset { files: bad_files, ..bad };
    let err = data::fetch(&bad_sha, &options).err().ok_or("a member with the wrong checksum was accepted")?;
    assert!(matches!(err, DataError::Checksum { .. } | DataError::TooLarge { .. }), "{err:?}");
    assert!(err.to_string().contains("archive-test/raw/cluster05-bad.csv"), "{err}");
    assert!(!cache.path().join("archive-test/raw/cluster05-bad.csv").exists());
    assert_eq!(server.requests(), 2);

    let missing = archive_dataset(&url, None, &["cluster01.csv"]);
    let err = data::fetch(&missing, &options).err().ok_or("a missing member was accepted")?;
    assert!(matches!(err, DataError::MemberNotFound { .. }), "{err:?}");
    assert!(err.to_string().contains("cluster01.csv") && err.to_string().contains(&url));
    assert!(temp_files(cache.path()).is_empty());
    Ok(())
}

#[test]
fn pinned_archive_checksum_is_enforced() -> TestResult {
    let root = tempfile::tempdir()?;
    let tarball = root.path().join("raw-traces.tar.gz");
    write_tar_gz(&tarball, &[("cluster10.csv", fs::read(dataset_file("itp-raw/raw/cluster10.csv"))?)])?;
    let archive_sha = leak(sha256_hex(&fs::read(&tarball)?));
    let server = Server::start(root.path().to_path_buf())?;
    let url = format!("{}/raw-traces.tar.gz", server.url());

    let cache = tempfile::tempdir()?;
    let good = archive_dataset(&url, Some(archive_sha), &["cluster10.csv"]);
    data::fetch(&good, &options(cache.path(), None))?;

    let cache = tempfile::tempdir()?;
    let wrong = "1111111111111111111111111111111111111111111111111111111111111111";
    let bad = archive_dataset(&url, Some(wrong), &["cluster10.csv"]);
    let err = data::fetch(&bad, &options(cache.path(), None))
        .err()
        .ok_or("an archive with the wrong checksum was accepted")?;
    let message = err.to_string();
    assert!(message.contains(wrong) && message.contains(archive_sha), "{message}");
    assert!(!cache.path().join(".archives/raw-traces-test.tar.gz").exists());
    assert!(!cache.path().join("archive-test/raw/cluster10.csv").exists());
    Ok(())
}

#[test]
fn resolve_fetches_only_the_named_file() -> TestResult {
    let root = mirror_with(&["itp-raw/raw/cluster05.csv"]);
    let server = Server::start(root.path().to_path_buf())?;
    let cache = tempfile::tempdir()?;
    let options = options(cache.path(), Some(server.url()));
    let path = data::resolve("itp-raw/raw/cluster05.csv", &options)?;
    assert_eq!(path, cache.path().join("itp-raw/raw/cluster05.csv"));
    assert_eq!(fs::read(&path)?, fs::read(root.path().join("elasticflow-itp/raw/cluster05.csv"))?);
    assert_eq!(server.requests(), 1);
    assert_eq!(data::resolve("itp-raw/raw/cluster05.csv", &options)?, path);
    assert_eq!(server.requests(), 1);

    let err = data::resolve("itp-raw/cluster05.csv", &options).err().ok_or("an unknown file resolved")?;
    assert!(err.to_string().contains("raw/cluster05.csv"), "{err}");
    let err = data::resolve("no-such-set/x.csv", &options).err().ok_or("an unknown dataset resolved")?;
    assert!(err.to_string().contains("gavel-traces"), "{err}");
    assert_eq!(server.requests(), 1);
    Ok(())
}

/// A dataset `name` (mirror folder `name` too) of generated files under `root`: (path, bytes)
/// pairs written to `<root>/<name>/<path>`, registered with their real size and SHA-256.
fn generated_dataset(root: &Path, name: &'static str, files: &[(&str, Vec<u8>)], origin: fn() -> Origin) -> Dataset {
    let files: Vec<DataFile> = files
        .iter()
        .map(|(path, bytes)| {
            let dest = root.join(name).join(path);
            fs::create_dir_all(dest.parent().unwrap()).unwrap();
            fs::write(&dest, bytes).unwrap();
            DataFile {
                path: leak(path.to_string()),
                size: bytes.len() as u64,
                sha256: leak(sha256_hex(bytes)),
                origin: origin(),
            }
        })
        .collect();
    Dataset {
        name,
        description: "generated by the test",
        source: "test",
        license: "test",
        citation: "test",
        mirror_dir: name,
        files: Box::leak(files.into_boxed_slice()),
    }
}

#[test]
fn mirror_only_files_need_a_mirror() -> TestResult {
    let cache = tempfile::tempdir()?;
    let no_mirror = options(cache.path(), None);
    let err = data::resolve("synergy/model_profiles.csv", &no_mirror)
        .err()
        .ok_or("a mirror-only file resolved without a mirror")?;
    assert!(matches!(err, DataError::MirrorOnly { .. }), "{err:?}");
    assert!(err.to_string().contains("BLOX_DATA_MIRROR"), "{err}");

    let mirror = tempfile::tempdir()?;
    let bytes = b"job_id,num_gpu\n1,1\n".to_vec();
    let dataset = generated_dataset(mirror.path(), "mirror-only-test", &[("x.csv", bytes.clone())], || {
        Origin::MirrorOnly("made here")
    });
    let report = data::fetch(&dataset, &no_mirror)?;
    assert_eq!(report.files[0].1, Outcome::MirrorOnly { reason: "made here" });
    assert!(!report.files[0].0.exists());

    let with_mirror = options(cache.path(), Some(mirror.path().display().to_string()));
    let report = data::fetch(&dataset, &with_mirror)?;
    assert!(matches!(report.files[0].1, Outcome::Downloaded { bytes: 19, .. }), "{:?}", report.files[0].1);
    assert_eq!(fs::read(&report.files[0].0)?, bytes);
    Ok(())
}

/// Deterministic filler bytes (a linear congruential sequence), so files are large enough for
/// concurrent fetches to overlap.
fn filler(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

/// Threads of one process fetching one dataset into one empty cache at once: every fetch returns
/// paths that hold the verified file right away (another fetcher never removes or truncates a
/// file that one has installed), and no temporary file is left.
#[test]
fn concurrent_fetches_into_one_cache_each_see_verified_files() -> TestResult {
    let mirror = tempfile::tempdir()?;
    let files: Vec<(String, Vec<u8>)> = (0..6).map(|i| (format!("part-{i}.bin"), filler(i, 512 * 1024))).collect();
    let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(p, b)| (p.as_str(), b.clone())).collect();
    let dataset = generated_dataset(mirror.path(), "concurrent-test", &files, || Origin::MirrorOnly("generated"));
    let dataset: &'static Dataset = Box::leak(Box::new(dataset));
    for _round in 0..5 {
        let cache = tempfile::tempdir()?;
        let options = options(cache.path(), Some(mirror.path().display().to_string()));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let options = options.clone();
                std::thread::spawn(move || -> Result<(), String> {
                    let report = data::fetch(dataset, &options).map_err(|e| e.to_string())?;
                    for ((path, _), file) in report.files.iter().zip(dataset.files) {
                        let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
                        if sha256_hex(&bytes) != file.sha256 {
                            return Err(format!("{}: not the verified file ({} bytes)", path.display(), bytes.len()));
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        let errors: Vec<String> = threads.into_iter().filter_map(|t| t.join().expect("no panic").err()).collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        assert_eq!(data::verified_count(dataset, &options)?, dataset.files.len());
        assert!(temp_files(cache.path()).is_empty());
    }
    Ok(())
}

/// Several `blox validate` processes on one empty cache (as parallel test binaries or users'
/// shells would): each fetches the spec's dataset files and reads them; all succeed and the cache
/// ends verified, with no temporary file left.
#[test]
fn concurrent_processes_share_one_cache() -> TestResult {
    let references: Vec<String> = (1..=10).map(|n| format!("itp-raw/raw/cluster{n:02}.csv")).collect();
    let mirror = mirror_with(&references.iter().map(String::as_str).collect::<Vec<_>>());
    let dir = tempfile::tempdir()?;
    let workloads: String = references.iter().map(|r| format!("  - trace: {{dataset: {r}}}\n")).collect();
    let spec = dir.path().join("s.yaml");
    fs::write(
        &spec,
        format!(
            "name: shared-cache
policies: [{{label: FIFO, scheduler: fifo}}]
clusters: [{{nodes: 64, gpus_per_node: 8}}]
workloads:
{workloads}measure: {{track: all}}
"
        ),
    )?;
    let cache = dir.path().join("cache");
    let children: Vec<std::process::Child> = (0..4)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_blox"))
                .arg("validate")
                .arg(&spec)
                .env("BLOX_DATA_DIR", &cache)
                .env("BLOX_DATA_MIRROR", mirror.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
        })
        .collect::<Result<_, _>>()?;
    for child in children {
        let out = child.wait_with_output()?;
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("trace-cluster05: itp format, 3629 rows read"), "{stdout}\n{stderr}");
    }
    let dataset = data::find("itp-raw")?;
    let verified = data::verified_count(dataset, &options(&cache, None))?;
    assert_eq!(verified, references.len(), "cluster01..10 verified (the LICENSE is not in the spec)");
    assert!(temp_files(&cache).is_empty());
    Ok(())
}
