//! Headless Chromium for the tests that open pages in a real browser (`tests/it/report_browser.rs`,
//! `tests/live/live_status.rs`): the browser on `PATH`, a page's DOM after its script ran, its
//! console messages (Chromium writes them to stderr as `CONSOLE` lines with `--enable-logging`)
//! and a screenshot, and a reader of the serialised DOM's start tags.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A browser that does not finish a page in this time fails the test instead of hanging it.
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);
/// The screenshot's size in CSS pixels.
pub const WINDOW: (u32, u32) = (1280, 1600);

/// The Chromium on `PATH`, if any.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// What the browser made of a page.
pub struct Opened {
    /// The DOM after the page's script ran, serialised.
    pub dom: String,
    /// The console's messages.
    pub console: Vec<String>,
    pub screenshot: PathBuf,
}

/// Runs Chromium headless on `args` (with a fresh profile in `scratch`), killing it after
/// [`BROWSER_TIMEOUT`]; returns its stdout and stderr.
pub fn run_browser(browser: &Path, scratch: &Path, args: &[String]) -> (String, String) {
    let profile = tempfile::tempdir_in(scratch).unwrap();
    let stdout_path = profile.path().join("stdout");
    let stderr_path = profile.path().join("stderr");
    let mut child = Command::new(browser)
        .args(["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars"])
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.path().join("profile").display()))
        .args(args)
        // The browser's own files (caches, crash reports) stay in the scratch directory.
        .env("HOME", profile.path())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish {args:?} in {BROWSER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(status.success(), "chromium {args:?}: {status}\n{stderr}");
    (stdout, stderr)
}

/// The console's messages among Chromium's log lines.
pub fn console_messages(stderr: &str) -> Vec<String> {
    stderr.lines().filter(|line| line.contains(":CONSOLE")).map(str::to_string).collect()
}

/// Opens the page on disk `page` once: its DOM dumped after its script ran and its screenshot
/// taken.
pub fn open(browser: &Path, page: &Path, scratch: &Path) -> Opened {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    open_url(browser, &url, &page.file_stem().unwrap().to_string_lossy(), scratch, &[])
}

/// Opens `url` once with Chromium's `extra` arguments: its DOM dumped after its script ran and
/// its screenshot taken as `<name>.png` in `scratch`.
pub fn open_url(browser: &Path, url: &str, name: &str, scratch: &Path, extra: &[String]) -> Opened {
    let screenshot = scratch.join(format!("{name}.png"));
    let mut args = vec![
        "--dump-dom".into(),
        format!("--screenshot={}", screenshot.display()),
        format!("--window-size={},{}", WINDOW.0, WINDOW.1),
    ];
    args.extend_from_slice(extra);
    args.push(url.to_string());
    let (dom, stderr) = run_browser(browser, scratch, &args);
    Opened { dom, console: console_messages(&stderr), screenshot }
}

/// One element's start tag in the serialised DOM.
#[derive(Debug)]
pub struct Tag {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    /// Byte offset of its `<`.
    pub at: usize,
}

impl Tag {
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// The start tags of `html` as Chromium serialises a DOM: names in lower case, attribute values
/// in double quotes (a quote inside is `&quot;`), the content of `script` and `style` raw.
pub fn start_tags(html: &str) -> Vec<Tag> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = html[at..].find('<') {
        let start = at + offset;
        let rest = &html[start + 1..];
        let name_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == ':')).unwrap_or(rest.len());
        if name_len == 0 || !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            at = start + 1;
            continue;
        }
        let name = rest[..name_len].to_ascii_lowercase();
        let mut attributes = Vec::new();
        let mut i = name_len;
        loop {
            let after = &rest[i..];
            let trimmed = after.trim_start();
            i += after.len() - trimmed.len();
            if trimmed.starts_with('>') || trimmed.starts_with("/>") || trimmed.is_empty() {
                i += trimmed.find('>').map_or(trimmed.len(), |p| p + 1);
                break;
            }
            let attr_len = trimmed.find(|c: char| c == '=' || c == '>' || c.is_whitespace()).unwrap_or(trimmed.len());
            let attr = trimmed[..attr_len].to_string();
            i += attr_len;
            if rest[i..].starts_with("=\"") {
                let value_len = rest[i + 2..].find('"').expect("attribute values are closed");
                attributes.push((attr, unescape(&rest[i + 2..i + 2 + value_len])));
                i += 2 + value_len + 1;
            } else {
                attributes.push((attr, String::new()));
            }
        }
        let end = start + 1 + i;
        at = end;
        // Raw text: skipped to its end tag.
        if name == "script" || name == "style" {
            let close = format!("</{name}>");
            at = html[end..].find(&close).map_or(html.len(), |p| end + p + close.len());
        }
        found.push(Tag { name, attributes, at: start });
    }
    found
}

pub fn unescape(value: &str) -> String {
    value.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// The part of `dom` from the start tag at `at` to the end of the element (elements of this
/// name are not nested in the pages).
pub fn element<'a>(dom: &'a str, tag: &Tag) -> &'a str {
    let close = format!("</{}>", tag.name);
    let end = dom[tag.at..].find(&close).map_or(dom.len(), |p| tag.at + p + close.len());
    &dom[tag.at..end]
}

/// The rows of a table's body.
pub fn body_rows(table: &str) -> usize {
    let body = table.find("<tbody").map_or("", |p| &table[p..]);
    start_tags(body).iter().filter(|t| t.name == "tr").count()
}

/// The screenshot is the window's size and not one colour (the page drew something).
pub fn check_screenshot(path: &Path, page: &str) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), WINDOW, "{page}: the screenshot has the window's size");
    let samples = frame.color_type.samples();
    let pixels = &pixels[..frame.buffer_size()];
    let first = &pixels[..samples];
    let differing = pixels.chunks(samples).filter(|p| *p != first).count();
    assert!(
        differing * 50 > pixels.len() / samples,
        "{page}: the screenshot is nearly one colour ({differing} pixels differ)"
    );
}
