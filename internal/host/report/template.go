package report

import (
	"regexp"
	"strings"
	"sync"

	"github.com/cudb/cudb/internal/frameworks"
)

// Issue templates (TensorFlow's, ONNX Runtime's) put a framework's
// version on the line after its heading: "### TensorFlow version" then
// "tf 2.16" or "v2.12.0-rc1-12-g0db597d0d75 2.12.0" (tf.version's
// GIT_VERSION and VERSION). templateVersion reads that pair.
var (
	// "### TensorFlow version", from the framework table's labels
	xTemplateHeading = sync.OnceValue(func() *regexp.Regexp {
		var labels []string
		for _, f := range frameworks.All {
			labels = append(labels, regexp.QuoteMeta(f.Label))
		}
		return regexp.MustCompile(`(?i)^#{2,4}\s*(` + strings.Join(labels, "|") + `)\s+version(?: or commit id)?\s*$`)
	})
	// "tf 2.16", "2.17.0", "v2.12.0-rc1-12-g0db597d0d75 2.12.0"
	xTemplateValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:[a-z]{1,10}\s*)?v?(\d+\.\d+(?:\.\d+)?)(?:\S*\s+v?(\d+\.\d+\.\d+))?\s*$`)
	})
	// "### CUDA/cuDNN version" then "12.3" or "11.2/8.1" (TensorFlow's template)
	xTemplateCUDAHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^#{2,4}\s*cuda\s*/\s*cudnn\s+version\s*$`)
	})
	xTemplateCUDAValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:cuda\s*)?v?(\d{1,2}\.\d)(?:\.\d+)*(?:\s*[/,]\s*(?:cudnn\s*)?v?(\d\.\d{1,2}(?:\.\d+)*))?\s*$`)
	})
	// an install instruction names what to install, not what is installed
	xInstruction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:pip3?|uv pip|conda|mamba|micromamba|poetry|uv)\s+(?:install|add)\b|\b(?:upgrade|downgrade|switch|move|moved|switched|upgraded|downgraded)\s+(?:it\s+)?to\b`)
	})
)

func instruction(lower string) bool {
	if !hasAny(lower, "install", " add ", "grade", "switch", "move") {
		return false
	}
	return xInstruction().MatchString(lower)
}

// templateVersion returns the framework and version that heading prev
// and value line t state, if they are a template pair.
func templateVersion(prev, t string) (fw, v string, ok bool) {
	if !strings.HasPrefix(prev, "#") {
		return "", "", false
	}
	h := xTemplateHeading().FindStringSubmatch(prev)
	if h == nil {
		return "", "", false
	}
	m := xTemplateValue().FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	v = m[1]
	if m[2] != "" {
		v = m[2] // "v2.12.0-rc1-... 2.12.0": the release, not the git tag
	}
	for _, f := range frameworks.All {
		if strings.EqualFold(f.Label, h[1]) {
			return f.Name, v, true
		}
	}
	return "", "", false
}

// template records a template's version as if the extractor had read it
// on that line (the first reading of each framework wins).
func (x *extracted) template(fw, v string, n int) {
	switch fw {
	case frameworks.TensorFlow:
		if x.tf == "" {
			x.tf, x.tfPkg, x.tfLine = v, frameworks.TensorFlow, n
		}
	case frameworks.Torch:
		if x.torch == "" {
			x.torch, x.torchLine = v, n
		}
	case frameworks.JAX:
		if x.jax == "" {
			x.jax, x.jaxLine = v, n
		}
	default:
		if x.ort == "" {
			x.ort, x.ortLine, x.ortPkg = v, n, frameworks.ONNXRuntime
		}
	}
}

// templateCUDA returns the CUDA and cuDNN a "### CUDA/cuDNN version"
// heading and its value line state.
func templateCUDA(prev, t string) (cuda, cudnn string, ok bool) {
	if !strings.HasPrefix(prev, "#") || !xTemplateCUDAHeading().MatchString(prev) {
		return "", "", false
	}
	m := xTemplateCUDAValue().FindStringSubmatch(t)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
