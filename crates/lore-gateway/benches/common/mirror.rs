//! Checkouts of a repository's commit from a bare mirror, for the
//! benchmarks (`git archive | tar -x`: no work tree, no `.git`).

use std::path::Path;
use std::process::{Command, Stdio};

/// `git --git-dir=<mirror> archive <commit> | tar -x -C <into>`.
///
/// A mirror may lack the blobs of its largest files (a shallow or partial
/// copy): those files are left out of the checkout (named in the returned
/// list) rather than losing the whole commit.
pub fn checkout(mirror: &Path, commit: &str, into: &Path) -> Result<Vec<String>, String> {
    let mut absent: Vec<String> = Vec::new();
    loop {
        let (git, tar) = archive(mirror, commit, &absent, into)?;
        if git.status.success() && tar.status.success() {
            return Ok(absent);
        }
        let stderr = String::from_utf8_lossy(&git.stderr);
        let mut missing: Vec<String> = stderr
            .lines()
            .filter(|l| l.starts_with("error: invalid object"))
            .filter_map(|l| l.split(" for '").nth(1))
            .map(|p| p.trim_end_matches('\'').to_string())
            .filter(|p| !absent.contains(p))
            .collect();
        // `error: cannot read '<blob>'` names the object alone: its paths.
        let unreadable: Vec<&str> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("error: cannot read '"))
            .map(|l| l.trim_end_matches('\''))
            .collect();
        if !unreadable.is_empty() {
            for path in paths_of(mirror, commit, &unreadable) {
                if !absent.contains(&path) && !missing.contains(&path) {
                    missing.push(path);
                }
            }
        }
        if git.status.success() || missing.is_empty() || absent.len() > 100 {
            return Err(if git.status.success() {
                format!("tar: {}", String::from_utf8_lossy(&tar.stderr).trim())
            } else {
                format!("git archive {commit}: {}", stderr.trim())
            });
        }
        absent.extend(missing);
        std::fs::remove_dir_all(into)
            .and_then(|()| std::fs::create_dir_all(into))
            .map_err(|e| format!("clearing {}: {e}", into.display()))?;
    }
}

/// The paths of `commit`'s tree whose blob is one of `blobs`.
fn paths_of(mirror: &Path, commit: &str, blobs: &[&str]) -> Vec<String> {
    let Ok(out) = Command::new("git")
        .arg(format!("--git-dir={}", mirror.display()))
        .args(["ls-tree", "-r", commit])
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            let blob = meta.split_whitespace().nth(2)?;
            blobs.contains(&blob).then(|| path.to_string())
        })
        .collect()
}

/// One `git archive | tar -x` of `commit` without the `excluded` paths.
fn archive(
    mirror: &Path,
    commit: &str,
    excluded: &[String],
    into: &Path,
) -> Result<(std::process::Output, std::process::Output), String> {
    let mut git = Command::new("git")
        .arg(format!("--git-dir={}", mirror.display()))
        .args(["archive", "--format=tar", commit, "--", "."])
        .args(excluded.iter().map(|p| format!(":(exclude,literal){p}")))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("git archive: {e}"))?;
    let stream = git.stdout.take().ok_or("git archive: no output")?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(into)
        .stdin(stream)
        .output()
        .map_err(|e| format!("tar: {e}"))?;
    let git = git
        .wait_with_output()
        .map_err(|e| format!("git archive: {e}"))?;
    Ok((git, tar))
}
