//! TLS with the toy session: the `mysql` client crate (rustls) logs in over
//! TLS, verifying the server certificate against the test CA;
//! `caching_sha2_password` full authentication takes the clear password over
//! TLS (with the RSA key disabled, so nothing else could work); TLS is
//! offered on TCP only and stays optional there.

mod support;

use larch_wire::{CapabilityFlags, ServerConfig, TlsSettings};
use mysql::prelude::Queryable;
use mysql::{Conn, SslOpts};
use mysql_common::io::ParseBuf;
use mysql_common::packets::HandshakePacket;
use std::io::{Read, Write};
use std::path::PathBuf;
use support::raw::{default_caps, parse_err, RawClient};
use support::{mysql_error, test_config, TestServer};

type Res = Result<(), Box<dyn std::error::Error>>;

fn fixture(name: &str) -> PathBuf {
    support::tls_fixtures().join(name)
}

/// The test config with TLS and without the RSA key.
fn tls_config() -> Result<ServerConfig, Box<dyn std::error::Error>> {
    let tls = TlsSettings::load(
        &fixture("server-cert.pem"),
        &fixture("server-key.pem"),
        None,
    )?;
    Ok(ServerConfig {
        tls: Some(tls),
        rsa_key_bits: None,
        ..test_config()
    })
}

/// Client TLS options trusting the test CA.
fn ssl_opts() -> SslOpts {
    SslOpts::default().with_root_cert_path(Some(fixture("ca.pem")))
}

#[test]
fn caching_sha2_full_authentication_over_tls_sends_the_clear_password() -> Res {
    let server = TestServer::start(tls_config()?)?;
    // Plain TCP: full authentication needs the RSA key, which is disabled.
    let err = Conn::new(server.opts("sha2", "pw2"))
        .err()
        .ok_or("full authentication without TLS or RSA succeeded")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1045), "{err}");
    assert!(server.server.auth_cache().is_empty());

    // Over TLS the client sends the password in clear.
    let mut conn = Conn::new(server.opts("sha2", "pw2").ssl_opts(ssl_opts()))?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 1")?, Some(1));
    assert_eq!(server.server.auth_cache().len(), 1);
    let tls = server.state.login_tls.lock().last().cloned().flatten();
    let tls = tls.ok_or("the session was not told about TLS")?;
    assert_eq!(tls.version, "TLSv1.3");
    assert!(tls.cipher.starts_with("TLS_"), "{}", tls.cipher);

    // A wrong password over TLS is refused on the full path too.
    server.server.auth_cache().clear();
    let err = Conn::new(server.opts("sha2", "nope").ssl_opts(ssl_opts()))
        .err()
        .ok_or("wrong password accepted")?;
    assert_eq!(mysql_error(&err).map(|e| e.0), Some(1045), "{err}");

    // Native accounts work over TLS as well; packets larger than a TLS
    // record go both ways intact.
    let mut conn = Conn::new(server.opts("native", "pw").ssl_opts(ssl_opts()))?;
    let value: String = (0..100_000u32)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    conn.query_drop(format!("PUT 1 {value}"))?;
    assert_eq!(conn.query_first::<String, _>("GET 1")?, Some(value));
    let long = format!("ECHO_LEN {}", "y".repeat(300_000));
    assert_eq!(conn.query_first::<i64, _>(&long)?, Some(long.len() as i64));
    assert_eq!(conn.query_first::<i64, _>("SELECT 3")?, Some(3));
    Ok(())
}

/// Reads the greeting of a fresh connection; returns its capabilities.
fn greeting_capabilities(
    stream: &mut impl Read,
) -> Result<CapabilityFlags, Box<dyn std::error::Error>> {
    let mut header = [0u8; 4];
    stream.read_exact(&mut header)?;
    let len = usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
    let mut payload = vec![0u8; len];
    stream.read_exact(&mut payload)?;
    let handshake: HandshakePacket<'_> = ParseBuf(&payload).parse(())?;
    Ok(handshake.capabilities())
}

#[test]
fn tls_is_offered_on_tcp_only_and_stays_optional() -> Res {
    let dir = std::env::temp_dir().join(format!("larch-wire-tls-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("mysqld.sock");
    let server = TestServer::start_with(tls_config()?, Some(path.clone()))?;

    let mut tcp = RawClient::open(server.addr)?;
    let caps = greeting_capabilities(&mut tcp.stream)?;
    assert!(caps.contains(CapabilityFlags::CLIENT_SSL));

    // A client without TLS logs in as before.
    let mut plain = RawClient::login(server.addr, "native", "pw", default_caps())?;
    plain.command(b"\x03SELECT 5")?;
    assert_eq!(plain.read_result_set(false)?.len(), 5);
    assert_eq!(server.state.login_tls.lock().last().cloned(), Some(None));

    // The Unix socket does not offer TLS and refuses an SSL request.
    let mut unix = std::os::unix::net::UnixStream::connect(&path)?;
    unix.set_read_timeout(Some(std::time::Duration::from_secs(20)))?;
    let caps = greeting_capabilities(&mut unix)?;
    assert!(!caps.contains(CapabilityFlags::CLIENT_SSL));
    let mut request = vec![32, 0, 0, 1];
    request.extend_from_slice(
        &(default_caps() | CapabilityFlags::CLIENT_SSL)
            .bits()
            .to_le_bytes(),
    );
    request.extend_from_slice(&[0u8; 28]);
    unix.write_all(&request)?;
    let mut reply = Vec::new();
    unix.read_to_end(&mut reply)?;
    let err = reply
        .get(4..)
        .and_then(parse_err)
        .ok_or("expected an ERR")?;
    assert_eq!(err.0, 1043);
    assert_eq!(err.2, "SSL connection is not supported by this server");

    // The mysql crate also logs in over the socket without TLS.
    let opts = mysql::OptsBuilder::new()
        .socket(Some(path.to_string_lossy()))
        .prefer_socket(false)
        .user(Some("sha2"))
        .pass(Some("pw2"));
    let mut conn = Conn::new(opts)?;
    assert_eq!(conn.query_first::<i64, _>("SELECT 7")?, Some(7));
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
