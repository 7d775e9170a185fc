//! Triggers: CREATE / DROP TRIGGER, SHOW TRIGGERS, SHOW CREATE TRIGGER,
//! INFORMATION_SCHEMA.TRIGGERS, and firing them from the write paths.
//!
//! - `def`: the dictionary definition and the parsed-body cache;
//! - `fire`: the triggers of a statement's table, firing them for a row,
//!   `NEW` / `OLD`, nested statements;
//! - `show`: SHOW TRIGGERS, SHOW CREATE TRIGGER, INFORMATION_SCHEMA rows.
//!
//! A trigger belongs to a table of its own database (the table is looked
//! up in the trigger's database; naming another is 1435). Triggers of one
//! table, timing and event fire in their order key's order: a new trigger
//! goes last, `FOLLOWS x` right after `x`, `PRECEDES x` right before it
//! (4031 when `x` is no trigger of the same table, timing and event); the
//! keys leave gaps, and the group is renumbered when a gap is used up.
//! CREATE and DROP TRIGGER need the TRIGGER privilege on the table.
//! A trigger's statements run as its definer's account, which must exist
//! (1449; a note when the trigger is created) and have the TRIGGER
//! privilege on the table (1142) when it fires; CURRENT_USER() inside
//! shows the definer.

mod def;
mod fire;
mod show;

use larch_engine::catalog::TriggerEntry;
use sqlparser::ast;

use super::head::{self, Context};
use crate::error::{SqlError, Warning};
use crate::parse::trigger::{CreateTrigger, TriggerStatement};
use crate::parse::Statement;
use crate::privileges::bits::Privs;
use crate::result::QueryResult;
use crate::session::Session;
pub(crate) use def::TriggerDef;
pub(crate) use fire::{check_not_in_use, fire, TableTriggers, TriggerState};
pub(crate) use show::information_schema_rows;

/// Distance between the order keys of consecutive triggers.
const ORDER_GAP: i64 = 1 << 20;

/// `(db, name)` of a trigger name (1046 without a current database).
fn name_of(s: &Session, name: &ast::ObjectName) -> Result<(String, String), SqlError> {
    head::name_of(s, name, "trigger")
}

fn does_not_exist() -> SqlError {
    SqlError::new(1360, "Trigger does not exist")
}

/// Error 1142 unless the account has the TRIGGER privilege on `db.table`.
fn check_privilege(s: &mut Session, db: &str, table: &str) -> Result<(), SqlError> {
    if s.account.is_all(&s.db.acl) {
        return Ok(());
    }
    crate::privileges::check::Checker::of(s).table(db, table, Privs::TRIGGER)
}

/// Runs a trigger statement.
pub(crate) fn execute(s: &mut Session, t: &TriggerStatement) -> Result<QueryResult, SqlError> {
    match t {
        TriggerStatement::Create(c) => create(s, c),
        TriggerStatement::Drop { if_exists, name } => {
            let (db, n) = name_of(s, name)?;
            s.commit()?;
            let catalog = s.db.catalog();
            let Some(entry) = catalog.trigger(&db, &n) else {
                if *if_exists {
                    s.push_warning(Warning::note(1360, "Trigger does not exist"));
                    return Ok(QueryResult::ok());
                }
                return Err(does_not_exist());
            };
            check_privilege(s, &db, &entry.table)?;
            if !s.db.catalog().drop_trigger(&db, &n)? && !*if_exists {
                return Err(does_not_exist());
            }
            Ok(QueryResult::ok())
        }
        TriggerStatement::ShowCreate { name } => show::show_create(s, name),
        TriggerStatement::Show { db, like, filter } => {
            show::show_triggers(s, db.as_deref(), like.as_deref(), filter.as_deref())
        }
    }
}

fn create(s: &mut Session, c: &CreateTrigger) -> Result<QueryResult, SqlError> {
    let (db, n) = name_of(s, &c.name)?;
    head::check_name_length(&n)?;
    let tparts: Vec<String> = c
        .table
        .0
        .iter()
        .filter_map(|p| p.as_ident())
        .map(|i| i.value.clone())
        .collect();
    let table = match tparts.as_slice() {
        [t] => t.clone(),
        [d, t] if *d == db => t.clone(),
        [_, _] => return Err(SqlError::new(1435, "Trigger in wrong schema")),
        _ => return Err(SqlError::new(1064, "Incorrect table name")),
    };
    s.commit()?;
    let database = s.db.clone();
    let catalog = database.catalog();
    if !catalog.has_database(&db) {
        return Err(SqlError::new(1049, format!("Unknown database '{db}'")));
    }
    if s.temporary_table(&db, &table).is_some() {
        return Err(SqlError::new(
            1361,
            format!("Trigger's '{table}' is a view, temporary table or sequence"),
        ));
    }
    if catalog.is_view(&db, &table) {
        return Err(SqlError::new(
            1347,
            format!("'{db}.{table}' is not of type 'BASE TABLE'"),
        ));
    }
    let Some(entry) = catalog.table_entry(&db, &table) else {
        return Err(SqlError::no_such_table(&db, &table));
    };
    check_privilege(s, &db, &table)?;
    for (new, col) in &c.refs {
        if !entry
            .def
            .columns
            .iter()
            .any(|x| x.name.eq_ignore_ascii_case(col))
        {
            return Err(SqlError::new(
                1054,
                format!(
                    "Unknown column '{col}' in '{}'",
                    if *new { "NEW" } else { "OLD" }
                ),
            ));
        }
    }
    if catalog.trigger(&db, &n).is_some() {
        if c.if_not_exists {
            s.push_warning(Warning::note(
                1359,
                format!("Trigger '{db}.{n}' already exists"),
            ));
            return Ok(QueryResult::ok());
        }
        if !c.or_replace {
            return Err(SqlError::new(
                1359,
                format!("Trigger '{db}.{n}' already exists"),
            ));
        }
    }
    let order = order_key(s, &db, &table, &n, c)?;
    let now = s.now_micros();
    let offset = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let def = TriggerDef {
        timing: c.timing,
        event: c.event,
        order,
        definer: head::definer_or_session(s, &c.definer),
        text: c.text.clone(),
        on_start: offset(c.on_start),
        on_end: offset(c.on_end),
        body_start: offset(c.body_start),
        context: Context::of_session(s, &db),
        created: now,
    };
    catalog.store_trigger(&db, &n, &table, &def.encode(), c.or_replace)?;
    super::host::note_missing_definer(s, &def.definer);
    Ok(QueryResult::ok())
}

/// The triggers of `db.table` firing at the same time and event as `c`
/// (but `c` itself), in order.
fn group(
    s: &Session,
    db: &str,
    table: &str,
    name: &str,
    c: &CreateTrigger,
) -> Result<Vec<(TriggerEntry, TriggerDef)>, SqlError> {
    let mut out = Vec::new();
    for e in s.db.catalog().table_triggers(db, table) {
        if e.name == name {
            continue;
        }
        let d = TriggerDef::decode(&e.definition)?;
        if d.timing == c.timing && d.event == c.event {
            out.push((e, d));
        }
    }
    out.sort_by_key(|(_, d)| d.order);
    Ok(out)
}

/// The order key of a new trigger (see the module documentation).
fn order_key(
    s: &Session,
    db: &str,
    table: &str,
    name: &str,
    c: &CreateTrigger,
) -> Result<i64, SqlError> {
    let list = group(s, db, table, name, c)?;
    let Some(o) = &c.order else {
        return Ok(list
            .last()
            .map_or(0, |(_, d)| d.order.saturating_add(ORDER_GAP)));
    };
    let Some(at) = list.iter().position(|(e, _)| e.name == o.other) else {
        return Err(SqlError::new(
            4031,
            format!(
                "Referenced trigger '{}' for the given action time and event type does not exist",
                o.other
            ),
        ));
    };
    // The new trigger goes between positions `pos - 1` and `pos`.
    let pos = if o.follows { at + 1 } else { at };
    let before = pos.checked_sub(1).map(|i| list[i].1.order);
    let after = list.get(pos).map(|(_, d)| d.order);
    let key = match (before, after) {
        (Some(a), Some(b)) if b - a >= 2 => Some(a + (b - a) / 2),
        (Some(_), Some(_)) => None,
        (Some(a), None) => Some(a.saturating_add(ORDER_GAP)),
        (None, Some(b)) => Some(b.saturating_sub(ORDER_GAP)),
        (None, None) => Some(0),
    };
    if let Some(k) = key {
        return Ok(k);
    }
    // No room: renumber the group with the new trigger's slot left free.
    let catalog = s.db.catalog();
    for (i, (e, d)) in list.iter().enumerate() {
        let slot = if i < pos { i } else { i + 1 };
        let renumbered = TriggerDef {
            order: slot as i64 * ORDER_GAP,
            ..d.clone()
        };
        catalog.store_trigger(&e.schema, &e.name, &e.table, &renumbered.encode(), true)?;
    }
    Ok(pos as i64 * ORDER_GAP)
}

/// Refuses what a trigger's statement may not do inside the statement
/// that fired it: anything that would commit (DDL, transaction and lock
/// statements: 1422) and LOAD DATA (1314). Queries, data changes, SET, DO
/// and CALL run.
pub(crate) fn check_statement(stmt: &Statement) -> Result<(), SqlError> {
    use ast::Statement as S;
    let allowed = match stmt {
        Statement::Sql(a) => matches!(
            a.as_ref(),
            S::Query(_) | S::Insert(_) | S::Update(_) | S::Delete(_) | S::Set(_)
        ),
        Statement::SelectInto { .. } | Statement::Do(_) | Statement::SetCharset { .. } => true,
        Statement::Routine(r) => matches!(
            r.as_ref(),
            crate::parse::routine::RoutineStatement::Call { .. }
        ),
        Statement::LoadData(_) => {
            return Err(SqlError::new(
                1314,
                "LOAD DATA is not allowed in stored procedures",
            ))
        }
        _ => false,
    };
    if allowed {
        Ok(())
    } else {
        Err(SqlError::new(
            1422,
            "Explicit or implicit commit is not allowed in stored function or trigger",
        ))
    }
}

/// RENAME TABLE / ALTER TABLE ... RENAME: the table's triggers follow it
/// (1435 when it moves to another database and has triggers).
pub(crate) fn table_renamed(
    s: &Session,
    from: (&str, &str),
    to: (&str, &str),
) -> Result<(), SqlError> {
    let catalog = s.db.catalog();
    if !catalog.has_triggers() {
        return Ok(());
    }
    let rewrite = |b: &[u8]| match TriggerDef::decode(b) {
        Ok(d) => d.renamed(to.1).encode(),
        Err(_) => b.to_vec(),
    };
    catalog.rename_table_triggers(from.0, from.1, to.0, to.1, &rewrite)?;
    Ok(())
}

/// Error 1435 before a rename when the table has triggers and would move
/// to another database.
pub(crate) fn check_rename(
    s: &Session,
    from: (&str, &str),
    to: (&str, &str),
) -> Result<(), SqlError> {
    Ok(s.db.catalog().check_trigger_schema(from.0, from.1, to.0)?)
}

/// DROP TABLE: the table's triggers go first.
pub(crate) fn table_dropped(s: &Session, db: &str, table: &str) -> Result<(), SqlError> {
    let catalog = s.db.catalog();
    if catalog.has_triggers() {
        catalog.drop_table_triggers(db, table)?;
    }
    Ok(())
}
