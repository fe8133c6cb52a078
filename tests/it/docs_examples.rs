//! Every example of the README and the guide (`docs/guide/*.md`), executed as a reader would, one
//! document at a time in a fresh directory that holds copies of the repository's `specs/`,
//! `traces/`, `examples/` and `clients/`, so that an example which stops working fails CI.
//!
//! What each fenced block means here, in document order:
//! - ```` ```yaml ```` with a top-level `name:` is a whole spec: written to `<name>.yaml` and
//!   checked with `blox validate`. Without `name:` it is a step of building that spec up: its
//!   top-level keys replace those of the spec so far (the last whole spec above it, with the
//!   fragments since), and the result is validated the same way.
//! - ```` ```sh ````: every line is run, in order, and must succeed. A line is a `blox` command,
//!   `cargo run --release -- ARGS` (run as `blox ARGS`, which it is), or `cargo test --release`
//!   (this suite, not run again); anything else must be in a block marked not run. Arguments may
//!   not name absolute paths, so an example never writes outside its directory; a comment, pipe
//!   or redirection ends what is run (`blox man | man -l -` runs `blox man`).
//! - ```` ```text ```` right after a `sh` block is the output of its last command: stdout must be
//!   exactly that text.
//! - ```` ```python ```` is run with `python3`, or the interpreter `BLOX_PYTHON` names (recipes
//!   read the tables of a spec run above, or use the `blox` package; one whose module, pandas,
//!   Polars, DuckDB or `blox`, is not installed is skipped loudly, except under CI, whose
//!   `.ci/run` installs them and points `BLOX_PYTHON` at the virtual environment holding the
//!   package's wheel).
//! - Other blocks (Rust snippets, directory listings) are shown, not run.
//!
//! An HTML comment just above a block changes that: `<!-- file: PATH -->` writes the block to
//! PATH instead (a script a spec runs), and `<!-- not run: WHY -->` skips it, for the few
//! commands that need a cluster, a network service or minutes (each says why; the count is
//! bounded below so they stay few). `blox` commands of skipped blocks are still parsed by the CLI
//! (`src/cli/reference.rs`, `every_documented_command_parses`).

use crate::common;
use blox::cli::reference::shell_words;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The guide's chapters, each run by its own test below.
const GUIDE: [&str; 10] = [
    "README.md",
    "spec.md",
    "running.md",
    "policies.md",
    "traces-and-datasets.md",
    "results-and-figures.md",
    "live.md",
    "writing-policies.md",
    "reproducing-papers.md",
    "python.md",
];

/// Most `not run` marks all documents may hold together.
const MAX_NOT_RUN: usize = 6;

/// What the comment above a block asks.
#[derive(Debug, Clone, PartialEq)]
enum Mark {
    NotRun(String),
    File(String),
}

#[derive(Debug)]
struct Block {
    language: String,
    text: String,
    /// 1-based line of the opening fence.
    line: usize,
    mark: Option<Mark>,
}

fn blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    let mut previous = "";
    for (i, line) in markdown.lines().enumerate() {
        match &mut open {
            Some(block) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::replace(block, Block::empty()));
                open = None;
            }
            Some(block) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            None if line.trim_start().starts_with("```") => {
                let comment = previous.trim().strip_prefix("<!--").and_then(|c| c.strip_suffix("-->")).map(str::trim);
                let mark = comment.and_then(|c| {
                    if let Some(why) = c.strip_prefix("not run:") {
                        Some(Mark::NotRun(why.trim().to_string()))
                    } else {
                        c.strip_prefix("file:").map(|path| Mark::File(path.trim().to_string()))
                    }
                });
                let language = line.trim_start().trim_start_matches('`').trim().to_string();
                open = Some(Block { language, text: String::new(), line: i + 1, mark });
            }
            None => {}
        }
        if !line.trim().is_empty() {
            previous = line;
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    blocks
}

impl Block {
    fn empty() -> Self {
        Block { language: String::new(), text: String::new(), line: 0, mark: None }
    }
}

/// A YAML document's top-level entries, `(key, text)`, in order: a line at column 0 that is not
/// a comment or a list item starts an entry, and every other line belongs to the entry above.
fn top_level(yaml: &str) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in yaml.lines() {
        let starts_entry = !line.starts_with([' ', '\t', '#', '-']) && line.contains(':');
        if starts_entry || entries.is_empty() {
            let key = if starts_entry { line.split(':').next().unwrap_or_default().trim() } else { "" };
            entries.push((key.to_string(), String::new()));
        }
        let text = &mut entries.last_mut().expect("an entry").1;
        text.push_str(line);
        text.push('\n');
    }
    entries
}

/// The value of a whole spec's `name:`.
fn spec_name(yaml: &str) -> Option<String> {
    top_level(yaml).into_iter().find(|(key, _)| key == "name").map(|(_, text)| {
        let value = text.trim_start_matches("name:");
        value.split('#').next().unwrap_or_default().trim().trim_matches(['"', '\'']).to_string()
    })
}

/// `base` with each top-level entry of `fragment` in place of the entry of the same key.
fn merge(base: &str, fragment: &str) -> String {
    let mut merged = top_level(base);
    for (key, text) in top_level(fragment) {
        match merged.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = text,
            None => merged.push((key, text)),
        }
    }
    merged.into_iter().map(|(_, text)| text).collect()
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One document's examples, run in order in a fresh directory. Returns how many blocks were
/// marked not run.
fn run_document(relative: &str) -> usize {
    let path = repo().join(relative);
    let markdown = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{relative}: {e}"));
    let dir = tempfile::tempdir().unwrap();
    for folder in ["specs", "traces", "examples", "clients"] {
        copy_tree(&repo().join(folder), &dir.path().join(folder));
    }
    let blox = |args: &[String]| -> Output {
        Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(args)
            .current_dir(dir.path())
            .env("BLOX_DATA_DIR", dir.path().join("cache"))
            .output()
            .expect("blox runs")
    };
    let mut last_spec: Option<String> = None;
    let mut last_output: Option<(usize, String)> = None;
    let mut not_run = 0;
    for block in blocks(&markdown) {
        let at = format!("{relative}:{}", block.line);
        let after_shell = last_output.take();
        match (&block.mark, block.language.as_str()) {
            (Some(Mark::NotRun(why)), _) => {
                assert!(!why.is_empty(), "{at}: `not run` must say why");
                not_run += 1;
            }
            (Some(Mark::File(file)), _) => {
                assert!(
                    !Path::new(file).is_absolute() && !file.contains(".."),
                    "{at}: {file} must stay in the directory"
                );
                std::fs::write(dir.path().join(file), &block.text).unwrap();
            }
            (None, "yaml") => {
                let (file, spec) = match spec_name(&block.text) {
                    Some(name) => {
                        last_spec = Some(block.text.clone());
                        (format!("{name}.yaml"), block.text.clone())
                    }
                    None => {
                        let base = last_spec
                            .as_deref()
                            .unwrap_or_else(|| panic!("{at}: a spec fragment needs a whole spec above it"));
                        let merged = merge(base, &block.text);
                        last_spec = Some(merged.clone());
                        (format!(".fragment-{}.yaml", block.line), merged)
                    }
                };
                std::fs::write(dir.path().join(&file), &spec).unwrap();
                let out = blox(&["validate".to_string(), file]);
                let stdout = text(&out.stdout);
                assert!(
                    out.status.success() && stdout.contains(": ok, "),
                    "{at}: the spec does not validate:\n{spec}\n{stdout}{}",
                    text(&out.stderr)
                );
            }
            (None, "sh") => {
                for line in block.text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
                    let mut words = shell_words(line);
                    if words.starts_with(&["cargo".into(), "test".into(), "--release".into()]) && words.len() == 3 {
                        continue; // this suite
                    }
                    if words.starts_with(&["cargo".into(), "run".into(), "--release".into(), "--".into()]) {
                        words.splice(..4, ["blox".to_string()]);
                    }
                    assert!(
                        words.first().is_some_and(|w| w == "blox"),
                        "{at}: `{line}` is not a blox command; mark the block `<!-- not run: why -->`"
                    );
                    for word in &words {
                        let value = word.split_once('=').map_or(word.as_str(), |(_, v)| v);
                        assert!(
                            !Path::new(value).is_absolute() && !value.starts_with('~'),
                            "{at}: `{line}` names an absolute path; examples run in a temporary directory"
                        );
                    }
                    let out = blox(&words[1..]);
                    assert!(
                        out.status.success(),
                        "{at}: `{line}` failed ({}):\n{}{}",
                        out.status,
                        text(&out.stdout),
                        text(&out.stderr)
                    );
                    last_output = Some((block.line, text(&out.stdout)));
                }
            }
            (None, "text") if after_shell.is_some() => {
                let (command_line, stdout) = after_shell.unwrap();
                let trimmed =
                    |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n").trim_end().to_string();
                assert_eq!(
                    trimmed(&stdout),
                    trimmed(&block.text),
                    "{at}: the output shown is not what the command of line {command_line} prints"
                );
            }
            (None, "python") => {
                let python = std::env::var_os("BLOX_PYTHON").unwrap_or_else(|| "python3".into());
                let out = Command::new(python).arg("-c").arg(&block.text).current_dir(dir.path()).output().unwrap();
                let stderr = text(&out.stderr);
                if !out.status.success() && stderr.contains("ModuleNotFoundError") && std::env::var_os("CI").is_none() {
                    common::skipped(&format!("{at}: a Python module the recipe imports is not installed"));
                    continue;
                }
                assert!(out.status.success(), "{at}: the recipe fails:\n{}{stderr}", text(&out.stdout));
            }
            (None, _) => {}
        }
    }
    not_run
}

#[test]
fn readme_examples_run() {
    run_document("README.md");
}

/// The README's first two commands are CI's contract (`.ci/run`): the default spec, then the tests.
#[test]
fn readme_starts_with_the_two_set_up_commands() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let first = blocks(&readme).into_iter().find(|b| b.language == "sh").expect("a sh block");
    let commands: Vec<Vec<String>> = first.text.lines().map(shell_words).filter(|w| !w.is_empty()).collect();
    assert_eq!(commands, [vec!["cargo", "run", "--release", "--", "run"], vec!["cargo", "test", "--release"]]);
}

macro_rules! guide_chapter {
    ($test:ident, $file:literal) => {
        #[test]
        fn $test() {
            run_document(concat!("docs/guide/", $file));
        }
    };
}

guide_chapter!(guide_index_examples_run, "README.md");
guide_chapter!(guide_spec_examples_run, "spec.md");
guide_chapter!(guide_running_examples_run, "running.md");
guide_chapter!(guide_policies_examples_run, "policies.md");
guide_chapter!(guide_traces_examples_run, "traces-and-datasets.md");
guide_chapter!(guide_results_examples_run, "results-and-figures.md");
guide_chapter!(guide_live_examples_run, "live.md");
guide_chapter!(guide_writing_policies_examples_run, "writing-policies.md");
guide_chapter!(guide_reproducing_examples_run, "reproducing-papers.md");
guide_chapter!(guide_python_examples_run, "python.md");

/// Every chapter of `docs/guide/` has its test above, and the skipped blocks stay few.
#[test]
fn every_chapter_is_run_and_few_examples_are_skipped() {
    let mut chapters: Vec<String> = std::fs::read_dir(repo().join("docs/guide"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .collect();
    chapters.sort();
    let mut listed: Vec<String> = GUIDE.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(chapters, listed, "add a new chapter to GUIDE and give it a guide_chapter! test");
    let documents = std::iter::once("README.md".to_string()).chain(GUIDE.iter().map(|c| format!("docs/guide/{c}")));
    let skipped: usize = documents
        .map(|d| blocks(&std::fs::read_to_string(repo().join(&d)).unwrap()))
        .map(|blocks| blocks.iter().filter(|b| matches!(b.mark, Some(Mark::NotRun(_)))).count())
        .sum();
    assert!(skipped <= MAX_NOT_RUN, "{skipped} blocks are marked not run; at most {MAX_NOT_RUN}");
}

/// The extraction itself: marks, fragments and words.
#[test]
fn blocks_marks_and_fragments_are_read_as_documented() {
    let markdown = "text\n<!-- not run: needs Slurm -->\n\n```sh\nblox slurm s.yaml\n```\n<!-- file: a.py -->\n```python\nprint(1)\n```\n```yaml\nname: x\n```\n";
    let found = blocks(markdown);
    assert_eq!(found.len(), 3);
    assert_eq!(found[0].mark, Some(Mark::NotRun("needs Slurm".into())));
    assert_eq!((found[0].language.as_str(), found[0].line), ("sh", 4));
    assert_eq!(found[1].mark, Some(Mark::File("a.py".into())));
    assert_eq!(found[2].mark, None);
    let base = "name: x   # here\npolicies:\n- {label: A, scheduler: fifo}\nloads: [1]\n";
    assert_eq!(spec_name(base).as_deref(), Some("x"));
    assert_eq!(
        merge(base, "policies:\n  - {label: B, scheduler: las}\nseeds: [2]\n"),
        "name: x   # here\npolicies:\n  - {label: B, scheduler: las}\nloads: [1]\nseeds: [2]\n"
    );
    assert_eq!(
        shell_words("blox run s.yaml --only 'label=LAS 1.2x' # note"),
        ["blox", "run", "s.yaml", "--only", "label=LAS 1.2x"]
    );
}
