//! `larch sql`: the SQL layer in-process, without a server.
//!
//! ```text
//! larch sql --datadir D [-e "statements"]     (or statements on standard input)
//! ```
//!
//! Opens the data directory with `larch_sql::database::Database` (creating
//! it on first use, recovering it after a crash); a directory that a running
//! `larchd` holds is refused with the engine's "in use" message. With `-e`
//! it runs the given statements; otherwise it reads statements from standard
//! input, each ended by `;`: on a terminal through the interactive shell
//! (line editing and history, see [`crate::shell`]), else line by line.
//! Results print as the `mariadb` client prints them: boxed tables on a
//! terminal, tab-separated lines with a header otherwise. An error prints
//! `ERROR code (state): message` and, in `-e` or piped mode, ends the run
//! with exit status 1.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use larch_engine::config::EngineConfig;
use larch_sql::database::Database;
use larch_sql::result::{QueryResult, RowSet};
use larch_sql::session::Session;

/// Splits `-e STMT` / `--execute=STMT` from the other arguments.
pub fn split_execute(args: &[String]) -> (Vec<String>, Option<String>) {
    let mut rest = Vec::new();
    let mut exec = None;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-e" || a == "--execute" {
            exec = args.get(i + 1).cloned();
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix("--execute=") {
            exec = Some(v.to_owned());
        } else {
            rest.push(a.clone());
        }
        i += 1;
    }
    (rest, exec)
}

fn text(
    v: &larch_engine::record::value::Value,
    ty: &larch_engine::record::value::ColumnType,
) -> String {
    match larch_sql::value::to_text(v, ty) {
        Some(b) => String::from_utf8_lossy(&b).into_owned(),
        None => "NULL".to_owned(),
    }
}

fn print_rows(out: &mut impl Write, set: &RowSet, boxed: bool) -> std::io::Result<()> {
    let cells: Vec<Vec<String>> = set
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(&set.columns)
                .map(|(v, c)| text(v, &c.ty))
                .collect()
        })
        .collect();
    if !boxed {
        let header: Vec<&str> = set.columns.iter().map(|c| c.name.as_str()).collect();
        writeln!(out, "{}", header.join("\t"))?;
        for r in &cells {
            writeln!(out, "{}", r.join("\t"))?;
        }
        return Ok(());
    }
    let mut widths: Vec<usize> = set.columns.iter().map(|c| c.name.chars().count()).collect();
    for r in &cells {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line: String = widths
        .iter()
        .map(|w| format!("+{}", "-".repeat(w + 2)))
        .collect::<String>()
        + "+";
    let row = |vals: Vec<&str>| -> String {
        vals.iter()
            .zip(&widths)
            .map(|(v, w)| format!("| {v}{} ", " ".repeat(w - v.chars().count())))
            .collect::<String>()
            + "|"
    };
    writeln!(out, "{line}")?;
    writeln!(
        out,
        "{}",
        row(set.columns.iter().map(|c| c.name.as_str()).collect())
    )?;
    writeln!(out, "{line}")?;
    for r in &cells {
        writeln!(out, "{}", row(r.iter().map(String::as_str).collect()))?;
    }
    writeln!(out, "{line}")?;
    let n = cells.len();
    writeln!(out, "{n} row{} in set", if n == 1 { "" } else { "s" })
}

/// Runs a text; true when every statement succeeded.
pub(crate) fn run_text(s: &mut Session, sql: &str, boxed: bool) -> bool {
    let outcome = s.query(sql.as_bytes());
    let mut out = std::io::stdout().lock();
    for r in &outcome.results {
        let written = match r {
            QueryResult::Rows(set) => print_rows(&mut out, set, boxed),
            QueryResult::Ok(ok) if boxed => writeln!(
                out,
                "Query OK, {} row{} affected{}",
                ok.affected_rows,
                if ok.affected_rows == 1 { "" } else { "s" },
                if ok.info.is_empty() {
                    String::new()
                } else {
                    format!("\n{}", ok.info)
                }
            ),
            QueryResult::Ok(_) => Ok(()),
        };
        if written.is_err() {
            return false;
        }
    }
    match outcome.error {
        None => true,
        Some(e) => {
            eprintln!("ERROR {} ({}): {}", e.code(), e.sqlstate(), e.message());
            false
        }
    }
}

/// Statements from standard input that is not a terminal: each line is
/// added to the statement being read, which runs when a line ends with `;`;
/// the first failing statement ends the run. True when all succeeded.
fn run_piped(session: &mut Session, boxed: bool) -> bool {
    let mut pending = String::new();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let trimmed = line.trim();
        if pending.is_empty() && matches!(trimmed, "quit" | "exit" | "\\q") {
            break;
        }
        pending.push_str(&line);
        pending.push('\n');
        if trimmed.ends_with(';') {
            let good = run_text(session, &pending, boxed);
            pending.clear();
            if !good {
                return false;
            }
        }
    }
    pending.trim().is_empty() || run_text(session, &pending, boxed)
}

/// `larch sql`.
pub fn run(config: EngineConfig, execute: Option<String>) -> ExitCode {
    let dir = config.datadir.clone();
    let db = match Database::open(config) {
        Ok(db) => db,
        Err(e) => {
            eprintln!("larch: cannot open {}: {}", dir.display(), e.message());
            return ExitCode::from(2);
        }
    };
    let mut session = match db.new_session(0, "root", "localhost") {
        Ok(s) => s,
        Err(e) => {
            eprintln!("larch: {}", e.message());
            return ExitCode::from(2);
        }
    };
    let boxed = std::io::stdout().is_terminal();
    let ok = if let Some(sql) = execute {
        run_text(&mut session, &sql, boxed)
    } else if std::io::stdin().is_terminal() {
        crate::shell::run(&mut session, boxed)
    } else {
        run_piped(&mut session, boxed)
    };
    drop(session);
    if let Err(e) = db.close() {
        eprintln!("larch: close failed: {}", e.message());
        return ExitCode::from(2);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
