"""`python -m nsc ARGS...` (and the `nsc` console script of a pip install): the nsc command
line, run by the extension module."""
import sys

from . import _core


def main() -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
