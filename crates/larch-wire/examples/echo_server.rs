//! A tiny server for trying the protocol with real clients (`mariadb`,
//! `mysql`, drivers). It is not SQL: it answers the few statements the
//! `mariadb` command-line client sends on its own and echoes everything
//! else back as a one-row result.
//!
//! ```text
//! cargo run -p larch-wire --example echo_server -- [PORT] [UNIX_SOCKET_PATH]
//! mariadb -h 127.0.0.1 -P 3307 -u larch -plarch -e "hello world"
//! mariadb -h 127.0.0.1 -P 3307 -u sha2 -psha2 --default-auth=caching_sha2_password
//! ```
//!
//! Accounts: `larch`/`larch` (mysql_native_password), `sha2`/`sha2`
//! (caching_sha2_password), `root` without a password.

use larch_wire::*;
use std::sync::Arc;

struct EchoSession {
    accounts: Arc<Vec<(String, Credential)>>,
    db: Option<String>,
    user: String,
    connection_id: u32,
}

fn one_row(name: &str, value: Value) -> ResultSet {
    ResultSet {
        columns: vec![ColumnDef::new(name, ColumnType::MYSQL_TYPE_VAR_STRING)],
        rows: vec![vec![value]],
    }
}

impl EchoSession {
    /// One column per comma-separated item of a `SELECT` list: the session
    /// functions and variables the `mariadb` client asks for, integers, and
    /// anything else echoed as text. (Commas inside items are not handled.)
    fn select_items(&self, items: &str) -> ResultSet {
        let items = items.split(" limit ").next().unwrap_or(items);
        let mut columns = Vec::new();
        let mut row = Vec::new();
        for item in items.split(',').map(str::trim) {
            let value: Value = match item {
                "database()" => self.db.clone().into(),
                "user()" | "current_user()" => self.user.clone().into(),
                "version()" | "@@version" => DEFAULT_SERVER_VERSION.into(),
                "connection_id()" => Value::UInt(u64::from(self.connection_id)),
                "@@version_comment" => "Larch echo server".into(),
                "@@max_allowed_packet" => Value::Int(64 << 20),
                v if v.starts_with("@@character_set") => "utf8mb4".into(),
                v if v.starts_with("@@collation") => "utf8mb4_general_ci".into(),
                v => match v.parse::<i64>() {
                    Ok(n) => Value::Int(n),
                    Err(_) => v.into(),
                },
            };
            let ty = match value {
                Value::Int(_) | Value::UInt(_) => ColumnType::MYSQL_TYPE_LONGLONG,
                _ => ColumnType::MYSQL_TYPE_VAR_STRING,
            };
            columns.push(ColumnDef::new(item, ty));
            row.push(value);
        }
        ResultSet {
            columns,
            rows: vec![row],
        }
    }
}

impl SqlSession for EchoSession {
    fn lookup_account(&mut self, user: &str, _host: &str) -> Option<Account> {
        let (_, credential) = self.accounts.iter().find(|(u, _)| u == user)?;
        Some(Account {
            credential: credential.clone(),
        })
    }

    fn on_login(&mut self, login: &LoginInfo) -> Result<(), MysqlError> {
        self.user = format!("{}@{}", login.user, login.host);
        Ok(())
    }

    fn init_db(&mut self, database: &str) -> Result<(), MysqlError> {
        self.db = Some(database.to_owned());
        Ok(())
    }

    fn query(&mut self, sql: &[u8], out: &mut ResultWriter<'_>) -> Result<(), MysqlError> {
        let text = String::from_utf8_lossy(sql);
        for statement in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let lower = statement.to_ascii_lowercase();
            if lower.starts_with("set ") || lower == "begin" || lower == "commit" {
                out.ok(OkResult::default())?;
                continue;
            }
            let result = match lower.as_str() {
                "show databases" => ResultSet {
                    columns: vec![ColumnDef::new(
                        "Database",
                        ColumnType::MYSQL_TYPE_VAR_STRING,
                    )],
                    rows: vec![vec!["echo".into()]],
                },
                "show tables" => ResultSet {
                    columns: vec![ColumnDef::new(
                        "Tables_in_echo",
                        ColumnType::MYSQL_TYPE_VAR_STRING,
                    )],
                    rows: vec![],
                },
                _ => match lower.strip_prefix("select ") {
                    Some(items) => self.select_items(items),
                    None => one_row("echo", statement.into()),
                },
            };
            out.result_set(&result)?;
        }
        Ok(())
    }

    fn prepare(&mut self, _stmt_id: u32, sql: &[u8]) -> Result<PreparedInfo, MysqlError> {
        let params = sql.iter().filter(|&&b| b == b'?').count() as u16;
        Ok(PreparedInfo {
            params,
            columns: vec![ColumnDef::new("echo", ColumnType::MYSQL_TYPE_VAR_STRING)],
        })
    }

    fn execute(
        &mut self,
        _stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<(), MysqlError> {
        let text = format!("{params:?}");
        out.result_set(&one_row("echo", text.into()))
    }

    fn close_statement(&mut self, _stmt_id: u32) {}

    fn reset_connection(&mut self) -> Result<(), MysqlError> {
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let port: u16 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(3307);
    let unix_path = args.next();
    let accounts = Arc::new(vec![
        ("larch".to_owned(), Credential::native("larch")),
        ("sha2".to_owned(), Credential::caching_sha2("sha2")?),
        ("root".to_owned(), Credential::native("")),
    ]);
    let server = Server::new(ServerConfig::default())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let make = move |info: &ConnectionInfo| EchoSession {
            accounts: accounts.clone(),
            db: None,
            user: String::new(),
            connection_id: info.connection_id,
        };
        let tcp = Listener::bind_tcp(("127.0.0.1", port)).await?;
        println!("listening on {:?}", tcp.local_addr());
        match unix_path {
            Some(path) => {
                let unix = Listener::bind_unix(&path).await?;
                println!("listening on {path}");
                tokio::join!(
                    tcp.run(server.clone(), make.clone()),
                    unix.run(server, make)
                );
            }
            None => tcp.run(server, make).await,
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })
}
