//! What an agent asks the semantic layer for, in every shape agents write:
//! measures by name, inline aggregates or derived expressions; dimensions
//! as strings or `{field, granularity}` (also `{dimension, granularity}`);
//! orderings as strings, `{field, direction}` or `{id, desc}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dialect::Granularity;

/// A semantic query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub struct SemanticQuery {
    /// Measures: `"source.measure"`, a unique bare measure name, an inline
    /// aggregate such as `"sum(orders.amount)"` or `"count_distinct(orders.customer_id)"`,
    /// or `{"expr": "revenue / orders", "name": "aov"}` combining other measures.
    #[serde(default)]
    pub measures: Vec<MeasureRef>,
    /// Dimensions to group by: `"source.column"` or
    /// `{"field": "source.column", "granularity": "month"}` for time columns
    /// (day, week, month, quarter, year; also `"source.column:month"`).
    #[serde(default)]
    pub dimensions: Vec<DimensionRef>,
    /// SQL conditions over `source.column` (become WHERE) or over measures
    /// (become HAVING), e.g. `"accounts.segment = 'enterprise'"`, `"revenue > 1000"`.
    #[serde(default)]
    pub filters: Vec<String>,
    /// Named filters of the model: `"source.segment"`.
    #[serde(default)]
    pub segments: Vec<String>,
    /// Ordering: `"field"`, `"field desc"`, `{"field": "revenue", "direction": "desc"}`
    /// or `{"id": "revenue", "desc": true}`; fields are dimensions or measures.
    #[serde(default)]
    pub order_by: Vec<OrderRef>,
    /// At most this many rows, 1 to 10,000 (default 1000).
    #[serde(default)]
    #[schemars(range(min = 1, max = 10000))]
    pub limit: Option<u64>,
    /// Also list dimension values that have no rows (every value of each
    /// dimension in its own source, combined; measures are empty there).
    #[serde(default)]
    pub include_empty: bool,
}

/// One requested measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MeasureRef {
    /// A model measure or an inline aggregate.
    Name(String),
    /// An expression over other measures, with its output name.
    Derived {
        /// The expression, e.g. `"invoices.revenue / accounts.active_accounts"`.
        expr: String,
        /// The output column name.
        name: String,
    },
}

/// One requested dimension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum DimensionRef {
    /// `"source.column"`.
    Name(String),
    /// A column with a time granularity.
    Field {
        /// `"source.column"`.
        field: String,
        /// day, week, month, quarter or year.
        #[serde(default)]
        granularity: Option<String>,
    },
    /// The Cube-style spelling of the same.
    Dimension {
        /// `"source.column"`.
        dimension: String,
        /// day, week, month, quarter or year.
        #[serde(default)]
        granularity: Option<String>,
    },
}

impl DimensionRef {
    /// The field and granularity name, whatever the shape; a name may
    /// carry its granularity as the CLI writes it (`orders.ordered_at:month`).
    pub fn parts(&self) -> (&str, Option<&str>) {
        match self {
            DimensionRef::Name(name) => match name.rsplit_once(':') {
                Some((field, granularity))
                    if !granularity.trim().is_empty() && !granularity.contains('.') =>
                {
                    (field.trim(), Some(granularity.trim()))
                }
                _ => (name.as_str(), None),
            },
            DimensionRef::Field { field, granularity }
            | DimensionRef::Dimension {
                dimension: field,
                granularity,
            } => (field.as_str(), granularity.as_deref()),
        }
    }
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

/// One ordering term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OrderRef {
    /// `"field"` or `"field desc"`.
    Name(String),
    /// `{field, direction}`.
    Field {
        /// A dimension or measure of the query.
        field: String,
        /// asc (default) or desc.
        #[serde(default)]
        direction: Option<Direction>,
    },
    /// Cube-style `{id, desc}`.
    Id {
        /// A dimension or measure of the query.
        id: String,
        /// Descending when true.
        #[serde(default)]
        desc: bool,
    },
}

impl OrderRef {
    /// The field and whether it sorts descending, whatever the shape.
    pub fn parts(&self) -> (String, bool) {
        match self {
            OrderRef::Name(text) => {
                let trimmed = text.trim();
                let lower = trimmed.to_ascii_lowercase();
                if let Some(field) = lower.strip_suffix(" desc") {
                    (trimmed[..field.len()].trim().to_string(), true)
                } else if let Some(field) = lower.strip_suffix(" asc") {
                    (trimmed[..field.len()].trim().to_string(), false)
                } else {
                    (trimmed.to_string(), false)
                }
            }
            OrderRef::Field { field, direction } => {
                (field.clone(), *direction == Some(Direction::Desc))
            }
            OrderRef::Id { id, desc } => (id.clone(), *desc),
        }
    }
}

/// Parses a granularity, for messages listing the valid ones.
pub fn parse_granularity(name: &str) -> Result<Granularity, String> {
    Granularity::parse(name).ok_or_else(|| {
        format!(
            "granularity `{name}` is not one of {}",
            Granularity::ALL.map(|g| g.as_str()).join(", ")
        )
    })
}

/// Parses the granularity asked of dimension `field`; a wrong one is
/// answered with the valid ones and both forms that ask for one.
pub fn parse_dimension_granularity(field: &str, name: &str) -> Result<Granularity, String> {
    parse_granularity(name).map_err(|message| {
        format!(
            "dimension `{field}`: {message}; ask for a time dimension as {{\"field\": \"{field}\", \"granularity\": \"month\"}} or \"{field}:month\""
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_documented_shape_is_accepted() {
        let q: SemanticQuery = serde_json::from_value(json!({
            "measures": ["invoices.revenue", "sum(invoices.amount)", {"expr": "a / b", "name": "ratio"}],
            "dimensions": ["accounts.segment", {"field": "invoices.issued_at", "granularity": "month"},
                           {"dimension": "tickets.opened_at", "granularity": "week"}],
            "order_by": ["accounts.segment", "revenue DESC", {"field": "ratio", "direction": "desc"}, {"id": "x", "desc": true}],
            "limit": 10
        }))
        .unwrap();
        assert_eq!(q.dimensions[2].parts(), ("tickets.opened_at", Some("week")));
        // The CLI's shorthand, in any input.
        let shorthand = DimensionRef::Name("orders.ordered_at:month".into());
        assert_eq!(shorthand.parts(), ("orders.ordered_at", Some("month")));
        assert_eq!(
            DimensionRef::Name("orders.status".into()).parts(),
            ("orders.status", None)
        );
        let wrong = parse_dimension_granularity("orders.ordered_at", "monthly").unwrap_err();
        assert!(
            wrong.contains(r#"{"field": "orders.ordered_at", "granularity": "month"}"#)
                && wrong.contains("quarter"),
            "{wrong}"
        );
        let orders: Vec<(String, bool)> = q.order_by.iter().map(OrderRef::parts).collect();
        assert_eq!(
            orders,
            vec![
                ("accounts.segment".to_string(), false),
                ("revenue".to_string(), true),
                ("ratio".to_string(), true),
                ("x".to_string(), true)
            ]
        );
        assert!(
            parse_granularity("fortnight")
                .unwrap_err()
                .contains("quarter")
        );
    }
}
