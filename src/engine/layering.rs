//! Checks the engine's map (see `engine/mod.rs`): its folders depend only on
//! the ones below them in the table, and no engine file uses a terminal or
//! command-line crate or writes to the process's stdout or stderr.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The engine's folders, bottom up: each may use only those before it.
const LAYERS: &[&str] = &[
    "pack", "lint", "error", "store", "project", "harness", "context", "policy", "exec", "ops",
];

/// Crates and calls the engine must not use: it knows nothing of terminals
/// or clap, and it never prints (front-ends do).
const FORBIDDEN: &[&str] = &[
    "ratatui",
    "crossterm",
    "clap",
    "println!",
    "print!",
    "eprintln!",
    "eprint!",
    "dbg!",
    "io::stdout()",
    "io::stderr()",
];

fn engine_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine")
}

/// Every `.rs` file under `dir` (also what the TUI's circle test reads).
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The layer a file belongs to: its first folder under `src/engine/`, or its
/// stem for a file at the top (`error.rs`).
fn layer_of(path: &Path) -> Option<&'static str> {
    let rel = path.strip_prefix(engine_dir()).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    LAYERS.iter().copied().find(|l| *l == name)
}

/// The code of a file, without `//` comments (docs may name anything).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn engine_folders_use_only_the_layers_below_them() {
    let mut files = Vec::new();
    rust_files(&engine_dir(), &mut files);
    let mut wrong = BTreeSet::new();
    for file in &files {
        let Some(layer) = layer_of(file) else {
            continue;
        };
        let rank = LAYERS.iter().position(|l| *l == layer).unwrap_or(0);
        let text = code(&std::fs::read_to_string(file).unwrap_or_default());
        for (used_rank, used) in LAYERS.iter().enumerate() {
            let uses = text.contains(&format!("engine::{used}::"))
                || text.contains(&format!("engine::{used};"))
                || text.contains(&format!("engine::{used}}}"));
            if uses && used_rank > rank {
                wrong.insert(format!("{} ({layer}) uses {used}", file.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "layering broken:\n{wrong:#?}");
}

#[test]
fn engine_uses_no_terminal_or_cli_crate_and_never_prints() {
    let mut files = Vec::new();
    rust_files(&engine_dir(), &mut files);
    assert!(files.len() > 20, "found only {} engine files", files.len());
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("layering.rs")) {
        let text = code(&std::fs::read_to_string(file).unwrap_or_default());
        for word in FORBIDDEN {
            if text.contains(word) {
                found.push(format!("{}: {word}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the engine must not use these:\n{found:#?}"
    );
}

/// The test hooks (§14.11) exist only in debug builds: every `HCPX_TEST_`
/// the source reads (the engine's and the front-ends') is inside the one
/// `#[cfg(debug_assertions)]` hook function of `store/mod.rs`, whose
/// release twin does nothing.
#[test]
fn test_hooks_only_in_debug_builds() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut outside = Vec::new();
    let mut inside = 0;
    for file in files.iter().filter(|f| !f.ends_with("layering.rs")) {
        let text = code(&std::fs::read_to_string(file).unwrap_or_default());
        let hooks = if file.ends_with("store/mod.rs") {
            let start = text.find("#[cfg(debug_assertions)]\npub fn step(");
            let end = start.and_then(|s| text[s..].find("\n}\n").map(|e| s + e));
            start.zip(end)
        } else {
            None
        };
        for (at, _) in text.match_indices("HCPX_TEST_") {
            match hooks {
                Some((start, end)) if (start..end).contains(&at) => inside += 1,
                _ => outside.push(format!("{}: byte {at}", file.display())),
            }
        }
    }
    assert!(inside >= 3, "the debug-only hook function was not found");
    assert!(
        outside.is_empty(),
        "HCPX_TEST_ read outside the #[cfg(debug_assertions)] hook:\n{outside:#?}"
    );
}

/// Where `text` (code, comments left out) holds a command line: `hcpx`
/// followed by one of its subcommands, as a hint in words would write it.
fn command_lines(text: &str) -> usize {
    let subs = crate::command::line::subcommands(&[]);
    text.match_indices("hcpx ")
        .filter(|(at, _)| {
            let rest = &text[at + 5..];
            subs.iter().any(|sub| {
                rest.strip_prefix(sub.as_str())
                    .is_some_and(|after| after.starts_with([' ', '`', '"', ')', ',']))
            })
        })
        .count()
}

/// The engine never formats a command line: a fix is data
/// ([`crate::engine::error::Fix`], in words a [`crate::engine::error::Hint`])
/// that the front-ends render with the user's flags and quoting (issue 18).
#[test]
fn engine_writes_no_command_line() {
    let mut files = Vec::new();
    rust_files(&engine_dir(), &mut files);
    let mut found: std::collections::BTreeMap<String, usize> = Default::default();
    for file in files.iter().filter(|f| !f.ends_with("layering.rs")) {
        let text = code(&std::fs::read_to_string(file).unwrap_or_default());
        let n = command_lines(&text);
        if n > 0 {
            let name = file.strip_prefix(engine_dir()).unwrap_or(file);
            *found.entry(name.display().to_string()).or_default() += n;
        }
    }
    assert!(
        found.is_empty(),
        "a command line in the engine: return a Fix (or a Hint naming it) instead:\n{found:#?}"
    );
    assert_eq!(command_lines("run `hcpx lint {}` for every finding"), 1);
    assert_eq!(command_lines("hcpx is stopping; hcpx writes Skills"), 0);
}

/// The three front-ends (CLI, TUI, MCP server) do not import each other
/// (the command layer is what they share; `src/binary.rs` hands the CLI
/// the TUI's and the server's launchers). The command layer uses none.
#[test]
fn front_ends_do_not_import_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (dir, forbidden) in [
        ("tui", &["crate::cli", "crate::mcp"][..]),
        ("cli", &["crate::tui", "crate::mcp"][..]),
        ("mcp", &["crate::cli", "crate::tui"][..]),
        ("command", &["crate::cli", "crate::tui", "crate::mcp"][..]),
    ] {
        let mut files = Vec::new();
        rust_files(&src.join(dir), &mut files);
        for file in &files {
            let text = code(&std::fs::read_to_string(file).unwrap_or_default());
            for word in forbidden.iter().filter(|w| text.contains(**w)) {
                wrong.push(format!("{}: {word}", file.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "front-ends importing each other:\n{wrong:#?}"
    );
}

/// One removal that never follows a link (§15.6): no file of `src/` but
/// `engine/store/remove.rs` deletes a tree itself (`remove_dir_all`).
#[test]
fn only_one_recursive_removal() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let word = ["remove", "_dir_all"].concat();
    let wrong: Vec<String> = files
        .iter()
        .filter(|f| !f.ends_with("store/remove.rs"))
        .filter(|f| code(&std::fs::read_to_string(f).unwrap_or_default()).contains(&word))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        wrong.is_empty(),
        "delete trees with store::remove::remove_below instead:\n{wrong:#?}"
    );
}
