//! `<store>/config.yaml` (HCP.md §11.6, §13.2): the catalogs hcpx searches.
//!
//! A `catalogs:` item is a folder, or a git source (`git+URL..`,
//! `github:..`) whose local copy `<store>/catalogs/git-<hash>/` is what is
//! read ([`git_catalog_dir`]); only `hcpx catalog add` and `catalog update`
//! fetch it.
//!
//! [`set_list`] rewrites one top-level key of the file as a list and keeps
//! every other line (comments included) as it was.

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::document;
use crate::engine::store::source::{GitSource, InstallSource};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The store's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Catalog folders to read, resolved against the config file's folder
    /// (a git catalog's local copy).
    pub catalogs: Vec<PathBuf>,
    /// Enabled harness targets (§12.5), as written.
    pub harnesses: Vec<String>,
    /// The `catalogs:` items as written, beside what they resolve to.
    pub catalog_sources: Vec<CatalogSource>,
    /// Folders accepted as projects whoever owns them (§15.1), as
    /// written; `*` accepts every folder.
    pub safe_directories: Vec<String>,
}

/// One `catalogs:` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogSource {
    /// As written in `config.yaml`.
    pub written: String,
    /// The folder read (for git: the local copy).
    pub path: PathBuf,
    /// The git source, for a git catalog.
    pub git: Option<GitSource>,
}

/// The local copy of a git catalog: `<store>/catalogs/git-<hash>`, the
/// hash over the source as written (so one URL at two refs is two copies).
pub fn git_catalog_dir(store_root: &Path, git: &GitSource) -> PathBuf {
    let key = format!(
        "{}\0{}\0{}",
        git.url,
        git.subdir.as_deref().unwrap_or(""),
        git.reference.as_deref().unwrap_or("")
    );
    let hash = Sha256::digest(key.as_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    store_root.join("catalogs").join(format!("git-{hex}"))
}

/// Resolves one written `catalogs:` item; `base` is the config's folder.
pub fn catalog_source(base: &Path, written: &str) -> Result<CatalogSource> {
    if written.starts_with("git+") || written.starts_with("github:") {
        let InstallSource::Git(git) = InstallSource::parse(written)? else {
            return Err(Error::usage(format!("`{written}` is not a git source")));
        };
        let root = git_catalog_dir(base, &git);
        let path = match &git.subdir {
            Some(subdir) => root.join(subdir),
            None => root,
        };
        return Ok(CatalogSource {
            written: written.to_string(),
            path,
            git: Some(git),
        });
    }
    Ok(CatalogSource {
        written: written.to_string(),
        path: base.join(expand_home(written)),
        git: None,
    })
}

/// Reads `config.yaml`; a missing file is the default configuration. A file
/// that is not UTF-8, does not parse, is not a mapping (an empty file or one
/// of comments only is the default), or whose `catalogs` is not a list of
/// folder paths is `store_corrupt`, naming the file and the line.
pub fn read(path: &Path) -> Result<Config> {
    let bytes = match super::read_store_file(path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(Config::default()),
        Err(err) => return Err(Error::io("cannot read", path, &err)),
    };
    let corrupt = |line: Option<usize>, why: String| {
        let place = line.map_or_else(
            || path.display().to_string(),
            |l| format!("{}:{l}", path.display()),
        );
        Error::new(ErrorCode::StoreCorrupt, format!("{place}: {why}"))
            .path(path.display().to_string())
            .hint("fix the file by hand; hcpx never rewrites it")
    };
    let text = String::from_utf8(bytes).map_err(|err| {
        let line = err.as_bytes()[..err.utf8_error().valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        corrupt(Some(line), "not valid UTF-8 text".into())
    })?;
    let doc = document::parse_yaml(&text).map_err(|e| corrupt(e.pos.map(|p| p.line), e.message))?;
    if doc.value == document::Value::Null {
        return Ok(Config::default());
    }
    if doc.as_map().is_none() {
        return Err(corrupt(
            Some(doc.pos.line),
            format!(
                "the file must be a mapping (e.g. `catalogs: [DIR]`), not {}",
                doc.type_name()
            ),
        ));
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let mut config = Config::default();
    match doc.get("catalogs") {
        None => {}
        Some(node) if node.value == document::Value::Null => {}
        Some(node) => {
            let items = node.as_seq().ok_or_else(|| {
                corrupt(
                    Some(node.pos.line),
                    format!(
                        "`catalogs` must be a list of folders, not {}",
                        node.type_name()
                    ),
                )
            })?;
            for item in items {
                let dir = item.as_str().ok_or_else(|| {
                    corrupt(
                        Some(item.pos.line),
                        "each catalog must be a folder path".into(),
                    )
                })?;
                let source = catalog_source(base, dir)
                    .map_err(|err| corrupt(Some(item.pos.line), err.message))?;
                config.catalogs.push(source.path.clone());
                config.catalog_sources.push(source);
            }
        }
    }
    config.harnesses = string_list(&doc, "harnesses", &corrupt)?;
    config.safe_directories = string_list(&doc, "safe_directories", &corrupt)?;
    Ok(config)
}

/// A top-level key holding a list of strings; absent or null is empty.
fn string_list(
    doc: &document::Node,
    key: &str,
    corrupt: &dyn Fn(Option<usize>, String) -> Error,
) -> Result<Vec<String>> {
    match doc.get(key) {
        None => Ok(Vec::new()),
        Some(node) if node.value == document::Value::Null => Ok(Vec::new()),
        Some(node) => {
            let items = node
                .as_seq()
                .ok_or_else(|| corrupt(Some(node.pos.line), format!("`{key}` must be a list")))?;
            items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_string).ok_or_else(|| {
                        corrupt(
                            Some(item.pos.line),
                            format!("each of `{key}` must be a name"),
                        )
                    })
                })
                .collect()
        }
    }
}

/// Rewrites the top-level `key:` of a YAML mapping's text as a block list
/// of `items` (JSON-quoted strings), keeping every other line; appends the
/// key when it is absent. The key's old value is its line and the lines
/// after it that are indented, list items or blank.
pub fn set_list(text: &str, key: &str, items: &[String]) -> String {
    let mut value = format!("{key}:");
    if items.is_empty() {
        value.push_str(" []");
    }
    value.push('\n');
    for item in items {
        let quoted = serde_json::to_string(item).unwrap_or_else(|_| format!("{item:?}"));
        value.push_str(&format!("  - {quoted}\n"));
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let prefix = format!("{key}:");
    let Some(start) = lines.iter().position(|l| {
        l.strip_prefix(&prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\n', '\r', '#']))
    }) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&value);
        return out;
    };
    let mut end = start + 1;
    while end < lines.len() {
        let line = lines[end];
        let continues = line.starts_with([' ', '\t', '-']) || line.trim().is_empty();
        if !continues {
            break;
        }
        end += 1;
    }
    // Blank lines at the end of the old value stay where they were.
    while end > start + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut out: String = lines[..start].concat();
    out.push_str(&value);
    out.push_str(&lines[end..].concat());
    out
}

/// `~/x` → `$HOME/x`.
fn expand_home(dir: &str) -> PathBuf {
    match (dir.strip_prefix("~/"), directories::BaseDirs::new()) {
        (Some(rest), Some(dirs)) => dirs.home_dir().join(rest),
        _ => PathBuf::from(dir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harnesses_are_set_keeping_comments_and_other_keys() {
        let text = "# mine\ncatalogs: []\nharnesses:\n  - codex\n# after\n";
        let names = ["agents".to_string(), "codex".to_string()];
        let set = set_list(text, "harnesses", &names);
        assert_eq!(
            set,
            "# mine\ncatalogs: []\nharnesses:\n  - \"agents\"\n  - \"codex\"\n# after\n"
        );
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, &set).unwrap_or_else(|e| panic!("{e}"));
        let config = read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.harnesses, ["agents", "codex"]);
    }

    #[test]
    fn reads_catalogs_relative_to_the_file() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, "catalogs:\n  - cat\n  - /abs/cat\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let config = read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            config.catalogs,
            vec![dir.path().join("cat"), PathBuf::from("/abs/cat")]
        );
    }

    #[test]
    fn set_list_keeps_comments_and_other_keys() {
        let text = "# top\ncatalogs:\n  - old # note\n  - older\n\n# harnesses\nharnesses: [x]\n";
        let out = set_list(text, "catalogs", &["a b".into(), "git+file:///r".into()]);
        assert_eq!(
            out,
            "# top\ncatalogs:\n  - \"a b\"\n  - \"git+file:///r\"\n\n# harnesses\nharnesses: [x]\n"
        );
        assert_eq!(set_list("x: 1", "catalogs", &[]), "x: 1\ncatalogs: []\n");
        assert_eq!(
            set_list("catalogs: [a]\n", "catalogs", &[]),
            "catalogs: []\n"
        );
        assert_eq!(
            set_list("catalogsx: 1\n", "catalogs", &[]),
            "catalogsx: 1\ncatalogs: []\n"
        );
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, &out).unwrap_or_else(|e| panic!("{e}"));
        let config = read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(config.catalogs[0], dir.path().join("a b"));
        assert!(config.catalog_sources[1].git.is_some());
        assert!(config.catalogs[1].starts_with(dir.path().join("catalogs")));
    }

    #[test]
    fn a_bad_config_names_the_line() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, "catalogs:\n  - [x]\n").unwrap_or_else(|e| panic!("{e}"));
        let err = read(&path).err().unwrap_or_else(|| panic!("accepted"));
        assert_eq!(err.code, ErrorCode::StoreCorrupt);
        assert!(err.message.contains("config.yaml:2"), "{}", err.message);
    }

    fn corrupt(text: &[u8]) -> Error {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        read(&path)
            .err()
            .unwrap_or_else(|| panic!("accepted {text:?}"))
    }

    #[test]
    fn invalid_utf8_is_corrupt_and_names_the_file() {
        let err = corrupt(b"# ok\ncatalogs: [\xff]\n");
        assert_eq!(err.code, ErrorCode::StoreCorrupt);
        assert!(err.message.contains("config.yaml:2"), "{}", err.message);
        assert!(err.message.contains("UTF-8"), "{}", err.message);
    }

    #[test]
    fn a_file_that_is_not_a_mapping_is_corrupt() {
        for text in ["- cat\n- dog\n", "just words\n", "42\n"] {
            let err = corrupt(text.as_bytes());
            assert_eq!(err.code, ErrorCode::StoreCorrupt, "{text}");
            assert!(err.message.contains("config.yaml"), "{}", err.message);
            assert!(err.message.contains("mapping"), "{}", err.message);
        }
    }

    #[test]
    fn catalogs_of_the_wrong_type_are_corrupt() {
        for text in ["catalogs: cat\n", "catalogs: 3\n", "catalogs: {a: b}\n"] {
            let err = corrupt(text.as_bytes());
            assert_eq!(err.code, ErrorCode::StoreCorrupt, "{text}");
            assert!(err.message.contains("config.yaml:1"), "{}", err.message);
        }
    }

    #[test]
    fn an_empty_file_or_comments_only_is_the_default() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("config.yaml");
        for text in ["", "# nothing here\n", "catalogs:\n"] {
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(read(&path).ok(), Some(Config::default()), "{text:?}");
        }
    }
}
