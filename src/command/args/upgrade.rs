//! The clap arguments of `hcpx upgrade`.

use crate::engine::ops::upgrade::Expected;
use crate::engine::pack::grammar;

/// Upgrade packs to the newest version of their recorded source, showing what they gain
#[derive(Debug, clap::Args)]
#[command(after_help = crate::command::help::UPGRADE)]
pub struct UpgradeArgs {
    /// The packs to upgrade (default: every pack from a catalog or git that has a newer version)
    #[arg(value_name = "PACK_ID", add = crate::command::complete::pack_ids())]
    pub packs: Vec<String>,
    #[command(flatten)]
    pub flags: super::EngineFlags,
    /// Only report what would change
    #[arg(long)]
    pub dry_run: bool,
    /// Accept changes that give a pack more reach
    #[arg(long)]
    pub yes: bool,
    /// Install PACK_ID only if its new version is still the one whose diff
    /// was shown (its digest, as the refusal's hint or --dry-run print it)
    #[arg(long, value_name = "PACK_ID=DIGEST", value_parser = parse_expected)]
    pub expect: Vec<Expected>,
    /// Do not bring git catalogs up to date first, and leave out packs from
    /// git sources (no network)
    #[arg(long)]
    pub offline: bool,
}

/// `PACK_ID=sha256:<64 hex digits>`.
pub fn parse_expected(text: &str) -> Result<Expected, String> {
    let digest_ok = |d: &str| {
        d.strip_prefix("sha256:").is_some_and(|hex| {
            hex.len() == 64
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
    };
    match text.split_once('=') {
        Some((id, digest)) if grammar::is_pack_id(id) && digest_ok(digest) => Ok(Expected {
            pack_id: id.to_string(),
            digest: digest.to_string(),
        }),
        _ => Err("expected PACK_ID=sha256:<64 hex digits>".into()),
    }
}
