//! The `lore.yaml` model and its loader.
//!
//! A project is configured by one YAML file. Loading it is strict where a
//! mistake would silently do the wrong thing (malformed YAML, wrong types,
//! unknown drivers, missing required fields: errors with line and column) and
//! lenient where it would not (unknown keys: warnings naming the key, so a
//! file written for a newer Lore still loads).
//!
//! Secrets are never stored resolved: a [`Secret`] keeps the reference
//! (`env:VAR`, `file:PATH` or a literal) and is resolved only when a
//! connection is opened.

mod connection_entry;
mod diagnostics;
mod gateway;
mod llm;
mod mcp;
mod reference;
mod scan;
mod search;
mod secret;
mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, HasErrorCode};
pub use connection_entry::with_connection_written;
pub use gateway::{
    BackupsConfig, EDITOR_URI_PLACEHOLDERS, FollowConfig, FollowWatch, GatewayConfig, GatewayRoot,
    LifecycleConfig, ToolScopes, UploadsConfig, is_root_name, render_editor_uri, with_root_added,
};
pub use llm::{LlmConfig, LlmProtocol};
pub use mcp::{McpConfig, RateLimitConfig, Scope, TokenConfig, Toolset};
pub use scan::{DEFAULT_DICTIONARY_EXCLUDES, DictionaryConfig, ScanConfig, pattern_matches};
pub use search::{EMBEDDABLE_KINDS, EmbeddingsConfig, SearchConfig};
pub use secret::Secret;
pub use store::StoreConfig;

/// The file name Lore looks for in a project directory.
pub const CONFIG_FILE_NAME: &str = "lore.yaml";

/// Default statement timeout for a connection, in milliseconds.
pub const DEFAULT_STATEMENT_TIMEOUT_MS: u64 = 30_000;

/// Sessions a connection keeps open at most, unless configured.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4;

/// Default MCP HTTP port.
pub const DEFAULT_MCP_PORT: u16 = 7878;

/// The whole of `lore.yaml`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "lore.yaml", description = "Configuration of a Lore project.")]
pub struct LoreConfig {
    /// Data connections, keyed by connection id (letters, digits, `_` and `-`).
    /// Agents pass the id as `connectionId`. An empty `connections:` means none.
    #[serde(default, deserialize_with = "null_as_no_connections")]
    #[schemars(with = "Option<BTreeMap<String, ConnectionConfig>>")]
    pub connections: BTreeMap<String, ConnectionConfig>,
    /// Settings of the MCP server (`lore mcp serve`, `lore demo`).
    #[serde(default)]
    pub mcp: McpConfig,
    /// Settings of search (`discover_data`, `wiki_search`, `lore search`).
    #[serde(default)]
    pub search: SearchConfig,
    /// How large and deep the SQL that agents send may be.
    #[serde(default)]
    pub limits: crate::limits::SqlLimits,
    /// The repositories the knowledge gateway ingests.
    #[serde(default)]
    pub gateway: GatewayConfig,
    /// The chat model `memory_ingest` triages notes with (optional; without it
    /// triage is deterministic and needs no network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmConfig>,
    /// Where the knowledge store lives: leave it out for the embedded
    /// SQLite file, or give a PostgreSQL `url` that several servers share.
    #[serde(default, skip_serializing_if = "is_default_store")]
    pub store: StoreConfig,
}

impl LoreConfig {
    /// The files `file:PATH` secrets read (as written, relative to the
    /// project), each with the setting that names it: connection URLs,
    /// keys and credentials, tokens, API keys, the store's URL.
    pub fn secret_files(&self) -> Vec<(String, String)> {
        self.secrets()
            .into_iter()
            .filter_map(|(setting, secret)| Some((setting, secret.file()?.to_string())))
            .collect()
    }

    /// The environment variables `env:VAR` secrets read, each once with
    /// the first setting that names it (`connections.shop.url`,
    /// `mcp.tokens (ci)`, …), in the order of the settings.
    pub fn secret_env_vars(&self) -> Vec<(String, String)> {
        let mut vars: Vec<(String, String)> = Vec::new();
        for (setting, secret) in self.secrets() {
            if let Some(var) = secret.env_var()
                && !vars.iter().any(|(known, _)| known == var)
            {
                vars.push((var.to_string(), setting));
            }
        }
        vars
    }

    /// Every secret setting, named as `lore config check` names it.
    fn secrets(&self) -> Vec<(String, &Secret)> {
        let mut secrets: Vec<(String, &Secret)> = Vec::new();
        for (id, conn) in &self.connections {
            for (field, secret) in [
                ("url", &conn.url),
                ("private_key", &conn.private_key),
                ("credentials", &conn.credentials),
            ] {
                if let Some(secret) = secret {
                    secrets.push((format!("connections.{id}.{field}"), secret));
                }
            }
        }
        for token in &self.mcp.tokens {
            secrets.push((format!("mcp.tokens ({})", token.name), &token.token));
        }
        if let Some(key) = self
            .search
            .embeddings
            .as_ref()
            .and_then(|e| e.api_key.as_ref())
        {
            secrets.push(("search.embeddings.api_key".to_string(), key));
        }
        if let Some(key) = self.llm.as_ref().and_then(|l| l.api_key.as_ref()) {
            secrets.push(("llm.api_key".to_string(), key));
        }
        if let Some(url) = &self.store.url {
            secrets.push(("store.url".to_string(), url));
        }
        secrets
    }
}

/// `connections:` with nothing under it (YAML null), as `lore init` writes
/// it above its commented examples, is a project without connections.
fn null_as_no_connections<'de, D>(
    deserializer: D,
) -> Result<BTreeMap<String, ConnectionConfig>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Connections;
    impl<'de> serde::de::Visitor<'de> for Connections {
        type Value = BTreeMap<String, ConnectionConfig>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a mapping of connection ids to connections")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut connections = BTreeMap::new();
            while let Some((id, connection)) = map.next_entry()? {
                connections.insert(id, connection);
            }
            Ok(connections)
        }
    }
    // Not `Option::deserialize`: its `Some` would add a `?` to the key
    // paths of unknown-key warnings.
    deserializer.deserialize_any(Connections)
}

fn is_default_store(store: &StoreConfig) -> bool {
    *store == StoreConfig::default()
}

/// One data connection.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConnectionConfig {
    /// Database driver.
    pub driver: Driver,
    /// SQLite and DuckDB only: database file, absolute or relative to the project directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Server drivers only: connection URL. May be a literal, `env:VAR` or `file:PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Secret>,
    /// Snowflake only: the PKCS#8 PEM private key of key-pair (JWT) authentication,
    /// used instead of a password. A literal, `env:VAR`, or `file:PATH` (the whole file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<Secret>,
    /// BigQuery only: the service-account key (JSON), as `file:key.json`
    /// (the whole file), `env:VAR` or the JSON itself. Default: the file
    /// named by `GOOGLE_APPLICATION_CREDENTIALS`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<Secret>,
    /// What this connection holds, shown to agents by `connection_list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Statement timeout in milliseconds (default 30000). Queries running longer are interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement_timeout_ms: Option<u64>,
    /// Server drivers and DuckDB: the schemas (PostgreSQL, DuckDB) or databases (MySQL) that
    /// `lore scan` reads.
    /// Default: every schema except the system ones (PostgreSQL); the URL's database, else
    /// every non-system database (MySQL), every schema of the file (DuckDB). SQLite has one
    /// schema and ignores this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schemas: Option<Vec<String>>,
    /// Most database sessions Lore keeps open on this connection at once (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<u32>,
    /// DuckDB only: the most memory DuckDB may use, in MiB (default 1024; DuckDB's own
    /// default is 80% of the machine's RAM). A query needing more fails with
    /// `budget_exceeded`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit_mb: Option<u32>,
    /// How `lore scan` profiles this connection.
    #[serde(default)]
    pub scan: ScanConfig,
}

impl ConnectionConfig {
    /// Resolves the connection URL of server drivers (`None` for SQLite).
    /// `id` names the connection in error messages.
    pub fn resolved_url(
        &self,
        id: &str,
        project_dir: &Path,
    ) -> Result<Option<String>, ConfigError> {
        self.url
            .as_ref()
            .map(|url| url.resolve(&format!("connection `{id}` url"), project_dir))
            .transpose()
    }

    /// The statement timeout in effect for this connection.
    pub fn statement_timeout_ms(&self) -> u64 {
        self.statement_timeout_ms
            .unwrap_or(DEFAULT_STATEMENT_TIMEOUT_MS)
    }

    /// The session limit in effect for this connection.
    pub fn max_connections(&self) -> u32 {
        self.max_connections.unwrap_or(DEFAULT_MAX_CONNECTIONS)
    }

    /// A connection of `driver` with every optional setting at its default.
    pub fn new(driver: Driver) -> ConnectionConfig {
        ConnectionConfig {
            driver,
            path: None,
            url: None,
            private_key: None,
            credentials: None,
            description: None,
            statement_timeout_ms: None,
            schemas: None,
            max_connections: None,
            memory_limit_mb: None,
            scan: ScanConfig::default(),
        }
    }
}

/// Database drivers Lore knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Driver {
    /// Embedded SQLite file (opened read-only).
    Sqlite,
    /// PostgreSQL server.
    Postgres,
    /// MySQL or MariaDB server.
    #[serde(alias = "mariadb")]
    Mysql,
    /// ClickHouse server, over its HTTP interface.
    Clickhouse,
    /// Snowflake, over its connector REST protocol.
    Snowflake,
    /// Google BigQuery (REST v2, a service-account key).
    Bigquery,
    /// Embedded DuckDB file (opened read-only; needs a binary built with
    /// the `duckdb` feature).
    Duckdb,
}

impl Driver {
    /// The driver's name as written in `lore.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Driver::Sqlite => "sqlite",
            Driver::Postgres => "postgres",
            Driver::Mysql => "mysql",
            Driver::Clickhouse => "clickhouse",
            Driver::Snowflake => "snowflake",
            Driver::Bigquery => "bigquery",
            Driver::Duckdb => "duckdb",
        }
    }
}

/// Something in `lore.yaml` worth telling the user that does not stop loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    /// The warning, naming the key it concerns.
    pub message: String,
}

/// A loaded configuration plus the warnings found while loading it.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The configuration.
    pub config: LoreConfig,
    /// Unknown keys and similar non-fatal findings.
    pub warnings: Vec<ConfigWarning>,
}

/// Why a configuration could not be loaded or a secret not resolved.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// There is no `lore.yaml` where one was expected.
    #[error(
        "no {CONFIG_FILE_NAME} found at {}: run `lore init` to create a project, or pass --project-dir",
        path.display()
    )]
    NotFound {
        /// Where the file was expected.
        path: PathBuf,
    },
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The YAML is malformed or a value has the wrong type.
    #[error("{} is not valid (line {line}, column {column}): {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem (0 when unknown).
        line: u64,
        /// 1-based column of the problem (0 when unknown).
        column: u64,
        /// The parser's description.
        message: String,
    },
    /// The YAML parses but describes an unusable configuration.
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A secret refers to an environment variable that is not set.
    #[error(
        "{what} refers to the environment variable {var}, which is not set: export it or change lore.yaml"
    )]
    MissingEnvVar {
        /// Which setting held the reference.
        what: String,
        /// The variable name.
        var: String,
    },
    /// A secret refers to a file that cannot be read.
    #[error("{what} refers to the file {}, which cannot be read: {source}", path.display())]
    SecretFile {
        /// Which setting held the reference.
        what: String,
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl HasErrorCode for ConfigError {
    fn code(&self) -> ErrorCode {
        ErrorCode::ConfigError
    }
}

/// Loads `lore.yaml` from `path`.
pub fn load_config(path: &Path) -> Result<LoadedConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ConfigError::NotFound {
                path: path.to_path_buf(),
            });
        }
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    parse_config(&text, path)
}

/// Parses `lore.yaml` text; `path` is used in messages only.
pub fn parse_config(text: &str, path: &Path) -> Result<LoadedConfig, ConfigError> {
    if text.trim().is_empty() {
        return Ok(LoadedConfig {
            config: LoreConfig::default(),
            warnings: Vec::new(),
        });
    }
    let mut unknown_keys = Vec::new();
    let mut track = serde_path_to_error::Track::new();
    let parsed: Result<LoreConfig, serde_saphyr::Error> =
        serde_saphyr::with_deserializer_from_str(text, |de| {
            let tracked = serde_path_to_error::Deserializer::new(de, &mut track);
            serde_ignored::deserialize(tracked, |key| unknown_keys.push(key.to_string()))
        });
    let config =
        parsed.map_err(|e| diagnostics::parse_error(&e, &track.path().to_string(), text, path))?;
    validate(&config, path)?;
    let schema = if unknown_keys.is_empty() {
        serde_json::Value::Null
    } else {
        config_json_schema()
    };
    let warnings = unknown_keys
        .into_iter()
        .map(|key| ConfigWarning {
            message: diagnostics::unknown_key_warning(&key, &schema, path),
        })
        .collect();
    Ok(LoadedConfig { config, warnings })
}

fn validate(config: &LoreConfig, path: &Path) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if let Err(message) = config.limits.check() {
        return Err(invalid(message));
    }
    for (id, conn) in &config.connections {
        if !is_valid_connection_id(id) {
            return Err(invalid(format!(
                "connection id `{id}` must be 1-64 letters, digits, `_` or `-`"
            )));
        }
        match conn.driver {
            Driver::Sqlite | Driver::Duckdb => {
                let driver = conn.driver.as_str();
                if conn.path.as_deref().is_none_or(|p| p.trim().is_empty()) {
                    return Err(invalid(format!(
                        "connection `{id}` ({driver}) needs `path`: the database file, absolute or relative to the project"
                    )));
                }
                if conn.url.is_some() {
                    return Err(invalid(format!(
                        "connection `{id}` ({driver}) takes `path`, not `url`"
                    )));
                }
            }
            Driver::Postgres
            | Driver::Mysql
            | Driver::Clickhouse
            | Driver::Snowflake
            | Driver::Bigquery => {
                if conn.url.is_none() {
                    return Err(invalid(format!(
                        "connection `{id}` ({}) needs `url` (a literal, `env:VAR` or `file:PATH`)",
                        conn.driver.as_str()
                    )));
                }
            }
        }
        if let Some(mb) = conn.memory_limit_mb {
            if conn.driver != Driver::Duckdb {
                return Err(invalid(format!(
                    "connection `{id}` ({}): memory_limit_mb is for duckdb connections (a server bounds its own memory)",
                    conn.driver.as_str()
                )));
            }
            if !(128..=1_048_576).contains(&mb) {
                return Err(invalid(format!(
                    "connection `{id}`: memory_limit_mb is {mb}; give 128 (DuckDB needs about 128 MiB per thread) to 1048576"
                )));
            }
        }
        if conn.private_key.is_some() && conn.driver != Driver::Snowflake {
            return Err(invalid(format!(
                "connection `{id}` ({}): private_key is for snowflake connections only",
                conn.driver.as_str()
            )));
        }
        if conn.credentials.is_some() && conn.driver != Driver::Bigquery {
            return Err(invalid(format!(
                "connection `{id}` ({}): `credentials` is for bigquery connections; put the credentials in `url`",
                conn.driver.as_str()
            )));
        }
        if conn.statement_timeout_ms == Some(0) {
            return Err(invalid(format!(
                "connection `{id}`: statement_timeout_ms must be at least 1"
            )));
        }
        if conn.max_connections.is_some_and(|n| !(1..=64).contains(&n)) {
            return Err(invalid(format!(
                "connection `{id}`: max_connections must be between 1 and 64"
            )));
        }
        if let Some(schemas) = &conn.schemas
            && (schemas.is_empty() || schemas.iter().any(|s| s.trim().is_empty()))
        {
            return Err(invalid(format!(
                "connection `{id}`: schemas must list at least one non-empty name (leave it out to scan every schema)"
            )));
        }
        if let Some(problem) = conn.scan.problem(id) {
            return Err(invalid(problem));
        }
    }
    if let Some(problem) = config.search.problem() {
        return Err(invalid(problem));
    }
    if let Some(problem) = config.gateway.problem() {
        return Err(invalid(problem));
    }
    if config.gateway.embeddings && config.search.embeddings.is_none() {
        return Err(invalid(
            "gateway.embeddings: true needs an embedding provider under search.embeddings (url, model, api_key)".to_string(),
        ));
    }
    if let Some(problem) = config.mcp.problem() {
        return Err(invalid(problem));
    }
    if let Some(problem) = config.llm.as_ref().and_then(LlmConfig::problem) {
        return Err(invalid(problem));
    }
    if let Some(problem) = config.store.problem() {
        return Err(invalid(problem));
    }
    Ok(())
}

/// Whether `id` is acceptable as a connection id.
pub fn is_valid_connection_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The JSON Schema of `lore.yaml`, for editors (`lore config schema`).
pub fn config_json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(LoreConfig)).unwrap_or_default()
}

pub use reference::{config_reference_markdown, heading_anchor};

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LoadedConfig, ConfigError> {
        parse_config(text, Path::new("lore.yaml"))
    }

    #[test]
    fn secret_files_are_every_file_reference_with_its_setting() {
        let config = parse(
            "connections:\n  pg:\n    driver: postgres\n    url: file:secrets/pg\n  bq:\n    driver: bigquery\n    url: env:BQ\n    credentials: file:key.json\nmcp:\n  tokens:\n    - {name: ops, token: file:tok, scope: admin}\n    - {name: ci, token: literal-token-1234567, scope: reader}\n",
        )
        .unwrap()
        .config;
        let mut files = config.secret_files();
        files.sort();
        assert_eq!(
            files,
            [
                (
                    "connections.bq.credentials".to_string(),
                    "key.json".to_string()
                ),
                ("connections.pg.url".to_string(), "secrets/pg".to_string()),
                ("mcp.tokens (ops)".to_string(), "tok".to_string()),
            ]
        );
    }

    #[test]
    fn secret_env_vars_are_every_variable_once_with_its_first_setting() {
        let config = parse(
            "connections:\n  shop:\n    driver: postgres\n    url: env:SHOP_URL\n  copy:\n    driver: postgres\n    url: env:SHOP_URL\n  bq:\n    driver: bigquery\n    url: file:bq\n    credentials: env:BQ_KEY\nstore:\n  url: env:LORE_STORE_URL\n",
        )
        .unwrap()
        .config;
        let mut vars = config.secret_env_vars();
        vars.sort();
        assert_eq!(
            vars,
            [
                (
                    "BQ_KEY".to_string(),
                    "connections.bq.credentials".to_string()
                ),
                ("LORE_STORE_URL".to_string(), "store.url".to_string()),
                ("SHOP_URL".to_string(), "connections.copy.url".to_string()),
            ]
        );
    }

    #[test]
    fn the_store_is_embedded_unless_a_postgres_url_is_given() {
        let embedded = parse("connections: {}\n").unwrap();
        assert!(!embedded.config.store.is_server());
        let server = parse("store:\n  url: env:LORE_STORE_URL\n").unwrap();
        assert!(server.config.store.is_server());
        let literal = parse("store: {url: \"postgres://lore@db:5432/lore\"}\n").unwrap();
        assert!(literal.config.store.is_server());
        for bad in [
            "store: {url: \"mysql://root@db/lore\"}\n",
            "store: {url: \"/var/lib/store.db\"}\n",
        ] {
            let err = parse(bad).unwrap_err().to_string();
            assert!(
                err.contains("store.url must be a PostgreSQL URL"),
                "{bad}: {err}"
            );
        }
        // A key Lore does not know warns, as everywhere in lore.yaml.
        let unknown = parse("store: {path: x}\n").unwrap();
        assert!(!unknown.config.store.is_server());
        assert!(
            unknown
                .warnings
                .iter()
                .any(|w| w.message.contains("store.path")),
            "{:?}",
            unknown.warnings
        );
    }

    #[test]
    fn minimal_sqlite_connection_loads() {
        let loaded =
            parse("connections:\n  warehouse: { driver: sqlite, path: data/w.db }\n").unwrap();
        let conn = &loaded.config.connections["warehouse"];
        assert_eq!(conn.driver, Driver::Sqlite);
        assert_eq!(conn.path.as_deref(), Some("data/w.db"));
        assert_eq!(conn.statement_timeout_ms(), DEFAULT_STATEMENT_TIMEOUT_MS);
        assert!(loaded.warnings.is_empty());
        assert_eq!(loaded.config.mcp.port, 7878);
    }

    #[test]
    fn unknown_keys_warn_with_their_path_and_still_load() {
        let loaded = parse(
            "connections:\n  w:\n    driver: sqlite\n    path: w.db\n    pth: typo\nsearchh: {}\n",
        )
        .unwrap();
        let messages: Vec<_> = loaded.warnings.iter().map(|w| w.message.clone()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages.iter().any(|m| m.contains("`connections.w.pth`")));
        assert!(messages.iter().any(|m| m.contains("`searchh`")));
    }

    #[test]
    fn malformed_yaml_reports_line_and_column() {
        let err = parse("connections:\n  w: { driver: sqlite, path: [unclosed\n").unwrap_err();
        match err {
            ConfigError::Parse { line, .. } => assert!(line >= 2, "line {line}"),
            other => panic!("expected a parse error, got {other}"),
        }
    }

    #[test]
    fn unknown_driver_names_the_valid_ones() {
        let err = parse("connections:\n  w: { driver: oracle, url: x }\n").unwrap_err();
        let message = err.to_string();
        assert!(
            matches!(err, ConfigError::Parse { line: 2, .. }),
            "{message}"
        );
        assert!(message.contains("oracle"), "{message}");
        assert!(message.contains("sqlite"), "{message}");
    }

    #[test]
    fn sqlite_without_path_is_rejected_with_a_fix() {
        let err = parse("connections:\n  w: { driver: sqlite }\n").unwrap_err();
        assert!(err.to_string().contains("needs `path`"), "{err}");
    }

    #[test]
    fn duckdb_connections_take_a_path_like_sqlite() {
        let loaded =
            parse("connections:\n  wh: { driver: duckdb, path: data/wh.duckdb }\n").unwrap();
        let conn = &loaded.config.connections["wh"];
        assert_eq!(conn.driver, Driver::Duckdb);
        assert_eq!(conn.path.as_deref(), Some("data/wh.duckdb"));
        assert_eq!(conn.memory_limit_mb, None);
        let limited =
            parse("connections:\n  wh: { driver: duckdb, path: w.duckdb, memory_limit_mb: 512 }\n")
                .unwrap();
        assert_eq!(limited.config.connections["wh"].memory_limit_mb, Some(512));
        let err =
            parse("connections:\n  wh: { driver: duckdb, path: w.duckdb, memory_limit_mb: 16 }\n")
                .unwrap_err();
        assert!(err.to_string().contains("give 128"), "{err}");
        let err =
            parse("connections:\n  pg: { driver: postgres, url: env:PG, memory_limit_mb: 512 }\n")
                .unwrap_err();
        assert!(err.to_string().contains("for duckdb connections"), "{err}");
        let err = parse("connections:\n  wh: { driver: duckdb }\n").unwrap_err();
        assert!(err.to_string().contains("(duckdb) needs `path`"), "{err}");
        let err =
            parse("connections:\n  wh: { driver: duckdb, path: w.duckdb, url: x }\n").unwrap_err();
        assert!(err.to_string().contains("takes `path`, not `url`"), "{err}");
    }

    #[test]
    fn server_driver_without_url_is_rejected() {
        let err = parse("connections:\n  pg: { driver: postgres }\n").unwrap_err();
        assert!(err.to_string().contains("needs `url`"), "{err}");
    }

    #[test]
    fn a_bigquery_connection_takes_a_url_and_credentials() {
        let loaded = parse(
            "connections:\n  bq:\n    driver: bigquery\n    url: bigquery://p?datasets=a\n    credentials: file:key.json\n",
        )
        .unwrap();
        let bq = &loaded.config.connections["bq"];
        assert_eq!(bq.driver, Driver::Bigquery);
        assert_eq!(
            bq.credentials.as_ref().unwrap().as_written(),
            "file:key.json"
        );
        let err = parse("connections:\n  bq: { driver: bigquery }\n").unwrap_err();
        assert!(err.to_string().contains("needs `url`"), "{err}");
        let err = parse("connections:\n  pg: { driver: postgres, url: x, credentials: y }\n")
            .unwrap_err();
        assert!(
            err.to_string().contains("`credentials` is for bigquery"),
            "{err}"
        );
    }

    #[test]
    fn bad_connection_id_is_rejected() {
        let err = parse("connections:\n  \"my db\": { driver: sqlite, path: x.db }\n").unwrap_err();
        assert!(err.to_string().contains("`my db`"), "{err}");
    }

    #[test]
    fn missing_file_says_how_to_create_one() {
        let dir = tempfile::tempdir().unwrap();
        let err = load_config(&dir.path().join(CONFIG_FILE_NAME)).unwrap_err();
        assert!(matches!(err, ConfigError::NotFound { .. }));
        assert!(err.to_string().contains("lore init"));
        assert_eq!(err.code(), ErrorCode::ConfigError);
    }

    #[test]
    fn scan_settings_default_and_load_with_their_limits() {
        let loaded = parse(
            "connections:\n  pg:\n    driver: postgres\n    url: env:PG\n    schemas: [public, billing]\n    scan:\n      sample_rows: 500\n      dictionary: { include_columns: [users.role] }\n",
        )
        .unwrap();
        let conn = &loaded.config.connections["pg"];
        assert_eq!(
            conn.schemas.as_deref(),
            Some(&["public".to_string(), "billing".to_string()][..])
        );
        assert_eq!(conn.scan.sample_rows, 500);
        assert_eq!(conn.scan.top_values, 20);
        assert_eq!(conn.scan.dictionary.include_columns, ["users.role"]);
        assert_eq!(conn.max_connections(), DEFAULT_MAX_CONNECTIONS);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);

        let err =
            parse("connections:\n  w: { driver: sqlite, path: x.db, scan: { sample_rows: 0 } }\n")
                .unwrap_err();
        assert!(err.to_string().contains("scan.sample_rows"), "{err}");
        let err =
            parse("connections:\n  pg: { driver: postgres, url: x, schemas: [] }\n").unwrap_err();
        assert!(err.to_string().contains("schemas"), "{err}");
    }

    #[test]
    fn snowflake_connections_take_a_url_and_optionally_a_private_key() {
        let loaded = parse(
            "connections:\n  sf: { driver: snowflake, url: env:SF_URL, private_key: file:keys/lore.p8 }\n",
        )
        .unwrap();
        let conn = &loaded.config.connections["sf"];
        assert_eq!(conn.driver, Driver::Snowflake);
        assert_eq!(
            conn.private_key.as_ref().map(Secret::as_written),
            Some("file:keys/lore.p8")
        );
        let err = parse("connections:\n  sf: { driver: snowflake }\n").unwrap_err();
        assert!(err.to_string().contains("needs `url`"), "{err}");
        let err = parse("connections:\n  pg: { driver: postgres, url: x, private_key: k }\n")
            .unwrap_err();
        assert!(
            err.to_string().contains("snowflake connections only"),
            "{err}"
        );
    }

    #[test]
    fn schema_lists_connection_fields() {
        let schema = config_json_schema().to_string();
        for key in [
            "connections",
            "driver",
            "statement_timeout_ms",
            "allowed_origins",
        ] {
            assert!(schema.contains(key), "schema lacks {key}");
        }
    }
}
