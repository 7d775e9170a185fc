//! What an account carries besides its password and privileges, as MariaDB
//! stores it in `mysql.global_priv`: the TLS requirement of `REQUIRE` and the
//! resource limits of `WITH MAX_...`.
//!
//! - [`TlsRequirement`]: `REQUIRE NONE | SSL | X509 | ISSUER '..' AND
//!   SUBJECT '..' AND CIPHER '..'`; [`TlsRequirement::check`] decides a
//!   login from what the connection established ([`LoginTls`]), as MariaDB's
//!   `acl_check_ssl` does: a Unix socket counts as TLS, X509 needs a client
//!   certificate the server verified, ISSUER/SUBJECT compare its names in
//!   OpenSSL's one-line form (`/C=FI/O=Larch/CN=client`), CIPHER the
//!   negotiated cipher's OpenSSL name.
//! - [`AccountLimits`]: `MAX_QUERIES_PER_HOUR`, `MAX_UPDATES_PER_HOUR`,
//!   `MAX_CONNECTIONS_PER_HOUR` (0: unlimited) and `MAX_USER_CONNECTIONS`
//!   (0: the global `max_user_connections`; MariaDB keeps it signed),
//!   enforced by the server (larchd), which counts per account; and
//!   `MAX_STATEMENT_TIME` (seconds, 0: none), which a login takes as its
//!   session's `max_statement_time`.
//!
//! Both are shown after the account's authentication in SHOW CREATE USER
//! and SHOW GRANTS ([`AccountOptions::show`]); their bytes are in
//! `docs/accounts.md` (encoding version 2).

/// The `REQUIRE` clause of an account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TlsRequirement {
    /// `REQUIRE NONE` (or no clause).
    #[default]
    None,
    /// `REQUIRE SSL`: an encrypted connection.
    Ssl,
    /// `REQUIRE X509`: an encrypted connection with a verified client
    /// certificate.
    X509,
    /// `REQUIRE ISSUER '..' AND SUBJECT '..' AND CIPHER '..'` (any of the
    /// three; empty strings are not required).
    Specified {
        issuer: String,
        subject: String,
        cipher: String,
    },
}

/// What a connection established that [`TlsRequirement::check`] needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoginTls {
    /// The client came over a Unix socket.
    pub unix_socket: bool,
    /// The negotiated cipher (OpenSSL's name), if the connection is TLS.
    pub cipher: Option<String>,
    /// The verified client certificate's issuer and subject, one-line form.
    pub peer: Option<(String, String)>,
}

impl TlsRequirement {
    /// Encoding tag (0 none, 1 SSL, 2 X509, 3 specified), as MariaDB's
    /// `ssl_type` (SSL_TYPE_NONE, ANY, X509, SPECIFIED).
    pub fn tag(&self) -> u8 {
        match self {
            TlsRequirement::None => 0,
            TlsRequirement::Ssl => 1,
            TlsRequirement::X509 => 2,
            TlsRequirement::Specified { .. } => 3,
        }
    }

    /// True when a login with `tls` satisfies the requirement.
    pub fn check(&self, tls: &LoginTls) -> bool {
        let encrypted = tls.cipher.is_some();
        match self {
            TlsRequirement::None => true,
            TlsRequirement::Ssl => encrypted || tls.unix_socket,
            TlsRequirement::X509 => encrypted && tls.peer.is_some(),
            TlsRequirement::Specified {
                issuer,
                subject,
                cipher,
            } => {
                let Some(negotiated) = &tls.cipher else {
                    return false;
                };
                if !cipher.is_empty() && cipher != negotiated {
                    return false;
                }
                if issuer.is_empty() && subject.is_empty() {
                    return true;
                }
                let Some((peer_issuer, peer_subject)) = &tls.peer else {
                    return false;
                };
                (issuer.is_empty() || issuer == peer_issuer)
                    && (subject.is_empty() || subject == peer_subject)
            }
        }
    }

    /// ` REQUIRE ...` as SHOW GRANTS writes it; empty for none.
    pub fn show(&self) -> String {
        match self {
            TlsRequirement::None => String::new(),
            TlsRequirement::Ssl => " REQUIRE SSL".into(),
            TlsRequirement::X509 => " REQUIRE X509".into(),
            TlsRequirement::Specified {
                issuer,
                subject,
                cipher,
            } => {
                let mut out = String::from(" REQUIRE");
                for (name, value) in [("ISSUER", issuer), ("SUBJECT", subject), ("CIPHER", cipher)]
                {
                    if !value.is_empty() {
                        out.push_str(&format!(" {name} '{}'", quote(value)));
                    }
                }
                out
            }
        }
    }
}

/// `'` and `\` escaped as in a string literal.
fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\'', "\\'")
}

/// An account's resource limits (0: no limit of its own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccountLimits {
    pub queries_per_hour: u32,
    pub updates_per_hour: u32,
    pub connections_per_hour: u32,
    /// Signed, as MariaDB keeps it.
    pub user_connections: i32,
    /// `MAX_STATEMENT_TIME` in microseconds (MariaDB keeps 6 decimals of
    /// a second).
    pub statement_time_us: u64,
}

impl AccountLimits {
    /// True when no limit is set.
    pub fn is_empty(&self) -> bool {
        *self == AccountLimits::default()
    }

    /// `MAX_... n` words of the set limits, in MariaDB's order.
    fn words(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, value) in [
            ("MAX_QUERIES_PER_HOUR", i64::from(self.queries_per_hour)),
            ("MAX_UPDATES_PER_HOUR", i64::from(self.updates_per_hour)),
            (
                "MAX_CONNECTIONS_PER_HOUR",
                i64::from(self.connections_per_hour),
            ),
            ("MAX_USER_CONNECTIONS", i64::from(self.user_connections)),
        ] {
            if value != 0 {
                out.push(format!("{name} {value}"));
            }
        }
        if self.statement_time_us != 0 {
            out.push(format!(
                "MAX_STATEMENT_TIME {}.{:06}",
                self.statement_time_us / 1_000_000,
                self.statement_time_us % 1_000_000
            ));
        }
        out
    }
}

/// One limit of a `WITH` clause, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitSpec {
    QueriesPerHour(u32),
    UpdatesPerHour(u32),
    ConnectionsPerHour(u32),
    UserConnections(i32),
    /// Microseconds.
    StatementTime(u64),
}

impl AccountLimits {
    /// Applies the limits a statement names (the others stay).
    pub fn apply(&mut self, specs: &[LimitSpec]) {
        for spec in specs {
            match *spec {
                LimitSpec::QueriesPerHour(n) => self.queries_per_hour = n,
                LimitSpec::UpdatesPerHour(n) => self.updates_per_hour = n,
                LimitSpec::ConnectionsPerHour(n) => self.connections_per_hour = n,
                LimitSpec::UserConnections(n) => self.user_connections = n,
                LimitSpec::StatementTime(us) => self.statement_time_us = us,
            }
        }
    }
}

/// The TLS requirement and the limits of one account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountOptions {
    pub tls: TlsRequirement,
    pub limits: AccountLimits,
}

impl AccountOptions {
    /// What SHOW CREATE USER writes after the authentication:
    /// ` REQUIRE ...` and ` WITH MAX_...`.
    pub fn show(&self) -> String {
        self.show_with_grant_option(false)
    }

    /// The same for SHOW GRANTS' global line, where `WITH GRANT OPTION`
    /// comes first in the `WITH` clause.
    pub fn show_with_grant_option(&self, grant_option: bool) -> String {
        let mut out = self.tls.show();
        let mut with = Vec::new();
        if grant_option {
            with.push("GRANT OPTION".to_string());
        }
        with.extend(self.limits.words());
        if !with.is_empty() {
            out.push_str(" WITH ");
            out.push_str(&with.join(" "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_decide_logins() {
        let plain = LoginTls::default();
        let socket = LoginTls {
            unix_socket: true,
            ..LoginTls::default()
        };
        let tls = LoginTls {
            cipher: Some("TLS_AES_256_GCM_SHA384".into()),
            ..LoginTls::default()
        };
        let cert = LoginTls {
            peer: Some(("/CN=CA".into(), "/O=Larch/CN=client".into())),
            ..tls.clone()
        };
        assert!(TlsRequirement::None.check(&plain));
        assert!(!TlsRequirement::Ssl.check(&plain));
        assert!(TlsRequirement::Ssl.check(&socket));
        assert!(TlsRequirement::Ssl.check(&tls));
        assert!(!TlsRequirement::X509.check(&tls));
        assert!(!TlsRequirement::X509.check(&socket));
        assert!(TlsRequirement::X509.check(&cert));
        let subject = TlsRequirement::Specified {
            issuer: String::new(),
            subject: "/O=Larch/CN=client".into(),
            cipher: String::new(),
        };
        assert!(subject.check(&cert));
        assert!(!subject.check(&tls));
        let cipher = TlsRequirement::Specified {
            issuer: String::new(),
            subject: String::new(),
            cipher: "TLS_AES_128_GCM_SHA256".into(),
        };
        assert!(!cipher.check(&cert));
    }

    #[test]
    fn shown_as_mariadb_shows_them() {
        let o = AccountOptions {
            tls: TlsRequirement::Specified {
                issuer: "/CN=TestCA".into(),
                subject: String::new(),
                cipher: "TLS_AES_256_GCM_SHA384".into(),
            },
            limits: AccountLimits {
                queries_per_hour: 7,
                user_connections: 5,
                statement_time_us: 500_000,
                ..AccountLimits::default()
            },
        };
        assert_eq!(
            o.show_with_grant_option(true),
            " REQUIRE ISSUER '/CN=TestCA' CIPHER 'TLS_AES_256_GCM_SHA384' WITH GRANT OPTION \
             MAX_QUERIES_PER_HOUR 7 MAX_USER_CONNECTIONS 5 MAX_STATEMENT_TIME 0.500000"
        );
        assert_eq!(AccountOptions::default().show(), "");
    }
}
