//! Every fixture of `scripts/ecos_fixtures.py` (the data ECOS 2.0.10 received, through cvxpy for
//! the program-shaped ones, and what it returned) solved again: the same exit code, the same
//! iteration count, and the same `x`, `y`, `z`, `s` to 1e-9 (relative above magnitude 1).

use blox_ecos::{Csc, Problem, Settings, Status, solve};
use serde_json::Value;

const TOLERANCE: f64 = 1e-9;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(|x| x.as_f64().expect("a number")).collect()
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array().expect("an array").iter().map(|x| x.as_u64().expect("an index") as usize).collect()
}

fn csc(v: &Value) -> Option<Csc> {
    if v.is_null() {
        return None;
    }
    Some(Csc {
        nrows: v["rows"].as_u64().unwrap() as usize,
        ncols: v["cols"].as_u64().unwrap() as usize,
        colptr: indices(&v["indptr"]),
        rowval: indices(&v["indices"]),
        nzval: floats(&v["data"]),
    })
}

struct Fixture {
    name: String,
    kind: String,
    problem: Problem,
    exit_flag: i32,
    iterations: usize,
    expected: [Vec<f64>; 4],
}

fn fixtures() -> Vec<Fixture> {
    let text = include_str!("fixtures/ecos_fixtures.json");
    let all: Value = serde_json::from_str(text).expect("the fixture file is JSON");
    assert_eq!(all["header"]["ecos_c"], "2.0.10");
    all["fixtures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let e = &f["ecos"];
            Fixture {
                name: f["name"].as_str().unwrap().to_string(),
                kind: f["kind"].as_str().unwrap().to_string(),
                problem: Problem {
                    c: floats(&f["c"]),
                    g: csc(&f["G"]).expect("every fixture has G"),
                    h: floats(&f["h"]),
                    a: csc(&f["A"]),
                    b: floats(&f["b"]),
                    orthant: f["l"].as_u64().unwrap() as usize,
                    soc: indices(&f["q"]),
                },
                exit_flag: e["exit_flag"].as_i64().unwrap() as i32,
                iterations: e["iterations"].as_u64().unwrap() as usize,
                expected: [floats(&e["x"]), floats(&e["y"]), floats(&e["z"]), floats(&e["s"])],
            }
        })
        .collect()
}

/// The largest difference, relative where the expected value exceeds 1 in magnitude.
fn deviation(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    got.iter().zip(want).map(|(g, w)| (g - w).abs() / w.abs().max(1.0)).fold(0.0, f64::max)
}

#[test]
fn every_fixture_lands_on_ecos_point() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 20);
    let mut failures = Vec::new();
    for f in &fixtures {
        let sol = solve(&f.problem, &Settings::default()).expect("a well-formed fixture");
        let devs: Vec<f64> =
            [&sol.x, &sol.y, &sol.z, &sol.s].iter().zip(&f.expected).map(|(g, w)| deviation(g, w)).collect();
        let line = format!(
            "{:28} {:10} exit {:3} (ECOS {:3}) iterations {:3} (ECOS {:3}) max dev x {:.1e} y {:.1e} z {:.1e} s {:.1e}",
            f.name,
            f.kind,
            sol.status.exit_flag(),
            f.exit_flag,
            sol.iterations,
            f.iterations,
            devs[0],
            devs[1],
            devs[2],
            devs[3]
        );
        println!("{line}");
        if sol.status.exit_flag() != f.exit_flag
            || sol.iterations != f.iterations
            || devs.iter().any(|d| d.is_nan() || *d > TOLERANCE)
        {
            failures.push(line);
        }
    }
    assert!(failures.is_empty(), "fixtures off ECOS's point:\n{}", failures.join("\n"));
}

#[test]
fn infeasible_and_unbounded_fixtures_are_told_apart() {
    for f in fixtures() {
        let status = solve(&f.problem, &Settings::default()).unwrap().status;
        match f.kind.as_str() {
            "infeasible" => assert_eq!(status, Status::PrimalInfeasible, "{}", f.name),
            "unbounded" => assert_eq!(status, Status::DualInfeasible, "{}", f.name),
            _ => assert_eq!(status, Status::Optimal, "{}", f.name),
        }
    }
}
