//! TLS in `larchd` (`--ssl-cert`, `--ssl-key`, `--ssl-ca`), with the test
//! certificates in `fixtures/tls`:
//!
//! - the `mysql` crate (rustls) connects over TLS, verifying the server
//!   certificate against the test CA, and the session shows its cipher and
//!   protocol (`Ssl_cipher`, `Ssl_version`) and the TLS variables;
//! - a raw-protocol client (tokio-rustls) sends the SSL request, runs the TLS
//!   handshake (TLS 1.3 with the request and the client hello in one write,
//!   and TLS 1.2), logs in over TLS and queries;
//! - the `mariadb` command-line client connects with `--ssl-ca` and
//!   `--ssl-verify-server-cert` (printed as SKIPPED when it is missing);
//! - missing, invalid or mismatched key files stop the start with a clear
//!   message, before the data directory is touched;
//! - LOAD DATA LOCAL over TLS (the file's packets read with blocking calls
//!   through the TLS state on the connection's own thread);
//! - without the options, the data directory's generated certificates
//!   serve (`ca.pem`, `server-cert.pem`, ... as MySQL generates them), kept
//!   across restarts; `--skip-ssl` turns TLS off.
//!
//! `caching_sha2_password` over TLS is tested in larch-wire (`tests/tls.rs`):
//! larchd's only account, root, has no password.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use mysql::prelude::Queryable;
use mysql::SslOpts;
use support::{run_to_exit, tempdir, Larchd, Res};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_rustls::rustls;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/tls")
        .join(name)
}

/// `--ssl-cert`, `--ssl-key` and `--ssl-ca` with the test files.
fn ssl_args() -> Vec<String> {
    vec![
        format!("--ssl-cert={}", fixture("server-cert.pem").display()),
        format!("--ssl-key={}", fixture("server-key.pem").display()),
        format!("--ssl-ca={}", fixture("ca.pem").display()),
    ]
}

fn start_with_tls(datadir: &Path) -> Result<Larchd, String> {
    let args = ssl_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Larchd::start(datadir, &args)
}

/// `SHOW STATUS LIKE name`: the value.
fn status(conn: &mut mysql::Conn, name: &str) -> Result<String, Box<dyn std::error::Error>> {
    let row: Option<(String, String)> = conn.query_first(format!("SHOW STATUS LIKE '{name}'"))?;
    Ok(row.ok_or(format!("no status variable {name}"))?.1)
}

#[test]
fn mysql_crate_over_tls_sees_its_cipher() -> Res {
    let dir = tempdir()?;
    let server = start_with_tls(&dir.path().join("data"))?;
    let ssl = SslOpts::default().with_root_cert_path(Some(fixture("ca.pem")));
    let mut conn = mysql::Conn::new(server.opts().ssl_opts(ssl))?;
    let cipher = status(&mut conn, "Ssl_cipher")?;
    assert!(cipher.starts_with("TLS_"), "Ssl_cipher '{cipher}'");
    assert_eq!(status(&mut conn, "Ssl_version")?, "TLSv1.3");

    conn.query_drop("CREATE TABLE test.t (id INT PRIMARY KEY, v LONGTEXT)")?;
    let long = "z".repeat(200_000);
    conn.exec_drop("INSERT INTO test.t VALUES (?, ?), (2, 'two')", (1, &long))?;
    let back: Option<String> = conn.query_first("SELECT v FROM test.t WHERE id = 1")?;
    assert_eq!(back.as_deref(), Some(long.as_str()));
    assert_eq!(
        conn.query_first::<i64, _>("SELECT COUNT(*) FROM test.t")?,
        Some(2)
    );

    let vars: Option<(String, String, String, String, String)> = conn
        .query_first("SELECT @@have_ssl, @@ssl_cert, @@ssl_key, @@ssl_ca, @@version_ssl_library")?;
    let (have, cert, key, ca, library) = vars.ok_or("no row")?;
    assert_eq!(have, "YES");
    assert_eq!(Path::new(&cert), fixture("server-cert.pem"));
    assert_eq!(Path::new(&key), fixture("server-key.pem"));
    assert_eq!(Path::new(&ca), fixture("ca.pem"));
    assert!(library.starts_with("rustls"), "{library}");

    // LOAD DATA LOCAL over TLS: the connection's thread reads the file's
    // packets with blocking calls through the TLS state.
    let ssl = SslOpts::default().with_root_cert_path(Some(fixture("ca.pem")));
    let opts =
        server
            .opts()
            .ssl_opts(ssl)
            .local_infile_handler(Some(mysql::LocalInfileHandler::new(|_, w| {
                for i in 0..20_000 {
                    writeln!(w, "{}\t{}", i + 10, "x".repeat(i % 50))?;
                }
                Ok(())
            })));
    let mut local = mysql::Conn::new(opts)?;
    local.query_drop("LOAD DATA LOCAL INFILE 'rows.txt' INTO TABLE test.t")?;
    assert_eq!(local.affected_rows(), 20_000);
    assert_eq!(
        local.query_first::<i64, _>("SELECT COUNT(*) FROM test.t")?,
        Some(20_002)
    );

    // TLS is optional: a plain connection works and has no cipher.
    let mut plain = server.connect()?;
    assert_eq!(status(&mut plain, "Ssl_cipher")?, "");
    assert_eq!(plain.query_first::<i64, _>("SELECT 7")?, Some(7));
    Ok(())
}

/// Client capabilities of the raw client: LONG_PASSWORD, LONG_FLAG,
/// PROTOCOL_41, TRANSACTIONS, SECURE_CONNECTION, PLUGIN_AUTH, SSL.
const CLIENT_CAPS: u32 = 0x0001 | 0x0004 | 0x0200 | 0x2000 | 0x8000 | 0x0008_0000 | 0x0800;
const CLIENT_SSL: u32 = 0x0800;

async fn write_packet<S: AsyncWrite + Unpin>(s: &mut S, seq: u8, payload: &[u8]) -> Res {
    let len = u32::try_from(payload.len())?.to_le_bytes();
    s.write_all(&[len[0], len[1], len[2], seq]).await?;
    s.write_all(payload).await?;
    s.flush().await?;
    Ok(())
}

async fn read_packet<S: AsyncRead + Unpin>(
    s: &mut S,
    seq: u8,
) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut header = [0u8; 4];
    s.read_exact(&mut header).await?;
    if header[3] != seq {
        return Err(format!("sequence id {} where {seq} was expected", header[3]).into());
    }
    let len = usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
    let mut payload = vec![0u8; len];
    s.read_exact(&mut payload).await?;
    Ok(payload)
}

/// The 32 bytes every handshake response starts with (the SSL request).
fn response_prefix() -> Vec<u8> {
    let mut p = CLIENT_CAPS.to_le_bytes().to_vec();
    p.extend_from_slice(&(16u32 << 20).to_le_bytes());
    p.push(45);
    p.extend_from_slice(&[0u8; 23]);
    p
}

/// The capabilities in a greeting (protocol 10).
fn greeting_capabilities(greeting: &[u8]) -> Result<u32, Box<dyn std::error::Error>> {
    let version_end = greeting
        .iter()
        .skip(1)
        .position(|b| *b == 0)
        .ok_or("no version")?
        + 1;
    // version\0, connection id (4), scramble (8), filler (1), caps low (2),
    // collation (1), status (2), caps high (2).
    let low = version_end + 1 + 4 + 8 + 1;
    let b = greeting.get(low..low + 8).ok_or("short greeting")?;
    Ok(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[5]) << 16 | u32::from(b[6]) << 24)
}

/// Reads one text result set (no CLIENT_DEPRECATE_EOF) with one row of
/// short strings, starting at sequence id `seq`; returns the row.
async fn read_row<S: AsyncRead + Unpin>(
    s: &mut S,
    seq: u8,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let count = read_packet(s, seq).await?;
    if count.first() == Some(&0xff) {
        return Err(format!("error: {}", String::from_utf8_lossy(&count)).into());
    }
    let mut seq = seq + 1;
    // Column definitions, then the EOF after them.
    for _ in 0..=count[0] {
        read_packet(s, seq).await?;
        seq += 1;
    }
    let row = read_packet(s, seq).await?;
    let eof = read_packet(s, seq + 1).await?;
    assert_eq!(eof.first(), Some(&0xfe));
    let mut cells = Vec::new();
    let mut rest = &row[..];
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len);
        cells.push(String::from_utf8_lossy(tail.get(..len).ok_or("short row")?).into_owned());
        rest = &tail[len..];
    }
    Ok(cells)
}

/// One raw login over TLS: greeting, SSL request (in the same write as the
/// TLS client hello when `coalesce`), TLS handshake at `version`, the
/// handshake response with sequence id 2, then queries.
async fn raw_tls_login(
    port: u16,
    version: &'static rustls::SupportedProtocolVersion,
    coalesce: bool,
) -> Res {
    let mut tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let greeting = read_packet(&mut tcp, 0).await?;
    assert_eq!(greeting.first(), Some(&10));
    let caps = greeting_capabilities(&greeting)?;
    assert_ne!(caps & CLIENT_SSL, 0, "CLIENT_SSL not offered: {caps:#x}");

    let mut roots = rustls::RootCertStore::empty();
    let ca = std::fs::read(fixture("ca.pem"))?;
    use rustls::pki_types::pem::PemObject;
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(&ca) {
        roots.add(cert?)?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[version])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let name = rustls::pki_types::ServerName::try_from("localhost")?;

    // The SSL request; with `coalesce` it waits in the buffer and leaves
    // together with the client hello.
    let mut buffered = tokio::io::BufWriter::new(tcp);
    let request = response_prefix();
    let len = request.len() as u8;
    buffered.write_all(&[len, 0, 0, 1]).await?;
    buffered.write_all(&request).await?;
    if !coalesce {
        buffered.flush().await?;
    }
    let mut tls = connector.connect(name, buffered).await?;
    let negotiated = tls.get_ref().1.protocol_version();
    assert_eq!(negotiated, Some(version.version));

    let mut response = response_prefix();
    response.extend_from_slice(b"root\0");
    response.push(0); // no auth data (empty password)
    response.extend_from_slice(b"mysql_native_password\0");
    write_packet(&mut tls, 2, &response).await?;
    let ok = read_packet(&mut tls, 3).await?;
    assert_eq!(ok.first(), Some(&0), "login failed: {ok:?}");

    write_packet(&mut tls, 0, b"\x03SHOW STATUS LIKE 'Ssl_version'").await?;
    let row = read_row(&mut tls, 1).await?;
    let expected = if version.version == rustls::ProtocolVersion::TLSv1_3 {
        "TLSv1.3"
    } else {
        "TLSv1.2"
    };
    assert_eq!(row, vec!["Ssl_version".to_owned(), expected.to_owned()]);
    write_packet(&mut tls, 0, b"\x03SHOW STATUS LIKE 'Ssl_cipher'").await?;
    let row = read_row(&mut tls, 1).await?;
    let cipher = row.get(1).cloned().unwrap_or_default();
    if expected == "TLSv1.2" {
        assert!(cipher.starts_with("ECDHE-ECDSA-"), "{cipher}");
    } else {
        assert!(cipher.starts_with("TLS_"), "{cipher}");
    }
    write_packet(&mut tls, 0, b"\x03SELECT 6*7").await?;
    assert_eq!(read_row(&mut tls, 1).await?, vec!["42".to_owned()]);
    write_packet(&mut tls, 0, b"\x01").await?; // COM_QUIT
    Ok(())
}

#[test]
fn raw_protocol_ssl_request_and_tls_handshake() -> Res {
    let dir = tempdir()?;
    let server = start_with_tls(&dir.path().join("data"))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        for version in [&rustls::version::TLS13, &rustls::version::TLS12] {
            for coalesce in [true, false] {
                // A server that lost the client hello would wait forever.
                let login = raw_tls_login(server.port, version, coalesce);
                tokio::time::timeout(std::time::Duration::from_secs(30), login)
                    .await
                    .map_err(|_| format!("TLS login timed out ({version:?}, {coalesce})"))??;
            }
        }
        Ok(())
    })
}

#[test]
fn mariadb_client_over_tls() -> Res {
    if !support::clients::installed("mariadb_client_over_tls", "mariadb") {
        return Ok(());
    }
    let dir = tempdir()?;
    let server = start_with_tls(&dir.path().join("data"))?;
    let out = Command::new("mariadb")
        .args([
            "-h127.0.0.1",
            &format!("-P{}", server.port),
            "-uroot",
            "--batch",
            "--skip-column-names",
            "--ssl",
            &format!("--ssl-ca={}", fixture("ca.pem").display()),
            "--ssl-verify-server-cert",
            "-e",
            "SHOW STATUS LIKE 'Ssl_cipher'; SELECT 1+1;",
        ])
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mariadb failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = stdout.lines();
    let cipher = lines
        .next()
        .and_then(|l| l.strip_prefix("Ssl_cipher\t"))
        .unwrap_or_default();
    assert!(!cipher.is_empty(), "no cipher: {stdout}");
    assert_eq!(lines.next(), Some("2"), "{stdout}");
    Ok(())
}

#[test]
fn unusable_tls_files_stop_the_start() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let cert = format!("--ssl-cert={}", fixture("server-cert.pem").display());
    let garbage = dir.path().join("garbage-key.pem");
    std::fs::write(&garbage, "-----BEGIN PRIVATE KEY-----\nnot base64!\n")?;
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "")?;
    let cases = [
        (
            format!("--ssl-key={}", dir.path().join("missing.pem").display()),
            "cannot read the SSL key file",
        ),
        (
            format!("--ssl-key={}", garbage.display()),
            "invalid SSL key file",
        ),
        (
            format!("--ssl-key={}", empty.display()),
            "no PEM private key",
        ),
        (
            format!("--ssl-key={}", fixture("ca-key.pem").display()),
            "cannot be used",
        ),
    ];
    for (key, expected) in &cases {
        let (status, log) = run_to_exit(&datadir, &[&cert, key])?;
        assert_eq!(status.code(), Some(1), "{key}: {log}");
        assert!(log.contains("[ERROR] larchd: cannot start TLS: "), "{log}");
        assert!(
            log.contains(expected),
            "{key}: expected '{expected}' in:\n{log}"
        );
        assert!(!datadir.exists(), "the data directory was created");
    }
    let key = format!("--ssl-key={}", fixture("server-key.pem").display());
    let ca = format!("--ssl-ca={}", empty.display());
    let (status, log) = run_to_exit(&datadir, &[&cert, &key, &ca])?;
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("invalid SSL CA file"), "{log}");
    Ok(())
}

#[test]
fn without_ssl_options_the_generated_certificates_serve() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let server = Larchd::start(&datadir, &[])?;
    for f in [
        "ca.pem",
        "ca-key.pem",
        "server-cert.pem",
        "server-key.pem",
        "client-cert.pem",
        "client-key.pem",
    ] {
        assert!(datadir.join(f).is_file(), "{f} not generated");
    }
    // The client verifies the server against the generated CA.
    let ssl = SslOpts::default().with_root_cert_path(Some(datadir.join("ca.pem")));
    let mut conn = mysql::Conn::new(server.opts().ssl_opts(ssl))?;
    let vars: Option<(String, String, String)> =
        conn.query_first("SELECT @@have_ssl, @@ssl_cert, @@version_ssl_library")?;
    let (have, cert, library) = vars.ok_or("no row")?;
    assert_eq!(have, "YES");
    assert!(cert.ends_with("server-cert.pem"), "{cert}");
    assert!(library.starts_with("rustls"), "{library}");
    assert!(status(&mut conn, "Ssl_cipher")?.starts_with("TLS_"));
    assert_ne!(status(&mut conn, "Ssl_accepts")?, "0");
    assert_ne!(status(&mut conn, "Ssl_finished_accepts")?, "0");
    assert!(status(&mut conn, "Ssl_server_not_after")?.ends_with(" GMT"));
    let tls_version: Option<String> = conn.query_first("SELECT @@tls_version")?;
    assert_eq!(tls_version.as_deref(), Some("TLSv1.2,TLSv1.3"));

    // The files are kept: a restart serves the same CA.
    drop(conn);
    drop(server);
    let ca_before = std::fs::read(datadir.join("ca.pem"))?;
    let server = Larchd::start(&datadir, &[])?;
    assert_eq!(std::fs::read(datadir.join("ca.pem"))?, ca_before);

    // `--skip-ssl` turns TLS off: a client that requires it gets no
    // connection.
    drop(server);
    let server = Larchd::start(&datadir, &["--skip-ssl"])?;
    let mut conn = server.connect()?;
    assert_eq!(
        conn.query_first::<String, _>("SELECT @@have_ssl")?
            .as_deref(),
        Some("DISABLED")
    );
    assert_eq!(status(&mut conn, "Ssl_version")?, "");
    let ssl = SslOpts::default().with_root_cert_path(Some(datadir.join("ca.pem")));
    assert!(mysql::Conn::new(server.opts().ssl_opts(ssl)).is_err());

    // With files given, they are used and none are generated.
    drop(conn);
    drop(server);
    let other = dir.path().join("other");
    let server = start_with_tls(&other)?;
    assert!(!other.join("ca-key.pem").exists());
    drop(server);
    Ok(())
}
