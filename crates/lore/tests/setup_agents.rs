//! `lore setup agents` per target and scope, on temporary home and project
//! directories: the entry each client reads, merged into existing files
//! without losing their content, exact removal, and no literal token in any
//! output or file for any target and scope.

mod common;

use std::path::{Path, PathBuf};

use common::{empty_project, lore, with_connections};
use serde_json::{Value, json};

const TOKEN: &str = "literal-secret-token-value-9f8e7d";

struct Env {
    _dir: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
    _project: tempfile::TempDir,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let (project, root) = empty_project();
    Env {
        _dir: dir,
        home,
        root,
        _project: project,
    }
}

fn setup(env: &Env, args: &[&str], token: Option<&str>) -> (bool, String) {
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(&env.root)
        .args(["setup", "agents"])
        .args(args)
        .env("HOME", &env.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CODEX_HOME")
        .env_remove("LORE_MCP_TOKEN");
    if let Some(token) = token {
        command.env("LORE_MCP_TOKEN", token);
    }
    let output = command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn claude_code_entries_land_in_each_scope_s_own_place() {
    let env = env();
    let (ok, out) = setup(&env, &["--target", "claude-code"], None);
    assert!(ok, "{out}");
    let project = read_json(&env.root.join(".mcp.json"));
    assert_eq!(
        project["mcpServers"]["lore"],
        json!({"type": "http", "url": "http://127.0.0.1:7878/mcp"})
    );
    let skill = env.root.join(".claude/skills/lore-analytics/SKILL.md");
    let text = std::fs::read_to_string(&skill).unwrap();
    assert!(text.starts_with("---\nname: lore-analytics\n"), "{text}");
    for tool in [
        "discover_data",
        "sl_query",
        "sql_execution",
        "dictionary_search",
        "connectionId",
    ] {
        assert!(text.contains(tool), "the skill does not mention {tool}");
    }
    assert!(
        out.contains("lore mcp start"),
        "hint to start the server: {out}"
    );

    // local: ~/.claude.json projects[<abs project>].mcpServers.lore, merged
    // into what the file already holds.
    let claude_json = env.home.join(".claude.json");
    std::fs::write(
        &claude_json,
        json!({"numStartups": 7, "projects": {env.root.display().to_string(): {"allowedTools": ["Bash"]}}, "mcpServers": {"other": {"type": "stdio", "command": "x"}}}).to_string(),
    )
    .unwrap();
    let before = read_json(&claude_json);
    let (ok, out) = setup(&env, &["--target", "claude-code", "--scope", "local"], None);
    assert!(ok, "{out}");
    let merged = read_json(&claude_json);
    let project_key = env.root.display().to_string();
    assert_eq!(
        merged["projects"][&project_key]["mcpServers"]["lore"]["type"],
        "http"
    );
    assert_eq!(
        merged["projects"][&project_key]["allowedTools"],
        json!(["Bash"])
    );
    assert_eq!(merged["numStartups"], 7);
    assert_eq!(merged["mcpServers"]["other"]["command"], "x");
    assert!(
        env.home
            .join(".claude/skills/lore-analytics/SKILL.md")
            .exists()
    );

    // user: the root mcpServers, beside the existing server.
    let (ok, _) = setup(&env, &["--target", "claude-code", "--scope", "user"], None);
    assert!(ok);
    let merged = read_json(&claude_json);
    assert_eq!(
        merged["mcpServers"]["lore"]["url"],
        "http://127.0.0.1:7878/mcp"
    );
    assert_eq!(merged["mcpServers"]["other"]["command"], "x");

    // Removing local and user restores the file exactly; removing project
    // deletes the files Lore created.
    for scope in ["local", "user"] {
        let (ok, out) = setup(
            &env,
            &["--target", "claude-code", "--scope", scope, "--remove"],
            None,
        );
        assert!(ok, "{out}");
    }
    assert_eq!(read_json(&claude_json), before);
    let (ok, out) = setup(&env, &["--target", "claude-code", "--remove"], None);
    assert!(ok, "{out}");
    assert!(!env.root.join(".mcp.json").exists(), "{out}");
    assert!(!skill.exists());
    assert!(!env.root.join(".lore/agents/install-manifest.json").exists());
}

#[test]
fn removal_restores_a_replaced_entry_and_leaves_user_edits() {
    let env = env();
    let cursor = env.root.join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    let theirs = json!({"url": "http://elsewhere:1/mcp"});
    std::fs::write(
        &cursor,
        json!({"mcpServers": {"lore": theirs, "github": {"url": "https://gh"}}}).to_string(),
    )
    .unwrap();
    // A hand-written `lore` entry is the user's: left alone, and said so,
    // as a skill file Lore did not write is.
    let (ok, out) = setup(
        &env,
        &["--target", "cursor", "--url", "http://127.0.0.1:9999/mcp"],
        None,
    );
    assert!(
        !ok && out.contains("mcpServers.lore in") && out.contains("--force"),
        "{out}"
    );
    assert_eq!(read_json(&cursor)["mcpServers"]["lore"], theirs);
    assert!(
        !env.root.join(".cursor/rules").exists(),
        "nothing was written"
    );
    let (ok, out) = setup(
        &env,
        &[
            "--target",
            "cursor",
            "--url",
            "http://127.0.0.1:9999/mcp",
            "--force",
        ],
        None,
    );
    assert!(ok && out.contains("replaced your mcpServers.lore"), "{out}");
    assert_eq!(
        read_json(&cursor)["mcpServers"]["lore"],
        json!({"url": "http://127.0.0.1:9999/mcp"})
    );
    // Running it twice keeps the user's original as what removal restores.
    let (ok, _) = setup(
        &env,
        &["--target", "cursor", "--url", "http://127.0.0.1:9999/mcp"],
        None,
    );
    assert!(ok);
    let rule = env.root.join(".cursor/rules/lore-analytics.mdc");
    assert!(
        std::fs::read_to_string(&rule)
            .unwrap()
            .starts_with("---\ndescription: ")
    );
    std::fs::write(&rule, "my own edits").unwrap();

    let (ok, out) = setup(&env, &["--target", "cursor", "--remove"], None);
    assert!(ok, "{out}");
    let after = read_json(&cursor);
    assert_eq!(after["mcpServers"]["lore"], theirs);
    assert_eq!(after["mcpServers"]["github"]["url"], "https://gh");
    assert_eq!(
        std::fs::read_to_string(&rule).unwrap(),
        "my own edits",
        "{out}"
    );
    assert!(out.contains("changed since Lore wrote it"), "{out}");
}

/// `--remove` takes away the folders Lore created for its files when they
/// are left empty, and never a folder holding anything else.
#[test]
fn removal_leaves_no_empty_folders_behind() {
    let env = env();
    let (ok, out) = setup(&env, &["--target", "cursor"], None);
    assert!(ok, "{out}");
    assert!(env.root.join(".cursor/rules/lore-analytics.mdc").exists());
    let (ok, out) = setup(&env, &["--target", "cursor", "--remove"], None);
    assert!(ok, "{out}");
    assert!(!env.root.join(".cursor").exists(), "{out}");

    // A folder that holds the user's own file stays, with the file.
    let (ok, out) = setup(&env, &["--target", "cursor"], None);
    assert!(ok, "{out}");
    let theirs = env.root.join(".cursor/rules/team.mdc");
    std::fs::write(&theirs, "our rule").unwrap();
    let (ok, out) = setup(&env, &["--target", "cursor", "--remove"], None);
    assert!(ok, "{out}");
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "our rule");
    assert!(!env.root.join(".cursor/mcp.json").exists(), "{out}");
    assert!(!env.root.join(".cursor/rules/lore-analytics.mdc").exists());
}

#[test]
fn a_broken_config_file_stops_everything_before_any_write() {
    let env = env();
    std::fs::write(env.root.join(".mcp.json"), "{ not json").unwrap();
    let (ok, out) = setup(
        &env,
        &["--target", "cursor", "--target", "claude-code"],
        None,
    );
    assert!(!ok);
    assert!(
        out.contains(".mcp.json") && out.contains("not valid JSON"),
        "{out}"
    );
    assert!(
        !env.root.join(".cursor").exists(),
        "nothing is half-written"
    );
    assert_eq!(
        std::fs::read_to_string(env.root.join(".mcp.json")).unwrap(),
        "{ not json"
    );
    let (ok, out) = setup(&env, &["--target", "cursor", "--scope", "local"], None);
    assert!(!ok && out.contains("no local scope"), "{out}");
}

#[test]
fn claude_desktop_spawns_lore_over_stdio() {
    let env = env();
    let (ok, out) = setup(&env, &["--target", "claude-desktop"], None);
    assert!(ok, "{out}");
    let config = read_json(&env.home.join(".config/Claude/claude_desktop_config.json"));
    let entry = &config["mcpServers"]["lore"];
    assert!(
        entry["command"].as_str().unwrap().ends_with("lore"),
        "{entry}"
    );
    assert_eq!(
        entry["args"],
        json!([
            "--project-dir",
            env.root.display().to_string(),
            "mcp",
            "stdio"
        ])
    );
    let (ok, out) = setup(
        &env,
        &["--target", "claude-desktop", "--scope", "project"],
        None,
    );
    assert!(!ok && out.contains("--scope user"), "{out}");
}

/// A project whose lore.yaml reads `env:` variables gets them carried: the
/// desktop entry holds the values set here (and names the ones that are
/// not), the bundle asks for each at install, as a sensitive setting, and
/// never holds a value.
#[test]
fn claude_desktop_carries_the_variables_lore_yaml_reads() {
    let env = env();
    let config_path = env.root.join("lore.yaml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    std::fs::write(
        &config_path,
        with_connections(
            &config,
            "  shop:\n    driver: postgres\n    url: env:LORE_TEST_SHOP_URL\n  events:\n    driver: clickhouse\n    url: env:LORE_TEST_EVENTS_URL\n",
        ),
    )
    .unwrap();
    let output = lore()
        .arg("--project-dir")
        .arg(&env.root)
        .args(["setup", "agents", "--target", "claude-desktop"])
        .env("HOME", &env.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("LORE_MCP_TOKEN")
        .env(
            "LORE_TEST_SHOP_URL",
            "postgres://lore:pw@db.internal:5432/shop",
        )
        .env_remove("LORE_TEST_EVENTS_URL")
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{out}");
    let config = read_json(&env.home.join(".config/Claude/claude_desktop_config.json"));
    assert_eq!(
        config["mcpServers"]["lore"]["env"],
        json!({"LORE_TEST_SHOP_URL": "postgres://lore:pw@db.internal:5432/shop"})
    );
    assert!(
        out.contains("LORE_TEST_EVENTS_URL (connections.events.url)") && out.contains("not set"),
        "{out}"
    );

    let bundle = env.root.join(".lore/agents/claude-desktop/lore.mcpb");
    let manifest: Value = serde_json::from_slice(&unzip(&bundle, "manifest.json")).unwrap();
    for (var, key) in [
        ("LORE_TEST_SHOP_URL", "lore_test_shop_url"),
        ("LORE_TEST_EVENTS_URL", "lore_test_events_url"),
    ] {
        let setting = &manifest["user_config"][key];
        assert_eq!(setting["type"], "string", "{manifest}");
        assert_eq!(setting["sensitive"], true, "{manifest}");
        assert_eq!(setting["required"], true, "{manifest}");
        assert_eq!(
            manifest["server"]["mcp_config"]["env"][var],
            json!(format!("${{user_config.{key}}}"))
        );
    }
    assert!(!manifest.to_string().contains("db.internal"), "{manifest}");
    if let Some(mcpb) = mcpb_cli() {
        let unpacked = tempfile::tempdir().unwrap();
        std::fs::write(
            unpacked.path().join("manifest.json"),
            unzip(&bundle, "manifest.json"),
        )
        .unwrap();
        let checked = std::process::Command::new(mcpb)
            .arg("validate")
            .arg(unpacked.path().join("manifest.json"))
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "{}{}",
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}

/// The `mcpb` command line (npm `@anthropic-ai/mcpb`): `LORE_MCPB`, else
/// `mcpb` on the PATH.
fn mcpb_cli() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("LORE_MCPB") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("mcpb"))
        .find(|p| p.is_file())
}

fn unzip(archive: &Path, name: &str) -> Vec<u8> {
    let file = std::fs::File::open(archive).unwrap();
    let mut zip = zip::ZipArchive::new(file).unwrap();
    let mut entry = zip
        .by_name(name)
        .unwrap_or_else(|e| panic!("{name} in {}: {e}", archive.display()));
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
    bytes
}

#[test]
fn claude_desktop_gets_a_bundle_that_serves_the_project_and_skill_archives() {
    let env = env();
    let (ok, out) = setup(
        &env,
        &[
            "--target",
            "claude-desktop",
            "--skill",
            "analytics",
            "--skill",
            "admin",
        ],
        None,
    );
    assert!(ok, "{out}");
    let dir = env.root.join(".lore/agents/claude-desktop");
    let bundle = dir.join("lore.mcpb");
    assert!(
        out.contains("lore-analytics.zip") && out.contains("lore.mcpb"),
        "{out}"
    );

    // The skill archives hold each skill as the app's upload expects.
    for (name, heading) in [
        ("lore-analytics", "# Answering data questions with Lore"),
        ("lore-admin", "# Running a Lore project"),
    ] {
        let skill = String::from_utf8(unzip(
            &dir.join(format!("{name}.zip")),
            &format!("{name}/SKILL.md"),
        ))
        .unwrap();
        assert!(
            skill.starts_with(&format!("---\nname: {name}\n")),
            "{skill}"
        );
        assert!(skill.contains(heading), "{name}");
    }

    // The bundle's manifest starts the bundled executable on the project.
    let manifest: Value = serde_json::from_slice(&unzip(&bundle, "manifest.json")).unwrap();
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(
        manifest["user_config"]["project_dir"]["default"],
        json!(env.root.display().to_string())
    );
    let entry_point = manifest["server"]["entry_point"].as_str().unwrap();
    let unpacked = tempfile::tempdir().unwrap();
    let exe = unpacked.path().join(entry_point);
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    std::fs::write(&exe, unzip(&bundle, entry_point)).unwrap();
    std::fs::write(
        unpacked.path().join("manifest.json"),
        unzip(&bundle, "manifest.json"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = &manifest["server"]["mcp_config"];
    let command = config["command"]
        .as_str()
        .unwrap()
        .replace("${__dirname}", &unpacked.path().display().to_string());
    let args: Vec<String> = config["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            a.as_str().unwrap().replace(
                "${user_config.project_dir}",
                &env.root.display().to_string(),
            )
        })
        .collect();
    let messages = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-desktop-test","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
    ];
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut child = std::process::Command::new(&command)
        .args(&args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let listed = loop {
        let line = lines.next().expect("the bundled server answers").unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            break message;
        }
    };
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"sql_execution") && names.contains(&"store"),
        "{names:?}"
    );

    // The official validator accepts the manifest and reads the bundle.
    match mcpb_cli() {
        Some(cli) => {
            for args in [
                vec!["validate".into(), unpacked.path().join("manifest.json")],
                vec!["info".into(), bundle.clone()],
            ] {
                let output = std::process::Command::new(&cli)
                    .args(&args)
                    .output()
                    .unwrap();
                assert!(
                    output.status.success(),
                    "mcpb {args:?}: {}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
        None if std::env::var_os("LORE_REQUIRE_MCPB").is_some_and(|v| v == "1") => {
            panic!("LORE_REQUIRE_MCPB=1 but no mcpb CLI: set LORE_MCPB or put mcpb on the PATH")
        }
        None => eprintln!(
            "skipping `mcpb validate`: no mcpb CLI (npm i @anthropic-ai/mcpb; LORE_MCPB=path)"
        ),
    }

    // Running again recognises its own files; removal takes them away.
    let (ok, out) = setup(
        &env,
        &[
            "--target",
            "claude-desktop",
            "--skill",
            "analytics",
            "--skill",
            "admin",
        ],
        None,
    );
    assert!(ok, "{out}");
    let (ok, out) = setup(&env, &["--target", "claude-desktop", "--remove"], None);
    assert!(ok, "{out}");
    assert!(!dir.exists(), "{out}");
}

#[test]
fn the_admin_skill_is_installed_beside_the_analytics_skill() {
    let env = env();
    let (ok, out) = setup(
        &env,
        &[
            "--target",
            "claude-code",
            "--target",
            "cursor",
            "--skill",
            "admin",
            "--skill",
            "analytics",
        ],
        None,
    );
    assert!(ok, "{out}");
    for path in [
        ".claude/skills/lore-admin/SKILL.md",
        ".claude/skills/lore-analytics/SKILL.md",
        ".cursor/rules/lore-admin.mdc",
        ".cursor/rules/lore-analytics.mdc",
    ] {
        assert!(env.root.join(path).is_file(), "{path}: {out}");
    }
    let rule = std::fs::read_to_string(env.root.join(".cursor/rules/lore-admin.mdc")).unwrap();
    assert!(
        rule.starts_with("---\ndescription: Use when setting up or maintaining a Lore project"),
        "{rule}"
    );
    let (ok, out) = setup(
        &env,
        &["--target", "claude-code", "--target", "cursor", "--remove"],
        None,
    );
    assert!(ok, "{out}");
    assert!(
        !env.root.join(".claude/skills/lore-admin").exists(),
        "{out}"
    );
    assert!(
        !env.root.join(".cursor/rules/lore-admin.mdc").exists(),
        "{out}"
    );
}

#[test]
fn without_a_target_and_no_terminal_it_says_what_to_pass() {
    let env = env();
    let (ok, out) = setup(&env, &[], None);
    assert!(!ok, "{out}");
    assert!(out.contains("--target claude-code"), "{out}");
    assert!(!env.root.join(".lore/agents").exists(), "{out}");
}

#[cfg(unix)]
#[test]
fn in_a_terminal_without_a_target_it_asks_and_sets_up_what_was_chosen() {
    // util-linux `script` runs the command on a pseudo-terminal and passes
    // our answers to it.
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    let Some(script) = script else {
        eprintln!("skipping: no `script` command to provide a terminal");
        return;
    };
    let env = env();
    std::fs::create_dir_all(env.home.join(".cursor")).unwrap();
    let command = format!(
        "'{}' --project-dir '{}' setup agents",
        env!("CARGO_BIN_EXE_lore"),
        env.root.display()
    );
    let mut child = std::process::Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .env("HOME", &env.home)
        .env("PATH", "/usr/bin:/bin")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CODEX_HOME")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The detected client (cursor) is the default: accept it, then the
    // project scope.
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"\nproject\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("cursor") && text.contains("(found on this computer)"),
        "{text}"
    );
    assert!(env.root.join(".cursor/mcp.json").is_file(), "{text}");
    assert!(!env.root.join(".mcp.json").exists(), "{text}");
}

#[test]
fn codex_and_opencode_get_snippets_and_skills_but_no_config_edits() {
    let env = env();
    let (ok, out) = setup(
        &env,
        &["--target", "codex", "--target", "opencode"],
        Some(TOKEN),
    );
    assert!(ok, "{out}");
    assert!(out.contains("[mcp_servers.lore]"), "{out}");
    assert!(
        out.contains("bearer_token_env_var = \"LORE_MCP_TOKEN\""),
        "{out}"
    );
    assert!(
        out.contains("\"type\": \"remote\"") && out.contains("{env:LORE_MCP_TOKEN}"),
        "{out}"
    );
    assert!(!env.home.join(".codex/config.toml").exists());
    assert!(!env.root.join("opencode.json").exists());
    assert!(
        env.root
            .join(".agents/skills/lore-analytics/SKILL.md")
            .exists()
    );
    assert!(
        env.root
            .join(".opencode/commands/lore-analytics.md")
            .exists()
    );
    // Codex's user scope puts the skill in $CODEX_HOME.
    let (ok, _) = setup(&env, &["--target", "codex", "--scope", "user"], None);
    assert!(ok);
    assert!(
        env.home
            .join(".codex/skills/lore-analytics/SKILL.md")
            .exists()
    );
}

#[test]
fn a_shared_skill_file_stays_while_another_target_needs_it() {
    let env = env();
    let (ok, _) = setup(&env, &["--target", "codex", "--target", "universal"], None);
    assert!(ok);
    let shared = env.root.join(".agents/skills/lore-analytics/SKILL.md");
    let (ok, out) = setup(&env, &["--target", "codex", "--remove"], None);
    assert!(ok, "{out}");
    assert!(shared.exists(), "{out}");
    let (ok, out) = setup(&env, &["--target", "universal", "--remove"], None);
    assert!(ok, "{out}");
    assert!(!shared.exists(), "{out}");
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn no_target_or_scope_ever_writes_or_prints_the_token() {
    let env = env();
    let combos: &[(&str, &[&str])] = &[
        ("claude-code", &["project", "local", "user"]),
        ("claude-desktop", &["user"]),
        ("cursor", &["project", "user"]),
        ("codex", &["project", "user"]),
        ("opencode", &["project", "user"]),
        ("universal", &["project", "user"]),
    ];
    let mut outputs = String::new();
    for (target, scopes) in combos {
        for scope in *scopes {
            let (ok, out) = setup(&env, &["--target", target, "--scope", scope], Some(TOKEN));
            assert!(ok, "{target} {scope}: {out}");
            outputs.push_str(&out);
        }
    }
    assert!(!outputs.contains(TOKEN), "a token was printed");
    assert!(outputs.contains("LORE_MCP_TOKEN"));
    for file in files(&env.home).into_iter().chain(files(&env.root)) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(!text.contains(TOKEN), "{} holds the token", file.display());
    }
    // The HTTP entries carry the reference instead.
    assert_eq!(
        read_json(&env.root.join(".mcp.json"))["mcpServers"]["lore"]["headers"]["Authorization"],
        "Bearer ${LORE_MCP_TOKEN}"
    );
    assert_eq!(
        read_json(&env.home.join(".cursor/mcp.json"))["mcpServers"]["lore"]["headers"]["Authorization"],
        "Bearer ${LORE_MCP_TOKEN}"
    );
}

#[test]
fn a_skill_or_rule_file_the_user_wrote_is_never_destroyed() {
    let env = env();
    let rule = env.root.join(".cursor/rules/lore-analytics.mdc");
    let skill = env.root.join(".claude/skills/lore-analytics/SKILL.md");
    for (path, text) in [(&rule, "my own cursor rule\n"), (&skill, "my own skill\n")] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    // Refused, naming the file and --force; nothing written at all.
    let (ok, out) = setup(
        &env,
        &["--target", "cursor", "--target", "claude-code"],
        None,
    );
    assert!(!ok, "{out}");
    assert!(
        out.contains("lore-analytics.mdc") && out.contains("--force"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&rule).unwrap(),
        "my own cursor rule\n"
    );
    assert!(
        !env.root.join(".cursor/mcp.json").exists(),
        "nothing is half-written"
    );
    assert!(!env.root.join(".mcp.json").exists());

    // --force replaces them, keeping backups that --remove puts back.
    let (ok, out) = setup(
        &env,
        &["--target", "cursor", "--target", "claude-code", "--force"],
        None,
    );
    assert!(ok, "{out}");
    assert_ne!(
        std::fs::read_to_string(&rule).unwrap(),
        "my own cursor rule\n"
    );
    // Setting up again is not a conflict: Lore wrote what is there now.
    let (ok, out) = setup(&env, &["--target", "cursor"], None);
    assert!(ok, "{out}");
    for target in ["cursor", "claude-code"] {
        let (ok, out) = setup(&env, &["--target", target, "--remove"], None);
        assert!(ok, "{out}");
    }
    assert_eq!(
        std::fs::read_to_string(&rule).unwrap(),
        "my own cursor rule\n"
    );
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), "my own skill\n");
    assert!(
        !env.root
            .join(".cursor/rules/lore-analytics.mdc.lore-backup")
            .exists()
    );
}
