//! The `LIKE 'pattern'` and `WHERE expr` filters of SHOW PROCEDURE |
//! FUNCTION STATUS and SHOW TRIGGERS: LIKE matches one name column
//! (case-insensitively, `\` escaping), WHERE is an expression over the
//! listing's columns by name, each read as a string.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::{CompileOptions, ExprType};
use crate::session::Session;

/// A compiled SHOW filter.
pub(crate) struct ShowFilter<'a> {
    like: Option<&'a str>,
    filter: Option<crate::eval::Compiled>,
}

impl<'a> ShowFilter<'a> {
    /// The filter of a listing whose columns are `columns`.
    pub(crate) fn new(
        columns: &'static [&'static str],
        like: Option<&'a str>,
        filter: Option<&ast::Expr>,
    ) -> Result<ShowFilter<'a>, SqlError> {
        let filter = match filter {
            Some(f) => {
                let resolve = |ids: &[ast::Ident]| {
                    let last = ids.last()?;
                    let i = columns
                        .iter()
                        .position(|c| c.eq_ignore_ascii_case(&last.value))?;
                    Some((
                        i,
                        ExprType {
                            ty: ColumnType::Varchar {
                                max_len: 64,
                                collation: Collation::Utf8mb4GeneralCi,
                            },
                            nullable: false,
                            decimals: None,
                        },
                    ))
                };
                Some(crate::eval::compile(
                    f,
                    &resolve,
                    &CompileOptions::default(),
                )?)
            }
            None => None,
        };
        Ok(ShowFilter { like, filter })
    }

    /// Whether `name` matches the LIKE pattern (always without one).
    pub(crate) fn name_matches(&self, name: &str) -> bool {
        self.like
            .is_none_or(|p| crate::eval::like(name, p, '\\', Collation::Utf8mb4GeneralCi))
    }

    /// Whether the WHERE expression holds for `row` (always without one).
    pub(crate) fn row_matches(&self, s: &Session, row: &[Value]) -> Result<bool, SqlError> {
        let Some(c) = &self.filter else {
            return Ok(true);
        };
        let mut ctx = s.eval_context(&[]);
        let v = c.eval(row, &mut ctx)?;
        Ok(crate::eval::convert::truth(&v, &mut ctx).unwrap_or(false))
    }
}
