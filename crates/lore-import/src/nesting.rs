//! How deep a model file may nest. The LookML and Cube JavaScript readers
//! recurse once per level, and so do the trees they build when dropped:
//! a text nested thousands of levels deep would exhaust a thread's stack.
//! Both readers stop at [`MAX_NESTING_DEPTH`], the YAML parser's own
//! budget, and [`check_nesting`] measures a text (brackets, and YAML's
//! indentation) without recursion before anything reads it.

/// The deepest nesting a model file may have: 64 levels, the YAML
/// parser's budget, so every format Lore reads models from has one limit.
pub const MAX_NESTING_DEPTH: usize = 64;

/// Why a text is refused: what nested, and how deep.
pub fn too_deep(what: &str) -> String {
    format!(
        "{what} nest deeper than {MAX_NESTING_DEPTH} levels, over the nesting depth limit for model files ({MAX_NESTING_DEPTH}, the same as YAML's); flatten it"
    )
}

/// Checks that `text` nests at most [`MAX_NESTING_DEPTH`] levels: its
/// brackets (`(`, `[`, `{`, wherever they are, strings included) and,
/// when `indented` (YAML), its indentation levels and list markers.
/// Linear in the text, no recursion.
pub fn check_nesting(text: &str, indented: bool) -> Result<(), String> {
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING_DEPTH {
                    return Err(too_deep("its brackets"));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if indented && indentation_depth(text) > MAX_NESTING_DEPTH {
        return Err(too_deep("its indented blocks"));
    }
    Ok(())
}

/// How many indentation levels are open at once, at most: each line
/// deeper than the one before opens one, and each `- ` list marker opens
/// one for the item after it. Blank and comment lines do not count.
fn indentation_depth(text: &str) -> usize {
    let mut open: Vec<usize> = Vec::new();
    let mut deepest = 0;
    for line in text.lines() {
        let content = line.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let mut column = line.len() - content.len();
        let mut rest = content;
        loop {
            while open.last().is_some_and(|&top| top > column) {
                open.pop();
            }
            if open.last() != Some(&column) {
                open.push(column);
            }
            let Some(item) = rest.strip_prefix("- ") else {
                break;
            };
            let after = item.trim_start_matches(' ');
            column += rest.len() - after.len();
            rest = after;
        }
        deepest = deepest.max(open.len());
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_model_files_pass() {
        let yaml = "semantic_models:\n  - name: orders\n    measures:\n      - {name: total, expr: \"sum(coalesce(amount, 0))\", agg: sum}\n    dimensions:\n      - name: status\n        type: categorical\n";
        assert_eq!(check_nesting(yaml, true), Ok(()));
        let lookml = "view: v {\n  dimension: d { sql: ${TABLE}.d ;; }\n}\n";
        assert_eq!(check_nesting(lookml, false), Ok(()));
    }

    #[test]
    fn deep_brackets_indentation_and_list_markers_are_refused() {
        let brackets = format!("{}{}", "{a:".repeat(20_000), "}".repeat(20_000));
        let err = check_nesting(&brackets, false).unwrap_err();
        assert!(err.contains("nesting depth limit"), "{err}");
        let indented: String = (0..100).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert!(check_nesting(&indented, true).is_err());
        assert_eq!(check_nesting(&indented, false), Ok(()));
        let markers = format!("{}x\n", "- ".repeat(100));
        assert!(check_nesting(&markers, true).is_err());
        // Closing brackets return to the enclosing depth.
        let siblings = "[[1]]".repeat(10_000);
        assert_eq!(check_nesting(&siblings, true), Ok(()));
    }
}
