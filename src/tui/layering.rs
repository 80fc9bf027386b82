//! Checks the TUI's map (see `tui/mod.rs`): no file of `src/tui` uses,
//! through any chain of others, itself. A file uses another when its code
//! names a path into it: `crate::tui::…`, `super::…`, `self::…` or a child
//! module (`dialog::Dialog` in `app/mod.rs`); the `#[cfg(test)]` module at
//! the end of a file is left out. A circle is printed file by file, with
//! the path that ties each to the next.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module of the TUI, as its path below `crate::tui` (`[]` is
/// `tui/mod.rs`, `["app"]` is `app/mod.rs`).
type Module = Vec<String>;

fn tui_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui")
}

/// The module a file is: `app/colon.rs` is `["app", "colon"]`.
fn module_of(file: &Path) -> Module {
    let rel = file.strip_prefix(tui_dir()).unwrap_or(file);
    let mut parts: Module = rel
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .map(|s| s.strip_suffix(".rs").unwrap_or(s).to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file: no `//` comments, and nothing from its test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths written from `at` on: `a::b::{c, d::e}` is `a::b::c` and
/// `a::b::d::e`; a glob or a name ends a path.
fn paths_at(text: &str, mut at: usize) -> Vec<Module> {
    let bytes = text.as_bytes();
    let mut prefix: Module = Vec::new();
    loop {
        if text[at..].starts_with('{') {
            return group(text, at + 1)
                .into_iter()
                .map(|tail| prefix.iter().cloned().chain(tail).collect())
                .collect();
        }
        let start = at;
        while at < text.len() && is_ident(bytes[at] as char) {
            at += 1;
        }
        if at > start {
            prefix.push(text[start..at].to_string());
        }
        if text[at..].starts_with("::") {
            at += 2;
            continue;
        }
        return vec![prefix];
    }
}

/// The paths of a `{…}` group whose text starts at `at`.
fn group(text: &str, at: usize) -> Vec<Module> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut item = at;
    for (i, c) in text[at..].char_indices() {
        let i = at + i;
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                out.extend(paths_at(text, skip_space(text, item)));
                return out;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(paths_at(text, skip_space(text, item)));
                item = i + 1;
            }
            _ => {}
        }
    }
    out
}

fn skip_space(text: &str, at: usize) -> usize {
    at + text[at..].len() - text[at..].trim_start().len()
}

/// The modules `text`, the code of `module`, uses, with the path that
/// names each.
fn uses(module: &Module, text: &str, modules: &BTreeSet<Module>) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("::") {
        // The first segment of a path: the word before `::`, not itself
        // after another `::`.
        let mut start = at;
        while start > 0 && is_ident(bytes[start - 1] as char) {
            start -= 1;
        }
        if start == at || text[..start].ends_with("::") {
            continue;
        }
        let first = &text[start..at];
        let (mut base, from) = match first {
            "crate" if text[at..].starts_with("::tui::") => (Vec::new(), at + 7),
            "super" => (module[..module.len().saturating_sub(1)].to_vec(), at + 2),
            "self" => (module.clone(), at + 2),
            _ => {
                let mut child = module.clone();
                child.push(first.to_string());
                if !modules.contains(&child) {
                    continue;
                }
                (module.clone(), start)
            }
        };
        let mut from = from;
        while text[from..].starts_with("super::") {
            base.pop();
            from += 7;
        }
        for path in paths_at(text, from) {
            let full: Module = base.iter().cloned().chain(path).collect();
            let used = (0..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|m| modules.contains(m));
            if let Some(used) = used.filter(|u| u != module) {
                out.entry(used).or_insert_with(|| full.join("::"));
            }
        }
    }
    out
}

/// The file graph: each module's uses.
fn graph() -> BTreeMap<Module, BTreeMap<Module, String>> {
    let mut files = Vec::new();
    crate::engine::layering::rust_files(&tui_dir(), &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(f)).collect();
    files
        .iter()
        .map(|file| {
            let text = code(&std::fs::read_to_string(file).unwrap_or_default());
            let module = module_of(file);
            let used = uses(&module, &text, &modules);
            (module, used)
        })
        .collect()
}

/// A circle of the graph, if there is one: modules, each using the next,
/// the last using the first.
fn circle(graph: &BTreeMap<Module, BTreeMap<Module, String>>) -> Option<Vec<Module>> {
    // Depth first; a use of a module still on the stack closes a circle.
    fn visit<'a>(
        node: &'a Module,
        graph: &'a BTreeMap<Module, BTreeMap<Module, String>>,
        stack: &mut Vec<&'a Module>,
        done: &mut BTreeSet<&'a Module>,
    ) -> Option<Vec<Module>> {
        if done.contains(node) {
            return None;
        }
        if let Some(at) = stack.iter().position(|m| *m == node) {
            return Some(stack[at..].iter().map(|m| (*m).clone()).collect());
        }
        stack.push(node);
        for next in graph.get(node).into_iter().flat_map(|u| u.keys()) {
            if let Some(found) = visit(next, graph, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn file_name(module: &Module) -> String {
    let path = module.join("/");
    match tui_dir().join(&path).is_dir() {
        true if path.is_empty() => "tui/mod.rs".into(),
        true => format!("tui/{path}/mod.rs"),
        false => format!("tui/{path}.rs"),
    }
}

#[test]
fn no_file_of_the_tui_uses_itself_through_others() {
    let graph = graph();
    assert!(graph.len() > 20, "found only {} TUI files", graph.len());
    if let Some(circle) = circle(&graph) {
        let mut lines = Vec::new();
        for (i, module) in circle.iter().enumerate() {
            let next = &circle[(i + 1) % circle.len()];
            let path = graph.get(module).and_then(|u| u.get(next));
            lines.push(format!(
                "{} uses {} ({})",
                file_name(module),
                file_name(next),
                path.map_or("?", String::as_str)
            ));
        }
        panic!("an import circle in src/tui:\n  {}", lines.join("\n  "));
    }
}

#[test]
fn the_reader_sees_every_way_a_path_is_written() {
    let modules: BTreeSet<Module> = [
        vec![],
        vec!["app".to_string()],
        vec!["app".to_string(), "dialog".to_string()],
        vec!["text".to_string()],
        vec!["pane".to_string()],
    ]
    .into_iter()
    .collect();
    let app = vec!["app".to_string()];
    let text = "use crate::tui::{pane::Pane, text};\npub use dialog::Dialog;\nuse std::fmt;";
    let used: Vec<Module> = uses(&app, text, &modules).into_keys().collect();
    assert_eq!(
        used,
        vec![
            vec!["app".to_string(), "dialog".to_string()],
            vec!["pane".to_string()],
            vec!["text".to_string()],
        ]
    );
    let dialog = vec!["app".to_string(), "dialog".to_string()];
    let used: Vec<Module> = uses(&dialog, "use super::*;", &modules)
        .into_keys()
        .collect();
    assert_eq!(used, vec![app]);
}
