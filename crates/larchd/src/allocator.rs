//! The server's memory allocator, chosen at build time by a cargo feature
//! of `larchd`: `jemalloc` (the default), `mimalloc`, or neither (the
//! system allocator, glibc's malloc).
//!
//! The server allocates for every statement (rows, values, results), on
//! one thread per connection. What decides between the allocators is how
//! their per-thread state behaves when there are far more connection
//! threads than CPUs: each thread's own heap (mimalloc's pages, glibc's
//! and jemalloc's thread caches) is cold in the CPU caches by the time the
//! thread runs again. Server CPU per query with sysbench on 2 CPUs
//! (`bench/compare/txn_cost.sh`, several runs each; bench/README.md,
//! "Measured: allocators at 16 and 1,024 connections"):
//!
//! | per query | point_select 16 thr | point_select 1,024 | read_only 16 | read_only 1,024 |
//! |---|---|---|---|---|
//! | mimalloc | 9.5-10.1 µs | 37.9-39.1 µs | 21.6-25.2 µs | 68.3-72.9 µs |
//! | jemalloc, per-CPU arenas, small thread cache | 9.1-9.7 µs | 31.5-35.2 µs | 24.7-27.4 µs | 55.2-56.3 µs |
//! | jemalloc, per-CPU arenas, no thread cache | 14.9-16.7 µs | 32.2-33.7 µs | 35.3-36.3 µs | 53.5-54.9 µs |
//! | glibc | 12.7 µs | 36.4 µs | 29.2 µs | 90.2 µs |
//!
//! jemalloc with per-CPU arenas and a small thread cache (the `jemalloc`
//! feature, the default, with the options in [`JEMALLOC_CONF`]) costs about
//! 20% less per `oltp_read_only` query at 1,024 connections than mimalloc
//! and keeps less memory (peak RSS 449-475 MiB against 555-561 MiB). Side by
//! side with MariaDB at 1,024 threads it gave 1.30 and 1.06 of MariaDB's
//! throughput (point selects, `oltp_read_only`) against 1.02 and 0.93 with
//! mimalloc; at 16 threads 2.02 against 1.63 for point selects and 1.13
//! against 1.21 for `oltp_read_only`, where mimalloc is about 10% cheaper
//! per query. Thousands of connections must not cost throughput, so
//! jemalloc is the default; mimalloc remains a build option
//! (`--no-default-features --features mimalloc`). Without any thread cache
//! jemalloc is cheaper still at 1,024 but half again as costly at 16; glibc
//! loses at both.
//!
//! mimalloc is built without transparent huge pages (its `no_thp`
//! feature): each thread that runs a statement gets its own 64 KiB pages
//! per size class, and with huge pages every one of them became a 2 MiB
//! resident page. Measured with sysbench oltp_read_write at 512 threads
//! (each statement waiting for a row lock holds a thread): peak RSS
//! 1,467 MiB with huge pages, 298 MiB without. Where the kernel puts huge
//! pages under every mapping anyway (`transparent_hugepage=always`),
//! `disable_transparent_huge_pages` (in `main`) turns them off for the
//! process once the buffer pool is allocated.

#[cfg(all(feature = "mimalloc", not(feature = "jemalloc")))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "jemalloc")]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options with the `jemalloc` feature: one arena per CPU, so a
/// thread that runs after a long sleep allocates from the arena of the CPU
/// it runs on, which the other threads on that CPU keep warm; a thread
/// cache of at most 20 objects per small size class, 4 per large one, for
/// sizes up to 4 KiB, enough to spare the arena's lock within a statement
/// without much to go cold between statements; and jemalloc's background
/// threads, which return the pages a big statement freed to the system
/// (after `dirty_decay_ms`, 10 s) even when no thread allocates again.
/// Without them an idle server kept what its largest statement took: a
/// GROUP BY of 632,000 groups over 1,000,000 rows left RSS at 592 MiB
/// (389 MiB before it); with them it went back to 160 MiB within 12 s, and
/// a server that had loaded the rows idled at 154 MiB instead of 418 MiB.
/// The environment variable `_RJEM_MALLOC_CONF` is applied after these and
/// may change them.
#[cfg(feature = "jemalloc")]
pub const JEMALLOC_CONF: &std::ffi::CStr = c"percpu_arena:percpu,tcache_nslots_small_max:20,tcache_nslots_large:4,tcache_max:4096,background_thread:true";

/// The options string jemalloc reads at its first allocation (its
/// `malloc_conf` symbol, under the prefix of the `tikv-jemalloc-sys` build).
#[cfg(feature = "jemalloc")]
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: Option<&'static std::ffi::c_char> = {
    let first: *const std::ffi::c_char = JEMALLOC_CONF.as_ptr();
    // SAFETY: `first` points at the first byte of a NUL-terminated string
    // literal with a 'static lifetime, so the reference is valid for the
    // whole program and jemalloc reads the string up to its NUL.
    Some(unsafe { &*first })
};
