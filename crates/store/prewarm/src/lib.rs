//! Prewarm plans: a TOML file listing models (paths or globs), shape specialisations and targets
//! to compile into the cache ahead of time. [`Plan::load`] validates the file, with diagnostics
//! located in it, and lists the items (model × shape × target) in a deterministic order.
//! The schema is documented in `docs/prewarm.md`.

mod error;
mod plan;
mod schema;
mod shape;

pub use error::{InvalidPlan, PlanError};
pub use plan::{Item, Plan, PlanOptions};
pub use shape::{Shape, pow2_sizes, specialisations};
