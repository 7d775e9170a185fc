//! Query generation: SELECTs over one to three FROM elements joined every
//! way (comma, INNER/LEFT/RIGHT ... ON, CROSS, NATURAL, USING), derived
//! tables and CTEs (recursive too), WHERE, grouping (only grouped items and
//! aggregates in the select list, so results are deterministic), HAVING,
//! WITH ROLLUP, DISTINCT, window functions, set operations, subqueries for
//! expressions, and the top-level ORDER BY/LIMIT with the comparison order
//! it implies.

use super::{Gen, Scope, ScopeCol};
use crate::ast::{Expr, From, Item, Join, Query, Select, Source};
use crate::compare::Order;
use crate::schema::Ty;

/// A CTE visible to the FROM clauses being generated: name and column types.
type Cte = (String, Vec<Ty>);

impl Gen {
    /// A top-level query and how its rows are ordered.
    pub fn top_query(&mut self) -> (Query, Order) {
        let w = [
            55,
            15,
            if self.on("union") { 6 } else { 0 },
            if self.on("intersect") || self.on("except") {
                4
            } else {
                0
            },
            if self.on("cte") { 5 } else { 0 },
            if self.on("recursive-cte") { 3 } else { 0 },
            5,
            if self.on("window") { 4 } else { 0 },
        ];
        match self.weighted(&w) {
            0 => self.ordered(|g| g.select(3, &[], &[], None)),
            1 => self.ordered(|g| g.grouped_select(&[], &[])),
            2 | 3 => (self.set_op(&[], &[]), Order::Unordered),
            4 => self.with_query(false),
            5 => self.with_query(true),
            6 => {
                let mut s = Select::default();
                for _ in 0..1 + self.below(4) {
                    let (e, _) = self.any_expr(4, &Scope::default());
                    s.items.push(Item {
                        expr: e,
                        grouped: false,
                    });
                }
                (Query::Select(s), Order::Unordered)
            }
            _ => self.ordered(|g| g.window_select()),
        }
    }

    /// Wraps a generated SELECT with a random ORDER BY / LIMIT.
    fn ordered(&mut self, f: impl FnOnce(&mut Gen) -> (Select, Vec<Ty>)) -> (Query, Order) {
        let (mut s, _) = f(self);
        let mut order = Order::Unordered;
        let n = s.items.len();
        if self.chance(0.35) && !s.rollup {
            if self.chance(0.3) {
                // LIMIT: order by every item, so only ties may differ.
                s.order = (0..n).map(|i| (i, self.chance(0.3))).collect();
                s.limit = Some((
                    self.below(6) as u32,
                    if self.chance(0.3) {
                        self.below(4) as u32
                    } else {
                        0
                    },
                ));
                order = Order::Limited;
            } else {
                let k = 1 + self.below(n);
                let mut keys: Vec<usize> = (0..n).collect();
                keys.truncate(k);
                if self.chance(0.5) {
                    keys.reverse();
                }
                s.order = keys.iter().map(|&i| (i, self.chance(0.3))).collect();
                order = Order::Keys(keys);
            }
        }
        (Query::Select(s), order)
    }

    /// A FROM clause of one to three elements; returns it and its scope.
    fn gen_from(
        &mut self,
        depth: u32,
        outer: &[ScopeCol],
        ctes: &[Cte],
    ) -> (Vec<From>, Vec<ScopeCol>) {
        let n = 1 + self.weighted(&[55, 35, 10]);
        let mut from = Vec::new();
        let mut scope: Vec<ScopeCol> = Vec::new();
        let mut names: Vec<Vec<String>> = Vec::new();
        // The columns an ON condition may use: a comma binds looser than
        // JOIN, so `a, b JOIN c ON ...` sees only b and c.
        let mut since_comma: Vec<ScopeCol> = Vec::new();
        for i in 0..n {
            let alias = self.alias();
            let (source, cols, colnames) = self.source(depth, &alias, ctes);
            let join = if i == 0 {
                Join::First
            } else {
                let w = [
                    10,
                    25,
                    20,
                    if self.on("right-join") { 8 } else { 0 },
                    5,
                    if self.on("natural-join") { 5 } else { 0 },
                    if self.on("using-join") { 7 } else { 0 },
                ];
                let common: Vec<String> = colnames
                    .iter()
                    .filter(|c| names.iter().all(|prev| prev.contains(c)) && names.len() == 1)
                    .cloned()
                    .collect();
                match self.weighted(&w) {
                    0 => {
                        since_comma.clear();
                        Join::Comma
                    }
                    4 => Join::Cross,
                    5 if names.len() == 1 => {
                        Join::Natural(self.pick_str(&["JOIN", "LEFT JOIN", "RIGHT JOIN"]))
                    }
                    6 if !common.is_empty() => {
                        let c = self.pick(&common).clone();
                        Join::Using(self.pick_str(&["JOIN", "LEFT JOIN", "RIGHT JOIN"]), vec![c])
                    }
                    k => {
                        let kw = match k {
                            2 => "LEFT JOIN",
                            3 => "RIGHT JOIN",
                            _ => *self.pick(&["JOIN", "INNER JOIN"]),
                        };
                        let mut all = since_comma.clone();
                        all.extend(cols.iter().cloned());
                        let sc = Scope {
                            cols: all,
                            outer: outer.to_vec(),
                            grouped: None,
                        };
                        let cond = if self.chance(0.6)
                            && !since_comma.is_empty()
                            && !cols.is_empty()
                        {
                            let a = self.pick(&cols).sql.clone();
                            let b = self.pick(&since_comma).sql.clone();
                            let eq =
                                Expr::node(&["", " = ", ""], vec![Expr::Leaf(a), Expr::Leaf(b)]);
                            if self.chance(0.3) {
                                let p = self.pred(1, &sc);
                                self.bin(eq, "AND", p)
                            } else {
                                eq
                            }
                        } else {
                            self.pred(depth.min(2), &sc)
                        };
                        Join::On(kw, cond)
                    }
                }
            };
            from.push(From {
                join,
                source,
                alias,
            });
            since_comma.extend(cols.iter().cloned());
            scope.extend(cols);
            names.push(colnames);
        }
        (from, scope)
    }

    /// One FROM source: a base table, a CTE or a derived table.
    fn source(
        &mut self,
        depth: u32,
        alias: &str,
        ctes: &[Cte],
    ) -> (Source, Vec<ScopeCol>, Vec<String>) {
        let derived = depth > 0 && self.chance_of("derived", 0.1);
        if !ctes.is_empty() && self.chance(0.6) {
            let (name, tys) = self.pick(ctes).clone();
            let cols = Self::derived_scope(alias, &tys);
            return (
                Source::Table(name),
                cols,
                (0..tys.len()).map(|i| format!("c{i}")).collect(),
            );
        }
        if derived {
            let (s, tys) = if self.chance(0.3) {
                self.grouped_select(&[], ctes)
            } else {
                self.select(depth - 1, &[], ctes, None)
            };
            let cols = Self::derived_scope(alias, &tys);
            return (
                Source::Derived(Box::new(Query::Select(s))),
                cols,
                (0..tys.len()).map(|i| format!("c{i}")).collect(),
            );
        }
        let t = self.pick(&self.tables.clone()).clone();
        let cols = Gen::table_scope(&t, alias);
        let names = t.columns.iter().map(|c| c.name.clone()).collect();
        (Source::Table(t.name.clone()), cols, names)
    }

    fn derived_scope(alias: &str, tys: &[Ty]) -> Vec<ScopeCol> {
        tys.iter()
            .enumerate()
            .map(|(i, &ty)| ScopeCol {
                sql: format!("{alias}.c{i}"),
                ty,
                decl: None,
            })
            .collect()
    }

    /// A plain SELECT with a FROM clause; `want` fixes the item types.
    pub fn select(
        &mut self,
        depth: u32,
        outer: &[ScopeCol],
        ctes: &[Cte],
        want: Option<&[Ty]>,
    ) -> (Select, Vec<Ty>) {
        let (from, cols) = self.gen_from(depth, outer, ctes);
        let sc = Scope {
            cols,
            outer: outer.to_vec(),
            grouped: None,
        };
        let mut s = Select {
            from,
            ..Select::default()
        };
        let tys: Vec<Ty> = match want {
            Some(w) => w.to_vec(),
            None => (0..1 + self.below(4)).map(|_| self.random_ty()).collect(),
        };
        for &ty in &tys {
            let e = if self.chance(0.35) {
                self.column(ty, &sc).unwrap_or_else(|| self.literal(ty))
            } else {
                self.expr(ty, depth.min(3), &sc)
            };
            s.items.push(Item {
                expr: e,
                grouped: false,
            });
        }
        self.where_clause(&mut s, depth, &sc);
        s.distinct = self.chance(0.1);
        (s, tys)
    }

    fn where_clause(&mut self, s: &mut Select, depth: u32, sc: &Scope) {
        if self.chance(0.6) {
            for _ in 0..1 + self.below(2) {
                let p = self.pred(depth.min(3), sc);
                s.where_.push(p);
            }
        }
    }

    /// A grouped SELECT: grouped items, then aggregate items; HAVING and
    /// WITH ROLLUP sometimes.
    pub fn grouped_select(&mut self, outer: &[ScopeCol], ctes: &[Cte]) -> (Select, Vec<Ty>) {
        let (from, cols) = self.gen_from(1, outer, ctes);
        let sc = Scope {
            cols,
            outer: outer.to_vec(),
            grouped: None,
        };
        let mut s = Select {
            from,
            ..Select::default()
        };
        let mut tys = Vec::new();
        let ngroup = if self.chance(0.15) {
            0
        } else {
            1 + self.below(2)
        };
        for _ in 0..ngroup {
            let ty = self.random_ty();
            let e = if self.chance(0.6) {
                self.column(ty, &sc).unwrap_or_else(|| self.literal(ty))
            } else {
                self.expr(ty, 2, &sc)
            };
            s.items.push(Item {
                expr: e,
                grouped: true,
            });
            tys.push(ty);
        }
        let agg_scope = Scope {
            grouped: Some(Vec::new()),
            ..sc.clone()
        };
        for _ in 0..1 + self.below(3) {
            let ty = self.random_ty();
            let e = self.expr(ty, 1, &agg_scope);
            let e = if matches!(e, Expr::Leaf(_)) {
                self.aggregate(ty, &agg_scope)
            } else {
                e
            };
            s.items.push(Item {
                expr: e,
                grouped: false,
            });
            tys.push(ty);
        }
        self.where_clause(&mut s, 2, &sc);
        if self.chance(0.3) {
            let aliases: Vec<ScopeCol> = (0..ngroup)
                .map(|i| ScopeCol {
                    sql: format!("c{i}"),
                    ty: tys[i],
                    decl: None,
                })
                .collect();
            let having = Scope {
                grouped: Some(aliases),
                ..sc
            };
            s.having.push(self.pred(2, &having));
        }
        s.rollup = ngroup > 0 && self.chance_of("rollup", 0.15);
        (s, tys)
    }

    /// A single-table SELECT with a window function item.
    fn window_select(&mut self) -> (Select, Vec<Ty>) {
        let t = self.pick(&self.tables.clone()).clone();
        let alias = self.alias();
        let cols = Gen::table_scope(&t, &alias);
        let sc = Scope {
            cols: cols.clone(),
            outer: Vec::new(),
            grouped: None,
        };
        let pk: Vec<String> =
            t.pk.iter()
                .map(|&i| format!("{alias}.{}", t.columns[i].name))
                .collect();
        let mut s = Select {
            from: vec![From {
                join: Join::First,
                source: Source::Table(t.name.clone()),
                alias,
            }],
            ..Select::default()
        };
        let mut tys = Vec::new();
        for c in cols.iter().take(2) {
            s.items.push(Item {
                expr: Expr::Leaf(c.sql.clone()),
                grouped: false,
            });
            tys.push(c.ty);
        }
        let part = if self.chance(0.5) {
            format!("PARTITION BY {} ", self.pick(&cols).sql)
        } else {
            String::new()
        };
        let key = self.pick(&cols).sql.clone();
        let total = format!("ORDER BY {key}, {}", pk.join(", "));
        let (f, ty) = match self.below(8) {
            0 => ("ROW_NUMBER()".to_owned(), Ty::Int),
            1 => ("RANK()".to_owned(), Ty::Int),
            2 => ("DENSE_RANK()".to_owned(), Ty::Int),
            3 => (
                format!("LAG({key})"),
                cols.iter().find(|c| c.sql == key).map_or(Ty::Int, |c| c.ty),
            ),
            4 => (
                format!("LEAD({key}, 1)"),
                cols.iter().find(|c| c.sql == key).map_or(Ty::Int, |c| c.ty),
            ),
            5 => (format!("FIRST_VALUE({key})"), Ty::Str),
            6 => ("NTILE(2)".to_owned(), Ty::Int),
            _ => {
                let x = self.expr(Ty::Int, 1, &sc).sql();
                (format!("SUM({x})"), Ty::Dec)
            }
        };
        let over = match f.as_str() {
            "RANK()" | "DENSE_RANK()" => format!("({part}ORDER BY {key})"),
            s if s.starts_with("SUM") && self.chance(0.5) => format!("({part})"),
            _ => format!("({part}{total})"),
        };
        s.items.push(Item {
            expr: Expr::Leaf(format!("{f} OVER {over}")),
            grouped: false,
        });
        tys.push(ty);
        self.where_clause(&mut s, 1, &sc);
        (s, tys)
    }

    /// `l UNION|INTERSECT|EXCEPT [ALL|DISTINCT] r` with matching widths.
    fn set_op(&mut self, outer: &[ScopeCol], ctes: &[Cte]) -> Query {
        let mut ops: Vec<&'static str> = Vec::new();
        if self.on("union") {
            ops.extend(["UNION", "UNION ALL", "UNION DISTINCT"]);
        }
        if self.on("intersect") {
            ops.extend(["INTERSECT", "INTERSECT ALL"]);
        }
        if self.on("except") {
            ops.extend(["EXCEPT", "EXCEPT ALL"]);
        }
        if ops.is_empty() {
            ops.push("UNION ALL");
        }
        let op = *self.pick(&ops);
        let (l, tys) = self.select(1, outer, ctes, None);
        let rt: Vec<Ty> = tys
            .iter()
            .map(|&t| {
                if self.chance(0.8) {
                    t
                } else {
                    self.random_ty()
                }
            })
            .collect();
        let (r, _) = self.select(1, outer, ctes, Some(&rt));
        Query::SetOp {
            op,
            left: Box::new(Query::Select(l)),
            right: Box::new(Query::Select(r)),
        }
    }

    /// `WITH [RECURSIVE] ...` around a query over the CTEs.
    fn with_query(&mut self, recursive: bool) -> (Query, Order) {
        let mut ctes: Vec<(String, Query)> = Vec::new();
        let mut visible: Vec<Cte> = Vec::new();
        if recursive {
            let (q, tys) = self.recursive_cte("r");
            ctes.push(("r".to_owned(), q));
            visible.push(("r".to_owned(), tys));
        } else {
            for i in 0..1 + self.below(2) {
                let name = format!("q{i}");
                let (s, tys) = if self.chance(0.3) {
                    self.grouped_select(&[], &visible)
                } else {
                    self.select(1, &[], &visible, None)
                };
                ctes.push((name.clone(), Query::Select(s)));
                visible.push((name, tys));
            }
        }
        let (body, order) = self.ordered(|g| {
            if g.chance(0.3) {
                g.grouped_select(&[], &visible)
            } else {
                g.select(2, &[], &visible, None)
            }
        });
        (
            Query::With {
                recursive,
                ctes,
                body: Box::new(body),
            },
            order,
        )
    }

    /// A linear recursive CTE: a counter and a value derived step by step.
    fn recursive_cte(&mut self, name: &str) -> (Query, Vec<Ty>) {
        let start = Expr::leaf(*self.pick(&["1", "0", "-2"]));
        let (seed, ty) = match self.below(3) {
            0 => (Expr::leaf("CAST('a' AS CHAR(40))"), Ty::Str),
            1 => (Expr::leaf(*self.pick(&["1.5", "10"])), Ty::Dec),
            _ => (Expr::leaf("DATE '2024-01-31'"), Ty::Date),
        };
        let anchor = Select {
            items: vec![
                Item {
                    expr: start,
                    grouped: false,
                },
                Item {
                    expr: seed,
                    grouped: false,
                },
            ],
            ..Select::default()
        };
        let alias = "rr".to_owned();
        let step = match ty {
            Ty::Str => format!(
                "CONCAT({alias}.c1, {})",
                self.pick(&["'b'", "'A'", "c0", "' '"])
                    .replace("c0", &format!("{alias}.c0"))
            ),
            Ty::Dec => format!("{alias}.c1 * {}", self.pick(&["2", "0.5", "-1", "1.1"])),
            _ => format!(
                "{alias}.c1 + INTERVAL 1 {}",
                self.pick(&["MONTH", "DAY", "YEAR"])
            ),
        };
        let limit = 2 + self.below(6);
        let rec = Select {
            items: vec![
                Item {
                    expr: Expr::Leaf(format!("{alias}.c0 + 1")),
                    grouped: false,
                },
                Item {
                    expr: Expr::Leaf(step),
                    grouped: false,
                },
            ],
            from: vec![From {
                join: Join::First,
                source: Source::Table(name.to_owned()),
                alias: alias.clone(),
            }],
            where_: vec![Expr::Leaf(format!("{alias}.c0 < {limit}"))],
            ..Select::default()
        };
        let op = if self.chance(0.8) {
            "UNION ALL"
        } else {
            "UNION"
        };
        (
            Query::SetOp {
                op,
                left: Box::new(Query::Select(anchor)),
                right: Box::new(Query::Select(rec)),
            },
            vec![Ty::Int, ty],
        )
    }

    /// A scalar subquery of (about) type `ty`: an aggregate over a table,
    /// maybe correlated with the enclosing scope.
    pub fn scalar_subquery(&mut self, ty: Ty, depth: u32, sc: &Scope) -> Expr {
        let mut outer = sc.cols.clone();
        outer.extend(sc.outer.iter().cloned());
        let (from, cols) = self.gen_from(0, &outer, &[]);
        let inner = Scope {
            cols,
            outer,
            grouped: Some(Vec::new()),
        };
        let agg = self.aggregate(ty, &inner);
        let mut s = Select {
            from,
            ..Select::default()
        };
        s.items.push(Item {
            expr: agg,
            grouped: false,
        });
        let plain = Scope {
            grouped: None,
            ..inner
        };
        self.where_clause(&mut s, depth.min(1), &plain);
        Expr::sub("(", Query::Select(s), ")")
    }

    /// A one-column subquery of type `ty` (any when None) returning any
    /// number of rows, maybe correlated.
    pub fn subquery_rows(&mut self, ty: Option<Ty>, depth: u32, sc: &Scope) -> Query {
        let mut outer = sc.cols.clone();
        outer.extend(sc.outer.iter().cloned());
        let want = [ty.unwrap_or(Ty::Int)];
        let (mut s, _) = self.select(depth.min(1), &outer, &[], Some(&want));
        if ty.is_none() && self.chance(0.5) {
            s.items[0].expr = Expr::leaf("1");
        }
        s.distinct = false;
        Query::Select(s)
    }
}
