//! Functions and the arenas they own: values, operations, blocks and regions, addressed by index.

mod edit;
mod walk;

use crate::attr::NamedAttrs;
use crate::location::Location;
use crate::op::OpKind;
use crate::types::Type;

macro_rules! handle {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// Position in its function's arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            fn new(index: usize) -> Self {
                Self(u32::try_from(index).expect("arena holds fewer than 2^32 entries"))
            }
        }
    };
}

handle!(
    /// An SSA value: a block argument or an op result.
    Value
);
handle!(
    /// An operation.
    OpId
);
handle!(
    /// A block.
    BlockId
);
handle!(
    /// A region.
    RegionId
);

/// Where a value is defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    BlockArg { block: BlockId, index: usize },
    OpResult { op: OpId, index: usize },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

/// An operation. Read through [`Function::op`]; change through the editing methods of
/// [`Function`] (`set_operand`, `kind_mut`, ...), which keep use lists and parent links right.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    pub kind: OpKind,
    pub operands: Vec<Value>,
    pub results: Vec<Value>,
    pub regions: Vec<RegionId>,
    /// Discardable attributes (e.g. `mhlo.frontend_attributes`, `sdy.sharding`), printed in order.
    pub attrs: NamedAttrs,
    pub location: Location,
    /// The block holding the op; `None` once erased or while detached.
    pub parent: Option<BlockId>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub args: Vec<Value>,
    pub ops: Vec<OpId>,
    /// The region holding the block.
    pub parent: Option<RegionId>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    pub blocks: Vec<BlockId>,
    /// The op carrying the region; `None` for a function body or a region not yet attached.
    pub parent: Option<OpId>,
}

/// One use of a value: operand `operand` of `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Use {
    pub op: OpId,
    pub operand: usize,
}

/// Where a new op goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// After the last op of the block.
    End(BlockId),
    /// Before the first op of the block.
    Start(BlockId),
    Before(OpId),
    After(OpId),
}

/// An operation to append with [`Function::append_op`].
#[derive(Clone, Debug, PartialEq)]
pub struct NewOp {
    pub kind: OpKind,
    pub operands: Vec<Value>,
    pub result_types: Vec<Type>,
    pub regions: Vec<RegionId>,
    pub attrs: NamedAttrs,
    pub location: Location,
}

impl NewOp {
    pub fn new(kind: OpKind, operands: Vec<Value>, result_types: Vec<Type>) -> Self {
        Self {
            kind,
            operands,
            result_types,
            regions: Vec::new(),
            attrs: NamedAttrs::new(),
            location: Location::Unknown,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Visibility {
    Public,
    Private,
}

impl Visibility {
    pub fn keyword(self) -> &'static str {
        match self {
            Self::Public => "public",
            Self::Private => "private",
        }
    }
}

/// A `func.func`. Its arguments are the arguments of the body's entry block.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub visibility: Visibility,
    /// One list per argument.
    pub arg_attrs: Vec<NamedAttrs>,
    /// One location per argument (`%arg0: tensor<f32> loc("x")`), e.g. the FX placeholder.
    pub arg_locations: Vec<Location>,
    pub result_types: Vec<Type>,
    /// One list per result.
    pub result_attrs: Vec<NamedAttrs>,
    /// Attributes of the function itself (`attributes {...}`).
    pub attrs: NamedAttrs,
    pub location: Location,
    body: RegionId,
    values: Vec<ValueData>,
    /// Per value, its uses in attached and detached ops alike (erased ops have none).
    uses: Vec<Vec<Use>>,
    ops: Vec<Operation>,
    blocks: Vec<Block>,
    regions: Vec<Region>,
}

impl Function {
    /// A function with an empty entry block holding one argument per `arg_types`.
    pub fn new(
        name: impl Into<String>,
        visibility: Visibility,
        arg_types: Vec<Type>,
        result_types: Vec<Type>,
    ) -> Self {
        let mut function = Self {
            name: name.into(),
            visibility,
            arg_attrs: Vec::new(),
            arg_locations: Vec::new(),
            result_attrs: vec![NamedAttrs::new(); result_types.len()],
            result_types,
            attrs: NamedAttrs::new(),
            location: Location::Unknown,
            body: RegionId(0),
            values: Vec::new(),
            uses: Vec::new(),
            ops: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
        };
        function.body = function.add_region();
        let entry = function.add_block(function.body);
        for ty in arg_types {
            function.add_arg(entry, ty);
        }
        function
    }

    fn add_arg(&mut self, entry: BlockId, ty: Type) -> Value {
        self.arg_attrs.push(NamedAttrs::new());
        self.arg_locations.push(Location::Unknown);
        self.add_block_arg(entry, ty)
    }

    /// Appends a function argument.
    pub fn push_arg(&mut self, ty: Type) -> Value {
        let entry = self.entry_block();
        self.add_arg(entry, ty)
    }

    /// Sets the result types (and resets their attributes if the count changes).
    pub fn set_result_types(&mut self, types: Vec<Type>) {
        if types.len() != self.result_attrs.len() {
            self.result_attrs = vec![NamedAttrs::new(); types.len()];
        }
        self.result_types = types;
    }

    pub fn body(&self) -> RegionId {
        self.body
    }

    pub fn entry_block(&self) -> BlockId {
        self.regions[self.body.index()].blocks[0]
    }

    pub fn args(&self) -> &[Value] {
        &self.block(self.entry_block()).args
    }

    pub fn arg_types(&self) -> Vec<Type> {
        self.args()
            .iter()
            .map(|&v| self.value_type(v).clone())
            .collect()
    }

    /// A new region not yet attached to an op.
    pub fn add_region(&mut self) -> RegionId {
        self.regions.push(Region::default());
        RegionId::new(self.regions.len() - 1)
    }

    /// Appends an empty block to `region`.
    pub fn add_block(&mut self, region: RegionId) -> BlockId {
        self.blocks.push(Block {
            parent: Some(region),
            ..Block::default()
        });
        let block = BlockId::new(self.blocks.len() - 1);
        self.regions[region.index()].blocks.push(block);
        block
    }

    pub fn add_block_arg(&mut self, block: BlockId, ty: Type) -> Value {
        let index = self.blocks[block.index()].args.len();
        let value = self.new_value(ty, ValueDef::BlockArg { block, index });
        self.blocks[block.index()].args.push(value);
        value
    }

    /// Appends an op at the end of `block`, creating its results. Nothing is checked here:
    /// run [`crate::verify`] on the module (the builder checks as it goes).
    pub fn append_op(&mut self, block: BlockId, op: NewOp) -> OpId {
        self.insert_op(InsertPoint::End(block), op)
    }

    /// Creates an op at `at` with fresh results; its regions become its own.
    pub fn insert_op(&mut self, at: InsertPoint, op: NewOp) -> OpId {
        let id = OpId::new(self.ops.len());
        let results = op
            .result_types
            .into_iter()
            .enumerate()
            .map(|(index, ty)| self.new_value(ty, ValueDef::OpResult { op: id, index }))
            .collect();
        for (operand, &value) in op.operands.iter().enumerate() {
            self.uses[value.index()].push(Use { op: id, operand });
        }
        for &region in &op.regions {
            self.regions[region.index()].parent = Some(id);
        }
        self.ops.push(Operation {
            kind: op.kind,
            operands: op.operands,
            results,
            regions: op.regions,
            attrs: op.attrs,
            location: op.location,
            parent: None,
        });
        self.attach(id, at);
        id
    }

    fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        self.values.push(ValueData { ty, def });
        self.uses.push(Vec::new());
        Value::new(self.values.len() - 1)
    }

    pub fn value(&self, value: Value) -> &ValueData {
        &self.values[value.index()]
    }

    pub fn value_type(&self, value: Value) -> &Type {
        &self.values[value.index()].ty
    }

    /// Whether `value` belongs to this function's arena.
    pub fn contains_value(&self, value: Value) -> bool {
        value.index() < self.values.len()
    }

    pub fn op(&self, op: OpId) -> &Operation {
        &self.ops[op.index()]
    }

    pub fn block(&self, block: BlockId) -> &Block {
        &self.blocks[block.index()]
    }

    pub fn region(&self, region: RegionId) -> &Region {
        &self.regions[region.index()]
    }

    pub fn contains_region(&self, region: RegionId) -> bool {
        region.index() < self.regions.len()
    }

    /// The op that ends `block`, if its last op is a terminator.
    pub fn terminator(&self, block: BlockId) -> Option<&Operation> {
        let last = *self.block(block).ops.last()?;
        let op = self.op(last);
        op.kind.is_terminator().then_some(op)
    }

    /// Number of values in the arena.
    pub fn value_count(&self) -> usize {
        self.values.len()
    }

    /// Number of regions in the arena.
    pub fn region_count(&self) -> usize {
        self.regions.len()
    }

    /// The ops created after the arena held `count` ops.
    pub fn ops_since(&self, count: usize) -> impl Iterator<Item = OpId> + use<> {
        (count..self.ops.len()).map(OpId::new)
    }

    /// Number of operations in the arena (attached or not).
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }
}
