//! Account host patterns: matching a client's host and ordering accounts the
//! way MariaDB picks the one a login uses.
//!
//! A pattern is a host name or IP address where `%` matches any run of
//! characters and `_` any one character (compared case-insensitively);
//! `%` alone (and the empty host) matches every client. A loopback client
//! (`127.0.0.1`, `::1`) also matches `localhost`, as it does on a server
//! that resolves host names. Netmask patterns (`10.0.0.0/255.0.0.0`) are not
//! supported: they match only their literal text.
//!
//! Order ([`sort_key`]): accounts whose host has no wildcard first, then
//! hosts with wildcards (a longer literal prefix first), then `%`; for equal
//! hosts a named user before the anonymous user `''`. The first account of
//! that order that matches the user name and client host is the one a login
//! uses (and what `CURRENT_USER()` shows).

/// True when `pattern` matches the client host `host`.
pub fn matches(pattern: &str, host: &str) -> bool {
    let matches_one = |h: &str| {
        let p: Vec<char> = pattern.to_lowercase().chars().collect();
        let h: Vec<char> = h.to_lowercase().chars().collect();
        like(&p, &h)
    };
    if pattern.is_empty() || matches_one(host) {
        return true;
    }
    is_loopback(host) && matches_one("localhost")
}

/// True for the host names of the local machine's loopback interface.
pub fn is_loopback(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "::1" | "localhost")
}

/// `%` and `_` matching, byte for byte (no escapes: host names do not
/// contain them), by the one LIKE matcher (`eval::like`, iterative).
fn like(p: &[char], s: &[char]) -> bool {
    let pattern: String = p.iter().collect();
    let text: String = s.iter().collect();
    crate::eval::like(
        &text,
        &pattern,
        '\0',
        larch_engine::record::collation::Collation::Binary,
    )
}

/// The key accounts are sorted by (smaller first); see the module docs.
pub fn sort_key(user: &str, host: &str) -> (u8, usize, bool) {
    let wild = host.find(['%', '_']);
    let class = match wild {
        None if !host.is_empty() => 0,
        _ if host == "%" || host.is_empty() => 2,
        _ => 1,
    };
    let literal = wild.unwrap_or(host.len());
    (class, usize::MAX - literal, user.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(matches("%", "10.1.2.3"));
        assert!(matches("10.1.%", "10.1.2.3"));
        assert!(!matches("10.2.%", "10.1.2.3"));
        assert!(matches("localhost", "127.0.0.1"));
        assert!(matches("LocalHost", "localhost"));
        assert!(matches("127.0.0._", "127.0.0.1"));
        assert!(!matches("localhost", "10.0.0.1"));
    }

    #[test]
    fn order() {
        let mut v = ["%", "10.%", "localhost", "10.1.%"];
        v.sort_by_key(|h| sort_key("u", h));
        assert_eq!(v, ["localhost", "10.1.%", "10.%", "%"]);
        assert!(sort_key("", "localhost") < sort_key("u", "%"));
        assert!(sort_key("u", "localhost") < sort_key("", "localhost"));
    }
}
