//! ANALYZE / CHECK / OPTIMIZE / REPAIR TABLE and ALTER TABLE ... DISABLE |
//! ENABLE KEYS, with InnoDB's answers in MariaDB's result format (columns
//! Table, Op, Msg_type, Msg_text; one group of rows per table).
//!
//! - ANALYZE: statistics are not kept yet, so it reports `status OK`;
//! - CHECK: runs the engine's table check (trees, records, off-page chains,
//!   secondary entries): `status OK`, or one `error` row per problem and
//!   `error Corrupt`. The check compares the indexes with each other, so it
//!   holds the table as LOCK TABLES ... READ does while it runs: it waits
//!   (up to [`CHECK_PATIENCE`]) for the transactions that write the table to
//!   end, and writers wait for it (readers do not). Without that, rows
//!   changing under the check were reported as corruption. A transaction
//!   left open longer (an idle session's) does not hold the check up: it
//!   then runs beside it, as before;
//! - OPTIMIZE: rebuilds the table, as InnoDB's "recreate + analyze";
//! - REPAIR: InnoDB does not repair (a `note`);
//! - a missing table: `Error` with 1146's text and `status Operation failed`;
//! - DISABLE/ENABLE KEYS: a no-op with note 1031, as for InnoDB.

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::{table_entry, table_name};
use crate::error::{SqlError, Warning};
use crate::parse::MaintenanceOp;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// How long CHECK TABLE waits for the transactions writing its table.
const CHECK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);

/// ALTER TABLE t DISABLE|ENABLE KEYS.
pub(super) fn alter_keys(
    s: &mut Session,
    table: &ast::ObjectName,
) -> Result<QueryResult, SqlError> {
    s.commit()?;
    let (db, t) = table_name(s, table)?;
    table_entry(s, &db, &t)?;
    s.push_warning(Warning::note(
        1031,
        format!("Storage engine InnoDB of the table `{db}`.`{t}` doesn't have this option"),
    ));
    Ok(QueryResult::ok())
}

/// ANALYZE | CHECK | OPTIMIZE | REPAIR TABLE t, ...
pub(super) fn run(
    s: &mut Session,
    op: MaintenanceOp,
    tables: &[ast::ObjectName],
) -> Result<QueryResult, SqlError> {
    let op_name = match op {
        MaintenanceOp::Analyze => "analyze",
        MaintenanceOp::Check => "check",
        MaintenanceOp::Optimize => "optimize",
        MaintenanceOp::Repair => "repair",
    };
    if op == MaintenanceOp::Check {
        // A table-maintenance statement commits, as in MariaDB (and the
        // session's own write locks would block its hold).
        s.commit()?;
    }
    let mut rows = Vec::new();
    for name in tables {
        let (db, t) = table_name(s, name)?;
        let full = format!("{db}.{}", s.visible_table_name(&db, &t));
        let mut row = |kind: &str, msg: String| {
            rows.push(vec![
                Value::Str(full.clone()),
                Value::Str(op_name.into()),
                Value::Str(kind.into()),
                Value::Str(msg),
            ])
        };
        if s.db.catalog().table_entry(&db, &t).is_none() {
            row("Error", SqlError::no_such_table(&db, &t).message());
            row("status", "Operation failed".into());
            continue;
        }
        match op {
            MaintenanceOp::Analyze => row("status", "OK".into()),
            MaintenanceOp::Check => {
                let _no_writers = s.hold_table_read_only(&db, &t, CHECK_PATIENCE)?;
                let report = s.db.catalog().check_table(&db, &t)?;
                if report.problems.is_empty() {
                    row("status", "OK".into());
                } else {
                    for p in report.problems {
                        row("error", p);
                    }
                    row("error", "Corrupt".into());
                }
            }
            MaintenanceOp::Optimize => {
                row(
                    "note",
                    "Table does not support optimize, doing recreate + analyze instead".into(),
                );
                let object = ast::ObjectName::from(vec![ast::Ident::new(&db), ast::Ident::new(&t)]);
                match super::alter::rebuild_table(s, &object) {
                    Ok(_) => row("status", "OK".into()),
                    Err(e) => {
                        row("error", e.message());
                        row("status", "Operation failed".into());
                    }
                }
            }
            MaintenanceOp::Repair => row(
                "note",
                "The storage engine for the table doesn't support repair".into(),
            ),
        }
    }
    Ok(QueryResult::Rows(RowSet {
        columns: vec![
            ResultColumn::text("Table", 128, false),
            ResultColumn::text("Op", 10, false),
            ResultColumn::text("Msg_type", 10, false),
            ResultColumn::text("Msg_text", 1024, false),
        ],
        rows,
    }))
}
