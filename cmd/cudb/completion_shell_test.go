package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completionDrivers run the completion script each shell gets from
// `cudb completion SHELL` the way the shell does on TAB, for each line in
// $CASES (one per line), and print the values offered, each case ending
// with "@@END". bash needs bash-completion (as on any distribution that
// completes); zsh's completion widgets are replaced by functions that print
// what they are handed; fish answers `complete -C` itself.
var completionDrivers = map[string][]string{
	"bash": {"bash", "-c", `
source /usr/share/bash-completion/bash_completion || exit 2
source <(cudb completion bash)
while IFS= read -r line; do
  COMP_LINE="$line"; COMP_POINT=${#line}
  read -ra COMP_WORDS <<< "${line//\\ /@SP@}"; COMP_WORDS=("${COMP_WORDS[@]//@SP@/\\ }")
  [ "${line: -1}" = " " ] && COMP_WORDS+=("")
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
  __start_cudb 2>/dev/null
  printf '%s\n' "${COMPREPLY[@]}"; echo @@END
done <<< "$CASES"`},
	"zsh": {"zsh", "-c", `
compdef() { : }
source <(cudb completion zsh)
_describe() { print -rl -- "${completions[@]%%:*}"; return 0 }
compadd() { print -rl -- "${@[-1]}" }
_arguments() { print "(files)" }
for line in "${(@f)CASES}"; do
  words=("${(z)line}"); [[ $line == *" " ]] && words+=("")
  CURRENT=${#words}; _cudb; print @@END
done`},
	"fish": {"fish", "-c", `
cudb completion fish | source
for line in (string split \n -- $CASES)
  complete -C"$line" | string replace -r '\t.*' ''
  echo @@END
end`},
}

// TestCompletionInShells completes values in bash, zsh and fish through
// the scripts the binary prints: GPU names with a space in them, framework
// releases after torch==, CUDA versions, formats and platforms. A shell
// that is not installed is skipped with a message.
func TestCompletionInShells(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shells in child processes")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cudb"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line string
		want []string
		not  string
	}{
		{`cudb resolve torch==2.5.1 --gpu RTX\ 409`, []string{"RTX 4090"}, "RTX 3090"},
		{"cudb pin torch==2.1", []string{"2.1.0", "2.1.2"}, "1.13.1"},
		{"cudb resolve --cuda 12.", []string{"12.1", "12.8"}, "11.8"},
		{"cudb check Dockerfile --format ", []string{"sarif", "github"}, "prometheus"},
		{"cudb verify --format ", []string{"prometheus"}, "sarif"},
		{"cudb pin torch --platform ", []string{"linux", "linux-aarch64", "windows", "macos"}, "plan9"},
		{"cudb resolve torch --sm 8.", []string{"8.6", "8.9"}, "7.5"},
	}
	var lines []string
	for _, c := range cases {
		lines = append(lines, c.line)
	}
	ran := 0
	for shell, argv := range completionDrivers {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(argv[0]); err != nil {
				t.Skipf("%s is not installed", shell)
			}
			if shell == "bash" {
				if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err != nil {
					t.Skip("bash-completion is not installed (Debian: apt-get install bash-completion)")
				}
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "CASES="+strings.Join(lines, "\n"),
				"CUDB_NO_DATA_AGE_NOTICE=1", "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", shell, err, out)
			}
			ran++
			answers := strings.Split(strings.TrimSuffix(string(out), "@@END\n"), "@@END\n")
			if len(answers) != len(cases) {
				t.Fatalf("%s answered %d of %d cases:\n%s", shell, len(answers), len(cases), out)
			}
			for i, c := range cases {
				var got []string
				for _, v := range strings.Split(strings.TrimSpace(answers[i]), "\n") {
					// bash escapes a space for the command line; the
					// requirement's name may be left before the "=".
					v = strings.TrimPrefix(strings.ReplaceAll(v, `\ `, " "), "torch==")
					got = append(got, v)
				}
				for _, w := range c.want {
					if !slices.Contains(got, w) {
						t.Errorf("%s: %q offers %q, lacks %q", shell, c.line, got, w)
					}
				}
				if slices.Contains(got, c.not) {
					t.Errorf("%s: %q offers %q", shell, c.line, c.not)
				}
			}
		})
	}
}
