//! Policy (HCP.md §9, §11.2–§11.3): who may do what and why not. Pure
//! functions over a snapshot of the store: availability, grants, `why`.

pub mod availability;
pub mod capdiff;
pub mod grants;
pub mod refusal;
pub mod why;

#[cfg(test)]
mod tests;
