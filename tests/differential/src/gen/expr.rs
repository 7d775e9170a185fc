//! Type-directed expression generation: `expr(ty, depth, scope)` builds an
//! expression of a type family from the operators and built-in functions
//! Larch implements, down to a depth limit, with leaves that are columns
//! (mostly of the wanted type, sometimes of another so implicit conversions
//! happen), literals and NULL. Binary operators are sometimes written
//! without parentheses, so the servers' precedence rules decide.
//! Predicates and aggregates are in `pred.rs`.

use super::lits::{FORMATS, PATHS, REGEXPS, UNITS};
use super::{Gen, Scope};
use crate::ast::Expr;
use crate::schema::{Ty, ALL_TYS, COLLATIONS};

impl Gen {
    /// A binary operator: `(a op b)`, or without parentheses sometimes.
    pub fn bin(&mut self, a: Expr, op: &str, b: Expr) -> Expr {
        if self.chance(0.15) {
            Expr::Node {
                parts: vec![String::new(), format!(" {op} "), String::new()],
                args: vec![a, b],
            }
        } else {
            Expr::Node {
                parts: vec!["(".to_owned(), format!(" {op} "), ")".to_owned()],
                args: vec![a, b],
            }
        }
    }

    /// A prefix operator: `op (a)`, or `op a` sometimes.
    pub fn prefix(&mut self, op: &str, a: Expr) -> Expr {
        if self.chance(0.3) {
            Expr::node(&[&format!("{op} "), ""], vec![a])
        } else {
            Expr::node(&[&format!("{op}("), ")"], vec![a])
        }
    }

    /// A random type family, weighted towards numbers and strings.
    pub fn random_ty(&mut self) -> Ty {
        let w = [30, 8, 6, 28, 8, 5, 8, if self.on("json") { 4 } else { 0 }];
        ALL_TYS[self.weighted(&w)]
    }

    /// A column of `ty` from the scope (any type sometimes), if any.
    pub fn column(&mut self, ty: Ty, sc: &Scope) -> Option<Expr> {
        let use_outer = !sc.outer.is_empty() && self.chance_of("correlated", 0.2);
        let cols = if use_outer { &sc.outer } else { &sc.cols };
        if cols.is_empty() {
            return None;
        }
        let same: Vec<&str> = cols
            .iter()
            .filter(|c| c.ty == ty)
            .map(|c| c.sql.as_str())
            .collect();
        let name = if !same.is_empty() && self.chance(0.8) {
            (*self.pick(&same)).to_owned()
        } else {
            self.pick(cols).sql.clone()
        };
        Some(Expr::Leaf(name))
    }

    /// A leaf: column, literal or NULL (or an aggregate in a grouped scope).
    pub fn leaf(&mut self, ty: Ty, sc: &Scope) -> Expr {
        if let Some(grouped) = &sc.grouped {
            let grouped = grouped.clone();
            match self.weighted(&[6, if grouped.is_empty() { 0 } else { 3 }, 2]) {
                0 => return self.aggregate(ty, sc),
                1 => return Expr::Leaf(self.pick(&grouped).sql.clone()),
                _ => return self.literal(ty),
            }
        }
        match self.weighted(&[60, 30, 5]) {
            0 => self.column(ty, sc).unwrap_or_else(|| self.literal(ty)),
            1 => self.literal(ty),
            _ => Expr::leaf("NULL"),
        }
    }

    /// An expression of any type; returns its type family too.
    pub fn any_expr(&mut self, depth: u32, sc: &Scope) -> (Expr, Ty) {
        let ty = self.random_ty();
        (self.expr(ty, depth, sc), ty)
    }

    /// An expression of type family `ty` at most `depth` levels deep.
    pub fn expr(&mut self, ty: Ty, depth: u32, sc: &Scope) -> Expr {
        if depth == 0 || self.chance(0.3) {
            return self.leaf(ty, sc);
        }
        let d = depth - 1;
        // Type-independent forms first: control flow and subqueries.
        match self.weighted(&[80, 8, 4, 3, 3, if sc.grouped.is_none() { 2 } else { 0 }]) {
            1 => return self.control(ty, d, sc),
            2 => return self.coalesce_like(ty, d, sc),
            3 => {
                let p = self.pred(d, sc);
                let (a, b) = (self.expr(ty, d, sc), self.expr(ty, d, sc));
                return Expr::call("IF", vec![p, a, b]);
            }
            4 => {
                let (a, b) = (self.expr(ty, d, sc), self.expr(ty, d, sc));
                let f = *self.pick(&["GREATEST", "LEAST"]);
                return Expr::call(f, vec![a, b]);
            }
            5 if self.on("subquery") => return self.scalar_subquery(ty, d, sc),
            _ => {}
        }
        match ty {
            Ty::Int => self.int_expr(d, sc),
            Ty::Dec => self.dec_expr(d, sc),
            Ty::Float => self.float_expr(d, sc),
            Ty::Str => self.str_expr(d, sc),
            Ty::Date => self.date_expr(d, sc),
            Ty::Time => self.time_expr(d, sc),
            Ty::DateTime => self.datetime_expr(d, sc),
            Ty::Json => self.json_expr(d, sc),
        }
    }

    fn control(&mut self, ty: Ty, d: u32, sc: &Scope) -> Expr {
        if self.chance(0.5) {
            // Searched CASE.
            let n = 1 + self.below(2);
            let mut parts = vec!["CASE WHEN ".to_owned()];
            let mut args = Vec::new();
            for i in 0..n {
                args.push(self.pred(d, sc));
                parts.push(" THEN ".to_owned());
                args.push(self.expr(ty, d, sc));
                parts.push(if i + 1 < n { " WHEN " } else { "" }.to_owned());
            }
            let last = parts.len() - 1;
            if self.chance(0.7) {
                parts[last] = " ELSE ".to_owned();
                args.push(self.expr(ty, d, sc));
                parts.push(" END".to_owned());
            } else {
                parts[last] = " END".to_owned();
            }
            Expr::Node { parts, args }
        } else {
            // Simple CASE on a value of any type.
            let (v, vty) = self.any_expr(d, sc);
            let w1 = self.expr(vty, d, sc);
            let r1 = self.expr(ty, d, sc);
            let r2 = self.expr(ty, d, sc);
            Expr::node(
                &["CASE ", " WHEN ", " THEN ", " ELSE ", " END"],
                vec![v, w1, r1, r2],
            )
        }
    }

    fn coalesce_like(&mut self, ty: Ty, d: u32, sc: &Scope) -> Expr {
        let a = self.expr(ty, d, sc);
        let b = self.expr(ty, d, sc);
        let f = *self.pick(&["COALESCE", "IFNULL", "NULLIF", "NVL"]);
        Expr::call(f, vec![a, b])
    }

    fn int_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        let e = |g: &mut Gen, t: Ty| g.expr(t, d, sc);
        match self.weighted(&[20, 6, 5, 5, 6, 8, 6, 4, 6, 6, 5, 4, 4, 3]) {
            0 => {
                let (a, b) = (e(self, Ty::Int), e(self, Ty::Int));
                let op = *self.pick(&["+", "-", "*"]);
                self.bin(a, op, b)
            }
            1 => {
                let (a, b) = (e(self, Ty::Int), e(self, Ty::Int));
                if self.chance(0.2) {
                    return Expr::call("MOD", vec![a, b]);
                }
                let op = *self.pick(&["DIV", "MOD", "%"]);
                self.bin(a, op, b)
            }
            2 => {
                let a = e(self, Ty::Int);
                let op = *self.pick(&["-", "~", "-"]);
                self.prefix(op, a)
            }
            3 => {
                let (a, b) = (e(self, Ty::Int), e(self, Ty::Int));
                let op = *self.pick(&["&", "|", "^", "<<", ">>"]);
                self.bin(a, op, b)
            }
            4 => {
                let s = e(self, Ty::Str);
                let f = *self.pick(&[
                    "LENGTH",
                    "CHAR_LENGTH",
                    "OCTET_LENGTH",
                    "BIT_LENGTH",
                    "ASCII",
                    "CHARACTER_LENGTH",
                ]);
                Expr::call(f, vec![s])
            }
            5 => {
                let (a, b) = (e(self, Ty::Str), e(self, Ty::Str));
                match self.below(3) {
                    0 => Expr::call("INSTR", vec![a, b]),
                    1 => Expr::call("STRCMP", vec![a, b]),
                    _ if self.chance(0.5) => {
                        let p = self.small_int();
                        Expr::call("LOCATE", vec![a, b, p])
                    }
                    _ => Expr::call("LOCATE", vec![a, b]),
                }
            }
            6 => {
                let t = *self.pick(&[Ty::Dec, Ty::Float, Ty::Str, Ty::Int]);
                let x = e(self, t);
                let f = *self.pick(&["ABS", "SIGN", "CEIL", "FLOOR", "ROUND", "CEILING"]);
                Expr::call(f, vec![x])
            }
            7 => {
                let (x, _) = self.any_expr(d, sc);
                let t = *self.pick(&["SIGNED", "UNSIGNED", "INTEGER", "SIGNED INTEGER"]);
                Expr::node(&["CAST(", &format!(" AS {t})")], vec![x])
            }
            8 => {
                let x = e(self, Ty::Date);
                let f = *self.pick(&[
                    "YEAR",
                    "MONTH",
                    "DAY",
                    "DAYOFWEEK",
                    "DAYOFYEAR",
                    "WEEKDAY",
                    "QUARTER",
                    "TO_DAYS",
                    "WEEK",
                    "DAYOFMONTH",
                ]);
                Expr::call(f, vec![x])
            }
            9 => {
                let t = *self.pick(&[Ty::Time, Ty::DateTime, Ty::Str]);
                let x = e(self, t);
                let f = *self.pick(&["HOUR", "MINUTE", "SECOND", "MICROSECOND"]);
                Expr::call(f, vec![x])
            }
            10 => {
                let (a, b) = (e(self, Ty::Date), e(self, Ty::DateTime));
                if self.chance(0.5) {
                    Expr::call("DATEDIFF", vec![a, b])
                } else {
                    Expr::call("UNIX_TIMESTAMP", vec![b])
                }
            }
            11 if self.on("json") => {
                let j = e(self, Ty::Json);
                match self.below(7) {
                    5 => Expr::call("JSON_EXISTS", vec![j, Expr::leaf(*self.pick(&PATHS))]),
                    6 => {
                        let k = e(self, Ty::Json);
                        Expr::call("JSON_EQUALS", vec![j, k])
                    }
                    0 => Expr::call("JSON_LENGTH", vec![j]),
                    1 => Expr::call("JSON_DEPTH", vec![j]),
                    2 => Expr::call("JSON_VALID", vec![j]),
                    3 => {
                        let p = Expr::leaf(*self.pick(&PATHS));
                        let one = Expr::leaf(*self.pick(&["'one'", "'all'"]));
                        Expr::call("JSON_CONTAINS_PATH", vec![j, one, p])
                    }
                    _ => {
                        let k = e(self, Ty::Json);
                        Expr::call("JSON_CONTAINS", vec![j, k])
                    }
                }
            }
            12 if self.on("regexp") => {
                let s = e(self, Ty::Str);
                Expr::call("REGEXP_INSTR", vec![s, Expr::leaf(*self.pick(&REGEXPS))])
            }
            _ => self.pred(d, sc),
        }
    }

    fn dec_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        let num = |g: &mut Gen| {
            let t = *g.pick(&[Ty::Dec, Ty::Dec, Ty::Int, Ty::Str]);
            g.expr(t, d, sc)
        };
        match self.weighted(&[20, 10, 10, 6, 4]) {
            0 => {
                let (a, b) = (num(self), num(self));
                let op = *self.pick(&["+", "-", "*", "/"]);
                self.bin(a, op, b)
            }
            1 => {
                let (a, n) = (num(self), self.small_int());
                let f = *self.pick(&["ROUND", "TRUNCATE"]);
                Expr::call(f, vec![a, n])
            }
            2 => {
                let (x, _) = self.any_expr(d, sc);
                let (p, s) = *self.pick(&[(10, 2), (5, 0), (20, 6), (3, 1), (65, 30), (6, 3)]);
                Expr::node(&["CAST(", &format!(" AS DECIMAL({p},{s}))")], vec![x])
            }
            3 => {
                let a = num(self);
                self.prefix("-", a)
            }
            _ => {
                let a = num(self);
                Expr::call("ABS", vec![a])
            }
        }
    }

    fn float_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        let num = |g: &mut Gen| {
            let t = *g.pick(&[Ty::Float, Ty::Int, Ty::Dec]);
            g.expr(t, d, sc)
        };
        match self.weighted(&[10, 5, 5, 5, 2]) {
            0 => {
                let (a, b) = (num(self), num(self));
                let op = *self.pick(&["+", "-", "*", "/"]);
                self.bin(a, op, b)
            }
            1 => {
                let a = num(self);
                Expr::call("SQRT", vec![a])
            }
            2 => {
                let (a, b) = (num(self), self.small_int());
                Expr::call(self.pick_str(&["POW", "POWER"]), vec![a, b])
            }
            3 => {
                let (x, _) = self.any_expr(d, sc);
                Expr::node(
                    &[
                        "CAST(",
                        &format!(" AS {})", self.pick(&["DOUBLE", "FLOAT", "DOUBLE"])),
                    ],
                    vec![x],
                )
            }
            _ => Expr::leaf("PI()"),
        }
    }

    fn str_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        let s = |g: &mut Gen| g.expr(Ty::Str, d, sc);
        match self.weighted(&[12, 4, 8, 6, 6, 5, 4, 4, 4, 3, 3, 5, 4, 3, 3, 3, 3]) {
            0 => {
                let n = 2 + self.below(2);
                let args = (0..n)
                    .map(|_| {
                        let (e, _) = self.any_expr(d, sc);
                        e
                    })
                    .collect();
                Expr::call("CONCAT", args)
            }
            1 => {
                let sep = Expr::leaf(*self.pick(&["','", "'-'", "NULL", "''"]));
                let (a, b) = (s(self), s(self));
                Expr::call("CONCAT_WS", vec![sep, a, b])
            }
            2 => {
                let (x, i) = (s(self), self.small_int());
                match self.below(4) {
                    0 => {
                        let j = self.small_int();
                        Expr::call(
                            self.pick_str(&["SUBSTRING", "SUBSTR", "MID"]),
                            vec![x, i, j],
                        )
                    }
                    1 => Expr::call("SUBSTRING", vec![x, i]),
                    2 => Expr::call("LEFT", vec![x, i]),
                    _ => Expr::call("RIGHT", vec![x, i]),
                }
            }
            3 => {
                let x = s(self);
                let f = *self.pick(&["UPPER", "LOWER", "UCASE", "LCASE", "REVERSE"]);
                Expr::call(f, vec![x])
            }
            4 => {
                let x = s(self);
                match self.below(4) {
                    0 => Expr::call(self.pick_str(&["TRIM", "LTRIM", "RTRIM"]), vec![x]),
                    1 => {
                        let w = *self.pick(&["LEADING", "TRAILING", "BOTH"]);
                        let r = Expr::leaf(*self.pick(&["'a'", "' '", "'ab'"]));
                        Expr::node(&[&format!("TRIM({w} "), " FROM ", ")"], vec![r, x])
                    }
                    _ => {
                        let (n, p) = (
                            self.small_int(),
                            Expr::leaf(*self.pick(&["'*'", "'ab'", "''", "' '"])),
                        );
                        Expr::call(self.pick_str(&["LPAD", "RPAD"]), vec![x, n, p])
                    }
                }
            }
            5 => {
                let (x, a, b) = (s(self), s(self), s(self));
                Expr::call("REPLACE", vec![x, a, b])
            }
            6 => {
                let (x, n) = (s(self), self.small_int());
                Expr::call("REPEAT", vec![x, n])
            }
            7 => {
                let (x, _) = self.any_expr(d, sc);
                Expr::call(self.pick_str(&["HEX", "MD5", "HEX", "UNHEX"]), vec![x])
            }
            8 => {
                let (x, n) = (s(self), self.small_int());
                let delim = Expr::leaf(*self.pick(&["','", "'a'", "' '", "'-'"]));
                Expr::call("SUBSTRING_INDEX", vec![x, delim, n])
            }
            9 => {
                let t = *self.pick(&[Ty::Date, Ty::DateTime]);
                let dt = self.expr(t, d, sc);
                Expr::call("DATE_FORMAT", vec![dt, Expr::leaf(*self.pick(&FORMATS))])
            }
            10 => {
                let dt = self.expr(Ty::Date, d, sc);
                Expr::call(self.pick_str(&["MONTHNAME", "DAYNAME"]), vec![dt])
            }
            11 => {
                let (x, _) = self.any_expr(d, sc);
                let t = *self.pick(&[
                    "CHAR",
                    "CHAR(3)",
                    "BINARY",
                    "BINARY(4)",
                    "CHAR CHARACTER SET latin1",
                    "NCHAR",
                ]);
                Expr::node(&["CAST(", &format!(" AS {t})")], vec![x])
            }
            12 if self.on("collate") => {
                let x = s(self);
                if self.chance(0.5) {
                    let c = *self.pick(&COLLATIONS[..3]);
                    Expr::node(&["", &format!(" COLLATE {c}")], vec![x])
                } else {
                    self.prefix("BINARY", x)
                }
            }
            13 if self.on("json") => {
                let j = self.expr(Ty::Json, d, sc);
                match self.below(4) {
                    0 => Expr::call("JSON_UNQUOTE", vec![j]),
                    1 => Expr::call("JSON_TYPE", vec![j]),
                    2 => Expr::call("JSON_VALUE", vec![j, Expr::leaf(*self.pick(&PATHS))]),
                    _ => {
                        let x = s(self);
                        Expr::call("JSON_QUOTE", vec![x])
                    }
                }
            }
            14 if self.on("regexp") => {
                let x = s(self);
                if self.chance(0.5) {
                    let r = Expr::leaf(*self.pick(&["'X'", "''", "'\\\\1'"]));
                    Expr::call(
                        "REGEXP_REPLACE",
                        vec![x, Expr::leaf(*self.pick(&REGEXPS)), r],
                    )
                } else {
                    Expr::call("REGEXP_SUBSTR", vec![x, Expr::leaf(*self.pick(&REGEXPS))])
                }
            }
            15 => {
                let (x, _) = self.any_expr(d, sc);
                Expr::call(self.pick_str(&["COLLATION", "CHARSET"]), vec![x])
            }
            _ => {
                let n = self.small_int();
                Expr::call("SPACE", vec![n])
            }
        }
    }

    fn interval(&mut self, d: u32, sc: &Scope) -> (Expr, &'static str) {
        let unit = *self.pick(&UNITS);
        let v = if unit == "DAY_SECOND" {
            Expr::leaf(*self.pick(&["'1 01:02:03'", "'-0 00:00:01'", "'2 3:4:5'"]))
        } else {
            self.expr(Ty::Int, d.min(1), sc)
        };
        (v, unit)
    }

    fn date_add(&mut self, x: Expr, d: u32, sc: &Scope) -> Expr {
        let (v, unit) = self.interval(d, sc);
        match self.below(3) {
            0 => {
                let f = *self.pick(&["DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE"]);
                Expr::node(
                    &[&format!("{f}("), ", INTERVAL ", &format!(" {unit})")],
                    vec![x, v],
                )
            }
            1 => {
                let op = *self.pick(&["+", "-"]);
                Expr::node(
                    &["(", &format!(" {op} INTERVAL "), &format!(" {unit})")],
                    vec![x, v],
                )
            }
            _ => {
                let f = *self.pick(&["ADDDATE", "SUBDATE"]);
                Expr::call(f, vec![x, v])
            }
        }
    }

    fn date_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        match self.weighted(&[5, 5, 3, 2, 4]) {
            0 => {
                let t = *self.pick(&[Ty::DateTime, Ty::Str, Ty::Date]);
                let x = self.expr(t, d, sc);
                Expr::call("DATE", vec![x])
            }
            1 => {
                let x = self.expr(Ty::Date, d, sc);
                self.date_add(x, d, sc)
            }
            2 => {
                let x = self.expr(Ty::Date, d, sc);
                Expr::call("LAST_DAY", vec![x])
            }
            3 => {
                let x = self.expr(Ty::Int, d, sc);
                Expr::call("FROM_DAYS", vec![x])
            }
            _ => {
                let (x, _) = self.any_expr(d, sc);
                Expr::node(&["CAST(", " AS DATE)"], vec![x])
            }
        }
    }

    fn time_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        let (x, _) = self.any_expr(d, sc);
        match self.below(3) {
            0 => Expr::call("TIME", vec![x]),
            1 => {
                let fsp = *self.pick(&["", "(0)", "(3)", "(6)"]);
                Expr::node(&["CAST(", &format!(" AS TIME{fsp})")], vec![x])
            }
            _ => {
                let t = self.expr(Ty::Time, d, sc);
                let (v, unit) = self.interval(d, sc);
                Expr::node(
                    &["DATE_ADD(", ", INTERVAL ", &format!(" {unit})")],
                    vec![t, v],
                )
            }
        }
    }

    fn datetime_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        match self.below(4) {
            0 => {
                let (x, _) = self.any_expr(d, sc);
                let fsp = *self.pick(&["", "(0)", "(2)", "(6)"]);
                Expr::node(&["CAST(", &format!(" AS DATETIME{fsp})")], vec![x])
            }
            1 | 2 => {
                let x = self.expr(Ty::DateTime, d, sc);
                self.date_add(x, d, sc)
            }
            _ => {
                let x = self.expr(Ty::Int, d, sc);
                Expr::call("FROM_UNIXTIME", vec![x])
            }
        }
    }

    fn json_expr(&mut self, d: u32, sc: &Scope) -> Expr {
        let path = |g: &mut Gen| Expr::leaf(*g.pick(&PATHS));
        let val = |g: &mut Gen| {
            let t = *g.pick(&[Ty::Int, Ty::Str, Ty::Json, Ty::Dec]);
            g.expr(t, d, sc)
        };
        let j = |g: &mut Gen| g.expr(Ty::Json, d, sc);
        match self.below(9) {
            0 => {
                let n = self.below(3);
                let args = (0..n).map(|_| val(self)).collect();
                Expr::call("JSON_ARRAY", args)
            }
            1 => {
                let k = Expr::leaf(*self.pick(&["'a'", "'b'", "'k'"]));
                let v = val(self);
                Expr::call("JSON_OBJECT", vec![k, v])
            }
            2 => {
                let (x, p) = (j(self), path(self));
                Expr::call(self.pick_str(&["JSON_EXTRACT", "JSON_QUERY"]), vec![x, p])
            }
            3 => {
                let (x, p, v) = (j(self), path(self), val(self));
                let f = *self.pick(&[
                    "JSON_SET",
                    "JSON_INSERT",
                    "JSON_REPLACE",
                    "JSON_ARRAY_APPEND",
                    "JSON_ARRAY_INSERT",
                ]);
                Expr::call(f, vec![x, p, v])
            }
            4 => {
                let (x, p) = (j(self), path(self));
                Expr::call("JSON_REMOVE", vec![x, p])
            }
            5 => {
                let (a, b) = (j(self), j(self));
                Expr::call(
                    self.pick_str(&["JSON_MERGE_PATCH", "JSON_MERGE_PRESERVE", "JSON_MERGE"]),
                    vec![a, b],
                )
            }
            6 => {
                let x = j(self);
                Expr::call(
                    self.pick_str(&[
                        "JSON_KEYS",
                        "JSON_COMPACT",
                        "JSON_LOOSE",
                        "JSON_DETAILED",
                        "JSON_PRETTY",
                    ]),
                    vec![x],
                )
            }
            7 => {
                let (x, s) = (j(self), self.expr(Ty::Str, d, sc));
                Expr::call(
                    "JSON_SEARCH",
                    vec![x, Expr::leaf(*self.pick(&["'one'", "'all'"])), s],
                )
            }
            _ => self.leaf(Ty::Json, sc),
        }
    }
}
