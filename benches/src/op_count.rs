//! Op counts of StableHLO text, by the rules of the peers' README: every line inside a
//! `func.func` body whose op is `stablehlo.*` or `chlo.*`, in pretty or generic form, region
//! terminators included. A pretty `stablehlo.reduce(...) applies stablehlo.add` is one line, so
//! one op; `func.call` and `func.return` are not StableHLO ops. The same function counts the text
//! of every tool, so that the counts compare.

use std::collections::BTreeMap;

/// How many ops of each name a module's text holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpCounts {
    by_name: BTreeMap<String, usize>,
}

impl OpCounts {
    /// Counts the ops of `text`, a printed MLIR module.
    pub fn of(text: &str) -> OpCounts {
        let mut counts = OpCounts::default();
        let mut open_braces_in_function: Option<usize> = None;
        for line in text.lines() {
            let line = line.trim();
            let depth = match open_braces_in_function {
                Some(depth) => {
                    if let Some(name) = op_name(line) {
                        *counts.by_name.entry(name.to_owned()).or_default() += 1;
                    }
                    depth
                }
                None if line.starts_with("func.func") => 0,
                None => continue,
            };
            let depth = depth
                .checked_add_signed(brace_balance(line))
                .expect("braces of a function balance");
            open_braces_in_function = (depth > 0).then_some(depth);
        }
        counts
    }

    /// All ops.
    pub fn total(&self) -> usize {
        self.by_name.values().sum()
    }

    /// Ops per name (`stablehlo.add`, ...), in name order.
    pub fn by_name(&self) -> &BTreeMap<String, usize> {
        &self.by_name
    }

    /// Ops named `name`; 0 if none.
    pub fn get(&self, name: &str) -> usize {
        self.by_name.get(name).copied().unwrap_or(0)
    }
}

/// The StableHLO or CHLO op a line of a function body holds, if any: after the results
/// (`%0 = `, `%a, %b = `, `%0:2 = `), the op's name, quoted in the generic form.
fn op_name(line: &str) -> Option<&str> {
    let op = match line.strip_prefix('%') {
        Some(_) => &line[line.find(" = ")? + 3..],
        None => line,
    };
    let op = op.strip_prefix('"').unwrap_or(op);
    if !(op.starts_with("stablehlo.") || op.starts_with("chlo.")) {
        return None;
    }
    let end = op
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(op.len());
    Some(&op[..end])
}

/// Opening minus closing braces of a line, outside string literals.
fn brace_balance(line: &str) -> isize {
    let mut balance = 0;
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => balance += 1,
            '}' if !in_string => balance -= 1,
            _ => {}
        }
    }
    balance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_pretty_ops_and_skips_func_return() {
        let text = r#"module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
    %0 = stablehlo.add %arg0, %cst : tensor<4xf32>
    %1 = chlo.erf %0 : tensor<4xf32> -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}"#;
        let counts = OpCounts::of(text);
        assert_eq!(counts.total(), 3);
        assert_eq!(counts.get("stablehlo.constant"), 1);
        assert_eq!(counts.get("stablehlo.add"), 1);
        assert_eq!(counts.get("chlo.erf"), 1);
    }

    #[test]
    fn counts_generic_ops_with_several_results_and_region_bodies() {
        let text = r#"module {
  func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2xf32>) -> tensor<2x4xf32> {
    %a, %b, %c = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) <{epsilon = 1.0 : f32, feature_index = 0 : i64}> : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>)
    %0:2 = "stablehlo.reduce_window"(%a, %a, %arg1, %arg1) <{window_dimensions = array<i64: 1, 2>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>, %z: tensor<f32>, %w: tensor<f32>):
      %1 = "stablehlo.maximum"(%x, %z) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%1, %1) : (tensor<f32>, tensor<f32>) -> ()
    }) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    "func.return"(%a) : (tensor<2x4xf32>) -> ()
  }
}"#;
        let counts = OpCounts::of(text);
        assert_eq!(counts.total(), 4);
        assert_eq!(counts.get("stablehlo.return"), 1);
        assert_eq!(counts.get("stablehlo.reduce_window"), 1);
    }

    #[test]
    fn a_pretty_reduce_is_one_op_and_a_reducer_region_counts_its_lines() {
        let text = r#"func.func @f(%arg0: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}"#;
        let counts = OpCounts::of(text);
        assert_eq!(counts.get("stablehlo.reduce"), 2);
        assert_eq!(counts.get("stablehlo.add"), 1);
        assert_eq!(counts.total(), 5);
    }

    #[test]
    fn every_function_counts_and_calls_do_not() {
        let text = r#"module {
  func.func private @helper(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.negate %arg0 : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
    %0 = func.call @helper(%arg0) : (tensor<f32>) -> tensor<f32>
    %1 = stablehlo.abs %0 {note = "}{"} : tensor<f32>
    return %1 : tensor<f32>
  }
}"#;
        let counts = OpCounts::of(text);
        assert_eq!(counts.total(), 2);
        assert_eq!(counts.get("stablehlo.negate"), 1);
        assert_eq!(counts.get("stablehlo.abs"), 1);
    }

    #[test]
    fn lines_outside_functions_do_not_count() {
        let text = "stablehlo.constant dense<0> : tensor<i32>\nmodule {\n}\n";
        assert_eq!(OpCounts::of(text).total(), 0);
    }
}
