//! InnoDB's full-text syntax tree and its traversal order.
//!
//! Owns the shape `fts0pars.y` gives a query and the walk of `fts_ast_visit`
//! (`fts0ast.cc`), which together decide the order in which a boolean
//! query's clauses are applied (and so its result: `+a b (c)` and
//! `b (c) +a` differ).
//!
//! Shape ([`Ast::build`] from [`super::query::Clause`]s): a list holds the
//! items of one level in order; an item with a prefix operator is a list of
//! an operator node and the item; a term of several words is a list of
//! terms (the last one carries the `*`); a group is a sub-expression node
//! holding the group's list, and adding it to a level wraps the items so far
//! in a new list (`expr_lst: expr_lst sub_expr`).
//!
//! Walk ([`walk`]): a list is visited in a first pass that recurses into
//! nested lists with the current operator, records operator nodes (turning
//! `+`/`-` into their "skip" forms) and hands unmarked leaves to the query;
//! leaves under `+` or `-` are left for later and flag the level for a
//! revisit, which visits each nested list again, once for its `+` leaves and
//! then once for its `-` leaves. A sub-expression leaf is evaluated by
//! [`Query::enter_group`] / [`Query::leave_group`] around a walk of its list.
//! The walk uses an explicit stack, so a long chain of groups (whose lists
//! nest one per group) cannot overflow the thread's stack.

use super::query::{Clause, Item, Operator};
use super::search::{visit_leaf, DocSet, Query};
use crate::Result;

/// An operator as the walk sees it (`fts_ast_oper_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AstOper {
    /// A query operator.
    Op(Operator),
    /// `FTS_EXIST_SKIP`: a `+` left for the exist pass.
    ExistSkip,
    /// `FTS_IGNORE_SKIP`: a `-` left for the ignore pass.
    IgnoreSkip,
}

/// A node's kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A prefix operator.
    Oper,
    /// One word; `wildcard` for `word*`.
    Term { word: String, wildcard: bool },
    /// A quoted phrase with its optional `@N`.
    Text { text: String, distance: Option<u64> },
    /// `FTS_AST_LIST`.
    List(Vec<usize>),
    /// `FTS_AST_SUBEXP_LIST`: a parenthesised group.
    SubExp(Vec<usize>),
}

#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    oper: AstOper,
    visited: bool,
}

/// The tree: nodes in an arena, the root list last built.
#[derive(Clone, Debug)]
pub(crate) struct Ast {
    nodes: Vec<Node>,
    root: usize,
}

impl Ast {
    fn add(&mut self, kind: Kind, oper: AstOper) -> usize {
        self.nodes.push(Node {
            kind,
            oper,
            visited: false,
        });
        self.nodes.len() - 1
    }

    fn push_child(&mut self, list: usize, child: usize) {
        if let Some(Node {
            kind: Kind::List(c) | Kind::SubExp(c),
            ..
        }) = self.nodes.get_mut(list)
        {
            c.push(child);
        }
    }

    /// Builds InnoDB's tree for a query's top-level clauses.
    pub(crate) fn build(clauses: &[Clause]) -> Ast {
        let mut ast = Ast {
            nodes: Vec::new(),
            root: 0,
        };
        ast.root = ast.build_list(clauses);
        ast
    }

    /// One level (recursion bounded by the parser's group depth limit).
    fn build_list(&mut self, clauses: &[Clause]) -> usize {
        let none = AstOper::Op(Operator::None);
        let mut list: Option<usize> = None;
        for clause in clauses {
            let leaf = match &clause.item {
                Item::Term { words, wildcard } => {
                    let n = words.len();
                    let terms: Vec<usize> = words
                        .iter()
                        .enumerate()
                        .map(|(i, w)| {
                            let kind = Kind::Term {
                                word: w.clone(),
                                wildcard: *wildcard && i + 1 == n,
                            };
                            self.add(kind, none)
                        })
                        .collect();
                    match terms.as_slice() {
                        [one] => *one,
                        _ => self.add(Kind::List(terms), none),
                    }
                }
                Item::Phrase { text, distance } => self.add(
                    Kind::Text {
                        text: text.clone(),
                        distance: *distance,
                    },
                    none,
                ),
                Item::Group(inner) => {
                    let inner_list = self.build_list(inner);
                    self.add(Kind::SubExp(vec![inner_list]), none)
                }
            };
            let item = if clause.op == Operator::None {
                leaf
            } else {
                let oper = self.add(Kind::Oper, AstOper::Op(clause.op));
                self.add(Kind::List(vec![oper, leaf]), none)
            };
            if matches!(clause.item, Item::Group(_)) {
                let children = list.map_or_else(|| vec![item], |prev| vec![prev, item]);
                list = Some(self.add(Kind::List(children), none));
            } else {
                let l = match list {
                    Some(l) => l,
                    None => self.add(Kind::List(Vec::new()), none),
                };
                self.push_child(l, item);
                list = Some(l);
            }
        }
        list.unwrap_or_else(|| self.add(Kind::List(Vec::new()), none))
    }

    /// True for a query of exactly one plain, single-word term
    /// (`fts_query_can_optimize`).
    pub(crate) fn is_single_term(&self) -> bool {
        match self.nodes.get(self.root).map(|n| &n.kind) {
            Some(Kind::List(c)) if c.len() == 1 => {
                matches!(
                    self.nodes.get(c[0]).map(|n| &n.kind),
                    Some(Kind::Term { .. })
                )
            }
            _ => false,
        }
    }

    fn children(&self, list: usize) -> &[usize] {
        match self.nodes.get(list).map(|n| &n.kind) {
            Some(Kind::List(c) | Kind::SubExp(c)) => c,
            _ => &[],
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    First,
    Exist,
    Ignore,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    First,
    ExistLoop,
    IgnoreLoop,
}

/// One `fts_ast_visit` call in progress.
struct Visit {
    list: usize,
    pass: Pass,
    oper: AstOper,
    stage: Stage,
    next: usize,
    revisit: bool,
    will_be_ignored: bool,
    /// Set when a leaf was left for a later pass (the caller's flag).
    has_ignore: bool,
    /// The nested list whose first-pass visit is running.
    awaiting: Option<usize>,
}

impl Visit {
    fn new(list: usize, oper: AstOper) -> Self {
        let pass = match oper {
            AstOper::ExistSkip => Pass::Exist,
            AstOper::IgnoreSkip => Pass::Ignore,
            AstOper::Op(_) => Pass::First,
        };
        Visit {
            list,
            pass,
            oper,
            stage: Stage::First,
            next: 0,
            revisit: false,
            will_be_ignored: false,
            has_ignore: false,
            awaiting: None,
        }
    }
}

enum Frame {
    Visit(Visit),
    /// A group being evaluated: the parent's state.
    Group((Operator, DocSet, bool)),
}

fn base(oper: AstOper) -> Operator {
    match oper {
        AstOper::Op(o) => o,
        AstOper::ExistSkip => Operator::Exist,
        AstOper::IgnoreSkip => Operator::Ignore,
    }
}

/// What the walk does after looking at a child.
enum Action {
    Nothing,
    Visit(usize, AstOper),
    Group(usize, Operator),
    Leaf(Kind, Operator),
}

/// Walks the tree from its root, applying every leaf to `q`.
pub(crate) fn walk(ast: &mut Ast, q: &mut Query) -> Result<()> {
    let mut stack = vec![Frame::Visit(Visit::new(
        ast.root,
        AstOper::Op(Operator::None),
    ))];
    while let Some(frame) = stack.last_mut() {
        let Frame::Visit(v) = frame else {
            // Group frames are resumed when the visit above them ends.
            stack.pop();
            continue;
        };
        let action = step(ast, v);
        match action {
            None => finish_visit(ast, q, &mut stack)?,
            Some(Action::Nothing) => {}
            Some(Action::Visit(list, oper)) => stack.push(Frame::Visit(Visit::new(list, oper))),
            Some(Action::Group(node, oper)) => {
                q.oper = oper;
                let saved = q.enter_group()?;
                stack.push(Frame::Group(saved));
                stack.push(Frame::Visit(Visit::new(node, AstOper::Op(Operator::None))));
            }
            Some(Action::Leaf(kind, oper)) => {
                q.oper = oper;
                visit_leaf(q, &kind)?;
                after_leaf(q);
            }
        }
    }
    Ok(())
}

/// Advances one visit by one child; `None` when the visit is over.
fn step(ast: &mut Ast, v: &mut Visit) -> Option<Action> {
    let Some(child) = ast.children(v.list).get(v.next).copied() else {
        match v.stage {
            Stage::First if v.revisit => {
                v.stage = Stage::ExistLoop;
                v.next = 0;
                return Some(Action::Nothing);
            }
            Stage::ExistLoop => {
                v.stage = Stage::IgnoreLoop;
                v.next = 0;
                return Some(Action::Nothing);
            }
            _ => return None,
        }
    };
    v.next += 1;
    let node = &mut ast.nodes[child];
    let is_list = matches!(node.kind, Kind::List(_));
    match v.stage {
        Stage::ExistLoop => {
            if is_list && node.oper != AstOper::Op(Operator::Ignore) {
                return Some(Action::Visit(child, AstOper::ExistSkip));
            }
            return Some(Action::Nothing);
        }
        Stage::IgnoreLoop => {
            if is_list {
                return Some(Action::Visit(child, AstOper::IgnoreSkip));
            }
            return Some(Action::Nothing);
        }
        Stage::First => {}
    }
    match node.kind {
        Kind::List(_) => {
            if v.pass == Pass::First {
                v.awaiting = Some(child);
                return Some(Action::Visit(child, v.oper));
            }
            Some(Action::Nothing)
        }
        Kind::Oper => {
            v.oper = node.oper;
            match node.oper {
                AstOper::Op(Operator::Exist) => node.oper = AstOper::ExistSkip,
                AstOper::Op(Operator::Ignore) => node.oper = AstOper::IgnoreSkip,
                _ => {}
            }
            Some(Action::Nothing)
        }
        _ => {
            if node.visited {
                return Some(Action::Nothing);
            }
            if matches!(
                v.oper,
                AstOper::Op(Operator::Exist) | AstOper::Op(Operator::Ignore)
            ) {
                v.has_ignore = true;
                return Some(Action::Nothing);
            }
            let oper = match (v.oper, v.pass) {
                (AstOper::ExistSkip, Pass::Exist) => Operator::Exist,
                (AstOper::IgnoreSkip, Pass::Ignore) => Operator::Ignore,
                (o, Pass::First) => base(o),
                _ => return Some(Action::Nothing),
            };
            node.visited = true;
            if matches!(node.kind, Kind::SubExp(_)) {
                Some(Action::Group(child, oper))
            } else {
                Some(Action::Leaf(node.kind.clone(), oper))
            }
        }
    }
}

/// The end of `fts_query_visitor`: a `+` leaf makes later `+` leaves
/// intersect with the current set only.
fn after_leaf(q: &mut Query) {
    if q.oper == Operator::Exist {
        q.multi_exist = true;
    }
}

/// Ends the visit on top of the stack and resumes its caller.
fn finish_visit(ast: &mut Ast, q: &mut Query, stack: &mut Vec<Frame>) -> Result<()> {
    let Some(Frame::Visit(done)) = stack.pop() else {
        return Ok(());
    };
    match stack.last_mut() {
        Some(Frame::Visit(parent)) => {
            if done.has_ignore {
                parent.will_be_ignored = true;
            }
            if parent.awaiting == Some(done.list) {
                parent.awaiting = None;
                if parent.will_be_ignored {
                    parent.revisit = true;
                    ast.nodes[done.list].oper = parent.oper;
                }
            }
        }
        Some(Frame::Group(_)) => {
            if let Some(Frame::Group(saved)) = stack.pop() {
                q.leave_group(saved)?;
                after_leaf(q);
            }
        }
        None => {}
    }
    Ok(())
}
