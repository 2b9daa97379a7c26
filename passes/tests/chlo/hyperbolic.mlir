// RUN: chlo-legalize,cse
// sinh and cosh of bf16 are computed in f32; the inverses stay in the operand's type.
module {
  func.func public @main(%arg0: tensor<2xbf16>, %arg1: tensor<2xf32>) -> (tensor<2xbf16>, tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %0 = chlo.sinh %arg0 : tensor<2xbf16> -> tensor<2xbf16>
    %1 = chlo.cosh %arg0 : tensor<2xbf16> -> tensor<2xbf16>
    %2 = chlo.asinh %arg1 : tensor<2xf32> -> tensor<2xf32>
    %3 = chlo.acosh %arg1 : tensor<2xf32> -> tensor<2xf32>
    %4 = chlo.atanh %arg1 : tensor<2xf32> -> tensor<2xf32>
    return %0, %1, %2, %3, %4 : tensor<2xbf16>, tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2xbf16>, %arg1: tensor<2xf32>) -> (tensor<2xbf16>, tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
// CHECK:     %0 = stablehlo.convert %arg0 : (tensor<2xbf16>) -> tensor<2xf32>
// CHECK:     %cst = stablehlo.constant dense<-6.931472e-01> : tensor<2xf32>
// CHECK:     %1 = stablehlo.add %0, %cst : tensor<2xf32>
// CHECK:     %2 = stablehlo.subtract %cst, %0 : tensor<2xf32>
// CHECK:     %3 = stablehlo.exponential %1 : tensor<2xf32>
// CHECK:     %4 = stablehlo.exponential %2 : tensor<2xf32>
// CHECK:     %5 = stablehlo.subtract %3, %4 : tensor<2xf32>
// CHECK:     %6 = stablehlo.exponential_minus_one %0 : tensor<2xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK:     %7 = stablehlo.add %6, %cst_0 : tensor<2xf32>
// CHECK:     %8 = stablehlo.divide %6, %7 : tensor<2xf32>
// CHECK:     %9 = stablehlo.add %6, %8 : tensor<2xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK:     %10 = stablehlo.multiply %9, %cst_1 : tensor<2xf32>
// CHECK:     %11 = stablehlo.abs %0 : tensor<2xf32>
// CHECK:     %12 = stablehlo.compare  LT, %11, %cst_0,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %13 = stablehlo.select %12, %10, %5 : tensor<2xi1>, tensor<2xf32>
// CHECK:     %14 = stablehlo.convert %13 : (tensor<2xf32>) -> tensor<2xbf16>
// CHECK:     %15 = stablehlo.add %3, %4 : tensor<2xf32>
// CHECK:     %16 = stablehlo.convert %15 : (tensor<2xf32>) -> tensor<2xbf16>
// CHECK:     %17 = stablehlo.abs %arg1 : tensor<2xf32>
// CHECK:     %18 = stablehlo.multiply %17, %17 : tensor<2xf32>
// CHECK:     %19 = stablehlo.add %18, %cst_0 : tensor<2xf32>
// CHECK:     %20 = stablehlo.sqrt %19 : tensor<2xf32>
// CHECK:     %21 = stablehlo.add %cst_0, %20 : tensor<2xf32>
// CHECK:     %22 = stablehlo.divide %18, %21 : tensor<2xf32>
// CHECK:     %23 = stablehlo.add %17, %22 : tensor<2xf32>
// CHECK:     %24 = stablehlo.log_plus_one %23 : tensor<2xf32>
// CHECK:     %25 = stablehlo.log %17 : tensor<2xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<6.931472e-01> : tensor<2xf32>
// CHECK:     %26 = stablehlo.add %25, %cst_2 : tensor<2xf32>
// CHECK:     %cst_3 = stablehlo.constant dense<1.8446743e+19> : tensor<2xf32>
// CHECK:     %27 = stablehlo.compare  GE, %17, %cst_3,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %28 = stablehlo.select %27, %26, %24 : tensor<2xi1>, tensor<2xf32>
// CHECK:     %29 = stablehlo.sign %arg1 : tensor<2xf32>
// CHECK:     %30 = stablehlo.multiply %29, %28 : tensor<2xf32>
// CHECK:     %31 = stablehlo.add %arg1, %cst_0 : tensor<2xf32>
// CHECK:     %32 = stablehlo.subtract %arg1, %cst_0 : tensor<2xf32>
// CHECK:     %33 = stablehlo.multiply %31, %32 : tensor<2xf32>
// CHECK:     %34 = stablehlo.sqrt %33 : tensor<2xf32>
// CHECK:     %35 = stablehlo.add %arg1, %34 : tensor<2xf32>
// CHECK:     %36 = stablehlo.log %35 : tensor<2xf32>
// CHECK:     %37 = stablehlo.log %arg1 : tensor<2xf32>
// CHECK:     %38 = stablehlo.add %37, %cst_2 : tensor<2xf32>
// CHECK:     %39 = stablehlo.compare  GE, %arg1, %cst_3,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %40 = stablehlo.select %39, %38, %36 : tensor<2xi1>, tensor<2xf32>
// CHECK:     %cst_4 = stablehlo.constant dense<-1.000000e+00> : tensor<2xf32>
// CHECK:     %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK:     %41 = stablehlo.compare  LT, %arg1, %cst_4,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %42 = stablehlo.select %41, %cst_5, %40 : tensor<2xi1>, tensor<2xf32>
// CHECK:     %43 = stablehlo.log_plus_one %arg1 : tensor<2xf32>
// CHECK:     %44 = stablehlo.negate %arg1 : tensor<2xf32>
// CHECK:     %45 = stablehlo.log_plus_one %44 : tensor<2xf32>
// CHECK:     %46 = stablehlo.subtract %43, %45 : tensor<2xf32>
// CHECK:     %47 = stablehlo.multiply %46, %cst_1 : tensor<2xf32>
// CHECK:     %48 = stablehlo.compare  GT, %17, %cst_0,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %49 = stablehlo.select %48, %cst_5, %47 : tensor<2xi1>, tensor<2xf32>
// CHECK:     return %14, %16, %30, %42, %49 : tensor<2xbf16>, tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
// CHECK:   }
// CHECK: }
