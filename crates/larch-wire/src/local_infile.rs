//! `LOAD DATA LOCAL INFILE`: the server asks the client for a file in the
//! middle of a `COM_QUERY` and reads what the client sends.
//!
//! Exchange: the server sends the results completed so far and a packet
//! `0xFB` + file name; the client answers with the file's contents in
//! packets of any size and an empty packet at the end (just the empty
//! packet if it cannot or will not send the file); the query's results
//! continue with the next sequence id.
//!
//! The SQL layer runs statements synchronously, so it reads the client's
//! packets through [`LocalInfileReader`] (a `std::io::Read`), which drives
//! the connection's asynchronous stream with `block_in_place` +
//! `Handle::block_on` on a multi-threaded runtime, and with blocking socket
//! calls ([`BlockingAccess`]) on a connection's own thread
//! (`crate::threads`, `crate::blocking`). The reader always consumes the
//! stream up to the empty packet
//! (in `Drop` if the SQL layer stopped early), so the connection stays in
//! step; the outbox then continues at the stream's sequence id.
//! `ResultWriter::local_infile` starts the exchange; a client without
//! `CLIENT_LOCAL_FILES` is refused with ER 1148 before anything is sent.

use crate::error::{MysqlError, WireError};
use crate::packet::{Outbox, PacketStream};
use crate::stream::BlockingAccess;
use tokio::io::{AsyncRead, AsyncWrite};

/// Blocking access to the connection's stream for the exchange.
pub(crate) trait LocalIo: Send {
    /// Sends everything in `outbox`.
    fn send(&mut self, outbox: &mut Outbox) -> Result<(), WireError>;
    /// Reads the next client packet.
    fn read_packet(&mut self, buf: &mut Vec<u8>) -> Result<(), WireError>;
    /// The sequence id of the next packet.
    fn seq(&self) -> u8;
}

/// [`LocalIo`] over a [`PacketStream`] driven from synchronous code.
pub(crate) struct BlockingStream<'s, S> {
    pub(crate) stream: &'s mut PacketStream<S>,
}

/// How the exchange can wait for the client from synchronous code.
enum Blocking {
    /// `block_in_place` + `Handle::block_on` (a multi-threaded runtime).
    Runtime(tokio::runtime::Handle),
    /// Blocking socket calls ([`BlockingAccess`]): the connection has a
    /// thread of its own.
    Socket,
}

fn blocking() -> Blocking {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            Blocking::Runtime(h)
        }
        _ => Blocking::Socket,
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send + BlockingAccess> LocalIo for BlockingStream<'_, S> {
    fn send(&mut self, outbox: &mut Outbox) -> Result<(), WireError> {
        match blocking() {
            Blocking::Runtime(h) => {
                tokio::task::block_in_place(|| h.block_on(self.stream.send(outbox)))
            }
            Blocking::Socket => self.stream.send_blocking(outbox),
        }
    }

    fn read_packet(&mut self, buf: &mut Vec<u8>) -> Result<(), WireError> {
        match blocking() {
            Blocking::Runtime(h) => {
                tokio::task::block_in_place(|| h.block_on(self.stream.read_packet(buf)))
            }
            Blocking::Socket => self.stream.read_packet_blocking(buf),
        }
    }

    fn seq(&self) -> u8 {
        self.stream.seq()
    }
}

/// The client's file, packet by packet; see the module documentation.
pub struct LocalInfileReader<'w> {
    io: &'w mut dyn LocalIo,
    outbox: &'w mut Outbox,
    packet: Vec<u8>,
    pos: usize,
    done: bool,
    /// The stream failed: nothing more can be read or drained.
    broken: bool,
}

impl std::fmt::Debug for LocalInfileReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalInfileReader")
            .field("done", &self.done)
            .finish()
    }
}

impl<'w> LocalInfileReader<'w> {
    /// Sends the request for `name` after what `outbox` holds.
    pub(crate) fn start(
        io: &'w mut dyn LocalIo,
        outbox: &'w mut Outbox,
        name: &[u8],
    ) -> Result<LocalInfileReader<'w>, MysqlError> {
        let p = outbox.begin();
        p.push(0xFB);
        p.extend_from_slice(name);
        outbox.end();
        io.send(outbox)
            .map_err(|e| MysqlError::unknown(format!("LOCAL INFILE request failed: {e}")))?;
        Ok(LocalInfileReader {
            io,
            outbox,
            packet: Vec::new(),
            pos: 0,
            done: false,
            broken: false,
        })
    }
}

impl std::io::Read for LocalInfileReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.packet.len() {
            if self.done || self.broken {
                return Ok(0);
            }
            self.pos = 0;
            if let Err(e) = self.io.read_packet(&mut self.packet) {
                self.broken = true;
                return Err(std::io::Error::other(e.to_string()));
            }
            if self.packet.is_empty() {
                self.done = true;
            }
        }
        let n = buf.len().min(self.packet.len() - self.pos);
        buf[..n].copy_from_slice(&self.packet[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl Drop for LocalInfileReader<'_> {
    fn drop(&mut self) {
        while !self.done && !self.broken {
            match self.io.read_packet(&mut self.packet) {
                Ok(()) if self.packet.is_empty() => self.done = true,
                Ok(()) => {}
                Err(_) => self.broken = true,
            }
        }
        self.outbox.restart(self.io.seq());
    }
}
