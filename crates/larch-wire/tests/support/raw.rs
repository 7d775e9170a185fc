//! A minimal blocking client that speaks raw packets, for exchanges that
//! real client libraries do not produce (executes without re-sent types,
//! long data on small values, bad sequence ids, `COM_SET_OPTION`, ...).

use mysql_common::constants::CapabilityFlags;
use mysql_common::io::{BufMutExt, ParseBuf};
use mysql_common::packets::{AuthPlugin, HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Client capabilities sent by default.
pub fn default_caps() -> CapabilityFlags {
    CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_MULTI_STATEMENTS
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
}

pub struct RawClient {
    pub stream: TcpStream,
    pub seq: u8,
    /// Connection id from the server greeting (after `login`).
    pub connection_id: u32,
}

impl RawClient {
    /// Opens a TCP connection without logging in.
    pub fn open(addr: std::net::SocketAddr) -> Res<Self> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_secs(20)))?;
        stream.set_nodelay(true)?;
        Ok(RawClient {
            stream,
            seq: 0,
            connection_id: 0,
        })
    }

    /// Connects and logs in with `mysql_native_password`.
    pub fn login(
        addr: std::net::SocketAddr,
        user: &str,
        pass: &str,
        caps: CapabilityFlags,
    ) -> Res<Self> {
        let mut c = Self::open(addr)?;
        let greeting = c.read()?;
        let handshake: HandshakePacket<'_> = ParseBuf(&greeting).parse(())?;
        let mut nonce = handshake.scramble_1_ref().to_vec();
        nonce.extend_from_slice(handshake.scramble_2_ref().unwrap_or(&[]));
        nonce.truncate(20);
        c.connection_id = handshake.connection_id();
        let scramble = mysql_common::scramble::scramble_native(&nonce, pass.as_bytes())
            .map(|s| s.to_vec())
            .unwrap_or_default();
        let response = HandshakeResponse::new(
            Some(scramble),
            (8, 0, 0),
            Some(user.as_bytes()),
            None::<&[u8]>,
            Some(AuthPlugin::MysqlNativePassword),
            caps,
            None,
            16 << 20,
        );
        let mut buf = Vec::new();
        response.serialize(&mut buf);
        c.write(&buf)?;
        let reply = c.read()?;
        if reply.first() != Some(&0x00) {
            return Err(format!("login failed: {reply:?}").into());
        }
        Ok(c)
    }

    /// Writes one packet (split at 16 MiB) with the next sequence id.
    pub fn write(&mut self, payload: &[u8]) -> Res<()> {
        let mut framed = Vec::with_capacity(payload.len() + 8);
        let chunks = payload.chunks(0xFF_FFFF);
        if payload.is_empty() {
            framed.extend_from_slice(&[0, 0, 0, self.seq]);
            self.seq = self.seq.wrapping_add(1);
        }
        let mut last = 0;
        for chunk in chunks {
            let len = chunk.len() as u32;
            framed.extend_from_slice(&[len as u8, (len >> 8) as u8, (len >> 16) as u8, self.seq]);
            framed.extend_from_slice(chunk);
            self.seq = self.seq.wrapping_add(1);
            last = chunk.len();
        }
        if last == 0xFF_FFFF {
            framed.extend_from_slice(&[0, 0, 0, self.seq]);
            self.seq = self.seq.wrapping_add(1);
        }
        self.stream.write_all(&framed)?;
        Ok(())
    }

    /// Writes a raw header + payload with an explicit sequence id.
    pub fn write_with_seq(&mut self, seq: u8, payload: &[u8]) -> Res<()> {
        let len = payload.len() as u32;
        let mut framed = vec![len as u8, (len >> 8) as u8, (len >> 16) as u8, seq];
        framed.extend_from_slice(payload);
        self.stream.write_all(&framed)?;
        Ok(())
    }

    /// Sends a command (sequence restarts at 0).
    pub fn command(&mut self, payload: &[u8]) -> Res<()> {
        self.seq = 0;
        self.write(payload)
    }

    /// Reads one logical packet, checking the sequence id.
    pub fn read(&mut self) -> Res<Vec<u8>> {
        let mut payload = Vec::new();
        loop {
            let mut header = [0u8; 4];
            self.stream.read_exact(&mut header)?;
            let len =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            if header[3] != self.seq {
                return Err(format!("server sent seq {}, expected {}", header[3], self.seq).into());
            }
            self.seq = self.seq.wrapping_add(1);
            let start = payload.len();
            payload.resize(start + len, 0);
            self.stream.read_exact(&mut payload[start..])?;
            if len < 0xFF_FFFF {
                return Ok(payload);
            }
        }
    }

    /// True if the server closed the connection (EOF on read).
    pub fn is_closed(&mut self) -> bool {
        let mut b = [0u8; 1];
        matches!(self.stream.read(&mut b), Ok(0) | Err(_))
    }

    /// Reads packets up to and including an EOF/OK terminator or ERR;
    /// `deprecate_eof` selects the terminator form. Returns all packets.
    pub fn read_result_set(&mut self, deprecate_eof: bool) -> Res<Vec<Vec<u8>>> {
        let mut packets = vec![self.read()?];
        if matches!(packets[0].first(), Some(0x00) | Some(0xff)) {
            return Ok(packets);
        }
        let columns = ParseBuf(&packets[0]).eat_lenenc_int() as usize;
        for _ in 0..columns {
            packets.push(self.read()?);
        }
        if !deprecate_eof {
            packets.push(self.read()?); // EOF after definitions
        }
        loop {
            let p = self.read()?;
            let end = (p.first() == Some(&0xfe) && p.len() < 0xFF_FFFF) || p.first() == Some(&0xff);
            packets.push(p);
            if end {
                return Ok(packets);
            }
        }
    }
}

/// Parses an ERR payload into (code, sqlstate, message).
pub fn parse_err(p: &[u8]) -> Option<(u16, String, String)> {
    if p.first() != Some(&0xff) || p.len() < 9 || p[3] != b'#' {
        return None;
    }
    Some((
        u16::from_le_bytes([p[1], p[2]]),
        String::from_utf8_lossy(&p[4..9]).into_owned(),
        String::from_utf8_lossy(&p[9..]).into_owned(),
    ))
}

/// Builds a `COM_STMT_EXECUTE` payload. `types` None sends
/// `new_params_bound_flag = 0`; `values` are pre-encoded bytes (None = NULL).
pub fn execute_payload(
    stmt_id: u32,
    types: Option<&[(u8, u8)]>,
    values: &[Option<Vec<u8>>],
) -> Vec<u8> {
    let mut p = vec![0x17];
    p.extend_from_slice(&stmt_id.to_le_bytes());
    p.push(0); // no cursor
    p.extend_from_slice(&1u32.to_le_bytes());
    if !values.is_empty() {
        let mut bitmap = vec![0u8; values.len().div_ceil(8)];
        for (i, v) in values.iter().enumerate() {
            if v.is_none() {
                bitmap[i / 8] |= 1 << (i % 8);
            }
        }
        p.extend_from_slice(&bitmap);
        match types {
            Some(types) => {
                p.push(1);
                for &(t, f) in types {
                    p.extend_from_slice(&[t, f]);
                }
            }
            None => p.push(0),
        }
        for v in values.iter().flatten() {
            p.extend_from_slice(v);
        }
    }
    p
}

/// Length-encoded string bytes.
pub fn lenenc_str(s: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    v.put_lenenc_str(s);
    v
}

/// Reads the lenenc string cells of a text row.
pub fn text_row(p: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut buf = ParseBuf(p);
    let mut cells = Vec::new();
    while !buf.0.is_empty() {
        if buf.0[0] == 0xfb {
            buf.eat_u8();
            cells.push(None);
        } else {
            cells.push(buf.checked_eat_lenenc_str().map(<[u8]>::to_vec));
        }
    }
    cells
}
