//! Malformed programs are refused with what is wrong, never a panic.

use blox_ecos::{Csc, Error, Problem, Settings, solve};

/// min x s.t. x >= 1 (G = [-1], h = [-1]).
fn one_variable() -> Problem {
    Problem {
        c: vec![1.0],
        g: Csc { nrows: 1, ncols: 1, colptr: vec![0, 1], rowval: vec![0], nzval: vec![-1.0] },
        h: vec![-1.0],
        a: None,
        b: vec![],
        orthant: 1,
        soc: vec![],
    }
}

fn refused(problem: &Problem) -> Error {
    solve(problem, &Settings::default()).expect_err("a malformed program is refused")
}

#[test]
fn the_well_formed_base_solves() {
    let sol = solve(&one_variable(), &Settings::default()).unwrap();
    assert_eq!(sol.status.exit_flag(), 0);
    assert!((sol.x[0] - 1.0).abs() < 1e-8, "{:?}", sol.x);
}

#[test]
fn dimensions_that_do_not_fit_are_named() {
    let mut p = one_variable();
    p.h.push(0.0);
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("G is 1x1")));
    let mut p = one_variable();
    p.orthant = 0;
    p.soc = vec![2];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("cover 2 rows")));
    let mut p = one_variable();
    p.soc = vec![0];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("size 0")));
    let mut p = one_variable();
    p.b = vec![1.0];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("no A")));
    let mut p = one_variable();
    p.a = Some(Csc { nrows: 1, ncols: 2, colptr: vec![0, 0, 0], rowval: vec![], nzval: vec![] });
    p.b = vec![1.0];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("A is 1x2")));
}

#[test]
fn broken_sparse_structure_is_named() {
    let mut p = one_variable();
    p.g.rowval = vec![3];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.starts_with("G: row 3")));
    let mut p = one_variable();
    p.g.colptr = vec![1, 0];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("rise")));
    let mut p = one_variable();
    p.g.colptr = vec![0, 2];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("2 entries")));
    let mut p = one_variable();
    p.g.colptr = vec![0];
    assert!(matches!(refused(&p), Error::Dimensions(what) if what.contains("column pointers")));
}

#[test]
fn nan_and_infinite_data_are_refused() {
    for (field, value) in [("c", f64::NAN), ("h", f64::INFINITY), ("G", f64::NEG_INFINITY)] {
        let mut p = one_variable();
        match field {
            "c" => p.c[0] = value,
            "h" => p.h[0] = value,
            _ => p.g.nzval[0] = value,
        }
        assert_eq!(refused(&p), Error::NotFinite(if field == "G" { "G" } else { field }));
    }
}
