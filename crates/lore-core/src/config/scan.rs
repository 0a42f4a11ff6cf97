//! How `lore scan` reads a connection: what it profiles, how large a sample
//! it takes, which columns feed the value dictionary, how many snapshots it
//! keeps. Every setting has a default, so `scan:` may be left out entirely.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Rows sampled per table when profiling, unless configured.
pub const DEFAULT_SAMPLE_ROWS: u64 = 10_000;
/// Most frequent values kept per dictionary column, unless configured.
pub const DEFAULT_TOP_VALUES: u32 = 20;
/// Distinct values kept per dictionary column for `dictionary_search`.
pub const DEFAULT_DICTIONARY_MAX_VALUES: u32 = 2_000;
/// Values longer than this (in characters) mark a column as free text.
pub const DEFAULT_MAX_VALUE_LENGTH: u32 = 100;
/// Snapshots kept per connection; older ones are removed after a scan.
pub const DEFAULT_KEEP_SNAPSHOTS: u32 = 20;

/// Column-name patterns that never feed the value dictionary: keys and ids,
/// contact details, secrets, free text and timestamps. A pattern matches a
/// column name, or `table.column` when it contains a dot; `*` matches any
/// run of characters and the match ignores case.
pub const DEFAULT_DICTIONARY_EXCLUDES: &[&str] = &[
    "id",
    "*_id",
    "*_ids",
    "uuid",
    "*_uuid",
    "guid",
    "*_key",
    "*_fk",
    "*email*",
    "*phone*",
    "*password*",
    "*passwd*",
    "*secret*",
    "*token*",
    "*hash*",
    "*salt*",
    "url",
    "*_url",
    "*description*",
    "*notes",
    "note",
    "comment*",
    "body",
    "*message*",
    "properties",
    "payload",
    "*json*",
    "*_at",
    "*_date",
    "*_time",
    "*_ts",
];

/// Settings of `lore scan` for one connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanConfig {
    /// Rows sampled per table for profiles and relationship checks (default 10000).
    #[serde(default = "default_sample_rows")]
    pub sample_rows: u64,
    /// Most frequent values recorded per dictionary column (default 20).
    #[serde(default = "default_top_values")]
    pub top_values: u32,
    /// Profile columns (counts, distinct values, lengths, frequent values). Default true.
    #[serde(default = "default_true")]
    pub profile: bool,
    /// Infer relationships that are not declared as foreign keys, checked against the data. Default true.
    #[serde(default = "default_true")]
    pub relationships: bool,
    /// Tables to leave out of the scan: patterns on `table` or `schema.table` (`*` is a wildcard).
    #[serde(default)]
    pub exclude_tables: Vec<String>,
    /// Snapshots kept for this connection (default 20); older ones are deleted after each scan.
    #[serde(default = "default_keep_snapshots")]
    pub keep_snapshots: u32,
    /// Which columns feed the value dictionary behind `dictionary_search`.
    #[serde(default)]
    pub dictionary: DictionaryConfig,
}

/// Which columns feed the value dictionary and how much of each is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DictionaryConfig {
    /// Distinct sampled values kept per dictionary column, most frequent first (default 2000).
    #[serde(default = "default_dictionary_max_values")]
    pub max_values: u32,
    /// A text column holding a longer value than this is free text and left out (default 100).
    #[serde(default = "default_max_value_length")]
    pub max_value_length: u32,
    /// Extra column patterns to leave out, added to the built-in ones (ids, emails, secrets, free text, timestamps).
    #[serde(default)]
    pub exclude_columns: Vec<String>,
    /// Column patterns to keep even when a name rule would leave them out (`status_key`, `users.role`).
    #[serde(default)]
    pub include_columns: Vec<String>,
}

fn default_sample_rows() -> u64 {
    DEFAULT_SAMPLE_ROWS
}
fn default_top_values() -> u32 {
    DEFAULT_TOP_VALUES
}
fn default_true() -> bool {
    true
}
fn default_keep_snapshots() -> u32 {
    DEFAULT_KEEP_SNAPSHOTS
}
fn default_dictionary_max_values() -> u32 {
    DEFAULT_DICTIONARY_MAX_VALUES
}
fn default_max_value_length() -> u32 {
    DEFAULT_MAX_VALUE_LENGTH
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            sample_rows: DEFAULT_SAMPLE_ROWS,
            top_values: DEFAULT_TOP_VALUES,
            profile: true,
            relationships: true,
            exclude_tables: Vec::new(),
            keep_snapshots: DEFAULT_KEEP_SNAPSHOTS,
            dictionary: DictionaryConfig::default(),
        }
    }
}

impl Default for DictionaryConfig {
    fn default() -> Self {
        DictionaryConfig {
            max_values: DEFAULT_DICTIONARY_MAX_VALUES,
            max_value_length: DEFAULT_MAX_VALUE_LENGTH,
            exclude_columns: Vec::new(),
            include_columns: Vec::new(),
        }
    }
}

impl ScanConfig {
    /// What is wrong with these settings, if anything; `id` names the
    /// connection in the message.
    pub fn problem(&self, id: &str) -> Option<String> {
        if !(1..=1_000_000).contains(&self.sample_rows) {
            return Some(format!(
                "connection `{id}`: scan.sample_rows must be between 1 and 1000000, got {}",
                self.sample_rows
            ));
        }
        if self.top_values > 1000 {
            return Some(format!(
                "connection `{id}`: scan.top_values must be at most 1000, got {}",
                self.top_values
            ));
        }
        if self.keep_snapshots == 0 {
            return Some(format!(
                "connection `{id}`: scan.keep_snapshots must be at least 1 (the latest snapshot is what agents read)"
            ));
        }
        if self.dictionary.max_values > 100_000 {
            return Some(format!(
                "connection `{id}`: scan.dictionary.max_values must be at most 100000, got {}",
                self.dictionary.max_values
            ));
        }
        let empty = self
            .exclude_tables
            .iter()
            .chain(&self.dictionary.exclude_columns)
            .chain(&self.dictionary.include_columns)
            .any(|p| p.trim().is_empty());
        if empty {
            return Some(format!(
                "connection `{id}`: scan patterns must not be empty strings"
            ));
        }
        None
    }
}

/// Whether `pattern` matches `text`, ignoring ASCII case; `*` matches any
/// run of characters (including none), every other character itself.
pub fn pattern_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().map(|c| c.to_ascii_lowercase()).collect();
    let text: Vec<char> = text.chars().map(|c| c.to_ascii_lowercase()).collect();
    // Iterative wildcard match with backtracking to the last `*`.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_with_wildcards_and_ignore_case() {
        assert!(pattern_matches("*_id", "account_id"));
        assert!(pattern_matches("*_ID", "account_id"));
        assert!(!pattern_matches("*_id", "paid"));
        assert!(pattern_matches("*email*", "billing_email_address"));
        assert!(pattern_matches("id", "ID"));
        assert!(!pattern_matches("id", "idx"));
        assert!(pattern_matches("tmp_*", "tmp_"));
        assert!(pattern_matches("a*b*c", "axxbyyc"));
        assert!(!pattern_matches("a*b*c", "axxbyy"));
    }

    #[test]
    fn out_of_range_settings_are_named() {
        let mut scan = ScanConfig {
            sample_rows: 0,
            ..ScanConfig::default()
        };
        assert!(scan.problem("w").unwrap().contains("sample_rows"));
        scan.sample_rows = 10;
        scan.keep_snapshots = 0;
        assert!(scan.problem("w").unwrap().contains("keep_snapshots"));
        scan.keep_snapshots = 1;
        assert_eq!(scan.problem("w"), None);
    }
}
