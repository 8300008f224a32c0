package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cudb/cudb/query/querytest"
)

// BenchmarkExplainLog explains logs of growing length built from the
// signature messages plus traceback filler: the cost per line stays flat
// (one pass, memoised lookups, at most MaxExplainedLines explained).
func BenchmarkExplainLog(b *testing.B) {
	d := querytest.Embedded(b)
	var msgs []string
	for _, m := range signatureCases {
		msgs = append(msgs, m)
	}
	for _, n := range []int{100, 1000, 10000} {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i%10 == 0 {
				sb.WriteString(msgs[(i/10)%len(msgs)])
			} else {
				fmt.Fprintf(&sb, "  File \"/usr/lib/python3/dist-packages/module%d.py\", line %d, in call", i%7, i)
			}
			sb.WriteByte('\n')
		}
		text := sb.String()
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				if _, err := ExplainAll(context.Background(), d, text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
