//! Client byte streams for the `wire` target: valid exchanges with random
//! fields ([`exchange`]), the seed inputs, the dictionary, and the
//! mutation that changes one packet and frames the stream again
//! ([`mutate_framed`]).
//!
//! An exchange is a handshake response (sometimes after an SSL request,
//! sometimes followed by an auth-switch answer) and then commands, each
//! starting a new sequence at 0. The generator tracks the statement ids
//! the server hands out (1, 2, ... per connection) and each statement's
//! parameter count, so most executions reach parameter decoding.

use rand::rngs::StdRng;
use rand::Rng;

/// Capability bits (as the protocol numbers them).
mod caps {
    pub const LONG_PASSWORD: u32 = 0x1;
    pub const FOUND_ROWS: u32 = 0x2;
    pub const CONNECT_WITH_DB: u32 = 0x8;
    pub const LOCAL_FILES: u32 = 0x80;
    pub const PROTOCOL_41: u32 = 0x200;
    pub const SSL: u32 = 0x800;
    pub const TRANSACTIONS: u32 = 0x2000;
    pub const SECURE_CONNECTION: u32 = 0x8000;
    pub const MULTI_STATEMENTS: u32 = 0x1_0000;
    pub const MULTI_RESULTS: u32 = 0x2_0000;
    pub const PS_MULTI_RESULTS: u32 = 0x4_0000;
    pub const PLUGIN_AUTH: u32 = 0x8_0000;
    pub const CONNECT_ATTRS: u32 = 0x10_0000;
    pub const PLUGIN_AUTH_LENENC: u32 = 0x20_0000;
    pub const DEPRECATE_EOF: u32 = 0x100_0000;
}

/// Tokens for the byte mutations: command codes, type codes, length
/// prefixes, plugin names, the empty string.
pub const DICTIONARY: [&[u8]; 22] = [
    b"\x00",
    b"\xfb",
    b"\xfc\xff\xff",
    b"\xfd\xff\xff\xff",
    b"\xfe\xff\xff\xff\xff\xff\xff\xff\xff",
    b"\xff\xff\xff",
    b"\xff\xff\xff\x00",
    b"\x00\x00\x00\x00",
    b"\x01\x00\x00\x00",
    b"\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00",
    b"\x16SELECT ?",
    b"\x11root\x00\x00",
    b"mysql_native_password\x00",
    b"caching_sha2_password\x00",
    b"root\x00",
    b"\x0a",
    b"\x0b",
    b"\x0c",
    b"\xf6",
    b"\xfe",
    b"\x03LOAD",
    b"\x03SELECT 1",
];

/// Appends one packet (header and payload).
fn packet(out: &mut Vec<u8>, seq: u8, payload: &[u8]) {
    let len = payload.len().min(0xff_ffff) as u32;
    out.extend_from_slice(&len.to_le_bytes()[..3]);
    out.push(seq);
    out.extend_from_slice(&payload[..len as usize]);
}

/// Appends a length-encoded integer.
fn lenenc_int(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=0xfa => out.push(v as u8),
        0xfb..=0xffff => {
            out.push(0xfc);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..=0xff_ffff => {
            out.push(0xfd);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xfe);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    lenenc_int(out, s.len() as u64);
    out.extend_from_slice(s);
}

fn random_bytes(rng: &mut StdRng, max: usize) -> Vec<u8> {
    let n = rng.random_range(0..=max);
    (0..n).map(|_| rng.random()).collect()
}

fn pick<'a>(rng: &mut StdRng, v: &[&'a [u8]]) -> &'a [u8] {
    v[rng.random_range(0..v.len())]
}

/// The handshake response for capabilities `client_caps`, naming `plugin`.
fn handshake_response(rng: &mut StdRng, client_caps: u32, user: &[u8], plugin: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&client_caps.to_le_bytes());
    p.extend_from_slice(&rng.random_range(0u32..=(64 << 20)).to_le_bytes());
    p.push(
        *[8u8, 33, 45, 63, 224, 0, 255]
            .get(rng.random_range(0..7))
            .unwrap_or(&45),
    );
    p.extend_from_slice(&[0u8; 23]);
    p.extend_from_slice(user);
    p.push(0);
    let auth: Vec<u8> = if rng.random_bool(0.9) {
        Vec::new()
    } else {
        random_bytes(rng, 40)
    };
    if client_caps & caps::PLUGIN_AUTH_LENENC != 0 {
        lenenc_str(&mut p, &auth);
    } else if client_caps & caps::SECURE_CONNECTION != 0 {
        p.push(auth.len() as u8);
        p.extend_from_slice(&auth);
    } else {
        p.extend_from_slice(&auth);
        p.push(0);
    }
    if client_caps & caps::CONNECT_WITH_DB != 0 {
        p.extend_from_slice(pick(rng, &[b"test", b"nodb", b"", b"x\xffy"]));
        p.push(0);
    }
    if client_caps & caps::PLUGIN_AUTH != 0 {
        p.extend_from_slice(plugin);
        p.push(0);
    }
    if client_caps & caps::CONNECT_ATTRS != 0 {
        let mut attrs = Vec::new();
        for _ in 0..rng.random_range(0..4) {
            lenenc_str(
                &mut attrs,
                pick(rng, &[b"_client_name", b"program_name", b"", b"\xff"]),
            );
            let v = random_bytes(rng, 20);
            lenenc_str(&mut attrs, &v);
        }
        lenenc_str(&mut p, &attrs);
    }
    p
}

/// A random capability set, mostly with what every 4.1 client sends.
fn client_caps(rng: &mut StdRng) -> u32 {
    let mut c = caps::PROTOCOL_41 | caps::SECURE_CONNECTION | caps::LONG_PASSWORD;
    for (bit, p) in [
        (caps::FOUND_ROWS, 0.2),
        (caps::CONNECT_WITH_DB, 0.3),
        (caps::LOCAL_FILES, 0.6),
        (caps::TRANSACTIONS, 0.8),
        (caps::MULTI_STATEMENTS, 0.5),
        (caps::MULTI_RESULTS, 0.7),
        (caps::PS_MULTI_RESULTS, 0.5),
        (caps::PLUGIN_AUTH, 0.8),
        (caps::CONNECT_ATTRS, 0.4),
        (caps::PLUGIN_AUTH_LENENC, 0.4),
        (caps::DEPRECATE_EOF, 0.5),
    ] {
        if rng.random_bool(p) {
            c |= bit;
        }
    }
    if rng.random_bool(0.05) {
        c &= !caps::PROTOCOL_41;
    }
    if rng.random_bool(0.05) {
        c &= !caps::SECURE_CONNECTION;
    }
    if rng.random_bool(0.03) {
        c = rng.random();
    }
    c
}

/// One binary-protocol parameter value of type `ty` (after the type code).
fn param_value(rng: &mut StdRng, ty: u8, out: &mut Vec<u8>) {
    match ty {
        0x01 => out.push(rng.random()),
        0x02 | 0x0d => out.extend_from_slice(&rng.random::<u16>().to_le_bytes()),
        0x03 | 0x09 | 0x04 => out.extend_from_slice(&rng.random::<u32>().to_le_bytes()),
        0x08 | 0x05 => out.extend_from_slice(&rng.random::<u64>().to_le_bytes()),
        0x06 => {}
        0x07 | 0x0a | 0x0c => {
            let len = [0u8, 4, 7, 11, 3, 12][rng.random_range(0..6)];
            out.push(len);
            let year: u16 = rng.random_range(0..=10_000);
            let fields = [
                year.to_le_bytes()[0],
                year.to_le_bytes()[1],
                rng.random_range(0..=13),
                rng.random_range(0..=32),
                rng.random_range(0..=25),
                rng.random_range(0..=61),
                rng.random_range(0..=61),
            ];
            let micros = rng.random_range(0u32..=1_100_000).to_le_bytes();
            let all: Vec<u8> = fields.iter().chain(micros.iter()).copied().collect();
            out.extend((0..usize::from(len)).map(|i| all.get(i).copied().unwrap_or(0)));
        }
        0x0b => {
            let len = [0u8, 8, 12, 5, 13][rng.random_range(0..5)];
            out.push(len);
            let days = rng.random_range(0u32..=40).to_le_bytes();
            let mut all = vec![rng.random_range(0..=2)];
            all.extend_from_slice(&days);
            all.extend_from_slice(&[
                rng.random_range(0..=25),
                rng.random_range(0..=61),
                rng.random_range(0..=61),
            ]);
            all.extend_from_slice(&rng.random_range(0u32..=1_100_000).to_le_bytes());
            out.extend((0..usize::from(len)).map(|i| all.get(i).copied().unwrap_or(0)));
        }
        _ => {
            let text: Vec<u8> = if ty == 0xf6 {
                pick(
                    rng,
                    &[
                        b"1.5",
                        b"-0",
                        b"1e400",
                        b"abc",
                        b"",
                        b"99999999999999999999999.9",
                    ],
                )
                .to_vec()
            } else {
                random_bytes(rng, 24)
            };
            lenenc_str(out, &text);
        }
    }
}

const PARAM_TYPES: [u8; 24] = [
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10, 0xf5,
    0xf6, 0xf7, 0xf8, 0xfc, 0xfd, 0xfe, 0xff, 0x14,
];

/// The body of a COM_STMT_EXECUTE of statement `id` with `params` parameters.
fn execute_body(rng: &mut StdRng, id: u32, params: u16) -> Vec<u8> {
    let mut p = vec![0x17];
    p.extend_from_slice(&id.to_le_bytes());
    p.push(if rng.random_bool(0.9) {
        0
    } else {
        rng.random()
    });
    p.extend_from_slice(&1u32.to_le_bytes());
    let n = usize::from(params);
    if n == 0 && rng.random_bool(0.8) {
        return p;
    }
    let nulls: Vec<bool> = (0..n).map(|_| rng.random_bool(0.15)).collect();
    let mut bitmap = vec![0u8; n.div_ceil(8)];
    for (i, &null) in nulls.iter().enumerate() {
        if null {
            bitmap[i / 8] |= 1 << (i % 8);
        }
    }
    p.extend_from_slice(&bitmap);
    let send_types = rng.random_bool(0.85);
    p.push(u8::from(send_types));
    let types: Vec<u8> = (0..n)
        .map(|_| PARAM_TYPES[rng.random_range(0..PARAM_TYPES.len())])
        .collect();
    if send_types {
        for &t in &types {
            p.push(t);
            p.push(if rng.random_bool(0.2) { 0x80 } else { 0 });
        }
    }
    for (i, &t) in types.iter().enumerate() {
        if !nulls[i] {
            param_value(rng, t, &mut p);
        }
    }
    p
}

/// A valid client exchange with random fields (see the module documentation).
pub fn exchange(rng: &mut StdRng) -> Vec<u8> {
    let mut out = Vec::new();
    let caps = client_caps(rng);
    let mut seq = 1u8;
    if rng.random_bool(0.03) {
        let mut ssl = Vec::new();
        ssl.extend_from_slice(&(caps | caps::SSL).to_le_bytes());
        ssl.extend_from_slice(&(16u32 << 20).to_le_bytes());
        ssl.push(45);
        ssl.extend_from_slice(&[0u8; 23]);
        packet(&mut out, seq, &ssl);
        seq += 1;
    }
    let user = pick(
        rng,
        &[
            b"root", b"root", b"root", b"root", b"sha", b"sha", b"nobody", b"",
        ],
    );
    // The plugin of the account, mostly; another one costs an auth switch,
    // answered (empty password) with an empty packet.
    let own: &[u8] = if user == b"sha" {
        b"caching_sha2_password"
    } else {
        b"mysql_native_password"
    };
    let plugin = if rng.random_bool(0.8) {
        own
    } else {
        pick(
            rng,
            &[
                b"mysql_native_password",
                b"caching_sha2_password",
                b"mysql_clear_password",
                b"",
            ],
        )
    };
    let response = handshake_response(rng, caps, user, plugin);
    packet(&mut out, seq, &response);
    let switched = caps & caps::PLUGIN_AUTH == 0 || plugin != own;
    if (switched && rng.random_bool(0.9)) || rng.random_bool(0.03) {
        packet(&mut out, seq + 2, &[]);
    }
    // Statement ids the server will hand out, with their parameter counts.
    let mut statements: Vec<u16> = Vec::new();
    for _ in 0..rng.random_range(0..12) {
        command(rng, caps, &mut statements, &mut out);
    }
    if rng.random_bool(0.5) {
        packet(&mut out, 0, &[0x01]);
    }
    out
}

/// Appends one command (and, for LOAD, the file the client sends).
fn command(rng: &mut StdRng, caps: u32, statements: &mut Vec<u16>, out: &mut Vec<u8>) {
    let stmt_id = |rng: &mut StdRng, statements: &Vec<u16>| -> u32 {
        if statements.is_empty() || rng.random_bool(0.05) {
            rng.random_range(0..4)
        } else {
            rng.random_range(1..=statements.len() as u32)
        }
    };
    let mut p = Vec::new();
    match rng.random_range(0..19) {
        0 | 1 => {
            p.push(0x03);
            p.extend_from_slice(pick(
                rng,
                &[
                    b"SELECT 1",
                    b"DO 1",
                    b"ERR",
                    b"SELECT 1; SELECT 2",
                    b"",
                    b"SELECT \xff",
                ],
            ));
        }
        2 => {
            p.push(0x03);
            p.extend_from_slice(b"LOAD DATA LOCAL INFILE 'x' INTO TABLE t");
            packet(out, 0, &p);
            if caps & caps::LOCAL_FILES != 0 {
                let mut seq = 2u8;
                for _ in 0..rng.random_range(0..4) {
                    packet(out, seq, &random_bytes(rng, 100));
                    seq = seq.wrapping_add(1);
                }
                packet(out, seq, &[]);
            }
            return;
        }
        3 => p.push(0x0e),
        4 => p.push(0x09),
        5 => {
            p.push(0x02);
            p.extend_from_slice(pick(rng, &[b"test", b"nodb", b"", b"\xff\xfe"]));
        }
        6 => {
            p.push(0x04);
            p.extend_from_slice(pick(rng, &[b"t\x00", b"t\x00%", b"", b"\x00\x00"]));
        }
        7 => {
            p.push(0x0c);
            let id: u32 = pick(rng, &[b"\x00", b"\x01", b"\x7f", b"\xff"])[0].into();
            let len = if rng.random_bool(0.9) {
                4
            } else {
                rng.random_range(0..4)
            };
            p.extend_from_slice(&id.to_le_bytes()[..len]);
        }
        8 | 9 => {
            p.push(0x16);
            let params = rng.random_range(0u16..=6);
            let head: &[u8] = if rng.random_bool(0.7) {
                b"SELECT"
            } else {
                b"INSERT"
            };
            p.extend_from_slice(head);
            for _ in 0..params {
                p.extend_from_slice(b" ?");
            }
            statements.push(params);
        }
        10..=12 => {
            let id = stmt_id(rng, statements);
            let params = statements
                .get((id as usize).wrapping_sub(1))
                .copied()
                .unwrap_or(1);
            p = execute_body(rng, id, params);
        }
        13 => {
            p.push(0x18);
            p.extend_from_slice(&stmt_id(rng, statements).to_le_bytes());
            p.extend_from_slice(&rng.random_range(0u16..=6).to_le_bytes());
            p.extend_from_slice(&random_bytes(rng, 40));
            packet(out, 0, &p);
            // No response: the next command follows directly.
            return;
        }
        14 => {
            p.push(
                *[0x19u8, 0x1a, 0x1c]
                    .get(rng.random_range(0..3))
                    .unwrap_or(&0x19),
            );
            p.extend_from_slice(&stmt_id(rng, statements).to_le_bytes());
            if rng.random_bool(0.3) {
                p.extend_from_slice(&1u32.to_le_bytes());
            }
        }
        15 => {
            p.push(0x1b);
            p.extend_from_slice(&rng.random_range(0u16..=2).to_le_bytes());
        }
        16 => {
            p.push(if rng.random_bool(0.5) { 0x07 } else { 0x1f });
            p.push(rng.random());
        }
        17 => {
            p.push(0x11);
            p.extend_from_slice(pick(rng, &[b"root", b"sha", b"nobody"]));
            p.push(0);
            p.push(0);
            p.extend_from_slice(pick(rng, &[b"test", b"", b"nodb"]));
            p.push(0);
            if rng.random_bool(0.8) {
                p.extend_from_slice(&45u16.to_le_bytes());
                p.extend_from_slice(b"mysql_native_password\x00");
                if rng.random_bool(0.3) {
                    let attrs = random_bytes(rng, 10);
                    lenenc_str(&mut p, &attrs);
                }
            }
            statements.clear();
        }
        _ => {
            p.push(rng.random());
            p.extend_from_slice(&random_bytes(rng, 8));
        }
    }
    packet(out, 0, &p);
}

/// Splits a stream into (sequence id, payload) packets while the headers
/// hold; returns them and whatever follows the last whole packet.
fn split_packets(input: &[u8]) -> (Vec<(u8, Vec<u8>)>, Vec<u8>) {
    let mut packets = Vec::new();
    let mut pos = 0;
    while let Some(header) = input.get(pos..pos + 4) {
        let len =
            usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
        let Some(payload) = input.get(pos + 4..pos + 4 + len) else {
            break;
        };
        packets.push((header[3], payload.to_vec()));
        pos += 4 + len;
    }
    (packets, input[pos..].to_vec())
}

/// Changes one packet of a framed stream (its payload, its sequence id,
/// or its presence) and frames everything again with true lengths.
/// False when the input holds no whole packet.
pub fn mutate_framed(input: &mut Vec<u8>, rng: &mut StdRng) -> bool {
    let (mut packets, tail) = split_packets(input);
    if packets.is_empty() {
        return false;
    }
    let i = rng.random_range(0..packets.len());
    match rng.random_range(0..6) {
        0 => {
            packets.remove(i);
        }
        1 => {
            let copy = packets[i].clone();
            let to = rng.random_range(0..=packets.len());
            packets.insert(to, copy);
        }
        2 => packets[i].0 = packets[i].0.wrapping_add(rng.random_range(1..=3)),
        _ => {
            let payload = &mut packets[i].1;
            crate::mutate::mutate(payload, rng, &[], &DICTIONARY, 3);
        }
    }
    input.clear();
    for (seq, payload) in &packets {
        packet(input, *seq, payload);
    }
    input.extend_from_slice(&tail);
    true
}

/// Seed inputs: typical exchanges of real clients.
pub fn seeds() -> Vec<Vec<u8>> {
    let base = caps::PROTOCOL_41
        | caps::SECURE_CONNECTION
        | caps::LONG_PASSWORD
        | caps::TRANSACTIONS
        | caps::MULTI_STATEMENTS
        | caps::MULTI_RESULTS
        | caps::PLUGIN_AUTH
        | caps::LOCAL_FILES;
    let mut login = Vec::new();
    login.extend_from_slice(&base.to_le_bytes());
    login.extend_from_slice(&(16u32 << 20).to_le_bytes());
    login.push(45);
    login.extend_from_slice(&[0u8; 23]);
    login.extend_from_slice(b"root\x00\x00mysql_native_password\x00");
    let mut seeds = Vec::new();
    // Login, a query, a prepared statement executed with an INT and a
    // string, long data, close, quit.
    let mut s = Vec::new();
    packet(&mut s, 1, &login);
    packet(&mut s, 0, b"\x03SELECT 1");
    packet(&mut s, 0, b"\x16SELECT ? ?");
    let mut exec = vec![
        0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 0x01, 0x03, 0x00, 0xfd, 0x00,
    ];
    exec.extend_from_slice(&7u32.to_le_bytes());
    exec.extend_from_slice(b"\x03abc");
    packet(&mut s, 0, &exec);
    packet(&mut s, 0, b"\x18\x01\x00\x00\x00\x01\x00long data");
    packet(
        &mut s,
        0,
        &[
            0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ],
    );
    packet(&mut s, 0, b"\x19\x01\x00\x00\x00");
    packet(&mut s, 0, b"\x01");
    seeds.push(s);
    // LOAD DATA LOCAL with a two-packet file.
    let mut s = Vec::new();
    packet(&mut s, 1, &login);
    packet(&mut s, 0, b"\x03LOAD DATA LOCAL INFILE 'x' INTO TABLE t");
    packet(&mut s, 2, b"1\t2\n");
    packet(&mut s, 3, b"3\t4\n");
    packet(&mut s, 4, b"");
    packet(&mut s, 0, b"\x0e");
    seeds.push(s);
    // COM_CHANGE_USER, then a temporal parameter.
    let mut s = Vec::new();
    packet(&mut s, 1, &login);
    packet(
        &mut s,
        0,
        b"\x11sha\x00\x00test\x00\x2d\x00mysql_native_password\x00",
    );
    packet(&mut s, 0, b"\x16SELECT ?");
    packet(
        &mut s,
        0,
        &[
            0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 0x01, 0x0c, 0x00, 7, 0xe8, 0x07, 2, 29, 1, 2, 3,
        ],
    );
    seeds.push(s);
    seeds
}
