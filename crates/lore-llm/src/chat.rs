//! A chat model with tools, in either of the two wire protocols model
//! servers speak: OpenAI's `POST <url>/chat/completions` (`tools` of type
//! `function`, answers' `tool_calls` with JSON-text `arguments`; OpenAI,
//! Azure OpenAI, Ollama, vLLM, LM Studio, llama.cpp) and Anthropic's
//! `POST <url>/v1/messages` (`tools` with `input_schema`, answers'
//! `tool_use` blocks, results as `tool_result` blocks). The conversation
//! is kept here in one shape ([`Message`]) and written in the server's.
//! Timeouts, retries and key redaction are `http`'s.

use std::time::Duration;

use lore_core::config::{LlmConfig, LlmProtocol};
use serde_json::{Value, json};

/// A tool the model may call.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its arguments, as a JSON Schema object.
    pub parameters: Value,
}

/// A call the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The server's id of the call (sent back with its result).
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments (`Value::Null` when the model's text was not JSON).
    pub arguments: Value,
}

/// One turn of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The user's text.
    User(String),
    /// The model's answer: text and tool calls.
    Assistant {
        /// Its text, if any.
        text: Option<String>,
        /// Its tool calls.
        calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// What the tool said.
        content: String,
    },
}

/// The model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// Its text, if any.
    pub text: Option<String>,
    /// Its tool calls, in order.
    pub calls: Vec<ToolCall>,
}

/// Why a chat request failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ChatError {
    /// No answer: refused connection, DNS, TLS or timeout.
    #[error("cannot reach the chat model at {endpoint}: {reason}")]
    Unreachable {
        /// The URL posted to.
        endpoint: String,
        /// What went wrong.
        reason: String,
    },
    /// An HTTP error status (429 and 5xx after the retries).
    #[error("the chat model at {endpoint} answered HTTP {status}: {message}")]
    Refused {
        /// The URL posted to.
        endpoint: String,
        /// The status.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// An answer that is not a chat answer.
    #[error("the chat model at {endpoint} gave a malformed answer: {reason}")]
    Malformed {
        /// The URL posted to.
        endpoint: String,
        /// What was wrong with it.
        reason: String,
    },
}

/// A client of one chat model.
pub struct Chat {
    protocol: LlmProtocol,
    endpoint: String,
    model: String,
    api_key: Option<String>,
    max_tokens: u32,
    timeout: Duration,
    agent: ureq::Agent,
}

impl std::fmt::Debug for Chat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chat")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Chat {
    /// A client for `config`, with its API key already resolved.
    pub fn new(config: &LlmConfig, api_key: Option<String>) -> Chat {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout()))
            .timeout_connect(Some(config.timeout().min(Duration::from_secs(5))))
            .http_status_as_error(false)
            .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Chat {
            protocol: config.provider,
            endpoint: config.endpoint(),
            model: config.model.trim().to_string(),
            api_key: api_key.filter(|k| !k.is_empty()),
            max_tokens: config.max_tokens(),
            timeout: config.timeout(),
            agent,
        }
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(key) if key.len() >= 4 => text.replace(key.as_str(), "***"),
            _ => text.to_string(),
        }
    }

    /// Sends the conversation and answers the model's next turn.
    /// Blocking; each attempt at most the configured timeout.
    pub fn send(
        &self,
        system: &str,
        messages: &[Message],
        tools: &[ToolSpec],
    ) -> Result<Reply, ChatError> {
        let (body, headers) = match self.protocol {
            LlmProtocol::Openai => (self.openai_body(system, messages, tools), self.bearer()),
            LlmProtocol::Anthropic => (
                self.anthropic_body(system, messages, tools),
                self.anthropic_headers(),
            ),
        };
        let text = crate::http::post_json(
            &self.agent,
            &self.endpoint,
            &headers,
            &body.to_string(),
            self.timeout,
            &|t| self.redact(t),
            "llm",
        )
        .map_err(|e| match e {
            crate::http::PostError::Unreachable(reason) => ChatError::Unreachable {
                endpoint: self.endpoint.clone(),
                reason,
            },
            crate::http::PostError::Refused { status, message } => ChatError::Refused {
                endpoint: self.endpoint.clone(),
                status,
                message,
            },
        })?;
        let malformed = |reason: String| ChatError::Malformed {
            endpoint: self.endpoint.clone(),
            reason: self.redact(&reason),
        };
        let answer: Value =
            serde_json::from_str(&text).map_err(|e| malformed(format!("not JSON ({e})")))?;
        match self.protocol {
            LlmProtocol::Openai => read_openai(&answer).map_err(malformed),
            LlmProtocol::Anthropic => read_anthropic(&answer).map_err(malformed),
        }
    }

    fn bearer(&self) -> Vec<(&'static str, String)> {
        self.api_key
            .iter()
            .map(|k| ("Authorization", format!("Bearer {k}")))
            .collect()
    }

    fn anthropic_headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![("anthropic-version", "2023-06-01".to_string())];
        if let Some(key) = &self.api_key {
            headers.push(("x-api-key", key.clone()));
        }
        headers
    }

    fn openai_body(&self, system: &str, messages: &[Message], tools: &[ToolSpec]) -> Value {
        let mut wire = vec![json!({"role": "system", "content": system})];
        for message in messages {
            wire.push(match message {
                Message::User(text) => json!({"role": "user", "content": text}),
                Message::Assistant { text, calls } => {
                    let mut m = json!({"role": "assistant", "content": text});
                    if !calls.is_empty() {
                        m["tool_calls"] = calls
                            .iter()
                            .map(|c| {
                                json!({"id": c.id, "type": "function", "function": {
                                    "name": c.name,
                                    "arguments": c.arguments.to_string(),
                                }})
                            })
                            .collect();
                    }
                    m
                }
                Message::ToolResult { call_id, content } => {
                    json!({"role": "tool", "tool_call_id": call_id, "content": content})
                }
            });
        }
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
        json!({
            "model": self.model,
            "messages": wire,
            "tools": tools,
            "tool_choice": "auto",
            "max_tokens": self.max_tokens,
            "temperature": 0,
        })
    }

    fn anthropic_body(&self, system: &str, messages: &[Message], tools: &[ToolSpec]) -> Value {
        let mut wire: Vec<Value> = Vec::new();
        for message in messages {
            let (role, block) = match message {
                Message::User(text) => ("user", vec![json!({"type": "text", "text": text})]),
                Message::Assistant { text, calls } => {
                    let mut blocks = Vec::new();
                    if let Some(text) = text.as_ref().filter(|t| !t.is_empty()) {
                        blocks.push(json!({"type": "text", "text": text}));
                    }
                    for c in calls {
                        let input = if c.arguments.is_object() {
                            c.arguments.clone()
                        } else {
                            json!({})
                        };
                        blocks.push(
                            json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}),
                        );
                    }
                    ("assistant", blocks)
                }
                Message::ToolResult { call_id, content } => (
                    "user",
                    vec![
                        json!({"type": "tool_result", "tool_use_id": call_id, "content": content}),
                    ],
                ),
            };
            // Consecutive turns of one role are one message in this protocol.
            match wire.last_mut() {
                Some(last) if last["role"] == role => {
                    if let Some(content) = last["content"].as_array_mut() {
                        content.extend(block);
                    }
                }
                _ => wire.push(json!({"role": role, "content": block})),
            }
        }
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        json!({
            "model": self.model,
            "system": system,
            "messages": wire,
            "tools": tools,
            "max_tokens": self.max_tokens,
            "temperature": 0,
        })
    }
}

fn read_openai(answer: &Value) -> Result<Reply, String> {
    let message = answer
        .pointer("/choices/0/message")
        .ok_or("no choices[0].message (expected an OpenAI chat completion)")?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty())
        .map(str::to_string);
    let mut calls = Vec::new();
    if let Some(list) = message.get("tool_calls") {
        let list = list.as_array().ok_or("tool_calls is not a list")?;
        for (i, call) in list.iter().enumerate() {
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or(format!("tool_calls[{i}] has no function.name"))?;
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
                Some(object @ Value::Object(_)) => object.clone(),
                _ => Value::Null,
            };
            calls.push(ToolCall {
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("call_{i}"), str::to_string),
                name: name.to_string(),
                arguments,
            });
        }
    }
    Ok(Reply { text, calls })
}

fn read_anthropic(answer: &Value) -> Result<Reply, String> {
    let content = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or("no content list (expected an Anthropic message)")?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for (i, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            Some("tool_use") => calls.push(ToolCall {
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .ok_or(format!("content[{i}] tool_use has no id"))?
                    .to_string(),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or(format!("content[{i}] tool_use has no name"))?
                    .to_string(),
                arguments: block.get("input").cloned().unwrap_or(Value::Null),
            }),
            _ => {}
        }
    }
    Ok(Reply {
        text: (!text.trim().is_empty()).then_some(text),
        calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loopback::recording;

    fn config(url: &str, provider: LlmProtocol) -> LlmConfig {
        LlmConfig {
            provider,
            url: url.to_string(),
            model: "m".into(),
            api_key: None,
            timeout_ms: Some(5_000),
            max_steps: None,
            max_tokens: None,
            fallback: None,
        }
    }

    fn tools() -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "define_term".into(),
            description: "Define a term".into(),
            parameters: json!({"type": "object", "properties": {"term": {"type": "string"}}}),
        }]
    }

    #[test]
    fn openai_tool_calls_go_out_and_come_back_in_its_wire_format() {
        let answer = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "define_term", "arguments": "{\"term\":\"ARR\"}"}}
        ]}, "finish_reason": "tool_calls"}]});
        let (url, _, bodies) = recording(vec![
            (
                429,
                "Retry-After: 0\r\n",
                r#"{"error":{"message":"slow down"}}"#.into(),
            ),
            (200, "", answer.to_string()),
        ]);
        let chat = Chat::new(
            &config(&url, LlmProtocol::Openai),
            Some("sk-test-key".into()),
        );
        let history = vec![
            Message::User("remember ARR".into()),
            Message::Assistant {
                text: None,
                calls: vec![ToolCall {
                    id: "call_0".into(),
                    name: "define_term".into(),
                    arguments: json!({"term": "MRR"}),
                }],
            },
            Message::ToolResult {
                call_id: "call_0".into(),
                content: "ok".into(),
            },
        ];
        let reply = chat.send("file notes", &history, &tools()).unwrap();
        assert_eq!(
            reply.calls,
            vec![ToolCall {
                id: "call_1".into(),
                name: "define_term".into(),
                arguments: json!({"term": "ARR"})
            }]
        );
        let sent: Value = serde_json::from_str(&bodies.lock().unwrap()[1]).unwrap();
        assert_eq!(
            sent["messages"][0],
            json!({"role": "system", "content": "file notes"})
        );
        assert_eq!(
            sent["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"term\":\"MRR\"}"
        );
        assert_eq!(
            sent["messages"][3],
            json!({"role": "tool", "tool_call_id": "call_0", "content": "ok"})
        );
        assert_eq!(sent["tools"][0]["function"]["name"], "define_term");
    }

    #[test]
    fn anthropic_tool_use_goes_out_and_comes_back_in_its_wire_format() {
        let answer = json!({"type": "message", "role": "assistant", "content": [
            {"type": "text", "text": "Filing it."},
            {"type": "tool_use", "id": "toolu_1", "name": "define_term", "input": {"term": "ARR"}}
        ], "stop_reason": "tool_use"});
        let (url, _, bodies) = recording(vec![(200, "", answer.to_string())]);
        let chat = Chat::new(&config("http://x", LlmProtocol::Anthropic), None);
        assert!(chat.endpoint.ends_with("/v1/messages"), "{}", chat.endpoint);
        let chat = Chat::new(
            &config(&url, LlmProtocol::Anthropic),
            Some("sk-ant-key".into()),
        );
        let history = vec![
            Message::User("remember ARR".into()),
            Message::Assistant {
                text: None,
                calls: vec![ToolCall {
                    id: "toolu_0".into(),
                    name: "define_term".into(),
                    arguments: json!({"term": "MRR"}),
                }],
            },
            Message::ToolResult {
                call_id: "toolu_0".into(),
                content: "ok".into(),
            },
        ];
        let reply = chat.send("file notes", &history, &tools()).unwrap();
        assert_eq!(reply.text.as_deref(), Some("Filing it."));
        assert_eq!(reply.calls[0].id, "toolu_1");
        assert_eq!(reply.calls[0].arguments, json!({"term": "ARR"}));
        let sent: Value = serde_json::from_str(&bodies.lock().unwrap()[0]).unwrap();
        assert_eq!(sent["system"], "file notes");
        assert_eq!(sent["messages"][1]["content"][0]["type"], "tool_use");
        assert_eq!(
            sent["messages"][2]["content"][0],
            json!({"type": "tool_result", "tool_use_id": "toolu_0", "content": "ok"})
        );
        assert_eq!(sent["tools"][0]["input_schema"]["type"], "object");
    }

    #[test]
    fn failures_say_what_happened_without_the_key() {
        let busy = || {
            (
                500,
                "Retry-After: 0\r\n",
                r#"{"error":{"message":"overloaded sk-secret"}}"#.to_string(),
            )
        };
        let (url, count, _) = recording(vec![busy(), busy(), busy()]);
        let error = Chat::new(&config(&url, LlmProtocol::Openai), Some("sk-secret".into()))
            .send("s", &[Message::User("x".into())], &[])
            .unwrap_err();
        assert!(
            matches!(error, ChatError::Refused { status: 500, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("overloaded ***"), "{error}");
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 3);
        let (url, _, _) = recording(vec![(200, "", "{not json".into())]);
        let error = Chat::new(&config(&url, LlmProtocol::Openai), None)
            .send("s", &[Message::User("x".into())], &[])
            .unwrap_err();
        assert!(matches!(error, ChatError::Malformed { .. }), "{error}");
        let (url, _, _) = recording(vec![(200, "", r#"{"id":"x"}"#.into())]);
        let error = Chat::new(&config(&url, LlmProtocol::Openai), None)
            .send("s", &[Message::User("x".into())], &[])
            .unwrap_err();
        assert!(
            error.to_string().contains("no choices[0].message"),
            "{error}"
        );
    }
}
