//! Solutions of programs already solved on this thread, found again by their exact data.
//!
//! A solver is a deterministic function of its input, so a program whose data equals, bit for
//! bit, one solved before has the same solution, and returning the stored one is exact. Gavel's
//! heterogeneity-agnostic max-min fairness on jobs of one scale factor gives every job the same
//! coefficients, so its program depends on the number of jobs alone and comes back whenever that
//! number does (LAS at 5.6 jobs/h in Gavel's Figure 8 spent half its time re-solving them). Keys
//! are the whole data as bits, compared in full (the hash only narrows the search); the memo
//! holds a bounded number of bytes and drops the least recently used program first.

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::thread::LocalKey;

/// Bytes of keys and solutions a thread keeps (a program of 1,000 single-GPU jobs is about a
/// third of a megabyte of key), as vendor/amd's memo of orderings.
const CAPACITY_BYTES: usize = 16 << 20;

/// A program's data as bits: every number it is made of, lengths included so that no two
/// programs of different shapes can flatten to the same key.
#[derive(Default)]
pub(super) struct Key(Vec<u64>);

impl Key {
    pub fn usize(&mut self, value: usize) -> &mut Self {
        self.0.push(value as u64);
        self
    }

    pub fn usizes(&mut self, values: &[usize]) -> &mut Self {
        self.usize(values.len());
        self.0.extend(values.iter().map(|&v| v as u64));
        self
    }

    pub fn floats(&mut self, values: &[f64]) -> &mut Self {
        self.usize(values.len());
        self.0.extend(values.iter().map(|v| v.to_bits()));
        self
    }
}

struct Entry<V> {
    hash: u64,
    key: Vec<u64>,
    value: V,
    bytes: usize,
}

/// Most recently used last.
pub(super) struct Memo<V> {
    entries: Vec<Entry<V>>,
    bytes: usize,
}

impl<V> Default for Memo<V> {
    fn default() -> Self {
        Self { entries: Vec::new(), bytes: 0 }
    }
}

impl<V: Clone> Memo<V> {
    /// The stored value of `key`, or `solve()`'s, stored; `bytes_of` is the value's size.
    pub fn get_or_solve(
        memo: &'static LocalKey<RefCell<Memo<V>>>,
        key: Key,
        solve: impl FnOnce() -> V,
        bytes_of: impl Fn(&V) -> usize,
    ) -> V {
        let mut key = key.0;
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let hash = hasher.finish();
        let hit = memo.with_borrow_mut(|memo| {
            let at = memo.entries.iter().rposition(|e| e.hash == hash && e.key == key)?;
            let entry = memo.entries.remove(at);
            let value = entry.value.clone();
            memo.entries.push(entry);
            Some(value)
        });
        if let Some(value) = hit {
            return value;
        }
        let value = solve();
        let bytes = 8 * key.len() + bytes_of(&value);
        if bytes <= CAPACITY_BYTES {
            // The key grew by doubling: keep only what it holds, so the bound counts real bytes.
            key.shrink_to_fit();
            memo.with_borrow_mut(|memo| {
                while memo.bytes + bytes > CAPACITY_BYTES {
                    let dropped = memo.entries.remove(0);
                    memo.bytes -= dropped.bytes;
                }
                memo.bytes += bytes;
                memo.entries.push(Entry { hash, key, value: value.clone(), bytes });
            });
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        static SQUARES: RefCell<Memo<f64>> = RefCell::new(Memo::default());
    }

    fn square(x: f64, solves: &Cell<usize>) -> f64 {
        let mut key = Key::default();
        key.floats(&[x]);
        Memo::get_or_solve(
            &SQUARES,
            key,
            || {
                solves.set(solves.get() + 1);
                x * x
            },
            |_| 8,
        )
    }

    /// A key solved before is answered from the memo; one differing in a single bit (here the
    /// sign of zero) is solved again.
    #[test]
    fn only_bit_identical_data_is_answered_from_the_memo() {
        let solves = Cell::new(0);
        assert_eq!(square(3.0, &solves), 9.0);
        assert_eq!(square(3.0, &solves), 9.0);
        assert_eq!(solves.get(), 1);
        assert_eq!(square(0.0, &solves), 0.0);
        assert_eq!(square(-0.0, &solves), 0.0);
        assert_eq!(solves.get(), 3);
    }

    /// Lengths are part of the key: `[1] ++ [2, 3]` and `[1, 2] ++ [3]` are different programs.
    #[test]
    fn keys_of_different_shapes_differ() {
        let (mut a, mut b) = (Key::default(), Key::default());
        a.floats(&[1.0]).floats(&[2.0, 3.0]);
        b.floats(&[1.0, 2.0]).floats(&[3.0]);
        assert_ne!(a.0, b.0);
    }
}
