//! `gateway:` in `lore.yaml`: the code and document repositories the
//! knowledge gateway ingests (its roots) and how.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Scope;

/// Settings of the knowledge gateway.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GatewayConfig {
    /// The folders ingested (`lore gateway ingest PATH` adds one).
    #[serde(default)]
    pub roots: Vec<GatewayRoot>,
    /// Files larger than this are skipped, and reported (default 1 MiB).
    #[serde(default = "default_max_file_bytes")]
    pub max_file_bytes: u64,
    /// How results link a symbol to an editor: a URI with `{path}` (the
    /// absolute file path), `{relative_path}`, `{root}` and `{line}`, such
    /// as `vscode://file/{path}:{line}`. None by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub editor_uri_template: Option<String>,
    /// Where `km-upload` and `km-storetext` put files, and what they may
    /// copy.
    #[serde(default)]
    pub uploads: UploadsConfig,
    /// Adds an embedding lane to km-search: chunks are embedded by the
    /// provider of `search.embeddings` (their text leaves the machine
    /// when it is remote, so this is off by default).
    #[serde(default)]
    pub embeddings: bool,
    /// What `km-lifecycle-report` calls stale.
    #[serde(default)]
    pub lifecycle: LifecycleConfig,
    /// Where `lore backup create` and `km-backup-trigger` write, and how
    /// many archives they keep.
    #[serde(default)]
    pub backups: BackupsConfig,
    /// Lower (or higher) token scopes for the gateway's maintainer tools.
    /// Unset, each needs the scope of the gateway specification: `admin`.
    #[serde(default, skip_serializing_if = "ToolScopes::is_empty")]
    pub tool_scopes: ToolScopes,
    /// How a running server (`lore mcp …`) keeps the roots' index fresh
    /// as files are saved, created, deleted or renamed; `false` turns it
    /// off, `true` keeps the defaults.
    #[serde(default, deserialize_with = "follow_setting")]
    #[schemars(with = "FollowSetting")]
    pub follow: FollowConfig,
}

/// `gateway.follow`: a running server re-ingests what changes in its
/// roots (inotify where the system has it, a periodic walk otherwise),
/// bounded in work. One-shot commands never follow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowConfig {
    /// Whether a server follows its roots (default true).
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// How changes are noticed: `auto` (inotify, a walk where inotify is
    /// missing or its watch limit is reached) or `walk` (always walk, e.g.
    /// on network file systems that send no notifications).
    #[serde(default)]
    pub watch: FollowWatch,
    /// How often a walking follower looks for changes, in ms (default
    /// 2,000; 100 to 3,600,000).
    #[serde(default = "default_walk_interval_ms")]
    pub walk_interval_ms: u64,
    /// How long changes are collected after the first before a run, in ms
    /// (default 300; at most 10,000).
    #[serde(default = "default_debounce_ms")]
    pub debounce_ms: u64,
    /// The least time between two runs of a root, in ms (default 1,000;
    /// at most 600,000).
    #[serde(default = "default_min_interval_ms")]
    pub min_interval_ms: u64,
    /// The most files one run reads (default 500; the rest go to the next
    /// run; 1 to 100,000).
    #[serde(default = "default_follow_max_files")]
    pub max_files: usize,
}

/// `gateway.follow` as written: a flag or the settings (the schema's
/// view of [`follow_setting`]).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum FollowSetting {
    /// `true` (the defaults) or `false` (off).
    Flag(bool),
    /// The settings.
    Settings(FollowConfig),
}

/// Reads `gateway.follow`: `true`/`false`, or the settings (whose own
/// errors, an unknown key say, are kept).
fn follow_setting<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<FollowConfig, D::Error> {
    struct Setting;
    impl<'de> serde::de::Visitor<'de> for Setting {
        type Value = FollowConfig;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("true, false, or the follow settings (enabled, watch, walk_interval_ms, debounce_ms, min_interval_ms, max_files)")
        }
        fn visit_bool<E: serde::de::Error>(self, enabled: bool) -> Result<FollowConfig, E> {
            Ok(FollowConfig {
                enabled,
                ..FollowConfig::default()
            })
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<FollowConfig, E> {
            Ok(FollowConfig::default())
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(self, map: M) -> Result<FollowConfig, M::Error> {
            FollowConfig::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    deserializer.deserialize_any(Setting)
}

/// How a follower notices changes (`gateway.follow.watch`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FollowWatch {
    /// inotify where available, else a periodic walk.
    #[default]
    Auto,
    /// Always a periodic walk.
    Walk,
}

fn default_walk_interval_ms() -> u64 {
    2_000
}

fn default_debounce_ms() -> u64 {
    300
}

fn default_min_interval_ms() -> u64 {
    1_000
}

fn default_follow_max_files() -> usize {
    500
}

impl Default for FollowConfig {
    fn default() -> Self {
        FollowConfig {
            enabled: true,
            watch: FollowWatch::Auto,
            walk_interval_ms: default_walk_interval_ms(),
            debounce_ms: default_debounce_ms(),
            min_interval_ms: default_min_interval_ms(),
            max_files: default_follow_max_files(),
        }
    }
}

impl FollowConfig {
    /// What is wrong with these settings, as a message naming the key.
    pub fn problem(&self) -> Option<String> {
        let bounds: [(&str, u64, u64, u64); 4] = [
            ("walk_interval_ms", self.walk_interval_ms, 100, 3_600_000),
            ("debounce_ms", self.debounce_ms, 0, 10_000),
            ("min_interval_ms", self.min_interval_ms, 0, 600_000),
            ("max_files", self.max_files as u64, 1, 100_000),
        ];
        bounds
            .into_iter()
            .find(|(_, value, low, high)| !(*low..=*high).contains(value))
            .map(|(key, value, low, high)| {
                format!("gateway.follow.{key} must be {low} to {high}, got {value}")
            })
    }
}

/// `gateway.tool_scopes`: the token scope a maintainer tool needs over
/// HTTP, when the specification's `admin` does not suit the agents, e.g.
/// `km-feedback-submit: writer` so agents with a writer token vote on
/// results. Only these four tools can be changed; the rest keep theirs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolScopes {
    /// The scope `km-ingest-status` needs (default admin; `reader` lets
    /// readers see how fresh the index is).
    #[serde(
        rename = "km-ingest-status",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ingest_status: Option<Scope>,
    /// The scope `km-feedback-submit` needs (default admin; `writer` lets
    /// agents with a writer token vote on results).
    #[serde(
        rename = "km-feedback-submit",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub feedback_submit: Option<Scope>,
    /// The scope `km-storetext` needs (default admin; `writer` lets
    /// agents store notes in a root: never into Lore's own files).
    #[serde(
        rename = "km-storetext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub store_text: Option<Scope>,
    /// The scope `km-upload` needs (default admin).
    #[serde(rename = "km-upload", default, skip_serializing_if = "Option::is_none")]
    pub upload: Option<Scope>,
}

impl ToolScopes {
    /// Whether no scope is changed.
    pub fn is_empty(&self) -> bool {
        *self == ToolScopes::default()
    }

    /// Each changed tool and the scope it needs.
    pub fn changed(&self) -> Vec<(&'static str, Scope)> {
        [
            ("km-ingest-status", self.ingest_status),
            ("km-feedback-submit", self.feedback_submit),
            ("km-storetext", self.store_text),
            ("km-upload", self.upload),
        ]
        .into_iter()
        .filter_map(|(tool, scope)| Some((tool, scope?)))
        .collect()
    }
}

/// `gateway.backups`: backup archives of the store and the gateway's
/// index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackupsConfig {
    /// The folder archives go to (absolute, or relative to the project);
    /// never inside a gateway root or `.lore/`. Default: the user's data
    /// folder, `$XDG_DATA_HOME/lore/backups/<project>-<id>` (or
    /// `~/.local/share/...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// Archives kept (the newest; default 7, at least 1).
    #[serde(default = "default_backups_keep")]
    pub keep: u32,
    /// The most bytes a restore may unpack (the sizes its manifest
    /// declares, and what it really unpacks). Default: four times the
    /// store and gateway index the project has, at least 1 GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restore_max_bytes: Option<u64>,
}

fn default_backups_keep() -> u32 {
    7
}

impl Default for BackupsConfig {
    fn default() -> Self {
        BackupsConfig {
            dir: None,
            keep: default_backups_keep(),
            restore_max_bytes: None,
        }
    }
}

/// `gateway.lifecycle`: the lifecycle report's thresholds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LifecycleConfig {
    /// A document unchanged for more days than this is stale (default
    /// 180).
    #[serde(default = "default_stale_after_days")]
    pub stale_after_days: u32,
    /// Documents never called stale (globs over root-relative paths):
    /// records that are not meant to follow the code — licences,
    /// changelogs, codes of conduct, blog posts — by default.
    #[serde(default = "default_lifecycle_exclude")]
    pub exclude: Vec<String>,
}

fn default_stale_after_days() -> u32 {
    180
}

fn default_lifecycle_exclude() -> Vec<String> {
    [
        "**/LICENSE*",
        "**/LICENCE*",
        "**/COPYING*",
        "**/NOTICE*",
        "**/CHANGELOG*",
        "**/CHANGES*",
        "**/HISTORY*",
        "**/CODE_OF_CONDUCT*",
        "**/SECURITY*",
        "**/AUTHORS*",
        "**/blog/**",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        LifecycleConfig {
            stale_after_days: default_stale_after_days(),
            exclude: default_lifecycle_exclude(),
        }
    }
}

/// `gateway.uploads`: files agents add to a root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UploadsConfig {
    /// The folder (relative to the root) a file goes to when no
    /// destination is given (default `docs/uploads`).
    #[serde(default = "default_upload_folder")]
    pub folder: String,
    /// Folders `km-upload` may copy from besides the project and its
    /// roots (absolute, or relative to the project directory).
    #[serde(default)]
    pub sources: Vec<String>,
    /// Whether a stored file is ingested at once when the call does not
    /// say (default true: what is stored can be found).
    #[serde(default = "default_true")]
    pub ingest: bool,
}

fn default_upload_folder() -> String {
    "docs/uploads".to_string()
}

fn default_true() -> bool {
    true
}

impl Default for UploadsConfig {
    fn default() -> Self {
        UploadsConfig {
            folder: default_upload_folder(),
            sources: Vec::new(),
            ingest: true,
        }
    }
}

/// The placeholders of `gateway.editor_uri_template`.
pub const EDITOR_URI_PLACEHOLDERS: [&str; 4] = ["path", "relative_path", "root", "line"];

/// Fills an editor URI template (checked by [`GatewayConfig::problem`]).
pub fn render_editor_uri(
    template: &str,
    path: &str,
    relative_path: &str,
    root: &str,
    line: u64,
) -> String {
    template
        .replace("{path}", path)
        .replace("{relative_path}", relative_path)
        .replace("{root}", root)
        .replace("{line}", &line.to_string())
}

/// One ingested folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GatewayRoot {
    /// The folder: absolute, or relative to the project directory.
    pub path: String,
    /// How results name it (default: the folder's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

fn default_max_file_bytes() -> u64 {
    1024 * 1024
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            roots: Vec::new(),
            max_file_bytes: default_max_file_bytes(),
            editor_uri_template: None,
            uploads: UploadsConfig::default(),
            embeddings: false,
            lifecycle: LifecycleConfig::default(),
            backups: BackupsConfig::default(),
            tool_scopes: ToolScopes::default(),
            follow: FollowConfig::default(),
        }
    }
}

impl GatewayConfig {
    /// What is wrong with these settings, as a message naming the key.
    pub fn problem(&self) -> Option<String> {
        if self.max_file_bytes == 0 {
            return Some("gateway.max_file_bytes must be at least 1".into());
        }
        if let Some(problem) = self.follow.problem() {
            return Some(problem);
        }
        if let Some(template) = &self.editor_uri_template {
            let mut rest = template.as_str();
            while let Some(open) = rest.find('{') {
                let Some(close) = rest[open..].find('}') else {
                    return Some(format!(
                        "gateway.editor_uri_template: `{template}` opens a `{{` it does not close"
                    ));
                };
                let name = &rest[open + 1..open + close];
                if !EDITOR_URI_PLACEHOLDERS.contains(&name) {
                    return Some(format!(
                        "gateway.editor_uri_template: `{{{name}}}` is not a placeholder; use {{path}}, {{relative_path}}, {{root}} and {{line}}, as in vscode://file/{{path}}:{{line}}"
                    ));
                }
                rest = &rest[open + close + 1..];
            }
            if !template.contains("{path}") && !template.contains("{relative_path}") {
                return Some(
                    "gateway.editor_uri_template must name the file with {path} or {relative_path}, as in vscode://file/{path}:{line}".into(),
                );
            }
        }
        let folder = self.uploads.folder.trim();
        if folder.is_empty()
            || folder.starts_with('/')
            || folder.contains('\\')
            || folder
                .split('/')
                .any(|part| part == ".." || part.starts_with('.') && part != ".")
        {
            return Some(format!(
                "gateway.uploads.folder must be a folder inside each root such as docs/uploads (no `..`, no hidden folder, not absolute), got `{}`",
                self.uploads.folder
            ));
        }
        if self.uploads.sources.iter().any(|s| s.trim().is_empty()) {
            return Some("gateway.uploads.sources holds an empty path; remove it".into());
        }
        let mut names = std::collections::BTreeSet::new();
        for root in &self.roots {
            if root.path.trim().is_empty() {
                return Some("gateway.roots: every root needs a `path`".into());
            }
            if let Some(name) = &root.name
                && !is_root_name(name)
            {
                return Some(format!(
                    "gateway.roots: `{name}` is not a root name (letters, digits, `-`, `_`, `.`)"
                ));
            }
            if !names.insert(root.name.clone().unwrap_or_else(|| root.path.clone())) {
                return Some(format!(
                    "gateway.roots: `{}` is listed twice",
                    root.name.as_deref().unwrap_or(&root.path)
                ));
            }
        }
        None
    }
}

/// Whether `name` may name a root (it prefixes paths in results).
pub fn is_root_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name != "."
        && name != ".."
}

/// Adds `path` (with an optional `name`) to `gateway.roots` in the
/// `lore.yaml` text, keeping everything else (comments included) as it
/// is. Returns `None` when the file's layout is one this edit cannot
/// follow (the caller then asks the user to add it by hand). The result
/// must still be loaded and checked by the caller.
pub fn with_root_added(text: &str, path: &str, name: Option<&str>) -> Option<String> {
    let item = match name {
        Some(name) => format!("    - path: {}\n      name: {name}\n", yaml_string(path)),
        None => format!("    - path: {}\n", yaml_string(path)),
    };
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == "gateway:") else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("\ngateway:\n  roots:\n{item}"));
        return Some(out);
    };
    // The block: the lines after `gateway:` that are indented (or blank).
    let end = lines[start + 1..]
        .iter()
        .position(|l| !l.is_empty() && !l.starts_with(' ') && !l.starts_with('#'))
        .map_or(lines.len(), |i| start + 1 + i);
    let roots = (start + 1..end).find(|&i| lines[i].trim_start().starts_with("roots:"))?;
    let rest = lines[roots]
        .trim_start()
        .trim_start_matches("roots:")
        .trim();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    if rest == "[]" {
        out[roots] = "  roots:".to_string();
        out.insert(roots + 1, item.trim_end().to_string());
    } else if rest.is_empty() || rest.starts_with('#') {
        // After the last line of the list (items and their fields).
        let mut last = roots;
        for (i, line) in lines.iter().enumerate().take(end).skip(roots + 1) {
            let indent = line.len() - line.trim_start().len();
            if line.trim().is_empty() || indent <= 2 {
                break;
            }
            last = i;
        }
        out.insert(last + 1, item.trim_end().to_string());
    } else {
        return None;
    }
    Some(out.join("\n") + "\n")
}

/// `text` as a YAML scalar (JSON quoting is valid YAML).
fn yaml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_scopes_name_only_the_maintainer_tools() {
        let path = std::path::Path::new("lore.yaml");
        let loaded = crate::config::parse_config(
            "gateway:\n  tool_scopes:\n    km-feedback-submit: writer\n",
            path,
        )
        .unwrap();
        assert_eq!(
            loaded.config.gateway.tool_scopes.changed(),
            [("km-feedback-submit", Scope::Writer)]
        );
        assert!(GatewayConfig::default().tool_scopes.changed().is_empty());
        let unknown = crate::config::parse_config(
            "gateway:\n  tool_scopes:\n    km-backup-trigger: reader\n",
            path,
        );
        assert!(unknown.is_err(), "{unknown:?}");
    }

    #[test]
    fn follow_may_be_a_flag_and_a_wrong_key_is_named() {
        let path = std::path::Path::new("lore.yaml");
        let off = crate::config::parse_config("gateway:\n  follow: false\n", path).unwrap();
        assert!(!off.config.gateway.follow.enabled);
        assert_eq!(off.config.gateway.follow.debounce_ms, 300);
        let on = crate::config::parse_config("gateway:\n  follow: true\n", path).unwrap();
        assert_eq!(on.config.gateway.follow, FollowConfig::default());
        let wrong = crate::config::parse_config("gateway:\n  follow:\n    debounse_ms: 5\n", path);
        let message = format!("{:?}", wrong.err());
        assert!(message.contains("debounse_ms"), "{message}");
        let number = crate::config::parse_config("gateway:\n  follow: 3\n", path);
        let message = format!("{:?}", number.err());
        assert!(
            message.contains("true, false, or the follow settings"),
            "{message}"
        );
    }

    #[test]
    fn follow_settings_out_of_bounds_are_named() {
        let path = std::path::Path::new("lore.yaml");
        let loaded = crate::config::parse_config(
            "gateway:\n  follow:\n    watch: walk\n    walk_interval_ms: 500\n",
            path,
        )
        .unwrap();
        let follow = &loaded.config.gateway.follow;
        assert!(follow.enabled);
        assert_eq!(follow.watch, FollowWatch::Walk);
        assert_eq!(follow.walk_interval_ms, 500);
        for (yaml, named) in [
            (
                "walk_interval_ms: 5",
                "gateway.follow.walk_interval_ms must be 100 to 3600000, got 5",
            ),
            (
                "max_files: 0",
                "gateway.follow.max_files must be 1 to 100000, got 0",
            ),
            (
                "debounce_ms: 60000",
                "gateway.follow.debounce_ms must be 0 to 10000, got 60000",
            ),
        ] {
            let text = format!("gateway:\n  follow:\n    {yaml}\n");
            let error = crate::config::parse_config(&text, path).unwrap_err();
            assert!(error.to_string().contains(named), "{yaml}: {error}");
        }
        for wrong in [
            "follow: sometimes",
            "follow:\n    watch: fanotify",
            "follow:\n    every: 1",
        ] {
            let text = format!("gateway:\n  {wrong}\n");
            assert!(crate::config::parse_config(&text, path).is_err(), "{wrong}");
        }
    }

    #[test]
    fn roots_are_added_without_touching_the_rest() {
        let plain = "# my project\nconnections: {}\n";
        let added = with_root_added(plain, ".", None).unwrap();
        assert!(added.starts_with("# my project\nconnections: {}\n"));
        assert!(
            added.ends_with("gateway:\n  roots:\n    - path: \".\"\n"),
            "{added}"
        );

        let listed = "gateway:\n  roots:\n    - path: a\n      name: a # first\n  max_file_bytes: 10\nmcp:\n  port: 1\n";
        let added = with_root_added(listed, "../b", Some("b")).unwrap();
        assert_eq!(
            added,
            "gateway:\n  roots:\n    - path: a\n      name: a # first\n    - path: \"../b\"\n      name: b\n  max_file_bytes: 10\nmcp:\n  port: 1\n"
        );
        let empty = "gateway:\n  roots: []\n";
        assert_eq!(
            with_root_added(empty, "c", None).unwrap(),
            "gateway:\n  roots:\n    - path: \"c\"\n"
        );
        // A flow list is not followed: the user is asked to edit by hand.
        assert_eq!(
            with_root_added("gateway:\n  roots: [{path: a}]\n", "b", None),
            None
        );
    }
}
