#!/usr/bin/env python3
"""Parsing and reporting for bench/compare/run.sh (standard library only).

    report.py parse LOG        one sysbench `run` log -> one tab-separated line:
                               tps qps lat_avg_ms lat_p95_ms errors reconnects
                               reads writes other
                               (exit 1 when the log has no final statistics)
    report.py failure LOG      the sysbench error text of a failed run, one line
    report.py summary OUTDIR   OUTDIR/summary.md and one PNG per workload
                               (gnuplot), from the files run.sh wrote there

Files read by `summary` (all tab-separated with a header line):
    results.tsv   engine workload threads tps qps lat_avg_ms lat_p95_ms errors rss_kb
                  (one line per timed run; NA for a failed run)
    runs.tsv      engine workload threads round position status reads writes other
                  reconnects log   (position: 1 = ran first in its pair, 2 = second)
    prepare.tsv   engine workload seconds status rss_kb
    failures.tsv  engine workload step message
    env.tsv       key value   (machine, versions, settings, commands)
"""

import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

ENGINES = ("mariadb", "larch")
LABEL = {"mariadb": "MariaDB", "larch": "Larch"}


# ---------------------------------------------------------------- parsing

def _num(pattern, text):
    m = re.search(pattern, text, re.MULTILINE)
    return float(m.group(1)) if m else None


def parse_log(text):
    """Figures of a sysbench 1.0 `run` output, or None without final statistics."""
    tps = _num(r"^\s*transactions:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    qps = _num(r"^\s*queries:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    avg = _num(r"^\s*avg:\s+([\d.]+)", text)
    p95 = _num(r"^\s*95th percentile:\s+([\d.]+)", text)
    if None in (tps, qps, avg, p95):
        return None
    return {
        "tps": tps,
        "qps": qps,
        "lat_avg_ms": avg,
        "lat_p95_ms": p95,
        "errors": int(_num(r"^\s*ignored errors:\s+(\d+)", text) or 0),
        "reconnects": int(_num(r"^\s*reconnects:\s+(\d+)", text) or 0),
        "reads": int(_num(r"^\s*read:\s+(\d+)", text) or 0),
        "writes": int(_num(r"^\s*write:\s+(\d+)", text) or 0),
        "other": int(_num(r"^\s*other:\s+(\d+)", text) or 0),
    }


def failure_text(text):
    """The first distinct error lines of a sysbench log, joined on one line."""
    keep = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if re.search(r"FATAL|ALERT|ERROR|error|Error|failed|timed out|Killed", s):
            s = re.sub(r"^\(last message repeated \d+ times\)$", "", s)
            if s and s not in keep:
                keep.append(s)
        if len(keep) >= 3:
            break
    if not keep:
        tail = [l.strip() for l in text.splitlines() if l.strip()][-2:]
        keep = tail or ["(no output)"]
    out = " | ".join(keep)
    out = out.replace("\t", " ")
    return out[:600]


# ---------------------------------------------------------------- reading

def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def read_env(path):
    env = {}
    for row in read_tsv(path):
        env[row["key"]] = row["value"]
    return env


def fnum(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def median(values):
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


# ---------------------------------------------------------------- formatting

def fmt(v, digits=None):
    if v is None:
        return "—"
    if digits is None:
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 100:
            return f"{v:.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return f"{v:.{digits}f}"


def ratio(larch, mariadb):
    if larch is None or mariadb is None or mariadb == 0:
        return None
    return larch / mariadb


def fmt_ratio(r):
    return "—" if r is None else f"**{r:.2f}**"


# ---------------------------------------------------------------- plots

def plot(outdir, workload, threads, cells):
    """PNG of transactions/s against threads for both engines (gnuplot)."""
    gp = shutil.which("gnuplot")
    if not gp:
        return None
    data = os.path.join(outdir, f"plot-{workload}.dat")
    with open(data, "w") as f:
        f.write("# threads mariadb_tps larch_tps\n")
        for t in threads:
            vals = []
            for e in ENGINES:
                v = cells.get((e, t), {}).get("tps")
                vals.append("?" if v is None else f"{v:.2f}")
            f.write(f"{t} {vals[0]} {vals[1]}\n")
    have = [e for i, e in enumerate(ENGINES)
            if any(cells.get((e, t), {}).get("tps") is not None for t in threads)]
    if not have:
        return None
    png = f"{workload}.png"
    series = {
        "mariadb": f"'{data}' using 1:2 with linespoints lw 2 pt 7 title 'MariaDB'",
        "larch": f"'{data}' using 1:3 with linespoints lw 2 pt 5 title 'Larch'",
    }
    script = f"""
set terminal pngcairo size 800,500 font ',10'
set output '{os.path.join(outdir, png)}'
set datafile missing '?'
set title '{workload}: throughput vs client threads (same machine, same run)' noenhanced
set xlabel 'client threads (sysbench --threads)'
set ylabel 'transactions per second'
set logscale x 2
set xtics ({", ".join(f"'{t}' {t}" for t in threads)})
set yrange [0:*]
set grid
set key top left
plot {", ".join(series[e] for e in have)}
"""
    try:
        subprocess.run([gp], input=script, text=True, check=True,
                       capture_output=True, timeout=60)
    except (subprocess.SubprocessError, OSError) as e:
        sys.stderr.write(f"report.py: gnuplot failed for {workload}: {e}\n")
        return None
    return png


# ---------------------------------------------------------------- summary

def summary(outdir):
    env = read_env(os.path.join(outdir, "env.tsv"))
    results = read_tsv(os.path.join(outdir, "results.tsv"))
    runs = read_tsv(os.path.join(outdir, "runs.tsv"))
    prepares = read_tsv(os.path.join(outdir, "prepare.tsv"))
    failures = read_tsv(os.path.join(outdir, "failures.tsv"))

    workloads = env.get("workloads", "").split(",")
    workloads = [w for w in workloads if w]
    threads = [int(t) for t in env.get("threads", "").split(",") if t]
    engines = [e for e in ENGINES if env.get(f"run_{e}", "1") == "1"]

    # Median of the rounds for every (workload, engine, threads).
    by = {}
    for r in results:
        key = (r["workload"], r["engine"], int(r["threads"]))
        by.setdefault(key, []).append(r)
    figs = ("tps", "qps", "lat_avg_ms", "lat_p95_ms", "errors", "rss_kb")
    cells = {}
    for key, rows in by.items():
        ok = [r for r in rows if fnum(r["tps"]) is not None]
        cell = {"n": len(ok), "runs": len(rows)}
        for f in figs:
            cell[f] = median([fnum(r[f]) for r in ok])
        if ok:
            tps = [fnum(r["tps"]) for r in ok]
            cell["tps_min"], cell["tps_max"] = min(tps), max(tps)
        cells[key] = cell

    L = []
    w = L.append
    w(f"# Larch vs MariaDB, side by side ({env.get('mode', '?')} mode)")
    w("")
    if len(engines) == 2:
        who = ("on one machine, both servers running during the whole run. "
               "Ratios are **Larch / MariaDB**: above 1 means Larch is higher "
               "(better for tps/qps, worse for latency and RSS).")
    else:
        who = (f"on one machine, {LABEL[engines[0]]} only "
               f"(--only-{engines[0]}): absolute figures, no ratios.")
    w(f"Run started {env.get('started', '?')}, finished {env.get('finished', '?')} "
      f"(UTC), {who} Every figure is the median of {env.get('rounds', '1')} round(s).")
    w("")

    # Headline table.
    if len(engines) == 2 and workloads and threads:
        w("## Throughput ratio (Larch tps / MariaDB tps)")
        w("")
        w("| workload | " + " | ".join(f"{t} thr" for t in threads) + " |")
        w("|---|" + "---|" * len(threads))
        for wl in workloads:
            row = []
            for t in threads:
                m = cells.get((wl, "mariadb", t), {}).get("tps")
                l = cells.get((wl, "larch", t), {}).get("tps")
                r = ratio(l, m)
                failed = any(f["workload"] in (wl, "-") for f in failures
                             if f["step"] != "cleanup")
                if r is None and ((wl, "larch", t) in cells or failed):
                    row.append("fail")
                elif r is None:
                    row.append("—")
                else:
                    row.append(f"{r:.2f}")
            w(f"| {wl} | " + " | ".join(row) + " |")
        w("")

    # Per-workload tables.
    for wl in workloads:
        w(f"## {wl}")
        w("")
        prep = {p["engine"]: p for p in prepares if p["workload"] == wl}
        if prep:
            parts = []
            for e in engines:
                p = prep.get(e)
                if p is None:
                    continue
                if p["status"] == "ok":
                    rss = fnum(p.get("rss_kb"))
                    parts.append(f"{LABEL[e]} {fmt(fnum(p['seconds']))} s"
                                 + (f" (RSS {fmt(rss / 1024)} MiB after)" if rss else ""))
                else:
                    parts.append(f"{LABEL[e]} failed")
            line = "Prepare (`sysbench ... prepare`, load of the table): " + ", ".join(parts)
            if len(engines) == 2 and all(prep.get(e, {}).get("status") == "ok" for e in engines):
                r = ratio(fnum(prep["larch"]["seconds"]), fnum(prep["mariadb"]["seconds"]))
                line += f"; time ratio {fmt_ratio(r)}"
            w(line + ".")
            w("")
        png = plot(outdir, wl, threads,
                   {(e, t): cells.get((wl, e, t), {}) for e in ENGINES for t in threads})
        head = ["threads"]
        for name in ("tps", "qps", "lat avg ms", "lat p95 ms", "RSS MiB"):
            for e in engines:
                head.append(f"{name} {LABEL[e]}")
            if len(engines) == 2:
                head.append(f"{name} L/M")
        for e in engines:
            head.append(f"errors {LABEL[e]}")
        w("| " + " | ".join(head) + " |")
        w("|" + "---|" * len(head))
        for t in threads:
            row = [str(t)]
            for f in ("tps", "qps", "lat_avg_ms", "lat_p95_ms", "rss_kb"):
                vals = []
                for e in engines:
                    c = cells.get((wl, e, t))
                    v = None if c is None else c.get(f)
                    if f == "rss_kb" and v is not None:
                        v = v / 1024
                    if c is None:
                        row.append("—")
                    elif c["n"] == 0:
                        row.append("fail")
                    else:
                        row.append(fmt(v))
                    vals.append(v)
                if len(engines) == 2:
                    row.append(fmt_ratio(ratio(vals[1], vals[0])))
            for e in engines:
                c = cells.get((wl, e, t))
                row.append("—" if c is None or c["n"] == 0 else f"{c['errors']:.0f}")
            w("| " + " | ".join(row) + " |")
        w("")
        spread = []
        for e in engines:
            for t in threads:
                c = cells.get((wl, e, t))
                if c and c["n"] > 1:
                    spread.append(f"{LABEL[e]} {t}: {fmt(c['tps_min'])}–{fmt(c['tps_max'])}")
        if spread:
            w("tps range over the rounds: " + "; ".join(spread) + ".")
            w("")
        # Query classification: sysbench counts a statement as read when it
        # returns a result set, write when it returns affected rows > 0.
        mix = {}
        for r in runs:
            if r["workload"] != wl or r["status"] != "ok":
                continue
            m = mix.setdefault(r["engine"], [0, 0, 0])
            for i, k in enumerate(("reads", "writes", "other")):
                m[i] += int(r[k] or 0)
        if len(mix) == 2:
            def share(v):
                tot = sum(v)
                return [x / tot if tot else 0 for x in v]
            sm, sl = share(mix["mariadb"]), share(mix["larch"])
            if any(abs(a - b) > 0.02 for a, b in zip(sm, sl)):
                w("**Query mix differs** (sysbench's read/write/other counters, "
                  "summed over the runs): MariaDB "
                  + "/".join(f"{x:.0%}" for x in sm) + ", Larch "
                  + "/".join(f"{x:.0%}" for x in sl)
                  + ". sysbench counts a statement as *read* when it returns a "
                  "result set (`mysql_stmt_field_count() > 0` with prepared "
                  "statements) and as *write* when it returns affected rows > 0: "
                  "a difference means one server answers the same statements "
                  "differently at the protocol level.")
                w("")
        if png:
            w(f"![{wl}]({png})")
            w("")

    # Failures.
    w("## Failures")
    w("")
    if failures:
        w("| engine | workload | step | sysbench / server error |")
        w("|---|---|---|---|")
        for f in failures:
            msg = f["message"].replace("|", "\\|")
            w(f"| {LABEL.get(f['engine'], f['engine'])} | {f['workload']} | {f['step']} | {msg} |")
    else:
        w("None.")
    w("")

    # Machine, versions, settings.
    w("## Machine")
    w("")
    for k, label in (("cpu_model", "CPU"), ("nproc", "CPUs (nproc)"),
                     ("mem_total", "memory"), ("kernel", "kernel"),
                     ("os", "OS"), ("scratch_fs", "scratch directory file system"),
                     ("load_start", "load average at start"),
                     ("load_end", "load average at end")):
        w(f"- {label}: {env.get(k, '?')}")
    w("")
    w("## Versions")
    w("")
    for k, label in (("sysbench_version", "sysbench"), ("mariadb_version", "MariaDB"),
                     ("larchd_version", "larchd"), ("git_commit", "git commit")):
        w(f"- {label}: `{env.get(k, '?')}`")
    w("")
    w("## Settings")
    w("")
    for k, label in (("workloads", "workloads"), ("threads", "threads"),
                     ("table_size", "table size (rows, `--tables=1`)"),
                     ("time", "seconds per timed run"), ("warmup", "warm-up seconds"),
                     ("rounds", "rounds"), ("ps_mode", "sysbench --db-ps-mode"),
                     ("buffer_pool", "innodb_buffer_pool_size"),
                     ("log_file_size", "innodb_log_file_size"),
                     ("flush_log", "innodb_flush_log_at_trx_commit"),
                     ("doublewrite", "innodb_doublewrite"),
                     ("page_size", "innodb_page_size")):
        w(f"- {label}: {env.get(k, '?')}")
    w("")
    for e in engines:
        if f"effective_{e}" in env:
            w(f"Effective settings reported by {LABEL[e]}: `{env[f'effective_{e}']}`")
            w("")
    w("Commands:")
    w("")
    w("```sh")
    for k in ("cmd_run", "cmd_mariadb_init", "cmd_mariadb", "cmd_larchd",
              "cmd_prepare", "cmd_warmup", "cmd_sysbench_run", "cmd_cleanup"):
        if k in env:
            w(env[k])
    w("```")
    w("")
    w("Method: after `prepare`, each engine gets one untimed warm-up run of the "
      "workload; then, for each thread count, MariaDB and Larch run one after "
      "the other, the order swapping at every thread count and every round, so "
      "drift of the machine (other processes, page cache, thermal) falls on both "
      "alike. RSS is `VmRSS` of the server process right after its run. Raw "
      "sysbench output: `logs/`; server error logs: `mariadb.err`, `larchd.err`.")
    w("")

    path = os.path.join(outdir, "summary.md")
    with open(path, "w") as f:
        f.write("\n".join(L))
    return path


def main(argv):
    if len(argv) == 3 and argv[1] == "parse":
        with open(argv[2], errors="replace") as f:
            r = parse_log(f.read())
        if r is None:
            return 1
        keys = ("tps", "qps", "lat_avg_ms", "lat_p95_ms", "errors", "reconnects",
                "reads", "writes", "other")
        print("\t".join(str(r[k]) for k in keys))
        return 0
    if len(argv) == 3 and argv[1] == "failure":
        with open(argv[2], errors="replace") as f:
            print(failure_text(f.read()))
        return 0
    if len(argv) == 3 and argv[1] == "summary":
        print(summary(argv[2]))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
