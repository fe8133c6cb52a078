"""The ``blox`` command installed with the package: blox's own command line, run in-process."""

import sys


def main() -> None:
    from . import _blox

    raise SystemExit(_blox.cli_main(sys.argv))
