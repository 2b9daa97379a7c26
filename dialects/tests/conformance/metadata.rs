//! What rides along with the ops: every location kind, every attribute kind (on a composite,
//! on function arguments and results, on ops and on the module), names that need escaping.
//! XLA must accept all of it and still compute the same values.

use super::support::*;
use tpuc_ir::{
    Attribute, DenseElements, ElementType, FunctionBuilder, Location, Module, NamedAttrs, Result,
    TensorType, Visibility,
};

/// One attribute of every kind the IR models.
fn every_attribute() -> NamedAttrs {
    let dense_type = TensorType::of(&[2], ElementType::I32);
    NamedAttrs::new()
        .with("unit", Attribute::Unit)
        .with("flag", Attribute::Bool(true))
        .with(
            "count",
            Attribute::Int {
                value: -7,
                ty: ElementType::I64,
            },
        )
        .with(
            "scale",
            Attribute::Float {
                value: 0.125,
                ty: ElementType::F32,
            },
        )
        .with(
            "label",
            Attribute::String("quote \" backslash \\ tab \t done".to_string()),
        )
        .with("callee", Attribute::Symbol("scaled_add_impl".to_string()))
        .with(
            "list",
            Attribute::Array(vec![Attribute::Bool(false), Attribute::String("x".into())]),
        )
        .with("dims", Attribute::I64Array(vec![0, -1, 2]))
        .with(
            "nested",
            Attribute::Dict(NamedAttrs::new().with("inner", Attribute::I64Array(Vec::new()))),
        )
        .with(
            "table",
            Attribute::Dense {
                value: DenseElements::from_i64s(&dense_type, &[3, -4]).expect("two i32s"),
                ty: dense_type,
            },
        )
}

fn located_module() -> Result<Module> {
    let f32s3 = TensorType::of(&[3], ElementType::F32);
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    b.set_location(Location::file("model.py", 3, 7));
    let x = b.arg_with_attrs(
        f32s3.clone(),
        NamedAttrs::new().with("tpuc.name", Attribute::String("x".to_string())),
    );
    b.set_location(Location::named(
        "add \"quoted\" \\ name",
        Location::file("dir/model.py", 12, 0),
    ));
    let doubled = b.add(x, x)?;
    b.set_location(Location::Fused(vec![
        Location::name("fused.a"),
        Location::file("model.py", 13, 4),
        Location::Unknown,
    ]));
    let negated = b.negate(doubled)?;
    b.set_op_attr(
        negated,
        "mhlo.frontend_attributes",
        Attribute::Dict(NamedAttrs::new().with("node", Attribute::String("neg_1".into()))),
    )?;
    b.set_location(Location::named("composite", Location::Unknown));
    let composite = b.composite(
        "tpuc.scaled_add",
        &[negated, x],
        every_attribute(),
        "scaled_add_impl",
        2,
        vec![f32s3.clone().into()],
    )?[0];
    b.set_location(Location::Unknown);
    b.ret_with_attrs(
        &[composite],
        vec![NamedAttrs::new().with(
            "tpuc.output",
            Attribute::Int {
                value: 0,
                ty: ElementType::I32,
            },
        )],
    )?;
    let mut main = b.finish()?;
    main.attrs = NamedAttrs::new().with("tpuc.entry", Attribute::Unit);
    main.location = Location::name("main");

    let mut helper = FunctionBuilder::new("scaled_add_impl", Visibility::Private);
    helper.set_location(Location::name("decomposition"));
    let a = helper.arg(f32s3.clone());
    let c = helper.arg(f32s3);
    let eighth = helper.splat(ElementType::F32, [3], 0.125)?;
    let scaled = helper.multiply(c, eighth)?;
    let sum = helper.add(a, scaled)?;
    helper.ret(&[sum])?;

    let mut module = Module::new();
    module.name = Some("conformance".to_string());
    module.attrs = NamedAttrs::new()
        .with("tpuc.version", Attribute::String("1".to_string()))
        .with(
            "tpuc.flags",
            Attribute::Array(vec![Attribute::Int {
                value: 1,
                ty: ElementType::I32,
            }]),
        );
    module.location = Location::file("model.py", 1, 1);
    module.add_function(main)?;
    module.add_function(helper.finish()?)?;
    Ok(module)
}

pub fn cases() -> Vec<Case> {
    vec![Case::from_module(
        "locations of every kind, attributes of every kind, escaped names",
        located_module(),
        vec![f32s(&[3], &[1.0, -2.0, 8.0])],
        // -(2x) + x / 8
        vec![exact(f32s(&[3], &[-1.875, 3.75, -15.0]))],
    )]
}
