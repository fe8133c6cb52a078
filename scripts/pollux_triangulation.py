#!/usr/bin/env python3
"""Exports the Delaunay triangulations behind the Pollux simulator's step times on more than
four nodes (docs/pollux-semantics.md §3.2.3, §12.3), for blox's `crates/sim/src/policies/pollux/`.

The Pollux simulator interpolates a placement's (step time, sync time) over more than four
nodes piecewise linearly in (nodes, replicas, per-GPU batch) on a Qhull triangulation of a
point set built from the application's profile: the mean of `placements.csv` per (num_nodes,
num_replicas, local_bsz), sorted by those keys, followed by every row of `scalability.csv` in
file order. The points lie on a near-grid where the Delaunay triangulation is not unique, and
Qhull breaks the ties by insertion order: a re-implementation must use the very same
tetrahedra. This script rebuilds the point set in that order, triangulates it as scipy's
`LinearNDInterpolator` does (`scipy.spatial.Delaunay` with its default options) and writes,
per application, the points (integer coordinates) and the simplices (indices into them).

Run it with the library versions the Pollux artifact pins (Python 3.8, numpy 1.19.2,
pandas 1.1.2, scipy 1.5.2 with its bundled Qhull); another Qhull may break ties differently.

    python pollux_triangulation.py PROFILES_DIR OUT.txt [--transforms OUT.npz]

PROFILES_DIR holds one directory per application (`bert`, `cifar10`, ...) with the
profile CSVs (the `pollux-profiles` dataset's `traces/`). The output is plain text, gzipped
for embedding by `gzip -9n`:

    app NAME NPOINTS NSIMPLICES
    n r b            (NPOINTS lines, in the interpolator's order)
    i j k l          (NSIMPLICES lines, scipy's vertex order)

`--transforms` also saves scipy's barycentric transforms and the interpolated values, for
checking an implementation's arithmetic against scipy's (not embedded).
"""

import argparse
import os
import sys

import numpy as np
import pandas
from scipy.interpolate import LinearNDInterpolator

APPLICATIONS = ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"]
KEYS = ["num_nodes", "num_replicas", "local_bsz"]
VALUES = ["step_time", "sync_time"]


def point_set(profile_dir):
    """The interpolator's points and values, in its order."""
    placements = pandas.read_csv(os.path.join(profile_dir, "placements.csv"))
    digits = placements.placement.astype(str)
    placements["num_nodes"] = digits.str.len()
    placements["num_replicas"] = digits.apply(lambda p: sum(int(d) for d in p))
    means = placements.groupby(KEYS)[KEYS + VALUES].mean()
    scalability = pandas.read_csv(os.path.join(profile_dir, "scalability.csv"))
    table = pandas.concat([means, scalability], ignore_index=True, sort=False)
    return table[KEYS].values, table[VALUES].values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles")
    parser.add_argument("out")
    parser.add_argument("--transforms")
    args = parser.parse_args()
    extra = {}
    with open(args.out, "w") as out:
        for app in APPLICATIONS:
            points, values = point_set(os.path.join(args.profiles, app))
            interpolator = LinearNDInterpolator(points, values)
            tri = interpolator.tri
            coords = tri.points.astype(np.int64)
            assert (coords == tri.points).all(), f"{app}: non-integer coordinates"
            assert len(tri.coplanar) == 0, f"{app}: Qhull dropped coplanar points"
            out.write(f"app {app} {len(coords)} {len(tri.simplices)}\n")
            for n, r, b in coords:
                out.write(f"{n} {r} {b}\n")
            for simplex in tri.simplices:
                out.write(" ".join(str(i) for i in simplex) + "\n")
            extra[app + "_transform"] = tri.transform
            extra[app + "_values"] = interpolator.values
            print(app, len(coords), "points", len(tri.simplices), "simplices", file=sys.stderr)
    if args.transforms:
        np.savez(args.transforms, **extra)


if __name__ == "__main__":
    main()
