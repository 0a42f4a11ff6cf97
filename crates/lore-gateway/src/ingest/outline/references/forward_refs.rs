//! Python annotations written as strings (forward references, `x:
//! "Invoice"`, `-> "Optional[models.Invoice]"`): the names of types
//! inside the string, read as the annotation would be; and the parts of
//! an annotation that are values, not types (`Literal["a"]`, the
//! metadata of `Annotated[int, "doc"]`).

use tree_sitter::Node;

/// Characters of a string read as an annotation at most.
const MAX_FORWARD_CHARS: usize = 300;

/// The names of types in the string literal `literal` (quotes and all):
/// `"Optional[models.Invoice]"` → `Optional`, `models.Invoice`. None when
/// it does not read as a type expression (`"a doc"`, an f-string, quotes
/// inside).
pub(super) fn forward_names(literal: &str) -> Vec<String> {
    let prefix_end = literal.find(['"', '\'']).unwrap_or(0);
    let prefix = literal[..prefix_end].to_ascii_lowercase();
    if prefix.contains(['f', 'b']) {
        return Vec::new();
    }
    let body = literal[prefix_end..]
        .trim_start_matches(['"', '\''])
        .trim_end_matches(['"', '\'']);
    if body.len() > MAX_FORWARD_CHARS {
        return Vec::new();
    }
    let mut names: Vec<String> = Vec::new();
    let mut current = String::new();
    // Whether the last thing read was a whole name (two names in a row,
    // with only spaces between, are no type expression).
    let mut after_name = false;
    for c in body.chars() {
        match c {
            c if c.is_alphanumeric() || c == '_' => {
                if current.is_empty() && after_name {
                    return Vec::new();
                }
                current.push(c);
            }
            '.' if !current.is_empty() && !current.ends_with('.') => current.push(c),
            // `Tuple[int, ...]`.
            '.' if current.is_empty() => {}
            ' ' | '\t' => {
                if !current.is_empty() {
                    names.push(std::mem::take(&mut current));
                    after_name = true;
                }
            }
            '[' | ']' | ',' | '|' => {
                if !current.is_empty() {
                    names.push(std::mem::take(&mut current));
                }
                after_name = false;
            }
            _ => return Vec::new(),
        }
    }
    if !current.is_empty() {
        names.push(current);
    }
    names
        .into_iter()
        .filter(|n| !n.starts_with(|c: char| c.is_ascii_digit()) && !n.ends_with('.'))
        .collect()
}

/// Whether `node`, inside an annotation, is a value rather than a type:
/// `Literal[…]` whole, an argument of `Annotated[…]` after the first.
pub(super) fn is_value_position(node: Node, source: &[u8]) -> bool {
    if head_name(node, source) == Some("Literal") {
        return true;
    }
    let Some(parent) = node.parent() else {
        return false;
    };
    // `Annotated[T, x]` is a generic type (its arguments in a
    // `type_parameter`) or a subscript.
    let (generic, arguments) = match parent.kind() {
        "type_parameter" => match parent.parent() {
            Some(generic) => (generic, parent),
            None => return false,
        },
        "subscript" => (parent, parent),
        _ => return false,
    };
    if head_name(generic, source) != Some("Annotated") {
        return false;
    }
    let mut cursor = arguments.walk();
    let first = match arguments.kind() {
        "subscript" => arguments
            .children_by_field_name("subscript", &mut cursor)
            .next(),
        _ => arguments.named_children(&mut cursor).next(),
    };
    first.is_some_and(|first| first.id() != node.id())
}

/// `Literal` of `Literal[…]` or `typing.Literal[…]`.
fn head_name<'s>(node: Node, source: &'s [u8]) -> Option<&'s str> {
    let head = match node.kind() {
        "generic_type" => node.named_child(0)?,
        "subscript" => node.child_by_field_name("value")?,
        _ => return None,
    };
    let text = head.utf8_text(source).ok()?;
    Some(text.rsplit('.').next().unwrap_or(text))
}

#[cfg(test)]
mod tests {
    use super::forward_names;

    #[test]
    fn strings_that_read_as_types_give_their_names() {
        assert_eq!(forward_names("\"Invoice\""), vec!["Invoice"]);
        assert_eq!(
            forward_names("'Optional[models.Invoice]'"),
            vec!["Optional", "models.Invoice"]
        );
        assert_eq!(
            forward_names("\"Dict[str, A | None]\""),
            vec!["Dict", "str", "A", "None"]
        );
        assert_eq!(forward_names("\"Tuple[int, ...]\""), vec!["Tuple", "int"]);
        // Prose, f-strings and nested quotes are no annotations.
        assert!(forward_names("\"a doc string\"").is_empty());
        assert!(forward_names("f\"{x}\"").is_empty());
        assert!(forward_names("\"Literal['a']\"").is_empty());
        assert!(forward_names("\"x = 1\"").is_empty());
    }
}
