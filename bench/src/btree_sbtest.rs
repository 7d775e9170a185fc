//! The sysbench table shape used by the B+tree benchmarks, encoded the way the
//! engine stores it, and the pseudo-random numbers the benchmarks draw.
//!
//! ```sql
//! CREATE TABLE sbtest (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60),
//!                      KEY k_1 (k))
//! ```
//!
//! - clustered tree: key = memcomparable `id` (`record::key::encode_key`, 5
//!   bytes), value = compact clustered row of `k, c, pad`
//!   (`record::row::encode_row`, columns encoded by `record::value::encode_value`:
//!   `k` fixed 4 bytes, `c` and `pad` variable-length CHAR with a 1-byte length
//!   in latin1, 2 bytes in utf8mb4);
//! - secondary tree on `k`: key = encoded `k` + encoded `id`, value = the
//!   6-byte transaction stamp of a `Secondary` row (no covering columns).
//!
//! Values as sysbench's `oltp_common.lua` makes them: `c` is ten groups of 11
//! random digits joined by `-` (119 characters), `pad` five groups (59), `k` a
//! random number in `1..=rows`. Everything is derived from the row id with
//! [`SplitMix64`], so a table is the same on every run.
//!
//! The logical size of a row is 4 + 4 + 120 + 60 = 188 bytes (the declared
//! column sizes), the denominator of the space-amplification figures.

use larch_engine::record::collation::Collation;
use larch_engine::record::key::{encode_key, KeyPart};
use larch_engine::record::row::{
    encode_row, ColumnBytes, ColumnLayout, HiddenFields, RowKind, RowLayout,
};
use larch_engine::record::value::{encode_value, ColumnType, Value};

use larch_bench::harness::Result;

/// Declared bytes of one row: INT + INT + CHAR(120) + CHAR(60).
pub const LOGICAL_ROW_BYTES: u64 = 4 + 4 + 120 + 60;

/// SplitMix64: a small, fast, well-mixed generator (benchmark inputs only).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`; the modulo bias is negligible here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// `1..=n` in a random order (Fisher-Yates).
pub fn shuffled_ids(n: u64, seed: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (1..=n).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// The table's types, layouts and encoders.
#[derive(Debug, Clone)]
pub struct Sbtest {
    int: KeyPart,
    c: ColumnType,
    pad: ColumnType,
    clustered: RowLayout,
    secondary: RowLayout,
    rows: u64,
}

impl Sbtest {
    /// A table of `rows` rows whose CHAR columns use `collation`.
    pub fn new(rows: u64, collation: Collation) -> Self {
        let c = ColumnType::Char {
            len: 120,
            collation,
        };
        let pad = ColumnType::Char { len: 60, collation };
        let clustered = RowLayout::new(
            vec![
                ColumnLayout::fixed(4),
                ColumnLayout::variable(c.max_storage_bytes() as u32),
                ColumnLayout::variable(pad.max_storage_bytes() as u32),
            ],
            RowKind::Clustered {
                hidden_row_id: false,
            },
        );
        Self {
            int: KeyPart::new(ColumnType::Int {
                bytes: 4,
                unsigned: false,
            }),
            c,
            pad,
            clustered,
            secondary: RowLayout::new(Vec::new(), RowKind::Secondary),
            rows,
        }
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Declared bytes of the whole table.
    pub fn logical_bytes(&self) -> u64 {
        self.rows * LOGICAL_ROW_BYTES
    }

    /// Clustered key of row `id`.
    pub fn primary_key(&self, id: u64) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(5);
        encode_key(
            std::slice::from_ref(&self.int),
            &[Value::Int(id as i64)],
            &mut out,
        )?;
        Ok(out)
    }

    /// Column `k` of row `id`: random in `1..=rows`.
    pub fn k_of(&self, id: u64) -> u64 {
        SplitMix64::new(id ^ 0x6b5f_636f_6c75_6d6e).below(self.rows.max(1)) + 1
    }

    /// Secondary key of row `id`: `k` then `id`.
    pub fn secondary_key(&self, id: u64) -> Result<Vec<u8>> {
        let parts = [self.int.clone(), self.int.clone()];
        let mut out = Vec::with_capacity(10);
        encode_key(
            &parts,
            &[Value::Int(self.k_of(id) as i64), Value::Int(id as i64)],
            &mut out,
        )?;
        Ok(out)
    }

    /// Secondary entry value: the stamp of the inserting transaction.
    pub fn secondary_value(&self, trx_id: u64) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(6);
        let hidden = HiddenFields {
            trx_id,
            ..HiddenFields::default()
        };
        encode_row(&self.secondary, &hidden, &[], &mut out)?;
        Ok(out)
    }

    /// Clustered row of `id` (hidden fields as if transaction `id` inserted it).
    pub fn row(&self, id: u64) -> Result<Vec<u8>> {
        let mut rng = SplitMix64::new(id.wrapping_mul(0xA24B_AED4_963E_E407));
        let c = digit_groups(&mut rng, 10);
        let pad = digit_groups(&mut rng, 5);
        let mut k = Vec::with_capacity(4);
        encode_value(
            &ColumnType::Int {
                bytes: 4,
                unsigned: false,
            },
            &Value::Int(self.k_of(id) as i64),
            &mut k,
        )?;
        let mut cb = Vec::with_capacity(c.len());
        encode_value(&self.c, &Value::Str(c), &mut cb)?;
        let mut pb = Vec::with_capacity(pad.len());
        encode_value(&self.pad, &Value::Str(pad), &mut pb)?;
        let hidden = HiddenFields {
            trx_id: id,
            roll_ptr: id << 8,
            row_id: 0,
        };
        let mut out = Vec::with_capacity(256);
        encode_row(
            &self.clustered,
            &hidden,
            &[
                Some(ColumnBytes::Inline(&k)),
                Some(ColumnBytes::Inline(&cb)),
                Some(ColumnBytes::Inline(&pb)),
            ],
            &mut out,
        )?;
        Ok(out)
    }
}

/// `groups` groups of 11 random digits joined by `-` (sysbench's `c`/`pad`).
fn digit_groups(rng: &mut SplitMix64, groups: usize) -> String {
    let mut s = String::with_capacity(groups * 12);
    for g in 0..groups {
        if g > 0 {
            s.push('-');
        }
        for _ in 0..11 {
            s.push(char::from(b'0' + rng.below(10) as u8));
        }
    }
    s
}

/// Clustered keys and rows of `1..=rows`, encoded once so that the timed loops
/// measure the tree, not the encoders. Row `id` is at index `id - 1`.
#[derive(Debug)]
pub struct EncodedRows {
    keys: Vec<u8>,
    key_len: usize,
    values: Vec<u8>,
    ends: Vec<u32>,
}

impl EncodedRows {
    pub fn new(t: &Sbtest) -> Result<Self> {
        let n = t.rows() as usize;
        let key_len = t.primary_key(1)?.len();
        let mut keys = Vec::with_capacity(n * key_len);
        let first = t.row(1)?.len();
        let mut values = Vec::with_capacity(n * first);
        let mut ends = Vec::with_capacity(n);
        for id in 1..=t.rows() {
            let k = t.primary_key(id)?;
            if k.len() != key_len {
                return Err("primary keys of different lengths".into());
            }
            keys.extend_from_slice(&k);
            values.extend_from_slice(&t.row(id)?);
            ends.push(u32::try_from(values.len())?);
        }
        Ok(Self {
            keys,
            key_len,
            values,
            ends,
        })
    }

    /// Key of row `id`.
    pub fn key(&self, id: u64) -> &[u8] {
        let i = (id - 1) as usize;
        &self.keys[i * self.key_len..(i + 1) * self.key_len]
    }

    /// Clustered value of row `id`.
    pub fn value(&self, id: u64) -> &[u8] {
        let i = (id - 1) as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.values[start..self.ends[i] as usize]
    }

    /// Average bytes of a clustered value.
    pub fn mean_value_len(&self) -> f64 {
        self.values.len() as f64 / self.ends.len().max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use larch_engine::record::row::RowView;

    #[test]
    fn rows_have_the_sysbench_shape() -> Result<()> {
        let t = Sbtest::new(1000, Collation::Latin1SwedishCi);
        let row = t.row(7)?;
        let view = RowView::parse(&t.clustered, &row)?;
        assert_eq!(view.trx_id(), 7);
        let c = view.column(1).and_then(|c| c.inline()).ok_or("c missing")?;
        let pad = view
            .column(2)
            .and_then(|c| c.inline())
            .ok_or("pad missing")?;
        assert_eq!((c.len(), pad.len()), (119, 59));
        assert_eq!(c[11], b'-');
        assert!((1..=1000).contains(&t.k_of(7)));
        // hidden 13 + two 1-byte lengths + 4 + 119 + 59
        assert_eq!(row.len(), 13 + 2 + 4 + 119 + 59);
        Ok(())
    }

    #[test]
    fn keys_sort_like_the_ids() -> Result<()> {
        let t = Sbtest::new(10, Collation::Utf8mb4GeneralCi);
        assert!(t.primary_key(2)? < t.primary_key(10)?);
        assert_eq!(t.secondary_value(5)?.len(), 6);
        let rows = EncodedRows::new(&t)?;
        assert_eq!(rows.key(3), t.primary_key(3)?.as_slice());
        assert_eq!(rows.value(10), t.row(10)?.as_slice());
        let ids = shuffled_ids(100, 1);
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=100).collect::<Vec<_>>());
        assert_ne!(ids, sorted);
        Ok(())
    }
}
