//! Building a model from parsed specs, collecting every problem with its
//! file, source and field rather than stopping at the first.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use lore_core::limits::SqlLimits;

use super::expr::{SqlExpr, is_aggregate};
use super::time::time_column;
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
    let check = SourceCheck {
        file,
        spec,
        name: spec.name.as_str(),
        by_name,
        all,
    };
    let relation = check.relation(issues);
    let columns = check.columns(issues);
    let measures = check.measures(issues);
    let segments = check.segments(issues);
    let joins = check.joins(issues);
    check.time_spine(issues);
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

/// One source's spec being checked, with the model's other specs (joins
/// and derived measures may name them).
struct SourceCheck<'a> {
    file: &'a std::path::Path,
    spec: &'a SourceSpec,
    name: &'a str,
    by_name: &'a HashMap<String, usize>,
    all: &'a [(PathBuf, SourceSpec)],
}

/// What a measure's `expr` resolves to: the expression, whether it
/// combines other measures, and a conversion measure's base filter and
/// description.
type MeasureExpr = (SqlExpr, bool, Option<(Option<SqlExpr>, super::Conversion)>);

impl SourceCheck<'_> {
    fn issue(&self, issues: &mut Issues, field: impl Into<String>, message: String) {
        issues.add(self.file, self.name, Some(field.into()), message);
    }

    fn parse(&self, text: &str, field: String, issues: &mut Issues) -> Option<SqlExpr> {
        parse(text, self.file, self.name, field, issues)
    }

    fn has_column(&self, col: &str) -> bool {
        self.spec.columns.iter().any(|c| c.name == col)
    }

    /// `table` or `sql`, exactly one.
    fn relation(&self, issues: &mut Issues) -> Relation {
        match (&self.spec.table, &self.spec.sql) {
            (Some(table), None) if !table.trim().is_empty() => Relation::Table(table.clone()),
            (None, Some(sql)) if !sql.trim().is_empty() => Relation::Sql(sql.clone()),
            (Some(_), Some(_)) => {
                self.issue(
                    issues,
                    "table",
                    "give either `table` or `sql`, not both".into(),
                );
                Relation::Table(String::new())
            }
            _ => {
                self.issue(
                    issues,
                    "table",
                    "a source needs `table` (schema.table) or `sql`".into(),
                );
                Relation::Table(String::new())
            }
        }
    }

    /// The columns (names once each, expressions parsed) and the grain,
    /// which must be among them.
    fn columns(&self, issues: &mut Issues) -> Vec<Column> {
        let mut seen = HashSet::new();
        let mut columns = Vec::new();
        for (i, c) in self.spec.columns.iter().enumerate() {
            if !seen.insert(c.name.as_str()) {
                self.issue(
                    issues,
                    format!("columns[{i}].name"),
                    format!("duplicate column `{}`", c.name),
                );
            }
            let expr = c
                .expr
                .as_deref()
                .and_then(|e| self.parse(e, format!("columns.{}.expr", c.name), issues));
            columns.push(Column {
                name: c.name.clone(),
                column_type: c.column_type,
                expr,
                visibility: c.visibility.unwrap_or_default(),
                description: Descriptions::pick(c.description.as_ref(), c.descriptions.as_ref()),
            });
        }
        for g in &self.spec.grain {
            if !self.has_column(g) {
                self.issue(
                    issues,
                    "grain",
                    format!("grain column `{g}` is not among the source's columns"),
                );
            }
        }
        columns
    }

    /// A column reference in an expression over this source only.
    fn check_ref(&self, parts: &[String], field: &str, issues: &mut Issues, measures_ok: bool) {
        let name = self.name;
        let col = match parts {
            [col] => col,
            [src, col] if src == name => col,
            _ => {
                self.issue(issues, field, format!(
                    "`{}` is not a column of `{name}`; expressions here use the source's own columns",
                    parts.join(".")
                ));
                return;
            }
        };
        let is_measure = measures_ok && self.spec.measures.iter().any(|m| &m.name == col);
        if !self.has_column(col) && !is_measure {
            self.issue(
                issues,
                field,
                format!("unknown column `{col}` (declare it under columns)"),
            );
        }
    }

    fn check_own(&self, expr: &SqlExpr, field: &str, issues: &mut Issues) {
        for parts in expr.references() {
            self.check_ref(&parts, field, issues, false);
        }
    }

    /// The measures: names once each, expressions, filters, running
    /// windows, non-additive rules and conversions checked; a measure
    /// whose expression fails is left out.
    fn measures(&self, issues: &mut Issues) -> Vec<Measure> {
        let mut measures = Vec::new();
        let mut seen = HashSet::new();
        for m in &self.spec.measures {
            if !seen.insert(m.name.as_str()) {
                self.issue(
                    issues,
                    format!("measures.{}", m.name),
                    "duplicate measure name".into(),
                );
            }
            let Some((expr, derived, conversion)) = self.measure_expr(m, issues) else {
                continue;
            };
            let filter = self.measure_filter(m, issues);
            let (cumulative, offset, non_additive) = self.time_rules(m, derived, issues);
            // A conversion measure's base rows pass its base measure's
            // filter and its own.
            let (filter, conversion) = match conversion {
                None => (filter, None),
                Some((base_filter, conversion)) => (
                    self.both_filters(m, base_filter, filter, issues),
                    Some(conversion),
                ),
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
        measures
    }

    /// A measure's expression (a conversion measure's is its base
    /// measure's): an aggregate over this source's columns, or a
    /// combination of measures; `None` when it cannot be used.
    fn measure_expr(&self, m: &super::MeasureSpec, issues: &mut Issues) -> Option<MeasureExpr> {
        let field = format!("measures.{}.expr", m.name);
        let conversion = match &m.conversion {
            None => None,
            Some(c) => {
                let field = format!("measures.{}.conversion", m.name);
                match super::conversion_metric::validate(
                    c,
                    m,
                    self.spec,
                    self.by_name,
                    self.all,
                    &field,
                ) {
                    Ok(found) => Some(found),
                    Err(message) => {
                        self.issue(issues, field, message);
                        return None;
                    }
                }
            }
        };
        let (expr, conversion) = match conversion {
            Some((base_expr, base_filter, conversion)) => {
                (base_expr, Some((base_filter, conversion)))
            }
            None => (self.parse(&m.expr, field.clone(), issues)?, None),
        };
        if expr.has_subquery() {
            self.issue(issues, field, SUBQUERY_IN_MEASURE.into());
            return None;
        }
        let derived = !is_aggregate(&expr);
        if derived {
            self.check_measure_references(&expr, &field, issues);
        } else {
            self.check_own(&expr, &field, issues);
        }
        Some((expr, derived, conversion))
    }

    /// An expression over measures: every reference must be one (of this
    /// source, or `source.measure`).
    fn check_measure_references(&self, expr: &SqlExpr, field: &str, issues: &mut Issues) {
        for parts in expr.references() {
            let known = match parts.as_slice() {
                [m] => self.spec.measures.iter().any(|x| &x.name == m),
                [s, m] => self
                    .by_name
                    .get(s)
                    .is_some_and(|&i| self.all[i].1.measures.iter().any(|x| &x.name == m)),
                _ => false,
            };
            if !known {
                self.issue(issues, field, format!(
                    "`{}` is not a measure; a measure aggregates columns (sum(x), count(*), count_distinct(x), avg, min, max, median, percentile(x, p)) or combines other measures",
                    parts.join(".")
                ));
            }
        }
    }

    /// A measure's filter. It may also read a column of another source
    /// (`customers.country = 'MX'`); that the source is reached by to-one
    /// joins only is checked once the model is whole.
    fn measure_filter(&self, m: &super::MeasureSpec, issues: &mut Issues) -> Option<SqlExpr> {
        let field = format!("measures.{}.filter", m.name);
        let filter = self.parse(m.filter.as_deref()?, field.clone(), issues)?;
        for parts in filter.references() {
            match parts.as_slice() {
                [other, col] if other != self.name && self.by_name.contains_key(other) => {
                    let target = &self.all[self.by_name[other]].1;
                    if !target.columns.iter().any(|c| &c.name == col) {
                        self.issue(issues, field.clone(), format!(
                            "`{other}.{col}`: `{other}` has no column `{col}` (declare it under its columns)"
                        ));
                    }
                }
                _ => self.check_ref(&parts, &field, issues, false),
            }
        }
        Some(filter)
    }

    /// A measure's running window, offset and non-additive rule, each
    /// checked against the source.
    fn time_rules(
        &self,
        m: &super::MeasureSpec,
        derived: bool,
        issues: &mut Issues,
    ) -> (Option<Cumulative>, Option<Offset>, Option<NonAdditive>) {
        let spec = self.spec;
        let cumulative = m.cumulative.as_ref().and_then(|c| {
            let field = format!("measures.{}.cumulative", m.name);
            cumulative(c, spec, derived, &field)
                .map_err(|message| self.issue(issues, field, message))
                .ok()
        });
        let offset = m.offset.as_ref().and_then(|o| {
            let field = format!("measures.{}.offset", m.name);
            offset(o, spec, derived, m.cumulative.is_some(), &field)
                .map_err(|message| self.issue(issues, field, message))
                .ok()
        });
        let non_additive = m.non_additive.as_ref().and_then(|n| {
            let field = format!("measures.{}.non_additive", m.name);
            let running = m.cumulative.is_some() || m.offset.is_some();
            non_additive(n, spec, derived, running, &field)
                .map_err(|message| self.issue(issues, field, message))
                .ok()
        });
        (cumulative, offset, non_additive)
    }

    /// A conversion measure's filter: its base measure's and its own.
    fn both_filters(
        &self,
        m: &super::MeasureSpec,
        base: Option<SqlExpr>,
        own: Option<SqlExpr>,
        issues: &mut Issues,
    ) -> Option<SqlExpr> {
        match (base, own) {
            (Some(a), Some(b)) => SqlExpr::parse(
                &format!("({}) AND ({})", a.text, b.text),
                &SqlLimits::default(),
            )
            .map_err(|e| self.issue(issues, format!("measures.{}.filter", m.name), e.to_string()))
            .ok(),
            (a, b) => a.or(b),
        }
    }

    /// The segments, each a condition over this source's columns.
    fn segments(&self, issues: &mut Issues) -> Vec<Segment> {
        let mut segments = Vec::new();
        for s in &self.spec.segments {
            let field = format!("segments.{}.expr", s.name);
            if let Some(expr) = self.parse(&s.expr, field.clone(), issues) {
                self.check_own(&expr, &field, issues);
                segments.push(Segment {
                    name: s.name.clone(),
                    expr,
                    description: s.description.clone(),
                });
            }
        }
        segments
    }

    /// The joins: a known target, and an `on` reading this source's
    /// columns (unqualified) and the target's (qualified by its name or
    /// alias).
    fn joins(&self, issues: &mut Issues) -> Vec<Join> {
        let name = self.name;
        let mut joins = Vec::new();
        for (i, j) in self.spec.joins.iter().enumerate() {
            let Some(&target) = self.by_name.get(&j.to) else {
                self.issue(
                    issues,
                    format!("joins[{i}].to"),
                    format!(
                        "no source `{}` to join to; sources: {}",
                        j.to,
                        sorted(self.by_name.keys())
                    ),
                );
                continue;
            };
            let Some(on) = self.parse(&j.on, format!("joins[{i}].on"), issues) else {
                continue;
            };
            let reach = j.alias.clone().unwrap_or_else(|| j.to.clone());
            let target_spec = &self.all[target].1;
            for parts in on.references() {
                let ok = match parts.as_slice() {
                    [col] => self.has_column(col),
                    [src, col] if src == name && src != &reach => self.has_column(col),
                    [src, col] if src == &reach => {
                        target_spec.columns.iter().any(|c| &c.name == col)
                    }
                    _ => false,
                };
                if !ok {
                    self.issue(issues, format!("joins[{i}].on"), format!(
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
        joins
    }

    /// The time spine's column exists and holds times.
    fn time_spine(&self, issues: &mut Issues) {
        let Some(column) = &self.spec.time_spine else {
            return;
        };
        match self.spec.columns.iter().find(|c| &c.name == column) {
            Some(c) if c.column_type == ColumnType::Time => {}
            Some(_) => self.issue(
                issues,
                "time_spine",
                format!("the time spine column `{column}` must be of type time"),
            ),
            None => self.issue(
                issues,
                "time_spine",
                format!("the time spine column `{column}` is not among the source's columns"),
            ),
        }
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
