//! Tests of option parsing.

use super::*;

fn run(args: &[&str]) -> Result<ServerOptions, String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    match parse(&args)? {
        Command::Run(o) => Ok(*o),
        other => Err(format!("expected Run, got {other:?}")),
    }
}

#[test]
fn defaults() -> Result<(), String> {
    let o = run(&[])?;
    assert_eq!(o.port, 3306);
    assert_eq!(o.bind_addresses, vec!["127.0.0.1".to_owned()]);
    assert!(o.engine.datadir.is_absolute());
    assert!(o.engine.datadir.ends_with("data"));
    assert_eq!(o.socket, o.engine.datadir.join("larchd.sock"));
    assert_eq!(o.pid_file, o.engine.datadir.join("larchd.pid"));
    assert_eq!(o.max_connections, 151);
    assert!(o.log_error.is_none());
    assert!(!o.skip_networking);
    Ok(())
}

#[test]
fn server_and_engine_options() -> Result<(), String> {
    let o = run(&[
        "--datadir",
        "/tmp/x",
        "--port=3307",
        "--bind-address=0.0.0.0",
        "--socket=s.sock",
        "--skip-networking",
        "--max_connections",
        "10",
        "--log-error",
        "--pid-file=/run/p.pid",
        "--innodb-buffer-pool-size=16M",
        "--skip-name-resolve",
        "--loose-frobnicate=1",
    ])?;
    assert_eq!(o.engine.datadir, PathBuf::from("/tmp/x"));
    assert_eq!(o.port, 3307);
    assert_eq!(o.bind_addresses, vec!["0.0.0.0".to_owned()]);
    assert_eq!(o.socket, PathBuf::from("/tmp/x/s.sock"));
    assert!(o.skip_networking);
    assert_eq!(o.max_connections, 10);
    assert_eq!(o.log_error, Some(PathBuf::from("/tmp/x/larchd.err")));
    assert_eq!(o.pid_file, PathBuf::from("/run/p.pid"));
    assert_eq!(o.engine.buffer_pool_size, 16 << 20);
    assert_eq!(o.ignored.len(), 1);
    assert_eq!(o.ignored[0].0, "skip_name_resolve");
    assert_eq!(o.warnings.len(), 1);
    Ok(())
}

#[test]
fn unknown_and_bad_options_are_errors() {
    let e = run(&["--frobnicate=1"]).err().unwrap_or_default();
    assert!(e.contains("unknown option '--frobnicate'"), "{e}");
    let e = run(&["-x"]).err().unwrap_or_default();
    assert!(e.contains("'-x'"), "{e}");
    let e = run(&["--port=70000"]).err().unwrap_or_default();
    assert!(e.contains("port"), "{e}");
    let e = run(&["--innodb-page-size=3k"]).err().unwrap_or_default();
    assert!(e.contains("innodb_page_size"), "{e}");
}

#[test]
fn ssl_options() -> Result<(), String> {
    assert_eq!(run(&[])?.ssl, None);
    let o = run(&[
        "--datadir=/d",
        "--ssl-cert=c.pem",
        "--ssl_key=/k.pem",
        "--ssl",
    ])?;
    assert_eq!(
        o.ssl,
        Some(SslFiles {
            cert: PathBuf::from("/d/c.pem"),
            key: PathBuf::from("/k.pem"),
            ca: None,
        })
    );
    assert!(o.ignored.is_empty(), "{:?}", o.ignored);
    // The key defaults to the certificate file.
    let o = run(&["--ssl-cert=/both.pem", "--ssl-ca", "/ca.pem"])?;
    let ssl = o.ssl.ok_or("no ssl")?;
    assert_eq!(ssl.key, PathBuf::from("/both.pem"));
    assert_eq!(ssl.ca, Some(PathBuf::from("/ca.pem")));
    assert_eq!(run(&["--ssl-cert=/c.pem", "--skip-ssl"])?.ssl, None);
    let e = run(&["--ssl-key=/k.pem"]).err().unwrap_or_default();
    assert!(e.contains("need --ssl-cert"), "{e}");
    Ok(())
}

#[test]
fn ssl_options_from_a_defaults_file() -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("larchd-options-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cnf = dir.join("my.cnf");
    std::fs::write(
        &cnf,
        "[mysqld]\nssl-cert=/etc/larch/cert.pem\n[server]\nssl_key=/etc/larch/key.pem\nssl-ca=/etc/larch/ca.pem\n",
    )
    .map_err(|e| e.to_string())?;
    let o = run(&[&format!("--defaults-file={}", cnf.display())]);
    let _ = std::fs::remove_dir_all(&dir);
    let ssl = o?.ssl.ok_or("no ssl")?;
    assert_eq!(ssl.cert, PathBuf::from("/etc/larch/cert.pem"));
    assert_eq!(ssl.key, PathBuf::from("/etc/larch/key.pem"));
    assert_eq!(ssl.ca, Some(PathBuf::from("/etc/larch/ca.pem")));
    Ok(())
}

#[test]
fn help_and_version() -> Result<(), String> {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches!(
        parse(&args(&["--help", "--verbose"]))?,
        Command::Help { verbose: true }
    ));
    assert!(matches!(parse(&args(&["-V"]))?, Command::Version));
    Ok(())
}

#[test]
fn thread_handling_and_cache() -> Result<(), String> {
    let o = run(&[])?;
    assert_eq!(o.thread_handling, ThreadHandling::OneThreadPerConnection);
    assert_eq!(o.thread_cache_size, 256);
    let o = run(&["--thread-handling=pool-of-threads", "--thread-cache-size=8"])?;
    assert_eq!(o.thread_handling, ThreadHandling::PoolOfThreads);
    assert_eq!(o.thread_handling.name(), "pool-of-threads");
    assert_eq!(o.thread_cache_size, 8);
    // The cache size is also the global variable's start-up value.
    assert!(o
        .ignored
        .iter()
        .any(|(n, v)| n == "thread_cache_size" && v == "8"));
    let o = run(&["--thread_handling", "One-Thread-Per-Connection"])?;
    assert_eq!(o.thread_handling, ThreadHandling::OneThreadPerConnection);
    let e = run(&["--thread-handling=no-threads"])
        .err()
        .unwrap_or_default();
    assert!(e.contains("thread_handling"), "{e}");
    let e = run(&["--thread-cache-size=-1"]).err().unwrap_or_default();
    assert!(e.contains("thread_cache_size"), "{e}");
    Ok(())
}
