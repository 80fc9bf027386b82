//! Reading and editing `hcp.yaml`: every edit is read back.

use super::*;
use crate::engine::error::ErrorCode;

fn ok(text: &str) -> ProjectFile {
    parse(text).unwrap_or_else(|e| panic!("{:?}: {e}", &text[..text.len().min(400)]))
}

fn err(text: &str) -> String {
    match parse(text) {
        Ok(file) => panic!("accepted {text:?}: {file:?}"),
        Err(e) => {
            assert_eq!(e.code, ErrorCode::Usage, "{e}");
            e.message
        }
    }
}

fn entry(id: &str, source: &str, activate: bool) -> Entry {
    Entry {
        id: id.into(),
        source: source.into(),
        activate,
    }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

const SPEC: &str = "hcp: \"1\"
packs:
  - id: pdf                                   # the pack (a Skill pack here)
    source: github:anthropics/skills//skills/pdf
  - id: acme.notes
    source: ./tools/notes                     # a folder, relative to the project
    activate: false                           # default true
harnesses: [agents, claude-code]              # project targets
";

// ---- reading ----

#[test]
fn reads_the_example() {
    let file = ok(SPEC);
    assert_eq!(
        file.packs,
        [
            entry("pdf", "github:anthropics/skills//skills/pdf", true),
            entry("acme.notes", "./tools/notes", false),
        ]
    );
    assert_eq!(file.harnesses, Some(names(&["agents", "claude-code"])));
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
}

#[test]
fn packs_and_harnesses_may_be_absent_or_empty() {
    for text in [
        "hcp: \"1\"\n",
        "hcp: \"1\"\npacks:\n",
        "hcp: \"1\"\npacks: []\n",
        "hcp: '1.2'\npacks: ~\nharnesses:\n",
    ] {
        let file = ok(text);
        assert!(file.packs.is_empty(), "{text:?}");
        assert_eq!(file.harnesses, None, "{text:?}");
    }
    assert_eq!(ok("hcp: \"1\"\nharnesses: []\n").harnesses, Some(vec![]));
}

#[test]
fn the_version_is_required_and_checked() {
    assert!(err("packs: []\n").contains("`hcp` is missing"));
    let m = err("hcp: 1\n");
    assert!(m.starts_with("hcp.yaml:1:6: "), "{m}");
    assert!(m.contains("in quotes"), "{m}");
    let m = err("hcp: \"2\"\n");
    assert!(m.contains("unsupported version"), "{m}");
    assert!(err("").contains("empty"));
    assert!(err("# only a comment\n").contains("empty"));
    assert!(err("- a\n").contains("must be a mapping"));
}

#[test]
fn bad_yaml_names_the_line_and_column() {
    let m = err("hcp: \"1\"\npacks:\n  - id: a\n   source: [\n");
    assert!(m.starts_with("hcp.yaml:"), "{m}");
    let m = err("hcp: \"1\"\nhcp: \"1\"\n");
    assert!(m.starts_with("hcp.yaml:2:1: duplicate key"), "{m}");
}

#[test]
fn wrong_shapes_are_usage_errors_at_their_place() {
    let cases = [
        (
            "hcp: \"1\"\npacks: pdf\n",
            "hcp.yaml:2:8: `packs` must be a list",
        ),
        ("hcp: \"1\"\npacks:\n  - pdf\n", "hcp.yaml:3:5: each entry"),
        (
            "hcp: \"1\"\npacks:\n  - source: ./x\n",
            "hcp.yaml:3:5: an entry without `id`",
        ),
        (
            "hcp: \"1\"\npacks:\n  - id: Bad_Id\n    source: ./x\n",
            "hcp.yaml:3:9: `Bad_Id` is not a pack id",
        ),
        (
            "hcp: \"1\"\npacks:\n  - id: 12\n    source: ./x\n",
            "hcp.yaml:3:9: `id` must be a pack id, not an integer",
        ),
        (
            "hcp: \"1\"\npacks:\n  - id: hcp-cli\n    source: ./x\n",
            "reserved",
        ),
        ("hcp: \"1\"\npacks:\n  - id: ab\n", "has no `source`"),
        (
            "hcp: \"1\"\npacks:\n  - id: ab\n    source: [x]\n",
            "hcp.yaml:4:13: `source` must be a string",
        ),
        (
            "hcp: \"1\"\npacks:\n  - id: ab\n    source: ./x\n    activate: yes\n",
            "hcp.yaml:5:15: `activate` must be true or false",
        ),
        (
            "hcp: \"1\"\nharnesses: agents\n",
            "hcp.yaml:2:12: `harnesses` must be a list",
        ),
        (
            "hcp: \"1\"\nharnesses: [1]\n",
            "hcp.yaml:2:13: each of `harnesses`",
        ),
        ("hcp: \"1\"\nharnesses: [\"a b\"]\n", "not a harness name"),
    ];
    for (text, want) in cases {
        let m = err(text);
        assert!(m.contains(want), "{text:?}: {m}");
    }
}

#[test]
fn a_second_entry_with_the_same_id_is_an_error_at_the_second() {
    let m = err("hcp: \"1\"\npacks:\n  - id: ab\n    source: ./x\n  - id: ab\n    source: ./y\n");
    assert!(
        m.starts_with("hcp.yaml:5:9: a second entry for `ab`"),
        "{m}"
    );
}

#[test]
fn unknown_keys_are_warnings_and_x_keys_are_ignored() {
    let file = ok(
        "hcp: \"1\"\nx-team: a\nextra: 1\npacks:\n  - id: ab\n    source: ./x\n    pin: 1\n    x-note: hi\n",
    );
    let warnings: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "hcp.yaml:3:1: unknown key `extra` (ignored)",
            "hcp.yaml:7:5: unknown key `pin` in the entry `ab` (ignored)",
        ]
    );
}

#[test]
fn sources_must_be_portable() {
    let accepted = [
        "github:anthropics/skills//skills/pdf",
        "github:acme/packs/notes#v1.0.0",
        "git+https://example.com/r.git//packs/a#main",
        "git+ssh://git@example.com/r.git",
        "anthropics/skills/skills/pdf",
        "https://github.com/acme/packs",
        "https://github.com/acme/packs/tree/main/notes",
        "./tools/notes",
        "tools/notes",
        "notes",
        ".",
    ];
    for source in accepted {
        let text = format!("hcp: \"1\"\npacks:\n  - id: ab\n    source: \"{source}\"\n");
        let file = ok(&text);
        assert!(file.warnings.is_empty(), "{source}: {:?}", file.warnings);
    }
    let refused = [
        ("/abs/notes", "absolute path"),
        ("~/notes", "absolute path"),
        ("https://user:tok@github.com/a/b", "credential"),
        ("git+https://tok@example.com/r.git", "credential"),
        ("git+ssh://git:pw@example.com/r.git", "credential"),
        ("https://example.com/r.git", "is a URL"),
        ("", "empty"),
        ("github:", "github: takes"),
        ("git+-oProxy=x", "must not start with `-`"),
    ];
    for (source, want) in refused {
        let text = format!("hcp: \"1\"\npacks:\n  - id: ab\n    source: \"{source}\"\n");
        let m = err(&text);
        assert!(m.starts_with("hcp.yaml:4:13: "), "{source}: {m}");
        assert!(m.contains(want), "{source}: {m}");
        assert!(!m.contains("tok") && !m.contains("pw@"), "{m}");
    }
}

#[test]
fn a_folder_outside_the_project_is_a_warning() {
    for source in ["../shared/notes", "a/../../b", ".."] {
        let text = format!("hcp: \"1\"\npacks:\n  - id: ab\n    source: {source}\n");
        let file = ok(&text);
        assert_eq!(file.warnings.len(), 1, "{source}");
        assert_eq!((file.warnings[0].line, file.warnings[0].column), (4, 13));
        assert!(file.warnings[0].message.contains("outside the project"));
    }
    assert!(
        ok("hcp: \"1\"\npacks:\n  - id: ab\n    source: a/../b\n")
            .warnings
            .is_empty()
    );
}

#[test]
fn sources_are_classified() {
    assert!(matches!(source_of("github:a/b"), Ok(ProjectSource::Git(_))));
    assert_eq!(
        source_of("notes").ok(),
        Some(ProjectSource::Folder(PathBuf::from("notes")))
    );
    assert!(matches!(
        source_of("a/b"),
        Ok(ProjectSource::FolderOrGithub(..))
    ));
    assert!(source_of("/x").is_err());
}

#[test]
fn hostile_files_are_refused_quickly() {
    let big = format!("hcp: \"1\"\n# {}\n", "x".repeat(MAX_BYTES));
    assert!(err(&big).contains("1 MiB"));
    let m = err("hcp: \"1\"\nx-a: &a [1]\nx-b: *a\n");
    assert!(m.contains("anchors and aliases"), "{m}");
    let m = err(&format!("hcp: \"1\"\nx-deep: {}\n", "[".repeat(100)));
    assert!(m.contains("nested"), "{m}");
}

#[test]
fn crlf_bom_and_no_final_newline_are_read() {
    let file = ok("\u{feff}hcp: \"1\"\r\npacks:\r\n- id: ab\r\n  source: ./x");
    assert_eq!(file.packs, [entry("ab", "./x", true)]);
}

#[test]
fn messages_show_file_text_safely() {
    let m = err("hcp: \"1\"\npacks:\n  - id: \"a\\e[31m\"\n    source: ./x\n");
    assert!(!m.contains('\u{1b}'), "{m:?}");
}

// ---- editing ----

/// `edit(text)` must give `want`, and read back.
fn edits(text: &str, want: &str, edit: impl Fn(&str) -> Result<String>) {
    let out = edit(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(out, want, "from {text:?}");
    ok(&out);
}

#[test]
fn an_entry_is_added_after_the_last_one_keeping_comments() {
    let want = SPEC.replace(
        "harnesses:",
        "  - id: more\n    source: github:acme/more\nharnesses:",
    );
    edits(SPEC, &want, |t| {
        with_entry(t, &Entry::new("more", "github:acme/more"))
    });
}

#[test]
fn an_entry_is_added_to_an_absent_null_or_empty_list() {
    let add = |t: &str| with_entry(t, &entry("ab", "./x", false));
    let lines = "  - id: ab\n    source: ./x\n    activate: false\n";
    edits("hcp: \"1\"\n", &format!("hcp: \"1\"\npacks:\n{lines}"), add);
    edits("hcp: \"1\"", &format!("hcp: \"1\"\npacks:\n{lines}"), add);
    edits(
        "hcp: \"1\"\npacks:\nharnesses: [agents]\n",
        &format!("hcp: \"1\"\npacks:\n{lines}harnesses: [agents]\n"),
        add,
    );
    edits(
        "hcp: \"1\"\npacks: []   # none yet\n# end\n",
        &format!("hcp: \"1\"\npacks:   # none yet\n{lines}# end\n"),
        add,
    );
    edits(
        "hcp: \"1\"\npacks: []\n",
        &format!("hcp: \"1\"\npacks:\n{lines}"),
        add,
    );
    edits(
        "hcp: \"1\"\npacks: ~",
        &format!("hcp: \"1\"\npacks:\n{lines}"),
        add,
    );
}

#[test]
fn an_entry_follows_the_lists_indentation() {
    let add = |t: &str| with_entry(t, &Entry::new("cd", "./y"));
    edits(
        "hcp: \"1\"\npacks:\n- id: ab\n  source: ./x\n",
        "hcp: \"1\"\npacks:\n- id: ab\n  source: ./x\n- id: cd\n  source: ./y\n",
        add,
    );
    edits(
        "hcp: \"1\"\npacks:\n    -   id: ab\n        source: ./x\n",
        "hcp: \"1\"\npacks:\n    -   id: ab\n        source: ./x\n    -   id: cd\n        source: ./y\n",
        add,
    );
    edits(
        "hcp: \"1\"\npacks:\n  -\n    id: ab\n    source: ./x\n",
        "hcp: \"1\"\npacks:\n  -\n    id: ab\n    source: ./x\n  - id: cd\n    source: ./y\n",
        add,
    );
    edits(
        "hcp: \"1\"\npacks:\n  - {id: ab, source: ./x}\n",
        "hcp: \"1\"\npacks:\n  - {id: ab, source: ./x}\n  - id: cd\n    source: ./y\n",
        add,
    );
}

#[test]
fn an_entry_goes_after_comment_lines_indented_under_the_last() {
    edits(
        "hcp: \"1\"\npacks:\n  - id: ab\n    source: ./x\n    # activate: false\n\n# after\n",
        "hcp: \"1\"\npacks:\n  - id: ab\n    source: ./x\n    # activate: false\n  - id: cd\n    source: ./y\n\n# after\n",
        |t| with_entry(t, &Entry::new("cd", "./y")),
    );
}

#[test]
fn crlf_files_stay_crlf_and_keep_their_bom() {
    edits(
        "\u{feff}hcp: \"1\"\r\npacks:\r\n  - id: ab\r\n    source: ./x",
        "\u{feff}hcp: \"1\"\r\npacks:\r\n  - id: ab\r\n    source: ./x\r\n  - id: cd\r\n    source: ./y\r\n",
        |t| with_entry(t, &Entry::new("cd", "./y")),
    );
    edits(
        "hcp: \"1\"\r\npacks:\r\n  - id: ab\r\n    source: ./x\r\n  - id: cd\r\n    source: ./y\r\n",
        "hcp: \"1\"\r\npacks:\r\n  - id: cd\r\n    source: ./y\r\n",
        |t| without_entry(t, "ab"),
    );
    edits(
        "hcp: \"1\"\r\npacks:\r\n  - id: ab\r\n    source: ./x\r\n",
        "hcp: \"1\"\r\npacks:\r\n  - id: ab\r\n    source: ./x\r\n    activate: false\r\n",
        |t| with_activate(t, "ab", false),
    );
}

#[test]
fn replacing_an_entry_changes_its_values_in_place() {
    let text = "hcp: \"1\"\npacks:\n  - id: pdf   # the pack\n    source: 'github:a/b'  # where\n    x-note: keep\n";
    edits(
        text,
        "hcp: \"1\"\npacks:\n  - id: pdf   # the pack\n    source: 'github:a/c#v2'  # where\n    x-note: keep\n    activate: false\n",
        |t| with_entry(t, &entry("pdf", "github:a/c#v2", false)),
    );
    assert_eq!(
        with_entry(text, &Entry::new("pdf", "github:a/b"))
            .ok()
            .as_deref(),
        Some(text)
    );
}

#[test]
fn sources_are_quoted_when_they_need_it() {
    for source in [
        "tools/my notes",
        "./a #b",
        "x: y",
        "true",
        "null",
        "1.5",
        "a,b",
        "é/x",
    ] {
        let out = with_entry("hcp: \"1\"\n", &Entry::new("ab", source))
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        assert_eq!(ok(&out).packs[0].source, source, "{out}");
    }
    let out = with_entry("hcp: \"1\"\n", &Entry::new("ab", "./x")).unwrap_or_default();
    assert!(out.contains("source: ./x\n"), "{out}");
    // An id that reads as another type is quoted too.
    let out = with_entry("hcp: \"1\"\n", &Entry::new("1.5", "./x")).unwrap_or_default();
    assert_eq!(ok(&out).packs[0].id, "1.5", "{out}");
}

#[test]
fn bad_entries_are_not_recorded() {
    for bad in [
        Entry::new("Bad", "./x"),
        Entry::new("ab", "/abs"),
        Entry::new("ab", "https://u:secret@github.com/a/b"),
        Entry::new("hcp-cli", "./x"),
    ] {
        let e = with_entry("hcp: \"1\"\n", &bad)
            .err()
            .unwrap_or_else(|| panic!("{bad:?}"));
        assert_eq!(e.code, ErrorCode::Usage);
        assert!(!e.message.contains("secret"), "{}", e.message);
    }
}

#[test]
fn a_malformed_file_is_never_edited() {
    let bad = "hcp: \"1\"\npacks: pdf\n";
    assert!(with_entry(bad, &Entry::new("ab", "./x")).is_err());
    assert!(without_entry(bad, "ab").is_err());
    assert!(with_activate(bad, "ab", false).is_err());
    assert!(with_harnesses(bad, &names(&["agents"])).is_err());
}

#[test]
fn removing_an_entry_takes_its_lines_and_keeps_the_rest() {
    let want = "hcp: \"1\"
packs:
  - id: acme.notes
    source: ./tools/notes                     # a folder, relative to the project
    activate: false                           # default true
harnesses: [agents, claude-code]              # project targets
";
    edits(SPEC, want, |t| without_entry(t, "pdf"));
    let want = "hcp: \"1\"
packs:
  - id: pdf                                   # the pack (a Skill pack here)
    source: github:anthropics/skills//skills/pdf
harnesses: [agents, claude-code]              # project targets
";
    edits(SPEC, want, |t| without_entry(t, "acme.notes"));
    assert_eq!(without_entry(SPEC, "nope").ok().as_deref(), Some(SPEC));
}

#[test]
fn removing_the_last_entry_leaves_an_empty_list() {
    edits(
        "hcp: \"1\"\n# what we use\npacks:   # list\n  # first\n  - id: ab\n    source: ./x\n    # more\n\nharnesses: []\n",
        "hcp: \"1\"\n# what we use\npacks: []   # list\n  # first\n\nharnesses: []\n",
        |t| without_entry(t, "ab"),
    );
    edits(
        "hcp: \"1\"\npacks:\n- id: ab\n  source: ./x",
        "hcp: \"1\"\npacks: []\n",
        |t| without_entry(t, "ab"),
    );
}

#[test]
fn removing_from_a_non_indented_list_and_a_dash_alone() {
    edits(
        "hcp: \"1\"\npacks:\n- id: ab\n  source: ./x\n-\n  id: cd\n  source: ./y\nharnesses: [agents]\n",
        "hcp: \"1\"\npacks:\n- id: ab\n  source: ./x\nharnesses: [agents]\n",
        |t| without_entry(t, "cd"),
    );
}

#[test]
fn activate_false_is_written_and_true_removes_the_key() {
    let text = "hcp: \"1\"\npacks:\n  - id: ab   # mine\n    source: ./x # here\n  - id: cd\n    source: ./y\n";
    let off = "hcp: \"1\"\npacks:\n  - id: ab   # mine\n    source: ./x # here\n    activate: false\n  - id: cd\n    source: ./y\n";
    edits(text, off, |t| with_activate(t, "ab", false));
    edits(off, text, |t| with_activate(t, "ab", true));
    assert_eq!(with_activate(text, "ab", true).ok().as_deref(), Some(text));
    edits(
        "hcp: \"1\"\npacks:\n  - id: ab\n    activate: true  # on\n    source: ./x\n",
        "hcp: \"1\"\npacks:\n  - id: ab\n    activate: false  # on\n    source: ./x\n",
        |t| with_activate(t, "ab", false),
    );
    // The first key of an entry stays (the `-` is on its line): it says true.
    edits(
        "hcp: \"1\"\npacks:\n  - activate: false\n    id: ab\n    source: ./x\n",
        "hcp: \"1\"\npacks:\n  - activate: true\n    id: ab\n    source: ./x\n",
        |t| with_activate(t, "ab", true),
    );
    let e = with_activate(text, "zz", false)
        .err()
        .unwrap_or_else(|| panic!("found"));
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[test]
fn flow_entries_are_rewritten_when_they_hold_only_known_keys() {
    edits(
        "hcp: \"1\"\npacks: [{id: ab, source: ./x}]  # c\n",
        "hcp: \"1\"\npacks: [{id: ab, source: ./x, activate: false}]  # c\n",
        |t| with_activate(t, "ab", false),
    );
    edits(
        "hcp: \"1\"\npacks:\n  - {id: ab, source: ./x, activate: false}\n",
        "hcp: \"1\"\npacks:\n  - {id: ab, source: \"a,b\"}\n",
        |t| with_entry(t, &Entry::new("ab", "a,b")),
    );
    let e = with_activate(
        "hcp: \"1\"\npacks: [{id: ab, source: ./x, x-n: 1}]\n",
        "ab",
        false,
    )
    .err()
    .unwrap_or_else(|| panic!("edited"));
    assert!(e.message.contains("flow mapping"), "{}", e.message);
}

#[test]
fn a_flow_list_is_edited_in_flow_style() {
    let text = "hcp: \"1\"\npacks: [{id: ab, source: ./x}]  # c\n";
    let two = "hcp: \"1\"\npacks: [{id: ab, source: ./x}, {id: cd, source: \"a b,c\", activate: false}]  # c\n";
    edits(text, two, |t| with_entry(t, &entry("cd", "a b,c", false)));
    edits(
        two,
        "hcp: \"1\"\npacks: [{id: cd, source: \"a b,c\", activate: false}]  # c\n",
        |t| without_entry(t, "ab"),
    );
    edits(two, text, |t| without_entry(t, "cd"));
    edits(text, "hcp: \"1\"\npacks: []  # c\n", |t| {
        without_entry(t, "ab")
    });
    edits(
        "hcp: \"1\"\npacks: [\n  {id: ab, source: ./x},\n  {id: cd, source: ./y},\n]\n",
        "hcp: \"1\"\npacks: [\n  {id: cd, source: ./y},\n]\n",
        |t| without_entry(t, "ab"),
    );
}

#[test]
fn a_document_written_as_one_flow_mapping_is_refused() {
    let e = with_entry("{hcp: \"1\"}", &Entry::new("cd", "./y")).err();
    assert!(
        e.is_some_and(|e| e.code == ErrorCode::Usage && e.message.contains("one flow mapping"))
    );
}

#[test]
fn other_keys_survive_every_edit() {
    let text = "hcp: \"1\"\nx-team: {a: [1, 2]}\npacks:\n  - id: ab\n    x-why: [keep]\n    source: ./x\n  - id: cd\n    source: ./y\n    x-n: 1\nextra: 2\n";
    let outs = [
        with_entry(text, &entry("ab", "./z", false)),
        with_entry(text, &Entry::new("ef", "./e")),
        without_entry(text, "cd"),
        with_activate(text, "cd", false),
        with_harnesses(text, &names(&["agents"])),
    ];
    for out in outs {
        let out = out.unwrap_or_else(|e| panic!("{e}"));
        assert!(out.contains("x-team: {a: [1, 2]}\n"), "{out}");
        assert!(out.contains("    x-why: [keep]\n"), "{out}");
        assert!(out.contains("extra: 2\n"), "{out}");
    }
}

#[test]
fn bytes_that_are_not_utf8_name_the_line() {
    let e = decode(b"hcp: \"1\"\npacks: [\xff]\n").err();
    assert!(e.is_some_and(|e| e.message == "hcp.yaml:2:9: not valid UTF-8 text"));
    assert_eq!(decode(b"hcp: \"1\"\n").ok(), Some("hcp: \"1\"\n"));
}

#[test]
fn a_repository_on_this_machine_is_a_warning() {
    for source in ["git+file:///srv/repo//pack", "git+../repo"] {
        let file = ok(&format!(
            "hcp: \"1\"\npacks:\n  - id: ab\n    source: {source}\n"
        ));
        assert_eq!(file.warnings.len(), 1, "{source}");
        assert!(
            file.warnings[0].message.contains("on this machine"),
            "{source}"
        );
    }
}

#[test]
fn many_entries_are_read_and_edited_quickly() {
    let mut text = String::from("hcp: \"1\"\npacks:\n");
    for i in 0..10_000 {
        text.push_str(&format!("  - id: p{i}\n    source: ./p/{i}\n"));
    }
    let started = std::time::Instant::now();
    assert_eq!(ok(&text).packs.len(), 10_000);
    let out = with_entry(&text, &Entry::new("new", "./n")).unwrap_or_else(|e| panic!("{e}"));
    let out = without_entry(&out, "p10").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ok(&out).packs.len(), 10_000);
    // Generous: the machine may be busy; a quadratic step would take minutes.
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    let dup = format!("{text}  - id: p7\n    source: ./again\n");
    assert!(err(&dup).contains("a second entry for `p7`"));
}

#[test]
fn harnesses_are_set_in_the_lists_own_style() {
    let set = |list: &'static [&'static str]| move |t: &str| with_harnesses(t, &names(list));
    edits(
        SPEC,
        &SPEC.replace("[agents, claude-code]", "[agents]"),
        set(&["agents"]),
    );
    edits(
        "hcp: \"1\"\n",
        "hcp: \"1\"\nharnesses: [agents, windsurf]\n",
        set(&["agents", "windsurf"]),
    );
    edits("hcp: \"1\"", "hcp: \"1\"\nharnesses: []\n", set(&[]));
    edits(
        "hcp: \"1\"\nharnesses:   # targets\npacks: []\n",
        "hcp: \"1\"\nharnesses: [agents]   # targets\npacks: []\n",
        set(&["agents"]),
    );
    edits(
        "hcp: \"1\"\nharnesses:\n  - agents  # a\n  - codex\n# end\n",
        "hcp: \"1\"\nharnesses:\n  - claude-code\n# end\n",
        set(&["claude-code"]),
    );
    edits(
        "hcp: \"1\"\nharnesses:\n- agents\npacks: []\n",
        "hcp: \"1\"\nharnesses: []\npacks: []\n",
        set(&[]),
    );
    assert_eq!(
        with_harnesses(SPEC, &names(&["agents", "claude-code"]))
            .ok()
            .as_deref(),
        Some(SPEC)
    );
    assert!(with_harnesses(SPEC, &names(&["a b"])).is_err());
}

#[test]
fn initial_reads_back() {
    let text = initial(&names(&["agents", "claude-code"]));
    let file = ok(&text);
    assert!(file.packs.is_empty());
    assert_eq!(file.harnesses, Some(names(&["agents", "claude-code"])));
    assert!(text.contains("hcp: \"1\"\npacks: []\nharnesses: [agents, claude-code]\n"));
    let file = ok(&initial(&[]));
    assert_eq!(file.harnesses, Some(vec![]));
    // And an entry can be added to it.
    let added = with_entry(&text, &Entry::new("ab", "./x")).unwrap_or_default();
    assert_eq!(ok(&added).packs, [Entry::new("ab", "./x")]);
}

/// Many edits in a row on several layouts: each result reads back to
/// what was asked.
#[test]
fn edit_sequences_round_trip() {
    let starts = [
        SPEC.to_string(),
        initial(&names(&["agents"])),
        "hcp: \"1\"\npacks:\n- id: zz\n  source: ./z\n".to_string(),
        "hcp: \"1\"\r\npacks:\r\n  - id: zz   # c\r\n    source: \"./z\"".to_string(),
    ];
    for start in starts {
        let mut text = start.clone();
        let mut want = ok(&start).packs;
        for (i, id) in ["aa", "bb", "cc"].iter().enumerate() {
            let e = entry(id, &format!("./p {i}"), i % 2 == 0);
            text = with_entry(&text, &e).unwrap_or_else(|err| panic!("{text:?}: {err}"));
            want.push(e);
            assert_eq!(ok(&text).packs, want, "{text}");
        }
        text = with_activate(&text, "bb", false).unwrap_or_else(|e| panic!("{e}"));
        text = with_activate(&text, "aa", true).unwrap_or_else(|e| panic!("{e}"));
        text = without_entry(&text, "cc").unwrap_or_else(|e| panic!("{e}"));
        want.retain(|e| e.id != "cc");
        for e in &mut want {
            if e.id == "bb" {
                e.activate = false;
            }
            if e.id == "aa" {
                e.activate = true;
            }
        }
        assert_eq!(ok(&text).packs, want, "{text}");
        for e in want.clone() {
            text = without_entry(&text, &e.id).unwrap_or_else(|err| panic!("{text:?}: {err}"));
        }
        assert!(ok(&text).packs.is_empty(), "{text}");
        if start.starts_with("hcp: \"1\"\npacks:\n  - id: pdf") {
            assert!(text.contains("# project targets"), "{text}");
        }
    }
}

/// Mutated inputs never panic: every byte position cut, doubled or
/// replaced by a YAML indicator, for reading and for each edit.
#[test]
fn mutated_files_never_panic() {
    let base = "hcp: \"1\"\npacks:\n  - id: ab # c\n    source: './x y'\n  - {id: cd, source: github:a/b}\nharnesses: [agents]\n";
    let marks = [
        "-", ":", "#", "[", "{", "'", "\"", "\n", " ", "&a", "*a", "\r", "é", "|",
    ];
    let mut n = 0;
    for cut in 0..=base.len() {
        if !base.is_char_boundary(cut) {
            continue;
        }
        let mut variants = vec![
            format!("{}{}", &base[..cut], &base[(cut + 1).min(base.len())..]),
            format!("{}{}", &base[..cut], &base[cut..]),
        ];
        for mark in marks {
            variants.push(format!("{}{mark}{}", &base[..cut], &base[cut..]));
        }
        for text in variants {
            if !text.is_char_boundary(text.len()) {
                continue;
            }
            n += 1;
            let read = parse(&text);
            let results = [
                with_entry(&text, &Entry::new("ef", "./z")),
                with_entry(&text, &entry("ab", "./q", false)),
                without_entry(&text, "ab"),
                without_entry(&text, "cd"),
                with_activate(&text, "cd", false),
                with_activate(&text, "ab", true),
                with_harnesses(&text, &names(&["codex"])),
            ];
            // A file that does not read is never edited; an edit that
            // succeeds gives a file that reads.
            for out in results {
                match (&read, out) {
                    (Err(_), Ok(out)) => panic!("edited a bad file {text:?} -> {out:?}"),
                    (Ok(_), Ok(out)) => assert!(parse(&out).is_ok(), "{text:?} -> {out:?}"),
                    _ => {}
                }
            }
        }
    }
    assert!(n > 1000);
}
