package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"sigs.k8s.io/yaml"
)

// TestFleetDaemonSetSchema validates the DaemonSet against Kubernetes' own
// OpenAPI schema for apps/v1 DaemonSet, vendored under testdata/k8s (no
// cluster, no network): required fields (a container's name, the selector,
// the template) and field types, with unknown fields refused. It also
// checks that the check can fail: a misspelt field and a container without
// its name are rejected.
func TestFleetDaemonSetSchema(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "k8s", "daemonset-apps-v1.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("the vendored schema does not resolve: %v", err)
	}
	validate := func(manifest string) error {
		j, err := yaml.YAMLToJSON([]byte(manifest))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(j, &v); err != nil {
			t.Fatal(err)
		}
		return resolved.Validate(v)
	}
	ds := string(fleetFile(t, "daemonset.yaml"))
	if err := validate(ds); err != nil {
		t.Errorf("docs/fleet/daemonset.yaml does not validate against the Kubernetes schema: %v", err)
	}
	for what, broken := range map[string]string{
		"a misspelt field":         strings.Replace(ds, "nodeSelector:", "nodeSelecter:", 1),
		"a container with no name": strings.Replace(ds, "- name: cudb-verify\n", "- \n", 1),
		"a string where a list is": strings.Replace(ds, `drop: ["ALL"]`, `drop: ALL`, 1),
	} {
		if broken == ds {
			t.Fatalf("%s: the replacement did not apply", what)
		}
		if err := validate(broken); err == nil {
			t.Errorf("%s validates: the schema check cannot fail", what)
		}
	}
}
