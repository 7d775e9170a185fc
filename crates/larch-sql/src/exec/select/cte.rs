//! Common table expressions: `WITH [RECURSIVE] name [(columns)] AS (query), ...`
//! in front of any query (top-level SELECT, subqueries, derived tables,
//! INSERT ... SELECT, CREATE TABLE ... SELECT, views).
//!
//! Scopes: running a query with a WITH clause pushes a [`Scope`] on a
//! thread-local stack for as long as the query runs ([`enter`]); a FROM
//! entry whose name has no database qualifier is looked up there first,
//! innermost scope first ([`lookup`]), so a WITH element hides a table or
//! view of the same name (names compare case-insensitively, as MariaDB
//! compares WITH element names). In a non-recursive WITH an element sees the
//! elements before it only; in WITH RECURSIVE it sees all of them.
//!
//! Evaluation: an element is materialized the first time the statement reads
//! it and its rows are kept for the other references in the same run of the
//! query (under EXPLAIN every reference is planned on its own, as MariaDB
//! shows one derived table per reference). The element's query runs with
//! the scopes that were visible where it was defined, not those of the
//! reference.
//!
//! Recursive elements (WITH RECURSIVE, the element names itself): the
//! query must be a UNION of anchor parts (not naming the element) and
//! recursive parts. The anchors run once and give the result columns (names
//! from the column list, types from the first anchor; later rows are
//! converted to those types as a temporary table column would store them,
//! with MariaDB's truncation warnings or strict-mode errors). Then the
//! recursive parts run repeatedly, semi-naively: in each iteration the
//! element's name reads only the rows that were new in the previous one.
//! With UNION DISTINCT anywhere in the element, rows already produced are
//! dropped (so a cycle in a graph ends); with UNION ALL only an empty
//! iteration ends it. After `max_recursive_iterations` iterations the
//! evaluation stops with MariaDB's warning 1931.
//!
//! Errors (MariaDB's codes): 4002 column list of the wrong length, 1060
//! two columns of one name, 4004
//! duplicate name in one WITH, 4005 a recursive element (or cycle of
//! elements) without anchors,
//! 4008 a recursive reference where the standard forbids it (in a subquery
//! of an expression, twice in one part, on the inner side of an outer join,
//! in a part that aggregates); mutual recursion between elements and ORDER
//! BY/LIMIT on a recursive element are 1235.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::rc::Rc;

use larch_engine::record::value::Value;
use sqlparser::ast;

use super::materialized::{Materialized, Materializer};
use super::query::run_set_expr;
use super::{aggregate, explain};
use crate::error::{SqlError, Warning};
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;
use crate::value::store::{store, StoreTarget};

/// One element of a WITH clause.
struct Element {
    name: String,
    /// The explicit column list (empty: names from the query).
    columns: Vec<String>,
    query: ast::Query,
    /// WITH RECURSIVE and the query names the element.
    recursive: bool,
    state: RefCell<State>,
}

/// How far an element's evaluation got.
enum State {
    Pending,
    /// The element's query is running (a reference now is a cycle).
    Computing,
    /// A recursive element between iterations: references read `delta`,
    /// the rows new in the previous iteration. `explain_id` is the id of
    /// the element's first block when explaining.
    Iterating {
        delta: Rc<ElementRows>,
        explain_id: u64,
    },
    Done(Rc<ElementRows>),
}

/// An element's rows (or a recursive element's rows of one iteration).
pub(super) struct ElementRows {
    pub columns: Vec<ResultColumn>,
    /// Shared by the references (a clone shares them).
    pub rows: Materialized,
}

/// The elements of one WITH clause, while its query runs.
pub(super) struct Scope {
    recursive: bool,
    elements: Vec<Element>,
    /// Elements visible to lookups: all of them, or while element `i` of a
    /// non-recursive WITH is evaluated, those before it.
    visible: Cell<usize>,
}

thread_local! {
    static SCOPES: RefCell<Vec<Rc<Scope>>> = const { RefCell::new(Vec::new()) };
    /// Warnings of recursive evaluation (conversions, the iteration limit),
    /// handed to the statement by [`take_warnings`].
    static WARNINGS: RefCell<Vec<Warning>> = const { RefCell::new(Vec::new()) };
}

/// Keeps a scope on the stack; popped when dropped.
pub(super) struct ScopeGuard;

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        SCOPES.with(|s| s.borrow_mut().pop());
    }
}

/// True when `name` is an unqualified name that `q` relates to.
fn names_element(q: &impl ast::Visit, name: &str) -> bool {
    ast::visit_relations(q, |r: &ast::ObjectName| {
        if single_name(r).is_some_and(|n| n.eq_ignore_ascii_case(name)) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// The name of an object name without a database qualifier.
fn single_name(n: &ast::ObjectName) -> Option<&str> {
    match n.0.as_slice() {
        [one] => one.as_ident().map(|i| i.value.as_str()),
        _ => None,
    }
}

/// Pushes the scope of `with` (checked for duplicate names) for the
/// query it belongs to.
pub(super) fn enter(with: &ast::With) -> Result<ScopeGuard, SqlError> {
    let mut elements: Vec<Element> = Vec::with_capacity(with.cte_tables.len());
    for cte in &with.cte_tables {
        let name = cte.alias.name.value.clone();
        if elements.iter().any(|e| e.name.eq_ignore_ascii_case(&name)) {
            return Err(SqlError::new(
                4004,
                format!("Duplicate query name `{name}` in WITH clause"),
            ));
        }
        let recursive = with.recursive && names_element(cte.query.as_ref(), &name);
        elements.push(Element {
            columns: cte
                .alias
                .columns
                .iter()
                .map(|c| c.name.value.clone())
                .collect(),
            query: (*cte.query).clone(),
            recursive,
            name,
            state: RefCell::new(State::Pending),
        });
    }
    if with.recursive {
        check_anchors(&elements)?;
    }
    let visible = elements.len();
    SCOPES.with(|s| {
        s.borrow_mut().push(Rc::new(Scope {
            recursive: with.recursive,
            elements,
            visible: Cell::new(visible),
        }))
    });
    Ok(ScopeGuard)
}

/// 4005 for the first recursive element (in a cycle of references, itself
/// included) that has no anchor while no element of its cycle has one: an
/// anchor is a UNION operand that names no element of the cycle.
fn check_anchors(elements: &[Element]) -> Result<(), SqlError> {
    let n = elements.len();
    let mut reach: Vec<Vec<bool>> = elements
        .iter()
        .map(|e| {
            elements
                .iter()
                .map(|o| names_element(&e.query, &o.name))
                .collect()
        })
        .collect();
    // Transitive closure (Warshall).
    for k in 0..n {
        let through = reach[k].clone();
        for row in reach.iter_mut() {
            if row[k] {
                for (x, &y) in row.iter_mut().zip(&through) {
                    *x |= y;
                }
            }
        }
    }
    let group =
        |i: usize| -> Vec<usize> { (0..n).filter(|&j| reach[i][j] && reach[j][i]).collect() };
    let anchored = |i: usize| {
        let mut parts = Vec::new();
        let mut all = true;
        union_parts(&elements[i].query.body, &mut parts, &mut all);
        let cycle = group(i);
        parts
            .iter()
            .any(|p| cycle.iter().all(|&j| !names_element(p, &elements[j].name)))
    };
    for i in 0..n {
        if reach[i][i] && !group(i).into_iter().any(anchored) {
            return Err(SqlError::new(
                4005,
                format!(
                    "No anchors for recursive WITH element '{}'",
                    elements[i].name
                ),
            ));
        }
    }
    Ok(())
}

/// A WITH element found by name.
pub(super) struct Found {
    scope: Rc<Scope>,
    index: usize,
}

/// The WITH element an unqualified FROM name refers to, if any.
pub(super) fn lookup(name: &ast::ObjectName) -> Option<Found> {
    let name = single_name(name)?;
    SCOPES.with(|s| {
        s.borrow().iter().rev().find_map(|scope| {
            scope.elements[..scope.visible.get()]
                .iter()
                .position(|e| e.name.eq_ignore_ascii_case(name))
                .map(|index| Found {
                    scope: Rc::clone(scope),
                    index,
                })
        })
    })
}

/// Warnings left by recursive evaluation since the last call.
pub(crate) fn take_warnings() -> Vec<Warning> {
    WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()))
}

/// Restores the scope stack above a scope and its visibility when dropped.
struct DefinitionView {
    scope: Rc<Scope>,
    hidden: Vec<Rc<Scope>>,
    visible: usize,
}

impl DefinitionView {
    /// Makes the stack what it was where element `index` of `scope` was
    /// defined: scopes opened since are hidden, and in a non-recursive WITH
    /// only the elements before it are visible.
    fn open(scope: &Rc<Scope>, index: usize) -> DefinitionView {
        let hidden = SCOPES.with(|s| {
            let mut s = s.borrow_mut();
            match s.iter().position(|x| Rc::ptr_eq(x, scope)) {
                Some(p) => s.split_off(p + 1),
                None => Vec::new(),
            }
        });
        let visible = scope.visible.get();
        if !scope.recursive {
            scope.visible.set(index);
        }
        DefinitionView {
            scope: Rc::clone(scope),
            hidden,
            visible,
        }
    }
}

impl Drop for DefinitionView {
    fn drop(&mut self) {
        self.scope.visible.set(self.visible);
        let hidden = std::mem::take(&mut self.hidden);
        SCOPES.with(|s| s.borrow_mut().extend(hidden));
    }
}

/// The rows of a WITH element and, when explaining, the name its
/// reference is shown with (`<derivedN>`).
pub(super) fn rows(
    s: &Session,
    found: &Found,
    params: &[Value],
) -> Result<(Rc<ElementRows>, Option<String>), SqlError> {
    let element = &found.scope.elements[found.index];
    match &*element.state.borrow() {
        State::Done(set) => return Ok((Rc::clone(set), None)),
        State::Iterating { delta, explain_id } => {
            let name = explain::active(s).then(|| format!("<derived{explain_id}>"));
            return Ok((Rc::clone(delta), name));
        }
        State::Computing => {
            return Err(SqlError::not_supported("mutually recursive WITH elements"))
        }
        State::Pending => {}
    }
    let explain_id = explain::next_id(s);
    let name = explain::active(s).then(|| format!("<derived{explain_id}>"));
    element.state.replace(State::Computing);
    let r = {
        let _view = DefinitionView::open(&found.scope, found.index);
        let in_from = explain::set_in_from(s, true);
        let r = if element.recursive {
            recursive_rows(s, element, params)
        } else {
            super::run_derived(s, &element.query, params).and_then(|(mut columns, rows)| {
                rename(&mut columns, &element.columns)?;
                check_unique_names(&columns)?;
                Ok(ElementRows { columns, rows })
            })
        };
        explain::set_in_from(s, in_from);
        explain::forget_derived(s, explain_id);
        r
    };
    let set = match r {
        Ok(set) => Rc::new(set),
        Err(e) => {
            element.state.replace(State::Pending);
            return Err(e);
        }
    };
    // Under EXPLAIN each reference plans the element again.
    let next = if explain::active(s) {
        State::Pending
    } else {
        State::Done(Rc::clone(&set))
    };
    element.state.replace(next);
    Ok((set, name))
}

/// Plans (reads no rows of) the elements of the innermost scope that no
/// reference evaluated, so that errors in their definitions are reported.
pub(super) fn check_unreferenced(s: &Session, params: &[Value]) -> Result<(), SqlError> {
    let Some(scope) = SCOPES.with(|st| st.borrow().last().cloned()) else {
        return Ok(());
    };
    for (index, element) in scope.elements.iter().enumerate() {
        if !matches!(&*element.state.borrow(), State::Pending) {
            continue;
        }
        let _view = DefinitionView::open(&scope, index);
        let _describing = s.execution.describing();
        element.state.replace(State::Computing);
        let r = if element.recursive {
            recursive_rows(s, element, params).map(drop)
        } else {
            super::run_query(s, &element.query, params).and_then(|mut set| {
                rename(&mut set.columns, &element.columns)?;
                check_unique_names(&set.columns)
            })
        };
        element.state.replace(State::Pending);
        r?;
    }
    Ok(())
}

/// Names the columns by the element's column list (4002 when its length
/// differs).
fn rename(columns: &mut [ResultColumn], names: &[String]) -> Result<(), SqlError> {
    if names.is_empty() {
        return Ok(());
    }
    if names.len() != columns.len() {
        return Err(SqlError::new(
            4002,
            "WITH column list and SELECT field list have different column counts",
        ));
    }
    for (c, n) in columns.iter_mut().zip(names) {
        c.name = n.clone();
    }
    Ok(())
}

/// 1060 when two columns of an element have one name.
fn check_unique_names(columns: &[ResultColumn]) -> Result<(), SqlError> {
    for (i, c) in columns.iter().enumerate() {
        if columns[..i]
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case(&c.name))
        {
            return Err(SqlError::new(
                crate::error::code::DUP_FIELDNAME,
                format!("Duplicate column name '{}'", c.name),
            ));
        }
    }
    Ok(())
}

/// The operands of a UNION chain, with whether every UNION in it is ALL.
fn union_parts(body: &ast::SetExpr, out: &mut Vec<ast::SetExpr>, all: &mut bool) -> bool {
    match body {
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } => {
            if !matches!(set_quantifier, ast::SetQuantifier::All) {
                *all = false;
            }
            union_parts(left, out, all);
            union_parts(right, out, all);
            true
        }
        other => {
            out.push(other.clone());
            false
        }
    }
}

fn not_compliant(name: &str) -> SqlError {
    SqlError::new(
        4008,
        format!("Restrictions imposed on recursive definitions are violated for table '{name}'"),
    )
}

/// Checks a recursive part against the standard's restrictions (4008).
fn check_recursive_part(part: &ast::SetExpr, name: &str) -> Result<(), SqlError> {
    let ast::SetExpr::Select(sel) = part else {
        return Ok(());
    };
    // In a subquery of an expression.
    let mut in_subquery = false;
    let _ = ast::visit_expressions(sel.as_ref(), |e| {
        let q = match e {
            ast::Expr::Subquery(q) => Some(q),
            ast::Expr::InSubquery { subquery, .. } => Some(subquery),
            ast::Expr::Exists { subquery, .. } => Some(subquery),
            _ => None,
        };
        if q.is_some_and(|q| names_element(q.as_ref(), name)) {
            in_subquery = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    if in_subquery {
        return Err(not_compliant(name));
    }
    // Referenced once, not on the inner side of an outer join.
    let names_it = |f: &ast::TableFactor| match f {
        ast::TableFactor::Table { name: n, .. } => {
            single_name(n).is_some_and(|n| n.eq_ignore_ascii_case(name))
        }
        other => names_element(other, name),
    };
    let mut count = 0;
    for twj in &sel.from {
        count += usize::from(names_it(&twj.relation));
        for (k, j) in twj.joins.iter().enumerate() {
            use ast::JoinOperator as J;
            let here = names_it(&j.relation);
            count += usize::from(here);
            let inner_side = match &j.join_operator {
                J::Left(_) | J::LeftOuter(_) => here,
                J::Right(_) | J::RightOuter(_) => {
                    names_it(&twj.relation) || twj.joins[..k].iter().any(|p| names_it(&p.relation))
                }
                J::FullOuter(_) => true,
                _ => false,
            };
            if inner_side && (here || !matches!(j.join_operator, J::FullOuter(_))) {
                return Err(not_compliant(name));
            }
        }
    }
    if count > 1 {
        return Err(not_compliant(name));
    }
    // Aggregation over the recursive rows.
    let grouped = match &sel.group_by {
        ast::GroupByExpr::Expressions(v, _) => !v.is_empty(),
        ast::GroupByExpr::All(_) => true,
    };
    let aggregates = sel.projection.iter().any(|p| match p {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
            aggregate::has_aggregate(e)
        }
        _ => false,
    });
    if grouped || aggregates || sel.having.is_some() {
        return Err(not_compliant(name));
    }
    Ok(())
}

/// Evaluates a recursive element (see the module documentation).
fn recursive_rows(s: &Session, e: &Element, params: &[Value]) -> Result<ElementRows, SqlError> {
    let q = &e.query;
    if q.order_by.is_some() || q.limit_clause.is_some() || q.fetch.is_some() {
        return Err(SqlError::not_supported("ORDER BY / LIMIT in recursive CTE"));
    }
    let mut parts = Vec::new();
    let mut all = true;
    union_parts(&q.body, &mut parts, &mut all);
    let (anchors, recursive): (Vec<_>, Vec<_>) =
        parts.into_iter().partition(|p| !names_element(p, &e.name));
    if anchors.is_empty() {
        return Err(SqlError::new(
            4005,
            format!("No anchors for recursive WITH element '{}'", e.name),
        ));
    }
    for p in &recursive {
        check_recursive_part(p, &e.name)?;
    }
    let _depth = explain::enter(s);
    let explaining = explain::active(s);
    let explain_first = explain::next_id(s);
    let warnings = RefCell::new(Vec::new());
    let strict = s.strict();
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut columns: Vec<ResultColumn> = Vec::new();
    // The rows produced, held in memory or moved to disk past the
    // temporary table size, and their count.
    let mut total = Materializer::new(super::groups::SpillPolicy::of(s));
    let mut total_rows = 0u64;
    // Adds the rows of one part: converted to the element's column types
    // (but the first anchor's, which define them), without those already
    // produced under UNION DISTINCT; returns the new ones.
    let mut add = |set: RowSet,
                   columns: &[ResultColumn],
                   total: &mut Materializer,
                   convert: bool|
     -> Result<Vec<Vec<Value>>, SqlError> {
        let colls = aggregate::column_collations(columns);
        let row_key = |row: &[Value]| {
            let mut key = Vec::new();
            aggregate::column_key_into(row, &colls, &mut key);
            key
        };
        if set.columns.len() != columns.len() {
            return Err(SqlError::new(
                1222,
                "The used SELECT statements have a different number of columns",
            ));
        }
        let mut new = Vec::new();
        for row in set.rows {
            if !convert {
                if all || seen.insert(row_key(&row)) {
                    total.push(row.clone())?;
                    total_rows += 1;
                    new.push(row);
                }
                continue;
            }
            let mut out = Vec::with_capacity(row.len());
            let mut conversions = Vec::new();
            for (v, c) in row.iter().zip(columns) {
                let target = StoreTarget {
                    db: "",
                    table: &e.name,
                    column: &c.name,
                    row: total_rows + 1,
                    strict,
                };
                out.push(store(v, &c.ty, &target, &mut conversions)?);
            }
            if !all && !seen.insert(row_key(&out)) {
                continue;
            }
            warnings.borrow_mut().extend(conversions);
            total.push(out.clone())?;
            total_rows += 1;
            new.push(out);
        }
        Ok(new)
    };
    let mut delta: Vec<Vec<Value>> = Vec::new();
    for (k, part) in anchors.iter().enumerate() {
        if k > 0 {
            explain::union_right(s);
        }
        let set = run_set_expr(s, part, params, &warnings)?;
        if k == 0 {
            columns = set.columns.clone();
            rename(&mut columns, &e.columns)?;
            check_unique_names(&columns)?;
        }
        delta.extend(add(set, &columns, &mut total, k > 0)?);
    }
    let limit = u64::try_from(s.int_var("max_recursive_iterations")).unwrap_or(0);
    let mut iterations = 0u64;
    while !delta.is_empty() || (explaining && iterations == 0) {
        if iterations >= limit && !explaining {
            warnings.borrow_mut().push(Warning::warn(
                1931,
                format!(
                    "Query execution was interrupted. The query exceeded max_recursive_iterations = {limit}. The query result may be incomplete"
                ),
            ));
            break;
        }
        iterations += 1;
        let input = Rc::new(ElementRows {
            columns: columns.clone(),
            rows: std::mem::take(&mut delta).into(),
        });
        e.state.replace(State::Iterating {
            delta: input,
            explain_id: explain_first,
        });
        // Every recursive part of an iteration reads the same input.
        let mut produced = Ok(());
        for part in &recursive {
            if explaining {
                explain::recursive_union(s);
            }
            match run_set_expr(s, part, params, &warnings)
                .and_then(|set| add(set, &columns, &mut total, true))
            {
                Ok(new) => delta.extend(new),
                Err(err) => {
                    produced = Err(err);
                    break;
                }
            }
        }
        e.state.replace(State::Computing);
        produced?;
    }
    if explaining {
        explain::union_result(s, explain_first);
    }
    WARNINGS.with(|w| w.borrow_mut().extend(warnings.into_inner()));
    for c in &mut columns {
        c.table = e.name.clone();
        c.org_table = String::new();
    }
    Ok(ElementRows {
        columns,
        rows: total.finish(Vec::new())?,
    })
}

/// The names of the WITH elements defined anywhere in `q` (for qualifying
/// a view's table names: these are not tables).
pub(crate) fn defined_names(q: &ast::Query) -> Vec<String> {
    let mut out = Vec::new();
    struct Names<'a>(&'a mut Vec<String>);
    impl ast::Visitor for Names<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
            if let Some(w) = &q.with {
                for c in &w.cte_tables {
                    self.0.push(c.alias.name.value.clone());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let _ = ast::Visit::visit(q, &mut Names(&mut out));
    out
}
