//! TS/JS ES module imports as [`Import`]s: `import … from`, the
//! `export … from` re-exports (the names they pass on, renamed ones with
//! the module's name, `*` for `export *`), and TypeScript's
//! `import x = require('./x')`, read as `import * as x from './x'`.
//! CommonJS `require` calls are `require.rs`'s.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::{Import, MAX_DEPTH, Reader, collect_kind, named_children, unquote};

impl Reader<'_> {
    /// An `import` statement.
    pub(super) fn script_import(&mut self, node: Node) {
        if let Some(source) = node.child_by_field_name("source") {
            let mut names = Vec::new();
            collect_identifiers(node, self.source, &mut names, 0);
            let aliases = self.script_aliases(node);
            self.import(unquote(&self.text(source)), names, aliases, node);
            return;
        }
        // `import x = require('./x')`: the module under a name.
        let clause = named_children(node)
            .into_iter()
            .find(|c| c.kind() == "import_require_clause");
        let Some(clause) = clause else {
            return;
        };
        let name = clause.named_child(0).filter(|n| n.kind() == "identifier");
        if let (Some(name), Some(source)) = (name, clause.child_by_field_name("source")) {
            let local = self.text(name);
            let aliases = BTreeMap::from([(local.clone(), "*".to_string())]);
            self.import(unquote(&self.text(source)), vec![local], aliases, node);
        }
    }

    /// An `export … from` statement: an import the file passes on.
    pub(super) fn re_export(&mut self, node: Node) {
        let Some(source) = node.child_by_field_name("source") else {
            return;
        };
        let (names, aliases) = self.reexported(node);
        self.add_import(Import {
            module: unquote(&self.text(source)),
            names,
            aliases,
            line: node.start_position().row + 1,
            reexport: true,
            scope: None,
        });
    }

    /// The names an `import` binds under another name: `c` → `b` of
    /// `{ b as c }`, `ns` → `*` of `* as ns`.
    fn script_aliases(&self, node: Node) -> BTreeMap<String, String> {
        let mut aliases = BTreeMap::new();
        let mut clauses = Vec::new();
        collect_kind(node, "import_clause", &mut clauses, 0);
        for clause in clauses {
            for part in named_children(clause) {
                match part.kind() {
                    "namespace_import" => {
                        if let Some(name) = part.named_child(0) {
                            aliases.insert(self.text(name), "*".to_string());
                        }
                    }
                    "named_imports" => {
                        for specifier in named_children(part) {
                            let name = specifier.child_by_field_name("name");
                            if let (Some(name), Some(alias)) =
                                (name, specifier.child_by_field_name("alias"))
                            {
                                aliases.insert(self.text(alias), unquote(&self.text(name)));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        aliases
    }

    /// The names an `export … from` statement passes on, as exported
    /// (`*` for all of them), and the ones it renames.
    fn reexported(&self, node: Node) -> (Vec<String>, BTreeMap<String, String>) {
        let mut names = Vec::new();
        let mut aliases = BTreeMap::new();
        let mut listed = false;
        for child in named_children(node) {
            match child.kind() {
                "export_clause" => {
                    listed = true;
                    for specifier in named_children(child) {
                        let Some(name) = specifier.child_by_field_name("name") else {
                            continue;
                        };
                        let name = unquote(&self.text(name));
                        match specifier.child_by_field_name("alias") {
                            Some(alias) => {
                                let alias = unquote(&self.text(alias));
                                names.push(alias.clone());
                                aliases.insert(alias, name);
                            }
                            None => names.push(name),
                        }
                    }
                }
                "namespace_export" => {
                    listed = true;
                    // `* as ns`: the name comes last.
                    let name = child.child(child.child_count().saturating_sub(1));
                    if let Some(name) = name.map(|n| unquote(&self.text(n))) {
                        names.push(name.clone());
                        aliases.insert(name, "*".to_string());
                    }
                }
                _ => {}
            }
        }
        if !listed {
            names.push("*".to_string());
        }
        (names, aliases)
    }
}

fn collect_identifiers(node: Node, source: &[u8], out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "identifier" | "type_identifier" => {
                if let Ok(text) = child.utf8_text(source) {
                    out.push(text.to_string());
                }
            }
            "string" => {}
            _ => collect_identifiers(child, source, out, depth + 1),
        }
    }
}
