//! blox's canonical trace CSV, as `blox trace convert --to csv` writes it: every field of the
//! canonical job record ([`crate::trace::write::CANONICAL_COLUMNS`]), empty where unknown, in
//! blox's units (seconds, whole GPUs, `gpu_share` a fraction of one GPU, `best_effort` 0/1).
//! Stage times are all present or all empty.

use super::{Detect, Emit, FormatInfo, Head, TraceFormat};
use crate::trace::input::{Row, Table, TableOptions};
use crate::trace::write::CANONICAL_COLUMNS;
use crate::trace::{ReadReport, StageTimes, TraceError, TraceJob};
use std::io::BufRead;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::Canonical,
    name: "canonical",
    summary: "blox's canonical trace CSV, as `blox trace convert --to csv` writes it",
    detect: Detect::Header(detect),
    read,
};

/// Exactly the canonical columns, or all but the last, `priority`, which files written before it
/// existed lack.
fn detect(head: &Head) -> bool {
    head.columns == CANONICAL_COLUMNS || head.columns == CANONICAL_COLUMNS[..CANONICAL_COLUMNS.len() - 1]
}

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let mut col = [0usize; 17];
    for (slot, name) in col.iter_mut().zip(CANONICAL_COLUMNS) {
        *slot = table.require(&[name])?;
    }
    let priority = table.column("priority");
    let [
        id,
        submit,
        gpus,
        share,
        duration,
        iterations,
        model,
        batch,
        deadline,
        best_effort,
        iteration_s,
        storage,
        gpu_s,
        network,
        user,
        vc,
        status,
    ] = col;
    while let Some(row) = table.next_row()? {
        report.rows_read += 1;
        let n = row.gpus(gpus)?;
        let text = |c: usize| row.opt_str(c).map(str::to_string);
        let mut job = TraceJob::new(row.str(id), row.non_negative(submit)?, n);
        job.gpu_share = row.opt_non_negative(share)?;
        job.duration_s = row.opt_non_negative(duration)?;
        job.iterations = row.opt_non_negative(iterations)?;
        job.model = text(model);
        job.batch_size = if row.str(batch).is_empty() { None } else { Some(row.count(batch)?) };
        job.deadline_s = row.opt_non_negative(deadline)?;
        job.best_effort = match row.str(best_effort) {
            "" => None,
            "0" => Some(false),
            "1" => Some(true),
            other => return Err(row.error(best_effort, format!("expected 0, 1 or empty, found `{other}`"))),
        };
        job.stages = stages(&row, [iteration_s, storage, gpu_s, network])?;
        job.user = text(user);
        job.vc = text(vc);
        job.status = text(status);
        job.priority = match priority {
            Some(column) if !row.str(column).is_empty() => Some(row.count(column)?),
            _ => None,
        };
        emit(job)?;
    }
    Ok(())
}

fn stages(row: &Row<'_>, columns: [usize; 4]) -> Result<Option<StageTimes>, TraceError> {
    let values = columns.map(|c| row.opt_non_negative(c));
    let [a, b, c, d] = values;
    match (a?, b?, c?, d?) {
        (None, None, None, None) => Ok(None),
        (Some(iteration_s), Some(storage_cpu_s), Some(gpu_s), Some(network_s)) => {
            Ok(Some(StageTimes { iteration_s, storage_cpu_s, gpu_s, network_s }))
        }
        _ => {
            Err(row
                .row_error("stage times (iteration_s, storage_cpu_s, gpu_s, network_s) must be all set or all empty"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::formats::collect;
    use crate::trace::write::write_canonical_csv;

    #[test]
    fn canonical_csv_round_trips_every_field() {
        let mut full = TraceJob::new("job,with \"quotes\"", 12.5, 8);
        full.gpu_share = Some(0.25);
        full.duration_s = Some(3600.123456789);
        full.iterations = Some(1e6);
        full.model = Some("bert".into());
        full.batch_size = Some(64);
        full.deadline_s = Some(9000.0);
        full.best_effort = Some(false);
        full.stages = Some(StageTimes { iteration_s: 0.107, storage_cpu_s: 0.117, gpu_s: 0.068, network_s: 0.0 });
        full.priority = Some(1);
        full.user = Some("u".into());
        full.vc = Some("vc1".into());
        full.status = Some("Pass".into());
        let bare = TraceJob::new("2", 20.0, 1);
        let mut bytes = Vec::new();
        write_canonical_csv(&mut bytes, &[full.clone(), bare.clone()]).unwrap();
        let mut report = ReadReport::default();
        let back = collect(|emit| read(Path::new("c.csv"), Box::new(bytes.as_slice()), &mut report, emit)).unwrap();
        assert_eq!(back, [full, bare]);
        assert_eq!(
            crate::trace::TraceFormat::detect(&bytes),
            crate::trace::Detection::Format(crate::trace::TraceFormat::Canonical)
        );
    }

    #[test]
    fn files_written_before_the_priority_column_still_read() {
        let mut bytes = Vec::new();
        write_canonical_csv(&mut bytes, &[TraceJob::new("a", 0.0, 2)]).unwrap();
        let older: String = String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| line.rsplit_once(',').unwrap().0.to_string() + "\n")
            .collect();
        assert_eq!(
            crate::trace::TraceFormat::detect(older.as_bytes()),
            crate::trace::Detection::Format(crate::trace::TraceFormat::Canonical)
        );
        let back =
            collect(|emit| read(Path::new("c.csv"), Box::new(older.as_bytes()), &mut ReadReport::default(), emit))
                .unwrap();
        assert_eq!(back, [TraceJob::new("a", 0.0, 2)]);
    }

    #[test]
    fn partial_stage_times_are_an_error() {
        let mut bytes = Vec::new();
        write_canonical_csv(&mut bytes, &[TraceJob::new("a", 0.0, 1)]).unwrap();
        let text = String::from_utf8(bytes).unwrap().replace("a,0,1,,,,,,,,,,,,,,", "a,0,1,,,,,,,,0.5,,,,,,");
        let err = collect(|emit| read(Path::new("c.csv"), Box::new(text.as_bytes()), &mut ReadReport::default(), emit))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "c.csv:2: stage times (iteration_s, storage_cpu_s, gpu_s, network_s) must be all set or all empty"
        );
    }
}
