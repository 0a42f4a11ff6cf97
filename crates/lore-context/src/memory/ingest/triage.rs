//! Deterministic triage: what a markdown note holds, read with a real
//! CommonMark parser (`pulldown-cmark`), no model involved.
//!
//! - **Sections**: the note split at its highest heading level that
//!   repeats (a lone first `#` heading is the title); each keeps its
//!   markdown as written.
//! - **Definitions**: `**Term** is/are/means/refers to …`, `Term: …`
//!   paragraphs, and glossary tables (a term column — term, name, metric,
//!   concept, field — beside a definition column — definition,
//!   description, meaning).
//! - **Notes**: paragraphs (or quotes) opening with `Note:`, `Gotcha:`,
//!   `Warning:`, `Important:`, `Caveat:` or `Remember:`.
//! - **Code blocks**, by kind: SQL, Lore semantic-layer YAML, dbt,
//!   MetricFlow, Cube, LookML, other.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// One section of a note.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Its heading (the title for text before the first heading).
    pub heading: String,
    /// Its one-line summary, when its author gave one (else its first
    /// sentence is).
    pub summary: Option<String>,
    /// Its markdown as written, without the heading line.
    pub body: String,
    /// Its paragraphs' plain text (for comparing with what is stored).
    pub paragraphs: Vec<String>,
}

/// A term and what it means.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The term as written.
    pub term: String,
    /// Its meaning (the definition's text, one paragraph).
    pub text: String,
    /// The section it is in (index into [`Triage::sections`]).
    pub section: usize,
}

/// A remark to remember (a note, a gotcha).
#[derive(Debug, Clone, PartialEq)]
pub struct Callout {
    /// `note`, `gotcha`, `warning`, `important`, `caveat` or `remember`.
    pub label: String,
    /// Its text, without the label.
    pub text: String,
    /// The section it is in.
    pub section: usize,
}

/// What a fenced code block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// A SQL query.
    Sql,
    /// Lore semantic-layer sources (`name` with `table` or `sql`).
    LoreModel,
    /// A dbt schema file (`models:` with columns).
    Dbt,
    /// MetricFlow semantic models or metrics.
    MetricFlow,
    /// Cube cubes or views.
    Cube,
    /// LookML views or explores.
    LookMl,
    /// Anything else.
    Other,
}

impl BlockKind {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockKind::Sql => "sql",
            BlockKind::LoreModel => "lore_semantic_layer",
            BlockKind::Dbt => "dbt",
            BlockKind::MetricFlow => "metricflow",
            BlockKind::Cube => "cube",
            BlockKind::LookMl => "lookml",
            BlockKind::Other => "other",
        }
    }

    /// Its name in messages.
    pub fn label(self) -> &'static str {
        match self {
            BlockKind::Sql => "SQL",
            BlockKind::LoreModel => "Lore semantic-layer",
            BlockKind::Dbt => "dbt",
            BlockKind::MetricFlow => "MetricFlow",
            BlockKind::Cube => "Cube",
            BlockKind::LookMl => "LookML",
            BlockKind::Other => "other",
        }
    }
}

/// A fenced code block.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeBlock {
    /// What it is called, when its author said (a measure's name).
    pub label: Option<String>,
    /// Its info string's language, lower-cased.
    pub lang: String,
    /// What it holds.
    pub kind: BlockKind,
    /// Its text.
    pub text: String,
    /// The section it is in.
    pub section: usize,
}

/// Everything triage found in a note.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Triage {
    /// The note's title: its lone first-level heading, else its first
    /// section's heading, else its first words.
    pub title: String,
    /// Its sections, in order.
    pub sections: Vec<Section>,
    /// Definitions, in order.
    pub definitions: Vec<Definition>,
    /// Notes to remember.
    pub callouts: Vec<Callout>,
    /// Fenced code blocks.
    pub blocks: Vec<CodeBlock>,
}

const CALLOUTS: [&str; 6] = [
    "note",
    "gotcha",
    "warning",
    "important",
    "caveat",
    "remember",
];
const TERM_HEADERS: [&str; 7] = ["term", "name", "metric", "concept", "field", "word", "kpi"];
const MEANING_HEADERS: [&str; 5] = [
    "definition",
    "description",
    "meaning",
    "explanation",
    "means",
];

fn level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// A heading: level, text, where its line starts and ends.
struct Heading {
    level: u8,
    text: String,
    start: usize,
    end: usize,
}

/// Collapses whitespace runs to one space and trims.
pub fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads a markdown note.
pub fn triage(markdown: &str) -> Triage {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let events: Vec<(Event<'_>, std::ops::Range<usize>)> = Parser::new_ext(markdown, options)
        .into_offset_iter()
        .collect();
    // Headings first: they decide the sections.
    let headings = headings(&events);
    let (title, ranges) = section_ranges(markdown, &events, &headings);
    let mut triage = Triage {
        title: title.clone(),
        ..Triage::default()
    };
    for (heading, start, end) in &ranges {
        triage.sections.push(Section {
            heading: if heading.is_empty() {
                title.clone()
            } else {
                heading.clone()
            },
            summary: None,
            body: markdown[*start..*end].trim().to_string(),
            paragraphs: Vec::new(),
        });
    }
    // One walk for paragraphs, definitions, notes, tables and code.
    let mut walk = Walk {
        ranges: &ranges,
        triage,
        paragraph: None,
        code: None,
        table: None,
        in_heading: false,
    };
    for (event, range) in &events {
        walk.event(event, range);
    }
    walk.triage
}

/// The note's headings, with their level, text and place.
fn headings(events: &[(Event<'_>, std::ops::Range<usize>)]) -> Vec<Heading> {
    let mut headings: Vec<Heading> = Vec::new();
    let mut open: Option<(u8, usize, String)> = None;
    for (event, range) in events {
        match event {
            Event::Start(Tag::Heading { level: l, .. }) => {
                open = Some((level(*l), range.start, String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, text)) = open.as_mut() {
                    text.push_str(t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((l, start, text)) = open.take() {
                    headings.push(Heading {
                        level: l,
                        text: squash(&text),
                        start,
                        end: range.end,
                    });
                }
            }
            _ => {}
        }
    }
    headings
}

/// The note's title (a lone first `#`, else the first section's heading,
/// else its first words) and its sections as (heading, start, end): the
/// text before the first cut (after the title), then each heading of the
/// highest repeated level to the next.
fn section_ranges(
    markdown: &str,
    events: &[(Event<'_>, std::ops::Range<usize>)],
    headings: &[Heading],
) -> (String, Vec<(String, usize, usize)>) {
    let mut title: Option<String> = None;
    let mut splitting: Vec<&Heading> = headings.iter().collect();
    if let Some(first) = headings.first()
        && first.level == 1
        && headings.iter().filter(|h| h.level == 1).count() == 1
    {
        title = Some(first.text.clone());
        splitting.remove(0);
    }
    let split_level = splitting.iter().map(|h| h.level).min();
    let cuts: Vec<&Heading> = splitting
        .into_iter()
        .filter(|h| Some(h.level) == split_level)
        .collect();
    let body_start = match (&title, headings.first()) {
        (Some(_), Some(first)) => first.end,
        _ => 0,
    };
    let mut ranges: Vec<(String, usize, usize)> = Vec::new();
    let first_cut = cuts.first().map_or(markdown.len(), |c| c.start);
    let preamble_start = body_start.max(front_matter_end(events));
    if !markdown[preamble_start.min(first_cut)..first_cut]
        .trim()
        .is_empty()
    {
        let heading = title.clone().unwrap_or_default();
        ranges.push((heading, preamble_start.min(first_cut), first_cut));
    }
    for (i, cut) in cuts.iter().enumerate() {
        let end = cuts.get(i + 1).map_or(markdown.len(), |next| next.start);
        ranges.push((cut.text.clone(), cut.end, end));
    }
    let title = title
        .or_else(|| cuts.first().map(|c| c.text.clone()))
        .unwrap_or_else(|| first_words(markdown));
    (title, ranges)
}

/// The walk over the note's events that files paragraphs, definitions,
/// notes, glossary tables and code blocks into their sections.
struct Walk<'r> {
    ranges: &'r [(String, usize, usize)],
    triage: Triage,
    paragraph: Option<Paragraph>,
    /// An open code block: its language, text and start.
    code: Option<(String, String, usize)>,
    table: Option<Table>,
    in_heading: bool,
}

impl Walk<'_> {
    /// The section holding `offset`. The ranges are in order: a binary
    /// search keeps a note of many sections and paragraphs linear enough.
    fn section_of(&self, offset: usize) -> usize {
        self.ranges
            .partition_point(|(_, start, _)| *start <= offset)
            .saturating_sub(1)
    }

    fn event(&mut self, event: &Event<'_>, range: &std::ops::Range<usize>) {
        match event {
            Event::Start(Tag::Heading { .. }) => self.in_heading = true,
            Event::End(TagEnd::Heading(_)) => self.in_heading = false,
            Event::Start(Tag::Paragraph) if self.table.is_none() => {
                self.paragraph = Some(Paragraph {
                    text: String::new(),
                    strong_first: None,
                    in_strong: false,
                    start: range.start,
                    events: 0,
                });
            }
            Event::Start(Tag::Strong) => {
                if let Some(p) = self.paragraph.as_mut()
                    && p.events == 0
                {
                    p.in_strong = true;
                    p.strong_first = Some(String::new());
                }
            }
            Event::End(TagEnd::Strong) => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.in_strong = false;
                    p.events += 1;
                }
            }
            Event::Text(t) | Event::Code(t) => self.text(t),
            Event::SoftBreak | Event::HardBreak => {
                if let Some(p) = self.paragraph.as_mut() {
                    p.text.push(' ');
                }
            }
            Event::End(TagEnd::Paragraph) => self.end_paragraph(),
            Event::Start(Tag::CodeBlock(_)) | Event::End(TagEnd::CodeBlock) => {
                self.code_event(event, range)
            }
            _ => self.table_event(event, range),
        }
    }

    /// Code blocks, with the language their fence names.
    fn code_event(&mut self, event: &Event<'_>, range: &std::ops::Range<usize>) {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .unwrap_or_default()
                        .to_lowercase(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new(), range.start));
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((lang, text, start)) = self.code.take() {
                    let kind = classify(&lang, &text);
                    let section = self.section_of(start);
                    self.triage.blocks.push(CodeBlock {
                        label: None,
                        lang,
                        kind,
                        text,
                        section,
                    });
                }
            }
            _ => {}
        }
    }

    /// Text goes to the open code block, table cell or paragraph (and to
    /// the bold words a paragraph opens with).
    fn text(&mut self, t: &str) {
        if let Some((_, text, _)) = self.code.as_mut() {
            text.push_str(t);
        } else if let Some(table) = self.table.as_mut() {
            table.cell.push_str(t);
        } else if let Some(p) = self.paragraph.as_mut() {
            p.text.push_str(t);
            if p.in_strong
                && let Some(s) = p.strong_first.as_mut()
            {
                s.push_str(t);
            } else {
                p.events += 1;
            }
        }
    }

    /// A paragraph ends: a callout becomes a note, a definition a
    /// glossary entry, and its text joins its section's paragraphs.
    fn end_paragraph(&mut self) {
        let Some(p) = self.paragraph.take() else {
            return;
        };
        let section = self.section_of(p.start);
        let text = squash(&p.text);
        if text.is_empty() || self.in_heading {
            return;
        }
        if let Some(callout) = callout_of(&text) {
            self.triage.callouts.push(Callout {
                label: callout.0,
                text: callout.1,
                section,
            });
        } else if let Some((term, meaning)) = definition_of(&p, &text) {
            self.triage.definitions.push(Definition {
                term,
                text: meaning,
                section,
            });
        }
        if let Some(s) = self.triage.sections.get_mut(section) {
            s.paragraphs.push(text);
        }
    }

    /// Tables: a glossary table's rows become definitions.
    fn table_event(&mut self, event: &Event<'_>, range: &std::ops::Range<usize>) {
        match event {
            Event::Start(Tag::Table(_)) => {
                self.table = Some(Table {
                    start: range.start,
                    ..Table::default()
                });
            }
            Event::End(TagEnd::TableCell) => {
                if let Some(t) = self.table.as_mut() {
                    let cell = squash(&std::mem::take(&mut t.cell));
                    t.row.push(cell);
                }
            }
            Event::End(TagEnd::TableHead) | Event::End(TagEnd::TableRow) => {
                if let Some(t) = self.table.as_mut() {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            Event::End(TagEnd::Table) => {
                if let Some(t) = self.table.take() {
                    let section = self.section_of(t.start);
                    self.triage.definitions.extend(glossary(&t.rows, section));
                }
            }
            _ => {}
        }
    }
}

struct Paragraph {
    text: String,
    /// The bold text the paragraph opens with.
    strong_first: Option<String>,
    in_strong: bool,
    start: usize,
    /// Inline pieces seen before any bold text.
    events: usize,
}

#[derive(Default)]
struct Table {
    start: usize,
    cell: String,
    row: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn front_matter_end(events: &[(Event<'_>, std::ops::Range<usize>)]) -> usize {
    events
        .iter()
        .find_map(|(e, r)| matches!(e, Event::End(TagEnd::MetadataBlock(_))).then_some(r.end))
        .unwrap_or(0)
}

fn first_words(markdown: &str) -> String {
    let words: Vec<&str> = markdown.split_whitespace().take(8).collect();
    let text = words.join(" ");
    if text.is_empty() {
        "note".to_string()
    } else {
        text
    }
}

/// `Note: …` (or `**Gotcha:** …`) → (label, text).
fn callout_of(text: &str) -> Option<(String, String)> {
    let (head, rest) = text.split_once(':')?;
    let label = head.trim().trim_matches('*').trim().to_lowercase();
    if CALLOUTS.contains(&label.as_str()) {
        let rest = rest.trim().trim_start_matches('*').trim();
        (!rest.is_empty()).then(|| (label, rest.to_string()))
    } else {
        None
    }
}

/// Words a sentence has and a term does not.
const SENTENCE_WORDS: [&str; 16] = [
    "is", "are", "was", "were", "be", "the", "this", "that", "it", "we", "you", "i", "our", "they",
    "see", "has",
];

/// Words a sentence starts with and a term does not.
const LEADING_WORDS: [&str; 24] = [
    "in", "on", "at", "for", "to", "from", "with", "by", "when", "if", "as", "after", "before",
    "during", "since", "because", "so", "but", "and", "or", "then", "also", "here", "there",
];

/// The labels of a document's metadata lines (`Owner: Data Platform
/// team.`, `Last updated: 2026-10-02`): facts about the page, never terms.
const METADATA_LABELS: [&str; 30] = [
    "owner",
    "owners",
    "owned by",
    "author",
    "authors",
    "written by",
    "maintainer",
    "maintainers",
    "maintained by",
    "contact",
    "contacts",
    "team",
    "audience",
    "status",
    "state",
    "version",
    "revision",
    "date",
    "created",
    "created by",
    "updated",
    "last updated",
    "last modified",
    "reviewed",
    "last reviewed",
    "reviewer",
    "reviewers",
    "approved by",
    "next review",
    "tags",
];

/// A term is a few words, not a sentence, nor a metadata label.
fn term_like(term: &str) -> bool {
    let words: Vec<String> = term.split_whitespace().map(str::to_lowercase).collect();
    !METADATA_LABELS.contains(&words.join(" ").trim_end_matches(':'))
        && (1..=6).contains(&words.len())
        && term.chars().count() <= 60
        && !term.ends_with('.')
        && term.chars().any(char::is_alphabetic)
        && !words.iter().any(|w| SENTENCE_WORDS.contains(&w.as_str()))
}

const LINKING: [&str; 6] = [
    "is ",
    "are ",
    "means ",
    "refers to ",
    "is defined as ",
    "— ",
];

fn definition_of(p: &Paragraph, text: &str) -> Option<(String, String)> {
    // **Term** is/means …  or  **Term**: …  or **Term** — …
    if let Some(term) = p.strong_first.as_deref().map(squash)
        && term_like(term.trim_end_matches(':'))
        && let Some(rest) = text.strip_prefix(&term)
    {
        let term = term.trim_end_matches(':').trim().to_string();
        let rest = rest.trim_start();
        let linked = rest.starts_with(':')
            || rest.starts_with('-')
            || LINKING.iter().any(|l| rest.to_lowercase().starts_with(l));
        if linked && rest.len() > 3 {
            return Some((term.clone(), format!("{term} {rest}").replace(" : ", ": ")));
        }
    }
    // Term: definition — a term is a name, not the start of a sentence
    // ("In practice: …", "For area 3, …: …").
    let (head, rest) = text.split_once(": ")?;
    let head = head.trim();
    let first = head
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_lowercase();
    if term_like(head)
        && head.split_whitespace().count() <= 4
        && !head.contains([',', ';', '(', ')', '"', '`'])
        && !LEADING_WORDS.contains(&first.as_str())
        && head.chars().next().is_some_and(char::is_uppercase)
        && rest.split_whitespace().count() >= 3
        && !head.contains("http")
    {
        return Some((head.to_string(), format!("{head}: {}", rest.trim())));
    }
    None
}

fn glossary(rows: &[Vec<String>], section: usize) -> Vec<Definition> {
    let Some(header) = rows.first() else {
        return Vec::new();
    };
    let find = |names: &[&str]| {
        header
            .iter()
            .position(|h| names.contains(&h.trim().to_lowercase().as_str()))
    };
    let (Some(term_col), Some(meaning_col)) = (find(&TERM_HEADERS), find(&MEANING_HEADERS)) else {
        return Vec::new();
    };
    rows.iter()
        .skip(1)
        .filter_map(|row| {
            let term = row.get(term_col)?.trim().trim_matches('`').to_string();
            let meaning = row.get(meaning_col)?.trim().to_string();
            (term_like(&term) && !meaning.is_empty()).then(|| Definition {
                text: format!("{term}: {meaning}"),
                term,
                section,
            })
        })
        .collect()
}

/// Whether `text` (lower case) opens with `SELECT` or `WITH`, after any
/// comments and whatever whitespace follows the keyword (`SELECT\n  sum(…)`).
fn starts_like_sql(text: &str) -> bool {
    let mut rest = text.trim_start();
    loop {
        if let Some(comment) = rest.strip_prefix("--") {
            rest = comment.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(comment) = rest.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else {
            break;
        }
    }
    let keyword = rest
        .split(|c: char| c.is_whitespace() || c == '(' || c == '*')
        .next()
        .unwrap_or_default();
    matches!(keyword, "select" | "with") && rest.len() > keyword.len()
}

/// What a fenced block holds, from its language and its text.
pub fn classify(lang: &str, text: &str) -> BlockKind {
    let trimmed = text.trim_start().to_lowercase();
    match lang {
        "sql" | "postgresql" | "postgres" | "mysql" | "sqlite" | "bigquery" | "snowflake"
        | "duckdb" | "tsql" | "clickhouse" => return BlockKind::Sql,
        "lookml" | "lkml" => return BlockKind::LookMl,
        // Cube's JavaScript model files: `cube(`orders`, { ... })`.
        "js" | "javascript" | "ts" | "typescript"
            if trimmed.contains("cube(") || trimmed.contains("view(") =>
        {
            return BlockKind::Cube;
        }
        _ => {}
    }
    if lang.is_empty() && starts_like_sql(&trimmed) {
        return BlockKind::Sql;
    }
    if trimmed.starts_with("view:")
        || trimmed.starts_with("explore:")
        || trimmed.contains("\nexplore:")
    {
        return BlockKind::LookMl;
    }
    if !(lang.is_empty() || lang == "yaml" || lang == "yml") {
        return BlockKind::Other;
    }
    let Ok(value) = serde_saphyr::from_str::<serde_json::Value>(text) else {
        return BlockKind::Other;
    };
    let has = |v: &serde_json::Value, k: &str| v.get(k).is_some();
    if has(&value, "semantic_models") || (has(&value, "metrics") && text.contains("type_params")) {
        return BlockKind::MetricFlow;
    }
    if has(&value, "cubes") || has(&value, "views") && text.contains("sql_table") {
        return BlockKind::Cube;
    }
    if has(&value, "models") || has(&value, "sources") && has(&value, "version") {
        return BlockKind::Dbt;
    }
    let lore_source = |v: &serde_json::Value| {
        has(v, "name")
            && (has(v, "table") || has(v, "sql"))
            && (has(v, "columns") || has(v, "measures") || has(v, "grain"))
    };
    match &value {
        serde_json::Value::Array(items) if !items.is_empty() && items.iter().all(lore_source) => {
            BlockKind::LoreModel
        }
        v if lore_source(v) => BlockKind::LoreModel,
        _ => BlockKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HANDBOOK: &str = r#"---
owner: finance
---
# Finance handbook

How the finance team counts money.

## Revenue

**Revenue** is the sum of paid invoice amounts, net of refunds.

Note: invoices in `billing.invoices` are in cents.

```sql
SELECT SUM(amount) AS revenue FROM invoices WHERE status = 'paid'
```

## Glossary

| Term | Definition |
|------|------------|
| ARR | Annual recurring revenue: twelve times the monthly recurring revenue |
| Churn | Customers who cancelled in the month |

Active customer: a customer with at least one paid invoice in the last 90 days.

### Sub-heading stays inside

More text.
"#;

    #[test]
    fn a_note_splits_into_sections_under_its_title() {
        let t = triage(HANDBOOK);
        assert_eq!(t.title, "Finance handbook");
        let headings: Vec<&str> = t.sections.iter().map(|s| s.heading.as_str()).collect();
        assert_eq!(headings, ["Finance handbook", "Revenue", "Glossary"]);
        assert_eq!(t.sections[0].body, "How the finance team counts money.");
        assert!(t.sections[2].body.contains("### Sub-heading stays inside"));
        assert!(
            !t.sections[0].body.contains("owner: finance"),
            "front matter is not text"
        );
    }

    #[test]
    fn definitions_come_from_bold_terms_term_lines_and_glossary_tables() {
        let t = triage(HANDBOOK);
        let terms: Vec<(&str, usize)> = t
            .definitions
            .iter()
            .map(|d| (d.term.as_str(), d.section))
            .collect();
        assert_eq!(
            terms,
            [
                ("Revenue", 1),
                ("ARR", 2),
                ("Churn", 2),
                ("Active customer", 2)
            ]
        );
        assert_eq!(
            t.definitions[0].text,
            "Revenue is the sum of paid invoice amounts, net of refunds."
        );
        assert_eq!(
            t.definitions[1].text,
            "ARR: Annual recurring revenue: twelve times the monthly recurring revenue"
        );
    }

    #[test]
    fn notes_and_code_blocks_are_told_apart() {
        let t = triage(HANDBOOK);
        assert_eq!(t.callouts.len(), 1);
        assert_eq!(t.callouts[0].label, "note");
        assert_eq!(
            t.callouts[0].text,
            "invoices in billing.invoices are in cents."
        );
        assert_eq!(t.blocks.len(), 1);
        assert_eq!(t.blocks[0].kind, BlockKind::Sql);
        assert_eq!(t.blocks[0].section, 1);
        for (lang, text, kind) in [
            (
                "yaml",
                "name: orders\ntable: public.orders\ngrain: [id]\n",
                BlockKind::LoreModel,
            ),
            (
                "yaml",
                "semantic_models:\n  - name: orders\n",
                BlockKind::MetricFlow,
            ),
            (
                "yml",
                "version: 2\nmodels:\n  - name: orders\n",
                BlockKind::Dbt,
            ),
            (
                "yaml",
                "cubes:\n  - name: orders\n    sql_table: orders\n",
                BlockKind::Cube,
            ),
            (
                "",
                "view: orders {\n  sql_table_name: orders ;;\n}\n",
                BlockKind::LookMl,
            ),
            ("", "with x as (select 1) select * from x", BlockKind::Sql),
            (
                "",
                "SELECT\n    sum(total_cents)/100.0/count(*) AS aov\nFROM invoices\n",
                BlockKind::Sql,
            ),
            ("", "-- paid only\n/* dollars */ select 1", BlockKind::Sql),
            ("", "selection criteria", BlockKind::Other),
            ("python", "print(1)", BlockKind::Other),
            ("yaml", "a: [unclosed", BlockKind::Other),
        ] {
            assert_eq!(classify(lang, text), kind, "{text}");
        }
    }

    #[test]
    fn sentences_with_colons_are_not_definitions() {
        let t = triage(
            "The reason is simple: nobody reads the logs.\n\nSee https://example.com: it explains more than enough.\n\nIn area 3, paragraph 1: the team records each case.\n\nIn practice: we count cases twice a week.\n",
        );
        assert!(t.definitions.is_empty(), "{:?}", t.definitions);
        assert_eq!(t.sections.len(), 1);
        // A document's metadata lines are not glossary terms.
        let header = triage(
            "# Revenue metrics\n\nOwner: Data Platform team.\n\nLast updated: 2026-10-02 by the finance analysts\n\n**Status:** approved by the finance team\n\nPaid invoice: an invoice whose status is paid.\n",
        );
        let terms: Vec<&str> = header.definitions.iter().map(|d| d.term.as_str()).collect();
        assert_eq!(terms, ["Paid invoice"]);
        assert_eq!(t.title, "The reason is simple: nobody reads the logs.");
    }
}
