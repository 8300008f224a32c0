package mdtab

import (
	"testing"
)

const doc = `# Page

## Tested build configurations

### Linux

#### GPU

<table>
<tr><th>Version</th><th>CUDA</th></tr>
<tr><td>tensorflow-2.15.0</td><td>12.2</td></tr>
</table>

### macOS

**Old**
<table>
<tr><th>Version</th><th>CUDA</th></tr>
<tr><td>tensorflow_gpu-1.1.0</td><td>8<br/>x</td></tr>
</table>

## Requirements

Intro line:

|A|B|
|---|---|
|1.15<br>1.16|x|
`

func TestHTMLTables(t *testing.T) {
	tabs, err := HTMLTables([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(tabs) != 2 {
		t.Fatalf("tables = %d", len(tabs))
	}
	if !tabs[0].Under("Tested build configurations", "Linux", "GPU") || tabs[0].Under("macOS", "GPU") {
		t.Errorf("path = %v", tabs[0].Path)
	}
	if tabs[0].Rows[0].Line != 11 || tabs[0].Rows[0].Cells[1] != "12.2" {
		t.Errorf("row = %+v", tabs[0].Rows[0])
	}
	if !tabs[1].Under("macOS", "Old") || tabs[1].Rows[0].Cells[1] != "8\nx" {
		t.Errorf("bold pseudo-heading table = %+v", tabs[1])
	}
	if len(Find(tabs, "Linux", "CPU")) != 0 {
		t.Error("found a table under a heading that is not there")
	}
}

func TestPipeTables(t *testing.T) {
	tabs, err := PipeTables([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(tabs) != 1 || tabs[0].Intro != "Intro line:" || tabs[0].Rows[0].Cells[0] != "1.15\n1.16" || tabs[0].Rows[0].Line != 28 {
		t.Errorf("tables = %+v", tabs)
	}
}

func FuzzTables(f *testing.F) {
	f.Add([]byte(doc))
	f.Add([]byte("<table><tr><td>x</td></tr>"))
	f.Add([]byte("|a|\n|-|\n|<br>|"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return // real pages are far smaller; huge mutants only slow the fuzzer
		}
		for _, fn := range []func([]byte) ([]Table, error){HTMLTables, PipeTables} {
			tabs, err := fn(b)
			if err != nil {
				continue
			}
			for _, tb := range tabs {
				tb.Under("a", "b")
				tb.Section()
			}
		}
	})
}

// maxFuzzInput bounds fuzz inputs: parsers are linear, and a multi-megabyte
// mutant makes one execution outlast the fuzz time budget.
const maxFuzzInput = 64 << 10
