//! The pack model (HCP.md §2–§5): the document tree with positions, the
//! grammars of ids and keys, the checked [`id::PackId`] store paths are
//! built from (§14.2), the manifest and the Skill, did-you-mean
//! suggestions, the `http` adapter's [`url`] (joined to `base_url`, its
//! origin, §6.4), and [`text::terminal_safe`] for pack text on a terminal
//! (§14.5). Plain data, no I/O beyond reading a pack's files.

pub mod document;
pub mod grammar;
pub mod id;
pub mod manifest;
pub mod skill;
pub mod suggest;
pub mod text;
pub mod url;
