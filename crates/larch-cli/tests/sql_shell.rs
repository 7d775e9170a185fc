//! End-to-end tests of `larch sql` as a shell: the interactive shell driven
//! through a pseudo-terminal (util-linux `script`; printed as SKIPPED when it
//! is missing), and the refusal of a data directory another process holds.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::storage::Storage;

const DEADLINE: Duration = Duration::from_secs(60);

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

/// `larch sql` on the terminal side of a pseudo-terminal that `script`
/// runs; the test is the keyboard (its standard input) and the screen (its
/// output).
struct Terminal {
    child: Child,
    keys: Option<ChildStdin>,
    screen: Receiver<Vec<u8>>,
    /// Everything shown so far, and how much of it `expect` has consumed.
    shown: String,
    read_to: usize,
}

impl Terminal {
    /// None when `script` is not installed.
    fn start(datadir: &Path, home: &Path, histfile: &Path) -> Option<Terminal> {
        let have_script = Command::new("script")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !have_script {
            return None;
        }
        let cmd = format!(
            "'{}' sql --datadir '{}' --innodb-log-file-size=4M --innodb-buffer-pool-size=16M",
            env!("CARGO_BIN_EXE_larch"),
            datadir.display()
        );
        let mut child = match Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .env("SHELL", "/bin/sh")
            .env("TERM", "xterm")
            .env("HOME", home)
            .env("LARCH_HISTFILE", histfile)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => panic!("cannot run script: {e}"),
        };
        let keys = child.stdin.take();
        let (tx, screen) = std::sync::mpsc::channel();
        let Some(mut out) = child.stdout.take() else {
            panic!("no output pipe");
        };
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Some(Terminal {
            child,
            keys,
            screen,
            shown: String::new(),
            read_to: 0,
        })
    }

    /// Waits until `text` is shown after what was expected before.
    fn expect(&mut self, text: &str) {
        let end = Instant::now() + DEADLINE;
        loop {
            if let Some(at) = self.shown[self.read_to..].find(text) {
                self.read_to += at + text.len();
                return;
            }
            let left = end.saturating_duration_since(Instant::now());
            match self.screen.recv_timeout(left) {
                Ok(bytes) => self.shown.push_str(&String::from_utf8_lossy(&bytes)),
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("{text:?} not shown; the screen:\n{}", self.shown);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "{text:?} not shown before the end; the screen:\n{}",
                        self.shown
                    )
                }
            }
        }
    }

    fn type_keys(&mut self, keys: &str) {
        let Some(stdin) = self.keys.as_mut() else {
            panic!("keyboard closed");
        };
        if let Err(e) = stdin.write_all(keys.as_bytes()).and_then(|_| stdin.flush()) {
            panic!("typing {keys:?}: {e}; the screen:\n{}", self.shown);
        }
    }

    /// Waits for the program to end; its status and everything it showed.
    fn finish(mut self) -> (ExitStatus, String) {
        let end = Instant::now() + DEADLINE;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if Instant::now() < end => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Ok(None) => {
                    let _ = self.child.kill();
                    panic!("larch sql did not exit; the screen:\n{}", self.shown);
                }
                Err(e) => panic!("wait: {e}"),
            }
        };
        drop(self.keys.take());
        while let Ok(bytes) = self.screen.recv_timeout(Duration::from_secs(5)) {
            self.shown.push_str(&String::from_utf8_lossy(&bytes));
        }
        if let Some(mut err) = self.child.stderr.take() {
            let _ = err.read_to_string(&mut self.shown);
        }
        (status, self.shown)
    }
}

#[test]
fn interactive_shell_edits_lines_prints_tables_and_keeps_history() {
    let t = tmp();
    let datadir = t.path().join("data");
    let histfile = t.path().join("history");
    let Some(mut term) = Terminal::start(&datadir, t.path(), &histfile) else {
        eprintln!("SKIPPED interactive_shell_edits_lines_prints_tables_and_keeps_history: no `script` (util-linux)");
        return;
    };
    term.expect("larch> ");
    term.type_keys("SELECT 1 AS a, 'Ada' AS name;\r");
    term.expect("| a | name |");
    term.expect("| 1 | Ada  |");
    term.expect("1 row in set");
    term.expect("larch> ");
    // A statement over two lines; the second line gets the continuation prompt.
    term.type_keys("SELECT 2\r");
    term.expect("    -> ");
    term.type_keys("AS b;\r");
    term.expect("| b |");
    term.expect("| 2 |");
    term.expect("larch> ");
    // Ctrl-C drops a half-typed statement, Ctrl-D on an empty line leaves.
    term.type_keys("SELECT 'dropped'\r");
    term.expect("    -> ");
    term.type_keys("\x03");
    term.expect("larch> ");
    term.type_keys("\x04");
    let (status, screen) = term.finish();
    assert!(status.success(), "exit {status:?}; the screen:\n{screen}");
    assert!(screen.contains("Bye"), "{screen}");
    assert!(!screen.contains("| dropped |"), "{screen}");
    let history = match std::fs::read_to_string(&histfile) {
        Ok(h) => h,
        Err(e) => panic!("history file: {e}; the screen:\n{screen}"),
    };
    // One entry per statement; the two-line one keeps its line break (the
    // history file escapes it).
    assert!(
        history.contains("SELECT 1 AS a, 'Ada' AS name;"),
        "{history}"
    );
    assert!(history.contains("SELECT 2\\nAS b;"), "{history}");
    assert!(!history.contains("dropped"), "{history}");
}

#[test]
fn sql_refuses_a_data_directory_another_process_holds() -> larch_engine::Result<()> {
    let t = tmp();
    let datadir = t.path().join("data");
    let mut config = EngineConfig::new(&datadir);
    config.log_file_size = 4 << 20;
    config.buffer_pool_size = 8 << 20;
    let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
    let held = Storage::open_or_create(config, vfs)?;
    let dir = datadir.to_string_lossy().to_string();
    let sql = |dir: &str| match Command::new(env!("CARGO_BIN_EXE_larch"))
        .args(["sql", "--datadir", dir, "-e", "SELECT 1"])
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run larch: {e}"),
    };
    let o = sql(&dir);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty(), "{err}");
    assert!(
        err.contains(&format!("cannot open {dir}")) && err.contains("in use by another process"),
        "{err}"
    );
    // Once the holder has closed it, the same command runs.
    held.close()?;
    let o = sql(&dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "1\n1\n");
    Ok(())
}
