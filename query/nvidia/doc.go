// Package nvidia owns cudb's NVIDIA judgements and tables: driver
// versions and their CUDA floors (toolkit and minor-version
// compatibility), compute capabilities against architecture lists and
// toolkits, GPU names, cuDNN releases, and the CUDA, cuDNN, GPU, arch and
// driver matrices. It answers from the database alone and knows nothing
// of frameworks; query (resolve) and its siblings build on it.
package nvidia
