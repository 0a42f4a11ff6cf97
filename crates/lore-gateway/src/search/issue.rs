//! Reading an issue as an engineer does: the report apart from its
//! template, its words weighted by where they stand, and the functions its
//! stack frames name.
//!
//! - **Template** lines say nothing of the bug: checklist items (`- [x]
//!   I searched the issues`) and HTML comments (`<!-- describe … -->`) are
//!   dropped.
//! - **Code written inline** (`` `parse_header` ``) is what the reporter
//!   points at: its words weigh [`INLINE_CODE`].
//! - **Pasted logs** (lines that open with a timestamp or a log level) are
//!   mostly the program's chatter: their words weigh [`LOG_LINE`].
//! - **Stack frames** name a file and a function: Python's `File "x.py",
//!   line 3, in send`, JavaScript's and Java's `at send (x.js:3:7)`, Go's
//!   `pkg.(*T).Send(…)` over `\t/x.go:3`, Rust's `3: crate::x::send`. The
//!   files are found as mentions (`mentioned_files`), the functions
//!   here, and searched as identifiers.

use std::collections::HashMap;

use lore_search::tokenizer::query_terms;

/// The weight of words written as inline code.
pub(super) const INLINE_CODE: f32 = 1.5;
/// The weight of words only found in pasted log lines.
pub(super) const LOG_LINE: f32 = 0.5;

/// The issue without its template's lines.
pub(super) fn without_template(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_comment = false;
    for line in text.lines() {
        let mut kept = String::new();
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("-->") {
                    Some(end) => {
                        rest = &rest[end + 3..];
                        in_comment = false;
                    }
                    None => break,
                }
            } else {
                match rest.find("<!--") {
                    Some(start) => {
                        kept.push_str(&rest[..start]);
                        rest = &rest[start + 4..];
                        in_comment = true;
                    }
                    None => {
                        kept.push_str(rest);
                        break;
                    }
                }
            }
        }
        if is_checklist(&kept) {
            continue;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// `- [x] I have searched the issues`, `* [ ] …`.
fn is_checklist(line: &str) -> bool {
    let trimmed = line.trim_start();
    let item = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
        .unwrap_or(trimmed);
    ["[ ]", "[x]", "[X]"]
        .iter()
        .any(|mark| item.starts_with(mark))
}

/// Each searched word's weight: the most of the places it stands in
/// (prose 1, inline code [`INLINE_CODE`], log lines [`LOG_LINE`]).
pub(super) fn term_weights(text: &str) -> HashMap<String, f32> {
    // The text of each weight, tokenized once each.
    let (mut prose, mut inline, mut logs) = (String::new(), String::new(), String::new());
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if is_log_line(line) {
            logs.push_str(line);
            logs.push('\n');
            continue;
        }
        if fenced {
            prose.push_str(line);
            prose.push('\n');
            continue;
        }
        // Inline code between backticks, prose around it.
        for (n, part) in line.split('`').enumerate() {
            let into = if n % 2 == 1 { &mut inline } else { &mut prose };
            into.push_str(part);
            into.push('\n');
        }
    }
    let mut weights: HashMap<String, f32> = HashMap::new();
    for (words, weight) in [(logs, LOG_LINE), (prose, 1.0), (inline, INLINE_CODE)] {
        for term in query_terms(&words) {
            let entry = weights.entry(term).or_insert(weight);
            *entry = entry.max(weight);
        }
    }
    weights
}

/// A line a program logged: it opens with a date or time, or a log level.
fn is_log_line(line: &str) -> bool {
    let trimmed = line.trim_start().trim_start_matches('[');
    let bytes = trimmed.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        bytes.len() >= range.end && bytes[range].iter().all(u8::is_ascii_digit)
    };
    // 2024-01-31…, 12:30:01…
    let dated = digits(0..4) && bytes.get(4) == Some(&b'-') && digits(5..7);
    let timed = digits(0..2) && bytes.get(2) == Some(&b':') && digits(3..5);
    let level = [
        "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "TRACE", "FATAL",
    ]
    .iter()
    .any(|level| {
        trimmed.strip_prefix(level).is_some_and(|rest| {
            rest.starts_with([' ', ':', ']', '\t', '|']) && !rest.trim().is_empty()
        })
    });
    dated || timed || level
}

/// The functions the issue's stack frames name, innermost last as
/// written; frames of generated wrappers (`<module>`, closures) left out.
pub(super) fn frame_functions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        let name = python_frame(trimmed)
            .or_else(|| at_frame(trimmed))
            .or_else(|| rust_frame(trimmed))
            .or_else(|| {
                let next = lines.get(n + 1).map_or("", |l| l.trim());
                go_frame(trimmed, next)
            });
        let Some(name) = name else {
            continue;
        };
        let name = name.trim_end_matches("()");
        let usable = name.chars().count() >= 3
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with("__")
            && !is_anonymous(name);
        if usable && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// `func1`, `closure`, `anonymous`, `lambda`: names no one defined.
fn is_anonymous(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let numbered = lower
        .strip_prefix("func")
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()));
    numbered
        || [
            "closure",
            "anonymous",
            "lambda",
            "module",
            "wrapper",
            "inner",
        ]
        .contains(&lower.as_str())
}

/// `File "app/x.py", line 3, in send` → `send`.
fn python_frame(line: &str) -> Option<&str> {
    if !line.starts_with("File \"") {
        return None;
    }
    let (_, function) = line.rsplit_once(", in ")?;
    Some(function.trim())
}

/// `at Client.send (src/x.ts:3:7)`, `at async send (…)`,
/// `at org.x.Client.send(Client.java:3)` → `send`.
fn at_frame(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("at ")?;
    let rest = rest.strip_prefix("async ").unwrap_or(rest);
    let rest = rest.strip_prefix("new ").unwrap_or(rest);
    let (callee, location) = rest.split_once('(')?;
    if !location.contains(':') {
        return None;
    }
    let callee = callee.trim();
    let callee = callee.split(" [as ").next().unwrap_or(callee);
    callee.rsplit('.').next()
}

/// `  3: mycrate::parser::parse_header` (a Rust backtrace) → `parse_header`.
fn rust_frame(line: &str) -> Option<&str> {
    let (number, path) = line.split_once(": ")?;
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) || !path.contains("::") {
        return None;
    }
    let path = path.split_whitespace().next()?;
    // `…::send::h1a2b3c4d5e6f7a8b`: the hash is not the name.
    let mut parts = path.rsplit("::");
    let last = parts.next()?;
    if last.starts_with('h') && last.len() == 17 {
        return parts.next();
    }
    Some(last)
}

/// `github.com/x/y/pkg.(*Client).Send(0xc000…)` over `\t/src/y/pkg/client.go:42 +0x1d`
/// → `Send`.
fn go_frame<'a>(line: &'a str, next: &str) -> Option<&'a str> {
    if !next.contains(".go:") {
        return None;
    }
    let call = line.strip_suffix(')')?;
    let (callee, _) = call.rsplit_once('(')?;
    if callee.contains(' ') {
        return None;
    }
    callee.rsplit('.').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_leaves_and_the_report_stays() {
        let issue = "## Checklist\n- [x] I searched the issues\n* [ ] I read the manual\n<!-- Describe the\nbug here -->\nThe parser drops the footer <!-- really -->.\n";
        let kept = without_template(issue);
        assert!(!kept.contains("searched"), "{kept}");
        assert!(!kept.contains("manual"), "{kept}");
        assert!(!kept.contains("Describe"), "{kept}");
        assert!(!kept.contains("really"), "{kept}");
        assert!(kept.contains("The parser drops the footer"), "{kept}");
        assert!(kept.contains("## Checklist"), "{kept}");
    }

    #[test]
    fn words_weigh_by_where_they_stand() {
        let weights = term_weights(
            "The footer is lost in `parse_footer`.\n2024-05-01 12:00:01 INFO connection pool warmed\nERROR: footer checksum mismatch\n```\nparse(stream)\n```\n",
        );
        assert_eq!(weights["lost"], 1.0);
        assert_eq!(weights["pars"], INLINE_CODE, "{weights:?}");
        assert_eq!(weights["pool"], LOG_LINE);
        assert_eq!(weights["checksum"], LOG_LINE);
        assert_eq!(weights["stream"], 1.0);
    }

    #[test]
    fn stack_frames_name_their_functions_in_every_language() {
        let trace = "Traceback (most recent call last):\n  File \"/srv/app/session.py\", line 12, in request\n  File \"/srv/app/adapters.py\", line 3, in send_batch\n  File \"<string>\", line 1, in <module>\n\
                     TypeError: x\n    at Client.dispatchEvent (src/client.ts:40:7)\n    at async Object.handleRequest (src/server.js:3:9)\n    at Array.forEach (<anonymous>)\n\
                     goroutine 1 [running]:\ngithub.com/acme/cli.(*Command).parseFlags(0xc000120000)\n\t/home/u/cli/command.go:420 +0x1d\nmain.main.func1()\n\t/home/u/cli/main.go:9 +0x2\n\
                     stack backtrace:\n   3: quick_xml::reader::parser::read_text::h0123456789abcdef\n             at ./src/reader/parser.rs:120:5\n   4: core::ops::function::FnOnce::call_once\n";
        assert_eq!(
            frame_functions(trace),
            vec![
                "request",
                "send_batch",
                "dispatchEvent",
                "handleRequest",
                "parseFlags",
                "read_text",
                "call_once"
            ]
        );
        assert!(frame_functions("We call it as `run(x)` and it fails: see (docs:3)").is_empty());
    }
}
