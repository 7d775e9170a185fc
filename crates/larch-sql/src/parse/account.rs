//! Account and privilege statements, which sqlparser does not parse in
//! MariaDB's form: `CREATE [OR REPLACE] USER [IF NOT EXISTS]`, `ALTER USER
//! [IF EXISTS]`, `DROP USER [IF EXISTS]`, `RENAME USER`, `SET PASSWORD [FOR
//! user] = PASSWORD('x') | 'hash'`, `GRANT`, `REVOKE` and `SHOW GRANTS [FOR
//! user | CURRENT_USER[()]]`.
//!
//! The statement text is read by a small lexer of its own ([`lex`]): account
//! names (`'u'@'h'`, `` `u`@`h` ``, `u@localhost`, `'u'` meaning `'u'@'%'`)
//! do not survive sqlparser's tokenizer intact. Syntax errors are MySQL's
//! 1064 with the usual "near" text. Roles, `PROXY` grants and column lists
//! are not parsed (1064). CREATE/ALTER USER and GRANT take MariaDB's
//! `REQUIRE` clause and `WITH` resource limits ([`OptionsSpec`]); `SHOW
//! CREATE USER` is parsed here too.
//!
//! Names: a user name longer than 128 characters, or holding bytes that
//! are not UTF-8 (carried as `parse::raw_bytes` characters), and a host
//! longer than 255 are refused with 1470, as MariaDB does.

mod options;

use crate::error::SqlError;
use crate::privileges::options::{LimitSpec, TlsRequirement};
use crate::privileges::Privs;

use super::Statement;
use options::too_long;

/// `'user'@'host'`.
pub type UserName = (String, String);

/// How an account authenticates, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthSpec {
    /// `IDENTIFIED BY 'password'`.
    Password(String),
    /// `IDENTIFIED BY PASSWORD 'hash'`.
    Hash(String),
    /// `IDENTIFIED {WITH | VIA} plugin [{USING | AS} 'string' | BY 'password']`.
    Plugin {
        plugin: String,
        auth_string: Option<String>,
        password: Option<String>,
    },
}

/// The `REQUIRE` and `WITH MAX_...` clauses of CREATE/ALTER USER and GRANT.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OptionsSpec {
    /// `None`: no REQUIRE clause (the account keeps its requirement).
    pub tls: Option<TlsRequirement>,
    /// The limits named, in order.
    pub limits: Vec<LimitSpec>,
}

/// Longest user name (characters), as MariaDB's `USERNAME_CHAR_LENGTH`.
pub const USER_NAME_MAX: usize = 128;
/// Longest host name (characters), as MariaDB's `HOSTNAME_LENGTH`.
pub const HOST_NAME_MAX: usize = 255;

/// One account of CREATE/ALTER USER or GRANT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSpec {
    /// `None`: CURRENT_USER.
    pub name: Option<UserName>,
    pub auth: Option<AuthSpec>,
}

/// What a grant applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrivLevel {
    /// `*.*`.
    Global,
    /// `db.*`, or `*` (`None`: the current database).
    Db(Option<String>),
    /// `db.t` or `t` (`None`: the current database).
    Table(Option<String>, String),
}

/// One account or privilege statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountStatement {
    CreateUser {
        or_replace: bool,
        if_not_exists: bool,
        users: Vec<UserSpec>,
        options: OptionsSpec,
    },
    AlterUser {
        if_exists: bool,
        users: Vec<UserSpec>,
        options: OptionsSpec,
    },
    DropUser {
        if_exists: bool,
        users: Vec<Option<UserName>>,
    },
    RenameUser(Vec<(UserName, UserName)>),
    /// `value`: a password (PASSWORD('x')) or a stored hash ('*...').
    SetPassword {
        user: Option<UserName>,
        value: AuthSpec,
    },
    Grant {
        /// `None`: ALL [PRIVILEGES].
        privs: Option<Privs>,
        level: PrivLevel,
        users: Vec<UserSpec>,
        grant_option: bool,
        options: OptionsSpec,
    },
    Revoke {
        privs: Option<Privs>,
        level: PrivLevel,
        users: Vec<Option<UserName>>,
    },
    /// `REVOKE ALL [PRIVILEGES], GRANT OPTION FROM ...`.
    RevokeAll {
        users: Vec<Option<UserName>>,
    },
    /// `None`: the current account.
    ShowGrants {
        user: Option<UserName>,
    },
    /// `SHOW CREATE USER u` (`None`: the current account).
    ShowCreateUser {
        user: Option<UserName>,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// An unquoted word, upper-cased copy and original.
    Word(String, String),
    /// A quoted string or identifier (value unescaped).
    Quoted(String),
    Sym(char),
}

/// Tokens with their byte offsets; `None` on an unterminated quote.
fn lex(text: &str) -> Option<Vec<(Tok, usize)>> {
    let b: Vec<char> = text.chars().collect();
    let offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let at = offsets[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '$') {
                i += 1;
            }
            let w: String = b[start..i].iter().collect();
            out.push((Tok::Word(w.to_ascii_uppercase(), w), at));
        } else if c == '\'' || c == '"' || c == '`' {
            let mut s = String::new();
            i += 1;
            loop {
                let ch = *b.get(i)?;
                if ch == c {
                    if b.get(i + 1) == Some(&c) {
                        s.push(c);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    break;
                }
                if ch == '\\' && c != '`' {
                    let n = *b.get(i + 1)?;
                    s.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        '0' => '\0',
                        'r' => '\r',
                        other => other,
                    });
                    i += 2;
                    continue;
                }
                s.push(ch);
                i += 1;
            }
            out.push((Tok::Quoted(s), at));
        } else {
            out.push((Tok::Sym(c), at));
            i += 1;
        }
    }
    Some(out)
}

struct P<'a> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    original: &'a str,
}

type R<T> = Result<T, SqlError>;

impl P<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }
    fn peek_word(&self, n: usize) -> Option<&str> {
        match self.toks.get(self.at + n) {
            Some((Tok::Word(w, _), _)) => Some(w),
            _ => None,
        }
    }
    fn word(&mut self, w: &str) -> bool {
        if self.peek_word(0) == Some(w) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn words(&mut self, ws: &[&str]) -> bool {
        if ws
            .iter()
            .enumerate()
            .all(|(i, w)| self.peek_word(i) == Some(w))
        {
            self.at += ws.len();
            true
        } else {
            false
        }
    }
    fn sym(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Sym(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn error(&self) -> SqlError {
        let offset = self
            .toks
            .get(self.at)
            .map_or(self.original.trim_end().len(), |(_, o)| *o);
        let offset = offset.min(self.original.len());
        let rest = self.original.get(offset..).unwrap_or("").trim_end();
        let first = self.original.len() - self.original.trim_start().len();
        let before = self.original.get(first..offset.max(first)).unwrap_or("");
        SqlError::Syntax {
            near: super::near_text(rest),
            line: 1 + before.matches('\n').count() as u64,
        }
    }
    fn expect_word(&mut self, w: &str) -> R<()> {
        if self.word(w) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    fn expect_sym(&mut self, c: char) -> R<()> {
        if self.sym(c) {
            Ok(())
        } else {
            Err(self.error())
        }
    }
    fn string(&mut self) -> R<String> {
        match self.peek() {
            Some(Tok::Quoted(s)) => {
                let s = s.clone();
                self.at += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }
    /// A name: quoted, or an unquoted word kept as written.
    fn name(&mut self) -> R<String> {
        match self.peek() {
            Some(Tok::Quoted(s)) => {
                let s = s.clone();
                self.at += 1;
                Ok(s)
            }
            Some(Tok::Word(_, orig)) => {
                let s = orig.clone();
                self.at += 1;
                Ok(s)
            }
            _ => Err(self.error()),
        }
    }
    /// `user[@host]` or CURRENT_USER[()] (`None`).
    fn user(&mut self) -> R<Option<UserName>> {
        if self.word("CURRENT_USER") {
            if self.sym('(') {
                self.expect_sym(')')?;
            }
            return Ok(None);
        }
        let user = self.name()?;
        let host = if self.sym('@') {
            self.name()?
        } else {
            "%".to_string()
        };
        if user.chars().count() > USER_NAME_MAX || user.chars().any(super::is_raw_byte) {
            return Err(too_long(&user, "user name", USER_NAME_MAX));
        }
        if host.chars().count() > HOST_NAME_MAX {
            return Err(too_long(&host, "host name", HOST_NAME_MAX));
        }
        Ok(Some((user, host.to_lowercase())))
    }
    fn users(&mut self) -> R<Vec<Option<UserName>>> {
        let mut v = vec![self.user()?];
        while self.sym(',') {
            v.push(self.user()?);
        }
        Ok(v)
    }
    fn auth(&mut self) -> R<Option<AuthSpec>> {
        if !self.word("IDENTIFIED") {
            return Ok(None);
        }
        if self.word("BY") {
            if self.word("PASSWORD") {
                return Ok(Some(AuthSpec::Hash(self.string()?)));
            }
            return Ok(Some(AuthSpec::Password(self.string()?)));
        }
        if !(self.word("WITH") || self.word("VIA")) {
            return Err(self.error());
        }
        let plugin = self.name()?.to_lowercase();
        let (mut auth_string, mut password) = (None, None);
        if self.word("USING") || self.word("AS") {
            if self.word("PASSWORD") {
                self.expect_sym('(')?;
                password = Some(self.string()?);
                self.expect_sym(')')?;
            } else {
                auth_string = Some(self.string()?);
            }
        } else if self.word("BY") {
            password = Some(self.string()?);
        }
        Ok(Some(AuthSpec::Plugin {
            plugin,
            auth_string,
            password,
        }))
    }
    fn user_specs(&mut self) -> R<Vec<UserSpec>> {
        let mut v = Vec::new();
        loop {
            let name = self.user()?;
            let auth = self.auth()?;
            v.push(UserSpec { name, auth });
            if !self.sym(',') {
                return Ok(v);
            }
        }
    }
    /// A privilege list; `None` for ALL [PRIVILEGES]. The grant option in the
    /// list (`GRANT OPTION`) is the `GRANT` bit.
    fn privs(&mut self) -> R<Option<Privs>> {
        if self.word("ALL") {
            self.word("PRIVILEGES");
            return Ok(None);
        }
        let mut p = Privs::NONE;
        loop {
            let mut words = Vec::new();
            while let Some(w) = self.peek_word(0) {
                if w == "ON" || (w == "FROM" && !words.is_empty()) {
                    break;
                }
                words.push(w.to_string());
                self.at += 1;
            }
            let name = words.join(" ");
            p = match name.as_str() {
                "USAGE" => p,
                "GRANT OPTION" => p.union(Privs::GRANT),
                other => match Privs::by_name(other) {
                    Some(x) => p.union(x),
                    None => return Err(self.error()),
                },
            };
            if self.peek() == Some(&Tok::Sym('(')) {
                // Column lists are not supported.
                return Err(self.error());
            }
            if !self.sym(',') {
                return Ok(Some(p));
            }
        }
    }
    fn level(&mut self) -> R<PrivLevel> {
        self.word("TABLE");
        if self.sym('*') {
            if self.sym('.') {
                self.expect_sym('*')?;
                return Ok(PrivLevel::Global);
            }
            return Ok(PrivLevel::Db(None));
        }
        let first = self.name()?;
        if self.sym('.') {
            if self.sym('*') {
                return Ok(PrivLevel::Db(Some(first)));
            }
            let t = self.name()?;
            return Ok(PrivLevel::Table(Some(first), t));
        }
        Ok(PrivLevel::Table(None, first))
    }
    fn end(&mut self) -> R<()> {
        while self.sym(';') {}
        if self.at == self.toks.len() {
            Ok(())
        } else {
            Err(self.error())
        }
    }
}

/// Parses an account statement; `None` when `text` is not one.
pub(super) fn parse(text: &str, original: &str) -> Option<Result<Statement, SqlError>> {
    let head: Vec<String> = text
        .split_whitespace()
        .take(3)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let ours = matches!(
        head.as_slice(),
        ["CREATE", "USER", ..]
            | ["CREATE", "OR", "REPLACE"]
            | ["ALTER", "USER", ..]
            | ["DROP", "USER", ..]
            | ["RENAME", "USER", ..]
            | ["GRANT", ..]
            | ["REVOKE", ..]
            | ["SHOW", "GRANTS", ..]
            | ["SHOW", "GRANTS;", ..]
            | ["SHOW", "CREATE", "USER"]
    ) || head.first().is_some_and(|w| *w == "SET")
        && head.get(1).is_some_and(|w| w.starts_with("PASSWORD"));
    if !ours {
        return None;
    }
    let toks = lex(text)?;
    let mut p = P {
        toks,
        at: 0,
        original,
    };
    if head.as_slice() == ["CREATE", "OR", "REPLACE"] && p.peek_word(3) != Some("USER") {
        return None;
    }
    Some(statement(&mut p).map(|a| Statement::Account(Box::new(a))))
}

fn statement(p: &mut P) -> R<AccountStatement> {
    let stmt = if p.word("CREATE") {
        let or_replace = p.words(&["OR", "REPLACE"]);
        p.expect_word("USER")?;
        let if_not_exists = p.words(&["IF", "NOT", "EXISTS"]);
        let users = p.user_specs()?;
        AccountStatement::CreateUser {
            or_replace,
            if_not_exists,
            users,
            options: p.options(None)?,
        }
    } else if p.words(&["ALTER", "USER"]) {
        let if_exists = p.words(&["IF", "EXISTS"]);
        let users = p.user_specs()?;
        AccountStatement::AlterUser {
            if_exists,
            users,
            options: p.options(None)?,
        }
    } else if p.words(&["DROP", "USER"]) {
        let if_exists = p.words(&["IF", "EXISTS"]);
        AccountStatement::DropUser {
            if_exists,
            users: p.users()?,
        }
    } else if p.words(&["RENAME", "USER"]) {
        let mut v = Vec::new();
        loop {
            let from = p.user()?.ok_or_else(|| p.error())?;
            p.expect_word("TO")?;
            let to = p.user()?.ok_or_else(|| p.error())?;
            v.push((from, to));
            if !p.sym(',') {
                break;
            }
        }
        AccountStatement::RenameUser(v)
    } else if p.words(&["SET", "PASSWORD"]) {
        let user = if p.word("FOR") { p.user()? } else { None };
        p.expect_sym('=')?;
        let value = if p.word("PASSWORD") {
            p.expect_sym('(')?;
            let pw = p.string()?;
            p.expect_sym(')')?;
            AuthSpec::Password(pw)
        } else {
            AuthSpec::Hash(p.string()?)
        };
        AccountStatement::SetPassword { user, value }
    } else if p.word("GRANT") {
        let privs = p.privs()?;
        p.expect_word("ON")?;
        let level = p.level()?;
        p.expect_word("TO")?;
        let users = p.user_specs()?;
        let mut grant_option = false;
        let options = p.options(Some(&mut grant_option))?;
        AccountStatement::Grant {
            privs,
            level,
            users,
            grant_option,
            options,
        }
    } else if p.word("REVOKE") {
        let save = p.at;
        if p.word("ALL") {
            p.word("PRIVILEGES");
            if p.sym(',') {
                p.expect_word("GRANT")?;
                p.expect_word("OPTION")?;
                p.expect_word("FROM")?;
                let users = p.users()?;
                p.end()?;
                return Ok(AccountStatement::RevokeAll { users });
            }
            p.at = save;
        }
        let privs = p.privs()?;
        p.expect_word("ON")?;
        let level = p.level()?;
        p.expect_word("FROM")?;
        AccountStatement::Revoke {
            privs,
            level,
            users: p.users()?,
        }
    } else if p.words(&["SHOW", "GRANTS"]) {
        let user = if p.word("FOR") { p.user()? } else { None };
        AccountStatement::ShowGrants { user }
    } else if p.words(&["SHOW", "CREATE", "USER"]) {
        AccountStatement::ShowCreateUser { user: p.user()? }
    } else {
        return Err(p.error());
    };
    p.end()?;
    Ok(stmt)
}
