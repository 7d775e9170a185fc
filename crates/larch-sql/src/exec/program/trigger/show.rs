//! SHOW TRIGGERS, SHOW CREATE TRIGGER and the rows of
//! INFORMATION_SCHEMA.TRIGGERS, in MariaDB's layouts.
//!
//! Listing order (SHOW TRIGGERS and INFORMATION_SCHEMA): by database and
//! table, then event (INSERT, UPDATE, DELETE), timing (BEFORE, AFTER) and
//! firing order; ACTION_ORDER is the 1-based position among the table's
//! triggers of the same event and timing. SHOW CREATE TRIGGER prints
//! `CREATE DEFINER=`user`@`host` ` and the statement as written from its
//! TRIGGER keyword (without FOLLOWS/PRECEDES); `Created` has two fractional
//! digits.

use larch_engine::catalog::TriggerEntry;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::super::head::{create_definer_clause, definer_text, Context};
use super::super::show_filter::ShowFilter;
use super::{does_not_exist, name_of, TriggerDef};
use crate::error::SqlError;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// The creation time as MariaDB keeps it (hundredths of a second).
fn created(micros: i64) -> Option<larch_engine::record::value::DateTime> {
    crate::value::temporal::datetime_from_micros(micros - micros.rem_euclid(10_000))
}

fn created_text(micros: i64) -> String {
    created(micros)
        .map(|dt| crate::value::format_datetime(&dt, 2))
        .unwrap_or_default()
}

/// The triggers of `schema` (or of every database) the session may see,
/// decoded, in listing order, each with its ACTION_ORDER.
fn listing(
    s: &Session,
    schema: Option<&str>,
) -> Result<Vec<(TriggerEntry, TriggerDef, u64)>, SqlError> {
    let mut out = Vec::new();
    for e in s.db.catalog().triggers(schema) {
        if !crate::privileges::check::sees_database(s, &e.schema) {
            continue;
        }
        let d = TriggerDef::decode(&e.definition)?;
        out.push((e, d, 0));
    }
    out.sort_by(|(a, x, _), (b, y, _)| {
        (&a.schema, &a.table, x.event, x.timing, x.order)
            .cmp(&(&b.schema, &b.table, y.event, y.timing, y.order))
    });
    let mut n = 0;
    let mut prev = None;
    for (e, d, order) in &mut out {
        let key = (e.schema.clone(), e.table.clone(), d.event, d.timing);
        n = if prev.as_ref() == Some(&key) {
            n + 1
        } else {
            1
        };
        *order = n;
        prev = Some(key);
    }
    Ok(out)
}

/// SHOW CREATE TRIGGER name.
pub(super) fn show_create(s: &Session, name: &ast::ObjectName) -> Result<QueryResult, SqlError> {
    let (db, n) = name_of(s, name)?;
    let Some(e) = s.db.catalog().trigger(&db, &n) else {
        return Err(does_not_exist());
    };
    let d = TriggerDef::decode(&e.definition)?;
    let statement = format!("{} {}", create_definer_clause(&d.definer), d.text);
    let mut columns = vec![
        ResultColumn::text("Trigger", 64, false),
        ResultColumn::text("sql_mode", 8192, false),
        ResultColumn::text("SQL Original Statement", 1024, false),
    ];
    columns.extend(Context::columns());
    columns.push(ResultColumn::computed(
        "Created",
        ColumnType::Datetime { fsp: 2 },
        true,
    ));
    let mut row = vec![
        Value::Str(e.name.clone()),
        Value::Str(d.context.sql_mode.clone()),
        Value::Str(statement),
    ];
    row.extend(d.context.values());
    row.push(created(d.created).map_or(Value::Null, Value::Datetime));
    Ok(QueryResult::Rows(RowSet {
        columns,
        rows: vec![row],
    }))
}

/// SHOW TRIGGERS [FROM db] [LIKE 'table pattern' | WHERE expr].
pub(super) fn show_triggers(
    s: &Session,
    db: Option<&str>,
    like: Option<&str>,
    filter: Option<&ast::Expr>,
) -> Result<QueryResult, SqlError> {
    let db = match db.map(str::to_string).or_else(|| s.current_db.clone()) {
        Some(d) => d,
        None => return Err(SqlError::new(1046, "No database selected")),
    };
    if !s.db.catalog().has_database(&db) {
        return Err(SqlError::new(1049, format!("Unknown database '{db}'")));
    }
    let columns: Vec<ResultColumn> = crate::exec::show::TRIGGER_COLUMNS
        .iter()
        .map(|n| match *n {
            "Created" => ResultColumn::computed(*n, ColumnType::Datetime { fsp: 2 }, true),
            "Statement" | "sql_mode" => ResultColumn::text(*n, 8192, false),
            _ => ResultColumn::text(*n, 64, false),
        })
        .collect();
    let show = ShowFilter::new(crate::exec::show::TRIGGER_COLUMNS, like, filter)?;
    let mut rows = Vec::new();
    for (e, d, _) in listing(s, Some(&db))? {
        if !show.name_matches(&e.table) {
            continue;
        }
        let mut row = vec![
            Value::Str(e.name.clone()),
            Value::Str(d.event.word().into()),
            Value::Str(e.table.clone()),
            Value::Str(d.body().to_string()),
            Value::Str(d.timing.word().into()),
            created(d.created).map_or(Value::Null, Value::Datetime),
            Value::Str(d.context.sql_mode.clone()),
            Value::Str(definer_text(&d.definer)),
        ];
        row.extend(d.context.values());
        let mut probe = row.clone();
        probe[5] = Value::Str(created_text(d.created));
        if show.row_matches(s, &probe)? {
            rows.push(row);
        }
    }
    Ok(QueryResult::Rows(RowSet { columns, rows }))
}

/// The rows of INFORMATION_SCHEMA.TRIGGERS.
pub(crate) fn information_schema_rows(
    s: &Session,
    rows: &mut Vec<Vec<Value>>,
) -> Result<(), SqlError> {
    let text = |v: &str| Value::Str(v.to_string());
    for (e, d, order) in listing(s, None)? {
        rows.push(vec![
            text("def"),
            text(&e.schema),
            text(&e.name),
            text(d.event.word()),
            text("def"),
            text(&e.schema),
            text(&e.table),
            Value::Int(order as i64),
            Value::Null,
            text(d.body()),
            text("ROW"),
            text(d.timing.word()),
            Value::Null,
            Value::Null,
            text("OLD"),
            text("NEW"),
            created(d.created).map_or(Value::Null, Value::Datetime),
            text(&d.context.sql_mode),
            text(&definer_text(&d.definer)),
            text(&d.context.charset_client),
            text(&d.context.collation_connection),
            text(&d.context.db_collation),
        ]);
    }
    Ok(())
}
