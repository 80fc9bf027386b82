//! The lint cache of installed packs (README "Performance"): a hit answers
//! exactly as a cold run; a pack changed on disk is seen whatever the
//! change keeps (size, modification time, inode); an entry that is racily
//! clean, forged, corrupt, not ours, or reached through a link is never
//! trusted, and never an error; what the cache writes is private.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Sandbox, install_and_activate, wait_until};
use hcpx::engine::pack::id::PackId;
use hcpx::engine::store::Store;
use hcpx::engine::store::lint_cache::{LintCache, tree_key};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const IDS: [&str; 3] = ["cache.one", "cache.two", "cache-skill"];

/// A store with two packs (one activated and connected) and a Skill pack.
fn store_of_three(sb: &Sandbox) {
    let one = sb.simple_pack("cache.one", "1.0.0", "{kind: local}");
    install_and_activate(sb, &one, "cache.one");
    sb.json(&["connect", "cache.one"], 0);
    let two = sb.simple_pack("cache.two", "2.0.0", "{kind: public}");
    sb.json(&["install", two.to_str().unwrap()], 0);
    let skill = sb.pack(
        "cache-skill",
        &[(
            "SKILL.md",
            "---\nname: cache-skill\ndescription: A plain Skill.\n---\nSay hi.\n",
        )],
    );
    sb.json(&["install", skill.to_str().unwrap()], 0);
}

fn store(sb: &Sandbox) -> Store {
    Store::open(sb.home()).unwrap()
}

fn id(text: &str) -> PackId {
    PackId::parse(text).unwrap()
}

fn cache_dir(sb: &Sandbox) -> PathBuf {
    sb.home().join(".cache").join("lint")
}

/// stdout of `hcpx --json ARGS`, which must exit 0.
fn stdout(sb: &Sandbox, args: &[&str]) -> Vec<u8> {
    let out = sb.hcpx().arg("--json").args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    out.stdout
}

/// Runs `list` until every pack's entry is trusted (the files must be past
/// the racy margin first, so this takes a few seconds).
fn wait_until_cached(sb: &Sandbox, ids: &[&str]) {
    let store = store(sb);
    wait_until("every entry trusted", || {
        stdout(sb, &["list"]);
        let cache = LintCache::open(&store);
        ids.iter().all(|i| cache.trusted(&store, &id(i)))
    });
}

fn row(sb: &Sandbox, pack: &str) -> Value {
    let doc: Value = serde_json::from_slice(&stdout(sb, &["list"])).unwrap();
    doc["packs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pack_id"] == pack)
        .cloned()
        .unwrap_or_else(|| panic!("{pack} not listed: {doc}"))
}

/// A hit gives the same `list`, `availability` and `show` documents as a
/// run with no cache at all, byte for byte, and `list` then finds every
/// entry trusted.
#[test]
fn a_hit_answers_as_a_cold_run_byte_for_byte() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    let commands: [&[&str]; 4] = [
        &["list"],
        &["availability"],
        &["show", "cache.one"],
        &["show", "cache-skill"],
    ];
    let _ = fs::remove_dir_all(sb.home().join(".cache"));
    let cold: Vec<Vec<u8>> = commands.iter().map(|c| stdout(&sb, c)).collect();
    wait_until_cached(&sb, &IDS);
    let hot: Vec<Vec<u8>> = commands.iter().map(|c| stdout(&sb, c)).collect();
    for ((c, cold), hot) in commands.iter().zip(&cold).zip(&hot) {
        assert_eq!(
            String::from_utf8_lossy(cold),
            String::from_utf8_lossy(hot),
            "{c:?}"
        );
    }
    let store = store(&sb);
    let cache = LintCache::open(&store);
    assert!(IDS.iter().all(|i| cache.trusted(&store, &id(i))));
}

/// Sets `path`'s modification time to `to`.
fn set_mtime(path: &Path, to: SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(to)
        .unwrap();
}

/// A manifest edited in place to another of the same size, its
/// modification time set back and its inode kept, is seen by the next run
/// (its change time moved); the pack set right is seen too.
#[test]
fn an_edit_keeping_size_mtime_and_inode_is_seen() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    wait_until_cached(&sb, &IDS);
    let file = sb.home().join("packs/cache.one/pack.yaml");
    let before = fs::metadata(&file).unwrap();
    let text = fs::read_to_string(&file).unwrap();
    let other = text.replace("cache.one", "cache.on3");
    assert_eq!(other.len(), text.len());
    fs::write(&file, &other).unwrap();
    set_mtime(&file, before.modified().unwrap());
    let after = fs::metadata(&file).unwrap();
    assert_eq!(
        (after.len(), after.ino(), after.modified().unwrap()),
        (before.len(), before.ino(), before.modified().unwrap())
    );
    assert_eq!(row(&sb, "cache.one")["status"], "unavailable");
    fs::write(&file, &text).unwrap();
    set_mtime(&file, before.modified().unwrap());
    assert_eq!(row(&sb, "cache.one")["status"], "executable");
    // A Skill's description changed the same way.
    let skill = sb.home().join("packs/cache-skill/SKILL.md");
    let before = fs::metadata(&skill).unwrap();
    let text = fs::read_to_string(&skill).unwrap();
    fs::write(&skill, text.replace("A plain", "A plane")).unwrap();
    set_mtime(&skill, before.modified().unwrap());
    assert_eq!(row(&sb, "cache-skill")["description"], "A plane Skill.");
}

/// A pack folder replaced by another whose files have the same names and
/// sizes (and modification times) is seen.
#[test]
fn a_pack_replaced_by_one_of_the_same_sizes_is_seen() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    wait_until_cached(&sb, &IDS);
    let dir = sb.home().join("packs/cache.two");
    let new = sb.home().join("packs/.cache.two.new");
    fs::create_dir(&new).unwrap();
    for name in ["pack.yaml", "SKILL.md"] {
        let text = fs::read_to_string(dir.join(name)).unwrap();
        let swapped = text.replace("A pack for tests.", "A pack for TESTS.");
        assert_eq!(swapped.len(), text.len());
        fs::write(new.join(name), swapped).unwrap();
        set_mtime(
            &new.join(name),
            fs::metadata(dir.join(name)).unwrap().modified().unwrap(),
        );
    }
    fs::remove_dir_all(&dir).unwrap();
    fs::rename(&new, &dir).unwrap();
    assert_eq!(row(&sb, "cache.two")["description"], "A pack for TESTS.");
}

/// A Skill pack with files in nested folders, installed and cached: the
/// key is then taken over the paths its entry recorded, no folder listed.
/// A link added deep in it, the folders' modification times set back, is
/// seen (the folder's change time moved); so is a subfolder swapped for a
/// link to a copy of itself, and a file swapped for a folder.
#[test]
fn a_change_in_a_subfolder_is_seen_without_listing_it_again() {
    let sb = Sandbox::new();
    let skill = "---\nname: cache-deep\ndescription: Nested files.\n---\nSee scripts/.\n";
    let src = sb.pack(
        "cache-deep",
        &[
            ("SKILL.md", skill),
            ("scripts/run.sh", "echo ok\n"),
            ("scripts/lib/util.sh", "true\n"),
            ("notes.md", "notes\n"),
        ],
    );
    sb.json(&["install", src.to_str().unwrap()], 0);
    wait_until_cached(&sb, &["cache-deep"]);
    let entry: Value =
        serde_json::from_slice(&fs::read(cache_dir(&sb).join("cache-deep.json")).unwrap()).unwrap();
    assert_eq!(
        entry["paths"],
        serde_json::json!([
            "SKILL.md",
            "notes.md",
            "scripts",
            "scripts/lib",
            "scripts/run.sh",
            "scripts/lib/util.sh"
        ])
    );
    let dir = sb.home().join("packs/cache-deep");
    let times = |p: &Path| fs::metadata(p).unwrap().modified().unwrap();
    let set_dir_mtime = |p: &Path, to| fs::File::open(p).unwrap().set_modified(to).unwrap();
    assert_eq!(row(&sb, "cache-deep")["status"], "installed");

    let lib = dir.join("scripts/lib");
    let before = times(&lib);
    std::os::unix::fs::symlink("util.sh", lib.join("link")).unwrap();
    set_dir_mtime(&lib, before);
    assert_eq!(row(&sb, "cache-deep")["status"], "unavailable");
    fs::remove_file(lib.join("link")).unwrap();
    set_dir_mtime(&lib, before);
    wait_until_cached(&sb, &["cache-deep"]);
    assert_eq!(row(&sb, "cache-deep")["status"], "installed");

    let scripts = dir.join("scripts");
    let copy = sb.home().join("scripts-copy");
    fs::rename(&scripts, &copy).unwrap();
    std::os::unix::fs::symlink(&copy, &scripts).unwrap();
    assert_eq!(row(&sb, "cache-deep")["status"], "unavailable");
    fs::remove_file(&scripts).unwrap();
    fs::rename(&copy, &scripts).unwrap();
    wait_until_cached(&sb, &["cache-deep"]);

    let notes = dir.join("notes.md");
    let before = times(&dir);
    fs::remove_file(&notes).unwrap();
    fs::create_dir(&notes).unwrap();
    fs::create_dir(notes.join("more")).unwrap();
    std::os::unix::fs::symlink("x", notes.join("more/link")).unwrap();
    set_dir_mtime(&dir, before);
    assert_eq!(row(&sb, "cache-deep")["status"], "unavailable");
}

/// An entry that would make `list` show `FORGED` for cache.one: the
/// pack's entry as hcpx wrote it, its description changed and its key
/// time set to `keyed_ns`.
fn forged_entry(sb: &Sandbox, keyed_ns: i128) -> Value {
    let path = cache_dir(sb).join("cache.one.json");
    let mut entry: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    entry["report"]["manifest"]["description"] = "FORGED".into();
    entry["keyed_ns"] = i64::try_from(keyed_ns).unwrap().into();
    entry
}

fn write_private(path: &Path, bytes: &[u8]) {
    fs::write(path, bytes).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o600)).unwrap();
}

fn now_ns() -> i128 {
    i128::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos(),
    )
    .unwrap()
}

/// A key time for cache.one past the racy margin of its files, and not in
/// the future (waited for).
fn trusted_time(sb: &Sandbox) -> i128 {
    let key = tree_key(&sb.home().join("packs/cache.one")).unwrap();
    let keyed = key.newest_ns + 3_000_000_000;
    wait_until("the key time is past", || now_ns() > keyed);
    keyed
}

/// An entry whose key matches the pack's tree but whose key time is within
/// the racy margin of the tree's newest time, or in the future, is not
/// trusted; the same entry keyed past the margin is (so the forgery is
/// otherwise a good one, and the refusals above are the racy rule's).
#[test]
fn a_racily_clean_or_future_entry_is_not_trusted() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    wait_until_cached(&sb, &IDS);
    let key = tree_key(&sb.home().join("packs/cache.one")).unwrap();
    let path = cache_dir(&sb).join("cache.one.json");
    let second = 1_000_000_000;
    for keyed in [
        key.newest_ns,
        key.newest_ns + 2 * second,
        now_ns() + 60 * second,
    ] {
        let entry = forged_entry(&sb, keyed);
        write_private(&path, entry.to_string().as_bytes());
        assert_eq!(row(&sb, "cache.one")["description"], "A pack for tests.");
        // That run wrote the entry afresh.
        let written: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            written["report"]["manifest"]["description"],
            "A pack for tests."
        );
    }
    let entry = forged_entry(&sb, trusted_time(&sb));
    write_private(&path, entry.to_string().as_bytes());
    assert_eq!(row(&sb, "cache.one")["description"], "FORGED");
}

/// One way of spoiling an entry.
type Setup<'a> = Box<dyn Fn() + 'a>;

/// Entries that are garbage, another pack's, huge, a FIFO, a link to a
/// forged entry outside the store, or writable by others, are ignored: the packs are
/// linted and listed as they are, and no run fails or waits. (The folder
/// cases are the next test.)
#[test]
fn a_corrupt_or_foreign_cache_is_ignored_and_never_followed() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    wait_until_cached(&sb, &IDS);
    let dir = cache_dir(&sb);
    let path = dir.join("cache.one.json");
    let old = trusted_time(&sb);
    let forged = forged_entry(&sb, old).to_string();
    let outside = sb.dir.path().join("outside.json");
    write_private(&outside, forged.as_bytes());
    let check = |what: &str| {
        assert_eq!(
            row(&sb, "cache.one")["description"],
            "A pack for tests.",
            "{what}"
        );
        assert_eq!(row(&sb, "cache.two")["status"], "installed", "{what}");
    };
    let mut other = forged_entry(&sb, old);
    other["pack_id"] = "cache.two".into();
    let other = other.to_string();
    // Each setup is made right before `list` (which rewrites the entry).
    let setups: Vec<(&str, Setup)> = vec![
        (
            "garbage",
            Box::new(|| write_private(&path, b"\x00{not json")),
        ),
        (
            "another pack's",
            Box::new(|| write_private(&path, other.as_bytes())),
        ),
        (
            "huge",
            Box::new(|| {
                write_private(&path, forged.as_bytes());
                fs::File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_len(8 << 20)
                    .unwrap();
            }),
        ),
        (
            "a FIFO",
            Box::new(|| {
                let _ = fs::remove_file(&path);
                rustix::fs::mkfifoat(
                    rustix::fs::CWD,
                    &path,
                    rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
                )
                .unwrap();
            }),
        ),
        (
            "a link outside",
            Box::new(|| {
                let _ = fs::remove_file(&path);
                std::os::unix::fs::symlink(&outside, &path).unwrap();
            }),
        ),
        (
            "writable by others",
            Box::new(|| {
                let _ = fs::remove_file(&path);
                write_private(&path, forged.as_bytes());
                fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
            }),
        ),
    ];
    // The forged entry as a plain private file is trusted: each setup
    // differs from it in the one way it names.
    let _ = fs::remove_file(&path);
    write_private(&path, forged.as_bytes());
    assert_eq!(row(&sb, "cache.one")["description"], "FORGED");
    for (what, setup) in &setups {
        setup();
        check(what);
    }
}

/// A cache folder that is a link to a folder of forged entries, or a
/// folder others can write, is ignored (and the link's target not written).
#[test]
fn a_linked_or_open_cache_folder_is_ignored() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    wait_until_cached(&sb, &IDS);
    let dir = cache_dir(&sb);
    let path = dir.join("cache.one.json");
    let forged = forged_entry(&sb, trusted_time(&sb)).to_string();
    let check = |what: &str| {
        assert_eq!(
            row(&sb, "cache.one")["description"],
            "A pack for tests.",
            "{what}"
        );
    };
    let elsewhere = sb.dir.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::set_permissions(&elsewhere, fs::Permissions::from_mode(0o700)).unwrap();
    write_private(&elsewhere.join("cache.one.json"), forged.as_bytes());
    fs::remove_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
    check("a linked folder");
    assert_eq!(
        fs::read_to_string(elsewhere.join("cache.one.json")).unwrap(),
        forged
    );
    fs::remove_file(&dir).unwrap();
    fs::create_dir(&dir).unwrap();
    write_private(&path, forged.as_bytes());
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o777)).unwrap();
    check("an open folder");
}

/// What the cache writes is private (folders 0700, entries 0600, whatever
/// the umask), and a store where it cannot be written (`.cache` a file)
/// lists as ever.
#[test]
fn the_cache_is_private_and_never_needed() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    // Entries are written once the packs are past the racy margin.
    wait_until_cached(&sb, &IDS);
    let mode = |p: &Path| fs::symlink_metadata(p).unwrap().mode() & 0o777;
    assert_eq!(mode(&sb.home().join(".cache")), 0o700);
    assert_eq!(mode(&cache_dir(&sb)), 0o700);
    for entry in fs::read_dir(cache_dir(&sb)).unwrap() {
        let entry = entry.unwrap();
        assert_eq!(mode(&entry.path()), 0o600, "{:?}", entry.file_name());
    }
    let names: Vec<String> = fs::read_dir(cache_dir(&sb))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), IDS.len() + 1, "{names:?}"); // and hcp-cli
    let cold = stdout(&sb, &["availability"]);
    fs::remove_dir_all(sb.home().join(".cache")).unwrap();
    fs::write(sb.home().join(".cache"), "not a folder").unwrap();
    assert_eq!(stdout(&sb, &["availability"]), cold);
    assert_eq!(row(&sb, "cache.one")["status"], "executable");
    let _ = Duration::ZERO;
}

/// Right after a change, an entry could never be trusted (its key would be
/// taken within the racy margin): reading writes none, so `list` just after
/// an install costs a lint, not a lint and a write per pack.
#[test]
fn no_entry_is_written_that_could_never_be_trusted() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    stdout(&sb, &["list"]);
    let written: Vec<String> = fs::read_dir(cache_dir(&sb))
        .map(|dir| {
            dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| IDS.iter().any(|id| n.starts_with(id)))
                .collect()
        })
        .unwrap_or_default();
    assert!(written.is_empty(), "{written:?}");
}

/// The cache keeps nothing no read will use: `uninstall` removes its
/// pack's entry, and `doctor --fix` removes the entries of packs that are
/// not installed and the temporary files of writes that never ended (not
/// a fresh one, which a writer at work may own), touching nothing else and
/// following no link.
#[test]
fn uninstall_and_doctor_fix_leave_no_stale_entry() {
    let sb = Sandbox::new();
    store_of_three(&sb);
    wait_until_cached(&sb, &IDS);
    let dir = cache_dir(&sb);
    sb.json(&["uninstall", "cache.two"], 0);
    assert!(!dir.join("cache.two.json").exists());
    assert!(dir.join("cache.one.json").is_file());

    let one = fs::read(dir.join("cache.one.json")).unwrap();
    write_private(&dir.join("acme.gone.json"), &one);
    write_private(&dir.join(".tmp-old.json"), b"{");
    set_mtime(
        &dir.join(".tmp-old.json"),
        SystemTime::now() - Duration::from_secs(7200),
    );
    write_private(&dir.join(".tmp-fresh.json"), b"{");
    write_private(&dir.join("notes.txt"), b"mine");
    let outside = sb.dir.path().join("outside.json");
    fs::write(&outside, "the user's").unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("acme.link.json")).unwrap();

    let doc = sb.json(&["doctor", "--fix"], 0);
    let fixed = doc["fixed"].as_array().cloned().unwrap_or_default();
    assert!(fixed.iter().any(|f| f["check"] == "store.cache"), "{doc}");
    for gone in ["acme.gone.json", ".tmp-old.json", "acme.link.json"] {
        assert!(fs::symlink_metadata(dir.join(gone)).is_err(), "{gone}");
    }
    for kept in [
        ".tmp-fresh.json",
        "notes.txt",
        "cache.one.json",
        "cache-skill.json",
    ] {
        assert!(dir.join(kept).is_file(), "{kept}");
    }
    assert_eq!(fs::read_to_string(&outside).unwrap(), "the user's");
}
