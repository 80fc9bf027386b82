//! The bootstrap pack's builtin operations answer with the matching
//! subcommand's `--json` document (HCP.md §11.4): the same document, field
//! for field, on success and on failure.

use crate::common::Sandbox;
use serde_json::Value;

fn data(sb: &Sandbox, args: &[&str], code: i32) -> Value {
    let mut all = vec!["exec", "hcp-cli"];
    all.extend_from_slice(args);
    sb.json(&all, code)["data"].clone()
}

#[test]
fn builtin_documents_are_the_subcommands_documents() {
    let sb = Sandbox::new();
    let src = sb.simple_pack("acme.doc", "1.0.0", "{kind: public}");
    let dir = src.display().to_string();
    sb.json(&["install", &dir], 0);
    sb.json(&["activate", "acme.doc"], 0);

    assert_eq!(
        data(&sb, &["list"], 0),
        crate::common::unscoped(sb.json(&["list"], 0))
    );
    assert_eq!(
        data(&sb, &["availability", "--", "pack=acme.doc"], 0),
        crate::common::unscoped(sb.json(&["availability", "acme.doc"], 0))
    );
    assert_eq!(
        data(&sb, &["activate", "--", "pack=acme.doc"], 0),
        crate::common::unscoped(sb.json(&["activate", "acme.doc"], 0))
    );
    assert_eq!(
        data(&sb, &["connect", "--", "pack=acme.doc"], 0),
        crate::common::unscoped(sb.json(&["connect", "acme.doc"], 0))
    );
    // Failures: the same error object, hint included.
    let cli = crate::common::unscoped(sb.json(&["uninstall", "hcp-cli"], 3));
    assert_eq!(cli["error"]["code"], "bootstrap_protected");
    assert_eq!(data(&sb, &["uninstall", "--", "pack=hcp-cli"], 3), cli);
    let cli = crate::common::unscoped(sb.json(&["activate", "acme.none"], 5));
    assert_eq!(data(&sb, &["activate", "--", "pack=acme.none"], 5), cli);
}
