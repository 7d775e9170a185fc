//! Tests of option handling: command-line and option-file syntax as `mysqld`
//! accepts it (prefixes, `!include`, comments, quoting), value parsing (sizes,
//! booleans, page sizes) and the engine settings built from them.

use super::*;

type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn args(list: &[&str]) -> Result<OptionSet> {
    OptionSet::parse_args(list.iter().copied())
}

fn config(list: &[&str]) -> Result<EngineConfig> {
    EngineConfig::from_options(&args(list)?)
}

/// The message of a configuration error; panics on success or another error.
fn config_err<T: std::fmt::Debug>(r: Result<T>) -> String {
    match r {
        Err(EngineError::Config(msg)) => msg,
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

fn write(dir: &Path, name: &str, text: &str) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    std::fs::write(&path, text)?;
    Ok(path)
}

#[test]
fn page_size_spellings() -> TestResult {
    for a in [
        "--innodb-page-size=8k",
        "--innodb_page_size=8192",
        "--INNODB-Page_Size=8K",
        "--loose-innodb-page-size=8k",
    ] {
        assert_eq!(config(&[a])?.page_size, Some(PageSize::K8), "{a}");
    }
    assert_eq!(
        config(&["--innodb-page-size=64k"])?.page_size,
        Some(PageSize::K64)
    );
    assert_eq!(
        config(&["--innodb-page-size=4096"])?.page_size,
        Some(PageSize::K4)
    );
    assert_eq!(config(&[])?.page_size, None);
    for bad in ["3k", "12345", "128k", "abc", "0"] {
        let msg = config_err(parse_page_size(bad));
        assert!(msg.contains("innodb_page_size"), "{msg}");
        assert!(msg.contains(&format!("'{bad}'")), "{msg}");
    }
    Ok(())
}

#[test]
fn defaults_and_datadir() -> TestResult {
    let c = config(&[])?;
    assert_eq!(c, EngineConfig::new("data"));
    assert_eq!(c.datadir, PathBuf::from("data"));
    let c = config(&["--datadir=/var/lib/larch"])?;
    assert_eq!(c.datadir, PathBuf::from("/var/lib/larch"));
    assert!(config_err(config(&["--datadir="])).contains("datadir"));
    Ok(())
}

#[test]
fn name_normalisation_and_prefixes() -> TestResult {
    let o = args(&[
        "--bind-address=127.0.0.1",
        "--loose-some-plugin-option=7",
        "--loose_other=x",
        "--skip-innodb-doublewrite",
        "--disable-log-bin",
        "--enable-performance-schema",
        "--enable-thing=OFF",
        "--skip-stack-trace=0",
        "--skip-name-resolve",
        "--skip-networking",
        "--skip-skip-grant-tables",
        "--innodb-adaptive-hash-index",
        "--empty=",
    ])?;
    assert_eq!(o.get("bind_address"), Some("127.0.0.1"));
    assert_eq!(o.get("--bind-address"), Some("127.0.0.1"));
    assert_eq!(o.get("BIND-ADDRESS"), Some("127.0.0.1"));
    assert_eq!(o.get("some_plugin_option"), Some("7"));
    assert_eq!(o.get("loose-some-plugin-option"), Some("7"));
    assert_eq!(o.get("other"), Some("x"));
    assert_eq!(o.get("innodb_doublewrite"), Some("0"));
    assert_eq!(o.get("log_bin"), Some("0"));
    assert_eq!(o.get("performance_schema"), Some("1"));
    assert_eq!(o.get("thing"), Some("OFF"));
    assert_eq!(o.get("stack_trace"), Some("1"), "double negative");
    assert_eq!(o.get("skip_name_resolve"), Some("1"));
    assert_eq!(o.get("skip_networking"), Some("1"));
    assert_eq!(o.get("networking"), None);
    assert_eq!(o.get("skip_grant_tables"), Some("0"));
    assert_eq!(o.get("innodb_adaptive_hash_index"), Some("1"));
    assert_eq!(o.get("empty"), Some(""));
    assert_eq!(o.get("missing"), None);
    assert!(!config(&["--skip-innodb-doublewrite"])?.doublewrite);
    assert!(!config(&["--disable-innodb-doublewrite"])?.doublewrite);
    assert!(config(&["--innodb-doublewrite"])?.doublewrite);
    assert!(config(&["--skip-innodb-doublewrite", "--enable-innodb-doublewrite"])?.doublewrite);
    Ok(())
}

#[test]
fn later_settings_override_and_order_is_kept() -> TestResult {
    let mut o = args(&["--port=3306", "--innodb-io-capacity=300", "--port=3307"])?;
    assert_eq!(o.get("port"), Some("3307"));
    o.set("--Innodb-IO-Capacity", "400");
    let mut later = OptionSet::new();
    later.set("socket", "/tmp/s");
    later.set("port", "3308");
    o.merge(later);
    let all: Vec<(&str, &str)> = o.iter().collect();
    assert_eq!(
        all,
        [
            ("port", "3308"),
            ("innodb_io_capacity", "400"),
            ("socket", "/tmp/s")
        ]
    );
    assert_eq!(o.len(), 3);
    assert!(!o.is_empty());
    assert!(OptionSet::default().is_empty());
    Ok(())
}

#[test]
fn bad_arguments_are_named() {
    for bad in ["datadir", "-h", "--", "/tmp/x", "--=5"] {
        let msg = config_err(args(&["--port=1", bad]));
        assert!(msg.contains(&format!("'{bad}'")), "{bad}: {msg}");
    }
    // A value is never taken from the next argument.
    let msg = config_err(args(&["--datadir", "/var/lib/larch"]));
    assert!(msg.contains("'/var/lib/larch'"), "{msg}");
    let msg = config_err(args(&["--defaults-file"]));
    assert!(msg.contains("--defaults-file"), "{msg}");
}

#[test]
fn size_values() -> TestResult {
    assert_eq!(parse_size("16384")?, 16384);
    assert_eq!(parse_size("16k")?, 16 << 10);
    assert_eq!(parse_size("16K")?, 16 << 10);
    assert_eq!(parse_size("128M")?, 128 << 20);
    assert_eq!(parse_size("128m")?, 128 << 20);
    assert_eq!(parse_size("1G")?, 1 << 30);
    assert_eq!(parse_size("2t")?, 2 << 40);
    assert_eq!(parse_size(" 1g ")?, 1 << 30);
    assert_eq!(parse_size("0")?, 0);
    for bad in ["", "k", "1.5G", "-1", "+1", "16KB", "abc", "1 G", "0x10"] {
        assert!(parse_size(bad).is_err(), "{bad:?}");
    }
    assert!(parse_size("99999999999999999999").is_err());
    assert!(parse_size("17179869184G").is_err(), "overflow");
    let c = config(&[
        "--innodb-buffer-pool-size=1G",
        "--innodb_log_file_size=256M",
        "--innodb-log-buffer-size=512k",
    ])?;
    assert_eq!(c.buffer_pool_size, 1 << 30);
    assert_eq!(c.log_file_size, 256 << 20);
    assert_eq!(c.log_buffer_size, 512 << 10);
    Ok(())
}

#[test]
fn bool_values() -> TestResult {
    for t in ["ON", "on", "TRUE", "true", "Yes", "1"] {
        assert!(parse_bool(t)?, "{t}");
    }
    for f in ["OFF", "off", "FALSE", "no", "NO", "0"] {
        assert!(!parse_bool(f)?, "{f}");
    }
    for bad in ["", "2", "maybe", "onn"] {
        assert!(parse_bool(bad).is_err(), "{bad:?}");
    }
    assert!(!config(&["--innodb-doublewrite=OFF"])?.doublewrite);
    assert!(config(&["--innodb-doublewrite=yes"])?.doublewrite);
    Ok(())
}

#[test]
fn engine_variables_are_applied() -> TestResult {
    let c = config(&[
        "--innodb-flush-log-at-trx-commit=2",
        "--innodb-flush-method=O_DIRECT_NO_FSYNC",
        "--innodb-old-blocks-pct=50",
        "--innodb-old-blocks-time=0",
        "--innodb-io-capacity=1000",
        "--innodb-io-capacity-max=5000",
        "--innodb-max-dirty-pages-pct=75.5",
        "--innodb-read-ahead-threshold=0",
        "--innodb-undo-tablespaces=127",
    ])?;
    assert_eq!(c.flush_log_at_trx_commit, 2);
    assert_eq!(c.flush_method, FlushMethod::ODirectNoFsync);
    assert_eq!(c.old_blocks_pct, 50);
    assert_eq!(c.old_blocks_time_ms, 0);
    assert_eq!(c.io_capacity, 1000);
    assert_eq!(c.io_capacity_max, 5000);
    assert_eq!(c.max_dirty_pages_pct, 75.5);
    assert_eq!(c.read_ahead_threshold, 0);
    assert_eq!(c.undo_tablespaces, 127);
    assert_eq!(
        config(&["--innodb-flush-log-at-trx-commit=3"])?.flush_log_at_trx_commit,
        1
    );
    assert_eq!(
        config(&["--innodb-flush-log-at-trx-commit=0"])?.flush_log_at_trx_commit,
        0
    );
    assert_eq!(
        config(&["--innodb-flush-method=fsync"])?.flush_method,
        FlushMethod::Fsync
    );
    assert_eq!(
        config(&["--innodb-flush-method=o_dsync"])?.flush_method,
        FlushMethod::ODsync
    );
    // io_capacity_max defaults to max(2000, 2 * io_capacity).
    assert_eq!(config(&["--innodb-io-capacity=500"])?.io_capacity_max, 2000);
    assert_eq!(
        config(&["--innodb-io-capacity=3000"])?.io_capacity_max,
        6000
    );
    assert_eq!(config(&[])?.io_capacity_max, 2000);
    // Boundaries are inclusive.
    let c = config(&[
        "--innodb-buffer-pool-size=2M",
        "--innodb-log-file-size=1M",
        "--innodb-log-buffer-size=256K",
        "--innodb-old-blocks-pct=95",
        "--innodb-io-capacity=100",
        "--innodb-io-capacity-max=100",
        "--innodb-max-dirty-pages-pct=99.999",
        "--innodb-read-ahead-threshold=64",
        "--innodb-undo-tablespaces=0",
    ])?;
    assert_eq!(c.buffer_pool_size, 2 << 20);
    assert_eq!(c.log_file_size, 1 << 20);
    assert_eq!(c.log_buffer_size, 256 << 10);
    assert_eq!(c.io_capacity_max, 100);
    assert_eq!(c.max_dirty_pages_pct, 99.999);
    assert_eq!(
        config(&["--innodb-log-file-size=512G"])?.log_file_size,
        512 << 30
    );
    assert_eq!(config(&["--innodb-old-blocks-pct=5"])?.old_blocks_pct, 5);
    Ok(())
}

#[test]
fn every_error_names_variable_and_value() {
    let cases: &[(&str, &str)] = &[
        ("innodb_page_size", "3k"),
        ("innodb_page_size", "big"),
        ("innodb_buffer_pool_size", "abc"),
        ("innodb_buffer_pool_size", "1M"),
        ("innodb_buffer_pool_size", "2097151"),
        ("innodb_log_file_size", "1023k"),
        ("innodb_log_file_size", "513G"),
        ("innodb_log_file_size", "x"),
        ("innodb_log_buffer_size", "255k"),
        ("innodb_log_buffer_size", "1.5M"),
        ("innodb_flush_log_at_trx_commit", "4"),
        ("innodb_flush_log_at_trx_commit", "on"),
        ("innodb_doublewrite", "fast"),
        ("innodb_flush_method", "O_DIRECTIO"),
        ("innodb_old_blocks_pct", "4"),
        ("innodb_old_blocks_pct", "96"),
        ("innodb_old_blocks_pct", "x"),
        ("innodb_old_blocks_time", "-1"),
        ("innodb_old_blocks_time", "4294967296"),
        ("innodb_io_capacity", "99"),
        ("innodb_io_capacity", "many"),
        ("innodb_io_capacity_max", "99"),
        ("innodb_max_dirty_pages_pct", "100"),
        ("innodb_max_dirty_pages_pct", "-1"),
        ("innodb_max_dirty_pages_pct", "NaN"),
        ("innodb_max_dirty_pages_pct", "ninety"),
        ("innodb_read_ahead_threshold", "65"),
        ("innodb_undo_tablespaces", "128"),
    ];
    for (name, value) in cases {
        let arg = format!("--{}={value}", name.replace('_', "-"));
        let msg = config_err(config(&[arg.as_str()]));
        assert!(msg.contains(name), "{arg}: {msg}");
        assert!(msg.contains(&format!("'{value}'")), "{arg}: {msg}");
    }
    let msg = config_err(config(&["--innodb-buffer-pool-size=abc"]));
    assert_eq!(msg, "invalid value 'abc' for innodb_buffer_pool_size");
    let msg = config_err(config(&["--innodb-buffer-pool-size=1M"]));
    assert!(msg.contains("minimum is 2M"), "{msg}");
    let msg = config_err(config(&[
        "--innodb-io-capacity=3000",
        "--innodb-io-capacity-max=2000",
    ]));
    assert!(msg.contains("innodb_io_capacity_max"), "{msg}");
    assert!(msg.contains("'2000'"), "{msg}");
    assert!(msg.contains("innodb_io_capacity (3000)"), "{msg}");
    // The Display of the error carries the message too.
    let shown = config(&["--innodb-old-blocks-pct=2"])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(shown.contains("innodb_old_blocks_pct"), "{shown}");
}

#[test]
fn unknown_options_are_ignored() -> TestResult {
    let c = config(&[
        "--port=3306",
        "--bind-address=0.0.0.0",
        "--socket=/tmp/larch.sock",
        "--max-connections=not-a-number",
        "--innodb-some-future-variable=whatever",
        "--loose-unknown-plugin=1",
        "--no-defaults",
    ])?;
    assert_eq!(c, EngineConfig::new("data"));
    let o = args(&["--no-defaults", "--port=3306"])?;
    assert_eq!(o.get("no_defaults"), None);
    assert_eq!(o.get("port"), Some("3306"));
    Ok(())
}

#[test]
fn defaults_file_groups_quotes_comments() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = write(
        dir.path(),
        "my.cnf",
        "\
# Larch test configuration
; another comment style

[client]
port = 1111
innodb_page_size = 4k
socket = /tmp/client.sock

[mysqld]
port=3306
innodb-page-size = 8k   # comment after a value
innodb_buffer_pool_size=256M#not-a-comment-without-space
datadir = \"/var/lib/my data # not a comment\"  # but this is
socket = '/tmp/larch.sock'
log-error = /var/log/larch.err ; semicolons only comment whole lines
skip-name-resolve   # bare option with a comment
loose-innodb-unknown-thing = 5
skip-innodb-doublewrite
tmpdir = C:\\data\\sdir
init_connect = \"SET a=1\\tb\"
[ Mariadb ]
innodb_io_capacity = 400

[mysqldump]
quick
max_allowed_packet = 16M
",
    )?;
    let o = OptionSet::read_defaults_file(&path, SERVER_GROUPS)?;
    assert_eq!(o.get("port"), Some("3306"));
    assert_eq!(o.get("innodb_page_size"), Some("8k"));
    assert_eq!(o.get("socket"), Some("/tmp/larch.sock"));
    assert_eq!(o.get("datadir"), Some("/var/lib/my data # not a comment"));
    assert_eq!(
        o.get("log_error"),
        Some("/var/log/larch.err ; semicolons only comment whole lines")
    );
    assert_eq!(o.get("skip_name_resolve"), Some("1"));
    assert_eq!(o.get("innodb_unknown_thing"), Some("5"));
    assert_eq!(o.get("innodb_doublewrite"), Some("0"));
    assert_eq!(o.get("tmpdir"), Some("C:\\data dir"));
    assert_eq!(o.get("init_connect"), Some("SET a=1\tb"));
    assert_eq!(o.get("innodb_io_capacity"), Some("400"));
    assert_eq!(o.get("quick"), None);
    assert_eq!(o.get("max_allowed_packet"), None);
    // '#' not preceded by whitespace is part of the value, so this one is invalid.
    assert_eq!(
        o.get("innodb_buffer_pool_size"),
        Some("256M#not-a-comment-without-space")
    );
    let msg = config_err(EngineConfig::from_options(&o));
    assert!(msg.contains("innodb_buffer_pool_size"), "{msg}");

    // Only [client] requested.
    let client = OptionSet::read_defaults_file(&path, &["client"])?;
    assert_eq!(client.get("port"), Some("1111"));
    assert_eq!(client.get("innodb_page_size"), Some("4k"));
    assert_eq!(client.get("datadir"), None);
    Ok(())
}

#[test]
fn command_line_overrides_files() -> TestResult {
    let dir = tempfile::tempdir()?;
    let main = write(
        dir.path(),
        "main.cnf",
        "[mysqld]\ninnodb_page_size=8k\ninnodb_buffer_pool_size=64M\nport=3306\n\
         innodb_io_capacity=300\n[client]\ninnodb_io_capacity=999\n",
    )?;
    let extra = write(
        dir.path(),
        "extra.cnf",
        "[larchd]\ninnodb_buffer_pool_size=96M\ninnodb_log_file_size=48M\n",
    )?;
    let defaults = format!("--defaults-file={}", main.display());
    let extra_arg = format!("--defaults-extra-file={}", extra.display());
    // The file options are read first wherever the arguments appear.
    let o = args(&[
        "--innodb-log-file-size=32M",
        &extra_arg,
        "--port=3307",
        &defaults,
    ])?;
    assert_eq!(o.get("port"), Some("3307"));
    assert_eq!(o.get("defaults_file"), None);
    let c = EngineConfig::from_options(&o)?;
    assert_eq!(c.page_size, Some(PageSize::K8));
    assert_eq!(
        c.buffer_pool_size,
        96 << 20,
        "extra file overrides defaults file"
    );
    assert_eq!(
        c.log_file_size,
        32 << 20,
        "command line overrides extra file"
    );
    assert_eq!(c.io_capacity, 300, "[client] is not read");

    let missing = dir.path().join("nope.cnf");
    let msg = config_err(args(&[&format!("--defaults-file={}", missing.display())]));
    assert!(msg.contains(&missing.display().to_string()), "{msg}");
    Ok(())
}

#[test]
fn include_and_includedir() -> TestResult {
    let dir = tempfile::tempdir()?;
    let confd = dir.path().join("conf.d");
    std::fs::create_dir(&confd)?;
    write(
        &confd,
        "20-second.cnf",
        "[mysqld]\ninnodb_io_capacity=500\nport=2\n",
    )?;
    write(
        &confd,
        "10-first.cnf",
        "[mysqld]\ninnodb_io_capacity=400\nport=1\nsocket=/s\n",
    )?;
    write(&confd, "30-ignored.txt", "[mysqld]\nport=99\n")?;
    write(&confd, "40-other-group.cnf", "[client]\nport=98\n")?;
    let inc = write(
        dir.path(),
        "inc.cnf",
        "[mysqld]\ninnodb_page_size=32k\n[client]\ninnodb_old_blocks_pct=6\n",
    )?;
    let main = write(
        dir.path(),
        "my.cnf",
        &format!(
            "[mysqld]\ninnodb_old_blocks_pct=10\ninnodb_page_size=4k\n!include {}\n\
             innodb_undo_tablespaces=2\n!includedir conf.d\n[mysqld]\nport=3\n",
            inc.display()
        ),
    )?;
    let o = OptionSet::read_defaults_file(&main, SERVER_GROUPS)?;
    assert_eq!(
        o.get("innodb_page_size"),
        Some("32k"),
        "!include read in place"
    );
    assert_eq!(
        o.get("innodb_old_blocks_pct"),
        Some("10"),
        "the included file's [client] does not leak into the including [mysqld]"
    );
    assert_eq!(
        o.get("innodb_undo_tablespaces"),
        Some("2"),
        "group context resumes after an include"
    );
    assert_eq!(o.get("innodb_io_capacity"), Some("500"), "sorted by name");
    assert_eq!(o.get("socket"), Some("/s"));
    assert_eq!(o.get("port"), Some("3"));

    // Missing include targets name the path.
    let bad = write(dir.path(), "bad.cnf", "[mysqld]\n!include missing.cnf\n")?;
    let msg = config_err(OptionSet::read_defaults_file(&bad, SERVER_GROUPS));
    assert!(msg.contains("missing.cnf"), "{msg}");
    let bad = write(dir.path(), "bad2.cnf", "!includedir no-such-dir\n")?;
    let msg = config_err(OptionSet::read_defaults_file(&bad, SERVER_GROUPS));
    assert!(msg.contains("no-such-dir"), "{msg}");

    // An include cycle stops at the depth limit instead of recursing forever.
    let cyc = write(dir.path(), "cycle.cnf", "[mysqld]\n!include cycle.cnf\n")?;
    let msg = config_err(OptionSet::read_defaults_file(&cyc, SERVER_GROUPS));
    assert!(msg.contains("nested"), "{msg}");
    Ok(())
}

#[test]
fn malformed_files_are_errors_naming_the_file() -> TestResult {
    let dir = tempfile::tempdir()?;
    let cases = [
        ("nogroup.cnf", "port=3306\n[mysqld]\n", "line 1"),
        ("badgroup.cnf", "[mysqld\nport=1\n", "line 1"),
        ("directive.cnf", "[mysqld]\n!frobnicate x\n", "line 2"),
        ("emptyname.cnf", "[mysqld]\n = 5\n", "line 2"),
        ("spaces.cnf", "[mysqld]\ninnodb page size = 8k\n", "line 2"),
    ];
    for (name, text, line) in cases {
        let path = write(dir.path(), name, text)?;
        let msg = config_err(OptionSet::read_defaults_file(&path, SERVER_GROUPS));
        assert!(msg.contains(name), "{name}: {msg}");
        assert!(msg.contains(line), "{name}: {msg}");
    }
    let missing = dir.path().join("absent.cnf");
    let msg = config_err(OptionSet::read_defaults_file(&missing, SERVER_GROUPS));
    assert!(msg.contains("absent.cnf"), "{msg}");
    // Comments, blank lines and a BOM before the first group are fine.
    let ok = write(
        dir.path(),
        "ok.cnf",
        "\u{feff}# c\n\n; c\r\n[mysqld]\r\nport = 1\r\n",
    )?;
    let o = OptionSet::read_defaults_file(&ok, SERVER_GROUPS)?;
    assert_eq!(o.get("port"), Some("1"));
    Ok(())
}
