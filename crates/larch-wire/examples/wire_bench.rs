//! Protocol overhead benchmark: round trips per second through the whole
//! stack (client library, loopback TCP, framing, dispatch, result encoding)
//! with a session that does no work, so the figure is the protocol's cost.
//!
//! ```text
//! cargo run --release -p larch-wire --example wire_bench -- [SECONDS] [CLIENTS]
//! ```
//!
//! Measures, for each execution mode (inline, block-in-place): text
//! `COM_QUERY` returning one row, and `COM_STMT_EXECUTE` of a prepared
//! point select returning one row (binary protocol).

use larch_wire::*;
use mysql::prelude::Queryable;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers every query and execution with one row (k, c).
struct PointSession;

fn point_row(out: &mut ResultWriter<'_>, k: i64) -> Result<(), MysqlError> {
    out.begin_result_set(&[
        ColumnDef::new("k", ColumnType::MYSQL_TYPE_LONG),
        ColumnDef::new("c", ColumnType::MYSQL_TYPE_STRING),
    ])?;
    out.row(&[
        Value::Int(k),
        Value::from("68487932199-96439406143-93774651418-41631865787"),
    ])?;
    out.end_result_set(0)
}

impl SqlSession for PointSession {
    fn lookup_account(&mut self, _user: &str, _host: &str) -> Option<Account> {
        Some(Account {
            credential: Credential::native("bench"),
        })
    }
    fn init_db(&mut self, _database: &str) -> Result<(), MysqlError> {
        Ok(())
    }
    fn query(&mut self, sql: &[u8], out: &mut ResultWriter<'_>) -> Result<(), MysqlError> {
        if sql.starts_with(b"SELECT @@max_allowed_packet") {
            out.begin_result_set(&[ColumnDef::new("m", ColumnType::MYSQL_TYPE_LONGLONG)])?;
            out.row(&[Value::Int(64 << 20)])?;
            return out.end_result_set(0);
        }
        point_row(out, 1)
    }
    fn prepare(&mut self, _stmt_id: u32, _sql: &[u8]) -> Result<PreparedInfo, MysqlError> {
        Ok(PreparedInfo {
            params: 1,
            columns: vec![
                ColumnDef::new("k", ColumnType::MYSQL_TYPE_LONG),
                ColumnDef::new("c", ColumnType::MYSQL_TYPE_STRING),
            ],
        })
    }
    fn execute(
        &mut self,
        _id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<(), MysqlError> {
        let k = match params.first() {
            Some(Value::Int(k)) => *k,
            _ => 0,
        };
        point_row(out, k)
    }
    fn close_statement(&mut self, _stmt_id: u32) {}
    fn reset_connection(&mut self) -> Result<(), MysqlError> {
        Ok(())
    }
}

fn run_clients(
    port: u16,
    clients: usize,
    seconds: u64,
    prepared: bool,
) -> Result<f64, Box<dyn std::error::Error>> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for _ in 0..clients {
        let (stop, done) = (stop.clone(), done.clone());
        let opts = mysql::OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(port)
            .user(Some("bench"))
            .pass(Some("bench"))
            .prefer_socket(false);
        threads.push(std::thread::spawn(move || -> mysql::Result<()> {
            let mut conn = mysql::Conn::new(opts)?;
            let stmt = conn.prep("SELECT k, c FROM sbtest1 WHERE id = ?")?;
            let mut i = 0i64;
            while !stop.load(Ordering::Relaxed) {
                let row: Option<(i64, String)> = if prepared {
                    conn.exec_first(&stmt, (i,))?
                } else {
                    conn.query_first("SELECT k, c FROM sbtest1 WHERE id = 1")?
                };
                debug_assert!(row.is_some());
                i += 1;
                done.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        }));
    }
    std::thread::sleep(Duration::from_millis(300));
    let start_count = done.load(Ordering::Relaxed);
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs(seconds));
    let count = done.load(Ordering::Relaxed) - start_count;
    let elapsed = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().map_err(|_| "client thread panicked")??;
    }
    Ok(count as f64 / elapsed)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(3);
    let clients: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1);
    for mode in [ExecutionMode::Inline, ExecutionMode::BlockInPlace] {
        let server = Server::new(ServerConfig {
            execution: mode,
            rsa_key_bits: None,
            ..ServerConfig::default()
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(Listener::bind_tcp("127.0.0.1:0"))?;
        let port = listener.local_addr().ok_or("no address")?.port();
        runtime.spawn(listener.run(server, |_: &ConnectionInfo| PointSession));
        for prepared in [false, true] {
            let qps = run_clients(port, clients, seconds, prepared)?;
            let kind = if prepared {
                "prepared execute"
            } else {
                "text query"
            };
            println!("{mode:?}\t{kind}\t{clients} client(s)\t{qps:.0} round trips/s");
        }
        runtime.shutdown_background();
    }
    Ok(())
}
