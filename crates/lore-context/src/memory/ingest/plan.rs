//! From a triaged note to the writes of one run: the wiki pages (a page
//! per section, a glossary page per defined term), the semantic-layer
//! files, the memory notes, and what was captured, skipped or
//! contradicted.
//!
//! Nothing is duplicated: a section whose subject already has a page adds
//! to that page only the paragraphs it does not hold yet (a new version in
//! its history; the same note twice changes nothing); a term already
//! defined otherwise keeps both definitions on its page, with their
//! sources, and the run warns about the contradiction.

use std::collections::BTreeMap;

use serde_json::Value;

use lore_core::limits::SqlLimits;

use super::bounds;
use super::triage::{BlockKind, Triage, squash};
use super::{Captured, CapturedItem, Skipped, Xref};
use crate::wiki::page::{self, FrontMatter};

/// A page as it is now: its key, front matter and body.
#[derive(Debug, Clone)]
pub struct ExistingPage {
    /// Its key.
    pub key: String,
    /// Its front matter.
    pub front: FrontMatter,
    /// Its markdown.
    pub body: String,
    /// Its version (to refuse a write over a change made meanwhile).
    pub version: i64,
}

/// A page to write.
#[derive(Debug, Clone)]
pub struct PagePlan {
    /// Its key (global scope).
    pub key: String,
    /// Its whole file.
    pub content: String,
    /// The version it must be at (0: must not exist).
    pub expected_version: i64,
}

/// A memory note to write.
#[derive(Debug, Clone)]
pub struct NotePlan {
    /// Its topic.
    pub topic: String,
    /// Its text.
    pub content: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Where it came from.
    pub source: String,
}

/// A semantic-layer file to write.
#[derive(Debug, Clone)]
pub struct ModelPlan {
    /// The file name in the connection's folder.
    pub file: String,
    /// Its text.
    pub content: String,
}

/// A query the note holds, to try as a measure.
#[derive(Debug, Clone)]
pub struct QueryPlan {
    /// The section it is in.
    pub section: String,
    /// The SQL.
    pub sql: String,
}

/// The writes of one run and what they capture.
#[derive(Debug, Default)]
pub struct Plan {
    /// MetricFlow, LookML and Cube blocks to import (with a connection):
    /// what the block holds, its section, its text.
    pub imports: Vec<(BlockKind, String, String)>,
    /// Queries to try as semantic-layer measures (with a connection).
    pub queries: Vec<QueryPlan>,
    /// Pages to create or update.
    pub pages: Vec<PagePlan>,
    /// Notes to store.
    pub notes: Vec<NotePlan>,
    /// Model files to add.
    pub models: Vec<ModelPlan>,
    /// What the run captures.
    pub captured: Captured,
    /// What it leaves out, and why.
    pub skipped: Vec<Skipped>,
    /// Contradictions and other things to look at.
    pub warnings: Vec<String>,
    /// Semantic-layer items (sources and measures) the run may still add
    /// (`limits.ingest_items`, less its notes and the model files above).
    pub items_left: usize,
}

/// What the planner may look at.
pub struct Context<'a> {
    /// The run's id (recorded in the pages it writes).
    pub run_id: &'a str,
    /// Where the note came from (its front matter's `source`, else its
    /// title).
    pub source: &'a str,
    /// The connection the note is about.
    pub connection: Option<&'a str>,
    /// The live global pages, by key.
    pub pages: &'a BTreeMap<String, ExistingPage>,
    /// The connection's scanned tables: lower-cased name → (name as
    /// scanned, column names).
    pub tables: &'a BTreeMap<String, (String, Vec<String>)>,
    /// Existing model file names of the connection.
    pub model_files: &'a [String],
    /// The project's limits: what a block may be to be read, how many
    /// pages and items one run files.
    pub limits: &'a SqlLimits,
}

/// Up to 300 characters of one line: a page's summary.
fn summary_of(text: &str, fallback: &str) -> String {
    let line = squash(text);
    let first = line
        .split_inclusive(". ")
        .next()
        .unwrap_or(&line)
        .trim()
        .to_string();
    let chosen = if first.is_empty() {
        squash(fallback)
    } else {
        first
    };
    if chosen.chars().count() <= page::SUMMARY_CHARS {
        chosen
    } else {
        let cut: String = chosen.chars().take(page::SUMMARY_CHARS - 1).collect();
        format!("{cut}…")
    }
}

/// The first line of text of a body without paragraphs (a list's first
/// item), without its list marker.
fn first_line(body: &str) -> &str {
    body.lines()
        .map(str::trim)
        .find(|l| {
            !l.is_empty() && !l.starts_with('#') && !l.starts_with("```") && !l.starts_with('|')
        })
        .map(|l| l.trim_start_matches(['-', '*', '+', ' ']))
        .unwrap_or("")
}

fn normal(text: &str) -> String {
    squash(text)
        .to_lowercase()
        .trim_end_matches(['.', '!', ';'])
        .to_string()
}

fn add_unique(list: &mut Vec<String>, value: &str) {
    if !list.iter().any(|v| v == value) {
        list.push(value.to_string());
    }
}

/// The page key a subject gets: its slug, or an existing page whose
/// title says the same (so "Revenue" and "revenue" are one page). A term
/// that already has a page of its own (`mrr`) is defined there rather
/// than on a new glossary page.
fn key_for(heading: &str, prefix: &str, pages: &BTreeMap<String, ExistingPage>) -> String {
    // Keys hold at most 120 characters, the prefix included.
    let room = page::KEY_CHARS - prefix.len();
    let slug: String = page::slug(heading).chars().take(room).collect();
    let slug = slug.trim_end_matches(['-', '/', '.']).to_string();
    let key = format!("{prefix}{slug}");
    if pages.contains_key(&key) {
        return key;
    }
    if !prefix.is_empty() && pages.contains_key(&slug) {
        return slug;
    }
    let wanted = normal(heading);
    pages
        .values()
        .find(|p| {
            p.key.starts_with(prefix) && page::title(&p.body).is_some_and(|t| normal(&t) == wanted)
        })
        .map_or(key, |p| p.key.clone())
}

/// The body's paragraphs (blank-line separated), normalised, for telling
/// what a page already says.
fn paragraphs_of(body: &str) -> Vec<String> {
    body.split("\n\n")
        .map(normal)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Plans the writes for `triage`, within the run's limits: glossary
/// pages first (section pages link to them), a page per section, notes to
/// remember, cross-references to the scan, then the code blocks.
pub fn plan(triage: &Triage, cx: &Context<'_>) -> Plan {
    let selection = bounds::select(triage, cx.limits);
    let mut planner = Planner {
        triage,
        cx,
        plan: Plan {
            skipped: selection.skipped,
            items_left: selection.items_left,
            ..Plan::default()
        },
        planned: BTreeMap::new(),
    };
    let glossary_keys = planner.glossary_pages(&selection.definitions);
    planner.section_pages(selection.sections, &glossary_keys);
    planner.plan.pages = std::mem::take(&mut planner.planned).into_values().collect();
    keep_within_store_limits(&mut planner.plan);
    planner.notes(&selection.callouts);
    // Tables and columns the note names that the latest scan has.
    let text = triage
        .sections
        .iter()
        .take(selection.sections)
        .map(|s| s.body.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    planner.plan.captured.xrefs = xrefs(&text, cx.tables);
    planner.blocks(&selection.blocks, selection.items_left);
    planner.plan
}

/// A plan being made, with the wiki pages planned so far by key.
struct Planner<'a> {
    triage: &'a Triage,
    cx: &'a Context<'a>,
    plan: Plan,
    planned: BTreeMap<String, PagePlan>,
}

impl Planner<'_> {
    /// The heading of a section (the note's title for parts outside one).
    fn heading(&self, section: usize) -> &str {
        self.triage
            .sections
            .get(section)
            .map_or(self.triage.title.as_str(), |s| s.heading.as_str())
    }

    /// A glossary page per defined term (a term's own page when one
    /// exists); returns the keys each section's definitions went to.
    fn glossary_pages(
        &mut self,
        definitions: &[&super::triage::Definition],
    ) -> BTreeMap<usize, Vec<String>> {
        let cx = self.cx;
        let mut glossary_keys: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for definition in definitions {
            let key = key_for(&definition.term, "glossary/", cx.pages);
            glossary_keys
                .entry(definition.section)
                .or_default()
                .push(key.clone());
            let Some((mut front, body)) = self.glossary_text(definition, &key) else {
                self.plan
                    .captured
                    .wiki
                    .push(CapturedItem::unchanged(&key, "definition"));
                continue;
            };
            add_unique(&mut front.sources, cx.source);
            add_unique(&mut front.ingest_runs, cx.run_id);
            let expected_version = cx.pages.get(&key).map_or(0, |p| p.version);
            let created = expected_version == 0 && !self.planned.contains_key(&key);
            self.planned.insert(
                key.clone(),
                PagePlan {
                    key: key.clone(),
                    content: page::render(&front, &body),
                    expected_version,
                },
            );
            self.plan.captured.wiki.push(CapturedItem::new(
                &key,
                "definition",
                if created { "created" } else { "updated" },
            ));
        }
        glossary_keys
    }

    /// A glossary page's front matter and body with the definition added
    /// (`- text — _source_`), or `None` when the page says it already. A
    /// different definition is kept beside the old one, with a warning.
    fn glossary_text(
        &mut self,
        definition: &super::triage::Definition,
        key: &str,
    ) -> Option<(FrontMatter, String)> {
        let cx = self.cx;
        let line = format!("{} — _{}_", squash(&definition.text), cx.source);
        let existing = self
            .planned
            .get(key)
            .map(|p| page::parse(&p.content).ok())
            .unwrap_or_else(|| cx.pages.get(key).map(|p| (p.front.clone(), p.body.clone())));
        let Some((front, body)) = existing else {
            let front = FrontMatter {
                summary: Some(summary_of(&definition.text, &definition.term)),
                tags: vec!["glossary".into(), "definition".into()],
                ..FrontMatter::default()
            };
            return Some((front, format!("# {}\n\n- {line}\n", definition.term)));
        };
        // Definition lines are the ones ingest writes: `- text — _source_`;
        // a page's other bullets are not.
        let others: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter(|l| l.contains(" — _") && l.ends_with('_'))
            .collect();
        let said: Vec<String> = others
            .iter()
            .map(|l| normal(l.split(" — _").next().unwrap_or(l)))
            .collect();
        if said.contains(&normal(&definition.text))
            || paragraphs_of(&body).contains(&normal(&definition.text))
        {
            return None;
        }
        if !others.is_empty() {
            self.plan.warnings.push(format!(
                "`{}` is defined differently: now \"{}\" ({}); before {} — both are kept on wiki page {key}",
                definition.term,
                squash(&definition.text),
                cx.source,
                others
                    .iter()
                    .map(|o| format!("\"{o}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Some((front, format!("{}\n- {line}\n", body.trim_end())))
    }

    /// A page per section filed: an existing subject's page gets only the
    /// paragraphs it lacks; two sections of one subject make one page.
    fn section_pages(&mut self, sections: usize, glossary_keys: &BTreeMap<usize, Vec<String>>) {
        let cx = self.cx;
        for (index, section) in self.triage.sections.iter().enumerate().take(sections) {
            let key = key_for(&section.heading, "", cx.pages);
            let refs = glossary_keys.get(&index).cloned().unwrap_or_default();
            match cx.pages.get(&key) {
                Some(existing) => self.update_section_page(&key, existing, section, &refs),
                None => self.new_section_page(&key, section, refs),
            }
        }
    }

    fn update_section_page(
        &mut self,
        key: &str,
        existing: &ExistingPage,
        section: &super::triage::Section,
        refs: &[String],
    ) {
        let cx = self.cx;
        let held = paragraphs_of(&existing.body);
        let new: Vec<&str> = section
            .body
            .split("\n\n")
            .filter(|p| !p.trim().is_empty() && !held.contains(&normal(p)))
            .collect();
        if new.is_empty() {
            self.plan
                .captured
                .wiki
                .push(CapturedItem::unchanged(key, "section"));
            return;
        }
        let mut front = existing.front.clone();
        add_unique(&mut front.sources, cx.source);
        add_unique(&mut front.ingest_runs, cx.run_id);
        for r in refs {
            add_unique(&mut front.refs, r);
        }
        let body = format!("{}\n\n{}\n", existing.body.trim_end(), new.join("\n\n"));
        self.planned.insert(
            key.to_string(),
            PagePlan {
                key: key.to_string(),
                content: page::render(&front, &body),
                expected_version: existing.version,
            },
        );
        self.plan
            .captured
            .wiki
            .push(CapturedItem::new(key, "section", "updated"));
    }

    fn new_section_page(&mut self, key: &str, section: &super::triage::Section, refs: Vec<String>) {
        let cx = self.cx;
        if let Some(p) = self.planned.get_mut(key) {
            // Two sections of one note with one subject: the second joins
            // the first.
            if let Ok((front, body)) = page::parse(&p.content) {
                p.content = page::render(
                    &front,
                    &format!("{}\n\n{}\n", body.trim_end(), section.body),
                );
            }
            return;
        }
        let front = FrontMatter {
            summary: Some(match &section.summary {
                Some(given) => summary_of(given, &section.heading),
                None => summary_of(
                    section
                        .paragraphs
                        .first()
                        .map_or_else(|| first_line(&section.body), String::as_str),
                    &section.heading,
                ),
            }),
            tags: vec!["ingested".into()],
            refs,
            sources: vec![cx.source.to_string()],
            ingest_runs: vec![cx.run_id.to_string()],
            ..FrontMatter::default()
        };
        let body = format!("# {}\n\n{}\n", section.heading, section.body);
        self.planned.insert(
            key.to_string(),
            PagePlan {
                key: key.to_string(),
                content: page::render(&front, &body),
                expected_version: 0,
            },
        );
        self.plan
            .captured
            .wiki
            .push(CapturedItem::new(key, "section", "created"));
    }

    /// Notes to remember, one memory entry per section and label; a note
    /// over the store's limit stays in the wiki page only.
    fn notes(&mut self, callouts: &[&super::triage::Callout]) {
        let cx = self.cx;
        let note_limit = lore_store::EntryKind::Note.max_content_bytes();
        for callout in callouts {
            let heading = self.heading(callout.section).to_string();
            if callout.text.len() > note_limit {
                self.plan.skipped.push(Skipped {
                    section: heading,
                    what: callout.label.clone(),
                    reason: format!(
                        "the note is {} bytes, over the store's limit of {note_limit} bytes per memory note; it stays in the wiki page only",
                        callout.text.len()
                    ),
                });
                continue;
            }
            let topic = format!("{}: {}", heading, callout.label);
            let topic: String = topic.chars().take(200).collect();
            // Two notes of one label in one section are one entry (the
            // store takes a topic once per write).
            if let Some(same) = self.plan.notes.iter_mut().find(|n| n.topic == topic) {
                if same.content.len() + callout.text.len() + 2 <= note_limit {
                    same.content = format!("{}\n\n{}", same.content, callout.text);
                } else {
                    self.plan.skipped.push(Skipped {
                        section: heading,
                        what: callout.label.clone(),
                        reason: format!(
                            "the section's {} notes together are over the store's limit of {note_limit} bytes per memory note; this one stays in the wiki page only",
                            callout.label
                        ),
                    });
                }
                continue;
            }
            self.plan.notes.push(NotePlan {
                topic: topic.clone(),
                content: callout.text.clone(),
                tags: vec![callout.label.clone(), "ingested".into()],
                source: cx
                    .source
                    .chars()
                    .take(lore_store::MAX_SOURCE_CHARS)
                    .collect(),
            });
            self.plan
                .captured
                .memory
                .push(CapturedItem::new(&topic, &callout.label, "stored"));
        }
    }

    /// Code blocks: each measured before anything parses it; at most as
    /// many read as the run may still add items.
    fn blocks(&mut self, blocks: &[&super::triage::CodeBlock], items_left: usize) {
        let cx = self.cx;
        let mut unread: Option<(String, usize)> = None;
        let mut reads = 0;
        for block in blocks {
            let section = self.heading(block.section).to_string();
            if let Some(why) = bounds::block_limit(block, cx.limits) {
                self.plan
                    .skipped
                    .push(Skipped::new(&section, block.kind, &why));
                continue;
            }
            let read = cx.connection.is_some()
                && matches!(
                    block.kind,
                    BlockKind::LoreModel
                        | BlockKind::Sql
                        | BlockKind::MetricFlow
                        | BlockKind::Cube
                        | BlockKind::LookMl
                );
            if read && reads >= items_left {
                unread.get_or_insert((section, 0)).1 += 1;
                continue;
            }
            reads += usize::from(read);
            self.block(block, &section);
        }
        if let Some((section, count)) = unread {
            self.plan.skipped.push(bounds::left_out(
                &section,
                "block",
                count,
                "limits.ingest_items",
                cx.limits.ingest_items,
            ));
        }
    }

    /// What one code block becomes: a model file, a query to turn into a
    /// measure, an import, or a line in `skipped` saying why not.
    fn block(&mut self, block: &super::triage::CodeBlock, section: &str) {
        let cx = self.cx;
        let skip =
            |plan: &mut Plan, why: &str| plan.skipped.push(Skipped::new(section, block.kind, why));
        match block.kind {
            BlockKind::LoreModel => match cx.connection {
                None => skip(
                    &mut self.plan,
                    "semantic-layer YAML needs connectionId (the connection it describes); it stays in the wiki page only",
                ),
                Some(_) => self.model_block(block, section),
            },
            BlockKind::Sql => match cx.connection {
                None => skip(
                    &mut self.plan,
                    "SQL is kept in the wiki page; give connectionId to turn an aggregate query into a semantic-layer measure",
                ),
                Some(_) => self.plan.queries.push(QueryPlan {
                    section: block.label.clone().unwrap_or_else(|| section.to_string()),
                    sql: block.text.clone(),
                }),
            },
            BlockKind::MetricFlow | BlockKind::Cube | BlockKind::LookMl => match cx.connection {
                None => skip(
                    &mut self.plan,
                    &format!(
                        "{} definitions need connectionId (the connection they describe); they stay in the wiki page only",
                        block.kind.label()
                    ),
                ),
                Some(_) => {
                    self.plan
                        .imports
                        .push((block.kind, section.to_string(), block.text.clone()))
                }
            },
            BlockKind::Dbt => skip(
                &mut self.plan,
                "dbt model YAML without semantic models is kept in the wiki page; its column descriptions are imported with the MetricFlow semantic models that use those models (paste both in one block)",
            ),
            BlockKind::Other => {}
        }
    }

    /// A Lore semantic-layer block as a new model file, within the run's
    /// items; an existing file is not replaced from a note.
    fn model_block(&mut self, block: &super::triage::CodeBlock, section: &str) {
        let cx = self.cx;
        let name = model_name(&block.text).unwrap_or_else(|| page::slug(section));
        let file = format!("{}.yaml", page::slug(&name).replace(['/', '.'], "-"));
        let items = model_items(&file, &block.text);
        if cx.model_files.contains(&file) {
            self.plan.skipped.push(Skipped::new(
                section,
                block.kind,
                &format!("semantic-layer file {file} exists already; edit it (sl_read_source shows it) rather than replacing it from a note"),
            ));
        } else if items > self.plan.items_left {
            self.plan.skipped.push(Skipped::new(
                section,
                block.kind,
                &format!("{file} ({items} items: its sources and measures) was not filed: limits.ingest_items in lore.yaml allows {} per memory_ingest run and {} are left; split the note, or raise limits.ingest_items", cx.limits.ingest_items, self.plan.items_left),
            ));
        } else {
            self.plan.items_left -= items;
            self.plan.models.push(ModelPlan {
                file: file.clone(),
                content: block.text.clone(),
            });
            self.plan
                .captured
                .sl
                .push(CapturedItem::new(&file, "source", "created"));
        }
    }
}

/// Leaves out the pages and notes the store would refuse (a page over
/// its size limit, a note over its own), each listed in `skipped` with
/// the limit, so that the rest of the note is filed.
fn keep_within_store_limits(plan: &mut Plan) {
    use lore_store::EntryKind;
    let page_limit = EntryKind::Wiki.max_content_bytes();
    let (kept, too_big): (Vec<PagePlan>, Vec<PagePlan>) = std::mem::take(&mut plan.pages)
        .into_iter()
        .partition(|p| p.content.len() <= page_limit);
    plan.pages = kept;
    for page in too_big {
        plan.captured.wiki.retain(|c| c.id != page.key);
        plan.skipped.push(Skipped {
            section: page.key.clone(),
            what: "page".into(),
            reason: format!(
                "the page would be {} bytes, over the store's limit of {page_limit} bytes per wiki page; split the section (or the page it adds to) into smaller ones",
                page.content.len()
            ),
        });
    }
}

/// The items a model file adds: each source and each of its measures (a
/// file that does not parse counts one; the model check refuses it).
fn model_items(file: &str, text: &str) -> usize {
    lore_semantic::model::parse_file(std::path::Path::new(file), text)
        .map_or(1, |sources| {
            sources.iter().map(|s| 1 + s.measures.len()).sum()
        })
        .max(1)
}

fn model_name(text: &str) -> Option<String> {
    let value: Value = serde_saphyr::from_str(text).ok()?;
    let first = match &value {
        Value::Array(items) => items.first()?,
        other => other,
    };
    first.get("name")?.as_str().map(str::to_string)
}

/// The scanned tables (and `table.column`s) a text names, as whole words.
fn xrefs(text: &str, tables: &BTreeMap<String, (String, Vec<String>)>) -> Vec<Xref> {
    let mut found: Vec<Xref> = Vec::new();
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    for word in &words {
        let parts: Vec<&str> = word.split('.').collect();
        // `table`, `schema.table`, `table.column`, `schema.table.column`.
        for (at, part) in parts.iter().enumerate() {
            let Some((name, columns)) = tables.get(*part) else {
                continue;
            };
            let column = parts
                .get(at + 1)
                .and_then(|c| columns.iter().find(|col| col.to_lowercase() == *c))
                .cloned();
            let xref = Xref {
                table: name.clone(),
                column,
            };
            if !found.contains(&xref) {
                found.push(xref);
            }
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::triage::triage;
    use super::*;

    fn context<'a>(
        pages: &'a BTreeMap<String, ExistingPage>,
        tables: &'a BTreeMap<String, (String, Vec<String>)>,
    ) -> Context<'a> {
        Context {
            run_id: "run-1",
            source: "handbook",
            connection: None,
            pages,
            tables,
            model_files: &[],
            limits: &LIMITS,
        }
    }

    static LIMITS: std::sync::LazyLock<SqlLimits> = std::sync::LazyLock::new(SqlLimits::default);

    fn existing(plan: &Plan) -> BTreeMap<String, ExistingPage> {
        plan.pages
            .iter()
            .map(|p| {
                let (front, body) = page::parse(&p.content).unwrap();
                (
                    p.key.clone(),
                    ExistingPage {
                        key: p.key.clone(),
                        front,
                        body,
                        version: 1,
                    },
                )
            })
            .collect()
    }

    #[test]
    fn the_same_note_twice_plans_nothing_the_second_time() {
        let note = triage(
            "# Revenue\n\n**Revenue** is the sum of paid invoices.\n\nIt excludes refunds.\n",
        );
        let tables = BTreeMap::new();
        let none = BTreeMap::new();
        let first = plan(&note, &context(&none, &tables));
        let keys: Vec<&str> = first.pages.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["glossary/revenue", "revenue"]);
        let pages = existing(&first);
        let second = plan(&note, &context(&pages, &tables));
        assert!(second.pages.is_empty(), "{:?}", second.pages);
        assert!(second.captured.wiki.iter().all(|c| c.action == "unchanged"));
    }

    #[test]
    fn a_different_definition_is_kept_beside_the_old_one_and_warned_about() {
        let tables = BTreeMap::new();
        let none = BTreeMap::new();
        let first = plan(
            &triage("**Churn** is customers who cancelled in the month.\n"),
            &context(&none, &tables),
        );
        let pages = existing(&first);
        let second = plan(
            &triage("**Churn** is revenue lost to cancellations in the quarter.\n"),
            &context(&pages, &tables),
        );
        assert_eq!(second.warnings.len(), 1, "{:?}", second.warnings);
        assert!(second.warnings[0].contains("`Churn` is defined differently"));
        let glossary = second
            .pages
            .iter()
            .find(|p| p.key == "glossary/churn")
            .unwrap();
        assert!(glossary.content.contains("customers who cancelled"));
        assert!(glossary.content.contains("revenue lost to cancellations"));
        assert_eq!(glossary.expected_version, 1);
    }

    #[test]
    fn new_paragraphs_join_the_page_of_their_subject() {
        let tables = BTreeMap::new();
        let none = BTreeMap::new();
        let first = plan(
            &triage("## Refunds\n\nRefunds are netted monthly.\n"),
            &context(&none, &tables),
        );
        let pages = existing(&first);
        let second = plan(
            &triage("## refunds\n\nRefunds are netted monthly.\n\nPartial refunds count too.\n"),
            &context(&pages, &tables),
        );
        let keys: Vec<&str> = second.pages.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["refunds"], "{:?}", second.pages);
        let page = &second.pages[0];
        assert_eq!(page.key, "refunds");
        let (_, body) = page::parse(&page.content).unwrap();
        assert_eq!(
            body.matches("Refunds are netted monthly.").count(),
            1,
            "{body}"
        );
        assert!(body.contains("Partial refunds count too."));
    }

    #[test]
    fn a_run_files_at_most_its_pages_and_notes_and_says_what_it_left_out() {
        let note: String = (0..300)
            .map(|i| format!("## Heading {i}\n\n**Term {i}** is the thing number {i}.\n\nNote: remember {i}.\n\n"))
            .collect();
        let tables = BTreeMap::new();
        let none = BTreeMap::new();
        let limits = SqlLimits {
            ingest_pages: 150,
            ingest_items: 20,
            ..SqlLimits::default()
        };
        let cx = Context {
            limits: &limits,
            ..context(&none, &tables)
        };
        let planned = plan(&triage(&note), &cx);
        // Sections come first: 150 section pages, no room for glossary pages.
        assert_eq!(planned.pages.len(), 150);
        assert!(
            planned
                .pages
                .iter()
                .all(|p| !p.key.starts_with("glossary/"))
        );
        assert_eq!(planned.notes.len(), 20);
        let skipped: Vec<(&str, &str)> = planned
            .skipped
            .iter()
            .map(|s| (s.what.as_str(), s.section.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                ("section", "Heading 150"),
                ("definition", "Heading 0"),
                ("note", "Heading 20")
            ]
        );
        assert!(planned.skipped[0].reason.starts_with("150 sections from here on were not filed: limits.ingest_pages in lore.yaml allows 150"), "{:?}", planned.skipped[0]);
        assert!(planned.skipped[1].reason.contains("300 definitions"));
        assert!(
            planned.skipped[2].reason.contains("280 notes")
                && planned.skipped[2].reason.contains("limits.ingest_items")
        );
        // With room left, definitions of the filed sections get pages.
        let roomy = SqlLimits {
            ingest_pages: 310,
            ..SqlLimits::default()
        };
        let cx = Context {
            limits: &roomy,
            ..context(&none, &tables)
        };
        let planned = plan(&triage(&note), &cx);
        assert_eq!(planned.pages.len(), 310);
        assert_eq!(planned.skipped[0].what, "definition");
        assert!(
            planned.skipped[0].reason.starts_with("290 definitions"),
            "{:?}",
            planned.skipped
        );
    }

    #[test]
    fn scanned_tables_and_columns_named_in_the_text_are_linked() {
        let mut tables = BTreeMap::new();
        tables.insert(
            "invoices".to_string(),
            (
                "invoices".to_string(),
                vec!["amount".to_string(), "status".to_string()],
            ),
        );
        let found = xrefs(
            "Sum `billing.invoices.amount` where invoices.status is paid; not orders.",
            &tables,
        );
        assert_eq!(
            found,
            vec![
                Xref {
                    table: "invoices".into(),
                    column: Some("amount".into())
                },
                Xref {
                    table: "invoices".into(),
                    column: Some("status".into())
                },
            ]
        );
    }
}
