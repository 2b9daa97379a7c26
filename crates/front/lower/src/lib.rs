//! Lowering of torch.export programs (`.pt2`, "TRAINING" or "ATEN" dialect) to a StableHLO
//! [`Program`](tpuc_ir::Program): the module and its interface (what each argument and result
//! of `main` is). Lowering is nothing else: the middle end (`tpuc-passes`) takes it from there.
//!
//! [`lower`] walks the program's FX graph node by node. Each node's target is looked up in the op
//! [`registry`]: one entry per supported ATen overload, holding its ATen signature (parsed once
//! by [`schema`], which fills in the arguments torch does not serialize) and its lowering
//! function. Op families live in [`ops`]; helpers they share (broadcasting, constants, dims,
//! reductions) live in [`support`], type promotion in [`promote`].
//!
//! Symbolic dimensions are specialised per compile ([`LowerOptions::dims`],
//! [`LowerOptions::input_shapes`], else the example's hints), so `main` has static shapes;
//! [`plan_dynamic`] keeps them, from lowerings at several sizes.
//!
//! Adding an op: add `aten("<signature from native_functions.yaml>", lower_fn)` to the `OPS`
//! table of its family in `ops/` (a new family module also goes into `ops::FAMILIES`). The
//! lowering reads arguments by schema name through `Args` (defaults filled in), builds with
//! `cx.b` and the `support` helpers (which skip identity reshapes, converts, transposes and
//! broadcasts), and returns one `Val` per node output. In-place variants (`op_`) need no entry:
//! the registry derives them from the functional signature (`OpSchema::in_place`) and casts
//! the functional result back to the written tensor. After any op, each written argument
//! (`Tensor(a!)`) is rebound to the result in its alias set, or to the value the lowering
//! reported with `Cx::write` (running statistics), and so is the tensor it aliases. Every result is checked
//! against the shape and dtype torch recorded. Add a case to `ops/tests.rs` (run on XLA:CPU)
//! and regenerate `docs/ops.md` with `BLESS=1 cargo test -p tpuc-lower --test ops_doc`.

mod args;
mod checks;
mod cx;
mod disagreement;
mod docs;
mod dtype;
mod dynamic;
mod env;
mod error;
mod lowering;
mod node;
mod not_lowered;
mod op_def;
mod ops;
mod promote;
mod registry;
mod schema;
mod slice;
mod specialize;
mod support;
mod world;

use std::collections::BTreeMap;

pub use docs::ops_markdown;
pub use dynamic::{DynamicLowering, refused_with_dynamic};
pub use error::{LowerError, SourceLine};
pub use lowering::INLINE_WEIGHTS_LIMIT;

/// How to lower a program.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// Embed weights as constants instead of leading `main` arguments (`--inline-weights`).
    pub inline_weights: bool,
    /// Symbol values by name (`--dim s77=8`); unspecified symbols take the example's hint.
    pub dims: BTreeMap<String, i64>,
    /// Full static shapes of user inputs by position (`--input-shape 0=8x16`); each symbolic dim
    /// of that input is solved from it.
    pub input_shapes: BTreeMap<usize, Vec<i64>>,
    /// Report every unsupported op of the model instead of stopping at the first.
    pub keep_going: bool,
    /// How many ranks run a program with collectives (`--world-size`), when its graph does
    /// not record it; see [`world_size`].
    pub world_size: Option<u32>,
    /// Compile checks in (`--debug`): every index of a gather, scatter, embedding or indexing
    /// op against its bounds, reported as index-check results after the others.
    pub debug: bool,
    /// With `debug`, also check every floating-point output of every node (of the top-level
    /// graph) for NaN and infinities (`--debug=nan`), reported as
    /// NaN-check results in node order with the index checks.
    pub debug_nan: bool,
    /// Lower only these user outputs (positions) and the nodes they need; `None` for all.
    pub outputs: Option<Vec<usize>>,
    /// Run the whole program as inside `torch.autocast("cpu", dtype)` (`--precision bf16`):
    /// matrix products, convolutions and attention in `dtype`, losses in float32, the rest
    /// in the dtypes of their inputs; the weights stay as they are (float32 master copies).
    pub autocast: Option<tpuc_pt2::DType>,
}

/// A lowered program and the symbol values it was specialised to.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// Verified; `main` is public and carries the interface: weights (unless inlined) first,
    /// then user inputs; results in the order of the program's output specs, debug checks last.
    pub program: tpuc_ir::Program,
    pub dims: BTreeMap<String, i64>,
    /// What the user should know that did not stop the lowering (an archive whose metadata
    /// disagrees with its graph where the outputs do not depend on it).
    pub warnings: Vec<String>,
}

/// The torch dtype of a StableHLO element type, if torch has one.
pub fn torch_dtype(element: tpuc_ir::ElementType) -> Option<tpuc_pt2::DType> {
    dtype::dtype_of(element).ok()
}

/// Lowers the archive's program to a StableHLO module with a public `main`.
pub fn lower(archive: &tpuc_pt2::Archive, options: &LowerOptions) -> Result<Lowered, LowerError> {
    lowering::lower(archive, options)
}

/// How to lower the archive's program keeping its symbolic dimensions (`tpuc lower
/// --dynamic`): lower it at each of the plan's points, run the middle end on each, and
/// generalise them into one program whose `main` takes and returns `?` dimensions, computes
/// shapes with StableHLO's dynamic ops, and serves every size a consumer refines it to (JAX's
/// shape refinement). Symbols in `options.dims` stay fixed. `None`: no symbol is left, and
/// [`lower`] gives the program. `docs/cli.md` says what it handles.
pub fn plan_dynamic(
    archive: &tpuc_pt2::Archive,
    options: &LowerOptions,
) -> Result<Option<DynamicLowering>, LowerError> {
    dynamic::plan(archive, options)
}

/// How many ranks run the archive's program: `None` when it has no collectives, which makes
/// it an ordinary one-device program. A program with collectives is one rank's program; its
/// module has `mhlo.num_replicas` set to this.
pub fn world_size(
    archive: &tpuc_pt2::Archive,
    options: &LowerOptions,
) -> Result<Option<u32>, LowerError> {
    world::world_size(archive.graph(), options.world_size)
}

pub use not_lowered::{NOT_LOWERED, why_not_lowered};

/// Every supported target, sorted (for docs/ops.md and `tpuc` help).
pub fn supported_targets() -> impl Iterator<Item = &'static str> {
    registry::Registry::get().targets()
}
