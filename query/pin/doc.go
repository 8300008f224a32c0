// Package pin turns a resolved stack into files that install it: the plan
// (which packages, versions, markers, indexes and system libraries) and its
// renderers (requirements, constraints, pip, uv, conda, apt, docker).
package pin
