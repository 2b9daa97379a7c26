//! Benchmarks live in `benches/`; this library only hosts shared helpers.
