//! Random schemas and data: column types (every MariaDB type family Larch
//! supports, with lengths, fractional-second precisions, signedness and
//! collations), tables with a primary key and some secondary or unique
//! keys, and value literals valid for a column (boundary values, NULLs,
//! strings chosen so that comparisons, collations and implicit conversions
//! are exercised).

use rand::seq::IndexedRandom;
use rand::Rng;

/// The expression-level type family of a column or expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// Integers, BIT, YEAR, booleans.
    Int,
    /// DECIMAL.
    Dec,
    /// FLOAT, DOUBLE.
    Float,
    /// Character and binary strings, ENUM, SET.
    Str,
    /// DATE.
    Date,
    /// TIME.
    Time,
    /// DATETIME, TIMESTAMP.
    DateTime,
    /// JSON.
    Json,
}

/// Every type family, for picking one at random.
pub const ALL_TYS: [Ty; 8] = [
    Ty::Int,
    Ty::Dec,
    Ty::Float,
    Ty::Str,
    Ty::Date,
    Ty::Time,
    Ty::DateTime,
    Ty::Json,
];

/// A column's SQL type.
#[derive(Clone, Debug, PartialEq)]
pub enum ColType {
    /// TINYINT..BIGINT: width in bytes (1, 2, 3, 4, 8) and signedness.
    Int { bytes: u8, unsigned: bool },
    /// DECIMAL(p, s).
    Decimal { p: u8, s: u8, unsigned: bool },
    /// FLOAT or DOUBLE.
    Float { double: bool },
    /// BIT(n).
    Bit(u8),
    /// DATE.
    Date,
    /// TIME(fsp).
    Time(u8),
    /// DATETIME(fsp).
    DateTime(u8),
    /// TIMESTAMP(fsp).
    Timestamp(u8),
    /// YEAR.
    Year,
    /// CHAR(n) / VARCHAR(n) / TEXT with a collation (None: the default).
    Char {
        n: u16,
        var: bool,
        text: bool,
        collation: Option<&'static str>,
    },
    /// BINARY(n) / VARBINARY(n) / BLOB.
    Binary { n: u16, var: bool, blob: bool },
    /// ENUM('a','b','c').
    Enum,
    /// SET('a','b','c').
    Set,
    /// JSON.
    Json,
}

/// The collations given to string columns (Larch's `SHOW COLLATION`,
/// `binary` aside).
pub const COLLATIONS: [&str; 8] = [
    "utf8mb4_general_ci",
    "utf8mb4_bin",
    "utf8mb4_unicode_ci",
    "utf8mb3_general_ci",
    "utf8mb3_bin",
    "utf8mb3_unicode_ci",
    "latin1_swedish_ci",
    "latin1_bin",
];

impl ColType {
    /// The SQL text of the type.
    pub fn sql(&self) -> String {
        match self {
            ColType::Int { bytes, unsigned } => {
                let name = match bytes {
                    1 => "TINYINT",
                    2 => "SMALLINT",
                    3 => "MEDIUMINT",
                    4 => "INT",
                    _ => "BIGINT",
                };
                format!("{name}{}", if *unsigned { " UNSIGNED" } else { "" })
            }
            ColType::Decimal { p, s, unsigned } => {
                format!(
                    "DECIMAL({p},{s}){}",
                    if *unsigned { " UNSIGNED" } else { "" }
                )
            }
            ColType::Float { double } => (if *double { "DOUBLE" } else { "FLOAT" }).to_owned(),
            ColType::Bit(n) => format!("BIT({n})"),
            ColType::Date => "DATE".to_owned(),
            ColType::Time(f) => format!("TIME({f})"),
            ColType::DateTime(f) => format!("DATETIME({f})"),
            ColType::Timestamp(f) => format!("TIMESTAMP({f})"),
            ColType::Year => "YEAR".to_owned(),
            ColType::Char {
                n,
                var,
                text,
                collation,
            } => {
                let base = if *text {
                    "TEXT".to_owned()
                } else if *var {
                    format!("VARCHAR({n})")
                } else {
                    format!("CHAR({n})")
                };
                match collation {
                    Some(c) => {
                        let cs = c.split('_').next().unwrap_or("utf8mb4");
                        format!("{base} CHARACTER SET {cs} COLLATE {c}")
                    }
                    None => base,
                }
            }
            ColType::Binary { n, var, blob } => {
                if *blob {
                    "BLOB".to_owned()
                } else if *var {
                    format!("VARBINARY({n})")
                } else {
                    format!("BINARY({n})")
                }
            }
            ColType::Enum => "ENUM('a','b','c')".to_owned(),
            ColType::Set => "SET('a','b','c')".to_owned(),
            ColType::Json => "JSON".to_owned(),
        }
    }

    /// The expression-level type family.
    pub fn ty(&self) -> Ty {
        match self {
            ColType::Int { .. } | ColType::Bit(_) | ColType::Year => Ty::Int,
            ColType::Decimal { .. } => Ty::Dec,
            ColType::Float { .. } => Ty::Float,
            ColType::Date => Ty::Date,
            ColType::Time(_) => Ty::Time,
            ColType::DateTime(_) | ColType::Timestamp(_) => Ty::DateTime,
            ColType::Json => Ty::Json,
            _ => Ty::Str,
        }
    }

    /// True for types that can be indexed without a prefix length.
    pub fn indexable(&self) -> bool {
        !matches!(
            self,
            ColType::Char { text: true, .. } | ColType::Binary { blob: true, .. } | ColType::Json
        )
    }

    /// A random column type (common types weighted higher).
    pub fn random(rng: &mut impl Rng) -> ColType {
        match rng.random_range(0..100) {
            0..=24 => ColType::Int {
                bytes: *[1u8, 2, 3, 4, 4, 4, 8, 8].choose(rng).unwrap_or(&4),
                unsigned: rng.random_bool(0.3),
            },
            25..=34 => {
                let p = rng.random_range(1..=20u8);
                ColType::Decimal {
                    p,
                    s: rng.random_range(0..=p.min(6)),
                    unsigned: rng.random_bool(0.2),
                }
            }
            35..=41 => ColType::Float {
                double: rng.random_bool(0.6),
            },
            42..=43 => ColType::Bit(*[1u8, 5, 8, 16, 64].choose(rng).unwrap_or(&8)),
            44..=49 => ColType::Date,
            50..=53 => ColType::Time(rng.random_range(0..=6)),
            54..=59 => ColType::DateTime(rng.random_range(0..=6)),
            60..=62 => ColType::Timestamp(rng.random_range(0..=6)),
            63..=64 => ColType::Year,
            65..=84 => ColType::Char {
                n: *[1u16, 3, 5, 10, 20, 64].choose(rng).unwrap_or(&10),
                var: rng.random_bool(0.7),
                text: rng.random_bool(0.15),
                collation: if rng.random_bool(0.5) {
                    None
                } else {
                    COLLATIONS.choose(rng).copied()
                },
            },
            85..=90 => ColType::Binary {
                n: *[1u16, 4, 8, 16].choose(rng).unwrap_or(&8),
                var: rng.random_bool(0.6),
                blob: rng.random_bool(0.2),
            },
            91..=93 => ColType::Enum,
            94..=95 => ColType::Set,
            _ => ColType::Json,
        }
    }
}

/// A column of a generated table.
#[derive(Clone, Debug)]
pub struct ColumnDef {
    /// The column name.
    pub name: String,
    /// Its type.
    pub ty: ColType,
    /// NOT NULL.
    pub not_null: bool,
    /// AUTO_INCREMENT (the `id` primary key only).
    pub auto_inc: bool,
}

/// A generated table.
#[derive(Clone, Debug)]
pub struct Table {
    /// Its name.
    pub name: String,
    /// Its columns.
    pub columns: Vec<ColumnDef>,
    /// Indexes into `columns` of the primary key.
    pub pk: Vec<usize>,
    /// Secondary keys: (unique, column indexes).
    pub keys: Vec<(bool, Vec<usize>)>,
}

/// Column names shared by the tables, so NATURAL JOIN and USING find
/// common columns (of different types).
const NAMES: [&str; 10] = ["a", "b", "c", "d", "e", "f", "g", "h", "k", "m"];

impl Table {
    /// A random table named `name`.
    pub fn random(name: &str, rng: &mut impl Rng) -> Table {
        let mut columns = Vec::new();
        let auto = rng.random_bool(0.6);
        if auto {
            columns.push(ColumnDef {
                name: "id".to_owned(),
                ty: ColType::Int {
                    bytes: *[4u8, 8, 2].choose(rng).unwrap_or(&4),
                    unsigned: rng.random_bool(0.3),
                },
                not_null: true,
                auto_inc: true,
            });
        }
        let mut names: Vec<&str> = NAMES.to_vec();
        names.truncate(rng.random_range(2..=7));
        for n in names {
            columns.push(ColumnDef {
                name: n.to_owned(),
                ty: ColType::random(rng),
                not_null: rng.random_bool(0.1),
                auto_inc: false,
            });
        }
        let pk = if auto {
            vec![0]
        } else {
            // A natural key: one or two indexable columns, made NOT NULL.
            let cands: Vec<usize> = (0..columns.len())
                .filter(|&i| columns[i].ty.indexable())
                .collect();
            let mut pk: Vec<usize> = Vec::new();
            let k = rng.random_range(1..=2);
            for &c in cands.choose_multiple(rng, k) {
                pk.push(c);
            }
            if pk.is_empty() {
                columns.push(ColumnDef {
                    name: "id".to_owned(),
                    ty: ColType::Int {
                        bytes: 4,
                        unsigned: false,
                    },
                    not_null: true,
                    auto_inc: false,
                });
                pk.push(columns.len() - 1);
            }
            for &c in &pk {
                columns[c].not_null = true;
            }
            pk
        };
        let mut keys = Vec::new();
        let idx: Vec<usize> = (0..columns.len())
            .filter(|i| !pk.contains(i) && columns[*i].ty.indexable())
            .collect();
        for _ in 0..rng.random_range(0..=2) {
            if let Some(&c) = idx.choose(rng) {
                keys.push((rng.random_bool(0.3), vec![c]));
            }
        }
        Table {
            name: name.to_owned(),
            columns,
            pk,
            keys,
        }
    }

    /// The table without column `i` (and the keys using it); None when
    /// `i` is part of the primary key.
    pub fn without_column(&self, i: usize) -> Option<Table> {
        if self.pk.contains(&i) || i >= self.columns.len() {
            return None;
        }
        let shift = |c: usize| if c > i { c - 1 } else { c };
        let mut t = self.clone();
        t.columns.remove(i);
        t.pk = self.pk.iter().map(|&c| shift(c)).collect();
        t.keys = self
            .keys
            .iter()
            .filter(|(_, cols)| !cols.contains(&i))
            .map(|(u, cols)| (*u, cols.iter().map(|&c| shift(c)).collect()))
            .collect();
        Some(t)
    }

    /// CREATE TABLE.
    pub fn create_sql(&self) -> String {
        let mut parts: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let mut s = format!("`{}` {}", c.name, c.ty.sql());
                s.push_str(if c.not_null { " NOT NULL" } else { " NULL" });
                if c.auto_inc {
                    s.push_str(" AUTO_INCREMENT");
                }
                s
            })
            .collect();
        let names = |cols: &[usize]| -> String {
            let v: Vec<String> = cols
                .iter()
                .map(|&i| format!("`{}`", self.columns[i].name))
                .collect();
            v.join(", ")
        };
        parts.push(format!("PRIMARY KEY ({})", names(&self.pk)));
        for (i, (unique, cols)) in self.keys.iter().enumerate() {
            parts.push(format!(
                "{}KEY k{i} ({})",
                if *unique { "UNIQUE " } else { "" },
                names(cols)
            ));
        }
        format!(
            "CREATE TABLE `{}` (\n  {}\n)",
            self.name,
            parts.join(",\n  ")
        )
    }

    /// `SELECT * FROM t ORDER BY <primary key>`.
    pub fn read_back_sql(&self) -> String {
        let v: Vec<String> = self
            .pk
            .iter()
            .map(|&i| format!("`{}`", self.columns[i].name))
            .collect();
        format!("SELECT * FROM `{}` ORDER BY {}", self.name, v.join(", "))
    }
}

/// Strings for data and literals: case and accent variants, trailing
/// spaces, numbers, temporals and JSON in text, LIKE metacharacters.
pub const STRINGS: [&str; 28] = [
    "",
    "a",
    "A",
    "a ",
    "ab",
    "abc",
    "Abc",
    "b",
    "B",
    "é",
    "e",
    "É",
    "ß",
    "ss",
    "x%y",
    "a_b",
    "10",
    "2",
    "1e2",
    " 5",
    "-3.5",
    "0x1F",
    "2024-01-15",
    "12:30:00",
    "2001-02-03 04:05:06.5",
    "[1, 2]",
    "{\"a\": 1}",
    "abc def",
];

/// JSON documents for data and literals.
pub const JSONS: [&str; 12] = [
    "{\"a\": 1, \"b\": [1, 2, {\"c\": \"x\"}]}",
    "[1, \"x\", null, true]",
    "\"str\"",
    "1.5",
    "true",
    "null",
    "{}",
    "[]",
    "{\"a\": {\"a\": 2}, \"z\": \"A\"}",
    "[3, 1, 2]",
    "-7",
    "{\"b\": null, \"a\": [\"x\", \"y\"]}",
];

/// A quoted SQL string literal.
pub fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('\'');
    for ch in s.chars() {
        match ch {
            '\'' => q.push_str("''"),
            '\\' => q.push_str("\\\\"),
            '\0' => q.push_str("\\0"),
            _ => q.push(ch),
        }
    }
    q.push('\'');
    q
}

/// The range of an integer column.
pub fn int_range(bytes: u8, unsigned: bool) -> (i128, i128) {
    let bits = u32::from(bytes) * 8;
    if unsigned {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

fn fraction(rng: &mut impl Rng, fsp: u8) -> String {
    if fsp == 0 && rng.random_bool(0.7) {
        return String::new();
    }
    let digits = rng.random_range(1..=6);
    let v: String = (0..digits)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect();
    format!(".{v}")
}

/// A random DATE text.
pub fn date_text(rng: &mut impl Rng) -> String {
    const FIXED: [&str; 8] = [
        "2024-02-29",
        "1999-12-31",
        "2000-01-01",
        "1970-01-01",
        "2038-01-19",
        "2024-01-15",
        "1000-01-01",
        "9999-12-31",
    ];
    if rng.random_bool(0.6) {
        return (*FIXED.choose(rng).unwrap_or(&"2000-01-01")).to_owned();
    }
    format!(
        "{:04}-{:02}-{:02}",
        rng.random_range(1990..2030),
        rng.random_range(1..=12),
        rng.random_range(1..=28)
    )
}

/// A random TIME text (with a fraction maybe longer than `fsp`).
pub fn time_text(rng: &mut impl Rng, fsp: u8) -> String {
    const FIXED: [&str; 6] = [
        "00:00:00",
        "12:30:00",
        "23:59:59",
        "-01:02:03",
        "838:59:59",
        "-838:59:59",
    ];
    if rng.random_bool(0.4) {
        return (*FIXED.choose(rng).unwrap_or(&"00:00:00")).to_owned();
    }
    let sign = if rng.random_bool(0.15) { "-" } else { "" };
    format!(
        "{sign}{:02}:{:02}:{:02}{}",
        rng.random_range(0..48),
        rng.random_range(0..60),
        rng.random_range(0..60),
        fraction(rng, fsp)
    )
}

/// A random DATETIME text within the TIMESTAMP range when `ts`.
pub fn datetime_text(rng: &mut impl Rng, fsp: u8, ts: bool) -> String {
    let year = if ts {
        rng.random_range(1971..2037)
    } else {
        rng.random_range(1960..2040)
    };
    format!(
        "{year:04}-{:02}-{:02} {:02}:{:02}:{:02}{}",
        rng.random_range(1..=12),
        rng.random_range(1..=28),
        rng.random_range(0..24),
        rng.random_range(0..60),
        rng.random_range(0..60),
        fraction(rng, fsp)
    )
}

/// A literal valid for a column of type `ty` (never NULL).
pub fn value(ty: &ColType, rng: &mut impl Rng) -> String {
    match ty {
        ColType::Int { bytes, unsigned } => {
            let (lo, hi) = int_range(*bytes, *unsigned);
            let pick = [0, 1, -1, 2, 7, 42, -100, 127, 255, lo, hi, lo + 1, hi - 1];
            let ok: Vec<i128> = pick.into_iter().filter(|v| *v >= lo && *v <= hi).collect();
            if rng.random_bool(0.6) {
                ok.choose(rng).copied().unwrap_or(0).to_string()
            } else {
                rng.random_range(lo.max(-1000)..=hi.min(1000)).to_string()
            }
        }
        ColType::Decimal { p, s, unsigned } => {
            let int_digits = usize::from(p - s).min(8);
            let mut v = String::new();
            if !unsigned && rng.random_bool(0.3) {
                v.push('-');
            }
            let n = rng.random_range(0..=int_digits);
            if n == 0 {
                v.push('0');
            }
            for _ in 0..n {
                v.push(char::from(b'0' + rng.random_range(0..10u8)));
            }
            if *s > 0 {
                v.push('.');
                for _ in 0..rng.random_range(1..=*s) {
                    v.push(char::from(b'0' + rng.random_range(0..10u8)));
                }
            }
            v
        }
        ColType::Float { double } => {
            if *double && rng.random_bool(0.1) {
                (*["1e300", "-2.5e-10", "1e15", "123456789.125"]
                    .choose(rng)
                    .unwrap_or(&"1e15"))
                .to_owned()
            } else {
                // Quarters: exact in binary, so sums do not depend on order.
                let k: i32 = rng.random_range(-400..400);
                format!("{}", f64::from(k) / 4.0)
            }
        }
        ColType::Bit(n) => {
            let max: u128 = if *n >= 64 {
                u128::from(u64::MAX)
            } else {
                (1u128 << n) - 1
            };
            let v = match rng.random_range(0..4) {
                0 => 0,
                1 => max,
                _ => rng.random_range(0..=max.min(1000)),
            };
            v.to_string()
        }
        ColType::Date => quote(&date_text(rng)),
        ColType::Time(f) => quote(&time_text(rng, *f)),
        ColType::DateTime(f) => quote(&datetime_text(rng, *f, false)),
        ColType::Timestamp(f) => quote(&datetime_text(rng, *f, true)),
        ColType::Year => (*["1901", "2155", "2000", "1999", "2024", "1970", "0"]
            .choose(rng)
            .unwrap_or(&"2000"))
        .to_owned(),
        ColType::Char { n, .. } => {
            let fits: Vec<&str> = STRINGS
                .iter()
                .copied()
                .filter(|s| s.chars().count() <= usize::from(*n))
                .collect();
            quote(fits.choose(rng).copied().unwrap_or(""))
        }
        ColType::Binary { n, .. } => {
            if rng.random_bool(0.3) {
                let len = rng.random_range(0..=usize::from(*n).min(4));
                let bytes: Vec<u8> = (0..len)
                    .map(|_| *[0u8, 1, 0x41, 0x61, 0xff, 0x7f].choose(rng).unwrap_or(&0))
                    .collect();
                return format!("X'{}'", crate::exec::hex(&bytes));
            }
            let fits: Vec<&str> = STRINGS
                .iter()
                .copied()
                .filter(|s| s.len() <= usize::from(*n))
                .collect();
            quote(fits.choose(rng).copied().unwrap_or(""))
        }
        ColType::Enum => quote(["a", "b", "c"].choose(rng).copied().unwrap_or("a")),
        ColType::Set => quote(
            ["", "a", "b", "a,c", "a,b,c", "c"]
                .choose(rng)
                .copied()
                .unwrap_or("a"),
        ),
        ColType::Json => quote(JSONS.choose(rng).copied().unwrap_or("{}")),
    }
}
