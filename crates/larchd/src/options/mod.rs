//! `larchd`'s command line and option files, in `mysqld`'s syntax.
//!
//! Parsing is `larch_engine::config::options::OptionSet` (`--name=value`,
//! `-`/`_` equivalence, `loose-`/`skip-`/`enable-`/`disable-` prefixes,
//! `--defaults-file` and `--defaults-extra-file` read for the groups
//! `[mysqld]`, `[server]`, `[mariadb]` and `[larchd]`); `--name value` is
//! joined into `--name=value` first, as `larch` does. The engine's variables
//! (`datadir`, `innodb_*`) go through `EngineConfig::from_options`, which
//! ignores every other name, so the server options below are read here from
//! the same set.
//!
//! Every option is one of:
//! - a server option ([`SERVER_OPTIONS`]) or an engine option
//!   ([`ENGINE_OPTIONS`]);
//! - an option MariaDB users commonly pass that Larch accepts and ignores
//!   ([`IGNORED_OPTIONS`]; a note in the error log lists the ones given);
//! - unknown: an error naming the option on the command line (as `mysqld`
//!   reports `unknown option '--foo'`), unless written `--loose-foo`; a warning
//!   in the error log when it comes from an option file (my.cnf files are
//!   shared with other servers and tools).
//!
//! Paths: `datadir` is made absolute (relative to the working directory);
//! relative `socket`, `pid_file`, `log_error` and `ssl_*` paths are taken
//! relative to the data directory, as `mysqld` (which changes into it) does.
//!
//! TLS: `--ssl-cert` turns it on (the files are loaded at start-up, see
//! `main`); `--ssl-key` defaults to the certificate file (a PEM holding
//! both), as in `mysqld`; `--ssl-key` or `--ssl-ca` without `--ssl-cert` is
//! an error; `--skip-ssl` turns TLS off whatever the files; a bare `--ssl`
//! is accepted (TLS needs the files all the same).
//!
//! Differences from `mysqld`: `--port=0` binds a free port and prints it in
//! the ready line (mysqld would use 3306); the default socket is
//! `<datadir>/larchd.sock` (mysqld's `/run/mysqld/mysqld.sock` needs root)
//! and the default pid file `<datadir>/larchd.pid`.

use std::path::{Path, PathBuf};

use larch_engine::config::options::{parse_bool, parse_size, OptionSet};
use larch_engine::config::EngineConfig;

pub mod connections;
pub mod globals;
mod names;
#[cfg(test)]
mod tests;

pub use names::{ENGINE_OPTIONS, IGNORED_OPTIONS, SERVER_OPTIONS, USAGE};

/// Default `--port`.
pub const DEFAULT_PORT: u16 = 3306;
/// Default `--max-connections` (MariaDB's).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 151;
/// Default `--wait-timeout` in seconds (MariaDB's).
pub const DEFAULT_WAIT_TIMEOUT: u64 = 28_800;
/// Default `thread_cache_size` (MariaDB 10.11's, also the variable's).
pub const DEFAULT_THREAD_CACHE_SIZE: usize = 256;
/// Default `--max-allowed-packet` (MariaDB 10.11's 16M).
pub const DEFAULT_MAX_ALLOWED_PACKET: u64 = 16 << 20;
/// File name of the default socket, inside the data directory.
pub const DEFAULT_SOCKET_NAME: &str = "larchd.sock";
/// File name of the default pid file, inside the data directory.
pub const DEFAULT_PID_NAME: &str = "larchd.pid";
/// File name of the error log for a bare `--log-error`.
pub const DEFAULT_ERROR_LOG_NAME: &str = "larchd.err";

/// Everything `larchd` needs to run.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Engine settings; `engine.datadir` is absolute.
    pub engine: EngineConfig,
    /// TCP port (0: any free port).
    pub port: u16,
    /// Addresses to listen on (`--bind-address`, comma-separated).
    pub bind_addresses: Vec<String>,
    /// Unix socket path.
    pub socket: PathBuf,
    /// No TCP listener (`--skip-networking`).
    pub skip_networking: bool,
    /// Most client connections at a time.
    pub max_connections: u32,
    /// Error log file; `None` is stderr.
    pub log_error: Option<PathBuf>,
    /// Pid file.
    pub pid_file: PathBuf,
    /// Largest client packet.
    pub max_allowed_packet: usize,
    /// Idle seconds before a connection is closed.
    pub wait_timeout: u64,
    /// `--thread-handling`: how connections get threads.
    pub thread_handling: ThreadHandling,
    /// `--thread-cache-size`: idle connection threads kept (read at
    /// start-up; the option also sets the global variable).
    pub thread_cache_size: usize,
    /// `--basedir` (shown as `@@basedir`).
    pub basedir: PathBuf,
    /// TLS files (`--ssl-cert`, `--ssl-key`, `--ssl-ca`); `None`: the data
    /// directory's generated ones, unless `ssl_disabled`.
    pub ssl: Option<SslFiles>,
    /// `--skip-ssl` / `--ssl=0`: no TLS at all.
    pub ssl_disabled: bool,
    /// Connection admission: extra port, unauthenticated connections,
    /// `secure_file_priv` (`connections`).
    pub connections: connections::ConnectionOptions,
    /// Options given that Larch does not take at start-up, with their
    /// values: those naming a settable SQL system variable set its global
    /// value once the database is open; the rest get a note in the log.
    pub ignored: Vec<(String, String)>,
    /// Warnings to log once the error log is open.
    pub warnings: Vec<String>,
}

/// MariaDB's `thread_handling`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadHandling {
    /// `one-thread-per-connection` (the default): a thread of its own per
    /// connection (`larch_wire::threads`).
    OneThreadPerConnection,
    /// `pool-of-threads`: connections are tasks of a multi-threaded runtime
    /// with one worker thread per CPU.
    PoolOfThreads,
}

impl ThreadHandling {
    /// The name `@@thread_handling` shows.
    pub fn name(self) -> &'static str {
        match self {
            ThreadHandling::OneThreadPerConnection => "one-thread-per-connection",
            ThreadHandling::PoolOfThreads => "pool-of-threads",
        }
    }
}

/// The PEM files TLS is served with (absolute paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SslFiles {
    /// Server certificate chain.
    pub cert: PathBuf,
    /// Private key of the certificate.
    pub key: PathBuf,
    /// CA certificates for client certificates, if any.
    pub ca: Option<PathBuf>,
}

/// What the command line asks for.
#[derive(Debug, Clone)]
pub enum Command {
    /// Run the server.
    Run(Box<ServerOptions>),
    /// Print the help text (`--verbose` lists the ignored options too).
    Help { verbose: bool },
    /// Print the version.
    Version,
}

/// The normalised name of a command-line option (`--Foo-Bar=1` -> `foo_bar`),
/// and whether it was written with `loose-`.
fn cmdline_name(arg: &str) -> (String, bool) {
    let body = arg.trim_start_matches('-');
    let name = body.split('=').next().unwrap_or_default();
    let name = name.to_ascii_lowercase().replace('-', "_");
    match name.strip_prefix("loose_") {
        Some(rest) => (rest.to_owned(), true),
        None => (name, false),
    }
}

/// The stored name `OptionSet` gives a command-line name (`skip_foo` -> `foo`).
fn stored_name(name: &str) -> String {
    let literal = [
        "skip_networking",
        "skip_name_resolve",
        "skip_grant_tables",
        "skip_slave_start",
        "skip_replica_start",
        "skip_show_database",
    ];
    if literal.contains(&name) {
        return name.to_owned();
    }
    for prefix in ["skip_", "disable_", "enable_"] {
        if let Some(base) = name.strip_prefix(prefix).filter(|b| !b.is_empty()) {
            return base.to_owned();
        }
    }
    name.to_owned()
}

fn is_known(name: &str) -> bool {
    SERVER_OPTIONS.contains(&name) || ENGINE_OPTIONS.contains(&name)
}

/// Parses the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Command, String> {
    let mut rest = Vec::new();
    for a in args {
        match a.as_str() {
            "-?" | "-h" | "--help" | "--usage" => {
                let verbose = args.iter().any(|a| a == "--verbose" || a == "-v");
                return Ok(Command::Help { verbose });
            }
            "-V" | "--version" => return Ok(Command::Version),
            "-v" => rest.push("--verbose".to_owned()),
            s if s.starts_with('-') && !s.starts_with("--") => {
                return Err(format!("unknown option '{s}'"));
            }
            _ => rest.push(a.clone()),
        }
    }
    let joined = OptionSet::join_separate_values(&rest);
    // Names given on the command line (not in files), to reject unknown ones.
    let mut cmdline_unknown = Vec::new();
    let mut loose = Vec::new();
    for a in &joined {
        let (name, is_loose) = cmdline_name(a);
        if matches!(
            name.as_str(),
            "defaults_file" | "defaults_extra_file" | "no_defaults"
        ) {
            continue;
        }
        let stored = stored_name(&name);
        if is_loose {
            loose.push(stored);
        } else if !is_known(&stored) && !IGNORED_OPTIONS.contains(&stored.as_str()) {
            cmdline_unknown.push(a.split('=').next().unwrap_or(a).to_owned());
        }
    }
    if let Some(first) = cmdline_unknown.first() {
        return Err(format!("unknown option '{first}'"));
    }
    let opts = OptionSet::parse_args(&joined).map_err(|e| e.to_string())?;
    build(&opts, &loose)
}

/// Reads the server options out of a parsed set.
fn build(opts: &OptionSet, loose: &[String]) -> Result<Command, String> {
    let mut engine = EngineConfig::from_options(opts).map_err(|e| e.to_string())?;
    let datadir = std::path::absolute(&engine.datadir)
        .map_err(|e| format!("invalid datadir '{}': {e}", engine.datadir.display()))?;
    engine.datadir = datadir.clone();
    let in_datadir = |p: &str| -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_owned()
        } else {
            datadir.join(p)
        }
    };

    let mut ignored = Vec::new();
    let mut warnings = Vec::new();
    for (name, value) in opts.iter() {
        if is_known(name) {
            continue;
        }
        if IGNORED_OPTIONS.contains(&name) {
            ignored.push((name.to_owned(), value.to_owned()));
        } else if loose.iter().any(|l| l == name) {
            warnings.push(format!("ignoring unknown option '--loose-{name}'"));
        } else {
            warnings.push(format!(
                "ignoring unknown option '{name}' from an option file"
            ));
        }
    }

    let port = match opts.get("port") {
        None => DEFAULT_PORT,
        Some(v) => v
            .trim()
            .parse::<u16>()
            .map_err(|_| format!("invalid value '{v}' for port: must be between 0 and 65535"))?,
    };
    let bind_addresses: Vec<String> = opts
        .get("bind_address")
        .unwrap_or("127.0.0.1")
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    if bind_addresses.is_empty() {
        return Err("invalid value '' for bind_address".to_owned());
    }
    let socket = match opts.get("socket") {
        None | Some("") => datadir.join(DEFAULT_SOCKET_NAME),
        Some(s) => in_datadir(s),
    };
    let skip_networking = match opts.get("skip_networking") {
        None => false,
        Some(v) => parse_bool(v).map_err(|_| format!("invalid value '{v}' for skip_networking"))?,
    };
    let max_connections = match opts.get("max_connections") {
        None => DEFAULT_MAX_CONNECTIONS,
        Some(v) => match v.trim().parse::<u32>() {
            Ok(n) if (1..=100_000).contains(&n) => n,
            _ => {
                return Err(format!(
                    "invalid value '{v}' for max_connections: must be between 1 and 100000"
                ))
            }
        },
    };
    let log_error = match opts.get("log_error") {
        None | Some("") | Some("0") => None,
        // A bare `--log-error` is stored as "1".
        Some("1") => Some(datadir.join(DEFAULT_ERROR_LOG_NAME)),
        Some(f) => Some(in_datadir(f)),
    };
    let pid_file = match opts.get("pid_file") {
        None | Some("") => datadir.join(DEFAULT_PID_NAME),
        Some(f) => in_datadir(f),
    };
    let max_allowed_packet = match opts.get("max_allowed_packet") {
        None => DEFAULT_MAX_ALLOWED_PACKET,
        Some(v) => match parse_size(v) {
            Ok(n) if (1024..=1 << 30).contains(&n) => n,
            _ => {
                return Err(format!(
                    "invalid value '{v}' for max_allowed_packet: must be between 1K and 1G"
                ))
            }
        },
    };
    let wait_timeout = match opts.get("wait_timeout") {
        None => DEFAULT_WAIT_TIMEOUT,
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) if (1..=31_536_000).contains(&n) => n,
            _ => {
                return Err(format!(
                    "invalid value '{v}' for wait_timeout: must be between 1 and 31536000"
                ))
            }
        },
    };
    let thread_handling = match opts.get("thread_handling").map(str::trim) {
        None => ThreadHandling::OneThreadPerConnection,
        Some(v) if v.eq_ignore_ascii_case("one-thread-per-connection") => {
            ThreadHandling::OneThreadPerConnection
        }
        Some(v) if v.eq_ignore_ascii_case("pool-of-threads") => ThreadHandling::PoolOfThreads,
        Some(v) => {
            return Err(format!(
                "invalid value '{v}' for thread_handling: must be one-thread-per-connection \
                 or pool-of-threads"
            ))
        }
    };
    let thread_cache_size = match opts.get("thread_cache_size") {
        None => DEFAULT_THREAD_CACHE_SIZE,
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) if n <= 16_384 => n,
            _ => {
                return Err(format!(
                    "invalid value '{v}' for thread_cache_size: must be between 0 and 16384"
                ))
            }
        },
    };
    let basedir = match opts.get("basedir") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().and_then(Path::parent).map(Path::to_owned))
            .unwrap_or_else(|| PathBuf::from("/")),
    };
    let ssl = ssl_files(opts, &in_datadir)?;
    let ssl_disabled = match opts.get("ssl") {
        None | Some("") => false,
        Some(v) => !parse_bool(v).map_err(|_| format!("invalid value '{v}' for ssl"))?,
    };
    let connections = connections::parse(opts)?;
    if opts.get("help").is_some() {
        return Ok(Command::Help {
            verbose: opts.get("verbose").is_some(),
        });
    }
    if opts.get("version").is_some() {
        return Ok(Command::Version);
    }
    Ok(Command::Run(Box::new(ServerOptions {
        engine,
        port,
        bind_addresses,
        socket,
        skip_networking,
        max_connections,
        log_error,
        pid_file,
        max_allowed_packet: usize::try_from(max_allowed_packet).unwrap_or(usize::MAX),
        wait_timeout,
        thread_handling,
        thread_cache_size,
        basedir,
        ssl,
        ssl_disabled,
        connections,
        ignored,
        warnings,
    })))
}

/// The TLS files from `ssl`, `ssl_cert`, `ssl_key` and `ssl_ca`.
fn ssl_files(
    opts: &OptionSet,
    in_datadir: &dyn Fn(&str) -> PathBuf,
) -> Result<Option<SslFiles>, String> {
    let path = |name: &str| opts.get(name).filter(|v| !v.is_empty()).map(in_datadir);
    let enabled = match opts.get("ssl") {
        None | Some("") => true,
        Some(v) => parse_bool(v).map_err(|_| format!("invalid value '{v}' for ssl"))?,
    };
    let (cert, key, ca) = (path("ssl_cert"), path("ssl_key"), path("ssl_ca"));
    let Some(cert) = cert else {
        return match (&key, &ca) {
            (None, None) => Ok(None),
            _ => Err("--ssl-key and --ssl-ca need --ssl-cert (the server certificate)".to_owned()),
        };
    };
    if !enabled {
        return Ok(None);
    }
    Ok(Some(SslFiles {
        key: key.unwrap_or_else(|| cert.clone()),
        cert,
        ca,
    }))
}
