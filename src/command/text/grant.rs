//! `grant` and `revoke` in words (§9.3–§9.4): what changed, and when a
//! grant turned enforcement on.

use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

/// `(revoke, changed, enforced_now)` say what was done.
pub fn write(
    w: &mut impl Write,
    principal: &str,
    grant: &str,
    (revoke, changed, enforced_now): (bool, bool, bool),
) -> Result {
    let (principal, grant) = (one_line(principal), one_line(grant));
    match (revoke, changed) {
        (false, true) => writeln!(w, "granted {grant} to {principal}")?,
        (false, false) => writeln!(w, "{principal} already holds {grant}")?,
        (true, true) => writeln!(w, "revoked {grant} from {principal}")?,
        (true, false) => writeln!(w, "{principal} did not hold {grant}")?,
    }
    if enforced_now {
        writeln!(
            w,
            "grants are now enforced: each principal holds only what is granted to it (`user` keeps `*`)"
        )?;
    }
    Ok(())
}
