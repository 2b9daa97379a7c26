//! Typed mirror of `torch/_export/serde/schema.py` (schema 8.x), as written to `models/<name>.json`
//! and the payload configs.
//!
//! Forward compatible like torch's own reader: unknown object keys are ignored, missing fields with
//! a default are defaulted, and union keys from a newer schema become `Unknown(key)`. Enum-valued
//! integers (dtype, layout, memory format, argument kind) stay raw codes so a new value does not
//! stop a file from opening; [`TensorMeta::dtype`] and friends interpret them.

mod float;
pub(crate) mod union;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use float::Float;
use union::json_union;

use crate::dtype::DType;

/// `ExportedProgram`: the root object of `models/<name>.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportedProgram {
    pub graph_module: GraphModule,
    #[serde(default)]
    pub opset_version: BTreeMap<String, i64>,
    #[serde(default)]
    pub range_constraints: BTreeMap<String, RangeConstraint>,
    pub schema_version: SchemaVersion,
    #[serde(default)]
    pub verifiers: Vec<String>,
    #[serde(default = "default_torch_version")]
    pub torch_version: String,
    #[serde(default)]
    pub guards_code: Vec<String>,
}

fn default_torch_version() -> String {
    "<=2.4".to_owned()
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaVersion {
    pub major: i64,
    pub minor: i64,
}

/// Inclusive bounds of a symbol; `None` is unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RangeConstraint {
    pub min_val: Option<i64>,
    pub max_val: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraphModule {
    pub graph: Graph,
    #[serde(default)]
    pub signature: GraphSignature,
    #[serde(default)]
    pub module_call_graph: Vec<ModuleCallEntry>,
    #[serde(default)]
    pub metadata: BTreeMap<String, String>,
    #[serde(default)]
    pub treespec_namedtuple_fields: BTreeMap<String, NamedTupleDef>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NamedTupleDef {
    pub field_names: Vec<String>,
}

/// A graph: the program's top level, or a higher-order op's subgraph (its own namespace).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Graph {
    pub inputs: Vec<Argument>,
    pub outputs: Vec<Argument>,
    pub nodes: Vec<Node>,
    pub tensor_values: BTreeMap<String, TensorMeta>,
    pub sym_int_values: BTreeMap<String, SymInt>,
    pub sym_bool_values: BTreeMap<String, SymBool>,
    pub is_single_tensor_return: bool,
    pub custom_obj_values: BTreeMap<String, CustomObjArgument>,
    pub sym_float_values: BTreeMap<String, SymFloat>,
}

/// One call: an ATen op (`torch.ops.aten.add.Tensor`), a higher-order op, or a Python operator.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Node {
    pub target: String,
    pub inputs: Vec<NamedArgument>,
    pub outputs: Vec<Argument>,
    /// Strings: `stack_trace`, `nn_module_stack`, `torch_fn`, `from_node`, `source_fn_stack`, ...
    pub metadata: BTreeMap<String, String>,
    pub is_hop_single_tensor_return: Option<bool>,
    /// The FX node name (schema 8.20+).
    pub name: Option<String>,
}

/// An argument with its ATen schema name (`""` for higher-order-op positionals).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedArgument {
    #[serde(default)]
    pub name: String,
    pub arg: Argument,
    /// 1 positional, 2 keyword (schema 8.7+).
    #[serde(default)]
    pub kind: Option<i64>,
}

/// `ArgumentKind` codes.
pub mod argument_kind {
    pub const POSITIONAL: i64 = 1;
    pub const KEYWORD: i64 = 2;
}

json_union! {
    /// A node input or output value.
    pub enum Argument {
        "as_none" => AsNone(serde_json::Value),
        "as_tensor" => AsTensor(TensorArgument),
        "as_tensors" => AsTensors(Vec<TensorArgument>),
        "as_int" => AsInt(i64),
        "as_ints" => AsInts(Vec<i64>),
        "as_float" => AsFloat(Float),
        "as_floats" => AsFloats(Vec<Float>),
        "as_string" => AsString(String),
        "as_strings" => AsStrings(Vec<String>),
        "as_sym_int" => AsSymInt(SymIntArgument),
        "as_sym_ints" => AsSymInts(Vec<SymIntArgument>),
        /// A `ScalarType` code; see [`DType::from_code`].
        "as_scalar_type" => AsScalarType(i64),
        "as_memory_format" => AsMemoryFormat(i64),
        "as_layout" => AsLayout(i64),
        "as_device" => AsDevice(Device),
        "as_bool" => AsBool(bool),
        "as_bools" => AsBools(Vec<bool>),
        "as_sym_bool" => AsSymBool(SymBoolArgument),
        "as_sym_bools" => AsSymBools(Vec<SymBoolArgument>),
        "as_graph" => AsGraph(Box<GraphArgument>),
        "as_optional_tensors" => AsOptionalTensors(Vec<OptionalTensorArgument>),
        "as_custom_obj" => AsCustomObj(CustomObjArgument),
        "as_operator" => AsOperator(String),
        "as_sym_float" => AsSymFloat(SymFloatArgument),
        "as_sym_floats" => AsSymFloats(Vec<SymFloatArgument>),
        "as_optional_tensor" => AsOptionalTensor(OptionalTensorArgument),
        "as_complex" => AsComplex(ComplexValue),
        "as_nested_tensors" => AsNestedTensors(Vec<Vec<TensorArgument>>),
        "as_int_lists" => AsIntLists(Vec<Vec<i64>>),
        "as_float_lists" => AsFloatLists(Vec<Vec<Float>>),
        "as_string_to_argument" => AsStringToArgument(BTreeMap<String, Argument>),
    }
}

impl Argument {
    /// The tensor name of an `as_tensor` argument.
    pub fn as_tensor_name(&self) -> Option<&str> {
        match self {
            Argument::AsTensor(tensor) => Some(&tensor.name),
            Argument::AsOptionalTensor(OptionalTensorArgument::AsTensor(tensor)) => {
                Some(&tensor.name)
            }
            _ => None,
        }
    }

    /// The value name an argument defines or uses, for tensors, symbolic values and custom objects.
    pub fn value_name(&self) -> Option<&str> {
        match self {
            Argument::AsTensor(tensor) => Some(&tensor.name),
            Argument::AsSymInt(SymIntArgument::AsName(name))
            | Argument::AsSymBool(SymBoolArgument::AsName(name))
            | Argument::AsSymFloat(SymFloatArgument::AsName(name)) => Some(name),
            Argument::AsCustomObj(obj) => Some(&obj.name),
            Argument::AsOptionalTensor(OptionalTensorArgument::AsTensor(tensor)) => {
                Some(&tensor.name)
            }
            _ => None,
        }
    }

    /// Subgraph of an `as_graph` argument.
    pub fn as_graph(&self) -> Option<&GraphArgument> {
        match self {
            Argument::AsGraph(graph) => Some(graph),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TensorArgument {
    pub name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TokenArgument {
    pub name: String,
}

/// A higher-order op's subgraph, inline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GraphArgument {
    pub name: String,
    pub graph: Graph,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CustomObjArgument {
    pub name: String,
    pub class_fqn: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComplexValue {
    pub real: Float,
    pub imag: Float,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Device {
    #[serde(rename = "type")]
    pub kind: String,
    pub index: Option<i64>,
}

json_union! {
    pub enum OptionalTensorArgument {
        "as_tensor" => AsTensor(TensorArgument),
        "as_none" => AsNone(serde_json::Value),
    }
}

json_union! {
    /// A SymInt operand: a named symbolic value or a literal (in mixed lists).
    pub enum SymIntArgument {
        "as_name" => AsName(String),
        "as_int" => AsInt(i64),
    }
}

json_union! {
    pub enum SymFloatArgument {
        "as_name" => AsName(String),
        "as_float" => AsFloat(Float),
    }
}

json_union! {
    pub enum SymBoolArgument {
        "as_name" => AsName(String),
        "as_bool" => AsBool(bool),
    }
}

json_union! {
    /// A dimension, stride or offset: a constant or a sympy expression.
    pub enum SymInt {
        "as_expr" => AsExpr(SymExprRecord),
        "as_int" => AsInt(i64),
    }
}

impl Default for SymInt {
    fn default() -> Self {
        SymInt::AsInt(0)
    }
}

impl SymInt {
    /// The value of a constant.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            SymInt::AsInt(value) => Some(*value),
            _ => None,
        }
    }

    /// The serialized expression of a symbolic value.
    pub fn as_expr(&self) -> Option<&SymExprRecord> {
        match self {
            SymInt::AsExpr(expr) => Some(expr),
            _ => None,
        }
    }

    /// The constant, or the example value torch recorded for an expression.
    pub fn hint(&self) -> Option<i64> {
        match self {
            SymInt::AsInt(value) => Some(*value),
            SymInt::AsExpr(expr) => expr.int_hint(),
            SymInt::Unknown(_) => None,
        }
    }
}

json_union! {
    pub enum SymFloat {
        "as_expr" => AsExpr(SymExprRecord),
        "as_float" => AsFloat(Float),
    }
}

json_union! {
    pub enum SymBool {
        "as_expr" => AsExpr(SymExprRecord),
        "as_bool" => AsBool(bool),
    }
}

/// A sympy expression as torch stores it: `srepr` text plus the example value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SymExprRecord {
    pub expr_str: String,
    #[serde(default)]
    pub hint: Option<SymExprHint>,
}

impl SymExprRecord {
    pub fn int_hint(&self) -> Option<i64> {
        match self.hint {
            Some(SymExprHint::AsInt(value)) => Some(value),
            _ => None,
        }
    }

    /// Parses `expr_str`; see [`crate::SymExpr::parse`].
    pub fn parse(&self) -> Result<crate::SymExpr, crate::SymError> {
        crate::SymExpr::parse(&self.expr_str)
    }
}

json_union! {
    pub enum SymExprHint {
        "as_int" => AsInt(i64),
        "as_bool" => AsBool(bool),
        "as_float" => AsFloat(Float),
    }
}

/// Metadata of a tensor value: `tensor_values` entries and weight payloads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TensorMeta {
    /// `ScalarType` code; see [`TensorMeta::dtype`].
    #[serde(rename = "dtype")]
    pub dtype_code: i64,
    pub sizes: Vec<SymInt>,
    pub requires_grad: bool,
    pub device: Device,
    pub strides: Vec<SymInt>,
    pub storage_offset: SymInt,
    /// `Layout` code; 7 is strided.
    pub layout: i64,
}

/// `Layout` code of ordinary dense tensors.
pub const LAYOUT_STRIDED: i64 = 7;

impl TensorMeta {
    /// The element type, `None` for an unknown code.
    pub fn dtype(&self) -> Option<DType> {
        DType::from_code(self.dtype_code)
    }

    /// The dimensions, constant or symbolic (the expressions parsed).
    pub fn shape(&self) -> Result<Vec<Dim>, crate::SymError> {
        self.sizes.iter().map(Dim::from_sym_int).collect()
    }

    /// The sizes if all are constant.
    pub fn static_sizes(&self) -> Option<Vec<i64>> {
        self.sizes.iter().map(SymInt::as_int).collect()
    }
}

/// A dimension of a tensor: a constant or a symbolic expression with its example value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Dim {
    Static(i64),
    Symbolic {
        expr: crate::SymExpr,
        hint: Option<i64>,
    },
}

impl Dim {
    pub fn from_sym_int(value: &SymInt) -> Result<Dim, crate::SymError> {
        match value {
            SymInt::AsInt(size) => Ok(Dim::Static(*size)),
            SymInt::AsExpr(record) => Ok(Dim::Symbolic {
                expr: record.parse()?,
                hint: record.int_hint(),
            }),
            SymInt::Unknown(key) => Err(crate::SymError::UnknownSymIntKind(key.clone())),
        }
    }
}

impl std::fmt::Display for Dim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dim::Static(size) => write!(f, "{size}"),
            Dim::Symbolic { expr, .. } => write!(f, "{expr}"),
        }
    }
}

/// Inputs and outputs of the flat graph, pairing with `graph.inputs`/`graph.outputs` by position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GraphSignature {
    pub input_specs: Vec<InputSpec>,
    pub output_specs: Vec<OutputSpec>,
}

json_union! {
    pub enum InputSpec {
        "user_input" => UserInput(UserInputSpec),
        "parameter" => Parameter(InputToParameterSpec),
        "buffer" => Buffer(InputToBufferSpec),
        "tensor_constant" => TensorConstant(InputToTensorConstantSpec),
        "custom_obj" => CustomObj(InputToCustomObjSpec),
        "token" => Token(InputTokenSpec),
        "constant_input" => ConstantInput(InputToConstantInputSpec),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserInputSpec {
    pub arg: Argument,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InputToParameterSpec {
    pub arg: TensorArgument,
    pub parameter_name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputToBufferSpec {
    #[serde(default)]
    pub arg: TensorArgument,
    #[serde(default)]
    pub buffer_name: String,
    #[serde(default = "default_true")]
    pub persistent: bool,
}

fn default_true() -> bool {
    true
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InputToTensorConstantSpec {
    pub arg: TensorArgument,
    pub tensor_constant_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InputToCustomObjSpec {
    pub arg: CustomObjArgument,
    pub custom_obj_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InputTokenSpec {
    pub arg: TokenArgument,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputToConstantInputSpec {
    #[serde(default)]
    pub name: String,
    pub value: ConstantValue,
}

json_union! {
    pub enum ConstantValue {
        "as_none" => AsNone(serde_json::Value),
        "as_int" => AsInt(i64),
        "as_float" => AsFloat(Float),
        "as_string" => AsString(String),
        "as_bool" => AsBool(bool),
    }
}

json_union! {
    pub enum OutputSpec {
        "user_output" => UserOutput(UserOutputSpec),
        "loss_output" => LossOutput(LossOutputSpec),
        "buffer_mutation" => BufferMutation(BufferMutationSpec),
        "gradient_to_parameter" => GradientToParameter(GradientToParameterSpec),
        "gradient_to_user_input" => GradientToUserInput(GradientToUserInputSpec),
        "user_input_mutation" => UserInputMutation(UserInputMutationSpec),
        "token" => Token(OutputTokenSpec),
        "parameter_mutation" => ParameterMutation(ParameterMutationSpec),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserOutputSpec {
    pub arg: Argument,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LossOutputSpec {
    pub arg: TensorArgument,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BufferMutationSpec {
    pub arg: TensorArgument,
    pub buffer_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParameterMutationSpec {
    pub arg: TensorArgument,
    pub parameter_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GradientToParameterSpec {
    pub arg: TensorArgument,
    pub parameter_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GradientToUserInputSpec {
    pub arg: TensorArgument,
    pub user_input_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UserInputMutationSpec {
    pub arg: TensorArgument,
    pub user_input_name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OutputTokenSpec {
    pub arg: TokenArgument,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModuleCallEntry {
    pub fqn: String,
    pub signature: Option<ModuleCallSignature>,
}

/// Calling convention of a module; `in_spec`/`out_spec` are pytree TreeSpec JSON strings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModuleCallSignature {
    pub inputs: Vec<Argument>,
    pub outputs: Vec<Argument>,
    pub in_spec: String,
    pub out_spec: String,
    pub forward_arg_names: Option<Vec<String>>,
}

/// `PayloadConfig`: `data/weights/<m>_weights_config.json`, `data/constants/<m>_constants_config.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PayloadConfig {
    pub config: BTreeMap<String, PayloadMeta>,
}

/// Where one FQN's bytes are and how to view them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PayloadMeta {
    /// File name inside the payload folder: `weight_0`, `tensor_1`, `custom_obj_0`, ...
    pub path_name: String,
    pub is_param: bool,
    /// The payload is a pickle (tensor subclasses, custom objects).
    pub use_pickle: bool,
    /// `None` for custom objects.
    pub tensor_meta: Option<TensorMeta>,
}

#[cfg(test)]
mod tests;
