//! The operations: one [`OpKind`] variant per op, each carrying its typed attributes, all
//! generated from the op table in `table.rs`.

pub mod attr_name;
pub mod codec;
pub(crate) mod define;
mod table;

pub use table::{FUNCTION_OP, MESH_OP, OpKind, Opcode};

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
