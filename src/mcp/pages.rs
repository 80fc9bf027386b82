//! `tools/list` in pages (HCP.md §16.2), pure: at most [`PAGE`] tools a
//! page, with `nextCursor` while more follow. A cursor names where the
//! next page starts and the tools before it (a hash of each one's name,
//! version and store), so it stays valid until the set changes: it is
//! refused only when the tools the client was given before it are no
//! longer the first ones (a change further on is seen on the later
//! pages). A new server's first page is made from the first packs alone
//! (`Listing::read_first`), so the cursor cannot depend on what follows.
//! A cursor whose tools changed, or none of ours, is `-32602` saying to
//! list again from the start.

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
    let from = match cursor {
        None => 0,
        Some(cursor) => {
            let again = "list the tools again from the start (tools/list without a cursor)";
            let (hash, at) = cursor
                .split_once('.')
                .and_then(|(h, a)| Some((u64::from_str_radix(h, 16).ok()?, a.parse().ok()?)))
                .ok_or_else(|| format!("invalid cursor `{}`: {again}", cursor.escape_default()))?;
            if at > tools.len() || hash != set_hash(&tools[..at]) {
                return Err(format!("the tools changed since that cursor: {again}"));
            }
            at
        }
    };
    let to = tools.len().min(from + size.max(1));
    let next = (to < tools.len()).then(|| format!("{:016x}.{to}", set_hash(&tools[..to])));
    Ok(Page {
        items: &tools[from..to],
        next,
    })
}

/// A hash of what the client sees of `tools`: each one's name, version
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use rmcp::model::Tool;
    use std::sync::Arc;

    fn tools(names: &[&str]) -> Vec<ToolEntry> {
        names
            .iter()
            .map(|n| ToolEntry {
                tool: Tool::new(n.to_string(), "d", Arc::new(Default::default())),
                pack_id: "p".into(),
                verb_key: n.to_string(),
                version: "1.0.0".into(),
                store: 0,
            })
            .collect()
    }

    /// A cursor holds while the tools before it are the same, whatever
    /// follows them (a new server's first page is made from the first
    /// packs alone); it is refused once one of those changed.
    #[test]
    fn a_cursor_names_the_tools_before_it() {
        let first = tools(&["a", "b", "c"]);
        let page1 = page(&first, None, 2).unwrap();
        assert_eq!(page1.items.len(), 2);
        let cursor = page1.next.unwrap();
        let longer = tools(&["a", "b", "c", "d"]);
        let page2 = page(&longer, Some(&cursor), 2).unwrap();
        let names: Vec<&str> = page2.items.iter().map(ToolEntry::name).collect();
        assert_eq!(names, ["c", "d"]);
        assert!(page2.next.is_none());
        let changed = tools(&["a", "x", "c"]);
        let refused = page(&changed, Some(&cursor), 2).unwrap_err();
        assert!(refused.contains("list the tools again"), "{refused}");
        assert!(page(&first, Some("nonsense"), 2).is_err());
    }
}
