//! `fuse` on every fixture that has attention, norms or activations, both dialects: how many
//! composites of each kind the lowered module holds, and that inlining them all again leaves
//! a verified module without composites.

use std::collections::BTreeMap;
use std::path::PathBuf;

use tpuc_driver::Options;
use tpuc_ir::{Attribute, ElementType, NamedAttrs, OpKind};
use tpuc_passes::{DEFAULT_PASSES, FUSE_PASSES, PassName, PipelineRequest};

fn lower_with(file: &str, passes: &[PassName]) -> tpuc_ir::Module {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/models")
        .join(file);
    let options = Options {
        pipeline: PipelineRequest {
            passes: Some(passes.to_vec()),
            ..PipelineRequest::default()
        },
        ..Options::default()
    };
    match tpuc_driver::lower(&path, &options) {
        Ok(lowered) => lowered.built.program.module,
        Err(error) => panic!("{file}: {:?}", miette::Report::new(error)),
    }
}

/// Per fixture, the composites expected in both the exported and the core-ATen program.
struct Expected {
    fixture: &'static str,
    composites: &'static [(&'static str, usize)],
}

const ATTENTION: &str = "tpuc.scaled_dot_product_attention";
const RMS_NORM: &str = "odml.rms_norm";
const LAYER_NORM: &str = "tpuc.layer_norm";
const GELU: &str = "tpuc.gelu";
const SWIGLU: &str = "tpuc.swiglu";
const ROTARY: &str = "tpuc.rotary_embedding";
const SILU: &str = "tpuc.silu";

const EXPECTED: &[Expected] = &[
    Expected {
        fixture: "decoder",
        composites: &[(ATTENTION, 1), (RMS_NORM, 1), (LAYER_NORM, 2), (GELU, 1)],
    },
    Expected {
        fixture: "dyn_seq",
        composites: &[(ATTENTION, 1), (RMS_NORM, 1), (LAYER_NORM, 2), (GELU, 1)],
    },
    Expected {
        fixture: "dyn_tokens",
        composites: &[(ATTENTION, 1)],
    },
    Expected {
        fixture: "gpt2",
        composites: &[(ATTENTION, 2), (LAYER_NORM, 5), (GELU, 2)],
    },
    Expected {
        fixture: "bert",
        composites: &[(ATTENTION, 2), (LAYER_NORM, 5), (GELU, 2)],
    },
    Expected {
        fixture: "llama",
        composites: &[(ATTENTION, 2), (RMS_NORM, 5), (ROTARY, 4), (SWIGLU, 2)],
    },
    Expected {
        fixture: "vit",
        // The core program's attention runs on rank-3 products (`[heads, S, D]`, the batch of
        // one squeezed out).
        composites: &[(ATTENTION, 2), (LAYER_NORM, 5), (GELU, 2)],
    },
    Expected {
        fixture: "quant_bf16",
        composites: &[(LAYER_NORM, 1), (SILU, 1)],
    },
    Expected {
        fixture: "dyn_batch",
        composites: &[(LAYER_NORM, 1)],
    },
    Expected {
        fixture: "t5",
        composites: &[(ATTENTION, 3), (RMS_NORM, 7), (GELU, 2)],
    },
    Expected {
        fixture: "bart",
        composites: &[(ATTENTION, 3), (LAYER_NORM, 7), (GELU, 2)],
    },
    Expected {
        fixture: "falcon",
        composites: &[(ATTENTION, 1), (LAYER_NORM, 2), (ROTARY, 2), (GELU, 1)],
    },
    Expected {
        fixture: "clip",
        composites: &[(ATTENTION, 2), (LAYER_NORM, 7)],
    },
    Expected {
        fixture: "siglip",
        composites: &[(ATTENTION, 3), (LAYER_NORM, 7), (GELU, 3)],
    },
    Expected {
        fixture: "wav2vec2",
        composites: &[(ATTENTION, 1), (LAYER_NORM, 5), (GELU, 5)],
    },
    Expected {
        fixture: "llama_bf16",
        // The core program computes the SiLU in float32 between two converts.
        composites: &[(ATTENTION, 1), (RMS_NORM, 3), (ROTARY, 2), (SWIGLU, 1)],
    },
    Expected {
        fixture: "llama_f16",
        composites: &[(ATTENTION, 1), (RMS_NORM, 3), (ROTARY, 2), (SWIGLU, 1)],
    },
    Expected {
        fixture: "llama_int8",
        composites: &[(ATTENTION, 1), (RMS_NORM, 3), (ROTARY, 2), (SWIGLU, 1)],
    },
    Expected {
        fixture: "bloom",
        // ALiBi: the bias (`baddbmm` on a `[B·H, L, S]` view of the scores) is an operand.
        composites: &[(ATTENTION, 1), (LAYER_NORM, 4)],
    },
    Expected {
        fixture: "gemma2",
        // Soft-capped logits (`tanh(s / 50) * 50` before the mask).
        composites: &[(ATTENTION, 2), (RMS_NORM, 9), (ROTARY, 4), (GELU, 2)],
    },
];

fn fused() -> Vec<PassName> {
    [DEFAULT_PASSES.as_slice(), FUSE_PASSES.as_slice()].concat()
}

#[test]
fn every_fixture_gets_its_composites_in_both_dialects() {
    let mut failures = Vec::new();
    for expected in EXPECTED {
        for variant in ["pt2", "core.pt2"] {
            let want = expected.composites;
            let file = format!("{}.{variant}", expected.fixture);
            let module = lower_with(&file, &fused());
            let got = tpuc_passes::composite_counts(&module);
            let want: BTreeMap<String, usize> =
                want.iter().map(|&(n, c)| (n.to_owned(), c)).collect();
            if got != want {
                failures.push(format!("{file}: got {got:?}, expected {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The attention composites of a module: attributes, version and operand count.
fn attentions(module: &tpuc_ir::Module) -> Vec<(NamedAttrs, i32, usize)> {
    let mut found = Vec::new();
    for f in &module.functions {
        for op in f.walk() {
            if let OpKind::Composite {
                name,
                attributes,
                version,
                ..
            } = &f.op(op).kind
                && name == ATTENTION
            {
                found.push((attributes.clone(), *version, f.op(op).operands.len()));
            }
        }
    }
    found
}

/// The attributes of a version-2 attention over 4 heads of 8 (`scale` 1/sqrt(8) in f32).
fn extended_attention(kv_heads: i64, bias: bool, softcap: Option<f64>) -> NamedAttrs {
    let int = |value| Attribute::Int {
        value,
        ty: ElementType::I64,
    };
    let float = |value| Attribute::Float {
        value,
        ty: ElementType::F32,
    };
    let attributes = NamedAttrs::new()
        .with("scale", float(f64::from((1.0 / 8f64.sqrt()) as f32)))
        .with("causal", Attribute::Bool(false))
        .with("heads", int(4))
        .with("kv_heads", int(kv_heads))
        .with("softmax_f32", Attribute::Bool(false))
        .with("bias", Attribute::Bool(bias));
    match softcap {
        Some(cap) => attributes.with("attn_logits_soft_cap", float(cap)),
        None => attributes,
    }
}

#[test]
fn biased_and_soft_capped_attention_carry_exact_attributes() {
    // BLOOM: q, k, v, the ALiBi bias and its additive padding-and-causal mask. Gemma 2: q, k, v
    // and its additive mask, logits capped at 50 (`attn_logit_softcapping`), 4 heads over 2.
    let bloom = (extended_attention(4, true, None), 2, 5);
    let gemma2 = (extended_attention(2, false, Some(50.0)), 2, 4);
    for (fixture, expected) in [
        ("bloom", vec![bloom]),
        ("gemma2", vec![gemma2.clone(), gemma2]),
    ] {
        for variant in ["pt2", "core.pt2"] {
            let file = format!("{fixture}.{variant}");
            let module = lower_with(&file, &fused());
            assert_eq!(attentions(&module), expected, "{file}");
        }
    }
}

#[test]
fn fixtures_without_these_patterns_get_no_composites() {
    for fixture in [
        "mlp",
        "cnn",
        "resnet",
        "misc",
        "stateful",
        "cond",
        "dyn_conv",
        "densenet",
        "shufflenet",
        "unet",
        "windows",
        "log_of_input",
    ] {
        for variant in ["pt2", "core.pt2"] {
            let file = format!("{fixture}.{variant}");
            let module = lower_with(&file, &fused());
            let counts = tpuc_passes::composite_counts(&module);
            assert!(counts.is_empty(), "{file}: {counts:?}");
        }
    }
}

#[test]
fn identical_layers_share_one_decomposition() {
    let module = lower_with("llama.pt2", &fused());
    let private = module
        .functions
        .iter()
        .filter(|f| f.visibility == tpuc_ir::Visibility::Private)
        .count();
    // Two layers: one attention, one SwiGLU, one RMSNorm and two rotary (query and key
    // shapes differ) decompositions.
    assert_eq!(
        private,
        5,
        "{}",
        tpuc_ir::print::pretty(&module, &Default::default())
    );
}

#[test]
fn inlining_every_composite_leaves_none() {
    for fixture in ["decoder.pt2", "llama.core.pt2", "gpt2.pt2"] {
        let module = lower_with(
            fixture,
            &[fused(), vec![PassName::InlineComposites]].concat(),
        );
        assert!(tpuc_passes::composite_counts(&module).is_empty());
        assert_eq!(module.functions.len(), 1, "{fixture}: only main is left");
        tpuc_ir::verify(&module).expect("the inlined module verifies");
    }
}
