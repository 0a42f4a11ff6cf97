//! Which subsystem a file belongs to. A catalog in the original's shape —
//! `Name → {description, criticality, owner, tags, paths: [globs],
//! depends_on: [names]}` — read from `subsystems.yaml` next to `lore.yaml`
//! or `.metadata/subsystems.json` inside a root, says it by globs (the
//! first subsystem whose glob matches wins, in name order). Without a
//! catalog, or for files no glob matches, the subsystem is the package
//! folder: the first two folders of the path (`src/ingest` for
//! `src/ingest/pipeline.py`), the first folder when there is only one.

use std::collections::BTreeMap;
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The project's subsystem catalog, next to `lore.yaml`.
pub const CATALOG_FILE: &str = "subsystems.yaml";

/// One subsystem of the catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubsystemSpec {
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// How critical it is (`high`, `medium`, `low`, or the team's own words).
    #[serde(default)]
    pub criticality: Option<String>,
    /// Who owns it.
    #[serde(default)]
    pub owner: Option<String>,
    /// Labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Globs of the root-relative paths it holds (`gateway/ingest/**`).
    #[serde(default)]
    pub paths: Vec<String>,
    /// The subsystems it depends on.
    #[serde(default)]
    pub depends_on: Vec<String>,
}

/// The subsystem catalog of a root.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// The subsystems by name.
    pub subsystems: BTreeMap<String, SubsystemSpec>,
    matchers: Vec<(String, GlobSet)>,
}

impl Catalog {
    /// Parses a catalog (YAML, of which JSON is a part) and compiles its
    /// globs; `source` names the file in errors.
    pub fn parse(text: &str, source: &str) -> Result<Catalog, ErrorReport> {
        let subsystems: BTreeMap<String, SubsystemSpec> = if text.trim().is_empty() {
            BTreeMap::new()
        } else {
            serde_saphyr::from_str(text).map_err(|e| {
                ErrorReport::new(
                    ErrorCode::ConfigError,
                    format!(
                        "{source}: {}; the catalog maps each subsystem name to {{description, criticality, owner, tags, paths, depends_on}}",
                        e.to_string().lines().next().unwrap_or("invalid")
                    ),
                )
            })?
        };
        let mut matchers = Vec::new();
        for (name, spec) in &subsystems {
            for dependency in &spec.depends_on {
                if !subsystems.contains_key(dependency) {
                    return Err(ErrorReport::new(
                        ErrorCode::ConfigError,
                        format!(
                            "{source}: `{name}` depends on `{dependency}`, which the catalog does not define"
                        ),
                    ));
                }
            }
            let mut builder = GlobSetBuilder::new();
            for pattern in &spec.paths {
                let glob = Glob::new(pattern).map_err(|e| {
                    ErrorReport::new(
                        ErrorCode::ConfigError,
                        format!("{source}: `{name}`: the path glob `{pattern}` is invalid: {e}"),
                    )
                })?;
                builder.add(glob);
            }
            let set = builder.build().map_err(|e| {
                ErrorReport::new(ErrorCode::ConfigError, format!("{source}: `{name}`: {e}"))
            })?;
            matchers.push((name.clone(), set));
        }
        Ok(Catalog {
            subsystems,
            matchers,
        })
    }

    /// The catalog for a root: `subsystems.yaml` in the project, else
    /// `.metadata/subsystems.json` in the root, else none (empty).
    pub fn load(project_root: &Path, root: &Path) -> Result<Catalog, ErrorReport> {
        for path in [
            project_root.join(CATALOG_FILE),
            root.join(".metadata").join("subsystems.json"),
        ] {
            match std::fs::read_to_string(&path) {
                Ok(text) => return Catalog::parse(&text, &path.display().to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(ErrorReport::new(
                        ErrorCode::Internal,
                        format!("cannot read {}: {e}", path.display()),
                    ));
                }
            }
        }
        Ok(Catalog::default())
    }

    /// The project's own catalog alone (`subsystems.yaml`): what a root
    /// known only from a shared store, whose folder is on another server,
    /// is read with.
    pub fn of_project(project_root: &Path) -> Result<Catalog, ErrorReport> {
        let path = project_root.join(CATALOG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Catalog::parse(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Catalog::default()),
            Err(e) => Err(ErrorReport::new(
                ErrorCode::Internal,
                format!("cannot read {}: {e}", path.display()),
            )),
        }
    }

    /// The subsystem of a file: the one its front matter names
    /// (`subsystem: Deployment`, as `km-storetext` writes), else
    /// [`Catalog::subsystem_of`] its path.
    pub fn subsystem_for(&self, path: &str, front: &FrontMatter) -> Option<String> {
        front.subsystem.clone().or_else(|| self.subsystem_of(path))
    }

    /// The tags of a file: its subsystem's in the catalog, and those its
    /// front matter lists (`tags: [a, b]`).
    pub fn tags_of(&self, path: &str, front: &FrontMatter) -> Vec<String> {
        let mut tags: Vec<String> = self
            .subsystem_for(path, front)
            .and_then(|name| self.subsystems.get(&name))
            .map(|spec| spec.tags.clone())
            .unwrap_or_default();
        for tag in &front.tags {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
        tags
    }

    /// The catalog's globs that match none of `paths`, as (subsystem,
    /// glob).
    pub fn unmatched_patterns<'a>(
        &self,
        paths: impl Iterator<Item = &'a String>,
    ) -> Vec<(String, String)> {
        let mut matched: Vec<Vec<bool>> = self
            .matchers
            .iter()
            .map(|(_, set)| vec![false; set.len()])
            .collect();
        for path in paths {
            for ((_, set), seen) in self.matchers.iter().zip(matched.iter_mut()) {
                for i in set.matches(path) {
                    seen[i] = true;
                }
            }
        }
        let mut out = Vec::new();
        for ((name, _), seen) in self.matchers.iter().zip(&matched) {
            let patterns = self
                .subsystems
                .get(name)
                .map(|s| s.paths.as_slice())
                .unwrap_or_default();
            for (pattern, seen) in patterns.iter().zip(seen) {
                if !seen {
                    out.push((name.clone(), pattern.clone()));
                }
            }
        }
        out
    }

    /// The subsystem of a root-relative path.
    pub fn subsystem_of(&self, path: &str) -> Option<String> {
        self.matchers
            .iter()
            .find(|(_, set)| set.is_match(path))
            .map(|(name, _)| name.clone())
            .or_else(|| derived_subsystem(path))
    }
}

/// What a document's YAML front matter (between `---` lines at the top)
/// says of it: `title`, `subsystem`, `tags` (a list, or one string of
/// comma-separated tags). Empty when the text has none, or none that
/// parses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    /// Its title.
    pub title: Option<String>,
    /// The subsystem it says it belongs to.
    pub subsystem: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
}

impl FrontMatter {
    /// Reads the front matter of `text`.
    pub fn of(text: &str) -> FrontMatter {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Tags {
            List(Vec<String>),
            One(String),
        }
        #[derive(Deserialize)]
        struct Front {
            #[serde(default)]
            title: Option<String>,
            #[serde(default)]
            subsystem: Option<String>,
            #[serde(default)]
            tags: Option<Tags>,
        }
        let Some(block) = front_matter_block(text) else {
            return FrontMatter::default();
        };
        let Ok(front) = serde_saphyr::from_str::<Front>(block) else {
            return FrontMatter::default();
        };
        let tags = match front.tags {
            Some(Tags::List(list)) => list,
            Some(Tags::One(text)) => text.split(',').map(str::to_string).collect(),
            None => Vec::new(),
        };
        let clean = |value: Option<String>| {
            value
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        FrontMatter {
            title: clean(front.title),
            subsystem: clean(front.subsystem),
            tags: tags
                .into_iter()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect(),
        }
    }
}

/// The YAML between the `---` lines that open `text`, if it opens so.
pub fn front_matter_block(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    if rest.starts_with("---") {
        return Some("");
    }
    let end = rest.find("\n---")?;
    Some(&rest[..end])
}

/// The package folder of a path: its first two folders, or its only one.
pub fn derived_subsystem(path: &str) -> Option<String> {
    let folders: Vec<&str> = path.split('/').collect();
    match folders.len() {
        0..=1 => None,
        2 => Some(folders[0].to_string()),
        _ => Some(format!("{}/{}", folders[0], folders[1])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_wins_and_folders_fill_in() {
        let catalog = Catalog::parse(
            "Ingest:\n  description: Reads repositories\n  criticality: high\n  paths: ['gateway/ingest/**']\n  depends_on: [Store]\nStore:\n  paths: ['gateway/store/*.py']\n",
            "subsystems.yaml",
        )
        .unwrap();
        assert_eq!(
            catalog
                .subsystem_of("gateway/ingest/pipeline.py")
                .as_deref(),
            Some("Ingest")
        );
        assert_eq!(
            catalog.subsystem_of("gateway/store/db.py").as_deref(),
            Some("Store")
        );
        assert_eq!(
            catalog.subsystem_of("src/api/routes/users.ts").as_deref(),
            Some("src/api")
        );
        assert_eq!(
            catalog.subsystem_of("tests/test_x.py").as_deref(),
            Some("tests")
        );
        assert_eq!(catalog.subsystem_of("README.md"), None);
    }

    #[test]
    fn a_broken_catalog_says_what_is_wrong() {
        let unknown = Catalog::parse("A:\n  depends_on: [B]\n", "subsystems.yaml").unwrap_err();
        assert!(unknown.message.contains("`B`"), "{}", unknown.message);
        let glob = Catalog::parse("A:\n  paths: ['src/[']\n", "subsystems.yaml").unwrap_err();
        assert!(glob.message.contains("src/["), "{}", glob.message);
        let field = Catalog::parse("A:\n  owners: x\n", "subsystems.yaml").unwrap_err();
        assert_eq!(field.code, ErrorCode::ConfigError);
    }

    #[test]
    fn front_matter_names_title_subsystem_and_tags() {
        let text = "---\ntitle: Release Notes\nsubsystem: \" Deployment \"\ntags: [release, \" notes \", \"\"]\nmetadata: {author: agent}\n---\n# Body\n";
        assert_eq!(
            FrontMatter::of(text),
            FrontMatter {
                title: Some("Release Notes".into()),
                subsystem: Some("Deployment".into()),
                tags: vec!["release".into(), "notes".into()],
            }
        );
        assert_eq!(FrontMatter::of("---\ntags: a, b\n---\n").tags, ["a", "b"]);
        // No front matter, an unclosed one, or one that does not parse.
        for text in ["# Title\n", "---\ntitle: x\n", "---\n: : [\n---\n"] {
            assert_eq!(FrontMatter::of(text), FrontMatter::default(), "{text}");
        }
        let catalog = Catalog::parse("Api: {paths: [\"docs/**\"], tags: [web]}", "t").unwrap();
        let front = FrontMatter::of("---\nsubsystem: Deployment\ntags: [ops]\n---\n");
        assert_eq!(
            catalog.subsystem_for("docs/x.md", &front).as_deref(),
            Some("Deployment")
        );
        assert_eq!(
            catalog
                .subsystem_for("docs/x.md", &FrontMatter::default())
                .as_deref(),
            Some("Api")
        );
        assert_eq!(
            catalog.tags_of("docs/x.md", &FrontMatter::of("---\ntags: [ops]\n---\n")),
            ["web", "ops"]
        );
    }
}
