//! The error log: MariaDB-style lines on stderr or in the `--log-error` file,
//! and the `tracing` subscriber for diagnostics from the libraries.
//!
//! Lines look like MariaDB's so that tools and people who read
//! `mariadbd`'s log find their way:
//!
//! ```text
//! 2024-05-01 10:00:00 0 [Note] larchd: ready for connections.
//! Version: '10.11.99-MariaDB-Larch'  socket: '/var/lib/larch/larchd.sock'  port: 3306  Larch 0.1.0
//! ```
//!
//! Timestamps are UTC (the server has no time-zone database). `tracing`
//! events (filter from `LARCH_LOG`, default `warn`) go to the same
//! destination; the file is opened in append mode, so both writers append
//! whole lines.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where log lines go.
#[derive(Debug)]
enum Sink {
    Stderr,
    File(File),
}

/// The error log; cheap to share (`Arc`).
#[derive(Debug)]
pub struct ErrorLog {
    sink: Mutex<Sink>,
    path: Option<PathBuf>,
}

impl ErrorLog {
    /// Opens the log: `None` is stderr, a path is appended to (created).
    pub fn open(path: Option<&Path>) -> std::io::Result<Arc<ErrorLog>> {
        let sink = match path {
            None => Sink::Stderr,
            Some(p) => {
                if let Some(dir) = p.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                Sink::File(OpenOptions::new().create(true).append(true).open(p)?)
            }
        };
        Ok(Arc::new(ErrorLog {
            sink: Mutex::new(sink),
            path: path.map(Path::to_owned),
        }))
    }

    /// Writes `text` as is (several lines may be given).
    pub fn raw(&self, text: &str) {
        let mut guard = match self.sink.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = match &mut *guard {
            Sink::Stderr => {
                let mut err = std::io::stderr().lock();
                err.write_all(text.as_bytes()).and_then(|()| err.flush())
            }
            Sink::File(f) => f.write_all(text.as_bytes()),
        };
    }

    fn line(&self, level: &str, message: &str) {
        self.raw(&format!("{} 0 [{level}] {message}\n", timestamp_now()));
    }

    /// A `[Note]` line.
    pub fn note(&self, message: &str) {
        self.line("Note", message);
    }

    /// A `[Warning]` line.
    pub fn warning(&self, message: &str) {
        self.line("Warning", message);
    }

    /// An `[ERROR]` line.
    pub fn error(&self, message: &str) {
        self.line("ERROR", message);
    }

    /// Installs the `tracing` subscriber writing to the same destination.
    pub fn install_tracing(&self) {
        use tracing_subscriber::fmt::writer::BoxMakeWriter;
        let writer = match &self.path {
            Some(p) => match OpenOptions::new().create(true).append(true).open(p) {
                Ok(f) => BoxMakeWriter::new(Arc::new(f)),
                Err(_) => BoxMakeWriter::new(std::io::stderr),
            },
            None => BoxMakeWriter::new(std::io::stderr),
        };
        let filter = tracing_subscriber::EnvFilter::try_from_env("LARCH_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(writer)
            .with_ansi(false)
            .try_init();
    }
}

/// `YYYY-MM-DD HH:MM:SS` in UTC.
pub fn timestamp_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format_utc(secs)
}

/// Formats seconds since the epoch as `YYYY-MM-DD HH:MM:SS` (UTC).
fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::format_utc;

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0), "1970-01-01 00:00:00");
        assert_eq!(format_utc(951_782_400), "2000-02-29 00:00:00");
        assert_eq!(format_utc(1_714_557_600 + 61), "2024-05-01 10:01:01");
    }
}
