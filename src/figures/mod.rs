//! Paper-style figures from a results directory: what a spec declares ([`declare`]), the chart
//! data built from the tables ([`build`]) and the drawing itself ([`render`]).

pub mod build;
pub mod declare;
pub mod render;

use crate::results::RunRow;
use declare::FigureSpec;
use std::fmt;
use std::path::{Path, PathBuf};

/// A figure written to disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub name: String,
    pub svg: PathBuf,
    pub png: PathBuf,
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
/// as `<name>.svg` and `<name>.png`.
pub fn render_all<'a>(
    figures: impl IntoIterator<Item = &'a FigureSpec>,
    experiment_dir: &Path,
    rows: &[RunRow],
) -> Vec<Result<Rendered, FigureError>> {
    let dir = experiment_dir.join("figures");
    figures
        .into_iter()
        .map(|figure| {
            let name = figure.name().to_string();
            let fail = |message: String| FigureError { figure: name.clone(), message };
            std::fs::create_dir_all(&dir).map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
            let chart = build::build(figure, experiment_dir, rows).map_err(fail)?;
            let (svg, png) = (dir.join(format!("{name}.svg")), dir.join(format!("{name}.png")));
            match &chart {
                build::Chart::Line(c) => render::render_line(c, figure.size(), &svg, &png),
                build::Chart::Bars(c) => render::render_bars(c, figure.size(), &svg, &png),
            }
            .map_err(|e| fail(e.to_string()))?;
            Ok(Rendered { name, svg, png })
        })
        .collect()
}
