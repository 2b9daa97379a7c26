//! Scaled dot-product attention as tpuc's lowering writes it for `[B, H, S, D]` operands, at
//! any shape: what the kernel tests and the kernel benchmark fuse and substitute.

/// The shape and kind of one attention.
#[derive(Clone, Copy, Debug)]
pub struct Attention {
    pub batch: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub seq: u64,
    pub head_dim: u64,
    /// `f32` or `bf16`.
    pub element: &'static str,
    pub causal: bool,
}

impl Attention {
    /// The attention a kernel of a library implements, from its signature and declaration.
    pub fn of(kernel: &tpuc_passes::Kernel) -> Self {
        let types = kernel.operand_types();
        let tensor = |i: usize| types[i].as_tensor().expect("kernel operands are tensors");
        let (q, kv) = (tensor(0), tensor(1));
        let (qs, kvs) = (
            q.static_shape().expect("static kernel shapes"),
            kv.static_shape().expect("static kernel shapes"),
        );
        Self {
            batch: qs[0],
            heads: qs[1],
            kv_heads: kvs[1],
            seq: qs[2],
            head_dim: qs[3],
            element: if q.element == tpuc_ir::ElementType::BF16 {
                "bf16"
            } else {
                "f32"
            },
            causal: kernel.attributes.get("causal") == Some(&tpuc_ir::Attribute::Bool(true)),
        }
    }

    /// The module: `@main(q, k, v)` scaling the scores by `1/sqrt(head_dim)` as a constant of
    /// the element type, as tpuc's lowering does.
    pub fn module(&self) -> String {
        let Self {
            batch: b,
            heads: h,
            kv_heads: g,
            seq: s,
            head_dim: d,
            element: t,
            causal,
        } = *self;
        let scale = 1.0 / (d as f64).sqrt();
        let neg_inf = if t == "bf16" { "0xFF80" } else { "0xFF800000" };
        let q = format!("tensor<{b}x{h}x{s}x{d}x{t}>");
        let kv = format!("tensor<{b}x{g}x{s}x{d}x{t}>");
        let scores = format!("tensor<{b}x{h}x{s}x{s}x{t}>");
        let rows = format!("tensor<{b}x{h}x{s}x{t}>");
        let mut body = String::new();
        let (k, v) = if g == h {
            ("%k", "%v")
        } else {
            let wide = format!("tensor<{b}x{g}x{}x{s}x{d}x{t}>", h / g);
            for x in ["k", "v"] {
                body += &format!(
                    "    %{x}w = stablehlo.broadcast_in_dim %{x}, dims = [0, 1, 3, 4] : ({kv}) -> {wide}\n    \
                     %{x}r = stablehlo.reshape %{x}w : ({wide}) -> {q}\n"
                );
            }
            ("%kr", "%vr")
        };
        body += &format!(
            "    %s = stablehlo.dot_general %q, {k}, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : ({q}, {q}) -> {scores}\n    \
             %scale = stablehlo.constant dense<{scale:e}> : {scores}\n    \
             %s1 = stablehlo.multiply %s, %scale : {scores}\n"
        );
        let masked = if causal {
            body += &format!(
                "    %ninf = stablehlo.constant dense<{neg_inf}> : {scores}\n    \
                 %rows = stablehlo.iota dim = 0 : tensor<{s}x{s}xi32>\n    \
                 %cols = stablehlo.iota dim = 1 : tensor<{s}x{s}xi32>\n    \
                 %keep = stablehlo.compare  LE, %cols, %rows,  SIGNED : (tensor<{s}x{s}xi32>, tensor<{s}x{s}xi32>) -> tensor<{s}x{s}xi1>\n    \
                 %keepb = stablehlo.broadcast_in_dim %keep, dims = [2, 3] : (tensor<{s}x{s}xi1>) -> tensor<{b}x{h}x{s}x{s}xi1>\n    \
                 %s2 = stablehlo.select %keepb, %s1, %ninf : tensor<{b}x{h}x{s}x{s}xi1>, {scores}\n"
            );
            "%s2"
        } else {
            "%s1"
        };
        body += &format!(
            "    %minit = stablehlo.constant dense<{neg_inf}> : tensor<{t}>\n    \
             %max = stablehlo.reduce({masked} init: %minit) applies stablehlo.maximum across dimensions = [3] : ({scores}, tensor<{t}>) -> {rows}\n    \
             %maxb = stablehlo.broadcast_in_dim %max, dims = [0, 1, 2] : ({rows}) -> {scores}\n    \
             %shifted = stablehlo.subtract {masked}, %maxb : {scores}\n    \
             %e = stablehlo.exponential %shifted : {scores}\n    \
             %zero = stablehlo.constant dense<0.000000e+00> : tensor<{t}>\n    \
             %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [3] : ({scores}, tensor<{t}>) -> {rows}\n    \
             %sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : ({rows}) -> {scores}\n    \
             %p = stablehlo.divide %e, %sumb : {scores}\n    \
             %o = stablehlo.dot_general %p, {v}, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : ({scores}, {q}) -> {q}\n    \
             return %o : {q}\n"
        );
        format!(
            "module {{\n  func.func public @main(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{\n{body}  }}\n}}\n"
        )
    }
}
