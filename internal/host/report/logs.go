package report

import (
	"regexp"
	"strings"
	"sync"
)

// Framework logs are answers: a pasted log of a working host (TensorFlow
// announcing its plugins and devices, ONNX Runtime's session warnings,
// JAX probing its backends, a Python traceback) states no failure, yet it
// is a report of what ran. logLines recognises such lines by their
// logging prefixes so that text is read, and judged as "nothing wrong
// found", instead of being refused as no known format.
var (
	// absl/glog: "2024-03-13 11:20:43.802117: E external/...cc:9261]" and
	// "I0919 21:58:29.074738 139995721590592 xla_bridge.py:350]"
	xLogPrefix = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\(\S+\)\s+)?(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?:?\s+[IWEF]\s+\S+:\d+\]|[IWEF]\d{4}\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[[IWEVF]:onnxruntime:)`)
	})
)

// xLogStamp is what makes two copies of one logged message differ: the
// timestamp, thread or process id and rank prefix in front of it.
var xLogStamp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\[rank\d+\]:\s*|\(\w+ pid=\d+(?:, ip=[\d.]+)?\)\s*)?(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?:?\s*|[IWEF]\d{4}\s+\d\d:\d\d:\d\d\.\d+\s+\d+\s+)`)
})

// logKey is a log line without its timestamp and process prefix.
func logKey(t string) string {
	if t == "" || (t[0] != '[' && t[0] != '(' && (t[0] < '0' || t[0] > '9') && t[0] != 'I' && t[0] != 'W' && t[0] != 'E' && t[0] != 'F') {
		return t
	}
	if loc := xLogStamp().FindStringIndex(t); loc != nil {
		return t[loc[1]:]
	}
	return t
}

// logWords are the literals one of which a log line holds (the regexp
// runs only on those lines).
var logWords = []string{"]", "traceback (most recent call last)", "userwarning:", "warnings.warn("}

func (p *parser) logLines() {
	for _, f := range p.formats {
		if f != FormatErrors {
			return // a known format already says what was read
		}
	}
	n := 0
	for _, l := range p.lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		lower := strings.ToLower(t)
		if !hasAny(lower, logWords...) {
			continue
		}
		if strings.HasPrefix(lower, "traceback (most recent call last)") || strings.Contains(lower, "userwarning:") || xLogPrefix().MatchString(t) {
			n++
		}
	}
	if n > 0 {
		p.found(FormatLog)
	}
}
