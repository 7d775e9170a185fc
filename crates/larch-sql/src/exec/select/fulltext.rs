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
//! A MATCH in a join's ON condition is replaced in the condition the
//! join's source keeps. In HAVING, a MATCH is read whether or not the
//! select list has its columns (MariaDB wants them there: 1054).
//!
//! Limits (clear errors, never a silently different answer): the AGAINST
//! argument must be a literal, a prepared statement's `?` or a user
//! variable (sqlparser accepts nothing else: an expression is 1064); MATCH
//! outside a SELECT block's clauses is 1235; the row locking reads of
//! `SELECT ... FOR UPDATE` read through the normal access path.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use larch_engine::fts::search::SearchMode;
use larch_engine::record::collation::Charset;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{CommitParticipant, Table, TableDef};
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
pub(crate) fn has_match(e: &Expr) -> bool {
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
    session: &Session,
    params: &[Value],
) -> Result<MatchKey, SqlError> {
    let find = |parts: &[ast::Ident]| -> Result<Option<(usize, usize)>, SqlError> {
        let Some((pos, _)) = super::source::resolve(sources, parts)? else {
            return Ok(None);
        };
        let k = sources
            .iter()
            .position(|s| pos >= s.offset && pos < s.offset + s.stored_width())
            .ok_or_else(bad_match)?;
        Ok(Some((k, pos - sources[k].offset)))
    };
    let table_of = |k: usize| match &sources[k].rows {
        SourceRows::Table(t) => Some(t.def()),
        SourceRows::Rows(_) => None,
    };
    resolve_with(&find, &table_of, columns, value, modifier, session, params)
}

/// [`resolve`] over any sources: `find` gives a column's source and
/// position in it, `table_of` a source's table definition.
fn resolve_with<'d>(
    find: &dyn Fn(&[ast::Ident]) -> Result<Option<(usize, usize)>, SqlError>,
    table_of: &dyn Fn(usize) -> Option<&'d TableDef>,
    columns: &[ast::ObjectName],
    value: &ast::Value,
    modifier: Option<SearchModifier>,
    session: &Session,
    params: &[Value],
) -> Result<MatchKey, SqlError> {
    let mut source = None;
    let mut positions = Vec::with_capacity(columns.len());
    for c in columns {
        let parts: Vec<ast::Ident> = c.0.iter().filter_map(|p| p.as_ident().cloned()).collect();
        let Some((k, pos)) = find(&parts)? else {
            return Err(SqlError::new(
                1054,
                format!("Unknown column '{c}' in 'MATCH()'"),
            ));
        };
        if source.is_some_and(|o| o != k) {
            return Err(bad_match());
        }
        source = Some(k);
        positions.push(pos);
    }
    let k = source.ok_or_else(bad_match)?;
    let Some(def) = table_of(k) else {
        return Err(no_index());
    };
    let index = matching_index(def, &positions).ok_or_else(no_index)?;
    let query = against_text(session, value, params)?;
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

/// The search text of an AGAINST argument: a literal, a prepared
/// statement's parameter (`?N`, numbered by `exec::number_placeholders`)
/// or a user variable (`@name`, which `parse::rewrite` hands over as a
/// placeholder); NULL searches for nothing.
fn against_text(s: &Session, value: &ast::Value, params: &[Value]) -> Result<String, SqlError> {
    let v = match value {
        ast::Value::SingleQuotedString(s)
        | ast::Value::DoubleQuotedString(s)
        | ast::Value::NationalStringLiteral(s) => return Ok(s.clone()),
        ast::Value::Number(n, _) => return Ok(n.to_string()),
        ast::Value::Null => return Ok(String::new()),
        ast::Value::Placeholder(p) if p.starts_with('@') => {
            crate::eval::uservar::read(s, &p[1..].to_lowercase())
        }
        ast::Value::Placeholder(p) => p
            .strip_prefix('?')
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| params.get(n))
            .cloned()
            .ok_or_else(|| SqlError::new(1210, "Incorrect arguments to AGAINST"))?,
        _ => return Err(SqlError::new(1210, "Incorrect arguments to AGAINST")),
    };
    Ok(match v {
        Value::Null => String::new(),
        v => crate::eval::convert::to_str(&v),
    })
}

/// MATCH where MariaDB runs no search: in UPDATE's SET list and DELETE's
/// ORDER BY.
/// The FULLTEXT index of `def` a MATCH over the columns at `positions`
/// reads, as MariaDB chooses it (`Item_func_match::fix_index`): each index
/// counts, over the MATCH's columns, the parts that are that column; of
/// the indexes with the highest count, the first whose count reaches both
/// the number of MATCH columns and its own number of parts. So `MATCH (a,
/// b)` reads an index on `(b, a)`, and `MATCH (c, c)` an index on `(c)`,
/// or one on `(b, c)` when `(c)` has none.
fn matching_index(def: &TableDef, positions: &[usize]) -> Option<usize> {
    let counts: Vec<usize> = def
        .fulltext
        .iter()
        .map(|ft| {
            positions
                .iter()
                .map(|p| ft.columns.iter().filter(|c| *c == p).count())
                .sum()
        })
        .collect();
    let best = counts.iter().copied().max()?;
    (0..counts.len()).find(|&i| {
        counts[i] == best && best >= positions.len() && best >= def.fulltext[i].columns.len()
    })
}

pub(crate) fn unsupported_here() -> SqlError {
    SqlError::new(
        1764,
        "The table does not have FULLTEXT index to support this query",
    )
}

fn no_index() -> SqlError {
    SqlError::new(1191, "Can't find FULLTEXT index matching the column list")
}

type ResolveMatch<'a> = dyn Fn(&[ast::ObjectName], &ast::Value, Option<SearchModifier>) -> Result<MatchKey, SqlError>
    + 'a;

/// Replaces MATCH expressions by column references, resolving them first:
/// the `n`th distinct MATCH becomes `reference(n, key)`.
struct Replace<'a> {
    resolve: &'a ResolveMatch<'a>,
    reference: &'a dyn Fn(usize, &MatchKey) -> Expr,
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
        let key = match (self.resolve)(columns, &match_value.value, opt_search_modifier.clone()) {
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
        *e = (self.reference)(n, &self.keys[n]);
        ControlFlow::Continue(())
    }
}

/// Runs the search of `key` over the table `db`.`name` (open as `t`) with
/// the statement's snapshot: the rows found, best first, by address.
fn search_rows(
    s: &Session,
    db: &str,
    name: &str,
    t: &Arc<Table>,
    key: &MatchKey,
) -> Result<Vec<(Vec<u8>, f32)>, SqlError> {
    let catalog = s.db.catalog();
    // By name, else by the engine's name (a temporary table's hidden one;
    // a table rebuilt by ALTER keeps its engine name from the rebuild).
    let mine = |ft: &Arc<larch_engine::fts::table_fulltext::TableFulltext>| {
        CommitParticipant::order(&**ft) == t.undo_identity()
    };
    let ft = match catalog.table_fulltext(db, name)?.filter(|ft| mine(ft)) {
        Some(ft) => ft,
        None => catalog
            .table_fulltext(db, &t.def().name)?
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
    Ok(found
        .rows(&ft, &s.read)?
        .into_iter()
        .map(|(at, rank)| (at.0, rank))
        .collect())
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
    params: &[Value],
) -> Result<Option<(ast::Select, Vec<ast::OrderByExpr>)>, SqlError> {
    // The joins' ON conditions are in the sources already.
    let on_has_match = sources.iter().any(|src| {
        src.lookup.iter().any(has_match) || src.checks.iter().flat_map(|c| &c.cond).any(has_match)
    });
    if !on_has_match && !block_has_match(sel, order) {
        return Ok(None);
    }
    // Their copies, rewritten while the sources are read to resolve the
    // MATCHes, then put back.
    let mut on_conditions: Vec<(Vec<Expr>, Vec<Option<Expr>>)> = if on_has_match {
        sources
            .iter()
            .map(|src| {
                let checks = src.checks.iter().map(|c| c.cond.clone()).collect();
                (src.lookup.clone(), checks)
            })
            .collect()
    } else {
        Vec::new()
    };
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
    let view: &[Source] = sources;
    let resolve_match = |columns: &[ast::ObjectName], value: &ast::Value, m| {
        resolve(view, columns, value, m, s, params)
    };
    let reference = |n: usize, key: &MatchKey| {
        Expr::CompoundIdentifier(vec![
            ast::Ident::with_quote('`', view[key.source].alias.clone()),
            ast::Ident::with_quote('`', column_name(n)),
        ])
    };
    let mut replace = Replace {
        resolve: &resolve_match,
        reference: &reference,
        keys: Vec::new(),
        error: None,
    };
    let _ = sel.visit(&mut replace);
    for o in order.iter_mut() {
        if replace.error.is_none() {
            let _ = o.expr.visit(&mut replace);
        }
    }
    if on_has_match {
        for (lookup, checks) in on_conditions.iter_mut() {
            for e in lookup.iter_mut().chain(checks.iter_mut().flatten()) {
                if replace.error.is_none() {
                    let _ = e.visit(&mut replace);
                }
            }
        }
    }
    if let Some(e) = replace.error {
        return Err(e);
    }
    let keys = replace.keys;
    if on_has_match {
        for (src, (lookup, checks)) in sources.iter_mut().zip(on_conditions) {
            src.lookup = lookup;
            for (check, cond) in src.checks.iter_mut().zip(checks) {
                check.cond = cond;
            }
        }
    }
    // Run each search, then add the hidden columns.
    let mut found_rows: Vec<Vec<(Vec<u8>, f32)>> = Vec::with_capacity(keys.len());
    for key in &keys {
        let src = &sources[key.source];
        let SourceRows::Table(t) = &src.rows else {
            return Err(no_index());
        };
        found_rows.push(search_rows(s, &src.db, &src.table, t, key)?);
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

/// The relevance of each MATCH of a single-table UPDATE or DELETE
/// ([`rewrite_target`]): hidden columns past the table's own.
pub(crate) struct TargetMatches {
    /// The hidden columns' names, in order after the table's columns.
    names: Vec<String>,
    ranks: Vec<HashMap<Vec<u8>, f32>>,
}

impl TargetMatches {
    /// The position of the hidden column `name` (past `width` columns).
    pub(crate) fn column(&self, name: &str, width: usize) -> Option<usize> {
        self.names.iter().position(|n| n == name).map(|n| width + n)
    }

    /// The row at address `at` with its relevance values appended.
    pub(crate) fn extend(&self, at: &[u8], row: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(row.len() + self.ranks.len());
        out.extend_from_slice(row);
        out.extend(
            self.ranks
                .iter()
                .map(|r| Value::Double(r.get(at).copied().map_or(0.0, f64::from))),
        );
        out
    }
}

/// MATCH in the WHERE and ORDER BY of a single-table UPDATE or DELETE of
/// `db`.`name` (open as `t`, qualified as `alias`): runs each search once
/// and replaces each MATCH by a column name no column of the table has;
/// `None` when there is no MATCH (nothing changed).
pub(crate) fn rewrite_target(
    s: &Session,
    db: &str,
    name: &str,
    alias: &str,
    t: &Arc<Table>,
    exprs: &mut [&mut Expr],
    params: &[Value],
) -> Result<Option<TargetMatches>, SqlError> {
    if !exprs.iter().any(|e| has_match(e)) {
        return Ok(None);
    }
    let def = t.def();
    let find = |parts: &[ast::Ident]| -> Result<Option<(usize, usize)>, SqlError> {
        let (q, c) = match parts {
            [c] => (None, c),
            [tb, c] | [_, tb, c] => (Some(&tb.value), c),
            _ => return Ok(None),
        };
        if q.is_some_and(|q| q != alias && q != name) {
            return Ok(None);
        }
        Ok(def
            .columns
            .iter()
            .position(|col| col.name.eq_ignore_ascii_case(&c.value))
            .map(|i| (0, i)))
    };
    let table_of = |_: usize| Some(def);
    let resolve_match = |columns: &[ast::ObjectName], value: &ast::Value, m| {
        resolve_with(&find, &table_of, columns, value, m, s, params)
    };
    // `#match<n>`, with as many more `#` in front as it takes to be no
    // column's name.
    let mut prefix = String::from("#match");
    while def
        .columns
        .iter()
        .any(|c| c.name.to_ascii_lowercase().starts_with(&prefix))
    {
        prefix.insert(0, '#');
    }
    let hidden = |n: usize| format!("{prefix}{n}");
    let reference =
        |n: usize, _: &MatchKey| Expr::Identifier(ast::Ident::with_quote('`', hidden(n)));
    let mut replace = Replace {
        resolve: &resolve_match,
        reference: &reference,
        keys: Vec::new(),
        error: None,
    };
    for e in exprs.iter_mut() {
        if replace.error.is_none() {
            let _ = e.visit(&mut replace);
        }
    }
    if let Some(e) = replace.error {
        return Err(e);
    }
    let mut out = TargetMatches {
        names: Vec::with_capacity(replace.keys.len()),
        ranks: Vec::with_capacity(replace.keys.len()),
    };
    for (n, key) in replace.keys.iter().enumerate() {
        out.names.push(hidden(n));
        out.ranks
            .push(search_rows(s, db, name, t, key)?.into_iter().collect());
    }
    Ok(Some(out))
}
