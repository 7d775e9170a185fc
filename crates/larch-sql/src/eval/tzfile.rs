//! Named time zones for CONVERT_TZ, read from the system's zoneinfo
//! database (`$TZDIR`, else `/usr/share/zoneinfo`): what a MariaDB whose
//! `mysql.time_zone*` tables were loaded from that database
//! (`mariadb-tzinfo-to-sql`) answers. Names match case-insensitively and
//! without trailing spaces, as the tables' `Name` column compares them;
//! any path under the directory that is a TZif file is a zone (`posix/...`
//! and `right/...` too, whose leap seconds are not applied). A TZif file's
//! 64-bit data is read when it has some, else its 32-bit data; local times
//! after the last transition keep the last transition's offset (the
//! footer's rule is not read: the distributions' "fat" files list
//! transitions up to 2037, past the end of TIMESTAMP's range).
//!
//! Local time to UTC follows MariaDB's `TIME_to_gmt_sec`: a local time
//! that occurs twice (clocks set back) is the earlier instant, one in a
//! gap (clocks set forward) is the instant the gap starts.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A time zone's transitions and offsets.
#[derive(Debug)]
pub struct Zone {
    /// Transition instants (UTC seconds since 1970), ascending.
    at: Vec<i64>,
    /// The UTC offset (seconds) from each transition on.
    offset_after: Vec<i64>,
    /// The UTC offset before the first transition.
    initial: i64,
}

impl Zone {
    /// The UTC offset in force at UTC second `t`.
    pub fn offset_at(&self, t: i64) -> i64 {
        let n = self.at.partition_point(|&x| x <= t);
        if n == 0 {
            self.initial
        } else {
            self.offset_after[n - 1]
        }
    }

    fn offset_of_period(&self, i: usize) -> i64 {
        if i == 0 {
            self.initial
        } else {
            self.offset_after[i - 1]
        }
    }

    /// The UTC second of local second `local`: the earliest instant that
    /// shows it, or the start of the gap it falls in.
    pub fn local_to_utc(&self, local: i64) -> i64 {
        // Period i runs from at[i-1] (or the beginning) to at[i] (or the end).
        let periods = self.at.len() + 1;
        for i in 0..periods {
            let u = local - self.offset_of_period(i);
            let start_ok = i == 0 || u >= self.at[i - 1];
            let end_ok = i == self.at.len() || u < self.at[i];
            if start_ok && end_ok {
                return u;
            }
        }
        // In a gap: the transition whose local span before and after
        // leaves `local` out.
        for (k, &t) in self.at.iter().enumerate() {
            let before = self.offset_of_period(k);
            let after = self.offset_after[k];
            if after > before && local >= t + before && local < t + after {
                return t;
            }
        }
        local - self.initial
    }
}

/// Reads a TZif file's contents (RFC 8536), `None` when it is none.
pub fn parse_tzif(data: &[u8]) -> Option<Zone> {
    let header = |d: &[u8]| -> Option<(u8, [usize; 6])> {
        if d.len() < 44 || &d[..4] != b"TZif" {
            return None;
        }
        let mut counts = [0usize; 6];
        for (i, c) in counts.iter_mut().enumerate() {
            let at = 20 + 4 * i;
            *c = u32::from_be_bytes(d.get(at..at + 4)?.try_into().ok()?) as usize;
        }
        Some((d[4], counts))
    };
    let (version, counts) = header(data)?;
    // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
    let block_len = |c: &[usize; 6], time_size: usize| {
        c[3] * time_size + c[3] + c[4] * 6 + c[5] + c[2] * (time_size + 4) + c[1] + c[0]
    };
    let (body, c, time_size) = if version >= b'2' {
        let v2 = data.get(44 + block_len(&counts, 4)..)?;
        let (_, c2) = header(v2)?;
        (&v2[44..], c2, 8)
    } else {
        (&data[44..], counts, 4)
    };
    if body.len() < block_len(&c, time_size) || c[4] == 0 {
        return None;
    }
    let (timecnt, typecnt) = (c[3], c[4]);
    let time = |i: usize| -> i64 {
        let b = &body[i * time_size..(i + 1) * time_size];
        if time_size == 8 {
            i64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        } else {
            i64::from(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        }
    };
    let idx = &body[timecnt * time_size..timecnt * time_size + timecnt];
    let types = &body[timecnt * time_size + timecnt..][..typecnt * 6];
    let ty = |i: usize| -> Option<(i64, bool)> {
        let t = types.get(i * 6..i * 6 + 6)?;
        let off = i64::from(i32::from_be_bytes([t[0], t[1], t[2], t[3]]));
        Some((off, t[4] != 0))
    };
    let mut at = Vec::with_capacity(timecnt);
    let mut offset_after = Vec::with_capacity(timecnt);
    for (i, &k) in idx.iter().enumerate() {
        at.push(time(i));
        offset_after.push(ty(usize::from(k))?.0);
    }
    if at.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    // Before the first transition: the first standard-time type, as
    // MariaDB's `prepare_tz_info` takes it.
    let initial = (0..typecnt)
        .filter_map(ty)
        .find(|(_, dst)| !dst)
        .or_else(|| ty(0))?
        .0;
    Some(Zone {
        at,
        offset_after,
        initial,
    })
}

/// The zoneinfo directory.
fn zone_dir() -> PathBuf {
    match std::env::var_os("TZDIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from("/usr/share/zoneinfo"),
    }
}

/// The file of a zone name under `dir`, matching each part of the name
/// case-insensitively; `None` for names that are no plain relative path.
fn zone_path(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut path = dir.to_path_buf();
    for part in name.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains('\0') {
            return None;
        }
        let exact = path.join(part);
        if exact.exists() {
            path = exact;
            continue;
        }
        let found = std::fs::read_dir(&path).ok()?.flatten().find(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(part))
        })?;
        path = found.path();
    }
    Some(path)
}

/// The zone of a name, `None` when the zoneinfo database has none.
pub fn find_zone(name: &str) -> Option<Arc<Zone>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Zone>>>> = OnceLock::new();
    let name = name.trim_end_matches(' ');
    // MariaDB's zone names are at most 64 characters.
    if name.is_empty() || name.chars().count() > 64 {
        return None;
    }
    let key = name.to_ascii_lowercase();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(z) = cache.lock().ok()?.get(&key) {
        return Some(z.clone());
    }
    let path = zone_path(&zone_dir(), name)?;
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let zone = Arc::new(parse_tzif(&std::fs::read(&path).ok()?)?);
    cache.lock().ok()?.insert(key, zone.clone());
    Some(zone)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version-1 TZif file with the given transitions and types.
    fn tzif(trans: &[(i32, u8)], types: &[(i32, bool)]) -> Vec<u8> {
        let mut d = b"TZif\0".to_vec();
        d.extend([0u8; 15]);
        for c in [0, 0, 0, trans.len(), types.len(), 4] {
            d.extend((c as u32).to_be_bytes());
        }
        for (t, _) in trans {
            d.extend(t.to_be_bytes());
        }
        d.extend(trans.iter().map(|(_, i)| *i));
        for (off, dst) in types {
            d.extend(off.to_be_bytes());
            d.extend([u8::from(*dst), 0]);
        }
        d.extend(b"ABC\0");
        d
    }

    #[test]
    fn gaps_and_overlaps_resolve_as_mariadb_does() {
        // Standard -5h; DST -4h from t=1000 to t=5000.
        let z = parse_tzif(&tzif(
            &[(1000, 1), (5000, 0)],
            &[(-18_000, false), (-14_400, true)],
        ))
        .expect("valid");
        assert_eq!(z.offset_at(999), -18_000);
        assert_eq!(z.offset_at(1000), -14_400);
        // Local 1000-18000+100 lies in the gap: the gap's start.
        assert_eq!(z.local_to_utc(1000 - 18_000 + 100), 1000);
        // Local times around the set-back occur twice: the earlier.
        let local = 5000 - 14_400 - 10;
        assert_eq!(z.local_to_utc(local), local + 14_400);
        assert_eq!(z.local_to_utc(-50_000), -50_000 + 18_000);
        assert!(parse_tzif(b"TZif").is_none());
        assert!(parse_tzif(b"# not a zone file at all, just some text here..").is_none());
    }
}
