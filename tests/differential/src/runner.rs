//! Driving a run: start both servers, then rounds until the statement or
//! time budget is spent. A round creates a fresh database with two to four
//! random tables, fills them, and runs a few dozen generated statements
//! (queries, data changes, transaction control), each on both servers,
//! comparing every answer and, after each data change, both servers' table
//! contents. A mismatch outside the intentional differences is counted,
//! minimized (`minimize.rs`) while its category has few examples, and ends
//! the round when the servers' states may have diverged.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::ast::{Query, Stmt};
use crate::compare::{self, Mismatch, Order};
use crate::exec::{self, Row};
use crate::gen::dml::TxnState;
use crate::gen::Gen;
use crate::report::Stats;
use crate::schema::Table;
use crate::server::{self, Server};
use crate::{known, Error};

/// Set to end the run early (at the next statement).
pub static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// What a run does.
#[derive(Clone, Debug)]
pub struct Config {
    /// The RNG seed.
    pub seed: u64,
    /// Stop after this many statements.
    pub max_statements: u64,
    /// Stop after this long.
    pub duration: Duration,
    /// The larchd binary.
    pub larchd: PathBuf,
    /// Generator features switched off.
    pub disabled: BTreeSet<String>,
    /// Generated statements containing any of these texts (upper case)
    /// are skipped: a temporary switch for shapes of reported bugs.
    pub avoid: Vec<String>,
    /// Statements per round (after the fill).
    pub statements_per_round: usize,
    /// Time limit for minimizing one mismatch.
    pub minimize_time: Duration,
    /// Minimize the first this many mismatches of each category (later
    /// ones: the 32nd, 64th, 128th ...).
    pub minimize_per_category: u64,
    /// Print progress every this long (None: quiet).
    pub progress: Option<Duration>,
    /// Rewrite the output directory's summary this often while running.
    pub out_dir: Option<PathBuf>,
    /// Print each finding as it is minimized.
    pub print_findings: bool,
}

impl Config {
    /// Defaults for a run with `seed` against `larchd`.
    pub fn new(seed: u64, larchd: PathBuf) -> Config {
        Config {
            seed,
            max_statements: u64::MAX,
            duration: Duration::from_secs(60),
            larchd,
            disabled: BTreeSet::new(),
            avoid: Vec::new(),
            statements_per_round: 60,
            minimize_time: Duration::from_secs(30),
            minimize_per_category: 3,
            progress: None,
            out_dir: None,
            print_findings: true,
        }
    }
}

/// One server and the round's connection to it.
pub struct Side {
    /// The server.
    pub server: Server,
    /// The connection the round runs on.
    pub conn: mysql::Conn,
}

/// A run in progress.
pub struct Runner {
    /// Its configuration.
    pub cfg: Config,
    /// The generator.
    pub gen: Gen,
    /// MariaDB.
    pub m: Side,
    /// Larch.
    pub l: Side,
    /// Counts and findings.
    pub stats: Stats,
    txn: TxnState,
    /// MariaDB's table contents after the last data change (index as
    /// `gen.tables`).
    snapshot: Vec<Vec<Row>>,
    /// The snapshot at BEGIN and the statements since, in a transaction.
    txn_base: Option<(Vec<Vec<Row>>, Vec<Stmt>)>,
    start: Instant,
    last_progress: Instant,
    log: Option<std::fs::File>,
}

/// What comparing one statement found.
#[derive(Debug, Default)]
pub struct Compared {
    /// The first difference.
    pub mismatch: Option<Mismatch>,
    /// After a data change: MariaDB's table contents, and whether Larch's
    /// differ.
    pub back: Option<(Vec<Vec<Row>>, bool)>,
    /// Both servers answered with an error.
    pub both_failed: bool,
}

/// The comparison order a statement's result has.
pub fn order_of(stmt: &Stmt) -> Order {
    fn q(q: &Query) -> Order {
        match q {
            Query::Select(s) if s.limit.is_some() && !s.order.is_empty() => Order::Limited,
            Query::Select(s) if !s.order.is_empty() => {
                Order::Keys(s.order.iter().map(|(k, _)| *k).collect())
            }
            Query::With { body, .. } => self::order_of(&Stmt::Query((**body).clone())),
            _ => Order::Unordered,
        }
    }
    match stmt {
        Stmt::Query(query) => q(query),
        _ => Order::Unordered,
    }
}

/// True when a server may legitimately show either of two values equal
/// under the collation (see `compare::answers`).
pub fn needs_fold(sql: &str) -> bool {
    let u = sql.to_ascii_uppercase();
    [
        "GROUP BY",
        "DISTINCT",
        "UNION",
        "INTERSECT",
        "EXCEPT",
        "MIN(",
        "MAX(",
    ]
    .iter()
    .any(|k| u.contains(k))
}

/// Runs `stmt` on both connections and compares everything: the answers,
/// the warnings, LAST_INSERT_ID() after an INSERT, and the contents of
/// `tables` after a data change.
pub fn compare_stmt(
    m: &mut mysql::Conn,
    l: &mut mysql::Conn,
    stmt: &Stmt,
    tables: &[Table],
) -> Compared {
    let sql = stmt.sql();
    let am = exec::run(m, &sql);
    let al = exec::run(l, &sql);
    let mut mm = compare::answers(&am, &al, &order_of(stmt), needs_fold(&sql));
    let both_failed = am.is_error() && al.is_error();
    if am.is_lost() || al.is_lost() {
        return Compared {
            mismatch: mm,
            back: None,
            both_failed,
        };
    }
    // Warnings of a statement over several tables depend on the join order
    // and access paths the optimizer picks (which rows and pairs of rows
    // an expression is evaluated on), so they are compared only for
    // statements that read at most one table.
    if mm.is_none()
        && !am.is_error()
        && (am.warnings > 0 || al.warnings > 0)
        && stmt.table_refs() <= 1
    {
        match (exec::warnings(m), exec::warnings(l)) {
            (Ok(wm), Ok(wl)) => mm = compare::warnings(&wm, &wl),
            (Ok(_), Err(e)) => {
                mm = Some(Mismatch {
                    category: "SHOW WARNINGS fails on Larch".into(),
                    detail: e.to_string(),
                })
            }
            _ => {}
        }
    }
    if mm.is_none() && stmt.is_insert() && !am.is_error() {
        if let (Ok(a), Ok(b)) = (exec::last_insert_id(m), exec::last_insert_id(l)) {
            if a != b {
                mm = Some(Mismatch {
                    category: "LAST_INSERT_ID()".into(),
                    detail: format!("MariaDB {a:?}, Larch {b:?}"),
                });
            }
        }
    }
    let mut back = None;
    if stmt.changes_data() {
        let mut all = Vec::new();
        let mut diverged = false;
        for t in tables {
            let sql = t.read_back_sql();
            let a = exec::rows(m, &sql).unwrap_or_default();
            match exec::rows(l, &sql) {
                Ok(b) => {
                    let types: Vec<String> = t
                        .columns
                        .iter()
                        .map(|c| {
                            if c.auto_inc {
                                "AUTO_INCREMENT".to_owned()
                            } else {
                                c.ty.sql()
                            }
                        })
                        .collect();
                    let d = compare::table_state(&t.name, &types, &a, &b);
                    diverged |= d.is_some();
                    if mm.is_none() {
                        mm = d;
                    }
                }
                Err(e) => {
                    diverged = true;
                    if mm.is_none() {
                        mm = Some(Mismatch {
                            category: "reading a table back fails on Larch".into(),
                            detail: e,
                        });
                    }
                }
            }
            all.push(a);
        }
        back = Some((all, diverged));
    }
    Compared {
        mismatch: mm,
        back,
        both_failed,
    }
}

impl Runner {
    /// Starts both servers.
    pub fn start(cfg: Config) -> Result<Runner, Error> {
        let mariadbd = server::mariadbd_program().ok_or("mariadbd is not installed")?;
        let ms = Server::start_mariadb(&mariadbd)?;
        let ls = Server::start_larchd(&cfg.larchd)?;
        let m = Side {
            conn: ms.connect()?,
            server: ms,
        };
        let l = Side {
            conn: ls.connect()?,
            server: ls,
        };
        let gen = Gen::new(StdRng::seed_from_u64(cfg.seed), cfg.disabled.clone());
        let stats = Stats {
            seed: cfg.seed,
            ..Stats::default()
        };
        Ok(Runner {
            cfg,
            gen,
            m,
            l,
            stats,
            txn: TxnState::default(),
            snapshot: Vec::new(),
            txn_base: None,
            start: Instant::now(),
            last_progress: Instant::now(),
            log: None,
        })
    }

    /// When the run's time budget ends.
    pub fn run_deadline(&self) -> Instant {
        self.start + self.cfg.duration
    }

    /// True once the statement or time budget is spent, or a stop was
    /// requested (SIGINT/SIGTERM in the soak command).
    pub fn done(&self) -> bool {
        self.stats.statements >= self.cfg.max_statements
            || self.start.elapsed() >= self.cfg.duration
            || STOP.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Runs rounds until the budget is spent.
    pub fn run(&mut self) -> Result<(), Error> {
        self.start = Instant::now();
        while !self.done() {
            self.round()?;
            self.stats.elapsed = self.start.elapsed();
        }
        self.stats.elapsed = self.start.elapsed();
        Ok(())
    }

    /// Restarts larchd when it died or stopped answering; reconnects.
    pub fn revive_larch(&mut self) -> Result<(), Error> {
        let alive = self.l.server.alive() && self.l.server.connect().is_ok();
        if !alive {
            eprintln!(
                "larch-differential: larchd died or hangs; restarting it\n{}",
                self.l.server.log_tail()
            );
            let program = self.l.server.program().to_owned();
            self.l.server.stop();
            self.l.server = Server::start_larchd(&program)?;
            self.stats.larchd_restarts += 1;
        }
        self.l.conn = self.l.server.connect()?;
        Ok(())
    }

    /// Restarts MariaDB (on a new data directory) when it died or stopped
    /// answering; reconnects.
    pub fn revive_mariadb(&mut self) -> Result<(), Error> {
        let alive = self.m.server.alive() && self.m.server.connect().is_ok();
        if !alive {
            eprintln!(
                "larch-differential: MariaDB died or hangs; restarting it\n{}",
                self.m.server.log_tail()
            );
            let program = self.m.server.program().to_owned();
            self.m.server.stop();
            self.m.server = Server::start_mariadb(&program)?;
            self.stats.mariadb_restarts += 1;
        }
        self.m.conn = self.m.server.connect()?;
        Ok(())
    }

    fn both(&mut self, sql: &str) -> Result<(), Error> {
        use mysql::prelude::Queryable;
        if let Err(e) = self.m.conn.query_drop(sql) {
            self.revive_mariadb()?;
            self.m
                .conn
                .query_drop(sql)
                .map_err(|e2| format!("MariaDB: {sql}: {e} / {e2}"))?;
        }
        if let Err(e) = self.l.conn.query_drop(sql) {
            self.revive_larch()?;
            self.l
                .conn
                .query_drop(sql)
                .map_err(|e2| format!("Larch: {sql}: {e} / {e2}"))?;
        }
        Ok(())
    }

    fn progress(&mut self) {
        let Some(every) = self.cfg.progress else {
            return;
        };
        if self.last_progress.elapsed() < every {
            return;
        }
        self.last_progress = Instant::now();
        self.stats.elapsed = self.start.elapsed();
        let secs = self.stats.elapsed.as_secs_f64().max(0.001);
        eprintln!(
            "larch-differential: {} statements ({:.0}/s), {} mismatches, {} findings",
            self.stats.statements,
            self.stats.statements as f64 / secs,
            self.stats.mismatches,
            self.stats.findings.len()
        );
        if let Some(dir) = &self.cfg.out_dir {
            if let Err(e) = self.stats.write_dir(dir) {
                eprintln!("larch-differential: writing {}: {e}", dir.display());
            }
        }
    }

    /// One round: fresh tables and data, then statements.
    fn round(&mut self) -> Result<(), Error> {
        self.stats.rounds += 1;
        self.txn = TxnState::default();
        self.txn_base = None;
        let n = 2 + self.gen.weighted(&[40, 40, 20]);
        self.gen.new_tables(n);
        self.both("DROP DATABASE IF EXISTS dt")?;
        self.both("CREATE DATABASE dt")?;
        self.both("USE dt")?;
        for t in self.gen.tables.clone() {
            let create = Stmt::Raw(t.create_sql());
            let c = compare_stmt(&mut self.m.conn, &mut self.l.conn, &create, &[]);
            self.stats.statements += 1;
            if let Some(mm) = c.mismatch {
                self.record_unminimized(&create, mm)?;
                return Ok(());
            }
        }
        self.snapshot = vec![Vec::new(); n];
        for t in self.gen.tables.clone() {
            let rows = 3 + self.gen.below(10);
            let fill = self.gen.fill(&t, rows);
            if !self.step(fill)? {
                return Ok(());
            }
        }
        for _ in 0..self.cfg.statements_per_round {
            if self.done() {
                break;
            }
            self.progress();
            let stmt = self.next_statement();
            if !self.step(stmt)? {
                break;
            }
        }
        if self.txn.open {
            let _ = self.both("ROLLBACK");
        }
        Ok(())
    }

    /// The next generated statement, skipping (up to 50 times) those that
    /// contain a text of `cfg.avoid`.
    fn next_statement(&mut self) -> Stmt {
        for attempt in 0.. {
            self.gen.start_statement();
            let w = if self.txn.open {
                [50, 35, 15]
            } else {
                [62, 30, if self.gen.on("txn") { 8 } else { 0 }]
            };
            let stmt = match self.gen.weighted(&w) {
                0 => Stmt::Query(self.gen.top_query().0),
                1 => self.gen.dml(),
                _ => {
                    let mut st = self.txn.clone();
                    let s = self.gen.txn_stmt(&mut st);
                    self.txn = st;
                    return s;
                }
            };
            if self.cfg.avoid.is_empty() || attempt >= 50 {
                return stmt;
            }
            let upper = stmt.sql().to_ascii_uppercase();
            if !self.cfg.avoid.iter().any(|a| upper.contains(a.as_str())) {
                return stmt;
            }
        }
        Stmt::Raw("SELECT 1".to_owned())
    }

    /// Runs and compares one statement; false when the round must end.
    fn step(&mut self, stmt: Stmt) -> Result<bool, Error> {
        let pre = if stmt.changes_data() {
            Some(self.snapshot.clone())
        } else {
            None
        };
        let tables = self.gen.tables.clone();
        let Compared {
            mismatch: mm,
            back,
            both_failed,
        } = compare_stmt(&mut self.m.conn, &mut self.l.conn, &stmt, &tables);
        self.stats.statements += 1;
        self.stats.both_failed += u64::from(both_failed && mm.is_none());
        let mut diverged = false;
        if let Some((b, d)) = back {
            self.snapshot = b;
            diverged = d;
        }
        let upper = stmt.sql().to_ascii_uppercase();
        let ends_txn = upper.starts_with("COMMIT") || upper == "ROLLBACK";
        // The transaction so far, before this statement (for a reproduction).
        let prior = self.txn_base.clone();
        if upper.starts_with("BEGIN") || upper.starts_with("START TRANSACTION") {
            self.txn_base = Some((self.snapshot.clone(), vec![stmt.clone()]));
        } else if ends_txn {
            self.txn_base = None;
        } else if let Some((_, prefix)) = &mut self.txn_base {
            prefix.push(stmt.clone());
        }
        let Some(mm) = mm else {
            return Ok(true);
        };
        if let Some(name) = known::classify(&stmt.sql(), &mm) {
            *self.stats.known.entry(name.to_owned()).or_default() += 1;
            return Ok(true);
        }
        if known::is_refusal(&mm) {
            *self.stats.refused.entry(mm.category.clone()).or_default() += 1;
            return Ok(true);
        }
        self.stats.mismatches += 1;
        let count = {
            let c = self
                .stats
                .by_category
                .entry(mm.category.clone())
                .or_default();
            *c += 1;
            *c
        };
        self.log_mismatch(&stmt, &mm);
        let lost = mm.category.starts_with("Larch connection lost");
        if lost {
            self.revive_larch()?;
        }
        if mm.category.starts_with("MariaDB connection lost") {
            // The reference crashed or hung: not Larch's mismatch. Noted,
            // MariaDB restarted if it died, and a new round.
            self.stats.mismatches -= 1;
            if let Some(c) = self.stats.by_category.get_mut(&mm.category) {
                *c -= 1;
                if *c == 0 {
                    self.stats.by_category.remove(&mm.category);
                }
            }
            if self.stats.mariadb_lost.len() < 10 {
                self.stats.mariadb_lost.push(stmt.sql());
            }
            self.revive_mariadb()?;
            return Ok(false);
        }
        // The first few of a category, then ever more rarely (32, 64, ...).
        if count <= self.cfg.minimize_per_category || (count >= 32 && count.is_power_of_two()) {
            let (data, prefix) = match prior {
                Some((base, prefix)) => (base, prefix),
                None => (pre.unwrap_or_else(|| self.snapshot.clone()), Vec::new()),
            };
            let repro = crate::minimize::Repro {
                tables,
                data,
                prefix,
                stmt,
                category: mm.category.clone(),
            };
            let at = format!("seed {} statement {}", self.cfg.seed, self.stats.statements);
            let finding = self.minimize(repro, mm, at)?;
            if self.cfg.print_findings {
                eprintln!(
                    "\n=== mismatch: {} ({})\n{}",
                    finding.category, finding.signature, finding.repro
                );
            }
            self.stats.add_finding(finding);
            // Minimizing used other connections and databases; start over.
            self.revive_mariadb()?;
            self.revive_larch()?;
            return Ok(false);
        }
        // Go on unless the servers' table contents now differ and cannot
        // be made equal again.
        Ok(!lost && (!diverged || self.resync()))
    }

    /// After Larch's tables came to differ from MariaDB's (outside a
    /// transaction): gives Larch MariaDB's contents so the round can go on.
    /// False when that fails (the round must end).
    fn resync(&mut self) -> bool {
        use mysql::prelude::Queryable;
        if self.txn.open {
            return false;
        }
        for (t, rows) in self.gen.tables.iter().zip(&self.snapshot) {
            let mut stmts = vec![format!("DELETE FROM `{}`", t.name)];
            stmts.extend(crate::minimize::insert_sql(t, rows));
            for s in stmts {
                if self.l.conn.query_drop(&s).is_err() {
                    return false;
                }
            }
            let back = exec::rows(&mut self.l.conn, &t.read_back_sql());
            if back.as_ref() != Ok(rows) {
                return false;
            }
        }
        true
    }

    /// Appends a mismatch to `mismatches.tsv` in the output directory.
    fn log_mismatch(&mut self, stmt: &Stmt, mm: &Mismatch) {
        use std::io::Write;
        let Some(dir) = &self.cfg.out_dir else { return };
        if self.log.is_none() {
            let _ = std::fs::create_dir_all(dir);
            self.log = std::fs::File::create(dir.join("mismatches.tsv")).ok();
        }
        if let Some(f) = &mut self.log {
            let flat = |s: &str| s.replace(['\n', '\t'], " ");
            let _ = writeln!(
                f,
                "{}\t{}\t{}",
                mm.category,
                flat(&stmt.sql()),
                flat(&mm.detail)
            );
        }
    }

    /// Records a mismatch of a statement that needs no minimizing (DDL).
    fn record_unminimized(&mut self, stmt: &Stmt, mm: Mismatch) -> Result<(), Error> {
        self.stats.mismatches += 1;
        *self
            .stats
            .by_category
            .entry(mm.category.clone())
            .or_default() += 1;
        if mm.category.starts_with("Larch connection lost") {
            self.revive_larch()?;
        }
        let sql = stmt.sql();
        self.stats.add_finding(crate::report::Finding {
            category: mm.category.clone(),
            signature: crate::report::signature(&sql),
            count: 1,
            repro: format!("{sql};\n-- {}", mm.detail.replace('\n', "\n-- ")),
            size: sql.len(),
            first_seen: format!("seed {} statement {}", self.cfg.seed, self.stats.statements),
        });
        Ok(())
    }
}
