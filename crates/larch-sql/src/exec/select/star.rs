//! `*` and `t.*` in a select list: the columns they stand for, as compiled
//! outputs, in the order MariaDB lists them.
//!
//! `*` lists every source's columns in FROM order as written (a RIGHT JOIN
//! reads its right side first, yet `*` keeps the FROM order), leaving
//! INVISIBLE columns out. When FROM has a USING or NATURAL join the order is
//! the sources' `star_rank` instead: the merged shared columns once, where
//! MariaDB puts them (see `join_tree`). `t.*` always lists all of `t`'s
//! visible columns in table order. Every listed column is marked as read.

use std::cell::RefCell;

use super::block::Output;
use super::source::{self, JoinKind, Source};
use crate::error::SqlError;
use crate::eval::{self, Compiled, ExprType};
use crate::session::Session;

/// Appends the outputs of `*` (`only` = `None`) or `only.*` to `outputs`.
pub(super) fn expand(
    s: &Session,
    sources: &[Source],
    only: Option<String>,
    used: &RefCell<Vec<bool>>,
    outputs: &mut Vec<Output>,
) -> Result<(), SqlError> {
    if sources.is_empty() {
        return Err(SqlError::new(1096, "No tables used"));
    }
    // (rank, source, column) of every column listed.
    let mut listed: Vec<(usize, usize, usize)> = Vec::new();
    let mut any = false;
    let mut written: Vec<(usize, &Source)> = sources.iter().enumerate().collect();
    written.sort_by_key(|(_, src)| src.text_order);
    for (k, src) in written {
        if only.as_ref().is_some_and(|a| *a != src.alias) {
            continue;
        }
        any = true;
        let invisible = source::invisible_columns(s, src);
        for i in 0..src.stored_width() {
            if invisible.get(i).copied().unwrap_or(false) {
                continue;
            }
            let rank = match (&only, src.star_rank.get(i)) {
                (None, Some(&usize::MAX)) => continue,
                (None, Some(&r)) => r,
                _ => listed.len(),
            };
            listed.push((rank, k, i));
        }
    }
    if !any {
        return Err(SqlError::new(
            1051,
            format!("Unknown table '{}'", only.unwrap_or_default()),
        ));
    }
    listed.sort_by_key(|&(rank, _, _)| rank);
    let mut used = used.borrow_mut();
    for (_, k, i) in listed {
        let src = &sources[k];
        if let Some(u) = used.get_mut(src.offset + i) {
            *u = true;
        }
        let c = &src.columns[i];
        let mut column = c.clone();
        column.nullable |= src.join == JoinKind::Left;
        outputs.push(Output {
            expr: Compiled {
                expr: eval::Expr::Column(src.offset + i),
                ty: ExprType {
                    ty: c.ty.clone(),
                    nullable: column.nullable,
                    decimals: c.real_decimals(),
                },
            },
            column,
        });
    }
    Ok(())
}
