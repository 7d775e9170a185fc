//! The JSON functions, checked against what MariaDB 10.11 returns for the
//! same calls (the expected texts are MariaDB's, from its own test suite
//! `main.func_json` where the case comes from there), and JSON stored in a
//! `JSON` column.

mod support;

use support::{one, rows, TestDb, R};

/// Each (expression, MariaDB's result) pair; "NULL" for SQL NULL.
const CASES: &[(&str, &str)] = &[
    ("json_valid('[1, 2]')", "1"),
    ("json_valid('\"string\"}')", "0"),
    ("json_valid('{\"key1\":1, \"key2\":[2,3]}')", "1"),
    ("json_valid(repeat('[', 1000))", "0"),
    ("json_value('{\"key1\":123}', '$.key2')", "NULL"),
    ("json_value('{\"key1\":123}', '$.key1')", "123"),
    ("json_value('{\"key1\":[1,2,3]}', '$.key1')", "NULL"),
    ("json_value('{\"key1\": [1,2,3], \"key1\":123}', '$.key1')", "123"),
    ("json_query('{\"key1\":{\"a\":1, \"b\":[1,2]}}', '$.key1')", "{\"a\":1, \"b\":[1,2]}"),
    ("json_query('{\"key1\": 1}', '$.key1')", "NULL"),
    ("json_array()", "[]"),
    ("json_array(1, 'text', null)", "[1, \"text\", null]"),
    ("json_array_append('[\"a\", \"b\"]', '$', 'c')", "[\"a\", \"b\", \"c\"]"),
    ("json_array_append('{\"k1\":1, \"k2\":[\"a\", \"b\"]}', '$.k2', 2)", "{\"k1\": 1, \"k2\": [\"a\", \"b\", 2]}"),
    ("json_array_append('[\"a\", [\"b\", \"c\"], \"d\"]', '$[0]', 2)", "[[\"a\", 2], [\"b\", \"c\"], \"d\"]"),
    ("json_array_insert('[\"a\", {\"b\": [1, 2]}, [3, 4]]', '$[1]', 'x')", "[\"a\", \"x\", {\"b\": [1, 2]}, [3, 4]]"),
    ("json_array_insert('[\"a\", {\"b\": [1, 2]}, [3, 4]]', '$[4]', 'x')", "[\"a\", {\"b\": [1, 2]}, [3, 4], \"x\"]"),
    ("json_array_insert('[\"a\", {\"b\": [1, 2]}, [3, 4]]', '$[1].b[0]', 'x')", "[\"a\", {\"b\": [\"x\", 1, 2]}, [3, 4]]"),
    ("json_array_insert('true', '$', 1)", "NULL"),
    ("json_contains('{\"k1\":123, \"k2\":345}', '123', '$.k1')", "1"),
    ("json_contains('\"you\"', '\"you\"')", "1"),
    ("json_contains('\"youth\"', '\"you\"')", "0"),
    ("json_contains('', '', '$')", "NULL"),
    ("json_contains('\"10\"', '10', '$')", "0"),
    ("json_contains('10.0', '10', '$')", "1"),
    ("json_contains('[2, [2, 3], 1]', '1')", "1"),
    ("json_contains('[4, [2, 3], 1]', '2')", "1"),
    ("json_contains('[2, 1]', '[1, 2]')", "1"),
    ("json_contains('{\"a\":1, \"b\":{\"c\":2}}', '{\"b\":{\"c\":2}}')", "1"),
    ("json_contains_path('{\"key1\":1, \"key2\":[2,3]}', 'oNE', '$.key2[1]')", "1"),
    ("json_contains_path('{\"key1\":1, \"key2\":[2,3]}', 'all', '$.key1', '$.ma')", "0"),
    ("json_extract('{\"key1\":\"asd\", \"key2\":[2,3]}', '$.key1')", "\"asd\""),
    ("json_extract('{\"key1\":\"asd\", \"key2\":[2,3]}', '$.keyX', '$.keyY')", "NULL"),
    ("json_extract('{\"key1\":\"asd\", \"key2\":[2,3]}', '$.key1', '$.key2')", "[\"asd\", [2, 3]]"),
    ("json_extract(json_object('foo', 'foobar'),'$')", "{\"foo\": \"foobar\"}"),
    ("json_extract('[10, 20, [{\"a\":3}, 30, 40]]', '$[2][*]')", "[{\"a\": 3}, 30, 40]"),
    ("json_extract('[10, 20, [30, 40], 1, 10]', '$[1]', '$[25]')", "[20]"),
    ("json_extract('[1]', '$**[0]')", "[1]"),
    ("json_extract('{\"test\":8.437e-5}','$.test')", "8.437e-5"),
    ("json_insert('{\"a\":1, \"b\":{\"c\":1}, \"d\":[1, 2]}', '$.b.k1', 'word')", "{\"a\": 1, \"b\": {\"c\": 1, \"k1\": \"word\"}, \"d\": [1, 2]}"),
    ("json_insert('{\"a\":1, \"b\":{\"c\":1}, \"d\":[1, 2]}', '$.d[3]', 3)", "{\"a\": 1, \"b\": {\"c\": 1}, \"d\": [1, 2, 3]}"),
    ("json_insert('{\"a\":1, \"b\":{\"c\":1}, \"d\":[1, 2]}', '$.a[2]', 2)", "{\"a\": [1, 2], \"b\": {\"c\": 1}, \"d\": [1, 2]}"),
    ("json_insert('{\"a\":1, \"b\":{\"c\":1}, \"d\":[1, 2]}', '$.b.c', 'word')", "{\"a\": 1, \"b\": {\"c\": 1}, \"d\": [1, 2]}"),
    ("json_set('{ \"a\": 1, \"b\": [2, 3]}', '$.a', 10, '$.c', '[true, false]')", "{\"a\": 10, \"b\": [2, 3], \"c\": \"[true, false]\"}"),
    ("json_replace('{ \"a\": 1, \"b\": [2, 3]}', '$.a', 10, '$.c', '[true, false]')", "{\"a\": 10, \"b\": [2, 3]}"),
    ("json_set('{\"a\": 1}', '$.b', json_array(1, 2))", "{\"a\": 1, \"b\": [1, 2]}"),
    ("json_remove('[\"a\", [\"b\", \"c\"], \"d\"]', '$[1]')", "[\"a\", \"d\"]"),
    ("json_remove('{\"a\": 1, \"b\": [2, 3]}', '$.a')", "{\"b\": [2, 3]}"),
    ("json_object()", "{}"),
    ("json_object('ki', 1, 'mi', 'ya')", "{\"ki\": 1, \"mi\": \"ya\"}"),
    ("json_object('a', json_object('b', null))", "{\"a\": {\"b\": null}}"),
    ("json_exists('{\"key1\":\"xxxx\", \"key2\":[1, 2, 3]}', '$.key2[1]')", "1"),
    ("json_exists('{\"key1\":\"xxxx\", \"key2\":[1, 2, 3]}', '$.key2[10]')", "0"),
    ("json_quote('\"string\"')", "\"\\\"string\\\"\""),
    ("json_merge('string', 123)", "NULL"),
    ("json_merge('\"string\"', 123)", "[\"string\", 123]"),
    ("json_merge('[1, 2]', '[true, false]')", "[1, 2, true, false]"),
    ("json_merge('{\"1\": 2}', '{\"true\": false}', '{\"3\": 4}')", "{\"1\": 2, \"true\": false, \"3\": 4}"),
    ("json_merge(NULL,json_object('foo', 1))", "NULL"),
    ("json_merge('[1, 2]', '{\"id\": 47}')", "[1, 2, {\"id\": 47}]"),
    ("json_merge_patch('{\"a\":1, \"b\":2}', '{\"b\":null, \"c\":3}')", "{\"a\": 1, \"c\": 3}"),
    ("json_type('{\"k1\":123, \"k2\":345}')", "OBJECT"),
    ("json_type('[123, \"k2\", 345]')", "ARRAY"),
    ("json_type('true')", "BOOLEAN"),
    ("json_type('123')", "INTEGER"),
    ("json_type('123.12')", "DOUBLE"),
    ("json_keys('{\"a\":{\"c\":1, \"d\":2}, \"b\":2}')", "[\"a\", \"b\"]"),
    ("json_keys('{\"a\":{\"c\":1, \"d\":2}, \"b\":2}', '$.a')", "[\"c\", \"d\"]"),
    ("json_keys('{\"a\":{\"c\":1, \"d\":2}, \"b\":2}', '$.b')", "NULL"),
    ("json_keys('{\"a\":{\"c\":1, \"d\":2}, \"b\":2, \"c\":1, \"a\":3, \"b\":1, \"c\":2}')", "[\"a\", \"b\", \"c\"]"),
    ("json_search('[\"abc\", [{\"k\": \"10\"}, \"def\"], {\"x\":\"abc\"}, {\"y\":\"bcd\"}]', 'one', 'abc')", "\"$[0]\""),
    ("json_search('[\"abc\", [{\"k\": \"10\"}, \"def\"], {\"x\":\"abc\"}, {\"y\":\"bcd\"}]', 'all', 'abc')", "[\"$[0]\", \"$[2].x\"]"),
    ("json_search('[\"abc\", [{\"k\": \"10\"}, \"def\"], {\"x\":\"abc\"}, {\"y\":\"bcd\"}]', 'all', 'abc', NULL, '$[2]')", "\"$[2].x\""),
    ("json_search('[\"abc\", [{\"k\": \"10\"}, \"def\"], {\"x\":\"abc\"}, {\"y\":\"bcd\"}]', 'all', '10', NULL, '$**.k')", "\"$[1][0].k\""),
    ("json_unquote('\"abc\"')", "abc"),
    ("json_unquote('abc')", "abc"),
    ("json_length('[1, 2, {\"a\": 3}]')", "3"),
    ("json_length('{\"a\": 1, \"b\": {\"c\": 30}}', '$.b')", "1"),
    ("json_depth('[10, {\"a\": 20}]')", "3"),
    ("json_compact('{\"a\":1, \"b\":[1,2,3]}')", "{\"a\":1,\"b\":[1,2,3]}"),
    ("json_loose('{\"a\":1, \"b\":[1,2,3], \"c\":{\"aa\":\"v1\", \"bb\": \"v2\"}}')", "{\"a\": 1, \"b\": [1, 2, 3], \"c\": {\"aa\": \"v1\", \"bb\": \"v2\"}}"),
    ("json_detailed('{\"a\":1, \"b\":[1,2,3], \"c\":{\"aa\":\"v1\", \"bb\": \"v2\"}}')", "{\n    \"a\": 1,\n    \"b\": \n    [\n        1,\n        2,\n        3\n    ],\n    \"c\": \n    {\n        \"aa\": \"v1\",\n        \"bb\": \"v2\"\n    }\n}"),
    ("json_detailed('[[123],456]')", "[\n    [123],\n    456\n]"),
    ("json_equals('{\"a\": [1, 2]}', '{\"a\":[1,2]}')", "1"),
    ("json_value('{\"x\": \"Mon\\\\\"t\\\\\"y\"}', '$.x')", "Mon\"t\"y"),
    // JSON_EXTRACT compared with a string is its JSON string unquoted (the
    // left one, when both sides are JSON_EXTRACT), and read as a number is
    // the number its value is: MariaDB's compare_json_str and val_real.
    ("'e' = json_extract('[\"e\"]', '$[0]')", "1"),
    ("json_extract('[\"e\"]', '$[0]') = 'e'", "1"),
    ("json_extract('{\"a\":\"x\"}', '$.a') <=> 'x'", "1"),
    ("json_extract('[\"e\"]', '$[0]') < 'f'", "1"),
    ("json_extract('[\"e\"]', '$[0]') LIKE 'e'", "0"),
    ("json_extract('[\"e\"]', '$[0]') IN ('e')", "1"),
    ("json_extract('[\"e\"]', '$[0]') IN ('e', 'f')", "0"),
    ("json_extract('[\"e\"]', '$[0]') = json_extract('[\"e\"]', '$[0]')", "0"),
    ("json_extract('[true]', '$[0]') = 'true'", "1"),
    ("json_extract('[\"a\\\\\"b\"]', '$[0]') = 'a\"b'", "1"),
    ("json_extract('[true]', '$[0]') = 1", "1"),
    ("json_extract('[\"1\"]', '$[0]') = 1", "1"),
    ("json_extract('[\"1\"]', '$[0]') + 0", "1"),
    ("json_extract('[1.5]', '$[0]') = 1.5", "1"),
];

#[test]
fn functions_return_what_mariadb_returns() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    let mut wrong = Vec::new();
    for (expr, expected) in CASES {
        let got = one(&mut s, &format!("SELECT {expr}"))?;
        if got != *expected {
            wrong.push(format!("{expr}\n  got:      {got}\n  expected: {expected}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    Ok(())
}

#[test]
fn invalid_documents_and_paths_warn_as_mariadb_does() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    let cases = [
        (
            "json_valid('\"string\"}')",
            "Note|4038|Syntax error in JSON text in argument 1 to function 'json_valid' at position 9",
        ),
        (
            "json_valid(repeat('[', 1000))",
            "Note|4040|Limit of 32 on JSON nested structures depth is reached in argument 1 to function 'json_valid' at position 32",
        ),
        (
            "json_contains('', '', '$')",
            "Warning|4037|Unexpected end of JSON text in argument 1 to function 'json_contains'",
        ),
        (
            "json_keys('foo')",
            "Warning|4038|Syntax error in JSON text in argument 1 to function 'json_keys' at position 1",
        ),
        (
            "json_merge('a','b')",
            "Warning|4038|Syntax error in JSON text in argument 1 to function 'json_merge_preserve' at position 1",
        ),
        (
            "json_query('{\"key1\":123}', concat('$', repeat('.k', 1000)))",
            "Warning|4043|Limit of 32 on JSON path depth is reached in argument 2 to function 'json_query' at position 65",
        ),
        (
            "json_set('{}', '$.a[*]', 1)",
            "Warning|4044|Wildcards or range in JSON path not allowed in argument 2 to function 'json_set'",
        ),
    ];
    for (expr, warning) in cases {
        let v = one(&mut s, &format!("SELECT {expr}"))?;
        assert!(v == "NULL" || v == "0", "{expr} gave {v}");
        let w = rows(&mut s, "SHOW WARNINGS")?;
        let got: Vec<String> = w.iter().map(|r| r.join("|")).collect();
        assert_eq!(got, vec![warning.to_string()], "{expr}");
    }
    let e = s
        .execute("SELECT json_object('a')")
        .err()
        .ok_or("odd JSON_OBJECT arguments accepted")?;
    assert_eq!(e.code(), 1582);
    Ok(())
}

#[test]
fn json_columns_hold_documents_that_functions_read() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE docs (id INT PRIMARY KEY, j JSON)",
        "INSERT INTO docs VALUES (1, '{\"name\": \"ann\", \"tags\": [\"a\", \"b\"]}'), \
         (2, json_object('name', 'bob', 'tags', json_array('c')))",
    ])?;
    let mut s = t.session(50)?;
    let r = rows(
        &mut s,
        "SELECT id, json_unquote(json_extract(j, '$.name')), json_length(j, '$.tags') \
         FROM docs WHERE json_contains(j, '\"c\"', '$.tags') OR id = 1 ORDER BY id",
    )?;
    assert_eq!(
        r,
        vec![
            vec!["1".to_string(), "ann".into(), "2".into()],
            vec!["2".into(), "bob".into(), "1".into()],
        ]
    );
    s.execute("UPDATE docs SET j = json_set(j, '$.age', 30) WHERE id = 2")?;
    assert_eq!(
        one(&mut s, "SELECT j FROM docs WHERE id = 2")?,
        "{\"name\": \"bob\", \"tags\": [\"c\"], \"age\": 30}"
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT json_value(j, '$.age') + 1 FROM docs WHERE id = 2"
        )?,
        "31"
    );
    Ok(())
}

/// A truth value (a comparison, AND, NOT, IS NULL, IN, BETWEEN, LIKE,
/// TRUE/FALSE) is JSON `true`/`false` in a JSON constructor, as MariaDB
/// embeds its boolean items; a BOOLEAN column is its number.
#[test]
fn truth_values_are_json_booleans() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (a INT, b BOOLEAN)"])?;
    let mut s = t.session(50)?;
    s.execute("INSERT INTO t VALUES (1, TRUE)")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT JSON_ARRAY(1 = 0), JSON_ARRAY(1 = 1, 2 > 1), JSON_OBJECT('a', 1 IS NULL), \
             JSON_ARRAY(TRUE, FALSE), JSON_ARRAY(NOT 1), JSON_ARRAY(1 AND 0), \
             JSON_ARRAY(1 IN (1, 2)), JSON_ARRAY(1 BETWEEN 0 AND 2), JSON_ARRAY('a' LIKE 'a')"
        )?,
        vec![vec![
            "[false]",
            "[true, true]",
            "{\"a\": false}",
            "[true, false]",
            "[false]",
            "[false]",
            "[true]",
            "[true]",
            "[true]"
        ]]
    );
    assert_eq!(
        one(&mut s, "SELECT JSON_ARRAY(a = 1, b, a > 0) FROM t")?,
        "[true, 1, true]"
    );
    Ok(())
}
