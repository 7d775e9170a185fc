//! The TRANSACTIONS section of `SHOW ENGINE INNODB STATUS`: the lock table
//! totals and one entry per live transaction, as InnoDB prints them.

use super::*;

/// The lock manager's counters and the transaction list of the TRANSACTIONS
/// section of `SHOW ENGINE INNODB STATUS`, in InnoDB's wording: one
/// `---TRANSACTION <id>, ACTIVE <n> sec` entry per live transaction with its
/// lock structs, row locks, undo log entries and connection, and for a waiting
/// one the lock it waits for.
pub(crate) fn monitor_transactions(sess: &Session) -> String {
    let seen = Observed::gather(sess);
    let st = &seen.stats;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Total number of lock structs in row lock hash table {}",
        seen.lock_entries
    );
    let _ = writeln!(
        out,
        "Lock memory {} bytes; row lock waits {} ({} now), total wait time {} ms, \
         max {} ms; deadlocks {}; lock wait timeouts {}",
        st.memory_bytes,
        st.total_waits,
        st.current_waits,
        st.total_wait_time.as_millis(),
        st.max_wait_time.as_millis(),
        st.deadlocks,
        st.timeouts,
    );
    out.push_str("LIST OF TRANSACTIONS FOR EACH SESSION:\n");
    let mut names = IndexNames::new(sess);
    for t in &seen.trxs {
        let _ = writeln!(
            out,
            "---TRANSACTION {}, ACTIVE {} sec",
            t.info.trx_id,
            secs_since(t.info.started)
        );
        let prefix = match t.state {
            "ROLLING BACK" => "ROLLING BACK ",
            "LOCK WAIT" => "LOCK WAIT ",
            _ => "",
        };
        let _ = write!(
            out,
            "{prefix}{} lock struct(s), heap size {}, {} row lock(s)",
            t.lock_structs, t.lock_memory, t.rows_locked
        );
        if t.undo_records > 0 {
            let _ = write!(out, ", undo log entries {}", t.undo_records);
        }
        out.push('\n');
        if t.thread_id != 0 {
            let _ = write!(out, "MySQL thread id {}", t.thread_id);
            if let Some((user, host)) = &t.user_host {
                let _ = write!(out, ", {host} {user}");
            }
            out.push('\n');
        }
        if let Some(q) = &t.query {
            out.push_str(q);
            out.push('\n');
        }
        if let Some(w) = &t.waiting {
            let (space, _) = split_index_id(w.target.index_id);
            let _ = writeln!(
                out,
                "------- TRX HAS BEEN WAITING {} SEC FOR THIS LOCK TO BE GRANTED:",
                secs_since(w.since)
            );
            let table = names.table_text(w.target.index_id);
            let index = names.get(w.target.index_id).map_or("PRIMARY", |n| n.index);
            let _ = writeln!(
                out,
                "RECORD LOCKS space id {space} index {index} of table {table} trx id {} {}",
                t.info.trx_id,
                monitor_mode(w.mode, w.kind, &w.target, true)
            );
            match names.lock_data(&w.target) {
                Some(data) => {
                    let _ = writeln!(out, "Record lock, key ({data})");
                }
                None => out.push_str("Record lock, key not decodable\n"),
            }
            out.push_str("------------------\n");
        }
    }
    out
}
