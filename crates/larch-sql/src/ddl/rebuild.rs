//! Applying a new definition to an existing table: in place when only the
//! SQL metadata (defaults, comments, FULLTEXT keys...) or the name changes,
//! by an index build when only secondary indexes change
//! (`ddl::index_change`), otherwise by a copying rebuild.
//!
//! A rebuild creates the new table under a temporary name (`#sql-alter-N`,
//! in the target database), copies every row converting values with the
//! store rules (`crate::value::store`: strict errors or non-strict warnings;
//! a NULL into a NOT NULL column is 1138 in strict mode; new columns get
//! their DEFAULT, their implicit default, or AUTO_INCREMENT values), then
//! swaps: the old table is dropped and the new one takes the final name, in
//! one step ([`Catalog::replace_table`]). If the copy fails (a duplicate key
//! while adding a UNIQUE index is 1062, a value that does not convert), the
//! temporary table is dropped and the original is untouched.
//!
//! Crash safety: the temporary table is a scratch table of the catalog
//! ([`Catalog::create_scratch_table`]), which the engine's DDL log drops at
//! the next start if a crash comes before the swap; the swap itself is
//! logged and completed at the next start if a crash interrupts it. A crash
//! therefore leaves the old table (and no `#sql-` table) or the new one.
//!
//! Concurrency: DDL is serialized by the database's `ddl_lock`, and the
//! statement holds the table's exclusive metadata lock for the whole copy,
//! so no other session reads or writes it meanwhile.
//!
//! Generated columns (`ddl::generated`): every copied row gets its
//! generated values computed again from the new definition, and a change
//! of a generation expression alone rebuilds the table.
//!
//! CHECK constraints: rows are copied through the new definition's
//! constraints (`ddl::check`), and when only a constraint was added the rows
//! in place are checked; a row that fails ends the ALTER with 4025.

use std::sync::atomic::{AtomicU64, Ordering};

use larch_engine::catalog::{Catalog, TableEntry};
use larch_engine::record::value::{ColumnType, Date, DateTime, Decimal, Timestamp, Value};
use larch_engine::table::{
    ColumnDef, KeyRange, ReadContext, RowCursor, Table, TableDef, TxnContext, CLUSTERED,
};

use super::check::Checks;
use super::defaults::ColumnDefaults;
use super::generated::GeneratedColumns;
use super::meta::TableMeta;
use super::work::Finished;
use crate::error::{SqlError, Warning};
use crate::session::Session;
use crate::value::{set_text, store, store_fixed_real, StoreTarget};

/// Numbers of temporary table names.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(1);

/// What applying a definition did.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Applied {
    /// Rows copied by a rebuild (0 in place).
    pub rows: u64,
    pub warnings: u64,
}

/// A free temporary table name `#sql-<kind>-N` (behind
/// [`crate::session::temporary::HIDDEN_TABLE_PREFIX`]) in `db`.
pub(super) fn temp_name(catalog: &Catalog, db: &str, kind: &str) -> String {
    loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!(
            "{}{kind}-{n}",
            crate::session::temporary::HIDDEN_TABLE_PREFIX
        );
        if catalog.table_entry(db, &name).is_none() {
            return name;
        }
    }
}

/// Applies `fin` to table `db.name` (whose entry is `old`), which ends up as
/// `to` (database, name). `force` rebuilds even when nothing changed;
/// `auto_increment` raises the counter (`AUTO_INCREMENT=n`).
pub(super) fn apply(
    s: &mut Session,
    (db, name): (&str, &str),
    old: &TableEntry,
    fin: &Finished,
    to: (&str, &str),
    force: bool,
    auto_increment: Option<u64>,
    sharing: super::index_change::Sharing<'_, '_>,
) -> Result<Applied, SqlError> {
    let database = s.db.clone();
    let catalog = database.catalog();
    let mut same = fin.def.clone();
    same.name = old.def.name.clone();
    let old_meta = TableMeta::decode(&old.sql_meta, &old.def)?;
    let new_checks = adds_checks(&old_meta, &fin.meta);
    let how = method(old, fin, force)?;
    if how == Method::Metadata {
        if new_checks {
            verify_rows(s, &*catalog.table(db, name)?, fin, to)?;
        }
        if (db, name) != to {
            crate::exec::trigger::check_rename(s, (db, name), to)?;
            catalog.rename_table(db, name, to.0, to.1)?;
            crate::exec::trigger::table_renamed(s, (db, name), to)?;
        }
        let bytes = fin.meta.encode();
        if bytes != old.sql_meta {
            catalog.set_table_meta(to.0, to.1, &bytes)?;
        }
        if let Some(n) = auto_increment {
            let t = catalog.table(to.0, to.1)?;
            if t.auto_increment_next().is_some() {
                t.raise_auto_increment(n)?;
            }
        }
        return Ok(Applied::default());
    }
    if let Method::Indexes(_) = how {
        if new_checks {
            verify_rows(s, &*catalog.table(db, name)?, fin, to)?;
        }
        super::index_change::apply(s, (db, name), &same, &fin.meta.encode(), sharing)?;
        if (db, name) != to {
            crate::exec::trigger::check_rename(s, (db, name), to)?;
            catalog.rename_table(db, name, to.0, to.1)?;
            crate::exec::trigger::table_renamed(s, (db, name), to)?;
        }
        if let Some(n) = auto_increment {
            let t = catalog.table(to.0, to.1)?;
            if t.auto_increment_next().is_some() {
                t.raise_auto_increment(n)?;
            }
        }
        return Ok(Applied::default());
    }
    let old_table = catalog.table(db, name)?;
    let tmp = temp_name(catalog, to.0, "alter");
    let mut def = fin.def.clone();
    def.name = tmp.clone();
    let new_table = catalog.create_scratch_table(to.0, def, &fin.meta.encode())?;
    let copied = copy_rows(s, &old_table, &new_table, old, fin, to);
    let applied = match copied.and_then(|a| {
        raise_counter(&old_table, &new_table, auto_increment)?;
        index_fulltext(s, to.0, &tmp)?;
        Ok(a)
    }) {
        Ok(a) => a,
        Err(e) => {
            drop(new_table);
            if let Err(d) = catalog.drop_table(to.0, &tmp) {
                tracing::warn!(error = %d, table = %tmp, "could not drop the temporary table of a failed ALTER TABLE");
            }
            return Err(e);
        }
    };
    drop(new_table);
    drop(old_table);
    catalog.replace_table((db, name), (to.0, &tmp), to.1)?;
    if (db, name) != to {
        crate::exec::trigger::table_renamed(s, (db, name), to)?;
    }
    Ok(applied)
}

/// How a new definition is applied to a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// Only the SQL metadata or the name changes.
    Metadata,
    /// Only secondary indexes change (or AUTO_INCREMENT goes): in place.
    Indexes(super::index_change::IndexWork),
    /// The rows are copied into a rebuilt table.
    Copy,
}

/// How `fin` is applied to the table `old` (`force`: ALTER ... FORCE,
/// ENGINE=, ALGORITHM=COPY).
pub(super) fn method(old: &TableEntry, fin: &Finished, force: bool) -> Result<Method, SqlError> {
    let identity = fin.origin.len() == old.def.columns.len()
        && fin.origin.iter().enumerate().all(|(i, o)| *o == Some(i));
    let mut same = fin.def.clone();
    same.name = old.def.name.clone();
    let old_meta = TableMeta::decode(&old.sql_meta, &old.def)?;
    let regenerate = super::generated::generation_changed(&old_meta, &fin.meta);
    // A FLOAT/DOUBLE column given (M,D), or narrower ones, or UNSIGNED:
    // stored values must be rounded and bounded again.
    let refit = fin
        .meta
        .columns
        .iter()
        .zip(&old_meta.columns)
        .any(|(new, old)| {
            (new.precision.is_some() && new.precision != old.precision)
                || (new.unsigned && !old.unsigned)
        });
    if !identity || force || regenerate || refit {
        return Ok(Method::Copy);
    }
    if same == old.def {
        return Ok(Method::Metadata);
    }
    Ok(match super::index_change::index_work(&old.def, &same) {
        Some(work) => Method::Indexes(work),
        None => Method::Copy,
    })
}

/// Indexes the copied rows of the new table `db.tmp` in its FULLTEXT
/// indexes (the copy wrote them without the full-text bookkeeping).
fn index_fulltext(s: &Session, db: &str, tmp: &str) -> Result<(), SqlError> {
    let Some(ft) = s.db.catalog().table_fulltext(db, tmp)? else {
        return Ok(());
    };
    let threads = usize::try_from(s.int_var("innodb_ft_sort_pll_degree"))
        .unwrap_or(2)
        .max(1);
    let kill = s.process.kill_query.clone();
    ft.index_existing_rows(threads, &move || kill.load(Ordering::SeqCst))?;
    Ok(())
}

fn raise_counter(old: &Table, new: &Table, explicit: Option<u64>) -> Result<(), SqlError> {
    if new.auto_increment_next().is_none() {
        return Ok(());
    }
    if let Some(n) = old.auto_increment_next() {
        new.raise_auto_increment(n)?;
    }
    if let Some(n) = explicit {
        new.raise_auto_increment(n)?;
    }
    Ok(())
}

/// Copies every row of `old` into `new`, converting values.
fn copy_rows(
    s: &mut Session,
    old: &Table,
    new: &Table,
    entry: &TableEntry,
    fin: &Finished,
    to: (&str, &str),
) -> Result<Applied, SqlError> {
    let strict = s.strict();
    let cols = &fin.def.columns;
    let defaults = ColumnDefaults::compile(&fin.def, &fin.meta)?;
    let mut fills = Vec::with_capacity(cols.len());
    // New columns whose DEFAULT reads the row: filled per row.
    let mut reading = Vec::new();
    for i in 0..cols.len() {
        fills.push(match fin.origin[i] {
            Some(_) => Value::Null,
            None if defaults.reads_row(i) => {
                reading.push(i);
                Value::Null
            }
            None => fill_value(s, &defaults, &fin.def, i)?,
        });
    }
    let auto = fin.def.auto_increment;
    let renumber = auto.is_some_and(|a| match fin.origin[a] {
        Some(o) => entry.def.auto_increment != Some(o),
        None => true,
    });
    let mut warnings: Vec<Warning> = Vec::new();
    let checks = Checks::compile(s, to.0, to.1, &fin.def, &fin.meta)?;
    // FLOAT(M,D) / DOUBLE(M,D) columns: copied values are rounded and
    // bounded as an INSERT would.
    let fixed: Vec<Option<(u32, u32)>> = cols
        .iter()
        .zip(&fin.meta.columns)
        .map(|(c, m)| m.fixed_real(&c.ty))
        .collect();
    let unsigned: Vec<bool> = fin.meta.columns.iter().map(|m| m.unsigned).collect();
    let generated = GeneratedColumns::compile(s, &fin.def, &fin.meta)?;
    let mut rows = 0u64;
    let mut cursor = newest_rows(old)?;
    while let Some((_, row)) = cursor.next_row()? {
        if s.process.kill_query.load(Ordering::SeqCst) {
            return Err(SqlError::new(
                crate::error::code::QUERY_INTERRUPTED,
                "Query execution was interrupted",
            ));
        }
        rows += 1;
        // Where a value of column `c` goes, for errors and warnings.
        let target = |c: usize| StoreTarget {
            db: to.0,
            table: to.1,
            column: &cols[c].name,
            row: rows,
            strict,
        };
        let mut out = Vec::with_capacity(cols.len());
        for (i, c) in cols.iter().enumerate() {
            out.push(match (fin.origin[i], fixed[i]) {
                (Some(o), Some(p)) if !row[o].is_null() => {
                    let float = c.ty == ColumnType::Float;
                    store_fixed_real(&row[o], float, p, unsigned[i], &target(i), &mut warnings)?
                }
                (Some(o), _) => {
                    convert(&row[o], &entry.def.columns[o], c, &target(i), &mut warnings)?
                }
                (None, _) => fills[i].clone(),
            });
        }
        for &i in &reading {
            let v = defaults
                .evaluate(s, &fin.def, i, &out, &mut warnings)?
                .unwrap_or(Value::Null);
            out[i] = if v.is_null() {
                // As a copied NULL going into the column.
                convert(&v, &cols[i], &cols[i], &target(i), &mut warnings)?
            } else {
                store(&v, &cols[i].ty, &target(i), &mut warnings)?
            };
        }
        generated.fill(s, &fin.def, &mut out, &mut warnings, |c, v, warnings| {
            if v.is_null() {
                return Ok(Value::Null);
            }
            store(v, &cols[c].ty, &target(c), warnings)
        })?;
        if !checks.verify(s, &fin.def, &out, false, &mut warnings)? {
            continue;
        }
        if let (Some(a), true) = (auto, renumber) {
            if matches!(out[a], Value::Null | Value::Int(0) | Value::UInt(0)) {
                let n = new.allocate_auto_increment(1)?;
                out[a] = match cols[a].ty {
                    ColumnType::Int { unsigned: true, .. } => Value::UInt(n),
                    _ => Value::Int(i64::try_from(n).unwrap_or(i64::MAX)),
                };
            }
        }
        new.insert(&mut TxnContext::internal(), &out)?;
    }
    let applied = Applied {
        rows,
        warnings: warnings.len() as u64,
    };
    for w in warnings {
        s.push_warning(w);
    }
    Ok(applied)
}

/// Every row of `table` in its newest version, in primary key order.
fn newest_rows(table: &Table) -> Result<RowCursor<'_>, SqlError> {
    Ok(table.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?)
}

/// True when `new` has a CHECK constraint `old` lacks (the rows already in
/// the table must then pass it).
fn adds_checks(old: &TableMeta, new: &TableMeta) -> bool {
    let column_checks = |m: &TableMeta| -> Vec<String> {
        m.columns.iter().filter_map(|c| c.check.clone()).collect()
    };
    let old_columns = column_checks(old);
    new.checks.iter().any(|c| !old.checks.contains(c))
        || column_checks(new).iter().any(|c| !old_columns.contains(c))
}

/// Checks every row of `table` (whose columns are unchanged) against the
/// constraints of `fin` (4025 for the first that fails).
fn verify_rows(
    s: &Session,
    table: &Table,
    fin: &Finished,
    to: (&str, &str),
) -> Result<(), SqlError> {
    let checks = Checks::compile(s, to.0, to.1, &fin.def, &fin.meta)?;
    let mut warnings = Vec::new();
    let mut cursor = newest_rows(table)?;
    while let Some((_, row)) = cursor.next_row()? {
        checks.verify(s, &fin.def, &row, false, &mut warnings)?;
    }
    Ok(())
}

/// One value of a copied row, converted to the new column.
fn convert(
    v: &Value,
    from: &ColumnDef,
    to: &ColumnDef,
    target: &StoreTarget<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<Value, SqlError> {
    if v.is_null() {
        if to.nullable {
            return Ok(Value::Null);
        }
        if target.strict {
            return Err(SqlError::new(1138, "Invalid use of NULL value"));
        }
        warnings.push(Warning::warn(
            1265,
            format!(
                "Data truncated for column '{}' at row {}",
                target.column, target.row
            ),
        ));
        return Ok(implicit_default(&to.ty));
    }
    if from.ty == to.ty {
        return Ok(v.clone());
    }
    let as_text = match (v, &from.ty) {
        (Value::Enum(i), ColumnType::Enum { values, .. }) => Some(Value::Str(
            usize::from(*i)
                .checked_sub(1)
                .and_then(|k| values.get(k))
                .cloned()
                .unwrap_or_default(),
        )),
        (Value::Set(bits), ColumnType::Set { values, .. }) => {
            Some(Value::Str(set_text(*bits, values)))
        }
        _ => None,
    };
    store(as_text.as_ref().unwrap_or(v), &to.ty, target, warnings)
}

/// The value a new column gets in existing rows: its DEFAULT, NULL, or the
/// implicit default of a NOT NULL column without one (0, '', the zero date,
/// the first ENUM member...). AUTO_INCREMENT columns are numbered later; a
/// DEFAULT that reads the row is evaluated per row.
fn fill_value(
    s: &Session,
    defaults: &ColumnDefaults,
    def: &TableDef,
    i: usize,
) -> Result<Value, SqlError> {
    let c = &def.columns[i];
    let mut ignored = Vec::new();
    match defaults.evaluate(s, def, i, &[], &mut ignored)? {
        Some(v) if !v.is_null() => {
            let target = StoreTarget {
                db: "",
                table: "",
                column: &c.name,
                row: 1,
                strict: false,
            };
            store(&v, &c.ty, &target, &mut ignored)
        }
        _ if c.nullable => Ok(Value::Null),
        _ => Ok(implicit_default(&c.ty)),
    }
}

/// MySQL's implicit default of a NOT NULL column.
pub(super) fn implicit_default(ty: &ColumnType) -> Value {
    match ty {
        ColumnType::Int { unsigned: true, .. } => Value::UInt(0),
        ColumnType::Int { .. } => Value::Int(0),
        ColumnType::Decimal { .. } => Value::Decimal(Decimal::zero()),
        ColumnType::Float => Value::Float(0.0),
        ColumnType::Double => Value::Double(0.0),
        ColumnType::Date => Value::Date(Date::default()),
        ColumnType::Time { .. } => Value::Time(0),
        ColumnType::Datetime { .. } => Value::Datetime(DateTime::default()),
        ColumnType::Timestamp { .. } => Value::Timestamp(Timestamp::default()),
        ColumnType::Year => Value::Year(0),
        ColumnType::Enum { .. } => Value::Enum(1),
        ColumnType::Set { .. } => Value::Set(0),
        ColumnType::Bit { .. } => Value::Bit(0),
        t if t.is_binary_string() => Value::Bytes(Vec::new()),
        _ => Value::Str(String::new()),
    }
}
