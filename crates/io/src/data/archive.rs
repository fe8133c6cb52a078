//! Origin `.tar.gz` archives: downloaded once into `<cache>/.archives/`, then only the wanted
//! members are unpacked, each verified against its own pinned size and SHA-256.
//!
//! Entry paths inside an archive are only compared with the wanted member names, never joined
//! onto a directory: every member is written to the path the registry gives it, so an entry
//! named `../x` or `/etc/x` cannot write outside the cache. Such entries are skipped outright.

use std::fs::File;
use std::io::BufReader;
use std::path::{Component, Path, PathBuf};

use flate2::read::MultiGzDecoder;

use super::transfer::{self, Expect, Net, Source};
use super::{Archive, DataError, Outcome};

/// One member to unpack from an archive.
pub(super) struct Wanted {
    /// Position of the file in the caller's list.
    pub(super) index: usize,
    /// The member's path, or its trailing components, inside the archive.
    pub(super) member: &'static str,
    /// Where the verified member goes.
    pub(super) dest: PathBuf,
    /// Pinned SHA-256 of the member.
    pub(super) sha256: &'static str,
    /// Pinned size of the member.
    pub(super) size: u64,
    /// `dataset/path`, for messages.
    pub(super) what: String,
}

/// Unpacks `wanted` from `archive`, downloading the archive unless `<cache_dir>/.archives/` has
/// it. If a cached archive does not yield every member verified, it is downloaded again once.
/// Returns `(index, outcome)` for every wanted member.
pub(super) fn unpack(
    net: &mut Net,
    archive: &Archive,
    cache_dir: &Path,
    wanted: &[Wanted],
) -> Result<Vec<(usize, Outcome)>, DataError> {
    let path = cache_dir.join(".archives").join(archive.file_name);
    let cached = path.is_file()
        && match archive.sha256 {
            Some(sha) => transfer::sha256_file(&path)?.eq_ignore_ascii_case(sha),
            None => true,
        };
    if !cached {
        download(net, archive, &path)?;
        return extract(&path, archive, wanted);
    }
    match extract(&path, archive, wanted) {
        Ok(outcomes) => Ok(outcomes),
        Err(_) => {
            download(net, archive, &path)?;
            extract(&path, archive, wanted)
        }
    }
}

/// Downloads `archive` to `path`, verifying it when its SHA-256 is pinned. A copy already at
/// `path` is replaced atomically, never removed first: a concurrent fetcher may be unpacking it.
fn download(net: &mut Net, archive: &Archive, path: &Path) -> Result<(), DataError> {
    let what = format!("archive {}", archive.file_name);
    let source = Source::Url(archive.url.to_string());
    let mut reader = net.open(&source, &what)?;
    let on_read = |e| transfer::read_error(&source, &what, e);
    let expect = Expect { sha256: archive.sha256, size: None };
    transfer::install(&mut reader, &on_read, path, &expect, &what, archive.url)?;
    Ok(())
}

/// One pass over the archive at `path`: each regular-file entry that matches a still-missing
/// member is streamed into place and verified; a candidate that fails verification is discarded
/// and later candidates are tried.
fn extract(path: &Path, archive: &Archive, wanted: &[Wanted]) -> Result<Vec<(usize, Outcome)>, DataError> {
    let read_error = |source| DataError::Io { action: "read archive", path: path.to_path_buf(), source };
    let file = File::open(path).map_err(read_error)?;
    let mut tar = tar::Archive::new(MultiGzDecoder::new(BufReader::new(file)));
    let mut done: Vec<Option<Outcome>> = vec![None; wanted.len()];
    let mut mismatch: Vec<Option<DataError>> = wanted.iter().map(|_| None).collect();
    for entry in tar.entries().map_err(read_error)? {
        let mut entry = entry.map_err(read_error)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let Some(name) = entry_components(&entry.path().map_err(read_error)?) else {
            continue;
        };
        let Some(k) = (0..wanted.len()).find(|&k| done[k].is_none() && matches(&name, wanted[k].member)) else {
            continue;
        };
        let member = &wanted[k];
        let from = format!("{} (member {})", archive.url, name.join("/"));
        let expect = Expect { sha256: Some(member.sha256), size: Some(member.size) };
        match transfer::install(&mut entry, &read_error, &member.dest, &expect, &member.what, &from) {
            Ok(bytes) => done[k] = Some(Outcome::Downloaded { bytes, from }),
            Err(e @ (DataError::Checksum { .. } | DataError::TooLarge { .. })) => mismatch[k] = Some(e),
            Err(e) => return Err(e),
        }
        if done.iter().all(Option::is_some) {
            break;
        }
    }
    let mut outcomes = Vec::with_capacity(wanted.len());
    for ((member, outcome), mismatch) in wanted.iter().zip(done).zip(mismatch) {
        match (outcome, mismatch) {
            (Some(outcome), _) => outcomes.push((member.index, outcome)),
            (None, Some(error)) => return Err(error),
            (None, None) => {
                return Err(DataError::MemberNotFound {
                    what: member.what.clone(),
                    member: member.member,
                    archive: archive.url.to_string(),
                });
            }
        }
    }
    Ok(outcomes)
}

/// The entry's path as plain components (`./` dropped), or `None` if it is absolute, has `..` or
/// is not UTF-8: such entries are never unpacked.
fn entry_components(path: &Path) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part.to_str()?.to_string()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether an entry's components end with the member's `/`-separated components.
fn matches(entry: &[String], member: &str) -> bool {
    let member: Vec<&str> = member.split('/').collect();
    entry.len() >= member.len() && entry[entry.len() - member.len()..].iter().zip(&member).all(|(a, b)| a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn components(path: &str) -> Option<Vec<String>> {
        entry_components(Path::new(path))
    }

    #[test]
    fn unsafe_entries_are_skipped() {
        assert_eq!(components("./raw/a.csv"), Some(vec!["raw".into(), "a.csv".into()]));
        assert_eq!(components("../a.csv"), None);
        assert_eq!(components("raw/../../a.csv"), None);
        assert_eq!(components("/etc/a.csv"), None);
        assert_eq!(components("."), None);
    }

    /// A member larger than its pinned size is not unpacked past the pin (the tar header's own
    /// size is the archive's word, not the registry's).
    #[test]
    fn an_oversized_member_stops_at_its_pinned_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.tar.gz");
        let body = vec![b'x'; 1 << 20];
        let mut builder =
            tar::Builder::new(flate2::write::GzEncoder::new(File::create(&path).unwrap(), flate2::Compression::fast()));
        let mut header = tar::Header::new_gnu();
        header.set_size(body.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, "raw/cluster01.csv", body.as_slice()).unwrap();
        builder.into_inner().unwrap().finish().unwrap();
        let archive = Archive { file_name: "a.tar.gz", url: "https://example.org/a.tar.gz", sha256: None };
        let dest = dir.path().join("out/cluster01.csv");
        let wanted = [Wanted {
            index: 0,
            member: "cluster01.csv",
            dest: dest.clone(),
            sha256: "0000000000000000000000000000000000000000000000000000000000000000",
            size: 2771,
            what: "itp-raw/raw/cluster01.csv".into(),
        }];
        let err = extract(&path, &archive, &wanted).err().unwrap().to_string();
        assert!(err.contains("larger than its pinned size of 2771 bytes"), "{err}");
        assert!(!dest.exists());
        assert_eq!(std::fs::read_dir(dest.parent().unwrap()).unwrap().count(), 0, "no temporary file is left");
    }

    #[test]
    fn members_match_whole_trailing_components() {
        let entry = |p: &str| components(p).unwrap_or_default();
        assert!(matches(&entry("raw-traces/cluster01.csv"), "cluster01.csv"));
        assert!(matches(&entry("cluster01.csv"), "cluster01.csv"));
        assert!(matches(&entry("a/raw/cluster01.csv"), "raw/cluster01.csv"));
        assert!(!matches(&entry("x/._cluster01.csv"), "cluster01.csv"));
        assert!(!matches(&entry("old_cluster01.csv"), "cluster01.csv"));
        assert!(!matches(&entry("cluster01.csv"), "raw/cluster01.csv"));
    }
}
