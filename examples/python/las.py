#!/usr/bin/env python3
"""Least attained service first, as an external blox policy (standard library only).

The same rule as blox's built-in `las` (Blox's schedulers/las.py): jobs promoted by the
starvation guard first, then least attained service (seconds a job has held GPUs), ties by job
id. Run it with

    policies: [{label: LAS (Python), scheduler: {external: {command: [python3, las.py]}}}]

The protocol is specified in docs/external-policy.md: one JSON line in, one JSON line out.
"""
import json
import sys


def main():
    hello = json.loads(sys.stdin.readline())
    field = {name: i for i, name in enumerate(hello["job_fields"])}
    job_id, promoted, attained = field["id"], field["promoted"], field["attained_service"]
    print(json.dumps({"blox_policy": 1}), flush=True)
    for line in sys.stdin:
        jobs = json.loads(line)["jobs"]
        jobs.sort(key=lambda job: (not job[promoted], job[attained], job[job_id]))
        print(json.dumps({"order": [job[job_id] for job in jobs]}), flush=True)


if __name__ == "__main__":
    main()
