// Package version owns every rule cudb uses to read, order and match version
// text, so that the rest of cudb never compares versions as plain strings.
//
// Two families of versions live side by side in compatibility data and they
// must not be confused:
//
//   - Python package versions (torch, tensorflow, jax, ...) follow PEP 440:
//     "2.1" equals "2.1.0", "2.1.0+cu121" carries a local label that pip
//     ignores unless a requirement names it, and release candidates are
//     hidden from ranges unless asked for. [Version], [Specifiers] and
//     [Requirement] implement those rules, using Python's packaging library
//     as the behavioural reference.
//   - NVIDIA versions (CUDA 12.1.1, cuDNN 8.9.2.26, driver 535.104.05,
//     compute capability 8.6) are plain dotted numbers where "12.1" is
//     usually meant as "any 12.1.x", and where "12.10" must sort after
//     "12.9". [Dotted] and [DottedSpec] implement those rules.
//
// The package is a leaf (it imports nothing else of cudb) so that the
// database builder, the query layer and the CLI can all share exactly one
// definition of version order.
//
// [SortKey] and [DottedKey] exist because the compatibility database is
// queried with SQL: their keys let ORDER BY and range comparisons on text
// columns agree with the Go ordering. The keys are stored in a committed
// database, so their format is frozen; tests pin exact key bytes.
package version
