//! [`ViewDef`]: what the dictionary keeps of a view (the `definition` bytes
//! of its dictionary row), its encoding, and the texts MariaDB shows for it
//! (SHOW CREATE VIEW, INFORMATION_SCHEMA.VIEWS).
//!
//! Encoding, version 1 (see `docs/catalog.md`): little-endian; `str` is a
//! `u32` byte length and UTF-8 bytes.
//!
//! ```text
//! u8   version = 1
//! u8   algorithm: 0 UNDEFINED, 1 MERGE, 2 TEMPTABLE
//! u8   SQL SECURITY: 0 DEFINER, 1 INVOKER
//! u8   CHECK OPTION: 0 none, 1 CASCADED, 2 LOCAL
//! str  definer user
//! str  definer host
//! str  SELECT text as written
//! u32  column count, then str each (the explicit column list; 0 = none)
//! str  character_set_client at CREATE
//! str  collation_connection at CREATE
//! ```
//!
//! Invariant: `select` parses to one query (it did at CREATE); unqualified
//! table names in it belong to the view's database.

use crate::error::SqlError;

/// The stored definition of a view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ViewDef {
    /// 0 UNDEFINED, 1 MERGE, 2 TEMPTABLE.
    pub algorithm: u8,
    /// 0 DEFINER, 1 INVOKER.
    pub security: u8,
    /// 0 none, 1 CASCADED, 2 LOCAL.
    pub check: u8,
    pub definer: (String, String),
    pub select: String,
    pub columns: Vec<String>,
    pub charset_client: String,
    pub collation_connection: String,
}

const VERSION: u8 = 1;

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn corrupt() -> SqlError {
    SqlError::new(1356, "A view's stored definition is damaged")
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u8(&mut self) -> Result<u8, SqlError> {
        let (&b, rest) = self.0.split_first().ok_or_else(corrupt)?;
        self.0 = rest;
        Ok(b)
    }
    fn u32(&mut self) -> Result<u32, SqlError> {
        if self.0.len() < 4 {
            return Err(corrupt());
        }
        let (a, rest) = self.0.split_at(4);
        self.0 = rest;
        Ok(u32::from_le_bytes([a[0], a[1], a[2], a[3]]))
    }
    fn str(&mut self) -> Result<String, SqlError> {
        let n = self.u32()? as usize;
        if self.0.len() < n {
            return Err(corrupt());
        }
        let (a, rest) = self.0.split_at(n);
        self.0 = rest;
        String::from_utf8(a.to_vec()).map_err(|_| corrupt())
    }
}

/// `` `name` `` with backquotes doubled, as MariaDB quotes identifiers.
pub(crate) fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

impl ViewDef {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION, self.algorithm, self.security, self.check];
        put_str(&mut out, &self.definer.0);
        put_str(&mut out, &self.definer.1);
        put_str(&mut out, &self.select);
        out.extend_from_slice(&(self.columns.len() as u32).to_le_bytes());
        for c in &self.columns {
            put_str(&mut out, c);
        }
        put_str(&mut out, &self.charset_client);
        put_str(&mut out, &self.collation_connection);
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<ViewDef, SqlError> {
        let mut r = Reader(bytes);
        if r.u8()? != VERSION {
            return Err(corrupt());
        }
        let algorithm = r.u8()?;
        let security = r.u8()?;
        let check = r.u8()?;
        let definer = (r.str()?, r.str()?);
        let select = r.str()?;
        let n = r.u32()? as usize;
        let mut columns = Vec::with_capacity(n.min(4096));
        for _ in 0..n {
            columns.push(r.str()?);
        }
        Ok(ViewDef {
            algorithm,
            security,
            check,
            definer,
            select,
            columns,
            charset_client: r.str()?,
            collation_connection: r.str()?,
        })
    }

    pub fn algorithm_name(&self) -> &'static str {
        match self.algorithm {
            1 => "MERGE",
            2 => "TEMPTABLE",
            _ => "UNDEFINED",
        }
    }

    pub fn security_name(&self) -> &'static str {
        if self.security == 1 {
            "INVOKER"
        } else {
            "DEFINER"
        }
    }

    /// `NONE`, `CASCADED` or `LOCAL` (INFORMATION_SCHEMA.VIEWS.CHECK_OPTION).
    pub fn check_name(&self) -> &'static str {
        match self.check {
            1 => "CASCADED",
            2 => "LOCAL",
            _ => "NONE",
        }
    }

    /// `` `user`@`host` ``.
    pub fn definer_text(&self) -> String {
        format!("{}@{}", quote(&self.definer.0), quote(&self.definer.1))
    }

    /// The SELECT with the column list in front when there is one (what
    /// VIEW_DEFINITION shows).
    pub fn body(&self) -> String {
        if self.columns.is_empty() {
            self.select.clone()
        } else {
            let cols: Vec<String> = self.columns.iter().map(|c| quote(c)).collect();
            format!("({}) AS {}", cols.join(","), self.select)
        }
    }

    /// SHOW CREATE VIEW's text: `CREATE ALGORITHM=... DEFINER=... SQL
    /// SECURITY ... VIEW `name` AS select ... [WITH ... CHECK OPTION]`.
    pub fn create_text(&self, name: &str) -> String {
        let columns = if self.columns.is_empty() {
            String::new()
        } else {
            let cols: Vec<String> = self.columns.iter().map(|c| quote(c)).collect();
            format!(" ({})", cols.join(","))
        };
        let check = match self.check {
            1 => " WITH CASCADED CHECK OPTION",
            2 => " WITH LOCAL CHECK OPTION",
            _ => "",
        };
        format!(
            "CREATE ALGORITHM={} DEFINER={} SQL SECURITY {} VIEW {}{} AS {}{}",
            self.algorithm_name(),
            self.definer_text(),
            self.security_name(),
            quote(name),
            columns,
            self.select,
            check
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let d = ViewDef {
            algorithm: 1,
            security: 1,
            check: 2,
            definer: ("root".into(), "localhost".into()),
            select: "select a from t".into(),
            columns: vec!["x".into()],
            charset_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_general_ci".into(),
        };
        let bytes = d.encode();
        assert_eq!(ViewDef::decode(&bytes).ok(), Some(d.clone()));
        assert!(ViewDef::decode(&bytes[..bytes.len() - 1]).is_err());
        assert_eq!(
            d.create_text("v"),
            "CREATE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW `v` (`x`) AS select a from t WITH LOCAL CHECK OPTION"
        );
    }
}
