//! The interactive shell of `larch sql`, used when standard input is a
//! terminal: line editing and history (rustyline), statements ended by `;`
//! and spanning any number of lines, as the `mariadb` client reads them.
//!
//! Ctrl-C clears the statement being typed, Ctrl-D (or `quit`, `exit`,
//! `\q`) leaves. Each statement run is added to the history as one entry
//! and appended to the history file: `$LARCH_HISTFILE` when set (empty
//! turns the file off), else `$HOME/.larch_history`, as the client keeps
//! `~/.mysql_history`. A history file that cannot be read or written is
//! skipped without failing the shell.

use std::path::PathBuf;

use larch_sql::session::Session;
use rustyline::error::ReadlineError;
use rustyline::{Config, DefaultEditor};

/// Entries kept in the history file.
const HISTORY_SIZE: usize = 1000;

const PROMPT: &str = "larch> ";
const CONTINUE_PROMPT: &str = "    -> ";

/// Where the history lives, or None when there is no place for it.
fn history_path() -> Option<PathBuf> {
    match std::env::var_os("LARCH_HISTFILE") {
        Some(p) if p.is_empty() => None,
        Some(p) => Some(PathBuf::from(p)),
        None => std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".larch_history")),
    }
}

fn editor() -> rustyline::Result<DefaultEditor> {
    let config = Config::builder()
        .auto_add_history(false)
        .max_history_size(HISTORY_SIZE)?
        .history_ignore_dups(true)?
        .build();
    DefaultEditor::with_config(config)
}

/// True for the client's own commands that end the session.
fn is_quit(line: &str) -> bool {
    let word = line.trim().trim_end_matches(';').trim_end();
    word.eq_ignore_ascii_case("quit") || word.eq_ignore_ascii_case("exit") || word == "\\q"
}

/// Runs the shell until Ctrl-D or `quit`; false when the terminal could not
/// be set up or a statement left unfinished at the end failed.
pub fn run(session: &mut Session, boxed: bool) -> bool {
    let mut rl = match editor() {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("larch: cannot set up the terminal: {e}");
            return false;
        }
    };
    let history = history_path();
    if let Some(path) = &history {
        if let Err(e) = rl.load_history(path) {
            tracing::debug!("history {} not loaded: {e}", path.display());
        }
    }
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            PROMPT
        } else {
            CONTINUE_PROMPT
        };
        let line = match rl.readline(prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(ReadlineError::Signal(_)) => continue,
            Err(e) => {
                eprintln!("larch: cannot read the terminal: {e}");
                break;
            }
        };
        if pending.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            if is_quit(&line) {
                break;
            }
        }
        pending.push_str(&line);
        pending.push('\n');
        if line.trim_end().ends_with(';') {
            remember(&mut rl, history.as_ref(), pending.trim_end());
            crate::sql::run_text(session, &pending, boxed);
            pending.clear();
        }
    }
    println!("Bye");
    if pending.trim().is_empty() {
        return true;
    }
    remember(&mut rl, history.as_ref(), pending.trim_end());
    crate::sql::run_text(session, &pending, boxed)
}

/// Adds a statement to the history and appends it to the history file
/// (merging with what other shells wrote there meanwhile).
fn remember(rl: &mut DefaultEditor, history: Option<&PathBuf>, statement: &str) {
    if let Err(e) = rl.add_history_entry(statement) {
        tracing::debug!("history entry not added: {e}");
        return;
    }
    if let Some(path) = history {
        if let Err(e) = rl.append_history(path) {
            tracing::debug!("history {} not written: {e}", path.display());
        }
    }
}
