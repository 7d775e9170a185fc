//! One-step simplifications of a statement, for delta reduction: dropping
//! select items, WHERE/HAVING conjuncts, joins, DISTINCT, ROLLUP, LIMIT,
//! ORDER BY keys, CTEs, set-operation sides, VALUES rows and assignments,
//! and replacing any expression node by one of its children or by a
//! literal. The runner tries the variants in order (largest cuts first) and
//! keeps the first that still shows the same mismatch, until none does.
//!
//! Variants never remove a GROUP BY (an ungrouped select list with
//! aggregates could return an arbitrary row) nor the ORDER BY of a LIMIT.

use crate::ast::{Expr, Join, Query, Select, Source, Stmt};

/// Every one-step simplification of `s`, larger cuts first.
pub fn variants(s: &Stmt) -> Vec<Stmt> {
    match s {
        Stmt::Query(q) => query_variants(q).into_iter().map(Stmt::Query).collect(),
        Stmt::Insert {
            verb,
            table,
            cols,
            rows,
            select,
            odku,
        } => {
            let mk = |rows: Vec<Vec<Expr>>,
                      select: Option<Query>,
                      odku: Vec<(String, Expr)>,
                      verb: &'static str| Stmt::Insert {
                verb,
                table: table.clone(),
                cols: cols.clone(),
                rows,
                select,
                odku,
            };
            let mut out = Vec::new();
            for i in 0..odku.len() {
                let mut o = odku.clone();
                o.remove(i);
                out.push(mk(rows.clone(), select.clone(), o, verb));
            }
            if rows.len() > 1 {
                for i in 0..rows.len() {
                    let mut r = rows.clone();
                    r.remove(i);
                    out.push(mk(r, select.clone(), odku.clone(), verb));
                }
            }
            if *verb == "INSERT IGNORE" {
                out.push(mk(rows.clone(), select.clone(), odku.clone(), "INSERT"));
            }
            if let Some(q) = select {
                for v in query_variants(q) {
                    out.push(mk(rows.clone(), Some(v), odku.clone(), verb));
                }
            }
            for (i, r) in rows.iter().enumerate() {
                for (j, e) in r.iter().enumerate() {
                    for v in expr_variants(e) {
                        let mut rs = rows.clone();
                        rs[i][j] = v;
                        out.push(mk(rs, select.clone(), odku.clone(), verb));
                    }
                }
            }
            for (i, (_, e)) in odku.iter().enumerate() {
                for v in expr_variants(e) {
                    let mut o = odku.clone();
                    o[i].1 = v;
                    out.push(mk(rows.clone(), select.clone(), o, verb));
                }
            }
            out
        }
        Stmt::Update {
            verb,
            table,
            sets,
            where_,
            order_limit,
        } => {
            let mk = |sets: Vec<(String, Expr)>, where_: Vec<Expr>, ol: Option<(String, u32)>| {
                Stmt::Update {
                    verb,
                    table: table.clone(),
                    sets,
                    where_,
                    order_limit: ol,
                }
            };
            let mut out = Vec::new();
            if sets.len() > 1 {
                for i in 0..sets.len() {
                    let mut s2 = sets.clone();
                    s2.remove(i);
                    out.push(mk(s2, where_.clone(), order_limit.clone()));
                }
            }
            for w in drop_each(where_) {
                out.push(mk(sets.clone(), w, order_limit.clone()));
            }
            if order_limit.is_some() {
                out.push(mk(sets.clone(), where_.clone(), None));
            }
            for (i, (_, e)) in sets.iter().enumerate() {
                for v in expr_variants(e) {
                    let mut s2 = sets.clone();
                    s2[i].1 = v;
                    out.push(mk(s2, where_.clone(), order_limit.clone()));
                }
            }
            for w in exprs_variants(where_) {
                out.push(mk(sets.clone(), w, order_limit.clone()));
            }
            out
        }
        Stmt::Delete {
            table,
            where_,
            order_limit,
        } => {
            let mk = |where_: Vec<Expr>, ol: Option<(String, u32)>| Stmt::Delete {
                table: table.clone(),
                where_,
                order_limit: ol,
            };
            let mut out = Vec::new();
            for w in drop_each(where_) {
                out.push(mk(w, order_limit.clone()));
            }
            if order_limit.is_some() {
                out.push(mk(where_.clone(), None));
            }
            for w in exprs_variants(where_) {
                out.push(mk(w, order_limit.clone()));
            }
            out
        }
        Stmt::Raw(_) => Vec::new(),
    }
}

fn drop_each<T: Clone>(v: &[T]) -> Vec<Vec<T>> {
    (0..v.len())
        .map(|i| {
            let mut w = v.to_vec();
            w.remove(i);
            w
        })
        .collect()
}

/// Variants of a list of expressions changing one element.
fn exprs_variants(v: &[Expr]) -> Vec<Vec<Expr>> {
    let mut out = Vec::new();
    for (i, e) in v.iter().enumerate() {
        for x in expr_variants(e) {
            let mut w = v.to_vec();
            w[i] = x;
            out.push(w);
        }
    }
    out
}

/// Simplifications of one expression: a child in its place, a literal in
/// its place, or a simplification inside a child or subquery.
pub fn expr_variants(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    let lits = ["NULL", "1", "0", "'a'"];
    match e {
        Expr::Leaf(s) => {
            if !lits.contains(&s.as_str()) {
                out.extend(lits.iter().map(|l| Expr::leaf(*l)));
            }
        }
        Expr::Node { parts, args } => {
            out.extend(args.iter().cloned());
            out.extend(lits.iter().map(|l| Expr::leaf(*l)));
            for (i, a) in args.iter().enumerate() {
                for v in expr_variants(a) {
                    let mut args2 = args.clone();
                    args2[i] = v;
                    out.push(Expr::Node {
                        parts: parts.clone(),
                        args: args2,
                    });
                }
            }
        }
        Expr::Repeat { parts, arg } => {
            out.push((**arg).clone());
            out.extend(lits.iter().map(|l| Expr::leaf(*l)));
            for v in expr_variants(arg) {
                out.push(Expr::Repeat {
                    parts: parts.clone(),
                    arg: Box::new(v),
                });
            }
        }
        Expr::Sub {
            before,
            query,
            after,
        } => {
            out.extend(lits.iter().map(|l| Expr::leaf(*l)));
            for q in query_variants(query) {
                out.push(Expr::Sub {
                    before: before.clone(),
                    query: Box::new(q),
                    after: after.clone(),
                });
            }
        }
    }
    out
}

/// Simplifications of a query.
pub fn query_variants(q: &Query) -> Vec<Query> {
    match q {
        Query::Select(s) => select_variants(s).into_iter().map(Query::Select).collect(),
        Query::SetOp { op, left, right } => {
            let mut out = vec![(**left).clone()];
            for l in query_variants(left) {
                out.push(Query::SetOp {
                    op,
                    left: Box::new(l),
                    right: right.clone(),
                });
            }
            for r in query_variants(right) {
                out.push(Query::SetOp {
                    op,
                    left: left.clone(),
                    right: Box::new(r),
                });
            }
            out
        }
        Query::With {
            recursive,
            ctes,
            body,
        } => {
            let mut out = Vec::new();
            if ctes.len() > 1 {
                for c in drop_each(ctes) {
                    out.push(Query::With {
                        recursive: *recursive,
                        ctes: c,
                        body: body.clone(),
                    });
                }
            }
            if !*recursive {
                out.push((**body).clone());
            }
            for b in query_variants(body) {
                out.push(Query::With {
                    recursive: *recursive,
                    ctes: ctes.clone(),
                    body: Box::new(b),
                });
            }
            for (i, (name, cq)) in ctes.iter().enumerate() {
                for v in query_variants(cq) {
                    let mut c = ctes.clone();
                    c[i] = (name.clone(), v);
                    out.push(Query::With {
                        recursive: *recursive,
                        ctes: c,
                        body: body.clone(),
                    });
                }
            }
            out
        }
    }
}

fn select_variants(s: &Select) -> Vec<Select> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(&mut Select)| {
        let mut c = s.clone();
        f(&mut c);
        c
    };
    // Drop a select item (positions in ORDER BY follow).
    if s.items.len() > 1 {
        for i in 0..s.items.len() {
            if s.items[i].grouped
                && s.items.iter().filter(|x| x.grouped).count() == 1
                && s.items.iter().any(|x| !x.grouped)
            {
                continue; // keep the last GROUP BY key
            }
            out.push(with(&|c: &mut Select| {
                c.items.remove(i);
                c.order = c
                    .order
                    .iter()
                    .filter(|(k, _)| *k != i)
                    .map(|&(k, d)| (if k > i { k - 1 } else { k }, d))
                    .collect();
                if c.order.is_empty() {
                    c.limit = None;
                }
            }));
        }
    }
    // Drop the last FROM element, or turn a join into a simpler one.
    if s.from.len() > 1 {
        out.push(with(&|c: &mut Select| {
            c.from.pop();
        }));
        for i in 1..s.from.len() {
            if !matches!(s.from[i].join, Join::Comma) {
                out.push(with(&|c: &mut Select| c.from[i].join = Join::Comma));
            }
            if let Join::On(kw, e) = &s.from[i].join {
                if *kw != "JOIN" {
                    let e = e.clone();
                    out.push(with(&|c: &mut Select| {
                        c.from[i].join = Join::On("JOIN", e.clone())
                    }));
                }
            }
        }
    }
    for w in drop_each(&s.where_) {
        out.push(with(&|c: &mut Select| c.where_ = w.clone()));
    }
    for h in drop_each(&s.having) {
        out.push(with(&|c: &mut Select| c.having = h.clone()));
    }
    if s.distinct {
        out.push(with(&|c: &mut Select| c.distinct = false));
    }
    if s.rollup {
        out.push(with(&|c: &mut Select| c.rollup = false));
    }
    if s.limit.is_some() {
        out.push(with(&|c: &mut Select| c.limit = None));
    } else if !s.order.is_empty() {
        out.push(with(&|c: &mut Select| c.order.clear()));
    }
    for (i, it) in s.items.iter().enumerate() {
        for v in expr_variants(&it.expr) {
            out.push(with(&|c: &mut Select| c.items[i].expr = v.clone()));
        }
    }
    for w in exprs_variants(&s.where_) {
        out.push(with(&|c: &mut Select| c.where_ = w.clone()));
    }
    for h in exprs_variants(&s.having) {
        out.push(with(&|c: &mut Select| c.having = h.clone()));
    }
    for (i, f) in s.from.iter().enumerate() {
        if let Join::On(kw, e) = &f.join {
            for v in expr_variants(e) {
                out.push(with(&|c: &mut Select| {
                    c.from[i].join = Join::On(kw, v.clone())
                }));
            }
        }
        if let Source::Derived(q) = &f.source {
            for v in query_variants(q) {
                out.push(with(&|c: &mut Select| {
                    c.from[i].source = Source::Derived(Box::new(v.clone()))
                }));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{From, Item};

    fn select() -> Stmt {
        let add = Expr::node(
            &["(", " + ", ")"],
            vec![Expr::leaf("a1.b"), Expr::leaf("2")],
        );
        Stmt::Query(Query::Select(Select {
            items: vec![
                Item {
                    expr: add,
                    grouped: false,
                },
                Item {
                    expr: Expr::leaf("a1.c"),
                    grouped: false,
                },
            ],
            from: vec![From {
                join: Join::First,
                source: Source::Table("t1".into()),
                alias: "a1".into(),
            }],
            where_: vec![Expr::leaf("a1.c > 0")],
            order: vec![(1, false)],
            ..Select::default()
        }))
    }

    #[test]
    fn variants_drop_items_and_follow_order_positions() {
        let v: Vec<String> = variants(&select()).iter().map(Stmt::sql).collect();
        assert!(
            v.contains(&"SELECT a1.c AS c0 FROM `t1` AS a1 WHERE (a1.c > 0) ORDER BY 1".to_owned())
        );
        assert!(v.contains(&"SELECT (a1.b + 2) AS c0 FROM `t1` AS a1 WHERE (a1.c > 0)".to_owned()));
        assert!(v.contains(
            &"SELECT (a1.b + 2) AS c0, a1.c AS c1 FROM `t1` AS a1 ORDER BY 2".to_owned()
        ));
        assert!(v.contains(
            &"SELECT a1.b AS c0, a1.c AS c1 FROM `t1` AS a1 WHERE (a1.c > 0) ORDER BY 2".to_owned()
        ));
    }

    #[test]
    fn expression_variants_are_children_and_literals() {
        let e = Expr::call("ABS", vec![Expr::leaf("x")]);
        let v: Vec<String> = expr_variants(&e).iter().map(Expr::sql).collect();
        assert_eq!(v[0], "x");
        assert!(v.contains(&"NULL".to_owned()));
        assert!(v.contains(&"ABS(1)".to_owned()));
    }
}
