//! The lifecycle engine: everything hcpx knows about packs, with no terminal
//! or command-line code in it. Front-ends (`cli`, and later `tui`) call it.

pub mod availability;
pub mod catalog;
pub mod config;
pub mod diagnostic;
pub mod doctor;
pub mod document;
pub mod error;
pub mod exec;
pub mod grammar;
pub mod grants;
pub mod lifecycle;
pub mod lint;
pub mod listing;
pub mod manifest;
pub mod skill;
pub mod snapshot;
pub mod state;
pub mod store;
pub mod why;
