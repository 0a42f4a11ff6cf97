//! Chunks: the pieces of a file that search returns. Markdown and
//! reStructuredText are split at their headings (small sections kept
//! together, each chunk carrying the heading it sits under); everything
//! else in windows of lines that overlap, so a match on a window's edge is
//! still found whole in the next one. Line numbers are 1-based and
//! inclusive.

/// Lines in a window.
pub const WINDOW_LINES: usize = 60;
/// Lines shared by consecutive windows.
pub const OVERLAP_LINES: usize = 10;
/// Most characters in a chunk (a minified file has few, very long lines).
pub const MAX_CHUNK_CHARS: usize = 6_000;

/// One piece of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// 0-based position in the file: `chunk_id` is `<path>::<ordinal>`.
    pub ordinal: usize,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line (inclusive).
    pub end_line: usize,
    /// The heading the chunk sits under, when the format has headings.
    pub heading: Option<String>,
    /// The text.
    pub text: String,
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
                start_line: at + 1,
                end_line: stop,
                heading: heading.clone(),
                text,
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
}
