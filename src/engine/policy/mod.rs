//! Policy (HCP.md §9, §11.2–§11.3, §13.7): who may do what and why not.
//! Pure functions over a snapshot of the store: the one refusal type
//! (`refusal`: a §11.3 reason and its error code), availability, grants,
//! `why`, and the capability diff of an upgrade (`capdiff`, its files part
//! `capdiff_files`, the `change` both write).

pub mod availability;
pub mod capdiff;
pub mod capdiff_files;
pub mod change;
pub mod grants;
pub mod refusal;
pub mod why;

#[cfg(test)]
mod tests;
