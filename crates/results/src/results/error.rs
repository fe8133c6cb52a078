//! Errors of reading and writing result tables; each names the file it is about, because a grid
//! has thousands of files and "invalid Parquet" alone does not say which one to delete.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use arrow_schema::{ArrowError, DataType};
use parquet::errors::ParquetError;

/// A result file that could not be written or read, and why.
#[derive(Debug)]
pub struct ResultsError {
    pub path: PathBuf,
    pub kind: ResultsErrorKind,
}

/// What went wrong with a result file.
#[derive(Debug)]
#[non_exhaustive]
pub enum ResultsErrorKind {
    Io(io::Error),
    Parquet(ParquetError),
    Arrow(ArrowError),
    /// The run key would not make a plain, visible file name.
    InvalidRunKey(String),
    /// The Parquet reader panicked on the file's contents; the message is the panic's.
    Damaged(String),
    /// The file lacks a column this version of blox reads.
    MissingColumn(&'static str),
    WrongType {
        column: &'static str,
        expected: &'static str,
        found: DataType,
    },
    /// A required value is null; `row` counts from 0 within the file.
    NullValue {
        column: &'static str,
        row: usize,
    },
    /// The file's columns differ from the other files being merged.
    SchemaMismatch,
    /// A runs file holds another run's row (copied or renamed by hand).
    ForeignRun(String),
    /// A runs file holds this many rows instead of one.
    RowCount(usize),
    /// A table of a run does not match what its runs file recorded (truncated, replaced, left
    /// from another write, missing), or the runs file records nothing to check it against.
    TableMismatch(String),
    /// An integer does not fit the Rust type (reading) or Int64 (writing).
    OutOfRange {
        column: &'static str,
        value: String,
        target: &'static str,
    },
}

impl ResultsError {
    pub(crate) fn new(path: &Path, kind: impl Into<ResultsErrorKind>) -> Self {
        Self { path: path.to_path_buf(), kind: kind.into() }
    }
}

impl fmt::Display for ResultsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.kind)
    }
}

impl fmt::Display for ResultsErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "{e}"),
            Self::Parquet(e) => write!(f, "Parquet: {e}"),
            Self::Arrow(e) => write!(f, "{e}"),
            Self::InvalidRunKey(key) => {
                write!(f, "run key {key:?} is not a file name (empty, starts with '.', or contains a path separator)")
            }
            Self::Damaged(message) => write!(f, "damaged Parquet file (the reader panicked: {message})"),
            Self::MissingColumn(column) => {
                write!(f, "missing column `{column}` (written by another blox version, or not a blox results file)")
            }
            Self::WrongType { column, expected, found } => {
                write!(f, "column `{column}` has type {found}, expected {expected}")
            }
            Self::SchemaMismatch => {
                write!(f, "its columns differ from the other runs' (written by another blox version)")
            }
            Self::ForeignRun(key) => write!(f, "holds the row of run {key}, not of the run its name says"),
            Self::RowCount(n) => write!(f, "holds {n} rows; a runs file holds exactly one"),
            Self::TableMismatch(what) => write!(f, "{what}"),
            Self::NullValue { column, row } => write!(f, "column `{column}` is null in row {row}"),
            Self::OutOfRange { column, value, target } => {
                write!(f, "column `{column}`: value {value} does not fit {target}")
            }
        }
    }
}

impl std::error::Error for ResultsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ResultsErrorKind::Io(e) => Some(e),
            ResultsErrorKind::Parquet(e) => Some(e),
            ResultsErrorKind::Arrow(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for ResultsErrorKind {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

impl From<ParquetError> for ResultsErrorKind {
    fn from(e: ParquetError) -> Self {
        Self::Parquet(e)
    }
}

impl From<ArrowError> for ResultsErrorKind {
    fn from(e: ArrowError) -> Self {
        Self::Arrow(e)
    }
}

/// Attaches the file a low-level error is about.
pub(crate) trait AtPath<T> {
    fn at(self, path: &Path) -> Result<T, ResultsError>;
}

impl<T, E: Into<ResultsErrorKind>> AtPath<T> for Result<T, E> {
    fn at(self, path: &Path) -> Result<T, ResultsError> {
        self.map_err(|e| ResultsError::new(path, e))
    }
}
