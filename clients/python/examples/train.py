"""A toy training loop under blox: burns CPU for each iteration, reports progress, and on a stop
request (or SIGTERM) saves its iteration count in the checkpoint directory and exits 0; a later
attempt resumes from it.

    python3 train.py --iterations 1000 --report-every 10 --ms-per-iteration 5
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import blox_client  # noqa: E402

terminated = False


def on_sigterm(_signum, _frame):
    global terminated
    terminated = True


def burn(ms):
    end = time.perf_counter() + ms / 1000.0
    x = 0
    while time.perf_counter() < end:
        x = (x * 31 + 7) % 1000003
    return x


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--report-every", type=int, default=1)
    parser.add_argument("--ms-per-iteration", type=float, default=5.0)
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, on_sigterm)
    directory = blox_client.checkpoint_dir() or "checkpoint"
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "iteration")
    start = 0
    if os.path.exists(path):
        with open(path) as f:
            start = int(f.read())
        print("resumed from iteration %d" % start, flush=True)

    def save(iteration, why):
        if not blox_client.is_leader():
            return  # the part of NODE_RANK 0 keeps the job's checkpoint
        with open(path + ".tmp", "w") as f:
            f.write(str(iteration))
        os.replace(path + ".tmp", path)  # a crash mid-write leaves the previous checkpoint
        print("%s: checkpoint at iteration %d" % (why, iteration), flush=True)

    for iteration in range(start + 1, args.iterations + 1):
        burn(args.ms_per_iteration)
        if terminated:
            save(iteration, "SIGTERM")
            return 0
        if iteration % args.report_every == 0 and blox_client.report(iteration):
            save(iteration, "stop requested")
            return 0
    save(args.iterations, "done")
    # The last iterations may not have been reported (a resumed attempt with nothing left to
    # do, a SIGTERM just before a report): the scheduler learns the final count here.
    blox_client.report(args.iterations)
    return 0


if __name__ == "__main__":
    sys.exit(main())
