#!/usr/bin/env python3
"""Check testdata/order.txt against Python's packaging library.

Not part of `go test`: run by hand when editing order.txt.

    python3 query/version/testdata/order.py            # verify every line
    python3 query/version/testdata/order.py --sort V.. # print a sorted chain

Uses `packaging` if installed, else the copy vendored inside pip
(pip._vendor.packaging), which is the same library.
"""
import os
import sys

try:
    from packaging.version import Version
except ImportError:
    from pip._vendor.packaging.version import Version


def verify(path):
    bad = 0
    n = 0
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            a, op, b = line.split()
            va, vb = Version(a), Version(b)
            ok = {"<": va < vb, "==": va == vb}[op]
            n += 1
            if not ok:
                bad += 1
                print(f"{path}:{lineno}: packaging disagrees: {line}")
    print(f"{n} lines checked, {bad} disagreements")
    return bad == 0


def chain(versions):
    vs = sorted(versions, key=Version)
    for a, b in zip(vs, vs[1:]):
        print(f"{a} {'==' if Version(a) == Version(b) else '<'} {b}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--sort":
        chain(sys.argv[2:])
    else:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.exit(0 if verify(os.path.join(here, "order.txt")) else 1)
