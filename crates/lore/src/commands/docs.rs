//! `lore docs` (hidden, for contributors): writes or checks the generated
//! reference pages, `docs/reference/commands.md` from the CLI definition
//! and `docs/reference/configuration.md` from `lore.yaml`'s JSON Schema, so
//! the pages cannot drift from the binary (a test runs `--check`).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::{Arg, ArgAction, Args, Command};

#[derive(Debug, Args)]
pub struct DocsArgs {
    /// Folder of the reference pages.
    #[arg(long, value_name = "DIR", default_value = "docs/reference")]
    pub dir: PathBuf,
    /// Only compare the committed pages with what the binary would write;
    /// exit non-zero naming the pages that differ.
    #[arg(long)]
    pub check: bool,
}

/// Writes (or checks) both reference pages.
pub fn run(args: DocsArgs, cli: Command) -> anyhow::Result<()> {
    let pages = [
        ("commands.md", commands_markdown(cli)),
        (
            "configuration.md",
            lore_core::config::config_reference_markdown(),
        ),
    ];
    let mut stale = Vec::new();
    for (name, text) in &pages {
        let path = args.dir.join(name);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == *text {
            continue;
        }
        if args.check {
            stale.push(path.display().to_string());
        } else {
            std::fs::create_dir_all(&args.dir)
                .with_context(|| format!("cannot create {}", args.dir.display()))?;
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    if !stale.is_empty() {
        bail!(
            "{} differ from the binary; run `lore docs` (or \
             `LORE_UPDATE_DOCS=1 cargo test -p lore --test docs_reference`) and commit them",
            stale.join(", ")
        );
    }
    Ok(())
}

/// The command reference: every visible command, its usage and arguments.
pub fn commands_markdown(mut cli: Command) -> String {
    cli.build();
    let mut page = String::from(
        "# Command reference\n\n\
         Generated from the CLI definition by `lore docs`; a test fails when this page \
         and the binary differ. `lore help <command>` prints the same. \
         [cli.md](../cli.md) gives the commands at a glance.\n\n\
         Every command takes `--project-dir DIR` (or `LORE_PROJECT_DIR`); without it, \
         the project is the nearest directory upwards holding a `lore.yaml`.\n",
    );
    let mut path = Vec::new();
    for command in cli.get_subcommands() {
        write_command(&mut page, command, &mut path);
    }
    page
}

fn write_command(page: &mut String, command: &Command, path: &mut Vec<String>) {
    if command.is_hide_set() || command.get_name() == "help" {
        return;
    }
    path.push(command.get_name().to_string());
    let full = format!("lore {}", path.join(" "));
    let _ = write!(page, "\n## `{full}`\n\n");
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        let _ = writeln!(page, "{}\n", about.to_string().trim());
    }
    let usage = command.clone().render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ");
    let _ = writeln!(page, "```text\n{usage}\n```");
    let args: Vec<&Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set() && !arg.is_global_set())
        .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
        .collect();
    if !args.is_empty() {
        page.push_str("\n| argument | description |\n|---|---|\n");
        for arg in args {
            let _ = writeln!(page, "| {} | {} |", arg_name(arg), arg_help(arg));
        }
    }
    for sub in command.get_subcommands() {
        write_command(page, sub, path);
    }
    path.pop();
}

/// `--flag VALUE`, `-c, --connection ID` or `<NAME>`.
fn arg_name(arg: &Arg) -> String {
    let value = arg
        .get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|name| name.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
    let takes_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append);
    let mut name = match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(long)) => format!("`-{short}, --{long}"),
        (None, Some(long)) => format!("`--{long}"),
        (Some(short), None) => format!("`-{short}"),
        (None, None) => return format!("`<{value}>`"),
    };
    if takes_value {
        name.push(' ');
        name.push_str(&value);
    }
    name.push('`');
    name
}

/// The argument's help on one line, with its default, choices and
/// environment variable (the name, never its value).
fn arg_help(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|text| text.to_string())
        .unwrap_or_default();
    let mut text = help.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.is_empty() && !text.ends_with(['.', '!', '?', ')']) {
        text.push('.');
    }
    let choices: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| format!("`{}`", value.get_name()))
        .collect();
    let takes_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append);
    if takes_value && !choices.is_empty() {
        let _ = write!(text, " One of {}.", choices.join(", "));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|value| value.to_string_lossy().into_owned())
        .collect();
    if takes_value && !defaults.is_empty() {
        let _ = write!(text, " Default `{}`.", defaults.join(","));
    }
    if let Some(env) = arg.get_env() {
        let _ = write!(text, " Environment: `{}`.", env.to_string_lossy());
    }
    if arg.is_required_set() {
        text.push_str(" Required.");
    }
    text.trim().replace('|', "\\|")
}
