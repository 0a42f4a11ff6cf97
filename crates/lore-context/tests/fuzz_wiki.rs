//! Generated wiki files: front matter made of YAML token soup, unclosed
//! fences, anchor bombs, deep nesting, NUL bytes, odd Unicode and bytes
//! that are not UTF-8. Parsing answers each with a page or an error saying
//! what is wrong; any page Lore renders parses back to itself; a sync over
//! any files keeps going (a bad file is a reported problem) and settles:
//! a second sync imports nothing.

use std::sync::Arc;

use lore_context::wiki::Wiki;
use lore_context::wiki::page::{FrontMatter, UsageMode, parse, render};
use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_store::feed::StoreHandle;
use proptest::prelude::*;

const TOKENS: &[&str] = &[
    "---\n",
    "---",
    "summary: ",
    "tags: ",
    "refs: ",
    "sl_refs: ",
    "usage_mode: ",
    "always",
    "never",
    "[",
    "]",
    "{",
    "}",
    ", ",
    ":",
    "\n",
    "\r\n",
    "  ",
    "- ",
    "&a ",
    "*a",
    "<<: ",
    "!!str ",
    "'",
    "\"",
    "# c\n",
    "\u{0}",
    "é",
    "\u{feff}",
    "\u{2028}",
    "\u{85}",
    "|\n",
    ">\n",
    "? ",
    "\t",
    "~",
    "[[revenue]]",
    "# Title\n",
    "text ",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|t| t.concat())
}

fn file_text() -> impl Strategy<Value = String> {
    prop_oneof![
        soup().prop_map(|s| format!("---\n{s}")),
        (soup(), soup()).prop_map(|(front, body)| format!("---\n{front}\n---\n{body}")),
        (1usize..3_000).prop_map(|n| format!(
            "---\nsummary: {}x{}\n---\nbody\n",
            "[".repeat(n),
            "]".repeat(n)
        )),
        (1usize..10).prop_map(|levels| {
            let mut front = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
            for i in 1..=levels {
                front.push_str(&format!(
                    "a{i}: &a{i} [{}]\n",
                    vec![format!("*a{}", i - 1); 10].join(", ")
                ));
            }
            format!("---\n{front}tags: *a{levels}\n---\nbody\n")
        }),
        "\\PC{0,200}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    // Any text a summary, tag or reference may hold: one line, no NUL.
    "[^\u{0}\n\r]{0,40}"
}

fn front_matter() -> impl Strategy<Value = FrontMatter> {
    (
        prop::option::of(line()),
        prop::collection::vec(line(), 0..4),
        prop::collection::vec(line(), 0..4),
        prop::collection::vec(line(), 0..4),
        prop::sample::select(vec![UsageMode::Auto, UsageMode::Always, UsageMode::Never]),
        prop::collection::vec(line(), 0..3),
        prop::collection::vec(line(), 0..3),
    )
        .prop_map(
            |(summary, tags, refs, sl_refs, usage_mode, sources, ingest_runs)| FrontMatter {
                summary,
                tags,
                refs,
                sl_refs,
                usage_mode,
                sources,
                ingest_runs,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_file_parses_or_says_what_is_wrong(text in file_text()) {
        if let Err(message) = parse(&text) {
            prop_assert!(!message.is_empty());
        }
    }

    #[test]
    fn a_rendered_page_parses_back_to_itself(front in front_matter(), body in "\\PC{0,200}") {
        let file = render(&front, &body);
        let (parsed, parsed_body) = parse(&file).map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?;
        prop_assert_eq!(parsed, front, "{}", file);
        prop_assert_eq!(parsed_body, format!("{}\n", body.trim_end()));
    }
}

fn project() -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".lore")).unwrap();
    std::fs::create_dir_all(dir.path().join("wiki/global")).unwrap();
    let project = Project::state_only(dir.path());
    (dir, project)
}

#[test]
fn a_sync_over_any_files_reports_problems_and_settles() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    });
    let files = prop::collection::vec(
        (
            // Dot files (editor swap files, .DS_Store) are not pages.
            "[a-zA-Z0-9_é-][a-zA-Z0-9 _.é-]{0,23}",
            prop_oneof![
                file_text().prop_map(String::into_bytes),
                prop::collection::vec(any::<u8>(), 0..200),
            ],
        ),
        1..6,
    );
    runner
        .run(&files, |files| {
            let (dir, project) = project();
            for (name, content) in &files {
                let path = dir.path().join("wiki/global").join(format!("{name}.md"));
                std::fs::write(path, content).unwrap();
            }
            let store = Arc::new(StoreHandle::sqlite(project.store_path()));
            let wiki = Wiki::new(&project, store, "fuzz".into());
            match wiki.sync() {
                Ok(report) => {
                    // Every file is imported or reported, none silently lost.
                    prop_assert!(
                        report.imported.len() + report.problems.len() >= 1,
                        "{report:?}"
                    );
                    let again = wiki.sync().unwrap();
                    prop_assert!(again.imported.is_empty(), "{again:?}");
                    prop_assert_eq!(again.pages, report.pages);
                }
                Err(report) => {
                    prop_assert_ne!(report.code, ErrorCode::Internal, "{}", report.message);
                }
            }
            Ok(())
        })
        .unwrap();
}
