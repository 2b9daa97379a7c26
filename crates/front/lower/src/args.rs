//! A node's arguments by schema name, with the signature's defaults for those torch did not
//! serialize, resolved against the graph's values.

use tpuc_ir::Value;
use tpuc_pt2::DType;
use tpuc_pt2::schema::{
    Argument, Node, OptionalTensorArgument, SymBoolArgument, SymFloatArgument, SymIntArgument,
    TensorArgument,
};

use crate::env::{Env, Val};
use crate::error::{OpError, OpResult, bail};
use crate::promote::Scalar;
use crate::schema::OpSchema;

/// A tensor operand or a Python scalar in its place (a wrapped number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Operand {
    Tensor(Value),
    Scalar(Scalar),
}

pub(crate) struct Args<'a> {
    node: &'a Node,
    schema: Option<&'a OpSchema>,
    env: &'a Env,
}

impl<'a> Args<'a> {
    pub fn new(node: &'a Node, schema: Option<&'a OpSchema>, env: &'a Env) -> Self {
        Self { node, schema, env }
    }

    /// The same graph values read through another node and signature (an in-place op's
    /// arguments by its functional op's names).
    pub fn with_node<'b>(&self, node: &'b Node, schema: &'b OpSchema) -> Args<'b>
    where
        'a: 'b,
    {
        Args {
            node,
            schema: Some(schema),
            env: self.env,
        }
    }

    /// Checks the node against the signature: every argument known, every required one given.
    pub fn check(&self) -> OpResult<()> {
        let Some(schema) = self.schema else {
            return Ok(());
        };
        for input in &self.node.inputs {
            if schema.arg(&input.name).is_none() {
                return Err(OpError::new(format!(
                    "argument `{}` is not in the signature tpuc knows for this op",
                    input.name
                ))
                .with_help("the archive may come from a newer torch; please report it"));
            }
        }
        for arg in &schema.args {
            if arg.default.is_none() && self.node.input(&arg.name).is_none() {
                bail!("required argument `{}` is missing", arg.name);
            }
        }
        Ok(())
    }

    /// The argument as serialized, or its default.
    pub fn raw(&self, name: &str) -> OpResult<&'a Argument> {
        if let Some(arg) = self.node.input(name) {
            return Ok(arg);
        }
        self.schema
            .and_then(|s| s.arg(name))
            .and_then(|a| a.default.as_ref())
            .ok_or_else(|| OpError::new(format!("argument `{name}` is missing")))
    }

    /// Whether the node passed `name` explicitly.
    pub fn given(&self, name: &str) -> bool {
        self.node.input(name).is_some()
    }

    /// The `i`-th input as written in the node (higher-order ops have unnamed positionals).
    pub fn positional(&self, i: usize) -> OpResult<&'a Argument> {
        self.node
            .inputs
            .get(i)
            .map(|a| &a.arg)
            .ok_or_else(|| OpError::new(format!("input {i} is missing")))
    }

    /// Number of inputs the node passes.
    pub fn count(&self) -> usize {
        self.node.inputs.len()
    }

    fn lookup(&self, name: &str) -> OpResult<&'a Val> {
        self.env
            .get(name)
            .ok_or_else(|| OpError::new(format!("uses `{name}`, which no earlier node defines")))
    }

    fn lookup_tensor(&self, tensor: &TensorArgument) -> OpResult<Value> {
        match self.lookup(&tensor.name)? {
            Val::Tensor(v) => Ok(*v),
            Val::Subclass { class, .. } => Err(OpError::new(format!(
                "`{}` is a `{class}` weight, which tpuc reads only through \
                 `export.access_subclass_inner_tensor`",
                tensor.name
            ))
            .with_help(
                "export the decomposed program (`run_decompositions()`), which spells out \
                 what the subclass computes",
            )),
            other => bail!("`{}` is not a tensor ({other:?})", tensor.name),
        }
    }

    /// The inner tensor `attribute` of the tensor-subclass argument `name`.
    pub fn inner_tensor(&self, name: &str, attribute: &str) -> OpResult<Value> {
        let Some(tensor) = self.raw(name)?.as_tensor_name() else {
            bail!("argument `{name}` must be a tensor");
        };
        match self.lookup(tensor)? {
            Val::Subclass { class, inner } => inner
                .iter()
                .find(|(a, _)| a == attribute)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    let known: Vec<&str> = inner.iter().map(|(a, _)| a.as_str()).collect();
                    OpError::new(format!(
                        "`{tensor}` (a `{class}`) has no inner tensor `{attribute}`; it holds {}",
                        known.join(", ")
                    ))
                }),
            other => bail!("`{tensor}` is not a tensor subclass ({other:?})"),
        }
    }

    /// Resolves any argument to a value.
    pub fn value_of(&self, arg: &Argument) -> OpResult<Val> {
        Ok(match arg {
            Argument::AsNone(_) => Val::None,
            Argument::AsTensor(t) => Val::Tensor(self.lookup_tensor(t)?),
            Argument::AsOptionalTensor(OptionalTensorArgument::AsTensor(t)) => {
                Val::Tensor(self.lookup_tensor(t)?)
            }
            Argument::AsOptionalTensor(_) => Val::None,
            Argument::AsTensors(ts) => Val::Tensors(
                ts.iter()
                    .map(|t| self.lookup_tensor(t))
                    .collect::<OpResult<_>>()?,
            ),
            Argument::AsInt(i) => Val::Int(*i),
            Argument::AsFloat(f) => Val::Float(f.0),
            Argument::AsBool(b) => Val::Bool(*b),
            Argument::AsComplex(c) => Val::Complex(c.real.0, c.imag.0),
            Argument::AsSymInt(s) => Val::Int(self.sym_int(s)?),
            Argument::AsSymFloat(SymFloatArgument::AsFloat(f)) => Val::Float(f.0),
            Argument::AsSymBool(SymBoolArgument::AsBool(b)) => Val::Bool(*b),
            Argument::AsSymFloat(SymFloatArgument::AsName(n))
            | Argument::AsSymBool(SymBoolArgument::AsName(n)) => self.lookup(n)?.clone(),
            other => bail!("cannot use argument {other:?} here"),
        })
    }

    fn sym_int(&self, arg: &SymIntArgument) -> OpResult<i64> {
        match arg {
            SymIntArgument::AsInt(i) => Ok(*i),
            SymIntArgument::AsName(name) => match self.lookup(name)? {
                Val::Int(i) => Ok(*i),
                other => bail!("`{name}` is not an integer ({other:?})"),
            },
            SymIntArgument::Unknown(key) => bail!("unknown SymInt kind `{key}`"),
        }
    }

    pub fn tensor(&self, name: &str) -> OpResult<Value> {
        self.opt_tensor(name)?
            .ok_or_else(|| OpError::new(format!("argument `{name}` must be a tensor, got None")))
    }

    pub fn opt_tensor(&self, name: &str) -> OpResult<Option<Value>> {
        match self.value_of(self.raw(name)?)? {
            Val::Tensor(v) => Ok(Some(v)),
            Val::None => Ok(None),
            other => bail!("argument `{name}` must be a tensor, got {other:?}"),
        }
    }

    pub fn tensors(&self, name: &str) -> OpResult<Vec<Value>> {
        match self.value_of(self.raw(name)?)? {
            Val::Tensors(vs) => Ok(vs),
            Val::Tensor(v) => Ok(vec![v]),
            other => bail!("argument `{name}` must be a list of tensors, got {other:?}"),
        }
    }

    /// A `Tensor?[]` argument (e.g. `index`'s indices).
    pub fn opt_tensors(&self, name: &str) -> OpResult<Vec<Option<Value>>> {
        match self.raw(name)? {
            Argument::AsOptionalTensors(list) => list
                .iter()
                .map(|t| match t {
                    OptionalTensorArgument::AsTensor(t) => self.lookup_tensor(t).map(Some),
                    _ => Ok(None),
                })
                .collect(),
            other => Ok(self.tensors_of(other)?.into_iter().map(Some).collect()),
        }
    }

    fn tensors_of(&self, arg: &Argument) -> OpResult<Vec<Value>> {
        match self.value_of(arg)? {
            Val::Tensors(vs) => Ok(vs),
            Val::Tensor(v) => Ok(vec![v]),
            other => bail!("expected tensors, got {other:?}"),
        }
    }

    pub fn int(&self, name: &str) -> OpResult<i64> {
        self.opt_int(name)?
            .ok_or_else(|| OpError::new(format!("argument `{name}` must be an integer, got None")))
    }

    pub fn opt_int(&self, name: &str) -> OpResult<Option<i64>> {
        match self.value_of(self.raw(name)?)? {
            Val::Int(i) => Ok(Some(i)),
            Val::Bool(b) => Ok(Some(b as i64)),
            Val::None => Ok(None),
            other => bail!("argument `{name}` must be an integer, got {other:?}"),
        }
    }

    /// An `int[]` argument; a single int fills every element of an `int[N]`.
    pub fn ints(&self, name: &str) -> OpResult<Vec<i64>> {
        self.opt_ints(name)?
            .ok_or_else(|| OpError::new(format!("argument `{name}` must be a list of integers")))
    }

    pub fn opt_ints(&self, name: &str) -> OpResult<Option<Vec<i64>>> {
        let fixed = self
            .schema
            .and_then(|s| s.arg(name))
            .and_then(|a| a.list.flatten());
        let values = match self.raw(name)? {
            Argument::AsNone(_) => return Ok(None),
            Argument::AsInts(v) => v.clone(),
            Argument::AsSymInts(v) => v.iter().map(|s| self.sym_int(s)).collect::<OpResult<_>>()?,
            other => match self.value_of(other)? {
                Val::Int(i) => vec![i],
                Val::None => return Ok(None),
                v => bail!("argument `{name}` must be a list of integers, got {v:?}"),
            },
        };
        Ok(Some(match fixed {
            Some(n) if values.len() == 1 && n > 1 => vec![values[0]; n],
            _ => values,
        }))
    }

    pub fn float(&self, name: &str) -> OpResult<f64> {
        self.opt_float(name)?
            .ok_or_else(|| OpError::new(format!("argument `{name}` must be a float, got None")))
    }

    pub fn opt_float(&self, name: &str) -> OpResult<Option<f64>> {
        match self.value_of(self.raw(name)?)? {
            Val::Float(f) => Ok(Some(f)),
            Val::Int(i) => Ok(Some(i as f64)),
            Val::None => Ok(None),
            other => bail!("argument `{name}` must be a float, got {other:?}"),
        }
    }

    pub fn bool(&self, name: &str) -> OpResult<bool> {
        match self.value_of(self.raw(name)?)? {
            Val::Bool(b) => Ok(b),
            Val::Int(i) => Ok(i != 0),
            other => bail!("argument `{name}` must be a bool, got {other:?}"),
        }
    }

    pub fn opt_str(&self, name: &str) -> OpResult<Option<&'a str>> {
        match self.raw(name)? {
            Argument::AsString(s) => Ok(Some(s)),
            Argument::AsNone(_) => Ok(None),
            other => bail!("argument `{name}` must be a string, got {other:?}"),
        }
    }

    pub fn str(&self, name: &str) -> OpResult<&'a str> {
        self.opt_str(name)?
            .ok_or_else(|| OpError::new(format!("argument `{name}` must be a string, got None")))
    }

    pub fn opt_scalar(&self, name: &str) -> OpResult<Option<Scalar>> {
        Ok(match self.value_of(self.raw(name)?)? {
            Val::Int(i) => Some(Scalar::Int(i)),
            Val::Float(f) => Some(Scalar::Float(f)),
            Val::Bool(b) => Some(Scalar::Bool(b)),
            Val::Complex(re, im) => Some(Scalar::Complex(re, im)),
            Val::None => None,
            other => bail!("argument `{name}` must be a number, got {other:?}"),
        })
    }

    pub fn scalar(&self, name: &str) -> OpResult<Scalar> {
        self.opt_scalar(name)?
            .ok_or_else(|| OpError::new(format!("argument `{name}` must be a number, got None")))
    }

    /// A tensor argument that may hold a Python scalar instead.
    pub fn operand(&self, name: &str) -> OpResult<Operand> {
        Ok(match self.value_of(self.raw(name)?)? {
            Val::Tensor(v) => Operand::Tensor(v),
            Val::Int(i) => Operand::Scalar(Scalar::Int(i)),
            Val::Float(f) => Operand::Scalar(Scalar::Float(f)),
            Val::Bool(b) => Operand::Scalar(Scalar::Bool(b)),
            Val::Complex(re, im) => Operand::Scalar(Scalar::Complex(re, im)),
            other => bail!("argument `{name}` must be a tensor or a number, got {other:?}"),
        })
    }

    /// A `ScalarType?` argument.
    pub fn opt_dtype(&self, name: &str) -> OpResult<Option<DType>> {
        match self.raw(name)? {
            Argument::AsScalarType(code) => DType::from_code(*code)
                .map(Some)
                .ok_or_else(|| OpError::new(format!("unknown dtype code {code}"))),
            Argument::AsNone(_) => Ok(None),
            other => bail!("argument `{name}` must be a dtype, got {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use tpuc_ir::{ElementType, FunctionBuilder, TensorType, Visibility};
    use tpuc_pt2::schema::{NamedArgument, TensorArgument};

    use super::*;

    fn tensor(name: &str) -> NamedArgument {
        NamedArgument {
            name: name.to_owned(),
            arg: Argument::AsTensor(TensorArgument {
                name: name.to_owned(),
            }),
            kind: Some(1),
        }
    }

    /// Omitted arguments take the signature's defaults; given ones are matched by name.
    #[test]
    fn omitted_arguments_take_schema_defaults() {
        let mut b = FunctionBuilder::new("f", Visibility::Public);
        let x = b.arg(TensorType::of(&[2, 3, 8, 8], ElementType::F32));
        let mut env = Env::default();
        env.bind("input", Val::Tensor(x));
        env.bind("weight", Val::Tensor(x));

        let conv = OpSchema::parse(
            "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
        )
        .unwrap();
        // Given out of order, with a keyword: names decide, not positions.
        let node = Node {
            target: conv.target(),
            inputs: vec![
                tensor("weight"),
                tensor("input"),
                NamedArgument {
                    name: "padding".into(),
                    arg: Argument::AsInts(vec![1, 2]),
                    kind: Some(2),
                },
            ],
            ..Node::default()
        };
        let args = Args::new(&node, Some(&conv), &env);
        args.check().unwrap();
        assert_eq!(args.tensor("input").unwrap(), x);
        assert_eq!(args.opt_tensor("bias").unwrap(), None);
        assert_eq!(args.ints("stride").unwrap(), [1, 1]);
        assert_eq!(args.ints("padding").unwrap(), [1, 2]);
        assert_eq!(args.ints("dilation").unwrap(), [1, 1]);
        assert_eq!(args.int("groups").unwrap(), 1);
        assert!(!args.given("stride"));

        let gelu =
            OpSchema::parse("gelu(Tensor self, *, str approximate='none') -> Tensor").unwrap();
        env.bind("self", Val::Tensor(x));
        let node = Node {
            inputs: vec![tensor("self")],
            ..Node::default()
        };
        let args = Args::new(&node, Some(&gelu), &env);
        assert_eq!(args.str("approximate").unwrap(), "none");

        let add =
            OpSchema::parse("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
                .unwrap();
        let node = Node {
            inputs: vec![
                tensor("self"),
                NamedArgument {
                    name: "other".into(),
                    arg: Argument::AsFloat(tpuc_pt2::schema::Float(2.5)),
                    kind: Some(1),
                },
            ],
            ..Node::default()
        };
        let args = Args::new(&node, Some(&add), &env);
        assert_eq!(
            args.operand("other").unwrap(),
            Operand::Scalar(Scalar::Float(2.5))
        );
        assert_eq!(args.scalar("alpha").unwrap(), Scalar::Int(1));
    }

    #[test]
    fn unknown_and_missing_arguments_are_errors() {
        let env = Env::default();
        let relu = OpSchema::parse("relu(Tensor self) -> Tensor").unwrap();
        let node = Node {
            inputs: vec![tensor("input")],
            ..Node::default()
        };
        let error = Args::new(&node, Some(&relu), &env).check().unwrap_err();
        assert!(error.message.contains("`input`"), "{}", error.message);
        let node = Node::default();
        let error = Args::new(&node, Some(&relu), &env).check().unwrap_err();
        assert!(
            error.message.contains("required argument `self`"),
            "{}",
            error.message
        );
    }
}
