//! Raw-packet tests: exchanges real client libraries do not produce, and
//! exact checks of packet contents (sequence ids, status flags, EOF forms).

mod support;

use larch_wire::{CapabilityFlags, ColumnType};
use mysql_common::io::ParseBuf;
use support::raw::{
    default_caps, execute_payload, lenenc_str, parse_err, text_row, RawClient, Res,
};
use support::{test_config, TestServer};

const SERVER_STATUS_IN_TRANS: u16 = 0x0001;
const SERVER_STATUS_AUTOCOMMIT: u16 = 0x0002;
const SERVER_MORE_RESULTS_EXISTS: u16 = 0x0008;
const SERVER_STATUS_NO_INDEX_USED: u16 = 0x0020;

fn login(server: &TestServer) -> Result<RawClient, Box<dyn std::error::Error>> {
    RawClient::login(server.addr, "native", "pw", default_caps())
}

/// Sends COM_STMT_PREPARE and reads the whole response (no
/// CLIENT_DEPRECATE_EOF); returns (statement id, columns, params).
fn prepare(c: &mut RawClient, sql: &str) -> Result<(u32, u16, u16), Box<dyn std::error::Error>> {
    let mut p = vec![0x16];
    p.extend_from_slice(sql.as_bytes());
    c.command(&p)?;
    let ok = c.read()?;
    if ok[0] != 0 {
        return Err(format!("prepare failed: {:?}", parse_err(&ok)).into());
    }
    let id = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
    let columns = u16::from_le_bytes([ok[5], ok[6]]);
    let params = u16::from_le_bytes([ok[7], ok[8]]);
    for _ in 0..params {
        c.read()?;
    }
    if params > 0 {
        assert_eq!(c.read()?[0], 0xfe);
    }
    for _ in 0..columns {
        c.read()?;
    }
    if columns > 0 {
        assert_eq!(c.read()?[0], 0xfe);
    }
    Ok((id, columns, params))
}

fn le_i64(v: i64) -> Option<Vec<u8>> {
    Some(v.to_le_bytes().to_vec())
}

#[test]
fn execute_without_resent_types_uses_remembered_types() -> Res<()> {
    // sysbench (libmysqlclient) sends parameter types only on the first
    // execution; later ones have new_params_bound_flag = 0 and no types.
    let server = TestServer::start(test_config())?;
    let mut c = login(&server)?;
    let (insert, _, params) = prepare(&mut c, "INSERT INTO kv VALUES (?, ?)")?;
    assert_eq!(params, 2);
    let types = [
        (ColumnType::MYSQL_TYPE_LONGLONG as u8, 0),
        (ColumnType::MYSQL_TYPE_VAR_STRING as u8, 0),
    ];
    c.command(&execute_payload(
        insert,
        Some(&types),
        &[le_i64(1), Some(lenenc_str(b"first"))],
    ))?;
    assert_eq!(c.read()?[0], 0x00);
    for (k, v) in [(2i64, &b"second"[..]), (3, b"")] {
        c.command(&execute_payload(
            insert,
            None,
            &[le_i64(k), Some(lenenc_str(v))],
        ))?;
        let ok = c.read()?;
        assert_eq!(ok[0], 0x00, "{:?}", parse_err(&ok));
    }
    c.command(&execute_payload(insert, None, &[le_i64(4), None]))?;
    assert_eq!(c.read()?[0], 0x00);
    {
        let table = server.state.table.lock();
        assert_eq!(table.get(&1), Some(&larch_wire::Value::from("first")));
        assert_eq!(table.get(&2), Some(&larch_wire::Value::from("second")));
        assert_eq!(table.get(&3), Some(&larch_wire::Value::from("")));
        assert_eq!(table.get(&4), Some(&larch_wire::Value::Null));
    }
    // Rebinding with other types (LONG instead of LONGLONG) is honoured.
    let types = [
        (ColumnType::MYSQL_TYPE_LONG as u8, 0),
        (ColumnType::MYSQL_TYPE_BLOB as u8, 0),
    ];
    c.command(&execute_payload(
        insert,
        Some(&types),
        &[Some(9i32.to_le_bytes().to_vec()), Some(lenenc_str(b"nine"))],
    ))?;
    assert_eq!(c.read()?[0], 0x00);
    c.command(&execute_payload(
        insert,
        None,
        &[Some(10i32.to_le_bytes().to_vec()), Some(lenenc_str(b"ten"))],
    ))?;
    assert_eq!(c.read()?[0], 0x00);
    assert_eq!(
        server.state.table.lock().get(&10),
        Some(&larch_wire::Value::from("ten"))
    );

    // A SELECT re-executed without types returns binary rows.
    let (select, columns, _) = prepare(&mut c, "SELECT v FROM kv WHERE k = ?")?;
    assert_eq!(columns, 1);
    c.command(&execute_payload(
        select,
        Some(&[(ColumnType::MYSQL_TYPE_LONGLONG as u8, 0)]),
        &[le_i64(1)],
    ))?;
    let packets = c.read_result_set(false)?;
    assert_eq!(packets.len(), 5); // count, coldef, EOF, row, EOF
    assert_eq!(
        packets[3],
        [&[0x00, 0x00][..], &lenenc_str(b"first")].concat()
    );
    c.command(&execute_payload(select, None, &[le_i64(2)]))?;
    let packets = c.read_result_set(false)?;
    assert_eq!(
        packets[3],
        [&[0x00, 0x00][..], &lenenc_str(b"second")].concat()
    );
    c.command(&execute_payload(select, None, &[le_i64(4)]))?;
    let packets = c.read_result_set(false)?;
    assert_eq!(packets[3], [0x00, 0b0000_0100]); // NULL bit of column 0 (offset 2)
    Ok(())
}

#[test]
fn statement_errors_keep_the_connection() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut c = login(&server)?;
    let (insert, _, _) = prepare(&mut c, "INSERT INTO kv VALUES (?, ?)")?;
    // First execution without types: nothing to decode the values with.
    c.command(&execute_payload(insert, None, &[le_i64(1), None]))?;
    let (code, _, message) = parse_err(&c.read()?).ok_or("expected ERR")?;
    assert_eq!(
        (code, message.as_str()),
        (1210, "Incorrect arguments to mysqld_stmt_execute")
    );
    // Unknown statement ids.
    c.command(&execute_payload(999, None, &[]))?;
    let (code, state, message) = parse_err(&c.read()?).ok_or("expected ERR")?;
    assert_eq!((code, state.as_str()), (1243, "HY000"));
    assert_eq!(
        message,
        "Unknown prepared statement handler (999) given to mysqld_stmt_execute"
    );
    c.command(&[0x1a, 0xe7, 0x03, 0, 0])?; // COM_STMT_RESET 999
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1243));
    // Truncated parameter values.
    let types = [
        (ColumnType::MYSQL_TYPE_LONGLONG as u8, 0),
        (ColumnType::MYSQL_TYPE_VAR_STRING as u8, 0),
    ];
    let mut p = execute_payload(insert, Some(&types), &[le_i64(1), Some(lenenc_str(b"abc"))]);
    p.truncate(p.len() - 2);
    c.command(&p)?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1210));
    // Closed statements are gone.
    let mut close = vec![0x19];
    close.extend_from_slice(&insert.to_le_bytes());
    c.command(&close)?; // no response
    c.command(&execute_payload(insert, Some(&types), &[le_i64(1), None]))?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1243));
    // Still usable.
    c.command(&[0x0e])?;
    assert_eq!(c.read()?[0], 0x00);
    Ok(())
}

#[test]
fn send_long_data_fills_a_parameter() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut c = login(&server)?;
    let (insert, _, _) = prepare(&mut c, "INSERT INTO kv VALUES (?, ?)")?;
    let chunks: [&[u8]; 3] = [b"\x00binary\xff", &[7u8; 70_000], b"tail"];
    for chunk in chunks {
        let mut p = vec![0x18];
        p.extend_from_slice(&insert.to_le_bytes());
        p.extend_from_slice(&1u16.to_le_bytes());
        p.extend_from_slice(chunk);
        c.command(&p)?; // no response by protocol
    }
    let types = [
        (ColumnType::MYSQL_TYPE_LONGLONG as u8, 0),
        (ColumnType::MYSQL_TYPE_BLOB as u8, 0),
    ];
    // Parameter 1 has long data: its value is not in the packet.
    c.command(&execute_with_long_data(
        insert,
        &types,
        &11i64.to_le_bytes(),
    ))?;
    let ok = c.read()?;
    assert_eq!(ok[0], 0x00, "{:?}", parse_err(&ok));
    let expected: Vec<u8> = chunks.concat();
    assert_eq!(
        server.state.table.lock().get(&11),
        Some(&larch_wire::Value::Bytes(expected))
    );
    // Long data is consumed by the execution.
    c.command(&execute_payload(
        insert,
        None,
        &[le_i64(12), Some(lenenc_str(b"plain"))],
    ))?;
    assert_eq!(c.read()?[0], 0x00);
    assert_eq!(
        server.state.table.lock().get(&12),
        Some(&larch_wire::Value::from("plain"))
    );
    Ok(())
}

/// An execute payload for a 2-parameter statement whose second parameter
/// was sent as long data: bitmap, bound flag, both types, first value only.
fn execute_with_long_data(stmt: u32, types: &[(u8, u8)], first: &[u8]) -> Vec<u8> {
    let mut p = vec![0x17];
    p.extend_from_slice(&stmt.to_le_bytes());
    p.push(0);
    p.extend_from_slice(&1u32.to_le_bytes());
    p.push(0); // null bitmap: nothing NULL
    p.push(1);
    for &(t, f) in types {
        p.extend_from_slice(&[t, f]);
    }
    p.extend_from_slice(first);
    p
}

#[test]
fn deprecate_eof_and_status_flags() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let caps = default_caps() | CapabilityFlags::CLIENT_DEPRECATE_EOF;
    let mut c = RawClient::login(server.addr, "native", "pw", caps)?;
    c.command(b"\x03SELECT 1; BEGIN; WARN; SELECT 2; COMMIT")?;
    // Result 1: count, coldef, row, OK(0xFE) with MORE_RESULTS.
    let rs = c.read_result_set(true)?;
    assert_eq!(rs.len(), 4);
    assert_eq!(text_row(&rs[2]), vec![Some(b"1".to_vec())]);
    let end = &rs[3];
    assert_eq!(end[0], 0xfe);
    let status = u16::from_le_bytes([end[3], end[4]]);
    assert_eq!(
        status,
        SERVER_STATUS_AUTOCOMMIT | SERVER_MORE_RESULTS_EXISTS
    );
    // BEGIN: OK with IN_TRANS.
    let ok = c.read()?;
    assert_eq!(
        u16::from_le_bytes([ok[3], ok[4]]),
        SERVER_STATUS_IN_TRANS | SERVER_MORE_RESULTS_EXISTS
    );
    // WARN: per-result flag and warning count.
    let ok = c.read()?;
    let status = u16::from_le_bytes([ok[3], ok[4]]);
    assert_eq!(
        status,
        SERVER_STATUS_IN_TRANS | SERVER_MORE_RESULTS_EXISTS | SERVER_STATUS_NO_INDEX_USED
    );
    assert_eq!(u16::from_le_bytes([ok[5], ok[6]]), 2);
    let rs = c.read_result_set(true)?;
    assert_eq!(
        u16::from_le_bytes([rs[3][3], rs[3][4]]),
        SERVER_STATUS_IN_TRANS | SERVER_MORE_RESULTS_EXISTS
    );
    // COMMIT: last result, autocommit again, no MORE_RESULTS.
    let ok = c.read()?;
    assert_eq!(u16::from_le_bytes([ok[3], ok[4]]), SERVER_STATUS_AUTOCOMMIT);
    // Prepare response without EOF packets.
    c.command(b"\x16SELECT v FROM kv WHERE k = ?")?;
    let ok = c.read()?;
    assert_eq!(ok[0], 0);
    let (param_def, col_def) = (c.read()?, c.read()?);
    assert_eq!(&param_def[..4], b"\x03def");
    assert_eq!(&col_def[..4], b"\x03def");
    c.command(&[0x0e])?; // the next packet must be the ping's OK
    assert_eq!(c.read()?, [0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
    Ok(())
}

#[test]
fn set_option_toggles_multi_statements() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut c = login(&server)?;
    c.command(&[0x1b, 0x01, 0x00])?; // MYSQL_OPTION_MULTI_STATEMENTS_OFF
    assert_eq!(c.read()?[0], 0xfe);
    c.command(b"\x03SELECT 1; SELECT 2")?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1064));
    c.command(&[0x1b, 0x00, 0x00])?; // ON
    assert_eq!(c.read()?[0], 0xfe);
    c.command(b"\x03SELECT 1; SELECT 2")?;
    let first = c.read_result_set(false)?;
    let eof = first.last().ok_or("no packets")?;
    assert_eq!(
        u16::from_le_bytes([eof[3], eof[4]]) & SERVER_MORE_RESULTS_EXISTS,
        SERVER_MORE_RESULTS_EXISTS
    );
    let second = c.read_result_set(false)?;
    assert_eq!(text_row(&second[3]), vec![Some(b"2".to_vec())]);
    c.command(&[0x1b, 0x05, 0x00])?; // unknown option
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1047));
    Ok(())
}

#[test]
fn small_commands() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut c = login(&server)?;
    // Unknown / unsupported command.
    c.command(&[0x05, b'd', b'b'])?; // COM_CREATE_DB
    let (code, state, message) = parse_err(&c.read()?).ok_or("expected ERR")?;
    assert_eq!(
        (code, state.as_str(), message.as_str()),
        (1047, "08S01", "Unknown command")
    );
    c.command(&[0xee])?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1047));
    // COM_STATISTICS: a bare string.
    c.command(&[0x09])?;
    let stats = c.read()?;
    assert!(stats.starts_with(b"Uptime: "), "{stats:?}");
    // COM_INIT_DB.
    c.command(b"\x02test")?;
    assert_eq!(c.read()?[0], 0x00);
    c.command(b"\x02nope")?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1049));
    // COM_FIELD_LIST.
    c.command(b"\x04kv\x00%")?;
    let (k, v, end) = (c.read()?, c.read()?, c.read()?);
    assert!(k.windows(2).any(|w| w == b"\x01k"));
    assert_eq!(v.last(), Some(&0xfb)); // empty default value
    assert_eq!(end[0], 0xfe);
    c.command(b"\x04missing\x00")?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1146));
    // COM_STMT_FETCH: no cursors are ever opened.
    c.command(&[0x1c, 1, 0, 0, 0, 1, 0, 0, 0])?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1421));
    // Empty query.
    c.command(b"\x03  ")?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1065));
    // COM_QUIT closes without a response.
    c.command(&[0x01])?;
    assert!(c.is_closed());
    Ok(())
}

#[test]
fn kill_closes_another_connection() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut victim = login(&server)?;
    let mut killer = login(&server)?;
    assert!(server
        .server
        .connection_ids()
        .contains(&victim.connection_id));
    let mut p = vec![0x0c];
    p.extend_from_slice(&victim.connection_id.to_le_bytes());
    killer.command(&p)?;
    assert_eq!(killer.read()?[0], 0x00);
    assert!(victim.is_closed(), "killed connection still open");
    let mut p = vec![0x0c];
    p.extend_from_slice(&999_999u32.to_le_bytes());
    killer.command(&p)?;
    let (code, _, message) = parse_err(&killer.read()?).ok_or("expected ERR")?;
    assert_eq!(
        (code, message.as_str()),
        (1094, "Unknown thread id: 999999")
    );
    Ok(())
}

#[test]
fn malformed_input_closes_only_that_connection() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut healthy = login(&server)?;

    // Wrong sequence id on a command.
    let mut c = login(&server)?;
    c.write_with_seq(5, &[0x0e])?;
    c.seq = 6;
    let (code, state, _) = parse_err(&c.read()?).ok_or("expected ERR")?;
    assert_eq!((code, state.as_str()), (1156, "08S01"));
    assert!(c.is_closed());

    // Empty command packet.
    let mut c = login(&server)?;
    c.command(&[])?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1835));
    assert!(c.is_closed());

    // COM_STMT_EXECUTE shorter than its fixed header.
    let mut c = login(&server)?;
    c.command(&[0x17, 1, 0])?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1835));
    assert!(c.is_closed());

    // Garbage instead of a handshake response.
    let mut c = RawClient::open(server.addr)?;
    c.read()?; // greeting
    c.write(&[0xff; 10])?;
    let (code, state, message) = parse_err(&c.read()?).ok_or("expected ERR")?;
    assert_eq!(
        (code, state.as_str(), message.as_str()),
        (1043, "08S01", "Bad handshake")
    );
    assert!(c.is_closed());

    // An SSL request (TLS is not offered).
    let mut c = RawClient::open(server.addr)?;
    c.read()?;
    let mut ssl = (default_caps() | CapabilityFlags::CLIENT_SSL)
        .bits()
        .to_le_bytes()
        .to_vec();
    ssl.extend_from_slice(&[0u8; 28]);
    c.write(&ssl)?;
    assert_eq!(parse_err(&c.read()?).map(|e| e.0), Some(1043));
    assert!(c.is_closed());

    // A client that disconnects in the middle of a packet.
    let mut c = login(&server)?;
    c.stream.write_all_partial(&[0x10, 0, 0, 0, 0x03, b'S'])?;
    drop(c);

    // The first connection was never disturbed.
    healthy.command(b"\x03SELECT 42")?;
    let rs = healthy.read_result_set(false)?;
    assert_eq!(text_row(&rs[3]), vec![Some(b"42".to_vec())]);
    Ok(())
}

#[test]
fn query_response_sequence_ids_and_lenenc_counts() -> Res<()> {
    let server = TestServer::start(test_config())?;
    let mut c = login(&server)?;
    c.command(b"\x03SELECT kinds")?;
    // `read` checks every sequence id (1, 2, ...).
    let rs = c.read_result_set(false)?;
    assert_eq!(ParseBuf(&rs[0]).eat_lenenc_int(), 13);
    assert_eq!(rs.len(), 1 + 13 + 1 + 2 + 1);
    let row = text_row(&rs[15]);
    assert_eq!(row[10], None);
    assert_eq!(row[9].as_deref(), Some(&b"-26:03:04.000000"[..]));
    Ok(())
}

/// Writes bytes then leaves the packet unfinished.
trait WritePartial {
    fn write_all_partial(&mut self, bytes: &[u8]) -> std::io::Result<()>;
}

impl WritePartial for std::net::TcpStream {
    fn write_all_partial(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        self.write_all(bytes)
    }
}
