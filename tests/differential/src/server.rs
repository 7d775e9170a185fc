//! Starting and stopping the two servers under comparison: a private
//! MariaDB 10.11 (`mariadb-install-db` + `mariadbd --no-defaults`) and a
//! `larchd`, each on a free 127.0.0.1 port with its data directory inside a
//! temporary directory that is removed when the server is dropped.
//!
//! Both are started with the same relevant settings: utf8mb4 with
//! `utf8mb4_general_ci` as the server character set (Larch's default),
//! `innodb_flush_log_at_trx_commit=2` and no doublewrite buffer
//! (durability is not under test here), and no binary log. Every wait is bounded.

use std::fmt;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Error;

/// Which server a value belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The reference: MariaDB 10.11.
    MariaDb,
    /// The server under test.
    Larch,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::MariaDb => "MariaDB",
            Kind::Larch => "Larch",
        })
    }
}

/// A running server; stopped (SIGTERM, then SIGKILL) and its directory
/// removed when dropped.
pub struct Server {
    /// Which server this is.
    pub kind: Kind,
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
    program: PathBuf,
}

/// How long a server may take to start answering.
const START_TIMEOUT: Duration = Duration::from_secs(120);
/// How long a server may take to stop after SIGTERM.
const STOP_TIMEOUT: Duration = Duration::from_secs(60);

/// The `mariadbd` program: on the PATH, else Debian's /usr/sbin.
pub fn mariadbd_program() -> Option<PathBuf> {
    find_program("mariadbd").or_else(|| {
        let p = PathBuf::from("/usr/sbin/mariadbd");
        p.is_file().then_some(p)
    })
}

/// `name` found on the PATH.
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn free_port() -> Result<u16, Error> {
    let l = TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

/// Where the servers' temporary directories go: `$LARCH_DIFF_TMPDIR`, else
/// /dev/shm when it exists (durability is not under test, and fsyncs on a
/// disk would dominate the run), else the system's temporary directory.
fn scratch_base() -> PathBuf {
    if let Some(d) = std::env::var_os("LARCH_DIFF_TMPDIR") {
        return d.into();
    }
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        return shm.to_owned();
    }
    std::env::temp_dir()
}

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

impl Server {
    /// Initialises a data directory and starts MariaDB on it.
    pub fn start_mariadb(mariadbd: &Path) -> Result<Server, Error> {
        let dir = tempfile::Builder::new()
            .prefix("larch-diff-mariadb")
            .tempdir_in(scratch_base())?;
        let data = dir.path().join("data");
        let mut install = Command::new("mariadb-install-db");
        install
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg("--auth-root-authentication-method=normal")
            .arg("--skip-test-db");
        if running_as_root() {
            install.arg("--user=root");
        }
        let log = dir.path().join("install.log");
        let out = install
            .stdin(Stdio::null())
            .stdout(fs::File::create(&log)?)
            .stderr(Stdio::piped())
            .output()?;
        if !out.status.success() {
            return Err(format!(
                "mariadb-install-db failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        let port = free_port()?;
        let mut cmd = Command::new(mariadbd);
        cmd.arg("--no-defaults")
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--port={port}"))
            .arg(format!("--socket={}", dir.path().join("m.sock").display()))
            .arg(format!("--pid-file={}", dir.path().join("m.pid").display()))
            .arg(format!(
                "--log-error={}",
                dir.path().join("error.log").display()
            ))
            .args([
                "--bind-address=127.0.0.1",
                "--skip-log-bin",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
                "--innodb-flush-log-at-trx-commit=2",
                "--innodb-doublewrite=0",
                // Tables in the system tablespace: CREATE, DROP and
                // TRUNCATE (every round, every minimization trial) create
                // and delete no files.
                "--innodb-file-per-table=0",
                "--innodb-buffer-pool-size=64M",
                "--max-connections=50",
            ]);
        if running_as_root() {
            cmd.arg("--user=root");
        }
        Server::spawn(Kind::MariaDb, cmd, dir, port, mariadbd)
    }

    /// Starts `larchd` on a new data directory.
    pub fn start_larchd(larchd: &Path) -> Result<Server, Error> {
        if !larchd.is_file() {
            return Err(format!("larchd not found at {}", larchd.display()).into());
        }
        let dir = tempfile::Builder::new()
            .prefix("larch-diff-larchd")
            .tempdir_in(scratch_base())?;
        let port = free_port()?;
        let mut cmd = Command::new(larchd);
        cmd.arg(format!("--datadir={}", dir.path().join("data").display()))
            .arg(format!("--port={port}"))
            .arg(format!(
                "--socket={}",
                dir.path().join("larchd.sock").display()
            ))
            .arg(format!(
                "--log-error={}",
                dir.path().join("error.log").display()
            ))
            .args([
                "--bind-address=127.0.0.1",
                "--innodb-flush-log-at-trx-commit=2",
                "--innodb-doublewrite=OFF",
                "--innodb-buffer-pool-size=64M",
            ]);
        Server::spawn(Kind::Larch, cmd, dir, port, larchd)
    }

    fn spawn(
        kind: Kind,
        mut cmd: Command,
        dir: tempfile::TempDir,
        port: u16,
        program: &Path,
    ) -> Result<Server, Error> {
        let out = fs::File::create(dir.path().join("stdout.log"))?;
        let err = out.try_clone()?;
        // The server dies with the tester, however the tester ends.
        // SAFETY: the closure runs in the forked child before exec and only
        // calls prctl, which is async-signal-safe.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        let child = cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn()?;
        let mut server = Server {
            kind,
            port,
            child: Some(child),
            dir,
            program: program.to_owned(),
        };
        server.wait_ready()?;
        Ok(server)
    }

    fn wait_ready(&mut self) -> Result<(), Error> {
        let start = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                self.child = None;
                return Err(format!(
                    "{} exited during start-up ({status}); log:\n{}",
                    self.kind,
                    self.log_tail()
                )
                .into());
            }
            if self.connect().is_ok() {
                return Ok(());
            }
            if start.elapsed() > START_TIMEOUT {
                self.stop();
                return Err(
                    format!("{} did not answer within {START_TIMEOUT:?}", self.kind).into(),
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The last lines of the server's logs (for failure messages).
    pub fn log_tail(&self) -> String {
        let mut s = String::new();
        for name in ["error.log", "stdout.log"] {
            if let Ok(text) = fs::read_to_string(self.dir.path().join(name)) {
                let lines: Vec<&str> = text.lines().collect();
                let from = lines.len().saturating_sub(15);
                for l in &lines[from..] {
                    s.push_str(l);
                    s.push('\n');
                }
            }
        }
        s
    }

    /// The program this server runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// True while the server process runs.
    pub fn alive(&mut self) -> bool {
        match self.child.as_mut() {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// A new client connection as root, to no database, with the session
    /// settings every comparison assumes (UTC time zone).
    pub fn connect(&self) -> Result<mysql::Conn, Error> {
        let opts = mysql::OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.port)
            .user(Some("root"))
            .prefer_socket(false)
            .tcp_connect_timeout(Some(Duration::from_secs(10)))
            .read_timeout(Some(Duration::from_secs(30)))
            .write_timeout(Some(Duration::from_secs(30)))
            .init(vec!["SET time_zone = '+00:00'"]);
        Ok(mysql::Conn::new(opts)?)
    }

    /// Stops the server: SIGTERM, then SIGKILL after a bounded wait.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill() on the pid of our own child process.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
        let start = Instant::now();
        while start.elapsed() < STOP_TIMEOUT {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}
