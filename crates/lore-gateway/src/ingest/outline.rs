//! Code outlines: the definitions of a source file (classes, functions,
//! methods, interfaces, types, modules) with their spans and qualified
//! names, and the modules it imports, read with tree-sitter for Python,
//! TypeScript, TSX, JavaScript, Go and Rust; [`references`] reads the
//! names it calls from the same tree.
//!
//! A definition's span starts at the decorators, attributes and doc
//! comments written right above it. Functions inside functions are not
//! definitions here (they are part of their function's body). A file that
//! does not parse cleanly still gives the definitions tree-sitter could
//! read around the errors.

pub mod references;
mod require;
mod script_imports;
mod tree_walk;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tree_sitter::{Language, Node, Parser};

use references::Reference;

/// How deep definitions nest before the rest of a file is left unread
/// (a hostile file cannot exhaust the stack).
const MAX_DEPTH: usize = 24;
/// Characters kept of a signature.
const MAX_SIGNATURE_CHARS: usize = 200;

/// What a definition is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// A class.
    Class,
    /// A function outside any class.
    Function,
    /// A function of a class, type or trait.
    Method,
    /// An interface or trait.
    Interface,
    /// A struct, enum, type alias.
    Type,
    /// A module or namespace.
    Module,
}

impl SymbolKind {
    /// Every kind.
    pub const ALL: [SymbolKind; 6] = [
        SymbolKind::Class,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Interface,
        SymbolKind::Type,
        SymbolKind::Module,
    ];

    /// As written in filters and results.
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Interface => "interface",
            SymbolKind::Type => "type",
            SymbolKind::Module => "module",
        }
    }

    /// The kind written `text` (any case).
    pub fn parse(text: &str) -> Option<SymbolKind> {
        SymbolKind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(text))
    }
}

/// One definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// Its name.
    pub name: String,
    /// With the names of what encloses it: `Invoice.total_with_tax`.
    pub qualified_name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// First line (1-based), decorators and doc comments included.
    pub start_line: usize,
    /// Last line (inclusive).
    pub end_line: usize,
    /// Its first line, trimmed (`class Invoice(Base):`).
    pub signature: String,
}

/// A block of a file: a definition, or a container without a name of its
/// own (a Rust `impl`), with the blocks inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// The definition, when the block is one (index into
    /// [`Outline::definitions`]).
    pub definition: Option<usize>,
    /// First line (1-based).
    pub start_line: usize,
    /// Last line (inclusive).
    pub end_line: usize,
    /// Its first line, trimmed.
    pub signature: String,
    /// Blocks inside it (a class's methods), in order.
    pub members: Vec<Block>,
}

/// One import as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The module: `requests.models`, `.utils`, `./client`,
    /// `net/http`, `crate::store::feed`.
    pub module: String,
    /// The names imported from it, when listed (`from x import a, b`);
    /// a TS/JS re-export lists the names it exports (`c` of
    /// `export { b as c } from "./x"`), `*` for `export * from "./y"` and
    /// `from y import *`.
    pub names: Vec<String>,
    /// Names bound here under another name than the module's: the name
    /// here → the module's (`c` → `b` of `export { b as c } from "./x"`,
    /// `import { b as c }`, `from x import b as c`), `*` for the module
    /// itself (`ns` of `export * as ns from "./z"`, `import * as ns`,
    /// `import a.b as ns`, Go's `import ns "a/b"`).
    pub aliases: BTreeMap<String, String>,
    /// Its line (1-based).
    pub line: usize,
    /// Whether the file passes on what it takes from the module, whatever
    /// the file's name: TS/JS `export … from`, CommonJS `module.exports =
    /// require(…)` and `exports.x = require(…)`. A barrel (`index.ts`,
    /// `__init__.py`) passes on every import.
    pub reexport: bool,
    /// The definition whose body holds it (its qualified name; a
    /// `require` inside a function): the names it binds are bound there
    /// alone. None at the file's top level.
    pub scope: Option<String>,
}

/// What a source file defines and imports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outline {
    /// Every definition, in order of their start.
    pub definitions: Vec<Definition>,
    /// The top-level blocks, in order.
    pub blocks: Vec<Block>,
    /// The imports, in order.
    pub imports: Vec<Import>,
    /// The names it calls, constructs or inherits from, in order of their
    /// lines (see [`references`]).
    pub references: Vec<Reference>,
}

/// Whether Lore reads outlines of `language`.
pub fn supports(language: Option<&str>) -> bool {
    grammar(language).is_some()
}

fn grammar(language: Option<&str>) -> Option<(Lang, Language)> {
    Some(match language? {
        "python" => (Lang::Python, tree_sitter_python::LANGUAGE.into()),
        "typescript" => (
            Lang::Script,
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        ),
        "tsx" => (Lang::Script, tree_sitter_typescript::LANGUAGE_TSX.into()),
        "javascript" => (Lang::Script, tree_sitter_javascript::LANGUAGE.into()),
        "go" => (Lang::Go, tree_sitter_go::LANGUAGE.into()),
        "rust" => (Lang::Rust, tree_sitter_rust::LANGUAGE.into()),
        _ => return None,
    })
}

/// The grammars' families.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lang {
    Python,
    Script,
    Go,
    Rust,
}

thread_local! {
    /// One parser per language and thread, reused from file to file.
    static PARSERS: RefCell<HashMap<&'static str, Parser>> = RefCell::new(HashMap::new());
}

/// The outline of `text` written in `language`; `None` for a language
/// without a grammar here, or when the parser gives up.
pub fn outline(text: &str, language: Option<&str>) -> Option<Outline> {
    let (lang, grammar) = grammar(language)?;
    let key: &'static str = match language? {
        "python" => "python",
        "typescript" => "typescript",
        "tsx" => "tsx",
        "javascript" => "javascript",
        "go" => "go",
        _ => "rust",
    };
    let tree = PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = match parsers.get_mut(key) {
            Some(parser) => parser,
            None => {
                let mut parser = Parser::new();
                parser.set_language(&grammar).ok()?;
                parsers.entry(key).or_insert(parser)
            }
        };
        parser.parse(text, None)
    })?;
    let mut reader = Reader {
        lang,
        source: text.as_bytes(),
        out: Outline::default(),
        modules: Vec::new(),
    };
    // Definitions are recorded in a pre-order walk: in order of their start.
    reader.out.blocks = reader.body(tree.root_node(), &[], 0);
    let mut out = reader.out;
    if lang == Lang::Script {
        let required = require::requires(tree.root_node(), text.as_bytes(), &out.definitions);
        out.imports.extend(required);
        // In order of their lines, as written.
        out.imports.sort_by_key(|i| i.line);
    }
    out.references = references::read(
        tree.root_node(),
        text.as_bytes(),
        lang,
        &out.definitions,
        &out.imports,
    );
    Some(out)
}

struct Reader<'a> {
    lang: Lang,
    source: &'a [u8],
    out: Outline,
    /// Rust modules seen (their functions are not methods).
    modules: Vec<Vec<String>>,
}

impl Reader<'_> {
    fn text(&self, node: Node) -> String {
        node.utf8_text(self.source).unwrap_or_default().to_string()
    }

    fn field_text(&self, node: Node, field: &str) -> Option<String> {
        node.child_by_field_name(field)
            .map(|n| self.text(n))
            .filter(|t| !t.is_empty())
    }

    fn signature(&self, node: Node) -> String {
        let text = node.utf8_text(self.source).unwrap_or_default();
        let line = text.lines().next().unwrap_or_default().trim();
        let mut cut = line.len().min(MAX_SIGNATURE_CHARS);
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line[..cut].to_string()
    }

    /// The first line of `node` with what is written right above it:
    /// comments, attributes, decorators (no blank line between).
    fn start_line(&self, node: Node) -> usize {
        let mut start = node.start_position().row;
        let mut at = node;
        while let Some(prev) = at.prev_sibling() {
            let kind = prev.kind();
            let above = kind.contains("comment") || kind == "attribute_item" || kind == "decorator";
            if !above || prev.end_position().row + 1 < start {
                break;
            }
            start = prev.start_position().row;
            at = prev;
        }
        start + 1
    }

    /// Records a definition and returns its block.
    fn define(
        &mut self,
        outer: Node,
        node: Node,
        name: String,
        kind: SymbolKind,
        scope: &[String],
    ) -> Block {
        let mut qualified = scope.join(".");
        if !qualified.is_empty() {
            qualified.push('.');
        }
        qualified.push_str(&name);
        let start_line = self.start_line(outer);
        let end_line = outer.end_position().row + 1;
        let index = self.out.definitions.len();
        self.out.definitions.push(Definition {
            name,
            qualified_name: qualified,
            kind,
            start_line,
            end_line,
            signature: self.signature(node),
        });
        Block {
            definition: Some(index),
            start_line,
            end_line,
            signature: self.signature(node),
            members: Vec::new(),
        }
    }

    /// The blocks among `node`'s children.
    fn body(&mut self, node: Node, scope: &[String], depth: usize) -> Vec<Block> {
        let mut blocks = Vec::new();
        if depth > MAX_DEPTH {
            return blocks;
        }
        for child in named_children(node) {
            self.item(child, child, scope, depth, &mut blocks);
        }
        blocks
    }

    /// Reads one child: a definition, a wrapper around one, an import.
    fn item(
        &mut self,
        outer: Node,
        node: Node,
        scope: &[String],
        depth: usize,
        blocks: &mut Vec<Block>,
    ) {
        match self.lang {
            Lang::Python => self.python(outer, node, scope, depth, blocks),
            Lang::Script => self.script(outer, node, scope, depth, blocks),
            Lang::Go => self.go(node, blocks),
            Lang::Rust => self.rust(outer, node, scope, depth, blocks),
        }
    }

    /// A definition with members read from its `body` field.
    fn container(
        &mut self,
        outer: Node,
        node: Node,
        name: String,
        kind: SymbolKind,
        scope: &[String],
        depth: usize,
    ) -> Block {
        let mut block = self.define(outer, node, name.clone(), kind, scope);
        if let Some(body) = node.child_by_field_name("body") {
            let mut inner = scope.to_vec();
            inner.push(name);
            block.members = self.body(body, &inner, depth + 1);
        }
        block
    }

    fn python(
        &mut self,
        outer: Node,
        node: Node,
        scope: &[String],
        depth: usize,
        blocks: &mut Vec<Block>,
    ) {
        match node.kind() {
            "decorated_definition" => {
                if let Some(definition) = node.child_by_field_name("definition") {
                    self.python(outer, definition, scope, depth, blocks);
                }
            }
            "class_definition" => {
                if let Some(name) = self.field_text(node, "name") {
                    let block = self.container(outer, node, name, SymbolKind::Class, scope, depth);
                    blocks.push(block);
                }
            }
            "function_definition" => {
                if let Some(name) = self.field_text(node, "name") {
                    let kind = if scope.is_empty() {
                        SymbolKind::Function
                    } else {
                        SymbolKind::Method
                    };
                    blocks.push(self.define(outer, node, name, kind, scope));
                }
            }
            "import_statement" => {
                let mut cursor = node.walk();
                let names: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    let module = self.imported_name(name);
                    let aliases = self.python_alias(name, "*").into_iter().collect();
                    self.import(module, Vec::new(), aliases, node);
                }
            }
            "import_from_statement" => {
                let module = self.field_text(node, "module_name").unwrap_or_default();
                let mut cursor = node.walk();
                let listed: Vec<Node> = node.children_by_field_name("name", &mut cursor).collect();
                let mut names: Vec<String> = Vec::new();
                let mut aliases = BTreeMap::new();
                for name in listed {
                    let imported = self.imported_name(name);
                    aliases.extend(self.python_alias(name, &imported));
                    names.push(imported);
                }
                // `from x import *` takes every name, as `export *` does.
                if named_children(node)
                    .iter()
                    .any(|c| c.kind() == "wildcard_import")
                {
                    names.push("*".to_string());
                }
                self.import(module, names, aliases, node);
            }
            // `if TYPE_CHECKING:` and `try:` at module level hold imports
            // and definitions too.
            "if_statement" | "try_statement" | "block" | "else_clause" | "except_clause"
                if scope.is_empty() && depth < MAX_DEPTH =>
            {
                for child in named_children(node) {
                    self.python(child, child, scope, depth + 1, blocks);
                }
            }
            _ => {}
        }
    }

    fn script(
        &mut self,
        outer: Node,
        node: Node,
        scope: &[String],
        depth: usize,
        blocks: &mut Vec<Block>,
    ) {
        match node.kind() {
            "export_statement" => {
                if let Some(declaration) = node.child_by_field_name("declaration") {
                    self.script(outer, declaration, scope, depth, blocks);
                } else {
                    self.re_export(node);
                }
            }
            "ambient_declaration" if depth < MAX_DEPTH => {
                for child in named_children(node) {
                    self.script(outer, child, scope, depth + 1, blocks);
                }
            }
            "class_declaration" | "abstract_class_declaration" | "class" => {
                if let Some(name) = self.field_text(node, "name") {
                    let block = self.container(outer, node, name, SymbolKind::Class, scope, depth);
                    blocks.push(block);
                }
            }
            "interface_declaration" => {
                if let Some(name) = self.field_text(node, "name") {
                    blocks.push(self.define(outer, node, name, SymbolKind::Interface, scope));
                }
            }
            "type_alias_declaration" | "enum_declaration" => {
                if let Some(name) = self.field_text(node, "name") {
                    blocks.push(self.define(outer, node, name, SymbolKind::Type, scope));
                }
            }
            "internal_module" | "module" => {
                if let Some(name) = self.field_text(node, "name") {
                    let name = unquote(&name);
                    let block = self.container(outer, node, name, SymbolKind::Module, scope, depth);
                    blocks.push(block);
                }
            }
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                if let Some(name) = self.field_text(node, "name") {
                    blocks.push(self.define(outer, node, name, SymbolKind::Function, scope));
                }
            }
            "method_definition" | "abstract_method_signature" => {
                if let Some(name) = self.field_text(node, "name") {
                    blocks.push(self.define(outer, node, name, SymbolKind::Method, scope));
                }
            }
            "public_field_definition" | "field_definition" => {
                let value = node.child_by_field_name("value");
                let name = self
                    .field_text(node, "name")
                    .or_else(|| self.field_text(node, "property"));
                if let (Some(name), Some(value)) = (name, value)
                    && is_function_value(value.kind())
                {
                    blocks.push(self.define(outer, node, name, SymbolKind::Method, scope));
                }
            }
            "lexical_declaration" | "variable_declaration" if scope.is_empty() => {
                let mut cursor = node.walk();
                let declarators: Vec<Node> = node
                    .named_children(&mut cursor)
                    .filter(|n| n.kind() == "variable_declarator")
                    .collect();
                for declarator in declarators {
                    let value = declarator.child_by_field_name("value");
                    let name = declarator
                        .child_by_field_name("name")
                        .filter(|n| n.kind() == "identifier")
                        .map(|n| self.text(n));
                    if let (Some(name), Some(value)) = (name, value)
                        && is_function_value(value.kind())
                    {
                        let block = self.define(outer, node, name, SymbolKind::Function, scope);
                        blocks.push(block);
                    }
                }
            }
            "import_statement" => self.script_import(node),
            _ => {}
        }
    }

    fn go(&mut self, node: Node, blocks: &mut Vec<Block>) {
        match node.kind() {
            "function_declaration" => {
                if let Some(name) = self.field_text(node, "name") {
                    blocks.push(self.define(node, node, name, SymbolKind::Function, &[]));
                }
            }
            "method_declaration" => {
                let receiver = node
                    .child_by_field_name("receiver")
                    .map(|r| receiver_type(&self.text(r)))
                    .unwrap_or_default();
                if let Some(name) = self.field_text(node, "name") {
                    let scope: Vec<String> =
                        [receiver].into_iter().filter(|r| !r.is_empty()).collect();
                    blocks.push(self.define(node, node, name, SymbolKind::Method, &scope));
                }
            }
            "type_declaration" => {
                let mut cursor = node.walk();
                let specs: Vec<Node> = node
                    .named_children(&mut cursor)
                    .filter(|n| matches!(n.kind(), "type_spec" | "type_alias"))
                    .collect();
                let single = specs.len() == 1;
                for spec in specs {
                    let Some(name) = self.field_text(spec, "name") else {
                        continue;
                    };
                    let kind = match spec.child_by_field_name("type").map(|t| t.kind()) {
                        Some("interface_type") => SymbolKind::Interface,
                        _ => SymbolKind::Type,
                    };
                    let outer = if single { node } else { spec };
                    blocks.push(self.define(outer, spec, name, kind, &[]));
                }
            }
            "import_declaration" => {
                let mut specs = Vec::new();
                collect_kind(node, "import_spec", &mut specs, 0);
                for spec in specs {
                    if let Some(path) = spec.child_by_field_name("path") {
                        // `import ns "a/b"` (`.` takes every name, `_` none).
                        let aliases = spec
                            .child_by_field_name("name")
                            .map(|n| self.text(n))
                            .filter(|n| n != "_")
                            .map(|n| (n, "*".to_string()))
                            .into_iter()
                            .collect();
                        self.import(unquote(&self.text(path)), Vec::new(), aliases, spec);
                    }
                }
            }
            _ => {}
        }
    }

    fn rust(
        &mut self,
        outer: Node,
        node: Node,
        scope: &[String],
        depth: usize,
        blocks: &mut Vec<Block>,
    ) {
        let in_type = !scope.is_empty() && !self.in_module(scope);
        match node.kind() {
            "function_item" | "function_signature_item" => {
                if let Some(name) = self.field_text(node, "name") {
                    let kind = if in_type {
                        SymbolKind::Method
                    } else {
                        SymbolKind::Function
                    };
                    blocks.push(self.define(outer, node, name, kind, scope));
                }
            }
            "struct_item" | "enum_item" | "union_item" | "type_item" => {
                if let Some(name) = self.field_text(node, "name") {
                    blocks.push(self.define(outer, node, name, SymbolKind::Type, scope));
                }
            }
            "trait_item" => {
                if let Some(name) = self.field_text(node, "name") {
                    let block =
                        self.container(outer, node, name, SymbolKind::Interface, scope, depth);
                    blocks.push(block);
                }
            }
            "mod_item" => {
                if let Some(name) = self.field_text(node, "name") {
                    self.modules
                        .push(scope.iter().chain([&name]).cloned().collect());
                    let block = self.container(outer, node, name, SymbolKind::Module, scope, depth);
                    blocks.push(block);
                }
            }
            "impl_item" => {
                let Some(target) = node.child_by_field_name("type") else {
                    return;
                };
                let name = type_name(&self.text(target));
                let mut inner = scope.to_vec();
                inner.push(name);
                let members = match node.child_by_field_name("body") {
                    Some(body) if depth < MAX_DEPTH => self.body(body, &inner, depth + 1),
                    _ => Vec::new(),
                };
                blocks.push(Block {
                    definition: None,
                    start_line: self.start_line(outer),
                    end_line: outer.end_position().row + 1,
                    signature: self.signature(node),
                    members,
                });
            }
            "use_declaration" => {
                if let Some(argument) = node.child_by_field_name("argument") {
                    let text = self.text(argument);
                    self.import(text, Vec::new(), BTreeMap::new(), node);
                }
            }
            _ => {}
        }
    }

    /// `c` → `module` of an `… as c`.
    fn python_alias(&self, name: Node, module: &str) -> Option<(String, String)> {
        let alias = name
            .child_by_field_name("alias")
            .filter(|_| name.kind() == "aliased_import")?;
        Some((self.text(alias), module.to_string()))
    }

    /// `a.b` of `import a.b` or `import a.b as c`.
    fn imported_name(&self, name: Node) -> String {
        match name.kind() {
            "aliased_import" => name
                .child_by_field_name("name")
                .map(|n| self.text(n))
                .unwrap_or_default(),
            _ => self.text(name),
        }
    }

    fn in_module(&self, scope: &[String]) -> bool {
        self.modules.iter().any(|m| m.as_slice() == scope)
    }

    fn import(
        &mut self,
        module: String,
        names: Vec<String>,
        aliases: BTreeMap<String, String>,
        node: Node,
    ) {
        self.add_import(Import {
            module,
            names,
            aliases,
            line: node.start_position().row + 1,
            reexport: false,
            scope: None,
        });
    }

    fn add_import(&mut self, import: Import) {
        if !import.module.is_empty() {
            self.out.imports.push(import);
        }
    }
}

/// A node's named children, collected (so the walk may recurse).
fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn is_function_value(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

fn unquote(text: &str) -> String {
    text.trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_string()
}

/// `(s *Server)` → `Server`; `(l List[T])` → `List`.
fn receiver_type(text: &str) -> String {
    let inner = text.trim_start_matches('(').trim_end_matches(')');
    let ty = inner.split_whitespace().last().unwrap_or(inner);
    type_name(ty.trim_start_matches('*'))
}

/// `Vec<T>` → `Vec`, `&'a mut Store` → `Store`, `crate::x::Y` → `Y`.
fn type_name(text: &str) -> String {
    let head = text.split(['<', '[', '(']).next().unwrap_or(text);
    let head = head.rsplit("::").next().unwrap_or(head);
    head.trim_start_matches(['&', '*'])
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string()
}

fn collect_kind<'t>(node: Node<'t>, kind: &str, out: &mut Vec<Node<'t>>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == kind {
            out.push(child);
        } else {
            collect_kind(child, kind, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(outline: &Outline) -> Vec<(String, &'static str)> {
        outline
            .definitions
            .iter()
            .map(|d| (d.qualified_name.clone(), d.kind.as_str()))
            .collect()
    }

    fn pairs(list: &[(&str, &'static str)]) -> Vec<(String, &'static str)> {
        list.iter().map(|(n, k)| (n.to_string(), *k)).collect()
    }

    #[test]
    fn python_classes_methods_decorators_and_imports() {
        let text = "import os, json as j\nfrom .models import Invoice, Line as L\n\n\n@dataclass\nclass Invoice(Base):\n    \"\"\"An invoice.\"\"\"\n\n    def total_with_tax(self):\n        def helper():\n            pass\n        return 1\n\n    class Meta:\n        pass\n\n\ndef main():\n    pass\n\nif TYPE_CHECKING:\n    from typing import Any\n";
        let outline = outline(text, Some("python")).unwrap();
        assert_eq!(
            names(&outline),
            pairs(&[
                ("Invoice", "class"),
                ("Invoice.total_with_tax", "method"),
                ("Invoice.Meta", "class"),
                ("main", "function"),
            ])
        );
        let invoice = &outline.definitions[0];
        // The decorator is part of the span.
        assert_eq!((invoice.start_line, invoice.end_line), (5, 15));
        assert_eq!(invoice.signature, "class Invoice(Base):");
        let modules: Vec<&str> = outline.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, vec!["os", "json", ".models", "typing"]);
        assert_eq!(outline.imports[2].names, vec!["Invoice", "Line"]);
        assert_eq!(outline.blocks[0].members.len(), 2);
    }

    #[test]
    fn typescript_exports_arrow_functions_interfaces_and_comments() {
        let text = "import { Client, type Options } from './client';\nexport * from \"./types\";\n\n/** Sends it. */\nexport async function send(req: Request): Promise<void> {}\n\nexport const retry = async (n: number) => n;\n\nexport interface Options { timeout: number }\ntype Id = string;\n\nexport class Session extends Base {\n  private handle = (e: Event) => {};\n  async request(url: string) {\n    return url;\n  }\n}\n";
        for language in ["typescript", "tsx"] {
            let outline = outline(text, Some(language)).unwrap();
            assert_eq!(
                names(&outline),
                pairs(&[
                    ("send", "function"),
                    ("retry", "function"),
                    ("Options", "interface"),
                    ("Id", "type"),
                    ("Session", "class"),
                    ("Session.handle", "method"),
                    ("Session.request", "method"),
                ]),
                "{language}"
            );
            // The doc comment above `send` starts its span.
            assert_eq!(outline.definitions[0].start_line, 4);
            let modules: Vec<&str> = outline.imports.iter().map(|i| i.module.as_str()).collect();
            assert_eq!(modules, vec!["./client", "./types"]);
            assert!(outline.imports[0].names.contains(&"Client".to_string()));
        }
        let js =
            "const x = require('y');\nfunction* gen() {}\nmodule.exports = class A { m() {} };\n";
        let outline = outline(js, Some("javascript")).unwrap();
        assert_eq!(names(&outline), pairs(&[("gen", "function")]));
    }

    #[test]
    fn typescript_re_exports_are_imports_of_the_names_they_pass_on() {
        let text = "export { a, b as c } from './x';\nexport * from \"./y\";\nexport * as ns from './z';\nexport type { T, U as V } from './t';\nexport { default as Parser } from './parser';\nexport { local };\nexport const own = () => 1;\n";
        for language in ["typescript", "tsx", "javascript"] {
            // JavaScript has no `export type`.
            let text = if language == "javascript" {
                text.replace("export type", "export")
            } else {
                text.to_string()
            };
            let outline = outline(&text, Some(language)).unwrap();
            let imports: Vec<String> = outline
                .imports
                .iter()
                .map(|i| format!("{} {:?} {:?}", i.module, i.names, i.aliases))
                .collect();
            // As the importer sees them, and where the module has them.
            assert_eq!(
                imports,
                vec![
                    r#"./x ["a", "c"] {"c": "b"}"#,
                    r#"./y ["*"] {}"#,
                    r#"./z ["ns"] {"ns": "*"}"#,
                    r#"./t ["T", "V"] {"V": "U"}"#,
                    r#"./parser ["Parser"] {"Parser": "default"}"#,
                ],
                "{language}"
            );
            assert_eq!(outline.imports[3].line, 4);
            // A local `export { … }` imports nothing; a declaration defines.
            assert_eq!(names(&outline), pairs(&[("own", "function")]), "{language}");
        }
    }

    #[test]
    fn go_methods_are_qualified_by_their_receiver() {
        let text = "package server\n\nimport (\n\t\"net/http\"\n\tlog \"github.com/x/log\"\n)\n\n// Server serves.\ntype Server struct{ n int }\n\ntype Handler interface{ Serve() }\n\nfunc (s *Server) SendRequest(r int) error { return nil }\n\nfunc New() *Server { return nil }\n";
        let outline = outline(text, Some("go")).unwrap();
        assert_eq!(
            names(&outline),
            pairs(&[
                ("Server", "type"),
                ("Handler", "interface"),
                ("Server.SendRequest", "method"),
                ("New", "function"),
            ])
        );
        assert_eq!(outline.definitions[0].start_line, 8);
        let modules: Vec<&str> = outline.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, vec!["net/http", "github.com/x/log"]);
    }

    #[test]
    fn rust_impls_traits_and_modules() {
        let text = "use crate::store::{feed, Entry};\n\n/// A store.\n#[derive(Debug)]\npub struct Store;\n\nimpl<'a> Display for Store<'a> {\n    fn fmt(&self) {}\n}\n\npub trait Put {\n    fn put(&self);\n}\n\nmod inner {\n    pub fn helper() {}\n}\n\nfn main() {}\n";
        let outline = outline(text, Some("rust")).unwrap();
        assert_eq!(
            names(&outline),
            pairs(&[
                ("Store", "type"),
                ("Store.fmt", "method"),
                ("Put", "interface"),
                ("Put.put", "method"),
                ("inner", "module"),
                ("inner.helper", "function"),
                ("main", "function"),
            ])
        );
        // Doc comment and attribute belong to the struct.
        assert_eq!(outline.definitions[0].start_line, 3);
        assert_eq!(outline.imports[0].module, "crate::store::{feed, Entry}");
        // The impl is a block without a name of its own.
        assert_eq!(outline.blocks[1].definition, None);
        assert_eq!(outline.blocks[1].members.len(), 1);
    }

    #[test]
    fn broken_and_hostile_files_still_outline() {
        let broken = "def ok():\n    pass\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n";
        let outline = outline(broken, Some("python")).unwrap();
        assert!(outline.definitions.iter().any(|d| d.name == "ok"));
        assert!(outline.definitions.iter().any(|d| d.name == "After"));
        let deep = format!("{}pass", "class A:\n ".repeat(5_000));
        assert!(super::outline(&deep, Some("python")).is_some());
        assert!(super::outline("x", Some("cobol")).is_none());
    }
}
