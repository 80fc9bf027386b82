//! `connect` in words (§8.5): the probe that passed, and whether the
//! Binding was connected now or already.

use crate::engine::ops::ConnectOutcome;
use crate::engine::pack::manifest::BindingKind;
use crate::engine::pack::text::one_line;
use std::fmt::{Result, Write};

pub fn write(w: &mut impl Write, o: &ConnectOutcome) -> Result {
    let pack_id = one_line(&o.pack_id);
    if o.binding == BindingKind::Public {
        return writeln!(w, "{pack_id}: public binding, nothing to connect");
    }
    if let Some(probe) = &o.probe {
        let verb = one_line(&probe.verb_key);
        writeln!(w, "probe {verb} passed ({} ms)", probe.duration_ms)?;
    }
    if o.changed {
        writeln!(w, "connected {pack_id} ({} binding)", o.binding.as_str())
    } else {
        writeln!(w, "{pack_id} is connected ({} binding)", o.binding.as_str())
    }
}
