//! The command phase of a connection: read a command packet, dispatch it to
//! the [`SqlSession`], send the response, repeat.
//!
//! Each command starts a new sequence (client packet id 0, responses from
//! 1). Commands with a truncated fixed-size header, an empty packet or an
//! out-of-order sequence id close the connection after an ERR packet;
//! errors inside a well-formed command (bad parameters, unknown statement
//! ids, SQL errors) are answered with ERR and the connection continues.
//! Unknown or unsupported commands get ER 1047 `ER_UNKNOWN_COM_ERROR`.
//! Prepared-statement bookkeeping lives in [`crate::stmt`]; COM_CHANGE_USER
//! in `crate::change_user`. While a command runs the connection is marked
//! busy for [`crate::liveness`].

use crate::error::{codes, MysqlError, WireError};
use crate::login::Opened;
use crate::packet::{Outbox, PacketStream};
use crate::results::{write_err, write_ok, write_terminator, OkResult, ResultWriter};
use crate::server::Server;
use crate::session::{ConnectionInfo, SqlSession};
use crate::stmt::{Statements, StmtState};
use crate::timeouts::CommandTimeouts;
use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, Command, StatusFlags};
use mysql_common::io::ParseBuf;
use tokio::io::{AsyncRead, AsyncWrite};

/// What to do after a command.
pub(crate) enum Flow {
    Continue,
    Quit,
}

/// One connection's command phase.
pub(crate) struct CommandLoop<'a, S, H> {
    pub(crate) server: &'a Server,
    pub(crate) stream: &'a mut PacketStream<S>,
    pub(crate) session: &'a mut H,
    pub(crate) info: &'a ConnectionInfo,
    pub(crate) capabilities: CapabilityFlags,
    multi_statements: bool,
    pub(crate) statements: Statements,
    /// What the login established (the nonce and TLS facts
    /// COM_CHANGE_USER needs).
    pub(crate) opened: Opened,
}

impl<'a, S, H> CommandLoop<'a, S, H>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + crate::stream::BlockingAccess,
    H: SqlSession,
{
    pub(crate) fn new(
        server: &'a Server,
        stream: &'a mut PacketStream<S>,
        session: &'a mut H,
        info: &'a ConnectionInfo,
        opened: Opened,
    ) -> Self {
        let capabilities = opened.capabilities;
        CommandLoop {
            server,
            stream,
            session,
            info,
            capabilities,
            multi_statements: capabilities.contains(CapabilityFlags::CLIENT_MULTI_STATEMENTS),
            statements: Statements::default(),
            opened,
        }
    }

    /// Serves commands until the client quits, the connection fails or it
    /// is killed.
    pub(crate) async fn run(&mut self) -> Result<(), WireError> {
        let mut packet = Vec::new();
        let result = loop {
            self.stream.reset_seq();
            let read = self.read_command(&mut packet).await;
            if let Err(e) = read {
                break Err(e);
            }
            // A command that arrives after a KILL of this connection (which
            // has answered its sender) is not run, even when this thread
            // read the command before it noticed the kill.
            if self.info.control.connection_killed() {
                break Err(WireError::Killed);
            }
            self.info.control.clear_query_kill();
            self.info.control.command_started();
            let flow = self.dispatch(&packet).await;
            self.info.control.command_ended();
            match flow {
                Ok(Flow::Continue) => {}
                Ok(Flow::Quit) => break Ok(()),
                Err(e) => break Err(e),
            }
            if self.info.control.connection_killed() {
                break Err(WireError::Killed);
            }
            if packet.capacity() > 1 << 20 {
                packet = Vec::new();
            }
        };
        for id in self.statements.ids() {
            let _ = self.server.call(|| self.session.close_statement(id));
        }
        result
    }

    /// Waits for the next command, a kill, or the idle timeout.
    async fn read_command(&mut self, packet: &mut Vec<u8>) -> Result<(), WireError> {
        if self.stream.is_blocking() {
            return self.read_command_blocking(packet).await;
        }
        let control = self.info.control.clone();
        let idle = self.timeouts().wait;
        let read = async {
            match idle {
                Some(limit) => {
                    match tokio::time::timeout(limit, self.stream.read_packet(packet)).await {
                        Ok(r) => r,
                        Err(_) => Err(WireError::Closed),
                    }
                }
                None => self.stream.read_packet(packet).await,
            }
        };
        tokio::select! {
            biased;
            () = control.killed() => Err(WireError::Killed),
            r = read => r,
        }
    }

    /// The timeouts of the next command: the session's own values, else
    /// the server's current ones ([`crate::timeouts`]).
    fn timeouts(&mut self) -> CommandTimeouts {
        // A getter: no need for `Server::call`'s hand-off, only its panic
        // guard.
        let session = &mut *self.session;
        let own = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| session.timeouts()))
            .unwrap_or_default();
        self.server.timeouts().for_command(own)
    }

    /// [`read_command`](Self::read_command) on a transport in blocking mode
    /// ([`crate::blocking`]): the read waits at most `wait_timeout`, and a
    /// kill wakes it by shutting the socket's read side down (also when the
    /// kill came before the read started). The rest of the command's reads
    /// (LOAD DATA LOCAL) wait at most `net_read_timeout`, its writes at most
    /// `net_write_timeout`.
    async fn read_command_blocking(&mut self, packet: &mut Vec<u8>) -> Result<(), WireError> {
        let limits = self.timeouts();
        self.stream.set_read_timeout(limits.wait)?;
        self.stream.set_write_timeout(limits.net_write)?;
        let read = self.stream.read_packet(packet).await;
        if self.info.control.connection_killed() {
            return Err(WireError::Killed);
        }
        match read {
            Ok(()) => {
                self.stream.set_read_timeout(limits.net_read)?;
                Ok(())
            }
            Err(WireError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => {
                Err(WireError::Closed)
            }
            Err(e) => Err(e),
        }
    }

    pub(crate) async fn send(&mut self, mut out: Outbox) -> Result<Flow, WireError> {
        self.stream.send(&mut out).await?;
        Ok(Flow::Continue)
    }

    pub(crate) async fn send_ok(&mut self) -> Result<Flow, WireError> {
        let status = self.status();
        let mut out = self.stream.outbox();
        write_ok(out.begin(), 0x00, &OkResult::default(), status);
        out.end();
        self.send(out).await
    }

    pub(crate) async fn send_err(&mut self, err: &MysqlError) -> Result<Flow, WireError> {
        let mut out = self.stream.outbox();
        write_err(out.begin(), err);
        out.end();
        self.send(out).await
    }

    async fn send_result(&mut self, r: Result<(), MysqlError>) -> Result<Flow, WireError> {
        match r {
            Ok(()) => self.send_ok().await,
            Err(e) => self.send_err(&e).await,
        }
    }

    fn status(&mut self) -> StatusFlags {
        let session = &mut *self.session;
        self.server
            .call(|| session.status_flags())
            .unwrap_or(StatusFlags::SERVER_STATUS_AUTOCOMMIT)
    }

    fn deprecate_eof(&self) -> bool {
        self.capabilities
            .contains(CapabilityFlags::CLIENT_DEPRECATE_EOF)
    }

    async fn dispatch(&mut self, packet: &[u8]) -> Result<Flow, WireError> {
        let Some((&code, body)) = packet.split_first() else {
            return Err(WireError::Malformed("empty command packet".into()));
        };
        const QUIT: u8 = Command::COM_QUIT as u8;
        const INIT_DB: u8 = Command::COM_INIT_DB as u8;
        const QUERY: u8 = Command::COM_QUERY as u8;
        const FIELD_LIST: u8 = Command::COM_FIELD_LIST as u8;
        const STATISTICS: u8 = Command::COM_STATISTICS as u8;
        const PROCESS_KILL: u8 = Command::COM_PROCESS_KILL as u8;
        const PING: u8 = Command::COM_PING as u8;
        const STMT_PREPARE: u8 = Command::COM_STMT_PREPARE as u8;
        const STMT_EXECUTE: u8 = Command::COM_STMT_EXECUTE as u8;
        const STMT_SEND_LONG_DATA: u8 = Command::COM_STMT_SEND_LONG_DATA as u8;
        const STMT_CLOSE: u8 = Command::COM_STMT_CLOSE as u8;
        const STMT_RESET: u8 = Command::COM_STMT_RESET as u8;
        const SET_OPTION: u8 = Command::COM_SET_OPTION as u8;
        const STMT_FETCH: u8 = Command::COM_STMT_FETCH as u8;
        const RESET_CONNECTION: u8 = Command::COM_RESET_CONNECTION as u8;
        const REFRESH: u8 = Command::COM_REFRESH as u8;
        const CHANGE_USER: u8 = Command::COM_CHANGE_USER as u8;
        match code {
            QUIT => Ok(Flow::Quit),
            PING => self.send_ok().await,
            INIT_DB => {
                let db = String::from_utf8_lossy(body);
                let session = &mut *self.session;
                let r = self.server.call(|| session.init_db(&db)).and_then(|r| r);
                self.send_result(r).await
            }
            QUERY => self.query(body).await,
            FIELD_LIST => self.field_list(body).await,
            STATISTICS => {
                let session = &mut *self.session;
                match self.server.call(|| session.statistics()) {
                    Ok(text) => {
                        let mut out = self.stream.outbox();
                        out.push(text.as_bytes());
                        self.send(out).await
                    }
                    Err(e) => self.send_err(&e).await,
                }
            }
            PROCESS_KILL => {
                let id = ParseBuf(body)
                    .checked_eat_u32_le()
                    .ok_or_else(|| WireError::Malformed("COM_PROCESS_KILL".into()))?;
                if self.server.kill(id, false) {
                    self.send_ok().await
                } else {
                    let err = MysqlError::new(
                        codes::ER_NO_SUCH_THREAD,
                        "HY000",
                        format!("Unknown thread id: {id}"),
                    );
                    self.send_err(&err).await
                }
            }
            STMT_PREPARE => self.prepare(body).await,
            STMT_EXECUTE => self.execute(body).await,
            STMT_SEND_LONG_DATA => {
                let mut buf = ParseBuf(body);
                let (Some(id), Some(param)) = (buf.checked_eat_u32_le(), buf.checked_eat_u16_le())
                else {
                    return Err(WireError::Malformed("COM_STMT_SEND_LONG_DATA".into()));
                };
                let limit = self.server.config().max_allowed_packet;
                if let Some(stmt) = self.statements.get_mut(id) {
                    stmt.append_long_data(param, buf.0, limit);
                }
                // No response, by protocol.
                Ok(Flow::Continue)
            }
            STMT_CLOSE => {
                let id = ParseBuf(body)
                    .checked_eat_u32_le()
                    .ok_or_else(|| WireError::Malformed("COM_STMT_CLOSE".into()))?;
                if self.statements.remove(id).is_some() {
                    let session = &mut *self.session;
                    let _ = self.server.call(|| session.close_statement(id));
                }
                Ok(Flow::Continue)
            }
            STMT_RESET => {
                let id = ParseBuf(body)
                    .checked_eat_u32_le()
                    .ok_or_else(|| WireError::Malformed("COM_STMT_RESET".into()))?;
                let Some(stmt) = self.statements.get_mut(id) else {
                    let err = MysqlError::unknown_statement(id, "mysqld_stmt_reset");
                    return self.send_err(&err).await;
                };
                stmt.clear_long_data();
                let session = &mut *self.session;
                let r = self
                    .server
                    .call(|| session.reset_statement(id))
                    .and_then(|r| r);
                self.send_result(r).await
            }
            STMT_FETCH => {
                let id = ParseBuf(body).checked_eat_u32_le().unwrap_or(0);
                let err = MysqlError::new(
                    1421,
                    "HY000",
                    format!("The statement ({id}) has no open cursor."),
                );
                self.send_err(&err).await
            }
            SET_OPTION => {
                let option = ParseBuf(body)
                    .checked_eat_u16_le()
                    .ok_or_else(|| WireError::Malformed("COM_SET_OPTION".into()))?;
                match option {
                    0 | 1 => {
                        self.multi_statements = option == 0;
                        let status = self.status();
                        let mut out = self.stream.outbox();
                        write_terminator(out.begin(), self.deprecate_eof(), 0, status);
                        out.end();
                        self.send(out).await
                    }
                    _ => self.send_err(&MysqlError::unknown_command()).await,
                }
            }
            REFRESH => {
                let flags = body.first().copied().unwrap_or(0);
                let session = &mut *self.session;
                let r = self.server.call(|| session.refresh(flags)).and_then(|r| r);
                self.send_result(r).await
            }
            CHANGE_USER => self.change_user(body).await,
            RESET_CONNECTION => {
                self.close_statements();
                let session = &mut *self.session;
                let r = self
                    .server
                    .call(|| session.reset_connection())
                    .and_then(|r| r);
                self.send_result(r).await
            }
            _ => self.send_err(&MysqlError::unknown_command()).await,
        }
    }

    /// Closes every prepared statement (a reset or a change of user).
    pub(crate) fn close_statements(&mut self) {
        for id in self.statements.ids() {
            self.statements.remove(id);
            let session = &mut *self.session;
            let _ = self.server.call(|| session.close_statement(id));
        }
    }

    async fn query(&mut self, sql: &[u8]) -> Result<Flow, WireError> {
        let status = self.status();
        let mut out = self.stream.outbox();
        let start = out.mark();
        let mut io = crate::local_infile::BlockingStream {
            stream: &mut *self.stream,
        };
        let mut writer = ResultWriter::new(
            &mut out,
            self.capabilities,
            false,
            self.multi_statements,
            status,
        )
        .with_local(&mut io);
        let session = &mut *self.session;
        let result = self.server.call(|| session.query(sql, &mut writer));
        // What must finish before the client hears the result (the log
        // sync of a commit); its error replaces the result.
        let result = match (result, self.session.durability()) {
            (Ok(r), Some(wait)) => wait.await.map(|()| r),
            (result, _) => result,
        };
        match result {
            Ok(outcome) => writer.finish(outcome),
            Err(e) => {
                writer.abandon(start);
                write_err(out.begin(), &e);
                out.end();
            }
        }
        self.send(out).await
    }

    async fn field_list(&mut self, body: &[u8]) -> Result<Flow, WireError> {
        let mut buf = ParseBuf(body);
        let table = String::from_utf8_lossy(buf.eat_null_str()).into_owned();
        let wildcard = String::from_utf8_lossy(buf.0).into_owned();
        let session = &mut *self.session;
        match self
            .server
            .call(|| session.field_list(&table, &wildcard))
            .and_then(|r| r)
        {
            Ok(columns) => {
                let status = self.status();
                let mut out = self.stream.outbox();
                for column in &columns {
                    column.encode_field_list(out.begin());
                }
                write_terminator(out.begin(), self.deprecate_eof(), 0, status);
                out.end();
                self.send(out).await
            }
            Err(e) => self.send_err(&e).await,
        }
    }

    async fn prepare(&mut self, sql: &[u8]) -> Result<Flow, WireError> {
        let id = self.statements.next_id();
        let session = &mut *self.session;
        let prepared = match self
            .server
            .call(|| session.prepare(id, sql))
            .and_then(|r| r)
        {
            Ok(p) => p,
            Err(e) => return self.send_err(&e).await,
        };
        self.statements.insert(id, StmtState::new(prepared.params));
        let status = self.status();
        let deprecate_eof = self.deprecate_eof();
        let mut out = self.stream.outbox();
        let payload = out.begin();
        payload.push(0x00);
        payload.extend_from_slice(&id.to_le_bytes());
        payload.extend_from_slice(&(prepared.columns.len() as u16).to_le_bytes());
        payload.extend_from_slice(&prepared.params.to_le_bytes());
        payload.push(0x00);
        payload.extend_from_slice(&0u16.to_le_bytes());
        if prepared.params > 0 {
            let param = crate::column::ColumnDef::new("?", ColumnType::MYSQL_TYPE_VAR_STRING)
                .with_charset(crate::column::BINARY_COLLATION)
                .with_flags(ColumnFlags::BINARY_FLAG)
                .with_length(0);
            for _ in 0..prepared.params {
                param.encode(out.begin());
            }
            if !deprecate_eof {
                write_terminator(out.begin(), false, 0, status);
            }
        }
        if !prepared.columns.is_empty() {
            for column in &prepared.columns {
                column.encode(out.begin());
            }
            if !deprecate_eof {
                write_terminator(out.begin(), false, 0, status);
            }
        }
        out.end();
        self.send(out).await
    }

    async fn execute(&mut self, body: &[u8]) -> Result<Flow, WireError> {
        let mut buf = ParseBuf(body);
        let (Some(id), Some(_cursor_flags), Some(_iterations)) = (
            buf.checked_eat_u32_le(),
            buf.checked_eat_u8(),
            buf.checked_eat_u32_le(),
        ) else {
            return Err(WireError::Malformed("COM_STMT_EXECUTE header".into()));
        };
        let Some(stmt) = self.statements.get_mut(id) else {
            let err = MysqlError::unknown_statement(id, "mysqld_stmt_execute");
            return self.send_err(&err).await;
        };
        let params = stmt.decode_params(&mut buf);
        stmt.clear_long_data();
        let params = match params {
            Ok(p) => p,
            Err(e) => return self.send_err(&e).await,
        };
        let status = self.status();
        let mut out = self.stream.outbox();
        let start = out.mark();
        let mut io = crate::local_infile::BlockingStream {
            stream: &mut *self.stream,
        };
        let mut writer = ResultWriter::new(
            &mut out,
            self.capabilities,
            true,
            self.multi_statements,
            status,
        )
        .with_sender(&mut io);
        let session = &mut *self.session;
        let result = self
            .server
            .call(|| session.execute(id, &params, &mut writer));
        // What must finish before the client hears the result (the log
        // sync of a commit); its error replaces the result.
        let result = match (result, self.session.durability()) {
            (Ok(r), Some(wait)) => wait.await.map(|()| r),
            (result, _) => result,
        };
        match result {
            Ok(outcome) => writer.finish(outcome),
            Err(e) => {
                writer.abandon(start);
                write_err(out.begin(), &e);
                out.end();
            }
        }
        self.send(out).await
    }
}
