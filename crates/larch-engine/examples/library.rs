//! Using the Larch engine as a library: open (or create) a data directory,
//! create a database and a table, write rows, read them back by primary key
//! and through a secondary index, and shut down cleanly.
//!
//! ```sh
//! cargo run --release -p larch-engine --example library -- /tmp/larch-example
//! ```

use std::sync::Arc;

use larch_engine::catalog::Catalog;
use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::storage::Storage;
use larch_engine::table::{
    ColumnDef, IndexDef, KeyRange, ReadContext, TableDef, TxnContext, CLUSTERED,
};
use larch_engine::{EngineError, Result};

fn main() -> Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "larch-example-data".to_string());
    let mut config = EngineConfig::new(&dir);
    config.buffer_pool_size = 64 << 20;
    let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
    let storage = Arc::new(Storage::open_or_create(config, vfs)?);
    let catalog = Catalog::open(storage.clone())?;

    if !catalog.has_database("shop") {
        catalog.create_database("shop", b"")?;
    }
    let table = match catalog.table("shop", "customers") {
        Ok(t) => t,
        Err(_) => catalog.create_table(
            "shop",
            TableDef {
                name: "customers".into(),
                columns: vec![
                    ColumnDef::new(
                        "id",
                        ColumnType::Int {
                            bytes: 8,
                            unsigned: true,
                        },
                    ),
                    ColumnDef::new(
                        "name",
                        ColumnType::Varchar {
                            max_len: 100,
                            collation: Collation::Utf8mb4GeneralCi,
                        },
                    ),
                ],
                primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
                secondary: vec![IndexDef::on("name", &[1], false)],
                auto_increment: Some(0),
                fulltext: Vec::new(),
            },
            b"",
        )?,
    };

    // An internal writer (no transaction: no undo, no locks). Transactions
    // come from `TransactionServices::open` and `TxnContext::new`.
    let mut ctx = TxnContext::internal();
    for name in ["Ada", "grace", "Edsger"] {
        let id = table.allocate_auto_increment(1)?;
        table.insert(&mut ctx, &[Value::UInt(id), Value::Str(name.into())])?;
    }

    // A point read by primary key.
    let at = table.row_ref(&[Value::UInt(1)])?;
    println!("row 1: {:?}", table.get(&ReadContext::NEWEST, &at)?);

    // The `name` index in collation order (case-insensitive), answered from the
    // index alone because it covers the requested columns.
    let mut cursor = table.scan(
        &ReadContext::NEWEST,
        1,
        &KeyRange::all(),
        false,
        Some(&[1, 0]),
    )?;
    while let Some((_, row)) = cursor.next_row()? {
        println!("by name: {row:?}");
    }
    drop(cursor);

    // Every row, in primary key order.
    let mut cursor = table.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?;
    let mut n = 0;
    while cursor.next_row()?.is_some() {
        n += 1;
    }
    println!("{n} rows in shop.customers");
    drop(cursor);

    // Shut down: release the tables, then flush and checkpoint.
    drop(table);
    drop(catalog);
    Arc::into_inner(storage)
        .ok_or_else(|| EngineError::Internal("storage still in use".into()))?
        .close()
}
