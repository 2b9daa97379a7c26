//! The attribute kinds of the op table: one method per kind on [`AttrWriter`] (the printer)
//! and [`AttrReader`] (the parser), called with each attribute's name and value.

use crate::attr::{
    Attribute, ChannelHandle, ComparisonDirection, ComparisonType, ConvDims, CustomCallApiVersion,
    DotDims, FftType, GatherDims, NamedAttrs, Precision, RaggedDotDims, RngAlgorithm,
    RngDistribution, ScatterDims, TensorSharding, Transpose,
};
use crate::dense::DenseElements;

/// A StableHLO enum attribute, `#stablehlo<MNEMONIC KEYWORD>`.
pub trait EnumAttr: Copy + Sized {
    const MNEMONIC: &'static str;
    fn keyword(self) -> &'static str;
    fn from_keyword(text: &str) -> Option<Self>;
}

macro_rules! enum_attrs {
    ($($enum:ident => $mnemonic:expr),* $(,)?) => {
        $( impl EnumAttr for $enum {
            const MNEMONIC: &'static str = $mnemonic;
            fn keyword(self) -> &'static str {
                $enum::keyword(self)
            }
            fn from_keyword(text: &str) -> Option<Self> {
                $enum::from_keyword(text)
            }
        } )*
    };
}

// StableHLO names the direction, FFT type and algorithm enums after the attributes that hold
// them.
enum_attrs!(
    ComparisonDirection => super::attr_name::COMPARISON_DIRECTION,
    ComparisonType => "comparison_type",
    FftType => super::attr_name::FFT_TYPE,
    Precision => "precision",
    RngAlgorithm => super::attr_name::RNG_ALGORITHM,
    Transpose => "transpose",
    RngDistribution => super::attr_name::RNG_DISTRIBUTION,
);

/// A struct whose fields are separate attributes of its op; `without` names fields the op
/// does not have (they stay at their default).
pub trait AttrGroup: Sized {
    fn write<W: AttrWriter>(&self, w: &mut W, without: &[&str]);
    fn read<R: AttrReader>(r: &mut R, without: &[&str]) -> Result<Self, R::Error>;
}

impl<G: AttrGroup> AttrGroup for Box<G> {
    fn write<W: AttrWriter>(&self, w: &mut W, without: &[&str]) {
        G::write(self, w, without);
    }

    fn read<R: AttrReader>(r: &mut R, without: &[&str]) -> Result<Self, R::Error> {
        G::read(r, without).map(Box::new)
    }
}

/// Takes each inherent attribute of an op. `opt_*` kinds and flags are left out when empty,
/// false or at their default, as StableHLO prints them.
pub trait AttrWriter: Sized {
    /// `N : i64`
    fn int(&mut self, name: &'static str, value: &i64);
    /// `N : i64`, always written; `default` is what a reader assumes when it is missing.
    fn int_or(&mut self, name: &'static str, value: &i64, default: i64);
    /// A positive `N : i64` that defaults to 1.
    fn count(&mut self, name: &'static str, value: &u64);
    /// `N : i32`, left out when 0.
    fn opt_i32(&mut self, name: &'static str, value: &i32);
    /// `N : i32`, always written.
    fn i32(&mut self, name: &'static str, value: &i32);
    fn f32(&mut self, name: &'static str, value: &f32);
    fn i64_array(&mut self, name: &'static str, value: &[i64]);
    fn opt_i64_array(&mut self, name: &'static str, value: &[i64]);
    fn opt_bool_array(&mut self, name: &'static str, value: &[bool]);
    /// `true`, left out when false.
    fn flag(&mut self, name: &'static str, value: &bool);
    /// `unit`, left out when false.
    fn unit_flag(&mut self, name: &'static str, value: &bool);
    /// `true` or `false`, always written.
    fn bool(&mut self, name: &'static str, value: &bool);
    fn enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &E);
    fn opt_enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &Option<E>);
    /// `#chlo<MNEMONIC KEYWORD>`
    fn chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &E);
    fn opt_chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &Option<E>);
    /// A scalar with its type (`1.0 : f32`, `2 : i32`, `true`).
    fn typed_value(&mut self, name: &'static str, value: &Attribute);
    fn ragged_dot_dims(&mut self, name: &'static str, value: &RaggedDotDims);
    /// `[#chlo<precision ...>, ...]`, left out when empty.
    fn chlo_precision(&mut self, name: &'static str, value: &[Precision]);
    fn api_version(&mut self, name: &'static str, value: &CustomCallApiVersion);
    /// `dense<...> : T`, the type being the op's result type.
    fn constant(&mut self, name: &'static str, value: &DenseElements);
    fn dot_dims(&mut self, name: &'static str, value: &DotDims);
    fn gather_dims(&mut self, name: &'static str, value: &GatherDims);
    fn scatter_dims(&mut self, name: &'static str, value: &ScatterDims);
    fn conv_dims(&mut self, name: &'static str, value: &ConvDims);
    fn precision(&mut self, name: &'static str, value: &[Precision]);
    /// An `Nx2` integer tensor, always written.
    fn pairs(&mut self, name: &'static str, value: &[(i64, i64)]);
    fn opt_pairs(&mut self, name: &'static str, value: &[(i64, i64)]);
    /// Rows of device ids, padded with -1 to a rectangle.
    fn replica_groups(&mut self, name: &'static str, value: &[Vec<i64>]);
    fn opt_channel(&mut self, name: &'static str, value: &Option<ChannelHandle>);
    fn string(&mut self, name: &'static str, value: &str);
    fn opt_string(&mut self, name: &'static str, value: &str);
    fn symbol(&mut self, name: &'static str, value: &str);
    fn opt_dict(&mut self, name: &'static str, value: &NamedAttrs);
    fn sharding(&mut self, name: &'static str, value: &TensorSharding);

    fn group<G: AttrGroup>(&mut self, value: &G) {
        value.write(self, &[]);
    }

    fn group_without<G: AttrGroup>(&mut self, value: &G, without: &[&str]) {
        value.write(self, without);
    }
}

/// Reads each inherent attribute of an op by the kinds of [`AttrWriter`]; a missing optional
/// attribute reads as its default.
pub trait AttrReader: Sized {
    type Error;

    fn int(&mut self, name: &'static str) -> Result<i64, Self::Error>;
    fn int_or(&mut self, name: &'static str, default: i64) -> Result<i64, Self::Error>;
    fn count(&mut self, name: &'static str) -> Result<u64, Self::Error>;
    fn opt_i32(&mut self, name: &'static str) -> Result<i32, Self::Error>;
    fn i32(&mut self, name: &'static str) -> Result<i32, Self::Error>;
    fn f32(&mut self, name: &'static str) -> Result<f32, Self::Error>;
    fn i64_array(&mut self, name: &'static str) -> Result<Vec<i64>, Self::Error>;
    fn opt_i64_array(&mut self, name: &'static str) -> Result<Vec<i64>, Self::Error>;
    fn opt_bool_array(&mut self, name: &'static str) -> Result<Vec<bool>, Self::Error>;
    fn flag(&mut self, name: &'static str) -> Result<bool, Self::Error>;
    fn unit_flag(&mut self, name: &'static str) -> Result<bool, Self::Error>;
    fn bool(&mut self, name: &'static str) -> Result<bool, Self::Error>;
    fn enumerant<E: EnumAttr>(&mut self, name: &'static str) -> Result<E, Self::Error>;
    fn opt_enumerant<E: EnumAttr>(&mut self, name: &'static str) -> Result<Option<E>, Self::Error>;
    fn chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str) -> Result<E, Self::Error>;
    fn opt_chlo_enumerant<E: EnumAttr>(
        &mut self,
        name: &'static str,
    ) -> Result<Option<E>, Self::Error>;
    fn typed_value(&mut self, name: &'static str) -> Result<Attribute, Self::Error>;
    fn ragged_dot_dims(&mut self, name: &'static str) -> Result<RaggedDotDims, Self::Error>;
    fn chlo_precision(&mut self, name: &'static str) -> Result<Vec<Precision>, Self::Error>;
    fn api_version(&mut self, name: &'static str) -> Result<CustomCallApiVersion, Self::Error>;
    fn constant(&mut self, name: &'static str) -> Result<DenseElements, Self::Error>;
    fn dot_dims(&mut self, name: &'static str) -> Result<DotDims, Self::Error>;
    fn gather_dims(&mut self, name: &'static str) -> Result<GatherDims, Self::Error>;
    fn scatter_dims(&mut self, name: &'static str) -> Result<ScatterDims, Self::Error>;
    fn conv_dims(&mut self, name: &'static str) -> Result<ConvDims, Self::Error>;
    fn precision(&mut self, name: &'static str) -> Result<Vec<Precision>, Self::Error>;
    fn pairs(&mut self, name: &'static str) -> Result<Vec<(i64, i64)>, Self::Error>;
    fn opt_pairs(&mut self, name: &'static str) -> Result<Vec<(i64, i64)>, Self::Error>;
    fn replica_groups(&mut self, name: &'static str) -> Result<Vec<Vec<i64>>, Self::Error>;
    fn opt_channel(&mut self, name: &'static str) -> Result<Option<ChannelHandle>, Self::Error>;
    fn string(&mut self, name: &'static str) -> Result<String, Self::Error>;
    fn opt_string(&mut self, name: &'static str) -> Result<String, Self::Error>;
    fn symbol(&mut self, name: &'static str) -> Result<String, Self::Error>;
    fn opt_dict(&mut self, name: &'static str) -> Result<NamedAttrs, Self::Error>;
    fn sharding(&mut self, name: &'static str) -> Result<TensorSharding, Self::Error>;

    fn group<G: AttrGroup>(&mut self) -> Result<G, Self::Error> {
        G::read(self, &[])
    }

    fn group_without<G: AttrGroup>(&mut self, without: &[&str]) -> Result<G, Self::Error> {
        G::read(self, without)
    }
}
