//! The small protocol commands against the real `larchd` (larch-wire tests
//! them against a stand-in session):
//!
//! - COM_RESET_CONNECTION, through the `mysql` crate's `Conn::reset` and as
//!   a raw packet: the open transaction is rolled back (its row locks freed),
//!   temporary tables, user variables and prepared statements are gone,
//!   session variables are back to their global values, and the connection
//!   keeps its id;
//! - COM_FIELD_LIST: a table's column definitions (names, types, flags),
//!   filtered by a wildcard, and ER 1146 for a missing table;
//! - COM_STATISTICS: the status string, raw and through
//!   `mariadb-admin status` (when installed).

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mysql::prelude::Queryable;
use support::clients::{client, installed};
use support::{server_error, tempdir, Larchd, Res};

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// LONG_PASSWORD, LONG_FLAG, CONNECT_WITH_DB, PROTOCOL_41, TRANSACTIONS,
/// SECURE_CONNECTION, PLUGIN_AUTH.
const CLIENT_CAPS: u32 = 0x0001 | 0x0004 | 0x0008 | 0x0200 | 0x2000 | 0x8000 | 0x0008_0000;
const SERVER_STATUS_IN_TRANS: u16 = 0x0001;
const SERVER_STATUS_AUTOCOMMIT: u16 = 0x0002;

/// A minimal blocking client speaking raw packets (no EOF deprecation).
struct Raw {
    stream: TcpStream,
    seq: u8,
}

impl Raw {
    /// Logs in as `root` (no password) into database `db`.
    fn login(port: u16, db: &str) -> R<Raw> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut raw = Raw { stream, seq: 0 };
        let greeting = raw.read()?;
        assert_eq!(greeting.first(), Some(&10), "not a protocol 10 greeting");
        let mut response = CLIENT_CAPS.to_le_bytes().to_vec();
        response.extend_from_slice(&(16u32 << 20).to_le_bytes());
        response.push(45); // utf8mb4_general_ci
        response.extend_from_slice(&[0u8; 23]);
        response.extend_from_slice(b"root\0");
        response.push(0); // no auth data (empty password)
        response.extend_from_slice(db.as_bytes());
        response.push(0);
        response.extend_from_slice(b"mysql_native_password\0");
        raw.write(&response)?;
        let ok = raw.read()?;
        if ok.first() != Some(&0) {
            return Err(format!("login failed: {}", String::from_utf8_lossy(&ok)).into());
        }
        Ok(raw)
    }

    fn write(&mut self, payload: &[u8]) -> Res {
        let len = u32::try_from(payload.len())?.to_le_bytes();
        let mut packet = vec![len[0], len[1], len[2], self.seq];
        packet.extend_from_slice(payload);
        self.stream.write_all(&packet)?;
        self.seq = self.seq.wrapping_add(1);
        Ok(())
    }

    fn read(&mut self) -> R<Vec<u8>> {
        let mut header = [0u8; 4];
        self.stream.read_exact(&mut header)?;
        if header[3] != self.seq {
            return Err(
                format!("sequence id {} where {} was expected", header[3], self.seq).into(),
            );
        }
        self.seq = self.seq.wrapping_add(1);
        let len =
            usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
        let mut payload = vec![0u8; len];
        self.stream.read_exact(&mut payload)?;
        Ok(payload)
    }

    /// Sends one command (the sequence starts again at 0).
    fn command(&mut self, payload: &[u8]) -> Res {
        self.seq = 0;
        self.write(payload)
    }

    /// Reads column definitions (or rows) up to the EOF packet.
    fn read_to_eof(&mut self) -> R<Vec<Vec<u8>>> {
        let mut packets = Vec::new();
        loop {
            let p = self.read()?;
            match p.first() {
                Some(0xfe) if p.len() < 9 => return Ok(packets),
                Some(0xff) => return Err(format!("error: {:?}", err_of(&p)).into()),
                _ => packets.push(p),
            }
        }
    }

    /// COM_QUERY `sql`: the OK packet's status flags, or the rows as text.
    fn query(&mut self, sql: &str) -> R<Result<Vec<Vec<Option<String>>>, u16>> {
        let mut payload = vec![0x03];
        payload.extend_from_slice(sql.as_bytes());
        self.command(&payload)?;
        let first = self.read()?;
        match first.first() {
            Some(0x00) => {
                let mut rest = &first[1..];
                lenenc_int(&mut rest)?; // affected rows
                lenenc_int(&mut rest)?; // last insert id
                let status = rest.get(..2).ok_or("short OK packet")?;
                Ok(Err(u16::from_le_bytes([status[0], status[1]])))
            }
            Some(0xff) => Err(format!("{sql}: {:?}", err_of(&first)).into()),
            _ => {
                self.read_to_eof()?;
                let rows = self.read_to_eof()?;
                rows.iter()
                    .map(|r| text_row(r))
                    .collect::<R<Vec<_>>>()
                    .map(Ok)
            }
        }
    }

    /// The status flags of `sql`'s OK packet.
    fn ok(&mut self, sql: &str) -> R<u16> {
        match self.query(sql)? {
            Err(flags) => Ok(flags),
            Ok(rows) => Err(format!("{sql}: rows instead of OK: {rows:?}").into()),
        }
    }

    /// The only value of `sql`'s only row.
    fn value(&mut self, sql: &str) -> R<Option<String>> {
        match self.query(sql)? {
            Ok(rows) if rows.len() == 1 && rows[0].len() == 1 => Ok(rows[0][0].clone()),
            other => Err(format!("{sql}: not one value: {other:?}").into()),
        }
    }

    /// The error code `sql` fails with.
    fn error_of(&mut self, sql: &str) -> R<u16> {
        let mut payload = vec![0x03];
        payload.extend_from_slice(sql.as_bytes());
        self.command(&payload)?;
        let first = self.read()?;
        err_of(&first)
            .map(|(code, _)| code)
            .ok_or_else(|| format!("{sql} succeeded").into())
    }
}

/// (code, message) of an ERR packet.
fn err_of(p: &[u8]) -> Option<(u16, String)> {
    if p.first() != Some(&0xff) || p.len() < 9 {
        return None;
    }
    Some((
        u16::from_le_bytes([p[1], p[2]]),
        String::from_utf8_lossy(&p[9..]).into_owned(),
    ))
}

/// Takes a length-encoded integer off the front of `buf`.
fn lenenc_int(buf: &mut &[u8]) -> R<u64> {
    let (&first, rest) = buf.split_first().ok_or("short packet")?;
    let width = match first {
        0xfc => 2,
        0xfd => 3,
        0xfe => 8,
        _ => {
            *buf = rest;
            return Ok(u64::from(first));
        }
    };
    let bytes = rest.get(..width).ok_or("short packet")?;
    let n = bytes.iter().rev().fold(0u64, |n, b| n << 8 | u64::from(*b));
    *buf = &rest[width..];
    Ok(n)
}

/// Takes a length-encoded string off the front of `buf`.
fn lenenc_str(buf: &mut &[u8]) -> R<String> {
    let len = usize::try_from(lenenc_int(buf)?)?;
    let bytes = buf.get(..len).ok_or("short packet")?;
    *buf = &buf[len..];
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// The cells of a text row (NULL as `None`).
fn text_row(mut p: &[u8]) -> R<Vec<Option<String>>> {
    let mut cells = Vec::new();
    while let Some(&b) = p.first() {
        if b == 0xfb {
            p = &p[1..];
            cells.push(None);
        } else {
            cells.push(Some(lenenc_str(&mut p)?));
        }
    }
    Ok(cells)
}

/// (schema, table, name, type, flags) of a column definition.
fn column(mut p: &[u8]) -> R<(String, String, String, u8, u16)> {
    let buf = &mut p;
    lenenc_str(buf)?; // catalog
    let schema = lenenc_str(buf)?;
    let table = lenenc_str(buf)?;
    lenenc_str(buf)?; // original table
    let name = lenenc_str(buf)?;
    lenenc_str(buf)?; // original name
    lenenc_int(buf)?; // length of the fixed fields
                      // charset (2), length (4), type (1), flags (2)
    let fixed = buf.get(..9).ok_or("short column definition")?;
    Ok((
        schema,
        table,
        name,
        fixed[6],
        u16::from_le_bytes([fixed[7], fixed[8]]),
    ))
}

/// `Uptime`, `Threads` and `Questions` of a COM_STATISTICS string.
fn statistics_numbers(text: &str) -> R<(u64, u64, u64)> {
    let number = |label: &str| -> R<u64> {
        let rest = text
            .split(label)
            .nth(1)
            .ok_or_else(|| format!("no {label} in {text:?}"))?;
        let n = rest.split_whitespace().next().unwrap_or_default();
        Ok(n.parse()?)
    };
    Ok((
        number("Uptime: ")?,
        number("Threads: ")?,
        number("Questions: ")?,
    ))
}

#[test]
fn com_reset_connection_ends_the_session_state() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut other = server.connect()?;
    other.query_drop("CREATE TABLE test.t (id INT PRIMARY KEY)")?;
    other.query_drop("SET SESSION innodb_lock_wait_timeout = 5")?;
    let global: (String, u64) = other
        .query_first("SELECT @@GLOBAL.sql_mode, @@GLOBAL.wait_timeout")?
        .ok_or("no row")?;

    // The mysql crate's reset (COM_RESET_CONNECTION).
    let mut c = server.connect()?;
    let id = c.connection_id();
    c.query_drop("SET @u = 42, SESSION sql_mode = 'ANSI_QUOTES', SESSION wait_timeout = 1234")?;
    c.query_drop("CREATE TEMPORARY TABLE test.tmp (a INT)")?;
    c.query_drop("INSERT INTO test.tmp VALUES (1)")?;
    c.query_drop("PREPARE s FROM 'SELECT 1'")?;
    c.query_drop("START TRANSACTION")?;
    c.query_drop("INSERT INTO test.t VALUES (1)")?;
    assert_eq!(
        c.query_first::<u64, _>("SELECT COUNT(*) FROM test.t")?,
        Some(1)
    );
    c.reset()?;
    assert_eq!(c.connection_id(), id);
    assert_eq!(c.query_first::<u32, _>("SELECT CONNECTION_ID()")?, Some(id));
    let u: Option<Option<i64>> = c.query_first("SELECT @u")?;
    assert_eq!(u, Some(None), "the user variable survived the reset");
    let session: Option<(String, u64)> =
        c.query_first("SELECT @@SESSION.sql_mode, @@SESSION.wait_timeout")?;
    assert_eq!(session, Some(global.clone()));
    let err = c
        .query_drop("SELECT * FROM test.tmp")
        .err()
        .ok_or("tmp survived")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1146), "{err}");
    let err = c.query_drop("EXECUTE s").err().ok_or("s survived")?;
    assert_eq!(server_error(&err).map(|e| e.0), Some(1243), "{err}");
    // The insert was rolled back and its row lock freed: another session
    // inserts the same key without waiting.
    assert_eq!(
        c.query_first::<u64, _>("SELECT COUNT(*) FROM test.t")?,
        Some(0)
    );
    other.query_drop("INSERT INTO test.t VALUES (1)")?;
    // Autocommit again: the connection's insert is seen at once.
    c.query_drop("INSERT INTO test.t VALUES (2)")?;
    assert_eq!(
        other.query_first::<u64, _>("SELECT COUNT(*) FROM test.t")?,
        Some(2)
    );

    // The raw command.
    let mut raw = Raw::login(server.port, "test")?;
    raw.ok("SET @u = 7, SESSION sql_mode = 'ANSI_QUOTES'")?;
    raw.ok("CREATE TEMPORARY TABLE rawtmp (a INT)")?;
    let flags = raw.ok("START TRANSACTION")?;
    assert_ne!(flags & SERVER_STATUS_IN_TRANS, 0, "{flags:#x}");
    raw.ok("INSERT INTO t VALUES (3)")?;
    raw.command(&[0x1f])?;
    let ok = raw.read()?;
    assert_eq!(
        ok.first(),
        Some(&0),
        "COM_RESET_CONNECTION: {:?}",
        err_of(&ok)
    );
    let flags = u16::from_le_bytes([ok[3], ok[4]]);
    assert_eq!(
        flags & (SERVER_STATUS_IN_TRANS | SERVER_STATUS_AUTOCOMMIT),
        SERVER_STATUS_AUTOCOMMIT,
        "{flags:#x}"
    );
    assert_eq!(raw.value("SELECT @u")?, None);
    assert_eq!(raw.value("SELECT @@SESSION.sql_mode")?, Some(global.0));
    assert_eq!(raw.error_of("SELECT * FROM test.rawtmp")?, 1146);
    assert_eq!(
        raw.value("SELECT COUNT(*) FROM test.t WHERE id = 3")?,
        Some("0".into())
    );
    other.query_drop("INSERT INTO test.t VALUES (3)")?;
    Ok(())
}

#[test]
fn com_field_list_and_com_statistics() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = server.connect()?;
    conn.query_drop(
        "CREATE TABLE test.fl (id INT NOT NULL PRIMARY KEY, name VARCHAR(20), note TEXT)",
    )?;
    let mut raw = Raw::login(server.port, "test")?;

    // COM_FIELD_LIST: the column definitions, then EOF.
    raw.command(b"\x04fl\0")?;
    let columns = raw
        .read_to_eof()?
        .iter()
        .map(|p| column(p))
        .collect::<R<Vec<_>>>()?;
    let names: Vec<&str> = columns.iter().map(|c| c.2.as_str()).collect();
    assert_eq!(names, ["id", "name", "note"]);
    for (schema, table, ..) in &columns {
        assert_eq!((schema.as_str(), table.as_str()), ("test", "fl"));
    }
    // LONG, VAR_STRING, BLOB.
    let types: Vec<u8> = columns.iter().map(|c| c.3).collect();
    assert_eq!(types, [3, 253, 252]);
    // NOT_NULL | PRI_KEY on id, neither on name.
    assert_eq!(columns[0].4 & 0x3, 0x3, "{:#x}", columns[0].4);
    assert_eq!(columns[1].4 & 0x3, 0, "{:#x}", columns[1].4);
    // A wildcard picks columns.
    raw.command(b"\x04fl\0n%")?;
    let picked = raw
        .read_to_eof()?
        .iter()
        .map(|p| column(p).map(|c| c.2))
        .collect::<R<Vec<_>>>()?;
    assert_eq!(picked, ["name", "note"]);
    raw.command(b"\x04missing\0")?;
    assert_eq!(err_of(&raw.read()?).map(|e| e.0), Some(1146));
    // The connection goes on.
    assert_eq!(raw.value("SELECT 6*7")?, Some("42".into()));

    // COM_STATISTICS: one bare string; two connections are logged in.
    raw.command(&[0x09])?;
    let stats = String::from_utf8(raw.read()?)?;
    let (_, threads, questions) = statistics_numbers(&stats)?;
    assert_eq!(threads, 2, "{stats}");
    for _ in 0..3 {
        conn.query_drop("SELECT 1")?;
    }
    raw.command(&[0x09])?;
    let stats = String::from_utf8(raw.read()?)?;
    let (_, _, later) = statistics_numbers(&stats)?;
    assert!(later >= questions + 3, "{questions} then {later}: {stats}");
    assert!(stats.contains("Queries per second avg: "), "{stats}");

    if installed("com_field_list_and_com_statistics", "mariadb-admin") {
        let out = client("mariadb-admin", &server, &["status"], None)?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "mariadb-admin status failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (_, threads, asked) = statistics_numbers(&stdout)?;
        assert!(threads >= 2, "{stdout}");
        assert!(asked >= later, "{stdout}");
    }
    Ok(())
}
