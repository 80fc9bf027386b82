//! Lint (HCP.md §10.4, §10.5; §11.1 "lint" stage): validates a pack directory
//! against §2–§5 without changing any state, reporting every finding it can
//! in one run. The rules are by part: `files` (the directory, §2),
//! `manifest` (§3, §4, §6, §8), `skill` (§5) and `text` (control
//! characters, §14.5); `diagnostic` is what they report. A folder with
//! `SKILL.md` and no manifest is a Skill pack (§2.6): the Skill rules
//! apply, and its implicit manifest is built from the frontmatter.

pub mod diagnostic;
pub mod files;
pub mod manifest;
pub mod skill;
pub mod text;

use crate::engine::lint::diagnostic::{Diagnostic, Position, Rule};
use crate::engine::pack::document;
use crate::engine::pack::manifest::{Manifest, PackKind};
use files::{MAX_MANIFEST_BYTES, MAX_SKILL_BYTES, RootFile};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The two manifest file names (§2.1).
pub const MANIFEST_YAML: &str = "pack.yaml";
pub const MANIFEST_JSON: &str = "pack.json";

/// How to lint.
#[derive(Debug, Clone, Copy, Default)]
pub struct LintOptions {
    /// Allow the reserved ids and the `builtin` adapter: true only for the
    /// runtime's own bootstrap pack (§3.2, §6.5).
    pub bootstrap: bool,
    /// The pack folder's name is not the pack's own: no `skill.name-folder`
    /// warning for a Skill pack (§2.6). True for a Skill at the root of a
    /// git checkout, whose folder is named by hcpx, not by the repository.
    pub folder_name_free: bool,
}

/// The result of linting one pack directory (§10.4).
#[derive(Debug, Clone, Serialize)]
pub struct LintReport {
    pub ok: bool,
    pub pack_id: Option<String>,
    pub path: String,
    /// A pack with a manifest, or a Skill pack (§2.6).
    pub kind: PackKind,
    pub diagnostics: Vec<Diagnostic>,
    /// The manifest as far as it could be read (absent when it could not be
    /// parsed at all).
    #[serde(skip)]
    pub manifest: Option<Manifest>,
    #[serde(skip)]
    pub root: PathBuf,
}

/// How many errors and warnings lint found, said one way everywhere:
/// `1 error and 2 warnings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FindingCounts {
    pub errors: usize,
    pub warnings: usize,
}

impl std::ops::Add for FindingCounts {
    type Output = FindingCounts;
    fn add(self, other: FindingCounts) -> FindingCounts {
        FindingCounts {
            errors: self.errors + other.errors,
            warnings: self.warnings + other.warnings,
        }
    }
}

impl std::fmt::Display for FindingCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} and {}",
            counted(self.errors, "error"),
            counted(self.warnings, "warning")
        )
    }
}

/// `1 error`, `3 errors`: a count said as words, one way everywhere (a
/// word whose plural is not `-s` is not passed here).
pub fn counted(n: usize, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        n => format!("{n} {word}s"),
    }
}

impl LintReport {
    /// The report's errors and warnings, counted.
    pub fn counts(&self) -> FindingCounts {
        FindingCounts {
            errors: self.errors(),
            warnings: self.warnings(),
        }
    }

    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }

    /// Whether the pack passes: no errors, and with `deny_warnings` no
    /// warnings either.
    pub fn passes(&self, deny_warnings: bool) -> bool {
        self.errors() == 0 && (!deny_warnings || self.diagnostics.is_empty())
    }
}

/// Lints the pack at `path`. The path itself may be a link to a folder (the
/// user named it); nothing inside the pack is ever followed.
pub fn lint_pack(path: &Path, options: LintOptions) -> LintReport {
    let mut out = Vec::new();
    let (kind, manifest) = check_pack(path, options, &mut out);
    out.sort_by(|a, b| {
        (file_rank(&a.file), &a.file, a.line, a.column).cmp(&(
            file_rank(&b.file),
            &b.file,
            b.line,
            b.column,
        ))
    });
    let pack_id = manifest
        .as_ref()
        .map(|m| m.id.clone())
        .filter(|id| !id.is_empty());
    LintReport {
        ok: !out.iter().any(Diagnostic::is_error),
        pack_id,
        path: path.display().to_string(),
        kind,
        diagnostics: out,
        manifest,
        root: path.to_path_buf(),
    }
}

/// Pack-level findings first, then the manifest, then the Skill, then the rest.
fn file_rank(file: &str) -> u8 {
    match file {
        "." => 0,
        MANIFEST_YAML | MANIFEST_JSON => 1,
        skill::FILE => 2,
        _ => 3,
    }
}

fn check_pack(
    root: &Path,
    options: LintOptions,
    out: &mut Vec<Diagnostic>,
) -> (PackKind, Option<Manifest>) {
    let Some(tree) = walk_pack(root, out) else {
        return (PackKind::Pack, None);
    };
    let mut ctx = skill::Context {
        bootstrap: options.bootstrap,
        ..skill::Context::default()
    };
    match manifest_file(root, &tree, out) {
        ManifestFile::Skill => {
            let folder = folder_name(root);
            ctx.skill_pack = Some(skill::SkillPack {
                folder: folder.as_deref().filter(|_| !options.folder_name_free),
            });
            let front = check_skill(root, &tree, &ctx, out);
            let manifest = front
                .as_ref()
                .map(crate::engine::pack::skill::implicit_manifest);
            (PackKind::Skill, manifest)
        }
        found => {
            let manifest = match found {
                ManifestFile::File(file) => check_manifest(root, file, &tree, options, out),
                _ => None,
            };
            let keys: Vec<&str> = manifest
                .iter()
                .flat_map(|m| m.commands.iter())
                .map(|c| c.key.as_str())
                .filter(|k| !k.is_empty())
                .collect();
            ctx.keys = &keys;
            check_skill(root, &tree, &ctx, out);
            (PackKind::Pack, manifest)
        }
    }
}

/// The name of the pack folder `root` as the user named it (`.` and `..`
/// resolved), for `skill.name-folder`.
fn folder_name(root: &Path) -> Option<String> {
    let named = std::path::absolute(root).ok()?;
    let name = match named.file_name() {
        Some(name) => name.to_os_string(),
        None => root.canonicalize().ok()?.file_name()?.to_os_string(),
    };
    Some(name.to_string_lossy().into_owned())
}

/// The folder checked and walked (§2); `None`, with the one finding that
/// says why, when it is not a folder or cannot be listed.
fn walk_pack(root: &Path, out: &mut Vec<Diagnostic>) -> Option<files::PackTree> {
    if !check_root_dir(root, out) {
        return None;
    }
    let before = out.len();
    let tree = files::scan(root, out);
    if let Some(err) = &tree.unreadable {
        // The folder cannot be listed: that one finding, nothing else.
        out.truncate(before);
        out.push(Diagnostic::new(
            Rule::PackNotADirectory,
            ".",
            format!("cannot read the pack directory: {}", io_reason(err)),
        ));
        return None;
    }
    Some(tree)
}

/// The id the pack at `path` declares: what [`lint_pack`] reports as its
/// `pack_id`, found the same way but without checking the manifest's rules
/// or reading the Skill. For scans of catalogs, which learn each folder's
/// id before they lint the packs they show.
pub fn declared_id(path: &Path) -> Option<String> {
    declared_manifest(path)
        .as_ref()
        .and_then(manifest_id)
        .map(str::to_string)
}

/// [`declared_id`] of a pack known by the bytes of its root files alone
/// (`root_file(name)`: `pack.yaml`, `pack.json` or `SKILL.md`, `None` where
/// the pack has no such regular file), as read from git without writing
/// them: the same choice of manifest, bounds and parsers as [`lint_pack`].
pub fn declared_id_of<'a>(root_file: impl Fn(&str) -> Option<&'a [u8]>) -> Option<String> {
    let within = |name: &str, max: u64| root_file(name).filter(|b| b.len() as u64 <= max);
    let doc = if root_file(MANIFEST_YAML).is_some() {
        parse_manifest(MANIFEST_YAML, within(MANIFEST_YAML, MAX_MANIFEST_BYTES)?).ok()
    } else if root_file(MANIFEST_JSON).is_some() {
        parse_manifest(MANIFEST_JSON, within(MANIFEST_JSON, MAX_MANIFEST_BYTES)?).ok()
    } else {
        skill_manifest_of(within(skill::FILE, MAX_SKILL_BYTES)?)
    }?;
    manifest_id(&doc).map(str::to_string)
}

/// The manifest document of the pack at `path`, read and parsed as
/// [`lint_pack`] reads it (the same file, bounds and refusals), without
/// checking its rules or reading the Skill; `None` when lint would find no
/// manifest that parses. For readers that need a field or two of many
/// packs (shell completion).
pub fn declared_manifest(path: &Path) -> Option<document::Node> {
    let mut out = Vec::new();
    let tree = walk_pack(path, &mut out)?;
    match manifest_file(path, &tree, &mut out) {
        ManifestFile::File(file) => read_manifest(path, file, &tree, &mut out).ok(),
        ManifestFile::Skill => declared_skill_manifest(path, &tree),
        ManifestFile::None => None,
    }
}

/// A Skill pack's implicit manifest (§2.6) as a document, from its
/// frontmatter read as [`lint_pack`] reads it; `None` when the frontmatter
/// is missing or no YAML mapping.
fn declared_skill_manifest(path: &Path, tree: &files::PackTree) -> Option<document::Node> {
    let mut out = Vec::new();
    let RootFile::Bytes(bytes) = files::read_root_file(
        path,
        skill::FILE,
        MAX_SKILL_BYTES,
        "SKILL.md",
        tree,
        &mut out,
    ) else {
        return None;
    };
    skill_manifest_of(&bytes)
}

/// A Skill pack's implicit manifest from the bytes of its `SKILL.md`.
fn skill_manifest_of(bytes: &[u8]) -> Option<document::Node> {
    let text = std::str::from_utf8(bytes).ok()?;
    let front = document::parse_yaml(crate::engine::pack::skill::split(text)?.frontmatter).ok()?;
    front.as_map()?;
    Some(crate::engine::pack::skill::implicit_document(&front))
}

/// The id a manifest document declares, as the manifest rules take it (and
/// [`lint_pack`] reports it): `id` of a mapping, when a non-empty string.
pub fn manifest_id(doc: &document::Node) -> Option<&str> {
    doc.as_map()?;
    doc.get("id")?.as_str().filter(|id| !id.is_empty())
}

/// Whether `root` is a folder; `pack.not_a_directory` otherwise. (Whether
/// it can be read, the walk of [`files::scan`] tells, which opens it.)
fn check_root_dir(root: &Path, out: &mut Vec<Diagnostic>) -> bool {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            out.push(Diagnostic::new(
                Rule::PackNotADirectory,
                ".",
                "the path is not a directory",
            ));
            return false;
        }
        Err(err) => {
            out.push(Diagnostic::new(
                Rule::PackNotADirectory,
                ".",
                format!("cannot read the pack directory: {}", io_reason(&err)),
            ));
            return false;
        }
    }
    true
}

/// Where a pack's manifest comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ManifestFile {
    /// `pack.yaml` or `pack.json`.
    File(&'static str),
    /// No manifest but `SKILL.md`: a Skill pack (§2.6).
    Skill,
    /// Neither: no pack (reported).
    None,
}

/// The manifest file to check: `pack.yaml` (also when `pack.json` is there
/// too, which is reported), else `pack.json`, else the implicit manifest
/// of a Skill pack when `SKILL.md` is there, else none (reported).
fn manifest_file(root: &Path, tree: &files::PackTree, out: &mut Vec<Diagnostic>) -> ManifestFile {
    let has = |name| match tree.root_entry(name) {
        files::RootLookup::NotListed => has_root_file(root, name),
        files::RootLookup::Missing | files::RootLookup::Found(files::RootEntry::Dir) => false,
        files::RootLookup::Found(_) => true,
    };
    let yaml = has(MANIFEST_YAML);
    let json = has(MANIFEST_JSON);
    match (yaml, json) {
        (true, true) => {
            out.push(
                Diagnostic::new(
                    Rule::PackManifestAmbiguous,
                    ".",
                    "the pack has both pack.yaml and pack.json",
                )
                .hint("keep one manifest; pack.yaml was checked"),
            );
            ManifestFile::File(MANIFEST_YAML)
        }
        (true, false) => ManifestFile::File(MANIFEST_YAML),
        (false, true) => ManifestFile::File(MANIFEST_JSON),
        (false, false) if has(skill::FILE) => ManifestFile::Skill,
        (false, false) => {
            out.push(
                Diagnostic::new(
                    Rule::PackManifestMissing,
                    ".",
                    "the folder has no pack.yaml, pack.json or SKILL.md",
                )
                .hint("a pack needs SKILL.md (a plain Agent Skill is a pack), and a pack.yaml manifest to declare commands (HCP §2, §3)"),
            );
            ManifestFile::None
        }
    }
}

/// Reads, parses and checks the manifest `file`; the [`Manifest`] when it
/// parses.
fn check_manifest(
    root: &Path,
    file: &'static str,
    tree: &files::PackTree,
    options: LintOptions,
    out: &mut Vec<Diagnostic>,
) -> Option<Manifest> {
    match read_manifest(root, file, tree, out) {
        Ok(doc) => {
            let ctx = manifest::Context {
                file,
                files: &tree.files,
                bootstrap: options.bootstrap,
            };
            Some(manifest::check(&doc, &ctx, out))
        }
        Err(Some(err)) => {
            out.push(Diagnostic::new(Rule::ManifestParse, file, err.message).at(err.pos));
            None
        }
        Err(None) => None,
    }
}

/// Reads and parses the manifest `file`: its document, else why it does
/// not parse (`None`: it could not be read, already reported).
fn read_manifest(
    root: &Path,
    file: &'static str,
    tree: &files::PackTree,
    out: &mut Vec<Diagnostic>,
) -> Result<document::Node, Option<document::ParseError>> {
    let RootFile::Bytes(bytes) =
        files::read_root_file(root, file, MAX_MANIFEST_BYTES, "the manifest", tree, out)
    else {
        return Err(None);
    };
    parse_manifest(file, &bytes)
}

/// The manifest document in `bytes`, the contents of the manifest `file`.
fn parse_manifest(
    file: &'static str,
    bytes: &[u8],
) -> Result<document::Node, Option<document::ParseError>> {
    std::str::from_utf8(bytes)
        .map_err(|err| document::ParseError {
            message: "the manifest is not valid UTF-8".into(),
            pos: Some(text_position(bytes, err.valid_up_to())),
        })
        .and_then(|text| {
            // A UTF-8 byte order mark is accepted in both formats (as
            // in SKILL.md); serde_json alone would refuse it.
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            if file == MANIFEST_JSON {
                document::parse_json(text)
            } else {
                document::parse_yaml(text)
            }
        })
        .map_err(Some)
}

/// Reads and checks `SKILL.md` (against the manifest's verb keys, or as a
/// Skill pack's); its frontmatter when that is a YAML mapping.
fn check_skill(
    root: &Path,
    tree: &files::PackTree,
    ctx: &skill::Context<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<document::Node> {
    match files::read_root_file(root, skill::FILE, MAX_SKILL_BYTES, "SKILL.md", tree, out) {
        RootFile::Missing => {
            out.push(
                Diagnostic::new(Rule::SkillMissing, skill::FILE, "the pack has no SKILL.md")
                    .hint("add SKILL.md: YAML frontmatter (name, description), then instructions for the agent"),
            );
            None
        }
        RootFile::Refused => None,
        RootFile::Bytes(bytes) => skill::check(&bytes, ctx, out),
    }
}

/// Whether the pack root has an entry `name` that counts as that file: a
/// folder named like a manifest is not one (§2.1); a link or special file
/// is, and is refused when read.
pub fn has_root_file(root: &Path, name: &str) -> bool {
    root.join(name)
        .symlink_metadata()
        .is_ok_and(|meta| !meta.is_dir())
}

fn io_reason(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => err.to_string(),
    }
}

/// The 1-based line and column of byte `offset` in `bytes`.
pub fn text_position(bytes: &[u8], offset: usize) -> Position {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    Position { line, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_packs_id_is_declared_from_its_frontmatter() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let skill =
            "---\nname: pdf-tools\ndescription: D.\nmetadata: {version: 2.0.0}\n---\nBody\n";
        std::fs::write(dir.path().join(skill::FILE), skill).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(declared_id(dir.path()).as_deref(), Some("pdf-tools"));
        let doc = declared_manifest(dir.path()).unwrap_or_else(|| panic!("no document"));
        assert_eq!(doc.get("version").and_then(|v| v.as_str()), Some("2.0.0"));
        let report = lint_pack(dir.path(), LintOptions::default());
        assert_eq!(report.kind, PackKind::Skill);
        assert_eq!(report.pack_id.as_deref(), Some("pdf-tools"));
        // The temporary folder's name is not the Skill's: a warning, unless
        // the caller says the folder's name is not the pack's.
        let rules: Vec<_> = report.diagnostics.iter().map(|d| d.rule).collect();
        assert_eq!(rules, [Rule::SkillNameFolder]);
        let free = LintOptions {
            folder_name_free: true,
            ..LintOptions::default()
        };
        assert!(lint_pack(dir.path(), free).diagnostics.is_empty());
        std::fs::remove_file(dir.path().join(skill::FILE)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(declared_id(dir.path()), None);
    }

    /// The id read from files in memory is the one lint reads from the
    /// same files on disk, in every case that decides it.
    #[test]
    fn an_id_from_bytes_is_the_id_lint_reads_from_the_folder() {
        let big = format!("id: big\n#{}\n", "x".repeat(300 * 1024));
        let skill = "---\nname: from-skill\ndescription: D.\n---\nBody\n";
        let cases: Vec<Vec<(&str, Vec<u8>)>> = vec![
            vec![(MANIFEST_YAML, b"id: from-yaml\n".to_vec())],
            vec![(MANIFEST_JSON, br#"{"id": "from-json"}"#.to_vec())],
            vec![
                (MANIFEST_YAML, b"id: yaml-wins\n".to_vec()),
                (MANIFEST_JSON, br#"{"id": "json"}"#.to_vec()),
            ],
            vec![
                (MANIFEST_YAML, b"id: [not, closed\n".to_vec()),
                (skill::FILE, skill.as_bytes().to_vec()),
            ],
            vec![(MANIFEST_YAML, big.into_bytes())],
            vec![(MANIFEST_YAML, b"\xefid: x\xff\n".to_vec())],
            vec![(MANIFEST_YAML, "\u{feff}id: bom\n".as_bytes().to_vec())],
            vec![(skill::FILE, skill.as_bytes().to_vec())],
            vec![(skill::FILE, b"no frontmatter\n".to_vec())],
            vec![],
        ];
        for files in cases {
            let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
            for (name, bytes) in &files {
                std::fs::write(dir.path().join(name), bytes).unwrap_or_else(|e| panic!("{e}"));
            }
            let of = |name: &str| {
                let found = files.iter().find(|(n, _)| *n == name);
                found.map(|(_, b)| b.as_slice())
            };
            let names: Vec<_> = files.iter().map(|(n, _)| *n).collect();
            assert_eq!(declared_id_of(of), declared_id(dir.path()), "{names:?}");
        }
    }

    #[test]
    fn counts_are_said_one_way() {
        let c = |errors, warnings| FindingCounts { errors, warnings }.to_string();
        assert_eq!(c(1, 0), "1 error and 0 warnings");
        assert_eq!(c(2, 1), "2 errors and 1 warning");
        let sum = FindingCounts {
            errors: 1,
            warnings: 1,
        } + FindingCounts {
            errors: 1,
            warnings: 0,
        };
        assert_eq!(
            sum,
            FindingCounts {
                errors: 2,
                warnings: 1
            }
        );
    }
}
