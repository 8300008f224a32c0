package main

import (
	"context"
	"testing"
	"time"
)

// A short, bounded run: every request answered 200 and the numbers are
// sane. The 60 s run in docs/benchmarks.md is on demand only.
func TestShortRun(t *testing.T) {
	res, err := Run(context.Background(), Config{Concurrency: 4, Duration: 3 * time.Second, MaxRequests: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.P50 <= 0 || res.P99 < res.P50 {
		t.Fatalf("implausible result: %s", res)
	}
	t.Log(res)
}

func TestHistogramQuantiles(t *testing.T) {
	h := &histogram{}
	for i := 1; i <= 100; i++ {
		h.add(time.Duration(i) * 10 * time.Microsecond)
	}
	if p50 := h.quantile(0.5); p50 < 500*time.Microsecond || p50 > 520*time.Microsecond {
		t.Errorf("p50 = %s", p50)
	}
	if p99 := h.quantile(0.99); p99 < 990*time.Microsecond || p99 > 1010*time.Microsecond {
		t.Errorf("p99 = %s", p99)
	}
	h.add(time.Second)
	if h.max != time.Second || h.quantile(1) != time.Second {
		t.Errorf("overflow: max %s, q1 %s", h.max, h.quantile(1))
	}
}
