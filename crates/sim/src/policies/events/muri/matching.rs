//! Muri's maximum-weight matching on a general graph (`docs/muri-semantics.md` §7.5; original:
//! `matching.py`, class `_Blossom_Same`, methods `matching` to `expand_blossom`, and the graph set-up
//! of `blossom_one_round`).
//!
//! Rule: the O(n³) primal–dual weighted-blossom procedure in the form of the common
//! competitive-programming template — all labels start at the largest weight, the slack of an edge
//! record `e` is `lab[e.u] + lab[e.v] − 2·w(e.u, e.v)`, and every phase grows alternating trees from
//! all free vertices at once. Ties between optimal matchings are frequent (identical jobs give
//! identical weights) and which optimum is returned changes scheduling results (§7.5, Appendix
//! A.3), so this is not just *a* maximum-weight matcher: it reproduces the original's pair set,
//! tie-breaks included. Kept exactly as the original has them:
//!
//! - float weights with tolerant tests: an edge is tight when its slack is `≤ 0`, a phase ends when
//!   an outer vertex's label is `≤ d` or within a relative 1e-5 of it ([`super::exceeds`]);
//! - weights are read per ordered pair as stored (`w[u][v]` and `w[v][u]` may differ in the last bit
//!   for merged groups, or one may be no edge), a blossom's edge to `x` is a copy of its best
//!   member's, and a slack always reads the weight of the copied record's original endpoints;
//! - vertices are scanned in ascending order, `slack` improves only on a strictly smaller slack,
//!   and three recursions of the template are FIFO loops: pushing a blossom's vertices to the queue
//!   is breadth-first over its nested blossoms (not the template's depth-first), and re-matching
//!   along an augmenting path and inside blossoms goes through FIFO queues;
//! - blossom ids are reused lowest-first once expanded; tables grow by one id when none is free
//!   and new entries start at the null record `(0, 0, 0)`;
//! - a vertex whose recorded partner does not point back is single (the original prints "matching
//!   error"; seen only on large graphs with one-bit asymmetric weights, and reproduced here).
//!
//! Checked against the original on 716 graphs of 2 to 256 vertices, most of them tie-heavy
//! (`tests/fixtures/muri-matching/`).

use std::collections::VecDeque;

use super::exceeds;

/// Ordered pair weights of one class's graph; `0` (or anything not `> 0`) is no edge. Filled by
/// [`WeightMatrix::offer`], which applies the original's edge rule. Reusable across graphs.
#[derive(Clone, Debug, Default)]
pub struct WeightMatrix {
    n: usize,
    w: Vec<f64>,
    edges: usize,
}

impl WeightMatrix {
    /// An empty graph (no vertices).
    pub fn new() -> Self {
        Self::default()
    }

    /// Clears to `n` vertices and no edges, keeping the allocation.
    pub fn reset(&mut self, n: usize) {
        self.n = n;
        self.w.clear();
        self.w.resize(n * n, 0.0);
        self.edges = 0;
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when the graph has no vertex.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Ordered pairs kept by [`Self::offer`].
    pub fn edge_count(&self) -> usize {
        self.edges
    }

    /// The stored weight of the ordered pair `(u, v)` (0-based), 0 when not kept.
    pub fn get(&self, u: usize, v: usize) -> f64 {
        self.w[u * self.n + v]
    }

    /// The original's edge rule (§7.4, `blossom_one_round`): the ordered pair `(u, v)`, `u ≠ v`,
    /// keeps `weight` only if it [`exceeds`] `threshold` (greater and not within a relative 1e-5);
    /// returns whether it was kept. With `weight_lbd = 0` the threshold is 0 and every positive
    /// used ratio is an edge; see [`edge_threshold`].
    ///
    /// # Panics
    /// On a loop (`u == v`) or a vertex outside the graph.
    pub fn offer(&mut self, u: usize, v: usize, weight: f64, threshold: f64) -> bool {
        assert!(u != v && u < self.n && v < self.n, "edge ({u}, {v}) of a {}-vertex graph", self.n);
        let keep = exceeds(weight, threshold);
        if keep {
            let cell = &mut self.w[u * self.n + v];
            if *cell == 0.0 {
                self.edges += 1;
            }
            *cell = weight;
        }
        keep
    }
}

/// The edge threshold of the original for a merged group of `jobs` jobs:
/// `weight_lbd × (jobs / multi_resource)` (true division first, as Python evaluates it).
pub fn edge_threshold(weight_lbd: f64, jobs: usize, multi_resource: usize) -> f64 {
    weight_lbd * (jobs as f64 / multi_resource as f64)
}

/// What the original emits for one vertex while scanning `u = 0..n` (§7.4): a pair when the
/// larger endpoint `u` is reached (`(v, u)`, `v < u`), a single for an unmatched vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emitted {
    /// A matched pair `(smaller, larger)`, emitted at the larger vertex.
    Pair(usize, usize),
    /// A vertex left alone.
    Single(usize),
}

/// One edge record of the table: the original endpoints it stands for and their ordered pair's
/// weight. (The original zeroes a blossom row's weight fields before filling it, so its first
/// member's records are taken unconditionally; here that is the first member's pass.)
#[derive(Clone, Copy, Debug)]
struct Edge {
    u: u32,
    v: u32,
    w: f64,
}

const NULL_EDGE: Edge = Edge { u: 0, v: 0, w: 0.0 };

/// Label of a top-level vertex or blossom in the current phase.
const UNLABELLED: i8 = -1;
const OUTER: i8 = 0;
const INNER: i8 = 1;

/// The matcher with its buffers: calling [`Matcher::run`] repeatedly (thousands of graphs per
/// simulation, up to 256 vertices) reuses every table. Ids are the original's: vertices `1..=n`,
/// blossoms `n+1..=nx`, 0 = none.
#[derive(Clone, Debug, Default)]
pub struct Matcher {
    n: usize,
    nx: usize,
    /// Row length of `edge` and `flower_from`'s row count: ids `0..stride`.
    stride: usize,
    /// `edge[x·stride + y]`: the record `e(x, y)` as the id built later (or, between vertices, `x`)
    /// holds it; [`Self::e`] reads any record from it.
    edge: Vec<Edge>,
    /// Per id: when its row was written (0 for vertices, then one count per blossom built).
    built: Vec<u64>,
    builds: u64,
    /// `weight[u·(n+1) + v]`: the weight of the vertex pair, which never changes (the records of
    /// vertex pairs are never rewritten); dense, so the scans stay in cache.
    weight: Vec<f64>,
    lab: Vec<f64>,
    mate: Vec<usize>,
    st: Vec<usize>,
    pa: Vec<usize>,
    label: Vec<i8>,
    slack: Vec<usize>,
    /// Per id: the slack of its slack edge, as [`Self::dist`] computes it, current for every
    /// top-level id with a slack edge (see [`Self::refresh_slacks`]).
    slack_z: Vec<f64>,
    /// Per blossom id: the original endpoints of its slack edge's record and their pair's weight,
    /// so that a dual update recomputes the slack from the (small) label table alone (a vertex's
    /// slack edge is the pair `(slack[x], x)`).
    slack_ends: Vec<(u32, u32)>,
    slack_w: Vec<f64>,
    /// Per blossom id: the scan (by `scans`) that last offered the scanned vertex's edge to it.
    offered: Vec<u64>,
    /// Scratch of [`Self::add_blossom`]: the ids given a record, and per id its record's slack.
    row_ids: Vec<usize>,
    row_z: Vec<f64>,
    /// 64-bit words of a vertex set (bit `v` for vertex id `v`, `0..=n`).
    words: usize,
    /// `edge_bits[u·words ..]`: the vertices `v` with `weight(u, v) > 0`.
    edge_bits: Vec<u64>,
    /// `member_bits[x·words ..]`: the vertices inside id `x` (itself, for a vertex).
    member_bits: Vec<u64>,
    /// The vertices whose top-level blossom is labelled inner. With the two sets above, a scan
    /// visits only the entries whose edges can matter (see [`Self::scan_until_tight`]).
    inner_bits: Vec<u64>,
    /// The vertices whose top-level blossom is labelled outer ([`Self::reset_slack`] visits only
    /// these).
    outer_bits: Vec<u64>,
    scans: u64,
    vis: Vec<u64>,
    stamp: u64,
    flower: Vec<Vec<usize>>,
    /// `flower_from[b·(n+1) + x]`: the member of blossom `b` containing vertex `x`.
    flower_from: Vec<usize>,
    queue: VecDeque<usize>,
    members: VecDeque<usize>,
    pairs: VecDeque<(usize, usize)>,
    stack: Vec<usize>,
    result: Vec<Option<usize>>,
}

impl Matcher {
    /// A matcher with empty buffers; they grow to the largest graph seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs the original's matching on `weights` and returns each vertex's partner (0-based, `None`
    /// for a single; pairs are mutual). A graph without any kept edge matches nothing, as the
    /// original skips the algorithm then.
    pub fn run(&mut self, weights: &WeightMatrix) -> &[Option<usize>] {
        let n = weights.len();
        self.init(weights);
        if weights.edge_count() > 0 {
            while self.augment_search() {}
        }
        self.result.clear();
        self.result.extend((1..=n).map(|u| {
            let v = self.mate[u];
            (v > 0 && v <= n && self.mate[v] == u).then(|| v - 1)
        }));
        &self.result
    }

    /// The partner the algorithm recorded for vertex `u` (0-based) in the last run, mutual or not;
    /// [`Self::run`] keeps a vertex single when it is not (the original's "matching error").
    pub fn recorded_partner(&self, u: usize) -> Option<usize> {
        let v = self.mate[u + 1];
        (v > 0).then(|| v - 1)
    }

    /// The last run's result in the original's emission order (§7.4).
    pub fn emitted(&self) -> impl Iterator<Item = Emitted> + '_ {
        self.result.iter().enumerate().filter_map(|(u, m)| match *m {
            None => Some(Emitted::Single(u)),
            Some(v) if v < u => Some(Emitted::Pair(v, u)),
            Some(_) => None,
        })
    }

    fn init(&mut self, weights: &WeightMatrix) {
        let n = weights.len();
        self.n = n;
        self.nx = n;
        // Live blossoms form a laminar family with at least three children each, so at most
        // (n − 1)/2 ids above n are ever in use at once (ids are reused); 2n + 1 is ample.
        let stride = 2 * n + 1;
        if self.stride < stride {
            self.stride = stride;
            self.edge.resize(stride * stride, NULL_EDGE);
            self.flower.resize_with(stride, Vec::new);
            for v in [&mut self.mate, &mut self.st, &mut self.pa, &mut self.slack] {
                v.resize(stride, 0);
            }
            self.lab.resize(stride, 0.0);
            self.label.resize(stride, UNLABELLED);
            self.vis.resize(stride, 0);
            self.slack_z.resize(stride, 0.0);
            self.slack_ends.resize(stride, (0, 0));
            self.slack_w.resize(stride, 0.0);
            self.offered.resize(stride, 0);
            self.row_z.resize(stride, 0.0);
        }
        self.built.clear();
        self.built.resize(self.stride, 0);
        self.builds = 0;
        self.flower_from.clear();
        self.flower_from.resize(self.stride * (n + 1), 0);
        self.weight.clear();
        self.weight.resize((n + 1) * (n + 1), 0.0);
        let words = (n + 1).div_ceil(64);
        self.words = words;
        self.edge_bits.clear();
        self.edge_bits.resize((n + 1) * words, 0);
        self.member_bits.clear();
        self.member_bits.resize(self.stride * words, 0);
        self.inner_bits.clear();
        self.inner_bits.resize(words, 0);
        self.outer_bits.clear();
        self.outer_bits.resize(words, 0);
        let mut w_max = 0.0f64;
        for u in 0..=n {
            let row = u * self.stride;
            for v in 0..=n {
                let w = if u > 0 && v > 0 { weights.get(u - 1, v - 1) } else { 0.0 };
                if u > 0 && v > 0 && w > w_max {
                    w_max = w;
                }
                self.edge[row + v] = Edge { u: u as u32, v: v as u32, w };
                self.weight[u * (n + 1) + v] = w;
                if w > 0.0 {
                    self.edge_bits[u * words + v / 64] |= 1 << (v % 64);
                }
            }
            self.member_bits[u * words + u / 64] |= 1 << (u % 64);
            self.flower_from[u * (n + 1) + u] = u;
            self.flower[u].clear();
            self.mate[u] = 0;
            self.st[u] = u;
            self.pa[u] = 0;
            self.vis[u] = 0;
        }
        // Python's max over the rows starts from the first weight, which may be 0 (the
        // diagonal), so the fold from 0 above is the same value.
        self.lab[..=n].fill(w_max);
        self.stamp = 0;
    }

    /// The record `e(x, y)`. The original keeps a full table and writes a blossom's row and
    /// column together, each column entry the reverse of the row's (`e(x, b) = e(x, xs)` beside
    /// `e(b, x) = e(xs, x)`; vertex pairs start so), and a record's weight field is its
    /// endpoints' weight once the blossom's loop is done. So only rows are stored: `e(x, y)` is
    /// the row of whichever was built later, reversed when that is `y`. Saves the column writes
    /// (strided: the costliest stores) and makes reading a blossom's column a row scan.
    fn e(&self, x: usize, y: usize) -> Edge {
        if self.built[x] >= self.built[y] {
            self.edge[x * self.stride + y]
        } else {
            let r = self.edge[y * self.stride + x];
            Edge { u: r.v, v: r.u, w: self.weight[r.v as usize * (self.n + 1) + r.u as usize] }
        }
    }

    fn set_e(&mut self, x: usize, y: usize, e: Edge) {
        self.edge[x * self.stride + y] = e;
    }

    /// Slack of an edge record: the weight of the record's original endpoints, which its weight
    /// field holds (vertex records are the pairs', a reversed read looks the reversed pair up,
    /// and a blossom's records are copies of these).
    fn dist(&self, e: Edge) -> f64 {
        let (u, v) = (e.u as usize, e.v as usize);
        debug_assert_eq!(e.w.to_bits(), self.weight[u * (self.n + 1) + v].to_bits());
        self.lab[u] + self.lab[v] - e.w * 2.0
    }

    /// Marks the vertices of top-level id `x` as under an inner blossom, or not.
    fn mark_inner(&mut self, x: usize, inner: bool) {
        let w = self.words;
        for (bits, &members) in self.inner_bits.iter_mut().zip(&self.member_bits[x * w..(x + 1) * w]) {
            if inner {
                *bits |= members;
            } else {
                *bits &= !members;
            }
        }
    }

    /// Marks the vertices of top-level id `x` as under an outer blossom (labels only become outer
    /// within a phase, and the phase's start clears the set).
    fn mark_outer(&mut self, x: usize) {
        let w = self.words;
        for (bits, &members) in self.outer_bits.iter_mut().zip(&self.member_bits[x * w..(x + 1) * w]) {
            *bits |= members;
        }
    }

    fn ff(&self, b: usize, x: usize) -> usize {
        self.flower_from[b * (self.n + 1) + x]
    }

    fn set_ff(&mut self, b: usize, x: usize, m: usize) {
        self.flower_from[b * (self.n + 1) + x] = m;
    }

    /// Recomputes the slack of every top-level id's slack edge after a dual update. A slack reads
    /// only vertex labels, which change only there, and vertex-pair weights, which never change;
    /// the record `e(slack[x], x)` changes only when `x` is a blossom id (re)built, and its slack
    /// is reset then. An id becomes top-level only when its blossom is expanded, which resets its
    /// slack, or labels it inner, whose slack is never read (the dual step skips inner ids and a
    /// tight one changes nothing). So `slack_z` is the original's `dist` wherever it is read.
    fn refresh_slacks(&mut self) {
        for x in 1..=self.nx {
            if self.st[x] == x && self.slack[x] != 0 {
                self.slack_z[x] = if x <= self.n {
                    // A vertex's slack edge is the pair itself (only blossoms keep their ends).
                    let u = self.slack[x];
                    self.lab[u] + self.lab[x] - self.weight[u * (self.n + 1) + x] * 2.0
                } else {
                    let (u, v) = self.slack_ends[x];
                    self.lab[u as usize] + self.lab[v as usize] - self.slack_w[x] * 2.0
                };
            }
        }
    }

    /// `x`'s slack edge from scratch: the first outer vertex (ascending) outside `x` of the
    /// smallest slack among those with an edge to `x`.
    fn reset_slack(&mut self, x: usize) {
        self.slack[x] = 0;
        debug_assert!(self.outer_set_agrees(), "outer vertex set disagrees with the labels");
        let mut best: Option<(usize, f64, Edge)> = None;
        let w = self.words;
        for k in 0..w {
            let mut bits = self.outer_bits[k] & !self.member_bits[x * w + k];
            while bits != 0 {
                let u = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let e = self.e(u, x);
                if e.w > 0.0 {
                    let z = self.dist(e);
                    if best.is_none_or(|(_, bz, _)| z < bz) {
                        best = Some((u, z, e));
                    }
                }
            }
        }
        if let Some((u, z, e)) = best {
            self.slack[x] = u;
            self.slack_z[x] = z;
            self.slack_ends[x] = (e.u, e.v);
            self.slack_w[x] = e.w;
        }
    }

    /// Appends the vertices of `x` to the queue, breadth-first over nested blossoms (original).
    fn push_members(&mut self, x: usize) {
        self.members.clear();
        self.members.push_back(x);
        while let Some(y) = self.members.pop_front() {
            if y <= self.n {
                self.queue.push_back(y);
            } else {
                self.members.extend(self.flower[y].iter().copied());
            }
        }
    }

    fn set_top(&mut self, x: usize, b: usize) {
        self.stack.clear();
        self.stack.push(x);
        while let Some(y) = self.stack.pop() {
            self.st[y] = b;
            // Vertices have no members, so descending into every id is the original's test.
            self.stack.extend(self.flower[y].iter().copied());
        }
    }

    /// Position of `xr` in blossom `b`, made even by reversing the cycle after the base if odd.
    fn rotate_index(&mut self, b: usize, xr: usize) -> usize {
        let p = self.flower[b].iter().position(|&y| y == xr).expect("member of its blossom");
        if p % 2 == 1 {
            self.flower[b][1..].reverse();
            self.flower[b].len() - p
        } else {
            p
        }
    }

    fn set_match(&mut self, u: usize, v: usize) {
        self.pairs.clear();
        self.pairs.push_back((u, v));
        while let Some((u, v)) = self.pairs.pop_front() {
            let e = self.e(u, v);
            self.mate[u] = e.v as usize;
            if u <= self.n {
                continue;
            }
            let xr = self.ff(u, e.u as usize);
            let p = self.rotate_index(u, xr);
            for i in 0..p {
                self.pairs.push_back((self.flower[u][i], self.flower[u][i ^ 1]));
            }
            self.pairs.push_back((xr, v));
            self.flower[u].rotate_left(p);
        }
    }

    fn augment(&mut self, mut u: usize, mut v: usize) {
        loop {
            let xnv = self.st[self.mate[u]];
            self.set_match(u, v);
            if xnv == 0 {
                return;
            }
            let up = self.st[self.pa[xnv]];
            self.set_match(xnv, up);
            u = up;
            v = xnv;
        }
    }

    fn lca(&mut self, mut u: usize, mut v: usize) -> usize {
        self.stamp += 1;
        while u != 0 || v != 0 {
            if u != 0 {
                if self.vis[u] == self.stamp {
                    return u;
                }
                self.vis[u] = self.stamp;
                u = self.st[self.mate[u]];
                if u != 0 {
                    u = self.st[self.pa[u]];
                }
            }
            std::mem::swap(&mut u, &mut v);
        }
        0
    }

    fn new_blossom_id(&mut self, l: usize) -> usize {
        let mut b = self.n + 1;
        while b <= self.nx && self.st[b] != 0 {
            b += 1;
        }
        if b > self.nx {
            self.nx += 1;
            assert!(b < self.stride, "blossom id {b} beyond the laminar bound of {} vertices", self.n);
            for c in 0..=b {
                self.set_e(b, c, NULL_EDGE);
            }
            for x in 0..=self.n {
                self.set_ff(b, x, 0);
            }
            self.st[b] = b;
            self.slack[b] = 0;
            self.pa[b] = 0;
            self.vis[b] = 0;
        }
        self.builds += 1;
        self.built[b] = self.builds;
        self.lab[b] = 0.0;
        self.label[b] = OUTER;
        self.mate[b] = self.mate[l];
        self.flower[b].clear();
        self.flower[b].push(l);
        b
    }

    fn add_blossom(&mut self, u: usize, l: usize, v: usize) {
        let b = self.new_blossom_id(l);
        let mut x = u;
        while x != l {
            self.flower[b].push(x);
            let y = self.st[self.mate[x]];
            self.flower[b].push(y);
            self.push_members(y);
            x = self.st[self.pa[y]];
        }
        self.flower[b][1..].reverse();
        x = v;
        while x != l {
            self.flower[b].push(x);
            let y = self.st[self.mate[x]];
            self.flower[b].push(y);
            self.push_members(y);
            x = self.st[self.pa[y]];
        }
        self.set_top(b, b);
        let words = self.words;
        self.member_bits.copy_within(self.flower[b][0] * words..(self.flower[b][0] + 1) * words, b * words);
        for i in 1..self.flower[b].len() {
            let child = self.flower[b][i] * words;
            for k in 0..words {
                self.member_bits[b * words + k] |= self.member_bits[child + k];
            }
        }
        self.mark_inner(b, false);
        self.mark_outer(b);
        let (n, nx, stride, words) = (self.n, self.nx, self.stride, self.words);
        self.flower_from[b * (n + 1) + 1..(b + 1) * (n + 1)].fill(0);
        // Entries are written for the ids that can read them later: not the ids inside `b` (read
        // only through `b`'s own records until `b` is expanded, and then `b`'s id is free) nor free
        // ids (a reused id is built later than `b`, so `e(b, id)` reads the id's row). Vertices
        // come first, and `e(xs, x)` of a vertex `x` is `xs`'s row (built no earlier).
        self.row_ids.clear();
        for x in 1..=nx {
            if self.st[x] != b && self.st[x] != 0 {
                self.row_ids.push(x);
            }
        }
        let split = self.row_ids.partition_point(|&x| x <= n);
        let members = std::mem::take(&mut self.flower[b]);
        let ids = std::mem::take(&mut self.row_ids);
        for (i, &xs) in members.iter().enumerate() {
            // The original zeroes the row's weight fields first, so the first member's records
            // are taken whatever they are; a later member's replaces one without an edge or of a
            // larger slack (kept in `row_z`: labels do not change here).
            for (k, &x) in ids.iter().enumerate() {
                let rec = if k < split { self.edge[xs * stride + x] } else { self.e(xs, x) };
                let z = self.dist(rec);
                let cell = b * stride + x;
                let take = i == 0 || !exceeds(self.edge[cell].w, 0.0) || z < self.row_z[x];
                self.edge[cell] = if take { rec } else { self.edge[cell] };
                self.row_z[x] = if take { z } else { self.row_z[x] };
            }
            // `xs`'s members are the vertices `x` with `ff(xs, x) != 0`.
            for k in 0..words {
                let mut bits = self.member_bits[xs * words + k];
                while bits != 0 {
                    let x = k * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    self.flower_from[b * (n + 1) + x] = xs;
                }
            }
        }
        self.flower[b] = members;
        self.row_ids = ids;
        self.reset_slack(b);
    }

    fn expand(&mut self, b: usize) {
        for i in 0..self.flower[b].len() {
            let m = self.flower[b][i];
            self.set_top(m, m);
        }
        let xr = self.ff(b, self.e(b, self.pa[b]).u as usize);
        let p = self.rotate_index(b, xr);
        for i in (0..p).step_by(2) {
            let xs = self.flower[b][i];
            let xns = self.flower[b][i + 1];
            self.pa[xs] = self.e(xns, xs).u as usize;
            self.label[xs] = INNER;
            self.label[xns] = OUTER;
            self.mark_outer(xns);
            self.slack[xs] = 0;
            self.reset_slack(xns);
            self.push_members(xns);
        }
        self.label[xr] = INNER;
        self.pa[xr] = self.pa[b];
        for i in p + 1..self.flower[b].len() {
            let xs = self.flower[b][i];
            self.label[xs] = UNLABELLED;
            self.reset_slack(xs);
        }
        self.mark_inner(b, false);
        for i in 0..self.flower[b].len() {
            let child = self.flower[b][i];
            if self.label[child] == INNER {
                self.mark_inner(child, true);
            }
        }
        self.st[b] = 0;
    }

    /// A tight edge reached from an outer vertex: label the other side, augment, or shrink.
    fn found_edge(&mut self, e: Edge) -> bool {
        let u = self.st[e.u as usize];
        let v = self.st[e.v as usize];
        if self.label[v] == UNLABELLED {
            self.pa[v] = e.u as usize;
            self.label[v] = INNER;
            self.mark_inner(v, true);
            let nu = self.st[self.mate[v]];
            self.slack[v] = 0;
            self.slack[nu] = 0;
            self.label[nu] = OUTER;
            self.mark_outer(nu);
            self.mark_inner(nu, false);
            self.push_members(nu);
        } else if self.label[v] == OUTER {
            let l = self.lca(u, v);
            if l == 0 {
                self.augment(u, v);
                self.augment(v, u);
                return true;
            }
            self.add_blossom(u, l, v);
        }
        false
    }

    /// The scan of outer vertex `u`'s edges to vertices `from..=n` in ascending order: each edge
    /// to another top-level blossom improves that blossom's slack, until the first tight one,
    /// whose vertex is returned (the caller handles it and resumes after it, re-reading `u`'s
    /// blossom, which handling it may change). Labels do not change during a scan, and a
    /// vertex-to-vertex record is the vertices' own, so its slack is `lab[u] + lab[v] − 2w`.
    ///
    /// Only entries that can matter are visited, word by word of the vertex sets: an edge
    /// (`w > 0`) to a vertex outside `u`'s blossom whose top-level blossom is not inner. An edge
    /// into an inner blossom changes nothing: tight, `found_edge` ignores it; not, its slack is
    /// never read (the dual step and the re-check skip inner ids, and one is reset before it can
    /// be unlabelled or outer again). Inside big blossoms most entries are neither, and skipping
    /// them together keeps the visits (the cost) to the edges the original acts on.
    fn scan_until_tight(&mut self, u: usize, from: usize) -> Option<usize> {
        self.scans += 1;
        debug_assert!(self.scan_sets_agree(u), "vertex sets of scan {} disagree with the labels", self.scans);
        let Matcher {
            n,
            stride,
            edge,
            built,
            weight,
            lab,
            st,
            slack,
            slack_z,
            slack_ends,
            slack_w,
            offered,
            scans,
            words,
            edge_bits,
            member_bits,
            inner_bits,
            ..
        } = self;
        let (n, stride, scan, words) = (*n, *stride, *scans, *words);
        let row = &weight[u * (n + 1)..(u + 1) * (n + 1)];
        let st_u = st[u];
        let lab_u = lab[u];
        let edges = &edge_bits[u * words..(u + 1) * words];
        let own = &member_bits[st_u * words..(st_u + 1) * words];
        for k in from / 64..words {
            let mut bits = edges[k] & !own[k] & !inner_bits[k];
            if k == from / 64 {
                bits &= u64::MAX << (from % 64);
            }
            while bits != 0 {
                let v = k * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let w = row[v];
                let x = st[v];
                let z = lab_u + lab[v] - w * 2.0;
                if !exceeds(z, 0.0) {
                    return Some(v);
                }
                // The slack of `e(u, x)` against `x`'s current slack edge (the original's
                // `update_slack`): for a vertex, the pair's; for a blossom `x`, its copied
                // record's, the same for every member `v`, so offered once per scan (later offers
                // of an equal slack change nothing).
                if x == v {
                    if slack[x] == 0 || z < slack_z[x] {
                        slack[x] = u;
                        slack_z[x] = z;
                    }
                    continue;
                }
                if offered[x] == scan {
                    continue;
                }
                offered[x] = scan;
                // `e(u, x)` of a blossom `x` (built after every vertex): its row, reversed.
                debug_assert!(built[x] > built[u]);
                let r = edge[x * stride + u];
                let pair_w = weight[r.v as usize * (n + 1) + r.u as usize];
                let z = lab[r.u as usize] + lab[r.v as usize] - pair_w * 2.0;
                if slack[x] == 0 || z < slack_z[x] {
                    slack[x] = u;
                    slack_z[x] = z;
                    slack_ends[x] = (r.v, r.u);
                    slack_w[x] = pair_w;
                }
            }
        }
        None
    }

    /// Whether `outer_bits` holds exactly the vertices under an outer top-level id (checked in
    /// debug builds).
    fn outer_set_agrees(&self) -> bool {
        (1..=self.n).all(|u| (self.outer_bits[u / 64] >> (u % 64) & 1 == 1) == (self.label[self.st[u]] == OUTER))
    }

    /// Whether the sets [`Self::scan_until_tight`] visits are exactly the entries the original's
    /// test keeps (checked in debug builds).
    fn scan_sets_agree(&self, u: usize) -> bool {
        let w = self.words;
        (1..=self.n).all(|v| {
            let bit = |set: &[u64], row: usize| set[row * w + v / 64] >> (v % 64) & 1 == 1;
            let visited = bit(&self.edge_bits, u) && !bit(&self.member_bits, self.st[u]) && !bit(&self.inner_bits, 0);
            let kept =
                self.weight[u * (self.n + 1) + v] > 0.0 && self.st[u] != self.st[v] && self.label[self.st[v]] != INNER;
            visited == kept
        })
    }

    /// One phase (the original's `matching`): true when it augmented, false when done.
    fn augment_search(&mut self) -> bool {
        let n = self.n;
        self.label[..=self.nx].fill(UNLABELLED);
        self.inner_bits.fill(0);
        self.outer_bits.fill(0);
        self.slack[..=self.nx].fill(0);
        self.queue.clear();
        for x in 1..=self.nx {
            if self.st[x] == x && self.mate[x] == 0 {
                self.pa[x] = 0;
                self.label[x] = OUTER;
                self.mark_outer(x);
                self.push_members(x);
            }
        }
        if self.queue.is_empty() {
            return false;
        }
        loop {
            while let Some(u) = self.queue.pop_front() {
                if self.label[self.st[u]] == INNER {
                    continue;
                }
                let mut from = 1;
                while let Some(v) = self.scan_until_tight(u, from) {
                    if self.found_edge(self.e(u, v)) {
                        return true;
                    }
                    from = v + 1;
                }
            }
            let mut d = f64::INFINITY;
            for b in n + 1..=self.nx {
                if self.st[b] == b && self.label[b] == INNER {
                    d = py_min(d, self.lab[b] / 2.0);
                }
            }
            for x in 1..=self.nx {
                if self.st[x] == x && self.slack[x] != 0 {
                    let z = self.slack_z[x];
                    match self.label[x] {
                        UNLABELLED => d = py_min(d, z),
                        OUTER => d = py_min(d, z / 2.0),
                        _ => {}
                    }
                }
            }
            for u in 1..=n {
                match self.label[self.st[u]] {
                    OUTER => {
                        if !exceeds(self.lab[u], d) {
                            return false;
                        }
                        self.lab[u] -= d;
                    }
                    INNER => self.lab[u] += d,
                    _ => {}
                }
            }
            for b in n + 1..=self.nx {
                if self.st[b] == b {
                    match self.label[b] {
                        OUTER => self.lab[b] += d * 2.0,
                        INNER => self.lab[b] -= d * 2.0,
                        _ => {}
                    }
                }
            }
            self.refresh_slacks();
            self.queue.clear();
            // The bound is read once: blossoms formed during the scan are not visited in it.
            let nx = self.nx;
            for x in 1..=nx {
                let s = self.slack[x];
                if self.st[x] == x && s != 0 && self.st[s] != x && !exceeds(self.slack_z[x], 0.0) {
                    let e = self.e(s, x);
                    if self.found_edge(e) {
                        return true;
                    }
                }
            }
            let nx = self.nx;
            for b in n + 1..=nx {
                if self.st[b] == b && self.label[b] == INNER && !exceeds(self.lab[b], 0.0) {
                    self.expand(b);
                }
            }
        }
    }
}

/// Python's `min(a, b)`: `b` only when strictly smaller.
fn py_min(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// One-shot convenience over [`Matcher::run`]: each vertex's partner (0-based) or `None`.
pub fn max_weight_matching(weights: &WeightMatrix) -> Vec<Option<usize>> {
    Matcher::new().run(weights).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize, f64)]) -> WeightMatrix {
        let mut w = WeightMatrix::new();
        w.reset(n);
        for &(u, v, x) in edges {
            w.offer(u, v, x, 0.0);
            w.offer(v, u, x, 0.0);
        }
        w
    }

    fn weight(w: &WeightMatrix, m: &[Option<usize>]) -> f64 {
        m.iter().enumerate().filter_map(|(u, p)| p.filter(|&v| v < u).map(|v| w.get(v, u))).sum()
    }

    #[test]
    fn path_prefers_heavy_middle_or_two_ends() {
        // 0-1 (1), 1-2 (3), 2-3 (1): the optimum is the middle edge alone (3 > 2).
        let w = graph(4, &[(0, 1, 1.0), (1, 2, 3.0), (2, 3, 1.0)]);
        assert_eq!(max_weight_matching(&w), vec![None, Some(2), Some(1), None]);
        // With ends 2 each, both ends win (4 > 3).
        let w = graph(4, &[(0, 1, 2.0), (1, 2, 3.0), (2, 3, 2.0)]);
        assert_eq!(max_weight_matching(&w), vec![Some(1), Some(0), Some(3), Some(2)]);
    }

    #[test]
    fn not_maximum_cardinality() {
        // A heavy edge beats two light ones: 0-1 (10) vs 0-2 + 1-3 (4 + 4).
        let w = graph(4, &[(0, 1, 10.0), (0, 2, 4.0), (1, 3, 4.0)]);
        assert_eq!(max_weight_matching(&w), vec![Some(1), Some(0), None, None]);
    }

    #[test]
    fn odd_cycle_needs_a_blossom() {
        // Triangle 0-1-2 (5 each) with a pendant 2-3 (4): the optimum pairs 0-1 and 2-3 (9),
        // reached only through the blossom on the triangle.
        let w = graph(4, &[(0, 1, 5.0), (1, 2, 5.0), (0, 2, 5.0), (2, 3, 4.0)]);
        let m = max_weight_matching(&w);
        assert_eq!(m, vec![Some(1), Some(0), Some(3), Some(2)]);
        assert_eq!(weight(&w, &m), 9.0);
    }

    #[test]
    fn five_cycle_with_tails() {
        // A 5-cycle 0-1-2-3-4 of weight 6 with tails 0-5 (5), 2-6 (5) and 4-7 (7). The unique
        // optimum is 0-1, 2-3, 4-7 (19); taking both light tails gives at most 18.
        let edges =
            [(0, 1, 6.0), (1, 2, 6.0), (2, 3, 6.0), (3, 4, 6.0), (4, 0, 6.0), (0, 5, 5.0), (2, 6, 5.0), (4, 7, 7.0)];
        let w = graph(8, &edges);
        let m = max_weight_matching(&w);
        assert_eq!(m, vec![Some(1), Some(0), Some(3), Some(2), Some(7), None, None, Some(4)]);
        assert_eq!(weight(&w, &m), 19.0);
        assert_eq!(brute_force(&w), 19.0);
    }

    /// The optimum weight by exhaustive search (small graphs only).
    fn brute_force(w: &WeightMatrix) -> f64 {
        fn go(w: &WeightMatrix, used: &mut Vec<bool>, from: usize) -> f64 {
            let n = w.len();
            let Some(u) = (from..n).find(|&u| !used[u]) else { return 0.0 };
            used[u] = true;
            let mut best = go(w, used, u + 1);
            for v in u + 1..n {
                if !used[v] && w.get(u, v) > 0.0 {
                    used[v] = true;
                    best = best.max(w.get(u, v) + go(w, used, u + 1));
                    used[v] = false;
                }
            }
            used[u] = false;
            best
        }
        go(w, &mut vec![false; w.len()], 0)
    }

    #[test]
    fn small_random_graphs_reach_the_optimum() {
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let mut matcher = Matcher::new();
        let mut w = WeightMatrix::new();
        for _ in 0..300 {
            let n = 2 + (next() % 9) as usize;
            w.reset(n);
            for u in 0..n {
                for v in u + 1..n {
                    if next() % 3 != 0 {
                        // Integral weights: sums are exact, so the optimum is unambiguous.
                        let x = (1 + next() % 4) as f64;
                        w.offer(u, v, x, 0.0);
                        w.offer(v, u, x, 0.0);
                    }
                }
            }
            let m = matcher.run(&w).to_vec();
            assert!(m.iter().enumerate().all(|(u, p)| p.is_none_or(|v| m[v] == Some(u))));
            assert_eq!(weight(&w, &m), brute_force(&w), "n = {n}");
        }
    }

    #[test]
    fn no_edge_matches_nothing_and_ties_follow_the_scan() {
        let w = graph(3, &[]);
        assert_eq!(max_weight_matching(&w), vec![None; 3]);
        // Complete graph on 4 vertices, all weights equal: the original's scan pairs 1-2, 3-4.
        let w = graph(4, &[(0, 1, 1.0), (0, 2, 1.0), (0, 3, 1.0), (1, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)]);
        let mut m = Matcher::new();
        assert_eq!(m.run(&w), &[Some(1), Some(0), Some(3), Some(2)]);
        assert_eq!(m.emitted().collect::<Vec<_>>(), vec![Emitted::Pair(0, 1), Emitted::Pair(2, 3)]);
    }

    #[test]
    fn edge_rule_is_tolerant() {
        let mut w = WeightMatrix::new();
        w.reset(2);
        assert!(!w.offer(0, 1, 0.0, 0.0));
        assert!(!w.offer(0, 1, 0.2500001, 0.25), "within rel 1e-5 of the threshold: no edge");
        assert!(w.offer(0, 1, 0.26, 0.25));
        assert_eq!(w.edge_count(), 1);
        assert_eq!(edge_threshold(0.5, 3, 4), 0.375);
    }
}
