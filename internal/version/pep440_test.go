package version

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"
)

type orderLine struct {
	line int
	a    string
	op   string
	b    string
}

// readOrder loads testdata/order.txt (pairs checked against Python's
// packaging; see the file header).
func readOrder(t *testing.T) []orderLine {
	t.Helper()
	f, err := os.Open("testdata/order.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []orderLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fs := strings.Fields(text)
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 3 || (fs[1] != "<" && fs[1] != "==") {
			t.Fatalf("order.txt:%d: want \"a < b\" or \"a == b\", got %q", n, sc.Text())
		}
		out = append(out, orderLine{n, fs[0], fs[1], fs[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 80 {
		t.Fatalf("order.txt has %d pairs, want at least 80", len(out))
	}
	return out
}

func TestCompareOrderTable(t *testing.T) {
	for _, l := range readOrder(t) {
		a, err := Parse(l.a)
		if err != nil {
			t.Errorf("order.txt:%d: %v", l.line, err)
			continue
		}
		b, err := Parse(l.b)
		if err != nil {
			t.Errorf("order.txt:%d: %v", l.line, err)
			continue
		}
		want := map[string]int{"<": -1, "==": 0}[l.op]
		if got := a.Compare(b); got != want {
			t.Errorf("order.txt:%d: Compare(%s, %s) = %d, want %d", l.line, l.a, l.b, got, want)
		}
		if got := b.Compare(a); got != -want {
			t.Errorf("order.txt:%d: Compare(%s, %s) = %d, want %d", l.line, l.b, l.a, got, -want)
		}
	}
}

func TestSortKeyOrderTable(t *testing.T) {
	for _, l := range readOrder(t) {
		ka, kb := SortKey(l.a), SortKey(l.b)
		var ok bool
		if l.op == "<" {
			ok = ka < kb
		} else {
			ok = ka == kb
		}
		if !ok {
			t.Errorf("order.txt:%d: %s %s %s but SortKey gives %q vs %q", l.line, l.a, l.op, l.b, ka, kb)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in, str, public, local string
		pre                    bool
		release                []int
	}{
		{"2.1", "2.1", "2.1", "", false, []int{2, 1}},
		{"2.1.0+cu121", "2.1.0+cu121", "2.1.0", "cu121", false, []int{2, 1, 0}},
		{"2.2.0rc1", "2.2.0rc1", "2.2.0rc1", "", true, []int{2, 2, 0}},
		{"1.13.1.post1", "1.13.1.post1", "1.13.1.post1", "", false, []int{1, 13, 1}},
		{"v2.1", "2.1", "2.1", "", false, []int{2, 1}},
		{" 2.1 ", "2.1", "2.1", "", false, []int{2, 1}},
		{"1.0-RC.1", "1.0rc1", "1.0rc1", "", true, []int{1, 0}},
		{"1.0-1", "1.0.post1", "1.0.post1", "", false, []int{1, 0}},
		{"1.0.dev", "1.0.dev0", "1.0.dev0", "", true, []int{1, 0}},
		{"1.0.post1.dev2", "1.0.post1.dev2", "1.0.post1.dev2", "", true, []int{1, 0}},
		{"1!2.0a1", "1!2.0a1", "1!2.0a1", "", true, []int{2, 0}},
		{"0!2.0", "2.0", "2.0", "", false, []int{2, 0}},
		{"2.1.0+ROCm5-6", "2.1.0+rocm5.6", "2.1.0", "rocm5.6", false, []int{2, 1, 0}},
		{"01.002", "1.2", "1.2", "", false, []int{1, 2}},
		{"0.4.30.dev20240601", "0.4.30.dev20240601", "0.4.30.dev20240601", "", true, []int{0, 4, 30}},
	}
	for _, tt := range tests {
		v, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := v.String(); got != tt.str {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.str)
		}
		if got := v.Public(); got != tt.public {
			t.Errorf("Parse(%q).Public() = %q, want %q", tt.in, got, tt.public)
		}
		if got := v.Local(); got != tt.local {
			t.Errorf("Parse(%q).Local() = %q, want %q", tt.in, got, tt.local)
		}
		if got := v.IsPrerelease(); got != tt.pre {
			t.Errorf("Parse(%q).IsPrerelease() = %v, want %v", tt.in, got, tt.pre)
		}
		if got := v.Release(); !reflect.DeepEqual(got, tt.release) {
			t.Errorf("Parse(%q).Release() = %v, want %v", tt.in, got, tt.release)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		"", " ", "banana", "2.1.", ".2.1", "2..1", "2.1.*", "v", "vv2.1", "2.1+",
		"2.1+cu121+x", "2.1+-x", "2.1 rc1", "2.1.dev1.post1", "2.1a1a2", "1!",
		"-1", "2.1=", "1.0+ü", "1234567890123456789.0", "1.0+1234567890123456789",
	} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want error", in)
			continue
		}
		if in != "" && !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) error %q does not quote the input", in, err)
		}
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse(\"banana\") did not panic")
		}
	}()
	MustParse("banana")
}

func TestZeroVersion(t *testing.T) {
	var z Version
	if z.String() != "0" || z.Compare(MustParse("0.0")) != 0 || z.IsPrerelease() {
		t.Errorf("zero Version = %q, want a final release equal to 0", z)
	}
	if SortKey("0") != MustParse("0").sortKey() || z.sortKey() != SortKey("0") {
		t.Errorf("zero Version key %q differs from SortKey(\"0\") %q", z.sortKey(), SortKey("0"))
	}
}

func TestReleaseIsCopy(t *testing.T) {
	v := MustParse("2.1")
	v.Release()[0] = 9
	if v.String() != "2.1" {
		t.Errorf("mutating Release() changed the version to %s", v)
	}
}

// Every version named in order.txt, compared with every other one: SortKey
// must order all pairs as Compare does, not only the listed ones.
func TestSortKeyAllPairs(t *testing.T) {
	var vs []string
	for _, l := range readOrder(t) {
		vs = append(vs, l.a, l.b)
	}
	for _, a := range vs {
		for _, b := range vs {
			want := MustParse(a).Compare(MustParse(b))
			if got := cmpStr(SortKey(a), SortKey(b)); got != want {
				t.Errorf("SortKey order of %s, %s = %d, Compare = %d", a, b, got, want)
			}
		}
	}
}

// TestParseSimpleAgreesWithGrammar: every version of order.txt that the
// fast path takes parses to the same Version as through the grammar.
func TestParseSimpleAgreesWithGrammar(t *testing.T) {
	taken := 0
	for _, l := range readOrder(t) {
		for _, s := range []string{l.a, l.b} {
			v, ok := parseSimple(s)
			if !ok {
				continue
			}
			taken++
			g, err := parseGrammar(s, s)
			if err != nil || !reflect.DeepEqual(g, v) {
				t.Errorf("%q: fast path %+v, grammar %+v, %v", s, v, g, err)
			}
		}
	}
	for _, s := range []string{"2.1.0+cu121", "1.13.1+rocm5.2", "0", "01.002", "2.1.0+CU121", "2.1.0+", "2.1.0+cu121..x", ".1", "1.", "1..2", "v2.1"} {
		v, ok := parseSimple(s)
		g, err := parseGrammar(s, s)
		if ok && (err != nil || !reflect.DeepEqual(g, v)) {
			t.Errorf("%q: fast path %+v, grammar %+v, %v", s, v, g, err)
		}
	}
	if taken < 20 {
		t.Errorf("the fast path took only %d versions of order.txt", taken)
	}
}
