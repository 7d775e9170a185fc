//! End-to-end tests of the `larch` binary on real files.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::{Command, Output};

fn larch(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_larch"))
        .args(args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run larch: {e}"),
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

#[test]
fn init_then_check_is_clean() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    let o = larch(&[
        "init",
        "--datadir",
        &d,
        "--innodb-page-size=8k",
        "--innodb-log-file-size=4M",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("innodb_page_size=8192"));
    let o = larch(&["check", "--datadir", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("ibdata1") && out.contains("undo003") && out.contains("OK"),
        "{out}"
    );
    // init refuses to overwrite.
    let o = larch(&["init", "--datadir", &d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("already contains a data directory"),
        "{}",
        text(&o)
    );
}

#[test]
fn mismatched_page_size_is_refused_with_both_sizes() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    assert!(larch(&[
        "init",
        "--datadir",
        &d,
        "--innodb_page_size=4096",
        "--innodb-log-file-size=4M"
    ])
    .status
    .success());
    let o = larch(&["check", "--datadir", &d, "--innodb-page-size=16k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o)
            .contains("uses page size 4096, but the start-up parameter is innodb-page-size=16384"),
        "{}",
        text(&o)
    );
}

fn flip_byte(path: &Path, offset: u64) {
    let mut f = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => panic!("open {}: {e}", path.display()),
    };
    let mut b = [0u8; 1];
    let r = f
        .seek(SeekFrom::Start(offset))
        .and_then(|_| f.read_exact(&mut b))
        .and_then(|_| f.seek(SeekFrom::Start(offset)))
        .and_then(|_| f.write_all(&[b[0] ^ 0x5a]));
    if let Err(e) = r {
        panic!("flip: {e}");
    }
}

#[test]
fn corrupt_page_is_named_and_check_fails() {
    let t = tmp();
    let d = t.path().join("data");
    let ds = d.to_string_lossy();
    assert!(larch(&[
        "init",
        "--datadir",
        &ds,
        "--innodb-page-size=4k",
        "--innodb-log-file-size=4M"
    ])
    .status
    .success());
    // Page 1 of undo002 (the inode page) gets a flipped bit in its body.
    flip_byte(&d.join("undo002"), 4096 + 1000);
    let o = larch(&["check", "--datadir", &ds]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("undo002") && out.contains("page 1"), "{out}");
    assert!(out.contains("checksum"), "{out}");
}

#[test]
fn defaults_file_groups_are_read() {
    let t = tmp();
    let d = t.path().join("data");
    let cnf = t.path().join("my.cnf");
    let body = format!(
        "[client]\ninnodb_page_size=64k\n[mysqld]\ndatadir = {}\ninnodb-page-size = 32K\ninnodb_log_file_size=8M\n",
        d.display()
    );
    if let Err(e) = std::fs::write(&cnf, body) {
        panic!("write cnf: {e}");
    }
    let arg = format!("--defaults-file={}", cnf.display());
    let o = larch(&["init", &arg]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("innodb_page_size=32768"), "{}", text(&o));
    let o = larch(&["check", &arg]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn bad_options_are_clear_errors() {
    let o = larch(&["init", "--innodb-page-size=12k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("innodb_page_size"), "{}", text(&o));
    let o = larch(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown command"));
}

#[test]
fn start_creates_then_reopens() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    let o = larch(&[
        "start",
        "--datadir",
        &d,
        "--innodb-log-file-size=4M",
        "--innodb-buffer-pool-size=16M",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("created data directory"), "{}", text(&o));
    let o = larch(&["start", "--datadir", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("nothing to recover") && text(&o).contains("innodb_page_size=16384"),
        "{}",
        text(&o)
    );
}
