//! The few facts of an X.509 certificate the server shows or checks, read
//! from its DER bytes: the issuer and subject names in OpenSSL's one-line
//! form (`/C=FI/O=Larch/CN=client`), which `REQUIRE ISSUER` and `REQUIRE
//! SUBJECT` compare with, and the validity dates in OpenSSL's print form
//! (`Nov 29 03:06:53 2027 GMT`), shown by `Ssl_server_not_before` and
//! `Ssl_server_not_after`.
//!
//! Only what these need is decoded (DER tag-length-value walking of the
//! `TBSCertificate`); anything unexpected gives `None`. Attribute types
//! without a short name here are written as dotted OIDs.

/// One DER element: tag, contents, and what follows it.
fn element(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = b.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return None;
        }
        let bytes = rest.get(..n)?;
        let len = bytes
            .iter()
            .fold(0usize, |acc, &x| (acc << 8) | usize::from(x));
        (len, &rest[n..])
    };
    Some((tag, rest.get(..len)?, rest.get(len..)?))
}

/// The elements of a SEQUENCE's or SET's contents.
fn children(mut b: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let (tag, content, rest) = element(b)?;
        out.push((tag, content));
        b = rest;
    }
    Some(out)
}

/// The TBSCertificate's fields, the optional version skipped.
fn tbs_fields(der: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let (_, cert, _) = element(der)?;
    let (_, tbs, _) = element(cert)?;
    let mut fields = children(tbs)?;
    if fields.first().is_some_and(|(tag, _)| *tag == 0xa0) {
        fields.remove(0);
    }
    Some(fields)
}

/// OpenSSL's short name of an attribute type, else the dotted OID.
fn attribute_name(oid: &[u8]) -> String {
    match oid {
        [0x55, 0x04, 0x03] => "CN".into(),
        [0x55, 0x04, 0x04] => "SN".into(),
        [0x55, 0x04, 0x05] => "serialNumber".into(),
        [0x55, 0x04, 0x06] => "C".into(),
        [0x55, 0x04, 0x07] => "L".into(),
        [0x55, 0x04, 0x08] => "ST".into(),
        [0x55, 0x04, 0x09] => "street".into(),
        [0x55, 0x04, 0x0a] => "O".into(),
        [0x55, 0x04, 0x0b] => "OU".into(),
        [0x55, 0x04, 0x0c] => "title".into(),
        [0x55, 0x04, 0x2a] => "GN".into(),
        [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01] => "emailAddress".into(),
        [0x09, 0x92, 0x26, 0x89, 0x93, 0xf2, 0x2c, 0x64, 0x01, 0x19] => "DC".into(),
        _ => dotted(oid),
    }
}

fn dotted(oid: &[u8]) -> String {
    let mut parts = Vec::new();
    let mut value: u64 = 0;
    for (i, &b) in oid.iter().enumerate() {
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            if parts.is_empty() && i < oid.len() {
                let first = (value / 40).min(2);
                parts.push(first.to_string());
                parts.push((value - first * 40).to_string());
            } else {
                parts.push(value.to_string());
            }
            value = 0;
        }
    }
    parts.join(".")
}

/// A Name in OpenSSL's one-line form.
fn one_line(name: &[u8]) -> Option<String> {
    let mut out = String::new();
    for (_, set) in children(name)? {
        for (_, pair) in children(set)? {
            let fields = children(pair)?;
            let [(0x06, oid), (tag, value)] = fields.as_slice() else {
                return None;
            };
            let text = match tag {
                // BMPString: UTF-16 big-endian.
                0x1e => {
                    let units: Vec<u16> = value
                        .chunks(2)
                        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                        .collect();
                    String::from_utf16_lossy(&units)
                }
                _ => String::from_utf8_lossy(value).into_owned(),
            };
            out.push('/');
            out.push_str(&attribute_name(oid));
            out.push('=');
            out.push_str(&text);
        }
    }
    Some(out)
}

/// `(issuer, subject)` of a DER certificate, one-line form.
pub fn issuer_and_subject(der: &[u8]) -> Option<(String, String)> {
    let fields = tbs_fields(der)?;
    // serial, signature algorithm, issuer, validity, subject
    let issuer = fields.get(2)?;
    let subject = fields.get(4)?;
    Some((one_line(issuer.1)?, one_line(subject.1)?))
}

/// `(not before, not after)` of a DER certificate, as OpenSSL prints them.
pub fn validity(der: &[u8]) -> Option<(String, String)> {
    let fields = tbs_fields(der)?;
    let (_, validity) = fields.get(3)?;
    let times = children(validity)?;
    let [(t1, a), (t2, b)] = times.as_slice() else {
        return None;
    };
    Some((print_time(*t1, a)?, print_time(*t2, b)?))
}

/// UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) as
/// `Mon DD HH:MM:SS YYYY GMT`.
fn print_time(tag: u8, t: &[u8]) -> Option<String> {
    let t = std::str::from_utf8(t).ok()?;
    let (year, rest) = match tag {
        0x17 => {
            let yy: u32 = t.get(..2)?.parse().ok()?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, t.get(2..)?)
        }
        0x18 => (t.get(..4)?.parse().ok()?, t.get(4..)?),
        _ => return None,
    };
    let num = |r: std::ops::Range<usize>| rest.get(r).and_then(|s| s.parse::<u32>().ok());
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.get(usize::try_from(num(0..2)?.checked_sub(1)?).ok()?)?;
    Some(format!(
        "{month} {:>2} {:02}:{:02}:{:02} {year} GMT",
        num(2..4)?,
        num(4..6)?,
        num(6..8)?,
        num(8..10)?
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oids_and_times() {
        assert_eq!(attribute_name(&[0x55, 0x04, 0x03]), "CN");
        assert_eq!(dotted(&[0x2a, 0x86, 0x48]), "1.2.840");
        assert_eq!(
            print_time(0x17, b"271129030653Z").as_deref(),
            Some("Nov 29 03:06:53 2027 GMT")
        );
        assert_eq!(
            print_time(0x18, b"20270102030405Z").as_deref(),
            Some("Jan  2 03:04:05 2027 GMT")
        );
        assert_eq!(issuer_and_subject(b"\x30\x01"), None);
    }
}
