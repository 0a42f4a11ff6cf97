//! Building a model from parsed specs, collecting every problem with its
//! file, source and field rather than stopping at the first.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use lore_core::limits::SqlLimits;

use super::expr::{SqlExpr, is_aggregate};
use super::{
    Cardinality, Column, ColumnType, Cumulative, CumulativeSpec, Descriptions, Join, Measure,
    NonAdditive, NonAdditiveSpec, Offset, OffsetSpec, Relation, RunningWindow, Segment,
    SemanticModel, Source, SourceSpec, TimeOffset, parse_span,
};
use crate::dialect::Granularity;
use crate::error::{ModelIssue, SemanticError};

struct Issues(Vec<ModelIssue>);

impl Issues {
    fn add(
        &mut self,
        file: &std::path::Path,
        source: &str,
        field: Option<String>,
        message: String,
    ) {
        self.0.push(ModelIssue {
            file: file.to_path_buf(),
            source: (!source.is_empty()).then(|| source.to_string()),
            field,
            message,
        });
    }
}

/// Validates `specs` and builds the model, or lists every error.
pub(super) fn build(specs: Vec<(PathBuf, SourceSpec)>) -> Result<SemanticModel, SemanticError> {
    let mut issues = Issues(Vec::new());
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut kept = Vec::new();
    for (file, spec) in specs {
        if spec.name.trim().is_empty() {
            issues.add(
                &file,
                "",
                Some("name".into()),
                "a source needs a name".into(),
            );
            continue;
        }
        if let Some(&first) = by_name.get(&spec.name) {
            let (other, _): &(PathBuf, SourceSpec) = &kept[first];
            issues.add(
                &file,
                &spec.name,
                Some("name".into()),
                format!(
                    "duplicate source name (also defined in {})",
                    other.display()
                ),
            );
            continue;
        }
        by_name.insert(spec.name.clone(), kept.len());
        kept.push((file, spec));
    }

    let mut sources = Vec::with_capacity(kept.len());
    for (file, spec) in &kept {
        sources.push(build_source(file, spec, &by_name, &kept, &mut issues));
    }
    check_derived_measures(&sources, &by_name, &mut issues);
    let spines: Vec<&Source> = sources.iter().filter(|s| s.time_spine.is_some()).collect();
    if let [first, others @ ..] = spines.as_slice() {
        for other in others {
            issues.add(
                &other.file,
                &other.name,
                Some("time_spine".into()),
                format!(
                    "the model already has a time spine (`{}`); mark one source only",
                    first.name
                ),
            );
        }
    }
    if !issues.0.is_empty() {
        return Err(SemanticError::InvalidModel { issues: issues.0 });
    }
    let warnings = disconnected(&sources);
    let model = SemanticModel {
        sources,
        warnings,
        by_name,
        join_graph: Default::default(),
    };
    check_filter_paths(&model, &mut issues);
    if !issues.0.is_empty() {
        return Err(SemanticError::InvalidModel { issues: issues.0 });
    }
    Ok(model)
}

/// A measure's filter reading another source's column needs that source
/// reached from the measure's by many-to-one (or one-to-one) joins only:
/// each row being measured then has one value to test, and no row is
/// repeated by the join.
fn check_filter_paths(model: &SemanticModel, issues: &mut Issues) {
    for (si, source) in model.sources.iter().enumerate() {
        for m in &source.measures {
            let Some(filter) = &m.filter else { continue };
            let mut others: Vec<usize> = Vec::new();
            for parts in filter.references() {
                if let [other, _] = parts.as_slice()
                    && *other != source.name
                    && let Some(i) = model.index_of(other)
                    && !others.contains(&i)
                {
                    others.push(i);
                }
            }
            for other in others {
                let problem = match model.join_graph().path(model, si, other) {
                    Err(e) => Some(e.to_string()),
                    Ok(steps) => steps
                        .iter()
                        .find(|s| s.cardinality == Cardinality::OneToMany)
                        .map(|s| {
                            format!(
                                "the way there crosses the one-to-many join {} -> {}, so a `{}` row would have several values to test; filter on a source reached by many-to-one joins, or model the condition as its own measure",
                                model.sources[s.from].name,
                                model.sources[s.to].name,
                                source.name
                            )
                        }),
                };
                if let Some(problem) = problem {
                    issues.add(
                        &source.file,
                        &source.name,
                        Some(format!("measures.{}.filter", m.name)),
                        format!("reads `{}`: {problem}", model.sources[other].name),
                    );
                }
            }
        }
    }
}

fn parse(
    text: &str,
    file: &std::path::Path,
    source: &str,
    field: String,
    issues: &mut Issues,
) -> Option<SqlExpr> {
    // Model files are written by the team: they get the default limits.
    match SqlExpr::parse(text, &SqlLimits::default()) {
        Ok(expr) => Some(expr),
        Err(error) => {
            issues.add(file, source, Some(field), error.to_string());
            None
        }
    }
}

/// Why a measure may not hold a subquery, and what to do instead.
pub(crate) const SUBQUERY_IN_MEASURE: &str = "a measure may not contain a subquery (its rows could not be aggregated at the source's grain); model what the subquery reads as its own source (table or sql) with a join, and aggregate that";

fn build_source(
    file: &std::path::Path,
    spec: &SourceSpec,
    by_name: &HashMap<String, usize>,
    all: &[(PathBuf, SourceSpec)],
    issues: &mut Issues,
) -> Source {
    let name = spec.name.as_str();
    let relation = match (&spec.table, &spec.sql) {
        (Some(table), None) if !table.trim().is_empty() => Relation::Table(table.clone()),
        (None, Some(sql)) if !sql.trim().is_empty() => Relation::Sql(sql.clone()),
        (Some(_), Some(_)) => {
            issues.add(
                file,
                name,
                Some("table".into()),
                "give either `table` or `sql`, not both".into(),
            );
            Relation::Table(String::new())
        }
        _ => {
            issues.add(
                file,
                name,
                Some("table".into()),
                "a source needs `table` (schema.table) or `sql`".into(),
            );
            Relation::Table(String::new())
        }
    };

    let mut seen = HashSet::new();
    let mut columns = Vec::new();
    for (i, c) in spec.columns.iter().enumerate() {
        if !seen.insert(c.name.as_str()) {
            issues.add(
                file,
                name,
                Some(format!("columns[{i}].name")),
                format!("duplicate column `{}`", c.name),
            );
        }
        let expr = c
            .expr
            .as_deref()
            .and_then(|e| parse(e, file, name, format!("columns.{}.expr", c.name), issues));
        columns.push(Column {
            name: c.name.clone(),
            column_type: c.column_type,
            expr,
            visibility: c.visibility.unwrap_or_default(),
            description: Descriptions::pick(c.description.as_ref(), c.descriptions.as_ref()),
        });
    }
    let has_column = |col: &str| spec.columns.iter().any(|c| c.name == col);
    for g in &spec.grain {
        if !has_column(g) {
            issues.add(
                file,
                name,
                Some("grain".into()),
                format!("grain column `{g}` is not among the source's columns"),
            );
        }
    }

    // Column references in an expression over this source only.
    let check_ref = |parts: &[String], field: &str, issues: &mut Issues, measures_ok: bool| {
        let col = match parts {
            [col] => col,
            [src, col] if src == name => col,
            _ => {
                issues.add(file, name, Some(field.to_string()), format!(
                    "`{}` is not a column of `{name}`; expressions here use the source's own columns",
                    parts.join(".")
                ));
                return;
            }
        };
        let is_measure = measures_ok && spec.measures.iter().any(|m| &m.name == col);
        if !has_column(col) && !is_measure {
            issues.add(
                file,
                name,
                Some(field.to_string()),
                format!("unknown column `{col}` (declare it under columns)"),
            );
        }
    };
    let check_own = |expr: &SqlExpr, field: String, issues: &mut Issues, measures_ok: bool| {
        for parts in expr.references() {
            check_ref(&parts, &field, issues, measures_ok);
        }
    };

    let mut measures = Vec::new();
    let mut seen = HashSet::new();
    for m in &spec.measures {
        if !seen.insert(m.name.as_str()) {
            issues.add(
                file,
                name,
                Some(format!("measures.{}", m.name)),
                "duplicate measure name".into(),
            );
        }
        let field = format!("measures.{}.expr", m.name);
        // A conversion measure's rows are its base measure's.
        let conversion = match &m.conversion {
            None => None,
            Some(c) => {
                let field = format!("measures.{}.conversion", m.name);
                match super::conversion::validate(c, m, spec, by_name, all, &field) {
                    Ok(found) => Some(found),
                    Err(message) => {
                        issues.add(file, name, Some(field), message);
                        continue;
                    }
                }
            }
        };
        let expr = match &conversion {
            Some((base_expr, _, _)) => base_expr.clone(),
            None => {
                let Some(expr) = parse(&m.expr, file, name, field.clone(), issues) else {
                    continue;
                };
                expr
            }
        };
        if expr.has_subquery() {
            issues.add(file, name, Some(field), SUBQUERY_IN_MEASURE.into());
            continue;
        }
        let derived = !is_aggregate(&expr);
        if derived {
            // An expression over measures: every reference must be one.
            for parts in expr.references() {
                let known = match parts.as_slice() {
                    [m] => spec.measures.iter().any(|x| &x.name == m),
                    [s, m] => by_name
                        .get(s)
                        .is_some_and(|&i| all[i].1.measures.iter().any(|x| &x.name == m)),
                    _ => false,
                };
                if !known {
                    issues.add(file, name, Some(field.clone()), format!(
                        "`{}` is not a measure; a measure aggregates columns (sum(x), count(*), count_distinct(x), avg, min, max, median, percentile(x, p)) or combines other measures",
                        parts.join(".")
                    ));
                }
            }
        } else {
            check_own(&expr, field, issues, false);
        }
        let filter = m
            .filter
            .as_deref()
            .and_then(|f| parse(f, file, name, format!("measures.{}.filter", m.name), issues));
        if let Some(f) = &filter {
            // A measure's filter may also read a column of another source
            // (`customers.country = 'MX'`); that the source is reached by
            // to-one joins only is checked once the model is whole.
            let field = format!("measures.{}.filter", m.name);
            for parts in f.references() {
                match parts.as_slice() {
                    [other, col] if other != name && by_name.contains_key(other) => {
                        let target = &all[by_name[other]].1;
                        if !target.columns.iter().any(|c| &c.name == col) {
                            issues.add(file, name, Some(field.clone()), format!(
                                "`{other}.{col}`: `{other}` has no column `{col}` (declare it under its columns)"
                            ));
                        }
                    }
                    _ => check_ref(&parts, &field, issues, false),
                }
            }
        }
        let cumulative = m.cumulative.as_ref().and_then(|c| {
            cumulative(c, spec, derived, &format!("measures.{}.cumulative", m.name))
                .map_err(|message| {
                    issues.add(
                        file,
                        name,
                        Some(format!("measures.{}.cumulative", m.name)),
                        message,
                    )
                })
                .ok()
        });
        let offset = m.offset.as_ref().and_then(|o| {
            offset(
                o,
                spec,
                derived,
                m.cumulative.is_some(),
                &format!("measures.{}.offset", m.name),
            )
            .map_err(|message| {
                issues.add(
                    file,
                    name,
                    Some(format!("measures.{}.offset", m.name)),
                    message,
                )
            })
            .ok()
        });
        let non_additive = m.non_additive.as_ref().and_then(|n| {
            let field = format!("measures.{}.non_additive", m.name);
            non_additive(
                n,
                spec,
                derived,
                m.cumulative.is_some() || m.offset.is_some(),
                &field,
            )
            .map_err(|message| issues.add(file, name, Some(field.clone()), message))
            .ok()
        });
        // A conversion measure's base rows pass its base measure's filter
        // and its own.
        let (filter, conversion) = match conversion {
            None => (filter, None),
            Some((_, base_filter, conversion)) => {
                let filter = match (base_filter, filter) {
                    (Some(a), Some(b)) => SqlExpr::parse(
                        &format!("({}) AND ({})", a.text, b.text),
                        &SqlLimits::default(),
                    )
                    .map_err(|e| {
                        issues.add(
                            file,
                            name,
                            Some(format!("measures.{}.filter", m.name)),
                            e.to_string(),
                        )
                    })
                    .ok(),
                    (a, b) => a.or(b),
                };
                (filter, Some(conversion))
            }
        };
        measures.push(Measure {
            name: m.name.clone(),
            expr,
            derived,
            filter,
            cumulative,
            offset,
            non_additive,
            conversion,
            description: Descriptions::pick(m.description.as_ref(), m.descriptions.as_ref()),
        });
    }

    let mut segments = Vec::new();
    for s in &spec.segments {
        let field = format!("segments.{}.expr", s.name);
        if let Some(expr) = parse(&s.expr, file, name, field.clone(), issues) {
            check_own(&expr, field, issues, false);
            segments.push(Segment {
                name: s.name.clone(),
                expr,
                description: s.description.clone(),
            });
        }
    }

    let mut joins = Vec::new();
    for (i, j) in spec.joins.iter().enumerate() {
        let Some(&target) = by_name.get(&j.to) else {
            issues.add(
                file,
                name,
                Some(format!("joins[{i}].to")),
                format!(
                    "no source `{}` to join to; sources: {}",
                    j.to,
                    sorted(by_name.keys())
                ),
            );
            continue;
        };
        let Some(on) = parse(&j.on, file, name, format!("joins[{i}].on"), issues) else {
            continue;
        };
        let reach = j.alias.clone().unwrap_or_else(|| j.to.clone());
        let target_spec = &all[target].1;
        for parts in on.references() {
            let ok = match parts.as_slice() {
                [col] => has_column(col),
                [src, col] if src == name && src != &reach => has_column(col),
                [src, col] if src == &reach => target_spec.columns.iter().any(|c| &c.name == col),
                _ => false,
            };
            if !ok {
                issues.add(file, name, Some(format!("joins[{i}].on")), format!(
                    "`{}` is not a column of `{name}` (unqualified) or of `{reach}` (qualified with `{reach}.`)",
                    parts.join(".")
                ));
            }
        }
        joins.push(Join {
            target,
            name: reach,
            on,
            cardinality: j.relationship,
        });
    }

    if let Some(column) = &spec.time_spine {
        match spec.columns.iter().find(|c| &c.name == column) {
            Some(c) if c.column_type == ColumnType::Time => {}
            Some(_) => issues.add(
                file,
                name,
                Some("time_spine".into()),
                format!("the time spine column `{column}` must be of type time"),
            ),
            None => issues.add(
                file,
                name,
                Some("time_spine".into()),
                format!("the time spine column `{column}` is not among the source's columns"),
            ),
        }
    }

    Source {
        name: spec.name.clone(),
        description: Descriptions::pick(spec.description.as_ref(), spec.descriptions.as_ref()),
        relation,
        grain: spec.grain.clone(),
        time_spine: spec.time_spine.clone(),
        columns,
        joins,
        measures,
        segments,
        file: file.to_path_buf(),
        spec: spec.clone(),
    }
}

/// A measure's running window, or what is wrong with it.
fn cumulative(
    c: &CumulativeSpec,
    source: &SourceSpec,
    derived: bool,
    field: &str,
) -> Result<Cumulative, String> {
    if derived {
        return Err("a cumulative measure aggregates rows (sum(x), count(*), count_distinct(x), …); an expression over other measures cannot run over time: make the measures it combines cumulative".into());
    }
    let time = time_column(c.time.as_ref(), source, field)?;
    let window = match (&c.window, &c.grain_to_date) {
        (Some(_), Some(_)) => {
            return Err("give `window` (a trailing window) or `grain_to_date` (since the start of a period), not both".into());
        }
        (Some(w), None) => RunningWindow::parse_trailing(w)?,
        (None, Some(g)) => RunningWindow::ToDate(Granularity::parse(g).ok_or_else(|| {
            format!(
                "grain_to_date `{g}` is not one of {}",
                Granularity::ALL.map(|g| g.as_str()).join(", ")
            )
        })?),
        (None, None) => RunningWindow::AllTime,
    };
    Ok(Cumulative {
        time,
        window,
        period_agg: c.period_agg.unwrap_or_default(),
    })
}

/// A measure's shift in time, or what is wrong with it.
fn offset(
    o: &OffsetSpec,
    source: &SourceSpec,
    derived: bool,
    cumulative: bool,
    field: &str,
) -> Result<Offset, String> {
    if derived {
        return Err("an offset measure aggregates rows (sum(x), count(*), …); to compare a derived measure with an earlier period, offset the measures it combines".into());
    }
    if cumulative {
        return Err("a measure is cumulative or offset, not both".into());
    }
    let time = time_column(o.time.as_ref(), source, field)?;
    let by = match (&o.window, &o.to_grain) {
        (Some(w), None) => {
            let (count, unit) = parse_span(w)?;
            TimeOffset::Window { count, unit }
        }
        (None, Some(g)) => TimeOffset::ToGrain(Granularity::parse(g).ok_or_else(|| {
            format!(
                "to_grain `{g}` is not one of {}",
                Granularity::ALL.map(|g| g.as_str()).join(", ")
            )
        })?),
        _ => {
            return Err("give `window` (how far back, e.g. `1 month`) or `to_grain` (back to the start of a period), one of them".into());
        }
    };
    Ok(Offset { time, by })
}

/// A non-additive measure's day choice, or what is wrong with it.
fn non_additive(
    n: &NonAdditiveSpec,
    source: &SourceSpec,
    derived: bool,
    over_time: bool,
    field: &str,
) -> Result<NonAdditive, String> {
    if derived {
        return Err("a non-additive measure aggregates rows (sum(x), …); a derived measure over non-additive measures is non-additive already".into());
    }
    if over_time {
        return Err("a non-additive measure cannot also be cumulative or offset".into());
    }
    let time = time_column(n.time.as_ref(), source, field)?;
    for column in &n.per {
        if !source.columns.iter().any(|c| &c.name == column) {
            return Err(format!("per: `{column}` is not among the source's columns"));
        }
    }
    Ok(NonAdditive {
        time,
        keep: n.keep.unwrap_or_default(),
        per: n.per.clone(),
    })
}

/// The time column a cumulative or offset measure runs along: `time`
/// when given, else the source's column with `role: time`, else its only
/// time column.
pub(super) fn time_column(
    named: Option<&String>,
    source: &SourceSpec,
    field: &str,
) -> Result<String, String> {
    let times: Vec<&str> = source
        .columns
        .iter()
        .filter(|c| c.column_type == ColumnType::Time)
        .map(|c| c.name.as_str())
        .collect();
    Ok(match named {
        Some(t) => match source.columns.iter().find(|c| &c.name == t) {
            Some(col) if col.column_type == ColumnType::Time => t.clone(),
            Some(_) => {
                return Err(format!(
                    "`{t}` is not a time column, so the measure cannot run over it"
                ));
            }
            None => {
                return Err(format!(
                    "no column `{t}` to run over (declare it under columns with type time)"
                ));
            }
        },
        None => {
            let by_role: Vec<&str> = source
                .columns
                .iter()
                .filter(|c| c.column_type == ColumnType::Time && c.role.as_deref() == Some("time"))
                .map(|c| c.name.as_str())
                .collect();
            match (by_role.as_slice(), times.as_slice()) {
                ([one], _) | ([], [one]) => one.to_string(),
                ([], []) => {
                    return Err(
                        "the source has no time column to run over (declare one with type time)"
                            .into(),
                    );
                }
                _ => {
                    return Err(format!(
                        "name the time column it runs over with `time` ({field}.time), one of: {}",
                        times.join(", ")
                    ));
                }
            }
        }
    })
}

fn sorted<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let mut names: Vec<&String> = names.collect();
    names.sort();
    names
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Derived measures must not refer to themselves, directly or not.
fn check_derived_measures(
    sources: &[Source],
    by_name: &HashMap<String, usize>,
    issues: &mut Issues,
) {
    let key = |s: usize, m: &str| format!("{}.{m}", sources[s].name);
    let mut edges: HashMap<String, Vec<String>> = HashMap::new();
    for (si, source) in sources.iter().enumerate() {
        for m in source.measures.iter().filter(|m| m.derived) {
            let targets = m
                .expr
                .references()
                .into_iter()
                .filter_map(|parts| match parts.as_slice() {
                    [n] => Some(key(si, n)),
                    [s, n] => by_name.get(s).map(|&i| key(i, n)),
                    _ => None,
                })
                .collect();
            edges.insert(key(si, &m.name), targets);
        }
    }
    let mut reported = HashSet::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((node, path)) = stack.pop() {
            for next in edges.get(&node).into_iter().flatten() {
                if next == start {
                    let (source, measure) = start.split_once('.').unwrap_or((start, ""));
                    if reported.insert(start.clone())
                        && let Some(s) = sources.iter().find(|s| s.name == source)
                    {
                        issues.0.push(ModelIssue {
                            file: s.file.clone(),
                            source: Some(source.to_string()),
                            field: Some(format!("measures.{measure}.expr")),
                            message: format!(
                                "derived measures form a cycle: {} -> {start}",
                                path.join(" -> ")
                            ),
                        });
                    }
                } else if !path.contains(next) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
}

/// Warnings for sources that no join connects to the largest group.
fn disconnected(sources: &[Source]) -> Vec<ModelIssue> {
    if sources.len() < 2 {
        return Vec::new();
    }
    let mut group: Vec<usize> = (0..sources.len()).collect();
    fn find(group: &mut [usize], i: usize) -> usize {
        let mut root = i;
        while group[root] != root {
            root = group[root];
        }
        group[i] = root;
        root
    }
    for (i, s) in sources.iter().enumerate() {
        for j in &s.joins {
            let (a, b) = (find(&mut group, i), find(&mut group, j.target));
            group[a] = b;
        }
    }
    let roots: Vec<usize> = (0..sources.len()).map(|i| find(&mut group, i)).collect();
    let mut sizes: HashMap<usize, usize> = HashMap::new();
    for (r, s) in roots.iter().zip(sources) {
        if s.time_spine.is_none() {
            *sizes.entry(*r).or_default() += 1;
        }
    }
    let Some((&main, _)) = sizes
        .iter()
        .max_by_key(|(root, n)| (**n, std::cmp::Reverse(**root)))
    else {
        return Vec::new();
    };
    // The time spine needs no join: cumulative measures read its days.
    sources
        .iter()
        .zip(&roots)
        .filter(|(s, r)| **r != main && s.time_spine.is_none())
        .map(|(s, _)| ModelIssue {
            file: s.file.clone(),
            source: Some(s.name.clone()),
            field: Some("joins".into()),
            message: "no join connects this source to the rest of the model; its measures cannot be combined with other sources' dimensions".into(),
        })
        .collect()
}
