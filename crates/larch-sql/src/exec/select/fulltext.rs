//! `MATCH (columns) AGAINST (query [modifier])` in a SELECT block.
//!
//! Before a block is planned, [`rewrite`] finds every MATCH in its clauses,
//! resolves it to one table source and the FULLTEXT index of that table
//! whose columns are exactly the MATCH's (in any order; 1191 otherwise),
//! runs the search once through the engine (`larch_engine::fts`) with the
//! statement's snapshot, and replaces the MATCH by a reference to a hidden
//! DOUBLE column of that source ([`MatchColumn`]): the join fills it, for
//! every row it reads of the table, with the row's relevance (0 for a row
//! the search did not find). The same MATCH written twice is one column.
//! Everything else (WHERE, HAVING, ORDER BY, the select list, joins,
//! subqueries) then works on it as on any column.
//!
//! A block whose WHERE has a bare MATCH among its AND-ed conditions on its
//! first source, and no ORDER BY or GROUP BY, reads that source through the
//! FULLTEXT index: only the rows found, best first, which is the order
//! MariaDB returns them in (`Source::fulltext_order`). The WHERE still
//! filters every row read.
//!
//! Limits (clear errors, never a silently different answer): the AGAINST
//! argument must be a literal (sqlparser accepts nothing else); MATCH
//! outside a SELECT block's clauses is 1235; the row locking reads of
//! `SELECT ... FOR UPDATE` read through the normal access path.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use larch_engine::fts::search::SearchMode;
use larch_engine::record::collation::Charset;
use larch_engine::record::value::ColumnType;
use larch_engine::table::CommitParticipant;
use sqlparser::ast::{self, Expr, SearchModifier, VisitMut, VisitorMut};

use super::source::{Source, SourceRows};
use crate::error::SqlError;
use crate::result::ResultColumn;
use crate::session::Session;

/// The hidden relevance column of one MATCH over a table source.
#[derive(Debug, Clone)]
pub(crate) struct MatchColumn {
    /// Position among the source's columns.
    pub column: usize,
    /// Relevance by row address (clustered key bytes).
    pub ranks: Arc<HashMap<Vec<u8>, f32>>,
}

/// One MATCH as written, resolved.
#[derive(Clone, PartialEq)]
struct MatchKey {
    source: usize,
    index: usize,
    query: String,
    mode: SearchMode,
    expansion: bool,
}

/// True when `e` holds a MATCH ... AGAINST.
fn has_match(e: &Expr) -> bool {
    let mut found = false;
    let _ = ast::visit_expressions(e, |x| {
        if matches!(x, Expr::MatchAgainst { .. }) {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    found
}

fn block_has_match(sel: &ast::Select, order: &[ast::OrderByExpr]) -> bool {
    let items = sel.projection.iter().any(|p| match p {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            has_match(e)
        }
        _ => false,
    });
    let groups = match &sel.group_by {
        ast::GroupByExpr::Expressions(v, _) => v.iter().any(has_match),
        ast::GroupByExpr::All(_) => false,
    };
    items
        || groups
        || sel.selection.as_ref().is_some_and(has_match)
        || sel.having.as_ref().is_some_and(has_match)
        || order.iter().any(|o| has_match(&o.expr))
}

fn bad_match() -> SqlError {
    SqlError::new(1210, "Incorrect arguments to MATCH")
}

/// The name MATCH columns get: `#match<n>` cannot be written unquoted, and
/// nothing else in a source has it.
fn column_name(n: usize) -> String {
    format!("#match{n}")
}

/// Resolves a MATCH to its source, index, query and mode.
fn resolve(
    sources: &[Source],
    columns: &[ast::ObjectName],
    value: &ast::Value,
    modifier: Option<SearchModifier>,
) -> Result<MatchKey, SqlError> {
    let mut source = None;
    let mut positions = Vec::with_capacity(columns.len());
    for c in columns {
        let parts: Vec<ast::Ident> = c.0.iter().filter_map(|p| p.as_ident().cloned()).collect();
        let Some((pos, _)) = super::source::resolve(sources, &parts)? else {
            return Err(SqlError::new(
                1054,
                format!("Unknown column '{c}' in 'MATCH()'"),
            ));
        };
        let k = sources
            .iter()
            .position(|s| pos >= s.offset && pos < s.offset + s.stored_width())
            .ok_or_else(bad_match)?;
        if source.is_some_and(|o| o != k) {
            return Err(bad_match());
        }
        source = Some(k);
        positions.push(pos - sources[k].offset);
    }
    let k = source.ok_or_else(bad_match)?;
    let SourceRows::Table(t) = &sources[k].rows else {
        return Err(no_index());
    };
    positions.sort_unstable();
    let index = t
        .def()
        .fulltext
        .iter()
        .position(|ft| {
            let mut cols = ft.columns.clone();
            cols.sort_unstable();
            cols == positions
        })
        .ok_or_else(no_index)?;
    let query = match value {
        ast::Value::SingleQuotedString(s)
        | ast::Value::DoubleQuotedString(s)
        | ast::Value::NationalStringLiteral(s) => s.clone(),
        ast::Value::Number(n, _) => n.to_string(),
        ast::Value::Null => String::new(),
        _ => return Err(SqlError::new(1210, "Incorrect arguments to AGAINST")),
    };
    let (mode, expansion) = match modifier {
        None | Some(SearchModifier::InNaturalLanguageMode) => (SearchMode::NaturalLanguage, false),
        Some(SearchModifier::InNaturalLanguageModeWithQueryExpansion)
        | Some(SearchModifier::WithQueryExpansion) => (SearchMode::NaturalLanguage, true),
        Some(SearchModifier::InBooleanMode) => (SearchMode::Boolean, false),
    };
    Ok(MatchKey {
        source: k,
        index,
        query,
        mode,
        expansion,
    })
}

fn no_index() -> SqlError {
    SqlError::new(1191, "Can't find FULLTEXT index matching the column list")
}

/// Replaces MATCH expressions by column references, resolving them first.
struct Replace<'a> {
    sources: &'a [Source],
    keys: Vec<MatchKey>,
    error: Option<SqlError>,
}

impl VisitorMut for Replace<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let Expr::MatchAgainst {
            columns,
            match_value,
            opt_search_modifier,
        } = e
        else {
            return ControlFlow::Continue(());
        };
        let key = match resolve(
            self.sources,
            columns,
            &match_value.value,
            opt_search_modifier.clone(),
        ) {
            Ok(k) => k,
            Err(err) => {
                self.error = Some(err);
                return ControlFlow::Break(());
            }
        };
        let n = match self.keys.iter().position(|k| *k == key) {
            Some(n) => n,
            None => {
                self.keys.push(key);
                self.keys.len() - 1
            }
        };
        let alias = self.sources[self.keys[n].source].alias.clone();
        *e = Expr::CompoundIdentifier(vec![
            ast::Ident::with_quote('`', alias),
            ast::Ident::with_quote('`', column_name(n)),
        ]);
        ControlFlow::Continue(())
    }
}

/// The query as bytes of the index's character set.
fn query_bytes(query: &str, charset: Charset) -> Vec<u8> {
    match charset {
        Charset::Latin1 => query
            .chars()
            .map(|c| larch_engine::record::collation::latin1_from_char(c).unwrap_or(b'?'))
            .collect(),
        _ => query.as_bytes().to_vec(),
    }
}

/// See the module doc. Returns the block's clauses with every MATCH
/// replaced, or `None` when the block has none (`sources` unchanged).
pub(super) fn rewrite(
    s: &Session,
    sel: &ast::Select,
    order: &[ast::OrderByExpr],
    sources: &mut [Source],
) -> Result<Option<(ast::Select, Vec<ast::OrderByExpr>)>, SqlError> {
    if !block_has_match(sel, order) {
        return Ok(None);
    }
    let mut sel = sel.clone();
    let mut order = order.to_vec();
    // Unnamed select-list items keep the name they had.
    for p in sel.projection.iter_mut() {
        if let ast::SelectItem::UnnamedExpr(e) = p {
            if has_match(e) {
                let alias = ast::Ident::new(super::naming::expr_name(e));
                *p = ast::SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias,
                };
            }
        }
    }
    let mut replace = Replace {
        sources,
        keys: Vec::new(),
        error: None,
    };
    let _ = sel.visit(&mut replace);
    for o in order.iter_mut() {
        if replace.error.is_none() {
            let _ = o.expr.visit(&mut replace);
        }
    }
    if let Some(e) = replace.error {
        return Err(e);
    }
    let keys = replace.keys;
    // Run each search, then add the hidden columns.
    let catalog = s.db.catalog();
    let mut found_rows: Vec<Vec<(Vec<u8>, f32)>> = Vec::with_capacity(keys.len());
    for key in &keys {
        let src = &sources[key.source];
        let SourceRows::Table(t) = &src.rows else {
            return Err(no_index());
        };
        // By name, else by the engine's name (a temporary table's hidden one;
        // a table rebuilt by ALTER keeps its engine name from the rebuild).
        let mine = |ft: &Arc<larch_engine::fts::table_fulltext::TableFulltext>| {
            CommitParticipant::order(&**ft) == t.undo_identity()
        };
        let ft = match catalog
            .table_fulltext(&src.db, &src.table)?
            .filter(|ft| mine(ft))
        {
            Some(ft) => ft,
            None => catalog
                .table_fulltext(&src.db, &t.def().name)?
                .filter(|ft| mine(ft))
                .ok_or_else(no_index)?,
        };
        let charset = t
            .def()
            .fulltext
            .get(key.index)
            .and_then(|d| t.def().fulltext_collation(d))
            .map_or(Charset::Utf8mb4, |c| c.charset());
        let bytes = query_bytes(&key.query, charset);
        let found = ft.search(key.index, &bytes, key.mode, key.expansion, &s.read)?;
        let rows = found
            .rows(&ft, &s.read)?
            .into_iter()
            .map(|(at, rank)| (at.0, rank))
            .collect();
        found_rows.push(rows);
    }
    for (n, (key, rows)) in keys.iter().zip(&found_rows).enumerate() {
        let src = &mut sources[key.source];
        let column = src.columns.len();
        src.columns.push(ResultColumn::computed(
            column_name(n),
            ColumnType::Double,
            false,
        ));
        src.matches.push(MatchColumn {
            column,
            ranks: Arc::new(rows.iter().cloned().collect()),
        });
    }
    let mut offset = 0;
    for src in sources.iter_mut() {
        src.offset = offset;
        offset += src.width();
    }
    // A bare MATCH in WHERE on the first source: read it through the index.
    let grouped = match &sel.group_by {
        ast::GroupByExpr::Expressions(v, _) => !v.is_empty(),
        ast::GroupByExpr::All(_) => true,
    };
    if order.is_empty() && !grouped {
        if let Some(w) = &sel.selection {
            let first_match = crate::exec::rows::conjuncts(w).into_iter().find_map(|c| {
                let Expr::CompoundIdentifier(parts) = c else {
                    return None;
                };
                let name = parts.last()?.value.as_str();
                (0..keys.len()).find(|&n| column_name(n) == name && keys[n].source == 0)
            });
            if let Some(n) = first_match {
                let order: Vec<Vec<u8>> = found_rows[n].iter().map(|(at, _)| at.clone()).collect();
                sources[0].fulltext_order = Some(Arc::new(order));
            }
        }
    }
    Ok(Some((sel, order)))
}
