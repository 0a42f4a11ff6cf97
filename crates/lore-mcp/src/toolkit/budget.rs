//! The size budget of a tool result as sent.
//!
//! A result carries its answer twice: as `structuredContent` and as the
//! text block text-only clients read (the answer's JSON again, escaped
//! into a string, or a tool's own summary). Several MCP clients drop a
//! message over 1 MB, so the budget is the whole result as serialized,
//! with room for the JSON-RPC message around it
//! (`limits.message_bytes`), and the structured answer alone stays within
//! `limits.result_bytes`. An answer over either is cut to its first items
//! when the tool lists rows or results ([`super::Tool::items`]), saying so
//! in the answer; any other answer over it becomes `budget_exceeded`.

use lore_core::error::{ErrorCode, ErrorReport};
use lore_core::limits::SqlLimits;

/// What the JSON-RPC message around a result may add to it (`jsonrpc`,
/// `id`, `result`, and the event-stream framing over HTTP).
pub const ENVELOPE_BYTES: usize = 1024;

/// How large one tool result may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerBudget {
    /// `limits.result_bytes`: the structured answer's JSON.
    pub result_bytes: usize,
    /// `limits.message_bytes`: the whole result as sent, its envelope
    /// included.
    pub message_bytes: usize,
}

impl AnswerBudget {
    /// The budget `limits:` in `lore.yaml` sets.
    pub fn of(limits: &SqlLimits) -> AnswerBudget {
        AnswerBudget {
            result_bytes: limits.result_bytes,
            message_bytes: limits.message_bytes,
        }
    }

    /// The most bytes the serialized result itself may take.
    fn result_limit(&self) -> usize {
        self.message_bytes.saturating_sub(ENVELOPE_BYTES)
    }

    /// By how much a result of these sizes must shrink to fit (1.0 or
    /// more: it fits).
    pub(super) fn fit_ratio(&self, structured: usize, whole: usize) -> f64 {
        let structured = self.result_bytes as f64 / structured.max(1) as f64;
        let whole = self.result_limit() as f64 / whole.max(1) as f64;
        structured.min(whole)
    }

    /// Why an answer was cut, for the notice the tool writes into it.
    pub(super) fn why_cut(&self) -> String {
        format!(
            "the answer reached its size limit as sent ({} bytes of text and structured content together, limits.message_bytes; {} bytes of JSON, limits.result_bytes)",
            self.message_bytes, self.result_bytes
        )
    }

    /// The error of an answer over the budget that cannot be cut.
    pub(super) fn exceeded(&self, tool: &str, structured: usize, whole: usize) -> ErrorReport {
        ErrorReport::new(
            ErrorCode::BudgetExceeded,
            format!(
                "{tool}'s answer would be {whole} bytes as sent ({structured} bytes of JSON), over the {} bytes one tool result may take (limits.message_bytes; limits.result_bytes is {}); ask for less — a smaller limit, fewer items, a narrower query or the next page",
                self.message_bytes, self.result_bytes
            ),
        )
    }
}

impl Default for AnswerBudget {
    fn default() -> Self {
        AnswerBudget::of(&SqlLimits::default())
    }
}

pub use lore_core::limits::json_bytes;

#[cfg(test)]
mod tests {
    use lore_core::error::ErrorReport;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    use super::AnswerBudget;
    use crate::toolkit::{Scope, Tool, ToolContext, ToolDefinition, ToolRegistry};

    #[derive(Deserialize, JsonSchema)]
    struct Size {
        /// How many.
        n: usize,
    }

    /// Answers one text of `n` quote characters (which the text copy
    /// escapes to twice their size).
    struct Text;

    #[derive(Serialize, JsonSchema)]
    struct TextOut {
        text: String,
    }

    /// Answers `n` rows of 100 quote characters and cuts them when asked.
    struct Rows;

    #[derive(Serialize, JsonSchema)]
    struct RowsOut {
        rows: Vec<String>,
        truncated: bool,
        notice: Option<String>,
    }

    const fn definition(name: &'static str) -> ToolDefinition {
        ToolDefinition {
            name,
            title: name,
            description: "test",
            read_only: true,
            destructive: false,
            idempotent: Some(true),
            open_world: false,
            scope: Scope::Reader,
        }
    }

    impl Tool for Text {
        type Input = Size;
        type Output = TextOut;
        const DEFINITION: ToolDefinition = definition("text");
        async fn call(&self, input: Size, _: ToolContext) -> Result<TextOut, ErrorReport> {
            Ok(TextOut {
                text: "\"".repeat(input.n),
            })
        }
    }

    impl Tool for Rows {
        type Input = Size;
        type Output = RowsOut;
        const DEFINITION: ToolDefinition = definition("rows");
        fn items(output: &RowsOut) -> Option<usize> {
            Some(output.rows.len())
        }
        fn keep_items(output: &mut RowsOut, keep: usize, why: &str) {
            output.rows.truncate(keep);
            output.truncated = true;
            output.notice = Some(why.to_string());
        }
        async fn call(&self, input: Size, _: ToolContext) -> Result<RowsOut, ErrorReport> {
            Ok(RowsOut {
                rows: vec!["\"".repeat(100); input.n],
                truncated: false,
                notice: None,
            })
        }
    }

    async fn call(registry: &ToolRegistry, tool: &str, n: usize) -> serde_json::Value {
        let arguments = serde_json::json!({ "n": n });
        let result = registry
            .call_with(
                tool,
                arguments.as_object().cloned(),
                ToolContext::local("test"),
            )
            .await
            .unwrap();
        serde_json::to_value(&result).unwrap()
    }

    #[tokio::test]
    async fn every_result_fits_its_budget_as_sent_cut_when_it_lists_items() {
        let mut registry = ToolRegistry::new();
        registry.register(Text).register(Rows);
        registry.set_answer_budget(AnswerBudget {
            result_bytes: 100_000,
            message_bytes: 150_000,
        });
        // Within the structured budget, but its escaped text copy takes
        // the whole result past the message budget.
        let text = call(&registry, "text", 60_000).await;
        assert_eq!(text["isError"], true, "{text}");
        let error: serde_json::Value =
            serde_json::from_str(text["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(error["code"], "budget_exceeded");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("limits.message_bytes"),
            "{error}"
        );
        // A list is cut to its first items that fit, and says so.
        let rows = call(&registry, "rows", 1_000).await;
        let size = serde_json::to_string(&rows).unwrap().len();
        assert!(size <= 150_000 - super::ENVELOPE_BYTES, "{size} bytes");
        let out = &rows["structuredContent"];
        assert_eq!(out["truncated"], true);
        let kept = out["rows"].as_array().unwrap().len();
        assert!(kept > 150 && kept < 1_000, "{kept} rows");
        assert!(
            out["notice"]
                .as_str()
                .unwrap()
                .contains("limits.message_bytes")
        );
        // Small answers pass untouched.
        let small = call(&registry, "rows", 10).await;
        assert_eq!(small["structuredContent"]["truncated"], false);
    }
}
