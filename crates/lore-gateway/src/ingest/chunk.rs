//! Chunks: the pieces of a file that search returns. Code in a language
//! with a grammar ([`outline`](mod@crate::ingest::outline)) is split along its definitions: a
//! chunk per function, class or group of small neighbours, a large class
//! split between its methods with the class's signature as the chunk's
//! context, a very long function windowed with its signature as context.
//! Markdown and
//! reStructuredText are split at their headings (small sections kept
//! together, each chunk carrying the heading it sits under); everything
//! else in windows of lines that overlap, so a match on a window's edge is
//! still found whole in the next one. Line numbers are 1-based and
//! inclusive.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ingest::outline::{Block, Definition, Outline, SymbolKind};

/// Lines in a window.
pub const WINDOW_LINES: usize = 60;
/// Lines shared by consecutive windows.
pub const OVERLAP_LINES: usize = 10;
/// Most characters in a chunk (a minified file has few, very long lines).
pub const MAX_CHUNK_CHARS: usize = 6_000;

/// Lines a chunk of code grows to by taking in neighbouring definitions.
pub const TARGET_LINES: usize = 60;
/// Lines of one definition kept whole in a chunk.
pub const MAX_DEFINITION_LINES: usize = 120;

/// A definition in a chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChunkSymbol {
    /// `Invoice.total_with_tax`.
    pub qualified_name: String,
    /// class, function, method, interface, type or module.
    pub kind: SymbolKind,
    /// First line of the definition (1-based).
    pub start_line: usize,
    /// Last line of the definition (inclusive).
    pub end_line: usize,
}

/// One piece of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// 0-based position in the file.
    pub ordinal: usize,
    /// What names it in `chunk_id` (`<root>/<path>::<key>`): the qualified name of
    /// its first definition, else its ordinal.
    pub key: String,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line (inclusive).
    pub end_line: usize,
    /// The heading it sits under (documents), or the signature of the
    /// definition that encloses it (code).
    pub heading: Option<String>,
    /// The text.
    pub text: String,
    /// The definitions it holds (or, for a part of a long one, the one it
    /// is part of).
    pub symbols: Vec<ChunkSymbol>,
}

/// Splits `text` written in `language`.
pub fn chunk(text: &str, language: Option<&str>) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let sections = match language {
        Some("markdown") => markdown_sections(&lines),
        Some("rst") => rst_sections(&lines),
        _ => vec![(0, lines.len(), None)],
    };
    let mut out = Vec::new();
    // Small neighbouring sections share a chunk; large ones are windowed.
    let mut pending: Option<(usize, usize, Option<String>)> = None;
    for (start, end, heading) in sections {
        if let Some((p_start, p_end, p_heading)) = pending.take() {
            if end - p_start <= WINDOW_LINES {
                pending = Some((p_start, end, p_heading.or(heading)));
                continue;
            }
            windows(&lines, p_start, p_end, p_heading, &mut out);
        }
        pending = Some((start, end, heading));
    }
    if let Some((start, end, heading)) = pending {
        windows(&lines, start, end, heading, &mut out);
    }
    out
}

/// Splits code along the definitions of its `outline`.
pub fn chunk_code(text: &str, outline: &Outline) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    pack(&lines, 0, lines.len(), &outline.blocks, None, &mut out);
    name_chunks(&mut out, outline);
    out
}

/// A run of lines: a block, or the code between blocks.
struct Unit<'b> {
    start: usize,
    end: usize,
    block: Option<&'b Block>,
}

/// Chunks `lines[start..end]`, which holds `blocks`: small units share a
/// chunk up to [`TARGET_LINES`], a large block is split between its
/// members or windowed.
fn pack(
    lines: &[&str],
    start: usize,
    end: usize,
    blocks: &[Block],
    context: Option<&str>,
    out: &mut Vec<Chunk>,
) {
    let mut units: Vec<Unit> = Vec::new();
    let mut cursor = start;
    for block in blocks {
        let b_start = (block.start_line - 1).max(cursor);
        let b_end = block.end_line.min(end);
        if b_start >= b_end {
            continue;
        }
        if b_start > cursor {
            units.push(Unit {
                start: cursor,
                end: b_start,
                block: None,
            });
        }
        units.push(Unit {
            start: b_start,
            end: b_end,
            block: Some(block),
        });
        cursor = b_end;
    }
    if cursor < end {
        units.push(Unit {
            start: cursor,
            end,
            block: None,
        });
    }
    let chars = |from: usize, to: usize| lines[from..to].iter().map(|l| l.len() + 1).sum::<usize>();
    let mut group: Option<(usize, usize)> = None;
    let flush = |group: &mut Option<(usize, usize)>, out: &mut Vec<Chunk>| {
        if let Some((g_start, g_end)) = group.take() {
            windows(lines, g_start, g_end, context.map(str::to_string), out);
        }
    };
    for unit in units {
        if lines[unit.start..unit.end]
            .iter()
            .all(|l| l.trim().is_empty())
        {
            continue;
        }
        let len = unit.end - unit.start;
        let big = len > MAX_DEFINITION_LINES || chars(unit.start, unit.end) > MAX_CHUNK_CHARS;
        if big {
            flush(&mut group, out);
            let inner = match (context, unit.block) {
                (Some(outer), Some(block)) => Some(format!("{outer} > {}", block.signature)),
                (None, Some(block)) => Some(block.signature.clone()),
                (context, None) => context.map(str::to_string),
            };
            match unit.block {
                Some(block) if !block.members.is_empty() => {
                    pack(
                        lines,
                        unit.start,
                        unit.end,
                        &block.members,
                        inner.as_deref(),
                        out,
                    );
                }
                _ => windows(lines, unit.start, unit.end, inner, out),
            }
            continue;
        }
        group = match group {
            Some((g_start, _))
                if unit.end - g_start <= TARGET_LINES
                    && chars(g_start, unit.end) <= MAX_CHUNK_CHARS =>
            {
                Some((g_start, unit.end))
            }
            Some(_) => {
                flush(&mut group, out);
                Some((unit.start, unit.end))
            }
            None => Some((unit.start, unit.end)),
        };
    }
    flush(&mut group, out);
}

/// Gives code chunks their ordinals, symbols and keys.
fn name_chunks(chunks: &mut [Chunk], outline: &Outline) {
    let mut used: HashMap<String, usize> = HashMap::new();
    for (ordinal, chunk) in chunks.iter_mut().enumerate() {
        chunk.ordinal = ordinal;
        let symbol = |d: &Definition| ChunkSymbol {
            qualified_name: d.qualified_name.clone(),
            kind: d.kind,
            start_line: d.start_line,
            end_line: d.end_line,
        };
        chunk.symbols = outline
            .definitions
            .iter()
            .filter(|d| (chunk.start_line..=chunk.end_line).contains(&d.start_line))
            .map(symbol)
            .collect();
        let mut key = chunk.symbols.first().map(|s| s.qualified_name.clone());
        if chunk.symbols.is_empty() {
            // A part of a long definition: the innermost one around it.
            if let Some(around) = outline
                .definitions
                .iter()
                .filter(|d| d.start_line < chunk.start_line && d.end_line >= chunk.end_line)
                .min_by_key(|d| d.end_line - d.start_line)
            {
                chunk.symbols.push(symbol(around));
                key = Some(format!("{}@{}", around.qualified_name, chunk.start_line));
            }
        }
        let key = key.unwrap_or_else(|| ordinal.to_string());
        let seen = used.entry(key.clone()).or_insert(0);
        *seen += 1;
        chunk.key = if *seen == 1 {
            key
        } else {
            format!("{key}~{seen}")
        };
    }
}

/// Windows over `lines[start..end]`.
fn windows(
    lines: &[&str],
    start: usize,
    end: usize,
    heading: Option<String>,
    out: &mut Vec<Chunk>,
) {
    let mut at = start;
    while at < end {
        let mut stop = (at + WINDOW_LINES).min(end);
        // Keep a chunk within its character budget.
        let mut chars = 0;
        for (i, line) in lines[at..stop].iter().enumerate() {
            chars += line.len() + 1;
            if chars > MAX_CHUNK_CHARS && i > 0 {
                stop = at + i;
                break;
            }
        }
        let mut text = lines[at..stop].join("\n");
        if text.len() > MAX_CHUNK_CHARS {
            let mut cut = MAX_CHUNK_CHARS;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        if !text.trim().is_empty() {
            out.push(Chunk {
                ordinal: out.len(),
                key: out.len().to_string(),
                start_line: at + 1,
                end_line: stop,
                heading: heading.clone(),
                text,
                symbols: Vec::new(),
            });
        }
        if stop >= end {
            break;
        }
        // Overlap, but always move forward.
        at = (stop.saturating_sub(OVERLAP_LINES)).max(at + 1);
    }
}

/// Markdown sections: `(start, end, heading)`, split before each ATX
/// heading outside fenced code.
fn markdown_sections(lines: &[&str]) -> Vec<(usize, usize, Option<String>)> {
    let mut starts: Vec<(usize, Option<String>)> = vec![(0, None)];
    let mut fence: Option<&str> = None;
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        for marker in ["```", "~~~"] {
            if trimmed.starts_with(marker) {
                fence = match fence {
                    Some(open) if open == marker => None,
                    None => Some(marker),
                    other => other,
                };
            }
        }
        if fence.is_none() && is_atx_heading(trimmed) {
            let title = trimmed.trim_start_matches('#').trim().to_string();
            if i == 0 {
                starts[0].1 = Some(title);
            } else {
                starts.push((i, Some(title)));
            }
        }
    }
    spans(starts, lines.len())
}

fn is_atx_heading(line: &str) -> bool {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    (1..=6).contains(&hashes) && line[hashes..].starts_with(' ')
}

/// reStructuredText sections: a text line underlined by `=`, `-`, `~`…
fn rst_sections(lines: &[&str]) -> Vec<(usize, usize, Option<String>)> {
    let mut starts: Vec<(usize, Option<String>)> = vec![(0, None)];
    for i in 1..lines.len() {
        let under = lines[i].trim_end();
        let title = lines[i - 1].trim();
        let adornment = under.len() >= 3
            && under
                .chars()
                .next()
                .is_some_and(|c| "=-~^\"'`#*+".contains(c))
            && under.chars().all(|c| under.starts_with(c));
        if adornment && !title.is_empty() && under.len() >= title.len() {
            let start = i - 1;
            if start == 0 {
                starts[0].1 = Some(title.to_string());
            } else {
                starts.push((start, Some(title.to_string())));
            }
        }
    }
    spans(starts, lines.len())
}

fn spans(
    starts: Vec<(usize, Option<String>)>,
    total: usize,
) -> Vec<(usize, usize, Option<String>)> {
    let mut out = Vec::with_capacity(starts.len());
    for (i, (start, heading)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(total, |(next, _)| *next);
        if end > *start {
            out.push((*start, end, heading.clone()));
        }
    }
    out
}

/// The longest text embedded for one chunk, in characters.
pub const MAX_EMBED_CHARS: usize = 2_000;
/// The text a chunk is embedded by: its path, its heading, its text.
pub fn embed_text(path: &str, heading: Option<&str>, text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_EMBED_CHARS) + path.len() + 2);
    out.push_str(path);
    out.push('\n');
    if let Some(heading) = heading.filter(|h| !h.is_empty()) {
        out.push_str(heading);
        out.push('\n');
    }
    out.push_str(text);
    match out.char_indices().nth(MAX_EMBED_CHARS) {
        Some((at, _)) => out[..at].to_string(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_windowed_with_overlap_and_exact_lines() {
        let text: String = (1..=130).map(|n| format!("line {n}\n")).collect();
        let chunks = chunk(&text, Some("python"));
        let spans: Vec<(usize, usize)> =
            chunks.iter().map(|c| (c.start_line, c.end_line)).collect();
        assert_eq!(spans, vec![(1, 60), (51, 110), (101, 130)]);
        assert!(chunks[1].text.starts_with("line 51\n"));
        assert!(chunks[2].text.ends_with("line 130"));
    }

    #[test]
    fn markdown_follows_headings_and_skips_fenced_hashes() {
        let body: String = (0..70).map(|n| format!("text {n}\n")).collect();
        let text = format!(
            "# Title\nintro\n## Install\n```sh\n# not a heading\n```\n## Usage\n{body}## Faq\nq\n"
        );
        let chunks = chunk(&text, Some("markdown"));
        // Title + Install are small and share a chunk; Usage is windowed.
        assert_eq!(chunks[0].heading.as_deref(), Some("Title"));
        assert!(chunks[0].text.contains("# not a heading"));
        assert!(chunks.iter().any(|c| c.heading.as_deref() == Some("Usage")));
        assert!(chunks.iter().any(|c| c.text.contains("## Faq")));
        for c in &chunks {
            assert!(c.start_line <= c.end_line);
        }
    }

    #[test]
    fn rst_titles_split_and_long_lines_stay_in_budget() {
        let text = "Intro\n=====\n\nsome text\n\nUsage\n-----\nrun it\n";
        let chunks = chunk(text, Some("rst"));
        assert_eq!(chunks[0].heading.as_deref(), Some("Intro"));
        let minified = "x".repeat(50_000);
        let chunks = chunk(&minified, Some("javascript"));
        assert_eq!(chunks.len(), 1);
        assert!(chunks[0].text.len() <= MAX_CHUNK_CHARS);
    }

    fn python_file(methods: usize, body_lines: usize) -> String {
        let mut text = String::from(
            "import os\n\n\ndef small_a():\n    return 1\n\n\ndef small_b():\n    return 2\n\n\nclass Invoice(Base):\n    \"\"\"Doc.\"\"\"\n",
        );
        for m in 0..methods {
            text.push_str(&format!("\n    def method_{m}(self):\n"));
            for l in 0..body_lines {
                text.push_str(&format!("        x_{l} = {l}\n"));
            }
        }
        text
    }

    fn code_chunks(text: &str) -> Vec<Chunk> {
        let outline = crate::ingest::outline::outline(text, Some("python")).unwrap();
        chunk_code(text, &outline)
    }

    #[test]
    fn small_definitions_share_a_chunk_named_by_the_first() {
        let chunks = code_chunks(&python_file(2, 3));
        assert_eq!(chunks.len(), 1);
        let names: Vec<&str> = chunks[0]
            .symbols
            .iter()
            .map(|s| s.qualified_name.as_str())
            .collect();
        assert_eq!(
            names,
            vec![
                "small_a",
                "small_b",
                "Invoice",
                "Invoice.method_0",
                "Invoice.method_1"
            ]
        );
        assert_eq!(chunks[0].key, "small_a");
        assert_eq!(chunks[0].start_line, 1);
    }

    #[test]
    fn a_large_class_splits_between_methods_under_its_signature() {
        let text = python_file(6, 25);
        let chunks = code_chunks(&text);
        let lines: Vec<&str> = text.lines().collect();
        // Every method starts in exactly one chunk, whole: no method is cut.
        for m in 0..6 {
            let name = format!("Invoice.method_{m}");
            let holding: Vec<&Chunk> = chunks
                .iter()
                .filter(|c| c.symbols.iter().any(|s| s.qualified_name == name))
                .collect();
            assert_eq!(holding.len(), 1, "{name}");
            let symbol = holding[0]
                .symbols
                .iter()
                .find(|s| s.qualified_name == name)
                .unwrap();
            assert!(holding[0].end_line >= symbol.end_line, "{name} is cut");
        }
        let method_chunks: Vec<&Chunk> = chunks
            .iter()
            .filter(|c| c.key.starts_with("Invoice.method_"))
            .collect();
        assert!(method_chunks.len() >= 2);
        for c in &method_chunks {
            assert_eq!(c.heading.as_deref(), Some("class Invoice(Base):"));
            assert!(c.text.trim_start().starts_with("def method_"));
            assert_eq!(c.text, lines[c.start_line - 1..c.end_line].join("\n"));
        }
        // The whole file is covered, in order.
        assert_eq!(chunks.last().unwrap().end_line, lines.len());
        let keys: std::collections::HashSet<&str> = chunks.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys.len(), chunks.len(), "chunk keys are unique");
    }

    #[test]
    fn a_very_long_function_is_windowed_under_its_signature() {
        let mut text = String::from("def huge(a, b):\n");
        for l in 0..300 {
            text.push_str(&format!("    y_{l} = {l}\n"));
        }
        let chunks = code_chunks(&text);
        assert!(chunks.len() >= 5);
        assert_eq!(chunks[0].key, "huge");
        for c in &chunks[1..] {
            assert_eq!(c.heading.as_deref(), Some("def huge(a, b):"));
            assert_eq!(c.symbols[0].qualified_name, "huge");
            assert!(c.key.starts_with("huge@"), "{}", c.key);
        }
    }
}
