//! Naming and decoding what row locks point at: lock index ids to tables
//! and indexes (through the catalog), lock keys to `lock_data` values.

use super::*;

/// A locked index as the tables name it.
pub(super) struct IndexName {
    /// `` `db`.`t` ``.
    pub(super) table: String,
    /// `PRIMARY`, or `GEN_CLUST_INDEX` for a table without a primary key.
    pub(super) index: &'static str,
    /// The open table, to decode keys.
    pub(super) open: Option<Arc<Table>>,
}

/// Resolves lock index ids to tables through the catalog, once per id.
pub(super) struct IndexNames<'s> {
    sess: &'s Session,
    /// `(space, clustered root)` -> `(db, table)`, built at the first lookup.
    by_identity: Option<HashMap<(u32, u32), (String, String)>>,
    cache: HashMap<u64, Option<IndexName>>,
}

impl<'s> IndexNames<'s> {
    pub(super) fn new(sess: &'s Session) -> Self {
        Self {
            sess,
            by_identity: None,
            cache: HashMap::new(),
        }
    }

    pub(super) fn identities(&mut self) -> &HashMap<(u32, u32), (String, String)> {
        let catalog = self.sess.db.catalog();
        self.by_identity.get_or_insert_with(|| {
            let mut map = HashMap::new();
            for db in catalog.databases() {
                for name in catalog.tables(&db).unwrap_or_default() {
                    if let Some(e) = catalog.table_entry(&db, &name) {
                        map.insert((e.roots.space, e.roots.clustered), (db.clone(), name));
                    }
                }
            }
            map
        })
    }

    pub(super) fn get(&mut self, index_id: u64) -> Option<&IndexName> {
        if !self.cache.contains_key(&index_id) {
            let found = self
                .identities()
                .get(&split_index_id(index_id))
                .cloned()
                .map(|(db, name)| {
                    let open = self.sess.db.catalog().table(&db, &name).ok();
                    let index = match open.as_ref().map(|t| t.def().primary_key.is_some()) {
                        Some(false) => "GEN_CLUST_INDEX",
                        _ => "PRIMARY",
                    };
                    IndexName {
                        table: format!("`{db}`.`{name}`"),
                        index,
                        open,
                    }
                });
            self.cache.insert(index_id, found);
        }
        self.cache.get(&index_id).and_then(Option::as_ref)
    }

    /// `lock_table`, or a placeholder naming the index when its table is gone.
    pub(super) fn table_text(&mut self, index_id: u64) -> String {
        match self.get(index_id) {
            Some(n) => n.table.clone(),
            None => {
                let (space, root) = split_index_id(index_id);
                format!("`#unknown`.`#space{space}#root{root}`")
            }
        }
    }

    /// `lock_data`: the key's primary key values, if they can be decoded.
    pub(super) fn lock_data(&mut self, target: &LockTarget) -> Option<String> {
        let key = match &target.key {
            RecordKey::Supremum => return Some("supremum pseudo-record".to_owned()),
            RecordKey::Key(k) => k.clone(),
        };
        let table = self.get(target.index_id)?.open.clone()?;
        decode_key(&table, &key)
    }
}

/// The primary key values of clustered key `key` of `table`, as InnoDB's
/// `lock_data` shows them: numbers bare, strings quoted, joined by ", "; a
/// hidden row id as hex.
pub(super) fn decode_key(table: &Table, key: &[u8]) -> Option<String> {
    let def = table.def();
    let Some(pk) = &def.primary_key else {
        let mut s = String::from("0x");
        for b in key {
            let _ = write!(s, "{b:02X}");
        }
        return Some(s);
    };
    let values = decode_key_parts(&def.key_parts(pk), key).ok()?;
    let mut parts = Vec::with_capacity(values.len());
    for (c, v) in pk.columns.iter().zip(&values) {
        let ty = &def.columns.get(c.column)?.ty;
        parts.push(shown_value(v, ty)?);
    }
    Some(parts.join(", "))
}

pub(super) fn shown_value(v: &Value, ty: &ColumnType) -> Option<String> {
    match v {
        Value::Null => Some("NULL".to_owned()),
        Value::Int(_)
        | Value::UInt(_)
        | Value::Decimal(_)
        | Value::Float(_)
        | Value::Double(_)
        | Value::Year(_) => {
            let b = crate::value::to_text(v, ty)?;
            Some(String::from_utf8_lossy(&b).into_owned())
        }
        Value::Bytes(b) => {
            let mut s = String::from("0x");
            for x in b {
                let _ = write!(s, "{x:02X}");
            }
            Some(s)
        }
        _ => {
            let b = crate::value::to_text(v, ty)?;
            let t = String::from_utf8_lossy(&b).replace('\'', "''");
            Some(format!("'{t}'"))
        }
    }
}

// ---- the tables ----
