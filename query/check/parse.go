package check

import (
	"fmt"
	"strings"
)

// Parse reads one file of kind k into the units it describes. It is
// pure: files a unit refers to (compose builds, -r includes) are named in
// the units for the caller to read.
func Parse(file string, k Kind, text string, buildArgs map[string]string) ([]*Unit, error) {
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
