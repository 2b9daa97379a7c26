//! Why a plan cannot apply. Every error names the tensor, its shape and the axis involved; a
//! plan never falls back to replication silently.

use miette::Diagnostic;
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum PlanError {
    #[error("`{text}` is not a mesh: {reason}")]
    #[diagnostic(
        code(tpuc::shard::mesh),
        help("write the mesh axes as NAME=SIZE pairs, major to minor, e.g. --mesh dp=2,tp=2")
    )]
    MeshSyntax { text: String, reason: String },

    #[error("mesh {mesh} has {mesh_devices} devices, but the target has {devices}")]
    #[diagnostic(
        code(tpuc::shard::mesh_size),
        help("the product of the axis sizes must equal the target's device count ({devices})")
    )]
    MeshDoesNotFit {
        mesh: String,
        mesh_devices: u64,
        devices: u64,
    },

    #[error("sharding needs a device count: no --mesh and no target to take it from")]
    #[diagnostic(
        code(tpuc::shard::no_devices),
        help("give --mesh (e.g. --mesh dp=2,tp=2) or --target (e.g. --target tpu:v5e:2x2)")
    )]
    NoDevices,

    #[error("preset `{preset}` needs mesh axis `{axis}`, which mesh {mesh} lacks")]
    #[diagnostic(
        code(tpuc::shard::preset_axis),
        help("the presets use axis `dp` for data and `tp` for the model, e.g. --mesh dp=2,tp=2")
    )]
    PresetAxis {
        preset: String,
        axis: String,
        mesh: String,
    },

    #[error("`{name}` is neither a sharding preset nor a plan file: {reason}")]
    #[diagnostic(
        code(tpuc::shard::plan),
        help("presets: dp, fsdp, tp, dp+tp, fsdp+tp; a plan is a TOML file (docs/sharding.md)")
    )]
    UnknownPlan { name: String, reason: String },

    #[error("plan {path}: {message}")]
    #[diagnostic(code(tpuc::shard::plan_file), help("{help}"))]
    PlanFile {
        path: String,
        message: String,
        help: String,
    },

    #[error("{tensor} has shape {shape:?}: axis `{axis}` is not in the mesh")]
    #[diagnostic(code(tpuc::shard::unknown_axis), help("the mesh has the axes {known}"))]
    UnknownAxis {
        tensor: String,
        shape: Vec<u64>,
        axis: String,
        known: String,
    },

    #[error(
        "{tensor} has shape {shape:?}: dimension {dim} ({size}) is not divisible by {axes} \
         ({shards} shards)"
    )]
    #[diagnostic(
        code(tpuc::shard::not_divisible),
        help(
            "shard dimension {dim} over axes whose sizes multiply to a divisor of {size}, \
             shard another dimension, or change the shape (--input-shape, --dim)"
        )
    )]
    NotDivisible {
        tensor: String,
        shape: Vec<u64>,
        dim: usize,
        size: u64,
        axes: String,
        shards: u64,
    },

    #[error("{tensor} has shape {shape:?} (rank {rank}), but its sharding has {given} dimensions")]
    #[diagnostic(
        code(tpuc::shard::rank),
        help("give one axis list per dimension, `[]` for a replicated one")
    )]
    RankMismatch {
        tensor: String,
        shape: Vec<u64>,
        rank: usize,
        given: usize,
    },

    #[error("{tensor} has shape {shape:?}: axis `{axis}` shards two dimensions")]
    #[diagnostic(
        code(tpuc::shard::axis_twice),
        help("a mesh axis may shard one dimension of a tensor")
    )]
    AxisTwice {
        tensor: String,
        shape: Vec<u64>,
        axis: String,
    },

    #[error("plan {path}: [{section}] rule `{pattern}` matches no {what}")]
    #[diagnostic(code(tpuc::shard::no_match), help("{what} of this program: {known}"))]
    MatchesNothing {
        path: String,
        section: &'static str,
        pattern: String,
        what: &'static str,
        known: String,
    },

    #[error("plan {path}: {tensor} matches both `{first}` and `{second}`")]
    #[diagnostic(
        code(tpuc::shard::ambiguous),
        help("make the globs disjoint, so each tensor has one rule")
    )]
    Ambiguous {
        path: String,
        tensor: String,
        first: String,
        second: String,
    },
}
