//! Tests of the simulated file system: POSIX-like file semantics, what each
//! crash kind keeps (synced, unsynced, torn at a sector), dead handles after a
//! crash, injected faults (failed writes and syncs, a full disk) and that a
//! seeded random crash repeats exactly.

use super::*;

const PAGE: usize = 16384;

fn create(vfs: &SimVfs, path: &str) -> Result<Arc<dyn IoFile>> {
    vfs.open(
        Path::new(path),
        OpenOptions {
            create: true,
            ..OpenOptions::default()
        },
    )
}

fn open(vfs: &SimVfs, path: &str) -> Result<Arc<dyn IoFile>> {
    vfs.open(Path::new(path), OpenOptions::existing())
}

fn read_all(vfs: &SimVfs, path: &str) -> Result<Vec<u8>> {
    let f = open(vfs, path)?;
    let mut buf = vec![0u8; f.len()? as usize];
    f.read_at(&mut buf, 0)?;
    Ok(buf)
}

fn io_kind(e: &EngineError) -> Option<ErrorKind> {
    match e {
        EngineError::Io { source, .. } => Some(source.kind()),
        _ => None,
    }
}

fn raw_os(e: &EngineError) -> Option<i32> {
    match e {
        EngineError::Io { source, .. } => source.raw_os_error(),
        _ => None,
    }
}

/// A directory `d` holding a durable file `d/f` with durable content `old`.
fn setup(vfs: &SimVfs, old: &[u8]) -> Result<Arc<dyn IoFile>> {
    vfs.create_dir_all(Path::new("d"))?;
    let f = create(vfs, "d/f")?;
    f.write_at(old, 0)?;
    f.sync_data()?;
    vfs.sync_dir(Path::new("d"))?;
    Ok(f)
}

#[test]
fn file_semantics() -> Result<()> {
    let vfs = SimVfs::new();
    vfs.create_dir_all(Path::new("/data/sub"))?;
    let f = create(&vfs, "/data/a")?;
    assert!(f.is_empty()?);
    f.write_at(b"xy", 10)?;
    assert_eq!(f.len()?, 12);
    let mut b = [1u8; 12];
    f.read_at(&mut b, 0)?;
    assert_eq!(&b, b"\0\0\0\0\0\0\0\0\0\0xy");
    let e = f.read_at(&mut [0u8; 4], 10).err();
    assert_eq!(e.as_ref().and_then(io_kind), Some(ErrorKind::UnexpectedEof));

    f.allocate(100)?;
    assert_eq!(f.len()?, 100);
    f.allocate(50)?;
    assert_eq!(f.len()?, 100);
    f.truncate(11)?;
    assert_eq!(f.len()?, 11);
    f.truncate(20)?;
    let mut b = [1u8; 9];
    f.read_at(&mut b, 11)?;
    assert_eq!(b, [0u8; 9]);
    assert_eq!(f.path(), Path::new("/data/a"));

    let e = vfs
        .open(Path::new("/data/a"), OpenOptions::create_new())
        .err();
    assert_eq!(e.as_ref().and_then(io_kind), Some(ErrorKind::AlreadyExists));
    let e = open(&vfs, "/data/missing").err();
    assert_eq!(e.as_ref().and_then(io_kind), Some(ErrorKind::NotFound));
    let e = create(&vfs, "/nodir/x").err();
    assert_eq!(e.as_ref().and_then(io_kind), Some(ErrorKind::NotFound));

    let ro = vfs.open(Path::new("/data/a"), OpenOptions::read_only())?;
    ro.read_at(&mut [0u8; 2], 0)?;
    for e in [
        ro.write_at(b"z", 0).err(),
        ro.allocate(1000).err(),
        ro.truncate(0).err(),
    ] {
        assert_eq!(
            e.as_ref().and_then(io_kind),
            Some(ErrorKind::PermissionDenied)
        );
    }

    create(&vfs, "/data/c")?;
    create(&vfs, "/data/b")?;
    create(&vfs, "/data/sub/deep")?;
    assert_eq!(
        vfs.list_dir(Path::new("/data"))?,
        vec![
            PathBuf::from("a"),
            PathBuf::from("b"),
            PathBuf::from("c"),
            PathBuf::from("sub")
        ]
    );
    assert!(vfs.exists(Path::new("/data/b")));
    assert!(vfs.exists(Path::new("/data/sub")));
    vfs.remove_file(Path::new("/data/b"))?;
    assert!(!vfs.exists(Path::new("/data/b")));
    let e = vfs.remove_file(Path::new("/data/b")).err();
    assert_eq!(e.as_ref().and_then(io_kind), Some(ErrorKind::NotFound));
    vfs.rename(Path::new("/data/c"), Path::new("/data/sub/c2"))?;
    assert_eq!(
        vfs.list_dir(Path::new("/data/sub"))?,
        vec![PathBuf::from("c2"), PathBuf::from("deep")]
    );
    // An unlinked file stays usable through its open handle.
    vfs.remove_file(Path::new("/data/a"))?;
    f.write_at(b"still", 0)?;
    let mut b = [0u8; 5];
    f.read_at(&mut b, 0)?;
    assert_eq!(&b, b"still");
    Ok(())
}

#[test]
fn unsynced_write_lost_by_crash_drop_unsynced() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, &[1u8; PAGE])?;
    f.write_at(&[2u8; PAGE], 0)?;
    f.write_at(&[3u8; PAGE], PAGE as u64)?;
    // A file that was never synced, in a directory never synced afterwards.
    create(&vfs, "d/new")?.write_at(b"data", 0)?;
    vfs.crash_drop_unsynced();
    assert_eq!(read_all(&vfs, "d/f")?, vec![1u8; PAGE]);
    assert!(!vfs.exists(Path::new("d/new")));
    Ok(())
}

#[test]
fn crash_keep_all_keeps_unsynced_writes() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, &[1u8; PAGE])?;
    f.write_at(&[2u8; PAGE], 0)?;
    f.truncate(PAGE as u64 / 2)?;
    vfs.crash_keep_all();
    assert_eq!(read_all(&vfs, "d/f")?, vec![2u8; PAGE / 2]);
    Ok(())
}

#[test]
fn synced_write_survives_every_crash_kind() -> Result<()> {
    type Crash = fn(&SimVfs);
    let kinds: [Crash; 3] = [
        SimVfs::crash,
        SimVfs::crash_keep_all,
        SimVfs::crash_drop_unsynced,
    ];
    for (seed, crash) in kinds.into_iter().enumerate() {
        let vfs = SimVfs::with_seed(seed as u64);
        vfs.create_dir_all(Path::new("d"))?;
        // Existence made durable by syncing the file itself, no sync_dir.
        let f = create(&vfs, "d/f")?;
        f.write_at(&[7u8; PAGE], 0)?;
        f.allocate(2 * PAGE as u64)?;
        f.sync_all()?;
        crash(&vfs);
        let mut want = vec![7u8; PAGE];
        want.resize(2 * PAGE, 0);
        assert_eq!(read_all(&vfs, "d/f")?, want);
    }
    Ok(())
}

#[test]
fn dsync_writes_are_durable() -> Result<()> {
    let vfs = SimVfs::new();
    let f = vfs.open(
        Path::new("log"),
        OpenOptions {
            create: true,
            dsync: true,
            ..OpenOptions::default()
        },
    )?;
    f.write_at(b"record", 0)?;
    vfs.crash_drop_unsynced();
    assert_eq!(read_all(&vfs, "log")?, b"record");
    Ok(())
}

#[test]
fn handles_dead_after_crash() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, b"abc")?;
    vfs.crash();
    let errs = [
        f.read_at(&mut [0u8; 1], 0).err(),
        f.write_at(b"x", 0).err(),
        f.sync_data().err(),
        f.sync_all().err(),
        f.allocate(10).err(),
        f.truncate(0).err(),
        f.len().err(),
    ];
    for e in errs {
        match e {
            Some(EngineError::Io { source, .. }) => {
                assert_eq!(source.kind(), ErrorKind::Other);
                assert_eq!(source.to_string(), "simulated crash: file handle is dead");
            }
            other => panic!("expected dead-handle error, got {other:?}"),
        }
    }
    // The restarted process opens the file normally.
    let g = open(&vfs, "d/f")?;
    g.write_at(b"z", 0)?;
    assert_eq!(read_all(&vfs, "d/f")?, b"zbc");
    drop(f);
    assert_eq!(read_all(&vfs, "d/f")?, b"zbc");
    Ok(())
}

#[test]
fn torn_write_at_crash_point() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, &[0xAA; PAGE])?;
    let other = create(&vfs, "d/other")?;
    other.sync_all()?;
    other.write_at(b"kept whole", 0)?;
    vfs.set_fault(Some(SimFault::CrashAfterWrites {
        writes: 2,
        torn: true,
    }));
    let before = vfs.write_count();
    f.write_at(&[0xCC; 100], PAGE as u64)?;
    other.write_at(b"!", 10)?;
    assert_eq!(vfs.write_count(), before + 2);
    let e = f.write_at(&[0xBB; PAGE], 0).err();
    assert_eq!(e.as_ref().and_then(io_kind), Some(ErrorKind::Other));
    assert_eq!(vfs.write_count(), before + 2);

    let data = read_all(&vfs, "d/f")?;
    assert_eq!(data.len(), PAGE + 100);
    assert!(data[..PAGE / 2].iter().all(|&b| b == 0xBB));
    assert!(data[PAGE / 2..PAGE].iter().all(|&b| b == 0xAA));
    assert!(data[PAGE..].iter().all(|&b| b == 0xCC));
    assert_eq!(read_all(&vfs, "d/other")?, b"kept whole!");
    // The fault fired once and is gone.
    open(&vfs, "d/f")?.write_at(&[0xBB; PAGE], 0)?;
    Ok(())
}

#[test]
fn untorn_crash_point_drops_the_write() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, &[0xAA; PAGE])?;
    vfs.set_fault(Some(SimFault::CrashAfterWrites {
        writes: 0,
        torn: false,
    }));
    assert!(f.write_at(&[0xBB; PAGE], 0).is_err());
    assert_eq!(read_all(&vfs, "d/f")?, vec![0xAA; PAGE]);
    assert_eq!(torn_len(1000), 500);
    assert_eq!(torn_len(3000), 1024);
    Ok(())
}

#[test]
fn disk_full_is_enospc() -> Result<()> {
    let vfs = SimVfs::new();
    let f = create(&vfs, "f")?;
    let g = create(&vfs, "g")?;
    g.write_at(&[1u8; 1000], 0)?;
    vfs.set_fault(Some(SimFault::DiskFull { limit_bytes: 4096 }));
    f.write_at(&[2u8; 3000], 0)?;
    let e = f.write_at(&[3u8; 200], 2990).err();
    assert!(matches!(e, Some(EngineError::DiskFull { .. })), "{e:?}");
    assert!(matches!(
        f.allocate(4000).err(),
        Some(EngineError::DiskFull { .. })
    ));
    // No effect, and overwrites inside the file still work.
    assert_eq!(f.len()?, 3000);
    f.write_at(&[4u8; 100], 0)?;
    f.write_at(&[5u8; 96], 3000)?;
    vfs.set_fault(None);
    f.allocate(8192)?;
    assert_eq!(f.len()?, 8192);
    Ok(())
}

#[test]
fn failed_sync_loses_the_writes() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, &[1u8; 512])?;
    f.write_at(&[2u8; 512], 0)?;
    vfs.set_fault(Some(SimFault::FailSync {
        path_contains: "d/f".into(),
    }));
    let e = f.sync_data().err();
    assert_eq!(e.as_ref().and_then(raw_os), Some(libc::EIO));
    // Still readable until the crash.
    let mut b = [0u8; 1];
    f.read_at(&mut b, 0)?;
    assert_eq!(b[0], 2);
    // A later successful sync does not bring them back.
    vfs.set_fault(None);
    f.sync_data()?;
    vfs.crash_keep_all();
    assert_eq!(read_all(&vfs, "d/f")?, vec![1u8; 512]);
    Ok(())
}

#[test]
fn failed_writes_have_no_effect() -> Result<()> {
    let vfs = SimVfs::new();
    let f = create(&vfs, "redo.log")?;
    vfs.set_fault(Some(SimFault::FailWrites {
        path_contains: "redo".into(),
    }));
    let e = f.write_at(b"x", 0).err();
    assert_eq!(e.as_ref().and_then(raw_os), Some(libc::EIO));
    assert_eq!(f.len()?, 0);
    assert_eq!(vfs.write_count(), 0);
    create(&vfs, "other")?.write_at(b"x", 0)?;
    assert_eq!(vfs.write_count(), 1);
    Ok(())
}

#[test]
fn rename_needs_sync_dir() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, b"content")?;
    vfs.rename(Path::new("d/f"), Path::new("d/g"))?;
    f.sync_all()?;
    assert!(vfs.exists(Path::new("d/g")));
    vfs.crash();
    assert!(vfs.exists(Path::new("d/f")));
    assert!(!vfs.exists(Path::new("d/g")));
    assert_eq!(read_all(&vfs, "d/f")?, b"content");

    vfs.rename(Path::new("d/f"), Path::new("d/g"))?;
    vfs.sync_dir(Path::new("d"))?;
    vfs.crash();
    assert!(!vfs.exists(Path::new("d/f")));
    assert_eq!(read_all(&vfs, "d/g")?, b"content");

    // A removal is undone by a crash before sync_dir too.
    vfs.remove_file(Path::new("d/g"))?;
    vfs.crash_keep_all();
    assert_eq!(read_all(&vfs, "d/g")?, b"content");
    Ok(())
}

/// Runs a fixed workload and a random crash; returns the resulting file.
fn random_crash_run(seed: u64) -> Result<Vec<u8>> {
    let vfs = SimVfs::with_seed(seed);
    let f = setup(&vfs, &vec![0u8; 64 * PAGE])?;
    for i in 0..64u8 {
        f.write_at(&vec![i + 1; PAGE], u64::from(i) * PAGE as u64 + 100)?;
    }
    vfs.crash();
    read_all(&vfs, "d/f")
}

#[test]
fn random_crash_is_deterministic_and_sector_torn() -> Result<()> {
    let a = random_crash_run(42)?;
    assert_eq!(a, random_crash_run(42)?);
    assert_ne!(a, random_crash_run(43)?);
    // Every byte is the synced zero, or some write's value; a write's bytes
    // that survive form a prefix of it ending at a sector boundary (or its end).
    assert!(a.len() >= 64 * PAGE);
    let (mut dropped, mut whole, mut torn) = (0, 0, 0);
    for i in 0..64usize {
        let start = i * PAGE + 100;
        let end = (start + PAGE).min(a.len());
        // The writes are disjoint: this range shows write i or the zeros.
        let v = (i + 1) as u8;
        let kept = a[start..end].iter().take_while(|&&b| b == v).count();
        assert!(a[start + kept..end].iter().all(|&b| b == 0));
        if kept == 0 {
            dropped += 1;
        } else if kept == PAGE {
            whole += 1;
        } else {
            assert_eq!((start + kept) % SECTOR, 0);
            torn += 1;
        }
    }
    assert!(
        dropped > 0 && whole > 0 && torn > 0,
        "{dropped} {whole} {torn}"
    );
    Ok(())
}

#[test]
fn many_page_writes_are_cheap() -> Result<()> {
    let vfs = SimVfs::new();
    let f = setup(&vfs, &[])?;
    for i in 0..20_000u64 {
        f.write_at(&[i as u8; PAGE], (i % 4096) * PAGE as u64)?;
        if i % 1000 == 999 {
            f.sync_data()?;
        }
    }
    assert_eq!(vfs.write_count(), 20_001);
    vfs.crash();
    assert_eq!(open(&vfs, "d/f")?.len()?, 4096 * PAGE as u64);
    Ok(())
}
