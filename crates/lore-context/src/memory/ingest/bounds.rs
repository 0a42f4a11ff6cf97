//! What one run may parse and file, measured before anything is built.
//!
//! - Every fenced block Lore would parse (SQL, and the YAML, LookML and
//!   Cube model formats) is measured first, without recursion: SQL by
//!   `limits.sql_bytes` and `limits.sql_depth` (as `sql_execution`
//!   measures it), model formats by the readers' nesting depth limit. A
//!   block past a limit is listed in `skipped` naming the limit, and stays
//!   in the wiki page only.
//! - A run files at most `limits.ingest_pages` pages and
//!   `limits.ingest_items` memory notes and semantic-layer items; what is
//!   left out is listed in `skipped` naming the setting.
//! - A run's report lists at most [`REPORT_LIST`] skipped items and
//!   warnings, then says how many more there were.

use lore_core::limits::{SqlLimits, check_sql};
use sqlparser::dialect::GenericDialect;

use super::triage::{BlockKind, Callout, CodeBlock, Definition, Triage};
use super::{RunReport, Skipped};
use lore_import::nesting::check_nesting;

/// The most skipped items, and the most warnings, a run's report lists.
pub const REPORT_LIST: usize = 200;

/// Why `block` must not be parsed, if it is past a limit: the reason to
/// list in `skipped`.
pub fn block_limit(block: &CodeBlock, limits: &SqlLimits) -> Option<String> {
    let why = match block.kind {
        BlockKind::Sql => check_sql(&block.text, &GenericDialect {}, limits)
            .err()
            .map(|e| e.to_string()),
        BlockKind::LookMl => check_nesting(&block.text, false).err(),
        BlockKind::Cube if javascript(&block.lang) => check_nesting(&block.text, false).err(),
        BlockKind::Other if !matches!(block.lang.as_str(), "" | "yaml" | "yml") => None,
        // YAML: Lore semantic-layer files, dbt, MetricFlow, Cube, and
        // unlabelled or YAML blocks that did not parse as any of them.
        _ => check_nesting(&block.text, true).err(),
    }?;
    Some(format!(
        "{why}; the block is kept in the wiki page only, not read"
    ))
}

fn javascript(lang: &str) -> bool {
    matches!(lang, "js" | "javascript" | "ts" | "typescript")
}

/// The parts of a note one run files: its first sections, then its
/// definitions, within `limits.ingest_pages`; its notes within
/// `limits.ingest_items`. What is left out is in `skipped`.
pub struct Selection<'t> {
    /// How many sections (from the first) are filed.
    pub sections: usize,
    /// The definitions filed.
    pub definitions: Vec<&'t Definition>,
    /// The notes filed.
    pub callouts: Vec<&'t Callout>,
    /// The code blocks of the sections filed.
    pub blocks: Vec<&'t CodeBlock>,
    /// Semantic-layer items the run may still add once its notes are in.
    pub items_left: usize,
    /// What is left out, one line per kind.
    pub skipped: Vec<Skipped>,
}

/// Chooses what of `triage` one run files within `limits`.
pub fn select<'t>(triage: &'t Triage, limits: &SqlLimits) -> Selection<'t> {
    let total = triage.sections.len();
    let sections = total.min(limits.ingest_pages);
    // Parts outside every section (the model's own) belong to the note.
    let filed = |section: usize| section < sections || section >= total;
    let heading = |section: usize| {
        triage
            .sections
            .get(section)
            .map_or(triage.title.as_str(), |s| s.heading.as_str())
    };
    let mut skipped = Vec::new();
    if sections < total {
        skipped.push(left_out(
            heading(sections),
            "section",
            total - sections,
            "limits.ingest_pages",
            limits.ingest_pages,
        ));
    }
    let room = limits.ingest_pages - sections;
    let mut definitions: Vec<&Definition> = Vec::new();
    let mut first_dropped: Option<&Definition> = None;
    for d in &triage.definitions {
        if filed(d.section) && definitions.len() < room {
            definitions.push(d);
        } else {
            first_dropped.get_or_insert(d);
        }
    }
    if let Some(first) = first_dropped {
        skipped.push(left_out(
            heading(first.section),
            "definition",
            triage.definitions.len() - definitions.len(),
            "limits.ingest_pages",
            limits.ingest_pages,
        ));
    }
    let mut callouts: Vec<&Callout> = Vec::new();
    let mut first_dropped: Option<&Callout> = None;
    for c in &triage.callouts {
        if filed(c.section) && callouts.len() < limits.ingest_items {
            callouts.push(c);
        } else {
            first_dropped.get_or_insert(c);
        }
    }
    if let Some(first) = first_dropped {
        skipped.push(left_out(
            heading(first.section),
            "note",
            triage.callouts.len() - callouts.len(),
            "limits.ingest_items",
            limits.ingest_items,
        ));
    }
    Selection {
        sections,
        definitions,
        items_left: limits.ingest_items - callouts.len(),
        callouts,
        blocks: triage.blocks.iter().filter(|b| filed(b.section)).collect(),
        skipped,
    }
}

/// The first SQL expression of an imported source past `limits`: which
/// one (the measure, column, join or segment holding it) and why.
pub fn expression_limit(
    source: &lore_semantic::model::SourceSpec,
    limits: &SqlLimits,
) -> Option<String> {
    let mut exprs: Vec<(String, &str)> = Vec::new();
    if let Some(sql) = &source.sql {
        exprs.push(("its sql".into(), sql));
    }
    for m in &source.measures {
        exprs.push((format!("measure {}", m.name), &m.expr));
        if let Some(filter) = &m.filter {
            exprs.push((format!("the filter of measure {}", m.name), filter));
        }
    }
    for c in &source.columns {
        if let Some(expr) = &c.expr {
            exprs.push((format!("column {}", c.name), expr));
        }
    }
    for j in &source.joins {
        exprs.push((format!("the join to {}", j.to), &j.on));
    }
    for s in &source.segments {
        exprs.push((format!("segment {}", s.name), &s.expr));
    }
    exprs.into_iter().find_map(|(what, expr)| {
        check_sql(expr, &GenericDialect {}, limits)
            .err()
            .map(|e| format!("{what} of source {}: {e}", source.name))
    })
}

/// One `skipped` line for the `count` items of one kind a run left out
/// because of `setting`, from `section` on.
pub fn left_out(section: &str, what: &str, count: usize, setting: &str, limit: usize) -> Skipped {
    let plural = if count == 1 { "" } else { "s" };
    Skipped {
        section: section.to_string(),
        what: what.to_string(),
        reason: format!(
            "{count} {what}{plural} from here on {} not filed: {setting} in lore.yaml allows {limit} per memory_ingest run; split the note, or raise {setting}",
            if count == 1 { "was" } else { "were" }
        ),
    }
}

/// Keeps the report's lists of skipped items and warnings within
/// [`REPORT_LIST`], saying how many more there were.
pub fn bound_report(report: &mut RunReport) {
    if report.skipped.len() > REPORT_LIST {
        let more = report.skipped.len() - (REPORT_LIST - 1);
        report.skipped.truncate(REPORT_LIST - 1);
        report.skipped.push(Skipped {
            section: String::new(),
            what: "report".into(),
            reason: format!(
                "{more} more skipped items are not listed (a run's report lists {REPORT_LIST})"
            ),
        });
    }
    if report.warnings.len() > REPORT_LIST {
        let more = report.warnings.len() - (REPORT_LIST - 1);
        report.warnings.truncate(REPORT_LIST - 1);
        report.warnings.push(format!(
            "{more} more warnings are not listed (a run's report lists {REPORT_LIST})"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(lang: &str, kind: BlockKind, text: String) -> CodeBlock {
        CodeBlock {
            label: None,
            lang: lang.into(),
            kind,
            text,
            section: 0,
        }
    }

    #[test]
    fn blocks_past_a_limit_name_it_and_ordinary_blocks_pass() {
        let limits = SqlLimits::default();
        let chain = vec!["id = 1"; 40_000].join(" OR ");
        let sql = block(
            "sql",
            BlockKind::Sql,
            format!("SELECT 1 FROM t WHERE {chain}"),
        );
        let why = block_limit(&sql, &limits).unwrap();
        assert!(why.contains("limits.sql_depth"), "{why}");
        let lookml = block(
            "lookml",
            BlockKind::LookMl,
            format!(
                "view: v {{{}{}}}",
                "dimension: d {".repeat(20_000),
                "}".repeat(20_000)
            ),
        );
        let why = block_limit(&lookml, &limits).unwrap();
        assert!(why.contains("nesting depth limit"), "{why}");
        let yaml: String = (0..100).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert!(block_limit(&block("yaml", BlockKind::Other, yaml.clone()), &limits).is_some());
        // A language Lore does not read is not measured.
        assert_eq!(
            block_limit(&block("python", BlockKind::Other, yaml), &limits),
            None
        );
        let fine = block("sql", BlockKind::Sql, "SELECT SUM(a) FROM t".into());
        assert_eq!(block_limit(&fine, &limits), None);
    }
}
