//! Each client's file, shape and skill location, per scope (the matrix of
//! the daemon spec): what `setup agents` writes or prints.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Endpoint, Homes, Scope, Skill, Target, bundle};

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
    /// Write a whole file (a skill, a rule, a bundle); `what` says what it
    /// is ("the analytics skill").
    File {
        path: PathBuf,
        contents: Vec<u8>,
        what: String,
    },
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

/// A skill as a Claude / Codex / universal skill folder's SKILL.md.
fn skill_file(dir: &std::path::Path, skill: Skill) -> Change {
    Change::File {
        path: dir.join(skill.name()).join("SKILL.md"),
        contents: skill.text().as_bytes().to_vec(),
        what: format!("the {} skill", skill.title()),
    }
}

fn skills_dir_files(dir: &std::path::Path, skills: &[Skill]) -> Vec<Change> {
    skills.iter().map(|&s| skill_file(dir, s)).collect()
}

/// A skill's body without its front matter.
fn skill_body(skill: Skill) -> &'static str {
    let text = skill.text();
    text.strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map_or(text, |(_, body)| body.trim_start())
}

fn skill_description(skill: Skill) -> &'static str {
    skill
        .text()
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap_or("Answer data questions with Lore's MCP tools.")
}

/// What `setup agents` writes or prints for `target` at `scope`; an error
/// when the client has no such scope.
pub fn plan(
    target: Target,
    scope: Scope,
    skills: &[Skill],
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Plan> {
    let changes = match target {
        Target::ClaudeCode => claude_code(scope, skills, endpoint, homes),
        Target::ClaudeDesktop => claude_desktop(scope, skills, endpoint, homes)?,
        Target::Cursor => cursor(scope, skills, endpoint, homes)?,
        Target::Codex => codex(scope, skills, endpoint, homes)?,
        Target::Opencode => opencode(scope, skills, endpoint, homes)?,
        Target::Universal => universal(scope, skills, endpoint, homes)?,
    };
    Ok(Plan {
        target,
        scope,
        changes,
    })
}

/// Claude Code: the HTTP entry in `.mcp.json` or `~/.claude.json`, and the
/// skills in a skills folder.
fn claude_code(scope: Scope, skills: &[Skill], endpoint: &Endpoint, homes: &Homes) -> Vec<Change> {
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
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
    let dir = match scope {
        Scope::Project => root.join(".claude/skills"),
        Scope::Local | Scope::User => homes.home.join(".claude/skills"),
    };
    changes.extend(skills_dir_files(&dir, skills));
    changes
}

/// Claude Desktop (user scope only): a stdio entry in its config, the MCP
/// Bundle and skill archives to upload, and how to use them.
fn claude_desktop(
    scope: Scope,
    skills: &[Skill],
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Vec<Change>> {
    if scope != Scope::User {
        return Err(unsupported(Target::ClaudeDesktop, scope, "user"));
    }
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
    // Claude Desktop spawns local servers over stdio, with the
    // environment lore.yaml reads.
    let mut value = json!({
        "command": endpoint.exe,
        "args": ["--project-dir", root.display().to_string(), "mcp", "stdio"],
    });
    let (env, unset) = desktop_env(&endpoint.env_vars);
    if !env.is_empty() {
        value["env"] = serde_json::Value::Object(env);
    }
    changes.push(Change::JsonKey {
        file: homes.claude_desktop.join("claude_desktop_config.json"),
        pointer: key(&["mcpServers", "lore"]),
        value,
    });
    if !unset.is_empty() {
        changes.push(Change::Note(format!(
            "warning: lore.yaml reads {} but {} not set here, so the Claude Desktop entry has no value for {}: \
             set {} and run this command again, or add it under mcpServers.lore.env in claude_desktop_config.json",
            unset.join(", "),
            if unset.len() == 1 { "it is" } else { "they are" },
            if unset.len() == 1 { "it" } else { "them" },
            if unset.len() == 1 { "it" } else { "them" },
        )));
    }
    // One-step install elsewhere, and skills as the app uploads them.
    let dir = root.join(".lore/agents/claude-desktop");
    changes.push(Change::File {
        path: dir.join("lore.mcpb"),
        contents: bundle::mcpb(
            root,
            std::path::Path::new(&endpoint.exe),
            &endpoint.env_vars,
        )?,
        what: "the MCP Bundle".into(),
    });
    for &skill in skills {
        changes.push(Change::File {
            path: dir.join(format!("{}.zip", skill.name())),
            contents: bundle::skill_archive(skill.name(), skill.text())?,
            what: format!("the {} skill archive", skill.title()),
        });
    }
    changes.push(Change::Note(format!(
        "Claude Desktop starts `lore mcp stdio` itself (no daemon needed): restart it to load the entry. \
         Skills are uploaded in its settings (Settings > Capabilities > Skills > Upload): upload {}. \
         On another computer with the same system, open lore.mcpb with Claude Desktop instead: it installs Lore with one click and asks for the project folder.",
        skills
            .iter()
            .map(|s| dir.join(format!("{}.zip", s.name())).display().to_string())
            .collect::<Vec<_>>()
            .join(" and ")
    )));
    Ok(changes)
}

/// Cursor: the HTTP entry in its `mcp.json`, and the skills as project rules
/// (user rules live in its settings).
fn cursor(
    scope: Scope,
    skills: &[Skill],
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Vec<Change>> {
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
    let entry = http_entry(endpoint, json!({}), TOKEN_REF);
    let file = match scope {
        Scope::Project => root.join(".cursor/mcp.json"),
        Scope::User => homes.home.join(".cursor/mcp.json"),
        Scope::Local => {
            return Err(unsupported(
                Target::Cursor,
                scope,
                "project or --scope user",
            ));
        }
    };
    changes.push(Change::JsonKey {
        file,
        pointer: key(&["mcpServers", "lore"]),
        value: entry,
    });
    match scope {
        Scope::Project => {
            for &skill in skills {
                changes.push(Change::File {
                    path: root.join(format!(".cursor/rules/{}.mdc", skill.name())),
                    contents: format!(
                        "---\ndescription: {}\nalwaysApply: false\n---\n\n{}",
                        skill_description(skill),
                        skill_body(skill)
                    )
                    .into_bytes(),
                    what: format!("the {} rule", skill.title()),
                });
            }
        }
        _ => changes.push(Change::Note(
            "Cursor keeps user rules in its settings, not in files: run with --scope project to install the analytics rule in .cursor/rules.".into(),
        )),
    }
    Ok(changes)
}

/// Codex: a TOML snippet to add to its config (Lore does not edit it), and
/// the skills in a skills folder.
fn codex(
    scope: Scope,
    skills: &[Skill],
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Vec<Change>> {
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
    let (config, skills_dir) = match scope {
        Scope::User => (
            homes.codex_home.join("config.toml"),
            homes.codex_home.join("skills"),
        ),
        Scope::Project => (
            homes.codex_home.join("config.toml"),
            root.join(".agents/skills"),
        ),
        Scope::Local => {
            return Err(unsupported(Target::Codex, scope, "project or --scope user"));
        }
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
    changes.extend(skills_dir_files(&skills_dir, skills));
    Ok(changes)
}

/// opencode: a JSON snippet to merge into its config (Lore does not edit
/// it), and the skills as commands.
fn opencode(
    scope: Scope,
    skills: &[Skill],
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Vec<Change>> {
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
    let (config, commands) = match scope {
        Scope::Project => (root.join("opencode.json"), root.join(".opencode/commands")),
        Scope::User => (
            homes.config.join("opencode/opencode.json"),
            homes.config.join("opencode/commands"),
        ),
        Scope::Local => {
            return Err(unsupported(
                Target::Opencode,
                scope,
                "project or --scope user",
            ));
        }
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
    for &skill in skills {
        changes.push(Change::File {
            path: commands.join(format!("{}.md", skill.name())),
            contents: format!(
                "---\ndescription: {}\n---\n\n{}\n$ARGUMENTS\n",
                skill_description(skill),
                skill_body(skill)
            )
            .into_bytes(),
            what: format!("the {} command", skill.title()),
        });
    }
    Ok(changes)
}

/// Any other client: the skills in the shared `.agents/skills` folder, and
/// where to point it.
fn universal(
    scope: Scope,
    skills: &[Skill],
    endpoint: &Endpoint,
    homes: &Homes,
) -> anyhow::Result<Vec<Change>> {
    let root = &endpoint.project_root;
    let mut changes = Vec::new();
    let dir = match scope {
        Scope::Project => root.join(".agents/skills"),
        Scope::User => homes.home.join(".agents/skills"),
        Scope::Local => {
            return Err(unsupported(
                Target::Universal,
                scope,
                "project or --scope user",
            ));
        }
    };
    changes.extend(skills_dir_files(&dir, skills));
    changes.push(Change::Note(format!(
        "point any MCP client at {} (Streamable HTTP){}",
        endpoint.url,
        if endpoint.token_auth {
            " with the header Authorization: Bearer ${LORE_MCP_TOKEN}"
        } else {
            ""
        }
    )));
    Ok(changes)
}

/// The Claude Desktop entry's `env`: each variable lore.yaml reads, with
/// its value here, and the variables that are not set (named with the
/// setting that reads them).
fn desktop_env(
    vars: &[(String, String)],
) -> (serde_json::Map<String, serde_json::Value>, Vec<String>) {
    let mut env = serde_json::Map::new();
    let mut unset = Vec::new();
    for (var, setting) in vars {
        match std::env::var(var) {
            Ok(value) => {
                env.insert(var.clone(), serde_json::Value::String(value));
            }
            Err(_) => unset.push(format!("{var} ({setting})")),
        }
    }
    (env, unset)
}
