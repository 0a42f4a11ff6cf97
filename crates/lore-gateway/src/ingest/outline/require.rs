//! CommonJS `require` calls at a file's top level, read as the ES
//! imports they stand for, so the code graph treats both alike:
//! - `const x = require('./x')` as `import * as x from './x'`;
//! - `const {a, b: c} = require('./x')` as `import {a, b as c} from './x'`;
//! - `const y = require('./x').y` as `import {y} from './x'`;
//! - `require('./x')` alone as `import './x'`.
//!
//! Only a call of `require` with one string argument counts.

use std::collections::BTreeMap;

use tree_sitter::Node;

/// What a `require` imports: the module, the names bound and the names
/// bound under another name (as [`super::Import`] holds them).
pub(super) type Required = (String, Vec<String>, BTreeMap<String, String>);

/// The module `node` requires, when it is `require('…')`.
fn required_module(node: Node, source: &[u8]) -> Option<String> {
    if node.kind() != "call_expression" {
        return None;
    }
    let function = node.child_by_field_name("function")?;
    if function.kind() != "identifier" || function.utf8_text(source).ok()? != "require" {
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

/// The import a `const … = require(…)` declarator makes.
pub(super) fn declarator(node: Node, source: &[u8]) -> Option<Required> {
    let text = |n: Node| n.utf8_text(source).ok().map(str::to_string);
    let name = node.child_by_field_name("name")?;
    let value = node.child_by_field_name("value")?;
    // `require('./x').y`: one name of the module.
    if value.kind() == "member_expression" {
        let module = required_module(value.child_by_field_name("object")?, source)?;
        let property = text(value.child_by_field_name("property")?)?;
        let local = text(name).filter(|_| name.kind() == "identifier")?;
        let mut aliases = BTreeMap::new();
        if local != property {
            aliases.insert(local.clone(), property.clone());
            return Some((module, vec![property, local], aliases));
        }
        return Some((module, vec![local], aliases));
    }
    let module = required_module(value, source)?;
    let mut names = Vec::new();
    let mut aliases = BTreeMap::new();
    match name.kind() {
        "identifier" => {
            let local = text(name)?;
            aliases.insert(local.clone(), "*".to_string());
            names.push(local);
        }
        "object_pattern" => {
            let mut cursor = name.walk();
            for part in name.named_children(&mut cursor) {
                match part.kind() {
                    "shorthand_property_identifier_pattern" => names.extend(text(part)),
                    "pair_pattern" => {
                        let key = part.child_by_field_name("key").and_then(text);
                        let value = part
                            .child_by_field_name("value")
                            .filter(|v| v.kind() == "identifier")
                            .and_then(text);
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
    Some((module, names, aliases))
}

/// The import a statement `require('./x');` makes.
pub(super) fn statement(node: Node, source: &[u8]) -> Option<Required> {
    let call = node.named_child(0)?;
    let module = required_module(call, source)?;
    Some((module, Vec::new(), BTreeMap::new()))
}
