//! The pretty forms ops print and parse in, as the op table declares them. Each names one
//! shape of text after the op name; the printer (`print/pretty.rs`) writes it and the parser
//! (`parse/custom.rs`) reads it back.

/// The named form an op prints in when it is not generic. A form with a keyword (`dim = N`,
/// `dims = [..]`, `sizes = [..]`) carries the name of the attribute the keyword stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// Only `"dialect.op"(%a) <{..}> ({..}) : (T) -> U`.
    Generic,
    /// `op %a, %b : T` (one type when the operands and result share it, else functional).
    Elementwise,
    /// `op %a, %b : (T, U) -> V`.
    Functional,
    /// `op %a : T -> U`: CHLO's one-operand form.
    ChloUnary,
    /// `op %a, %b : T, U -> V`.
    ChloBinary,
    /// `op %a, %b {inherent attrs} : (T, U) -> V`.
    ChloBroadcast,
    /// `op(%a, k = N) : T -> (U, V)`.
    TopK,
    /// `op DIRECTION, %a, %b[, TYPE] : (T, U) -> V`.
    Compare,
    /// `op %p, %a, %b : P, T`.
    Select,
    /// `op dense<..> : T`.
    Constant,
    /// `op dim = N : T`.
    Iota(&'static str),
    /// `op %a, dim = N : (T) -> U`.
    Dim(&'static str),
    /// `op %a, dims = [..] : (T) -> U`.
    Dims(&'static str),
    /// `op %a, dims = [..] : T` (one type when operand and result share it).
    Reverse(&'static str),
    /// `op %a [0:2, 1:4:2] : (T) -> U`.
    Slice,
    /// `op %a, %i, sizes = [..] : (T, I) -> U`.
    Sizes(&'static str),
    /// `op %a, %v, low = [..], high = [..], interior = [..] : (T, V) -> U`.
    Pad,
    /// `op %a, %b, batching_dims = [..] x [..], contracting_dims = [..] x [..] : ..`.
    DotGeneral,
    /// `op(%a, %b) dim_numbers = [b, 0, f]x[..]->[..], window = {..} : ..`.
    Convolution,
    /// `op(%a init: %i) applies OP across dimensions = [..] : ..` or the `reducer` form.
    Reduce,
    /// `op(%it = %a) : T cond {..} do {..}`.
    While,
    /// `op "name" %a {..} : (T) -> U`.
    Composite,
    /// `op @target(%a) {..} : (T) -> U`.
    CustomCall,
    /// `op %a, %b : T, U` or `op()`.
    Barrier,
    /// `op %a, type = FFT, length = [..] : (T) -> U`.
    Fft,
    /// `op %s, algorithm = A : (T) -> (T, U)`.
    RngBitGenerator,
    /// `op %a, format = eXmY : T`.
    ReducePrecision,
    /// `op %a, %b : tuple<T, U>`.
    Tuple,
    /// `op %t[N] : (tuple<..>) -> T`.
    GetTupleElement,
    /// `op : T`: no operands, one result.
    ResultType,
    /// `return %a : T` (`func.return`, `stablehlo.return`).
    Return,
    /// `call @f(%a) : (T) -> U`.
    Call,
    /// `op %a <@mesh, [{..}]> : T`.
    ShardingConstraint,
}
