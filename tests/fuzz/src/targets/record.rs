//! Target `record`: decoding of the engine's stored formats from
//! arbitrary bytes: clustered records and their keys, secondary entries,
//! single column values, key tuples, collation sort keys, the
//! dictionary's table definitions (`catalog::codec`), the SQL layer's
//! table metadata (`ddl::meta`) and the account data (`privileges::acl`).
//! Each must return an error for bytes it cannot read, never panic.
//!
//! The tables come from a real data directory made once at start
//! ([`RecordTarget::new`]): tables with many column types, NULLs, a hidden
//! row id, descending and prefix index parts; their rows are read back
//! with SELECT and encoded with the table's own layouts, so the seeds are
//! the exact bytes the engine stores.
//!
//! Input: byte 0 chooses the decoder, byte 1 the table (or the column
//! type, key or collation), byte 2 the index; the rest is the payload. A
//! clustered input's payload is a 2-byte key length, the key, then the
//! record; a secondary input's the same with the entry value.

use larch_engine::catalog::codec;
use larch_engine::record::collation::{decode_binary_sort_key, Collation};
use larch_engine::record::key::{decode_key, KeyPart};
use larch_engine::record::row::{encode_row, ColumnBytes, HiddenFields, RowView};
use larch_engine::record::value::{decode_value, ColumnType, Value};
use larch_engine::table::layout::{column_value, encode_columns, TableLayout};
use larch_engine::table::{TableDef, TableRoots};
use larch_sql::database::Database;
use larch_sql::ddl::meta::TableMeta;
use larch_sql::privileges::acl::AclData;
use larch_sql::result::QueryResult;
use rand::rngs::StdRng;
use rand::Rng;

use crate::driver::Target;

/// Decoders, by the input's first byte (modulo their count).
const DECODERS: u8 = 8;

/// Tables of the seed data directory (`t_hidden` has no primary key).
const SETUP: [&str; 8] = [
    "CREATE TABLE t_types (id INT PRIMARY KEY, ti TINYINT, su SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT UNSIGNED, \
     de DECIMAL(20,6), fl FLOAT, db DOUBLE, ch CHAR(5), vc VARCHAR(300) COLLATE utf8mb4_unicode_ci, \
     vb VARBINARY(40), tx TEXT, bl BLOB, d DATE, tm TIME(3), dt DATETIME(6), ts TIMESTAMP(2) NULL, yr YEAR, \
     en ENUM('a','b','c'), st SET('x','y'), bt BIT(13), l1 VARCHAR(20) CHARACTER SET latin1, \
     KEY k_desc (de DESC, ch), KEY k_prefix (vc(10), vb), UNIQUE KEY u_dt (dt, id), KEY k_text (tx(20)))",
    "INSERT INTO t_types VALUES (1, -128, 65535, -8388608, 18446744073709551615, -12345678901234.5, 1.5e10, -2.25e-300, 'ab', 'Ünïcödé ß', x'00ff10', REPEAT('t', 300), x'deadbeef', '2024-02-29', '-838:59:59.000', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.99', 2155, 'c', 'x,y', b'1010101010101', 'Åäö')",
    "INSERT INTO t_types (id) VALUES (2)",
    "INSERT INTO t_types VALUES (3, 0, 0, 0, 0, 0, 0, 0, '', '', '', '', '', '0000-00-00', '00:00:00', '1000-01-01 00:00:00', NULL, 0, 'a', '', b'0', '')",
    "CREATE TABLE t_hidden (a VARCHAR(10) COLLATE utf8mb4_general_ci, b INT, KEY (b DESC, a))",
    "INSERT INTO t_hidden VALUES ('x', 1), (NULL, NULL), ('  y ', -5)",
    "CREATE TABLE t_pk2 (a VARCHAR(8) COLLATE latin1_bin, b DATE, c DOUBLE, PRIMARY KEY (a, b DESC), KEY (c))",
    "INSERT INTO t_pk2 VALUES ('k', '2000-01-01', 1.0), ('k', '1999-12-31', NULL), ('', '0000-00-00', -0.0)",
];

/// One seed table: its layout, definition, SQL metadata and rows.
struct SeedTable {
    layout: TableLayout,
    roots: TableRoots,
    sql_meta: Vec<u8>,
    rows: Vec<Vec<Value>>,
}

/// See the module documentation.
pub struct RecordTarget {
    tables: Vec<SeedTable>,
    types: Vec<ColumnType>,
    keys: Vec<Vec<KeyPart>>,
}

const COLLATIONS: [Collation; 6] = [
    Collation::Binary,
    Collation::Latin1SwedishCi,
    Collation::Latin1Bin,
    Collation::Utf8mb4GeneralCi,
    Collation::Utf8mb4Bin,
    Collation::Utf8mb4UnicodeCi,
];

impl RecordTarget {
    /// Builds the seed tables in a temporary data directory.
    pub fn new() -> Result<RecordTarget, crate::Error> {
        let dir = super::sql::temp_dir()?;
        let db = Database::open(super::sql::fuzz_config(dir.path()))?;
        let mut session = db.new_session(0, "root", "localhost")?;
        session.use_database("test")?;
        for sql in SETUP {
            session.execute(sql)?;
        }
        let mut tables = Vec::new();
        for name in ["t_types", "t_hidden", "t_pk2"] {
            let entry = db
                .catalog()
                .table_entry("test", name)
                .ok_or_else(|| format!("table {name} missing"))?;
            let table = db.catalog().table("test", name)?;
            let rows = match session.execute(&format!("SELECT * FROM {name}"))? {
                QueryResult::Rows(set) => set.rows,
                QueryResult::Ok(_) => Vec::new(),
            };
            tables.push(SeedTable {
                layout: table.layout().clone(),
                roots: entry.roots.clone(),
                sql_meta: entry.sql_meta.clone(),
                rows,
            });
        }
        drop(session);
        db.close()?;
        let types = tables
            .iter()
            .flat_map(|t| t.layout.def.columns.iter().map(|c| c.ty.clone()))
            .collect();
        let keys = tables
            .iter()
            .flat_map(|t| {
                std::iter::once(t.layout.clustered.parts.clone())
                    .chain(t.layout.secondary.iter().map(|s| s.parts.clone()))
            })
            .collect();
        Ok(RecordTarget {
            tables,
            types,
            keys,
        })
    }

    fn table(&self, b: u8) -> &SeedTable {
        &self.tables[usize::from(b) % self.tables.len()]
    }

    /// Decodes a clustered key and record of table `t`, as a read does.
    fn clustered(&self, t: &SeedTable, payload: &[u8]) {
        let Some((key, record)) = split_payload(payload) else {
            return;
        };
        let def = &t.layout.def;
        let mut out: Vec<Option<Value>> = vec![None; def.columns.len()];
        let _ = t.layout.decode_clustered_key(key, &mut out);
        if let Ok(view) = RowView::parse(&t.layout.clustered.row, record) {
            for (i, &c) in t.layout.clustered.stored.iter().enumerate() {
                let _ = column_value(&def.columns[c], &view, i, None);
                let _ = view.column_range(i);
            }
            let _ = view.external_columns().count();
            let _ = (view.trx_id(), view.roll_ptr(), view.row_id());
        }
    }
}

/// Splits `[key length u16][key][rest]`.
fn split_payload(payload: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = payload.split_first_chunk::<2>()?;
    let len = usize::from(u16::from_le_bytes(*len)).min(rest.len());
    Some(rest.split_at(len))
}

fn with_key(key: &[u8], rest: &[u8]) -> Vec<u8> {
    let mut out = (key.len() as u16).to_le_bytes().to_vec();
    out.extend_from_slice(key);
    out.extend_from_slice(rest);
    out
}

/// The stored clustered record of `row` (None when a value does not
/// encode for its column, e.g. an ENUM read back as text).
fn clustered_record(layout: &TableLayout, row: &[Value]) -> Option<(Vec<u8>, Vec<u8>)> {
    let key = layout.clustered_key(row, 7).ok()?;
    let bytes = encode_columns(&layout.def, &layout.clustered.stored, row).ok()?;
    let cols: Vec<Option<ColumnBytes<'_>>> = bytes
        .iter()
        .map(|b| b.as_deref().map(ColumnBytes::Inline))
        .collect();
    let hidden = HiddenFields {
        trx_id: 42,
        roll_ptr: 9,
        row_id: 7,
    };
    let mut record = Vec::new();
    encode_row(&layout.clustered.row, &hidden, &cols, &mut record).ok()?;
    Some((key, record))
}

fn input(decoder: u8, a: u8, b: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![decoder, a, b];
    v.extend_from_slice(payload);
    v
}

impl Target for RecordTarget {
    fn name(&self) -> &'static str {
        "record"
    }

    fn seeds(&mut self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for (ti, t) in self.tables.iter().enumerate() {
            let ti = ti as u8;
            for row in &t.rows {
                if let Some((key, record)) = clustered_record(&t.layout, row) {
                    seeds.push(input(0, ti, 0, &with_key(&key, &record)));
                }
                let Ok(pk) = t.layout.clustered_key(row, 7) else {
                    continue;
                };
                for s in 0..t.layout.secondary.len() {
                    if let (Ok((mut key, _)), Ok(value)) = (
                        t.layout.secondary_prefix(s, row),
                        t.layout.secondary_value(s, row, 42),
                    ) {
                        key.extend_from_slice(&pk);
                        seeds.push(input(1, ti, s as u8, &with_key(&key, &value)));
                    }
                }
                for (c, v) in row.iter().enumerate() {
                    let mut b = Vec::new();
                    let ty = &t.layout.def.columns[c].ty;
                    if larch_engine::record::value::encode_value(ty, v, &mut b).is_ok() {
                        let k = self.types.iter().position(|x| x == ty).unwrap_or(0);
                        seeds.push(input(2, k as u8, 0, &b));
                    }
                }
            }
            if let Ok(def) = codec::encode(&t.layout.def, &t.roots) {
                seeds.push(input(5, ti, 0, &def));
            }
            seeds.push(input(6, ti, 0, &t.sql_meta));
        }
        seeds.push(input(7, 0, 0, &AclData::default().encode()));
        seeds
    }

    fn generate(&mut self, rng: &mut StdRng) -> Vec<u8> {
        let decoder = rng.random_range(0..DECODERS);
        let n = rng.random_range(0..64);
        let mut payload: Vec<u8> = (0..n).map(|_| rng.random()).collect();
        if decoder <= 1 {
            payload = with_key(&payload[..n / 2], &payload[n / 2..]);
        }
        input(decoder, rng.random(), rng.random(), &payload)
    }

    fn dictionary(&self) -> Vec<&'static [u8]> {
        vec![
            b"\x00",
            b"\x01",
            b"\xff",
            b"\x00\x00",
            b"\xff\xff",
            b"\x80\x00\x00\x00",
            b"\x7f\xff\xff\xff",
        ]
    }

    fn run(&mut self, input: &[u8]) -> Result<(), String> {
        let [decoder, a, b, payload @ ..] = input else {
            return Ok(());
        };
        match decoder % DECODERS {
            0 => self.clustered(self.table(*a), payload),
            1 => {
                let t = self.table(*a);
                if t.layout.secondary.is_empty() {
                    return Ok(());
                }
                let s = usize::from(*b) % t.layout.secondary.len();
                let Some((key, value)) = split_payload(payload) else {
                    return Ok(());
                };
                let mut out: Vec<Option<Value>> = vec![None; t.layout.def.columns.len()];
                let _ = t.layout.decode_secondary(s, key, value, &mut out, None);
            }
            2 => {
                let ty = &self.types[usize::from(*a) % self.types.len()];
                let _ = decode_value(ty, payload);
            }
            3 => {
                let parts = &self.keys[usize::from(*a) % self.keys.len()];
                let _ = decode_key(parts, payload);
                let _ = larch_engine::record::key::split_key(parts, payload);
            }
            4 => {
                let collation = COLLATIONS[usize::from(*a) % COLLATIONS.len()];
                let flip = if b & 1 == 0 { 0 } else { 0xff };
                let _ = collation.decode_sort_key(payload, flip);
                let _ = collation.sort_key_len(payload, flip);
                let _ = collation.charset().decode(payload);
                let _ = decode_binary_sort_key(payload, flip);
            }
            5 => {
                if let Ok((def, _roots)) = codec::decode(payload) {
                    let page_size = self.table(*a).layout.page_size;
                    let _ = TableLayout::new(def, page_size);
                }
            }
            6 => {
                let def: &TableDef = &self.table(*a).layout.def;
                let _ = TableMeta::decode(payload, def);
            }
            _ => {
                let _ = AclData::decode(payload);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_real_encodings_that_decode() -> Result<(), crate::Error> {
        let mut t = RecordTarget::new()?;
        let seeds = t.seeds();
        // Every decoder has seeds, and clustered records parse back to the
        // rows they came from.
        for decoder in [0u8, 1, 2, 5, 6, 7] {
            assert!(
                seeds.iter().any(|s| s[0] == decoder),
                "no seed for {decoder}"
            );
        }
        let mut checked = 0;
        for table in &t.tables {
            for row in &table.rows {
                let Some((key, record)) = clustered_record(&table.layout, row) else {
                    continue;
                };
                let view = RowView::parse(&table.layout.clustered.row, &record)?;
                let mut out: Vec<Option<Value>> = vec![None; row.len()];
                table.layout.decode_clustered_key(&key, &mut out)?;
                for (i, &c) in table.layout.clustered.stored.iter().enumerate() {
                    let v = column_value(&table.layout.def.columns[c], &view, i, None)?;
                    assert_eq!(v, row[c]);
                    checked += 1;
                }
            }
        }
        assert!(checked > 20, "{checked}");
        for s in &seeds {
            assert_eq!(crate::driver::run_one(&mut t, s), Ok(()));
        }
        Ok(())
    }
}
