use miette::Diagnostic;
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum PassError {
    #[error("unknown pass `{name}` in the pipeline `{pipeline}`")]
    #[diagnostic(
        code(tpuc::passes::unknown),
        help("passes: {known}; separate them with commas, e.g. `canonicalize,cse,dce`")
    )]
    UnknownPass {
        name: String,
        pipeline: String,
        known: String,
    },

    #[error("the module does not verify after pass `{pass}`")]
    #[diagnostic(
        code(tpuc::passes::verify),
        help("this is a bug in tpuc's pass `{pass}`; `--passes` without it avoids it")
    )]
    Verify {
        pass: String,
        #[source]
        #[diagnostic_source]
        source: tpuc_ir::IrError,
    },

    #[error("kernel library: `{file}` {message}")]
    #[diagnostic(
        code(tpuc::passes::kernel),
        help(
            "a kernel is a StableHLO module with a public `@main` and the module attribute \
             `tpuc.kernel = {{composite = \"NAME\", version = 1 : i32, target = \"tpu\", \
             attributes = {{...}}}}` (docs/fusion.md); kernels/generate.py writes the shipped ones"
        )
    )]
    Kernel { file: String, message: String },

    /// The program's interface does not fit its module.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Interface(#[from] tpuc_ir::InterfaceError),

    /// A sharding plan that cannot apply to the program.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Plan(Box<crate::sharding::PlanError>),

    /// An `--optimizer` spec that does not parse.
    #[error("optimizer `{spec}`: {message}")]
    #[diagnostic(
        code(tpuc::optimizer),
        help(
            "write NAME:field=value,...: `sgd:lr=0.1,momentum=0.9` (fields lr, momentum, \
             dampening, nesterov, weight_decay, clip) or `adamw:lr=1e-3,weight_decay=0.01` \
             (adam/adamw fields lr, beta1, beta2, eps, weight_decay, clip)"
        )
    )]
    Optimizer { spec: String, message: String },

    /// A pass that cannot do its job on this program.
    #[error("pass `{pass}`: {message}")]
    #[diagnostic(code(tpuc::passes::refused), help("{help}"))]
    Refused {
        pass: &'static str,
        message: String,
        help: String,
    },
}

impl From<crate::sharding::PlanError> for PassError {
    fn from(error: crate::sharding::PlanError) -> Self {
        Self::Plan(Box::new(error))
    }
}
