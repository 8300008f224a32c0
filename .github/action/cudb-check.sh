#!/usr/bin/env bash
# The script of cudb's GitHub Action (action.yml at the repository root):
# install the release binary, verify it against the release's SHA256SUMS,
# and run `cudb check` with annotations (--format github) or a SARIF file
# for code scanning (--format sarif). Inputs arrive as environment
# variables, so the script runs the same outside Actions (TestActionScript
# runs it with a local release folder and no network):
#
#   CUDB_VERSION      release to install: X.Y.Z or "latest" (default)
#   CUDB_RELEASE_URL  where releases are (default https://github.com/cudb/cudb/releases);
#                     a file:// URL is a local folder holding the files of one release
#   CUDB_BINARY       an installed cudb to use instead of downloading one
#   CUDB_FILES        files or folders to check, space-separated (default ".")
#   CUDB_FORMAT       github (default) or sarif
#   CUDB_SARIF        the SARIF file to write (default cudb.sarif)
#   CUDB_ARGS         more arguments for cudb check (--driver 535.104.05 --gpu "RTX 4090")
#   CUDB_FAIL         "true" (default): exit with cudb check's status; "false": exit 0
set -euo pipefail

version="${CUDB_VERSION:-latest}"
base="${CUDB_RELEASE_URL:-https://github.com/cudb/cudb/releases}"
format="${CUDB_FORMAT:-github}"
sarif="${CUDB_SARIF:-cudb.sarif}"
case "$format" in github|sarif) ;; *) echo "cudb action: format must be github or sarif, not $format" >&2; exit 2 ;; esac

bin="${CUDB_BINARY:-}"
if [ -z "$bin" ]; then
  os=$(uname -s | tr '[:upper:]' '[:lower:]'); arch=$(uname -m); ext=
  case "$os" in linux|darwin) ;; mingw*|msys*|cygwin*) os=windows; ext=.exe ;; *) echo "cudb action: no release binary for $os" >&2; exit 2 ;; esac
  case "$arch" in x86_64|amd64) arch=amd64 ;; aarch64|arm64) arch=arm64 ;; *) echo "cudb action: no release binary for $arch" >&2; exit 2 ;; esac
  name="cudb-$os-$arch$ext"
  case "$base" in
    file://*) url="$base" ;;
    *) if [ "$version" = latest ]; then url="$base/latest/download"; else url="$base/download/v${version#v}"; fi ;;
  esac
  dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/cudb-action-$$"
  mkdir -p "$dir"
  curl -fsSL --retry 3 -o "$dir/$name" "$url/$name"
  curl -fsSL --retry 3 -o "$dir/SHA256SUMS" "$url/SHA256SUMS"
  # SHA256SUMS lists flat names, as the release uploads them.
  if command -v sha256sum >/dev/null; then sum="sha256sum"; else sum="shasum -a 256"; fi
  (cd "$dir" && grep " [* ]\?$name\$" SHA256SUMS | $sum -c -) >&2 || { echo "cudb action: $name does not match the release's SHA256SUMS" >&2; exit 2; }
  chmod 0755 "$dir/$name"
  bin="$dir/$name"
  [ -n "${GITHUB_PATH:-}" ] && echo "$dir" >> "$GITHUB_PATH"
fi
"$bin" --version >&2

# Word-split CUDB_FILES; CUDB_ARGS keeps quoted words ("RTX 4090"), split
# by xargs (which reads quotes and runs nothing from them).
read -r -a files <<< "${CUDB_FILES:-.}"
args=()
if [ -n "${CUDB_ARGS:-}" ]; then
  while IFS= read -r a; do args+=("$a"); done < <(printf '%s' "$CUDB_ARGS" | xargs -n1 printf '%s\n')
fi
rc=0
if [ "$format" = sarif ]; then
  "$bin" check "${files[@]}" "${args[@]}" --format sarif > "$sarif" || rc=$?
  echo "cudb check wrote $sarif (exit $rc)" >&2
  [ -n "${GITHUB_OUTPUT:-}" ] && echo "sarif-file=$sarif" >> "$GITHUB_OUTPUT"
else
  "$bin" check "${files[@]}" "${args[@]}" --format github || rc=$?
fi
[ -n "${GITHUB_OUTPUT:-}" ] && echo "exit-code=$rc" >> "$GITHUB_OUTPUT"
# 0 healthy, 3 an error finding, 4 a pin that matches no build; other
# statuses are cudb failing, which always fails the step.
if [ "$rc" -ne 0 ] && { [ "${CUDB_FAIL:-true}" = true ] || { [ "$rc" -ne 3 ] && [ "$rc" -ne 4 ]; }; }; then
  exit "$rc"
fi
exit 0
