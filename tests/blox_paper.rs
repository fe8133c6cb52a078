//! Pins the Blox (EuroSys'24) Figure 6, 7 and 12 numbers.
//!
//! Expected values: `shared/notes/blox.md` §8.3, produced by an independent re-statement of the
//! released Blox simulator that reproduces the artifact's committed outputs bit for bit. They are
//! printed there rounded to 3 decimals (Fig 6/7, hours) and 2 decimals (Fig 12, hours), so the
//! tolerance is half a unit of the last printed digit: the simulation is deterministic and must
//! match exactly up to that rounding.

use blox::results::RunRow;
use blox::runner::{self, RunnerOptions};
use blox::spec::{Spec, SpecSource};
use std::path::Path;

fn run_paper_spec(name: &str) -> Vec<RunRow> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/paper").join(name);
    let source = SpecSource::read(&path).unwrap();
    let spec = Spec::parse(&source).unwrap();
    let out = tempfile::tempdir().unwrap();
    let options = RunnerOptions { out: out.path().to_owned(), threads: None, force: false, quiet: true };
    let report = runner::run(&source, &spec, &options).unwrap();
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    report.rows
}

fn row<'a>(rows: &'a [RunRow], label: &str, load: f64) -> &'a RunRow {
    rows.iter()
        .find(|r| r.info.label == label && r.info.load == Some(load))
        .unwrap_or_else(|| panic!("no run {label} @ {load}"))
}

fn assert_hours(what: &str, seconds: f64, expected_hours: f64, tolerance_hours: f64) {
    let hours = seconds / 3600.0;
    assert!(
        (hours - expected_hours).abs() <= tolerance_hours,
        "{what}: got {hours:.4} h, expected {expected_hours} h (+-{tolerance_hours})"
    );
}

#[test]
fn blox_figures_6_and_7() {
    let rows = run_paper_spec("blox-fig6.yaml");
    assert_eq!(rows.len(), 27);
    // (load, FIFO, Tiresias = LAS, Optimus) average JCT in hours, blox.md §8.3.
    let avg_jct = [
        (1.0, 15.755, 15.755, 3.218),
        (2.0, 15.753, 15.753, 5.306),
        (3.0, 15.755, 15.755, 11.276),
        (4.0, 15.753, 15.753, 13.141),
        (5.0, 15.753, 15.753, 14.329),
        (6.0, 15.755, 15.755, 15.755),
        (7.0, 15.801, 15.766, 15.768),
        (8.0, 36.503, 52.499, 20.797),
        (9.0, 78.096, 89.771, 31.668),
    ];
    for (load, fifo, las, optimus) in avg_jct {
        for (label, expected) in [("FIFO", fifo), ("Tiresias", las), ("Optimus", optimus)] {
            assert_hours(
                &format!("{label} avg JCT @ {load}"),
                row(&rows, label, load).summary.avg_jct,
                expected,
                0.0005,
            );
        }
    }
    // Figure 7: average responsiveness in hours, blox.md §8.3.
    let responsiveness = [
        ("FIFO", 8.0, 20.874),
        ("Tiresias", 8.0, 0.125),
        ("Optimus", 8.0, 2.383),
        ("FIFO", 9.0, 62.466),
        ("Tiresias", 9.0, 0.126),
        ("Optimus", 9.0, 9.463),
        ("FIFO", 1.0, 0.125),
        ("FIFO", 7.0, 0.171),
        ("Tiresias", 7.0, 0.124),
        ("Optimus", 7.0, 0.129),
    ];
    for (label, load, expected) in responsiveness {
        let r = row(&rows, label, load);
        assert_hours(&format!("{label} responsiveness @ {load}"), r.summary.avg_responsiveness, expected, 0.0005);
    }
    // Preemption counts and simulated horizons, blox.md §8.3.
    assert_eq!(row(&rows, "Tiresias", 8.0).summary.preemptions, 156_790);
    assert_eq!(row(&rows, "Tiresias", 9.0).summary.preemptions, 234_186);
    assert_eq!(row(&rows, "Optimus", 8.0).summary.preemptions, 7_266);
    assert_eq!(row(&rows, "Optimus", 9.0).summary.preemptions, 10_488);
    for load in 1..=9 {
        assert_eq!(row(&rows, "FIFO", f64::from(load)).summary.preemptions, 0);
    }
    // Starvation-guard promotions among tracked jobs: LAS 33 / 67 at loads 8 / 9, FIFO none.
    assert_eq!(row(&rows, "Tiresias", 8.0).summary.promoted_jobs, 33);
    assert_eq!(row(&rows, "Tiresias", 9.0).summary.promoted_jobs, 67);
    assert_eq!(row(&rows, "Optimus", 9.0).summary.promoted_jobs, 14);
    assert_eq!(row(&rows, "FIFO", 9.0).summary.promoted_jobs, 0);
    for r in &rows {
        assert_eq!(r.summary.tracked_finished, 1001, "{}", r.info.run_key);
    }
}

#[test]
fn blox_figure_12() {
    let rows = run_paper_spec("blox-fig12.yaml");
    assert_eq!(rows.len(), 7);
    // Average JCT in hours at 8 jobs/hour, blox.md §8.3 ("Admission at λ=8").
    let expected = [
        ("LAS accept-all", 52.50),
        ("LAS 1.5x", 51.08),
        ("LAS 1.4x", 49.03),
        ("LAS 1.2x", 44.85),
        ("LAS 1.0x", 36.52),
        ("SRTF 1.2x", 20.60),
        ("FIFO 1.2x", 36.50),
    ];
    for (label, hours) in expected {
        assert_hours(&format!("{label} avg JCT"), row(&rows, label, 8.0).summary.avg_jct, hours, 0.005);
    }
}
