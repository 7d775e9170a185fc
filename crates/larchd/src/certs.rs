//! TLS on by default: without `--ssl-cert`, the server uses certificates
//! in the data directory, generated at the first start as MySQL's
//! `auto_generate_certs` does (same file names):
//!
//! - `ca.pem` / `ca-key.pem`: a self-signed CA;
//! - `server-cert.pem` / `server-key.pem`: the server's certificate
//!   (`localhost`, `127.0.0.1`, `::1`), signed by that CA;
//! - `client-cert.pem` / `client-key.pem`: a client certificate signed by
//!   the same CA, for accounts that `REQUIRE X509`.
//!
//! Keys are ECDSA P-256 (rcgen on ring), valid ten years from the day of
//! generation; the key files are written with mode 0600. Existing files
//! are used as they are (any of the three server files missing: all are
//! made anew). `--skip-ssl` (or `--ssl=0`) turns TLS off.

use std::io::Write;
use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};

use crate::options::SslFiles;

/// The files of a data directory's generated TLS setup.
pub fn datadir_files(datadir: &Path) -> SslFiles {
    SslFiles {
        cert: datadir.join("server-cert.pem"),
        key: datadir.join("server-key.pem"),
        ca: Some(datadir.join("ca.pem")),
    }
}

/// Makes the data directory's TLS files unless they exist; returns them,
/// and whether they were generated now.
pub fn ensure(datadir: &Path) -> Result<(SslFiles, bool), String> {
    let files = datadir_files(datadir);
    let ca = files.ca.clone().unwrap_or_else(|| datadir.join("ca.pem"));
    if files.cert.exists() && files.key.exists() && ca.exists() {
        return Ok((files, false));
    }
    generate(datadir).map_err(|e| format!("cannot generate the TLS certificates: {e}"))?;
    Ok((files, true))
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
fn civil(days: i64) -> (i32, u8, u8) {
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let y = (yoe + era * 400 + i64::from(m <= 2)) as i32;
    (y, m, d)
}

fn params(common_name: &str, names: Vec<String>) -> Result<CertificateParams, rcgen::Error> {
    let mut p = CertificateParams::new(names)?;
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| (d.as_secs() / 86_400) as i64)
        .unwrap_or(0);
    let (y, m, d) = civil(days);
    p.not_before = rcgen::date_time_ymd(y, m, d);
    // 28 February exists in every year.
    p.not_after = rcgen::date_time_ymd(y + 10, m, d.min(28));
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, common_name);
    p.distinguished_name = dn;
    Ok(p)
}

/// Writes `contents` to `path` (mode 0600 for keys).
fn write(path: &Path, contents: &str, secret: bool) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    if secret {
        options.mode(0o600);
    }
    options.open(path)?.write_all(contents.as_bytes())
}

/// Generates the six files (see the module documentation).
fn generate(datadir: &Path) -> Result<(), String> {
    for (name, contents, secret) in pems().map_err(|e| e.to_string())? {
        let path = datadir.join(name);
        write(&path, &contents, secret)
            .map_err(|e| format!("cannot write '{}': {e}", path.display()))?;
    }
    Ok(())
}

/// The six files' names, PEM contents and whether they are secret.
fn pems() -> Result<Vec<(&'static str, String, bool)>, rcgen::Error> {
    let ca_key = KeyPair::generate()?;
    let mut ca = params("Larch_Server_Auto_Generated_CA_Certificate", Vec::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::from_params(&ca, &ca_key);

    let server_key = KeyPair::generate()?;
    let mut server = params(
        "Larch_Server_Auto_Generated_Server_Certificate",
        vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
    )?;
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    server.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let server_cert = server.signed_by(&server_key, &issuer)?;

    let client_key = KeyPair::generate()?;
    let mut client = params("Larch_Server_Auto_Generated_Client_Certificate", Vec::new())?;
    client.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    client.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let client_cert = client.signed_by(&client_key, &issuer)?;

    Ok(vec![
        ("ca-key.pem", ca_key.serialize_pem(), true),
        ("ca.pem", ca_cert.pem(), false),
        ("server-key.pem", server_key.serialize_pem(), true),
        ("server-cert.pem", server_cert.pem(), false),
        ("client-key.pem", client_key.serialize_pem(), true),
        ("client-cert.pem", client_cert.pem(), false),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_782), (2024, 2, 29));
        assert_eq!(civil(20_797), (2026, 12, 10));
    }

    #[test]
    fn generated_files_load_as_tls_settings() -> Result<(), String> {
        let dir = std::env::temp_dir().join(format!("larchd-certs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let (files, made) = ensure(&dir)?;
        assert!(made);
        let loaded = larch_wire::TlsSettings::load(&files.cert, &files.key, files.ca.as_deref());
        assert!(loaded.is_ok(), "{:?}", loaded.err());
        let (_, made_again) = ensure(&dir)?;
        assert!(!made_again);
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
