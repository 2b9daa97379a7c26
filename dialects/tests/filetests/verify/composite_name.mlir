// RUN: verify
// composite's C1: its name is a namespaced op name (`f00._.$` is one; the others are not).
func.func private @foo() {
  return
}
func.func @main() {
  stablehlo.composite "f00._.$" {decomposition = @foo} : () -> ()
  stablehlo.composite "foo" {decomposition = @foo} : () -> ()
  stablehlo.composite "foo." {decomposition = @foo} : () -> ()
  stablehlo.composite "0.foo" {decomposition = @foo} : () -> ()
  stablehlo.composite "foo.%" {decomposition = @foo} : () -> ()
  return
}
// ERROR: 8:3: C1: name `foo` must be a namespaced op name (`dialect.op`: a letter, then letters, digits and `_`; each `.`-separated part after it also `$`)
// ERROR: 9:3: C1: name `foo.` must be a namespaced op name (`dialect.op`: a letter, then letters, digits and `_`; each `.`-separated part after it also `$`)
// ERROR: 10:3: C1: name `0.foo` must be a namespaced op name (`dialect.op`: a letter, then letters, digits and `_`; each `.`-separated part after it also `$`)
// ERROR: 11:3: C1: name `foo.%` must be a namespaced op name (`dialect.op`: a letter, then letters, digits and `_`; each `.`-separated part after it also `$`)
