//! Finding the table an agent means.
//!
//! A table is named by a display string (`orders`, `sales.orders`,
//! `"Sales"."Order Items"`, `` `db`.`t` ``) or a structured
//! `{catalog, db, name}` where absent parts match anything. Names match
//! exactly first, then ignoring case; one match is found, several are
//! ambiguous (and listed), none is not found (with the closest names).
//! Lookups go through a [`NameIndex`], so finding a table costs one hash
//! lookup however many tables there are; only a miss compares all names.

use std::collections::HashMap;

use crate::schema::{SchemaTable, TableRef, qualified_name};

/// Table positions by lower-cased name.
pub type NameIndex = HashMap<String, Vec<u32>>;

/// Indexes `tables` by lower-cased name.
pub fn name_index(tables: &[SchemaTable]) -> NameIndex {
    let mut index = NameIndex::new();
    for (position, table) in tables.iter().enumerate() {
        index
            .entry(table.name.to_ascii_lowercase())
            .or_default()
            .push(position as u32);
    }
    index
}

/// Most candidates listed with an error.
const MAX_CANDIDATES: usize = 8;

/// A table as an agent names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableQuery {
    /// Catalog, if given.
    pub catalog: Option<String>,
    /// Schema or database, if given.
    pub db: Option<String>,
    /// Table name.
    pub name: String,
}

impl TableQuery {
    /// Parses a display string: up to three dot-separated parts, each
    /// optionally quoted with `"…"`, `` `…` `` or `[…]`.
    pub fn parse(display: &str) -> Option<TableQuery> {
        let parts = split_qualified(display.trim())?;
        let mut parts = parts.into_iter().rev();
        let name = parts.next()?;
        let db = parts.next();
        let catalog = parts.next();
        if parts.next().is_some() {
            return None;
        }
        Some(TableQuery { catalog, db, name })
    }

    /// The query as written, for messages.
    pub fn display(&self) -> String {
        qualified_name(self.catalog.as_deref(), self.db.as_deref(), &self.name)
    }
}

fn split_qualified(text: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '`' | '[' => {
                let close = if c == '[' { ']' } else { c };
                loop {
                    match chars.next() {
                        Some(x) if x == close => {
                            if close != ']' && chars.peek() == Some(&close) {
                                chars.next();
                                current.push(close);
                            } else {
                                break;
                            }
                        }
                        Some(x) => current.push(x),
                        None => return None,
                    }
                }
            }
            '.' => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    parts.push(current);
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    Some(parts)
}

/// What a query resolves to.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Exactly one table: its index.
    Found(usize),
    /// Several tables fit; their display names.
    Ambiguous(Vec<String>),
    /// None fits; the closest names.
    NotFound(Vec<String>),
}

fn part_matches(
    wanted: &Option<String>,
    actual: &Option<String>,
    exact: bool,
    sqlite: bool,
) -> bool {
    match (wanted, actual) {
        (None, _) => true,
        (Some(w), Some(a)) => {
            if exact {
                w == a
            } else {
                w.eq_ignore_ascii_case(a)
            }
        }
        // SQLite's one schema is called `main`.
        (Some(w), None) => sqlite && w.eq_ignore_ascii_case("main"),
    }
}

/// Resolves `query` among `tables` (indexed by `index`); `sqlite` accepts
/// `main.` prefixes.
pub fn resolve(
    tables: &[SchemaTable],
    index: &NameIndex,
    query: &TableQuery,
    sqlite: bool,
) -> Resolution {
    let same_name = index
        .get(&query.name.to_ascii_lowercase())
        .map(Vec::as_slice)
        .unwrap_or_default();
    for exact in [true, false] {
        let hits: Vec<usize> = same_name
            .iter()
            .map(|&i| (i as usize, &tables[i as usize]))
            .filter(|(_, t)| {
                let name_ok = if exact {
                    t.name == query.name
                } else {
                    t.name.eq_ignore_ascii_case(&query.name)
                };
                name_ok
                    && part_matches(&query.db, &t.db, exact, sqlite)
                    && part_matches(&query.catalog, &t.catalog, exact, sqlite)
            })
            .map(|(i, _)| i)
            .collect();
        match hits.len() {
            0 => continue,
            1 => return Resolution::Found(hits[0]),
            _ => {
                return Resolution::Ambiguous(
                    hits.iter()
                        .take(MAX_CANDIDATES)
                        .map(|&i| tables[i].table_ref().display())
                        .collect(),
                );
            }
        }
    }
    Resolution::NotFound(closest(
        tables.iter().map(|t| t.table_ref()),
        &query.name,
        |r: &TableRef| r.name.clone(),
        |r| r.display(),
    ))
}

/// The names closest to `wanted` (similar spelling, or containing it).
pub fn closest<T>(
    items: impl Iterator<Item = T>,
    wanted: &str,
    name_of: impl Fn(&T) -> String,
    display_of: impl Fn(&T) -> String,
) -> Vec<String> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(f64, String)> = items
        .filter_map(|item| {
            let name = name_of(&item).to_lowercase();
            let mut score = strsim::jaro_winkler(&wanted, &name);
            if wanted.len() >= 3 && (name.contains(&wanted) || wanted.contains(&name)) {
                score = score.max(0.9);
            }
            (score >= 0.8).then(|| (score, display_of(&item)))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(5).map(|(_, d)| d).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(db: Option<&str>, name: &str) -> SchemaTable {
        SchemaTable::named(db, name)
    }

    fn query(text: &str) -> TableQuery {
        TableQuery::parse(text).unwrap()
    }

    #[test]
    fn display_strings_parse_with_quotes_and_dots() {
        assert_eq!(query("orders").name, "orders");
        let q = query("\"Sales\".\"Order.Items\"");
        assert_eq!(
            (q.db.as_deref(), q.name.as_str()),
            (Some("Sales"), "Order.Items")
        );
        let q = query("cat.`db`.[t]");
        assert_eq!(q.catalog.as_deref(), Some("cat"));
        assert_eq!(TableQuery::parse("a..b"), None);
        assert_eq!(TableQuery::parse("a.b.c.d"), None);
        assert_eq!(TableQuery::parse("\"open"), None);
    }

    #[test]
    fn exact_names_win_then_case_is_ignored_then_ambiguity_is_listed() {
        let tables = vec![
            table(Some("public"), "orders"),
            table(Some("archive"), "orders"),
            table(Some("public"), "Users"),
            table(Some("public"), "users"),
            table(Some("public"), "customers"),
        ];
        let index = name_index(&tables);
        let find = |q: &str| resolve(&tables, &index, &query(q), false);
        assert_eq!(find("public.orders"), Resolution::Found(0));
        assert_eq!(find("PUBLIC.ORDERS"), Resolution::Found(0));
        assert_eq!(find("users"), Resolution::Found(3));
        assert_eq!(
            find("orders"),
            Resolution::Ambiguous(vec!["public.orders".into(), "archive.orders".into()])
        );
        assert_eq!(
            find("customer"),
            Resolution::NotFound(vec!["public.customers".into()])
        );
        assert_eq!(find("zzz"), Resolution::NotFound(vec![]));
    }

    #[test]
    fn sqlite_tables_answer_to_main() {
        let tables = vec![table(None, "accounts")];
        let index = name_index(&tables);
        assert_eq!(
            resolve(&tables, &index, &query("main.accounts"), true),
            Resolution::Found(0)
        );
        assert!(matches!(
            resolve(&tables, &index, &query("main.accounts"), false),
            Resolution::NotFound(_)
        ));
    }
}
