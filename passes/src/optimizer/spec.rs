//! `--optimizer` specs: `sgd:lr=0.1,momentum=0.9`, `adamw:lr=1e-3,weight_decay=0.01,clip=1.0`.
//! Every field has PyTorch's default; the canonical text (all fields, fixed order) is what
//! cache keys hash.

use std::fmt;

use crate::error::PassError;

/// Which update rule, with PyTorch's hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// `torch.optim.SGD`.
    Sgd {
        momentum: f64,
        dampening: f64,
        nesterov: bool,
    },
    /// `torch.optim.Adam` (`decoupled: false`, L2 weight decay added to the gradient) and
    /// `torch.optim.AdamW` (`decoupled: true`, the parameter decays before the step).
    Adam {
        decoupled: bool,
        beta1: f64,
        beta2: f64,
        eps: f64,
    },
}

/// An optimizer and its hyperparameters.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimizerSpec {
    pub rule: Rule,
    pub lr: f64,
    pub weight_decay: f64,
    /// Clip the global gradient norm to this before the update (`clip_grad_norm_`).
    pub clip: Option<f64>,
}

const SGD_FIELDS: &[&str] = &[
    "lr",
    "momentum",
    "dampening",
    "nesterov",
    "weight_decay",
    "clip",
];
const ADAM_FIELDS: &[&str] = &["lr", "beta1", "beta2", "eps", "weight_decay", "clip"];
const NAMES: &str = "sgd, adam, adamw";

impl OptimizerSpec {
    /// Parses `NAME[:field=value,...]`.
    pub fn parse(text: &str) -> Result<Self, PassError> {
        let bad = |message: String| PassError::Optimizer {
            spec: text.to_owned(),
            message,
        };
        let (name, fields) = text.split_once(':').unwrap_or((text, ""));
        let name = name.trim();
        let known: &[&str] = match name {
            "sgd" => SGD_FIELDS,
            "adam" | "adamw" => ADAM_FIELDS,
            other => {
                return Err(bad(format!(
                    "unknown optimizer `{other}`; optimizers: {NAMES}"
                )));
            }
        };
        let mut values: Vec<(&str, &str)> = Vec::new();
        for field in fields.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            let Some((key, value)) = field.split_once('=') else {
                return Err(bad(format!("`{field}` is not `field=value`")));
            };
            let key = key.trim();
            if !known.contains(&key) {
                return Err(bad(format!(
                    "`{name}` has no field `{key}`; its fields: {}",
                    known.join(", ")
                )));
            }
            if values.iter().any(|(k, _)| *k == key) {
                return Err(bad(format!("`{key}` is given twice")));
            }
            values.push((key, value.trim()));
        }
        let number = |key: &str, default: f64| -> Result<f64, PassError> {
            match values.iter().find(|(k, _)| *k == key) {
                None => Ok(default),
                Some((_, value)) => value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| {
                        bad(format!(
                            "`{key}={value}`: expected a finite, non-negative number"
                        ))
                    }),
            }
        };
        let clip = match values.iter().find(|(k, _)| *k == "clip") {
            None => None,
            Some(_) => Some(number("clip", 0.0)?)
                .filter(|&c| c > 0.0)
                .map(Some)
                .ok_or_else(|| {
                    bad("`clip` must be positive (the largest global gradient norm)".into())
                })?,
        };
        let spec = match name {
            "sgd" => {
                if !values.iter().any(|(k, _)| *k == "lr") {
                    return Err(bad("`sgd` needs a learning rate, e.g. `sgd:lr=0.1`".into()));
                }
                let nesterov = match values.iter().find(|(k, _)| *k == "nesterov") {
                    None => false,
                    Some((_, "true" | "1")) => true,
                    Some((_, "false" | "0")) => false,
                    Some((_, value)) => {
                        return Err(bad(format!("`nesterov={value}`: expected true or false")));
                    }
                };
                let momentum = number("momentum", 0.0)?;
                let dampening = number("dampening", 0.0)?;
                if nesterov && (momentum == 0.0 || dampening != 0.0) {
                    return Err(bad(
                        "Nesterov momentum needs `momentum` > 0 and `dampening=0` (as in PyTorch)"
                            .into(),
                    ));
                }
                OptimizerSpec {
                    rule: Rule::Sgd {
                        momentum,
                        dampening,
                        nesterov,
                    },
                    lr: number("lr", 0.0)?,
                    weight_decay: number("weight_decay", 0.0)?,
                    clip,
                }
            }
            adam => {
                let decoupled = adam == "adamw";
                let beta = |key, default| -> Result<f64, PassError> {
                    let value = number(key, default)?;
                    if value < 1.0 {
                        Ok(value)
                    } else {
                        Err(bad(format!("`{key}` must be in [0, 1)")))
                    }
                };
                OptimizerSpec {
                    rule: Rule::Adam {
                        decoupled,
                        beta1: beta("beta1", 0.9)?,
                        beta2: beta("beta2", 0.999)?,
                        eps: number("eps", 1e-8)?,
                    },
                    lr: number("lr", 1e-3)?,
                    weight_decay: number("weight_decay", if decoupled { 1e-2 } else { 0.0 })?,
                    clip,
                }
            }
        };
        Ok(spec)
    }

    pub fn name(&self) -> &'static str {
        match self.rule {
            Rule::Sgd { .. } => "sgd",
            Rule::Adam {
                decoupled: false, ..
            } => "adam",
            Rule::Adam {
                decoupled: true, ..
            } => "adamw",
        }
    }

    /// The state slots each parameter has (PyTorch's names), besides the shared step count.
    pub fn slots(&self) -> &'static [&'static str] {
        match self.rule {
            Rule::Sgd { momentum, .. } if momentum != 0.0 => &["momentum_buffer"],
            Rule::Sgd { .. } => &[],
            Rule::Adam { .. } => &["exp_avg", "exp_avg_sq"],
        }
    }
}

impl fmt::Display for OptimizerSpec {
    /// The canonical text: every field, in a fixed order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:lr={}", self.name(), self.lr)?;
        match self.rule {
            Rule::Sgd {
                momentum,
                dampening,
                nesterov,
            } => write!(
                f,
                ",momentum={momentum},dampening={dampening},nesterov={nesterov}"
            )?,
            Rule::Adam {
                beta1, beta2, eps, ..
            } => write!(f, ",beta1={beta1},beta2={beta2},eps={eps}")?,
        }
        write!(f, ",weight_decay={}", self.weight_decay)?;
        if let Some(clip) = self.clip {
            write!(f, ",clip={clip}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_optimizer_are_one_canonical_text() {
        let a = OptimizerSpec::parse("adamw:lr=1e-3, beta1=0.9,eps=1e-8").unwrap();
        let b = OptimizerSpec::parse("adamw:lr=0.001").unwrap();
        assert_eq!(a.to_string(), b.to_string());
        assert_eq!(
            a.to_string(),
            "adamw:lr=0.001,beta1=0.9,beta2=0.999,eps=0.00000001,weight_decay=0.01"
        );
        let sgd = OptimizerSpec::parse("sgd:lr=0.1,momentum=0.9,nesterov=true,clip=1").unwrap();
        assert_eq!(
            sgd.to_string(),
            "sgd:lr=0.1,momentum=0.9,dampening=0,nesterov=true,weight_decay=0,clip=1"
        );
    }

    #[test]
    fn bad_specs_name_the_valid_names_and_fields() {
        let message = |text: &str| OptimizerSpec::parse(text).unwrap_err().to_string();
        let error = OptimizerSpec::parse("adamw:lr=1e-3,betta1=0.9").unwrap_err();
        let PassError::Optimizer { message: why, .. } = error else {
            panic!("{error:?}");
        };
        assert!(
            why.contains("betta1") && why.contains("beta1, beta2"),
            "{why}"
        );
        let PassError::Optimizer { message: why, .. } =
            OptimizerSpec::parse("lion:lr=1").unwrap_err()
        else {
            panic!()
        };
        assert!(why.contains("sgd, adam, adamw"), "{why}");
        assert!(message("sgd:momentum=0.9").contains("optimizer"));
        for bad in [
            "sgd:lr=-1",
            "sgd:lr=0.1,nesterov=true",
            "adam:beta1=1.5",
            "sgd:lr",
            "sgd:lr=0.1,clip=0",
            "sgd:lr=0.1,lr=0.2",
            "adamw:eps=nan",
        ] {
            assert!(OptimizerSpec::parse(bad).is_err(), "{bad}");
        }
    }
}
