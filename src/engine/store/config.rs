//! `<store>/config.yaml` (HCP.md §11.6): the catalogs hcpx searches.

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::document;
use std::path::{Path, PathBuf};

/// The store's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Catalog folders, resolved against the config file's folder.
    pub catalogs: Vec<PathBuf>,
    /// Enabled harness targets (§12.5), as written.
    pub harnesses: Vec<String>,
}

/// Reads `config.yaml`; a missing file is the default configuration. A file
/// that is not UTF-8, does not parse, is not a mapping (an empty file or one
/// of comments only is the default), or whose `catalogs` is not a list of
/// folder paths is `store_corrupt`, naming the file and the line.
pub fn read(path: &Path) -> Result<Config> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
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
                config.catalogs.push(base.join(expand_home(dir)));
            }
        }
    }
    config.harnesses = string_list(&doc, "harnesses", &corrupt)?;
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

/// `text` (a `config.yaml`) with its top-level `harnesses:` entry set to
/// `names`: the old entry's lines (the key and its indented or `- ` item
/// lines) are replaced, or a new entry appended. Comments and every other
/// key are kept as written.
pub fn with_harnesses(text: &str, names: &[&str]) -> String {
    let entry = format!("harnesses: [{}]\n", names.join(", "));
    let mut out = String::with_capacity(text.len() + entry.len());
    let mut lines = text.split_inclusive('\n').peekable();
    let mut placed = false;
    while let Some(line) = lines.next() {
        let is_key = line.starts_with("harnesses:") || line.starts_with("\"harnesses\":");
        if !is_key || placed {
            out.push_str(line);
            continue;
        }
        out.push_str(&entry);
        placed = true;
        while let Some(next) = lines.peek() {
            let continues =
                next.starts_with(' ') || next.starts_with('\t') || next.starts_with('-');
            if !continues {
                break;
            }
            lines.next();
        }
    }
    if !placed {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&entry);
    }
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
        let set = with_harnesses(text, &["agents", "codex"]);
        assert_eq!(
            set,
            "# mine\ncatalogs: []\nharnesses: [agents, codex]\n# after\n"
        );
        let appended = with_harnesses("catalogs: []", &["agents"]);
        assert_eq!(appended, "catalogs: []\nharnesses: [agents]\n");
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
