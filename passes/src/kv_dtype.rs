//! `--kv-dtype`: the state a step updates in place (a decode step's KV cache: every float
//! buffer donated to its new value) is stored in a narrower float type. The argument and its
//! donated result take the narrow type; the program widens the stored values where it reads
//! them (`convert`, times the scale) and narrows what it writes (divided by the scale,
//! saturated to the type's range, `convert`). A write that replaces part of the cache (a
//! `scatter` whose body returns the update, a `dynamic_update_slice`) is rebuilt on the narrow
//! cache, so only the new entries are converted and the cache is still updated in place.

use std::fmt;

use tpuc_ir::{
    ArgumentRole, ElementType, Function, InsertPoint, Location, OpBuilder, OpId, OpKind, Program,
    TensorType, Value,
};

use crate::autodiff::{returned, set_returned};
use crate::error::PassError;
use crate::pass::{Pass, PassContext};

const NAME: &str = "kv-dtype";

/// The storage type of the cache, and for the 8-bit floats the per-tensor scale it is stored
/// divided by (`stored = value / scale`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvDtype {
    pub element: ElementType,
    pub scale: f64,
}

/// The types `--kv-dtype` takes, by name, and the largest finite value of each.
const TYPES: [(&str, ElementType, f64); 4] = [
    ("bf16", ElementType::BF16, 3.389_531_389_251_535_5e38),
    ("f16", ElementType::F16, 65504.0),
    ("f8e4m3fn", ElementType::F8E4M3FN, 448.0),
    ("f8e5m2", ElementType::F8E5M2, 57344.0),
];

impl KvDtype {
    /// `bf16`, `f16`, `f8e4m3fn[:SCALE]` or `f8e5m2[:SCALE]` (the scale defaults to 1).
    pub fn parse(text: &str) -> Result<KvDtype, PassError> {
        let (name, scale) = match text.split_once(':') {
            Some((name, scale)) => (name, Some(scale)),
            None => (text, None),
        };
        let bad = |message: String| PassError::Refused {
            pass: NAME,
            message,
            help: format!(
                "--kv-dtype takes {} (an 8-bit type with `:SCALE`, a positive number the \
                 cache is stored divided by; default 1)",
                TYPES.map(|(name, ..)| name).join(", ")
            ),
        };
        let Some(&(_, element, _)) = TYPES.iter().find(|(known, ..)| *known == name) else {
            return Err(bad(format!("unknown cache type `{name}`")));
        };
        let scale = match scale {
            None => 1.0,
            Some(_) if element.bit_width() != 8 => {
                return Err(bad(format!("`{name}` takes no scale")));
            }
            Some(scale) => match scale.parse::<f64>() {
                Ok(scale) if scale.is_finite() && scale > 0.0 => scale,
                _ => return Err(bad(format!("the scale `{scale}` is not a positive number"))),
            },
        };
        Ok(KvDtype { element, scale })
    }

    fn largest(&self) -> f64 {
        TYPES
            .iter()
            .find(|(_, element, _)| *element == self.element)
            .map_or(f64::MAX, |&(.., largest)| largest)
    }
}

impl fmt::Display for KvDtype {
    /// The canonical text keys hash: `bf16`, `f8e4m3fn:0.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = TYPES
            .iter()
            .find(|(_, element, _)| *element == self.element)
            .map_or("?", |&(name, ..)| name);
        if self.element.bit_width() == 8 {
            write!(f, "{name}:{}", self.scale)
        } else {
            f.write_str(name)
        }
    }
}

/// The `kv-dtype(TYPE)` stage.
pub(crate) struct NarrowState {
    pub dtype: KvDtype,
}

impl Pass for NarrowState {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let mut interface = program.interface()?;
        let donations = interface.state_donations(program.main()?);
        let main = program.main_mut()?;
        let mut narrowed = 0;
        for (argument, result) in donations {
            let wide = main.value_type(main.args()[argument]).as_tensor().cloned();
            let is_cache = matches!(interface.arguments[argument], ArgumentRole::Buffer { .. })
                && wide.as_ref().is_some_and(|ty| {
                    ty.element.is_float() && ty.element.bit_width() > self.dtype.element.bit_width()
                });
            if let (true, Some(wide)) = (is_cache, wide) {
                narrow(main, argument, result, &wide, self.dtype).map_err(|error| {
                    PassError::Refused {
                        pass: NAME,
                        message: error.to_string(),
                        help: "this is a bug in tpuc's kv-dtype pass".to_owned(),
                    }
                })?;
                narrowed += 1;
            }
        }
        if narrowed == 0 {
            return Err(PassError::Refused {
                pass: NAME,
                message: format!(
                    "the program updates no float buffer wider than {} in place: it has no KV \
                     cache to store narrower",
                    self.dtype
                ),
                help: "--kv-dtype is for decode steps whose cache is state (docs/serving.md)"
                    .to_owned(),
            });
        }
        interface.aliases = interface.state_donations(program.main()?);
        program.set_interface(&interface)?;
        Ok(())
    }
}

/// Stores argument `argument` (donated into result `result`) as `dtype`.
fn narrow(
    main: &mut Function,
    argument: usize,
    result: usize,
    wide: &TensorType,
    dtype: KvDtype,
) -> tpuc_ir::Result<()> {
    let location = Location::name(NAME);
    let arg = main.args()[argument];
    main.set_value_type(arg, wide.with_element(dtype.element).into());
    let entry = main.entry_block();
    let uses = main.uses(arg).to_vec();
    let mut b = OpBuilder::at(main, InsertPoint::Start(entry), location.clone());
    let converted = b.convert(arg, wide.element)?;
    let read = scale(&mut b, converted, dtype.scale, wide)?;
    for used in uses {
        main.set_operand(used.op, used.operand, read);
    }

    let mut values = returned(main);
    let written = values[result];
    let stored = match replacing_write(main, written, read) {
        Some(write) => {
            let data = main.op(write).clone();
            let mut b = OpBuilder::at(main, InsertPoint::Before(write), location.clone());
            let stored = match &data.kind {
                OpKind::Scatter {
                    dims,
                    indices_are_sorted,
                    unique_indices,
                } => {
                    let update = store(&mut b, data.operands[2], dtype)?;
                    b.scatter(
                        &[arg],
                        data.operands[1],
                        &[update],
                        dims.clone(),
                        *indices_are_sorted,
                        *unique_indices,
                        |_, a| Ok(vec![a[1]]),
                    )?[0]
                }
                _ => {
                    let update = store(&mut b, data.operands[1], dtype)?;
                    b.dynamic_update_slice(arg, update, &data.operands[2..])?
                }
            };
            let converted = b.convert(stored, wide.element)?;
            let widened = scale(&mut b, converted, dtype.scale, wide)?;
            main.replace_all_uses_with(written, widened);
            stored
        }
        None => {
            let ret = *main.block(entry).ops.last().expect("a return");
            let mut b = OpBuilder::at(main, InsertPoint::Before(ret), location);
            store(&mut b, written, dtype)?
        }
    };
    values[result] = stored;
    set_returned(main, values);
    Ok(())
}

/// The op that makes `written` by replacing part of `read` (the widened cache), if one does.
fn replacing_write(main: &Function, written: Value, read: Value) -> Option<OpId> {
    let op = main.defining_op(written)?;
    let data = main.op(op);
    match &data.kind {
        OpKind::DynamicUpdateSlice if data.operands[0] == read => Some(op),
        OpKind::Scatter { .. } if data.operands.len() == 3 && data.operands[0] == read => {
            let block = main
                .region(*data.regions.first()?)
                .blocks
                .first()
                .copied()?;
            let update = *main.block(block).args.get(1)?;
            let body = main.terminator(block)?;
            (body.operands == [update]).then_some(op)
        }
        _ => None,
    }
}

/// `value * scale` (the value itself for a scale of 1).
fn scale(b: &mut OpBuilder<'_>, value: Value, by: f64, ty: &TensorType) -> tpuc_ir::Result<Value> {
    if by == 1.0 {
        return Ok(value);
    }
    let shape = b.tensor_type(value)?.shape.clone();
    let factor = b.splat(ty.element, shape, by)?;
    b.multiply(value, factor)
}

/// `value / scale`, saturated to the narrow type's range, converted to it.
fn store(b: &mut OpBuilder<'_>, value: Value, dtype: KvDtype) -> tpuc_ir::Result<Value> {
    let ty = b.tensor_type(value)?.clone();
    let mut value = value;
    if dtype.scale != 1.0 {
        let factor = b.splat(ty.element, ty.shape.clone(), dtype.scale)?;
        value = b.divide(value, factor)?;
    }
    if dtype.element.bit_width() == 8 {
        let low = b.splat(ty.element, ty.shape.clone(), -dtype.largest())?;
        let high = b.splat(ty.element, ty.shape.clone(), dtype.largest())?;
        value = b.clamp(low, value, high)?;
    }
    b.convert(value, dtype.element)
}
