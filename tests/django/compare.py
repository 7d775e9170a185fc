#!/usr/bin/env python3
"""Compares two runs of Django's test suite (runtests.py -v 2 output).

    compare.py MARIADB_LOG LARCH_LOG [--regressions FILE]

Reads each test's outcome from the verbose runner's lines
(`test_x (app.tests.Class.test_x) ... ok`, where a docstring's first line may
sit between the name and the outcome), and prints per app: the tests run, those
passed on MariaDB, on Larch, and the tests that pass on MariaDB but not on
Larch. "Passed" is `ok` or `expected failure`; skipped tests count as run but
not passed on either. A test missing from one log (the run stopped, or an app
failed to import) counts as not passed there.

With --regressions, the ids of the tests that pass on MariaDB and not on Larch
are written to FILE, one per line with Larch's outcome, followed by the
tracebacks Larch's log printed for them.

Exit status: 0 when no test passes on MariaDB and fails on Larch.
"""

import argparse
import re
import sys
from collections import defaultdict

# `name (dotted.id)` then optionally one docstring line, then ` ... outcome`.
OUTCOME = re.compile(
    r"^(?P<name>\w+) \((?P<id>[\w.]+)\)(?:\n(?!\w+ \([\w.]+\)).*?)?"
    r" \.\.\. (?P<outcome>ok|FAIL|ERROR|skipped|expected failure|unexpected success)",
    re.M,
)
# The header of each failure's traceback in the summary.
TRACEBACK = re.compile(r"^(?:ERROR|FAIL): (\w+) \(([\w.]+)\)", re.M)
PASSED = ("ok", "expected failure")


def outcomes(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except FileNotFoundError:
        return {}, ""
    found = {}
    for m in OUTCOME.finditer(text):
        test_id = m.group("id")
        # subTest failures repeat the id; the worst outcome stays.
        if found.get(test_id) in ("FAIL", "ERROR"):
            continue
        found[test_id] = m.group("outcome")
    return found, text


def tracebacks(text):
    """Test id -> the traceback text the runner printed for it."""
    parts = {}
    heads = list(TRACEBACK.finditer(text))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[m.start() : end]
        cut = body.find("\n----------------------------------------------------------------------\nRan ")
        if cut >= 0:
            body = body[:cut]
        parts.setdefault(m.group(2), body.strip())
    return parts


def app_of(test_id):
    return test_id.split(".", 1)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mariadb")
    ap.add_argument("larch")
    ap.add_argument("--regressions")
    args = ap.parse_args()

    maria, _ = outcomes(args.mariadb)
    larch, larch_text = outcomes(args.larch)
    apps = defaultdict(lambda: [0, 0, 0, 0])  # run, mariadb, larch, regressions
    regressions = []
    for test_id in sorted(set(maria) | set(larch)):
        row = apps[app_of(test_id)]
        row[0] += 1
        m_ok = maria.get(test_id) in PASSED
        l_ok = larch.get(test_id) in PASSED
        row[1] += m_ok
        row[2] += l_ok
        if m_ok and not l_ok:
            row[3] += 1
            regressions.append((test_id, larch.get(test_id, "not run")))

    print(f"{'app':<20} {'tests':>6} {'MariaDB':>8} {'Larch':>8} {'lost':>6}")
    total = [0, 0, 0, 0]
    for app in sorted(apps):
        row = apps[app]
        total = [a + b for a, b in zip(total, row)]
        print(f"{app:<20} {row[0]:>6} {row[1]:>8} {row[2]:>8} {row[3]:>6}")
    print(f"{'total':<20} {total[0]:>6} {total[1]:>8} {total[2]:>8} {total[3]:>6}")
    both = total[1] - total[3]
    if total[1]:
        print(f"Larch passes {both} of the {total[1]} tests MariaDB passes ({100.0 * both / total[1]:.1f}%)")

    if args.regressions:
        tb = tracebacks(larch_text)
        with open(args.regressions, "w", encoding="utf-8") as f:
            for test_id, outcome in regressions:
                f.write(f"{test_id} {outcome}\n")
            f.write("\n")
            for test_id, _ in regressions:
                if test_id in tb:
                    f.write(tb[test_id] + "\n\n")
    return 0 if not regressions else 1


if __name__ == "__main__":
    sys.exit(main())
