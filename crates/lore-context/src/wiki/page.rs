//! A wiki page as a file: markdown with YAML front matter.
//!
//! ```markdown
//! ---
//! summary: How revenue is defined
//! tags: [finance, metrics]
//! refs: [refunds]
//! sl_refs: [warehouse.invoices]
//! usage_mode: auto
//! ---
//! Revenue is the sum of **paid** invoices … see [[refunds]].
//! ```
//!
//! A page lives at `wiki/global/<key>.md` or `wiki/user/<user>/<key>.md`;
//! its key is that path under the scope folder without `.md` (so keys may
//! hold `/`). In the knowledge store a page is one entry of kind `wiki`
//! whose topic is the path without `.md` and whose content is the whole
//! file, so history, undo and as-of reads give back exact files.

use lore_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The longest key.
pub const KEY_CHARS: usize = 120;

/// The longest summary.
pub const SUMMARY_CHARS: usize = 300;

/// Whose page it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Everyone's: `wiki/global/`.
    Global,
    /// One user's: `wiki/user/<id>/`.
    User(String),
}

impl Scope {
    /// `global` or `user`.
    pub fn name(&self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::User(_) => "user",
        }
    }

    /// The user of a user page.
    pub fn user(&self) -> Option<&str> {
        match self {
            Scope::Global => None,
            Scope::User(user) => Some(user),
        }
    }
}

/// How agents should use a page (the front matter's `usage_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UsageMode {
    /// Found by search like any page (the default).
    #[default]
    Auto,
    /// Found by search, and listed first by the `retrieve_context` prompt.
    Always,
    /// Readable by key, never returned by search.
    Never,
}

/// The front matter fields Lore reads; other keys are kept in the file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FrontMatter {
    /// One line saying what the page is about (required when writing).
    #[serde(default)]
    pub summary: Option<String>,
    /// Labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Keys of related pages.
    #[serde(default)]
    pub refs: Vec<String>,
    /// Semantic-layer sources the page is about: `connection.source` or
    /// `source`.
    #[serde(default)]
    pub sl_refs: Vec<String>,
    /// How agents should use it.
    #[serde(default)]
    pub usage_mode: UsageMode,
    /// Where its text came from (the notes `memory_ingest` read).
    #[serde(default)]
    pub sources: Vec<String>,
    /// The `memory_ingest` runs that wrote it.
    #[serde(default)]
    pub ingest_runs: Vec<String>,
}

/// A page's address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageAddress {
    /// Whose page.
    pub scope: Scope,
    /// Its key.
    pub key: String,
}

impl PageAddress {
    /// The store topic: `wiki/global/<key>` or `wiki/user/<user>/<key>`.
    pub fn topic(&self) -> String {
        match &self.scope {
            Scope::Global => format!("wiki/global/{}", self.key),
            Scope::User(user) => format!("wiki/user/{user}/{}", self.key),
        }
    }

    /// The file, relative to the project root.
    pub fn path(&self) -> String {
        format!("{}.md", self.topic())
    }

    /// The address a store topic names, if it names one.
    pub fn from_topic(topic: &str) -> Option<PageAddress> {
        let address = if let Some(key) = topic.strip_prefix("wiki/global/") {
            PageAddress {
                scope: Scope::Global,
                key: key.to_string(),
            }
        } else {
            let rest = topic.strip_prefix("wiki/user/")?;
            let (user, key) = rest.split_once('/')?;
            PageAddress {
                scope: Scope::User(user.to_string()),
                key: key.to_string(),
            }
        };
        (check_key(&address.key).is_ok()
            && address.scope.user().is_none_or(|u| check_user(u).is_ok()))
        .then_some(address)
    }

    /// The address of a file path relative to the project root
    /// (`wiki/global/x.md`), if it is a page's.
    pub fn from_path(path: &str) -> Option<PageAddress> {
        PageAddress::from_topic(path.strip_suffix(".md")?)
    }
}

fn bad(message: String) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

/// Checks a page key: lower-case letters, digits, `-`, `_` and `.`, in
/// `/`-separated segments.
pub fn check_key(key: &str) -> Result<(), ErrorReport> {
    if key.is_empty() || key.chars().count() > KEY_CHARS {
        return Err(bad(format!(
            "a page key has 1 to {KEY_CHARS} characters, got {}",
            key.chars().count()
        )));
    }
    for segment in key.split('/') {
        let ok = !segment.is_empty()
            && !segment.starts_with('.')
            && segment.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.')
            });
        if !ok {
            return Err(bad(format!(
                "page key `{key}` is not valid: use lower-case letters, digits, `-`, `_` and `.` in `/`-separated parts, e.g. `{}`",
                slug(key)
            )));
        }
    }
    Ok(())
}

/// Checks a user id (one key segment).
pub fn check_user(user: &str) -> Result<(), ErrorReport> {
    if user.contains('/') || check_key(user).is_err() {
        return Err(bad(format!(
            "user id `{user}` is not valid: use lower-case letters, digits, `-`, `_` and `.`"
        )));
    }
    Ok(())
}

/// A key made from free text: `Revenue Definition` → `revenue-definition`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/') {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_matches(|c| c == '-' || c == '/').to_string();
    if out.is_empty() { "page".into() } else { out }
}

/// Splits a file into its front matter and body. A file without front
/// matter has empty front matter; front matter that is not valid YAML is
/// an error saying where.
pub fn parse(content: &str) -> Result<(FrontMatter, String), String> {
    let text = content.strip_prefix('\u{feff}').unwrap_or(content);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Ok((FrontMatter::default(), text.to_string()));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            let front = if yaml.trim().is_empty() {
                FrontMatter::default()
            } else {
                serde_saphyr::from_str::<FrontMatter>(yaml)
                    .map_err(|e| format!("front matter: {e}"))?
            };
            return Ok((front, body.strip_prefix('\n').unwrap_or(body).to_string()));
        }
        offset += line.len();
    }
    Err("front matter starts with `---` but has no closing `---` line".to_string())
}

/// A YAML flow list of JSON strings (JSON strings are valid YAML).
fn flow_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| quote(i)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A YAML double-quoted scalar: JSON's escapes, plus `\uXXXX` for the
/// characters JSON leaves as they are but YAML may not hold unescaped (DEL,
/// C1 controls but NEL, U+FFFE/U+FFFF), so any text reads back as itself.
fn quote(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
    let printable = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}')
            || ('\u{a0}'..='\u{d7ff}').contains(&c)
            || ('\u{e000}'..='\u{fffd}').contains(&c)
            || c >= '\u{10000}'
    };
    if json.chars().all(printable) {
        return json;
    }
    json.chars()
        .map(|c| {
            if printable(c) {
                c.to_string()
            } else {
                format!("\\u{:04x}", c as u32)
            }
        })
        .collect()
}

/// The file of a page: front matter (only the fields that are set) and
/// the body.
pub fn render(front: &FrontMatter, body: &str) -> String {
    let mut out = String::from("---\n");
    if let Some(summary) = &front.summary {
        out.push_str(&format!("summary: {}\n", quote(summary)));
    }
    for (name, list) in [
        ("tags", &front.tags),
        ("refs", &front.refs),
        ("sl_refs", &front.sl_refs),
        ("sources", &front.sources),
        ("ingest_runs", &front.ingest_runs),
    ] {
        if !list.is_empty() {
            out.push_str(&format!("{name}: {}\n", flow_list(list)));
        }
    }
    if front.usage_mode != UsageMode::Auto {
        let mode = serde_json::to_value(front.usage_mode).unwrap_or_default();
        out.push_str(&format!(
            "usage_mode: {}\n",
            mode.as_str().unwrap_or("auto")
        ));
    }
    out.push_str("---\n\n");
    out.push_str(body.trim_end());
    out.push('\n');
    out
}

/// The targets of the body's `[[wikilinks]]` (`[[key]]`, `[[key|label]]`,
/// `[[key#section]]`), in order, without duplicates.
pub fn wikilinks(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find("[[") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else { break };
        let inner = &after[..end];
        let target = inner
            .split(['|', '#'])
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        if !target.is_empty() && !inner.contains('\n') && !out.contains(&target) {
            out.push(target);
        }
        rest = &after[end + 2..];
    }
    out
}

/// The page's title: its first `# ` heading.
pub fn title(body: &str) -> Option<String> {
    body.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_round_trips_through_render_and_parse() {
        let front = FrontMatter {
            summary: Some("Revenue: \"paid\" invoices, in cents: ÷100".into()),
            tags: vec!["finance".into(), "metrics".into()],
            refs: vec!["refunds".into()],
            sl_refs: vec!["warehouse.invoices".into()],
            usage_mode: UsageMode::Always,
            sources: vec!["finance handbook".into()],
            ingest_runs: vec!["run-1".into()],
        };
        let file = render(&front, "# Revenue\n\nSee [[refunds]].\n\n");
        let (parsed, body) = parse(&file).unwrap();
        assert_eq!(parsed, front);
        assert_eq!(body, "# Revenue\n\nSee [[refunds]].\n");
        assert_eq!(render(&parsed, &body), file, "rendering is stable");
    }

    #[test]
    fn files_without_or_with_broken_front_matter() {
        let (front, body) = parse("just text").unwrap();
        assert_eq!(
            (front, body.as_str()),
            (FrontMatter::default(), "just text")
        );
        assert!(
            parse("---\nsummary: x\nno end")
                .unwrap_err()
                .contains("closing")
        );
        assert!(
            parse("---\ntags: {a: [\n---\nbody")
                .unwrap_err()
                .starts_with("front matter")
        );
        let (front, _) = parse("---\nsummary: ok\nowner: data-team\n---\nbody").unwrap();
        assert_eq!(
            front.summary.as_deref(),
            Some("ok"),
            "unknown keys are fine"
        );
    }

    #[test]
    fn keys_addresses_and_links() {
        assert!(check_key("metrics/revenue-v2").is_ok());
        for bad in ["", "Revenue", "a//b", "../etc", "a b", "/x"] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
        assert_eq!(slug("Revenue Definition (2025)"), "revenue-definition-2025");
        let user = PageAddress::from_path("wiki/user/ana/notes/q3.md").unwrap();
        assert_eq!(user.scope, Scope::User("ana".into()));
        assert_eq!(user.key, "notes/q3");
        assert_eq!(user.path(), "wiki/user/ana/notes/q3.md");
        assert!(PageAddress::from_path("wiki/global/Bad Name.md").is_none());
        assert!(PageAddress::from_path("wiki/other/x.md").is_none());
        assert_eq!(
            wikilinks("see [[refunds]], [[plans|the plans]] and [[refunds#x]]; [[ ]] [[open"),
            ["refunds", "plans"]
        );
        assert_eq!(title("intro\n# Revenue \nx").as_deref(), Some("Revenue"));
    }
}
