//! Test scaffolding: a toy in-memory [`SqlSession`] served on 127.0.0.1:0,
//! and a raw packet client for exchanges real client libraries cannot be
//! made to produce.
//!
//! The toy session is NOT SQL support: it recognises a handful of fixed
//! command strings (listed in [`ToySession::run_statement`]) so the protocol
//! can be exercised end to end.

#![allow(dead_code)]

pub mod raw;

use larch_wire::*;
use parking_lot::Mutex;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Shared state of all toy sessions of one server.
#[derive(Debug, Default)]
pub struct ToyState {
    /// user -> credential.
    pub accounts: Mutex<HashMap<String, Credential>>,
    /// The key/value "table".
    pub table: Mutex<BTreeMap<i64, Value>>,
    /// Parameters of the last `SELECT ?...` execution.
    pub last_params: Mutex<Vec<Value>>,
    /// Number of `COM_RESET_CONNECTION`s seen.
    pub resets: AtomicUsize,
    /// Logins seen: (user, attributes).
    pub logins: Mutex<Vec<(String, HashMap<String, String>)>>,
    /// TLS parameters of each login (None: not encrypted).
    pub login_tls: Mutex<Vec<Option<larch_wire::TlsInfo>>>,
}

/// Per-connection toy session.
pub struct ToySession {
    state: Arc<ToyState>,
    max_allowed_packet: usize,
    db: Option<String>,
    in_transaction: bool,
    /// stmt id -> text.
    statements: HashMap<u32, String>,
    /// The timeouts set by `TIMEOUT WAIT|READ|WRITE ms`.
    timeouts: larch_wire::SessionTimeouts,
}

pub const DATABASES: [&str; 2] = ["test", "other"];

/// The row of "SELECT kinds": one value of every kind.
pub fn kinds_result() -> ResultSet {
    use ColumnType::*;
    let columns = vec![
        ColumnDef::new("i", MYSQL_TYPE_TINY),
        ColumnDef::new("u", MYSQL_TYPE_LONGLONG).unsigned(),
        ColumnDef::new("d", MYSQL_TYPE_DOUBLE),
        ColumnDef::new("f", MYSQL_TYPE_FLOAT),
        ColumnDef::new("dec", MYSQL_TYPE_NEWDECIMAL).with_decimals(2),
        ColumnDef::new("s", MYSQL_TYPE_VAR_STRING),
        ColumnDef::new("b", MYSQL_TYPE_BLOB),
        ColumnDef::new("dt", MYSQL_TYPE_DATETIME),
        ColumnDef::new("da", MYSQL_TYPE_DATE),
        ColumnDef::new("t", MYSQL_TYPE_TIME),
        ColumnDef::new("n", MYSQL_TYPE_VAR_STRING),
        ColumnDef::new("y", MYSQL_TYPE_YEAR),
        ColumnDef::new("l", MYSQL_TYPE_LONG),
    ];
    let row = vec![
        Value::Int(-5),
        Value::UInt(u64::MAX),
        Value::Double(2.5),
        Value::Float(0.25),
        Value::Decimal("123.45".into()),
        Value::from("héllo"),
        Value::Bytes(vec![0, 1, 2, 255]),
        Value::DateTime(DateTime {
            date: Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            hour: 13,
            minute: 14,
            second: 15,
            micros: 123,
        }),
        Value::Date(Date {
            year: 2023,
            month: 12,
            day: 31,
        }),
        Value::Time(Time {
            negative: true,
            hours: 26,
            minutes: 3,
            seconds: 4,
            micros: 0,
        }),
        Value::Null,
        Value::UInt(2024),
        Value::Int(-70000),
    ];
    ResultSet {
        columns,
        rows: vec![row.clone(), row],
    }
}

fn syntax_error(sql: &str) -> MysqlError {
    MysqlError::new(
        codes::ER_PARSE_ERROR,
        "42000",
        format!("You have an error in your SQL syntax; check the manual that corresponds to your server version for the right syntax to use near '{sql}' at line 1"),
    )
}

impl ToySession {
    pub fn new(state: Arc<ToyState>, max_allowed_packet: usize) -> Self {
        ToySession {
            state,
            max_allowed_packet,
            db: None,
            in_transaction: false,
            statements: HashMap::new(),
            timeouts: larch_wire::SessionTimeouts::default(),
        }
    }

    /// The fixed statements the toy understands.
    fn run_statement(&mut self, sql: &str, out: &mut ResultWriter<'_>) -> Result<(), MysqlError> {
        let words: Vec<&str> = sql.split_whitespace().collect();
        match words.as_slice() {
            ["SELECT", "@@max_allowed_packet"] => {
                let col = ColumnDef::new("@@max_allowed_packet", ColumnType::MYSQL_TYPE_LONGLONG)
                    .unsigned();
                out.result_set(&ResultSet {
                    columns: vec![col],
                    rows: vec![vec![Value::UInt(self.max_allowed_packet as u64)]],
                })
            }
            ["SELECT", n] if n.parse::<i64>().is_ok() => out.result_set(&ResultSet {
                columns: vec![ColumnDef::new(*n, ColumnType::MYSQL_TYPE_LONGLONG)],
                rows: vec![vec![Value::Int(n.parse().unwrap_or_default())]],
            }),
            ["SELECT", "DATABASE()"] => out.result_set(&ResultSet {
                columns: vec![ColumnDef::new(
                    "DATABASE()",
                    ColumnType::MYSQL_TYPE_VAR_STRING,
                )],
                rows: vec![vec![self.db.clone().into()]],
            }),
            ["SELECT", "kinds"] => out.result_set(&kinds_result()),
            ["PUT", k, v] => {
                let k: i64 = k.parse().map_err(|_| syntax_error(sql))?;
                let old = self.state.table.lock().insert(k, Value::from(*v));
                out.ok(OkResult {
                    affected_rows: if old.is_some() { 2 } else { 1 },
                    last_insert_id: k as u64,
                    ..OkResult::default()
                })
            }
            ["GET", k] => {
                let k: i64 = k.parse().map_err(|_| syntax_error(sql))?;
                let v = self.state.table.lock().get(&k).cloned();
                let columns = vec![ColumnDef::new("v", ColumnType::MYSQL_TYPE_BLOB)];
                let rows = v.map(|v| vec![vec![v]]).unwrap_or_default();
                out.result_set(&ResultSet { columns, rows })
            }
            ["BEGIN"] => {
                self.in_transaction = true;
                out.set_session_status(self.status_flags());
                out.ok(OkResult::default())
            }
            ["COMMIT"] => {
                self.in_transaction = false;
                out.set_session_status(self.status_flags());
                out.ok(OkResult::default())
            }
            ["WARN"] => out.ok(OkResult {
                warnings: 2,
                info: "Records: 3  Duplicates: 0  Warnings: 2".into(),
                status: StatusFlags::SERVER_STATUS_NO_INDEX_USED,
                ..OkResult::default()
            }),
            ["PANIC"] => panic!("toy session asked to panic"),
            // A result of one string of n bytes.
            ["BIG", n] => {
                let n: usize = n.parse().map_err(|_| syntax_error(sql))?;
                out.result_set(&ResultSet {
                    columns: vec![ColumnDef::new("big", ColumnType::MYSQL_TYPE_LONG_BLOB)],
                    rows: vec![vec![Value::Bytes(vec![b'x'; n])]],
                })
            }
            // The session's own timeout (as SET SESSION net_write_timeout).
            ["TIMEOUT", which, ms] => {
                let ms: u64 = ms.parse().map_err(|_| syntax_error(sql))?;
                let limit = Some(std::time::Duration::from_millis(ms));
                match *which {
                    "WAIT" => self.timeouts.wait = limit,
                    "READ" => self.timeouts.net_read = limit,
                    "WRITE" => self.timeouts.net_write = limit,
                    _ => return Err(syntax_error(sql)),
                }
                out.ok(OkResult::default())
            }
            ["HALF_RESULT_THEN_ERROR"] => {
                out.begin_result_set(&[ColumnDef::new("a", ColumnType::MYSQL_TYPE_LONG)])?;
                out.row(&[Value::Int(1)])?;
                Err(MysqlError::new(
                    1317,
                    "70100",
                    "Query execution was interrupted",
                ))
            }
            _ => Err(syntax_error(sql)),
        }
    }
}

impl SqlSession for ToySession {
    fn lookup_account(&mut self, user: &str, _host: &str) -> Option<Account> {
        let credential = self.state.accounts.lock().get(user).cloned()?;
        Some(Account { credential })
    }

    fn on_login(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        self.state
            .logins
            .lock()
            .push((login.user.clone(), login.attributes.clone()));
        self.state.login_tls.lock().push(login.tls.clone());
        Ok(())
    }

    fn init_db(&mut self, database: &str) -> Result<(), MysqlError> {
        if DATABASES.contains(&database) {
            self.db = Some(database.to_owned());
            Ok(())
        } else {
            Err(MysqlError::new(
                codes::ER_BAD_DB_ERROR,
                "42000",
                format!("Unknown database '{database}'"),
            ))
        }
    }

    fn query(&mut self, sql: &[u8], out: &mut ResultWriter<'_>) -> Result<(), MysqlError> {
        let sql = std::str::from_utf8(sql).map_err(|_| {
            MysqlError::new(
                codes::ER_INVALID_CHARACTER_STRING,
                "HY000",
                "Invalid utf8mb4 character string",
            )
        })?;
        if sql.starts_with("ECHO_LEN") {
            // Long query texts: answers with the text's length.
            return out.result_set(&ResultSet {
                columns: vec![ColumnDef::new("len", ColumnType::MYSQL_TYPE_LONGLONG)],
                rows: vec![vec![Value::Int(sql.len() as i64)]],
            });
        }
        let statements: Vec<&str> = sql
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if statements.len() > 1 && !out.multi_statements() {
            return Err(syntax_error(sql));
        }
        if statements.is_empty() {
            return Err(MysqlError::new(
                codes::ER_EMPTY_QUERY,
                "42000",
                "Query was empty",
            ));
        }
        for statement in statements {
            self.run_statement(statement, out)?;
        }
        Ok(())
    }

    fn prepare(&mut self, stmt_id: u32, sql: &[u8]) -> Result<PreparedInfo, MysqlError> {
        let sql = String::from_utf8_lossy(sql).into_owned();
        let info = match sql.as_str() {
            "INSERT INTO kv VALUES (?, ?)" => PreparedInfo {
                params: 2,
                columns: vec![],
            },
            "SELECT v FROM kv WHERE k = ?" => PreparedInfo {
                params: 1,
                columns: vec![ColumnDef::new("v", ColumnType::MYSQL_TYPE_LONG_BLOB)],
            },
            "SELECT kinds" => PreparedInfo {
                params: 0,
                columns: kinds_result().columns,
            },
            s if s.starts_with("SELECT ?") => PreparedInfo {
                params: s.matches('?').count() as u16,
                columns: vec![],
            },
            "PANIC" => PreparedInfo::default(),
            _ => return Err(syntax_error(&sql)),
        };
        self.statements.insert(stmt_id, sql);
        Ok(info)
    }

    fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<(), MysqlError> {
        let sql = self
            .statements
            .get(&stmt_id)
            .cloned()
            .ok_or_else(|| MysqlError::unknown_statement(stmt_id, "execute"))?;
        match sql.as_str() {
            "INSERT INTO kv VALUES (?, ?)" => {
                let k = match params.first() {
                    Some(Value::Int(k)) => *k,
                    Some(Value::UInt(k)) => *k as i64,
                    Some(Value::Bytes(b)) => String::from_utf8_lossy(b)
                        .parse()
                        .map_err(|_| MysqlError::new(1366, "HY000", "Incorrect integer value"))?,
                    _ => return Err(MysqlError::new(1048, "23000", "Column 'k' cannot be null")),
                };
                let v = params.get(1).cloned().unwrap_or(Value::Null);
                self.state.table.lock().insert(k, v);
                out.ok(OkResult {
                    affected_rows: 1,
                    last_insert_id: k as u64,
                    ..OkResult::default()
                })
            }
            "SELECT v FROM kv WHERE k = ?" => {
                let k = match params.first() {
                    Some(Value::Int(k)) => *k,
                    Some(Value::UInt(k)) => *k as i64,
                    _ => i64::MIN,
                };
                let v = self.state.table.lock().get(&k).cloned();
                out.result_set(&ResultSet {
                    columns: vec![ColumnDef::new("v", ColumnType::MYSQL_TYPE_LONG_BLOB)],
                    rows: v.map(|v| vec![vec![v]]).unwrap_or_default(),
                })
            }
            "SELECT kinds" => out.result_set(&kinds_result()),
            "PANIC" => panic!("toy statement asked to panic"),
            _ => {
                *self.state.last_params.lock() = params.to_vec();
                out.ok(OkResult::affected(params.len() as u64))
            }
        }
    }

    fn close_statement(&mut self, stmt_id: u32) {
        self.statements.remove(&stmt_id);
    }

    fn reset_connection(&mut self) -> Result<(), MysqlError> {
        self.state.resets.fetch_add(1, Ordering::SeqCst);
        self.in_transaction = false;
        self.statements.clear();
        Ok(())
    }

    fn timeouts(&mut self) -> larch_wire::SessionTimeouts {
        self.timeouts
    }

    fn status_flags(&self) -> StatusFlags {
        if self.in_transaction {
            StatusFlags::SERVER_STATUS_IN_TRANS
        } else {
            StatusFlags::SERVER_STATUS_AUTOCOMMIT
        }
    }

    fn field_list(&mut self, table: &str, _wildcard: &str) -> Result<Vec<ColumnDef>, MysqlError> {
        if table == "kv" {
            Ok(vec![
                ColumnDef::new("k", ColumnType::MYSQL_TYPE_LONGLONG).with_table("test", "kv"),
                ColumnDef::new("v", ColumnType::MYSQL_TYPE_BLOB).with_table("test", "kv"),
            ])
        } else {
            Err(MysqlError::new(
                1146,
                "42S02",
                format!("Table 'test.{table}' doesn't exist"),
            ))
        }
    }
}

/// A toy server running on its own thread and runtime.
pub struct TestServer {
    pub addr: std::net::SocketAddr,
    pub server: Arc<Server>,
    pub state: Arc<ToyState>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server with `config` and accounts `native`/`pw`,
    /// `sha2`/`pw2`, `nopw` (native, empty password), `sha2nopw`.
    pub fn start(config: ServerConfig) -> Result<Self, Box<dyn std::error::Error>> {
        Self::start_with(config, None)
    }

    /// Like [`TestServer::start`], also listening on a Unix socket.
    pub fn start_with(
        config: ServerConfig,
        unix_path: Option<std::path::PathBuf>,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        Self::start_threaded(config, unix_path, Threading::Pool)
    }

    /// Like [`TestServer::start_with`], serving connections as `threading`
    /// says.
    pub fn start_threaded(
        config: ServerConfig,
        unix_path: Option<std::path::PathBuf>,
        threading: Threading,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let state = Arc::new(ToyState::default());
        {
            let mut accounts = state.accounts.lock();
            accounts.insert("native".into(), Credential::native("pw"));
            accounts.insert("sha2".into(), Credential::caching_sha2("pw2")?);
            accounts.insert("nopw".into(), Credential::native(""));
            accounts.insert("sha2nopw".into(), Credential::caching_sha2("")?);
        }
        let max_allowed_packet = config.max_allowed_packet;
        let server = Server::new(config)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(Listener::bind_tcp("127.0.0.1:0"))?;
        let addr = listener.local_addr().ok_or("no local address")?;
        let unix = match unix_path {
            Some(path) => Some(runtime.block_on(Listener::bind_unix(path))?),
            None => None,
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (srv, st) = (server.clone(), state.clone());
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let make = {
                    let st = st.clone();
                    move |_: &ConnectionInfo| ToySession::new(st.clone(), max_allowed_packet)
                };
                let tcp = listener.run_with(srv.clone(), make.clone(), threading.clone());
                let unix = async move {
                    match unix {
                        Some(l) => l.run_with(srv, make, threading).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    () = tcp => {}
                    () = unix => {}
                    _ = stopped => {}
                }
            });
            runtime.shutdown_background();
        });
        Ok(TestServer {
            addr,
            server,
            state,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Client options for `user`/`pass` on this server.
    pub fn opts(&self, user: &str, pass: &str) -> mysql::OptsBuilder {
        mysql::OptsBuilder::new()
            .ip_or_hostname(Some("127.0.0.1"))
            .tcp_port(self.addr.port())
            .user(Some(user))
            .pass(Some(pass))
            .prefer_socket(false)
            .read_timeout(Some(std::time::Duration::from_secs(30)))
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A config with a small RSA key to keep tests quick.
/// The test certificates (shared with larchd's tests), found from the
/// checkout the test runs in: cargo sets `CARGO_MANIFEST_DIR` when it runs
/// a test, and the value compiled in is only the fallback (a test binary
/// reused from a target directory built in another checkout would read
/// that checkout's files).
pub fn tls_fixtures() -> std::path::PathBuf {
    let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    crate_dir.join("../larchd/tests/fixtures/tls")
}

pub fn test_config() -> ServerConfig {
    ServerConfig {
        rsa_key_bits: Some(1024),
        execution: ExecutionMode::BlockInPlace,
        ..ServerConfig::default()
    }
}

/// The MySQL error inside a client error, if any.
pub fn mysql_error(e: &mysql::Error) -> Option<(u16, String, String)> {
    match e {
        mysql::Error::MySqlError(m) => Some((m.code, m.state.clone(), m.message.clone())),
        _ => None,
    }
}
