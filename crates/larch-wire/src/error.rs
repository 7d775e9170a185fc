//! Errors of the protocol crate, and the one place where they become MySQL
//! error packets.
//!
//! Two types live here:
//!
//! - [`MysqlError`]: what a client sees in an ERR packet: error code,
//!   SQLSTATE and message. The SQL layer returns these from its
//!   [`SqlSession`](crate::SqlSession) methods; the constructors below build
//!   the protocol-level ones with MySQL's exact codes and wording.
//! - [`WireError`]: why a connection stopped (I/O failure, a malformed or
//!   oversized packet, ...). [`WireError::client_error`] maps each kind to the
//!   ERR packet sent before closing, when there is one to send.

use std::fmt;

/// MySQL error codes used by the protocol layer (names as in MySQL's
/// `mysqld_error.h`).
pub mod codes {
    /// `ER_HANDSHAKE_ERROR`: "Bad handshake" (08S01).
    pub const ER_HANDSHAKE_ERROR: u16 = 1043;
    /// `ER_ACCESS_DENIED_ERROR` (28000).
    pub const ER_ACCESS_DENIED_ERROR: u16 = 1045;
    /// `ER_NO_DB_ERROR`: "No database selected" (3D000).
    pub const ER_NO_DB_ERROR: u16 = 1046;
    /// `ER_UNKNOWN_COM_ERROR`: "Unknown command" (08S01).
    pub const ER_UNKNOWN_COM_ERROR: u16 = 1047;
    /// `ER_BAD_DB_ERROR`: "Unknown database '%s'" (42000).
    pub const ER_BAD_DB_ERROR: u16 = 1049;
    /// `ER_PARSE_ERROR` (42000).
    pub const ER_PARSE_ERROR: u16 = 1064;
    /// `ER_EMPTY_QUERY`: "Query was empty" (42000).
    pub const ER_EMPTY_QUERY: u16 = 1065;
    /// `ER_NO_SUCH_THREAD`: "Unknown thread id: %lu" (HY000).
    pub const ER_NO_SUCH_THREAD: u16 = 1094;
    /// `ER_UNKNOWN_ERROR`: "Unknown error" (HY000).
    pub const ER_UNKNOWN_ERROR: u16 = 1105;
    /// `ER_NET_PACKET_TOO_LARGE` (08S01).
    pub const ER_NET_PACKET_TOO_LARGE: u16 = 1153;
    /// `ER_NET_PACKETS_OUT_OF_ORDER` (08S01).
    pub const ER_NET_PACKETS_OUT_OF_ORDER: u16 = 1156;
    /// `ER_WRONG_ARGUMENTS`: "Incorrect arguments to %s" (HY000).
    pub const ER_WRONG_ARGUMENTS: u16 = 1210;
    /// `ER_UNKNOWN_STMT_HANDLER` (HY000).
    pub const ER_UNKNOWN_STMT_HANDLER: u16 = 1243;
    /// `ER_NOT_SUPPORTED_AUTH_MODE` (08004).
    pub const ER_NOT_SUPPORTED_AUTH_MODE: u16 = 1251;
    /// `ER_INVALID_CHARACTER_STRING` (HY000).
    pub const ER_INVALID_CHARACTER_STRING: u16 = 1300;
    /// `ER_QUERY_INTERRUPTED`: "Query execution was interrupted" (70100).
    pub const ER_QUERY_INTERRUPTED: u16 = 1317;
    /// `ER_MALFORMED_PACKET`: "Malformed communication packet" (HY000).
    pub const ER_MALFORMED_PACKET: u16 = 1835;
    /// `ER_CON_COUNT_ERROR`: "Too many connections" (08004).
    pub const ER_CON_COUNT_ERROR: u16 = 1040;
    /// `ER_HOST_IS_BLOCKED` (HY000).
    pub const ER_HOST_IS_BLOCKED: u16 = 1129;
    /// `ER_TOO_MANY_USER_CONNECTIONS` (42000).
    pub const ER_TOO_MANY_USER_CONNECTIONS: u16 = 1203;
    /// `ER_USER_LIMIT_REACHED` (42000).
    pub const ER_USER_LIMIT_REACHED: u16 = 1226;
}

/// An error as the client sees it: code, SQLSTATE and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MysqlError {
    /// MySQL error number (`ER_*`).
    pub code: u16,
    /// Five-character SQLSTATE.
    pub sql_state: [u8; 5],
    /// Human-readable message (sent as UTF-8).
    pub message: String,
}

impl MysqlError {
    /// An error with an explicit code, SQLSTATE (5 ASCII characters; anything
    /// else becomes `HY000`) and message.
    pub fn new(code: u16, sql_state: &str, message: impl Into<String>) -> Self {
        let sql_state = match <[u8; 5]>::try_from(sql_state.as_bytes()) {
            Ok(state) if state.iter().all(u8::is_ascii_alphanumeric) => state,
            _ => *b"HY000",
        };
        MysqlError {
            code,
            sql_state,
            message: message.into(),
        }
    }

    /// The SQLSTATE as a string.
    pub fn sql_state_str(&self) -> &str {
        std::str::from_utf8(&self.sql_state).unwrap_or("HY000")
    }

    /// ER 1040 "Too many connections" (08004).
    pub fn too_many_connections() -> Self {
        MysqlError::new(codes::ER_CON_COUNT_ERROR, "08004", "Too many connections")
    }

    /// ER 1129: the host has had `max_connect_errors` connection errors.
    pub fn host_blocked(host: &str) -> Self {
        MysqlError::new(
            codes::ER_HOST_IS_BLOCKED,
            "HY000",
            format!(
                "Host '{host}' is blocked because of many connection errors; unblock with \
                 'mariadb-admin flush-hosts'"
            ),
        )
    }

    /// ER 1203: the global `max_user_connections` is reached.
    pub fn too_many_user_connections(user: &str) -> Self {
        MysqlError::new(
            codes::ER_TOO_MANY_USER_CONNECTIONS,
            "42000",
            format!("User {user} already has more than 'max_user_connections' active connections"),
        )
    }

    /// ER 1226: an account's resource limit is reached.
    pub fn user_limit_reached(user: &str, resource: &str, value: i64) -> Self {
        MysqlError::new(
            codes::ER_USER_LIMIT_REACHED,
            "42000",
            format!(
                "User '{user}' has exceeded the '{resource}' resource (current value: {value})"
            ),
        )
    }

    /// 1045 "Access denied for user 'u'@'h' (using password: YES/NO)".
    pub fn access_denied(user: &str, host: &str, using_password: bool) -> Self {
        let yes_no = if using_password { "YES" } else { "NO" };
        Self::new(
            codes::ER_ACCESS_DENIED_ERROR,
            "28000",
            format!("Access denied for user '{user}'@'{host}' (using password: {yes_no})"),
        )
    }

    /// 1043 "Bad handshake".
    pub fn bad_handshake() -> Self {
        Self::new(codes::ER_HANDSHAKE_ERROR, "08S01", "Bad handshake")
    }

    /// 1047 "Unknown command".
    pub fn unknown_command() -> Self {
        Self::new(codes::ER_UNKNOWN_COM_ERROR, "08S01", "Unknown command")
    }

    /// 1105 "Unknown error" with a more specific message.
    pub fn unknown(message: impl Into<String>) -> Self {
        Self::new(codes::ER_UNKNOWN_ERROR, "HY000", message)
    }

    /// 1153 "Got a packet bigger than 'max_allowed_packet' bytes".
    pub fn packet_too_large() -> Self {
        Self::new(
            codes::ER_NET_PACKET_TOO_LARGE,
            "08S01",
            "Got a packet bigger than 'max_allowed_packet' bytes",
        )
    }

    /// 1243 "Unknown prepared statement handler (id) given to command".
    pub fn unknown_statement(stmt_id: u32, command: &str) -> Self {
        Self::new(
            codes::ER_UNKNOWN_STMT_HANDLER,
            "HY000",
            format!("Unknown prepared statement handler ({stmt_id}) given to {command}"),
        )
    }

    /// 1210 "Incorrect arguments to command".
    pub fn wrong_arguments(command: &str) -> Self {
        Self::new(
            codes::ER_WRONG_ARGUMENTS,
            "HY000",
            format!("Incorrect arguments to {command}"),
        )
    }

    /// 1835 "Malformed communication packet."
    pub fn malformed_packet() -> Self {
        Self::new(
            codes::ER_MALFORMED_PACKET,
            "HY000",
            "Malformed communication packet.",
        )
    }
}

impl fmt::Display for MysqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code,
            self.sql_state_str(),
            self.message
        )
    }
}

impl std::error::Error for MysqlError {}

/// Why a connection ended abnormally.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The socket failed.
    #[error("connection I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The peer closed the connection between packets.
    #[error("connection closed by the client")]
    Closed,
    /// A logical packet exceeded `max_allowed_packet`.
    #[error("packet of at least {size} bytes exceeds max_allowed_packet ({max})")]
    PacketTooLarge {
        /// Bytes seen so far (the packet may be larger).
        size: usize,
        /// The configured limit.
        max: usize,
    },
    /// A packet arrived with an unexpected sequence number.
    #[error("packet sequence out of order: expected {expected}, got {got}")]
    OutOfOrder {
        /// Sequence number the server expected.
        expected: u8,
        /// Sequence number received.
        got: u8,
    },
    /// A packet could not be parsed.
    #[error("malformed packet: {0}")]
    Malformed(String),
    /// The handshake failed; the client has already been sent an ERR packet.
    #[error("authentication failed: {0}")]
    AuthFailed(MysqlError),
    /// The TLS handshake after the client's SSL request failed.
    #[error("TLS handshake failed: {0}")]
    Tls(std::io::Error),
    /// The connection was killed (`KILL CONNECTION` / `COM_PROCESS_KILL`).
    #[error("connection killed")]
    Killed,
}

impl WireError {
    /// The ERR packet to send before closing the connection, if any.
    pub fn client_error(&self) -> Option<MysqlError> {
        match self {
            WireError::PacketTooLarge { .. } => Some(MysqlError::packet_too_large()),
            WireError::OutOfOrder { .. } => Some(MysqlError::new(
                codes::ER_NET_PACKETS_OUT_OF_ORDER,
                "08S01",
                "Got packets out of order",
            )),
            WireError::Malformed(_) => Some(MysqlError::malformed_packet()),
            WireError::Io(_)
            | WireError::Closed
            | WireError::AuthFailed(_)
            | WireError::Tls(_)
            | WireError::Killed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_denied_matches_mysql_wording() {
        let e = MysqlError::access_denied("bob", "127.0.0.1", true);
        assert_eq!(e.code, 1045);
        assert_eq!(e.sql_state_str(), "28000");
        assert_eq!(
            e.message,
            "Access denied for user 'bob'@'127.0.0.1' (using password: YES)"
        );
        let e = MysqlError::access_denied("bob", "localhost", false);
        assert!(e.message.ends_with("(using password: NO)"));
    }

    #[test]
    fn bad_sql_state_falls_back_to_hy000() {
        assert_eq!(MysqlError::new(1, "toolong", "x").sql_state_str(), "HY000");
        assert_eq!(MysqlError::new(1, "4200", "x").sql_state_str(), "HY000");
        assert_eq!(MysqlError::new(1, "42S02", "x").sql_state_str(), "42S02");
    }

    #[test]
    fn wire_errors_map_to_client_errors() {
        let too_large = WireError::PacketTooLarge { size: 10, max: 5 };
        let e = too_large
            .client_error()
            .expect("packet too large has an ERR");
        assert_eq!((e.code, e.sql_state_str()), (1153, "08S01"));
        assert!(WireError::Closed.client_error().is_none());
        let e = WireError::Malformed("x".into())
            .client_error()
            .expect("malformed has an ERR");
        assert_eq!(e.code, 1835);
    }
}
