//! Skills as MCP resources (HCP.md §16.5): each activated pack whose Sense
//! is active (§7.2) serves its Skill as `hcp://skills/<name>/SKILL.md`
//! (`<name>` the Skill's frontmatter name), `text/markdown`, and every
//! other regular file of the installed pack below the same prefix
//! (`hcp://skills/<name>/scripts/run.sh`), the manifest aside.
//!
//! Only what the listing found is ever read: a `resources/read` URI is
//! looked up among the listed files, never turned into a path, so no URI
//! reaches outside a pack folder. The walk follows no link and opens no
//! FIFO or device (names and `symlink_metadata` only), skips `.git/`, and
//! is bounded (§2.3: at most [`MAX_FILES`] files, [`MAX_DEPTH`] folders
//! deep). A file is read up to [`MAX_READ`] bytes, as text when it is
//! UTF-8, else as a base64 blob. Each path segment of a URI is
//! percent-encoded.

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use std::path::{Path, PathBuf};

/// Most files listed per pack (the §2.3 limit on a pack's files).
pub const MAX_FILES: usize = 1000;
/// Deepest folder looked into.
pub const MAX_DEPTH: usize = 32;
/// Largest file read.
pub const MAX_READ: u64 = 8 * 1024 * 1024;

/// The URI scheme and prefix of every Skill resource.
pub const PREFIX: &str = "hcp://skills/";

/// Characters escaped in a URI path segment.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// One activated pack's Skill and its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillResources {
    pub pack_id: String,
    /// The Skill's frontmatter name.
    pub name: String,
    pub description: String,
    pub dir: PathBuf,
    /// `/`-separated paths in the pack, `SKILL.md` first.
    pub files: Vec<String>,
}

impl SkillResources {
    /// Reads the Skill of the pack installed at `dir`; `None` without a
    /// Skill name.
    pub fn read(pack_id: &str, dir: &Path) -> Option<SkillResources> {
        let text = std::fs::read_to_string(dir.join("SKILL.md")).ok()?;
        let doc = crate::engine::pack::skill::parse(&text)?;
        let name = doc
            .name
            .filter(|n| crate::engine::pack::grammar::is_skill_name(n))?;
        let mut files = vec!["SKILL.md".to_string()];
        files.extend(bundled_files(dir));
        Some(SkillResources {
            pack_id: pack_id.to_string(),
            name,
            description: doc.description.unwrap_or_default(),
            dir: dir.to_path_buf(),
            files,
        })
    }

    pub fn uri(&self, file: &str) -> String {
        let path: Vec<String> = file
            .split('/')
            .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
            .collect();
        format!("{PREFIX}{}/{}", self.name, path.join("/"))
    }

    /// The listed file `uri` names, if any.
    pub fn file_for(&self, uri: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|f| self.uri(f) == uri)
            .map(String::as_str)
    }
}

/// MIME type of a file served as text.
pub fn mime_type(file: &str) -> &'static str {
    let ext = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("sh") => "text/x-shellscript",
        Some("py") => "text/x-python",
        Some("html" | "htm") => "text/html",
        _ => "text/plain",
    }
}

/// The regular files of `dir` but `SKILL.md` and the manifest at its root,
/// sorted, bounded.
fn bundled_files(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git");
    for entry in walk.flatten().take(MAX_FILES * 10) {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let Some(rel) = rel.to_str() else {
            continue;
        };
        if matches!(rel, "SKILL.md" | "pack.yaml" | "pack.json") {
            continue;
        }
        files.push(rel.to_string());
        if files.len() >= MAX_FILES {
            break;
        }
    }
    files
}

/// A listed file's bytes, up to [`MAX_READ`]: `Ok(Err(bytes))` when they
/// are not UTF-8.
pub fn read_file(dir: &Path, file: &str) -> std::io::Result<Result<String, Vec<u8>>> {
    use std::io::Read;
    let path = dir.join(file);
    let meta = std::fs::symlink_metadata(&path)?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)?
        .take(MAX_READ)
        .read_to_end(&mut bytes)?;
    Ok(String::from_utf8(bytes).map_err(|e| e.into_bytes()))
}
