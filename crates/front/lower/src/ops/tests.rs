//! Op lowerings run on XLA:CPU against values worked out by hand from torch's documented
//! semantics: each case lowers one node through the real walker and executes it.

use tpuc_ir::{ElementType, FunctionBuilder, Module, TensorType, Visibility};
use tpuc_pjrt::{
    CompileOptions, ElementType as PjrtType, HostElement, Plugin, PluginKind, Program,
};
use tpuc_pt2::schema::{Argument, Float, Graph, NamedArgument, Node, TensorArgument};

use crate::cx::Walk;
use crate::env::Val;
use crate::lowering::Walker;
use crate::specialize::Symbols;

/// A tensor on the host.
#[derive(Clone, Debug, PartialEq)]
enum T {
    F32(Vec<i64>, Vec<f32>),
    I64(Vec<i64>, Vec<i64>),
    Bool(Vec<i64>, Vec<bool>),
    C64(Vec<i64>, Vec<C32>),
}

/// A complex64 element (real, imaginary) as the plugin stores it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct C32(f32, f32);

impl HostElement for C32 {
    const TYPE: PjrtType = PjrtType::C64;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_ne_bytes());
        out.extend_from_slice(&self.1.to_ne_bytes());
    }
    fn from_bytes(bytes: &[u8]) -> Self {
        let part = |b: &[u8]| f32::from_ne_bytes(b.try_into().expect("4 bytes"));
        C32(part(&bytes[..4]), part(&bytes[4..]))
    }
}

/// A node input: a tensor, or an argument as torch serializes it.
enum In {
    Tensor(T),
    Arg(Argument),
}

fn f32s(shape: &[i64], data: &[f32]) -> In {
    In::Tensor(T::F32(shape.to_vec(), data.to_vec()))
}
fn i64s(shape: &[i64], data: &[i64]) -> In {
    In::Tensor(T::I64(shape.to_vec(), data.to_vec()))
}
fn bools(shape: &[i64], data: &[bool]) -> In {
    In::Tensor(T::Bool(shape.to_vec(), data.to_vec()))
}
fn c64s(shape: &[i64], data: &[(f32, f32)]) -> In {
    let data = data.iter().map(|&(re, im)| C32(re, im)).collect();
    In::Tensor(T::C64(shape.to_vec(), data))
}
fn int(v: i64) -> In {
    In::Arg(Argument::AsInt(v))
}
fn float(v: f64) -> In {
    In::Arg(Argument::AsFloat(Float(v)))
}
fn ints(v: &[i64]) -> In {
    In::Arg(Argument::AsInts(v.to_vec()))
}
fn string(v: &str) -> In {
    In::Arg(Argument::AsString(v.to_owned()))
}

fn tensor_arg(name: &str) -> Argument {
    Argument::AsTensor(TensorArgument {
        name: name.to_owned(),
    })
}

/// Lowers `target` applied to `inputs` (by schema name) and runs it; returns its outputs.
/// Tensors named `%name` are graph inputs the other arguments refer to, not node arguments.
fn run_n(target: &str, inputs: Vec<(&str, In)>, outputs: usize) -> Vec<T> {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let mut graph = Graph::default();
    let mut node = Node {
        target: format!("torch.ops.aten.{target}"),
        name: Some("op".into()),
        ..Node::default()
    };
    let mut values = Vec::new();
    let mut host = Vec::new();
    for (name, input) in inputs {
        let arg = match input {
            In::Tensor(t) => {
                let (shape, element) = match &t {
                    T::F32(s, _) => (s, ElementType::F32),
                    T::I64(s, _) => (s, ElementType::I64),
                    T::Bool(s, _) => (s, ElementType::I1),
                    T::C64(s, _) => (s, ElementType::ComplexF32),
                };
                let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
                values.push(Val::Tensor(b.arg(TensorType::of(&dims, element))));
                let value_name = name.trim_start_matches('%');
                graph.inputs.push(tensor_arg(value_name));
                host.push(t);
                if name.starts_with('%') {
                    continue;
                }
                tensor_arg(value_name)
            }
            In::Arg(arg) => arg,
        };
        node.inputs.push(NamedArgument {
            name: name.to_owned(),
            arg,
            kind: Some(1),
        });
    }
    for i in 0..outputs {
        node.outputs.push(tensor_arg(&format!("out{i}")));
    }
    graph.outputs = node.outputs.clone();
    graph.nodes.push(node);
    let symbols = Symbols::default();
    let walker = Walker::new(&symbols, false);
    let results = walker
        .lower_graph(&mut b, &graph, values)
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    let results: Vec<_> = results
        .iter()
        .map(|v| v.tensor().expect("a tensor"))
        .collect();
    b.ret(&results).unwrap();
    let mut module = Module::new();
    module.add_function(b.finish().unwrap()).unwrap();
    tpuc_ir::verify(&module).unwrap_or_else(|e| panic!("{target}: {e}"));
    execute(&module, &host)
}

fn run(target: &str, inputs: Vec<(&str, In)>) -> T {
    run_n(target, inputs, 1).remove(0)
}

fn execute(module: &Module, inputs: &[T]) -> Vec<T> {
    let path = tpuc_pjrt::locate(PluginKind::Cpu, None).expect("the XLA:CPU plugin is installed");
    let client = Plugin::load(path).unwrap().cpu_client(1).unwrap();
    let text = tpuc_ir::print::generic(module, &Default::default());
    let exe = client
        .compile(&Program::mlir(&text), &CompileOptions::new())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let buffers: Vec<_> = inputs
        .iter()
        .map(|t| match t {
            T::F32(s, d) => client.buffer_from_slice(d, s, 0),
            T::I64(s, d) => client.buffer_from_slice(d, s, 0),
            T::Bool(s, d) => client.buffer_from_slice(d, s, 0),
            T::C64(s, d) => client.buffer_from_slice(d, s, 0),
        })
        .collect::<Result<_, _>>()
        .unwrap();
    let refs: Vec<_> = buffers.iter().collect();
    let mut out = exe.execute(&[&refs]).unwrap();
    out.remove(0)
        .iter()
        .map(|buffer| {
            let dims = buffer.dims().unwrap();
            match buffer.element_type().unwrap() {
                PjrtType::F32 => T::F32(dims, buffer.to_vec().unwrap()),
                PjrtType::S64 => T::I64(dims, buffer.to_vec().unwrap()),
                PjrtType::Pred => T::Bool(dims, buffer.to_vec().unwrap()),
                PjrtType::C64 => T::C64(dims, buffer.to_vec().unwrap()),
                other => panic!("unexpected result type {other:?}"),
            }
        })
        .collect()
}

fn assert_f32(got: T, shape: &[i64], want: &[f32]) {
    let T::F32(s, d) = got else {
        panic!("expected float32, got {got:?}");
    };
    assert_eq!(s, shape);
    for (g, w) in d.iter().zip(want) {
        assert!(
            g == w || (g - w).abs() <= 1e-5 * w.abs().max(1.0) || (g.is_nan() && w.is_nan()),
            "{d:?} != {want:?}"
        );
    }
}

#[test]
fn integer_floor_division_and_remainder_follow_python() {
    tpuc_expect::skip_without!(CpuPlugin);
    let a = [7, -7, 7, -7, 6, 0];
    let d = [2, 2, -2, -2, -3, 5];
    let got = run(
        "floor_divide.default",
        vec![("self", i64s(&[6], &a)), ("other", i64s(&[6], &d))],
    );
    assert_eq!(got, T::I64(vec![6], vec![3, -4, -4, 3, -2, 0]));
    let got = run(
        "remainder.Tensor",
        vec![("self", i64s(&[6], &a)), ("other", i64s(&[6], &d))],
    );
    assert_eq!(got, T::I64(vec![6], vec![1, 1, -1, -1, 0, 0]));
    // A constant divisor takes the one-comparison path.
    let got = run(
        "remainder.Scalar",
        vec![("self", i64s(&[4], &[7, -7, 5, -1])), ("other", int(-3))],
    );
    assert_eq!(got, T::I64(vec![4], vec![-2, -1, -1, -1]));
    let got = run(
        "div.Tensor_mode",
        vec![
            ("self", i64s(&[4], &[7, -7, 7, -7])),
            ("other", i64s(&[4], &[2, 2, -2, -2])),
            ("rounding_mode", string("trunc")),
        ],
    );
    assert_eq!(got, T::I64(vec![4], vec![3, -3, -3, 3]));
}

#[test]
fn float_division_modes_and_remainder() {
    tpuc_expect::skip_without!(CpuPlugin);
    let a = [7.5, -7.5, 7.5, -7.5];
    let d = [2.0, 2.0, -2.0, -2.0];
    let args = || vec![("self", f32s(&[4], &a)), ("other", f32s(&[4], &d))];
    assert_f32(run("div.Tensor", args()), &[4], &[3.75, -3.75, -3.75, 3.75]);
    assert_f32(
        run("remainder.Tensor", args()),
        &[4],
        &[1.5, 0.5, -0.5, -1.5],
    );
    assert_f32(run("fmod.Tensor", args()), &[4], &[1.5, -1.5, 1.5, -1.5]);
    let mut floor = args();
    floor.push(("rounding_mode", string("floor")));
    assert_f32(run("div.Tensor_mode", floor), &[4], &[3.0, -4.0, -4.0, 3.0]);
    let mut trunc = args();
    trunc.push(("rounding_mode", string("trunc")));
    assert_f32(run("div.Tensor_mode", trunc), &[4], &[3.0, -3.0, -3.0, 3.0]);
}

#[test]
fn int_tensor_true_division_gives_float32() {
    tpuc_expect::skip_without!(CpuPlugin);
    let got = run(
        "div.Tensor",
        vec![("self", i64s(&[3], &[1, 2, 7])), ("other", int(2))],
    );
    assert_f32(got, &[3], &[0.5, 1.0, 3.5]);
    let got = run(
        "mul.Tensor",
        vec![("self", i64s(&[2], &[3, -4])), ("other", float(0.5))],
    );
    assert_f32(got, &[2], &[1.5, -2.0]);
}

#[test]
fn maximum_propagates_nan_and_argmax_takes_the_first_maximum() {
    tpuc_expect::skip_without!(CpuPlugin);
    let got = run(
        "maximum.default",
        vec![
            ("self", f32s(&[3], &[1.0, f32::NAN, 3.0])),
            ("other", f32s(&[3], &[2.0, 0.0, f32::NAN])),
        ],
    );
    assert_f32(got, &[3], &[2.0, f32::NAN, f32::NAN]);
    let got = run(
        "argmax.default",
        vec![
            (
                "self",
                f32s(&[2, 4], &[1.0, 5.0, 5.0, 2.0, 0.0, f32::NAN, 9.0, f32::NAN]),
            ),
            ("dim", int(1)),
        ],
    );
    assert_eq!(got, T::I64(vec![2], vec![1, 1]));
}

#[test]
fn cumsum_gather_and_index() {
    tpuc_expect::skip_without!(CpuPlugin);
    let got = run(
        "cumsum.default",
        vec![
            ("self", i64s(&[2, 3], &[1, 2, 3, 4, 5, 6])),
            ("dim", int(1)),
        ],
    );
    assert_eq!(got, T::I64(vec![2, 3], vec![1, 3, 6, 4, 9, 15]));
    let got = run(
        "gather.default",
        vec![
            ("self", f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
            ("dim", int(1)),
            ("index", i64s(&[2, 2], &[2, 0, -1, 1])),
        ],
    );
    assert_f32(got, &[2, 2], &[3.0, 1.0, 6.0, 5.0]);
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let got = run(
        "index.Tensor",
        vec![
            ("self", x),
            (
                "indices",
                In::Arg(Argument::AsOptionalTensors(vec![
                    tpuc_pt2::schema::OptionalTensorArgument::AsNone(serde_json::Value::Bool(true)),
                    tpuc_pt2::schema::OptionalTensorArgument::AsTensor(TensorArgument {
                        name: "idx".into(),
                    }),
                ])),
            ),
            ("%idx", i64s(&[2], &[2, -3])),
        ],
    );
    assert_f32(got, &[2, 2], &[3.0, 1.0, 6.0, 4.0]);
}

#[test]
fn scatters() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[2, 3], &[0.0; 6]);
    let got = run(
        "scatter_add.default",
        vec![
            ("self", x()),
            ("dim", int(1)),
            ("index", i64s(&[2, 2], &[0, 0, 2, 1])),
            ("src", f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0])),
        ],
    );
    assert_f32(got, &[2, 3], &[3.0, 0.0, 0.0, 0.0, 4.0, 3.0]);
    let got = run(
        "index_add.default",
        vec![
            ("self", x()),
            ("dim", int(0)),
            ("index", i64s(&[2], &[1, 1])),
            ("source", f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
        ],
    );
    assert_f32(got, &[2, 3], &[0.0, 0.0, 0.0, 5.0, 7.0, 9.0]);
    let got = run(
        "slice_scatter.default",
        vec![
            ("self", x()),
            ("src", f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0])),
            ("dim", int(1)),
            ("start", int(1)),
        ],
    );
    assert_f32(got, &[2, 3], &[0.0, 1.0, 2.0, 0.0, 3.0, 4.0]);
}

#[test]
fn layout_ops() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_f32(
        run("tril.default", vec![("self", x())]),
        &[2, 3],
        &[1.0, 0.0, 0.0, 4.0, 5.0, 0.0],
    );
    assert_f32(
        run("triu.default", vec![("self", x()), ("diagonal", int(1))]),
        &[2, 3],
        &[0.0, 2.0, 3.0, 0.0, 0.0, 6.0],
    );
    assert_f32(
        run(
            "roll.default",
            vec![("self", x()), ("shifts", ints(&[1])), ("dims", ints(&[1]))],
        ),
        &[2, 3],
        &[3.0, 1.0, 2.0, 6.0, 4.0, 5.0],
    );
    assert_f32(
        run("flip.default", vec![("self", x()), ("dims", ints(&[0]))]),
        &[2, 3],
        &[4.0, 5.0, 6.0, 1.0, 2.0, 3.0],
    );
    assert_f32(
        run(
            "constant_pad_nd.default",
            vec![
                ("self", x()),
                ("pad", ints(&[1, -1])),
                ("value", float(9.0)),
            ],
        ),
        &[2, 3],
        &[9.0, 1.0, 2.0, 9.0, 4.0, 5.0],
    );
    assert_f32(
        run(
            "slice.Tensor",
            vec![
                ("self", x()),
                ("dim", int(1)),
                ("start", int(-2)),
                ("end", int(100)),
            ],
        ),
        &[2, 2],
        &[2.0, 3.0, 5.0, 6.0],
    );
    assert_f32(
        run(
            "repeat.default",
            vec![("self", x()), ("repeats", ints(&[1, 2]))],
        ),
        &[2, 6],
        &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 4.0, 5.0, 6.0],
    );
}

#[test]
fn masked_fill_where_and_clamp() {
    tpuc_expect::skip_without!(CpuPlugin);
    let got = run(
        "masked_fill.Scalar",
        vec![
            ("self", f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0])),
            ("mask", bools(&[2], &[true, false])),
            ("value", float(-1.0)),
        ],
    );
    assert_f32(got, &[2, 2], &[-1.0, 2.0, -1.0, 4.0]);
    let got = run(
        "where.self",
        vec![
            ("condition", bools(&[2], &[true, false])),
            ("self", i64s(&[2], &[1, 2])),
            ("other", float(0.5)),
        ],
    );
    assert_f32(got, &[2], &[1.0, 0.5]);
    let got = run(
        "clamp.default",
        vec![
            ("self", i64s(&[3], &[-5, 0, 5])),
            ("min", int(-1)),
            ("max", int(2)),
        ],
    );
    assert_eq!(got, T::I64(vec![3], vec![-1, 0, 2]));
}

#[test]
fn activations_match_their_definitions() {
    tpuc_expect::skip_without!(CpuPlugin);
    let xs = [-2.0f32, -0.5, 0.0, 0.5, 2.0];
    let x = || f32s(&[5], &xs);
    let erf = |v: f64| {
        // Abramowitz-Stegun 7.1.26 is too coarse; integrate instead.
        let n = 20_000;
        let h = v / n as f64;
        let f = |t: f64| (-t * t).exp();
        let mut s = f(0.0) + f(v);
        for i in 1..n {
            s += f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        s * h / 3.0 * 2.0 / std::f64::consts::PI.sqrt()
    };
    let gelu: Vec<f32> = xs
        .iter()
        .map(|&v| {
            let v = v as f64;
            (0.5 * v * (1.0 + erf(v / std::f64::consts::SQRT_2))) as f32
        })
        .collect();
    assert_f32(run("gelu.default", vec![("self", x())]), &[5], &gelu);
    let gelu_tanh: Vec<f32> = xs
        .iter()
        .map(|&v| {
            let v = v as f64;
            let k = (2.0 / std::f64::consts::PI).sqrt();
            (0.5 * v * (1.0 + (k * (v + 0.044715 * v * v * v)).tanh())) as f32
        })
        .collect();
    assert_f32(
        run(
            "gelu.default",
            vec![("self", x()), ("approximate", string("tanh"))],
        ),
        &[5],
        &gelu_tanh,
    );
    let silu: Vec<f32> = xs.iter().map(|&v| v / (1.0 + (-v).exp())).collect();
    assert_f32(run("silu.default", vec![("self", x())]), &[5], &silu);
    let softmax = {
        let e: Vec<f32> = xs.iter().map(|v| v.exp()).collect();
        let s: f32 = e.iter().sum();
        e.iter().map(|v| v / s).collect::<Vec<_>>()
    };
    assert_f32(
        run(
            "_softmax.default",
            vec![
                ("self", x()),
                ("dim", int(0)),
                ("half_to_float", In::Arg(Argument::AsBool(false))),
            ],
        ),
        &[5],
        &softmax,
    );
}

/// `(x - mean) / sqrt(var + eps) * weight[c] + bias[c]` per row of `row` elements, in float64;
/// `channel(i)` is the affine parameter index of element `i`.
fn normalize_rows(
    x: &[f32],
    row: usize,
    eps: f64,
    weight: &[f32],
    bias: &[f32],
    channel: impl Fn(usize) -> usize,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(x.len());
    for (r, values) in x.chunks(row).enumerate() {
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| v as f64).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        for (i, &v) in values.iter().enumerate() {
            let c = channel(r * row + i);
            let y = (v as f64 - mean) / (var + eps).sqrt();
            out.push((y * weight[c] as f64 + bias[c] as f64) as f32);
        }
    }
    out
}

#[test]
fn layer_and_group_norm_standardize_each_row_then_apply_the_affine_parameters() {
    tpuc_expect::skip_without!(CpuPlugin);
    let xs: Vec<f32> = (0..24).map(|i| ((i * 7) % 11) as f32 * 0.5 - 1.0).collect();
    let weight = [0.5f32, -1.0, 2.0];
    let bias = [0.25f32, 0.0, -1.0];
    let got = run(
        "layer_norm.default",
        vec![
            ("input", f32s(&[2, 4, 3], &xs)),
            ("normalized_shape", ints(&[3])),
            ("weight", f32s(&[3], &weight)),
            ("bias", f32s(&[3], &bias)),
            ("eps", float(1e-5)),
        ],
    );
    let want = normalize_rows(&xs, 3, 1e-5, &weight, &bias, |i| i % 3);
    assert_f32(got, &[2, 4, 3], &want);
    // Over the two trailing dimensions, without affine parameters.
    let got = run(
        "layer_norm.default",
        vec![
            ("input", f32s(&[2, 4, 3], &xs)),
            ("normalized_shape", ints(&[4, 3])),
        ],
    );
    let want = normalize_rows(&xs, 12, 1e-5, &[1.0], &[0.0], |_| 0);
    assert_f32(got, &[2, 4, 3], &want);
    // [N=2, C=4, L=3] in 2 groups of 2 channels: rows of 6, per-channel affine.
    let weight = [0.5f32, -1.0, 2.0, 1.5];
    let bias = [0.25f32, 0.0, -1.0, 3.0];
    let got = run(
        "group_norm.default",
        vec![
            ("input", f32s(&[2, 4, 3], &xs)),
            ("num_groups", int(2)),
            ("weight", f32s(&[4], &weight)),
            ("bias", f32s(&[4], &bias)),
            ("eps", float(1e-3)),
        ],
    );
    let want = normalize_rows(&xs, 6, 1e-3, &weight, &bias, |i| i / 3 % 4);
    assert_f32(got, &[2, 4, 3], &want);
}

#[test]
fn safe_softmax_zeroes_fully_masked_rows() {
    tpuc_expect::skip_without!(CpuPlugin);
    let inf = f32::NEG_INFINITY;
    let got = run(
        "_safe_softmax.default",
        vec![
            ("self", f32s(&[2, 2], &[0.0, 0.0, inf, inf])),
            ("dim", int(1)),
        ],
    );
    assert_f32(got, &[2, 2], &[0.5, 0.5, 0.0, 0.0]);
    let got = run(
        "_softmax.default",
        vec![
            ("self", f32s(&[1, 2], &[inf, inf])),
            ("dim", int(1)),
            ("half_to_float", In::Arg(Argument::AsBool(false))),
        ],
    );
    assert_f32(got, &[1, 2], &[f32::NAN, f32::NAN]);
}

#[test]
fn attention_broadcasts_one_key_value_head_over_the_query_heads() {
    tpuc_expect::skip_without!(CpuPlugin);
    // Two query heads of size 1 against one key/value head of two positions (multi-query
    // attention without `enable_gqa`). Head 0: scores [0, 0], weights [1/2, 1/2]; head 1:
    // scores [0, ln 3], weights [1/4, 3/4].
    let got = run(
        "scaled_dot_product_attention.default",
        vec![
            ("query", f32s(&[1, 2, 1, 1], &[0.0, 1.0])),
            ("key", f32s(&[1, 1, 2, 1], &[0.0, 3f32.ln()])),
            ("value", f32s(&[1, 1, 2, 1], &[4.0, 8.0])),
        ],
    );
    assert_f32(got, &[1, 2, 1, 1], &[6.0, 7.0]);
}

#[test]
fn attention_gives_zeros_for_query_rows_whose_keys_are_all_masked() {
    tpuc_expect::skip_without!(CpuPlugin);
    // Two queries over two keys with values 4 and 8: query 0 keeps key 1 only, query 1 keeps
    // none (PyTorch gives 0 there, a plain softmax NaN).
    let inputs = |mask: In| {
        vec![
            ("query", f32s(&[1, 1, 2, 1], &[0.0, 1.0])),
            ("key", f32s(&[1, 1, 2, 1], &[0.0, 1.0])),
            ("value", f32s(&[1, 1, 2, 1], &[4.0, 8.0])),
            ("attn_mask", mask),
        ]
    };
    let keep = bools(&[2, 2], &[false, true, false, false]);
    let got = run("scaled_dot_product_attention.default", inputs(keep));
    assert_f32(got, &[1, 1, 2, 1], &[8.0, 0.0]);
    let inf = f32::NEG_INFINITY;
    let additive = f32s(&[1, 1, 2, 2], &[inf, 0.0, inf, inf]);
    let got = run("scaled_dot_product_attention.default", inputs(additive));
    assert_f32(got, &[1, 1, 2, 1], &[8.0, 0.0]);
    // A mask over keys only ([S], broadcast over queries) that masks every key.
    let none = bools(&[2], &[false, false]);
    let got = run("scaled_dot_product_attention.default", inputs(none));
    assert_f32(got, &[1, 1, 2, 1], &[0.0, 0.0]);
}

fn boolean(v: bool) -> In {
    In::Arg(Argument::AsBool(v))
}
fn floats(v: &[f64]) -> In {
    In::Arg(Argument::AsFloats(v.iter().map(|&f| Float(f)).collect()))
}
fn none() -> In {
    In::Arg(Argument::AsNone(serde_json::Value::Bool(true)))
}

#[test]
fn max_and_min_reductions_propagate_nan_wherever_it_is() {
    tpuc_expect::skip_without!(CpuPlugin);
    let nan = f32::NAN;
    let rows = [
        nan, 1.0, 2.0, 3.0, //
        1.0, 2.0, 3.0, nan, //
        1.0, nan, 5.0, 2.0, //
        4.0, -1.0, 7.0, 2.0,
    ];
    let x = || f32s(&[4, 4], &rows);
    let got = run("amax.default", vec![("self", x()), ("dim", ints(&[1]))]);
    assert_f32(got, &[4], &[nan, nan, nan, 7.0]);
    let got = run("amin.default", vec![("self", x()), ("dim", ints(&[1]))]);
    assert_f32(got, &[4], &[nan, nan, nan, -1.0]);
    let got = run("max.default", vec![("self", x())]);
    assert_f32(got, &[], &[nan]);
    let got = run_n("max.dim", vec![("self", x()), ("dim", int(1))], 2);
    assert_f32(got[0].clone(), &[4], &[nan, nan, nan, 7.0]);
    assert_eq!(got[1], T::I64(vec![4], vec![0, 3, 1, 2]));
    // A NaN anywhere in a row makes that row's softmax NaN; other rows are untouched.
    let got = run(
        "softmax.int",
        vec![
            ("self", f32s(&[2, 2], &[0.0, nan, 0.0, 0.0])),
            ("dim", int(1)),
        ],
    );
    assert_f32(got, &[2, 2], &[nan, nan, 0.5, 0.5]);
    let got = run(
        "logsumexp.default",
        vec![
            ("self", f32s(&[2, 2], &[nan, 0.0, 0.0, 0.0])),
            ("dim", ints(&[1])),
        ],
    );
    assert_f32(got, &[2], &[nan, std::f32::consts::LN_2]);
}

#[test]
fn sort_is_stable_and_puts_nan_above_every_number() {
    tpuc_expect::skip_without!(CpuPlugin);
    let nan = f32::NAN;
    let x = || {
        f32s(
            &[2, 7],
            &[
                3.0, 1.0, nan, 1.0, -0.0, 3.0, 0.0, //
                2.0, 2.0, 1.0, 1.0, 2.0, nan, nan,
            ],
        )
    };
    let got = run_n(
        "sort.stable",
        vec![("self", x()), ("stable", boolean(true))],
        2,
    );
    assert_f32(
        got[0].clone(),
        &[2, 7],
        &[
            -0.0, 0.0, 1.0, 1.0, 3.0, 3.0, nan, //
            1.0, 1.0, 2.0, 2.0, 2.0, nan, nan,
        ],
    );
    assert_eq!(
        got[1],
        T::I64(vec![2, 7], vec![4, 6, 1, 3, 0, 5, 2, 2, 3, 0, 1, 4, 5, 6])
    );
    let got = run_n(
        "sort.default",
        vec![("self", x()), ("descending", boolean(true))],
        2,
    );
    assert_f32(
        got[0].clone(),
        &[2, 7],
        &[
            nan, 3.0, 3.0, 1.0, 1.0, -0.0, 0.0, //
            nan, nan, 2.0, 2.0, 2.0, 1.0, 1.0,
        ],
    );
    assert_eq!(
        got[1],
        T::I64(vec![2, 7], vec![2, 0, 5, 1, 3, 4, 6, 5, 6, 0, 1, 4, 2, 3])
    );
    let got = run(
        "argsort.default",
        vec![
            ("self", i64s(&[2, 3], &[5, -1, 5, 0, 0, -2])),
            ("dim", int(0)),
            ("descending", boolean(true)),
        ],
    );
    assert_eq!(got, T::I64(vec![2, 3], vec![0, 1, 0, 1, 0, 1]));
}

/// torch leaves the order of equal elements in `topk` unspecified; the lowering keeps the lower
/// index first, like its stable sort.
#[test]
fn topk_takes_the_largest_or_smallest_with_ties_in_index_order() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[5], &[1.0, 3.0, 3.0, 1.0, 3.0]);
    let got = run_n("topk.default", vec![("self", x()), ("k", int(2))], 2);
    assert_f32(got[0].clone(), &[2], &[3.0, 3.0]);
    assert_eq!(got[1], T::I64(vec![2], vec![1, 2]));
    let got = run_n(
        "topk.default",
        vec![("self", x()), ("k", int(3)), ("largest", boolean(false))],
        2,
    );
    assert_f32(got[0].clone(), &[3], &[1.0, 1.0, 3.0]);
    assert_eq!(got[1], T::I64(vec![3], vec![0, 3, 1]));
    let got = run_n(
        "topk.default",
        vec![
            ("self", f32s(&[2, 2], &[1.0, 4.0, 2.0, 3.0])),
            ("k", int(1)),
            ("dim", int(0)),
        ],
        2,
    );
    assert_f32(got[0].clone(), &[1, 2], &[2.0, 4.0]);
    assert_eq!(got[1], T::I64(vec![1, 2], vec![1, 0]));
}

#[test]
fn max_pool_indices_point_into_each_plane() {
    tpuc_expect::skip_without!(CpuPlugin);
    let nan = f32::NAN;
    // Ties take the first maximum of a window, NaN wins and the last NaN is kept (as torch).
    let got = run_n(
        "max_pool2d_with_indices.default",
        vec![
            (
                "self",
                f32s(
                    &[1, 1, 3, 3],
                    &[1.0, nan, 2.0, 5.0, 5.0, nan, 0.0, 1.0, 2.0],
                ),
            ),
            ("kernel_size", ints(&[2, 2])),
            ("stride", ints(&[1, 1])),
        ],
        2,
    );
    assert_f32(got[0].clone(), &[1, 1, 2, 2], &[nan, nan, 5.0, nan]);
    assert_eq!(got[1], T::I64(vec![1, 1, 2, 2], vec![1, 5, 3, 5]));
    let got = run(
        "max_pool2d.default",
        vec![
            (
                "self",
                f32s(
                    &[1, 1, 3, 3],
                    &[1.0, nan, 2.0, 5.0, 5.0, nan, 0.0, 1.0, 2.0],
                ),
            ),
            ("kernel_size", ints(&[2, 2])),
            ("stride", ints(&[1, 1])),
        ],
    );
    assert_f32(got, &[1, 1, 2, 2], &[nan, nan, 5.0, nan]);
    // Padding never wins, even against -inf.
    let inf = f32::NEG_INFINITY;
    let got = run_n(
        "max_pool2d_with_indices.default",
        vec![
            (
                "self",
                f32s(
                    &[1, 1, 3, 3],
                    &[inf, 2.0, -3.0, 4.0, 4.0, 0.0, 0.0, 1.0, 2.0],
                ),
            ),
            ("kernel_size", ints(&[2])),
            ("stride", ints(&[2])),
            ("padding", ints(&[1])),
        ],
        2,
    );
    assert_f32(got[0].clone(), &[1, 1, 2, 2], &[inf, 2.0, 4.0, 4.0]);
    assert_eq!(got[1], T::I64(vec![1, 1, 2, 2], vec![0, 1, 3, 4]));
}

#[test]
fn nearest_upsampling_follows_torch_index_rounding() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[1, 1, 1, 3], &[1.0, 2.0, 3.0]);
    // scale 1.5: positions floor(o / 1.5) = 0, 0, 1, 2.
    let got = run(
        "upsample_nearest2d.vec",
        vec![
            ("input", x()),
            ("output_size", none()),
            ("scale_factors", floats(&[1.0, 1.5])),
        ],
    );
    assert_f32(got, &[1, 1, 1, 4], &[1.0, 1.0, 2.0, 3.0]);
    // size 5: positions floor(o * 3 / 5) = 0, 0, 1, 1, 2.
    let got = run(
        "upsample_nearest2d.default",
        vec![("self", x()), ("output_size", ints(&[1, 5]))],
    );
    assert_f32(got, &[1, 1, 1, 5], &[1.0, 1.0, 2.0, 2.0, 3.0]);
    // An integer scale repeats every element.
    let got = run(
        "upsample_nearest2d.vec",
        vec![
            ("input", f32s(&[1, 1, 2, 1], &[1.0, 2.0])),
            ("output_size", ints(&[4, 2])),
            ("scale_factors", none()),
        ],
    );
    assert_f32(
        got,
        &[1, 1, 4, 2],
        &[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0],
    );
}

#[test]
fn bilinear_upsampling_with_and_without_align_corners() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    // align_corners: the corners map onto each other, positions o * (2 - 1) / (3 - 1).
    let got = run(
        "upsample_bilinear2d.default",
        vec![
            ("self", x()),
            ("output_size", ints(&[3, 3])),
            ("align_corners", boolean(true)),
        ],
    );
    assert_f32(
        got,
        &[1, 1, 3, 3],
        &[1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.0, 3.5, 4.0],
    );
    // Half-pixel centres: positions (o + 0.5) / 2 - 0.5, clamped at 0.
    let got = run(
        "upsample_bilinear2d.vec",
        vec![
            ("input", x()),
            ("output_size", none()),
            ("align_corners", boolean(false)),
            ("scale_factors", floats(&[2.0, 2.0])),
        ],
    );
    assert_f32(
        got,
        &[1, 1, 4, 4],
        &[
            1.0, 1.25, 1.75, 2.0, //
            1.5, 1.75, 2.25, 2.5, //
            2.5, 2.75, 3.25, 3.5, //
            3.0, 3.25, 3.75, 4.0,
        ],
    );
}

#[test]
fn linear_upsampling_in_one_dimension() {
    tpuc_expect::skip_without!(CpuPlugin);
    // Size 5 from 2 without align_corners: positions (o + 0.5) * 2 / 5 - 0.5, clamped at 0,
    // i.e. 0, 0.1, 0.5, 0.9 and 1.3 (past the last element: its value).
    let got = run(
        "upsample_linear1d.vec",
        vec![
            ("input", f32s(&[1, 1, 2], &[2.0, 4.0])),
            ("output_size", ints(&[5])),
            ("align_corners", boolean(false)),
            ("scale_factors", none()),
        ],
    );
    assert_f32(got, &[1, 1, 5], &[2.0, 2.2, 3.0, 3.8, 4.0]);
}

/// A transposed convolution by its definition: every input element scatters its kernel,
/// scaled, to `i * stride - padding + k * dilation` (the output length includes
/// `output_padding`).
#[allow(clippy::too_many_arguments)]
fn conv_transpose_1d_reference(
    x: &[f32],
    (n, c_in, len): (usize, usize, usize),
    w: &[f32],
    (c_out_per_group, k): (usize, usize),
    bias: &[f32],
    (stride, padding, output_padding, dilation, groups): (usize, usize, usize, usize, usize),
) -> (Vec<i64>, Vec<f32>) {
    let c_out = c_out_per_group * groups;
    let out_len = (len - 1) * stride + dilation * (k - 1) + output_padding + 1 - 2 * padding;
    let mut y = vec![0.0; n * c_out * out_len];
    for b in 0..n {
        for co in 0..c_out {
            for o in 0..out_len {
                y[(b * c_out + co) * out_len + o] = bias[co];
            }
        }
        for ci in 0..c_in {
            let g = ci / (c_in / groups);
            for j in 0..c_out_per_group {
                let co = g * c_out_per_group + j;
                for i in 0..len {
                    for t in 0..k {
                        let pos = (i * stride + t * dilation) as i64 - padding as i64;
                        if (0..out_len as i64).contains(&pos) {
                            y[(b * c_out + co) * out_len + pos as usize] += x
                                [(b * c_in + ci) * len + i]
                                * w[(ci * c_out_per_group + j) * k + t];
                        }
                    }
                }
            }
        }
    }
    (vec![n as i64, c_out as i64, out_len as i64], y)
}

#[test]
fn transposed_convolutions_with_output_padding_groups_and_dilation() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x: Vec<f32> = (0..2 * 4 * 3).map(|i| (i as f32 * 0.37).sin()).collect();
    let w: Vec<f32> = (0..4 * 6 * 2).map(|i| (i as f32 * 0.91).cos()).collect();
    let bias: Vec<f32> = (0..6).map(|i| i as f32 * 0.1 - 0.2).collect();
    for (stride, padding, output_padding, dilation, groups) in
        // The last pads by more than the kernel spans: the convolution's padding is negative.
        [
            (2, 1, 1, 2, 2),
            (3, 0, 2, 1, 1),
            (1, 1, 0, 1, 2),
            (2, 2, 1, 1, 1),
        ]
    {
        let c_out_per_group = 6 / groups;
        let k = 2;
        let w = &w[..4 * c_out_per_group * k];
        let (shape, want) = conv_transpose_1d_reference(
            &x,
            (2, 4, 3),
            w,
            (c_out_per_group, k),
            &bias,
            (stride, padding, output_padding, dilation, groups),
        );
        let got = run(
            "conv_transpose1d.default",
            vec![
                ("input", f32s(&[2, 4, 3], &x)),
                ("weight", f32s(&[4, c_out_per_group as i64, k as i64], w)),
                ("bias", f32s(&[6], &bias)),
                ("stride", ints(&[stride as i64])),
                ("padding", ints(&[padding as i64])),
                ("output_padding", ints(&[output_padding as i64])),
                ("groups", int(groups as i64)),
                ("dilation", ints(&[dilation as i64])),
            ],
        );
        assert_f32(got, &shape, &want);
    }
    // The ATen form: `convolution` with `transposed=True`, 2-D with one spatial dimension of
    // size 1 (so the 1-D reference applies), stride and output_padding per dimension.
    let (shape, want) = conv_transpose_1d_reference(
        &x,
        (2, 4, 3),
        &w[..4 * 3 * 2],
        (3, 2),
        &bias,
        (2, 0, 1, 1, 2),
    );
    let got = run(
        "convolution.default",
        vec![
            ("input", f32s(&[2, 4, 1, 3], &x)),
            ("weight", f32s(&[4, 3, 1, 2], &w[..4 * 3 * 2])),
            ("bias", f32s(&[6], &bias)),
            ("stride", ints(&[3, 2])),
            ("padding", ints(&[0, 0])),
            ("dilation", ints(&[1, 1])),
            ("transposed", boolean(true)),
            ("output_padding", ints(&[0, 1])),
            ("groups", int(2)),
        ],
    );
    assert_f32(got, &[shape[0], shape[1], 1, shape[2]], &want);
}

#[test]
fn cumprod_and_mish() {
    tpuc_expect::skip_without!(CpuPlugin);
    let got = run(
        "cumprod.default",
        vec![
            ("self", f32s(&[2, 3], &[1.0, 2.0, 3.0, -1.0, 0.5, 4.0])),
            ("dim", int(1)),
        ],
    );
    assert_f32(got, &[2, 3], &[1.0, 2.0, 6.0, -1.0, -0.5, -2.0]);
    let got = run(
        "cumprod.default",
        vec![("self", i64s(&[3], &[2, -3, 4])), ("dim", int(0))],
    );
    assert_eq!(got, T::I64(vec![3], vec![2, -6, -24]));
    let xs = [-30.0f32, -1.0, 0.0, 1.0, 25.0];
    let want: Vec<f32> = xs
        .iter()
        .map(|&v| {
            let v = v as f64;
            let softplus = if v > 20.0 { v } else { v.exp().ln_1p() };
            (v * softplus.tanh()) as f32
        })
        .collect();
    assert_f32(
        run("mish.default", vec![("self", f32s(&[5], &xs))]),
        &[5],
        &want,
    );
}

#[test]
fn as_strided_reads_the_contiguous_elements_at_offset_plus_index_times_stride() {
    tpuc_expect::skip_without!(CpuPlugin);
    let xs: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let strided = |size: &[i64], stride: &[i64], offset: i64| {
        run(
            "as_strided.default",
            vec![
                ("self", f32s(&[3, 4], &xs)),
                ("size", ints(size)),
                ("stride", ints(stride)),
                ("storage_offset", int(offset)),
            ],
        )
    };
    let f = |shape: &[i64], data: &[f32]| T::F32(shape.to_vec(), data.to_vec());
    // Rows of a reshape, sliced.
    assert_eq!(
        strided(&[2, 3], &[4, 1], 1),
        f(&[2, 3], &[1., 2., 3., 5., 6., 7.])
    );
    // Transposed.
    assert_eq!(
        strided(&[3, 2], &[1, 4], 2),
        f(&[3, 2], &[2., 6., 3., 7., 4., 8.])
    );
    // The last row's span runs past the input (padded, never read).
    assert_eq!(
        strided(&[2, 2], &[6, 1], 4),
        f(&[2, 2], &[4., 5., 10., 11.])
    );
    // Overlapping windows and a stride that does not divide: gathers.
    assert_eq!(
        strided(&[3, 3], &[2, 1], 0),
        f(&[3, 3], &[0., 1., 2., 2., 3., 4., 4., 5., 6.])
    );
    assert_eq!(strided(&[2, 2], &[5, 2], 1), f(&[2, 2], &[1., 3., 6., 8.]));
    // Stride 0 broadcasts.
    assert_eq!(
        strided(&[2, 3], &[0, 1], 3),
        f(&[2, 3], &[3., 4., 5., 3., 4., 5.])
    );
}

/// Lowers a graph of `nodes` (target, named arguments) over float32 inputs `x`, ... and runs it;
/// returns the graph's `outputs`. Node `i`'s output is `n{i}`.
fn run_graph(
    inputs: &[(&str, T)],
    nodes: &[(&str, Vec<(&str, Argument)>)],
    outputs: &[&str],
) -> Vec<T> {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let mut graph = Graph::default();
    let mut values = Vec::new();
    for (name, t) in inputs {
        let T::F32(shape, _) = t else {
            panic!("float32 inputs only");
        };
        let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        values.push(Val::Tensor(b.arg(TensorType::of(&dims, ElementType::F32))));
        graph.inputs.push(tensor_arg(name));
    }
    for (i, (target, args)) in nodes.iter().enumerate() {
        graph.nodes.push(Node {
            target: format!("torch.ops.aten.{target}"),
            name: Some(format!("n{i}")),
            inputs: args
                .iter()
                .map(|(name, arg)| NamedArgument {
                    name: (*name).to_owned(),
                    arg: arg.clone(),
                    kind: Some(1),
                })
                .collect(),
            outputs: vec![tensor_arg(&format!("n{i}"))],
            ..Node::default()
        });
    }
    graph.outputs = outputs.iter().map(|name| tensor_arg(name)).collect();
    let symbols = Symbols::default();
    let results = Walker::new(&symbols, false)
        .lower_graph(&mut b, &graph, values)
        .unwrap_or_else(|e| panic!("{e}"));
    let results: Vec<_> = results.iter().map(|v| v.tensor().unwrap()).collect();
    b.ret(&results).unwrap();
    let mut module = Module::new();
    module.add_function(b.finish().unwrap()).unwrap();
    tpuc_ir::verify(&module).unwrap();
    let host: Vec<T> = inputs.iter().map(|(_, t)| t.clone()).collect();
    execute(&module, &host)
}

#[test]
fn in_place_writes_through_views_reach_their_base() {
    tpuc_expect::skip_without!(CpuPlugin);
    let t = tensor_arg;
    let x: Vec<f32> = (0..12).map(|v| v as f32).collect();
    let input = || [("x", T::F32(vec![3, 4], x.clone()))];
    let at = |f: &dyn Fn(usize, usize) -> Option<f32>| -> Vec<f32> {
        (0..12).map(|i| f(i / 4, i % 4).unwrap_or(x[i])).collect()
    };
    // x.t().select(0, 1).fill_(-1): column 1 of x.
    let got = run_graph(
        &input(),
        &[
            ("t.default", vec![("self", t("x"))]),
            (
                "select.int",
                vec![
                    ("self", t("n0")),
                    ("dim", Argument::AsInt(0)),
                    ("index", Argument::AsInt(1)),
                ],
            ),
            (
                "fill_.Scalar",
                vec![("self", t("n1")), ("value", Argument::AsFloat(Float(-1.0)))],
            ),
        ],
        &["x"],
    );
    assert_f32(
        got[0].clone(),
        &[3, 4],
        &at(&|_, c| (c == 1).then_some(-1.0)),
    );
    // x.transpose(0, 1)[1:4:2].zero_(): columns 1 and 3.
    let got = run_graph(
        &input(),
        &[
            (
                "transpose.int",
                vec![
                    ("self", t("x")),
                    ("dim0", Argument::AsInt(0)),
                    ("dim1", Argument::AsInt(1)),
                ],
            ),
            (
                "slice.Tensor",
                vec![
                    ("self", t("n0")),
                    ("dim", Argument::AsInt(0)),
                    ("start", Argument::AsInt(1)),
                    ("end", Argument::AsInt(4)),
                    ("step", Argument::AsInt(2)),
                ],
            ),
            ("zero_.default", vec![("self", t("n1"))]),
        ],
        &["x"],
    );
    assert_f32(
        got[0].clone(),
        &[3, 4],
        &at(&|_, c| (c % 2 == 1).then_some(0.0)),
    );
    // x.unsqueeze(0).permute(2, 0, 1)[-1].mul_(10): column 3.
    let got = run_graph(
        &input(),
        &[
            (
                "unsqueeze.default",
                vec![("self", t("x")), ("dim", Argument::AsInt(0))],
            ),
            (
                "permute.default",
                vec![("self", t("n0")), ("dims", Argument::AsInts(vec![2, 0, 1]))],
            ),
            (
                "select.int",
                vec![
                    ("self", t("n1")),
                    ("dim", Argument::AsInt(0)),
                    ("index", Argument::AsInt(-1)),
                ],
            ),
            (
                "mul_.Scalar",
                vec![("self", t("n2")), ("other", Argument::AsFloat(Float(10.0)))],
            ),
        ],
        &["x"],
    );
    assert_f32(
        got[0].clone(),
        &[3, 4],
        &at(&|r, c| (c == 3).then_some(x[r * 4 + c] * 10.0)),
    );
    // `to` converting nothing is a view: x.to(float32).add_(1) writes x; to(float64) copies
    // (the export schema's ScalarType: 7 is float32, 8 float64).
    let to = |dtype: i64| vec![("self", t("x")), ("dtype", Argument::AsScalarType(dtype))];
    let add = vec![("self", t("n0")), ("other", Argument::AsFloat(Float(1.0)))];
    let got = run_graph(
        &input(),
        &[("to.dtype", to(7)), ("add_.Scalar", add.clone())],
        &["x"],
    );
    assert_f32(
        got[0].clone(),
        &[3, 4],
        &at(&|r, c| Some(x[r * 4 + c] + 1.0)),
    );
    let got = run_graph(
        &input(),
        &[("to.dtype", to(8)), ("add_.Scalar", add)],
        &["x"],
    );
    assert_f32(got[0].clone(), &[3, 4], &x);
}

#[test]
fn slice_scatter_takes_any_step() {
    tpuc_expect::skip_without!(CpuPlugin);
    let got = run(
        "slice_scatter.default",
        vec![
            ("self", f32s(&[7], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
            ("src", f32s(&[3], &[-1.0, -2.0, -3.0])),
            ("dim", int(0)),
            ("start", int(1)),
            ("end", int(7)),
            ("step", int(2)),
        ],
    );
    assert_f32(got, &[7], &[0.0, -1.0, 2.0, -2.0, 4.0, -3.0, 6.0]);
}

/// `_fft_r2c`: the half spectrum of the last of `dim` (or the full one), normalized none, by 1/sqrt(n), by 1/n.
#[test]
fn fft_r2c_gives_one_sided_or_full_spectra_with_each_normalization() {
    tpuc_expect::skip_without!(CpuPlugin);

    // torch.fft.rfft(x): one-sided, unnormalized.
    let got = run(
        "_fft_r2c.default",
        vec![
            (
                "self",
                f32s(
                    &[2, 5],
                    &[0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.0, -2.0, 1.0],
                ),
            ),
            ("dim", ints(&[1])),
            ("normalization", int(0)),
            ("onesided", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[2, 3],
        &[
            (3.25, 0.0),
            (-1.1657798, 1.3490173),
            (0.7907797, 3.133812),
            (1.25, 0.0),
            (2.1041021, -3.0776834),
            (-4.604102, 0.7265426),
        ],
    );

    // torch.fft.fft(x, norm="ortho") of a real x: the full spectrum.
    let got = run(
        "_fft_r2c.default",
        vec![
            (
                "self",
                f32s(
                    &[2, 5],
                    &[0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.0, -2.0, 1.0],
                ),
            ),
            ("dim", ints(&[1])),
            ("normalization", int(1)),
            ("onesided", boolean(false)),
        ],
    );
    assert_c64(
        got,
        &[2, 5],
        &[
            (1.4534441, 0.0),
            (-0.5213526, 0.60329884),
            (0.35364744, 1.4014833),
            (0.35364744, -1.4014833),
            (-0.5213526, -0.60329884),
            (0.559017, 0.0),
            (0.94098306, -1.3763819),
            (-2.059017, 0.32491973),
            (-2.059017, -0.32491973),
            (0.94098306, 1.3763819),
        ],
    );

    // torch.fft.rfft(x, dim=0, norm="forward"): a leading dimension.
    let got = run(
        "_fft_r2c.default",
        vec![
            (
                "self",
                f32s(
                    &[4, 3],
                    &[
                        1.0, -0.5, 2.0, 0.25, 3.0, -1.0, 0.0, 1.5, -2.0, 0.75, -0.25, 1.0,
                    ],
                ),
            ),
            ("dim", ints(&[0])),
            ("normalization", int(2)),
            ("onesided", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[3, 3],
        &[
            (0.5, 0.0),
            (0.9375, 0.0),
            (0.0, 0.0),
            (0.25, 0.125),
            (-0.5, -0.8125),
            (1.0, 0.5),
            (0.0, 0.0),
            (-0.4375, 0.0),
            (0.0, 0.0),
        ],
    );

    // torch.fft.rfft2(x, dim=(1, 0)): dimension 0, the last of `dim`, is halved.
    let got = run(
        "_fft_r2c.default",
        vec![
            (
                "self",
                f32s(
                    &[4, 3],
                    &[
                        1.0, -0.5, 2.0, 0.25, 3.0, -1.0, 0.0, 1.5, -2.0, 0.75, -0.25, 1.0,
                    ],
                ),
            ),
            ("dim", ints(&[1, 0])),
            ("normalization", int(0)),
            ("onesided", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[3, 3],
        &[
            (5.75, 0.0),
            (0.125, -3.2475953),
            (0.125, 3.2475953),
            (3.0, -0.75),
            (-4.5466332, 6.321152),
            (4.5466332, -4.071152),
            (-1.75, 0.0),
            (0.875, 1.5155444),
            (0.875, -1.5155444),
        ],
    );
}

/// `_fft_c2r`: `last_dim_size` real values from the half spectrum.
#[test]
fn fft_c2r_gives_last_dim_size_real_values_with_each_normalization() {
    tpuc_expect::skip_without!(CpuPlugin);

    // torch.fft.irfft(x, n=4): even length, divided by n.
    let got = run(
        "_fft_c2r.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 3],
                    &[
                        (4.0, 0.0),
                        (1.0, -2.0),
                        (0.5, 1.0),
                        (-1.0, 0.5),
                        (2.0, 0.5),
                        (3.0, -1.0),
                    ],
                ),
            ),
            ("dim", ints(&[1])),
            ("normalization", int(2)),
            ("last_dim_size", int(4)),
        ],
    );
    assert_f32(
        got,
        &[2, 4],
        &[1.625, 1.875, 0.625, -0.125, 1.5, -1.25, -0.5, -0.75],
    );

    // An odd length, unnormalized (torch.fft.hfft's scaling).
    let got = run(
        "_fft_c2r.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 3],
                    &[
                        (4.0, 0.0),
                        (1.0, -2.0),
                        (0.5, 1.0),
                        (-1.0, 0.5),
                        (2.0, 0.5),
                        (3.0, -1.0),
                    ],
                ),
            ),
            ("dim", ints(&[1])),
            ("normalization", int(0)),
            ("last_dim_size", int(5)),
        ],
    );
    assert_f32(
        got,
        &[2, 5],
        &[
            7.0, 6.4376726, 6.9442368, -1.5622709, 1.1803615, 9.0, -4.3935204, -4.871864,
            0.10793257, -4.8425484,
        ],
    );

    // torch.fft.irfft2(x, dim=(1, 0), norm="ortho"): dimension 0 is the real one.
    let got = run(
        "_fft_c2r.default",
        vec![
            (
                "self",
                c64s(
                    &[3, 2],
                    &[
                        (4.0, 0.0),
                        (-1.0, 0.5),
                        (1.0, -2.0),
                        (2.0, 0.5),
                        (0.5, 1.0),
                        (3.0, -1.0),
                    ],
                ),
            ),
            ("dim", ints(&[1, 0])),
            ("normalization", int(1)),
            ("last_dim_size", int(4)),
        ],
    );
    assert_f32(
        got,
        &[4, 2],
        &[
            4.4194174, 0.17677677, 0.8838835, 4.4194174, 0.17677665, 1.5909903, -1.2374368,
            0.8838835,
        ],
    );
}

/// `_fft_c2c` in both directions; XLA's IFFT divides by n, torch's `normalization` says what the result is.
#[test]
fn fft_c2c_forward_and_backward_with_each_normalization() {
    tpuc_expect::skip_without!(CpuPlugin);

    // torch.fft.fft(x)
    let got = run(
        "_fft_c2c.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 4],
                    &[
                        (1.0, 2.0),
                        (-0.5, 0.0),
                        (3.0, -1.0),
                        (0.25, 0.75),
                        (2.0, 0.0),
                        (0.0, -1.0),
                        (-1.5, 0.5),
                        (1.0, 1.0),
                    ],
                ),
            ),
            ("dim", ints(&[1])),
            ("normalization", int(0)),
            ("forward", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[2, 4],
        &[
            (3.75, 1.75),
            (-2.75, 3.75),
            (4.25, 0.25),
            (-1.25, 2.25),
            (1.5, 0.5),
            (1.5, 0.5),
            (-0.5, 0.5),
            (5.5, -1.5),
        ],
    );

    // torch.fft.fft2(x, norm="ortho")
    let got = run(
        "_fft_c2c.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 4],
                    &[
                        (1.0, 2.0),
                        (-0.5, 0.0),
                        (3.0, -1.0),
                        (0.25, 0.75),
                        (2.0, 0.0),
                        (0.0, -1.0),
                        (-1.5, 0.5),
                        (1.0, 1.0),
                    ],
                ),
            ),
            ("dim", ints(&[0, 1])),
            ("normalization", int(1)),
            ("forward", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[2, 4],
        &[
            (1.8561553, 0.79549515),
            (-0.44194174, 1.5026019),
            (1.3258252, 0.26516503),
            (1.5026019, 0.26516503),
            (0.79549515, 0.44194174),
            (-1.5026019, 1.1490486),
            (1.6793785, -0.088388346),
            (-2.3864853, 1.3258252),
        ],
    );

    // torch.fft.ifft(x, dim=0): a leading dimension.
    let got = run(
        "_fft_c2c.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 4],
                    &[
                        (1.0, 2.0),
                        (-0.5, 0.0),
                        (3.0, -1.0),
                        (0.25, 0.75),
                        (2.0, 0.0),
                        (0.0, -1.0),
                        (-1.5, 0.5),
                        (1.0, 1.0),
                    ],
                ),
            ),
            ("dim", ints(&[0])),
            ("normalization", int(2)),
            ("forward", boolean(false)),
        ],
    );
    assert_c64(
        got,
        &[2, 4],
        &[
            (1.5, 1.0),
            (-0.25, -0.5),
            (0.75, -0.25),
            (0.625, 0.875),
            (-0.5, 1.0),
            (-0.25, 0.5),
            (2.25, -0.75),
            (-0.375, -0.125),
        ],
    );

    // torch.fft.ifft(x, norm="forward"): backward, unnormalized.
    let got = run(
        "_fft_c2c.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 4],
                    &[
                        (1.0, 2.0),
                        (-0.5, 0.0),
                        (3.0, -1.0),
                        (0.25, 0.75),
                        (2.0, 0.0),
                        (0.0, -1.0),
                        (-1.5, 0.5),
                        (1.0, 1.0),
                    ],
                ),
            ),
            ("dim", ints(&[1])),
            ("normalization", int(0)),
            ("forward", boolean(false)),
        ],
    );
    assert_c64(
        got,
        &[2, 4],
        &[
            (3.75, 1.75),
            (-1.25, 2.25),
            (4.25, 0.25),
            (-2.75, 3.75),
            (1.5, 0.5),
            (5.5, -1.5),
            (-0.5, 0.5),
            (1.5, 0.5),
        ],
    );
}

/// StableHLO transforms at most three dimensions at once: four take two `stablehlo.fft`s.
#[test]
fn fft_over_four_dimensions_takes_more_than_one_transform() {
    tpuc_expect::skip_without!(CpuPlugin);

    // torch.fft.rfftn(x, norm="ortho")
    let got = run(
        "_fft_r2c.default",
        vec![
            (
                "self",
                f32s(
                    &[2, 2, 2, 3],
                    &[
                        0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.0, -2.0, 1.0, 0.125, -0.5, 1.0,
                        2.0, -1.0, 0.5, 0.0, 0.75, -1.25, 2.5, 1.0, -0.25, 0.5, 1.5,
                    ],
                ),
            ),
            ("dim", ints(&[0, 1, 2, 3])),
            ("normalization", int(1)),
            ("onesided", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[2, 2, 2, 2],
        &[
            (2.3219123, 0.0),
            (0.29342842, -0.81759226),
            (0.43376383, 0.0),
            (0.31894398, -0.4198447),
            (0.025515556, 0.0),
            (-0.08930433, 0.2872621),
            (0.07654656, 0.0),
            (-0.114819884, 0.9501747),
            (-0.63788795, 0.0),
            (1.7733285, 0.15467963),
            (-0.07654658, 0.0),
            (0.8802854, 1.7898641),
            (0.33170176, 0.0),
            (-2.079515, 0.9059806),
            (-0.02551552, 0.0),
            (-0.9823475, 1.3921164),
        ],
    );

    // torch.fft.irfftn of rfftn(x) gives x back.
    let got = run(
        "_fft_c2r.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 2, 2, 2],
                    &[
                        (11.375, 0.0),
                        (1.4375, -4.0053673),
                        (2.125, 0.0),
                        (1.5625, -2.0568104),
                        (0.125, 0.0),
                        (-0.4375, 1.4072912),
                        (0.375, 0.0),
                        (-0.5625, 4.6548862),
                        (-3.125, 0.0),
                        (8.6875, 0.7577722),
                        (-0.375, 0.0),
                        (4.3125, 8.768507),
                        (1.625, 0.0),
                        (-10.1875, 4.4383802),
                        (-0.125, 0.0),
                        (-4.8125, 6.81995),
                    ],
                ),
            ),
            ("dim", ints(&[0, 1, 2, 3])),
            ("normalization", int(2)),
            ("last_dim_size", int(3)),
        ],
    );
    assert_f32(
        got,
        &[2, 2, 2, 3],
        &[
            0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.0, -2.0, 1.0, 0.125, -0.5, 1.0, 2.0, -1.0,
            0.5, 0.0, 0.75, -1.25, 2.5, 1.0, -0.25, 0.5, 1.5,
        ],
    );

    // torch.fft.ifftn(x, norm="ortho")
    let got = run(
        "_fft_c2c.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 2, 2, 3],
                    &[
                        (0.5, 2.0),
                        (-1.0, -1.0),
                        (2.0, 0.5),
                        (0.25, -0.75),
                        (1.5, 1.5),
                        (-0.75, 0.25),
                        (3.0, -2.0),
                        (0.0, 0.0),
                        (-2.0, 3.0),
                        (1.0, -0.5),
                        (0.125, 0.125),
                        (-0.5, 1.0),
                        (1.0, -1.0),
                        (2.0, 2.0),
                        (-1.0, 1.0),
                        (0.5, 0.75),
                        (0.0, 0.0),
                        (0.75, 0.5),
                        (-1.25, 1.0),
                        (2.5, 2.5),
                        (1.0, -1.25),
                        (-0.25, 1.5),
                        (0.5, 0.5),
                        (1.5, -0.25),
                    ],
                ),
            ),
            ("dim", ints(&[0, 1, 2, 3])),
            ("normalization", int(1)),
            ("forward", boolean(false)),
        ],
    );
    assert_c64(
        got,
        &[2, 2, 2, 3],
        &[
            (2.3219123, 2.3219123),
            (0.13874888, -0.037177652),
            (0.44810814, -1.6723622),
            (0.43376383, 0.43376383),
            (0.38523507, -0.1032235),
            (0.25265276, -0.9429128),
            (0.025515556, 0.025515556),
            (-0.023013115, 0.0061663687),
            (-0.1555956, 0.5806904),
            (0.07654652, 0.07654652),
            (0.26083076, -0.06988937),
            (-0.4904703, 1.8304603),
            (-0.63788795, -0.63788795),
            (3.386416, -0.9073875),
            (0.16024119, -0.5980283),
            (-0.07654658, -0.07654658),
            (2.537567, -0.679939),
            (-0.77699614, 2.899789),
            (0.33170176, 0.33170176),
            (-3.427437, 0.91837907),
            (-0.7315925, 2.73034),
            (-0.025515467, -0.025515467),
            (-1.1370271, 0.30466554),
            (-0.82766783, 3.0888984),
        ],
    );

    // torch.fft.fftn(x, dim=(3, 2, 1, 0), norm="forward")
    let got = run(
        "_fft_c2c.default",
        vec![
            (
                "self",
                c64s(
                    &[2, 2, 2, 3],
                    &[
                        (0.5, 2.0),
                        (-1.0, -1.0),
                        (2.0, 0.5),
                        (0.25, -0.75),
                        (1.5, 1.5),
                        (-0.75, 0.25),
                        (3.0, -2.0),
                        (0.0, 0.0),
                        (-2.0, 3.0),
                        (1.0, -0.5),
                        (0.125, 0.125),
                        (-0.5, 1.0),
                        (1.0, -1.0),
                        (2.0, 2.0),
                        (-1.0, 1.0),
                        (0.5, 0.75),
                        (0.0, 0.0),
                        (0.75, 0.5),
                        (-1.25, 1.0),
                        (2.5, 2.5),
                        (1.0, -1.25),
                        (-0.25, 1.5),
                        (0.5, 0.5),
                        (1.5, -0.25),
                    ],
                ),
            ),
            ("dim", ints(&[3, 2, 1, 0])),
            ("normalization", int(2)),
            ("forward", boolean(true)),
        ],
    );
    assert_c64(
        got,
        &[2, 2, 2, 3],
        &[
            (0.47395834, 0.47395834),
            (0.09146969, -0.3413695),
            (0.028321981, -0.0075888634),
            (0.08854166, 0.08854166),
            (0.05157253, -0.19247127),
            (0.07863578, -0.021070406),
            (0.005208336, 0.005208336),
            (-0.031760823, 0.118532985),
            (-0.0046975017, 0.0012587011),
            (0.015625004, 0.015625004),
            (-0.100116834, 0.37364107),
            (0.053241864, -0.014266107),
            (-0.13020834, -0.13020834),
            (0.032709096, -0.122072026),
            (0.69124925, -0.18521968),
            (-0.015624996, -0.015624996),
            (-0.15860367, 0.5919169),
            (0.51797867, -0.13879196),
            (0.067708336, 0.067708336),
            (-0.14933568, 0.55732834),
            (-0.6996227, 0.18746334),
            (-0.0052083395, -0.0052083395),
            (-0.168947, 0.63051873),
            (-0.23209469, 0.06218959),
        ],
    );
}

fn assert_c64(got: T, shape: &[i64], want: &[(f32, f32)]) {
    let T::C64(s, d) = got else {
        panic!("expected complex64, got {got:?}");
    };
    assert_eq!(s, shape);
    assert_eq!(d.len(), want.len());
    let near = |g: f32, w: f32| (g - w).abs() <= 1e-5 * w.abs().max(1.0);
    for (g, &(re, im)) in d.iter().zip(want) {
        assert!(near(g.0, re) && near(g.1, im), "{d:?} != {want:?}");
    }
}

#[test]
#[should_panic(expected = "last_dim_size 6 needs 4 frequencies in dimension 1, which has 3")]
fn fft_c2r_refuses_a_half_spectrum_of_another_length() {
    run(
        "_fft_c2r.default",
        vec![
            ("self", c64s(&[1, 3], &[(1.0, 0.0), (0.5, 0.5), (0.0, 1.0)])),
            ("dim", ints(&[1])),
            ("normalization", int(2)),
            ("last_dim_size", int(6)),
        ],
    );
}

#[test]
#[should_panic(expected = "normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n), got 3")]
fn fft_refuses_an_unknown_normalization() {
    run(
        "_fft_c2c.default",
        vec![
            ("self", c64s(&[2], &[(1.0, 0.0), (0.5, 0.5)])),
            ("dim", ints(&[0])),
            ("normalization", int(3)),
            ("forward", boolean(true)),
        ],
    );
}

/// The signal of the `torch.fft` function tests: a real [2, 5] and a complex [2, 4].
const FFT_X: [f32; 10] = [0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.0, -2.0, 1.0];
const FFT_Z: [(f32, f32); 8] = [
    (4.0, 0.0),
    (1.0, -2.0),
    (0.5, 1.0),
    (-1.0, 0.25),
    (-1.0, 0.5),
    (2.0, 0.5),
    (3.0, -1.0),
    (0.0, 1.5),
];

/// `fft_rfft` and `fft_irfft` (training-dialect programs keep them): `n` pads or trims the
/// signal, `norm` says which direction divides by n.
#[test]
fn fft_rfft_and_irfft_pad_or_trim_to_n_with_each_norm() {
    tpuc_expect::skip_without!(CpuPlugin);
    use std::f32::consts::FRAC_1_SQRT_2;
    let x = || f32s(&[2, 5], &FFT_X);
    let z = || c64s(&[2, 4], &FFT_Z);

    // torch.fft.rfft(x, n=8): zero-padded, unnormalized.
    let got = run("fft_rfft.default", vec![("self", x()), ("n", int(8))]);
    assert_c64(
        got,
        &[2, 5],
        &[
            (3.25, 0.0),
            (-1.8838835, -1.4696699),
            (0.0, 1.25),
            (-0.116116524, 2.5303302),
            (4.75, 0.0),
            (1.25, 0.0),
            (1.7855339, -FRAC_1_SQRT_2),
            (0.25, -5.0),
            (-5.285534, -FRAC_1_SQRT_2),
            (-0.75, 0.0),
        ],
    );

    // torch.fft.rfft(x, n=3, norm="ortho"): trimmed.
    let got = run(
        "fft_rfft.default",
        vec![("self", x()), ("n", int(3)), ("norm", string("ortho"))],
    );
    assert_c64(
        got,
        &[2, 2],
        &[
            (0.8660254, 0.0),
            (0.0, 1.4999999),
            (1.299038, 0.0),
            (-1.299038, -1.4999999),
        ],
    );

    // torch.fft.irfft(z, n=5, norm="forward"): 3 of the 4 frequencies, unnormalized.
    let got = run(
        "fft_irfft.default",
        vec![("self", z()), ("n", int(5)), ("norm", string("forward"))],
    );
    assert_f32(
        got,
        &[2, 5],
        &[
            7.0, 6.4376726, 6.9442368, -1.5622709, 1.1803615, 9.0, -4.3935204, -4.871864,
            0.10793257, -4.8425484,
        ],
    );

    // torch.fft.irfft(z): n = 2 * (4 - 1) values, divided by n.
    let got = run("fft_irfft.default", vec![("self", z()), ("norm", none())]);
    assert_f32(
        got,
        &[2, 6],
        &[
            1.0,
            1.2053418,
            1.1160254,
            0.6666667,
            -0.61602545,
            0.62799156,
            1.5,
            -0.18899576,
            -1.4330127,
            0.16666667,
            -0.5669873,
            -0.4776709,
        ],
    );

    // torch.fft.irfft(z, n=2, dim=0, norm="ortho"): a leading dimension.
    let got = run(
        "fft_irfft.default",
        vec![
            ("self", z()),
            ("n", int(2)),
            ("dim", int(0)),
            ("norm", string("ortho")),
        ],
    );
    assert_f32(
        got,
        &[2, 4],
        &[
            2.1213202,
            2.1213202,
            2.4748738,
            -0.70710677,
            3.535534,
            -0.70710677,
            -1.767767,
            -0.70710677,
        ],
    );
}

/// `fft_fft2`, `fft_ifftn`, `fft_ifft`: `s` resizes each transformed dimension (`dim` defaults
/// to the last `len(s)`), real and integer inputs become complex.
#[test]
fn fft_complex_functions_resize_each_dimension_and_promote_real_inputs() {
    tpuc_expect::skip_without!(CpuPlugin);

    // torch.fft.fft2(x, s=[3, 4], norm="ortho"): dimension 0 padded, 1 trimmed.
    let got = run(
        "fft_fft2.default",
        vec![
            ("self", f32s(&[2, 5], &FFT_X)),
            ("s", ints(&[3, 4])),
            ("norm", string("ortho")),
        ],
    );
    assert_c64(
        got,
        &[3, 4],
        &[
            (0.57735026, 0.0),
            (-0.649519, -1.0825317),
            (0.4330127, 0.0),
            (-0.649519, 1.0825317),
            (0.46909708, -0.062499996),
            (-1.5747595, 1.2700317),
            (1.1907849, 0.43749997),
            (0.9252404, -0.89503175),
            (0.46909708, 0.062499996),
            (0.9252404, 0.89503175),
            (1.1907849, -0.43749997),
            (-1.5747595, -1.2700317),
        ],
    );

    // torch.fft.ifftn(z, s=[6], norm="forward"): the last dimension, padded, unnormalized.
    let got = run(
        "fft_ifftn.default",
        vec![
            ("self", c64s(&[2, 4], &FFT_Z)),
            ("s", ints(&[6])),
            ("norm", string("forward")),
        ],
    );
    assert_c64(
        got,
        &[2, 6],
        &[
            (4.5, -0.75),
            (6.1160254, -0.45096192),
            (4.8480763, 1.1830127),
            (4.5, 2.75),
            (-0.34807634, 0.3169873),
            (4.3839746, -3.0490382),
            (4.0, 1.5),
            (-1.0669873, 4.080127),
            (-4.799038, 1.3839748),
            (0.0, -2.5),
            (-2.2009618, 3.1160254),
            (-1.9330127, -4.580127),
        ],
    );

    // torch.fft.ifft(torch.tensor([3, -1, 4, 2])): an integer signal.
    let got = run(
        "fft_ifft.default",
        vec![("self", i64s(&[4], &[3, -1, 4, 2]))],
    );
    assert_c64(
        got,
        &[4],
        &[(2.0, 0.0), (-0.25, -0.75), (1.5, 0.0), (-0.25, 0.75)],
    );
}

/// `fft_rfftn`, `fft_irfft2`, `fft_irfftn`: the last of `dim` is the halved one; `-1` in `s`
/// keeps a size, and for the last dimension of a complex-to-real transform means 2 * (m - 1).
#[test]
fn fft_real_n_dimensional_functions_halve_the_last_of_dim() {
    tpuc_expect::skip_without!(CpuPlugin);
    let z = || c64s(&[2, 4], &FFT_Z);

    // torch.fft.rfftn(x, s=[4, 4], dim=[1, 0]): dimension 1 trimmed, 0 padded and halved.
    let got = run(
        "fft_rfftn.default",
        vec![
            ("self", f32s(&[2, 5], &FFT_X)),
            ("s", ints(&[4, 4])),
            ("dim", ints(&[1, 0])),
        ],
    );
    assert_c64(
        got,
        &[3, 4],
        &[
            (2.0, 0.0),
            (-2.25, -3.75),
            (1.5, 0.0),
            (-2.25, 3.75),
            (1.75, -0.25),
            (-6.5, 2.0),
            (3.25, 1.75),
            (3.5, -0.5),
            (1.5, 0.0),
            (-0.75, 6.25),
            (5.0, 0.0),
            (-0.75, -6.25),
        ],
    );

    // torch.fft.irfft2(z, s=[3, 5], norm="ortho"): 3 rows, 5 values from 3 frequencies.
    let got = run(
        "fft_irfft2.default",
        vec![
            ("self", z()),
            ("s", ints(&[3, 5])),
            ("norm", string("ortho")),
        ],
    );
    assert_f32(
        got,
        &[3, 5],
        &[
            4.131182,
            0.5277979,
            0.5350844,
            -0.37550855,
            -0.9455725,
            0.7573007,
            0.047448438,
            3.3794892,
            -0.96026057,
            2.0264804,
            0.5336938,
            4.4113536,
            1.4644094,
            0.12563947,
            -0.1666041,
        ],
    );

    // torch.fft.irfftn(z, s=[2, -1]): 2 * (4 - 1) values in the last dimension.
    let got = run(
        "fft_irfftn.default",
        vec![("self", z()), ("s", ints(&[2, -1]))],
    );
    assert_f32(
        got,
        &[2, 6],
        &[
            1.25,
            0.508173,
            -0.15849367,
            0.4166667,
            -0.59150636,
            0.075160325,
            -0.25,
            0.69716877,
            1.2745191,
            0.25,
            -0.024519047,
            0.5528313,
        ],
    );
}

/// The Hermitian functions are the real ones of the conjugate, normalized the other way.
#[test]
fn fft_hermitian_functions_conjugate() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[2, 5], &FFT_X);
    let z = || c64s(&[2, 4], &FFT_Z);

    // torch.fft.hfft(z, n=5)
    let got = run("fft_hfft.default", vec![("self", z()), ("n", int(5))]);
    assert_f32(
        got,
        &[2, 5],
        &[
            7.0, 1.1803615, -1.5622709, 6.9442368, 6.4376726, 9.0, -4.8425484, 0.10793257,
            -4.871864, -4.3935204,
        ],
    );

    // torch.fft.ihfft(x, norm="ortho")
    let got = run(
        "fft_ihfft.default",
        vec![("self", x()), ("norm", string("ortho"))],
    );
    assert_c64(
        got,
        &[2, 3],
        &[
            (1.4534441, 0.0),
            (-0.5213526, -0.60329884),
            (0.35364744, -1.4014833),
            (0.559017, 0.0),
            (0.94098306, 1.3763819),
            (-2.059017, -0.32491973),
        ],
    );

    // torch.fft.hfft2(z, norm="forward")
    let got = run(
        "fft_hfft2.default",
        vec![("self", z()), ("norm", string("forward"))],
    );
    assert_f32(
        got,
        &[2, 6],
        &[
            1.25,
            0.075160325,
            -0.59150636,
            0.4166667,
            -0.15849367,
            0.508173,
            -0.25,
            0.5528313,
            -0.024519047,
            0.25,
            1.2745191,
            0.69716877,
        ],
    );

    // torch.fft.ihfftn(x, s=[3, 4])
    let got = run(
        "fft_ihfftn.default",
        vec![("self", x()), ("s", ints(&[3, 4]))],
    );
    assert_c64(
        got,
        &[3, 3],
        &[
            (0.16666667, 0.0),
            (-0.1875, 0.3125),
            (0.125, 0.0),
            (0.13541667, 0.018042196),
            (-0.4545939, -0.3666266),
            (0.34375, -0.12629537),
            (0.13541667, -0.018042196),
            (0.2670939, -0.25837344),
            (0.34375, 0.12629537),
        ],
    );
}

#[test]
#[should_panic(expected = "fft_rfft expects a real input tensor, got complex<f32>")]
fn fft_rfft_refuses_a_complex_input() {
    run("fft_rfft.default", vec![("self", c64s(&[2], &FFT_Z[..2]))]);
}

#[test]
#[should_panic(expected = "invalid normalization mode \"half\"")]
fn fft_functions_refuse_an_unknown_norm() {
    run(
        "fft_fft.default",
        vec![("self", f32s(&[2], &[1.0, 2.0])), ("norm", string("half"))],
    );
}

/// `fft_fftshift` rolls every dimension (or those of `dim`) by half its size, rounded down;
/// `fft_ifftshift` by the other half.
#[test]
fn fft_shifts_roll_by_half_of_each_dimension() {
    tpuc_expect::skip_without!(CpuPlugin);
    let x = || f32s(&[2, 5], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let got = run("fft_fftshift.default", vec![("self", x())]);
    assert_f32(
        got,
        &[2, 5],
        &[8.0, 9.0, 5.0, 6.0, 7.0, 3.0, 4.0, 0.0, 1.0, 2.0],
    );
    let got = run(
        "fft_ifftshift.default",
        vec![("self", x()), ("dim", ints(&[1]))],
    );
    assert_f32(
        got,
        &[2, 5],
        &[2.0, 3.0, 4.0, 0.0, 1.0, 7.0, 8.0, 9.0, 5.0, 6.0],
    );
}
