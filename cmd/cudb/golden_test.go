package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// goldenFile is the golden-facts table: facts written down from primary
// sources (each row cites the document and line it was read from), never
// from cudb's output. docs/data.md explains the columns and the gaps.
const goldenFile = "../../docs/golden-facts.csv"

// TestGoldenFacts checks every row of the golden-facts table against the
// real binary: rows with status "agree" must match what cudb answers;
// rows with status "gap: …" name a known disagreement and must still
// disagree (when the data is fixed, flip the row to "agree").
func TestGoldenFacts(t *testing.T) {
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := recs[0]
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, h := range []string{"family", "query", "subject", "field", "expected", "status", "citation"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("%s: no %q column", goldenFile, h)
		}
	}
	if len(recs)-1 < 150 {
		t.Errorf("%d golden rows, want at least 150", len(recs)-1)
	}
	bin := buildBinary(t)
	answers := map[string]map[string]map[string]string{} // query → subject → field → value
	ask := func(query string) map[string]map[string]string {
		if a, ok := answers[query]; ok {
			return a
		}
		args := strings.Fields(query)
		if query == "release" {
			args = []string{"db", "dump", "--table", "release"}
		}
		out, err := exec.Command(bin, append(args, "--json")...).Output()
		if err != nil && !strings.HasPrefix(query, "resolve ") {
			t.Fatalf("cudb %s --json: %v", query, err)
		}
		if err != nil {
			out = []byte(`{"stacks": []}`) // no answer: every field of the row is absent
		}
		a, err := goldenIndex(query, out)
		if err != nil {
			t.Fatalf("cudb %s --json: %v", query, err)
		}
		answers[query] = a
		return a
	}
	agree := map[string][2]int{}
	for i, r := range recs[1:] {
		line := i + 2
		if r[col["citation"]] == "" {
			t.Errorf("%s:%d: no citation", goldenFile, line)
		}
		fam, status := r[col["family"]], r[col["status"]]
		got, ok := ask(r[col["query"]])[r[col["subject"]]]
		val := ""
		if ok {
			val = got[r[col["field"]]]
		}
		match := ok && val == r[col["expected"]]
		c := agree[fam]
		c[1]++
		switch {
		case status == "agree" && !match:
			t.Errorf("%s:%d: %s %s %s = %q (present %v), the source says %q (%s)", goldenFile, line, r[col["query"]], r[col["subject"]], r[col["field"]], val, ok, r[col["expected"]], r[col["citation"]])
		case strings.HasPrefix(status, "gap:") && match:
			t.Errorf("%s:%d: %s %s %s now agrees (%q): flip the row to agree and update docs/data.md", goldenFile, line, r[col["query"]], r[col["subject"]], r[col["field"]], val)
		case status != "agree" && !strings.HasPrefix(status, "gap:"):
			t.Errorf("%s:%d: status %q is neither agree nor gap: …", goldenFile, line, status)
		}
		if match {
			c[0]++
		}
		agree[fam] = c
	}
	for fam, c := range agree {
		t.Logf("%-12s %3d of %3d rows agree", fam, c[0], c[1])
	}
}

// goldenIndex turns a command's JSON rows into subject → field → value,
// with the subject spelled as the golden table spells it.
func goldenIndex(query string, out []byte) (map[string]map[string]string, error) {
	idx := map[string]map[string]string{}
	put := func(subject string, fields map[string]any) {
		m := map[string]string{}
		for k, v := range fields {
			switch v := v.(type) {
			case string:
				m[k] = v
			case []any: // a list of strings (compute_capabilities) reads space-separated
				var parts []string
				for _, e := range v {
					if s, ok := e.(string); ok {
						parts = append(parts, s)
					}
				}
				m[k] = strings.Join(parts, " ")
			}
		}
		if _, dup := idx[subject]; !dup {
			idx[subject] = m
		}
	}
	if strings.HasPrefix(query, "resolve ") {
		var res struct {
			Stacks []struct {
				Variant string `json:"variant"`
				CUDA    string `json:"cuda"`
				CUDNN   string `json:"cudnn"`
				NCCL    string `json:"nccl"`
				Python  struct {
					Min string `json:"min"`
					Max string `json:"max"`
				} `json:"python"`
				ComputeCapabilities []string `json:"compute_capabilities"`
			} `json:"stacks"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, err
		}
		if len(res.Stacks) > 0 {
			s := res.Stacks[0]
			idx["first"] = map[string]string{"variant": s.Variant, "cuda": s.CUDA, "cudnn": s.CUDNN, "nccl": s.NCCL,
				"python_min": s.Python.Min, "python_max": s.Python.Max,
				"compute_capabilities": strings.Join(s.ComputeCapabilities, " ")}
		}
		return idx, nil
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		return nil, err
	}
	for _, r := range rows {
		s := func(k string) string { v, _ := r[k].(string); return v }
		switch query {
		case "matrix cuda":
			put(s("cuda"), r)
		case "matrix tensorflow":
			dev := "gpu"
			if s("cuda") == "" {
				dev = "cpu"
			}
			put(s("tensorflow")+"|"+s("platform")+"|"+s("package")+"|"+dev, r)
		case "matrix torch":
			if s("channel") == "pip" {
				put(s("torch")+"|"+s("variant"), r)
			}
		case "matrix onnxruntime":
			subj := s("onnxruntime")
			if p := s("platform"); p != "" && p != "linux" {
				subj += "|" + p
			}
			put(subj, r)
		case "matrix jax":
			put(s("jax")+"|"+s("extra"), r)
		case "release":
			put(s("component")+"|"+s("version"), r)
		case "db dump --table build":
			put(s("component")+"|"+s("version")+"|"+s("variant")+"|"+s("platform")+"|"+s("channel"), r)
		case "matrix cudnn":
			put(s("cudnn")+"|"+s("cuda_major"), r)
		case "db dump --table attribute":
			put(s("component")+"|"+s("version")+"|"+s("key"), r)
		case "matrix driver":
			put("R"+s("branch"), r)
		case "matrix gpu":
			var aliases []string
			for _, a := range r["aliases"].([]any) {
				aliases = append(aliases, a.(string))
			}
			r["aliases"] = strings.Join(aliases, ", ")
			put(s("name"), r)
		}
	}
	return idx, nil
}
