//! Paper-style figures from a results directory: what a spec declares ([`declare`]), the chart
//! data built from the tables ([`build`]) and the drawing itself ([`render`]).

pub mod build;
pub mod declare;
pub mod render;

use crate::results::RunRow;
use declare::FigureSpec;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// A figure written to disk: the drawing as SVG, PDF and PNG, and its values as CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub name: String,
    pub svg: PathBuf,
    pub png: PathBuf,
    pub pdf: PathBuf,
    pub csv: PathBuf,
    /// What the user should know about how the figure was drawn (runs left out, a fallback).
    pub warnings: Vec<String>,
}

impl fmt::Display for Rendered {
    /// `figure NAME: PNG SVG PDF CSV`, then one indented line per warning.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "figure {}: {} {} {} {}",
            self.name,
            self.png.display(),
            self.svg.display(),
            self.pdf.display(),
            self.csv.display()
        )?;
        for warning in &self.warnings {
            write!(f, "\n  warning: {warning}")?;
        }
        Ok(())
    }
}

/// A figure that could not be drawn; the others still are.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureError {
    pub figure: String,
    pub message: String,
}

impl fmt::Display for FigureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "figure `{}`: {}", self.figure, self.message)
    }
}

impl std::error::Error for FigureError {}

/// Draws every figure of `figures` from the experiment's tables into `<experiment_dir>/figures/`
/// as `<name>.svg`, `.pdf`, `.png` and `.csv`. Series styles follow the policy order of the
/// experiment's spec copy (`<experiment_dir>/spec.yaml`), then the order of `rows`.
pub fn render_all<'a>(
    figures: impl IntoIterator<Item = &'a FigureSpec>,
    experiment_dir: &Path,
    rows: &[RunRow],
) -> Vec<Result<Rendered, FigureError>> {
    let order = build::Order::new(&policy_labels(experiment_dir), rows);
    let dir = experiment_dir.join("figures");
    figures
        .into_iter()
        .map(|figure| {
            let name = figure.name().to_string();
            let files = render::Files::beside(&dir, &name);
            // A figure that cannot be drawn now must not leave an earlier drawing in its place,
            // where it would pass for a figure of the current results.
            let fail = |message: String| {
                let removed = files.all().iter().filter(|path| std::fs::remove_file(path).is_ok()).count();
                let note = if removed > 0 { " (its earlier files were removed)" } else { "" };
                FigureError { figure: name.clone(), message: format!("{message}{note}") }
            };
            // Checked before `fail` could remove anything through a link standing for the directory.
            crate::results::store::ensure_dir(&dir)
                .map_err(|e| FigureError { figure: name.clone(), message: format!("{}: {e}", dir.display()) })?;
            let built = build::build(figure, experiment_dir, rows, &order).map_err(fail)?;
            match &built.chart {
                build::Chart::Line(c) => render::render_line(c, figure.size(), &files),
                build::Chart::Bars(c) => render::render_bars(c, figure.size(), &files),
            }
            .map_err(|e| fail(e.to_string()))?;
            let render::Files { svg, pdf, png, csv } = files;
            Ok(Rendered { name, svg, png, pdf, csv, warnings: built.warnings })
        })
        .collect()
}

/// A figure drawn in memory as the text of its SVG file, for a page that inlines it.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineFigure {
    pub name: String,
    pub svg: String,
    pub warnings: Vec<String>,
    /// Published values marked on it.
    pub marks: usize,
}

/// Draws every figure of `figures` from the experiment's tables as SVG text, as [`render_all`]
/// draws its SVG files (same data, styles and drawing), writing nothing, with the published
/// values `marks` gives for a figure's name and chart drawn over it. The element ids of the
/// i-th figure start with `f<i>-`, so that the drawings can share one page.
pub fn inline_svgs<'a>(
    figures: impl IntoIterator<Item = &'a FigureSpec>,
    experiment_dir: &Path,
    rows: &[RunRow],
    marks: &dyn Fn(&str, &build::Chart) -> Vec<render::Mark>,
) -> Vec<Result<InlineFigure, FigureError>> {
    let order = build::Order::new(&policy_labels(experiment_dir), rows);
    figures
        .into_iter()
        .enumerate()
        .map(|(index, figure)| {
            let name = figure.name().to_string();
            let fail = |message: String| FigureError { figure: name.clone(), message };
            let built = build::build(figure, experiment_dir, rows, &order).map_err(fail)?;
            let marks = marks(&name, &built.chart);
            let drawing = match &built.chart {
                build::Chart::Line(c) => render::Drawing::Line(c, &marks),
                build::Chart::Bars(c) => render::Drawing::Bars(c, &marks),
            };
            let svg = render::svg(drawing, figure.size(), &format!("f{index}-")).map_err(fail)?;
            Ok(InlineFigure { name, svg, warnings: built.warnings, marks: marks.len() })
        })
        .collect()
}

/// Removes the files in `<experiment_dir>/figures/` of figures not named in `keep` (a figure
/// dropped from the spec); returns their paths. Other files there are left alone.
pub fn remove_undeclared<'a>(experiment_dir: &Path, keep: impl IntoIterator<Item = &'a str>) -> Vec<PathBuf> {
    let keep: Vec<&str> = keep.into_iter().collect();
    let dir = experiment_dir.join("figures");
    // Never through a link: the files it points to are not this experiment's.
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut removed = Vec::new();
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let (Some(stem), Some(ext)) =
            (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|s| s.to_str()))
        else {
            continue;
        };
        let drawn_by_blox = render::Files::EXTENSIONS.contains(&ext) && !stem.starts_with('.');
        if drawn_by_blox && !keep.contains(&stem) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed.sort();
    removed
}

/// The policy labels of the experiment's spec copy, in `policies:` order; empty if there is no
/// readable copy (styles then follow the runs' grid order, which starts with the policies too).
fn policy_labels(experiment_dir: &Path) -> Vec<String> {
    #[derive(Deserialize)]
    struct SpecCopy {
        #[serde(default)]
        policies: Vec<PolicyCopy>,
    }
    #[derive(Deserialize)]
    struct PolicyCopy {
        label: String,
    }
    std::fs::read_to_string(experiment_dir.join("spec.yaml"))
        .ok()
        .and_then(|text| serde_saphyr::from_str::<SpecCopy>(&text).ok())
        .map(|copy| copy.policies.into_iter().map(|p| p.label).collect())
        .unwrap_or_default()
}
