//! Shared plumbing of the readers: bounded input, CSV tables with named columns, field parsers.
//!
//! Every parser error names the line and the column; every input is bounded per line and per row
//! so that a corrupt file (a 2 GB line, a quote left open, a binary blob) is an error, not an
//! out-of-memory abort.

use super::TraceError;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

/// The longest line a CSV reader accepts. Real trace rows are under 1 KiB (Gavel's commands are
/// the longest); anything near this is not a trace.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most bytes a CSV row may span, with the blank and comment lines before it. A row is one
/// line unless a quoted field holds newlines; the CSV parser buffers a whole row, so a quote left
/// open would otherwise make it buffer the rest of the file, however short each line is. Twice
/// [`MAX_LINE_BYTES`], so that one overlong line is reported as such.
pub const MAX_ROW_BYTES: usize = 2 * MAX_LINE_BYTES;

/// Passes bytes through, failing once a line exceeds `max_line` bytes or the bytes since the last
/// offset asked for by [`LineLimited::line_at`] (the end of the previous row) exceed `max_row`,
/// and maps byte offsets to line numbers (the CSV parser's own line count skips blank and comment
/// lines).
pub struct LineLimited<R> {
    inner: R,
    max_line: usize,
    max_row: u64,
    line: u64,
    line_bytes: usize,
    offset: u64,
    /// Offsets of newlines read but not yet passed by [`LineLimited::line_at`]; at most `max_row`
    /// of them, since they all lie after `row_start - 1`.
    newlines: VecDeque<u64>,
    newlines_passed: u64,
    /// Where the row being parsed starts: just after the last offset asked for.
    row_start: u64,
}

impl<R: BufRead> LineLimited<R> {
    pub fn new(inner: R, max_line: usize, max_row: usize) -> Self {
        Self {
            inner,
            max_line,
            max_row: max_row as u64,
            line: 1,
            line_bytes: 0,
            offset: 0,
            newlines: VecDeque::new(),
            newlines_passed: 0,
            row_start: 0,
        }
    }

    /// The 1-based line of byte `offset`; offsets must be asked for in increasing order. The row
    /// bound counts from the byte after `offset`.
    pub fn line_at(&mut self, offset: u64) -> u64 {
        while self.newlines.front().is_some_and(|&nl| nl < offset) {
            self.newlines.pop_front();
            self.newlines_passed += 1;
        }
        self.row_start = self.row_start.max(offset + 1);
        self.newlines_passed + 1
    }

    /// The line `row_start` is on.
    fn row_start_line(&self) -> u64 {
        let before = self.newlines.iter().take_while(|&&nl| nl < self.row_start).count() as u64;
        self.newlines_passed + before + 1
    }
}

impl<R: BufRead> Read for LineLimited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            self.offset += 1;
            if b == b'\n' {
                self.newlines.push_back(self.offset - 1);
                self.line += 1;
                self.line_bytes = 0;
            } else {
                self.line_bytes += 1;
                if self.line_bytes > self.max_line {
                    let e = TooLong { line: self.line, max: self.max_line as u64, what: Span::Line };
                    return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                }
            }
            if self.offset.saturating_sub(self.row_start) > self.max_row {
                let e = TooLong { line: self.row_start_line(), max: self.max_row, what: Span::Row };
                return Err(io::Error::new(io::ErrorKind::InvalidData, e));
            }
        }
        Ok(n)
    }
}

/// The error [`LineLimited`] raises; readers turn it into a [`TraceError`] on its line (for a
/// row, the line the row or the blank lines before it start on).
#[derive(Debug)]
pub struct TooLong {
    pub line: u64,
    pub max: u64,
    pub what: Span,
}

/// What [`TooLong`] measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    Line,
    Row,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.what {
            Span::Line => write!(f, "the line is longer than {} bytes", self.max)?,
            Span::Row => write!(
                f,
                "no row ends within {} bytes from this line (a quote left open, or a run of blank or comment lines)",
                self.max
            )?,
        }
        f.write_str("; this is not a line-oriented trace (or the file is corrupt)")
    }
}

impl std::error::Error for TooLong {}

/// Builds [`TraceError`]s for one file.
#[derive(Debug, Clone)]
pub struct Errors {
    pub file: PathBuf,
}

impl Errors {
    pub fn new(file: &Path) -> Self {
        Self { file: file.to_path_buf() }
    }

    pub fn at(&self, line: Option<u64>, column: Option<&str>, message: impl Into<String>) -> TraceError {
        TraceError { file: self.file.clone(), line, column: column.map(str::to_string), message: message.into() }
    }

    /// An I/O failure while reading; a [`TooLong`] keeps its line.
    pub fn io(&self, e: &io::Error) -> TraceError {
        if let Some(long) = e.get_ref().and_then(|inner| inner.downcast_ref::<TooLong>()) {
            return self.at(Some(long.line), None, long.to_string());
        }
        self.at(None, None, format!("cannot read the trace: {e}"))
    }
}

/// How a CSV table names its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// The first non-comment line names the columns.
    Named,
    /// No header line: columns are known by position, with these names for messages.
    Positional(&'static [&'static str]),
}

/// A delimited table read row by row, with columns addressed by name.
pub struct Table<'a> {
    reader: csv::Reader<LineLimited<Box<dyn BufRead + 'a>>>,
    errors: Errors,
    names: Vec<String>,
    record: csv::StringRecord,
    /// The line the last record ends on.
    record_line: u64,
    /// Line of the header, 0 without one.
    header_line: u64,
}

/// Options of [`Table::open`].
#[derive(Debug, Clone, Copy)]
pub struct TableOptions {
    pub delimiter: u8,
    pub header: Header,
    /// Lines starting with this byte are skipped (the Helios slice's `#` preamble).
    pub comment: Option<u8>,
}

impl Default for TableOptions {
    fn default() -> Self {
        Self { delimiter: b',', header: Header::Named, comment: None }
    }
}

impl<'a> Table<'a> {
    pub fn open(file: &Path, input: Box<dyn BufRead + 'a>, options: TableOptions) -> Result<Self, TraceError> {
        let errors = Errors::new(file);
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(options.delimiter)
            .comment(options.comment)
            .trim(csv::Trim::All)
            .from_reader(LineLimited::new(input, MAX_LINE_BYTES, MAX_ROW_BYTES));
        let mut table = Table {
            reader,
            errors,
            names: Vec::new(),
            record: csv::StringRecord::new(),
            record_line: 0,
            header_line: 0,
        };
        match options.header {
            Header::Positional(names) => table.names = names.iter().map(|n| n.to_string()).collect(),
            Header::Named => {
                if !table.read_record()? {
                    return Err(table.errors.at(Some(1), None, "the file is empty; expected a header line"));
                }
                table.header_line = table.record_line;
                table.names = table
                    .record
                    .iter()
                    .enumerate()
                    .map(|(i, n)| if i == 0 { n.trim_start_matches('\u{feff}') } else { n }.to_string())
                    .collect();
                if table.names.len() == 1 && options.delimiter == b',' && table.names[0].contains([';', '\t', '|']) {
                    return Err(table.errors.at(
                        Some(table.header_line),
                        None,
                        format!(
                            "the header has a single column `{}`; columns must be separated by commas",
                            table.names[0]
                        ),
                    ));
                }
            }
        }
        Ok(table)
    }

    pub fn errors(&self) -> &Errors {
        &self.errors
    }

    pub fn header_line(&self) -> u64 {
        self.header_line
    }

    /// Column names in file order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The position of the first of `aliases` present in the header, or an error naming them.
    pub fn require(&self, aliases: &[&str]) -> Result<usize, TraceError> {
        aliases.iter().find_map(|a| self.column(a)).ok_or_else(|| {
            let wanted = aliases.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(" or ");
            self.errors.at(
                Some(self.header_line.max(1)),
                None,
                format!("the header lacks column {wanted}; found: {}", self.names.join(",")),
            )
        })
    }

    /// The next data row, or `None` at the end. Rows must have as many fields as the header;
    /// blank lines are skipped.
    pub fn next_row(&mut self) -> Result<Option<Row<'_>>, TraceError> {
        loop {
            if !self.read_record()? {
                return Ok(None);
            }
            if self.record.len() == 1 && self.record[0].is_empty() {
                continue;
            }
            let line = self.record_line;
            if let Some(error) = self.line_break_in_field() {
                return Err(error);
            }
            let width = self.names.len();
            if self.record.len() != width {
                let found = self.record.len();
                let hint = if found == 1 && self.record[0].contains([';', '\t', '|', ',']) {
                    "; is the delimiter right?"
                } else if found < width {
                    " (truncated row?)"
                } else {
                    ""
                };
                return Err(self.errors.at(
                    Some(line),
                    None,
                    format!("expected {width} fields as in the header, found {found}{hint}"),
                ));
            }
            return Ok(Some(Row { record: &self.record, names: &self.names, errors: &self.errors, line }));
        }
    }

    /// A trace row is one line: a field holding a line break is a quote left open (or closed rows
    /// later), which would otherwise swallow the rows that follow into one field. The error is on
    /// the line the field starts on and says how far it runs.
    fn line_break_in_field(&self) -> Option<TraceError> {
        let (index, field) = self.record.iter().enumerate().find(|(_, f)| f.contains(['\n', '\r']))?;
        let breaks: u64 = self.record.iter().map(|f| f.matches('\n').count() as u64).sum();
        let start = self.record_line.saturating_sub(breaks).max(1);
        let first_line: String = field.lines().next().unwrap_or_default().chars().take(40).collect();
        let column = self.names.get(index).map(String::as_str);
        let message = format!(
            "a quoted field starting `{first_line}` runs over a line break (to line {}): a quote left open? \
             every row of a trace is one line",
            self.record_line
        );
        Some(self.errors.at(Some(start), column, message))
    }

    /// Reads the next record, blank or not, and the line it ends on; asking for that line also
    /// moves [`LineLimited`]'s row bound past the record. (The record's own start position counts
    /// from any blank lines skipped before it, its end, the reader's position, does not.)
    fn read_record(&mut self) -> Result<bool, TraceError> {
        let Self { reader, record, errors, .. } = self;
        let more = reader.read_record(record).map_err(|e| {
            let line = e.position().map(|p| reader.get_mut().line_at(p.byte()));
            csv_error(errors, e, line)
        })?;
        if more {
            let end = reader.position().byte();
            self.record_line = reader.get_mut().line_at(end.saturating_sub(1));
        }
        Ok(more)
    }
}

fn csv_error(errors: &Errors, e: csv::Error, line: Option<u64>) -> TraceError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => errors.io(&io),
        csv::ErrorKind::Utf8 { .. } => errors.at(line, None, "the file is not valid UTF-8 text"),
        other => errors.at(line, None, format!("{other:?}")),
    }
}

/// One data row of a [`Table`], with parsers that report the line and column.
pub struct Row<'t> {
    record: &'t csv::StringRecord,
    names: &'t [String],
    errors: &'t Errors,
    pub line: u64,
}

impl<'t> Row<'t> {
    pub fn str(&self, column: usize) -> &'t str {
        &self.record[column]
    }

    /// The field, or `None` when it is empty.
    pub fn opt_str(&self, column: usize) -> Option<&'t str> {
        Some(self.str(column)).filter(|s| !s.is_empty())
    }

    pub fn error(&self, column: usize, message: impl Into<String>) -> TraceError {
        self.errors.at(Some(self.line), Some(&self.names[column]), message)
    }

    /// An error on this row not tied to one column.
    pub fn row_error(&self, message: impl Into<String>) -> TraceError {
        self.errors.at(Some(self.line), None, message)
    }

    /// A finite number.
    pub fn f64(&self, column: usize) -> Result<f64, TraceError> {
        parse_f64(self.str(column))
            .ok_or_else(|| self.error(column, format!("expected a number, found `{}`", self.str(column))))
    }

    /// A finite number >= 0.
    pub fn non_negative(&self, column: usize) -> Result<f64, TraceError> {
        match parse_f64(self.str(column)) {
            Some(x) if x >= 0.0 => Ok(x),
            _ => Err(self.error(column, format!("expected a number >= 0, found `{}`", self.str(column)))),
        }
    }

    /// A finite number >= 0, or `None` when the field is empty.
    pub fn opt_non_negative(&self, column: usize) -> Result<Option<f64>, TraceError> {
        if self.str(column).is_empty() { Ok(None) } else { self.non_negative(column).map(Some) }
    }

    /// A GPU count of a gang job: a whole number >= 1 (formats whose every row is a GPU job).
    pub fn gpus(&self, column: usize) -> Result<u32, TraceError> {
        match self.count(column)? {
            0 => Err(self.error(column, "expected at least 1 GPU, found 0")),
            n => Ok(n),
        }
    }

    /// A whole number >= 0 (written as an integer, or as a float with no fraction such as `8.0`).
    pub fn count(&self, column: usize) -> Result<u32, TraceError> {
        parse_count(self.str(column)).ok_or_else(|| {
            self.error(column, format!("expected a whole number from 0 to 4294967295, found `{}`", self.str(column)))
        })
    }
}

/// A finite `f64`; `inf` and `NaN` are not numbers of a trace.
pub fn parse_f64(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A whole number >= 0 that fits a `u32`, also accepting `8.0`.
pub fn parse_count(text: &str) -> Option<u32> {
    if let Ok(n) = text.parse::<u32>() {
        return Some(n);
    }
    let x = parse_f64(text)?;
    (x >= 0.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX)).then_some(x as u32)
}

/// Seconds since 1970-01-01 00:00:00 of a `YYYY-MM-DD HH:MM:SS` timestamp (no time zone: traces
/// record local times; only differences matter).
pub fn parse_datetime(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b' ' || b[10] == b'T')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = &text[r];
        s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok()).flatten()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &'static str, options: TableOptions) -> Result<Table<'static>, TraceError> {
        Table::open(Path::new("t.csv"), Box::new(text.as_bytes()), options)
    }

    #[test]
    fn rows_are_addressed_by_name_and_errors_carry_line_and_column() {
        let mut t = table("a,b\n1,x\n\n2,3.0\n# not a comment here\n", TableOptions::default()).unwrap();
        let b = t.require(&["bee", "b"]).unwrap();
        assert!(
            t.require(&["c"]).unwrap_err().to_string().contains("t.csv:1: the header lacks column `c`; found: a,b")
        );
        let row = t.next_row().unwrap().unwrap();
        assert_eq!(
            row.count(b).unwrap_err().to_string(),
            "t.csv:2: column `b`: expected a whole number from 0 to 4294967295, found `x`"
        );
        let row = t.next_row().unwrap().unwrap();
        assert_eq!((row.line, row.count(b).unwrap()), (4, 3));
        assert_eq!(
            t.next_row().err().unwrap().to_string(),
            "t.csv:5: expected 2 fields as in the header, found 1 (truncated row?)"
        );
        let options = TableOptions { comment: Some(b'#'), ..TableOptions::default() };
        let mut t = table("# preamble\n\n# more\na,b\n\n# c\n1,2\n", options).unwrap();
        assert_eq!(t.header_line(), 4);
        assert_eq!(t.next_row().unwrap().unwrap().line, 7);
        assert!(t.next_row().unwrap().is_none());
    }

    #[test]
    fn shape_errors() {
        let mut t = table("a,b\n1\n", TableOptions::default()).unwrap();
        assert_eq!(
            t.next_row().err().unwrap().to_string(),
            "t.csv:2: expected 2 fields as in the header, found 1 (truncated row?)"
        );
        let err = table("a;b\n1;2\n", TableOptions::default()).err().unwrap();
        assert!(err.to_string().contains("columns must be separated by commas"), "{err}");
        assert_eq!(
            table("", TableOptions::default()).err().unwrap().to_string(),
            "t.csv:1: the file is empty; expected a header line"
        );
    }

    #[test]
    fn an_overlong_line_is_an_error_on_its_line() {
        let long: &'static str = Box::leak(format!("a,b\n1,2\n{}\n", "9".repeat(MAX_LINE_BYTES + 10)).into_boxed_str());
        let mut t = table(long, TableOptions::default()).unwrap();
        t.next_row().unwrap();
        let err = t.next_row().err().unwrap().to_string();
        assert!(err.starts_with("t.csv:3: the line is longer than"), "{err}");
    }

    /// A quoted field left open makes every following line part of one row; the CSV parser would
    /// buffer the rest of the file (and the newline index grow with it) however short each line is.
    #[test]
    fn a_row_spanning_too_many_bytes_is_an_error_on_the_line_it_starts() {
        let open: &'static str =
            Box::leak(format!("a,b\n1,2\n3,\"open\n{}", "x,y\n".repeat(MAX_ROW_BYTES / 4 + 10)).into_boxed_str());
        let mut t = table(open, TableOptions::default()).unwrap();
        assert_eq!(t.next_row().unwrap().unwrap().line, 2);
        assert_eq!(
            t.next_row().err().unwrap().to_string(),
            format!(
                "t.csv:3: no row ends within {MAX_ROW_BYTES} bytes from this line (a quote left open, or a run of blank or comment lines); this is not a line-oriented trace (or the file is corrupt)"
            )
        );
        let comments: &'static str =
            Box::leak(format!("a,b\n1,2\n\n{}3,4\n", "#\n".repeat(MAX_ROW_BYTES / 2 + 10)).into_boxed_str());
        let options = TableOptions { comment: Some(b'#'), ..TableOptions::default() };
        let mut t = table(comments, options).unwrap();
        t.next_row().unwrap();
        assert!(t.next_row().err().unwrap().to_string().starts_with("t.csv:3: no row ends within"));
        // Many short rows and a few blank lines are fine: the bound is per row, not per file.
        let rows: &'static str = Box::leak(format!("a,b\n{}", "1,2\n\n".repeat(MAX_ROW_BYTES)).into_boxed_str());
        let mut t = table(rows, TableOptions::default()).unwrap();
        let mut n = 0;
        while let Some(row) = t.next_row().unwrap() {
            n += 1;
            assert_eq!(row.line, 2 * n);
        }
        assert_eq!(n, MAX_ROW_BYTES as u64);
    }

    /// An unclosed quote used to swallow every following row into one field of one row, a job
    /// read with nothing dropped; now it is an error on the line the quote opens.
    #[test]
    fn a_field_spanning_lines_is_an_error_on_the_line_it_starts() {
        let text = "job_id,arrival_s,gpus,duration_s,model\n0,0,1,60,\"resnet50\n1,10,1,60,gpt2\n2,20,1,60,bert\n";
        let mut t = table(text, TableOptions::default()).unwrap();
        let err = t.next_row().err().unwrap().to_string();
        assert_eq!(
            err,
            "t.csv:2: column `model`: a quoted field starting `resnet50` runs over a line break (to line 4): \
             a quote left open? every row of a trace is one line"
        );
        // Closed on a later line: still one field over three lines, reported where it starts.
        let text = "a,b\n1,2\n3,\"x\ny\nz\"\n4,5\n";
        let mut t = table(text, TableOptions::default()).unwrap();
        assert_eq!(t.next_row().unwrap().unwrap().line, 2);
        let err = t.next_row().err().unwrap().to_string();
        assert!(
            err.starts_with("t.csv:3: column `b`: a quoted field starting `x` runs over a line break (to line 5)"),
            "{err}"
        );
        // Quoted fields on one line are fine.
        let mut t = table("a,b\n\"1\",\"x, y\"\n", TableOptions::default()).unwrap();
        assert_eq!(t.next_row().unwrap().unwrap().str(1), "x, y");
    }

    /// Control bytes in a field reach messages escaped, never raw.
    #[test]
    fn control_bytes_in_messages_are_escaped() {
        let mut t = table("a,b\n1,\u{1b}[31mred\n", TableOptions::default()).unwrap();
        let row = t.next_row().unwrap().unwrap();
        let err = row.count(1).unwrap_err().to_string();
        assert_eq!(err, "t.csv:2: column `b`: expected a whole number from 0 to 4294967295, found `\\u{1b}[31mred`");
        assert!(!err.contains('\u{1b}'));
    }

    #[test]
    fn numbers_and_timestamps() {
        assert_eq!(parse_count("8.0"), Some(8));
        assert_eq!(parse_count("-1"), None);
        assert_eq!(parse_count("1.5"), None);
        assert_eq!(parse_f64("inf"), None);
        assert_eq!(parse_datetime("1970-01-01 00:00:00"), Some(0));
        assert_eq!(parse_datetime("2017-10-07 01:11:39"), Some(1_507_338_699));
        assert_eq!(
            parse_datetime("2016-02-29 00:00:00").unwrap() - parse_datetime("2016-02-28 00:00:00").unwrap(),
            86_400
        );
        assert_eq!(parse_datetime("2017-02-29 00:00:00"), None);
        assert_eq!(parse_datetime("2017-10-07"), None);
        assert_eq!(parse_datetime("2017-1x-07 01:11:39"), None);
    }
}
