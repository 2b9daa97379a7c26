//! StableHLO IR: types, ops, builder, verifier, printer, parser.
