//! The plumbing every conformance case goes through: host arrays, expectations, the plugins
//! (loaded once per process) and the pipeline build → verify → print → parse → print →
//! legalize for XLA (`tpuc_ir::legalize`) → compile and run on XLA:CPU → compare → compile
//! for `v5e:2x2`.

use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Instant;

use tpuc_ir::parse::parse_module;
use tpuc_ir::{
    DenseElements, ElementType, ElementValue, FunctionBuilder, Location, LocationStyle, Module,
    PrintOptions, Result, TensorType, Value, Visibility, print, verify,
};
use tpuc_pjrt::{
    Client, CompileOptions, ElementType as PjrtType, Plugin, PluginKind, Program, Topology, locate,
};

pub const TPU_TOPOLOGY: &str = "v5e:2x2";

fn plugin(kind: PluginKind) -> &'static Plugin {
    match locate(kind, None).and_then(Plugin::load) {
        Ok(plugin) => plugin,
        Err(error) => panic!("{error} (install the plugins with scripts/setup-plugins.sh)"),
    }
}

/// The XLA:CPU client, with two devices for the collective cases.
fn cpu() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        plugin(PluginKind::Cpu)
            .cpu_client(2)
            .expect("XLA:CPU client")
    })
}

fn tpu() -> &'static Topology {
    static TOPOLOGY: OnceLock<Topology> = OnceLock::new();
    TOPOLOGY.get_or_init(|| {
        plugin(PluginKind::Tpu)
            .topology(TPU_TOPOLOGY)
            .expect("libtpu topology")
    })
}

// Host arrays.

/// A dense row-major array on the host: little-endian bytes of a statically shaped tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    pub ty: TensorType,
    pub bytes: Vec<u8>,
}

impl Host {
    /// `values` converted to `ty`'s element type as dense constants convert them (floats round
    /// to nearest even, integers truncate, complex numbers get a zero imaginary part).
    pub fn from_f64s(ty: TensorType, values: &[f64]) -> Host {
        let data = DenseElements::from_f64s(&ty, values).expect("values fit the type");
        Host::from_dense(ty, &data)
    }

    /// Integers wrapped to `ty`'s element width.
    pub fn from_i64s(ty: TensorType, values: &[i64]) -> Host {
        let data = DenseElements::from_i64s(&ty, values).expect("values fit the type");
        Host::from_dense(ty, &data)
    }

    fn from_dense(ty: TensorType, data: &DenseElements) -> Host {
        let count = ty.num_elements().expect("static shape") as usize;
        let bytes = if data.is_splat() {
            data.bytes().repeat(count)
        } else {
            data.bytes().to_vec()
        };
        Host { ty, bytes }
    }

    /// Every element, decoded.
    pub fn scalars(&self) -> Vec<Scalar> {
        let element = self.ty.element;
        let width = element.storage_bytes();
        self.bytes
            .chunks(width)
            .map(|chunk| Scalar::decode(element, chunk))
            .collect()
    }

    fn pjrt_type(&self) -> PjrtType {
        pjrt_type(self.ty.element).expect("inputs of types PJRT has")
    }

    fn dims(&self) -> Vec<i64> {
        self.ty
            .static_shape()
            .expect("static shape")
            .into_iter()
            .map(|d| d as i64)
            .collect()
    }
}

/// `values` as any element type (see [`Host::from_f64s`]).
pub fn host_of(shape: &[u64], element: ElementType, values: &[f64]) -> Host {
    Host::from_f64s(TensorType::of(shape, element), values)
}

pub fn host_int(shape: &[u64], element: ElementType, values: &[i64]) -> Host {
    Host::from_i64s(TensorType::of(shape, element), values)
}

pub fn f32s(shape: &[u64], values: &[f32]) -> Host {
    let values: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
    host_of(shape, ElementType::F32, &values)
}

pub fn f64s(shape: &[u64], values: &[f64]) -> Host {
    host_of(shape, ElementType::F64, values)
}

/// bf16 values rounded to nearest even from f64.
pub fn bf16s(shape: &[u64], values: &[f64]) -> Host {
    host_of(shape, ElementType::BF16, values)
}

pub fn f16s(shape: &[u64], values: &[f64]) -> Host {
    host_of(shape, ElementType::F16, values)
}

pub fn i8s(shape: &[u64], values: &[i64]) -> Host {
    host_int(shape, ElementType::I8, values)
}

pub fn i16s(shape: &[u64], values: &[i64]) -> Host {
    host_int(shape, ElementType::I16, values)
}

pub fn i32s(shape: &[u64], values: &[i64]) -> Host {
    host_int(shape, ElementType::I32, values)
}

pub fn i64s(shape: &[u64], values: &[i64]) -> Host {
    host_int(shape, ElementType::I64, values)
}

pub fn u8s(shape: &[u64], values: &[i64]) -> Host {
    host_int(shape, ElementType::UI8, values)
}

pub fn u32s(shape: &[u64], values: &[i64]) -> Host {
    host_int(shape, ElementType::UI32, values)
}

pub fn u64s(shape: &[u64], values: &[u64]) -> Host {
    let values: Vec<i64> = values.iter().map(|&v| v as i64).collect();
    host_int(shape, ElementType::UI64, &values)
}

pub fn bools(shape: &[u64], values: &[bool]) -> Host {
    let values: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
    host_int(shape, ElementType::I1, &values)
}

/// complex<f32> values from (re, im) pairs.
pub fn c64s(shape: &[u64], values: &[(f32, f32)]) -> Host {
    let bytes = values
        .iter()
        .flat_map(|(re, im)| [re.to_le_bytes(), im.to_le_bytes()].concat())
        .collect();
    Host {
        ty: TensorType::of(shape, ElementType::ComplexF32),
        bytes,
    }
}

/// `f` applied to every element of an f32 array, computed in f64 and rounded to f32.
pub fn map_f32(input: &Host, f: impl Fn(f64) -> f64) -> Host {
    let values: Vec<f64> = input.scalars().iter().map(|s| f(s.as_f64())).collect();
    Host::from_f64s(input.ty.clone(), &values)
}

/// One decoded element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
    /// A float type without a host decoder here: its raw bits.
    Bits(u64),
}

impl Scalar {
    fn decode(element: ElementType, bytes: &[u8]) -> Scalar {
        let raw = bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        match element {
            ElementType::F32 => Scalar::Float(f64::from(f32::from_bits(raw as u32))),
            ElementType::F64 => Scalar::Float(f64::from_bits(raw)),
            ElementType::BF16 => Scalar::Float(f64::from(f32::from_bits((raw as u32) << 16))),
            ElementType::F16 => Scalar::Float(f16_to_f64(raw as u16)),
            ElementType::ComplexF32 => Scalar::Complex(
                f64::from(f32::from_bits(raw as u32)),
                f64::from(f32::from_bits((raw >> 32) as u32)),
            ),
            ElementType::ComplexF64 => {
                let im = bytes[8..]
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
                let re = bytes[..8]
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
                Scalar::Complex(f64::from_bits(re), f64::from_bits(im))
            }
            _ if element.is_float() => Scalar::Bits(raw),
            _ => {
                let ty = TensorType::scalar(element);
                let data = DenseElements::from_bytes(&ty, bytes.to_vec()).expect("one element");
                match data.value(element, 0) {
                    ElementValue::Bool(b) => Scalar::Bool(b),
                    ElementValue::Signed(v) => Scalar::Int(i128::from(v)),
                    ElementValue::Unsigned(v) => Scalar::Int(i128::from(v)),
                    other => panic!("{element} decoded as {other:?}"),
                }
            }
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(v) => v as f64,
            Scalar::Float(v) | Scalar::Complex(v, _) => v,
            Scalar::Bits(v) => v as f64,
        }
    }
}

fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1F);
    let mantissa = f64::from(bits & 0x3FF);
    sign * match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + mantissa / 1024.0) * 2f64.powi(exponent - 15),
    }
}

// Expectations.

/// How close a float result must be to the reference: `|got - want| <= abs + rel * |want|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tol {
    pub abs: f64,
    pub rel: f64,
}

/// Bit-exact (NaNs equal to any NaN, signed zeros distinguished).
pub const EXACT: Tol = Tol { abs: 0.0, rel: 0.0 };

pub const fn tol(abs: f64, rel: f64) -> Tol {
    Tol { abs, rel }
}

/// What one output must be.
#[derive(Clone, Debug)]
pub enum Expect {
    /// Same type, shape and values (floats within the tolerance; integers exactly).
    Values(Host, Tol),
    /// Only the type and shape are checked; the case's `check` looks at the values.
    Shape(TensorType),
}

pub fn exact(host: Host) -> Expect {
    Expect::Values(host, EXACT)
}

pub fn close(host: Host, tolerance: Tol) -> Expect {
    Expect::Values(host, tolerance)
}

impl Expect {
    fn check(&self, got: &Host) -> std::result::Result<(), String> {
        let want_ty = match self {
            Expect::Values(want, _) => &want.ty,
            Expect::Shape(ty) => ty,
        };
        if &got.ty != want_ty {
            return Err(format!("got a {}, expected a {want_ty}", got.ty));
        }
        let Expect::Values(want, tolerance) = self else {
            return Ok(());
        };
        let (got_values, want_values) = (got.scalars(), want.scalars());
        let bad: Vec<usize> = (0..want_values.len())
            .filter(|&i| !scalar_matches(got_values[i], want_values[i], *tolerance))
            .collect();
        if bad.is_empty() {
            return Ok(());
        }
        Err(format!(
            "{} of {} elements differ (first at {}, tolerance {tolerance:?})\n     got: {}\n    want: {}",
            bad.len(),
            want_values.len(),
            bad[0],
            show(&got_values),
            show(&want_values)
        ))
    }
}

fn show(values: &[Scalar]) -> String {
    let mut out = String::from("[");
    for (i, value) in values.iter().enumerate().take(64) {
        if i > 0 {
            out.push_str(", ");
        }
        match value {
            Scalar::Bool(b) => write!(out, "{b}"),
            Scalar::Int(v) => write!(out, "{v}"),
            Scalar::Float(v) => write!(out, "{v:e}"),
            Scalar::Complex(re, im) => write!(out, "({re:e}, {im:e})"),
            Scalar::Bits(v) => write!(out, "{v:#x}"),
        }
        .expect("write to a string");
    }
    if values.len() > 64 {
        out.push_str(", ...");
    }
    out.push(']');
    out
}

fn float_matches(got: f64, want: f64, tolerance: Tol) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if tolerance == EXACT || want.is_infinite() {
        return got == want && got.is_sign_negative() == want.is_sign_negative();
    }
    (got - want).abs() <= tolerance.abs + tolerance.rel * want.abs()
}

fn scalar_matches(got: Scalar, want: Scalar, tolerance: Tol) -> bool {
    match (got, want) {
        (Scalar::Float(g), Scalar::Float(w)) => float_matches(g, w, tolerance),
        (Scalar::Complex(gr, gi), Scalar::Complex(wr, wi)) => {
            float_matches(gr, wr, tolerance) && float_matches(gi, wi, tolerance)
        }
        (got, want) => got == want,
    }
}

// Cases.

/// What XLA:CPU does with a case.
#[derive(Clone, Debug, PartialEq)]
pub enum Cpu {
    /// Compiles and runs; the outputs match the expectations.
    Runs,
    /// Compilation fails with an error containing this text.
    Rejects(&'static str),
    /// Compiles (and loads back from its serialized bytes) but is not run: it would wait for
    /// a host that is not there (`outfeed`).
    CompilesOnly,
}

/// What libtpu does with a case when compiling for [`TPU_TOPOLOGY`].
#[derive(Clone, Debug, PartialEq)]
pub enum Tpu {
    Compiles,
    /// Compilation fails with an error containing this text.
    Rejects(&'static str),
    /// libtpu aborts the whole process on it (a crash, not an error), so the suite does not
    /// hand it over.
    Aborts,
}

/// A check over all outputs of all devices (`outputs[device][output]`), for results that are
/// not fixed values (random bits) or relate outputs to each other.
pub type Check = fn(&[Vec<Host>]) -> std::result::Result<(), String>;

/// One module, its inputs per device and what each output must be.
pub struct Case {
    pub name: String,
    pub module: std::result::Result<Module, String>,
    /// `inputs[device][argument]`
    pub inputs: Vec<Vec<Host>>,
    /// `expected[device][output]`
    pub expected: Vec<Vec<Expect>>,
    pub check: Option<Check>,
    pub cpu: Cpu,
    pub tpu: Tpu,
    pub replicas: u32,
    pub partitions: u32,
}

/// A module whose public `@main` takes arguments of `args`' types; `body` returns its results.
/// Every op and argument is located at `location` (a name), so that printing and parsing
/// locations is exercised too.
pub fn main_module(
    location: &str,
    args: &[TensorType],
    body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Result<Vec<Value>>,
) -> Result<Module> {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    b.set_location(Location::name(location));
    let values: Vec<Value> = args.iter().map(|ty| b.arg(ty.clone())).collect();
    let results = body(&mut b, &values)?;
    b.ret(&results)?;
    let mut module = Module::new();
    module.add_function(b.finish()?)?;
    Ok(module)
}

/// A one-device case: `@main` takes `inputs` and its results must meet `expected`.
pub fn case(
    name: impl Into<String>,
    inputs: Vec<Host>,
    expected: Vec<Expect>,
    body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Result<Vec<Value>>,
) -> Case {
    let name = name.into();
    let types: Vec<TensorType> = inputs.iter().map(|h| h.ty.clone()).collect();
    let module = main_module(&name, &types, body);
    Case::from_module(name, module, inputs, expected)
}

impl Case {
    /// A one-device case around a module built by hand (several functions, ...).
    pub fn from_module(
        name: impl Into<String>,
        module: Result<Module>,
        inputs: Vec<Host>,
        expected: Vec<Expect>,
    ) -> Case {
        Case {
            name: name.into(),
            module: module.map_err(|e| format!("{e:?}")),
            inputs: vec![inputs],
            expected: vec![expected],
            check: None,
            cpu: Cpu::Runs,
            tpu: Tpu::Compiles,
            replicas: 1,
            partitions: 1,
        }
    }

    /// Runs on `inputs.len()` devices as replicas: `inputs[d]` are device `d`'s arguments.
    pub fn replicated(
        name: impl Into<String>,
        inputs: Vec<Vec<Host>>,
        expected: Vec<Vec<Expect>>,
        body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Result<Vec<Value>>,
    ) -> Case {
        let name = name.into();
        let types: Vec<TensorType> = inputs[0].iter().map(|h| h.ty.clone()).collect();
        let devices = inputs.len() as u32;
        let module = main_module(&name, &types, body);
        let mut case = Case::from_module(name, module, Vec::new(), Vec::new());
        case.inputs = inputs;
        case.expected = expected;
        case.replicas = devices;
        case
    }

    /// Runs `module` as `inputs.len()` SPMD partitions (partitioned by Shardy): `inputs[d]` are
    /// device `d`'s shards of the arguments.
    pub fn partitioned(
        name: impl Into<String>,
        module: Result<Module>,
        inputs: Vec<Vec<Host>>,
        expected: Vec<Vec<Expect>>,
    ) -> Case {
        let devices = inputs.len() as u32;
        let mut case = Case::from_module(name, module, Vec::new(), Vec::new());
        case.inputs = inputs;
        case.expected = expected;
        case.partitions = devices;
        case
    }

    pub fn check(mut self, check: Check) -> Case {
        self.check = Some(check);
        self
    }

    pub fn cpu_rejects(mut self, message: &'static str) -> Case {
        self.cpu = Cpu::Rejects(message);
        self
    }

    pub fn cpu_compiles_only(mut self) -> Case {
        self.cpu = Cpu::CompilesOnly;
        self
    }

    pub fn tpu(mut self, tpu: Tpu) -> Case {
        self.tpu = tpu;
        self
    }

    /// One line for the suite's table: the case and what each plugin does with it.
    fn summary(&self) -> String {
        let cpu = match self.cpu {
            Cpu::Runs => "runs".to_string(),
            Cpu::Rejects(message) => format!("rejects ({message})"),
            Cpu::CompilesOnly => "compiles (not run)".to_string(),
        };
        let tpu = match self.tpu {
            Tpu::Compiles => "compiles".to_string(),
            Tpu::Rejects(message) => format!("rejects ({message})"),
            Tpu::Aborts => "aborts the process (not compiled)".to_string(),
        };
        format!(
            "{} | devices {} | XLA:CPU {cpu} | {TPU_TOPOLOGY} {tpu}",
            self.name,
            self.devices()
        )
    }

    fn devices(&self) -> u32 {
        self.replicas * self.partitions
    }

    fn compile_options(&self) -> CompileOptions {
        let devices: Vec<i64> = (0..i64::from(self.devices())).collect();
        if self.partitions > 1 {
            CompileOptions::new()
                .partition_devices(&devices)
                .shardy(true)
        } else if self.replicas > 1 {
            CompileOptions::new()
                .replicas(i64::from(self.replicas))
                .device_assignment(vec![devices])
        } else {
            CompileOptions::new()
        }
    }
}

// The pipeline.

/// What happened to one case, for the suite's summary.
pub struct Outcome {
    pub name: String,
    pub failures: Vec<String>,
}

/// Runs every case through the whole pipeline and panics with every failure at once.
pub fn run_all(family: &str, cases: Vec<Case>) {
    let start = Instant::now();
    let count = cases.len();
    let outcomes: Vec<Outcome> = cases
        .into_iter()
        .map(|case| {
            let summary = case.summary();
            let started = Instant::now();
            let outcome = run(case);
            let status = if outcome.failures.is_empty() {
                "ok"
            } else {
                "FAILED"
            };
            let seconds = started.elapsed().as_secs_f64();
            eprintln!("  {status:6} {seconds:5.2} s  {summary}");
            outcome
        })
        .collect();
    let failures: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.failures.is_empty())
        .map(|o| format!("case `{}`:\n  {}", o.name, o.failures.join("\n  ")))
        .collect();
    eprintln!(
        "{family}: {count} cases, {} failed, {:.1} s",
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

fn run(mut case: Case) -> Outcome {
    let mut failures = Vec::new();
    let module = match std::mem::replace(&mut case.module, Err(String::new())) {
        Ok(module) => module,
        Err(error) => {
            failures.push(format!("build: {error}"));
            return Outcome {
                name: case.name,
                failures,
            };
        }
    };
    if let Err(error) = pipeline(&case, module, &mut failures) {
        failures.push(error);
    }
    Outcome {
        name: case.name,
        failures,
    }
}

fn pipeline(
    case: &Case,
    mut module: Module,
    failures: &mut Vec<String>,
) -> std::result::Result<(), String> {
    module.num_replicas = Some(case.replicas);
    module.num_partitions = Some(case.partitions);
    verify(&module).map_err(|e| format!("verify: {e:?}"))?;
    for style in [
        LocationStyle::Strip,
        LocationStyle::Inline,
        LocationStyle::Aliases,
    ] {
        round_trip(&module, style, failures);
    }
    // What tpuc hands to plugins: the spec's answer where XLA departs from it.
    tpuc_ir::legalize::for_xla(&mut module).map_err(|e| format!("legalize: {e:?}"))?;
    // The canonical text tpuc hands to PJRT, and the text people read (with its locations).
    let generic = print::generic(&module, &PrintOptions::default());
    let pretty = print::pretty(
        &module,
        &PrintOptions::with_locations(LocationStyle::Aliases),
    );
    let mut runs = Vec::new();
    for (form, text) in [("generic", &generic), ("pretty", &pretty)] {
        match on_cpu(case, text) {
            Ok(Some(outputs)) => runs.push((form, outputs)),
            Ok(None) => {}
            Err(error) => failures.push(format!("XLA:CPU ({form}): {error}\n{text}")),
        }
    }
    // Random values (a case with a check of its own) differ from run to run.
    if let [(_, a), (_, b)] = runs.as_slice()
        && case.check.is_none()
        && a != b
    {
        failures.push("the generic and pretty texts computed different bytes".to_string());
    }
    for (form, text) in [("generic", &generic), ("pretty", &pretty)] {
        if let Err(error) = on_tpu(case, text) {
            failures.push(format!("libtpu {TPU_TOPOLOGY} ({form}): {error}"));
        }
    }
    Ok(())
}

/// Prints `module` in both forms with locations in `style`, parses each text and prints the
/// result again in both forms: all four must equal the first printing.
fn round_trip(module: &Module, style: LocationStyle, failures: &mut Vec<String>) {
    let options = PrintOptions::with_locations(style);
    let generic = print::generic(module, &options);
    let pretty = print::pretty(module, &options);
    for (form, text) in [("generic", &generic), ("pretty", &pretty)] {
        let parsed = match parse_module(text) {
            Ok(parsed) => parsed,
            Err(error) => {
                failures.push(format!(
                    "parse ({form}, locations {style:?}): {}:{}: {}\n{text}",
                    error.line, error.column, error.message
                ));
                continue;
            }
        };
        if let Err(error) = verify(&parsed) {
            failures.push(format!(
                "verify after parsing the {form} text (locations {style:?}): {error:?}"
            ));
        }
        for (again_form, again, original) in [
            ("generic", print::generic(&parsed, &options), &generic),
            ("pretty", print::pretty(&parsed, &options), &pretty),
        ] {
            if &again != original {
                failures.push(format!(
                    "the {form} text (locations {style:?}) parsed and printed {again_form} differs: {}",
                    first_difference(original, &again)
                ));
            }
        }
    }
}

fn first_difference(want: &str, got: &str) -> String {
    let line = want
        .lines()
        .zip(got.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| want.lines().count().min(got.lines().count()));
    format!(
        "line {}\n    printed: {}\n    again:   {}",
        line + 1,
        want.lines().nth(line).unwrap_or("<end>"),
        got.lines().nth(line).unwrap_or("<end>")
    )
}

/// Compiles and runs `text`; `None` when the case expects XLA to reject it (and it did).
fn on_cpu(case: &Case, text: &str) -> std::result::Result<Option<Vec<Vec<Host>>>, String> {
    let client = cpu();
    let compiled = client.compile(&Program::mlir(text), &case.compile_options());
    let executable = match (&case.cpu, compiled) {
        (Cpu::Runs | Cpu::CompilesOnly, Ok(executable)) => executable,
        (Cpu::Runs | Cpu::CompilesOnly, Err(error)) => return Err(format!("compile: {error}")),
        (Cpu::Rejects(message), Err(error)) => {
            let error = error.to_string();
            return if error.contains(message) {
                Ok(None)
            } else {
                Err(format!("rejected with `{error}`, expected `{message}`"))
            };
        }
        (Cpu::Rejects(message), Ok(_)) => {
            return Err(format!(
                "compiled, but the suite records that XLA:CPU rejects it with `{message}`"
            ));
        }
    };
    // As the compile cache stores it (serialized right after compiling) and hands it out
    // (loaded again), it computes the same bytes.
    let reloaded = executable
        .serialize()
        .and_then(|bytes| client.deserialize(&bytes))
        .map_err(|e| format!("serialize and load again: {e}"))?;
    if case.cpu == Cpu::CompilesOnly {
        return Ok(None);
    }
    let outputs = execute(case, &executable)?;
    let again = execute(case, &reloaded)?;
    // A case with a check of its own (random values) meets it on both runs; the others
    // compute the same bytes.
    match case.check {
        Some(check) => check(&again).map_err(|e| format!("the executable loaded again: {e}"))?,
        None if again != outputs => {
            return Err("the executable loaded again computes other bytes".to_string());
        }
        None => {}
    }
    let mut problems = Vec::new();
    for (device, (got, want)) in outputs.iter().zip(&case.expected).enumerate() {
        if got.len() != want.len() {
            problems.push(format!(
                "device {device}: {} outputs, expected {}",
                got.len(),
                want.len()
            ));
            continue;
        }
        for (i, (got, want)) in got.iter().zip(want).enumerate() {
            if let Err(error) = want.check(got) {
                problems.push(format!("device {device} output {i}: {error}"));
            }
        }
    }
    if let Some(check) = case.check
        && let Err(error) = check(&outputs)
    {
        problems.push(error);
    }
    if problems.is_empty() {
        Ok(Some(outputs))
    } else {
        Err(problems.join("\n  "))
    }
}

fn to_host(buffer: &tpuc_pjrt::Buffer) -> std::result::Result<Host, String> {
    let kind = buffer.element_type().map_err(|e| e.to_string())?;
    let element = ElementType::ALL
        .into_iter()
        .find(|&e| pjrt_type(e) == Some(kind))
        .ok_or_else(|| format!("output of type {}", kind.mlir_name()))?;
    let dims = buffer.dims().map_err(|e| e.to_string())?;
    let shape: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
    let bytes = buffer.to_host().map_err(|e| e.to_string())?;
    Ok(Host {
        ty: TensorType::of(&shape, element),
        bytes,
    })
}

/// The PJRT buffer type of `element`; `None` for the f6 types, which the PJRT C API lacks.
fn pjrt_type(element: ElementType) -> Option<PjrtType> {
    Some(match element {
        ElementType::I1 => PjrtType::Pred,
        ElementType::I2 => PjrtType::S2,
        ElementType::UI2 => PjrtType::U2,
        ElementType::F4E2M1FN => PjrtType::F4E2M1FN,
        ElementType::F6E2M3FN | ElementType::F6E3M2FN => return None,
        ElementType::F8E3M4 => PjrtType::F8E3M4,
        ElementType::F8E4M3 => PjrtType::F8E4M3,
        ElementType::F8E8M0FNU => PjrtType::F8E8M0FNU,
        ElementType::I4 => PjrtType::S4,
        ElementType::I8 => PjrtType::S8,
        ElementType::I16 => PjrtType::S16,
        ElementType::I32 => PjrtType::S32,
        ElementType::I64 => PjrtType::S64,
        ElementType::UI4 => PjrtType::U4,
        ElementType::UI8 => PjrtType::U8,
        ElementType::UI16 => PjrtType::U16,
        ElementType::UI32 => PjrtType::U32,
        ElementType::UI64 => PjrtType::U64,
        ElementType::F8E4M3FN => PjrtType::F8E4M3FN,
        ElementType::F8E5M2 => PjrtType::F8E5M2,
        ElementType::F8E4M3FNUZ => PjrtType::F8E4M3FNUZ,
        ElementType::F8E5M2FNUZ => PjrtType::F8E5M2FNUZ,
        ElementType::F8E4M3B11FNUZ => PjrtType::F8E4M3B11FNUZ,
        ElementType::BF16 => PjrtType::Bf16,
        ElementType::F16 => PjrtType::F16,
        ElementType::F32 => PjrtType::F32,
        ElementType::F64 => PjrtType::F64,
        ElementType::ComplexF32 => PjrtType::C64,
        ElementType::ComplexF64 => PjrtType::C128,
    })
}

/// Runs `executable` on the case's inputs, one list per device.
fn execute(
    case: &Case,
    executable: &tpuc_pjrt::LoadedExecutable,
) -> std::result::Result<Vec<Vec<Host>>, String> {
    let client = cpu();
    let buffers = case
        .inputs
        .iter()
        .enumerate()
        .map(|(device, inputs)| {
            inputs
                .iter()
                .map(|h| client.buffer_from_host(&h.bytes, h.pjrt_type(), &h.dims(), device))
                .collect::<tpuc_pjrt::Result<Vec<_>>>()
        })
        .collect::<tpuc_pjrt::Result<Vec<_>>>()
        .map_err(|e| format!("transfer: {e}"))?;
    let refs: Vec<Vec<&tpuc_pjrt::Buffer>> = buffers.iter().map(|b| b.iter().collect()).collect();
    let lists: Vec<&[&tpuc_pjrt::Buffer]> = refs.iter().map(Vec::as_slice).collect();
    let outputs = executable
        .execute(&lists)
        .map_err(|e| format!("execute: {e}"))?;
    outputs
        .iter()
        .map(|device| device.iter().map(to_host).collect())
        .collect::<std::result::Result<Vec<Vec<Host>>, String>>()
}

fn on_tpu(case: &Case, text: &str) -> std::result::Result<(), String> {
    if case.tpu == Tpu::Aborts {
        return Ok(());
    }
    let compiled = tpu().compile(&Program::mlir(text), &case.compile_options());
    match (&case.tpu, compiled) {
        (Tpu::Compiles, Ok(_)) => Ok(()),
        (Tpu::Compiles, Err(error)) => Err(format!("{error}\n{text}")),
        (Tpu::Rejects(message), Err(error)) => {
            let error = error.to_string();
            if error.contains(message) {
                Ok(())
            } else {
                Err(format!("rejected with `{error}`, expected `{message}`"))
            }
        }
        (Tpu::Rejects(message), Ok(_)) => Err(format!(
            "compiled, but the suite records that libtpu rejects it with `{message}`"
        )),
        (Tpu::Aborts, _) => unreachable!("not compiled"),
    }
}
