//! MetricFlow metrics → measures on the sources: each metric placed on
//! its home source (ratio and derived metrics may name metrics defined
//! later, so placing runs in rounds), the offset helpers it needs beside
//! it, and the report's line for it; then measures no metric exposes,
//! under their own names.

use std::collections::BTreeMap;

use lore_semantic::model::MeasureSpec;
use serde_json::Value;

use super::conversion_metrics::conversion;
use super::metrics::{Placed, Placement, cumulative, derived, simple};
use super::{Documents, Model, text};
use crate::{ImportReport, Outcome};

/// Rounds of placing: a metric whose inputs are not placed yet waits for
/// the next round.
const ROUNDS: usize = 4;

/// Places every metric (and every measure with `create_metric`), and
/// returns the conversion measures placed: (their source, their name).
pub(super) fn place_metrics(
    documents: &Documents,
    models: &mut [Model],
    report: &mut ImportReport,
) -> Vec<(usize, String)> {
    let created = created_metrics(documents);
    let definitions: BTreeMap<String, &Value> = documents
        .metrics
        .iter()
        .chain(created.iter())
        .filter_map(|m| text(m, "name").map(|n| (n.to_string(), m)))
        .collect();
    let mut placing = Placing {
        measure_home: models
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.measures.keys().map(move |k| (k.clone(), i)))
            .collect(),
        metric_home: BTreeMap::new(),
        converting: Vec::new(),
        definitions: &definitions,
    };
    let mut pending: Vec<&Value> = documents.metrics.iter().chain(created.iter()).collect();
    for _round in 0..ROUNDS {
        let mut later = Vec::new();
        for metric in pending {
            let Some(name) = text(metric, "name") else {
                continue;
            };
            match placing.place(name, metric, models) {
                Ok(Some(placed)) => placing.record(name, metric, placed, models, report),
                Ok(None) => later.push(metric),
                Err(why) => report.push("metric", name, Outcome::Skipped, why),
            }
        }
        pending = later;
        if pending.is_empty() {
            break;
        }
    }
    for metric in pending {
        report.push(
            "metric",
            text(metric, "name").unwrap_or("?"),
            Outcome::Skipped,
            "its input metrics were not imported",
        );
    }
    placing.converting
}

/// Measures with `create_metric` become simple metrics of their name.
fn created_metrics(documents: &Documents) -> Vec<Value> {
    let mut created = Vec::new();
    for sm in &documents.semantic_models {
        for measure in sm
            .get("measures")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if measure.get("create_metric").and_then(Value::as_bool) == Some(true)
                && let Some(mname) = text(measure, "name")
                && !documents
                    .metrics
                    .iter()
                    .any(|m| text(m, "name") == Some(mname))
            {
                created.push(serde_json::json!({"name": mname, "type": "simple", "type_params": {"measure": mname}, "description": measure.get("description")}));
            }
        }
    }
    created
}

/// Where measures and metrics placed so far live.
struct Placing<'d> {
    measure_home: BTreeMap<String, usize>,
    metric_home: BTreeMap<String, usize>,
    converting: Vec<(usize, String)>,
    definitions: &'d BTreeMap<String, &'d Value>,
}

impl Placing<'_> {
    /// Where a metric lands, `None` while its inputs are not placed, or
    /// why it cannot be imported.
    fn place(&self, name: &str, metric: &Value, models: &[Model]) -> Result<Placement, String> {
        match text(metric, "type").unwrap_or("simple") {
            "simple" => simple(metric, models, &self.measure_home, false),
            "ratio" => self.ratio(metric, models),
            "derived" => derived(
                name,
                metric,
                models,
                &self.measure_home,
                &self.metric_home,
                self.definitions,
            ),
            "cumulative" => cumulative(metric, models, &self.measure_home),
            "conversion" => conversion(metric, models, &self.measure_home),
            other => Err(format!("metric type `{other}` is not known")),
        }
    }

    /// A ratio metric: numerator over denominator, on the numerator's
    /// source (a denominator on another source named with its source).
    fn ratio(&self, metric: &Value, models: &[Model]) -> Result<Placement, String> {
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
        let (n, d) = (part("numerator")?, part("denominator")?);
        let (Some(&home), Some(&other)) = (self.metric_home.get(&n), self.metric_home.get(&d))
        else {
            return Ok(None);
        };
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

    /// Writes a placed metric as a measure of its home source (with its
    /// helpers) and reports it.
    fn record(
        &mut self,
        name: &str,
        metric: &Value,
        placed: Placed,
        models: &mut [Model],
        report: &mut ImportReport,
    ) {
        let Placed {
            home,
            expr,
            filter,
            cumulative,
            notes,
            metric_time: _,
            helpers,
            non_additive,
            conversion,
            detail,
        } = placed;
        self.metric_home.insert(name.to_string(), home);
        if conversion.is_some() {
            self.converting.push((home, name.to_string()));
        }
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
            conversion,
            description: text(metric, "description")
                .or(text(metric, "label"))
                .map(str::to_string),
            descriptions: None,
        });
        if !notes.is_empty() {
            let mut why = notes.join("; ");
            if let Some(d) = &detail {
                why = format!("{d}; {why}");
            }
            report.push("metric", name, Outcome::Approximated, why);
            return;
        }
        let kind = text(metric, "type").unwrap_or("simple");
        let detail = detail.map(|d| format!(": {d}")).unwrap_or_default();
        let helpers = if helper_names.is_empty() {
            String::new()
        } else {
            format!(
                ", reading the offset measure{} {}",
                if helper_names.len() == 1 { "" } else { "s" },
                helper_names.join(", ")
            )
        };
        report.push(
            "metric",
            name,
            Outcome::Imported,
            format!(
                "{kind} metric → measure {}.{name}{}{detail}{helpers}",
                models[home].name,
                running.unwrap_or_default(),
            ),
        );
    }
}

/// Measures no metric exposes are measures too, under their own names.
pub(super) fn expose_measures(models: &mut [Model], report: &mut ImportReport) {
    for m in models.iter_mut() {
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
                conversion: None,
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
}
