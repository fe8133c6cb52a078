//! A per-thread memo of [`crate::order`] (this file and the call in `lib.rs` are the only
//! changes to amd 0.2.2).
//!
//! AMD is deterministic: the same pattern and control give the same permutation, so returning a
//! stored result is exact. Entries are keyed by the whole input (size, column pointers, row
//! indices, control), compared in full, and the memo holds a bounded number of bytes, dropping the
//! least recently used pattern first.

use crate::{Control, Info, Status};
use num_traits::{NumAssignOps, PrimInt};
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::fmt::Display;
use std::hash::{Hash, Hasher};

/// Bytes of keys and results a thread keeps (a Gavel program of 1,600 jobs has a KKT pattern of
/// about half a megabyte).
const CAPACITY_BYTES: usize = 16 << 20;

#[derive(PartialEq)]
struct Key {
    n: u32,
    dense: u64,
    aggressive: bool,
    a_p: Vec<u32>,
    a_i: Vec<u32>,
}

struct Entry {
    hash: u64,
    key: Key,
    perm: Vec<u32>,
    inverse: Vec<u32>,
    info: Info,
}

impl Entry {
    fn bytes(&self) -> usize {
        4 * (self.key.a_p.len() + self.key.a_i.len() + self.perm.len() + self.inverse.len())
    }
}

/// Most recently used last.
#[derive(Default)]
struct Memo {
    entries: Vec<Entry>,
    bytes: usize,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

fn narrow<I: PrimInt>(values: &[I]) -> Option<Vec<u32>> {
    values.iter().map(|v| v.to_u32()).collect()
}

fn widen<I: PrimInt>(values: &[u32]) -> Vec<I> {
    values.iter().map(|&v| I::from(v).expect("narrowed from I")).collect()
}

pub(crate) fn order<I: PrimInt + NumAssignOps + Display>(
    n: I,
    a_p: &[I],
    a_i: &[I],
    control: &Control,
    compute: fn(I, &[I], &[I], &Control) -> Result<(Vec<I>, Vec<I>, Info), Status>,
) -> Result<(Vec<I>, Vec<I>, Info), Status> {
    // Inputs that do not fit the compact key (or malformed ones) are ordered without the memo.
    let key = match (n.to_u32(), narrow(a_p), narrow(a_i)) {
        (Some(size), Some(a_p), Some(a_i)) => {
            Key { n: size, dense: control.dense.to_bits(), aggressive: control.aggressive, a_p, a_i }
        }
        _ => return compute(n, a_p, a_i, control),
    };
    let mut hasher = DefaultHasher::new();
    (key.n, key.dense, key.aggressive, &key.a_p, &key.a_i).hash(&mut hasher);
    let hash = hasher.finish();
    let hit = MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        let at = memo.entries.iter().rposition(|e| e.hash == hash && e.key == key)?;
        let entry = memo.entries.remove(at);
        let result = (widen(&entry.perm), widen(&entry.inverse), entry.info.clone());
        memo.entries.push(entry);
        Some(result)
    });
    if let Some(result) = hit {
        return Ok(result);
    }
    let (perm, inverse, info) = compute(n, a_p, a_i, control)?;
    if let (Some(p), Some(q)) = (narrow(&perm), narrow(&inverse)) {
        let entry = Entry { hash, key, perm: p, inverse: q, info: info.clone() };
        MEMO.with(|memo| {
            let mut memo = memo.borrow_mut();
            let size = entry.bytes();
            if size > CAPACITY_BYTES {
                return;
            }
            while memo.bytes + size > CAPACITY_BYTES {
                let oldest = memo.entries.remove(0);
                memo.bytes -= oldest.bytes();
            }
            memo.bytes += size;
            memo.entries.push(entry);
        });
    }
    Ok((perm, inverse, info))
}

#[cfg(test)]
mod tests {
    use super::order;
    use crate::{Control, Info, Status};
    use std::cell::Cell;

    thread_local! {
        static COMPUTED: Cell<usize> = Cell::new(0);
    }

    fn counted(n: usize, a_p: &[usize], a_i: &[usize], control: &Control) -> Result<(Vec<usize>, Vec<usize>, Info), Status> {
        COMPUTED.with(|c| c.set(c.get() + 1));
        crate::order_uncached(n, a_p, a_i, control)
    }

    /// An arrow matrix (dense last row and column) and a tridiagonal one, ordered in turn and
    /// again: each pattern is computed once, every repeat returns the first result, and another
    /// control is another pattern.
    #[test]
    fn a_repeated_pattern_is_computed_once() {
        let arrow_p = [0usize, 2, 4, 6, 10];
        let arrow_i = [0usize, 3, 1, 3, 2, 3, 0, 1, 2, 3];
        let tri_p = [0usize, 2, 5, 7];
        let tri_i = [0usize, 1, 0, 1, 2, 1, 2];
        let control = Control::default();
        let first_arrow = order(4, &arrow_p, &arrow_i, &control, counted).unwrap();
        let first_tri = order(3, &tri_p, &tri_i, &control, counted).unwrap();
        for _ in 0..3 {
            let arrow = order(4, &arrow_p, &arrow_i, &control, counted).unwrap();
            let tri = order(3, &tri_p, &tri_i, &control, counted).unwrap();
            assert_eq!((&arrow.0, &arrow.1), (&first_arrow.0, &first_arrow.1));
            assert_eq!((&tri.0, &tri.1), (&first_tri.0, &first_tri.1));
        }
        assert_eq!(COMPUTED.with(Cell::get), 2);
        // The dense row and column of the arrow are ordered last.
        assert_eq!(first_arrow.0[3], 3);
        let other = Control { dense: 0.5, ..Control::default() };
        order(4, &arrow_p, &arrow_i, &other, counted).unwrap();
        assert_eq!(COMPUTED.with(Cell::get), 3);
    }
}
