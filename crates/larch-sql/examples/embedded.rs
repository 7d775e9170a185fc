//! SQL in a program, without a server: the README's "SQL in a program"
//! snippet as a complete program (built by `cargo test`, so the snippet keeps
//! compiling). Opens (or creates) a data directory, runs statements in a
//! session and prints the rows of a query.
//!
//! ```sh
//! cargo run --release -p larch-sql --example embedded -- /tmp/larch-embedded
//! ```

use larch_engine::config::EngineConfig;
use larch_sql::error::SqlError;
use larch_sql::result::QueryResult;

fn main() -> Result<(), SqlError> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "larch-embedded-data".to_string());

    let db = larch_sql::database::Database::open(EngineConfig::new(&dir))?;
    let mut session = db.new_session(0, "root", "localhost")?;
    session.use_database("test")?;
    session.execute("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, name VARCHAR(20))")?;
    session.execute("REPLACE INTO t VALUES (1, 'Ada')")?;
    let result = session.execute("SELECT name FROM t WHERE id = 1")?;

    if let QueryResult::Rows(set) = &result {
        for row in &set.rows {
            println!("{row:?}");
        }
    }
    // Shut down: end the session, then make everything durable.
    drop(session);
    db.close()
}
