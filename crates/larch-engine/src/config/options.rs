//! MySQL/MariaDB-compatible option handling: command-line arguments, my.cnf-style
//! option files, value parsing, and turning options into an [`EngineConfig`].
//!
//! This module owns the *syntax* of options. [`OptionSet`] collects
//! `name -> value` pairs from the command line and option files exactly as
//! `mysqld` would accept them; [`EngineConfig::from_options`] then picks out the
//! `innodb_*` variables (and `datadir`) the engine understands and validates them.
//! Everything else (`port`, `socket`, `bind_address`, ...) stays in the
//! [`OptionSet`] for the server layer to read; the engine ignores it.
//!
//! # Option names
//!
//! Names are normalised as `mysqld` does: a leading `--` is dropped, `-` and `_`
//! are equivalent (names are stored with underscores, lowercase), and the prefixes
//! below are understood:
//!
//! | written                 | stored as        |
//! |-------------------------|------------------|
//! | `--innodb-page-size=8k` | `innodb_page_size = 8k` |
//! | `--loose-foo=1`         | `foo = 1` (loose options never fail when unknown) |
//! | `--skip-foo`            | `foo = 0`        |
//! | `--disable-foo`         | `foo = 0`        |
//! | `--enable-foo`          | `foo = 1`        |
//! | `--foo`                 | `foo = 1`        |
//!
//! `--skip-foo=0` / `--disable-foo=0` (a double negative) mean `foo = 1`, as in
//! `my_getopt`; `--enable-foo=V` stores `V`. A few real server options whose names
//! begin with `skip` (`skip_networking`, `skip_name_resolve`, `skip_grant_tables`,
//! `skip_slave_start`, `skip_replica_start`, `skip_show_database`) are matched by
//! their full name first, as `mysqld` does, so `--skip-networking` stores
//! `skip_networking = 1`. Later settings override earlier ones.
//!
//! # Command line
//!
//! [`OptionSet::parse_args`] takes the arguments *without* the program name. Only
//! `--name=value` and bare `--name` are accepted (like `mysqld`, a value is never
//! taken from the next argument); anything else is an error naming the argument.
//! `--defaults-file=F` is read first (mysqld wants it first; here it may appear
//! anywhere), then `--defaults-extra-file=F`, then the remaining command-line
//! options override both. Both files are read for [`SERVER_GROUPS`]. `--no-defaults`
//! is accepted and ignored: no option file is read unless named explicitly.
//!
//! # Option files
//!
//! [`OptionSet::read_defaults_file`] reads the my.cnf format:
//!
//! ```text
//! # whole-line comment            ; also a whole-line comment
//! [mysqld]                        # only the requested groups are read
//! innodb_page_size=8k
//! innodb-buffer-pool-size = 1G    # comment after a value (needs whitespace before '#')
//! datadir = "/var/lib/my data"    # single or double quotes; '#' inside is kept
//! skip-name-resolve               # bare name: boolean ON (prefixes as above)
//! !include /etc/mysql/extra.cnf   # relative paths are relative to this file
//! !includedir /etc/mysql/conf.d   # every *.cnf in the directory, sorted by name
//! ```
//!
//! Values may use the escapes `\n`, `\t`, `\r`, `\b`, `\s` (space), `\\`, `\"` and
//! `\'`; any other backslash is kept literally (so `C:\data` survives). Group names
//! are matched case-insensitively. An option before the first group header, a
//! malformed line, an unknown `!` directive, an unreadable file or directory, or
//! more than [`MAX_INCLUDE_DEPTH`] nested includes is an error naming the file (and
//! line).

use std::path::{Path, PathBuf};

use super::{EngineConfig, FlushMethod};
use crate::error::{EngineError, Result};
use crate::page::PageSize;

/// The option-file groups the server reads, in `mysqld`'s order.
pub const SERVER_GROUPS: &[&str] = &["mysqld", "server", "mariadb", "larchd"];

/// How deeply `!include` / `!includedir` may nest (as in `mysqld`); deeper nesting
/// (typically an include cycle) is an error.
pub const MAX_INCLUDE_DEPTH: usize = 10;

/// Real option names that begin with `skip_`; they are matched as a whole before
/// the `skip-` prefix is interpreted, as `my_getopt` tries full names first.
const LITERAL_SKIP_OPTIONS: &[&str] = &[
    "skip_networking",
    "skip_name_resolve",
    "skip_grant_tables",
    "skip_slave_start",
    "skip_replica_start",
    "skip_show_database",
];

/// Options as `mysqld` collects them: normalised name -> value string.
///
/// Entries keep the order in which names were first set; setting a name again
/// replaces its value (later settings override earlier ones).
#[derive(Debug, Clone, Default)]
pub struct OptionSet {
    entries: Vec<(String, String)>,
}

impl OptionSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Turns `--name value` into `--name=value`, as mysqld accepts both for
    /// options that take a value (the tools have no positional arguments
    /// after their command).
    pub fn join_separate_values(args: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a.starts_with("--")
                && !a.contains('=')
                && i + 1 < args.len()
                && !args[i + 1].starts_with('-')
            {
                out.push(format!("{a}={}", args[i + 1]));
                i += 2;
            } else {
                out.push(a.clone());
                i += 1;
            }
        }
        out
    }

    /// Parses command-line arguments (without the program name); see the module
    /// documentation for the accepted syntax.
    pub fn parse_args<I, S>(args: I) -> Result<OptionSet>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut defaults_file: Option<PathBuf> = None;
        let mut extra_file: Option<PathBuf> = None;
        let mut cmdline = OptionSet::new();
        for arg in args {
            let arg = arg.as_ref();
            let body = match arg.strip_prefix("--") {
                Some(body) if !body.is_empty() => body,
                _ => {
                    return Err(EngineError::Config(format!(
                        "unexpected argument '{arg}': options must be written as --name=value or --name"
                    )))
                }
            };
            let (raw_name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            match normalize_name(raw_name).as_str() {
                name @ ("defaults_file" | "defaults_extra_file") => {
                    let path = match value {
                        Some(v) if !v.is_empty() => PathBuf::from(v),
                        _ => {
                            return Err(EngineError::Config(format!(
                                "option '{arg}' requires a file name (--{}=FILE)",
                                name.replace('_', "-")
                            )))
                        }
                    };
                    if name == "defaults_file" {
                        defaults_file = Some(path);
                    } else {
                        extra_file = Some(path);
                    }
                }
                "no_defaults" => {}
                _ => cmdline
                    .apply(raw_name, value)
                    .map_err(|e| with_context(e, &format!("in argument '{arg}'")))?,
            }
        }
        let mut set = OptionSet::new();
        if let Some(path) = defaults_file {
            set.merge(Self::read_defaults_file(&path, SERVER_GROUPS)?);
        }
        if let Some(path) = extra_file {
            set.merge(Self::read_defaults_file(&path, SERVER_GROUPS)?);
        }
        set.merge(cmdline);
        Ok(set)
    }

    /// Reads the options of the given `groups` from a my.cnf-style file (and the
    /// files it includes).
    pub fn read_defaults_file(path: &Path, groups: &[&str]) -> Result<OptionSet> {
        let mut set = OptionSet::new();
        set.read_file_into(path, groups, 0)?;
        Ok(set)
    }

    /// Sets `name` (normalised: `--`, dashes, case and `loose-` are taken care of;
    /// `skip-`/`enable-`/`disable-` are *not* interpreted) to `value`.
    pub fn set(&mut self, name: &str, value: &str) {
        self.insert(normalize_name(name), value.to_string());
    }

    /// The value of `name` (normalised as in [`OptionSet::set`]), if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        let name = normalize_name(name);
        self.entries
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Applies every setting of `later` on top of this set.
    pub fn merge(&mut self, later: OptionSet) {
        for (name, value) in later.entries {
            self.insert(name, value);
        }
    }

    /// `(name, value)` pairs, names normalised, in first-set order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.entries.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Number of distinct options set.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no option is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn insert(&mut self, name: String, value: String) {
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((name, value)),
        }
    }

    /// Records one option as written (without `--`), interpreting the
    /// `skip-`/`disable-`/`enable-` prefixes and bare names.
    fn apply(&mut self, raw_name: &str, value: Option<&str>) -> Result<()> {
        let name = normalize_name(raw_name);
        if name.is_empty() {
            return Err(EngineError::Config("empty option name".to_string()));
        }
        if name.contains(char::is_whitespace) {
            return Err(EngineError::Config(format!(
                "invalid option name '{raw_name}'"
            )));
        }
        let literal = LITERAL_SKIP_OPTIONS.contains(&name.as_str());
        let negated = if literal {
            None
        } else {
            name.strip_prefix("skip_")
                .or_else(|| name.strip_prefix("disable_"))
        };
        if let Some(base) = negated.filter(|b| !b.is_empty()) {
            // `--skip-foo=0` is a double negative: foo stays enabled.
            let enabled = value.is_some_and(|v| matches!(parse_bool(v), Ok(false)));
            self.insert(
                base.to_string(),
                if enabled { "1" } else { "0" }.to_string(),
            );
            return Ok(());
        }
        if let Some(base) = name.strip_prefix("enable_").filter(|b| !b.is_empty()) {
            self.insert(base.to_string(), value.unwrap_or("1").to_string());
            return Ok(());
        }
        let value = value.unwrap_or("1").to_string();
        self.insert(name, value);
        Ok(())
    }

    fn read_file_into(&mut self, path: &Path, groups: &[&str], depth: usize) -> Result<()> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            EngineError::Config(format!("cannot read option file '{}': {e}", path.display()))
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let base_dir = path.parent().unwrap_or_else(|| Path::new(""));
        // None: before the first group header; Some(selected) afterwards.
        let mut in_group: Option<bool> = None;
        for (idx, raw_line) in text.lines().enumerate() {
            let at = || format!("'{}' line {}", path.display(), idx + 1);
            let line = raw_line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(directive) = line.strip_prefix('!') {
                let (word, arg) = match directive.split_once(char::is_whitespace) {
                    Some((w, a)) => (w, a.trim()),
                    None => (directive, ""),
                };
                if word != "include" && word != "includedir" {
                    return Err(EngineError::Config(format!(
                        "unknown directive '!{word}' in option file {}",
                        at()
                    )));
                }
                if arg.is_empty() {
                    return Err(EngineError::Config(format!(
                        "'!{word}' without a path in option file {}",
                        at()
                    )));
                }
                if depth + 1 > MAX_INCLUDE_DEPTH {
                    return Err(EngineError::Config(format!(
                        "too many nested !include directives (limit {MAX_INCLUDE_DEPTH}) at {}",
                        at()
                    )));
                }
                let target = base_dir.join(arg);
                if word == "include" {
                    self.read_file_into(&target, groups, depth + 1)?;
                } else {
                    for file in cnf_files_in(&target)? {
                        self.read_file_into(&file, groups, depth + 1)?;
                    }
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix('[') {
                let Some((group, _)) = rest.split_once(']') else {
                    return Err(EngineError::Config(format!(
                        "wrong group definition '{line}' in option file {}",
                        at()
                    )));
                };
                let group = group.trim();
                in_group = Some(groups.iter().any(|g| g.eq_ignore_ascii_case(group)));
                continue;
            }
            match in_group {
                None => {
                    return Err(EngineError::Config(format!(
                        "found option '{line}' without a preceding group in option file {}",
                        at()
                    )))
                }
                Some(false) => continue,
                Some(true) => {}
            }
            let (raw_name, value) = match line.split_once('=') {
                Some((n, v)) => (n.trim(), Some(parse_file_value(v))),
                None => (strip_end_comment(line).trim(), None),
            };
            self.apply(raw_name, value.as_deref())
                .map_err(|e| with_context(e, &format!("in option file {}", at())))?;
        }
        Ok(())
    }
}

/// The `*.cnf` files of an `!includedir` directory, sorted by name.
fn cnf_files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let unreadable = |e: std::io::Error| {
        EngineError::Config(format!(
            "cannot read option directory '{}': {e}",
            dir.display()
        ))
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "cnf") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Adds `context` to a configuration error message.
fn with_context(err: EngineError, context: &str) -> EngineError {
    match err {
        EngineError::Config(msg) => EngineError::Config(format!("{msg} ({context})")),
        other => other,
    }
}

/// `--Innodb-Page-Size` / `loose_innodb_page_size` -> `innodb_page_size`.
fn normalize_name(name: &str) -> String {
    let name = name.trim();
    let name = name.strip_prefix("--").unwrap_or(name);
    let name = name.to_ascii_lowercase().replace('-', "_");
    match name.strip_prefix("loose_") {
        Some(rest) => rest.to_string(),
        None => name,
    }
}

/// Cuts a `#` comment that is outside quotes and preceded by whitespace.
fn strip_end_comment(s: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev_space = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else if c == '\'' || c == '"' {
            quote = Some(c);
        } else if c == '#' && prev_space {
            return &s[..i];
        }
        prev_space = c.is_whitespace();
    }
    s
}

/// The value part of a `name = value` line: comment removed, trimmed, unquoted,
/// escapes resolved.
fn parse_file_value(raw: &str) -> String {
    let v = strip_end_comment(raw).trim();
    let v = match v.chars().next() {
        Some(q @ ('\'' | '"')) if v.len() >= 2 && v.ends_with(q) => &v[1..v.len() - 1],
        _ => v,
    };
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('s') => out.push(' '),
            Some(c @ ('\\' | '"' | '\'')) => out.push(c),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Parses a size as `mysqld` does: a non-negative integer with an optional
/// case-insensitive suffix `K`, `M`, `G`, `T`, `P` or `E` (powers of 1024), e.g.
/// `16384`, `16k`, `128M`, `1G`.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let invalid = || EngineError::Config(format!("invalid size '{s}'"));
    let (digits, shift) = match t.as_bytes().last().map(u8::to_ascii_lowercase) {
        Some(b'k') => (&t[..t.len() - 1], 10),
        Some(b'm') => (&t[..t.len() - 1], 20),
        Some(b'g') => (&t[..t.len() - 1], 30),
        Some(b't') => (&t[..t.len() - 1], 40),
        Some(b'p') => (&t[..t.len() - 1], 50),
        Some(b'e') => (&t[..t.len() - 1], 60),
        _ => (t, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let too_large = || EngineError::Config(format!("size '{s}' is too large"));
    let n: u64 = digits.parse().map_err(|_| too_large())?;
    n.checked_mul(1u64 << shift).ok_or_else(too_large)
}

/// Parses a boolean as `mysqld` does: `ON`/`OFF`, `TRUE`/`FALSE`, `YES`/`NO`,
/// `1`/`0` (case-insensitive).
pub fn parse_bool(s: &str) -> Result<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(EngineError::Config(format!("invalid boolean '{s}'"))),
    }
}

/// Parses `innodb_page_size`: `4k`..`64k` or `4096`..`65536` (a supported size).
pub fn parse_page_size(s: &str) -> Result<PageSize> {
    let bytes = parse_size(s).map_err(|_| invalid_value("innodb_page_size", s))?;
    PageSize::from_bytes(bytes).map_err(|_| {
        EngineError::Config(format!(
            "invalid value '{s}' for innodb_page_size: supported page sizes are 4k, 8k, 16k, 32k and 64k"
        ))
    })
}

fn invalid_value(name: &str, value: &str) -> EngineError {
    EngineError::Config(format!("invalid value '{value}' for {name}"))
}

fn out_of_range(name: &str, value: &str, rule: &str) -> EngineError {
    EngineError::Config(format!("invalid value '{value}' for {name}: {rule}"))
}

/// `bytes` with the largest exact size suffix (`2M`, `512G`, `1000`).
fn human_size(bytes: u64) -> String {
    const UNITS: [(u32, &str); 4] = [(40, "T"), (30, "G"), (20, "M"), (10, "K")];
    for (shift, unit) in UNITS {
        if bytes >= 1 << shift && bytes.trailing_zeros() >= shift {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

/// A size option within `[min, max]` bytes, if set.
fn size_option(opts: &OptionSet, name: &str, min: u64, max: u64) -> Result<Option<u64>> {
    let Some(v) = opts.get(name) else {
        return Ok(None);
    };
    let n = parse_size(v).map_err(|_| invalid_value(name, v))?;
    if n < min {
        return Err(out_of_range(
            name,
            v,
            &format!("the minimum is {} ({min} bytes)", human_size(min)),
        ));
    }
    if n > max {
        return Err(out_of_range(
            name,
            v,
            &format!("the maximum is {} ({max} bytes)", human_size(max)),
        ));
    }
    Ok(Some(n))
}

/// An integer option within `[min, max]`, if set (suffixes accepted, as mysqld).
fn int_option(opts: &OptionSet, name: &str, min: u32, max: u32) -> Result<Option<u32>> {
    let Some(v) = opts.get(name) else {
        return Ok(None);
    };
    let n = parse_size(v).map_err(|_| invalid_value(name, v))?;
    match u32::try_from(n) {
        Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
        _ if max == u32::MAX => Err(out_of_range(
            name,
            v,
            &format!("must be at least {min} and at most {max}"),
        )),
        _ => Err(out_of_range(
            name,
            v,
            &format!("must be between {min} and {max}"),
        )),
    }
}

impl EngineConfig {
    /// Builds the engine configuration from options: starts from
    /// [`EngineConfig::new`] with `datadir` (default `data`), then applies every
    /// engine variable that is set. Options the engine does not know are ignored.
    pub fn from_options(opts: &OptionSet) -> Result<EngineConfig> {
        let datadir = match opts.get("datadir") {
            Some("") => return Err(invalid_value("datadir", "")),
            Some(d) => PathBuf::from(d),
            None => PathBuf::from("data"),
        };
        let mut c = EngineConfig::new(datadir);

        if let Some(v) = opts.get("innodb_page_size") {
            c.page_size = Some(parse_page_size(v)?);
        }
        if let Some(n) = size_option(opts, "innodb_buffer_pool_size", 2 << 20, u64::MAX)? {
            c.buffer_pool_size = n;
        }
        if let Some(n) = size_option(opts, "innodb_log_file_size", 1 << 20, 512 << 30)? {
            c.log_file_size = n;
        }
        if let Some(n) = size_option(opts, "innodb_log_buffer_size", 256 << 10, u64::MAX)? {
            c.log_buffer_size = n;
        }
        if let Some(v) = opts.get("innodb_flush_log_at_trx_commit") {
            c.flush_log_at_trx_commit = match v.trim() {
                "0" => 0,
                // MariaDB's 3 behaves like 1 here: flush and sync at every commit.
                "1" | "3" => 1,
                "2" => 2,
                _ => {
                    return Err(out_of_range(
                        "innodb_flush_log_at_trx_commit",
                        v,
                        "must be 0, 1, 2 or 3",
                    ))
                }
            };
        }
        if let Some(v) = opts.get("innodb_doublewrite") {
            c.doublewrite = parse_bool(v).map_err(|_| invalid_value("innodb_doublewrite", v))?;
        }
        if let Some(v) = opts.get("innodb_flush_method") {
            c.flush_method = FlushMethod::parse(v.trim()).ok_or_else(|| {
                out_of_range(
                    "innodb_flush_method",
                    v,
                    "must be fsync, O_DSYNC, O_DIRECT or O_DIRECT_NO_FSYNC",
                )
            })?;
        }
        if let Some(n) = int_option(opts, "innodb_old_blocks_pct", 5, 95)? {
            c.old_blocks_pct = n;
        }
        if let Some(n) = int_option(opts, "innodb_old_blocks_time", 0, u32::MAX)? {
            c.old_blocks_time_ms = n;
        }
        if let Some(n) = int_option(opts, "innodb_io_capacity", 100, u32::MAX)? {
            c.io_capacity = n;
        }
        match int_option(opts, "innodb_io_capacity_max", 100, u32::MAX)? {
            Some(n) if n < c.io_capacity => {
                let v = opts.get("innodb_io_capacity_max").unwrap_or_default();
                return Err(out_of_range(
                    "innodb_io_capacity_max",
                    v,
                    &format!("must be at least innodb_io_capacity ({})", c.io_capacity),
                ));
            }
            Some(n) => c.io_capacity_max = n,
            None => c.io_capacity_max = c.io_capacity.saturating_mul(2).max(2000),
        }
        if let Some(v) = opts.get("innodb_max_dirty_pages_pct") {
            let pct: f64 = v
                .trim()
                .parse()
                .map_err(|_| invalid_value("innodb_max_dirty_pages_pct", v))?;
            if !(0.0..=99.999).contains(&pct) {
                return Err(out_of_range(
                    "innodb_max_dirty_pages_pct",
                    v,
                    "must be between 0 and 99.999",
                ));
            }
            c.max_dirty_pages_pct = pct;
        }
        if let Some(n) = int_option(opts, "innodb_read_ahead_threshold", 0, 64)? {
            c.read_ahead_threshold = n;
        }
        if let Some(n) = int_option(opts, "innodb_undo_tablespaces", 0, 127)? {
            c.undo_tablespaces = n;
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests;
