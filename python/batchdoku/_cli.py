"""The ``batchdoku`` command installed with the package.

It is the command line itself (the library's ``cmd`` module, compiled into
the extension), run in this process: ``pip install batchdoku`` puts the
same ``batchdoku solve``, ``verify``, ``rate``... on ``PATH`` as ``cargo
install`` does, so a cluster that gets the wheel gets the ``RDD.pipe``
filter too.
"""

import sys


def main() -> None:
    from batchdoku._batchdoku import run_cli

    sys.exit(run_cli(sys.argv))


if __name__ == "__main__":
    main()
