//! Reader for the `.pt2` archives written by `torch.export.save` (torch 2.9 and later: schema 8.x,
//! raw-bytes weights).
//!
//! [`Archive::open`] memory-maps the file, indexes the zip, parses `models/<name>.json` into the
//! typed [`schema`], and validates every weight's view against its storage; tensor bytes are read
//! lazily from the mapping. Every record's local header must agree with the central directory,
//! and every record whose bytes are read must match its CRC-32: JSON when opening, each weight
//! storage on its first read. The reader never runs a pickle and never opens
//! `data/sample_inputs/`; the pickles of torchao's quantized weights are read as data
//! (`pickle`, `subclass`).
//!
//! ```no_run
//! let archive = tpuc_pt2::Archive::open("mlp.pt2")?;
//! for weight in archive.weights() {
//!     let view = archive.view(weight);
//!     println!("{} {} {:?} {} bytes", weight.fqn(), view.dtype, view.sizes, view.nbytes());
//! }
//! # Ok::<(), tpuc_pt2::Pt2Error>(())
//! ```

mod archive;
mod dtype;
mod error;
mod graph;
mod node_meta;
mod pickle;
mod quote;
pub mod schema;
mod subclass;
mod sym;
mod tensor;
mod weights;
mod zip;

pub use archive::{Archive, Dialect, MAX_JSON_BYTES, SCHEMA_MAJOR};
pub use dtype::DType;
pub use error::{Pt2Error, Result};
pub use graph::IoValue;
pub use node_meta::{Frame, ModuleFrame, parse_module_stack, parse_stack_trace};
pub use quote::{MAX_QUOTED_CHARS, quoted};
pub use schema::Dim;
pub use subclass::{KNOWN_SUBCLASSES, Subclass};
pub use sym::{CompareOp, MAX_DEPTH as SYM_MAX_DEPTH, SymError, SymExpr};
pub use tensor::{MAX_EXPANDED_BYTES, TensorView, WeightKind};
pub use weights::Weight;
