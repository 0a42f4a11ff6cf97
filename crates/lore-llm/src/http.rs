//! One JSON POST to a model provider, with the retries every client of
//! this crate makes: a request the provider throttles (429) or fails
//! (5xx) is retried with backoff — the provider's `Retry-After` when it
//! sends one, else 250 ms, then 1 s — as long as the retry fits the
//! timeout. Error messages come from OpenAI's, Anthropic's and Ollama's
//! error shapes, with the API key taken out.

use std::time::{Duration, Instant};

/// Waits before the first and second retry of a throttled or failed
/// request (unless the provider says how long in `Retry-After`).
const BACKOFF: [Duration; 2] = [Duration::from_millis(250), Duration::from_secs(1)];

/// Most bytes of a provider's error message repeated to the user.
const MAX_MESSAGE: usize = 300;

/// Most bytes of an answer read.
const MAX_ANSWER: u64 = 16 * 1024 * 1024;

/// Why a POST failed.
#[derive(Debug, Clone)]
pub(crate) enum PostError {
    /// No answer: refused connection, DNS, TLS or timeout.
    Unreachable(String),
    /// An HTTP error status, after the retries it deserved.
    Refused {
        /// The status.
        status: u16,
        /// The provider's message.
        message: String,
    },
}

/// POSTs `body` (JSON) to `endpoint` with `headers` and answers the body
/// of the 200 answer. `redact` takes secrets out of messages; `setting`
/// names the configuration to check in messages (`search.embeddings`).
pub(crate) fn post_json(
    agent: &ureq::Agent,
    endpoint: &str,
    headers: &[(&str, String)],
    body: &str,
    timeout: Duration,
    redact: &dyn Fn(&str) -> String,
    setting: &str,
) -> Result<String, PostError> {
    let started = Instant::now();
    let mut attempt = 0;
    loop {
        let mut request = agent
            .post(endpoint)
            .header("Content-Type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let response = request
            .send(body.as_bytes())
            .map_err(|e| PostError::Unreachable(redact(&e.to_string())))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let mut reader = response.into_body().into_reader();
        let mut text = String::new();
        let limit = if status == 200 { MAX_ANSWER } else { 64 * 1024 };
        let read =
            std::io::Read::read_to_string(&mut std::io::Read::take(&mut reader, limit), &mut text);
        if let Err(e) = read
            && status == 200
        {
            return Err(PostError::Unreachable(redact(&format!(
                "the answer could not be read: {e}"
            ))));
        }
        if status == 200 {
            return Ok(text);
        }
        let wait = retry_after.unwrap_or(BACKOFF[attempt.min(BACKOFF.len() - 1)]);
        let retryable = status == 429 || status >= 500;
        if retryable && attempt < BACKOFF.len() && started.elapsed() + wait < timeout {
            tracing::info!(
                endpoint = %endpoint,
                status,
                wait_ms = wait.as_millis() as u64,
                "model provider busy; retrying"
            );
            std::thread::sleep(wait);
            attempt += 1;
            continue;
        }
        return Err(PostError::Refused {
            status,
            message: redact(&error_message(&text, status, setting)),
        });
    }
}

/// The message of an error answer: OpenAI's `{"error":{"message"}}`,
/// Ollama's `{"error":"…"}`, else the start of the body.
pub(crate) fn error_message(body: &str, status: u16, setting: &str) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let error = v.get("error")?;
            error
                .get("message")
                .and_then(|m| m.as_str())
                .or_else(|| error.as_str())
                .map(String::from)
        });
    let mut message = from_json.unwrap_or_else(|| body.trim().to_string());
    if message.is_empty() {
        message = match status {
            401 | 403 => format!("the API key was refused (check {setting}.api_key)"),
            404 => format!("no such endpoint or model (check {setting}.url and model)"),
            _ => "no message".to_string(),
        };
    }
    truncate(&message, MAX_MESSAGE).to_string()
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_errors_are_read_from_openai_anthropic_and_ollama_shapes() {
        assert_eq!(
            error_message(
                r#"{"error":{"message":"Incorrect API key","type":"x"}}"#,
                401,
                "llm"
            ),
            "Incorrect API key"
        );
        assert_eq!(
            error_message(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                529,
                "llm"
            ),
            "Overloaded"
        );
        assert_eq!(
            error_message(r#"{"error":"model not found"}"#, 404, "llm"),
            "model not found"
        );
        assert!(error_message("", 401, "search.embeddings").contains("search.embeddings.api_key"));
    }
}
