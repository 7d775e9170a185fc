//! CHECK constraints in table definitions, as MariaDB keeps them.
//!
//! A column's `CHECK (expr)` belongs to the column (named after it,
//! `t.col` in errors) and a `JSON` column gets `CHECK (json_valid(col))`;
//! a table's `[CONSTRAINT name] CHECK (expr)` is named `CONSTRAINT_n` when
//! unnamed. Both are stored as expression text in MariaDB's printed form
//! (identifiers in backquotes, function names in lower case) in the
//! table's `TableMeta`, shown by SHOW CREATE TABLE and
//! INFORMATION_SCHEMA.CHECK_CONSTRAINTS, and enforced ([`Checks`]) on
//! every row INSERT (with IGNORE, REPLACE, ON DUPLICATE KEY UPDATE, LOAD
//! DATA, INSERT ... SELECT) and UPDATE (single- and multi-table) write,
//! and on the rows already in a table when ALTER TABLE adds a constraint.
//! DROP CONSTRAINT name removes one.
//!
//! Enforcement compiles the expressions once per statement against the
//! table's columns. A row fails a constraint when the expression is false;
//! NULL passes, as in MariaDB. The error is 4025 `CONSTRAINT `name` failed
//! for `db`.`table`` (a column's constraint is named `table.column`); with
//! IGNORE it is a warning and the row is skipped. `check_constraint_checks
//! = 0` turns the checks off.

use std::ops::ControlFlow;

use larch_engine::record::value::Value;
use larch_engine::table::TableDef;
use sqlparser::ast;

use super::meta::TableMeta;
use super::work::Work;
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions, ExprType};
use crate::session::Session;

/// The expression text MariaDB prints for `e`.
pub(crate) fn check_text(e: &ast::Expr) -> String {
    let mut e = e.clone();
    let _ = ast::visit_expressions_mut(&mut e, |x| {
        match x {
            // A user variable (`@x`) stays as written.
            ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.starts_with('@') => {}
            ast::Expr::Identifier(id) => id.quote_style = Some('`'),
            ast::Expr::CompoundIdentifier(ids) => {
                for id in ids {
                    id.quote_style = Some('`');
                }
            }
            ast::Expr::Function(f) => {
                for part in &mut f.name.0 {
                    if let ast::ObjectNamePart::Identifier(id) = part {
                        if id.quote_style.is_none() {
                            id.value = id.value.to_lowercase();
                        }
                    }
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    crate::parse::sql_text(&e)
}

/// The CHECK of a `JSON` column.
pub(crate) fn json_check(column: &str) -> String {
    format!("json_valid({})", super::render::quote_ident(column))
}

impl Work {
    /// Adds table constraint CHECK `expr`, named `name` or `CONSTRAINT_n`
    /// (1826 for a name already used).
    pub fn add_check(&mut self, name: Option<String>, expr: String) -> Result<(), SqlError> {
        let name = match name {
            Some(n) => n,
            None => (1..)
                .map(|n| format!("CONSTRAINT_{n}"))
                .find(|n| !self.checks.iter().any(|(c, _)| c.eq_ignore_ascii_case(n)))
                .unwrap_or_default(),
        };
        if self
            .checks
            .iter()
            .any(|(c, _)| c.eq_ignore_ascii_case(&name))
        {
            return Err(SqlError::new(
                1826,
                format!("Duplicate CHECK constraint name '{name}'"),
            ));
        }
        self.checks.push((name, expr));
        Ok(())
    }

    /// Removes the table CHECK constraint `name`; false when there is none.
    pub fn drop_check(&mut self, name: &str) -> bool {
        let before = self.checks.len();
        self.checks.retain(|(c, _)| !c.eq_ignore_ascii_case(name));
        self.checks.len() != before
    }
}

/// The compiled CHECK constraints of one table.
#[derive(Default)]
pub(crate) struct Checks {
    /// The table, as errors name it.
    db: String,
    table: String,
    /// Constraint name (as errors show it) and expression.
    items: Vec<(String, eval::Compiled)>,
}

impl Checks {
    /// Compiles the constraints of `db`.`table` (`def`, `meta`).
    pub fn compile(
        s: &Session,
        db: &str,
        table: &str,
        def: &TableDef,
        meta: &TableMeta,
    ) -> Result<Checks, SqlError> {
        let column_checks = meta
            .columns
            .iter()
            .zip(&def.columns)
            .filter_map(|(m, c)| Some((format!("{table}.{}", c.name), m.check.as_ref()?)));
        let table_checks = meta.checks.iter().map(|(n, e)| (n.clone(), e));
        let all: Vec<(String, &String)> = column_checks.chain(table_checks).collect();
        if all.is_empty() {
            return Ok(Checks::default());
        }
        let resolve = |parts: &[sqlparser::ast::Ident]| {
            let name = &parts.last()?.value;
            let i = def
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))?;
            Some((
                i,
                ExprType {
                    ty: def.columns[i].ty.clone(),
                    nullable: def.columns[i].nullable,
                    decimals: None,
                },
            ))
        };
        let opts = CompileOptions {
            collation: s.connection_collation(),
            clause: "CHECK".into(),
        };
        let mut items = Vec::with_capacity(all.len());
        for (name, text) in all {
            let expr = crate::parse::parse_expression(text)?;
            items.push((name, eval::compile(&expr, &resolve, &opts)?));
        }
        Ok(Checks {
            db: db.to_owned(),
            table: table.to_owned(),
            items,
        })
    }

    /// Checks `row` (engine values of every column). `Ok(false)` when the
    /// row fails and `ignore` turned the error into a warning.
    pub fn verify(
        &self,
        s: &Session,
        def: &TableDef,
        row: &[Value],
        ignore: bool,
        warnings: &mut Vec<Warning>,
    ) -> Result<bool, SqlError> {
        if self.items.is_empty() || s.int_var("check_constraint_checks") == 0 {
            return Ok(true);
        }
        // ENUM, SET and UUID compare as their text, as the expressions expect.
        let values: Vec<Value> = row
            .iter()
            .zip(&def.columns)
            .map(|(v, c)| crate::value::expression_value(v, &c.ty))
            .collect();
        for (name, check) in &self.items {
            let mut ctx = s.eval_context(&[]);
            let v = check.eval(&values, &mut ctx)?;
            if v.is_null() || crate::exec::rows::truthy(&v) {
                continue;
            }
            let msg = format!(
                "CONSTRAINT `{name}` failed for `{}`.`{}`",
                self.db, self.table
            );
            if ignore {
                warnings.push(Warning::warn(4025, msg));
                return Ok(false);
            }
            return Err(SqlError::new(4025, msg));
        }
        Ok(true)
    }
}
