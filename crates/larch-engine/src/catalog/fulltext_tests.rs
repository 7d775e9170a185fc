//! Tables with FULLTEXT indexes in the dictionary: their auxiliary tables
//! are created with them, found again after a restart, reached by undo
//! identity (so recovery rolls back what a crash left in them), kept when
//! the table is reopened with other secondary indexes, and gone with DROP.

use std::sync::Arc;

use super::tests::open;
use super::*;
use crate::io::{SimVfs, Vfs};
use crate::record::collation::Collation;
use crate::record::value::ColumnType;
use crate::table::{ColumnDef, FulltextIndexDef, FulltextParserDef, IndexDef, ReadContext};
use crate::txn::{IsolationLevel, Session, TrxOptions};

fn def() -> TableDef {
    TableDef {
        name: "docs".into(),
        columns: vec![
            ColumnDef::new(
                "id",
                ColumnType::Int {
                    bytes: 4,
                    unsigned: false,
                },
            ),
            ColumnDef::new(
                "body",
                ColumnType::Varchar {
                    max_len: 200,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: Vec::new(),
        auto_increment: None,
        fulltext: vec![FulltextIndexDef {
            name: "ft".into(),
            columns: vec![1],
            parser: FulltextParserDef::Builtin,
            use_stopwords: true,
            stopword_table: None,
        }],
    }
}

fn with_services(c: &Catalog) -> Result<(Arc<TransactionServices>, Vec<crate::undo::UndoLog>)> {
    let (services, recovered) = TransactionServices::open(c.storage())?;
    c.set_services(services.clone());
    Ok((services, recovered))
}

fn insert(
    c: &Catalog,
    services: &Arc<TransactionServices>,
    s: &mut Session,
    rows: &[(i64, &str)],
) -> Result<TxnContext> {
    let t = c.table("test", "docs")?;
    let trx = s.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
    let mut ctx = TxnContext::new(services, trx);
    for (id, body) in rows {
        t.insert(&mut ctx, &[Value::Int(*id), Value::Str((*body).into())])?;
    }
    Ok(ctx)
}

/// Ids of the rows whose live document holds `word`.
fn matching(c: &Catalog, word: &str) -> Result<Vec<i64>> {
    let ft = c
        .table_fulltext("test", "docs")?
        .ok_or_else(|| EngineError::Internal("no FULLTEXT".into()))?;
    let t = c.table("test", "docs")?;
    let snap = ft.indexes()[0].snapshot()?;
    let mut out = Vec::new();
    for e in snap.postings(word)? {
        if snap.is_deleted(e.doc_id) {
            continue;
        }
        let Some(at) = ft.doc_map().row_of_doc(&ReadContext::NEWEST, e.doc_id)? else {
            continue;
        };
        if let Some(row) = t.get(&ReadContext::NEWEST, &at)? {
            if let Value::Int(id) = row[0] {
                out.push(id);
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}

#[test]
fn fulltext_tables_live_with_their_table() -> Result<()> {
    let sim = Arc::new(SimVfs::new());
    let vfs: Arc<dyn Vfs> = sim.clone();
    {
        let c = open(&vfs)?;
        let (services, _) = with_services(&c)?;
        c.create_database("test", b"")?;
        let t = c.create_table("test", def(), b"")?;
        let aux = c
            .table_entry("test", "docs")
            .map(|e| e.roots.auxiliary)
            .unwrap_or_default();
        assert_eq!(aux.len(), 5 + 6, "common tables, doc map, six word tables");
        assert!(aux.iter().all(|&r| r != t.roots().clustered));
        let mut s = services.system.register_session()?;
        insert(
            &c,
            &services,
            &mut s,
            &[(1, "alpha beta"), (2, "beta gamma")],
        )?
        .commit()?;
        assert_eq!(matching(&c, "beta")?, [1, 2]);
        // Sync one index cache to the word tables, then add more.
        let ft = c
            .table_fulltext("test", "docs")?
            .ok_or_else(|| EngineError::Internal("no FULLTEXT".into()))?;
        assert!(c.fulltext().sync_now(&services, &mut s, &ft.indexes()[0])?);
        insert(&c, &services, &mut s, &[(3, "gamma delta")])?.commit()?;
        assert_eq!(matching(&c, "gamma")?, [2, 3]);
        // A crash with a transaction open on the auxiliary tables too.
        let mut open_ctx = insert(&c, &services, &mut s, &[(4, "gamma epsilon")])?;
        let doc_table = ft.doc_map().table().clone();
        doc_table.insert(
            &mut open_ctx,
            &[
                Value::UInt(999),
                Value::UInt(1),
                Value::Bytes(b"x".to_vec()),
            ],
        )?;
        c.storage().make_durable()?;
        open_ctx.abandon();
        drop((ft, doc_table, t, s));
        drop(services);
        // Everything of the catalog but its storage goes with `c`.
        let storage = c.storage().clone();
        drop(c);
        Arc::into_inner(storage)
            .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
            .abandon();
        sim.crash();
    }
    let c = Arc::new(open(&vfs)?);
    let (services, recovered) = with_services(&c)?;
    assert_eq!(recovered.len(), 1);
    let weak = Arc::downgrade(&c);
    services.set_table_opener(Box::new(move |space, root| {
        weak.upgrade()?.table_by_identity(space, root)
    }));
    crate::table::roll_back_recovered_now(&services, recovered)?;
    assert_eq!(matching(&c, "beta")?, [1, 2]);
    assert_eq!(matching(&c, "gamma")?, [2, 3]);
    assert!(matching(&c, "epsilon")?.is_empty());
    let ft = c
        .table_fulltext("test", "docs")?
        .ok_or_else(|| EngineError::Internal("no FULLTEXT".into()))?;
    assert_eq!(
        ft.doc_map().row_of_doc(&ReadContext::NEWEST, 999)?,
        None,
        "recovery rolled back the auxiliary table's change"
    );
    // Reopening the table with another secondary index keeps the caches.
    let mut with_key = def();
    with_key.secondary.push(IndexDef::on("b", &[1], false));
    c.change_indexes(
        "test",
        "docs",
        with_key,
        b"",
        &crate::ddl::BuildOptions {
            budget: crate::ddl::MIN_BUDGET,
            threads: 1,
            fill_factor: 90,
            tmpdir: std::env::temp_dir(),
        },
        &|| false,
    )?;
    let mut s = services.system.register_session()?;
    insert(&c, &services, &mut s, &[(5, "gamma zeta")])?.commit()?;
    assert_eq!(matching(&c, "gamma")?, [2, 3, 5]);
    let check = c.check_tables()?;
    let problems: Vec<&String> = check.tables.iter().flat_map(|(_, r)| &r.problems).collect();
    assert!(problems.is_empty(), "{problems:?}");
    // A row written past the full-text bookkeeping is reported.
    let t = c.table("test", "docs")?;
    let mut internal = TxnContext::internal();
    let at = t.insert(&mut internal, &[Value::Int(6), Value::Str("stray".into())])?;
    let check = c.check_tables()?;
    let problems: Vec<&String> = check.tables.iter().flat_map(|(_, r)| &r.problems).collect();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("5 rows but 4 full-text documents")),
        "{problems:?}"
    );
    t.delete(&mut internal, &at)?;
    drop(t);
    drop(ft);
    let budget = c.fulltext().budget().clone();
    assert!(budget.total() > 0);
    c.drop_table("test", "docs")?;
    assert_eq!(budget.total(), 0, "dropped caches leave the budget");
    drop(s);
    drop(services);
    let storage = c.storage().clone();
    drop(c);
    Arc::into_inner(storage)
        .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
        .close()
}

#[test]
fn stopword_settings_round_trip_in_the_dictionary() -> Result<()> {
    let roots = TableRoots {
        space: 7,
        clustered: 3,
        secondary: Vec::new(),
        auxiliary: vec![10, 11, 12],
    };
    let mut d = def();
    let table = crate::table::StopwordTable {
        name: "test/user_stopword".into(),
        collation: Collation::Latin1SwedishCi,
        words: vec!["this".into(), "will".into(), "the".into()],
    };
    for (use_stopwords, stopword_table) in [(true, None), (false, None), (true, Some(table))] {
        d.fulltext[0].use_stopwords = use_stopwords;
        d.fulltext[0].stopword_table = stopword_table;
        let bytes = codec::encode(&d, &roots)?;
        assert_eq!(codec::decode(&bytes)?, (d.clone(), roots.clone()));
    }
    Ok(())
}
