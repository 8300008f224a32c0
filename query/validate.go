package query

import (
	"strconv"
	"strings"

	"github.com/cudb/cudb/internal/errs"
	"github.com/cudb/cudb/internal/version"
)

// One validation per value: the CLI, the HTTP API and MCP (and refresh,
// for the values it reads from sources) call these and nothing else, so
// a value refused by one door is refused by all of them with the same
// words (issue 29). The driver's, compute capability's and GPU name's
// are query/nvidia's ParseDriver, ParseSM (its range and refresh's
// grammar are internal/version's) and ParseGPUName.

// Platforms are the values of --platform.
var Platforms = []string{"linux", "linux-aarch64", "windows", "macos"}

// ParsePython validates a target Python version: a major and a minor
// ("3.11", "3.11.4"), major 2 or 3. A bare major ("3") names no
// interpreter a wheel is built for, and is refused rather than matched
// against every 3.x.
func ParsePython(s string) (string, *errs.Error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if !version.ValidPython(t) {
		return "", errs.Usage("invalid --python %s: expected a Python version such as 3.11", errs.Quote(s)).WithHint("--python 3.11")
	}
	f := version.MustParseDotted(t).Fields()
	return strconv.Itoa(f[0]) + "." + strconv.Itoa(f[1]) + tail(f), nil
}

func tail(f []int) string {
	if len(f) < 3 {
		return ""
	}
	return "." + strconv.Itoa(f[2])
}

// ParsePlatform validates --platform ("" is the default, linux).
func ParsePlatform(s string) *errs.Error {
	if s == "" {
		return nil
	}
	for _, p := range Platforms {
		if s == p {
			return nil
		}
	}
	return errs.Usage("invalid --platform %s: expected linux, linux-aarch64, windows or macos", errs.Quote(s)).WithHint("--platform linux")
}

// CheckGPUAndSM refuses a GPU named together with a compute capability:
// each states the other, and two answers to one question are a usage
// error, not a judgement for either.
func CheckGPUAndSM(gpu, sm string) *errs.Error {
	if gpu != "" && sm != "" {
		return errs.Usage("give either --gpu or --sm, not both").WithHint("--gpu \"Tesla T4\", or --sm 7.5")
	}
	return nil
}
