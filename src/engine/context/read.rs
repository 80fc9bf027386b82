//! Reading a harness's Skill folders for the ledger (HCP.md §17.1, §17.8):
//! every Skill folder there, placed by hcpx or not, a link to a folder
//! followed as the harnesses follow it, and of each `SKILL.md` only its
//! frontmatter (and, when it has no description, the first line of its
//! body), never more than [`MAX_SKILL_BYTES`]. A `SKILL.md` that cannot be
//! read is a [`FoundSkill`] with an error, never a failure of the report:
//! it is opened with `O_NONBLOCK`, so a FIFO cannot make the read wait,
//! and checked to be a regular file before a byte is read.

use crate::engine::harness::place::MARKER;
use crate::engine::pack::document::{Node, Value, parse_yaml};
use crate::engine::pack::grammar;
use crate::engine::project::Scope;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest `SKILL.md` the ledger reads (§17.1).
pub const MAX_SKILL_BYTES: u64 = 1_000_000;
/// The largest marker or settings file read.
const MAX_SMALL_BYTES: u64 = 1_000_000;
/// What is read at a time until the frontmatter is whole.
const CHUNK: usize = 8 * 1024;

/// One Skill folder of a harness's folder.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundSkill {
    /// The Skill folder's name.
    pub folder: String,
    pub scope: Scope,
    /// Its `SKILL.md`, as found (`<root>/<folder>/SKILL.md`).
    pub skill_md: PathBuf,
    /// The pack hcpx placed it for (its marker), else `None`.
    pub pack_id: Option<String>,
    /// What its frontmatter says, or why it could not be read.
    pub front: Result<Front, String>,
}

/// The frontmatter keys the listings use (§17.2, §17.3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Front {
    pub name: Option<String>,
    pub description: Option<String>,
    pub when_to_use: Option<String>,
    pub disable_model_invocation: bool,
    /// The first non-empty line of the body, trimmed (the whole file is
    /// the body when it has no frontmatter).
    pub first_body_line: Option<String>,
}

/// Every Skill folder of `root` (a folder holding `SKILL.md`; hidden
/// entries are not Skills), sorted by name. A root that does not exist or
/// cannot be listed has none.
pub fn read_root(root: &Path, scope: Scope) -> Vec<FoundSkill> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    // Many Skills are read on a few threads, each a run of the names, so
    // the order stays the names'.
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(4);
    if names.len() < 64 || threads < 2 {
        return names
            .into_iter()
            .filter_map(|name| read_skill(root, name, scope))
            .collect();
    }
    let per = names.len().div_ceil(threads);
    std::thread::scope(|s| {
        let runs: Vec<_> = names
            .chunks(per)
            .map(|run| {
                s.spawn(move || {
                    run.iter()
                        .filter_map(|name| read_skill(root, name.clone(), scope))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        runs.into_iter()
            .flat_map(|run| run.join().unwrap_or_default())
            .collect()
    })
}

/// One entry of a root: `None` when it is no Skill folder (not a folder,
/// even through a link, or no `SKILL.md` in it).
fn read_skill(root: &Path, folder: String, scope: Scope) -> Option<FoundSkill> {
    let dir = root.join(&folder);
    if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let skill_md = dir.join("SKILL.md");
    match std::fs::symlink_metadata(&skill_md) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return None,
        _ => {}
    }
    let front = read_bounded(&skill_md, MAX_SKILL_BYTES, true).map(|text| front_of(&text));
    Some(FoundSkill {
        pack_id: marker_pack_id(&dir),
        folder,
        scope,
        skill_md,
        front,
    })
}

/// The `pack_id` of hcpx's marker in `dir`, when hcpx placed it (§12.6).
fn marker_pack_id(dir: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Marker {
        pack_id: String,
    }
    let file = crate::engine::lint::files::open_regular(&dir.join(MARKER)).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_SMALL_BYTES).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice::<Marker>(&bytes)
        .ok()
        .map(|m| m.pack_id)
        .filter(|id| grammar::is_pack_id(id))
}

/// Opens `path` (a link followed) without waiting on a FIFO, refusing
/// anything but a regular file of at most `limit` bytes.
fn open_bounded(path: &Path, limit: u64) -> Result<File, String> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    let flags = i32::try_from(OFlags::NONBLOCK.bits()).unwrap_or(0);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| io_words(&e))?;
    let meta = file.metadata().map_err(|e| io_words(&e))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > limit {
        return Err(format!("over {} bytes", thousands(limit)));
    }
    Ok(file)
}

/// Reads `path` as text, bounded; with `frontmatter_only`, stops once the
/// frontmatter and the first line of the body are in.
pub fn read_bounded(path: &Path, limit: u64, frontmatter_only: bool) -> Result<String, String> {
    let mut file = open_bounded(path, limit)?;
    let mut bytes = Vec::with_capacity(CHUNK);
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = file.read(&mut chunk).map_err(|e| io_words(&e))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > limit {
            return Err(format!("over {} bytes", thousands(limit)));
        }
        if frontmatter_only && enough(&bytes) {
            // Only whole lines count: the last one may be cut.
            let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
            bytes.truncate(end);
            break;
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether the whole lines of `bytes` hold the frontmatter and the first
/// non-empty line of the body after it.
fn enough(bytes: &[u8]) -> bool {
    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let text = String::from_utf8_lossy(&bytes[..end]);
    let body = match crate::engine::pack::skill::split(&text) {
        Some(parts) => parts.body.to_string(),
        None if starts_with_fence(&text) => return false,
        None => text.to_string(),
    };
    body.lines().any(|l| !l.trim().is_empty())
}

fn starts_with_fence(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().next().is_some_and(|l| l.trim_end() == "---")
}

/// The keys of a `SKILL.md`'s frontmatter; a file without frontmatter,
/// or whose frontmatter is not YAML, has none (its body is all of it).
pub fn front_of(text: &str) -> Front {
    let (doc, body) = match crate::engine::pack::skill::split(text) {
        Some(parts) => (parse_yaml(parts.frontmatter).ok(), parts.body),
        None => (None, text),
    };
    let string = |key: &str| {
        doc.as_ref()
            .and_then(|d| d.get(key))
            .and_then(Node::as_str)
            .map(str::to_string)
    };
    let disable = doc
        .as_ref()
        .and_then(|d| d.get("disable-model-invocation"))
        .is_some_and(|n| match &n.value {
            Value::Bool(b) => *b,
            Value::Str(s) => s == "true",
            _ => false,
        });
    Front {
        name: string("name"),
        description: string("description"),
        when_to_use: string("when_to_use"),
        disable_model_invocation: disable,
        first_body_line: body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string),
    }
}

/// A settings file as JSON, when it reads and parses (§17.2); a missing,
/// huge or broken one counts as absent.
pub fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = read_bounded(path, MAX_SMALL_BYTES, false).ok()?;
    serde_json::from_str(&text).ok()
}

fn io_words(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::NotFound => "not found (a broken link?)".into(),
        _ => format!("cannot be read: {err}"),
    }
}

/// `n` with a comma between thousands (`1,000,000`).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(8000), "8,000");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn front_reads_the_keys_and_the_first_body_line() {
        let f = front_of(
            "---\nname: pdf\ndescription: Reads PDFs\nwhen_to_use: on a .pdf\ndisable-model-invocation: true\n---\n\n# Title\nmore\n",
        );
        assert_eq!(f.name.as_deref(), Some("pdf"));
        assert_eq!(f.description.as_deref(), Some("Reads PDFs"));
        assert_eq!(f.when_to_use.as_deref(), Some("on a .pdf"));
        assert!(f.disable_model_invocation);
        assert_eq!(f.first_body_line.as_deref(), Some("# Title"));
        let none = front_of("\n  Just a body line  \nsecond\n");
        assert_eq!(none.description, None);
        assert_eq!(none.first_body_line.as_deref(), Some("Just a body line"));
    }

    #[test]
    fn frontmatter_only_stops_after_the_first_body_line() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("SKILL.md");
        let mut text = String::from("---\nname: a\ndescription: d\n---\nfirst\n");
        text.push_str(&"x".repeat(100_000));
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{e}"));
        let read = read_bounded(&path, MAX_SKILL_BYTES, true).unwrap_or_default();
        assert!(read.len() <= CHUNK, "{}", read.len());
        assert_eq!(front_of(&read).first_body_line.as_deref(), Some("first"));
        std::fs::write(&path, "x".repeat(1_000_001)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            read_bounded(&path, MAX_SKILL_BYTES, true),
            Err("over 1,000,000 bytes".to_string())
        );
    }
}
