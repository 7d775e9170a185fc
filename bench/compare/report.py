#!/usr/bin/env python3
"""Parsing and reporting for bench/compare/run.sh (standard library only).

    report.py parse LOG        one sysbench `run` log -> one tab-separated line:
                               tps qps lat_avg_ms lat_p95_ms errors reconnects
                               reads writes other
                               (exit 1 when the log has no final statistics)
    report.py failure LOG      the sysbench error text of a failed run, one line
    report.py summary OUTDIR   OUTDIR/summary.md and one PNG per workload
                               (gnuplot), from the files run.sh and
                               scenarios.py wrote there

Files read by `summary` (all tab-separated with a header line):
    results.tsv   engine workload threads tps qps lat_avg_ms lat_p95_ms errors rss_kb
                  (one line per timed run; NA for a failed run)
    runs.tsv      engine workload threads round position status reads writes other
                  reconnects log   (position: 1 = ran first in its pair, 2 = second)
    prepare.tsv   engine workload seconds status rss_kb
    scenarios.tsv engine scenario step figure value unit status
                  (scenarios.py; status ok, timeout, partial, fail, skipped)
    series/       time series of the scenarios (RSS samples)
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


# ---------------------------------------------------------------- scenarios

SCENARIO_TEXT = {
    "long_report": (
        "Long report beside hot updates",
        "sysbench `oltp_update_index --rand-type=pareto` (16 threads) updates hot "
        "rows of `sbtest1` while one REPEATABLE READ transaction opened with "
        "`START TRANSACTION WITH CONSISTENT SNAPSHOT` runs `SELECT AVG(k) FROM "
        "sbtest1` at growing snapshot ages. *idle*: the same query with no other "
        "traffic (median of 3 after a warm-up); *no snapshot*: the update rate "
        "before the snapshot is taken. At each age: the snapshot's real age when "
        "the query starts (later than planned after a slow query), the query "
        "time (a query that runs past the limit is killed with KILL QUERY and "
        "shown as `≥ limit`), query time / idle time, the update rate while the "
        "query ran, the history list length (`Innodb_history_list_length`), the "
        "size of the undo and system tablespace files (`undo*`, `ibdata*` in "
        "the data directory) and its growth since idle, and the server RSS."),
    "many_index": (
        "Many-index build",
        "A 35-column table (BIGINT primary key; INT, BIGINT, DOUBLE, ENUM, DATE, "
        "VARCHAR columns), loaded with 500-row INSERTs (the same rows on both "
        "engines), then one `ALTER TABLE ... ADD INDEX` statement with 1, 8 and "
        "32 ADD INDEX clauses (single- and multi-column keys), each followed by "
        "one ALTER that drops them again. The server is restarted between the "
        "load and the ALTERs, and the table is read once (`SELECT SUM(i1), "
        "COUNT(v6)`, a clustered scan) before them. MariaDB sorts each new index "
        "in its own `innodb_sort_buffer_size` (64M); Larch sorts all of an ALTER's "
        "indexes in `innodb_ddl_buffer_size` (64M) per build thread "
        "(`innodb_ddl_threads`, 2). Before each ALTER the scenario waits (boundedly) until the RSS is "
        "steady, so memory still being given back after the load does not hide "
        "the build's own; RSS is then sampled every 0.2 s during the ALTER: the "
        "peak increase is the highest sample minus the RSS just before it."),
    "many_tables": (
        "Many tables",
        "`CREATE TABLE` of N small tables (`id INT PRIMARY KEY, a INT, b "
        "VARCHAR(64), KEY (a)`) one after the other on one connection, then per "
        "table one INSERT and one SELECT through the secondary index (*touch*), "
        "then `DROP DATABASE`. RSS per table: RSS increase since before the "
        "first CREATE, divided by N. MariaDB runs with its default "
        "`table_open_cache` (2000 here)."),
    "status": (
        "Status calls with idle connections",
        "Latency of `SHOW GLOBAL STATUS` and `SHOW ENGINE INNODB STATUS` on one "
        "connection (5 warm-up calls, then the median and the 99th percentile), "
        "with only that connection open and then with idle connections added "
        "(raw TCP connections that completed the login handshake) up to the "
        "count shown. Rows and bytes of the answers are given because the two "
        "servers do not return the same amount of text. RSS per connection: "
        "RSS increase from the first to the last step, divided by the idle "
        "connections added."),
    "rss_mixed": (
        "RSS over a long mixed run",
        "sysbench `oltp_read_write` (16 threads) for the whole run; the server "
        "RSS is sampled every second. Growth: last sample minus first; slope: "
        "least-squares RSS trend over the second half of the run (kB per "
        "minute), which leaves out the warm-up."),
    "connect": (
        "Connections per second",
        "One connection = TCP connect to 127.0.0.1, the server's handshake, "
        "login as root with an empty password (`mysql_native_password`), "
        "`COM_QUIT`, and the wait until the server has closed its end (the "
        "client closes last, so no client port is left in TIME_WAIT). Done in a "
        "loop for a fixed time: by one client (*1 client*), by N client "
        "processes at once (*N clients*; rate = all their connections / the "
        "time from their common start until the last one finished), and by one "
        "client that also runs `SELECT 1` on each connection before quitting. "
        "The three steps run in rounds (each step once per round); "
        "*connections/s* is the median round, the latencies are over all "
        "connections of all rounds. "
        "*login*: from the start of the TCP connect until the login's OK packet "
        "(median and 99th percentile); *whole connection*: from the same start "
        "until the server's close after COM_QUIT. *server CPU per connection*: the server process's CPU time "
        "(user + system, all threads, from `/proc/PID/stat`) over the step "
        "divided by its connections. The client is Python and shares the "
        "machine's CPUs with the server: *client CPU per connection* is its "
        "own CPU time (all client processes) per connection, which the rates "
        "include. The client does the same work against both servers, so its "
        "CPU per connection also gauges how fast the machine ran during the "
        "step: on a shared VM it can change several-fold from one minute to "
        "the next, and a step whose client CPU differs much between the "
        "engines ran on a differently loaded machine (compare the server CPU "
        "per connection relative to the client's then). The server is restarted before the scenario and "
        "warmed up with 1 s of connections; RSS and open file descriptors "
        "before, right after the rounds and 2 s after the last connection show "
        "what connections leave behind, *TIME_WAIT* counts the server's sockets in that state at the "
        "end. Ratios above 1 are better for connections/s, worse for times and "
        "RSS."),
    "result_memory": (
        "Memory of answers as large as the table",
        "A table of N rows (`id INT PRIMARY KEY, k INT, pad CHAR(60)`, `pad` "
        "distinct and not indexed) and three answers read by a client that "
        "keeps none of the rows: *scan* `SELECT * FROM t`, *sort* `SELECT * "
        "FROM t ORDER BY pad` (default `sort_buffer_size`), *distinct* `SELECT "
        "DISTINCT k FROM t` (1,000 values). *peak RSS increase*: the server's "
        "VmHWM after the query, reset to its RSS just before it; *answer "
        "checksum*: a sum of the rows' CRC-32, the same on both engines when "
        "they send the same rows."),
    "online_index": (
        "Writers beside an index build",
        "sysbench `oltp_write_only` (8 threads) runs for the whole scenario on "
        "sbtest1; after a window of writes alone (*baseline*), one `ALTER TABLE "
        "sbtest1 ADD INDEX ic (c), ADD INDEX ipad (pad), LOCK=NONE` runs beside "
        "them. *write rate*: sysbench's mean tps over each window; *ratio*: "
        "during / before (the target is at least 0.5); *writer errors*: the "
        "largest err/s sysbench reported (sysbench ignores errors here and "
        "goes on). Afterwards `CHECK TABLE` and a `COUNT(*)` through the "
        "primary key and each new index, which must agree."),
    "analytics": (
        "Scans, sorts and aggregates",
        "sbtest1 and sbtest2 of N rows each, prepared by sysbench, and eight queries, "
        "each run 3 times on the warm server: *avg* `SELECT AVG(k) FROM "
        "sbtest1`; *group_k* `GROUP BY k ORDER BY COUNT(*) DESC, k LIMIT 5`; "
        "*group_expr* `GROUP BY k % 100`; *order_limit* `ORDER BY c LIMIT 10`; "
        "*like* `COUNT(*) WHERE c LIKE '%99%'`; *count_distinct* "
        "`COUNT(DISTINCT k)`; *in_subquery* `k IN (SELECT k FROM sbtest2 WHERE "
        "id < 1000)`; *join_group* a primary-key join of the two tables with a "
        "filter (`b.k > N/2`) and `GROUP BY a.k % 10`. *query time*: the median; "
        "*answer checksum*: a CRC-32 of the answer's text (sysbench's rows are "
        "random, so the engines' checksums differ; an engine's own tells "
        "whether its answers change). Issue 21's target: Larch's time at most "
        "MariaDB's for each."),
    "group_by_memory": (
        "GROUP BY memory under tmp_table_size",
        "A table of N rows (`id INT PRIMARY KEY, k INT, pad CHAR(40)`, loaded "
        "with INSERT ... SELECT from a recursive CTE) and `SELECT k, COUNT(*), "
        "SUM(id), MIN(pad) FROM t GROUP BY k HAVING SUM(id) % 1000 = 8`: N/4 "
        "groups of 4 rows, of which about one in 250 is returned, with "
        "`tmp_table_size` and `max_heap_table_size` at 64M in the session. "
        "*peak RSS*: the server's VmHWM after the query, reset to its RSS just "
        "before it (`/proc/PID/clear_refs`); *RSS at the end*: 15 s later. "
        "*answer checksum*: a sum over the returned rows of k, the count and "
        "the sum; the same value on both engines means the same answer."),
}

FIG_TEXT = {
    "load_s": "load time", "query_s": "query time", "age_s": "snapshot age",
    "history": "history list length", "undo_bytes": "undo + system tablespace files",
    "undo_growth_bytes": "undo growth since idle", "rss_kb": "RSS",
    "update_tps": "update rate", "write_tps": "write rate",
    "write_tps_ratio": "write rate during / before",
    "writer_errors_per_s_max": "writer errors (largest err/s)",
    "check_table_ok": "CHECK TABLE OK", "indexes_agree": "counts through each index agree", "query_vs_idle": "query time / idle",
    "innodb_sort_buffer_size": "innodb_sort_buffer_size", "alter_s": "ALTER time",
    "innodb_ddl_buffer_size": "innodb_ddl_buffer_size", "innodb_ddl_threads": "innodb_ddl_threads",
    "drop_s": "drop time", "rss_before_kb": "RSS before",
    "rss_peak_increase_kb": "peak RSS increase", "rss_after_kb": "RSS after",
    "tables": "tables", "create_s": "time", "touch_s": "time",
    "ms_per_table": "time per table", "rss_per_table_kb": "RSS per table",
    "connections": "connections open", "open_s": "time to open them",
    "rss_per_conn_kb": "RSS per idle connection",
    "rss_settle_s": "wait for a steady RSS before", "tps": "sysbench tps",
    "rss_first_kb": "RSS first sample", "rss_last_kb": "RSS last sample",
    "rss_max_kb": "RSS max", "rss_growth_kb": "RSS growth",
    "rss_slope_2nd_half_kb_per_min": "RSS slope, 2nd half",
    "scenario_s": "whole scenario (wall time)",
    "scenario_s_load": "load phase (wall time)",
    "scenario_s_build": "build phase (wall time)",
    "rss_restarted_kb": "RSS after the restart",
    "scan_s": "first scan after the restart (cold)",
    "conn_per_s": "connections/s", "login_median_ms": "login median",
    "login_p99_ms": "login p99", "cycle_median_ms": "whole connection median",
    "cycle_p99_ms": "whole connection p99",
    "client_cpu_us": "client CPU per connection",
    "server_cpu_us": "server CPU per connection",
    "select_median_ms": "`SELECT 1` median", "select_p99_ms": "`SELECT 1` p99",
    "conn_per_s_min": "connections/s, slowest round",
    "conn_per_s_max": "connections/s, fastest round",
    "errors": "failed connections",
    "unclosed": "not closed by the server after COM_QUIT",
    "clients": "client processes", "fds": "open file descriptors",
    "time_wait": "server sockets in TIME_WAIT",
    "rss_peak_kb": "peak RSS", "result_rows": "rows returned",
    "result_checksum": "answer checksum",
}


def step_text(sc, step):
    m = re.fullmatch(r"age(\d+)", step)
    if m:
        return f"snapshot age {m.group(1)} s"
    m = re.fullmatch(r"keys(\d+)", step)
    if m:
        return f"ADD INDEX ×{m.group(1)}"
    m = re.fullmatch(r"conns(\d+)", step)
    if m:
        return f"{m.group(1)} connection(s)"
    m = re.fullmatch(r"par(\d+)", step)
    if m:
        return f"{m.group(1)} clients"
    if sc == "connect" and step in ("seq", "select1", "end"):
        return {"seq": "1 client", "select1": "1 client + `SELECT 1`",
                "end": "2 s after the last connection"}[step]
    return {"no_snapshot": "no snapshot", "total": "total", "touch": "touch",
            "end": "end", "rounds": "after the rounds"}.get(step, step)


def fig_text(fig):
    if fig in FIG_TEXT:
        return FIG_TEXT[fig]
    m = re.fullmatch(r"(global_status|innodb_status)_(median_ms|p99_ms|rows|bytes)", fig)
    if m:
        stmt = "SHOW GLOBAL STATUS" if m.group(1) == "global_status" else "SHOW ENGINE INNODB STATUS"
        what = {"median_ms": "median", "p99_ms": "p99", "rows": "rows",
                "bytes": "bytes of text"}[m.group(2)]
        return f"`{stmt}` {what}"
    return fig


def scale(unit, vals):
    """(divisor, shown unit) for a row's values."""
    big = max((abs(v) for v in vals if v is not None), default=0)
    if unit == "kB":
        return (1024, "MiB") if big >= 1024 else (1, "kB")
    if unit == "B":
        if big >= 1 << 20:
            return (1 << 20, "MiB")
        return (1024, "KiB") if big >= 1024 else (1, "B")
    if unit == "kB/min":
        return (1024, "MiB/min") if big >= 1024 else (1, "kB/min")
    if unit == "s" and big and big < 1:
        return (0.001, "ms")
    return (1, unit)


def scenario_rows(outdir, sc):
    """[(step, figure)] in order of appearance, and {(engine, step, figure): (value, unit, status)}."""
    order, vals = [], {}
    for r in read_tsv(os.path.join(outdir, "scenarios.tsv")):
        if r["scenario"] != sc:
            continue
        key = (r["step"], r["figure"])
        if key not in order:
            order.append(key)
        vals[(r["engine"], r["step"], r["figure"])] = (fnum(r["value"]), r["unit"], r["status"])
    order.sort(key=lambda k: k[0] == "total")    # wall times last
    return order, vals


def cell_text(v, div, status):
    if status == "skipped":
        return "skipped"
    if v is None:
        return "fail" if status in ("fail", "timeout") else "—"
    x = v / div
    if div == 1 and x == int(x):
        t = f"{x:,.0f}"
    elif x and abs(x) < 0.01:
        t = f"{x:.2g}"
    else:
        t = fmt(x)
    if status == "timeout":
        return f"≥ {t} (timeout)"
    if status == "partial":
        return f"{t} (partial)"
    return t


def scenario_ratio(l, m):
    """Larch / MariaDB of two (value, unit, status) cells, with ≥ / ≤ for timeouts."""
    if l is None or m is None or l[0] is None or m[0] is None or m[0] == 0:
        return "—"
    if "skipped" in (l[2], m[2]) or "fail" in (l[2], m[2]):
        return "—"
    if l[0] < 0 or m[0] < 0:                 # a shrinking figure: no meaningful ratio
        return "—"
    r = l[0] / m[0]
    lt, mt = l[2] == "timeout", m[2] == "timeout"
    if lt and mt:
        return "—"
    if mt:
        return f"**≤ {r:.2f}**"
    if lt:
        return f"**≥ {r:.2f}**"
    return f"**{r:.2f}**"


def scenario_section(outdir, sc, engines, env, w):
    title, text = SCENARIO_TEXT[sc]
    w(f"## {title} (`{sc}`)")
    w("")
    w(text)
    w("")
    if env.get(f"scenario_{sc}"):
        w(f"Sizes: {env[f'scenario_{sc}']}.")
        w("")
    order, vals = scenario_rows(outdir, sc)
    if sc == "long_report":
        # Derived: query time / idle query time per engine.
        for e in engines:
            idle = vals.get((e, "idle", "query_s"))
            for step, fig in list(order):
                if fig != "query_s" or not step.startswith("age"):
                    continue
                q = vals.get((e, step, "query_s"))
                if idle and idle[0] and idle[2] == "ok" and q and q[0] is not None:
                    vals[(e, step, "query_vs_idle")] = (q[0] / idle[0], "x", q[2])
        new = []
        for key in order:
            new.append(key)
            if key[1] == "query_s" and key[0].startswith("age"):
                new.append((key[0], "query_vs_idle"))
        order = new
    if not order:
        w("No figures (see the failures below).")
        w("")
        return
    head = ["step", "figure", "unit"] + [LABEL[e] for e in engines]
    if len(engines) == 2:
        head.append("Larch / MariaDB")
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    for step, fig in order:
        cells = [vals.get((e, step, fig)) for e in engines]
        if all(c is None for c in cells):
            continue
        unit = next(c[1] for c in cells if c is not None)
        div, shown = scale(unit, [c[0] for c in cells if c is not None])
        row = [step_text(sc, step), fig_text(fig), shown]
        for c in cells:
            row.append("—" if c is None else cell_text(c[0], div, c[2]))
        if len(engines) == 2:
            # The snapshot's age is a condition of the measurement, not a result.
            row.append("—" if fig == "age_s" else scenario_ratio(cells[1], cells[0]))
        w("| " + " | ".join(row) + " |")
    w("")
    png = {"long_report": plot_long_report, "many_index": plot_many_index,
           "rss_mixed": plot_rss_mixed}.get(sc)
    if png:
        name = png(outdir, engines, vals, order)
        if name:
            w(f"![{sc}]({name})")
            w("")


def gnuplot(outdir, name, script):
    gp = shutil.which("gnuplot")
    if not gp:
        return None
    try:
        subprocess.run([gp], input=script, text=True, check=True,
                       capture_output=True, timeout=60)
    except (subprocess.SubprocessError, OSError) as e:
        sys.stderr.write(f"report.py: gnuplot failed for {name}: {e}\n")
        return None
    return name


def read_series(outdir, sc, engine, suffix=""):
    rows = read_tsv(os.path.join(outdir, "series", f"{sc}-{engine}{suffix}.tsv"))
    return [(fnum(r["seconds"]), fnum(r["rss_kb"])) for r in rows
            if fnum(r["seconds"]) is not None and fnum(r["rss_kb"]) is not None]


STYLE = {"mariadb": "lc rgb '#1f77b4'", "larch": "lc rgb '#d62728'"}


def plot_long_report(outdir, engines, vals, order):
    series = []
    for e in engines:
        data = os.path.join(outdir, f"plot-long_report-{e}.dat")
        n = 0
        with open(data, "w") as f:
            f.write("# snapshot_age_s query_s completed(1)|timeout(0)\n")
            for step, fig in order:
                if fig != "query_s" or not step.startswith("age"):
                    continue
                q, age = vals.get((e, step, "query_s")), vals.get((e, step, "age_s"))
                if q is None or age is None or q[0] is None or age[0] is None:
                    continue
                f.write(f"{age[0]:.2f} {q[0]:.6f} {0 if q[2] == 'timeout' else 1}\n")
                n += 1
        if not n:
            continue
        series.append(f"'{data}' using 1:($3 == 1 ? $2 : 1/0) with linespoints lw 2 pt 7 "
                      f"{STYLE[e]} title '{LABEL[e]}'")
        series.append(f"'{data}' using 1:($3 == 0 ? $2 : 1/0) with points pt 9 ps 2 "
                      f"{STYLE[e]} title '{LABEL[e]}: stopped at the limit'")
        idle = vals.get((e, "idle", "query_s"))
        if idle and idle[0]:
            series.append(f"{idle[0]:.6f} with lines dt 2 {STYLE[e]} title '{LABEL[e]} idle'")
    if not series:
        return None
    png = "long_report.png"
    return gnuplot(outdir, png, f"""
set terminal pngcairo size 960,500 font ',10'
set output '{os.path.join(outdir, png)}'
set title 'long report: SELECT AVG(k) time vs snapshot age, hot updates running' noenhanced
set xlabel 'snapshot age when the query starts (s)'
set ylabel 'query time (s, log scale)'
set logscale y
set grid
set key outside right top
plot {", ".join(series)}
""")


def plot_many_index(outdir, engines, vals, order):
    steps = [s for s, f in order if f == "alter_s"]
    panels = []
    for e in engines:
        series = []
        for i, step in enumerate(steps):
            pts = read_series(outdir, "many_index", e, f"-{step}")
            if not pts:
                continue
            base = pts[0][1]
            data = os.path.join(outdir, f"plot-many_index-{e}-{step}.dat")
            with open(data, "w") as f:
                f.write("# seconds_since_alter_start rss_increase_mib\n")
                for t, v in pts:
                    f.write(f"{t:.2f} {(v - base) / 1024:.2f}\n")
            series.append(f"'{data}' using 1:2 with lines lw 2 dt {i + 1} "
                          f"title '{step_text('many_index', step)}'")
        if series:
            panels.append((e, series))
    if not panels:
        return None
    png = "many_index.png"
    body = ""
    for e, series in panels:
        body += (f"set title '{LABEL[e]}: RSS during ALTER TABLE ... ADD INDEX' noenhanced\n"
                 f"plot {', '.join(series)}\n")
    return gnuplot(outdir, png, f"""
set terminal pngcairo size {560 * len(panels)},450 font ',10'
set output '{os.path.join(outdir, png)}'
set multiplot layout 1,{len(panels)}
set xlabel 'seconds since the ALTER started'
set ylabel 'RSS increase (MiB)'
set grid
set key outside below
{body}unset multiplot
""")


def plot_rss_mixed(outdir, engines, vals, order):
    series = []
    for e in engines:
        pts = read_series(outdir, "rss_mixed", e)
        if not pts:
            continue
        data = os.path.join(outdir, f"plot-rss_mixed-{e}.dat")
        with open(data, "w") as f:
            f.write("# seconds rss_mib\n")
            for t, v in pts:
                f.write(f"{t:.1f} {v / 1024:.2f}\n")
        series.append(f"'{data}' using 1:2 with lines lw 2 {STYLE[e]} title '{LABEL[e]}'")
    if not series:
        return None
    png = "rss_mixed.png"
    return gnuplot(outdir, png, f"""
set terminal pngcairo size 800,500 font ',10'
set output '{os.path.join(outdir, png)}'
set title 'server RSS during sysbench oltp_read_write' noenhanced
set xlabel 'seconds since the run started'
set ylabel 'VmRSS (MiB)'
set yrange [0:*]
set grid
set key bottom right
plot {", ".join(series)}
""")


# ---------------------------------------------------------------- summary

def summary(outdir):
    env = read_env(os.path.join(outdir, "env.tsv"))
    results = read_tsv(os.path.join(outdir, "results.tsv"))
    runs = read_tsv(os.path.join(outdir, "runs.tsv"))
    prepares = read_tsv(os.path.join(outdir, "prepare.tsv"))
    failures = read_tsv(os.path.join(outdir, "failures.tsv"))

    workloads = env.get("workloads", "").split(",")
    scen_names = [w for w in workloads if w in SCENARIO_TEXT]
    workloads = [w for w in workloads if w and w not in SCENARIO_TEXT]
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

    for sc in scen_names:
        scenario_section(outdir, sc, engines, env, w)

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
                     ("page_size", "innodb_page_size"),
                     ("sort_buffer", "innodb_sort_buffer_size (MariaDB startup "
                      "option; Larch: innodb_ddl_buffer_size, SET SESSION in many_index)")):
        w(f"- {label}: {env.get(k, '?')}")
    for sc in scen_names:
        w(f"- scenario {sc}: {env.get('scenario_' + sc, '?')}")
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
