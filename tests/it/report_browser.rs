//! The report pages opened in a real browser, headless Chromium: `blox report` of the default
//! spec's results, and the REPORT.html `cargo xtask reproduce-figures` writes, for one paper spec
//! (Blox Figure 12: seven runs of a few seconds in all), built by the same library call
//! ([`PaperSpec::evaluate`], [`paper::page`]). Each page is loaded from disk with no network,
//! its DOM dumped after its script ran and its screenshot taken; the checks: the tables with the
//! rows they should hold, every figure an inline SVG with a text alternative, table headers with
//! a scope, a `lang`, nothing loaded from outside, every link inside the page landing on an id,
//! and no console message at all (errors, refused resources and uncaught exceptions all reach
//! the console, which Chromium writes to stderr as `CONSOLE` lines with `--enable-logging`; a
//! control page proves those lines are seen). Skipped, saying so, only where no Chromium is
//! installed; CI installs it (`.ci/run`).

use crate::common;

use blox::report::paper::{self, PaperSpec, Tally};
use blox::spec::{Spec, SpecSource};
use common::browser::{
    Opened, Tag, body_rows, check_screenshot, chromium, console_messages, element, open, run_browser, start_tags,
};
use common::{blox, text};
use std::path::{Path, PathBuf};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The checks every page must pass: offline, links inside it landing, figures with text
/// alternatives, headers with scopes, a language, no console message, a screenshot with content.
fn check_page(opened: &Opened, page: &str) {
    let dom = &opened.dom;
    assert!(dom.contains("</html>"), "{page}: chromium dumped no page");
    assert!(opened.console.is_empty(), "{page}: the console says\n{}", opened.console.join("\n"));
    let tags = start_tags(dom);
    let html = tags.iter().find(|t| t.name == "html").unwrap();
    assert_eq!(html.attribute("lang"), Some("en"), "{page}: the page says its language");
    let errors = tags.iter().find(|t| t.attribute("id") == Some("js-errors")).expect("the page has its error line");
    assert!(
        errors.attribute("hidden").is_some(),
        "{page}: the page's script reported an error: {}",
        element(dom, errors)
    );
    let ids: Vec<&str> = tags.iter().filter_map(|t| t.attribute("id")).collect();
    let mut links = 0;
    for tag in &tags {
        for (name, value) in &tag.attributes {
            let lower = value.to_ascii_lowercase();
            if name.starts_with("xmlns") {
                continue;
            }
            let external = lower.starts_with("http:") || lower.starts_with("https:") || lower.starts_with("//");
            assert!(!external, "{page}: <{} {name}=\"{value}\"> refers outside the page", tag.name);
            if matches!(name.as_str(), "src" | "href" | "xlink:href" | "action" | "poster") {
                assert!(
                    value.starts_with('#') || value.starts_with("data:"),
                    "{page}: <{} {name}=\"{value}\"> is neither inside the page nor inline",
                    tag.name
                );
            }
            if let Some(target) = value.strip_prefix('#').filter(|_| name.ends_with("href")) {
                assert!(ids.contains(&target), "{page}: <{} {name}=\"{value}\"> has no target", tag.name);
                links += 1;
            }
        }
    }
    assert!(links > 0, "{page}: links inside the page were checked");
    let svgs: Vec<&Tag> = tags.iter().filter(|t| t.name == "svg" && t.attribute("role") == Some("img")).collect();
    for figure in tags.iter().filter(|t| t.name == "figure") {
        let inside = element(dom, figure);
        assert!(inside.contains("<svg") || inside.contains("<img"), "{page}: a figure holds no drawing");
        if let Some(start) = inside.find("<svg") {
            let svg = &start_tags(&inside[start..])[0];
            let label = svg.attribute("aria-label").unwrap_or_default();
            assert!(
                svg.attribute("role") == Some("img") && label.len() > 20,
                "{page}: an SVG without a text alternative"
            );
            assert!(inside.contains("<title>"), "{page}: an SVG without a <title>");
        }
    }
    for header in tags.iter().filter(|t| t.name == "th") {
        assert!(
            header.attribute("scope").is_some(),
            "{page}: a table header without a scope: {}",
            element(dom, header)
        );
    }
    check_screenshot(&opened.screenshot, page);
    eprintln!(
        "{page}: {} bytes of DOM, {} figures, {links} links inside it, no console message",
        dom.len(),
        svgs.len()
    );
}

#[test]
fn the_report_pages_open_in_chromium_with_their_tables_and_figures_and_no_console_message() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH (CI installs the Debian package `chromium`)");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let scratch = tmp.path();

    // The detection of console messages is live: a page that logs is caught.
    let control = scratch.join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><html lang=\"en\"><body><script>console.error('control');</script></body></html>",
    )
    .unwrap();
    let (_, stderr) = run_browser(&browser, scratch, &["--dump-dom".into(), format!("file://{}", control.display())]);
    assert!(console_messages(&stderr).iter().any(|m| m.contains("control")), "no console line seen:\n{stderr}");

    // `blox report` of the default spec's results.
    let default = repo("specs/default.yaml");
    let out = blox(&["run", default.to_str().unwrap(), "--out", "out", "-q"], scratch);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let experiment = scratch.join("out/default");
    let out = blox(&["report", "out/default"], scratch);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = blox::results::read_runs(&experiment).unwrap().len();
    let opened = open(&browser, &experiment.join("report.html"), scratch);
    check_page(&opened, "report.html");
    let dom = &opened.dom;
    let tags = start_tags(dom);
    let table = |id: &str| element(dom, tags.iter().find(|t| t.attribute("id") == Some(id)).unwrap());
    assert_eq!(body_rows(table("runs-table")), runs, "the script drew one row per run");
    let spec = Spec::parse(&SpecSource::read(&default).unwrap()).unwrap();
    let figures = tags.iter().filter(|t| t.name == "figure").count();
    assert_eq!(figures, spec.figures.len(), "every figure of the spec");
    let provenance = tags.iter().find(|t| t.name == "table" && t.attribute("class") == Some("facts")).unwrap();
    assert!(body_rows(&format!("<tbody>{}", element(dom, provenance))) >= 6, "the provenance facts");

    // REPORT.html of Blox Figure 12, as the xtask writes it.
    let spec_path = repo("specs/paper/blox-fig12.yaml");
    let out = blox(&["run", spec_path.to_str().unwrap(), "--out", "paper", "-q"], scratch);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let spec = Spec::parse(&SpecSource::read(&spec_path).unwrap()).unwrap();
    let experiment = scratch.join("paper/blox-fig12");
    let rows = blox::results::read_runs(&experiment).unwrap();
    let reproduced = PaperSpec::evaluate(&spec_path, &spec, &experiment, &rows, &scratch.join("paper")).unwrap();
    let tally = Tally::of(std::slice::from_ref(&reproduced));
    assert_eq!(tally, Tally { passed: 7, failed: 0, references: 0 });
    let report = scratch.join("paper/REPORT.html");
    std::fs::write(&report, paper::page(&[reproduced], &tally.summary(1, 0), paper::ProcessCost::default(), &[], &[]))
        .unwrap();
    let opened = open(&browser, &report, scratch);
    check_page(&opened, "REPORT.html");
    let dom = &opened.dom;
    let tags = start_tags(dom);
    let tables: Vec<&Tag> = tags.iter().filter(|t| t.name == "table").collect();
    // Fig. 12's seven values, then the cost table.
    assert_eq!(tables.len(), 2);
    assert_eq!(body_rows(element(dom, tables[0])), 7);
    assert_eq!(element(dom, tables[0]).matches(">PASS<").count(), 7);
    assert_eq!(tags.iter().filter(|t| t.name == "figure").count(), spec.figures.len());
    let marked = tags
        .iter()
        .filter_map(|t| t.attribute("aria-label"))
        .find(|label| label.starts_with("Bar chart: Blox Fig. 12"))
        .expect("Figure 12 is drawn with its text alternative");
    assert!(
        marked.ends_with(
            "7 published values marked: 7 reproduced within tolerance (diamonds), 0 outside it (ringed crosses)."
        ),
        "{marked}"
    );
}
