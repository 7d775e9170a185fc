//! COMPRESS, UNCOMPRESS, UNCOMPRESSED_LENGTH, AES_ENCRYPT and AES_DECRYPT
//! as MariaDB 10.11 computes them:
//! - COMPRESS is the string's length (4 bytes, little-endian, top two bits
//!   clear) and its zlib stream (level 6); when the stream ends in a space
//!   a '.' follows, so that CHAR columns, which drop trailing spaces, keep
//!   it; the empty string stays empty;
//! - UNCOMPRESS reads that back: a string of 4 bytes or fewer is warning
//!   1259 and NULL, a length above `max_allowed_packet` warning 1256, a
//!   stream that needs more room than the length says warning 1258, a
//!   damaged stream warning 1259 (zlib's `uncompress` errors);
//!   UNCOMPRESSED_LENGTH is the length, without looking at the stream;
//! - AES_ENCRYPT and AES_DECRYPT (two arguments only in 10.11) are
//!   AES-128-ECB with PKCS#7 padding; the key is folded into 16 bytes by
//!   XOR (byte i goes into byte i mod 16 of a zero key). A decryption whose
//!   padding is wrong is NULL, without warning.

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;
use flate2::{Compression, Decompress, FlushDecompress, Status};
use std::io::Write;

use larch_engine::record::value::Value;

use super::convert::{to_bytes, to_int};
use super::{EvalContext, VarScope};

/// COMPRESS(s).
pub(super) fn compress(v: &Value) -> Value {
    let data = to_bytes(v);
    if data.is_empty() {
        return Value::Bytes(data);
    }
    let prefix = ((data.len() as u32) & 0x3FFF_FFFF).to_le_bytes().to_vec();
    let mut z = flate2::write::ZlibEncoder::new(prefix, Compression::default());
    let Ok(mut out) = z.write_all(&data).and_then(|()| z.finish()) else {
        return Value::Null;
    };
    if out.last() == Some(&b' ') {
        out.push(b'.');
    }
    Value::Bytes(out)
}

/// The length a compressed string announces, or the warning it gives.
fn announced_length(data: &[u8], ctx: &mut EvalContext<'_>) -> Option<usize> {
    if data.len() <= 4 {
        ctx.warn(1259, "ZLIB: Input data corrupted");
        return None;
    }
    let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) & 0x3FFF_FFFF;
    Some(n as usize)
}

/// UNCOMPRESSED_LENGTH(s).
pub(super) fn uncompressed_length(v: &Value, ctx: &mut EvalContext<'_>) -> Value {
    let data = to_bytes(v);
    if data.is_empty() {
        return Value::Int(0);
    }
    announced_length(&data, ctx).map_or(Value::Null, |n| Value::Int(n as i64))
}

/// UNCOMPRESS(s).
pub(super) fn uncompress(v: &Value, ctx: &mut EvalContext<'_>) -> Value {
    let data = to_bytes(v);
    if data.is_empty() {
        return Value::Bytes(data);
    }
    let Some(size) = announced_length(&data, ctx) else {
        return Value::Null;
    };
    let max = match ctx
        .session
        .system_variable("max_allowed_packet", VarScope::Session)
    {
        Ok(m @ (Value::Int(_) | Value::UInt(_))) => to_int(&m, ctx),
        _ => 16 << 20,
    };
    if size as i128 > max {
        ctx.warn(
            1256,
            format!(
                "Uncompressed data size too large; the maximum size is {max} (probably, \
                 length of uncompressed data was corrupted)"
            ),
        );
        return Value::Null;
    }
    // zlib's `uncompress` gives a 1-byte buffer for a length of 0.
    let mut out = vec![0u8; size.max(1)];
    let mut z = Decompress::new(true);
    let status = z.decompress(&data[4..], &mut out, FlushDecompress::Finish);
    let produced = z.total_out() as usize;
    match status {
        Ok(Status::StreamEnd) => {
            // With a length of 0, zlib reports no bytes whatever came out.
            out.truncate(if size == 0 { 0 } else { produced });
            return Value::Bytes(out);
        }
        // Input that ends early, or output beyond a length of 0 (zlib
        // then reports the stream as damaged).
        Ok(_) if produced < out.len() || size == 0 => ctx.warn(1259, "ZLIB: Input data corrupted"),
        Ok(_) => ctx.warn(
            1258,
            "ZLIB: Not enough room in the output buffer (probably, length of uncompressed \
             data was corrupted)",
        ),
        Err(_) => ctx.warn(1259, "ZLIB: Input data corrupted"),
    }
    Value::Null
}

/// MariaDB's `my_aes_create_key` for 128 bits.
fn aes_key(key: &[u8]) -> Aes128 {
    let mut folded = [0u8; 16];
    for (i, b) in key.iter().enumerate() {
        folded[i % 16] ^= b;
    }
    Aes128::new(&GenericArray::from(folded))
}

/// AES_ENCRYPT(s, key).
pub(super) fn aes_encrypt(s: &Value, key: &Value) -> Value {
    let cipher = aes_key(&to_bytes(key));
    let mut data = to_bytes(s);
    let pad = 16 - data.len() % 16;
    data.extend(std::iter::repeat_n(pad as u8, pad));
    for block in data.chunks_exact_mut(16) {
        cipher.encrypt_block(GenericArray::from_mut_slice(block));
    }
    Value::Bytes(data)
}

/// AES_DECRYPT(s, key): NULL when `s` is no whole number of blocks or
/// its padding is wrong.
pub(super) fn aes_decrypt(s: &Value, key: &Value) -> Value {
    let cipher = aes_key(&to_bytes(key));
    let mut data = to_bytes(s);
    if data.is_empty() || data.len() % 16 != 0 {
        return Value::Null;
    }
    for block in data.chunks_exact_mut(16) {
        cipher.decrypt_block(GenericArray::from_mut_slice(block));
    }
    let pad = usize::from(data[data.len() - 1]);
    if pad == 0
        || pad > 16
        || data[data.len() - pad..]
            .iter()
            .any(|b| usize::from(*b) != pad)
    {
        return Value::Null;
    }
    data.truncate(data.len() - pad);
    Value::Bytes(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(v: Value) -> Vec<u8> {
        match v {
            Value::Bytes(b) => b,
            other => panic!("bytes expected, got {other:?}"),
        }
    }

    #[test]
    fn aes_round_trips_and_rejects_bad_padding() {
        let key = Value::Str("key".into());
        let enc = bytes(aes_encrypt(&Value::Str("hello".into()), &key));
        assert_eq!(enc.len(), 16);
        assert_eq!(
            bytes(aes_decrypt(&Value::Bytes(enc.clone()), &key)),
            b"hello"
        );
        assert_eq!(
            aes_decrypt(&Value::Bytes(enc), &Value::Str("kez".into())),
            Value::Null
        );
        assert_eq!(aes_decrypt(&Value::Str("short".into()), &key), Value::Null);
    }
}
