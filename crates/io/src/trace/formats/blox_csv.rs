//! blox's own plain CSV trace, for small hand-made or converted workloads.
//!
//! A header line names the columns, in any order, then one job per line:
//!
//! ```text
//! job_id,arrival_s,gpus,duration_s,model
//! 0,0,1,3600,resnet50
//! 1,120.5,4,7200,
//! ```
//!
//! - `job_id`: any text, kept as the job's source id (runs number jobs by arrival order);
//! - `arrival_s`: submission time in seconds;
//! - `gpus`: GPUs of the gang, >= 1;
//! - `duration_s`: run time in seconds;
//! - `model` (optional): model name; empty means unknown.
//!
//! Any other column is an error, so a typo never silently drops data.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Table, TableOptions};
use crate::trace::{ReadReport, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::BloxCsv,
    name: "blox-csv",
    summary: "job_id,arrival_s,gpus,duration_s[,model]: blox's own plain CSV",
    detect: Detect::Header(detect),
    read,
};

/// Any header with `job_id`, `arrival_s`, `gpus` and `duration_s`.
fn detect(head: &Head) -> bool {
    ["job_id", "arrival_s", "gpus", "duration_s"].iter().all(|c| head.has(c))
}

const REQUIRED: [&str; 4] = ["job_id", "arrival_s", "gpus", "duration_s"];
const OPTIONAL: [&str; 1] = ["model"];

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let header_line = Some(table.header_line());
    for (i, name) in table.names().iter().enumerate() {
        if !REQUIRED.contains(&name.as_str()) && !OPTIONAL.contains(&name.as_str()) {
            let message = format!(
                "unknown column `{name}` (column {}); the columns are job_id, arrival_s, gpus, duration_s and optionally model",
                i + 1
            );
            return Err(table.errors().at(header_line, None, message));
        }
        if table.names()[..i].contains(name) {
            return Err(table.errors().at(header_line, None, format!("column `{name}` appears twice in the header")));
        }
    }
    let [id, arrival, gpus, duration] = REQUIRED.map(|c| table.require(&[c]));
    let (id, arrival, gpus, duration) = (id?, arrival?, gpus?, duration?);
    let model = table.column("model");
    let mut empty = true;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let mut job = TraceJob::new(row.str(id), row.non_negative(arrival)?, n);
        job.duration_s = Some(row.non_negative(duration)?);
        job.model = model.and_then(|m| row.opt_str(m)).map(str::to_string);
        emit(job)?;
        empty = false;
    }
    if empty {
        return Err(table.errors().at(Some(table.header_line() + 1), None, "the trace has a header but no jobs"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::formats::collect;

    fn read_str(text: &str) -> Result<Vec<TraceJob>, String> {
        let text = text.to_string();
        collect(|emit| read(Path::new("T"), Box::new(std::io::Cursor::new(text)), &mut ReadReport::default(), emit))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_columns_in_any_order_with_an_optional_model() {
        let jobs =
            read_str("duration_s,model,job_id,gpus,arrival_s\n3600,resnet50,a,1,0\n 7200.5 ,,3,4,120.5\n\n").unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(
            (jobs[0].source_id.as_str(), jobs[0].model.as_deref(), jobs[0].duration_s),
            ("a", Some("resnet50"), Some(3600.0))
        );
        assert_eq!((jobs[1].submit_s, jobs[1].gpus, jobs[1].model.as_deref()), (120.5, 4, None));
        let bom = read_str("\u{feff}job_id,arrival_s,gpus,duration_s\n0,5,2,60\n").unwrap();
        assert_eq!(bom[0].gpus, 2);
    }

    #[test]
    fn header_errors() {
        let cases = [
            ("", "T:1: the file is empty; expected a header line"),
            ("job_id,arrival_s,gpus,duration_s\n", "T:2: the trace has a header but no jobs"),
            (
                "job_id;arrival_s;gpus;duration_s\n0;0;1;10\n",
                "T:1: the header has a single column `job_id;arrival_s;gpus;duration_s`; columns must be separated by commas",
            ),
            (
                "job_id,arrival_s,gpus\n0,0,1\n",
                "T:1: the header lacks column `duration_s`; found: job_id,arrival_s,gpus",
            ),
            (
                "job_id,arrival_s,gpus,duration_s,user\n",
                "T:1: unknown column `user` (column 5); the columns are job_id, arrival_s, gpus, duration_s and optionally model",
            ),
            ("job_id,arrival_s,gpus,gpus,duration_s\n", "T:1: column `gpus` appears twice in the header"),
        ];
        for (text, expected) in cases {
            assert_eq!(read_str(text).unwrap_err(), expected, "{text:?}");
        }
    }

    #[test]
    fn row_errors_name_line_and_column() {
        let header = "job_id,arrival_s,gpus,duration_s\n";
        let cases = [
            ("0,0,1,10\n1,5,1\n", "T:3: expected 4 fields as in the header, found 3 (truncated row?)"),
            ("0,0,1,10,extra\n", "T:2: expected 4 fields as in the header, found 5"),
            ("0;0;1;10\n", "T:2: expected 4 fields as in the header, found 1; is the delimiter right?"),
            ("0,soon,1,10\n", "T:2: column `arrival_s`: expected a number >= 0, found `soon`"),
            ("0,-5,1,10\n", "T:2: column `arrival_s`: expected a number >= 0, found `-5`"),
            ("0,0,0,10\n", "T:2: column `gpus`: expected at least 1 GPU, found 0"),
            ("0,0,1.5,10\n", "T:2: column `gpus`: expected a whole number from 0 to 4294967295, found `1.5`"),
            ("0,0,1,inf\n", "T:2: column `duration_s`: expected a number >= 0, found `inf`"),
            ("0,0,1,NaN\n", "T:2: column `duration_s`: expected a number >= 0, found `NaN`"),
            ("0,0,1,\n", "T:2: column `duration_s`: expected a number >= 0, found ``"),
        ];
        for (rows, expected) in cases {
            assert_eq!(read_str(&format!("{header}{rows}")).unwrap_err(), expected, "{rows:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_reported_with_its_line() {
        let bytes = b"job_id,arrival_s,gpus,duration_s,model\n0,0,1,10,ok\n1,0,1,10,\xff\xfe\n".to_vec();
        let err = collect(|emit| {
            read(Path::new("T"), Box::new(std::io::Cursor::new(bytes)), &mut ReadReport::default(), emit)
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "T:3: the file is not valid UTF-8 text");
    }
}
