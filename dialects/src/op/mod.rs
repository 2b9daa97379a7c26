//! The operations: one [`OpKind`] variant per op, each carrying its typed attributes, all
//! generated from the op table in `table.rs`.

mod arity;
pub mod attr_name;
pub mod codec;
pub(crate) mod define;
mod fold_kind;
mod sharding_rule;
mod syntax;
mod table;
#[cfg(test)]
mod table_tests;

pub use arity::Arity;
pub(crate) use arity::{check_operands, check_results};
pub use fold_kind::FoldKind;
pub use sharding_rule::ShardingRuleKind;
pub use syntax::Syntax;
pub use table::{FUNCTION_OP, MESH_OP, OpKind, Opcode};

/// The prefix of every CHLO op name.
pub const CHLO_PREFIX: &str = "chlo.";

macro_rules! op_enum {
    ($($enum:tt)*) => {
        crate::text_enum!(name / from_name, "The full op name, e.g. `stablehlo.add`."; $($enum)*);
    };
}

op_enum!(
    /// Elementwise ops of one operand.
    UnaryOp {
        Abs => "stablehlo.abs",
        Cbrt => "stablehlo.cbrt",
        Ceil => "stablehlo.ceil",
        CountLeadingZeros => "stablehlo.count_leading_zeros",
        Cosine => "stablehlo.cosine",
        Exponential => "stablehlo.exponential",
        ExponentialMinusOne => "stablehlo.exponential_minus_one",
        Floor => "stablehlo.floor",
        Imag => "stablehlo.imag",
        IsFinite => "stablehlo.is_finite",
        Log => "stablehlo.log",
        LogPlusOne => "stablehlo.log_plus_one",
        Logistic => "stablehlo.logistic",
        Negate => "stablehlo.negate",
        Not => "stablehlo.not",
        Popcnt => "stablehlo.popcnt",
        Real => "stablehlo.real",
        RoundNearestAfz => "stablehlo.round_nearest_afz",
        RoundNearestEven => "stablehlo.round_nearest_even",
        Rsqrt => "stablehlo.rsqrt",
        Sign => "stablehlo.sign",
        Sine => "stablehlo.sine",
        Sqrt => "stablehlo.sqrt",
        Tan => "stablehlo.tan",
        Tanh => "stablehlo.tanh",
    }
);

op_enum!(
    /// Elementwise ops of two operands.
    BinaryOp {
        Add => "stablehlo.add",
        And => "stablehlo.and",
        Atan2 => "stablehlo.atan2",
        Complex => "stablehlo.complex",
        Divide => "stablehlo.divide",
        Maximum => "stablehlo.maximum",
        Minimum => "stablehlo.minimum",
        Multiply => "stablehlo.multiply",
        Or => "stablehlo.or",
        Power => "stablehlo.power",
        Remainder => "stablehlo.remainder",
        ShiftLeft => "stablehlo.shift_left",
        ShiftRightArithmetic => "stablehlo.shift_right_arithmetic",
        ShiftRightLogical => "stablehlo.shift_right_logical",
        Subtract => "stablehlo.subtract",
        Xor => "stablehlo.xor",
    }
);

op_enum!(
    /// CHLO elementwise ops of one operand: JAX prints them; `chlo-legalize` rewrites them to
    /// StableHLO.
    ChloUnaryOp {
        Acos => "chlo.acos",
        Acosh => "chlo.acosh",
        Asin => "chlo.asin",
        Asinh => "chlo.asinh",
        Atan => "chlo.atan",
        Atanh => "chlo.atanh",
        BesselI1e => "chlo.bessel_i1e",
        Conj => "chlo.conj",
        Cosh => "chlo.cosh",
        Digamma => "chlo.digamma",
        Erf => "chlo.erf",
        ErfInv => "chlo.erf_inv",
        Erfc => "chlo.erfc",
        IsInf => "chlo.is_inf",
        IsNegInf => "chlo.is_neg_inf",
        IsPosInf => "chlo.is_pos_inf",
        Lgamma => "chlo.lgamma",
        Sinh => "chlo.sinh",
        Square => "chlo.square",
        Tan => "chlo.tan",
    }
);

impl ChloUnaryOp {
    /// Ops whose result is a predicate (`tensor<...xi1>`) rather than the operand's type.
    pub fn is_predicate(self) -> bool {
        matches!(self, Self::IsInf | Self::IsNegInf | Self::IsPosInf)
    }
}

op_enum!(
    /// CHLO binary ops with rank broadcasting: numpy-style (trailing dimensions aligned) or
    /// through `broadcast_dimensions`, and size-1 dimensions stretched.
    ChloBroadcastOp {
        Add => "chlo.broadcast_add",
        And => "chlo.broadcast_and",
        Atan2 => "chlo.broadcast_atan2",
        Complex => "chlo.broadcast_complex",
        Divide => "chlo.broadcast_divide",
        Maximum => "chlo.broadcast_maximum",
        Minimum => "chlo.broadcast_minimum",
        Multiply => "chlo.broadcast_multiply",
        NextAfter => "chlo.broadcast_next_after",
        Or => "chlo.broadcast_or",
        Polygamma => "chlo.broadcast_polygamma",
        Power => "chlo.broadcast_power",
        Remainder => "chlo.broadcast_remainder",
        ShiftLeft => "chlo.broadcast_shift_left",
        ShiftRightArithmetic => "chlo.broadcast_shift_right_arithmetic",
        ShiftRightLogical => "chlo.broadcast_shift_right_logical",
        Subtract => "chlo.broadcast_subtract",
        Xor => "chlo.broadcast_xor",
        Zeta => "chlo.broadcast_zeta",
    }
);

op_enum!(
    /// CHLO elementwise float ops of two operands of the same shape, with no StableHLO
    /// counterpart.
    ChloBinaryOp {
        Mulhi => "chlo.mulhi",
        NextAfter => "chlo.next_after",
        Polygamma => "chlo.polygamma",
        Zeta => "chlo.zeta",
    }
);

/// What a `chlo.broadcast_*` op applies once its operands have the same shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BroadcastBinary {
    Stablehlo(BinaryOp),
    Chlo(ChloBinaryOp),
}

impl ChloBroadcastOp {
    /// The op applied once the operands have the same shape.
    pub fn binary(self) -> BroadcastBinary {
        use BroadcastBinary::{Chlo, Stablehlo};
        match self {
            Self::Add => Stablehlo(BinaryOp::Add),
            Self::And => Stablehlo(BinaryOp::And),
            Self::Atan2 => Stablehlo(BinaryOp::Atan2),
            Self::Complex => Stablehlo(BinaryOp::Complex),
            Self::Divide => Stablehlo(BinaryOp::Divide),
            Self::Maximum => Stablehlo(BinaryOp::Maximum),
            Self::Minimum => Stablehlo(BinaryOp::Minimum),
            Self::Multiply => Stablehlo(BinaryOp::Multiply),
            Self::Or => Stablehlo(BinaryOp::Or),
            Self::Power => Stablehlo(BinaryOp::Power),
            Self::Remainder => Stablehlo(BinaryOp::Remainder),
            Self::ShiftLeft => Stablehlo(BinaryOp::ShiftLeft),
            Self::ShiftRightArithmetic => Stablehlo(BinaryOp::ShiftRightArithmetic),
            Self::ShiftRightLogical => Stablehlo(BinaryOp::ShiftRightLogical),
            Self::Subtract => Stablehlo(BinaryOp::Subtract),
            Self::Xor => Stablehlo(BinaryOp::Xor),
            Self::NextAfter => Chlo(ChloBinaryOp::NextAfter),
            Self::Polygamma => Chlo(ChloBinaryOp::Polygamma),
            Self::Zeta => Chlo(ChloBinaryOp::Zeta),
        }
    }
}

impl BinaryOp {
    /// Ops that StableHLO marks commutative (eligible for the compact `reduce` form).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            Self::Add
                | Self::And
                | Self::Maximum
                | Self::Minimum
                | Self::Multiply
                | Self::Or
                | Self::Xor
        )
    }
}
