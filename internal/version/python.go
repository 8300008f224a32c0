package version

// ValidPython reports whether s is the version of a Python interpreter a
// wheel is built for: a major and a minor ("3.11") or with the micro
// ("3.11.4"), major 2 or 3, minor at most 99. A bare major ("3") names no
// interpreter. The CLI's --python, the HTTP and MCP python parameters
// and refresh's source checks all use it.
func ValidPython(s string) bool {
	v, err := ParseDotted(s)
	if err != nil || len(s) == 0 || s[0] < '0' || s[0] > '9' {
		return false
	}
	f := v.Fields()
	return len(f) >= 2 && len(f) <= 3 && (f[0] == 2 || f[0] == 3) && f[1] <= 99
}
