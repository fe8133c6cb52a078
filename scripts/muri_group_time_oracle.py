#!/usr/bin/env python3
"""Full-precision oracle values of a Muri group's iteration time (docs/muri-semantics.md Appendix B).

Calls the ORIGINAL `_Packing.calc_iteration_time` / `calc_used_ratio` (`matching.py`,
github.com/Rivendile/Muri @ 4e69a78, Apache-2.0) on synthetic jobs with the traces' stage profiles,
as `jobs.add_job` sets them up for Muri policies, and prints one line per group:
    <group> raw=<C> best=<T> worst=<T> solo_sum=<S> util=<used ratio>
with Python's shortest round-trip reprs, which the Rust tests in
crates/sim/src/policies/events/muri/group_time.rs hold as literals.

Usage: python scripts/muri_group_time_oracle.py --muri /tmp/muri/simulator
"""

import argparse
import sys

# (model, GPUs) -> (iteration_time ms, resource_time_0..2 as the trace writes them); trace3.csv.
PROFILES = {
    ("bert", 1): ("178", "0.5", "160", "0"),
    ("a2c", 1): ("517", "514", "14", "0"),
    ("gpt2", 1): ("426", "0.6", "410", "0"),
    ("dqn", 1): ("490", "446", "8", "0"),
    ("vgg16", 1): ("107", "117", "68", "0"),
    ("resnet18", 1): ("779", "711", "110", "0"),
    ("vgg16", 8): ("214", "82", "75", "66"),
    ("bert", 8): ("192", "0.5", "167", "59"),
    ("gpt2", 8): ("437", "0.6", "419", "49"),
    ("resnet18", 8): ("1010", "784", "117", "77"),
    ("a2c", 8): ("555", "502", "14", "0.4"),
    ("shufflenet_v2_x1_0", 8): ("957", "769", "57", "10"),
}

GROUPS = [
    [("bert", 1), ("a2c", 1)],
    [("gpt2", 1), ("dqn", 1)],
    [("vgg16", 1), ("vgg16", 1)],
    [("bert", 1), ("gpt2", 1)],
    [("bert", 1), ("a2c", 1), ("dqn", 1)],
    [("bert", 1), ("gpt2", 1), ("a2c", 1), ("dqn", 1)],
    [("resnet18", 1), ("bert", 1)],
    [("vgg16", 8), ("bert", 8)],
    [("gpt2", 8), ("resnet18", 8)],
    [("vgg16", 8), ("bert", 8), ("a2c", 8)],
    [("vgg16", 8), ("bert", 8), ("a2c", 8), ("gpt2", 8)],
    [("shufflenet_v2_x1_0", 8), ("gpt2", 8), ("bert", 8), ("a2c", 8)],
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--muri", required=True, help="the original's simulator/ directory")
    args = ap.parse_args()
    sys.path.insert(0, args.muri)
    sys.argv = sys.argv[:1]
    import flags
    import jobs
    import matching

    flags.FLAGS.multi_resource = 4
    jobs.JOBS.itertime_overhead_list = [1.015, 1.33 / 1.015, 1.5 / 1.015, 1.37 / 1.015]

    def packing(group):
        packs = []
        for idx, key in enumerate(group):
            it, s0, s1, s2 = PROFILES[key]
            packs.append(matching._Packing({
                "num_gpu": key[1], "job_idx": idx, "sort_val": 0.0,
                "iteration_time": int(it) * 1.015 / 1000,
                "resource_time": [float(s0) / 1000, float(s1) / 1000, float(s2) / 1000]}))
        return packs

    for group in GROUPS:
        head, *rest = packing(group)
        for p in rest[:-1]:
            head.add_job(p)
        last = rest[-1]
        raw = head.calc_iteration_time(last, 1, calc_weight=True)
        best = head.calc_iteration_time(last, 1)
        worst = head.calc_iteration_time(last, 2)
        solo = sum(j.iteration_time for j in head.packing_jobs + last.packing_jobs)
        util = head.calc_used_ratio(last, 1)
        name = " + ".join(f"{m}/{g}" for m, g in group)
        print(f"{name}: raw={raw!r} best={best!r} worst={worst!r} solo_sum={solo!r} util={util!r}")


if __name__ == "__main__":
    main()
