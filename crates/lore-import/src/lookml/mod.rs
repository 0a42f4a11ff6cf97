//! LookML → Lore: views become sources (`sql_table_name`, or
//! `derived_table.sql`), dimensions columns (`primary_key: yes` the
//! grain, `yesno` booleans), dimension groups of `type: time` one time
//! column each (Lore groups by any grain), measures measures (`count`,
//! `count_distinct`, `sum`, `average`, `min`, `max`, `median`,
//! `percentile`, `number` over measures, with Looker `filters` turned into
//! SQL), and each explore's joins (`sql_on`, `relationship`) joins on the
//! view their condition starts from; native derived tables
//! (`explore_source`) sources over the SQL Lore's planner writes for their
//! explore query. `${TABLE}.x` → `x`, `${field}` →
//! `field`, `${view.field}` → `view.field`. Refinements (`view: +name`)
//! and `extends` are resolved first, as Looker does: later definitions of
//! a field or property replace earlier ones.
//!
//! The LookML reader is a small recursive parser of LookML's own syntax:
//! `key: value`, `key: name { … }`, `[lists]`, `"strings"`, `# comments`,
//! and SQL values running to `;;`.

use std::path::{Path, PathBuf};

use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::dialect::Dialect;
use lore_semantic::model::SourceSpec;
use lore_warehouse::catalog::LoadedSnapshot;

use super::{ImportReport, Imported, Outcome};

mod explores;
mod native;
mod views;

/// A block's items: key and value, in order.
pub type Items = Vec<(String, Lkml)>;

/// A LookML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Lkml {
    /// A word, number, string or SQL text.
    Text(String),
    /// `[a, b]` (or `[field: "value", …]` pairs, kept as `a: b` texts).
    List(Vec<String>),
    /// `{ … }`, optionally named (`dimension: id { … }`).
    Block(Option<String>, Items),
}

impl Lkml {
    fn text(&self) -> Option<&str> {
        match self {
            Lkml::Text(t) => Some(t.as_str()),
            _ => None,
        }
    }

    fn block(&self) -> Option<(&Option<String>, &Items)> {
        match self {
            Lkml::Block(name, items) => Some((name, items)),
            _ => None,
        }
    }
}

fn get<'a>(items: &'a [(String, Lkml)], key: &str) -> Option<&'a Lkml> {
    items.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn get_text<'a>(items: &'a [(String, Lkml)], key: &str) -> Option<&'a str> {
    get(items, key)
        .and_then(Lkml::text)
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    file: String,
    /// Blocks open at `at`: the parser recurses once per block.
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> ErrorReport {
        let line = self.text[..self.at.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!("{}, line {line}: {what}", self.file),
        )
    }

    fn skip_space(&mut self) {
        loop {
            let rest = &self.text[self.at..];
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.text[self.at..].chars().next()
    }

    fn word(&mut self) -> Option<String> {
        self.skip_space();
        let rest = &self.text[self.at..];
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')))
            .unwrap_or(rest.len());
        if len == 0 {
            return None;
        }
        self.at += len;
        Some(rest[..len].to_string())
    }

    fn string(&mut self) -> Result<String, ErrorReport> {
        // At a `"`.
        self.at += 1;
        let rest = &self.text[self.at..];
        let mut out = String::new();
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, next)) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => {
                    self.at += i + 1;
                    return Ok(out);
                }
                other => out.push(other),
            }
        }
        Err(self.error("a string opened with \" is not closed"))
    }

    /// The items of a block up to `}` (or the end for the file).
    fn items(&mut self, top: bool) -> Result<Vec<(String, Lkml)>, ErrorReport> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                None if top => return Ok(items),
                None => return Err(self.error("a block opened with { is not closed")),
                Some('}') if !top => {
                    self.at += 1;
                    return Ok(items);
                }
                _ => {}
            }
            let key = self.word().ok_or_else(|| self.error("expected a key"))?;
            if self.peek() != Some(':') {
                return Err(self.error(&format!("expected `:` after `{key}`")));
            }
            self.at += 1;
            let value = self.value(&key)?;
            items.push((key, value));
        }
    }

    /// A block's items, at its `{`; refused past the nesting limit.
    fn block(&mut self) -> Result<Items, ErrorReport> {
        if self.depth >= super::nesting::MAX_NESTING_DEPTH {
            return Err(self.error(&super::nesting::too_deep("blocks")));
        }
        self.at += 1;
        self.depth += 1;
        let items = self.items(false);
        self.depth -= 1;
        items
    }

    fn value(&mut self, key: &str) -> Result<Lkml, ErrorReport> {
        if key.starts_with("sql") || key == "html" || key == "expression" {
            // SQL runs to `;;`.
            self.skip_space();
            let rest = &self.text[self.at..];
            let end = rest
                .find(";;")
                .ok_or_else(|| self.error(&format!("`{key}:` is not ended by ;;")))?;
            self.at += end + 2;
            return Ok(Lkml::Text(rest[..end].trim().to_string()));
        }
        match self.peek() {
            Some('{') => Ok(Lkml::Block(None, self.block()?)),
            Some('[') => {
                self.at += 1;
                let mut list = Vec::new();
                let mut current = String::new();
                loop {
                    match self.peek() {
                        Some(']') => {
                            self.at += 1;
                            if !current.trim().is_empty() {
                                list.push(current.trim().to_string());
                            }
                            return Ok(Lkml::List(list));
                        }
                        Some(',') => {
                            self.at += 1;
                            list.push(std::mem::take(&mut current).trim().to_string());
                        }
                        Some('"') => {
                            let s = self.string()?;
                            current.push_str(&format!("\"{s}\""));
                        }
                        Some(':') => {
                            self.at += 1;
                            current.push_str(": ");
                        }
                        Some(_) => {
                            // Anything up to a separator: names, numbers,
                            // `set*` and `-field` patterns.
                            let rest = &self.text[self.at..];
                            let len = rest
                                .find(|c: char| {
                                    c.is_whitespace()
                                        || matches!(c, ',' | ']' | '"' | ':' | '[' | '{' | '}')
                                })
                                .unwrap_or(rest.len());
                            if len == 0 {
                                return Err(self.error("unexpected character in a list"));
                            }
                            current.push_str(&rest[..len]);
                            self.at += len;
                        }
                        None => return Err(self.error("a list opened with [ is not closed")),
                    }
                }
            }
            Some('"') => Ok(Lkml::Text(self.string()?)),
            Some(_) => {
                let word = self
                    .word()
                    .ok_or_else(|| self.error(&format!("expected a value for `{key}`")))?;
                if self.peek() == Some('{') {
                    return Ok(Lkml::Block(Some(word), self.block()?));
                }
                Ok(Lkml::Text(word))
            }
            None => Err(self.error(&format!("`{key}:` has no value"))),
        }
    }
}

/// Parses one LookML file.
pub fn parse(text: &str, file: &str) -> Result<Vec<(String, Lkml)>, ErrorReport> {
    Parser {
        text,
        at: 0,
        file: file.to_string(),
        depth: 0,
    }
    .items(true)
}

/// `${TABLE}.x` → `x`; `${field}` → `field`; `${view.field}` →
/// `view.field` (`own` view's fields unqualified).
pub fn plain_sql(sql: &str, own: &str) -> String {
    let mut out = String::new();
    let mut rest = sql;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = rest[start + 2..start + end].trim();
        let after = &rest[start + end + 1..];
        if inner == "TABLE" {
            rest = after.strip_prefix('.').unwrap_or(after);
            continue;
        }
        match inner.split_once('.') {
            Some((view, field)) if view == own => out.push_str(field),
            _ => out.push_str(inner),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A Looker filter value on `field` as SQL: `paid`, `-paid`, `>100`,
/// `a,b`, `yes`/`no`, `NULL`.
fn filter_sql(field: &str, value: &str) -> Option<String> {
    let value = value.trim().trim_matches('"').trim();
    let quote = |v: &str| {
        if v.parse::<f64>().is_ok() {
            v.to_string()
        } else {
            format!("'{}'", v.replace('\'', "''"))
        }
    };
    if value.contains(',') {
        let parts: Vec<String> = value.split(',').map(|p| quote(p.trim())).collect();
        return Some(format!("{field} IN ({})", parts.join(", ")));
    }
    if value.eq_ignore_ascii_case("yes") {
        return Some(field.to_string());
    }
    if value.eq_ignore_ascii_case("no") {
        return Some(format!("NOT {field}"));
    }
    if value.eq_ignore_ascii_case("null") {
        return Some(format!("{field} IS NULL"));
    }
    if value.eq_ignore_ascii_case("-null") {
        return Some(format!("{field} IS NOT NULL"));
    }
    for op in [">=", "<=", "!=", ">", "<"] {
        if let Some(rest) = value.strip_prefix(op) {
            let rest = rest.trim();
            return rest
                .parse::<f64>()
                .ok()
                .map(|_| format!("{field} {op} {rest}"));
        }
    }
    if let Some(rest) = value.strip_prefix('-') {
        return (!rest.contains(['%', '*'])).then(|| format!("{field} <> {}", quote(rest)));
    }
    if value.contains(['%', '*', '^']) || value.contains(" to ") || value.contains("ago") {
        return None;
    }
    Some(format!("{field} = {}", quote(value)))
}

/// Every `.lkml` file under `dir`, sorted.
fn lkml_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "lkml") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
}

fn read_lkml(file: &Path) -> Result<Items, ErrorReport> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!("{}: cannot be read: {e}", file.display()),
        )
    })?;
    parse(&text, &file.display().to_string())
}

/// The project folder of a model file: the nearest folder upwards with a
/// `manifest.lkml`, else the model file's own folder.
fn project_root(model: &Path) -> PathBuf {
    let start = model.parent().unwrap_or(Path::new("."));
    start
        .ancestors()
        .find(|d| d.join("manifest.lkml").is_file())
        .unwrap_or(start)
        .to_path_buf()
}

/// The files a model reads, parsed, in include order: the model file, then
/// what its `include:`s name (globs; `/` from the project folder, else from
/// the including file's; `.lkml` may be left off), transitively. Includes
/// of other projects (`//project/…`) and patterns matching nothing are
/// reported.
fn model_files(
    model: &Path,
    report: &mut ImportReport,
) -> Result<Vec<(PathBuf, Items)>, ErrorReport> {
    let root = project_root(model);
    let all = lkml_files(&root);
    let mut out: Vec<(PathBuf, Items)> = Vec::new();
    let mut queue = vec![model.to_path_buf()];
    while let Some(file) = queue.pop() {
        if out.iter().any(|(f, _)| *f == file) {
            continue;
        }
        let items = read_lkml(&file)?;
        let mut found: Vec<PathBuf> = Vec::new();
        for (key, value) in &items {
            if key != "include" {
                continue;
            }
            let patterns = match value {
                Lkml::Text(t) => vec![t.clone()],
                Lkml::List(l) => l.clone(),
                Lkml::Block(..) => Vec::new(),
            };
            for pattern in patterns {
                let pattern = pattern.trim().trim_matches('"').to_string();
                if pattern.starts_with("//") {
                    report.push(
                        "include",
                        &pattern,
                        Outcome::Skipped,
                        "a file of another LookML project (a remote dependency), not in this folder",
                    );
                    continue;
                }
                let base = match pattern.strip_prefix('/') {
                    Some(_) => root.clone(),
                    None => file.parent().unwrap_or(&root).to_path_buf(),
                };
                let mut full = format!("{}/{}", base.display(), pattern.trim_start_matches('/'));
                if !full.ends_with(".lkml") {
                    full.push_str(".lkml");
                }
                let matcher = globset::GlobBuilder::new(&full)
                    .literal_separator(true)
                    .build()
                    .map(|g| g.compile_matcher());
                let matched: Vec<&PathBuf> = match &matcher {
                    Ok(m) => all.iter().filter(|f| m.is_match(f)).collect(),
                    Err(_) => Vec::new(),
                };
                if matched.is_empty() {
                    report.push(
                        "include",
                        &pattern,
                        Outcome::Skipped,
                        format!("matches no file of {}", root.display()),
                    );
                }
                found.extend(matched.into_iter().cloned());
            }
        }
        out.push((file, items));
        // Read in the order included (the queue pops from the end).
        queue.extend(found.into_iter().rev());
    }
    Ok(out)
}

/// Adds `items` to `base`: a named block (`dimension: x { … }`) replaces
/// the block of the same kind and name, any other property the one of the
/// same key.
fn overlay(base: &mut Items, items: Items) {
    for (key, value) in items {
        let name = value.block().and_then(|(n, _)| n.clone());
        base.retain(|(k, v)| !(k == &key && v.block().and_then(|(n, _)| n.clone()) == name));
        base.push((key, value));
    }
}

/// A view's items with what it `extends` resolved (bases first, in the
/// order listed, then the view's own), or why it cannot be.
fn extended(
    name: &str,
    views: &[(String, Items)],
    seen: &mut Vec<String>,
) -> Result<Items, String> {
    let Some((_, items)) = views.iter().find(|(n, _)| n == name) else {
        return Err(format!("extends view {name}, which is not in the project"));
    };
    if seen.iter().any(|s| s == name) {
        seen.push(name.to_string());
        return Err(format!("extends itself: {}", seen.join(" -> ")));
    }
    let bases: Vec<String> = match get(items, "extends") {
        Some(Lkml::List(list)) => list.clone(),
        Some(Lkml::Text(one)) => vec![one.clone()],
        _ => return Ok(items.clone()),
    };
    seen.push(name.to_string());
    let mut out: Items = Vec::new();
    for base in bases {
        let base = base.trim().trim_matches('"');
        let mut base_items = extended(base, views, seen)?;
        // `extension: required` holds for the base only.
        base_items.retain(|(k, _)| k != "extension");
        overlay(&mut out, base_items);
    }
    seen.pop();
    let own: Items = items
        .iter()
        .filter(|(k, _)| k != "extends")
        .cloned()
        .collect();
    overlay(&mut out, own);
    Ok(out)
}

/// Reads a LookML project's views and explores as Lore sources: `project`
/// is a folder (every `.lkml` file in it) or one `.model.lkml` file (what
/// that model includes, as Looker reads it). Native derived tables
/// (`explore_source`) become sources over the SQL Lore's planner writes
/// for their explore query in `dialect`, the connection's.
pub fn read(
    project: &Path,
    scan: Option<&LoadedSnapshot>,
    dialect: Dialect,
) -> Result<Imported, ErrorReport> {
    let mut report = ImportReport {
        from: "lookml".into(),
        ..ImportReport::default()
    };
    let files: Vec<(PathBuf, Items)> = if project.is_file() {
        model_files(project, &mut report)?
    } else {
        lkml_files(project)
            .into_iter()
            .map(|f| read_lkml(&f).map(|items| (f, items)))
            .collect::<Result<_, _>>()?
    };
    if files.is_empty() {
        return Err(ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!("{} holds no .lkml files", project.display()),
        ));
    }
    from_files(
        &files,
        &project.display().to_string(),
        report,
        scan,
        dialect,
    )
}

/// Reads LookML pasted into a note (`memory_ingest`): its views and
/// explores, as one file of a project.
pub fn read_text(
    text: &str,
    scan: Option<&LoadedSnapshot>,
    dialect: Dialect,
) -> Result<Imported, ErrorReport> {
    const ORIGIN: &str = "the LookML block";
    let report = ImportReport {
        from: "lookml".into(),
        ..ImportReport::default()
    };
    let items = parse(text, ORIGIN)?;
    from_files(
        &[(PathBuf::from(ORIGIN), items)],
        ORIGIN,
        report,
        scan,
        dialect,
    )
}

/// The views and explores of parsed files as sources; `origin` names the
/// project in messages.
fn from_files(
    files: &[(PathBuf, Items)],
    origin: &str,
    mut report: ImportReport,
    scan: Option<&LoadedSnapshot>,
    dialect: Dialect,
) -> Result<Imported, ErrorReport> {
    let mut views: Vec<(String, Items, &Path)> = Vec::new();
    let mut explores: Vec<(String, Items)> = Vec::new();
    for (file, items) in files {
        for (key, value) in items {
            if let Some((Some(name), items)) = value.block() {
                match key.as_str() {
                    "view" => views.push((name.clone(), items.to_vec(), file)),
                    "explore" => explores.push((name.clone(), items.to_vec())),
                    _ => {}
                }
            }
        }
    }
    let views = views::merge_views(views, &mut report);
    if views.is_empty() {
        return Err(ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!("{origin} has no views"),
        ));
    }
    let mut sources: Vec<SourceSpec> = Vec::new();
    let mut native: Vec<native::NativeTable> = Vec::new();
    for (name, items) in &views {
        if let Some(spec) = views::view_source(name, items, &mut native, &mut report) {
            sources.push(spec);
        }
    }
    explores::explore_joins(&explores, &mut sources, &mut report);
    if !native.is_empty() {
        native::native_derived_tables(native, &mut sources, &explores, scan, dialect, &mut report);
    }
    explores::drop_dangling_joins(&mut sources, &mut report);
    for source in &mut sources {
        super::declare_read_columns(source, scan);
        if source.grain.is_empty() {
            report.push("view", &source.name, Outcome::Approximated, "no primary_key dimension: the source has no grain, so one-to-many joins are not protected from fan-out");
        } else {
            report.push(
                "view",
                &source.name,
                Outcome::Imported,
                format!("source {}", source.name),
            );
        }
    }
    Ok(Imported { sources, report })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookml_parses_blocks_lists_strings_and_sql_to_double_semicolons() {
        let parsed = parse(
            "# comment\nview: orders {\n  sql_table_name: public.orders ;;\n  dimension: id { primary_key: yes type: number sql: ${TABLE}.id ;; }\n  measure: paid { type: sum sql: ${amount} ;; filters: [status: \"paid, open\", amount: \">100\"] }\n}\n",
            "x.view.lkml",
        )
        .unwrap();
        let (_, items) = parsed[0].1.block().unwrap();
        assert_eq!(get_text(items, "sql_table_name"), Some("public.orders"));
        let (name, dim) = items[1].1.block().unwrap();
        assert_eq!(name.as_deref(), Some("id"));
        assert_eq!(get_text(dim, "sql"), Some("${TABLE}.id"));
        let (_, measure) = items[2].1.block().unwrap();
        assert_eq!(
            get(measure, "filters"),
            Some(&Lkml::List(vec![
                "status: \"paid, open\"".into(),
                "amount: \">100\"".into()
            ]))
        );
        let err = parse("view: x {\n  sql: select 1\n}\n", "bad.lkml").unwrap_err();
        assert!(err.message.starts_with("bad.lkml, line"), "{}", err.message);
    }

    #[test]
    fn references_and_filters_become_plain_sql() {
        assert_eq!(plain_sql("${TABLE}.amount / 100", "orders"), "amount / 100");
        assert_eq!(
            plain_sql("${orders.customer_id} = ${customers.id}", "orders"),
            "customer_id = customers.id"
        );
        assert_eq!(
            plain_sql("${revenue} / ${count}", "orders"),
            "revenue / count"
        );
        assert_eq!(
            filter_sql("status", "\"paid\""),
            Some("status = 'paid'".into())
        );
        assert_eq!(
            filter_sql("status", "\"-void\""),
            Some("status <> 'void'".into())
        );
        assert_eq!(
            filter_sql("amount", "\">=100\""),
            Some("amount >= 100".into())
        );
        assert_eq!(
            filter_sql("status", "\"paid, open\""),
            Some("status IN ('paid', 'open')".into())
        );
        assert_eq!(filter_sql("is_large", "yes"), Some("is_large".into()));
        assert_eq!(filter_sql("created", "\"7 days ago\""), None);
    }

    #[test]
    fn blocks_nested_past_the_limit_are_refused_on_a_small_stack() {
        let deep = format!(
            "view: v {{\n{}{}}}\n",
            "dimension: d {\n".repeat(20_000),
            "}\n".repeat(20_000)
        );
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || parse(&deep, "deep.view.lkml").map(|_| ()))
            .unwrap();
        let err = handle.join().unwrap().unwrap_err();
        assert!(
            err.message.starts_with("deep.view.lkml, line 65:")
                && err.message.contains("nesting depth limit"),
            "{}",
            err.message
        );
        let within = format!("view: v {{{}{}}}", "a: b {".repeat(60), "}".repeat(60));
        assert!(parse(&within, "ok.view.lkml").is_ok());
    }
}
