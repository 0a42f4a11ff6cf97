//! CommonJS `require` calls (and dynamic `import()`), anywhere in a file,
//! read as the ES imports they stand for, so the code graph treats both
//! alike:
//! - `const x = require('./x')` as `import * as x from './x'`;
//! - `const {a, b: c} = require('./x')` as `import {a, b as c} from './x'`;
//! - `const y = require('./x').y` as `import {y} from './x'`;
//! - `module.exports = require('./x')` as `export * from './x'`;
//! - `exports.y = require('./x')` (`module.exports.y = …`, `module.exports
//!   = { y: require('./x') }`) as `export * as y from './x'`, and
//!   `exports.y = require('./x').z` as `export { z as y } from './x'`;
//! - any other `require('./x')` (alone, as an argument) as `import './x'`.
//!
//! A `require` inside a definition's body (a lazy `require` in a
//! function) binds its names in that definition alone ([`Import::scope`]);
//! its module is imported by the file all the same. Only a call of
//! `require` (or `import`) with one string argument counts.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use tree_sitter::Node;

use super::tree_walk::walk;
use super::{Definition, Import};

/// `require` calls read of one file at most.
const MAX_REQUIRES: usize = 1_000;

/// The module `node` loads, when it is `require('…')` or `import('…')`.
pub(super) fn required_module(node: Node, source: &[u8]) -> Option<String> {
    if node.kind() != "call_expression" {
        return None;
    }
    let function = node.child_by_field_name("function")?;
    let loads = match function.kind() {
        "identifier" => function.utf8_text(source).ok()? == "require",
        "import" => true,
        _ => false,
    };
    if !loads {
        return None;
    }
    let arguments = node.child_by_field_name("arguments")?;
    let mut cursor = arguments.walk();
    let args: Vec<Node> = arguments.named_children(&mut cursor).collect();
    match args.as_slice() {
        [one] if one.kind() == "string" => {
            let text = one.utf8_text(source).ok()?;
            let module = text.trim_matches(|c| c == '"' || c == '\'');
            (!module.is_empty()).then(|| module.to_string())
        }
        _ => None,
    }
}

/// `require('./x')` as a call site writes it, when `node` is that call
/// (`require('./x').g()` calls `g` of `./x`).
pub(super) fn required_site(node: Node, source: &[u8]) -> Option<String> {
    let function = node.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    required_module(node, source).map(|module| format!("require('{module}')"))
}

/// Every `require` of the file under `root`, in order, each bound in the
/// innermost of `definitions` holding it.
pub(super) fn requires(root: Node, source: &[u8], definitions: &[Definition]) -> Vec<Import> {
    let mut out = Vec::new();
    if !source
        .windows(7)
        .any(|w| w == b"require" || w == b"import(")
    {
        return out;
    }
    walk(root, |node| {
        if let Some(module) = required_module(node, source) {
            out.push(import_of(node, module, source, definitions));
            if out.len() >= MAX_REQUIRES {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    out
}

/// What the `require` `call` of `module` imports, read from where it is
/// written.
fn import_of(call: Node, module: String, source: &[u8], definitions: &[Definition]) -> Import {
    let line = call.start_position().row + 1;
    let mut import = Import {
        module,
        names: Vec::new(),
        aliases: BTreeMap::new(),
        line,
        reexport: false,
        scope: None,
    };
    // `await import('./x')` binds as `require('./x')` does.
    let mut value = call;
    if let Some(parent) = value.parent().filter(|p| p.kind() == "await_expression") {
        value = parent;
    }
    // `require('./x').y`: one name of the module.
    let mut member = None;
    if let Some(parent) = value.parent().filter(|p| p.kind() == "member_expression")
        && is_field(parent, "object", value)
    {
        member = parent
            .child_by_field_name("property")
            .and_then(|p| text(p, source));
        value = parent;
    }
    let Some(parent) = value.parent() else {
        return import;
    };
    let bound = match parent.kind() {
        "variable_declarator" if is_field(parent, "value", value) => {
            parent.child_by_field_name("name")
        }
        "assignment_expression" if is_field(parent, "right", value) => {
            let left = parent.child_by_field_name("left");
            if let Some(exported) = left.and_then(|l| exports_target(l, source)) {
                re_export(&mut import, exported, member);
                return import;
            }
            left.filter(|l| l.kind() == "identifier")
        }
        // `module.exports = { y: require('./x') }`.
        "pair" if is_field(parent, "value", value) => {
            let key = parent
                .child_by_field_name("key")
                .and_then(|k| text(k, source));
            let object = parent.parent().filter(|o| o.kind() == "object");
            let assigned = object.and_then(|o| o.parent());
            let whole = assigned
                .filter(|a| a.kind() == "assignment_expression")
                .and_then(|a| a.child_by_field_name("left"))
                .and_then(|l| exports_target(l, source));
            if let (Some(key), Some(None)) = (key, whole) {
                re_export(&mut import, Some(key), member);
            }
            return import;
        }
        _ => None,
    };
    if let Some(bound) = bound {
        bind(&mut import, bound, member, source);
        if !import.names.is_empty() {
            import.scope = innermost(definitions, line);
        }
    }
    import
}

/// The names `bound = require(…)` (or `… = require(…).member`) binds.
fn bind(import: &mut Import, bound: Node, member: Option<String>, source: &[u8]) {
    let names = &mut import.names;
    let aliases = &mut import.aliases;
    match (bound.kind(), member) {
        ("identifier", Some(property)) => {
            let Some(local) = text(bound, source) else {
                return;
            };
            if local != property {
                aliases.insert(local.clone(), property.clone());
                names.push(property);
            }
            names.push(local);
        }
        ("identifier", None) => {
            if let Some(local) = text(bound, source) {
                aliases.insert(local.clone(), "*".to_string());
                names.push(local);
            }
        }
        ("object_pattern", None) => {
            let mut cursor = bound.walk();
            for part in bound.named_children(&mut cursor) {
                match part.kind() {
                    "shorthand_property_identifier_pattern" => names.extend(text(part, source)),
                    "pair_pattern" => {
                        let key = part
                            .child_by_field_name("key")
                            .and_then(|k| text(k, source));
                        let value = part
                            .child_by_field_name("value")
                            .filter(|v| v.kind() == "identifier")
                            .and_then(|v| text(v, source));
                        if let (Some(key), Some(value)) = (key, value) {
                            if key != value {
                                aliases.insert(value.clone(), key.clone());
                                names.push(key);
                            }
                            names.push(value);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// A re-export: of the whole module (`exported` none), or under the name
/// `exported` (`member` of the module when given, else all of it).
fn re_export(import: &mut Import, exported: Option<String>, member: Option<String>) {
    match (exported, member) {
        (None, None) => import.names.push("*".to_string()),
        // `module.exports = require('./x').y` exports no name of its own.
        (None, Some(_)) => return,
        (Some(name), member) => {
            let original = member.unwrap_or_else(|| "*".to_string());
            if original != name {
                import.aliases.insert(name.clone(), original);
            }
            import.names.push(name);
        }
    }
    import.reexport = true;
}

/// What assigning to `left` exports: `Some(None)` for `module.exports`
/// itself, `Some(Some(y))` for `exports.y` and `module.exports.y`.
fn exports_target(left: Node, source: &[u8]) -> Option<Option<String>> {
    if left.kind() != "member_expression" {
        return None;
    }
    let object = left.child_by_field_name("object")?;
    let property = text(left.child_by_field_name("property")?, source)?;
    let object_text = object.utf8_text(source).ok()?;
    match (object_text, property.as_str()) {
        ("module", "exports") => Some(None),
        ("exports" | "module.exports", _) => Some(Some(property)),
        _ => None,
    }
}

/// The qualified name of the innermost definition holding `line`
/// (definitions come in order of their start and nest).
fn innermost(definitions: &[Definition], line: usize) -> Option<String> {
    definitions
        .iter()
        .rfind(|d| d.start_line <= line && line <= d.end_line)
        .map(|d| d.qualified_name.clone())
}

fn is_field(parent: Node, field: &str, child: Node) -> bool {
    parent
        .child_by_field_name(field)
        .is_some_and(|c| c.id() == child.id())
}

fn text(node: Node, source: &[u8]) -> Option<String> {
    node.utf8_text(source)
        .ok()
        .map(|t| t.trim_matches(|c| c == '"' || c == '\'').to_string())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::outline;

    /// `module names aliases reexport scope` of each import.
    fn imports(text: &str, language: &str) -> Vec<String> {
        outline(text, Some(language))
            .unwrap()
            .imports
            .iter()
            .map(|i| {
                format!(
                    "{} {:?} {:?} {} {:?}",
                    i.module, i.names, i.aliases, i.reexport, i.scope
                )
            })
            .collect()
    }

    #[test]
    fn barrels_bindings_and_lazy_requires_read_as_imports() {
        let js = "const a = require('./a');\nmodule.exports = require('./impl');\nexports.fmt = require('./fmt');\nmodule.exports.b = require('./b').c;\nmodule.exports = { d: require('./d') };\napp.use(require('./routes'));\nfunction f() {\n  const { g, h: k } = require('./g');\n  return require('./i').j();\n}\n";
        assert_eq!(
            imports(js, "javascript"),
            vec![
                r#"./a ["a"] {"a": "*"} false None"#,
                r#"./impl ["*"] {} true None"#,
                r#"./fmt ["fmt"] {"fmt": "*"} true None"#,
                r#"./b ["b"] {"b": "c"} true None"#,
                r#"./d ["d"] {"d": "*"} true None"#,
                r#"./routes [] {} false None"#,
                r#"./g ["g", "h", "k"] {"k": "h"} false Some("f")"#,
                r#"./i [] {} false None"#,
            ]
        );
        let ts = "import util = require('./util');\nexport { x } from './x';\nimport { y } from './y';\n";
        assert_eq!(
            imports(ts, "typescript"),
            vec![
                r#"./util ["util"] {"util": "*"} false None"#,
                r#"./x ["x"] {} true None"#,
                r#"./y ["y"] {} false None"#,
            ]
        );
        // `require('./i').j()` is written with its module.
        let sites: Vec<String> = outline(js, Some("javascript"))
            .unwrap()
            .references
            .iter()
            .map(|r| r.name.clone())
            .collect();
        assert!(sites.contains(&"require('./i').j".to_string()), "{sites:?}");
    }
}
