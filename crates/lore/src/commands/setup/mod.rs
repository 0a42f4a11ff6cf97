//! `lore setup agents`: writes the `lore` MCP server entry into each agent
//! client's own configuration file, in that client's shape, installs the
//! analytics skill where the client looks for skills or rules, and records
//! every change in `.lore/agents/install-manifest.json` so `--remove` undoes
//! exactly those changes and nothing else.
//!
//! Tokens are only ever written as references to `LORE_MCP_TOKEN` in the
//! syntax each client expands; the token's value is never read here.

mod bundle;
mod clients;
mod interactive;
mod manifest;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use lore_core::project::Project;
use serde_json::Value;

use super::daemon::{self, Liveness};
use clients::{Change, Plan, plan};
use manifest::{Entry, Manifest};

/// The analytics skill every target gets, in its own wrapper.
pub const SKILL: &str = include_str!("SKILL.md");

/// The admin skill (`--skill admin`): the `lore` command line.
pub const ADMIN_SKILL: &str = include_str!("ADMIN-SKILL.md");

/// The skills `setup agents` installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Skill {
    /// Answering data questions with Lore's MCP tools (lore-analytics).
    Analytics,
    /// Running a Lore project with the `lore` command line (lore-admin).
    Admin,
}

impl Skill {
    /// The skill's folder and file name.
    pub fn name(self) -> &'static str {
        match self {
            Skill::Analytics => "lore-analytics",
            Skill::Admin => "lore-admin",
        }
    }

    /// How messages name it.
    pub fn title(self) -> &'static str {
        match self {
            Skill::Analytics => "analytics",
            Skill::Admin => "admin",
        }
    }

    /// Its SKILL.md.
    pub fn text(self) -> &'static str {
        match self {
            Skill::Analytics => SKILL,
            Skill::Admin => ADMIN_SKILL,
        }
    }
}

/// `lore setup`.
#[derive(Debug, clap::Subcommand)]
pub enum SetupCommand {
    /// Connect agent clients to this project's Lore MCP server and install the analytics skill.
    Agents(AgentsArgs),
}

/// The clients `setup agents` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Target {
    /// Claude Code: .mcp.json (project) or ~/.claude.json (local, user); skill in .claude/skills.
    ClaudeCode,
    /// Claude Desktop: claude_desktop_config.json (user scope only), spawning `lore mcp stdio`.
    ClaudeDesktop,
    /// Cursor: .cursor/mcp.json or ~/.cursor/mcp.json; rule in .cursor/rules.
    Cursor,
    /// Codex: prints the config.toml entry; skill in .agents/skills or $CODEX_HOME/skills.
    Codex,
    /// opencode: prints the opencode.json entry; command in .opencode/commands.
    Opencode,
    /// Any agent reading .agents/skills: installs the skill only.
    Universal,
}

impl Target {
    pub fn as_str(self) -> &'static str {
        match self {
            Target::ClaudeCode => "claude-code",
            Target::ClaudeDesktop => "claude-desktop",
            Target::Cursor => "cursor",
            Target::Codex => "codex",
            Target::Opencode => "opencode",
            Target::Universal => "universal",
        }
    }
}

/// Where a client's entry goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// This project, in files meant to be committed (.mcp.json, .cursor/…).
    Project,
    /// This project, for you only (Claude Code: ~/.claude.json projects entry).
    Local,
    /// Every project, for you (files in your home directory).
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::User => "user",
        }
    }
}

/// `lore setup agents`.
#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Client to set up (repeatable). Without it, in a terminal, Lore asks.
    #[arg(long = "target", short, value_enum)]
    pub targets: Vec<Target>,
    /// Skill to install (repeatable): analytics (answering data questions
    /// through the MCP tools) or admin (running Lore with the CLI).
    #[arg(long = "skill", value_enum, default_values_t = [Skill::Analytics])]
    pub skills: Vec<Skill>,
    /// Where to write (default: project; claude-desktop: user).
    #[arg(long, value_enum)]
    pub scope: Option<Scope>,
    /// Undo what an earlier `setup agents` for these targets and scope wrote.
    #[arg(long)]
    pub remove: bool,
    /// Replace a `lore` entry or a skill or rule file Lore did not write
    /// (what it replaces is kept, and `--remove` restores it).
    #[arg(long, conflicts_with = "remove")]
    pub force: bool,
    /// MCP URL to write (default: the running server's, else mcp.host/port from lore.yaml).
    #[arg(long)]
    pub url: Option<String>,
}

pub fn run(command: SetupCommand, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    match command {
        SetupCommand::Agents(args) => agents(&project, &args),
    }
}

/// The directories the writers resolve `~`-relative paths against.
#[derive(Debug, Clone)]
pub struct Homes {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$CODEX_HOME`, else `~/.codex`.
    pub codex_home: PathBuf,
    /// Claude Desktop's configuration folder for this OS.
    pub claude_desktop: PathBuf,
    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config: PathBuf,
}

impl Homes {
    fn from_env() -> anyhow::Result<Homes> {
        let home = std::env::var_os("HOME")
            .or_else(|| std::env::var_os("USERPROFILE"))
            .map(PathBuf::from)
            .context("cannot find your home directory: set HOME")?;
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        let codex_home = std::env::var_os("CODEX_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"));
        let claude_desktop = if cfg!(target_os = "macos") {
            home.join("Library/Application Support/Claude")
        } else if cfg!(windows) {
            std::env::var_os("APPDATA")
                .map(PathBuf::from)
                .unwrap_or_else(|| home.join("AppData/Roaming"))
                .join("Claude")
        } else {
            config.join("Claude")
        };
        Ok(Homes {
            home,
            codex_home,
            claude_desktop,
            config,
        })
    }
}

/// What the entries point at, and whether they need the token header.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub url: String,
    pub token_auth: bool,
    pub running: bool,
    /// The lore executable, for stdio clients.
    pub exe: String,
    pub project_root: PathBuf,
    /// The environment variables `lore.yaml` reads (`env:VAR`), each with
    /// the setting that names it; a client that starts `lore` itself must
    /// pass them on. Tokens are left out: stdio needs none.
    pub env_vars: Vec<(String, String)>,
}

fn endpoint(project: &Project, args: &AgentsArgs) -> anyhow::Result<Endpoint> {
    let configured_tokens =
        !project.config.mcp.tokens.is_empty() || std::env::var_os(super::mcp::TOKEN_ENV).is_some();
    let (url, token_auth, running) = match daemon::liveness(project) {
        Liveness::Running { state, .. } => (state.url, state.token_auth, true),
        _ => (
            format!(
                "{}/mcp",
                daemon::base_url(&project.config.mcp.host, project.config.mcp.port)
            ),
            configured_tokens,
            false,
        ),
    };
    let url = args.url.clone().unwrap_or(url);
    if !url.starts_with("http://") && !url.starts_with("https://") {
        bail!("--url must be an http:// or https:// URL, e.g. http://127.0.0.1:7878/mcp");
    }
    let exe = std::env::current_exe()
        .context("cannot find the lore executable")?
        .display()
        .to_string();
    let project_root = std::path::absolute(&project.root).unwrap_or_else(|_| project.root.clone());
    let env_vars = project
        .config
        .secret_env_vars()
        .into_iter()
        .filter(|(_, setting)| !setting.starts_with("mcp.tokens"))
        .collect();
    Ok(Endpoint {
        url,
        token_auth,
        running,
        exe,
        project_root,
        env_vars,
    })
}

fn agents(project: &Project, args: &AgentsArgs) -> anyhow::Result<()> {
    let homes = Homes::from_env()?;
    let manifest_path = project
        .state_dir()
        .join("agents")
        .join("install-manifest.json");
    let mut manifest = Manifest::load(&manifest_path)?;
    let mut targets = args.targets.clone();
    let mut scope_choice = args.scope;
    let mut asked = false;
    if targets.is_empty() {
        if args.remove || !interactive::available() {
            bail!(
                "say which clients to set up: --target claude-code, claude-desktop, cursor, codex, opencode or universal (repeatable){}",
                if args.remove {
                    ""
                } else {
                    "; in a terminal, Lore asks"
                }
            );
        }
        let answers = interactive::ask(&homes, args.scope)?;
        targets = answers.targets;
        scope_choice = answers.scope;
        asked = true;
    }
    targets.sort();
    targets.dedup();
    let mut skills = args.skills.clone();
    skills.sort();
    skills.dedup();
    if args.remove {
        for target in targets {
            let scope = scope_choice.unwrap_or(default_scope(target));
            remove(&mut manifest, target, scope)?;
        }
        return manifest.save(&manifest_path);
    }
    let endpoint = endpoint(project, args)?;
    // Plan every target first: an unsupported scope or an unreadable file
    // stops the command before anything is written.
    let mut plans = Vec::new();
    for &target in &targets {
        let scope = scope_for(target, scope_choice, asked);
        plans.push(plan(target, scope, &skills, &endpoint, &homes)?);
    }
    let foreign = foreign_changes(&manifest, &plans)?;
    if !foreign.is_empty() && !args.force {
        bail!(
            "{} not written by Lore: {}; nothing was changed. Move {} aside, or run again with --force to replace {} (Lore keeps what it replaces, and --remove restores it)",
            if foreign.len() == 1 {
                "an entry or file exists that was"
            } else {
                "entries or files exist that were"
            },
            foreign.join(", "),
            if foreign.len() == 1 { "it" } else { "them" },
            if foreign.len() == 1 { "it" } else { "them" },
        );
    }
    for plan in plans {
        apply(&mut manifest, &plan)?;
        // Record after each target, so an error later keeps what was done undoable.
        manifest.save(&manifest_path)?;
    }
    if !endpoint.running
        && targets
            .iter()
            .any(|t| !matches!(t, Target::Universal | Target::ClaudeDesktop))
    {
        println!(
            "\nThe server these entries point at is not running: run `lore mcp start` (then restart or reload your client)."
        );
    }
    Ok(())
}

/// What the plans would replace that Lore did not write: an entry under
/// the same key holding something else (a hand-written `lore` server
/// with its own URL), or a skill or rule file of the user's. One rule for
/// both: left alone unless `--force`. Unreadable JSON stops everything
/// here, before any write.
fn foreign_changes(manifest: &Manifest, plans: &[Plan]) -> anyhow::Result<Vec<String>> {
    let mut foreign = Vec::new();
    for plan in plans {
        for change in &plan.changes {
            match change {
                Change::JsonKey {
                    file,
                    pointer,
                    value,
                } => {
                    let root = read_json_object(file)?;
                    if let Some(current) = get_path(&root, pointer)
                        && is_foreign_entry(manifest, file, pointer, current, value)
                    {
                        foreign.push(format!("{} in {}", pointer_text(pointer), file.display()));
                    }
                }
                Change::File { path, contents, .. } if is_foreign(manifest, path, contents) => {
                    foreign.push(path.display().to_string());
                }
                _ => {}
            }
        }
    }
    Ok(foreign)
}

/// The folders above `path` that do not exist yet, deepest first.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut missing = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.as_os_str().is_empty() || d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        dir = d.parent();
    }
    missing
}

/// `target (scope)` for every target and scope the manifest records.
pub fn configured_targets(manifest_path: &Path) -> Vec<String> {
    Manifest::load(manifest_path)
        .map(|m| m.targets())
        .unwrap_or_default()
}

fn default_scope(target: Target) -> Scope {
    match target {
        Target::ClaudeDesktop => Scope::User,
        _ => Scope::Project,
    }
}

/// The scope a target is set up in: the one asked for, except that Claude
/// Desktop has only its user configuration (an interactive choice of
/// "project" still sets it up there).
fn scope_for(target: Target, chosen: Option<Scope>, asked: bool) -> Scope {
    match (target, chosen) {
        (Target::ClaudeDesktop, Some(Scope::Project)) if asked => Scope::User,
        (_, Some(scope)) => scope,
        (_, None) => default_scope(target),
    }
}

fn apply(manifest: &mut Manifest, plan: &Plan) -> anyhow::Result<()> {
    let (target, scope) = (plan.target.as_str(), plan.scope.as_str());
    println!("{target} ({scope} scope):");
    for change in &plan.changes {
        match change {
            Change::JsonKey {
                file,
                pointer,
                value,
            } => {
                let existed = file.exists();
                let created_dirs = missing_dirs(file);
                let mut root = read_json_object(file)?;
                let previous = get_path(&root, pointer).cloned();
                let replaced = previous
                    .as_ref()
                    .is_some_and(|p| is_foreign_entry(manifest, file, pointer, p, value));
                set_path(&mut root, pointer, value.clone());
                write_json(file, &root)?;
                let mut entry =
                    Entry::json_key(target, scope, file, pointer, value, previous, !existed);
                entry.created_dirs = created_dirs;
                manifest.record(entry);
                if replaced {
                    println!(
                        "  replaced your {} in {} (--remove puts it back)",
                        pointer_text(pointer),
                        file.display()
                    );
                } else {
                    println!("  wrote {} in {}", pointer_text(pointer), file.display());
                }
            }
            Change::File {
                path,
                contents,
                what,
            } => {
                let existed = path.exists();
                let created_dirs = missing_dirs(path);
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                }
                // Checked before anything was written: a file here that Lore
                // did not write is only replaced under --force, after a backup.
                let backup = if is_foreign(manifest, path, contents) {
                    let backup = backup_path(path);
                    std::fs::copy(path, &backup).with_context(|| {
                        format!("cannot back up {} to {}", path.display(), backup.display())
                    })?;
                    println!("  kept your {} as {}", path.display(), backup.display());
                    Some(backup)
                } else {
                    None
                };
                lore_core::project::write_atomically(path, contents)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                let mut entry = Entry::file(target, scope, path, contents, existed);
                entry.backup = backup;
                entry.created_dirs = created_dirs;
                manifest.record(entry);
                println!("  wrote {what} at {}", path.display());
            }
            Change::Print { title, text } => {
                println!("  {title}:\n");
                for line in text.lines() {
                    println!("    {line}");
                }
                println!();
            }
            Change::Note(note) => println!("  note: {note}"),
        }
    }
    if plan.writes_token_header() {
        println!(
            "  The entry sends `Authorization: Bearer` with a reference to LORE_MCP_TOKEN, never its value: export LORE_MCP_TOKEN where the client starts.{}",
            if plan.scope == Scope::Project {
                " The file is safe to commit; everyone using it exports their own token."
            } else {
                ""
            }
        );
    }
    Ok(())
}

fn remove(manifest: &mut Manifest, target: Target, scope: Scope) -> anyhow::Result<()> {
    let entries = manifest.take(target.as_str(), scope.as_str());
    if entries.is_empty() {
        println!(
            "{} ({} scope): nothing recorded to remove.",
            target.as_str(),
            scope.as_str()
        );
        if matches!(target, Target::Codex | Target::Opencode) {
            println!(
                "  Lore printed its {} entry rather than writing it: delete the `lore` entry from that file by hand.",
                target.as_str()
            );
        }
        return Ok(());
    }
    println!("{} ({} scope):", target.as_str(), scope.as_str());
    let mut kept = Vec::new();
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    for entry in entries {
        if entry.pointer.is_none() && manifest.uses(&entry.path) {
            println!(
                "  kept {}: another target's setup installed it too",
                entry.path.display()
            );
            continue;
        }
        match undo(&entry) {
            Ok(message) => {
                println!("  {message}");
                created_dirs.extend(entry.created_dirs.iter().cloned());
            }
            Err(e) => {
                println!("  could not undo {}: {e:#}", entry.path.display());
                kept.push(entry);
            }
        }
    }
    for entry in kept {
        manifest.record(entry);
    }
    remove_empty_dirs(created_dirs);
    Ok(())
}

/// Removes the folders Lore created that are empty now, deepest first; a
/// folder holding anything stays.
fn remove_empty_dirs(mut dirs: Vec<PathBuf>) {
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    dirs.dedup();
    for dir in dirs {
        if std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_none()) {
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

/// Undoes one recorded change, leaving anything the user changed since.
fn undo(entry: &Entry) -> anyhow::Result<String> {
    let path = &entry.path;
    match &entry.pointer {
        Some(pointer) => {
            if !path.exists() {
                return Ok(format!("{} is gone already", path.display()));
            }
            let mut root = read_json_object(path)?;
            if get_path(&root, pointer) != entry.value.as_ref() {
                return Ok(format!(
                    "left {} in {}: it changed since Lore wrote it",
                    pointer_text(pointer),
                    path.display()
                ));
            }
            match &entry.previous {
                Some(previous) => set_path(&mut root, pointer, previous.clone()),
                None => remove_path(&mut root, pointer),
            }
            if entry.created_file && root.as_object().is_some_and(|o| o.is_empty()) {
                std::fs::remove_file(path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
                return Ok(format!("removed {} (Lore had created it)", path.display()));
            }
            write_json(path, &root)?;
            Ok(format!(
                "{} {} in {}",
                if entry.previous.is_some() {
                    "restored"
                } else {
                    "removed"
                },
                pointer_text(pointer),
                path.display()
            ))
        }
        None => {
            let Ok(current) = std::fs::read(path) else {
                return Ok(format!("{} is gone already", path.display()));
            };
            if Some(manifest::content_hash(&current)) != entry.hash {
                return Ok(format!(
                    "left {}: it changed since Lore wrote it",
                    path.display()
                ));
            }
            if let Some(backup) = entry.backup.as_ref().filter(|b| b.exists()) {
                std::fs::rename(backup, path).with_context(|| {
                    format!(
                        "cannot restore {} from {}",
                        path.display(),
                        backup.display()
                    )
                })?;
                return Ok(format!(
                    "restored your {} (Lore had replaced it)",
                    path.display()
                ));
            }
            std::fs::remove_file(path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
            // Remove a folder of Lore's own when it is left empty.
            if let Some(dir) = path.parent()
                && dir.file_name().is_some_and(|n| {
                    n == "claude-desktop"
                        || [Skill::Analytics, Skill::Admin]
                            .iter()
                            .any(|s| n == s.name())
                })
            {
                let _ = std::fs::remove_dir(dir);
            }
            Ok(format!("removed {}", path.display()))
        }
    }
}

/// Whether the entry `current` at `pointer` is one Lore did not write: it
/// differs from what Lore would write now and no recorded setup wrote it.
fn is_foreign_entry(
    manifest: &Manifest,
    file: &Path,
    pointer: &[String],
    current: &Value,
    value: &Value,
) -> bool {
    current != value && !manifest.wrote_key(file, pointer, current)
}

/// Whether a file at `path` holds something Lore did not write: it
/// exists, differs from what Lore would write now, and is not what a
/// recorded setup wrote there.
fn is_foreign(manifest: &Manifest, path: &Path, contents: &[u8]) -> bool {
    let Ok(current) = std::fs::read(path) else {
        return path.exists();
    };
    current != contents && !manifest.wrote(path, &manifest::content_hash(&current))
}

/// Where a replaced file is kept: beside it, `<name>.lore-backup`.
fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lore-backup");
    path.with_file_name(name)
}

/// The file's JSON object, or an empty one when the file does not exist.
/// Anything else is an error that names the file, before any write.
fn read_json_object(path: &Path) -> anyhow::Result<Value> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Value::Object(Default::default()));
        }
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    };
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not valid JSON ({e}); fix it or move it aside, then run this again (nothing was changed)",
            path.display()
        )
    })?;
    if !value.is_object() {
        bail!(
            "{} does not hold a JSON object; fix it or move it aside (nothing was changed)",
            path.display()
        );
    }
    Ok(value)
}

fn write_json(path: &Path, value: &Value) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = format!("{}\n", serde_json::to_string_pretty(value)?);
    lore_core::project::write_atomically(path, &text).map_err(anyhow::Error::from)
}

fn pointer_text(pointer: &[String]) -> String {
    pointer
        .iter()
        .map(|p| {
            if p.contains(['.', '/']) {
                format!("[\"{p}\"]")
            } else {
                p.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
        .replace(".[", "[")
}

fn get_path<'a>(root: &'a Value, pointer: &[String]) -> Option<&'a Value> {
    pointer.iter().try_fold(root, |node, key| node.get(key))
}

fn set_path(root: &mut Value, pointer: &[String], value: Value) {
    let Some((last, parents)) = pointer.split_last() else {
        return;
    };
    let mut node = root;
    for key in parents {
        if !node.get(key).is_some_and(Value::is_object) {
            node[key.as_str()] = Value::Object(Default::default());
        }
        node = &mut node[key.as_str()];
    }
    node[last.as_str()] = value;
}

/// Removes the key, then every parent object the removal left empty.
fn remove_path(root: &mut Value, pointer: &[String]) {
    let Some((last, parents)) = pointer.split_last() else {
        return;
    };
    let mut node = &mut *root;
    for key in parents {
        match node.get_mut(key) {
            Some(child) => node = child,
            None => return,
        }
    }
    if let Some(object) = node.as_object_mut() {
        object.remove(last);
    }
    if !parents.is_empty()
        && get_path(root, parents)
            .and_then(Value::as_object)
            .is_some_and(|o| o.is_empty())
    {
        remove_path(root, parents);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pointer(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn keys_are_set_and_removed_with_their_empty_parents_only() {
        let mut root =
            serde_json::json!({"projects": {"/p": {"allowedTools": []}}, "theme": "dark"});
        let at = pointer(&["projects", "/p", "mcpServers", "lore"]);
        set_path(&mut root, &at, serde_json::json!({"type": "http"}));
        assert_eq!(root["projects"]["/p"]["mcpServers"]["lore"]["type"], "http");
        remove_path(&mut root, &at);
        assert_eq!(
            root,
            serde_json::json!({"projects": {"/p": {"allowedTools": []}}, "theme": "dark"})
        );
    }

    #[test]
    fn pointers_read_as_paths() {
        assert_eq!(
            pointer_text(&pointer(&["mcpServers", "lore"])),
            "mcpServers.lore"
        );
        assert_eq!(
            pointer_text(&pointer(&["projects", "/a/b", "mcpServers", "lore"])),
            "projects[\"/a/b\"].mcpServers.lore"
        );
    }
}
