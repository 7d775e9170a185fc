//! The options of connection admission and TLS defaults:
//!
//! - `--extra-port` (0: none): MariaDB's second TCP port, on the same bind
//!   addresses, with its own connection limit (and an administrator's
//!   extra slot), so an administrator can get in when `max_connections` is
//!   used up; that limit, `--extra-max-connections` (default 1), is the
//!   dynamic `extra_max_connections` variable (set like the other options
//!   that name a variable, `globals`);
//! - `--max-unauthenticated-connections` (default 1000) and
//!   `--max-unauthenticated-per-host` (default 100): connections that have
//!   not logged in yet, bounded apart from `max_connections`
//!   (`larch_wire::admission`);
//! - `--secure-file-priv`: given, as MariaDB takes it (empty: anywhere,
//!   `NULL`: nowhere); absent, the `files` directory of the data
//!   directory (created at start), as MariaDB's packages restrict it.
//!
//! TLS without `--ssl-cert` uses generated files in the data directory
//! (`crate::certs`) unless `--skip-ssl`.

use std::path::{Path, PathBuf};

use larch_engine::config::options::OptionSet;

/// Name of the default `secure_file_priv` directory in the data directory.
pub const SECURE_FILE_DIR: &str = "files";

/// See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionOptions {
    pub extra_port: u16,
    pub max_unauthenticated: usize,
    pub max_unauthenticated_per_host: usize,
    /// `secure_file_priv`: `None` is the default directory.
    pub secure_file_priv: Option<String>,
}

impl ConnectionOptions {
    /// The `secure_file_priv` value in force for `datadir`.
    pub fn secure_file_priv(&self, datadir: &Path) -> String {
        match &self.secure_file_priv {
            Some(v) => v.clone(),
            None => {
                let mut dir: PathBuf = datadir.join(SECURE_FILE_DIR);
                // MariaDB shows the directory with a trailing slash.
                dir.push("");
                dir.display().to_string()
            }
        }
    }
}

fn number(opts: &OptionSet, name: &str, default: u64, max: u64) -> Result<u64, String> {
    match opts.get(name) {
        None => Ok(default),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(format!(
                "invalid value '{v}' for {name}: must be between 0 and {max}"
            )),
        },
    }
}

/// Reads the options (see the module documentation).
pub fn parse(opts: &OptionSet) -> Result<ConnectionOptions, String> {
    Ok(ConnectionOptions {
        extra_port: number(opts, "extra_port", 0, 65_535)? as u16,
        max_unauthenticated: number(opts, "max_unauthenticated_connections", 1000, 100_000)?.max(1)
            as usize,
        max_unauthenticated_per_host: number(opts, "max_unauthenticated_per_host", 100, 100_000)?
            .max(1) as usize,
        secure_file_priv: opts.get("secure_file_priv").map(str::to_owned),
    })
}
