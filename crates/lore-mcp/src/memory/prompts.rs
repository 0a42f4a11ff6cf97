//! Guided memory workflows as MCP prompts. Each template is complete and
//! ready to run, and names every tool call it expects; none asks the model
//! to change memory without an explicit `store`, `update`, `delete` or
//! `undo` call the user can see (and confirm, for corrections).

use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};

/// A prompt's static description.
struct PromptSpec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    arguments: &'static [(&'static str, &'static str, bool)],
}

const PROMPTS: &[PromptSpec] = &[
    PromptSpec {
        name: "ingest_memory",
        title: "Remember new knowledge",
        description: "Turn notes, a document or a conversation into well-formed memory entries and relations, without duplicating what is already remembered.",
        arguments: &[
            (
                "material",
                "The text to remember from (notes, a document excerpt, a decision).",
                true,
            ),
            ("topic", "The topic the material is about, if known.", false),
            (
                "source",
                "Where the material came from (URL, file, person).",
                false,
            ),
            (
                "connection",
                "The connection id the material is about, if one (memory_ingest's connectionId).",
                false,
            ),
        ],
    },
    PromptSpec {
        name: "retrieve_context",
        title: "Recall what is known",
        description: "Gather everything memory holds that bears on a task or question, with confidence and provenance, before answering or acting.",
        arguments: &[
            ("task", "The task or question that needs context.", true),
            ("topic", "A topic to start from, if known.", false),
        ],
    },
    PromptSpec {
        name: "correct_stale_fact",
        title: "Correct a stale fact",
        description: "Find the entry holding an outdated fact, show how it changed over time, and replace it with the correct one safely (or undo a mistaken change).",
        arguments: &[
            (
                "fact",
                "The outdated statement, or words that find it.",
                true,
            ),
            ("correction", "What is true now.", true),
            ("source", "Evidence for the correction.", false),
        ],
    },
];

/// The prompts of `prompts/list`.
pub fn list() -> Vec<Prompt> {
    PROMPTS
        .iter()
        .map(|spec| {
            let arguments = spec
                .arguments
                .iter()
                .map(|(name, description, required)| {
                    PromptArgument::new(*name)
                        .with_description(*description)
                        .with_required(*required)
                })
                .collect();
            Prompt::new(spec.name, Some(spec.description), Some(arguments)).with_title(spec.title)
        })
        .collect()
}

/// The argument names of prompt `name`, or `None` when no prompt has it.
pub fn argument_names(name: &str) -> Option<Vec<&'static str>> {
    PROMPTS
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.arguments.iter().map(|(arg, _, _)| *arg).collect())
}

/// Why a prompt could not be rendered.
#[derive(Debug)]
pub enum PromptError {
    /// No prompt has this name.
    Unknown(String),
    /// A required argument is missing or empty.
    MissingArgument(&'static str, &'static str),
}

impl std::fmt::Display for PromptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PromptError::Unknown(name) => write!(
                f,
                "unknown prompt `{name}`; prompts/list shows ingest_memory, retrieve_context and correct_stale_fact"
            ),
            PromptError::MissingArgument(prompt, arg) => {
                write!(f, "prompt {prompt} needs the argument `{arg}`")
            }
        }
    }
}

/// Renders prompt `name` with `arguments`. `always` lists the wiki pages
/// marked `usage_mode: always` (key, summary), which `retrieve_context`
/// asks the agent to read first.
pub fn get(
    name: &str,
    arguments: &serde_json::Map<String, serde_json::Value>,
    always: &[(String, Option<String>)],
) -> Result<GetPromptResult, PromptError> {
    let spec = PROMPTS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| PromptError::Unknown(name.to_string()))?;
    let arg = |key: &str| -> Option<String> {
        arguments
            .get(key)
            .and_then(|v| match v {
                serde_json::Value::String(s) => Some(s.trim().to_string()),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|s| !s.is_empty())
    };
    for (key, _, required) in spec.arguments {
        if *required && arg(key).is_none() {
            return Err(PromptError::MissingArgument(spec.name, key));
        }
    }
    let text = match spec.name {
        "ingest_memory" => ingest(
            &arg("material").unwrap_or_default(),
            arg("topic").as_deref(),
            arg("source").as_deref(),
            arg("connection").as_deref(),
        ),
        "retrieve_context" => retrieve(
            &arg("task").unwrap_or_default(),
            arg("topic").as_deref(),
            always,
        ),
        _ => correct(
            &arg("fact").unwrap_or_default(),
            &arg("correction").unwrap_or_default(),
            arg("source").as_deref(),
        ),
    };
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(spec.description),
    )
}

fn ingest(
    material: &str,
    topic: Option<&str>,
    source: Option<&str>,
    connection: Option<&str>,
) -> String {
    let connection = connection.map_or_else(
        || "with connectionId when it is about one warehouse".to_string(),
        |c| format!("with connectionId \"{c}\""),
    );
    let topic_line = topic.map_or_else(
        || "Choose a short topic per fact (a noun phrase such as \"deployment\" or \"billing rules\").".to_string(),
        |t| format!("Use the topic \"{t}\" (or a sub-topic starting with it, such as \"{t} rollback\")."),
    );
    let source_line = source.map_or_else(
        || "If the material says where it comes from, pass that as source.".to_string(),
        |s| format!("Pass source: \"{s}\" with every entry."),
    );
    format!(
        "Remember the durable knowledge in the material below, using Lore's memory tools.\n\n\
If the material is a document about the data (definitions, metrics and their SQL, gotchas, a handbook) and this server offers `memory_ingest`, hand the whole material to `memory_ingest` instead ({connection}), poll `memory_ingest_status` until done, and report what it captured, skipped and warned about; otherwise:\n\n\
1. Split it into self-contained facts: each understandable alone, one idea each. Skip chit-chat, guesses and anything that will be stale within a day.\n\
2. {topic_line}\n\
3. For each fact, first call `query` with its topic (and a few key words as text) to see what is already remembered.\n\
   - Already remembered and still right: do nothing.\n\
   - Remembered but outdated: call `update` with the entry's id and expected_version set to the version you read.\n\
   - New: call `store` with topic, content, a confidence (1.0 stated outright, about 0.7 inferred) and a few lower-case tags.\n\
4. {source_line}\n\
5. Where the material states how things relate (X depends on Y, X owns Y), call `relate` with subject, predicate (snake_case, e.g. depends_on) and object.\n\
6. Finish with a short list of what you stored, updated or related, with the ids and tx_ids the tools returned, so any of it can be undone.\n\n\
Only the tool calls above change memory; do not claim something was remembered unless its call succeeded.\n\n\
Material:\n<<<\n{material}\n>>>"
    )
}

fn retrieve(task: &str, topic: Option<&str>, always: &[(String, Option<String>)]) -> String {
    let start = topic.map_or_else(
        || "Call `query` with text set to the key words of the task, and `wiki_search` with the same words.".to_string(),
        |t| format!("Call `query` with topic \"{t}\", then again with text set to the key words of the task, and `wiki_search` with those words."),
    );
    let pages = if always.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = always
            .iter()
            .map(|(key, summary)| match summary {
                Some(s) => format!("   - `{key}`: {s}"),
                None => format!("   - `{key}`"),
            })
            .collect();
        format!(
            "0. Read these wiki pages with `wiki_read` first: the project marks them as applying to every task.\n{}\n",
            list.join("\n")
        )
    };
    format!(
        "Before working on the task below, recall what Lore's memory already knows about it. This is read-only: do not store or change anything now.\n\n\
{pages}1. {start}\n\
2. Page with next_cursor while results stay relevant (keep the other arguments the same).\n\
3. For the central names (services, tables, people, products) call `query_graph` with depth 2 to see what they relate to.\n\
4. If a fact looks surprising, call `history` with its id to see how and when it changed.\n\
5. Summarise the relevant facts, each with its entry id, confidence and source. Say plainly what memory does not cover and prefer higher-confidence, more recent entries when they disagree.\n\n\
Task:\n<<<\n{task}\n>>>"
    )
}

fn correct(fact: &str, correction: &str, source: Option<&str>) -> String {
    let source_line = source.map_or_else(
        || "The user gave no source; mention that in the new content if it matters.".to_string(),
        |s| format!("Evidence for the correction: {s}."),
    );
    format!(
        "A remembered fact is out of date. Fix it with Lore's memory tools, changing nothing without showing it first.\n\n\
1. Find it: call `query` with text set to the key words of the outdated statement. If several entries match, list them and ask which one is meant.\n\
2. Call `history` with the entry's id to see how it got this way. If the wrong content came from one recent mistaken change, propose `undo` of that transaction instead of editing.\n\
3. Show the user the current content, the proposed new content and whether you will call `update` or `undo`; wait for their confirmation.\n\
4. After confirmation, call `update` with the id, the corrected content and expected_version set to the version you read (on a conflict, re-read and ask again), or call `undo` with the transaction id.\n\
5. Report the entry id, its new version and the tx_id, so the correction itself can be undone.\n\n\
{source_line}\n\n\
Outdated statement:\n<<<\n{fact}\n>>>\n\nWhat is true now:\n<<<\n{correction}\n>>>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> serde_json::Map<String, serde_json::Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect()
    }

    #[test]
    fn every_prompt_renders_its_arguments_and_names_explicit_tool_calls() {
        let ingest = get(
            "ingest_memory",
            &args(&[
                ("material", "We deploy blue-green."),
                ("topic", "deployment"),
            ]),
            &[],
        )
        .unwrap();
        let text = serde_json::to_value(&ingest.messages[0])
            .unwrap()
            .to_string();
        assert!(text.contains("We deploy blue-green."));
        assert!(text.contains("`store`") && text.contains("`update`"));
        let always = [("glossary".to_string(), Some("Business terms".to_string()))];
        let retrieve = get(
            "retrieve_context",
            &args(&[("task", "Plan the release")]),
            &always,
        )
        .unwrap();
        let text = serde_json::to_value(&retrieve.messages[0])
            .unwrap()
            .to_string();
        assert!(text.contains("read-only") && !text.contains("call `store`"));
        assert!(text.contains("`glossary`: Business terms"), "{text}");
        let plain = get("retrieve_context", &args(&[("task", "x")]), &[]).unwrap();
        assert!(!serde_json::to_string(&plain).unwrap().contains("wiki_read"));
        let correct = get(
            "correct_stale_fact",
            &args(&[("fact", "Pro is 9 USD"), ("correction", "Pro is 49 USD")]),
            &[],
        )
        .unwrap();
        let text = serde_json::to_value(&correct.messages[0])
            .unwrap()
            .to_string();
        assert!(text.contains("wait for their confirmation"));
    }

    #[test]
    fn missing_arguments_and_unknown_prompts_are_named() {
        let error = get("correct_stale_fact", &args(&[("fact", "x")]), &[]).unwrap_err();
        assert!(error.to_string().contains("`correction`"));
        assert!(
            get("nope", &args(&[]), &[])
                .unwrap_err()
                .to_string()
                .contains("prompts/list")
        );
    }
}
