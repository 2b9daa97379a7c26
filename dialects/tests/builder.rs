//! Shape inference through the builder, one table row per op family: the inferred result type
//! or the error the spec's constraints call for.

use tpuc_ir::*;

type Build = fn(&mut FunctionBuilder, &[Value]) -> Result<Value>;

struct Case {
    name: &'static str,
    args: &'static [&'static str],
    build: Build,
    /// `Ok(result type)` or `Err(substring of the error message)`.
    expect: std::result::Result<&'static str, &'static str>,
}

/// Parses the small subset of tensor types the table uses: `4x?xf32`, `f32` (rank 0).
fn ty(text: &str) -> TensorType {
    let (dims, element) = match text.strip_suffix("complex<f32>") {
        Some(dims) => (dims, ElementType::ComplexF32),
        None => {
            let (dims, element) = text.rsplit_once('x').unwrap_or(("", text));
            let element = ElementType::from_mnemonic(element).unwrap_or_else(|| panic!("{text}"));
            (if dims.is_empty() { "" } else { dims }, element)
        }
    };
    let shape = dims
        .split('x')
        .filter(|d| !d.is_empty())
        .map(|d| {
            if d == "?" {
                Dim::Dynamic
            } else {
                Dim::Static(d.parse().unwrap())
            }
        })
        .collect();
    TensorType::new(shape, element)
}

fn p(n: usize) -> PrecisionConfig {
    vec![Precision::Default; n]
}

fn conv_attrs(
    strides: &[i64],
    padding: &[(i64, i64)],
    rhs_dilation: &[i64],
    groups: u64,
) -> ConvAttrs {
    let mut attrs = ConvAttrs::new(ConvDims::nchw(2));
    attrs.window_strides = strides.to_vec();
    attrs.padding = padding.to_vec();
    attrs.rhs_dilation = rhs_dilation.to_vec();
    attrs.feature_group_count = groups;
    attrs
}

fn spec_gather_dims() -> GatherDims {
    GatherDims {
        offset_dims: vec![2, 3],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![1, 0],
        index_vector_dim: 2,
        ..GatherDims::default()
    }
}

fn group() -> CollectiveAttrs {
    CollectiveAttrs {
        replica_groups: vec![vec![0, 1, 2, 3]],
        ..CollectiveAttrs::default()
    }
}

const CASES: &[Case] = &[
    // Elementwise.
    Case {
        name: "add",
        args: &["4xf32", "4xf32"],
        build: |b, a| b.add(a[0], a[1]),
        expect: Ok("tensor<4xf32>"),
    },
    Case {
        name: "add refines dynamic dims",
        args: &["?x4xf32", "2x?xf32"],
        build: |b, a| b.add(a[0], a[1]),
        expect: Ok("tensor<2x4xf32>"),
    },
    Case {
        name: "add of bools",
        args: &["4xi1", "4xi1"],
        build: |b, a| b.add(a[0], a[1]),
        expect: Ok("tensor<4xi1>"),
    },
    Case {
        name: "add mixed elements",
        args: &["4xf32", "4xi32"],
        build: |b, a| b.add(a[0], a[1]),
        expect: Err("element types differ"),
    },
    Case {
        name: "add mixed shapes",
        args: &["4xf32", "5xf32"],
        build: |b, a| b.add(a[0], a[1]),
        expect: Err("shapes [4] and [5] differ"),
    },
    Case {
        name: "shift of floats",
        args: &["4xf32", "4xf32"],
        build: |b, a| b.shift_left(a[0], a[1]),
        expect: Err("does not accept element type f32"),
    },
    Case {
        name: "subtract of bools",
        args: &["4xi1", "4xi1"],
        build: |b, a| b.subtract(a[0], a[1]),
        expect: Err("does not accept element type i1"),
    },
    Case {
        name: "complex",
        args: &["3xf32", "3xf32"],
        build: |b, a| b.complex(a[0], a[1]),
        expect: Ok("tensor<3xcomplex<f32>>"),
    },
    Case {
        name: "abs of complex",
        args: &["3xcomplex<f32>"],
        build: |b, a| b.abs(a[0]),
        expect: Ok("tensor<3xf32>"),
    },
    Case {
        name: "imag of complex",
        args: &["3xcomplex<f32>"],
        build: |b, a| b.imag(a[0]),
        expect: Ok("tensor<3xf32>"),
    },
    Case {
        name: "is_finite",
        args: &["2x2xbf16"],
        build: |b, a| b.is_finite(a[0]),
        expect: Ok("tensor<2x2xi1>"),
    },
    Case {
        name: "popcnt of floats",
        args: &["4xf32"],
        build: |b, a| b.popcnt(a[0]),
        expect: Err("does not accept"),
    },
    Case {
        name: "not of ints",
        args: &["4xui8"],
        build: |b, a| b.not(a[0]),
        expect: Ok("tensor<4xui8>"),
    },
    Case {
        name: "compare",
        args: &["4xi32", "4xi32"],
        build: |b, a| b.compare(ComparisonDirection::Eq, a[0], a[1]),
        expect: Ok("tensor<4xi1>"),
    },
    Case {
        name: "compare SIGNED on floats",
        args: &["4xf32", "4xf32"],
        build: |b, a| {
            b.compare_with_type(
                ComparisonDirection::Lt,
                Some(ComparisonType::Signed),
                a[0],
                a[1],
            )
        },
        expect: Err("compare type SIGNED does not fit element type f32"),
    },
    Case {
        name: "select with scalar pred",
        args: &["i1", "2x3xf32", "2x3xf32"],
        build: |b, a| b.select(a[0], a[1], a[2]),
        expect: Ok("tensor<2x3xf32>"),
    },
    Case {
        name: "select with float pred",
        args: &["2x3xf32", "2x3xf32", "2x3xf32"],
        build: |b, a| b.select(a[0], a[1], a[2]),
        expect: Err("pred must have element type i1"),
    },
    Case {
        name: "clamp with scalar bounds",
        args: &["f32", "5xf32", "f32"],
        build: |b, a| b.clamp(a[0], a[1], a[2]),
        expect: Ok("tensor<5xf32>"),
    },
    Case {
        name: "convert",
        args: &["2x?xi32"],
        build: |b, a| b.convert(a[0], ElementType::BF16),
        expect: Ok("tensor<2x?xbf16>"),
    },
    Case {
        name: "convert complex to real",
        args: &["2xcomplex<f32>"],
        build: |b, a| b.convert(a[0], ElementType::F32),
        expect: Ok("tensor<2xf32>"),
    },
    Case {
        name: "bitcast f32 to 4 x ui8",
        args: &["3xf32"],
        build: |b, a| b.bitcast_convert(a[0], TensorType::of(&[3, 4], ElementType::UI8)),
        expect: Ok("tensor<3x4xui8>"),
    },
    Case {
        name: "bitcast with the wrong ratio",
        args: &["3xf32"],
        build: |b, a| b.bitcast_convert(a[0], TensorType::of(&[3, 2], ElementType::UI8)),
        expect: Err("last dimension must be 4"),
    },
    // Shapes.
    Case {
        name: "broadcast_in_dim",
        args: &["3xf32"],
        build: |b, a| b.broadcast_in_dim(a[0], &[1], [2, 3]),
        expect: Ok("tensor<2x3xf32>"),
    },
    Case {
        name: "broadcast_in_dim of size 1",
        args: &["1x3xf32"],
        build: |b, a| b.broadcast_in_dim(a[0], &[0, 2], [4, 5, 3]),
        expect: Ok("tensor<4x5x3xf32>"),
    },
    Case {
        name: "broadcast_in_dim to a wrong size",
        args: &["3xf32"],
        build: |b, a| b.broadcast_in_dim(a[0], &[1], [2, 4]),
        expect: Err("cannot broadcast"),
    },
    Case {
        name: "broadcast_in_dim repeated dim",
        args: &["3x3xf32"],
        build: |b, a| b.broadcast_in_dim(a[0], &[1, 1], [3, 3]),
        expect: Err("broadcast dimension 1 appears twice"),
    },
    Case {
        name: "reshape",
        args: &["2x3xf32"],
        build: |b, a| b.reshape(a[0], [3, 2, 1]),
        expect: Ok("tensor<3x2x1xf32>"),
    },
    Case {
        name: "reshape changing the count",
        args: &["2x3xf32"],
        build: |b, a| b.reshape(a[0], [5]),
        expect: Err("operand has 6 elements, result 5"),
    },
    Case {
        name: "transpose",
        args: &["2x3x4xf32"],
        build: |b, a| b.transpose(a[0], &[2, 0, 1]),
        expect: Ok("tensor<4x2x3xf32>"),
    },
    Case {
        name: "transpose non-permutation",
        args: &["2x3xf32"],
        build: |b, a| b.transpose(a[0], &[0, 0]),
        expect: Err("permutation entry 0 appears twice"),
    },
    Case {
        name: "slice strided",
        args: &["10x4xf32"],
        build: |b, a| b.slice(a[0], &[1, 0], &[8, 4], &[3, 2]),
        expect: Ok("tensor<3x2xf32>"),
    },
    Case {
        name: "slice past the end",
        args: &["10xf32"],
        build: |b, a| b.slice(a[0], &[0], &[11], &[1]),
        expect: Err("limit 11 exceeds the size 10"),
    },
    Case {
        name: "concatenate",
        args: &["2x3xf32", "2x5xf32"],
        build: |b, a| b.concatenate(&[a[0], a[1]], 1),
        expect: Ok("tensor<2x8xf32>"),
    },
    Case {
        name: "concatenate dynamic",
        args: &["?x3xf32", "2x3xf32"],
        build: |b, a| b.concatenate(&[a[0], a[1]], 0),
        expect: Ok("tensor<?x3xf32>"),
    },
    Case {
        name: "concatenate mismatch",
        args: &["2x3xf32", "4x5xf32"],
        build: |b, a| b.concatenate(&[a[0], a[1]], 1),
        expect: Err("input 1 has size 4 in dimension 0"),
    },
    Case {
        name: "pad with interior and negative low",
        args: &["4x3xf32", "f32"],
        build: |b, a| b.pad(a[0], a[1], &[-1, 2], &[0, 1], &[1, 0]),
        expect: Ok("tensor<6x6xf32>"),
    },
    Case {
        name: "pad value of another type",
        args: &["4xf32", "i32"],
        build: |b, a| b.pad(a[0], a[1], &[0], &[0], &[0]),
        expect: Err("padding_value must be a tensor<f32>"),
    },
    Case {
        name: "iota",
        args: &[],
        build: |b, _| b.iota(TensorType::of(&[2, 3], ElementType::I64), 1),
        expect: Ok("tensor<2x3xi64>"),
    },
    Case {
        name: "iota out of range",
        args: &[],
        build: |b, _| b.iota(TensorType::of(&[2, 3], ElementType::I64), 2),
        expect: Err("iota dimension 2 is out of range [0, 2)"),
    },
    Case {
        name: "dynamic_slice",
        args: &["8x8xf32", "i64", "i64"],
        build: |b, a| b.dynamic_slice(a[0], &[a[1], a[2]], &[2, 8]),
        expect: Ok("tensor<2x8xf32>"),
    },
    Case {
        name: "dynamic_slice index count",
        args: &["8x8xf32", "i64"],
        build: |b, a| b.dynamic_slice(a[0], &[a[1]], &[2, 8]),
        expect: Err("start_indices has 1 entries, expected 2"),
    },
    Case {
        name: "get_dimension_size",
        args: &["?x8xf32"],
        build: |b, a| b.get_dimension_size(a[0], 0),
        expect: Ok("tensor<i32>"),
    },
    // Contractions.
    Case {
        name: "dot_general matmul",
        args: &["2x3xf32", "3x4xf32"],
        build: |b, a| b.dot_general(a[0], a[1], DotDims::contracting(1, 0), p(2)),
        expect: Ok("tensor<2x4xf32>"),
    },
    Case {
        name: "dot_general batched",
        args: &["5x2x3xf32", "5x4x3xf32"],
        build: |b, a| {
            b.dot_general(
                a[0],
                a[1],
                DotDims {
                    lhs_batching: vec![0],
                    rhs_batching: vec![0],
                    lhs_contracting: vec![2],
                    rhs_contracting: vec![2],
                },
                p(0),
            )
        },
        expect: Ok("tensor<5x2x4xf32>"),
    },
    Case {
        name: "dot_general to f32",
        args: &["2x3xbf16", "3x4xbf16"],
        build: |b, a| {
            b.dot_general_to(
                a[0],
                a[1],
                DotDims::contracting(1, 0),
                p(0),
                ElementType::F32,
            )
        },
        expect: Ok("tensor<2x4xf32>"),
    },
    Case {
        name: "dot_general size mismatch",
        args: &["2x3xf32", "4x4xf32"],
        build: |b, a| b.dot_general(a[0], a[1], DotDims::contracting(1, 0), p(0)),
        expect: Err("contracting dimension 1 of lhs has size 3, dimension 0 of rhs 4"),
    },
    Case {
        name: "dot_general dim out of range",
        args: &["2x3xf32", "3x4xf32"],
        build: |b, a| b.dot_general(a[0], a[1], DotDims::contracting(2, 0), p(0)),
        expect: Err("lhs batching/contracting dimension 2 is out of range"),
    },
    Case {
        name: "dot_general one precision",
        args: &["2x3xf32", "3x4xf32"],
        build: |b, a| b.dot_general(a[0], a[1], DotDims::contracting(1, 0), p(1)),
        expect: Err("precision_config has 1 entries"),
    },
    Case {
        name: "convolution strided",
        args: &["1x1x7x7xf32", "1x1x3x3xf32"],
        build: |b, a| b.convolution(a[0], a[1], conv_attrs(&[2, 2], &[], &[], 1)),
        expect: Ok("tensor<1x1x3x3xf32>"),
    },
    Case {
        name: "convolution dilated and padded",
        args: &["2x1x7x7xf32", "3x1x3x3xf32"],
        build: |b, a| {
            b.convolution(
                a[0],
                a[1],
                conv_attrs(&[2, 2], &[(1, 1), (0, 0)], &[2, 2], 1),
            )
        },
        expect: Ok("tensor<2x3x3x2xf32>"),
    },
    Case {
        name: "convolution feature groups",
        args: &["1x4x5x5xf32", "8x2x3x3xf32"],
        build: |b, a| b.convolution(a[0], a[1], conv_attrs(&[], &[], &[], 2)),
        expect: Ok("tensor<1x8x3x3xf32>"),
    },
    Case {
        name: "convolution kernel features",
        args: &["1x4x5x5xf32", "8x3x3x3xf32"],
        build: |b, a| b.convolution(a[0], a[1], conv_attrs(&[], &[], &[], 1)),
        expect: Err("kernel input feature size 3 must be input features / feature_group_count = 4"),
    },
    // Bodies and indexing.
    Case {
        name: "reduce",
        args: &["2x3x4xf32", "f32"],
        build: |b, a| b.reduce_with(BinaryOp::Maximum, a[0], a[1], &[0, 2]),
        expect: Ok("tensor<3xf32>"),
    },
    Case {
        name: "reduce init of another type",
        args: &["2x3xf32", "i32"],
        build: |b, a| {
            b.reduce(&[a[0]], &[a[1]], &[0], |b, x| Ok(vec![b.add(x[0], x[1])?]))
                .map(|r| r[0])
        },
        expect: Err("init value 0 has element type i32, input f32"),
    },
    Case {
        name: "reduce body returning i1",
        args: &["2x3xf32", "f32"],
        build: |b, a| {
            b.reduce(&[a[0]], &[a[1]], &[0], |b, x| {
                Ok(vec![b.compare(ComparisonDirection::Lt, x[0], x[1])?])
            })
            .map(|r| r[0])
        },
        expect: Err("body must return (tensor<f32>), returns (tensor<i1>)"),
    },
    Case {
        name: "reduce_window pooled",
        args: &["4x6xf32", "f32"],
        build: |b, a| {
            b.reduce_window(
                &[a[0]],
                &[a[1]],
                WindowAttrs {
                    window_dimensions: vec![2, 3],
                    window_strides: vec![2, 3],
                    ..WindowAttrs::default()
                },
                |b, x| Ok(vec![b.add(x[0], x[1])?]),
            )
            .map(|r| r[0])
        },
        expect: Ok("tensor<2x2xf32>"),
    },
    Case {
        name: "reduce_window padded and dilated",
        args: &["5xf32", "f32"],
        build: |b, a| {
            b.reduce_window(
                &[a[0]],
                &[a[1]],
                WindowAttrs {
                    window_dimensions: vec![2],
                    window_strides: vec![1],
                    base_dilations: vec![2],
                    window_dilations: vec![1],
                    padding: vec![(1, 1)],
                },
                |b, x| Ok(vec![b.add(x[0], x[1])?]),
            )
            .map(|r| r[0])
        },
        expect: Ok("tensor<10xf32>"),
    },
    Case {
        name: "gather (spec example)",
        args: &["3x4x2xf32", "2x3x2xi64"],
        build: |b, a| b.gather(a[0], a[1], spec_gather_dims(), &[1, 2, 2], false),
        expect: Ok("tensor<2x3x2x2xf32>"),
    },
    Case {
        name: "gather collapsing a wide slice",
        args: &["3x4x2xf32", "2x3x2xi64"],
        build: |b, a| b.gather(a[0], a[1], spec_gather_dims(), &[2, 2, 2], false),
        expect: Err("collapsed or batching dimension 0 must have slice size <= 1"),
    },
    Case {
        name: "gather float indices",
        args: &["3x4x2xf32", "2x3x2xf32"],
        build: |b, a| b.gather(a[0], a[1], spec_gather_dims(), &[1, 2, 2], false),
        expect: Err("start_indices must be integers"),
    },
    Case {
        name: "sort comparator returning f32",
        args: &["4xf32"],
        build: |b, a| {
            b.sort(&[a[0]], 0, false, |b, x| Ok(vec![b.add(x[0], x[1])?]))
                .map(|r| r[0])
        },
        expect: Err("comparator must return (tensor<i1>)"),
    },
    Case {
        name: "while body changing types",
        args: &["i32"],
        build: |b, a| {
            b.while_loop(
                &[a[0]],
                |b, x| Ok(vec![b.compare(ComparisonDirection::Lt, x[0], x[0])?]),
                |b, x| Ok(vec![b.convert(x[0], ElementType::F32)?]),
            )
            .map(|r| r[0])
        },
        expect: Err("body must return (tensor<i32>), returns (tensor<f32>)"),
    },
    Case {
        name: "if branches disagree",
        args: &["i1", "2xf32", "3xf32"],
        build: |b, a| {
            let (x, y) = (a[1], a[2]);
            b.if_else(a[0], |_| Ok(vec![x]), |_| Ok(vec![y]))
                .map(|r| r[0])
        },
        expect: Err("branch 1 must return (tensor<2xf32>), returns (tensor<3xf32>)"),
    },
    Case {
        name: "case index must be i32",
        args: &["i64", "2xf32"],
        build: |b, a| {
            let x = a[1];
            b.case(a[0], 2, |_, _| Ok(vec![x])).map(|r| r[0])
        },
        expect: Err("the index operand must be a tensor<i32>"),
    },
    // Collectives and the rest.
    Case {
        name: "all_gather",
        args: &["2x3xf32"],
        build: |b, a| b.all_gather(a[0], 1, group()),
        expect: Ok("tensor<2x12xf32>"),
    },
    Case {
        name: "reduce_scatter indivisible",
        args: &["6x3xf32"],
        build: |b, a| b.reduce_scatter(a[0], 0, group(), |b, x| Ok(vec![b.add(x[0], x[1])?])),
        expect: Err("not divisible by the group size 4"),
    },
    Case {
        name: "all_to_all",
        args: &["8x3xf32"],
        build: |b, a| b.all_to_all(a[0], 0, 1, 4, vec![vec![0, 1, 2, 3]], None),
        expect: Ok("tensor<2x12xf32>"),
    },
    Case {
        name: "collective_permute repeated source",
        args: &["3xf32"],
        build: |b, a| b.collective_permute(a[0], vec![(0, 1), (0, 2)], None),
        expect: Err("source 0 appears twice"),
    },
    Case {
        name: "batch_norm_inference feature size",
        args: &["2x3xf32", "4xf32"],
        build: |b, a| b.batch_norm_inference(a[0], a[1], a[1], a[1], a[1], 1e-5, 1),
        expect: Err("per-feature operands must be tensor<3xf32>"),
    },
    Case {
        name: "batch_norm_training mean",
        args: &["2x3xf32", "3xf32"],
        build: |b, a| {
            b.batch_norm_training(a[0], a[1], a[1], 1e-5, 1)
                .map(|r| r[1])
        },
        expect: Ok("tensor<3xf32>"),
    },
    Case {
        name: "dynamic_reshape",
        args: &["?xf32", "2xi64"],
        build: |b, a| {
            b.dynamic_reshape(
                a[0],
                a[1],
                TensorType::new(vec![Dim::Dynamic, Dim::Static(4)], ElementType::F32),
            )
        },
        expect: Ok("tensor<?x4xf32>"),
    },
    Case {
        name: "dynamic_reshape shape length",
        args: &["?xf32", "3xi64"],
        build: |b, a| {
            b.dynamic_reshape(
                a[0],
                a[1],
                TensorType::new(vec![Dim::Dynamic, Dim::Static(4)], ElementType::F32),
            )
        },
        expect: Err("output_shape must have 2 entries"),
    },
    Case {
        name: "typed FFI custom call with a string config",
        args: &["2xf32"],
        build: |b, a| {
            let options = CustomCallOptions {
                backend_config: "{}".to_string(),
                has_side_effect: false,
                api_version: CustomCallApiVersion::TypedFfi,
            };
            b.custom_call("ffi_target", &[a[0]], vec![ty("2xf32").into()], options)
                .map(|r| r[0])
        },
        expect: Err("takes a dictionary backend_config"),
    },
    Case {
        name: "replica_id",
        args: &[],
        build: |b, _| b.replica_id(),
        expect: Ok("tensor<ui32>"),
    },
    Case {
        name: "fft FFT keeps the complex type",
        args: &["2x4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[4]),
        expect: Ok("tensor<2x4xcomplex<f32>>"),
    },
    Case {
        name: "fft IFFT of two dimensions",
        args: &["3x2x4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Ifft, &[2, 4]),
        expect: Ok("tensor<3x2x4xcomplex<f32>>"),
    },
    Case {
        name: "fft RFFT keeps half the last dimension",
        args: &["2x3x4xf32"],
        build: |b, a| b.fft(a[0], FftType::Rfft, &[3, 4]),
        expect: Ok("tensor<2x3x3xcomplex<f32>>"),
    },
    Case {
        name: "fft RFFT of f64 with a dynamic batch",
        args: &["?x7xf64"],
        build: |b, a| b.fft(a[0], FftType::Rfft, &[7]),
        expect: Ok("tensor<?x4xcomplex<f64>>"),
    },
    Case {
        name: "fft IRFFT restores the real length",
        args: &["2x3xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Irfft, &[5]),
        expect: Ok("tensor<2x5xf32>"),
    },
    Case {
        name: "fft FFT of a real operand",
        args: &["4xf32"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[4]),
        expect: Err("FFT takes a complex operand, got f32"),
    },
    Case {
        name: "fft IRFFT of a real operand",
        args: &["4xf32"],
        build: |b, a| b.fft(a[0], FftType::Irfft, &[6]),
        expect: Err("IRFFT takes a complex operand, got f32"),
    },
    Case {
        name: "fft RFFT of a complex operand",
        args: &["4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Rfft, &[4]),
        expect: Err("RFFT takes an f32 or f64 operand, got complex<f32>"),
    },
    Case {
        name: "fft RFFT of bf16",
        args: &["4xbf16"],
        build: |b, a| b.fft(a[0], FftType::Rfft, &[4]),
        expect: Err("RFFT takes an f32 or f64 operand, got bf16"),
    },
    Case {
        name: "fft without fft_length",
        args: &["4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[]),
        expect: Err("fft_length must have 1 to 3 entries, got 0"),
    },
    Case {
        name: "fft of four dimensions",
        args: &["2x2x2x2xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[2, 2, 2, 2]),
        expect: Err("fft_length must have 1 to 3 entries, got 4"),
    },
    Case {
        name: "fft_length longer than the rank",
        args: &["4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[2, 4]),
        expect: Err("fft_length has 2 entries, more than the rank 1"),
    },
    Case {
        name: "fft_length negative",
        args: &["4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[-4]),
        expect: Err("fft_length [-4] has a negative size"),
    },
    Case {
        name: "fft FFT length differs from the operand",
        args: &["2x4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Fft, &[8]),
        expect: Err("FFT needs the operand's last 1 dimension(s) [4] to equal fft_length [8]"),
    },
    Case {
        name: "fft RFFT length differs from the operand",
        args: &["2x4xf32"],
        build: |b, a| b.fft(a[0], FftType::Rfft, &[2, 5]),
        expect: Err(
            "RFFT needs the operand's last 2 dimension(s) [2, 4] to equal fft_length [2, 5]",
        ),
    },
    Case {
        name: "fft IRFFT operand is not the half spectrum",
        args: &["2x4xcomplex<f32>"],
        build: |b, a| b.fft(a[0], FftType::Irfft, &[4]),
        expect: Err("the last, which must be fft_length[-1] / 2 + 1 = 3"),
    },
];

#[test]
fn builder_infers_or_rejects_per_the_spec() {
    let mut failures = Vec::new();
    for case in CASES {
        let mut b = FunctionBuilder::new("f", Visibility::Public);
        let args: Vec<Value> = case.args.iter().map(|a| b.arg(ty(a))).collect();
        let outcome = (case.build)(&mut b, &args);
        let got = outcome
            .as_ref()
            .map(|v| b.value_type(*v).unwrap().to_string())
            .map_err(ToString::to_string);
        let ok = match (&got, case.expect) {
            (Ok(actual), Ok(expected)) => actual == expected,
            (Err(actual), Err(expected)) => actual.contains(expected),
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{}: got {got:?}, expected {:?}",
                case.name, case.expect
            ));
        }
        // Whatever the builder accepted must also pass the verifier.
        if let Ok(value) = outcome {
            b.ret(&[value]).unwrap();
            let function = b.finish().unwrap();
            if let Err(error) = verify_function(&function) {
                failures.push(format!("{}: built but does not verify: {error}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn builder_errors_are_diagnostics_naming_the_op() {
    let mut b = FunctionBuilder::new("f", Visibility::Public);
    let x = b.arg(ty("4xf32"));
    let n = b.arg(ty("4xi32"));
    let error = b.add(x, n).unwrap_err();
    assert!(matches!(&error, IrError::InvalidOp { op, .. } if op == "stablehlo.add"));
    let code = miette::Diagnostic::code(&error).unwrap().to_string();
    assert_eq!(code, "tpuc_ir::invalid_op");
    assert_eq!(
        error.to_string(),
        "invalid `stablehlo.add`: operand element types differ: f32 and i32"
    );
}

#[test]
fn builder_rejects_misuse() {
    let mut b = FunctionBuilder::new("f", Visibility::Public);
    let x = b.arg(ty("4xf32"));
    b.ret(&[x]).unwrap();
    assert!(matches!(b.ret(&[x]), Err(IrError::Builder { .. })));
    assert!(matches!(b.negate(x), Err(IrError::Builder { .. })));

    let unfinished = FunctionBuilder::new("g", Visibility::Private);
    assert!(matches!(unfinished.finish(), Err(IrError::Builder { .. })));

    let mut other = FunctionBuilder::new("h", Visibility::Private);
    let mut big = FunctionBuilder::new("big", Visibility::Private);
    let foreign = (0..5).map(|_| big.arg(ty("f32"))).last().unwrap();
    assert!(matches!(
        other.negate(foreign),
        Err(IrError::Builder { .. })
    ));
}

#[test]
fn builder_records_locations_and_result_types() {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(ty("2xf32"));
    let location = Location::named("relu", Location::file("model.py", 7, 4));
    b.set_location(location.clone());
    let zero = b.splat(ElementType::F32, [2], 0.0).unwrap();
    let y = b.maximum(x, zero).unwrap();
    b.ret(&[y, zero]).unwrap();
    let f = b.finish().unwrap();
    assert_eq!(
        f.result_types,
        vec![Type::from(ty("2xf32")), Type::from(ty("2xf32"))]
    );
    let body = f.block(f.entry_block());
    assert_eq!(body.ops.len(), 3);
    assert!(body.ops.iter().all(|&op| f.op(op).location == location));
    assert!(matches!(
        f.op(body.ops[1]).kind,
        OpKind::Binary(BinaryOp::Maximum)
    ));
}

#[test]
fn integer_splats_are_exact() {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let big = b.splat_i64(ElementType::I64, [2], i64::MAX).unwrap();
    let small = b.splat_i64(ElementType::UI8, [], -1).unwrap();
    b.ret(&[big, small]).unwrap();
    let mut module = Module::new();
    module.add_function(b.finish().unwrap()).unwrap();
    let text = print::pretty(&module, &PrintOptions::default());
    assert!(
        text.contains("dense<9223372036854775807> : tensor<2xi64>"),
        "{text}"
    );
    assert!(text.contains("dense<255> : tensor<ui8>"), "{text}");
}
