//! MetricFlow filters as SQL over Lore columns: `{{ Dimension(…) }}`,
//! `{{ Entity(…) }}` and `{{ TimeDimension(…) }}` (as `date_trunc`, which
//! Lore renders for each engine).

use std::collections::BTreeMap;

use lore_semantic::dialect::Granularity;

use super::{Model, is_identifier};

/// Whom a metric's filter speaks of: the semantic model of its measure,
/// the time dimension `metric_time` means there, and whether the metric
/// is cumulative.
pub(super) struct FilterScope<'a> {
    pub(super) home: usize,
    pub(super) metric_time: Option<&'a str>,
    pub(super) cumulative: bool,
}

/// `{{ Dimension('entity__dim') }}` → the dimension's SQL when it is a
/// dimension of this source's own model, or `model.dim` (a column of
/// another source, which Lore's planner reaches through the joins) when
/// `entity` is another model's primary key; `{{ Entity('e') }}` → its key
/// column; `{{ TimeDimension('metric_time' | 'entity__dim', 'month') }}` →
/// `date_trunc('month', column)`, which Lore renders for each engine
/// (`metric_time` is the measure's `agg_time_dimension`).
pub(super) fn translate_filter(
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
pub(super) fn replace_words(text: &str, with: &BTreeMap<String, String>) -> String {
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
