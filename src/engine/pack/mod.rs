//! The pack model (HCP.md §2–§5): the document tree with positions, the
//! grammars of ids and keys, the manifest and the Skill. Plain data, no I/O
//! beyond reading a pack's files.

pub mod document;
pub mod grammar;
pub mod id;
pub mod manifest;
pub mod skill;
pub mod suggest;
pub mod text;
