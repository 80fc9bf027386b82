//! `tools/list` in pages (HCP.md §16.2), pure: at most [`PAGE`] tools a
//! page, with `nextCursor` while more follow. A cursor names the set it
//! was made for (a hash of every tool's name, version and store) and
//! where the next page starts, so it stays valid until the set changes;
//! a cursor of another set, or none of ours, is `-32602` saying to list
//! again from the start.

use super::tools::{ToolEntry, fnv1a};

/// The most tools a page holds.
pub const PAGE: usize = 500;

/// One page: its tools and the cursor of the next, if any.
#[derive(Debug)]
pub struct Page<'a> {
    pub items: &'a [ToolEntry],
    pub next: Option<String>,
}

/// The page of `tools` that `cursor` names (the first without one).
pub fn page<'a>(
    tools: &'a [ToolEntry],
    cursor: Option<&str>,
    size: usize,
) -> Result<Page<'a>, String> {
    let set = set_hash(tools);
    let from = match cursor {
        None => 0,
        Some(cursor) => {
            let again = "list the tools again from the start (tools/list without a cursor)";
            let (hash, at) = cursor
                .split_once('.')
                .and_then(|(h, a)| Some((u64::from_str_radix(h, 16).ok()?, a.parse().ok()?)))
                .ok_or_else(|| format!("invalid cursor `{}`: {again}", cursor.escape_default()))?;
            if hash != set || at > tools.len() {
                return Err(format!("the tools changed since that cursor: {again}"));
            }
            at
        }
    };
    let to = tools.len().min(from + size.max(1));
    let next = (to < tools.len()).then(|| format!("{set:016x}.{to}"));
    Ok(Page {
        items: &tools[from..to],
        next,
    })
}

/// A hash of what the client sees of the set: each tool's name, version
/// and store, in order.
fn set_hash(tools: &[ToolEntry]) -> u64 {
    let mut text = Vec::new();
    for t in tools {
        text.extend_from_slice(t.name().as_bytes());
        text.push(0);
        text.extend_from_slice(t.version.as_bytes());
        text.push(0);
        text.extend_from_slice(t.store.to_string().as_bytes());
        text.push(0);
    }
    fnv1a(&text)
}
