//! The statement tree the generator builds and the reducer shrinks, and its
//! rendering to SQL text.
//!
//! Expressions are deliberately generic: a node is a list of text pieces
//! with child expressions between them (`CONCAT(` a `, ` b `)`), so every
//! operator and function is one constructor and the reducer can replace
//! any node by one of its children or by a literal without knowing what
//! the node means. Subqueries are nodes holding a whole query.

use std::fmt::Write;

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A literal, a column reference or any other atom.
    Leaf(String),
    /// Text pieces with children between them: `parts.len() == args.len() + 1`.
    Node { parts: Vec<String>, args: Vec<Expr> },
    /// One child written between every two pieces (the same expression
    /// several times, e.g. `GROUP_CONCAT(x ORDER BY x, BINARY x)`).
    Repeat { parts: Vec<String>, arg: Box<Expr> },
    /// A subquery with the text before and after it, e.g. `EXISTS (` .. `)`.
    Sub {
        before: String,
        query: Box<Query>,
        after: String,
    },
}

impl Expr {
    /// A leaf.
    pub fn leaf(s: impl Into<String>) -> Expr {
        Expr::Leaf(s.into())
    }

    /// `name(a, b, ...)`.
    pub fn call(name: &str, args: Vec<Expr>) -> Expr {
        if args.is_empty() {
            return Expr::Leaf(format!("{name}()"));
        }
        let mut parts = vec![format!("{name}(")];
        parts.extend((1..args.len()).map(|_| ", ".to_owned()));
        parts.push(")".to_owned());
        Expr::Node { parts, args }
    }

    /// A node from alternating pieces: `Expr::node(&["(", " + ", ")"], vec![a, b])`.
    pub fn node(parts: &[&str], args: Vec<Expr>) -> Expr {
        debug_assert_eq!(parts.len(), args.len() + 1);
        Expr::Node {
            parts: parts.iter().map(|s| (*s).to_owned()).collect(),
            args,
        }
    }

    /// A subquery node.
    pub fn sub(before: &str, query: Query, after: &str) -> Expr {
        Expr::Sub {
            before: before.to_owned(),
            query: Box::new(query),
            after: after.to_owned(),
        }
    }

    /// Appends the SQL text.
    pub fn write(&self, out: &mut String) {
        match self {
            Expr::Leaf(s) => out.push_str(s),
            Expr::Node { parts, args } => {
                for (i, p) in parts.iter().enumerate() {
                    out.push_str(p);
                    if let Some(a) = args.get(i) {
                        a.write(out);
                    }
                }
            }
            Expr::Repeat { parts, arg } => {
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        arg.write(out);
                    }
                    out.push_str(p);
                }
            }
            Expr::Sub {
                before,
                query,
                after,
            } => {
                out.push_str(before);
                query.write(out);
                out.push_str(after);
            }
        }
    }

    /// The SQL text.
    pub fn sql(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    /// Table references inside this expression's subqueries (a subquery
    /// counts at least one).
    pub fn table_refs(&self) -> usize {
        match self {
            Expr::Leaf(_) => 0,
            Expr::Node { args, .. } => args.iter().map(Expr::table_refs).sum(),
            Expr::Repeat { arg, .. } => arg.table_refs(),
            Expr::Sub { query, .. } => query.table_refs().max(1),
        }
    }

    /// The number of nodes (for choosing the smaller of two candidates).
    pub fn size(&self) -> usize {
        match self {
            Expr::Leaf(_) => 1,
            Expr::Node { args, .. } => 1 + args.iter().map(Expr::size).sum::<usize>(),
            Expr::Repeat { arg, .. } => 1 + arg.size(),
            Expr::Sub { query, .. } => 1 + query.size(),
        }
    }
}

/// A select-list item.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The expression.
    pub expr: Expr,
    /// True when the query groups by this item (`GROUP BY` its position).
    pub grouped: bool,
}

/// How a FROM element joins the previous ones.
#[derive(Clone, Debug, PartialEq)]
pub enum Join {
    /// The first element.
    First,
    /// `, t`.
    Comma,
    /// `CROSS JOIN t`.
    Cross,
    /// `[INNER] JOIN t ON e` / `LEFT JOIN` / `RIGHT JOIN`: the keyword and
    /// the condition.
    On(&'static str, Expr),
    /// `JOIN t USING (cols)` with the keyword.
    Using(&'static str, Vec<String>),
    /// `NATURAL [LEFT|RIGHT] JOIN t`.
    Natural(&'static str),
}

/// A FROM element: a table or a derived table, with its alias.
#[derive(Clone, Debug, PartialEq)]
pub struct From {
    /// How it joins.
    pub join: Join,
    /// A table name, or a derived table.
    pub source: Source,
    /// The alias.
    pub alias: String,
}

/// What a FROM element reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A base table or CTE by name.
    Table(String),
    /// `(SELECT ...)`.
    Derived(Box<Query>),
}

/// One SELECT.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Select {
    /// DISTINCT.
    pub distinct: bool,
    /// The select list; item i is aliased `c{i}`.
    pub items: Vec<Item>,
    /// FROM elements (empty: no FROM).
    pub from: Vec<From>,
    /// WHERE conjuncts.
    pub where_: Vec<Expr>,
    /// WITH ROLLUP (with grouped items).
    pub rollup: bool,
    /// HAVING conjuncts.
    pub having: Vec<Expr>,
    /// ORDER BY (item index, descending).
    pub order: Vec<(usize, bool)>,
    /// LIMIT count and OFFSET.
    pub limit: Option<(u32, u32)>,
    /// `ORDER BY` text used instead of `order` (INSERT ... SELECT orders by
    /// the source's primary key, which is not an item).
    pub order_raw: String,
}

/// A query: a SELECT, a set operation, or a WITH around a query.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    /// A SELECT.
    Select(Select),
    /// `l UNION|INTERSECT|EXCEPT [ALL] r`, parenthesised operands.
    SetOp {
        op: &'static str,
        left: Box<Query>,
        right: Box<Query>,
    },
    /// `WITH [RECURSIVE] name AS (q), ... body`.
    With {
        recursive: bool,
        ctes: Vec<(String, Query)>,
        body: Box<Query>,
    },
}

impl Select {
    /// Appends the SQL text.
    pub fn write(&self, out: &mut String) {
        out.push_str("SELECT ");
        if self.distinct {
            out.push_str("DISTINCT ");
        }
        for (i, it) in self.items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            it.expr.write(out);
            let _ = write!(out, " AS c{i}");
        }
        for f in &self.from {
            match &f.join {
                Join::First => out.push_str(" FROM "),
                Join::Comma => out.push_str(", "),
                Join::Cross => out.push_str(" CROSS JOIN "),
                Join::On(kw, _) | Join::Using(kw, _) => {
                    let _ = write!(out, " {kw} ");
                }
                Join::Natural(kw) => {
                    let _ = write!(out, " NATURAL {kw} ");
                }
            }
            match &f.source {
                Source::Table(t) => {
                    let _ = write!(out, "`{t}` AS {}", f.alias);
                }
                Source::Derived(q) => {
                    out.push('(');
                    q.write(out);
                    let _ = write!(out, ") AS {}", f.alias);
                }
            }
            match &f.join {
                Join::On(_, e) => {
                    out.push_str(" ON ");
                    e.write(out);
                }
                Join::Using(_, cols) => {
                    let _ = write!(out, " USING ({})", cols.join(", "));
                }
                _ => {}
            }
        }
        write_conjuncts(out, " WHERE ", &self.where_);
        let grouped: Vec<String> = self
            .items
            .iter()
            .enumerate()
            .filter(|(_, it)| it.grouped)
            .map(|(i, _)| (i + 1).to_string())
            .collect();
        if !grouped.is_empty() {
            let _ = write!(out, " GROUP BY {}", grouped.join(", "));
            if self.rollup {
                out.push_str(" WITH ROLLUP");
            }
        }
        write_conjuncts(out, " HAVING ", &self.having);
        if !self.order_raw.is_empty() {
            let _ = write!(out, " ORDER BY {}", self.order_raw);
        }
        write_order_limit(out, &self.order, self.limit);
    }

    /// True when the query aggregates (grouped items or aggregate calls
    /// are the generator's business; this only says GROUP BY is present).
    pub fn is_grouped(&self) -> bool {
        self.items.iter().any(|i| i.grouped)
    }
}

fn write_conjuncts(out: &mut String, kw: &str, cs: &[Expr]) {
    for (i, c) in cs.iter().enumerate() {
        out.push_str(if i == 0 { kw } else { " AND " });
        out.push('(');
        c.write(out);
        out.push(')');
    }
}

fn write_order_limit(out: &mut String, order: &[(usize, bool)], limit: Option<(u32, u32)>) {
    for (i, (k, desc)) in order.iter().enumerate() {
        out.push_str(if i == 0 { " ORDER BY " } else { ", " });
        let _ = write!(out, "{}{}", k + 1, if *desc { " DESC" } else { "" });
    }
    if let Some((n, off)) = limit {
        let _ = write!(out, " LIMIT {n}");
        if off > 0 {
            let _ = write!(out, " OFFSET {off}");
        }
    }
}

impl Query {
    /// Appends the SQL text.
    pub fn write(&self, out: &mut String) {
        match self {
            Query::Select(s) => s.write(out),
            Query::SetOp { op, left, right } => {
                left.write_operand(out);
                let _ = write!(out, " {op} ");
                right.write_operand(out);
            }
            Query::With {
                recursive,
                ctes,
                body,
            } => {
                out.push_str(if *recursive {
                    "WITH RECURSIVE "
                } else {
                    "WITH "
                });
                for (i, (name, q)) in ctes.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{name} AS (");
                    q.write(out);
                    out.push(')');
                }
                out.push(' ');
                body.write(out);
            }
        }
    }

    /// Appends the text as an operand of a set operation: a plain SELECT
    /// as it is, anything else in parentheses.
    fn write_operand(&self, out: &mut String) {
        match self {
            Query::Select(s)
                if s.order.is_empty() && s.limit.is_none() && s.order_raw.is_empty() =>
            {
                s.write(out)
            }
            _ => {
                out.push('(');
                self.write(out);
                out.push(')');
            }
        }
    }

    /// The SQL text.
    pub fn sql(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    /// Table references in FROM clauses and subqueries, all levels.
    pub fn table_refs(&self) -> usize {
        match self {
            Query::Select(s) => {
                let from: usize = s
                    .from
                    .iter()
                    .map(|f| {
                        (match &f.source {
                            Source::Table(_) => 1,
                            Source::Derived(q) => q.table_refs().max(1),
                        }) + match &f.join {
                            Join::On(_, e) => e.table_refs(),
                            _ => 0,
                        }
                    })
                    .sum();
                from + s.items.iter().map(|i| i.expr.table_refs()).sum::<usize>()
                    + s.where_
                        .iter()
                        .chain(&s.having)
                        .map(Expr::table_refs)
                        .sum::<usize>()
            }
            Query::SetOp { left, right, .. } => left.table_refs() + right.table_refs(),
            // A CTE body counts too: it is read at least once.
            Query::With { ctes, body, .. } => {
                body.table_refs()
                    + ctes
                        .iter()
                        .map(|(_, q)| q.table_refs().max(1))
                        .sum::<usize>()
            }
        }
    }

    /// The number of expression nodes and clauses, for reduction progress.
    pub fn size(&self) -> usize {
        match self {
            Query::Select(s) => {
                let exprs = s.items.iter().map(|i| i.expr.size()).sum::<usize>()
                    + s.where_.iter().map(Expr::size).sum::<usize>()
                    + s.having.iter().map(Expr::size).sum::<usize>();
                let from: usize = s
                    .from
                    .iter()
                    .map(|f| {
                        1 + match &f.join {
                            Join::On(_, e) => e.size(),
                            _ => 0,
                        } + match &f.source {
                            Source::Derived(q) => q.size(),
                            Source::Table(_) => 0,
                        }
                    })
                    .sum();
                exprs
                    + from
                    + s.order.len()
                    + usize::from(s.limit.is_some())
                    + usize::from(s.distinct)
                    + usize::from(s.rollup)
            }
            Query::SetOp { left, right, .. } => 1 + left.size() + right.size(),
            Query::With { ctes, body, .. } => {
                1 + body.size() + ctes.iter().map(|(_, q)| q.size()).sum::<usize>()
            }
        }
    }
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// A query.
    Query(Query),
    /// `INSERT [IGNORE] | REPLACE INTO t (cols) VALUES (...), ... | SELECT
    /// [ON DUPLICATE KEY UPDATE ...]`.
    Insert {
        verb: &'static str,
        table: String,
        cols: Vec<String>,
        rows: Vec<Vec<Expr>>,
        select: Option<Query>,
        odku: Vec<(String, Expr)>,
    },
    /// `UPDATE [IGNORE] t SET ... WHERE ... [ORDER BY pk LIMIT n]`.
    Update {
        verb: &'static str,
        table: String,
        sets: Vec<(String, Expr)>,
        where_: Vec<Expr>,
        order_limit: Option<(String, u32)>,
    },
    /// `DELETE FROM t WHERE ... [ORDER BY pk LIMIT n]`.
    Delete {
        table: String,
        where_: Vec<Expr>,
        order_limit: Option<(String, u32)>,
    },
    /// Any other statement as text (transaction control, SET).
    Raw(String),
}

impl Stmt {
    /// The SQL text.
    pub fn sql(&self) -> String {
        let mut out = String::new();
        match self {
            Stmt::Query(q) => q.write(&mut out),
            Stmt::Insert {
                verb,
                table,
                cols,
                rows,
                select,
                odku,
            } => {
                let _ = write!(out, "{verb} INTO `{table}` ({})", cols.join(", "));
                if let Some(q) = select {
                    out.push(' ');
                    q.write(&mut out);
                } else {
                    out.push_str(" VALUES ");
                    for (i, r) in rows.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push('(');
                        for (j, e) in r.iter().enumerate() {
                            if j > 0 {
                                out.push_str(", ");
                            }
                            e.write(&mut out);
                        }
                        out.push(')');
                    }
                }
                write_assignments(&mut out, " ON DUPLICATE KEY UPDATE ", odku);
            }
            Stmt::Update {
                verb,
                table,
                sets,
                where_,
                order_limit,
            } => {
                let _ = write!(out, "{verb} `{table}`");
                write_assignments(&mut out, " SET ", sets);
                write_conjuncts(&mut out, " WHERE ", where_);
                write_pk_limit(&mut out, order_limit);
            }
            Stmt::Delete {
                table,
                where_,
                order_limit,
            } => {
                let _ = write!(out, "DELETE FROM `{table}`");
                write_conjuncts(&mut out, " WHERE ", where_);
                write_pk_limit(&mut out, order_limit);
            }
            Stmt::Raw(s) => out.push_str(s),
        }
        out
    }

    /// True for statements that may change table contents.
    pub fn changes_data(&self) -> bool {
        match self {
            Stmt::Query(_) => false,
            Stmt::Raw(s) => {
                let u = s.to_ascii_uppercase();
                u.starts_with("ROLLBACK") || u.starts_with("COMMIT")
            }
            _ => true,
        }
    }

    /// Table references, all levels (the target of a data change counts).
    pub fn table_refs(&self) -> usize {
        let exprs = |v: &[Expr]| v.iter().map(Expr::table_refs).sum::<usize>();
        match self {
            Stmt::Query(q) => q.table_refs(),
            Stmt::Insert {
                rows, select, odku, ..
            } => {
                1 + rows.iter().map(|r| exprs(r)).sum::<usize>()
                    + select.as_ref().map_or(0, Query::table_refs)
                    + odku.iter().map(|(_, e)| e.table_refs()).sum::<usize>()
            }
            Stmt::Update { sets, where_, .. } => {
                1 + sets.iter().map(|(_, e)| e.table_refs()).sum::<usize>() + exprs(where_)
            }
            Stmt::Delete { where_, .. } => 1 + exprs(where_),
            Stmt::Raw(_) => 0,
        }
    }

    /// True for INSERT and REPLACE (whose LAST_INSERT_ID() is compared).
    pub fn is_insert(&self) -> bool {
        matches!(self, Stmt::Insert { .. })
    }
}

fn write_assignments(out: &mut String, kw: &str, sets: &[(String, Expr)]) {
    for (i, (c, e)) in sets.iter().enumerate() {
        out.push_str(if i == 0 { kw } else { ", " });
        let _ = write!(out, "{c} = ");
        e.write(out);
    }
}

fn write_pk_limit(out: &mut String, ol: &Option<(String, u32)>) {
    if let Some((order, n)) = ol {
        let _ = write!(out, " ORDER BY {order} LIMIT {n}");
    }
}
