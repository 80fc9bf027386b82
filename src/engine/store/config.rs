//! `<store>/config.yaml` (HCP.md §11.6): the catalogs hcpx searches.

use crate::engine::error::{Error, ErrorCode, Result};
use crate::engine::pack::document;
use std::path::{Path, PathBuf};

/// The store's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Catalog folders, resolved against the config file's folder.
    pub catalogs: Vec<PathBuf>,
}

/// Reads `config.yaml`; a missing file is the default configuration, a file
/// that does not parse is `store_corrupt` naming the line.
pub fn read(path: &Path) -> Result<Config> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
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
    let doc = document::parse_yaml(&text).map_err(|e| corrupt(e.pos.map(|p| p.line), e.message))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut config = Config::default();
    match doc.get("catalogs") {
        None => {}
        Some(node) if node.value == document::Value::Null => {}
        Some(node) => {
            let items = node.as_seq().ok_or_else(|| {
                corrupt(
                    Some(node.pos.line),
                    "`catalogs` must be a list of folders".into(),
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
    Ok(config)
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
}
