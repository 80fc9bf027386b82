//! What a mistyped or shortened subcommand gets on the real binary: the
//! closest subcommand by edit distance ("did you mean `install`?", also
//! as the `--json` error's hint), and the short names people type (`i`,
//! `ls`, `rm`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Sandbox;

#[test]
fn a_typo_suggests_the_closest_subcommand_alone() {
    let sb = Sandbox::new();
    for (typo, meant) in [
        ("instal", "install"),
        ("lsit", "list"),
        ("upgarde", "upgrade"),
        ("avialability", "availability"),
    ] {
        let out = sb.hcpx().arg(typo).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{typo}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains(&format!("did you mean `{meant}`?")),
            "{typo}: {stderr}"
        );
        // One suggestion, not clap's list of everything alike.
        assert!(!stderr.contains("similar subcommands"), "{typo}: {stderr}");
        let doc = sb.json(&[typo], 2);
        assert_eq!(doc["error"]["code"], "usage");
        assert_eq!(
            doc["error"]["hint"],
            format!("did you mean `{meant}`?"),
            "{typo}"
        );
    }
    // A nested subcommand is suggested among its siblings.
    let out = sb.hcpx().args(["catalog", "lst"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("did you mean `list`?"), "{stderr}");
}

#[test]
fn short_names_run_their_subcommands() {
    let sb = Sandbox::new();
    let dir = sb.simple_pack("acme.short", "1.0.0", "{kind: public}");
    let installed = sb.json(&["i", dir.to_str().unwrap()], 0);
    assert_eq!(installed["pack_id"], "acme.short");
    let listed = sb.json(&["ls"], 0);
    assert_eq!(listed, sb.json(&["list"], 0));
    assert!(
        listed["packs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["pack_id"] == "acme.short"),
        "{listed}"
    );
    // `rm` is `remove` (the counterpart of `add`): outside a project it
    // deactivates and uninstalls.
    sb.json(&["rm", "acme.short"], 0);
    assert!(!sb.home().join("packs/acme.short").exists());
    let help = sb.hcpx().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for alias in ["[alias: ls]", "[alias: rm]"] {
        assert!(help.contains(alias), "{alias}: {help}");
    }
    let help = sb.hcpx().args(["install", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("hcpx i ./my-pack    # i is short for install"),
        "{help}"
    );
}
