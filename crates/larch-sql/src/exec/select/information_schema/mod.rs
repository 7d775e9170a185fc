//! INFORMATION_SCHEMA tables, built on demand from the catalog, the
//! variables, the status counters and the process list, with MariaDB
//! 10.11's columns (names, order, types and nullability).
//!
//! - From the catalog: SCHEMATA, TABLES, COLUMNS, STATISTICS,
//!   KEY_COLUMN_USAGE, TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS,
//!   PARTITIONS (one row per table with
//!   NULL partition fields, as for a table without partitions);
//! - from the server: ENGINES, PLUGINS, CHARACTER_SETS, COLLATIONS,
//!   COLLATION_CHARACTER_SET_APPLICABILITY, PROCESSLIST, GLOBAL_VARIABLES,
//!   SESSION_VARIABLES, GLOBAL_STATUS, SESSION_STATUS, USER_PRIVILEGES,
//!   SYSTEM_VARIABLES (in `super::system_variables`);
//! - from the engine's transactions and row locks: INNODB_TRX, INNODB_LOCKS,
//!   INNODB_LOCK_WAITS (in `super::innodb_tables`);
//! - views (`views`): VIEWS, and their rows in TABLES and COLUMNS;
//! - objects Larch does not have yet, so always empty: TRIGGERS,
//!   ROUTINES, PARAMETERS, EVENTS, FILES, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES,
//!   COLUMN_PRIVILEGES.
//!
//! Table names are case-insensitive here, as in MySQL. `TABLES` lists these
//! tables too, as `SYSTEM VIEW`s of `information_schema`.

mod absent;
mod columns;
mod keys;
mod routines;
mod server;
mod triggers;
mod views;

use larch_engine::catalog::TableEntry;
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};

use crate::ddl::TableMeta;
use crate::error::SqlError;
use crate::result::{ResultColumn, RowSet};
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
    "INNODB_FT_BEING_DELETED",
    "INNODB_FT_CONFIG",
    "INNODB_FT_DEFAULT_STOPWORD",
    "INNODB_FT_DELETED",
    "INNODB_FT_INDEX_CACHE",
    "INNODB_FT_INDEX_TABLE",
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
    /// TABLE_ROWS, AVG_ROW_LENGTH, DATA_LENGTH, MAX_DATA_LENGTH, INDEX_LENGTH
    /// and DATA_FREE as InnoDB reports them: the row estimate, the pages of
    /// the clustered index and of the secondary indexes, and the free
    /// extents of the tablespace, in bytes. All 0 when the table cannot be
    /// opened (SHOW TABLE STATUS still lists it).
    pub(crate) fn size_figures(&self, sess: &Session) -> [Value; 6] {
        let page = u64::from(sess.db.storage().page_size().get());
        let stats = sess
            .db
            .catalog()
            .table(&self.db, &self.name)
            .ok()
            .and_then(|t| t.statistics().ok());
        let Some(st) = stats else {
            return [u(0), u(0), u(0), u(0), u(0), u(0)];
        };
        let data = st.clustered_pages * page;
        let avg = data.checked_div(st.rows).unwrap_or(0);
        [
            u(st.rows),
            u(avg),
            u(data),
            u(0),
            u(st.secondary_pages * page),
            u(st.free_pages * page),
        ]
    }

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
    ("latin1_german1_ci", "latin1", 5, false, 1),
    ("latin1_danish_ci", "latin1", 15, false, 1),
    ("latin1_general_ci", "latin1", 48, false, 1),
    ("latin1_general_cs", "latin1", 49, false, 1),
    ("latin1_spanish_ci", "latin1", 94, false, 1),
    ("utf8mb3_general_ci", "utf8mb3", 33, true, 1),
    ("utf8mb3_bin", "utf8mb3", 83, false, 1),
    ("utf8mb3_unicode_ci", "utf8mb3", 192, false, 8),
    ("utf8mb3_swedish_ci", "utf8mb3", 200, false, 8),
    ("utf8mb3_esperanto_ci", "utf8mb3", 209, false, 8),
    ("utf8mb4_general_ci", "utf8mb4", 45, true, 1),
    ("utf8mb4_bin", "utf8mb4", 46, false, 1),
    ("utf8mb4_unicode_ci", "utf8mb4", 224, false, 8),
    ("utf8mb4_swedish_ci", "utf8mb4", 232, false, 8),
    ("utf8mb4_esperanto_ci", "utf8mb4", 241, false, 8),
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

/// The rows of SHOW TABLE STATUS for `db` (figures Larch does not keep,
/// such as CREATE_TIME and CHECKSUM, are NULL as InnoDB leaves them).
pub(crate) fn table_status_rows(sess: &Session, db: &str) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut rows = Vec::new();
    for t in base_tables(sess, Some(db))? {
        let (row_format, auto, options, comment) = table_facts(sess, &t);
        let mut r = vec![s(&t.name), s(&t.meta.engine), u(10), s(&row_format)];
        r.extend(t.size_figures(sess));
        r.extend([
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
        rows.push(r);
    }
    rows.extend(views::status_rows(sess, db));
    rows.sort_by(|a, b| match (a.first(), b.first()) {
        (Some(Value::Str(x)), Some(Value::Str(y))) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    });
    Ok(rows)
}

/// The rows of `information_schema.<name>`.
pub(crate) fn table(sess: &Session, name: &str) -> Result<RowSet, SqlError> {
    let upper = name.to_ascii_uppercase();
    let mut rows = Vec::new();
    if upper == "VIEWS" {
        let columns = views::views_table(sess, &mut rows)?;
        return Ok(RowSet { columns, rows });
    }
    for part in [
        columns::table,
        keys::table,
        routines::table,
        triggers::table,
        absent::table,
        server::table,
    ] {
        if let Some(columns) = part(sess, &upper, &mut rows)? {
            return Ok(RowSet { columns, rows });
        }
    }
    match upper.as_str() {
        super::system_variables::NAME => Ok(super::system_variables::table(sess)),
        n if super::innodb_tables::NAMES.contains(&n)
            || super::innodb_tables::FULLTEXT_NAMES.contains(&n) =>
        {
            super::innodb_tables::table(sess, n)
        }
        _ => Err(SqlError::new(
            1109,
            format!("Unknown table '{name}' in information_schema"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::columns::type_lengths;
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
            collation: Collation::Utf8mb4GeneralCi,
        };
        assert_eq!(type_lengths(&set)[0], Some(9));
    }
}
