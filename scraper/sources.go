package scraper

import (
	"path"
	"reflect"
)

// The list of sources lives in package scraper/all (which imports every
// source package; source packages import this one, so it cannot). Every
// function here that needs sources takes them as a parameter, in
// precedence order, earliest first.

// Family is the fact family a source belongs to: the name of the package
// under scraper/ that implements it (pytorch for pytorch-lockfiles,
// cudnn for cudnn).
func Family(s Source) string {
	t := reflect.TypeOf(s)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return path.Base(t.PkgPath())
}

// Find returns the source named name in list.
func Find(list []Source, name string) (Source, bool) {
	for _, s := range list {
		if s.Name() == name {
			return s, true
		}
	}
	return nil, false
}
