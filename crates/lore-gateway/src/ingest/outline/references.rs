//! Call sites: the names a source file calls, constructs or inherits
//! from, each with its line, read from the tree its outline was read
//! from (Python, TypeScript, TSX, JavaScript, Go, Rust). The code graph
//! resolves them to definitions (`graph/calls.rs`).
//!
//! A site is the name as written, qualifiers joined by `.` (by `::` in a
//! Rust path): `rate`, `self.total`, `models.Invoice`, `store.Get`,
//! `crate::feed::poll`, `Store::open`; `?.send` when what comes before the
//! name is no plain name (`make().send()`). `self`/`cls`/`this` and a Go
//! method's receiver are written `self` (Rust's `Self::` stays); a
//! variable its function assigned a constructor's result is written as
//! its type (after `x = Invoice(…)`, `const x = new Invoice()`,
//! `x := &Invoice{}` or `let x = Invoice::new()`, `x.total()` is
//! `Invoice.total`, in Rust `Invoice::total`). Calls (`f()`, `x.f()`,
//! `new F()`), struct and composite literals (`F { … }`, `F{…}`), base
//! classes, decorators and JSX components count; calls inside Rust macros
//! (`assert_eq!(parse(x), …)`) are read from their tokens. Builtins
//! (`len`, `print`, `Some`, `console.log`) are left out unless the file
//! defines or imports that name. `require('./x').g()` is written
//! `require('./x').g` (the graph resolves it in that module). Names used
//! as types (a parameter's, a return's, a field's, an implemented
//! interface or trait) are sites too, marked [`Usage::Type`] (`types`).
//!
//! The walk is iterative (no recursion: a hostile file cannot exhaust
//! the stack), skips what is nested deeper than
//! [`MAX_TREE_DEPTH`](super::tree_walk::MAX_TREE_DEPTH) and
//! keeps at most [`MAX_SITES`] sites of a file.

mod builtins;
mod forward_refs;
mod types;

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::tree_walk::walk;
use super::{Definition, Import, Lang};
use builtins::{is_builtin, is_own};

/// Sites kept of one file at most (a generated file holds thousands).
pub const MAX_SITES: usize = 3_000;
/// Qualifiers followed at most in `a.b.c.f`.
const MAX_CHAIN: usize = 6;

/// One place a name is called or referred to.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// As written (see the module doc): `self.total`, `crate::feed::poll`.
    pub name: String,
    /// The line (1-based) of its last name.
    pub line: usize,
    /// What the code does with the name there.
    pub usage: Usage,
}

/// What a site does with a name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Usage {
    /// Calls, constructs, inherits from or decorates with it.
    #[default]
    Call,
    /// Names it as a type: of a parameter, a return, a field or a
    /// variable (`types.rs`).
    Type,
}

/// The call sites under `root`, in order of their lines. A builtin the
/// file defines or imports (`definitions`, `imports`) is kept.
pub(super) fn read(
    root: Node,
    source: &[u8],
    lang: Lang,
    definitions: &[Definition],
    imports: &[Import],
) -> Vec<Reference> {
    let mut reader = SiteReader {
        lang,
        source,
        definitions,
        imports,
        receivers: Vec::new(),
        locals: vec![(usize::MAX, HashMap::new())],
        out: Vec::new(),
    };
    walk(root, |node| {
        if node.is_named() {
            reader.visit(node);
            if reader.out.len() >= MAX_SITES {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    let mut out = reader.out;
    out.sort_by(|a, b| (a.line, &a.name, a.usage).cmp(&(b.line, &b.name, b.usage)));
    out.dedup();
    out
}

struct SiteReader<'a> {
    lang: Lang,
    source: &'a [u8],
    /// What the file defines and imports (its builtins' names are its own).
    definitions: &'a [Definition],
    imports: &'a [Import],
    /// Go method receivers in scope: (end byte of the method, name).
    receivers: Vec<(usize, String)>,
    /// Variables assigned a constructor's result, per function in scope
    /// (the file's first): (end byte of the function, name → type).
    locals: Vec<(usize, HashMap<String, String>)>,
    out: Vec<Reference>,
}

impl<'a> SiteReader<'a> {
    fn text(&self, node: Node) -> &'a str {
        node.utf8_text(self.source).unwrap_or_default()
    }

    fn push(&mut self, name: String, at: Node) {
        self.push_as(name, at, Usage::Call);
    }

    fn push_as(&mut self, name: String, at: Node, usage: Usage) {
        let builtin =
            || is_builtin(self.lang, &name) && !is_own(&name, self.definitions, self.imports);
        if !name.is_empty() && name.len() <= 200 && !name.ends_with(['.', ':']) && !builtin() {
            self.out.push(Reference {
                name,
                line: at.start_position().row + 1,
                usage,
            });
        }
    }

    fn visit(&mut self, node: Node) {
        let start = node.start_byte();
        while self.locals.last().is_some_and(|(end, _)| start >= *end) {
            self.locals.pop();
        }
        let function = match self.lang {
            Lang::Python => &["function_definition"][..],
            Lang::Script => &[
                "function_declaration",
                "method_definition",
                "arrow_function",
                "function_expression",
                "function",
            ][..],
            Lang::Go => &["function_declaration", "method_declaration", "func_literal"][..],
            Lang::Rust => &["function_item", "closure_expression"][..],
        };
        if function.contains(&node.kind()) {
            self.locals.push((node.end_byte(), HashMap::new()));
        }
        if let Some((name, ty)) = self.constructed(node)
            && let Some((_, scope)) = self.locals.last_mut()
        {
            scope.insert(name, ty);
        }
        match self.lang {
            Lang::Python => self.python(node),
            Lang::Script => self.script(node),
            Lang::Go => self.go(node),
            Lang::Rust => self.rust(node),
        }
        self.annotation(node);
    }

    /// `a.b.c` of a chain of attribute accesses (`?` when it is no chain
    /// of plain names), with `self` for the object itself.
    fn chain(&self, node: Node, depth: usize) -> String {
        let (object, member) = match (self.lang, node.kind()) {
            (Lang::Python, "attribute") => ("object", "attribute"),
            (Lang::Script, "member_expression") => ("object", "property"),
            (Lang::Go, "selector_expression") => ("operand", "field"),
            (Lang::Rust, "field_expression") => ("value", "field"),
            (_, "identifier" | "package_identifier") => {
                let name = self.text(node);
                return match (self.lang, name) {
                    (Lang::Python, "self" | "cls") => "self".into(),
                    (Lang::Go, _) if self.receivers.last().is_some_and(|(_, r)| r == name) => {
                        "self".into()
                    }
                    _ => name.to_string(),
                };
            }
            (_, "this" | "self") => return "self".into(),
            (Lang::Script, "call_expression") => {
                return super::require::required_site(node, self.source)
                    .unwrap_or_else(|| "?".into());
            }
            _ => return "?".into(),
        };
        let (Some(object), Some(member)) = (
            node.child_by_field_name(object),
            node.child_by_field_name(member),
        ) else {
            return "?".into();
        };
        if depth >= MAX_CHAIN {
            return "?".into();
        }
        let head = self.chain(object, depth + 1);
        if head == "?" {
            return head;
        }
        format!("{head}.{}", self.text(member))
    }

    /// The site of what `node` calls: `f`, `x.f`, `?.f`.
    fn callee<'t>(&self, node: Node<'t>) -> Option<(String, Node<'t>)> {
        let member = match (self.lang, node.kind()) {
            (_, "identifier") => return Some((self.chain(node, 0), node)),
            (Lang::Python, "attribute") => "attribute",
            (Lang::Script, "member_expression") => "property",
            (Lang::Go, "selector_expression") => "field",
            (Lang::Rust, "field_expression") => "field",
            _ => return None,
        };
        let name = node.child_by_field_name(member)?;
        let object = node.child_by_field_name(match self.lang {
            Lang::Go => "operand",
            Lang::Rust => "value",
            _ => "object",
        })?;
        let head = self.chain(object, 0);
        let typed = self
            .locals
            .iter()
            .rev()
            .find_map(|(_, scope)| scope.get(&head));
        let site = match (typed, self.lang) {
            (Some(ty), Lang::Rust) => format!("{ty}::{}", self.text(name)),
            (Some(ty), _) => format!("{ty}.{}", self.text(name)),
            (None, _) => format!("{head}.{}", self.text(name)),
        };
        Some((site, name))
    }

    /// `(x, T)` when `node` assigns a variable `x` a new `T`: Python's
    /// `x = T(…)` (a capitalised name), `const x = new T()`, Go's
    /// `x := T{…}` or `&T{…}`, Rust's `let x = T::new(…)`, `T { … }` or
    /// `let x: T`.
    fn constructed(&self, node: Node) -> Option<(String, String)> {
        fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
            node.child_by_field_name(name)
        }
        let (variable, ty) = match (self.lang, node.kind()) {
            (Lang::Python, "assignment") => {
                let call = field(node, "right").filter(|r| r.kind() == "call")?;
                (
                    field(node, "left")?,
                    self.chain(field(call, "function")?, 0),
                )
            }
            (Lang::Script, "variable_declarator") => {
                let new = field(node, "value").filter(|v| v.kind() == "new_expression")?;
                (
                    field(node, "name")?,
                    self.chain(field(new, "constructor")?, 0),
                )
            }
            (Lang::Go, "short_var_declaration") => {
                let mut value = field(node, "right")?.named_child(0)?;
                if value.kind() == "unary_expression" {
                    value = field(value, "operand")?;
                }
                if value.kind() != "composite_literal" {
                    return None;
                }
                let ty = field(value, "type")?;
                let ty = match ty.kind() {
                    "type_identifier" => self.text(ty).to_string(),
                    "qualified_type" => format!(
                        "{}.{}",
                        self.text(field(ty, "package")?),
                        self.text(field(ty, "name")?)
                    ),
                    _ => return None,
                };
                (field(node, "left")?.named_child(0)?, ty)
            }
            (Lang::Rust, "let_declaration") => {
                let ty = match (field(node, "type"), field(node, "value")) {
                    (Some(ty), _) => self.rust_path(ty, 0)?,
                    (None, Some(v)) if v.kind() == "struct_expression" => {
                        self.rust_path(field(v, "name")?, 0)?
                    }
                    (None, Some(v)) if v.kind() == "call_expression" => {
                        let function =
                            field(v, "function").filter(|f| f.kind() == "scoped_identifier")?;
                        self.rust_path(field(function, "path")?, 0)?
                    }
                    _ => return None,
                };
                (field(node, "pattern")?, ty)
            }
            _ => return None,
        };
        let last = ty.rsplit([':', '.']).next().unwrap_or(&ty);
        let is_type = last.starts_with(|c: char| c.is_uppercase()) && !ty.contains('?');
        (variable.kind() == "identifier" && is_type && last != "Self")
            .then(|| (self.text(variable).to_string(), ty))
    }

    fn push_callee(&mut self, node: Option<Node>) {
        if let Some((name, at)) = node.and_then(|n| self.callee(n)) {
            self.push(name, at);
        }
    }

    fn python(&mut self, node: Node) {
        match node.kind() {
            "call" => self.push_callee(node.child_by_field_name("function")),
            "decorator" => {
                let expression = node.named_child(0);
                if expression.is_some_and(|e| e.kind() != "call") {
                    self.push_callee(expression);
                }
            }
            "class_definition" => {
                if let Some(bases) = node.child_by_field_name("superclasses") {
                    let mut cursor = bases.walk();
                    let bases: Vec<Node> = bases.named_children(&mut cursor).collect();
                    for base in bases {
                        self.push_callee(Some(base));
                    }
                }
            }
            _ => {}
        }
    }

    fn script(&mut self, node: Node) {
        match node.kind() {
            "call_expression" => self.push_callee(node.child_by_field_name("function")),
            "new_expression" => self.push_callee(node.child_by_field_name("constructor")),
            "extends_clause" => self.push_callee(node.child_by_field_name("value")),
            // JavaScript's `class A extends B`.
            "class_heritage"
                if node
                    .named_child(0)
                    .is_some_and(|c| !c.kind().ends_with("_clause")) =>
            {
                self.push_callee(node.named_child(0))
            }
            "jsx_opening_element" | "jsx_self_closing_element" => {
                let name = node.child_by_field_name("name");
                // Components are capitalised; `div` is HTML.
                if name.is_some_and(|n| self.text(n).starts_with(|c: char| c.is_uppercase())) {
                    self.push_callee(name);
                }
            }
            _ => {}
        }
    }

    fn go(&mut self, node: Node) {
        while self
            .receivers
            .last()
            .is_some_and(|(end, _)| node.start_byte() >= *end)
        {
            self.receivers.pop();
        }
        match node.kind() {
            "method_declaration" => {
                let receiver = node
                    .child_by_field_name("receiver")
                    .and_then(|r| r.named_child(0))
                    .and_then(|p| p.child_by_field_name("name"))
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                self.receivers.push((node.end_byte(), receiver));
            }
            "call_expression" => self.push_callee(node.child_by_field_name("function")),
            "composite_literal" => match node.child_by_field_name("type") {
                Some(ty) if ty.kind() == "type_identifier" => {
                    self.push(self.text(ty).to_string(), ty);
                }
                Some(ty) if ty.kind() == "qualified_type" => {
                    let name = ty.child_by_field_name("name");
                    if let (Some(package), Some(name)) = (ty.child_by_field_name("package"), name) {
                        let site = format!("{}.{}", self.text(package), self.text(name));
                        self.push(site, name);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn rust(&mut self, node: Node) {
        match node.kind() {
            "call_expression" => {
                let mut function = node.child_by_field_name("function");
                if let Some(generic) = function.filter(|f| f.kind() == "generic_function") {
                    function = generic.child_by_field_name("function");
                }
                match function {
                    Some(f) if f.kind() == "scoped_identifier" => {
                        if let Some(path) = self.rust_path(f, 0) {
                            self.push(path, f);
                        }
                    }
                    other => self.push_callee(other),
                }
            }
            "struct_expression" => {
                let name = node.child_by_field_name("name");
                match name {
                    Some(n) if n.kind() == "type_identifier" => self.push(self.text(n).into(), n),
                    Some(n) if n.kind() == "scoped_type_identifier" => {
                        if let Some(path) = self.rust_path(n, 0) {
                            self.push(path, n);
                        }
                    }
                    _ => {}
                }
            }
            "token_tree" => self.rust_tokens(node),
            _ => {}
        }
    }

    /// `a::b::f` of a scoped identifier, generic arguments left out
    /// (`Vec::<u8>::new` → `Vec::new`).
    fn rust_path(&self, node: Node, depth: usize) -> Option<String> {
        if depth >= MAX_CHAIN {
            return None;
        }
        match node.kind() {
            "identifier" | "type_identifier" | "crate" | "super" | "self" => {
                Some(self.text(node).to_string())
            }
            "generic_type" => self.rust_path(node.child_by_field_name("type")?, depth + 1),
            "scoped_identifier" | "scoped_type_identifier" => {
                let name = self.text(node.child_by_field_name("name")?);
                match node.child_by_field_name("path") {
                    Some(path) => Some(format!("{}::{name}", self.rust_path(path, depth + 1)?)),
                    None => Some(name.to_string()),
                }
            }
            _ => None,
        }
    }

    /// Calls inside a macro's tokens: a name followed by `(…)`, after
    /// `Q::` or `Q.` when there is one.
    fn rust_tokens(&mut self, node: Node) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate().skip(1) {
            let name = children[i - 1];
            if child.kind() != "token_tree"
                || !self.text(*child).starts_with('(')
                || name.kind() != "identifier"
            {
                continue;
            }
            let before = |back: usize| i.checked_sub(back).map(|j| children[j]);
            let qualifier = match (before(2).map(|n| n.kind()), before(3)) {
                (Some(sep @ ("::" | ".")), Some(q))
                    if matches!(q.kind(), "identifier" | "self" | "crate" | "super") =>
                {
                    format!("{}{sep}", self.text(q))
                }
                (Some("."), _) => "?.".to_string(),
                _ => String::new(),
            };
            let site = format!("{qualifier}{}", self.text(name));
            self.push(site, name);
        }
    }
}

/// Which definition each site is in: the innermost whose lines hold it
/// (index into `definitions`), none at module level. Definitions come in
/// order of their start and nest; sites in order of their lines.
pub fn enclosing(definitions: &[Definition], sites: &[Reference]) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(sites.len());
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for site in sites {
        while next < definitions.len() && definitions[next].start_line <= site.line {
            let start = definitions[next].start_line;
            while open
                .last()
                .is_some_and(|&d| definitions[d].end_line < start)
            {
                open.pop();
            }
            open.push(next);
            next += 1;
        }
        while open
            .last()
            .is_some_and(|&d| definitions[d].end_line < site.line)
        {
            open.pop();
        }
        out.push(open.last().copied());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::outline;

    fn sites(text: &str, language: &str) -> Vec<String> {
        outline(text, Some(language))
            .unwrap()
            .references
            .iter()
            .map(|r| format!("{} {}", r.line, r.name))
            .collect()
    }

    #[test]
    fn python_calls_bases_and_decorators_with_builtins_left_out() {
        let text = "import shop.util as u\n\n@register\nclass A(Base):\n    def f(self):\n        self.g(len(x))\n        u.h().k()\n        print(open)\n";
        assert_eq!(
            sites(text, "python"),
            vec!["3 register", "4 Base", "6 self.g", "7 ?.k", "7 u.h"]
        );
    }

    #[test]
    fn script_go_and_rust_sites_as_written() {
        let ts = "class A extends B implements C {\n  m() { return new D(this.n(), e.f.g()); }\n}\nconsole.log(1);\n";
        assert_eq!(
            sites(ts, "typescript"),
            vec!["1 B", "1 C", "2 D", "2 e.f.g", "2 self.n"]
        );
        let go = "package p\n\nfunc (s *S) M() {\n\ts.n()\n\tpkg.F(len(x))\n\t_ = T{}\n}\n";
        assert_eq!(sites(go, "go"), vec!["4 self.n", "5 pkg.F", "6 T"]);
        let rust = "fn f() {\n    crate::a::b();\n    Self::new();\n    x.y();\n    assert!(check(1), \"{}\", z.w());\n    let _ = S { a: Vec::new() };\n    Some(1);\n}\n";
        assert_eq!(
            sites(rust, "rust"),
            vec![
                "2 crate::a::b",
                "3 Self::new",
                "4 x.y",
                "5 check",
                "5 z.w",
                "6 S"
            ]
        );
    }

    #[test]
    fn a_variable_holding_a_new_object_is_written_as_its_type() {
        let py = "def f():\n    c = Client()\n    c.send()\n\ndef g():\n    c.send()\n";
        assert_eq!(
            sites(py, "python"),
            vec!["2 Client", "3 Client.send", "6 c.send"]
        );
        let ts = "function f() {\n  const c = new api.Client();\n  c.send();\n}\n";
        assert_eq!(
            sites(ts, "typescript"),
            vec!["2 api.Client", "3 api.Client.send"]
        );
        let go = "package p\n\nfunc f() {\n\ts := &Server{}\n\ts.Run()\n}\n";
        assert_eq!(sites(go, "go"), vec!["4 Server", "5 Server.Run"]);
        let rust = "fn f() {\n    let s = Store::open();\n    s.put();\n    let t: Tx = s.begin();\n    t.commit();\n}\n";
        assert_eq!(
            sites(rust, "rust"),
            vec![
                "2 Store::open",
                "3 Store::put",
                "4 Store::begin",
                "5 Tx::commit"
            ]
        );
    }

    #[test]
    fn hostile_files_stay_bounded() {
        let deep = format!("x = {}1{}\n", "f(".repeat(20_000), ")".repeat(20_000));
        let found = super::super::outline(&deep, Some("python"))
            .unwrap()
            .references;
        assert!(found.len() < 500, "{}", found.len());
        let many = "f()\n".repeat(10_000);
        let found = super::super::outline(&many, Some("python"))
            .unwrap()
            .references;
        assert_eq!(found.len(), super::MAX_SITES);
    }
}
