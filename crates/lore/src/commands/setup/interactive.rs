//! `lore setup agents` without `--target` in a terminal: asks which
//! clients (defaulting to those installed on this computer) and where.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::bail;

use super::{Homes, Scope, Target};

/// Whether Lore can ask: standard input and error are a terminal.
pub fn available() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// What the user chose.
#[derive(Debug)]
pub struct Answers {
    pub targets: Vec<Target>,
    pub scope: Option<Scope>,
}

const CLIENTS: [(Target, &str); 6] = [
    (Target::ClaudeCode, "Claude Code"),
    (Target::ClaudeDesktop, "Claude Desktop"),
    (Target::Cursor, "Cursor"),
    (Target::Codex, "Codex"),
    (Target::Opencode, "opencode"),
    (Target::Universal, "any agent reading .agents/skills"),
];

/// The clients that look installed: their configuration folder exists, or
/// (Claude Code) its command is on the PATH.
pub fn detected(homes: &Homes) -> Vec<Target> {
    let on_path = |name: &str| {
        std::env::var_os("PATH").is_some_and(|path| {
            std::env::split_paths(&path)
                .any(|dir| dir.join(name).is_file() || dir.join(format!("{name}.exe")).is_file())
        })
    };
    let mut found = Vec::new();
    if homes.home.join(".claude").is_dir()
        || homes.home.join(".claude.json").is_file()
        || on_path("claude")
    {
        found.push(Target::ClaudeCode);
    }
    if homes.claude_desktop.is_dir() {
        found.push(Target::ClaudeDesktop);
    }
    if homes.home.join(".cursor").is_dir() {
        found.push(Target::Cursor);
    }
    if homes.codex_home.is_dir() {
        found.push(Target::Codex);
    }
    if homes.config.join("opencode").is_dir() {
        found.push(Target::Opencode);
    }
    found
}

/// Reads one answer; end of input is an error (nothing was written).
fn answer(input: &mut impl BufRead, prompt: &str) -> anyhow::Result<String> {
    eprint!("{prompt}");
    std::io::stderr().flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        bail!("no answer given; nothing was changed (pass --target to run without questions)");
    }
    Ok(line.trim().to_string())
}

/// The clients in `text`: numbers from the list or names, separated by
/// commas or spaces; empty means `default`.
fn parse_targets(text: &str, default: &[Target]) -> Result<Vec<Target>, String> {
    if text.is_empty() {
        return Ok(default.to_vec());
    }
    let mut targets = Vec::new();
    for word in text.split([',', ' ']).filter(|w| !w.is_empty()) {
        let target = match word.parse::<usize>() {
            Ok(n) if (1..=CLIENTS.len()).contains(&n) => CLIENTS[n - 1].0,
            _ => CLIENTS
                .iter()
                .map(|(t, _)| *t)
                .find(|t| t.as_str().eq_ignore_ascii_case(word))
                .ok_or_else(|| {
                    format!(
                        "`{word}` is not one of the listed numbers (1-{}) or names",
                        CLIENTS.len()
                    )
                })?,
        };
        if !targets.contains(&target) {
            targets.push(target);
        }
    }
    Ok(targets)
}

fn parse_scope(text: &str) -> Result<Scope, String> {
    match text.to_ascii_lowercase().as_str() {
        "" | "p" | "project" => Ok(Scope::Project),
        "u" | "user" => Ok(Scope::User),
        other => Err(format!("`{other}` is neither project nor user")),
    }
}

/// Asks for the clients, then (unless given) the scope. A wrong answer is
/// asked again.
pub fn ask(homes: &Homes, scope: Option<Scope>) -> anyhow::Result<Answers> {
    ask_with(&mut std::io::stdin().lock(), homes, scope)
}

fn ask_with(
    input: &mut impl BufRead,
    homes: &Homes,
    scope: Option<Scope>,
) -> anyhow::Result<Answers> {
    let found = detected(homes);
    let default = if found.is_empty() {
        vec![Target::ClaudeCode]
    } else {
        found.clone()
    };
    eprintln!("Which agent clients should use Lore?");
    for (n, (target, name)) in CLIENTS.iter().enumerate() {
        let mark = if found.contains(target) {
            " (found on this computer)"
        } else {
            ""
        };
        eprintln!("  {}) {:<15} {name}{mark}", n + 1, target.as_str());
    }
    let default_text = default
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let targets = loop {
        let text = answer(
            input,
            &format!("Numbers or names, separated by commas [{default_text}]: "),
        )?;
        match parse_targets(&text, &default) {
            Ok(targets) if !targets.is_empty() => break targets,
            Ok(_) => eprintln!("  choose at least one client"),
            Err(message) => eprintln!("  {message}"),
        }
    };
    let scope = match scope {
        Some(scope) => scope,
        None if targets.iter().all(|t| *t == Target::ClaudeDesktop) => Scope::User,
        None => loop {
            let text = answer(
                input,
                "Write the entries for this project (files you can commit) or for your user (your home folder)? project/user [project]: ",
            )?;
            match parse_scope(&text) {
                Ok(scope) => break scope,
                Err(message) => eprintln!("  {message}"),
            }
        },
    };
    Ok(Answers {
        targets,
        scope: Some(scope),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn homes(dir: &std::path::Path) -> Homes {
        Homes {
            home: dir.to_path_buf(),
            codex_home: dir.join(".codex"),
            claude_desktop: dir.join(".config/Claude"),
            config: dir.join(".config"),
        }
    }

    #[test]
    fn detected_clients_are_the_default_answer() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".cursor")).unwrap();
        std::fs::create_dir_all(dir.path().join(".config/Claude")).unwrap();
        let answers = ask_with(&mut "\n\n".as_bytes(), &homes(dir.path()), None).unwrap();
        assert_eq!(answers.targets, vec![Target::ClaudeDesktop, Target::Cursor]);
        assert_eq!(answers.scope, Some(Scope::Project));
    }

    #[test]
    fn numbers_and_names_are_read_and_a_wrong_answer_is_asked_again() {
        let dir = tempfile::tempdir().unwrap();
        let input = "9, cursor\n1 cursor\nsomewhere\nuser\n";
        let answers = ask_with(&mut input.as_bytes(), &homes(dir.path()), None).unwrap();
        assert_eq!(answers.targets, vec![Target::ClaudeCode, Target::Cursor]);
        assert_eq!(answers.scope, Some(Scope::User));
    }

    #[test]
    fn no_answer_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let error = ask_with(&mut "".as_bytes(), &homes(dir.path()), None).unwrap_err();
        assert!(error.to_string().contains("nothing was changed"), "{error}");
    }
}
