#!/usr/bin/env python3
"""Scenario workloads of bench/compare/run.sh, one engine at a time (standard
library only; a minimal MySQL-protocol client is built in).

    scenarios.py settings MODE             one line per scenario: its sizes in MODE
    scenarios.py limit MODE SCENARIO       the time limit of one run of SCENARIO, s
    scenarios.py phases SCENARIO           its phases (run.sh restarts the server
                                           before each), "-" for one
    scenarios.py run SCENARIO --engine E --port P --pid PID --datadir DIR
                     --out OUTDIR --mode quick|full [--ps-mode auto|disable]
                     [--phase NAME]

Scenarios (see bench/README.md, "Scenario workloads"):
    long_report   hot pareto updates (sysbench oltp_update_index, 16 threads)
                  beside one REPEATABLE READ snapshot running SELECT AVG(k) at
                  growing snapshot ages
    many_index    ALTER TABLE ... ADD INDEX of 1, 8, 32 keys on a 35-column table
    many_tables   CREATE TABLE of N small tables, then one INSERT and SELECT each
    status        SHOW GLOBAL STATUS / SHOW ENGINE INNODB STATUS latency with 1
                  and many open idle connections
    rss_mixed     server RSS every second during a long oltp_read_write run
    connect       connections/s: connect + handshake + login + COM_QUIT in a
                  loop, one client, then N client processes in parallel, then
                  with one SELECT 1 per connection
    group_by_memory  a GROUP BY with many groups under a 64M tmp_table_size:
                  peak RSS, time, and a checksum of the answer
    result_memory  answers as large as the table (a scan, a sort without
                  LIMIT, a DISTINCT of few and of all rows, a materialized
                  derived table), read by a client that keeps none of the
                  rows: peak RSS, time, row count and a checksum
    analytics     scans, sorts and aggregates over two sysbench tables: AVG,
                  GROUP BY, ORDER BY ... LIMIT, LIKE '%..%', COUNT(DISTINCT),
                  an IN subquery and a join with GROUP BY; time and answer
                  checksum of each
    online_index  ALTER TABLE sbtest1 ADD INDEX (c), ADD INDEX (pad) with
                  sysbench oltp_write_only running beside it: the writers'
                  tps during the ALTER against before it, their errors, the
                  ALTER's time, and the new indexes checked against the table

`run` appends its figures to OUTDIR/scenarios.tsv (engine scenario step figure
value unit status), failures to OUTDIR/failures.tsv (engine workload step
message, the format run.sh uses), time series to OUTDIR/series/ and client
logs to OUTDIR/logs/. A failing step is recorded with the server's error text
and the scenario goes on with what does not depend on it. Every statement has
a time limit (a socket timeout, then KILL QUERY from a second connection), and
so has every sysbench process.
"""

import hashlib
import json
import os
import random
import re
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import zlib

HOST = "127.0.0.1"

# ---------------------------------------------------------------- sizes

# Per mode: the sizes in full mode, scaled down in quick mode so the
# whole quick run stays under 10 minutes on a 2-core machine.
SIZES = {
    "quick": {
        "long_report": {"rows": 100_000, "ages": [0, 10, 20], "limit": 15,
                        "threads": 16, "baseline": 3},
        "many_index": {"rows": 100_000, "keys": [1, 8, 32], "limit": 300, "settle": 15,
                       "sort_buffer": 64 << 20},
        "many_tables": {"tables": 1000},
        "status": {"conns": [1, 1000], "calls": 100},
        "rss_mixed": {"rows": 10_000, "time": 20, "threads": 16},
        "connect": {"time": 1.5, "rounds": 3, "clients": 8, "cap": 100_000},
        "group_by_memory": {"rows": 500_000, "limit_mb": 64, "query_limit": 600},
        "result_memory": {"rows": 500_000, "query_limit": 600},
        "online_index": {"rows": 200_000, "threads": 8, "baseline": 10, "limit": 600},
        "analytics": {"rows": 200_000, "repeat": 3, "limit": 300},
    },
    "full": {
        "long_report": {"rows": 1_000_000, "ages": [0, 30, 60, 120], "limit": 120,
                        "threads": 16, "baseline": 10},
        "many_index": {"rows": 1_000_000, "keys": [1, 8, 32], "limit": 3600, "settle": 60,
                       "sort_buffer": 64 << 20},
        "many_tables": {"tables": 10_000},
        "status": {"conns": [1, 1000], "calls": 300},
        "rss_mixed": {"rows": 1_000_000, "time": 900, "threads": 16},
        "connect": {"time": 10, "rounds": 3, "clients": 32, "cap": 500_000},
        "group_by_memory": {"rows": 5_000_000, "limit_mb": 64, "query_limit": 1800},
        "result_memory": {"rows": 5_000_000, "query_limit": 1800},
        "online_index": {"rows": 1_000_000, "threads": 8, "baseline": 20, "limit": 3600},
        "analytics": {"rows": 1_000_000, "repeat": 3, "limit": 1800},
    },
}
SCENARIOS = tuple(SIZES["quick"])

# Scenarios run in several phases, with a server restart before each.
PHASES = {"many_index": ["load", "build"]}

# Upper bound of one scenario on one engine, seconds (run.sh's time limit).
BOUND = {
    "quick": {"long_report": 600, "many_index": 1200, "many_tables": 900,
              "status": 300, "rss_mixed": 400, "connect": 180, "group_by_memory": 1200,
              "result_memory": 1200, "online_index": 1200, "analytics": 1200},
    "full": {"long_report": 3600, "many_index": 18000, "many_tables": 7200,
             "status": 900, "rss_mixed": 4000, "connect": 900, "group_by_memory": 7200,
             "result_memory": 7200, "online_index": 7200, "analytics": 7200},
}


def describe(mode, name):
    s = SIZES[mode][name]
    if name == "long_report":
        return (f"sbtest1 {s['rows']:,} rows (index k); sysbench oltp_update_index "
                f"--rand-type=pareto --threads={s['threads']}; SELECT AVG(k) at snapshot "
                f"ages {','.join(map(str, s['ages']))} s; query limit {s['limit']} s; "
                f"update rate without snapshot over {s['baseline']} s")
    if name == "many_index":
        return (f"35 columns, {s['rows']:,} rows; one ALTER TABLE with "
                f"{'/'.join(map(str, s['keys']))} ADD INDEX clauses; "
                f"innodb_sort_buffer_size={s['sort_buffer'] >> 20}M; RSS every 0.2 s "
                f"(after waiting at most {s['settle']} s for a steady RSS); "
                f"ALTER limit {s['limit']} s")
    if name == "online_index":
        return (f"sbtest1 {s['rows']:,} rows; sysbench oltp_write_only "
                f"--threads={s['threads']}; ALTER TABLE sbtest1 ADD INDEX ic (c), "
                f"ADD INDEX ipad (pad), LOCK=NONE after {s['baseline']} s of writes "
                f"alone; ALTER limit {s['limit']} s")
    if name == "analytics":
        return (f"sbtest1 and sbtest2, {s['rows']:,} rows each (sysbench prepare); "
                f"{len(ANALYTIC_QUERIES)} queries, median of "
                f"{s['repeat']} runs each; query limit {s['limit']} s")
    if name == "many_tables":
        return f"{s['tables']:,} tables (3 columns, 1 secondary index), one INSERT and one SELECT each"
    if name == "status":
        return (f"{' and '.join(map(str, s['conns']))} open connections; "
                f"{s['calls']} calls of each statement")
    if name == "rss_mixed":
        return (f"sysbench oltp_read_write, {s['rows']:,} rows, {s['threads']} threads, "
                f"{s['time']} s; RSS every 1 s")
    if name == "connect":
        return (f"connect + login + COM_QUIT, {s['rounds']} rounds of {s['time']:g} s "
                f"per step: 1 client, {s['clients']} client processes, 1 client with "
                f"one SELECT 1 per connection; at most {s['cap']:,} connections per "
                "step and round")
    if name == "group_by_memory":
        return (f"GROUP BY over {s['rows']:,} rows into {s['rows'] // 4:,} groups, "
                f"tmp_table_size = max_heap_table_size = {s['limit_mb']}M; peak RSS "
                f"(VmHWM); query limit {s['query_limit']} s")
    if name == "result_memory":
        return (f"{s['rows']:,} rows of about 80 bytes; SELECT *, SELECT * ORDER BY a "
                f"column without an index, SELECT DISTINCT of 1,000 values; peak RSS "
                f"(VmHWM); query limit {s['query_limit']} s")
    return "?"


# ---------------------------------------------------------------- MySQL client

class SqlError(Exception):
    def __init__(self, code, message):
        super().__init__(f"ERROR {code}: {message}")
        self.code = code
        self.message = message


class Conn:
    """One connection speaking the classic MySQL protocol (text queries only)."""

    CAPS = (0x1 | 0x4 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000)
    # LONG_PASSWORD LONG_FLAG PROTOCOL_41 TRANSACTIONS SECURE_CONNECTION
    # MULTI_RESULTS PLUGIN_AUTH

    def __init__(self, port, user="root", password="", db=None, timeout=30.0):
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.seq = 0
        self.server_version = ""
        self.thread_id = 0
        self.broken = False              # True when a timeout left it unusable
        self._handshake(user, password, db)

    # -- packets
    def _recv(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_packet(self):
        payload = b""
        while True:
            head = self._recv(4)
            n = head[0] | head[1] << 8 | head[2] << 16
            self.seq = (head[3] + 1) & 0xFF
            payload += self._recv(n)
            if n < 0xFFFFFF:
                return payload

    def write_packet(self, payload):
        out = b""
        while True:
            part, payload = payload[:0xFFFFFF], payload[0xFFFFFF:]
            out += struct.pack("<I", len(part))[:3] + bytes([self.seq])
            out += part
            self.seq = (self.seq + 1) & 0xFF
            if len(part) < 0xFFFFFF:
                break
        self.sock.sendall(out)

    @staticmethod
    def _error(p):
        code = struct.unpack_from("<H", p, 1)[0]
        msg = p[3:]
        if msg[:1] == b"#":
            msg = msg[6:]
        return SqlError(code, msg.decode("utf-8", "replace"))

    @staticmethod
    def _lenenc(p, i):
        c = p[i]
        if c < 0xFB:
            return c, i + 1
        if c == 0xFB:
            return None, i + 1
        if c == 0xFC:
            return struct.unpack_from("<H", p, i + 1)[0], i + 3
        if c == 0xFD:
            return int.from_bytes(p[i + 1:i + 4], "little"), i + 4
        return struct.unpack_from("<Q", p, i + 1)[0], i + 9

    @staticmethod
    def _scramble(password, salt):
        if not password:
            return b""
        h1 = hashlib.sha1(password.encode()).digest()
        h2 = hashlib.sha1(h1).digest()
        h3 = hashlib.sha1(salt + h2).digest()
        return bytes(a ^ b for a, b in zip(h1, h3))

    def _handshake(self, user, password, db):
        p = self.read_packet()
        if p[0] == 0xFF:
            raise self._error(p)
        if p[0] != 10:
            raise ConnectionError(f"unknown handshake protocol {p[0]}")
        end = p.index(b"\0", 1)
        self.server_version = p[1:end].decode("utf-8", "replace")
        i = end + 1
        self.thread_id = struct.unpack_from("<I", p, i)[0]
        salt = p[i + 4:i + 12]
        i += 13 + 2 + 1 + 2 + 2          # salt1, filler, caps lo, charset, status, caps hi
        alen = p[i]
        i += 1 + 10
        salt += p[i:i + max(13, alen - 8)].rstrip(b"\0")
        i += max(13, alen - 8)
        plugin = p[i:p.index(b"\0", i)] if b"\0" in p[i:] else p[i:]
        caps = self.CAPS | (0x8 if db else 0)
        auth = self._scramble(password, salt[:20])
        out = struct.pack("<IIB", caps, 1 << 24, 45) + b"\0" * 23
        out += user.encode() + b"\0" + bytes([len(auth)]) + auth
        if db:
            out += db.encode() + b"\0"
        out += (plugin or b"mysql_native_password") + b"\0"
        self.write_packet(out)
        while True:
            p = self.read_packet()
            if p[0] == 0x00:
                return
            if p[0] == 0xFF:
                raise self._error(p)
            if p[0] == 0xFE:                 # auth switch: plugin name, new salt
                j = p.index(b"\0", 1)
                salt = p[j + 1:].rstrip(b"\0")
                self.write_packet(self._scramble(password, salt[:20]))
                continue
            if p[0] == 0x01:                 # more auth data: nothing to add
                continue
            raise ConnectionError(f"unexpected auth packet 0x{p[0]:02x}")

    # -- commands
    def query(self, sql, timeout=None, digest=False):
        """Runs one statement; returns (column names, rows) or (None, affected).
        With digest, rows are not kept: (column names, (row count, checksum))
        instead, the checksum a sum of each row's CRC-32, so that it does not
        depend on the order of the rows."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        self.seq = 0
        self.write_packet(b"\x03" + sql.encode())
        return self.read_result(digest)

    def read_result(self, digest=False):
        """Reads the answer to the last command (see query)."""
        cols, rows = None, None
        while True:
            p = self.read_packet()
            if p[0] == 0xFF:
                raise self._error(p)
            if p[0] == 0x00:
                affected, i = self._lenenc(p, 1)
                _, i = self._lenenc(p, i)
                status = struct.unpack_from("<H", p, i)[0]
                if cols is None:
                    rows = affected
                if status & 0x08:
                    continue
                return cols, rows
            ncols, _ = self._lenenc(p, 0)
            names = []
            for _ in range(ncols):
                c = self.read_packet()
                j = 0
                vals = []
                for _ in range(5):           # catalog schema table org_table name
                    n, j = self._lenenc(c, j)
                    vals.append(c[j:j + n])
                    j += n
                names.append(vals[4].decode("utf-8", "replace"))
            p = self.read_packet()           # EOF after the column definitions
            if p[0] == 0xFF:
                raise self._error(p)
            out = []
            count, total = 0, 0
            while True:
                p = self.read_packet()
                if p[0] == 0xFE and len(p) < 9:
                    status = struct.unpack_from("<H", p, 3)[0] if len(p) >= 5 else 0
                    break
                if p[0] == 0xFF:
                    raise self._error(p)
                if digest:
                    count += 1
                    total = (total + zlib.crc32(p)) % (1 << 61)
                    continue
                j, row = 0, []
                while j < len(p):
                    n, j = self._lenenc(p, j)
                    if n is None:
                        row.append(None)
                    else:
                        row.append(p[j:j + n].decode("utf-8", "replace"))
                        j += n
                out.append(row)
            if cols is None:
                cols, rows = names, ((count, total) if digest else out)
            if not status & 0x08:
                return cols, rows

    def close(self):
        try:
            self.seq = 0
            self.write_packet(b"\x01")       # COM_QUIT
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass

    def quit(self, timeout=5.0):
        """COM_QUIT, then waits until the server has closed its end before
        closing this one: the server closes first, so the TIME_WAIT socket is
        the server's and the client's ephemeral port is free again at once.
        Returns True when the server closed within the timeout."""
        closed = False
        try:
            self.seq = 0
            self.write_packet(b"\x01")
            self.sock.settimeout(timeout)
            while True:
                if not self.sock.recv(4096):
                    closed = True
                    break
        except OSError:
            pass
        finally:
            try:
                self.sock.close()
            except OSError:
                pass
        return closed


def one_line(e):
    return str(e).replace("\t", " ").replace("\n", " ")[:600]


# ---------------------------------------------------------------- the run

class Run:
    """One scenario on one engine: output files, monitoring, helpers."""

    def __init__(self, args):
        self.engine = args["engine"]
        self.port = int(args["port"])
        self.pid = int(args["pid"])
        self.datadir = args["datadir"]
        self.out = args["out"]
        self.mode = args["mode"]
        self.ps_mode = args.get("ps-mode", "auto")
        self.scenario = args["scenario"]
        self.phase = args.get("phase", "")
        self.size = SIZES[self.mode][self.scenario]
        os.makedirs(os.path.join(self.out, "series"), exist_ok=True)
        os.makedirs(os.path.join(self.out, "logs"), exist_ok=True)

    # -- output
    def rec(self, step, figure, value, unit, status="ok"):
        if isinstance(value, float):
            value = f"{value:.6g}"
        elif value is None:
            value = "NA"
        with open(os.path.join(self.out, "scenarios.tsv"), "a") as f:
            f.write(f"{self.engine}\t{self.scenario}\t{step}\t{figure}\t{value}\t{unit}\t{status}\n")

    def fail(self, step, message):
        msg = one_line(message)
        with open(os.path.join(self.out, "failures.tsv"), "a") as f:
            f.write(f"{self.engine}\t{self.scenario}\t{step}\t{msg}\n")
        self.log(f"FAILED {step}: {msg}")

    def log(self, text):
        sys.stderr.write(f"[{time.strftime('%H:%M:%S', time.gmtime())}] "
                         f"{self.engine} {self.scenario}: {text}\n")
        sys.stderr.flush()

    def series_path(self, name):
        return os.path.join(self.out, "series", f"{self.scenario}-{self.engine}{name}.tsv")

    # -- server facts
    def rss_kb(self, field="VmRSS"):
        """The server's RSS (or another /proc/PID/status field, in kB)."""
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def alive(self):
        try:
            os.kill(self.pid, 0)
            return True
        except OSError:
            return False

    def settle_rss(self, limit):
        """Waits (at most limit seconds) until the RSS stays within 2 MiB for
        2 s: memory a previous step is still giving back would otherwise show
        up as a negative increase of the next one. Returns the seconds waited."""
        t0 = time.monotonic()
        hist = []
        while time.monotonic() - t0 < limit:
            v = self.rss_kb()
            if v is None:
                break
            hist.append(v)
            if len(hist) >= 5 and max(hist[-5:]) - min(hist[-5:]) <= 2048:
                break
            time.sleep(0.5)
        return time.monotonic() - t0

    def undo_bytes(self):
        """Bytes of the undo tablespaces and the system tablespace (undo lives
        there when there are no separate undo tablespaces)."""
        total = 0
        try:
            for name in os.listdir(self.datadir):
                if re.fullmatch(r"(undo\d+|ibdata\d+)", name):
                    total += os.path.getsize(os.path.join(self.datadir, name))
        except OSError:
            return None
        return total

    def connect(self, db=None, timeout=30.0):
        return Conn(self.port, db=db, timeout=timeout)

    def kill_query(self, thread_id):
        try:
            c = self.connect(timeout=10)
            try:
                c.query(f"KILL QUERY {thread_id}", timeout=10)
            finally:
                c.close()
            return None
        except (OSError, SqlError, ConnectionError) as e:
            return one_line(e)

    def timed(self, conn, sql, limit, digest=False):
        """Runs sql with a time limit. Returns (seconds, result, None) or
        (seconds, None, error text); error text 'timeout' when it ran past the
        limit. After a timeout the statement is killed (KILL QUERY) and the
        connection, if it answered within 30 s, stays usable (conn.broken False)."""
        t0 = time.monotonic()
        try:
            res = conn.query(sql, timeout=limit, digest=digest)
            return time.monotonic() - t0, res, None
        except socket.timeout:
            secs = time.monotonic() - t0
            why = self.kill_query(conn.thread_id)
            conn.broken = True
            if why is None:
                # The killed statement answers with an error (or, when it ended
                # just before the kill, with its result): read that answer.
                try:
                    conn.sock.settimeout(30)
                    conn.read_result()
                    conn.broken = False
                except SqlError:
                    conn.broken = False
                except (OSError, ConnectionError):
                    pass
            return secs, None, "timeout" + ("" if why is None else f" (KILL QUERY failed: {why})")
        except SqlError as e:
            return time.monotonic() - t0, None, one_line(e)
        except (OSError, ConnectionError) as e:
            conn.broken = True
            return time.monotonic() - t0, None, one_line(e)

    def must(self, conn, sql, step, limit=120):
        """Runs sql; on error records the failure and returns None."""
        secs, res, err = self.timed(conn, sql, limit)
        if err is not None:
            self.fail(step, f"{err} [{sql[:120]}]")
            return None
        return res

    def history_length(self, conn):
        try:
            _, rows = conn.query("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'", timeout=30)
            if rows:
                return int(rows[0][1])
        except (SqlError, ValueError, OSError, ConnectionError):
            pass
        try:
            _, rows = conn.query("SHOW ENGINE INNODB STATUS", timeout=30)
            m = re.search(r"History list length (\d+)", rows[0][2] if rows else "")
            return int(m.group(1)) if m else None
        except (SqlError, OSError, ConnectionError, IndexError):
            return None

    # -- sysbench
    def sysbench(self, script, db, extra, logname, limit, wait=True):
        cmd = ["sysbench", script, "--db-driver=mysql", f"--mysql-host={HOST}",
               f"--mysql-port={self.port}", "--mysql-user=root", "--mysql-password=",
               f"--mysql-db={db}", "--tables=1", f"--db-ps-mode={self.ps_mode}"] + extra
        logf = open(os.path.join(self.out, "logs", logname), "w")
        # Same process group as this script: run.sh's time limit ends both.
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if not wait else logf,
                                stderr=subprocess.STDOUT, text=True)
        proc.logf = logf
        proc.started = time.monotonic()
        proc.limit = limit
        if not wait:
            return proc
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            stop(proc)
            rc = "timeout"
        logf.close()
        return rc

    def sysbench_error(self, logname):
        try:
            with open(os.path.join(self.out, "logs", logname), errors="replace") as f:
                text = f.read()
        except OSError:
            return "(no log)"
        keep = []
        for line in text.splitlines():
            if re.search(r"FATAL|ALERT|error", line) and line.strip() not in keep:
                keep.append(line.strip())
            if len(keep) >= 3:
                break
        return " | ".join(keep) or "(no error text; log logs/" + logname + ")"

    def prepare_sbtest(self, rows, step="prepare", tables=1):
        c = self.connect()
        try:
            if self.must(c, "DROP DATABASE IF EXISTS sbtest", step, 600) is None:
                return False
            if self.must(c, "CREATE DATABASE sbtest", step) is None:
                return False
        finally:
            c.close()
        logname = f"{self.engine}-{self.scenario}-prepare.log"
        t0 = time.monotonic()
        rc = self.sysbench("oltp_read_write", "sbtest",
                           [f"--table-size={rows}", f"--tables={tables}", "prepare"], logname, 120 + tables * rows // 500)
        if rc != 0:
            self.fail(step, f"sysbench prepare: exit {rc}: {self.sysbench_error(logname)}")
            return False
        self.rec("prepare", "load_s", time.monotonic() - t0, "s")
        return True

    def drop_db(self, db):
        try:
            c = self.connect()
            try:
                self.must(c, f"DROP DATABASE IF EXISTS {db}", "cleanup", 900)
            finally:
                c.close()
        except (OSError, SqlError, ConnectionError) as e:
            self.fail("cleanup", one_line(e))


def stop(proc, grace=15):
    """Ends a child process: SIGTERM, then SIGKILL after grace seconds. (Not
    SIGINT: run.sh starts this script in the background, where SIGINT is
    ignored, and so it is in the children.)"""
    if proc.poll() is not None:
        return proc.returncode
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
        try:
            proc.send_signal(sig)
        except OSError:
            pass
        try:
            return proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    return None


class RssSampler(threading.Thread):
    """VmRSS of the server every `interval` seconds, in a background thread."""

    def __init__(self, run, interval):
        super().__init__(daemon=True)
        self.run_ = run
        self.interval = interval
        self.samples = []          # (seconds since start, kB)
        self.t0 = time.monotonic()
        self.halt = threading.Event()

    def run(self):
        nxt = self.t0
        while not self.halt.is_set():
            v = self.run_.rss_kb()
            if v is not None:
                self.samples.append((time.monotonic() - self.t0, v))
            nxt += self.interval
            self.halt.wait(max(0.0, nxt - time.monotonic()))

    def finish(self):
        self.halt.set()
        self.join(timeout=5)
        v = self.run_.rss_kb()
        if v is not None:
            self.samples.append((time.monotonic() - self.t0, v))
        return self.samples

    def peak(self):
        return max((v for _, v in self.samples), default=None)


class TpsReader(threading.Thread):
    """Reads sysbench --report-interval=1 lines: (seconds since start, tps)."""

    LINE = re.compile(r"^\[\s*(\d+)s\s*\].*?\btps:\s*([\d.]+)")

    def __init__(self, proc):
        super().__init__(daemon=True)
        self.proc = proc
        self.points = []           # (monotonic time at the end of the interval, tps)
        self.text = []

    def run(self):
        for line in self.proc.stdout:
            self.proc.logf.write(line)
            self.text.append(line)
            m = self.LINE.match(line)
            if m:
                self.points.append((self.proc.started + int(m.group(1)), float(m.group(2))))

    def mean(self, t_from, t_to):
        """Mean tps of the 1-second intervals ending in (t_from, t_to + 1]."""
        vals = [v for t, v in self.points if t_from < t <= t_to + 1]
        return statistics.mean(vals) if vals else None


# ---------------------------------------------------------------- long_report

def long_report(r):
    s = r.size
    if not r.prepare_sbtest(s["rows"]):
        return
    mon = r.connect(db="sbtest")
    rep = r.connect(db="sbtest")
    rep.broken = False
    q = "SELECT AVG(k) FROM sbtest1"
    r.must(rep, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", "isolation")

    # Idle: no other traffic, a fresh snapshot each time; median of 3 after a warm-up.
    times = []
    for i in range(4):
        secs, res, err = r.timed(rep, q, s["limit"])
        if err is not None:
            r.fail("idle", f"{err} [{q}]")
            r.rec("idle", "query_s", secs if err == "timeout" else None, "s",
                  "timeout" if err == "timeout" else "fail")
            if rep.broken:
                return
            break
        if i:
            times.append(secs)
    if times:
        r.rec("idle", "query_s", statistics.median(times), "s")
    r.rec("idle", "history", r.history_length(mon), "logs")
    undo0 = r.undo_bytes()
    r.rec("idle", "undo_bytes", undo0, "B")
    r.rec("idle", "rss_kb", r.rss_kb(), "kB")

    # Updaters for the whole window.
    dur = s["baseline"] + 2 + max(s["ages"]) + s["limit"] * len(s["ages"]) + 30
    logname = f"{r.engine}-{r.scenario}-updates.log"
    proc = r.sysbench("oltp_update_index", "sbtest",
                      [f"--table-size={s['rows']}", f"--threads={s['threads']}",
                       "--rand-type=pareto", f"--time={dur}", "--report-interval=1", "run"],
                      logname, dur + 60, wait=False)
    reader = TpsReader(proc)
    reader.start()
    try:
        time.sleep(2)                        # connect and warm up
        tb = time.monotonic()
        time.sleep(s["baseline"])
        if proc.poll() is not None:
            reader.join(timeout=5)
            r.fail("updates", f"sysbench oltp_update_index exited {proc.returncode}: "
                   + one_line(" ".join(l.strip() for l in reader.text if re.search("FATAL|error", l))[:500]))
            return
        r.rec("no_snapshot", "update_tps", reader.mean(tb, time.monotonic() - 1), "tps")
        r.rec("no_snapshot", "history", r.history_length(mon), "logs")

        res = r.must(rep, "START TRANSACTION WITH CONSISTENT SNAPSHOT", "snapshot")
        if res is None:
            return
        t0 = time.monotonic()
        for age in s["ages"]:
            step = f"age{age}"
            wait = t0 + age - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if rep.broken:
                r.rec(step, "query_s", None, "s", "skipped")
                continue
            real_age = time.monotonic() - t0
            r.rec(step, "age_s", real_age, "s")
            r.rec(step, "history", r.history_length(mon), "logs")
            ub = r.undo_bytes()
            r.rec(step, "undo_bytes", ub, "B")
            r.rec(step, "undo_growth_bytes", None if ub is None or undo0 is None else ub - undo0, "B")
            r.rec(step, "rss_kb", r.rss_kb(), "kB")
            qs = time.monotonic()
            secs, res, err = r.timed(rep, q, s["limit"])
            qe = time.monotonic()
            if err is None:
                r.rec(step, "query_s", secs, "s")
                r.log(f"age {real_age:.0f} s: AVG(k) in {secs:.3f} s")
            elif err.startswith("timeout"):
                r.rec(step, "query_s", secs, "s", "timeout")
                r.log(f"age {real_age:.0f} s: AVG(k) stopped at the {s['limit']} s limit")
                if "KILL" in err or rep.broken:
                    r.fail(step, f"{err}; the snapshot's connection did not come back after "
                           "KILL QUERY: later ages skipped")
            else:
                r.rec(step, "query_s", None, "s", "fail")
                r.fail(step, f"{err} [{q}]")
            time.sleep(1.2)                  # let sysbench report the window's last second
            r.rec(step, "update_tps", reader.mean(qs, qe), "tps")
        if not rep.broken:
            r.must(rep, "COMMIT", "commit")
        r.rec("end", "history", r.history_length(mon), "logs")
        r.rec("end", "rss_kb", r.rss_kb(), "kB")
        if proc.poll() is not None:
            reader.join(timeout=5)
            r.fail("updates", f"sysbench oltp_update_index ended early (exit {proc.returncode}): "
                   + " | ".join(l.strip() for l in reader.text if re.search("FATAL|error", l))[:500])
    finally:
        stop(proc)
        reader.join(timeout=10)
        proc.logf.close()
        rep.close()
        mon.close()
    r.drop_db("sbtest")


# ---------------------------------------------------------------- many_index

COLUMNS = ([(f"i{n}", "INT") for n in range(1, 9)]
           + [(f"b{n}", "BIGINT") for n in range(1, 7)]
           + [(f"d{n}", "DOUBLE") for n in range(1, 7)]
           + [(f"e{n}", "ENUM('red','green','blue','cyan','magenta','yellow')") for n in range(1, 5)]
           + [(f"dt{n}", "DATE") for n in range(1, 5)]
           + [(f"v{n}", "VARCHAR(40)") for n in range(1, 7)])
assert len(COLUMNS) == 34                    # + the primary key: 35 columns
ENUMS = ("red", "green", "blue", "cyan", "magenta", "yellow")
KEYS = ["i1", "b1", "v1", "dt1", "e1,i2", "d1", "i3,b2", "v2,i4",
        "i5", "i6", "i7", "i8", "b3", "b4", "b5", "b6", "d2", "d3", "d4", "d5", "d6",
        "e2,dt2", "e3,dt3", "e4,v3", "dt4", "v4", "v5", "v6",
        "i1,i2,i3", "b1,d1", "v1,dt1", "i4,v5"]
assert len(KEYS) == 32


def row_values(rng, ident):
    v = [str(ident)]
    v += [str(rng.randint(-2**31, 2**31 - 1)) for _ in range(8)]
    v += [str(rng.randint(-2**62, 2**62)) for _ in range(6)]
    v += [repr(rng.uniform(-1e6, 1e6)) for _ in range(6)]
    v += ["'" + ENUMS[rng.randrange(6)] + "'" for _ in range(4)]
    v += ["'%04d-%02d-%02d'" % (rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28))
          for _ in range(4)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    v += ["'" + "".join(rng.choices(letters, k=rng.randint(4, 40))) + "'" for _ in range(6)]
    return "(" + ",".join(v) + ")"


def many_index(r):
    """Phase load: create and fill t35. Phase build (run.sh restarts the server
    in between, so the build's RSS is not mixed with memory left by the load):
    the ALTERs."""
    if r.phase == "load":
        many_index_load(r)
    else:
        many_index_build(r)


def many_index_load(r):
    s = r.size
    c = r.connect()
    try:
        if r.must(c, "DROP DATABASE IF EXISTS mi", "create", 600) is None:
            return
        if r.must(c, "CREATE DATABASE mi", "create") is None:
            return
        r.must(c, "USE mi", "create")
        ddl = ("CREATE TABLE t35 (id BIGINT NOT NULL PRIMARY KEY, "
               + ", ".join(f"{n} {t} NOT NULL" for n, t in COLUMNS) + ") ENGINE=InnoDB")
        if r.must(c, ddl, "create table") is None:
            return
        # Load: 500-row INSERTs, the same rows on both engines (fixed seed).
        rng = random.Random(35)
        t0 = time.monotonic()
        batch = 500
        for start in range(1, s["rows"] + 1, batch):
            n = min(batch, s["rows"] + 1 - start)
            sql = "INSERT INTO t35 VALUES " + ",".join(row_values(rng, start + k) for k in range(n))
            if r.must(c, sql, "load", 300) is None:
                return
        r.rec("load", "load_s", time.monotonic() - t0, "s")
        r.rec("load", "rss_kb", r.rss_kb(), "kB")
    finally:
        c.close()


def many_index_build(r):
    s = r.size
    c = r.connect()
    try:
        try:
            c.query("USE mi", timeout=30)
            _, rows = c.query("SELECT COUNT(*) FROM t35", timeout=600)
            have = int(rows[0][0])
        except (SqlError, ValueError, OSError, ConnectionError) as e:
            r.fail("build", f"no table to index (the load failed?): {one_line(e)}")
            return
        if have != s["rows"]:
            r.fail("build", f"t35 has {have} rows, expected {s['rows']}")
        # The sort memory: MariaDB sorts each new index in its own
        # innodb_sort_buffer_size (a read-only startup option run.sh passes);
        # Larch sorts all of an ALTER's indexes in innodb_ddl_buffer_size per
        # build thread (innodb_ddl_threads), given the same figure.
        if r.engine == "larch":
            secs, res, err = r.timed(c, f"SET SESSION innodb_ddl_buffer_size = {s['sort_buffer']}", 30)
            if err is not None:
                r.fail("sort buffer", err)
        var = "innodb_ddl_buffer_size" if r.engine == "larch" else "innodb_sort_buffer_size"
        try:
            _, rows = c.query(f"SELECT @@{var}", timeout=30)
            r.rec("setup", var, int(rows[0][0]), "B")
            if r.engine == "larch":
                _, rows = c.query("SELECT @@innodb_ddl_threads", timeout=30)
                r.rec("setup", "innodb_ddl_threads", int(rows[0][0]), "threads")
        except (SqlError, ValueError, OSError, ConnectionError) as e:
            r.fail("sort buffer", one_line(e))
        r.rec("setup", "rss_restarted_kb", r.rss_kb(), "kB")
        # Bring the table into the buffer pool first (a clustered scan), so the
        # first ALTER's RSS increase is not the table being read.
        secs, res, err = r.timed(c, "SELECT SUM(i1), COUNT(v6) FROM t35", 600)
        if err is None:
            r.rec("setup", "scan_s", secs, "s")
        else:
            r.fail("setup", f"{err} [SELECT SUM(i1), COUNT(v6) FROM t35]")
        r.rec("setup", "rss_kb", r.rss_kb(), "kB")
        ok = True
        for n in s["keys"]:
            step = f"keys{n}"
            if not ok:
                r.rec(step, "alter_s", None, "s", "skipped")
                continue
            names = [f"k{n}_{j}" for j in range(n)]
            r.rec(step, "rss_settle_s", r.settle_rss(s["settle"]), "s")
            sql = ("ALTER TABLE t35 " + ", ".join(
                f"ADD INDEX {nm} ({KEYS[j]})" for j, nm in enumerate(names)))
            base = r.rss_kb()
            samp = RssSampler(r, 0.2)
            samp.start()
            secs, res, err = r.timed(c, sql, s["limit"])
            samples = samp.finish()
            with open(r.series_path(f"-{step}"), "w") as f:
                f.write("seconds\trss_kb\n")
                for t, v in samples:
                    f.write(f"{t:.2f}\t{v}\n")
            peak = samp.peak()
            r.rec(step, "rss_before_kb", base, "kB")
            r.rec(step, "rss_peak_increase_kb",
                  None if peak is None or base is None else peak - base, "kB",
                  "ok" if err is None else "partial")
            if err is None:
                r.rec(step, "alter_s", secs, "s")
                r.log(f"ADD INDEX x{n}: {secs:.2f} s, RSS +{(peak - base) / 1024:.1f} MiB")
            else:
                r.rec(step, "alter_s", secs if err.startswith("timeout") else None, "s",
                      "timeout" if err.startswith("timeout") else "fail")
                r.fail(step, f"{err} [ALTER TABLE t35 ADD INDEX ... x{n}]")
                if getattr(c, "broken", False):
                    ok = False
                    continue
            r.rec(step, "rss_after_kb", r.rss_kb(), "kB")
            # Drop what was added (all of it, whatever the ALTER got through).
            try:
                _, rows = c.query("SHOW INDEX FROM t35", timeout=60)
                have = sorted({row[2] for row in rows if row[2] != "PRIMARY"})
            except (SqlError, OSError, ConnectionError) as e:
                r.fail(step, f"SHOW INDEX: {one_line(e)}")
                ok = False
                continue
            if err is None and len(have) != n:
                r.fail(step, f"after adding {n} keys SHOW INDEX lists {len(have)}")
            if have:
                dsql = "ALTER TABLE t35 " + ", ".join(f"DROP INDEX {h}" for h in have)
                secs, res, derr = r.timed(c, dsql, s["limit"])
                if derr is None:
                    r.rec(step, "drop_s", secs, "s")
                else:
                    r.fail(step, f"drop: {derr}")
                    ok = False
    finally:
        c.close()
    r.drop_db("mi")


# ---------------------------------------------------------------- online_index

def online_index(r):
    """Writers beside an index build: sysbench oltp_write_only runs for the
    whole scenario; after a baseline window of writes alone, one ALTER adds
    two indexes with LOCK=NONE. Records the writers' mean tps before and
    during the ALTER (and their ratio), the errors sysbench reported, the
    ALTER's time, then CHECK TABLE and a count through each new index."""
    s = r.size
    if not r.prepare_sbtest(s["rows"]):
        return
    c = r.connect(db="sbtest")
    dur = 2 + s["baseline"] + s["limit"] + 30
    logname = f"{r.engine}-{r.scenario}-writes.log"
    proc = r.sysbench("oltp_write_only", "sbtest",
                      [f"--table-size={s['rows']}", f"--threads={s['threads']}",
                       f"--time={dur}", "--report-interval=1", "--mysql-ignore-errors=all",
                       "run"], logname, dur + 60, wait=False)
    reader = TpsReader(proc)
    reader.start()
    try:
        time.sleep(2)                        # connect and warm up
        tb = time.monotonic()
        time.sleep(s["baseline"])
        if proc.poll() is not None:
            reader.join(timeout=5)
            r.fail("writes", f"sysbench oltp_write_only exited {proc.returncode}: "
                   + one_line(" ".join(l.strip() for l in reader.text if re.search("FATAL|error", l))[:500]))
            return
        base = reader.mean(tb, time.monotonic() - 1)
        r.rec("baseline", "write_tps", base, "tps")
        sql = "ALTER TABLE sbtest1 ADD INDEX ic (c), ADD INDEX ipad (pad), LOCK=NONE"
        qs = time.monotonic()
        secs, res, err = r.timed(c, sql, s["limit"])
        qe = time.monotonic()
        if err is None:
            r.rec("alter", "alter_s", secs, "s")
        else:
            r.rec("alter", "alter_s", secs if err.startswith("timeout") else None, "s",
                  "timeout" if err.startswith("timeout") else "fail")
            r.fail("alter", f"{err} [{sql}]")
        time.sleep(1.2)                      # let sysbench report the window's last second
        during = reader.mean(qs, qe)
        r.rec("alter", "write_tps", during, "tps")
        r.rec("alter", "write_tps_ratio",
              None if not base or during is None else during / base, "ratio")
        errors = [float(m.group(1)) for t, m in (
            (l, re.search(r"err/s:\s*([\d.]+)", l)) for l in reader.text) if m]
        r.rec("alter", "writer_errors_per_s_max", max(errors) if errors else None, "err/s")
        r.log(f"ALTER beside writers: {secs:.2f} s; tps {base} before, {during} during")
    finally:
        stop(proc)
        reader.join(timeout=10)
        proc.logf.close()
    try:
        _, rows = c.query("CHECK TABLE sbtest1", timeout=s["limit"])
        status = " ".join(str(x) for x in rows[-1]) if rows else "(no answer)"
        r.rec("check", "check_table_ok", 1 if status.endswith("OK") else 0, "bool")
        if not status.endswith("OK"):
            r.fail("check", f"CHECK TABLE sbtest1: {status}")
        counts = {}
        for ix in ("PRIMARY", "ic", "ipad"):
            _, rows = c.query(f"SELECT COUNT(*) FROM sbtest1 FORCE INDEX ({ix})",
                              timeout=s["limit"])
            counts[ix] = int(rows[0][0])
        agree = len(set(counts.values())) == 1
        r.rec("check", "indexes_agree", 1 if agree else 0, "bool")
        if not agree:
            r.fail("check", f"row counts per index differ: {counts}")
    except (SqlError, ValueError, OSError, ConnectionError) as e:
        r.fail("check", one_line(e))
    finally:
        c.close()
    r.drop_db("sbtest")


# ---------------------------------------------------------------- analytics

# (step, query): issue 21's scans, sorts and aggregates over sysbench tables.
ANALYTIC_QUERIES = [
    ("avg", "SELECT AVG(k) FROM sbtest1"),
    ("group_k", "SELECT k, COUNT(*) FROM sbtest1 GROUP BY k ORDER BY COUNT(*) DESC, k LIMIT 5"),
    ("group_expr", "SELECT k % 100, COUNT(*) FROM sbtest1 GROUP BY k % 100 ORDER BY 1 LIMIT 3"),
    ("order_limit", "SELECT id, c FROM sbtest1 ORDER BY c LIMIT 10"),
    ("like", "SELECT COUNT(*) FROM sbtest1 WHERE c LIKE '%99%'"),
    ("count_distinct", "SELECT COUNT(DISTINCT k) FROM sbtest1"),
    ("in_subquery", "SELECT COUNT(*) FROM sbtest1 WHERE k IN (SELECT k FROM sbtest2 WHERE id < 1000)"),
    ("join_group", "SELECT a.k % 10, COUNT(*) FROM sbtest1 a JOIN sbtest2 b ON a.id = b.id "
                   "WHERE b.k > {half} GROUP BY a.k % 10 ORDER BY 1 LIMIT 3"),
]


def analytics(r):
    """Each of ANALYTIC_QUERIES `repeat` times on a warm server: the median
    time, and a CRC-32 of the answer's text (sysbench's rows are random, so
    it tells whether an engine's answers change, not whether the engines
    agree)."""
    s = r.size
    if not r.prepare_sbtest(s["rows"], tables=2):
        return
    c = r.connect(db="sbtest")
    try:
        for step, sql in ANALYTIC_QUERIES:
            sql = sql.replace("{half}", str(s["rows"] // 2))
            times, answer = [], None
            for _ in range(s["repeat"]):
                secs, res, err = r.timed(c, sql, s["limit"])
                if err is not None:
                    r.fail(step, f"{err} [{sql}]")
                    break
                times.append(secs)
                answer = res[1]
            if len(times) < s["repeat"]:
                if c.broken:
                    c.close()
                    c = r.connect(db="sbtest")
                continue
            r.rec(step, "query_s", statistics.median(times), "s")
            text = "\n".join("\t".join(str(v) for v in row) for row in answer)
            r.rec(step, "result_checksum", zlib.crc32(text.encode()), "")
            r.log(f"{step}: {statistics.median(times):.3f} s")
    finally:
        c.close()
    r.drop_db("sbtest")


# ---------------------------------------------------------------- many_tables

def many_tables(r):
    n = r.size["tables"]
    c = r.connect()
    try:
        if r.must(c, "DROP DATABASE IF EXISTS mt", "create", 600) is None:
            return
        if r.must(c, "CREATE DATABASE mt", "create") is None:
            return
        r.must(c, "USE mt", "create")
        base = r.rss_kb()
        r.rec("before", "rss_kb", base, "kB")
        t0 = time.monotonic()
        made = 0
        for i in range(n):
            sql = (f"CREATE TABLE t{i} (id INT NOT NULL PRIMARY KEY, a INT, b VARCHAR(64), "
                   "KEY ka (a)) ENGINE=InnoDB")
            if r.must(c, sql, f"create table {i + 1} of {n}", 60) is None:
                break
            made += 1
        secs = time.monotonic() - t0
        r.rec("create", "tables", made, "tables", "ok" if made == n else "partial")
        r.rec("create", "create_s", secs, "s", "ok" if made == n else "partial")
        if made:
            r.rec("create", "ms_per_table", secs * 1000 / made, "ms")
        after = r.rss_kb()
        r.rec("create", "rss_kb", after, "kB")
        if made and base is not None and after is not None:
            r.rec("create", "rss_per_table_kb", (after - base) / made, "kB")
        t0 = time.monotonic()
        touched = 0
        for i in range(made):
            if r.must(c, f"INSERT INTO t{i} VALUES (1, {i}, 'row of table {i}')",
                      f"insert into table {i + 1}", 60) is None:
                break
            res = r.must(c, f"SELECT id, b FROM t{i} WHERE a = {i}", f"select table {i + 1}", 60)
            if res is None:
                break
            if len(res[1]) != 1:
                r.fail("touch", f"SELECT from t{i} returned {len(res[1])} rows, expected 1")
                break
            touched += 1
        secs = time.monotonic() - t0
        r.rec("touch", "tables", touched, "tables", "ok" if touched == made else "partial")
        r.rec("touch", "touch_s", secs, "s", "ok" if touched == made else "partial")
        if touched:
            r.rec("touch", "ms_per_table", secs * 1000 / touched, "ms")
        after = r.rss_kb()
        r.rec("touch", "rss_kb", after, "kB")
        if touched and base is not None and after is not None:
            r.rec("touch", "rss_per_table_kb", (after - base) / touched, "kB")
        t0 = time.monotonic()
        secs, res, err = r.timed(c, "DROP DATABASE mt", 900)
        if err is None:
            r.rec("drop", "drop_s", secs, "s")
        else:
            r.fail("drop", err)
        r.rec("drop", "rss_kb", r.rss_kb(), "kB")
    finally:
        c.close()


# ---------------------------------------------------------------- status

def percentile(vals, p):
    vals = sorted(vals)
    if not vals:
        return None
    k = max(0, min(len(vals) - 1, int(round(p / 100 * len(vals) + 0.5)) - 1))
    return vals[k]


def status(r):
    s = r.size
    c = r.connect()
    idle = []
    try:
        for target in s["conns"]:
            step = f"conns{target}"
            t0 = time.monotonic()
            err = None
            while len(idle) < target - 1:
                try:
                    idle.append(r.connect(timeout=30))
                except (OSError, SqlError, ConnectionError) as e:
                    err = one_line(e)
                    break
            opened = len(idle) + 1
            if err is not None:
                r.fail(step, f"opened {opened} of {target} connections: {err}")
            if target > 1:
                r.rec(step, "open_s", time.monotonic() - t0, "s")
            r.rec(step, "connections", opened, "conns", "ok" if opened == target else "partial")
            time.sleep(1)
            r.rec(step, "rss_kb", r.rss_kb(), "kB")
            for name, sql in (("global_status", "SHOW GLOBAL STATUS"),
                              ("innodb_status", "SHOW ENGINE INNODB STATUS")):
                lat, nbytes, nrows, bad = [], 0, 0, None
                for i in range(s["calls"] + 5):
                    secs, res, e = r.timed(c, sql, 60)
                    if e is not None:
                        bad = e
                        break
                    if i >= 5:               # 5 warm-up calls
                        lat.append(secs * 1000)
                    nrows = len(res[1])
                    nbytes = sum(len(v or "") for row in res[1] for v in row)
                if bad is not None:
                    r.fail(step, f"{bad} [{sql}]")
                    r.rec(step, f"{name}_median_ms", None, "ms", "fail")
                    if getattr(c, "broken", False):
                        c.close()
                        c = r.connect()
                    continue
                r.rec(step, f"{name}_median_ms", statistics.median(lat), "ms")
                r.rec(step, f"{name}_p99_ms", percentile(lat, 99), "ms")
                r.rec(step, f"{name}_rows", nrows, "rows")
                r.rec(step, f"{name}_bytes", nbytes, "B")
                r.log(f"{opened} conns: {sql}: median {statistics.median(lat):.3f} ms, "
                      f"p99 {percentile(lat, 99):.3f} ms")
        if len(s["conns"]) >= 2:
            lo, hi = s["conns"][0], s["conns"][-1]
            # RSS per extra connection, from the two steps' RSS.
            vals = {}
            with open(os.path.join(r.out, "scenarios.tsv")) as f:
                for line in f:
                    p = line.rstrip("\n").split("\t")
                    if p[:2] == [r.engine, "status"] and p[3] == "rss_kb" and p[4] != "NA":
                        vals[p[2]] = int(p[4])
            a, b = vals.get(f"conns{lo}"), vals.get(f"conns{hi}")
            if a is not None and b is not None and len(idle) > 0:
                r.rec(f"conns{hi}", "rss_per_conn_kb", (b - a) / len(idle), "kB")
    finally:
        for x in idle:
            x.close()
        c.close()


# ---------------------------------------------------------------- rss_mixed

def rss_mixed(r):
    s = r.size
    if not r.prepare_sbtest(s["rows"]):
        return
    r.rec("start", "rss_kb", r.rss_kb(), "kB")
    logname = f"{r.engine}-{r.scenario}-run.log"
    samp = RssSampler(r, 1.0)
    samp.start()
    proc = r.sysbench("oltp_read_write", "sbtest",
                      [f"--table-size={s['rows']}", f"--threads={s['threads']}",
                       f"--time={s['time']}", "--report-interval=1", "--percentile=95", "run"],
                      logname, s["time"] + 120, wait=False)
    reader = TpsReader(proc)
    reader.start()
    try:
        rc = proc.wait(timeout=s["time"] + 120)
    except subprocess.TimeoutExpired:
        rc = stop(proc)
        r.fail("run", f"sysbench did not end within {s['time'] + 120} s")
    reader.join(timeout=10)
    proc.logf.close()
    samples = samp.finish()
    with open(r.series_path(""), "w") as f:
        f.write("seconds\trss_kb\ttps\n")
        tps = {int(round(t - proc.started)): v for t, v in reader.points}
        for t, v in samples:
            f.write(f"{t:.1f}\t{v}\t{tps.get(int(round(t)), '')}\n")
    text = "".join(reader.text)
    m = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    if rc != 0 or not m:
        r.fail("run", f"sysbench oltp_read_write exit {rc}: "
               + " | ".join(l.strip() for l in reader.text if re.search("FATAL|error", l))[:500])
    if m:
        r.rec("run", "tps", float(m.group(1)), "tps")
    if samples:
        vals = [v for _, v in samples]
        r.rec("run", "rss_first_kb", vals[0], "kB")
        r.rec("run", "rss_last_kb", vals[-1], "kB")
        r.rec("run", "rss_max_kb", max(vals), "kB")
        r.rec("run", "rss_growth_kb", vals[-1] - vals[0], "kB")
        # Growth rate over the second half of the run (after the warm-up).
        half = [(t, v) for t, v in samples if t >= samples[-1][0] / 2]
        if len(half) >= 3:
            ts = [t for t, _ in half]
            vs = [v for _, v in half]
            mt, mv = statistics.mean(ts), statistics.mean(vs)
            den = sum((t - mt) ** 2 for t in ts)
            if den > 0:
                slope = sum((t - mt) * (v - mv) for t, v in half) / den
                r.rec("run", "rss_slope_2nd_half_kb_per_min", slope * 60, "kB/min")
    time.sleep(1)
    r.rec("end", "rss_kb", r.rss_kb(), "kB")
    r.drop_db("sbtest")


# ---------------------------------------------------------------- group_by_memory

def peak_rss_reset(r):
    """Resets the server's peak RSS (VmHWM) to its RSS now; False if the
    kernel does not allow it (then VmHWM is the peak since start)."""
    try:
        with open(f"/proc/{r.pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def load_numbered(r, c, table, rows, select_list):
    """Fills table with rows 1..rows: INSERT ... SELECT select_list (over i)
    from a recursive CTE, 100,000 rows per statement; records the load time.
    False when a statement failed (recorded)."""
    t0 = time.monotonic()
    chunk = 100_000
    for lo in range(1, rows + 1, chunk):
        hi = min(lo + chunk - 1, rows)
        sql = (f"INSERT INTO {table} WITH RECURSIVE n(i) AS (SELECT {lo} "
               f"UNION ALL SELECT i + 1 FROM n WHERE i < {hi}) SELECT {select_list} FROM n")
        if r.must(c, sql, "prepare", 600) is None:
            return False
    r.rec("prepare", "load_s", time.monotonic() - t0, "s")
    return True


def group_by_memory(r):
    """A GROUP BY with many groups (4 rows each) whose answer is small (a
    HAVING keeps about 1 group in 250), under tmp_table_size and
    max_heap_table_size of limit_mb: the memory the grouping itself takes.
    The answer's checksum is recorded so the report shows both engines gave
    the same one."""
    s = r.size
    rows, groups = s["rows"], s["rows"] // 4
    c = r.connect()
    try:
        for sql in ("DROP DATABASE IF EXISTS gbm", "CREATE DATABASE gbm",
                    "CREATE TABLE gbm.t (id INT PRIMARY KEY, k INT NOT NULL, pad CHAR(40) NOT NULL)",
                    "SET SESSION max_recursive_iterations = 1000000"):
            if r.must(c, sql, "prepare") is None:
                return
        if not load_numbered(r, c, "gbm.t", rows, f"i, (i * 7919) % {groups}, REPEAT('x', 40)"):
            return
        limit = s["limit_mb"] << 20
        for sql in (f"SET SESSION tmp_table_size = {limit}",
                    f"SET SESSION max_heap_table_size = {limit}"):
            if r.must(c, sql, "query") is None:
                return
        r.settle_rss(30)
        before = r.rss_kb()
        r.rec("query", "rss_before_kb", before, "kB")
        reset = peak_rss_reset(r)
        sql = ("SELECT k, COUNT(*), SUM(id), MIN(pad) FROM gbm.t GROUP BY k "
               "HAVING SUM(id) % 1000 = 8")
        secs, res, err = r.timed(c, sql, s["query_limit"])
        if err is not None:
            r.fail("query", f"{err} [{sql}]")
            return
        r.rec("query", "query_s", secs, "s")
        peak = r.rss_kb("VmHWM")
        if reset and peak is not None and before is not None:
            r.rec("query", "rss_peak_kb", peak, "kB")
            r.rec("query", "rss_peak_increase_kb", peak - before, "kB")
        _, out = res
        r.rec("query", "result_rows", len(out), "rows")
        digest = 0
        for row in out:
            k, n, total = (int(v) for v in row[:3])
            digest = (digest + k * 1_000_003 + n * 7919 + total) % (1 << 61)
        r.rec("query", "result_checksum", digest, "")
        time.sleep(15)
        r.rec("end", "rss_kb", r.rss_kb(), "kB")
    finally:
        c.close()
    r.drop_db("gbm")


# ---------------------------------------------------------------- result_memory

def result_memory(r):
    """Answers as large as the table, read by a client that keeps none of
    the rows: the memory the server needs to produce and send them. Per
    query: time, peak RSS increase (VmHWM reset just before), rows and an
    order-independent checksum of the rows' bytes (the same on both engines
    means the same answer)."""
    s = r.size
    rows = s["rows"]
    c = r.connect()
    try:
        for sql in ("DROP DATABASE IF EXISTS rm", "CREATE DATABASE rm",
                    "CREATE TABLE rm.t (id INT PRIMARY KEY, k INT NOT NULL, pad CHAR(60) NOT NULL)",
                    "SET SESSION max_recursive_iterations = 1000000"):
            if r.must(c, sql, "prepare") is None:
                return
        if not load_numbered(r, c, "rm.t", rows, "i, (i * 7919) % 1000, "
                             "CONCAT((i * 104729) % 10000019, REPEAT('x', 50))"):
            return
        # `distinct_all`: every row distinct, the key set as large as the
        # table. `derived`: a derived table both engines materialize (the
        # LIMIT keeps MariaDB from merging it into the outer query).
        for step, sql in (("scan", "SELECT * FROM rm.t"),
                          ("sort", "SELECT * FROM rm.t ORDER BY pad"),
                          ("distinct", "SELECT DISTINCT k FROM rm.t"),
                          ("distinct_all", "SELECT DISTINCT pad FROM rm.t"),
                          ("derived", "SELECT x.* FROM (SELECT * FROM rm.t LIMIT 1000000000) x "
                                      "WHERE x.k <> -1")):
            r.settle_rss(30)
            before = r.rss_kb()
            r.rec(step, "rss_before_kb", before, "kB")
            reset = peak_rss_reset(r)
            secs, res, err = r.timed(c, sql, s["query_limit"], digest=True)
            if err is not None:
                r.fail(step, f"{err} [{sql}]")
                if getattr(c, "broken", False):
                    return
                continue
            r.rec(step, "query_s", secs, "s")
            peak = r.rss_kb("VmHWM")
            if reset and peak is not None and before is not None:
                r.rec(step, "rss_peak_kb", peak, "kB")
                r.rec(step, "rss_peak_increase_kb", peak - before, "kB")
            _, (count, checksum) = res
            r.rec(step, "result_rows", count, "rows")
            r.rec(step, "result_checksum", checksum, "")
        time.sleep(5)
        r.rec("end", "rss_kb", r.rss_kb(), "kB")
    finally:
        c.close()
    r.drop_db("rm")


# ---------------------------------------------------------------- connect

def connect_once(port, with_select=False, timeout=10.0):
    """One connection: TCP connect, handshake, login (root, empty password,
    mysql_native_password), optionally `SELECT 1`, then COM_QUIT and the wait
    for the server's close. Returns (seconds until the login's OK, seconds of
    the SELECT or None, seconds of the whole cycle, True when the server
    closed after COM_QUIT)."""
    t0 = time.perf_counter()
    c = Conn(port, timeout=timeout)
    t1 = time.perf_counter()
    q = None
    try:
        if with_select:
            _, rows = c.query("SELECT 1")
            if rows != [["1"]]:
                raise ConnectionError(f"SELECT 1 returned {rows!r}")
            q = time.perf_counter() - t1
    finally:
        closed = c.quit()
    return t1 - t0, q, time.perf_counter() - t0, closed


def connect_loop(port, deadline, cap, with_select=False, max_errors=50):
    """Connections one after the other until `deadline` (time.monotonic()) or
    `cap` attempts. A failed attempt is counted, and the loop gives up after
    `max_errors` of them."""
    out = {"n": 0, "errors": 0, "first_error": None, "unclosed": 0,
           "login": [], "cycle": [], "query": []}
    cpu0 = time.process_time()
    while out["n"] + out["errors"] < cap and time.monotonic() < deadline:
        try:
            login, q, cycle, closed = connect_once(port, with_select)
        except (OSError, SqlError, ConnectionError) as e:
            out["errors"] += 1
            out["first_error"] = out["first_error"] or f"{type(e).__name__}: {one_line(e)}"
            if out["errors"] >= max_errors:
                break
            time.sleep(0.05)
            continue
        out["n"] += 1
        out["unclosed"] += 0 if closed else 1
        out["login"].append(login)
        out["cycle"].append(cycle)
        if q is not None:
            out["query"].append(q)
    out["end"] = time.monotonic()
    out["cpu"] = time.process_time() - cpu0   # this client's own CPU time
    return out


def connect_parallel(port, clients, secs, cap):
    """`clients` forked client processes, each running connect_loop for `secs`
    seconds from a common start (at most cap / clients connections each).
    Returns (wall seconds from the start until the last one finished, the
    merged results); a process that does not report within secs + 60 s is
    killed and counted as `clients_lost`."""
    start = time.monotonic() + 0.3 + 0.02 * clients
    per = max(1, cap // clients)
    kids = {}
    for _ in range(clients):
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:                         # the client process
            code = 1
            try:
                os.close(rfd)
                time.sleep(max(0.0, start - time.monotonic()))
                res = connect_loop(port, start + secs, per)
                data = json.dumps(res).encode()
                view = memoryview(data)
                while view:
                    view = view[os.write(wfd, view):]
                code = 0
            except BaseException as e:       # noqa: BLE001 (reported, then exit)
                sys.stderr.write(f"connect client process: {type(e).__name__}: {e}\n")
            finally:
                os._exit(code)
        os.close(wfd)
        kids[rfd] = (pid, [])
    limit = start + secs + 60
    done = {}
    while len(done) < len(kids) and time.monotonic() < limit:
        ready, _, _ = select.select([fd for fd in kids if fd not in done], [], [],
                                    max(0.0, limit - time.monotonic()))
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if chunk:
                kids[fd][1].append(chunk)
            else:
                done[fd] = True
    merged = {"n": 0, "errors": 0, "first_error": None, "unclosed": 0,
              "login": [], "cycle": [], "query": [], "clients_lost": 0, "cpu": 0.0}
    end = start
    for fd, (pid, chunks) in kids.items():
        if fd not in done:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        os.close(fd)
        try:
            os.waitpid(pid, 0)
        except OSError:
            pass
        try:
            res = json.loads(b"".join(chunks)) if fd in done else None
        except ValueError:
            res = None
        if not res:
            merged["clients_lost"] += 1
            continue
        for k in ("n", "errors", "unclosed", "cpu"):
            merged[k] += res[k]
        for k in ("login", "cycle", "query"):
            merged[k] += res[k]
        merged["first_error"] = merged["first_error"] or res["first_error"]
        end = max(end, res["end"])
    return end - start, merged


def time_wait_sockets(port):
    """TCP sockets in TIME_WAIT whose local port is `port` (/proc/net/tcp)."""
    n = 0
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                p = line.split()
                if len(p) > 3 and p[3] == "06" and int(p[1].rsplit(":", 1)[1], 16) == port:
                    n += 1
    except (OSError, ValueError, StopIteration):
        return None
    return n


def cpu_seconds(pid):
    """User + system CPU time of process `pid` (all its threads), seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def open_fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def connect(r):
    s = r.size
    r.rec("before", "rss_kb", r.rss_kb(), "kB")
    r.rec("before", "fds", open_fds(r.pid), "fds")
    base = r.rss_kb()
    # Warm-up (not recorded): one client for 1 s.
    warm = connect_loop(r.port, time.monotonic() + 1.0, s["cap"])
    if warm["n"] == 0:
        r.fail("warm-up", f"no connection worked: {warm['first_error']}")
        return

    def seq(with_select):
        t0 = time.monotonic()
        res = connect_loop(r.port, t0 + s["time"], s["cap"], with_select)
        return res["end"] - t0, res

    par = f"par{s['clients']}"
    steps = [("seq", lambda: seq(False)),
             (par, lambda: connect_parallel(r.port, s["clients"], s["time"], s["cap"])),
             ("select1", lambda: seq(True))]
    # Rounds: every step once per round, so a burst of load from other
    # processes does not fall on one step only; the rate is the median round.
    acc = {name: {"rates": [], "n": 0, "errors": 0, "first_error": None,
                  "unclosed": 0, "clients_lost": 0, "cpu": 0.0, "server_cpu": 0.0,
                  "login": [], "cycle": [], "query": []} for name, _ in steps}
    for rnd in range(s["rounds"]):
        for name, run in steps:
            cpu0 = cpu_seconds(r.pid)
            wall, res = run()
            cpu1 = cpu_seconds(r.pid)
            a = acc[name]
            if a["server_cpu"] is not None and cpu0 is not None and cpu1 is not None:
                a["server_cpu"] += cpu1 - cpu0
            else:
                a["server_cpu"] = None
            a["rates"].append(res["n"] / wall if wall > 0 else 0.0)
            for k in ("n", "errors", "unclosed", "cpu"):
                a[k] += res[k]
            a["clients_lost"] += res.get("clients_lost", 0)
            for k in ("login", "cycle", "query"):
                a[k] += res[k]
            a["first_error"] = a["first_error"] or res["first_error"]
            r.log(f"round {rnd + 1}: {name}: {res['n']} connections in {wall:.2f} s = "
                  f"{res['n'] / wall if wall else 0:,.0f}/s, errors {res['errors']}")
            time.sleep(0.3)

    for name, _ in steps:
        a = acc[name]
        n = a["n"]
        bad = a["errors"] > 0 or a["clients_lost"] > 0
        if name == par:
            r.rec(name, "clients", s["clients"], "procs")
        r.rec(name, "connections", n, "conns", "partial" if bad else "ok")
        r.rec(name, "conn_per_s", statistics.median(a["rates"]) if n else None, "conn/s",
              "partial" if bad else "ok")
        if len(a["rates"]) > 1:
            r.rec(name, "conn_per_s_min", min(a["rates"]), "conn/s")
            r.rec(name, "conn_per_s_max", max(a["rates"]), "conn/s")
        for key, fig in (("login", "login"), ("cycle", "cycle"), ("query", "select")):
            if a[key]:
                ms = [x * 1000 for x in a[key]]
                r.rec(name, f"{fig}_median_ms", statistics.median(ms), "ms")
                r.rec(name, f"{fig}_p99_ms", percentile(ms, 99), "ms")
        if n:
            r.rec(name, "server_cpu_us", None if a["server_cpu"] is None
                  else a["server_cpu"] * 1e6 / n, "us")
            r.rec(name, "client_cpu_us", a["cpu"] * 1e6 / n, "us")
        r.rec(name, "errors", a["errors"], "conns")
        r.rec(name, "unclosed", a["unclosed"], "conns")
        if a["errors"]:
            r.fail(name, f"{a['errors']} failed connection(s); first: {a['first_error']}")
        if a["clients_lost"]:
            r.fail(name, f"{a['clients_lost']} client process(es) did not report")
        if a["unclosed"]:
            r.fail(name, f"{a['unclosed']} connection(s) not closed by the server "
                   "within 5 s of COM_QUIT")
    r.rec("rounds", "rss_kb", r.rss_kb(), "kB")
    # After: the server has had 2 s to finish closing.
    time.sleep(2)
    end = r.rss_kb()
    r.rec("end", "rss_kb", end, "kB")
    r.rec("end", "rss_growth_kb", None if end is None or base is None else end - base, "kB")
    r.rec("end", "fds", open_fds(r.pid), "fds")
    r.rec("end", "time_wait", time_wait_sockets(r.port), "sockets")


# ---------------------------------------------------------------- main

def main(argv):
    if len(argv) == 3 and argv[1] == "settings":
        for name in SCENARIOS:
            print(f"{name}\t{describe(argv[2], name)}")
        return 0
    if len(argv) == 4 and argv[1] == "limit" and argv[3] in SCENARIOS:
        print(BOUND[argv[2]][argv[3]])
        return 0
    if len(argv) == 3 and argv[1] == "phases" and argv[2] in SCENARIOS:
        print(" ".join(PHASES.get(argv[2], ["-"])))
        return 0
    if len(argv) < 3 or argv[1] != "run" or argv[2] not in SCENARIOS:
        sys.stderr.write(__doc__)
        return 2
    args = {"scenario": argv[2]}
    rest = argv[3:]
    while rest:
        if not rest[0].startswith("--") or len(rest) < 2:
            sys.stderr.write(__doc__)
            return 2
        args[rest[0][2:]] = rest[1]
        rest = rest[2:]
    for k in ("engine", "port", "pid", "datadir", "out", "mode"):
        if k not in args:
            sys.stderr.write(f"scenarios.py: --{k} missing\n")
            return 2
    r = Run(args)
    t0 = time.monotonic()
    try:
        globals()[r.scenario](r)
    except (OSError, SqlError, ConnectionError) as e:
        r.fail("scenario", f"{type(e).__name__}: {one_line(e)}"
               + ("" if r.alive() else "; the server exited"))
    r.rec("total", f"scenario_s{('_' + r.phase) if r.phase else ''}", time.monotonic() - t0, "s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
