//! INFORMATION_SCHEMA tables about indexes, constraints and partitions:
//! STATISTICS, KEY_COLUMN_USAGE, TABLE_CONSTRAINTS, CHECK_CONSTRAINTS,
//! REFERENTIAL_CONSTRAINTS, PARTITIONS.

use larch_engine::record::value::Value;

use super::base_tables;
use super::{cols, s, u, NN, NULL, T};
use crate::error::SqlError;
use crate::result::ResultColumn;
use crate::session::Session;

/// The rows and columns of `information_schema.<upper>` when this module
/// owns that table.
pub(super) fn table(
    sess: &Session,
    upper: &str,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Option<Vec<ResultColumn>>, SqlError> {
    let columns = match upper {
        "STATISTICS" => {
            for t in base_tables(sess, None)? {
                let def = &t.entry.def;
                let cardinality = crate::ddl::show::index_cardinality(sess, &t.db, &t.name, def);
                let idxs = def
                    .primary_key
                    .iter()
                    .map(|p| (p, true))
                    .chain(def.secondary.iter().map(|x| (x, x.unique)));
                for (key, (idx, unique)) in idxs.enumerate() {
                    for (seq, part) in idx.columns.iter().enumerate() {
                        let col = &def.columns[part.column];
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            Value::Int(i64::from(!unique)),
                            s(&t.db),
                            s(&idx.name),
                            u(seq as u64 + 1),
                            s(&col.name),
                            s(if part.descending { "D" } else { "A" }),
                            crate::ddl::show::cardinality_value(&cardinality, key, seq),
                            part.prefix_len
                                .map_or(Value::Null, |p| Value::Int(i64::from(p))),
                            Value::Null,
                            s(if col.nullable { "YES" } else { "" }),
                            s("BTREE"),
                            s(""),
                            s(t.meta.index_comment(&idx.name)),
                            s("NO"),
                        ]);
                    }
                }
                for (name, columns) in &t.meta.fulltext {
                    for (seq, &c) in columns.iter().enumerate() {
                        let col = &def.columns[c];
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            Value::Int(1),
                            s(&t.db),
                            s(name),
                            u(seq as u64 + 1),
                            s(&col.name),
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            s(if col.nullable { "YES" } else { "" }),
                            s("FULLTEXT"),
                            s(""),
                            s(t.meta.index_comment(name)),
                            s("NO"),
                        ]);
                    }
                }
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("NON_UNIQUE", T::I, NN),
                ("INDEX_SCHEMA", T::S(64), NN),
                ("INDEX_NAME", T::S(64), NN),
                ("SEQ_IN_INDEX", T::U, NN),
                ("COLUMN_NAME", T::S(64), NN),
                ("COLLATION", T::S(1), NULL),
                ("CARDINALITY", T::I, NULL),
                ("SUB_PART", T::I, NULL),
                ("PACKED", T::S(10), NULL),
                ("NULLABLE", T::S(3), NN),
                ("INDEX_TYPE", T::S(16), NN),
                ("COMMENT", T::S(16), NULL),
                ("INDEX_COMMENT", T::S(1024), NN),
                ("IGNORED", T::S(3), NN),
            ])
        }
        "KEY_COLUMN_USAGE" => {
            for t in base_tables(sess, None)? {
                let def = &t.entry.def;
                let keys = def
                    .primary_key
                    .iter()
                    .chain(def.secondary.iter().filter(|x| x.unique));
                for k in keys {
                    for (i, part) in k.columns.iter().enumerate() {
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&k.name),
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            s(&def.columns[part.column].name),
                            u(i as u64 + 1),
                            Value::Null,
                            Value::Null,
                            Value::Null,
                            Value::Null,
                        ]);
                    }
                }
                for fk in &t.meta.foreign_keys {
                    let names = fk.column_names(def);
                    for (i, (c, r)) in names.iter().zip(&fk.ref_columns).enumerate() {
                        rows.push(vec![
                            s("def"),
                            s(&t.db),
                            s(&fk.name),
                            s("def"),
                            s(&t.db),
                            s(&t.name),
                            s(c),
                            u(i as u64 + 1),
                            u(i as u64 + 1),
                            s(&fk.ref_db),
                            s(&fk.ref_table),
                            s(r),
                        ]);
                    }
                }
            }
            cols(&[
                ("CONSTRAINT_CATALOG", T::S(512), NN),
                ("CONSTRAINT_SCHEMA", T::S(64), NN),
                ("CONSTRAINT_NAME", T::S(64), NN),
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("COLUMN_NAME", T::S(64), NN),
                ("ORDINAL_POSITION", T::I, NN),
                ("POSITION_IN_UNIQUE_CONSTRAINT", T::I, NULL),
                ("REFERENCED_TABLE_SCHEMA", T::S(64), NULL),
                ("REFERENCED_TABLE_NAME", T::S(64), NULL),
                ("REFERENCED_COLUMN_NAME", T::S(64), NULL),
            ])
        }
        "TABLE_CONSTRAINTS" => {
            for t in base_tables(sess, None)? {
                let def = &t.entry.def;
                let keys = def.primary_key.iter().map(|p| (p, "PRIMARY KEY")).chain(
                    def.secondary
                        .iter()
                        .filter(|x| x.unique)
                        .map(|x| (x, "UNIQUE")),
                );
                for (k, kind) in keys {
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&k.name),
                        s(&t.db),
                        s(&t.name),
                        s(kind),
                    ]);
                }
                for (name, _, _) in checks_of(&t) {
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&name),
                        s(&t.db),
                        s(&t.name),
                        s("CHECK"),
                    ]);
                }
                for fk in &t.meta.foreign_keys {
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&fk.name),
                        s(&t.db),
                        s(&t.name),
                        s("FOREIGN KEY"),
                    ]);
                }
            }
            cols(&[
                ("CONSTRAINT_CATALOG", T::S(512), NN),
                ("CONSTRAINT_SCHEMA", T::S(64), NN),
                ("CONSTRAINT_NAME", T::S(64), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("CONSTRAINT_TYPE", T::S(64), NN),
            ])
        }
        "CHECK_CONSTRAINTS" => {
            for t in base_tables(sess, None)? {
                for (name, level, clause) in checks_of(&t) {
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&t.name),
                        s(&name),
                        s(level),
                        s(&clause),
                    ]);
                }
            }
            cols(&[
                ("CONSTRAINT_CATALOG", T::S(512), NN),
                ("CONSTRAINT_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("CONSTRAINT_NAME", T::S(64), NN),
                ("LEVEL", T::S(6), NN),
                ("CHECK_CLAUSE", T::L, NN),
            ])
        }
        "REFERENTIAL_CONSTRAINTS" => {
            for t in base_tables(sess, None)? {
                for fk in &t.meta.foreign_keys {
                    rows.push(vec![
                        s("def"),
                        s(&t.db),
                        s(&fk.name),
                        s("def"),
                        s(&fk.ref_db),
                        referenced_index(sess, fk),
                        s("NONE"),
                        s(fk.on_update.rule()),
                        s(fk.on_delete.rule()),
                        s(&t.name),
                        s(&fk.ref_table),
                    ]);
                }
            }
            cols(&[
                ("CONSTRAINT_CATALOG", T::S(512), NN),
                ("CONSTRAINT_SCHEMA", T::S(64), NN),
                ("CONSTRAINT_NAME", T::S(64), NN),
                ("UNIQUE_CONSTRAINT_CATALOG", T::S(512), NN),
                ("UNIQUE_CONSTRAINT_SCHEMA", T::S(64), NN),
                ("UNIQUE_CONSTRAINT_NAME", T::S(64), NULL),
                ("MATCH_OPTION", T::S(64), NN),
                ("UPDATE_RULE", T::S(64), NN),
                ("DELETE_RULE", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("REFERENCED_TABLE_NAME", T::S(64), NN),
            ])
        }
        "PARTITIONS" => {
            for t in base_tables(sess, None)? {
                let mut r = vec![s("def"), s(&t.db), s(&t.name)];
                r.extend(std::iter::repeat_n(Value::Null, 9));
                r.extend([u(0), u(0), u(0), Value::Null, u(0), u(0)]);
                r.extend([Value::Null, Value::Null, Value::Null, Value::Null]);
                r.extend([s(""), Value::Null, Value::Null]);
                rows.push(r);
            }
            cols(&[
                ("TABLE_CATALOG", T::S(512), NN),
                ("TABLE_SCHEMA", T::S(64), NN),
                ("TABLE_NAME", T::S(64), NN),
                ("PARTITION_NAME", T::S(64), NULL),
                ("SUBPARTITION_NAME", T::S(64), NULL),
                ("PARTITION_ORDINAL_POSITION", T::U, NULL),
                ("SUBPARTITION_ORDINAL_POSITION", T::U, NULL),
                ("PARTITION_METHOD", T::S(18), NULL),
                ("SUBPARTITION_METHOD", T::S(12), NULL),
                ("PARTITION_EXPRESSION", T::L, NULL),
                ("SUBPARTITION_EXPRESSION", T::L, NULL),
                ("PARTITION_DESCRIPTION", T::L, NULL),
                ("TABLE_ROWS", T::U, NN),
                ("AVG_ROW_LENGTH", T::U, NN),
                ("DATA_LENGTH", T::U, NN),
                ("MAX_DATA_LENGTH", T::U, NULL),
                ("INDEX_LENGTH", T::U, NN),
                ("DATA_FREE", T::U, NN),
                ("CREATE_TIME", T::Dt, NULL),
                ("UPDATE_TIME", T::Dt, NULL),
                ("CHECK_TIME", T::Dt, NULL),
                ("CHECKSUM", T::U, NULL),
                ("PARTITION_COMMENT", T::S(80), NN),
                ("NODEGROUP", T::S(12), NULL),
                ("TABLESPACE_NAME", T::S(64), NULL),
            ])
        }
        _ => return Ok(None),
    };
    Ok(Some(columns))
}

/// The CHECK constraints of a table: name (a column's is named after the
/// column), level ("Column" or "Table") and expression text.
fn checks_of(t: &super::BaseTable) -> Vec<(String, &'static str, String)> {
    let columns = t
        .meta
        .columns
        .iter()
        .zip(&t.entry.def.columns)
        .filter_map(|(m, c)| Some((c.name.clone(), "Column", m.check.clone()?)));
    let table = t
        .meta
        .checks
        .iter()
        .map(|(n, e)| (n.clone(), "Table", e.clone()));
    columns.chain(table).collect()
}

/// The name of the parent's index a FOREIGN KEY uses (NULL when the
/// parent or the index does not exist).
fn referenced_index(sess: &Session, fk: &crate::ddl::ForeignKey) -> Value {
    let Some(e) = sess.db.catalog().table_entry(&fk.ref_db, &fk.ref_table) else {
        return Value::Null;
    };
    let positions: Option<Vec<usize>> = fk
        .ref_columns
        .iter()
        .map(|n| {
            e.def
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
        })
        .collect();
    let index = positions.and_then(|p| crate::ddl::foreign_ddl::index_for(&e.def, &p));
    match index {
        Some(0) => s("PRIMARY"),
        Some(n) => e
            .def
            .secondary
            .get(n - 1)
            .map_or(Value::Null, |i| s(&i.name)),
        None => Value::Null,
    }
}
