//! Lowering of torch.export programs (`.pt2`, "TRAINING" or "ATEN" dialect) to StableHLO.
//!
//! [`lower`] walks the program's FX graph node by node. Each node's target is looked up in the op
//! [`registry`]: one entry per supported ATen overload, holding its ATen signature (parsed once
//! by [`schema`], which fills in the arguments torch does not serialize) and its lowering
//! function. Op families live in [`ops`]; helpers they share (broadcasting, constants, dims,
//! reductions) live in [`support`], type promotion in [`promote`].
//!
//! Symbolic dimensions are specialised per compile ([`LowerOptions::dims`],
//! [`LowerOptions::input_shapes`], else the example's hints), so `main` has static shapes;
//! [`lower_dynamic`] keeps them, from lowerings at several sizes.
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
mod bindings;
mod cx;
mod docs;
mod dtype;
mod dynamic;
mod env;
mod error;
mod lowering;
mod ops;
mod promote;
mod registry;
mod schema;
mod sharding;
mod slice;
mod specialize;
mod support;
mod world;

use std::collections::BTreeMap;

pub use bindings::{ARG_INFO, ArgumentBinding, ArgumentSource, ResultBinding, ResultSource};
pub use docs::ops_markdown;
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
    /// The passes run on the lowered module (the default pipeline unless told otherwise).
    pub passes: tpuc_passes::PassOptions,
    /// How many ranks run a program with collectives (`--world-size`), when its graph does
    /// not record it; see [`world_size`].
    pub world_size: Option<u32>,
    /// A sharding plan applied after the passes (`--shard`, `--mesh`; docs/sharding.md).
    pub sharding: Option<tpuc_passes::sharding::ShardRequest>,
    /// Compile checks in (`--debug`): every index of a gather, scatter, embedding or indexing
    /// op against its bounds, reported as [`ResultSource::IndexCheck`] results after the others.
    pub debug: bool,
    /// With `debug`, also check every floating-point output of every node (of the top-level
    /// graph) for NaN and infinities (`--debug=nan`), reported as
    /// [`ResultSource::NonFiniteCheck`] results in node order with the index checks.
    pub debug_nan: bool,
    /// Lower only these user outputs (positions) and the nodes they need; `None` for all.
    pub outputs: Option<Vec<usize>>,
}

/// A lowered program: the module and how `main`'s arguments and results map to the program.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// Verified; `main` is public.
    pub module: tpuc_ir::Module,
    /// One entry per `main` argument, in order: weights (unless inlined), then user inputs.
    pub arguments: Vec<ArgumentBinding>,
    /// One entry per `main` result, in the order of the program's output specs.
    pub results: Vec<ResultBinding>,
    /// The symbol values the module was specialised to.
    pub dims: BTreeMap<String, i64>,
    /// What the passes did: timing, op counts, IR dumps, removed arguments.
    pub passes: tpuc_passes::PipelineReport,
    /// What the sharding plan decided, when there was one.
    pub sharding: Option<tpuc_passes::sharding::ShardReport>,
}

/// The torch dtype of a StableHLO element type, if torch has one.
pub fn torch_dtype(element: tpuc_ir::ElementType) -> Option<tpuc_pt2::DType> {
    dtype::dtype_of(element).ok()
}

/// Lowers the archive's program to a StableHLO module with a public `main`.
pub fn lower(archive: &tpuc_pt2::Archive, options: &LowerOptions) -> Result<Lowered, LowerError> {
    lowering::lower(archive, options)
}

/// Lowers the archive's program keeping its symbolic dimensions (`tpuc lower --dynamic`):
/// `main` takes and returns `?` dimensions, computes shapes with StableHLO's dynamic ops, and
/// serves every size a consumer refines it to (JAX's shape refinement). Symbols in
/// `options.dims` stay fixed. The module is not fused; see [`dynamic`] for what it handles.
pub fn lower_dynamic(
    archive: &tpuc_pt2::Archive,
    options: &LowerOptions,
) -> Result<Lowered, LowerError> {
    dynamic::lower(archive, options)
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

/// Every supported target, sorted (for docs/ops.md and `tpuc` help).
pub fn supported_targets() -> impl Iterator<Item = &'static str> {
    registry::Registry::get().targets()
}
