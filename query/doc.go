// Package query answers compatibility questions from the database: resolve
// (which stacks satisfy a set of requirements and host constraints),
// combining several frameworks into one environment, driver and GPU
// constraints, and the matrices behind `cudb matrix` and the site (the
// NVIDIA tables and driver/GPU judgements live in query/nvidia). Verify
// and explain live in query/verify, pin planning and rendering in
// query/pin; both build on the stacks resolved here.
package query
