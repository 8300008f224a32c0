package check

import (
	"fmt"
	"strings"
)

// Parse reads one file of kind k into the units it describes. It is
// pure: files a unit refers to (compose builds, -r includes) are named in
// the units for the caller to read.
func Parse(file string, k Kind, text string, buildArgs map[string]string) ([]*Unit, error) {
	if k == KindRequirements {
		// The other kinds' parsers check their bounds themselves.
		if err := checkBounds(file, k, text); err != nil {
			return nil, err
		}
	}
	switch k {
	case KindDockerfile:
		u, err := ParseDockerfile(file, text, buildArgs)
		if err != nil {
			return nil, err
		}
		return []*Unit{u}, nil
	case KindCompose:
		return ParseCompose(file, text)
	case KindRequirements:
		base := strings.ToLower(file[strings.LastIndexAny(file, `/\`)+1:])
		return []*Unit{ParseRequirements(file, text, strings.Contains(base, "constraint"))}, nil
	case KindPyproject:
		u, err := ParsePyproject(file, text)
		if err != nil {
			return nil, err
		}
		return []*Unit{u}, nil
	case KindUVLock, KindPoetryLock:
		u, err := ParseLock(file, text, k)
		if err != nil {
			return nil, err
		}
		return []*Unit{u}, nil
	case KindCondaEnv:
		u, err := ParseCondaEnv(file, text)
		if err != nil {
			return nil, err
		}
		return []*Unit{u}, nil
	}
	return nil, fmt.Errorf("%s: unknown file kind %q", file, k)
}

// parse is Parse for the checker: a lock that holds one of its
// frameworks more than once is split into one scenario per index, with
// the framework table the check was given.
func (c *checker) parse(file string, k Kind, text string) ([]*Unit, error) {
	units, err := Parse(file, k, text, c.opts.BuildArgs)
	if err == nil && (k == KindUVLock || k == KindPoetryLock) {
		for _, u := range units {
			lockScenarios(u, c.frameworks())
		}
	}
	return units, err
}

// checkBounds refuses a file past the bounds of its kind (limits.go)
// before its parser, or the TOML or YAML library under it, sees it.
func checkBounds(file string, k Kind, text string) error {
	if err := checkShape(file, k, text); err != nil {
		return err
	}
	switch k {
	case KindPyproject, KindUVLock, KindPoetryLock:
		return tomlDepth(file, text)
	case KindCompose, KindCondaEnv:
		return yamlDepth(file, text)
	}
	return nil
}
