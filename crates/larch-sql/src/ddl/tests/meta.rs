//! The metadata encoding: round trips over many generated values, and
//! corrupt bytes are errors, never panics.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::ColumnType;
use larch_engine::table::{ColumnDef, TableDef};

use crate::ddl::foreign::{FkAction, ForeignKey};
use crate::ddl::meta::{ColumnMeta, Generation, TableMeta};

/// A small deterministic generator (xorshift).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn text(&mut self) -> String {
        let pool = [
            "",
            "a",
            "'quoted'",
            "ünï©ødé",
            "x\0y",
            "current_timestamp(3)",
            "0.00",
        ];
        let mut s = String::new();
        for _ in 0..self.below(3) {
            s.push_str(pool[self.below(pool.len() as u64) as usize]);
        }
        s
    }

    fn opt<T>(&mut self, f: impl FnOnce(&mut Gen) -> T) -> Option<T> {
        (self.below(2) == 1).then(|| f(self))
    }
}

fn def_with(n: usize) -> TableDef {
    TableDef {
        name: "t".into(),
        columns: (0..n)
            .map(|i| {
                ColumnDef::new(
                    &format!("c{i}"),
                    ColumnType::Varchar {
                        max_len: 10,
                        collation: Collation::Utf8mb4GeneralCi,
                    },
                )
            })
            .collect(),
        primary_key: None,
        secondary: vec![],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

fn generate(g: &mut Gen, ncols: usize) -> TableMeta {
    TableMeta {
        columns: (0..ncols)
            .map(|_| ColumnMeta {
                default: g.opt(Gen::text),
                on_update_now: g.below(2) == 1,
                comment: g.text(),
                display_width: g.opt(|g| g.below(256) as u32),
                zerofill: g.below(2) == 1,
                unsigned: g.below(2) == 1,
                precision: g.opt(|g| (g.below(256) as u32, g.below(31) as u32)),
                check: g.opt(Gen::text),
                invisible: g.below(2) == 1,
                generated: g.opt(|g| Generation {
                    expr: g.text(),
                    stored: g.below(2) == 1,
                }),
            })
            .collect(),
        engine: "InnoDB".into(),
        charset: g.text(),
        collation: g.text(),
        row_format: g.opt(Gen::text),
        comment: g.text(),
        fulltext: (0..g.below(3))
            .map(|i| {
                let cols = (0..g.below(3) + 1)
                    .map(|_| g.below(ncols as u64) as usize)
                    .collect();
                (format!("ft{i}"), cols)
            })
            .collect(),
        index_comments: (0..g.below(3))
            .map(|i| (format!("k{i}"), g.text()))
            .collect(),
        checks: (0..g.below(3))
            .map(|i| (format!("CONSTRAINT_{i}"), g.text()))
            .collect(),
        foreign_keys: (0..g.below(3))
            .map(|i| {
                let n = g.below(3) as usize + 1;
                let actions = [
                    FkAction::Restrict,
                    FkAction::Cascade,
                    FkAction::SetNull,
                    FkAction::NoAction,
                ];
                ForeignKey {
                    name: format!("t_ibfk_{i}"),
                    columns: (0..n).map(|_| g.below(ncols as u64) as usize).collect(),
                    ref_db: g.text(),
                    ref_table: g.text(),
                    ref_columns: (0..n).map(|_| g.text()).collect(),
                    on_delete: actions[g.below(4) as usize],
                    on_update: actions[g.below(4) as usize],
                }
            })
            .collect(),
        options: (0..g.below(3))
            .map(|i| (format!("OPTION_{i}"), g.text()))
            .collect(),
    }
}

/// Version 2 bytes (before FOREIGN KEYs) still decode, with no constraint.
#[test]
fn version_2_decodes_without_foreign_keys() {
    let mut g = Gen(77);
    for _ in 0..50 {
        let ncols = g.below(4) as usize + 1;
        let def = def_with(ncols);
        let mut meta = generate(&mut g, ncols);
        // Table options came with version 6.
        meta.options.clear();
        meta.foreign_keys.clear();
        for c in &mut meta.columns {
            c.invisible = false;
            c.generated = None;
        }
        let mut bytes = meta.encode_as(2);
        // Version 4 with no constraint ends with a zero count.
        assert_eq!(bytes.split_off(bytes.len() - 4), vec![0, 0, 0, 0]);
        assert_eq!(TableMeta::decode(&bytes, &def).expect("version 2"), meta);
    }
}

/// Version 3 bytes (before INVISIBLE) still decode; an INVISIBLE flag in
/// them is refused.
#[test]
fn version_3_decodes_without_invisible_columns() {
    let mut g = Gen(78);
    for _ in 0..50 {
        let ncols = g.below(4) as usize + 1;
        let def = def_with(ncols);
        let mut meta = generate(&mut g, ncols);
        // Table options came with version 6.
        meta.options.clear();
        for c in &mut meta.columns {
            c.invisible = false;
            c.generated = None;
        }
        let bytes = meta.encode_as(3);
        assert_eq!(TableMeta::decode(&bytes, &def).expect("version 3"), meta);
        meta.columns[0].invisible = true;
        let bytes = meta.encode_as(3);
        assert!(TableMeta::decode(&bytes, &def).is_err());
    }
}

/// Version 4 bytes (before generated columns) still decode, every column
/// an ordinary one; version 5 keeps the generation of each column.
/// Version 6 (the current one) adds the table options.
#[test]
fn version_4_decodes_without_generated_columns() {
    let mut g = Gen(79);
    for _ in 0..50 {
        let ncols = g.below(4) as usize + 1;
        let def = def_with(ncols);
        let mut meta = generate(&mut g, ncols);
        // Table options came with version 6.
        meta.options.clear();
        let v5 = meta.encode_as(5);
        assert_eq!(v5[2], 5);
        assert_eq!(TableMeta::decode(&v5, &def).expect("version 5"), meta);
        for c in &mut meta.columns {
            c.generated = None;
        }
        let v4 = meta.encode_as(4);
        assert_eq!(v4.len() + ncols, meta.encode_as(5).len());
        assert_eq!(TableMeta::decode(&v4, &def).expect("version 4"), meta);
    }
}

#[test]
fn round_trips_over_generated_metadata() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    for _ in 0..500 {
        let ncols = g.below(6) as usize + 1;
        let def = def_with(ncols);
        let meta = generate(&mut g, ncols);
        let bytes = meta.encode();
        let back = TableMeta::decode(&bytes, &def).expect("decodes");
        assert_eq!(back, meta);
    }
}

#[test]
fn empty_bytes_are_plain_and_mismatches_are_refused() {
    let def = def_with(3);
    let plain = TableMeta::decode(&[], &def).expect("plain");
    assert_eq!(plain, TableMeta::plain(&def));
    assert_eq!(plain.columns.len(), 3);
    assert_eq!(
        (plain.charset.as_str(), plain.collation.as_str()),
        ("utf8mb4", "utf8mb4_general_ci")
    );
    let bytes = plain.encode();
    let e = TableMeta::decode(&bytes, &def_with(2)).expect_err("column count differs");
    assert_eq!(e.code(), 1105);
    let mut newer = bytes.clone();
    newer[2] = 9;
    assert_eq!(
        TableMeta::decode(&newer, &def).expect_err("newer").code(),
        1105
    );
    let mut trailing = bytes;
    trailing.push(0);
    assert!(TableMeta::decode(&trailing, &def).is_err());
}

#[test]
fn corrupt_bytes_never_panic() {
    let mut g = Gen(12345);
    for _ in 0..100 {
        let ncols = g.below(4) as usize + 1;
        let def = def_with(ncols);
        let bytes = generate(&mut g, ncols).encode();
        for cut in 0..bytes.len() {
            assert!(TableMeta::decode(&bytes[..cut.max(1)], &def).is_err() || cut == 0);
        }
        for _ in 0..20 {
            let mut b = bytes.clone();
            let i = g.below(b.len() as u64) as usize;
            b[i] ^= 1 << g.below(8);
            // Any outcome but a panic is acceptable; a decoded value must
            // still match the definition.
            if let Ok(m) = TableMeta::decode(&b, &def) {
                assert_eq!(m.columns.len(), ncols);
                assert!(m.fulltext.iter().all(|(_, c)| c.iter().all(|&c| c < ncols)));
            }
        }
    }
}
