//! The server's connection-admission and TLS settings that the SQL layer
//! only shows and checks: the server (larchd) reads their values at start
//! and follows `SET GLOBAL` through its hook (`crate::server_hooks`).
//!
//! - `max_connect_errors` (hosts blocked after that many consecutive
//!   handshake errors, until FLUSH HOSTS), `max_user_connections`,
//!   `require_secure_transport`, `extra_port` and `extra_max_connections`
//!   (dynamic, as in MariaDB), as MariaDB has them;
//! - `connection_control_*`: the delay of logins from a host after
//!   consecutive failed authentications, named as MySQL's
//!   `connection_control` plugin names them;
//! - the TLS facts MariaDB shows (`ssl_capath`, `ssl_cipher`, `ssl_crl`,
//!   `ssl_crlpath`, `tls_version`).

use super::table::U32;
use super::{ro, v, Kind, Scope, VarDef};

use Scope::Global;

const fn int(min: i64, max: i64) -> Kind {
    Kind::Int { min, max }
}

/// Sorted by name, disjoint from the other tables.
pub(super) static CONNECTIONS: &[VarDef] = &[
    v(
        "connection_control_failed_connections_threshold",
        Global,
        int(0, 2_147_483_647),
        "3",
    ),
    v(
        "connection_control_max_connection_delay",
        Global,
        int(1000, 2_147_483_647),
        "2147483647",
    ),
    v(
        "connection_control_min_connection_delay",
        Global,
        int(1000, 2_147_483_647),
        "1000",
    ),
    v("extra_max_connections", Global, int(1, 100_000), "1"),
    ro("extra_port", U32, "0"),
    v("max_connect_errors", Global, int(1, 4_294_967_295), "100"),
    // -1: no account without a limit of its own may log in.
    v("max_user_connections", Global, int(-1, 2_147_483_647), "0"),
    v("require_secure_transport", Global, Kind::Bool, "0"),
    ro("ssl_capath", Kind::Str, ""),
    ro("ssl_cipher", Kind::Str, ""),
    ro("ssl_crl", Kind::Str, ""),
    ro("ssl_crlpath", Kind::Str, ""),
    ro("tls_version", Kind::Str, "TLSv1.2,TLSv1.3"),
];
