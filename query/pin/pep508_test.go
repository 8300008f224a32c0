package pin

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cudb/cudb/internal/version"
)

// checkPEP508 reports whether s is a PEP 508 dependency specification
// of the kind pin writes (a name requirement: name, extras, version
// specifiers, environment marker; no direct URL), with every version in
// a specifier a valid PEP 440 version (a local label only with == or !=,
// a trailing .* only with == or !=). It returns the name.
//
// It is the offline stand-in for Python's packaging.requirements when
// Python (or packaging) is missing; the uv test runs both when it can.
func checkPEP508(s string) (string, error) {
	p := &reqParser{s: s}
	p.ws()
	name := p.identifier()
	if name == "" {
		return "", p.fail("a distribution name")
	}
	p.ws()
	if p.eat("[") {
		p.ws()
		for first := true; !p.peek("]"); first = false {
			if !first && !p.eat(",") {
				return "", p.fail("',' or ']' in the extras")
			}
			p.ws()
			if p.identifier() == "" {
				return "", p.fail("an extra's name")
			}
			p.ws()
		}
		p.eat("]")
		p.ws()
	}
	paren := p.eat("(")
	if paren || p.peekOp() != "" {
		for first := true; ; first = false {
			p.ws()
			if !first && !p.eat(",") {
				break
			}
			p.ws()
			if err := p.versionOne(); err != nil {
				return "", err
			}
			p.ws()
		}
		if paren && !p.eat(")") {
			return "", p.fail("')' closing the version specifiers")
		}
	}
	p.ws()
	if p.eat(";") {
		p.ws()
		if err := p.markerOr(); err != nil {
			return "", err
		}
		p.ws()
	}
	if p.i != len(p.s) {
		return "", p.fail("the end of the requirement")
	}
	return name, nil
}

type reqParser struct {
	s string
	i int
}

func (p *reqParser) fail(want string) error {
	return fmt.Errorf("%q: expected %s at offset %d", p.s, want, p.i)
}

func (p *reqParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *reqParser) peek(t string) bool { return strings.HasPrefix(p.s[p.i:], t) }

func (p *reqParser) eat(t string) bool {
	if p.peek(t) {
		p.i += len(t)
		return true
	}
	return false
}

var identRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?`)

func (p *reqParser) identifier() string {
	m := identRE.FindString(p.s[p.i:])
	p.i += len(m)
	return m
}

// versionCmps are PEP 508's comparison operators, longest first.
var versionCmps = []string{"===", "<=", ">=", "!=", "==", "~=", "<", ">"}

func (p *reqParser) peekOp() string {
	for _, op := range versionCmps {
		if p.peek(op) {
			return op
		}
	}
	return ""
}

var versionTextRE = regexp.MustCompile(`^[A-Za-z0-9_.*+!-]+`)

func (p *reqParser) versionOne() error {
	op := p.peekOp()
	if op == "" {
		return p.fail("a version comparison (==, >=, ...)")
	}
	p.i += len(op)
	p.ws()
	v := versionTextRE.FindString(p.s[p.i:])
	if v == "" {
		return p.fail("a version after " + op)
	}
	p.i += len(v)
	if op == "===" {
		return nil // arbitrary equality: any string
	}
	base, wildcard := strings.CutSuffix(v, ".*")
	if wildcard && op != "==" && op != "!=" {
		return fmt.Errorf("%q: %s%s: a .* suffix only goes with == or !=", p.s, op, v)
	}
	pv, err := version.Parse(base)
	if err != nil {
		return fmt.Errorf("%q: %s is not a PEP 440 version: %v", p.s, base, err)
	}
	if pv.Local() != "" && (wildcard || op != "==" && op != "!=") {
		return fmt.Errorf("%q: %s%s: a local version label only goes with == or !=", p.s, op, v)
	}
	if op == "~=" && len(pv.Release()) < 2 {
		return fmt.Errorf("%q: ~=%s needs at least two release segments", p.s, v)
	}
	return nil
}

// markerVars are PEP 508's environment marker variables.
var markerVars = map[string]bool{"python_version": true, "python_full_version": true, "os_name": true, "sys_platform": true,
	"platform_release": true, "platform_system": true, "platform_version": true, "platform_machine": true,
	"platform_python_implementation": true, "implementation_name": true, "implementation_version": true, "extra": true}

func (p *reqParser) markerOr() error {
	for {
		if err := p.markerAnd(); err != nil {
			return err
		}
		p.ws()
		if !p.keyword("or") {
			return nil
		}
	}
}

func (p *reqParser) markerAnd() error {
	for {
		if err := p.markerExpr(); err != nil {
			return err
		}
		p.ws()
		if !p.keyword("and") {
			return nil
		}
	}
}

// keyword eats word when a space or '(' follows it.
func (p *reqParser) keyword(word string) bool {
	if !p.peek(word) {
		return false
	}
	if rest := p.s[p.i+len(word):]; rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '(' && rest[0] != '"' && rest[0] != '\'' {
		return false
	}
	p.i += len(word)
	return true
}

func (p *reqParser) markerExpr() error {
	p.ws()
	if p.eat("(") {
		if err := p.markerOr(); err != nil {
			return err
		}
		p.ws()
		if !p.eat(")") {
			return p.fail("')' closing a marker group")
		}
		return nil
	}
	if err := p.markerVar(); err != nil {
		return err
	}
	p.ws()
	switch {
	case p.peekOp() != "":
		p.i += len(p.peekOp())
	case p.keyword("in"):
	case p.keyword("not"):
		p.ws()
		if !p.keyword("in") {
			return p.fail("'in' after 'not'")
		}
	default:
		return p.fail("a marker operator")
	}
	p.ws()
	return p.markerVar()
}

func (p *reqParser) markerVar() error {
	if p.peek(`"`) || p.peek(`'`) {
		q := p.s[p.i : p.i+1]
		end := strings.Index(p.s[p.i+1:], q)
		if end < 0 {
			return p.fail("a closing quote")
		}
		p.i += end + 2
		return nil
	}
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] == '_') {
		p.i++
	}
	if v := p.s[start:p.i]; !markerVars[v] {
		p.i = start
		return p.fail("a marker variable or a quoted string")
	}
	return nil
}

func TestCheckPEP508(t *testing.T) {
	for _, ok := range []string{
		"torch==2.1.0+cu118",
		`nvidia-cudnn-cu12==9.1.0.70; sys_platform == "linux" and platform_machine == "x86_64"`,
		"jax[cuda12]==0.4.30",
		"tensorflow[and-cuda] (>=2.15, <2.16)",
		`onnxruntime-gpu>=1.17; python_version >= '3.9' or (os_name == "nt" and extra == "gpu")`,
		"torch==2.1.*",
		`triton==3.0.0; platform_system=="Linux"`,
		`x; "linux" in sys_platform`,
		`x; sys_platform not in "win32 cygwin"`,
	} {
		if _, err := checkPEP508(ok); err != nil {
			t.Errorf("refused %q: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"", "-torch", "torch==", "torch=2.1", "torch==2.1.0+", "torch>=2.1.0+cu118", "torch==2.1.*+cu118",
		"torch~=2", "torch==two", "torch[cuda", "torch; sys_platform ==", `torch; platform == "linux"`,
		`torch; sys_platform == "linux" and`, "torch==2.1.0 extra", `torch; (sys_platform == "linux"`,
	} {
		if _, err := checkPEP508(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
