//! The macros that expand the op table (`table.rs`) into [`OpKind`](super::OpKind),
//! [`Opcode`](super::Opcode) and their methods, and attribute groups into
//! [`AttrGroup`](super::codec::AttrGroup) impls.
//!
//! An op entry reads
//!
//! ```text
//! /// docs
//! Variant { field: Type = ATTR_NAME as kind(args), .. } => "dialect.op",
//!     operands 2, results 1, syntax Functional, fold Layout, sharding Reshape,
//!     regions 1, traits [side_effect, commutative(expr)];
//! ```
//!
//! or `Variant(binding: Type = ATTR_NAME as kind)` for one unnamed field. A family
//! `Family(op: Enum)` is one variant for many op names (the enum's); it may carry one attribute
//! after the enum, `Family(op: Enum, field: Type = ATTR_NAME as kind)`, and declares
//! everything from `operands` to `traits` once for all of them. `kind` names a method
//! of [`AttrWriter`](super::codec::AttrWriter) and [`AttrReader`](super::codec::AttrReader);
//! `ATTR_NAME` a constant of [`attr_name`](super::attr_name) (groups have none).
//!
//! Every entry declares, in this order:
//! - `operands N`, `operands (at least N)` or `operands variadic`, and `results` alike
//!   ([`Arity`](super::Arity)): the verifier and the builder check counts against them;
//! - `syntax Form`, a [`Syntax`](super::Syntax) variant: the pretty form the printer writes and
//!   the parser reads (`Generic` when the op has none); a form with a keyword names the
//!   attribute the keyword stands for, `syntax Dims(PERMUTATION)`;
//! - `fold Kind`, a [`FoldKind`](super::FoldKind) variant (`None` when the op never folds);
//! - `sharding Rule`, a [`ShardingRuleKind`](super::ShardingRuleKind) variant (`None` when
//!   propagation leaves the op to XLA).
//!
//! Then optionally: `regions` (default 0, `variadic` for any number) and `traits`; a trait
//! holds when listed, or when its expression, written over the variant's fields, is true.

/// Whether trait `$trait` holds for an entry whose trait list is the rest of the input.
macro_rules! holds {
    ($trait:ident;) => { false };
    (side_effect; side_effect $(, $($rest:tt)*)?) => { true };
    (side_effect; side_effect($e:expr) $(, $($rest:tt)*)?) => { $e };
    (opaque; opaque $(, $($rest:tt)*)?) => { true };
    (elementwise; elementwise $(, $($rest:tt)*)?) => { true };
    (commutative; commutative($e:expr) $(, $($rest:tt)*)?) => { $e };
    (terminator; terminator $(, $($rest:tt)*)?) => { true };
    ($trait:ident; $other:ident $(($e:expr))? $(, $($rest:tt)*)?) => {
        $crate::op::define::holds!($trait; $($($rest)*)?)
    };
}

macro_rules! region_count {
    () => {
        Some(0)
    };
    (variadic) => {
        None
    };
    ($count:literal) => {
        Some($count)
    };
}

/// An [`Arity`](super::Arity) from a table entry's `operands`/`results` count.
macro_rules! arity {
    (variadic) => {
        $crate::op::Arity::Variadic
    };
    ((at least $count:literal)) => {
        $crate::op::Arity::AtLeast($count)
    };
    ($count:literal) => {
        $crate::op::Arity::Exactly($count)
    };
}

macro_rules! define_ops {
    (
        families { $(
            $(#[$family_meta:meta])*
            $family:ident(
                $family_bind:ident: $family_type:ident
                $(, $family_field:ident: $family_field_type:ty = $family_attr:ident as $family_kind:ident)?
            ),
                operands $family_operands:tt, results $family_results:tt,
                syntax $family_syntax:ident $(($family_syntax_attr:ident))?,
                fold $family_fold:ident,
                sharding $family_sharding:ident
            $(, traits [$($family_traits:tt)*])?;
        )* }
        ops { $(
            $(#[$meta:meta])*
            $variant:ident
            $( ( $bind:ident: $bind_type:ty $(= $bind_attr:ident)? as $bind_kind:ident $(($($bind_arg:expr),*))? ) )?
            $( { $( $field:ident: $field_type:ty $(= $attr:ident)? as $kind:ident $(($($arg:expr),*))? ),* $(,)? } )?
            => $name:literal,
                operands $operands:tt, results $results:tt,
                syntax $syntax:ident $(($syntax_attr:ident))?,
                fold $fold:ident, sharding $sharding:ident
            $(, regions $regions:tt)?
            $(, traits [$($traits:tt)*])?;
        )* }
    ) => {
        /// An operation and its typed attributes. Operands, results and regions live in
        /// [`crate::Operation`]; the comment on each variant gives their layout.
        #[derive(Clone, Debug, PartialEq)]
        pub enum OpKind {
            $( $(#[$family_meta])* $family($family_type $(, $family_field_type)?), )*
            $( $(#[$meta])* $variant $( ($bind_type) )? $( { $( $field: $field_type ),* } )?, )*
        }

        /// Which op an [`OpKind`] is, without its attributes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $( $family($family_type), )*
            $( $variant, )*
        }

        impl Opcode {
            /// Every op, in table order.
            pub fn all() -> impl Iterator<Item = Opcode> {
                std::iter::empty()
                    $( .chain($family_type::ALL.iter().copied().map(Self::$family)) )*
                    .chain([$(Self::$variant),*])
            }

            /// The full op name as MLIR spells it, e.g. `stablehlo.add`.
            pub fn name(self) -> &'static str {
                match self {
                    $( Self::$family(op) => op.name(), )*
                    $( Self::$variant => $name, )*
                }
            }

            /// How many operands the op takes.
            pub fn operands(self) -> $crate::op::Arity {
                match self {
                    $( Self::$family(_) => $crate::op::define::arity!($family_operands), )*
                    $( Self::$variant => $crate::op::define::arity!($operands), )*
                }
            }

            /// How many results the op has.
            pub fn results(self) -> $crate::op::Arity {
                match self {
                    $( Self::$family(_) => $crate::op::define::arity!($family_results), )*
                    $( Self::$variant => $crate::op::define::arity!($results), )*
                }
            }

            /// The pretty form the op prints and parses in.
            pub fn syntax(self) -> $crate::op::Syntax {
                match self {
                    $( Self::$family(_) => $crate::op::Syntax::$family_syntax
                        $(($crate::op::attr_name::$family_syntax_attr))?, )*
                    $( Self::$variant => $crate::op::Syntax::$syntax
                        $(($crate::op::attr_name::$syntax_attr))?, )*
                }
            }

            /// Which fold the op has.
            pub fn fold_kind(self) -> $crate::op::FoldKind {
                match self {
                    $( Self::$family(_) => $crate::op::FoldKind::$family_fold, )*
                    $( Self::$variant => $crate::op::FoldKind::$fold, )*
                }
            }

            /// Which sharding rule the op follows.
            pub fn sharding_rule(self) -> $crate::op::ShardingRuleKind {
                match self {
                    $( Self::$family(_) => $crate::op::ShardingRuleKind::$family_sharding, )*
                    $( Self::$variant => $crate::op::ShardingRuleKind::$sharding, )*
                }
            }

            pub fn from_name(name: &str) -> Option<Self> {
                $( if let Some(op) = $family_type::from_name(name) {
                    return Some(Self::$family(op));
                } )*
                Some(match name {
                    $( $name => Self::$variant, )*
                    _ => return None,
                })
            }
        }

        #[allow(unused_variables)]
        impl OpKind {
            /// Every op name, in table order.
            pub fn names() -> impl Iterator<Item = &'static str> {
                Opcode::all().map(Opcode::name)
            }

            pub fn opcode(&self) -> Opcode {
                match self {
                    $( Self::$family(op, ..) => Opcode::$family(*op), )*
                    $( Self::$variant { .. } => Opcode::$variant, )*
                }
            }

            /// The full op name as MLIR spells it.
            pub fn name(&self) -> &'static str {
                self.opcode().name()
            }

            /// How many regions the op carries; `None` when variadic (`case`).
            pub fn region_count(&self) -> Option<usize> {
                match self {
                    $( Self::$family(..) => Some(0), )*
                    $( Self::$variant { .. } => $crate::op::define::region_count!($($regions)?), )*
                }
            }

            /// Ops that end a block.
            pub fn is_terminator(&self) -> bool {
                self.traits().terminator
            }

            /// Ops that must stay even when nothing uses their results: terminators,
            /// side-effecting custom calls, calls (the callee may have effects) and collectives
            /// (they synchronise devices).
            pub fn has_side_effect(&self) -> bool {
                self.traits().side_effect
            }

            /// The result depends only on the operands and attributes (and regions, which the
            /// op carries): two such ops with equal operands compute equal results.
            pub fn is_pure(&self) -> bool {
                let traits = self.traits();
                !traits.side_effect && !traits.opaque
            }

            /// Applies one scalar function to corresponding elements of same-shaped operands.
            pub fn is_elementwise(&self) -> bool {
                self.traits().elementwise
            }

            /// A binary op whose operands may be swapped.
            pub fn is_commutative(&self) -> bool {
                self.traits().commutative
            }

            fn traits(&self) -> $crate::op::define::Traits {
                match self {
                    $( Self::$family($family_bind, ..) => {
                        $crate::op::define::traits!($($($family_traits)*)?)
                    } )*
                    $( Self::$variant $( ($bind) )? $( { $($field),* } )? => {
                        $crate::op::define::traits!($($($traits)*)?)
                    } )*
                }
            }

            /// Hands each inherent attribute to `w`, in table order.
            pub fn write_attrs<W: $crate::op::codec::AttrWriter>(&self, w: &mut W) {
                match self {
                    $( Self::$family(_ $(, $family_field)?) => {
                        $( w.$family_kind($crate::op::attr_name::$family_attr, $family_field); )?
                    } )*
                    $( Self::$variant $( ($bind) )? $( { $($field),* } )? => {
                        $( w.$bind_kind($($crate::op::attr_name::$bind_attr,)? $bind $(, $($bind_arg),*)?); )?
                        $( $( w.$kind($($crate::op::attr_name::$attr,)? $field $(, $($arg),*)?); )* )?
                    } )*
                }
            }

            /// The op `opcode` with its attributes read from `r`, in table order.
            pub fn read_attrs<R: $crate::op::codec::AttrReader>(
                opcode: Opcode,
                r: &mut R,
            ) -> Result<Self, R::Error> {
                Ok(match opcode {
                    $( Opcode::$family(op) => Self::$family(
                        op $(, r.$family_kind($crate::op::attr_name::$family_attr)?)?
                    ), )*
                    $( Opcode::$variant => Self::$variant
                        $( (r.$bind_kind($($crate::op::attr_name::$bind_attr,)? $($($bind_arg,)*)?)?) )?
                        $( { $( $field: r.$kind($($crate::op::attr_name::$attr,)? $($($arg,)*)?)? ),* } )?,
                    )*
                })
            }
        }
    };
}

/// The traits of one op, from its entry's trait list.
pub(crate) struct Traits {
    pub side_effect: bool,
    /// Not pure even without side effects: what a custom call computes is unknown.
    pub opaque: bool,
    pub elementwise: bool,
    pub commutative: bool,
    pub terminator: bool,
}

macro_rules! traits {
    ($($list:tt)*) => {
        $crate::op::define::Traits {
            side_effect: $crate::op::define::holds!(side_effect; $($list)*),
            opaque: $crate::op::define::holds!(opaque; $($list)*),
            elementwise: $crate::op::define::holds!(elementwise; $($list)*),
            commutative: $crate::op::define::holds!(commutative; $($list)*),
            terminator: $crate::op::define::holds!(terminator; $($list)*),
        }
    };
}

/// `AttrGroup` impls: each field of a struct that spreads over several attributes.
macro_rules! define_attr_groups {
    ($( $group:ident { $( $field:ident = $attr:ident as $kind:ident $(($($arg:expr),*))? ),* $(,)? } )*) => {
        $( impl $crate::op::codec::AttrGroup for $group {
            fn write<W: $crate::op::codec::AttrWriter>(&self, w: &mut W, without: &[&str]) {
                $( if !without.contains(&$crate::op::attr_name::$attr) {
                    w.$kind($crate::op::attr_name::$attr, &self.$field $(, $($arg),*)?);
                } )*
            }

            fn read<R: $crate::op::codec::AttrReader>(
                r: &mut R,
                without: &[&str],
            ) -> Result<Self, R::Error> {
                Ok(Self { $(
                    $field: if without.contains(&$crate::op::attr_name::$attr) {
                        Default::default()
                    } else {
                        r.$kind($crate::op::attr_name::$attr, $($($arg,)*)?)?
                    },
                )* })
            }
        } )*
    };
}

pub(crate) use {arity, define_attr_groups, define_ops, holds, region_count, traits};
