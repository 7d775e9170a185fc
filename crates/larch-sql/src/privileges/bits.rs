//! [`Privs`]: a set of privileges as MariaDB 10.11 numbers them (bit `n` is
//! the `n`-th privilege of `privilege_t`), their names for GRANT/REVOKE and
//! SHOW GRANTS, and which of them exist at each grant level.
//!
//! The bit numbers are stored on disk (see `docs/accounts.md`): never
//! renumber, only add at the end.

/// A set of privileges (`GRANT` is the grant option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Privs(pub u64);

/// Names in bit order, as SHOW GRANTS lists them (`GRANT` is never listed:
/// it is the `WITH GRANT OPTION` suffix).
pub const NAMES: [&str; 39] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "GRANT",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "BINLOG MONITOR",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "DELETE HISTORY",
    "SET USER",
    "FEDERATED ADMIN",
    "CONNECTION ADMIN",
    "READ_ONLY ADMIN",
    "REPLICATION SLAVE ADMIN",
    "REPLICATION MASTER ADMIN",
    "BINLOG ADMIN",
    "BINLOG REPLAY",
    "SLAVE MONITOR",
];

/// Other spellings GRANT accepts, with the privilege they mean.
const ALIASES: [(&str, usize); 4] = [
    ("REPLICATION CLIENT", 20),
    ("REPLICA MONITOR", 38),
    ("REPLICATION REPLICA", 19),
    ("REPLICATION REPLICA ADMIN", 34),
];

macro_rules! privs {
    ($($name:ident = $bit:expr),* $(,)?) => {
        impl Privs {
            $(pub const $name: Privs = Privs(1 << $bit);)*
        }
    };
}

privs! {
    SELECT = 0, INSERT = 1, UPDATE = 2, DELETE = 3, CREATE = 4, DROP = 5,
    RELOAD = 6, SHUTDOWN = 7, PROCESS = 8, FILE = 9, GRANT = 10,
    REFERENCES = 11, INDEX = 12, ALTER = 13, SHOW_DB = 14, SUPER = 15,
    CREATE_TMP = 16, LOCK_TABLES = 17, EXECUTE = 18, CREATE_VIEW = 21,
    SHOW_VIEW = 22, CREATE_PROC = 23, ALTER_PROC = 24, CREATE_USER = 25,
    EVENT = 26, TRIGGER = 27, DELETE_HISTORY = 29, CONNECTION_ADMIN = 32,
}

impl Privs {
    pub const NONE: Privs = Privs(0);
    /// Every privilege (the global `ALL PRIVILEGES` with the grant option).
    pub const ALL: Privs = Privs((1 << NAMES.len()) - 1);
    /// What a database-level grant may hold.
    pub const DB_LEVEL: Privs = Privs(
        Privs::SELECT.0
            | Privs::INSERT.0
            | Privs::UPDATE.0
            | Privs::DELETE.0
            | Privs::CREATE.0
            | Privs::DROP.0
            | Privs::GRANT.0
            | Privs::REFERENCES.0
            | Privs::INDEX.0
            | Privs::ALTER.0
            | Privs::CREATE_TMP.0
            | Privs::LOCK_TABLES.0
            | Privs::EXECUTE.0
            | Privs::CREATE_VIEW.0
            | Privs::SHOW_VIEW.0
            | Privs::CREATE_PROC.0
            | Privs::ALTER_PROC.0
            | Privs::EVENT.0
            | Privs::TRIGGER.0
            | Privs::DELETE_HISTORY.0,
    );
    /// What a table-level grant may hold.
    pub const TABLE_LEVEL: Privs = Privs(
        Privs::SELECT.0
            | Privs::INSERT.0
            | Privs::UPDATE.0
            | Privs::DELETE.0
            | Privs::CREATE.0
            | Privs::DROP.0
            | Privs::GRANT.0
            | Privs::REFERENCES.0
            | Privs::INDEX.0
            | Privs::ALTER.0
            | Privs::CREATE_VIEW.0
            | Privs::SHOW_VIEW.0
            | Privs::TRIGGER.0
            | Privs::DELETE_HISTORY.0,
    );

    pub fn contains(self, other: Privs) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Privs) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, other: Privs) -> Privs {
        Privs(self.0 | other.0)
    }

    pub fn minus(self, other: Privs) -> Privs {
        Privs(self.0 & !other.0)
    }

    pub fn and(self, other: Privs) -> Privs {
        Privs(self.0 & other.0)
    }

    /// The privilege named `name` (upper case, words separated by one
    /// space), without `ALL` and `USAGE`.
    pub fn by_name(name: &str) -> Option<Privs> {
        NAMES
            .iter()
            .position(|n| *n == name)
            .or_else(|| ALIASES.iter().find(|(a, _)| *a == name).map(|(_, b)| *b))
            .map(|bit| Privs(1 << bit))
    }

    /// The list SHOW GRANTS prints for a grant at a level whose full set is
    /// `level`: `ALL PRIVILEGES`, `USAGE`, or the names in bit order.
    pub fn show(self, level: Privs) -> String {
        let own = self.minus(Privs::GRANT);
        if own == level.minus(Privs::GRANT) {
            return "ALL PRIVILEGES".into();
        }
        if own.is_empty() {
            return "USAGE".into();
        }
        NAMES
            .iter()
            .enumerate()
            .filter(|(bit, _)| own.0 & (1 << bit) != 0)
            .map(|(_, n)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The first privilege of the set, by name (for "X command denied").
    pub fn first_name(self) -> &'static str {
        (0..NAMES.len())
            .find(|bit| self.0 & (1 << bit) != 0)
            .map_or("USAGE", |bit| NAMES[bit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_levels() {
        assert_eq!(Privs::by_name("SHOW DATABASES"), Some(Privs::SHOW_DB));
        assert_eq!(
            Privs::by_name("REPLICATION CLIENT"),
            Privs::by_name("BINLOG MONITOR")
        );
        assert_eq!(Privs::ALL.show(Privs::ALL), "ALL PRIVILEGES");
        assert_eq!(Privs::GRANT.show(Privs::ALL), "USAGE");
        assert_eq!(
            Privs::SELECT.union(Privs::DELETE).show(Privs::ALL),
            "SELECT, DELETE"
        );
        assert_eq!(Privs::DB_LEVEL.show(Privs::DB_LEVEL), "ALL PRIVILEGES");
        assert_eq!(Privs::CONNECTION_ADMIN.first_name(), "CONNECTION ADMIN");
    }
}
