//! Purge after savepoints and partial rollbacks, through the real server:
//! the procedure of MariaDB's test `innodb.temp_table_savepoint` (rows with
//! off-page TEXT/BLOB columns inserted, deleted and moved to new primary
//! keys, savepoints, ROLLBACK TO, COMMIT) fills the undo logs while a
//! snapshot holds purge back; afterwards purge must drain the history and give back every undo page, without ever
//! reporting a corrupt undo page.

mod support;

use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use support::{tempdir, Larchd, Res};

const PROCEDURE: &str = r"
create procedure populate_tables()
begin
  declare n int default 14;
  declare inner_loop int default 100;
  create table t5(c1 int not null, c2 int not null, c3 char(255) not null,
    c4 text(6000) not null, c5 blob(6000) not null, c6 varchar(2000) not null,
    c7 varchar(2000) not null, c8 datetime, c9 decimal(6,3),
    primary key (c1), index (c3,c4(50),c5(50)), index (c2)) engine=innodb;
  while (n > 0) do
    start transaction;
    insert ignore into t5 values(n,n,repeat(concat(' tc3_',n),30),
      repeat(concat(' tc4_',n),800),repeat(concat(' tc_',n),800),
      repeat(concat(' tc6_',n),800),repeat(concat(' tc7_',n),800),
      now(),(100.55+n));
    if (n > 10) then
      commit;
    else
      delete from t5 where c1 > 10;
      rollback;
      start transaction;
      update t5 set c1 = c1 + 1000 where c1 > 10;
      rollback;
    end if;
    start transaction;
    insert ignore into t5 values(n+inner_loop,n+inner_loop,
      repeat(concat(' tc3_',n+inner_loop),30),
      repeat(concat(' tc4_',n+inner_loop),800),repeat(concat(' tc_',n+inner_loop),800),
      repeat(concat(' tc6_',n+inner_loop),245),repeat(concat(' tc7_',n+inner_loop),245),
      now(),(100.55+n+inner_loop));
    delete from t5 where c1 between 100 and 110;
    update t5 set c1 = c1+1 where c1>110;
    savepoint a;
    insert ignore into t5 values(300+n+inner_loop,n+inner_loop,
      repeat(concat(' tc3_',n+inner_loop),30),
      repeat(concat(' tc4_',n+inner_loop),800),repeat(concat(' tc_',n+inner_loop),800),
      repeat(concat(' tc6_',n+inner_loop),245),repeat(concat(' tc7_',n+inner_loop),245),
      now(),(100.55+n+inner_loop));
    savepoint b;
    insert into t5 values(400+n+inner_loop,n+inner_loop,
      repeat(concat(' tc3_',n+inner_loop),30),
      repeat(concat(' tc4_',n+inner_loop),800),repeat(concat(' tc_',n+inner_loop),800),
      repeat(concat(' tc6_',n+inner_loop),245),repeat(concat(' tc7_',n+inner_loop),245),
      now(),(100.55+n+inner_loop));
    savepoint c;
    rollback to b;
    rollback to a;
    commit;
    set n = n - 1;
  end while;
end";

fn status(conn: &mut mysql::Conn, name: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let row: Option<(String, String)> =
        conn.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    let (_, v) = row.ok_or_else(|| format!("no status variable {name}"))?;
    Ok(v.parse()?)
}

#[test]
fn purge_drains_the_undo_of_savepoint_rollbacks_of_off_page_rows() -> Res {
    let dir = tempdir()?;
    let server = Larchd::start(&dir.path().join("data"), &[])?;
    let mut conn = server.connect()?;
    // A snapshot held across the procedure keeps purge behind, as a busy
    // server's purge is: the history fills up before purge reads it.
    let mut report = server.connect()?;
    report.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")?;
    for db in ["pr1", "pr2", "pr3"] {
        conn.query_drop(format!("CREATE DATABASE {db}"))?;
        conn.query_drop(format!("USE {db}"))?;
        conn.query_drop(PROCEDURE)?;
        conn.query_drop("CALL populate_tables()")?;
        let rows: Option<i64> = conn.query_first("SELECT COUNT(*) FROM t5")?;
        assert!(rows.is_some_and(|n| n > 0), "rows: {rows:?}");
    }
    assert!(status(&mut conn, "Innodb_history_list_length")? > 0);
    report.query_drop("COMMIT")?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let history = status(&mut conn, "Innodb_history_list_length")?;
        let pages = status(&mut conn, "Innodb_undo_pages")?;
        if history == 0 && pages == 0 {
            break;
        }
        let log = server.log();
        assert!(
            !log.contains("purge failed"),
            "purge failed (history {history}, undo pages {pages}):\n{log}"
        );
        assert!(
            Instant::now() < deadline,
            "purge did not drain the history: {history} logs, {pages} undo pages left\n{log}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = server.log();
    assert!(!log.contains("purge failed"), "{log}");
    assert!(!log.contains("corrupt"), "{log}");
    Ok(())
}
