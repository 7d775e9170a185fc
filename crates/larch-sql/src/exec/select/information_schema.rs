//! INFORMATION_SCHEMA tables, built on demand from the catalog, the
//! variables, the status counters and the process list, with MariaDB
//! 10.11's columns (names, order, types and nullability).
//!
//! - From the catalog: SCHEMATA, TABLES, COLUMNS, STATISTICS,
//!   KEY_COLUMN_USAGE, TABLE_CONSTRAINTS, PARTITIONS (one row per table with
//!   NULL partition fields, as for a table without partitions);
//! - from the server: ENGINES, PLUGINS, CHARACTER_SETS, COLLATIONS,
//!   COLLATION_CHARACTER_SET_APPLICABILITY, PROCESSLIST, GLOBAL_VARIABLES,
//!   SESSION_VARIABLES, GLOBAL_STATUS, SESSION_STATUS, USER_PRIVILEGES,
//!   SYSTEM_VARIABLES (in `super::system_variables`);
//! - from the engine's transactions and row locks: INNODB_TRX, INNODB_LOCKS,
//!   INNODB_LOCK_WAITS (in `super::innodb_tables`);
//! - objects Larch does not have yet, so always empty: VIEWS, TRIGGERS,
//!   ROUTINES, PARAMETERS, EVENTS, FILES, REFERENTIAL_CONSTRAINTS,
//!   CHECK_CONSTRAINTS, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES,
//!   COLUMN_PRIVILEGES.
//!
//! Table names are case-insensitive here, as in MySQL. `TABLES` lists these
//! tables too, as `SYSTEM VIEW`s of `information_schema`.

use larch_engine::catalog::TableEntry;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};

use crate::ddl::TableMeta;
use crate::error::SqlError;
use crate::result::{ResultColumn, RowSet};
use crate::session::variables;
use crate::session::Session;

/// Every table of `information_schema`, in the order SHOW TABLES lists them.
pub(crate) const TABLE_NAMES: &[&str] = &[
    "CHARACTER_SETS",
    "CHECK_CONSTRAINTS",
    "COLLATIONS",
    "COLLATION_CHARACTER_SET_APPLICABILITY",
    "COLUMNS",
    "COLUMN_PRIVILEGES",
    "ENGINES",
    "EVENTS",
    "FILES",
    "GLOBAL_STATUS",
    "GLOBAL_VARIABLES",
    "INNODB_LOCKS",
    "INNODB_LOCK_WAITS",
    "INNODB_TRX",
    "KEY_COLUMN_USAGE",
    "PARAMETERS",
    "PARTITIONS",
    "PLUGINS",
    "PROCESSLIST",
    "REFERENTIAL_CONSTRAINTS",
    "ROUTINES",
    "SCHEMATA",
    "SCHEMA_PRIVILEGES",
    "SESSION_STATUS",
    "SESSION_VARIABLES",
    "STATISTICS",
    "SYSTEM_VARIABLES",
    "TABLES",
    "TABLE_CONSTRAINTS",
    "TABLE_PRIVILEGES",
    "TRIGGERS",
    "USER_PRIVILEGES",
    "VIEWS",
];

/// The type of an information_schema column.
#[derive(Clone, Copy)]
enum T {
    /// VARCHAR(n) utf8mb4.
    S(u32),
    /// LONGTEXT utf8mb4.
    L,
    /// BIGINT UNSIGNED.
    U,
    /// BIGINT.
    I,
    /// DATETIME.
    Dt,
    /// DOUBLE (MariaDB's DECIMAL columns of PROCESSLIST).
    D,
}

const NULL: bool = true;
const NN: bool = false;

fn cols(spec: &[(&str, T, bool)]) -> Vec<ResultColumn> {
    spec.iter()
        .map(|&(name, t, nullable)| match t {
            T::S(n) => ResultColumn::text(name, n, nullable),
            T::L => ResultColumn::computed(
                name,
                ColumnType::Text {
                    kind: LobKind::Long,
                    collation: Collation::Utf8mb4GeneralCi,
                },
                nullable,
            ),
            T::U => ResultColumn::bigint(name, true, nullable),
            T::I => ResultColumn::bigint(name, false, nullable),
            T::Dt => ResultColumn::computed(name, ColumnType::Datetime { fsp: 0 }, nullable),
            T::D => ResultColumn::computed(name, ColumnType::Double, nullable),
        })
        .collect()
}

fn s(v: &str) -> Value {
    Value::Str(v.to_owned())
}

fn u(n: u64) -> Value {
    Value::UInt(n)
}

fn opt_u(n: Option<u64>) -> Value {
    n.map_or(Value::Null, Value::UInt)
}

fn opt_s(v: Option<&str>) -> Value {
    v.map_or(Value::Null, s)
}

/// One base table with its SQL metadata.
pub(crate) struct BaseTable {
    pub db: String,
    pub name: String,
    pub entry: TableEntry,
    pub meta: TableMeta,
}

impl BaseTable {
    /// The next AUTO_INCREMENT value, for tables with such a column.
    pub(crate) fn auto_increment(&self, sess: &Session) -> Option<u64> {
        self.entry.def.auto_increment?;
        sess.db
            .catalog()
            .table(&self.db, &self.name)
            .ok()
            .and_then(|t| t.auto_increment_next())
    }
}

/// The base tables of `db` (every database when `None`), by database and name.
pub(crate) fn base_tables(sess: &Session, db: Option<&str>) -> Result<Vec<BaseTable>, SqlError> {
    let catalog = sess.db.catalog();
    let dbs = match db {
        Some(d) => vec![d.to_owned()],
        None => {
            let mut all = catalog.databases();
            all.sort();
            all
        }
    };
    let mut out = Vec::new();
    for db in dbs {
        if !catalog.has_database(&db) || !crate::privileges::check::sees_database(sess, &db) {
            continue;
        }
        let mut names = catalog.tables(&db)?;
        names.retain(|n| !crate::session::temporary::is_hidden(n));
        names.retain(|n| crate::privileges::check::sees_table(sess, &db, n));
        names.sort();
        for name in names {
            let Some(entry) = catalog.table_entry(&db, &name) else {
                continue;
            };
            let meta = TableMeta::decode(&entry.sql_meta, &entry.def)?;
            out.push(BaseTable {
                db: db.clone(),
                name,
                entry,
                meta,
            });
        }
    }
    Ok(out)
}

/// `(charset, collation)` of a database.
pub(crate) fn database_charset(sess: &Session, db: &str) -> (String, String) {
    let meta = sess.db.catalog().database_meta(db).unwrap_or_default();
    let text = String::from_utf8_lossy(&meta).into_owned();
    let mut parts = text.split('\0');
    let charset = parts
        .next()
        .filter(|c| !c.is_empty())
        .unwrap_or("utf8mb4")
        .to_owned();
    let collation = parts
        .next()
        .filter(|c| !c.is_empty())
        .unwrap_or("utf8mb4_general_ci")
        .to_owned();
    (charset, collation)
}

/// The character sets clients can use: name, default collation,
/// description, bytes per character.
pub(crate) const CHARSETS: &[(&str, &str, &str, u64)] = &[
    ("binary", "binary", "Binary pseudo charset", 1),
    ("latin1", "latin1_swedish_ci", "cp1252 West European", 1),
    ("utf8mb3", "utf8mb3_general_ci", "UTF-8 Unicode", 3),
    ("utf8mb4", "utf8mb4_general_ci", "UTF-8 Unicode", 4),
];

/// The collations: name, character set, id, default for its set, sort length.
pub(crate) const COLLATIONS: &[(&str, &str, u64, bool, u64)] = &[
    ("binary", "binary", 63, true, 1),
    ("latin1_swedish_ci", "latin1", 8, true, 1),
    ("latin1_bin", "latin1", 47, false, 1),
    ("utf8mb3_general_ci", "utf8mb3", 33, true, 1),
    ("utf8mb3_bin", "utf8mb3", 83, false, 1),
    ("utf8mb3_unicode_ci", "utf8mb3", 192, false, 8),
    ("utf8mb4_general_ci", "utf8mb4", 45, true, 1),
    ("utf8mb4_bin", "utf8mb4", 46, false, 1),
    ("utf8mb4_unicode_ci", "utf8mb4", 224, false, 8),
];

/// The SHOW TABLE STATUS / information_schema.TABLES facts of a base table:
/// (row format, auto_increment, collation, create options, comment).
fn table_facts(sess: &Session, t: &BaseTable) -> (String, Option<u64>, String, String) {
    let row_format = t
        .meta
        .row_format
        .as_deref()
        .map(capitalized)
        .unwrap_or_else(|| "Dynamic".to_owned());
    let options = t
        .meta
        .row_format
        .as_deref()
        .map(|r| format!("row_format={}", r.to_ascii_uppercase()))
        .unwrap_or_default();
    (
        row_format,
        t.auto_increment(sess),
        options,
        t.meta.comment.clone(),
    )
}

fn capitalized(w: &str) -> String {
    let lower = w.to_ascii_lowercase();
    let mut c = lower.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

/// The columns of SHOW TABLE STATUS.
pub(crate) fn table_status_columns() -> Vec<ResultColumn> {
    cols(&[
        ("Name", T::S(64), NN),
        ("Engine", T::S(64), NULL),
        ("Version", T::U, NULL),
        ("Row_format", T::S(10), NULL),
        ("Rows", T::U, NULL),
        ("Avg_row_length", T::U, NULL),
        ("Data_length", T::U, NULL),
        ("Max_data_length", T::U, NULL),
        ("Index_length", T::U, NULL),
        ("Data_free", T::U, NULL),
        ("Auto_increment", T::U, NULL),
        ("Create_time", T::Dt, NULL),
        ("Update_time", T::Dt, NULL),
        ("Check_time", T::Dt, NULL),
        ("Collation", T::S(64), NULL),
        ("Checksum", T::U, NULL),
        ("Create_options", T::S(2048), NULL),
        ("Comment", T::S(2048), NN),
        ("Max_index_length", T::U, NULL),
        ("Temporary", T::S(1), NULL),
    ])
}

/// The rows of SHOW TABLE STATUS for `db` (statistics Larch does not keep
/// are 0, as for an empty InnoDB table).
pub(crate) fn table_status_rows(sess: &Session, db: &str) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut rows = Vec::new();
    for t in base_tables(sess, Some(db))? {
        let (row_format, auto, options, comment) = table_facts(sess, &t);
        let page = u64::from(sess.db.storage().page_size().get());
        rows.push(vec![
            s(&t.name),
            s(&t.meta.engine),
            u(10),
            s(&row_format),
            u(0),
            u(0),
            u(page),
            u(0),
            u(page * t.entry.def.secondary.len() as u64),
            u(0),
            opt_u(auto),
            Value::Null,
            Value::Null,
            Value::Null,
            s(&t.meta.collation),
            Value::Null,
            s(&options),
            s(&comment),
            u(0),
            s("N"),
        ]);
    }
    Ok(rows)
}

/// `(CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION,
/// NUMERIC_SCALE, DATETIME_PRECISION)` of a column type.
fn type_lengths(ty: &ColumnType) -> [Option<u64>; 5] {
    let lob = |k: &LobKind| match k {
        LobKind::Tiny => 255,
        LobKind::Text => 65_535,
        LobKind::Medium => 16_777_215,
        LobKind::Long => 4_294_967_295,
    };
    let mb = |c: &Collation| c.charset().max_bytes_per_char() as u64;
    match ty {
        ColumnType::Int { bytes, unsigned } => {
            let p = match (bytes, unsigned) {
                (1, _) => 3,
                (2, _) => 5,
                (3, false) => 7,
                (3, true) => 8,
                (4, _) => 10,
                (_, false) => 19,
                (_, true) => 20,
            };
            [None, None, Some(p), Some(0), None]
        }
        ColumnType::Decimal { precision, scale } => [
            None,
            None,
            Some(u64::from(*precision)),
            Some(u64::from(*scale)),
            None,
        ],
        ColumnType::Float => [None, None, Some(12), None, None],
        ColumnType::Double => [None, None, Some(22), None, None],
        ColumnType::Bit { bits } => [None, None, Some(u64::from(*bits)), None, None],
        ColumnType::Char { len, collation } => {
            let n = u64::from(*len);
            [Some(n), Some(n * mb(collation)), None, None, None]
        }
        ColumnType::Varchar { max_len, collation } => {
            let n = u64::from(*max_len);
            [Some(n), Some(n * mb(collation)), None, None, None]
        }
        ColumnType::Binary { len } => {
            let n = u64::from(*len);
            [Some(n), Some(n), None, None, None]
        }
        ColumnType::Varbinary { max_len } => {
            let n = u64::from(*max_len);
            [Some(n), Some(n), None, None, None]
        }
        ColumnType::Text { kind, .. } | ColumnType::Blob { kind } => {
            let n = lob(kind);
            [Some(n), Some(n), None, None, None]
        }
        ColumnType::Enum { values } => {
            let n = values.iter().map(|v| v.chars().count()).max().unwrap_or(0) as u64;
            [Some(n), Some(n * 4), None, None, None]
        }
        ColumnType::Set { values } => {
            let n = values.iter().map(|v| v.chars().count() + 1).sum::<usize>();
            let n = n.saturating_sub(1) as u64;
            [Some(n), Some(n * 4), None, None, None]
        }
        ColumnType::Time { fsp } | ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => {
            [None, None, None, None, Some(u64::from(*fsp))]
        }
        ColumnType::Date | ColumnType::Year => [None; 5],
    }
}

/// COLUMN_KEY of column `i`: PRI, UNI, MUL or "" (as SHOW COLUMNS).
fn column_key(entry: &TableEntry, i: usize) -> &'static str {
    let def = &entry.def;
    let first =
        |x: &larch_engine::table::IndexDef| x.columns.first().is_some_and(|p| p.column == i);
    if def
        .primary_key
        .as_ref()
        .is_some_and(|p| p.columns.iter().any(|c| c.column == i))
    {
        "PRI"
    } else if def
        .secondary
        .iter()
        .any(|x| x.unique && x.columns.len() == 1 && first(x))
    {
        "UNI"
    } else if def.secondary.iter().any(first) {
        "MUL"
    } else {
        ""
    }
}

/// COLUMN_DEFAULT: the DEFAULT expression as MariaDB 10.2+ shows it (string
/// literals quoted, `NULL` for a nullable column without a default, SQL NULL
/// when there is no default).
fn column_default(entry: &TableEntry, meta: &TableMeta, i: usize) -> Value {
    let c = &entry.def.columns[i];
    if entry.def.auto_increment == Some(i) {
        return Value::Null;
    }
    match meta.columns.get(i).and_then(|m| m.default.as_deref()) {
        Some(d) => s(d),
        None if c.nullable => s("NULL"),
        None => Value::Null,
    }
}

/// The rows of `information_schema.<name>`.
pub(crate) fn table(sess: &Session, name: &str) -> Result<RowSet, SqlError> {
    let catalog = sess.db.catalog();
    let upper = name.to_ascii_uppercase();
    let mut rows = Vec::new();
    let columns = match upper.as_str() {
        "SCHEMATA" => {
            let mut dbs = catalog.databases();
            dbs.push("information_schema".to_owned());
            dbs.sort();
            dbs.retain(|d| crate::privileges::check::sees_database(sess, d));
            for db in dbs {
                let (charset, collation) = if db == "information_schema" {
                    ("utf8mb3".to_owned(), "utf8mb3_general_ci".to_owned())
                } else {
                    database_charset(sess, &db)
                };
                rows.push(vec![
                    s("def"),
                    s(&db),
                    s(&charset),
                    s(&collation),
                    Value::Null,
                    s(""),
                ]);
            }
            cols(&[
                ("CATALOG_NAME", T::S(512), NN),
                ("SCHEMA_NAME", T::S(64), NN),
                ("DEFAULT_CHARACTER_SET_NAME", T::S(32), NN),
                ("DEFAULT_COLLATION_NAME", T::S(64), NN),
                ("SQL_PATH", T::S(512), NULL),
                ("SCHEMA_COMMENT", T::S(1024), NN),
            ])
        }
        "TABLES" => {
            for t in base_tables(sess, None)? {
                let (row_format, auto, options, comment) = table_facts(sess, &t);
                rows.push(vec![
                    s("def"),
                    s(&t.db),
                    s(&t.name),
                    s("BASE TABLE"),
                    s(&t.meta.engine),
                    u(10),
                    s(&row_format),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    opt_u(auto),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    s(&t.meta.collation),
                    Value::Null,
                    s(&options),
                    s(&comment),
                    u(0),
                    s("N"),
                ]);
            }
            for n in TABLE_NAMES {
                rows.push(vec![
                    s("def"),
                    s("information_schema"),
                    s(n),
                    s("SYSTEM VIEW"),
                    s("MEMORY"),
                    u(11),
                    s("Fixed"),
                    Value::Null,
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    u(0),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    s("utf8mb3_general_ci"),
                    Value::Null,
                    s(""),
                    s(""),
                    u(0),
                    s("Y"),
                ]);
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("TABLE_TYPE", T::S(64), NN),
                ("ENGINE", T::S(64), NULL),
                ("VERSION", T::U, NULL),
                ("ROW_FORMAT", T::S(10), NULL),
                ("TABLE_ROWS", T::U, NULL),
                ("AVG_ROW_LENGTH", T::U, NULL),
                ("DATA_LENGTH", T::U, NULL),
                ("MAX_DATA_LENGTH", T::U, NULL),
                ("INDEX_LENGTH", T::U, NULL),
                ("DATA_FREE", T::U, NULL),
                ("AUTO_INCREMENT", T::U, NULL),
                ("CREATE_TIME", T::Dt, NULL),
                ("UPDATE_TIME", T::Dt, NULL),
                ("CHECK_TIME", T::Dt, NULL),
                ("TABLE_COLLATION", T::S(64), NULL),
                ("CHECKSUM", T::U, NULL),
                ("CREATE_OPTIONS", T::S(2048), NULL),
                ("TABLE_COMMENT", T::S(2048), NN),
                ("MAX_INDEX_LENGTH", T::U, NULL),
                ("TEMPORARY", T::S(1), NULL),
            ])
        }
        "COLUMNS" => {
            for t in base_tables(sess, None)? {
                for (i, c) in t.entry.def.columns.iter().enumerate() {
                    let cm = t.meta.columns.get(i).cloned().unwrap_or_default();
                    let auto = t.entry.def.auto_increment == Some(i);
                    let type_text = crate::ddl::column_type_text(c, &cm);
                    let data_type = type_text.split(['(', ' ']).next().unwrap_or("").to_owned();
                    let [chars, octets, precision, scale, fsp] = type_lengths(&c.ty);
                    let collation = c.ty.collation().filter(|co| *co != Collation::Binary);
                    let extra = if auto {
                        "auto_increment".to_owned()
                    } else if cm.on_update_now {
                        let fsp = crate::value::type_fsp(&c.ty);
                        if fsp == 0 {
                            "on update current_timestamp()".to_owned()
                        } else {
                            format!("on update current_timestamp({fsp})")
                        }
                    } else {
                        String::new()
                    };
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&t.name),
                        s(&c.name),
                        u(i as u64 + 1),
                        column_default(&t.entry, &t.meta, i),
                        s(if c.nullable { "YES" } else { "NO" }),
                        s(&data_type),
                        opt_u(chars),
                        opt_u(octets),
                        opt_u(precision),
                        opt_u(scale),
                        opt_u(fsp),
                        opt_s(collation.map(|co| co.charset().name())),
                        opt_s(collation.map(|co| co.name())),
                        s(&type_text),
                        s(column_key(&t.entry, i)),
                        s(&extra),
                        s("select,insert,update,references"),
                        s(&cm.comment),
                        s("NEVER"),
                        Value::Null,
                    ]);
                }
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("COLUMN_NAME", T::S(64), NN),
                ("ORDINAL_POSITION", T::U, NN),
                ("COLUMN_DEFAULT", T::L, NULL),
                ("IS_NULLABLE", T::S(3), NN),
                ("DATA_TYPE", T::S(64), NN),
                ("CHARACTER_MAXIMUM_LENGTH", T::U, NULL),
                ("CHARACTER_OCTET_LENGTH", T::U, NULL),
                ("NUMERIC_PRECISION", T::U, NULL),
                ("NUMERIC_SCALE", T::U, NULL),
                ("DATETIME_PRECISION", T::U, NULL),
                ("CHARACTER_SET_NAME", T::S(32), NULL),
                ("COLLATION_NAME", T::S(64), NULL),
                ("COLUMN_TYPE", T::L, NN),
                ("COLUMN_KEY", T::S(3), NN),
                ("EXTRA", T::S(80), NN),
                ("PRIVILEGES", T::S(80), NN),
                ("COLUMN_COMMENT", T::S(1024), NN),
                ("IS_GENERATED", T::S(6), NN),
                ("GENERATION_EXPRESSION", T::L, NULL),
            ])
        }
        "STATISTICS" => {
            for t in base_tables(sess, None)? {
                let def = &t.entry.def;
                let idxs = def
                    .primary_key
                    .iter()
                    .map(|p| (p, true))
                    .chain(def.secondary.iter().map(|x| (x, x.unique)));
                for (idx, unique) in idxs {
                    for (seq, part) in idx.columns.iter().enumerate() {
                        let col = &def.columns[part.column];
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            Value::Int(i64::from(!unique)),
                            s(&t.db),
                            s(&idx.name),
                            u(seq as u64 + 1),
                            s(&col.name),
                            s(if part.descending { "D" } else { "A" }),
                            Value::Int(0),
                            part.prefix_len
                                .map_or(Value::Null, |p| Value::Int(i64::from(p))),
                            Value::Null,
                            s(if col.nullable { "YES" } else { "" }),
                            s("BTREE"),
                            s(""),
                            s(t.meta.index_comment(&idx.name)),
                            s("NO"),
                        ]);
                    }
                }
                for (name, columns) in &t.meta.fulltext {
                    for (seq, &c) in columns.iter().enumerate() {
                        let col = &def.columns[c];
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            Value::Int(1),
                            s(&t.db),
                            s(name),
                            u(seq as u64 + 1),
                            s(&col.name),
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            s(if col.nullable { "YES" } else { "" }),
                            s("FULLTEXT"),
                            s(""),
                            s(t.meta.index_comment(name)),
                            s("NO"),
                        ]);
                    }
                }
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("NON_UNIQUE", T::I, NN),
                ("INDEX_SCHEMA", T::S(64), NN),
                ("INDEX_NAME", T::S(64), NN),
                ("SEQ_IN_INDEX", T::U, NN),
                ("COLUMN_NAME", T::S(64), NN),
                ("COLLATION", T::S(1), NULL),
                ("CARDINALITY", T::I, NULL),
                ("SUB_PART", T::I, NULL),
                ("PACKED", T::S(10), NULL),
                ("NULLABLE", T::S(3), NN),
                ("INDEX_TYPE", T::S(16), NN),
                ("COMMENT", T::S(16), NULL),
                ("INDEX_COMMENT", T::S(1024), NN),
                ("IGNORED", T::S(3), NN),
            ])
        }
        "KEY_COLUMN_USAGE" => {
            for t in base_tables(sess, None)? {
                let def = &t.entry.def;
                let keys = def
                    .primary_key
                    .iter()
                    .chain(def.secondary.iter().filter(|x| x.unique));
                for k in keys {
                    for (i, part) in k.columns.iter().enumerate() {
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&k.name),
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            s(&def.columns[part.column].name),
                            u(i as u64 + 1),
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            Value::Null,
                        ]);
                    }
                }
            }
            cols(&[
                ("CONSTRAINT_CATALOG", T::S(512), NN),
                ("CONSTRAINT_SCHEMA", T::S(64), NN),
                ("CONSTRAINT_NAME", T::S(64), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("COLUMN_NAME", T::S(64), NN),
                ("ORDINAL_POSITION", T::I, NN),
                ("POSITION_IN_UNIQUE_CONSTRAINT", T::I, NULL),
                ("REFERENCED_TABLE_SCHEMA", T::S(64), NULL),
                ("REFERENCED_TABLE_NAME", T::S(64), NULL),
                ("REFERENCED_COLUMN_NAME", T::S(64), NULL),
            ])
        }
        "TABLE_CONSTRAINTS" => {
            for t in base_tables(sess, None)? {
                let def = &t.entry.def;
                let keys = def.primary_key.iter().map(|p| (p, "PRIMARY KEY")).chain(
                    def.secondary
                        .iter()
                        .filter(|x| x.unique)
                        .map(|x| (x, "UNIQUE")),
                );
                for (k, kind) in keys {
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&k.name),
                        s(&t.db),
                        s(&t.name),
                        s(kind),
                    ]);
                }
            }
            cols(&[
                ("CONSTRAINT_CATALOG", T::S(512), NN),
                ("CONSTRAINT_SCHEMA", T::S(64), NN),
                ("CONSTRAINT_NAME", T::S(64), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("CONSTRAINT_TYPE", T::S(64), NN),
            ])
        }
        "PARTITIONS" => {
            for t in base_tables(sess, None)? {
                let mut r = vec![s("def"), s(&t.db), s(&t.name)];
                r.extend(std::iter::repeat_n(Value::Null, 9));
                r.extend([u(0), u(0), u(0), Value::Null, u(0), u(0)]);
                r.extend([Value::Null, Value::Null, Value::Null, Value::Null]);
                r.extend([s(""), Value::Null, Value::Null]);
                rows.push(r);
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("PARTITION_NAME", T::S(64), NULL),
                ("SUBPARTITION_NAME", T::S(64), NULL),
                ("PARTITION_ORDINAL_POSITION", T::U, NULL),
                ("SUBPARTITION_ORDINAL_POSITION", T::U, NULL),
                ("PARTITION_METHOD", T::S(18), NULL),
                ("SUBPARTITION_METHOD", T::S(12), NULL),
                ("PARTITION_EXPRESSION", T::L, NULL),
                ("SUBPARTITION_EXPRESSION", T::L, NULL),
                ("PARTITION_DESCRIPTION", T::L, NULL),
                ("TABLE_ROWS", T::U, NN),
                ("AVG_ROW_LENGTH", T::U, NN),
                ("DATA_LENGTH", T::U, NN),
                ("MAX_DATA_LENGTH", T::U, NULL),
                ("INDEX_LENGTH", T::U, NN),
                ("DATA_FREE", T::U, NN),
                ("CREATE_TIME", T::Dt, NULL),
                ("UPDATE_TIME", T::Dt, NULL),
                ("CHECK_TIME", T::Dt, NULL),
                ("CHECKSUM", T::U, NULL),
                ("PARTITION_COMMENT", T::S(80), NN),
                ("NODEGROUP", T::S(12), NULL),
                ("TABLESPACE_NAME", T::S(64), NULL),
            ])
        }
        "VIEWS" => cols(&[
            ("TABLE_CATALOG", T::S(512), NN),
            ("TABLE_SCHEMA", T::S(64), NN),
            ("TABLE_NAME", T::S(64), NN),
            ("VIEW_DEFINITION", T::L, NN),
            ("CHECK_OPTION", T::S(8), NN),
            ("IS_UPDATABLE", T::S(3), NN),
            ("DEFINER", T::S(384), NN),
            ("SECURITY_TYPE", T::S(7), NN),
            ("CHARACTER_SET_CLIENT", T::S(32), NN),
            ("COLLATION_CONNECTION", T::S(64), NN),
            ("ALGORITHM", T::S(10), NN),
        ]),
        "TRIGGERS" => cols(&[
            ("TRIGGER_CATALOG", T::S(512), NN),
            ("TRIGGER_SCHEMA", T::S(64), NN),
            ("TRIGGER_NAME", T::S(64), NN),
            ("EVENT_MANIPULATION", T::S(6), NN),
            ("EVENT_OBJECT_CATALOG", T::S(512), NN),
            ("EVENT_OBJECT_SCHEMA", T::S(64), NN),
            ("EVENT_OBJECT_TABLE", T::S(64), NN),
            ("ACTION_ORDER", T::I, NN),
            ("ACTION_CONDITION", T::L, NULL),
            ("ACTION_STATEMENT", T::L, NN),
            ("ACTION_ORIENTATION", T::S(9), NN),
            ("ACTION_TIMING", T::S(6), NN),
            ("ACTION_REFERENCE_OLD_TABLE", T::S(64), NULL),
            ("ACTION_REFERENCE_NEW_TABLE", T::S(64), NULL),
            ("ACTION_REFERENCE_OLD_ROW", T::S(3), NN),
            ("ACTION_REFERENCE_NEW_ROW", T::S(3), NN),
            ("CREATED", T::Dt, NULL),
            ("SQL_MODE", T::S(8192), NN),
            ("DEFINER", T::S(384), NN),
            ("CHARACTER_SET_CLIENT", T::S(32), NN),
            ("COLLATION_CONNECTION", T::S(64), NN),
            ("DATABASE_COLLATION", T::S(64), NN),
        ]),
        "ROUTINES" => cols(&[
            ("SPECIFIC_NAME", T::S(64), NN),
            ("ROUTINE_CATALOG", T::S(512), NN),
            ("ROUTINE_SCHEMA", T::S(64), NN),
            ("ROUTINE_NAME", T::S(64), NN),
            ("ROUTINE_TYPE", T::S(13), NN),
            ("DATA_TYPE", T::S(64), NN),
            ("CHARACTER_MAXIMUM_LENGTH", T::I, NULL),
            ("CHARACTER_OCTET_LENGTH", T::I, NULL),
            ("NUMERIC_PRECISION", T::U, NULL),
            ("NUMERIC_SCALE", T::U, NULL),
            ("DATETIME_PRECISION", T::U, NULL),
            ("CHARACTER_SET_NAME", T::S(64), NULL),
            ("COLLATION_NAME", T::S(64), NULL),
            ("DTD_IDENTIFIER", T::L, NULL),
            ("ROUTINE_BODY", T::S(8), NN),
            ("ROUTINE_DEFINITION", T::L, NULL),
            ("EXTERNAL_NAME", T::S(64), NULL),
            ("EXTERNAL_LANGUAGE", T::S(64), NULL),
            ("PARAMETER_STYLE", T::S(8), NN),
            ("IS_DETERMINISTIC", T::S(3), NN),
            ("SQL_DATA_ACCESS", T::S(64), NN),
            ("SQL_PATH", T::S(64), NULL),
            ("SECURITY_TYPE", T::S(7), NN),
            ("CREATED", T::Dt, NN),
            ("LAST_ALTERED", T::Dt, NN),
            ("SQL_MODE", T::S(8192), NN),
            ("ROUTINE_COMMENT", T::L, NN),
            ("DEFINER", T::S(384), NN),
            ("CHARACTER_SET_CLIENT", T::S(32), NN),
            ("COLLATION_CONNECTION", T::S(64), NN),
            ("DATABASE_COLLATION", T::S(64), NN),
        ]),
        "PARAMETERS" => cols(&[
            ("SPECIFIC_CATALOG", T::S(512), NN),
            ("SPECIFIC_SCHEMA", T::S(64), NN),
            ("SPECIFIC_NAME", T::S(64), NN),
            ("ORDINAL_POSITION", T::I, NN),
            ("PARAMETER_MODE", T::S(5), NULL),
            ("PARAMETER_NAME", T::S(64), NULL),
            ("DATA_TYPE", T::S(64), NN),
            ("CHARACTER_MAXIMUM_LENGTH", T::I, NULL),
            ("CHARACTER_OCTET_LENGTH", T::I, NULL),
            ("NUMERIC_PRECISION", T::U, NULL),
            ("NUMERIC_SCALE", T::I, NULL),
            ("DATETIME_PRECISION", T::U, NULL),
            ("CHARACTER_SET_NAME", T::S(64), NULL),
            ("COLLATION_NAME", T::S(64), NULL),
            ("DTD_IDENTIFIER", T::L, NN),
            ("ROUTINE_TYPE", T::S(9), NN),
        ]),
        "EVENTS" => cols(&[
            ("EVENT_CATALOG", T::S(64), NN),
            ("EVENT_SCHEMA", T::S(64), NN),
            ("EVENT_NAME", T::S(64), NN),
            ("DEFINER", T::S(384), NN),
            ("TIME_ZONE", T::S(64), NN),
            ("EVENT_BODY", T::S(8), NN),
            ("EVENT_DEFINITION", T::L, NN),
            ("EVENT_TYPE", T::S(9), NN),
            ("EXECUTE_AT", T::Dt, NULL),
            ("INTERVAL_VALUE", T::S(256), NULL),
            ("INTERVAL_FIELD", T::S(18), NULL),
            ("SQL_MODE", T::S(8192), NN),
            ("STARTS", T::Dt, NULL),
            ("ENDS", T::Dt, NULL),
            ("STATUS", T::S(18), NN),
            ("ON_COMPLETION", T::S(12), NN),
            ("CREATED", T::Dt, NN),
            ("LAST_ALTERED", T::Dt, NN),
            ("LAST_EXECUTED", T::Dt, NULL),
            ("EVENT_COMMENT", T::S(64), NN),
            ("ORIGINATOR", T::I, NN),
            ("CHARACTER_SET_CLIENT", T::S(32), NN),
            ("COLLATION_CONNECTION", T::S(64), NN),
            ("DATABASE_COLLATION", T::S(64), NN),
        ]),
        "FILES" => cols(&[
            ("FILE_ID", T::I, NN),
            ("FILE_NAME", T::S(512), NULL),
            ("FILE_TYPE", T::S(20), NN),
            ("TABLESPACE_NAME", T::S(64), NULL),
            ("TABLE_CATALOG", T::S(64), NN),
            ("TABLE_SCHEMA", T::S(64), NULL),
            ("TABLE_NAME", T::S(64), NULL),
            ("LOGFILE_GROUP_NAME", T::S(64), NULL),
            ("LOGFILE_GROUP_NUMBER", T::I, NULL),
            ("ENGINE", T::S(64), NN),
            ("FULLTEXT_KEYS", T::S(64), NULL),
            ("DELETED_ROWS", T::I, NULL),
            ("UPDATE_COUNT", T::I, NULL),
            ("FREE_EXTENTS", T::I, NULL),
            ("TOTAL_EXTENTS", T::I, NULL),
            ("EXTENT_SIZE", T::I, NN),
            ("INITIAL_SIZE", T::U, NULL),
            ("MAXIMUM_SIZE", T::U, NULL),
            ("AUTOEXTEND_SIZE", T::U, NULL),
            ("CREATION_TIME", T::Dt, NULL),
            ("LAST_UPDATE_TIME", T::Dt, NULL),
            ("LAST_ACCESS_TIME", T::Dt, NULL),
            ("RECOVER_TIME", T::I, NULL),
            ("TRANSACTION_COUNTER", T::I, NULL),
            ("VERSION", T::U, NULL),
            ("ROW_FORMAT", T::S(10), NULL),
            ("TABLE_ROWS", T::U, NULL),
            ("AVG_ROW_LENGTH", T::U, NULL),
            ("DATA_LENGTH", T::U, NULL),
            ("MAX_DATA_LENGTH", T::U, NULL),
            ("INDEX_LENGTH", T::U, NULL),
            ("DATA_FREE", T::U, NULL),
            ("CREATE_TIME", T::Dt, NULL),
            ("UPDATE_TIME", T::Dt, NULL),
            ("CHECK_TIME", T::Dt, NULL),
            ("CHECKSUM", T::U, NULL),
            ("STATUS", T::S(20), NN),
            ("EXTRA", T::S(255), NULL),
        ]),
        "REFERENTIAL_CONSTRAINTS" => cols(&[
            ("CONSTRAINT_CATALOG", T::S(512), NN),
            ("CONSTRAINT_SCHEMA", T::S(64), NN),
            ("CONSTRAINT_NAME", T::S(64), NN),
            ("UNIQUE_CONSTRAINT_CATALOG", T::S(512), NN),
            ("UNIQUE_CONSTRAINT_SCHEMA", T::S(64), NN),
            ("UNIQUE_CONSTRAINT_NAME", T::S(64), NULL),
            ("MATCH_OPTION", T::S(64), NN),
            ("UPDATE_RULE", T::S(64), NN),
            ("DELETE_RULE", T::S(64), NN),
            ("TABLE_NAME", T::S(64), NN),
            ("REFERENCED_TABLE_NAME", T::S(64), NN),
        ]),
        "CHECK_CONSTRAINTS" => cols(&[
            ("CONSTRAINT_CATALOG", T::S(512), NN),
            ("CONSTRAINT_SCHEMA", T::S(64), NN),
            ("TABLE_NAME", T::S(64), NN),
            ("CONSTRAINT_NAME", T::S(64), NN),
            ("LEVEL", T::S(6), NN),
            ("CHECK_CLAUSE", T::L, NN),
        ]),
        "SCHEMA_PRIVILEGES" => {
            rows = crate::privileges::info::rows(sess, crate::privileges::info::Kind::Schema);
            cols(&[
                ("GRANTEE", T::S(385), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("PRIVILEGE_TYPE", T::S(64), NN),
                ("IS_GRANTABLE", T::S(3), NN),
            ])
        }
        "TABLE_PRIVILEGES" => {
            rows = crate::privileges::info::rows(sess, crate::privileges::info::Kind::Table);
            cols(&[
                ("GRANTEE", T::S(385), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("PRIVILEGE_TYPE", T::S(64), NN),
                ("IS_GRANTABLE", T::S(3), NN),
            ])
        }
        "COLUMN_PRIVILEGES" => cols(&[
            ("GRANTEE", T::S(385), NN),
            ("TABLE_CATALOG", T::S(512), NN),
            ("TABLE_SCHEMA", T::S(64), NN),
            ("TABLE_NAME", T::S(64), NN),
            ("COLUMN_NAME", T::S(64), NN),
            ("PRIVILEGE_TYPE", T::S(64), NN),
            ("IS_GRANTABLE", T::S(3), NN),
        ]),
        "USER_PRIVILEGES" => {
            rows = crate::privileges::info::rows(sess, crate::privileges::info::Kind::User);
            cols(&[
                ("GRANTEE", T::S(385), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("PRIVILEGE_TYPE", T::S(64), NN),
                ("IS_GRANTABLE", T::S(3), NN),
            ])
        }
        "CHARACTER_SETS" => {
            for (name, coll, desc, maxlen) in CHARSETS {
                rows.push(vec![s(name), s(coll), s(desc), u(*maxlen)]);
            }
            cols(&[
                ("CHARACTER_SET_NAME", T::S(32), NN),
                ("DEFAULT_COLLATE_NAME", T::S(64), NN),
                ("DESCRIPTION", T::S(60), NN),
                ("MAXLEN", T::U, NN),
            ])
        }
        "COLLATIONS" => {
            for (name, cs, id, default, sortlen) in COLLATIONS {
                rows.push(vec![
                    s(name),
                    s(cs),
                    u(*id),
                    s(if *default { "Yes" } else { "" }),
                    s("Yes"),
                    u(*sortlen),
                ]);
            }
            cols(&[
                ("COLLATION_NAME", T::S(64), NN),
                ("CHARACTER_SET_NAME", T::S(32), NULL),
                ("ID", T::U, NULL),
                ("IS_DEFAULT", T::S(3), NULL),
                ("IS_COMPILED", T::S(3), NN),
                ("SORTLEN", T::U, NN),
            ])
        }
        "COLLATION_CHARACTER_SET_APPLICABILITY" => {
            for (name, cs, id, default, _) in COLLATIONS {
                rows.push(vec![
                    s(name),
                    s(cs),
                    s(name),
                    u(*id),
                    s(if *default { "Yes" } else { "" }),
                ]);
            }
            cols(&[
                ("COLLATION_NAME", T::S(64), NN),
                ("CHARACTER_SET_NAME", T::S(32), NN),
                ("FULL_COLLATION_NAME", T::S(64), NN),
                ("ID", T::U, NN),
                ("IS_DEFAULT", T::S(3), NN),
            ])
        }
        "ENGINES" => {
            for e in crate::exec::show::ENGINES {
                rows.push(e.iter().map(|v| s(v)).collect());
            }
            cols(&[
                ("ENGINE", T::S(64), NN),
                ("SUPPORT", T::S(8), NN),
                ("COMMENT", T::S(160), NN),
                ("TRANSACTIONS", T::S(3), NULL),
                ("XA", T::S(3), NULL),
                ("SAVEPOINTS", T::S(3), NULL),
            ])
        }
        "PLUGINS" => {
            for p in crate::exec::show::PLUGINS {
                rows.push(vec![
                    s(p.0),
                    s(p.1),
                    s("ACTIVE"),
                    s(p.2),
                    s(p.1),
                    Value::Null,
                    Value::Null,
                    s("Larch"),
                    s(p.3),
                    s("Apache-2.0"),
                    s(if p.2 == "STORAGE ENGINE" {
                        "FORCE"
                    } else {
                        "ON"
                    }),
                    s("Stable"),
                    s(p.1),
                ]);
            }
            cols(&[
                ("PLUGIN_NAME", T::S(64), NN),
                ("PLUGIN_VERSION", T::S(20), NN),
                ("PLUGIN_STATUS", T::S(16), NN),
                ("PLUGIN_TYPE", T::S(80), NN),
                ("PLUGIN_TYPE_VERSION", T::S(20), NN),
                ("PLUGIN_LIBRARY", T::S(64), NULL),
                ("PLUGIN_LIBRARY_VERSION", T::S(20), NULL),
                ("PLUGIN_AUTHOR", T::S(64), NULL),
                ("PLUGIN_DESCRIPTION", T::L, NULL),
                ("PLUGIN_LICENSE", T::S(80), NN),
                ("LOAD_OPTION", T::S(64), NN),
                ("PLUGIN_MATURITY", T::S(12), NN),
                ("PLUGIN_AUTH_VERSION", T::S(80), NULL),
            ])
        }
        "PROCESSLIST" => {
            let mut list = sess.db.processes();
            list.retain(|p| crate::privileges::check::sees_process(sess, p));
            list.sort_by_key(|p| p.id);
            for p in list {
                let st = p.state.lock().clone();
                let elapsed = st.since.map_or(0.0, |t| t.elapsed().as_secs_f64());
                rows.push(vec![
                    u(p.id),
                    s(&p.user),
                    s(&p.host),
                    st.db.map_or(Value::Null, Value::Str),
                    s(st.command),
                    Value::Int(elapsed as i64),
                    s(if st.command == "Query" {
                        "executing"
                    } else {
                        ""
                    }),
                    st.info.clone().map_or(Value::Null, Value::Str),
                    Value::Double((elapsed * 1_000_000.0).round() / 1000.0),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Double(0.0),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Int(0),
                    Value::Int(0),
                    u(0),
                    st.info
                        .map_or(Value::Null, |i| Value::Bytes(i.into_bytes())),
                    u(p.id),
                ]);
            }
            let mut c = cols(&[
                ("ID", T::U, NN),
                ("USER", T::S(128), NN),
                ("HOST", T::S(64), NN),
                ("DB", T::S(64), NULL),
                ("COMMAND", T::S(16), NN),
                ("TIME", T::I, NN),
                ("STATE", T::S(64), NULL),
                ("INFO", T::L, NULL),
                ("TIME_MS", T::D, NN),
                ("STAGE", T::I, NN),
                ("MAX_STAGE", T::I, NN),
                ("PROGRESS", T::D, NN),
                ("MEMORY_USED", T::I, NN),
                ("MAX_MEMORY_USED", T::I, NN),
                ("EXAMINED_ROWS", T::I, NN),
                ("SENT_ROWS", T::I, NN),
                ("QUERY_ID", T::U, NN),
            ]);
            c.push(ResultColumn::computed(
                "INFO_BINARY",
                ColumnType::Blob {
                    kind: LobKind::Text,
                },
                true,
            ));
            c.extend(cols(&[("TID", T::U, NN)]));
            c
        }
        "GLOBAL_VARIABLES" | "SESSION_VARIABLES" => {
            let global = upper == "GLOBAL_VARIABLES";
            for def in variables::all() {
                if global && def.scope == variables::Scope::Session {
                    continue;
                }
                let v = if global {
                    sess.db.global_value(def)
                } else {
                    sess.var(def)
                };
                rows.push(vec![
                    s(&def.name.to_ascii_uppercase()),
                    crate::exec::show::shown(def, v),
                ]);
            }
            cols(&[
                ("VARIABLE_NAME", T::S(64), NN),
                ("VARIABLE_VALUE", T::S(2048), NN),
            ])
        }
        "GLOBAL_STATUS" | "SESSION_STATUS" => {
            for (name, value) in crate::exec::show::status_list(sess) {
                rows.push(vec![s(&name.to_ascii_uppercase()), Value::Str(value)]);
            }
            cols(&[
                ("VARIABLE_NAME", T::S(64), NN),
                ("VARIABLE_VALUE", T::S(2048), NN),
            ])
        }
        super::system_variables::NAME => return Ok(super::system_variables::table(sess)),
        n if super::innodb_tables::NAMES.contains(&n) => {
            return super::innodb_tables::table(sess, n);
        }
        _ => {
            return Err(SqlError::new(
                1109,
                format!("Unknown table '{name}' in information_schema"),
            ))
        }
    };
    Ok(RowSet { columns, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_lengths_follow_the_type() {
        for w in TABLE_NAMES.windows(2) {
            assert!(w[0] < w[1], "{} before {}", w[0], w[1]);
        }
        let vc = ColumnType::Varchar {
            max_len: 10,
            collation: Collation::Utf8mb4GeneralCi,
        };
        assert_eq!(type_lengths(&vc)[..2], [Some(10), Some(40)]);
        let dec = ColumnType::Decimal {
            precision: 12,
            scale: 4,
        };
        assert_eq!(type_lengths(&dec)[2..4], [Some(12), Some(4)]);
        let set = ColumnType::Set {
            values: vec!["red".into(), "green".into()],
        };
        assert_eq!(type_lengths(&set)[0], Some(9));
    }
}
