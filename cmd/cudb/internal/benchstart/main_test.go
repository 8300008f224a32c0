package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	if m := median([]time.Duration{5, 1, 3}); m != 3 {
		t.Errorf("median = %v", m)
	}
	if m := medianF([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("medianF = %v", m)
	}
}

func TestPickAndPairs(t *testing.T) {
	cs, err := pick("resolve, pin")
	if err != nil || len(cs) != 2 || cs[0].Name != "resolve" || cs[0].Target != 3 {
		t.Fatalf("pick = %+v, %v", cs, err)
	}
	if _, err := pick("nope"); err == nil || !strings.Contains(err.Error(), "verify-from") {
		t.Errorf("unknown case: %v", err)
	}
	if err := run(io.Discard, 5, "", ""); err == nil || !strings.Contains(err.Error(), "at least 15") {
		t.Errorf("5 pairs: %v", err)
	}
}
