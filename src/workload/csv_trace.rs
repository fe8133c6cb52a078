//! Job traces from a plain CSV file.
//!
//! Format: a header line naming the columns, in any order, then one job per line:
//!
//! ```text
//! job_id,arrival_s,gpus,duration_s,model
//! 0,0,1,3600,resnet50
//! 1,120.5,4,7200,
//! ```
//!
//! `job_id`, `arrival_s`, `gpus` and `duration_s` are required, `model` is optional (an empty
//! field means unknown) and any other column is an error, so a typo never silently drops data.
//! Rows must be sorted by arrival and ids must increase with row order: the engine consumes jobs
//! in arrival order and tracking windows are id ranges, which only mean "the jobs between the
//! warm-up and the cool-down" when ids follow arrival order, as in Blox. Every error names the
//! file, then (unless the file cannot be opened) the line and, where one applies, the column.

use crate::core::{JobId, JobSpec};
use std::fmt;
use std::path::{Path, PathBuf};

const JOB_ID: &str = "job_id";
const ARRIVAL: &str = "arrival_s";
const GPUS: &str = "gpus";
const DURATION: &str = "duration_s";
const MODEL: &str = "model";
const COLUMNS: [&str; 5] = [JOB_ID, ARRIVAL, GPUS, DURATION, MODEL];
const EXPECTED_HEADER: &str = "job_id, arrival_s, gpus, duration_s and optionally model";
/// Separators of CSV dialects that would otherwise read as one single column.
const OTHER_DELIMITERS: [char; 3] = [';', '\t', '|'];

/// Why a CSV trace could not be read; displays as `path:line: [column `name`: ]what was expected`.
#[derive(Debug)]
pub struct TraceError {
    path: PathBuf,
    /// `None` only when the file cannot be opened at all.
    line: Option<u64>,
    column: Option<&'static str>,
    message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, "{line}:")?;
        }
        if let Some(column) = self.column {
            write!(f, " column `{column}`:")?;
        }
        write!(f, " {}", self.message)
    }
}

impl std::error::Error for TraceError {}

/// Reads a whole CSV trace; see the module documentation for the format and the rules.
pub fn read_csv_trace(path: &Path) -> Result<Vec<JobSpec>, TraceError> {
    let error = |line: Option<u64>, column: Option<&'static str>, message: String| TraceError {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let csv_error = |e: csv::Error| {
        let line = e.position().map(|p| p.line());
        let message = match e.kind() {
            csv::ErrorKind::Utf8 { .. } => "the file is not valid UTF-8 text".to_string(),
            _ => e.to_string(),
        };
        error(line, None, message)
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| error(None, None, format!("cannot read the trace: {e}")))?;

    let mut record = csv::StringRecord::new();
    if !reader.read_record(&mut record).map_err(csv_error)? {
        return Err(error(
            Some(1),
            None,
            format!("the file is empty; expected a header line naming {EXPECTED_HEADER}"),
        ));
    }
    let header_line = line_of(&record);
    let header = Header::parse(&record).map_err(|message| error(Some(header_line), None, message))?;

    let mut jobs: Vec<JobSpec> = Vec::new();
    while reader.read_record(&mut record).map_err(csv_error)? {
        let line = line_of(&record);
        let width = header.names.len();
        if record.len() != width {
            let hint = if record.len() == 1 && record[0].contains(OTHER_DELIMITERS) {
                "; fields must be separated by commas"
            } else if record.len() < width {
                " (truncated row?)"
            } else {
                ""
            };
            let message = format!("expected {width} fields as in the header, found {}{hint}", record.len());
            return Err(error(Some(line), None, message));
        }
        let field = |column: &str| &record[header.index_of(column).expect("the header has every required column")];
        let at = |column: &'static str| move |message: String| error(Some(line), Some(column), message);

        let arrival = parse_seconds(field(ARRIVAL)).map_err(at(ARRIVAL))?;
        let job = JobSpec {
            id: parse_job_id(field(JOB_ID)).map_err(at(JOB_ID))?,
            arrival,
            submitted: arrival,
            gpus: parse_gpus(field(GPUS)).map_err(at(GPUS))?,
            work: parse_seconds(field(DURATION)).map_err(at(DURATION))?,
            model: header.index_of(MODEL).map(|i| &record[i]).filter(|m| !m.is_empty()).map(str::to_string),
            deadline: None,
        };
        if let Some(previous) = jobs.last() {
            if job.id <= previous.id {
                let message = format!(
                    "job id {} does not exceed the previous row's {}; ids must be unique and increase with row order",
                    job.id, previous.id
                );
                return Err(at(JOB_ID)(message));
            }
            if job.arrival < previous.arrival {
                let message = format!(
                    "arrival {} s is earlier than the previous row's {} s; rows must be sorted by arrival",
                    job.arrival, previous.arrival
                );
                return Err(at(ARRIVAL)(message));
            }
        }
        jobs.push(job);
    }
    if jobs.is_empty() {
        return Err(error(Some(header_line + 1), None, "the trace has a header but no jobs".to_string()));
    }
    Ok(jobs)
}

/// The header's columns, in file order.
struct Header {
    names: Vec<&'static str>,
}

impl Header {
    fn parse(record: &csv::StringRecord) -> Result<Header, String> {
        if record.len() == 1 && record[0].contains(OTHER_DELIMITERS) {
            return Err(format!(
                "the header has a single column `{}`; columns must be separated by commas",
                &record[0]
            ));
        }
        let mut names: Vec<&'static str> = Vec::with_capacity(record.len());
        for (i, raw) in record.iter().enumerate() {
            // A UTF-8 byte order mark (spreadsheet exports) is not part of the first name.
            let name = if i == 0 { raw.trim_start_matches('\u{feff}') } else { raw };
            let known = COLUMNS.iter().find(|&&c| c == name).ok_or_else(|| {
                format!("unknown column `{name}` (column {}); the columns are {EXPECTED_HEADER}", i + 1)
            })?;
            if names.contains(known) {
                return Err(format!("column `{name}` appears twice in the header"));
            }
            names.push(known);
        }
        let missing: Vec<&str> = COLUMNS[..4].iter().copied().filter(|c| !names.contains(c)).collect();
        if !missing.is_empty() {
            return Err(format!(
                "the header lacks column{} {}; a trace needs {EXPECTED_HEADER}",
                if missing.len() > 1 { "s" } else { "" },
                missing.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
            ));
        }
        Ok(Header { names })
    }

    fn index_of(&self, column: &str) -> Option<usize> {
        self.names.iter().position(|&c| c == column)
    }
}

fn line_of(record: &csv::StringRecord) -> u64 {
    record.position().map_or(1, csv::Position::line)
}

fn parse_job_id(text: &str) -> Result<JobId, String> {
    text.parse().map_err(|_| format!("expected a non-negative integer id, found `{text}`"))
}

fn parse_gpus(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(gpus) if gpus >= 1 => Ok(gpus),
        _ => Err(format!("expected a whole number of GPUs >= 1, found `{text}`")),
    }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        _ => Err(format!("expected a finite number of seconds >= 0, found `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn trace(contents: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(contents).unwrap();
        file
    }

    /// The error message for `contents`, with the temporary path replaced by `T`.
    fn error_of(contents: &str) -> String {
        let file = trace(contents.as_bytes());
        let err = read_csv_trace(file.path()).expect_err("the trace should be rejected");
        err.to_string().replace(&file.path().display().to_string(), "T")
    }

    #[test]
    fn reads_a_good_trace_in_any_column_order() {
        let file = trace(
            b"duration_s,model,job_id,gpus,arrival_s\n3600,resnet50,0,1,0\n 7200.5 ,,3,4,120.5\n\n10,bert,4,8,120.5\n",
        );
        let jobs = read_csv_trace(file.path()).unwrap();
        let expected = [
            JobSpec {
                id: 0,
                arrival: 0.0,
                submitted: 0.0,
                gpus: 1,
                work: 3600.0,
                model: Some("resnet50".into()),
                deadline: None,
            },
            JobSpec { id: 3, arrival: 120.5, submitted: 120.5, gpus: 4, work: 7200.5, model: None, deadline: None },
            JobSpec {
                id: 4,
                arrival: 120.5,
                submitted: 120.5,
                gpus: 8,
                work: 10.0,
                model: Some("bert".into()),
                deadline: None,
            },
        ];
        assert_eq!(jobs, expected);
    }

    #[test]
    fn model_column_is_optional_and_a_bom_is_ignored() {
        let file = trace("\u{feff}job_id,arrival_s,gpus,duration_s\n0,5,2,60\n".as_bytes());
        let jobs = read_csv_trace(file.path()).unwrap();
        assert_eq!(
            jobs,
            [JobSpec { id: 0, arrival: 5.0, submitted: 5.0, gpus: 2, work: 60.0, model: None, deadline: None }]
        );
    }

    #[test]
    fn missing_file_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nope.csv");
        let message = read_csv_trace(&path).unwrap_err().to_string();
        assert!(message.starts_with(&format!("{}: cannot read the trace:", path.display())), "{message}");
    }

    #[test]
    fn empty_file_and_header_only() {
        assert_eq!(
            error_of(""),
            "T:1: the file is empty; expected a header line naming job_id, arrival_s, gpus, duration_s and optionally model"
        );
        assert_eq!(error_of("job_id,arrival_s,gpus,duration_s\n"), "T:2: the trace has a header but no jobs");
    }

    #[test]
    fn header_errors() {
        assert_eq!(
            error_of("job_id;arrival_s;gpus;duration_s\n0;0;1;10\n"),
            "T:1: the header has a single column `job_id;arrival_s;gpus;duration_s`; columns must be separated by commas"
        );
        assert_eq!(
            error_of("job_id,arrival_s,gpus\n0,0,1\n"),
            "T:1: the header lacks column `duration_s`; a trace needs job_id, arrival_s, gpus, duration_s and optionally model"
        );
        assert_eq!(
            error_of("job_id,gpus\n"),
            "T:1: the header lacks columns `arrival_s`, `duration_s`; a trace needs job_id, arrival_s, gpus, duration_s and optionally model"
        );
        assert_eq!(
            error_of("job_id,arrival_s,gpus,duration_s,user\n0,0,1,10,alice\n"),
            "T:1: unknown column `user` (column 5); the columns are job_id, arrival_s, gpus, duration_s and optionally model"
        );
        assert_eq!(
            error_of("job_id,arrival_s,gpus,gpus,duration_s\n"),
            "T:1: column `gpus` appears twice in the header"
        );
    }

    #[test]
    fn row_shape_errors() {
        assert_eq!(
            error_of("job_id,arrival_s,gpus,duration_s\n0,0,1,10\n1,5,1\n"),
            "T:3: expected 4 fields as in the header, found 3 (truncated row?)"
        );
        assert_eq!(
            error_of("job_id,arrival_s,gpus,duration_s\n0,0,1,10,extra\n"),
            "T:2: expected 4 fields as in the header, found 5"
        );
        assert_eq!(
            error_of("job_id,arrival_s,gpus,duration_s\n0;0;1;10\n"),
            "T:2: expected 4 fields as in the header, found 1; fields must be separated by commas"
        );
    }

    #[test]
    fn field_errors_name_line_and_column() {
        let header = "job_id,arrival_s,gpus,duration_s\n";
        let cases = [
            ("x,0,1,10", "T:2: column `job_id`: expected a non-negative integer id, found `x`"),
            ("-1,0,1,10", "T:2: column `job_id`: expected a non-negative integer id, found `-1`"),
            ("0,soon,1,10", "T:2: column `arrival_s`: expected a finite number of seconds >= 0, found `soon`"),
            ("0,-5,1,10", "T:2: column `arrival_s`: expected a finite number of seconds >= 0, found `-5`"),
            ("0,0,0,10", "T:2: column `gpus`: expected a whole number of GPUs >= 1, found `0`"),
            ("0,0,1.5,10", "T:2: column `gpus`: expected a whole number of GPUs >= 1, found `1.5`"),
            ("0,0,1,inf", "T:2: column `duration_s`: expected a finite number of seconds >= 0, found `inf`"),
            ("0,0,1,NaN", "T:2: column `duration_s`: expected a finite number of seconds >= 0, found `NaN`"),
            ("0,0,1,", "T:2: column `duration_s`: expected a finite number of seconds >= 0, found ``"),
        ];
        for (row, expected) in cases {
            assert_eq!(error_of(&format!("{header}{row}\n")), expected, "row `{row}`");
        }
    }

    #[test]
    fn order_errors() {
        let header = "job_id,arrival_s,gpus,duration_s\n";
        assert_eq!(
            error_of(&format!("{header}0,10,1,10\n1,5,1,10\n")),
            "T:3: column `arrival_s`: arrival 5 s is earlier than the previous row's 10 s; rows must be sorted by arrival"
        );
        assert_eq!(
            error_of(&format!("{header}0,0,1,10\n2,5,1,10\n2,6,1,10\n")),
            "T:4: column `job_id`: job id 2 does not exceed the previous row's 2; ids must be unique and increase with row order"
        );
        assert_eq!(
            error_of(&format!("{header}5,0,1,10\n1,5,1,10\n")),
            "T:3: column `job_id`: job id 1 does not exceed the previous row's 5; ids must be unique and increase with row order"
        );
    }

    #[test]
    fn invalid_utf8_is_reported_with_its_line() {
        let file = trace(b"job_id,arrival_s,gpus,duration_s,model\n0,0,1,10,ok\n1,0,1,10,\xff\xfe\n");
        let message = read_csv_trace(file.path()).unwrap_err().to_string();
        assert!(message.ends_with(":3: the file is not valid UTF-8 text"), "{message}");
    }
}
