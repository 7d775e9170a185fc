//! Target `wire`: the MySQL protocol decoder and command dispatcher of
//! larch-wire, driven through a whole connection.
//!
//! An input is the byte stream a client sends: framed packets (3-byte
//! length, sequence id, payload), normally a handshake response (or an SSL
//! request first) and then commands. [`larch_wire::Server::serve_connection`]
//! serves it over an in-memory stream that reads the input and then
//! reports end of file, and discards what the server writes; the session
//! behind it ([`FuzzSession`]) accepts `root` and `sha` with empty
//! passwords, echoes parameters back as rows (so decoded parameters are
//! encoded again), answers `LOAD ...` with a LOAD DATA LOCAL request, and
//! never panics itself, so every panic counted is the protocol layer's.
//!
//! Invariant checked: whatever the bytes, the connection ends (within
//! [`CONNECTION_LIMIT`]) with `Ok` or an error, and nothing panics,
//! including the panics `Server::call` turns into error 1105.
//!
//! Generation builds valid exchanges with random fields: capability sets,
//! auth plugins, attributes, every command the dispatcher knows, prepared
//! statements executed with random parameter types and values, long data,
//! COM_CHANGE_USER. The format-aware mutation re-frames packets after
//! changing a payload, so length fields stay true there; the byte
//! mutations make them lie.

use std::io::Read;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use larch_wire::{
    Account, ClientStream, ColumnDef, ColumnType, Credential, MysqlError, OkResult, PreparedInfo,
    ResultWriter, Server, ServerConfig, SqlSession, Transport, Value,
};
use rand::rngs::StdRng;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::wire_gen;
use crate::driver::Target;

/// How long one connection may take before it counts as hung.
pub const CONNECTION_LIMIT: Duration = Duration::from_secs(20);

/// The client side of a connection: reads the input, then end of file;
/// writes go nowhere.
struct ScriptStream {
    input: Vec<u8>,
    pos: usize,
}

impl AsyncRead for ScriptStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let rest = &self.input[self.pos..];
        let n = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..n]);
        self.pos += n;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for ScriptStream {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The session behind a fuzzed connection (see the module documentation).
pub struct FuzzSession {
    /// Queries and executions served, over every connection.
    calls: Arc<AtomicU64>,
}

fn column_for(value: &Value, i: usize) -> ColumnDef {
    let ty = match value {
        Value::Null => ColumnType::MYSQL_TYPE_NULL,
        Value::Int(_) => ColumnType::MYSQL_TYPE_LONGLONG,
        Value::UInt(_) => {
            return ColumnDef::new(format!("p{i}"), ColumnType::MYSQL_TYPE_LONGLONG).unsigned()
        }
        Value::Float(_) => ColumnType::MYSQL_TYPE_FLOAT,
        Value::Double(_) => ColumnType::MYSQL_TYPE_DOUBLE,
        Value::Decimal(_) => ColumnType::MYSQL_TYPE_NEWDECIMAL,
        Value::Bytes(_) => ColumnType::MYSQL_TYPE_VAR_STRING,
        Value::Date(_) => ColumnType::MYSQL_TYPE_DATE,
        Value::DateTime(_) => ColumnType::MYSQL_TYPE_DATETIME,
        Value::Time(_) => ColumnType::MYSQL_TYPE_TIME,
    };
    ColumnDef::new(format!("p{i}"), ty)
}

impl SqlSession for FuzzSession {
    fn lookup_account(&mut self, user: &str, _host: &str) -> Option<Account> {
        let credential = match user {
            "root" => Credential::NativePassword(None),
            "sha" => Credential::CachingSha2Password(None),
            _ => return None,
        };
        Some(Account { credential })
    }

    fn init_db(&mut self, database: &str) -> Result<(), MysqlError> {
        if database == "nodb" {
            return Err(MysqlError::new(1049, "42000", "Unknown database 'nodb'"));
        }
        Ok(())
    }

    fn query(&mut self, sql: &[u8], out: &mut ResultWriter<'_>) -> Result<(), MysqlError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if sql.starts_with(b"LOAD") {
            let mut file = Vec::new();
            {
                let mut reader = out.local_infile(b"data.txt")?;
                reader
                    .read_to_end(&mut file)
                    .map_err(|e| MysqlError::unknown(e.to_string()))?;
            }
            return out.ok(OkResult::affected(file.len() as u64));
        }
        if sql.starts_with(b"ERR") {
            return Err(MysqlError::new(1064, "42000", "You have an error"));
        }
        if sql.starts_with(b"SELECT") {
            let columns = [
                ColumnDef::new("a", ColumnType::MYSQL_TYPE_LONGLONG),
                ColumnDef::new("b", ColumnType::MYSQL_TYPE_VAR_STRING),
            ];
            out.begin_result_set(&columns)?;
            out.row(&[Value::Int(1), Value::Bytes(sql.to_vec())])?;
            return out.end_result_set(0);
        }
        out.ok(OkResult::default())
    }

    fn prepare(&mut self, _stmt_id: u32, sql: &[u8]) -> Result<PreparedInfo, MysqlError> {
        if sql.starts_with(b"ERR") {
            return Err(MysqlError::new(1064, "42000", "You have an error"));
        }
        let params = sql.iter().filter(|&&b| b == b'?').count();
        let params = u16::try_from(params).unwrap_or(u16::MAX);
        let columns = if sql.starts_with(b"SELECT") {
            (0..usize::from(params))
                .map(|i| ColumnDef::new(format!("p{i}"), ColumnType::MYSQL_TYPE_VAR_STRING))
                .collect()
        } else {
            Vec::new()
        };
        Ok(PreparedInfo { params, columns })
    }

    fn execute(
        &mut self,
        _stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<(), MysqlError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if params.is_empty() {
            return out.ok(OkResult::default());
        }
        let columns: Vec<ColumnDef> = params
            .iter()
            .enumerate()
            .map(|(i, v)| column_for(v, i))
            .collect();
        out.begin_result_set(&columns)?;
        out.row(params)?;
        out.end_result_set(0)
    }

    fn close_statement(&mut self, _stmt_id: u32) {}

    fn reset_connection(&mut self) -> Result<(), MysqlError> {
        Ok(())
    }
}

/// See the module documentation.
pub struct WireTarget {
    runtime: tokio::runtime::Runtime,
    server: Arc<Server>,
    calls: Arc<AtomicU64>,
}

impl WireTarget {
    /// A server without TLS and RSA keys, with the login delay off and a
    /// 1 MiB `max_allowed_packet` (so length lies reach error 1153).
    pub fn new() -> Result<WireTarget, crate::Error> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        let config = ServerConfig {
            rsa_key_bits: None,
            max_allowed_packet: 1 << 20,
            idle_timeout: Some(CONNECTION_LIMIT),
            ..ServerConfig::default()
        };
        let server = Server::new(config)?;
        server.hosts().set_threshold(0);
        Ok(WireTarget {
            runtime,
            server,
            calls: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Queries and executions the sessions have served so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Target for WireTarget {
    fn name(&self) -> &'static str {
        "wire"
    }

    fn seeds(&mut self) -> Vec<Vec<u8>> {
        wire_gen::seeds()
    }

    fn generate(&mut self, rng: &mut StdRng) -> Vec<u8> {
        wire_gen::exchange(rng)
    }

    fn dictionary(&self) -> Vec<&'static [u8]> {
        wire_gen::DICTIONARY.to_vec()
    }

    fn mutate(&mut self, input: &mut Vec<u8>, rng: &mut StdRng) -> bool {
        wire_gen::mutate_framed(input, rng)
    }

    fn run(&mut self, input: &[u8]) -> Result<(), String> {
        let server = self.server.clone();
        let session = FuzzSession {
            calls: self.calls.clone(),
        };
        let stream = ScriptStream {
            input: input.to_vec(),
            pos: 0,
        };
        let task = self.runtime.spawn(async move {
            let info = server.connection_info("localhost".to_owned(), Transport::Unix);
            let serve = server.serve_connection(ClientStream::other(stream), info, session);
            tokio::time::timeout(CONNECTION_LIMIT, serve).await
        });
        match self.runtime.block_on(task) {
            Ok(Ok(_served)) => Ok(()),
            Ok(Err(_elapsed)) => Err(format!(
                "connection still running after {} s",
                CONNECTION_LIMIT.as_secs()
            )),
            // A panic of the task: the panic hook has counted it.
            Err(e) => Err(format!("connection task failed: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn generated_exchanges_log_in_and_run() -> Result<(), crate::Error> {
        let mut t = WireTarget::new()?;
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..200 {
            let input = t.generate(&mut rng);
            assert_eq!(crate::driver::run_one(&mut t, &input), Ok(()));
        }
        // Most generated clients log in and get their commands served.
        assert!(t.calls() > 60, "only {} calls served", t.calls());
        Ok(())
    }
}
