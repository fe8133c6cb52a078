//! The dataset registry: `datasets.txt`, embedded in the binary and parsed once.
//!
//! The data file holds each dataset's metadata once and one row per file (path, size, pinned
//! SHA-256, origin); its header states the format. Sizes and SHA-256 were computed from verbatim
//! copies of the files, and the commits taken from the READMEs that came with them. Where a
//! README gives only an abbreviated commit id, the URL uses it (GitHub resolves abbreviated ids in
//! raw URLs; not checked from the offline machine that made the table). Edit the file by hand
//! when a dataset changes: a line that breaks the format or an invariant (unique names and paths,
//! 64-hex SHA-256, positive sizes, URLs pinned to a commit, known archives) is an error naming it.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

use super::{Archive, DataFile, Dataset, Origin, check_relative};

/// Where the embedded registry comes from, for messages.
const SOURCE_NAME: &str = "crates/io/src/data/datasets.txt";

/// Every dataset, in the data file's order.
///
/// Panics if the embedded file does not parse: it is part of the build, not user input, and the
/// unit test `the_embedded_registry_parses` parses it, so a failure here is a build defect.
pub(super) fn datasets() -> &'static [Dataset] {
    static DATASETS: OnceLock<Vec<Dataset>> = OnceLock::new();
    DATASETS.get_or_init(|| parse(include_str!("datasets.txt")).unwrap_or_else(|e| panic!("{SOURCE_NAME}:{e}")))
}

/// A line of the data file that breaks its format or an invariant.
#[derive(Debug, PartialEq)]
pub(super) struct ParseError {
    /// 1-based line number.
    line: usize,
    message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.message)
    }
}

/// Whether `url` names a file of a GitHub repository at a commit (7 to 40 hex digits), not at a
/// branch that can move: `https://raw.githubusercontent.com/OWNER/REPO/COMMIT/PATH`.
pub(super) fn is_pinned_url(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("https://raw.githubusercontent.com/") else { return false };
    let parts: Vec<&str> = rest.splitn(4, '/').collect();
    match parts.as_slice() {
        [owner, repo, commit, path] => {
            !owner.is_empty()
                && !repo.is_empty()
                && (7..=40).contains(&commit.len())
                && commit.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                && !path.is_empty()
                && !url.contains(char::is_whitespace)
        }
        _ => false,
    }
}

/// Whether `sha256` is 64 lowercase hex digits.
pub(super) fn is_sha256(sha256: &str) -> bool {
    sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The first word of `text` and the rest, leading blanks removed.
fn split_word(text: &str) -> (&str, &str) {
    match text.find(char::is_whitespace) {
        Some(end) => (&text[..end], text[end..].trim_start()),
        None => (text, ""),
    }
}

/// The keywords of a dataset's metadata lines, each required once.
const METADATA: [&str; 5] = ["description", "source", "license", "citation", "mirror"];

/// A dataset whose lines are being read.
struct Open {
    /// The line of its `dataset` keyword.
    line: usize,
    name: &'static str,
    description: Option<&'static str>,
    source: Option<&'static str>,
    license: Option<&'static str>,
    citation: Option<&'static str>,
    mirror: Option<&'static str>,
    files: Vec<DataFile>,
}

impl Open {
    /// The slot of `keyword`, one of [`METADATA`].
    fn slot(&mut self, keyword: &str) -> &mut Option<&'static str> {
        match keyword {
            "description" => &mut self.description,
            "source" => &mut self.source,
            "license" => &mut self.license,
            "citation" => &mut self.citation,
            _ => &mut self.mirror,
        }
    }

    /// The finished dataset; every metadata line and at least one file are required.
    fn close(self) -> Result<Dataset, ParseError> {
        let line = self.line;
        let name = self.name;
        let need = |value: Option<&'static str>, keyword: &str| {
            value.ok_or_else(|| ParseError { line, message: format!("dataset `{name}` has no `{keyword}` line") })
        };
        let dataset = Dataset {
            name,
            description: need(self.description, "description")?,
            source: need(self.source, "source")?,
            license: need(self.license, "license")?,
            citation: need(self.citation, "citation")?,
            mirror_dir: need(self.mirror, "mirror")?,
            // The API hands out `&'static` datasets, as when they were Rust literals: the one
            // parse per process gives its few vectors that lifetime.
            files: self.files.leak(),
        };
        if dataset.files.is_empty() {
            return Err(ParseError { line, message: format!("dataset `{name}` has no `file` line") });
        }
        Ok(dataset)
    }
}

/// Reads the data file's format (its header describes it), checking each line as it goes.
pub(super) fn parse(text: &'static str) -> Result<Vec<Dataset>, ParseError> {
    let mut archives: HashMap<&str, &'static Archive> = HashMap::new();
    let mut datasets = Vec::new();
    let mut names = HashSet::new();
    let mut paths = HashSet::new();
    let mut open: Option<Open> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let error = |message: String| ParseError { line, message };
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let (keyword, rest) = split_word(content);
        match keyword {
            "archive" => {
                let words: Vec<&'static str> = rest.split_whitespace().collect();
                let (id, file_name, url, sha256) = match words.as_slice() {
                    [id, file_name, url] => (*id, *file_name, *url, None),
                    [id, file_name, url, sha256] => (*id, *file_name, *url, Some(*sha256)),
                    _ => return Err(error("expected `archive ID FILE_NAME URL [SHA256]`".into())),
                };
                check_relative(file_name).map_err(|e| error(e.to_string()))?;
                if !is_pinned_url(url) {
                    return Err(error(format!("archive URL `{url}` is not pinned to a commit")));
                }
                if let Some(sha256) = sha256.filter(|s| !is_sha256(s)) {
                    return Err(error(format!("`{sha256}` is not a SHA-256 (64 lowercase hex digits)")));
                }
                let archive: &'static Archive = Box::leak(Box::new(Archive { file_name, url, sha256 }));
                if archives.insert(id, archive).is_some() {
                    return Err(error(format!("archive `{id}` is declared twice")));
                }
            }
            "dataset" => {
                if let Some(done) = open.take() {
                    datasets.push(done.close()?);
                }
                let (name, extra) = split_word(rest);
                if name.is_empty() || !extra.is_empty() {
                    return Err(error("expected `dataset NAME`".into()));
                }
                check_relative(name).map_err(|e| error(e.to_string()))?;
                if !names.insert(name) {
                    return Err(error(format!("dataset `{name}` is declared twice")));
                }
                paths.clear();
                open = Some(Open {
                    line,
                    name,
                    description: None,
                    source: None,
                    license: None,
                    citation: None,
                    mirror: None,
                    files: Vec::new(),
                });
            }
            "file" => {
                let dataset = open.as_mut().ok_or_else(|| error("`file` before any `dataset`".into()))?;
                let file = parse_file(rest, &archives).map_err(error)?;
                if !paths.insert(file.path) {
                    return Err(error(format!("dataset `{}` lists `{}` twice", dataset.name, file.path)));
                }
                dataset.files.push(file);
            }
            _ => {
                if !METADATA.contains(&keyword) {
                    return Err(error(format!(
                        "unknown keyword `{keyword}` (expected archive, dataset, {} or file)",
                        METADATA.join(", ")
                    )));
                }
                let dataset = open.as_mut().ok_or_else(|| error(format!("`{keyword}` before any `dataset`")))?;
                let name = dataset.name;
                let slot = dataset.slot(keyword);
                if rest.is_empty() {
                    return Err(error(format!("`{keyword}` needs a value")));
                }
                if slot.replace(rest).is_some() {
                    return Err(error(format!("dataset `{name}` has a second `{keyword}` line")));
                }
                if keyword == "mirror" {
                    check_relative(rest).map_err(|e| error(e.to_string()))?;
                }
            }
        }
    }
    if let Some(done) = open {
        datasets.push(done.close()?);
    }
    Ok(datasets)
}

/// A `file` row after its keyword: `PATH SIZE SHA256` then `url URL`, `member ARCHIVE MEMBER`
/// or `mirror-only REASON`.
fn parse_file(row: &'static str, archives: &HashMap<&str, &'static Archive>) -> Result<DataFile, String> {
    let (path, rest) = split_word(row);
    let (size, rest) = split_word(rest);
    let (sha256, rest) = split_word(rest);
    let (kind, rest) = split_word(rest);
    check_relative(path).map_err(|e| e.to_string())?;
    let size: u64 = size.parse().ok().filter(|&s| s > 0).ok_or_else(|| {
        format!(
            "`{path}`: size `{size}` is not a positive whole number of bytes (expected `file PATH SIZE SHA256 ORIGIN`)"
        )
    })?;
    if !is_sha256(sha256) {
        return Err(format!("`{path}`: `{sha256}` is not a SHA-256 (64 lowercase hex digits)"));
    }
    let words: Vec<&'static str> = rest.split_whitespace().collect();
    let origin = match (kind, words.as_slice()) {
        ("url", &[url]) if is_pinned_url(url) => Origin::Url(url),
        ("url", &[url]) => return Err(format!("`{path}`: URL `{url}` is not pinned to a commit")),
        ("member", &[id, member]) => {
            let archive =
                archives.get(id).copied().ok_or_else(|| format!("`{path}`: no `archive {id}` line before it"))?;
            check_relative(member).map_err(|e| e.to_string())?;
            Origin::ArchiveMember { archive, member }
        }
        ("mirror-only", [_, ..]) => Origin::MirrorOnly(rest),
        _ => {
            return Err(format!(
                "`{path}`: expected `url URL`, `member ARCHIVE MEMBER` or `mirror-only REASON` after the SHA-256"
            ));
        }
    };
    Ok(DataFile { path, size, sha256, origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_registry_parses() {
        let parsed = parse(include_str!("datasets.txt")).unwrap_or_else(|e| panic!("{SOURCE_NAME}:{e}"));
        assert_eq!(parsed.len(), datasets().len());
    }

    const GOOD: &str = "\
# a comment
archive a x.tar.gz https://raw.githubusercontent.com/o/r/0123abc/x.tar.gz
dataset d
  description one line
  source o/r @ 0123abc
  license MIT
  citation Someone, \"A paper\", 2024
  mirror m
  file f.csv 10 0000000000000000000000000000000000000000000000000000000000000000 url https://raw.githubusercontent.com/o/r/0123abc/f.csv
  file g/h.csv 20 1111111111111111111111111111111111111111111111111111111111111111 member a h.csv
  file i.csv 30 2222222222222222222222222222222222222222222222222222222222222222 mirror-only made   here
";

    #[test]
    fn a_small_registry_reads_back_field_by_field() {
        let datasets = parse(GOOD).unwrap();
        let [d] = datasets.as_slice() else { panic!("{datasets:?}") };
        assert_eq!(
            (d.name, d.description, d.source, d.license, d.citation, d.mirror_dir),
            ("d", "one line", "o/r @ 0123abc", "MIT", "Someone, \"A paper\", 2024", "m")
        );
        let sizes: Vec<(&str, u64)> = d.files.iter().map(|f| (f.path, f.size)).collect();
        assert_eq!(sizes, [("f.csv", 10), ("g/h.csv", 20), ("i.csv", 30)]);
        assert!(matches!(d.files[0].origin, Origin::Url("https://raw.githubusercontent.com/o/r/0123abc/f.csv")));
        let Origin::ArchiveMember { archive, member } = d.files[1].origin else { panic!() };
        assert_eq!((archive.file_name, archive.sha256, member), ("x.tar.gz", None, "h.csv"));
        assert!(matches!(d.files[2].origin, Origin::MirrorOnly("made   here")));
    }

    /// Each broken line is reported with its number and what is wrong with it.
    #[test]
    fn errors_name_the_line() {
        let sha = "0".repeat(64);
        let cases: Vec<(String, usize, &str)> = vec![
            (GOOD.replace("dataset d", "dataset d\ndataset d"), 3, "`d` has no `description`"),
            (format!("{GOOD}dataset d\n"), 12, "`d` is declared twice"),
            (GOOD.replace("  mirror m\n", ""), 3, "no `mirror` line"),
            (GOOD.replace("  license MIT", "  license MIT\n  license GPL"), 7, "second `license`"),
            (GOOD.replace("member a", "member b"), 10, "no `archive b` line"),
            (GOOD.replace("mirror-only made   here", "mirror-only"), 11, "expected `url URL`"),
            (GOOD.replace(" 20 ", " 0 "), 10, "size `0`"),
            (GOOD.replace("0123abc/f.csv", "main/f.csv"), 9, "not pinned"),
            (GOOD.replace("f.csv 10 0000", "f.csv 10 000"), 9, "not a SHA-256"),
            (GOOD.replace("i.csv", "f.csv"), 11, "lists `f.csv` twice"),
            (GOOD.replace("g/h.csv", "../h.csv"), 10, "not a plain relative path"),
            (GOOD.replace("  source", "  origin"), 5, "unknown keyword `origin`"),
            (format!("file f 1 {sha} url https://raw.githubusercontent.com/o/r/0123abc/f\n"), 1, "before any"),
            ("license MIT\n".into(), 1, "`license` before any `dataset`"),
            ("origin x\ndataset d\n".into(), 1, "unknown keyword `origin`"),
            (GOOD.replace(" 20 ", " 2e1 "), 10, "size `2e1`"),
            (GOOD.replace(" 20 ", " -20 "), 10, "size `-20`"),
            (GOOD.replace("f.csv 10 0000", "f.csv 10 000A"), 9, "not a SHA-256"),
            (GOOD.replace("f.csv 10 0", "f.csv 10 g"), 9, "not a SHA-256"),
            (GOOD.replace("/f.csv\n", "/f.csv extra\n"), 9, "expected `url URL`"),
            (
                GOOD.replace(
                    "dataset d",
                    "archive a y.tar.gz https://raw.githubusercontent.com/o/r/0123abc/y.tar.gz\ndataset d",
                ),
                3,
                "archive `a` is declared twice",
            ),
            (GOOD.replace("x.tar.gz https", "x.tar.gz http"), 2, "not pinned"),
            (GOOD.replace("  mirror m", "  mirror /m"), 8, "not a plain relative path"),
            ("dataset e\n  description x\n  source x\n  license x\n  citation x\n  mirror x\n".into(), 1, "no `file`"),
        ];
        for (text, line, words) in cases {
            let error = parse(Box::leak(text.clone().into_boxed_str())).err();
            let error = error.unwrap_or_else(|| panic!("accepted:\n{text}"));
            assert_eq!(error.line, line, "{error}\n{text}");
            assert!(error.message.contains(words), "{error}");
        }
    }

    #[test]
    fn pinned_urls_name_a_commit() {
        assert!(is_pinned_url("https://raw.githubusercontent.com/o/r/0123abc/a/b.csv"));
        assert!(is_pinned_url(&format!("https://raw.githubusercontent.com/o/r/{}/a", "f".repeat(40))));
        for url in [
            "https://raw.githubusercontent.com/o/r/main/a.csv",
            "https://raw.githubusercontent.com/o/r/012345/a.csv",
            "https://raw.githubusercontent.com/o/r/0123abc",
            "https://example.com/o/r/0123abc/a.csv",
            "http://raw.githubusercontent.com/o/r/0123abc/a.csv",
        ] {
            assert!(!is_pinned_url(url), "{url}");
        }
    }
}
