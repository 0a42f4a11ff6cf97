//! Optional LLM triage (`llm:` in `lore.yaml`): a bounded tool-calling
//! loop in which the model files the note through four operations —
//! `write_page`, `define_term`, `remember`, `propose_measure` — and ends
//! with `finish`. Each call is checked at once and answered (`ok` or why
//! not, so the model can correct itself); what it files becomes a
//! [`Triage`], which goes through the same planner, checks and single
//! transaction as the deterministic triage. The model never writes
//! anything itself.

use lore_llm::{Chat, ChatError, Message, ToolCall, ToolSpec};
use serde_json::{Value, json};

use super::triage::{self, BlockKind, Callout, CodeBlock, Definition, Section, Triage};
use crate::wiki::page;

/// What the model may look at besides the note.
pub struct LlmContext<'a> {
    /// The live pages: (title or key, summary).
    pub pages: Vec<(String, String)>,
    /// The connection the note is about.
    pub connection: Option<&'a str>,
    /// The connection's scanned tables.
    pub tables: Vec<String>,
    /// The project's limits (a proposed measure's SQL is measured first).
    pub limits: &'a lore_core::limits::SqlLimits,
}

const SYSTEM: &str = "You file a note into a team's knowledge base about its data. \
Use the tools; every call is checked and answered with ok or the reason it was refused, so you can correct it. \
Rules: keep to what the note says, never invent; one wiki page per subject (write_page; to add to an existing page, use its exact title); \
each defined term once with define_term; traps and caveats with remember; an aggregate SQL query the note gives as a metric with propose_measure (only when a connection is named). \
Call finish when everything worth keeping is filed.";

fn tools(connection: bool) -> Vec<ToolSpec> {
    let mut tools = vec![
        ToolSpec {
            name: "write_page".into(),
            description: "A wiki page about one subject of the note (an existing page's title adds to that page).".into(),
            parameters: json!({"type": "object", "required": ["title", "summary", "body"], "properties": {
                "title": {"type": "string", "description": "The subject, a few words"},
                "summary": {"type": "string", "description": "One line saying what the page explains"},
                "body": {"type": "string", "description": "Markdown, from the note"}
            }}),
        },
        ToolSpec {
            name: "define_term".into(),
            description: "A term the note defines, with its definition.".into(),
            parameters: json!({"type": "object", "required": ["term", "definition"], "properties": {
                "term": {"type": "string"},
                "definition": {"type": "string", "description": "One or two sentences, from the note"}
            }}),
        },
        ToolSpec {
            name: "remember".into(),
            description: "A trap, caveat or rule to keep as a memory note.".into(),
            parameters: json!({"type": "object", "required": ["about", "text"], "properties": {
                "about": {"type": "string", "description": "The subject it belongs to"},
                "label": {"type": "string", "enum": ["note", "gotcha", "warning", "important", "caveat", "remember"]},
                "text": {"type": "string"}
            }}),
        },
        ToolSpec {
            name: "finish".into(),
            description: "Everything worth keeping is filed.".into(),
            parameters: json!({"type": "object", "properties": {"summary": {"type": "string"}}}),
        },
    ];
    if connection {
        tools.push(ToolSpec {
            name: "propose_measure".into(),
            description: "A metric the note defines as one aggregate SQL query over one table; it becomes a semantic-layer measure if the model accepts it.".into(),
            parameters: json!({"type": "object", "required": ["name", "sql"], "properties": {
                "name": {"type": "string", "description": "snake_case"},
                "sql": {"type": "string", "description": "SELECT <aggregate> FROM <table> [WHERE …]"}
            }}),
        });
    }
    tools
}

fn text_arg<'a>(call: &'a ToolCall, name: &str) -> Result<&'a str, String> {
    call.arguments
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("refused: `{name}` must be non-empty text"))
}

/// Applies one call to the triage being built: `Ok(answer)` or the
/// refusal the model is told.
fn apply(
    call: &ToolCall,
    built: &mut Triage,
    connection: bool,
    limits: &lore_core::limits::SqlLimits,
) -> Result<String, String> {
    if !call.arguments.is_object() && call.name != "finish" {
        return Err("refused: the arguments are not a JSON object".into());
    }
    match call.name.as_str() {
        "write_page" => {
            let title = text_arg(call, "title")?;
            let summary = text_arg(call, "summary")?;
            let body = text_arg(call, "body")?;
            if title.chars().count() > page::KEY_CHARS {
                return Err(format!(
                    "refused: a title has at most {} characters",
                    page::KEY_CHARS
                ));
            }
            if summary.contains('\n') || summary.chars().count() > page::SUMMARY_CHARS {
                return Err(format!(
                    "refused: the summary must be one line of at most {} characters",
                    page::SUMMARY_CHARS
                ));
            }
            built.sections.push(Section {
                heading: triage::squash(title),
                summary: Some(summary.to_string()),
                body: body.to_string(),
                paragraphs: body
                    .split("\n\n")
                    .map(triage::squash)
                    .filter(|p| !p.is_empty())
                    .collect(),
            });
            Ok(format!("ok: page `{}`", page::slug(title)))
        }
        "define_term" => {
            let term = text_arg(call, "term")?;
            let definition = text_arg(call, "definition")?;
            if term.split_whitespace().count() > 8 {
                return Err("refused: a term is a few words, not a sentence".into());
            }
            let text = if definition.to_lowercase().starts_with(&term.to_lowercase()) {
                triage::squash(definition)
            } else {
                format!("{term}: {}", triage::squash(definition))
            };
            built.definitions.push(Definition {
                term: triage::squash(term),
                text,
                section: usize::MAX,
            });
            Ok(format!("ok: `{term}` defined"))
        }
        "remember" => {
            let about = text_arg(call, "about")?;
            let text = text_arg(call, "text")?;
            let label = call
                .arguments
                .get("label")
                .and_then(Value::as_str)
                .unwrap_or("note")
                .to_lowercase();
            // The note is filed under its subject's section when there is one.
            let section = built
                .sections
                .iter()
                .position(|s| s.heading.eq_ignore_ascii_case(about))
                .unwrap_or(usize::MAX);
            built.callouts.push(Callout {
                label,
                text: text.to_string(),
                section,
            });
            Ok("ok: remembered".into())
        }
        "propose_measure" if connection => {
            let name = text_arg(call, "name")?;
            let sql = text_arg(call, "sql")?;
            super::measures::propose(sql, name, limits).map_err(|why| format!("refused: {why}"))?;
            built.blocks.push(CodeBlock {
                label: Some(name.to_string()),
                lang: "sql".into(),
                kind: BlockKind::Sql,
                text: sql.to_string(),
                section: usize::MAX,
            });
            Ok(format!(
                "ok: measure `{name}` proposed (kept if the model loads with it)"
            ))
        }
        "finish" => Ok("ok: done".into()),
        other => Err(format!("refused: there is no tool `{other}`")),
    }
}

/// Triage by the model: the note filed through the tools, and warnings
/// (refused calls, a loop that ran out of steps). `Err` when the model
/// cannot be used (unreachable, refusing, malformed answers).
pub fn llm_triage(
    chat: &Chat,
    max_steps: u32,
    content: &str,
    cx: &LlmContext<'_>,
) -> Result<(Triage, Vec<String>), ChatError> {
    let fallback_title = triage::triage(content).title;
    let mut prompt = String::from("Existing wiki pages (title — summary):\n");
    if cx.pages.is_empty() {
        prompt.push_str("(none)\n");
    }
    for (title, summary) in cx.pages.iter().take(200) {
        prompt.push_str(&format!("- {title} — {summary}\n"));
    }
    match cx.connection {
        Some(connection) => {
            prompt.push_str(&format!(
                "\nThe note is about the warehouse connection `{connection}`; its tables: "
            ));
            prompt.push_str(
                &cx.tables
                    .iter()
                    .take(200)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            );
            prompt.push('\n');
        }
        None => prompt.push_str("\nThe note is not about one warehouse: no measures.\n"),
    }
    prompt.push_str("\nThe note:\n<<<\n");
    prompt.push_str(content);
    prompt.push_str("\n>>>\n");
    let tools = tools(cx.connection.is_some());
    let mut messages = vec![Message::User(prompt)];
    let mut built = Triage {
        title: fallback_title,
        ..Triage::default()
    };
    let mut warnings = Vec::new();
    let mut finished = false;
    for _ in 0..max_steps {
        let reply = chat.send(SYSTEM, &messages, &tools)?;
        let calls = reply.calls.clone();
        messages.push(Message::Assistant {
            text: reply.text,
            calls: reply.calls,
        });
        if calls.is_empty() {
            finished = true;
            break;
        }
        for call in &calls {
            let answer = match apply(call, &mut built, cx.connection.is_some(), cx.limits) {
                Ok(answer) => answer,
                Err(refusal) => {
                    warnings.push(format!("the model's {} call was {refusal}", call.name));
                    refusal
                }
            };
            finished |= call.name == "finish";
            messages.push(Message::ToolResult {
                call_id: call.id.clone(),
                content: answer,
            });
        }
        if finished {
            break;
        }
    }
    if !finished {
        warnings.push(format!(
            "the model used all {max_steps} steps (llm.max_steps) without finishing; what it filed so far is kept"
        ));
    }
    if built.sections.is_empty()
        && built.definitions.is_empty()
        && built.callouts.is_empty()
        && built.blocks.is_empty()
    {
        warnings.push("the model filed nothing from this note".into());
    }
    if let Some(first) = built.sections.first() {
        built.title = first.heading.clone();
    }
    Ok((built, warnings))
}
