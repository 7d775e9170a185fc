//! The server's RSA key for `caching_sha2_password` full authentication over
//! plain TCP. Over TLS or a Unix socket the client sends the password in
//! clear and the key is not used.
//!
//! Protocol: the client asks for the public key, the server sends it as a PEM
//! `SubjectPublicKeyInfo` ("BEGIN PUBLIC KEY"), the client encrypts
//! `password + NUL` XORed with the handshake nonce, and the server decrypts.
//! Clients pad with RSAES-OAEP (SHA-1, MGF1-SHA-1, empty label), as MySQL
//! 8.0.5 and later expect; PKCS#1 v1.5 padding (older clients) is accepted
//! too.
//!
//! The key is generated when the server starts (2048 bits, e = 65537, two
//! primes found by sieving and Miller-Rabin), using the big-integer code that
//! `mysql_common` already depends on. Decryption uses the CRT form. Loading
//! a key from a file is not supported yet: clients that pin the server's
//! public key (`--server-public-key-path`) must fetch it again after a
//! restart.

use super::password::sha1;
use base64::Engine as _;
use mysql_common::num_bigint::BigUint;

/// Modulus size of generated keys.
pub const DEFAULT_KEY_BITS: u64 = 2048;

/// An RSA private key.
pub struct RsaPrivateKey {
    n: BigUint,
    e: BigUint,
    p: BigUint,
    q: BigUint,
    dp: BigUint,
    dq: BigUint,
    qinv: BigUint,
    pem: String,
}

impl std::fmt::Debug for RsaPrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RsaPrivateKey({} bits)", self.n.bits())
    }
}

/// Why key generation failed.
#[derive(Debug, thiserror::Error)]
pub enum RsaError {
    /// The system random source failed.
    #[error("random source failed: {0}")]
    Random(#[from] getrandom::Error),
    /// The requested size is not supported.
    #[error("unsupported RSA key size {0}")]
    BadSize(u64),
}

/// Odd primes below 1000, for sieving candidates.
fn small_primes() -> Vec<u32> {
    (3u32..1000)
        .step_by(2)
        .filter(|n| {
            (3..*n)
                .step_by(2)
                .take_while(|d| d * d <= *n)
                .all(|d| n % d != 0)
        })
        .collect()
}

fn random_biguint(bytes: usize) -> Result<BigUint, getrandom::Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)?;
    Ok(BigUint::from_bytes_be(&buf))
}

/// Miller-Rabin with `rounds` random bases.
fn is_probable_prime(n: &BigUint, rounds: usize) -> Result<bool, getrandom::Error> {
    let one = BigUint::from(1u32);
    let two = BigUint::from(2u32);
    let n_minus_1 = n - &one;
    let s = n_minus_1.trailing_zeros().unwrap_or(0);
    let d = &n_minus_1 >> s;
    let byte_len = (n.bits() as usize).div_ceil(8);
    'witness: for _ in 0..rounds {
        let a = random_biguint(byte_len)? % (n - 3u32) + &two;
        let mut x = a.modpow(&d, n);
        if x == one || x == n_minus_1 {
            continue;
        }
        for _ in 1..s {
            x = x.modpow(&two, n);
            if x == n_minus_1 {
                continue 'witness;
            }
        }
        return Ok(false);
    }
    Ok(true)
}

/// A random prime of exactly `bits` bits with the top two bits set (so that
/// the product of two has exactly `2 * bits` bits) and `p - 1` coprime to
/// 65537.
fn random_prime(bits: u64, primes: &[u32]) -> Result<BigUint, getrandom::Error> {
    let bytes = (bits / 8) as usize;
    loop {
        let mut candidate = random_biguint(bytes)?;
        candidate.set_bit(bits - 1, true);
        candidate.set_bit(bits - 2, true);
        candidate.set_bit(0, true);
        // Step through odd numbers from the random start until one passes.
        for _ in 0..2048 {
            let divisible = primes
                .iter()
                .any(|&p| (&candidate % p) == BigUint::from(0u32));
            let e_ok = (&candidate - 1u32) % 65537u32 != BigUint::from(0u32);
            if !divisible && e_ok && is_probable_prime(&candidate, 8)? {
                return Ok(candidate);
            }
            candidate += 2u32;
            if candidate.bits() != bits {
                break;
            }
        }
    }
}

impl RsaPrivateKey {
    /// Generates a fresh key with a modulus of `bits` bits (1024..=4096, a
    /// multiple of 16).
    pub fn generate(bits: u64) -> Result<Self, RsaError> {
        if !(1024..=4096).contains(&bits) || bits % 16 != 0 {
            return Err(RsaError::BadSize(bits));
        }
        let primes = small_primes();
        let e = BigUint::from(65537u32);
        loop {
            let p = random_prime(bits / 2, &primes)?;
            let q = random_prime(bits / 2, &primes)?;
            if p == q {
                continue;
            }
            let (p, q) = if p > q { (p, q) } else { (q, p) };
            let n = &p * &q;
            let one = BigUint::from(1u32);
            let phi = (&p - &one) * (&q - &one);
            let Some(d) = e.modinv(&phi) else {
                continue;
            };
            let Some(qinv) = q.modinv(&p) else {
                continue;
            };
            let dp = &d % (&p - &one);
            let dq = &d % (&q - &one);
            let pem = public_key_pem(&n, &e);
            return Ok(RsaPrivateKey {
                n,
                e,
                p,
                q,
                dp,
                dq,
                qinv,
                pem,
            });
        }
    }

    /// Modulus length in bytes (the length of every ciphertext).
    pub fn size_bytes(&self) -> usize {
        (self.n.bits() as usize).div_ceil(8)
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`).
    pub fn public_key_pem(&self) -> &str {
        &self.pem
    }

    /// The modulus and public exponent.
    pub fn public_parts(&self) -> (&BigUint, &BigUint) {
        (&self.n, &self.e)
    }

    /// Decrypts `ciphertext` and removes OAEP (SHA-1) or PKCS#1 v1.5
    /// padding. Returns `None` if the block is not a valid ciphertext.
    pub fn decrypt(&self, ciphertext: &[u8]) -> Option<Vec<u8>> {
        let k = self.size_bytes();
        if ciphertext.len() != k {
            return None;
        }
        let c = BigUint::from_bytes_be(ciphertext);
        if c >= self.n {
            return None;
        }
        // CRT: m = m2 + q * (qinv * (m1 - m2) mod p).
        let m1 = c.modpow(&self.dp, &self.p);
        let m2 = c.modpow(&self.dq, &self.q);
        let m2_mod_p = &m2 % &self.p;
        let diff = if m1 >= m2_mod_p {
            m1 - m2_mod_p
        } else {
            m1 + &self.p - m2_mod_p
        };
        let h = (&self.qinv * diff) % &self.p;
        let m = m2 + &self.q * h;
        let bytes = m.to_bytes_be();
        if bytes.len() > k {
            return None;
        }
        let mut em = vec![0u8; k - bytes.len()];
        em.extend_from_slice(&bytes);
        oaep_sha1_decode(&em).or_else(|| pkcs1_v15_decode(&em))
    }
}

/// MGF1 with SHA-1.
fn mgf1_sha1(seed: &[u8], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 20);
    let mut counter = 0u32;
    while out.len() < len {
        let mut input = seed.to_vec();
        input.extend_from_slice(&counter.to_be_bytes());
        out.extend_from_slice(&sha1(&input));
        counter += 1;
    }
    out.truncate(len);
    out
}

/// RSAES-OAEP decoding (RFC 8017 7.1.2) with SHA-1 and an empty label.
fn oaep_sha1_decode(em: &[u8]) -> Option<Vec<u8>> {
    const H: usize = 20;
    if em.len() < 2 * H + 2 || em[0] != 0 {
        return None;
    }
    let (masked_seed, masked_db) = em[1..].split_at(H);
    let seed_mask = mgf1_sha1(masked_db, H);
    let seed: Vec<u8> = masked_seed
        .iter()
        .zip(&seed_mask)
        .map(|(a, b)| a ^ b)
        .collect();
    let db_mask = mgf1_sha1(&seed, masked_db.len());
    let db: Vec<u8> = masked_db.iter().zip(&db_mask).map(|(a, b)| a ^ b).collect();
    if db[..H] != sha1(b"") {
        return None;
    }
    let rest = &db[H..];
    let one = rest.iter().position(|&b| b != 0)?;
    if rest[one] != 1 {
        return None;
    }
    Some(rest[one + 1..].to_vec())
}

/// RSAES-PKCS1-v1_5 decoding: `00 02 <nonzero padding, 8+ bytes> 00 M`.
fn pkcs1_v15_decode(em: &[u8]) -> Option<Vec<u8>> {
    if em.len() < 11 || em[0] != 0 || em[1] != 2 {
        return None;
    }
    let zero = em[2..].iter().position(|&b| b == 0)? + 2;
    if zero < 10 {
        return None;
    }
    Some(em[zero + 1..].to_vec())
}

/// DER length octets.
fn der_len(out: &mut Vec<u8>, len: usize) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .iter()
            .copied()
            .skip_while(|&b| b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend_from_slice(&bytes);
    }
}

fn der(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    der_len(&mut out, body.len());
    out.extend_from_slice(body);
    out
}

fn der_uint(n: &BigUint) -> Vec<u8> {
    let mut bytes = n.to_bytes_be();
    if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        bytes.insert(0, 0);
    }
    der(0x02, &bytes)
}

/// PEM `SubjectPublicKeyInfo` of (n, e).
fn public_key_pem(n: &BigUint, e: &BigUint) -> String {
    // rsaEncryption OID 1.2.840.113549.1.1.1 with NULL parameters.
    const ALGORITHM: &[u8] = &[
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ];
    let mut rsa_key = der_uint(n);
    rsa_key.extend_from_slice(&der_uint(e));
    let rsa_key = der(0x30, &rsa_key);
    let mut bit_string = vec![0u8];
    bit_string.extend_from_slice(&rsa_key);
    let mut spki = ALGORITHM.to_vec();
    spki.extend_from_slice(&der(0x03, &bit_string));
    let spki = der(0x30, &spki);
    let b64 = base64::engine::general_purpose::STANDARD.encode(spki);
    let mut pem = String::from("-----BEGIN PUBLIC KEY-----\n");
    for line in b64.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str("-----END PUBLIC KEY-----\n");
    pem
}

#[cfg(test)]
mod tests {
    use super::*;
    use mysql_common::crypto::rsa::{GetRandom, Pkcs1OaepPadding, Pkcs1Padding, PublicKey};

    #[test]
    fn client_encryption_decrypts_with_both_paddings() -> Result<(), RsaError> {
        let key = RsaPrivateKey::generate(1024)?;
        assert_eq!(key.size_bytes(), 128);
        // The client side parses our PEM the way it parses MySQL's.
        let public = PublicKey::from_pem(key.public_key_pem());
        assert_eq!(public.modulus(), key.public_parts().0);
        assert_eq!(public.exponent(), key.public_parts().1);
        for message in [&b"secret\0"[..], b"\0", &[0xAAu8; 60][..]] {
            let oaep = public.encrypt_block(message, Pkcs1OaepPadding::new(GetRandom));
            assert_eq!(key.decrypt(&oaep).as_deref(), Some(message));
            let v15 = public.encrypt_block(message, Pkcs1Padding::new(GetRandom));
            assert_eq!(key.decrypt(&v15).as_deref(), Some(message));
        }
        Ok(())
    }

    #[test]
    fn garbage_ciphertext_is_rejected() -> Result<(), RsaError> {
        let key = RsaPrivateKey::generate(1024)?;
        assert_eq!(key.decrypt(b"short"), None);
        assert_eq!(key.decrypt(&[0xFFu8; 128]), None); // >= n
        assert_eq!(key.decrypt(&[0x01u8; 128]), None); // bad padding
        Ok(())
    }

    #[test]
    fn rejects_unsupported_sizes() {
        assert!(matches!(
            RsaPrivateKey::generate(512),
            Err(RsaError::BadSize(512))
        ));
    }
}
