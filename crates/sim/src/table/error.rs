//! Errors of trace readers: always the file, then the line and column where one applies.

use crate::text::escape_control;
use std::fmt;
use std::path::PathBuf;

/// Why a trace could not be read; displays as `file:line: [column `name`: ]what was expected`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceError {
    /// The file (or another name for the input, e.g. `<stdin>`).
    pub file: PathBuf,
    /// 1-based line; `None` when the file cannot be opened or the problem is not on one line.
    pub line: Option<u64>,
    /// The column (header name, or a JSON field) the problem is in.
    pub column: Option<String>,
    pub message: String,
}

/// File names, columns and messages echo the file's content: control characters are escaped
/// ([`escape_control`]).
impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", escape_control(&self.file.display().to_string()))?;
        if let Some(line) = self.line {
            write!(f, "{line}:")?;
        }
        if let Some(column) = &self.column {
            write!(f, " column `{}`:", escape_control(column))?;
        }
        write!(f, " {}", escape_control(&self.message))
    }
}

impl std::error::Error for TraceError {}
