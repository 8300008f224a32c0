// Package check judges project files — Dockerfiles, compose files,
// requirements and constraints files, pyproject.toml, uv.lock,
// poetry.lock, pip freeze output and conda environment files — against
// a target host before anything is built.
//
// The parsers (Parse and the per-format functions) are pure: text in,
// units out, each requirement, image and reservation tagged with the line
// it was read from. Check turns units into the questions resolve and
// verify answer (query.Resolve, nvidia.CheckDriverOS, and verify's host
// judgement, which the use case hands in as Options.JudgeHost: check and
// verify are siblings over one findings model, query/findings), so
// `cudb check` gives the judgement `cudb resolve` and `cudb verify` give;
// it adds only what a file alone can get wrong (a driver package inside an
// image, a GPU that is never reserved).
package check
