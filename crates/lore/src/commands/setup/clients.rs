//! Each client's file, shape and skill location, per scope (the matrix of
//! the daemon spec): what `setup agents` writes or prints.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Endpoint, Homes, SKILL, Scope, Target};

/// The token reference most clients expand in header values.
const TOKEN_REF: &str = "Bearer ${LORE_MCP_TOKEN}";
/// opencode's own variable syntax.
const OPENCODE_TOKEN_REF: &str = "Bearer {env:LORE_MCP_TOKEN}";

/// One change to make, or text to show.
#[derive(Debug, Clone)]
pub enum Change {
    /// Set `pointer` in the JSON object stored in `file` to `value`.
    JsonKey {
        file: PathBuf,
        pointer: Vec<String>,
        value: Value,
    },
    /// Write a whole file (the skill).
    File { path: PathBuf, contents: String },
    /// Show a snippet the user pastes (clients Lore does not write).
    Print { title: String, text: String },
    /// Say something the user should know.
    Note(String),
}

/// Everything one target and scope needs.
#[derive(Debug, Clone)]
pub struct Plan {
    pub target: Target,
    pub scope: Scope,
    pub changes: Vec<Change>,
}

impl Plan {
    /// Whether an entry Lore writes sends the token reference.
    pub fn writes_token_header(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c, Change::JsonKey { value, .. } if value.get("headers").is_some()))
    }
}

fn key(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

fn unsupported(target: Target, scope: Scope, supported: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{} has no {} scope; use --scope {supported}",
        target.as_str(),
        scope.as_str()
    )
}

/// An HTTP entry: `url`, the token header when needed, plus `extra` keys.
fn http_entry(endpoint: &Endpoint, extra: Value, token_ref: &str) -> Value {
    let mut entry = extra;
    entry["url"] = json!(endpoint.url);
    if endpoint.token_auth {
        entry["headers"] = json!({ "Authorization": token_ref });
    }
    entry
}

/// The skill as a Claude / Codex / universal skill folder's SKILL.md.
fn skill_file(dir: PathBuf) -> Change {
    Change::File {
        path: dir.join("lore-analytics").join("SKILL.md"),
        contents: SKILL.to_string(),
    }
}

/// The skill body without its front matter.
fn skill_body() -> &'static str {
    SKILL
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(SKILL, |(_, body)| body.trim_start())
}

fn skill_description() -> &'static str {
    SKILL
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap_or("Answer data questions with Lore's MCP tools.")
}

pub fn plan(
    target: Target,
    scope: Scope,
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Plan> {
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
    match target {
        Target::ClaudeCode => {
            let entry = http_entry(endpoint, json!({"type": "http"}), TOKEN_REF);
            let claude_json = homes.home.join(".claude.json");
            let (file, pointer) = match scope {
                Scope::Project => (root.join(".mcp.json"), key(&["mcpServers", "lore"])),
                Scope::Local => (
                    claude_json,
                    vec![
                        "projects".into(),
                        root.display().to_string(),
                        "mcpServers".into(),
                        "lore".into(),
                    ],
                ),
                Scope::User => (claude_json, key(&["mcpServers", "lore"])),
            };
            changes.push(Change::JsonKey {
                file,
                pointer,
                value: entry,
            });
            // Skills have project and personal folders; "local" (private
            // to you) uses the personal one, which nothing commits.
            changes.push(skill_file(match scope {
                Scope::Project => root.join(".claude/skills"),
                Scope::Local | Scope::User => homes.home.join(".claude/skills"),
            }));
        }
        Target::ClaudeDesktop => {
            if scope != Scope::User {
                return Err(unsupported(target, scope, "user"));
            }
            // Claude Desktop spawns local servers over stdio.
            changes.push(Change::JsonKey {
                file: homes.claude_desktop.join("claude_desktop_config.json"),
                pointer: key(&["mcpServers", "lore"]),
                value: json!({
                    "command": endpoint.exe,
                    "args": ["--project-dir", root.display().to_string(), "mcp", "stdio"],
                }),
            });
            changes.push(Change::Note(
                "Claude Desktop starts `lore mcp stdio` itself (no daemon needed); restart Claude Desktop to load it. It reads skills uploaded in its settings, not from files: upload the SKILL.md from `.claude/skills/lore-analytics` (see `lore setup agents --target claude-code`) there if you want it.".into(),
            ));
        }
        Target::Cursor => {
            let entry = http_entry(endpoint, json!({}), TOKEN_REF);
            let file = match scope {
                Scope::Project => root.join(".cursor/mcp.json"),
                Scope::User => homes.home.join(".cursor/mcp.json"),
                Scope::Local => return Err(unsupported(target, scope, "project or --scope user")),
            };
            changes.push(Change::JsonKey {
                file,
                pointer: key(&["mcpServers", "lore"]),
                value: entry,
            });
            match scope {
                Scope::Project => changes.push(Change::File {
                    path: root.join(".cursor/rules/lore-analytics.mdc"),
                    contents: format!(
                        "---\ndescription: {}\nalwaysApply: false\n---\n\n{}",
                        skill_description(),
                        skill_body()
                    ),
                }),
                _ => changes.push(Change::Note(
                    "Cursor keeps user rules in its settings, not in files: run with --scope project to install the analytics rule in .cursor/rules.".into(),
                )),
            }
        }
        Target::Codex => {
            let (config, skills) = match scope {
                Scope::User => (
                    homes.codex_home.join("config.toml"),
                    homes.codex_home.join("skills"),
                ),
                Scope::Project => (
                    homes.codex_home.join("config.toml"),
                    root.join(".agents/skills"),
                ),
                Scope::Local => return Err(unsupported(target, scope, "project or --scope user")),
            };
            let mut toml = format!("[mcp_servers.lore]\nurl = \"{}\"\n", endpoint.url);
            if endpoint.token_auth {
                // Codex reads the bearer token from the variable it names.
                toml.push_str("bearer_token_env_var = \"LORE_MCP_TOKEN\"\n");
            }
            changes.push(Change::Print {
                title: format!(
                    "add to {} (Lore does not edit Codex's TOML)",
                    config.display()
                ),
                text: toml,
            });
            changes.push(skill_file(skills));
        }
        Target::Opencode => {
            let (config, commands) = match scope {
                Scope::Project => (root.join("opencode.json"), root.join(".opencode/commands")),
                Scope::User => (
                    homes.config.join("opencode/opencode.json"),
                    homes.config.join("opencode/commands"),
                ),
                Scope::Local => return Err(unsupported(target, scope, "project or --scope user")),
            };
            let entry = http_entry(
                endpoint,
                json!({"type": "remote", "enabled": true}),
                OPENCODE_TOKEN_REF,
            );
            let snippet = json!({
                "$schema": "https://opencode.ai/config.json",
                "mcp": { "lore": entry },
            });
            changes.push(Change::Print {
                title: format!(
                    "merge into {} (Lore does not edit opencode's file)",
                    config.display()
                ),
                text: serde_json::to_string_pretty(&snippet).unwrap_or_default(),
            });
            changes.push(Change::File {
                path: commands.join("lore-analytics.md"),
                contents: format!(
                    "---\ndescription: {}\n---\n\n{}\n$ARGUMENTS\n",
                    skill_description(),
                    skill_body()
                ),
            });
        }
        Target::Universal => {
            let dir = match scope {
                Scope::Project => root.join(".agents/skills"),
                Scope::User => homes.home.join(".agents/skills"),
                Scope::Local => return Err(unsupported(target, scope, "project or --scope user")),
            };
            changes.push(skill_file(dir));
            changes.push(Change::Note(format!(
                "point any MCP client at {} (Streamable HTTP){}",
                endpoint.url,
                if endpoint.token_auth {
                    " with the header Authorization: Bearer ${LORE_MCP_TOKEN}"
                } else {
                    ""
                }
            )));
        }
    }
    Ok(Plan {
        target,
        scope,
        changes,
    })
}
