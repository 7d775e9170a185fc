#!/usr/bin/env python3
"""alloc_calls.py: the heap allocations counted in callgrind output files.

    bench/compare/alloc_calls.py CALLGRIND_OUT...

Sums the calls (as callgrind records them, while instrumentation was on)
into the allocator's entry points: mimalloc's `mi_malloc_aligned`,
`mi_zalloc_aligned` and `mi_realloc_aligned` (what Rust's global allocator
calls), and the C library's `malloc`, `calloc` and `realloc`. A realloc
counts as one allocation, as the C library's counters do. Prints the total.
Used by instr_cost.sh.
"""
import re
import sys

ENTRY = {"mi_malloc_aligned", "mi_zalloc_aligned", "mi_realloc_aligned",
         "mi_malloc", "mi_zalloc", "mi_calloc", "mi_realloc",
         "malloc", "calloc", "realloc"}
DECL = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")

total = 0
for path in sys.argv[1:]:
    names = {}
    callee = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = DECL.match(line.rstrip("\n"))
            if m:
                ident, name = m.group(1), m.group(2)
                if name is not None:
                    names[ident] = name
                callee = names.get(ident) if line.startswith("cfn=") else None
                continue
            if line.startswith("calls=") and callee in ENTRY:
                total += int(line[6:].split()[0])
print(total)
