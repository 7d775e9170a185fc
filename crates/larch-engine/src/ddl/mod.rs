//! Index builds: new secondary indexes of an existing table filled from one
//! scan of its rows, sorted inside one memory budget and written bottom-up.
//!
//! - [`sort_buffer`]: entries of all the new indexes in one block of
//!   memory, sorted by index and key;
//! - [`run_file`]: sorted runs in unnamed temporary files;
//! - [`merge`]: the external merge of an index's runs;
//! - [`index_build`]: the build itself ([`build_indexes`]), with a sort
//!   thread beside the scan and indexes merged and built in parallel.
//!
//! The catalog ([`crate::catalog::Catalog::change_indexes`]) makes a build
//! crash-safe: the trees are created empty, built, then put in the table's
//! definition in one dictionary change; a crash before that frees them at
//! the next start. The build itself writes only pages of its own trees,
//! each in a mini-transaction of its own, so a crash leaves nothing
//! half-visible. Either the SQL layer holds the table's exclusive metadata
//! lock meanwhile, so no row changes under the scan, or the build is online
//! and the changes made beside it reach the new indexes through the table's
//! online log (`crate::table::OnlineIndexLog`).

pub mod index_build;
pub mod merge;
pub mod run_file;
pub mod sort_buffer;

pub use index_build::{
    build_indexes, BuildOptions, BuildStats, NewIndex, Suspects, MAX_SUSPECTS, MIN_BUDGET,
};
pub use sort_buffer::SortBuffer;
