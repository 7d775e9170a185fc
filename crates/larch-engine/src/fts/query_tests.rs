//! Tests of the query parser (a separate file to keep `query.rs` short).

use super::*;

fn b(q: &str) -> Result<ParsedQuery> {
    parse_boolean(
        q.as_bytes(),
        Collation::Utf8mb4GeneralCi,
        TokenSizeLimits::default(),
    )
}

fn term(op: Operator, words: &[&str], wildcard: bool) -> Clause {
    Clause {
        op,
        item: Item::Term {
            words: words.iter().map(|w| (*w).to_owned()).collect(),
            wildcard,
        },
    }
}

fn clauses(q: &str) -> Vec<Clause> {
    b(q).expect("query parses").clauses
}

fn error(q: &str) -> (u16, String) {
    match b(q) {
        Err(EngineError::Schema { errno, message }) => (errno, message),
        other => panic!("{q:?}: expected an error, got {other:?}"),
    }
}

#[test]
fn prefixes_terms_and_wildcards() {
    assert_eq!(
        clauses("+MySQL -YourSQL"),
        vec![
            term(Operator::Exist, &["mysql"], false),
            term(Operator::Ignore, &["yoursql"], false)
        ]
    );
    assert_eq!(
        clauses("+ MySQL >Well < stands ~x"),
        vec![
            term(Operator::Exist, &["mysql"], false),
            term(Operator::IncrRating, &["well"], false),
            term(Operator::DecrRating, &["stands"], false),
            term(Operator::Negate, &["x"], false),
        ]
    );
    assert_eq!(clauses("MY*"), vec![term(Operator::None, &["my"], true)]);
    assert_eq!(
        clauses("**ru * x"),
        vec![
            term(Operator::None, &["ru"], true),
            term(Operator::None, &["x"], false)
        ]
    );
}

#[test]
fn groups_nest() {
    let q = b("YourSQL + (+MySQL - (Tricks Security))").expect("parses");
    assert_eq!(q.depth, 2);
    assert_eq!(
        q.clauses,
        vec![
            term(Operator::None, &["yoursql"], false),
            Clause {
                op: Operator::Exist,
                item: Item::Group(vec![
                    term(Operator::Exist, &["mysql"], false),
                    Clause {
                        op: Operator::Ignore,
                        item: Item::Group(vec![
                            term(Operator::None, &["tricks"], false),
                            term(Operator::None, &["security"], false),
                        ]),
                    },
                ]),
            },
        ]
    );
    assert!(clauses("() a").len() == 1, "an empty group is dropped");
}

#[test]
fn phrases_and_proximity() {
    assert_eq!(
        clauses("\"Following Comparison\"@3 \"x y\""),
        vec![
            Clause {
                op: Operator::None,
                item: Item::Phrase {
                    text: "following comparison".to_owned(),
                    distance: Some(3)
                },
            },
            Clause {
                op: Operator::None,
                item: Item::Phrase {
                    text: "x y".to_owned(),
                    distance: None
                },
            },
        ]
    );
    assert_eq!(
        clauses("+\"\" abc"),
        vec![term(Operator::None, &["abc"], false)]
    );
    let big = clauses("\"a b\"@99999999999999999999999");
    assert!(matches!(
        &big[0].item,
        Item::Phrase {
            distance: Some(u64::MAX),
            ..
        }
    ));
    assert_eq!(
        phrase_words("proximity search, test"),
        ["proximity", "search", "test"]
    );
}

#[test]
fn terms_split_like_innodb() {
    // The first word is kept whatever its length; later short words are not.
    assert_eq!(
        clauses("a.bc.def"),
        vec![term(Operator::None, &["a", "def"], false)]
    );
    assert_eq!(
        clauses("mysql - Security&DBMS"),
        vec![
            term(Operator::None, &["mysql"], false),
            term(Operator::Ignore, &["security", "dbms"], false)
        ]
    );
    // A term without a word is dropped with its prefix.
    assert_eq!(
        clauses("+... abc"),
        vec![term(Operator::None, &["abc"], false)]
    );
    // A tab does not end a term in boolean mode.
    assert_eq!(
        clauses("abc\tdef"),
        vec![term(Operator::None, &["abc", "def"], false)]
    );
    // Numbers are terms; '%' and a lone '"' are skipped.
    assert_eq!(
        clauses("50% \" 1001"),
        vec![
            term(Operator::None, &["50"], false),
            term(Operator::None, &["1001"], false)
        ]
    );
    assert_eq!(clauses("2nd"), vec![term(Operator::None, &["2nd"], false)]);
}

#[test]
fn syntax_errors_report_bisons_message() {
    assert_eq!(
        error("((Security)"),
        (1064, "syntax error, unexpected $end".to_owned())
    );
    assert_eq!(error("++a").1, "syntax error, unexpected '+'");
    assert_eq!(error("a +").1, "syntax error, unexpected $end");
    assert_eq!(error("a)").1, "syntax error, unexpected ')'");
    assert_eq!(error("@").1, "syntax error, unexpected '@'");
    assert_eq!(error("\"a b\" @ x").1, "syntax error, unexpected FTS_TERM");
    assert_eq!(error("*(a)").1, "syntax error, unexpected '('");
    assert!(b("").expect("empty parses").clauses.is_empty());
}

#[test]
fn nesting_limit_is_mariadbs() {
    // From mysql-test/suite/innodb_fts/r/basic.result: 32 levels work, 33
    // fail with "Table handler out of memory", an unbalanced query is a
    // syntax error whatever its depth.
    let nest = |n: usize, close: usize| format!("{}Security{}", "(".repeat(n), ")".repeat(close));
    let q = b(&nest(32, 32)).expect("32 levels");
    assert_eq!(q.depth, 32);
    assert_eq!(
        error(&nest(33, 33)),
        (128, "Table handler out of memory".to_owned())
    );
    assert_eq!(error(&nest(32, 31)).0, 1064);
    assert_eq!(error(&nest(33, 32)).0, 1064);
    // Deep nesting does not recurse.
    assert_eq!(error(&nest(200_000, 200_000)).0, 128);
}

#[test]
fn natural_language_mode() {
    let terms = |q: &str| {
        natural_language_terms(
            q.as_bytes(),
            Collation::Utf8mb4GeneralCi,
            TokenSizeLimits::default(),
        )
        .expect("parses")
    };
    assert_eq!(terms("+MySQL -YourSQL (x)"), ["mysql", "yoursql", "x"]);
    assert_eq!(
        terms("Database \"following comparison\""),
        ["database", "following", "comparison"]
    );
    // '*' inside a term is part of it; the tokenizer drops it.
    let q = parse_natural(
        b"abc*",
        Collation::Utf8mb4GeneralCi,
        TokenSizeLimits::default(),
    )
    .expect("parses");
    assert_eq!(q.clauses, vec![term(Operator::None, &["abc"], false)]);
    let q = parse_natural(
        b"* abc *",
        Collation::Utf8mb4GeneralCi,
        TokenSizeLimits::default(),
    )
    .expect("parses");
    assert_eq!(q.clauses, vec![term(Operator::None, &["abc"], true)]);
    assert!(parse_natural(
        b"*",
        Collation::Utf8mb4GeneralCi,
        TokenSizeLimits::default()
    )
    .is_err());
}

#[test]
fn latin1_queries_fold_with_the_latin1_table() {
    let q = parse_boolean(
        b"+\xC9T\xC9",
        Collation::Latin1SwedishCi,
        TokenSizeLimits::default(),
    )
    .expect("parses");
    assert_eq!(q.clauses, vec![term(Operator::Exist, &["été"], false)]);
    let q =
        parse_boolean(b"MySQL", Collation::Latin1Bin, TokenSizeLimits::default()).expect("parses");
    assert_eq!(q.clauses, vec![term(Operator::None, &["MySQL"], false)]);
}

#[test]
fn never_panics_on_arbitrary_bytes() {
    let alphabet = b"ab1 \t\n\"*()+-<>~@%'.\xC3\xA9\xFF";
    let mut x = 0x1234_5678_9ABC_DEF1u64;
    for len in 0..120 {
        let q: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                alphabet[(x % alphabet.len() as u64) as usize]
            })
            .collect();
        for c in [Collation::Utf8mb4GeneralCi, Collation::Latin1SwedishCi] {
            let _ = parse_boolean(&q, c, TokenSizeLimits::default());
            let _ = parse_natural(&q, c, TokenSizeLimits::default());
        }
    }
}
