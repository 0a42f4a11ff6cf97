//! Names used as types: the annotations of parameters, returns, fields
//! and variables (Python `x: Invoice`, `-> Invoice` and class fields,
//! string forward references `x: "Invoice"` too; TS/JS type annotations,
//! `implements`, an interface's `extends`, type arguments `new
//! Map<string, Order>()`, a type alias's value, `x as Order`; Go
//! parameter, result and struct field types, embedded structs and
//! interfaces, a method's receiver left out; Rust parameter, return and
//! field types, tuple struct and variant fields, the trait and type of
//! `impl Trait for Type`), each name inside them (`Optional[Invoice]`,
//! `Map<Id, Order>`, `[]*T`) as a site of [`Usage::Type`], written as
//! calls are (`models.Invoice`, `store.Item`, `crate::a::B`).

use tree_sitter::Node;

use super::forward_refs::{forward_names, is_value_position};
use super::{Lang, SiteReader, Usage};

/// Names read of one annotation at most.
const MAX_NAMES: usize = 16;
/// Levels of one annotation walked at most.
const MAX_ANNOTATION_DEPTH: usize = 12;

impl SiteReader<'_> {
    /// The names `node` uses as types, when it annotates something.
    pub(super) fn annotation(&mut self, node: Node) {
        let field = |name: &str| node.child_by_field_name(name);
        let annotation = match (self.lang, node.kind()) {
            // The outermost type alone: `Literal["a"]` is read whole.
            (Lang::Python, "type")
                if !node.parent().is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "type" | "type_parameter" | "generic_type" | "union_type" | "member_type"
                    )
                }) =>
            {
                Some(node)
            }
            (Lang::Script, "type_annotation" | "implements_clause" | "extends_type_clause") => {
                Some(node)
            }
            // `new Map<string, Order>()`, `f<Order>()`, `extends Base<Order>`
            // (in an annotation they are read with it).
            (Lang::Script, "type_arguments")
                if node.parent().is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "new_expression"
                            | "call_expression"
                            | "extends_clause"
                            | "instantiation_expression"
                    )
                }) =>
            {
                Some(node)
            }
            (Lang::Script, "type_alias_declaration") => field("value"),
            (Lang::Script, "as_expression" | "satisfies_expression") => node.named_child(1),
            // `Reader` of `interface { Reader; Close() error }`.
            (Lang::Go, "type_elem")
                if node.parent().is_some_and(|p| p.kind() == "interface_type") =>
            {
                Some(node)
            }
            (Lang::Go, "parameter_declaration" | "variadic_parameter_declaration")
                if !is_receiver(node) =>
            {
                field("type")
            }
            (Lang::Go, "field_declaration") => field("type"),
            (Lang::Go, "function_declaration" | "method_declaration" | "method_elem") => {
                // A list of results is read as parameters are.
                field("result").filter(|r| r.kind() != "parameter_list")
            }
            (Lang::Rust, "parameter" | "field_declaration") => field("type"),
            // `struct W(Foo, Bar);`, `V(Foo)`.
            (Lang::Rust, "ordered_field_declaration_list") => Some(node),
            (Lang::Rust, "function_item" | "function_signature_item") => field("return_type"),
            // `impl Trait for Type`: the trait here, the type below.
            (Lang::Rust, "impl_item") => field("trait"),
            _ => None,
        };
        if let Some(annotation) = annotation {
            self.type_names(annotation);
            if node.kind() == "impl_item"
                && let Some(ty) = field("type")
            {
                self.type_names(ty);
            }
        }
    }

    /// Each name of a type inside `annotation`.
    fn type_names(&mut self, annotation: Node) {
        let mut stack = vec![(annotation, 0)];
        let mut found = 0;
        while let Some((node, depth)) = stack.pop() {
            if self.lang == Lang::Python && is_value_position(node, self.source) {
                // `Literal["a"]`, `Annotated[int, "doc"]`: values, no types.
                continue;
            }
            if self.lang == Lang::Python && node.kind() == "string" {
                for name in forward_names(self.text(node)) {
                    self.push_as(name, node, Usage::Type);
                    found += 1;
                    if found >= MAX_NAMES {
                        return;
                    }
                }
                continue;
            }
            if let Some(name) = self.type_name(node) {
                self.push_as(name, node, Usage::Type);
                found += 1;
                if found >= MAX_NAMES {
                    return;
                }
                continue;
            }
            if depth < MAX_ANNOTATION_DEPTH {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
            }
        }
    }

    /// The type `node` names, when it is a name of one.
    fn type_name(&self, node: Node) -> Option<String> {
        let name = match (self.lang, node.kind()) {
            (Lang::Python, "identifier")
            | (Lang::Script | Lang::Go | Lang::Rust, "type_identifier") => {
                self.text(node).to_string()
            }
            (Lang::Python, "attribute") => self.chain(node, 0),
            (Lang::Python, "member_type") | (Lang::Script, "nested_type_identifier") => {
                self.text(node).replace(char::is_whitespace, "")
            }
            (Lang::Go, "qualified_type") => format!(
                "{}.{}",
                self.text(node.child_by_field_name("package")?),
                self.text(node.child_by_field_name("name")?)
            ),
            (Lang::Rust, "scoped_type_identifier") => self.rust_path(node, 0)?,
            _ => return None,
        };
        (!name.contains('?') && name != "self" && name != "Self").then_some(name)
    }
}

/// Whether a Go parameter is a method's receiver.
fn is_receiver(node: Node) -> bool {
    let Some(list) = node.parent() else {
        return false;
    };
    list.parent()
        .and_then(|method| method.child_by_field_name("receiver"))
        .is_some_and(|receiver| receiver.id() == list.id())
}
