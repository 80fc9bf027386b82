//! The file and Skill part of the capability diff (HCP.md §13.7):
//! `skill_changed` (lines added and removed in `SKILL.md`), and
//! `file_added`, `file_removed`, `file_changed` for every other file but
//! the manifest (`pack.yaml`, `pack.json`), compared by the per-file hashes
//! and modes of the digest code (§13.4). A new executable file and a file
//! that becomes executable escalate ([`Change::escalates`]).
//!
//! Where the spec is silent: lines are counted by a line diff (`similar`,
//! Myers), a file whose mode alone changed is `file_changed`, paths are
//! shown as UTF-8 (lossily: lint refuses other names, §2.4) in path order.

use super::change::Change;
use crate::engine::store::digest::Tree;

/// Files the manifest part of the diff already covers, or the Skill part.
const NOT_FILES: [&[u8]; 3] = [b"pack.yaml", b"pack.json", b"SKILL.md"];

/// `skill_changed` when the Skill's text differs.
pub fn skill_change(old: &str, new: &str) -> Option<Change> {
    if old == new {
        return None;
    }
    let diff = similar::TextDiff::from_lines(old, new);
    let (mut lines_added, mut lines_removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => lines_added += 1,
            similar::ChangeTag::Delete => lines_removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    Some(Change::SkillChanged {
        lines_added,
        lines_removed,
    })
}

/// The files added, removed and changed (bytes or mode), in path order.
pub fn file_changes(old: &Tree, new: &Tree) -> Vec<Change> {
    let shown = |p: &[u8]| String::from_utf8_lossy(p).into_owned();
    let mut changes = Vec::new();
    let paths: std::collections::BTreeSet<&Vec<u8>> =
        old.files.keys().chain(new.files.keys()).collect();
    for path in paths {
        if NOT_FILES.contains(&path.as_slice()) {
            continue;
        }
        match (old.files.get(path), new.files.get(path)) {
            (None, Some(now)) => changes.push(Change::FileAdded {
                path: shown(path),
                executable: now.executable,
            }),
            (Some(was), None) => changes.push(Change::FileRemoved {
                path: shown(path),
                executable: was.executable,
            }),
            (Some(was), Some(now)) if was != now => changes.push(Change::FileChanged {
                path: shown(path),
                executable: now.executable,
                was_executable: was.executable,
            }),
            _ => {}
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::digest::FileEntry;

    fn tree(files: &[(&str, bool, u8)]) -> Tree {
        let mut tree = Tree::default();
        for (path, executable, byte) in files {
            let entry = FileEntry {
                executable: *executable,
                size: 1,
                sha256: [*byte; 32],
            };
            tree.files.insert(path.as_bytes().to_vec(), entry);
        }
        tree
    }

    #[test]
    fn files_added_removed_and_changed_and_which_escalate() {
        let old = tree(&[
            ("pack.yaml", false, 1),
            ("SKILL.md", false, 1),
            ("a.txt", false, 1),
            ("gone.txt", false, 1),
            ("run.sh", false, 1),
            ("tool", true, 1),
        ]);
        let new = tree(&[
            ("pack.yaml", false, 2),
            ("SKILL.md", false, 2),
            ("a.txt", false, 2),
            ("run.sh", true, 1),
            ("scripts/x.sh", true, 1),
            ("notes.md", false, 1),
            ("tool", true, 1),
        ]);
        let got: Vec<(serde_json::Value, bool)> = file_changes(&old, &new)
            .into_iter()
            .map(|c| (serde_json::to_value(&c).unwrap_or_default(), c.escalates()))
            .collect();
        let want = [
            (
                r#"{"kind":"file_changed","path":"a.txt","executable":false,"was_executable":false}"#,
                false,
            ),
            (
                r#"{"kind":"file_removed","path":"gone.txt","executable":false}"#,
                false,
            ),
            (
                r#"{"kind":"file_added","path":"notes.md","executable":false}"#,
                false,
            ),
            (
                r#"{"kind":"file_changed","path":"run.sh","executable":true,"was_executable":false}"#,
                true,
            ),
            (
                r#"{"kind":"file_added","path":"scripts/x.sh","executable":true}"#,
                true,
            ),
        ];
        let want: Vec<(serde_json::Value, bool)> = want
            .iter()
            .map(|(s, e)| (serde_json::from_str(s).unwrap_or_default(), *e))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn skill_lines_are_counted() {
        assert_eq!(skill_change("a\nb\n", "a\nb\n"), None);
        assert_eq!(
            skill_change("a\nb\nc\n", "a\nB\nc\nd\n"),
            Some(Change::SkillChanged {
                lines_added: 2,
                lines_removed: 1
            })
        );
    }
}
