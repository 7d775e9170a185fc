//! Packet framing: the 4-byte header (3-byte little-endian payload length and a
//! 1-byte sequence id), splitting and joining of payloads of 16 MiB - 1 bytes
//! and more, and `max_allowed_packet` enforcement.
//!
//! Invariants:
//! - a payload of `n` bytes is sent as `n / 0xFFFFFF` full chunks followed by
//!   one chunk of `n % 0xFFFFFF` bytes (possibly empty), each chunk with the
//!   next sequence id; reading joins chunks the same way;
//! - sequence ids are checked on read: a client packet must carry the id the
//!   server expects, otherwise [`WireError::OutOfOrder`];
//! - a logical packet longer than `max_allowed_packet` is never buffered: the
//!   reader drains the rest of it from the socket (so the ERR that follows
//!   reaches the client instead of being lost to a reset), up to
//!   [`DRAIN_LIMIT`] bytes, and returns [`WireError::PacketTooLarge`].
//!
//! Responses are assembled in an [`Outbox`] (framed, with sequence ids) and
//! written with one `write_all` per command.

use crate::error::WireError;
use crate::stream::BlockingAccess;
use tokio::io::{AsyncBufRead, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// Largest payload of one physical packet (2^24 - 1).
pub const MAX_CHUNK: usize = 0xFF_FFFF;

/// How many bytes of an oversized packet are read and discarded before the
/// connection is closed (MySQL's largest `max_allowed_packet` is 1 GiB).
pub const DRAIN_LIMIT: usize = 1 << 30;

/// A client connection's byte stream with packet framing and sequence ids.
pub struct PacketStream<S> {
    stream: BufReader<S>,
    /// Sequence id of the next packet read or written.
    seq: u8,
    max_allowed_packet: usize,
    /// The buffer of the last outbox sent, reused by the next one (so a
    /// response of some kilobytes is not grown by reallocation every time).
    spare: Vec<u8>,
}

/// Largest outbox buffer kept for the next response.
const SPARE_LIMIT: usize = 256 * 1024;

/// Size of a connection's read buffer. The buffer is zeroed when it is
/// allocated, once per connection; at 16 KiB it is a "large" allocation for
/// jemalloc, which zeroes a recycled large extent with `madvise` and so sends
/// a TLB shootdown to every CPU on each new connection. 8 KiB comes zeroed
/// from a slab. Packets longer than the buffer bypass it.
const READ_BUFFER: usize = 8 * 1024;

impl<S: AsyncRead + AsyncWrite + Unpin> PacketStream<S> {
    /// Wraps `stream`; packets longer than `max_allowed_packet` are refused.
    pub fn new(stream: S, max_allowed_packet: usize) -> Self {
        PacketStream {
            stream: BufReader::with_capacity(READ_BUFFER, stream),
            seq: 0,
            max_allowed_packet,
            spare: Vec::new(),
        }
    }

    /// Continues a connection on a new transport (after the TLS handshake):
    /// the sequence ids go on from `seq`.
    pub(crate) fn resume(stream: S, seq: u8, max_allowed_packet: usize) -> Self {
        PacketStream {
            stream: BufReader::with_capacity(READ_BUFFER, stream),
            seq,
            max_allowed_packet,
            spare: Vec::new(),
        }
    }

    /// The transport.
    pub(crate) fn get_ref(&self) -> &S {
        self.stream.get_ref()
    }

    /// Takes the transport back, with the bytes already read from it but not
    /// yet consumed (a client may send its TLS hello right behind the SSL
    /// request) and the next sequence id.
    pub(crate) fn into_parts(self) -> (S, Vec<u8>, u8) {
        let buffered = self.stream.buffer().to_vec();
        (self.stream.into_inner(), buffered, self.seq)
    }

    /// The packet size limit.
    pub fn max_allowed_packet(&self) -> usize {
        self.max_allowed_packet
    }

    /// Current sequence id (of the next packet).
    pub fn seq(&self) -> u8 {
        self.seq
    }

    /// Starts a new command exchange: the client's command carries id 0.
    pub fn reset_seq(&mut self) {
        self.seq = 0;
    }

    /// Changes the packet size limit (e.g. after `SET max_allowed_packet`).
    pub fn set_max_allowed_packet(&mut self, max: usize) {
        self.max_allowed_packet = max;
    }

    /// Reads one logical packet into `payload` (cleared first).
    ///
    /// Returns [`WireError::Closed`] if the peer closed the connection before
    /// the first header byte.
    pub async fn read_packet(&mut self, payload: &mut Vec<u8>) -> Result<(), WireError> {
        payload.clear();
        let mut first = true;
        loop {
            let mut header = [0u8; 4];
            if let Err(e) = self.stream.read_exact(&mut header).await {
                if first && e.kind() == std::io::ErrorKind::UnexpectedEof {
                    return Err(WireError::Closed);
                }
                return Err(e.into());
            }
            first = false;
            let len =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            if header[3] != self.seq {
                let expected = self.seq;
                // Answer in the client's numbering so it can read the ERR.
                self.seq = header[3].wrapping_add(1);
                return Err(WireError::OutOfOrder {
                    expected,
                    got: header[3],
                });
            }
            self.seq = self.seq.wrapping_add(1);
            let total = payload.len() + len;
            if total > self.max_allowed_packet {
                let max = self.max_allowed_packet;
                self.drain_oversized(len).await?;
                return Err(WireError::PacketTooLarge { size: total, max });
            }
            let start = payload.len();
            payload.resize(total, 0);
            self.stream.read_exact(&mut payload[start..]).await?;
            if len < MAX_CHUNK {
                return Ok(());
            }
        }
    }

    /// Discards the rest of an oversized logical packet whose current chunk
    /// has `len` unread bytes.
    async fn drain_oversized(&mut self, mut len: usize) -> Result<(), WireError> {
        let mut drained = 0usize;
        let mut scratch = vec![0u8; 64 * 1024];
        loop {
            let mut left = len;
            while left > 0 {
                let n = left.min(scratch.len());
                self.stream.read_exact(&mut scratch[..n]).await?;
                left -= n;
            }
            drained += len;
            if len < MAX_CHUNK || drained >= DRAIN_LIMIT {
                return Ok(());
            }
            let mut header = [0u8; 4];
            self.stream.read_exact(&mut header).await?;
            self.seq = header[3].wrapping_add(1);
            len =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
        }
    }

    /// Writes the framed packets of `outbox` and flushes; the stream's
    /// sequence id continues after the outbox's last packet.
    pub async fn send(&mut self, outbox: &mut Outbox) -> Result<(), WireError> {
        let stream = self.stream.get_mut();
        stream.write_all(&outbox.buf).await?;
        stream.flush().await?;
        self.seq = outbox.seq;
        self.recycle(outbox);
        Ok(())
    }

    /// A fresh outbox whose first packet takes the current sequence id (in
    /// the buffer of the last one sent).
    pub fn outbox(&mut self) -> Outbox {
        let mut buf = std::mem::take(&mut self.spare);
        if buf.capacity() == 0 {
            buf.reserve(256);
        }
        Outbox {
            buf,
            seq: self.seq,
            open: None,
        }
    }

    /// Empties a sent outbox, keeping its buffer for the next one.
    fn recycle(&mut self, outbox: &mut Outbox) {
        outbox.buf.clear();
        if outbox.buf.capacity() <= SPARE_LIMIT && outbox.buf.capacity() > self.spare.capacity() {
            self.spare = std::mem::take(&mut outbox.buf);
        }
    }

    /// Shuts the write side down (best effort) before the stream is dropped.
    pub async fn shutdown(&mut self) {
        let _ = self.stream.get_mut().shutdown().await;
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin + BlockingAccess> PacketStream<S> {
    /// True when the transport is in blocking mode (see
    /// [`crate::blocking`]): reads and writes complete without an event
    /// loop, and a read waits as long as
    /// [`set_read_timeout`](Self::set_read_timeout) says.
    pub(crate) fn is_blocking(&self) -> bool {
        self.stream.get_ref().is_blocking()
    }

    /// How long a read waits on a transport in blocking mode (`None`: for
    /// ever); no effect on other transports.
    pub(crate) fn set_read_timeout(
        &mut self,
        limit: Option<std::time::Duration>,
    ) -> std::io::Result<()> {
        self.stream.get_mut().set_read_timeout(limit)
    }

    /// How long a write waits on a transport in blocking mode (`None`: for
    /// ever); no effect on other transports.
    pub(crate) fn set_write_timeout(
        &mut self,
        limit: Option<std::time::Duration>,
    ) -> std::io::Result<()> {
        self.stream.get_mut().set_write_timeout(limit)
    }

    /// [`read_packet`](Self::read_packet) with synchronous I/O
    /// ([`BlockingAccess`]): bytes already buffered first, then the socket.
    pub(crate) fn read_packet_blocking(&mut self, payload: &mut Vec<u8>) -> Result<(), WireError> {
        payload.clear();
        let mut first = true;
        loop {
            let mut header = [0u8; 4];
            if let Err(e) = self.read_exact_blocking(&mut header) {
                if first && e.kind() == std::io::ErrorKind::UnexpectedEof {
                    return Err(WireError::Closed);
                }
                return Err(e.into());
            }
            first = false;
            let len =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            if header[3] != self.seq {
                let expected = self.seq;
                self.seq = header[3].wrapping_add(1);
                return Err(WireError::OutOfOrder {
                    expected,
                    got: header[3],
                });
            }
            self.seq = self.seq.wrapping_add(1);
            let total = payload.len() + len;
            if total > self.max_allowed_packet {
                // The connection cannot continue in step: it ends.
                return Err(WireError::PacketTooLarge {
                    size: total,
                    max: self.max_allowed_packet,
                });
            }
            let start = payload.len();
            payload.resize(total, 0);
            self.read_exact_blocking(&mut payload[start..])?;
            if len < MAX_CHUNK {
                return Ok(());
            }
        }
    }

    /// [`send`](Self::send) with synchronous I/O ([`BlockingAccess`]).
    pub(crate) fn send_blocking(&mut self, outbox: &mut Outbox) -> Result<(), WireError> {
        self.stream.get_mut().blocking_write_all(&outbox.buf)?;
        self.seq = outbox.seq;
        self.recycle(outbox);
        Ok(())
    }

    fn read_exact_blocking(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        let buffered = self.stream.buffer();
        let mut filled = buffered.len().min(buf.len());
        buf[..filled].copy_from_slice(&buffered[..filled]);
        std::pin::Pin::new(&mut self.stream).consume(filled);
        while filled < buf.len() {
            match self.stream.get_mut().blocking_read(&mut buf[filled..])? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => filled += n,
            }
        }
        Ok(())
    }
}

/// Framed server packets waiting to be written, with their sequence ids.
///
/// Build a packet with [`Outbox::begin`] (which returns the buffer to append
/// the payload to) and [`Outbox::end`] (which fills in the header, splitting
/// payloads of [`MAX_CHUNK`] bytes or more).
#[derive(Debug, Default)]
pub struct Outbox {
    buf: Vec<u8>,
    seq: u8,
    open: Option<usize>,
}

/// A position in an [`Outbox`] to roll back to.
#[derive(Debug, Clone, Copy)]
pub struct OutboxMark {
    len: usize,
    seq: u8,
}

impl Outbox {
    /// An empty outbox whose first packet gets sequence id `seq`.
    pub fn new(seq: u8) -> Self {
        Outbox {
            buf: Vec::with_capacity(256),
            seq,
            open: None,
        }
    }

    /// Starts a packet; append its payload to the returned buffer.
    pub fn begin(&mut self) -> &mut Vec<u8> {
        if self.open.is_some() {
            self.end();
        }
        self.open = Some(self.buf.len());
        self.buf.extend_from_slice(&[0, 0, 0, 0]);
        &mut self.buf
    }

    /// Finishes the packet started by [`Outbox::begin`].
    pub fn end(&mut self) {
        let Some(start) = self.open.take() else {
            return;
        };
        let len = self.buf.len() - start - 4;
        if len < MAX_CHUNK {
            self.buf[start..start + 4].copy_from_slice(&header(len, self.seq));
            self.seq = self.seq.wrapping_add(1);
            return;
        }
        // Rare: split the payload into chunks, each with its own header.
        let payload = self.buf.split_off(start + 4);
        self.buf.truncate(start);
        let mut chunks = payload.chunks(MAX_CHUNK);
        let mut last_len = MAX_CHUNK;
        for chunk in chunks.by_ref() {
            self.buf.extend_from_slice(&header(chunk.len(), self.seq));
            self.buf.extend_from_slice(chunk);
            self.seq = self.seq.wrapping_add(1);
            last_len = chunk.len();
        }
        if last_len == MAX_CHUNK {
            self.buf.extend_from_slice(&header(0, self.seq));
            self.seq = self.seq.wrapping_add(1);
        }
    }

    /// Appends a whole packet.
    pub fn push(&mut self, payload: &[u8]) {
        self.begin().extend_from_slice(payload);
        self.end();
    }

    /// Sequence id of the next packet.
    pub fn seq(&self) -> u8 {
        self.seq
    }

    /// Framed bytes so far (headers included).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True if no packet has been added.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The framed bytes (for tests and raw writers).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Current position, to undo a partly written response.
    pub fn mark(&mut self) -> OutboxMark {
        self.end();
        OutboxMark {
            len: self.buf.len(),
            seq: self.seq,
        }
    }

    /// Drops every packet and continues at sequence id `seq` (after the
    /// packets were sent some other way, as LOCAL INFILE does).
    pub fn restart(&mut self, seq: u8) {
        self.open = None;
        self.buf.clear();
        self.seq = seq;
    }

    /// Drops every packet added after `mark`.
    pub fn rollback(&mut self, mark: OutboxMark) {
        self.open = None;
        self.buf.truncate(mark.len);
        self.seq = mark.seq;
    }
}

fn header(len: usize, seq: u8) -> [u8; 4] {
    let len = len as u32;
    [len as u8, (len >> 8) as u8, (len >> 16) as u8, seq]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
    }

    #[test]
    fn small_packets_get_consecutive_ids() {
        let mut out = Outbox::new(3);
        out.push(b"abc");
        out.push(b"");
        assert_eq!(out.as_bytes(), b"\x03\x00\x00\x03abc\x00\x00\x00\x04");
        assert_eq!(out.seq(), 5);
    }

    #[test]
    fn large_payload_round_trips_through_split_and_join() -> Result<(), WireError> {
        for size in [MAX_CHUNK - 1, MAX_CHUNK, MAX_CHUNK + 7, 2 * MAX_CHUNK] {
            let payload: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            let mut out = Outbox::new(0);
            out.push(&payload);
            let chunks = size / MAX_CHUNK + 1;
            assert_eq!(out.len(), size + 4 * chunks, "size {size}");
            assert_eq!(out.seq() as usize, chunks);
            let (client, server) = tokio::io::duplex(1 << 20);
            let bytes = out.as_bytes().to_vec();
            let mut read = Vec::new();
            rt().block_on(async {
                let writer = tokio::spawn(async move {
                    let mut client = client;
                    client.write_all(&bytes).await?;
                    Ok::<_, std::io::Error>(client)
                });
                let mut stream = PacketStream::new(server, 64 << 20);
                stream.read_packet(&mut read).await?;
                assert_eq!(stream.seq() as usize, chunks);
                let _client = writer
                    .await
                    .map_err(|e| WireError::Malformed(e.to_string()))??;
                Ok::<_, WireError>(())
            })?;
            assert!(read == payload, "payload of {size} bytes differs");
        }
        Ok(())
    }

    #[test]
    fn oversized_packet_is_drained_and_refused() -> Result<(), WireError> {
        let mut out = Outbox::new(0);
        out.push(&vec![7u8; 5000]);
        out.push(b"\x0e");
        let bytes = out.as_bytes().to_vec();
        rt().block_on(async {
            let (mut client, server) = tokio::io::duplex(1 << 16);
            client.write_all(&bytes).await?;
            let mut stream = PacketStream::new(server, 1000);
            let mut buf = Vec::new();
            match stream.read_packet(&mut buf).await {
                Err(WireError::PacketTooLarge { size, max }) => {
                    assert_eq!((size, max), (5000, 1000));
                }
                other => panic!("expected PacketTooLarge, got {other:?}"),
            }
            // The next packet is intact: the oversized one was fully drained.
            stream.read_packet(&mut buf).await?;
            assert_eq!(buf, b"\x0e");
            Ok(())
        })
    }

    #[test]
    fn wrong_sequence_id_is_rejected() {
        let result = rt().block_on(async {
            let (mut client, server) = tokio::io::duplex(64);
            client.write_all(b"\x01\x00\x00\x05\x0e").await?;
            let mut stream = PacketStream::new(server, 1000);
            let mut buf = Vec::new();
            stream.read_packet(&mut buf).await
        });
        assert!(matches!(
            result,
            Err(WireError::OutOfOrder {
                expected: 0,
                got: 5
            })
        ));
    }

    #[test]
    fn eof_between_packets_is_closed() {
        let result = rt().block_on(async {
            let (client, server) = tokio::io::duplex(64);
            drop(client);
            let mut stream = PacketStream::new(server, 1000);
            let mut buf = Vec::new();
            stream.read_packet(&mut buf).await
        });
        assert!(matches!(result, Err(WireError::Closed)));
    }

    #[test]
    fn rollback_restores_position_and_sequence() {
        let mut out = Outbox::new(1);
        out.push(b"keep");
        let mark = out.mark();
        out.push(b"drop me");
        out.begin().extend_from_slice(b"open");
        out.rollback(mark);
        assert_eq!(out.seq(), 2);
        assert_eq!(out.as_bytes(), b"\x04\x00\x00\x01keep");
    }
}
