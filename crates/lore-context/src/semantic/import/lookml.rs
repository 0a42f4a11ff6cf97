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

use lore_core::limits::SqlLimits;
use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{
    Cardinality, ColumnSpec, ColumnType, JoinSpec, MeasureSpec, SourceSpec, Visibility,
};
use lore_semantic::query::{DimensionRef, MeasureRef, OrderRef, SemanticQuery};
use lore_warehouse::catalog::LoadedSnapshot;

use super::{ImportReport, Imported, Outcome};

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
    // A view is defined once; refinements (`view: +orders`) then add to it
    // in the order read (a field or property defined again replaces the
    // first), wherever the view itself was defined.
    let mut merged: Vec<(String, Items)> = Vec::new();
    let mut defined_in: Vec<(String, &Path)> = Vec::new();
    let (refinements, bases): (Vec<_>, Vec<_>) =
        views.into_iter().partition(|(n, ..)| n.starts_with('+'));
    for (name, items, file) in bases {
        if let Some((_, first)) = defined_in.iter().find(|(n, _)| *n == name) {
            report.push(
                "view",
                &name,
                Outcome::Skipped,
                format!(
                    "defined again in {} (first in {}); Looker allows one per model: import one model file (PATH=….model.lkml) to read only what it includes",
                    file.display(),
                    first.display()
                ),
            );
            continue;
        }
        defined_in.push((name.clone(), file));
        merged.push((name, items));
    }
    for (name, items, _) in refinements {
        match name.strip_prefix('+') {
            Some(base) => match merged.iter_mut().find(|(n, _)| n == base) {
                Some((_, base_items)) => {
                    overlay(base_items, items);
                    report.push(
                        "view",
                        &name,
                        Outcome::Imported,
                        format!("refinement merged into {base}"),
                    );
                }
                None => report.push(
                    "view",
                    &name,
                    Outcome::Skipped,
                    format!("refines view {base}, which is not in the project"),
                ),
            },
            None => merged.push((name, items)),
        }
    }
    // `extends: [base]`: the view is its bases' fields and properties,
    // then its own; a base marked `extension: required` is only a base.
    let mut resolved: Vec<(String, Items)> = Vec::new();
    for (name, _) in &merged {
        match extended(name, &merged, &mut Vec::new()) {
            Ok(items) => {
                if get_text(&items, "extension") == Some("required") {
                    report.push(
                        "view",
                        name,
                        Outcome::Imported,
                        "extension: required — its fields are imported into the views that extend it",
                    );
                    continue;
                }
                resolved.push((name.clone(), items));
            }
            Err(why) => report.push("view", name, Outcome::Skipped, why),
        }
    }
    let merged = resolved;
    let views = merged;
    if views.is_empty() {
        return Err(ErrorReport::new(
            ErrorCode::InvalidArguments,
            format!("{origin} has no views"),
        ));
    }
    let mut sources: Vec<SourceSpec> = Vec::new();
    let mut native: Vec<NativeTable> = Vec::new();
    for (name, items) in &views {
        let table = get_text(items, "sql_table_name").map(|t| t.trim_matches('`').to_string());
        let derived = get(items, "derived_table")
            .and_then(Lkml::block)
            .and_then(|(_, d)| get_text(d, "sql"))
            .map(|s| plain_sql(s, name));
        // Without either, Looker reads the table named as the view.
        let table = match (&table, &derived) {
            (None, None) => Some(name.clone()),
            _ => table,
        };
        let explore_source = get(items, "derived_table")
            .and_then(Lkml::block)
            .and_then(|(_, d)| get(d, "explore_source"))
            .and_then(Lkml::block)
            .and_then(|(explore, body)| Some((explore.clone()?, body.clone())));
        if get(items, "derived_table").is_some() && derived.is_none() {
            match explore_source {
                // Its SQL is written once the explores' views are sources.
                Some((explore, body)) => native.push(NativeTable {
                    view: name.clone(),
                    explore,
                    body,
                }),
                None => {
                    report.push(
                        "view",
                        name,
                        Outcome::Skipped,
                        "a derived table with neither `sql` nor `explore_source` has nothing to read",
                    );
                    continue;
                }
            }
        }
        let sql = if table.is_some() { None } else { derived };
        let mut spec = super::source(name, None, table.clone(), sql);
        for (key, value) in items {
            let Some((Some(field), body)) = value.block() else {
                continue;
            };
            let full = format!("{name}.{field}");
            match key.as_str() {
                "dimension" => {
                    let sql = plain_sql(
                        get_text(body, "sql").unwrap_or(&format!("${{TABLE}}.{field}")),
                        name,
                    );
                    let column_type = match get_text(body, "type").unwrap_or("string") {
                        "number" => ColumnType::Number,
                        "yesno" => ColumnType::Boolean,
                        "date" | "date_time" | "time" => ColumnType::Time,
                        "string" | "tier" | "zipcode" => ColumnType::String,
                        other => {
                            report.push(
                                "dimension",
                                &full,
                                Outcome::Skipped,
                                format!("dimension type `{other}` has no Lore equivalent"),
                            );
                            continue;
                        }
                    };
                    spec.columns.push(ColumnSpec {
                        name: field.clone(),
                        column_type,
                        expr: (sql != *field).then_some(sql),
                        visibility: (get_text(body, "hidden") == Some("yes"))
                            .then_some(Visibility::Hidden),
                        role: None,
                        description: get_text(body, "description")
                            .or(get_text(body, "label"))
                            .map(str::to_string),
                        descriptions: None,
                    });
                    if get_text(body, "primary_key") == Some("yes") {
                        spec.grain.push(field.clone());
                    }
                    report.push("dimension", &full, Outcome::Imported, "column");
                }
                "dimension_group" => {
                    if get_text(body, "type") != Some("time") {
                        report.push(
                            "dimension_group",
                            &full,
                            Outcome::Skipped,
                            "only dimension groups of type time are imported",
                        );
                        continue;
                    }
                    let sql = plain_sql(
                        get_text(body, "sql").unwrap_or(&format!("${{TABLE}}.{field}")),
                        name,
                    );
                    spec.columns.push(ColumnSpec {
                        name: field.clone(),
                        column_type: ColumnType::Time,
                        expr: (sql != *field).then_some(sql),
                        visibility: None,
                        role: None,
                        description: get_text(body, "description").map(str::to_string),
                        descriptions: None,
                    });
                    report.push(
                        "dimension_group",
                        &full,
                        Outcome::Approximated,
                        format!("one time column `{field}`: its timeframes are Lore's granularities (`{name}.{field}:month`), not fields of their own"),
                    );
                }
                "measure" => {
                    let kind = get_text(body, "type").unwrap_or("count");
                    let sql = get_text(body, "sql").map(|s| plain_sql(s, name));
                    let arg = sql.clone().unwrap_or_else(|| "*".to_string());
                    let expr = match kind {
                        "count" => format!("count({arg})"),
                        "count_distinct" => format!("count_distinct({arg})"),
                        "sum" => format!("sum({arg})"),
                        "average" => format!("avg({arg})"),
                        "min" => format!("min({arg})"),
                        "max" => format!("max({arg})"),
                        "median" => format!("median({arg})"),
                        "percentile" => match get_text(body, "percentile") {
                            Some(p) => format!(
                                "percentile({arg}, {})",
                                p.parse::<f64>().map_or(0.5, |p| p / 100.0)
                            ),
                            None => {
                                report.push(
                                    "measure",
                                    &full,
                                    Outcome::Skipped,
                                    "a percentile measure without percentile:",
                                );
                                continue;
                            }
                        },
                        "number" => match sql {
                            Some(s) => s,
                            None => {
                                report.push(
                                    "measure",
                                    &full,
                                    Outcome::Skipped,
                                    "a number measure without sql",
                                );
                                continue;
                            }
                        },
                        other => {
                            report.push(
                                "measure",
                                &full,
                                Outcome::Skipped,
                                format!("measure type `{other}` has no Lore equivalent"),
                            );
                            continue;
                        }
                    };
                    let mut filters = Vec::new();
                    let mut unsupported = None;
                    // `filters: [field: "value", …]`, or the older
                    // `filters: {field: f value: "v"}` (once or repeated).
                    let mut pairs: Vec<String> = Vec::new();
                    for (_, value) in body.iter().filter(|(k, _)| k == "filters") {
                        match value {
                            Lkml::List(list) => pairs.extend(list.iter().cloned()),
                            Lkml::Block(_, items) => {
                                if let (Some(f), Some(v)) =
                                    (get_text(items, "field"), get_text(items, "value"))
                                {
                                    pairs.push(format!("{f}: \"{v}\""));
                                }
                            }
                            Lkml::Text(_) => {}
                        }
                    }
                    for pair in &pairs {
                        let Some((field, value)) = pair.split_once(':') else {
                            continue;
                        };
                        let field = field.trim().rsplit('.').next().unwrap_or(field).to_string();
                        match filter_sql(&field, value) {
                            Some(f) => filters.push(f),
                            None => {
                                unsupported = Some(format!("filter `{pair}` is not translated"))
                            }
                        }
                    }
                    if let Some(why) = unsupported {
                        report.push("measure", &full, Outcome::Skipped, why);
                        continue;
                    }
                    spec.measures.push(MeasureSpec {
                        name: field.clone(),
                        expr,
                        filter: (!filters.is_empty()).then(|| filters.join(" AND ")),
                        cumulative: None,
                        offset: None,
                        non_additive: None,
                        conversion: None,
                        description: get_text(body, "description")
                            .or(get_text(body, "label"))
                            .map(str::to_string),
                        descriptions: None,
                    });
                    report.push(
                        "measure",
                        &full,
                        Outcome::Imported,
                        format!("measure {full}"),
                    );
                }
                _ => {}
            }
        }
        sources.push(spec);
    }
    // Explores' joins, on the view their condition starts from.
    for (explore_name, items) in &explores {
        // An explore named otherwise than its view says which (`from:`,
        // `view_name:`); its joins' conditions may name it either way.
        let base = get_text(items, "from")
            .or(get_text(items, "view_name"))
            .unwrap_or(explore_name)
            .to_string();
        let explore = &base;
        for (key, value) in items {
            if key != "join" {
                continue;
            }
            let Some((Some(target), body)) = value.block() else {
                continue;
            };
            let full = format!("{explore}.{target}");
            // `join: repeat_orders { from: orders … }` joins `orders` under
            // the alias `repeat_orders`.
            let alias = target.clone();
            let target = get_text(body, "from").map_or_else(|| alias.clone(), str::to_string);
            let target = &target;
            // `foreign_key: dim` joins the target's primary key to `dim` of
            // the explore's view (or of `view.dim`).
            let foreign_key_on = get_text(body, "foreign_key").and_then(|fk| {
                let (view, field) = fk.split_once('.').unwrap_or((explore.as_str(), fk));
                let key = sources
                    .iter()
                    .find(|s| s.name == *target)?
                    .grain
                    .first()?
                    .clone();
                Some(format!("${{{view}.{field}}} = ${{{alias}.{key}}}"))
            });
            let on_text;
            let on = match (get_text(body, "sql_on"), foreign_key_on) {
                (Some(on), _) => on,
                (None, Some(fk)) => {
                    on_text = fk;
                    on_text.as_str()
                }
                (None, None) => {
                    report.push(
                        "join",
                        &full,
                        Outcome::Skipped,
                        "a join without sql_on, or whose foreign_key's target has no primary key",
                    );
                    continue;
                }
            };
            let relationship = match get_text(body, "relationship").unwrap_or("many_to_one") {
                "many_to_one" => Cardinality::ManyToOne,
                "one_to_many" => Cardinality::OneToMany,
                "one_to_one" => Cardinality::OneToOne,
                other => {
                    report.push(
                        "join",
                        &full,
                        Outcome::Skipped,
                        format!("relationship `{other}` has no Lore equivalent"),
                    );
                    continue;
                }
            };
            // The view the condition names besides the joined one declares the join.
            let mut from = None;
            let mut rest = on;
            while let Some(start) = rest.find("${") {
                let end = rest[start..].find('}').map_or(rest.len(), |e| start + e);
                if let Some((view, _)) = rest[start + 2..end].split_once('.')
                    && view != alias
                    && from.is_none()
                {
                    from = Some(view.to_string());
                }
                rest = &rest[end..];
            }
            let from = from.unwrap_or_else(|| explore.clone());
            let renamed_on = on.replace(&format!("${{{explore_name}."), &format!("${{{explore}."));
            let on = renamed_on.as_str();
            let from = if from == *explore_name {
                explore.clone()
            } else {
                from
            };
            let Some(source) = sources.iter_mut().find(|s| s.name == from) else {
                report.push(
                    "join",
                    &full,
                    Outcome::Skipped,
                    format!("view {from} was not imported"),
                );
                continue;
            };
            if source
                .joins
                .iter()
                .any(|j| j.alias.as_ref().unwrap_or(&j.to) == &alias)
            {
                report.push(
                    "join",
                    &full,
                    Outcome::Imported,
                    format!("already joined from {from}"),
                );
                continue;
            }
            source.joins.push(JoinSpec {
                to: target.clone(),
                on: plain_sql(on, &from),
                relationship,
                alias: (alias != *target).then(|| alias.clone()),
            });
            report.push(
                "join",
                &full,
                Outcome::Imported,
                format!("join {from} → {target}"),
            );
        }
    }
    if !native.is_empty() {
        native_derived_tables(native, &mut sources, &explores, scan, dialect, &mut report);
    }
    // Joins to views that were not imported (native derived tables Lore
    // could not write, views of other projects) are dropped, and said so.
    let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
    for source in &mut sources {
        let (kept, dropped): (Vec<JoinSpec>, Vec<JoinSpec>) = std::mem::take(&mut source.joins)
            .into_iter()
            .partition(|j| names.contains(&j.to));
        for join in dropped {
            report.push(
                "join",
                &format!("{} → {}", source.name, join.to),
                Outcome::Skipped,
                format!("view {} was not imported", join.to),
            );
        }
        source.joins = kept;
    }
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

/// A view whose table is an explore query (`derived_table: { explore_source:
/// … }`), waiting for the explores' views to be sources.
struct NativeTable {
    view: String,
    explore: String,
    body: Items,
}

/// Looker's timeframe suffixes of a `dimension_group` field
/// (`ordered_month`) and the granularity each is in Lore.
const TIMEFRAMES: [(&str, Option<&str>); 9] = [
    ("_raw", None),
    ("_time", None),
    ("_date", Some("day")),
    ("_day", Some("day")),
    ("_week", Some("week")),
    ("_month", Some("month")),
    ("_quarter", Some("quarter")),
    ("_year", Some("year")),
    ("", None),
];

/// Writes each native derived table's SQL: the explore's query (its
/// `column`s as dimensions or measures, its `filters`, `sorts` and
/// `limit`) compiled by Lore's planner over the sources imported so far,
/// in the connection's dialect, then renamed to the table's columns, with
/// `derived_column`s computed over them. A table Lore cannot write is
/// removed and reported with the reason.
fn native_derived_tables(
    native: Vec<NativeTable>,
    sources: &mut Vec<SourceSpec>,
    explores: &[(String, Items)],
    scan: Option<&LoadedSnapshot>,
    dialect: Dialect,
    report: &mut ImportReport,
) {
    let pending: Vec<String> = native.iter().map(|n| n.view.clone()).collect();
    // The model the explore queries run on: every other view, as it will
    // be written (its read columns declared, what Lore refuses left out),
    // without joins to the tables still pending.
    let mut base: Vec<SourceSpec> = sources
        .iter()
        .filter(|s| !pending.contains(&s.name))
        .cloned()
        .collect();
    let names: Vec<String> = base.iter().map(|s| s.name.clone()).collect();
    for source in &mut base {
        source.joins.retain(|j| names.contains(&j.to));
        super::declare_read_columns(source, scan);
        // An explore query may group by fields hidden from users.
        for column in &mut source.columns {
            column.visibility = None;
        }
    }
    super::leave_out_what_does_not_load(&mut base, &mut ImportReport::default());
    let files: Vec<(PathBuf, String)> = base
        .iter()
        .filter_map(|s| {
            super::render(s, "")
                .ok()
                .map(|t| (PathBuf::from(format!("{}.yaml", s.name)), t))
        })
        .collect();
    let model = lore_semantic::model::load_sources(files);
    for table in native {
        let written = match &model {
            Ok(model) => native_sql(&table, &base, explores, model, dialect),
            Err(e) => Err(format!("the views it queries do not load as a model: {e}")),
        };
        match written {
            Ok((sql, approximations)) => {
                if let Some(source) = sources.iter_mut().find(|s| s.name == table.view) {
                    source.sql = Some(sql);
                    source.table = None;
                }
                let (outcome, detail) = if approximations.is_empty() {
                    (
                        Outcome::Imported,
                        format!(
                            "native derived table: the SQL Lore's planner writes for its query of explore {}",
                            table.explore
                        ),
                    )
                } else {
                    (
                        Outcome::Approximated,
                        format!(
                            "native derived table over explore {}, written by Lore's planner; {}",
                            table.explore,
                            approximations.join("; ")
                        ),
                    )
                };
                report.push("native_derived_table", &table.view, outcome, detail);
            }
            Err(why) => {
                sources.retain(|s| s.name != table.view);
                let prefix = format!("{}.", table.view);
                for item in report
                    .items
                    .iter_mut()
                    .filter(|i| i.name.starts_with(&prefix))
                {
                    item.outcome = Outcome::Skipped;
                    item.detail = format!(
                        "its view {} is a native derived table Lore could not write",
                        table.view
                    );
                }
                report.push(
                    "native_derived_table",
                    &table.view,
                    Outcome::Skipped,
                    format!("explore_source {}: {why}", table.explore),
                );
            }
        }
    }
}

/// One native derived table's SQL, and what it approximates.
fn native_sql(
    table: &NativeTable,
    sources: &[SourceSpec],
    explores: &[(String, Items)],
    model: &lore_semantic::model::SemanticModel,
    dialect: Dialect,
) -> Result<(String, Vec<String>), String> {
    let explore_items = explores
        .iter()
        .find(|(name, _)| *name == table.explore)
        .map(|(_, items)| items)
        .ok_or_else(|| "no explore of that name is in the project".to_string())?;
    let base = get_text(explore_items, "from")
        .or(get_text(explore_items, "view_name"))
        .unwrap_or(&table.explore)
        .to_string();
    // `explore.field` names the explore's own view.
    let field_of = |text: &str| -> String {
        let text = text.trim().trim_matches('"');
        match text.split_once('.') {
            Some((view, field)) if view == table.explore => format!("{base}.{field}"),
            Some(_) => text.to_string(),
            None => format!("{base}.{text}"),
        }
    };
    let mut approximations = Vec::new();
    let mut query = SemanticQuery {
        limit: None,
        ..SemanticQuery::default()
    };
    // (output column, kind, index among its kind)
    let mut columns: Vec<(String, &'static str, usize)> = Vec::new();
    let mut derived: Vec<(String, String)> = Vec::new();
    for (key, value) in &table.body {
        match key.as_str() {
            "column" => {
                let Some((Some(alias), body)) = value.block() else {
                    return Err("a `column` without a name".into());
                };
                let field = field_of(get_text(body, "field").unwrap_or(alias));
                let (view, name) = field.split_once('.').unwrap_or((&base, &field));
                let source = sources
                    .iter()
                    .find(|s| s.name == view)
                    .ok_or_else(|| format!("column {alias} reads view {view}, which was not imported"))?;
                if source.measures.iter().any(|m| m.name == name) {
                    columns.push((alias.clone(), "measure", query.measures.len()));
                    query.measures.push(MeasureRef::Name(field.clone()));
                    continue;
                }
                let dimension = TIMEFRAMES.iter().find_map(|(suffix, granularity)| {
                    let column = name.strip_suffix(suffix)?;
                    let found = source.columns.iter().find(|c| c.name == column)?;
                    match granularity {
                        Some(g) if found.column_type == ColumnType::Time => Some(DimensionRef::Field {
                            field: format!("{view}.{column}"),
                            granularity: Some(g.to_string()),
                        }),
                        Some(_) => None,
                        None => Some(DimensionRef::Name(format!("{view}.{column}"))),
                    }
                });
                let Some(dimension) = dimension else {
                    return Err(format!(
                        "column {alias} reads {field}, which is no imported dimension or measure"
                    ));
                };
                columns.push((alias.clone(), "dimension", query.dimensions.len()));
                query.dimensions.push(dimension);
            }
            "derived_column" => {
                let Some((Some(alias), body)) = value.block() else {
                    return Err("a `derived_column` without a name".into());
                };
                let sql = get_text(body, "sql")
                    .ok_or_else(|| format!("derived_column {alias} has no sql"))?;
                derived.push((alias.clone(), plain_sql(sql, &table.view)));
            }
            "filters" => {
                // `filters: [view.field: "value", …]`, or the older
                // `filters: { field: view.field value: "value" }`.
                let pairs: Vec<String> = match value {
                    Lkml::List(pairs) => pairs.clone(),
                    Lkml::Block(_, items) => match (get_text(items, "field"), get_text(items, "value")) {
                        (Some(field), Some(value)) => vec![format!("{field}: \"{value}\"")],
                        _ => return Err("a `filters` block without field and value".into()),
                    },
                    Lkml::Text(text) => return Err(format!("filters: {text} is not a list of field: value")),
                };
                for pair in &pairs {
                    let (field, filter) = pair
                        .split_once(':')
                        .ok_or_else(|| format!("filter `{pair}` names no field"))?;
                    let field = field_of(field);
                    let sql = filter_sql(&field, filter)
                        .ok_or_else(|| format!("filter `{pair}` is not translated"))?;
                    query.filters.push(sql);
                }
            }
            "sorts" => {
                let Lkml::List(pairs) = value else {
                    return Err("sorts: is not a list of field: asc|desc".into());
                };
                for pair in pairs {
                    let (field, direction) = pair.split_once(':').unwrap_or((pair, "asc"));
                    let field = field_of(field);
                    let desc = direction.trim().trim_matches('"').eq_ignore_ascii_case("desc");
                    query.order_by.push(OrderRef::Name(if desc {
                        format!("{field} desc")
                    } else {
                        field
                    }));
                }
            }
            "limit" => {
                let limit = value
                    .text()
                    .and_then(|t| t.trim().parse::<u64>().ok())
                    .filter(|l| *l > 0)
                    .ok_or("limit: is not a positive number")?;
                query.limit = Some(limit);
            }
            "bind_filters" | "bind_all_filters" => approximations.push(format!(
                "`{key}` passes the filters of a Looker query into the table at query time; Lore's table is computed without them"
            )),
            "timezone" => approximations.push(
                "`timezone` is not applied: times are grouped as the warehouse stores them".into(),
            ),
            other => return Err(format!("`{other}` in explore_source is not read by Lore")),
        }
    }
    if columns.is_empty() {
        return Err("it has no `column`".into());
    }
    let compiled = lore_semantic::planner::compile(model, &query, dialect, &SqlLimits::default())
        .map_err(|e| format!("Lore's planner cannot write its query: {e}"))?;
    let mut sql = compiled.sql;
    if query.limit.is_none() {
        // The planner always ends with the default row limit; the table
        // has every row.
        let trimmed = sql.trim_end();
        let limit_at = trimmed.rfind("LIMIT ").filter(|at| {
            trimmed[at + 6..].chars().all(|c| c.is_ascii_digit())
                && trimmed[..*at].ends_with(char::is_whitespace)
        });
        match limit_at {
            Some(at) => sql.truncate(at),
            None => return Err("the planner's SQL does not end with its row limit".into()),
        }
    }
    let by_kind = |kind: &str, index: usize| -> Option<String> {
        compiled
            .columns
            .iter()
            .filter(|c| c.kind == kind)
            .nth(index)
            .map(|c| dialect.quote(&dialect.output_name(&c.name)))
    };
    let mut select = Vec::new();
    for (alias, kind, index) in &columns {
        let column = by_kind(kind, *index)
            .ok_or_else(|| format!("the planner's SQL has no column for {alias}"))?;
        select.push(format!("q.{column} AS {}", dialect.quote(alias)));
    }
    let mut out = format!("SELECT {} FROM ({}) q", select.join(", "), sql.trim_end());
    if !derived.is_empty() {
        let extra: Vec<String> = derived
            .iter()
            .map(|(alias, sql)| format!("{sql} AS {}", dialect.quote(alias)))
            .collect();
        out = format!("SELECT d.*, {} FROM ({out}) d", extra.join(", "));
    }
    Ok((out, approximations))
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
