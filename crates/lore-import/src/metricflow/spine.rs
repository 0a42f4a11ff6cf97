//! The time spine: a source listing every day, which cumulative measures
//! run over (dbt's time spine model with its standard granularity column,
//! or the older `metricflow_time_spine` model).

use std::collections::BTreeMap;

use lore_semantic::model::{ColumnSpec, ColumnType, SourceSpec};

use super::LEGACY_SPINE;
use crate::{ImportReport, Outcome};

/// A time spine model: its name, its day column and that column's grain.
pub(super) type Spine = (String, String, String);

/// Adds the first usable day spine to `sources` as the model's
/// `time_spine` source; the others are reported skipped with the reason.
pub(super) fn add_time_spine(
    mut spines: Vec<Spine>,
    legacy_spine: bool,
    relations: &BTreeMap<String, String>,
    sources: &mut Vec<SourceSpec>,
    report: &mut ImportReport,
) {
    if spines.is_empty() && (legacy_spine || relations.contains_key(LEGACY_SPINE)) {
        spines.push((LEGACY_SPINE.into(), "date_day".into(), "day".into()));
    }
    let mut spine_source: Option<String> = None;
    for (name, column, grain) in spines {
        let why_not = if grain != "day" {
            Some(format!(
                "its column {column} is at the {grain} grain; Lore's cumulative measures run day by day over a day spine"
            ))
        } else if let Some(first) = &spine_source {
            Some(format!("the model's time spine is already {first}"))
        } else if sources.iter().any(|s| s.name == name) {
            Some(format!("a semantic model is named {name} too"))
        } else if !relations.is_empty() && !relations.contains_key(&name) {
            Some(format!(
                "ref('{name}') is not a model of target/manifest.json"
            ))
        } else {
            None
        };
        if let Some(why) = why_not {
            report.push("time_spine", &name, Outcome::Skipped, why);
            continue;
        }
        let table = relations
            .get(&name)
            .cloned()
            .unwrap_or_else(|| name.clone());
        let mut spec = crate::source(
            &name,
            Some("The time spine: one row per day.".into()),
            Some(table.clone()),
            None,
        );
        spec.columns.push(ColumnSpec {
            name: column.clone(),
            column_type: ColumnType::Time,
            expr: None,
            visibility: None,
            role: None,
            description: None,
            descriptions: None,
        });
        spec.time_spine = Some(column.clone());
        report.push(
            "time_spine",
            &name,
            Outcome::Imported,
            format!(
                "source {name} over {table}: cumulative measures run over the days of {column}"
            ),
        );
        spine_source = Some(name);
        sources.push(spec);
    }
}
