//! Paths recorded relative to a project (HCP.md §15.2): `hcp.lock` and
//! `hcp.yaml` record folders as `./x` inside the project or `../x` beside
//! it, `/`-separated, so a clone elsewhere resolves them the same way.

use std::path::{Component, Path, PathBuf};

/// `path` as `hcp.yaml` and `hcp.lock` record it: relative to `root`,
/// `./x` inside the project or `../x` beside it, `/`-separated. Both must
/// be absolute (else `path` is returned as it is).
pub fn portable_path(root: &Path, path: &Path) -> String {
    let (Ok(root), Ok(path)) = (std::path::absolute(root), std::path::absolute(path)) else {
        return path.display().to_string();
    };
    let clean = |p: &Path| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    parts.pop();
                }
                _ => {}
            }
        }
        parts
    };
    let (root, path) = (clean(&root), clean(&path));
    let common = root.iter().zip(&path).take_while(|(a, b)| a == b).count();
    let ups = root.len() - common;
    let rest = path[common..].join("/");
    if ups == 0 {
        return if rest.is_empty() {
            ".".into()
        } else {
            format!("./{rest}")
        };
    }
    let mut text = vec![".."; ups].join("/");
    if !rest.is_empty() {
        text.push('/');
        text.push_str(&rest);
    }
    text
}

/// A recorded project-relative path made absolute (an absolute one is
/// returned as it is: the caller refuses it where it must).
pub fn resolve_path(root: &Path, recorded: &str) -> PathBuf {
    let path = Path::new(recorded);
    if path.is_absolute() {
        return path.to_path_buf();
    }
    let mut out = root.to_path_buf();
    for c in path.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Whether a recorded path leaves the project (`../`): teammates need the
/// same layout (§15.2).
pub fn leaves_project(recorded: &str) -> bool {
    recorded == ".." || recorded.starts_with("../")
}
