//! Claude Desktop in one step: an MCP Bundle (`.mcpb`, the zip archive
//! Claude Desktop installs with a double click) that carries this `lore`
//! executable and a manifest starting `lore mcp stdio` for a project, and
//! skill archives (`.zip` holding `<skill>/SKILL.md`) that the app's skill
//! upload accepts.
//!
//! Both archives are deterministic: the same inputs give the same bytes,
//! so a second `setup agents` run recognises its own files.

use std::io::{Cursor, Write};
use std::path::Path;

use anyhow::Context;
use serde_json::json;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// The MCPB manifest version written (the newest `mcpb validate` knows
/// that Claude Desktop releases of 2026 read).
const MANIFEST_VERSION: &str = "0.3";

/// The executable's name inside the bundle.
fn entry_point() -> &'static str {
    if cfg!(windows) {
        "server/lore.exe"
    } else {
        "server/lore"
    }
}

/// This platform as MCPB names it.
fn platform() -> &'static str {
    if cfg!(target_os = "macos") {
        "darwin"
    } else if cfg!(windows) {
        "win32"
    } else {
        "linux"
    }
}

fn options(executable: bool) -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(6))
        // A fixed date keeps the archive's bytes the same run to run.
        .last_modified_time(DateTime::default())
        .unix_permissions(if executable { 0o755 } else { 0o644 })
}

/// The manifest of a bundle serving the project at `project_root`
/// (chosen again by whoever installs it: `user_config.project_dir`). Each
/// environment variable `lore.yaml` reads is a setting the app asks for
/// at install (sensitive: kept in the system's keychain) and passes to
/// the server; its value never goes into the bundle.
pub fn manifest(project_root: &Path, env_vars: &[(String, String)]) -> serde_json::Value {
    let name = project_root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "project".into());
    let mut user_config = serde_json::Map::new();
    user_config.insert(
        "project_dir".into(),
        json!({
            "type": "directory",
            "title": "Lore project",
            "description": "The folder holding lore.yaml (the project whose data Claude may read).",
            "required": true,
            "default": project_root.display().to_string()
        }),
    );
    let mut env = serde_json::Map::new();
    for (var, setting) in env_vars {
        let key = var.to_lowercase();
        user_config.insert(
            key.clone(),
            json!({
                "type": "string",
                "title": var,
                "description": format!("The value of {var}, which lore.yaml reads for {setting}."),
                "required": true,
                "sensitive": true
            }),
        );
        env.insert(var.clone(), json!(format!("${{user_config.{key}}}")));
    }
    json!({
        "manifest_version": MANIFEST_VERSION,
        "name": "lore",
        "display_name": format!("Lore ({name})"),
        "version": env!("CARGO_PKG_VERSION"),
        "description": "Context for data questions: discover tables, semantic-layer metrics and wiki knowledge, run read-only SQL and semantic queries, and remember what was learned.",
        "author": { "name": "Lore" },
        "license": env!("CARGO_PKG_LICENSE"),
        "keywords": ["data", "analytics", "sql", "semantic layer", "memory"],
        "server": {
            "type": "binary",
            "entry_point": entry_point(),
            "mcp_config": {
                "command": format!("${{__dirname}}/{}", entry_point()),
                                "args": ["--project-dir", "${user_config.project_dir}", "mcp", "stdio"],
                "env": env
            }
        },
        "user_config": user_config,
        "tools_generated": true,
        "prompts_generated": true,
        "compatibility": { "platforms": [platform()] }
    })
}

/// The `.mcpb` archive: `manifest.json` and the executable at `exe`.
pub fn mcpb(
    project_root: &Path,
    exe: &Path,
    env_vars: &[(String, String)],
) -> anyhow::Result<Vec<u8>> {
    let binary = std::fs::read(exe)
        .with_context(|| format!("cannot read the lore executable {}", exe.display()))?;
    let manifest = serde_json::to_string_pretty(&manifest(project_root, env_vars))?;
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("manifest.json", options(false))?;
    zip.write_all(manifest.as_bytes())?;
    zip.start_file(entry_point(), options(true))?;
    zip.write_all(&binary)?;
    Ok(zip.finish()?.into_inner())
}

/// A skill upload archive: `<name>/SKILL.md`.
pub fn skill_archive(name: &str, skill: &str) -> anyhow::Result<Vec<u8>> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(format!("{name}/SKILL.md"), options(false))?;
    zip.write_all(skill.as_bytes())?;
    Ok(zip.finish()?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_are_deterministic_and_hold_what_they_name() {
        let a = skill_archive("lore-analytics", "---\nname: x\n---\nbody\n").unwrap();
        let b = skill_archive("lore-analytics", "---\nname: x\n---\nbody\n").unwrap();
        assert_eq!(a, b);
        let mut archive = zip::ZipArchive::new(Cursor::new(a)).unwrap();
        let mut file = archive.by_name("lore-analytics/SKILL.md").unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut file, &mut text).unwrap();
        assert!(text.ends_with("body\n"));
    }

    #[test]
    fn the_manifest_starts_lore_mcp_stdio_on_the_chosen_project() {
        let manifest = manifest(Path::new("/work/acme"), &[]);
        let config = &manifest["server"]["mcp_config"];
        assert_eq!(
            config["args"],
            json!([
                "--project-dir",
                "${user_config.project_dir}",
                "mcp",
                "stdio"
            ])
        );
        assert_eq!(
            manifest["user_config"]["project_dir"]["default"],
            "/work/acme"
        );
        assert_eq!(manifest["display_name"], "Lore (acme)");
    }
}
