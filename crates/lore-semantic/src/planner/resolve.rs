//! Resolving a query against a model: which measures, dimensions,
//! filters (row conditions or conditions on measures), segments and
//! orderings it means, with candidates when a name is not found.

use lore_core::limits::SqlLimits;

use super::{
    BaseMeasure, DEFAULT_LIMIT, DerivedMeasure, Dim, MeasureId, MeasureRefs, Resolved, RowFilter,
};
use crate::error::SemanticError;
use crate::model::expr::{SqlExpr, is_aggregate};
use crate::model::{Calculation, Conversion, SemanticModel};
use crate::query::{MeasureRef, SemanticQuery, parse_dimension_granularity};

/// The names a conversion rate's quotient reads its two measures by.
const CONVERSIONS: &str = "conversions";
const BASE: &str = "base";

fn candidates(all: impl Iterator<Item = String>, asked: &str) -> Vec<String> {
    let asked_lower = asked.to_ascii_lowercase();
    let tail = asked_lower
        .rsplit('.')
        .next()
        .unwrap_or(&asked_lower)
        .to_string();
    let mut found: Vec<String> = all
        .filter(|c| {
            let lower = c.to_ascii_lowercase();
            lower.contains(&tail) || tail.contains(lower.rsplit('.').next().unwrap_or(&lower))
        })
        .collect();
    found.sort();
    found.truncate(8);
    found
}

struct Resolver<'a> {
    model: &'a SemanticModel,
    limits: &'a SqlLimits,
    bases: Vec<BaseMeasure>,
    derived: Vec<DerivedMeasure>,
}

impl<'a> Resolver<'a> {
    fn all_measures(&self) -> impl Iterator<Item = String> + '_ {
        self.model.sources.iter().flat_map(|s| {
            s.measures
                .iter()
                .map(move |m| format!("{}.{}", s.name, m.name))
        })
    }

    /// The model measure `name` (`source.measure` or a unique bare name).
    fn find_model_measure(
        &self,
        name: &str,
        home: Option<usize>,
    ) -> Result<Option<(usize, usize)>, SemanticError> {
        if let Some((s, m)) = name.split_once('.') {
            return Ok(self
                .model
                .index_of(s)
                .and_then(|si| self.model.sources[si].measure_index(m).map(|mi| (si, mi))));
        }
        if let Some(si) = home
            && let Some(mi) = self.model.sources[si]
                .measures
                .iter()
                .position(|x| x.name == name)
        {
            return Ok(Some((si, mi)));
        }
        let hits: Vec<(usize, usize)> = self
            .model
            .sources
            .iter()
            .enumerate()
            .filter_map(|(si, s)| {
                s.measures
                    .iter()
                    .position(|x| x.name == name)
                    .map(|mi| (si, mi))
            })
            .collect();
        match hits.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            many => Err(SemanticError::InvalidQuery {
                message: format!(
                    "measure `{name}` exists in several sources; qualify it as source.measure"
                ),
                candidates: many
                    .iter()
                    .map(|(s, m)| {
                        format!(
                            "{}.{}",
                            self.model.sources[*s].name, self.model.sources[*s].measures[*m].name
                        )
                    })
                    .collect(),
            }),
        }
    }

    /// Adds model measure (source, index) under `output`, returning its
    /// reference; derived model measures pull in what they use.
    fn add_model_measure(
        &mut self,
        si: usize,
        mi: usize,
        output: String,
        visible: bool,
        depth: usize,
    ) -> Result<MeasureId, SemanticError> {
        if depth > 16 {
            return Err(SemanticError::query("derived measures nest too deeply"));
        }
        let measure = &self.model.sources[si].measures[mi];
        if let Some(conversion) = &measure.conversion {
            return self.add_conversion(si, mi, conversion, output, visible);
        }
        if !measure.derived {
            if let Some(i) = self.bases.iter().position(|b| {
                b.source == si
                    && b.expr == measure.expr
                    && b.filter == measure.filter
                    && b.cumulative == measure.cumulative
                    && b.offset == measure.offset
                    && b.non_additive == measure.non_additive
                    && b.conversion.is_none()
            }) {
                if visible && !self.bases[i].visible {
                    self.bases[i].visible = true;
                    self.bases[i].output = output;
                }
                return Ok(Ok(i));
            }
            self.bases.push(BaseMeasure {
                output,
                source: si,
                expr: measure.expr.clone(),
                filter: measure.filter.clone(),
                cumulative: measure.cumulative.clone(),
                offset: measure.offset.clone(),
                non_additive: measure.non_additive.clone(),
                conversion: None,
                visible,
            });
            return Ok(Ok(self.bases.len() - 1));
        }
        let mut refs = Vec::new();
        for parts in measure.expr.references() {
            let key = parts.join(".");
            let Some((rs, rm)) = self.find_model_measure(&key, Some(si))? else {
                return Err(SemanticError::query(format!(
                    "measure `{}` refers to unknown measure `{key}`",
                    measure.name
                )));
            };
            let hidden = format!(
                "{}.{}",
                self.model.sources[rs].name, self.model.sources[rs].measures[rm].name
            );
            let r = self.add_model_measure(rs, rm, hidden, false, depth + 1)?;
            refs.push((key, r));
        }
        self.derived.push(DerivedMeasure {
            output,
            expr: measure.expr.clone(),
            refs,
            visible,
        });
        Ok(Err(self.derived.len() - 1))
    }

    /// An inline aggregate over `source.column` references of one source.
    fn add_inline(&mut self, text: &str, expr: SqlExpr) -> Result<MeasureId, SemanticError> {
        let mut source = None;
        for parts in expr.references() {
            let [s, c] = parts.as_slice() else {
                return Err(SemanticError::query(format!(
                    "in `{text}`, qualify columns with their source (`{}` → source.{})",
                    parts.join("."),
                    parts.join(".")
                )));
            };
            let Some(si) = self.model.index_of(s) else {
                return Err(SemanticError::NotFound {
                    message: format!("in `{text}`, `{s}` is not a source"),
                    candidates: candidates(self.model.source_names().into_iter(), s),
                });
            };
            if self.model.sources[si].column(c).is_none() {
                return Err(SemanticError::NotFound {
                    message: format!("in `{text}`, `{s}` has no column `{c}`"),
                    candidates: candidates(
                        self.model.sources[si]
                            .columns
                            .iter()
                            .map(|x| format!("{s}.{}", x.name)),
                        c,
                    ),
                });
            }
            if source.is_some_and(|x| x != si) {
                return Err(SemanticError::query(format!(
                    "`{text}` aggregates columns of several sources; an inline aggregate reads one source (combine measures of different sources with {{\"expr\", \"name\"}})"
                )));
            }
            source = Some(si);
        }
        let Some(si) = source else {
            return Err(SemanticError::query(format!(
                "`{text}` names no column; use a source's measure (e.g. `orders.count`) or count(source.id)"
            )));
        };
        self.bases.push(BaseMeasure {
            output: text.to_string(),
            source: si,
            expr,
            filter: None,
            cumulative: None,
            offset: None,
            non_additive: None,
            conversion: None,
            visible: true,
        });
        Ok(Ok(self.bases.len() - 1))
    }

    /// Adds conversion measure (source, index) under `output`: its
    /// conversions, a group of their own, and for a rate the base
    /// measure over the same rows (a plain measure of the source) and
    /// their quotient.
    fn add_conversion(
        &mut self,
        si: usize,
        mi: usize,
        conversion: &Conversion,
        output: String,
        visible: bool,
    ) -> Result<MeasureId, SemanticError> {
        let measure = &self.model.sources[si].measures[mi];
        let source = &self.model.sources[si].name;
        let rate = conversion.calculation == Calculation::Rate;
        let existing = self.bases.iter().position(|b| {
            b.source == si
                && b.expr == measure.expr
                && b.filter == measure.filter
                && b.conversion.as_ref() == Some(conversion)
        });
        let conversions = match existing {
            Some(i) => i,
            None => {
                self.bases.push(BaseMeasure {
                    output: format!("{source}.{}", measure.name),
                    source: si,
                    expr: measure.expr.clone(),
                    filter: measure.filter.clone(),
                    cumulative: None,
                    offset: None,
                    non_additive: None,
                    conversion: Some(conversion.clone()),
                    visible: false,
                });
                self.bases.len() - 1
            }
        };
        if !rate {
            if visible && !self.bases[conversions].visible {
                self.bases[conversions].visible = true;
                self.bases[conversions].output = output;
            }
            return Ok(Ok(conversions));
        }
        // The base rows, aggregated as any measure of the source.
        let base = match self.bases.iter().position(|b| {
            b.source == si
                && b.expr == measure.expr
                && b.filter == measure.filter
                && b.cumulative.is_none()
                && b.offset.is_none()
                && b.non_additive.is_none()
                && b.conversion.is_none()
        }) {
            Some(i) => i,
            None => {
                self.bases.push(BaseMeasure {
                    output: format!("{source}.{}", conversion.base),
                    source: si,
                    expr: measure.expr.clone(),
                    filter: measure.filter.clone(),
                    cumulative: None,
                    offset: None,
                    non_additive: None,
                    conversion: None,
                    visible: false,
                });
                self.bases.len() - 1
            }
        };
        if let Some(k) = self.derived.iter().position(|d| {
            d.refs
                == [
                    (CONVERSIONS.to_string(), Ok(conversions)),
                    (BASE.to_string(), Ok(base)),
                ]
        }) {
            if visible && !self.derived[k].visible {
                self.derived[k].visible = true;
                self.derived[k].output = output;
            }
            return Ok(Err(k));
        }
        self.derived.push(DerivedMeasure {
            output,
            expr: SqlExpr::parse(&format!("{CONVERSIONS} / {BASE}"), self.limits)?,
            refs: vec![
                (CONVERSIONS.to_string(), Ok(conversions)),
                (BASE.to_string(), Ok(base)),
            ],
            visible,
        });
        Ok(Err(self.derived.len() - 1))
    }

    /// A requested measure by name or inline aggregate.
    fn measure_by_text(&mut self, text: &str, visible: bool) -> Result<MeasureId, SemanticError> {
        let text = text.trim();
        if let Some((si, mi)) = self.find_model_measure(text, None)? {
            return self.add_model_measure(si, mi, text.to_string(), visible, 0);
        }
        let parsed = SqlExpr::parse(text, self.limits)?;
        if parsed.has_subquery() {
            return Err(SemanticError::query(format!(
                "measure `{text}`: {}",
                crate::model::SUBQUERY_IN_MEASURE
            )));
        }
        if is_aggregate(&parsed) {
            return self.add_inline(text, parsed);
        }
        Err(SemanticError::NotFound {
            message: format!(
                "no measure `{text}`; name a model measure (source.measure), an aggregate such as sum(source.column), or {{\"expr\", \"name\"}} over measures"
            ),
            candidates: candidates(self.all_measures(), text),
        })
    }

    /// The measure an output name or reference means, among those already
    /// requested, else a model measure (added hidden).
    fn measure_ref(&mut self, key: &str) -> Result<Option<MeasureId>, SemanticError> {
        if let Some(i) = self.bases.iter().position(|b| b.visible && b.output == key) {
            return Ok(Some(Ok(i)));
        }
        if let Some(i) = self
            .derived
            .iter()
            .position(|d| d.visible && d.output == key)
        {
            return Ok(Some(Err(i)));
        }
        // A bare name matching the measure part of a requested output.
        let bare: Vec<usize> = self
            .bases
            .iter()
            .enumerate()
            .filter(|(_, b)| b.visible && b.output.rsplit('.').next() == Some(key))
            .map(|(i, _)| i)
            .collect();
        if let [one] = bare.as_slice() {
            return Ok(Some(Ok(*one)));
        }
        match self.find_model_measure(key, None)? {
            Some((si, mi)) => Ok(Some(self.add_model_measure(
                si,
                mi,
                key.to_string(),
                false,
                0,
            )?)),
            None => Ok(None),
        }
    }
}

/// Splits `a AND b AND c` into its conjuncts.
fn conjuncts(expr: &sqlparser::ast::Expr, out: &mut Vec<sqlparser::ast::Expr>) {
    use sqlparser::ast::{BinaryOperator, Expr};
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        Expr::Nested(inner)
            if matches!(
                **inner,
                Expr::BinaryOp {
                    op: BinaryOperator::And,
                    ..
                }
            ) =>
        {
            conjuncts(inner, out)
        }
        other => out.push(other.clone()),
    }
}

/// Resolves a query's names against the model: its dimensions, measures
/// (named, inline aggregates, derived), filters split into row conditions
/// and conditions on measures, segments, order and limit.
pub(super) fn resolve(
    model: &SemanticModel,
    query: &SemanticQuery,
    limits: &SqlLimits,
) -> Result<Resolved, SemanticError> {
    if query.measures.is_empty() && query.dimensions.is_empty() {
        return Err(SemanticError::query(
            "ask for at least one measure or dimension",
        ));
    }
    let mut r = Resolver {
        model,
        limits,
        bases: Vec::new(),
        derived: Vec::new(),
    };
    let dims = dimensions(model, query)?;
    let measure_order = r.query_measures(query, &dims)?;
    let (mut row_filters, having) = r.filters(query)?;
    row_filters.extend(segment_filters(model, query)?);
    let order = order(model, &r, &dims, query)?;
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 {
        return Err(SemanticError::query("limit must be at least 1"));
    }
    Ok(Resolved {
        dims,
        bases: r.bases,
        derived: r.derived,
        measure_order,
        row_filters,
        having,
        order,
        limit,
        include_empty: query.include_empty,
    })
}

/// The query's dimensions, each `source.column` with its granularity;
/// one asked twice is refused.
fn dimensions(model: &SemanticModel, query: &SemanticQuery) -> Result<Vec<Dim>, SemanticError> {
    let mut dims: Vec<Dim> = Vec::new();
    for d in &query.dimensions {
        let (field, granularity) = d.parts();
        let dim = dimension(model, field, granularity)?;
        if dims.iter().any(|x| x.output == dim.output) {
            return Err(SemanticError::query(format!(
                "dimension `{}` is asked for twice",
                dim.output
            )));
        }
        dims.push(dim);
    }
    Ok(dims)
}

/// One dimension: a public column of a source (or a join alias), with a
/// granularity only when it is a time column.
fn dimension(
    model: &SemanticModel,
    field: &str,
    granularity: Option<&str>,
) -> Result<Dim, SemanticError> {
    let Some((s, c)) = field.split_once('.') else {
        return Err(SemanticError::query(format!(
            "dimension `{field}`: write it as source.column"
        )));
    };
    let Some((node, si)) = model.join_graph().node_named(model, s) else {
        return Err(SemanticError::NotFound {
            message: format!("dimension `{field}`: no source `{s}`"),
            candidates: candidates(model.source_names().into_iter(), s),
        });
    };
    let Some(column) = model.sources[si].column(c) else {
        return Err(SemanticError::NotFound {
            message: format!("dimension `{field}`: `{s}` has no column `{c}`"),
            candidates: candidates(
                model.sources[si]
                    .columns
                    .iter()
                    .map(|x| format!("{s}.{}", x.name)),
                c,
            ),
        });
    };
    if column.visibility == crate::model::Visibility::Hidden {
        return Err(SemanticError::query(format!(
            "dimension `{field}` is hidden in the model (it serves joins and measures); group by a public column, or make it public in {}",
            model.sources[si].file.display()
        )));
    }
    let granularity = match granularity {
        None => None,
        Some(g) => {
            let g = parse_dimension_granularity(field, g).map_err(SemanticError::query)?;
            if column.column_type != crate::model::ColumnType::Time {
                return Err(SemanticError::query(format!(
                    "dimension `{field}` is not a time column, so it takes no granularity"
                )));
            }
            Some(g)
        }
    };
    let output = match granularity {
        Some(g) => format!("{field}.{}", g.as_str()),
        None => field.to_string(),
    };
    Ok(Dim {
        output,
        source: si,
        node,
        column: c.to_string(),
        granularity,
    })
}

/// A query's conditions over columns and over measures.
type Filters = (Vec<RowFilter>, Vec<(SqlExpr, MeasureRefs)>);

impl Resolver<'_> {
    /// The output name of a measure of this query.
    fn output_of(&self, id: &MeasureId) -> &str {
        match id {
            Ok(i) => &self.bases[*i].output,
            Err(i) => &self.derived[*i].output,
        }
    }

    /// The query's measures in the order asked; a name asked twice (or
    /// also a dimension's) is refused.
    fn query_measures(
        &mut self,
        query: &SemanticQuery,
        dims: &[Dim],
    ) -> Result<Vec<MeasureId>, SemanticError> {
        let mut measure_order: Vec<MeasureId> = Vec::new();
        for m in &query.measures {
            let reference = match m {
                MeasureRef::Name(text) => self.measure_by_text(text, true)?,
                MeasureRef::Derived { expr, name } => self.asked_expression(expr, name)?,
            };
            let output = self.output_of(&reference).to_string();
            if dims.iter().any(|d| d.output == output)
                || measure_order.iter().any(|x| self.output_of(x) == output)
            {
                return Err(SemanticError::query(format!(
                    "`{output}` is asked for twice"
                )));
            }
            measure_order.push(reference);
        }
        Ok(measure_order)
    }

    /// A measure given as `{expr, name}`: an inline aggregate becomes a
    /// base measure, anything else a derived measure over other measures.
    fn asked_expression(&mut self, expr: &str, name: &str) -> Result<MeasureId, SemanticError> {
        let parsed = SqlExpr::parse(expr, self.limits)?;
        if is_aggregate(&parsed) {
            let base = self.add_inline(expr, parsed)?;
            if let Ok(i) = base {
                self.bases[i].output = name.to_string();
            }
            return Ok(base);
        }
        let mut refs = Vec::new();
        for parts in parsed.references() {
            let key = parts.join(".");
            let Some(found) = self.measure_ref(&key)? else {
                return Err(SemanticError::NotFound {
                    message: format!(
                        "in `{name}`, `{key}` is not a measure of this query or the model"
                    ),
                    candidates: candidates(self.all_measures(), &key),
                });
            };
            refs.push((key, found));
        }
        self.derived.push(DerivedMeasure {
            output: name.to_string(),
            expr: parsed,
            refs,
            visible: true,
        });
        Ok(Err(self.derived.len() - 1))
    }

    /// The query's filters, split at `AND` into conditions over columns
    /// (WHERE) and conditions over measures (HAVING).
    fn filters(&mut self, query: &SemanticQuery) -> Result<Filters, SemanticError> {
        let mut row_filters = Vec::new();
        let mut having = Vec::new();
        for text in &query.filters {
            let parsed = SqlExpr::parse(text, self.limits).map_err(|e| match e {
                SemanticError::InvalidQuery { message, .. } => {
                    SemanticError::query(format!("filter {message}"))
                }
                other => other,
            })?;
            let mut parts = Vec::new();
            conjuncts(&parsed.ast, &mut parts);
            for part in parts {
                let part = SqlExpr {
                    text: part.to_string(),
                    ast: part,
                };
                let (sources, measures) = self.filter_references(text, &part)?;
                match (sources.is_empty(), measures.is_empty()) {
                    (false, false) => {
                        return Err(SemanticError::query(format!(
                            "filter `{}` mixes columns and measures in one condition (an OR across a row condition and an aggregate cannot be split); write them as separate filters joined by AND",
                            part.text
                        )));
                    }
                    (_, false) => having.push((part, measures)),
                    _ => row_filters.push(RowFilter {
                        expr: part,
                        home: None,
                        sources,
                    }),
                }
            }
        }
        Ok((row_filters, having))
    }

    /// The nodes whose columns a condition reads, and the measures it
    /// reads; a reference that is neither is refused with candidates.
    fn filter_references(
        &mut self,
        text: &str,
        part: &SqlExpr,
    ) -> Result<(Vec<usize>, MeasureRefs), SemanticError> {
        let model = self.model;
        let mut sources = Vec::new();
        let mut measures = Vec::new();
        for reference in part.references() {
            let key = reference.join(".");
            let column_source = match reference.as_slice() {
                [s, c] => model
                    .join_graph()
                    .node_named(model, s)
                    .filter(|&(_, si)| model.sources[si].column(c).is_some())
                    .map(|(node, _)| node),
                _ => None,
            };
            if let Some(si) = column_source {
                if !sources.contains(&si) {
                    sources.push(si);
                }
            } else if let Some(found) = self.measure_ref(&key)? {
                measures.push((key, found));
            } else {
                return Err(SemanticError::NotFound {
                    message: format!(
                        "filter `{text}`: `{key}` is neither a column (source.column) nor a measure"
                    ),
                    candidates: candidates(
                        model.sources.iter().flat_map(|s| {
                            s.columns
                                .iter()
                                .map(move |c| format!("{}.{}", s.name, c.name))
                        }),
                        &key,
                    ),
                });
            }
        }
        Ok((sources, measures))
    }
}

/// The query's segments (`source.segment`) as row conditions on their
/// source.
fn segment_filters(
    model: &SemanticModel,
    query: &SemanticQuery,
) -> Result<Vec<RowFilter>, SemanticError> {
    let mut row_filters = Vec::new();
    for text in &query.segments {
        let Some((s, name)) = text.split_once('.') else {
            return Err(SemanticError::query(format!(
                "segment `{text}`: write it as source.segment"
            )));
        };
        let segment = model
            .index_of(s)
            .and_then(|si| model.sources[si].segment(name).map(|seg| (si, seg)));
        let Some((si, seg)) = segment else {
            return Err(SemanticError::NotFound {
                message: format!("no segment `{text}`"),
                candidates: candidates(
                    model.sources.iter().flat_map(|s| {
                        s.segments
                            .iter()
                            .map(move |g| format!("{}.{}", s.name, g.name))
                    }),
                    text,
                ),
            });
        };
        row_filters.push(RowFilter {
            expr: seg.expr.clone(),
            home: Some(si),
            sources: vec![si],
        });
    }
    Ok(row_filters)
}

/// The query's order (by default its dimensions, ascending).
fn order(
    model: &SemanticModel,
    r: &Resolver,
    dims: &[Dim],
    query: &SemanticQuery,
) -> Result<Vec<(String, bool)>, SemanticError> {
    let mut order = Vec::new();
    for o in &query.order_by {
        let (field, desc) = o.parts();
        order.push((order_field(model, r, dims, field)?, desc));
    }
    if order.is_empty() {
        order = dims.iter().map(|d| (d.output.clone(), false)).collect();
    }
    Ok(order)
}

/// The output an `order_by` field names: an output of the query, else a
/// dimension without its granularity or a bare measure name, when only
/// one fits.
fn order_field(
    model: &SemanticModel,
    r: &Resolver,
    dims: &[Dim],
    field: String,
) -> Result<String, SemanticError> {
    let visible_measures = || {
        r.bases
            .iter()
            .filter(|b| b.visible)
            .map(|b| b.output.clone())
            .chain(
                r.derived
                    .iter()
                    .filter(|d| d.visible)
                    .map(|d| d.output.clone()),
            )
    };
    let known = dims.iter().any(|d| d.output == field) || visible_measures().any(|o| o == field);
    if known {
        return Ok(field);
    }
    let by_dim: Vec<&Dim> = dims
        .iter()
        .filter(|d| format!("{}.{}", model.sources[d.source].name, d.column) == field)
        .collect();
    let by_measure: Vec<String> = visible_measures()
        .filter(|o| o.rsplit('.').next() == Some(field.as_str()))
        .collect();
    match (by_dim.as_slice(), by_measure.as_slice()) {
        ([d], []) => Ok(d.output.clone()),
        ([], [m]) => Ok(m.clone()),
        _ => Err(SemanticError::InvalidQuery {
            message: format!("order_by `{field}` is not a dimension or measure of this query"),
            candidates: dims
                .iter()
                .map(|d| d.output.clone())
                .chain(visible_measures())
                .collect(),
        }),
    }
}
