//! Building responses: OK, ERR and EOF packets, and [`ResultWriter`], through
//! which the SQL layer emits the results of one command.
//!
//! A command (`COM_QUERY` or `COM_STMT_EXECUTE`) produces a sequence of
//! results, one per statement: each is either an OK (affected rows, last
//! insert id, ...) or a result set (column definitions and rows). The writer
//! encodes them straight into the connection's [`Outbox`] in the text or
//! binary protocol, and handles the framing rules the SQL layer should not
//! have to know:
//!
//! - every result but the last carries `SERVER_MORE_RESULTS_EXISTS`: the
//!   terminator (OK, or EOF of a result set) of a result is held back until
//!   the next result starts or the command ends, then written with the flag
//!   set or not;
//! - `CLIENT_DEPRECATE_EOF`: without it a result set has an EOF after the
//!   column definitions and ends with an EOF; with it the first EOF is
//!   omitted and the result set ends with an OK packet whose header is 0xFE;
//! - if the handler fails, a result set it had started is dropped and the ERR
//!   packet follows the results completed before it, as MySQL does when a
//!   statement of a multi-statement fails.
//!
//! Results are buffered until the handler returns, with two exceptions:
//! [`ResultWriter::local_infile`] sends what is buffered before it asks the
//! client for a file, and a writer given the connection's stream
//! ([`ResultWriter::with_local`], [`ResultWriter::with_sender`]) sends the
//! buffered packets whenever a row takes them past [`SEND_THRESHOLD`], so a
//! large result set costs a bounded buffer, not its encoded size. A result
//! set that fails after some of its rows went out ends with the ERR packet
//! after those rows, as MySQL ends a result set interrupted by an error.

use crate::column::ColumnDef;
use crate::error::MysqlError;
use crate::local_infile::{LocalInfileReader, LocalIo};
use crate::packet::{Outbox, OutboxMark};
use crate::value::{encode_binary, Value};
use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::BufMutExt;

/// Outcome of a statement that returns no rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OkResult {
    /// Rows changed (or found, with `CLIENT_FOUND_ROWS`).
    pub affected_rows: u64,
    /// `LAST_INSERT_ID()` after the statement.
    pub last_insert_id: u64,
    /// Number of warnings.
    pub warnings: u16,
    /// Human-readable info (e.g. "Rows matched: 1  Changed: 1  Warnings: 0").
    pub info: String,
    /// Flags for this result only (e.g. `SERVER_STATUS_NO_INDEX_USED`); the
    /// session flags (autocommit, in transaction) are added by the writer.
    pub status: StatusFlags,
}

impl OkResult {
    /// An OK with `affected_rows` and nothing else.
    pub fn affected(affected_rows: u64) -> Self {
        OkResult {
            affected_rows,
            ..OkResult::default()
        }
    }
}

/// A complete result set, for handlers that build results in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultSet {
    /// Column definitions.
    pub columns: Vec<ColumnDef>,
    /// Rows; each has one value per column.
    pub rows: Vec<Vec<Value>>,
}

/// Appends an OK packet payload (`header` 0x00, or 0xFE for an OK that ends
/// a result set under `CLIENT_DEPRECATE_EOF`).
pub(crate) fn write_ok(out: &mut Vec<u8>, header: u8, ok: &OkResult, status: StatusFlags) {
    out.push(header);
    out.put_lenenc_int(ok.affected_rows);
    out.put_lenenc_int(ok.last_insert_id);
    out.extend_from_slice(&status.bits().to_le_bytes());
    out.extend_from_slice(&ok.warnings.to_le_bytes());
    // Documented as string<EOF>, but MySQL and MariaDB servers write a
    // length-encoded string and clients read one.
    if !ok.info.is_empty() {
        out.put_lenenc_str(ok.info.as_bytes());
    }
}

/// Appends an ERR packet payload (protocol 4.1 form, with SQLSTATE).
pub(crate) fn write_err(out: &mut Vec<u8>, err: &MysqlError) {
    out.push(0xff);
    out.extend_from_slice(&err.code.to_le_bytes());
    out.push(b'#');
    out.extend_from_slice(&err.sql_state);
    out.extend_from_slice(err.message.as_bytes());
}

/// Appends an ERR packet payload sent before the handshake (a blocked
/// host): no SQLSTATE, as the client has not negotiated
/// `CLIENT_PROTOCOL_41` yet (MariaDB's `net_send_error_packet`).
pub(crate) fn write_err_before_handshake(out: &mut Vec<u8>, err: &MysqlError) {
    out.push(0xff);
    out.extend_from_slice(&err.code.to_le_bytes());
    out.extend_from_slice(err.message.as_bytes());
}

/// Appends an EOF packet payload.
pub(crate) fn write_eof(out: &mut Vec<u8>, warnings: u16, status: StatusFlags) {
    out.push(0xfe);
    out.extend_from_slice(&warnings.to_le_bytes());
    out.extend_from_slice(&status.bits().to_le_bytes());
}

/// Appends "end of a list of definitions or rows": EOF, or the OK form of it
/// with `CLIENT_DEPRECATE_EOF`.
pub(crate) fn write_terminator(
    out: &mut Vec<u8>,
    deprecate_eof: bool,
    warnings: u16,
    status: StatusFlags,
) {
    if deprecate_eof {
        let ok = OkResult {
            warnings,
            ..OkResult::default()
        };
        write_ok(out, 0xfe, &ok, status);
    } else {
        write_eof(out, warnings, status);
    }
}

/// A terminator written once it is known whether more results follow;
/// `status` is the session status when the result ended.
#[derive(Debug)]
enum Pending {
    Ok { ok: OkResult, status: StatusFlags },
    EndOfRows { warnings: u16, status: StatusFlags },
}

impl std::fmt::Debug for ResultWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultWriter")
            .field("binary", &self.binary)
            .field("results", &self.results)
            .finish()
    }
}

/// The result set being written.
#[derive(Debug)]
struct OpenResultSet {
    columns: Vec<(crate::column::ColumnType, u8)>,
    start: OutboxMark,
    /// Some of its packets went out already (`start` is gone).
    sent: bool,
}

/// Buffered response bytes beyond which a writer with a stream sends them
/// while rows are still being written.
pub const SEND_THRESHOLD: usize = 64 * 1024;

/// Writes the results of one command; see the module documentation.
pub struct ResultWriter<'a> {
    outbox: &'a mut Outbox,
    /// The connection's stream: sends buffered rows early, and serves LOAD
    /// DATA LOCAL INFILE when `files` allows it.
    local: Option<&'a mut dyn LocalIo>,
    /// The command may ask the client for files (COM_QUERY only).
    files: bool,
    local_files: bool,
    /// Part of the response went out during a LOCAL INFILE exchange.
    sent_early: bool,
    deprecate_eof: bool,
    binary: bool,
    multi_statements: bool,
    session_status: StatusFlags,
    pending: Option<Pending>,
    open: Option<OpenResultSet>,
    results: usize,
}

impl<'a> ResultWriter<'a> {
    pub(crate) fn new(
        outbox: &'a mut Outbox,
        capabilities: CapabilityFlags,
        binary: bool,
        multi_statements: bool,
        session_status: StatusFlags,
    ) -> Self {
        ResultWriter {
            outbox,
            local: None,
            files: false,
            sent_early: false,
            local_files: capabilities.contains(CapabilityFlags::CLIENT_LOCAL_FILES),
            deprecate_eof: capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF),
            binary,
            multi_statements,
            session_status,
            pending: None,
            open: None,
            results: 0,
        }
    }

    /// Lets the SQL layer ask the client for files (LOAD DATA LOCAL), and
    /// the writer send rows before the command ends.
    pub(crate) fn with_local(mut self, io: &'a mut dyn LocalIo) -> Self {
        self.local = Some(io);
        self.files = true;
        self
    }

    /// Lets the writer send rows before the command ends (no files).
    pub(crate) fn with_sender(mut self, io: &'a mut dyn LocalIo) -> Self {
        self.local = Some(io);
        self
    }

    /// LOAD DATA LOCAL INFILE: sends the results so far and the request
    /// for `name`, and returns the reader of the client's file (see
    /// [`crate::local_infile`]). ER 1148 when the client did not offer
    /// `CLIENT_LOCAL_FILES` or the command cannot read files.
    pub fn local_infile(&mut self, name: &[u8]) -> Result<LocalInfileReader<'_>, MysqlError> {
        let refused = || {
            MysqlError::new(
                1148,
                "42000",
                "The used command is not allowed with this MariaDB version",
            )
        };
        if !self.local_files {
            return Err(refused());
        }
        self.ensure_no_open_result_set()?;
        if self.local.is_none() || !self.files {
            return Err(refused());
        }
        self.flush_pending(true);
        let Some(io) = self.local.as_deref_mut() else {
            return Err(refused());
        };
        self.sent_early = true;
        LocalInfileReader::start(io, self.outbox, name)
    }

    /// True if the client allowed several statements in one `COM_QUERY`
    /// (`CLIENT_MULTI_STATEMENTS` / `COM_SET_OPTION`). When false, the SQL
    /// layer must reject a query text holding more than one statement.
    pub fn multi_statements(&self) -> bool {
        self.multi_statements
    }

    /// True when rows are encoded in the binary protocol (`COM_STMT_EXECUTE`).
    pub fn is_binary(&self) -> bool {
        self.binary
    }

    /// Session status flags put in every OK/EOF from now on (autocommit,
    /// in transaction, ...). Update after a statement changes them.
    pub fn set_session_status(&mut self, status: StatusFlags) {
        self.session_status = status - StatusFlags::SERVER_MORE_RESULTS_EXISTS;
    }

    /// Current session status flags.
    pub fn session_status(&self) -> StatusFlags {
        self.session_status
    }

    /// Number of results written so far (the open result set included).
    pub fn result_count(&self) -> usize {
        self.results
    }

    /// Ends a statement with an OK packet.
    pub fn ok(&mut self, ok: OkResult) -> Result<(), MysqlError> {
        self.ensure_no_open_result_set()?;
        self.flush_pending(true);
        let status = self.session_status | ok.status;
        self.pending = Some(Pending::Ok { ok, status });
        self.results += 1;
        Ok(())
    }

    /// Starts a result set with these columns; then call [`Self::row`] for
    /// each row and [`Self::end_result_set`].
    pub fn begin_result_set(&mut self, columns: &[ColumnDef]) -> Result<(), MysqlError> {
        self.ensure_no_open_result_set()?;
        self.flush_pending(true);
        let start = self.outbox.mark();
        let out = self.outbox.begin();
        out.put_lenenc_int(columns.len() as u64);
        for column in columns {
            column.encode(self.outbox.begin());
        }
        if !self.deprecate_eof {
            write_eof(self.outbox.begin(), 0, self.session_status);
        }
        self.outbox.end();
        self.open = Some(OpenResultSet {
            columns: columns
                .iter()
                .map(|c| (c.column_type, c.decimals))
                .collect(),
            start,
            sent: false,
        });
        self.results += 1;
        Ok(())
    }

    /// Writes one row of the open result set.
    pub fn row(&mut self, values: &[Value]) -> Result<(), MysqlError> {
        let Some(open) = &self.open else {
            return Err(MysqlError::unknown("row written outside a result set"));
        };
        if values.len() != open.columns.len() {
            return Err(MysqlError::unknown(format!(
                "row has {} values for {} columns",
                values.len(),
                open.columns.len()
            )));
        }
        let out = self.outbox.begin();
        if self.binary {
            out.push(0x00);
            let bitmap_start = out.len();
            out.resize(bitmap_start + (values.len() + 7 + 2) / 8, 0);
            for (i, value) in values.iter().enumerate() {
                if value.is_null() {
                    let bit = i + 2;
                    out[bitmap_start + bit / 8] |= 1 << (bit % 8);
                }
            }
            for (value, &(ty, _)) in values.iter().zip(&open.columns) {
                if !value.is_null() {
                    encode_binary(out, value, ty).map_err(|e| MysqlError::unknown(e.0))?;
                }
            }
        } else {
            for (value, &(_, decimals)) in values.iter().zip(&open.columns) {
                match value {
                    // Strings go out as they are, without a copy.
                    Value::Bytes(b) => out.put_lenenc_str(b),
                    _ => match value.to_text(decimals) {
                        None => out.push(0xfb),
                        Some(text) => out.put_lenenc_str(&text),
                    },
                }
            }
        }
        self.outbox.end();
        if self.outbox.len() >= SEND_THRESHOLD {
            self.send_buffered()?;
        }
        Ok(())
    }

    /// Sends the buffered packets (the open result set's so far among
    /// them), when the writer has the connection's stream. A failure means
    /// the client cannot be reached: the statement should stop (ER 1160).
    fn send_buffered(&mut self) -> Result<(), MysqlError> {
        let Some(io) = self.local.as_deref_mut() else {
            return Ok(());
        };
        self.sent_early = true;
        if let Some(open) = &mut self.open {
            open.sent = true;
        }
        io.send(self.outbox).map_err(|e| {
            MysqlError::new(
                1160,
                "08S01",
                format!("Got an error writing communication packets: {e}"),
            )
        })
    }

    /// Ends the open result set.
    pub fn end_result_set(&mut self, warnings: u16) -> Result<(), MysqlError> {
        if self.open.take().is_none() {
            return Err(MysqlError::unknown("no result set to end"));
        }
        self.pending = Some(Pending::EndOfRows {
            warnings,
            status: self.session_status,
        });
        Ok(())
    }

    /// Writes a whole result set.
    pub fn result_set(&mut self, result: &ResultSet) -> Result<(), MysqlError> {
        self.begin_result_set(&result.columns)?;
        for row in &result.rows {
            self.row(row)?;
        }
        self.end_result_set(0)
    }

    fn ensure_no_open_result_set(&self) -> Result<(), MysqlError> {
        if self.open.is_some() {
            return Err(MysqlError::unknown("previous result set was not ended"));
        }
        Ok(())
    }

    /// Writes the held-back terminator, with `SERVER_MORE_RESULTS_EXISTS`
    /// if `more` results follow.
    fn flush_pending(&mut self, more: bool) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let more_flag = if more {
            StatusFlags::SERVER_MORE_RESULTS_EXISTS
        } else {
            StatusFlags::empty()
        };
        match pending {
            Pending::Ok { ok, status } => {
                write_ok(self.outbox.begin(), 0x00, &ok, status | more_flag)
            }
            Pending::EndOfRows { warnings, status } => write_terminator(
                self.outbox.begin(),
                self.deprecate_eof,
                warnings,
                status | more_flag,
            ),
        }
        self.outbox.end();
    }

    /// Completes the response once the handler has returned `outcome`.
    pub(crate) fn finish(mut self, outcome: Result<(), MysqlError>) {
        match outcome {
            Ok(()) => {
                if self.open.is_some() {
                    let _ = self.end_result_set(0);
                }
                if self.pending.is_none() && self.results == 0 {
                    self.pending = Some(Pending::Ok {
                        ok: OkResult::default(),
                        status: self.session_status,
                    });
                }
                self.flush_pending(false);
            }
            Err(err) => {
                // Rows already sent stay: the ERR follows them. Otherwise
                // the result set is dropped.
                if let Some(open) = self.open.take().filter(|o| !o.sent) {
                    self.outbox.rollback(open.start);
                }
                self.flush_pending(true);
                write_err(self.outbox.begin(), &err);
                self.outbox.end();
            }
        }
    }

    /// Drops everything written (used when the handler panicked).
    pub(crate) fn abandon(self, start: OutboxMark) {
        match (self.sent_early, self.local) {
            // What went out stays; the rest continues the stream's numbering.
            (true, Some(io)) => self.outbox.restart(io.seq()),
            _ => self.outbox.rollback(start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::ColumnType;

    /// Splits framed bytes into payloads.
    fn payloads(bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while rest.len() >= 4 {
            let len = usize::from(rest[0]) | usize::from(rest[1]) << 8 | usize::from(rest[2]) << 16;
            out.push(rest[4..4 + len].to_vec());
            rest = &rest[4 + len..];
        }
        out
    }

    fn status_of_ok(p: &[u8]) -> u16 {
        // header, affected (1 byte), last id (1 byte), status
        u16::from_le_bytes([p[3], p[4]])
    }

    #[test]
    fn multi_results_flag_all_but_the_last() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::empty(),
            false,
            true,
            StatusFlags::SERVER_STATUS_AUTOCOMMIT,
        );
        w.ok(OkResult::affected(3))?;
        w.result_set(&ResultSet {
            columns: vec![ColumnDef::new("a", ColumnType::MYSQL_TYPE_LONGLONG)],
            rows: vec![vec![Value::Int(1)], vec![Value::Null]],
        })?;
        w.finish(Ok(()));
        let p = payloads(outbox.as_bytes());
        // OK, count, coldef, EOF, row, row, EOF
        assert_eq!(p.len(), 7);
        assert_eq!(p[0][0], 0x00);
        assert_eq!(p[0][1], 3);
        assert_eq!(status_of_ok(&p[0]), 0x0002 | 0x0008);
        assert_eq!(p[1], [1]);
        assert_eq!(p[3][0], 0xfe);
        assert_eq!(p[4], b"\x011");
        assert_eq!(p[5], [0xfb]);
        let last = &p[6];
        assert_eq!(last[0], 0xfe);
        assert_eq!(u16::from_le_bytes([last[3], last[4]]), 0x0002);
        Ok(())
    }

    #[test]
    fn deprecate_eof_uses_ok_terminator() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::CLIENT_DEPRECATE_EOF,
            false,
            false,
            StatusFlags::empty(),
        );
        w.result_set(&ResultSet {
            columns: vec![ColumnDef::new("a", ColumnType::MYSQL_TYPE_VAR_STRING)],
            rows: vec![vec![Value::from("x")]],
        })?;
        w.finish(Ok(()));
        let p = payloads(outbox.as_bytes());
        assert_eq!(p.len(), 4); // count, coldef, row, OK(0xfe)
        assert_eq!(p[3][0], 0xfe);
        assert_eq!(p[3].len(), 7);
        Ok(())
    }

    #[test]
    fn error_drops_open_result_set_and_follows_completed_results() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::empty(),
            false,
            true,
            StatusFlags::empty(),
        );
        w.ok(OkResult::affected(1))?;
        w.begin_result_set(&[ColumnDef::new("a", ColumnType::MYSQL_TYPE_LONG)])?;
        w.row(&[Value::Int(5)])?;
        assert!(w.row(&[]).is_err());
        w.finish(Err(MysqlError::new(
            1146,
            "42S02",
            "Table 't' doesn't exist",
        )));
        let p = payloads(outbox.as_bytes());
        assert_eq!(p.len(), 2);
        assert_eq!(status_of_ok(&p[0]) & 0x0008, 0x0008);
        assert_eq!(&p[1][..9], b"\xff\x7a\x04#42S02");
        assert_eq!(outbox.seq(), 3);
        Ok(())
    }

    #[test]
    fn binary_rows_have_null_bitmap_with_offset_two() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::CLIENT_DEPRECATE_EOF,
            true,
            false,
            StatusFlags::empty(),
        );
        w.begin_result_set(&[
            ColumnDef::new("a", ColumnType::MYSQL_TYPE_LONG),
            ColumnDef::new("b", ColumnType::MYSQL_TYPE_VAR_STRING),
            ColumnDef::new("c", ColumnType::MYSQL_TYPE_TINY),
        ])?;
        w.row(&[Value::Int(7), Value::Null, Value::Int(-1)])?;
        w.finish(Ok(()));
        let p = payloads(outbox.as_bytes());
        assert_eq!(p[4], [0x00, 0b0000_1000, 7, 0, 0, 0, 0xff]);
        Ok(())
    }

    /// A stream that keeps what it is sent.
    #[derive(Default)]
    struct Recorder {
        sent: Vec<u8>,
        seq: u8,
        fail: bool,
    }

    impl LocalIo for Recorder {
        fn send(&mut self, outbox: &mut Outbox) -> Result<(), crate::error::WireError> {
            if self.fail {
                return Err(crate::error::WireError::Closed);
            }
            self.sent.extend_from_slice(outbox.as_bytes());
            self.seq = outbox.seq();
            outbox.restart(self.seq);
            Ok(())
        }

        fn read_packet(&mut self, _: &mut Vec<u8>) -> Result<(), crate::error::WireError> {
            Err(crate::error::WireError::Closed)
        }

        fn seq(&self) -> u8 {
            self.seq
        }
    }

    fn long_row(i: usize) -> Vec<Value> {
        vec![Value::from(format!("{i:05}{}", "x".repeat(995)).as_str())]
    }

    #[test]
    fn a_large_result_set_goes_out_while_rows_are_written() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut io = Recorder::default();
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::empty(),
            false,
            false,
            StatusFlags::empty(),
        )
        .with_sender(&mut io);
        w.begin_result_set(&[ColumnDef::new("a", ColumnType::MYSQL_TYPE_VAR_STRING)])?;
        let mut most_held = 0;
        for i in 0..1000 {
            w.row(&long_row(i))?;
            most_held = most_held.max(w.outbox.len());
        }
        // Files stay refused: the stream only sends rows.
        assert!(w.open.is_some());
        w.end_result_set(0)?;
        assert_eq!(
            w.local_infile(b"f").map(|_| ()).err().map(|e| e.code),
            Some(1148)
        );
        w.finish(Ok(()));
        assert!(most_held < SEND_THRESHOLD + 2048, "held {most_held} bytes");
        let mut all = io.sent.clone();
        all.extend_from_slice(outbox.as_bytes());
        let p = payloads(&all);
        // count, coldef, EOF, 1000 rows, EOF, with consecutive ids
        assert_eq!(p.len(), 1004);
        assert_eq!(&p[3][3..8], b"00000");
        assert_eq!(&p[1002][3..8], b"00999");
        assert_eq!(p[1003][0], 0xfe);
        assert_eq!(outbox.seq(), 1u8.wrapping_add(1004u16 as u8));
        assert!(io.sent.len() > 900 * 1000);
        Ok(())
    }

    #[test]
    fn an_error_after_rows_went_out_follows_them() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut io = Recorder::default();
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::empty(),
            false,
            false,
            StatusFlags::empty(),
        )
        .with_sender(&mut io);
        w.begin_result_set(&[ColumnDef::new("a", ColumnType::MYSQL_TYPE_VAR_STRING)])?;
        for i in 0..100 {
            w.row(&long_row(i))?;
        }
        w.finish(Err(MysqlError::new(
            1969,
            "70100",
            "Query execution was interrupted",
        )));
        let mut all = io.sent.clone();
        all.extend_from_slice(outbox.as_bytes());
        let p = payloads(&all);
        assert_eq!(p.len(), 104);
        assert_eq!(&p[102][3..8], b"00099");
        assert_eq!(&p[103][..3], b"\xff\xb1\x07");
        Ok(())
    }

    #[test]
    fn a_client_that_cannot_be_reached_stops_the_rows() -> Result<(), MysqlError> {
        let mut outbox = Outbox::new(1);
        let mut io = Recorder {
            fail: true,
            ..Recorder::default()
        };
        let mut w = ResultWriter::new(
            &mut outbox,
            CapabilityFlags::empty(),
            false,
            false,
            StatusFlags::empty(),
        )
        .with_sender(&mut io);
        w.begin_result_set(&[ColumnDef::new("a", ColumnType::MYSQL_TYPE_VAR_STRING)])?;
        let failed = (0..1000).find_map(|i| w.row(&long_row(i)).err());
        assert_eq!(failed.map(|e| e.code), Some(1160));
        Ok(())
    }
}
