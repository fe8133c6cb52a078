//! Muri (Zhao et al., SIGCOMM'22, "Multi-Resource Interleaving for Deep Learning Training"): jobs
//! of the same GPU count are grouped (up to `packing_num` = 4 per group) so that their stages —
//! storage/CPU, GPU, network — interleave on one set of GPUs; a group advances every member by one
//! iteration per group cycle. Groups are formed by repeated maximum-weight matchings whose edge
//! weight is the resource utilisation of the merged group.
//!
//! Source: the original trace simulator, github.com/Rivendile/Muri `simulator/` @ 4e69a78
//! (Apache-2.0), as specified in `docs/muri-semantics.md` (§7 Muri, §8 group iteration time,
//! §1.3 restart overheads). The rules are re-implemented from that specification; where the
//! original has a quirk that changes numbers it is kept and named in the item's doc.
//!
//! The simulator's policies, one file each with its descriptor:
//! - [`srtf`] (`muri-srtf`) and [`srsf`] (`muri-srsf`): the shortest-first baselines, §3;
//! - [`tiresias`] (`muri-tiresias`): its Tiresias baseline (`dlas-gpu`), §4;
//! - [`themis`] (`muri-themis`): its Themis baseline, §6;
//! - [`muri_s`], [`muri_l`], [`muri_l_worst_ordering`], [`muri_l_without_blossom`]: Muri and its
//!   ablations, §7, on the scheduler they share ([`interleave`]).
//!
//! What they share:
//! - [`family`]: the simulator's loop (progress with per-interval overheads, completions, end
//!   events rebuilt at every decision, the next decision, MS-YARN from an empty cluster), §2;
//! - [`nodes`]: MS-YARN's first fit on each node's free GPUs, CPUs and memory, §2.7;
//! - [`matching`]: the original's maximum-weight matching, traversal order and tolerances included
//!   (ties are frequent and its tie-break moves results, §7.5);
//! - [`group_time`]: a group's iteration time and used ratio (the edge weight), §8 and §7.4;
//! - [`overheads`]: the restart overhead charged per event interval, §1.3.
//!
//! This module holds the Python comparisons the rules are written in (§1.4) and the placement the
//! policies bring.

pub mod antman;
pub mod family;
pub mod group_time;
pub mod interleave;
pub mod matching;
pub mod muri_l;
pub mod muri_l_without_blossom;
pub mod muri_l_worst_ordering;
pub mod muri_s;
pub mod nodes;
pub mod overheads;
pub mod srsf;
pub mod srtf;
pub mod themis;
pub mod tiresias;

use crate::policies::OwnPlacement;

/// MS-YARN as the Muri simulator runs it (`--scheme=yarn`, `docs/muri-semantics.md` §2.7): every
/// decision re-places the whole run set from an empty cluster, first fit; runs record it as `yarn`.
pub const MURI_YARN: OwnPlacement = OwnPlacement { name: "yarn", alternatives: &[] };

#[cfg(test)]
mod fixture_tests;

/// Python's `math.isclose(a, b, rel_tol, abs_tol)`, in CPython's evaluation order: equal values
/// are close, an infinity is close only to itself, otherwise `|a − b|` is compared with
/// `|rel_tol·b|`, `|rel_tol·a|` and `abs_tol`. Every tolerance of the original goes through it
/// (§1.4): the matcher's 1e-5, the cycle's 1e-3 stop rule, the 1e-9 / 1e-4 event merges.
pub fn isclose(a: f64, b: f64, rel_tol: f64, abs_tol: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_infinite() || b.is_infinite() {
        return false;
    }
    let diff = (b - a).abs();
    diff <= (rel_tol * b).abs() || diff <= (rel_tol * a).abs() || diff <= abs_tol
}

/// The original's `my_cmp(x, y) == 1` (`matching.py`): `x` is greater than `y` and not within a
/// relative 1e-5 of it. Its negation is the matcher's "tight" test (`z ≤ 0`, exact because a
/// relative tolerance around 0 is empty) and the edge rule's "no edge" (§7.4).
pub fn exceeds(x: f64, y: f64) -> bool {
    // Around 0 a relative tolerance is empty: the test is `x > 0` (the matcher's hot path).
    if y == 0.0 {
        return x > 0.0;
    }
    !isclose(x, y, 1e-5, 0.0) && x > y
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isclose_follows_python() {
        // Values checked against CPython 3.11 `math.isclose`.
        assert!(isclose(1.0, 1.0 + 1e-10, 1e-9, 0.0));
        assert!(!isclose(1.0, 1.0 + 1e-8, 1e-9, 0.0));
        assert!(isclose(0.0, 1e-5, 1e-9, 1e-4));
        assert!(!isclose(0.0, 1e-300, 1e-5, 0.0), "a relative tolerance around 0 is empty");
        assert!(isclose(f64::INFINITY, f64::INFINITY, 1e-9, 0.0));
        assert!(!isclose(1e308, f64::INFINITY, 1.0, 0.0), "inf is close only to itself");
        assert!(!isclose(f64::NAN, f64::NAN, 1e-9, 1.0));
        assert!(isclose(100.0, 100.09, 1e-3, 0.0));
        assert!(!isclose(100.0, 100.11, 1e-3, 0.0));
    }

    #[test]
    fn exceeds_is_my_cmp() {
        assert!(exceeds(0.5, 0.0));
        assert!(!exceeds(0.0, 0.0));
        assert!(!exceeds(-1.0, 0.0));
        assert!(!exceeds(0.500004, 0.5), "within rel 1e-5 counts as equal");
        assert!(exceeds(0.50001, 0.5));
        assert!(!exceeds(f64::NAN, 0.0));
    }
}
