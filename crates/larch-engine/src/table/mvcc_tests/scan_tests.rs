//! Tests of `RowCursor::next_into`: rows read into one reused buffer are the
//! versions the read view sees (old versions rebuilt from undo, deleted and
//! later-inserted rows, uncommitted changes), through the clustered index
//! and a secondary index, covering or not, and only the wanted columns of
//! the buffer are written.

use super::*;

/// Rows through `RowCursor::next_into` with one reused row buffer: only the
/// wanted columns are written; returns (address, wanted values) per row.
fn lent_rows(
    env: &Env,
    read: &ReadContext,
    index: usize,
    cols: &[usize],
) -> Result<Vec<(RowRef, Vec<Value>)>> {
    let mut c = env
        .table
        .scan(read, index, &KeyRange::all(), false, Some(cols))?;
    let sentinel = Value::Str("untouched".into());
    let mut buf = vec![sentinel.clone(); 3];
    let mut out = Vec::new();
    while let Some(at) = c.next_into(&mut buf)? {
        for (i, v) in buf.iter().enumerate() {
            if !cols.contains(&i) {
                assert_eq!(*v, sentinel, "column {i} was not asked for");
            }
        }
        out.push((
            RowRef(at.to_vec()),
            cols.iter().map(|&i| buf[i].clone()).collect(),
        ));
    }
    Ok(out)
}

#[test]
fn rows_read_into_a_reused_buffer_are_the_snapshot_versions() -> Result<()> {
    let env = Env::new(Arc::new(SimVfs::new()))?;
    env.load(300)?;
    let mut rs = env.session()?;
    let mut reader = rs.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let snap = ReadContext {
        view: reader.read_view(),
    };
    let owned = |index: usize, cols: &[usize], read: &ReadContext| -> Result<Vec<_>> {
        let mut c = env
            .table
            .scan(read, index, &KeyRange::all(), false, Some(cols))?;
        let mut out = Vec::new();
        while let Some(r) = c.next_row()? {
            out.push(r);
        }
        Ok(out)
    };
    let shapes: [(usize, &[usize]); 3] = [(CLUSTERED, &[2, 0]), (1, &[1, 0]), (1, &[1, 0, 2])];
    let before: Vec<_> = shapes
        .iter()
        .map(|(i, c)| owned(*i, c, &snap))
        .collect::<Result<_>>()?;
    assert_eq!(before[0].len(), 300);
    for (shape, want) in shapes.iter().zip(&before) {
        assert_eq!(&lent_rows(&env, &snap, shape.0, shape.1)?, want);
    }
    // Committed updates (moving rows in index k), deletes and inserts, and
    // an uncommitted update: the snapshot reads none of them.
    let mut ws = env.session()?;
    let mut w = env.begin(&mut ws, IsolationLevel::RepeatableRead)?;
    for id in (1..=300).step_by(7) {
        env.table
            .update(&mut w, &env.at(id)?, &row(id, 1000 + id, &format!("u{id}")))?;
    }
    for id in (3..=300).step_by(11) {
        env.table.delete(&mut w, &env.at(id)?)?;
    }
    for id in 301..=340 {
        env.table.insert(&mut w, &row(id, id, &format!("n{id}")))?;
    }
    w.commit()?;
    let mut us = env.session()?;
    let mut u = env.begin(&mut us, IsolationLevel::RepeatableRead)?;
    env.table
        .update(&mut u, &env.at(2)?, &row(2, 2000, "pending"))?;
    for (shape, want) in shapes.iter().zip(&before) {
        assert_eq!(
            &lent_rows(&env, &snap, shape.0, shape.1)?,
            want,
            "old snapshot, index {} columns {:?}",
            shape.0,
            shape.1
        );
    }
    assert!(env.services.versions_visited() > 0);
    // A new snapshot sees the commit (not the pending update), the same
    // through both APIs.
    let mut s2 = env.session()?;
    let mut r2 = s2.begin(TrxOptions::read_only(IsolationLevel::RepeatableRead))?;
    let fresh = ReadContext {
        view: r2.read_view(),
    };
    for shape in &shapes {
        let want = owned(shape.0, shape.1, &fresh)?;
        assert_eq!(lent_rows(&env, &fresh, shape.0, shape.1)?, want);
    }
    let ids = lent_rows(&env, &fresh, CLUSTERED, &[0])?;
    assert_eq!(ids.len(), 300 - 28 + 40);
    assert!(ids.iter().all(|(_, v)| match v[0] {
        Value::Int(id) => id % 11 != 3 || id > 300,
        _ => false,
    }));
    u.rollback()?;
    r2.commit()?;
    reader.commit()?;
    env.assert_healthy()
}
