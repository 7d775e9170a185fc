//! The parts of account statements that come after the accounts: the
//! `REQUIRE` clause and the `WITH` resource limits (and a GRANT's `WITH
//! GRANT OPTION` among them), as MariaDB writes them; and the 1470 error for
//! a name that is too long.

use super::{OptionsSpec, P, R};
use crate::error::SqlError;
use crate::privileges::options::{LimitSpec, TlsRequirement};

/// 1470 for a name that is too long (or not UTF-8), with MariaDB's text:
/// the name cut to 67 bytes and `...` when longer than 70 bytes, bytes
/// that are not UTF-8 as `?`.
pub(super) fn too_long(name: &str, what: &str, max: usize) -> SqlError {
    let shown: String = name
        .chars()
        .map(|c| if crate::parse::is_raw_byte(c) { '?' } else { c })
        .collect();
    let shown = if shown.len() > 70 {
        let mut cut = 67;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}...", &shown[..cut])
    } else {
        shown
    };
    SqlError::new(
        1470,
        format!("String '{shown}' is too long for {what} (should be no longer than {max})"),
    )
}

/// A per-hour limit: MariaDB keeps what fits in 32 bits.
fn clamp_u32(n: i64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl P<'_> {
    /// `REQUIRE ...` (when present) and `WITH` limits; `grant_option` is
    /// set by `WITH GRANT OPTION` where a GRANT allows it (`None`: not
    /// allowed).
    pub(super) fn options(&mut self, mut grant_option: Option<&mut bool>) -> R<OptionsSpec> {
        let mut spec = OptionsSpec::default();
        if self.word("REQUIRE") {
            spec.tls = Some(self.requirement()?);
        }
        if self.word("WITH") {
            let mut any = false;
            loop {
                if let Some(g) = grant_option.as_deref_mut() {
                    if self.words(&["GRANT", "OPTION"]) {
                        *g = true;
                        any = true;
                        continue;
                    }
                }
                if self.word("MAX_STATEMENT_TIME") {
                    spec.limits
                        .push(LimitSpec::StatementTime(self.seconds_as_micros()?));
                    any = true;
                    continue;
                }
                let limit = match self.peek_word(0) {
                    Some("MAX_QUERIES_PER_HOUR") => LimitSpec::QueriesPerHour(0),
                    Some("MAX_UPDATES_PER_HOUR") => LimitSpec::UpdatesPerHour(0),
                    Some("MAX_CONNECTIONS_PER_HOUR") => LimitSpec::ConnectionsPerHour(0),
                    Some("MAX_USER_CONNECTIONS") => LimitSpec::UserConnections(0),
                    _ if any => break,
                    _ => return Err(self.error()),
                };
                self.at += 1;
                let negative = self.sym('-');
                let n: i64 = match self.peek_word(0).map(str::parse::<i64>) {
                    Some(Ok(n)) => n,
                    _ => return Err(self.error()),
                };
                self.at += 1;
                let n = if negative { -n } else { n };
                let limit = match limit {
                    LimitSpec::UserConnections(_) => LimitSpec::UserConnections(
                        n.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
                    ),
                    _ if negative => return Err(self.error()),
                    LimitSpec::QueriesPerHour(_) => LimitSpec::QueriesPerHour(clamp_u32(n)),
                    LimitSpec::UpdatesPerHour(_) => LimitSpec::UpdatesPerHour(clamp_u32(n)),
                    LimitSpec::ConnectionsPerHour(_) => LimitSpec::ConnectionsPerHour(clamp_u32(n)),
                    LimitSpec::StatementTime(_) => return Err(self.error()),
                };
                spec.limits.push(limit);
                any = true;
            }
        }
        Ok(spec)
    }
    /// A number of seconds (`5`, `0.5`, `.25`), in microseconds: MariaDB
    /// keeps six decimals.
    fn seconds_as_micros(&mut self) -> R<u64> {
        let whole = match self.peek_word(0) {
            Some(w) if w.bytes().all(|b| b.is_ascii_digit()) => {
                let n = w.parse::<u64>().map_err(|_| self.error())?;
                self.at += 1;
                Some(n)
            }
            _ => None,
        };
        let mut micros = 0u64;
        if self.sym('.') {
            let Some(digits) = self
                .peek_word(0)
                .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
            else {
                return Err(self.error());
            };
            // Six digits, rounded at the seventh as MariaDB stores a double.
            let mut padded: Vec<u8> = digits.bytes().take(7).collect();
            padded.resize(7, b'0');
            let seventh = padded.pop().map_or(0, |d| d - b'0');
            micros = padded
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'))
                + u64::from(seventh >= 5);
            self.at += 1;
        } else if whole.is_none() {
            return Err(self.error());
        }
        let whole = whole.unwrap_or(0);
        Ok(whole.saturating_mul(1_000_000).saturating_add(micros))
    }

    /// After REQUIRE: `NONE | SSL | X509 | {ISSUER | SUBJECT | CIPHER}
    /// 'string' [[AND] ...]`.
    fn requirement(&mut self) -> R<TlsRequirement> {
        if self.word("NONE") {
            return Ok(TlsRequirement::None);
        }
        if self.word("SSL") {
            return Ok(TlsRequirement::Ssl);
        }
        if self.word("X509") {
            return Ok(TlsRequirement::X509);
        }
        let (mut issuer, mut subject, mut cipher) = (None, None, None);
        loop {
            let slot = if self.word("ISSUER") {
                &mut issuer
            } else if self.word("SUBJECT") {
                &mut subject
            } else if self.word("CIPHER") {
                &mut cipher
            } else {
                return Err(self.error());
            };
            if slot.is_some() {
                // MariaDB: each may be given once.
                return Err(self.error());
            }
            *slot = Some(self.string()?);
            let and = self.word("AND");
            if !and
                && !matches!(
                    self.peek_word(0),
                    Some("ISSUER") | Some("SUBJECT") | Some("CIPHER")
                )
            {
                break;
            }
        }
        Ok(TlsRequirement::Specified {
            issuer: issuer.unwrap_or_default(),
            subject: subject.unwrap_or_default(),
            cipher: cipher.unwrap_or_default(),
        })
    }
}
