//! A table's FULLTEXT indexes kept by its transactions: commits, rollbacks,
//! savepoints, updates that do and do not touch indexed columns, primary key
//! changes, syncs, and a restart that re-reads what no sync wrote.

use std::sync::Arc;

use super::*;
use crate::config::EngineConfig;
use crate::fts::ilist::DocEntry;
use crate::fts::sync::SyncPolicy;
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::record::value::{ColumnType, LobKind};
use crate::storage::Storage;
use crate::table::{
    ColumnDef, FulltextIndexDef, IndexDef, TableDef, TableRoots, TransactionServices,
};
use crate::txn::Session;

fn storage(vfs: Arc<dyn Vfs>) -> Result<Arc<Storage>> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K4);
    c.buffer_pool_size = 512 * 4096;
    c.log_file_size = 16 << 20;
    c.undo_tablespaces = 1;
    Ok(Arc::new(Storage::open_or_create(c, vfs)?))
}

/// id INT PK, title VARCHAR(100), body TEXT NULL, n INT;
/// FULLTEXT ft (title, body), FULLTEXT fb (body).
fn def() -> TableDef {
    let text = |len| ColumnType::Varchar {
        max_len: len,
        collation: Collation::Utf8mb4GeneralCi,
    };
    let int = ColumnType::Int {
        bytes: 4,
        unsigned: false,
    };
    TableDef {
        name: "articles".into(),
        columns: vec![
            ColumnDef::new("id", int.clone()),
            ColumnDef::new("title", text(100)),
            ColumnDef::new(
                "body",
                ColumnType::Text {
                    kind: LobKind::Text,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            )
            .nullable(),
            ColumnDef::new("n", int),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: Vec::new(),
        auto_increment: None,
        fulltext: vec![
            FulltextIndexDef {
                name: "ft".into(),
                columns: vec![1, 2],
                parser: FulltextParserDef::Builtin,
                use_stopwords: true,
                stopword_table: None,
            },
            FulltextIndexDef {
                name: "fb".into(),
                columns: vec![2],
                parser: FulltextParserDef::Builtin,
                use_stopwords: true,
                stopword_table: None,
            },
        ],
    }
}

pub(crate) fn row(id: i64, title: &str, body: Option<&str>, n: i64) -> Vec<Value> {
    vec![
        Value::Int(id),
        Value::Str(title.into()),
        body.map_or(Value::Null, |b| Value::Str(b.into())),
        Value::Int(n),
    ]
}

pub(crate) struct Env {
    pub(crate) storage: Arc<Storage>,
    pub(crate) services: Arc<TransactionServices>,
    pub(crate) service: Arc<FulltextService>,
    pub(crate) table: Arc<Table>,
    pub(crate) ft: Arc<TableFulltext>,
    pub(crate) session: Session,
}

impl Env {
    pub(crate) fn create(vfs: Arc<dyn Vfs>) -> Result<Env> {
        Self::create_with(vfs, SyncPolicy::default())
    }

    pub(crate) fn create_with(vfs: Arc<dyn Vfs>, policy: SyncPolicy) -> Result<Env> {
        let storage = storage(vfs)?;
        let (services, recovered) = TransactionServices::open(&storage)?;
        assert!(recovered.is_empty());
        let t = Table::create_file_per_table(&storage, def(), "test/articles.ibd")?;
        let table = Arc::new(t.with_services(&services));
        services.register_table(&table);
        let service = FulltextService::new(policy, FulltextSettings::default());
        let (ft, _) = TableFulltext::create(&table, &service)?;
        let session = services.system.register_session()?;
        Ok(Env {
            storage,
            services,
            service,
            table,
            ft,
            session,
        })
    }

    pub(crate) fn begin(&mut self) -> Result<TxnContext> {
        let trx = self
            .session
            .begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        Ok(TxnContext::new(&self.services, trx))
    }

    pub(crate) fn at(&self, id: i64) -> Result<RowRef> {
        self.table.row_ref(&[Value::Int(id)])
    }

    /// Doc ids holding `word` in index `i`, deleted ones left out.
    pub(crate) fn docs(&self, i: usize, word: &str) -> Result<Vec<u64>> {
        let snap = self.ft.indexes()[i].snapshot()?;
        Ok(snap
            .postings(word)?
            .into_iter()
            .map(|e: DocEntry| e.doc_id)
            .filter(|d| !snap.is_deleted(*d))
            .collect())
    }

    /// The ids of the rows whose live documents hold `word` in index `i`.
    pub(crate) fn rows(&self, i: usize, word: &str) -> Result<Vec<i64>> {
        let mut out = Vec::new();
        for d in self.docs(i, word)? {
            let at = self
                .ft
                .doc_map()
                .row_of_doc(&ReadContext::NEWEST, d)?
                .ok_or_else(|| EngineError::Internal(format!("doc {d} has no row")))?;
            match self
                .table
                .get(&ReadContext::NEWEST, &at)?
                .map(|r| r[0].clone())
            {
                Some(Value::Int(id)) => out.push(id),
                other => panic!("doc {d}: row {other:?}"),
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    pub(crate) fn doc_of(&self, id: i64) -> Result<Option<u64>> {
        self.ft
            .doc_map()
            .doc_of_row(&ReadContext::NEWEST, &self.at(id)?)
    }

    pub(crate) fn sync_all(&mut self) -> Result<()> {
        for ix in self.ft.indexes().to_vec() {
            assert!(self
                .service
                .sync_now(&self.services, &mut self.session, &ix)?);
        }
        Ok(())
    }
}

#[test]
fn commits_rollbacks_and_savepoints_reach_the_index_as_committed() -> Result<()> {
    let mut env = Env::create(Arc::new(SimVfs::new()))?;
    let mut t = env.begin()?;
    env.table.insert(
        &mut t,
        &row(1, "MySQL Tutorial", Some("DBMS stands for DataBase"), 0),
    )?;
    env.table.insert(
        &mut t,
        &row(
            2,
            "How To Use MySQL Well",
            Some("After you went through"),
            0,
        ),
    )?;
    // A transaction's own changes are not in the index before it commits.
    assert!(env.rows(0, "mysql")?.is_empty());
    t.commit()?;
    assert_eq!(env.rows(0, "mysql")?, [1, 2]);
    assert_eq!(env.rows(1, "dbms")?, [1]);
    assert!(env.rows(1, "mysql")?.is_empty(), "fb indexes body only");

    let mut t = env.begin()?;
    env.table.insert(
        &mut t,
        &row(3, "Optimizing MySQL", Some("In this tutorial"), 0),
    )?;
    t.rollback()?;
    assert_eq!(env.rows(0, "mysql")?, [1, 2]);
    assert_eq!(env.doc_of(3)?, None);

    let mut t = env.begin()?;
    env.table
        .insert(&mut t, &row(4, "Security tips", Some("root user"), 0))?;
    let mark = t.mark();
    env.table
        .insert(&mut t, &row(5, "Security more", Some("user root"), 0))?;
    env.table.delete(&mut t, &env.at(1)?)?;
    t.rollback_to(mark)?;
    t.commit()?;
    assert_eq!(env.rows(0, "security")?, [4]);
    assert_eq!(env.rows(0, "mysql")?, [1, 2]);
    assert_eq!(env.doc_of(5)?, None);
    Ok(())
}

#[test]
fn updates_deletes_and_key_changes_replace_documents() -> Result<()> {
    let mut env = Env::create(Arc::new(SimVfs::new()))?;
    let mut t = env.begin()?;
    for (id, title) in [
        (1, "alpha bravo"),
        (2, "charlie delta"),
        (3, "echo foxtrot"),
    ] {
        env.table.insert(&mut t, &row(id, title, None, 0))?;
    }
    t.commit()?;
    env.sync_all()?;
    let doc1 = env.doc_of(1)?;
    let doc2 = env.doc_of(2)?;
    assert!(doc1.is_some() && doc2.is_some() && doc1 != doc2);

    // An update of no indexed column keeps the document.
    let mut t = env.begin()?;
    env.table
        .update(&mut t, &env.at(1)?, &row(1, "alpha bravo", None, 7))?;
    t.commit()?;
    assert_eq!(env.doc_of(1)?, doc1);

    // An update of an indexed column replaces it.
    let mut t = env.begin()?;
    env.table.update(
        &mut t,
        &env.at(2)?,
        &row(2, "charlie golf", Some("hotel"), 0),
    )?;
    t.commit()?;
    let new2 = env.doc_of(2)?;
    assert!(new2 > doc2);
    assert_eq!(env.rows(0, "delta")?, Vec::<i64>::new());
    assert_eq!(env.rows(0, "charlie")?, [2]);
    assert_eq!(env.rows(0, "hotel")?, [2]);
    assert_eq!(env.rows(1, "hotel")?, [2]);
    let deleted = env.ft.common_tables().deleted_doc_ids()?;
    assert_eq!(deleted, doc2.into_iter().collect::<Vec<_>>());

    // A primary key change moves the document to the new address.
    let mut t = env.begin()?;
    env.table
        .update(&mut t, &env.at(3)?, &row(30, "echo foxtrot", None, 0))?;
    t.commit()?;
    assert_eq!(env.doc_of(3)?, None);
    assert!(env.doc_of(30)?.is_some());
    assert_eq!(env.rows(0, "foxtrot")?, [30]);

    // A delete, and a row inserted and deleted in one transaction.
    let mut t = env.begin()?;
    env.table.delete(&mut t, &env.at(1)?)?;
    env.table.insert(&mut t, &row(9, "alpha zulu", None, 0))?;
    env.table.delete(&mut t, &env.at(9)?)?;
    t.commit()?;
    assert!(env.rows(0, "alpha")?.is_empty());
    assert_eq!(env.doc_of(1)?, None);
    assert_eq!(env.doc_of(9)?, None);
    env.sync_all()?;
    assert_eq!(env.rows(0, "charlie")?, [2]);
    assert_eq!(env.rows(0, "foxtrot")?, [30]);
    Ok(())
}

#[test]
fn a_restart_rereads_committed_documents_no_sync_wrote() -> Result<()> {
    let sim = Arc::new(SimVfs::new());
    let vfs: Arc<dyn Vfs> = sim.clone();
    let (roots, aux) = {
        let mut env = Env::create(vfs.clone())?;
        let mut t = env.begin()?;
        env.table.insert(&mut t, &row(1, "kilo lima", None, 0))?;
        t.commit()?;
        env.sync_all()?;
        let mut t = env.begin()?;
        env.table.insert(&mut t, &row(2, "lima mike", None, 0))?;
        env.table
            .update(&mut t, &env.at(1)?, &row(1, "kilo november", None, 0))?;
        t.commit()?;
        // Uncommitted at the crash: rolled back by recovery.
        let mut open = env.begin()?;
        env.table
            .insert(&mut open, &row(3, "lima oscar", None, 0))?;
        env.storage.make_durable()?;
        let roots = env.table.roots();
        let aux = env.ft.auxiliary_roots();
        open.abandon();
        let Env {
            storage,
            services,
            service,
            table,
            ft,
            session,
        } = env;
        drop((session, ft, table, service, services));
        Arc::into_inner(storage)
            .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
            .abandon();
        sim.crash();
        (roots, aux)
    };
    let storage = storage(vfs)?;
    let (services, recovered) = TransactionServices::open(&storage)?;
    assert_eq!(recovered.len(), 1);
    let roots = TableRoots {
        auxiliary: aux.clone(),
        ..roots
    };
    let table = Arc::new(Table::open(&storage, def(), &roots)?.with_services(&services));
    services.register_table(&table);
    let service = FulltextService::new(SyncPolicy::default(), FulltextSettings::default());
    let ft = TableFulltext::open(&table, &aux, &service)?;
    crate::table::roll_back_recovered_now(&services, recovered)?;
    let session = services.system.register_session()?;
    let env = Env {
        storage,
        services,
        service,
        table,
        ft,
        session,
    };
    assert_eq!(env.rows(0, "lima")?, [2]);
    assert_eq!(env.rows(0, "november")?, [1]);
    assert!(env.rows(0, "oscar")?.is_empty());
    assert!(env.rows(0, "kilo")?.contains(&1));
    // New documents get ids above every id used before the crash.
    let before: Vec<u64> = [1, 2]
        .iter()
        .filter_map(|&id| env.doc_of(id).ok().flatten())
        .collect();
    let mut env = env;
    let mut t = env.begin()?;
    env.table.insert(&mut t, &row(4, "papa", None, 0))?;
    t.commit()?;
    let new = env.doc_of(4)?.unwrap_or(0);
    assert!(before.iter().all(|&d| d < new), "{before:?} < {new}");
    Ok(())
}

/// MATCH over the table, compared with MariaDB 10.11 on the same rows
/// (`SELECT id, MATCH (title, body) AGAINST (...) FROM articles`).
#[test]
fn searches_give_mariadb_relevance() -> Result<()> {
    use crate::fts::ranking::format_relevance;
    use crate::fts::search::SearchMode;
    let mut env = Env::create(Arc::new(SimVfs::new()))?;
    let mut t = env.begin()?;
    for (id, title, body) in [
        (1, "MySQL Tutorial", "DBMS stands for DataBase ..."),
        (2, "How To Use MySQL Well", "After you went through a ..."),
        (3, "Optimizing MySQL", "In this tutorial we will show ..."),
        (
            4,
            "1001 MySQL Tricks",
            "1. Never run mysqld as root. 2. ...",
        ),
        (
            5,
            "MySQL vs. YourSQL",
            "In the following database comparison ...",
        ),
        (6, "MySQL Security", "When configured properly, MySQL ..."),
    ] {
        env.table.insert(&mut t, &row(id, title, Some(body), 0))?;
    }
    t.commit()?;
    let relevance = |env: &Env, q: &str, mode: SearchMode| -> Result<Vec<(i64, String)>> {
        let read = ReadContext::NEWEST;
        let found = env.ft.search(0, q.as_bytes(), mode, false, &read)?;
        let mut out = Vec::new();
        for id in [1, 2, 3, 4, 5, 6] {
            let Some(at) = env.table.get(&read, &env.at(id)?)?.map(|_| env.at(id)) else {
                continue;
            };
            let r = found.relevance_of_row(&env.ft, &read, &at?)?;
            out.push((id, format_relevance(r)));
        }
        Ok(out)
    };
    let nl = SearchMode::NaturalLanguage;
    let one = "0.22764469683170319";
    let tiny = "0.000000001885928302414186";
    let twice = "0.000000003771856604828372";
    let s = |v: &[(i64, &str)]| -> Vec<(i64, String)> {
        v.iter().map(|(i, r)| (*i, r.to_string())).collect()
    };
    assert_eq!(
        relevance(&env, "database", nl)?,
        s(&[(1, one), (2, "0"), (3, "0"), (4, "0"), (5, one), (6, "0")])
    );
    assert_eq!(
        relevance(&env, "mysql tutorial", nl)?,
        s(&[
            (1, one),
            (2, tiny),
            (3, one),
            (4, tiny),
            (5, tiny),
            (6, twice)
        ])
    );
    assert_eq!(
        relevance(&env, "+mysql -yoursql", SearchMode::Boolean)?,
        s(&[
            (1, tiny),
            (2, tiny),
            (3, tiny),
            (4, tiny),
            (5, "0"),
            (6, twice)
        ])
    );
    assert_eq!(
        relevance(&env, "\"database comparison\"", SearchMode::Boolean)?,
        s(&[
            (1, "0"),
            (2, "0"),
            (3, "0"),
            (4, "0"),
            (5, "0.8331640362739563"),
            (6, "0")
        ])
    );
    // The rows found, best first.
    let found = env
        .ft
        .search(0, b"database", nl, false, &ReadContext::NEWEST)?;
    let rows = found.rows(&env.ft, &ReadContext::NEWEST)?;
    assert_eq!(rows.len(), 2);
    let mut t = env.begin()?;
    env.table.delete(&mut t, &env.at(5)?)?;
    t.commit()?;
    assert_eq!(
        relevance(&env, "database", nl)?,
        s(&[
            (1, "0.4885590672492981"),
            (2, "0"),
            (3, "0"),
            (4, "0"),
            (6, "0")
        ])
    );
    let mut t = env.begin()?;
    env.table.update(
        &mut t,
        &env.at(6)?,
        &row(6, "MySQL Security", Some("database security tips"), 0),
    )?;
    t.commit()?;
    env.sync_all()?;
    assert_eq!(
        relevance(&env, "database", nl)?,
        s(&[
            (1, "0.15835624933242798"),
            (2, "0"),
            (3, "0"),
            (4, "0"),
            (6, "0.15835624933242798")
        ])
    );
    Ok(())
}
