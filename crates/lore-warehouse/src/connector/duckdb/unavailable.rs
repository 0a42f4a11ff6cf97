//! The DuckDB connector of a build without the `duckdb` feature: every
//! call answers that the engine is missing and how to get it.

use std::path::PathBuf;
use std::time::Duration;

use super::HOW_TO_BUILD;
use crate::connector::{QueryResult, RowLimit, ServerInfo};
use crate::error::WarehouseError;

/// A DuckDB connection this binary cannot open.
#[derive(Debug)]
pub struct DuckdbConnector {
    id: String,
    timeout: Duration,
}

impl DuckdbConnector {
    /// A connector for connection `id`; `path` and `max_sessions` are
    /// what a build with DuckDB would use.
    pub fn new(id: &str, _path: PathBuf, timeout: Duration, _max_sessions: usize) -> Self {
        DuckdbConnector {
            id: id.to_string(),
            timeout,
        }
    }

    /// What a build with DuckDB would bound its memory to.
    pub fn with_memory_limit(self, _mb: u64) -> Self {
        self
    }

    /// The statement timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn not_built(&self) -> WarehouseError {
        WarehouseError::DriverNotBuilt {
            id: self.id.clone(),
            driver: "duckdb",
            how: HOW_TO_BUILD,
        }
    }

    pub(crate) async fn run(
        &self,
        _sql: &str,
        _limit: RowLimit,
    ) -> Result<QueryResult, WarehouseError> {
        Err(self.not_built())
    }

    pub(crate) async fn server_info(&self) -> Result<ServerInfo, WarehouseError> {
        Err(self.not_built())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::error::{ErrorCode, HasErrorCode};

    #[tokio::test]
    async fn a_build_without_duckdb_says_how_to_get_one() {
        let connector = DuckdbConnector::new("wh", PathBuf::from("wh.duckdb"), Duration::ZERO, 1);
        let err = connector
            .run("SELECT 1", RowLimit::rows(1))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::ConfigError);
        let message = err.to_string();
        assert!(message.contains("connection `wh`"), "{message}");
        assert!(message.contains("--features duckdb"), "{message}");
        let err = connector.server_info().await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::ConfigError);
    }
}
