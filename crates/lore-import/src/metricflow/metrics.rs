//! MetricFlow metrics as Lore measures: a simple metric's measure with
//! its filter, a cumulative metric's running window, a derived metric's
//! expression (its inputs read at an earlier time becoming offset
//! measures beside it), and a measure's `non_additive_dimension`
//! (a conversion metric's base and conversion measures are
//! [`super::conversion`]'s).

use std::collections::BTreeMap;

use lore_semantic::dialect::Granularity;
use lore_semantic::model::{
    ConversionSpec, CumulativeSpec, Keep, MeasureSpec, NonAdditiveSpec, OffsetSpec, PeriodAgg,
    RunningWindow, parse_span,
};
use serde_json::Value;

use super::filters::{FilterScope, replace_words, translate_filter};
use super::{Model, text};

/// Where a metric lands: its source, its expression, its filter, its
/// running window, and how it was approximated.
pub(super) struct Placed {
    pub(super) home: usize,
    pub(super) expr: String,
    pub(super) filter: Option<String>,
    pub(super) cumulative: Option<CumulativeSpec>,
    pub(super) notes: Vec<String>,
    /// The time dimension its measure is aggregated by (simple metrics).
    pub(super) metric_time: Option<String>,
    /// Measures it needs beside it, each on its source: a derived
    /// metric's inputs read at an earlier time.
    pub(super) helpers: Vec<(usize, MeasureSpec)>,
    /// The day whose rows its measure counts (non-additive measures).
    pub(super) non_additive: Option<NonAdditiveSpec>,
    /// The base and conversion rows it matches (conversion metrics).
    pub(super) conversion: Option<ConversionSpec>,
    /// What the report says of it besides its placement.
    pub(super) detail: Option<String>,
}

impl Placed {
    /// An expression over measures (ratio and derived metrics).
    pub(super) fn expression(home: usize, expr: String) -> Placed {
        Placed {
            home,
            expr,
            filter: None,
            cumulative: None,
            notes: Vec::new(),
            metric_time: None,
            helpers: Vec::new(),
            non_additive: None,
            conversion: None,
            detail: None,
        }
    }
}

/// A placed metric, or `None` when its inputs are not placed yet.
pub(super) type Placement = Option<Placed>;

/// A simple metric: its measure's aggregate on the measure's source, with
/// its filter translated.
pub(super) fn simple(
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
    let scope = FilterScope {
        home,
        metric_time: model.measure_time.get(&mname).map(String::as_str),
        cumulative,
    };
    let filter = filter_of(metric, &scope, models)?;
    Ok(Some(Placed {
        home,
        expr,
        filter,
        cumulative: None,
        notes,
        metric_time: scope.metric_time.map(str::to_string),
        helpers: Vec::new(),
        non_additive: model.measure_non_additive.get(&mname).cloned(),
        conversion: None,
        detail: None,
    }))
}

/// A metric's (or a metric input's) `filter` as SQL over Lore columns:
/// one condition, or a list of them that must all hold.
pub(super) fn filter_of(
    metric: &Value,
    scope: &FilterScope<'_>,
    models: &[Model],
) -> Result<Option<String>, String> {
    let filters: Vec<&str> = match metric.get("filter") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(f)) => vec![f.as_str()],
        Some(Value::Array(all)) => all
            .iter()
            .map(|f| f.as_str().ok_or("a filter in the list is not text"))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("filter is neither text nor a list of text".into()),
    };
    Ok(match filters.as_slice() {
        [] => None,
        [one] => Some(translate_filter(one, scope, models)?),
        many => Some(
            many.iter()
                .map(|f| translate_filter(f, scope, models).map(|sql| format!("({sql})")))
                .collect::<Result<Vec<_>, _>>()?
                .join(" AND "),
        ),
    })
}

/// A measure's `non_additive_dimension` (a time dimension of its model,
/// `window_choice: max | min`, `window_groupings` of its model's
/// entities) as Lore's `non_additive`.
pub(super) fn non_additive(nad: &Value, model: &Model) -> Result<NonAdditiveSpec, String> {
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
pub(super) fn derived(
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
                conversion: None,
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
pub(super) fn cumulative(
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
    let window = window_text(param("window"))?;
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

/// A metric's `window` as `<count> <unit>`: written so in YAML, or the
/// manifest's `{count, granularity}`.
pub(super) fn window_text(window: Option<&Value>) -> Result<Option<String>, String> {
    match window {
        None => Ok(None),
        Some(Value::String(w)) => Ok(Some(w.trim().to_string())),
        Some(v) => match (
            v.get("count").and_then(Value::as_u64),
            text(v, "granularity"),
        ) {
            (Some(count), Some(unit)) => Ok(Some(format!("{count} {unit}"))),
            _ => Err(format!("window `{v}` is not `<count> <unit>`")),
        },
    }
}
