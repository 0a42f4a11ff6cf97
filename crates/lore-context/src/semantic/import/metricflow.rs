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
//! beside it, and a measure's `non_additive_dimension` as a non-additive
//! measure. What has no Lore equivalent (conversion metrics, offsets of
//! ratio or derived inputs) is skipped with the reason;
//! what only changes edge cases (`fill_nulls_with`, `agg_time_dimension`)
//! is imported and reported as approximated.

use std::collections::BTreeMap;
use std::path::Path;

use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::dialect::Granularity;
use lore_semantic::model::{
    Cardinality, ColumnSpec, ColumnType, CumulativeSpec, JoinSpec, Keep, MeasureSpec,
    NonAdditiveSpec, OffsetSpec, PeriodAgg, RunningWindow, SourceSpec, Visibility, parse_span,
};
use lore_warehouse::catalog::LoadedSnapshot;
use serde_json::Value;

use super::{ImportReport, Imported, Outcome, identifiers, scanned_type};

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

fn from_documents(
    documents: Vec<Value>,
    relations: &BTreeMap<String, String>,
    legacy_spine: bool,
    scan: Option<&LoadedSnapshot>,
    origin: &str,
) -> Result<Imported, ErrorReport> {
    let relations = relations.clone();
    let mut report = ImportReport {
        from: "metricflow".into(),
        ..ImportReport::default()
    };
    let mut semantic_models: Vec<Value> = Vec::new();
    let mut metrics: Vec<Value> = Vec::new();
    let mut column_docs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    // Time spine models: (model, its day column, that column's grain).
    let mut spines: Vec<(String, String, String)> = Vec::new();
    for value in documents {
        let list = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        semantic_models.extend(list("semantic_models"));
        metrics.extend(list("metrics"));
        for model in list("models") {
            let Some(name) = text(&model, "name") else {
                continue;
            };
            let docs = column_docs.entry(name.to_string()).or_default();
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
                spines.push((name.to_string(), column.to_string(), grain));
            }
        }
    }
    // MetricFlow reads its keywords in any case (`agg: SUM`, `type:
    // SIMPLE`, `time_granularity: DAY`).
    for v in semantic_models.iter_mut().chain(metrics.iter_mut()) {
        lower_keywords(v);
    }
    if semantic_models.is_empty() {
        return Err(refuse(format!(
            "{origin} has no semantic_models: a MetricFlow project declares them in its models' YAML"
        )));
    }

    // Semantic models → sources.
    let mut models: Vec<Model> = Vec::new();
    for sm in &semantic_models {
        let Some(name) = text(sm, "name") else {
            report.push(
                "semantic_model",
                "?",
                Outcome::Skipped,
                "a semantic model without a name",
            );
            continue;
        };
        let model_ref = text(sm, "model").unwrap_or_default();
        let Some(dbt_model) = ref_name(model_ref) else {
            report.push(
                "semantic_model",
                name,
                Outcome::Skipped,
                format!("model `{model_ref}` is not ref('…')"),
            );
            continue;
        };
        let table = match relations.get(&dbt_model) {
            Some(relation) => relation.clone(),
            None => {
                if !relations.is_empty() {
                    report.push(
                        "semantic_model",
                        name,
                        Outcome::Skipped,
                        format!("ref('{dbt_model}') is not a model of target/manifest.json"),
                    );
                    continue;
                }
                dbt_model.clone()
            }
        };
        let docs = column_docs.get(&dbt_model).cloned().unwrap_or_default();
        let mut spec = super::source(
            name,
            text(sm, "description").map(|d| d.trim().to_string()),
            Some(table.clone()),
            None,
        );
        let mut m = Model {
            name: name.to_string(),
            spec: spec.clone(),
            entities: BTreeMap::new(),
            dimensions: BTreeMap::new(),
            measures: BTreeMap::new(),
            measure_time: BTreeMap::new(),
            time_grains: BTreeMap::new(),
            measure_non_additive: BTreeMap::new(),
        };
        let default_time = sm
            .pointer("/defaults/agg_time_dimension")
            .and_then(Value::as_str)
            .map(str::to_string);
        let add_column = |spec: &mut SourceSpec,
                          column: &str,
                          expr: Option<String>,
                          kind: ColumnType,
                          visibility: Option<Visibility>,
                          description: Option<String>| {
            if spec.columns.iter().any(|c| c.name == column) {
                return;
            }
            spec.columns.push(ColumnSpec {
                name: column.to_string(),
                column_type: kind,
                expr,
                visibility,
                role: None,
                description: description.or_else(|| docs.get(&column.to_lowercase()).cloned()),
                descriptions: None,
            });
        };
        if sm.pointer("/defaults/agg_time_dimension").is_some() {
            report.push(
                "semantic_model",
                name,
                Outcome::Approximated,
                "defaults.agg_time_dimension: Lore queries name the time dimension they group by",
            );
        }
        for entity in sm
            .get("entities")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(ename) = text(entity, "name") else {
                continue;
            };
            let kind = text(entity, "type").unwrap_or("foreign").to_string();
            let expr = text(entity, "expr").unwrap_or(ename).to_string();
            let (column, column_expr) = if is_identifier(&expr) {
                (expr.clone(), None)
            } else {
                (ename.to_string(), Some(expr.clone()))
            };
            let ctype = scanned_type(scan, &table, &column).unwrap_or(ColumnType::Number);
            add_column(
                &mut spec,
                &column,
                column_expr,
                ctype,
                Some(Visibility::Hidden),
                None,
            );
            if kind == "primary" {
                spec.grain = vec![column.clone()];
            }
            m.entities
                .insert(ename.to_string(), (column.clone(), kind.clone()));
            report.push(
                "entity",
                &format!("{name}.{ename}"),
                Outcome::Imported,
                format!("{kind} key {column}"),
            );
        }
        for dim in sm
            .get("dimensions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(dname) = text(dim, "name") else {
                continue;
            };
            let expr = text(dim, "expr").map(str::to_string);
            let time = text(dim, "type") == Some("time");
            let ctype = if time {
                ColumnType::Time
            } else {
                expr.as_deref()
                    .filter(|e| is_identifier(e))
                    .or(Some(dname))
                    .and_then(|c| scanned_type(scan, &table, c))
                    .unwrap_or(ColumnType::String)
            };
            let column_expr = expr.clone().filter(|e| e != dname);
            // A dimension whose expr is another column is that column, named as the dimension.
            if let Some(e) = &column_expr {
                for id in identifiers(e) {
                    if id != dname {
                        let t = scanned_type(scan, &table, &id).unwrap_or(ColumnType::String);
                        add_column(&mut spec, &id, None, t, Some(Visibility::Hidden), None);
                    }
                }
            }
            add_column(
                &mut spec,
                dname,
                column_expr.clone(),
                ctype,
                None,
                text(dim, "description").map(str::to_string),
            );
            if let Some(c) = spec.columns.iter_mut().find(|c| c.name == dname) {
                c.visibility = None;
            }
            m.dimensions.insert(
                dname.to_string(),
                column_expr.unwrap_or_else(|| dname.to_string()),
            );
            let granularity = dim
                .pointer("/type_params/time_granularity")
                .and_then(Value::as_str);
            if time {
                m.time_grains
                    .insert(dname.to_string(), granularity.unwrap_or("day").to_string());
            }
            report.push(
                "dimension",
                &format!("{name}.{dname}"),
                Outcome::Imported,
                match granularity {
                    Some(g) => format!("time column (finest grain {g})"),
                    None => {
                        if time {
                            "time column".into()
                        } else {
                            "column".into()
                        }
                    }
                },
            );
        }
        for measure in sm
            .get("measures")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(mname) = text(measure, "name") else {
                continue;
            };
            let full = format!("{name}.{mname}");
            let expr = match measure.get("expr") {
                Some(Value::Number(n)) => n.to_string(),
                Some(Value::Bool(b)) => b.to_string(),
                _ => text(measure, "expr").unwrap_or(mname).to_string(),
            };
            if let Some(nad) = measure
                .get("non_additive_dimension")
                .filter(|v| !v.is_null())
            {
                match non_additive(nad, &m) {
                    Ok(spec) => {
                        m.measure_non_additive.insert(mname.to_string(), spec);
                    }
                    Err(why) => {
                        report.push("measure", &full, Outcome::Skipped, why);
                        continue;
                    }
                }
            }
            let agg = text(measure, "agg").unwrap_or("sum");
            match aggregate(agg, &expr, measure.get("agg_params")) {
                Ok(lore_expr) => {
                    for id in identifiers(&expr) {
                        let t = scanned_type(scan, &table, &id).unwrap_or(ColumnType::Number);
                        add_column(&mut spec, &id, None, t, Some(Visibility::Hidden), None);
                    }
                    m.measures.insert(
                        mname.to_string(),
                        (lore_expr, text(measure, "description").map(str::to_string)),
                    );
                    if let Some(t) = text(measure, "agg_time_dimension")
                        .map(str::to_string)
                        .or_else(|| default_time.clone())
                    {
                        m.measure_time.insert(mname.to_string(), t);
                    }
                    if measure
                        .pointer("/agg_params/use_approximate_percentile")
                        .and_then(Value::as_bool)
                        == Some(true)
                    {
                        report.push(
                            "measure",
                            &full,
                            Outcome::Approximated,
                            "use_approximate_percentile: Lore computes the exact percentile",
                        );
                    }
                }
                Err(why) => report.push("measure", &full, Outcome::Skipped, why),
            }
        }
        m.spec = spec;
        report.push(
            "semantic_model",
            name,
            Outcome::Imported,
            format!("source {name} over {table}"),
        );
        models.push(m);
    }

    // Joins: a foreign entity → the model where it is primary or unique.
    let keys: Vec<(String, String, String)> = models
        .iter()
        .flat_map(|m| {
            m.entities
                .iter()
                .filter(|(_, (_, kind))| kind == "primary" || kind == "unique" || kind == "natural")
                .map(|(entity, (column, _))| (entity.clone(), m.name.clone(), column.clone()))
                .collect::<Vec<_>>()
        })
        .collect();
    for m in &mut models {
        for (entity, (column, kind)) in &m.entities {
            if kind != "foreign" {
                continue;
            }
            match keys
                .iter()
                .find(|(e, model, _)| e == entity && *model != m.name)
            {
                Some((_, target, target_column)) => m.spec.joins.push(JoinSpec {
                    to: target.clone(),
                    on: format!("{column} = {target}.{target_column}"),
                    relationship: Cardinality::ManyToOne,
                    alias: None,
                }),
                None => report.push(
                    "entity",
                    &format!("{}.{entity}", m.name),
                    Outcome::Approximated,
                    "no semantic model has this entity as its primary key, so no join was made",
                ),
            }
        }
    }

    // Metrics → measures.
    let measure_home: BTreeMap<String, usize> = models
        .iter()
        .enumerate()
        .flat_map(|(i, m)| m.measures.keys().map(move |k| (k.clone(), i)))
        .collect();
    let mut metric_home: BTreeMap<String, usize> = BTreeMap::new();
    let mut pending: Vec<&Value> = metrics.iter().collect();
    // Measures with create_metric become simple metrics of their name.
    let mut created: Vec<Value> = Vec::new();
    for sm in &semantic_models {
        for measure in sm
            .get("measures")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if measure.get("create_metric").and_then(Value::as_bool) == Some(true)
                && let Some(mname) = text(measure, "name")
                && !metrics.iter().any(|m| text(m, "name") == Some(mname))
            {
                created.push(serde_json::json!({"name": mname, "type": "simple", "type_params": {"measure": mname}, "description": measure.get("description")}));
            }
        }
    }
    pending.extend(created.iter());
    let definitions: BTreeMap<String, &Value> = metrics
        .iter()
        .chain(created.iter())
        .filter_map(|m| text(m, "name").map(|n| (n.to_string(), m)))
        .collect();
    // Ratio and derived metrics may name metrics defined after them.
    for _round in 0..4 {
        let mut later = Vec::new();
        for metric in pending {
            let Some(name) = text(metric, "name") else {
                continue;
            };
            let kind = text(metric, "type").unwrap_or("simple");
            let description = text(metric, "description")
                .or(text(metric, "label"))
                .map(str::to_string);
            let outcome: Result<Placement, String> = match kind {
                "simple" => simple(metric, &models, &measure_home, false),
                "ratio" => {
                    let part = |key: &str| -> Result<String, String> {
                        match metric.pointer(&format!("/type_params/{key}")) {
                            Some(Value::String(s)) => Ok(s.clone()),
                            Some(v) if v.get("filter").is_some() => Err(format!(
                                "the {key} has its own filter, which a ratio of measures cannot carry"
                            )),
                            Some(v) => text(v, "name")
                                .map(str::to_string)
                                .ok_or(format!("no {key}")),
                            None => Err(format!("no {key}")),
                        }
                    };
                    match (part("numerator"), part("denominator")) {
                        (Ok(n), Ok(d)) => match (metric_home.get(&n), metric_home.get(&d)) {
                            (Some(&home), Some(&other)) => {
                                // A measure of another source is named with its source.
                                let d = if other == home {
                                    d
                                } else {
                                    format!("{}.{d}", models[other].name)
                                };
                                Ok(Some(Placed::expression(
                                    home,
                                    format!("{n} / NULLIF({d}, 0)"),
                                )))
                            }
                            _ => Ok(None),
                        },
                        (Err(e), _) | (_, Err(e)) => Err(e),
                    }
                }
                "derived" => derived(
                    name,
                    metric,
                    &models,
                    &measure_home,
                    &metric_home,
                    &definitions,
                ),
                "cumulative" => cumulative(metric, &models, &measure_home),
                "conversion" => Err("conversion metrics have no Lore equivalent yet: one counts the base rows an entity follows with a conversion row within a window (each base row matched to a later row of the same entity), while a Lore measure aggregates one source's rows by themselves; compare the two simple metrics instead".into()),
                other => Err(format!("metric type `{other}` is not known")),
            };
            match outcome {
                Ok(Some(Placed {
                    home,
                    expr,
                    filter,
                    cumulative,
                    notes,
                    metric_time: _,
                    helpers,
                    non_additive,
                })) => {
                    metric_home.insert(name.to_string(), home);
                    let mut helper_names = Vec::new();
                    for (at, helper) in helpers {
                        helper_names.push(format!("{}.{}", models[at].name, helper.name));
                        let measures = &mut models[at].spec.measures;
                        measures.retain(|m| m.name != helper.name);
                        measures.push(helper);
                    }
                    let running = cumulative.as_ref().map(|c| {
                        format!(
                            " running over {} ({})",
                            c.time.as_deref().unwrap_or("its time column"),
                            match (&c.window, &c.grain_to_date) {
                                (Some(w), _) => format!("a window of {w}"),
                                (None, Some(g)) => format!("{g} to date"),
                                (None, None) => "all time".to_string(),
                            }
                        )
                    });
                    let measures = &mut models[home].spec.measures;
                    measures.retain(|m| m.name != name);
                    measures.push(MeasureSpec {
                        name: name.to_string(),
                        expr,
                        filter,
                        cumulative,
                        offset: None,
                        non_additive,
                        description,
                        descriptions: None,
                    });
                    if notes.is_empty() {
                        report.push(
                            "metric",
                            name,
                            Outcome::Imported,
                            format!(
                                "{kind} metric → measure {}.{name}{}{}",
                                models[home].name,
                                running.unwrap_or_default(),
                                if helper_names.is_empty() {
                                    String::new()
                                } else {
                                    format!(
                                        ", reading the offset measure{} {}",
                                        if helper_names.len() == 1 { "" } else { "s" },
                                        helper_names.join(", ")
                                    )
                                }
                            ),
                        );
                    } else {
                        report.push("metric", name, Outcome::Approximated, notes.join("; "));
                    }
                }
                Ok(None) => later.push(metric),
                Err(why) => report.push("metric", name, Outcome::Skipped, why),
            }
        }
        if later.is_empty() {
            pending = Vec::new();
            break;
        }
        pending = later;
    }
    for metric in pending {
        report.push(
            "metric",
            text(metric, "name").unwrap_or("?"),
            Outcome::Skipped,
            "its input metrics were not imported",
        );
    }
    // Measures no metric exposes are measures too, under their own names.
    for m in &mut models {
        for (mname, (expr, description)) in &m.measures {
            let full = format!("{}.{mname}", m.name);
            if m.spec.measures.iter().any(|x| &x.name == mname) {
                report.push(
                    "measure",
                    &full,
                    Outcome::Imported,
                    "through the metric of the same name",
                );
                continue;
            }
            m.spec.measures.push(MeasureSpec {
                name: mname.clone(),
                expr: expr.clone(),
                filter: None,
                cumulative: None,
                offset: None,
                non_additive: m.measure_non_additive.get(mname).cloned(),
                description: description.clone(),
                descriptions: None,
            });
            report.push(
                "measure",
                &full,
                Outcome::Imported,
                format!("measure {full}"),
            );
        }
    }
    // The time spine: a source listing every day, which cumulative
    // measures run over (dbt's time spine model with its standard
    // granularity column, or the older `metricflow_time_spine` model).
    if spines.is_empty() && (legacy_spine || relations.contains_key(LEGACY_SPINE)) {
        spines.push((LEGACY_SPINE.into(), "date_day".into(), "day".into()));
    }
    let mut sources: Vec<SourceSpec> = models.into_iter().map(|m| m.spec).collect();
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
        let mut spec = super::source(
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
    Ok(Imported { sources, report })
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

/// Where a metric lands: its source, its expression, its filter, its
/// running window, and how it was approximated.
struct Placed {
    home: usize,
    expr: String,
    filter: Option<String>,
    cumulative: Option<CumulativeSpec>,
    notes: Vec<String>,
    /// The time dimension its measure is aggregated by (simple metrics).
    metric_time: Option<String>,
    /// Measures it needs beside it, each on its source: a derived
    /// metric's inputs read at an earlier time.
    helpers: Vec<(usize, MeasureSpec)>,
    /// The day whose rows its measure counts (non-additive measures).
    non_additive: Option<NonAdditiveSpec>,
}

impl Placed {
    /// An expression over measures (ratio and derived metrics).
    fn expression(home: usize, expr: String) -> Placed {
        Placed {
            home,
            expr,
            filter: None,
            cumulative: None,
            notes: Vec::new(),
            metric_time: None,
            helpers: Vec::new(),
            non_additive: None,
        }
    }
}

/// A placed metric, or `None` when its inputs are not placed yet.
type Placement = Option<Placed>;

/// A simple metric: its measure's aggregate on the measure's source, with
/// its filter translated.
fn simple(
    metric: &Value,
    models: &[Model],
    measure_home: &BTreeMap<String, usize>,
    cumulative: bool,
) -> Result<Placement, String> {
    let measure = metric
        .pointer("/type_params/measure")
        .ok_or("no type_params.measure")?;
    let (mname, params) = match measure {
        Value::String(s) => (s.clone(), None),
        v => (
            text(v, "name")
                .ok_or("type_params.measure has no name")?
                .to_string(),
            Some(v),
        ),
    };
    let Some(home) = measure_home.get(&mname).copied() else {
        return Err(format!(
            "measure `{mname}` is not a measure of an imported semantic model"
        ));
    };
    let model = &models[home];
    let (expr, _) = model.measures[&mname].clone();
    let mut notes = Vec::new();
    if let Some(params) = params {
        if params.get("fill_nulls_with").is_some() {
            notes
                .push("fill_nulls_with: empty periods are left out rather than filled".to_string());
        }
        if params.get("join_to_timespine").and_then(Value::as_bool) == Some(true) {
            notes.push("join_to_timespine: periods without rows are not listed".to_string());
        }
        if params.get("filter").is_some() {
            return Err(
                "a filter on the metric's measure input is not carried; put it on the metric"
                    .into(),
            );
        }
    }
    // `filter` is one condition or a list of them, all to hold.
    let filters: Vec<&str> = match metric.get("filter") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(f)) => vec![f.as_str()],
        Some(Value::Array(all)) => all
            .iter()
            .map(|f| f.as_str().ok_or("a filter in the list is not text"))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("filter is neither text nor a list of text".into()),
    };
    let scope = FilterScope {
        home,
        metric_time: model.measure_time.get(&mname).map(String::as_str),
        cumulative,
    };
    let filter = match filters.as_slice() {
        [] => None,
        [one] => Some(translate_filter(one, &scope, models)?),
        many => Some(
            many.iter()
                .map(|f| translate_filter(f, &scope, models).map(|sql| format!("({sql})")))
                .collect::<Result<Vec<_>, _>>()?
                .join(" AND "),
        ),
    };
    Ok(Some(Placed {
        home,
        expr,
        filter,
        cumulative: None,
        notes,
        metric_time: scope.metric_time.map(str::to_string),
        helpers: Vec::new(),
        non_additive: model.measure_non_additive.get(&mname).cloned(),
    }))
}

/// A measure's `non_additive_dimension` (a time dimension of its model,
/// `window_choice: max | min`, `window_groupings` of its model's
/// entities) as Lore's `non_additive`.
fn non_additive(nad: &Value, model: &Model) -> Result<NonAdditiveSpec, String> {
    let name = match nad {
        Value::String(s) => s.trim(),
        v => text(v, "name").unwrap_or_default(),
    };
    if !model.time_grains.contains_key(name) {
        return Err(format!(
            "non_additive_dimension `{name}` is not a time dimension of semantic model {}",
            model.name
        ));
    }
    let keep = match text(nad, "window_choice").map(str::to_lowercase).as_deref() {
        None | Some("max") => Keep::Last,
        Some("min") => Keep::First,
        Some(other) => {
            return Err(format!(
                "non_additive_dimension window_choice `{other}` is not max or min"
            ));
        }
    };
    let mut per = Vec::new();
    for entity in nad
        .get("window_groupings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let entity = entity.as_str().unwrap_or_default();
        let Some((column, _)) = model.entities.get(entity) else {
            return Err(format!(
                "non_additive_dimension window_groupings: `{entity}` is not an entity of semantic model {}",
                model.name
            ));
        };
        per.push(column.clone());
    }
    Ok(NonAdditiveSpec {
        time: Some(name.to_string()),
        keep: Some(keep),
        per,
    })
}

/// A derived metric: its expression over the input metrics' measures
/// (inputs on other sources named `source.metric`). An input read at an
/// earlier time (`offset_window`, `offset_to_grain`) that is a simple
/// metric becomes an offset measure of its own, `<metric>__<alias>`, on
/// the input's source, and the expression reads that.
fn derived(
    name: &str,
    metric: &Value,
    models: &[Model],
    measure_home: &BTreeMap<String, usize>,
    metric_home: &BTreeMap<String, usize>,
    definitions: &BTreeMap<String, &Value>,
) -> Result<Placement, String> {
    let expr = metric
        .pointer("/type_params/expr")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let inputs = metric
        .pointer("/type_params/metrics")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut home = None;
    let mut helpers: Vec<(usize, MeasureSpec)> = Vec::new();
    let mut notes = Vec::new();
    // Each word of the expression, the measure it means and its source.
    let mut words: Vec<(String, String, usize)> = Vec::new();
    for input in &inputs {
        let (iname, alias) = match input {
            Value::String(s) => (s.clone(), None),
            v => (
                text(v, "name").unwrap_or_default().to_string(),
                text(v, "alias").map(str::to_string),
            ),
        };
        if input.get("filter").is_some_and(|f| !f.is_null()) {
            return Err(format!("input {iname} has its own filter"));
        }
        let Some(&ihome) = metric_home.get(&iname) else {
            return Ok(None);
        };
        home.get_or_insert(ihome);
        let word = alias.unwrap_or_else(|| iname.clone());
        let Some((window, to_grain)) = input_offset(input, &iname)? else {
            words.push((word, iname, ihome));
            continue;
        };
        let def = definitions
            .get(&iname)
            .ok_or(format!("input {iname} is not a metric of the project"))?;
        let kind = text(def, "type").unwrap_or("simple");
        if kind != "simple" {
            return Err(format!(
                "input {iname} is read at an earlier time and is a {kind} metric; Lore reads the measure of a simple metric at an earlier time only"
            ));
        }
        let Some(placed) = simple(def, models, measure_home, false)? else {
            return Ok(None);
        };
        if placed.non_additive.is_some() {
            return Err(format!(
                "input {iname} is read at an earlier time and its measure is non-additive, which Lore does not shift in time"
            ));
        }
        let Some(time) = placed.metric_time.clone() else {
            return Err(format!(
                "input {iname}: its measure has no agg_time_dimension, so the time it is shifted along is unknown"
            ));
        };
        if let Some(grain) = models[placed.home]
            .time_grains
            .get(&time)
            .filter(|g| *g != "day")
        {
            notes.push(format!(
                "input {iname}'s time dimension `{time}` is at the {grain} grain; Lore shifts it day by day"
            ));
        }
        let helper = format!("{name}__{word}");
        let shift = match (&window, &to_grain) {
            (Some(w), _) => format!("{w} earlier"),
            (_, Some(g)) => format!("at the start of the {g}"),
            _ => String::new(),
        };
        helpers.push((
            placed.home,
            MeasureSpec {
                name: helper.clone(),
                expr: placed.expr,
                filter: placed.filter,
                cumulative: None,
                non_additive: None,
                offset: Some(OffsetSpec {
                    time: Some(time),
                    window,
                    to_grain,
                }),
                description: Some(format!("{iname}, {shift} (input of {name})")),
                descriptions: None,
            },
        ));
        words.push((word, helper, placed.home));
    }
    let Some(home) = home else {
        return Err("a derived metric without input metrics".into());
    };
    // Every word at once, so that a name put in is not replaced again.
    let replacements: BTreeMap<String, String> = words
        .into_iter()
        .map(|(word, means, ihome)| {
            let target = if ihome == home {
                means
            } else {
                format!("{}.{means}", models[ihome].name)
            };
            (word, target)
        })
        .collect();
    let mut placed = Placed::expression(home, replace_words(&expr, &replacements));
    placed.helpers = helpers;
    placed.notes = notes;
    Ok(Some(placed))
}

/// An input's shift in time, as (`window`, `to_grain`), when it has one.
type InputOffset = Option<(Option<String>, Option<String>)>;

/// The `offset_window` or `offset_to_grain` of a derived metric's input,
/// checked.
fn input_offset(input: &Value, iname: &str) -> Result<InputOffset, String> {
    let window = match input.get("offset_window").filter(|v| !v.is_null()) {
        None => None,
        Some(Value::String(w)) => Some(w.trim().to_string()),
        Some(v) => match (
            v.get("count").and_then(Value::as_u64),
            text(v, "granularity"),
        ) {
            (Some(count), Some(unit)) => Some(format!("{count} {unit}")),
            _ => {
                return Err(format!(
                    "input {iname}: offset_window `{v}` is not `<count> <unit>`"
                ));
            }
        },
    };
    let to_grain = input
        .get("offset_to_grain")
        .and_then(Value::as_str)
        .map(|g| g.trim().to_lowercase());
    match (&window, &to_grain) {
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(format!(
            "input {iname} has both offset_window and offset_to_grain"
        )),
        (Some(w), None) => {
            parse_span(w).map_err(|why| format!("input {iname}: {why}"))?;
            Ok(Some((window, None)))
        }
        (None, Some(g)) => {
            if Granularity::parse(g).is_none() {
                return Err(format!(
                    "input {iname}: offset_to_grain `{g}` is not one of day, week, month, quarter, year"
                ));
            }
            Ok(Some((None, to_grain)))
        }
    }
}

/// A cumulative metric: its measure's aggregate (and filter) as a simple
/// metric's, running over the measure's `agg_time_dimension` with the
/// metric's window (`type_params.window` / `grain_to_date`, or the same
/// under `cumulative_type_params`, with `period_agg`).
fn cumulative(
    metric: &Value,
    models: &[Model],
    measure_home: &BTreeMap<String, usize>,
) -> Result<Placement, String> {
    let Some(mut placed) = simple(metric, models, measure_home, true)? else {
        return Ok(None);
    };
    if placed.non_additive.is_some() {
        return Err("its measure is non-additive (non_additive_dimension), which Lore does not run over time".into());
    }
    let params = metric.pointer("/type_params/cumulative_type_params");
    let param = |key: &str| -> Option<&Value> {
        params
            .and_then(|p| p.get(key))
            .or_else(|| metric.pointer(&format!("/type_params/{key}")))
            .filter(|v| !v.is_null())
    };
    let window = match param("window") {
        None => None,
        Some(Value::String(w)) => Some(w.trim().to_string()),
        // The manifest's spelling: {count, granularity}.
        Some(v) => match (
            v.get("count").and_then(Value::as_u64),
            text(v, "granularity"),
        ) {
            (Some(count), Some(unit)) => Some(format!("{count} {unit}")),
            _ => return Err(format!("window `{v}` is not `<count> <unit>`")),
        },
    };
    if let Some(w) = &window {
        RunningWindow::parse_trailing(w).map_err(|why| {
            format!("{why}; Lore's windows are counted in days, weeks, months, quarters or years")
        })?;
    }
    let grain_to_date = param("grain_to_date")
        .and_then(Value::as_str)
        .map(|g| g.trim().to_lowercase());
    if let Some(g) = &grain_to_date
        && Granularity::parse(g).is_none()
    {
        return Err(format!(
            "grain_to_date `{g}` is not one of day, week, month, quarter, year"
        ));
    }
    let period_agg = match param("period_agg").and_then(Value::as_str) {
        None => None,
        Some(a) => Some(match a.trim().to_lowercase().as_str() {
            "first" => PeriodAgg::First,
            "last" => PeriodAgg::Last,
            "average" => PeriodAgg::Average,
            other => {
                return Err(format!(
                    "period_agg `{other}` is not first, last or average"
                ));
            }
        }),
    };
    // The measure's time dimension is the column it runs over.
    let mname = match metric.pointer("/type_params/measure") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => text(v, "name").unwrap_or_default().to_string(),
        None => String::new(),
    };
    let model = &models[placed.home];
    let time = match model.measure_time.get(&mname) {
        Some(t) => t.clone(),
        None => match model.time_grains.keys().collect::<Vec<_>>().as_slice() {
            [only] => (*only).clone(),
            _ => {
                return Err(format!(
                    "measure `{mname}` has no agg_time_dimension (and semantic model {} no defaults.agg_time_dimension), so the time it runs over is unknown",
                    model.name
                ));
            }
        },
    };
    let Some(grain) = model.time_grains.get(&time) else {
        return Err(format!(
            "its time dimension `{time}` is not a time dimension of semantic model {}",
            model.name
        ));
    };
    if grain != "day" {
        placed.notes.push(format!(
            "its time dimension `{time}` is at the {grain} grain, where MetricFlow runs the window; Lore runs it day by day"
        ));
    }
    placed.cumulative = Some(CumulativeSpec {
        time: Some(time),
        window,
        grain_to_date,
        period_agg,
    });
    Ok(Some(placed))
}

/// Whom a metric's filter speaks of: the semantic model of its measure,
/// the time dimension `metric_time` means there, and whether the metric
/// is cumulative.
struct FilterScope<'a> {
    home: usize,
    metric_time: Option<&'a str>,
    cumulative: bool,
}

/// `{{ Dimension('entity__dim') }}` → the dimension's SQL when it is a
/// dimension of this source's own model, or `model.dim` (a column of
/// another source, which Lore's planner reaches through the joins) when
/// `entity` is another model's primary key; `{{ Entity('e') }}` → its key
/// column; `{{ TimeDimension('metric_time' | 'entity__dim', 'month') }}` →
/// `date_trunc('month', column)`, which Lore renders for each engine
/// (`metric_time` is the measure's `agg_time_dimension`).
fn translate_filter(
    filter: &str,
    scope: &FilterScope<'_>,
    models: &[Model],
) -> Result<String, String> {
    let model = &models[scope.home];
    let mut out = String::new();
    let mut rest = filter.trim();
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("}}") else {
            return Err(format!("filter `{filter}` opens {{{{ without closing it"));
        };
        let inner = rest[start + 2..start + end].trim();
        let (call, args) = inner
            .split_once('(')
            .and_then(|(c, a)| Some((c.trim(), a.trim().strip_suffix(')')?)))
            .ok_or(format!(
                "`{inner}` in a filter is not Dimension(…), TimeDimension(…) or Entity(…)"
            ))?;
        let args = call_args(args);
        let arg = args
            .iter()
            .find(|(key, _)| key.is_none())
            .map(|(_, v)| v.as_str())
            .unwrap_or_default();
        match call {
            "Dimension" => out.push_str(&dimension_sql(arg, model, models)?),
            "Entity" => {
                let entity = arg.rsplit("__").next().unwrap_or(arg);
                let (column, _) = model.entities.get(entity).ok_or(format!(
                    "the filter's entity `{arg}` is not on semantic model {}",
                    model.name
                ))?;
                out.push_str(column);
            }
            "TimeDimension" => out.push_str(&time_dimension_sql(&args, scope, models)?),
            other => return Err(format!("`{other}(…)` in a filter is not known")),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    Ok(out.trim().to_string())
}

/// The arguments of a call in a filter, unquoted: positional ones as
/// `(None, value)`, keyword ones as `(Some(key), value)`.
fn call_args(text: &str) -> Vec<(Option<String>, String)> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let (mut depth, mut quote) = (0usize, None::<char>);
    for c in text.chars() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            ('[' | '(', None) => depth += 1,
            (']' | ')', None) => depth = depth.saturating_sub(1),
            (',', None) if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    let unquote = |v: &str| v.trim().trim_matches(|c| c == '\'' || c == '"').to_string();
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.split_once('=') {
            Some((key, value)) if is_identifier(key.trim()) => {
                (Some(key.trim().to_string()), unquote(value))
            }
            _ => (None, unquote(p)),
        })
        .collect()
}

/// `TimeDimension(name, grain)` as `date_trunc('grain', column)`.
fn time_dimension_sql(
    args: &[(Option<String>, String)],
    scope: &FilterScope<'_>,
    models: &[Model],
) -> Result<String, String> {
    let model = &models[scope.home];
    let mut positional = args.iter().filter(|(k, _)| k.is_none()).map(|(_, v)| v);
    let name = positional.next().map(String::as_str).unwrap_or_default();
    let grain = positional.next().or_else(|| {
        args.iter()
            .find(|(k, _)| {
                matches!(
                    k.as_deref(),
                    Some("time_granularity_name" | "time_granularity" | "grain")
                )
            })
            .map(|(_, v)| v)
    });
    let (owner, dim) = if name == "metric_time" {
        if scope.cumulative {
            return Err("on a cumulative metric, a filter on metric_time chooses the days MetricFlow shows, not the rows it counts, which a Lore measure's filter cannot say; filter the query on the time column instead (that chooses the days)".into());
        }
        let Some(time) = scope.metric_time else {
            return Err(format!(
                "metric_time in the filter: the measure has no agg_time_dimension on semantic model {}",
                model.name
            ));
        };
        (model, time)
    } else {
        dimension_owner(name, model, models)?
    };
    let Some(own_grain) = owner.time_grains.get(dim) else {
        return Err(format!(
            "TimeDimension('{name}'): `{dim}` is not a time dimension of semantic model {}",
            owner.name
        ));
    };
    let grain = grain.unwrap_or(own_grain).to_lowercase();
    let Some(granularity) = Granularity::parse(&grain) else {
        return Err(format!(
            "TimeDimension('{name}', '{grain}'): Lore truncates time to day, week, month, quarter or year"
        ));
    };
    let column = if std::ptr::eq(owner, model) {
        format!(
            "({})",
            owner.dimensions.get(dim).map_or(dim, String::as_str)
        )
    } else {
        format!("{}.{dim}", owner.name)
    };
    Ok(format!("date_trunc('{}', {column})", granularity.as_str()))
}

/// Whether `entity` identifies rows of `model` (so its dimensions are
/// reached by that entity).
fn identifies(model: &Model, entity: &str) -> bool {
    model
        .entities
        .get(entity)
        .is_some_and(|(_, kind)| matches!(kind.as_str(), "primary" | "unique" | "natural"))
}

/// The semantic model owning a filter's `entity__dim` (or `e1__e2__dim`:
/// the last entity owns the dimension), and the dimension's name.
fn dimension_owner<'a>(
    arg: &'a str,
    model: &'a Model,
    models: &'a [Model],
) -> Result<(&'a Model, &'a str), String> {
    let parts: Vec<&str> = arg.split("__").collect();
    let (dim, entities) = parts.split_last().ok_or("an empty dimension name")?;
    let owner = match entities.last() {
        None => Some(model),
        Some(entity) if identifies(model, entity) => Some(model),
        Some(entity) => models
            .iter()
            .find(|m| identifies(m, entity) && m.dimensions.contains_key(*dim)),
    };
    match owner {
        Some(m) if std::ptr::eq(m, model) && !model.dimensions.contains_key(*dim) => Err(format!(
            "the filter's dimension `{arg}` is not a dimension of semantic model {}",
            model.name
        )),
        Some(m) => Ok((m, dim)),
        None => Err(format!(
            "the filter's dimension `{arg}`: no semantic model identified by `{}` has a dimension `{dim}`",
            entities.last().copied().unwrap_or_default()
        )),
    }
}

/// A filter's `entity__dim` as SQL over the metric's source.
fn dimension_sql(arg: &str, model: &Model, models: &[Model]) -> Result<String, String> {
    let (owner, dim) = dimension_owner(arg, model, models)?;
    Ok(if std::ptr::eq(owner, model) {
        format!("({})", model.dimensions[dim])
    } else {
        format!("{}.{dim}", owner.name)
    })
}

/// `text` with each whole word that is a key of `with` replaced by its
/// value, in one pass.
fn replace_words(text: &str, with: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut buffer = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            buffer.push(c);
        } else {
            if !buffer.is_empty() {
                out.push_str(with.get(&buffer).unwrap_or(&buffer));
                buffer.clear();
            }
            out.push(c);
        }
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
