//! Stored credentials and the password checks of `mysql_native_password`
//! and `caching_sha2_password`.
//!
//! What is stored (never the password):
//! - `mysql_native_password`: `SHA1(SHA1(password))` ("stage 2"), the value
//!   MySQL shows as `*` followed by 40 hex digits;
//! - `caching_sha2_password`: MySQL's salted SHA-256 crypt string
//!   `$A$005$<20-byte salt><43-character digest>` (SHA-crypt with a 20-byte
//!   salt and `rounds = 1000 * 0x005`), so account rows copied from MySQL
//!   keep working.
//!
//! A scramble response proves knowledge of the password without sending it:
//! native: `SHA1(pw) XOR SHA1(nonce + stage2)`; caching_sha2:
//! `SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce)`. Verification
//! recovers the first hash and checks that hashing it again gives the
//! stored (or cached) stage-2 value. Comparisons run in constant time.

use sha1::{Digest, Sha1};
use sha2::Sha256;

/// Salt length of the caching_sha2 crypt string.
const CRYPT_SALT_LEN: usize = 20;
/// Length of the digest part of the crypt string.
const CRYPT_DIGEST_LEN: usize = 43;
/// Rounds are stored divided by this.
const ROUNDS_MULTIPLIER: u32 = 1000;
/// Default rounds, as MySQL's `caching_sha2_password_digest_rounds`.
const DEFAULT_ROUNDS: u32 = 5000;
/// Alphabet of crypt's base-64 encoding.
const CRYPT_B64: &[u8; 64] = b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// An account's stored secret; the variant also names its auth plugin.
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// `mysql_native_password` with `SHA1(SHA1(password))`, or `None` for an
    /// empty password.
    NativePassword(Option<[u8; 20]>),
    /// `caching_sha2_password` with its `$A$...` crypt string, or `None` for
    /// an empty password.
    CachingSha2Password(Option<String>),
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print secrets, not even hashes.
        match self {
            Credential::NativePassword(h) => write!(f, "NativePassword(set: {})", h.is_some()),
            Credential::CachingSha2Password(h) => {
                write!(f, "CachingSha2Password(set: {})", h.is_some())
            }
        }
    }
}

impl Credential {
    /// A `mysql_native_password` credential for `password` (empty means none).
    pub fn native(password: &str) -> Self {
        if password.is_empty() {
            return Credential::NativePassword(None);
        }
        Credential::NativePassword(Some(sha1(&sha1(password.as_bytes()))))
    }

    /// A `mysql_native_password` credential from MySQL's
    /// `authentication_string` (`*` + 40 hex digits, or empty).
    pub fn native_from_hex(auth_string: &str) -> Option<Self> {
        if auth_string.is_empty() {
            return Some(Credential::NativePassword(None));
        }
        let hex = auth_string.strip_prefix('*')?;
        if hex.len() != 40 {
            return None;
        }
        let mut out = [0u8; 20];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Credential::NativePassword(Some(out)))
    }

    /// A `caching_sha2_password` credential for `password` with a fresh
    /// random salt (empty means none).
    pub fn caching_sha2(password: &str) -> Result<Self, getrandom::Error> {
        if password.is_empty() {
            return Ok(Credential::CachingSha2Password(None));
        }
        let salt = random_salt()?;
        Ok(Credential::CachingSha2Password(Some(sha256_crypt(
            password.as_bytes(),
            &salt,
            DEFAULT_ROUNDS,
        ))))
    }

    /// A `caching_sha2_password` credential from MySQL's
    /// `authentication_string` (`$A$005$...`, 70 bytes, or empty).
    pub fn caching_sha2_from_auth_string(auth_string: &str) -> Option<Self> {
        if auth_string.is_empty() {
            return Some(Credential::CachingSha2Password(None));
        }
        parse_crypt(auth_string)?;
        Some(Credential::CachingSha2Password(Some(
            auth_string.to_owned(),
        )))
    }

    /// The plugin name this credential authenticates with.
    pub fn plugin_name(&self) -> &'static str {
        match self {
            Credential::NativePassword(_) => "mysql_native_password",
            Credential::CachingSha2Password(_) => "caching_sha2_password",
        }
    }

    /// True if the account has no password.
    pub fn is_empty_password(&self) -> bool {
        matches!(
            self,
            Credential::NativePassword(None) | Credential::CachingSha2Password(None)
        )
    }

    /// MySQL's `authentication_string` form (`*HEX` or `$A$...`).
    pub fn auth_string(&self) -> String {
        match self {
            Credential::NativePassword(None) | Credential::CachingSha2Password(None) => {
                String::new()
            }
            Credential::NativePassword(Some(h)) => {
                let mut s = String::with_capacity(41);
                s.push('*');
                for b in h {
                    s.push_str(&format!("{b:02X}"));
                }
                s
            }
            Credential::CachingSha2Password(Some(c)) => c.clone(),
        }
    }
}

/// SHA-1 of `data`.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    Sha1::digest(data).into()
}

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks a `mysql_native_password` scramble `response` for `nonce`
/// against the stored `SHA1(SHA1(password))`.
pub fn verify_native(response: &[u8], nonce: &[u8], stage2: &[u8; 20]) -> bool {
    if response.len() != 20 {
        return false;
    }
    let mut h = Sha1::new();
    h.update(nonce);
    h.update(stage2);
    let mask: [u8; 20] = h.finalize().into();
    let mut stage1 = [0u8; 20];
    for i in 0..20 {
        stage1[i] = response[i] ^ mask[i];
    }
    constant_time_eq(&sha1(&stage1), stage2)
}

/// Checks a `caching_sha2_password` fast-path scramble `response` for
/// `nonce` against the cached `SHA256(SHA256(password))`.
pub fn verify_sha2_scramble(response: &[u8], nonce: &[u8], stage2: &[u8; 32]) -> bool {
    if response.len() != 32 {
        return false;
    }
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(nonce);
    let mask: [u8; 32] = h.finalize().into();
    let mut stage1 = [0u8; 32];
    for i in 0..32 {
        stage1[i] = response[i] ^ mask[i];
    }
    constant_time_eq(&sha256(&stage1), stage2)
}

/// `SHA256(SHA256(password))`, the value the fast-auth cache holds.
pub fn sha2_stage2(password: &[u8]) -> [u8; 32] {
    sha256(&sha256(password))
}

/// Checks a clear-text `password` against a `$A$` crypt string.
pub fn verify_crypt(password: &[u8], crypt: &str) -> bool {
    let Some((rounds, salt)) = parse_crypt(crypt) else {
        return false;
    };
    constant_time_eq(
        sha256_crypt(password, salt, rounds).as_bytes(),
        crypt.as_bytes(),
    )
}

/// Splits `$A$RRR$<salt><digest>` into (rounds, salt).
fn parse_crypt(crypt: &str) -> Option<(u32, &[u8])> {
    let rest = crypt.strip_prefix("$A$")?;
    let (count, tail) = rest.split_once('$')?;
    if count.len() != 3 || tail.len() != CRYPT_SALT_LEN + CRYPT_DIGEST_LEN {
        return None;
    }
    let rounds = u32::from_str_radix(count, 16)
        .ok()?
        .checked_mul(ROUNDS_MULTIPLIER)?;
    if rounds == 0 {
        return None;
    }
    Some((rounds, tail.as_bytes().get(..CRYPT_SALT_LEN)?))
}

/// A random 20-character salt of printable ASCII without `$`.
fn random_salt() -> Result<[u8; CRYPT_SALT_LEN], getrandom::Error> {
    let mut salt = [0u8; CRYPT_SALT_LEN];
    getrandom::fill(&mut salt)?;
    for b in &mut salt {
        // 0x21..=0x7e is 94 characters; map '$' to '%'.
        *b = 0x21 + *b % 94;
        if *b == b'$' {
            *b = b'%';
        }
    }
    Ok(salt)
}

/// SHA-256 crypt (Drepper's SHA-crypt) of `password` with `salt` and
/// `rounds`, digest encoded with crypt's base 64. Unlike `$5$` crypt the salt
/// is not cut to 16 bytes.
fn sha256_crypt_digest(password: &[u8], salt: &[u8], rounds: u32) -> String {
    let b = {
        let mut h = Sha256::new();
        h.update(password);
        h.update(salt);
        h.update(password);
        h.finalize()
    };
    let mut h = Sha256::new();
    h.update(password);
    h.update(salt);
    let mut left = password.len();
    while left > 32 {
        h.update(b);
        left -= 32;
    }
    h.update(&b[..left]);
    let mut bits = password.len();
    while bits > 0 {
        if bits & 1 == 1 {
            h.update(b);
        } else {
            h.update(password);
        }
        bits >>= 1;
    }
    let mut a: [u8; 32] = h.finalize().into();

    let dp = {
        let mut h = Sha256::new();
        for _ in 0..password.len() {
            h.update(password);
        }
        h.finalize()
    };
    let p: Vec<u8> = dp.iter().copied().cycle().take(password.len()).collect();
    let ds = {
        let mut h = Sha256::new();
        for _ in 0..16 + usize::from(a[0]) {
            h.update(salt);
        }
        h.finalize()
    };
    let s: Vec<u8> = ds.iter().copied().cycle().take(salt.len()).collect();

    for round in 0..rounds {
        let mut h = Sha256::new();
        if round & 1 == 1 {
            h.update(&p);
        } else {
            h.update(a);
        }
        if round % 3 != 0 {
            h.update(&s);
        }
        if round % 7 != 0 {
            h.update(&p);
        }
        if round & 1 == 1 {
            h.update(a);
        } else {
            h.update(&p);
        }
        a = h.finalize().into();
    }

    const ORDER: [(usize, usize, usize); 10] = [
        (0, 10, 20),
        (21, 1, 11),
        (12, 22, 2),
        (3, 13, 23),
        (24, 4, 14),
        (15, 25, 5),
        (6, 16, 26),
        (27, 7, 17),
        (18, 28, 8),
        (9, 19, 29),
    ];
    let mut out = String::with_capacity(CRYPT_DIGEST_LEN);
    let mut push = |b2: u8, b1: u8, b0: u8, n: usize| {
        let mut w = u32::from(b2) << 16 | u32::from(b1) << 8 | u32::from(b0);
        for _ in 0..n {
            out.push(char::from(CRYPT_B64[(w & 0x3f) as usize]));
            w >>= 6;
        }
    };
    for (i, j, k) in ORDER {
        push(a[i], a[j], a[k], 4);
    }
    push(0, a[31], a[30], 3);
    out
}

/// The full `$A$RRR$<salt><digest>` string.
fn sha256_crypt(password: &[u8], salt: &[u8], rounds: u32) -> String {
    let mut out = format!("$A${:03X}$", rounds / ROUNDS_MULTIPLIER);
    out.push_str(&String::from_utf8_lossy(salt));
    out.push_str(&sha256_crypt_digest(password, salt, rounds));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha_crypt_matches_reference_vectors() {
        // Test vectors of the SHA-crypt specification ($5$ variant).
        assert_eq!(
            sha256_crypt_digest(b"Hello world!", b"saltstring", 5000),
            "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"
        );
        assert_eq!(
            sha256_crypt_digest(b"Hello world!", b"saltstringsaltst", 10000),
            "3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA"
        );
        assert_eq!(
            sha256_crypt_digest(
                b"we have a short salt string but not a short password",
                b"short",
                77777
            ),
            "JiO1O3ZpDAxGJeaDIuqCoEFysAe1mZNJRs3pw0KQRd/"
        );
    }

    #[test]
    fn caching_sha2_credential_verifies_only_its_password() -> Result<(), getrandom::Error> {
        let cred = Credential::caching_sha2("s3cret")?;
        let Credential::CachingSha2Password(Some(crypt)) = &cred else {
            panic!("expected a crypt string");
        };
        assert_eq!(crypt.len(), 70);
        assert!(crypt.starts_with("$A$005$"));
        assert!(verify_crypt(b"s3cret", crypt));
        assert!(!verify_crypt(b"s3creT", crypt));
        assert!(!verify_crypt(b"", crypt));
        let again = Credential::caching_sha2_from_auth_string(crypt);
        assert_eq!(again.as_ref(), Some(&cred));
        assert!(Credential::caching_sha2_from_auth_string("$A$005$short").is_none());
        Ok(())
    }

    #[test]
    fn native_scramble_round_trip() {
        let nonce = b"01234567890123456789";
        let cred = Credential::native("pw");
        let Credential::NativePassword(Some(stage2)) = cred else {
            panic!("expected a hash");
        };
        let response = mysql_common::scramble::scramble_native(nonce, b"pw").unwrap_or_default();
        assert!(verify_native(&response, nonce, &stage2));
        let wrong = mysql_common::scramble::scramble_native(nonce, b"px").unwrap_or_default();
        assert!(!verify_native(&wrong, nonce, &stage2));
        assert!(!verify_native(&response[..19], nonce, &stage2));
        // authentication_string round trip, as MySQL prints PASSWORD('pw').
        let text = Credential::native("pw").auth_string();
        assert_eq!(text.len(), 41);
        assert_eq!(
            Credential::native_from_hex(&text),
            Some(Credential::native("pw"))
        );
    }

    #[test]
    fn sha2_scramble_round_trip() {
        let nonce = b"abcdefghijabcdefghij";
        let stage2 = sha2_stage2(b"pw");
        let response = mysql_common::scramble::scramble_sha256(nonce, b"pw").unwrap_or_default();
        assert!(verify_sha2_scramble(&response, nonce, &stage2));
        let wrong = mysql_common::scramble::scramble_sha256(nonce, b"pW").unwrap_or_default();
        assert!(!verify_sha2_scramble(&wrong, nonce, &stage2));
    }

    #[test]
    fn debug_output_hides_secrets() {
        let text = format!("{:?}", Credential::native("pw"));
        assert_eq!(text, "NativePassword(set: true)");
    }
}
