//! The lifecycle engine: everything hcpx knows about packs, with no terminal
//! or command-line code in it. Front-ends (`cli`, and later `tui`) call it.

pub mod diagnostic;
pub mod document;
pub mod error;
pub mod exec;
pub mod grammar;
pub mod lint;
pub mod manifest;
pub mod skill;
