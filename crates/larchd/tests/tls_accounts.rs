//! Accounts that must use TLS, through a running `larchd` with its
//! generated certificates (TLS on by default) and the `mysql` crate:
//!
//! - `REQUIRE SSL`: refused (1045) over plain TCP, accepted over TLS and
//!   over the Unix socket (which MariaDB counts as secure);
//! - `REQUIRE X509`: needs a client certificate the server verifies (the
//!   generated `client-cert.pem`, and one made in the test with rcgen and
//!   signed by the generated CA); `REQUIRE SUBJECT`/`ISSUER`/`CIPHER`
//!   compare the certificate's names and the cipher;
//! - SHOW CREATE USER and SHOW GRANTS show the requirement as MariaDB;
//! - `require_secure_transport`: a plain TCP login gets 1045, TLS and the
//!   Unix socket are accepted;
//! - names: a user name over 128 characters is 1470 with MariaDB's text,
//!   an identifier that is not UTF-8 is 1300 (through the `mariadb`
//!   client, which sends the bytes as they are);
//! - `secure_file_priv` defaults to `<datadir>/files/`: INTO OUTFILE
//!   elsewhere is 1290.

mod support;

use std::path::{Path, PathBuf};

use mysql::prelude::Queryable;
use mysql::{ClientIdentity, SslOpts};
use support::clients::installed;
use support::{server_error, tempdir, Larchd, Res};

fn code<T: std::fmt::Debug>(r: mysql::Result<T>) -> Result<u16, String> {
    match r {
        Ok(v) => Err(format!("expected an error, got {v:?}")),
        Err(e) => server_error(&e)
            .map(|(c, _, _)| c)
            .ok_or_else(|| format!("not a server error: {e}")),
    }
}

fn as_user(server: &Larchd, user: &str) -> mysql::OptsBuilder {
    server.opts().user(Some(user)).pass(Some("pw".to_owned()))
}

/// TLS verifying the server against the data directory's CA, with an
/// optional client certificate and key.
fn tls(datadir: &Path, identity: Option<(PathBuf, PathBuf)>) -> SslOpts {
    let ssl = SslOpts::default().with_root_cert_path(Some(datadir.join("ca.pem")));
    match identity {
        Some((cert, key)) => ssl.with_client_identity(Some(ClientIdentity::new(cert, key))),
        None => ssl,
    }
}

fn generated_client(datadir: &Path) -> Option<(PathBuf, PathBuf)> {
    Some((
        datadir.join("client-cert.pem"),
        datadir.join("client-key.pem"),
    ))
}

/// A client certificate made here, signed by the server's generated CA.
fn own_client(
    datadir: &Path,
    dir: &Path,
) -> Result<(PathBuf, PathBuf), Box<dyn std::error::Error>> {
    let ca_key_pem = std::fs::read_to_string(datadir.join("ca-key.pem"))?;
    let ca_key = rcgen::KeyPair::from_pem(&ca_key_pem)?;
    // The issuer is named as the generated CA names itself.
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new())?;
    let mut ca_dn = rcgen::DistinguishedName::new();
    ca_dn.push(
        rcgen::DnType::CommonName,
        "Larch_Server_Auto_Generated_CA_Certificate",
    );
    ca.distinguished_name = ca_dn;
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let key = rcgen::KeyPair::generate()?;
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new())?;
    let mut dn = rcgen::DistinguishedName::new();
    dn.push(rcgen::DnType::CountryName, "FI");
    dn.push(rcgen::DnType::OrganizationName, "Larch");
    dn.push(rcgen::DnType::CommonName, "alice");
    params.distinguished_name = dn;
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    let cert = params.signed_by(&key, &issuer)?;
    let (cert_path, key_path) = (dir.join("alice-cert.pem"), dir.join("alice-key.pem"));
    std::fs::write(&cert_path, cert.pem())?;
    std::fs::write(&key_path, key.serialize_pem())?;
    Ok((cert_path, key_path))
}

#[test]
fn accounts_that_require_tls() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let server = Larchd::start(&datadir, &[])?;
    let mut root = server.connect()?;
    root.query_drop("CREATE USER s@'%' IDENTIFIED BY 'pw' REQUIRE SSL")?;
    root.query_drop("CREATE USER x@'%' IDENTIFIED BY 'pw' REQUIRE X509")?;
    root.query_drop(
        "CREATE USER subj@'%' IDENTIFIED BY 'pw' REQUIRE SUBJECT '/C=FI/O=Larch/CN=alice' \
         AND ISSUER '/CN=Larch_Server_Auto_Generated_CA_Certificate'",
    )?;
    root.query_drop("CREATE USER other@'%' IDENTIFIED BY 'pw' REQUIRE SUBJECT '/CN=bob'")?;
    root.query_drop("CREATE USER later@'%' IDENTIFIED BY 'pw'")?;
    root.query_drop("GRANT SELECT ON test.* TO later@'%' REQUIRE SSL")?;
    root.query_drop(
        "CREATE USER c@'%' IDENTIFIED BY 'pw' REQUIRE CIPHER 'TLS_AES_256_GCM_SHA384'",
    )?;

    // As MariaDB shows them.
    let show: Option<String> = root.query_first("SHOW CREATE USER subj@'%'")?;
    assert_eq!(
        show.as_deref(),
        Some(
            "CREATE USER `subj`@`%` IDENTIFIED BY PASSWORD '*D821809F681A40A6E379B50D0463EFAE20BDD122' \
             REQUIRE ISSUER '/CN=Larch_Server_Auto_Generated_CA_Certificate' SUBJECT '/C=FI/O=Larch/CN=alice'"
        )
    );
    let grants: Vec<String> = root.query("SHOW GRANTS FOR later@'%'")?;
    assert_eq!(
        grants.first().map(String::as_str),
        Some(
            "GRANT USAGE ON *.* TO `later`@`%` IDENTIFIED BY PASSWORD \
             '*D821809F681A40A6E379B50D0463EFAE20BDD122' REQUIRE SSL"
        )
    );

    // REQUIRE SSL: not in plain text; over TLS and the Unix socket.
    for user in ["s", "later"] {
        assert_eq!(code(mysql::Conn::new(as_user(&server, user)))?, 1045);
        let mut c = mysql::Conn::new(as_user(&server, user).ssl_opts(tls(&datadir, None)))?;
        assert_eq!(c.query_first::<i64, _>("SELECT 1")?, Some(1));
    }
    let mut c = mysql::Conn::new(
        mysql::OptsBuilder::new()
            .socket(Some(server.socket.display().to_string()))
            .user(Some("s"))
            .pass(Some("pw")),
    )?;
    assert_eq!(
        c.query_first::<String, _>("SELECT CURRENT_USER()")?
            .as_deref(),
        Some("s@%")
    );

    // REQUIRE X509: a verified client certificate.
    assert_eq!(
        code(mysql::Conn::new(
            as_user(&server, "x").ssl_opts(tls(&datadir, None))
        ))?,
        1045
    );
    let with_cert = tls(&datadir, generated_client(&datadir));
    let mut c = mysql::Conn::new(as_user(&server, "x").ssl_opts(with_cert))?;
    assert_eq!(c.query_first::<i64, _>("SELECT 2")?, Some(2));

    // SUBJECT and ISSUER: the certificate made here matches, the
    // generated one does not; CIPHER compares the negotiated one.
    let alice = own_client(&datadir, dir.path())?;
    let mut c =
        mysql::Conn::new(as_user(&server, "subj").ssl_opts(tls(&datadir, Some(alice.clone()))))?;
    assert_eq!(c.query_first::<i64, _>("SELECT 3")?, Some(3));
    let generated = tls(&datadir, generated_client(&datadir));
    assert_eq!(
        code(mysql::Conn::new(
            as_user(&server, "subj").ssl_opts(generated)
        ))?,
        1045
    );
    assert_eq!(
        code(mysql::Conn::new(
            as_user(&server, "other").ssl_opts(tls(&datadir, Some(alice)))
        ))?,
        1045
    );
    let mut c = mysql::Conn::new(as_user(&server, "c").ssl_opts(tls(&datadir, None)))?;
    let cipher: Option<(String, String)> = c.query_first("SHOW STATUS LIKE 'Ssl_cipher'")?;
    assert_eq!(
        cipher.map(|r| r.1).as_deref(),
        Some("TLS_AES_256_GCM_SHA384")
    );

    // ALTER USER ... REQUIRE NONE lifts it.
    root.query_drop("ALTER USER s@'%' REQUIRE NONE")?;
    drop(mysql::Conn::new(as_user(&server, "s"))?);
    Ok(())
}

#[test]
fn require_secure_transport_refuses_plain_tcp() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let server = Larchd::start(&datadir, &["--require-secure-transport=ON"])?;
    let e = server.connect();
    let (c, state, m) = e
        .err()
        .and_then(|e| server_error(&e))
        .ok_or("plain TCP let in")?;
    // MariaDB 10.11 refuses it as a failed login (MySQL's 3159 does not
    // exist there).
    assert_eq!((c, state.as_str()), (1045, "28000"));
    assert!(
        m.starts_with("Access denied for user 'root'@'") && m.ends_with("(using password: NO)"),
        "{m}"
    );
    let mut root = mysql::Conn::new(server.opts().ssl_opts(tls(&datadir, None)))?;
    let on: Option<i64> = root.query_first("SELECT @@require_secure_transport")?;
    assert_eq!(on, Some(1));
    let mut local = mysql::Conn::new(
        mysql::OptsBuilder::new()
            .socket(Some(server.socket.display().to_string()))
            .user(Some("root")),
    )?;
    assert_eq!(local.query_first::<i64, _>("SELECT 1")?, Some(1));
    root.query_drop("SET GLOBAL require_secure_transport = OFF")?;
    drop(server.connect()?);
    Ok(())
}

#[test]
fn names_too_long_or_not_utf8_and_secure_file_priv() -> Res {
    let dir = tempdir()?;
    let datadir = dir.path().join("data");
    let server = Larchd::start(&datadir, &[])?;
    let mut root = server.connect()?;
    let long = "a".repeat(129);
    let e = root.query_drop(format!("CREATE USER '{long}'@'%'"));
    let (c, _, m) = e.err().and_then(|e| server_error(&e)).ok_or("accepted")?;
    assert_eq!(c, 1470);
    assert_eq!(
        m,
        format!(
            "String '{}...' is too long for user name (should be no longer than 128)",
            "a".repeat(67)
        )
    );
    root.query_drop(format!("CREATE USER '{}'@'%'", "a".repeat(128)))?;
    let host = "h".repeat(256);
    assert_eq!(
        code(root.query_drop(format!("CREATE USER x@'{host}'")))?,
        1470
    );
    assert_eq!(
        code(root.query_drop(format!("DROP USER '{long}'@'%'")))?,
        1470
    );

    // secure_file_priv: the data directory's `files` directory.
    let dir_var: Option<String> = root.query_first("SELECT @@secure_file_priv")?;
    let files = datadir.join("files");
    assert_eq!(dir_var, Some(format!("{}/", files.display())));
    assert!(files.is_dir());
    let outside = dir.path().join("out.txt");
    let e = root.query_drop(format!("SELECT 1 INTO OUTFILE '{}'", outside.display()));
    assert_eq!(code(e)?, 1290);
    assert!(!outside.exists());
    root.query_drop(format!(
        "SELECT 1 INTO OUTFILE '{}'",
        files.join("in.txt").display()
    ))?;
    assert_eq!(std::fs::read_to_string(files.join("in.txt"))?, "1\n");

    // An identifier that is not UTF-8 (sent as raw bytes by the client).
    if !installed("names_too_long_or_not_utf8_and_secure_file_priv", "mariadb") {
        return Ok(());
    }
    let script = dir.path().join("bad.sql");
    std::fs::write(&script, b"CREATE TABLE test.`a\xffb` (x INT);\n")?;
    let out = std::process::Command::new("mariadb")
        .args([
            "--protocol=tcp",
            "-h127.0.0.1",
            &format!("-P{}", server.port),
            "-uroot",
            "--skip-ssl",
            "--default-character-set=utf8mb4",
        ])
        .stdin(std::fs::File::open(&script)?)
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("ERROR 1300 (HY000) at line 1: Invalid utf8mb4 character string: 'a\\xFFb'"),
        "{stderr}"
    );
    Ok(())
}
