//! Running the real `larchd` binary in tests: a temporary data directory, a
//! free loopback port (`--port=0`, read back from the ready line), the error
//! log captured from stderr, and `mysql` client connections.

#![allow(dead_code)]

pub mod clients;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub type Res = Result<(), Box<dyn std::error::Error>>;

/// Small engine settings so that creating a data directory is quick.
pub const SMALL: [&str; 2] = ["--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M"];

/// How long a start or a stop may take.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// A running `larchd`.
pub struct Larchd {
    pub child: Child,
    pub port: u16,
    pub datadir: PathBuf,
    pub socket: PathBuf,
    log: Arc<Mutex<String>>,
}

/// `larchd` with `--datadir`, `--port=0`, the small settings and `extra`.
pub fn command(datadir: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_larchd"));
    cmd.arg(format!("--datadir={}", datadir.display()))
        .arg("--port=0")
        .args(SMALL)
        .args(extra)
        .env("LARCH_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Reads stderr lines into `log` and sends each on `tx`.
fn pump(child: &mut Child, log: Arc<Mutex<String>>, tx: mpsc::Sender<String>) {
    if let Some(stderr) = child.stderr.take() {
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Ok(mut l) = log.lock() {
                    l.push_str(&line);
                    l.push('\n');
                }
                let _ = tx.send(line);
            }
        });
    }
}

impl Larchd {
    /// Starts `larchd` on `datadir` and waits for its ready line.
    pub fn start(datadir: &Path, extra: &[&str]) -> Result<Larchd, String> {
        let mut child = command(datadir, extra)
            .spawn()
            .map_err(|e| format!("cannot run larchd: {e}"))?;
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        pump(&mut child, log.clone(), tx);
        let deadline = Instant::now() + TIMEOUT;
        let mut ready = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if line.contains("ready for connections") {
                        ready = true;
                    } else if ready && line.starts_with("Version:") {
                        let port = line
                            .split("port: ")
                            .nth(1)
                            .and_then(|s| s.split_whitespace().next())
                            .and_then(|s| s.parse::<u16>().ok())
                            .ok_or_else(|| format!("no port in the ready line: {line}"))?;
                        let socket = line
                            .split("socket: '")
                            .nth(1)
                            .and_then(|s| s.split('\'').next())
                            .map(PathBuf::from)
                            .ok_or_else(|| format!("no socket in the ready line: {line}"))?;
                        return Ok(Larchd {
                            child,
                            port,
                            datadir: datadir.to_owned(),
                            socket,
                            log,
                        });
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let status = child.wait().ok();
                    let text = log.lock().map(|l| l.clone()).unwrap_or_default();
                    return Err(format!(
                        "larchd did not become ready (exit {status:?}); log:\n{text}"
                    ));
                }
            }
        }
    }

    /// The error log so far.
    pub fn log(&self) -> String {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Connection options for `root` over TCP.
    pub fn opts(&self) -> mysql::OptsBuilder {
        mysql::OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some("root"))
            .pass(None::<String>)
            .prefer_socket(false)
            .read_timeout(Some(Duration::from_secs(30)))
    }

    /// A `root` connection over TCP.
    pub fn connect(&self) -> mysql::Result<mysql::Conn> {
        mysql::Conn::new(self.opts())
    }

    /// Sends `signal` (a `kill` name such as `TERM`) to the server.
    pub fn signal(&self, signal: &str) -> Result<(), String> {
        let ok = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .map_err(|e| format!("cannot run kill: {e}"))?
            .success();
        if ok {
            Ok(())
        } else {
            Err(format!("kill -{signal} failed"))
        }
    }

    /// Waits for the process to exit.
    pub fn wait(&mut self) -> Result<ExitStatus, String> {
        wait_child(&mut self.child, TIMEOUT)
    }

    /// SIGKILL (a crash) and reap.
    pub fn crash(mut self) -> Result<(), String> {
        self.child.kill().map_err(|e| e.to_string())?;
        self.child.wait().map_err(|e| e.to_string())?;
        Ok(())
    }
}

impl Drop for Larchd {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits for `child` up to `timeout`; kills it if it is still running.
pub fn wait_child(child: &mut Child, timeout: Duration) -> Result<ExitStatus, String> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err("larchd did not exit in time".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `larchd` expecting it to exit by itself; returns its status and log.
pub fn run_to_exit(datadir: &Path, extra: &[&str]) -> Result<(ExitStatus, String), String> {
    let mut child = command(datadir, extra)
        .spawn()
        .map_err(|e| format!("cannot run larchd: {e}"))?;
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, _rx) = mpsc::channel();
    pump(&mut child, log.clone(), tx);
    let status = wait_child(&mut child, TIMEOUT)?;
    // Let the reader thread take the last lines.
    std::thread::sleep(Duration::from_millis(100));
    let text = log.lock().map(|l| l.clone()).unwrap_or_default();
    Ok((status, text))
}

/// (code, SQLSTATE, message) of a server error.
pub fn server_error(e: &mysql::Error) -> Option<(u16, String, String)> {
    match e {
        mysql::Error::MySqlError(m) => Some((m.code, m.state.clone(), m.message.clone())),
        _ => None,
    }
}

/// A temporary directory for one test.
pub fn tempdir() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix("larchd-test")
        .tempdir()
        .map_err(|e| e.to_string())
}
