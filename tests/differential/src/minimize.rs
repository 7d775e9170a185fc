//! Minimizing a mismatch into a self-contained reproduction. A `Repro` is
//! the tables (schema and MariaDB's contents before the statement, or at
//! BEGIN when inside a transaction), the statements since BEGIN, and the
//! statement that differed. Each trial replays it on fresh connections in
//! a scratch database `dr` on both servers and checks that the mismatch
//! category is unchanged. Reduction is greedy: statement simplifications
//! (`reduce.rs`), then dropping table rows (halves, quarters, ... single
//! rows), unreferenced tables and transaction statements, then the
//! statement once more, then table columns; bounded by the configured
//! time.

use std::fmt::Write;
use std::time::Instant;

use mysql::prelude::Queryable;

use crate::ast::Stmt;
use crate::compare::{type_name, Mismatch};
use crate::exec::{self, hex, Answer, Outcome, Row};
use crate::report::{signature, Finding};
use crate::runner::{compare_stmt, Runner};
use crate::schema::{quote, ColType, Table};
use crate::Error;

/// A reproduction candidate.
#[derive(Clone, Debug)]
pub struct Repro {
    /// The tables.
    pub tables: Vec<Table>,
    /// Their rows (as MariaDB returned them), index as `tables`.
    pub data: Vec<Vec<Row>>,
    /// Statements to run first (a transaction's BEGIN and what followed).
    pub prefix: Vec<Stmt>,
    /// The statement whose answers differ.
    pub stmt: Stmt,
    /// The mismatch category to preserve.
    pub category: String,
}

/// A cell as a SQL literal for a column of type `ty`.
fn literal(ty: &ColType, c: &Option<Vec<u8>>) -> String {
    let Some(b) = c else { return "NULL".to_owned() };
    match ty {
        ColType::Bit(_) => {
            let v = b.iter().fold(0u128, |acc, x| (acc << 8) | u128::from(*x));
            v.to_string()
        }
        ColType::Binary { .. } => format!("X'{}'", hex(b)),
        ColType::Int { .. } | ColType::Decimal { .. } | ColType::Float { .. } | ColType::Year => {
            String::from_utf8_lossy(b).into_owned()
        }
        _ => match std::str::from_utf8(b) {
            Ok(text) if !text.chars().any(char::is_control) => quote(text),
            // Control characters as a hex literal, so the reproduction is
            // plain text.
            _ => format!("X'{}'", hex(b)),
        },
    }
}

/// `INSERT INTO t VALUES ...` with `rows` (as read back), if any.
pub fn insert_sql(t: &Table, rows: &[Row]) -> Option<String> {
    if rows.is_empty() {
        return None;
    }
    let cols: Vec<String> = t.columns.iter().map(|c| format!("`{}`", c.name)).collect();
    let values: Vec<String> = rows
        .iter()
        .map(|r| {
            let v: Vec<String> = t
                .columns
                .iter()
                .zip(r)
                .map(|(c, cell)| literal(&c.ty, cell))
                .collect();
            format!("({})", v.join(", "))
        })
        .collect();
    Some(format!(
        "INSERT INTO `{}` ({}) VALUES\n  {}",
        t.name,
        cols.join(", "),
        values.join(",\n  ")
    ))
}

impl Repro {
    /// The setup statements: CREATE TABLE and INSERT for each table.
    pub fn setup(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (t, rows) in self.tables.iter().zip(&self.data) {
            out.push(t.create_sql());
            out.extend(insert_sql(t, rows));
        }
        out
    }

    /// A size measure: statement text plus rows.
    pub fn size(&self) -> usize {
        self.stmt.sql().len()
            + self.prefix.iter().map(|s| s.sql().len()).sum::<usize>()
            + 40 * self.data.iter().map(Vec::len).sum::<usize>()
    }

    /// All statements' text (prefix and statement).
    fn text(&self) -> String {
        let mut s: String = self.prefix.iter().map(|p| p.sql() + ";\n").collect();
        s.push_str(&self.stmt.sql());
        s
    }
}

fn describe(a: &Answer) -> String {
    match &a.outcome {
        Outcome::Rows { columns, rows } => {
            let cols: Vec<String> = columns
                .iter()
                .map(|c| {
                    format!(
                        "{} {}{}{}",
                        c.name,
                        type_name(c.type_code),
                        if c.unsigned { " UNSIGNED" } else { "" },
                        if c.binary { " binary" } else { "" }
                    )
                })
                .collect();
            let mut s = format!("columns: {}\n", cols.join(", "));
            for r in rows.iter().take(20) {
                let _ = writeln!(s, "{}", exec::show_row(r));
            }
            if rows.len() > 20 {
                let _ = writeln!(s, "... {} rows", rows.len());
            }
            let _ = write!(s, "({} rows, {} warnings)", rows.len(), a.warnings);
            s
        }
        Outcome::Ok {
            affected,
            insert_id,
        } => {
            format!(
                "OK, {affected} rows affected, insert id {insert_id}, {} warnings",
                a.warnings
            )
        }
        Outcome::Error { code, message } => format!("ERROR {code}: {message}"),
        Outcome::Lost(e) => format!("connection lost: {e}"),
    }
}

/// `s` as SQL comment lines, control characters written as `\xNN`.
fn comment(s: &str) -> String {
    s.lines()
        .map(|l| {
            let clean: String = l
                .chars()
                .map(|c| {
                    if c.is_control() {
                        format!("\\x{:02x}", u32::from(c))
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            format!("--   {clean}\n")
        })
        .collect()
}

impl Runner {
    /// Creates the scratch database `dr` with `r`'s tables on both servers.
    fn prepare(&mut self, r: &Repro) -> Result<(), Error> {
        let mut setup = vec![
            "DROP DATABASE IF EXISTS dr".to_owned(),
            "CREATE DATABASE dr".to_owned(),
            "USE dr".to_owned(),
        ];
        setup.extend(r.tables.iter().map(Table::create_sql));
        for larch in [false, true] {
            let server = if larch {
                &self.l.server
            } else {
                &self.m.server
            };
            let mut c = server.connect()?;
            for s in &setup {
                if let Err(e) = c.query_drop(s) {
                    if larch {
                        self.revive_larch()?;
                    }
                    return Err(format!("preparing a reproduction: {s}: {e}").into());
                }
            }
        }
        Ok(())
    }

    /// Replays `r` on fresh connections in the prepared database (every
    /// table truncated, `r`'s rows inserted); the mismatch it shows, if any.
    fn trial(&mut self, r: &Repro, all: &[Table]) -> Result<Option<Mismatch>, Error> {
        let mut setup = vec!["USE dr".to_owned()];
        // TRUNCATE also resets AUTO_INCREMENT counters, which earlier
        // trials advanced.
        setup.extend(all.iter().map(|t| format!("TRUNCATE TABLE `{}`", t.name)));
        setup.extend(r.setup().into_iter().filter(|s| s.starts_with("INSERT")));
        let mut conns = Vec::new();
        for larch in [false, true] {
            let server = if larch {
                &self.l.server
            } else {
                &self.m.server
            };
            let mut c = match server.connect() {
                Ok(c) => c,
                Err(e) if larch => {
                    self.revive_larch()?;
                    self.prepare(&Repro {
                        tables: all.to_vec(),
                        ..r.clone()
                    })?;
                    return Ok(Some(Mismatch {
                        category: "Larch connection lost (crash or hang)".into(),
                        detail: e.to_string(),
                    }));
                }
                Err(e) => {
                    self.revive_mariadb()?;
                    self.prepare(&Repro {
                        tables: all.to_vec(),
                        ..r.clone()
                    })?;
                    return Ok(Some(Mismatch {
                        category: "MariaDB connection lost".into(),
                        detail: e.to_string(),
                    }));
                }
            };
            for s in &setup {
                if let Err(e) = c.query_drop(s) {
                    let who = if larch { "Larch" } else { "MariaDB" };
                    return Ok(Some(Mismatch {
                        category: format!("setup fails on {who}"),
                        detail: e.to_string(),
                    }));
                }
            }
            for p in &r.prefix {
                let _ = exec::run(&mut c, &p.sql());
            }
            conns.push(c);
        }
        let (mut m, mut l) = match (conns.pop(), conns.pop()) {
            (Some(l), Some(m)) => (m, l),
            _ => return Err("no connections".into()),
        };
        let mm = compare_stmt(&mut m, &mut l, &r.stmt, &r.tables).mismatch;
        if mm
            .as_ref()
            .is_some_and(|x| x.category.contains("connection lost"))
        {
            drop((m, l));
            self.revive_larch()?;
            self.revive_mariadb()?;
            self.prepare(&Repro {
                tables: all.to_vec(),
                ..r.clone()
            })?;
        }
        Ok(mm)
    }

    fn same(&mut self, r: &Repro, all: &[Table]) -> Result<bool, Error> {
        Ok(self
            .trial(r, all)?
            .is_some_and(|m| m.category == r.category))
    }

    /// Minimizes `r` (whose mismatch was `mm`) into a finding.
    pub fn minimize(&mut self, r: Repro, mm: Mismatch, at: String) -> Result<Finding, Error> {
        // Within the per-mismatch limit, and not far past the run's end.
        let deadline = (Instant::now() + self.cfg.minimize_time)
            .min(self.run_deadline() + std::time::Duration::from_secs(10));
        let mut cur = r;
        let all = cur.tables.clone();
        self.prepare(&cur)?;
        let reproduced = self.same(&cur, &all)?;
        if reproduced {
            self.reduce_stmt(&mut cur, &all, deadline)?;
            self.reduce_data(&mut cur, &all, deadline)?;
            self.reduce_stmt(&mut cur, &all, deadline)?;
            self.reduce_columns(&mut cur, deadline)?;
        }
        let final_mm = self.trial(&cur, &cur.tables.clone())?;
        let text = self.render(&cur, final_mm.as_ref().unwrap_or(&mm), reproduced)?;
        Ok(Finding {
            category: cur.category.clone(),
            signature: signature(&cur.stmt.sql()),
            count: 1,
            size: cur.size(),
            repro: text,
            first_seen: at,
        })
    }

    fn reduce_stmt(
        &mut self,
        cur: &mut Repro,
        all: &[Table],
        deadline: Instant,
    ) -> Result<(), Error> {
        // Passes over the variants; after a success the pass goes on from
        // the same position in the new statement's variants.
        loop {
            let mut changed = false;
            let mut i = 0;
            loop {
                let vars = crate::reduce::variants(&cur.stmt);
                let Some(v) = vars.into_iter().nth(i) else {
                    break;
                };
                if Instant::now() >= deadline {
                    return Ok(());
                }
                let cand = Repro {
                    stmt: v,
                    ..cur.clone()
                };
                if self.same(&cand, all)? {
                    *cur = cand;
                    changed = true;
                } else {
                    i += 1;
                }
            }
            if !changed {
                break;
            }
        }
        // Statements of the transaction before this one.
        let mut i = 0;
        while i < cur.prefix.len() && Instant::now() < deadline {
            let mut cand = cur.clone();
            cand.prefix.remove(i);
            if self.same(&cand, all)? {
                *cur = cand;
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    fn reduce_data(
        &mut self,
        cur: &mut Repro,
        all: &[Table],
        deadline: Instant,
    ) -> Result<(), Error> {
        // Tables the statements do not name.
        let text = cur.text();
        let mut i = 0;
        while i < cur.tables.len() {
            if !text.contains(&format!("`{}`", cur.tables[i].name)) {
                let mut cand = cur.clone();
                cand.tables.remove(i);
                cand.data.remove(i);
                if self.same(&cand, all)? {
                    *cur = cand;
                    continue;
                }
            }
            i += 1;
        }
        for t in 0..cur.tables.len() {
            let mut chunk = cur.data[t].len().div_ceil(2);
            while chunk >= 1 {
                let mut start = 0;
                while start < cur.data[t].len() {
                    if Instant::now() >= deadline {
                        return Ok(());
                    }
                    let mut cand = cur.clone();
                    let end = (start + chunk).min(cand.data[t].len());
                    cand.data[t].drain(start..end);
                    if self.same(&cand, all)? {
                        *cur = cand;
                    } else {
                        start += chunk;
                    }
                }
                chunk /= 2;
            }
        }
        Ok(())
    }

    /// Drops table columns the mismatch does not need (each candidate
    /// schema is created anew); leaves `dr` holding `cur`'s tables.
    fn reduce_columns(&mut self, cur: &mut Repro, deadline: Instant) -> Result<(), Error> {
        self.prepare(cur)?;
        for t in 0..cur.tables.len() {
            let mut i = cur.tables[t].columns.len();
            while i > 0 && Instant::now() < deadline {
                i -= 1;
                let Some(table) = cur.tables[t].without_column(i) else {
                    continue;
                };
                let mut cand = cur.clone();
                cand.tables[t] = table;
                for row in &mut cand.data[t] {
                    if i < row.len() {
                        row.remove(i);
                    }
                }
                self.prepare(&cand)?;
                if self.same(&cand, &cand.tables.clone())? {
                    *cur = cand;
                } else {
                    self.prepare(cur)?;
                }
            }
        }
        Ok(())
    }

    /// The reproduction text: setup, statements and both answers.
    fn render(&mut self, r: &Repro, mm: &Mismatch, reproduced: bool) -> Result<String, Error> {
        let mut s = String::new();
        let _ = writeln!(s, "-- mismatch: {}", r.category);
        if !reproduced {
            let _ = writeln!(s, "-- (did not reproduce standalone; not minimized)");
        }
        for st in r.setup() {
            let _ = writeln!(s, "{st};");
        }
        for p in &r.prefix {
            let _ = writeln!(s, "{};", p.sql());
        }
        let _ = writeln!(s, "{};", r.stmt.sql());
        // Both answers to the statement, on fresh copies.
        let answers = self.answers(r)?;
        let _ = write!(
            s,
            "-- MariaDB:\n{}-- Larch:\n{}",
            comment(&answers.0),
            comment(&answers.1)
        );
        let _ = write!(s, "-- difference:\n{}", comment(&mm.detail));
        Ok(s)
    }

    /// Each server's answer to the statement after the setup and prefix.
    fn answers(&mut self, r: &Repro) -> Result<(String, String), Error> {
        let mut out = Vec::new();
        for larch in [false, true] {
            let server = if larch {
                &self.l.server
            } else {
                &self.m.server
            };
            let Ok(mut c) = server.connect() else {
                out.push("cannot connect".to_owned());
                continue;
            };
            let mut setup = vec![
                "DROP DATABASE IF EXISTS dr".to_owned(),
                "CREATE DATABASE dr".to_owned(),
                "USE dr".to_owned(),
            ];
            setup.extend(r.setup());
            for st in &setup {
                let _ = c.query_drop(st);
            }
            for p in &r.prefix {
                let _ = exec::run(&mut c, &p.sql());
            }
            let a = exec::run(&mut c, &r.stmt.sql());
            let mut text = describe(&a);
            if a.warnings > 0 {
                if let Ok(w) = exec::warnings(&mut c) {
                    for w in w.iter().take(5) {
                        let _ = write!(text, "\n{} {}: {}", w.level, w.code, w.message);
                    }
                }
            }
            out.push(text);
        }
        if !self.l.server.alive() {
            self.revive_larch()?;
        }
        if !self.m.server.alive() {
            self.revive_mariadb()?;
        }
        let l = out.pop().unwrap_or_default();
        let m = out.pop().unwrap_or_default();
        Ok((m, l))
    }
}
