//! TLS for client connections, as MySQL and MariaDB offer it, with rustls
//! (ring provider, TLS 1.2 and 1.3).
//!
//! Flow (`S` server, `C` client): when the server has a certificate and key
//! ([`TlsSettings`] in [`crate::ServerConfig::tls`]), the handshake packet
//! on TCP connections advertises `CLIENT_SSL`. A client that wants TLS
//! answers with an SSL request instead of its handshake response: the first
//! 32 bytes of a handshake response (capabilities with `CLIENT_SSL`, max
//! packet size, collation, 23 zero bytes), sequence id 1. Right behind it,
//! without waiting for an answer, `C` starts the TLS handshake on the same
//! socket. Once that is done, `C` sends its real handshake response over TLS
//! with sequence id 2, and the connection goes on as usual, encrypted.
//! Bytes of the TLS client hello that arrived with the SSL request (and sit
//! in the packet reader's buffer) are handed to rustls before the handshake.
//!
//! Unix-socket connections are already secure and do not offer TLS. Over
//! TLS, `caching_sha2_password` full authentication takes the password in
//! clear, as on a Unix socket (no RSA exchange).
//!
//! Files (PEM), as `mysqld` takes them: `--ssl-cert` the server certificate
//! chain (server certificate first), `--ssl-key` its private key (PKCS#8,
//! PKCS#1 RSA or SEC1 EC), `--ssl-ca` optional CA certificates. With a CA,
//! clients are asked for a certificate, which is verified against the CA if
//! they send one; none is required by TLS itself, the accounts decide
//! (`REQUIRE X509`, `ISSUER`, `SUBJECT`): [`TlsInfo::peer`] carries the
//! verified certificate's names to the login ([`crate::certname`]).
//!
//! [`TlsInfo`] reports the negotiated protocol and cipher with OpenSSL's
//! names (`TLSv1.3`, `TLS_AES_256_GCM_SHA384`, `ECDHE-RSA-AES128-GCM-SHA256`),
//! which is what MySQL shows in `Ssl_version` and `Ssl_cipher`.

use crate::blocking::SyncTls;
use crate::error::WireError;
use crate::packet::PacketStream;
use crate::stream::ClientStream;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ServerConnection, WebPkiClientVerifier};
use rustls::{CipherSuite, ProtocolVersion, RootCertStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// The TLS library, as shown in `version_ssl_library`.
pub const TLS_LIBRARY_VERSION: &str = "rustls 0.23";

/// Why the TLS files could not be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("cannot read the SSL {what} file '{}': {source}", path.display())]
    Read {
        /// `certificate`, `key` or `CA`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file was read but holds nothing usable.
    #[error("invalid SSL {what} file '{}': {reason}", path.display())]
    Invalid {
        /// `certificate`, `key` or `CA`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The certificate and key do not make a usable server identity (a key
    /// of an unsupported type, a key that does not match the certificate).
    #[error("the SSL certificate '{}' and key '{}' cannot be used: {source}", cert.display(), key.display())]
    Unusable {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
        /// What rustls said.
        source: rustls::Error,
    },
}

/// A loaded server certificate and key, ready to accept TLS connections.
#[derive(Clone)]
pub struct TlsSettings {
    acceptor: TlsAcceptor,
    /// The same configuration, for handshakes on sockets in blocking mode.
    config: Arc<rustls::ServerConfig>,
    /// The server certificate's validity, as OpenSSL prints it
    /// (`Ssl_server_not_before`, `Ssl_server_not_after`).
    validity: Option<(String, String)>,
    /// Client certificates are asked for (a CA is configured).
    verifies_clients: bool,
}

impl std::fmt::Debug for TlsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsSettings")
    }
}

/// The negotiated parameters of a TLS connection (`Ssl_version`,
/// `Ssl_cipher`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsInfo {
    /// Protocol version, e.g. `TLSv1.3`.
    pub version: String,
    /// Cipher suite, OpenSSL's name, e.g. `TLS_AES_256_GCM_SHA384`.
    pub cipher: String,
    /// The client's certificate, verified against the CA: its issuer and
    /// subject in OpenSSL's one-line form.
    pub peer: Option<(String, String)>,
}

impl TlsSettings {
    /// Loads the certificate chain, the private key and optionally the CA
    /// certificates (all PEM), checking that the key matches the
    /// certificate.
    pub fn load(cert: &Path, key: &Path, ca: Option<&Path>) -> Result<Self, TlsError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let chain = read_certificates("certificate", cert)?;
        let validity = chain
            .first()
            .and_then(|c| crate::certname::validity(c.as_ref()));
        let key_der = read_key(key)?;
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|source| unusable(cert, key, source))?;
        let builder = match ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                for der in read_certificates("CA", ca)? {
                    roots
                        .add(der)
                        .map_err(|e| invalid("CA", ca, e.to_string()))?;
                }
                let verifier = WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .allow_unauthenticated()
                    .build()
                    .map_err(|e| invalid("CA", ca, e.to_string()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(chain, key_der)
            .map_err(|source| unusable(cert, key, source))?;
        let config = Arc::new(config);
        Ok(TlsSettings {
            acceptor: TlsAcceptor::from(config.clone()),
            config,
            validity,
            verifies_clients: ca.is_some(),
        })
    }

    /// The server certificate's `(not before, not after)`, OpenSSL's form.
    pub fn validity(&self) -> Option<&(String, String)> {
        self.validity.as_ref()
    }

    /// True when clients are asked for a certificate (`Ssl_verify_mode`).
    pub fn verifies_clients(&self) -> bool {
        self.verifies_clients
    }
}

fn invalid(what: &'static str, path: &Path, reason: String) -> TlsError {
    TlsError::Invalid {
        what,
        path: path.to_owned(),
        reason,
    }
}

fn unusable(cert: &Path, key: &Path, source: rustls::Error) -> TlsError {
    TlsError::Unusable {
        cert: cert.to_owned(),
        key: key.to_owned(),
        source,
    }
}

fn read_file(what: &'static str, path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        what,
        path: path.to_owned(),
        source,
    })
}

/// Every certificate of a PEM file (at least one).
fn read_certificates(
    what: &'static str,
    path: &Path,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read_file(what, path)?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid(what, path, e.to_string()))?;
    if certs.is_empty() {
        return Err(invalid(what, path, "no PEM certificate in it".into()));
    }
    Ok(certs)
}

/// The first private key of a PEM file.
fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let pem = read_file("key", path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        let reason = match e {
            rustls::pki_types::pem::Error::NoItemsFound => "no PEM private key in it".to_owned(),
            e => e.to_string(),
        };
        invalid("key", path, reason)
    })
}

/// Turns the connection into a TLS one after the client's SSL request:
/// hands rustls the bytes already read past the request, runs the server
/// handshake, and continues the packet stream (and its sequence ids) over
/// TLS.
pub(crate) async fn start(
    stream: PacketStream<ClientStream>,
    settings: &TlsSettings,
) -> Result<(PacketStream<ClientStream>, TlsInfo), WireError> {
    let max_allowed_packet = stream.max_allowed_packet();
    let (inner, early, seq) = stream.into_parts();
    let (stream, info) = match inner {
        ClientStream::Tcp(tcp) => {
            let tls = accept(settings, tcp, &early).await?;
            let info = negotiated(tls.get_ref().1);
            (ClientStream::Tls(Box::new(tls)), info)
        }
        // A socket in blocking mode: rustls drives the handshake with
        // blocking reads and writes (`crate::blocking::SyncTls`).
        ClientStream::SyncTcp(mut tcp) => {
            let mut conn = ServerConnection::new(settings.config.clone())
                .map_err(|e| WireError::Tls(std::io::Error::other(e)))?;
            feed(&mut conn, &early).map_err(WireError::Tls)?;
            while conn.is_handshaking() {
                conn.complete_io(&mut tcp).map_err(WireError::Tls)?;
            }
            let info = negotiated(&conn);
            (
                ClientStream::SyncTls(Box::new(SyncTls::new(tcp, conn))),
                info,
            )
        }
        _ => {
            return Err(WireError::Malformed(
                "SSL request on a connection that does not offer TLS".into(),
            ))
        }
    };
    Ok((PacketStream::resume(stream, seq, max_allowed_packet), info))
}

/// The TLS handshake on `io`, after the `early` bytes of it that were
/// already read.
async fn accept<IO>(
    settings: &TlsSettings,
    io: IO,
    early: &[u8],
) -> Result<tokio_rustls::server::TlsStream<IO>, WireError>
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut fed = Ok(());
    let accept = settings
        .acceptor
        .accept_with(io, |conn| fed = feed(conn, early));
    fed.map_err(WireError::Tls)?;
    accept.await.map_err(WireError::Tls)
}

/// Gives rustls TLS records that were read before the handshake started.
fn feed(conn: &mut ServerConnection, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        if conn.read_tls(&mut bytes)? == 0 {
            break;
        }
        conn.process_new_packets()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    }
    Ok(())
}

/// The protocol version and cipher of an established connection.
fn negotiated(conn: &ServerConnection) -> TlsInfo {
    let version = match conn.protocol_version() {
        Some(ProtocolVersion::TLSv1_3) => "TLSv1.3".to_owned(),
        Some(ProtocolVersion::TLSv1_2) => "TLSv1.2".to_owned(),
        Some(v) => format!("{v:?}"),
        None => String::new(),
    };
    let cipher = conn
        .negotiated_cipher_suite()
        .map(|s| openssl_cipher_name(s.suite()))
        .unwrap_or_default();
    let peer = conn
        .peer_certificates()
        .and_then(|chain| chain.first())
        .and_then(|c| crate::certname::issuer_and_subject(c.as_ref()));
    TlsInfo {
        version,
        cipher,
        peer,
    }
}

/// OpenSSL's name of a cipher suite (what MySQL shows), or rustls' name for
/// suites without a mapping here.
fn openssl_cipher_name(suite: CipherSuite) -> String {
    let name = match suite {
        CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => {
            "ECDHE-ECDSA-CHACHA20-POLY1305"
        }
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        other => {
            return other
                .as_str()
                .map_or_else(|| format!("{other:?}"), str::to_owned)
        }
    };
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str, contents: &[u8]) -> std::io::Result<PathBuf> {
        let dir = std::env::temp_dir().join(format!("larch-wire-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(name);
        std::fs::write(&path, contents)?;
        Ok(path)
    }

    #[test]
    fn every_suite_has_an_openssl_name() {
        for suite in rustls::crypto::ring::default_provider().cipher_suites {
            let name = openssl_cipher_name(suite.suite());
            assert!(
                !name.starts_with("TLS13_") && !name.contains("_WITH_"),
                "{name}"
            );
        }
        assert_eq!(
            openssl_cipher_name(CipherSuite::TLS13_AES_256_GCM_SHA384),
            "TLS_AES_256_GCM_SHA384"
        );
    }

    #[test]
    fn missing_and_invalid_files_are_named_in_the_error() -> std::io::Result<()> {
        let missing = Path::new("/nonexistent/larch/server-cert.pem");
        let err = TlsSettings::load(missing, missing, None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with(
                "cannot read the SSL certificate file '/nonexistent/larch/server-cert.pem'"
            ),
            "{err}"
        );
        let garbage = scratch("garbage.pem", b"not a certificate\n")?;
        let err = TlsSettings::load(&garbage, &garbage, None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.starts_with("invalid SSL certificate file"), "{err}");
        assert!(err.contains("no PEM certificate"), "{err}");
        Ok(())
    }
}
