//! dbt MetricFlow → Lore: each semantic model becomes a source of the same
//! name over its model's relation (from `target/manifest.json` when the
//! project was compiled, else the model's name); entities become the
//! grain (primary) and joins (foreign → the model where that entity is
//! primary or unique, many-to-one); dimensions become columns (time
//! dimensions `time`); measures and metrics become measures — a simple
//! metric with its filter (`{{ Dimension('entity__dim') }}` and
//! `{{ Entity('e') }}` translated to the column's SQL, or to `model.dim`
//! for another model's dimension, which the measure's source reaches
//! through the many-to-one joins the entities became), ratio and derived
//! metrics as expressions over measures, cumulative metrics as cumulative
//! measures running over their measure's `agg_time_dimension` (window,
//! `grain_to_date`, `period_agg`), and the project's time spine model as
//! the model's `time_spine` source, a derived metric's input read at an
//! earlier time (`offset_window`, `offset_to_grain`) as an offset measure
//! beside it, a measure's `non_additive_dimension` as a non-additive
//! measure, and a conversion metric as a conversion measure on its base
//! measure's source (its entity's and constant properties' columns, each
//! side's `agg_time_dimension`, the window, the calculation, the
//! conversion measure's `fill_nulls_with`; the metric's filter choosing
//! the base rows). What has no Lore equivalent (offsets of ratio or
//! derived inputs) is skipped with the reason;
//! what only changes edge cases (`fill_nulls_with`, `agg_time_dimension`)
//! is imported and reported as approximated.

use std::collections::BTreeMap;
use std::path::Path;

use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::model::{MeasureSpec, NonAdditiveSpec, SourceSpec};
use lore_warehouse::catalog::LoadedSnapshot;
use serde_json::Value;

mod conversion_metrics;
mod filters;
mod metrics;
mod models;
mod placing;
mod spine;

use super::{ImportReport, Imported};

fn refuse(message: String) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

/// The YAML files of a dbt project's model paths (`models/` unless
/// `dbt_project.yml` says otherwise), sorted.
fn yaml_files(project: &Path) -> Result<Vec<std::path::PathBuf>, ErrorReport> {
    let mut roots = vec!["models".to_string()];
    if let Ok(text) = std::fs::read_to_string(project.join("dbt_project.yml"))
        && let Ok(value) = serde_saphyr::from_str::<Value>(&text)
        && let Some(paths) = value.get("model-paths").and_then(Value::as_array)
    {
        roots = paths
            .iter()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect();
    }
    let mut files = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if name.ends_with(".yml") || name.ends_with(".yaml") {
                out.push(path);
            }
        }
    }
    for root in roots {
        walk(&project.join(root), &mut files);
    }
    files.sort();
    if files.is_empty() {
        return Err(refuse(format!(
            "{} holds no dbt model YAML (models/**/*.yml): give the dbt project's folder",
            project.display()
        )));
    }
    Ok(files)
}

/// `ref('orders')` / `ref("orders")` → `orders`.
fn ref_name(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix("ref(")?.strip_suffix(')')?;
    let last = inner.split(',').next_back()?.trim();
    Some(last.trim_matches(|c| c == '\'' || c == '"').to_string())
}

/// Model name → relation, from `target/manifest.json`.
fn manifest_relations(project: &Path) -> BTreeMap<String, String> {
    let Ok(text) = std::fs::read_to_string(project.join("target/manifest.json")) else {
        return BTreeMap::new();
    };
    let Ok(manifest) = serde_json::from_str::<Value>(&text) else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for node in manifest
        .get("nodes")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|n| n.values())
    {
        if node.get("resource_type").and_then(Value::as_str) != Some("model") {
            continue;
        }
        let (Some(name), Some(alias)) = (
            node.get("name").and_then(Value::as_str),
            node.get("alias")
                .and_then(Value::as_str)
                .or_else(|| node.get("name").and_then(Value::as_str)),
        ) else {
            continue;
        };
        let relation = match node.get("schema").and_then(Value::as_str) {
            Some(schema) if !schema.is_empty() => format!("{schema}.{alias}"),
            _ => alias.to_string(),
        };
        out.insert(name.to_string(), relation);
    }
    out
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

struct Model {
    name: String,
    spec: SourceSpec,
    /// entity name → (its column, type)
    entities: BTreeMap<String, (String, String)>,
    /// dimension name → its SQL
    dimensions: BTreeMap<String, String>,
    /// measure name → (aggregate expression, its description)
    measures: BTreeMap<String, (String, Option<String>)>,
    /// measure name → the time dimension it is aggregated by
    /// (`agg_time_dimension`, else the model's default)
    measure_time: BTreeMap<String, String>,
    /// time dimension name → its finest grain (`time_granularity`)
    time_grains: BTreeMap<String, String>,
    /// measure name → the day whose rows it counts (`non_additive_dimension`)
    measure_non_additive: BTreeMap<String, NonAdditiveSpec>,
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// An aggregate in Lore's measure language, or why there is none.
fn aggregate(agg: &str, expr: &str, params: Option<&Value>) -> Result<String, String> {
    Ok(match agg {
        "sum" => format!("sum({expr})"),
        "count" => format!("count({expr})"),
        "count_distinct" => format!("count_distinct({expr})"),
        "average" | "avg" => format!("avg({expr})"),
        "min" => format!("min({expr})"),
        "max" => format!("max({expr})"),
        "sum_boolean" => format!("sum(CASE WHEN {expr} THEN 1 ELSE 0 END)"),
        "median" => format!("median({expr})"),
        "percentile" => {
            let p = params
                .and_then(|p| p.get("percentile"))
                .and_then(Value::as_f64)
                .ok_or("percentile without agg_params.percentile")?;
            format!("percentile({expr}, {p})")
        }
        other => return Err(format!("aggregation `{other}` has no Lore equivalent")),
    })
}

/// Lower-cases the values of MetricFlow's keyword fields, wherever they are.
fn lower_keywords(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s)
                        if matches!(
                            key.as_str(),
                            "type"
                                | "agg"
                                | "time_granularity"
                                | "granularity"
                                | "grain_to_date"
                                | "period_agg"
                        ) =>
                    {
                        *s = s.to_lowercase();
                    }
                    other => lower_keywords(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(lower_keywords),
        _ => {}
    }
}

/// Reads a dbt project's semantic models and metrics as Lore sources.
pub fn read(project: &Path, scan: Option<&LoadedSnapshot>) -> Result<Imported, ErrorReport> {
    let mut documents = Vec::new();
    for file in yaml_files(project)? {
        let source = std::fs::read_to_string(&file)
            .map_err(|e| refuse(format!("{}: cannot be read: {e}", file.display())))?;
        // A file may hold several documents (`---`).
        let values: Vec<Value> = serde_saphyr::from_multiple(&source)
            .map_err(|e| refuse(format!("{}: not YAML: {e}", file.display())))?;
        documents.extend(values);
    }
    from_documents(
        documents,
        &manifest_relations(project),
        has_legacy_spine(project),
        scan,
        &project.display().to_string(),
    )
}

/// Reads MetricFlow YAML pasted into a note (`memory_ingest`): refs are
/// the models' names.
pub fn read_text(yaml: &str, scan: Option<&LoadedSnapshot>) -> Result<Imported, ErrorReport> {
    let values: Vec<Value> = serde_saphyr::from_multiple(yaml)
        .map_err(|e| refuse(format!("the MetricFlow block is not YAML: {e}")))?;
    from_documents(values, &BTreeMap::new(), false, scan, "the block")
}

/// What a project's (or a note's) YAML documents hold for the import.
struct Documents {
    semantic_models: Vec<Value>,
    metrics: Vec<Value>,
    /// dbt model → column (lower case) → its description.
    column_docs: BTreeMap<String, BTreeMap<String, String>>,
    /// Time spine models declared in YAML.
    spines: Vec<spine::Spine>,
}

/// Collects the semantic models, metrics, models' column descriptions
/// and time spines of every document, MetricFlow's keywords lower-cased
/// (it reads `agg: SUM`, `type: SIMPLE`, `time_granularity: DAY`).
fn collect(documents: Vec<Value>) -> Documents {
    let mut collected = Documents {
        semantic_models: Vec::new(),
        metrics: Vec::new(),
        column_docs: BTreeMap::new(),
        spines: Vec::new(),
    };
    for value in documents {
        let list = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        collected.semantic_models.extend(list("semantic_models"));
        collected.metrics.extend(list("metrics"));
        for model in list("models") {
            let Some(name) = text(&model, "name") else {
                continue;
            };
            let docs = collected.column_docs.entry(name.to_string()).or_default();
            let columns = model
                .get("columns")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for column in &columns {
                if let (Some(c), Some(d)) = (text(column, "name"), text(column, "description")) {
                    docs.insert(c.to_lowercase(), d.to_string());
                }
            }
            if let Some(column) = model
                .pointer("/time_spine/standard_granularity_column")
                .and_then(Value::as_str)
            {
                let grain = columns
                    .iter()
                    .find(|c| text(c, "name") == Some(column))
                    .and_then(|c| text(c, "granularity"))
                    .unwrap_or("day")
                    .to_lowercase();
                collected
                    .spines
                    .push((name.to_string(), column.to_string(), grain));
            }
        }
    }
    for v in collected
        .semantic_models
        .iter_mut()
        .chain(collected.metrics.iter_mut())
    {
        lower_keywords(v);
    }
    collected
}

/// Semantic models → sources, metrics → measures, then the time spine.
fn from_documents(
    documents: Vec<Value>,
    relations: &BTreeMap<String, String>,
    legacy_spine: bool,
    scan: Option<&LoadedSnapshot>,
    origin: &str,
) -> Result<Imported, ErrorReport> {
    let mut report = ImportReport {
        from: "metricflow".into(),
        ..ImportReport::default()
    };
    let mut documents = collect(documents);
    if documents.semantic_models.is_empty() {
        return Err(refuse(format!(
            "{origin} has no semantic_models: a MetricFlow project declares them in its models' YAML"
        )));
    }
    let mut models = models::models(&documents, relations, scan, &mut report);
    models::join_entities(&mut models, &mut report);
    let converting = placing::place_metrics(&documents, &mut models, &mut report);
    placing::expose_measures(&mut models, &mut report);
    read_raw_measures(&mut models, &converting);
    let mut sources: Vec<SourceSpec> = models.into_iter().map(|m| m.spec).collect();
    let spines = std::mem::take(&mut documents.spines);
    spine::add_time_spine(spines, legacy_spine, relations, &mut sources, &mut report);
    Ok(Imported { sources, report })
}

/// Points each conversion measure at its base and conversion measures as
/// MetricFlow defines them: a Lore measure of the same name is usually
/// the measure itself, but where a metric of that name took it (with a
/// filter, say), the conversion reads a measure of its own,
/// `<conversion>__base` or `<conversion>__conversion`.
fn read_raw_measures(models: &mut [Model], converting: &[(usize, String)]) {
    for (home, name) in converting {
        let Some(spec) = models[*home]
            .spec
            .measures
            .iter()
            .find(|m| &m.name == name)
            .and_then(|m| m.conversion.clone())
        else {
            continue;
        };
        let target = match spec.conversion.split_once('.') {
            Some((source, _)) => models.iter().position(|m| m.name == source),
            None => Some(*home),
        };
        let Some(target) = target else { continue };
        let measure = |named: &str| named.rsplit('.').next().unwrap_or(named).to_string();
        let mut renamed = spec.clone();
        for (at, raw, role) in [
            (*home, measure(&spec.base), "base"),
            (target, measure(&spec.conversion), "conversion"),
        ] {
            let model = &mut models[at];
            let Some((expr, description)) = model.measures.get(&raw).cloned() else {
                continue;
            };
            let same = model.spec.measures.iter().any(|m| {
                m.name == raw
                    && m.expr == expr
                    && m.filter.is_none()
                    && m.cumulative.is_none()
                    && m.offset.is_none()
                    && m.non_additive.is_none()
                    && m.conversion.is_none()
            });
            if same {
                continue;
            }
            let helper = format!("{name}__{role}");
            model.spec.measures.retain(|m| m.name != helper);
            model.spec.measures.push(MeasureSpec {
                name: helper.clone(),
                expr,
                filter: None,
                cumulative: None,
                offset: None,
                non_additive: None,
                conversion: None,
                description: description.or(Some(format!("{raw} (the {role} measure of {name})"))),
                descriptions: None,
            });
            match role {
                "base" => renamed.base = helper,
                _ if target == *home => renamed.conversion = helper,
                _ => renamed.conversion = format!("{}.{helper}", model.name),
            }
        }
        if let Some(m) = models[*home]
            .spec
            .measures
            .iter_mut()
            .find(|m| &m.name == name)
        {
            m.conversion = Some(renamed);
        }
    }
}

/// The time spine model MetricFlow read before dbt declared spines in YAML.
const LEGACY_SPINE: &str = "metricflow_time_spine";

/// Whether the project has the older time spine model
/// (`metricflow_time_spine.sql` under a model path).
fn has_legacy_spine(project: &Path) -> bool {
    fn walk(dir: &Path) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|entry| {
            let path = entry.path();
            if path.is_dir() {
                walk(&path)
            } else {
                entry.file_name() == std::ffi::OsStr::new(&format!("{LEGACY_SPINE}.sql"))
            }
        })
    }
    walk(&project.join("models"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;
    use lore_semantic::model::ColumnType;
    use lore_semantic::model::{
        Calculation, ColumnPair, ConversionSpec, CumulativeSpec, Keep, OffsetSpec, PeriodAgg,
    };

    const PROJECT: &str = r#"
models:
  - name: hours
    time_spine: { standard_granularity_column: hour }
    columns: [{ name: hour, granularity: hour }]
  - name: days
    time_spine: { standard_granularity_column: date_day }
    columns: [{ name: date_day, granularity: DAY }]
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order, type: primary, expr: id }]
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
      - { name: billed_month, type: time, type_params: { time_granularity: month } }
    measures:
      - { name: amount, agg: sum }
      - { name: billed, expr: amount, agg: sum, agg_time_dimension: billed_month }
metrics:
  - { name: amount_7d, type: cumulative, type_params: { measure: amount, window: 7 days } }
  - name: amount_mtd
    type: CUMULATIVE
    type_params: { measure: amount, cumulative_type_params: { grain_to_date: MONTH, period_agg: LAST } }
  - { name: billed_to_date, type: cumulative, type_params: { measure: billed } }
  - { name: fortnightly, type: cumulative, type_params: { measure: amount, window: 1 fortnight } }
  - { name: hour_to_date, type: cumulative, type_params: { measure: amount, grain_to_date: hour } }
  - { name: odd_agg, type: cumulative, type_params: { measure: amount, cumulative_type_params: { period_agg: median } } }
"#;

    #[test]
    fn cumulative_metrics_run_over_their_measures_time_and_the_day_spine_is_the_models() {
        let imported = read_text(PROJECT, None).unwrap();
        let item = |name: &str| {
            imported
                .report
                .items
                .iter()
                .find(|i| i.name == name)
                .unwrap_or_else(|| panic!("no {name}: {:#?}", imported.report.items))
        };
        let orders = &imported.sources[0];
        let measure = |name: &str| orders.measures.iter().find(|m| m.name == name);
        assert_eq!(
            measure("amount_7d").and_then(|m| m.cumulative.clone()),
            Some(CumulativeSpec {
                time: Some("ordered_at".into()),
                window: Some("7 days".into()),
                grain_to_date: None,
                period_agg: None,
            })
        );
        assert_eq!(
            measure("amount_mtd").and_then(|m| m.cumulative.clone()),
            Some(CumulativeSpec {
                time: Some("ordered_at".into()),
                window: None,
                grain_to_date: Some("month".into()),
                period_agg: Some(PeriodAgg::Last),
            })
        );
        assert_eq!(item("amount_7d").outcome, Outcome::Imported);
        // A measure aggregated by a monthly time dimension runs day by day.
        assert_eq!(item("billed_to_date").outcome, Outcome::Approximated);
        assert!(item("billed_to_date").detail.contains("month grain"));
        for (name, why) in [
            ("fortnightly", "window `1 fortnight`"),
            ("hour_to_date", "grain_to_date `hour`"),
            ("odd_agg", "period_agg `median`"),
        ] {
            assert_eq!(item(name).outcome, Outcome::Skipped, "{name}");
            assert!(item(name).detail.contains(why), "{:?}", item(name));
            assert!(measure(name).is_none());
        }
        // The day spine is the model's; the hour spine is reported.
        assert_eq!(item("hours").outcome, Outcome::Skipped);
        assert_eq!(item("days").outcome, Outcome::Imported);
        let spine = imported.sources.iter().find(|s| s.name == "days").unwrap();
        assert_eq!(spine.time_spine.as_deref(), Some("date_day"));
        assert_eq!(spine.columns[0].column_type, ColumnType::Time);
    }

    #[test]
    fn an_offset_input_becomes_an_offset_measure_beside_its_derived_metric() {
        let project = r#"
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order, type: primary, expr: id }]
    dimensions: [{ name: ordered_at, type: time, type_params: { time_granularity: day } }]
    measures: [{ name: amount, agg: sum }, { name: order_count, expr: 1, agg: sum }]
metrics:
  - { name: revenue, type: simple, type_params: { measure: amount }, filter: "amount > 0" }
  - { name: orders, type: simple, type_params: { measure: order_count } }
  - { name: per_order, type: ratio, type_params: { numerator: revenue, denominator: orders } }
  - name: growth
    type: derived
    type_params:
      expr: revenue - before
      metrics: [{ name: revenue }, { name: revenue, offset_window: 1 month, alias: before }]
  - name: at_start
    type: derived
    type_params:
      expr: first_day
      metrics: [{ name: orders, offset_to_grain: MONTH, alias: first_day }]
  - name: ratio_growth
    type: derived
    type_params:
      expr: per_order - before
      metrics: [{ name: per_order }, { name: per_order, offset_window: 1 month, alias: before }]
"#;
        let imported = read_text(project, None).unwrap();
        let measure = |name: &str| {
            imported.sources[0]
                .measures
                .iter()
                .find(|m| m.name == name)
                .cloned()
                .unwrap_or_else(|| panic!("no {name}"))
        };
        assert_eq!(measure("growth").expr, "revenue - growth__before");
        let before = measure("growth__before");
        assert_eq!(before.expr, "sum(amount)");
        assert_eq!(before.filter.as_deref(), Some("amount > 0"));
        assert_eq!(
            before.offset,
            Some(OffsetSpec {
                time: Some("ordered_at".into()),
                window: Some("1 month".into()),
                to_grain: None,
            })
        );
        assert_eq!(
            measure("at_start__first_day")
                .offset
                .unwrap()
                .to_grain
                .as_deref(),
            Some("month")
        );
        let ratio = imported
            .report
            .items
            .iter()
            .find(|i| i.name == "ratio_growth")
            .unwrap();
        assert_eq!(ratio.outcome, Outcome::Skipped);
        assert!(ratio.detail.contains("ratio metric"), "{ratio:?}");
    }

    #[test]
    fn non_additive_dimensions_keep_one_days_rows() {
        let project = r#"
semantic_models:
  - name: balances
    model: ref('balances')
    defaults: { agg_time_dimension: taken_at }
    entities: [{ name: balance, type: primary, expr: id }, { name: account, type: foreign, expr: account_id }]
    dimensions: [{ name: taken_at, type: time, type_params: { time_granularity: day } }, { name: kind, type: categorical }]
    measures:
      - { name: closing, expr: amount, agg: sum, non_additive_dimension: { name: taken_at, window_choice: MAX } }
      - { name: opening, expr: amount, agg: sum, non_additive_dimension: { name: taken_at, window_choice: min, window_groupings: [account] } }
      - { name: by_kind, expr: amount, agg: sum, non_additive_dimension: { name: kind } }
      - { name: odd_choice, expr: amount, agg: sum, non_additive_dimension: { name: taken_at, window_choice: median } }
"#;
        let imported = read_text(project, None).unwrap();
        let spec = |name: &str| {
            imported.sources[0]
                .measures
                .iter()
                .find(|m| m.name == name)
                .and_then(|m| m.non_additive.clone())
        };
        assert_eq!(
            spec("closing"),
            Some(NonAdditiveSpec {
                time: Some("taken_at".into()),
                keep: Some(Keep::Last),
                per: Vec::new(),
            })
        );
        assert_eq!(
            spec("opening"),
            Some(NonAdditiveSpec {
                time: Some("taken_at".into()),
                keep: Some(Keep::First),
                per: vec!["account_id".into()],
            })
        );
        for (name, why) in [
            ("balances.by_kind", "not a time dimension"),
            ("balances.odd_choice", "window_choice `median`"),
        ] {
            let item = imported
                .report
                .items
                .iter()
                .find(|i| i.name == name)
                .unwrap();
            assert_eq!(item.outcome, Outcome::Skipped, "{item:?}");
            assert!(item.detail.contains(why), "{item:?}");
        }
    }

    #[test]
    fn conversion_metrics_become_conversion_measures_on_the_base_source() {
        let project = r#"
semantic_models:
  - name: visits
    model: ref('visits')
    defaults: { agg_time_dimension: visited_at }
    entities: [{ name: visit, type: primary, expr: visit_id }, { name: customer, type: foreign, expr: customer_id }]
    dimensions:
      - { name: visited_at, type: time, type_params: { time_granularity: day } }
      - { name: source, type: categorical, expr: utm_source }
    measures: [{ name: visit_count, expr: 1, agg: sum }, { name: balance, expr: amount, agg: sum, non_additive_dimension: { name: visited_at } }]
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order, type: primary, expr: id }, { name: customer, type: foreign, expr: buyer_id }]
    dimensions:
      - { name: ordered_at, type: time, type_params: { time_granularity: day } }
      - { name: campaign, type: categorical }
    measures: [{ name: order_count, expr: 1, agg: sum }]
metrics:
  - { name: order_count, type: simple, type_params: { measure: order_count }, filter: "{{ Dimension('order__campaign') }} = 'x'" }
  - name: visit_to_order
    type: conversion
    filter: "{{ Dimension('visit__source') }} != 'ads'"
    type_params:
      conversion_type_params:
        entity: customer
        base_measure: { name: visit_count, filter: "{{ Dimension('visit__source') }} is not null" }
        conversion_measure: { name: order_count, fill_nulls_with: 0, filter: "{{ Dimension('order__campaign') }} = 'y'" }
        window: { count: 7, granularity: day }
        constant_properties: [{ base_property: source, conversion_property: campaign }]
  - name: visit_orders
    type: conversion
    type_params:
      conversion_type_params: { entity: customer, base_measure: visit_count, conversion_measure: order_count, calculation: CONVERSIONS }
  - name: filled_daily
    type: conversion
    type_params:
      conversion_type_params: { entity: customer, base_measure: { name: visit_count, join_to_timespine: true }, conversion_measure: order_count }
  - name: by_visit
    type: conversion
    type_params:
      conversion_type_params: { entity: visit, base_measure: visit_count, conversion_measure: order_count }
  - name: odd_window
    type: conversion
    type_params:
      conversion_type_params: { entity: customer, base_measure: visit_count, conversion_measure: order_count, window: 2 fortnights }
  - name: of_balances
    type: conversion
    type_params:
      conversion_type_params: { entity: customer, base_measure: balance, conversion_measure: order_count }
  - name: odd_property
    type: conversion
    type_params:
      conversion_type_params:
        entity: customer
        base_measure: visit_count
        conversion_measure: order_count
        constant_properties: [{ base_property: source, conversion_property: coupon }]
"#;
        let imported = read_text(project, None).unwrap();
        let visits = &imported.sources[0];
        let orders = &imported.sources[1];
        let measure = |name: &str| {
            visits
                .measures
                .iter()
                .find(|m| m.name == name)
                .cloned()
                .unwrap_or_else(|| panic!("no {name}: {:#?}", visits.measures))
        };
        let rate = measure("visit_to_order");
        assert_eq!(rate.expr, "");
        // The metric's filter and the base measure's choose the visits.
        assert_eq!(
            rate.filter.as_deref(),
            Some("((utm_source) != 'ads') AND ((utm_source) is not null)")
        );
        // `order_count` is a filtered metric's name: the conversion reads
        // the measure itself, under a name of its own.
        assert_eq!(
            rate.conversion,
            Some(ConversionSpec {
                base: "visit_count".into(),
                conversion: "orders.visit_to_order__conversion".into(),
                entity: ColumnPair::Each {
                    base: "customer_id".into(),
                    conversion: "buyer_id".into()
                },
                window: Some("7 day".into()),
                calculation: None,
                constant: vec![ColumnPair::Each {
                    base: "source".into(),
                    conversion: "campaign".into()
                }],
                time: Some(ColumnPair::Each {
                    base: "visited_at".into(),
                    conversion: "ordered_at".into()
                }),
                fill_nulls_with: Some(0),
            })
        );
        let helper = orders
            .measures
            .iter()
            .find(|m| m.name == "visit_to_order__conversion")
            .unwrap();
        assert_eq!(
            (helper.expr.as_str(), helper.filter.as_ref()),
            ("sum(1)", None)
        );
        assert_eq!(
            measure("visit_orders").conversion.unwrap().calculation,
            Some(Calculation::Count)
        );
        let item = |name: &str| {
            imported
                .report
                .items
                .iter()
                .find(|i| i.name == name)
                .unwrap_or_else(|| panic!("no {name}"))
        };
        assert_eq!(item("visit_to_order").outcome, Outcome::Imported);
        assert!(
            item("visit_to_order")
                .detail
                .contains("filter is not applied"),
            "{:?}",
            item("visit_to_order")
        );
        assert_eq!(item("filled_daily").outcome, Outcome::Approximated);
        assert!(item("filled_daily").detail.contains("join_to_timespine"));
        for (name, why) in [
            (
                "by_visit",
                "`visit` is not an entity or dimension of semantic model orders",
            ),
            ("odd_window", "window `2 fortnights`"),
            ("of_balances", "non-additive"),
            ("odd_property", "`coupon` is not an entity or dimension"),
        ] {
            assert_eq!(item(name).outcome, Outcome::Skipped, "{name}");
            assert!(item(name).detail.contains(why), "{:?}", item(name));
        }
        // What it imports is a model Lore loads.
        let files: Vec<(std::path::PathBuf, String)> = imported
            .sources
            .iter()
            .map(|s| {
                (
                    std::path::PathBuf::from(format!("{}.yaml", s.name)),
                    serde_saphyr::to_string(s).unwrap(),
                )
            })
            .collect();
        let model = lore_semantic::model::load_sources(files).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            model
                .source("visits")
                .unwrap()
                .measure("visit_to_order")
                .unwrap()
                .conversion
                .is_some()
        );
    }

    #[test]
    fn time_dimension_filters_become_portable_truncations() {
        let project = r#"
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: { agg_time_dimension: ordered_at }
    entities: [{ name: order, type: primary, expr: id }, { name: customer, type: foreign, expr: customer_id }]
    dimensions:
      - { name: ordered_at, type: time, expr: created, type_params: { time_granularity: day } }
      - { name: status, type: categorical }
    measures: [{ name: amount, agg: sum }]
  - name: customers
    model: ref('customers')
    entities: [{ name: customer, type: primary, expr: id }]
    dimensions: [{ name: signed_up_at, type: time, type_params: { time_granularity: month } }]
metrics:
  - name: since_feb
    type: simple
    type_params: { measure: amount }
    filter: "{{ TimeDimension('metric_time', 'MONTH') }} >= '2024-02-01'"
  - name: signed_in_january
    type: simple
    type_params: { measure: amount }
    filter: "{{ TimeDimension('customer__signed_up_at', time_granularity_name='month') }} = '2024-01-01' and {{ Dimension('order__status') }} = 'paid'"
  - name: own_default_grain
    type: simple
    type_params: { measure: amount }
    filter: "{{ TimeDimension('order__ordered_at') }} < '2024-03-01'"
  - name: by_the_hour
    type: simple
    type_params: { measure: amount }
    filter: "{{ TimeDimension('metric_time', 'hour') }} >= '2024-02-01 10:00'"
  - name: not_time
    type: simple
    type_params: { measure: amount }
    filter: "{{ TimeDimension('order__status', 'day') }} = 'x'"
  - name: shown_from
    type: cumulative
    type_params: { measure: amount, window: 7 days }
    filter: "{{ TimeDimension('metric_time', 'day') }} >= '2024-02-01'"
"#;
        let imported = read_text(project, None).unwrap();
        let filter = |name: &str| {
            imported.sources[0]
                .measures
                .iter()
                .find(|m| m.name == name)
                .and_then(|m| m.filter.clone())
        };
        assert_eq!(
            filter("since_feb").as_deref(),
            Some("date_trunc('month', (created)) >= '2024-02-01'")
        );
        assert_eq!(
            filter("signed_in_january").as_deref(),
            Some(
                "date_trunc('month', customers.signed_up_at) = '2024-01-01' and (status) = 'paid'"
            )
        );
        assert_eq!(
            filter("own_default_grain").as_deref(),
            Some("date_trunc('day', (created)) < '2024-03-01'")
        );
        let detail = |name: &str| {
            let item = imported
                .report
                .items
                .iter()
                .find(|i| i.name == name)
                .unwrap();
            assert_eq!(item.outcome, Outcome::Skipped, "{item:?}");
            item.detail.clone()
        };
        assert!(detail("by_the_hour").contains("day, week, month"));
        assert!(detail("not_time").contains("not a time dimension"));
        assert!(detail("shown_from").contains("chooses the days"));
    }
}
