//! The documentation stays true: the generated reference pages match the
//! binary (`lore docs --check`), every relative link in the README, the
//! contributor guide and `docs/` reaches a file (and a heading, when it
//! names one), and the README stays short enough to read in ten minutes.
//!
//! After changing a command, a flag or a `lore.yaml` key:
//! `LORE_UPDATE_DOCS=1 cargo test -p lore --test docs_reference`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

fn lore_docs(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("docs")
        .args(args)
        .env_remove("LORE_PROJECT_DIR")
        .output()
        .expect("run lore docs")
}

#[test]
fn reference_pages_match_the_binary() {
    let dir = workspace().join("docs/reference");
    let dir = dir.to_str().expect("utf-8 path");
    if std::env::var_os("LORE_UPDATE_DOCS").is_some() {
        let written = lore_docs(&["--dir", dir]);
        assert!(written.status.success(), "{written:?}");
    }
    let checked = lore_docs(&["--check", "--dir", dir]);
    assert!(
        checked.status.success(),
        "the reference pages differ from the binary: {}\n\
         regenerate them with LORE_UPDATE_DOCS=1 cargo test -p lore --test docs_reference",
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn a_stale_reference_page_fails_the_check_and_names_the_page() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let dir = scratch.path().to_str().expect("utf-8 path");
    let written = lore_docs(&["--dir", dir]);
    assert!(written.status.success(), "{written:?}");
    let commands = scratch.path().join("commands.md");
    let text = std::fs::read_to_string(&commands).expect("commands.md");
    assert!(text.contains("## `lore connection add`"), "{text}");
    assert!(text.contains("`-c, --connection ID`"), "{text}");
    let configuration =
        std::fs::read_to_string(scratch.path().join("configuration.md")).expect("configuration.md");
    assert!(configuration.contains("## `connections.<name>`"));

    std::fs::write(
        &commands,
        text.replace("lore connection add", "lore connexion add"),
    )
    .expect("edit");
    let checked = lore_docs(&["--check", "--dir", dir]);
    assert!(!checked.status.success());
    let message = String::from_utf8_lossy(&checked.stderr);
    assert!(message.contains("commands.md"), "{message}");
    assert!(!message.contains("configuration.md"), "{message}");
}

#[test]
fn an_environment_value_never_reaches_the_reference() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_lore"))
        .args(["docs", "--dir"])
        .arg(scratch.path())
        .env("LORE_PROJECT_DIR", "/secret/place")
        .output()
        .expect("run lore docs");
    assert!(output.status.success(), "{output:?}");
    let text = std::fs::read_to_string(scratch.path().join("commands.md")).expect("read");
    assert!(!text.contains("/secret/place"));
}

#[test]
fn the_readme_reads_in_ten_minutes() {
    let size = std::fs::metadata(workspace().join("README.md"))
        .expect("README.md")
        .len();
    assert!(
        size <= 15_000,
        "README.md is {size} bytes; keep it under 15 KB and move detail to docs/"
    );
}

#[test]
fn every_relative_link_reaches_a_file_and_heading() {
    let root = workspace();
    let mut pages = vec![
        root.join("README.md"),
        root.join("CONTRIBUTING.md"),
        root.join("ARCHITECTURE.md"),
    ];
    collect_markdown(&root.join("docs"), &mut pages);
    for entry in std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        let readme = entry.path().join("README.md");
        if readme.exists() {
            pages.push(readme);
        }
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("read page");
        for target in links(&text) {
            if let Some(problem) = check_link(page, &target) {
                broken.push(format!("{}: {target} ({problem})", page.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

fn collect_markdown(dir: &Path, pages: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("docs/").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_markdown(&path, pages);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            pages.push(path);
        }
    }
}

/// The targets of `[text](target)` links outside code blocks and spans.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let outside_code: String = line
            .split('`')
            .enumerate()
            .filter(|(index, _)| index % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = outside_code.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    found
}

/// Why a link is broken, or `None`.
fn check_link(page: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (file, anchor) = match target.split_once('#') {
        Some((file, anchor)) => (file, Some(anchor)),
        None => (target, None),
    };
    let path = if file.is_empty() {
        page.to_path_buf()
    } else {
        page.parent().expect("page folder").join(file)
    };
    if !path.exists() {
        return Some("no such file".into());
    }
    let anchor = anchor?;
    if path.is_dir() || path.extension().is_none_or(|ext| ext != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&path).expect("read target");
    let headings: Vec<String> = text
        .lines()
        .filter(|line| line.starts_with('#'))
        .map(|line| lore_core::config::heading_anchor(line.trim_start_matches('#').trim()))
        .collect();
    (!headings.iter().any(|heading| heading == anchor)).then(|| "no such heading".into())
}
