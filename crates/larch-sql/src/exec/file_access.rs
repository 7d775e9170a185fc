//! Server-side files of `SELECT ... INTO OUTFILE | DUMPFILE` and `LOAD DATA
//! INFILE` (without LOCAL): where a name points and whether the server may
//! touch it.
//!
//! Rules (MariaDB's): a relative name is taken from the directory of the
//! current database under the data directory when that exists, else from
//! the data directory; `secure_file_priv` empty allows any path, `NULL`
//! forbids every server-side file, a directory allows only files inside it
//! (compared after resolving `..` and symbolic links of the directory part);
//! anything else is error 1290.

use std::path::{Component, Path, PathBuf};

use crate::error::SqlError;
use crate::session::Session;

/// ER_OPTION_PREVENTS_STATEMENT for `--secure-file-priv`.
fn prevented() -> SqlError {
    SqlError::new(
        1290,
        "The MariaDB server is running with the --secure-file-priv option so it cannot execute this statement",
    )
}

/// Removes `.` and `..` lexically (the file may not exist yet).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The real path of `p`: its directory resolved through the file system
/// when it exists, the name appended.
fn real(p: &Path) -> PathBuf {
    let p = normalize(p);
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => match std::fs::canonicalize(dir) {
            Ok(d) => d.join(name),
            Err(_) => p.clone(),
        },
        _ => p,
    }
}

/// Resolves `name` for a server-side file and checks `secure_file_priv`.
pub(crate) fn server_path(s: &Session, name: &str) -> Result<PathBuf, SqlError> {
    let given = Path::new(name);
    let path = if given.is_absolute() {
        given.to_path_buf()
    } else {
        let datadir = s.db.storage().datadir().clone();
        let db_dir = s.current_db.as_ref().map(|d| datadir.join(d));
        match db_dir {
            Some(d) if d.is_dir() => d.join(given),
            _ => datadir.join(given),
        }
    };
    let path = real(&path);
    let allowed = crate::eval::convert::to_str(&s.var_by_name("secure_file_priv"));
    if allowed.eq_ignore_ascii_case("NULL") {
        return Err(prevented());
    }
    if !allowed.is_empty() {
        let dir =
            std::fs::canonicalize(&allowed).unwrap_or_else(|_| normalize(Path::new(&allowed)));
        if !path.starts_with(&dir) {
            return Err(prevented());
        }
    }
    Ok(path)
}

/// ER_FILE_EXISTS_ERROR.
pub(crate) fn exists(name: &str) -> SqlError {
    SqlError::new(1086, format!("File '{name}' already exists"))
}

/// The `(Errcode: n "text")` part of file errors.
fn errcode(e: &std::io::Error) -> String {
    let errno = e.raw_os_error().unwrap_or(0);
    let text = match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_owned(),
        _ => e.to_string(),
    };
    format!("(Errcode: {errno} \"{text}\")")
}

/// ER_CANT_CREATE_FILE.
pub(crate) fn cant_create(name: &str, e: &std::io::Error) -> SqlError {
    SqlError::new(1004, format!("Can't create file '{name}' {}", errcode(e)))
}

/// ER_FILE_NOT_FOUND.
pub(crate) fn cant_read(name: &str, e: &std::io::Error) -> SqlError {
    SqlError::new(29, format!("File '{name}' not found {}", errcode(e)))
}

/// ER_ERROR_ON_WRITE / ER_ERROR_ON_READ.
pub(crate) fn io_error(name: &str, e: &std::io::Error, write: bool) -> SqlError {
    let (code, what) = if write {
        (1026, "Error writing file")
    } else {
        (1024, "Error reading file")
    };
    SqlError::new(code, format!("{what} '{name}' {}", errcode(e)))
}
