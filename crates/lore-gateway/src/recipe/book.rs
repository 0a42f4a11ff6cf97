//! Where recipes come from — the four shipped with Lore and the YAML files
//! of the project's `recipes/` folder (a project file with a built-in's
//! name replaces it) — and the log of runs
//! (`.lore/gateway/recipes.jsonl`, the newest 200).

use std::collections::BTreeMap;
use std::path::Path;

use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{MAX_RECIPE_BYTES, Recipe, RecipeRun, RecipeSource, RunStatus, Variable};

/// The recipes shipped with Lore: name and text.
const BUILT_IN: [(&str, &str); 4] = [
    (
        "daily-health",
        include_str!("../../recipes/daily-health.yaml"),
    ),
    (
        "release-prep",
        include_str!("../../recipes/release-prep.yaml"),
    ),
    (
        "stale-audit",
        include_str!("../../recipes/stale-audit.yaml"),
    ),
    (
        "subsystem-freshness",
        include_str!("../../recipes/subsystem-freshness.yaml"),
    ),
];

/// The folder of a project's own recipes.
pub const PROJECT_FOLDER: &str = "recipes";

/// One recipe as found: parsed, or why it is not usable.
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    source: RecipeSource,
    text: String,
    parsed: Result<Recipe, String>,
}

/// The recipes a project can run.
#[derive(Debug, Clone, Default)]
pub struct RecipeBook {
    entries: Vec<Entry>,
    /// Built-in recipes a project file replaces.
    replaced: Vec<String>,
}

/// A recipe as `lore gateway recipe list` shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RecipeListed {
    /// Its name.
    pub name: String,
    /// What it does.
    pub summary: String,
    /// Where it comes from.
    pub source: RecipeSource,
    /// It replaces the built-in recipe of the same name.
    pub replaces_built_in: bool,
    /// Its variables and their defaults.
    pub variables: BTreeMap<String, Variable>,
    /// The tools its steps call, in order.
    pub tools: Vec<String>,
    /// Why it cannot run (a file that does not parse, a duplicate name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its newest logged run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run: Option<RecipeLogEntry>,
}

impl RecipeBook {
    /// The built-in recipes and those of `<project_root>/recipes/`
    /// (`*.yaml`, `*.yml`; hidden files skipped).
    pub fn load(project_root: &Path) -> RecipeBook {
        let mut entries: Vec<Entry> = BUILT_IN
            .iter()
            .map(|(name, text)| Entry {
                name: (*name).to_string(),
                source: RecipeSource::BuiltIn,
                text: (*text).to_string(),
                parsed: Recipe::parse(text, name, RecipeSource::BuiltIn),
            })
            .collect();
        let mut own: Vec<Entry> = Vec::new();
        let folder = project_root.join(PROJECT_FOLDER);
        let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                !name.starts_with('.')
                    && (name.ends_with(".yaml") || name.ends_with(".yml"))
                    && p.is_file()
            })
            .collect();
        files.sort();
        for file in files {
            let stem = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            let relative = format!(
                "{PROJECT_FOLDER}/{}",
                file.file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default()
            );
            let source = RecipeSource::Project {
                path: relative.clone(),
            };
            let text = match std::fs::metadata(&file) {
                Ok(meta) if meta.len() > MAX_RECIPE_BYTES => Err(format!(
                    "{relative} is {} KiB; a recipe may be {} KiB at most",
                    meta.len() / 1024,
                    MAX_RECIPE_BYTES / 1024
                )),
                _ => std::fs::read_to_string(&file)
                    .map_err(|e| format!("{relative} cannot be read: {e}")),
            };
            let (text, parsed) = match text {
                Ok(text) => {
                    let parsed = Recipe::parse(&text, &stem, source.clone())
                        .map_err(|why| format!("{relative}: {why}"));
                    (text, parsed)
                }
                Err(why) => (String::new(), Err(why)),
            };
            let name = parsed.as_ref().map_or(stem, |r| r.name.clone());
            own.push(Entry {
                name,
                source,
                text,
                parsed,
            });
        }
        // Two project files with one name: neither runs until one is renamed.
        let names: Vec<String> = own.iter().map(|e| e.name.clone()).collect();
        for entry in &mut own {
            let same = names.iter().filter(|n| **n == entry.name).count();
            if same > 1 && entry.parsed.is_ok() {
                entry.parsed = Err(format!(
                    "{same} recipes of the project are named `{}`; rename one",
                    entry.name
                ));
            }
        }
        let mut replaced = Vec::new();
        for entry in own {
            if let Some(at) = entries
                .iter()
                .position(|e| e.name == entry.name && e.source == RecipeSource::BuiltIn)
            {
                entries.remove(at);
                replaced.push(entry.name.clone());
            }
            entries.push(entry);
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        RecipeBook { entries, replaced }
    }

    /// Every recipe, by name, with the newest logged run of each (from
    /// `log`, oldest first).
    pub fn list(&self, log: &[RecipeLogEntry]) -> Vec<RecipeListed> {
        self.entries
            .iter()
            .map(|entry| {
                let last_run = log.iter().rev().find(|l| l.recipe == entry.name).cloned();
                let replaces_built_in =
                    entry.source != RecipeSource::BuiltIn && self.replaced.contains(&entry.name);
                match &entry.parsed {
                    Ok(recipe) => RecipeListed {
                        name: recipe.name.clone(),
                        summary: recipe.summary.clone(),
                        source: entry.source.clone(),
                        replaces_built_in,
                        variables: recipe.variables.clone(),
                        tools: recipe.steps.iter().map(|s| s.tool().to_string()).collect(),
                        error: None,
                        last_run,
                    },
                    Err(why) => RecipeListed {
                        name: entry.name.clone(),
                        summary: String::new(),
                        source: entry.source.clone(),
                        replaces_built_in,
                        variables: BTreeMap::new(),
                        tools: Vec::new(),
                        error: Some(why.clone()),
                        last_run,
                    },
                }
            })
            .collect()
    }

    fn entry(&self, name: &str) -> Result<&Entry, ErrorReport> {
        self.entries
            .iter()
            .find(|e| e.name == name.trim())
            .ok_or_else(|| {
                let mut close: Vec<(f64, &str)> = self
                    .entries
                    .iter()
                    .map(|e| (strsim::jaro_winkler(name, &e.name), e.name.as_str()))
                    .filter(|(score, _)| *score >= 0.75)
                    .collect();
                close.sort_by(|a, b| b.0.total_cmp(&a.0));
                let all: Vec<&str> = self.entries.iter().map(|e| e.name.as_str()).collect();
                let hint = match close.first() {
                    Some((_, near)) => format!("did you mean `{near}`?"),
                    None => format!("the recipes are {}", all.join(", ")),
                };
                ErrorReport::new(
                    ErrorCode::RecipeNotFound,
                    format!(
                        "there is no recipe `{name}`: {hint} (a project's own go in {PROJECT_FOLDER}/<name>.yaml)"
                    ),
                )
            })
    }

    /// The recipe named `name`: `recipe_not_found` (with the closest
    /// names), or `config_error` for a file that does not parse.
    pub fn find(&self, name: &str) -> Result<Recipe, ErrorReport> {
        self.entry(name)?.parsed.clone().map_err(|why| {
            ErrorReport::new(
                ErrorCode::ConfigError,
                format!("recipe `{name}` cannot run: {why}"),
            )
        })
    }

    /// A recipe's YAML as written (to copy into `recipes/` and adapt).
    pub fn text(&self, name: &str) -> Result<String, ErrorReport> {
        Ok(self.entry(name)?.text.clone())
    }
}

/// One logged run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RecipeLogEntry {
    /// The recipe's name.
    pub recipe: String,
    /// `success` or `failed`.
    pub status: String,
    /// When it started.
    pub started_at: String,
    /// How long it took.
    pub duration_seconds: f64,
    /// The step that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<String>,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReport>,
    /// Who ran it (`mcp:<client>`, `token:<name>`, `cli:<user>`).
    pub actor: String,
}

const LOG_FILE: &str = "recipes.jsonl";
const LOG_KEPT: usize = 200;

/// Appends a finished run (not a dry run) to the log in `state`
/// (`.lore/gateway/`), keeping the newest 200.
pub fn log_run(state: &Path, run: &RecipeRun, actor: &str) -> Result<(), ErrorReport> {
    if run.status == RunStatus::Planned {
        return Ok(());
    }
    let entry = RecipeLogEntry {
        recipe: run.recipe.clone(),
        status: match run.status {
            RunStatus::Success => "success",
            _ => "failed",
        }
        .to_string(),
        started_at: run.started_at.clone(),
        duration_seconds: run.duration_seconds,
        failed_step: run.failed_step().map(str::to_string),
        error: run.error.clone(),
        actor: actor.to_string(),
    };
    std::fs::create_dir_all(state).map_err(|e| {
        ErrorReport::new(
            ErrorCode::Internal,
            format!("cannot create {}: {e}", state.display()),
        )
    })?;
    crate::ingest::runlog::append_kept(&state.join(LOG_FILE), &entry, LOG_KEPT)
}

/// The logged runs in `state`, oldest first.
pub fn logged_runs(state: &Path) -> Vec<RecipeLogEntry> {
    std::fs::read_to_string(state.join(LOG_FILE))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_recipes_parse() {
        let dir = tempfile::tempdir().unwrap();
        let book = RecipeBook::load(dir.path());
        let listed = book.list(&[]);
        let names: Vec<&str> = listed.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "daily-health",
                "release-prep",
                "stale-audit",
                "subsystem-freshness"
            ]
        );
        for l in &listed {
            assert!(l.error.is_none(), "{}: {:?}", l.name, l.error);
            assert!(!l.summary.is_empty() && !l.tools.is_empty(), "{}", l.name);
        }
    }

    #[test]
    fn project_recipes_replace_built_ins_and_broken_ones_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(PROJECT_FOLDER);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("stale-audit.yaml"),
            "summary: ours\nsteps: [{id: a, tool: km-lifecycle-report}]\n",
        )
        .unwrap();
        std::fs::write(folder.join("broken.yml"), "steps: [{id: a}]\n").unwrap();
        std::fs::write(folder.join(".hidden.yaml"), "nonsense").unwrap();
        std::fs::write(folder.join("notes.txt"), "nonsense").unwrap();
        let book = RecipeBook::load(dir.path());
        let listed = book.list(&[]);
        let stale = listed.iter().find(|l| l.name == "stale-audit").unwrap();
        assert_eq!(stale.summary, "ours");
        assert!(stale.replaces_built_in);
        assert_eq!(listed.iter().filter(|l| l.name == "stale-audit").count(), 1);
        let broken = listed.iter().find(|l| l.name == "broken").unwrap();
        assert!(
            broken
                .error
                .as_deref()
                .unwrap()
                .starts_with("recipes/broken.yml: ")
        );
        assert_eq!(
            book.find("broken").unwrap_err().code,
            ErrorCode::ConfigError
        );
        assert_eq!(listed.len(), 5);
        let missing = book.find("stale-audti").unwrap_err();
        assert_eq!(missing.code, ErrorCode::RecipeNotFound);
        assert!(
            missing.message.contains("did you mean `stale-audit`?"),
            "{}",
            missing.message
        );
    }
}
