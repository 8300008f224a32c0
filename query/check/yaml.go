package check

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// mapGet returns the value node of key in a mapping node.
func mapGet(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func mapKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func parseYAML(file, text string) (*yaml.Node, error) {
	if err := checkBounds(file, KindCompose, text); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: expected a YAML mapping at the top", file)
	}
	return doc.Content[0], nil
}

// ParseCondaEnv reads a conda environment file: channels, conda
// dependencies (python=3.10, pytorch=2.1, pytorch-cuda=12.1,
// cudatoolkit=11.8) and the pip: section.
func ParseCondaEnv(file, text string) (*Unit, error) {
	root, err := parseYAML(file, text)
	if err != nil {
		return nil, err
	}
	u := &Unit{File: file}
	for _, c := range seq(mapGet(root, "channels")) {
		u.Channels = append(u.Channels, c.Value)
	}
	ch := ""
	if len(u.Channels) > 0 {
		ch = u.Channels[0]
	}
	for _, d := range seq(mapGet(root, "dependencies")) {
		if d.Kind == yaml.MappingNode {
			for _, p := range seq(mapGet(d, "pip")) {
				if strings.HasPrefix(p.Value, "-") {
					ws := shellWords(p.Value)
					if len(ws) >= 2 && (ws[0].text == "-r" || ws[0].text == "--requirement") {
						u.Includes = append(u.Includes, Include{Path: ws[1].text, Line: p.Line, Installer: InstallerPip})
					}
					continue
				}
				if r, ok := parseReqText(p.Value); ok {
					r.Line, r.Installer = p.Line, InstallerPip
					u.Reqs = append(u.Reqs, r)
				}
			}
			continue
		}
		r, ok := parseCondaSpec(d.Value)
		if !ok {
			continue
		}
		r.Line = d.Line
		if r.IndexURL == "" {
			r.IndexURL = ch
		}
		if r.Name == "python" {
			u.Python = strings.TrimSuffix(strings.TrimPrefix(r.Spec, "=="), ".*")
			u.PythonLine = d.Line
			continue
		}
		u.Reqs = append(u.Reqs, r)
		u.Conda = true
	}
	return u, nil
}

func seq(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// ParseCompose reads a compose file into one unit per service: its image
// (or build, for the caller to follow into a Dockerfile) and how it asks
// for GPUs (deploy.resources.reservations.devices, runtime: nvidia,
// gpus:).
func ParseCompose(file, text string) ([]*Unit, error) {
	root, err := parseYAML(file, text)
	if err != nil {
		return nil, err
	}
	services := mapGet(root, "services")
	if services == nil || services.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: no services: not a compose file", file)
	}
	var out []*Unit
	for i := 0; i+1 < len(services.Content); i += 2 {
		name, svc := services.Content[i], services.Content[i+1]
		u := &Unit{File: file, Name: name.Value, Env: map[string]EnvVar{}}
		if img := mapGet(svc, "image"); img != nil && img.Value != "" {
			im := ClassifyImage(img.Value)
			im.Line = img.Line
			u.Image = &im
		}
		if b := mapGet(svc, "build"); b != nil {
			br := &BuildRef{Line: b.Line, Context: "."}
			if b.Kind == yaml.ScalarNode {
				br.Context = b.Value
			} else {
				if c := mapGet(b, "context"); c != nil {
					br.Context = c.Value
				}
				if d := mapGet(b, "dockerfile"); d != nil {
					br.Dockerfile = d.Value
				}
			}
			u.Build = br
		}
		u.GPU = gpuAccess(svc, name.Line)
		if env := mapGet(svc, "environment"); env != nil {
			readComposeEnv(u, env)
		}
		out = append(out, u)
	}
	return out, nil
}

func readComposeEnv(u *Unit, env *yaml.Node) {
	switch env.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(env.Content); i += 2 {
			u.Env[env.Content[i].Value] = EnvVar{Value: env.Content[i+1].Value, Line: env.Content[i].Line}
		}
	case yaml.SequenceNode:
		for _, e := range env.Content {
			k, v, _ := strings.Cut(e.Value, "=")
			u.Env[k] = EnvVar{Value: v, Line: e.Line}
		}
	}
}

// gpuAccess reads a service's GPU request; How is "" when it asks for
// none (Line is then the service's line).
func gpuAccess(svc *yaml.Node, line int) *GPUAccess {
	g := &GPUAccess{Line: line}
	devs := mapGet(mapGet(mapGet(mapGet(svc, "deploy"), "resources"), "reservations"), "devices")
	for _, d := range seq(devs) {
		g.How, g.Line = "deploy.devices", d.Line
		if drv := mapGet(d, "driver"); drv != nil {
			g.Driver = drv.Value
		}
		for _, c := range seq(mapGet(d, "capabilities")) {
			g.Capabilities = append(g.Capabilities, c.Value)
		}
		if len(g.Capabilities) > 0 && contains(g.Capabilities, "gpu") {
			return g
		}
	}
	if g.How != "" {
		return g
	}
	if k := mapKey(svc, "gpus"); k != nil {
		return &GPUAccess{How: "gpus", Line: k.Line, Driver: "nvidia", Capabilities: []string{"gpu"}}
	}
	if r := mapGet(svc, "runtime"); r != nil && r.Value == "nvidia" {
		return &GPUAccess{How: "runtime", Line: r.Line, Driver: "nvidia", Capabilities: []string{"gpu"}}
	}
	return g
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
