package version

import "strings"

// The range of a compute capability's major number: what the CLI's --sm,
// the HTTP and MCP sm parameters and refresh's source checks all accept
// (one grammar; 1.0 was the first CUDA GPU, Blackwell is 12.x).
const (
	CapabilityMajorMin = 1
	CapabilityMajorMax = 19
)

// ValidCapability reports whether s is a compute capability "M.m": a
// major in range and a one-digit minor; with family, "M.x" (every minor
// of a major) is one too.
func ValidCapability(s string, family bool) bool {
	ma, mi, ok := strings.Cut(s, ".")
	if !ok || len(ma) < 1 || len(ma) > 2 || !isDigits(ma) {
		return false
	}
	if !(len(mi) == 1 && isDigits(mi) || family && mi == "x") {
		return false
	}
	n, _ := atoi(ma)
	return CapabilityMajorInRange(n)
}

// CapabilityMajorInRange reports whether n is a compute capability's
// major number.
func CapabilityMajorInRange(n int) bool {
	return n >= CapabilityMajorMin && n <= CapabilityMajorMax
}
