package mdtab

import (
	"strings"
	"testing"
)

// The block and inline readers replaced a full markdown library; on every
// page in the source snapshots and every scraper fixture they gave the
// same tables, headings, intros, fenced lines and line numbers (checked
// when they were written, and kept so by TestDataIsFresh and the scraper
// tests). These cases pin the constructs the pages use.

const blocksDoc = `---
title: front matter
---

# Title #

Setext heading
--------------

- a list item
  | x | y |
  |---|---|
  | 1 | 2 |
- with a heading-looking line
  # not a heading

` + "```bash" + `
# CUDA 12.1
pip install torch==2.1.0
` + "```" + `

<div>
<table><tr><td>x</td></tr></table>
</div>

    indented | code
    ---|---

Before the table
| a | b \| c | ` + "`d`" + ` |
| :-- | --: | --- |
| 1 | 2 |
| 3 | 4 | 5 | 6 |
`

func TestBlocks(t *testing.T) {
	bs := Blocks([]byte(blocksDoc))
	var kinds []string
	for _, b := range bs {
		kinds = append(kinds, [...]string{"other", "heading", "para", "fence", "html", "table"}[b.Kind])
	}
	want := "other heading heading heading other fence html other para table"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("kinds = %s, want %s", got, want)
	}
	if bs[1].Level != 2 || bs[1].Text != "title: front matter" || bs[2].Text != "Title" || bs[3].Level != 2 || bs[3].Text != "Setext heading" {
		t.Errorf("headings = %+v %+v %+v", bs[1], bs[2], bs[3])
	}
	if f := bs[5]; len(f.Lines) != 2 || f.Lines[1].Text != "pip install torch==2.1.0" || f.Lines[1].No != 19 {
		t.Errorf("fence = %+v", f)
	}
	if h := bs[6]; len(h.Lines) != 3 || h.Line != 22 {
		t.Errorf("html = %+v", h)
	}
	if p := bs[8]; p.Text != "Before the table" {
		t.Errorf("paragraph = %+v", p)
	}
	tab := bs[9]
	if tab.Line != 30 || strings.Join(tab.Header, "|") != "a|b \\| c|`d`" {
		t.Errorf("header = %q at %d", tab.Header, tab.Line)
	}
	if len(tab.Rows) != 2 || len(tab.Rows[0].Cells) != len(tab.Header) || tab.Rows[0].Cells[len(tab.Header)-1] != "" ||
		len(tab.Rows[1].Cells) != len(tab.Header) || tab.Rows[1].Line != 33 || tab.Rows[1].Text != "| 3 | 4 | 5 | 6 |" {
		t.Errorf("rows = %+v (header %q)", tab.Rows, tab.Header)
	}
}

func TestInline(t *testing.T) {
	for _, c := range []struct{ in, want, wantBR string }{
		{"a \\* b &amp; c", "a \\* b &amp; c", ""},
		{"line one  \nline two\\\nthree\nfour", "line oneline twothree four", ""},
		{"x `code | y` z", "x code | y z", ""},
		{"[link *text*](http://x \"t\") <http://auto.link> <b>raw</b> <br/> end", "link text  raw  end", "link text  raw \n end"},
		{"snake_case_word and *em* and **strong** and ***both*** 2.*", "snake_case_word and em and strong and both 2.*", ""},
		{"![alt text](img.png) tail", "alt text tail", ""},
		{"1.15<br>1.16", "1.151.16", "1.15\n1.16"},
	} {
		if got := Inline(c.in, false); got != c.want {
			t.Errorf("Inline(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.wantBR != "" {
			if got := Inline(c.in, true); got != c.wantBR {
				t.Errorf("Inline(%q, br) = %q, want %q", c.in, got, c.wantBR)
			}
		}
	}
}

func TestBoldOnly(t *testing.T) {
	for in, want := range map[string]bool{"**Linux**": true, "__GPU__": true, "**a** and **b**": false, "*em*": false, "text": false, "**x**y": false} {
		if _, got := BoldOnly(in); got != want {
			t.Errorf("BoldOnly(%q) = %v", in, got)
		}
	}
	if s, _ := BoldOnly("**Old `cuda`**"); s != "Old cuda" {
		t.Errorf("text = %q", s)
	}
}

func FuzzBlocks(f *testing.F) {
	f.Add([]byte(blocksDoc))
	f.Add([]byte("[[[[[[](((((`` ` <a <b *_*_*_ **"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		n := strings.Count(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") + strings.Count(string(b), "\r") + 1
		prev := 0
		for _, bl := range Blocks(b) {
			if bl.Line < prev || bl.Line > n {
				t.Fatalf("block line %d after %d (of %d)", bl.Line, prev, n)
			}
			prev = bl.Line
			Inline(bl.Text, true)
			BoldOnly(bl.Text)
			for _, r := range bl.Rows {
				if len(r.Cells) != len(bl.Header) {
					t.Fatalf("row of %d cells under a header of %d", len(r.Cells), len(bl.Header))
				}
			}
		}
	})
}
