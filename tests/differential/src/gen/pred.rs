//! Predicates (comparisons of same and mixed types, AND/OR/XOR/NOT/!,
//! IS [NOT] NULL/TRUE/FALSE/UNKNOWN, [NOT] BETWEEN, [NOT] IN lists, LIKE
//! with ESCAPE, REGEXP, and subquery predicates: EXISTS, IN, ANY/ALL) and
//! aggregate calls for grouped queries.

use super::lits::{LIKE_PATTERNS, REGEXPS};
use super::{Gen, Scope};
use crate::ast::Expr;
use crate::schema::Ty;

const CMP: [&str; 8] = ["=", "<>", "!=", "<", "<=", ">", ">=", "<=>"];

impl Gen {
    /// A predicate (an integer-valued truth expression, possibly NULL).
    pub fn pred(&mut self, depth: u32, sc: &Scope) -> Expr {
        if depth == 0 {
            return self.comparison(0, sc);
        }
        let d = depth - 1;
        let sub = sc.grouped.is_none() && self.on("subquery");
        match self.weighted(&[
            30,
            12,
            4,
            5,
            4,
            4,
            5,
            5,
            3,
            if sub { 4 } else { 0 },
            if sub { 3 } else { 0 },
            if sub && self.on("any-all") { 2 } else { 0 },
            1,
        ]) {
            0 => self.comparison(d, sc),
            1 => {
                let (a, b) = (self.pred(d, sc), self.pred(d, sc));
                let op = *self.pick(&["AND", "OR", "XOR", "&&", "||", "AND", "OR"]);
                self.bin(a, op, b)
            }
            2 => {
                let a = self.pred(d, sc);
                let op = *self.pick(&["NOT", "!"]);
                self.prefix(op, a)
            }
            3 => {
                let (x, _) = self.any_expr(d, sc);
                let t = *self.pick(&["IS NULL", "IS NOT NULL"]);
                Expr::node(&["", &format!(" {t}")], vec![x])
            }
            4 => {
                let x = self.pred(d, sc);
                let t = *self.pick(&[
                    "IS TRUE",
                    "IS NOT TRUE",
                    "IS FALSE",
                    "IS NOT FALSE",
                    "IS UNKNOWN",
                    "IS NOT UNKNOWN",
                ]);
                if self.chance(0.5) {
                    Expr::node(&["(", &format!(") {t}")], vec![x])
                } else {
                    Expr::node(&["", &format!(" {t}")], vec![x])
                }
            }
            5 => {
                let ty = self.random_ty();
                let (x, lo, hi) = (
                    self.expr(ty, d, sc),
                    self.expr(ty, d, sc),
                    self.expr(ty, d, sc),
                );
                let not = if self.chance(0.3) { " NOT" } else { "" };
                Expr::node(
                    &["(", &format!("{not} BETWEEN "), " AND ", ")"],
                    vec![x, lo, hi],
                )
            }
            6 => {
                let ty = self.random_ty();
                let x = self.expr(ty, d, sc);
                let n = 1 + self.below(3);
                let not = if self.chance(0.3) { "NOT " } else { "" };
                let mut parts = vec!["(".to_owned(), format!(" {not}IN (")];
                let mut args = vec![x];
                for i in 0..n {
                    let t = if self.chance(0.8) {
                        ty
                    } else {
                        self.random_ty()
                    };
                    args.push(self.expr(t, 0, sc));
                    parts.push(if i + 1 < n { ", " } else { "))" }.to_owned());
                }
                Expr::Node { parts, args }
            }
            7 => {
                let x = self.expr(Ty::Str, d, sc);
                let pat = *self.pick(&LIKE_PATTERNS);
                let not = if self.chance(0.2) { " NOT" } else { "" };
                let esc = if pat.contains('|') || self.chance(0.1) {
                    " ESCAPE '|'"
                } else {
                    ""
                };
                Expr::node(&["(", &format!("{not} LIKE {pat}{esc})")], vec![x])
            }
            8 if self.on("regexp") => {
                let x = self.expr(Ty::Str, d, sc);
                let re = *self.pick(&REGEXPS);
                // (REGEXP_LIKE() is not a MariaDB 10.11 function.)
                let op = *self.pick(&["REGEXP", "RLIKE", "NOT REGEXP"]);
                Expr::node(&["(", &format!(" {op} {re})")], vec![x])
            }
            9 => {
                let q = self.subquery_rows(None, d, sc);
                let not = if self.chance(0.3) { "NOT " } else { "" };
                Expr::sub(&format!("{not}EXISTS ("), q, ")")
            }
            10 => {
                let ty = self.random_ty();
                let x = self.expr(ty, d, sc);
                let q = self.subquery_rows(Some(ty), d, sc);
                let not = if self.chance(0.3) { "NOT " } else { "" };
                Expr::Node {
                    parts: vec!["(".to_owned(), String::new(), String::new()],
                    args: vec![x, Expr::sub(&format!(" {not}IN ("), q, "))")],
                }
            }
            11 => {
                let ty = self.random_ty();
                let x = self.expr(ty, d, sc);
                let q = self.subquery_rows(Some(ty), d, sc);
                let op = *self.pick(&CMP[..7]);
                let quant = *self.pick(&["ANY", "ALL", "SOME"]);
                Expr::Node {
                    parts: vec!["(".to_owned(), String::new(), String::new()],
                    args: vec![x, Expr::sub(&format!(" {op} {quant} ("), q, "))")],
                }
            }
            _ => Expr::leaf(*self.pick(&["TRUE", "FALSE", "NULL", "1", "0"])),
        }
    }

    /// `a <op> b` of one type family, or of two when converting.
    pub fn comparison(&mut self, d: u32, sc: &Scope) -> Expr {
        let ta = self.random_ty();
        let tb = if self.chance(0.75) {
            ta
        } else {
            self.random_ty()
        };
        let (a, b) = (self.expr(ta, d, sc), self.expr(tb, d, sc));
        let op = *self.pick(&CMP);
        self.bin(a, op, b)
    }

    /// An aggregate call whose result is of (about) type family `ty`; its
    /// argument is generated in the ungrouped scope.
    pub fn aggregate(&mut self, ty: Ty, sc: &Scope) -> Expr {
        let inner = Scope {
            cols: sc.cols.clone(),
            outer: sc.outer.clone(),
            grouped: None,
        };
        let arg = |g: &mut Gen, t: Ty| g.expr(t, 1, &inner);
        match ty {
            Ty::Int => match self.below(6) {
                0 => Expr::leaf("COUNT(*)"),
                1 => {
                    let (x, _) = self.any_expr(1, &inner);
                    Expr::call("COUNT", vec![x])
                }
                2 => {
                    let (x, _) = self.any_expr(1, &inner);
                    Expr::node(&["COUNT(DISTINCT ", ")"], vec![x])
                }
                3 => {
                    let x = arg(self, Ty::Int);
                    Expr::call(self.pick_str(&["BIT_AND", "BIT_OR", "BIT_XOR"]), vec![x])
                }
                _ => {
                    let x = arg(self, Ty::Int);
                    Expr::call(self.pick_str(&["MIN", "MAX", "SUM"]), vec![x])
                }
            },
            Ty::Dec | Ty::Float => {
                let t = *self.pick(&[Ty::Int, Ty::Dec, Ty::Float]);
                let x = arg(self, t);
                if self.chance_of("variance", 0.2) {
                    let f = *self.pick(&[
                        "STD",
                        "STDDEV",
                        "STDDEV_POP",
                        "STDDEV_SAMP",
                        "VARIANCE",
                        "VAR_POP",
                        "VAR_SAMP",
                    ]);
                    Expr::call(f, vec![x])
                } else if self.chance(0.2) {
                    Expr::node(
                        &[&format!("{}(DISTINCT ", self.pick(&["SUM", "AVG"])), ")"],
                        vec![x],
                    )
                } else {
                    Expr::call(self.pick_str(&["SUM", "AVG", "MIN", "MAX"]), vec![x])
                }
            }
            Ty::Str if self.chance_of("group-concat", 0.5) => {
                let (x, _) = self.any_expr(1, &inner);
                if matches!(x, Expr::Leaf(_)) {
                    // A literal in ORDER BY would be a position.
                    return Expr::call("GROUP_CONCAT", vec![x]);
                }
                // Ordered by the value, ties broken by its bytes: deterministic.
                let sep = *self.pick(&["", " SEPARATOR '|'", " SEPARATOR ''"]);
                let dir = *self.pick(&["", " DESC"]);
                Expr::Repeat {
                    parts: vec![
                        "GROUP_CONCAT(".to_owned(),
                        " ORDER BY ".to_owned(),
                        format!("{dir}, BINARY "),
                        format!("{sep})"),
                    ],
                    arg: Box::new(x),
                }
            }
            _ => {
                let x = arg(self, ty);
                Expr::call(self.pick_str(&["MIN", "MAX"]), vec![x])
            }
        }
    }
}
