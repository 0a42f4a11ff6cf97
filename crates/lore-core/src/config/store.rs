//! `store:` in `lore.yaml`: where the knowledge store lives. Without it,
//! the embedded SQLite file `.lore/store.db`; with `url: postgres://…`
//! (a literal, `env:VAR` or `file:PATH`), a PostgreSQL database that
//! several Lore servers share.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::secret::Secret;

/// Where the knowledge store lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StoreConfig {
    /// A PostgreSQL URL (`postgres://USER:PASSWORD@HOST:5432/DB`), written as
    /// a literal, `env:VAR` or `file:PATH`. Leave `store` out for the
    /// embedded SQLite store (`.lore/store.db`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Secret>,
}

impl StoreConfig {
    /// Whether the store is a server's (PostgreSQL) rather than the
    /// embedded file.
    pub fn is_server(&self) -> bool {
        self.url.is_some()
    }

    /// What is wrong with the section, if anything (checked when
    /// `lore.yaml` loads; a URL behind `env:`/`file:` is checked when it
    /// is resolved).
    pub fn problem(&self) -> Option<String> {
        let url = self.url.as_ref()?;
        let written = url.as_written();
        if written.starts_with("env:") || written.starts_with("file:") {
            return None;
        }
        if !(written.starts_with("postgres://") || written.starts_with("postgresql://")) {
            return Some(
                "store.url must be a PostgreSQL URL (postgres://USER:PASSWORD@HOST:5432/DB), env:VAR or file:PATH; leave `store` out for the embedded SQLite store"
                    .to_string(),
            );
        }
        None
    }
}
