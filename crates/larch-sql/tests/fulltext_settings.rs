//! FULLTEXT indexes and the server's settings, as MariaDB 10.11 answers
//! innodb_fts.innodb_ft_aux_table and innodb_fts.stopword:
//! - `INFORMATION_SCHEMA.INNODB_FT_*` and `innodb_ft_aux_table`: the
//!   variable takes only a table with a FULLTEXT index (1231), the listings
//!   show that table's cache, word tables, deleted documents and
//!   configuration, follow it through RENAME and are empty once it is
//!   dropped;
//! - user stopword tables (`innodb_ft_user_stopword_table`, then
//!   `innodb_ft_server_stopword_table`): only a table whose first column is
//!   a VARCHAR `value` may be named (1231); an index takes the words the
//!   table held when the index was created.

mod support;

use support::{error, rows, TestDb, R};

fn listing(s: &mut larch_sql::session::Session, table: &str) -> R<Vec<Vec<String>>> {
    rows(s, &format!("SELECT * FROM INFORMATION_SCHEMA.{table}"))
}

fn strings(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

/// Every listing of the auxiliary table is empty.
fn all_empty(s: &mut larch_sql::session::Session) -> R<()> {
    for table in [
        "INNODB_FT_DELETED",
        "INNODB_FT_BEING_DELETED",
        "INNODB_FT_INDEX_CACHE",
        "INNODB_FT_INDEX_TABLE",
        "INNODB_FT_CONFIG",
    ] {
        assert_eq!(listing(s, table)?, Vec::<Vec<String>>::new(), "{table}");
    }
    Ok(())
}

#[test]
fn innodb_ft_tables_list_the_aux_table() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE t1 (v VARCHAR(100), FULLTEXT INDEX (v))",
        "INSERT INTO t1 VALUES ('First record'),('Second record'),('Third record')",
    ])?;
    let mut s = t.session(5)?;
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_aux_table")?,
        [["NULL"]]
    );
    assert_eq!(
        error(&mut s, "SET GLOBAL innodb_ft_aux_table = 'test/t0'")?,
        (
            1231,
            "Variable 'innodb_ft_aux_table' can't be set to the value of 'test/t0'".into()
        )
    );
    let stopwords = listing(&mut s, "INNODB_FT_DEFAULT_STOPWORD")?;
    assert_eq!(stopwords.len(), 36);
    assert_eq!(
        (stopwords[0][0].as_str(), stopwords[35][0].as_str()),
        ("a", "www")
    );
    all_empty(&mut s)?;

    s.execute("SET GLOBAL innodb_ft_aux_table = 'test/t1'")?;
    let cache = strings(&[
        &["first", "1", "1", "1", "1", "0"],
        &["record", "1", "3", "3", "1", "6"],
        &["record", "1", "3", "3", "2", "7"],
        &["record", "1", "3", "3", "3", "6"],
        &["second", "2", "2", "1", "2", "0"],
        &["third", "3", "3", "1", "3", "0"],
    ]);
    let config = strings(&[
        &["optimize_checkpoint_limit", "180"],
        &["synced_doc_id", "0"],
        &["stopword_table_name", ""],
        &["use_stopword", "1"],
    ]);
    assert_eq!(listing(&mut s, "INNODB_FT_INDEX_CACHE")?, cache);
    assert_eq!(
        listing(&mut s, "INNODB_FT_INDEX_TABLE")?,
        Vec::<Vec<String>>::new()
    );
    assert_eq!(listing(&mut s, "INNODB_FT_CONFIG")?, config);
    assert_eq!(
        listing(&mut s, "INNODB_FT_DELETED")?,
        Vec::<Vec<String>>::new()
    );

    // A delete is listed once committed; the cache keeps the document.
    s.execute("DELETE FROM t1 WHERE v = 'Second record'")?;
    assert_eq!(listing(&mut s, "INNODB_FT_DELETED")?, [["2"]]);
    assert_eq!(listing(&mut s, "INNODB_FT_INDEX_CACHE")?, cache);

    // Synced, the nodes are in the word tables (listed table after table,
    // each in word order) and the cache is empty.
    let catalog = t.db.catalog();
    let ft = catalog.table_fulltext("test", "t1")?.ok_or("no FULLTEXT")?;
    let mut engine = t.db.transactions().register_session()?;
    assert!(catalog
        .fulltext()
        .sync_now(t.db.services(), &mut engine, &ft.indexes()[0])?);
    assert_eq!(
        listing(&mut s, "INNODB_FT_INDEX_CACHE")?,
        Vec::<Vec<String>>::new()
    );
    assert_eq!(listing(&mut s, "INNODB_FT_INDEX_TABLE")?, cache);
    let synced = listing(&mut s, "INNODB_FT_CONFIG")?;
    assert_eq!(synced[1], ["synced_doc_id", "3"]);

    // The listings follow the table, not its name.
    s.execute("RENAME TABLE t1 TO t2")?;
    assert_eq!(listing(&mut s, "INNODB_FT_DELETED")?, [["2"]]);
    assert_eq!(listing(&mut s, "INNODB_FT_INDEX_TABLE")?.len(), 6);
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_aux_table")?,
        [["test/t1"]]
    );
    s.execute("DROP TABLE t2")?;
    all_empty(&mut s)?;
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_aux_table")?,
        [["test/t1"]]
    );

    // A table without a FULLTEXT index, or none at all, is refused.
    s.execute("CREATE TABLE t (a INT)")?;
    assert_eq!(
        error(&mut s, "SET GLOBAL innodb_ft_aux_table = 'test/t'")?.0,
        1231
    );
    s.execute("DROP TABLE t")?;
    assert_eq!(
        error(&mut s, "SET GLOBAL innodb_ft_aux_table = 'test/t'")?.0,
        1231
    );
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_aux_table")?,
        [["test/t1"]]
    );
    s.execute("SET GLOBAL innodb_ft_aux_table = NULL")?;
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_aux_table")?,
        [["NULL"]]
    );

    // The listings need PROCESS, as in MariaDB.
    s.execute("CREATE USER plain@localhost")?;
    s.execute("GRANT SELECT ON test.* TO plain@localhost")?;
    let mut plain = t.db.new_session(0, "plain", "localhost")?;
    assert_eq!(
        error(
            &mut plain,
            "SELECT * FROM INFORMATION_SCHEMA.INNODB_FT_CONFIG"
        )?
        .0,
        1227
    );
    Ok(())
}

/// The ids a natural-language search of `word` in `table` finds, sorted.
fn found(s: &mut larch_sql::session::Session, table: &str, word: &str) -> R<Vec<String>> {
    let mut ids: Vec<String> = rows(
        s,
        &format!("SELECT id FROM {table} WHERE MATCH (title, body) AGAINST ('{word}')"),
    )?
    .into_iter()
    .map(|r| r[0].clone())
    .collect();
    ids.sort();
    Ok(ids)
}

/// A table with a FULLTEXT index and one document.
fn articles(s: &mut larch_sql::session::Session, name: &str) -> R<()> {
    s.execute(&format!(
        "CREATE TABLE {name} (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(200), body TEXT, \
         FULLTEXT (title, body))"
    ))?;
    s.execute(&format!(
        "INSERT INTO {name} (title, body) VALUES ('test for session stopwords', 'this is it...')"
    ))?;
    Ok(())
}

#[test]
fn stopword_tables_are_read_when_an_index_is_created() -> R<()> {
    let t = TestDb::new(&[
        "CREATE TABLE server_words (value VARCHAR(30))",
        "INSERT INTO server_words VALUES ('this')",
        "CREATE TABLE session_words (value VARCHAR(30), note INT)",
        "INSERT INTO session_words VALUES ('session', 1), ('test', NULL)",
        "CREATE TABLE misnamed (v VARCHAR(30))",
        "CREATE TABLE mistyped (value INT)",
    ])?;
    let mut s = t.session(5)?;
    for bad in ["not_defined", "test/none", "test/misnamed", "test/mistyped"] {
        assert_eq!(
            error(&mut s, &format!("SET GLOBAL innodb_ft_server_stopword_table = '{bad}'"))?,
            (
                1231,
                format!("Variable 'innodb_ft_server_stopword_table' can't be set to the value of '{bad}'")
            )
        );
    }
    assert_eq!(
        error(
            &mut s,
            "SET SESSION innodb_ft_user_stopword_table = 'test/misnamed'"
        )?
        .0,
        1231
    );
    // The default list: 'for' and 'this' are stopwords.
    articles(&mut s, "a1")?;
    assert_eq!(found(&mut s, "a1", "for")?, Vec::<String>::new());
    assert_eq!(found(&mut s, "a1", "this")?, Vec::<String>::new());
    assert_eq!(found(&mut s, "a1", "session")?, ["1"]);

    // The server's table replaces the default list.
    s.execute("SET GLOBAL innodb_ft_server_stopword_table = 'test/server_words'")?;
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_server_stopword_table")?,
        [["test/server_words"]]
    );
    articles(&mut s, "a2")?;
    assert_eq!(found(&mut s, "a2", "for")?, ["1"]);
    assert_eq!(found(&mut s, "a2", "this")?, Vec::<String>::new());
    // Indexes made before keep their list.
    assert_eq!(found(&mut s, "a1", "for")?, Vec::<String>::new());

    // The session's table comes first, for this session only.
    s.execute("SET SESSION innodb_ft_user_stopword_table = 'test/session_words'")?;
    articles(&mut s, "a3")?;
    assert_eq!(found(&mut s, "a3", "session")?, Vec::<String>::new());
    assert_eq!(found(&mut s, "a3", "test")?, Vec::<String>::new());
    assert_eq!(found(&mut s, "a3", "this")?, ["1"]);
    let mut other = t.session(5)?;
    articles(&mut other, "a4")?;
    assert_eq!(found(&mut other, "a4", "session")?, ["1"]);
    assert_eq!(found(&mut other, "a4", "this")?, Vec::<String>::new());

    // Later changes to the table reach no index made before; an ALTER that
    // adds an index reads the table as it is then.
    s.execute("DELETE FROM session_words")?;
    s.execute("INSERT INTO a3 (title, body) VALUES ('another session', 'x')")?;
    assert_eq!(found(&mut s, "a3", "session")?, Vec::<String>::new());
    s.execute("ALTER TABLE a1 DROP INDEX title")?;
    s.execute("ALTER TABLE a1 ADD FULLTEXT INDEX idx (title, body)")?;
    for word in ["for", "this", "session"] {
        assert_eq!(found(&mut s, "a1", word)?, ["1"], "{word}");
    }
    s.execute("SET GLOBAL innodb_ft_aux_table = 'test/a3'")?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT * FROM INFORMATION_SCHEMA.INNODB_FT_CONFIG WHERE `KEY` LIKE '%stopword%'"
        )?,
        strings(&[
            &["stopword_table_name", "test/session_words"],
            &["use_stopword", "1"]
        ])
    );

    // A table gone since the variable was set gives the default list.
    s.execute("DROP TABLE session_words")?;
    articles(&mut s, "a5")?;
    assert_eq!(found(&mut s, "a5", "for")?, Vec::<String>::new());
    assert_eq!(found(&mut s, "a5", "session")?, ["1"]);
    // And with stopwords off there are none.
    s.execute("SET SESSION innodb_ft_enable_stopword = 0")?;
    articles(&mut s, "a6")?;
    assert_eq!(found(&mut s, "a6", "for")?, ["1"]);
    s.execute("SET GLOBAL innodb_ft_server_stopword_table = NULL")?;
    assert_eq!(
        rows(&mut s, "SELECT @@GLOBAL.innodb_ft_server_stopword_table")?,
        [["NULL"]]
    );
    Ok(())
}

/// A session's stopword table must be one its user may read: naming a
/// table without SELECT on it fails as a table that does not exist would
/// (1231), and an index created after the grant is gone fails with 1142,
/// so no index reveals the words of a table its creator cannot read.
#[test]
fn a_session_stopword_table_needs_select_on_it() -> R<()> {
    let t = TestDb::new(&[
        "CREATE DATABASE secret",
        "CREATE TABLE secret.words (value VARCHAR(30))",
        "INSERT INTO secret.words VALUES ('session')",
        "CREATE USER u@localhost",
        "GRANT ALL ON test.* TO u@localhost",
    ])?;
    let mut root = t.session(5)?;
    let mut u = t.db.new_session(0, "u", "localhost")?;
    u.use_database("test")?;
    assert_eq!(
        error(
            &mut u,
            "SET SESSION innodb_ft_user_stopword_table = 'secret/words'"
        )?,
        (
            1231,
            "Variable 'innodb_ft_user_stopword_table' can't be set to the value of 'secret/words'"
                .into()
        )
    );
    root.execute("GRANT SELECT ON secret.words TO u@localhost")?;
    u.execute("SET SESSION innodb_ft_user_stopword_table = 'secret/words'")?;
    articles(&mut u, "b1")?;
    assert_eq!(found(&mut u, "b1", "session")?, Vec::<String>::new());
    root.execute("REVOKE SELECT ON secret.words FROM u@localhost")?;
    assert_eq!(
        error(
            &mut u,
            "CREATE TABLE b2 (title VARCHAR(200), body TEXT, FULLTEXT (title, body))"
        )?,
        (
            1142,
            "SELECT command denied to user 'u'@'localhost' for table `secret`.`words`".into()
        )
    );
    // The server's table, set by an administrator, is read for everyone.
    root.execute("SET GLOBAL innodb_ft_server_stopword_table = 'secret/words'")?;
    u.execute("SET SESSION innodb_ft_user_stopword_table = NULL")?;
    articles(&mut u, "b3")?;
    assert_eq!(found(&mut u, "b3", "session")?, Vec::<String>::new());
    root.execute("SET GLOBAL innodb_ft_server_stopword_table = NULL")?;
    Ok(())
}
