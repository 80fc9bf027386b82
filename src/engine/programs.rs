//! Finding a `process` adapter's program (HCP.md §6.3): a bare name on PATH,
//! or a `./` path inside the pack that must not leave it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// The program's full path, if it is found and executable.
pub fn find(program: &str, pack_dir: &Path) -> Option<PathBuf> {
    if let Some(rel) = program.strip_prefix("./") {
        let root = pack_dir.canonicalize().ok()?;
        let path = root.join(rel).canonicalize().ok()?;
        return (path.starts_with(&root) && is_executable(&path)).then_some(path);
    }
    if program.contains('/') || program.is_empty() {
        return None;
    }
    on_path(program)
}

/// Looks a bare program name up on `$PATH`.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_programs_on_path() {
        assert!(on_path("sh").is_some());
        assert!(on_path("surely-no-such-program-hcpx").is_none());
    }

    #[test]
    fn pack_programs_must_stay_inside() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let pack = dir.path().join("pack");
        std::fs::create_dir_all(pack.join("bin")).unwrap_or_else(|e| panic!("{e}"));
        let script = pack.join("bin/run");
        std::fs::write(&script, "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("outside"), "#!/bin/sh\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(find("./bin/run", &pack).is_none(), "not executable yet");
        for path in [&script, &dir.path().join("outside")] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(find("./bin/run", &pack).is_some());
        assert!(find("./../outside", &pack).is_none());
        assert!(find("bin/run", &pack).is_none());
    }
}
