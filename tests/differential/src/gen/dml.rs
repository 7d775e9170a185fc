//! Data-changing statements: INSERT (plain, IGNORE, multi-row, ... SELECT,
//! ON DUPLICATE KEY UPDATE), REPLACE, UPDATE and DELETE (with WHERE and
//! `ORDER BY <primary key> LIMIT n`), with values that are sometimes valid
//! literals and sometimes expressions that convert, truncate or fail; and
//! transaction control (BEGIN, SAVEPOINT, ROLLBACK TO, RELEASE, COMMIT,
//! ROLLBACK) driven by the runner's transaction state.

use super::{Gen, Scope, ScopeCol};
use crate::ast::{Expr, From, Item, Join, Query, Select, Source, Stmt};
use crate::schema::{self, Table};

/// The runner's transaction state, which the generator follows.
#[derive(Clone, Debug, Default)]
pub struct TxnState {
    /// Inside BEGIN ... COMMIT/ROLLBACK.
    pub open: bool,
    /// Savepoints set in the open transaction.
    pub savepoints: Vec<String>,
    /// Savepoint names used so far (for fresh names).
    pub seq: u32,
}

impl Gen {
    /// The scope of a single-table DML statement: bare column names.
    fn bare_scope(t: &Table) -> Scope {
        Scope {
            cols: t
                .columns
                .iter()
                .map(|c| ScopeCol {
                    sql: c.name.clone(),
                    ty: c.ty.ty(),
                    decl: Some(c.ty.clone()),
                })
                .collect(),
            outer: Vec::new(),
            grouped: None,
        }
    }

    /// A value for column `c` of `t`: mostly a valid literal, NULL, or a
    /// generated expression of the column's type family.
    fn column_value(&mut self, t: &Table, c: usize, sc: &Scope) -> Expr {
        let col = &t.columns[c];
        match self.weighted(&[70, 8, 22]) {
            0 => Expr::Leaf(schema::value(&col.ty, &mut self.rng)),
            1 => Expr::leaf(if col.auto_inc { "0" } else { "NULL" }),
            _ => self.expr(col.ty.ty(), 2, sc),
        }
    }

    /// Rows of valid literals for `t` (initial data and refills).
    pub fn fill(&mut self, t: &Table, rows: usize) -> Stmt {
        let cols: Vec<usize> = (0..t.columns.len())
            .filter(|&i| !t.columns[i].auto_inc)
            .collect();
        let rows = (0..rows)
            .map(|_| {
                cols.iter()
                    .map(|&i| {
                        let c = &t.columns[i];
                        if !c.not_null && self.chance(0.12) {
                            Expr::leaf("NULL")
                        } else {
                            Expr::Leaf(schema::value(&c.ty, &mut self.rng))
                        }
                    })
                    .collect()
            })
            .collect();
        Stmt::Insert {
            verb: "INSERT IGNORE",
            table: t.name.clone(),
            cols: cols.iter().map(|&i| t.columns[i].name.clone()).collect(),
            rows,
            select: None,
            odku: Vec::new(),
        }
    }

    /// A random data-changing statement.
    pub fn dml(&mut self) -> Stmt {
        let t = self.pick(&self.tables.clone()).clone();
        let w = [
            35,
            if self.on("replace") { 6 } else { 0 },
            25,
            14,
            if self.on("insert-select") { 5 } else { 0 },
            8,
        ];
        match self.weighted(&w) {
            0 => {
                let verb = *self.pick(&["INSERT", "INSERT", "INSERT IGNORE"]);
                self.insert(&t, verb)
            }
            1 => self.insert(&t, "REPLACE"),
            2 => self.update(&t),
            3 => self.delete(&t),
            4 => self.insert_select(&t),
            _ => {
                let n = 1 + self.below(4);
                self.fill(&t, n)
            }
        }
    }

    fn insert(&mut self, t: &Table, verb: &'static str) -> Stmt {
        let sc = Scope::default();
        let mut cols: Vec<usize> = (0..t.columns.len())
            .filter(|&i| {
                let c = &t.columns[i];
                if c.auto_inc {
                    self.chance(0.2)
                } else if t.pk.contains(&i) || c.not_null {
                    self.chance(0.97)
                } else {
                    self.chance(0.7)
                }
            })
            .collect();
        if cols.is_empty() {
            cols.push(t.columns.len() - 1);
        }
        let nrows = 1 + self.weighted(&[60, 25, 15]);
        let rows = (0..nrows)
            .map(|_| cols.iter().map(|&c| self.column_value(t, c, &sc)).collect())
            .collect();
        let mut odku = Vec::new();
        if verb == "INSERT" && self.chance_of("odku", 0.25) {
            let bare = Gen::bare_scope(t);
            for _ in 0..1 + self.below(2) {
                let c = self.below(t.columns.len());
                let col = &t.columns[c];
                let e = match self.below(3) {
                    0 => Expr::Leaf(format!("VALUES({})", col.name)),
                    1 => Expr::Leaf(schema::value(&col.ty, &mut self.rng)),
                    _ => self.expr(col.ty.ty(), 2, &bare),
                };
                odku.push((col.name.clone(), e));
            }
        }
        Stmt::Insert {
            verb,
            table: t.name.clone(),
            cols: cols.iter().map(|&i| t.columns[i].name.clone()).collect(),
            rows,
            select: None,
            odku,
        }
    }

    /// `INSERT IGNORE INTO t (cols) SELECT ... FROM s ORDER BY s's key`:
    /// rows arrive in a fixed order, so auto-increment values and which
    /// duplicate wins are determined.
    fn insert_select(&mut self, t: &Table) -> Stmt {
        let src = self.pick(&self.tables.clone()).clone();
        let alias = "s".to_owned();
        let scope = Scope {
            cols: Gen::table_scope(&src, &alias),
            outer: Vec::new(),
            grouped: None,
        };
        let cols: Vec<usize> = (0..t.columns.len())
            .filter(|&i| !t.columns[i].auto_inc)
            .collect();
        let mut s = Select {
            from: vec![From {
                join: Join::First,
                source: Source::Table(src.name.clone()),
                alias: alias.clone(),
            }],
            ..Select::default()
        };
        for &c in &cols {
            let ty = t.columns[c].ty.ty();
            let e = if self.chance(0.6) {
                self.column(ty, &scope).unwrap_or_else(|| self.literal(ty))
            } else {
                self.expr(ty, 1, &scope)
            };
            s.items.push(Item {
                expr: e,
                grouped: false,
            });
        }
        if self.chance(0.5) {
            let p = self.pred(1, &scope);
            s.where_.push(p);
        }
        let pk: Vec<String> = src
            .pk
            .iter()
            .map(|&i| format!("{alias}.{}", src.columns[i].name))
            .collect();
        s.order_raw = pk.join(", ");
        Stmt::Insert {
            verb: self.pick_str(&["INSERT IGNORE", "INSERT"]),
            table: t.name.clone(),
            cols: cols.iter().map(|&i| t.columns[i].name.clone()).collect(),
            rows: Vec::new(),
            select: Some(Query::Select(s)),
            odku: Vec::new(),
        }
    }

    fn pk_limit(&mut self, t: &Table) -> Option<(String, u32)> {
        if self.chance(0.2) {
            let pk: Vec<String> =
                t.pk.iter()
                    .map(|&i| {
                        format!(
                            "{}{}",
                            t.columns[i].name,
                            if self.chance(0.3) { " DESC" } else { "" }
                        )
                    })
                    .collect();
            Some((pk.join(", "), 1 + self.below(3) as u32))
        } else {
            None
        }
    }

    fn update(&mut self, t: &Table) -> Stmt {
        let sc = Gen::bare_scope(t);
        let mut sets = Vec::new();
        for _ in 0..1 + self.weighted(&[70, 30]) {
            let c = self.below(t.columns.len());
            let e = self.column_value(t, c, &sc);
            sets.push((t.columns[c].name.clone(), e));
        }
        let mut where_ = Vec::new();
        if self.chance(0.8) {
            where_.push(self.pred(2, &sc));
        }
        Stmt::Update {
            verb: if self.chance(0.15) {
                "UPDATE IGNORE"
            } else {
                "UPDATE"
            },
            table: t.name.clone(),
            sets,
            where_,
            order_limit: self.pk_limit(t),
        }
    }

    fn delete(&mut self, t: &Table) -> Stmt {
        let sc = Gen::bare_scope(t);
        let mut where_ = Vec::new();
        if self.chance(0.9) {
            where_.push(self.pred(2, &sc));
        }
        Stmt::Delete {
            table: t.name.clone(),
            where_,
            order_limit: self.pk_limit(t),
        }
    }

    /// A transaction-control statement fitting `st` (updated).
    pub fn txn_stmt(&mut self, st: &mut TxnState) -> Stmt {
        if !st.open {
            st.open = true;
            st.savepoints.clear();
            return Stmt::Raw((*self.pick(&["BEGIN", "START TRANSACTION"])).to_owned());
        }
        let sp = !st.savepoints.is_empty();
        let w = [
            if self.on("savepoint") { 4 } else { 0 },
            if sp { 3 } else { 0 },
            if sp { 1 } else { 0 },
            3,
            2,
        ];
        match self.weighted(&w) {
            0 => {
                st.seq += 1;
                let name = format!("sp{}", st.seq);
                st.savepoints.push(name.clone());
                Stmt::Raw(format!("SAVEPOINT {name}"))
            }
            1 => {
                let i = self.below(st.savepoints.len());
                let name = st.savepoints[i].clone();
                st.savepoints.truncate(i + 1);
                Stmt::Raw(format!("ROLLBACK TO SAVEPOINT {name}"))
            }
            2 => {
                let i = self.below(st.savepoints.len());
                let name = st.savepoints[i].clone();
                st.savepoints.truncate(i);
                Stmt::Raw(format!("RELEASE SAVEPOINT {name}"))
            }
            3 => {
                st.open = false;
                Stmt::Raw("COMMIT".to_owned())
            }
            _ => {
                st.open = false;
                Stmt::Raw("ROLLBACK".to_owned())
            }
        }
    }
}
