//! End-to-end tests through the `mysql` client crate against the toy
//! session (see `support`): authentication, text and binary results,
//! multi-statements, prepared statements, errors, limits, panics.

mod support;

use mysql::prelude::Queryable;
use mysql::{Conn, Value as MyValue};
use support::{mysql_error, test_config, TestServer};

type Res = Result<(), Box<dyn std::error::Error>>;

fn connect(server: &TestServer, user: &str, pass: &str) -> mysql::Result<Conn> {
    Conn::new(server.opts(user, pass))
}

#[test]
fn native_password_login_and_access_denied() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = connect(&server, "native", "pw")?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    assert_eq!(conn.server_version(), (11, 4, 0));

    let err = connect(&server, "native", "wrong")
        .err()
        .ok_or("login with a wrong password succeeded")?;
    let (code, state, message) = mysql_error(&err).ok_or(format!("not a server error: {err}"))?;
    assert_eq!((code, state.as_str()), (1045, "28000"));
    assert_eq!(
        message,
        "Access denied for user 'native'@'127.0.0.1' (using password: YES)"
    );

    let err = connect(&server, "native", "")
        .err()
        .ok_or("empty password accepted")?;
    let (_, _, message) = mysql_error(&err).ok_or("not a server error")?;
    assert!(message.ends_with("(using password: NO)"), "{message}");

    let err = connect(&server, "nobody", "pw")
        .err()
        .ok_or("unknown user accepted")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1045));

    // Accounts without a password.
    let mut conn = connect(&server, "nopw", "")?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 2")?, Some(2));
    assert!(connect(&server, "nopw", "x").is_err());

    // The failed logins did not disturb the first connection.
    let mut first = connect(&server, "native", "pw")?;
    assert_eq!(first.query_first::<i64, _>("SELECT 3")?, Some(3));
    Ok(())
}

#[test]
fn caching_sha2_full_then_fast_authentication() -> Res {
    let server = TestServer::start(test_config())?;
    assert!(server.server.auth_cache().is_empty());
    // Handshake proposes native; the account's plugin triggers an auth
    // switch, then full authentication with the server's RSA key.
    let mut conn = connect(&server, "sha2", "pw2")?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    assert_eq!(server.server.auth_cache().len(), 1);
    // Second login: fast path from the cache.
    let mut conn2 = connect(&server, "sha2", "pw2")?;
    assert_eq!(conn2.query_first::<i64, _>("SELECT 2")?, Some(2));
    assert_eq!(server.server.auth_cache().len(), 1);
    // Wrong password on the fast path and on the full path.
    let err = connect(&server, "sha2", "nope")
        .err()
        .ok_or("wrong password accepted")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1045));
    server.server.auth_cache().clear();
    let err = connect(&server, "sha2", "nope")
        .err()
        .ok_or("wrong password accepted")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1045));
    assert!(server.server.auth_cache().is_empty());
    // Empty-password caching_sha2 account.
    let mut conn3 = connect(&server, "sha2nopw", "")?;
    assert_eq!(conn3.query_first::<i64, _>("SELECT 4")?, Some(4));
    Ok(())
}

#[test]
fn caching_sha2_as_default_plugin_switches_native_accounts() -> Res {
    let config = larch_wire::ServerConfig {
        default_auth_plugin: larch_wire::DefaultAuthPlugin::CachingSha2Password,
        ..test_config()
    };
    let server = TestServer::start(config)?;
    // caching_sha2 proposed and used directly (no switch).
    let mut conn = connect(&server, "sha2", "pw2")?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    // Native account: switch from caching_sha2 to native.
    let mut conn = connect(&server, "native", "pw")?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 2")?, Some(2));
    assert!(connect(&server, "native", "bad").is_err());
    Ok(())
}

#[test]
fn caching_sha2_over_unix_socket_uses_clear_password() -> Res {
    let dir = std::env::temp_dir().join(format!("larch-wire-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("mysqld.sock");
    let config = larch_wire::ServerConfig {
        rsa_key_bits: None,
        ..test_config()
    };
    let server = TestServer::start_with(config, Some(path.clone()))?;
    let opts = mysql::OptsBuilder::new()
        .socket(Some(path.to_string_lossy()))
        .prefer_socket(false)
        .user(Some("sha2"))
        .pass(Some("pw2"));
    let mut conn = Conn::new(opts)?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 7")?, Some(7));
    assert_eq!(server.server.auth_cache().len(), 1);
    // Over TCP the RSA key is disabled here, but the cache now allows the
    // fast path.
    let mut tcp = connect(&server, "sha2", "pw2")?;
    assert_eq!(tcp.query_first::<i64, _>("SELECT 8")?, Some(8));
    server.server.auth_cache().clear();
    let err = connect(&server, "sha2", "pw2")
        .err()
        .ok_or("full auth without RSA over TCP succeeded")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1045));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn expected_kinds_text() -> Vec<MyValue> {
    let b = |s: &str| MyValue::Bytes(s.as_bytes().to_vec());
    vec![
        b("-5"),
        b("18446744073709551615"),
        b("2.5"),
        b("0.25"),
        b("123.45"),
        b("héllo"),
        MyValue::Bytes(vec![0, 1, 2, 255]),
        b("2024-02-29 13:14:15.000123"),
        b("2023-12-31"),
        b("-26:03:04.000000"),
        MyValue::NULL,
        b("2024"),
        b("-70000"),
    ]
}

#[test]
fn text_result_set_with_every_value_kind() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = connect(&server, "native", "pw")?;
    let rows: Vec<mysql::Row> = conn.query("SELECT kinds")?;
    assert_eq!(rows.len(), 2);
    let columns = rows[0].columns();
    let names: Vec<String> = columns.iter().map(|c| c.name_str().into_owned()).collect();
    assert_eq!(
        names,
        ["i", "u", "d", "f", "dec", "s", "b", "dt", "da", "t", "n", "y", "l"]
    );
    assert_eq!(
        columns[2].column_type(),
        mysql::consts::ColumnType::MYSQL_TYPE_DOUBLE
    );
    assert!(columns[1]
        .flags()
        .contains(mysql::consts::ColumnFlags::UNSIGNED_FLAG));
    for row in rows {
        assert_eq!(row.unwrap(), expected_kinds_text());
    }
    Ok(())
}

#[test]
fn binary_result_set_with_every_value_kind() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = connect(&server, "native", "pw")?;
    let rows: Vec<mysql::Row> = conn.exec("SELECT kinds", ())?;
    assert_eq!(rows.len(), 2);
    let expected = vec![
        MyValue::Int(-5),
        MyValue::UInt(u64::MAX),
        MyValue::Double(2.5),
        MyValue::Float(0.25),
        MyValue::Bytes(b"123.45".to_vec()),
        MyValue::Bytes("héllo".as_bytes().to_vec()),
        MyValue::Bytes(vec![0, 1, 2, 255]),
        MyValue::Date(2024, 2, 29, 13, 14, 15, 123),
        MyValue::Date(2023, 12, 31, 0, 0, 0, 0),
        MyValue::Time(true, 1, 2, 3, 4, 0),
        MyValue::NULL,
        MyValue::Int(2024),
        MyValue::Int(-70000),
    ];
    for row in rows {
        assert_eq!(row.unwrap(), expected);
    }
    Ok(())
}

#[test]
fn multi_statements_return_every_result() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = connect(&server, "native", "pw")?;
    let mut result = conn.query_iter("PUT 1 one; SELECT 5; GET 1; WARN")?;
    let mut seen = Vec::new();
    while let Some(set) = result.iter() {
        let affected = set.affected_rows();
        let rows: Vec<mysql::Row> = set.collect::<Result<_, _>>()?;
        seen.push((
            affected,
            rows.into_iter().map(|r| r.unwrap()).collect::<Vec<_>>(),
        ));
    }
    drop(result);
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0], (1, vec![]));
    assert_eq!(seen[1].1, vec![vec![MyValue::Bytes(b"5".to_vec())]]);
    assert_eq!(seen[2].1, vec![vec![MyValue::Bytes(b"one".to_vec())]]);
    assert_eq!(conn.warnings(), 2);
    assert_eq!(conn.info_str(), "Records: 3  Duplicates: 0  Warnings: 2");

    // An error in the middle: earlier results arrive, then the error.
    let mut result = conn.query_iter("SELECT 1; bogus statement; SELECT 2")?;
    let first = result.iter().ok_or("first result missing")?;
    let rows: Vec<mysql::Row> = first.collect::<Result<_, _>>()?;
    assert_eq!(rows.len(), 1);
    let next = result.iter().ok_or("error result missing")?;
    let err = next
        .collect::<Result<Vec<mysql::Row>, _>>()
        .err()
        .ok_or("error was not reported")?;
    let (code, state, message) = mysql_error(&err).ok_or("not a server error")?;
    assert_eq!((code, state.as_str()), (1064, "42000"));
    assert!(message.contains("near 'bogus statement'"), "{message}");
    drop(result);
    // The connection is still usable.
    assert_eq!(conn.query_first::<i64, _>("SELECT 9")?, Some(9));
    Ok(())
}

#[test]
fn prepared_statements_with_changing_parameters() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = connect(&server, "native", "pw")?;
    let insert = conn.prep("INSERT INTO kv VALUES (?, ?)")?;
    let select = conn.prep("SELECT v FROM kv WHERE k = ?")?;
    assert_eq!(insert.num_params(), 2);
    assert_eq!(select.num_columns(), 1);
    let long_text = "x".repeat(300_000);
    let blob: Vec<u8> = (0..200_000u32).map(|i| (i % 256) as u8).collect();
    let cases: Vec<(i64, MyValue)> = vec![
        (1, MyValue::Bytes(b"short".to_vec())),
        (2, MyValue::NULL),
        (3, MyValue::Bytes(long_text.clone().into_bytes())),
        (4, MyValue::Bytes(blob.clone())),
        (5, MyValue::Int(-42)),
    ];
    for (k, v) in &cases {
        conn.exec_drop(&insert, (k, v.clone()))?;
        assert_eq!(conn.affected_rows(), 1);
        assert_eq!(conn.last_insert_id(), *k as u64);
    }
    for (k, v) in &cases {
        let rows: Vec<mysql::Row> = conn.exec(&select, (k,))?;
        assert_eq!(rows.len(), 1, "key {k}");
        let got = rows[0].as_ref(0).cloned().ok_or("no column")?;
        let want = match v {
            MyValue::Int(i) => MyValue::Bytes(i.to_string().into_bytes()),
            other => other.clone(),
        };
        assert_eq!(got, want, "key {k}");
    }
    let rows: Vec<mysql::Row> = conn.exec(&select, (99,))?;
    assert!(rows.is_empty());
    // Parameter kinds as the client sends them.
    let probe = conn.prep("SELECT ?, ?, ?, ?, ?, ?, ?, ?")?;
    conn.exec_drop(
        &probe,
        (
            -7i64,
            u64::MAX,
            1.5f64,
            0.5f32,
            MyValue::Date(2020, 1, 2, 3, 4, 5, 6),
            MyValue::Time(true, 1, 2, 3, 4, 5),
            MyValue::NULL,
            "text",
        ),
    )?;
    use larch_wire::Value as V;
    let got = server.state.last_params.lock().clone();
    assert_eq!(
        got,
        vec![
            V::Int(-7),
            V::UInt(u64::MAX),
            V::Double(1.5),
            V::Float(0.5),
            V::DateTime(larch_wire::DateTime {
                date: larch_wire::Date {
                    year: 2020,
                    month: 1,
                    day: 2
                },
                hour: 3,
                minute: 4,
                second: 5,
                micros: 6
            }),
            V::Time(larch_wire::Time {
                negative: true,
                hours: 26,
                minutes: 3,
                seconds: 4,
                micros: 5
            }),
            V::Null,
            V::from("text"),
        ]
    );
    conn.close(probe)?;
    // Unknown statement text is a prepare error.
    let err = conn
        .prep("SELECT nonsense")
        .err()
        .ok_or("bad prepare succeeded")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1064));
    Ok(())
}

#[test]
fn blob_larger_than_a_packet_goes_through_long_data() -> Res {
    // The client sends parameters as COM_STMT_SEND_LONG_DATA when the
    // execute packet would exceed 16 MiB; the row comes back split into
    // several physical packets.
    let server = TestServer::start(test_config())?;
    let mut conn = Conn::new(
        server
            .opts("native", "pw")
            .max_allowed_packet(Some(64 << 20)),
    )?;
    let insert = conn.prep("INSERT INTO kv VALUES (?, ?)")?;
    let blob: Vec<u8> = (0..(17u32 << 20))
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    conn.exec_drop(&insert, (7, blob.clone()))?;
    let stored = server.state.table.lock().get(&7).cloned();
    assert!(
        stored == Some(larch_wire::Value::Bytes(blob.clone())),
        "stored blob differs"
    );
    let back: Option<Vec<u8>> = conn.exec_first("SELECT v FROM kv WHERE k = ?", (7,))?;
    assert!(back.as_deref() == Some(&blob[..]), "returned blob differs");
    Ok(())
}

#[test]
fn ping_init_db_reset_and_errors() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = Conn::new(server.opts("native", "pw").db_name(Some("test")))?;
    assert_eq!(
        conn.query_first::<String, _>("SELECT DATABASE()")?,
        Some("test".into())
    );
    conn.ping()?;
    conn.select_db("other")?;
    assert_eq!(
        conn.query_first::<String, _>("SELECT DATABASE()")?,
        Some("other".into())
    );
    let err = conn
        .select_db("missing")
        .err()
        .ok_or("unknown database accepted")?;
    assert_eq!(
        mysql_error(&err),
        Some((1049, "42000".into(), "Unknown database 'missing'".into()))
    );
    let err = conn
        .query_drop("HALF_RESULT_THEN_ERROR")
        .err()
        .ok_or("error lost")?;
    assert_eq!(
        mysql_error(&err).map(|e| (e.0, e.1)),
        Some((1317, "70100".into()))
    );
    conn.reset()?;
    assert_eq!(
        server
            .state
            .resets
            .load(std::sync::atomic::Ordering::SeqCst),
        1
    );
    conn.ping()?;
    // Unknown database in the handshake: error and no connection.
    let err = Conn::new(server.opts("native", "pw").db_name(Some("nope")))
        .err()
        .ok_or("bad db accepted")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1049));
    // Connection attributes reach the session.
    let logins = server.state.logins.lock().clone();
    assert!(logins.iter().any(
        |(_, attrs)| attrs.get("_client_name").map(String::as_str) == Some("rust-mysql-simple")
    ));
    Ok(())
}

#[test]
fn oversized_packet_gets_1153_and_closes() -> Res {
    let config = larch_wire::ServerConfig {
        max_allowed_packet: 1 << 20,
        ..test_config()
    };
    let server = TestServer::start(config)?;
    // The client believes it may send 64 MiB; the server allows 1 MiB.
    let mut conn = Conn::new(
        server
            .opts("native", "pw")
            .max_allowed_packet(Some(64 << 20)),
    )?;
    let ok: Option<i64> = conn.query_first(format!("ECHO_LEN {}", "a".repeat(500_000)))?;
    assert_eq!(ok, Some(500_009));
    let err = conn
        .query_drop(format!("ECHO_LEN {}", "a".repeat(2 << 20)))
        .err()
        .ok_or("oversized query accepted")?;
    let (code, state, message) = mysql_error(&err).ok_or(format!("not a server error: {err}"))?;
    assert_eq!((code, state.as_str()), (1153, "08S01"));
    assert_eq!(
        message,
        "Got a packet bigger than 'max_allowed_packet' bytes"
    );
    assert!(conn.ping().is_err(), "connection should be closed");
    // The server keeps serving.
    let mut other = connect(&server, "native", "pw")?;
    assert_eq!(other.query_first::<i64, _>("SELECT 1")?, Some(1));
    Ok(())
}

#[test]
fn handler_panic_becomes_error_and_connection_continues() -> Res {
    let server = TestServer::start(test_config())?;
    let mut conn = connect(&server, "native", "pw")?;
    let err = conn
        .query_drop("SELECT 1; PANIC")
        .err()
        .ok_or("panic not reported")?;
    let (code, state, _) = mysql_error(&err).ok_or("not a server error")?;
    assert_eq!((code, state.as_str()), (1105, "HY000"));
    assert_eq!(conn.query_first::<i64, _>("SELECT 2")?, Some(2));
    let stmt = conn.prep("PANIC")?;
    let err = conn
        .exec_drop(&stmt, ())
        .err()
        .ok_or("panic not reported")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1105));
    assert_eq!(conn.query_first::<i64, _>("SELECT 3")?, Some(3));
    let mut other = connect(&server, "native", "pw")?;
    assert_eq!(other.query_first::<i64, _>("SELECT 4")?, Some(4));
    Ok(())
}
