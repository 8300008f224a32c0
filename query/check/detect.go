package check

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"
)

// KindOfName is the kind a file's base name says, if any: what a
// directory given to `cudb check` is searched for.
func KindOfName(base string) (Kind, bool) { return kindByName(base) }

// kindByName detects a file's kind from its base name.
func kindByName(base string) (Kind, bool) {
	b := strings.ToLower(base)
	switch {
	case b == "dockerfile" || strings.HasPrefix(b, "dockerfile.") && !sourceExt(b) || strings.HasSuffix(b, ".dockerfile") || b == "containerfile":
		return KindDockerfile, true
	case (strings.HasPrefix(b, "docker-compose") || strings.HasPrefix(b, "compose")) && (strings.HasSuffix(b, ".yml") || strings.HasSuffix(b, ".yaml")):
		return KindCompose, true
	case b == "pyproject.toml":
		return KindPyproject, true
	case b == "uv.lock":
		return KindUVLock, true
	case b == "poetry.lock":
		return KindPoetryLock, true
	case (strings.HasPrefix(b, "environment") || strings.HasPrefix(b, "conda") || strings.HasPrefix(b, "env")) && (strings.HasSuffix(b, ".yml") || strings.HasSuffix(b, ".yaml")):
		return KindCondaEnv, true
	case strings.HasSuffix(b, ".txt") && (strings.Contains(b, "requirement") || strings.Contains(b, "constraint") || strings.Contains(b, "freeze")):
		return KindRequirements, true
	case strings.HasSuffix(b, ".in") && strings.Contains(b, "requirement"):
		return KindRequirements, true
	}
	return "", false
}

// sourceExt reports a name that only starts like a Dockerfile
// (dockerfile.go, Dockerfile.md).
func sourceExt(b string) bool {
	for _, x := range []string{".go", ".py", ".md", ".txt", ".json", ".yml", ".yaml", ".sh", ".toml", ".rs", ".js", ".ts", ".rst", ".lock"} {
		if strings.HasSuffix(b, x) {
			return true
		}
	}
	return false
}

var (
	fromLineRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?mi)^\s*FROM\s+\S+`) })
	composeRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^services:\s*$`) })
	condaDepsRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(dependencies|channels):\s*$`) })
	tomlPkgRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\[\[package\]\]\s*$`) })
	projectRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\[(project|tool\.[a-z]+)\]\s*$`) })
	reqLineRe   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(-[-a-z]+.*|[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*((==|>=|<=|~=|!=|>|<|===)\s*[^\s;]+.*)?(\s*;.*)?|[A-Za-z0-9][A-Za-z0-9._-]* @ \S+|(https?|file)://\S+|git\+\S+|\.{0,2}/\S+\.(whl|tar\.gz|zip))(\s*;.*)?$`)
	})
	uvLockHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^(version|revision|requires-python)\s*=`) })
)

// Detect names a file's kind from its name, else from its content. The
// name "-" (standard input) is judged by content alone.
func Detect(name string, content []byte) (Kind, error) {
	if name != "-" && name != "" {
		if k, ok := kindByName(path.Base(strings.ReplaceAll(name, "\\", "/"))); ok {
			return k, nil
		}
	}
	text := string(content)
	switch {
	case composeRe().MatchString(text):
		return KindCompose, nil
	case fromLineRe().MatchString(text):
		return KindDockerfile, nil
	case tomlPkgRe().MatchString(text) && strings.Contains(text, "[metadata]") && strings.Contains(text, "content-hash"):
		return KindPoetryLock, nil
	case tomlPkgRe().MatchString(text) && uvLockHeader().MatchString(text):
		return KindUVLock, nil
	case projectRe().MatchString(text):
		return KindPyproject, nil
	case condaDepsRe().MatchString(text):
		return KindCondaEnv, nil
	}
	if looksLikeRequirements(text) {
		return KindRequirements, nil
	}
	return "", fmt.Errorf("%s: not a file check reads (Dockerfile, compose, requirements, pyproject.toml, uv.lock, poetry.lock, pip freeze, conda environment.yml)", displayName(name))
}

// looksLikeRequirements accepts text whose every non-comment line reads
// as a requirement or a pip option, with at least one requirement.
func looksLikeRequirements(text string) bool {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if i := strings.Index(l, " #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		l = strings.TrimSuffix(l, "\\")
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "--hash") {
			continue
		}
		if !reqLineRe().MatchString(l) {
			return false
		}
		n++
	}
	return n > 0
}

func displayName(name string) string {
	if name == "-" || name == "" {
		return "standard input"
	}
	return name
}
