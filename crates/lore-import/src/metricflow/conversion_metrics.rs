//! MetricFlow conversion metrics as Lore conversion measures: the base
//! and conversion measures, the entity's and constant properties'
//! columns on each side, each side's `agg_time_dimension`, the window,
//! the calculation and the conversion measure's `fill_nulls_with`, with
//! the metric's filter choosing the base rows.

use std::collections::BTreeMap;

use lore_semantic::model::{Calculation, ColumnPair, ConversionSpec, parse_span};
use serde_json::Value;

use super::filters::FilterScope;
use super::metrics::{Placed, Placement, filter_of, window_text};
use super::{Model, text};

/// One input measure of a conversion metric: its name and its settings
/// (`{name, filter, fill_nulls_with, join_to_timespine}`) when written as
/// an object.
fn input_measure<'a>(params: &'a Value, key: &str) -> Result<(String, Option<&'a Value>), String> {
    match params.get(key) {
        Some(Value::String(s)) => Ok((s.trim().to_string(), None)),
        Some(v) if v.is_object() => Ok((
            text(v, "name")
                .ok_or(format!("conversion_type_params.{key} has no name"))?
                .to_string(),
            Some(v),
        )),
        _ => Err(format!("no conversion_type_params.{key}")),
    }
}

/// A conversion metric as a conversion measure on its base measure's
/// source: the base and conversion measures (named as the measures
/// themselves), the entity's column on each side, the window, the
/// calculation, the constant properties' columns, each side's
/// `agg_time_dimension`, and the conversion measure's `fill_nulls_with`.
/// The metric's filter and the base measure's filter choose the base
/// rows, as MetricFlow applies them; the conversion measure's filter is
/// left out, as MetricFlow leaves it out.
pub(super) fn conversion(
    metric: &Value,
    models: &[Model],
    measure_home: &BTreeMap<String, usize>,
) -> Result<Placement, String> {
    let params = metric
        .pointer("/type_params/conversion_type_params")
        .filter(|v| v.is_object())
        .ok_or("no type_params.conversion_type_params")?;
    let (base, base_input) = input_measure(params, "base_measure")?;
    let (converted, conversion_input) = input_measure(params, "conversion_measure")?;
    let home_of = |m: &str| {
        measure_home.get(m).copied().ok_or(format!(
            "measure `{m}` is not a measure of an imported semantic model"
        ))
    };
    let (home, target) = (home_of(&base)?, home_of(&converted)?);
    let (model, other) = (&models[home], &models[target]);
    for (m, at) in [(&base, model), (&converted, other)] {
        if at.measure_non_additive.contains_key(m.as_str()) {
            return Err(format!(
                "measure `{m}` is non-additive (non_additive_dimension), which Lore does not match to conversions"
            ));
        }
    }
    let entity = text(params, "entity").ok_or("no conversion_type_params.entity")?;
    let entity_columns = pair(
        column_of(model, entity, "entity")?,
        column_of(other, entity, "entity")?,
    );
    let constant = constant_properties(params, model, other)?;
    let window = window_text(params.get("window").filter(|v| !v.is_null()))?;
    if let Some(w) = &window {
        parse_span(w).map_err(|why| {
            format!("{why}; Lore's windows are counted in days, weeks, months, quarters or years")
        })?;
    }
    let calculation = calculation_of(params)?;
    let (times, mut notes) = conversion_times((model, &base), (other, &converted))?;
    let time = pair(times.0.clone(), times.1.clone());
    // The metric's filter and the base measure's choose the base rows.
    let scope = FilterScope {
        home,
        metric_time: Some(times.0.as_str()),
        cumulative: false,
    };
    let filter = base_rows_filter(metric, base_input, &scope, models)?;
    notes.extend(timespine_notes(base_input, conversion_input));
    let fill_nulls_with = fill_nulls_with(conversion_input)?;
    let mut detail = format!(
        "{} ({converted}) following {} ({base}) of the same {entity}{}{}, as {}",
        other.name,
        model.name,
        window
            .as_deref()
            .map(|w| format!(" within {w}"))
            .unwrap_or_default(),
        if constant.is_empty() {
            ""
        } else {
            " with constant properties"
        },
        match calculation {
            Calculation::Rate => "a rate",
            Calculation::Count => "a count",
        }
    );
    if conversion_input.is_some_and(|i| i.get("filter").is_some_and(|f| !f.is_null())) {
        detail.push_str(
            "; the conversion measure's filter is not applied, as MetricFlow does not apply it",
        );
    }
    let mut placed = Placed::expression(home, String::new());
    placed.filter = filter;
    placed.notes = notes;
    placed.detail = Some(detail);
    placed.conversion = Some(ConversionSpec {
        base,
        conversion: if target == home {
            converted
        } else {
            format!("{}.{converted}", other.name)
        },
        entity: entity_columns,
        window,
        calculation: (calculation == Calculation::Count).then_some(Calculation::Count),
        constant,
        time: Some(time),
        fill_nulls_with,
    });
    Ok(Some(placed))
}

/// The time dimension each side of a conversion runs along (MetricFlow's
/// metric_time for its measure), given as (model, measure) for the base
/// and the conversion side, with a note for each not at the day grain.
fn conversion_times(
    (model, base): (&Model, &str),
    (other, converted): (&Model, &str),
) -> Result<((String, String), Vec<String>), String> {
    let mut notes = Vec::new();
    let times = (time_of(model, base)?, time_of(other, converted)?);
    for (at, time) in [(model, &times.0), (other, &times.1)] {
        if let Some(grain) = at.time_grains.get(time).filter(|g| *g != "day") {
            notes.push(format!(
                "`{}.{time}` is at the {grain} grain, where MetricFlow compares the times; Lore compares days",
                at.name
            ));
        }
    }
    Ok((times, notes))
}

/// The filter of a conversion's base rows: the metric's and the base
/// measure input's (`base_input`), both when both are set.
fn base_rows_filter(
    metric: &Value,
    base_input: Option<&Value>,
    scope: &FilterScope<'_>,
    models: &[Model],
) -> Result<Option<String>, String> {
    let base_filter = match base_input {
        Some(input) => filter_of(input, scope, models)?,
        None => None,
    };
    Ok(match (filter_of(metric, scope, models)?, base_filter) {
        (Some(a), Some(b)) => Some(format!("({a}) AND ({b})")),
        (a, b) => a.or(b),
    })
}

/// A note for each measure input of a conversion that asks for
/// `join_to_timespine`, which Lore does not do.
fn timespine_notes(base_input: Option<&Value>, conversion_input: Option<&Value>) -> Vec<String> {
    let mut notes = Vec::new();
    for (input, role) in [(base_input, "base"), (conversion_input, "conversion")] {
        if input
            .and_then(|i| i.get("join_to_timespine"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            notes.push(format!(
                "join_to_timespine on the {role} measure: days without rows are not listed"
            ));
        }
    }
    notes
}

/// The conversion measure input's `fill_nulls_with`, a whole number.
fn fill_nulls_with(conversion_input: Option<&Value>) -> Result<Option<i64>, String> {
    Ok(
        match conversion_input.and_then(|i| i.get("fill_nulls_with")) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_i64().ok_or(format!(
                "the conversion measure's fill_nulls_with `{v}` is not a whole number"
            ))?),
        },
    )
}

/// The column `element` (an entity or a dimension) names in `at`.
fn column_of(at: &Model, element: &str, what: &str) -> Result<String, String> {
    if let Some((column, _)) = at.entities.get(element) {
        return Ok(column.clone());
    }
    if at.dimensions.contains_key(element) {
        return Ok(element.to_string());
    }
    Err(format!(
        "{what} `{element}` is not an entity or dimension of semantic model {}",
        at.name
    ))
}

/// A base and a conversion column, one when they are the same.
fn pair(base: String, conversion: String) -> ColumnPair {
    if base == conversion {
        ColumnPair::Same(base)
    } else {
        ColumnPair::Each { base, conversion }
    }
}

/// The constant properties' columns on each side.
fn constant_properties(
    params: &Value,
    model: &Model,
    other: &Model,
) -> Result<Vec<ColumnPair>, String> {
    let mut constant = Vec::new();
    for p in params
        .get("constant_properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(b), Some(c)) = (text(p, "base_property"), text(p, "conversion_property")) else {
            return Err("a constant property without base_property and conversion_property".into());
        };
        constant.push(pair(
            column_of(model, b, "constant property")?,
            column_of(other, c, "constant property")?,
        ));
    }
    Ok(constant)
}

/// `conversion_rate` (the default) or `conversions`.
fn calculation_of(params: &Value) -> Result<Calculation, String> {
    match text(params, "calculation")
        .map(str::to_lowercase)
        .as_deref()
    {
        None | Some("conversion_rate") => Ok(Calculation::Rate),
        Some("conversions") => Ok(Calculation::Count),
        Some(other) => Err(format!(
            "calculation `{other}` is not conversion_rate or conversions"
        )),
    }
}

/// The time dimension measure `m` of `at` is matched along: its
/// `agg_time_dimension`, else the model's only time dimension.
fn time_of(at: &Model, m: &str) -> Result<String, String> {
    match at.measure_time.get(m) {
        Some(t) => Ok(t.clone()),
        None => match at.time_grains.keys().collect::<Vec<_>>().as_slice() {
            [only] => Ok((*only).clone()),
            _ => Err(format!(
                "measure `{m}` has no agg_time_dimension (and semantic model {} no defaults.agg_time_dimension), so the time it is matched along is unknown",
                at.name
            )),
        },
    }
}
