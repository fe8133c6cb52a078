#!/usr/bin/env python3
"""Shortest job first with aging: a policy blox does not ship (standard library only).

Rule: a job's priority is its remaining work divided by (1 + hours it has waited since
submission / AGING_HOURS); the smallest value runs first, ties by job id. Short jobs go first as in
SJF, but a long job's value shrinks as it waits, so it cannot starve behind a stream of short ones.
Remaining work is the job's total work minus the work done; blox's traces know the total, so this
is an oracle policy like `srtf`.

    policies: [{label: SJF+aging, scheduler: {external: {command: [python3, sjf_aging.py, "4"]}}}]

The optional argument sets AGING_HOURS (default 4): after that many hours of waiting a job counts
as half as long.
"""
import json
import sys


def main():
    aging_hours = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
    hello = json.loads(sys.stdin.readline())
    field = {name: i for i, name in enumerate(hello["job_fields"])}
    job_id, submitted = field["id"], field["submitted"]
    work, done = field["work"], field["executed_work"]
    print(json.dumps({"blox_policy": 1}), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        now = message["time"]

        def priority(job):
            waited_h = max(now - job[submitted], 0.0) / 3600.0
            return ((job[work] - job[done]) / (1.0 + waited_h / aging_hours), job[job_id])

        jobs = sorted(message["jobs"], key=priority)
        print(json.dumps({"order": [job[job_id] for job in jobs]}), flush=True)


if __name__ == "__main__":
    main()
