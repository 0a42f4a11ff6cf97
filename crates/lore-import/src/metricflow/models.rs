//! MetricFlow semantic models → Lore sources: the model's relation, its
//! entities (the grain and hidden key columns), its dimensions (columns,
//! time dimensions `time`) and its measures (aggregates kept for the
//! metrics that expose them), then the joins foreign entities make.

use std::collections::BTreeMap;

use lore_semantic::model::{Cardinality, ColumnSpec, ColumnType, JoinSpec, SourceSpec, Visibility};
use lore_warehouse::catalog::LoadedSnapshot;
use serde_json::Value;

use super::metrics::non_additive;
use super::{Documents, Model, aggregate, is_identifier, ref_name, text};
use crate::{ImportReport, Outcome, identifiers, scanned_type};

/// Every semantic model that names a known relation, as a `Model`.
pub(super) fn models(
    documents: &Documents,
    relations: &BTreeMap<String, String>,
    scan: Option<&LoadedSnapshot>,
    report: &mut ImportReport,
) -> Vec<Model> {
    let mut models = Vec::new();
    for sm in &documents.semantic_models {
        let Some((name, dbt_model, table)) = relation_of(sm, relations, report) else {
            continue;
        };
        let mut builder = ModelBuilder {
            model: Model {
                name: name.clone(),
                spec: crate::source(
                    &name,
                    text(sm, "description").map(|d| d.trim().to_string()),
                    Some(table.clone()),
                    None,
                ),
                entities: BTreeMap::new(),
                dimensions: BTreeMap::new(),
                measures: BTreeMap::new(),
                measure_time: BTreeMap::new(),
                time_grains: BTreeMap::new(),
                measure_non_additive: BTreeMap::new(),
            },
            docs: documents
                .column_docs
                .get(&dbt_model)
                .cloned()
                .unwrap_or_default(),
            table: table.clone(),
            scan,
        };
        if sm.pointer("/defaults/agg_time_dimension").is_some() {
            report.push(
                "semantic_model",
                &name,
                Outcome::Approximated,
                "defaults.agg_time_dimension: Lore queries name the time dimension they group by",
            );
        }
        builder.entities(sm, report);
        builder.dimensions(sm, report);
        builder.measures(sm, report);
        report.push(
            "semantic_model",
            &name,
            Outcome::Imported,
            format!("source {name} over {table}"),
        );
        models.push(builder.model);
    }
    models
}

/// The semantic model's name, its dbt model and the relation it reads;
/// `None` (reported skipped) when there is none.
fn relation_of(
    sm: &Value,
    relations: &BTreeMap<String, String>,
    report: &mut ImportReport,
) -> Option<(String, String, String)> {
    let Some(name) = text(sm, "name") else {
        report.push(
            "semantic_model",
            "?",
            Outcome::Skipped,
            "a semantic model without a name",
        );
        return None;
    };
    let model_ref = text(sm, "model").unwrap_or_default();
    let Some(dbt_model) = ref_name(model_ref) else {
        report.push(
            "semantic_model",
            name,
            Outcome::Skipped,
            format!("model `{model_ref}` is not ref('…')"),
        );
        return None;
    };
    let table = match relations.get(&dbt_model) {
        Some(relation) => relation.clone(),
        None if relations.is_empty() => dbt_model.clone(),
        None => {
            report.push(
                "semantic_model",
                name,
                Outcome::Skipped,
                format!("ref('{dbt_model}') is not a model of target/manifest.json"),
            );
            return None;
        }
    };
    Some((name.to_string(), dbt_model, table))
}

/// One semantic model being turned into a source.
struct ModelBuilder<'a> {
    model: Model,
    /// Column descriptions of its dbt model, by lower-cased name.
    docs: BTreeMap<String, String>,
    table: String,
    scan: Option<&'a LoadedSnapshot>,
}

fn list<'v>(value: &'v Value, key: &str) -> impl Iterator<Item = &'v Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

impl ModelBuilder<'_> {
    /// Adds a column unless one of that name exists; its description
    /// defaults to the dbt model's.
    fn add_column(
        &mut self,
        column: &str,
        expr: Option<String>,
        kind: ColumnType,
        visibility: Option<Visibility>,
        description: Option<String>,
    ) {
        let spec: &mut SourceSpec = &mut self.model.spec;
        if spec.columns.iter().any(|c| c.name == column) {
            return;
        }
        spec.columns.push(ColumnSpec {
            name: column.to_string(),
            column_type: kind,
            expr,
            visibility,
            role: None,
            description: description.or_else(|| self.docs.get(&column.to_lowercase()).cloned()),
            descriptions: None,
        });
    }

    /// The scanned type of a column of the model's relation.
    fn scanned(&self, column: &str) -> Option<ColumnType> {
        scanned_type(self.scan, &self.table, column)
    }

    /// Entities: hidden key columns; a primary entity is the grain.
    fn entities(&mut self, sm: &Value, report: &mut ImportReport) {
        let name = self.model.name.clone();
        for entity in list(sm, "entities") {
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
            let ctype = self.scanned(&column).unwrap_or(ColumnType::Number);
            self.add_column(&column, column_expr, ctype, Some(Visibility::Hidden), None);
            if kind == "primary" {
                self.model.spec.grain = vec![column.clone()];
            }
            self.model
                .entities
                .insert(ename.to_string(), (column.clone(), kind.clone()));
            report.push(
                "entity",
                &format!("{name}.{ename}"),
                Outcome::Imported,
                format!("{kind} key {column}"),
            );
        }
    }

    /// Dimensions: public columns (time dimensions `time`, with their
    /// finest grain); a dimension whose expr reads other columns declares
    /// them hidden.
    fn dimensions(&mut self, sm: &Value, report: &mut ImportReport) {
        let name = self.model.name.clone();
        for dim in list(sm, "dimensions") {
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
                    .and_then(|c| self.scanned(c))
                    .unwrap_or(ColumnType::String)
            };
            let column_expr = expr.clone().filter(|e| e != dname);
            // A dimension whose expr is another column is that column, named as the dimension.
            if let Some(e) = &column_expr {
                for id in identifiers(e) {
                    if id != dname {
                        let t = self.scanned(&id).unwrap_or(ColumnType::String);
                        self.add_column(&id, None, t, Some(Visibility::Hidden), None);
                    }
                }
            }
            let description = text(dim, "description").map(str::to_string);
            self.add_column(dname, column_expr.clone(), ctype, None, description);
            if let Some(c) = self.model.spec.columns.iter_mut().find(|c| c.name == dname) {
                c.visibility = None;
            }
            self.model.dimensions.insert(
                dname.to_string(),
                column_expr.unwrap_or_else(|| dname.to_string()),
            );
            let granularity = dim
                .pointer("/type_params/time_granularity")
                .and_then(Value::as_str);
            if time {
                self.model
                    .time_grains
                    .insert(dname.to_string(), granularity.unwrap_or("day").to_string());
            }
            let detail = match granularity {
                Some(g) => format!("time column (finest grain {g})"),
                None if time => "time column".into(),
                None => "column".into(),
            };
            report.push(
                "dimension",
                &format!("{name}.{dname}"),
                Outcome::Imported,
                detail,
            );
        }
    }

    /// Measures: each aggregate, kept by name for the metrics (and
    /// exposed under its own name when no metric takes it); the columns it
    /// reads are declared hidden.
    fn measures(&mut self, sm: &Value, report: &mut ImportReport) {
        let name = self.model.name.clone();
        let default_time = sm
            .pointer("/defaults/agg_time_dimension")
            .and_then(Value::as_str)
            .map(str::to_string);
        for measure in list(sm, "measures") {
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
                match non_additive(nad, &self.model) {
                    Ok(spec) => {
                        self.model
                            .measure_non_additive
                            .insert(mname.to_string(), spec);
                    }
                    Err(why) => {
                        report.push("measure", &full, Outcome::Skipped, why);
                        continue;
                    }
                }
            }
            let agg = text(measure, "agg").unwrap_or("sum");
            let lore_expr = match aggregate(agg, &expr, measure.get("agg_params")) {
                Ok(lore_expr) => lore_expr,
                Err(why) => {
                    report.push("measure", &full, Outcome::Skipped, why);
                    continue;
                }
            };
            for id in identifiers(&expr) {
                let t = self.scanned(&id).unwrap_or(ColumnType::Number);
                self.add_column(&id, None, t, Some(Visibility::Hidden), None);
            }
            self.model.measures.insert(
                mname.to_string(),
                (lore_expr, text(measure, "description").map(str::to_string)),
            );
            if let Some(t) = text(measure, "agg_time_dimension")
                .map(str::to_string)
                .or_else(|| default_time.clone())
            {
                self.model.measure_time.insert(mname.to_string(), t);
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
    }
}

/// Joins: a foreign entity → the model where it is primary or unique
/// (many-to-one); a foreign entity no model identifies is reported.
pub(super) fn join_entities(models: &mut [Model], report: &mut ImportReport) {
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
    for m in models.iter_mut() {
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
}
