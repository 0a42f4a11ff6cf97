//! `mcp:` in `lore.yaml`: where the HTTP server binds, which hosts and
//! origins it answers, its access tokens and their scopes, its rate limit,
//! how long an idle session lives, and which toolsets it serves.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DEFAULT_MCP_PORT, Secret};

/// Settings of the MCP HTTP server.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct McpConfig {
    /// Address to bind (default 127.0.0.1). Anything but loopback needs a token.
    #[serde(default = "default_mcp_host")]
    pub host: String,
    /// Port to bind (default 7878).
    #[serde(default = "default_mcp_port")]
    pub port: u16,
    /// Extra `Host` header values to accept, besides localhost, 127.0.0.1 and ::1.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Browser origins allowed to call the server (full origins such as
    /// `http://localhost:3000`). Requests carrying any other `Origin` are refused.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Access tokens. When any is configured (or `--token` / `LORE_MCP_TOKEN`
    /// is given), every request to `/mcp` needs `Authorization: Bearer <token>`
    /// and sees only the tools its scope allows.
    #[serde(default)]
    pub tokens: Vec<TokenConfig>,
    /// Requests each client (token, else address) may make per window.
    #[serde(default)]
    pub rate_limit: RateLimitConfig,
    /// Seconds a session may stay idle before the server ends it (default 1800).
    #[serde(default = "default_session_idle_seconds")]
    pub session_idle_seconds: u64,
    /// The toolsets served over MCP. Default: analytics and memory, and
    /// gateway when `gateway.roots` lists a folder; the gateway alone in a
    /// project with roots and no connection (a project lists only tools
    /// that can work in it). A client reads every served tool's
    /// definition on every request: serve only what its agents use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolsets: Option<Vec<Toolset>>,
}

/// A group of tools served together.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Toolset {
    /// Data context: discover, wiki, schema, dictionary, semantic layer,
    /// read-only SQL.
    Analytics,
    /// The versioned knowledge memory: its tools, resources and prompts.
    Memory,
    /// The knowledge gateway over code and document repositories.
    Gateway,
}

impl Toolset {
    /// Every toolset, in the order they are listed.
    pub const ALL: [Toolset; 3] = [Toolset::Analytics, Toolset::Memory, Toolset::Gateway];

    /// Its name in `lore.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Toolset::Analytics => "analytics",
            Toolset::Memory => "memory",
            Toolset::Gateway => "gateway",
        }
    }
}

/// One access token.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TokenConfig {
    /// Who holds the token, shown in logs and metrics (never the token itself).
    pub name: String,
    /// The token: a literal, `env:VAR` or `file:PATH`. Use at least 16 characters.
    pub token: Secret,
    /// What the token may do (default reader).
    #[serde(default)]
    pub scope: Scope,
}

/// What a token may do. Each scope includes the ones before it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Read-only tools: search, inspect, query, read memory and wiki.
    #[default]
    Reader,
    /// Also the tools that write knowledge: memory and wiki writes, undo.
    Writer,
    /// Also operations on the server itself and the gateway's maintainer
    /// tools: ingest triggers and status, backups, recipes, feedback,
    /// uploads and stored text (`gateway.tool_scopes` may lower some),
    /// and `/metrics`.
    Admin,
}

impl Scope {
    /// The scope's name as written in `lore.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Reader => "reader",
            Scope::Writer => "writer",
            Scope::Admin => "admin",
        }
    }
}

/// A fixed-window request limit per client.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct RateLimitConfig {
    /// Requests allowed per window and client; 0 turns the limit off (default 1200).
    #[serde(default = "default_rate_limit_requests")]
    pub requests: u32,
    /// Length of the window in seconds (default 60).
    #[serde(default = "default_rate_limit_window")]
    pub window_seconds: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            requests: default_rate_limit_requests(),
            window_seconds: default_rate_limit_window(),
        }
    }
}

fn default_rate_limit_requests() -> u32 {
    1200
}

fn default_rate_limit_window() -> u32 {
    60
}

fn default_mcp_host() -> String {
    "127.0.0.1".to_string()
}

fn default_mcp_port() -> u16 {
    DEFAULT_MCP_PORT
}

fn default_session_idle_seconds() -> u64 {
    1800
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            host: default_mcp_host(),
            port: DEFAULT_MCP_PORT,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            tokens: Vec::new(),
            rate_limit: RateLimitConfig::default(),
            session_idle_seconds: default_session_idle_seconds(),
            toolsets: None,
        }
    }
}

impl McpConfig {
    /// What is wrong with these settings, as a message naming the key.
    pub fn problem(&self) -> Option<String> {
        let mut names = std::collections::BTreeSet::new();
        for token in &self.tokens {
            let name = token.name.trim();
            if name.is_empty() || name.len() > 64 {
                return Some("mcp.tokens: every token needs a `name` of 1-64 characters".into());
            }
            if !names.insert(name) {
                return Some(format!(
                    "mcp.tokens: the name `{name}` is used twice; names tell tokens apart in logs"
                ));
            }
        }
        if self.rate_limit.requests > 0 && self.rate_limit.window_seconds == 0 {
            return Some(
                "mcp.rate_limit.window_seconds must be at least 1 (or set requests: 0 to turn the limit off)"
                    .into(),
            );
        }
        if self.session_idle_seconds == 0 {
            return Some("mcp.session_idle_seconds must be at least 1".into());
        }
        if self.toolsets.as_ref().is_some_and(Vec::is_empty) {
            return Some(
                "mcp.toolsets is empty, so the server would serve nothing: list at least one of analytics, memory, gateway (or remove the key for the default)"
                    .into(),
            );
        }
        None
    }

    /// The toolsets to serve: the configured list, else analytics and
    /// memory, plus gateway when the project has gateway roots or its
    /// store is shared by several servers (what any of them ingests is
    /// searchable through each); a code project (roots, no connection)
    /// gets the gateway alone.
    pub fn served_toolsets(
        &self,
        has_gateway_roots: bool,
        has_connections: bool,
        shared_store: bool,
    ) -> Vec<Toolset> {
        match &self.toolsets {
            Some(list) => list.clone(),
            None if has_gateway_roots && !has_connections => vec![Toolset::Gateway],
            None => {
                let mut out = vec![Toolset::Analytics, Toolset::Memory];
                if has_gateway_roots || shared_store {
                    out.push(Toolset::Gateway);
                }
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_ordered_and_default_to_reader() {
        assert!(Scope::Reader < Scope::Writer && Scope::Writer < Scope::Admin);
        let token: TokenConfig = serde_json::from_str(r#"{"name":"ci","token":"env:T"}"#).unwrap();
        assert_eq!(token.scope, Scope::Reader);
    }

    #[test]
    fn every_toolset_is_served_unless_the_list_names_some() {
        let default = McpConfig::default();
        assert_eq!(
            default.served_toolsets(false, true, false),
            vec![Toolset::Analytics, Toolset::Memory]
        );
        assert_eq!(
            default.served_toolsets(true, true, false),
            Toolset::ALL.to_vec()
        );
        // A code repository with no database: the gateway alone.
        assert_eq!(
            default.served_toolsets(true, false, false),
            vec![Toolset::Gateway]
        );
        // A store several servers share: the gateway beside the rest, roots or not.
        assert_eq!(
            default.served_toolsets(false, false, true),
            Toolset::ALL.to_vec()
        );
        let only: McpConfig = serde_json::from_str(r#"{"toolsets":["memory"]}"#).unwrap();
        assert_eq!(
            only.served_toolsets(true, false, true),
            vec![Toolset::Memory]
        );
        let unknown = serde_json::from_str::<McpConfig>(r#"{"toolsets":["gateway2"]}"#);
        assert!(unknown.unwrap_err().to_string().contains("analytics"));
        let none: McpConfig = serde_json::from_str(r#"{"toolsets":[]}"#).unwrap();
        assert!(none.problem().unwrap().contains("at least one"));
    }

    #[test]
    fn duplicate_token_names_and_zero_windows_are_refused() {
        let mut config = McpConfig::default();
        assert_eq!(config.problem(), None);
        let token = TokenConfig {
            name: "ci".into(),
            token: Secret::new("x"),
            scope: Scope::Admin,
        };
        config.tokens = vec![token.clone(), token];
        assert!(config.problem().unwrap().contains("used twice"));
        config.tokens.clear();
        config.rate_limit.window_seconds = 0;
        assert!(config.problem().unwrap().contains("window_seconds"));
    }
}
